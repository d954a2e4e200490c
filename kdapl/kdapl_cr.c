// SPDX-License-Identifier: GPL-2.0
/*
 * Connection Requests: a peer's request waiting for accept or reject.
 *
 * rdma_cm hands a request to the listener's handler with a new
 * identifier.  kdapl_cr_arrive() wraps it in a CR there and queues the
 * rest on kdapl_wq: publishing the CR needs the IA lock, which handlers
 * never take.  The work reserves the EP (the RSP's, or one kdapl creates
 * for a DAT_PSP_PROVIDER_FLAG PSP), publishes the CR and reports a
 * DAT_CONNECTION_REQUEST_EVENT on the SP's EVD.  Requests arriving at an
 * SP that is freed meanwhile are refused.
 *
 * dat_cr_accept() gives the identifier to the EP (kdapl_cm_accept()),
 * dat_cr_reject() refuses it; both free the CR.  dat_cr_handoff() moves
 * it to another PSP of the IA.
 *
 * Locking: accept, reject, handoff and freeing run under the IA lock;
 * the CR's fields change only under it once the CR is published.  The
 * events themselves are posted without it, since an EVD upcall may call
 * back into kDAT.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "kdapl.h"

/* With the IA lock held: is @obj still an object of its IA? */
static bool kdapl_cr_obj_alive(struct kdapl_object *obj)
{
	lockdep_assert_held(&obj->ia->lock);
	return !list_empty(&obj->ia_entry);
}

/* Refuse the request and destroy its identifier. */
static void kdapl_cr_refuse(struct rdma_cm_id *id, const void *private_data,
			    u8 private_data_size, u8 reason)
{
	rdma_reject(id, private_data, private_data_size, reason);
	rdma_destroy_id(id);
}

/*
 * Let go of the EP reserved for a CR: an RSP's EP becomes unconnected
 * again, an EP kdapl created is freed.  IA lock held.
 */
static void kdapl_cr_release_ep(struct kdapl_cr *cr)
{
	struct kdapl_ep *ep = cr->ep;
	unsigned long flags;

	if (!ep)
		return;
	cr->ep = NULL;
	if (kdapl_cr_obj_alive(&ep->obj)) {
		if (cr->provider_ep) {
			kdapl_ep_type.free(&ep->obj);
		} else {
			spin_lock_irqsave(&ep->lock, flags);
			if (ep->state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING)
				ep->state = DAT_EP_STATE_UNCONNECTED;
			spin_unlock_irqrestore(&ep->lock, flags);
		}
	}
	kdapl_object_put(&ep->obj);
}

