// SPDX-License-Identifier: GPL-2.0
/*
 * kDAT connections of Endpoints: dat_ep_connect(), dat_ep_dup_connect(),
 * dat_ep_disconnect(), the accept half of dat_cr_accept(), and the
 * rdma_cm event handler of every kdapl identifier.
 *
 * One struct kdapl_conn exists per connection attempt of an EP, active
 * or passive.  It owns the rdma_cm identifier, the queue pair and the
 * private CQs of an EP without a DTO EVD, and turns rdma_cm events into
 * EP states and DAT connection events.  It lives from dat_ep_connect()
 * or dat_cr_accept() until dat_ep_reset() or dat_ep_free().
 *
 * Contexts: the rdma_cm handler runs in process context and never takes
 * an IA lock, so rdma_destroy_id() may be called with one held.
 * Connection events are posted on the connect EVD under ep->lock, in
 * the order of the states they report; kdapl_evd_post() only queues
 * them, and the EVD's kick work hands them to an upcall with no lock
 * held.  The verbs resources are torn down by kdapl_conn_teardown(),
 * called with the IA lock held (free, reset, detach, disconnect) or from
 * a work item (after a failure or a peer's disconnect, and on a connect
 * timeout), serialised by conn->lock.  See Documentation/connections.rst.
 *
 * Lock order: IA lock, conn->lock, a datagram EP's ud->lock, rdma_cm
 * handler mutex (taken by rdma_destroy_id() and rdma_lock_handler()),
 * ep->lock.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "kdapl.h"
#include "kdapl_trace.h"

/*
 * Private data of a connection: an InfiniBand or RoCE REQ has 92 bytes
 * of which rdma_cm takes 36 for its own header (the REP's 196 and the
 * REJ's 148 are larger); iWARP MPA carries RDMA_MAX_PRIVATE_DATA (256,
 * siw's MPA_MAX_PRIVDATA) bytes, of which MPA v2 (the default of siw)
 * takes 4 for the IRD/ORD exchange.  The IA reports them
 * (max_private_data_size) through kdapl_cm_private_data_max().
 */
#define KDAPL_CM_PRIVATE_DATA_IB	56
#define KDAPL_CM_PRIVATE_DATA_IWARP	252

/* Address and route resolution; a shorter DAT timeout still applies. */
#define KDAPL_CM_RESOLVE_MS		2000

/*
 * Transport retries: 6, so that a peer that died (its host gone, no
 * disconnect sent) fails the next work request and breaks the
 * connection in bounded time.  rxe takes 7 as "forever", as the IB spec
 * does only for receiver-not-ready retries, which stay at 7: a peer
 * that is slow to post a receive is alive.  kdapl moves its QPs to RTS
 * itself (kdapl_conn_qp_modify()), so an accepted connection keeps this
 * count too, whatever the peer's request asked for.
 */
#define KDAPL_CM_RETRY			6
#define KDAPL_CM_RNR_RETRY		7

/**
 * struct kdapl_conn - one connection attempt of an EP
 * @ctx: rdma_cm context of @id (kind KDAPL_CM_EP)
 * @ref: references: the EP's (ep->conn) and one per queued work item
 * @ep: the EP, with a reference to its object
 * @lock: serialises kdapl_conn_teardown(); protects @id, @qp and the CQs
 * @id: the rdma_cm identifier, or NULL once destroyed
 * @qp: the queue pair, or NULL once destroyed
 * @send_cq: private send CQ (EP without a request EVD), or NULL
 * @recv_cq: private receive CQ (EP without a receive EVD), or NULL
 * @request_evd: EVD whose CQ the QP sends to, with a use, or NULL
 * @recv_evd: EVD whose CQ the QP receives to, with a use, or NULL
 * @request_evd_cq: the CQ of @request_evd the QP sends to
 * @recv_evd_cq: the CQ of @recv_evd the QP receives to
 * @send_cqes: room reserved in @request_evd's CQ
 * @recv_cqes: room reserved in @recv_evd's CQ
 * @passive: created by dat_cr_accept()
 * @ud: the queue pair of a datagram EP (kdapl_cm_ud_up()): up from its
 *	creation until the EP is reset or freed, with no peer of its own
 * @torn: the verbs resources are gone (under @lock)
 * @connected: rdma_cm reported ESTABLISHED (ep->lock)
 * @up: the consumer was told: DAT_CONNECTION_EVENT_ESTABLISHED is queued
 *	(ep->lock)
 * @ended: the last connection event is queued, the EP is DISCONNECTED
 *	(ep->lock)
 * @dying: teardown began; rdma_cm events are ignored (ep->lock)
 * @rtr: iWARP: the initiator-first exchange runs (see kdapl_conn_rtr_done())
 * @rtr_wait: the peer's message of the exchange has not arrived yet
 *	(ep->lock)
 * @rts_done: kdapl_conn_rts_work() finished its part (ep->lock)
 * @rtr_cqe: completion handle of the exchange's receive and Send
 * @pd_size: bytes of @pd
 * @pd: private data of the event that carries some (ESTABLISHED or
 *	PEER_REJECTED); written once, before that event is queued
 * @max_inline: bytes the QP's sends may carry inline, as its driver said
 * @timer: connect timeout
 * @timeout_work: the timeout, in process context
 * @teardown_work: teardown after a failure or the peer's disconnect
 * @rts_work: what follows ESTABLISHED, out of the rdma_cm handler
 * @remote: the peer's address (active side)
 * @conn_qual: the peer's connection qualifier (active side)
 * @param: rdma_cm connection parameters, with @param_pd
 * @param_pd: the consumer's private data for the request or the reply
 * @port_sock: the socket that reserves the local port of an active
 *	connection on soft iWARP (kdapl_port.c), or NULL
 * @pd_evd: the connect EVD an event with @pd went to, held from the
 *	EP's release of the conn: @pd is freed through it
 * @gone: the conn's memory, for kdapl_evd_defer_free()
 */
struct kdapl_conn {
	struct kdapl_cm_ctx ctx;
	struct kref ref;
	struct kdapl_ep *ep;
	struct mutex lock;	/* see above */
	struct rdma_cm_id *id;
	struct ib_qp *qp;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	struct kdapl_evd *request_evd;
	struct kdapl_evd *recv_evd;
	struct ib_cq *request_evd_cq;
	struct ib_cq *recv_evd_cq;
	u32 send_cqes;
	u32 recv_cqes;
	bool passive;
	bool ud;
	bool torn;
	bool connected;
	bool up;
	bool ended;
	bool dying;
	bool rtr;
	bool rtr_wait;
	bool rts_done;
	struct ib_cqe rtr_cqe;
	DAT_COUNT pd_size;
	u8 pd[U8_MAX];
	u32 max_inline;
	struct timer_list timer;
	struct work_struct timeout_work;
	struct work_struct teardown_work;
	struct work_struct rts_work;
	DAT_SOCK_ADDR remote;
	DAT_CONN_QUAL conn_qual;
	struct rdma_conn_param param;
	u8 param_pd[U8_MAX];
	struct socket *port_sock;
	struct kdapl_evd *pd_evd;
	struct kdapl_evd_gone gone;
};

static u64 kdapl_cm_trace_handle(struct kdapl_ep *ep)
{
	return (u64)(uintptr_t)kdapl_object_handle(&ep->obj);
}

/**
 * kdapl_cm_private_data_max() - longest private data of an IA's transport
 * @ia: the IA
 *
 * The limit of connection requests, accepts and rejects: 56 bytes for
 * InfiniBand and RoCE, 252 for iWARP.
 *
 * Context: any context.
 * Return: the limit in bytes.
 */
DAT_COUNT kdapl_cm_private_data_max(const struct kdapl_ia *ia)
{
	if (ia->adapter->transport == KDAPL_TRANSPORT_IWARP)
		return KDAPL_CM_PRIVATE_DATA_IWARP;
	return KDAPL_CM_PRIVATE_DATA_IB;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_cm_private_data_max);

/* ---------------------------------------------------------------------
 * Lifetime
 */

static void kdapl_conn_free(struct kdapl_evd_gone *gone)
{
	kfree(container_of(gone, struct kdapl_conn, gone));
}

/*
 * The last reference: the conn's memory goes, once the events that point
 * to its private data are past their EVD's upcalls.
 */
static void kdapl_conn_release(struct kref *ref)
{
	struct kdapl_conn *conn = container_of(ref, struct kdapl_conn, ref);
	struct kdapl_evd *evd = conn->pd_evd;

	WARN_ON_ONCE(!conn->torn);
	kdapl_object_put(&conn->ep->obj);
	conn->gone.free = kdapl_conn_free;
	if (!evd) {
		kdapl_conn_free(&conn->gone);
		return;
	}
	kdapl_evd_defer_free(evd, &conn->gone);
	kdapl_object_put(&evd->obj);
}

static void kdapl_conn_put(struct kdapl_conn *conn)
{
	kref_put(&conn->ref, kdapl_conn_release);
}

/* Queue a work item of @conn, which holds a reference while queued. */
static void kdapl_conn_queue(struct kdapl_conn *conn, struct work_struct *w)
{
	kref_get(&conn->ref);
	if (!queue_work(kdapl_wq, w))
		kdapl_conn_put(conn);	/* never the last: the caller has one */
}

static void kdapl_conn_timeout_work(struct work_struct *work);
static void kdapl_conn_teardown_work(struct work_struct *work);
static void kdapl_conn_rts_work(struct work_struct *work);
static void kdapl_conn_rtr_done(struct ib_cq *cq, struct ib_wc *wc);
static int kdapl_conn_rtr_recv(struct kdapl_conn *conn);

static void kdapl_conn_timer(struct timer_list *t)
{
	struct kdapl_conn *conn = from_timer(conn, t, timer);

	/* The timer is stopped before the EP lets go of the conn. */
	kdapl_conn_queue(conn, &conn->timeout_work);
}

static struct kdapl_conn *kdapl_conn_alloc(struct kdapl_ep *ep, bool passive)
{
	struct kdapl_conn *conn;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	conn->ctx.kind = KDAPL_CM_EP;
	kref_init(&conn->ref);
	kref_get(&ep->obj.ref);
	conn->ep = ep;
	conn->passive = passive;
	conn->rtr = ep->obj.ia->adapter->transport == KDAPL_TRANSPORT_IWARP;
	conn->rtr_wait = conn->rtr;
	conn->rtr_cqe.done = kdapl_conn_rtr_done;
	mutex_init(&conn->lock);
	timer_setup(&conn->timer, kdapl_conn_timer, 0);
	INIT_WORK(&conn->timeout_work, kdapl_conn_timeout_work);
	INIT_WORK(&conn->teardown_work, kdapl_conn_teardown_work);
	INIT_WORK(&conn->rts_work, kdapl_conn_rts_work);
	return conn;
}

/* ---------------------------------------------------------------------
 * Queue pair
 */

static void kdapl_conn_qp_event(struct ib_event *event, void *context);

/**
 * kdapl_conn_qp_caps() - the capacities of the QP of an EP
 * @ep: the EP
 * @attr: its attributes
 * @init: the QP's capacities and SRQ are filled in
 * @send_cqes: completions the send queue may have outstanding
 * @recv_cqes: completions the receive queue (or the SRQ) may have
 *	outstanding on this QP
 *
 * KDAPL_EP_WR_RESERVED work requests more per queue than the consumer may
 * post, and on the send queue the registrations and binds kdapl posts
 * itself: the EP limits of the IA (kdapl_ep_max_attr()) leave room for
 * them within the device's max_qp_wr.
 *
 * Context: any context.
 */
