// SPDX-License-Identifier: GPL-2.0
/*
 * Local Memory Regions: the process's own memory, pinned and registered
 * by the kernel (see Documentation/userapi.rst).  The shim keeps what
 * dat_lmr_query() returns.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "shim.h"

static struct shim_lmr *shim_lmr_get(DAT_LMR_HANDLE handle)
{
	return (struct shim_lmr *)shim_obj_get(handle, DAT_HANDLE_TYPE_LMR);
}

/* The arguments that need no call, in the order of dat_lmr_create(). */
static DAT_RETURN shim_lmr_check(DAT_MEM_TYPE mem_type,
				 DAT_REGION_DESCRIPTION region, DAT_VLEN length,
				 DAT_MEM_PRIV_FLAGS priv, DAT_VA_TYPE va_type,
				 DAT_LMR_HANDLE *lmr_handle)
{
	switch (mem_type) {
	case DAT_MEM_TYPE_VIRTUAL:
		break;
	case DAT_MEM_TYPE_LMR:
	case DAT_MEM_TYPE_SHARED_VIRTUAL:
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	default:
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	if (!region.for_va)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!length)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	/* The IB extensions' privilege: the kernel grants it where the
	 * device has atomics, and ignores it elsewhere, as OFA's provider.
	 */
	if (priv & ~(DAT_MEM_PRIV_ALL_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC))
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (va_type != DAT_VA_TYPE_VA)
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	if (!lmr_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
	return DAT_SUCCESS;
}

DAT_RETURN shim_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
			   DAT_REGION_DESCRIPTION region, DAT_VLEN length,
			   DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS priv,
			   DAT_VA_TYPE va_type, DAT_LMR_HANDLE *lmr_handle,
			   DAT_LMR_CONTEXT *lmr_context,
			   DAT_RMR_CONTEXT *rmr_context,
			   DAT_VLEN *registered_length,
			   DAT_VADDR *registered_address)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct shim_obj *pz = shim_obj_get(pz_handle, DAT_HANDLE_TYPE_PZ);
	struct kdapl_ioc_lmr_create c = { 0 };
	struct shim_lmr *lmr;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	ret = shim_lmr_check(mem_type, region, length, priv, va_type,
			     lmr_handle);
	if (ret != DAT_SUCCESS)
		return ret;
	if (!pz || pz->ia != ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	lmr = shim_obj_new(sizeof(*lmr), DAT_HANDLE_TYPE_LMR, ia);
	if (!lmr)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	c.ia_id = ia->obj.id;
	c.pz_id = pz->id;
	c.addr = (uintptr_t)region.for_va;
	c.length = length;
	c.privileges = priv;
	c.cookie = (uintptr_t)lmr;
	ret = SHIM_CALL(ia, LMR_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&lmr->obj);
		return ret;
	}
	lmr->obj.id = c.lmr_id;
	lmr->pz = (struct shim_pz *)pz;
	lmr->region = region;
	lmr->length = length;
	lmr->priv = priv;
	lmr->lmr_context = c.lmr_context;
	lmr->rmr_context = c.rmr_context;
	lmr->registered_address = c.registered_address;
	lmr->registered_size = c.registered_length;
	*lmr_handle = (DAT_LMR_HANDLE)lmr;
	if (lmr_context)
		*lmr_context = lmr->lmr_context;
	if (rmr_context)
		*rmr_context = lmr->rmr_context;
	if (registered_length)
		*registered_length = lmr->registered_size;
	if (registered_address)
		*registered_address = lmr->registered_address;
	return DAT_SUCCESS;
}

DAT_RETURN shim_lmr_query(DAT_LMR_HANDLE handle, DAT_LMR_PARAM_MASK mask,
			  DAT_LMR_PARAM *p)
{
	struct shim_lmr *lmr = shim_lmr_get(handle);

	if (!lmr)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	if (mask & ~DAT_LMR_FIELD_ALL)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!p)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (mask & DAT_LMR_FIELD_IA_HANDLE)
		p->ia_handle = shim_consumer_ia_handle(lmr->obj.ia);
	p->mem_type = DAT_MEM_TYPE_VIRTUAL;
	p->region_desc = lmr->region;
	p->length = lmr->length;
	p->pz_handle = (DAT_PZ_HANDLE)lmr->pz;
	p->mem_priv = lmr->priv;
	p->va_type = DAT_VA_TYPE_VA;
	p->lmr_context = lmr->lmr_context;
	p->rmr_context = lmr->rmr_context;
	p->registered_size = lmr->registered_size;
	p->registered_address = lmr->registered_address;
	return DAT_SUCCESS;
}

DAT_RETURN shim_lmr_free(DAT_LMR_HANDLE handle)
{
	return shim_obj_destroy(handle, DAT_HANDLE_TYPE_LMR,
				DAT_INVALID_HANDLE_LMR, KDAPL_IOC_LMR_FREE);
}

/*
 * Validate (and, where the device needs it, sync) ranges of LMRs of an
 * IA.  DAT_LMR_TRIPLET has the layout of struct kdapl_post_sge.
 */
static DAT_RETURN shim_lmr_sync(DAT_IA_HANDLE ia_handle,
				const DAT_LMR_TRIPLET *segments,
				DAT_VLEN num_segments, __u32 flags)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct kdapl_ioc_lmr_sync s = { .flags = flags };

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!segments && num_segments)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	s.ia_id = ia->obj.id;
	s.segments = (uintptr_t)segments;
	s.num_segments = num_segments;
	return SHIM_CALL(ia, LMR_SYNC, s);
}

DAT_RETURN shim_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *segments,
				   DAT_VLEN num_segments)
{
	return shim_lmr_sync(ia_handle, segments, num_segments, 0);
}

DAT_RETURN shim_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				    const DAT_LMR_TRIPLET *segments,
				    DAT_VLEN num_segments)
{
	return shim_lmr_sync(ia_handle, segments, num_segments,
			     KDAPL_LMR_SYNC_FOR_CPU);
}
