/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kDAT: the DAT 2.0 kernel API provided by kdapl.ko.
 *
 * In-kernel consumers include this header and call the exported
 * functions.  See Documentation/index.rst for the object model and the
 * context rules of every call.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _RDMA_KDAT_H
#define _RDMA_KDAT_H

#include <linux/types.h>
#include <rdma/kdat_types.h>

/*
 * Longest Interface Adapter name, terminating NUL included: an RDMA
 * device name (IB_DEVICE_NAME_MAX), a port number and a net_device name
 * (IFNAMSIZ), with their separators.
 */
#define KDAPL_IA_NAME_MAX	96

struct kdapl_adapter;

struct kdapl_adapter *kdapl_adapter_get(const char *name);
void kdapl_adapter_put(struct kdapl_adapter *adapter);
int kdapl_adapter_name(struct kdapl_adapter *adapter, char *buf, size_t size);
bool kdapl_adapter_present(struct kdapl_adapter *adapter);

/*
 * The kDAT 2.0 functions.  They may sleep and must be called from process
 * context, except those that may be called from any context:
 *
 *   dat_get_handle_type(), dat_evd_dequeue(), dat_evd_post_se(),
 *   dat_evd_query(), dat_evd_modify_upcall() (but for
 *   DAT_UPCALL_TEARDOWN), dat_ep_get_status(), dat_ep_query(),
 *   dat_ep_post_send(), dat_ep_post_send_with_invalidate(),
 *   dat_ep_post_recv(), dat_ep_post_rdma_read(),
 *   dat_ep_post_rdma_read_to_rmr(), dat_ep_post_rdma_write(),
 *   dat_srq_post_recv(), dat_srq_query(), dat_pz_query(),
 *   dat_lmr_query(), dat_rmr_query(), dat_psp_query().
 *
 * Upcalls.  An EVD's upcall runs with no kdapl lock held and never inside
 * the kDAT call whose work produced its event, in one context per EVD:
 *
 *   - An EVD that takes DTO or RMR bind completions (DAT_EVD_DTO_FLAG,
 *     DAT_EVD_RMR_BIND_FLAG): with bottom halves disabled, from the
 *     completion handler of its CQ or from kdapl's work queue.  The
 *     upcall must not sleep: it may make the any-context calls above.
 *   - Every other EVD (connection, connection request, async and
 *     software events): process context, from kdapl's work queue.  The
 *     upcall may make every kDAT call, blocking ones included
 *     (dat_ep_free(), dat_cr_accept(), dat_ia_close(), ...), except
 *     dat_evd_free() and dat_evd_modify_upcall(DAT_UPCALL_TEARDOWN) of
 *     its own EVD, which wait for it.
 *
 * dat_evd_post_se() calls the upcall of the software event it posts in
 * its own caller's context, as DAT specifies.
 *
 * See Documentation/objects.rst and Documentation/evd.rst for the locking
 * rules and the meaning of every return value.
 */

DAT_RETURN dat_get_handle_type(DAT_HANDLE handle, DAT_HANDLE_TYPE *type);

/* Interface Adapter */
DAT_RETURN dat_ia_open(const char *ia_name, DAT_COUNT async_evd_qlen,
		       DAT_EVD_HANDLE *async_evd_handle,
		       DAT_IA_HANDLE *ia_handle);
DAT_RETURN dat_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS flags);
DAT_RETURN dat_ia_query(DAT_IA_HANDLE ia_handle,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			DAT_PROVIDER_ATTR *provider_attr);
DAT_RETURN dat_ia_ha_related(DAT_IA_HANDLE ia_handle,
			     const DAT_NAME_PTR provider_name,
			     DAT_BOOLEAN *answer);

/* Protection Zone */
DAT_RETURN dat_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle);
DAT_RETURN dat_pz_query(DAT_PZ_HANDLE pz_handle, DAT_PZ_PARAM_MASK mask,
			DAT_PZ_PARAM *param);
DAT_RETURN dat_pz_free(DAT_PZ_HANDLE pz_handle);

/* Event Dispatcher */
DAT_RETURN dat_evd_kcreate(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			   DAT_UPCALL_POLICY upcall_policy,
			   const DAT_UPCALL_OBJECT *upcall,
			   DAT_EVD_FLAGS evd_flags,
			   DAT_EVD_HANDLE *evd_handle);
DAT_RETURN dat_evd_modify_upcall(DAT_EVD_HANDLE evd_handle,
				 DAT_UPCALL_POLICY upcall_policy,
				 const DAT_UPCALL_OBJECT *upcall);
