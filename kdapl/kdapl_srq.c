// SPDX-License-Identifier: GPL-2.0
/*
 * kDAT Shared Receive Queues.
 *
 * An SRQ is an ib_srq of the SRQ's PZ plus one receive context per
 * receive the SRQ may hold.  A context carries the consumer's cookie from
 * dat_srq_post_recv() to the completion; contexts are allocated when the
 * SRQ is created or grown, never when posting, so posting works in any
 * context.  See Documentation/srq.rst.
 *
 * Locking: the IA lock serialises create, resize, set_lw and free (and
 * protects @spare_recvs and @chunks); the SRQ spinlock protects the free
 * list, the counters, the state and the ib_srq pointer against posts and
 * completions, which run in any context.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/overflow.h>
#include <linux/slab.h>

#include "kdapl.h"

/*
 * DAT 2.0 defines no event number of its own for SRQ events: the SRQ
 * reasons (DAT_SRQ_*) travel in the asynchronous error event data with
 * the SRQ handle.  Of the asynchronous event numbers only this one is not
 * tied to another object (EVD, IA, EP) or condition (time-out).
 */
#define KDAPL_SRQ_ASYNC_EVENT	DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR

/**
 * struct kdapl_srq_chunk - memory of receive contexts
 * @entry: link in &kdapl_srq.chunks
 * @count: contexts in @recvs
 * @recvs: the contexts, followed by max_recv_iov LMR pointers for each
 */
struct kdapl_srq_chunk {
	struct list_head entry;
	u32 count;
	struct kdapl_srq_recv recvs[];
};

/*
 * Report a completed receive to the EVD of the CQ it was polled from (the
 * receive EVD of the EP whose QP took it from the SRQ, found by its
 * QP).  A receive whose LMR was freed meanwhile fails with a
 * protection error.  The completion of a QP that has left the SRQ (its
 * connection is being torn down) reports nothing.
 */
static void kdapl_srq_report(struct ib_cq *cq, struct ib_wc *wc,
			     DAT_DTO_COOKIE cookie, bool dead)
{
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	struct kdapl_srq_recv *recv =
		container_of(wc->wr_cqe, struct kdapl_srq_recv, cqe);
	struct kdapl_evd *evd = cq->cq_context;
	struct kdapl_ep *ep;
	DAT_EVENT event = {};

	/*
	 * wc->qp is a key, never followed: the QP may be destroyed by the
	 * time its completion is polled.
	 */
	rcu_read_lock();
	ep = xa_load(&recv->srq->qps, (unsigned long)wc->qp);
	if (!ep)
		goto out;
	if (evd) {
		event.event_number = DAT_DTO_COMPLETION_EVENT;
		dto = &event.event_data.dto_completion_event_data;
		dto->ep_handle = kdapl_object_handle(&ep->obj);
		dto->user_cookie = cookie;
		dto->status = dead ? DAT_DTO_ERR_LOCAL_PROTECTION :
				     kdapl_dto_status(wc->status);
		dto->operation = DAT_DTO_RECEIVE;
		if (wc->status == IB_WC_SUCCESS && !dead) {
			dto->transfered_length = wc->byte_len;
			if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
				dto->operation =
					DAT_DTO_RECEIVE_WITH_INVALIDATE;
				dto->rmr_context = wc->ex.invalidate_rkey;
			}
			kdapl_dto_recv_immed(&event, wc);
			kdapl_dto_count_recv(ep, wc);
		}
		kdapl_evd_count(evd, DCNT_EVD_DTO_CALLBACK);
		kdapl_evd_deliver(evd, &event);
	}
	kdapl_dto_check_qp(ep, wc);
out:
	rcu_read_unlock();
}

/*
 * A zero-byte receive that was the first message of an iWARP initiator
 * (kdapl_conn_srq_rtr()) is kdapl's: post it again, for the consumer.
 * Returns true if it went back to the SRQ.
 */
static bool kdapl_srq_rtr(struct kdapl_srq *srq, struct kdapl_srq_recv *recv,
			  const struct ib_wc *wc)
{
	struct ib_recv_wr wr = {
		.wr_cqe = &recv->cqe,
		.sg_list = recv->nlmr ? recv->sge : NULL,
		.num_sge = recv->nlmr,
	};
	struct kdapl_ep *ep;
	unsigned long flags;
	bool taken;
	int err;

	if (wc->status != IB_WC_SUCCESS)
		return false;
	rcu_read_lock();
	ep = xa_load(&srq->qps, (unsigned long)wc->qp);
	taken = ep && kdapl_conn_srq_rtr(ep, wc);
	rcu_read_unlock();
	if (!taken)
		return false;
	spin_lock_irqsave(&srq->lock, flags);
	err = srq->srq ? ib_post_srq_recv(srq->srq, &wr, NULL) : -ENODEV;
	spin_unlock_irqrestore(&srq->lock, flags);
	return !err;
}

/* Completion of a receive taken from the SRQ; CQ context. */
static void kdapl_srq_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kdapl_srq_recv *recv =
		container_of(wc->wr_cqe, struct kdapl_srq_recv, cqe);
	struct kdapl_srq *srq = recv->srq;
	DAT_DTO_COOKIE cookie = recv->cookie;
	bool dead = READ_ONCE(recv->dead);
	unsigned long flags;

	if (unlikely(!wc->byte_len) && !dead && kdapl_srq_rtr(srq, recv, wc))
		return;

	/* The context is reused once back on the free list: sync first. */
	if (recv->sync && !dead && wc->status == IB_WC_SUCCESS)
		kdapl_lmr_sync_sges(recv->lmrs, recv->sge, recv->nlmr, true);
	spin_lock_irqsave(&srq->lock, flags);
	recv->posted = false;
	list_add(&recv->entry, &srq->free_recvs);
	atomic_dec(&srq->posted);
	spin_unlock_irqrestore(&srq->lock, flags);

	kdapl_stat_inc(srq->obj.ia->adapter,
		       wc->status == IB_WC_SUCCESS && !dead ?
		       KDAPL_STAT_COMPLETIONS : KDAPL_STAT_COMPLETION_ERRORS);
	kdapl_srq_report(cq, wc, cookie, dead);
}

