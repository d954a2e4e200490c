// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Receive Queues.  The SRQ lives in the kernel; a receive posted
 * to it is one call that copies its segments (DAT posts one receive per
 * call), and its completion reaches the receive EVD of the EP that
 * consumed it, as any receive's does.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "shim.h"

DAT_RETURN shim_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			   DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *srq_handle)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct shim_obj *pz = shim_obj_get(pz_handle, DAT_HANDLE_TYPE_PZ);
	struct kdapl_ioc_srq_create c = { 0 };
	struct shim_srq *srq;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!pz || pz->ia != ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (!attr)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!srq_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	srq = shim_obj_new(sizeof(*srq), DAT_HANDLE_TYPE_SRQ, ia);
	if (!srq)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	c.ia_id = ia->obj.id;
	c.pz_id = pz->id;
	c.max_recv_dtos = attr->max_recv_dtos;
	c.max_recv_iov = attr->max_recv_iov;
	c.low_watermark = attr->low_watermark;
	c.cookie = (uintptr_t)srq;
	ret = SHIM_CALL(ia, SRQ_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&srq->obj);
		return ret;
	}
	srq->obj.id = c.srq_id;
	srq->pz = pz_handle;
	*srq_handle = (DAT_SRQ_HANDLE)srq;
	return DAT_SUCCESS;
}

DAT_RETURN shim_srq_free(DAT_SRQ_HANDLE handle)
{
	return shim_obj_destroy(handle, DAT_HANDLE_TYPE_SRQ,
				DAT_INVALID_HANDLE_SRQ, KDAPL_IOC_SRQ_FREE);
}

DAT_RETURN shim_srq_post_recv(DAT_SRQ_HANDLE handle, DAT_COUNT n,
			      DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie)
{
	struct shim_obj *srq = shim_obj_get(handle, DAT_HANDLE_TYPE_SRQ);
	struct kdapl_ioc_srq_post c = { 0 };

	if (!srq)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	if (n < 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (n && !iov)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	c.srq_id = srq->id;
	c.num_segments = n;
	/* The kernel reads them as they are (shim_post.c checks the layout). */
	c.segments = (uintptr_t)iov;
	c.cookie = cookie.as_64;
	return SHIM_CALL(srq->ia, SRQ_POST, c);
}

DAT_RETURN shim_srq_query(DAT_SRQ_HANDLE handle, DAT_SRQ_PARAM_MASK mask,
			  DAT_SRQ_PARAM *param)
{
	struct shim_srq *srq = (struct shim_srq *)shim_obj_get(handle,
							DAT_HANDLE_TYPE_SRQ);
	struct kdapl_ioc_srq_query q = { 0 };
	DAT_RETURN ret;

	if (!srq)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	if (mask & ~DAT_SRQ_FIELD_ALL)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	q.srq_id = srq->obj.id;
	ret = SHIM_CALL(srq->obj.ia, SRQ_QUERY, q);
	if (ret != DAT_SUCCESS)
		return ret;
	param->ia_handle = shim_consumer_ia_handle(srq->obj.ia);
	param->srq_state = q.state;
	param->pz_handle = srq->pz;
	param->max_recv_dtos = q.max_recv_dtos;
	param->max_recv_iov = q.max_recv_iov;
	param->low_watermark = q.low_watermark;
	param->available_dto_count = q.available_dto_count;
	param->outstanding_dto_count = q.outstanding_dto_count;
	return DAT_SUCCESS;
}

/* dat_srq_resize() and dat_srq_set_lw(): one count, one command. */
static DAT_RETURN shim_srq_set(DAT_SRQ_HANDLE handle, unsigned long cmd,
			       DAT_COUNT value)
{
	struct shim_obj *srq = shim_obj_get(handle, DAT_HANDLE_TYPE_SRQ);
	struct kdapl_ioc_srq_set c = { 0 };

	if (!srq)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	c.srq_id = srq->id;
	c.value = value;
	return shim_dev_call(srq->ia->fd, cmd, &c, sizeof(c));
}

DAT_RETURN shim_srq_resize(DAT_SRQ_HANDLE handle, DAT_COUNT max_recv_dtos)
{
	return shim_srq_set(handle, KDAPL_IOC_SRQ_RESIZE, max_recv_dtos);
}

DAT_RETURN shim_srq_set_lw(DAT_SRQ_HANDLE handle, DAT_COUNT low_watermark)
{
	return shim_srq_set(handle, KDAPL_IOC_SRQ_SET_LW, low_watermark);
}

/*
 * What kDAT answers (dat_ep_recv_query() and dat_ep_set_watermark() in
 * kdapl_ep.c): an EP holds at most the receive its device is filling, so
 * kdapl neither reports receives held nor arms high watermarks; DAT lets
 * a provider say DAT_MODEL_NOT_SUPPORTED.  Disarming both watermarks is
 * accepted.  No system call: the answer depends on the arguments alone.
 */
DAT_RETURN shim_ep_recv_query(DAT_EP_HANDLE handle, DAT_COUNT *nbufs,
			      DAT_COUNT *span)
{
	if (!shim_obj_get(handle, DAT_HANDLE_TYPE_EP))
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!nbufs)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!span)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return SHIM_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

DAT_RETURN shim_ep_set_watermark(DAT_EP_HANDLE handle, DAT_COUNT soft,
				 DAT_COUNT hard)
{
	if (!shim_obj_get(handle, DAT_HANDLE_TYPE_EP))
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (soft != DAT_WATERMARK_INFINITE && soft < 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (hard != DAT_WATERMARK_INFINITE && hard < 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (soft != DAT_WATERMARK_INFINITE || hard != DAT_WATERMARK_INFINITE)
		return SHIM_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}
