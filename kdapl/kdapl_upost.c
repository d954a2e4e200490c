// SPDX-License-Identifier: GPL-2.0
/*
 * Post rings: how the work requests of a process reach its EPs.
 *
 * An EP of a file gets, when the process first asks for it, a ring of
 * fixed-size records in vmalloc_user() memory that the process maps.  The
 * process writes work requests into it (the DAT_LMR_TRIPLETs as they are)
 * and publishes them by storing the head; the kernel takes them when the
 * process rings the doorbell (KDAPL_IOC_EP_POST) and, while a request
 * that will complete with an event is outstanding, from the sink of that
 * completion, so that a process streaming requests makes no system call
 * for most of them and one that posts and then only polls memory still
 * progresses.
 *
 * The kernel trusts nothing in the shared memory: each record is read
 * once into kernel memory (READ_ONCE() per field) and checked there
 * before kDAT sees it, the consumer index is the kernel's own
 * (post->tail), and a head more than a ring ahead of it is refused.  A
 * process rewriting its ring meanwhile can only post what it wrote.
 *
 * A record the kernel refuses completes with an error event on the EP's
 * receive or request EVD, but for the last record of a synchronous
 * doorbell, whose DAT_RETURN the doorbell returns: the shim rings
 * synchronously whenever the kernel is not looking, so a post that fails
 * at once fails in the call that made it.
 *
 * Locking: post->lock (interrupts disabled) serialises the consumers,
 * the doorbell and the sinks, and is taken inside no kdapl lock; kDAT's
 * post calls take ep->lock inside it.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "kdapl_trace.h"
#include "kdapl_user.h"

/* Does a completed post of these flags report an event? */
static bool kdapl_upost_signalled(u32 op, u32 flags)
{
	return op != DAT_DTO_RECEIVE &&
	       !(flags & (DAT_COMPLETION_SUPPRESS_FLAG |
			  DAT_COMPLETION_UNSIGNALLED_FLAG));
}

static void kdapl_upost_release(struct kref *ref)
{
	struct kdapl_upost *post = container_of(ref, struct kdapl_upost, ref);

	kdapl_uring_uncharge(post->user, post->charged);
	vfree(post->hdr);
	kfree_rcu(post, rcu);
}

/**
 * kdapl_upost_put() - drop a reference to a post ring
 * @post: the ring
 *
 * Context: any context but hardirq (vfree()).
 */
void kdapl_upost_put(struct kdapl_upost *post)
{
	kref_put(&post->ref, kdapl_upost_release);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_upost_put);

/**
 * kdapl_upost_create() - allocate the post ring of an EP
 * @ufile: the file
 * @ep: the EP's kDAT handle
 * @entries: records, a power of two
 * @max_iov: local segments per record, 1 to KDAPL_POST_IOV_MAX
 *
 * Context: process context.
 * Return: the ring with one reference, or NULL without memory or over
 * the caller's RLIMIT_MEMLOCK.
 */
struct kdapl_upost *kdapl_upost_create(struct kdapl_ufile *ufile,
				       DAT_EP_HANDLE ep, u32 entries,
				       u32 max_iov)
{
	struct kdapl_upost *post;

	post = kzalloc(sizeof(*post), GFP_KERNEL_ACCOUNT);
	if (!post)
		return NULL;
	/* Two segments at least: an atomic's operands take the second. */
	post->stride = ALIGN(struct_size_t(struct kdapl_post_record, sge,
					   max(max_iov, 2U)), 64);
	post->size = PAGE_ALIGN(KDAPL_POST_RECORDS +
				(size_t)entries * post->stride);
	if (!kdapl_uring_charge(post->size, &post->user, &post->charged)) {
		kfree(post);
		return NULL;
	}
	post->hdr = vmalloc_user(post->size);
	if (!post->hdr) {
		kdapl_uring_uncharge(post->user, post->charged);
		kfree(post);
		return NULL;
	}
	post->rec = (void *)post->hdr + KDAPL_POST_RECORDS;
	post->entries = entries;
	post->max_iov = max_iov;
	post->hdr->entries = entries;
	post->hdr->stride = post->stride;
	post->ufile = ufile;
	post->ep = ep;
	kref_init(&post->ref);
	spin_lock_init(&post->lock);
	return post;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_upost_create);

