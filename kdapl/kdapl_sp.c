// SPDX-License-Identifier: GPL-2.0
/*
 * Service Points: where connection requests arrive.
 *
 * A Public Service Point (PSP) listens on a connection qualifier, a port
 * of rdma_cm's RDMA_PS_TCP space on the IA's own address, so that only
 * the IA's device takes its requests.  Every request becomes a Connection
 * Request object (kdapl_cr.c) reported on the SP's EVD.  A Reserved
 * Service Point (RSP) does the same for one request only, which it binds
 * to the EP reserved with it.
 *
 * Locking: dat_psp_create(), dat_rsp_create() and the frees run under the
 * IA lock.  The rdma_cm handler of the listener, kdapl_sp_cm_event(),
 * never takes it (see kdapl_cm_handler()): it only allocates the CR and
 * queues its publication, so rdma_destroy_id() of the listener may wait
 * for the handler with the IA lock held.  sp->lock (a spinlock) guards
 * the flags the handler and the CR work read.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "kdapl.h"

/* Requests rdma_cm queues on a listener before they are handled. */
#define KDAPL_SP_BACKLOG	128

static DAT_RETURN kdapl_sp_errno(int err)
{
	switch (err) {
	case -EADDRINUSE:
		return dat_error(DAT_CONN_QUAL_IN_USE, DAT_NO_SUBTYPE);
	case -EACCES:
		/* A port below 1024 without CAP_NET_BIND_SERVICE. */
		return dat_error(DAT_CONN_QUAL_UNAVAILABLE, DAT_NO_SUBTYPE);
	case -ENOMEM:
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	case -EADDRNOTAVAIL:
	case -ENODEV:
	case -EXDEV:
		/* The IA's address went away, or to another device. */
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	default:
		return dat_error(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	}
}

/* Listen on @port of @addr in rdma_cm's port space @ps; IA lock held. */
static struct rdma_cm_id *kdapl_sp_listen_ps(struct kdapl_sp *sp,
					     DAT_SOCK_ADDR *addr, u16 port,
					     enum rdma_ucm_port_space ps,
					     enum ib_qp_type qp_type)
{
	struct rdma_cm_id *id;
	int ret;

	kdapl_sockaddr_set_port((struct sockaddr *)addr, port);
	id = rdma_create_id(&init_net, kdapl_cm_handler, &sp->ctx, ps,
			    qp_type);
	if (IS_ERR(id))
		return id;
	ret = kdapl_port_bind_addr(id, (struct sockaddr *)addr,
				   sp->obj.ia->ibdev);
	if (!ret)
		ret = rdma_listen(id, KDAPL_SP_BACKLOG);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/*
 * Listen on @port of the IA's address (0: any free port, which becomes
 * the SP's qualifier).  A PSP of an IA with datagram EPs also listens on
 * that port of rdma_cm's RDMA_PS_UDP space, for their resolution
 * requests (kdapl_ud.c).  The handler may run as soon as rdma_listen()
 * returns.  IA lock held.
 */
static int kdapl_sp_listen(struct kdapl_sp *sp, struct kdapl_ia *ia, u16 port)
{
	DAT_SOCK_ADDR addr = ia->addr;
	struct rdma_cm_id *id;

	if (addr.ss_family != AF_INET6)
		addr.ss_family = AF_INET;
	id = kdapl_sp_listen_ps(sp, &addr, port, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (!port) {
		port = kdapl_sockaddr_port((struct sockaddr *)
					   &id->route.addr.src_addr);
		sp->conn_qual = port;
	}
	if (sp->obj.type == DAT_HANDLE_TYPE_PSP &&
	    (ia->ib_ext & KDAPL_IB_EXT_UD)) {
		sp->ud_cm_id = kdapl_sp_listen_ps(sp, &addr, port, RDMA_PS_UDP,
						  IB_QPT_UD);
		if (IS_ERR(sp->ud_cm_id)) {
			rdma_destroy_id(id);
			return PTR_ERR(sp->ud_cm_id);
		}
	}
	sp->cm_id = id;
	return 0;
}

/*
 * Stop listening: requests still in flight are rejected by the CR work.
 * Waits for a running handler.  IA lock held.
 */
static void kdapl_sp_close(struct kdapl_sp *sp)
{
	unsigned long flags;

	lockdep_assert_held(&sp->obj.ia->lock);
	spin_lock_irqsave(&sp->lock, flags);
	sp->closed = true;
	spin_unlock_irqrestore(&sp->lock, flags);
	if (sp->cm_id) {
		rdma_destroy_id(sp->cm_id);
		sp->cm_id = NULL;
	}
	if (!IS_ERR_OR_NULL(sp->ud_cm_id))
		rdma_destroy_id(sp->ud_cm_id);
	sp->ud_cm_id = NULL;
}

/* Give the reserved EP of an RSP back, if no request took it.  IA lock. */
static void kdapl_sp_unreserve(struct kdapl_sp *sp)
{
	struct kdapl_ep *ep = sp->ep;
	unsigned long flags;

	if (!ep)
		return;
	sp->ep = NULL;
	spin_lock_irqsave(&ep->lock, flags);
	if (ep->state == DAT_EP_STATE_RESERVED)
		ep->state = DAT_EP_STATE_UNCONNECTED;
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_object_put(&ep->obj);
}

/*
 * Reserve @ep for an RSP: it must be unconnected and configured.  Under
 * ep->lock since the connection code moves the state without the IA lock.
 */
static DAT_RETURN kdapl_sp_reserve(struct kdapl_ep *ep)
{
	DAT_RETURN ret = DAT_SUCCESS;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (ep->state != DAT_EP_STATE_UNCONNECTED)
		ret = kdapl_ep_state_error(ep->state);
	else
		ep->state = DAT_EP_STATE_RESERVED;
	spin_unlock_irqrestore(&ep->lock, flags);
	return ret;
}

/* Remove an SP from its IA, whatever requests are pending.  IA lock. */
static void kdapl_sp_destroy(struct kdapl_sp *sp)
{
	struct kdapl_ia *ia = sp->obj.ia;

	lockdep_assert_held(&ia->lock);
	kdapl_sp_close(sp);
	kdapl_sp_unreserve(sp);
	kdapl_unuse(&sp->evd->obj);
	kdapl_ia_del_object(ia, &sp->obj);
}

/* The arguments of dat_psp_create*() and dat_rsp_create() alone. */
static DAT_RETURN kdapl_sp_args(DAT_HANDLE_TYPE type, DAT_CONN_QUAL conn_qual,
				bool any, DAT_PSP_FLAGS psp_flags,
				const DAT_CONN_QUAL *conn_qual_out,
				const DAT_HANDLE *sp_handle)
{
	if (!sp_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (any && !conn_qual_out)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!any && !conn_qual)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (type == DAT_HANDLE_TYPE_PSP && psp_flags != DAT_PSP_CONSUMER_FLAG &&
	    psp_flags != DAT_PSP_PROVIDER_FLAG)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	return DAT_SUCCESS;
}

/*
 * The IA, connection request EVD and, for an RSP, EP a service point is
 * created with, with a reference each; none on failure.
 */
static DAT_RETURN kdapl_sp_lookup(struct kdapl_owner *owner,
				  DAT_HANDLE_TYPE type,
				  DAT_IA_HANDLE ia_handle,
				  DAT_EVD_HANDLE evd_handle,
				  DAT_EP_HANDLE ep_handle,
				  struct kdapl_ia **iap, struct kdapl_evd **evdp,
				  struct kdapl_ep **epp)
{
	struct kdapl_ep *ep = NULL;
	struct kdapl_evd *evd;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;
	ret = kdapl_get(owner, evd_handle, EVD, DAT_INVALID_HANDLE_EVD_CR,
			&evd);
	if (ret)
		goto put_ia;
	if (evd->obj.ia != ia || !(evd->flags & DAT_EVD_CR_FLAG)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
		goto put_evd;
	}
	if (type == DAT_HANDLE_TYPE_RSP) {
		ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP,
				&ep);
		if (ret)
			goto put_evd;
		if (ep->obj.ia != ia) {
			kdapl_object_put(&ep->obj);
			ret = dat_error(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EP);
			goto put_evd;
		}
	}
	*iap = ia;
	*evdp = evd;
	*epp = ep;
	return DAT_SUCCESS;

put_evd:
	kdapl_object_put(&evd->obj);
put_ia:
	kdapl_object_put(&ia->obj);
	return ret;
}

/*
 * Are the IA, @evd and @ep still there?  Then reserve @ep (an RSP's) for
 * @sp, which takes its reference.  IA lock held.
 */
static DAT_RETURN kdapl_sp_attach(struct kdapl_sp *sp, struct kdapl_ia *ia,
				  struct kdapl_evd *evd, struct kdapl_ep *ep)
{
	DAT_RETURN ret;

	lockdep_assert_held(&ia->lock);
	if (ia->closing || !ia->ibdev)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	/* Freed EVDs and EPs are no longer objects of the IA. */
	if (list_empty(&evd->obj.ia_entry))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
	if (!ep)
		return DAT_SUCCESS;
	if (list_empty(&ep->obj.ia_entry))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	ret = kdapl_sp_reserve(ep);
	if (!ret)
		sp->ep = ep;
	return ret;
}

/* The port a new SP listens on: a CSP's as given, a qualifier's folded. */
static u16 kdapl_sp_port(const struct kdapl_sp *csp, DAT_CONN_QUAL conn_qual,
			 bool any)
{
	if (any)
		return 0;
	if (csp)
		return kdapl_sockaddr_port((const struct sockaddr *)
					   &csp->address);
	return kdapl_conn_qual_port(conn_qual);
}

/**
 * kdapl_sp_create() - create a service point
 * @owner: who calls
 * @type: DAT_HANDLE_TYPE_PSP, _RSP or _CSP
 * @ia_handle: the IA
 * @conn_qual: the connection qualifier (a CSP's port)
 * @any: pick a free qualifier and store it in *@conn_qual_out
 * @ep_handle: the EP an RSP reserves; unused otherwise
 * @evd_handle: the EVD of the connection requests
 * @psp_flags: DAT_PSP_* flags of a PSP
 * @csp: for a CSP, its communicator and address (the port is listened
 *	on as it is); NULL otherwise
 * @conn_qual_out: see @any
 * @sp_handle: out: the new SP
 *
 * Context: process context, may sleep.
 * Return: as dat_psp_create(), dat_rsp_create() and dat_csp_create().
 */
DAT_RETURN kdapl_sp_create(struct kdapl_owner *owner, DAT_HANDLE_TYPE type,
			   DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			   bool any, DAT_EP_HANDLE ep_handle,
			   DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			   const struct kdapl_sp *csp,
			   DAT_CONN_QUAL *conn_qual_out, DAT_HANDLE *sp_handle)
{
	struct kdapl_evd *evd;
	struct kdapl_ep *ep;
	struct kdapl_ia *ia;
	struct kdapl_sp *sp;
	DAT_HANDLE handle;
	DAT_RETURN ret;
	int err;

	ret = kdapl_sp_args(type, conn_qual, any, psp_flags, conn_qual_out,
			    sp_handle);
	if (ret)
		return ret;
	ret = kdapl_sp_lookup(owner, type, ia_handle, evd_handle, ep_handle,
			      &ia, &evd, &ep);
	if (ret)
		return ret;
	if (csp && !kdapl_csp_local(ia, (const struct sockaddr *)
				    &csp->address)) {
		ret = dat_error(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNSUPPORTED);
		goto put_evd;
	}

	sp = kzalloc(sizeof(*sp), GFP_KERNEL_ACCOUNT);
	if (!sp) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto put_ep;
	}
	kdapl_object_init(&sp->obj, type, ia);
	sp->ctx.kind = KDAPL_CM_SP;
	spin_lock_init(&sp->lock);
	sp->flags = psp_flags;
	if (csp) {
		sp->comm = csp->comm;
		sp->address = csp->address;
	}

	mutex_lock(&ia->lock);
	ret = kdapl_sp_attach(sp, ia, evd, ep);
	if (ret)
		goto unlock;
	if (kdapl_object_publish(&sp->obj)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto unreserve;
	}
	sp->conn_qual = conn_qual;
	err = kdapl_sp_listen(sp, ia, kdapl_sp_port(csp, conn_qual, any));
	if (err) {
		ret = kdapl_sp_errno(err);
		kdapl_sp_unreserve(sp);
		mutex_unlock(&ia->lock);
		/* Drops the last reference: nothing else saw the SP. */
		kdapl_object_unpublish(&sp->obj);
		goto put_evd;
	}
	sp->evd = evd;
	kdapl_use(&evd->obj);
	kdapl_ia_add_object(ia, &sp->obj);
	kdapl_ia_count(ia, DCNT_IA_CM_LISTEN);
	handle = kdapl_object_handle(&sp->obj);
	if (any) {
		*conn_qual_out = sp->conn_qual;
		kdapl_ia_count(ia, DCNT_IA_PSP_CREATE_ANY);
	}
	mutex_unlock(&ia->lock);

	/* The SP keeps the references of the EVD and EP lookups. */
	*sp_handle = handle;
	kdapl_object_put(&ia->obj);
	return DAT_SUCCESS;

unreserve:
	kdapl_sp_unreserve(sp);
	ep = NULL;	/* its reference went with the reservation */
unlock:
	mutex_unlock(&ia->lock);
	kfree(sp);
put_ep:
	if (ep)
		kdapl_object_put(&ep->obj);
put_evd:
	kdapl_object_put(&evd->obj);
	kdapl_object_put(&ia->obj);
	return ret;
}

/**
 * kdapl_psp_create() - dat_psp_create() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_psp_create()
 * @conn_qual: as for dat_psp_create()
 * @evd_handle: as for dat_psp_create()
 * @psp_flags: as for dat_psp_create()
 * @psp_handle: as for dat_psp_create()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_psp_create().
 * Return: as dat_psp_create().
 */
DAT_RETURN kdapl_psp_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    DAT_CONN_QUAL conn_qual, DAT_EVD_HANDLE evd_handle,
			    DAT_PSP_FLAGS psp_flags, DAT_PSP_HANDLE *psp_handle)
{
	return kdapl_sp_create(owner, DAT_HANDLE_TYPE_PSP, ia_handle, conn_qual,
			       false, DAT_HANDLE_NULL, evd_handle, psp_flags,
			       NULL, NULL, psp_handle);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_psp_create);

