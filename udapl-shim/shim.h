/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim.h - udapl-shim internals: handles, the device, the objects
 *
 * Copyright (c) 2026 The kdapl authors
 */
#ifndef _SHIM_H
#define _SHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>
#include <dat2/dat_registry.h>
#include <rdma/kdapl_ioctl.h>

/* The number of elements of an array. */
#define SHIM_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* An error return of a type and subtype, as dat_error.h composes it. */
#define SHIM_ERR(type, sub) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (sub)))

/*
 * The provider-specific attributes at most: the MTU, the extension
 * interface, the three IB extension operations, the counters and
 * datagram EPs (see shim_ia.c).
 */
#define SHIM_PROV_ATTR_MAX	7

/* "kdap": marks a live shim handle; cleared when the handle is freed. */
#define SHIM_MAGIC	0x6b646170u

/**
 * struct shim_obj - the head of every handle the shim gives out
 * @provider: the DAT_PROVIDER of the IA: libdat2 reads it from the
 *	first word of every handle (DAT_HANDLE_TO_PROVIDER)
 * @magic: SHIM_MAGIC while the handle is live
 * @type: DAT_HANDLE_TYPE_*
 * @ia: the IA the object belongs to (itself for an IA)
 * @id: the object's id in the IA's /dev/kdapl file
 * @context: the consumer context (dat_set_consumer_context())
 * @next: the next object of the same IA, newest first (not for an IA)
 * @prev: the previous one
 */
struct shim_obj {
	const DAT_PROVIDER *provider;
	__u32 magic;
	DAT_HANDLE_TYPE type;
	struct shim_ia *ia;
	__u32 id;
	DAT_CONTEXT context;
	struct shim_obj *next, *prev;
};

/**
 * struct shim_evd - an EVD and its mapped event ring
 * @obj: handle head
 * @hdr: the ring's indices
 * @ev: the ring's slots
 * @ext: the slots' extensions (connection streams), or NULL
 * @map_size: bytes mapped
 * @map_offset: the ring's mmap offset
 * @unmapped: the kernel moved the ring (dat_evd_resize()) and the shim
 *	could not map the new one: dequeue and wait fail until a resize
 *	maps it
 * @qlen: the queue length asked for
 * @flags: DAT_EVD_FLAGS
 * @cno: the CNO it triggers, or DAT_HANDLE_NULL
 * @state: KDAPL_EVD_* as the kernel last returned it
 * @counters: the DAT_COUNTERS the shim keeps (waits and dequeues), by
 *	DAT_EVD_COUNTERS; the kernel keeps the others
 */
struct shim_evd {
	struct shim_obj obj;
	struct kdapl_ring_head *hdr;
	struct kdapl_uevent *ev;
	struct kdapl_uevent_ext *ext;
	size_t map_size;
	__u64 map_offset;
	bool unmapped;
	DAT_COUNT qlen;
	DAT_EVD_FLAGS flags;
	DAT_CNO_HANDLE cno;
	__u32 state;
	DAT_UINT64 counters[DCNT_EVD_ALL_COUNTERS];
};

/* Count one @id of @evd for DAT_COUNTERS; threads may share the EVD. */
static inline void shim_evd_tally(struct shim_evd *evd, DAT_EVD_COUNTERS id)
{
	__atomic_fetch_add(&evd->counters[id], 1, __ATOMIC_RELAXED);
}

/**
 * struct shim_cno - a Consumer Notification Object
 * @obj: handle head
 * @agent: the wait proxy agent given, returned by dat_cno_query()
 * @fd: its pollable descriptor (dat_cno_fd_create()), or -1
 */
struct shim_cno {
	struct shim_obj obj;
	DAT_OS_WAIT_PROXY_AGENT agent;
	int fd;
};

/**
 * struct shim_ia - an open IA: one file of /dev/kdapl
 * @obj: handle head
 * @fd: the file
 * @async_evd: the async EVD the kernel created with the IA
 * @lock: guards @objs, which threads of the process change at once
 * @objs: its live objects, newest first (see shim_ia_forget())
 * @addr: the IA address, for DAT_IA_ATTR.ia_address_ptr
 * @doorbells: post doorbells rung (system calls of the posting path)
 * @max_message_size: the IA's largest message, which every EP gets
 * @max_rdma_size: the IA's largest RDMA operation, likewise
 * @max_private_data: the largest private data of its transport
 * @max_rdma_read_iov: the device's segments per RDMA Read (1 on siw)
 * @max_rdma_write_iov: the device's segments per RDMA Write
 * @srq_supported: the device has SRQs, and the module the SRQ commands
 * @max_command: how many /dev/kdapl commands the module knows (see
 *	struct kdapl_ioc_hello)
 * @ib_extensions: KDAPL_IA_EXT_*: the IB extension operations of the
 *	IA's transport (none from a module older than the field)
 * @mtu: the transport's MTU, as text
 * @prov_attr: the provider-specific attributes (the MTU, the IB
 *	extensions)
 * @num_prov_attr: entries of @prov_attr in use
 */
