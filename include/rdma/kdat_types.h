/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdat_types.h - kDAT 2.0 types and constants for kdapl
 *
 * Every name here is the one the DAT Collaborative's DAT 2.0 API gives it,
 * and every numeric value shared with uDAT is the value of Debian's DAT 2.0
 * user headers (<dat2/dat.h>, <dat2/dat_error.h> and <dat2/udat.h> from
 * libdapl-dev 2.1.10).  udapl-shim passes these values between user space
 * and /dev/kdapl without translating them, so they must never drift:
 * tests/user/dat-constants compiles this header beside Debian's headers and
 * fails on any shared name whose value differs, or on any Debian constant
 * missing here that is not in the list of omissions below.
 *
 * The layout of the structures is this file's own; only their names, field
 * names and the meaning of the fields follow DAT 2.0.
 *
 * Kernel-only additions (no Debian counterpart; marked "kernel only"):
 *  - the kDAT upcall types (DAT_UPCALL_*), memory optimisation flags
 *    (DAT_MEM_OPTIMIZE_*), LMR scope and state, and the kDAT memory types
 *    PHYSICAL, PLATFORM, IA, BYPASS and PHYSICAL_VAR_PAGES, all with the
 *    values of the DAT Collaborative's kDAT 2.0 header, kdat.h;
 *  - DAT_MEM_TYPE_SG and the for_sg region description, a kdapl extension
 *    for registering a struct scatterlist;
 *  - parameter/attribute mask bits for kDAT-only fields.  Where kdat.h gave
 *    such a field a bit that uDAT uses for something else (EVD upcall,
 *    IA reserved LMR, several provider attributes), the uDAT meaning keeps
 *    the bit and the kDAT field moves to a bit above the uDAT *_FIELD_ALL
 *    mask.  Each *_FIELD_ALL keeps its uDAT value; *_FIELD_ALL_KDAT also
 *    covers the kernel-only bits.
 *
 * Left out on purpose:
 *  - uDAT CNO OS wait proxies (DAT_OS_WAIT_PROXY_AGENT, DAT_AGENT_FUNC,
 *    DAT_PROXY_TYPE_*, DAT_CNO_PARAM, DAT_CNO_FIELD_*, DAT_FD): they
 *    describe how a user thread blocks; kernel consumers use upcalls.
 *    DAT_CNO_HANDLE and DAT_HANDLE_TYPE_CNO stay, so handle types keep
 *    their uDAT numbering.
 *  - DAT_EVD_ASYNC_EXISTS and DAT_EVD_OUT_OF_SCOPE: special uDAT handle
 *    values for dat_ia_open(), pointers rather than integer constants.
 *  - DAT 1.x spelling aliases that are lower-case field-name macros
 *    (max_rdma_read_per_ep, max_mtu_size), which would rewrite unrelated
 *    kernel identifiers, and DAT_IA_FIELD_IA_MAX_DTO_PER_OP, whose Debian
 *    definition names a constant that does not exist.
 *  - Function prototypes, the provider dispatch table, the registry and
 *    the IB extensions (<dat2/dat_ib_extensions.h>): not types of this file.
 */
#ifndef _RDMA_KDAT_TYPES_H
#define _RDMA_KDAT_TYPES_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/in6.h>

struct scatterlist;

/* ---------------------------------------------------------------------
 * Version and build configuration
 */

#define DAT_VERSION_MAJOR		2
#define DAT_VERSION_MINOR		0

/* Thread safety dat_ia_open() asks for unless told otherwise. */
#define DAT_THREADSAFE			DAT_FALSE

/* The extension ranges below are part of the ABI; they are always on. */
#define DAT_EXTENSIONS			1

/* Preferred buffer alignment for DTO segments, in bytes. */
#define DAT_OPTIMAL_ALIGNMENT		256

/* ---------------------------------------------------------------------
 * Scalar types
 */

typedef u32			DAT_UINT32;
typedef u64			DAT_UINT64;
typedef unsigned long long	DAT_UVERYLONG;
typedef void			*DAT_PVOID;
typedef s32			DAT_COUNT;
typedef u64			DAT_PADDR;

typedef u64			DAT_VLEN;	/* byte count */
typedef u64			DAT_VADDR;	/* host-order address */
typedef u32			DAT_SEG_LENGTH;	/* length of one segment */
typedef u32			DAT_LMR_CONTEXT;
typedef u32			DAT_RMR_CONTEXT;

typedef u64			DAT_CONN_QUAL;
typedef u64			DAT_PORT_QUAL;

/* Timeouts are in microseconds. */
typedef u32			DAT_TIMEOUT;
#define DAT_TIMEOUT_INFINITE	((DAT_TIMEOUT)~0U)

typedef enum dat_boolean {
	DAT_FALSE = 0,
	DAT_TRUE = 1,
} DAT_BOOLEAN;

/* Names: providers, attributes. */
typedef char			*DAT_NAME_PTR;
#define DAT_NAME_MAX_LENGTH	256

typedef struct dat_named_attr {
	const char *name;
	const char *value;
} DAT_NAMED_ATTR;

/* Consumer context; also the cookie type for DTOs, RMR binds and LMRs. */
typedef union dat_context {
	DAT_PVOID	as_ptr;
	DAT_UINT64	as_64;
	uintptr_t	as_index;
} DAT_CONTEXT;

typedef DAT_CONTEXT	DAT_DTO_COOKIE;
typedef DAT_CONTEXT	DAT_RMR_COOKIE;
/* kDAT meaning (a consumer cookie for FMR/invalidate), not uDAT's. */
typedef DAT_CONTEXT	DAT_LMR_COOKIE;

/* Size of the uDAT shared-memory identifier. */
#define DAT_LMR_COOKIE_SIZE	40

/* ---------------------------------------------------------------------
 * Addresses
 */

typedef struct sockaddr		*DAT_IA_ADDRESS_PTR;
/* Room for any address family the IA can use. */
typedef struct sockaddr_storage	DAT_SOCK_ADDR;
typedef struct sockaddr_in6	DAT_SOCK_ADDR6;

#define DAT_AF_INET		AF_INET
#define DAT_AF_INET6		AF_INET6

/* Socket triple describing a communicator (CSP, EP). */
typedef struct dat_comm {
	int domain;
	int type;
	int protocol;
} DAT_COMM;

/* ---------------------------------------------------------------------
 * Return codes
 *
 * A DAT_RETURN is class (bits 31..30) | type (bits 29..16) |
 * subtype (bits 15..0).
 */

typedef u32 DAT_RETURN;

#define DAT_CLASS_ERROR		0x80000000U
#define DAT_CLASS_WARNING	0x40000000U
#define DAT_CLASS_SUCCESS	0x00000000U

#define DAT_TYPE_MASK		0x3fff0000U
#define DAT_SUBTYPE_MASK	0x0000ffffU

#define DAT_IS_WARNING(status)	((DAT_UINT32)(status) & DAT_CLASS_WARNING)
#define DAT_GET_TYPE(status)	((DAT_UINT32)(status) & DAT_TYPE_MASK)
#define DAT_GET_SUBTYPE(status)	((DAT_UINT32)(status) & DAT_SUBTYPE_MASK)

typedef enum dat_return_type {
	DAT_SUCCESS			= 0x00000000,
	DAT_ABORT			= 0x00010000,
	DAT_CONN_QUAL_IN_USE		= 0x00020000,
	DAT_INSUFFICIENT_RESOURCES	= 0x00030000,
	DAT_INTERNAL_ERROR		= 0x00040000,
	DAT_INVALID_HANDLE		= 0x00050000,
	DAT_INVALID_PARAMETER		= 0x00060000,
	DAT_INVALID_STATE		= 0x00070000,
	DAT_LENGTH_ERROR		= 0x00080000,
	DAT_MODEL_NOT_SUPPORTED		= 0x00090000,
	DAT_PROVIDER_NOT_FOUND		= 0x000a0000,
	DAT_PRIVILEGES_VIOLATION	= 0x000b0000,
	DAT_PROTECTION_VIOLATION	= 0x000c0000,
	DAT_QUEUE_EMPTY			= 0x000d0000,
	DAT_QUEUE_FULL			= 0x000e0000,
	DAT_TIMEOUT_EXPIRED		= 0x000f0000,
	DAT_PROVIDER_ALREADY_REGISTERED	= 0x00100000,
	DAT_PROVIDER_IN_USE		= 0x00110000,
	DAT_INVALID_ADDRESS		= 0x00120000,
	DAT_INTERRUPTED_CALL		= 0x00130000,
	DAT_CONN_QUAL_UNAVAILABLE	= 0x00140000,
	DAT_RESERVED_LMR		= 0x00150000,
	DAT_PORT_IN_USE			= 0x00160000,
	DAT_COMM_NOT_SUPPORTED		= 0x00170000,
	/* 0x10000000..0x3ffe0000: types defined by DAT extensions */
	DAT_EXTENSION_BASE		= 0x10000000,
	DAT_NOT_IMPLEMENTED		= 0x3fff0000,
} DAT_RETURN_TYPE;