/**
 * dat_psp_create() - listen for connection requests on a qualifier
 * @ia_handle: the IA; requests to its address and @conn_qual arrive here
 * @conn_qual: the connection qualifier, not 0: a port of rdma_cm's TCP
 *	port space, 1 to 65535, or a larger value folded into one
 *	(kdapl_conn_qual_port())
 * @evd_handle: EVD of the IA with DAT_EVD_CR_FLAG; every request is
 *	reported there as a DAT_CONNECTION_REQUEST_EVENT carrying a CR
 * @psp_flags: DAT_PSP_CONSUMER_FLAG (the consumer gives an EP to
 *	dat_cr_accept()) or DAT_PSP_PROVIDER_FLAG (kdapl creates an
 *	unconfigured EP per request, in the CR's local_ep_handle)
 * @psp_handle: out: the PSP
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - listening.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @conn_qual is 0.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG4 - unknown @psp_flags.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG5 - @psp_handle is NULL.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_IA - bad @ia_handle.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EVD_CR - @evd_handle is not
 *   an EVD of the IA taking connection requests.
 * * %DAT_CONN_QUAL_IN_USE - something listens on @conn_qual (or on its
 *   port) already.
 * * %DAT_INVALID_STATE - the IA is closing or lost its device.
 * * %DAT_INSUFFICIENT_RESOURCES | %DAT_RESOURCE_MEMORY - out of memory.
 * * %DAT_INTERNAL_ERROR - rdma_cm refused for another reason.
 */