void kdapl_conn_qp_caps(const struct kdapl_ep *ep, const DAT_EP_ATTR *attr,
			struct ib_qp_init_attr *init, u32 *send_cqes,
			u32 *recv_cqes)
{
	const struct ib_device_attr *dev = &ep->obj.ia->ibdev->attrs;

	init->cap.max_send_wr = attr->max_request_dtos +
				KDAPL_EP_SEND_WR_EXTRA + KDAPL_EP_WR_RESERVED;
	init->cap.max_send_sge = max3(attr->max_request_iov,
				      attr->max_rdma_read_iov,
				      attr->max_rdma_write_iov);
	init->cap.max_send_sge = clamp_t(u32, init->cap.max_send_sge, 1,
					 dev->max_send_sge);
	if (ep->srq) {
		init->srq = ep->srq->srq;
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 1;
		/* Every receive of the SRQ may complete on this QP. */
		*recv_cqes = max_t(u32, ep->srq->dev_max_wr, 1) + 1;
	} else {
		init->cap.max_recv_wr = attr->max_recv_dtos +
					KDAPL_EP_WR_RESERVED;
		init->cap.max_recv_sge = clamp_t(u32, attr->max_recv_iov, 1,
						 dev->max_recv_sge);
		*recv_cqes = init->cap.max_recv_wr;
	}
	*send_cqes = init->cap.max_send_wr;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_conn_qp_caps);

/*
 * The CQ a queue of the QP completes on: @evd's, with room reserved for
 * @n completions, or without an EVD a private CQ of @n entries in
 * *@priv.  IA lock held.  Returns 0 or a negative errno.
 */
static int kdapl_conn_queue_cq(struct kdapl_conn *conn, struct kdapl_evd *evd,
			       u32 n, struct ib_cq **priv, struct ib_cq **cq)
{
	struct ib_cq *new;

	if (evd)
		new = kdapl_evd_cq_reserve(evd, n);
	else
		new = ib_alloc_cq(conn->ep->obj.ia->ibdev, NULL, n, 0,
				  IB_POLL_SOFTIRQ);
	if (IS_ERR(new))
		return PTR_ERR(new);
	if (!evd)
		*priv = new;
	*cq = new;
	return 0;
}

/*
 * Give back the CQs of @conn: the private ones are freed (the QP is
 * gone), the EVDs' reservations and uses dropped.  IA lock held.
 */
static void kdapl_conn_put_cqs(struct kdapl_conn *conn)
{
	if (conn->send_cq)
		ib_free_cq(conn->send_cq);
	if (conn->recv_cq)
		ib_free_cq(conn->recv_cq);
	conn->send_cq = NULL;
	conn->recv_cq = NULL;
	if (conn->request_evd) {
		kdapl_evd_cq_unreserve(conn->request_evd, conn->request_evd_cq,
				       conn->send_cqes);
		kdapl_unuse(&conn->request_evd->obj);
	}
	if (conn->recv_evd) {
		kdapl_evd_cq_unreserve(conn->recv_evd, conn->recv_evd_cq,
				       conn->recv_cqes);
		kdapl_unuse(&conn->recv_evd->obj);
	}
	conn->request_evd = NULL;
	conn->recv_evd = NULL;
}

/*
 * Get the CQs of the QP of @conn: the EVDs the EP has now, which it uses
 * and keeps until the conn goes whatever dat_ep_modify() does, or
 * private ones.  IA lock held.  On failure nothing is left.
 */
static int kdapl_conn_get_cqs(struct kdapl_conn *conn, u32 send_cqes,
			      u32 recv_cqes, struct ib_qp_init_attr *init)
{
	struct kdapl_ep *ep = conn->ep;
	struct kdapl_evd *req_evd, *recv_evd;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&ep->lock, flags);
	req_evd = ep->request_evd;
	recv_evd = ep->recv_evd;
	spin_unlock_irqrestore(&ep->lock, flags);

	err = kdapl_conn_queue_cq(conn, req_evd, send_cqes, &conn->send_cq,
				  &init->send_cq);
	if (err)
		return err;
	if (req_evd) {
		conn->request_evd = req_evd;
		conn->request_evd_cq = init->send_cq;
		conn->send_cqes = send_cqes;
		kdapl_use(&req_evd->obj);
	}
	err = kdapl_conn_queue_cq(conn, recv_evd, recv_cqes, &conn->recv_cq,
				  &init->recv_cq);
	if (err) {
		kdapl_conn_put_cqs(conn);
		return err;
	}
	if (recv_evd) {
		conn->recv_evd = recv_evd;
		conn->recv_evd_cq = init->recv_cq;
		conn->recv_cqes = recv_cqes;
		kdapl_use(&recv_evd->obj);
	}
	return 0;
}

/*
 * Move the QP of @conn to @state with the attributes rdma_cm gives for
 * the connection of @id.  kdapl creates its QPs with ib_create_qp(), not
 * rdma_create_qp(), so that ib_core counts them as kdapl's (rdma
 * resource show), and makes the transitions rdma_cm would make for its
 * own QPs: INIT at creation; INIT again (ib_cm fixes the access flags
 * once the peer's resources are known) and RTR before accepting or, on
 * the active side, once the reply is in (iWARP: before connecting); RTS
 * after RTR on IB and RoCE, where iw_cm's driver does it for iWARP.
 * Passive RTR and RTS take the responder resources and initiator depth
 * of the accept; RTS takes kdapl's retry counts, on the passive side
 * too, where ib_cm would give those of the peer's request.
 */
static int kdapl_conn_qp_modify(struct kdapl_conn *conn, struct rdma_cm_id *id,
				enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask = 0, err;

	err = rdma_init_qp_attr(id, &attr, &mask);
	if (err)
		return err;
	/*
	 * iw_cm opens every connection to remote reads and writes, but
	 * rdma_cm creates the iw_cm identifier of an active connection
	 * only inside rdma_connect(): before it, ask for the same.
	 */
	if (rdma_protocol_iwarp(id->device, id->port_num) &&
	    (mask & IB_QP_ACCESS_FLAGS))
		attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ;
	if (conn->passive) {
		attr.max_dest_rd_atomic = conn->param.responder_resources;
		attr.max_rd_atomic = conn->param.initiator_depth;
	}
	attr.retry_cnt = KDAPL_CM_RETRY;
	attr.rnr_retry = KDAPL_CM_RNR_RETRY;
	return ib_modify_qp(conn->qp, &attr, mask);
}

/* INIT again, then RTR, and RTS on IB and RoCE; see kdapl_conn_qp_modify(). */
static int kdapl_conn_qp_ready(struct kdapl_conn *conn, struct rdma_cm_id *id)
{
	int err;

	err = kdapl_conn_qp_modify(conn, id, IB_QPS_INIT);
	if (!err)
		err = kdapl_conn_qp_modify(conn, id, IB_QPS_RTR);
	if (!err && rdma_cap_ib_cm(id->device, id->port_num))
		err = kdapl_conn_qp_modify(conn, id, IB_QPS_RTS);
	return err;
}

/*
 * Create the QP of @conn on @id, which is bound to the IA's device, with
 * its CQs (see kdapl_conn_get_cqs()), move it to INIT and, on iWARP,
 * post the receive of the initiator-first exchange.  The IA lock is
 * held.  On failure nothing is left.
 */
static DAT_RETURN kdapl_conn_create_qp(struct kdapl_conn *conn,
				       struct rdma_cm_id *id)
{
	struct kdapl_ep *ep = conn->ep;
	struct ib_qp_init_attr init = {};
	u32 send_cqes, recv_cqes;
	unsigned long flags;
	DAT_EP_ATTR attr;
	struct ib_qp *qp;
	int err;

	lockdep_assert_held(&ep->obj.ia->lock);
	if (!ep->pz || !ep->pz->pd ||
	    (ep->srq && (!ep->srq->srq ||
			 READ_ONCE(ep->srq->state) == DAT_SRQ_STATE_ERROR)))
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	spin_lock_irqsave(&ep->lock, flags);
	attr = ep->attr;
	spin_unlock_irqrestore(&ep->lock, flags);

	kdapl_conn_qp_caps(ep, &attr, &init, &send_cqes, &recv_cqes);
	err = kdapl_conn_get_cqs(conn, send_cqes, recv_cqes, &init);
	if (err)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 err == -ENOMEM ? DAT_RESOURCE_MEMORY :
						  DAT_RESOURCE_TEVD);
	init.event_handler = kdapl_conn_qp_event;
	init.qp_context = ep;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = conn->ud ? IB_QPT_UD : IB_QPT_RC;
	init.port_num = id->port_num;
	qp = ib_create_qp(ep->pz->pd, &init);
	err = PTR_ERR_OR_ZERO(qp);
	if (!err) {
		conn->qp = qp;
		err = kdapl_conn_qp_modify(conn, id, IB_QPS_INIT);
	}
	/* Receives from the SRQ find their EP by QP. */
	if (!err && ep->srq)
		err = kdapl_srq_attach_qp(ep->srq, qp, ep);
	/* Last, and never with an SRQ: nothing is posted when it fails. */
	if (!err)
		err = kdapl_conn_rtr_recv(conn);
	if (err) {
		if (conn->qp)
			ib_destroy_qp(conn->qp);
		conn->qp = NULL;
		kdapl_conn_put_cqs(conn);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 err == -ENOMEM ? DAT_RESOURCE_MEMORY :
						  DAT_RESOURCE_TEP);
	}
	/* rdma_cm passes the QP's number and SRQ to the peer. */
	conn->param.qp_num = qp->qp_num;
	conn->param.srq = !!ep->srq;
	/* What the driver gives, which may be more than asked (0). */
	conn->max_inline = init.cap.max_inline_data;
	return DAT_SUCCESS;
}

/* The QP of @conn leaves its EP's SRQ, if any, before it is destroyed. */
static void kdapl_conn_detach_srq(struct kdapl_conn *conn, struct ib_qp *qp)
{
	struct kdapl_srq *srq = READ_ONCE(conn->ep->srq);

	if (srq)
		kdapl_srq_detach_qp(srq, qp);
}

/*
 * rdma_disconnect() for a QP of kdapl's: on IB and RoCE the QP goes to
 * ERR first, as rdma_cm does for its own, so that what is posted is
 * flushed; iw_cm closes the QP of an iWARP connection itself.
 */
static int kdapl_conn_disconnect(struct kdapl_conn *conn)
{
	struct ib_qp_attr qp_attr = { .qp_state = IB_QPS_ERR };
	struct rdma_cm_id *id = conn->id;

	if (conn->qp && rdma_cap_ib_cm(id->device, id->port_num))
		ib_modify_qp(conn->qp, &qp_attr, IB_QP_STATE);
	return rdma_disconnect(id);
}

/*
 * Tell the peer, and move the QP to ERR to flush what a handler waits
 * for; @conn is dying.  A handler that started before may be inside
 * rdma_connect_locked(), which sets and, if the connection cannot be
 * started, frees and clears rdma_cm's ib_cm or iw_cm identifier, which
 * rdma_disconnect() uses.  On IB and RoCE this runs under the handler
 * mutex, which also lets kdapl_conn_accept() finish moving the QP
 * before it goes to ERR.  On iWARP iw_cm_disconnect() waits for a
 * pending connection's reply, whose handler needs that mutex: there,
 * only a connection that was established is disconnected, and
 * rdma_destroy_id() aborts any other.
 */
static void kdapl_conn_teardown_qp(struct kdapl_conn *conn,
				   struct rdma_cm_id *id, struct ib_qp *qp)
{
	struct ib_qp_attr qp_attr = { .qp_state = IB_QPS_ERR };
	struct kdapl_ep *ep = conn->ep;
	unsigned long flags;
	bool connected;

