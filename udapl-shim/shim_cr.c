// SPDX-License-Identifier: GPL-2.0
/*
 * Service points (public, reserved and common) and connection requests.  A connection request
 * event brings a CR the kernel made an object of the IA's file; the shim
 * gives it a handle when it turns the event into a DAT_EVENT
 * (shim_cr_from_event()), and the handle goes when the CR is accepted or
 * rejected.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include "shim.h"

/*
 * A PSP on *@qual, or with @any on a qualifier the kernel picks, which
 * goes to *@qual.
 */
static DAT_RETURN shim_psp_new(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL *qual,
			       bool any, DAT_EVD_HANDLE evd_handle,
			       DAT_PSP_FLAGS flags, DAT_PSP_HANDLE *psp_handle)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct shim_obj *evd = shim_obj_get(evd_handle, DAT_HANDLE_TYPE_EVD);
	struct kdapl_ioc_psp_create c = { 0 };
	struct shim_sp *sp;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!evd || evd->ia != ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
	if (!psp_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	sp = shim_obj_new(sizeof(*sp), DAT_HANDLE_TYPE_PSP, ia);
	if (!sp)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	c.ia_id = ia->obj.id;
	c.evd_id = evd->id;
	c.conn_qual = any ? 0 : *qual;
	c.flags = flags;
	c.cookie = (uintptr_t)sp;
	if (any)
		ret = SHIM_CALL(ia, PSP_CREATE_ANY, c);
	else
		ret = SHIM_CALL(ia, PSP_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&sp->obj);
		return ret;
	}
	sp->obj.id = c.psp_id;
	sp->qual = c.conn_qual;
	sp->evd = evd_handle;
	sp->flags = flags;
	*qual = c.conn_qual;
	*psp_handle = (DAT_PSP_HANDLE)sp;
	return DAT_SUCCESS;
}

DAT_RETURN shim_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL qual,
			   DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS flags,
			   DAT_PSP_HANDLE *psp_handle)
{
	return shim_psp_new(ia_handle, &qual, false, evd_handle, flags,
			    psp_handle);
}

DAT_RETURN shim_psp_create_any(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL *qual,
			       DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS flags,
			       DAT_PSP_HANDLE *psp_handle)
{
	if (!qual)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return shim_psp_new(ia_handle, qual, true, evd_handle, flags,
			    psp_handle);
}

DAT_RETURN shim_psp_query(DAT_PSP_HANDLE handle, DAT_PSP_PARAM_MASK mask,
			  DAT_PSP_PARAM *param)
{
	struct shim_sp *sp = (struct shim_sp *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_PSP);

	if (!sp)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	(void)mask;
	param->ia_handle = shim_consumer_ia_handle(sp->obj.ia);
	param->conn_qual = sp->qual;
	param->evd_handle = sp->evd;
	param->psp_flags = sp->flags;
	return DAT_SUCCESS;
}

DAT_RETURN shim_psp_free(DAT_PSP_HANDLE handle)
{
	return shim_obj_destroy(handle, DAT_HANDLE_TYPE_PSP,
				DAT_INVALID_HANDLE_PSP, KDAPL_IOC_PSP_FREE);
}

/* The bytes of a CSP's address; 0 for a family no CSP listens on. */
static size_t shim_csp_addr_len(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (addr->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

/*
 * A CSP listens where the address says, port included; the kernel
 * checks the communicator and the address (dat_csp_create()).
 */
DAT_RETURN shim_csp_create(DAT_IA_HANDLE ia_handle, DAT_COMM *comm,
			   DAT_IA_ADDRESS_PTR addr, DAT_EVD_HANDLE evd_handle,
			   DAT_CSP_HANDLE *csp_handle)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct kdapl_ioc_csp_create c = { 0 };
	struct shim_sp *sp;
	DAT_RETURN ret;

	if (!comm)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!addr)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!csp_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (ia->max_command <= KDAPL_NR_CSP_FREE)
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	sp = shim_obj_new(sizeof(*sp), DAT_HANDLE_TYPE_CSP, ia);
	if (!sp)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	sp->comm = *comm;
	/* Another family goes as its family alone, for the kernel to refuse. */
	memcpy(&sp->addr, addr, shim_csp_addr_len(addr) ?:
				sizeof(addr->sa_family));
	c.ia_id = ia->obj.id;
	c.evd_id = shim_obj_id(evd_handle, DAT_HANDLE_TYPE_EVD, ia);
	c.domain = comm->domain;
	c.type = comm->type;
	c.protocol = comm->protocol;
	memcpy(c.addr, &sp->addr, sizeof(c.addr));
	c.cookie = (uintptr_t)sp;
	ret = SHIM_CALL(ia, CSP_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&sp->obj);
		return ret;
	}
	sp->obj.id = c.csp_id;
	sp->evd = evd_handle;
	*csp_handle = (DAT_CSP_HANDLE)sp;
	return DAT_SUCCESS;
}