/*
 * Read record @idx once into @r and the scratch segments; false if it is
 * malformed.  post->lock held.
 */
static bool kdapl_upost_read(struct kdapl_upost *post, u32 idx,
			     struct kdapl_post_record *r)
{
	const struct kdapl_post_record *u;
	u32 i;

	u = post->rec + (size_t)(idx & (post->entries - 1)) * post->stride;
	r->op = READ_ONCE(u->op);
	r->num_segments = READ_ONCE(u->num_segments);
	r->flags = READ_ONCE(u->flags);
	r->imm_data = READ_ONCE(u->imm_data);
	r->cookie = READ_ONCE(u->cookie);
	r->remote.virtual_address = READ_ONCE(u->remote.virtual_address);
	r->remote.segment_length = READ_ONCE(u->remote.segment_length);
	r->remote.context = READ_ONCE(u->remote.context);
	if (r->num_segments > post->max_iov)
		return false;
	for (i = 0; i < r->num_segments; i++) {
		DAT_LMR_TRIPLET *t = &post->iov[i];

		t->virtual_address = READ_ONCE(u->sge[i].virtual_address);
		t->segment_length = READ_ONCE(u->sge[i].segment_length);
		t->lmr_context = READ_ONCE(u->sge[i].context);
	}
	if (r->op == KDAPL_POST_CMP_AND_SWAP ||
	    r->op == KDAPL_POST_FETCH_AND_ADD) {
		const struct kdapl_post_atomic *a = (const void *)&u->sge[1];

		post->atomic.compare_add = READ_ONCE(a->compare_add);
		post->atomic.swap = READ_ONCE(a->swap);
	}
	return !r->imm_data || r->op == KDAPL_POST_RDMA_WRITE_IMMED ||
	       r->op == KDAPL_POST_SEND_UD;
}

/*
 * A datagram: the address handle is named by its id, which
 * DAT_IB_ADDR_HANDLE.ah carries for a process (see kdapl_ud.c), and the
 * peer's queue pair travels in the immediate data's place.  post->lock
 * held.
 */
static DAT_RETURN kdapl_upost_send_ud(struct kdapl_upost *post,
				      const struct kdapl_post_record *r,
				      DAT_DTO_COOKIE cookie)
{
	DAT_IB_ADDR_HANDLE ah = {
		.ah = (struct kdapl_ud_ah *)(uintptr_t)r->remote.context,
		.qpn = r->imm_data,
	};

	if (r->remote.virtual_address || r->remote.segment_length)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	return kdapl_ep_post_send_ud(&post->ufile->owner, post->ep,
				     r->num_segments, post->iov, &ah, cookie,
				     r->flags);
}

/*
 * An RDMA Read into an RMR: the record's one segment is the sink, read as
 * a DAT_RMR_TRIPLET.  post->lock held.
 */
static DAT_RETURN kdapl_upost_read_to_rmr(struct kdapl_upost *post,
					  const struct kdapl_post_record *r,
					  DAT_DTO_COOKIE cookie,
					  const DAT_RMR_TRIPLET *remote)
{
	const DAT_LMR_TRIPLET *t = &post->iov[0];
	DAT_RMR_TRIPLET sink;

	if (r->num_segments != 1)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	sink.virtual_address = t->virtual_address;
	sink.segment_length = t->segment_length;
	sink.rmr_context = t->lmr_context;
	return kdapl_ep_post_rdma_read_to_rmr(&post->ufile->owner, post->ep,
					      &sink, cookie, remote, r->flags);
}