/* DAT 1.0 name. */
#define DAT_NAME_NOT_FOUND	DAT_PROVIDER_NOT_FOUND

typedef enum dat_return_subtype {
	DAT_NO_SUBTYPE				= 0x00,

	/* DAT_ABORT */
	DAT_SUB_INTERRUPTED			= 0x01,

	/* DAT_INSUFFICIENT_RESOURCES */
	DAT_RESOURCE_MEMORY			= 0x02,
	DAT_RESOURCE_DEVICE			= 0x03,
	DAT_RESOURCE_TEP			= 0x04,	/* QP */
	DAT_RESOURCE_TEVD			= 0x05,	/* CQ */
	DAT_RESOURCE_PROTECTION_DOMAIN		= 0x06,
	DAT_RESOURCE_MEMORY_REGION		= 0x07,
	DAT_RESOURCE_ERROR_HANDLER		= 0x08,
	DAT_RESOURCE_CREDITS			= 0x09,
	DAT_RESOURCE_SRQ			= 0x0a,

	/* DAT_INVALID_HANDLE: which handle was bad */
	DAT_INVALID_HANDLE_IA			= 0x0b,
	DAT_INVALID_HANDLE_EP			= 0x0c,
	DAT_INVALID_HANDLE_LMR			= 0x0d,
	DAT_INVALID_HANDLE_RMR			= 0x0e,
	DAT_INVALID_HANDLE_PZ			= 0x0f,
	DAT_INVALID_HANDLE_PSP			= 0x10,
	DAT_INVALID_HANDLE_RSP			= 0x11,
	DAT_INVALID_HANDLE_CR			= 0x12,
	DAT_INVALID_HANDLE_CNO			= 0x13,
	DAT_INVALID_HANDLE_EVD_CR		= 0x14,
	DAT_INVALID_HANDLE_EVD_REQUEST		= 0x15,
	DAT_INVALID_HANDLE_EVD_RECV		= 0x16,
	DAT_INVALID_HANDLE_EVD_CONN		= 0x17,
	DAT_INVALID_HANDLE_EVD_ASYNC		= 0x18,
	DAT_INVALID_HANDLE_SRQ			= 0x19,
	DAT_INVALID_HANDLE_CSP			= 0x1a,
	/* ... or which handle argument, by position */
	DAT_INVALID_HANDLE1			= 0x1b,
	DAT_INVALID_HANDLE2			= 0x1c,
	DAT_INVALID_HANDLE3			= 0x1d,
	DAT_INVALID_HANDLE4			= 0x1e,
	DAT_INVALID_HANDLE5			= 0x1f,
	DAT_INVALID_HANDLE6			= 0x20,
	DAT_INVALID_HANDLE7			= 0x21,
	DAT_INVALID_HANDLE8			= 0x22,
	DAT_INVALID_HANDLE9			= 0x23,
	DAT_INVALID_HANDLE10			= 0x24,

	/* DAT_INVALID_PARAMETER: argument position */
	DAT_INVALID_ARG1			= 0x25,
	DAT_INVALID_ARG2			= 0x26,
	DAT_INVALID_ARG3			= 0x27,
	DAT_INVALID_ARG4			= 0x28,
	DAT_INVALID_ARG5			= 0x29,
	DAT_INVALID_ARG6			= 0x2a,
	DAT_INVALID_ARG7			= 0x2b,
	DAT_INVALID_ARG8			= 0x2c,
	DAT_INVALID_ARG9			= 0x2d,
	DAT_INVALID_ARG10			= 0x2e,

	/* DAT_INVALID_STATE: Endpoint */
	DAT_INVALID_STATE_EP_UNCONNECTED	= 0x2f,
	DAT_INVALID_STATE_EP_ACTCONNPENDING	= 0x30,
	DAT_INVALID_STATE_EP_PASSCONNPENDING	= 0x31,
	DAT_INVALID_STATE_EP_TENTCONNPENDING	= 0x32,
	DAT_INVALID_STATE_EP_CONNECTED		= 0x33,
	DAT_INVALID_STATE_EP_DISCONNECTED	= 0x34,
	DAT_INVALID_STATE_EP_RESERVED		= 0x35,
	DAT_INVALID_STATE_EP_COMPLPENDING	= 0x36,
	DAT_INVALID_STATE_EP_DISCPENDING	= 0x37,
	DAT_INVALID_STATE_EP_PROVIDERCONTROL	= 0x38,
	DAT_INVALID_STATE_EP_NOTREADY		= 0x39,
	DAT_INVALID_STATE_EP_RECV_WATERMARK	= 0x3a,
	DAT_INVALID_STATE_EP_PZ			= 0x3b,
	DAT_INVALID_STATE_EP_EVD_REQUEST	= 0x3c,
	DAT_INVALID_STATE_EP_EVD_RECV		= 0x3d,
	DAT_INVALID_STATE_EP_EVD_CONNECT	= 0x3e,
	DAT_INVALID_STATE_EP_UNCONFIGURED	= 0x3f,
	DAT_INVALID_STATE_EP_UNCONFRESERVED	= 0x40,
	DAT_INVALID_STATE_EP_UNCONFPASSIVE	= 0x41,
	DAT_INVALID_STATE_EP_UNCONFTENTATIVE	= 0x42,
	/* DAT_INVALID_STATE: CNO */
	DAT_INVALID_STATE_CNO_IN_USE		= 0x43,
	DAT_INVALID_STATE_CNO_DEAD		= 0x44,
	/* DAT_INVALID_STATE: EVD (threshold is uDAT only) */
	DAT_INVALID_STATE_EVD_OPEN		= 0x45,
	DAT_INVALID_STATE_EVD_ENABLED		= 0x46,
	DAT_INVALID_STATE_EVD_DISABLED		= 0x47,
	DAT_INVALID_STATE_EVD_WAITABLE		= 0x48,
	DAT_INVALID_STATE_EVD_UNWAITABLE	= 0x49,
	DAT_INVALID_STATE_EVD_IN_USE		= 0x4a,
	DAT_INVALID_STATE_EVD_CONFIG_NOTIFY	= 0x4b,
	DAT_INVALID_STATE_EVD_CONFIG_SOLICITED	= 0x4c,
	DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD	= 0x4d,
	DAT_INVALID_STATE_EVD_WAITER		= 0x4e,
	DAT_INVALID_STATE_EVD_ASYNC		= 0x4f,
	/* DAT_INVALID_STATE: IA, LMR, PZ */
	DAT_INVALID_STATE_IA_IN_USE		= 0x50,
	DAT_INVALID_STATE_LMR_IN_USE		= 0x51,
	DAT_INVALID_STATE_LMR_FREE		= 0x52,
	DAT_INVALID_STATE_PZ_IN_USE		= 0x53,
	DAT_INVALID_STATE_PZ_FREE		= 0x54,
	/* DAT_INVALID_STATE: SRQ */
	DAT_INVALID_STATE_SRQ_OPERATIONAL	= 0x55,
	DAT_INVALID_STATE_SRQ_ERROR		= 0x56,
	DAT_INVALID_STATE_SRQ_IN_USE		= 0x57,
	DAT_INVALID_STATE_SRQ_SHUTDOWN		= 0x58,

	/* DAT_PRIVILEGES_VIOLATION */
	DAT_PRIVILEGES_READ			= 0x59,
	DAT_PRIVILEGES_WRITE			= 0x5a,
	DAT_PRIVILEGES_RDMA_READ		= 0x5b,
	DAT_PRIVILEGES_RDMA_WRITE		= 0x5c,

	/* DAT_PROTECTION_VIOLATION */
	DAT_PROTECTION_READ			= 0x5d,
	DAT_PROTECTION_WRITE			= 0x5e,
	DAT_PROTECTION_RDMA_READ		= 0x5f,
	DAT_PROTECTION_RDMA_WRITE		= 0x60,

	/* DAT_INVALID_ADDRESS */
	DAT_INVALID_ADDRESS_UNSUPPORTED		= 0x61,
	DAT_INVALID_ADDRESS_UNREACHABLE		= 0x62,
	DAT_INVALID_ADDRESS_MALFORMED		= 0x63,

	/* DAT_PROVIDER_NOT_FOUND */
	DAT_NAME_NOT_REGISTERED			= 0x64,
	DAT_MAJOR_NOT_FOUND			= 0x65,
	DAT_MINOR_NOT_FOUND			= 0x66,
	DAT_THREAD_SAFETY_NOT_FOUND		= 0x67,
} DAT_RETURN_SUBTYPE;

/* Build an error return from its type and subtype (kernel only). */
static inline DAT_RETURN dat_error(DAT_RETURN_TYPE type,
				   DAT_RETURN_SUBTYPE subtype)
{
	return DAT_CLASS_ERROR | (DAT_UINT32)type | (DAT_UINT32)subtype;
}

