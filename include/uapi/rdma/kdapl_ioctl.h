/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * kdapl_ioctl.h - the user ABI of /dev/kdapl
 *
 * Shared by the kdapl module and udapl-shim.  Every structure has fixed
 * sizes and explicit padding, carries user pointers as __u64 and starts
 * with struct kdapl_ioc_head, whose @size says how many bytes the caller
 * passes: a newer caller may pass a longer structure as long as the bytes
 * the kernel does not know are zero, an older one a shorter structure
 * (the missing tail reads as zero).  Numeric values that are DAT's
 * (DAT_RETURN, DAT_EVENT_NUMBER, flags, states) are those of <dat2/dat.h>.
 *
 * Objects are named by per-file ids: an id is meaningful only on the file
 * that created the object, and an id is reused only after the file has
 * handed out 2^32 - 1 others.  Events carry the 64-bit cookies the caller gave its objects, never a
 * kernel pointer or handle.  See Documentation/userapi.rst.
 */
#ifndef _UAPI_RDMA_KDAPL_IOCTL_H
#define _UAPI_RDMA_KDAPL_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define KDAPL_ABI_VERSION	1
#define KDAPL_DEVICE_NAME	"kdapl"

#define KDAPL_IOCTL_TYPE	0xDA

/* Largest argument structure the kernel reads, whatever @size says. */
#define KDAPL_IOC_MAX_SIZE	4096

/**
 * struct kdapl_ioc_head - first member of every ioctl argument
 * @size: bytes of the whole argument structure the caller passes
 * @status: out: the DAT_RETURN of the call (0 is DAT_SUCCESS)
 *
 * The ioctl itself fails (-1 and errno) only when the argument cannot be
 * read or written (EFAULT), is malformed (EINVAL, E2BIG), or the command
 * is unknown (ENOTTY) or needs the handshake first (EPROTO); every DAT
 * outcome, success included, is in @status.
 */
struct kdapl_ioc_head {
	__u32 size;
	__u32 status;
};

/**
 * struct kdapl_ioc_hello - the ABI handshake, the first call on a file
 * @head: see struct kdapl_ioc_head
 * @abi_version: KDAPL_ABI_VERSION of the caller
 * @max_ia_name: out: longest IA name, terminating NUL included
 * @max_private_data: out: largest private data of a connection call
 * @event_size: out: size of a struct kdapl_uevent in the event rings
 * @max_command: out: how many commands the module knows: every
 *	KDAPL_NR_* below it is implemented.  Commands are only ever added
 *	within one ABI version, so a library newer than the module learns
 *	here which of its calls the module lacks (those fail with ENOTTY).
 *	A module older than this field leaves it as the caller set it (0).
 * @reserved: zero
 *
 * Every other command fails with EPROTO until a hello with the kernel's
 * version succeeds; a mismatch fails with EPROTONOSUPPORT, and the kernel
 * log says which versions met.  The module takes the hello of a library
 * older than @max_command (a @head.size without it).  Reserved fields and flags a command does
 * not use must be zero (EINVAL otherwise), so that they can be given a
 * meaning later.
 */
struct kdapl_ioc_hello {
	struct kdapl_ioc_head head;
	__u32 abi_version;
	__u32 max_ia_name;
	__u32 max_private_data;
	__u32 event_size;
	__u32 max_command;
	__u32 reserved;
};

#define KDAPL_ABI_NAME_MAX	96

/**
 * struct kdapl_ioc_ia_open - open an IA for this file
 * @head: see struct kdapl_ioc_head
 * @name: the IA name, NUL terminated (kdaplctl list shows them)
 * @async_qlen: queue length of the asynchronous EVD the kernel creates
 * @async_cookie: cookie of that EVD, put in its events
 * @ia_id: out: the IA
 * @async_evd_id: out: its asynchronous EVD, mapped like any EVD
 * @async_ring_size: out: bytes to mmap for that EVD's event ring
 * @async_ring_offset: out: the mmap offset of that ring
 */
struct kdapl_ioc_ia_open {
	struct kdapl_ioc_head head;
	char name[KDAPL_ABI_NAME_MAX];
	__s32 async_qlen;
	__u32 reserved;
	__u64 async_cookie;
	__u32 ia_id;
	__u32 async_evd_id;
	__u64 async_ring_size;
	__u64 async_ring_offset;
};

/**
 * struct kdapl_ioc_obj_free - close an IA or free any object
 * @head: see struct kdapl_ioc_head
 * @id: the object
 * @flags: DAT_CLOSE_FLAGS for an IA close; zero otherwise
 */
struct kdapl_ioc_obj_free {
	struct kdapl_ioc_head head;
	__u32 id;
	__u32 flags;
};

/**
 * struct kdapl_ioc_ia_query - the attributes of an IA
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @reserved: zero
 * @adapter_name: the adapter (the ib_device name)
 * @vendor_name: the vendor, as the kernel names it
 * @addr: the IA address, a struct sockaddr_in or sockaddr_in6
 * @max_eps: the rest up to @zb_supported: as the fields of DAT_IA_ATTR
 *	with the same names
 * @max_private_data_size: as DAT_PROVIDER_ATTR's: the largest private
 *	data a connection call of the IA's transport carries
 * @transport_mtu: out: the port's active MTU in bytes when the IA was
 *	opened (the provider attribute DAT_IB_TRANSPORT_MTU), or 0
 * @ib_extensions: out: KDAPL_IA_EXT_* flags, the IB extension
 *	operations the IA's transport carries (a module older than this
 *	field leaves it 0)
 * @reserved2: zero
 */
struct kdapl_ioc_ia_query {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 reserved;
	char adapter_name[KDAPL_ABI_NAME_MAX];
	char vendor_name[KDAPL_ABI_NAME_MAX];
	__u8 addr[128];
	__u32 hardware_version_major;
	__u32 hardware_version_minor;
	__u32 firmware_version_major;
	__u32 firmware_version_minor;
	__s32 max_eps;
	__s32 max_dto_per_ep;
	__s32 max_rdma_read_per_ep_in;
	__s32 max_rdma_read_per_ep_out;
	__s32 max_evds;
	__s32 max_evd_qlen;
	__s32 max_iov_segments_per_dto;
	__s32 max_lmrs;
	__u64 max_lmr_block_size;
	__u64 max_lmr_virtual_address;
	__s32 max_pzs;
	__s32 max_rmrs;
	__u64 max_message_size;
	__u64 max_rdma_size;
	__u64 max_rmr_target_address;
	__s32 max_srqs;
	__s32 max_ep_per_srq;
	__s32 max_recv_per_srq;
	__s32 max_iov_segments_per_rdma_read;
	__s32 max_iov_segments_per_rdma_write;
	__s32 max_rdma_read_in;
	__s32 max_rdma_read_out;
	__u32 zb_supported;
	__u32 max_private_data_size;
	__u32 transport_mtu;
	__u32 ib_extensions;
	__u32 reserved2;
};

