// SPDX-License-Identifier: GPL-2.0
/*
 * kDAT unreliable datagram EPs (the IB extension's service type
 * DAT_IB_SERVICE_TYPE_UD): the resolution of their peers, their address
 * handles, and the checks of dat_ib_post_send_ud() that need them.
 *
 * A datagram EP has one UD queue pair, brought up by its first
 * dat_ep_connect() or dat_cr_accept() (kdapl_cm_ud_up()), and resolves
 * each peer on its own: dat_ep_connect() sends a service ID resolution
 * request (SIDR) through an identifier of rdma_cm's RDMA_PS_UDP space
 * to a PSP, which listens in that space too (kdapl_sp.c); the peer's
 * dat_cr_accept() answers with its queue pair's number and queue key.
 * Each side then gets a DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED on the
 * EP's connect EVD.  The active side's carries a DAT_IB_ADDR_HANDLE
 * (type DAT_IB_UD_REMOTE_AH) whose @ah is a struct kdapl_ud_ah of the
 * EP, and the peer's private data.  The passive side's (type
 * DAT_IB_UD_PASSIVE_REMOTE_AH) carries no address handle: a SIDR request
 * does not say which queue pair sent it, so a passive side that is to
 * send resolves the peer the other way.  Both carry the resolution, a
 * struct kdapl_ud_peer, as @context, for dat_ib_ud_cm_free().
 *
 * The EP keeps its address handles on a list until dat_ib_ud_ah_free()
 * or its teardown, and a post finds the one it names on that list, so
 * that a handle that was freed, or that another EP made, is refused
 * rather than given to the device.
 *
 * Kernel consumers name address handles and resolutions by their
 * pointers.  A process (an EP whose owner is an open file of /dev/kdapl)
 * names them by random ids, unique among the EP's, which its events
 * carry in the pointers' place (DAT_IB_ADDR_HANDLE.ah, and the
 * DAT_CONTEXT of the resolution): a process never sees a kernel pointer,
 * and an id finds nothing but what the EP it is given to has.
 *
 * An address handle is destroyed (rdma_destroy_ah(), which may sleep) in
 * process context only, once no send the device holds may use it: by
 * dat_ib_ud_ah_free() when the requests posted before it completed,
 * else (the handle waits on @dead meanwhile) by the first
 * dat_ib_ud_ah_free(), connect or accept of the EP that finds them
 * completed, or by the EP's teardown.
 *
 * A resolution outlives the EP's teardown, which destroys only its
 * identifier: the private data its event gave stays valid until the EP
 * is reset or freed, or the consumer frees the resolution.  The
 * teardown of a broken queue pair runs without the IA lock, so a
 * dat_ep_connect() or dat_cr_accept() may find the EP still CONNECTED
 * and start a resolution while it runs: once the teardown has begun
 * destroying identifiers, no resolution is listed any more (@stopped
 * until the reset), so none keeps an identifier, which a removal of
 * the device would wait for, past the teardown.
 *
 * Locking: the lists are under ep->lock; destruction happens with no
 * spinlock held.  Resolutions are created and freed under the IA lock,
 * and the listed ones' identifiers destroyed under ud->lock (inside it);
 * their rdma_cm handlers take ep->lock only.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "kdapl.h"

/**
 * struct kdapl_ud_ah - an address handle of a datagram EP
 * @node: on &kdapl_ud.ahs, or &kdapl_ud.dead once freed by the consumer
 * @ah: the verbs address handle, in the PD of the EP's PZ
 * @qkey: the queue key the peer's queue pair takes
 * @id: its name for a process (see the top of this file)
 * @retire: on &kdapl_ud.dead, the requests posted when it was freed
 *	(kdapl_dto_req_mark()): once they completed, no send uses it
 */
struct kdapl_ud_ah {
	struct list_head node;
	struct ib_ah *ah;
	u32 qkey;
	u32 id;
	u32 retire;
};

/*
 * The most resolutions and address handles one datagram EP holds at
 * once.  Their names are looked for, and made unique, on lists under
 * ep->lock, and each resolution keeps an rdma_cm identifier that is not
 * charged to the process: the limit bounds both.
 */
VISIBLE_IF_KUNIT unsigned int kdapl_ud_peers_max = 4096;
EXPORT_SYMBOL_IF_KUNIT(kdapl_ud_peers_max);

static int kdapl_ud_peers_max_set(const char *val,
				  const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 1U << 20);
}

static const struct kernel_param_ops kdapl_ud_peers_max_ops = {
	.set = kdapl_ud_peers_max_set,
	.get = param_get_uint,
};

module_param_cb(ud_peers_max, &kdapl_ud_peers_max_ops, &kdapl_ud_peers_max,
		0644);
__MODULE_PARM_TYPE(ud_peers_max, "uint");
MODULE_PARM_DESC(ud_peers_max,
		 "Most resolutions and address handles one datagram EP holds at once (1 to 1048576, default 4096)");

/* Private data of a SIDR request: 216 bytes, of which rdma_cm takes 36. */
#define KDAPL_UD_PRIVATE_DATA	56

