// SPDX-License-Identifier: GPL-2.0
/*
 * Remote Memory Regions: windows on LMRs that peers reach with their
 * own remote key.
 *
 * ib_core in Linux 6.1 has no memory window verbs for kernel consumers:
 * drivers implement alloc_mw/dealloc_mw for user space only, and
 * include/rdma/ib_verbs.h declares no ib_alloc_mw().  An RMR is therefore
 * emulated with fast-registration MRs of its own.  Binding it
 * (dat_rmr_bind()) maps an MR over the pages of a range of an LMR and
 * posts an IB_WR_REG_MR with a fresh key, after an IB_WR_LOCAL_INV of
 * the previous key; the key is the RMR's rmr_context.
 *
 * A bind takes effect when its work request completes, not when it is
 * posted.  An RMR has two MRs and binds the one its current binding does
 * not use, so that remapping never changes what the old key, still
 * valid until the invalidation executes, reaches.  Until the completion
 * the RMR is busy (another bind waits: DAT_INVALID_STATE) and the LMR of
 * the previous binding stays in use.  A bind that fails (its connection
 * broke and the work request was flushed) leaves the keys in an unknown
 * state: both MRs are deregistered and replaced in process context
 * (kdapl_rmr_repair()), which makes every old key invalid, before the
 * LMRs are released and the failure reported.
 *
 * While bound, the RMR uses its LMR (dat_lmr_free() refuses with
 * DAT_INVALID_STATE_LMR_IN_USE): &kdapl_lmr.rmr_binds counts bindings
 * and pending unbinds, from any context.
 *
 * See Documentation/memory.rst.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

/* Pages an RMR can cover, whatever the device allows beyond that. */
#define KDAPL_RMR_MAX_PAGES	256

/* How long dat_rmr_free() lets a bind in flight finish on its own. */
#define KDAPL_RMR_FREE_WAIT	HZ

/* Take a binding's use of @lmr; any context. */
static void kdapl_rmr_hold_lmr(struct kdapl_lmr *lmr)
{
	kref_get(&lmr->obj.ref);
	atomic_inc(&lmr->rmr_binds);
}

/* Drop a binding's use of @lmr, if any; any context. */
static void kdapl_rmr_release_lmr(struct kdapl_lmr *lmr)
{
	if (!lmr)
		return;
	atomic_dec(&lmr->rmr_binds);
	kdapl_object_put(&lmr->obj);
}

/* Publish the context of the current binding for posts (IA lock held). */
static void kdapl_rmr_rehash(struct kdapl_rmr *rmr)
{
	lockdep_assert_held(&rmr->obj.ia->lock);
	kdapl_pz_del_rmr_hash(rmr);
	if (rmr->rmr_context)
		kdapl_pz_add_rmr_hash(rmr->pz, rmr);
}

/**
 * kdapl_rmr_bind_lmr() - record a binding of an RMR to a range of an LMR
 * @rmr: the RMR
 * @lmr: the LMR, of the same IA
 * @triplet: the range bound
 * @priv: DAT_MEM_PRIV_* flags of the binding
 *
 * Replaces any previous binding at once, as a completed bind does.  The
 * RMR takes a use of @lmr (and a reference), so that the LMR cannot be
 * freed while the RMR is bound to it.  rmr_context becomes the key of the
 * RMR's current MR.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_rmr_bind_lmr(struct kdapl_rmr *rmr, struct kdapl_lmr *lmr,
			const DAT_LMR_TRIPLET *triplet,
			DAT_MEM_PRIV_FLAGS priv)
{
	struct ib_mr *mr = rmr->mr[rmr->cur];
	struct kdapl_lmr *old;
	unsigned long flags;

	lockdep_assert_held(&rmr->obj.ia->lock);
	WARN_ON_ONCE(lmr->obj.ia != rmr->obj.ia);
	kdapl_rmr_hold_lmr(lmr);
	spin_lock_irqsave(&rmr->lock, flags);
	old = rmr->lmr;
	rmr->lmr = lmr;
	rmr->triplet = *triplet;
	rmr->priv = priv;
	rmr->rmr_context = mr ? mr->rkey : 0;
	spin_unlock_irqrestore(&rmr->lock, flags);
	kdapl_rmr_release_lmr(old);
	kdapl_rmr_rehash(rmr);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_bind_lmr);

/**
 * kdapl_rmr_unbind() - forget the binding of an RMR at once
 * @rmr: the RMR, bound or not
 *
 * Drops the use of the LMR it was bound to, as a completed unbind does.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_rmr_unbind(struct kdapl_rmr *rmr)
{
	struct kdapl_lmr *old;
	unsigned long flags;

	lockdep_assert_held(&rmr->obj.ia->lock);
	spin_lock_irqsave(&rmr->lock, flags);
	old = rmr->lmr;
	rmr->lmr = NULL;
	memset(&rmr->triplet, 0, sizeof(rmr->triplet));
	rmr->priv = 0;
	rmr->rmr_context = 0;
	spin_unlock_irqrestore(&rmr->lock, flags);
	kdapl_rmr_release_lmr(old);
	kdapl_rmr_rehash(rmr);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_unbind);

/* Allocate the two MRs of an RMR (IA lock held); 0 or -ENOMEM. */
static int kdapl_rmr_alloc_mrs(struct kdapl_rmr *rmr, struct ib_pd *pd)
{
	u32 max = pd->device->attrs.max_fast_reg_page_list_len;
	int i;

	for (i = 0; i < ARRAY_SIZE(rmr->mr); i++) {
		/* A spare page for rdma_rxe, see kdapl_lmr_map(). */
		rmr->mr[i] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG,
					 min(rmr->max_pages + 1, max));
		if (IS_ERR(rmr->mr[i])) {
			rmr->mr[i] = NULL;
			return -ENOMEM;
		}
	}
	rmr->cur = 0;
	return 0;
}