/* struct kdapl_ioc_ia_query.ib_extensions */
#define KDAPL_IA_EXT_IMMED_DATA	0x1	/* RDMA Write with immediate data */
#define KDAPL_IA_EXT_ATOMICS	0x2	/* compare and swap, fetch and add */
#define KDAPL_IA_EXT_COUNTERS	0x4	/* KDAPL_IOC_COUNTERS (DAT_COUNTERS) */
#define KDAPL_IA_EXT_UD		0x8	/* datagram EPs (DAT_IB_UD) */

/**
 * struct kdapl_ioc_pz_create - create a protection zone
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @pz_id: out: the PZ
 */
struct kdapl_ioc_pz_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 pz_id;
};

/**
 * struct kdapl_ioc_evd_create - create an EVD and its event ring
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @qlen: the minimum queue length (DAT evd_min_qlen)
 * @flags: DAT_EVD_FLAGS
 * @cno_id: the CNO its events trigger, or 0 for none
 * @cookie: put in struct kdapl_uevent.evd_cookie of its events
 * @evd_id: out: the EVD
 * @entries: out: events the ring holds (a power of two >= @qlen)
 * @ring_size: out: bytes to mmap
 * @ring_offset: out: the mmap offset of the ring
 */
struct kdapl_ioc_evd_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__s32 qlen;
	__u32 flags;
	__u32 cno_id;
	__u64 cookie;
	__u32 evd_id;
	__u32 entries;
	__u64 ring_size;
	__u64 ring_offset;
};

/**
 * struct kdapl_ioc_evd_resize - change the queue length of an EVD
 * @head: see struct kdapl_ioc_head
 * @evd_id: the EVD
 * @qlen: the new minimum queue length (DAT evd_min_qlen)
 * @entries: out: slots the ring has now
 * @reserved: zero
 * @ring_size: out: bytes to mmap for the ring now
 *
 * When the ring's number of slots changes, the kernel moves the events
 * not yet consumed, in order, to a new ring at the same mmap offset and
 * fills it from there on: the process maps the new ring (@ring_size
 * bytes), consumes from it, and unmaps the old one, which the kernel
 * no longer writes.  Fails with DAT_INVALID_STATE while more than @qlen
 * events are in the ring, while a thread waits on the EVD
 * (KDAPL_IOC_EVD_WAIT), or, for an EVD of connection requests only,
 * while its events would fill the new ring; no other command may use
 * the EVD meanwhile.
 */
struct kdapl_ioc_evd_resize {
	struct kdapl_ioc_head head;
	__u32 evd_id;
	__s32 qlen;
	__u32 entries;
	__u32 reserved;
	__u64 ring_size;
};

/**
 * struct kdapl_ioc_evd_wait - wait for events of an EVD
 * @head: see struct kdapl_ioc_head
 * @evd_id: the EVD
 * @threshold: return once this many events are in the ring
 * @timeout_us: DAT_TIMEOUT: microseconds, ~0 for no limit
 * @reserved: zero
 * @count: out: events in the ring at return
 *
 * Returns DAT_SUCCESS when @threshold events are in the ring,
 * DAT_TIMEOUT_EXPIRED, or DAT_INTERRUPTED_CALL on a signal.
 */
struct kdapl_ioc_evd_wait {
	struct kdapl_ioc_head head;
	__u32 evd_id;
	__s32 threshold;
	__u32 timeout_us;
	__u32 reserved;
	__u32 count;
	__u32 reserved2;
};

/* struct kdapl_ioc_evd_modify.set, .clear and .state */
#define KDAPL_EVD_DISABLED	(1U << 0)
#define KDAPL_EVD_UNWAITABLE	(1U << 1)

/**
 * struct kdapl_ioc_evd_modify - change the state of an EVD
 * @head: see struct kdapl_ioc_head
 * @evd_id: the EVD
 * @set: KDAPL_EVD_* to set: DISABLED keeps its events from triggering
 *	its CNO (dat_evd_disable()); UNWAITABLE makes KDAPL_IOC_EVD_WAIT
 *	fail with DAT_INVALID_STATE and wakes its waiters, which fail so
 *	too (dat_evd_set_unwaitable())
 * @clear: KDAPL_EVD_* to clear (dat_evd_enable(),
 *	dat_evd_clear_unwaitable()); a bit may not be in both
 * @state: out: KDAPL_EVD_* after the change
 * @reserved: zero
 *
 * Events still go into the ring in every state.
 */
struct kdapl_ioc_evd_modify {
	struct kdapl_ioc_head head;
	__u32 evd_id;
	__u32 set;
	__u32 clear;
	__u32 state;
};

/**
 * struct kdapl_ioc_evd_modify_cno - change the CNO of an EVD
 * @head: see struct kdapl_ioc_head
 * @evd_id: the EVD
 * @cno_id: a CNO of the EVD's IA, or 0 for none
 *
 * From the return on, the EVD's events trigger the new CNO; one under
 * way may still trigger the old one.  An old CNO left without EVDs is
 * triggered with no EVD, as when its last EVD is freed
 * (dat_evd_modify_cno()).
 */
struct kdapl_ioc_evd_modify_cno {
	struct kdapl_ioc_head head;
	__u32 evd_id;
	__u32 cno_id;
};

/**
 * struct kdapl_ioc_evd_fd - a file descriptor to poll an EVD with
 * @head: see struct kdapl_ioc_head
 * @evd_id: the EVD
 * @fd: out: a new descriptor (close-on-exec) that polls readable
 *	(EPOLLIN) while the EVD's ring holds events, and EPOLLHUP once the
 *	EVD is freed; it keeps the ring, not the EVD, alive
 */
struct kdapl_ioc_evd_fd {
	struct kdapl_ioc_head head;
	__u32 evd_id;
	__s32 fd;
};

/* struct kdapl_ioc_cno_create.flags: also give a pollable descriptor. */
#define KDAPL_CNO_FD		(1U << 0)

/**
 * struct kdapl_ioc_cno_create - create a Consumer Notification Object
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @flags: KDAPL_CNO_*
 * @cno_id: out: the CNO, for struct kdapl_ioc_evd_create.cno_id
 * @fd: out: with KDAPL_CNO_FD, a descriptor (close-on-exec) that polls
 *	readable while the CNO is triggered; -1 otherwise
 *
 * An EVD created with the CNO triggers it with each event it receives
 * while no thread waits on the EVD itself (KDAPL_IOC_EVD_WAIT); the CNO
 * remembers the last EVD that did until a wait takes it.
 */
struct kdapl_ioc_cno_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 flags;
	__u32 cno_id;
	__s32 fd;
};

/**
 * struct kdapl_ioc_cno_wait - wait for a CNO to be triggered
 * @head: see struct kdapl_ioc_head
 * @cno_id: the CNO
 * @timeout_us: DAT_TIMEOUT: microseconds, ~0 for no limit, 0 to poll
 * @evd_cookie: out: the cookie of the EVD that triggered it
 *
 * Returns DAT_SUCCESS and untriggers the CNO, DAT_QUEUE_EMPTY when the
 * timeout expires (as DAT says), DAT_INTERRUPTED_CALL on a signal, or
 * DAT_INVALID_HANDLE if the CNO was freed meanwhile.  When the last EVD
 * of the CNO is freed, the CNO is triggered with @evd_cookie 0.
 */