DAT_RETURN dat_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen);
DAT_RETURN dat_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event);
DAT_RETURN dat_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event);
DAT_RETURN dat_evd_query(DAT_EVD_HANDLE evd_handle, DAT_EVD_PARAM_MASK mask,
			 DAT_EVD_PARAM *param);
DAT_RETURN dat_evd_free(DAT_EVD_HANDLE evd_handle);

/* Endpoint */
DAT_RETURN dat_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			 DAT_EVD_HANDLE recv_evd_handle,
			 DAT_EVD_HANDLE request_evd_handle,
			 DAT_EVD_HANDLE connect_evd_handle,
			 const DAT_EP_ATTR *ep_attributes,
			 DAT_EP_HANDLE *ep_handle);
DAT_RETURN dat_ep_create_with_srq(DAT_IA_HANDLE ia_handle,
				  DAT_PZ_HANDLE pz_handle,
				  DAT_EVD_HANDLE recv_evd_handle,
				  DAT_EVD_HANDLE request_evd_handle,
				  DAT_EVD_HANDLE connect_evd_handle,
				  DAT_SRQ_HANDLE srq_handle,
				  const DAT_EP_ATTR *ep_attributes,
				  DAT_EP_HANDLE *ep_handle);
DAT_RETURN dat_ep_recv_query(DAT_EP_HANDLE ep_handle,
			     DAT_COUNT *nbufs_allocated,
			     DAT_COUNT *bufs_alloc_span);
DAT_RETURN dat_ep_set_watermark(DAT_EP_HANDLE ep_handle,
				DAT_COUNT soft_high_watermark,
				DAT_COUNT hard_high_watermark);
DAT_RETURN dat_ep_query(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK mask,
			DAT_EP_PARAM *param);
DAT_RETURN dat_ep_modify(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK mask,
			 const DAT_EP_PARAM *param);
DAT_RETURN dat_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			     DAT_BOOLEAN *recv_idle,
			     DAT_BOOLEAN *request_idle);
DAT_RETURN dat_ep_reset(DAT_EP_HANDLE ep_handle);
DAT_RETURN dat_ep_free(DAT_EP_HANDLE ep_handle);

/* Endpoint connections */
DAT_RETURN dat_ep_connect(DAT_EP_HANDLE ep_handle,
			  DAT_IA_ADDRESS_PTR remote_ia_address,
			  DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			  DAT_COUNT private_data_size,
			  const DAT_PVOID private_data, DAT_QOS qos,
			  DAT_CONNECT_FLAGS connect_flags);
DAT_RETURN dat_ep_dup_connect(DAT_EP_HANDLE ep_handle,
			      DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
			      DAT_COUNT private_data_size,
			      const DAT_PVOID private_data, DAT_QOS qos);
DAT_RETURN dat_ep_common_connect(DAT_EP_HANDLE ep_handle,
				 DAT_IA_ADDRESS_PTR remote_ia_address,
				 DAT_TIMEOUT timeout,
				 DAT_COUNT private_data_size,
				 const DAT_PVOID private_data);
DAT_RETURN dat_ep_disconnect(DAT_EP_HANDLE ep_handle,
			     DAT_CLOSE_FLAGS close_flags);

/* Data transfer operations; any context */
DAT_RETURN dat_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN dat_ep_post_send_with_invalidate(DAT_EP_HANDLE ep_handle,
					    DAT_COUNT num_segments,
					    DAT_LMR_TRIPLET *local_iov,
					    DAT_DTO_COOKIE user_cookie,
					    DAT_COMPLETION_FLAGS completion_flags,
					    DAT_BOOLEAN invalidate_flag,
					    DAT_RMR_CONTEXT rmr_context);
DAT_RETURN dat_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN dat_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 const DAT_RMR_TRIPLET *remote_iov,
				 DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN dat_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE ep_handle,
					const DAT_RMR_TRIPLET *local_iov,
					DAT_DTO_COOKIE user_cookie,
					const DAT_RMR_TRIPLET *remote_iov,
					DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN dat_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie,
				  const DAT_RMR_TRIPLET *remote_iov,
				  DAT_COMPLETION_FLAGS completion_flags);

