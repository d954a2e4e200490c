// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands of /dev/kdapl for Common Service Points.
 *
 * A CSP of a file is a kDAT CSP with the file as owner: its connection
 * requests reach the file's EVD as a PSP's do, carrying the cookie the
 * process gave the CSP.  The communicator and address it was created
 * with are the library's to report (dat_csp_query()): it keeps them.
 *
 * Locking: the handlers run with ufile->lock held, as the table of
 * kdapl_uioctl.c says; kDAT takes its own locks inside.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "kdapl_user.h"

/**
 * kdapl_ucsp_create() - KDAPL_IOC_CSP_CREATE
 * @ufile: the file
 * @arg: struct kdapl_ioc_csp_create
 * @status: out: the DAT_RETURN of dat_csp_create()
 *
 * An id that names no IA or EVD of the file reaches kDAT as a null
 * handle, so that its error comes in kDAT's order of checks.
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero reserved fields.
 */
int kdapl_ucsp_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status)
{
	struct kdapl_ioc_csp_create *a = arg;
	DAT_COMM comm = {
		.domain = a->domain,
		.type = a->type,
		.protocol = a->protocol,
	};
	struct sockaddr_storage addr;
	struct kdapl_uobj *uobj;
	DAT_HANDLE ia, evd;
	DAT_CSP_HANDLE csp;
	DAT_RETURN ret;

	if (a->reserved || a->reserved2)
		return -EINVAL;
	static_assert(sizeof(addr) == sizeof(a->addr));
	memcpy(&addr, a->addr, sizeof(addr));
	ia = kdapl_uobj_handle(ufile, a->ia_id, DAT_HANDLE_TYPE_IA);
	evd = kdapl_uobj_handle(ufile, a->evd_id, DAT_HANDLE_TYPE_EVD);
	ret = kdapl_csp_create(&ufile->owner, ia, &comm,
			       (struct sockaddr *)&addr, evd, &csp);
	if (!ret) {
		ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_CSP, csp,
				     a->cookie, a->ia_id, &uobj);
		if (ret)
			kdapl_csp_free(&ufile->owner, csp);
		else
			a->csp_id = uobj->id;
	}
	*status = ret;
	return 0;
}

/**
 * kdapl_ucsp_free() - KDAPL_IOC_CSP_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free
 * @status: out: the DAT_RETURN of dat_csp_free()
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero flags.
 */
int kdapl_ucsp_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;
	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_CSP,
				  DAT_INVALID_HANDLE_CSP, kdapl_csp_free);
	return 0;
}