/**
 * struct kdapl_ud_peer - the resolution of one peer of a datagram EP
 * @ctx: rdma_cm context of @id (kind KDAPL_CM_UD)
 * @node: on &kdapl_ud.peers
 * @ep: its EP, which destroys its resolutions before it goes
 * @id: the identifier of the request: the active side's own, or the
 *	one the request arrived on (from its CR); NULL once the EP's
 *	teardown destroyed it
 * @remote: the peer's address (with the qualifier on the active side)
 * @done: not listed yet, or its ESTABLISHED, REJECT or ERROR event is
 *	queued: events of @id are ignored (ep->lock)
 * @uid: its name for a process (see the top of this file), once listed
 * @param_pd_size: bytes of @param_pd
 * @param_pd: the consumer's private data for the request
 * @pd_size: bytes of @pd
 * @pd: the private data of the peer's answer, which the event gives
 *	until dat_ib_ud_cm_free()
 * @gone: its memory, for kdapl_evd_defer_free()
 */
struct kdapl_ud_peer {
	struct kdapl_cm_ctx ctx;
	struct list_head node;
	struct kdapl_ep *ep;
	struct rdma_cm_id *id;
	struct sockaddr_storage remote;
	bool done;
	u32 uid;
	u8 param_pd_size;
	u8 param_pd[KDAPL_UD_PRIVATE_DATA];
	u8 pd_size;
	u8 pd[IB_CM_SIDR_REP_PRIVATE_DATA_SIZE];
	struct kdapl_evd_gone gone;
};

/**
 * struct kdapl_ud - what a datagram EP has besides an EP's
 * @peers: its resolutions, until dat_ib_ud_cm_free(), or the EP's reset
 *	or free: their events' private data stays valid as long
 * @lock: serialises the destruction of the resolutions' identifiers
 *	(the teardown's and dat_ib_ud_cm_free()'s), which waits for their
 *	handlers, with the free of their memory
 * @ahs: its address handles
 * @dead: address handles the consumer freed while requests posted
 *	before were outstanding, destroyed once a call finds those
 *	completed
 * @mtu: the longest message, the path MTU of its port, once its queue
 *	pair is up (0 before)
 * @stopped: the teardown destroys the resolutions' identifiers: none is
 *	listed any more until the reset or free (ep->lock)
 * @npeers: resolutions on @peers (ep->lock)
 * @nahs: address handles on @ahs and @dead (ep->lock)
 */
struct kdapl_ud {
	struct list_head peers;
	struct mutex lock;	/* see above */
	struct list_head ahs;
	struct list_head dead;
	u32 mtu;
	bool stopped;
	unsigned int npeers;
	unsigned int nahs;
};

/* Does @ep name its handles and resolutions by id (a process's EP)? */
static bool kdapl_ud_by_id(const struct kdapl_ep *ep)
{
	return !ep->obj.owner->kernel;
}

/* Does a handle or resolution of @ep have @id?  ep->lock held. */
static bool kdapl_ud_id_used(struct kdapl_ep *ep, u32 id)
{
	struct list_head *lists[] = { &ep->ud->ahs, &ep->ud->dead };
	struct kdapl_ud_peer *peer;
	struct kdapl_ud_ah *ah;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++)
		list_for_each_entry(ah, lists[i], node)
			if (ah->id == id)
				return true;
	list_for_each_entry(peer, &ep->ud->peers, node)
		if (peer->uid == id)
			return true;
	return false;
}

/*
 * A new id for an address handle or resolution of @ep: random, so that
 * a process can neither guess the ids of its own EPs' next handles nor
 * learn how many others made, never 0, and unique among the EP's
 * handles and resolutions; one of another EP is refused but by chance
 * (2^-32).  ep->lock held.
 */
static u32 kdapl_ud_new_id(struct kdapl_ep *ep)
{
	u32 id;

	lockdep_assert_held(&ep->lock);
	do {
		id = get_random_u32();
	} while (!id || kdapl_ud_id_used(ep, id));
	return id;
}

/**
 * kdapl_ud_ep_init() - make a new EP a datagram EP
 * @ep: the EP, not published yet
 *
 * Context: process context.
 * Return: 0, or -ENOMEM.
 */
int kdapl_ud_ep_init(struct kdapl_ep *ep)
{
	struct kdapl_ud *ud;

	ud = kzalloc(sizeof(*ud), GFP_KERNEL);
	if (!ud)
		return -ENOMEM;
	INIT_LIST_HEAD(&ud->peers);
	mutex_init(&ud->lock);
	INIT_LIST_HEAD(&ud->ahs);
	INIT_LIST_HEAD(&ud->dead);
	ep->ud = ud;
	return 0;
}

/**
 * kdapl_ud_ep_fini() - free what kdapl_ud_ep_init() made
 * @ep: the EP, torn down (no queue pair, no address handle left)
 *
 * Context: process context.
 */
void kdapl_ud_ep_fini(struct kdapl_ep *ep)
{
	if (!ep->ud)
		return;
	WARN_ON_ONCE(!list_empty(&ep->ud->peers) ||
		     !list_empty(&ep->ud->ahs) || !list_empty(&ep->ud->dead) ||
		     ep->ud->npeers || ep->ud->nahs);
	mutex_destroy(&ep->ud->lock);
	kfree(ep->ud);
	ep->ud = NULL;
}

/**
 * kdapl_ud_set_mtu() - the longest datagram of an EP whose QP is up
 * @ep: a datagram EP
 * @mtu: the active MTU of its port, in bytes
 *
 * Context: any context; takes ep->lock.
 */