DAT_RETURN dat_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			  DAT_PSP_HANDLE *psp_handle)
{
	return kdapl_psp_create(&kdapl_kernel_owner, ia_handle, conn_qual,
				evd_handle, psp_flags, psp_handle);
}
EXPORT_SYMBOL_GPL(dat_psp_create);

/**
 * kdapl_psp_create_any() - dat_psp_create_any() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_psp_create_any()
 * @conn_qual: as for dat_psp_create_any()
 * @evd_handle: as for dat_psp_create_any()
 * @psp_flags: as for dat_psp_create_any()
 * @psp_handle: as for dat_psp_create_any()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_psp_create_any().
 * Return: as dat_psp_create_any().
 */
DAT_RETURN kdapl_psp_create_any(struct kdapl_owner *owner,
				DAT_IA_HANDLE ia_handle,
				DAT_CONN_QUAL *conn_qual,
				DAT_EVD_HANDLE evd_handle,
				DAT_PSP_FLAGS psp_flags,
				DAT_PSP_HANDLE *psp_handle)
{
	return kdapl_sp_create(owner, DAT_HANDLE_TYPE_PSP, ia_handle, 0, true,
			       DAT_HANDLE_NULL, evd_handle, psp_flags, NULL,
			       conn_qual, psp_handle);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_psp_create_any);

