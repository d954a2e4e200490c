// SPDX-License-Identifier: GPL-2.0
/*
 * Event rings: how the events of a file's EVDs reach the process.
 *
 * Every EVD a file creates gets a ring of struct kdapl_uevent in
 * vmalloc_user() memory that the process maps.  The kDAT EVD hands each
 * event to kdapl_uring_sink() as a SINGLE_INSTANCE upcall, which turns it
 * into a compact event carrying the file's cookies (never a kernel pointer
 * or handle), writes it into the next slot and publishes it by storing the
 * tail with release semantics.  The process reads events up to the tail
 * and gives the slots back by storing the head; dat_evd_dequeue() needs no
 * system call.
 *
 * The kernel trusts nothing in the shared memory: its producer index is
 * its own (ring->tail), and the head the process writes is read once per
 * event and only compared, so a process writing garbage can lose or
 * repeat its own events but never make the kernel write outside the ring.
 *
 * A ring holds at least the EVD's queue length; dat_evd_resize() moves it
 * to new memory when that changes its number of slots (see
 * kdapl_uring_resize()), so a mapping keeps the memory it maps, not the
 * ring.  An event that finds it
 * full is counted in hdr->overflows, and the first of a run of losses is
 * reported as DAT_ASYNC_ERROR_EVD_OVERFLOW on the IA's async EVD, as DAT
 * asks of an EVD queue that overflows: the loss is an event, never
 * silent.  A connection request that cannot be delivered is rejected.
 *
 * A request becomes an object of the file, which needs process context.
 * An EVD that merges requests with completion streams may run its sink
 * with bottom halves disabled, so its sink parks requests in ring->crq,
 * and kdapl_uring_cr_work() delivers them from kdapl_wq into slots it
 * reserves first (ring->reserved), which completions cannot take.  A
 * request that finds the parking queue full (more requests than the ring
 * has slots, waiting for the work) is rejected by the work.
 *
 * Context: the sink runs in the context kdat.h gives upcalls of the EVD's
 * kind (bottom halves disabled for DTO EVDs), never with a kdapl lock
 * held; ring->lock is taken with interrupts disabled.  Waiters sleep in
 * kdapl_uring_wait() on ring->wait.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/anon_inodes.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "kdapl_user.h"

/**
 * kdapl_uring_charge() - charge the pages of a ring to the calling user
 * @size: bytes of the ring
 * @user: out: the user, with a reference
 * @charged: out: pages charged (0 with CAP_IPC_LOCK, or for no pages)
 *
 * Ring memory is the process's to pay for: its pages count against
 * RLIMIT_MEMLOCK of the user, as io_uring's rings and registered buffers
 * do (user_struct.locked_vm), unless the process has CAP_IPC_LOCK.
 *
 * Context: process context.
 * Return: true, or false over the limit (nothing charged or held).
 */
bool kdapl_uring_charge(size_t size, struct user_struct **user,
			unsigned long *charged)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned long pages = size >> PAGE_SHIFT;
	struct user_struct *u = get_current_user();
	long cur;

	*charged = 0;
	if (pages && !capable(CAP_IPC_LOCK)) {
		cur = atomic_long_read(&u->locked_vm);
		do {
			if (cur + pages > limit) {
				free_uid(u);
				return false;
			}
		} while (!atomic_long_try_cmpxchg(&u->locked_vm, &cur,
						  cur + pages));
		*charged = pages;
	}
	*user = u;
	return true;
}

/**
 * kdapl_uring_uncharge() - undo kdapl_uring_charge()
 * @user: the user it gave
 * @charged: the pages it charged
 *
 * Context: any context.
 */
void kdapl_uring_uncharge(struct user_struct *user, unsigned long charged)
{
	atomic_long_sub(charged, &user->locked_vm);
	free_uid(user);
}

/* The largest queue length of a ring. */
#define KDAPL_URING_MAX_QLEN	BIT(24)

static void kdapl_uring_mem_release(struct kref *ref)
{
	struct kdapl_uring_mem *mem = container_of(ref, struct kdapl_uring_mem,
						   ref);

	kdapl_uring_uncharge(mem->user, mem->charged);
	vfree(mem->hdr);
	kfree(mem);
}

static void kdapl_uring_mem_put(struct kdapl_uring_mem *mem)
{
	kref_put(&mem->ref, kdapl_uring_mem_release);
}

/*
 * Memory for a ring of @entries slots, with an extension per slot if
 * @ext, charged to the calling user.  NULL without memory or over the
 * limit.
 */
static struct kdapl_uring_mem *kdapl_uring_mem_alloc(u32 entries, bool ext)
{
	size_t ext_offset = KDAPL_RING_EVENTS +
			    (size_t)entries * sizeof(struct kdapl_uevent);
	struct kdapl_uring_mem *mem;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL_ACCOUNT);
	if (!mem)
		return NULL;
	mem->size = PAGE_ALIGN(ext_offset + (ext ? (size_t)entries *
					     sizeof(struct kdapl_uevent_ext) :
					     0));
	if (!kdapl_uring_charge(mem->size, &mem->user, &mem->charged))
		goto free;
	mem->hdr = vmalloc_user(mem->size);
	if (!mem->hdr)
		goto uncharge;
	mem->hdr->entries = entries;
	if (ext)
		mem->hdr->ext_offset = ext_offset;
	kref_init(&mem->ref);
	return mem;
uncharge:
	kdapl_uring_uncharge(mem->user, mem->charged);
free:
	kfree(mem);
	return NULL;
}

/* Make @mem the ring's memory; ring->lock held once producers run. */
static void kdapl_uring_use(struct kdapl_uring *ring,
			    struct kdapl_uring_mem *mem)
{
	ring->mem = mem;
	ring->hdr = mem->hdr;
	ring->ev = (void *)mem->hdr + KDAPL_RING_EVENTS;
	ring->ext = ring->has_ext ? (void *)mem->hdr + mem->hdr->ext_offset :
		    NULL;
	ring->entries = mem->hdr->entries;
}

