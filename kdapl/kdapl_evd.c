// SPDX-License-Identifier: GPL-2.0
/*
 * kDAT Event Dispatchers: a ring of DAT_EVENTs fed by event streams, with
 * optional upcalls, and a completion queue for the DTO and RMR bind
 * streams.  See Documentation/evd.rst.
 *
 * Locking: the IA lock (a mutex) serialises creation, resizing and
 * freeing and the stream bookkeeping against the EP code.  evd->lock, a
 * spinlock taken with interrupts disabled (kdapl_evd_lock()), protects
 * the ring, the upcall policy and object and the counters, so that
 * events can be queued and dequeued from any context, with any other
 * kdapl lock held.
 *
 * Upcalls are called with no kdapl lock held, from one of two places:
 * the completion handlers of the EVD's own CQ (softirq), and the EVD's
 * kick work on kdapl_wq, which delivers whatever kdapl_evd_post()
 * queued (process context; with bottom halves disabled when the EVD
 * takes DTO or RMR bind completions, so that its upcalls always run in
 * one kind of context).  dat_evd_post_se() delivers software events in
 * its caller's context, as DAT asks.  An event for a SINGLE_INSTANCE
 * upcall with nothing queued and no upcall running takes a lock-free
 * path instead (see KDAPL_EVD_SI_IDLE).
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

/* Streams an EVD can take. */
#define KDAPL_EVD_STREAMS						\
	(DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG |	\
	 DAT_EVD_CONNECTION_FLAG | DAT_EVD_RMR_BIND_FLAG |		\
	 DAT_EVD_ASYNC_FLAG)

/*
 * Least CQ of an EVD on a device that cannot resize CQs: the completions
 * of a dozen EPs with default attributes, both streams (about 160 each).
 * The queues that do not fit get further CQs of this size (or of their
 * own, if larger).
 */
#define KDAPL_EVD_CQ_MIN	2048

/**
 * struct kdapl_evd_xcq - a further CQ of an EVD
 * @node: in the EVD's xcqs
 * @cq: the CQ, completing into the EVD as its first CQ does
 * @size: entries of @cq
 * @reserved: entries the queues of QPs on @cq reserved
 */
struct kdapl_evd_xcq {
	struct list_head node;
	struct ib_cq *cq;
	u32 size;
	u32 reserved;
};

/* Streams fed by the completion queue. */
#define KDAPL_EVD_CQ_STREAMS	(DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG)

/* Streams other than DTO and RMR bind completions. */
#define KDAPL_EVD_OTHER_STREAMS						\
	(DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG |			\
	 DAT_EVD_CONNECTION_FLAG | DAT_EVD_ASYNC_FLAG)

/* Completion flags kDAT defines. */
#define KDAPL_COMPLETION_FLAGS						\
	(DAT_COMPLETION_SUPPRESS_FLAG |					\
	 DAT_COMPLETION_SOLICITED_WAIT_FLAG |				\
	 DAT_COMPLETION_UNSIGNALLED_FLAG |				\
	 DAT_COMPLETION_BARRIER_FENCE_FLAG |				\
	 DAT_COMPLETION_EVD_THRESHOLD_FLAG |				\
	 DAT_COMPLETION_LMR_INVALIDATE_FENCE_FLAG)

/*
 * A bad EVD handle given to a dat_evd_*() function.  DAT defines only
 * role-specific subtypes for EVDs; like other DAPL providers kdapl
 * reports the request EVD subtype for the generic operations.
 */
#define KDAPL_EVD_BAD_HANDLE	DAT_INVALID_HANDLE_EVD_REQUEST

static DAT_RETURN kdapl_evd_check_args(DAT_COUNT qlen,
				       DAT_UPCALL_POLICY policy,
				       const DAT_UPCALL_OBJECT *upcall,
				       DAT_EVD_FLAGS flags)
{
	if (qlen <= 0)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	switch (policy) {
	case DAT_UPCALL_DISABLE:
		break;
	case DAT_UPCALL_SINGLE_INSTANCE:
	case DAT_UPCALL_NOTIFY:
	case DAT_UPCALL_MANY:
		if (!upcall || !upcall->upcall_func)
			return dat_error(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG4);
		break;
	default:
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	}
	if (!flags || (flags & ~KDAPL_EVD_STREAMS))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return DAT_SUCCESS;
}

