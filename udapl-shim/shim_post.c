// SPDX-License-Identifier: GPL-2.0
/*
 * Posts: work requests go into the EP's post ring, mapped on the first
 * post.  The doorbell (one ioctl) is rung when the kernel is not polling
 * the ring, for every receive, and when the ring is full; while a request
 * of the EP is outstanding the kernel takes new records when it
 * completes, so a stream of requests costs no system call per post, and
 * a program that posts and then only polls memory still progresses.
 *
 * Ordering (see Documentation/userapi.rst): the record is written, the
 * head stored with release semantics, then a full barrier orders that
 * store before the load of the kernel's flag, pairing with the kernel's
 * barrier between clearing the flag and its last look at the head.
 *
 * Receives always ring: a receive waiting behind a request whose
 * completion needs the peer's receive, while the peer's receive waits the
 * same way, would deadlock both sides.
 *
 * The IB extensions (shim_ext.c) post through the same path: their
 * records are requests like an RDMA Write's.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "shim.h"

/* The records carry DAT's triplets as they are. */
static_assert(sizeof(struct kdapl_post_sge) == sizeof(DAT_LMR_TRIPLET),
	      "LMR triplet layout");
static_assert(offsetof(DAT_LMR_TRIPLET, lmr_context) ==
	      offsetof(struct kdapl_post_sge, context), "lmr_context");
static_assert(offsetof(DAT_LMR_TRIPLET, segment_length) ==
	      offsetof(struct kdapl_post_sge, segment_length),
	      "segment_length");
static_assert(sizeof(struct kdapl_post_sge) == sizeof(DAT_RMR_TRIPLET),
	      "RMR triplet layout");
static_assert(offsetof(DAT_RMR_TRIPLET, rmr_context) ==
	      offsetof(struct kdapl_post_sge, context), "rmr_context");
/* An atomic's operands fit where a segment would be. */
static_assert(sizeof(struct kdapl_post_atomic) <=
	      sizeof(struct kdapl_post_sge), "atomic operands");

/* Map the EP's post ring; ep->lock held. */
static DAT_RETURN shim_post_map(struct shim_ep *ep)
{
	struct kdapl_ioc_ep_ring r = { .ep_id = ep->obj.id };
	DAT_RETURN ret;
	void *map;

	ret = SHIM_CALL(ep->obj.ia, EP_RING, r);
	if (ret != DAT_SUCCESS)
		return ret;
	map = mmap(NULL, r.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ep->obj.ia->fd, r.ring_offset);
	if (map == MAP_FAILED)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	ep->hdr = map;
	ep->rec = (char *)map + KDAPL_POST_RECORDS;
	ep->map_size = r.ring_size;
	ep->entries = r.entries;
	ep->stride = r.stride;
	ep->max_iov = r.max_iov;
	ep->head = __atomic_load_n(&ep->hdr->head, __ATOMIC_RELAXED);
	return DAT_SUCCESS;
}

/**
 * shim_post_unmap() - unmap the post ring of a freed EP
 * @ep: the EP
 */
void shim_post_unmap(struct shim_ep *ep)
{
	if (ep->hdr)
		munmap(ep->hdr, ep->map_size);
	ep->hdr = NULL;
}

/* Ring the doorbell; ep->lock held. */
static DAT_RETURN shim_post_ring(struct shim_ep *ep, __u32 flags)
{
	struct kdapl_ioc_ep_post p = { .ep_id = ep->obj.id, .flags = flags };

	__atomic_add_fetch(&ep->obj.ia->doorbells, 1, __ATOMIC_RELAXED);
	return SHIM_CALL(ep->obj.ia, EP_POST, p);
}

/* Does a record of the ring hold an atomic's operands beside its segment? */
static bool shim_post_holds_atomic(const struct shim_ep *ep)
{
	return offsetof(struct kdapl_post_record, sge) +
	       2 * sizeof(struct kdapl_post_sge) <= ep->stride;
}

/* Write one record at the head and publish it; ep->lock held. */
static void shim_post_write(struct shim_ep *ep, const struct shim_wr *wr)
{
	struct kdapl_post_record *r;

	r = (void *)(ep->rec + (size_t)(ep->head & (ep->entries - 1)) *
			       ep->stride);
	r->op = wr->op;
	r->num_segments = wr->n;
	r->flags = wr->flags;
	r->imm_data = wr->imm_data;
	r->cookie = wr->cookie.as_64;
	if (wr->remote)
		memcpy(&r->remote, wr->remote, sizeof(r->remote));
	if (wr->n)
		memcpy(r->sge, wr->iov, wr->n * sizeof(r->sge[0]));
	/* The operands take the place of the second segment. */
	if (wr->atomic)
		memcpy(&r->sge[1], wr->atomic, sizeof(*wr->atomic));
	ep->head++;
	__atomic_store_n(&ep->hdr->head, ep->head, __ATOMIC_RELEASE);
}

/* Check a request against the EP's ring, mapping it first; ep->lock held. */
static DAT_RETURN shim_post_fits(struct shim_ep *ep, const struct shim_wr *wr)
{
	DAT_RETURN ret = DAT_SUCCESS;

	if (!ep->hdr)
		ret = shim_post_map(ep);
	if (ret != DAT_SUCCESS)
		return ret;
	if ((__u32)wr->n > ep->max_iov)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	/* A module whose records have no room for the operands. */
	if (wr->atomic && !shim_post_holds_atomic(ep))
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}

