// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands of /dev/kdapl for endpoints and connections: EPs,
 * public service points, connection requests, connect and disconnect.
 * The table of kdapl_uioctl.c dispatches to them; they run with the
 * file's lock held and see only kernel copies of their arguments, but
 * for the private data, which they copy from the user pointer the
 * argument gives, after checking its size.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kdapl_user.h"

/* The kDAT handle of an optional EVD id (0: none), or an error. */
static DAT_RETURN kdapl_uconn_evd(struct kdapl_ufile *ufile, u32 id,
				  DAT_RETURN_SUBTYPE bad, DAT_EVD_HANDLE *h)
{
	struct kdapl_uobj *uobj;

	*h = DAT_HANDLE_NULL;
	if (!id)
		return DAT_SUCCESS;
	uobj = kdapl_uobj_find(ufile, id, DAT_HANDLE_TYPE_EVD);
	if (!uobj)
		return dat_error(DAT_INVALID_HANDLE, bad);
	*h = uobj->handle;
	return DAT_SUCCESS;
}

/*
 * The file's EP named @id, or NULL with *@status the bad EP handle
 * error.  ufile->lock held.
 */
static struct kdapl_uobj *kdapl_uconn_ep(struct kdapl_ufile *ufile, u32 id,
					 DAT_RETURN *status)
{
	struct kdapl_uobj *ep = kdapl_uobj_find(ufile, id, DAT_HANDLE_TYPE_EP);

	if (!ep)
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	return ep;
}

static void kdapl_uconn_attr(const struct kdapl_ioc_ep_attr *u, DAT_EP_ATTR *a)
{
	memset(a, 0, sizeof(*a));
	a->service_type = u->service_type;
	a->max_message_size = u->max_message_size;
	a->max_rdma_size = u->max_rdma_size;
	a->qos = u->qos;
	a->recv_completion_flags = u->recv_completion_flags;
	a->request_completion_flags = u->request_completion_flags;
	a->max_recv_dtos = u->max_recv_dtos;
	a->max_request_dtos = u->max_request_dtos;
	a->max_recv_iov = u->max_recv_iov;
	a->max_request_iov = u->max_request_iov;
	a->max_rdma_read_in = u->max_rdma_read_in;
	a->max_rdma_read_out = u->max_rdma_read_out;
	a->srq_soft_hw = u->srq_soft_hw;
	a->max_rdma_read_iov = u->max_rdma_read_iov;
	a->max_rdma_write_iov = u->max_rdma_write_iov;
}