struct shim_ia {
	struct shim_obj obj;
	int fd;
	struct shim_evd *async_evd;
	pthread_mutex_t lock;
	struct shim_obj *objs;
	struct sockaddr_storage addr;
	unsigned long doorbells;
	__u64 max_message_size;
	__u64 max_rdma_size;
	DAT_COUNT max_private_data;
	DAT_COUNT max_rdma_read_iov;
	DAT_COUNT max_rdma_write_iov;
	int srq_supported;
	__u32 max_command;
	__u32 ib_extensions;
	char mtu[12];
	DAT_NAMED_ATTR prov_attr[SHIM_PROV_ATTR_MAX];
	DAT_COUNT num_prov_attr;
};

/**
 * struct shim_pz - a protection zone
 * @obj: handle head
 */
struct shim_pz {
	struct shim_obj obj;
};

/**
 * struct shim_lmr - a Local Memory Region of the process's memory
 * @obj: handle head
 * @pz: its PZ
 * @region: the region as given
 * @length: the length as given
 * @priv: DAT_MEM_PRIV_FLAGS
 * @lmr_context: its local key
 * @rmr_context: its remote key, zero without remote privileges
 * @registered_address: the first byte registered
 * @registered_size: bytes registered
 */
struct shim_lmr {
	struct shim_obj obj;
	struct shim_pz *pz;
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN length;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VADDR registered_address;
	DAT_VLEN registered_size;
};

/**
 * struct shim_ud_pdata - the private data of a datagram EP's resolution
 * @next: the EP's next one
 * @cm: the resolution's id (its DAT_CONTEXT)
 * @data: the bytes its event pointed the consumer to, valid until
 *	dat_ib_ud_cm_free() or the EP's reset or free
 */
struct shim_ud_pdata {
	struct shim_ud_pdata *next;
	__u64 cm;
	unsigned char data[KDAPL_UEVENT_PDATA];
};

/**
 * struct shim_ep - an Endpoint and its post ring
 * @obj: handle head
 * @lock: serialises the posts of the EP's threads
 * @hdr: the post ring's indices, once mapped (the first post maps it)
 * @rec: the ring's records
 * @map_size: bytes mapped
 * @entries: records in the ring
 * @stride: bytes per record
 * @max_iov: local segments per record
 * @head: the producer index (the shared copy is only written)
 * @pz: the PZ, and the EVDs given at creation, for dat_ep_query()
 * @recv_evd: see @pz
 * @request_evd: see @pz
 * @connect_evd: see @pz
 * @srq: the SRQ it takes its receives from, or NULL
 * @local_addr: dat_ep_query()'s addresses point here
 * @remote_addr: see @local_addr
 * @pdata: the private data of the EP's last connection event
 * @ud_pdata: the private data of its resolutions, for a datagram EP
 *	(under @lock)
 */
struct shim_ep {
	struct shim_obj obj;
	pthread_mutex_t lock;
	struct kdapl_post_head *hdr;
	char *rec;
	size_t map_size;
	__u32 entries;
	__u32 stride;
	__u32 max_iov;
	__u32 head;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE recv_evd;
	DAT_EVD_HANDLE request_evd;
	DAT_EVD_HANDLE connect_evd;
	struct shim_srq *srq;
	struct sockaddr_storage local_addr;
	struct sockaddr_storage remote_addr;
	unsigned char pdata[KDAPL_UEVENT_PDATA];
	struct shim_ud_pdata *ud_pdata;
};

/**
 * struct shim_srq - a Shared Receive Queue
 * @obj: handle head
 * @pz: its PZ, which dat_srq_query() reports
 */
struct shim_srq {
	struct shim_obj obj;
	DAT_PZ_HANDLE pz;
};