struct kdapl_ioc_cno_wait {
	struct kdapl_ioc_head head;
	__u32 cno_id;
	__u32 timeout_us;
	__u64 evd_cookie;
};

/**
 * struct kdapl_ioc_evd_post_se - post a software event
 * @head: see struct kdapl_ioc_head
 * @evd_id: the EVD
 * @reserved: zero
 * @pointer: the event's pointer, returned in struct kdapl_uevent.data[0]
 */
struct kdapl_ioc_evd_post_se {
	struct kdapl_ioc_head head;
	__u32 evd_id;
	__u32 reserved;
	__u64 pointer;
};

/* struct kdapl_ioc_lmr_sync.flags: the process reads the ranges next. */
#define KDAPL_LMR_SYNC_FOR_CPU	(1U << 0)
/* The most segments one KDAPL_IOC_LMR_SYNC takes. */
#define KDAPL_LMR_SYNC_MAX	65536

/**
 * struct kdapl_ioc_lmr_sync - make ranges of LMRs consistent
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @flags: 0 when the process wrote the ranges and a peer's RDMA Reads
 *	read them next (dat_lmr_sync_rdma_read()); KDAPL_LMR_SYNC_FOR_CPU
 *	when a peer's RDMA Writes wrote them and the process reads them
 *	next (dat_lmr_sync_rdma_write())
 * @segments: the address of @num_segments struct kdapl_post_sge (the
 *	layout of DAT_LMR_TRIPLET) in the process
 * @num_segments: 0 to KDAPL_LMR_SYNC_MAX
 *
 * Every range must lie in an LMR of the IA (zero-length ones are
 * skipped); if one does not, DAT_INVALID_PARAMETER and nothing is
 * synced.
 */
struct kdapl_ioc_lmr_sync {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 flags;
	__u64 segments;
	__u64 num_segments;
};

/**
 * struct kdapl_ioc_lmr_create - register memory of the process
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @pz_id: the PZ
 * @addr: the first byte, an address of the calling process
 * @length: bytes to register
 * @privileges: DAT_MEM_PRIV_FLAGS
 * @reserved: zero
 * @cookie: put in events about the LMR
 * @lmr_id: out: the LMR
 * @lmr_context: out: its local key
 * @rmr_context: out: its remote key, zero without remote privileges
 * @reserved2: zero
 * @registered_address: out: the first byte registered
 * @registered_length: out: bytes registered
 *
 * The pages are pinned until the LMR is freed and no work request can
 * reach them; they count against RLIMIT_MEMLOCK and the module's
 * user_pin_max_mb.
 */
struct kdapl_ioc_lmr_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 pz_id;
	__u64 addr;
	__u64 length;
	__u32 privileges;
	__u32 reserved;
	__u64 cookie;
	__u32 lmr_id;
	__u32 lmr_context;
	__u32 rmr_context;
	__u32 reserved2;
	__u64 registered_address;
	__u64 registered_length;
};

/**
 * struct kdapl_ioc_ep_attr - the numeric attributes of an EP (DAT_EP_ATTR)
 * @service_type: DAT_SERVICE_TYPE
 * @qos: DAT_QOS
 * @max_message_size: as DAT_EP_ATTR
 * @max_rdma_size: as DAT_EP_ATTR
 * @recv_completion_flags: DAT_COMPLETION_FLAGS
 * @request_completion_flags: DAT_COMPLETION_FLAGS
 * @max_recv_dtos: the rest: as the fields of DAT_EP_ATTR
 * @reserved: zero
 */
struct kdapl_ioc_ep_attr {
	__u32 service_type;
	__u32 qos;
	__u64 max_message_size;
	__u64 max_rdma_size;
	__u32 recv_completion_flags;
	__u32 request_completion_flags;
	__s32 max_recv_dtos;
	__s32 max_request_dtos;
	__s32 max_recv_iov;
	__s32 max_request_iov;
	__s32 max_rdma_read_in;
	__s32 max_rdma_read_out;
	__s32 srq_soft_hw;
	__s32 max_rdma_read_iov;
	__s32 max_rdma_write_iov;
	__u32 reserved;
};

/* struct kdapl_ioc_ep_create.flags: @attr is given (else the defaults). */
#define KDAPL_EP_CREATE_ATTR	0x1

/**
 * struct kdapl_ioc_ep_create - create an Endpoint
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @pz_id: its PZ
 * @recv_evd_id: EVD of its receive completions, or 0
 * @request_evd_id: EVD of its request completions, or 0
 * @connect_evd_id: EVD of its connection events, or 0
 * @flags: KDAPL_EP_CREATE_*
 * @cookie: put in events about the EP
 * @attr: the attributes, with KDAPL_EP_CREATE_ATTR
 * @ep_id: out: the EP
 * @srq_id: the SRQ the EP takes its receives from
 *	(dat_ep_create_with_srq()), or 0 for its own receive queue
 */
struct kdapl_ioc_ep_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 pz_id;
	__u32 recv_evd_id;
	__u32 request_evd_id;
	__u32 connect_evd_id;
	__u32 flags;
	__u64 cookie;
	struct kdapl_ioc_ep_attr attr;
	__u32 ep_id;
	__u32 srq_id;
};

/**
 * struct kdapl_ioc_srq_create - create a Shared Receive Queue
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @pz_id: its PZ
 * @max_recv_dtos: as DAT_SRQ_ATTR
 * @max_recv_iov: as DAT_SRQ_ATTR
 * @low_watermark: as DAT_SRQ_ATTR
 * @reserved: zero
 * @cookie: put in the asynchronous events about the SRQ
 * @srq_id: out: the SRQ
 * @reserved2: zero
 */
struct kdapl_ioc_srq_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 pz_id;
	__s32 max_recv_dtos;
	__s32 max_recv_iov;
	__s32 low_watermark;
	__u32 reserved;
	__u64 cookie;
	__u32 srq_id;
	__u32 reserved2;
};

/* The most segments one KDAPL_IOC_SRQ_POST takes. */
#define KDAPL_SRQ_POST_IOV_MAX	256

/**
 * struct kdapl_ioc_srq_post - post a receive to an SRQ
 * @head: see struct kdapl_ioc_head
 * @srq_id: the SRQ
 * @num_segments: 0 to the SRQ's max_recv_iov
 * @segments: the address of @num_segments struct kdapl_post_sge (the
 *	layout of DAT_LMR_TRIPLET) in the process
 * @cookie: the receive's user cookie
 *
 * The kernel copies the segments before it posts: the process may reuse
 * them when the call returns.
 */
struct kdapl_ioc_srq_post {
	struct kdapl_ioc_head head;
	__u32 srq_id;
	__s32 num_segments;
	__u64 segments;
	__u64 cookie;
};

/**
 * struct kdapl_ioc_srq_query - the parameters of an SRQ
 * @head: see struct kdapl_ioc_head
 * @srq_id: the SRQ
 * @state: out: DAT_SRQ_STATE
 * @max_recv_dtos: out: as DAT_SRQ_PARAM
 * @max_recv_iov: out: as DAT_SRQ_PARAM
 * @low_watermark: out: as DAT_SRQ_PARAM
 * @available_dto_count: out: as DAT_SRQ_PARAM
 * @outstanding_dto_count: out: as DAT_SRQ_PARAM
 * @reserved: zero
 */