/**
 * kdapl_uconn_ep_create() - KDAPL_IOC_EP_CREATE
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_create
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_ep_create(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status)
{
	struct kdapl_ioc_ep_create *a = arg;
	DAT_EVD_HANDLE recv, req, conn;
	struct kdapl_uobj *ia, *pz, *uobj, *srq = NULL;
	DAT_EP_ATTR attr, *pattr;
	DAT_EP_HANDLE ep;
	DAT_RETURN ret;

	if (a->attr.reserved)
		return -EINVAL;

	*status = kdapl_uobj_find_ia_pz(ufile, a->ia_id, a->pz_id, &ia, &pz);
	if (*status)
		return 0;
	ret = kdapl_uconn_evd(ufile, a->recv_evd_id,
			      DAT_INVALID_HANDLE_EVD_RECV, &recv);
	if (!ret)
		ret = kdapl_uconn_evd(ufile, a->request_evd_id,
				      DAT_INVALID_HANDLE_EVD_REQUEST, &req);
	if (!ret)
		ret = kdapl_uconn_evd(ufile, a->connect_evd_id,
				      DAT_INVALID_HANDLE_EVD_CONN, &conn);
	if (!ret && a->srq_id) {
		srq = kdapl_uobj_find(ufile, a->srq_id, DAT_HANDLE_TYPE_SRQ);
		if (!srq)
			ret = dat_error(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_SRQ);
	}
	if (ret || (a->flags & ~KDAPL_EP_CREATE_ATTR)) {
		*status = ret ? ret : dat_error(DAT_INVALID_PARAMETER,
						DAT_INVALID_ARG6);
		return 0;
	}
	kdapl_uconn_attr(&a->attr, &attr);
	pattr = a->flags & KDAPL_EP_CREATE_ATTR ? &attr : NULL;
	if (srq)
		ret = kdapl_ep_create_with_srq(&ufile->owner, ia->handle,
					       pz->handle, recv, req, conn,
					       srq->handle, pattr, &ep);
	else
		ret = kdapl_ep_create(&ufile->owner, ia->handle, pz->handle,
				      recv, req, conn, pattr, &ep);
	if (!ret) {
		ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_EP, ep, a->cookie,
				     ia->id, &uobj);
		if (ret)
			kdapl_ep_free(&ufile->owner, ep);
		else
			a->ep_id = uobj->id;
	}
	*status = ret;
	return 0;
}

/* The objects of a modification that names some, as kDAT handles. */
static DAT_RETURN kdapl_uconn_modify_links(struct kdapl_ufile *ufile,
					   const struct kdapl_ioc_ep_modify *a,
					   DAT_EP_PARAM *param)
{
	DAT_RETURN bad = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	struct kdapl_uobj *pz;
	DAT_RETURN ret = DAT_SUCCESS;

	if (a->mask & DAT_EP_FIELD_PZ_HANDLE) {
		pz = kdapl_uobj_find(ufile, a->pz_id, DAT_HANDLE_TYPE_PZ);
		if (!pz)
			return bad;
		param->pz_handle = pz->handle;
	}
	if (a->mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		ret = kdapl_uconn_evd(ufile, a->recv_evd_id,
				      DAT_INVALID_HANDLE_EVD_RECV,
				      &param->recv_evd_handle);
	if (!ret && (a->mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE))
		ret = kdapl_uconn_evd(ufile, a->request_evd_id,
				      DAT_INVALID_HANDLE_EVD_REQUEST,
				      &param->request_evd_handle);
	if (!ret && (a->mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE))
		ret = kdapl_uconn_evd(ufile, a->connect_evd_id,
				      DAT_INVALID_HANDLE_EVD_CONN,
				      &param->connect_evd_handle);
	/* A wrong object in the parameters is a wrong parameter. */
	return ret ? bad : DAT_SUCCESS;
}

/**
 * kdapl_uconn_ep_modify() - KDAPL_IOC_EP_MODIFY
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_modify
 * @status: out: what dat_ep_modify() returns
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero reserved fields.
 */
int kdapl_uconn_ep_modify(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status)
{
	struct kdapl_ioc_ep_modify *a = arg;
	struct kdapl_uobj *ep;
	DAT_EP_PARAM *param;

	if (a->reserved || a->attr.reserved)
		return -EINVAL;

	ep = kdapl_uconn_ep(ufile, a->ep_id, status);
	if (!ep)
		return 0;
	/* SRQs and provider attributes are not the user API's (yet). */
	if (a->mask & (DAT_EP_FIELD_SRQ_HANDLE |
		       DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR |
		       DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR |
		       DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR |
		       DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR)) {
		*status = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		return 0;
	}
	param = kzalloc(sizeof(*param), GFP_KERNEL);
	if (!param)
		return -ENOMEM;
	kdapl_uconn_attr(&a->attr, &param->ep_attr);
	*status = kdapl_uconn_modify_links(ufile, a, param);
	if (!*status)
		*status = kdapl_ep_modify(&ufile->owner, ep->handle, a->mask,
					  param);
	kfree(param);
	return 0;
}

/**
 * kdapl_uconn_ep_free() - KDAPL_IOC_EP_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_ep_free(struct kdapl_ufile *ufile, void *arg,
			DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;

	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_EP,
				  DAT_INVALID_HANDLE_EP, kdapl_ep_free);
	return 0;
}

/**
 * kdapl_uconn_psp_free() - KDAPL_IOC_PSP_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_psp_free(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;

	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_PSP,
				  DAT_INVALID_HANDLE_PSP, kdapl_psp_free);
	return 0;
}

/**
 * kdapl_uconn_rsp_create() - KDAPL_IOC_RSP_CREATE
 * @ufile: the file
 * @arg: struct kdapl_ioc_rsp_create
 * @status: out: what dat_rsp_create() returns
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero reserved fields.
 */
int kdapl_uconn_rsp_create(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status)
{
	struct kdapl_ioc_rsp_create *a = arg;
	struct kdapl_uobj *ia, *ep, *uobj;
	DAT_EVD_HANDLE evd;
	DAT_RSP_HANDLE rsp;
	DAT_RETURN ret;

	if (a->reserved || a->reserved2)
		return -EINVAL;

	ia = kdapl_uobj_find(ufile, a->ia_id, DAT_HANDLE_TYPE_IA);
	ep = kdapl_uobj_find(ufile, a->ep_id, DAT_HANDLE_TYPE_EP);
	if (!ia || !ep) {
		*status = dat_error(DAT_INVALID_HANDLE, ia ?
				    DAT_INVALID_HANDLE_EP :
				    DAT_INVALID_HANDLE_IA);
		return 0;
	}
	ret = kdapl_uconn_evd(ufile, a->evd_id, DAT_INVALID_HANDLE_EVD_CR,
			      &evd);
	if (!ret)
		ret = kdapl_rsp_create(&ufile->owner, ia->handle, a->conn_qual,
				       ep->handle, evd, &rsp);
	if (!ret) {
		ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_RSP, rsp,
				     a->cookie, ia->id, &uobj);
		if (ret)
			kdapl_rsp_free(&ufile->owner, rsp);
		else
			a->rsp_id = uobj->id;
	}
	*status = ret;
	return 0;
}