/**
 * struct shim_rmr - a Remote Memory Region
 * @obj: handle head
 * @pz: its PZ, which dat_rmr_query() reports
 */
struct shim_rmr {
	struct shim_obj obj;
	DAT_PZ_HANDLE pz;
};

/**
 * struct shim_sp - a service point
 * @obj: handle head
 * @qual: its connection qualifier
 * @evd: the EVD of its requests
 * @flags: DAT_PSP_FLAGS (PSP)
 * @ep: the EP it reserves (RSP)
 * @comm: its communicator (CSP), which dat_csp_query() points to
 * @addr: its address (CSP), likewise
 */
struct shim_sp {
	struct shim_obj obj;
	DAT_CONN_QUAL qual;
	DAT_EVD_HANDLE evd;
	DAT_PSP_FLAGS flags;
	DAT_EP_HANDLE ep;
	DAT_COMM comm;
	struct sockaddr_storage addr;
};

/**
 * struct shim_cr - a connection request
 * @obj: handle head
 * @remote_addr: the peer's address
 * @remote_port: the peer's port
 * @pdata_size: bytes of @pdata
 * @pdata: the peer's private data
 * @ep: the EP of the RSP that took the request, or DAT_HANDLE_NULL
 */
struct shim_cr {
	struct shim_obj obj;
	struct sockaddr_storage remote_addr;
	DAT_PORT_QUAL remote_port;
	DAT_COUNT pdata_size;
	unsigned char pdata[KDAPL_UEVENT_PDATA];
	DAT_EP_HANDLE ep;
};

/**
 * struct shim_wr - one work request for an EP's post ring
 * @op: DAT_DTOS, or KDAPL_POST_*
 * @n: local segments in @iov
 * @iov: the local segments
 * @cookie: the consumer's cookie
 * @remote: the remote segment, or NULL
 * @flags: DAT_COMPLETION_FLAGS
 * @imm_data: the immediate data of KDAPL_POST_RDMA_WRITE_IMMED, else 0
 * @atomic: the operands of an atomic, or NULL
 */
struct shim_wr {
	__u32 op;
	DAT_COUNT n;
	const DAT_LMR_TRIPLET *iov;
	DAT_DTO_COOKIE cookie;
	const DAT_RMR_TRIPLET *remote;
	DAT_COMPLETION_FLAGS flags;
	__u32 imm_data;
	const struct kdapl_post_atomic *atomic;
};

/* The completion flags a request (not a receive) may carry. */
#define SHIM_POST_FLAGS	(DAT_COMPLETION_SUPPRESS_FLAG |		\
			 DAT_COMPLETION_SOLICITED_WAIT_FLAG |		\
			 DAT_COMPLETION_UNSIGNALLED_FLAG |		\
			 DAT_COMPLETION_BARRIER_FENCE_FLAG)

/* shim_handle.c */
struct shim_obj *shim_obj_get(DAT_HANDLE handle, DAT_HANDLE_TYPE type);
__u32 shim_obj_id(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
		  const struct shim_ia *ia);
void *shim_obj_new(size_t size, DAT_HANDLE_TYPE type, struct shim_ia *ia);
void shim_obj_free(struct shim_obj *obj);
DAT_RETURN shim_obj_kfree(struct shim_obj *obj, unsigned long cmd);
DAT_RETURN shim_obj_destroy(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			    DAT_RETURN_SUBTYPE bad, unsigned long cmd);
DAT_IA_HANDLE shim_consumer_ia_handle(struct shim_ia *ia);

/* shim_dev.c */
int shim_dev_open(__u32 *max_command);
DAT_RETURN shim_dev_call(int fd, unsigned long cmd, void *arg, size_t size);
DAT_RETURN shim_dev_errno(int err);

#define SHIM_CALL(ia, nr, arg) \
	shim_dev_call((ia)->fd, KDAPL_IOC_##nr, &(arg), sizeof(arg))

/* shim_provider.c */
const DAT_PROVIDER *shim_provider_of(const char *ia_name);
void dat_provider_init(const DAT_PROVIDER_INFO *info,
		       const char *instance_data);
void dat_provider_fini(const DAT_PROVIDER_INFO *info);

/* The provider functions, by object family. */
DAT_RETURN shim_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia);
DAT_RETURN shim_ia_ha_related(DAT_IA_HANDLE ia, const DAT_NAME_PTR name,
			      DAT_BOOLEAN *answer);
