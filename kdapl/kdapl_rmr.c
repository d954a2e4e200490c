// SPDX-License-Identifier: GPL-2.0
/*
 * Remote Memory Regions: windows on LMRs that peers reach with their
 * own remote key.
 *
 * ib_core in Linux 6.1 has no memory window verbs for kernel consumers:
 * drivers implement alloc_mw/dealloc_mw for user space only, and
 * include/rdma/ib_verbs.h declares no ib_alloc_mw().  An RMR is therefore
 * emulated with a fast-registration MR of its own.  Binding it
 * (dat_rmr_bind()) maps that MR over the pages of a range of an LMR and
 * posts an IB_WR_REG_MR with a fresh key; the key is the RMR's
 * rmr_context.
 *
 * While bound, the RMR uses its LMR (dat_lmr_free() refuses with
 * DAT_INVALID_STATE_LMR_IN_USE).  kdapl_rmr_bind_lmr() and
 * kdapl_rmr_unbind() keep that bookkeeping.
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

/**
 * kdapl_rmr_bind_lmr() - record that an RMR is bound to a range of an LMR
 * @rmr: the RMR
 * @lmr: the LMR, of the same IA
 * @triplet: the range bound
 * @priv: DAT_MEM_PRIV_* flags of the binding
 *
 * Replaces any previous binding.  The RMR takes a use of @lmr (and a
 * reference), so that the LMR cannot be freed while the RMR is bound to
 * it.  rmr_context becomes the current remote key of the RMR's MR; the
 * caller posts the registration that makes it valid.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_rmr_bind_lmr(struct kdapl_rmr *rmr, struct kdapl_lmr *lmr,
			const DAT_LMR_TRIPLET *triplet,
			DAT_MEM_PRIV_FLAGS priv)
{
	lockdep_assert_held(&rmr->obj.ia->lock);
	WARN_ON_ONCE(lmr->obj.ia != rmr->obj.ia);

	kref_get(&lmr->obj.ref);
	kdapl_use(&lmr->obj);
	kdapl_rmr_unbind(rmr);
	rmr->lmr = lmr;
	rmr->triplet = *triplet;
	rmr->priv = priv;
	rmr->rmr_context = rmr->mr ? rmr->mr->rkey : 0;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_bind_lmr);

/**
 * kdapl_rmr_unbind() - forget the binding of an RMR
 * @rmr: the RMR, bound or not
 *
 * Drops the use of the LMR it was bound to.
 *
 * Context: process context, the IA lock held.
 */
void kdapl_rmr_unbind(struct kdapl_rmr *rmr)
{
	struct kdapl_lmr *lmr = rmr->lmr;

	lockdep_assert_held(&rmr->obj.ia->lock);
	if (!lmr)
		return;
	rmr->lmr = NULL;
	memset(&rmr->triplet, 0, sizeof(rmr->triplet));
	rmr->priv = 0;
	rmr->rmr_context = 0;
	kdapl_unuse(&lmr->obj);
	kdapl_object_put(&lmr->obj);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_unbind);

/**
 * dat_rmr_create() - create a Remote Memory Region
 * @pz_handle: the PZ
 * @rmr_handle: out: the RMR, unbound
 *
 * Allocates the fast-registration MR the RMR is bound with; it can map
 * up to min(max_fast_reg_page_list_len, 256) pages.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (ARG2) for a NULL
 * @rmr_handle; DAT_INVALID_HANDLE (PZ) for a bad @pz_handle;
 * DAT_INVALID_STATE if the IA's device is gone or the IA is closing;
 * DAT_INSUFFICIENT_RESOURCES (MEMORY_REGION) if the device refuses the
 * MR, (MEMORY) when out of memory.
 */
DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	struct kdapl_rmr *rmr;
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	struct ib_mr *mr;
	DAT_RETURN ret;

	if (!rmr_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
	if (ret)
		return ret;
	ia = pz->obj.ia;

	rmr = kzalloc(sizeof(*rmr), GFP_KERNEL);
	if (!rmr) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out_pz;
	}
	kdapl_object_init(&rmr->obj, DAT_HANDLE_TYPE_RMR, ia);
	rmr->pz = pz;

	mutex_lock(&ia->lock);
	if (!ia->ibdev || ia->closing || !pz->pd) {
		ret = dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto err_unlock;
	}
	rmr->max_pages = min_t(u32, KDAPL_RMR_MAX_PAGES,
			       ia->ibdev->attrs.max_fast_reg_page_list_len);
	/* A spare page for rdma_rxe, see kdapl_lmr_map(). */
	mr = ib_alloc_mr(pz->pd, IB_MR_TYPE_MEM_REG,
			 min(rmr->max_pages + 1,
			     ia->ibdev->attrs.max_fast_reg_page_list_len));
	if (IS_ERR(mr)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY_REGION);
		goto err_unlock;
	}
	rmr->mr = mr;
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
	ib_dereg_mr(mr);