/* An atomic: one local segment, the operands beside.  post->lock held. */
static DAT_RETURN kdapl_upost_atomic(struct kdapl_upost *post,
				     const struct kdapl_post_record *r,
				     DAT_DTO_COOKIE cookie,
				     const DAT_RMR_TRIPLET *remote)
{
	bool fetch_add = r->op == KDAPL_POST_FETCH_AND_ADD;

	if (r->num_segments != 1)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return kdapl_ep_post_atomic(&post->ufile->owner, post->ep, fetch_add,
				    post->atomic.compare_add,
				    fetch_add ? 0 : post->atomic.swap,
				    post->iov, cookie, remote, r->flags);
}

/* Post the record read into @r; post->lock held. */
static DAT_RETURN kdapl_upost_one(struct kdapl_upost *post,
				  const struct kdapl_post_record *r)
{
	struct kdapl_owner *owner = &post->ufile->owner;
	DAT_DTO_COOKIE cookie = { .as_64 = r->cookie };
	DAT_RMR_TRIPLET remote = {
		.virtual_address = r->remote.virtual_address,
		.segment_length = r->remote.segment_length,
		.rmr_context = r->remote.context,
	};

	switch (r->op) {
	case DAT_DTO_SEND:
		return kdapl_ep_post_send(owner, post->ep, r->num_segments,
					  post->iov, cookie, r->flags);
	case DAT_DTO_RECEIVE:
		return kdapl_ep_post_recv(owner, post->ep, r->num_segments,
					  post->iov, cookie, r->flags);
	case DAT_DTO_RDMA_WRITE:
		return kdapl_ep_post_rdma_write(owner, post->ep,
						r->num_segments, post->iov,
						cookie, &remote, r->flags);
	case DAT_DTO_RDMA_READ:
		return kdapl_ep_post_rdma_read(owner, post->ep,
					       r->num_segments, post->iov,
					       cookie, &remote, r->flags);
	case KDAPL_POST_SEND_INVALIDATE:
		return kdapl_ep_post_send_with_invalidate(owner, post->ep,
							  r->num_segments,
							  post->iov, cookie,
							  r->flags, DAT_TRUE,
							  r->remote.context);
	case KDAPL_POST_RDMA_READ_TO_RMR:
		return kdapl_upost_read_to_rmr(post, r, cookie, &remote);
	case KDAPL_POST_RDMA_WRITE_IMMED:
		return kdapl_ep_post_rdma_write_immed(owner, post->ep,
						      r->num_segments,
						      post->iov, cookie,
						      &remote, r->imm_data,
						      r->flags);
	case KDAPL_POST_CMP_AND_SWAP:
	case KDAPL_POST_FETCH_AND_ADD:
		return kdapl_upost_atomic(post, r, cookie, &remote);
	case KDAPL_POST_SEND_UD:
		return kdapl_upost_send_ud(post, r, cookie);
	default:
		return dat_error(DAT_INVALID_PARAMETER, DAT_NO_SUBTYPE);
	}
}

/* The completion status a refused post reports. */
static DAT_DTO_COMPLETION_STATUS kdapl_upost_status(DAT_RETURN ret)
{
	switch (DAT_GET_TYPE(ret)) {
	case DAT_PROTECTION_VIOLATION:
	case DAT_PRIVILEGES_VIOLATION:
		return DAT_DTO_ERR_LOCAL_PROTECTION;
	case DAT_LENGTH_ERROR:
		return DAT_DTO_ERR_LOCAL_LENGTH;
	case DAT_INVALID_STATE:
		return DAT_DTO_ERR_FLUSHED;
	default:
		return DAT_DTO_ERR_LOCAL_EP;
	}
}