/*
 * Allocate @count receive contexts; they are linked on @list, the chunk
 * is returned for &kdapl_srq.chunks.  Sized by the consumer: charged to
 * its memory cgroup.  Process context.
 */
static struct kdapl_srq_chunk *kdapl_srq_alloc_chunk(struct kdapl_srq *srq,
						     u32 count,
						     struct list_head *list)
{
	size_t iov = srq->max_recv_iov, size;
	struct kdapl_srq_chunk *chunk;
	struct kdapl_lmr **lmrs;
	struct ib_sge *sge;
	u32 i;

	/* The contexts, then their segments, then their LMRs. */
	size = struct_size(chunk, recvs, count);
	if (check_add_overflow(size, array3_size(count, iov, sizeof(*sge)),
			       &size) ||
	    check_add_overflow(size, array3_size(count, iov, sizeof(*lmrs)),
			       &size))
		return NULL;
	chunk = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!chunk)
		return NULL;
	chunk->count = count;
	sge = (struct ib_sge *)&chunk->recvs[count];
	lmrs = (struct kdapl_lmr **)(sge + (size_t)count * iov);
	for (i = 0; i < count; i++) {
		struct kdapl_srq_recv *recv = &chunk->recvs[i];

		recv->cqe.done = kdapl_srq_recv_done;
		recv->srq = srq;
		recv->sge = sge + (size_t)i * iov;
		recv->lmrs = lmrs + (size_t)i * iov;
		list_add_tail(&recv->entry, list);
	}
	return chunk;
}

static void kdapl_srq_free_chunks(struct kdapl_srq *srq)
{
	struct kdapl_srq_chunk *chunk, *next;

	list_for_each_entry_safe(chunk, next, &srq->chunks, entry) {
		list_del(&chunk->entry);
		kvfree(chunk);
	}
}

static void kdapl_srq_event(struct ib_event *event, void *context)
{
	struct kdapl_srq *srq = context;
	unsigned long flags;

	switch (event->event) {
	case IB_EVENT_SRQ_LIMIT_REACHED:
		kdapl_ia_async_event(srq->obj.ia, KDAPL_SRQ_ASYNC_EVENT,
				     kdapl_object_handle(&srq->obj),
				     DAT_SRQ_LOW_WATERMARK_EVENT);
		break;
	case IB_EVENT_SRQ_ERR:
		spin_lock_irqsave(&srq->lock, flags);
		srq->state = DAT_SRQ_STATE_ERROR;
		spin_unlock_irqrestore(&srq->lock, flags);
		kdapl_ia_async_event(srq->obj.ia, KDAPL_SRQ_ASYNC_EVENT,
				     kdapl_object_handle(&srq->obj),
				     DAT_SRQ_TRANSFER_TO_ERROR);
		break;
	default:
		break;
	}
}

/*
 * Destroy the ib_srq and take back every receive context; the SRQ ends in
 * @state.  An SRQ no QP uses (no EP holds it) produces no completion for
 * the receives it still holds: they are discarded here.  Idempotent.
 * Called with the IA lock held.
 */
static void kdapl_srq_destroy(struct kdapl_srq *srq, DAT_SRQ_STATE state)
{
	struct ib_srq *ibsrq;
	unsigned long flags;

	lockdep_assert_held(&srq->obj.ia->lock);
	spin_lock_irqsave(&srq->lock, flags);
	ibsrq = srq->srq;
	srq->srq = NULL;
	srq->state = state;
	spin_unlock_irqrestore(&srq->lock, flags);

	if (ibsrq)
		ib_destroy_srq(ibsrq);

	spin_lock_irqsave(&srq->lock, flags);
	INIT_LIST_HEAD(&srq->free_recvs);
	atomic_set(&srq->posted, 0);
	spin_unlock_irqrestore(&srq->lock, flags);
	INIT_LIST_HEAD(&srq->spare_recvs);
	kdapl_srq_free_chunks(srq);
}

/* Everything dat_srq_free() does once it is allowed; IA lock held. */
static void kdapl_srq_teardown(struct kdapl_srq *srq)
{
	struct kdapl_ia *ia = srq->obj.ia;

	lockdep_assert_held(&ia->lock);
	kdapl_srq_destroy(srq, DAT_SRQ_STATE_SHUTDOWN);
	kdapl_unuse(&srq->pz->obj);
	kdapl_ia_del_object(ia, &srq->obj);
}

static void kdapl_srq_force_free(struct kdapl_object *obj)
{
	struct kdapl_srq *srq = container_of(obj, struct kdapl_srq, obj);

	/* EPs are freed before SRQs: nothing should use it any more. */
	WARN_ON_ONCE(obj->users);
	kdapl_object_unpublish(obj);
	kdapl_srq_teardown(srq);
}

/*
 * The device is going away: its SRQ goes, posted receives are discarded;
 * the DAT object stays, in error, until the consumer frees it.
 */
static void kdapl_srq_detach(struct kdapl_object *obj)
{
	kdapl_srq_destroy(container_of(obj, struct kdapl_srq, obj),
			  DAT_SRQ_STATE_ERROR);
}

