// SPDX-License-Identifier: GPL-2.0
/*
 * Remote Memory Regions.  The RMR lives in the kernel, which binds it
 * with a work request on the EP's send queue, after what the process
 * queued in the EP's post ring; the bind's completion comes through the
 * EP's request EVD like a DTO's, with the RMR's handle as the cookie the
 * shim gave the kernel.  The shim keeps only the IA and PZ that
 * dat_rmr_query() reports.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "shim.h"

/* Does the module know the RMR commands (and the RMR post records)? */
int shim_rmr_supported(const struct shim_ia *ia)
{
	return ia->max_command > KDAPL_NR_RMR_BIND;
}

DAT_RETURN shim_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	struct shim_obj *pz = shim_obj_get(pz_handle, DAT_HANDLE_TYPE_PZ);
	struct kdapl_ioc_rmr_create c = { 0 };
	struct shim_rmr *rmr;
	DAT_RETURN ret;

	if (!rmr_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!pz)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (!shim_rmr_supported(pz->ia))
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	rmr = shim_obj_new(sizeof(*rmr), DAT_HANDLE_TYPE_RMR, pz->ia);
	if (!rmr)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	c.ia_id = pz->ia->obj.id;
	c.pz_id = pz->id;
	c.cookie = (uintptr_t)rmr;
	ret = SHIM_CALL(pz->ia, RMR_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&rmr->obj);
		return ret;
	}
	rmr->obj.id = c.rmr_id;
	rmr->pz = pz_handle;
	*rmr_handle = (DAT_RMR_HANDLE)rmr;
	return DAT_SUCCESS;
}

/*
 * An RMR tied to one connection needs a memory window of type 2, which
 * the kernel's verbs do not give kernel consumers in Linux 6.1 (kdapl's
 * RMRs are fast-registration MRs, reachable through every connection of
 * the PZ).  DAT lets a provider without the model say so, as OFA's does.
 */
DAT_RETURN shim_rmr_create_for_ep(DAT_PZ_HANDLE pz_handle,
				  DAT_RMR_HANDLE *rmr_handle)
{
	if (!rmr_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!shim_obj_get(pz_handle, DAT_HANDLE_TYPE_PZ))
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	return SHIM_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

DAT_RETURN shim_rmr_query(DAT_RMR_HANDLE handle, DAT_RMR_PARAM_MASK mask,
			  DAT_RMR_PARAM *param)
{
	struct shim_rmr *rmr = (struct shim_rmr *)shim_obj_get(handle,
							DAT_HANDLE_TYPE_RMR);
	struct kdapl_ioc_rmr_query q = { 0 };
	DAT_RETURN ret;

	if (!rmr)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	if (mask & ~DAT_RMR_FIELD_ALL)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	q.rmr_id = rmr->obj.id;
	ret = SHIM_CALL(rmr->obj.ia, RMR_QUERY, q);
	if (ret != DAT_SUCCESS)
		return ret;
	param->ia_handle = shim_consumer_ia_handle(rmr->obj.ia);
	param->pz_handle = rmr->pz;
	param->lmr_triplet.virtual_address = q.virtual_address;
	param->lmr_triplet.segment_length = q.segment_length;
	param->lmr_triplet.lmr_context = q.lmr_context;
	param->mem_priv = q.mem_priv;
	param->rmr_context = q.rmr_context;
	param->rmr_scope = q.rmr_scope;
	param->va_type = q.va_type;
	return DAT_SUCCESS;
}

/*
 * Bad handles and arguments are the kernel's to judge, so that their
 * errors come in kDAT's order (shim_obj_id()).
 */
DAT_RETURN shim_rmr_bind(DAT_RMR_HANDLE handle, DAT_LMR_HANDLE lmr_handle,
			 const DAT_LMR_TRIPLET *triplet,
			 DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			 DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE cookie,
			 DAT_COMPLETION_FLAGS flags,
			 DAT_RMR_CONTEXT *rmr_context)
{
	struct shim_rmr *rmr = (struct shim_rmr *)shim_obj_get(handle,
							DAT_HANDLE_TYPE_RMR);
	struct kdapl_ioc_rmr_bind b = { 0 };
	DAT_RETURN ret;

	if (!triplet)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!rmr_context)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG9);
	if (!rmr)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	b.rmr_id = rmr->obj.id;
	b.ep_id = shim_obj_id(ep_handle, DAT_HANDLE_TYPE_EP, rmr->obj.ia);
	b.lmr_id = shim_obj_id(lmr_handle, DAT_HANDLE_TYPE_LMR, rmr->obj.ia);
	b.mem_priv = mem_priv;
	b.virtual_address = triplet->virtual_address;
	b.segment_length = triplet->segment_length;
	b.lmr_context = triplet->lmr_context;
	b.va_type = va_type;
	b.completion_flags = flags;
	b.cookie = cookie.as_64;
	ret = SHIM_CALL(rmr->obj.ia, RMR_BIND, b);
	if (ret == DAT_SUCCESS)
		*rmr_context = b.rmr_context;
	return ret;
}

DAT_RETURN shim_rmr_free(DAT_RMR_HANDLE handle)
{
	return shim_obj_destroy(handle, DAT_HANDLE_TYPE_RMR,
				DAT_INVALID_HANDLE_RMR, KDAPL_IOC_RMR_FREE);
}