/* Complete a refused record with an error event. */
static void kdapl_upost_fail(struct kdapl_upost *post,
			     const struct kdapl_post_record *r, DAT_RETURN ret)
{
	DAT_DTO_COOKIE cookie = { .as_64 = r->cookie };
	DAT_DTOS op;

	switch (r->op) {
	case DAT_DTO_RECEIVE:
	case DAT_DTO_RDMA_WRITE:
	case DAT_DTO_RDMA_READ:
		op = r->op;
		break;
	case KDAPL_POST_RDMA_READ_TO_RMR:
		op = DAT_DTO_RDMA_READ;
		break;
	case KDAPL_POST_RDMA_WRITE_IMMED:
		op = (DAT_DTOS)DAT_IB_DTO_RDMA_WRITE_IMMED;
		break;
	case KDAPL_POST_CMP_AND_SWAP:
		op = (DAT_DTOS)DAT_IB_DTO_CMP_SWAP;
		break;
	case KDAPL_POST_FETCH_AND_ADD:
		op = (DAT_DTOS)DAT_IB_DTO_FETCH_ADD;
		break;
	case KDAPL_POST_SEND_UD:
		op = (DAT_DTOS)DAT_IB_DTO_SEND_UD;
		break;
	default:
		op = DAT_DTO_SEND;
	}
	kdapl_ep_post_failed(&post->ufile->owner, post->ep, op, cookie,
			     kdapl_upost_status(ret));
}

/*
 * Take every record up to the head the process published.  Returns the
 * DAT_RETURN of the last record when @sync (its failure makes no event),
 * else DAT_SUCCESS; a head that is not within one ring of the tail is
 * refused with DAT_INVALID_STATE and nothing is taken.  post->lock held.
 */
static DAT_RETURN kdapl_upost_take(struct kdapl_upost *post, u32 head,
				   bool sync)
{
	struct kdapl_post_record r;
	DAT_RETURN ret = DAT_SUCCESS;

	if (head - post->tail > post->entries)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	while (post->tail != head) {
		u32 idx = post->tail++;

		if (!kdapl_upost_read(post, idx, &r))
			ret = dat_error(DAT_INVALID_PARAMETER, DAT_NO_SUBTYPE);
		else
			ret = kdapl_upost_one(post, &r);
		if (ret == DAT_SUCCESS) {
			if (kdapl_upost_signalled(r.op, r.flags))
				post->inflight++;
		} else if (!sync || post->tail != head) {
			kdapl_upost_fail(post, &r, ret);
			ret = DAT_SUCCESS;
		}
	}
	/* The records are read before the process may reuse their slots. */
	smp_store_release(&post->hdr->tail, post->tail);
	return ret;
}

/*
 * Drain the ring and tell the process whether a completion will make the
 * kernel look again.  The flag is cleared only behind a full barrier and
 * a last look at the head, which pairs with the process's barrier between
 * publishing its head and reading the flag: either the kernel sees the
 * record or the process sees the flag clear and rings.  post->lock held.
 */
static DAT_RETURN kdapl_upost_drain(struct kdapl_upost *post, bool sync)
{
	DAT_RETURN ret;
	u32 head;

	if (post->dead)
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	/* Pairs with the process's release: records before it are written. */
	head = smp_load_acquire(&post->hdr->head);
	for (;;) {
		ret = kdapl_upost_take(post, head, sync);
		if (post->inflight) {
			WRITE_ONCE(post->hdr->flags, KDAPL_POST_KERNEL_POLLS);
			return ret;
		}
		WRITE_ONCE(post->hdr->flags, 0);
		/* Flag cleared before the head is read: see above. */
		smp_mb();
		/* As above: the records before the head are written. */
		head = smp_load_acquire(&post->hdr->head);
		if (head == post->tail || ret != DAT_SUCCESS)
			return ret;
		sync = false;
	}
}

/**
 * kdapl_upost_doorbell() - KDAPL_IOC_EP_POST on a post ring
 * @post: the ring, with a reference held by the caller
 * @sync: report the last record's DAT_RETURN instead of an event
 * @tail: out: the consumer index at return
 *
 * Context: process context.
 * Return: DAT_SUCCESS, the last record's error with @sync, or
 * DAT_INVALID_STATE for a head more than a ring ahead.
 */