void kdapl_ud_set_mtu(struct kdapl_ep *ep, u32 mtu)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->ud->mtu = mtu;
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * kdapl_ud_ah_create() - an address handle for a resolved peer
 * @ep: the datagram EP that resolved it
 * @pd: the PD of the EP's queue pair
 * @attr: the address, as rdma_cm gave it
 * @qkey: the peer's queue key
 * @ahp: the new handle, on the EP's list
 * @idp: its id, taken under the lock that lists it: a process may free
 *	it by that id as soon as it is listed
 *
 * Context: process context (an rdma_cm handler), may sleep.
 * Return: 0, or the negative errno of the allocation or of
 * rdma_create_ah().
 */
int kdapl_ud_ah_create(struct kdapl_ep *ep, struct ib_pd *pd,
		       struct rdma_ah_attr *attr, u32 qkey,
		       struct kdapl_ud_ah **ahp, u32 *idp)
{
	struct kdapl_ud_ah *ah;
	unsigned long flags;

	ah = kzalloc(sizeof(*ah), GFP_KERNEL);
	if (!ah)
		return -ENOMEM;
	ah->ah = rdma_create_ah(pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah->ah)) {
		int err = PTR_ERR(ah->ah);

		kfree(ah);
		return err;
	}
	ah->qkey = qkey;
	spin_lock_irqsave(&ep->lock, flags);
	ah->id = kdapl_ud_new_id(ep);
	*idp = ah->id;
	list_add_tail(&ah->node, &ep->ud->ahs);
	ep->ud->nahs++;
	spin_unlock_irqrestore(&ep->lock, flags);
	*ahp = ah;
	return 0;
}