/* ---------------------------------------------------------------------
 * Handles
 *
 * Handles are opaque values of pointer size.  The type behind DAT_HANDLE
 * is never defined, so a handle cannot be dereferenced; the provider is
 * free to encode a type and generation in it.
 */

struct dat_opaque_handle;
typedef struct dat_opaque_handle	*DAT_HANDLE;

typedef DAT_HANDLE	DAT_CR_HANDLE;
typedef DAT_HANDLE	DAT_EP_HANDLE;
typedef DAT_HANDLE	DAT_EVD_HANDLE;
typedef DAT_HANDLE	DAT_IA_HANDLE;
typedef DAT_HANDLE	DAT_LMR_HANDLE;
typedef DAT_HANDLE	DAT_PSP_HANDLE;
typedef DAT_HANDLE	DAT_PZ_HANDLE;
typedef DAT_HANDLE	DAT_RMR_HANDLE;
typedef DAT_HANDLE	DAT_RSP_HANDLE;
typedef DAT_HANDLE	DAT_SRQ_HANDLE;
typedef DAT_HANDLE	DAT_CSP_HANDLE;
typedef DAT_HANDLE	DAT_CNO_HANDLE;

#define DAT_HANDLE_NULL		((DAT_HANDLE)NULL)

typedef enum dat_handle_type {
	DAT_HANDLE_TYPE_CR		= 0,
	DAT_HANDLE_TYPE_EP		= 1,
	DAT_HANDLE_TYPE_EVD		= 2,
	DAT_HANDLE_TYPE_IA		= 3,
	DAT_HANDLE_TYPE_LMR		= 4,
	DAT_HANDLE_TYPE_PSP		= 5,
	DAT_HANDLE_TYPE_PZ		= 6,
	DAT_HANDLE_TYPE_RMR		= 7,
	DAT_HANDLE_TYPE_RSP		= 8,
	DAT_HANDLE_TYPE_CNO		= 9,
	DAT_HANDLE_TYPE_SRQ		= 10,
	DAT_HANDLE_TYPE_CSP		= 11,
	DAT_HANDLE_TYPE_EXTENSION_BASE	= 12,
} DAT_HANDLE_TYPE;

/* Service point handle carried by a connection request event. */
typedef union dat_sp_handle {
	DAT_RSP_HANDLE	rsp_handle;
	DAT_PSP_HANDLE	psp_handle;
	DAT_CSP_HANDLE	csp_handle;
} DAT_SP_HANDLE;

/* ---------------------------------------------------------------------
 * Flags and small enumerations
 */

typedef enum dat_completion_flags {
	DAT_COMPLETION_DEFAULT_FLAG			= 0x00,
	/* no completion event when the DTO succeeds */
	DAT_COMPLETION_SUPPRESS_FLAG			= 0x01,
	/* receive completion wakes waiters only if the sender asked */
	DAT_COMPLETION_SOLICITED_WAIT_FLAG		= 0x02,
	/* completion is queued without notification */
	DAT_COMPLETION_UNSIGNALLED_FLAG			= 0x04,
	/* wait for earlier RDMA reads before starting */
	DAT_COMPLETION_BARRIER_FENCE_FLAG		= 0x08,
	/* uDAT: receive wakeups follow the dat_evd_wait() threshold */
	DAT_COMPLETION_EVD_THRESHOLD_FLAG		= 0x10,
	/* kDAT: LMR invalidate waits for earlier DTOs on the EP */
	DAT_COMPLETION_LMR_INVALIDATE_FENCE_FLAG	= 0x20,
} DAT_COMPLETION_FLAGS;

typedef enum dat_dtos {
	DAT_DTO_SEND			= 0,
	DAT_DTO_RDMA_WRITE		= 1,
	DAT_DTO_RDMA_READ		= 2,
	DAT_DTO_RECEIVE			= 3,
	DAT_DTO_RECEIVE_WITH_INVALIDATE	= 4,
	DAT_DTO_BIND_MW			= 5,	/* RMR bind */
	DAT_DTO_LMR_FMR			= 6,	/* kDAT */
	DAT_DTO_LMR_INVALIDATE		= 7,	/* kDAT */
	DAT_DTO_EXTENSION_BASE		= 8,
} DAT_DTOS;

typedef enum dat_qos {
	DAT_QOS_BEST_EFFORT		= 0x00,
	DAT_QOS_HIGH_THROUGHPUT		= 0x01,
	DAT_QOS_LOW_LATENCY		= 0x02,
	DAT_QOS_ECONOMY			= 0x04,
	DAT_QOS_PREMIUM			= 0x08,
} DAT_QOS;

typedef enum dat_connect_flags {
	DAT_CONNECT_DEFAULT_FLAG		= 0x00,
	DAT_CONNECT_MULTIPATH_FLAG		= 0x01,
	DAT_CONNECT_MULTIPATH_REQUIRED_FLAG	= 0x02,
} DAT_CONNECT_FLAGS;

#define DAT_CONNECT_MULTIPATH_REQUESTED_FLAG	DAT_CONNECT_MULTIPATH_FLAG

typedef enum dat_close_flags {
	DAT_CLOSE_ABRUPT_FLAG		= 0x00,
	DAT_CLOSE_GRACEFUL_FLAG		= 0x01,
} DAT_CLOSE_FLAGS;

#define DAT_CLOSE_DEFAULT	DAT_CLOSE_ABRUPT_FLAG

typedef enum dat_evd_flags {
	DAT_EVD_SOFTWARE_FLAG		= 0x001,
	DAT_EVD_CR_FLAG			= 0x010,
	DAT_EVD_DTO_FLAG		= 0x020,
	DAT_EVD_CONNECTION_FLAG		= 0x040,
	DAT_EVD_RMR_BIND_FLAG		= 0x080,
	DAT_EVD_ASYNC_FLAG		= 0x100,
	/* every provider-generated stream, no software events */
	DAT_EVD_DEFAULT_FLAG		= 0x1f0,
	DAT_EVD_EXTENSION_BASE		= 0x200,
} DAT_EVD_FLAGS;

typedef enum dat_psp_flags {
	DAT_PSP_CONSUMER_FLAG		= 0x00,	/* consumer supplies the EP */
	DAT_PSP_PROVIDER_FLAG		= 0x01,	/* provider creates the EP */
} DAT_PSP_FLAGS;

typedef enum dat_ep_creator_for_psp {
	DAT_PSP_CREATES_EP_NEVER	= 0,
	DAT_PSP_CREATES_EP_IFASKED	= 1,
	DAT_PSP_CREATES_EP_ALWAYS	= 2,
} DAT_EP_CREATOR_FOR_PSP;

typedef enum dat_iov_ownership {
	DAT_IOV_CONSUMER		= 0x0,	/* untouched by the provider */
	DAT_IOV_PROVIDER_NOMOD		= 0x1,	/* read, not modified */
	DAT_IOV_PROVIDER_MOD		= 0x2,	/* may be modified */
} DAT_IOV_OWNERSHIP;

typedef enum dat_extension {
	DAT_EXTENSION_NONE		= 0,
	DAT_EXTENSION_IB		= 1,
	DAT_EXTENSION_IW		= 2,
} DAT_EXTENSION;

#define DAT_IB_EXTENSION	1
#define DAT_IW_EXTENSION	2

/* Base operation numbers for dat_extension_op(). */
#define DAT_OPEN_EXTENSION_BASE		0x1000
#define DAT_CLOSE_EXTENSION_BASE	0x2000

typedef enum dat_service_type {
	DAT_SERVICE_TYPE_RC		= 0,	/* reliable connection */
	DAT_SERVICE_TYPE_EXTENSION_BASE	= 1,
} DAT_SERVICE_TYPE;

typedef enum dat_pz_support {
	DAT_PZ_UNIQUE			= 0,
	DAT_PZ_SHAREABLE		= 1,
} DAT_PZ_SUPPORT;

/* High availability: load balancing across IAs. */
typedef DAT_UINT32 DAT_HA_LB;
#define DAT_HA_LB_NONE		((DAT_HA_LB)0)
#define DAT_HA_LB_INTERCOMM	((DAT_HA_LB)1)
#define DAT_HA_LB_INTRACOMM	((DAT_HA_LB)2)

/* High availability: are two IAs the same adapter? */
typedef enum dat_ha_relationship {
	DAT_HA_FALSE			= 0,
	DAT_HA_TRUE			= 1,
	DAT_HA_UNKNOWN			= 2,
	DAT_HA_CONFLICTING		= 3,
	DAT_HA_EXTENSION_BASE		= 4,
} DAT_HA_RELATIONSHIP;

/* ---------------------------------------------------------------------
 * Memory: privileges, types, region descriptions
 */