/* The IA can still get new verbs objects: not closing, device present. */
static DAT_RETURN kdapl_evd_ia_usable(struct kdapl_ia *ia)
{
	lockdep_assert_held(&ia->lock);
	if (ia->closing || !ia->ibdev)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

/* The ring: sized by the consumer, charged to its memory cgroup. */
static DAT_EVENT *kdapl_evd_alloc_ring(DAT_COUNT qlen)
{
	return kvcalloc(qlen, sizeof(DAT_EVENT),
			GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
}

/* ---------------------------------------------------------------------
 * The ring; all under evd->lock.
 */

/* evd->lock held: a fast upcall running is now counted. */
static void kdapl_evd_si_take(struct kdapl_evd *evd)
{
	/* Only kdapl_evd_si_arm(), under the lock, leaves OFF. */
	if (atomic_read(&evd->si) == KDAPL_EVD_SI_OFF)
		return;
	if ((atomic_xchg(&evd->si, KDAPL_EVD_SI_OFF) & KDAPL_EVD_SI_MODE) ==
	    KDAPL_EVD_SI_BUSY)
		evd->upcalls_running++;
}

/* evd->lock held (or the EVD not published yet), the fast state off. */
static void kdapl_evd_si_arm(struct kdapl_evd *evd)
{
	if (evd->policy != DAT_UPCALL_SINGLE_INSTANCE || evd->count ||
	    evd->upcalls_running || !evd->ring)
		return;
	evd->si_gen++;
	/* Release: the upcall object is read after an acquire of IDLE. */
	atomic_set_release(&evd->si, evd->si_gen << KDAPL_EVD_SI_GEN_SHIFT |
			   KDAPL_EVD_SI_IDLE);
}

/* Take evd->lock, turning the fast path off. */
static unsigned long kdapl_evd_lock(struct kdapl_evd *evd)
	__acquires(&evd->lock)
{
	unsigned long flags;

	spin_lock_irqsave(&evd->lock, flags);
	kdapl_evd_si_take(evd);
	return flags;
}

/* Release evd->lock, turning the fast path on if it may be. */
static void kdapl_evd_unlock(struct kdapl_evd *evd, unsigned long flags)
	__releases(&evd->lock)
{
	kdapl_evd_si_arm(evd);
	spin_unlock_irqrestore(&evd->lock, flags);
}

static void kdapl_evd_push(struct kdapl_evd *evd, const DAT_EVENT *event)
{
	u32 tail = evd->head + evd->count;

	if (tail >= evd->qlen)
		tail -= evd->qlen;
	evd->ring[tail] = *event;
	evd->count++;
}

static void kdapl_evd_pop(struct kdapl_evd *evd, DAT_EVENT *event)
{
	*event = evd->ring[evd->head];
	if (++evd->head == evd->qlen)
		evd->head = 0;
	evd->count--;
	/* There is room again: the next overflow is reported anew. */
	evd->overflowed = false;
}

/*
 * Queue @event.  On a full ring the event is refused and, the first
 * time since an event last left the ring, *@report is set: the caller
 * must report the overflow once it has dropped evd->lock.  The async
 * EVD of the IA does not report its own overflow (that would recurse).
 * Returns 0, -ENOSPC for a full ring or -ENODEV once the EVD is freed.
 */
static int kdapl_evd_queue(struct kdapl_evd *evd, const DAT_EVENT *event,
			   bool *report)
{
	if (!evd->ring)
		return -ENODEV;
	if (evd->count < evd->qlen) {
		kdapl_evd_push(evd, event);
		return 0;
	}
	if (!evd->overflowed) {
		evd->overflowed = true;
		*report = evd != READ_ONCE(evd->obj.ia->async_evd);
	}
	return -ENOSPC;
}

static void kdapl_evd_report_overflow(struct kdapl_evd *evd)
{
	kdapl_stat_inc(evd->obj.ia->adapter, KDAPL_STAT_EVD_OVERFLOWS);
	kdapl_ia_async_event(evd->obj.ia, DAT_ASYNC_ERROR_EVD_OVERFLOW,
			     kdapl_object_handle(&evd->obj),
			     DAT_EVD_OVERFLOW_ERROR);
}

/* ---------------------------------------------------------------------
 * Upcalls
 */

/*
 * May the caller of a running upcall go on delivering queued events?
 * Under SINGLE_INSTANCE only the last of the upcalls still running (some
 * may have started under another policy) does.
 */
static bool kdapl_evd_may_deliver(const struct kdapl_evd *evd)
{
	if (evd->policy == DAT_UPCALL_SINGLE_INSTANCE)
		return evd->upcalls_running == 1;
	return evd->policy == DAT_UPCALL_MANY;
}

static bool kdapl_evd_idle(struct kdapl_evd *evd)
{
	unsigned long flags;
	bool idle;

	flags = kdapl_evd_lock(evd);
	idle = !evd->upcalls_running;
	kdapl_evd_unlock(evd, flags);
	return idle;
}

/*
 * Move the EVD's gone memory to @list if no running upcall, nor one that
 * a queued event is still for, can read it.  With upcalls disabled the
 * queued events are the consumer's to dequeue, and DAT keeps what they
 * point to only until the EP is reset or freed.  evd->lock held.
 */
static void kdapl_evd_take_gone(struct kdapl_evd *evd, struct list_head *list)
{
	if ((!evd->count || evd->policy == DAT_UPCALL_DISABLE) &&
	    !evd->upcalls_running)
		list_splice_init(&evd->gone, list);
}

static void kdapl_evd_free_gone(struct list_head *list)
{
	struct kdapl_evd_gone *gone, *next;

	list_for_each_entry_safe(gone, next, list, node)
		gone->free(gone);
}

/*
 * Hand the queued events, oldest first, and then @pending (an event not
 * in the ring, or NULL) to the upcall one at a time, for as long as
 * upcalls stay enabled.  Called with evd->lock held, taken with
 * @flags = kdapl_evd_lock(), and with evd->upcalls_running already
 * counting the caller; returns with the lock released and the caller no
 * longer counted.
 *
 * Every upcall in progress ends here, so events queued while a
 * SINGLE_INSTANCE upcall ran are picked up by it before it lets go; of
 * several upcalls running when the policy became SINGLE_INSTANCE, the
 * last one to return delivers them.
 * Returns 0, or the kdapl_evd_queue() error of @pending if upcalls were
 * disabled before it could be delivered.
 */
static int kdapl_evd_run_upcalls(struct kdapl_evd *evd,
				 const DAT_EVENT *pending,
				 unsigned long flags)
	__releases(&evd->lock)
{
	DAT_EVENT event __uninitialized;	/* filled by kdapl_evd_pop() */
	DAT_UPCALL_OBJECT upcall;
	const DAT_EVENT *next;
	bool report = false;
	LIST_HEAD(gone);
	bool more;
	int ret = 0;

	while (kdapl_evd_may_deliver(evd)) {
		if (evd->count) {
			kdapl_evd_pop(evd, &event);
			next = &event;
		} else if (pending) {
			/* The caller's event, handed over as it is. */
			next = pending;
			pending = NULL;
		} else {
			break;
		}
		more = evd->count || pending;
		upcall = evd->upcall;
		kdapl_evd_unlock(evd, flags);
		upcall.upcall_func(upcall.instance_data, next,
				   more ? DAT_TRUE : DAT_FALSE);
		flags = kdapl_evd_lock(evd);
	}
	if (pending)
		ret = kdapl_evd_queue(evd, pending, &report);
	/*
	 * Waiters test upcalls_running under evd->lock once queued on
	 * upcall_done, so with the lock held an empty queue here means
	 * nobody needs waking; the wake-up costs a lock per event.
	 */
	if (!--evd->upcalls_running && waitqueue_active(&evd->upcall_done))
		wake_up_all(&evd->upcall_done);
	kdapl_evd_take_gone(evd, &gone);
	kdapl_evd_unlock(evd, flags);
	kdapl_evd_free_gone(&gone);
	if (report)
		kdapl_evd_report_overflow(evd);
	return ret;
}

/*
 * DAT_UPCALL_NOTIFY: tell the upcall that @event (already queued) is
 * there, once; the policy falls back to DAT_UPCALL_DISABLE until it is
 * armed again.  Same locking as kdapl_evd_run_upcalls().
 */
static void kdapl_evd_notify(struct kdapl_evd *evd, const DAT_EVENT *event,
			     unsigned long flags)
	__releases(&evd->lock)
{
	DAT_UPCALL_OBJECT upcall = evd->upcall;
	bool more = evd->count > 1;

	evd->policy = DAT_UPCALL_DISABLE;
	evd->upcalls_running++;
	kdapl_evd_unlock(evd, flags);
	upcall.upcall_func(upcall.instance_data, event,
			   more ? DAT_TRUE : DAT_FALSE);
	flags = kdapl_evd_lock(evd);
	/* Upcalls may have been enabled meanwhile: deliver the queue. */
	kdapl_evd_run_upcalls(evd, NULL, flags);
}

/**
 * kdapl_evd_si_finish() - end a fast-path upcall that was taken over
 * @evd: the EVD
 *
 * See kdapl_evd_si_deliver(): someone took evd->lock while the upcall
 * ran, and counted it in upcalls_running.  Delivers the events queued
 * meanwhile, as the running upcall of SINGLE_INSTANCE does.
 *
 * Context: the context of the upcall that just returned.
 */
void kdapl_evd_si_finish(struct kdapl_evd *evd)
{
	unsigned long flags;

	flags = kdapl_evd_lock(evd);
	kdapl_evd_run_upcalls(evd, NULL, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_si_finish);

/**
 * kdapl_evd_deliver_slow() - kdapl_evd_deliver() when the fast path is off
 * @evd: as for kdapl_evd_deliver()
 * @ev: as for kdapl_evd_deliver(), with its evd_handle set
 *
 * Delivers the event under evd->lock: to the upcall or into the ring.
 *
 * Context: as kdapl_evd_deliver().
 * Return: as kdapl_evd_deliver().
 */
int kdapl_evd_deliver_slow(struct kdapl_evd *evd, DAT_EVENT *ev)
{
	bool report = false;
	unsigned long flags;
	int ret;

	flags = kdapl_evd_lock(evd);
	if (!evd->ring) {
		kdapl_evd_unlock(evd, flags);
		return -ENODEV;
	}
	switch (evd->policy) {
	case DAT_UPCALL_SINGLE_INSTANCE:
		if (evd->upcalls_running)
			break;	/* the running upcall delivers it */
		fallthrough;
	case DAT_UPCALL_MANY:
		evd->upcalls_running++;
		return kdapl_evd_run_upcalls(evd, ev, flags);
	default:
		break;
	}
	ret = kdapl_evd_queue(evd, ev, &report);
	if (!ret && evd->policy == DAT_UPCALL_NOTIFY) {
		kdapl_evd_notify(evd, ev, flags);
		return 0;
	}
	kdapl_evd_unlock(evd, flags);
	if (report)
		kdapl_evd_report_overflow(evd);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_deliver_slow);

/*
 * Deliver queued events to the upcall, as a post would have: the kick
 * work of kdapl_evd_post() and of dat_evd_modify_upcall().  Process
 * context on kdapl_wq, without any kdapl lock; bottom halves disabled
 * for an EVD fed by a CQ, whose upcalls always run with them disabled.
 */
static void kdapl_evd_kick_work(struct work_struct *work)
{
	struct kdapl_evd *evd = container_of(work, struct kdapl_evd, kick);
	bool bh = evd->flags & KDAPL_EVD_CQ_STREAMS;
	unsigned long flags;
	DAT_EVENT event;

	if (bh)
		local_bh_disable();
	flags = kdapl_evd_lock(evd);
	if (!evd->ring || !evd->count)
		goto unlock;
	switch (evd->policy) {
	case DAT_UPCALL_SINGLE_INSTANCE:
		if (evd->upcalls_running)
			break;	/* the running upcall delivers them */
		fallthrough;
	case DAT_UPCALL_MANY:
		evd->upcalls_running++;
		kdapl_evd_run_upcalls(evd, NULL, flags);
		goto out;
	case DAT_UPCALL_NOTIFY:
		event = evd->ring[evd->head];
		kdapl_evd_notify(evd, &event, flags);
		goto out;
	default:
		break;
	}
unlock:
	kdapl_evd_unlock(evd, flags);
out:
	if (bh)
		local_bh_enable();
	kdapl_object_put(&evd->obj);
}

/* Does an event just queued need the kick work?  evd->lock held. */
static bool kdapl_evd_wants_kick(const struct kdapl_evd *evd)
{
	switch (evd->policy) {
	case DAT_UPCALL_SINGLE_INSTANCE:
		return !evd->upcalls_running;
	case DAT_UPCALL_MANY:
	case DAT_UPCALL_NOTIFY:
		return true;
	default:
		return false;
	}
}

/* Queue the kick work; the caller keeps @evd alive meanwhile. */
static void kdapl_evd_kick(struct kdapl_evd *evd)
{
	kref_get(&evd->obj.ref);
	if (!queue_work(kdapl_wq, &evd->kick))
		kdapl_object_put(&evd->obj);	/* never the last */
}

/**
 * kdapl_evd_post() - queue an event on an EVD
 * @evd: the EVD; the caller keeps it alive (a reference, or an object
 *	that uses it)
 * @event: the event; copied, with its evd_handle set to @evd's handle
 *
 * For every event kdapl makes but the completions of the EVD's own CQ
 * (see kdapl_evd_deliver()): connection requests and events, async
 * errors, and completions kdapl makes itself (flushed receives, binds
 * with nothing to post).  The event is queued; with upcalls enabled, the
 * EVD's kick work delivers it (for SINGLE_INSTANCE, the upcall that is
 * running does).  The upcall is never called from here, so the caller
 * may hold any kdapl lock: evd->lock is taken inside all of them.  A
 * full ring refuses the event and reports DAT_ASYNC_ERROR_EVD_OVERFLOW on
 * the IA's async EVD, once until an event leaves the ring.
 *
 * Context: any context.
 * Return: true if the event was queued, false if it was refused (full
 * ring, or the EVD is being freed).
 */
bool kdapl_evd_post(struct kdapl_evd *evd, const DAT_EVENT *event)
{
	DAT_EVENT ev = *event;
	bool report = false, kick;
	unsigned long flags;
	int ret;

	ev.evd_handle = kdapl_object_handle(&evd->obj);
	flags = kdapl_evd_lock(evd);
	ret = kdapl_evd_queue(evd, &ev, &report);
	kick = !ret && kdapl_evd_wants_kick(evd);
	kdapl_evd_unlock(evd, flags);
	if (kick)
		kdapl_evd_kick(evd);
	if (report)
		kdapl_evd_report_overflow(evd);
	return !ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_post);

/**
 * kdapl_evd_defer_free() - free memory once the EVD's events are past it
 * @evd: the EVD that events pointing to the memory were posted on
 * @gone: the memory's entry, with its free function
 *
 * @gone->free runs now if no upcall of @evd runs and none is to be
 * handed a queued event (nothing is queued, or upcalls are disabled);
 * otherwise once that holds, from the last upcall or the dequeue that
 * empties the EVD, or when the EVD's memory is freed.
 *
 * Context: any context; takes evd->lock.  @gone->free may run before
 * this returns, with the caller's locks held.
 */
void kdapl_evd_defer_free(struct kdapl_evd *evd, struct kdapl_evd_gone *gone)
{
	unsigned long flags;
	LIST_HEAD(list);

	flags = kdapl_evd_lock(evd);
	list_add_tail(&gone->node, &evd->gone);
	kdapl_evd_take_gone(evd, &list);
	kdapl_evd_unlock(evd, flags);
	kdapl_evd_free_gone(&list);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_defer_free);

/* ---------------------------------------------------------------------
 * Creation and freeing
 */

/*
 * Entries of the CQ of an EVD of @qlen events.  The QPs that complete on
 * it reserve room as they come (kdapl_evd_cq_reserve()); a device that
 * cannot resize a CQ gets room for a few default EPs from the start.
 */
static u32 kdapl_evd_cq_entries(struct kdapl_ia *ia, DAT_COUNT qlen)
{
	if (ia->ibdev->ops.resize_cq)
		return qlen;
	return min_t(u32, max_t(u32, qlen, KDAPL_EVD_CQ_MIN),
		     ia->ibdev->attrs.max_cqe);
}

/*
 * The device reports an error of the CQ (an overrun): the completions it
 * lost break their connections; the consumer hears of it on the async
 * EVD.  Any context.
 */
static void kdapl_evd_cq_event(struct ib_event *event, void *context)
{
	struct kdapl_evd *evd = context;

	if (event->event == IB_EVENT_CQ_ERR)
		kdapl_ia_async_event(evd->obj.ia, DAT_ASYNC_ERROR_EVD_OVERFLOW,
				     kdapl_object_handle(&evd->obj),
				     DAT_EVD_OVERFLOW_ERROR);
}

/* A CQ of @n entries on @ia's device that completes into @evd. */
static struct ib_cq *kdapl_evd_alloc_cq(struct kdapl_evd *evd,
					struct kdapl_ia *ia, u32 n)
{
	struct ib_cq *cq;

	cq = ib_alloc_cq(ia->ibdev, evd, n, 0, IB_POLL_SOFTIRQ);
	if (!IS_ERR(cq))
		cq->event_handler = kdapl_evd_cq_event;
	return cq;
}

/* Free the EVD's CQs; their QPs are gone.  IA lock held. */
static void kdapl_evd_free_cqs(struct kdapl_evd *evd)
{
	struct kdapl_evd_xcq *x, *tmp;

	/* Waits for the completion handlers that are running. */
	if (evd->cq)
		ib_free_cq(evd->cq);
	evd->cq = NULL;
	evd->cq_size = 0;
	list_for_each_entry_safe(x, tmp, &evd->xcqs, node) {
		list_del(&x->node);
		ib_free_cq(x->cq);
		kfree(x);
	}
}

/**
 * kdapl_evd_create() - create an EVD in an IA
 * @ia: the IA, with its lock held
 * @qlen: events the EVD holds, 1 to the device's max_cqe
 * @policy: DAT_UPCALL_DISABLE, _SINGLE_INSTANCE, _NOTIFY or _MANY
 * @upcall: upcall object, required unless @policy is DAT_UPCALL_DISABLE
 * @flags: DAT_EVD_*_FLAG streams the EVD takes, at least one
 * @evdp: the new EVD, published and linked in the IA
 *
 * Used by dat_evd_kcreate() and by dat_ia_open() for the async EVD.
 * The parameter subtypes are those of dat_evd_kcreate()'s arguments.
 *
 * Context: process context, may sleep; @ia->lock held.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER for a bad argument;
 * DAT_INVALID_STATE if the IA is being closed or its device is gone;
 * DAT_INSUFFICIENT_RESOURCES if memory or the CQ is missing.
 */
DAT_RETURN kdapl_evd_create(struct kdapl_ia *ia, DAT_COUNT qlen,
			    DAT_UPCALL_POLICY policy,
			    const DAT_UPCALL_OBJECT *upcall,
			    DAT_EVD_FLAGS flags, struct kdapl_evd **evdp)
{
	struct kdapl_evd *evd;
	struct ib_cq *cq;
	DAT_RETURN ret;

	lockdep_assert_held(&ia->lock);
	ret = kdapl_evd_check_args(qlen, policy, upcall, flags);
	if (ret)
		return ret;
	ret = kdapl_evd_ia_usable(ia);
	if (ret)
		return ret;
	if (qlen > ia->ibdev->attrs.max_cqe)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	evd = kzalloc(sizeof(*evd), GFP_KERNEL_ACCOUNT);
	if (!evd)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	evd->ring = kdapl_evd_alloc_ring(qlen);
	if (!evd->ring) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto err_free;
	}
	evd->qlen = qlen;
	evd->flags = flags;
	spin_lock_init(&evd->lock);
	init_waitqueue_head(&evd->upcall_done);
	INIT_WORK(&evd->kick, kdapl_evd_kick_work);
	INIT_LIST_HEAD(&evd->xcqs);
	INIT_LIST_HEAD(&evd->gone);
	evd->policy = policy;
	if (upcall)
		evd->upcall = *upcall;
	kdapl_evd_si_arm(evd);

	if (flags & KDAPL_EVD_CQ_STREAMS) {
		cq = kdapl_evd_alloc_cq(evd, ia,
					kdapl_evd_cq_entries(ia, qlen));
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq) == -EINVAL ?
			      dat_error(DAT_INVALID_PARAMETER,
					DAT_INVALID_ARG2) :
			      dat_error(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_TEVD);
			goto err_free;
		}
		evd->cq = cq;
		evd->cq_size = max_t(u32, cq->cqe, qlen);
	}

	kdapl_object_init(&evd->obj, DAT_HANDLE_TYPE_EVD, ia);
	if (kdapl_object_publish(&evd->obj)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto err_cq;
	}
	kdapl_ia_add_object(ia, &evd->obj);
	*evdp = evd;
	return DAT_SUCCESS;

err_cq:
	if (evd->cq)
		ib_free_cq(evd->cq);
err_free:
	kvfree(evd->ring);
	kfree(evd);
	return ret;
}