	if (rdma_cap_ib_cm(id->device, id->port_num)) {
		rdma_lock_handler(id);
		kdapl_conn_disconnect(conn);	/* ERR, then the DREQ */
		rdma_unlock_handler(id);
		return;
	}
	spin_lock_irqsave(&ep->lock, flags);
	connected = conn->connected;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (connected)
		kdapl_conn_disconnect(conn);
	ib_modify_qp(qp, &qp_attr, IB_QP_STATE);
}

/*
 * Wait until every work request of the QP of @conn, in ERR, completed.
 * ib_drain_qp() drains a send queue with an RDMA Write, which datagram
 * queue pairs refuse: there, every DTO being signalled, the flushed
 * completions of the EP's outstanding requests are awaited instead.
 */
static void kdapl_conn_drain(struct kdapl_conn *conn, struct ib_qp *qp)
{
	if (!conn->ud) {
		ib_drain_qp(qp);
		return;
	}
	ib_drain_rq(qp);
	kdapl_dto_wait_requests(conn->ep);
}

/*
 * Give the conn's verbs resources back: no handler runs any more, the
 * QP is drained, the receives still held in software are flushed, and
 * the QP, the identifier and the private CQs are destroyed.  Idempotent.
 *
 * The QP of an EP with an SRQ takes no receive from the SRQ once it is
 * destroyed: a connection that ended reports it then with
 * DAT_ASYNC_ERROR_EP_BROKEN on the IA's async EVD, the event IB calls
 * Last WQE Reached (OFA's dtestsrq waits for it under that number before
 * it frees the EP).  Not every device raises that event (rxe in 6.1 does
 * not), so kdapl reports its own instead.
 *
 * Process context, with or without the IA lock; never from a handler of
 * @conn->id.
 */
static void kdapl_conn_teardown(struct kdapl_conn *conn)
{
	struct kdapl_ep *ep = conn->ep;
	struct rdma_cm_id *id;
	unsigned long flags;
	struct ib_qp *qp;
	bool last_wqe;

	mutex_lock(&conn->lock);
	if (conn->torn)
		goto out;

	spin_lock_irqsave(&ep->lock, flags);
	/* Not when the EP is being freed or reset: that is no news. */
	last_wqe = conn->ended && !conn->dying && conn->qp && ep->srq;
	conn->dying = true;
	qp = conn->qp;
	id = conn->id;
	if (ep->qp == qp)
		WRITE_ONCE(ep->qp, NULL);
	if (ep->cm_id == id)
		ep->cm_id = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);
	del_timer_sync(&conn->timer);

	/* No resolution adds an address handle or an event any more. */
	if (conn->ud)
		kdapl_ud_peers_stop(ep);
	if (id && qp)
		kdapl_conn_teardown_qp(conn, id, qp);
	if (id) {
		/* Waits for a running handler; none runs afterwards. */
		rdma_destroy_id(id);
		conn->id = NULL;
	}
	kdapl_port_release(conn->port_sock);
	conn->port_sock = NULL;
	/* Its registrations are flushed by now: it returns soon. */
	if (cancel_work_sync(&conn->rts_work))
		kdapl_conn_put(conn);	/* never the last: the caller has one */
	if (qp)
		kdapl_conn_drain(conn, qp);
	kdapl_dto_qp_gone(ep);
	if (qp) {
		kdapl_conn_detach_srq(conn, qp);
		ib_destroy_qp(qp);
		conn->qp = NULL;
	}
	if (conn->ud)
		kdapl_ud_ah_destroy_all(ep);
	if (last_wqe)
		kdapl_ia_async_event(ep->obj.ia, DAT_ASYNC_ERROR_EP_BROKEN,
				     kdapl_object_handle(&ep->obj),
				     DAT_EP_TRANSFER_TO_ERROR);
	if (conn->send_cq)
		ib_free_cq(conn->send_cq);
	if (conn->recv_cq)
		ib_free_cq(conn->recv_cq);
	conn->send_cq = NULL;
	conn->recv_cq = NULL;
	conn->torn = true;
out:
	mutex_unlock(&conn->lock);
}

/*
 * Undo a conn that was never given to its EP: the identifier holds no
 * handler that matters (none can have run); the only work request
 * posted is the receive of the initiator-first exchange, drained here.
 * The IA lock is held.
 */
static void kdapl_conn_discard(struct kdapl_conn *conn)
{
	if (conn->qp) {
		if (conn->rtr && !conn->ep->srq)
			ib_drain_qp(conn->qp);
		kdapl_conn_detach_srq(conn, conn->qp);
		ib_destroy_qp(conn->qp);
		conn->qp = NULL;
	}
	if (conn->id)
		rdma_destroy_id(conn->id);
	conn->id = NULL;
	kdapl_port_release(conn->port_sock);
	conn->port_sock = NULL;
	kdapl_conn_put_cqs(conn);
	conn->torn = true;
	kdapl_conn_put(conn);
}

/* ---------------------------------------------------------------------
 * Connection events
 */

/* Count connection event @number of @conn's EP for DAT_COUNTERS. */
static void kdapl_conn_count(struct kdapl_conn *conn, DAT_EVENT_NUMBER number)
{
	struct kdapl_ia *ia = conn->ep->obj.ia;

	switch (number) {
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		kdapl_ia_count(ia, conn->passive ? DCNT_IA_CM_PASSIVE_EST :
						   DCNT_IA_CM_ACTIVE_EST);
		break;
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
		kdapl_ia_count(ia, DCNT_IA_CM_USER_REJ_RX);
		break;
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
		kdapl_ia_count(ia, DCNT_IA_CM_ERR_REFUSED);
		break;
	case DAT_CONNECTION_EVENT_TIMED_OUT:
		kdapl_ia_count(ia, DCNT_IA_CM_ERR_TIMEOUT);
		break;
	case DAT_CONNECTION_EVENT_UNREACHABLE:
	case DAT_CONNECTION_EVENT_BROKEN:
		kdapl_ia_count(ia, DCNT_IA_CM_ERR);
		break;
	default:
		break;
	}
}

/*
 * Post connection event @number of @ep, with @pd_size bytes of private
 * data at @pd, on its connect EVD, if it has one.  ep->lock is held, so
 * that the events of a connection reach the EVD in the order of the
 * states they report; the EVD only queues it.
 */
static void kdapl_ep_push(struct kdapl_ep *ep, DAT_EVENT_NUMBER number,
			  void *pd, DAT_COUNT pd_size)
{
	DAT_CONNECTION_EVENT_DATA *data;
	DAT_EVENT event = {};

	lockdep_assert_held(&ep->lock);
	trace_kdapl_conn_event(kdapl_cm_trace_handle(ep), number, ep->state);
	if (!ep->connect_evd)
		return;
	event.event_number = number;
	data = &event.event_data.connect_event_data;
	data->ep_handle = kdapl_object_handle(&ep->obj);
	data->private_data_size = pd_size;
	data->private_data = pd;
	kdapl_stat_inc(ep->obj.ia->adapter, KDAPL_STAT_CONNECTION_EVENTS);
	/* Before the event: whoever dequeues it sees it counted. */
	kdapl_evd_count(ep->connect_evd, DCNT_EVD_CONN_CALLBACK);
	kdapl_evd_post(ep->connect_evd, &event);
}

/*
 * The same for the EP's connection, counted.  The private data of
 * ESTABLISHED and PEER_REJECTED stays in the conn, which lives until the
 * EP is reset or freed, as DAT promises.
 */
static void kdapl_conn_push(struct kdapl_conn *conn, DAT_EVENT_NUMBER number)
{
	bool pd = conn->pd_size &&
		  (number == DAT_CONNECTION_EVENT_ESTABLISHED ||
		   number == DAT_CONNECTION_EVENT_PEER_REJECTED);

	kdapl_conn_count(conn, number);
	kdapl_ep_push(conn->ep, number, pd ? conn->pd : NULL,
		      pd ? conn->pd_size : 0);
}

/*
 * The EP is CONNECTED: tell the consumer, once.  ep->lock held.  Returns
 * true if ESTABLISHED was queued now.
 */
static bool kdapl_conn_up(struct kdapl_conn *conn)
{
	lockdep_assert_held(&conn->ep->lock);
	if (conn->up || conn->ended || conn->dying)
		return false;
	/* The connect timeout has run its course, if it still ran. */
	del_timer(&conn->timer);
	conn->up = true;
	conn->ep->state = DAT_EP_STATE_CONNECTED;
	kdapl_conn_push(conn, DAT_CONNECTION_EVENT_ESTABLISHED);
	return true;
}

/*
 * End the connection with event @number: the EP goes DISCONNECTED.
 * ep->lock is held.  Returns false if it had ended already.
 */
static bool kdapl_conn_end_locked(struct kdapl_conn *conn,
				  DAT_EVENT_NUMBER number)
{
	struct kdapl_ep *ep = conn->ep;

	lockdep_assert_held(&ep->lock);
	if (conn->ended || conn->dying)
		return false;
	conn->ended = true;
	ep->state = DAT_EP_STATE_DISCONNECTED;
	kdapl_conn_push(conn, number);
	return true;
}

/*
 * End a connection that failed or that its peer ended with @number, as
 * kdapl_conn_end_locked().  A connection that rdma_cm reported
 * established was made: if its consumer has not heard ESTABLISHED yet
 * (kdapl_conn_rts_work() or the initiator-first exchange still runs, or
 * failed, as when siw flushes the QP of a connection its peer closed
 * before iw_cm says DISCONNECTED), it hears it first, so that a consumer
 * waiting for one ESTABLISHED per accepted request misses none.
 * ep->lock is held.
 */
static bool kdapl_conn_fail_locked(struct kdapl_conn *conn,
				   DAT_EVENT_NUMBER number)
{
	if (conn->connected)
		kdapl_conn_up(conn);
	return kdapl_conn_end_locked(conn, number);
}

/*
 * End the connection from an rdma_cm handler or the work after
 * ESTABLISHED: post @number (kdapl_conn_fail_locked()) and tear down
 * from a work item.  @pd is private data to give with the event, or
 * NULL.  A connection that was established keeps the private data of
 * its ESTABLISHED event, which the consumer may be reading: a peer's
 * reject after that (ib_cm passes one on) ends it as BROKEN, which
 * carries none.
 */
static void kdapl_conn_fail(struct kdapl_conn *conn, DAT_EVENT_NUMBER number,
			    const void *pd, u8 pd_len)
{
	struct kdapl_ep *ep = conn->ep;
	unsigned long flags;
	bool ended;

	spin_lock_irqsave(&ep->lock, flags);
	if (pd && pd_len && !conn->connected && !conn->ended &&
	    !conn->dying) {
		conn->pd_size = pd_len;	/* u8: fits */
		memcpy(conn->pd, pd, conn->pd_size);
	}
	ended = kdapl_conn_fail_locked(conn, number);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ended)
		kdapl_conn_queue(conn, &conn->teardown_work);
}

static void kdapl_conn_teardown_work(struct work_struct *work)
{
	struct kdapl_conn *conn = container_of(work, struct kdapl_conn,
					       teardown_work);

	kdapl_conn_teardown(conn);
	kdapl_conn_put(conn);
}

static void kdapl_conn_timeout_work(struct work_struct *work)
{
	struct kdapl_conn *conn = container_of(work, struct kdapl_conn,
					       timeout_work);
	struct kdapl_ep *ep = conn->ep;
	unsigned long flags;
	bool ended = false;

	spin_lock_irqsave(&ep->lock, flags);
	/* Not made, or on iWARP made but the peer never answered. */
	if (!conn->connected || (conn->rtr && !conn->up))
		ended = kdapl_conn_end_locked(conn,
					      DAT_CONNECTION_EVENT_TIMED_OUT);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ended)
		kdapl_conn_teardown(conn);
	kdapl_conn_put(conn);
}