typedef enum dat_mem_priv_flags {
	DAT_MEM_PRIV_NONE_FLAG		= 0x00,
	DAT_MEM_PRIV_LOCAL_READ_FLAG	= 0x01,
	DAT_MEM_PRIV_REMOTE_READ_FLAG	= 0x02,
	DAT_MEM_PRIV_LOCAL_WRITE_FLAG	= 0x10,
	DAT_MEM_PRIV_REMOTE_WRITE_FLAG	= 0x20,
	DAT_MEM_PRIV_ALL_FLAG		= 0x33,
	DAT_MEM_PRIV_EXTENSION_BASE	= 0x40,
} DAT_MEM_PRIV_FLAGS;

/* DAT 1.0 combined privileges. */
#define DAT_MEM_PRIV_READ_FLAG	\
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG)
#define DAT_MEM_PRIV_WRITE_FLAG	\
	(DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* Does an LMR's address space start at its base (VA) or at zero (ZB)? */
typedef enum dat_va_type {
	DAT_VA_TYPE_VA			= 0x0,
	DAT_VA_TYPE_ZB			= 0x1,
} DAT_VA_TYPE;

/*
 * One value selects how dat_lmr_kcreate() reads its region description;
 * provider attributes OR them together to list what is supported.
 */
typedef enum dat_mem_type {
	DAT_MEM_TYPE_VIRTUAL		= 0x00,		/* for_va */
	DAT_MEM_TYPE_LMR		= 0x01,		/* for_lmr_handle */
	DAT_MEM_TYPE_SHARED_VIRTUAL	= 0x02,		/* for_shared_memory */
	/* kernel only, kDAT 2.0 values */
	DAT_MEM_TYPE_PHYSICAL		= 0x10,		/* for_physical */
	DAT_MEM_TYPE_PLATFORM		= 0x20,		/* for_platform */
	DAT_MEM_TYPE_IA			= 0x40,		/* for_ia */
	DAT_MEM_TYPE_BYPASS		= 0x80,		/* for_platform */
	DAT_MEM_TYPE_PHYSICAL_VAR_PAGES	= 0x100,	/* for_array */
	/* kernel only, kdapl extension: a DMA-mappable scatterlist */
	DAT_MEM_TYPE_SG			= 0x10000,	/* for_sg */
} DAT_MEM_TYPE;

/* How a kernel registration should trade speed for exposure (kernel only). */
typedef enum dat_mem_optimize_flags {
	DAT_MEM_OPTIMIZE_DONT_CARE	= 0x00,
	DAT_MEM_OPTIMIZE_IA		= 0x01,
	DAT_MEM_OPTIMIZE_MIN_EXPOSURE	= 0x02,
	DAT_MEM_OPTIMIZE_EXACT_EXPOSURE	= 0x04,
} DAT_MEM_OPTIMIZE_FLAGS;

#define DAT_MEM_OPT	DAT_MEM_OPTIMIZE_FLAGS

/* Physical pages of one size (kernel only). */
typedef struct dat_physical_var_pages {
	DAT_VLEN	page_size;
	DAT_PADDR	*pages;
} DAT_PHYSICAL_VAR_PAGES;

/* Scatterlist registration (kernel only, kdapl extension). */
typedef struct dat_sg_list {
	struct scatterlist	*sg;
	unsigned int		nents;
} DAT_SG_LIST;

/*
 * uDAT shared memory: the identifier is a DAT_LMR_COOKIE_SIZE-byte
 * name that kdapl sees as a kernel copy.
 */
typedef struct dat_shared_memory {
	DAT_PVOID	virtual_address;
	char		(*shared_memory_id)[DAT_LMR_COOKIE_SIZE];
} DAT_SHARED_MEMORY;

typedef union dat_region_description {
	DAT_PVOID		for_va;
	DAT_LMR_HANDLE		for_lmr_handle;
	DAT_SHARED_MEMORY	for_shared_memory;
	/* kernel only */
	void			*for_platform;	/* PLATFORM and BYPASS */
	DAT_PHYSICAL_VAR_PAGES	for_array;
	DAT_PADDR		*for_physical;	/* array of PAGE_SIZE pages */
	DAT_PADDR		for_ia;
	DAT_SG_LIST		for_sg;
} DAT_REGION_DESCRIPTION;

/* Scope an RMR can be bound in. */
typedef enum dat_rmr_scope {
	DAT_RMR_SCOPE_EP		= 0,
	DAT_RMR_SCOPE_PZ		= 1,
	DAT_RMR_SCOPE_ANY		= 2,
} DAT_RMR_SCOPE;

/* Scope of an LMR used for fast registration (kernel only). */
typedef enum dat_lmr_scope {
	DAT_LMR_SCOPE_EP		= 0,
	DAT_LMR_SCOPE_PZ		= 1,
	DAT_LMR_SCOPE_ANY		= 2,
} DAT_LMR_SCOPE;

/*
 * Local and remote segments.  Addresses are 64-bit and in host byte order
 * whatever the pointer size; a zero segment_length makes the other fields
 * irrelevant.
 */
typedef struct dat_lmr_triplet {
	DAT_VADDR	virtual_address;
	DAT_SEG_LENGTH	segment_length;
	DAT_LMR_CONTEXT	lmr_context;
} DAT_LMR_TRIPLET;

typedef DAT_LMR_TRIPLET DAT_IOV;

typedef struct dat_rmr_triplet {
	DAT_VADDR	virtual_address;
	DAT_SEG_LENGTH	segment_length;
	DAT_RMR_CONTEXT	rmr_context;
} DAT_RMR_TRIPLET;

/* ---------------------------------------------------------------------
 * Object states
 */

typedef enum dat_ep_state {
	DAT_EP_STATE_UNCONNECTED			= 0,
	DAT_EP_STATE_UNCONFIGURED_UNCONNECTED		= 1,
	DAT_EP_STATE_RESERVED				= 2,
	DAT_EP_STATE_UNCONFIGURED_RESERVED		= 3,
	DAT_EP_STATE_PASSIVE_CONNECTION_PENDING		= 4,
	DAT_EP_STATE_UNCONFIGURED_PASSIVE		= 5,
	DAT_EP_STATE_ACTIVE_CONNECTION_PENDING		= 6,
	DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING	= 7,
	DAT_EP_STATE_UNCONFIGURED_TENTATIVE		= 8,
	DAT_EP_STATE_CONNECTED				= 9,
	DAT_EP_STATE_DISCONNECT_PENDING			= 10,
	DAT_EP_STATE_DISCONNECTED			= 11,
	DAT_EP_STATE_COMPLETION_PENDING			= 12,
	DAT_EP_STATE_CONNECTED_SINGLE_PATH		= 13,
	DAT_EP_STATE_CONNECTED_MULTI_PATH		= 14,
} DAT_EP_STATE;

/* Older name of the state an EP reaches after an error. */
#define DAT_EP_STATE_ERROR	DAT_EP_STATE_DISCONNECTED

typedef enum dat_srq_state {
	DAT_SRQ_STATE_ERROR		= 0,
	DAT_SRQ_STATE_OPERATIONAL	= 1,
	DAT_SRQ_STATE_SHUTDOWN		= 2,
} DAT_SRQ_STATE;

/*
 * EVD state: enabled/disabled, waitable/unwaitable and the notification
 * configuration are independent; one value from each group applies.
 */
typedef enum dat_evd_state {
	DAT_EVD_STATE_ENABLED		= 0x01,
	DAT_EVD_STATE_DISABLED		= 0x02,
	DAT_EVD_STATE_WAITABLE		= 0x04,
	DAT_EVD_STATE_UNWAITABLE	= 0x08,
	DAT_EVD_STATE_CONFIG_NOTIFY	= 0x10,
	DAT_EVD_STATE_CONFIG_SOLICITED	= 0x20,
	DAT_EVD_STATE_CONFIG_THRESHOLD	= 0x30,
} DAT_EVD_STATE;

/* Watermark values for SRQs and EPs. */
#define DAT_WATERMARK_INFINITE	((DAT_COUNT)~0)
#define DAT_HW_DEFAULT		DAT_WATERMARK_INFINITE
#define DAT_SRQ_LW_DEFAULT	0x0
#define DAT_VALUE_UNKNOWN	(((DAT_COUNT)~0) - 1)

/* ---------------------------------------------------------------------
 * Interface Adapter attributes
 */

typedef struct dat_ia_attr {
	char			adapter_name[DAT_NAME_MAX_LENGTH];
	char			vendor_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32		hardware_version_major;
	DAT_UINT32		hardware_version_minor;
	DAT_UINT32		firmware_version_major;
	DAT_UINT32		firmware_version_minor;
	DAT_IA_ADDRESS_PTR	ia_address_ptr;
	DAT_COUNT		max_eps;
	DAT_COUNT		max_dto_per_ep;
	DAT_COUNT		max_rdma_read_per_ep_in;
	DAT_COUNT		max_rdma_read_per_ep_out;
	DAT_COUNT		max_evds;
	DAT_COUNT		max_evd_qlen;
	DAT_COUNT		max_iov_segments_per_dto;
	DAT_COUNT		max_lmrs;
	DAT_SEG_LENGTH		max_lmr_block_size;
	DAT_VADDR		max_lmr_virtual_address;
	DAT_COUNT		max_pzs;
	DAT_SEG_LENGTH		max_message_size;
	DAT_SEG_LENGTH		max_rdma_size;
	DAT_COUNT		max_rmrs;
	DAT_VADDR		max_rmr_target_address;
	DAT_COUNT		max_srqs;
	DAT_COUNT		max_ep_per_srq;
	DAT_COUNT		max_recv_per_srq;
	DAT_COUNT		max_iov_segments_per_rdma_read;
	DAT_COUNT		max_iov_segments_per_rdma_write;
	DAT_COUNT		max_rdma_read_in;
	DAT_COUNT		max_rdma_read_out;
	DAT_BOOLEAN		max_rdma_read_per_ep_in_guaranteed;
	DAT_BOOLEAN		max_rdma_read_per_ep_out_guaranteed;
	DAT_BOOLEAN		zb_supported;
	DAT_EXTENSION		extension_supported;
	DAT_COUNT		extension_version;
	DAT_BOOLEAN		reserved_lmr_supported;	/* kernel only */
	DAT_COUNT		num_transport_attr;
	DAT_NAMED_ATTR		*transport_attr;
	DAT_COUNT		num_vendor_attr;
	DAT_NAMED_ATTR		*vendor_attr;
} DAT_IA_ATTR;

typedef DAT_UINT64 DAT_IA_ATTR_MASK;

#define DAT_IA_FIELD_NONE				0x0ULL
#define DAT_IA_FIELD_IA_ADAPTER_NAME			0x0000000001ULL
#define DAT_IA_FIELD_IA_VENDOR_NAME			0x0000000002ULL
#define DAT_IA_FIELD_IA_HARDWARE_MAJOR_VERSION		0x0000000004ULL
#define DAT_IA_FIELD_IA_HARDWARE_MINOR_VERSION		0x0000000008ULL
#define DAT_IA_FIELD_IA_FIRMWARE_MAJOR_VERSION		0x0000000010ULL
#define DAT_IA_FIELD_IA_FIRMWARE_MINOR_VERSION		0x0000000020ULL
#define DAT_IA_FIELD_IA_ADDRESS_PTR			0x0000000040ULL
#define DAT_IA_FIELD_IA_MAX_EPS				0x0000000080ULL
#define DAT_IA_FIELD_IA_MAX_DTO_PER_EP			0x0000000100ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN		0x0000000200ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT	0x0000000400ULL
#define DAT_IA_FIELD_IA_MAX_EVDS			0x0000000800ULL
#define DAT_IA_FIELD_IA_MAX_EVD_QLEN			0x0000001000ULL
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_DTO	0x0000002000ULL
#define DAT_IA_FIELD_IA_MAX_LMRS			0x0000004000ULL
#define DAT_IA_FIELD_IA_MAX_LMR_BLOCK_SIZE		0x0000008000ULL
#define DAT_IA_FIELD_IA_MAX_LMR_VIRTUAL_ADDRESS		0x0000010000ULL
#define DAT_IA_FIELD_IA_MAX_PZS				0x0000020000ULL
#define DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE		0x0000040000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_SIZE			0x0000080000ULL
#define DAT_IA_FIELD_IA_MAX_RMRS			0x0000100000ULL
#define DAT_IA_FIELD_IA_MAX_RMR_TARGET_ADDRESS		0x0000200000ULL
#define DAT_IA_FIELD_IA_MAX_SRQS			0x0000400000ULL
#define DAT_IA_FIELD_IA_MAX_EP_PER_SRQ			0x0000800000ULL
#define DAT_IA_FIELD_IA_MAX_RECV_PER_SRQ		0x0001000000ULL
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_READ	0x0002000000ULL
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE	0x0004000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_IN		0x0008000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_OUT		0x0010000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED	0x0020000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED	0x0040000000ULL
#define DAT_IA_FIELD_IA_ZB_SUPPORTED			0x0080000000ULL
#define DAT_IA_FIELD_IA_EXTENSION			0x0100000000ULL
#define DAT_IA_FIELD_IA_EXTENSION_VERSION		0x0200000000ULL
#define DAT_IA_FIELD_IA_NUM_TRANSPORT_ATTR		0x0400000000ULL
#define DAT_IA_FIELD_IA_TRANSPORT_ATTR			0x0800000000ULL
#define DAT_IA_FIELD_IA_NUM_VENDOR_ATTR			0x1000000000ULL
#define DAT_IA_FIELD_IA_VENDOR_ATTR			0x2000000000ULL
#define DAT_IA_FIELD_ALL				0x3fffffffffULL
/* kernel only; kdat.h's bit 32 is DAT_IA_FIELD_IA_EXTENSION here */
#define DAT_IA_FIELD_IA_RESERVED_LMR_SUPPORTED		0x4000000000ULL
#define DAT_IA_FIELD_ALL_KDAT				0x7fffffffffULL

/* Other names for the same bits. */
#define DAT_IA_FIELD_IA_EXTENSIONS_SUPPORTED	DAT_IA_FIELD_IA_EXTENSION
#define DAT_IA_FIELD_IA_MAX_MTU_SIZE		DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE
#define DAT_IA_ALL				DAT_IA_FIELD_ALL

/* ---------------------------------------------------------------------
 * Endpoint attributes and parameters
 */

typedef struct dat_ep_attr {
	DAT_SERVICE_TYPE	service_type;
	DAT_SEG_LENGTH		max_message_size;
	DAT_SEG_LENGTH		max_rdma_size;
	DAT_QOS			qos;
	DAT_COMPLETION_FLAGS	recv_completion_flags;
	DAT_COMPLETION_FLAGS	request_completion_flags;
	DAT_COUNT		max_recv_dtos;
	DAT_COUNT		max_request_dtos;
	DAT_COUNT		max_recv_iov;
	DAT_COUNT		max_request_iov;
	DAT_COUNT		max_rdma_read_in;
	DAT_COUNT		max_rdma_read_out;
	DAT_COUNT		srq_soft_hw;
	DAT_COUNT		max_rdma_read_iov;
	DAT_COUNT		max_rdma_write_iov;
	DAT_COUNT		ep_transport_specific_count;
	DAT_NAMED_ATTR		*ep_transport_specific;
	DAT_COUNT		ep_provider_specific_count;
	DAT_NAMED_ATTR		*ep_provider_specific;
} DAT_EP_ATTR;

typedef struct dat_ep_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_EP_STATE		ep_state;
	DAT_COMM		comm;
	DAT_IA_ADDRESS_PTR	local_ia_address_ptr;
	DAT_PORT_QUAL		local_port_qual;
	DAT_IA_ADDRESS_PTR	remote_ia_address_ptr;
	DAT_PORT_QUAL		remote_port_qual;
	DAT_PZ_HANDLE		pz_handle;
	DAT_EVD_HANDLE		recv_evd_handle;
	DAT_EVD_HANDLE		request_evd_handle;
	DAT_EVD_HANDLE		connect_evd_handle;
	DAT_SRQ_HANDLE		srq_handle;
	DAT_EP_ATTR		ep_attr;
} DAT_EP_PARAM;