static void kdapl_srq_release(struct kdapl_object *obj)
{
	struct kdapl_srq *srq = container_of(obj, struct kdapl_srq, obj);

	if (srq->pz)
		kdapl_object_put(&srq->pz->obj);
	xa_destroy(&srq->qps);
	kfree_rcu(srq, obj.rcu);
}

const struct kdapl_type_ops kdapl_srq_type = {
	.name = "srq",
	.bad_handle = DAT_INVALID_HANDLE_SRQ,
	.close_rank = 40,
	.free = kdapl_srq_force_free,
	.detach = kdapl_srq_detach,
	.release = kdapl_srq_release,
};
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_type);

/*
 * The error for an SRQ without its ib_srq: being freed (SHUTDOWN) or
 * detached from a device that went away (ERROR).
 */
static DAT_RETURN kdapl_srq_no_device(struct kdapl_srq *srq)
{
	return dat_error(DAT_INVALID_STATE,
			 READ_ONCE(srq->state) == DAT_SRQ_STATE_SHUTDOWN ?
			 DAT_INVALID_STATE_SRQ_SHUTDOWN :
			 DAT_INVALID_STATE_SRQ_ERROR);
}

static DAT_RETURN kdapl_srq_errno(int err)
{
	switch (err) {
	case -EOPNOTSUPP:
		return dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	case -ENOMEM:
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	default:
		return dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
	}
}

static bool kdapl_srq_attr_valid(const DAT_SRQ_ATTR *attr,
				 const struct ib_device_attr *dev)
{
	return attr->max_recv_dtos > 0 &&
	       attr->max_recv_dtos <= dev->max_srq_wr &&
	       attr->max_recv_iov > 0 &&
	       attr->max_recv_iov <= dev->max_srq_sge &&
	       attr->low_watermark >= 0 &&
	       attr->low_watermark <= attr->max_recv_dtos;
}

/* Create the ib_srq and the contexts of @srq; IA lock held. */
static DAT_RETURN kdapl_srq_setup(struct kdapl_srq *srq, struct ib_pd *pd)
{
	struct ib_srq_init_attr init = {};
	struct ib_srq_attr query;
	struct kdapl_srq_chunk *chunk;
	LIST_HEAD(recvs);
	struct ib_srq *ibsrq;

	chunk = kdapl_srq_alloc_chunk(srq, srq->max_recv_dtos, &recvs);
	if (!chunk)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);

	init.event_handler = kdapl_srq_event;
	init.srq_context = srq;
	init.srq_type = IB_SRQT_BASIC;
	init.attr.max_wr = srq->max_recv_dtos;
	init.attr.max_sge = srq->max_recv_iov;
	init.attr.srq_limit = 0;
	ibsrq = ib_create_srq(pd, &init);
	if (IS_ERR(ibsrq)) {
		kvfree(chunk);
		return kdapl_srq_errno(PTR_ERR(ibsrq));
	}

	/* The device may round the queue up; growing within it is free. */
	srq->dev_max_wr = srq->max_recv_dtos;
	if (!ib_query_srq(ibsrq, &query) && query.max_wr > srq->dev_max_wr)
		srq->dev_max_wr = query.max_wr;

	srq->srq = ibsrq;
	list_add(&chunk->entry, &srq->chunks);
	list_splice(&recvs, &srq->free_recvs);
	return DAT_SUCCESS;
}

/*
 * May the IA's device take an SRQ of @srq_attr in @pz?  IA lock held.
 */
static DAT_RETURN kdapl_srq_create_check(struct kdapl_ia *ia,
					 struct kdapl_pz *pz,
					 const DAT_SRQ_ATTR *srq_attr)
{
	const struct ib_device_attr *dev;

	lockdep_assert_held(&ia->lock);
	if (!ia->ibdev || ia->closing || !pz->pd)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	dev = &ia->ibdev->attrs;
	if (dev->max_srq <= 0 || !ia->ibdev->ops.create_srq)
		return dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!kdapl_srq_attr_valid(srq_attr, dev))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return DAT_SUCCESS;
}

/* A new SRQ of @srq_attr in @pz, not set up yet; NULL without memory. */
static struct kdapl_srq *kdapl_srq_alloc(struct kdapl_ia *ia,
					 struct kdapl_pz *pz,
					 const DAT_SRQ_ATTR *srq_attr)
{
	struct kdapl_srq *srq = kzalloc(sizeof(*srq), GFP_KERNEL_ACCOUNT);

	if (!srq)
		return NULL;
	kdapl_object_init(&srq->obj, DAT_HANDLE_TYPE_SRQ, ia);
	spin_lock_init(&srq->lock);
	INIT_LIST_HEAD(&srq->free_recvs);
	INIT_LIST_HEAD(&srq->spare_recvs);
	INIT_LIST_HEAD(&srq->chunks);
	xa_init_flags(&srq->qps, XA_FLAGS_LOCK_IRQ);
	srq->pz = pz;	/* once published, the SRQ owns the reference */
	srq->state = DAT_SRQ_STATE_OPERATIONAL;
	srq->max_recv_dtos = srq_attr->max_recv_dtos;
	srq->max_recv_iov = srq_attr->max_recv_iov;
	srq->low_watermark = srq_attr->low_watermark;
	atomic_set(&srq->posted, 0);
	return srq;
}

/**
 * kdapl_srq_create() - dat_srq_create() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_srq_create()
 * @pz_handle: as for dat_srq_create()
 * @srq_attr: as for dat_srq_create()
 * @srq_handle: as for dat_srq_create()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_srq_create().
 * Return: as dat_srq_create().
 */
