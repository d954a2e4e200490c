// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoints: create, connect, disconnect, status and free.  The EP's
 * address is its cookie in the kernel, so connection and completion
 * events name it by its handle.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include "shim.h"

static struct shim_ep *shim_ep_get(DAT_EP_HANDLE handle)
{
	return (struct shim_ep *)shim_obj_get(handle, DAT_HANDLE_TYPE_EP);
}

/* The id of an optional EVD argument (0 for none), or -1 if it is bad. */
static long shim_ep_evd_id(DAT_EVD_HANDLE handle, struct shim_ia *ia)
{
	struct shim_obj *evd;

	if (handle == DAT_HANDLE_NULL)
		return 0;
	evd = shim_obj_get(handle, DAT_HANDLE_TYPE_EVD);
	if (!evd || evd->ia != ia)
		return -1;
	return evd->id;
}

static void shim_ep_attr(const DAT_EP_ATTR *a, struct kdapl_ioc_ep_attr *k)
{
	k->service_type = a->service_type;
	k->qos = a->qos;
	k->max_message_size = a->max_message_size;
	k->max_rdma_size = a->max_rdma_size;
	k->recv_completion_flags = a->recv_completion_flags;
	k->request_completion_flags = a->request_completion_flags;
	k->max_recv_dtos = a->max_recv_dtos;
	k->max_request_dtos = a->max_request_dtos;
	k->max_recv_iov = a->max_recv_iov;
	k->max_request_iov = a->max_request_iov;
	k->max_rdma_read_in = a->max_rdma_read_in;
	k->max_rdma_read_out = a->max_rdma_read_out;
	k->srq_soft_hw = a->srq_soft_hw;
	k->max_rdma_read_iov = a->max_rdma_read_iov;
	k->max_rdma_write_iov = a->max_rdma_write_iov;
}

/**
 * shim_ep_rdma_iov() - the RDMA I/O vectors an EP gets
 * @ia: its IA
 * @k: its attributes, with max_request_iov set
 *
 * RDMA requests use the send queue's segments, as OFA's provider has it
 * (which ignores the two attributes: dapltest sends whatever it last
 * queried), as far as the device takes them: siw reads into one segment.
 */
void shim_ep_rdma_iov(const struct shim_ia *ia, struct kdapl_ioc_ep_attr *k)
{
	k->max_rdma_read_iov = k->max_request_iov < ia->max_rdma_read_iov ?
			       k->max_request_iov : ia->max_rdma_read_iov;
	k->max_rdma_write_iov = k->max_request_iov < ia->max_rdma_write_iov ?
				k->max_request_iov : ia->max_rdma_write_iov;
}

/* Name the PZ and EVDs of an EP to be created in @c, checking them. */
static DAT_RETURN shim_ep_links(struct shim_ia *ia, DAT_PZ_HANDLE pz_handle,
				DAT_EVD_HANDLE recv_evd,
				DAT_EVD_HANDLE request_evd,
				DAT_EVD_HANDLE connect_evd,
				struct kdapl_ioc_ep_create *c)
{
	struct shim_obj *pz = shim_obj_get(pz_handle, DAT_HANDLE_TYPE_PZ);
	long recv, req, conn;

	if (!pz || pz->ia != ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	recv = shim_ep_evd_id(recv_evd, ia);
	req = shim_ep_evd_id(request_evd, ia);
	conn = shim_ep_evd_id(connect_evd, ia);
	if (recv < 0)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV);
	if (req < 0)
		return SHIM_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_REQUEST);
	if (conn < 0)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN);
	c->ia_id = ia->obj.id;
	c->pz_id = pz->id;
	c->recv_evd_id = recv;
	c->request_evd_id = req;
	c->connect_evd_id = conn;
	return DAT_SUCCESS;
}

/* The attributes of @attr, as the kernel takes them, in @c. */
static void shim_ep_create_attr(struct shim_ia *ia, const DAT_EP_ATTR *attr,
				struct kdapl_ioc_ep_create *c)
{
	if (!attr)
		return;
	c->flags = KDAPL_EP_CREATE_ATTR;
	shim_ep_attr(attr, &c->attr);
	/*
	 * As OFA's provider, which never checks them and whose tools rely
	 * on that (dtest asks for 0 and 64 KiB, then sends and writes
	 * more): the sizes are the IA's limits.
	 */
	c->attr.max_message_size = ia->max_message_size;
	c->attr.max_rdma_size = ia->max_rdma_size;
	shim_ep_rdma_iov(ia, &c->attr);
}

/*
 * dat_ep_create() and, with @with_srq, dat_ep_create_with_srq(): the
 * arguments are checked in kDAT's order (the EP pointer, the IA, the PZ,
 * the EVDs, the SRQ; the attributes in the kernel), so that a call with
 * several bad arguments gets the same error from both APIs.
 */