struct kdapl_ioc_srq_query {
	struct kdapl_ioc_head head;
	__u32 srq_id;
	__u32 state;
	__s32 max_recv_dtos;
	__s32 max_recv_iov;
	__s32 low_watermark;
	__s32 available_dto_count;
	__s32 outstanding_dto_count;
	__u32 reserved;
};

/**
 * struct kdapl_ioc_srq_set - change a count of an SRQ: its size
 *	(KDAPL_IOC_SRQ_RESIZE) or its low watermark (KDAPL_IOC_SRQ_SET_LW)
 * @head: see struct kdapl_ioc_head
 * @srq_id: the SRQ
 * @value: the new max_recv_dtos or low_watermark
 */
struct kdapl_ioc_srq_set {
	struct kdapl_ioc_head head;
	__u32 srq_id;
	__s32 value;
};

/**
 * struct kdapl_ioc_ep_modify - change the parameters of an Endpoint
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP
 * @pz_id: its new PZ (DAT_EP_FIELD_PZ_HANDLE)
 * @recv_evd_id: its new receive EVD, or 0 for none
 *	(DAT_EP_FIELD_RECV_EVD_HANDLE)
 * @request_evd_id: likewise for the request EVD
 * @connect_evd_id: likewise for the connection EVD
 * @reserved: zero
 * @mask: DAT_EP_PARAM_MASK: the fields to change, as dat_ep_modify()'s
 * @attr: the new attributes, for the DAT_EP_FIELD_EP_ATTR_* of @mask
 */
struct kdapl_ioc_ep_modify {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 pz_id;
	__u32 recv_evd_id;
	__u32 request_evd_id;
	__u32 connect_evd_id;
	__u32 reserved;
	__u64 mask;
	struct kdapl_ioc_ep_attr attr;
};

/**
 * struct kdapl_ioc_ep_ring - where an EP's post ring is
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP
 * @entries: out: records the ring holds, a power of two
 * @stride: out: bytes from one record to the next
 * @max_iov: out: local segments a record may carry
 * @ring_size: out: bytes to mmap
 * @ring_offset: out: the mmap offset of the ring
 */
struct kdapl_ioc_ep_ring {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 entries;
	__u32 stride;
	__u32 max_iov;
	__u64 ring_size;
	__u64 ring_offset;
};

/* struct kdapl_ioc_ep_post.flags: report the last record's DAT_RETURN. */
#define KDAPL_POST_SYNC		0x1

/**
 * struct kdapl_ioc_ep_post - the doorbell of an EP's post ring
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP
 * @flags: KDAPL_POST_*
 * @tail: out: the kernel's consumer index at return (the head the
 *	process had published when the call read it)
 * @reserved: zero
 *
 * Posts every record between the kernel's consumer index and the head.
 * With KDAPL_POST_SYNC the DAT_RETURN of the last of them is @head.status
 * and that record never completes with an event if it failed; every other
 * record that cannot be posted completes with an error event on the EP's
 * receive or request EVD (see Documentation/userapi.rst).
 */
struct kdapl_ioc_ep_post {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 flags;
	__u32 tail;
	__u32 reserved;
};

/**
 * struct kdapl_ioc_ep_connect - connect an EP to a remote service point
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP
 * @timeout_us: DAT_TIMEOUT
 * @conn_qual: the remote connection qualifier
 * @addr: the remote address, a struct sockaddr_in or sockaddr_in6
 * @private_data: user pointer to the private data, or 0
 * @private_data_size: its size
 * @connect_flags: DAT_CONNECT_FLAGS
 *
 * KDAPL_IOC_EP_COMMON_CONNECT (dat_ep_common_connect()) takes the same
 * structure with @conn_qual and @connect_flags zero: the port of @addr is
 * the qualifier.
 */
struct kdapl_ioc_ep_connect {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 timeout_us;
	__u64 conn_qual;
	__u8 addr[128];
	__u64 private_data;
	__u32 private_data_size;
	__u32 connect_flags;
};

/**
 * struct kdapl_ioc_ep_dup_connect - connect an EP where another one is
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP, unconnected
 * @dup_ep_id: a connected EP of the file: the new connection goes to
 *	its peer's address and connection qualifier
 * @timeout_us: DAT_TIMEOUT
 * @private_data_size: its size
 * @private_data: user pointer to the private data, or 0
 *
 * dat_ep_dup_connect(); the events are those of KDAPL_IOC_EP_CONNECT.
 */
struct kdapl_ioc_ep_dup_connect {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 dup_ep_id;
	__u32 timeout_us;
	__u32 private_data_size;
	__u64 private_data;
};

/**
 * struct kdapl_ioc_ep_get_status - the state of an EP
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP
 * @state: out: DAT_EP_STATE
 * @recv_idle: out: DAT_BOOLEAN
 * @request_idle: out: DAT_BOOLEAN
 */
struct kdapl_ioc_ep_get_status {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 state;
	__u32 recv_idle;
	__u32 request_idle;
};

/**
 * struct kdapl_ioc_ep_query - the parameters of an EP
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP
 * @state: out: DAT_EP_STATE
 * @attr: out: its attributes
 * @local_addr: out: the local address, a struct sockaddr_in or
 *	sockaddr_in6
 * @remote_addr: out: the peer's address, zero before a connection
 * @local_port_qual: out: the local port
 * @remote_port_qual: out: the peer's port
 */
struct kdapl_ioc_ep_query {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 state;
	struct kdapl_ioc_ep_attr attr;
	__u8 local_addr[128];
	__u8 remote_addr[128];
	__u64 local_port_qual;
	__u64 remote_port_qual;
};

/**
 * struct kdapl_ioc_psp_create - create a Public Service Point
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @evd_id: the EVD of its connection requests
 * @conn_qual: the connection qualifier it listens on; for
 *	KDAPL_IOC_PSP_CREATE_ANY an output: the free qualifier the module
 *	picked (dat_psp_create_any())
 * @flags: DAT_PSP_FLAGS
 * @reserved: zero
 * @cookie: put in its connection request events
 * @psp_id: out: the PSP
 * @reserved2: zero
 */
struct kdapl_ioc_psp_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 evd_id;
	__u64 conn_qual;
	__u32 flags;
	__u32 reserved;
	__u64 cookie;
	__u32 psp_id;
	__u32 reserved2;
};

/**
 * struct kdapl_ioc_rsp_create - create a Reserved Service Point
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @ep_id: the EP it reserves, which the request it takes connects
 * @evd_id: the EVD of its connection request
 * @reserved: zero
 * @conn_qual: the connection qualifier it listens on
 * @cookie: put in its connection request event
 * @rsp_id: out: the RSP
 * @reserved2: zero
 *
 * KDAPL_IOC_CR_ACCEPT of the request it brings takes @ep_id or 0 for
 * that EP.
 */
struct kdapl_ioc_rsp_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 ep_id;
	__u32 evd_id;
	__u32 reserved;
	__u64 conn_qual;
	__u64 cookie;
	__u32 rsp_id;
	__u32 reserved2;
};