DAT_RETURN kdapl_srq_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    DAT_PZ_HANDLE pz_handle,
			    const DAT_SRQ_ATTR *srq_attr,
			    DAT_SRQ_HANDLE *srq_handle)
{
	struct kdapl_srq *srq = NULL;
	DAT_SRQ_HANDLE handle;
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	DAT_COUNT lw;
	DAT_RETURN ret;

	if (!srq_attr)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!srq_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);

	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;
	ret = kdapl_get(owner, pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
	if (ret)
		goto put_ia;
	if (pz->obj.ia != ia) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		goto put_pz;
	}

	mutex_lock(&ia->lock);
	ret = kdapl_srq_create_check(ia, pz, srq_attr);
	if (ret)
		goto unlock;
	srq = kdapl_srq_alloc(ia, pz, srq_attr);
	if (!srq) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto unlock;
	}
	ret = kdapl_srq_setup(srq, pz->pd);
	if (ret)
		goto free;
	if (kdapl_object_publish(&srq->obj)) {
		kdapl_srq_destroy(srq, DAT_SRQ_STATE_SHUTDOWN);
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto free;
	}
	kdapl_ia_add_object(ia, &srq->obj);
	kdapl_use(&pz->obj);
	handle = kdapl_object_handle(&srq->obj);
	lw = srq->low_watermark;
	/* Once unlocked the SRQ may be freed by another thread. */
	mutex_unlock(&ia->lock);

	*srq_handle = handle;
	/* Zero receives are below any low watermark. */
	if (lw != DAT_SRQ_LW_DEFAULT)
		kdapl_ia_async_event(ia, KDAPL_SRQ_ASYNC_EVENT, handle,
				     DAT_SRQ_LOW_WATERMARK_EVENT);
	kdapl_object_put(&ia->obj);
	return DAT_SUCCESS;

free:
	/* Never published: no reference to its IA, freed directly. */
	kfree(srq);
unlock:
	mutex_unlock(&ia->lock);
put_pz:
	kdapl_object_put(&pz->obj);
put_ia:
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_create);

/**
 * dat_srq_create() - create a Shared Receive Queue
 * @ia_handle: the IA
 * @pz_handle: PZ of the receive buffers; it stays in use while the SRQ
 *	exists
 * @srq_attr: requested attributes: @max_recv_dtos receives of at most
 *	@max_recv_iov segments, and @low_watermark (DAT_SRQ_LW_DEFAULT for
 *	none)
 * @srq_handle: where the new SRQ handle is stored
 *
 * The SRQ is created OPERATIONAL and empty, attached to no EP.  A low
 * watermark other than DAT_SRQ_LW_DEFAULT is armed at once and, as the
 * empty SRQ is below it, the low watermark event is generated at once
 * (DAT 2.0: consumers should create SRQs with DAT_SRQ_LW_DEFAULT and use
 * dat_srq_set_lw() later).
 *
 * Context: process context; takes the IA lock.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG3 if @srq_attr is NULL or an
 * attribute is out of range (@max_recv_dtos or @max_recv_iov not positive
 * or above the device limits, @low_watermark negative or above
 * @max_recv_dtos), DAT_INVALID_ARG4 if @srq_handle is NULL;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_IA or DAT_INVALID_HANDLE_PZ
 * for a bad IA or PZ handle (or a PZ of another IA);
 * DAT_INVALID_STATE if the IA lost its device or is being closed;
 * DAT_MODEL_NOT_SUPPORTED if the device has no SRQs;
 * DAT_INSUFFICIENT_RESOURCES with DAT_RESOURCE_MEMORY if memory runs out,
 * with DAT_RESOURCE_SRQ if the device refuses the SRQ.
 */
DAT_RETURN dat_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			  const DAT_SRQ_ATTR *srq_attr,
			  DAT_SRQ_HANDLE *srq_handle)
{
	return kdapl_srq_create(&kdapl_kernel_owner, ia_handle, pz_handle,
				srq_attr, srq_handle);
}
EXPORT_SYMBOL_GPL(dat_srq_create);

/*
 * Check the segments against the LMRs of the SRQ's PZ, record them and
 * their LMRs in @recv.  The SRQ lock is held and the SRQ is alive, so its
 * PZ is in use.
 */
static DAT_RETURN kdapl_srq_build_sge(struct kdapl_srq *srq,
				      struct kdapl_srq_recv *recv,
				      DAT_COUNT count,
				      const DAT_LMR_TRIPLET *iov)
{
	DAT_RETURN ret = DAT_SUCCESS;
	DAT_COUNT i;

	recv->sync = false;
	rcu_read_lock();
	for (i = 0; i < count; i++) {
		const DAT_LMR_TRIPLET *seg = &iov[i];
		struct kdapl_lmr *lmr;

		lmr = kdapl_pz_lmr_rcu(srq->pz, seg->lmr_context);
		if (!lmr) {
			ret = dat_error(DAT_PROTECTION_VIOLATION,
					DAT_PROTECTION_WRITE);
			break;
		}
		if (!(lmr->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG)) {
			ret = dat_error(DAT_PRIVILEGES_VIOLATION,
					DAT_PRIVILEGES_WRITE);
			break;
		}
		if (!kdapl_lmr_covers(lmr, seg->virtual_address,
				      seg->segment_length)) {
			ret = dat_error(DAT_INVALID_PARAMETER,
					DAT_INVALID_ARG3);
			break;
		}
		kdapl_lmr_sge(lmr, seg, &recv->sge[i]);
		recv->lmrs[i] = lmr;
		recv->sync |= lmr->need_sync;
	}
	rcu_read_unlock();
	recv->nlmr = ret ? 0 : count;
	return ret;
}