/**
 * kdapl_uconn_rsp_free() - KDAPL_IOC_RSP_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free
 * @status: out: what dat_rsp_free() returns
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for flags.
 */
int kdapl_uconn_rsp_free(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;
	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_RSP,
				  DAT_INVALID_HANDLE_RSP, kdapl_rsp_free);
	return 0;
}

/*
 * Copy private data from the process: at most KDAPL_PRIVATE_DATA_MAX
 * bytes; what the transport takes is checked by kDAT.
 */
static int kdapl_uconn_pdata(u64 uptr, u32 size, void *buf,
			     DAT_RETURN *status, DAT_RETURN_SUBTYPE arg)
{
	if (size > KDAPL_PRIVATE_DATA_MAX) {
		*status = dat_error(DAT_INVALID_PARAMETER, arg);
		return 1;
	}
	if (size && copy_from_user(buf, u64_to_user_ptr(uptr), size))
		return -EFAULT;
	return 0;
}

/*
 * The EP, the private data (into @pdata; @arg_size names a size over the
 * limit) and the address of a connect.  Returns 0, 1 with *@status set,
 * or -EFAULT.
 */
static int kdapl_uconn_connect_args(struct kdapl_ufile *ufile,
				    const struct kdapl_ioc_ep_connect *a,
				    DAT_RETURN_SUBTYPE arg_size, u8 *pdata,
				    struct sockaddr_storage *addr,
				    struct kdapl_uobj **ep, DAT_RETURN *status)
{
	*ep = kdapl_uconn_ep(ufile, a->ep_id, status);
	if (!*ep)
		return 1;
	static_assert(sizeof(*addr) == sizeof(a->addr));
	memcpy(addr, a->addr, sizeof(*addr));
	return kdapl_uconn_pdata(a->private_data, a->private_data_size, pdata,
				 status, arg_size);
}

/**
 * kdapl_uconn_ep_connect() - KDAPL_IOC_EP_CONNECT
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_connect
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EFAULT for private data that cannot be read.
 */