/* Fatal errors of the QP break the connection.  Any context. */
/**
 * kdapl_cm_qp_broken() - the QP of an EP's connection is in error
 * @ep: the EP
 * @qp: the QP (of a QP event or a work completion)
 *
 * Ends the connection with BROKEN unless it has ended already (or @qp
 * is not its QP any more), after ESTABLISHED if rdma_cm reported the
 * connection established and its consumer has not heard it yet.  Called
 * on the QP's fatal events and on a work request that completes in
 * error, flushes aside: a failed work request leaves its QP in the error
 * state on every transport, but not every provider says so with an
 * affiliated event (rxe in 6.1 does not, see rxe_qp_error(); siw does).
 * The connection is broken either way, as dat_lmr_free() requires of a
 * remote access with a dead rmr_context.
 *
 * Context: any context.
 */
void kdapl_cm_qp_broken(struct kdapl_ep *ep, struct ib_qp *qp)
{
	struct kdapl_conn *conn;
	unsigned long flags;
	bool ended = false;

	spin_lock_irqsave(&ep->lock, flags);
	conn = ep->conn;
	/* The QP of @conn exists, so the EP still holds @conn. */
	if (conn && conn->qp == qp) {
		ended = kdapl_conn_fail_locked(conn,
					       DAT_CONNECTION_EVENT_BROKEN);
		if (ended)
			kref_get(&conn->ref);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ended) {
		kdapl_conn_queue(conn, &conn->teardown_work);
		kdapl_conn_put(conn);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_cm_qp_broken);

static void kdapl_conn_qp_event(struct ib_event *event, void *context)
{
	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_PATH_MIG_ERR:
		kdapl_cm_qp_broken(context, event->element.qp);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------------
 * rdma_cm events of an EP
 */

/*
 * Did the peer's consumer reject?  InfiniBand and RoCE say so in the REJ
 * reason.  iWARP providers disagree on the status of an MPA reject (siw
 * gives -ECONNRESET, others -ECONNREFUSED, which rdma_cm's own helper
 * expects) but only an MPA reply comes with private data (with MPA v2
 * always, if only the IRD/ORD header): a refused TCP connection has none.
 */
static bool kdapl_cm_consumer_reject(struct rdma_cm_id *id,
				     const struct rdma_cm_event *event)
{
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return (event->status == -ECONNREFUSED ||
			event->status == -ECONNRESET) &&
		       event->param.conn.private_data;
	return event->status == IB_CM_REJ_CONSUMER_DEFINED;
}

/* The DAT event of a failure before ESTABLISHED, or after it. */
static DAT_EVENT_NUMBER kdapl_conn_failure(struct kdapl_conn *conn,
					   DAT_EVENT_NUMBER active)
{
	if (conn->connected)
		return DAT_CONNECTION_EVENT_BROKEN;
	if (conn->passive)
		return DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR;
	return active;
}

/*
 * rdma_cm reported ESTABLISHED: the QP is in RTS.  What remains (the
 * LMR registrations, which wait for their work requests) runs on
 * kdapl_wq, never in the handler, whose work queue ib_cm and iw_cm share
 * with every connection of the machine.
 */
static void kdapl_conn_established(struct kdapl_conn *conn,
				   struct rdma_cm_event *event)
{
	struct kdapl_ep *ep = conn->ep;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if (conn->ended || conn->dying) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	conn->connected = true;
	if (!conn->passive && event->param.conn.private_data) {
		conn->pd_size = event->param.conn.private_data_len;
		memcpy(conn->pd, event->param.conn.private_data,
		       conn->pd_size);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	/*
	 * The active side of iWARP still waits for the peer's answer in the
	 * initiator-first exchange: the connect timeout runs until then.
	 */
	if (!conn->rtr || conn->passive)
		del_timer(&conn->timer);
	kdapl_conn_queue(conn, &conn->rts_work);
}

/*
 * The iWARP initiator-first rule.  MPA (RFC 5044) lets the responder send
 * only once the initiator's first message has arrived, and siw breaks
 * the connection ("peer sent extra data", -EPROTO) when a message of the
 * responder comes in together with the MPA Reply.  DAT lets either side
 * send as soon as it has ESTABLISHED, so on iWARP kdapl exchanges
 * messages of its own: the active side posts a zero-byte Send before
 * anything its consumer may post; the passive side, once that message
 * arrived, answers with a zero-byte Send and then reports ESTABLISHED
 * (which lets its consumer post); the active side reports ESTABLISHED
 * once the answer arrived.  So, as on IB, where the RTU establishes the
 * passive side before the active side's consumer can act, the passive
 * consumer hears ESTABLISHED before the active one: a client that
 * disconnects as soon as all its connections are established finds
 * every server EP established (dtestcm's server relies on that).  Each
 * message lands in a zero-byte receive posted when the QP is created,
 * before the consumer's receives, or with an SRQ in the first receive
 * the QP takes, which is posted again (kdapl_conn_srq_rtr()).  This is
 * MPA v2's "ready to receive" exchange, which siw in 6.1 does not offer,
 * done above the transport; both ends must be kdapl.
 */

/* Post the exchange's receive on the new QP of @conn (not with an SRQ). */
static int kdapl_conn_rtr_recv(struct kdapl_conn *conn)
{
	struct ib_recv_wr rwr = { .wr_cqe = &conn->rtr_cqe };

	if (!conn->rtr || conn->ep->srq)
		return 0;
	return ib_post_recv(conn->qp, &rwr, NULL);
}

/* Post the exchange's Send: the initiator's message, or the answer. */
static int kdapl_conn_rtr_send(struct kdapl_conn *conn)
{
	struct ib_send_wr swr = {
		.wr_cqe = &conn->rtr_cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	return ib_post_send(conn->qp, &swr, NULL);
}

/*
 * Tell the consumer once the QP is usable (kdapl_conn_rts_work() is
 * done) and the peer's message of the exchange is in; the passive side
 * then answers.  ESTABLISHED is queued before the answer leaves, and the
 * consumer's own sends, which take ep->lock, come after it.  ep->lock
 * held, which keeps the QP of a conn that is not dying.  Returns false
 * if the answer could not be posted: the connection is to break.
 */
static bool kdapl_conn_ready(struct kdapl_conn *conn)
{
	lockdep_assert_held(&conn->ep->lock);
	if (!conn->rts_done || conn->rtr_wait)
		return true;
	if (!kdapl_conn_up(conn) || !conn->rtr || !conn->passive)
		return true;
	return !kdapl_conn_rtr_send(conn);
}

/* The peer's message of the exchange arrived.  ep->lock held; CQ context. */
static void kdapl_conn_rtr_arrived(struct kdapl_conn *conn)
{
	lockdep_assert_held(&conn->ep->lock);
	conn->rtr_wait = false;
	if (!kdapl_conn_ready(conn) &&
	    kdapl_conn_fail_locked(conn, DAT_CONNECTION_EVENT_BROKEN))
		kdapl_conn_queue(conn, &conn->teardown_work);
}

/*
 * Completion of a work request of the exchange: a Send of this side, or
 * the receive of the peer's message; CQ context.  The conn outlives it:
 * its QP is drained first.
 */
static void kdapl_conn_rtr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kdapl_conn *conn = container_of(wc->wr_cqe, struct kdapl_conn,
					       rtr_cqe);
	struct kdapl_ep *ep = conn->ep;
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS) {
		/* A message that does not fit fails here: not a kdapl peer. */
		kdapl_dto_check_qp(ep, wc);
		return;
	}
	if (!(wc->opcode & IB_WC_RECV))
		return;
	spin_lock_irqsave(&ep->lock, flags);
	kdapl_conn_rtr_arrived(conn);
	spin_unlock_irqrestore(&ep->lock, flags);
}

/**
 * kdapl_conn_srq_rtr() - take an SRQ receive that carries the exchange
 * @ep: the EP whose QP completed the receive, found under RCU
 * @wc: the completion, successful
 *
 * On an iWARP connection with an SRQ, the peer's zero-byte message of the
 * initiator-first exchange takes one of the consumer's receives: it is
 * kdapl's, and the caller posts that receive again.
 *
 * Context: CQ context, RCU read lock held.
 * Return: true if @wc was that message.
 */
bool kdapl_conn_srq_rtr(struct kdapl_ep *ep, const struct ib_wc *wc)
{
	struct kdapl_conn *conn;
	unsigned long flags;
	bool taken = false;

	if (wc->byte_len)
		return false;
	spin_lock_irqsave(&ep->lock, flags);
	conn = ep->conn;
	if (conn && conn->rtr_wait && conn->qp == wc->qp) {
		kdapl_conn_rtr_arrived(conn);
		taken = true;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return taken;
}

/*
 * Register the LMRs of the PZ and give the device the receives held
 * back for them (kdapl_dto_qp_rts()), send the initiator's message of
 * the initiator-first exchange, then tell the consumer: the EP is
 * CONNECTED, once the peer's message of the exchange is in
 * (kdapl_conn_ready()).  kdapl_wq.
 */
static void kdapl_conn_rts_work(struct work_struct *work)
{
	struct kdapl_conn *conn = container_of(work, struct kdapl_conn,
					       rts_work);
	struct kdapl_ep *ep = conn->ep;
	unsigned long flags;
	bool ready = false;

	if (!kdapl_dto_qp_rts(ep) &&
	    (!conn->rtr || conn->passive || !kdapl_conn_rtr_send(conn))) {
		spin_lock_irqsave(&ep->lock, flags);
		conn->rts_done = true;
		ready = kdapl_conn_ready(conn);
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	if (!ready)
		kdapl_conn_fail(conn, DAT_CONNECTION_EVENT_BROKEN, NULL, 0);
	kdapl_conn_put(conn);
}

/*
 * The route to the peer is known: connect, on iWARP with the QP in RTR
 * first (see kdapl_conn_qp_modify()).
 */
static int kdapl_conn_connect(struct kdapl_conn *conn, struct rdma_cm_id *id)
{
	int err = 0;

	if (rdma_protocol_iwarp(id->device, id->port_num))
		err = kdapl_conn_qp_ready(conn, id);
	if (!err)
		err = rdma_connect_locked(id, &conn->param);
	if (!err)
		kdapl_ia_count(conn->ep->obj.ia, DCNT_IA_CM_REQ_TX);
	return err;
}

/*
 * Make the QP ready (kdapl_conn_qp_ready()), then rdma_accept() with
 * @param: on the passive side the accept, with NULL on the active side
 * of IB and RoCE once the peer accepted, where it sends the RTU, which
 * rdma_cm sends by itself only for QPs it created.  On failure the peer
 * is rejected.  The handler mutex of @id is held.
 */
static int kdapl_conn_accept(struct kdapl_conn *conn, struct rdma_cm_id *id,
			     struct rdma_conn_param *param)
{
	int err;

	err = kdapl_conn_qp_ready(conn, id);
	if (err) {
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return err;
	}
	/* It rejects by itself when it fails. */
	return rdma_accept(id, param);
}

static int kdapl_conn_cm_event(struct kdapl_conn *conn, struct rdma_cm_id *id,
			       struct rdma_cm_event *event)
{
	struct kdapl_ep *ep = conn->ep;
	DAT_EP_STATE old_state, new_state;
	DAT_EVENT_NUMBER fail = 0;
	const void *pd = NULL;
	unsigned long flags;
	bool dying;
	u8 pd_len = 0;
	int err;

	spin_lock_irqsave(&ep->lock, flags);
	old_state = ep->state;
	dying = conn->dying;
	spin_unlock_irqrestore(&ep->lock, flags);

	if (dying)
		goto trace;

	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, KDAPL_CM_RESOLVE_MS))
			fail = DAT_CONNECTION_EVENT_UNREACHABLE;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		err = kdapl_conn_connect(conn, id);
		if (err == -ECONNREFUSED)
			fail = DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
		else if (err)
			fail = DAT_CONNECTION_EVENT_UNREACHABLE;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		fail = DAT_CONNECTION_EVENT_UNREACHABLE;
		break;
	case RDMA_CM_EVENT_REJECTED:
		if (kdapl_cm_consumer_reject(id, event)) {
			fail = DAT_CONNECTION_EVENT_PEER_REJECTED;
			pd = event->param.conn.private_data;
			pd_len = event->param.conn.private_data_len;
		} else {
			fail = DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
		}
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (event->status == -ETIMEDOUT)
			fail = DAT_CONNECTION_EVENT_UNREACHABLE;
		else
			fail = DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		if (kdapl_conn_accept(conn, id, NULL))
			fail = DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
		else
			kdapl_conn_established(conn, event);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		kdapl_conn_established(conn, event);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (conn->connected)
			kdapl_conn_fail(conn, DAT_CONNECTION_EVENT_DISCONNECTED,
					NULL, 0);
		else
			fail = DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		fail = DAT_CONNECTION_EVENT_BROKEN;
		break;
	default:
		/* TIMEWAIT_EXIT and the rest change nothing. */
		break;
	}
	if (fail)
		kdapl_conn_fail(conn, kdapl_conn_failure(conn, fail), pd,
				pd_len);

trace:
	spin_lock_irqsave(&ep->lock, flags);
	new_state = ep->state;
	spin_unlock_irqrestore(&ep->lock, flags);
	trace_kdapl_cm_event(kdapl_cm_trace_handle(ep), event->event,
			     event->status, old_state, new_state);
	/* The identifier is destroyed by kdapl_conn_teardown(), never here. */
	return 0;
}

/**
 * kdapl_cm_handler() - the rdma_cm event handler of every kdapl identifier
 * @id: the identifier
 * @event: the event
 *
 * Dispatches on the owner of @id, named by its context: a service point
 * (kdapl_sp.c), a connection request (kdapl_cr.c) or the connection of
 * an EP (here).  Handlers never take an IA lock and never post events
 * themselves.
 *
 * Context: process context (rdma_cm's work queues), under the handler
 * mutex of @id.
 * Return: non-zero when rdma_cm is to destroy @id (never for an EP).
 */
int kdapl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	struct kdapl_cm_ctx *ctx = READ_ONCE(id->context);

	switch (ctx->kind) {
	case KDAPL_CM_SP:
		return kdapl_sp_cm_event(ctx, id, event);
	case KDAPL_CM_CR:
		/*
		 * A request not accepted yet: the peer may give up (a reject
		 * or a timeout of its side); the CR stays and a later accept
		 * completes in error (kdapl_cm_accept()).  kdapl destroys the
		 * identifier itself (reject, free, detach), never by
		 * returning non-zero here.
		 */
		return 0;
	case KDAPL_CM_EP:
		return kdapl_conn_cm_event(container_of(ctx, struct kdapl_conn,
							ctx), id, event);
	case KDAPL_CM_UD:
		return kdapl_ud_cm_event(ctx, id, event);
	}
	WARN_ON_ONCE(1);
	return 0;
}

