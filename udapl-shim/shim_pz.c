// SPDX-License-Identifier: GPL-2.0
/*
 * Protection Zones.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "shim.h"

DAT_RETURN shim_pz_create(DAT_IA_HANDLE handle, DAT_PZ_HANDLE *pz_handle)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_IA);
	struct kdapl_ioc_pz_create c = { 0 };
	struct shim_pz *pz;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!pz_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	pz = shim_obj_new(sizeof(*pz), DAT_HANDLE_TYPE_PZ, ia);
	if (!pz)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	c.ia_id = ia->obj.id;
	ret = SHIM_CALL(ia, PZ_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&pz->obj);
		return ret;
	}
	pz->obj.id = c.pz_id;
	*pz_handle = (DAT_PZ_HANDLE)pz;
	return DAT_SUCCESS;
}

DAT_RETURN shim_pz_query(DAT_PZ_HANDLE handle, DAT_PZ_PARAM_MASK mask,
			 DAT_PZ_PARAM *param)
{
	struct shim_obj *pz = shim_obj_get(handle, DAT_HANDLE_TYPE_PZ);

	if (!pz)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (mask & ~DAT_PZ_FIELD_ALL)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (mask & DAT_PZ_FIELD_IA_HANDLE)
		param->ia_handle = shim_consumer_ia_handle(pz->ia);
	return DAT_SUCCESS;
}

DAT_RETURN shim_pz_free(DAT_PZ_HANDLE handle)
{
	return shim_obj_destroy(handle, DAT_HANDLE_TYPE_PZ,
				DAT_INVALID_HANDLE_PZ, KDAPL_IOC_PZ_FREE);
}
