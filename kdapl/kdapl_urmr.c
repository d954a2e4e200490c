// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands of /dev/kdapl for Remote Memory Regions.
 *
 * An RMR of a file is a kDAT RMR with the file as owner: it binds only
 * the file's LMRs, through the file's EPs, and its bind completions reach
 * the request EVD of that EP carrying the cookie the process gave the RMR
 * at creation (struct kdapl_uevent.data[0]) and the bind's own cookie.
 * A bind is posted after whatever the process published in the EP's post
 * ring, so that the send queue holds the requests in the order the
 * process made them.
 *
 * Locking: the handlers run with ufile->lock held, as the table of
 * kdapl_uioctl.c says; kDAT takes its own locks inside.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "kdapl_user.h"

/* The file's RMR of @id, or NULL after setting *status. */
static struct kdapl_uobj *kdapl_urmr_find(struct kdapl_ufile *ufile, u32 id,
					  DAT_RETURN *status)
{
	struct kdapl_uobj *uobj;

	uobj = kdapl_uobj_find(ufile, id, DAT_HANDLE_TYPE_RMR);
	if (!uobj)
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	return uobj;
}

/**
 * kdapl_urmr_create() - KDAPL_IOC_RMR_CREATE
 * @ufile: the file
 * @arg: struct kdapl_ioc_rmr_create
 * @status: out: the DAT_RETURN of dat_rmr_create()
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for a non-zero reserved field.
 */
int kdapl_urmr_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status)
{
	struct kdapl_ioc_rmr_create *a = arg;
	struct kdapl_uobj *ia, *pz, *uobj;
	DAT_RMR_HANDLE rmr;
	DAT_RETURN ret;

	if (a->reserved)
		return -EINVAL;
	*status = kdapl_uobj_find_ia_pz(ufile, a->ia_id, a->pz_id, &ia, &pz);
	if (*status)
		return 0;
	ret = kdapl_rmr_create(&ufile->owner, pz->handle, &rmr);
	if (!ret) {
		ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_RMR, rmr, a->cookie,
				     ia->id, &uobj);
		if (ret)
			kdapl_rmr_free(&ufile->owner, rmr);
		else
			a->rmr_id = uobj->id;
	}
	*status = ret;
	return 0;
}

/**
 * kdapl_urmr_free() - KDAPL_IOC_RMR_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free
 * @status: out: the DAT_RETURN of dat_rmr_free()
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero flags.
 */
int kdapl_urmr_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;
	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_RMR,
				  DAT_INVALID_HANDLE_RMR, kdapl_rmr_free);
	return 0;
}

/**
 * kdapl_urmr_query() - KDAPL_IOC_RMR_QUERY
 * @ufile: the file
 * @arg: struct kdapl_ioc_rmr_query
 * @status: out: the DAT_RETURN of dat_rmr_query()
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for a non-zero reserved field.
 */
int kdapl_urmr_query(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	const DAT_RMR_PARAM_MASK mask = DAT_RMR_FIELD_ALL &
					~(DAT_RMR_FIELD_IA_HANDLE |
					  DAT_RMR_FIELD_PZ_HANDLE);
	struct kdapl_ioc_rmr_query *a = arg;
	struct kdapl_uobj *uobj;
	DAT_RMR_PARAM p = {};

	if (a->reserved)
		return -EINVAL;
	uobj = kdapl_urmr_find(ufile, a->rmr_id, status);
	if (!uobj)
		return 0;
	*status = kdapl_rmr_query(&ufile->owner, uobj->handle, mask, &p);
	if (*status)
		return 0;
	a->mem_priv = p.mem_priv;
	a->virtual_address = p.lmr_triplet.virtual_address;
	a->segment_length = p.lmr_triplet.segment_length;
	a->lmr_context = p.lmr_triplet.lmr_context;
	a->rmr_context = p.rmr_context;
	a->rmr_scope = p.rmr_scope;
	a->va_type = p.va_type;
	return 0;
}

/*
 * Post what the process published in the post ring of @ep_id, if the EP
 * has one, before a bind goes to the same send queue.  A record refused
 * there completes with its error event, as a doorbell of its own would.
 */
static void kdapl_urmr_flush_ring(struct kdapl_ufile *ufile, u32 ep_id)
{
	struct kdapl_upost *post;
	u32 tail;

	post = kdapl_upost_get(ufile, ep_id);
	if (!post)
		return;
	kdapl_upost_doorbell(post, false, &tail);
	kdapl_upost_put(post);
}

/**
 * kdapl_urmr_bind() - KDAPL_IOC_RMR_BIND
 * @ufile: the file
 * @arg: struct kdapl_ioc_rmr_bind
 * @status: out: the DAT_RETURN of dat_rmr_bind()
 *
 * An id that names no RMR, EP or LMR of the file reaches kDAT as a null
 * handle, so that its error comes in kDAT's order of checks.
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for a non-zero reserved field.
 */
int kdapl_urmr_bind(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_rmr_bind *a = arg;
	DAT_RMR_COOKIE cookie = { .as_64 = a->cookie };
	DAT_LMR_TRIPLET t = {
		.virtual_address = a->virtual_address,
		.segment_length = a->segment_length,
		.lmr_context = a->lmr_context,
	};
	DAT_HANDLE rmr, ep, lmr;
	DAT_RMR_CONTEXT ctx = 0;

	if (a->reserved)
		return -EINVAL;
	rmr = kdapl_uobj_handle(ufile, a->rmr_id, DAT_HANDLE_TYPE_RMR);
	ep = kdapl_uobj_handle(ufile, a->ep_id, DAT_HANDLE_TYPE_EP);
	lmr = kdapl_uobj_handle(ufile, a->lmr_id, DAT_HANDLE_TYPE_LMR);
	if (rmr && ep)
		kdapl_urmr_flush_ring(ufile, a->ep_id);
	*status = kdapl_rmr_bind(&ufile->owner, rmr, lmr, &t, a->mem_priv,
				 a->va_type, ep, cookie, a->completion_flags,
				 &ctx);
	a->rmr_context = ctx;
	return 0;
}