/**
 * kdapl_srq_attach_qp() - a QP of an EP takes its receives from an SRQ
 * @srq: the SRQ
 * @qp: the QP, just created on it
 * @ep: the EP of the QP
 *
 * Receive completions find their EP by QP from now on (the pointer as
 * a key, which stays usable once the QP is destroyed).
 *
 * Context: process context, the IA lock held.
 * Return: 0 or -ENOMEM.
 */
int kdapl_srq_attach_qp(struct kdapl_srq *srq, struct ib_qp *qp,
			struct kdapl_ep *ep)
{
	return xa_insert_irq(&srq->qps, (unsigned long)qp, ep, GFP_KERNEL);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_attach_qp);

/**
 * kdapl_srq_detach_qp() - a QP of an SRQ is about to be destroyed
 * @srq: the SRQ
 * @qp: the QP
 *
 * Completions still polled for it report nothing: its EP may be going.
 *
 * Context: process context.
 */
void kdapl_srq_detach_qp(struct kdapl_srq *srq, struct ib_qp *qp)
{
	xa_erase_irq(&srq->qps, (unsigned long)qp);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_detach_qp);

/**
 * kdapl_srq_forget_lmr() - an LMR is being freed
 * @srq: an SRQ of the LMR's IA
 * @lmr: the LMR, no longer found by posts
 *
 * A receive the SRQ holds that references @lmr cannot be taken back from
 * the device: no QP may take it any more.  The SRQ goes to the error
 * state (posts and new EPs are refused, DAT_SRQ_TRANSFER_TO_ERROR is
 * reported) and the connection of every EP using it is broken, its QP
 * drained; such a receive, were it completed meanwhile, reports a
 * protection error.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_srq_forget_lmr(struct kdapl_srq *srq, const struct kdapl_lmr *lmr)
{
	struct kdapl_srq_chunk *chunk;
	struct kdapl_object *obj;
	bool found = false;
	unsigned long flags;
	u32 i;
	u16 j;

	lockdep_assert_held(&srq->obj.ia->lock);
	spin_lock_irqsave(&srq->lock, flags);
	list_for_each_entry(chunk, &srq->chunks, entry) {
		for (i = 0; i < chunk->count; i++) {
			struct kdapl_srq_recv *recv = &chunk->recvs[i];

			if (!recv->posted)
				continue;
			for (j = 0; j < recv->nlmr; j++) {
				if (recv->lmrs[j] != lmr)
					continue;
				WRITE_ONCE(recv->dead, true);
				found = true;
			}
		}
	}
	if (found)
		srq->state = DAT_SRQ_STATE_ERROR;
	spin_unlock_irqrestore(&srq->lock, flags);
	if (!found)
		return;
	/* The cause first, then each EP's Last WQE Reached (kdapl_cm.c). */
	kdapl_ia_async_event(srq->obj.ia, KDAPL_SRQ_ASYNC_EVENT,
			     kdapl_object_handle(&srq->obj),
			     DAT_SRQ_TRANSFER_TO_ERROR);
	list_for_each_entry(obj, &srq->obj.ia->objects, ia_entry)
		if (obj->type == DAT_HANDLE_TYPE_EP &&
		    container_of(obj, struct kdapl_ep, obj)->srq == srq)
			kdapl_cm_ep_break(container_of(obj, struct kdapl_ep,
						       obj));
}

/**
 * kdapl_srq_post_recv() - dat_srq_post_recv() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @srq_handle: as for dat_srq_post_recv()
 * @num_segments: as for dat_srq_post_recv()
 * @local_iov: as for dat_srq_post_recv()
 * @user_cookie: as for dat_srq_post_recv()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_srq_post_recv().
 * Return: as dat_srq_post_recv().
 */
DAT_RETURN kdapl_srq_post_recv(struct kdapl_owner *owner,
			       DAT_SRQ_HANDLE srq_handle,
			       DAT_COUNT num_segments,
			       const DAT_LMR_TRIPLET *local_iov,
			       DAT_DTO_COOKIE user_cookie)
{
	struct kdapl_srq_recv *recv;
	struct ib_recv_wr wr = {};
	struct kdapl_srq *srq;
	unsigned long flags;
	DAT_RETURN ret;
	int err;

	ret = kdapl_get(owner, srq_handle, SRQ, DAT_INVALID_HANDLE_SRQ, &srq);
	if (ret)
		return ret;
	if (num_segments < 0 || num_segments > srq->max_recv_iov) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto put;
	}
	if (num_segments && !local_iov) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto put;
	}

	spin_lock_irqsave(&srq->lock, flags);
	if (!srq->srq) {
		ret = kdapl_srq_no_device(srq);
		goto unlock;
	}
	if (srq->state == DAT_SRQ_STATE_ERROR) {
		ret = dat_error(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_ERROR);
		goto unlock;
	}
	recv = list_first_entry_or_null(&srq->free_recvs,
					struct kdapl_srq_recv, entry);
	if (!recv) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
		goto unlock;
	}
	ret = kdapl_srq_build_sge(srq, recv, num_segments, local_iov);
	if (ret)
		goto unlock;

	if (recv->sync)
		kdapl_lmr_sync_sges(recv->lmrs, recv->sge, recv->nlmr, false);
	recv->cookie = user_cookie;
	recv->dead = false;
	wr.wr_cqe = &recv->cqe;
	wr.sg_list = num_segments ? recv->sge : NULL;
	wr.num_sge = num_segments;
	err = ib_post_srq_recv(srq->srq, &wr, NULL);
	if (err) {
		if (srq->state == DAT_SRQ_STATE_ERROR)
			ret = dat_error(DAT_INVALID_STATE,
					DAT_INVALID_STATE_SRQ_ERROR);
		else
			ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_SRQ);
		goto unlock;
	}
	list_del(&recv->entry);
	recv->posted = true;
	atomic_inc(&srq->posted);