/*
 * Take the EVD out of service: no more events or upcalls, queued events
 * dropped, CQ and ring freed, unlinked from the IA.  Upcalls already
 * running finish on their own.  IA lock held.
 */
static void kdapl_evd_destroy(struct kdapl_evd *evd)
{
	struct kdapl_ia *ia = evd->obj.ia;
	unsigned long flags;
	DAT_EVENT *ring;

	lockdep_assert_held(&ia->lock);
	flags = kdapl_evd_lock(evd);
	ring = evd->ring;
	evd->ring = NULL;
	evd->count = 0;
	evd->head = 0;
	evd->policy = DAT_UPCALL_DISABLE;
	kdapl_evd_unlock(evd, flags);

	kdapl_evd_free_cqs(evd);
	kdapl_ia_del_object(ia, &evd->obj);
	kvfree(ring);
}

static void kdapl_evd_force_free(struct kdapl_object *obj)
{
	struct kdapl_evd *evd = container_of(obj, struct kdapl_evd, obj);

	lockdep_assert_held(&obj->ia->lock);
	kdapl_evd_destroy(evd);
	kdapl_object_unpublish(obj);
}

/*
 * The device is going away: the CQ goes (the EPs' QPs must be gone
 * first), the EVD stays with its queued events until the consumer frees
 * it.  IA lock held.
 */