typedef DAT_UINT64 DAT_EP_PARAM_MASK;

/* Fields of DAT_EP_PARAM itself... */
#define DAT_EP_FIELD_IA_HANDLE				0x00000001ULL
#define DAT_EP_FIELD_EP_STATE				0x00000002ULL
#define DAT_EP_FIELD_COMM				0x00000004ULL
#define DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR		0x00000008ULL
#define DAT_EP_FIELD_LOCAL_PORT_QUAL			0x00000010ULL
#define DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR		0x00000020ULL
#define DAT_EP_FIELD_REMOTE_PORT_QUAL			0x00000040ULL
#define DAT_EP_FIELD_PZ_HANDLE				0x00000080ULL
#define DAT_EP_FIELD_RECV_EVD_HANDLE			0x00000100ULL
#define DAT_EP_FIELD_REQUEST_EVD_HANDLE			0x00000200ULL
#define DAT_EP_FIELD_CONNECT_EVD_HANDLE			0x00000400ULL
#define DAT_EP_FIELD_SRQ_HANDLE				0x00000800ULL
/* ... and of its ep_attr member */
#define DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE		0x00001000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE		0x00002000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE		0x00004000ULL
#define DAT_EP_FIELD_EP_ATTR_QOS			0x00008000ULL
#define DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS	0x00010000ULL
#define DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS	0x00020000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS		0x00040000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS		0x00080000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV		0x00100000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV		0x00200000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN		0x00400000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT		0x00800000ULL
#define DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW		0x01000000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV		0x02000000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV		0x04000000ULL
#define DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR		0x08000000ULL
#define DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR	0x10000000ULL
#define DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR		0x20000000ULL
#define DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR	0x40000000ULL
#define DAT_EP_FIELD_EP_ATTR_ALL			0x7ffff000ULL
#define DAT_EP_FIELD_ALL				0x7fffffffULL