/**
 * struct kdapl_ioc_cr_reply - accept or reject a connection request
 * @head: see struct kdapl_ioc_head
 * @cr_id: the CR (struct kdapl_uevent.new_id of its request event)
 * @ep_id: the EP to accept on (accept only)
 * @private_data: user pointer to the private data, or 0
 * @private_data_size: its size
 * @reserved: zero
 *
 * Either way the CR is gone afterwards.
 */
struct kdapl_ioc_cr_reply {
	struct kdapl_ioc_head head;
	__u32 cr_id;
	__u32 ep_id;
	__u64 private_data;
	__u32 private_data_size;
	__u32 reserved;
};

/**
 * struct kdapl_ioc_cr_handoff - pass a connection request to another PSP
 * @head: see struct kdapl_ioc_head
 * @cr_id: the CR
 * @reserved: zero
 * @conn_qual: the qualifier of a PSP of the CR's IA
 *
 * The CR is gone afterwards; the request comes again, as a new CR, to
 * that PSP's EVD (dat_cr_handoff()).
 */
struct kdapl_ioc_cr_handoff {
	struct kdapl_ioc_head head;
	__u32 cr_id;
	__u32 reserved;
	__u64 conn_qual;
};

/**
 * struct kdapl_ioc_rmr_create - create a Remote Memory Region
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @pz_id: its PZ
 * @cookie: put in the bind completion events of the RMR
 * @rmr_id: out: the RMR, unbound
 * @reserved: zero
 */
struct kdapl_ioc_rmr_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 pz_id;
	__u64 cookie;
	__u32 rmr_id;
	__u32 reserved;
};

/**
 * struct kdapl_ioc_rmr_query - the binding of an RMR
 * @head: see struct kdapl_ioc_head
 * @rmr_id: the RMR
 * @mem_priv: out: DAT_MEM_PRIV_FLAGS of the window, 0 when unbound
 * @virtual_address: out: the first byte of the bound range
 * @segment_length: out: its length, 0 when unbound
 * @lmr_context: out: the lmr_context of the LMR the range lies in
 * @rmr_context: out: the key peers use, 0 when unbound
 * @rmr_scope: out: DAT_RMR_SCOPE
 * @va_type: out: DAT_VA_TYPE
 * @reserved: zero
 *
 * The IA and PZ of the RMR are the library's to report: it created it.
 */
struct kdapl_ioc_rmr_query {
	struct kdapl_ioc_head head;
	__u32 rmr_id;
	__u32 mem_priv;
	__u64 virtual_address;
	__u32 segment_length;
	__u32 lmr_context;
	__u32 rmr_context;
	__u32 rmr_scope;
	__u32 va_type;
	__u32 reserved;
};

/**
 * struct kdapl_ioc_rmr_bind - bind an RMR to a range of an LMR, or unbind
 * @head: see struct kdapl_ioc_head
 * @rmr_id: the RMR
 * @lmr_id: the LMR the range lies in; ignored when unbinding
 * @ep_id: the connected EP the bind is posted on
 * @mem_priv: DAT_MEM_PRIV_FLAGS of the window
 * @virtual_address: the first byte of the range
 * @segment_length: its length; 0 unbinds
 * @lmr_context: the LMR's lmr_context
 * @va_type: DAT_VA_TYPE
 * @completion_flags: DAT_COMPLETION_FLAGS
 * @cookie: the DAT_RMR_COOKIE of the completion event
 * @rmr_context: out: the new key, 0 after an unbind
 * @reserved: zero
 *
 * The bind is posted on the EP's send queue after every request the
 * process published in the EP's post ring, and completes with a
 * DAT_RMR_BIND_COMPLETION_EVENT on the EP's request EVD (dat_rmr_bind()).
 */
struct kdapl_ioc_rmr_bind {
	struct kdapl_ioc_head head;
	__u32 rmr_id;
	__u32 lmr_id;
	__u32 ep_id;
	__u32 mem_priv;
	__u64 virtual_address;
	__u32 segment_length;
	__u32 lmr_context;
	__u32 va_type;
	__u32 completion_flags;
	__u64 cookie;
	__u32 rmr_context;
	__u32 reserved;
};

/**
 * struct kdapl_ioc_csp_create - listen on an address and port (a CSP)
 * @head: see struct kdapl_ioc_head
 * @ia_id: the IA
 * @evd_id: its EVD of connection requests
 * @domain: the communicator (DAT_COMM): its domain,
 * @type: its socket type
 * @protocol: and its protocol
 * @reserved: zero
 * @addr: the address, a struct sockaddr_in or sockaddr_in6 with the port
 * @cookie: put in the events of the CSP's connection requests
 * @csp_id: out: the CSP
 * @reserved2: zero
 */
struct kdapl_ioc_csp_create {
	struct kdapl_ioc_head head;
	__u32 ia_id;
	__u32 evd_id;
	__s32 domain;
	__s32 type;
	__s32 protocol;
	__u32 reserved;
	__u8 addr[128];
	__u64 cookie;
	__u32 csp_id;
	__u32 reserved2;
};

/*
 * The event ring of an EVD, mapped read-write by the process at the
 * offset and size the create call gave:
 *
 *   struct kdapl_ring_head, at offset 0
 *   struct kdapl_uevent[entries], at offset KDAPL_RING_EVENTS
 *
 * The kernel produces: it writes events, then stores @tail with release
 * semantics.  The process consumes: it loads @tail with acquire
 * semantics, reads events up to it, then stores @head with release
 * semantics.  Indices run freely and wrap at 2^32; an event's slot is
 * index & (entries - 1).  The kernel keeps its own copy of @tail and
 * reads @head with READ_ONCE(), so a process that writes nonsense only
 * confuses itself.
 */
#define KDAPL_RING_EVENTS	128

/**
 * struct kdapl_ring_head - the indices of an event ring
 * @head: consumer index, written by the process
 * @pad0: keeps @head and @tail on separate cache lines
 * @tail: producer index, written by the kernel
 * @entries: slots in the ring, a power of two
 * @overflows: events the EVD lost because its queue was full (each
 *	is also reported as DAT_ASYNC_ERROR_EVD_OVERFLOW)
 * @ext_offset: where the struct kdapl_uevent_ext of each slot begins
 *	(slot i's at @ext_offset + i * sizeof(struct kdapl_uevent_ext)),
 *	or 0: only EVDs of connection or connection request streams have
 *	them
 * @pad1: reserved, zero
 */
struct kdapl_ring_head {
	__u32 head;
	__u32 pad0[15];
	__u32 tail;
	__u32 entries;
	__u32 overflows;
	__u32 ext_offset;
	__u32 pad1[12];
};

#define KDAPL_UEVENT_PDATA	256

/**
 * struct kdapl_uevent_ext - what a connection event brings beyond its
 *	struct kdapl_uevent, in the ring slot of the same index
 * @private_data: the peer's private data, struct kdapl_uevent.length
 *	bytes of it (connection events and connection requests)
 * @addr: the peer's address, a struct sockaddr_in or sockaddr_in6
 *	(connection requests and DAT_IB_UD_CONNECTION_* events)
 */