/* Take a published CR out of its IA.  IA lock held. */
static void kdapl_cr_destroy(struct kdapl_cr *cr)
{
	lockdep_assert_held(&cr->obj.ia->lock);
	if (cr->cm_id) {
		kdapl_cr_refuse(cr->cm_id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		cr->cm_id = NULL;
	}
	kdapl_cr_release_ep(cr);
	kdapl_ia_del_object(cr->obj.ia, &cr->obj);
}

/**
 * kdapl_cr_report() - report a CR on the EVD of a service point
 * @cr: a published CR, with a reference held by the caller
 * @sp: the SP it is reported for, with a reference held by the caller
 *
 * A CR the EVD cannot take (it is full) is rejected.
 *
 * Context: process context without the IA lock (an upcall may accept).
 */
void kdapl_cr_report(struct kdapl_cr *cr, struct kdapl_sp *sp)
{
	DAT_CR_ARRIVAL_EVENT_DATA *data;
	DAT_EVENT event = {
		.event_number = cr->ud ? (DAT_EVENT_NUMBER)
					 DAT_IB_UD_CONNECTION_REQUEST_EVENT :
					 DAT_CONNECTION_REQUEST_EVENT,
	};

	event.evd_handle = kdapl_object_handle(&sp->evd->obj);
	data = &event.event_data.cr_arrival_event_data;
	if (sp->obj.type == DAT_HANDLE_TYPE_RSP)
		data->sp_handle.rsp_handle = kdapl_object_handle(&sp->obj);
	else
		data->sp_handle.psp_handle = kdapl_object_handle(&sp->obj);
	data->local_ia_address_ptr = (struct sockaddr *)&cr->local_addr;
	data->conn_qual = cr->conn_qual;
	data->cr_handle = kdapl_object_handle(&cr->obj);
	data->truncate_flag = DAT_FALSE;
	kdapl_stat_inc(sp->obj.ia->adapter, KDAPL_STAT_CONNECTION_REQUESTS);
	/*
	 * An EVD too full to take the request overflowed (its IA hears of
	 * it); no consumer will answer it, so the peer is told now.
	 */
	kdapl_evd_count(sp->evd, DCNT_EVD_CONN_CALLBACK);
	if (!kdapl_evd_post(sp->evd, &event))
		kdapl_cr_drop(sp->obj.ia->owner, data->cr_handle);
}

/*
 * Create the EP a DAT_PSP_PROVIDER_FLAG PSP gives every request: no PZ
 * and no EVDs, for the consumer to configure with dat_ep_modify().
 * Without the IA lock.  Returns a reference or NULL.
 */
static struct kdapl_ep *kdapl_cr_provider_ep(struct kdapl_ia *ia)
{
	DAT_EP_HANDLE handle;
	struct kdapl_ep *ep;

	if (kdapl_ep_create(ia->owner, kdapl_object_handle(&ia->obj),
			    DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
			    DAT_HANDLE_NULL, NULL, &handle))
		return NULL;
	if (kdapl_get(ia->owner, handle, EP, DAT_INVALID_HANDLE_EP, &ep))
		return NULL;
	return ep;
}

/* Publish a CR and report it; process context, kdapl_wq. */
static void kdapl_cr_arrive_work(struct work_struct *work)
{
	struct kdapl_cr *cr = container_of(work, struct kdapl_cr, work);
	struct kdapl_sp *sp = cr->sp;
	struct kdapl_ia *ia = sp->obj.ia;
	struct kdapl_ep *pep = NULL;
	unsigned long flags;
	bool refuse;

	if (sp->obj.type == DAT_HANDLE_TYPE_PSP &&
	    sp->flags == DAT_PSP_PROVIDER_FLAG) {
		pep = kdapl_cr_provider_ep(ia);
		if (!pep)
			goto refuse;
	}

	mutex_lock(&ia->lock);
	spin_lock_irqsave(&sp->lock, flags);
	refuse = sp->closed || ia->closing || !ia->ibdev;
	if (!refuse && sp->obj.type == DAT_HANDLE_TYPE_RSP) {
		refuse = sp->consumed || !sp->ep ||
			 !kdapl_cr_obj_alive(&sp->ep->obj);
		sp->consumed = true;
	}
	spin_unlock_irqrestore(&sp->lock, flags);
	if (refuse)
		goto unlock_refuse;

	if (sp->obj.type == DAT_HANDLE_TYPE_RSP) {
		/* The RSP's reference to its EP goes to the CR. */
		cr->ep = sp->ep;
		sp->ep = NULL;
	} else if (pep) {
		if (!kdapl_cr_obj_alive(&pep->obj))
			goto unlock_refuse;
		cr->ep = pep;
		cr->provider_ep = true;
		pep = NULL;
	}
	if (kdapl_object_publish(&cr->obj)) {
		kdapl_cr_release_ep(cr);
		goto unlock_refuse;
	}
	if (cr->ep)
		kdapl_ep_set_state(cr->ep,
				   DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
	kdapl_ia_add_object(ia, &cr->obj);
	kdapl_ia_count(ia, DCNT_IA_SP_CR);
	kdapl_ia_count(ia, DCNT_IA_CM_REQ_RX);
	/* Keep the CR and SP for the report, which runs unlocked. */
	kref_get(&cr->obj.ref);
	kref_get(&sp->obj.ref);
	mutex_unlock(&ia->lock);

	kdapl_cr_report(cr, sp);
	kdapl_object_put(&sp->obj);
	kdapl_object_put(&cr->obj);
	return;

unlock_refuse:
	mutex_unlock(&ia->lock);
refuse:
	kdapl_cr_refuse(cr->cm_id, NULL, 0, IB_CM_REJ_INVALID_SERVICE_ID);
	if (pep) {
		kdapl_ep_free(ia->owner, kdapl_object_handle(&pep->obj));
		kdapl_object_put(&pep->obj);
	}
	/* Never published: the memory and the SP reference are ours. */
	kdapl_object_put(&sp->obj);
	kfree(cr);
}

/**
 * kdapl_cr_arrive() - wrap a new connection request in a CR
 * @sp: the service point it arrived on
 * @id: the request's new rdma_cm identifier
 * @event: the RDMA_CM_EVENT_CONNECT_REQUEST event
 *
 * On success the CR owns @id and the rest happens on kdapl_wq.
 *
 * Context: the listener's rdma_cm handler (process context, no IA lock).
 * Return: 0, or -ENOMEM (the caller has rdma_cm destroy @id).
 */
int kdapl_cr_arrive(struct kdapl_sp *sp, struct rdma_cm_id *id,
		    const struct rdma_cm_event *event)
{
	bool ud = id->ps == RDMA_PS_UDP;
	const void *pd = ud ? event->param.ud.private_data :
			      event->param.conn.private_data;
	struct kdapl_cr *cr;
	size_t len;

	cr = kzalloc(sizeof(*cr), GFP_KERNEL_ACCOUNT);
	if (!cr)
		return -ENOMEM;
	kdapl_object_init(&cr->obj, DAT_HANDLE_TYPE_CR, sp->obj.ia);
	cr->ctx.kind = KDAPL_CM_CR;
	cr->cm_id = id;
	/* The handler runs while the listener exists, so the SP does. */
	kref_get(&sp->obj.ref);
	cr->sp = sp;
	INIT_WORK(&cr->work, kdapl_cr_arrive_work);
	memcpy(&cr->local_addr, &id->route.addr.src_addr,
	       sizeof(cr->local_addr));
	memcpy(&cr->remote_addr, &id->route.addr.dst_addr,
	       sizeof(cr->remote_addr));
	cr->remote_port = kdapl_sockaddr_port((struct sockaddr *)&cr->remote_addr);
	cr->conn_qual = sp->conn_qual;
	cr->ud = ud;
	len = min_t(size_t, ud ? event->param.ud.private_data_len :
				 event->param.conn.private_data_len,
		    sizeof(cr->private_data));
	if (pd && len)
		memcpy(cr->private_data, pd, len);
	else
		len = 0;
	cr->private_data_size = len;

	WRITE_ONCE(id->context, &cr->ctx);
	queue_work(kdapl_wq, &cr->work);
	return 0;
}

/**
 * kdapl_cr_query() - dat_cr_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @cr_handle: as for dat_cr_query()
 * @mask: as for dat_cr_query()
 * @param: as for dat_cr_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_cr_query().
 * Return: as dat_cr_query().
 */
DAT_RETURN kdapl_cr_query(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			  DAT_CR_PARAM_MASK mask, DAT_CR_PARAM *param)
{
	struct kdapl_cr *cr;
	DAT_RETURN ret;

	if (mask & ~DAT_CR_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, cr_handle, CR, DAT_INVALID_HANDLE_CR, &cr);
	if (ret)
		return ret;
	if (mask & DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR)
		param->remote_ia_address_ptr =
			(struct sockaddr *)&cr->remote_addr;
	if (mask & DAT_CR_FIELD_REMOTE_PORT_QUAL)
		param->remote_port_qual = cr->remote_port;
	if (mask & DAT_CR_FIELD_PRIVATE_DATA_SIZE)
		param->private_data_size = cr->private_data_size;
	if (mask & DAT_CR_FIELD_PRIVATE_DATA)
		param->private_data = cr->private_data;
	if (mask & DAT_CR_FIELD_LOCAL_EP_HANDLE) {
		mutex_lock(&cr->obj.ia->lock);
		param->local_ep_handle = cr->ep ?
			kdapl_object_handle(&cr->ep->obj) : DAT_HANDLE_NULL;
		mutex_unlock(&cr->obj.ia->lock);
	}
	kdapl_object_put(&cr->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_cr_query);

/**
 * dat_cr_query() - what a Connection Request carries
 * @cr_handle: the CR
 * @mask: DAT_CR_FIELD_* wanted
 * @param: out: the parameters; the address and private data pointers
 *	stay valid until the CR is accepted or rejected
 *
 * Context: process context (takes the IA lock).
 * Return:
 * * %DAT_SUCCESS - done.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_CR - bad @cr_handle.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - unknown bits in @mask.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @param is NULL.
 */
DAT_RETURN dat_cr_query(DAT_CR_HANDLE cr_handle, DAT_CR_PARAM_MASK mask,
			DAT_CR_PARAM *param)
{
	return kdapl_cr_query(&kdapl_kernel_owner, cr_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_cr_query);

/* Check the private data arguments (numbered @size_arg, @size_arg + 1). */
static DAT_RETURN kdapl_cr_check_pdata(struct kdapl_ia *ia, DAT_COUNT size,
				       const void *data,
				       DAT_RETURN_SUBTYPE size_arg,
				       DAT_RETURN_SUBTYPE data_arg)
{
	if (size < 0 || size > kdapl_cm_private_data_max(ia))
		return dat_error(DAT_INVALID_PARAMETER, size_arg);
	if (size && !data)
		return dat_error(DAT_INVALID_PARAMETER, data_arg);
	return DAT_SUCCESS;
}

/*
 * The EP a CR is accepted on: @ep as given (with a reference), or the
 * RSP's when @ep is NULL (a reference taken into *@epp); it must be in the
 * state an accept needs.  IA lock held, the CR alive.
 */
static DAT_RETURN kdapl_cr_accept_ep(struct kdapl_cr *cr, struct kdapl_ep *ep,
				     struct kdapl_ep **epp)
{
	struct kdapl_ia *ia = cr->obj.ia;
	DAT_EP_STATE state;
	unsigned long flags;
	bool has_pz;

	lockdep_assert_held(&ia->lock);
	if (!ep) {
		if (!cr->ep)
			return dat_error(DAT_INVALID_HANDLE,
					 DAT_INVALID_HANDLE_EP);
		ep = cr->ep;
		kref_get(&ep->obj.ref);
		*epp = ep;
	} else if (cr->ep && cr->ep != ep) {
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	if (ep->obj.ia != ia || !kdapl_cr_obj_alive(&ep->obj))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	spin_lock_irqsave(&ep->lock, flags);
	state = ep->state;
	has_pz = ep->pz;
	spin_unlock_irqrestore(&ep->lock, flags);
	/* A datagram EP takes a peer whenever its queue pair is up too. */
	if (state != (cr->ep ? DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING :
			       DAT_EP_STATE_UNCONNECTED) &&
	    !(state == DAT_EP_STATE_CONNECTED && kdapl_ep_is_ud(ep)))
		return kdapl_ep_state_error(state);
	if (!has_pz)
		return dat_error(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_EP_UNCONFIGURED);
	if (!cr->cm_id)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

/**
 * kdapl_cr_accept() - dat_cr_accept() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @cr_handle: as for dat_cr_accept()
 * @ep_handle: as for dat_cr_accept()
 * @private_data_size: as for dat_cr_accept()
 * @private_data: as for dat_cr_accept()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_cr_accept().
 * Return: as dat_cr_accept().
 */
DAT_RETURN kdapl_cr_accept(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			   DAT_EP_HANDLE ep_handle, DAT_COUNT private_data_size,
			   const DAT_PVOID private_data)
{
	struct kdapl_ep *ep = NULL;
	struct kdapl_cr *cr;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, cr_handle, CR, DAT_INVALID_HANDLE_CR, &cr);
	if (ret)
		return ret;
	ia = cr->obj.ia;
	ret = kdapl_cr_check_pdata(ia, private_data_size, private_data,
				   DAT_INVALID_ARG3, DAT_INVALID_ARG4);
	if (ret)
		goto put_cr;
	if (ep_handle) {
		ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
		if (ret)
			goto put_cr;
	}

	mutex_lock(&ia->lock);
	if (!kdapl_cr_obj_alive(&cr->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
		goto unlock;
	}
	ret = kdapl_cr_accept_ep(cr, ep, &ep);
	if (ret)
		goto unlock;
	ret = kdapl_cm_accept(ep, cr->cm_id, private_data, private_data_size,
			      cr);
	if (ret)
		goto unlock;

	/* The EP owns the identifier now; the request is done. */
	cr->cm_id = NULL;
	if (cr->ep) {
		kdapl_object_put(&cr->ep->obj);
		cr->ep = NULL;
	}
	kdapl_object_unpublish(&cr->obj);
	kdapl_ia_del_object(ia, &cr->obj);
	kdapl_ia_count(ia, DCNT_IA_SP_CR_ACCEPTED);
unlock:
	mutex_unlock(&ia->lock);
	if (ep)
		kdapl_object_put(&ep->obj);
put_cr:
	kdapl_object_put(&cr->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_cr_accept);

/**
 * dat_cr_accept() - accept a Connection Request on an Endpoint
 * @cr_handle: the CR
 * @ep_handle: the EP to connect: DAT_HANDLE_NULL for the EP the request
 *	came with (RSP or provider-created), or an unconnected,
 *	configured EP of the IA
 * @private_data_size: bytes of @private_data, up to the IA's
 *	max_private_data_size
 * @private_data: data for the peer, or NULL
 *
 * The EP moves to DAT_EP_STATE_COMPLETION_PENDING, where its EVDs and
 * attributes can no longer be modified (its QP exists), and gets
 * DAT_CONNECTION_EVENT_ESTABLISHED (or a failure event) on its connect
 * EVD.  A request its peer gave up moves it to DISCONNECTED at once,
 * with DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR.  The CR is freed.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - accepted; the CR handle is no longer valid.  Also
 *   when the peer gave the request up before: the EP then gets
 *   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_CR - bad @cr_handle (or the
 *   CR was accepted or rejected already).
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an
 *   EP of the IA, or is NULL and the CR has no EP.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - the CR came with an EP
 *   and @ep_handle names another one.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @private_data_size is
 *   negative or above the limit.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG4 - @private_data is NULL
 *   with a non-zero size.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - the EP cannot accept
 *   in its state (it must be unconnected, or tentative for the EP the
 *   request came with, and have a PZ); the subtype names the state.
 * * %DAT_INVALID_STATE - the device is gone.
 * * Other errors from the connection code (kdapl_cm_accept()), for
 *   instance %DAT_INSUFFICIENT_RESOURCES when no QP can be created, or
 *   (%DAT_RESOURCE_TEP) when a datagram EP holds as many resolutions and
 *   address handles as ud_peers_max allows; the CR then stays for
 *   another accept or a reject.
 */
DAT_RETURN dat_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			 DAT_COUNT private_data_size,
			 const DAT_PVOID private_data)
{
	return kdapl_cr_accept(&kdapl_kernel_owner, cr_handle, ep_handle,
			       private_data_size, private_data);
}
EXPORT_SYMBOL_GPL(dat_cr_accept);

/*
 * Reject the CR of @cr_handle; @consumer says whether the consumer
 * rejects it (DCNT_IA_SP_CR_REJECTED, and CM_USER_REJ_TX when the peer is
 * told) or kdapl does for want of room (DCNT_IA_CM_ERR_REQ_FULLQ).
 */
static DAT_RETURN kdapl_cr_do_reject(struct kdapl_owner *owner,
				     DAT_CR_HANDLE cr_handle,
				     DAT_COUNT private_data_size,
				     const DAT_PVOID private_data,
				     bool consumer)
{
	struct kdapl_cr *cr;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, cr_handle, CR, DAT_INVALID_HANDLE_CR, &cr);
	if (ret)
		return ret;
	ia = cr->obj.ia;
	ret = kdapl_cr_check_pdata(ia, private_data_size, private_data,
				   DAT_INVALID_ARG2, DAT_INVALID_ARG3);
	if (ret)
		goto put;

	mutex_lock(&ia->lock);
	if (!kdapl_object_unpublish(&cr->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
		goto unlock;
	}
	if (cr->cm_id) {
		kdapl_cr_refuse(cr->cm_id, private_data, private_data_size,
				IB_CM_REJ_CONSUMER_DEFINED);
		cr->cm_id = NULL;
		if (consumer)
			kdapl_ia_count(ia, DCNT_IA_CM_USER_REJ_TX);
	}
	kdapl_ia_count(ia, consumer ? DCNT_IA_SP_CR_REJECTED :
				      DCNT_IA_CM_ERR_REQ_FULLQ);
	kdapl_cr_destroy(cr);
unlock:
	mutex_unlock(&ia->lock);
put:
	kdapl_object_put(&cr->obj);
	return ret;
}

/**
 * kdapl_cr_reject() - dat_cr_reject() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @cr_handle: as for dat_cr_reject()
 * @private_data_size: as for dat_cr_reject()
 * @private_data: as for dat_cr_reject()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_cr_reject().
 * Return: as dat_cr_reject().
 */
DAT_RETURN kdapl_cr_reject(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			   DAT_COUNT private_data_size,
			   const DAT_PVOID private_data)
{
	return kdapl_cr_do_reject(owner, cr_handle, private_data_size,
				  private_data, true);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_cr_reject);

/**
 * kdapl_cr_drop() - reject a CR that no consumer can answer
 * @owner: the owner of the CR's IA
 * @cr_handle: the CR
 *
 * For a request that found no room on its EVD or ring: as
 * kdapl_cr_reject() without private data, but counted as
 * DCNT_IA_CM_ERR_REQ_FULLQ, not as the consumer's reject.
 *
 * Context: process context, may sleep.
 * Return: as kdapl_cr_reject().
 */
DAT_RETURN kdapl_cr_drop(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle)
{
	return kdapl_cr_do_reject(owner, cr_handle, 0, NULL, false);
}

/**
 * dat_cr_reject() - refuse a Connection Request
 * @cr_handle: the CR
 * @private_data_size: bytes of @private_data, up to the IA's
 *	max_private_data_size
 * @private_data: data for the peer (carried by InfiniBand and RoCE
 *	rejects, and by iWARP MPA rejects), or NULL
 *
 * The peer's EP gets DAT_CONNECTION_EVENT_PEER_REJECTED.  The EP the
 * request came with is given back: an RSP's EP becomes unconnected, an
 * EP kdapl created is freed.  The CR is freed.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - rejected; the CR handle is no longer valid.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_CR - bad @cr_handle.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @private_data_size is
 *   negative or above the limit.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @private_data is NULL
 *   with a non-zero size.
 */
DAT_RETURN dat_cr_reject(DAT_CR_HANDLE cr_handle, DAT_COUNT private_data_size,
			 const DAT_PVOID private_data)
{
	return kdapl_cr_reject(&kdapl_kernel_owner, cr_handle,
			       private_data_size, private_data);
}
EXPORT_SYMBOL_GPL(dat_cr_reject);

/**
 * kdapl_cr_handoff() - dat_cr_handoff() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @cr_handle: as for dat_cr_handoff()
 * @handoff: as for dat_cr_handoff()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_cr_handoff().
 * Return: as dat_cr_handoff().
 */
DAT_RETURN kdapl_cr_handoff(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			    DAT_CONN_QUAL handoff)
{
	struct kdapl_sp *to = NULL, *sp;
	struct kdapl_object *obj;
	struct kdapl_cr *cr;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, cr_handle, CR, DAT_INVALID_HANDLE_CR, &cr);
	if (ret)
		return ret;
	ia = cr->obj.ia;

	mutex_lock(&ia->lock);
	if (!kdapl_cr_obj_alive(&cr->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
		goto unlock;
	}
	if (cr->ep) {
		ret = dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto unlock;
	}
	list_for_each_entry(obj, &ia->objects, ia_entry) {
		if (obj->type != DAT_HANDLE_TYPE_PSP)
			continue;
		sp = container_of(obj, struct kdapl_sp, obj);
		if (sp->conn_qual == handoff && sp->cm_id) {
			to = sp;
			break;
		}
	}
	if (!to) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto unlock;
	}
	/* The CR's reference moves from its old SP to the new one. */
	kref_get(&to->obj.ref);
	sp = cr->sp;
	cr->sp = to;
	cr->conn_qual = handoff;
	kref_get(&to->obj.ref);
	mutex_unlock(&ia->lock);

	kdapl_object_put(&sp->obj);
	kdapl_cr_report(cr, to);
	kdapl_object_put(&to->obj);
	kdapl_object_put(&cr->obj);
	return DAT_SUCCESS;

unlock:
	mutex_unlock(&ia->lock);
	kdapl_object_put(&cr->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_cr_handoff);

/**
 * dat_cr_handoff() - pass a Connection Request to another PSP
 * @cr_handle: the CR
 * @handoff: conn_qual of a PSP of the same IA
 *
 * The CR is reported again, with the same handle, on that PSP's EVD.  A
 * request that came with an EP (RSP, provider-created) cannot be handed
 * off.  If that EVD is full, the CR is rejected (see kdapl_cr_report())
 * and the handoff still succeeds: the new PSP's EVD overflowed.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - reported on the other PSP.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_CR - bad @cr_handle.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - no PSP of the IA listens
 *   on @handoff.
 * * %DAT_INVALID_STATE - the CR came with an EP.
 */
DAT_RETURN dat_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff)
{
	return kdapl_cr_handoff(&kdapl_kernel_owner, cr_handle, handoff);
}
EXPORT_SYMBOL_GPL(dat_cr_handoff);

/* Abrupt IA close: refuse the request. */
static void kdapl_cr_force_free(struct kdapl_object *obj)
{
	kdapl_object_unpublish(obj);
	kdapl_cr_destroy(container_of(obj, struct kdapl_cr, obj));
}

/* The device is going away: the request dies with it. */
static void kdapl_cr_detach(struct kdapl_object *obj)
{
	struct kdapl_cr *cr = container_of(obj, struct kdapl_cr, obj);

	if (cr->cm_id) {
		rdma_destroy_id(cr->cm_id);
		cr->cm_id = NULL;
	}
}

static void kdapl_cr_release(struct kdapl_object *obj)
{
	struct kdapl_cr *cr = container_of(obj, struct kdapl_cr, obj);

	kdapl_object_put(&cr->sp->obj);
	kfree_rcu(cr, obj.rcu);
}

const struct kdapl_type_ops kdapl_cr_type = {
	.name = "cr",
	.bad_handle = DAT_INVALID_HANDLE_CR,
	.close_rank = 3,
	.free = kdapl_cr_force_free,
	.detach = kdapl_cr_detach,
	.release = kdapl_cr_release,
};