/**
 * shim_post_wr() - queue one work request, ringing if the kernel will not
 *	look
 * @ep: the EP
 * @wr: the request; the caller checked the arguments of its operation
 *	(its remote segment, flags and operands)
 *
 * Return: DAT_SUCCESS, or the error of the arguments, of the mapping of
 * the ring or of the doorbell.
 */
DAT_RETURN shim_post_wr(struct shim_ep *ep, const struct shim_wr *wr)
{
	DAT_RETURN ret;
	__u32 tail;

	if (wr->n < 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (wr->n && !wr->iov)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	pthread_mutex_lock(&ep->lock);
	ret = shim_post_fits(ep, wr);
	if (ret != DAT_SUCCESS)
		goto out;
	tail = __atomic_load_n(&ep->hdr->tail, __ATOMIC_ACQUIRE);
	if (ep->head - tail >= ep->entries) {
		/* Full: the kernel takes every record before it returns. */
		ret = shim_post_ring(ep, 0);
		if (ret != DAT_SUCCESS)
			goto out;
	}
	shim_post_write(ep, wr);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (wr->op == DAT_DTO_RECEIVE ||
	    !(__atomic_load_n(&ep->hdr->flags, __ATOMIC_RELAXED) &
	      KDAPL_POST_KERNEL_POLLS))
		ret = shim_post_ring(ep, KDAPL_POST_SYNC);
out:
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/* Queue one plain work request on the EP of a handle. */
static DAT_RETURN shim_post(DAT_EP_HANDLE handle, __u32 op, DAT_COUNT n,
			    const DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    const DAT_RMR_TRIPLET *remote,
			    DAT_COMPLETION_FLAGS flags)
{
	struct shim_ep *ep = (struct shim_ep *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_EP);
	struct shim_wr wr = {
		.op = op, .n = n, .iov = iov, .cookie = cookie,
		.remote = remote, .flags = flags,
	};

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	return shim_post_wr(ep, &wr);
}

DAT_RETURN shim_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT n,
			     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			     DAT_COMPLETION_FLAGS flags)
{
	if (flags & ~SHIM_POST_FLAGS)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return shim_post(ep, DAT_DTO_SEND, n, iov, cookie, NULL, flags);
}

DAT_RETURN shim_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT n,
			     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			     DAT_COMPLETION_FLAGS flags)
{
	if (flags & ~DAT_COMPLETION_UNSIGNALLED_FLAG)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return shim_post(ep, DAT_DTO_RECEIVE, n, iov, cookie, NULL, flags);
}

/* The argument checks of both RDMA operations. */
static DAT_RETURN shim_post_rdma(DAT_EP_HANDLE ep, DAT_DTOS op, DAT_COUNT n,
				 DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				 const DAT_RMR_TRIPLET *remote,
				 DAT_COMPLETION_FLAGS flags)
{
	if (!remote)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (flags & ~SHIM_POST_FLAGS)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	return shim_post(ep, op, n, iov, cookie, remote, flags);
}

DAT_RETURN shim_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT n,
				  DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				  const DAT_RMR_TRIPLET *remote,
				  DAT_COMPLETION_FLAGS flags)
{
	return shim_post_rdma(ep, DAT_DTO_RDMA_READ, n, iov, cookie, remote,
			      flags);
}

DAT_RETURN shim_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT n,
				   DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				   const DAT_RMR_TRIPLET *remote,
				   DAT_COMPLETION_FLAGS flags)
{
	return shim_post_rdma(ep, DAT_DTO_RDMA_WRITE, n, iov, cookie, remote,
			      flags);
}

/*
 * A Send that invalidates the peer's RMR: without invalidate_flag, a
 * plain Send.  DAT_NOT_IMPLEMENTED on a module without the RMR records.
 */
DAT_RETURN shim_ep_post_send_with_invalidate(DAT_EP_HANDLE handle, DAT_COUNT n,
					     DAT_LMR_TRIPLET *iov,
					     DAT_DTO_COOKIE cookie,
					     DAT_COMPLETION_FLAGS flags,
					     DAT_BOOLEAN invalidate,
					     DAT_RMR_CONTEXT rmr_context)
{
	struct shim_obj *ep = shim_obj_get(handle, DAT_HANDLE_TYPE_EP);
	DAT_RMR_TRIPLET inv = { .rmr_context = rmr_context };

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (flags & ~SHIM_POST_FLAGS)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (invalidate != DAT_TRUE && invalidate != DAT_FALSE)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (!invalidate)
		return shim_post(handle, DAT_DTO_SEND, n, iov, cookie, NULL,
				 flags);
	if (!shim_rmr_supported(ep->ia))
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	return shim_post(handle, KDAPL_POST_SEND_INVALIDATE, n, iov, cookie,
			 &inv, flags);
}

/* An RDMA Read into a bound RMR: its triplet is the record's segment. */
DAT_RETURN shim_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE handle,
					 const DAT_RMR_TRIPLET *local,
					 DAT_DTO_COOKIE cookie,
					 const DAT_RMR_TRIPLET *remote,
					 DAT_COMPLETION_FLAGS flags)
{
	struct shim_obj *ep = shim_obj_get(handle, DAT_HANDLE_TYPE_EP);

	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (!local)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!remote)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (flags & ~SHIM_POST_FLAGS)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (!shim_rmr_supported(ep->ia))
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	return shim_post(handle, KDAPL_POST_RDMA_READ_TO_RMR, 1,
			 (const DAT_LMR_TRIPLET *)local, cookie, remote,
			 flags);
}