/* A parking queue of @entries requests, charged to the calling user. */
static DAT_EVENT *kdapl_uring_crq_alloc(u32 entries, struct user_struct **user,
					unsigned long *charged)
{
	DAT_EVENT *crq;

	if (!kdapl_uring_charge(PAGE_ALIGN(entries * sizeof(*crq)), user,
				charged))
		return NULL;
	crq = kvcalloc(entries, sizeof(*crq), GFP_KERNEL_ACCOUNT);
	if (!crq)
		kdapl_uring_uncharge(*user, *charged);
	return crq;
}

static void kdapl_uring_release(struct kref *ref)
{
	struct kdapl_uring *ring = container_of(ref, struct kdapl_uring, ref);

	kdapl_uring_uncharge(ring->user, ring->charged);
	kvfree(ring->crq);
	kdapl_uring_mem_put(ring->mem);
	/* kdapl_uring_get() may look at it under RCU. */
	kfree_rcu(ring, rcu);
}

/**
 * kdapl_uring_get() - the event ring of an EVD of a file
 * @ufile: the file
 * @id: the EVD's id
 *
 * Does not take the file's lock (mmap() calls it under the mmap lock).
 *
 * Context: process context.
 * Return: the ring with a reference, or NULL if @id is no EVD of the
 * file with a ring.
 */
struct kdapl_uring *kdapl_uring_get(struct kdapl_ufile *ufile, u32 id)
{
	struct kdapl_uring *ring = NULL;
	struct kdapl_uobj *uobj;

	rcu_read_lock();
	uobj = xa_load(&ufile->objs, id);
	if (uobj && uobj->type == DAT_HANDLE_TYPE_EVD) {
		ring = READ_ONCE(uobj->ring);
		if (ring && !kref_get_unless_zero(&ring->ref))
			ring = NULL;
	}
	rcu_read_unlock();
	return ring;
}

/**
 * kdapl_uring_put() - drop a reference to an event ring
 * @ring: the ring
 *
 * Context: any context but hardirq (vfree()).
 */
void kdapl_uring_put(struct kdapl_uring *ring)
{
	kref_put(&ring->ref, kdapl_uring_release);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_uring_put);

static void kdapl_uring_cr_work(struct work_struct *work);

/**
 * kdapl_uring_create() - allocate the event ring of a new EVD
 * @ufile: the file
 * @qlen: the EVD's queue length, at least 1
 * @cookie: the EVD's cookie
 * @ia_id: the id of the EVD's IA
 * @flags: the EVD's streams: connection streams give each slot a struct
 *	kdapl_uevent_ext, requests merged with completions a parking queue
 *
 * Its pages, and those of its parking queue, count against the user's
 * RLIMIT_MEMLOCK (see kdapl_uring_charge()).
 *
 * Context: process context.
 * Return: the ring with one reference, or NULL without memory or over
 * the limit.
 */
struct kdapl_uring *kdapl_uring_create(struct kdapl_ufile *ufile, u32 qlen,
				       u64 cookie, u32 ia_id,
				       DAT_EVD_FLAGS flags)
{
	bool ext = flags & (DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG);
	bool crq = (flags & DAT_EVD_CR_FLAG) &&
		   (flags & (DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG));
	struct kdapl_uring_mem *mem;
	struct kdapl_uring *ring;
	u32 entries;

	if (qlen > KDAPL_URING_MAX_QLEN)
		return NULL;
	entries = roundup_pow_of_two(max(qlen, 2U));
	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return NULL;
	/* The parking queue is the process's memory too. */
	if (crq) {
		ring->crq = kdapl_uring_crq_alloc(entries, &ring->user,
						  &ring->charged);
		if (!ring->crq)
			goto free;
		ring->crq_entries = entries;
		INIT_LIST_HEAD(&ring->crq_rejects);
		INIT_WORK(&ring->cr_work, kdapl_uring_cr_work);
	} else {
		ring->user = get_current_user();
	}
	mem = kdapl_uring_mem_alloc(entries, ext);
	if (!mem)
		goto uncharge;
	ring->has_ext = ext;
	/* The sink fills a slot it found free before it publishes. */
	ring->cr_direct = (flags & DAT_EVD_CR_FLAG) && !crq;
	ring->qlen = qlen;
	kdapl_uring_use(ring, mem);
	ring->cookie = cookie;
	ring->ufile = ufile;
	ring->ia_id = ia_id;
	kref_init(&ring->ref);
	spin_lock_init(&ring->lock);
	init_waitqueue_head(&ring->wait);
	return ring;
uncharge:
	kvfree(ring->crq);
	kdapl_uring_uncharge(ring->user, ring->charged);
free:
	kfree(ring);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_uring_create);

/*
 * Events in the ring as the kernel sees it, whatever the head says;
 * ring->lock held.
 */
static u32 kdapl_uring_count(struct kdapl_uring *ring, u32 tail)
{
	/* Pairs with the process's release: the slots before it are read. */
	u32 n = tail - smp_load_acquire(&ring->hdr->head);

	return min(n, ring->entries);
}

/* Events in the ring, for the waiters: the lock keeps its memory. */
static u32 kdapl_uring_pending(struct kdapl_uring *ring)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&ring->lock, flags);
	n = kdapl_uring_count(ring, ring->tail);
	spin_unlock_irqrestore(&ring->lock, flags);
	return n;
}

/* The cookie the file gave the object of @handle, or 0. */
static u64 kdapl_uring_cookie(struct kdapl_uring *ring, DAT_HANDLE handle)
{
	u64 cookie = 0;

	kdapl_uobj_cookie(ring->ufile, handle, &cookie);
	return cookie;
}