err_unlock:
	mutex_unlock(&ia->lock);
	kfree(rmr);
out_pz:
	kdapl_object_put(&pz->obj);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_rmr_create);

/**
 * dat_rmr_query() - parameters of a Remote Memory Region
 * @rmr_handle: the RMR
 * @mask: DAT_RMR_FIELD_* wanted
 * @param: out: the fields @mask asks for; the others are not written
 *
 * lmr_triplet, mem_priv and rmr_context describe the current binding and
 * are zero while the RMR is unbound.  rmr_scope is DAT_RMR_SCOPE_EP and
 * va_type DAT_VA_TYPE_VA.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (ARG2) for mask bits outside
 * DAT_RMR_FIELD_ALL, (ARG3) for a NULL @param; DAT_INVALID_HANDLE (RMR)
 * for a bad @rmr_handle.
 */
DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle, DAT_RMR_PARAM_MASK mask,
			 DAT_RMR_PARAM *param)
{
	struct kdapl_rmr *rmr;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (mask & ~DAT_RMR_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(rmr_handle, RMR, DAT_INVALID_HANDLE_RMR, &rmr);
	if (ret)
		return ret;
	ia = rmr->obj.ia;

	if (mask & DAT_RMR_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&ia->obj);
	if (mask & DAT_RMR_FIELD_PZ_HANDLE)
		param->pz_handle = kdapl_object_handle(&rmr->pz->obj);
	if (mask & DAT_RMR_FIELD_RMR_SCOPE)
		param->rmr_scope = DAT_RMR_SCOPE_EP;
	if (mask & DAT_RMR_FIELD_VA_TYPE)
		param->va_type = DAT_VA_TYPE_VA;
	/* The binding changes under the IA lock. */
	mutex_lock(&ia->lock);
	if (mask & DAT_RMR_FIELD_LMR_TRIPLET)
		param->lmr_triplet = rmr->triplet;
	if (mask & DAT_RMR_FIELD_MEM_PRIV)
		param->mem_priv = rmr->priv;
	if (mask & DAT_RMR_FIELD_RMR_CONTEXT)
		param->rmr_context = rmr->rmr_context;
	mutex_unlock(&ia->lock);
	kdapl_object_put(&rmr->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_rmr_query);

/* Release everything of a freed RMR but its memory.  IA lock held. */
static void kdapl_rmr_destroy(struct kdapl_rmr *rmr)
{
	struct kdapl_ia *ia = rmr->obj.ia;

	lockdep_assert_held(&ia->lock);
	kdapl_rmr_unbind(rmr);
	if (rmr->mr) {
		ib_dereg_mr(rmr->mr);
		rmr->mr = NULL;
	}
	kdapl_unuse(&rmr->pz->obj);
	kdapl_ia_del_object(ia, &rmr->obj);
}

/**
 * dat_rmr_free() - destroy a Remote Memory Region
 * @rmr_handle: the RMR, bound or not
 *
 * A bound RMR is unbound first: its LMR is no longer in use by it and
 * the device refuses its rmr_context from then on.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (RMR) for a bad, freed or
 * concurrently freed @rmr_handle.
 */
DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	struct kdapl_rmr *rmr;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(rmr_handle, RMR, DAT_INVALID_HANDLE_RMR, &rmr);
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
EXPORT_SYMBOL_GPL(dat_rmr_free);

/* Completion flags dat_rmr_bind() takes. */
#define KDAPL_RMR_BIND_FLAGS						\
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | \
	 DAT_COMPLETION_BARRIER_FENCE_FLAG)

/* IB access flags of a binding; as for LMRs (see kdapl_lmr.c). */
static int kdapl_rmr_access(struct kdapl_ia *ia, DAT_MEM_PRIV_FLAGS priv)
{
	int access = 0;

	if (priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG) {
		access |= IB_ACCESS_LOCAL_WRITE;
		if (ia->adapter->transport == KDAPL_TRANSPORT_IWARP)
			access |= IB_ACCESS_REMOTE_WRITE;
	}
	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		access |= IB_ACCESS_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		access |= IB_ACCESS_REMOTE_WRITE | IB_ACCESS_LOCAL_WRITE;
	return access;
}

/*
 * Map the RMR's MR over [@va, @va + @len) of @lmr, a range the LMR
 * covers: the LMR's address space runs over its mapped entries back to
 * back.  IA lock held.
 */
static DAT_RETURN kdapl_rmr_map(struct kdapl_rmr *rmr, struct kdapl_lmr *lmr,
				DAT_VADDR va, DAT_VLEN len)
{
	u64 off = va - lmr->registered_address, end = off + len, pos = 0;
	struct scatterlist *s, *first = NULL;
	unsigned int sg_offset = 0;
	int i, count = 0, n;

	for_each_sg(lmr->sg, s, lmr->dma_nents, i) {
		u64 l = sg_dma_len(s);

		if (!first && off < pos + l) {
			first = s;
			sg_offset = off - pos;
		}
		if (first)
			count++;
		pos += l;
		if (first && end <= pos)
			break;
	}
	if (!first || end > pos)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	n = ib_map_mr_sg(rmr->mr, first, count, &sg_offset, PAGE_SIZE);
	if (n != count)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);
	/* The window is exactly the range, in the LMR's address space. */
	rmr->mr->iova = va;
	rmr->mr->length = len;
	return DAT_SUCCESS;
}