/*
 * Deregister the MRs of an RMR: every key of theirs is dead, and the
 * user memory they mapped is unpinned.  IA lock.
 */
static void kdapl_rmr_free_mrs(struct kdapl_rmr *rmr)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rmr->mr); i++) {
		if (rmr->mr[i])
			ib_dereg_mr(rmr->mr[i]);
		rmr->mr[i] = NULL;
		kdapl_umem_window_release(rmr->win[i]);
		rmr->win[i] = NULL;
	}
}

/*
 * After a bind failed: no key of the RMR may stay valid, whatever the
 * device executed.  Deregister both MRs and allocate new ones (the RMR
 * is left without MRs if that fails, or if it was freed meanwhile or
 * its device is gone), release the LMRs and report the failure.
 * kdapl_wq.
 */
static void kdapl_rmr_repair_work(struct work_struct *work)
{
	struct kdapl_rmr *rmr = container_of(work, struct kdapl_rmr, repair);
	struct kdapl_ia *ia = rmr->obj.ia;
	struct kdapl_evd *evd = rmr->repair_evd;
	struct kdapl_lmr *retiring;
	unsigned long flags;

	mutex_lock(&ia->lock);
	kdapl_rmr_free_mrs(rmr);
	if (!list_empty(&rmr->obj.ia_entry) && ia->ibdev && rmr->pz->pd &&
	    kdapl_rmr_alloc_mrs(rmr, rmr->pz->pd))
		kdapl_rmr_free_mrs(rmr);
	spin_lock_irqsave(&rmr->lock, flags);
	retiring = rmr->retiring;
	rmr->retiring = NULL;
	rmr->broken = false;
	spin_unlock_irqrestore(&rmr->lock, flags);
	kdapl_rmr_release_lmr(retiring);
	kdapl_rmr_unbind(rmr);
	mutex_unlock(&ia->lock);

	if (evd) {
		kdapl_evd_post(evd, &rmr->repair_event);
		kdapl_object_put(&evd->obj);
	}
	kdapl_object_put(&rmr->obj);
}

/**
 * kdapl_rmr_bind_done() - the work request of a bind or unbind completed
 * @rmr: the RMR
 * @evd: the EVD its completion goes to, or NULL
 * @status: the ib_wc status
 * @ev: the completion event, or NULL when none is due
 *
 * On success the binding posted is the RMR's: the LMR of the previous
 * one is released.  On failure the RMR is repaired first
 * (kdapl_rmr_repair_work()), which then delivers @ev.
 *
 * Context: the CQ's completion handler (softirq), or kdapl_dto_qp_gone()
 * with ep->lock held.
 * Return: true if the caller delivers @ev now.
 */
bool kdapl_rmr_bind_done(struct kdapl_rmr *rmr, struct kdapl_evd *evd,
			 enum ib_wc_status status, const DAT_EVENT *ev)
{
	struct kdapl_lmr *retiring = NULL;
	unsigned long flags;

	spin_lock_irqsave(&rmr->lock, flags);
	rmr->busy = false;
	if (status == IB_WC_SUCCESS) {
		retiring = rmr->retiring;
		rmr->retiring = NULL;
	} else {
		rmr->broken = true;
		rmr->repair_evd = ev ? evd : NULL;
		if (ev) {
			rmr->repair_event = *ev;
			kref_get(&evd->obj.ref);
		}
		kref_get(&rmr->obj.ref);
		queue_work(kdapl_wq, &rmr->repair);
	}
	spin_unlock_irqrestore(&rmr->lock, flags);
	wake_up_all(&rmr->idle);
	kdapl_rmr_release_lmr(retiring);
	return status == IB_WC_SUCCESS;
}

/**
 * kdapl_rmr_sink() - the work request segment of an RMR sink
 * @pz: the PZ of the EP posting
 * @t: the segment, with the rmr_context of a bound RMR of @pz
 * @iwarp: the EP is on iWARP, where the sink of an RDMA Read is written
 *	as a remote write
 * @sge: filled with the segment, on the RMR's MR
 *
 * Used by dat_ep_post_rdma_read_to_rmr(): the context is that of an RMR
 * bound in @pz, not a raw key; the range lies within the RMR's window and
 * the window has local write privilege (and remote write on iWARP).
 *
 * Context: any context, under rcu_read_lock().
 * Return: DAT_SUCCESS, DAT_PROTECTION_VIOLATION (PROTECTION_WRITE) for a
 * context no bound RMR of @pz has or a range outside its window,
 * DAT_PRIVILEGES_VIOLATION (PRIVILEGES_WRITE or PRIVILEGES_RDMA_READ).
 */