struct kdapl_uevent_ext {
	__u8 private_data[KDAPL_UEVENT_PDATA];
	__u8 addr[128];
};

/**
 * struct kdapl_uevent - one event in an event ring
 * @number: DAT_EVENT_NUMBER
 * @status: DAT_DTO_COMPLETION_STATUS for DTO events, the DAT_RETURN of
 *	a software event, zero otherwise
 * @evd_cookie: the cookie of the EVD
 * @cookie: the DTO's user cookie; for connection, connection request
 *	and asynchronous events the cookie of the EP or service point
 * @length: bytes transferred (DTO events), private data bytes
 *	(connection events and requests)
 * @new_id: the CR of a connection request event; the new object's id
 *	where an event creates one
 * @reserved: zero
 * @data: per event: DTO events: [0] the EP's cookie, [1] the DAT_DTOS
 *	operation, [2] the rmr_context a receive with invalidate
 *	invalidated; DAT_IB_DTO_EVENT: as DTO events, [1] the DAT_IB_DTOS
 *	operation, [2] the immediate data a receive brought in its low
 *	32 bits and, for a receive of a datagram EP, the sender's queue
 *	pair in its high 32 bits; connection requests (also
 *	DAT_IB_UD_CONNECTION_REQUEST_EVENT): [0] the connection qualifier,
 *	[1] the peer's port; DAT_IB_UD_CONNECTION_* events: [0] the
 *	DAT_IB_EXT_TYPE, [1] the peer's queue pair, [2] the resolution (for
 *	KDAPL_IOC_UD_CM_FREE); software events: [0] the pointer; RMR bind
 *	completions: [0] the RMR's cookie
 *
 * An RMR bind completion carries the bind's DAT_RMR_COOKIE in @cookie and
 * its DAT_RMR_BIND_COMPLETION_STATUS in @status.  A
 * DAT_IB_UD_CONNECTION_* event carries the DAT_IB_STATUS in @status, the
 * address handle's id (0 for none) in @new_id, and the peer's address in
 * the @addr of its struct kdapl_uevent_ext.
 */
struct kdapl_uevent {
	__u32 number;
	__u32 status;
	__u64 evd_cookie;
	__u64 cookie;
	__u64 length;
	__u32 new_id;
	__u32 reserved;
	__u64 data[3];
};

/*
 * The post ring of an EP, mapped read-write by the process at the offset
 * and size KDAPL_IOC_EP_RING gives:
 *
 *   struct kdapl_post_head, at offset 0
 *   records of @stride bytes, struct kdapl_post_record each, at offset
 *   KDAPL_POST_RECORDS
 *
 * The process produces: it writes a record into slot head & (entries - 1)
 * and stores @head with release semantics.  The kernel consumes when the
 * process rings the doorbell (KDAPL_IOC_EP_POST) and, while
 * KDAPL_POST_KERNEL_POLLS is set in @flags, whenever a request of the EP
 * completes: it reads each record once into kernel memory, checks it,
 * posts it, and stores @tail with release semantics.  A process that sees
 * KDAPL_POST_KERNEL_POLLS after publishing its head (with a full barrier
 * between the two) need not ring: the kernel clears the flag only after
 * it has looked at the head once more, behind a full barrier of its own.
 */
#define KDAPL_POST_RECORDS	128
#define KDAPL_POST_IOV_MAX	16

/* struct kdapl_post_head.flags: a completion will make the kernel look. */
#define KDAPL_POST_KERNEL_POLLS	0x1

/**
 * struct kdapl_post_head - the indices of a post ring
 * @head: producer index, written by the process
 * @pad0: keeps @head and @tail on separate cache lines
 * @tail: consumer index, written by the kernel
 * @flags: KDAPL_POST_*, written by the kernel
 * @entries: slots in the ring, a power of two
 * @stride: bytes per slot
 * @pad1: reserved, zero
 */
struct kdapl_post_head {
	__u32 head;
	__u32 pad0[15];
	__u32 tail;
	__u32 flags;
	__u32 entries;
	__u32 stride;
	__u32 pad1[12];
};

/**
 * struct kdapl_post_sge - a segment, laid out as DAT_LMR_TRIPLET and
 *	DAT_RMR_TRIPLET of <dat2/dat.h>
 * @virtual_address: the first byte
 * @segment_length: bytes
 * @context: the lmr_context (local) or rmr_context (remote)
 */
struct kdapl_post_sge {
	__u64 virtual_address;
	__u32 segment_length;
	__u32 context;
};

/*
 * Operations of a post record beyond DAT_DTOS.  KDAPL_POST_SEND_INVALIDATE
 * is a Send that invalidates the peer's RMR whose rmr_context is
 * @remote.context (dat_ep_post_send_with_invalidate()).
 * KDAPL_POST_RDMA_READ_TO_RMR is an RDMA Read into a bound RMR of the EP's
 * PZ: the record's one segment is the sink, with the rmr_context in its
 * context (dat_ep_post_rdma_read_to_rmr()).  Both complete as DAT_DTO_SEND
 * and DAT_DTO_RDMA_READ do.  A module whose max_command is not beyond
 * KDAPL_NR_RMR_BIND refuses them.
 *
 * The IB extensions (<dat2/dat_ib_extensions.h>), which a module offers
 * where struct kdapl_ioc_ia_query.ib_extensions says so:
 * KDAPL_POST_RDMA_WRITE_IMMED is an RDMA Write that carries
 * @imm_data to the peer, where it consumes a receive.
 * KDAPL_POST_CMP_AND_SWAP and KDAPL_POST_FETCH_AND_ADD are 64-bit
 * atomics on the 8 bytes at @remote (8-byte aligned); the record's one
 * segment receives the original value, and the operands are a struct
 * kdapl_post_atomic in the place of a second segment (every ring's
 * stride holds two).  Their completions are DAT_IB_DTO_EVENTs.
 * KDAPL_POST_SEND_UD is a Send of a datagram EP
 * (DAT_IB_SERVICE_TYPE_UD, dat_ib_post_send_ud()) to the queue pair
 * @imm_data through the address handle whose id is @remote.context (the
 * struct kdapl_uevent.new_id of the event that brought it); the rest of
 * @remote is zero.
 */
#define KDAPL_POST_SEND_INVALIDATE	0x100
#define KDAPL_POST_RDMA_READ_TO_RMR	0x101
#define KDAPL_POST_RDMA_WRITE_IMMED	0x102
#define KDAPL_POST_CMP_AND_SWAP		0x103
#define KDAPL_POST_FETCH_AND_ADD	0x104
#define KDAPL_POST_SEND_UD		0x105

/**
 * struct kdapl_post_atomic - the operands of an atomic post record
 * @compare_add: the value compared (compare and swap) or added (fetch
 *	and add)
 * @swap: the value stored if the comparison holds; zero for fetch and
 *	add
 */
struct kdapl_post_atomic {
	__u64 compare_add;
	__u64 swap;
};