int kdapl_uconn_ep_connect(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status)
{
	struct kdapl_ioc_ep_connect *a = arg;
	u8 pdata[KDAPL_PRIVATE_DATA_MAX];
	struct sockaddr_storage addr;
	struct kdapl_uobj *ep;
	int err;

	err = kdapl_uconn_connect_args(ufile, a, DAT_INVALID_ARG5, pdata, &addr,
				       &ep, status);
	if (err)
		return err < 0 ? err : 0;
	*status = kdapl_ep_connect(&ufile->owner, ep->handle,
				   (struct sockaddr *)&addr, a->conn_qual,
				   a->timeout_us, a->private_data_size,
				   a->private_data_size ? pdata : NULL,
				   DAT_QOS_BEST_EFFORT, a->connect_flags);
	return 0;
}

/**
 * kdapl_uconn_ep_common_connect() - KDAPL_IOC_EP_COMMON_CONNECT
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_connect, with conn_qual and connect_flags 0
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0, -EINVAL for a qualifier or flags given, or -EFAULT for
 * private data that cannot be read.
 */
int kdapl_uconn_ep_common_connect(struct kdapl_ufile *ufile, void *arg,
				  DAT_RETURN *status)
{
	struct kdapl_ioc_ep_connect *a = arg;
	u8 pdata[KDAPL_PRIVATE_DATA_MAX];
	struct sockaddr_storage addr;
	struct kdapl_uobj *ep;
	int err;

	if (a->conn_qual || a->connect_flags)
		return -EINVAL;
	err = kdapl_uconn_connect_args(ufile, a, DAT_INVALID_ARG4, pdata, &addr,
				       &ep, status);
	if (err)
		return err < 0 ? err : 0;
	*status = kdapl_ep_common_connect(&ufile->owner, ep->handle,
					  (struct sockaddr *)&addr,
					  a->timeout_us, a->private_data_size,
					  a->private_data_size ? pdata : NULL);
	return 0;
}

/**
 * kdapl_uconn_ep_dup_connect() - KDAPL_IOC_EP_DUP_CONNECT
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_dup_connect
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EFAULT for private data that cannot be read.
 */
int kdapl_uconn_ep_dup_connect(struct kdapl_ufile *ufile, void *arg,
			       DAT_RETURN *status)
{
	struct kdapl_ioc_ep_dup_connect *a = arg;
	u8 pdata[KDAPL_PRIVATE_DATA_MAX];
	struct kdapl_uobj *ep, *dup;
	int err;

	ep = kdapl_uobj_find(ufile, a->ep_id, DAT_HANDLE_TYPE_EP);
	dup = kdapl_uobj_find(ufile, a->dup_ep_id, DAT_HANDLE_TYPE_EP);
	if (!ep || !dup) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		return 0;
	}
	err = kdapl_uconn_pdata(a->private_data, a->private_data_size, pdata,
				status, DAT_INVALID_ARG4);
	if (err)
		return err < 0 ? err : 0;
	*status = kdapl_ep_dup_connect(&ufile->owner, ep->handle, dup->handle,
				       a->timeout_us, a->private_data_size,
				       a->private_data_size ? pdata : NULL,
				       DAT_QOS_BEST_EFFORT);
	return 0;
}

/**
 * kdapl_uconn_ep_disconnect() - KDAPL_IOC_EP_DISCONNECT
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free (the EP, and DAT_CLOSE_FLAGS)
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_ep_disconnect(struct kdapl_ufile *ufile, void *arg,
			      DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;
	struct kdapl_uobj *ep;

	ep = kdapl_uconn_ep(ufile, a->id, status);
	if (ep)
		*status = kdapl_ep_disconnect(&ufile->owner, ep->handle,
					      a->flags);
	return 0;
}

/**
 * kdapl_uconn_ep_reset() - KDAPL_IOC_EP_RESET
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free (the EP; flags zero)
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero flags.
 */