DAT_RETURN kdapl_rmr_sink(struct kdapl_pz *pz, const DAT_RMR_TRIPLET *t,
			  bool iwarp, struct ib_sge *sge)
{
	DAT_RETURN ret = DAT_SUCCESS;
	const DAT_LMR_TRIPLET *w;
	struct kdapl_rmr *rmr;
	unsigned long flags;

	rmr = kdapl_pz_rmr_rcu(pz, t->rmr_context);
	if (!rmr)
		return dat_error(DAT_PROTECTION_VIOLATION,
				 DAT_PROTECTION_WRITE);
	spin_lock_irqsave(&rmr->lock, flags);
	w = &rmr->triplet;
	if (rmr->rmr_context != t->rmr_context || !rmr->lmr || rmr->broken ||
	    !rmr->mr[rmr->cur] || t->virtual_address < w->virtual_address ||
	    t->segment_length > w->segment_length ||
	    t->virtual_address - w->virtual_address >
	    w->segment_length - t->segment_length)
		ret = dat_error(DAT_PROTECTION_VIOLATION,
				DAT_PROTECTION_WRITE);
	else if (!(rmr->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG))
		ret = dat_error(DAT_PRIVILEGES_VIOLATION,
				DAT_PRIVILEGES_WRITE);
	else if (iwarp && !(rmr->priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
		ret = dat_error(DAT_PRIVILEGES_VIOLATION,
				DAT_PRIVILEGES_RDMA_READ);
	if (!ret) {
		sge->addr = t->virtual_address;
		sge->length = t->segment_length;
		sge->lkey = rmr->mr[rmr->cur]->lkey;
	}
	spin_unlock_irqrestore(&rmr->lock, flags);
	return ret;
}

/**
 * kdapl_rmr_create() - dat_rmr_create() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @pz_handle: as for dat_rmr_create()
 * @rmr_handle: as for dat_rmr_create()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_rmr_create().
 * Return: as dat_rmr_create().
 */
DAT_RETURN kdapl_rmr_create(struct kdapl_owner *owner, DAT_PZ_HANDLE pz_handle,
			    DAT_RMR_HANDLE *rmr_handle)
{
	struct kdapl_rmr *rmr;
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (!rmr_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(owner, pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
	if (ret)
		return ret;
	ia = pz->obj.ia;

	rmr = kzalloc(sizeof(*rmr), GFP_KERNEL_ACCOUNT);
	if (!rmr) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out_pz;
	}
	kdapl_object_init(&rmr->obj, DAT_HANDLE_TYPE_RMR, ia);
	rmr->pz = pz;
	spin_lock_init(&rmr->lock);
	init_waitqueue_head(&rmr->idle);
	INIT_WORK(&rmr->repair, kdapl_rmr_repair_work);

	mutex_lock(&ia->lock);
	if (!ia->ibdev || ia->closing || !pz->pd) {
		ret = dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto err_unlock;
	}
	rmr->max_pages = min_t(u32, KDAPL_RMR_MAX_PAGES,
			       ia->ibdev->attrs.max_fast_reg_page_list_len);
	if (kdapl_rmr_alloc_mrs(rmr, pz->pd)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY_REGION);
		goto err_mr;
	}
	if (kdapl_object_publish(&rmr->obj)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto err_mr;
	}
	kdapl_ia_add_object(ia, &rmr->obj);
	/*
	 * The RMR keeps the lookup's reference to its PZ until its memory
	 * goes, so that a late query or free never finds it freed (the IA
	 * is held by every published object).
	 */
	kdapl_use(&pz->obj);
	*rmr_handle = kdapl_object_handle(&rmr->obj);
	mutex_unlock(&ia->lock);
	return DAT_SUCCESS;

err_mr:
	kdapl_rmr_free_mrs(rmr);
err_unlock:
	mutex_unlock(&ia->lock);
	kfree(rmr);
out_pz:
	kdapl_object_put(&pz->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_create);

/**
 * dat_rmr_create() - create a Remote Memory Region
 * @pz_handle: the PZ
 * @rmr_handle: out: the RMR, unbound
 *
 * Allocates the two fast-registration MRs the RMR is bound with; each
 * can map up to min(max_fast_reg_page_list_len, 256) pages.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (ARG2) for a NULL
 * @rmr_handle; DAT_INVALID_HANDLE (PZ) for a bad @pz_handle;
 * DAT_INVALID_STATE if the IA's device is gone or the IA is closing;
 * DAT_INSUFFICIENT_RESOURCES (MEMORY_REGION) if the device refuses the
 * MRs, (MEMORY) when out of memory.
 */
DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	return kdapl_rmr_create(&kdapl_kernel_owner, pz_handle, rmr_handle);
}
EXPORT_SYMBOL_GPL(dat_rmr_create);

/**
 * kdapl_rmr_query() - dat_rmr_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @rmr_handle: as for dat_rmr_query()
 * @mask: as for dat_rmr_query()
 * @param: as for dat_rmr_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_rmr_query().
 * Return: as dat_rmr_query().
 */
DAT_RETURN kdapl_rmr_query(struct kdapl_owner *owner, DAT_RMR_HANDLE rmr_handle,
			   DAT_RMR_PARAM_MASK mask, DAT_RMR_PARAM *param)
{
	struct kdapl_rmr *rmr;
	unsigned long flags;
	DAT_RETURN ret;

	if (mask & ~DAT_RMR_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, rmr_handle, RMR, DAT_INVALID_HANDLE_RMR, &rmr);
	if (ret)
		return ret;

	if (mask & DAT_RMR_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&rmr->obj.ia->obj);
	if (mask & DAT_RMR_FIELD_PZ_HANDLE)
		param->pz_handle = kdapl_object_handle(&rmr->pz->obj);
	if (mask & DAT_RMR_FIELD_RMR_SCOPE)
		param->rmr_scope = DAT_RMR_SCOPE_PZ;
	if (mask & DAT_RMR_FIELD_VA_TYPE)
		param->va_type = DAT_VA_TYPE_VA;
	spin_lock_irqsave(&rmr->lock, flags);
	if (mask & DAT_RMR_FIELD_LMR_TRIPLET)
		param->lmr_triplet = rmr->triplet;
	if (mask & DAT_RMR_FIELD_MEM_PRIV)
		param->mem_priv = rmr->priv;
	if (mask & DAT_RMR_FIELD_RMR_CONTEXT)
		param->rmr_context = rmr->rmr_context;
	spin_unlock_irqrestore(&rmr->lock, flags);
	kdapl_object_put(&rmr->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_query);

/**
 * dat_rmr_query() - parameters of a Remote Memory Region
 * @rmr_handle: the RMR
 * @mask: DAT_RMR_FIELD_* wanted
 * @param: out: the fields @mask asks for; the others are not written
 *
 * lmr_triplet, mem_priv and rmr_context describe the binding last
 * posted and are zero while the RMR is unbound (or after an unbind was
 * posted).  rmr_scope is DAT_RMR_SCOPE_PZ and va_type DAT_VA_TYPE_VA.
 *
 * Context: any context.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (ARG2) for mask bits outside
 * DAT_RMR_FIELD_ALL, (ARG3) for a NULL @param; DAT_INVALID_HANDLE (RMR)
 * for a bad @rmr_handle.
 */
DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle, DAT_RMR_PARAM_MASK mask,
			 DAT_RMR_PARAM *param)
{
	return kdapl_rmr_query(&kdapl_kernel_owner, rmr_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_rmr_query);

/* Is a bind of @rmr in flight?  Any context. */
static bool kdapl_rmr_busy(struct kdapl_rmr *rmr)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&rmr->lock, flags);
	busy = rmr->busy;
	spin_unlock_irqrestore(&rmr->lock, flags);
	return busy;
}

/*
 * Wait until no bind of @rmr is in flight, so that its MRs can go.  A
 * bind that does not complete by itself (its send queue is stuck behind
 * requests a peer does not answer) is flushed by breaking the connection
 * it was posted on, which drains its QP.  IA lock held; the completion
 * needs no kdapl mutex.
 */
static void kdapl_rmr_quiesce(struct kdapl_rmr *rmr)
{
	struct kdapl_ep *ep = rmr->bind_ep;

	if (!wait_event_timeout(rmr->idle, !kdapl_rmr_busy(rmr),
				KDAPL_RMR_FREE_WAIT) && ep)
		kdapl_cm_ep_break(ep);
	wait_event(rmr->idle, !kdapl_rmr_busy(rmr));
}

/* Release everything of a freed RMR but its memory.  IA lock held. */
static void kdapl_rmr_destroy(struct kdapl_rmr *rmr)
{
	struct kdapl_ia *ia = rmr->obj.ia;
	struct kdapl_lmr *retiring;
	unsigned long flags;

	lockdep_assert_held(&ia->lock);
	kdapl_rmr_quiesce(rmr);
	/* Every key of the RMR dies with its MRs: then its LMRs are free. */
	kdapl_rmr_free_mrs(rmr);
	spin_lock_irqsave(&rmr->lock, flags);
	retiring = rmr->retiring;
	rmr->retiring = NULL;
	spin_unlock_irqrestore(&rmr->lock, flags);
	kdapl_rmr_release_lmr(retiring);
	kdapl_rmr_unbind(rmr);
	if (rmr->bind_ep) {
		kdapl_object_put(&rmr->bind_ep->obj);
		rmr->bind_ep = NULL;
	}
	kdapl_unuse(&rmr->pz->obj);
	kdapl_ia_del_object(ia, &rmr->obj);
}

/**
 * kdapl_rmr_free() - dat_rmr_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @rmr_handle: as for dat_rmr_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_rmr_free().
 * Return: as dat_rmr_free().
 */
DAT_RETURN kdapl_rmr_free(struct kdapl_owner *owner, DAT_RMR_HANDLE rmr_handle)
{
	struct kdapl_rmr *rmr;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, rmr_handle, RMR, DAT_INVALID_HANDLE_RMR, &rmr);
	if (ret)
		return ret;
	ia = rmr->obj.ia;

	mutex_lock(&ia->lock);
	if (kdapl_object_unpublish(&rmr->obj))
		kdapl_rmr_destroy(rmr);
	else
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	mutex_unlock(&ia->lock);
	kdapl_object_put(&rmr->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_free);

/**
 * dat_rmr_free() - destroy a Remote Memory Region
 * @rmr_handle: the RMR, bound or not
 *
 * A bound RMR is unbound first: its LMR is no longer in use by it and
 * the device refuses its rmr_context from then on.  A bind still in
 * flight is waited for (after a second without completion, the
 * connection it was posted on is broken to flush it).
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (RMR) for a bad, freed or
 * concurrently freed @rmr_handle.
 */
DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	return kdapl_rmr_free(&kdapl_kernel_owner, rmr_handle);
}
EXPORT_SYMBOL_GPL(dat_rmr_free);