static void kdapl_ud_ah_destroy(struct kdapl_ud_ah *ah)
{
	rdma_destroy_ah(ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
	kfree(ah);
}

/*
 * Move to @list the handles the consumer freed whose sends all
 * completed: the requests posted before each was freed.  The device
 * holds no send that uses them any more.  ep->lock held.
 */
static void kdapl_ud_dead_take(struct kdapl_ep *ep, struct list_head *list)
{
	struct kdapl_ud_ah *ah, *next;

	lockdep_assert_held(&ep->lock);
	list_for_each_entry_safe(ah, next, &ep->ud->dead, node) {
		if (!kdapl_dto_req_past(ep, ah->retire))
			continue;
		list_move_tail(&ah->node, list);
		ep->ud->nahs--;
	}
}

/* Destroy the handles of @list, taken off the EP under ep->lock. */
static void kdapl_ud_ah_destroy_list(struct list_head *list)
{
	struct kdapl_ud_ah *ah, *next;

	list_for_each_entry_safe(ah, next, list, node) {
		list_del(&ah->node);
		kdapl_ud_ah_destroy(ah);
	}
}

/**
 * kdapl_ud_ah_destroy_all() - destroy every address handle of an EP
 * @ep: a datagram EP whose queue pair is drained or gone
 *
 * Context: process context, may sleep.
 */
void kdapl_ud_ah_destroy_all(struct kdapl_ep *ep)
{
	unsigned long flags;
	LIST_HEAD(list);

	if (!ep->ud)
		return;
	spin_lock_irqsave(&ep->lock, flags);
	list_splice_init(&ep->ud->ahs, &list);
	list_splice_init(&ep->ud->dead, &list);
	ep->ud->nahs = 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_ud_ah_destroy_list(&list);
}

/*
 * The address handle of @ep that @ah names (a pointer, or an id for a
 * process), or NULL; ep->lock held.
 */
static struct kdapl_ud_ah *kdapl_ud_ah_find(struct kdapl_ep *ep,
					    const struct kdapl_ud_ah *ah)
{
	bool by_id = kdapl_ud_by_id(ep);
	struct kdapl_ud_ah *pos;

	lockdep_assert_held(&ep->lock);
	list_for_each_entry(pos, &ep->ud->ahs, node)
		if (by_id ? pos->id == (uintptr_t)ah : pos == ah)
			return pos;
	return NULL;
}

/**
 * kdapl_ud_wr() - the datagram part of a send work request
 * @ep: the datagram EP, with ep->lock held
 * @remote: the consumer's address handle
 * @length: bytes of the message
 * @wr: its address handle, queue pair and queue key are set
 *
 * Context: any context, ep->lock held.
 * Return: DAT_SUCCESS, DAT_INVALID_PARAMETER | DAT_INVALID_ARG4 for a
 * handle the EP does not have, or DAT_LENGTH_ERROR for a message longer
 * than the MTU.
 */
DAT_RETURN kdapl_ud_wr(struct kdapl_ep *ep, const DAT_IB_ADDR_HANDLE *remote,
		       u64 length, struct ib_ud_wr *wr)
{
	struct kdapl_ud_ah *ah = kdapl_ud_ah_find(ep, remote->ah);

	if (!ah)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (length > ep->ud->mtu)
		return dat_error(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	wr->ah = ah->ah;
	wr->remote_qpn = remote->qpn;
	wr->remote_qkey = ah->qkey;
	return DAT_SUCCESS;
}

/*
 * The datagram EP of @ep_handle, with a reference: a bad handle is
 * DAT_INVALID_HANDLE, an IA without datagrams DAT_NOT_IMPLEMENTED (as
 * for dat_ib_post_send_ud()), another EP DAT_INVALID_PARAMETER
 * (argument 1).
 */
static DAT_RETURN kdapl_ud_ep_get(struct kdapl_owner *owner,
				  DAT_EP_HANDLE ep_handle,
				  struct kdapl_ep **epp)
{
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, epp);
	if (ret)
		return ret;
	if (kdapl_ep_is_ud(*epp))
		return DAT_SUCCESS;
	ret = (*epp)->obj.ia->ib_ext & KDAPL_IB_EXT_UD ?
	      dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1) :
	      dat_error(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	kdapl_object_put(&(*epp)->obj);
	return ret;
}

/**
 * kdapl_ep_ud_ah_free() - dat_ib_ud_ah_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ib_ud_ah_free()
 * @remote: as for dat_ib_ud_ah_free()
 *
 * Context: as dat_ib_ud_ah_free().
 * Return: as dat_ib_ud_ah_free().
 */
DAT_RETURN kdapl_ep_ud_ah_free(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle,
			       const DAT_IB_ADDR_HANDLE *remote)
{
	struct kdapl_ud_ah *ah = NULL;
	unsigned long flags;
	struct kdapl_ep *ep;
	DAT_RETURN ret;
	LIST_HEAD(list);

	ret = kdapl_ud_ep_get(owner, ep_handle, &ep);
	if (ret)
		return ret;
	if (!remote) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto put;
	}
	/* The EP's free, which frees ep->ud, runs under the IA lock. */
	mutex_lock(&ep->obj.ia->lock);
	if (!kdapl_object_alive(&ep->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto unlock;
	}
	spin_lock_irqsave(&ep->lock, flags);
	ah = kdapl_ud_ah_find(ep, remote->ah);
	if (ah) {
		ah->retire = kdapl_dto_req_mark(ep);
		list_move_tail(&ah->node, &ep->ud->dead);
	}
	kdapl_ud_dead_take(ep, &list);
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_ud_ah_destroy_list(&list);
	if (!ah)
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
unlock:
	mutex_unlock(&ep->obj.ia->lock);
put:
	kdapl_object_put(&ep->obj);
	return ret;
}

/**
 * dat_ib_ud_ah_free() - free an address handle of a datagram EP
 * @ep_handle: the EP that resolved it
 * @remote_ah: the handle, as the DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED
 *	that brought it gave it
 *
 * The handle may not be given to dat_ib_post_send_ud() any more.  It is
 * destroyed now if the requests the EP posted before completed, else by
 * the first free of a handle, connect or accept on the EP that finds
 * them completed, or by the EP's teardown.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_EP for a
 * bad @ep_handle; DAT_NOT_IMPLEMENTED where the IA has no datagram EPs
 * (iWARP); DAT_INVALID_PARAMETER | DAT_INVALID_ARG1 for an EP that is
 * not a datagram EP, | DAT_INVALID_ARG2 for a handle that the EP does
 * not have (freed already, or another EP's).
 */
DAT_RETURN dat_ib_ud_ah_free(DAT_EP_HANDLE ep_handle,
			     DAT_IB_ADDR_HANDLE *remote_ah)
{
	return kdapl_ep_ud_ah_free(&kdapl_kernel_owner, ep_handle, remote_ah);
}
EXPORT_SYMBOL(dat_ib_ud_ah_free);

/* ---------------------------------------------------------------------
 * Resolutions
 */

/* Address and route resolution of a peer, as for connections. */
#define KDAPL_UD_RESOLVE_MS	2000

/*
 * Queue the event that ends resolution @peer on its EP's connect EVD:
 * @number, with extension data of @type, the address handle @ah (NULL
 * but on the active side's ESTABLISHED; for a process its id @ah_id,
 * since the process may have freed @ah already), the peer's queue pair
 * @qpn and address, the peer's private data, and @peer as the context.
 * ep->lock held; the EVD only queues it.
 */
static void kdapl_ud_push(struct kdapl_ud_peer *peer, DAT_EVENT_NUMBER number,
			  DAT_IB_EXT_TYPE type, struct kdapl_ud_ah *ah,
			  u32 ah_id, u32 qpn)
{
	struct kdapl_ep *ep = peer->ep;
	DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_CONNECTION_EVENT_DATA *data;
	DAT_EVENT event = {};

	lockdep_assert_held(&ep->lock);
	peer->done = true;
	if (!ep->connect_evd)
		return;
	event.event_number = number;
	data = &event.event_data.connect_event_data;
	data->ep_handle = kdapl_object_handle(&ep->obj);
	if (peer->pd_size) {
		data->private_data_size = peer->pd_size;
		data->private_data = peer->pd;
	}
	x = (DAT_IB_EXTENSION_EVENT_DATA *)event.event_extension_data;
	x->type = type;
	x->status = number == (DAT_EVENT_NUMBER)
			      DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED ?
		    DAT_OP_SUCCESS : DAT_IB_OP_ERR;
	if (kdapl_ud_by_id(ep)) {
		x->remote_ah.ah = (struct kdapl_ud_ah *)(uintptr_t)ah_id;
		x->context.as_64 = peer->uid;
	} else {
		x->remote_ah.ah = ah;
		x->context.as_ptr = peer;
	}
	x->remote_ah.qpn = qpn;
	/* An IPv4 address fits in the IPv6 one's place, as in uDAT. */
	memcpy(&x->remote_ah.ia_addr, &peer->remote,
	       sizeof(x->remote_ah.ia_addr));
	kdapl_stat_inc(ep->obj.ia->adapter, KDAPL_STAT_CONNECTION_EVENTS);
	kdapl_evd_count(ep->connect_evd, DCNT_EVD_CONN_CALLBACK);
	kdapl_evd_post(ep->connect_evd, &event);
}

/* End resolution @peer with @number and @type, once.  No lock held. */
static void kdapl_ud_fail(struct kdapl_ud_peer *peer, DAT_EVENT_NUMBER number,
			  DAT_IB_EXT_TYPE type)
{
	struct kdapl_ep *ep = peer->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (!peer->done)
		kdapl_ud_push(peer, number, type, NULL, 0, 0);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/* The route is known: send the request, with the EP's queue pair. */
static int kdapl_ud_request(struct kdapl_ud_peer *peer, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.private_data = peer->param_pd_size ? peer->param_pd : NULL,
		.private_data_len = peer->param_pd_size,
	};
	struct kdapl_ep *ep = peer->ep;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&ep->lock, flags);
	if (ep->qp)
		param.qp_num = ep->qp->qp_num;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!param.qp_num)
		return -ENOTCONN;
	err = rdma_connect_locked(id, &param);
	if (!err)
		kdapl_ia_count(ep->obj.ia, DCNT_IA_CM_AH_REQ_TX);
	return err;
}