int kdapl_uconn_ep_reset(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;
	struct kdapl_uobj *ep;

	if (a->flags)
		return -EINVAL;
	ep = kdapl_uconn_ep(ufile, a->id, status);
	if (ep)
		*status = kdapl_ep_reset(&ufile->owner, ep->handle);
	return 0;
}

/**
 * kdapl_uconn_ep_get_status() - KDAPL_IOC_EP_GET_STATUS
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_get_status
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_ep_get_status(struct kdapl_ufile *ufile, void *arg,
			      DAT_RETURN *status)
{
	struct kdapl_ioc_ep_get_status *a = arg;
	DAT_BOOLEAN recv_idle, request_idle;
	struct kdapl_uobj *ep;
	DAT_EP_STATE state;

	ep = kdapl_uconn_ep(ufile, a->ep_id, status);
	if (!ep)
		return 0;
	*status = kdapl_ep_get_status(&ufile->owner, ep->handle, &state,
				      &recv_idle, &request_idle);
	if (*status == DAT_SUCCESS) {
		a->state = state;
		a->recv_idle = recv_idle;
		a->request_idle = request_idle;
	}
	return 0;
}

static void kdapl_uconn_attr_out(const DAT_EP_ATTR *a,
				 struct kdapl_ioc_ep_attr *u)
{
	u->service_type = a->service_type;
	u->qos = a->qos;
	u->max_message_size = a->max_message_size;
	u->max_rdma_size = a->max_rdma_size;
	u->recv_completion_flags = a->recv_completion_flags;
	u->request_completion_flags = a->request_completion_flags;
	u->max_recv_dtos = a->max_recv_dtos;
	u->max_request_dtos = a->max_request_dtos;
	u->max_recv_iov = a->max_recv_iov;
	u->max_request_iov = a->max_request_iov;
	u->max_rdma_read_in = a->max_rdma_read_in;
	u->max_rdma_read_out = a->max_rdma_read_out;
	u->srq_soft_hw = a->srq_soft_hw;
	u->max_rdma_read_iov = a->max_rdma_read_iov;
	u->max_rdma_write_iov = a->max_rdma_write_iov;
}

/**
 * kdapl_uconn_ep_query() - KDAPL_IOC_EP_QUERY
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_query
 * @status: out: the DAT_RETURN
 *
 * The handles of DAT_EP_PARAM are the process's own, which the shim
 * keeps; this gives what only the kernel knows.
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -ENOMEM.
 */
int kdapl_uconn_ep_query(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status)
{
	struct kdapl_ioc_ep_query *a = arg;
	struct kdapl_uobj *uobj;
	struct kdapl_ep *ep;
	DAT_EP_PARAM *p;

	uobj = kdapl_uobj_find(ufile, a->ep_id, DAT_HANDLE_TYPE_EP);
	*status = uobj ? kdapl_get(&ufile->owner, uobj->handle, EP,
				   DAT_INVALID_HANDLE_EP, &ep) :
			 dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (*status)
		return 0;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		kdapl_object_put(&ep->obj);
		return -ENOMEM;
	}
	/* The reference keeps the addresses the query points to. */
	*status = kdapl_ep_query(&ufile->owner, uobj->handle, DAT_EP_FIELD_ALL,
				 p);
	if (*status == DAT_SUCCESS) {
		a->state = p->ep_state;
		kdapl_uconn_attr_out(&p->ep_attr, &a->attr);
		memcpy(a->local_addr, p->local_ia_address_ptr,
		       min(sizeof(a->local_addr), sizeof(DAT_SOCK_ADDR)));
		memcpy(a->remote_addr, p->remote_ia_address_ptr,
		       min(sizeof(a->remote_addr), sizeof(DAT_SOCK_ADDR)));
		a->local_port_qual = p->local_port_qual;
		a->remote_port_qual = p->remote_port_qual;
	}
	kfree(p);
	kdapl_object_put(&ep->obj);
	return 0;
}