static void kdapl_evd_detach(struct kdapl_object *obj)
{
	struct kdapl_evd *evd = container_of(obj, struct kdapl_evd, obj);

	lockdep_assert_held(&obj->ia->lock);
	kdapl_evd_free_cqs(evd);
}

static void kdapl_evd_release(struct kdapl_object *obj)
{
	struct kdapl_evd *evd = container_of(obj, struct kdapl_evd, obj);

	/* Freed by kdapl_evd_destroy() unless it never ran. */
	kvfree(evd->ring);
	/* No upcall runs: the CQ is gone, the kick work held a reference. */
	kdapl_evd_free_gone(&evd->gone);
	kfree_rcu(evd, obj.rcu);
}

const struct kdapl_type_ops kdapl_evd_type = {
	.name = "evd",
	.bad_handle = KDAPL_EVD_BAD_HANDLE,
	.close_rank = 50,
	.free = kdapl_evd_force_free,
	.detach = kdapl_evd_detach,
	.release = kdapl_evd_release,
};

/**
 * kdapl_evd_kcreate() - dat_evd_kcreate() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_evd_kcreate()
 * @evd_min_qlen: as for dat_evd_kcreate()
 * @upcall_policy: as for dat_evd_kcreate()
 * @upcall: as for dat_evd_kcreate()
 * @evd_flags: as for dat_evd_kcreate()
 * @evd_handle: as for dat_evd_kcreate()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_evd_kcreate().
 * Return: as dat_evd_kcreate().
 */