/**
 * struct kdapl_post_record - one work request in a post ring
 * @op: DAT_DTOS: DAT_DTO_SEND, _RDMA_WRITE, _RDMA_READ or _RECEIVE, or
 *	one of the KDAPL_POST_* operations above
 * @num_segments: local segments in @sge, at most the ring's max_iov
 * @flags: DAT_COMPLETION_FLAGS
 * @imm_data: the immediate data of KDAPL_POST_RDMA_WRITE_IMMED, the
 *	peer's queue pair of KDAPL_POST_SEND_UD; zero for the other
 *	operations
 * @cookie: the DTO's user cookie
 * @remote: the remote segment of an RDMA operation
 * @sge: the local segments
 */
struct kdapl_post_record {
	__u32 op;
	__u32 num_segments;
	__u32 flags;
	__u32 imm_data;
	__u64 cookie;
	struct kdapl_post_sge remote;
	struct kdapl_post_sge sge[];
};

/**
 * struct kdapl_ioc_counters - read the DAT_COUNTERS of an IA, EP or EVD
 * @head: see struct kdapl_ioc_head
 * @id: the object
 * @type: its DAT_HANDLE_TYPE: DAT_HANDLE_TYPE_IA, _EP or _EVD
 * @counter: the DCNT_* value of one counter of that type, or its
 *	DCNT_*_ALL_COUNTERS value for all of them
 * @reset: 1 to zero the counters read, else 0
 * @capacity: u64 values @values has room for
 * @count: out: values written to @values: 1, or DCNT_*_ALL_COUNTERS
 * @values: user pointer to the values, in DCNT_* order
 *
 * The kernel keeps the counters it can see (see Documentation/dto.rst);
 * the library adds its own, such as the dequeues that make no system
 * call.  Fails with DAT_INVALID_HANDLE for an id that is not an IA, EP
 * or EVD of the file of @type, DAT_INVALID_PARAMETER for a @counter
 * past the type's DCNT_*_ALL_COUNTERS, DAT_LENGTH_ERROR when @capacity
 * is too small, and DAT_NOT_IMPLEMENTED on an IA without the attribute
 * DAT_COUNTERS; the ioctl fails with EINVAL for a @reset other than 0
 * or 1 and EFAULT when @values cannot be written (the values a reset
 * took are then lost).
 */
struct kdapl_ioc_counters {
	struct kdapl_ioc_head head;
	__u32 id;
	__u32 type;
	__u32 counter;
	__u32 reset;
	__u32 capacity;
	__u32 count;
	__u64 values;
};

/**
 * struct kdapl_ioc_ud_free - free what a datagram EP resolved
 * @head: see struct kdapl_ioc_head
 * @ep_id: the EP, of service type DAT_IB_SERVICE_TYPE_UD
 * @id: KDAPL_IOC_UD_AH_FREE: the address handle, the
 *	struct kdapl_uevent.new_id of the event that brought it
 *	(dat_ib_ud_ah_free()); KDAPL_IOC_UD_CM_FREE: the resolution, its
 *	data[2] (dat_ib_ud_cm_free())
 *
 * Fails with DAT_INVALID_HANDLE for an @ep_id that is not an EP of the
 * file, DAT_NOT_IMPLEMENTED on an IA without KDAPL_IA_EXT_UD,
 * DAT_INVALID_PARAMETER | DAT_INVALID_ARG1 for an EP that is not a
 * datagram EP and DAT_INVALID_PARAMETER | DAT_INVALID_ARG2 for an @id
 * the EP does not have (freed already, or another EP's).
 */
struct kdapl_ioc_ud_free {
	struct kdapl_ioc_head head;
	__u32 ep_id;
	__u32 id;
};

enum kdapl_ioctl_nr {
	KDAPL_NR_HELLO = 0x00,
	KDAPL_NR_IA_OPEN = 0x01,
	KDAPL_NR_IA_CLOSE = 0x02,
	KDAPL_NR_IA_QUERY = 0x03,
	KDAPL_NR_PZ_CREATE = 0x04,
	KDAPL_NR_PZ_FREE = 0x05,
	KDAPL_NR_EVD_CREATE = 0x06,
	KDAPL_NR_EVD_FREE = 0x07,
	KDAPL_NR_EVD_WAIT = 0x08,
	KDAPL_NR_EVD_POST_SE = 0x09,
	KDAPL_NR_LMR_CREATE = 0x0a,
	KDAPL_NR_LMR_FREE = 0x0b,
	KDAPL_NR_EP_CREATE = 0x0c,
	KDAPL_NR_EP_FREE = 0x0d,
	KDAPL_NR_EP_CONNECT = 0x0e,
	KDAPL_NR_EP_DISCONNECT = 0x0f,
	KDAPL_NR_EP_GET_STATUS = 0x10,
	KDAPL_NR_PSP_CREATE = 0x11,
	KDAPL_NR_PSP_FREE = 0x12,
	KDAPL_NR_CR_ACCEPT = 0x13,
	KDAPL_NR_CR_REJECT = 0x14,
	KDAPL_NR_EP_RING = 0x15,
	KDAPL_NR_EP_POST = 0x16,
	KDAPL_NR_EP_QUERY = 0x17,
	KDAPL_NR_EP_RESET = 0x18,
	KDAPL_NR_EVD_FD = 0x19,
	KDAPL_NR_CNO_CREATE = 0x1a,
	KDAPL_NR_CNO_FREE = 0x1b,
	KDAPL_NR_CNO_WAIT = 0x1c,
	KDAPL_NR_RSP_CREATE = 0x1d,
	KDAPL_NR_RSP_FREE = 0x1e,
	KDAPL_NR_EP_MODIFY = 0x1f,
	KDAPL_NR_EVD_MODIFY = 0x20,
	KDAPL_NR_PSP_CREATE_ANY = 0x21,
	KDAPL_NR_LMR_SYNC = 0x22,
	KDAPL_NR_CR_HANDOFF = 0x23,
	KDAPL_NR_EP_DUP_CONNECT = 0x24,
	KDAPL_NR_EVD_MODIFY_CNO = 0x25,
	KDAPL_NR_EP_COMMON_CONNECT = 0x26,
	KDAPL_NR_SRQ_CREATE = 0x27,
	KDAPL_NR_SRQ_FREE = 0x28,
	KDAPL_NR_SRQ_POST = 0x29,
	KDAPL_NR_SRQ_QUERY = 0x2a,
	KDAPL_NR_SRQ_RESIZE = 0x2b,
	KDAPL_NR_SRQ_SET_LW = 0x2c,
	KDAPL_NR_RMR_CREATE = 0x2d,
	KDAPL_NR_RMR_FREE = 0x2e,
	KDAPL_NR_RMR_QUERY = 0x2f,
	KDAPL_NR_RMR_BIND = 0x30,
	KDAPL_NR_CSP_CREATE = 0x31,
	KDAPL_NR_CSP_FREE = 0x32,
	KDAPL_NR_EVD_RESIZE = 0x33,
	KDAPL_NR_COUNTERS = 0x34,
	KDAPL_NR_UD_AH_FREE = 0x35,
	KDAPL_NR_UD_CM_FREE = 0x36,
	KDAPL_NR_MAX
};

/*
 * Every command is _IOWR with struct kdapl_ioc_head as its nominal type:
 * the real size is in the head, so a structure may grow without changing
 * the command number.
 */