/*
 * Create a PSP of the file on *@qual, or with @any on a free qualifier
 * that goes to *@qual; its object's id goes to *@psp_id.
 */
static DAT_RETURN kdapl_uconn_psp(struct kdapl_ufile *ufile, u32 ia_id,
				  u32 evd_id, DAT_CONN_QUAL *qual, bool any,
				  DAT_PSP_FLAGS flags, u64 cookie, u32 *psp_id)
{
	struct kdapl_uobj *ia, *uobj;
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_RETURN ret;

	ia = kdapl_uobj_find(ufile, ia_id, DAT_HANDLE_TYPE_IA);
	if (!ia)
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	ret = kdapl_uconn_evd(ufile, evd_id, DAT_INVALID_HANDLE_EVD_CR, &evd);
	if (ret)
		return ret;
	if (any)
		ret = kdapl_psp_create_any(&ufile->owner, ia->handle, qual,
					   evd, flags, &psp);
	else
		ret = kdapl_psp_create(&ufile->owner, ia->handle, *qual, evd,
				       flags, &psp);
	if (ret)
		return ret;
	ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_PSP, psp, cookie, ia->id,
			     &uobj);
	if (ret)
		kdapl_psp_free(&ufile->owner, psp);
	else
		*psp_id = uobj->id;
	return ret;
}

/**
 * kdapl_uconn_psp_create() - KDAPL_IOC_PSP_CREATE
 * @ufile: the file
 * @arg: struct kdapl_ioc_psp_create
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_psp_create(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status)
{
	struct kdapl_ioc_psp_create *a = arg;
	DAT_CONN_QUAL qual = a->conn_qual;

	if (a->reserved || a->reserved2)
		return -EINVAL;
	*status = kdapl_uconn_psp(ufile, a->ia_id, a->evd_id, &qual, false,
				  a->flags, a->cookie, &a->psp_id);
	return 0;
}

/**
 * kdapl_uconn_psp_create_any() - KDAPL_IOC_PSP_CREATE_ANY
 * @ufile: the file
 * @arg: struct kdapl_ioc_psp_create, whose conn_qual is an output
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_psp_create_any(struct kdapl_ufile *ufile, void *arg,
			       DAT_RETURN *status)
{
	struct kdapl_ioc_psp_create *a = arg;
	DAT_CONN_QUAL qual = 0;

	if (a->reserved || a->reserved2)
		return -EINVAL;
	*status = kdapl_uconn_psp(ufile, a->ia_id, a->evd_id, &qual, true,
				  a->flags, a->cookie, &a->psp_id);
	if (*status == DAT_SUCCESS)
		a->conn_qual = qual;
	return 0;
}

/* Accept (@ep given) or reject a CR; the CR's object goes on success. */
static int kdapl_uconn_cr_reply(struct kdapl_ufile *ufile,
				struct kdapl_ioc_cr_reply *a, bool accept,
				DAT_RETURN *status)
{
	u8 pdata[KDAPL_PRIVATE_DATA_MAX];
	struct kdapl_uobj *cr, *ep = NULL;
	int err;

	if (a->reserved || (!accept && a->ep_id))
		return -EINVAL;
	cr = kdapl_uobj_find(ufile, a->cr_id, DAT_HANDLE_TYPE_CR);
	/* No EP: the one the RSP of the request reserved. */
	if (accept && cr && a->ep_id)
		ep = kdapl_uobj_find(ufile, a->ep_id, DAT_HANDLE_TYPE_EP);
	if (!cr || (accept && a->ep_id && !ep)) {
		*status = dat_error(DAT_INVALID_HANDLE, cr ?
				    DAT_INVALID_HANDLE_EP :
				    DAT_INVALID_HANDLE_CR);
		return 0;
	}
	err = kdapl_uconn_pdata(a->private_data, a->private_data_size, pdata,
				status, accept ? DAT_INVALID_ARG3 :
						 DAT_INVALID_ARG2);
	if (err)
		return err < 0 ? err : 0;
	if (accept)
		*status = kdapl_cr_accept(&ufile->owner, cr->handle,
					  ep ? ep->handle : DAT_HANDLE_NULL,
					  a->private_data_size,
					  a->private_data_size ? pdata : NULL);
	else
		*status = kdapl_cr_reject(&ufile->owner, cr->handle,
					  a->private_data_size,
					  a->private_data_size ? pdata : NULL);
	if (*status == DAT_SUCCESS)
		kdapl_uobj_destroy(ufile, cr);
	return 0;
}