/* ---------------------------------------------------------------------
 * Connecting
 */

/* Connection parameters from the EP attributes, capped by the device. */
static void kdapl_conn_set_param(struct kdapl_conn *conn,
				 const void *pd, u8 pd_len)
{
	struct kdapl_ep *ep = conn->ep;
	const struct ib_device_attr *dev = &ep->obj.ia->ibdev->attrs;
	unsigned long flags;
	DAT_EP_ATTR attr;

	spin_lock_irqsave(&ep->lock, flags);
	attr = ep->attr;
	spin_unlock_irqrestore(&ep->lock, flags);

	if (pd_len)
		memcpy(conn->param_pd, pd, pd_len);
	conn->param.private_data = pd_len ? conn->param_pd : NULL;
	conn->param.private_data_len = pd_len;
	conn->param.responder_resources =
		min3(max(attr.max_rdma_read_in, 0), dev->max_qp_rd_atom, 255);
	conn->param.initiator_depth =
		min3(max(attr.max_rdma_read_out, 0), dev->max_qp_init_rd_atom,
		     255);
	conn->param.retry_count = KDAPL_CM_RETRY;
	conn->param.rnr_retry_count = KDAPL_CM_RNR_RETRY;
	conn->param.flow_control = 1;
}

static bool kdapl_cm_addr_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		__be32 a = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;

		return ipv4_is_zeronet(a) || ipv4_is_multicast(a) ||
		       ipv4_is_lbcast(a);
	}
	return ipv6_addr_any(&((const struct sockaddr_in6 *)sa)->sin6_addr) ||
	       ipv6_addr_is_multicast(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* Map an errno of address resolution to a DAT_RETURN. */
static DAT_RETURN kdapl_cm_addr_error(int err)
{
	switch (err) {
	case -ENOMEM:
	case -ENOBUFS:	/* a route or neighbour entry could not be made */
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	case -EINVAL:
	case -EAFNOSUPPORT:
	case -EXDEV:	/* the IA's address is on another device now */
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_UNSUPPORTED);
	default:
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_UNREACHABLE);
	}
}

/*
 * Map an errno of binding an active connection's identifier.  No local
 * port left (-EADDRINUSE: on soft iWARP the host's TCP ports, see
 * kdapl_port_bind()) is a resource the connection lacks.  rdma_cm says
 * -EADDRNOTAVAIL both when its own port space is exhausted and when the
 * address is not the host's any more: that stays an address error.
 */
static DAT_RETURN kdapl_cm_bind_error(int err)
{
	if (err == -EADDRINUSE)
		return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	return kdapl_cm_addr_error(err);
}

/* The argument checks of dat_ep_connect() and dat_ep_dup_connect(). */
static DAT_RETURN kdapl_cm_check_common(DAT_TIMEOUT timeout,
					DAT_COUNT pd_size, const void *pd,
					DAT_QOS qos, DAT_RETURN_SUBTYPE arg_to,
					DAT_RETURN_SUBTYPE arg_size,
					DAT_RETURN_SUBTYPE arg_pd,
					DAT_RETURN_SUBTYPE arg_qos)
{
	if (!timeout)
		return dat_error(DAT_INVALID_PARAMETER, arg_to);
	if (pd_size < 0 || pd_size > KDAPL_PRIVATE_DATA_MAX)
		return dat_error(DAT_INVALID_PARAMETER, arg_size);
	if (pd_size && !pd)
		return dat_error(DAT_INVALID_PARAMETER, arg_pd);
	if ((u32)qos & ~(u32)(DAT_QOS_BEST_EFFORT | DAT_QOS_HIGH_THROUGHPUT |
			      DAT_QOS_LOW_LATENCY | DAT_QOS_ECONOMY |
			      DAT_QOS_PREMIUM))
		return dat_error(DAT_INVALID_PARAMETER, arg_qos);
	if (qos != DAT_QOS_BEST_EFFORT)
		return dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

static bool kdapl_cm_ep_alive(struct kdapl_ep *ep)
{
	lockdep_assert_held(&ep->obj.ia->lock);
	return !list_empty(&ep->obj.ia_entry);
}

/* A connect's peer address (argument 2): IPv4 or IPv6, not a wildcard. */
static DAT_RETURN kdapl_cm_check_remote(const struct sockaddr *addr)
{
	if (!addr)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (kdapl_cm_addr_any(addr))
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_MALFORMED);
	return DAT_SUCCESS;
}

/* May @ep connect to @dst with @pd_size bytes of private data?  IA lock. */
static DAT_RETURN kdapl_cm_connect_check(struct kdapl_ep *ep,
					 const struct sockaddr *dst,
					 DAT_COUNT pd_size)
{
	struct kdapl_ia *ia = ep->obj.ia;
	DAT_EP_STATE state;
	unsigned long flags;
	bool has_pz;

	lockdep_assert_held(&ia->lock);
	if (!ia->ibdev)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	if (pd_size > kdapl_cm_private_data_max(ia))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	spin_lock_irqsave(&ep->lock, flags);
	state = ep->state;
	has_pz = ep->pz;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (state != DAT_EP_STATE_UNCONNECTED)
		return kdapl_ep_state_error(state);
	if (!has_pz)
		return dat_error(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_EP_UNCONFIGURED);
	if (ep->conn)	/* reset tears the old one down */
		return dat_error(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	if (ia->addr.ss_family != dst->sa_family)
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_UNSUPPORTED);
	return DAT_SUCCESS;
}

/* The peer's address: @dst with the port of @conn_qual. */
static void kdapl_conn_set_remote(struct kdapl_conn *conn,
				  const struct sockaddr *dst,
				  DAT_CONN_QUAL conn_qual)
{
	memcpy(&conn->remote, dst, dst->sa_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	kdapl_sockaddr_set_port((struct sockaddr *)&conn->remote,
				kdapl_conn_qual_port(conn_qual));
	conn->conn_qual = conn_qual;
}

/* The identifier of @conn, in @ps; the caller discards @conn on failure. */
static DAT_RETURN kdapl_conn_new_id(struct kdapl_conn *conn,
				    enum rdma_ucm_port_space ps,
				    enum ib_qp_type qp_type)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, kdapl_cm_handler, &conn->ctx, ps,
			    qp_type);
	if (IS_ERR(id))
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	conn->id = id;
	return DAT_SUCCESS;
}

/*
 * The identifier of an active connection, bound to the IA's address (the
 * connection leaves from its device) and, on soft iWARP, to a port no
 * other TCP socket has (kdapl_port.c), and its QP.  IA lock held; the caller
 * discards @conn on failure.
 */
static DAT_RETURN kdapl_conn_active_id(struct kdapl_conn *conn,
				       struct kdapl_ia *ia)
{
	struct sockaddr_storage src;
	struct rdma_cm_id *id;
	DAT_RETURN ret;
	int err;

	ret = kdapl_conn_new_id(conn, RDMA_PS_TCP, IB_QPT_RC);
	if (ret)
		return ret;
	id = conn->id;
	src = ia->addr;
	err = kdapl_port_bind(id, (struct sockaddr *)&src, ia->ibdev,
			      &conn->port_sock);
	if (err)
		return kdapl_cm_bind_error(err);
	return kdapl_conn_create_qp(conn, id);
}

/*
 * The EP takes the connection whose address resolution started: it is
 * ACTIVE_CONNECTION_PENDING.  The handler mutex of the identifier is held,
 * so that no handler sees the EP before.
 */
static void kdapl_cm_connect_start(struct kdapl_ep *ep,
				   struct kdapl_conn *conn,
				   DAT_TIMEOUT timeout)
{
	struct kdapl_ia *ia = ep->obj.ia;
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->conn = conn;
	ep->cm_id = conn->id;
	WRITE_ONCE(ep->qp, conn->qp);
	ep->state = DAT_EP_STATE_ACTIVE_CONNECTION_PENDING;
	memcpy(&ep->local_addr, &ia->addr, sizeof(ep->local_addr));
	ep->local_port = kdapl_sockaddr_port((struct sockaddr *)
					     &conn->id->route.addr.src_addr);
	memcpy(&ep->remote_addr, &conn->remote, sizeof(ep->remote_addr));
	ep->remote_port = conn->conn_qual;
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_dto_qp_created(ep, conn->max_inline);
	if (timeout != DAT_TIMEOUT_INFINITE)
		mod_timer(&conn->timer, jiffies + usecs_to_jiffies(timeout));
}

/*
 * The active connect of dat_ep_connect() and dat_ep_dup_connect(): the
 * arguments are checked, the IA lock is held and the EP is alive.
 */