DAT_RETURN kdapl_upost_doorbell(struct kdapl_upost *post, bool sync,
				u32 *tail)
{
	unsigned long flags;
	DAT_RETURN ret;
	u32 before;

	/*
	 * A driver may leave the work of a post to a softirq (rxe schedules
	 * its requester tasklet for a kernel QP).  Raised in process
	 * context, a softirq waits for ksoftirqd to be scheduled;
	 * local_bh_enable() runs it here, before the call returns.
	 */
	local_bh_disable();
	spin_lock_irqsave(&post->lock, flags);
	before = post->tail;
	ret = kdapl_upost_drain(post, sync);
	*tail = post->tail;
	trace_kdapl_upost_drain((u64)(uintptr_t)post->ep, true,
				post->tail - before, post->inflight, ret);
	spin_unlock_irqrestore(&post->lock, flags);
	local_bh_enable();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_upost_doorbell);

/**
 * kdapl_upost_completed() - a request of the ring's EP completed
 * @post: the ring
 *
 * Called by the sink of the EP's request EVD for every request
 * completion event: takes what the process queued meanwhile.
 *
 * Context: the sink's (bottom halves disabled for DTO EVDs).
 */
void kdapl_upost_completed(struct kdapl_upost *post)
{
	unsigned long flags;
	DAT_RETURN ret;
	u32 before;

	spin_lock_irqsave(&post->lock, flags);
	if (post->inflight)
		post->inflight--;
	before = post->tail;
	ret = kdapl_upost_drain(post, false);
	if (post->tail != before)
		trace_kdapl_upost_drain((u64)(uintptr_t)post->ep, false,
					post->tail - before, post->inflight,
					ret);
	spin_unlock_irqrestore(&post->lock, flags);
}

/**
 * kdapl_upost_get() - the post ring of an EP of a file, by the EP's id
 * @ufile: the file
 * @id: the EP's id
 *
 * Does not take the file's lock (mmap() and the doorbell call it).
 *
 * Context: any context.
 * Return: the ring with a reference, or NULL if @id is no EP of the file
 * with a ring.
 */
struct kdapl_upost *kdapl_upost_get(struct kdapl_ufile *ufile, u32 id)
{
	struct kdapl_upost *post = NULL;
	struct kdapl_uobj *uobj;

	rcu_read_lock();
	uobj = xa_load(&ufile->objs, id);
	if (uobj && uobj->type == DAT_HANDLE_TYPE_EP) {
		/* Pairs with the release that published the ring. */
		post = smp_load_acquire(&uobj->post);
		if (post && !kref_get_unless_zero(&post->ref))
			post = NULL;
	}
	rcu_read_unlock();
	return post;
}

/**
 * kdapl_upost_detach() - the EP of a post ring was freed
 * @uobj: the file's EP object, about to go
 *
 * Context: process context.
 */
void kdapl_upost_detach(struct kdapl_uobj *uobj)
{
	struct kdapl_upost *post = uobj->post;
	unsigned long flags;

	spin_lock_irqsave(&post->lock, flags);
	post->dead = true;
	spin_unlock_irqrestore(&post->lock, flags);
	WRITE_ONCE(uobj->post, NULL);
	kdapl_upost_put(post);
}

/* The ring's dimensions for an EP's attributes. */
static void kdapl_upost_dims(const DAT_EP_ATTR *a, u32 *entries, u32 *max_iov)
{
	u32 dtos = clamp_t(u32, a->max_recv_dtos + a->max_request_dtos,
			   16, 4096);
	u32 iov = max(max(a->max_recv_iov, a->max_request_iov),
		      max(a->max_rdma_read_iov, a->max_rdma_write_iov));

	*entries = roundup_pow_of_two(dtos);
	*max_iov = clamp_t(u32, iov, 1, KDAPL_POST_IOV_MAX);
}