#define KDAPL_IOC(nr)		_IOWR(KDAPL_IOCTL_TYPE, nr, struct kdapl_ioc_head)

#define KDAPL_IOC_HELLO		KDAPL_IOC(KDAPL_NR_HELLO)
#define KDAPL_IOC_IA_OPEN	KDAPL_IOC(KDAPL_NR_IA_OPEN)
#define KDAPL_IOC_IA_CLOSE	KDAPL_IOC(KDAPL_NR_IA_CLOSE)
#define KDAPL_IOC_IA_QUERY	KDAPL_IOC(KDAPL_NR_IA_QUERY)
#define KDAPL_IOC_PZ_CREATE	KDAPL_IOC(KDAPL_NR_PZ_CREATE)
#define KDAPL_IOC_PZ_FREE	KDAPL_IOC(KDAPL_NR_PZ_FREE)
#define KDAPL_IOC_EVD_CREATE	KDAPL_IOC(KDAPL_NR_EVD_CREATE)
#define KDAPL_IOC_EVD_FREE	KDAPL_IOC(KDAPL_NR_EVD_FREE)
#define KDAPL_IOC_EVD_WAIT	KDAPL_IOC(KDAPL_NR_EVD_WAIT)
#define KDAPL_IOC_EVD_POST_SE	KDAPL_IOC(KDAPL_NR_EVD_POST_SE)
#define KDAPL_IOC_LMR_CREATE	KDAPL_IOC(KDAPL_NR_LMR_CREATE)
#define KDAPL_IOC_LMR_FREE	KDAPL_IOC(KDAPL_NR_LMR_FREE)
#define KDAPL_IOC_EP_CREATE	KDAPL_IOC(KDAPL_NR_EP_CREATE)
#define KDAPL_IOC_EP_FREE	KDAPL_IOC(KDAPL_NR_EP_FREE)
#define KDAPL_IOC_EP_CONNECT	KDAPL_IOC(KDAPL_NR_EP_CONNECT)
#define KDAPL_IOC_EP_DISCONNECT	KDAPL_IOC(KDAPL_NR_EP_DISCONNECT)
#define KDAPL_IOC_EP_GET_STATUS	KDAPL_IOC(KDAPL_NR_EP_GET_STATUS)
#define KDAPL_IOC_PSP_CREATE	KDAPL_IOC(KDAPL_NR_PSP_CREATE)
#define KDAPL_IOC_PSP_FREE	KDAPL_IOC(KDAPL_NR_PSP_FREE)
#define KDAPL_IOC_CR_ACCEPT	KDAPL_IOC(KDAPL_NR_CR_ACCEPT)
#define KDAPL_IOC_CR_REJECT	KDAPL_IOC(KDAPL_NR_CR_REJECT)
#define KDAPL_IOC_EP_RING	KDAPL_IOC(KDAPL_NR_EP_RING)
#define KDAPL_IOC_EP_POST	KDAPL_IOC(KDAPL_NR_EP_POST)
#define KDAPL_IOC_EP_QUERY	KDAPL_IOC(KDAPL_NR_EP_QUERY)
#define KDAPL_IOC_EP_RESET	KDAPL_IOC(KDAPL_NR_EP_RESET)
#define KDAPL_IOC_EVD_FD	KDAPL_IOC(KDAPL_NR_EVD_FD)
#define KDAPL_IOC_CNO_CREATE	KDAPL_IOC(KDAPL_NR_CNO_CREATE)
#define KDAPL_IOC_CNO_FREE	KDAPL_IOC(KDAPL_NR_CNO_FREE)
#define KDAPL_IOC_CNO_WAIT	KDAPL_IOC(KDAPL_NR_CNO_WAIT)
#define KDAPL_IOC_RSP_CREATE	KDAPL_IOC(KDAPL_NR_RSP_CREATE)
#define KDAPL_IOC_RSP_FREE	KDAPL_IOC(KDAPL_NR_RSP_FREE)
#define KDAPL_IOC_EP_MODIFY	KDAPL_IOC(KDAPL_NR_EP_MODIFY)
#define KDAPL_IOC_EVD_MODIFY	KDAPL_IOC(KDAPL_NR_EVD_MODIFY)
#define KDAPL_IOC_PSP_CREATE_ANY	KDAPL_IOC(KDAPL_NR_PSP_CREATE_ANY)
#define KDAPL_IOC_LMR_SYNC	KDAPL_IOC(KDAPL_NR_LMR_SYNC)
#define KDAPL_IOC_CR_HANDOFF	KDAPL_IOC(KDAPL_NR_CR_HANDOFF)
#define KDAPL_IOC_EP_DUP_CONNECT	KDAPL_IOC(KDAPL_NR_EP_DUP_CONNECT)
#define KDAPL_IOC_EVD_MODIFY_CNO	KDAPL_IOC(KDAPL_NR_EVD_MODIFY_CNO)
#define KDAPL_IOC_EP_COMMON_CONNECT	KDAPL_IOC(KDAPL_NR_EP_COMMON_CONNECT)
#define KDAPL_IOC_SRQ_CREATE	KDAPL_IOC(KDAPL_NR_SRQ_CREATE)
#define KDAPL_IOC_SRQ_FREE	KDAPL_IOC(KDAPL_NR_SRQ_FREE)
#define KDAPL_IOC_SRQ_POST	KDAPL_IOC(KDAPL_NR_SRQ_POST)
#define KDAPL_IOC_SRQ_QUERY	KDAPL_IOC(KDAPL_NR_SRQ_QUERY)
#define KDAPL_IOC_SRQ_RESIZE	KDAPL_IOC(KDAPL_NR_SRQ_RESIZE)
#define KDAPL_IOC_SRQ_SET_LW	KDAPL_IOC(KDAPL_NR_SRQ_SET_LW)
#define KDAPL_IOC_RMR_CREATE	KDAPL_IOC(KDAPL_NR_RMR_CREATE)
#define KDAPL_IOC_RMR_FREE	KDAPL_IOC(KDAPL_NR_RMR_FREE)
#define KDAPL_IOC_RMR_QUERY	KDAPL_IOC(KDAPL_NR_RMR_QUERY)
#define KDAPL_IOC_RMR_BIND	KDAPL_IOC(KDAPL_NR_RMR_BIND)
#define KDAPL_IOC_CSP_CREATE	KDAPL_IOC(KDAPL_NR_CSP_CREATE)
#define KDAPL_IOC_CSP_FREE	KDAPL_IOC(KDAPL_NR_CSP_FREE)
#define KDAPL_IOC_EVD_RESIZE	KDAPL_IOC(KDAPL_NR_EVD_RESIZE)
#define KDAPL_IOC_COUNTERS	KDAPL_IOC(KDAPL_NR_COUNTERS)
#define KDAPL_IOC_UD_AH_FREE	KDAPL_IOC(KDAPL_NR_UD_AH_FREE)
#define KDAPL_IOC_UD_CM_FREE	KDAPL_IOC(KDAPL_NR_UD_CM_FREE)

#endif /* _UAPI_RDMA_KDAPL_IOCTL_H */