/**
 * dat_psp_create_any() - listen on a connection qualifier kdapl picks
 * @ia_handle: the IA
 * @conn_qual: out: the qualifier chosen, a free port
 * @evd_handle: EVD of the IA with DAT_EVD_CR_FLAG
 * @psp_flags: as for dat_psp_create()
 * @psp_handle: out: the PSP
 *
 * Context: process context, may sleep.
 * Return: as dat_psp_create(), except that %DAT_INVALID_PARAMETER |
 * %DAT_INVALID_ARG2 means @conn_qual is NULL, and %DAT_CONN_QUAL_IN_USE
 * cannot happen (%DAT_INTERNAL_ERROR if no port is free).
 */
DAT_RETURN dat_psp_create_any(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL *conn_qual,
			      DAT_EVD_HANDLE evd_handle,
			      DAT_PSP_FLAGS psp_flags,
			      DAT_PSP_HANDLE *psp_handle)
{
	return kdapl_psp_create_any(&kdapl_kernel_owner, ia_handle, conn_qual,
				    evd_handle, psp_flags, psp_handle);
}
EXPORT_SYMBOL_GPL(dat_psp_create_any);

/**
 * kdapl_psp_query() - dat_psp_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @psp_handle: as for dat_psp_query()
 * @mask: as for dat_psp_query()
 * @param: as for dat_psp_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_psp_query().
 * Return: as dat_psp_query().
 */
