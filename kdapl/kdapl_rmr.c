// SPDX-License-Identifier: GPL-2.0
/*
 * Remote Memory Regions: windows on LMRs that peers reach with their
 * own remote key.
 *
 * ib_core in Linux 6.1 has no memory window verbs for kernel consumers:
 * drivers implement alloc_mw/dealloc_mw for user space only, and
 * include/rdma/ib_verbs.h declares no ib_alloc_mw().  An RMR is therefore
 * emulated with a fast-registration MR of its own.  Binding it (next to
 * come) maps that MR over the pages of a range of an LMR and posts an
 * IB_WR_REG_MR with a fresh key; the key is the RMR's rmr_context.
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
	mr = ib_alloc_mr(pz->pd, IB_MR_TYPE_MEM_REG, rmr->max_pages);
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