DAT_RETURN kdapl_evd_kcreate(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			     DAT_COUNT evd_min_qlen,
			     DAT_UPCALL_POLICY upcall_policy,
			     const DAT_UPCALL_OBJECT *upcall,
			     DAT_EVD_FLAGS evd_flags,
			     DAT_EVD_HANDLE *evd_handle)
{
	struct kdapl_evd *evd;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (!evd_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	/* An upcall is a kernel function: kernel callers only. */
	if (!kdapl_owner_kernel(owner) && upcall_policy != DAT_UPCALL_DISABLE)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_evd_check_args(evd_min_qlen, upcall_policy, upcall,
				   evd_flags);
	if (ret)
		return ret;
	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;

	mutex_lock(&ia->lock);
	ret = kdapl_evd_create(ia, evd_min_qlen, upcall_policy, upcall,
			       evd_flags, &evd);
	if (!ret)
		*evd_handle = kdapl_object_handle(&evd->obj);
	mutex_unlock(&ia->lock);
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_kcreate);

/**
 * dat_evd_kcreate() - create an Event Dispatcher
 * @ia_handle: the IA
 * @evd_min_qlen: events the EVD must hold, 1 to the device's max_cqe
 * @upcall_policy: DAT_UPCALL_DISABLE, _SINGLE_INSTANCE, _NOTIFY or _MANY
 * @upcall: upcall object, required unless @upcall_policy is
 *	DAT_UPCALL_DISABLE (then it may be NULL)
 * @evd_flags: DAT_EVD_*_FLAG streams the EVD takes, at least one
 * @evd_handle: the new EVD
 *
 * An EVD that takes DTO or RMR bind completions gets a completion queue
 * of @evd_min_qlen entries, polled in softirq context.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 for a queue length out of
 * range, ARG3 for an unknown (or TEARDOWN) policy, ARG4 for an enabled
 * policy without upcall function, ARG5 for no stream or an unknown
 * stream flag, ARG6 for a NULL @evd_handle;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_IA for a bad IA handle;
 * DAT_INVALID_STATE if the IA is being closed or its device is gone;
 * DAT_INSUFFICIENT_RESOURCES with DAT_RESOURCE_MEMORY, or
 * DAT_RESOURCE_TEVD when the device refuses the completion queue.
 */
DAT_RETURN dat_evd_kcreate(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			   DAT_UPCALL_POLICY upcall_policy,
			   const DAT_UPCALL_OBJECT *upcall,
			   DAT_EVD_FLAGS evd_flags, DAT_EVD_HANDLE *evd_handle)
{
	return kdapl_evd_kcreate(&kdapl_kernel_owner, ia_handle, evd_min_qlen,
				 upcall_policy, upcall, evd_flags, evd_handle);
}
EXPORT_SYMBOL_GPL(dat_evd_kcreate);

/**
 * kdapl_evd_free() - dat_evd_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @evd_handle: as for dat_evd_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_evd_free().
 * Return: as dat_evd_free().
 */
DAT_RETURN kdapl_evd_free(struct kdapl_owner *owner, DAT_EVD_HANDLE evd_handle)
{
	struct kdapl_evd *evd;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, evd_handle, EVD, KDAPL_EVD_BAD_HANDLE, &evd);
	if (ret)
		return ret;
	ia = evd->obj.ia;

	mutex_lock(&ia->lock);
	if (evd->obj.users || evd == ia->async_evd) {
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EVD_IN_USE);
		goto out;
	}
	if (!kdapl_object_unpublish(&evd->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, KDAPL_EVD_BAD_HANDLE);
		goto out;
	}
	kdapl_evd_destroy(evd);
out:
	mutex_unlock(&ia->lock);
	/* Not under the IA lock: an upcall may be waiting for it. */
	if (!ret)
		wait_event(evd->upcall_done, kdapl_evd_idle(evd));
	kdapl_object_put(&evd->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_free);

/**
 * dat_evd_free() - free an Event Dispatcher
 * @evd_handle: the EVD
 *
 * Queued events are dropped.  Returns once upcalls of the EVD that were
 * running have finished, so it must not be called from one of them.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_EVD_REQUEST for a bad handle;
 * DAT_INVALID_STATE with DAT_INVALID_STATE_EVD_IN_USE while an Endpoint
 * or another object uses the EVD, or while it is the async EVD of its IA.
 */
DAT_RETURN dat_evd_free(DAT_EVD_HANDLE evd_handle)
{
	return kdapl_evd_free(&kdapl_kernel_owner, evd_handle);
}
EXPORT_SYMBOL_GPL(dat_evd_free);

/* ---------------------------------------------------------------------
 * Events and upcalls
 */

/**
 * kdapl_evd_post_se() - dat_evd_post_se() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @evd_handle: as for dat_evd_post_se()
 * @event: as for dat_evd_post_se()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_evd_post_se().
 * Return: as dat_evd_post_se().
 */
DAT_RETURN kdapl_evd_post_se(struct kdapl_owner *owner,
			     DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
	struct kdapl_evd *evd;
	DAT_RETURN ret;
	DAT_EVENT ev;
	bool bh;
	int err;

	if (!event || event->event_number != DAT_SOFTWARE_EVENT)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(owner, evd_handle, EVD, KDAPL_EVD_BAD_HANDLE, &evd);
	if (ret)
		return ret;
	if (!(evd->flags & DAT_EVD_SOFTWARE_FLAG)) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
		goto out;
	}
	/* With interrupts off or in one, softirqs cannot run anyway. */
	bh = (evd->flags & KDAPL_EVD_CQ_STREAMS) && !in_hardirq() &&
	     !irqs_disabled();
	ev = *event;
	if (bh)
		local_bh_disable();
	err = kdapl_evd_deliver(evd, &ev);
	if (bh)
		local_bh_enable();
	if (err == -ENOSPC)
		ret = dat_error(DAT_QUEUE_FULL, DAT_NO_SUBTYPE);
	else if (err)
		ret = dat_error(DAT_INVALID_HANDLE, KDAPL_EVD_BAD_HANDLE);
out:
	kdapl_object_put(&evd->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_post_se);

/**
 * dat_evd_post_se() - post a software event
 * @evd_handle: an EVD created with DAT_EVD_SOFTWARE_FLAG
 * @event: the event, of number DAT_SOFTWARE_EVENT; copied
 *
 * With upcalls disabled the event is queued.  With DAT_UPCALL_MANY, or
 * DAT_UPCALL_SINGLE_INSTANCE when no upcall is running, the upcall is
 * called from the caller's context, then any events queued meanwhile;
 * with SINGLE_INSTANCE and an upcall running, that upcall delivers it;
 * with DAT_UPCALL_NOTIFY it is queued and the upcall told once.  On an
 * EVD that takes DTO or RMR bind completions, whose upcalls never run
 * with bottom halves enabled, they are disabled around the delivery.
 *
 * Context: any context.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 for a NULL @event or one
 * that is not a software event, with DAT_INVALID_ARG1 for an EVD without
 * DAT_EVD_SOFTWARE_FLAG;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_EVD_REQUEST for a bad handle;
 * DAT_QUEUE_FULL when the EVD is full (an overflow is reported on the
 * async EVD).
 */
DAT_RETURN dat_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
	return kdapl_evd_post_se(&kdapl_kernel_owner, evd_handle, event);
}
EXPORT_SYMBOL_GPL(dat_evd_post_se);

/**
 * kdapl_evd_dequeue() - dat_evd_dequeue() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @evd_handle: as for dat_evd_dequeue()
 * @event: as for dat_evd_dequeue()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_evd_dequeue().
 * Return: as dat_evd_dequeue().
 */