static bool kdapl_rmr_ep_connected(DAT_EP_STATE state)
{
	return state == DAT_EP_STATE_CONNECTED ||
	       state == DAT_EP_STATE_CONNECTED_SINGLE_PATH ||
	       state == DAT_EP_STATE_CONNECTED_MULTI_PATH;
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

	if (list_empty(&rmr->obj.ia_entry))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	if (ep->obj.ia != ia || list_empty(&ep->obj.ia_entry))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (lmr && (lmr->obj.ia != ia || list_empty(&lmr->obj.ia_entry)))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	if (!rmr->mr || !ia->ibdev || (lmr && !lmr->sg))
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	/* The MR and the QP must share the protection domain. */
	if (READ_ONCE(ep->pz) != rmr->pz)
		return dat_error(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
	if (!lmr)
		return DAT_SUCCESS;
	if (t->lmr_context != lmr->lmr_context ||
	    !kdapl_lmr_covers(lmr, t->virtual_address, t->segment_length))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	/* Writes through the window land in the LMR's memory. */
	if ((mem_priv & (DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
			 DAT_MEM_PRIV_REMOTE_WRITE_FLAG)) &&
	    !(lmr->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG))
		return dat_error(DAT_PRIVILEGES_VIOLATION,
				 DAT_PRIVILEGES_RDMA_WRITE);
	return DAT_SUCCESS;
}

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
 * The RMR's fast-registration MR is mapped over the range and given a
 * new key; an IB_WR_REG_MR with that key is posted on the EP's send
 * queue, preceded by an IB_WR_LOCAL_INV of the previous key if the RMR
 * was bound.  Unbinding posts the IB_WR_LOCAL_INV alone (nothing when
 * the RMR is not bound; the completion event is then delivered at
 * once).  The completion goes to the EP's request EVD as a
 * DAT_RMR_BIND_COMPLETION_EVENT.  The RMR uses the LMR from the post on,
 * until it is unbound or freed.
 *
 * A rebind remaps the MR before the invalidation of the old key
 * executes: consumers that must not let the old key reach the new range
 * even briefly unbind first and wait for that completion.
 *
 * Context: process context, may sleep (takes the IA lock).
 * Return: DAT_SUCCESS;
 * DAT_INVALID_PARAMETER (ARG3) for a NULL @lmr_triplet or one that is not
 * inside the LMR or names another lmr_context, (ARG4) for unknown
 * privileges, (ARG5) for an unknown @va_type, (ARG8) for bad completion
 * flags, (ARG9) for a NULL @rmr_context;
 * DAT_NOT_IMPLEMENTED for DAT_VA_TYPE_ZB;
 * DAT_INVALID_HANDLE (RMR, LMR, EP) for a bad handle;
 * DAT_INVALID_STATE when the device is gone, with the EP state subtype
 * when the EP is not connected;
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
	struct kdapl_evd *report = NULL;
	struct kdapl_lmr *lmr = NULL;
	struct kdapl_rmr *rmr;
	struct kdapl_ep *ep;
	unsigned long flags;
	struct kdapl_ia *ia;
	bool unbind;
	u32 inv_key;
	DAT_RETURN ret;

	ret = kdapl_rmr_bind_args(lmr_triplet, mem_priv, va_type,
				  completion_flags, rmr_context);
	if (ret)
		return ret;
	ret = kdapl_get(rmr_handle, RMR, DAT_INVALID_HANDLE_RMR, &rmr);
	if (ret)
		return ret;
	ia = rmr->obj.ia;
	ret = kdapl_get(ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		goto put_rmr;
	unbind = !lmr_triplet->segment_length;
	if (!unbind) {
		ret = kdapl_get(lmr_handle, LMR, DAT_INVALID_HANDLE_LMR, &lmr);
		if (ret)
			goto put_ep;
	}

	mutex_lock(&ia->lock);
	ret = kdapl_rmr_bind_check(rmr, lmr, ep, lmr_triplet, mem_priv);
	if (ret)
		goto unlock;
	/* Checked again when posting; nothing is mapped for a bad state. */
	spin_lock_irqsave(&ep->lock, flags);
	if (!kdapl_rmr_ep_connected(ep->state))
		ret = kdapl_ep_state_error(ep->state);
	else if (!ep->qp)
		ret = kdapl_ep_state_error(DAT_EP_STATE_DISCONNECTED);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ret)
		goto unlock;
	inv_key = rmr->lmr ? rmr->rmr_context : 0;
	if (unbind && !inv_key) {
		/* Nothing bound: nothing to post, the bind completes now. */
		if (ep->request_evd &&
		    !(completion_flags & (DAT_COMPLETION_SUPPRESS_FLAG |
					  DAT_COMPLETION_UNSIGNALLED_FLAG))) {
			/* Delivered unlocked: its upcall may call kDAT. */
			report = ep->request_evd;
			kref_get(&report->obj.ref);
		}
		*rmr_context = 0;
		goto unlock;
	}
	if (!unbind) {
		ret = kdapl_rmr_map(rmr, lmr, lmr_triplet->virtual_address,
				    lmr_triplet->segment_length);
		if (ret)
			goto unlock;
		ib_update_fast_reg_key(rmr->mr, ib_inc_rkey(rmr->mr->rkey));
	}
	ret = kdapl_dto_post_bind(ep, rmr, inv_key, !unbind,
				  kdapl_rmr_access(ia, mem_priv), user_cookie,
				  completion_flags);
	if (ret)
		goto unlock;
	if (unbind)
		kdapl_rmr_unbind(rmr);
	else
		kdapl_rmr_bind_lmr(rmr, lmr, lmr_triplet, mem_priv);
	*rmr_context = rmr->rmr_context;
unlock:
	mutex_unlock(&ia->lock);
	if (report) {
		DAT_EVENT ev = { .event_number = DAT_RMR_BIND_COMPLETION_EVENT };

		ev.event_data.rmr_completion_event_data.rmr_handle =
			rmr_handle;
		ev.event_data.rmr_completion_event_data.user_cookie =
			user_cookie;
		ev.event_data.rmr_completion_event_data.status =
			DAT_RMR_BIND_SUCCESS;
		kdapl_evd_post(report, &ev);
		kdapl_object_put(&report->obj);
	}
	if (lmr)
		kdapl_object_put(&lmr->obj);
put_ep:
	kdapl_object_put(&ep->obj);
put_rmr:
	kdapl_object_put(&rmr->obj);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_rmr_bind);

/* Abrupt close: free in any state, unbinding first. */
static void kdapl_rmr_free(struct kdapl_object *obj)
{
	struct kdapl_rmr *rmr = container_of(obj, struct kdapl_rmr, obj);

	kdapl_object_unpublish(obj);
	kdapl_rmr_destroy(rmr);
}

/* The device goes away: drop the MR, keep the object and its binding. */
static void kdapl_rmr_detach(struct kdapl_object *obj)
{
	struct kdapl_rmr *rmr = container_of(obj, struct kdapl_rmr, obj);

	if (rmr->mr) {
		ib_dereg_mr(rmr->mr);
		rmr->mr = NULL;
	}
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
	.free = kdapl_rmr_free,
	.detach = kdapl_rmr_detach,
	.release = kdapl_rmr_release,
};
EXPORT_SYMBOL_IF_KUNIT(kdapl_rmr_type);