/* Keep the private data of the peer's answer for the event. */
static void kdapl_ud_keep_pd(struct kdapl_ud_peer *peer,
			     const struct rdma_ud_param *ud)
{
	struct kdapl_ep *ep = peer->ep;
	unsigned long flags;

	if (!ud->private_data)
		return;
	spin_lock_irqsave(&ep->lock, flags);
	if (!peer->done) {
		peer->pd_size = min_t(u8, ud->private_data_len,
				      sizeof(peer->pd));
		memcpy(peer->pd, ud->private_data, peer->pd_size);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
}

/*
 * The peer answered: make the address handle and report it, with the
 * peer's private data.  rdma_cm frees @ud's address when the handler
 * returns, so the handle is made here, in the handler, which may sleep.
 */
static void kdapl_ud_resolved(struct kdapl_ud_peer *peer,
			      struct rdma_ud_param *ud)
{
	struct kdapl_ep *ep = peer->ep;
	struct kdapl_ud_ah *ah = NULL;
	struct ib_pd *pd = NULL;
	unsigned long flags;
	int err = -ENOTCONN;
	u32 ah_id = 0;

	kdapl_ud_keep_pd(peer, ud);
	spin_lock_irqsave(&ep->lock, flags);
	if (ep->pz && !peer->done)
		pd = ep->pz->pd;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (pd)
		err = kdapl_ud_ah_create(ep, pd, &ud->ah_attr, ud->qkey, &ah,
					 &ah_id);
	if (err) {
		kdapl_ud_fail(peer, (DAT_EVENT_NUMBER)
				    DAT_IB_UD_CONNECTION_ERROR_EVENT,
			      DAT_IB_UD_CONNECT_ERROR);
		return;
	}
	kdapl_ia_count(ep->obj.ia, DCNT_IA_CM_AH_RESOLVED);
	spin_lock_irqsave(&ep->lock, flags);
	/* Else the handle stays with the EP until its teardown. */
	if (!peer->done)
		kdapl_ud_push(peer, (DAT_EVENT_NUMBER)
				    DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
			      DAT_IB_UD_REMOTE_AH, ah, ah_id, ud->qp_num);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/* Is the one event of @peer queued (or was it refused)? */
static bool kdapl_ud_peer_done(struct kdapl_ud_peer *peer)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&peer->ep->lock, flags);
	done = peer->done;
	spin_unlock_irqrestore(&peer->ep->lock, flags);
	return done;
}

/**
 * kdapl_ud_cm_event() - rdma_cm event of a resolution
 * @ctx: the &kdapl_ud_peer.ctx of the resolution
 * @id: its identifier
 * @event: the event
 *
 * Address and route resolution, then the SIDR request; the answer ends
 * the resolution with ESTABLISHED, a peer's refusal (a SIDR reply that
 * rejects) with DAT_IB_UD_CONNECTION_REJECT_EVENT, anything else that
 * ends it with DAT_IB_UD_CONNECTION_ERROR_EVENT.
 *
 * Context: an rdma_cm handler: process context, without the IA lock.
 * Return: 0: the identifier is destroyed by dat_ib_ud_cm_free() or the
 * EP's teardown.
 */
int kdapl_ud_cm_event(struct kdapl_cm_ctx *ctx, struct rdma_cm_id *id,
		      struct rdma_cm_event *event)
{
	struct kdapl_ud_peer *peer = container_of(ctx, struct kdapl_ud_peer,
						  ctx);
	DAT_EVENT_NUMBER fail = (DAT_EVENT_NUMBER)
				DAT_IB_UD_CONNECTION_ERROR_EVENT;
	DAT_IB_EXT_TYPE type = DAT_IB_UD_CONNECT_ERROR;