/* ---------------------------------------------------------------------
 * Shared Receive Queue
 */

typedef struct dat_srq_attr {
	DAT_COUNT	max_recv_dtos;
	DAT_COUNT	max_recv_iov;
	DAT_COUNT	low_watermark;
} DAT_SRQ_ATTR;

typedef struct dat_srq_param {
	DAT_IA_HANDLE	ia_handle;
	DAT_SRQ_STATE	srq_state;
	DAT_PZ_HANDLE	pz_handle;
	DAT_COUNT	max_recv_dtos;
	DAT_COUNT	max_recv_iov;
	DAT_COUNT	low_watermark;
	DAT_COUNT	available_dto_count;
	DAT_COUNT	outstanding_dto_count;
} DAT_SRQ_PARAM;

typedef enum dat_srq_param_mask {
	DAT_SRQ_FIELD_IA_HANDLE			= 0x001,
	DAT_SRQ_FIELD_SRQ_STATE			= 0x002,
	DAT_SRQ_FIELD_PZ_HANDLE			= 0x004,
	DAT_SRQ_FIELD_MAX_RECV_DTO		= 0x008,
	DAT_SRQ_FIELD_MAX_RECV_IOV		= 0x010,
	DAT_SRQ_FIELD_LOW_WATERMARK		= 0x020,
	DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT	= 0x040,
	DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT	= 0x080,
	DAT_SRQ_FIELD_ALL			= 0x0ff,
} DAT_SRQ_PARAM_MASK;

/* ---------------------------------------------------------------------
 * Protection Zone
 */

typedef struct dat_pz_param {
	DAT_IA_HANDLE	ia_handle;
} DAT_PZ_PARAM;

typedef enum dat_pz_param_mask {
	DAT_PZ_FIELD_IA_HANDLE		= 0x01,
	DAT_PZ_FIELD_ALL		= 0x01,
} DAT_PZ_PARAM_MASK;

/* ---------------------------------------------------------------------
 * Service points and connection requests
 */

typedef struct dat_psp_param {
	DAT_IA_HANDLE	ia_handle;
	DAT_CONN_QUAL	conn_qual;
	DAT_EVD_HANDLE	evd_handle;
	DAT_PSP_FLAGS	psp_flags;
} DAT_PSP_PARAM;

typedef enum dat_psp_param_mask {
	DAT_PSP_FIELD_IA_HANDLE		= 0x01,
	DAT_PSP_FIELD_CONN_QUAL		= 0x02,
	DAT_PSP_FIELD_EVD_HANDLE	= 0x04,
	DAT_PSP_FIELD_PSP_FLAGS		= 0x08,
	DAT_PSP_FIELD_ALL		= 0x0f,
} DAT_PSP_PARAM_MASK;

typedef struct dat_rsp_param {
	DAT_IA_HANDLE	ia_handle;
	DAT_CONN_QUAL	conn_qual;
	DAT_EVD_HANDLE	evd_handle;
	DAT_EP_HANDLE	ep_handle;
} DAT_RSP_PARAM;

typedef enum dat_rsp_param_mask {
	DAT_RSP_FIELD_IA_HANDLE		= 0x01,
	DAT_RSP_FIELD_CONN_QUAL		= 0x02,
	DAT_RSP_FIELD_EVD_HANDLE	= 0x04,
	DAT_RSP_FIELD_EP_HANDLE		= 0x08,
	DAT_RSP_FIELD_ALL		= 0x0f,
} DAT_RSP_PARAM_MASK;

typedef struct dat_csp_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_COMM		*comm;
	DAT_IA_ADDRESS_PTR	address_ptr;
	DAT_EVD_HANDLE		evd_handle;
} DAT_CSP_PARAM;

typedef enum dat_csp_param_mask {
	DAT_CSP_FIELD_IA_HANDLE		= 0x01,
	DAT_CSP_FIELD_COMM		= 0x02,
	DAT_CSP_FIELD_IA_ADDRESS	= 0x04,
	DAT_CSP_FIELD_EVD_HANDLE	= 0x08,
	DAT_CSP_FIELD_ALL		= 0x0f,
} DAT_CSP_PARAM_MASK;

/*
 * A connection request.  Nothing about the remote EP is carried; peers
 * that need it exchange it in the private data.
 */
typedef struct dat_cr_param {
	DAT_IA_ADDRESS_PTR	remote_ia_address_ptr;
	DAT_PORT_QUAL		remote_port_qual;
	DAT_COUNT		private_data_size;
	DAT_PVOID		private_data;
	/* EP the service point reserved for this request, or NULL handle */
	DAT_EP_HANDLE		local_ep_handle;
} DAT_CR_PARAM;

typedef enum dat_cr_param_mask {
	DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR	= 0x01,
	DAT_CR_FIELD_REMOTE_PORT_QUAL		= 0x02,
	DAT_CR_FIELD_PRIVATE_DATA_SIZE		= 0x04,
	DAT_CR_FIELD_PRIVATE_DATA		= 0x08,
	DAT_CR_FIELD_LOCAL_EP_HANDLE		= 0x10,
	DAT_CR_FIELD_ALL			= 0x1f,
} DAT_CR_PARAM_MASK;

/* ---------------------------------------------------------------------
 * Memory regions
 */

/* Fast-registration state of an LMR (kernel only). */
typedef struct dat_lmr_state {
	DAT_BOOLEAN	fmr_support;
	DAT_BOOLEAN	bound;
} DAT_LMR_STATE;

typedef struct dat_lmr_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_MEM_TYPE		mem_type;
	DAT_REGION_DESCRIPTION	region_desc;
	DAT_VLEN		length;
	DAT_PZ_HANDLE		pz_handle;
	DAT_MEM_PRIV_FLAGS	mem_priv;
	DAT_VA_TYPE		va_type;
	DAT_LMR_CONTEXT		lmr_context;
	DAT_RMR_CONTEXT		rmr_context;
	DAT_VLEN		registered_size;
	DAT_VADDR		registered_address;
	DAT_LMR_STATE		lmr_state;		/* kernel only */
} DAT_LMR_PARAM;

typedef enum dat_lmr_param_mask {
	DAT_LMR_FIELD_IA_HANDLE			= 0x001,
	DAT_LMR_FIELD_MEM_TYPE			= 0x002,
	DAT_LMR_FIELD_REGION_DESC		= 0x004,
	DAT_LMR_FIELD_LENGTH			= 0x008,
	DAT_LMR_FIELD_PZ_HANDLE			= 0x010,
	DAT_LMR_FIELD_MEM_PRIV			= 0x020,
	DAT_LMR_FIELD_VA_TYPE			= 0x040,
	DAT_LMR_FIELD_LMR_CONTEXT		= 0x080,
	DAT_LMR_FIELD_RMR_CONTEXT		= 0x100,
	DAT_LMR_FIELD_REGISTERED_SIZE		= 0x200,
	DAT_LMR_FIELD_REGISTERED_ADDRESS	= 0x400,
	DAT_LMR_FIELD_ALL			= 0x7ff,
	/* kernel only */
	DAT_LMR_FIELD_LMR_STATE			= 0x800,
	DAT_LMR_FIELD_ALL_KDAT			= 0xfff,
} DAT_LMR_PARAM_MASK;

typedef struct dat_rmr_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_PZ_HANDLE		pz_handle;
	DAT_LMR_TRIPLET		lmr_triplet;
	DAT_MEM_PRIV_FLAGS	mem_priv;
	DAT_RMR_CONTEXT		rmr_context;
	DAT_RMR_SCOPE		rmr_scope;
	DAT_VA_TYPE		va_type;
} DAT_RMR_PARAM;

typedef enum dat_rmr_param_mask {
	DAT_RMR_FIELD_IA_HANDLE		= 0x01,
	DAT_RMR_FIELD_PZ_HANDLE		= 0x02,
	DAT_RMR_FIELD_LMR_TRIPLET	= 0x04,
	DAT_RMR_FIELD_MEM_PRIV		= 0x08,
	DAT_RMR_FIELD_RMR_CONTEXT	= 0x10,
	DAT_RMR_FIELD_RMR_SCOPE		= 0x20,
	DAT_RMR_FIELD_VA_TYPE		= 0x40,
	DAT_RMR_FIELD_ALL		= 0x7f,
} DAT_RMR_PARAM_MASK;

/* ---------------------------------------------------------------------
 * Events
 */