DAT_RETURN shim_csp_query(DAT_CSP_HANDLE handle, DAT_CSP_PARAM_MASK mask,
			  DAT_CSP_PARAM *param)
{
	struct shim_sp *sp = (struct shim_sp *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_CSP);

	if (!sp)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP);
	if (mask & ~DAT_CSP_FIELD_ALL)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	param->ia_handle = shim_consumer_ia_handle(sp->obj.ia);
	param->comm = &sp->comm;
	param->address_ptr = (DAT_IA_ADDRESS_PTR)&sp->addr;
	param->evd_handle = sp->evd;
	return DAT_SUCCESS;
}

DAT_RETURN shim_csp_free(DAT_CSP_HANDLE handle)
{
	return shim_obj_destroy(handle, DAT_HANDLE_TYPE_CSP,
				DAT_INVALID_HANDLE_CSP, KDAPL_IOC_CSP_FREE);
}

DAT_RETURN shim_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL qual,
			   DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			   DAT_RSP_HANDLE *rsp_handle)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct shim_obj *evd = shim_obj_get(evd_handle, DAT_HANDLE_TYPE_EVD);
	struct shim_obj *ep = shim_obj_get(ep_handle, DAT_HANDLE_TYPE_EP);
	struct kdapl_ioc_rsp_create c = { 0 };
	struct shim_sp *sp;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!ep || ep->ia != ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!evd || evd->ia != ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
	if (!rsp_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	sp = shim_obj_new(sizeof(*sp), DAT_HANDLE_TYPE_RSP, ia);
	if (!sp)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	c.ia_id = ia->obj.id;
	c.ep_id = ep->id;
	c.evd_id = evd->id;
	c.conn_qual = qual;
	c.cookie = (uintptr_t)sp;
	ret = SHIM_CALL(ia, RSP_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&sp->obj);
		return ret;
	}
	sp->obj.id = c.rsp_id;
	sp->qual = qual;
	sp->evd = evd_handle;
	sp->ep = ep_handle;
	*rsp_handle = (DAT_RSP_HANDLE)sp;
	return DAT_SUCCESS;
}

DAT_RETURN shim_rsp_query(DAT_RSP_HANDLE handle, DAT_RSP_PARAM_MASK mask,
			  DAT_RSP_PARAM *param)
{
	struct shim_sp *sp = (struct shim_sp *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_RSP);

	if (!sp)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP);
	if (mask & ~DAT_RSP_FIELD_ALL)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	param->ia_handle = shim_consumer_ia_handle(sp->obj.ia);
	param->conn_qual = sp->qual;
	param->evd_handle = sp->evd;
	param->ep_handle = sp->ep;
	return DAT_SUCCESS;
}

DAT_RETURN shim_rsp_free(DAT_RSP_HANDLE handle)
{
	return shim_obj_destroy(handle, DAT_HANDLE_TYPE_RSP,
				DAT_INVALID_HANDLE_RSP, KDAPL_IOC_RSP_FREE);
}

/**
 * shim_cr_from_event() - the handle of the CR a request event brings
 * @ia: the IA of the event's EVD
 * @u: the event; new_id is the CR's id in the IA's file (0: the kernel
 *	had no memory)
 * @x: its extension: the peer's address and private data
 *
 * Return: the CR's handle, or DAT_HANDLE_NULL.
 */