	/* A resolution refused as it started goes no further. */
	if (kdapl_ud_peer_done(peer))
		return 0;
	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (!rdma_resolve_route(id, KDAPL_UD_RESOLVE_MS))
			return 0;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (!kdapl_ud_request(peer, id))
			return 0;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		kdapl_ud_resolved(peer, &event->param.ud);
		return 0;
	case RDMA_CM_EVENT_UNREACHABLE:
		/* A SIDR reply that rejects, with the consumer's data. */
		if (event->status == IB_SIDR_REJECT) {
			kdapl_ud_keep_pd(peer, &event->param.ud);
			fail = (DAT_EVENT_NUMBER)
			       DAT_IB_UD_CONNECTION_REJECT_EVENT;
			type = DAT_IB_UD_CONNECT_REJECT;
		}
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		break;
	default:
		return 0;
	}
	kdapl_ud_fail(peer, fail, type);
	return 0;
}

/* Map an errno of starting address resolution to a DAT_RETURN. */
static DAT_RETURN kdapl_ud_addr_error(int err)
{
	if (err == -ENOMEM || err == -ENOBUFS)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	if (err == -EXDEV)	/* the IA's address is on another device now */
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_UNSUPPORTED);
	return dat_error(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNREACHABLE);
}

/*
 * Does @ep hold ud_peers_max resolutions and address handles?  Freed
 * handles whose sends completed are destroyed first.  A handle that a
 * resolution in progress adds later is not counted yet: at most as many
 * as are in progress go past the limit.  An EP whose teardown stopped
 * its resolutions since kdapl_cm_ud_up() is not full: the call fails
 * later with its state error.  Process context.
 */
static bool kdapl_ud_reclaim_full(struct kdapl_ep *ep)
{
	struct kdapl_ud *ud = ep->ud;
	unsigned long flags;
	LIST_HEAD(dead);
	bool full;

	spin_lock_irqsave(&ep->lock, flags);
	kdapl_ud_dead_take(ep, &dead);
	full = !ud->stopped &&
	       ud->npeers + ud->nahs >= READ_ONCE(kdapl_ud_peers_max);
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_ud_ah_destroy_list(&dead);
	return full;
}

/*
 * A new resolution of @ep, whose queue pair is brought up first if it is
 * not.  IA lock held.
 */
static DAT_RETURN kdapl_ud_peer_alloc(struct kdapl_ep *ep,
				      struct kdapl_ud_peer **peerp)
{
	struct kdapl_ud_peer *peer;
	DAT_RETURN ret;

	ret = kdapl_cm_ud_up(ep);
	if (ret)
		return ret;
	/*
	 * After the state checks of kdapl_cm_ud_up(), which brings up only
	 * an EP that holds nothing yet.  Resolutions are listed under the
	 * IA lock: none is added meanwhile.
	 */
	if (kdapl_ud_reclaim_full(ep))
		return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	/* Charged to the process that connects or accepts, if it is one. */
	peer = kzalloc(sizeof(*peer), GFP_KERNEL_ACCOUNT);
	if (!peer)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	peer->ctx.kind = KDAPL_CM_UD;
	peer->ep = ep;
	/* Until it is listed, its handler does nothing. */
	peer->done = true;
	*peerp = peer;
	return DAT_SUCCESS;
}

/* The error of a resolution that starts once the teardown stopped them. */
static DAT_RETURN kdapl_ud_stopped(void)
{
	return kdapl_ep_state_error(DAT_EP_STATE_DISCONNECTED);
}

/*
 * List @peer on its EP, unless the EP's teardown stopped its
 * resolutions: then @peer stays done, so that its handler, which may
 * run from now on, does nothing.  ep->lock held.
 */
static bool kdapl_ud_peer_list(struct kdapl_ud_peer *peer)
{
	struct kdapl_ep *ep = peer->ep;

	lockdep_assert_held(&ep->lock);
	if (ep->ud->stopped)
		return false;
	peer->uid = kdapl_ud_new_id(ep);
	list_add_tail(&peer->node, &ep->ud->peers);
	ep->ud->npeers++;
	peer->done = false;
	return true;
}

/*
 * The identifier of a resolution, bound to the IA's address on the IA's
 * device (an address that moved to another device is refused, see
 * kdapl_port_bind_addr()).
 */
static DAT_RETURN kdapl_ud_peer_id(struct kdapl_ia *ia,
				   struct kdapl_ud_peer *peer)
{
	struct sockaddr_storage src = ia->addr;
	struct rdma_cm_id *id;
	int err;

	id = rdma_create_id(&init_net, kdapl_cm_handler, &peer->ctx,
			    RDMA_PS_UDP, IB_QPT_UD);
	if (IS_ERR(id))
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	kdapl_sockaddr_set_port((struct sockaddr *)&src, 0);
	err = kdapl_port_bind_addr(id, (struct sockaddr *)&src, ia->ibdev);
	if (err) {
		rdma_destroy_id(id);
		return kdapl_ud_addr_error(err);
	}
	peer->id = id;
	return DAT_SUCCESS;
}

/**
 * kdapl_ud_connect() - dat_ep_connect() of a datagram EP
 * @ep: the EP, alive
 * @dst: the peer's address, checked
 * @conn_qual: the qualifier its PSP listens on
 * @pd_size: bytes of @pd, checked against KDAPL_PRIVATE_DATA_MAX
 * @pd: private data for the request
 *
 * Brings the EP's queue pair up if it is not, and starts resolving
 * @dst from the IA's address; where that address now belongs to
 * another device, the connect is DAT_INVALID_ADDRESS_UNSUPPORTED.  The
 * connect timeout of DAT does not apply: resolution gives up by itself
 * (rdma_cm's resolution and SIDR timeouts) with
 * DAT_IB_UD_CONNECTION_ERROR_EVENT.
 *
 * Context: process context, the IA lock held.
 * Return: DAT_SUCCESS, or the error of dat_ep_connect().
 */