/* Local Memory Region */
DAT_RETURN dat_lmr_kcreate(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
			   DAT_REGION_DESCRIPTION region_description,
			   DAT_VLEN length, DAT_PZ_HANDLE pz_handle,
			   DAT_MEM_PRIV_FLAGS privileges, DAT_VA_TYPE va_type,
			   DAT_MEM_OPTIMIZE_FLAGS optimization,
			   DAT_LMR_HANDLE *lmr_handle,
			   DAT_LMR_CONTEXT *lmr_context,
			   DAT_RMR_CONTEXT *rmr_context,
			   DAT_VLEN *registered_length,
			   DAT_VADDR *registered_address);
DAT_RETURN dat_lmr_query(DAT_LMR_HANDLE lmr_handle, DAT_LMR_PARAM_MASK mask,
			 DAT_LMR_PARAM *param);
DAT_RETURN dat_lmr_free(DAT_LMR_HANDLE lmr_handle);
DAT_RETURN dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				  const DAT_LMR_TRIPLET *local_segments,
				  DAT_VLEN num_segments);
DAT_RETURN dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *local_segments,
				   DAT_VLEN num_segments);

/* Remote Memory Region */
DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle);
DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle, DAT_RMR_PARAM_MASK mask,
			 DAT_RMR_PARAM *param);
DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle);
DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr_handle, DAT_LMR_HANDLE lmr_handle,
			const DAT_LMR_TRIPLET *lmr_triplet,
			DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie,
			DAT_COMPLETION_FLAGS completion_flags,
			DAT_RMR_CONTEXT *rmr_context);

/* Public, Reserved and Common Service Points, Connection Requests */
DAT_RETURN dat_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			  DAT_PSP_HANDLE *psp_handle);
DAT_RETURN dat_psp_create_any(DAT_IA_HANDLE ia_handle,
			      DAT_CONN_QUAL *conn_qual,
			      DAT_EVD_HANDLE evd_handle,
			      DAT_PSP_FLAGS psp_flags,
			      DAT_PSP_HANDLE *psp_handle);
DAT_RETURN dat_psp_query(DAT_PSP_HANDLE psp_handle, DAT_PSP_PARAM_MASK mask,
			 DAT_PSP_PARAM *param);
DAT_RETURN dat_psp_free(DAT_PSP_HANDLE psp_handle);
DAT_RETURN dat_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			  DAT_RSP_HANDLE *rsp_handle);
DAT_RETURN dat_rsp_query(DAT_RSP_HANDLE rsp_handle, DAT_RSP_PARAM_MASK mask,
			 DAT_RSP_PARAM *param);
DAT_RETURN dat_rsp_free(DAT_RSP_HANDLE rsp_handle);
DAT_RETURN dat_csp_create(DAT_IA_HANDLE ia_handle, DAT_COMM *comm,
			  DAT_IA_ADDRESS_PTR address, DAT_EVD_HANDLE evd_handle,
			  DAT_CSP_HANDLE *csp_handle);
DAT_RETURN dat_csp_query(DAT_CSP_HANDLE csp_handle, DAT_CSP_PARAM_MASK mask,
			 DAT_CSP_PARAM *param);
DAT_RETURN dat_csp_free(DAT_CSP_HANDLE csp_handle);
DAT_RETURN dat_cr_query(DAT_CR_HANDLE cr_handle, DAT_CR_PARAM_MASK mask,
			DAT_CR_PARAM *param);
DAT_RETURN dat_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			 DAT_COUNT private_data_size,
			 const DAT_PVOID private_data);
DAT_RETURN dat_cr_reject(DAT_CR_HANDLE cr_handle, DAT_COUNT private_data_size,
			 const DAT_PVOID private_data);
DAT_RETURN dat_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff);

/* Shared Receive Queue */
DAT_RETURN dat_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			  const DAT_SRQ_ATTR *srq_attr,
			  DAT_SRQ_HANDLE *srq_handle);
DAT_RETURN dat_srq_post_recv(DAT_SRQ_HANDLE srq_handle,
			     DAT_COUNT num_segments,
			     const DAT_LMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie);
DAT_RETURN dat_srq_query(DAT_SRQ_HANDLE srq_handle, DAT_SRQ_PARAM_MASK mask,
			 DAT_SRQ_PARAM *param);
DAT_RETURN dat_srq_resize(DAT_SRQ_HANDLE srq_handle,
			  DAT_COUNT srq_max_recv_dto);
DAT_RETURN dat_srq_set_lw(DAT_SRQ_HANDLE srq_handle,
			  DAT_COUNT low_watermark);
DAT_RETURN dat_srq_free(DAT_SRQ_HANDLE srq_handle);

#endif /* _RDMA_KDAT_H */