DAT_RETURN shim_ia_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *async_evd,
			 DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			 DAT_PROVIDER_ATTR_MASK prov_mask,
			 DAT_PROVIDER_ATTR *prov_attr);
DAT_RETURN shim_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags);
DAT_RETURN shim_set_consumer_context(DAT_HANDLE handle, DAT_CONTEXT context);
DAT_RETURN shim_get_consumer_context(DAT_HANDLE handle,
				     DAT_CONTEXT *context);
DAT_RETURN shim_get_handle_type(DAT_HANDLE handle, DAT_HANDLE_TYPE *type);

DAT_RETURN shim_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz);
DAT_RETURN shim_pz_query(DAT_PZ_HANDLE pz, DAT_PZ_PARAM_MASK mask,
			 DAT_PZ_PARAM *param);
DAT_RETURN shim_pz_free(DAT_PZ_HANDLE pz);

DAT_RETURN shim_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			  DAT_EVD_HANDLE recv_evd, DAT_EVD_HANDLE request_evd,
			  DAT_EVD_HANDLE connect_evd, const DAT_EP_ATTR *attr,
			  DAT_EP_HANDLE *ep);
DAT_RETURN shim_ep_create_with_srq(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				   DAT_EVD_HANDLE recv_evd,
				   DAT_EVD_HANDLE request_evd,
				   DAT_EVD_HANDLE connect_evd,
				   DAT_SRQ_HANDLE srq, const DAT_EP_ATTR *attr,
				   DAT_EP_HANDLE *ep);
DAT_RETURN shim_ep_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR addr,
			   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
			   DAT_COUNT private_data_size,
			   const DAT_PVOID private_data, DAT_QOS qos,
			   DAT_CONNECT_FLAGS flags);
DAT_RETURN shim_ep_query(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
			 DAT_EP_PARAM *param);
void shim_ep_rdma_iov(const struct shim_ia *ia, struct kdapl_ioc_ep_attr *k);
DAT_RETURN shim_ep_modify(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
			  const DAT_EP_PARAM *param);
DAT_RETURN shim_ep_common_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR addr,
				  DAT_TIMEOUT timeout,
				  DAT_COUNT private_data_size,
				  const DAT_PVOID private_data);
DAT_RETURN shim_ep_dup_connect(DAT_EP_HANDLE ep, DAT_EP_HANDLE dup,
			       DAT_TIMEOUT timeout, DAT_COUNT private_data_size,
			       const DAT_PVOID private_data, DAT_QOS qos);
DAT_RETURN shim_ep_disconnect(DAT_EP_HANDLE ep, DAT_CLOSE_FLAGS flags);
DAT_RETURN shim_ep_get_status(DAT_EP_HANDLE ep, DAT_EP_STATE *state,
			      DAT_BOOLEAN *recv_idle,
			      DAT_BOOLEAN *request_idle);
DAT_RETURN shim_ep_reset(DAT_EP_HANDLE ep);
DAT_RETURN shim_ep_free(DAT_EP_HANDLE ep);

void shim_post_unmap(struct shim_ep *ep);
void shim_ep_forget(struct shim_ep *ep);
DAT_RETURN shim_post_wr(struct shim_ep *ep, const struct shim_wr *wr);
void shim_cno_forget(struct shim_cno *cno);
DAT_RETURN shim_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
			     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			     DAT_COMPLETION_FLAGS flags);
DAT_RETURN shim_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT n,
			     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			     DAT_COMPLETION_FLAGS flags);
DAT_RETURN shim_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT n,
				  DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				  const DAT_RMR_TRIPLET *remote,
				  DAT_COMPLETION_FLAGS flags);
DAT_RETURN shim_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT n,
				   DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				   const DAT_RMR_TRIPLET *remote,
				   DAT_COMPLETION_FLAGS flags);

DAT_RETURN shim_srq_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			   DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *srq);
DAT_RETURN shim_srq_free(DAT_SRQ_HANDLE srq);
DAT_RETURN shim_srq_post_recv(DAT_SRQ_HANDLE srq, DAT_COUNT n,
			      DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie);
DAT_RETURN shim_srq_query(DAT_SRQ_HANDLE srq, DAT_SRQ_PARAM_MASK mask,
			  DAT_SRQ_PARAM *param);
DAT_RETURN shim_srq_resize(DAT_SRQ_HANDLE srq, DAT_COUNT max_recv_dtos);
DAT_RETURN shim_srq_set_lw(DAT_SRQ_HANDLE srq, DAT_COUNT low_watermark);