static DAT_RETURN shim_ep_make(DAT_IA_HANDLE ia_handle,
			       DAT_PZ_HANDLE pz_handle,
			       DAT_EVD_HANDLE recv_evd,
			       DAT_EVD_HANDLE request_evd,
			       DAT_EVD_HANDLE connect_evd, bool with_srq,
			       DAT_SRQ_HANDLE srq_handle,
			       const DAT_EP_ATTR *attr,
			       DAT_EP_HANDLE *ep_handle)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct kdapl_ioc_ep_create c = { 0 };
	struct shim_srq *srq = NULL;
	struct shim_ep *ep;
	DAT_RETURN ret;

	if (!ep_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER,
				with_srq ? DAT_INVALID_ARG8 : DAT_INVALID_ARG7);
	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	ret = shim_ep_links(ia, pz_handle, recv_evd, request_evd, connect_evd,
			    &c);
	if (ret != DAT_SUCCESS)
		return ret;
	if (with_srq) {
		srq = (struct shim_srq *)shim_obj_get(srq_handle,
						      DAT_HANDLE_TYPE_SRQ);
		if (!srq || srq->obj.ia != ia)
			return SHIM_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_SRQ);
	}
	ep = shim_obj_new(sizeof(*ep), DAT_HANDLE_TYPE_EP, ia);
	if (!ep)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	c.cookie = (uintptr_t)ep;
	c.srq_id = srq ? srq->obj.id : 0;
	shim_ep_create_attr(ia, attr, &c);
	ret = SHIM_CALL(ia, EP_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&ep->obj);
		return ret;
	}
	ep->obj.id = c.ep_id;
	ep->pz = pz_handle;
	ep->recv_evd = recv_evd;
	ep->request_evd = request_evd;
	ep->connect_evd = connect_evd;
	ep->srq = srq;
	pthread_mutex_init(&ep->lock, NULL);
	*ep_handle = (DAT_EP_HANDLE)ep;
	return DAT_SUCCESS;
}

DAT_RETURN shim_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			  DAT_EVD_HANDLE recv_evd, DAT_EVD_HANDLE request_evd,
			  DAT_EVD_HANDLE connect_evd, const DAT_EP_ATTR *attr,
			  DAT_EP_HANDLE *ep_handle)
{
	return shim_ep_make(ia_handle, pz_handle, recv_evd, request_evd,
			    connect_evd, false, NULL, attr, ep_handle);
}

DAT_RETURN shim_ep_create_with_srq(DAT_IA_HANDLE ia_handle,
				   DAT_PZ_HANDLE pz_handle,
				   DAT_EVD_HANDLE recv_evd,
				   DAT_EVD_HANDLE request_evd,
				   DAT_EVD_HANDLE connect_evd,
				   DAT_SRQ_HANDLE srq_handle,
				   const DAT_EP_ATTR *attr,
				   DAT_EP_HANDLE *ep_handle)
{
	return shim_ep_make(ia_handle, pz_handle, recv_evd, request_evd,
			    connect_evd, true, srq_handle, attr, ep_handle);
}

static void shim_ep_attr_out(const struct kdapl_ioc_ep_attr *k,
			     DAT_EP_ATTR *a)
{
	memset(a, 0, sizeof(*a));
	a->service_type = k->service_type;
	a->max_message_size = k->max_message_size;
	a->max_rdma_size = k->max_rdma_size;
	a->qos = k->qos;
	a->recv_completion_flags = k->recv_completion_flags;
	a->request_completion_flags = k->request_completion_flags;
	a->max_recv_dtos = k->max_recv_dtos;
	a->max_request_dtos = k->max_request_dtos;
	a->max_recv_iov = k->max_recv_iov;
	a->max_request_iov = k->max_request_iov;
	a->max_rdma_read_in = k->max_rdma_read_in;
	a->max_rdma_read_out = k->max_rdma_read_out;
	a->srq_soft_hw = k->srq_soft_hw;
	a->max_rdma_read_iov = k->max_rdma_read_iov;
	a->max_rdma_write_iov = k->max_rdma_write_iov;
}

/* The objects a modification names, into @m; DAT_SUCCESS if good. */
static DAT_RETURN shim_ep_modify_links(struct shim_ep *ep,
				       DAT_EP_PARAM_MASK mask,
				       const DAT_EP_PARAM *param,
				       struct kdapl_ioc_ep_modify *m)
{
	DAT_RETURN bad = SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	struct shim_ia *ia = ep->obj.ia;
	struct shim_obj *pz;
	long recv, req, conn;