/* Completion flags dat_rmr_bind() takes. */
#define KDAPL_RMR_BIND_FLAGS						\
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | \
	 DAT_COMPLETION_BARRIER_FENCE_FLAG)

/*
 * The part of the mapped entries of @lmr that [@va, @va + @len) covers,
 * into @win (lmr->dma_nents entries): the LMR's address space runs over
 * its entries back to back.  Returns the number of entries, 0 if the
 * range is not covered.
 */
static int kdapl_rmr_window(const struct kdapl_lmr *lmr, DAT_VADDR va,
			    DAT_VLEN len, struct scatterlist *win)
{
	u64 off = va - lmr->registered_address, end = off + len, pos = 0;
	struct scatterlist *s;
	int i, count = 0;

	sg_init_table(win, lmr->dma_nents);
	for_each_sg(lmr->sg, s, lmr->dma_nents, i) {
		u64 l = sg_dma_len(s), from, to;

		if (pos + l > off && pos < end) {
			from = max(off, pos) - pos;
			to = min(end, pos + l) - pos;
			sg_dma_address(&win[count]) = sg_dma_address(s) + from;
			sg_dma_len(&win[count]) = to - from;
			count++;
		}
		pos += l;
		if (pos >= end)
			break;
	}
	if (!count || pos < end)
		return 0;
	sg_mark_end(&win[count - 1]);
	return count;
}