typedef enum dat_dto_completion_status {
	DAT_DTO_SUCCESS			= 0,
	DAT_DTO_ERR_FLUSHED		= 1,
	DAT_DTO_ERR_LOCAL_LENGTH	= 2,
	DAT_DTO_ERR_LOCAL_EP		= 3,
	DAT_DTO_ERR_LOCAL_PROTECTION	= 4,
	DAT_DTO_ERR_BAD_RESPONSE	= 5,
	DAT_DTO_ERR_REMOTE_ACCESS	= 6,
	DAT_DTO_ERR_REMOTE_RESPONDER	= 7,
	DAT_DTO_ERR_TRANSPORT		= 8,
	DAT_DTO_ERR_RECEIVER_NOT_READY	= 9,
	DAT_DTO_ERR_PARTIAL_PACKET	= 10,
	DAT_RMR_OPERATION_FAILED	= 11,
	DAT_DTO_ERR_LOCAL_MM_ERROR	= 12,	/* kDAT */
} DAT_DTO_COMPLETION_STATUS;

/* Older names. */
#define DAT_DTO_LENGTH_ERROR	DAT_DTO_ERR_LOCAL_LENGTH
#define DAT_DTO_FAILURE		DAT_DTO_ERR_FLUSHED

/* RMR binds complete with a DTO status. */
typedef DAT_DTO_COMPLETION_STATUS DAT_RMR_BIND_COMPLETION_STATUS;
#define DAT_RMR_BIND_SUCCESS	DAT_DTO_SUCCESS
#define DAT_RMR_BIND_FAILURE	DAT_DTO_ERR_FLUSHED

typedef enum dat_event_number {
	DAT_DTO_COMPLETION_EVENT			= 0x00001,
	DAT_RMR_BIND_COMPLETION_EVENT			= 0x01001,
	DAT_CONNECTION_REQUEST_EVENT			= 0x02001,
	DAT_CONNECTION_EVENT_ESTABLISHED		= 0x04001,
	DAT_CONNECTION_EVENT_PEER_REJECTED		= 0x04002,
	DAT_CONNECTION_EVENT_NON_PEER_REJECTED		= 0x04003,
	DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR	= 0x04004,
	DAT_CONNECTION_EVENT_DISCONNECTED		= 0x04005,
	DAT_CONNECTION_EVENT_BROKEN			= 0x04006,
	DAT_CONNECTION_EVENT_TIMED_OUT			= 0x04007,
	DAT_CONNECTION_EVENT_UNREACHABLE		= 0x04008,
	DAT_ASYNC_ERROR_EVD_OVERFLOW			= 0x08001,
	DAT_ASYNC_ERROR_IA_CATASTROPHIC			= 0x08002,
	DAT_ASYNC_ERROR_EP_BROKEN			= 0x08003,
	DAT_ASYNC_ERROR_TIMED_OUT			= 0x08004,
	DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR		= 0x08005,
	DAT_HA_DOWN_TO_1				= 0x08101,
	DAT_HA_UP_TO_MULTI_PATH				= 0x08102,
	DAT_SOFTWARE_EVENT				= 0x10001,
	DAT_EXTENSION_EVENT				= 0x20000,
	DAT_IB_EXTENSION_RANGE_BASE			= 0x40000,
	DAT_IW_EXTENSION_RANGE_BASE			= 0x80000,
} DAT_EVENT_NUMBER;

/* Reasons carried by asynchronous error events, per object type. */
typedef enum ia_async_error_reason {
	DAT_IA_CATASTROPHIC_ERROR		= 0,
	DAT_IA_OTHER_ERROR			= 1,
} DAT_IA_ASYNC_ERROR_REASON;

typedef enum ep_async_error_reason {
	DAT_EP_TRANSFER_TO_ERROR		= 0,
	DAT_EP_OTHER_ERROR			= 1,
	DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT	= 2,
} DAT_EP_ASYNC_ERROR_REASON;

typedef enum evd_async_error_reason {
	DAT_EVD_OVERFLOW_ERROR			= 0,
	DAT_EVD_OTHER_ERROR			= 1,
} DAT_EVD_ASYNC_ERROR_REASON;

typedef enum srq_async_error_reason {
	DAT_SRQ_TRANSFER_TO_ERROR		= 0,
	DAT_SRQ_OTHER_ERROR			= 1,
	DAT_SRQ_LOW_WATERMARK_EVENT		= 2,
} DAT_SRQ_ASYNC_ERROR_REASON;

typedef enum lmr_async_error_reason {
	DAT_LMR_OTHER_ERROR			= 0,
} DAT_LMR_ASYNC_ERROR_REASON;

typedef enum rmr_async_error_reason {
	DAT_RMR_OTHER_ERROR			= 0,
} DAT_RMR_ASYNC_ERROR_REASON;

typedef enum pz_async_error_reason {
	DAT_PZ_OTHER_ERROR			= 0,
} DAT_PZ_ASYNC_ERROR_REASON;

/*
 * DTO completion.  transfered_length (DAT spelling) is valid only on
 * success, as is rmr_context for a receive that invalidated an RMR.
 */
typedef struct dat_dto_completion_event_data {
	DAT_EP_HANDLE			ep_handle;
	DAT_DTO_COOKIE			user_cookie;
	DAT_DTO_COMPLETION_STATUS	status;
	DAT_SEG_LENGTH			transfered_length;
	DAT_DTOS			operation;
	DAT_RMR_CONTEXT			rmr_context;
} DAT_DTO_COMPLETION_EVENT_DATA;

typedef struct dat_rmr_bind_completion_event_data {
	DAT_RMR_HANDLE			rmr_handle;
	DAT_RMR_COOKIE			user_cookie;
	DAT_RMR_BIND_COMPLETION_STATUS	status;
} DAT_RMR_BIND_COMPLETION_EVENT_DATA;

/*
 * Connection request arrival.  sp_handle names the PSP or RSP the
 * request arrived on (an RSP takes one request only).  truncate_flag is
 * set when the private data did not fit.
 */
typedef struct dat_cr_arrival_event_data {
	DAT_SP_HANDLE		sp_handle;
	DAT_IA_ADDRESS_PTR	local_ia_address_ptr;
	DAT_CONN_QUAL		conn_qual;
	DAT_CR_HANDLE		cr_handle;
	DAT_BOOLEAN		truncate_flag;
} DAT_CR_ARRIVAL_EVENT_DATA;

typedef struct dat_connection_event_data {
	DAT_EP_HANDLE	ep_handle;
	DAT_COUNT	private_data_size;
	DAT_PVOID	private_data;
} DAT_CONNECTION_EVENT_DATA;

/*
 * Asynchronous error.  dat_handle is the affected object: the IA for
 * unaffiliated errors, else the EP, EVD, SRQ, LMR, RMR or PZ; reason
 * comes from that object's *_ASYNC_ERROR_REASON.
 */
typedef struct dat_asynch_error_event_data {
	DAT_HANDLE	dat_handle;
	DAT_COUNT	reason;
} DAT_ASYNCH_ERROR_EVENT_DATA;

typedef struct dat_software_event_data {
	DAT_PVOID	pointer;
} DAT_SOFTWARE_EVENT_DATA;

typedef union dat_event_data {
	DAT_DTO_COMPLETION_EVENT_DATA		dto_completion_event_data;
	DAT_RMR_BIND_COMPLETION_EVENT_DATA	rmr_completion_event_data;
	DAT_CR_ARRIVAL_EVENT_DATA		cr_arrival_event_data;
	DAT_CONNECTION_EVENT_DATA		connect_event_data;
	DAT_ASYNCH_ERROR_EVENT_DATA		asynch_error_event_data;
	DAT_SOFTWARE_EVENT_DATA			software_event_data;
} DAT_EVENT_DATA;

typedef struct dat_event {
	DAT_EVENT_NUMBER	event_number;
	DAT_EVD_HANDLE		evd_handle;
	DAT_EVENT_DATA		event_data;
	DAT_UINT64		event_extension_data[8];
} DAT_EVENT;

/* ---------------------------------------------------------------------
 * Upcalls (kernel only, kDAT 2.0 values)
 */

/*
 * How many upcalls an EVD may have running at once.  kdat.h spells
 * DAT_UPCALL_NOTIFY as DAT_UPCALL_NORIFY.
 */
typedef enum dat_upcall_policy {
	DAT_UPCALL_TEARDOWN		= -1,	/* none; wait out running ones */
	DAT_UPCALL_DISABLE		= 0,	/* no upcalls */
	DAT_UPCALL_SINGLE_INSTANCE	= 1,	/* at most one running */
	DAT_UPCALL_NOTIFY		= 2,	/* one, notification only */
	DAT_UPCALL_MANY			= 100,	/* any number concurrently */
} DAT_UPCALL_POLICY;

typedef void (*DAT_UPCALL_FUNC)(DAT_PVOID instance_data,
				const DAT_EVENT *event,
				DAT_BOOLEAN more_events);

typedef struct dat_upcall_object {
	DAT_PVOID	instance_data;
	DAT_UPCALL_FUNC	upcall_func;
} DAT_UPCALL_OBJECT;