	if (mask & DAT_EP_FIELD_PZ_HANDLE) {
		pz = shim_obj_get(param->pz_handle, DAT_HANDLE_TYPE_PZ);
		if (!pz || pz->ia != ia)
			return bad;
		m->pz_id = pz->id;
	}
	/* Fields the mask does not name may hold anything: left alone. */
	recv = mask & DAT_EP_FIELD_RECV_EVD_HANDLE ?
	       shim_ep_evd_id(param->recv_evd_handle, ia) : 0;
	req = mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE ?
	      shim_ep_evd_id(param->request_evd_handle, ia) : 0;
	conn = mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE ?
	       shim_ep_evd_id(param->connect_evd_handle, ia) : 0;
	if (recv < 0 || req < 0 || conn < 0)
		return bad;
	m->recv_evd_id = recv;
	m->request_evd_id = req;
	m->connect_evd_id = conn;
	return DAT_SUCCESS;
}

/* What dat_ep_query() reports of the objects after a modification. */
static void shim_ep_modified(struct shim_ep *ep, DAT_EP_PARAM_MASK mask,
			     const DAT_EP_PARAM *param)
{
	if (mask & DAT_EP_FIELD_PZ_HANDLE)
		ep->pz = param->pz_handle;
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		ep->recv_evd = param->recv_evd_handle;
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		ep->request_evd = param->request_evd_handle;
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		ep->connect_evd = param->connect_evd_handle;
}

DAT_RETURN shim_ep_modify(DAT_EP_HANDLE handle, DAT_EP_PARAM_MASK mask,
			  const DAT_EP_PARAM *param)
{
	struct shim_ep *ep = shim_ep_get(handle);
	struct kdapl_ioc_ep_modify m = { 0 };
	DAT_RETURN ret;

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (mask & ~DAT_EP_FIELD_ALL)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = shim_ep_modify_links(ep, mask, param, &m);
	if (ret != DAT_SUCCESS)
		return ret;
	m.ep_id = ep->obj.id;
	m.mask = mask;
	shim_ep_attr(&param->ep_attr, &m.attr);
	/* As at creation: RDMA requests use the send queue's segments. */
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV) {
		m.mask |= DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV |
			  DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV;
		shim_ep_rdma_iov(ep->obj.ia, &m.attr);
	} else {
		m.mask &= ~(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV |
			    DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV);
	}
	ret = SHIM_CALL(ep->obj.ia, EP_MODIFY, m);
	if (ret == DAT_SUCCESS)
		shim_ep_modified(ep, mask, param);
	return ret;
}

/*
 * The kernel gives the state, attributes and addresses; the handles are
 * the ones the consumer gave.  The address pointers stay valid until
 * the next query of the EP or its free.
 */
DAT_RETURN shim_ep_query(DAT_EP_HANDLE handle, DAT_EP_PARAM_MASK mask,
			 DAT_EP_PARAM *param)
{
	struct kdapl_ioc_ep_query q = { 0 };
	struct shim_ep *ep = shim_ep_get(handle);
	DAT_RETURN ret;

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	q.ep_id = ep->obj.id;
	ret = SHIM_CALL(ep->obj.ia, EP_QUERY, q);
	if (ret != DAT_SUCCESS)
		return ret;
	(void)mask;
	memcpy(&ep->local_addr, q.local_addr, sizeof(q.local_addr));
	memcpy(&ep->remote_addr, q.remote_addr, sizeof(q.remote_addr));
	param->ia_handle = shim_consumer_ia_handle(ep->obj.ia);
	param->ep_state = q.state;
	memset(&param->comm, 0, sizeof(param->comm));
	param->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->local_addr;
	param->local_port_qual = q.local_port_qual;
	param->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->remote_addr;
	param->remote_port_qual = q.remote_port_qual;
	param->pz_handle = ep->pz;
	param->recv_evd_handle = ep->recv_evd;
	param->request_evd_handle = ep->request_evd;
	param->connect_evd_handle = ep->connect_evd;
	param->srq_handle = (DAT_SRQ_HANDLE)ep->srq;
	shim_ep_attr_out(&q.attr, &param->ep_attr);
	return DAT_SUCCESS;
}

/* Bytes of @addr to copy: the whole structure of its family. */
static size_t shim_sockaddr_len(const struct sockaddr *addr)
{
	return addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					     sizeof(struct sockaddr_in);
}

DAT_RETURN shim_ep_connect(DAT_EP_HANDLE handle, DAT_IA_ADDRESS_PTR addr,
			   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
			   DAT_COUNT private_data_size,
			   const DAT_PVOID private_data, DAT_QOS qos,
			   DAT_CONNECT_FLAGS flags)
{
	struct kdapl_ioc_ep_connect c = { 0 };
	struct shim_ep *ep = shim_ep_get(handle);

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!addr)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (private_data_size < 0 || (private_data_size && !private_data))
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (qos != DAT_QOS_BEST_EFFORT)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	memcpy(c.addr, addr, shim_sockaddr_len(addr));
	c.ep_id = ep->obj.id;
	c.timeout_us = timeout;
	c.conn_qual = qual;
	c.private_data = (uintptr_t)private_data;
	c.private_data_size = private_data_size;
	c.connect_flags = flags;
	return SHIM_CALL(ep->obj.ia, EP_CONNECT, c);
}