/*
 * Map @mr over [@va, @va + @len) of @lmr, a range the LMR covers.  The
 * range gets a scatterlist of its own that starts at its first byte,
 * rather than an offset into the LMR's: siw (6.1) builds its page list
 * from the entries' addresses and ignores that offset, which would
 * move every access by it.  IA lock held.
 */
static DAT_RETURN kdapl_rmr_map(struct ib_mr *mr, struct kdapl_lmr *lmr,
				DAT_VADDR va, DAT_VLEN len)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct scatterlist *win;
	int count, n;

	win = kmalloc_array(lmr->dma_nents, sizeof(*win), GFP_KERNEL);
	if (!win)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	count = kdapl_rmr_window(lmr, va, len, win);
	if (!count) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}
	n = ib_map_mr_sg(mr, win, count, NULL, PAGE_SIZE);
	if (n != count) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY_REGION);
		goto out;
	}
	/* The window is exactly the range, in the LMR's address space. */
	mr->iova = va;
	mr->length = len;
out:
	kfree(win);
	return ret;
}

/*
 * Unpin the user memory of the MRs of @rmr whose keys are dead, before a
 * bind or unbind of the RMR (which is not busy) is posted: the spare MR
 * @spare (the bind that last made it spare invalidated its key and has
 * completed), and both MRs of an unbound RMR.  The MR a binding uses keeps
 * its window until the RMR binds again or goes.  IA lock held.
 */
static void kdapl_rmr_drop_windows(struct kdapl_rmr *rmr, u8 spare)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rmr->win); i++) {
		if (i != spare && rmr->lmr)
			continue;
		kdapl_umem_window_release(rmr->win[i]);
		rmr->win[i] = NULL;
	}
}

/*
 * Map MR @cur of @rmr, whose key is dead (kdapl_rmr_drop_windows()),
 * over [@va, @va + @len) of @lmr.  A user LMR's range is pinned for the
 * MR (kdapl_umem_window()).  IA lock held.
 */
static DAT_RETURN kdapl_rmr_map_mr(struct kdapl_rmr *rmr, u8 cur,
				   struct kdapl_lmr *lmr, DAT_VADDR va,
				   DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv)
{
	struct ib_mr *mr = rmr->mr[cur];
	struct kdapl_uwin *win;
	DAT_RETURN ret;

	if (!lmr->user_pages)
		return kdapl_rmr_map(mr, lmr, va, len);
	if ((va + len - 1) / PAGE_SIZE - va / PAGE_SIZE >= rmr->max_pages)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);
	ret = kdapl_umem_window(rmr->obj.ia->ibdev, va, len,
				priv & (DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
					DAT_MEM_PRIV_REMOTE_WRITE_FLAG), &win);
	if (ret)
		return ret;
	if (ib_map_mr_sg(mr, win->sgt.sgl, win->nents, NULL, PAGE_SIZE) !=
	    win->nents) {
		kdapl_umem_window_release(win);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);
	}
	mr->iova = va;
	mr->length = len;
	rmr->win[cur] = win;
	return DAT_SUCCESS;
}