int shim_rmr_supported(const struct shim_ia *ia);
DAT_RETURN shim_rmr_create(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr);
DAT_RETURN shim_rmr_create_for_ep(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr);
DAT_RETURN shim_rmr_query(DAT_RMR_HANDLE rmr, DAT_RMR_PARAM_MASK mask,
			  DAT_RMR_PARAM *param);
DAT_RETURN shim_rmr_bind(DAT_RMR_HANDLE rmr, DAT_LMR_HANDLE lmr,
			 const DAT_LMR_TRIPLET *triplet,
			 DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			 DAT_EP_HANDLE ep, DAT_RMR_COOKIE cookie,
			 DAT_COMPLETION_FLAGS flags,
			 DAT_RMR_CONTEXT *rmr_context);
DAT_RETURN shim_rmr_free(DAT_RMR_HANDLE rmr);
DAT_RETURN shim_ep_post_send_with_invalidate(DAT_EP_HANDLE ep, DAT_COUNT n,
					     DAT_LMR_TRIPLET *iov,
					     DAT_DTO_COOKIE cookie,
					     DAT_COMPLETION_FLAGS flags,
					     DAT_BOOLEAN invalidate,
					     DAT_RMR_CONTEXT rmr_context);
DAT_RETURN shim_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE ep,
					 const DAT_RMR_TRIPLET *local,
					 DAT_DTO_COOKIE cookie,
					 const DAT_RMR_TRIPLET *remote,
					 DAT_COMPLETION_FLAGS flags);

DAT_RETURN shim_ep_recv_query(DAT_EP_HANDLE ep, DAT_COUNT *nbufs,
			      DAT_COUNT *span);
DAT_RETURN shim_ep_set_watermark(DAT_EP_HANDLE ep, DAT_COUNT soft,
				 DAT_COUNT hard);

DAT_RETURN shim_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL qual,
			   DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			   DAT_PSP_HANDLE *psp);
DAT_RETURN shim_psp_query(DAT_PSP_HANDLE psp, DAT_PSP_PARAM_MASK mask,
			  DAT_PSP_PARAM *param);
DAT_RETURN shim_psp_free(DAT_PSP_HANDLE psp);
DAT_RETURN shim_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *qual,
			       DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			       DAT_PSP_HANDLE *psp);
DAT_RETURN shim_rsp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL qual,
			   DAT_EP_HANDLE ep, DAT_EVD_HANDLE evd,
			   DAT_RSP_HANDLE *rsp);
DAT_RETURN shim_rsp_query(DAT_RSP_HANDLE rsp, DAT_RSP_PARAM_MASK mask,
			  DAT_RSP_PARAM *param);
DAT_RETURN shim_rsp_free(DAT_RSP_HANDLE rsp);
DAT_RETURN shim_csp_create(DAT_IA_HANDLE ia, DAT_COMM *comm,
			   DAT_IA_ADDRESS_PTR addr, DAT_EVD_HANDLE evd,
			   DAT_CSP_HANDLE *csp);
DAT_RETURN shim_csp_query(DAT_CSP_HANDLE csp, DAT_CSP_PARAM_MASK mask,
			  DAT_CSP_PARAM *param);
DAT_RETURN shim_csp_free(DAT_CSP_HANDLE csp);
DAT_CR_HANDLE shim_cr_from_event(struct shim_ia *ia,
				 const struct kdapl_uevent *u,
				 const struct kdapl_uevent_ext *x);
DAT_RETURN shim_cr_query(DAT_CR_HANDLE cr, DAT_CR_PARAM_MASK mask,
			 DAT_CR_PARAM *param);
DAT_RETURN shim_cr_handoff(DAT_CR_HANDLE cr, DAT_CONN_QUAL qual);
DAT_RETURN shim_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
			  DAT_COUNT size, const DAT_PVOID pdata);
DAT_RETURN shim_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT size,
			  const DAT_PVOID pdata);

DAT_RETURN shim_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE mem_type,
			   DAT_REGION_DESCRIPTION region, DAT_VLEN length,
			   DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			   DAT_VA_TYPE va_type, DAT_LMR_HANDLE *lmr,
			   DAT_LMR_CONTEXT *lmr_context,
			   DAT_RMR_CONTEXT *rmr_context,
			   DAT_VLEN *registered_length,
			   DAT_VADDR *registered_address);