DAT_RETURN kdapl_psp_query(struct kdapl_owner *owner, DAT_PSP_HANDLE psp_handle,
			   DAT_PSP_PARAM_MASK mask, DAT_PSP_PARAM *param)
{
	struct kdapl_sp *sp;
	DAT_RETURN ret;

	if (mask & ~DAT_PSP_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, psp_handle, PSP, DAT_INVALID_HANDLE_PSP, &sp);
	if (ret)
		return ret;
	/* None of these changes while the SP is published. */
	if (mask & DAT_PSP_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&sp->obj.ia->obj);
	if (mask & DAT_PSP_FIELD_CONN_QUAL)
		param->conn_qual = sp->conn_qual;
	if (mask & DAT_PSP_FIELD_EVD_HANDLE)
		param->evd_handle = kdapl_object_handle(&sp->evd->obj);
	if (mask & DAT_PSP_FIELD_PSP_FLAGS)
		param->psp_flags = sp->flags;
	kdapl_object_put(&sp->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_psp_query);

/**
 * dat_psp_query() - parameters of a Public Service Point
 * @psp_handle: the PSP
 * @mask: DAT_PSP_FIELD_* wanted
 * @param: out: the parameters
 *
 * Context: any context.
 * Return:
 * * %DAT_SUCCESS - done.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_PSP - bad @psp_handle.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - unknown bits in @mask.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @param is NULL.
 */
DAT_RETURN dat_psp_query(DAT_PSP_HANDLE psp_handle, DAT_PSP_PARAM_MASK mask,
			 DAT_PSP_PARAM *param)
{
	return kdapl_psp_query(&kdapl_kernel_owner, psp_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_psp_query);

/**
 * kdapl_sp_free() - free a service point of any type
 * @owner: who calls
 * @handle: the SP
 * @type: its DAT_HANDLE_TYPE
 * @bad: the DAT_INVALID_HANDLE subtype of its type
 *
 * Context: process context, may sleep.
 * Return: as dat_psp_free().
 */
DAT_RETURN kdapl_sp_free(struct kdapl_owner *owner, DAT_HANDLE handle,
			 DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE bad)
{
	struct kdapl_object *obj;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_object_get(owner, handle, type, bad, &obj);
	if (ret)
		return ret;
	ia = obj->ia;
	mutex_lock(&ia->lock);
	if (kdapl_object_unpublish(obj))
		kdapl_sp_destroy(container_of(obj, struct kdapl_sp, obj));
	else
		ret = dat_error(DAT_INVALID_HANDLE, bad);
	mutex_unlock(&ia->lock);
	kdapl_object_put(obj);
	return ret;
}

/**
 * kdapl_psp_free() - dat_psp_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @psp_handle: as for dat_psp_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_psp_free().
 * Return: as dat_psp_free().
 */
DAT_RETURN kdapl_psp_free(struct kdapl_owner *owner, DAT_PSP_HANDLE psp_handle)
{
	return kdapl_sp_free(owner, psp_handle, DAT_HANDLE_TYPE_PSP,
			     DAT_INVALID_HANDLE_PSP);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_psp_free);

/**
 * dat_psp_free() - stop listening on a Public Service Point
 * @psp_handle: the PSP
 *
 * Requests already reported stay valid and can still be accepted or
 * rejected; requests arriving from now on are refused.
 *
 * Context: process context, may sleep (waits for a running rdma_cm
 * handler of the listener).
 * Return:
 * * %DAT_SUCCESS - the PSP is freed.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_PSP - bad @psp_handle.
 */
DAT_RETURN dat_psp_free(DAT_PSP_HANDLE psp_handle)
{
	return kdapl_psp_free(&kdapl_kernel_owner, psp_handle);
}
EXPORT_SYMBOL_GPL(dat_psp_free);

/**
 * kdapl_rsp_create() - dat_rsp_create() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_rsp_create()
 * @conn_qual: as for dat_rsp_create()
 * @ep_handle: as for dat_rsp_create()
 * @evd_handle: as for dat_rsp_create()
 * @rsp_handle: as for dat_rsp_create()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_rsp_create().
 * Return: as dat_rsp_create().
 */
DAT_RETURN kdapl_rsp_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    DAT_CONN_QUAL conn_qual, DAT_EP_HANDLE ep_handle,
			    DAT_EVD_HANDLE evd_handle,
			    DAT_RSP_HANDLE *rsp_handle)
{
	return kdapl_sp_create(owner, DAT_HANDLE_TYPE_RSP, ia_handle, conn_qual,
			       false, ep_handle, evd_handle, 0, NULL, NULL,
			       rsp_handle);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rsp_create);

/**
 * dat_rsp_create() - reserve an Endpoint for one connection request
 * @ia_handle: the IA
 * @conn_qual: the connection qualifier, as for dat_psp_create()
 * @ep_handle: an EP of the IA in DAT_EP_STATE_UNCONNECTED; it moves to
 *	DAT_EP_STATE_RESERVED, and to TENTATIVE_CONNECTION_PENDING when the
 *	request arrives
 * @evd_handle: EVD of the IA with DAT_EVD_CR_FLAG
 * @rsp_handle: out: the RSP
 *
 * The RSP takes one request; later ones are refused.  The request's CR
 * names the EP as its local_ep_handle.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - listening.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @conn_qual is 0.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG5 - @rsp_handle is NULL.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_IA - bad @ia_handle.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an
 *   EP of the IA.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EVD_CR - @evd_handle is not
 *   an EVD of the IA taking connection requests.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - the EP is not
 *   unconnected; the subtype names its state.
 * * %DAT_CONN_QUAL_IN_USE - something listens on @conn_qual (or on its
 *   port) already.
 * * %DAT_INVALID_STATE - the IA is closing or lost its device.
 * * %DAT_INSUFFICIENT_RESOURCES | %DAT_RESOURCE_MEMORY - out of memory.
 * * %DAT_INTERNAL_ERROR - rdma_cm refused for another reason.
 */
DAT_RETURN dat_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			  DAT_RSP_HANDLE *rsp_handle)
{
	return kdapl_rsp_create(&kdapl_kernel_owner, ia_handle, conn_qual,
				ep_handle, evd_handle, rsp_handle);
}
EXPORT_SYMBOL_GPL(dat_rsp_create);

