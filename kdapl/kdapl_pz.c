// SPDX-License-Identifier: GPL-2.0
/*
 * Protection Zones: one ib_pd each.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

/**
 * dat_pz_create() - create a Protection Zone
 * @ia_handle: the IA
 * @pz_handle: out: the PZ
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (IA); DAT_INVALID_PARAMETER if
 * @pz_handle is NULL; DAT_INVALID_STATE if the IA's device is gone;
 * DAT_INSUFFICIENT_RESOURCES (MEMORY, or PROTECTION_DOMAIN if the device
 * refuses).
 */
DAT_RETURN dat_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	struct kdapl_ia *ia;
	struct kdapl_pz *pz;
	DAT_RETURN ret;
	struct ib_pd *pd;

	if (!pz_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;

	pz = kzalloc(sizeof(*pz), GFP_KERNEL);
	if (!pz) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out_put;
	}
	kdapl_object_init(&pz->obj, DAT_HANDLE_TYPE_PZ, ia);
	xa_init(&pz->lmrs);

	mutex_lock(&ia->lock);
	if (!ia->ibdev || ia->closing) {
		ret = dat_error(DAT_INVALID_STATE, 0);
		goto out_free;
	}
	pd = ib_alloc_pd(ia->ibdev, 0);
	if (IS_ERR(pd)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_PROTECTION_DOMAIN);
		goto out_free;
	}
	pz->pd = pd;
	if (kdapl_object_publish(&pz->obj)) {
		ib_dealloc_pd(pd);
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out_free;
	}
	kdapl_ia_add_object(ia, &pz->obj);
	*pz_handle = kdapl_object_handle(&pz->obj);
	mutex_unlock(&ia->lock);
	goto out_put;

out_free:
	mutex_unlock(&ia->lock);
	kfree(pz);
out_put:
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_pz_create);

/**
 * dat_pz_query() - parameters of a Protection Zone
 * @pz_handle: the PZ
 * @mask: DAT_PZ_FIELD_* wanted
 * @param: out: the parameters
 *
 * Context: any context.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (PZ); DAT_INVALID_PARAMETER
 * for unknown mask bits or a NULL @param.
 */
DAT_RETURN dat_pz_query(DAT_PZ_HANDLE pz_handle, DAT_PZ_PARAM_MASK mask,
			DAT_PZ_PARAM *param)
{
	struct kdapl_pz *pz;
	DAT_RETURN ret;

	if (mask & ~DAT_PZ_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
	if (ret)
		return ret;
	if (mask & DAT_PZ_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&pz->obj.ia->obj);
	kdapl_object_put(&pz->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_pz_query);

/**
 * kdapl_pz_add_lmr_hash() - make an LMR of a PZ visible to DTO posts
 * @pz: the PZ
 * @lmr: the LMR, just inserted in @pz's lmrs
 *
 * Context: process context, with the IA lock held.
 */
void kdapl_pz_add_lmr_hash(struct kdapl_pz *pz, struct kdapl_lmr *lmr)
{
	lockdep_assert_held(&pz->obj.ia->lock);
	hlist_add_head_rcu(&lmr->hash_node,
			   &pz->lmr_hash[hash_32(lmr->lmr_context,
						 KDAPL_PZ_LMR_HASH_BITS)]);
}

/**
 * kdapl_pz_del_lmr_hash() - hide an LMR from DTO posts
 * @lmr: the LMR, hashed or not; posts that found it before may use it
 *	until a grace period has passed
 *
 * Context: process context, with the IA lock held.
 */
void kdapl_pz_del_lmr_hash(struct kdapl_lmr *lmr)
{
	lockdep_assert_held(&lmr->obj.ia->lock);
	if (!hlist_unhashed(&lmr->hash_node))
		hlist_del_init_rcu(&lmr->hash_node);
}

/* Release the PD and take the PZ out of its IA.  IA lock held. */
static void kdapl_pz_destroy(struct kdapl_pz *pz)
{
	lockdep_assert_held(&pz->obj.ia->lock);
	WARN_ON_ONCE(!xa_empty(&pz->lmrs));
	if (pz->pd) {
		ib_dealloc_pd(pz->pd);
		pz->pd = NULL;
	}
	kdapl_ia_del_object(pz->obj.ia, &pz->obj);
}

/**
 * dat_pz_free() - free a Protection Zone
 * @pz_handle: the PZ
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (PZ); DAT_INVALID_STATE
 * (PZ_IN_USE) while an EP, LMR, RMR or SRQ uses it.
 */
DAT_RETURN dat_pz_free(DAT_PZ_HANDLE pz_handle)
{
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
	if (ret)
		return ret;
	ia = pz->obj.ia;

	mutex_lock(&ia->lock);
	if (pz->obj.users)
		ret = dat_error(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
	else if (!kdapl_object_unpublish(&pz->obj))
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	else
		kdapl_pz_destroy(pz);
	mutex_unlock(&ia->lock);
	kdapl_object_put(&pz->obj);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_pz_free);

static void kdapl_pz_free(struct kdapl_object *obj)
{
	struct kdapl_pz *pz = container_of(obj, struct kdapl_pz, obj);

	kdapl_object_unpublish(obj);
	kdapl_pz_destroy(pz);
}

static void kdapl_pz_detach(struct kdapl_object *obj)
{
	struct kdapl_pz *pz = container_of(obj, struct kdapl_pz, obj);

	if (pz->pd) {
		ib_dealloc_pd(pz->pd);
		pz->pd = NULL;
	}
}

static void kdapl_pz_release(struct kdapl_object *obj)
{
	struct kdapl_pz *pz = container_of(obj, struct kdapl_pz, obj);

	xa_destroy(&pz->lmrs);
	kfree_rcu(pz, obj.rcu);
}

const struct kdapl_type_ops kdapl_pz_type = {
	.name = "pz",
	.bad_handle = DAT_INVALID_HANDLE_PZ,
	.close_rank = 60,
	.free = kdapl_pz_free,
	.detach = kdapl_pz_detach,
	.release = kdapl_pz_release,
};
