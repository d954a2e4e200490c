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
 * kdapl_pz_create() - dat_pz_create() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_pz_create()
 * @pz_handle: as for dat_pz_create()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_pz_create().
 * Return: as dat_pz_create().
 */
DAT_RETURN kdapl_pz_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			   DAT_PZ_HANDLE *pz_handle)
{
	struct kdapl_ia *ia;
	struct kdapl_pz *pz;
	DAT_RETURN ret;
	struct ib_pd *pd;

	if (!pz_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;

	pz = kzalloc(sizeof(*pz), GFP_KERNEL_ACCOUNT);
	if (!pz) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out_put;
	}
	kdapl_object_init(&pz->obj, DAT_HANDLE_TYPE_PZ, ia);
	xa_init(&pz->lmrs);
	mutex_init(&pz->reg_mutex);

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
EXPORT_SYMBOL_IF_KUNIT(kdapl_pz_create);

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
	return kdapl_pz_create(&kdapl_kernel_owner, ia_handle, pz_handle);
}
EXPORT_SYMBOL_GPL(dat_pz_create);

/**
 * kdapl_pz_query() - dat_pz_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @pz_handle: as for dat_pz_query()
 * @mask: as for dat_pz_query()
 * @param: as for dat_pz_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_pz_query().
 * Return: as dat_pz_query().
 */
DAT_RETURN kdapl_pz_query(struct kdapl_owner *owner, DAT_PZ_HANDLE pz_handle,
			  DAT_PZ_PARAM_MASK mask, DAT_PZ_PARAM *param)
{
	struct kdapl_pz *pz;
	DAT_RETURN ret;

	if (mask & ~DAT_PZ_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
	if (ret)
		return ret;
	if (mask & DAT_PZ_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&pz->obj.ia->obj);
	kdapl_object_put(&pz->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_pz_query);

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
	return kdapl_pz_query(&kdapl_kernel_owner, pz_handle, mask, param);
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

/**
 * kdapl_pz_add_rmr_hash() - make the binding of an RMR visible to posts
 * @pz: the PZ of the RMR
 * @rmr: the RMR, with a non-zero rmr_context that does not change while
 *	it is hashed
 *
 * Context: process context, with the IA lock held.
 */
void kdapl_pz_add_rmr_hash(struct kdapl_pz *pz, struct kdapl_rmr *rmr)
{
	lockdep_assert_held(&pz->obj.ia->lock);
	hlist_add_head_rcu(&rmr->hash_node,
			   &pz->rmr_hash[hash_32(rmr->rmr_context,
						 KDAPL_PZ_RMR_HASH_BITS)]);
}

/**
 * kdapl_pz_del_rmr_hash() - hide an RMR from posts
 * @rmr: the RMR, hashed or not
 *
 * Context: process context, with the IA lock held.
 */
void kdapl_pz_del_rmr_hash(struct kdapl_rmr *rmr)
{
	lockdep_assert_held(&rmr->obj.ia->lock);
	if (!hlist_unhashed(&rmr->hash_node))
		hlist_del_init_rcu(&rmr->hash_node);
}

/**
 * kdapl_pz_rmr_rcu() - the RMR of a PZ hashed with an rmr_context
 * @pz: the PZ
 * @rmr_context: the key
 *
 * The RMR may be rebound meanwhile: the caller checks its rmr_context
 * again under its lock.
 *
 * Context: any context, under rcu_read_lock(); the RMR's memory stays
 * until a grace period after it was freed.
 * Return: the RMR, or NULL.
 */
struct kdapl_rmr *kdapl_pz_rmr_rcu(struct kdapl_pz *pz,
				   DAT_RMR_CONTEXT rmr_context)
{
	struct hlist_head *head;
	struct kdapl_rmr *rmr;

	head = &pz->rmr_hash[hash_32(rmr_context, KDAPL_PZ_RMR_HASH_BITS)];
	hlist_for_each_entry_rcu(rmr, head, hash_node)
		if (READ_ONCE(rmr->rmr_context) == rmr_context)
			return rmr;
	return NULL;
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
 * kdapl_pz_free() - dat_pz_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @pz_handle: as for dat_pz_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_pz_free().
 * Return: as dat_pz_free().
 */
DAT_RETURN kdapl_pz_free(struct kdapl_owner *owner, DAT_PZ_HANDLE pz_handle)
{
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
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
EXPORT_SYMBOL_IF_KUNIT(kdapl_pz_free);

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
	return kdapl_pz_free(&kdapl_kernel_owner, pz_handle);
}
EXPORT_SYMBOL_GPL(dat_pz_free);

static void kdapl_pz_force_free(struct kdapl_object *obj)
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
	.free = kdapl_pz_force_free,
	.detach = kdapl_pz_detach,
	.release = kdapl_pz_release,
};