/**
 * kdapl_rsp_query() - dat_rsp_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @rsp_handle: as for dat_rsp_query()
 * @mask: as for dat_rsp_query()
 * @param: as for dat_rsp_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_rsp_query().
 * Return: as dat_rsp_query().
 */
DAT_RETURN kdapl_rsp_query(struct kdapl_owner *owner, DAT_RSP_HANDLE rsp_handle,
			   DAT_RSP_PARAM_MASK mask, DAT_RSP_PARAM *param)
{
	struct kdapl_sp *sp;
	DAT_RETURN ret;

	if (mask & ~DAT_RSP_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, rsp_handle, RSP, DAT_INVALID_HANDLE_RSP, &sp);
	if (ret)
		return ret;
	if (mask & DAT_RSP_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&sp->obj.ia->obj);
	if (mask & DAT_RSP_FIELD_CONN_QUAL)
		param->conn_qual = sp->conn_qual;
	if (mask & DAT_RSP_FIELD_EVD_HANDLE)
		param->evd_handle = kdapl_object_handle(&sp->evd->obj);
	if (mask & DAT_RSP_FIELD_EP_HANDLE) {
		mutex_lock(&sp->obj.ia->lock);
		param->ep_handle = sp->ep ? kdapl_object_handle(&sp->ep->obj) :
					    DAT_HANDLE_NULL;
		mutex_unlock(&sp->obj.ia->lock);
	}
	kdapl_object_put(&sp->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rsp_query);

/**
 * dat_rsp_query() - parameters of a Reserved Service Point
 * @rsp_handle: the RSP
 * @mask: DAT_RSP_FIELD_* wanted
 * @param: out: the parameters; ep_handle is DAT_HANDLE_NULL once a
 *	request took the EP
 *
 * Context: process context (takes the IA lock).
 * Return:
 * * %DAT_SUCCESS - done.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_RSP - bad @rsp_handle.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - unknown bits in @mask.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @param is NULL.
 */
DAT_RETURN dat_rsp_query(DAT_RSP_HANDLE rsp_handle, DAT_RSP_PARAM_MASK mask,
			 DAT_RSP_PARAM *param)
{
	return kdapl_rsp_query(&kdapl_kernel_owner, rsp_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_rsp_query);

/**
 * kdapl_rsp_free() - dat_rsp_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @rsp_handle: as for dat_rsp_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_rsp_free().
 * Return: as dat_rsp_free().
 */
DAT_RETURN kdapl_rsp_free(struct kdapl_owner *owner, DAT_RSP_HANDLE rsp_handle)
{
	return kdapl_sp_free(owner, rsp_handle, DAT_HANDLE_TYPE_RSP,
			     DAT_INVALID_HANDLE_RSP);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rsp_free);

/**
 * dat_rsp_free() - free a Reserved Service Point
 * @rsp_handle: the RSP
 *
 * An EP still reserved (no request arrived) returns to
 * DAT_EP_STATE_UNCONNECTED.  A request already reported stays valid.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - the RSP is freed.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_RSP - bad @rsp_handle.
 */
DAT_RETURN dat_rsp_free(DAT_RSP_HANDLE rsp_handle)
{
	return kdapl_rsp_free(&kdapl_kernel_owner, rsp_handle);
}
EXPORT_SYMBOL_GPL(dat_rsp_free);

/**
 * kdapl_sp_cm_event() - rdma_cm event of a listener
 * @ctx: the &kdapl_sp.ctx of the listener
 * @id: the listener, or for a connection request the request's new
 *	identifier (it inherits the listener's context)
 * @event: the event
 *
 * Context: an rdma_cm handler: process context, without the IA lock.
 * Return: non-zero to have rdma_cm destroy @id (a request refused here).
 */
int kdapl_sp_cm_event(struct kdapl_cm_ctx *ctx, struct rdma_cm_id *id,
		      struct rdma_cm_event *event)
{
	struct kdapl_sp *sp = container_of(ctx, struct kdapl_sp, ctx);
	unsigned long flags;
	bool refuse;

	if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		/* Device removal is handled by the ib_client (detach). */
		return 0;

	spin_lock_irqsave(&sp->lock, flags);
	refuse = sp->closed || sp->consumed;
	spin_unlock_irqrestore(&sp->lock, flags);
	if (refuse)
		return 1;
	return kdapl_cr_arrive(sp, id, event) ? 1 : 0;
}

/* Abrupt IA close: free in any state. */
/**
 * kdapl_sp_force_free() - free a service point in an abrupt IA close
 * @obj: the SP's object
 *
 * Context: process context, IA lock held.
 */
void kdapl_sp_force_free(struct kdapl_object *obj)
{
	kdapl_object_unpublish(obj);
	kdapl_sp_destroy(container_of(obj, struct kdapl_sp, obj));
}

/**
 * kdapl_sp_detach() - the device is going away: stop listening, keep the
 *	SP for the consumer
 * @obj: the SP's object
 *
 * Context: process context, IA lock held.
 */
void kdapl_sp_detach(struct kdapl_object *obj)
{
	kdapl_sp_close(container_of(obj, struct kdapl_sp, obj));
}

/**
 * kdapl_sp_release() - the last reference to a service point went
 * @obj: the SP's object
 *
 * Context: any context.
 */
void kdapl_sp_release(struct kdapl_object *obj)
{
	struct kdapl_sp *sp = container_of(obj, struct kdapl_sp, obj);

	/*
	 * The EVD's memory is kept until here for CRs still reporting on
	 * it; once freed by the consumer it refuses their events.
	 */
	kdapl_object_put(sp->evd ? &sp->evd->obj : NULL);
	kfree_rcu(sp, obj.rcu);
}

const struct kdapl_type_ops kdapl_psp_type = {
	.name = "psp",
	.bad_handle = DAT_INVALID_HANDLE_PSP,
	.close_rank = 5,
	.free = kdapl_sp_force_free,
	.detach = kdapl_sp_detach,
	.release = kdapl_sp_release,
};

const struct kdapl_type_ops kdapl_rsp_type = {
	.name = "rsp",
	.bad_handle = DAT_INVALID_HANDLE_RSP,
	.close_rank = 5,
	.free = kdapl_sp_force_free,
	.detach = kdapl_sp_detach,
	.release = kdapl_sp_release,
};