static DAT_RETURN kdapl_cm_connect(struct kdapl_ep *ep,
				   const struct sockaddr *dst,
				   DAT_CONN_QUAL conn_qual, DAT_TIMEOUT timeout,
				   DAT_COUNT pd_size, const void *pd)
{
	struct kdapl_conn *conn;
	DAT_RETURN ret;
	int err;

	ret = kdapl_cm_connect_check(ep, dst, pd_size);
	if (ret)
		return ret;
	conn = kdapl_conn_alloc(ep, false);
	if (!conn)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	kdapl_conn_set_remote(conn, dst, conn_qual);
	kdapl_conn_set_param(conn, pd, pd_size);
	ret = kdapl_conn_active_id(conn, ep->obj.ia);
	if (ret)
		goto discard;

	/* Handlers wait until the EP is set up. */
	rdma_lock_handler(conn->id);
	err = rdma_resolve_addr(conn->id, NULL,
				(struct sockaddr *)&conn->remote,
				KDAPL_CM_RESOLVE_MS);
	if (err) {
		rdma_unlock_handler(conn->id);
		ret = kdapl_cm_addr_error(err);
		goto discard;
	}
	kdapl_cm_connect_start(ep, conn, timeout);
	rdma_unlock_handler(conn->id);
	return DAT_SUCCESS;

discard:
	kdapl_conn_discard(conn);
	return ret;
}

/* A datagram QP from INIT to RTS: it has no peer to learn about. */
static int kdapl_conn_ud_rts(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/*
 * The identifier and QP of a datagram EP: an identifier of rdma_cm's
 * RDMA_PS_UDP space bound to the IA's address (which gives the device,
 * port and queue key), and a UD QP taken to RTS at once.  IA lock held;
 * the caller discards @conn on failure.
 */
static DAT_RETURN kdapl_conn_ud_create(struct kdapl_conn *conn,
				       struct kdapl_ia *ia, u32 *mtu)
{
	struct sockaddr_storage src = ia->addr;
	struct ib_port_attr port;
	struct rdma_cm_id *id;
	DAT_RETURN ret;
	int err;

	ret = kdapl_conn_new_id(conn, RDMA_PS_UDP, IB_QPT_UD);
	if (ret)
		return ret;
	id = conn->id;
	kdapl_sockaddr_set_port((struct sockaddr *)&src, 0);
	err = kdapl_port_bind_addr(id, (struct sockaddr *)&src, ia->ibdev);
	if (err)
		return kdapl_cm_bind_error(err);
	ret = kdapl_conn_create_qp(conn, id);
	if (ret)
		return ret;
	if (kdapl_conn_ud_rts(conn->qp) ||
	    ib_query_port(id->device, id->port_num, &port))
		return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	*mtu = ib_mtu_enum_to_int(port.active_mtu);
	return DAT_SUCCESS;
}

/**
 * kdapl_cm_ud_up() - make sure the queue pair of a datagram EP is up
 * @ep: a datagram EP
 *
 * The first dat_ep_connect() or dat_cr_accept() of the EP creates its
 * queue pair, which takes the receives posted before, and moves the EP
 * to CONNECTED, where it stays until it is reset or freed: each peer is
 * a resolution of its own (kdapl_ud.c).  Later calls find it up.
 *
 * Context: process context, the IA lock held.
 * Return: DAT_SUCCESS; DAT_INVALID_STATE for an EP in another state
 * (a broken one must be reset) or without a PZ; the errors of creating
 * the identifier and queue pair.
 */
DAT_RETURN kdapl_cm_ud_up(struct kdapl_ep *ep)
{
	struct kdapl_ia *ia = ep->obj.ia;
	struct kdapl_conn *conn;
	unsigned long flags;
	DAT_EP_STATE state;
	DAT_RETURN ret;
	bool has_pz;
	u32 mtu = 0;

	lockdep_assert_held(&ia->lock);
	if (!ia->ibdev)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	spin_lock_irqsave(&ep->lock, flags);
	state = ep->state;
	has_pz = ep->pz;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (state == DAT_EP_STATE_CONNECTED)
		return DAT_SUCCESS;
	if (state != DAT_EP_STATE_UNCONNECTED)
		return kdapl_ep_state_error(state);
	if (!has_pz)
		return dat_error(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_EP_UNCONFIGURED);
	if (ep->conn)	/* reset tears the old one down */
		return dat_error(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	conn = kdapl_conn_alloc(ep, false);
	if (!conn)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	conn->ud = true;
	ret = kdapl_conn_ud_create(conn, ia, &mtu);
	if (ret) {
		kdapl_conn_discard(conn);
		return ret;
	}
	kdapl_ud_set_mtu(ep, mtu);
	spin_lock_irqsave(&ep->lock, flags);
	ep->conn = conn;
	ep->cm_id = conn->id;
	WRITE_ONCE(ep->qp, conn->qp);
	conn->connected = true;
	conn->up = true;
	ep->state = DAT_EP_STATE_CONNECTED;
	memcpy(&ep->local_addr, &ia->addr, sizeof(ep->local_addr));
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_dto_qp_created(ep, conn->max_inline);
	/* Registers nothing on a datagram QP: it only posts what is held. */
	if (kdapl_dto_qp_rts(ep))
		kdapl_cm_ep_break(ep);
	return DAT_SUCCESS;
}

/* kdapl_cm_connect() under the IA lock, unless @ep was freed meanwhile. */
static DAT_RETURN kdapl_cm_connect_ep(struct kdapl_ep *ep,
				      const struct sockaddr *dst,
				      DAT_CONN_QUAL port,
				      DAT_TIMEOUT timeout, DAT_COUNT pd_size,
				      const void *pd)
{
	struct kdapl_ia *ia = ep->obj.ia;
	DAT_RETURN ret;

	mutex_lock(&ia->lock);
	if (!kdapl_cm_ep_alive(ep))
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	else if (kdapl_ep_is_ud(ep))
		ret = kdapl_ud_connect(ep, dst, port, pd_size, pd);
	else
		ret = kdapl_cm_connect(ep, dst, port, timeout, pd_size, pd);
	mutex_unlock(&ia->lock);
	if (!ret)
		kdapl_ep_count(ep, DCNT_EP_CONNECT, 1);
	return ret;
}

/**
 * kdapl_ep_connect() - dat_ep_connect() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_connect()
 * @remote_ia_address: as for dat_ep_connect()
 * @remote_conn_qual: as for dat_ep_connect()
 * @timeout: as for dat_ep_connect()
 * @private_data_size: as for dat_ep_connect()
 * @private_data: as for dat_ep_connect()
 * @qos: as for dat_ep_connect()
 * @connect_flags: as for dat_ep_connect()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_connect().
 * Return: as dat_ep_connect().
 */
DAT_RETURN kdapl_ep_connect(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle,
			    DAT_IA_ADDRESS_PTR remote_ia_address,
			    DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			    DAT_COUNT private_data_size,
			    const DAT_PVOID private_data, DAT_QOS qos,
			    DAT_CONNECT_FLAGS connect_flags)
{
	struct kdapl_ep *ep;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;

	ret = kdapl_cm_check_remote(remote_ia_address);
	if (ret)
		goto put;
	if (!remote_conn_qual) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto put;
	}
	ret = kdapl_cm_check_common(timeout, private_data_size, private_data,
				    qos, DAT_INVALID_ARG4, DAT_INVALID_ARG5,
				    DAT_INVALID_ARG6, DAT_INVALID_ARG7);
	if (ret)
		goto put;
	if ((u32)connect_flags & ~(u32)(DAT_CONNECT_MULTIPATH_FLAG |
					DAT_CONNECT_MULTIPATH_REQUIRED_FLAG)) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
		goto put;
	}
	if (connect_flags & DAT_CONNECT_MULTIPATH_REQUIRED_FLAG) {
		ret = dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
		goto put;
	}
	ret = kdapl_cm_connect_ep(ep, remote_ia_address, remote_conn_qual,
				  timeout, private_data_size, private_data);
put:
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_connect);

/**
 * dat_ep_connect() - connect an Endpoint to a remote service point
 * @ep_handle: the EP, unconnected and with a PZ
 * @remote_ia_address: the peer's address (AF_INET or AF_INET6, of the
 *	IA's family); its port is ignored
 * @remote_conn_qual: the connection qualifier the peer listens on: a
 *	port, 1 to 65535, or a larger value folded into one
 *	(kdapl_conn_qual_port())
 * @timeout: microseconds until the attempt is given up, or
 *	DAT_TIMEOUT_INFINITE; not 0
 * @private_data_size: bytes of @private_data, up to the IA's
 *	max_private_data_size (56 for InfiniBand and RoCE, 252 for iWARP)
 * @private_data: data for the peer's connection request, or NULL
 * @qos: DAT_QOS_BEST_EFFORT, the only one kdapl offers
 * @connect_flags: DAT_CONNECT_DEFAULT_FLAG or DAT_CONNECT_MULTIPATH_FLAG
 *	(kdapl connects over one path)
 *
 * Creates the queue pair (receives posted before are handed to it),
 * resolves the address from the IA's own address and sends the request.
 * The EP goes to DAT_EP_STATE_ACTIVE_CONNECTION_PENDING; the outcome is
 * a connection event on its connect EVD: ESTABLISHED (EP CONNECTED, with
 * the peer's private data), PEER_REJECTED (the peer's consumer refused,
 * with its private data), NON_PEER_REJECTED (no listener, transport
 * error), UNREACHABLE (no address, route or answer) or TIMED_OUT
 * (@timeout expired); the EP is DISCONNECTED after each failure, its
 * DTOs flushed.  The private data of an event stays valid until the EP
 * is reset or freed.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - the request is on its way.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an EP.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @remote_ia_address is
 *   NULL.
 * * %DAT_INVALID_ADDRESS | %DAT_INVALID_ADDRESS_UNSUPPORTED - the address
 *   family is not AF_INET or AF_INET6, or not the IA's, or the address
 *   cannot be reached from the IA's device.
 * * %DAT_INVALID_ADDRESS | %DAT_INVALID_ADDRESS_MALFORMED - the address is
 *   a wildcard, multicast or broadcast address.
 * * %DAT_INVALID_ADDRESS | %DAT_INVALID_ADDRESS_UNREACHABLE - address
 *   resolution could not start (no route, the IA has no address).
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @remote_conn_qual is 0.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG4 - @timeout is 0.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG5 - @private_data_size is
 *   negative or above the IA's limit.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG6 - @private_data is NULL
 *   with a non-zero size.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG7 - @qos is not a DAT_QOS.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG8 - unknown @connect_flags.
 * * %DAT_MODEL_NOT_SUPPORTED - @qos is not best effort, or multipath is
 *   required (DAT_CONNECT_MULTIPATH_REQUIRED_FLAG).
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - the EP is not
 *   unconnected; the subtype names its state.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_UNCONFIGURED - the EP has
 *   no PZ.
 * * %DAT_INVALID_STATE - the IA lost its device.
 * * %DAT_INSUFFICIENT_RESOURCES | %DAT_RESOURCE_MEMORY, %DAT_RESOURCE_TEP
 *   or %DAT_RESOURCE_TEVD - out of memory, the device refused the QP or
 *   a CQ, or (%DAT_RESOURCE_TEP) no local port is left for the
 *   connection (soft iWARP, on the host's TCP ports), or a datagram EP
 *   holds as many resolutions and address handles as the module
 *   parameter ud_peers_max allows.
 * * %DAT_INTERNAL_ERROR - the EP still holds an old connection.
 */