DAT_RETURN shim_ep_common_connect(DAT_EP_HANDLE handle, DAT_IA_ADDRESS_PTR addr,
				  DAT_TIMEOUT timeout,
				  DAT_COUNT private_data_size,
				  const DAT_PVOID private_data)
{
	struct kdapl_ioc_ep_connect c = { 0 };
	struct shim_ep *ep = shim_ep_get(handle);

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!addr)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (private_data_size < 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (private_data_size && !private_data)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	memcpy(c.addr, addr, shim_sockaddr_len(addr));
	c.ep_id = ep->obj.id;
	c.timeout_us = timeout;
	c.private_data = (uintptr_t)private_data;
	c.private_data_size = private_data_size;
	return SHIM_CALL(ep->obj.ia, EP_COMMON_CONNECT, c);
}

DAT_RETURN shim_ep_dup_connect(DAT_EP_HANDLE handle, DAT_EP_HANDLE dup_handle,
			       DAT_TIMEOUT timeout, DAT_COUNT private_data_size,
			       const DAT_PVOID private_data, DAT_QOS qos)
{
	struct kdapl_ioc_ep_dup_connect c = { 0 };
	struct shim_ep *ep = shim_ep_get(handle);
	struct shim_ep *dup = shim_ep_get(dup_handle);

	if (!ep || !dup || dup->obj.ia != ep->obj.ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (private_data_size < 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (private_data_size && !private_data)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (qos != DAT_QOS_BEST_EFFORT)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	c.ep_id = ep->obj.id;
	c.dup_ep_id = dup->obj.id;
	c.timeout_us = timeout;
	c.private_data = (uintptr_t)private_data;
	c.private_data_size = private_data_size;
	return SHIM_CALL(ep->obj.ia, EP_DUP_CONNECT, c);
}

DAT_RETURN shim_ep_disconnect(DAT_EP_HANDLE handle, DAT_CLOSE_FLAGS flags)
{
	struct kdapl_ioc_obj_free d = { .flags = flags };
	struct shim_ep *ep = shim_ep_get(handle);

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	d.id = ep->obj.id;
	return SHIM_CALL(ep->obj.ia, EP_DISCONNECT, d);
}

DAT_RETURN shim_ep_get_status(DAT_EP_HANDLE handle, DAT_EP_STATE *state,
			      DAT_BOOLEAN *recv_idle,
			      DAT_BOOLEAN *request_idle)
{
	struct kdapl_ioc_ep_get_status s = { 0 };
	struct shim_ep *ep = shim_ep_get(handle);
	DAT_RETURN ret;

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	s.ep_id = ep->obj.id;
	ret = SHIM_CALL(ep->obj.ia, EP_GET_STATUS, s);
	if (ret != DAT_SUCCESS)
		return ret;
	if (state)
		*state = s.state;
	if (recv_idle)
		*recv_idle = s.recv_idle;
	if (request_idle)
		*request_idle = s.request_idle;
	return DAT_SUCCESS;
}

DAT_RETURN shim_ep_reset(DAT_EP_HANDLE handle)
{
	struct shim_ep *ep = shim_ep_get(handle);
	struct shim_ud_pdata *old;
	DAT_RETURN ret;

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	/* The reset ends the resolutions: their private data goes too. */
	old = shim_ext_ud_take(ep);
	ret = shim_obj_kfree(&ep->obj, KDAPL_IOC_EP_RESET);
	shim_ext_ud_settle(ep, old, ret == DAT_SUCCESS);
	return ret;
}

/**
 * shim_ep_forget() - let go of what the shim keeps for an EP the kernel
 *	freed: its post ring's mapping and its resolutions' private data
 * @ep: the EP
 */
void shim_ep_forget(struct shim_ep *ep)
{
	shim_post_unmap(ep);
	shim_ext_ud_forget(ep);
}

DAT_RETURN shim_ep_free(DAT_EP_HANDLE handle)
{
	struct shim_ep *ep = shim_ep_get(handle);
	DAT_RETURN ret;

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	ret = shim_obj_kfree(&ep->obj, KDAPL_IOC_EP_FREE);
	if (ret == DAT_SUCCESS) {
		shim_ep_forget(ep);
		pthread_mutex_destroy(&ep->lock);
		shim_obj_free(&ep->obj);
	}
	return ret;
}