DAT_CR_HANDLE shim_cr_from_event(struct shim_ia *ia,
				 const struct kdapl_uevent *u,
				 const struct kdapl_uevent_ext *x)
{
	struct shim_sp *rsp;
	struct shim_cr *cr;

	if (!u->new_id)
		return DAT_HANDLE_NULL;
	cr = shim_obj_new(sizeof(*cr), DAT_HANDLE_TYPE_CR, ia);
	if (!cr)
		return DAT_HANDLE_NULL;
	cr->obj.id = u->new_id;
	cr->remote_port = u->data[1];
	rsp = (struct shim_sp *)shim_obj_get((DAT_HANDLE)(uintptr_t)u->cookie,
					     DAT_HANDLE_TYPE_RSP);
	if (rsp)
		cr->ep = rsp->ep;
	if (x) {
		memcpy(&cr->remote_addr, x->addr, sizeof(x->addr));
		cr->pdata_size = u->length <= sizeof(cr->pdata) ?
				 u->length : 0;
		memcpy(cr->pdata, x->private_data, cr->pdata_size);
	}
	return (DAT_CR_HANDLE)cr;
}

DAT_RETURN shim_cr_query(DAT_CR_HANDLE handle, DAT_CR_PARAM_MASK mask,
			 DAT_CR_PARAM *param)
{
	struct shim_cr *cr = (struct shim_cr *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_CR);

	if (!cr)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (mask && !param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!mask)
		return DAT_SUCCESS;
	param->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&cr->remote_addr;
	param->remote_port_qual = cr->remote_port;
	param->private_data_size = cr->pdata_size;
	param->private_data = cr->pdata_size ? cr->pdata : NULL;
	/* An RSP's EP, or none: a PSP never creates one. */
	param->local_ep_handle = cr->ep;
	return DAT_SUCCESS;
}

/* Accept (@ep given) or reject; the CR's handle goes on success. */
static DAT_RETURN shim_cr_reply(DAT_CR_HANDLE handle, struct shim_obj *ep,
				DAT_COUNT size, const DAT_PVOID pdata,
				unsigned long cmd)
{
	struct shim_obj *cr = shim_obj_get(handle, DAT_HANDLE_TYPE_CR);
	struct kdapl_ioc_cr_reply r = { 0 };
	DAT_RETURN ret;

	if (!cr)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (size < 0 || (size && !pdata))
		return SHIM_ERR(DAT_INVALID_PARAMETER,
				cmd == KDAPL_IOC_CR_ACCEPT ?
				DAT_INVALID_ARG4 : DAT_INVALID_ARG3);
	r.cr_id = cr->id;
	r.ep_id = ep ? ep->id : 0;
	r.private_data = (uintptr_t)pdata;
	r.private_data_size = size;
	ret = shim_dev_call(cr->ia->fd, cmd, &r, sizeof(r));
	if (ret == DAT_SUCCESS)
		shim_obj_free(cr);
	return ret;
}

DAT_RETURN shim_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep_handle,
			  DAT_COUNT size, const DAT_PVOID pdata)
{
	struct shim_cr *c = (struct shim_cr *)shim_obj_get(cr,
							  DAT_HANDLE_TYPE_CR);
	struct shim_obj *ep = shim_obj_get(ep_handle, DAT_HANDLE_TYPE_EP);

	/*
	 * No EP: the one an RSP reserved (the kernel's, for id 0).  An EP
	 * a PSP would create is not supported (ep_creator NEVER).
	 */
	if (!ep && !(ep_handle == DAT_HANDLE_NULL && c && c->ep))
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	return shim_cr_reply(cr, ep, size, pdata, KDAPL_IOC_CR_ACCEPT);
}

DAT_RETURN shim_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT size,
			  const DAT_PVOID pdata)
{
	return shim_cr_reply(cr, NULL, size, pdata, KDAPL_IOC_CR_REJECT);
}

/*
 * The CR's handle goes on success: the request comes again, with a new
 * handle, to the EVD of the PSP on @qual.
 */
DAT_RETURN shim_cr_handoff(DAT_CR_HANDLE handle, DAT_CONN_QUAL qual)
{
	struct shim_obj *cr = shim_obj_get(handle, DAT_HANDLE_TYPE_CR);
	struct kdapl_ioc_cr_handoff h = { .conn_qual = qual };
	DAT_RETURN ret;

	if (!cr)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	h.cr_id = cr->id;
	ret = SHIM_CALL(cr->ia, CR_HANDOFF, h);
	if (ret == DAT_SUCCESS)
		shim_obj_free(cr);
	return ret;
}