DAT_RETURN dat_ep_connect(DAT_EP_HANDLE ep_handle,
			  DAT_IA_ADDRESS_PTR remote_ia_address,
			  DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			  DAT_COUNT private_data_size,
			  const DAT_PVOID private_data, DAT_QOS qos,
			  DAT_CONNECT_FLAGS connect_flags)
{
	return kdapl_ep_connect(&kdapl_kernel_owner, ep_handle,
				remote_ia_address, remote_conn_qual, timeout,
				private_data_size, private_data, qos,
				connect_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_connect);

/**
 * kdapl_ep_dup_connect() - dat_ep_dup_connect() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_dup_connect()
 * @ep_dup_handle: as for dat_ep_dup_connect()
 * @timeout: as for dat_ep_dup_connect()
 * @private_data_size: as for dat_ep_dup_connect()
 * @private_data: as for dat_ep_dup_connect()
 * @qos: as for dat_ep_dup_connect()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_dup_connect().
 * Return: as dat_ep_dup_connect().
 */
DAT_RETURN kdapl_ep_dup_connect(struct kdapl_owner *owner,
				DAT_EP_HANDLE ep_handle,
				DAT_EP_HANDLE ep_dup_handle,
				DAT_TIMEOUT timeout,
				DAT_COUNT private_data_size,
				const DAT_PVOID private_data, DAT_QOS qos)
{
	struct kdapl_ep *ep, *dup;
	DAT_SOCK_ADDR remote;
	DAT_PORT_QUAL port;
	DAT_EP_STATE state;
	unsigned long flags;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	ia = ep->obj.ia;
	ret = kdapl_get(owner, ep_dup_handle, EP, DAT_INVALID_HANDLE_EP, &dup);
	if (ret)
		goto put;
	ret = kdapl_cm_check_common(timeout, private_data_size, private_data,
				    qos, DAT_INVALID_ARG3, DAT_INVALID_ARG4,
				    DAT_INVALID_ARG5, DAT_INVALID_ARG6);
	if (ret)
		goto put_dup;
	if (private_data_size > kdapl_cm_private_data_max(ia)) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
		goto put_dup;
	}

	/* The EP's own state first, as dat_ep_connect() would see it. */
	spin_lock_irqsave(&ep->lock, flags);
	state = ep->state;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (state != DAT_EP_STATE_UNCONNECTED) {
		ret = kdapl_ep_state_error(state);
		goto put_dup;
	}
	spin_lock_irqsave(&dup->lock, flags);
	state = dup->state;
	remote = dup->remote_addr;
	port = dup->remote_port;
	spin_unlock_irqrestore(&dup->lock, flags);
	if (state != DAT_EP_STATE_CONNECTED) {
		ret = kdapl_ep_state_error(state);
		goto put_dup;
	}

	ret = kdapl_cm_connect_ep(ep, (struct sockaddr *)&remote, port,
				  timeout, private_data_size, private_data);
put_dup:
	kdapl_object_put(&dup->obj);
put:
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_dup_connect);

/**
 * dat_ep_dup_connect() - connect an Endpoint where another one is
 *	connected
 * @ep_handle: the EP, unconnected and with a PZ
 * @ep_dup_handle: a connected EP; the new connection goes to its peer's
 *	address and connection qualifier
 * @timeout: as for dat_ep_connect()
 * @private_data_size: as for dat_ep_connect()
 * @private_data: as for dat_ep_connect()
 * @qos: as for dat_ep_connect()
 *
 * As dat_ep_connect() to the remote address and port qualifier of
 * @ep_dup_handle, with the same events.
 *
 * Context: process context, may sleep.
 * Return: as dat_ep_connect(), with these argument numbers:
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle or
 *   @ep_dup_handle is not an EP.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - @ep_handle is not
 *   unconnected or @ep_dup_handle is not connected; the subtype names the
 *   offending state.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @timeout is 0.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG4 - @private_data_size is
 *   negative or above the IA's limit.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG5 - @private_data is NULL
 *   with a non-zero size.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG6 - @qos is not a DAT_QOS.
 * * %DAT_MODEL_NOT_SUPPORTED - @qos is not best effort.
 */
DAT_RETURN dat_ep_dup_connect(DAT_EP_HANDLE ep_handle,
			      DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
			      DAT_COUNT private_data_size,
			      const DAT_PVOID private_data, DAT_QOS qos)
{
	return kdapl_ep_dup_connect(&kdapl_kernel_owner, ep_handle,
				    ep_dup_handle, timeout, private_data_size,
				    private_data, qos);
}
EXPORT_SYMBOL_GPL(dat_ep_dup_connect);

/**
 * kdapl_ep_common_connect() - dat_ep_common_connect() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_common_connect()
 * @remote_ia_address: as for dat_ep_common_connect()
 * @timeout: as for dat_ep_common_connect()
 * @private_data_size: as for dat_ep_common_connect()
 * @private_data: as for dat_ep_common_connect()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_common_connect().
 * Return: as dat_ep_common_connect().
 */
DAT_RETURN kdapl_ep_common_connect(struct kdapl_owner *owner,
				   DAT_EP_HANDLE ep_handle,
				   DAT_IA_ADDRESS_PTR remote_ia_address,
				   DAT_TIMEOUT timeout,
				   DAT_COUNT private_data_size,
				   const DAT_PVOID private_data)
{
	struct kdapl_ep *ep;
	DAT_RETURN ret;
	u16 port;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	ret = kdapl_cm_check_remote(remote_ia_address);
	port = ret ? 0 : kdapl_sockaddr_port(remote_ia_address);
	if (!ret && !port)
		ret = dat_error(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_MALFORMED);
	if (!ret)
		ret = kdapl_cm_check_common(timeout, private_data_size,
					    private_data, DAT_QOS_BEST_EFFORT,
					    DAT_INVALID_ARG3, DAT_INVALID_ARG4,
					    DAT_INVALID_ARG5, DAT_NO_SUBTYPE);
	if (!ret && private_data_size > kdapl_cm_private_data_max(ep->obj.ia))
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (!ret)
		ret = kdapl_cm_connect_ep(ep, remote_ia_address, port, timeout,
					  private_data_size, private_data);
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_common_connect);

/**
 * dat_ep_common_connect() - connect an Endpoint to an address and port
 * @ep_handle: the EP, unconnected and with a PZ
 * @remote_ia_address: the peer's address (AF_INET or AF_INET6, of the
 *	IA's family) with the port it listens on: a CSP's address, or a
 *	PSP's address with its connection qualifier as the port
 * @timeout: as for dat_ep_connect()
 * @private_data_size: as for dat_ep_connect()
 * @private_data: as for dat_ep_connect()
 *
 * As dat_ep_connect() with the port of @remote_ia_address as the
 * connection qualifier, best-effort QoS and default connect flags, with
 * the same events.
 *
 * Context: process context, may sleep.
 * Return: as dat_ep_connect(), with these argument numbers:
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @remote_ia_address is
 *   NULL.
 * * %DAT_INVALID_ADDRESS | %DAT_INVALID_ADDRESS_MALFORMED - the address is
 *   a wildcard, multicast or broadcast address, or its port is 0.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @timeout is 0.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG4 - @private_data_size is
 *   negative or above the IA's limit.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG5 - @private_data is NULL
 *   with a non-zero size.
 */
DAT_RETURN dat_ep_common_connect(DAT_EP_HANDLE ep_handle,
				 DAT_IA_ADDRESS_PTR remote_ia_address,
				 DAT_TIMEOUT timeout,
				 DAT_COUNT private_data_size,
				 const DAT_PVOID private_data)
{
	return kdapl_ep_common_connect(&kdapl_kernel_owner, ep_handle,
				       remote_ia_address, timeout,
				       private_data_size, private_data);
}
EXPORT_SYMBOL_GPL(dat_ep_common_connect);

/* An accept of @cr moves @ep to @state with the request's addresses. */
static void kdapl_cm_ep_from_cr(struct kdapl_ep *ep, const struct kdapl_cr *cr,
				DAT_EP_STATE state)
{
	lockdep_assert_held(&ep->lock);
	ep->state = state;
	ep->local_addr = cr->local_addr;
	ep->local_port = cr->conn_qual;
	ep->remote_addr = cr->remote_addr;
	ep->remote_port = cr->remote_port;
}

/*
 * Whether the connection manager still holds the request of @id, which
 * has no QP yet: after a reject (the peer's, or rdma_cm's own when an
 * accept failed) InfiniBand's gives no attributes for a QP of it.
 */
static bool kdapl_cm_request_alive(struct rdma_cm_id *id)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT };
	int mask = 0;

	return !rdma_init_qp_attr(id, &attr, &mask);
}

/*
 * The request is dead before its QP could be made (see
 * kdapl_cm_request_alive()).  The accept completes in error without a
 * connection; @id goes.  The IA lock is held.
 */
static DAT_RETURN kdapl_cm_accept_gone(struct kdapl_ep *ep,
				       struct rdma_cm_id *id,
				       const struct kdapl_cr *cr)
{
	unsigned long flags;

	rdma_destroy_id(id);
	spin_lock_irqsave(&ep->lock, flags);
	kdapl_cm_ep_from_cr(ep, cr, DAT_EP_STATE_DISCONNECTED);
	kdapl_ep_push(ep, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, NULL,
		      0);
	spin_unlock_irqrestore(&ep->lock, flags);
	/* The receives it held complete as flushed. */
	kdapl_dto_qp_gone(ep);
	return DAT_SUCCESS;
}

/**
 * kdapl_cm_accept() - accept a connection request on an EP
 * @ep: the EP, in a state that may accept, with a PZ (checked by the
 *	caller)
 * @id: the request's identifier; on success the EP owns it, or it is
 *	destroyed (a request its peer gave up)
 * @private_data: data for the peer, may be NULL
 * @private_data_size: its length, within the transport's limit
 * @cr: the request (addresses and connection qualifier)
 *
 * Creates the QP on @id (receives posted before are handed to it),
 * moves @id to the EP (its context) and accepts.  The EP goes to
 * DAT_EP_STATE_COMPLETION_PENDING; DAT_CONNECTION_EVENT_ESTABLISHED
 * or DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR follows.  The latter
 * is queued at once, with the EP DISCONNECTED, when the request is dead:
 * its peer gave it up (InfiniBand's reject, iWARP's closed stream) or an
 * accept failed before, so that rdma_cm gives no QP attributes for it
 * (InfiniBand) or refuses the accept.  So does any refusal of rdma_cm
 * not for memory.
 *
 * Context: process context, the IA lock held; takes the handler mutex
 * of @id.
 * Return:
 * * %DAT_SUCCESS - accepted.
 * * %DAT_INVALID_STATE - the device is gone or the EP has no PZ.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - the EP has an old
 *   connection (not reset).
 * * %DAT_INSUFFICIENT_RESOURCES | %DAT_RESOURCE_MEMORY, %DAT_RESOURCE_TEP
 *   or %DAT_RESOURCE_TEVD - no memory, QP or CQ; also when rdma_cm ran out
 *   of memory for the accept, which rejects the request (its receives
 *   are flushed and the caller still owns @id).
 */