DAT_RETURN shim_lmr_query(DAT_LMR_HANDLE lmr, DAT_LMR_PARAM_MASK mask,
			  DAT_LMR_PARAM *param);
DAT_RETURN shim_lmr_free(DAT_LMR_HANDLE lmr);
DAT_RETURN shim_lmr_sync_rdma_read(DAT_IA_HANDLE ia,
				   const DAT_LMR_TRIPLET *segments,
				   DAT_VLEN num_segments);
DAT_RETURN shim_lmr_sync_rdma_write(DAT_IA_HANDLE ia,
				    const DAT_LMR_TRIPLET *segments,
				    DAT_VLEN num_segments);

int shim_evd_map(struct shim_evd *evd, __u32 id, __u64 size,
		 __u64 offset, DAT_COUNT qlen, DAT_EVD_FLAGS flags);
void shim_evd_unmap(struct shim_evd *evd);
void shim_evd_forget(struct shim_evd *evd);
DAT_RETURN shim_evd_create(DAT_IA_HANDLE ia, DAT_COUNT qlen,
			   DAT_CNO_HANDLE cno, DAT_EVD_FLAGS flags,
			   DAT_EVD_HANDLE *evd);
DAT_RETURN shim_evd_query(DAT_EVD_HANDLE evd, DAT_EVD_PARAM_MASK mask,
			  DAT_EVD_PARAM *param);
DAT_RETURN shim_evd_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout,
			 DAT_COUNT threshold, DAT_EVENT *event,
			 DAT_COUNT *nmore);
DAT_RETURN shim_evd_post_se(DAT_EVD_HANDLE evd, const DAT_EVENT *event);
DAT_RETURN shim_evd_dequeue(DAT_EVD_HANDLE evd, DAT_EVENT *event);
DAT_RETURN shim_evd_free(DAT_EVD_HANDLE evd);
DAT_RETURN shim_evd_modify_cno(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno);
DAT_RETURN shim_evd_resize(DAT_EVD_HANDLE evd, DAT_COUNT qlen);
DAT_RETURN shim_evd_enable(DAT_EVD_HANDLE evd);
DAT_RETURN shim_evd_disable(DAT_EVD_HANDLE evd);
DAT_RETURN shim_evd_set_unwaitable(DAT_EVD_HANDLE evd);
DAT_RETURN shim_evd_clear_unwaitable(DAT_EVD_HANDLE evd);

DAT_RETURN shim_cno_create(DAT_IA_HANDLE ia, DAT_OS_WAIT_PROXY_AGENT agent,
			   DAT_CNO_HANDLE *cno);
DAT_RETURN shim_cno_fd_create(DAT_IA_HANDLE ia, DAT_FD *fd,
			      DAT_CNO_HANDLE *cno);
DAT_RETURN shim_cno_modify_agent(DAT_CNO_HANDLE cno,
				 DAT_OS_WAIT_PROXY_AGENT agent);
DAT_RETURN shim_cno_query(DAT_CNO_HANDLE cno, DAT_CNO_PARAM_MASK mask,
			  DAT_CNO_PARAM *param);
DAT_RETURN shim_cno_free(DAT_CNO_HANDLE cno);
DAT_RETURN shim_cno_wait(DAT_CNO_HANDLE cno, DAT_TIMEOUT timeout,
			 DAT_EVD_HANDLE *evd);
DAT_RETURN shim_cno_trigger(DAT_CNO_HANDLE cno, DAT_EVD_HANDLE *evd);

DAT_RETURN shim_handle_extendedop(DAT_HANDLE handle, DAT_EXTENDED_OP op,
				  va_list args);
void shim_ext_event(const struct kdapl_uevent *u, DAT_EVENT *e);
bool shim_ext_ud_event(const struct kdapl_uevent *u,
		       const struct kdapl_uevent_ext *x, DAT_EVENT *e);
void shim_ext_ud_forget(struct shim_ep *ep);
struct shim_ud_pdata *shim_ext_ud_take(struct shim_ep *ep);
void shim_ext_ud_settle(struct shim_ep *ep, struct shim_ud_pdata *old,
			bool reset);

/* shim_counters.c */
DAT_RETURN shim_counters_query(DAT_HANDLE handle, va_list args);
DAT_RETURN shim_counters_print(DAT_HANDLE handle, va_list args);
DAT_RETURN shim_counters_sample(DAT_HANDLE handle, va_list args);

#endif /* _SHIM_H */