unlock:
	kdapl_stat_post(srq->obj.ia->adapter, DAT_DTO_RECEIVE, ret);
	spin_unlock_irqrestore(&srq->lock, flags);
put:
	kdapl_object_put(&srq->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_post_recv);

/**
 * dat_srq_post_recv() - post a receive buffer to a Shared Receive Queue
 * @srq_handle: the SRQ
 * @num_segments: segments in @local_iov, from 0 (a zero-length receive)
 *	to the SRQ's max_recv_iov
 * @local_iov: the segments; may be NULL when @num_segments is 0.  Each
 *	must lie within an LMR of the SRQ's PZ that has local write
 *	privilege; virtual_address is in the LMR's address space
 * @user_cookie: returned in the DTO completion of the receive
 *
 * The receive is taken by whichever EP using the SRQ gets a message first;
 * its completion goes to that EP's receive EVD.  Nothing is posted when an
 * error is returned.  No memory is allocated.
 *
 * Context: any context (does not sleep; takes the SRQ spinlock with
 * interrupts disabled).
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_SRQ for a bad handle;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 if @num_segments is negative
 * or above max_recv_iov, with DAT_INVALID_ARG3 if @local_iov is NULL with
 * segments or a segment is not within its LMR;
 * DAT_PROTECTION_VIOLATION with DAT_PROTECTION_WRITE if an lmr_context
 * names no LMR of the SRQ's PZ;
 * DAT_PRIVILEGES_VIOLATION with DAT_PRIVILEGES_WRITE if the LMR lacks the
 * local write privilege;
 * DAT_INSUFFICIENT_RESOURCES with DAT_RESOURCE_SRQ if max_recv_dtos
 * receives are already posted (or the device refuses the post);
 * DAT_INVALID_STATE with DAT_INVALID_STATE_SRQ_ERROR for an SRQ in error,
 * DAT_INVALID_STATE_SRQ_SHUTDOWN if the SRQ is being freed or its device
 * is gone.
 */
DAT_RETURN dat_srq_post_recv(DAT_SRQ_HANDLE srq_handle, DAT_COUNT num_segments,
			     const DAT_LMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie)
{
	return kdapl_srq_post_recv(&kdapl_kernel_owner, srq_handle,
				   num_segments, local_iov, user_cookie);
}
EXPORT_SYMBOL_GPL(dat_srq_post_recv);

/**
 * kdapl_srq_query() - dat_srq_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @srq_handle: as for dat_srq_query()
 * @mask: as for dat_srq_query()
 * @param: as for dat_srq_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_srq_query().
 * Return: as dat_srq_query().
 */
