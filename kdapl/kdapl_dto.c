// SPDX-License-Identifier: GPL-2.0
/*
 * kDAT data transfer: sends, receives, RDMA Reads and Writes, RMR bind
 * work requests, their completions, and the registration of LMRs on the
 * first queue pair of their PZ to reach RTS.
 *
 * Every EP has two rings of work request contexts, one per work queue,
 * allocated outside the posting path (at dat_ep_create() and again, if
 * the attributes grew, when the connection creates the queue pair), so
 * that posting never allocates.  A ring slot is the ib_cqe of one posted
 * work request; it also names the LMRs the device will read or write
 * for it, so that dat_lmr_free() can find what still references an LMR
 * (kdapl_dto_forget_lmr()).  Reliable connections complete the work
 * requests of one queue in the order they were posted, flushed ones
 * included, so a completion of slot i also retires every older slot: on
 * the send queue those are the unsignalled invalidations of rebinds.
 *
 * Locking: posts run in any context and take ep->lock (interrupts
 * disabled), under which ep->qp, ep->state, ep->attr and the producer
 * side of both rings are stable.  The completion handlers run in the
 * CQ's softirq and own the consumer side (tail) of the rings; they take
 * no lock.  LMR registration work requests are serialised by the PZ's
 * reg_mutex, which dat_lmr_free() also takes (after the IA lock) around
 * deregistration, so that an MR is never deregistered under a
 * registration in flight.  Registrations are waited for in the
 * connection's work item (kdapl_dto_qp_rts()), never in an rdma_cm
 * handler.
 *
 * See Documentation/dto.rst.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"
#include "kdapl_trace.h"

/* Send queue slots kept for RMR binds (an unbind of the old key and the
 * registration of the new one) beyond max_request_dtos.
 */
#define KDAPL_DTO_BIND_SLOTS	(KDAPL_EP_SEND_WR_EXTRA / 2)

/* LMR registrations posted at once; the rest of KDAPL_EP_SEND_WR_EXTRA. */
#define KDAPL_DTO_REG_BATCH	(KDAPL_EP_SEND_WR_EXTRA - KDAPL_DTO_BIND_SLOTS)

/* How long a registration may take before the connection is given up. */
#define KDAPL_DTO_REG_TIMEOUT	(10 * HZ)

/* The trace op of a bind, beside the DAT_DTOS values. */
#define KDAPL_DTO_OP_UNBIND	DAT_DTO_LMR_INVALIDATE

/* Completion flags a request may carry. */
#define KDAPL_DTO_REQUEST_FLAGS						\
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | \
	 DAT_COMPLETION_BARRIER_FENCE_FLAG)

/* Slot flags. */
#define KDAPL_DTO_QUIET		BIT(0)	/* no event on success */
#define KDAPL_DTO_INTERNAL	BIT(1)	/* never an event, not counted */
#define KDAPL_DTO_BIND		BIT(2)	/* an RMR bind or unbind */
#define KDAPL_DTO_DEAD		BIT(3)	/* an LMR of it was freed */
#define KDAPL_DTO_SYNC		BIT(4)	/* sync its segments for the CPU */

/**
 * struct kdapl_dto_slot - context of one posted work request
 * @cqe: completion handle, the wr_cqe of the work request
 * @ep: the EP
 * @cookie: the consumer's DTO or RMR cookie
 * @rmr: the RMR of a bind: it stays until the bind completes (its free
 *	waits for that), and hears of the completion first
 * @length: bytes posted (the completion of a receive gives its own)
 * @op: DAT_DTO_* operation
 * @flags: KDAPL_DTO_* flags
 * @nsge: entries of @sge in use
 * @nlmr: entries of @lmrs in use
 * @sge: the work request's segments
 * @lmrs: the LMR of each segment the device reads or writes after the
 *	post (not those of a request copied inline), so that
 *	dat_lmr_free() finds the work requests that still reference one
 */
struct kdapl_dto_slot {
	struct ib_cqe cqe;
	struct kdapl_ep *ep;
	DAT_CONTEXT cookie;
	struct kdapl_rmr *rmr;
	u32 length;
	u8 op;
	u8 flags;
	u16 nsge;
	u16 nlmr;
	struct ib_sge *sge;
	struct kdapl_lmr **lmrs;
};

/**
 * struct kdapl_dto_ring - the work request contexts of one work queue
 * @slots: power-of-two array of contexts
 * @sge: @iov entries per slot, for &kdapl_dto_slot.sge
 * @lmrs: @iov entries per slot, for &kdapl_dto_slot.lmrs
 * @mask: number of slots - 1
 * @limit: slots that may be in use (the work queue's share)
 * @iov: segments per post it can take
 * @head: next slot to post; ep->lock
 * @tail: oldest slot not completed; written by the completion handler
 *	(and by kdapl_dto_qp_gone() once the queue is drained)
 * @hw: receive ring: slots before it were given to the device; ep->lock
 * @live: receive ring: new receives go to the device at once (the LMRs
 *	of the PZ are registered); before, they are held; ep->lock
 * @max_inline: request ring: bytes the QP copies inline at post time;
 *	ep->lock
 */
struct kdapl_dto_ring {
	struct kdapl_dto_slot *slots;
	struct ib_sge *sge;
	struct kdapl_lmr **lmrs;
	u32 mask;
	u32 limit;
	u32 iov;
	u32 head;
	u32 tail;
	u32 hw;
	bool live;
	u32 max_inline;
};

struct kdapl_dto_reg;

/**
 * struct kdapl_dto_reg_wr - one LMR registration work request
 * @cqe: its completion handle
 * @reg: the batch
 * @lmr: the LMR registered
 * @status: its completion status
 */
struct kdapl_dto_reg_wr {
	struct ib_cqe cqe;
	struct kdapl_dto_reg *reg;
	struct kdapl_lmr *lmr;
	enum ib_wc_status status;
};

/**
 * struct kdapl_dto_reg - a batch of LMR registrations on one QP
 * @wr: the work requests
 * @pending: work requests not completed yet
 * @done: completed when @pending drops to zero
 */
struct kdapl_dto_reg {
	struct kdapl_dto_reg_wr wr[KDAPL_DTO_REG_BATCH];
	atomic_t pending;
	struct completion done;
};

/**
 * struct kdapl_dto - DTO state of an EP
 * @recv: receive contexts
 * @req: send queue contexts (DTOs and binds)
 * @reg: LMR registrations posted on the EP's QP; the PZ's reg_mutex
 */
struct kdapl_dto {
	struct kdapl_dto_ring recv;
	struct kdapl_dto_ring req;
	struct kdapl_dto_reg reg;
};

static u64 kdapl_dto_trace_handle(const struct kdapl_ep *ep)
{
	return (u64)(uintptr_t)kdapl_object_handle(&ep->obj);
}

/**
 * kdapl_dto_wc_status() - the DAT completion status of a work completion
 * @status: the ib_wc status
 *
 * The one table of kdapl, used for EP and SRQ receives, requests and
 * RMR binds (see Documentation/dto.rst).
 *
 * Context: any context.
 * Return: the DAT_DTO_COMPLETION_STATUS.
 */
DAT_DTO_COMPLETION_STATUS kdapl_dto_wc_status(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return DAT_DTO_SUCCESS;
	case IB_WC_WR_FLUSH_ERR:
		return DAT_DTO_ERR_FLUSHED;
	case IB_WC_LOC_LEN_ERR:
		return DAT_DTO_ERR_LOCAL_LENGTH;
	case IB_WC_LOC_QP_OP_ERR:
		return DAT_DTO_ERR_LOCAL_EP;
	case IB_WC_LOC_PROT_ERR:
		return DAT_DTO_ERR_LOCAL_PROTECTION;
	case IB_WC_BAD_RESP_ERR:
		return DAT_DTO_ERR_BAD_RESPONSE;
	case IB_WC_REM_ACCESS_ERR:
		return DAT_DTO_ERR_REMOTE_ACCESS;
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
	case IB_WC_REM_ABORT_ERR:
		return DAT_DTO_ERR_REMOTE_RESPONDER;
	case IB_WC_RNR_RETRY_EXC_ERR:
		return DAT_DTO_ERR_RECEIVER_NOT_READY;
	case IB_WC_MW_BIND_ERR:
		return DAT_DTO_ERR_LOCAL_MM_ERROR;
	default:
		return DAT_DTO_ERR_TRANSPORT;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_dto_wc_status);

/* ---------------------------------------------------------------------
 * Rings
 */

static void kdapl_dto_ring_free(struct kdapl_dto_ring *r)
{
	kvfree(r->slots);
	kvfree(r->sge);
	kvfree(r->lmrs);
	r->slots = NULL;
	r->sge = NULL;
	r->lmrs = NULL;
}

/*
 * Allocate a ring of at least @count slots for @ep; a receive ring has
 * @iov segments per slot.  Sized by the consumer's attributes: charged
 * to its memory cgroup.
 */
static int kdapl_dto_ring_alloc(struct kdapl_dto_ring *r, struct kdapl_ep *ep,
				u32 count, u32 iov,
				void (*done)(struct ib_cq *, struct ib_wc *))
{
	u32 size = roundup_pow_of_two(max(count, 2U)), i;
	size_t nsge = (size_t)size * iov;

	memset(r, 0, sizeof(*r));
	r->slots = kvcalloc(size, sizeof(*r->slots), GFP_KERNEL_ACCOUNT);
	r->sge = kvcalloc(max_t(size_t, nsge, 1), sizeof(*r->sge),
			  GFP_KERNEL_ACCOUNT);
	r->lmrs = kvcalloc((size_t)size * iov, sizeof(*r->lmrs),
			   GFP_KERNEL_ACCOUNT);
	if (!r->slots || !r->sge || !r->lmrs) {
		kdapl_dto_ring_free(r);
		return -ENOMEM;
	}
	r->mask = size - 1;
	r->limit = count;
	r->iov = iov;
	for (i = 0; i < size; i++) {
		r->slots[i].cqe.done = done;
		r->slots[i].ep = ep;
		r->slots[i].lmrs = r->lmrs + (size_t)i * iov;
		r->slots[i].sge = r->sge + (size_t)i * iov;
	}
	return 0;
}

/* The receive ring wanted for the attributes. */
static void kdapl_dto_recv_dims(const DAT_EP_ATTR *attr, u32 *count, u32 *iov)
{
	*count = max(attr->max_recv_dtos, 1);
	*iov = max(attr->max_recv_iov, 1);
}

/* The request ring wanted for the attributes. */
static void kdapl_dto_req_dims(const DAT_EP_ATTR *attr, u32 *count, u32 *iov)
{
	*count = max(attr->max_request_dtos, 1) + KDAPL_DTO_BIND_SLOTS;
	*iov = max3(attr->max_request_iov, attr->max_rdma_read_iov,
		    attr->max_rdma_write_iov);
	*iov = max(*iov, 1U);
}

/* ---------------------------------------------------------------------
 * Completions
 */

/*
 * Deliver a completion polled from @cq to the EVD the CQ belongs to
 * (cq_context; NULL for the private CQ of an EP without that EVD): the
 * QP was created on that CQ, and the EVD stays while the QP exists, so
 * the event goes where the consumer set the stream when it connected.
 * @ev is used up.
 */
static void kdapl_dto_deliver(struct ib_cq *cq, DAT_EVENT *ev)
{
	struct kdapl_evd *evd = cq->cq_context;

	if (evd) {
		kdapl_evd_count(evd, DCNT_EVD_DTO_CALLBACK);
		kdapl_evd_deliver(evd, ev);
	}
}

/* The extension data fits where DAT_EVENT keeps it, as in uDAT. */
static_assert(sizeof(DAT_IB_EXTENSION_EVENT_DATA) <=
	      sizeof(((DAT_EVENT *)NULL)->event_extension_data));

/*
 * Make @ev, a DTO completion of the IB extension operation @op, the
 * DAT_IB_DTO_EVENT it is: the operation, and the extension data with
 * the immediate data a receive brought (0 otherwise).
 */