#define DAT_UPCALL_NULL	\
	((DAT_UPCALL_OBJECT) { .instance_data = NULL, .upcall_func = NULL })

/* For dat_evd_modify_upcall(): keep the current upcall object. */
#define DAT_UPCALL_SAME	((DAT_UPCALL_OBJECT *)NULL)

/* When a (re)armed upcall fires. */
typedef enum dat_upcall_flag {
	DAT_UPCALL_INVOC_NEW		= 0,	/* on the next new event */
	DAT_UPCALL_INVOC_ANY		= 1,	/* on any queued event */
} DAT_UPCALL_FLAG;

/* ---------------------------------------------------------------------
 * Event Dispatcher
 */

typedef struct dat_evd_param {
	DAT_IA_HANDLE		ia_handle;
	DAT_COUNT		evd_qlen;
	DAT_EVD_STATE		evd_state;
	DAT_CNO_HANDLE		cno_handle;
	DAT_EVD_FLAGS		evd_flags;
	DAT_UPCALL_POLICY	upcall_policy;	/* kernel only */
	DAT_UPCALL_OBJECT	upcall;		/* kernel only */
} DAT_EVD_PARAM;

typedef enum dat_evd_param_mask {
	DAT_EVD_FIELD_IA_HANDLE		= 0x01,
	DAT_EVD_FIELD_EVD_QLEN		= 0x02,
	DAT_EVD_FIELD_EVD_STATE		= 0x04,
	DAT_EVD_FIELD_CNO		= 0x08,
	DAT_EVD_FIELD_EVD_FLAGS		= 0x10,
	DAT_EVD_FIELD_ALL		= 0x1f,
	/* kernel only; kdat.h puts them on the EVD_STATE and CNO bits */
	DAT_EVD_FIELD_UPCALL_POLICY	= 0x20,
	DAT_EVD_FIELD_UPCALL		= 0x40,
	DAT_EVD_FIELD_ALL_KDAT		= 0x7f,
} DAT_EVD_PARAM_MASK;

/* ---------------------------------------------------------------------
 * Provider
 */

typedef struct dat_provider_info {
	char		ia_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32	dapl_version_major;
	DAT_UINT32	dapl_version_minor;
	DAT_BOOLEAN	is_thread_safe;
} DAT_PROVIDER_INFO;

/*
 * evd_stream_merging_supported[i][j] says whether streams i and j can feed
 * one EVD; the index order is that of DAT_EVD_FLAGS: software, connection
 * request, DTO, connection, RMR bind, asynchronous.
 */
typedef struct dat_provider_attr {
	char			provider_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32		provider_version_major;
	DAT_UINT32		provider_version_minor;
	DAT_UINT32		dapl_version_major;
	DAT_UINT32		dapl_version_minor;
	DAT_MEM_TYPE		lmr_mem_types_supported;
	DAT_IOV_OWNERSHIP	iov_ownership_on_return;
	DAT_QOS			dat_qos_supported;
	DAT_COMPLETION_FLAGS	completion_flags_supported;
	DAT_BOOLEAN		is_thread_safe;
	DAT_COUNT		max_private_data_size;
	DAT_BOOLEAN		supports_multipath;
	DAT_EP_CREATOR_FOR_PSP	ep_creator;
	DAT_PZ_SUPPORT		pz_support;
	DAT_UINT32		optimal_buffer_alignment;
	DAT_BOOLEAN		evd_stream_merging_supported[6][6];
	DAT_BOOLEAN		srq_supported;
	DAT_COUNT		srq_watermarks_supported;
	DAT_BOOLEAN		srq_ep_pz_difference_supported;
	DAT_COUNT		srq_info_supported;
	DAT_COUNT		ep_recv_info_supported;
	DAT_BOOLEAN		lmr_sync_req;
	DAT_BOOLEAN		dto_async_return_guaranteed;
	DAT_BOOLEAN		rdma_write_for_rdma_read_req;
	DAT_BOOLEAN		rdma_read_lmr_rmr_context_exposure;
	DAT_RMR_SCOPE		rmr_scope_supported;
	DAT_BOOLEAN		is_signal_safe;
	DAT_BOOLEAN		ha_supported;
	DAT_HA_LB		ha_loadbalancing;
	/* kernel only */
	DAT_UPCALL_POLICY	upcall_policy;
	DAT_BOOLEAN		is_interrupt_safe;
	DAT_BOOLEAN		fmr_supported;
	DAT_LMR_SCOPE		lmr_for_fmr_scope_supported;
	/* end of kernel only */
	DAT_COUNT		num_provider_specific_attr;
	DAT_NAMED_ATTR		*provider_specific_attr;
} DAT_PROVIDER_ATTR;

typedef DAT_UINT64 DAT_PROVIDER_ATTR_MASK;

#define DAT_PROVIDER_FIELD_NONE				0x0ULL
#define DAT_PROVIDER_FIELD_PROVIDER_NAME		0x000000001ULL
#define DAT_PROVIDER_FIELD_PROVIDER_VERSION_MAJOR	0x000000002ULL
#define DAT_PROVIDER_FIELD_PROVIDER_VERSION_MINOR	0x000000004ULL
#define DAT_PROVIDER_FIELD_DAPL_VERSION_MAJOR		0x000000008ULL
#define DAT_PROVIDER_FIELD_DAPL_VERSION_MINOR		0x000000010ULL
#define DAT_PROVIDER_FIELD_LMR_MEM_TYPE_SUPPORTED	0x000000020ULL
#define DAT_PROVIDER_FIELD_IOV_OWNERSHIP		0x000000040ULL
#define DAT_PROVIDER_FIELD_DAT_QOS_SUPPORTED		0x000000080ULL
#define DAT_PROVIDER_FIELD_COMPLETION_FLAGS_SUPPORTED	0x000000100ULL
#define DAT_PROVIDER_FIELD_IS_THREAD_SAFE		0x000000200ULL
#define DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE	0x000000400ULL
#define DAT_PROVIDER_FIELD_SUPPORTS_MULTIPATH		0x000000800ULL
#define DAT_PROVIDER_FIELD_EP_CREATOR			0x000001000ULL
#define DAT_PROVIDER_FIELD_PZ_SUPPORT			0x000002000ULL
#define DAT_PROVIDER_FIELD_OPTIMAL_BUFFER_ALIGNMENT	0x000004000ULL
#define DAT_PROVIDER_FIELD_EVD_STREAM_MERGING_SUPPORTED	0x000008000ULL
#define DAT_PROVIDER_FIELD_SRQ_SUPPORTED		0x000010000ULL
#define DAT_PROVIDER_FIELD_SRQ_WATERMARKS_SUPPORTED	0x000020000ULL
#define DAT_PROVIDER_FIELD_SRQ_EP_PZ_DIFFERENCE_SUPPORTED	0x000040000ULL
#define DAT_PROVIDER_FIELD_SRQ_INFO_SUPPORTED		0x000080000ULL
#define DAT_PROVIDER_FIELD_EP_RECV_INFO_SUPPORTED	0x000100000ULL
#define DAT_PROVIDER_FIELD_LMR_SYNC_REQ			0x000200000ULL
#define DAT_PROVIDER_FIELD_DTO_ASYNC_RETURN_GUARANTEED	0x000400000ULL
#define DAT_PROVIDER_FIELD_RDMA_WRITE_FOR_RDMA_READ_REQ	0x000800000ULL
#define DAT_PROVIDER_FIELD_RDMA_READ_LMR_RMR_CONTEXT_EXPOSURE	0x001000000ULL
#define DAT_PROVIDER_FIELD_RMR_SCOPE_SUPPORTED		0x002000000ULL
#define DAT_PROVIDER_FIELD_IS_SIGNAL_SAFE		0x004000000ULL
#define DAT_PROVIDER_FIELD_HA_SUPPORTED			0x008000000ULL
#define DAT_PROVIDER_FIELD_HA_LB			0x010000000ULL
#define DAT_PROVIDER_FIELD_NUM_PROVIDER_SPECIFIC_ATTR	0x020000000ULL
#define DAT_PROVIDER_FIELD_PROVIDER_SPECIFIC_ATTR	0x040000000ULL
#define DAT_PROVIDER_FIELD_ALL				0x07fffffffULL
/* kernel only; kdat.h gives these bits uDAT already uses */
#define DAT_PROVIDER_FIELD_UPCALL_POLICY		0x080000000ULL
#define DAT_PROVIDER_FIELD_IS_INTERRUPT_SAFE		0x100000000ULL
#define DAT_PROVIDER_FIELD_FMR_SUPPORTED		0x200000000ULL
#define DAT_PROVIDER_FIELD_LMR_FOR_FMR_SCOPE		0x400000000ULL
#define DAT_PROVIDER_FIELD_ALL_KDAT			0x7ffffffffULL

#endif /* _RDMA_KDAT_TYPES_H */