DAT_RETURN kdapl_srq_query(struct kdapl_owner *owner, DAT_SRQ_HANDLE srq_handle,
			   DAT_SRQ_PARAM_MASK mask, DAT_SRQ_PARAM *param)
{
	struct kdapl_srq *srq;
	unsigned long flags;
	DAT_RETURN ret;

	if ((u64)mask & ~(u64)DAT_SRQ_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, srq_handle, SRQ, DAT_INVALID_HANDLE_SRQ, &srq);
	if (ret)
		return ret;

	memset(param, 0, sizeof(*param));
	param->ia_handle = kdapl_object_handle(&srq->obj.ia->obj);
	param->pz_handle = kdapl_object_handle(&srq->pz->obj);
	param->max_recv_iov = srq->max_recv_iov;
	param->outstanding_dto_count = DAT_VALUE_UNKNOWN;
	spin_lock_irqsave(&srq->lock, flags);
	param->srq_state = srq->state;
	param->max_recv_dtos = srq->max_recv_dtos;
	param->low_watermark = srq->low_watermark;
	param->available_dto_count = atomic_read(&srq->posted);
	spin_unlock_irqrestore(&srq->lock, flags);

	kdapl_object_put(&srq->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_query);

/**
 * dat_srq_query() - get the parameters of a Shared Receive Queue
 * @srq_handle: the SRQ
 * @mask: DAT_SRQ_FIELD_* bits of the parameters wanted
 * @param: filled with the parameters (all of them, whatever @mask)
 *
 * available_dto_count is the number of receives posted and not completed
 * yet, which includes those an EP has taken from the SRQ and is filling.
 * outstanding_dto_count is not tracked (completions are not followed
 * until the consumer dequeues them) and is DAT_VALUE_UNKNOWN.
 * max_recv_dtos is the size asked for at creation or by the last resize.
 *
 * Context: any context.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 for bits outside
 * DAT_SRQ_FIELD_ALL, with DAT_INVALID_ARG3 if @param is NULL;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_SRQ for a bad handle.
 */
DAT_RETURN dat_srq_query(DAT_SRQ_HANDLE srq_handle, DAT_SRQ_PARAM_MASK mask,
			 DAT_SRQ_PARAM *param)
{
	return kdapl_srq_query(&kdapl_kernel_owner, srq_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_srq_query);

/*
 * Grow to @max receives; IA lock held.  The device queue is grown first
 * if it is too small: should the contexts then not be allocated, the
 * larger device queue does no harm.
 */
static DAT_RETURN kdapl_srq_grow(struct kdapl_srq *srq, DAT_COUNT max)
{
	struct kdapl_srq_chunk *chunk = NULL;
	struct kdapl_srq_recv *recv, *next;
	u32 more = max - srq->max_recv_dtos;
	LIST_HEAD(recvs);
	unsigned long flags;

	if ((u32)max > srq->dev_max_wr) {
		struct ib_srq_attr attr = { .max_wr = max };
		int err;

		/* siw cannot resize (-EOPNOTSUPP): a resource limit here. */
		err = ib_modify_srq(srq->srq, &attr, IB_SRQ_MAX_WR);
		if (err == -ENOMEM)
			return dat_error(DAT_INSUFFICIENT_RESOURCES,
					 DAT_RESOURCE_MEMORY);
		if (err)
			return dat_error(DAT_INSUFFICIENT_RESOURCES,
					 DAT_RESOURCE_SRQ);
		srq->dev_max_wr = max;
		if (!ib_query_srq(srq->srq, &attr) &&
		    attr.max_wr > srq->dev_max_wr)
			srq->dev_max_wr = attr.max_wr;
	}

	/* Contexts set aside by an earlier shrink come back first. */
	list_for_each_entry_safe(recv, next, &srq->spare_recvs, entry) {
		if (!more)
			break;
		list_move_tail(&recv->entry, &recvs);
		more--;
	}
	if (more) {
		chunk = kdapl_srq_alloc_chunk(srq, more, &recvs);
		if (!chunk) {
			list_splice(&recvs, &srq->spare_recvs);
			return dat_error(DAT_INSUFFICIENT_RESOURCES,
					 DAT_RESOURCE_MEMORY);
		}
		list_add(&chunk->entry, &srq->chunks);
	}

	spin_lock_irqsave(&srq->lock, flags);
	list_splice(&recvs, &srq->free_recvs);
	srq->max_recv_dtos = max;
	spin_unlock_irqrestore(&srq->lock, flags);
	return DAT_SUCCESS;
}

/*
 * Shrink to @max receives; IA lock held.  Only the count of receives the
 * SRQ accepts shrinks: the device queue keeps its size (DAT allows a
 * provider to keep a larger queue), the contexts are set aside for a later
 * grow.
 */
static DAT_RETURN kdapl_srq_shrink(struct kdapl_srq *srq, DAT_COUNT max)
{
	DAT_COUNT fewer = srq->max_recv_dtos - max;
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	if (atomic_read(&srq->posted) > max) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return dat_error(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_SRQ_IN_USE);
	}
	/* free + posted == max_recv_dtos, so there are enough free ones */
	while (fewer--) {
		struct kdapl_srq_recv *recv;

		recv = list_first_entry_or_null(&srq->free_recvs,
						struct kdapl_srq_recv, entry);
		if (WARN_ON_ONCE(!recv))
			break;
		list_move(&recv->entry, &srq->spare_recvs);
	}
	srq->max_recv_dtos = max;
	spin_unlock_irqrestore(&srq->lock, flags);
	return DAT_SUCCESS;
}

/**
 * kdapl_srq_resize() - dat_srq_resize() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @srq_handle: as for dat_srq_resize()
 * @srq_max_recv_dto: as for dat_srq_resize()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_srq_resize().
 * Return: as dat_srq_resize().
 */
DAT_RETURN kdapl_srq_resize(struct kdapl_owner *owner,
			    DAT_SRQ_HANDLE srq_handle,
			    DAT_COUNT srq_max_recv_dto)
{
	struct kdapl_srq *srq;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, srq_handle, SRQ, DAT_INVALID_HANDLE_SRQ, &srq);
	if (ret)
		return ret;
	ia = srq->obj.ia;

	mutex_lock(&ia->lock);
	if (!srq->srq) {
		ret = kdapl_srq_no_device(srq);
		goto out;
	}
	if (srq_max_recv_dto <= 0 ||
	    srq_max_recv_dto > srq->srq->device->attrs.max_srq_wr) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (READ_ONCE(srq->state) == DAT_SRQ_STATE_ERROR) {
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_SRQ_ERROR);
		goto out;
	}
	if (srq_max_recv_dto < srq->low_watermark) {
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_SRQ_OPERATIONAL);
		goto out;
	}

	if (srq_max_recv_dto > srq->max_recv_dtos)
		ret = kdapl_srq_grow(srq, srq_max_recv_dto);
	else if (srq_max_recv_dto < srq->max_recv_dtos)
		ret = kdapl_srq_shrink(srq, srq_max_recv_dto);
out:
	mutex_unlock(&ia->lock);
	kdapl_object_put(&srq->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_resize);

/**
 * dat_srq_resize() - change the number of receives an SRQ holds
 * @srq_handle: the SRQ
 * @srq_max_recv_dto: new maximum of posted receives
 *
 * No posted receive is lost.  Growing beyond what the device queue holds
 * resizes the device queue; shrinking only lowers the limit dat_srq_post_recv()
 * enforces (the device queue keeps its size).
 *
 * Context: process context; takes the IA lock.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_SRQ for a bad handle;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 if @srq_max_recv_dto is not
 * positive or above the device's max_srq_wr;
 * DAT_INVALID_STATE with DAT_INVALID_STATE_SRQ_IN_USE if more receives are
 * posted than @srq_max_recv_dto, with DAT_INVALID_STATE_SRQ_OPERATIONAL if
 * @srq_max_recv_dto is below the armed low watermark, with
 * DAT_INVALID_STATE_SRQ_ERROR if the SRQ is in error, with
 * DAT_INVALID_STATE_SRQ_SHUTDOWN if it is being freed or its device is
 * gone;
 * DAT_INSUFFICIENT_RESOURCES with DAT_RESOURCE_MEMORY if memory runs out,
 * with DAT_RESOURCE_SRQ if the device cannot grow its queue (siw cannot
 * resize at all).
 */