static noinline void kdapl_dto_ext_event(DAT_EVENT *ev, DAT_DTOS op,
					 u32 immed)
{
	static const u8 type[] = {
		[DAT_IB_DTO_RDMA_WRITE_IMMED - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_RDMA_WRITE_IMMED,
		[DAT_IB_DTO_RECV_IMMED - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_RDMA_WRITE_IMMED_DATA,
		[DAT_IB_DTO_FETCH_ADD - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_FETCH_AND_ADD,
		[DAT_IB_DTO_CMP_SWAP - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_CMP_AND_SWAP,
		[DAT_IB_DTO_RECV_MSG_IMMED - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_RECV_IMMED_DATA,
		[DAT_IB_DTO_SEND_UD - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_UD_SEND,
		[DAT_IB_DTO_RECV_UD - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_UD_RECV,
		[DAT_IB_DTO_RECV_UD_IMMED - DAT_DTO_EXTENSION_BASE] =
			DAT_IB_UD_RECV,
	};
	DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	DAT_IB_EXTENSION_EVENT_DATA *x =
		(DAT_IB_EXTENSION_EVENT_DATA *)ev->event_extension_data;

	if (WARN_ON_ONCE(op - DAT_DTO_EXTENSION_BASE >= ARRAY_SIZE(type)))
		return;
	ev->event_number = (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT;
	d->operation = op;
	memset(x, 0, sizeof(*x));
	x->type = type[op - DAT_DTO_EXTENSION_BASE];
	x->status = d->status == DAT_DTO_SUCCESS ? DAT_OP_SUCCESS :
						   DAT_IB_OP_ERR;
	x->val.immed.data = immed;
}

/*
 * A receive of an unreliable datagram EP is a DAT_IB_DTO_EVENT of type
 * DAT_IB_UD_RECV, whatever its status, with the sender's queue pair
 * number (no address handle: see Documentation/dto.rst).
 */
static noinline void kdapl_dto_recv_ud(DAT_EVENT *ev, const struct ib_wc *wc)
{
	bool immed = wc->status == IB_WC_SUCCESS &&
		     (wc->wc_flags & IB_WC_WITH_IMM);
	DAT_IB_EXTENSION_EVENT_DATA *x =
		(DAT_IB_EXTENSION_EVENT_DATA *)ev->event_extension_data;

	kdapl_dto_ext_event(ev, (DAT_DTOS)(immed ? DAT_IB_DTO_RECV_UD_IMMED :
					   DAT_IB_DTO_RECV_UD),
			    immed ? (__force u32)wc->ex.imm_data : 0);
	if (wc->status == IB_WC_SUCCESS)
		x->remote_ah.qpn = wc->src_qp;
}

/**
 * kdapl_dto_count_recv() - count a receive for DAT_COUNTERS
 * @ep: the EP it arrived on
 * @wc: its work completion, successful
 *
 * A receive counts once, with its bytes, as a plain receive, a Send with
 * immediate data, or an RDMA Write with immediate data.
 *
 * Context: CQ context.
 */
void kdapl_dto_count_recv(struct kdapl_ep *ep, const struct ib_wc *wc)
{
	DAT_EP_COUNTERS id = DCNT_EP_RECV;

	if (wc->qp->qp_type == IB_QPT_UD)
		id = DCNT_EP_RECV_UD;
	else if (wc->wc_flags & IB_WC_WITH_IMM)
		id = wc->opcode == IB_WC_RECV_RDMA_WITH_IMM ?
		     DCNT_EP_RECV_RDMA_IMM : DCNT_EP_RECV_IMM;
	kdapl_ep_count(ep, id, 1);
	kdapl_ep_count(ep, id + 1, wc->byte_len);	/* the _DATA counter */
}

/**
 * kdapl_dto_recv_immed() - report the immediate data of a receive
 * @ev: the receive's DTO completion event, built
 * @wc: its work completion
 *
 * A receive that the peer's RDMA Write or Send with immediate data
 * consumed becomes a DAT_IB_DTO_EVENT carrying the immediate.
 *
 * Context: CQ context.
 */
void kdapl_dto_recv_immed(DAT_EVENT *ev, const struct ib_wc *wc)
{
	DAT_IB_DTOS op = wc->opcode == IB_WC_RECV_RDMA_WITH_IMM ?
			 DAT_IB_DTO_RECV_IMMED : DAT_IB_DTO_RECV_MSG_IMMED;

	if (unlikely(wc->qp->qp_type == IB_QPT_UD)) {
		kdapl_dto_recv_ud(ev, wc);
		return;
	}
	if (likely(!(wc->wc_flags & IB_WC_WITH_IMM)) ||
	    wc->status != IB_WC_SUCCESS)
		return;
	/* As OFA's provider sends it: see kdapl_dto_post_request(). */
	kdapl_dto_ext_event(ev, (DAT_DTOS)op, (__force u32)wc->ex.imm_data);
}

/*
 * Count a post that succeeded for DAT_COUNTERS: the operation's
 * DCNT_EP_POST_* counter, and the _DATA counter after it with the bytes.
 */
static void kdapl_dto_count_post(struct kdapl_ep *ep, DAT_DTOS op, u64 bytes)
{
	DAT_EP_COUNTERS id;

	switch ((int)op) {
	case DAT_DTO_SEND:
		id = DCNT_EP_POST_SEND;
		break;
	case DAT_DTO_RDMA_WRITE:
		id = DCNT_EP_POST_WRITE;
		break;
	case DAT_DTO_RDMA_READ:
		id = DCNT_EP_POST_READ;
		break;
	case DAT_DTO_RECEIVE:
		id = DCNT_EP_POST_RECV;
		break;
	case DAT_IB_DTO_RDMA_WRITE_IMMED:
		id = DCNT_EP_POST_WRITE_IMM;
		break;
	case DAT_IB_DTO_SEND_UD:
		id = DCNT_EP_POST_SEND_UD;
		break;
	case DAT_IB_DTO_CMP_SWAP:
		kdapl_ep_count(ep, DCNT_EP_POST_CMP_SWAP, 1);
		return;
	case DAT_IB_DTO_FETCH_ADD:
		kdapl_ep_count(ep, DCNT_EP_POST_FETCH_ADD, 1);
		return;
	default:
		return;
	}
	kdapl_ep_count(ep, id, 1);
	kdapl_ep_count(ep, id + 1, bytes);
}

/*
 * Build the event of a completed slot; returns false when no event is
 * due (internal work request, or a quiet one that succeeded).  A slot
 * whose LMR was freed before it completed fails with a protection error
 * whatever the device said (see kdapl_dto_forget_lmr()).  Only
 * event_number and the fields of the member of event_data it names are
 * written (the consumer reads nothing else; the extension data of kDAT
 * 2.0 events without extensions is undefined): completions do not zero
 * a whole DAT_EVENT each.
 */
static __always_inline bool
kdapl_dto_event(struct kdapl_ep *ep, const struct kdapl_dto_slot *s,
		DAT_DTO_COMPLETION_STATUS status, u32 length,
		DAT_RMR_CONTEXT inv, DAT_EVENT *ev)
{
	/* kdapl_dto_forget_lmr() may mark the slot as it completes. */
	u8 flags = READ_ONCE(s->flags);

	if (flags & KDAPL_DTO_INTERNAL)
		return false;
	if (unlikely(flags & KDAPL_DTO_DEAD))
		status = DAT_DTO_ERR_LOCAL_PROTECTION;
	kdapl_stat_inc(ep->obj.ia->adapter, likely(status == DAT_DTO_SUCCESS) ?
		       KDAPL_STAT_COMPLETIONS : KDAPL_STAT_COMPLETION_ERRORS);
	if (status == DAT_DTO_SUCCESS && (flags & KDAPL_DTO_QUIET))
		return false;
	if (unlikely(flags & KDAPL_DTO_BIND)) {
		ev->event_number = DAT_RMR_BIND_COMPLETION_EVENT;
		ev->event_data.rmr_completion_event_data =
			(DAT_RMR_BIND_COMPLETION_EVENT_DATA) {
				.rmr_handle = kdapl_object_handle(&s->rmr->obj),
				.user_cookie = s->cookie,
				.status = status,
			};
	} else {
		DAT_DTO_COMPLETION_EVENT_DATA *d =
			&ev->event_data.dto_completion_event_data;

		ev->event_number = DAT_DTO_COMPLETION_EVENT;
		d->ep_handle = kdapl_object_handle(&ep->obj);
		d->user_cookie = s->cookie;
		d->status = status;
		d->operation = s->op;
		d->transfered_length = 0;
		d->rmr_context = 0;
		if (likely(status == DAT_DTO_SUCCESS)) {
			d->transfered_length = length;
			if (inv) {
				d->operation = DAT_DTO_RECEIVE_WITH_INVALIDATE;
				d->rmr_context = inv;
			}
		}
		if (unlikely(s->op >= DAT_DTO_EXTENSION_BASE))
			kdapl_dto_ext_event(ev, s->op, 0);
	}
	return true;
}

/*
 * What the device wrote for a completed receive or RDMA Read becomes
 * visible to the CPU, where the LMR's mapping needs it (not for a slot
 * whose LMR is being freed).
 */
static __always_inline void kdapl_dto_sync_done(struct kdapl_dto_slot *s,
						const struct ib_wc *wc)
{
	u8 flags = READ_ONCE(s->flags);

	if (unlikely((flags & (KDAPL_DTO_SYNC | KDAPL_DTO_DEAD)) ==
		     KDAPL_DTO_SYNC) && wc->status == IB_WC_SUCCESS)
		kdapl_lmr_sync_sges(s->lmrs, s->sge, s->nsge, true);
}

/* Completion of a receive posted to the EP's QP; CQ context. */
static void kdapl_dto_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	DAT_EVENT ev __uninitialized;	/* kdapl_dto_event() fills it */
	struct kdapl_dto_slot *s =
		container_of(wc->wr_cqe, struct kdapl_dto_slot, cqe);
	struct kdapl_ep *ep = s->ep;
	struct kdapl_dto_ring *r = &ep->dto->recv;
	DAT_DTO_COMPLETION_STATUS status = kdapl_dto_status(wc->status);
	DAT_RMR_CONTEXT inv = 0;
	bool report;

	/* Receives complete in the order they were posted: @s is the tail. */
	if (wc->status == IB_WC_SUCCESS && (wc->wc_flags & IB_WC_WITH_INVALIDATE))
		inv = wc->ex.invalidate_rkey;
	trace_kdapl_dto_complete(kdapl_dto_trace_handle(ep), s->op,
				 s->cookie.as_64, wc->status, status,
				 wc->byte_len);
	kdapl_dto_sync_done(s, wc);
	if (wc->status == IB_WC_SUCCESS &&
	    !(READ_ONCE(s->flags) & KDAPL_DTO_INTERNAL))
		kdapl_dto_count_recv(ep, wc);
	report = kdapl_dto_event(ep, s, status, wc->byte_len, inv, &ev);
	if (report)
		kdapl_dto_recv_immed(&ev, wc);
	/* The slot is free once the tail passed it: copy first. */
	smp_store_release(&r->tail, r->tail + 1);
	atomic_dec(&ep->recv_outstanding);
	if (report)
		kdapl_dto_deliver(cq, &ev);
	kdapl_dto_check_qp(ep, wc);
}

/*
 * Completion of a send queue work request; CQ context.  Every DTO and
 * bind is signalled; the older slots not completed yet are the
 * unsignalled invalidations that start a rebind, which succeeded.
 */
static void kdapl_dto_req_done(struct ib_cq *cq, struct ib_wc *wc)
{
	DAT_EVENT ev __uninitialized;	/* kdapl_dto_event() fills it */
	struct kdapl_dto_slot *s =
		container_of(wc->wr_cqe, struct kdapl_dto_slot, cqe);
	struct kdapl_ep *ep = s->ep;
	struct kdapl_dto_ring *r = &ep->dto->req;
	DAT_DTO_COMPLETION_STATUS status = kdapl_dto_status(wc->status);
	u32 tail = r->tail, slot = s - r->slots;
	struct kdapl_rmr *bind = NULL;
	unsigned int retired = 0;
	bool report;

	if (WARN_ON_ONCE(slot > r->mask))
		return;
	while ((tail & r->mask) != slot) {
		const struct kdapl_dto_slot *old = &r->slots[tail & r->mask];

		/* kdapl_dto_forget_lmr() may mark slots meanwhile. */
		if (!(READ_ONCE(old->flags) & KDAPL_DTO_INTERNAL))
			retired++;
		trace_kdapl_dto_complete(kdapl_dto_trace_handle(ep), old->op,
					 old->cookie.as_64, IB_WC_SUCCESS,
					 DAT_DTO_SUCCESS, old->length);
		tail++;
	}
	if (!(READ_ONCE(s->flags) & KDAPL_DTO_INTERNAL))
		retired++;
	trace_kdapl_dto_complete(kdapl_dto_trace_handle(ep), s->op,
				 s->cookie.as_64, wc->status, status,
				 s->length);
	kdapl_dto_sync_done(s, wc);
	report = kdapl_dto_event(ep, s, status, s->length, 0, &ev);
	if (unlikely(READ_ONCE(s->flags) & KDAPL_DTO_BIND))
		bind = s->rmr;
	/* Pairs with the acquire of posters: the slots are read. */
	smp_store_release(&r->tail, tail + 1);
	if (retired)
		atomic_sub(retired, &ep->request_outstanding);
	/* The binding changes before the consumer hears of it. */
	if (unlikely(bind) &&
	    !kdapl_rmr_bind_done(bind, cq->cq_context, wc->status,
				 report ? &ev : NULL))
		report = false;
	if (report)
		kdapl_dto_deliver(cq, &ev);
	kdapl_dto_check_qp(ep, wc);
}

/* Completion of an LMR registration; CQ context. */
static void kdapl_dto_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kdapl_dto_reg_wr *w =
		container_of(wc->wr_cqe, struct kdapl_dto_reg_wr, cqe);
	struct kdapl_dto_reg *reg = w->reg;

	w->status = wc->status;
	if (atomic_dec_and_test(&reg->pending))
		complete(&reg->done);
}

/* ---------------------------------------------------------------------
 * EP life cycle, called by kdapl_ep.c and kdapl_cm.c
 */

/**
 * kdapl_dto_ep_init() - set up the DTO state of a new EP
 * @ep: the EP, not yet published, with its attributes
 *
 * Allocates the work request rings the attributes ask for.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int kdapl_dto_ep_init(struct kdapl_ep *ep)
{
	struct kdapl_dto *dto;
	u32 count, iov, i;

	dto = kzalloc(sizeof(*dto), GFP_KERNEL_ACCOUNT);
	if (!dto)
		return -ENOMEM;
	kdapl_dto_recv_dims(&ep->attr, &count, &iov);
	if (kdapl_dto_ring_alloc(&dto->recv, ep, count, iov,
				 kdapl_dto_recv_done))
		goto err;
	kdapl_dto_req_dims(&ep->attr, &count, &iov);
	if (kdapl_dto_ring_alloc(&dto->req, ep, count, iov,
				 kdapl_dto_req_done))
		goto err;
	for (i = 0; i < KDAPL_DTO_REG_BATCH; i++) {
		dto->reg.wr[i].cqe.done = kdapl_dto_reg_done;
		dto->reg.wr[i].reg = &dto->reg;
	}
	init_completion(&dto->reg.done);
	ep->dto = dto;
	return 0;

err:
	kdapl_dto_ring_free(&dto->recv);
	kdapl_dto_ring_free(&dto->req);
	kfree(dto);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_dto_ep_init);

/**
 * kdapl_dto_ep_fini() - free the DTO state of an EP
 * @ep: the EP, without a QP (none was created, or it was drained)
 *
 * Posts that looked the EP up before see its DTO state gone and fail.
 *
 * Context: process context.
 */
void kdapl_dto_ep_fini(struct kdapl_ep *ep)
{
	struct kdapl_dto *dto;
	unsigned long flags;

	/* Posts that looked the EP up before it was freed see NULL. */
	spin_lock_irqsave(&ep->lock, flags);
	dto = ep->dto;
	ep->dto = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!dto)
		return;
	/* A batch cut short by a time-out finished when the QP drained. */
	WARN_ON_ONCE(atomic_read(&dto->reg.pending));
	kdapl_dto_ring_free(&dto->recv);
	kdapl_dto_ring_free(&dto->req);
	kfree(dto);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_dto_ep_fini);

/*
 * Grow the rings to the current attributes before a new QP is used
 * (dat_ep_modify() may have raised them).  The receive ring is replaced
 * only while nothing of it is on a device queue; held receives move.
 */
static void kdapl_dto_grow(struct kdapl_ep *ep)
{
	struct kdapl_dto *dto = ep->dto;
	struct kdapl_dto_ring nrecv = {}, nreq = {}, old;
	u32 rcount, riov, qcount, qiov, i, n;
	unsigned long flags;
	DAT_EP_ATTR attr;

	spin_lock_irqsave(&ep->lock, flags);
	attr = ep->attr;
	spin_unlock_irqrestore(&ep->lock, flags);

	kdapl_dto_recv_dims(&attr, &rcount, &riov);
	kdapl_dto_req_dims(&attr, &qcount, &qiov);
	if ((rcount > dto->recv.limit ||
	     riov > dto->recv.iov) &&
	    kdapl_dto_ring_alloc(&nrecv, ep, max(rcount, dto->recv.limit),
				 max(riov, dto->recv.iov), kdapl_dto_recv_done))
		nrecv.slots = NULL;
	if ((qcount > dto->req.limit || qiov > dto->req.iov) &&
	    kdapl_dto_ring_alloc(&nreq, ep, max(qcount, dto->req.limit),
				 max(qiov, dto->req.iov), kdapl_dto_req_done))
		nreq.slots = NULL;
	if (!nrecv.slots && !nreq.slots)
		return;

	spin_lock_irqsave(&ep->lock, flags);
	if (nrecv.slots && dto->recv.hw == dto->recv.tail) {
		old = dto->recv;
		n = old.head - old.tail;
		for (i = 0; i < n; i++) {
			struct kdapl_dto_slot *f =
				&old.slots[(old.tail + i) & old.mask];
			struct kdapl_dto_slot *t = &nrecv.slots[i];

			t->cookie = f->cookie;
			t->length = f->length;
			t->op = f->op;
			t->flags = f->flags;
			t->nsge = f->nsge;
			t->nlmr = f->nlmr;
			memcpy(t->sge, f->sge, f->nsge * sizeof(*t->sge));
			memcpy(t->lmrs, f->lmrs, f->nlmr * sizeof(*t->lmrs));
		}
		nrecv.head = n;
		nrecv.hw = 0;
		dto->recv = nrecv;
		nrecv = old;
	}
	/* No request can be outstanding before the QP is connected. */
	if (nreq.slots && dto->req.head == READ_ONCE(dto->req.tail)) {
		old = dto->req;
		dto->req = nreq;
		nreq = old;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_dto_ring_free(&nrecv);
	kdapl_dto_ring_free(&nreq);
}

/*
 * May the device take this held receive now?  Not while one of its LMRs
 * is addressed through its own MR and that MR is not registered yet: a
 * peer's message would hit a key the device does not know.
 */
static bool kdapl_dto_slot_ready(const struct kdapl_dto_slot *s)
{
	u16 i;

	for (i = 0; i < s->nlmr; i++) {
		const struct kdapl_lmr *lmr = s->lmrs[i];

		if (lmr->sge_lkey == lmr->lmr_context &&
		    !READ_ONCE(lmr->registered))
			return false;
	}
	return true;
}

/*
 * Post held receives from @r->hw on, in order, stopping at the first one
 * that is not ready unless @all.  ep->lock held.
 */
static void kdapl_dto_post_held(struct kdapl_ep *ep, struct ib_qp *qp,
				bool all)
{
	struct kdapl_dto_ring *r = &ep->dto->recv;

	lockdep_assert_held(&ep->lock);
	while (r->hw != r->head) {
		struct kdapl_dto_slot *s = &r->slots[r->hw & r->mask];
		struct ib_recv_wr wr = {
			.wr_cqe = &s->cqe,
			.sg_list = s->nsge ? s->sge : NULL,
			.num_sge = s->nsge,
		};

		if (!all && !kdapl_dto_slot_ready(s))
			break;
		/* What the device refuses is flushed by kdapl_dto_qp_gone(). */
		if (ib_post_recv(qp, &wr, NULL))
			break;
		r->hw++;
	}
}

/**
 * kdapl_dto_qp_created() - the QP of an EP exists (INIT)
 * @ep: the EP, whose ep->qp is set
 * @max_inline: bytes the QP takes inline in a send
 *
 * Grows the rings to the attributes if they were raised, and gives the
 * device the receives held in software, up to the first one whose LMR
 * needs a registration (see kdapl_dto_qp_rts()).
 *
 * Context: process context.
 */
void kdapl_dto_qp_created(struct kdapl_ep *ep, u32 max_inline)
{
	unsigned long flags;
	struct ib_qp *qp;

	kdapl_dto_grow(ep);
	spin_lock_irqsave(&ep->lock, flags);
	ep->dto->req.max_inline = max_inline;
	ep->dto->recv.live = false;
	/*
	 * Held receives go to the device at once, so that a peer that sends
	 * first finds them (iWARP has no receiver-not-ready retry), up to
	 * the first one whose MR still needs registering.
	 */
	qp = ep->qp;
	if (qp && !ep->srq)
		kdapl_dto_post_held(ep, qp, false);
	spin_unlock_irqrestore(&ep->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_dto_qp_created);

#if IS_ENABLED(CONFIG_KUNIT)
struct kdapl_dto_test_hooks kdapl_dto_test_hooks;
EXPORT_SYMBOL_IF_KUNIT(kdapl_dto_test_hooks);

static int kdapl_dto_reg_test_hook(void)
{
	struct kdapl_dto_test_hooks hooks = {
		.reg = READ_ONCE(kdapl_dto_test_hooks.reg),
	};

	return hooks.reg ? hooks.reg() : 0;
}
#else
static inline int kdapl_dto_reg_test_hook(void)
{
	return 0;
}
#endif

/*
 * Post the registration of up to KDAPL_DTO_REG_BATCH LMRs of @lmrs on the
 * QP of @ep and wait for them.  The PZ's reg_mutex held.  Returns 0 or a
 * negative errno; LMRs whose registration succeeded are marked.
 */
static int kdapl_dto_reg_batch(struct kdapl_ep *ep, struct kdapl_lmr **lmrs,
			       unsigned int n)
{
	struct kdapl_dto_reg *reg = &ep->dto->reg;
	struct ib_reg_wr wrs[KDAPL_DTO_REG_BATCH];
	const struct ib_send_wr *bad = NULL;
	unsigned int i, posted;
	unsigned long flags;
	struct ib_qp *qp;
	int err = 0;

	/* A batch that timed out is still on the queue. */
	if (atomic_read(&reg->pending))
		return -EBUSY;
	err = kdapl_dto_reg_test_hook();
	if (err)
		return err;
	memset(wrs, 0, sizeof(wrs));
	for (i = 0; i < n; i++) {
		struct kdapl_dto_reg_wr *w = &reg->wr[i];

		w->lmr = lmrs[i];
		w->status = IB_WC_GENERAL_ERR;
		wrs[i].wr.opcode = IB_WR_REG_MR;
		wrs[i].wr.wr_cqe = &w->cqe;
		wrs[i].wr.send_flags = IB_SEND_SIGNALED;
		wrs[i].wr.next = i + 1 < n ? &wrs[i + 1].wr : NULL;
		wrs[i].mr = lmrs[i]->mr;
		wrs[i].key = lmrs[i]->mr->rkey;
		wrs[i].access = lmrs[i]->access;
	}
	reinit_completion(&reg->done);
	atomic_set(&reg->pending, n + 1);

	spin_lock_irqsave(&ep->lock, flags);
	qp = ep->qp;
	if (!qp)
		err = -ENOTCONN;
	else
		err = ib_post_send(qp, &wrs[0].wr, &bad);
	spin_unlock_irqrestore(&ep->lock, flags);
	posted = err ? (bad ? (unsigned int)((struct ib_reg_wr *)
					     container_of(bad, struct ib_reg_wr,
							  wr) - wrs) : 0) : n;
	/* Drop the work requests never posted, and the initial count. */
	if (atomic_sub_and_test(n - posted + 1, &reg->pending))
		complete(&reg->done);
	if (!wait_for_completion_timeout(&reg->done, KDAPL_DTO_REG_TIMEOUT))
		return -ETIMEDOUT;
	for (i = 0; i < posted; i++) {
		if (reg->wr[i].status == IB_WC_SUCCESS)
			WRITE_ONCE(reg->wr[i].lmr->registered, true);
		else if (!err)
			err = -EIO;
	}
	return err;
}

/* Register every LMR of @pz not registered yet on the QP of @ep. */
static int kdapl_dto_reg_pz(struct kdapl_ep *ep, struct kdapl_pz *pz)
{
	struct kdapl_lmr *batch[KDAPL_DTO_REG_BATCH];
	struct kdapl_lmr *lmr;
	unsigned long index;
	unsigned int n = 0;
	int err;

	lockdep_assert_held(&pz->reg_mutex);
	/*
	 * An LMR found here cannot be deregistered meanwhile: that needs
	 * the PZ's reg_mutex, which is held (see kdapl_dto_reg_lock()).
	 */
	xa_for_each(&pz->lmrs, index, lmr) {
		if (READ_ONCE(lmr->registered) || !READ_ONCE(lmr->mr))
			continue;
		batch[n++] = lmr;
		if (n < KDAPL_DTO_REG_BATCH)
			continue;
		err = kdapl_dto_reg_batch(ep, batch, n);
		if (err)
			return err;
		n = 0;
	}
	return n ? kdapl_dto_reg_batch(ep, batch, n) : 0;
}

/**
 * kdapl_dto_qp_rts() - the QP of an EP reached RTS: make it usable
 * @ep: the EP; its QP is in RTS and ESTABLISHED is not reported yet
 *
 * Registers the LMRs of the PZ that no QP registered yet (waiting for
 * their work requests), then gives the device the receives held back
 * for them; from then on receives go to the device as they are posted.
 * A datagram QP registers nothing (devices take registrations on
 * reliable connections only): its LMRs are those registered by a
 * connection of the PZ, user memory, or DMA-contiguous memory.
 *
 * Context: process context, never an rdma_cm handler (it waits).
 * Return: 0, or a negative errno: the connection is to break.
 */
int kdapl_dto_qp_rts(struct kdapl_ep *ep)
{
	unsigned long flags;
	struct kdapl_pz *pz;
	struct ib_qp *qp;
	int err = 0;

	spin_lock_irqsave(&ep->lock, flags);
	pz = ep->pz;
	spin_unlock_irqrestore(&ep->lock, flags);
	/* Datagram queue pairs take no registration work requests. */
	if (pz && !kdapl_ep_is_ud(ep)) {
		mutex_lock(&pz->reg_mutex);
		err = kdapl_dto_reg_pz(ep, pz);
		mutex_unlock(&pz->reg_mutex);
		if (err)
			return err;
	}
	spin_lock_irqsave(&ep->lock, flags);
	qp = ep->qp;
	if (!qp) {
		err = -ENOTCONN;
	} else {
		if (!ep->srq)
			kdapl_dto_post_held(ep, qp, true);
		ep->dto->recv.live = true;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_dto_qp_rts);

/**
 * kdapl_dto_lmr_created() - register a new LMR if its PZ has a live QP
 * @lmr: the LMR, published and in its PZ's list
 *
 * An LMR created while a connection of its PZ is up is registered at
 * once on that connection's QP, so that it is usable as soon as
 * dat_lmr_kcreate() returns.  Without such a QP the registration waits
 * for the next kdapl_dto_qp_rts() of the PZ.  Failing is not an error of
 * dat_lmr_kcreate(): the LMR stays unregistered (lmr_state.bound false)
 * until a later connection registers it.
 *
 * Context: process context, the IA lock held; may sleep.
 */
void kdapl_dto_lmr_created(struct kdapl_lmr *lmr)
{
	struct kdapl_ia *ia = lmr->obj.ia;
	struct kdapl_object *obj;

	lockdep_assert_held(&ia->lock);
	mutex_lock(&lmr->pz->reg_mutex);
	list_for_each_entry(obj, &ia->objects, ia_entry) {
		struct kdapl_ep *ep;

		if (READ_ONCE(lmr->registered) || !lmr->mr)
			break;
		if (obj->type != DAT_HANDLE_TYPE_EP)
			continue;
		ep = container_of(obj, struct kdapl_ep, obj);
		if (READ_ONCE(ep->pz) != lmr->pz || !ep->dto ||
		    kdapl_ep_is_ud(ep) ||
		    !READ_ONCE(ep->dto->recv.live) || !READ_ONCE(ep->qp))
			continue;
		kdapl_dto_reg_batch(ep, &lmr, 1);
	}
	mutex_unlock(&lmr->pz->reg_mutex);
}

/**
 * kdapl_dto_reg_lock() - keep LMR registrations of a PZ out
 * @pz: the PZ
 *
 * Taken by the LMR code around the deregistration of an LMR's MR, so
 * that no registration work request of that MR is in flight or can be
 * posted while it is held (the MR pointer is cleared under it).
 *
 * Context: process context; after the IA lock if that is held.
 */
void kdapl_dto_reg_lock(struct kdapl_pz *pz)
{
	mutex_lock(&pz->reg_mutex);
}

/**
 * kdapl_dto_reg_unlock() - undo kdapl_dto_reg_lock()
 * @pz: the PZ
 *
 * Context: process context.
 */
void kdapl_dto_reg_unlock(struct kdapl_pz *pz)
{
	mutex_unlock(&pz->reg_mutex);
}

/*
 * Queue the flushed completion of a slot on @evd, if any: a completion
 * kdapl makes itself, never delivered from here (see kdapl_evd_post()).
 * ep->lock held, which keeps the EP's EVDs.
 */
static void kdapl_dto_flush_slot(struct kdapl_ep *ep,
				 const struct kdapl_dto_slot *s,
				 struct kdapl_evd *evd)
{
	DAT_EVENT ev;

	lockdep_assert_held(&ep->lock);
	trace_kdapl_dto_complete(kdapl_dto_trace_handle(ep), s->op,
				 s->cookie.as_64, IB_WC_WR_FLUSH_ERR,
				 DAT_DTO_ERR_FLUSHED, 0);
	kdapl_dto_event(ep, s, DAT_DTO_ERR_FLUSHED, 0, 0, &ev);
	/* A failed bind is reported once its RMR is repaired. */
	if (s->flags & KDAPL_DTO_BIND)
		kdapl_rmr_bind_done(s->rmr, evd, IB_WC_WR_FLUSH_ERR, &ev);
	else if (evd)
		kdapl_evd_post(evd, &ev);
}

/**
 * kdapl_dto_wait_requests() - wait for the flushed requests of a QP
 * @ep: the EP; its QP is in ERR and no longer ep->qp
 *
 * What ib_drain_sq() does for the QPs it can drain (not datagram QPs,
 * which refuse its RDMA Write): every DTO is signalled, so each request
 * outstanding completes, flushed, through the CQ.  A device that never
 * flushes them is a device bug, reported once after ten seconds; the
 * wait goes on, since the completions still reference the EP.
 *
 * Context: process context, may sleep.
 */
void kdapl_dto_wait_requests(struct kdapl_ep *ep)
{
	unsigned long warn = jiffies + KDAPL_DTO_REG_TIMEOUT;

	while (atomic_read(&ep->request_outstanding)) {
		WARN_ONCE(time_after(jiffies, warn),
			  "kdapl: send queue of a datagram QP not flushed\n");
		usleep_range(1000, 2000);
	}
}

/**
 * kdapl_dto_req_mark() - a mark of the requests an EP has posted so far
 * @ep: the EP, ep->lock held
 *
 * Return: a mark for kdapl_dto_req_past().
 */
u32 kdapl_dto_req_mark(struct kdapl_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	return ep->dto->req.head;
}

/**
 * kdapl_dto_req_past() - have the requests before a mark completed?
 * @ep: the EP, ep->lock held (its rings are not replaced meanwhile)
 * @mark: from kdapl_dto_req_mark() under the same QP
 *
 * True once every request posted before @mark completed, so that the
 * device holds none of them any more: the send queue completes in order,
 * and every request kdapl posts is signalled.
 *
 * Return: whether the send queue's tail is at or past @mark.
 */
bool kdapl_dto_req_past(struct kdapl_ep *ep, u32 mark)
{
	lockdep_assert_held(&ep->lock);
	/* Pairs with the completion handler's release of the tail. */
	return (s32)(smp_load_acquire(&ep->dto->req.tail) - mark) >= 0;
}

/**
 * kdapl_dto_qp_gone() - the QP of an EP was drained
 * @ep: the EP, whose ep->qp is already NULL
 *
 * Completes as flushed what the device never reported (the receives
 * still held in software, and requests siw does not flush), with events
 * queued on the EP's EVDs.
 *
 * Context: process context.
 */
void kdapl_dto_qp_gone(struct kdapl_ep *ep)
{
	struct kdapl_dto *dto = ep->dto;
	struct kdapl_dto_ring *r = &dto->recv;
	struct kdapl_dto_ring *q = &dto->req;
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&ep->lock, flags);
	r->live = false;
	/*
	 * The send queue is drained: a device flushes every work request
	 * with a completion, and every DTO and bind is signalled.  siw in
	 * 6.1 does not flush a send queue with nothing in progress when its
	 * connection closes, though: a slot left here never completed, and
	 * is reported as flushed so that no DTO is lost.
	 */
	n = 0;
	while (q->tail != q->head) {
		struct kdapl_dto_slot *s = &q->slots[q->tail & q->mask];

		q->tail++;
		if (s->flags & KDAPL_DTO_INTERNAL)
			continue;
		n++;
		kdapl_dto_flush_slot(ep, s, ep->request_evd);
	}
	if (n)
		atomic_sub(n, &ep->request_outstanding);
	/* Receives the device had were flushed through the CQ. */
	WARN_ON_ONCE(r->tail != r->hw);
	while (r->tail != r->head) {
		/* Flushed receives are reported even when quiet. */
		kdapl_dto_flush_slot(ep, &r->slots[r->tail & r->mask],
				     ep->recv_evd);
		r->tail++;
		r->hw = r->tail;
		atomic_dec(&ep->recv_outstanding);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_dto_qp_gone);

/* Does slot @s reference @lmr? */
static bool kdapl_dto_slot_uses(const struct kdapl_dto_slot *s,
				const struct kdapl_lmr *lmr)
{
	u16 i;

	for (i = 0; i < s->nlmr; i++)
		if (s->lmrs[i] == lmr)
			return true;
	return false;
}

/* Does slot @s reference an LMR outside @pz? */
static bool kdapl_dto_slot_outside(const struct kdapl_dto_slot *s,
				   const struct kdapl_pz *pz)
{
	u16 i;

	for (i = 0; i < s->nlmr; i++)
		if (s->lmrs[i]->pz != pz)
			return true;
	return false;
}

/* Move held receive @from to slot @to of the same ring. */
static void kdapl_dto_slot_move(struct kdapl_dto_slot *to,
				const struct kdapl_dto_slot *from)
{
	to->cookie = from->cookie;
	to->length = from->length;
	to->op = from->op;
	to->flags = from->flags;
	to->nsge = from->nsge;
	to->nlmr = from->nlmr;
	memcpy(to->sge, from->sge, from->nsge * sizeof(*to->sge));
	memcpy(to->lmrs, from->lmrs, from->nlmr * sizeof(*to->lmrs));
}

/*
 * Take the held receives of @ep that reference @lmr (or, without @lmr,
 * an LMR outside @pz) out of the receive ring: they never reached a work
 * queue, and complete at once with a protection error; the others keep
 * their order.  ep->lock held.
 */
static void kdapl_dto_drop_held(struct kdapl_ep *ep,
				const struct kdapl_lmr *lmr,
				const struct kdapl_pz *pz)
{
	struct kdapl_dto_ring *r = &ep->dto->recv;
	u32 i, w = r->hw;

	lockdep_assert_held(&ep->lock);
	for (i = r->hw; i != r->head; i++) {
		struct kdapl_dto_slot *s = &r->slots[i & r->mask];

		if (lmr ? kdapl_dto_slot_uses(s, lmr) :
			  kdapl_dto_slot_outside(s, pz)) {
			s->flags |= KDAPL_DTO_DEAD;
			kdapl_dto_flush_slot(ep, s, ep->recv_evd);
			atomic_dec(&ep->recv_outstanding);
			continue;
		}
		if (i != w)
			kdapl_dto_slot_move(&r->slots[w & r->mask], s);
		w++;
	}
	r->head = w;
}

/*
 * Mark the slots of @r from @from to @end that reference @lmr: each
 * fails with a protection error when it completes.  Returns true if
 * there is one.  ep->lock held; the slots are on the device and may
 * complete meanwhile.
 */
static bool kdapl_dto_mark_dead(struct kdapl_dto_ring *r, u32 from, u32 end,
				const struct kdapl_lmr *lmr)
{
	bool found = false;
	u32 i;

	for (i = from; i != end; i++) {
		struct kdapl_dto_slot *s = &r->slots[i & r->mask];

		if (!kdapl_dto_slot_uses(s, lmr))
			continue;
		WRITE_ONCE(s->flags, s->flags | KDAPL_DTO_DEAD);
		found = true;
	}
	return found;
}

/**
 * kdapl_dto_forget_lmr() - an LMR of the EP's PZ is being freed
 * @ep: the EP
 * @lmr: the LMR, no longer found by posts
 *
 * Every work request of @ep that references @lmr completes with
 * DAT_DTO_ERR_LOCAL_PROTECTION and moves no byte: receives still held in
 * software complete at once.  Those the device has cannot be taken back:
 * the caller breaks the connection and drains the QP before the LMR's
 * memory is given back.
 *
 * Context: process context, the IA lock held.
 * Return: true if the device has a work request that references @lmr.
 */
bool kdapl_dto_forget_lmr(struct kdapl_ep *ep, const struct kdapl_lmr *lmr)
{
	struct kdapl_dto *dto;
	unsigned long flags;
	bool busy = false;
	u32 recv_tail, req_tail;

	spin_lock_irqsave(&ep->lock, flags);
	dto = ep->dto;
	if (dto) {
		kdapl_dto_drop_held(ep, lmr, NULL);
		/* Pairs with the completions' release: slots before it are done. */
		recv_tail = smp_load_acquire(&dto->recv.tail);
		/* The same for requests. */
		req_tail = smp_load_acquire(&dto->req.tail);
		busy = kdapl_dto_mark_dead(&dto->recv, recv_tail, dto->recv.hw,
					   lmr);
		busy |= kdapl_dto_mark_dead(&dto->req, req_tail, dto->req.head,
					    lmr);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return busy;
}

/**
 * kdapl_dto_pz_changed() - the EP takes another PZ
 * @ep: the EP, quiescent (no QP: every receive is held)
 * @pz: its new PZ
 *
 * The receives that use an LMR outside @pz fail with a protection error
 * at once, as dat_ep_modify() says.
 *
 * Context: any context, ep->lock held.
 */
void kdapl_dto_pz_changed(struct kdapl_ep *ep, const struct kdapl_pz *pz)
{
	if (ep->dto)
		kdapl_dto_drop_held(ep, NULL, pz);
}

/* ---------------------------------------------------------------------
 * Posting
 */

/*
 * A QP-less EP in these states lost its connection: receives complete
 * as flushed at once.  In the others receives are held until a QP takes
 * them.
 */
static bool kdapl_dto_flush_state(DAT_EP_STATE state)
{
	return kdapl_ep_state_connected(state) ||
	       state == DAT_EP_STATE_DISCONNECT_PENDING ||
	       state == DAT_EP_STATE_DISCONNECTED;
}

/*
 * The EP of a handle of @owner for a post, without taking a reference:
 * the caller is in an RCU read-side section from the lookup until it
 * drops ep->lock, and posts only if ep->dto is still there once it holds
 * that lock.  That pins everything the post uses: kdapl_ep_destroy()
 * clears ep->dto under ep->lock (kdapl_dto_ep_fini()) before it lets go
 * of the EP's PZ and EVDs, the EP's memory is freed only once it is
 * unpublished and after a grace period (kfree_rcu()), and ep->qp is
 * cleared under ep->lock before the QP is destroyed.  Saves the atomic
 * get and put of kdapl_get() on every post.  Returns NULL for a bad
 * handle.
 */
static __always_inline struct kdapl_ep *
kdapl_dto_ep_find(const struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle)
{
	struct kdapl_object *obj;

	obj = kdapl_object_lookup_rcu(owner, ep_handle, DAT_HANDLE_TYPE_EP);
	return obj ? container_of(obj, struct kdapl_ep, obj) : NULL;
}

/**
 * kdapl_ep_post_failed() - complete a DTO that could not be posted
 * @owner: the owner of the EP
 * @ep_handle: the EP
 * @op: the DTO: DAT_DTO_SEND, _RDMA_WRITE, _RDMA_READ or _RECEIVE, or
 *	an IB extension operation (DAT_IB_DTO_RDMA_WRITE_IMMED,
 *	_CMP_SWAP, _FETCH_ADD, _SEND_UD), which completes as a
 *	DAT_IB_DTO_EVENT
 * @user_cookie: its cookie
 * @status: the error it completes with
 *
 * For posts a process queued in a post ring and the kernel refused after
 * the process's call had returned: the refusal reaches the process as the
 * DTO's completion, queued on the EP's receive EVD (@op DAT_DTO_RECEIVE)
 * or request EVD, as a flushed DTO's would be.
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: DAT_SUCCESS, or DAT_INVALID_HANDLE (EP) when the EP is gone
 * (and its EVDs with it).
 */
DAT_RETURN kdapl_ep_post_failed(struct kdapl_owner *owner,
				DAT_EP_HANDLE ep_handle, DAT_DTOS op,
				DAT_DTO_COOKIE user_cookie,
				DAT_DTO_COMPLETION_STATUS status)
{
	struct kdapl_dto_slot s = {
		.cookie = user_cookie,
		.op = op,
	};
	DAT_RETURN ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	struct kdapl_evd *evd;
	struct kdapl_ep *ep;
	unsigned long flags;
	DAT_EVENT ev;

	rcu_read_lock();
	ep = kdapl_dto_ep_find(owner, ep_handle);
	if (!ep)
		goto out;
	spin_lock_irqsave(&ep->lock, flags);
	if (ep->dto) {
		s.ep = ep;
		evd = op == DAT_DTO_RECEIVE ? ep->recv_evd : ep->request_evd;
		kdapl_dto_event(ep, &s, status, 0, 0, &ev);
		trace_kdapl_dto_complete(kdapl_dto_trace_handle(ep), op,
					 user_cookie.as_64, 0, status, 0);
		if (evd)
			kdapl_evd_post(evd, &ev);
		ret = DAT_SUCCESS;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
out:
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_failed);

/* What a local segment is used for. */
enum kdapl_dto_use {
	KDAPL_DTO_SOURCE,	/* read by the device: send, RDMA Write */
	KDAPL_DTO_SINK,		/* written by the device: receive */
	KDAPL_DTO_READ_SINK,	/* written by an RDMA Read response */
};

/*
 * May @lmr take part in a DTO as @use?  Its range, its privileges, and
 * its registration where the device addresses it through its own MR
 * (not for a receive @held in software: it waits for the registration,
 * see kdapl_dto_qp_rts()).
 */
static __always_inline DAT_RETURN
kdapl_dto_check_lmr(const struct kdapl_ep *ep, const struct kdapl_lmr *lmr,
		    const DAT_LMR_TRIPLET *t, enum kdapl_dto_use use, bool held)
{
	bool own_mr = use == KDAPL_DTO_READ_SINK ||
		      lmr->sge_lkey == lmr->lmr_context;

	if (!kdapl_lmr_covers(lmr, t->virtual_address, t->segment_length) ||
	    (own_mr && !held && !READ_ONCE(lmr->registered)))
		return dat_error(DAT_PROTECTION_VIOLATION,
				 use == KDAPL_DTO_SOURCE ? DAT_PROTECTION_READ :
							   DAT_PROTECTION_WRITE);
	if (use != KDAPL_DTO_SOURCE &&
	    !(lmr->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG))
		return dat_error(DAT_PRIVILEGES_VIOLATION,
				 DAT_PRIVILEGES_WRITE);
	/* iWARP: the response of an RDMA Read is a remote write. */
	if (use == KDAPL_DTO_READ_SINK &&
	    ep->obj.ia->adapter->transport == KDAPL_TRANSPORT_IWARP &&
	    !(lmr->priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
		return dat_error(DAT_PRIVILEGES_VIOLATION,
				 DAT_PRIVILEGES_RDMA_READ);
	return DAT_SUCCESS;
}

/*
 * Check @n local segments against the LMRs of the EP's PZ, fill @sge
 * (may be NULL to only check) and record each segment's LMR in @lmrs
 * (may be NULL); *total gets their length, *cpu_va (if not NULL) is
 * cleared unless every LMR is addressed by kernel virtual addresses, and
 * *sync (if not NULL) set if an LMR's mapping needs syncs.
 * ep->lock held (LMRs are freed after a grace period, and leave the
 * PZ's hash before dat_lmr_free() looks for them in the EP's slots under
 * that lock).
 */
static __always_inline DAT_RETURN
kdapl_dto_build_sge(struct kdapl_ep *ep, const DAT_LMR_TRIPLET *iov,
		    DAT_COUNT n, struct ib_sge *sge, struct kdapl_lmr **lmrs,
		    enum kdapl_dto_use use, bool held, u64 *total,
		    bool *cpu_va, bool *sync)
{
	struct kdapl_pz *pz = ep->pz;
	DAT_RETURN ret = DAT_SUCCESS;
	u64 sum = 0;
	DAT_COUNT i;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "LMR lookup outside RCU");
	for (i = 0; i < n; i++) {
		const DAT_LMR_TRIPLET *t = &iov[i];
		struct kdapl_lmr *lmr;

		lmr = pz ? kdapl_pz_lmr_rcu(pz, t->lmr_context) : NULL;
		if (!lmr) {
			ret = dat_error(DAT_PROTECTION_VIOLATION,
					use == KDAPL_DTO_SOURCE ?
					DAT_PROTECTION_READ :
					DAT_PROTECTION_WRITE);
			break;
		}
		ret = kdapl_dto_check_lmr(ep, lmr, t, use, held);
		if (ret)
			break;
		if (sge && use == KDAPL_DTO_READ_SINK) {
			sge[i].addr = t->virtual_address;
			sge[i].length = t->segment_length;
			sge[i].lkey = t->lmr_context;
		} else if (sge) {
			kdapl_lmr_sge(lmr, t, &sge[i]);
		}
		if (lmrs)
			lmrs[i] = lmr;
		if (cpu_va && !lmr->cpu_va)
			*cpu_va = false;
		if (sync && unlikely(lmr->need_sync))
			*sync = true;
		sum += t->segment_length;
	}
	*total = sum;
	return ret;
}

/*
 * A receive posted on an EP that lost its connection (see
 * dat_ep_post_recv()) is checked like any other and then completes as
 * flushed: the event is queued on the receive EVD, whose kick work
 * delivers it to an upcall.  ep->lock held.  Out of line: the posting
 * path stays small.
 */
static noinline DAT_RETURN
kdapl_dto_recv_flush(struct kdapl_ep *ep, const DAT_LMR_TRIPLET *iov,
		     DAT_COUNT n, DAT_DTO_COOKIE cookie, u64 *total)
{
	struct kdapl_dto_slot flushed = {
		.ep = ep,
		.cookie = cookie,
		.op = DAT_DTO_RECEIVE,
	};
	DAT_RETURN ret;

	ret = kdapl_dto_build_sge(ep, iov, n, NULL, NULL, KDAPL_DTO_SINK, true,
				  total, NULL, NULL);
	if (ret)
		return ret;
	WRITE_ONCE(ep->recvs_posted, true);
	kdapl_dto_flush_slot(ep, &flushed, ep->recv_evd);
	return DAT_SUCCESS;
}

/* Trace and return the refusal of a receive's arguments. */
static noinline DAT_RETURN kdapl_dto_recv_trace(DAT_EP_HANDLE ep_handle,
						DAT_DTO_COOKIE cookie,
						u64 total, DAT_COUNT n,
						DAT_RETURN_SUBTYPE arg)
{
	DAT_RETURN ret = dat_error(DAT_INVALID_PARAMETER, arg);

	trace_kdapl_dto_post((u64)(uintptr_t)ep_handle, DAT_DTO_RECEIVE,
			     cookie.as_64, total, n, ret);
	return ret;
}

/* The checks of a receive against the EP; ep->lock held. */
static __always_inline DAT_RETURN
kdapl_dto_recv_check(const struct kdapl_ep *ep, DAT_COUNT n,
		     DAT_COMPLETION_FLAGS flags)
{
	if (unlikely(ep->srq))
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	/* Unsignalled receives need an EP that suppresses their events. */
	if (unlikely((flags & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
		     ep->attr.recv_completion_flags !=
		     DAT_COMPLETION_SUPPRESS_FLAG))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (unlikely(n > min_t(u32, ep->attr.max_recv_iov,
			       ep->dto->recv.iov)))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return DAT_SUCCESS;
}

/*
 * Hand the receive in slot @s at the head of @r to the device, or hold
 * it until the QP is usable (see kdapl_dto_qp_rts()).  ep->lock held.
 */
static __always_inline DAT_RETURN
kdapl_dto_recv_commit(struct kdapl_ep *ep, struct kdapl_dto_ring *r,
		      struct kdapl_dto_slot *s)
{
	struct ib_qp *qp = ep->qp;
	struct ib_recv_wr wr;

	atomic_inc(&ep->recv_outstanding);
	WRITE_ONCE(ep->recvs_posted, true);
	if (unlikely(!qp || !r->live)) {
		r->head++;
		return DAT_SUCCESS;
	}
	wr.next = NULL;
	wr.wr_cqe = &s->cqe;
	wr.sg_list = s->nsge ? s->sge : NULL;
	wr.num_sge = s->nsge;
	/* Held receives go first, all of them (kdapl_dto_qp_rts()). */
	if (unlikely(r->hw != r->head || ib_post_recv(qp, &wr, NULL))) {
		atomic_dec(&ep->recv_outstanding);
		return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	}
	r->head++;
	r->hw = r->head;
	return DAT_SUCCESS;
}

/**
 * kdapl_ep_post_recv() - dat_ep_post_recv() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_post_recv()
 * @num_segments: as for dat_ep_post_recv()
 * @local_iov: as for dat_ep_post_recv()
 * @user_cookie: as for dat_ep_post_recv()
 * @completion_flags: as for dat_ep_post_recv()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_post_recv().
 * Return: as dat_ep_post_recv().
 */
DAT_RETURN kdapl_ep_post_recv(struct kdapl_owner *owner,
			      DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			      DAT_LMR_TRIPLET *local_iov,
			      DAT_DTO_COOKIE user_cookie,
			      DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_slot *s;
	struct kdapl_dto_ring *r;
	struct kdapl_ep *ep;
	unsigned long flags;
	bool sync = false;
	DAT_RETURN ret;
	u64 total = 0;

	if (unlikely(num_segments < 0))
		return kdapl_dto_recv_trace(ep_handle, user_cookie, 0,
					    num_segments, DAT_INVALID_ARG2);
	if (unlikely(num_segments && !local_iov))
		return kdapl_dto_recv_trace(ep_handle, user_cookie, 0,
					    num_segments, DAT_INVALID_ARG3);
	if (unlikely(completion_flags & ~DAT_COMPLETION_UNSIGNALLED_FLAG))
		return kdapl_dto_recv_trace(ep_handle, user_cookie, 0,
					    num_segments, DAT_INVALID_ARG5);

	ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	rcu_read_lock();
	ep = kdapl_dto_ep_find(owner, ep_handle);
	if (unlikely(!ep))
		goto out;
	spin_lock_irqsave(&ep->lock, flags);
	if (unlikely(!ep->dto))
		goto unlock;
	r = &ep->dto->recv;
	ret = kdapl_dto_recv_check(ep, num_segments, completion_flags);
	if (unlikely(ret))
		goto unlock;
	if (unlikely(!ep->qp && kdapl_dto_flush_state(ep->state))) {
		ret = kdapl_dto_recv_flush(ep, local_iov, num_segments,
					   user_cookie, &total);
		goto unlock;
	}
	/* Pairs with the release of the completion that frees slots. */
	if (unlikely(r->head - smp_load_acquire(&r->tail) >=
		     min_t(u32, max(ep->attr.max_recv_dtos, 1), r->limit))) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto unlock;
	}
	s = &r->slots[r->head & r->mask];
	ret = kdapl_dto_build_sge(ep, local_iov, num_segments, s->sge, s->lmrs,
				  KDAPL_DTO_SINK, !r->live, &total, NULL,
				  &sync);
	if (unlikely(ret))
		goto unlock;
	s->cookie = user_cookie;
	s->op = DAT_DTO_RECEIVE;
	s->flags = completion_flags & DAT_COMPLETION_UNSIGNALLED_FLAG ?
		   KDAPL_DTO_QUIET : 0;
	s->nsge = num_segments;
	s->nlmr = num_segments;
	if (unlikely(sync)) {
		kdapl_lmr_sync_sges(s->lmrs, s->sge, num_segments, false);
		s->flags |= KDAPL_DTO_SYNC;
	}
	s->length = total;
	ret = kdapl_dto_recv_commit(ep, r, s);
unlock:
	kdapl_stat_post(ep->obj.ia->adapter, DAT_DTO_RECEIVE, ret);
	if (likely(!ret))
		kdapl_dto_count_post(ep, DAT_DTO_RECEIVE, total);
	spin_unlock_irqrestore(&ep->lock, flags);
out:
	rcu_read_unlock();
	trace_kdapl_dto_post((u64)(uintptr_t)ep_handle, DAT_DTO_RECEIVE,
			     user_cookie.as_64, total, num_segments, ret);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_recv);

/**
 * dat_ep_post_recv() - post a receive buffer on an Endpoint
 * @ep_handle: the EP (without an SRQ)
 * @num_segments: segments in @local_iov, 0 to the EP's max_recv_iov
 * @local_iov: the segments, may be NULL when @num_segments is 0; each in
 *	an LMR of the EP's PZ with local write privilege
 * @user_cookie: returned in the completion
 * @completion_flags: DAT_COMPLETION_DEFAULT_FLAG, or
 *	DAT_COMPLETION_UNSIGNALLED_FLAG (no event on success) when the EP's
 *	recv_completion_flags have it
 *
 * Valid in every EP state.  Before the connection's queue pair exists
 * the receive is held in software and posted when it is created; on an
 * EP that has lost its connection (connected without queue pair,
 * disconnect pending, disconnected, completion pending) it completes
 * at once with DAT_DTO_ERR_FLUSHED.  Nothing is allocated.
 *
 * Context: any context; takes ep->lock with interrupts disabled.  A
 * flushed completion is queued, never delivered to an upcall from here.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE (EP) for a bad @ep_handle;
 * DAT_INVALID_PARAMETER (ARG2) for @num_segments negative or above
 * max_recv_iov, (ARG3) for a NULL @local_iov with segments, (ARG5) for
 * unknown @completion_flags or an unsignalled receive the EP does not
 * allow;
 * DAT_INVALID_STATE for an EP with an SRQ (its receives come from the
 * SRQ);
 * DAT_PROTECTION_VIOLATION (PROTECTION_WRITE) for a segment that is not
 * inside an LMR of the EP's PZ;
 * DAT_PRIVILEGES_VIOLATION (PRIVILEGES_WRITE) for an LMR without local
 * write privilege;
 * DAT_INSUFFICIENT_RESOURCES (TEP) when max_recv_dtos receives are
 * outstanding or the device refuses the post.
 */
DAT_RETURN dat_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_recv(&kdapl_kernel_owner, ep_handle, num_segments,
				  local_iov, user_cookie, completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_recv);

/**
 * struct kdapl_dto_req - a request to post, as the kDAT call gave it
 * @opcode: IB_WR_* opcode
 * @op: DAT_DTO_* operation of the completion
 * @use: what the local segments are for
 * @n: local segments
 * @iov: LMR segments (NULL for dat_ep_post_rdma_read_to_rmr())
 * @rmr_iov: the RMR sink of dat_ep_post_rdma_read_to_rmr()
 * @remote: remote buffer of an RDMA operation
 * @cookie: the consumer's cookie
 * @flags: completion flags
 * @allowed: completion flags the call takes
 * @inv_rkey: key a send with invalidate invalidates
 * @immed: immediate data of an RDMA Write with immediate
 * @compare_add: operand of an atomic: compared, or added
 * @swap: operand of compare and swap: stored if the comparison holds
 * @ib_ext: the KDAPL_IB_EXT_* operation the IA's transport must carry
 * @ah: where a datagram goes (dat_ib_post_send_ud(), its argument 4)
 * @arg_n: DAT_INVALID_ARG* of @n
 * @arg_iov: of the local segments
 * @arg_remote: of @remote
 * @arg_flags: of @flags
 */
struct kdapl_dto_req {
	enum ib_wr_opcode opcode;
	DAT_DTOS op;
	enum kdapl_dto_use use;
	DAT_COUNT n;
	const DAT_LMR_TRIPLET *iov;
	const DAT_RMR_TRIPLET *rmr_iov;
	const DAT_RMR_TRIPLET *remote;
	DAT_DTO_COOKIE cookie;
	DAT_COMPLETION_FLAGS flags;
	DAT_COMPLETION_FLAGS allowed;
	u32 inv_rkey;
	u32 immed;
	u64 compare_add;
	u64 swap;
	u32 ib_ext;
	const DAT_IB_ADDR_HANDLE *ah;
	DAT_RETURN_SUBTYPE arg_n;
	DAT_RETURN_SUBTYPE arg_iov;
	DAT_RETURN_SUBTYPE arg_remote;
	DAT_RETURN_SUBTYPE arg_flags;
};

/* Segments of the request kind the EP's attributes allow. */
static __always_inline u32
kdapl_dto_max_iov(const struct kdapl_ep *ep, const struct kdapl_dto_req *req)
{
	switch (req->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return ep->attr.max_rdma_write_iov;
	case IB_WR_RDMA_READ:
		return ep->attr.max_rdma_read_iov;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return 1;
	default:
		return ep->attr.max_request_iov;
	}
}

/*
 * The send flags of a request with completion @flags, and its slot's.
 * Every request is signalled: an unsignalled one only reports nothing
 * when it succeeds, so that its completion still retires it (and
 * dat_ep_get_status() sees it done).
 */
static __always_inline int
kdapl_dto_send_flags(DAT_COMPLETION_FLAGS flags, u8 *slot_flags)
{
	int send_flags = IB_SEND_SIGNALED;

	/* The common case: signalled, with an event. */
	if (likely(flags == DAT_COMPLETION_DEFAULT_FLAG))
		return send_flags;
	if (flags & DAT_COMPLETION_BARRIER_FENCE_FLAG)
		send_flags |= IB_SEND_FENCE;
	if (flags & DAT_COMPLETION_SOLICITED_WAIT_FLAG)
		send_flags |= IB_SEND_SOLICITED;
	if (flags & (DAT_COMPLETION_SUPPRESS_FLAG |
		     DAT_COMPLETION_UNSIGNALLED_FLAG))
		*slot_flags |= KDAPL_DTO_QUIET;
	return send_flags;
}

/*
 * May a send or RDMA Write of @total bytes from these segments be
 * copied by the device at post time (IB_SEND_INLINE)?  Only when the
 * QP takes that much inline, every LMR is in kernel virtual addresses
 * (the device copies from sge.addr with the CPU, so @s->sge gets the
 * segments' own addresses) and no fence asks that the data be read
 * after earlier RDMA Reads, maybe into the same buffer, have completed.
 * Saves the device the lookup of the local key and the address
 * translation of the payload when it builds the packet.
 */
static __always_inline bool
kdapl_dto_may_inline(struct kdapl_dto_ring *q, struct kdapl_dto_slot *s,
		     const struct kdapl_dto_req *req, u64 total, bool cpu_va)
{
	DAT_COUNT i;

	if (total > q->max_inline || !cpu_va ||
	    (req->flags & DAT_COMPLETION_BARRIER_FENCE_FLAG))
		return false;
	for (i = 0; i < req->n; i++)
		s->sge[i].addr = req->iov[i].virtual_address;
	return true;
}

/*
 * The EP's QP if it is connected, else the DAT_INVALID_STATE error.
 * ep->lock held, ep->dto checked.
 */
static __always_inline struct ib_qp *
kdapl_dto_connected_qp(struct kdapl_ep *ep, DAT_RETURN *ret)
{
	*ret = kdapl_ep_connected_state(ep);
	return *ret ? NULL : ep->qp;
}

/*
 * The sink of dat_ep_post_rdma_read_to_rmr(): a bound RMR of the EP's PZ
 * with local write privilege whose window covers the range (see
 * kdapl_rmr_sink()).  ep->lock held.
 */
static noinline DAT_RETURN kdapl_dto_rmr_sink(struct kdapl_ep *ep,
					      const DAT_RMR_TRIPLET *t,
					      struct ib_sge *sge)
{
	bool iwarp = ep->obj.ia->adapter->transport == KDAPL_TRANSPORT_IWARP;

	if (!ep->pz)
		return dat_error(DAT_PROTECTION_VIOLATION,
				 DAT_PROTECTION_WRITE);
	return kdapl_rmr_sink(ep->pz, t, iwarp, sge);
}

static __always_inline bool kdapl_dto_atomic(const struct kdapl_dto_req *req)
{
	return req->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       req->opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * An atomic reads and writes the 8 bytes at the remote address, which
 * must be aligned on them, and returns the original value into the first
 * 8 bytes of its local segment.
 */
static noinline DAT_RETURN
kdapl_dto_atomic_check(const struct kdapl_dto_req *req,
		       struct kdapl_dto_slot *s, u64 *total)
{
	if (*total < sizeof(u64) ||
	    req->remote->segment_length < sizeof(u64))
		return dat_error(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	if (!IS_ALIGNED(req->remote->virtual_address, sizeof(u64)))
		return dat_error(DAT_INVALID_PARAMETER, req->arg_remote);
	s->sge[0].length = sizeof(u64);
	*total = sizeof(u64);
	return DAT_SUCCESS;
}

/* The checks of a request that need no EP, with the refusal traced. */
static __always_inline DAT_RETURN
kdapl_dto_req_args(DAT_EP_HANDLE ep_handle, const struct kdapl_dto_req *req)
{
	DAT_RETURN_SUBTYPE arg = 0;
	DAT_RETURN ret;

	if (unlikely(req->n < 0 || (kdapl_dto_atomic(req) && req->n != 1)))
		arg = req->arg_n;
	else if (unlikely((req->n && !req->iov && !req->rmr_iov) ||
			  (!req->n && req->rmr_iov)))
		arg = req->arg_iov;
	else if (unlikely(req->arg_remote && !req->remote))
		arg = req->arg_remote;
	else if (unlikely(req->op == (DAT_DTOS)DAT_IB_DTO_SEND_UD && !req->ah))
		arg = DAT_INVALID_ARG4;
	else if (unlikely(req->flags & ~req->allowed))
		arg = req->arg_flags;
	if (likely(!arg))
		return DAT_SUCCESS;
	ret = dat_error(DAT_INVALID_PARAMETER, arg);
	trace_kdapl_dto_post((u64)(uintptr_t)ep_handle, req->op,
			     req->cookie.as_64, 0, req->n, ret);
	return ret;
}

/* The checks of a request against the EP; ep->lock held. */
static __always_inline DAT_RETURN
kdapl_dto_req_check(struct kdapl_ep *ep, const struct kdapl_dto_req *req,
		    struct ib_qp **qp)
{
	struct kdapl_dto_ring *q = &ep->dto->req;
	DAT_RETURN ret;

	/* An IB extension the transport does not carry. */
	if (unlikely(req->ib_ext && !(ep->obj.ia->ib_ext & req->ib_ext)))
		return dat_error(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	/* Datagrams on datagram EPs, and nothing else. */
	if (unlikely(kdapl_ep_is_ud(ep) !=
		     (req->op == (DAT_DTOS)DAT_IB_DTO_SEND_UD)))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	*qp = kdapl_dto_connected_qp(ep, &ret);
	if (unlikely(!*qp))
		return ret;
	if (unlikely((req->flags & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
		     !(ep->attr.request_completion_flags &
		       DAT_COMPLETION_UNSIGNALLED_FLAG)))
		return dat_error(DAT_INVALID_PARAMETER, req->arg_flags);
	if (unlikely(req->n > min(kdapl_dto_max_iov(ep, req), q->iov)))
		return dat_error(DAT_INVALID_PARAMETER, req->arg_n);
	if (unlikely(atomic_read(&ep->request_outstanding) >=
		     max(ep->attr.max_request_dtos, 1) ||
		     /* acquire: pairs with the release of kdapl_dto_req_done() */
		     q->head - smp_load_acquire(&q->tail) >= q->limit))
		return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	return DAT_SUCCESS;
}

/*
 * The local segments of a request and their LMRs into @s, and the length
 * checks; sets the work request's num_sge, *@total, and *@sync if an LMR
 * needs syncs.  ep->lock held.
 */
static __always_inline DAT_RETURN
kdapl_dto_req_build(struct kdapl_ep *ep, const struct kdapl_dto_req *req,
		    struct kdapl_dto_slot *s, struct ib_send_wr *wr,
		    u64 *total, bool *cpu_va, bool *sync)
{
	DAT_RETURN ret;
	u64 left;
	u32 rlen;
	int i;

	if (req->rmr_iov) {
		ret = kdapl_dto_rmr_sink(ep, req->rmr_iov, s->sge);
		if (unlikely(ret))
			return ret;
		*total = req->rmr_iov->segment_length;
		s->nlmr = 0;
	} else {
		ret = kdapl_dto_build_sge(ep, req->iov, req->n, s->sge, s->lmrs,
					  req->use, false, total,
					  req->use == KDAPL_DTO_SOURCE ?
					  cpu_va : NULL, sync);
		if (unlikely(ret))
			return ret;
		s->nlmr = req->n;
	}
	wr->num_sge = req->n;
	if (kdapl_dto_atomic(req))
		return kdapl_dto_atomic_check(req, s, total);
	if (!req->remote) {
		if (unlikely(*total > ep->attr.max_message_size))
			return dat_error(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
		return DAT_SUCCESS;
	}
	rlen = req->remote->segment_length;
	if (rlen > ep->attr.max_rdma_size ||
	    (req->use == KDAPL_DTO_SOURCE && *total > rlen) ||
	    (req->opcode == IB_WR_RDMA_READ && *total < rlen))
		return dat_error(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	if (req->opcode != IB_WR_RDMA_READ)
		return DAT_SUCCESS;
	/* Read exactly the remote buffer. */
	left = rlen;
	for (i = 0; i < req->n && left; i++) {
		s->sge[i].length = min_t(u64, s->sge[i].length, left);
		left -= s->sge[i].length;
	}
	wr->num_sge = i;
	*total = rlen;
	return DAT_SUCCESS;
}

/*
 * Post a send, RDMA Write or RDMA Read.  Any context.  Inlined in each
 * kDAT call with its constant request description, which folds away
 * the checks and branches of the other kinds.
 */
static __always_inline DAT_RETURN
kdapl_dto_post_request(const struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle,
		       const struct kdapl_dto_req *req)
{
	struct kdapl_dto_ring *q;
	struct kdapl_dto_slot *s;
	struct kdapl_ep *ep;
	unsigned long flags;
	struct ib_qp *qp;
	DAT_RETURN ret;
	u64 total = 0;
	u8 slot_flags = 0;
	bool cpu_va = true;
	bool sync = false;
	/* Set below (the rdma part for RDMA opcodes): no zeroing here. */
	union {
		struct ib_send_wr send;
		struct ib_rdma_wr rdma;
		struct ib_atomic_wr atomic;
		struct ib_ud_wr ud;
	} wr __uninitialized;

	ret = kdapl_dto_req_args(ep_handle, req);
	if (unlikely(ret))
		return ret;
	ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	rcu_read_lock();
	ep = kdapl_dto_ep_find(owner, ep_handle);
	if (unlikely(!ep))
		goto out;
	spin_lock_irqsave(&ep->lock, flags);
	if (unlikely(!ep->dto))
		goto unlock;
	ret = kdapl_dto_req_check(ep, req, &qp);
	if (unlikely(ret))
		goto unlock;
	q = &ep->dto->req;
	s = &q->slots[q->head & q->mask];
	ret = kdapl_dto_req_build(ep, req, s, &wr.send, &total, &cpu_va,
				  &sync);
	if (unlikely(ret))
		goto unlock;
	s->cookie = req->cookie;
	s->op = req->op;
	s->length = total;
	wr.send.next = NULL;
	wr.send.wr_cqe = &s->cqe;
	wr.send.sg_list = wr.send.num_sge ? s->sge : NULL;
	wr.send.opcode = req->opcode;
	wr.send.send_flags = kdapl_dto_send_flags(req->flags, &slot_flags);
	if (req->use == KDAPL_DTO_SOURCE && !req->rmr_iov &&
	    kdapl_dto_may_inline(q, s, req, total, cpu_va)) {
		wr.send.send_flags |= IB_SEND_INLINE;
		s->nlmr = 0;	/* copied now: nothing left to read */
	}
	s->nsge = wr.send.num_sge;
	if (unlikely(sync) && s->nlmr) {
		kdapl_lmr_sync_sges(s->lmrs, s->sge, s->nsge, false);
		if (req->use == KDAPL_DTO_READ_SINK)
			slot_flags |= KDAPL_DTO_SYNC;
	}
	/*
	 * The immediate goes as OFA's provider sends and reads it: the
	 * 32-bit value as the CPU stores it, not byte-swapped, so that
	 * kdapl and OFA peers see the same value.
	 */
	if (req->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wr.send.ex.imm_data = (__force __be32)req->immed;
	else
		wr.send.ex.invalidate_rkey = req->inv_rkey;
	/* Devices read the rdma or atomic part for those opcodes only. */
	if (kdapl_dto_atomic(req)) {
		wr.atomic.remote_addr = req->remote->virtual_address;
		wr.atomic.compare_add = req->compare_add;
		wr.atomic.compare_add_mask = 0;
		wr.atomic.swap = req->swap;
		wr.atomic.swap_mask = 0;
		wr.atomic.rkey = req->remote->rmr_context;
	} else if (req->remote) {
		wr.rdma.remote_addr = req->remote->virtual_address;
		wr.rdma.rkey = req->remote->rmr_context;
	} else if (req->op == (DAT_DTOS)DAT_IB_DTO_SEND_UD) {
		ret = kdapl_ud_wr(ep, req->ah, total, &wr.ud);
		if (unlikely(ret))
			goto unlock;
	}
	s->flags = slot_flags;
	atomic_inc(&ep->request_outstanding);
	if (unlikely(ib_post_send(qp, &wr.send, NULL))) {
		atomic_dec(&ep->request_outstanding);
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto unlock;
	}
	q->head++;
unlock:
	kdapl_stat_post(ep->obj.ia->adapter, req->op, ret);
	if (likely(!ret))
		kdapl_dto_count_post(ep, req->op, total);
	spin_unlock_irqrestore(&ep->lock, flags);
out:
	rcu_read_unlock();
	trace_kdapl_dto_post((u64)(uintptr_t)ep_handle, req->op,
			     req->cookie.as_64, total, req->n, ret);
	return ret;
}

/**
 * kdapl_ep_post_send() - dat_ep_post_send() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_post_send()
 * @num_segments: as for dat_ep_post_send()
 * @local_iov: as for dat_ep_post_send()
 * @user_cookie: as for dat_ep_post_send()
 * @completion_flags: as for dat_ep_post_send()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_post_send().
 * Return: as dat_ep_post_send().
 */
DAT_RETURN kdapl_ep_post_send(struct kdapl_owner *owner,
			      DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			      DAT_LMR_TRIPLET *local_iov,
			      DAT_DTO_COOKIE user_cookie,
			      DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_req req = {
		.opcode = IB_WR_SEND,
		.op = DAT_DTO_SEND,
		.use = KDAPL_DTO_SOURCE,
		.n = num_segments,
		.iov = local_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS |
			   DAT_COMPLETION_SOLICITED_WAIT_FLAG,
		.arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3,
		.arg_flags = DAT_INVALID_ARG5,
	};

	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_send);

/**
 * dat_ep_post_send() - send a message over the connection of an Endpoint
 * @ep_handle: the EP, connected
 * @num_segments: segments in @local_iov, 0 to the EP's max_request_iov
 * @local_iov: the message, in LMRs of the EP's PZ; may be NULL when
 *	@num_segments is 0
 * @user_cookie: returned in the completion
 * @completion_flags: DAT_COMPLETION_SUPPRESS_FLAG (no event on success),
 *	DAT_COMPLETION_SOLICITED_WAIT_FLAG (the peer's solicited wait ends),
 *	DAT_COMPLETION_UNSIGNALLED_FLAG (when the EP's
 *	request_completion_flags have it), DAT_COMPLETION_BARRIER_FENCE_FLAG
 *
 * Nothing is allocated; the completion event goes to the request EVD
 * (see Documentation/dto.rst for the status of each failure).
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE (EP) for a bad @ep_handle;
 * DAT_INVALID_PARAMETER (ARG2) for @num_segments negative or above
 * max_request_iov, (ARG3) for a NULL @local_iov with segments, (ARG5)
 * for unknown flags or unsignalled without the EP allowing it;
 * DAT_INVALID_STATE with the subtype of the EP state when the EP is not
 * connected (DAT_INVALID_STATE_EP_DISCONNECTED when its connection is
 * being torn down);
 * DAT_PROTECTION_VIOLATION (PROTECTION_READ) for a segment not inside a
 * registered LMR of the EP's PZ;
 * DAT_LENGTH_ERROR for a message longer than max_message_size;
 * DAT_INSUFFICIENT_RESOURCES (TEP) when max_request_dtos requests are
 * outstanding or the device refuses the post.
 */
DAT_RETURN dat_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_send(&kdapl_kernel_owner, ep_handle, num_segments,
				  local_iov, user_cookie, completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_send);

/**
 * kdapl_ep_post_send_with_invalidate() - dat_ep_post_send_with_invalidate() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_post_send_with_invalidate()
 * @num_segments: as for dat_ep_post_send_with_invalidate()
 * @local_iov: as for dat_ep_post_send_with_invalidate()
 * @user_cookie: as for dat_ep_post_send_with_invalidate()
 * @completion_flags: as for dat_ep_post_send_with_invalidate()
 * @invalidate_flag: as for dat_ep_post_send_with_invalidate()
 * @rmr_context: as for dat_ep_post_send_with_invalidate()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_post_send_with_invalidate().
 * Return: as dat_ep_post_send_with_invalidate().
 */
DAT_RETURN kdapl_ep_post_send_with_invalidate(struct kdapl_owner *owner,
					      DAT_EP_HANDLE ep_handle,
					      DAT_COUNT num_segments,
					      DAT_LMR_TRIPLET *local_iov,
					      DAT_DTO_COOKIE user_cookie,
					      DAT_COMPLETION_FLAGS completion_flags,
					      DAT_BOOLEAN invalidate_flag,
					      DAT_RMR_CONTEXT rmr_context)
{
	struct kdapl_dto_req req = {
		.opcode = invalidate_flag ? IB_WR_SEND_WITH_INV : IB_WR_SEND,
		.op = DAT_DTO_SEND,
		.use = KDAPL_DTO_SOURCE,
		.n = num_segments,
		.iov = local_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS |
			   DAT_COMPLETION_SOLICITED_WAIT_FLAG,
		.inv_rkey = invalidate_flag ? rmr_context : 0,
		.arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3,
		.arg_flags = DAT_INVALID_ARG5,
	};

	if (invalidate_flag != DAT_TRUE && invalidate_flag != DAT_FALSE) {
		trace_kdapl_dto_post((u64)(uintptr_t)ep_handle, DAT_DTO_SEND,
				     user_cookie.as_64, 0, num_segments,
				     dat_error(DAT_INVALID_PARAMETER,
					       DAT_INVALID_ARG6));
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	}
	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_send_with_invalidate);

/**
 * dat_ep_post_send_with_invalidate() - send, and invalidate a peer's RMR
 * @ep_handle: the EP, connected
 * @num_segments: as for dat_ep_post_send()
 * @local_iov: as for dat_ep_post_send()
 * @user_cookie: returned in the completion
 * @completion_flags: as for dat_ep_post_send()
 * @invalidate_flag: DAT_TRUE to invalidate @rmr_context at the peer when
 *	the message arrives (its receive completes as
 *	DAT_DTO_RECEIVE_WITH_INVALIDATE); DAT_FALSE for a plain send
 * @rmr_context: the peer's RMR context to invalidate
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: as dat_ep_post_send(), and DAT_INVALID_PARAMETER (ARG6) for an
 * @invalidate_flag other than DAT_TRUE or DAT_FALSE.
 */
DAT_RETURN dat_ep_post_send_with_invalidate(DAT_EP_HANDLE ep_handle,
					    DAT_COUNT num_segments,
					    DAT_LMR_TRIPLET *local_iov,
					    DAT_DTO_COOKIE user_cookie,
					    DAT_COMPLETION_FLAGS completion_flags,
					    DAT_BOOLEAN invalidate_flag,
					    DAT_RMR_CONTEXT rmr_context)
{
	return kdapl_ep_post_send_with_invalidate(&kdapl_kernel_owner,
						  ep_handle, num_segments,
						  local_iov, user_cookie,
						  completion_flags,
						  invalidate_flag, rmr_context);
}
EXPORT_SYMBOL_GPL(dat_ep_post_send_with_invalidate);

/**
 * kdapl_ep_post_rdma_write() - dat_ep_post_rdma_write() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_post_rdma_write()
 * @num_segments: as for dat_ep_post_rdma_write()
 * @local_iov: as for dat_ep_post_rdma_write()
 * @user_cookie: as for dat_ep_post_rdma_write()
 * @remote_iov: as for dat_ep_post_rdma_write()
 * @completion_flags: as for dat_ep_post_rdma_write()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_post_rdma_write().
 * Return: as dat_ep_post_rdma_write().
 */
DAT_RETURN kdapl_ep_post_rdma_write(struct kdapl_owner *owner,
				    DAT_EP_HANDLE ep_handle,
				    DAT_COUNT num_segments,
				    DAT_LMR_TRIPLET *local_iov,
				    DAT_DTO_COOKIE user_cookie,
				    const DAT_RMR_TRIPLET *remote_iov,
				    DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_req req = {
		.opcode = IB_WR_RDMA_WRITE,
		.op = DAT_DTO_RDMA_WRITE,
		.use = KDAPL_DTO_SOURCE,
		.n = num_segments,
		.iov = local_iov,
		.remote = remote_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS,
		.arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3,
		.arg_remote = DAT_INVALID_ARG5,
		.arg_flags = DAT_INVALID_ARG6,
	};

	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_rdma_write);

/**
 * dat_ep_post_rdma_write() - write local data into a peer's buffer
 * @ep_handle: the EP, connected
 * @num_segments: segments in @local_iov, 0 to the EP's max_rdma_write_iov
 * @local_iov: the data, in LMRs of the EP's PZ
 * @user_cookie: returned in the completion
 * @remote_iov: the peer's buffer (rmr_context of an LMR with remote
 *	write privilege, or of an RMR bound with it); at least as long as
 *	the local data
 * @completion_flags: as for dat_ep_post_send() but
 *	DAT_COMPLETION_SOLICITED_WAIT_FLAG
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE (EP) for a bad @ep_handle;
 * DAT_INVALID_PARAMETER (ARG2) for a bad @num_segments, (ARG3) for a
 * NULL @local_iov with segments, (ARG5) for a NULL @remote_iov, (ARG6)
 * for bad completion flags;
 * DAT_INVALID_STATE as dat_ep_post_send();
 * DAT_PROTECTION_VIOLATION (PROTECTION_READ) for a local segment not
 * inside a registered LMR of the EP's PZ;
 * DAT_LENGTH_ERROR for a remote length above max_rdma_size or below the
 * local data;
 * DAT_INSUFFICIENT_RESOURCES (TEP) as dat_ep_post_send().
 */
DAT_RETURN dat_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie,
				  const DAT_RMR_TRIPLET *remote_iov,
				  DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_rdma_write(&kdapl_kernel_owner, ep_handle,
					num_segments, local_iov, user_cookie,
					remote_iov, completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_rdma_write);

/**
 * kdapl_ep_post_rdma_read() - dat_ep_post_rdma_read() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_post_rdma_read()
 * @num_segments: as for dat_ep_post_rdma_read()
 * @local_iov: as for dat_ep_post_rdma_read()
 * @user_cookie: as for dat_ep_post_rdma_read()
 * @remote_iov: as for dat_ep_post_rdma_read()
 * @completion_flags: as for dat_ep_post_rdma_read()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_post_rdma_read().
 * Return: as dat_ep_post_rdma_read().
 */
DAT_RETURN kdapl_ep_post_rdma_read(struct kdapl_owner *owner,
				   DAT_EP_HANDLE ep_handle,
				   DAT_COUNT num_segments,
				   DAT_LMR_TRIPLET *local_iov,
				   DAT_DTO_COOKIE user_cookie,
				   const DAT_RMR_TRIPLET *remote_iov,
				   DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_req req = {
		.opcode = IB_WR_RDMA_READ,
		.op = DAT_DTO_RDMA_READ,
		.use = KDAPL_DTO_READ_SINK,
		.n = num_segments,
		.iov = local_iov,
		.remote = remote_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS,
		.arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3,
		.arg_remote = DAT_INVALID_ARG5,
		.arg_flags = DAT_INVALID_ARG6,
	};

	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_rdma_read);

/**
 * dat_ep_post_rdma_read() - read a peer's buffer into local memory
 * @ep_handle: the EP, connected
 * @num_segments: segments in @local_iov, 0 to the EP's max_rdma_read_iov
 * @local_iov: the sink, in LMRs of the EP's PZ with local write
 *	privilege (and, on iWARP, remote write privilege: the response is
 *	written like an RDMA Write); at least as long as @remote_iov
 * @user_cookie: returned in the completion
 * @remote_iov: the peer's buffer (rmr_context with remote read)
 * @completion_flags: as for dat_ep_post_rdma_write()
 *
 * Exactly @remote_iov->segment_length bytes are read, filling the local
 * segments in order.
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: as dat_ep_post_rdma_write(), with DAT_PROTECTION_WRITE as the
 * protection subtype, and DAT_PRIVILEGES_VIOLATION (PRIVILEGES_WRITE)
 * for a sink LMR without local write, (PRIVILEGES_RDMA_READ) for one
 * without remote write on iWARP; DAT_LENGTH_ERROR for a remote length
 * above max_rdma_size or above the local segments.
 */
DAT_RETURN dat_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 const DAT_RMR_TRIPLET *remote_iov,
				 DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_rdma_read(&kdapl_kernel_owner, ep_handle,
				       num_segments, local_iov, user_cookie,
				       remote_iov, completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_rdma_read);

/**
 * kdapl_ep_post_rdma_read_to_rmr() - dat_ep_post_rdma_read_to_rmr() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_post_rdma_read_to_rmr()
 * @local_iov: as for dat_ep_post_rdma_read_to_rmr()
 * @user_cookie: as for dat_ep_post_rdma_read_to_rmr()
 * @remote_iov: as for dat_ep_post_rdma_read_to_rmr()
 * @completion_flags: as for dat_ep_post_rdma_read_to_rmr()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_post_rdma_read_to_rmr().
 * Return: as dat_ep_post_rdma_read_to_rmr().
 */
DAT_RETURN kdapl_ep_post_rdma_read_to_rmr(struct kdapl_owner *owner,
					  DAT_EP_HANDLE ep_handle,
					  const DAT_RMR_TRIPLET *local_iov,
					  DAT_DTO_COOKIE user_cookie,
					  const DAT_RMR_TRIPLET *remote_iov,
					  DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_req req = {
		.opcode = IB_WR_RDMA_READ,
		.op = DAT_DTO_RDMA_READ,
		.use = KDAPL_DTO_READ_SINK,
		.n = local_iov ? 1 : 0,
		.rmr_iov = local_iov,
		.remote = remote_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS,
		.arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG2,
		.arg_remote = DAT_INVALID_ARG4,
		.arg_flags = DAT_INVALID_ARG5,
	};

	if (!local_iov) {
		trace_kdapl_dto_post((u64)(uintptr_t)ep_handle,
				     DAT_DTO_RDMA_READ, user_cookie.as_64, 0,
				     0, dat_error(DAT_INVALID_PARAMETER,
						  DAT_INVALID_ARG2));
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_rdma_read_to_rmr);

/**
 * dat_ep_post_rdma_read_to_rmr() - read a peer's buffer into a local RMR
 * @ep_handle: the EP, connected
 * @local_iov: the sink: an RMR triplet of a local RMR bound with local
 *	write privilege (on iWARP with remote write too).  RMRs are
 *	fast-registration MRs, so the rmr_context is also their local key;
 *	it is not checked at post time: a bad one completes with
 *	DAT_DTO_ERR_LOCAL_PROTECTION
 * @user_cookie: returned in the completion
 * @remote_iov: the peer's buffer; not longer than @local_iov
 * @completion_flags: as for dat_ep_post_rdma_write()
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE (EP) for a bad @ep_handle;
 * DAT_INVALID_PARAMETER (ARG2) for a NULL @local_iov, (ARG4) for a NULL
 * @remote_iov, (ARG5) for bad completion flags;
 * DAT_INVALID_STATE as dat_ep_post_send();
 * DAT_LENGTH_ERROR for a remote length above max_rdma_size or
 * above the local one;
 * DAT_INSUFFICIENT_RESOURCES (TEP) as dat_ep_post_send().
 */
DAT_RETURN dat_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE ep_handle,
					const DAT_RMR_TRIPLET *local_iov,
					DAT_DTO_COOKIE user_cookie,
					const DAT_RMR_TRIPLET *remote_iov,
					DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_rdma_read_to_rmr(&kdapl_kernel_owner, ep_handle,
					      local_iov, user_cookie,
					      remote_iov, completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_rdma_read_to_rmr);

/* Fill slot @idx of @q for a bind work request. */
static struct kdapl_dto_slot *kdapl_dto_bind_slot(struct kdapl_dto_ring *q,
						  u32 idx, struct kdapl_rmr *rmr,
						  DAT_RMR_COOKIE cookie,
						  u8 flags, u8 op)
{
	struct kdapl_dto_slot *s = &q->slots[idx & q->mask];

	s->op = op;
	s->flags = flags;
	s->cookie = cookie;
	s->rmr = rmr;
	s->length = 0;
	s->nlmr = 0;
	return s;
}

/**
 * kdapl_dto_post_bind() - post the work requests of an RMR bind
 * @ep: the EP the bind is posted on
 * @rmr: the RMR
 * @inv_key: key to invalidate first (the RMR's current binding), or 0
 * @reg_mr: the MR to register for the new binding, mapped and keyed; NULL
 *	for an unbind
 * @access: IB_ACCESS_* flags of the new binding
 * @cookie: returned in the DAT_RMR_BIND_COMPLETION_EVENT
 * @flags: completion flags (checked by the caller)
 *
 * The invalidation, if any, is unsignalled and reports nothing of its
 * own; the last work request completes the bind, and its completion
 * calls kdapl_rmr_bind_done() before any event is delivered.
 * Allocation-free.
 *
 * Context: any context; takes ep->lock.  dat_rmr_bind() calls it with
 * the IA lock held.
 * Return: DAT_SUCCESS; DAT_INVALID_STATE (state subtype) when the EP is
 * not connected; DAT_INVALID_PARAMETER (ARG8) for unsignalled flags the
 * EP does not allow; DAT_INSUFFICIENT_RESOURCES (TEP) when the send
 * queue is full or the device refuses the post.
 */
DAT_RETURN kdapl_dto_post_bind(struct kdapl_ep *ep, struct kdapl_rmr *rmr,
			       u32 inv_key, struct ib_mr *reg_mr, int access,
			       DAT_RMR_COOKIE cookie,
			       DAT_COMPLETION_FLAGS flags)
{
	unsigned int need = (inv_key ? 1 : 0) + (reg_mr ? 1 : 0);
	struct ib_send_wr inv = {}, *first;
	u8 slot_flags = KDAPL_DTO_BIND;
	DAT_RETURN ret = DAT_SUCCESS;
	struct ib_reg_wr wr = {};
	struct kdapl_dto_ring *q;
	struct kdapl_dto_slot *s;
	unsigned long irqflags;
	struct ib_qp *qp;
	int send_flags;

	spin_lock_irqsave(&ep->lock, irqflags);
	if (!ep->dto) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto unlock;
	}
	qp = kdapl_dto_connected_qp(ep, &ret);
	if (!qp)
		goto unlock;
	q = &ep->dto->req;
	if ((flags & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
	    !(ep->attr.request_completion_flags &
	      DAT_COMPLETION_UNSIGNALLED_FLAG)) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
		goto unlock;
	}
	/* The acquire pairs with the release of kdapl_dto_req_done(). */
	if (!need || q->head + need - smp_load_acquire(&q->tail) > q->limit) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto unlock;
	}
	send_flags = kdapl_dto_send_flags(flags, &slot_flags);
	inv.opcode = IB_WR_LOCAL_INV;
	inv.ex.invalidate_rkey = inv_key;
	if (reg_mr) {
		wr.wr.opcode = IB_WR_REG_MR;
		wr.wr.send_flags = send_flags;
		wr.mr = reg_mr;
		wr.key = reg_mr->rkey;
		wr.access = access;
		inv.next = &wr.wr;
	} else {
		/* The invalidation is the whole unbind: it reports. */
		inv.send_flags = send_flags;
	}
	if (inv_key && reg_mr) {
		s = kdapl_dto_bind_slot(q, q->head, rmr, cookie,
					KDAPL_DTO_INTERNAL, KDAPL_DTO_OP_UNBIND);
		inv.wr_cqe = &s->cqe;
		s = kdapl_dto_bind_slot(q, q->head + 1, rmr, cookie, slot_flags,
					DAT_DTO_BIND_MW);
		wr.wr.wr_cqe = &s->cqe;
	} else {
		s = kdapl_dto_bind_slot(q, q->head, rmr, cookie, slot_flags,
					DAT_DTO_BIND_MW);
		if (reg_mr)
			wr.wr.wr_cqe = &s->cqe;
		else
			inv.wr_cqe = &s->cqe;
	}
	first = inv_key ? &inv : &wr.wr;
	atomic_inc(&ep->request_outstanding);
	if (ib_post_send(qp, first, NULL)) {
		atomic_dec(&ep->request_outstanding);
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto unlock;
	}
	q->head += need;
unlock:
	kdapl_stat_post(ep->obj.ia->adapter, DAT_DTO_BIND_MW, ret);
	spin_unlock_irqrestore(&ep->lock, irqflags);
	trace_kdapl_dto_post((u64)(uintptr_t)kdapl_object_handle(&ep->obj),
			     reg_mr ? DAT_DTO_BIND_MW : KDAPL_DTO_OP_UNBIND,
			     cookie.as_64, 0, 0, ret);
	return ret;
}

/* ---------------------------------------------------------------------
 * IB extensions: RDMA Write with immediate data, atomics
 */

/**
 * kdapl_ep_post_rdma_write_immed() - dat_ib_post_rdma_write_immed() for
 *	an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ib_post_rdma_write_immed()
 * @num_segments: as for dat_ib_post_rdma_write_immed()
 * @local_iov: as for dat_ib_post_rdma_write_immed()
 * @user_cookie: as for dat_ib_post_rdma_write_immed()
 * @remote_iov: as for dat_ib_post_rdma_write_immed()
 * @immed_data: as for dat_ib_post_rdma_write_immed()
 * @completion_flags: as for dat_ib_post_rdma_write_immed()
 *
 * Context: as dat_ib_post_rdma_write_immed().
 * Return: as dat_ib_post_rdma_write_immed().
 */
DAT_RETURN kdapl_ep_post_rdma_write_immed(struct kdapl_owner *owner,
					  DAT_EP_HANDLE ep_handle,
					  DAT_COUNT num_segments,
					  DAT_LMR_TRIPLET *local_iov,
					  DAT_DTO_COOKIE user_cookie,
					  const DAT_RMR_TRIPLET *remote_iov,
					  DAT_UINT32 immed_data,
					  DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_req req = {
		.opcode = IB_WR_RDMA_WRITE_WITH_IMM,
		.op = (DAT_DTOS)DAT_IB_DTO_RDMA_WRITE_IMMED,
		.use = KDAPL_DTO_SOURCE,
		.n = num_segments,
		.iov = local_iov,
		.remote = remote_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS |
			   DAT_COMPLETION_SOLICITED_WAIT_FLAG,
		.immed = immed_data,
		.ib_ext = KDAPL_IB_EXT_IMMED_DATA,
		.arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3,
		.arg_remote = DAT_INVALID_ARG5,
		.arg_flags = DAT_INVALID_ARG7,
	};

	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_rdma_write_immed);

/**
 * dat_ib_post_rdma_write_immed() - RDMA Write with immediate data
 * @ep_handle: the EP, connected
 * @num_segments: segments in @local_iov, 0 to the EP's
 *	max_rdma_write_iov
 * @local_iov: the data, in LMRs of the EP's PZ
 * @user_cookie: returned in the completion
 * @remote_iov: the peer's buffer, as for dat_ep_post_rdma_write()
 * @immed_data: 32 bits the peer receives with the data
 * @completion_flags: as for dat_ep_post_send()
 *
 * The write consumes a receive the peer posted, whose completion is a
 * DAT_IB_DTO_EVENT of operation DAT_IB_DTO_RECV_IMMED and type
 * DAT_IB_RDMA_WRITE_IMMED_DATA carrying @immed_data; the local
 * completion is a DAT_IB_DTO_EVENT of operation
 * DAT_IB_DTO_RDMA_WRITE_IMMED and type DAT_IB_RDMA_WRITE_IMMED.
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: as dat_ep_post_rdma_write(), with (ARG7) for bad completion
 * flags, and DAT_NOT_IMPLEMENTED where the transport carries no
 * immediate data (iWARP; the IA's provider attribute DAT_IB_IMMED_DATA
 * is then absent).
 */
DAT_RETURN dat_ib_post_rdma_write_immed(DAT_EP_HANDLE ep_handle,
					DAT_COUNT num_segments,
					DAT_LMR_TRIPLET *local_iov,
					DAT_DTO_COOKIE user_cookie,
					const DAT_RMR_TRIPLET *remote_iov,
					DAT_UINT32 immed_data,
					DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_rdma_write_immed(&kdapl_kernel_owner, ep_handle,
					      num_segments, local_iov,
					      user_cookie, remote_iov,
					      immed_data, completion_flags);
}
EXPORT_SYMBOL(dat_ib_post_rdma_write_immed);

/**
 * kdapl_ep_post_send_ud() - dat_ib_post_send_ud() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ib_post_send_ud()
 * @num_segments: as for dat_ib_post_send_ud()
 * @local_iov: as for dat_ib_post_send_ud()
 * @remote_ah: as for dat_ib_post_send_ud()
 * @user_cookie: as for dat_ib_post_send_ud()
 * @completion_flags: as for dat_ib_post_send_ud()
 *
 * Context: as dat_ib_post_send_ud().
 * Return: as dat_ib_post_send_ud().
 */
DAT_RETURN kdapl_ep_post_send_ud(struct kdapl_owner *owner,
				 DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 const DAT_IB_ADDR_HANDLE *remote_ah,
				 DAT_DTO_COOKIE user_cookie,
				 DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_req req = {
		.opcode = IB_WR_SEND,
		.op = (DAT_DTOS)DAT_IB_DTO_SEND_UD,
		.use = KDAPL_DTO_SOURCE,
		.n = num_segments,
		.iov = local_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS |
			   DAT_COMPLETION_SOLICITED_WAIT_FLAG,
		.ib_ext = KDAPL_IB_EXT_UD,
		.ah = remote_ah,
		.arg_n = DAT_INVALID_ARG2,
		.arg_iov = DAT_INVALID_ARG3,
		.arg_flags = DAT_INVALID_ARG6,
	};

	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_send_ud);

/**
 * dat_ib_post_send_ud() - send an unreliable datagram
 * @ep_handle: an EP of service type DAT_IB_SERVICE_TYPE_UD whose queue
 *	pair is up (its first dat_ep_connect() or dat_cr_accept() made it)
 * @num_segments: segments in @local_iov, 0 to the EP's max_request_iov
 * @local_iov: the message, in LMRs of the EP's PZ, at most the path's
 *	MTU long
 * @remote_ah: where it goes: an address handle of this EP from a
 *	DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED, and the peer's queue pair
 * @user_cookie: returned in the completion
 * @completion_flags: as for dat_ep_post_send()
 *
 * The peer's EP takes the message into a posted receive, 40 bytes after
 * its start (the global route header comes first); its completion is a
 * DAT_IB_DTO_EVENT of operation DAT_IB_DTO_RECV_UD and type
 * DAT_IB_UD_RECV.  The local completion is a DAT_IB_DTO_EVENT of
 * operation DAT_IB_DTO_SEND_UD and type DAT_IB_UD_SEND.  Nothing tells
 * the sender whether the message arrived.
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: as dat_ep_post_send(), with DAT_INVALID_PARAMETER for an EP
 * that is not a datagram EP (ARG1), an unknown or freed address handle
 * (ARG4) or bad completion flags (ARG6), DAT_LENGTH_ERROR for a message
 * longer than the MTU, and DAT_NOT_IMPLEMENTED where the transport has
 * no datagrams (iWARP; the IA's provider attribute DAT_IB_UD is then
 * absent).
 */
DAT_RETURN dat_ib_post_send_ud(DAT_EP_HANDLE ep_handle,
			       DAT_COUNT num_segments,
			       DAT_LMR_TRIPLET *local_iov,
			       DAT_IB_ADDR_HANDLE *remote_ah,
			       DAT_DTO_COOKIE user_cookie,
			       DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_send_ud(&kdapl_kernel_owner, ep_handle,
				     num_segments, local_iov, remote_ah,
				     user_cookie, completion_flags);
}
EXPORT_SYMBOL(dat_ib_post_send_ud);

/**
 * kdapl_ep_post_atomic() - dat_ib_post_cmp_and_swap() and
 *	dat_ib_post_fetch_and_add() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: the EP
 * @fetch_add: fetch and add (@compare_add is added; @swap is unused),
 *	else compare and swap
 * @compare_add: the value compared or added
 * @swap: the value compare and swap stores
 * @local_iov: one segment, the original value's
 * @user_cookie: returned in the completion
 * @remote_iov: the target
 * @completion_flags: completion flags
 *
 * Context: as dat_ib_post_cmp_and_swap().
 * Return: as dat_ib_post_cmp_and_swap() or dat_ib_post_fetch_and_add().
 */
DAT_RETURN kdapl_ep_post_atomic(struct kdapl_owner *owner,
				DAT_EP_HANDLE ep_handle, bool fetch_add,
				u64 compare_add, u64 swap,
				DAT_LMR_TRIPLET *local_iov,
				DAT_DTO_COOKIE user_cookie,
				const DAT_RMR_TRIPLET *remote_iov,
				DAT_COMPLETION_FLAGS completion_flags)
{
	struct kdapl_dto_req req = {
		.opcode = fetch_add ? IB_WR_ATOMIC_FETCH_AND_ADD :
				      IB_WR_ATOMIC_CMP_AND_SWP,
		.op = (DAT_DTOS)(fetch_add ? DAT_IB_DTO_FETCH_ADD :
					     DAT_IB_DTO_CMP_SWAP),
		.use = KDAPL_DTO_READ_SINK,
		.n = 1,
		.iov = local_iov,
		.remote = remote_iov,
		.cookie = user_cookie,
		.flags = completion_flags,
		.allowed = KDAPL_DTO_REQUEST_FLAGS,
		.compare_add = compare_add,
		.swap = swap,
		.ib_ext = KDAPL_IB_EXT_ATOMICS,
		/* Fetch and add has no swap argument. */
		.arg_n = fetch_add ? DAT_INVALID_ARG3 : DAT_INVALID_ARG4,
		.arg_iov = fetch_add ? DAT_INVALID_ARG3 : DAT_INVALID_ARG4,
		.arg_remote = fetch_add ? DAT_INVALID_ARG5 : DAT_INVALID_ARG6,
		.arg_flags = fetch_add ? DAT_INVALID_ARG6 : DAT_INVALID_ARG7,
	};

	return kdapl_dto_post_request(owner, ep_handle, &req);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_post_atomic);

/**
 * dat_ib_post_cmp_and_swap() - 64-bit compare and swap in a peer's memory
 * @ep_handle: the EP, connected
 * @compare_value: the value the target is compared with
 * @swap_value: the value stored in the target if it was @compare_value
 * @local_iov: one segment of at least 8 bytes, in an LMR of the EP's PZ
 *	with local write privilege: the target's original value lands in
 *	its first 8 bytes
 * @user_cookie: returned in the completion
 * @remote_iov: the target: 8 bytes, 8-byte aligned, in memory of the
 *	peer registered with DAT_IB_MEM_PRIV_REMOTE_ATOMIC
 * @completion_flags: as for dat_ep_post_rdma_write()
 *
 * The completion is a DAT_IB_DTO_EVENT of operation DAT_IB_DTO_CMP_SWAP
 * and type DAT_IB_CMP_AND_SWAP, with a transfered_length of 8.  The
 * atomic is carried out by the peer's device and counts against the
 * EP's max_rdma_read_out, as an RDMA Read does.
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE (EP) for a bad @ep_handle;
 * DAT_INVALID_PARAMETER (ARG4) for a NULL @local_iov, (ARG6) for a NULL
 * or misaligned @remote_iov, (ARG7) for bad completion flags;
 * DAT_NOT_IMPLEMENTED where the device has no atomics (siw; the IA's
 * provider attribute DAT_IB_CMP_AND_SWAP is then absent);
 * DAT_LENGTH_ERROR for a local or remote segment shorter than 8 bytes;
 * otherwise as dat_ep_post_rdma_read().
 */
DAT_RETURN dat_ib_post_cmp_and_swap(DAT_EP_HANDLE ep_handle,
				    DAT_UINT64 compare_value,
				    DAT_UINT64 swap_value,
				    DAT_LMR_TRIPLET *local_iov,
				    DAT_DTO_COOKIE user_cookie,
				    const DAT_RMR_TRIPLET *remote_iov,
				    DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_atomic(&kdapl_kernel_owner, ep_handle, false,
				    compare_value, swap_value, local_iov,
				    user_cookie, remote_iov, completion_flags);
}
EXPORT_SYMBOL(dat_ib_post_cmp_and_swap);

/**
 * dat_ib_post_fetch_and_add() - 64-bit fetch and add in a peer's memory
 * @ep_handle: the EP, connected
 * @add_value: added to the target
 * @local_iov: as for dat_ib_post_cmp_and_swap(): the original value
 * @user_cookie: returned in the completion
 * @remote_iov: the target, as for dat_ib_post_cmp_and_swap()
 * @completion_flags: as for dat_ep_post_rdma_write()
 *
 * The completion is a DAT_IB_DTO_EVENT of operation DAT_IB_DTO_FETCH_ADD
 * and type DAT_IB_FETCH_AND_ADD.
 *
 * Context: any context; takes ep->lock with interrupts disabled.
 * Return: as dat_ib_post_cmp_and_swap(), with the argument numbers of
 * this call: (ARG3) @local_iov, (ARG5) @remote_iov, (ARG6) the flags;
 * the provider attribute DAT_IB_FETCH_AND_ADD tells whether the device
 * has atomics.
 */
DAT_RETURN dat_ib_post_fetch_and_add(DAT_EP_HANDLE ep_handle,
				     DAT_UINT64 add_value,
				     DAT_LMR_TRIPLET *local_iov,
				     DAT_DTO_COOKIE user_cookie,
				     const DAT_RMR_TRIPLET *remote_iov,
				     DAT_COMPLETION_FLAGS completion_flags)
{
	return kdapl_ep_post_atomic(&kdapl_kernel_owner, ep_handle, true,
				    add_value, 0, local_iov, user_cookie,
				    remote_iov, completion_flags);
}
EXPORT_SYMBOL(dat_ib_post_fetch_and_add);