static void kdapl_uring_fill_dto(struct kdapl_uring *ring,
				 struct kdapl_uevent *u, const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;

	u->cookie = d->user_cookie.as_64;
	u->status = d->status;
	u->length = d->transfered_length;
	u->data[0] = kdapl_uring_cookie(ring, d->ep_handle);
	u->data[1] = d->operation;
	u->data[2] = d->rmr_context;
	/*
	 * An extended completion: the immediate data a receive brought, and
	 * the sender's queue pair for a datagram's (0 otherwise).
	 */
	if (unlikely(ev->event_number == (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT)) {
		const DAT_IB_EXTENSION_EVENT_DATA *x =
			(const void *)ev->event_extension_data;

		u->data[2] = x->val.immed.data;
		if (x->type == DAT_IB_UD_RECV)
			u->data[2] |= (u64)x->remote_ah.qpn << 32;
	}
}

/*
 * Does the ring have room?  For a ring that parks no requests the sink is
 * the only producer: room stays.
 */
static bool kdapl_uring_has_room(struct kdapl_uring *ring)
{
	unsigned long flags;
	bool room;

	spin_lock_irqsave(&ring->lock, flags);
	room = !ring->dead && kdapl_uring_count(ring, ring->tail) <
			      ring->entries;
	spin_unlock_irqrestore(&ring->lock, flags);
	return room;
}

/* Private data of a connection event or request into the extension. */
static void kdapl_uring_fill_pdata(struct kdapl_uevent *u,
				   struct kdapl_uevent_ext *x,
				   const void *data, DAT_COUNT size)
{
	u->length = clamp_t(DAT_COUNT, size, 0, sizeof(x->private_data));
	if (data && u->length)
		memcpy(x->private_data, data, u->length);
	else
		u->length = 0;
}

/*
 * A connection request: the CR becomes an object of the file, which the
 * event names by its new id.  A request that cannot be delivered (the
 * ring full or freed, no memory for the object) is rejected at once, so
 * that neither the peer nor the CR waits for an answer that cannot come.
 * Returns false then.
 */
static bool kdapl_uring_fill_cr(struct kdapl_uring *ring,
				struct kdapl_uevent *u,
				struct kdapl_uevent_ext *x, const DAT_EVENT *ev)
{
	const DAT_CR_ARRIVAL_EVENT_DATA *d =
		&ev->event_data.cr_arrival_event_data;
	struct kdapl_cr *cr;

	u->cookie = kdapl_uring_cookie(ring, d->sp_handle.psp_handle);
	u->data[0] = d->conn_qual;
	/*
	 * What the request carries is copied from the CR, held meanwhile:
	 * its IA's close may free it.  A CR gone already is not made an
	 * object.
	 */
	if (kdapl_get(&ring->ufile->owner, d->cr_handle, CR,
		      DAT_INVALID_HANDLE_CR, &cr))
		return false;
	u->data[1] = cr->remote_port;
	kdapl_uring_fill_pdata(u, x, cr->private_data, cr->private_data_size);
	static_assert(sizeof(x->addr) >= sizeof(cr->remote_addr));
	memcpy(x->addr, &cr->remote_addr, sizeof(cr->remote_addr));
	kdapl_object_put(&cr->obj);
	/* A parked request comes with a slot reserved. */
	if (ring->crq || kdapl_uring_has_room(ring))
		u->new_id = kdapl_uobj_add_from_event(ring->ufile,
						      DAT_HANDLE_TYPE_CR,
						      d->cr_handle,
						      ring->ia_id);
	if (u->new_id)
		return true;
	kdapl_cr_drop(&ring->ufile->owner, d->cr_handle);
	return false;
}

/*
 * What a DAT_IB_UD_CONNECTION_* event of a datagram EP of the file adds
 * to a connection event's: its address handle and resolution, ids
 * already (kdapl_ud.c), the peer's queue pair and address.
 */
static void kdapl_uring_fill_ud(struct kdapl_uevent *u,
				struct kdapl_uevent_ext *x, const DAT_EVENT *ev)
{
	const DAT_IB_EXTENSION_EVENT_DATA *ext =
		(const void *)ev->event_extension_data;

	u->status = ext->status;
	u->new_id = (uintptr_t)ext->remote_ah.ah;
	u->data[0] = ext->type;
	u->data[1] = ext->remote_ah.qpn;
	u->data[2] = ext->context.as_64;
	static_assert(sizeof(x->addr) >= sizeof(ext->remote_ah.ia_addr));
	memcpy(x->addr, &ext->remote_ah.ia_addr,
	       sizeof(ext->remote_ah.ia_addr));
}

/*
 * The compact form of @ev, carrying the file's cookies.  Not under the
 * ring's lock: a connection request allocates its CR's object.  Returns
 * false for an event that is not to be delivered (a rejected request).
 */
static bool kdapl_uring_fill(struct kdapl_uring *ring, struct kdapl_uevent *u,
			     struct kdapl_uevent_ext *x, const DAT_EVENT *ev)
{
	const DAT_RMR_BIND_COMPLETION_EVENT_DATA *rmr;
	const DAT_CONNECTION_EVENT_DATA *conn;
	const DAT_ASYNCH_ERROR_EVENT_DATA *async;

	memset(u, 0, sizeof(*u));
	u->number = ev->event_number;
	u->evd_cookie = ring->cookie;
	switch ((u32)ev->event_number) {
	case DAT_DTO_COMPLETION_EVENT:
	case DAT_IB_DTO_EVENT:
		kdapl_uring_fill_dto(ring, u, ev);
		break;
	case DAT_CONNECTION_REQUEST_EVENT:
	case DAT_IB_UD_CONNECTION_REQUEST_EVENT:
		return kdapl_uring_fill_cr(ring, u, x, ev);
	case DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED:
	case DAT_IB_UD_CONNECTION_REJECT_EVENT:
	case DAT_IB_UD_CONNECTION_ERROR_EVENT:
		kdapl_uring_fill_ud(u, x, ev);
		fallthrough;
	case DAT_CONNECTION_EVENT_ESTABLISHED:
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
	case DAT_CONNECTION_EVENT_DISCONNECTED:
	case DAT_CONNECTION_EVENT_BROKEN:
	case DAT_CONNECTION_EVENT_TIMED_OUT:
	case DAT_CONNECTION_EVENT_UNREACHABLE:
		conn = &ev->event_data.connect_event_data;
		u->cookie = kdapl_uring_cookie(ring, conn->ep_handle);
		kdapl_uring_fill_pdata(u, x, conn->private_data,
				       conn->private_data_size);
		break;
	case DAT_SOFTWARE_EVENT:
		u->data[0] = (uintptr_t)ev->event_data.software_event_data.pointer;
		break;
	case DAT_RMR_BIND_COMPLETION_EVENT:
		rmr = &ev->event_data.rmr_completion_event_data;
		u->cookie = rmr->user_cookie.as_64;
		u->status = rmr->status;
		u->data[0] = kdapl_uring_cookie(ring, rmr->rmr_handle);
		break;
	case DAT_ASYNC_ERROR_EVD_OVERFLOW:
	case DAT_ASYNC_ERROR_IA_CATASTROPHIC:
	case DAT_ASYNC_ERROR_EP_BROKEN:
	case DAT_ASYNC_ERROR_TIMED_OUT:
	case DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR:
		async = &ev->event_data.asynch_error_event_data;
		u->cookie = kdapl_uring_cookie(ring, async->dat_handle);
		u->status = async->reason;
		break;
	default:
		/* The number alone says what happened. */
		break;
	}
	return true;
}

/* Tell the IA that the EVD lost events, unless it is the async EVD. */
static void kdapl_uring_report_overflow(struct kdapl_uring *ring,
					DAT_EVD_HANDLE evd_handle)
{
	struct kdapl_evd *evd;
	struct kdapl_ia *ia;

	if (kdapl_get(&ring->ufile->owner, evd_handle, EVD,
		      DAT_INVALID_HANDLE_EVD_REQUEST, &evd))
		return;
	ia = evd->obj.ia;
	if (evd != READ_ONCE(ia->async_evd))
		kdapl_ia_async_event(ia, DAT_ASYNC_ERROR_EVD_OVERFLOW,
				     evd_handle, DAT_EVD_OVERFLOW_ERROR);
	kdapl_object_put(&evd->obj);
}

/* Is @number a connection request, of a connection or a datagram EP? */
static bool kdapl_uring_is_cr(u32 number)
{
	return number == DAT_CONNECTION_REQUEST_EVENT ||
	       number == DAT_IB_UD_CONNECTION_REQUEST_EVENT;
}

/* Does @u carry a struct kdapl_uevent_ext? */
static bool kdapl_uring_has_ext(const struct kdapl_uevent *u)
{
	return kdapl_uring_is_cr(u->number) ||
	       (u->number >= DAT_CONNECTION_EVENT_ESTABLISHED &&
		u->number <= DAT_CONNECTION_EVENT_UNREACHABLE) ||
	       (u->number >= DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED &&
		u->number <= DAT_IB_UD_CONNECTION_ERROR_EVENT);
}

/* Is @ev the completion of a request (not of a receive)? */
static bool kdapl_uring_is_request(const DAT_EVENT *ev)
{
	DAT_DTOS op = ev->event_data.dto_completion_event_data.operation;

	switch ((u32)ev->event_number) {
	case DAT_DTO_COMPLETION_EVENT:
		return op != DAT_DTO_RECEIVE;
	case DAT_IB_DTO_EVENT:
		return op != (DAT_DTOS)DAT_IB_DTO_RECV_IMMED &&
		       op != (DAT_DTOS)DAT_IB_DTO_RECV_MSG_IMMED &&
		       op != (DAT_DTOS)DAT_IB_DTO_RECV_UD &&
		       op != (DAT_DTOS)DAT_IB_DTO_RECV_UD_IMMED;
	default:
		return false;
	}
}

/*
 * A request of an EP completed: its post ring, if it has one, may hold
 * what the process queued while the kernel was polling.
 */
static void kdapl_uring_request_done(struct kdapl_uring *ring,
				     const DAT_EVENT *ev)
{
	struct kdapl_upost *post;

	post = kdapl_uobj_post(ring->ufile,
			       ev->event_data.dto_completion_event_data.ep_handle);
	if (post) {
		kdapl_upost_completed(post);
		kdapl_upost_put(post);
	}
}

/*
 * Count an event lost to a full ring (or parking queue); ring->lock held.
 * Returns true for the first of a run of losses, which the caller reports
 * once the lock is dropped: DAT reports an overflow, not each loss.
 */
static bool kdapl_uring_lose(struct kdapl_uring *ring)
{
	bool first = !ring->overflowing;

	lockdep_assert_held(&ring->lock);
	WRITE_ONCE(ring->hdr->overflows, ++ring->overflows);
	ring->overflowing = true;
	return first;
}

/*
 * Write @u (and @x, for the streams that have one) into the next slot
 * and wake the waiters.  @reserved: the slot was reserved by
 * kdapl_uring_next_cr().  Not in hard interrupt context.
 */
static void kdapl_uring_publish(struct kdapl_uring *ring,
				const struct kdapl_uevent *u,
				const struct kdapl_uevent_ext *x,
				DAT_EVD_HANDLE evd_handle, bool reserved)
{
	bool report = false;
	unsigned long flags;
	u32 tail;

	spin_lock_irqsave(&ring->lock, flags);
	tail = ring->tail;
	if (reserved)
		ring->reserved--;
	if (ring->dead) {
		/* Freed: the event goes with the EVD. */
	} else if (!reserved && kdapl_uring_count(ring, tail) +
		   ring->reserved >= ring->entries) {
		report = kdapl_uring_lose(ring);
	} else {
		ring->overflowing = false;
		ring->ev[tail & (ring->entries - 1)] = *u;
		/* Only connection events and requests carry the extension. */
		if (ring->ext && kdapl_uring_has_ext(u))
			ring->ext[tail & (ring->entries - 1)] = *x;
		ring->tail = tail + 1;
		/* The event is written before the process can see it. */
		smp_store_release(&ring->hdr->tail, tail + 1);
		/* Under the lock: kdapl_uring_set_cno() may swap the CNO. */
		if (ring->cno && !atomic_read(&ring->waiters) &&
		    !(READ_ONCE(ring->state) & KDAPL_EVD_DISABLED))
			kdapl_ucno_trigger(ring->cno, ring->cookie);
	}
	spin_unlock_irqrestore(&ring->lock, flags);

	/* Pairs with the barrier of prepare_to_wait() in the waiter. */
	if (wq_has_sleeper(&ring->wait))
		wake_up_interruptible(&ring->wait);
	if (report)
		kdapl_uring_report_overflow(ring, evd_handle);
}

/*
 * Park a connection request of an EVD that also takes completions: its
 * sink may run with bottom halves disabled, and the request's CR becomes
 * an object of the file in process context, in kdapl_uring_cr_work().
 * A request that finds the queue full (requests came faster than the
 * work ran) could not have a slot either: the work rejects it, and only
 * one that finds no memory for that is lost, as an overflow, its CR left
 * with the IA until the IA is closed.
 */
static void kdapl_uring_park_cr(struct kdapl_uring *ring, const DAT_EVENT *ev)
{
	bool queued = false, report = false;
	struct kdapl_uring_crej *rej = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	if (!ring->dead && ring->crq_count == ring->crq_entries)
		rej = kmalloc(sizeof(*rej), GFP_ATOMIC | __GFP_NOWARN);
	if (ring->dead) {
		/* Freed: the request goes with the EVD. */
	} else if (ring->crq_count < ring->crq_entries) {
		ring->crq[(ring->crq_head + ring->crq_count) &
			  (ring->crq_entries - 1)] = *ev;
		ring->crq_count++;
		queued = true;
	} else if (rej) {
		rej->cr = ev->event_data.cr_arrival_event_data.cr_handle;
		list_add_tail(&rej->node, &ring->crq_rejects);
		queued = true;
	} else {
		report = kdapl_uring_lose(ring);
	}
	spin_unlock_irqrestore(&ring->lock, flags);
	if (queued)
		queue_work(kdapl_wq, &ring->cr_work);
	if (report)
		kdapl_uring_report_overflow(ring, ev->evd_handle);
}

/*
 * Take the oldest parked request into @ev and, unless @reserved is NULL,
 * a slot for it in *@reserved if the ring has one.  Returns false when
 * none is parked.
 */
static bool kdapl_uring_next_cr(struct kdapl_uring *ring, DAT_EVENT *ev,
				bool *reserved)
{
	unsigned long flags;
	bool found;

	spin_lock_irqsave(&ring->lock, flags);
	found = ring->crq_count;
	if (found) {
		*ev = ring->crq[ring->crq_head];
		ring->crq_head = (ring->crq_head + 1) &
				 (ring->crq_entries - 1);
		ring->crq_count--;
	}
	if (found && reserved) {
		*reserved = !ring->dead &&
			    kdapl_uring_count(ring, ring->tail) +
			    ring->reserved < ring->entries;
		if (*reserved)
			ring->reserved++;
	}
	spin_unlock_irqrestore(&ring->lock, flags);
	return found;
}

/* Give back a slot kdapl_uring_next_cr() reserved. */
static void kdapl_uring_unreserve(struct kdapl_uring *ring)
{
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	ring->reserved--;
	spin_unlock_irqrestore(&ring->lock, flags);
}

/* Reject a parked request, which no one can answer. */
static void kdapl_uring_reject(struct kdapl_uring *ring, const DAT_EVENT *ev)
{
	const DAT_CR_ARRIVAL_EVENT_DATA *d =
		&ev->event_data.cr_arrival_event_data;

	kdapl_cr_drop(&ring->ufile->owner, d->cr_handle);
}

/* Reject the requests that found the parking queue full. */
static void kdapl_uring_reject_unparked(struct kdapl_uring *ring)
{
	struct kdapl_uring_crej *rej, *next;
	unsigned long flags;
	LIST_HEAD(rejects);

	spin_lock_irqsave(&ring->lock, flags);
	list_splice_init(&ring->crq_rejects, &rejects);
	spin_unlock_irqrestore(&ring->lock, flags);
	list_for_each_entry_safe(rej, next, &rejects, node) {
		kdapl_cr_drop(&ring->ufile->owner, rej->cr);
		kfree(rej);
	}
}

/*
 * Deliver the parked requests, oldest first, each into a slot reserved
 * for it; a request without a slot is rejected, as the sink of a
 * request EVD does, and so is every request that found the parking
 * queue full.  kdapl_uring_detach() cancels it before the ring's file
 * can go.
 */
static void kdapl_uring_cr_work(struct work_struct *work)
{
	struct kdapl_uring *ring = container_of(work, struct kdapl_uring,
						cr_work);
	struct kdapl_uevent_ext x;
	struct kdapl_uevent u;
	bool reserved;
	DAT_EVENT ev;

	kdapl_uring_reject_unparked(ring);
	while (kdapl_uring_next_cr(ring, &ev, &reserved)) {
		if (!reserved) {
			kdapl_uring_reject(ring, &ev);
			continue;
		}
		memset(&x, 0, sizeof(x));
		if (kdapl_uring_fill(ring, &u, &x, &ev))
			kdapl_uring_publish(ring, &u, &x, ev.evd_handle, true);
		else
			kdapl_uring_unreserve(ring);
	}
}

/**
 * kdapl_uring_sink() - the upcall of a file's EVD: one event into its ring
 * @data: the ring
 * @ev: the event
 * @more: unused
 *
 * Runs one at a time per EVD (SINGLE_INSTANCE); the ring's lock orders
 * it against kdapl_uring_detach().  Not static for the KUnit suite,
 * which hands it events in the contexts the EVD may call it in.
 *
 * Context: see the top of this file.
 */
void kdapl_uring_sink(DAT_PVOID data, const DAT_EVENT *ev, DAT_BOOLEAN more)
{
	struct kdapl_uring *ring = data;
	struct kdapl_uevent_ext x;
	struct kdapl_uevent u;

	if (ring->crq && kdapl_uring_is_cr(ev->event_number)) {
		kdapl_uring_park_cr(ring, ev);
		return;
	}
	/* Copied out whole: nothing of the stack may reach the process. */
	if (ring->has_ext)
		memset(&x, 0, sizeof(x));
	if (!kdapl_uring_fill(ring, &u, &x, ev))
		return;
	kdapl_uring_publish(ring, &u, &x, ev->evd_handle, false);
	if (kdapl_uring_is_request(ev))
		kdapl_uring_request_done(ring, ev);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_uring_sink);

/**
 * kdapl_uring_attach() - make a new EVD of a file fill its ring
 * @ufile: the file
 * @uobj: the EVD, with its ring
 *
 * Context: process context, ufile->lock held.
 * Return: DAT_SUCCESS, or the error of the EVD lookup.
 */
DAT_RETURN kdapl_uring_attach(struct kdapl_ufile *ufile,
			      struct kdapl_uobj *uobj)
{
	struct kdapl_uring *ring = uobj->ring;
	DAT_UPCALL_OBJECT sink = {
		.instance_data = ring,
		.upcall_func = kdapl_uring_sink,
	};
	struct kdapl_evd *evd;
	DAT_RETURN ret;

	lockdep_assert_held(&ufile->lock);
	ret = kdapl_evd_attach_sink(&ufile->owner, uobj->handle, &sink, &evd);
	if (ret)
		return ret;
	uobj->evd = evd;
	return DAT_SUCCESS;
}

/*
 * The sink has stopped: stop the delivery of parked requests and reject
 * those left, which no one could answer any more.
 */
static void kdapl_uring_stop_cr(struct kdapl_uring *ring)
{
	DAT_EVENT ev;

	cancel_work_sync(&ring->cr_work);
	kdapl_uring_reject_unparked(ring);
	while (kdapl_uring_next_cr(ring, &ev, NULL))
		kdapl_uring_reject(ring, &ev);
}

/**
 * kdapl_uring_detach() - the EVD of a ring was freed
 * @uobj: the file's EVD object, about to go
 *
 * Waits for the sink to finish, then for the delivery of parked
 * connection requests, rejects those still parked, wakes the waiters
 * (they return DAT_INVALID_HANDLE) and drops the object's reference;
 * mappings keep the memory until they go.
 *
 * Context: process context, ufile->lock held, may sleep.
 */
void kdapl_uring_detach(struct kdapl_uobj *uobj)
{
	struct kdapl_uring *ring = uobj->ring;
	unsigned long flags;

	if (uobj->evd)
		kdapl_evd_put_sink(uobj->evd);
	uobj->evd = NULL;
	if (ring->crq)
		kdapl_uring_stop_cr(ring);
	/* The sink has stopped: nothing triggers the CNO any more. */
	if (ring->cno)
		kdapl_ucno_unlink(ring->cno);
	ring->cno = NULL;
	spin_lock_irqsave(&ring->lock, flags);
	WRITE_ONCE(ring->dead, true);
	spin_unlock_irqrestore(&ring->lock, flags);
	wake_up_interruptible_all(&ring->wait);
	WRITE_ONCE(uobj->ring, NULL);
	kdapl_uring_put(ring);
}

static void kdapl_uring_vm_open(struct vm_area_struct *vma)
{
	struct kdapl_uring_mem *mem = vma->vm_private_data;

	kref_get(&mem->ref);
}

static void kdapl_uring_vm_close(struct vm_area_struct *vma)
{
	kdapl_uring_mem_put(vma->vm_private_data);
}

static const struct vm_operations_struct kdapl_uring_vm_ops = {
	.open = kdapl_uring_vm_open,
	.close = kdapl_uring_vm_close,
};

/**
 * kdapl_uring_map() - map a ring of a file into the process
 * @vma: the whole ring, shared; a fork does not copy it
 * @mem: the ring's vmalloc_user() memory
 * @size: its size
 * @ops: the mapping's operations, which keep @mem alive
 * @priv: what holds @mem, whose reference the mapping takes over on
 *	success
 *
 * Context: process context, mmap lock held.
 * Return: 0, -EINVAL for a wrong size, a private or an executable
 * mapping, or the error of remap_vmalloc_range().
 */
int kdapl_uring_map(struct vm_area_struct *vma, void *mem, size_t size,
		    const struct vm_operations_struct *ops, void *priv)
{
	int ret;

	if (vma->vm_end - vma->vm_start != size ||
	    !(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	ret = remap_vmalloc_range(vma, mem, 0);
	if (ret)
		return ret;
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_private_data = priv;
	vma->vm_ops = ops;
	return 0;
}

/**
 * kdapl_uring_mmap() - map an event ring
 * @ring: the ring, with a reference held by the caller
 * @vma: see kdapl_uring_map()
 *
 * Maps the memory the ring uses now, which the mapping keeps.
 *
 * Context: process context, mmap lock held.
 * Return: as kdapl_uring_map().
 */
int kdapl_uring_mmap(struct kdapl_uring *ring, struct vm_area_struct *vma)
{
	struct kdapl_uring_mem *mem;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ring->lock, flags);
	mem = ring->mem;
	kref_get(&mem->ref);
	spin_unlock_irqrestore(&ring->lock, flags);
	ret = kdapl_uring_map(vma, mem->hdr, mem->size, &kdapl_uring_vm_ops,
			      mem);
	if (ret)
		kdapl_uring_mem_put(mem);
	return ret;
}

/**
 * kdapl_uring_size() - bytes to map for an event ring
 * @ring: the ring of a live EVD
 *
 * Context: process context, ufile->lock held (kdapl_uring_resize() changes
 * it under that lock).
 * Return: the size of the ring's memory.
 */
size_t kdapl_uring_size(struct kdapl_uring *ring)
{
	lockdep_assert_held(&ring->ufile->lock);
	return ring->mem->size;
}

/* Move the events of the ring, oldest first, into @mem; ring->lock held. */
static void kdapl_uring_move(struct kdapl_uring *ring,
			     struct kdapl_uring_mem *mem, u32 n)
{
	struct kdapl_uevent_ext *ext = (void *)mem->hdr + mem->hdr->ext_offset;
	struct kdapl_uevent *ev = (void *)mem->hdr + KDAPL_RING_EVENTS;
	u32 i, slot;

	lockdep_assert_held(&ring->lock);
	for (i = 0; i < n; i++) {
		slot = (ring->tail - n + i) & (ring->entries - 1);
		ev[i] = ring->ev[slot];
		if (ring->has_ext)
			ext[i] = ring->ext[slot];
	}
	mem->hdr->overflows = ring->overflows;
	mem->hdr->tail = n;
	ring->tail = n;
}

/*
 * What a resize may put in place, and what it took out: memory for the
 * ring and a parking queue with the user it is charged to.
 */
struct kdapl_uring_grow {
	struct kdapl_uring_mem *mem;
	DAT_EVENT *crq;
	struct user_struct *user;
	unsigned long charged;
};

static void kdapl_uring_grow_free(struct kdapl_uring_grow *g)
{
	if (g->mem)
		kdapl_uring_mem_put(g->mem);
	if (g->crq) {
		kvfree(g->crq);
		kdapl_uring_uncharge(g->user, g->charged);
	}
	memset(g, 0, sizeof(*g));
}

/* Memory for a ring of @entries slots, and a parking queue to match. */
static DAT_RETURN kdapl_uring_grow_alloc(struct kdapl_uring *ring,
					 u32 entries,
					 struct kdapl_uring_grow *g)
{
	if (entries != ring->entries) {
		g->mem = kdapl_uring_mem_alloc(entries, ring->has_ext);
		if (!g->mem)
			goto nomem;
	}
	if (ring->crq && entries > ring->crq_entries) {
		g->crq = kdapl_uring_crq_alloc(entries, &g->user, &g->charged);
		if (!g->crq)
			goto nomem;
	}
	return DAT_SUCCESS;
nomem:
	kdapl_uring_grow_free(g);
	return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
}

/* Move the parked requests, oldest first, to @g's queue; ring->lock. */
static void kdapl_uring_move_crq(struct kdapl_uring *ring,
				 struct kdapl_uring_grow *g, u32 entries)
{
	DAT_EVENT *old = ring->crq;
	u32 i;

	for (i = 0; i < ring->crq_count; i++)
		g->crq[i] = old[(ring->crq_head + i) & (ring->crq_entries - 1)];
	ring->crq = g->crq;
	ring->crq_head = 0;
	ring->crq_entries = entries;
	g->crq = old;
	swap(ring->user, g->user);
	swap(ring->charged, g->charged);
}

/*
 * Put @g in place if the ring's events fit @qlen and no thread waits;
 * what it replaces goes back in @g.
 */
static DAT_RETURN kdapl_uring_swap(struct kdapl_uring *ring, u32 qlen,
				   u32 entries, struct kdapl_uring_grow *g)
{
	struct kdapl_uring_mem *old;
	DAT_RETURN ret = DAT_SUCCESS;
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&ring->lock, flags);
	n = kdapl_uring_count(ring, ring->tail);
	/*
	 * A waiter's threshold was checked against the old size, and a
	 * sink that delivers requests itself needs the free slot it found.
	 */
	if (n > qlen || n + ring->reserved > entries ||
	    atomic_read(&ring->waiters) || (ring->cr_direct && n == entries)) {
		ret = dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto unlock;
	}
	if (g->mem) {
		kdapl_uring_move(ring, g->mem, n);
		old = ring->mem;
		kdapl_uring_use(ring, g->mem);
		g->mem = old;
	}
	if (g->crq)
		kdapl_uring_move_crq(ring, g, entries);
	ring->qlen = qlen;
unlock:
	spin_unlock_irqrestore(&ring->lock, flags);
	return ret;
}

/**
 * kdapl_uring_resize() - dat_evd_resize() for the EVD of a ring
 * @ring: the ring of a live EVD
 * @evd: the EVD's kDAT handle
 * @qlen: the EVD's new queue length, 1 to 2^24
 *
 * The kDAT EVD changes first (it checks @qlen against the device, and
 * its CQ grows, see kdapl_evd_resize()), then the ring; if the ring
 * cannot, the kDAT EVD's queue length goes back (its CQ stays grown, as
 * CQs never shrink).  A ring whose number
 * of slots changes moves to new memory: the events not consumed yet go
 * there in order, and the process maps it at the same offset.  The old
 * memory stays while the process maps it, but the kernel no longer
 * writes it.  A parking queue grows with the ring.
 *
 * Context: process context, ufile->lock held.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER for a @qlen out of range;
 * DAT_INVALID_STATE while more than @qlen events are in the ring (as
 * the process's head says), while a thread waits on it, or, for an EVD
 * of connection requests only, while the events fill the new ring;
 * DAT_INSUFFICIENT_RESOURCES without memory or over RLIMIT_MEMLOCK; or
 * the error of kdapl_evd_resize().
 */
DAT_RETURN kdapl_uring_resize(struct kdapl_uring *ring, DAT_EVD_HANDLE evd,
			      u32 qlen)
{
	struct kdapl_owner *owner = &ring->ufile->owner;
	struct kdapl_uring_grow g = {};
	u32 entries, old_qlen = ring->qlen;
	DAT_RETURN ret;

	lockdep_assert_held(&ring->ufile->lock);
	if (!qlen || qlen > KDAPL_URING_MAX_QLEN)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	entries = roundup_pow_of_two(max(qlen, 2U));
	ret = kdapl_evd_resize(owner, evd, qlen);
	if (ret)
		return ret;
	ret = kdapl_uring_grow_alloc(ring, entries, &g);
	if (!ret)
		ret = kdapl_uring_swap(ring, qlen, entries, &g);
	if (ret)
		kdapl_evd_resize(owner, evd, old_qlen);
	kdapl_uring_grow_free(&g);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_uring_resize);

/* May a waiter for @threshold events return? */
static bool kdapl_uring_ready(struct kdapl_uring *ring, u32 threshold)
{
	return READ_ONCE(ring->dead) ||
	       (READ_ONCE(ring->state) & KDAPL_EVD_UNWAITABLE) ||
	       kdapl_uring_pending(ring) >= threshold;
}

/**
 * kdapl_uring_wait() - dat_evd_wait() for a ring
 * @ring: the ring, with a reference held by the caller
 * @threshold: events to wait for, 1 to the ring's size
 * @timeout_us: DAT_TIMEOUT: microseconds, or DAT_TIMEOUT_INFINITE
 * @count: out: events in the ring at return
 *
 * The condition is checked after the waiter is queued and every producer
 * wakes after publishing, so an event that arrives meanwhile is not
 * missed.
 *
 * Context: process context, no lock held; sleeps.
 * Return: DAT_SUCCESS, DAT_TIMEOUT_EXPIRED, DAT_INTERRUPTED_CALL on a
 * signal, DAT_INVALID_PARAMETER for a bad threshold, DAT_INVALID_STATE
 * (EVD_UNWAITABLE) when the EVD is or becomes unwaitable, or
 * DAT_INVALID_HANDLE when the EVD was freed meanwhile.
 */
DAT_RETURN kdapl_uring_wait(struct kdapl_uring *ring, u32 threshold,
			    u32 timeout_us, u32 *count)
{
	ktime_t timeout = KTIME_MAX;
	unsigned long flags;
	bool fits;
	long ret;

	if (READ_ONCE(ring->state) & KDAPL_EVD_UNWAITABLE)
		return dat_error(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_EVD_UNWAITABLE);
	if (timeout_us != DAT_TIMEOUT_INFINITE)
		timeout = ns_to_ktime((u64)timeout_us * NSEC_PER_USEC);
	/*
	 * Counted as a waiter with the size checked, under the lock
	 * kdapl_uring_resize() checks for waiters under.  Events for a
	 * waiter do not trigger the EVD's CNO (DAT).
	 */
	spin_lock_irqsave(&ring->lock, flags);
	fits = threshold && threshold <= ring->entries;
	if (fits)
		atomic_inc(&ring->waiters);
	spin_unlock_irqrestore(&ring->lock, flags);
	if (!fits)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = wait_event_interruptible_hrtimeout(ring->wait,
						 kdapl_uring_ready(ring,
								   threshold),
						 timeout);
	atomic_dec(&ring->waiters);
	*count = kdapl_uring_pending(ring);
	if (READ_ONCE(ring->dead))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (READ_ONCE(ring->state) & KDAPL_EVD_UNWAITABLE)
		return dat_error(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_EVD_UNWAITABLE);
	if (ret == -ETIME)
		return dat_error(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
	if (ret)
		return dat_error(DAT_INTERRUPTED_CALL, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

/**
 * kdapl_uring_modify() - change the state of the EVD of a ring
 * @ring: the ring of a live EVD
 * @set: KDAPL_EVD_* to set
 * @clear: KDAPL_EVD_* to clear
 *
 * An EVD made unwaitable wakes its waiters, which find the state after
 * they wake (kdapl_uring_ready()) and fail.  A disabled EVD stops
 * triggering its CNO; a trigger already under way may still land.
 *
 * Context: process context, ufile->lock held.
 * Return: the state after the change.
 */
u32 kdapl_uring_modify(struct kdapl_uring *ring, u32 set, u32 clear)
{
	u32 state = (ring->state | set) & ~clear;

	lockdep_assert_held(&ring->ufile->lock);
	WRITE_ONCE(ring->state, state);
	if (state & KDAPL_EVD_UNWAITABLE)
		wake_up_interruptible_all(&ring->wait);
	return state;
}

/**
 * kdapl_uring_set_cno() - give the EVD of a ring another CNO
 * @ring: the ring of a live EVD
 * @cno: the new CNO, from kdapl_ucno_find(), or NULL
 *
 * The sink reads the CNO under the ring's lock, so once this returns no
 * event triggers the old one any more.
 *
 * Context: process context, ufile->lock held.
 * Return: the old CNO, for kdapl_ucno_unlink(), or NULL.
 */
struct kdapl_ucno *kdapl_uring_set_cno(struct kdapl_uring *ring,
				       struct kdapl_ucno *cno)
{
	struct kdapl_ucno *old;
	unsigned long flags;

	lockdep_assert_held(&ring->ufile->lock);
	spin_lock_irqsave(&ring->lock, flags);
	old = ring->cno;
	ring->cno = cno;
	spin_unlock_irqrestore(&ring->lock, flags);
	return old;
}

static __poll_t kdapl_uring_poll(struct file *file, poll_table *wait)
{
	struct kdapl_uring *ring = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &ring->wait, wait);
	/* As in kdapl_ucno_poll(): pairs with the sink's wq_has_sleeper(). */
	smp_mb();
	if (kdapl_uring_pending(ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(ring->dead))
		mask |= EPOLLHUP;
	return mask;
}

static int kdapl_uring_fd_release(struct inode *inode, struct file *file)
{
	kdapl_uring_put(file->private_data);
	return 0;
}

static const struct file_operations kdapl_uring_fops = {
	.owner = THIS_MODULE,
	.poll = kdapl_uring_poll,
	.release = kdapl_uring_fd_release,
	.llseek = noop_llseek,
};

/**
 * kdapl_uring_evd_fd() - KDAPL_IOC_EVD_FD: a descriptor to poll an EVD
 * @ufile: the file
 * @arg: struct kdapl_ioc_evd_fd
 * @status: out: DAT_SUCCESS, DAT_INVALID_HANDLE, or
 *	DAT_INSUFFICIENT_RESOURCES without a free descriptor
 *
 * The descriptor holds a reference to the ring, whose waiters it joins:
 * the sink wakes it after publishing each event.
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_uring_evd_fd(struct kdapl_ufile *ufile, void *arg,
		       DAT_RETURN *status)
{
	struct kdapl_ioc_evd_fd *a = arg;
	struct kdapl_uobj *uobj;
	struct file *file;
	int fd;

	uobj = kdapl_uobj_find(ufile, a->evd_id, DAT_HANDLE_TYPE_EVD);
	if (!uobj) {
		*status = dat_error(DAT_INVALID_HANDLE,
				    DAT_INVALID_HANDLE_EVD_REQUEST);
		return 0;
	}
	*status = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return 0;
	kref_get(&uobj->ring->ref);
	file = anon_inode_getfile("[kdapl-evd]", &kdapl_uring_fops,
				  uobj->ring, O_RDONLY | O_CLOEXEC);
	if (IS_ERR(file)) {
		kdapl_uring_put(uobj->ring);
		put_unused_fd(fd);
		return 0;
	}
	kdapl_uioctl_defer_fd(status, fd, file);
	a->fd = fd;
	*status = DAT_SUCCESS;
	return 0;
}