/* Checks of dat_rmr_bind() that need no handle. */
static DAT_RETURN kdapl_rmr_bind_args(const DAT_LMR_TRIPLET *lmr_triplet,
				      DAT_MEM_PRIV_FLAGS mem_priv,
				      DAT_VA_TYPE va_type,
				      DAT_COMPLETION_FLAGS completion_flags,
				      DAT_RMR_CONTEXT *rmr_context)
{
	if (!lmr_triplet)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (mem_priv & ~DAT_MEM_PRIV_ALL_FLAG)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (va_type == DAT_VA_TYPE_ZB)
		return dat_error(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	if (va_type != DAT_VA_TYPE_VA)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (completion_flags & ~KDAPL_RMR_BIND_FLAGS)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
	if (!rmr_context)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG9);
	return DAT_SUCCESS;
}

/* Checks of the objects, IA lock held. */
static DAT_RETURN kdapl_rmr_bind_check(struct kdapl_rmr *rmr,
				       struct kdapl_lmr *lmr,
				       struct kdapl_ep *ep,
				       const DAT_LMR_TRIPLET *t,
				       DAT_MEM_PRIV_FLAGS mem_priv)
{
	struct kdapl_ia *ia = rmr->obj.ia;
	unsigned long flags;
	DAT_RETURN ret;

	if (list_empty(&rmr->obj.ia_entry))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	if (ep->obj.ia != ia || list_empty(&ep->obj.ia_entry))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (lmr && (lmr->obj.ia != ia || list_empty(&lmr->obj.ia_entry)))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	if (!rmr->mr[0] || !ia->ibdev ||
	    (lmr && !lmr->sg && !lmr->user_pages) ||
	    kdapl_rmr_busy(rmr) || READ_ONCE(rmr->broken))
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	/* The MR and the QP must share the protection domain. */
	if (READ_ONCE(ep->pz) != rmr->pz)
		return dat_error(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
	if (lmr && (t->lmr_context != lmr->lmr_context ||
		    !kdapl_lmr_covers(lmr, t->virtual_address,
				      t->segment_length)))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	/* Writes through the window land in the LMR's memory. */
	if (lmr && (mem_priv & (DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				DAT_MEM_PRIV_REMOTE_WRITE_FLAG)) &&
	    !(lmr->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG))
		return dat_error(DAT_PRIVILEGES_VIOLATION,
				 DAT_PRIVILEGES_RDMA_WRITE);
	/* Checked again when posting; nothing is mapped for a bad state. */
	spin_lock_irqsave(&ep->lock, flags);
	ret = kdapl_ep_connected_state(ep);
	spin_unlock_irqrestore(&ep->lock, flags);
	return ret;
}

/*
 * The binding a bind posts: the RMR takes it at once, with the previous
 * LMR retiring until the work request completes (@lmr NULL: an unbind).
 * Returns the state to restore if the post fails.  IA lock held.
 */
static void kdapl_rmr_switch(struct kdapl_rmr *rmr, struct kdapl_lmr *lmr,
			     const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS priv,
			     u8 cur, struct kdapl_rmr *saved)
{
	unsigned long flags;

	spin_lock_irqsave(&rmr->lock, flags);
	saved->lmr = rmr->lmr;
	saved->triplet = rmr->triplet;
	saved->priv = rmr->priv;
	saved->rmr_context = rmr->rmr_context;
	saved->cur = rmr->cur;
	rmr->retiring = rmr->lmr;
	rmr->busy = true;
	rmr->lmr = lmr;
	rmr->cur = cur;
	if (lmr) {
		rmr->triplet = *t;
		rmr->priv = priv;
		rmr->rmr_context = rmr->mr[cur]->rkey;
	} else {
		memset(&rmr->triplet, 0, sizeof(rmr->triplet));
		rmr->priv = 0;
		rmr->rmr_context = 0;
	}
	spin_unlock_irqrestore(&rmr->lock, flags);
}

/* Undo kdapl_rmr_switch() after a refused post.  IA lock held. */
static void kdapl_rmr_switch_back(struct kdapl_rmr *rmr,
				  const struct kdapl_rmr *saved)
{
	unsigned long flags;

	spin_lock_irqsave(&rmr->lock, flags);
	rmr->lmr = saved->lmr;
	rmr->triplet = saved->triplet;
	rmr->priv = saved->priv;
	rmr->rmr_context = saved->rmr_context;
	rmr->cur = saved->cur;
	rmr->retiring = NULL;
	rmr->busy = false;
	spin_unlock_irqrestore(&rmr->lock, flags);
}

/*
 * Post a bind (@lmr set) or an unbind of the bound @rmr on @ep.  IA
 * lock held, objects checked.
 */
static DAT_RETURN kdapl_rmr_post(struct kdapl_rmr *rmr, struct kdapl_lmr *lmr,
				 const DAT_LMR_TRIPLET *t,
				 DAT_MEM_PRIV_FLAGS priv, struct kdapl_ep *ep,
				 DAT_RMR_COOKIE cookie,
				 DAT_COMPLETION_FLAGS flags)
{
	u32 inv_key = rmr->lmr ? rmr->rmr_context : 0;
	u8 cur = rmr->lmr ? !rmr->cur : rmr->cur;
	struct ib_mr *mr = lmr ? rmr->mr[cur] : NULL;
	struct kdapl_rmr saved;
	DAT_RETURN ret;

	kdapl_rmr_drop_windows(rmr, cur);
	if (mr) {
		ret = kdapl_rmr_map_mr(rmr, cur, lmr, t->virtual_address,
				       t->segment_length, priv);
		if (ret)
			return ret;
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		kdapl_rmr_hold_lmr(lmr);
	}
	kdapl_rmr_switch(rmr, lmr, t, priv, cur, &saved);
	ret = kdapl_dto_post_bind(ep, rmr, inv_key, mr,
				  kdapl_mem_access(rmr->obj.ia, priv),
				  cookie, flags);
	if (ret) {
		kdapl_rmr_switch_back(rmr, &saved);
		if (mr)
			kdapl_rmr_release_lmr(lmr);
		return ret;
	}
	if (rmr->bind_ep != ep) {
		if (rmr->bind_ep)
			kdapl_object_put(&rmr->bind_ep->obj);
		kref_get(&ep->obj.ref);
		rmr->bind_ep = ep;
	}
	kdapl_rmr_rehash(rmr);
	return DAT_SUCCESS;
}

/*
 * An unbind of an unbound RMR completes at once: its event is queued on
 * the EP's request EVD unless suppressed.  IA lock held.
 */
static void kdapl_rmr_unbound(struct kdapl_rmr *rmr, struct kdapl_ep *ep,
			      DAT_RMR_COOKIE cookie,
			      DAT_COMPLETION_FLAGS flags)
{
	DAT_EVENT ev = { .event_number = DAT_RMR_BIND_COMPLETION_EVENT };
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *d =
		&ev.event_data.rmr_completion_event_data;
	unsigned long irqflags;

	kdapl_rmr_drop_windows(rmr, rmr->cur);
	if (flags & (DAT_COMPLETION_SUPPRESS_FLAG |
		     DAT_COMPLETION_UNSIGNALLED_FLAG))
		return;
	d->rmr_handle = kdapl_object_handle(&rmr->obj);
	d->user_cookie = cookie;
	d->status = DAT_RMR_BIND_SUCCESS;
	spin_lock_irqsave(&ep->lock, irqflags);
	if (ep->request_evd)
		kdapl_evd_post(ep->request_evd, &ev);
	spin_unlock_irqrestore(&ep->lock, irqflags);
}

/**
 * kdapl_rmr_bind() - dat_rmr_bind() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @rmr_handle: as for dat_rmr_bind()
 * @lmr_handle: as for dat_rmr_bind()
 * @lmr_triplet: as for dat_rmr_bind()
 * @mem_priv: as for dat_rmr_bind()
 * @va_type: as for dat_rmr_bind()
 * @ep_handle: as for dat_rmr_bind()
 * @user_cookie: as for dat_rmr_bind()
 * @completion_flags: as for dat_rmr_bind()
 * @rmr_context: as for dat_rmr_bind()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_rmr_bind().
 * Return: as dat_rmr_bind().
 */
DAT_RETURN kdapl_rmr_bind(struct kdapl_owner *owner, DAT_RMR_HANDLE rmr_handle,
			  DAT_LMR_HANDLE lmr_handle,
			  const DAT_LMR_TRIPLET *lmr_triplet,
			  DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			  DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie,
			  DAT_COMPLETION_FLAGS completion_flags,
			  DAT_RMR_CONTEXT *rmr_context)
{
	struct kdapl_lmr *lmr = NULL;
	struct kdapl_rmr *rmr;
	struct kdapl_ep *ep;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_rmr_bind_args(lmr_triplet, mem_priv, va_type,
				  completion_flags, rmr_context);
	if (ret)
		return ret;
	ret = kdapl_get(owner, rmr_handle, RMR, DAT_INVALID_HANDLE_RMR, &rmr);
	if (ret)
		return ret;
	ia = rmr->obj.ia;
	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		goto put_rmr;
	if (lmr_triplet->segment_length) {
		ret = kdapl_get(owner, lmr_handle, LMR, DAT_INVALID_HANDLE_LMR, &lmr);
		if (ret)
			goto put_ep;
	}

	mutex_lock(&ia->lock);
	ret = kdapl_rmr_bind_check(rmr, lmr, ep, lmr_triplet, mem_priv);
	if (ret)
		goto unlock;
	if (!lmr && !rmr->lmr) {
		kdapl_rmr_unbound(rmr, ep, user_cookie, completion_flags);
		*rmr_context = 0;
		goto unlock;
	}
	ret = kdapl_rmr_post(rmr, lmr, lmr_triplet, mem_priv, ep, user_cookie,
			     completion_flags);
	if (!ret)
		*rmr_context = rmr->rmr_context;
unlock:
	mutex_unlock(&ia->lock);
	if (lmr)
		kdapl_object_put(&lmr->obj);
put_ep:
	kdapl_object_put(&ep->obj);
put_rmr:
	kdapl_object_put(&rmr->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_bind);

/**
 * dat_rmr_bind() - bind an RMR to a range of an LMR, or unbind it
 * @rmr_handle: the RMR, bound or not
 * @lmr_handle: the LMR, of the IA; ignored when unbinding
 * @lmr_triplet: the range, in the LMR's address space, with the LMR's
 *	lmr_context; a segment_length of 0 unbinds
 * @mem_priv: DAT_MEM_PRIV_* privileges of the window
 * @va_type: DAT_VA_TYPE_VA
 * @ep_handle: a connected EP of the RMR's PZ the bind is posted on
 * @user_cookie: returned in the DAT_RMR_BIND_COMPLETION_EVENT
 * @completion_flags: DAT_COMPLETION_SUPPRESS_FLAG,
 *	DAT_COMPLETION_UNSIGNALLED_FLAG (if the EP allows it),
 *	DAT_COMPLETION_BARRIER_FENCE_FLAG
 * @rmr_context: out: the new rmr_context (0 after an unbind)
 *
 * The RMR's spare MR is mapped over the range and given a new key; an
 * IB_WR_REG_MR with that key is posted on the EP's send queue, preceded
 * by an IB_WR_LOCAL_INV of the previous key if the RMR was bound.
 * Unbinding posts the IB_WR_LOCAL_INV alone (nothing when the RMR is not
 * bound; the completion event is then queued at once).  The completion
 * goes to the EP's request EVD as a DAT_RMR_BIND_COMPLETION_EVENT.  The
 * RMR uses the new LMR from the post on; the previous LMR stays in use
 * until the work request completes, and another bind of the RMR is
 * refused until then.  A failed bind leaves the RMR unbound, with none
 * of its keys valid, once its completion is reported.
 *
 * Context: process context, may sleep (takes the IA lock).
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER (ARG3) for a NULL @lmr_triplet or one that is not
 * inside the LMR or names another lmr_context, (ARG4) for unknown
 * privileges, (ARG5) for an unknown @va_type, (ARG8) for bad completion
 * flags, (ARG9) for a NULL @rmr_context;
 * DAT_NOT_IMPLEMENTED for DAT_VA_TYPE_ZB;
 * DAT_INVALID_HANDLE (RMR, LMR, EP) for a bad handle;
 * DAT_INVALID_STATE when the device is gone or a bind of the RMR is still
 * in flight, with the EP state subtype when the EP is not connected;
 * DAT_PROTECTION_VIOLATION when the EP is not in the RMR's PZ;
 * DAT_PRIVILEGES_VIOLATION (PRIVILEGES_RDMA_WRITE) for write privileges
 * on an LMR without local write;
 * DAT_INSUFFICIENT_RESOURCES (MEMORY_REGION) for a range needing more
 * pages than the RMR maps, (TEP) when the send queue is full.
 */
DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr_handle, DAT_LMR_HANDLE lmr_handle,
			const DAT_LMR_TRIPLET *lmr_triplet,
			DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie,
			DAT_COMPLETION_FLAGS completion_flags,
			DAT_RMR_CONTEXT *rmr_context)
{
	return kdapl_rmr_bind(&kdapl_kernel_owner, rmr_handle, lmr_handle,
			      lmr_triplet, mem_priv, va_type, ep_handle,
			      user_cookie, completion_flags, rmr_context);
}
EXPORT_SYMBOL_GPL(dat_rmr_bind);

/* Abrupt close: free in any state, unbinding first. */
static void kdapl_rmr_force_free(struct kdapl_object *obj)
{
	struct kdapl_rmr *rmr = container_of(obj, struct kdapl_rmr, obj);

	kdapl_object_unpublish(obj);
	kdapl_rmr_destroy(rmr);
}

/*
 * The device goes away: the MRs go, the object and its binding stay.  The
 * EPs were detached first, so no bind is in flight.
 */
static void kdapl_rmr_detach(struct kdapl_object *obj)
{
	struct kdapl_rmr *rmr = container_of(obj, struct kdapl_rmr, obj);

	kdapl_rmr_quiesce(rmr);
	kdapl_rmr_free_mrs(rmr);
}

static void kdapl_rmr_release(struct kdapl_object *obj)
{
	struct kdapl_rmr *rmr = container_of(obj, struct kdapl_rmr, obj);

	kdapl_object_put(&rmr->pz->obj);
	kfree_rcu(rmr, obj.rcu);
}

const struct kdapl_type_ops kdapl_rmr_type = {
	.name = "rmr",
	.bad_handle = DAT_INVALID_HANDLE_RMR,
	.close_rank = 20,
	.free = kdapl_rmr_force_free,
	.detach = kdapl_rmr_detach,
	.release = kdapl_rmr_release,
};
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_type);