/**
 * kdapl_uconn_cr_accept() - KDAPL_IOC_CR_ACCEPT
 * @ufile: the file
 * @arg: struct kdapl_ioc_cr_reply
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EFAULT for private data that cannot be read.
 */
int kdapl_uconn_cr_accept(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status)
{
	return kdapl_uconn_cr_reply(ufile, arg, true, status);
}

/**
 * kdapl_uconn_cr_reject() - KDAPL_IOC_CR_REJECT
 * @ufile: the file
 * @arg: struct kdapl_ioc_cr_reply
 * @status: out: the DAT_RETURN
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EFAULT for private data that cannot be read.
 */
int kdapl_uconn_cr_reject(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status)
{
	return kdapl_uconn_cr_reply(ufile, arg, false, status);
}

/**
 * kdapl_uconn_cr_handoff() - KDAPL_IOC_CR_HANDOFF
 * @ufile: the file
 * @arg: struct kdapl_ioc_cr_handoff
 * @status: out: the DAT_RETURN
 *
 * DAT destroys the CR handed off: its object goes here, and the request
 * event on the other PSP's EVD brings the kDAT CR back under a new id
 * (kdapl_uring_fill_cr(), which may run before or after this returns).
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for a non-zero reserved field.
 */
int kdapl_uconn_cr_handoff(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status)
{
	struct kdapl_ioc_cr_handoff *a = arg;
	struct kdapl_uobj *cr;

	if (a->reserved)
		return -EINVAL;

	cr = kdapl_uobj_find(ufile, a->cr_id, DAT_HANDLE_TYPE_CR);
	if (!cr) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
		return 0;
	}
	*status = kdapl_cr_handoff(&ufile->owner, cr->handle, a->conn_qual);
	if (*status == DAT_SUCCESS)
		kdapl_uobj_destroy(ufile, cr);
	return 0;
}

/**
 * kdapl_uconn_ud_ah_free() - KDAPL_IOC_UD_AH_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_ud_free
 * @status: out: the DAT_RETURN
 *
 * The file's datagram EPs name their address handles by id (see
 * kdapl_ud.c), which DAT_IB_ADDR_HANDLE.ah carries in the pointer's
 * place.
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_ud_ah_free(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status)
{
	struct kdapl_ioc_ud_free *a = arg;
	DAT_IB_ADDR_HANDLE remote = {
		.ah = (struct kdapl_ud_ah *)(uintptr_t)a->id,
	};
	struct kdapl_uobj *ep;

	ep = kdapl_uconn_ep(ufile, a->ep_id, status);
	if (ep)
		*status = kdapl_ep_ud_ah_free(&ufile->owner, ep->handle, &remote);
	return 0;
}

/**
 * kdapl_uconn_ud_cm_free() - KDAPL_IOC_UD_CM_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_ud_free
 * @status: out: the DAT_RETURN
 *
 * As kdapl_uconn_ud_ah_free(), for a resolution, named by the id its
 * DAT_CONTEXT carries.
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uconn_ud_cm_free(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status)
{
	struct kdapl_ioc_ud_free *a = arg;
	DAT_CONTEXT cm = { .as_64 = a->id };
	struct kdapl_uobj *ep;

	ep = kdapl_uconn_ep(ufile, a->ep_id, status);
	if (ep)
		*status = kdapl_ep_ud_cm_free(&ufile->owner, ep->handle, cm);
	return 0;
}