DAT_RETURN kdapl_cm_accept(struct kdapl_ep *ep, struct rdma_cm_id *id,
			   const void *private_data, u8 private_data_size,
			   const struct kdapl_cr *cr)
{
	bool ud = id->ps == RDMA_PS_UDP;
	struct kdapl_ia *ia = ep->obj.ia;
	struct kdapl_conn *conn;
	DAT_EP_STATE old_state;
	unsigned long flags;
	DAT_RETURN ret;
	int err;

	lockdep_assert_held(&ia->lock);
	if (!ia->ibdev || id->device != ia->ibdev)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	/* A datagram request for a datagram EP, a connection for the rest. */
	if (kdapl_ep_is_ud(ep) != ud)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (kdapl_ep_is_ud(ep))
		return kdapl_ud_accept(ep, id, private_data, private_data_size,
				       cr);
	if (ep->conn) {
		spin_lock_irqsave(&ep->lock, flags);
		old_state = ep->state;
		spin_unlock_irqrestore(&ep->lock, flags);
		return kdapl_ep_state_error(old_state);
	}
	conn = kdapl_conn_alloc(ep, true);
	if (!conn)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	kdapl_conn_set_param(conn, private_data, private_data_size);
	ret = kdapl_conn_create_qp(conn, id);
	if (ret) {
		kdapl_conn_discard(conn);
		/* Not for the EP's state: the request may have died. */
		if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE &&
		    !kdapl_cm_request_alive(id))
			return kdapl_cm_accept_gone(ep, id, cr);
		return ret;
	}

	rdma_lock_handler(id);
	spin_lock_irqsave(&ep->lock, flags);
	old_state = ep->state;
	ep->conn = conn;
	ep->cm_id = id;
	WRITE_ONCE(ep->qp, conn->qp);
	kdapl_cm_ep_from_cr(ep, cr, DAT_EP_STATE_COMPLETION_PENDING);
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_dto_qp_created(ep, conn->max_inline);
	conn->id = id;
	WRITE_ONCE(id->context, &conn->ctx);
	err = kdapl_conn_accept(conn, id, &conn->param);
	if (err != -ENOMEM && err != -ENOBUFS) {
		/*
		 * Refused otherwise, the request is dead (its peer gave up,
		 * most often): the EP hears it as DAT says, the CR is done.
		 */
		if (err)
			kdapl_conn_fail(conn,
					DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
					NULL, 0);
		rdma_unlock_handler(id);
		return DAT_SUCCESS;
	}

	/* No memory: the CR keeps the request, which rdma_cm rejected. */
	WRITE_ONCE(id->context, (void *)&cr->ctx);
	rdma_unlock_handler(id);
	spin_lock_irqsave(&ep->lock, flags);
	conn->dying = true;
	WRITE_ONCE(ep->qp, NULL);
	ep->cm_id = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);
	conn->id = NULL;
	ib_drain_qp(conn->qp);
	kdapl_dto_qp_gone(ep);
	kdapl_conn_detach_srq(conn, conn->qp);
	ib_destroy_qp(conn->qp);
	conn->qp = NULL;
	spin_lock_irqsave(&ep->lock, flags);
	ep->conn = NULL;
	ep->state = old_state;
	memset(&ep->local_addr, 0, sizeof(ep->local_addr));
	memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
	ep->local_port = 0;
	ep->remote_port = 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_conn_discard(conn);
	return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
}

/* ---------------------------------------------------------------------
 * Disconnecting and letting go
 */

/*
 * What dat_ep_disconnect() does in the EP's state, ep->lock held: *@ended
 * when the connection ended here (the caller tears it down), *@graceful
 * when the peer is to be asked to disconnect.
 */
static DAT_RETURN kdapl_cm_disconnect_locked(struct kdapl_ep *ep, bool abrupt,
					     bool *ended, bool *graceful)
{
	const DAT_EVENT_NUMBER disc = DAT_CONNECTION_EVENT_DISCONNECTED;
	struct kdapl_conn *conn = ep->conn;

	lockdep_assert_held(&ep->lock);
	switch (ep->state) {
	case DAT_EP_STATE_CONNECTED:
	case DAT_EP_STATE_CONNECTED_SINGLE_PATH:
	case DAT_EP_STATE_CONNECTED_MULTI_PATH:
		if (!conn) {
			ep->state = DAT_EP_STATE_DISCONNECTED;
		} else if (abrupt) {
			*ended = kdapl_conn_end_locked(conn, disc);
		} else {
			ep->state = DAT_EP_STATE_DISCONNECT_PENDING;
			*graceful = true;
		}
		return DAT_SUCCESS;
	case DAT_EP_STATE_DISCONNECT_PENDING:
		if (!abrupt)
			return DAT_SUCCESS;
		fallthrough;
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_COMPLETION_PENDING:
		if (conn)
			*ended = kdapl_conn_end_locked(conn, disc);
		else
			ep->state = DAT_EP_STATE_DISCONNECTED;
		return DAT_SUCCESS;
	case DAT_EP_STATE_DISCONNECTED:
		return DAT_SUCCESS;
	default:
		return kdapl_ep_state_error(ep->state);
	}
}

/*
 * Ask the peer to disconnect; if rdma_cm cannot, end the connection at
 * once.  Under conn->lock, so that a teardown cannot race with it.
 */
static void kdapl_conn_disconnect_graceful(struct kdapl_conn *conn)
{
	struct kdapl_ep *ep = conn->ep;
	unsigned long flags;
	bool ended = false;
	int err;

	mutex_lock(&conn->lock);
	err = conn->torn ? 0 : kdapl_conn_disconnect(conn);
	mutex_unlock(&conn->lock);
	if (!err)
		return;
	spin_lock_irqsave(&ep->lock, flags);
	ended = kdapl_conn_end_locked(conn, DAT_CONNECTION_EVENT_DISCONNECTED);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ended)
		kdapl_conn_teardown(conn);
}

/**
 * kdapl_ep_disconnect() - dat_ep_disconnect() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_disconnect()
 * @disconnect_flags: as for dat_ep_disconnect()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_disconnect().
 * Return: as dat_ep_disconnect().
 */
DAT_RETURN kdapl_ep_disconnect(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle,
			       DAT_CLOSE_FLAGS disconnect_flags)
{
	bool abrupt, ended = false, graceful = false, connected = false;
	struct kdapl_conn *conn = NULL;
	struct kdapl_ia *ia;
	struct kdapl_ep *ep;
	unsigned long flags;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	ia = ep->obj.ia;
	if (disconnect_flags != DAT_CLOSE_ABRUPT_FLAG &&
	    disconnect_flags != DAT_CLOSE_GRACEFUL_FLAG) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto put;
	}
	abrupt = disconnect_flags == DAT_CLOSE_ABRUPT_FLAG;

	mutex_lock(&ia->lock);
	if (!kdapl_cm_ep_alive(ep)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto unlock;
	}
	spin_lock_irqsave(&ep->lock, flags);
	conn = ep->conn;
	connected = ep->state == DAT_EP_STATE_CONNECTED;
	ret = kdapl_cm_disconnect_locked(ep, abrupt, &ended, &graceful);
	if (conn)
		kref_get(&conn->ref);
	spin_unlock_irqrestore(&ep->lock, flags);

	if (ended)
		kdapl_conn_teardown(conn);
	else if (graceful)
		kdapl_conn_disconnect_graceful(conn);
	if (!ret) {
		kdapl_ep_count(ep, DCNT_EP_DISCONNECT, 1);
		/* The consumer ends an established connection. */
		if (connected)
			kdapl_ia_count(ia, DCNT_IA_CM_DREQ_TX);
	}
unlock:
	mutex_unlock(&ia->lock);
	if (conn)
		kdapl_conn_put(conn);
put:
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_disconnect);

/**
 * dat_ep_disconnect() - end a connection or a connection attempt
 * @ep_handle: the EP
 * @disconnect_flags: DAT_CLOSE_ABRUPT_FLAG or DAT_CLOSE_GRACEFUL_FLAG
 *
 * CONNECTED, graceful: the peer is asked to disconnect and the EP is
 * DAT_EP_STATE_DISCONNECT_PENDING until it answers; then it is
 * DISCONNECTED and DAT_CONNECTION_EVENT_DISCONNECTED is posted.
 * Outstanding DTOs are flushed with the queue pair (requests in progress
 * may still complete).  CONNECTED or DISCONNECT_PENDING, abrupt: the EP
 * is DISCONNECTED, the queue pair is torn down (every outstanding DTO is
 * completed, flushed) and the DISCONNECTED event is posted before the
 * call returns (when called from a work item, such as an upcall of a
 * connection event, it follows shortly after).
 * ACTIVE_CONNECTION_PENDING or COMPLETION_PENDING, either flag: the
 * attempt is aborted the same way.  A graceful disconnect of a
 * DISCONNECT_PENDING EP and any disconnect of a DISCONNECTED EP do
 * nothing.
 *
 * Context: process context, may sleep (also from an upcall of the EP's
 * connect EVD).
 * Return:
 * * %DAT_SUCCESS - done (or nothing to do).
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an EP.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - unknown
 *   @disconnect_flags.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - the EP is unconnected,
 *   reserved, tentative or passive connection pending (the subtype names
 *   the state): nothing to disconnect.
 */
DAT_RETURN dat_ep_disconnect(DAT_EP_HANDLE ep_handle,
			     DAT_CLOSE_FLAGS disconnect_flags)
{
	return kdapl_ep_disconnect(&kdapl_kernel_owner, ep_handle,
				   disconnect_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_disconnect);

/*
 * Take the conn from the EP and drop it: the verbs resources go, the
 * EVDs the QP used are let go.  No connection event is posted any more.
 * The IA lock is held.
 */
static void kdapl_cm_ep_release(struct kdapl_ep *ep)
{
	struct kdapl_conn *conn;
	unsigned long flags;

	lockdep_assert_held(&ep->obj.ia->lock);
	spin_lock_irqsave(&ep->lock, flags);
	conn = ep->conn;
	if (conn) {
		/* No event is pushed from now on. */
		conn->dying = true;
		if (conn->pd_size && ep->connect_evd) {
			conn->pd_evd = ep->connect_evd;
			kref_get(&conn->pd_evd->obj.ref);
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!conn)
		return;
	kdapl_conn_teardown(conn);
	/* What the resolutions' events pointed to is the consumer's no more. */
	if (conn->ud)
		kdapl_ud_peers_destroy(ep);
	spin_lock_irqsave(&ep->lock, flags);
	ep->conn = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_conn_put_cqs(conn);
	kdapl_conn_put(conn);
}

/**
 * kdapl_cm_ep_destroy() - tear down the connection of an EP being freed
 * @ep: the EP, unpublished
 *
 * A connected or connecting EP is disconnected abruptly (the peer is
 * told), its DTOs flushed, its queue pair and identifier destroyed.  No
 * connection event is posted any more.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_cm_ep_destroy(struct kdapl_ep *ep)
{
	kdapl_cm_ep_release(ep);
}

/**
 * kdapl_cm_ep_reset() - drop the old connection of an EP being reset
 * @ep: the EP, DISCONNECTED with no DTO outstanding
 *
 * Context: process context, the IA lock held.
 */
void kdapl_cm_ep_reset(struct kdapl_ep *ep)
{
	kdapl_cm_ep_release(ep);
}

/**
 * kdapl_cm_ep_break() - break the connection of an EP now
 * @ep: the EP
 *
 * A connected or connecting EP becomes DISCONNECTED with
 * DAT_CONNECTION_EVENT_BROKEN, after ESTABLISHED for a connection that
 * was made but not reported yet (kdapl_conn_fail_locked()); its queue
 * pair is drained (every work request completes) and, with the
 * identifier and CQs, destroyed before this returns.  The EP keeps its
 * torn down connection until it is reset or freed.  For the device
 * going away, and for dat_lmr_free() and dat_rmr_free() when the device
 * still has work requests of the EP that reference what they free.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_cm_ep_break(struct kdapl_ep *ep)
{
	struct kdapl_conn *conn;
	unsigned long flags;

	lockdep_assert_held(&ep->obj.ia->lock);
	spin_lock_irqsave(&ep->lock, flags);
	conn = ep->conn;
	if (conn) {
		kdapl_conn_fail_locked(conn, DAT_CONNECTION_EVENT_BROKEN);
		kref_get(&conn->ref);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!conn)
		return;
	kdapl_conn_teardown(conn);
	kdapl_conn_put(conn);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_cm_ep_break);