DAT_RETURN kdapl_evd_dequeue(struct kdapl_owner *owner,
			     DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	struct kdapl_evd *evd;
	unsigned long flags;
	LIST_HEAD(gone);
	DAT_RETURN ret;

	if (!event)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(owner, evd_handle, EVD, KDAPL_EVD_BAD_HANDLE, &evd);
	if (ret)
		return ret;
	flags = kdapl_evd_lock(evd);
	if (evd->count)
		kdapl_evd_pop(evd, event);
	else
		ret = dat_error(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	kdapl_evd_take_gone(evd, &gone);
	kdapl_evd_unlock(evd, flags);
	kdapl_evd_free_gone(&gone);
	kdapl_evd_count(evd, DCNT_EVD_DEQUEUE);
	kdapl_evd_count(evd, ret ? DCNT_EVD_DEQUEUE_NOT_FOUND :
				   DCNT_EVD_DEQUEUE_FOUND);
	kdapl_object_put(&evd->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_dequeue);

/**
 * dat_evd_dequeue() - take the oldest queued event
 * @evd_handle: the EVD
 * @event: where the event is copied
 *
 * Works whatever the upcall policy; events handed to an upcall are not
 * queued.
 *
 * Context: any context.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 for a NULL @event;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_EVD_REQUEST for a bad handle;
 * DAT_QUEUE_EMPTY when no event is queued.
 */
DAT_RETURN dat_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	return kdapl_evd_dequeue(&kdapl_kernel_owner, evd_handle, event);
}
EXPORT_SYMBOL_GPL(dat_evd_dequeue);

/**
 * kdapl_evd_modify_upcall() - dat_evd_modify_upcall() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @evd_handle: as for dat_evd_modify_upcall()
 * @upcall_policy: as for dat_evd_modify_upcall()
 * @upcall: as for dat_evd_modify_upcall()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_evd_modify_upcall().
 * Return: as dat_evd_modify_upcall().
 */
DAT_RETURN kdapl_evd_modify_upcall(struct kdapl_owner *owner,
				   DAT_EVD_HANDLE evd_handle,
				   DAT_UPCALL_POLICY upcall_policy,
				   const DAT_UPCALL_OBJECT *upcall)
{
	DAT_UPCALL_OBJECT object;
	struct kdapl_evd *evd;
	unsigned long flags;
	bool kick = false;
	DAT_RETURN ret;

	switch (upcall_policy) {
	case DAT_UPCALL_TEARDOWN:
		might_sleep();
		break;
	case DAT_UPCALL_DISABLE:
	case DAT_UPCALL_SINGLE_INSTANCE:
	case DAT_UPCALL_NOTIFY:
	case DAT_UPCALL_MANY:
		break;
	default:
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	/* An upcall is a kernel function: kernel callers only. */
	if (!kdapl_owner_kernel(owner) && upcall_policy > DAT_UPCALL_DISABLE)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(owner, evd_handle, EVD, KDAPL_EVD_BAD_HANDLE, &evd);
	if (ret)
		return ret;

	flags = kdapl_evd_lock(evd);
	object = upcall ? *upcall : evd->upcall;
	if (!evd->ring) {
		ret = dat_error(DAT_INVALID_HANDLE, KDAPL_EVD_BAD_HANDLE);
	} else if (upcall_policy > DAT_UPCALL_DISABLE &&
		   !object.upcall_func) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	} else {
		evd->upcall = object;
		evd->policy = upcall_policy == DAT_UPCALL_TEARDOWN ?
			      DAT_UPCALL_DISABLE : upcall_policy;
		kick = evd->count && kdapl_evd_wants_kick(evd);
	}
	kdapl_evd_unlock(evd, flags);
	if (kick)
		kdapl_evd_kick(evd);
	if (!ret && upcall_policy == DAT_UPCALL_TEARDOWN)
		wait_event(evd->upcall_done, kdapl_evd_idle(evd));
	kdapl_object_put(&evd->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_modify_upcall);

/**
 * kdapl_evd_attach_sink() - hand an EVD's events to a function of kdapl
 * @owner: the owner of the EVD
 * @evd_handle: the EVD
 * @sink: the function and its data, run as a DAT_UPCALL_SINGLE_INSTANCE
 *	upcall in the contexts kdat.h gives upcalls of the EVD's kind
 * @evdp: out: the EVD, with a reference for kdapl_evd_put_sink()
 *
 * Owners other than kernel consumers may not give upcalls: /dev/kdapl
 * fills the event rings of its files' EVDs through such a sink instead.
 *
 * Context: process context.
 * Return: DAT_SUCCESS, or DAT_INVALID_HANDLE for a bad or freed EVD.
 */
DAT_RETURN kdapl_evd_attach_sink(struct kdapl_owner *owner,
				 DAT_EVD_HANDLE evd_handle,
				 const DAT_UPCALL_OBJECT *sink,
				 struct kdapl_evd **evdp)
{
	struct kdapl_evd *evd;
	unsigned long flags;
	bool kick = false;
	DAT_RETURN ret;

	ret = kdapl_get(owner, evd_handle, EVD, KDAPL_EVD_BAD_HANDLE, &evd);
	if (ret)
		return ret;
	flags = kdapl_evd_lock(evd);
	if (!evd->ring) {
		ret = dat_error(DAT_INVALID_HANDLE, KDAPL_EVD_BAD_HANDLE);
	} else {
		evd->upcall = *sink;
		evd->policy = DAT_UPCALL_SINGLE_INSTANCE;
		kick = evd->count && kdapl_evd_wants_kick(evd);
	}
	kdapl_evd_unlock(evd, flags);
	if (kick)
		kdapl_evd_kick(evd);
	if (ret)
		kdapl_object_put(&evd->obj);
	else
		*evdp = evd;
	return ret;
}

/**
 * kdapl_evd_put_sink() - let go of an EVD whose events went to a sink
 * @evd: the EVD kdapl_evd_attach_sink() gave, already freed
 *
 * Waits until the sink runs no more, so that its data may be freed.
 *
 * Context: process context, may sleep.
 */
void kdapl_evd_put_sink(struct kdapl_evd *evd)
{
	wait_event(evd->upcall_done, kdapl_evd_idle(evd));
	kdapl_object_put(&evd->obj);
}

/**
 * dat_evd_modify_upcall() - change the upcall policy and object
 * @evd_handle: the EVD
 * @upcall_policy: DAT_UPCALL_DISABLE, _SINGLE_INSTANCE, _NOTIFY, _MANY,
 *	or DAT_UPCALL_TEARDOWN: disable and wait for running upcalls
 * @upcall: the new upcall object, or DAT_UPCALL_SAME (NULL) to keep it
 *
 * Enabling SINGLE_INSTANCE or MANY while events are queued has them
 * delivered to the upcall by the EVD's kick work (for SINGLE_INSTANCE,
 * by the running upcall if there is one); arming NOTIFY while events are
 * queued notifies from there too.  The upcall is never called from this
 * function.
 *
 * Context: any context, except for DAT_UPCALL_TEARDOWN: process context,
 * sleeps until the running upcalls have returned, so it must not be
 * called from an upcall of the same EVD.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 for an unknown policy,
 * with DAT_INVALID_ARG3 for an enabled policy without upcall function;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_EVD_REQUEST for a bad handle.
 */
DAT_RETURN dat_evd_modify_upcall(DAT_EVD_HANDLE evd_handle,
				 DAT_UPCALL_POLICY upcall_policy,
				 const DAT_UPCALL_OBJECT *upcall)
{
	return kdapl_evd_modify_upcall(&kdapl_kernel_owner, evd_handle,
				       upcall_policy, upcall);
}
EXPORT_SYMBOL_GPL(dat_evd_modify_upcall);

/* ---------------------------------------------------------------------
 * Query and resize
 */

/**
 * kdapl_evd_query() - dat_evd_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @evd_handle: as for dat_evd_query()
 * @mask: as for dat_evd_query()
 * @param: as for dat_evd_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_evd_query().
 * Return: as dat_evd_query().
 */
DAT_RETURN kdapl_evd_query(struct kdapl_owner *owner, DAT_EVD_HANDLE evd_handle,
			   DAT_EVD_PARAM_MASK mask, DAT_EVD_PARAM *param)
{
	struct kdapl_evd *evd;
	unsigned long flags;
	DAT_RETURN ret;

	if (mask & ~DAT_EVD_FIELD_ALL_KDAT)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, evd_handle, EVD, KDAPL_EVD_BAD_HANDLE, &evd);
	if (ret)
		return ret;

	if (mask & DAT_EVD_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&evd->obj.ia->obj);
	if (mask & DAT_EVD_FIELD_EVD_STATE)
		param->evd_state = DAT_EVD_STATE_ENABLED;
	if (mask & DAT_EVD_FIELD_CNO)
		param->cno_handle = DAT_HANDLE_NULL;
	if (mask & DAT_EVD_FIELD_EVD_FLAGS)
		param->evd_flags = evd->flags;
	flags = kdapl_evd_lock(evd);
	if (mask & DAT_EVD_FIELD_EVD_QLEN)
		param->evd_qlen = evd->qlen;
	if (mask & DAT_EVD_FIELD_UPCALL_POLICY)
		param->upcall_policy = evd->policy;
	if (mask & DAT_EVD_FIELD_UPCALL)
		param->upcall = evd->upcall;
	kdapl_evd_unlock(evd, flags);

	kdapl_object_put(&evd->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_query);

/**
 * dat_evd_query() - read the parameters of an EVD
 * @evd_handle: the EVD
 * @mask: DAT_EVD_FIELD_* fields wanted, kernel-only ones included
 * @param: filled in for the fields of @mask; others are left alone
 *
 * The state is always DAT_EVD_STATE_ENABLED and the CNO always NULL:
 * kernel EVDs have no CNO and cannot be disabled.
 *
 * Context: any context.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 for a bit outside
 * DAT_EVD_FIELD_ALL_KDAT, with DAT_INVALID_ARG3 for a NULL @param;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_EVD_REQUEST for a bad handle.
 */
DAT_RETURN dat_evd_query(DAT_EVD_HANDLE evd_handle, DAT_EVD_PARAM_MASK mask,
			 DAT_EVD_PARAM *param)
{
	return kdapl_evd_query(&kdapl_kernel_owner, evd_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_evd_query);

/* Grow the CQ to at least @n entries, never shrinking it; IA lock. */
static int kdapl_evd_fit_cq(struct kdapl_evd *evd, u32 n)
{
	int err;

	if (n <= evd->cq_size)
		return 0;
	err = ib_resize_cq(evd->cq, n);
	if (err)
		return err;
	evd->cq_size = max_t(u32, evd->cq->cqe, n);
	return 0;
}

/*
 * Grow the CQ to at least @qlen entries; never shrink it.  A device that
 * cannot resize its CQs keeps them as they are: what they hold is
 * bounded by the reservations of their queues, not by @qlen.
 */
static DAT_RETURN kdapl_evd_grow_cq(struct kdapl_evd *evd, DAT_COUNT qlen)
{
	int err;

	if (!evd->cq)
		return DAT_SUCCESS;
	err = kdapl_evd_fit_cq(evd, qlen);
	if (err && err != -EOPNOTSUPP)
		return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD);
	return DAT_SUCCESS;
}

/*
 * Room for @n completions in a further CQ of @evd, found or made: for a
 * device that cannot resize its CQs, or a queue that would take the
 * EVD's CQ past the device's max_cqe.  IA lock held.
 */
static struct ib_cq *kdapl_evd_xcq_reserve(struct kdapl_evd *evd, u32 n)
{
	struct kdapl_ia *ia = evd->obj.ia;
	struct kdapl_evd_xcq *x;
	struct ib_cq *cq;
	u32 size;

	list_for_each_entry(x, &evd->xcqs, node) {
		if (x->size - x->reserved >= n) {
			x->reserved += n;
			return x->cq;
		}
	}
	size = max_t(u32, n, KDAPL_EVD_CQ_MIN);
	if (n > ia->ibdev->attrs.max_cqe)
		return ERR_PTR(-EINVAL);
	size = min_t(u32, size, ia->ibdev->attrs.max_cqe);
	x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return ERR_PTR(-ENOMEM);
	cq = kdapl_evd_alloc_cq(evd, ia, size);
	if (IS_ERR(cq)) {
		kfree(x);
		return cq;
	}
	x->cq = cq;
	x->size = max_t(u32, cq->cqe, size);
	x->reserved = n;
	list_add_tail(&x->node, &evd->xcqs);
	return cq;
}

/**
 * kdapl_evd_cq_reserve() - make room in an EVD's CQs for a queue of a QP
 * @evd: an EVD with DTO streams
 * @n: completions the queue may have outstanding, kdapl's own included
 *
 * The CQ grows (ib_resize_cq()) to hold the completions of every queue
 * that uses it, so that it never overruns.  On a device that cannot
 * resize its CQs (siw), a queue that does not fit what the CQ was created
 * with goes to a further CQ of the EVD, which completes into it the same
 * way; so does, on any device, a queue that would take the CQ past the
 * largest the device makes (max_cqe).  Completions of one queue stay in
 * order, as they all come from one CQ.
 *
 * Context: process context, the IA lock held.
 * Return: the CQ the queue is to complete on; ERR_PTR(-ENODEV) if the
 * device is gone, or the error of the resize or the allocation.
 */
struct ib_cq *kdapl_evd_cq_reserve(struct kdapl_evd *evd, u32 n)
{
	u32 need;
	int err;

	lockdep_assert_held(&evd->obj.ia->lock);
	if (!evd->cq)
		return ERR_PTR(-ENODEV);
	need = evd->cq_reserved + n;
	/* More than any one CQ of the device holds. */
	if (need > (u32)evd->obj.ia->ibdev->attrs.max_cqe)
		return kdapl_evd_xcq_reserve(evd, n);
	err = kdapl_evd_fit_cq(evd, max_t(u32, evd->qlen, need));
	if (err == -EOPNOTSUPP && need > evd->cq_size)
		return kdapl_evd_xcq_reserve(evd, n);
	if (err == -EOPNOTSUPP)
		err = 0;
	if (err)
		return ERR_PTR(err);
	evd->cq_reserved += n;
	return evd->cq;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_cq_reserve);

/**
 * kdapl_evd_cq_unreserve() - undo kdapl_evd_cq_reserve()
 * @evd: the EVD
 * @cq: the CQ it returned
 * @n: what was reserved
 *
 * A further CQ that nothing reserves any more stays until the EVD goes,
 * for the next queues: a QP on an SRQ is not drained of its receives
 * (ib_drain_qp()), so one may still wait there to be polled into the
 * EVD.  A CQ freed with the device is ignored.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_evd_cq_unreserve(struct kdapl_evd *evd, struct ib_cq *cq, u32 n)
{
	struct kdapl_evd_xcq *x;

	lockdep_assert_held(&evd->obj.ia->lock);
	if (cq == evd->cq) {
		evd->cq_reserved -= min(n, evd->cq_reserved);
		return;
	}
	list_for_each_entry(x, &evd->xcqs, node) {
		if (x->cq != cq)
			continue;
		x->reserved -= min(n, x->reserved);
		return;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_cq_unreserve);

/**
 * kdapl_evd_resize() - dat_evd_resize() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @evd_handle: as for dat_evd_resize()
 * @evd_min_qlen: as for dat_evd_resize()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_evd_resize().
 * Return: as dat_evd_resize().
 */
DAT_RETURN kdapl_evd_resize(struct kdapl_owner *owner,
			    DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen)
{
	DAT_EVENT *ring, *old;
	struct kdapl_evd *evd;
	struct kdapl_ia *ia;
	unsigned long flags;
	DAT_RETURN ret;
	u32 i, idx;

	if (evd_min_qlen <= 0)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(owner, evd_handle, EVD, KDAPL_EVD_BAD_HANDLE, &evd);
	if (ret)
		return ret;
	ia = evd->obj.ia;

	mutex_lock(&ia->lock);
	/* The ring is only replaced or freed under the IA lock. */
	if (!evd->ring) {
		ret = dat_error(DAT_INVALID_HANDLE, KDAPL_EVD_BAD_HANDLE);
		goto out;
	}
	ret = kdapl_evd_ia_usable(ia);
	if (ret)
		goto out;
	if (evd_min_qlen > ia->ibdev->attrs.max_cqe) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (READ_ONCE(evd->count) > evd_min_qlen) {
		ret = dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	ring = kdapl_evd_alloc_ring(evd_min_qlen);
	if (!ring) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out;
	}
	ret = kdapl_evd_grow_cq(evd, evd_min_qlen);
	if (ret) {
		kvfree(ring);
		goto out;
	}

	flags = kdapl_evd_lock(evd);
	if (evd->count > evd_min_qlen) {
		/* Events arrived meanwhile. */
		kdapl_evd_unlock(evd, flags);
		kvfree(ring);
		ret = dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	for (i = 0, idx = evd->head; i < evd->count; i++) {
		ring[i] = evd->ring[idx];
		if (++idx == evd->qlen)
			idx = 0;
	}
	old = evd->ring;
	evd->ring = ring;
	evd->qlen = evd_min_qlen;
	evd->head = 0;
	kdapl_evd_unlock(evd, flags);
	kvfree(old);
out:
	mutex_unlock(&ia->lock);
	kdapl_object_put(&evd->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_resize);

/**
 * dat_evd_resize() - change the number of events an EVD holds
 * @evd_handle: the EVD
 * @evd_min_qlen: the new capacity, 1 to the device's max_cqe, and at
 *	least the number of events queued
 *
 * Queued events are kept, in order.  The completion queue of an EVD with
 * DTO or RMR bind streams grows with the EVD but never shrinks (work
 * requests in flight may still need its entries).  On devices that
 * cannot resize a CQ (siw) the CQ stays as it is: the reservations of
 * its queues bound what it holds.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 for a capacity out of range;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_EVD_REQUEST for a bad handle;
 * DAT_INVALID_STATE when more events are queued than the new capacity,
 * or once the device is gone;
 * DAT_INSUFFICIENT_RESOURCES with DAT_RESOURCE_MEMORY, or with
 * DAT_RESOURCE_TEVD when the device fails to grow the CQ.
 */
DAT_RETURN dat_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen)
{
	return kdapl_evd_resize(&kdapl_kernel_owner, evd_handle, evd_min_qlen);
}
EXPORT_SYMBOL_GPL(dat_evd_resize);

/* ---------------------------------------------------------------------
 * Endpoint completion streams
 */

/*
 * The completion flag rules of dat_ep_create() for a new stream with
 * @flags on @evd (evd->lock held): every EP completion stream of an EVD
 * has the same completion flags as the others, and an EVD fed by streams
 * other than DTO and RMR bind completions takes only
 * DAT_COMPLETION_EVD_THRESHOLD_FLAG.  (A solicited-wait receive stream
 * thus shares its EVD with no other kind of stream: request streams
 * cannot have that flag.)
 */
static bool kdapl_evd_stream_ok(const struct kdapl_evd *evd,
				DAT_COMPLETION_FLAGS flags)
{
	if (flags & ~KDAPL_COMPLETION_FLAGS)
		return false;
	if ((evd->flags & KDAPL_EVD_OTHER_STREAMS) &&
	    flags != DAT_COMPLETION_EVD_THRESHOLD_FLAG)
		return false;
	return !(evd->recv_streams || evd->request_streams) ||
	       flags == evd->stream_flags;
}

/**
 * kdapl_evd_stream_default() - the completion flags an EP created without
 * attributes gives a stream into an EVD
 * @evd: the EVD
 *
 * The provider default, DAT_COMPLETION_DEFAULT_FLAG, unless @evd is also
 * fed by streams other than DTO and RMR bind completions: such an EVD
 * takes only DAT_COMPLETION_EVD_THRESHOLD_FLAG (dat_ep_create()), which
 * the defaults then use.
 *
 * Context: any context; @evd's flags do not change.
 * Return: the completion flags.
 */
DAT_COMPLETION_FLAGS kdapl_evd_stream_default(const struct kdapl_evd *evd)
{
	return evd->flags & KDAPL_EVD_OTHER_STREAMS ?
	       DAT_COMPLETION_EVD_THRESHOLD_FLAG : DAT_COMPLETION_DEFAULT_FLAG;
}

/**
 * kdapl_evd_attach_stream() - an EP completion stream starts feeding an EVD
 * @evd: the EVD
 * @stream: the EP's receive or request stream
 * @flags: the stream's completion flags (the EP's recv or request
 *	completion flags)
 *
 * Checks the rules of dat_ep_create() on completion flags of streams
 * sharing an EVD, then counts the stream.  It does not mark the EVD in
 * use: the caller does that with kdapl_use().
 *
 * Context: process context; the IA lock held.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_EVD_RECV or
 * DAT_INVALID_HANDLE_EVD_REQUEST if the EVD does not take DTO
 * completions;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG6 (the EP attributes of
 * dat_ep_create()) if @flags break the rules.
 */
DAT_RETURN kdapl_evd_attach_stream(struct kdapl_evd *evd,
				   enum kdapl_stream stream,
				   DAT_COMPLETION_FLAGS flags)
{
	bool recv = stream == KDAPL_STREAM_RECV;
	DAT_RETURN ret = DAT_SUCCESS;
	unsigned long irqflags;

	lockdep_assert_held(&evd->obj.ia->lock);
	if (!(evd->flags & DAT_EVD_DTO_FLAG))
		return dat_error(DAT_INVALID_HANDLE,
				 recv ? DAT_INVALID_HANDLE_EVD_RECV :
					DAT_INVALID_HANDLE_EVD_REQUEST);

	irqflags = kdapl_evd_lock(evd);
	if (!kdapl_evd_stream_ok(evd, flags)) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	} else {
		evd->stream_flags = flags;
		if (recv)
			evd->recv_streams++;
		else
			evd->request_streams++;
	}
	kdapl_evd_unlock(evd, irqflags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_attach_stream);

/**
 * kdapl_evd_detach_stream() - an EP completion stream stops feeding an EVD
 * @evd: the EVD
 * @stream: the stream given to kdapl_evd_attach_stream()
 *
 * Context: process context; the IA lock held.
 */
void kdapl_evd_detach_stream(struct kdapl_evd *evd, enum kdapl_stream stream)
{
	unsigned int *streams;
	unsigned long flags;

	lockdep_assert_held(&evd->obj.ia->lock);
	streams = stream == KDAPL_STREAM_RECV ? &evd->recv_streams :
						&evd->request_streams;
	flags = kdapl_evd_lock(evd);
	if (!WARN_ON_ONCE(!*streams))
		--*streams;
	if (!evd->recv_streams && !evd->request_streams)
		evd->stream_flags = DAT_COMPLETION_DEFAULT_FLAG;
	kdapl_evd_unlock(evd, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_evd_detach_stream);