DAT_RETURN kdapl_ud_connect(struct kdapl_ep *ep, const struct sockaddr *dst,
			    DAT_CONN_QUAL conn_qual, DAT_COUNT pd_size,
			    const void *pd)
{
	struct kdapl_ia *ia = ep->obj.ia;
	struct kdapl_ud_peer *peer;
	struct rdma_cm_id *id;
	unsigned long flags;
	bool listed = false;
	DAT_RETURN ret;
	int err;

	lockdep_assert_held(&ia->lock);
	if (pd_size > KDAPL_UD_PRIVATE_DATA)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (ia->addr.ss_family != dst->sa_family)
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_UNSUPPORTED);
	ret = kdapl_ud_peer_alloc(ep, &peer);
	if (ret)
		return ret;
	memcpy(&peer->remote, dst, dst->sa_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	kdapl_sockaddr_set_port((struct sockaddr *)&peer->remote,
				kdapl_conn_qual_port(conn_qual));
	peer->param_pd_size = pd_size;
	if (pd_size)
		memcpy(peer->param_pd, pd, pd_size);
	ret = kdapl_ud_peer_id(ia, peer);
	if (ret) {
		kfree(peer);
		return ret;
	}
	id = peer->id;
	/* Handlers wait until it is listed; one that ran before found it done. */
	rdma_lock_handler(id);
	err = rdma_resolve_addr(id, NULL, (struct sockaddr *)&peer->remote,
				KDAPL_UD_RESOLVE_MS);
	if (!err) {
		spin_lock_irqsave(&ep->lock, flags);
		listed = kdapl_ud_peer_list(peer);
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	rdma_unlock_handler(id);
	if (listed)
		return DAT_SUCCESS;
	/* Waits for a handler that ran meanwhile: it found @peer done. */
	rdma_destroy_id(id);
	kfree(peer);
	return err ? kdapl_ud_addr_error(err) : kdapl_ud_stopped();
}

/**
 * kdapl_ud_accept() - dat_cr_accept() of a datagram request
 * @ep: a datagram EP, alive
 * @id: the request's identifier, owned by its CR
 * @pd: private data for the answer
 * @pd_size: bytes of @pd
 * @cr: the CR
 *
 * Brings the EP's queue pair up if it is not and answers the request
 * with its number; the resolution takes @id.  Its ESTABLISHED event
 * (type DAT_IB_UD_PASSIVE_REMOTE_AH) is queued before this returns.
 *
 * Context: process context, the IA lock held.
 * Return: DAT_SUCCESS, or the error of dat_cr_accept(); on failure @id
 * stays with the CR.
 */
DAT_RETURN kdapl_ud_accept(struct kdapl_ep *ep, struct rdma_cm_id *id,
			   const void *pd, u8 pd_size,
			   const struct kdapl_cr *cr)
{
	struct rdma_conn_param param = {
		.private_data = pd_size ? pd : NULL,
		.private_data_len = pd_size,
	};
	struct kdapl_ud_peer *peer;
	unsigned long flags;
	DAT_RETURN ret;
	int err;

	lockdep_assert_held(&ep->obj.ia->lock);
	ret = kdapl_ud_peer_alloc(ep, &peer);
	if (ret)
		return ret;
	peer->id = id;
	memcpy(&peer->remote, &cr->remote_addr, sizeof(peer->remote));
	spin_lock_irqsave(&ep->lock, flags);
	if (ep->qp && !ep->ud->stopped)
		param.qp_num = ep->qp->qp_num;
	spin_unlock_irqrestore(&ep->lock, flags);

	rdma_lock_handler(id);
	WRITE_ONCE(id->context, &peer->ctx);
	err = param.qp_num ? rdma_accept(id, &param) : -ENOTCONN;
	if (!err) {
		spin_lock_irqsave(&ep->lock, flags);
		/* Answered, but the teardown may have begun meanwhile. */
		if (kdapl_ud_peer_list(peer))
			kdapl_ud_push(peer, (DAT_EVENT_NUMBER)
					    DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
				      DAT_IB_UD_PASSIVE_REMOTE_AH, NULL, 0, 0);
		else
			err = -ENOTCONN;
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	if (!err) {
		rdma_unlock_handler(id);
		return DAT_SUCCESS;
	}
	WRITE_ONCE(id->context, (void *)&cr->ctx);
	rdma_unlock_handler(id);
	kfree(peer);
	if (err == -ENOMEM)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
}

static void kdapl_ud_peer_free(struct kdapl_evd_gone *gone)
{
	kfree(container_of(gone, struct kdapl_ud_peer, gone));
}

/*
 * Destroy resolution @peer, off its EP's list.  Its memory goes once its
 * event, which points to its private data, is past the connect EVD's
 * upcall: a process's is copied to the process's ring from there.  IA
 * lock and ud->lock held, so that the EVD stays the EP's.
 */
static void kdapl_ud_peer_destroy(struct kdapl_ud_peer *peer)
{
	struct kdapl_evd *evd = READ_ONCE(peer->ep->connect_evd);

	lockdep_assert_held(&peer->ep->ud->lock);
	/* Waits for a running handler; none runs afterwards. */
	if (peer->id)
		rdma_destroy_id(peer->id);
	peer->gone.free = kdapl_ud_peer_free;
	if (evd)
		kdapl_evd_defer_free(evd, &peer->gone);
	else
		kdapl_ud_peer_free(&peer->gone);
}

/**
 * kdapl_ud_peers_stop() - end every resolution of an EP in progress
 * @ep: a datagram EP whose queue pair is being torn down
 *
 * Marks the resolutions stopped, so that none is listed any more until
 * the EP is reset, and destroys the listed ones' identifiers, so that
 * none adds an address handle or an event any more; keeps their memory:
 * the private data their events gave stays valid until the EP is reset
 * or freed (kdapl_ud_peers_destroy()) or the consumer frees the
 * resolution.
 *
 * Context: process context, from kdapl_conn_teardown() (conn->lock held)
 * or a KUnit case.
 */
void kdapl_ud_peers_stop(struct kdapl_ep *ep)
{
	struct kdapl_ud_peer *peer;
	struct rdma_cm_id *id;
	unsigned long flags;

	mutex_lock(&ep->ud->lock);
	do {
		id = NULL;
		spin_lock_irqsave(&ep->lock, flags);
		ep->ud->stopped = true;
		list_for_each_entry(peer, &ep->ud->peers, node) {
			if (peer->id) {
				id = peer->id;
				peer->id = NULL;
				break;
			}
		}
		spin_unlock_irqrestore(&ep->lock, flags);
		/* Waits for a running handler; none runs afterwards. */
		if (id)
			rdma_destroy_id(id);
	} while (id);
	mutex_unlock(&ep->ud->lock);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ud_peers_stop);

/**
 * kdapl_ud_peers_destroy() - destroy every resolution of an EP
 * @ep: a datagram EP being reset or freed
 *
 * Context: process context, the IA lock held.
 */
void kdapl_ud_peers_destroy(struct kdapl_ep *ep)
{
	struct kdapl_ud_peer *peer, *next;
	unsigned long flags;
	LIST_HEAD(list);

	lockdep_assert_held(&ep->obj.ia->lock);
	mutex_lock(&ep->ud->lock);
	spin_lock_irqsave(&ep->lock, flags);
	list_splice_init(&ep->ud->peers, &list);
	ep->ud->npeers = 0;
	/* The reset's new queue pair resolves afresh. */
	ep->ud->stopped = false;
	spin_unlock_irqrestore(&ep->lock, flags);
	list_for_each_entry_safe(peer, next, &list, node) {
		list_del(&peer->node);
		kdapl_ud_peer_destroy(peer);
	}
	mutex_unlock(&ep->ud->lock);
}

/**
 * kdapl_ep_ud_cm_free() - dat_ib_ud_cm_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ib_ud_cm_free()
 * @cm: as for dat_ib_ud_cm_free()
 *
 * Context: as dat_ib_ud_cm_free().
 * Return: as dat_ib_ud_cm_free().
 */
DAT_RETURN kdapl_ep_ud_cm_free(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle, DAT_CONTEXT cm)
{
	struct kdapl_ud_peer *peer = NULL, *pos;
	struct kdapl_ia *ia;
	unsigned long flags;
	struct kdapl_ep *ep;
	DAT_RETURN ret;

	ret = kdapl_ud_ep_get(owner, ep_handle, &ep);
	if (ret)
		return ret;
	ia = ep->obj.ia;
	mutex_lock(&ia->lock);
	if (!kdapl_object_alive(&ep->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto unlock;
	}
	mutex_lock(&ep->ud->lock);
	spin_lock_irqsave(&ep->lock, flags);
	list_for_each_entry(pos, &ep->ud->peers, node) {
		if (kdapl_ud_by_id(ep) ? pos->uid == cm.as_64 :
					 pos == cm.as_ptr) {
			peer = pos;
			list_del(&peer->node);
			ep->ud->npeers--;
			break;
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (peer)
		kdapl_ud_peer_destroy(peer);
	else
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	mutex_unlock(&ep->ud->lock);
unlock:
	mutex_unlock(&ia->lock);
	kdapl_object_put(&ep->obj);
	return ret;
}

/**
 * dat_ib_ud_cm_free() - free the resolution of a datagram EP's peer
 * @ep_handle: the EP
 * @cm: the resolution: the @context of the extension data of its
 *	DAT_IB_UD_CONNECTION_* event
 *
 * The private data that event gave goes with it; the address handle
 * stays, until dat_ib_ud_ah_free() or the EP's teardown (a disconnect,
 * a broken queue pair, a reset or the free).
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_EP for a
 * bad @ep_handle; DAT_NOT_IMPLEMENTED where the IA has no datagram EPs
 * (iWARP); DAT_INVALID_PARAMETER | DAT_INVALID_ARG1 for an EP that is
 * not a datagram EP, | DAT_INVALID_ARG2 for a resolution the EP does
 * not have (freed already, or another EP's).
 */
DAT_RETURN dat_ib_ud_cm_free(DAT_EP_HANDLE ep_handle, DAT_CONTEXT cm)
{
	return kdapl_ep_ud_cm_free(&kdapl_kernel_owner, ep_handle, cm);
}
EXPORT_SYMBOL(dat_ib_ud_cm_free);