/* Give EP @uobj its post ring; ufile->lock held. */
static DAT_RETURN kdapl_upost_add(struct kdapl_ufile *ufile,
				  struct kdapl_uobj *uobj)
{
	struct kdapl_upost *post;
	DAT_EP_PARAM *param;
	u32 entries, max_iov;
	DAT_RETURN ret;

	param = kzalloc(sizeof(*param), GFP_KERNEL);
	if (!param)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	ret = kdapl_ep_query(&ufile->owner, uobj->handle, DAT_EP_FIELD_ALL,
			     param);
	if (!ret) {
		kdapl_upost_dims(&param->ep_attr, &entries, &max_iov);
		post = kdapl_upost_create(ufile, uobj->handle, entries,
					  max_iov);
		if (post)
			/* Complete before lookups under RCU can find it. */
			smp_store_release(&uobj->post, post);
		else
			ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY);
	}
	kfree(param);
	return ret;
}

/**
 * kdapl_upost_ep_ring() - KDAPL_IOC_EP_RING: an EP's post ring
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_ring
 * @status: out: the DAT_RETURN
 *
 * Creates the ring on the first call: EPs that never post (connection
 * tests make thousands) cost no ring.
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_upost_ep_ring(struct kdapl_ufile *ufile, void *arg,
			DAT_RETURN *status)
{
	struct kdapl_ioc_ep_ring *a = arg;
	struct kdapl_uobj *uobj;
	struct kdapl_upost *post;

	uobj = kdapl_uobj_find(ufile, a->ep_id, DAT_HANDLE_TYPE_EP);
	if (!uobj) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		return 0;
	}
	*status = uobj->post ? DAT_SUCCESS : kdapl_upost_add(ufile, uobj);
	if (*status)
		return 0;
	post = uobj->post;
	a->entries = post->entries;
	a->stride = post->stride;
	a->max_iov = post->max_iov;
	a->ring_size = post->size;
	a->ring_offset = (u64)uobj->id << PAGE_SHIFT;
	return 0;
}

/**
 * kdapl_upost_ep_post() - KDAPL_IOC_EP_POST: ring an EP's doorbell
 * @ufile: the file
 * @arg: struct kdapl_ioc_ep_post
 * @status: out: the DAT_RETURN
 *
 * Runs without the file's lock: threads posting on different EPs do not
 * wait for each other or for a create.
 *
 * Context: process context.
 * Return: 0, or -EINVAL for unknown flags.
 */
int kdapl_upost_ep_post(struct kdapl_ufile *ufile, void *arg,
			DAT_RETURN *status)
{
	struct kdapl_ioc_ep_post *a = arg;
	struct kdapl_upost *post;

	if ((a->flags & ~KDAPL_POST_SYNC) || a->reserved)
		return -EINVAL;
	post = kdapl_upost_get(ufile, a->ep_id);
	if (!post) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		return 0;
	}
	*status = kdapl_upost_doorbell(post, a->flags & KDAPL_POST_SYNC,
				       &a->tail);
	kdapl_upost_put(post);
	return 0;
}

static void kdapl_upost_vm_open(struct vm_area_struct *vma)
{
	struct kdapl_upost *post = vma->vm_private_data;

	kref_get(&post->ref);
}

static void kdapl_upost_vm_close(struct vm_area_struct *vma)
{
	kdapl_upost_put(vma->vm_private_data);
}

static const struct vm_operations_struct kdapl_upost_vm_ops = {
	.open = kdapl_upost_vm_open,
	.close = kdapl_upost_vm_close,
};

/**
 * kdapl_upost_mmap() - map a post ring
 * @post: the ring, with a reference the mapping takes over on success
 * @vma: the whole ring, shared; a fork does not copy it
 *
 * Context: process context, mmap lock held.
 * Return: 0, or the error of kdapl_uring_map().
 */
int kdapl_upost_mmap(struct kdapl_upost *post, struct vm_area_struct *vma)
{
	return kdapl_uring_map(vma, post->hdr, post->size, &kdapl_upost_vm_ops,
			       post);
}