DAT_RETURN dat_srq_resize(DAT_SRQ_HANDLE srq_handle, DAT_COUNT srq_max_recv_dto)
{
	return kdapl_srq_resize(&kdapl_kernel_owner, srq_handle,
				srq_max_recv_dto);
}
EXPORT_SYMBOL_GPL(dat_srq_resize);

/**
 * kdapl_srq_set_lw() - dat_srq_set_lw() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @srq_handle: as for dat_srq_set_lw()
 * @low_watermark: as for dat_srq_set_lw()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_srq_set_lw().
 * Return: as dat_srq_set_lw().
 */
DAT_RETURN kdapl_srq_set_lw(struct kdapl_owner *owner,
			    DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark)
{
	struct ib_srq_attr attr = {};
	struct kdapl_srq *srq;
	struct kdapl_ia *ia;
	bool below, now = false;
	DAT_RETURN ret;
	int err;

	ret = kdapl_get(owner, srq_handle, SRQ, DAT_INVALID_HANDLE_SRQ, &srq);
	if (ret)
		return ret;
	ia = srq->obj.ia;

	mutex_lock(&ia->lock);
	if (!srq->srq) {
		ret = kdapl_srq_no_device(srq);
		goto out;
	}
	if (low_watermark < 0 || low_watermark > srq->max_recv_dtos) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (READ_ONCE(srq->state) == DAT_SRQ_STATE_ERROR) {
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_SRQ_ERROR);
		goto out;
	}

	/*
	 * Already below: report now and leave the device disarmed, one event
	 * per setting.  Else the device reports the receive taken that
	 * leaves fewer than @low_watermark.
	 */
	below = low_watermark != DAT_SRQ_LW_DEFAULT &&
		atomic_read(&srq->posted) < low_watermark;
	attr.srq_limit = below ? 0 : low_watermark;
	err = ib_modify_srq(srq->srq, &attr, IB_SRQ_LIMIT);
	if (err) {
		ret = err == -EOPNOTSUPP ?
		      dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE) :
		      dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
		goto out;
	}
	now = below;
	srq->low_watermark = low_watermark;
out:
	mutex_unlock(&ia->lock);
	/* Without the IA lock: an upcall of the async EVD runs here. */
	if (now)
		kdapl_ia_async_event(ia, KDAPL_SRQ_ASYNC_EVENT,
				     kdapl_object_handle(&srq->obj),
				     DAT_SRQ_LOW_WATERMARK_EVENT);
	kdapl_object_put(&srq->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_set_lw);

/**
 * dat_srq_set_lw() - set the low watermark of a Shared Receive Queue
 * @srq_handle: the SRQ
 * @low_watermark: DAT_SRQ_LW_DEFAULT to disarm, else the number of posted
 *	receives below which an asynchronous event is generated
 *
 * The event (on the IA's asynchronous EVD: DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR
 * with the SRQ handle and reason DAT_SRQ_LOW_WATERMARK_EVENT) is generated
 * once per setting: at once if fewer receives than @low_watermark are
 * posted, else by the device when an EP takes the receive that makes the
 * SRQ drop below it.
 *
 * Context: process context; takes the IA lock.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_SRQ for a bad handle;
 * DAT_INVALID_PARAMETER with DAT_INVALID_ARG2 if @low_watermark is
 * negative or above the SRQ's max_recv_dtos;
 * DAT_MODEL_NOT_SUPPORTED if the device has no SRQ limit;
 * DAT_INVALID_STATE with DAT_INVALID_STATE_SRQ_ERROR if the SRQ is in
 * error, with DAT_INVALID_STATE_SRQ_SHUTDOWN if it is being freed or its
 * device is gone;
 * DAT_INSUFFICIENT_RESOURCES with DAT_RESOURCE_SRQ if the device refuses
 * the limit.
 */
DAT_RETURN dat_srq_set_lw(DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark)
{
	return kdapl_srq_set_lw(&kdapl_kernel_owner, srq_handle, low_watermark);
}
EXPORT_SYMBOL_GPL(dat_srq_set_lw);

/**
 * kdapl_srq_free() - dat_srq_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @srq_handle: as for dat_srq_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_srq_free().
 * Return: as dat_srq_free().
 */
DAT_RETURN kdapl_srq_free(struct kdapl_owner *owner, DAT_SRQ_HANDLE srq_handle)
{
	struct kdapl_srq *srq;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, srq_handle, SRQ, DAT_INVALID_HANDLE_SRQ, &srq);
	if (ret)
		return ret;
	ia = srq->obj.ia;

	mutex_lock(&ia->lock);
	if (srq->obj.users) {
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_SRQ_IN_USE);
		goto out;
	}
	if (!kdapl_object_unpublish(&srq->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
		goto out;
	}
	kdapl_srq_teardown(srq);
out:
	mutex_unlock(&ia->lock);
	kdapl_object_put(&srq->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_srq_free);

/**
 * dat_srq_free() - destroy a Shared Receive Queue
 * @srq_handle: the SRQ
 *
 * Refused while an EP uses the SRQ.  Receives still posted are discarded
 * without completions (no EP can take them any more) and their buffers
 * are the consumer's again.  The PZ is no longer in use by the SRQ.
 *
 * Context: process context; takes the IA lock.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE with DAT_INVALID_HANDLE_SRQ for a bad handle (also
 * when a concurrent free won);
 * DAT_INVALID_STATE with DAT_INVALID_STATE_SRQ_IN_USE while an EP uses it.
 */
DAT_RETURN dat_srq_free(DAT_SRQ_HANDLE srq_handle)
{
	return kdapl_srq_free(&kdapl_kernel_owner, srq_handle);
}
EXPORT_SYMBOL_GPL(dat_srq_free);
