// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands of /dev/kdapl for Shared Receive Queues.
 *
 * An SRQ of a file is a kDAT SRQ with the file as owner, so the receives
 * a process posts name only its own LMRs, and its completions reach the
 * receive EVD of the file's EP that consumed them, with the cookies the
 * process gave.  A receive is posted by copying its segments from the
 * process (DAT posts one receive per call); EPs take an SRQ at creation
 * (KDAPL_IOC_EP_CREATE's srq_id).
 *
 * Locking: the handlers run with ufile->lock held, as the table of
 * kdapl_uioctl.c says; kDAT takes its own locks inside.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>

#include "kdapl_user.h"

/* The file's SRQ of @id, or NULL after setting *status. */
static struct kdapl_uobj *kdapl_usrq_find(struct kdapl_ufile *ufile, u32 id,
					  DAT_RETURN *status)
{
	struct kdapl_uobj *uobj;

	uobj = kdapl_uobj_find(ufile, id, DAT_HANDLE_TYPE_SRQ);
	if (!uobj)
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	return uobj;
}

/*
 * Arm the low watermark @lw of the new SRQ @uobj, which has its id: the
 * event an empty SRQ gives at once must find its cookie.  On failure the
 * SRQ goes again, with the DAT_RETURN creation gives for a bad @lw.
 */
static DAT_RETURN kdapl_usrq_arm(struct kdapl_ufile *ufile,
				 struct kdapl_uobj *uobj, DAT_COUNT lw)
{
	DAT_RETURN ret;

	ret = kdapl_srq_set_lw(&ufile->owner, uobj->handle, lw);
	if (!ret)
		return DAT_SUCCESS;
	kdapl_uobj_free(ufile, uobj->id, DAT_HANDLE_TYPE_SRQ,
			DAT_INVALID_HANDLE_SRQ, kdapl_srq_free);
	if (DAT_GET_TYPE(ret) == DAT_INVALID_PARAMETER)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return ret;
}

/**
 * kdapl_usrq_create() - KDAPL_IOC_SRQ_CREATE
 * @ufile: the file
 * @arg: struct kdapl_ioc_srq_create
 * @status: out: the DAT_RETURN
 *
 * The SRQ is created without a low watermark, which is armed once the
 * SRQ is an object of the file (kdapl_usrq_arm()).
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero reserved fields.
 */
int kdapl_usrq_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status)
{
	struct kdapl_ioc_srq_create *a = arg;
	struct kdapl_uobj *ia, *pz, *uobj;
	DAT_SRQ_ATTR attr = {
		.max_recv_dtos = a->max_recv_dtos,
		.max_recv_iov = a->max_recv_iov,
		.low_watermark = DAT_SRQ_LW_DEFAULT,
	};
	DAT_SRQ_HANDLE srq;
	DAT_RETURN ret;

	if (a->reserved || a->reserved2)
		return -EINVAL;

	*status = kdapl_uobj_find_ia_pz(ufile, a->ia_id, a->pz_id, &ia, &pz);
	if (*status)
		return 0;
	ret = kdapl_srq_create(&ufile->owner, ia->handle, pz->handle, &attr,
			       &srq);
	if (!ret) {
		ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_SRQ, srq, a->cookie,
				     ia->id, &uobj);
		if (ret)
			kdapl_srq_free(&ufile->owner, srq);
	}
	if (!ret && a->low_watermark != DAT_SRQ_LW_DEFAULT)
		ret = kdapl_usrq_arm(ufile, uobj, a->low_watermark);
	if (!ret)
		a->srq_id = uobj->id;
	*status = ret;
	return 0;
}

/**
 * kdapl_usrq_free() - KDAPL_IOC_SRQ_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free
 * @status: out: the DAT_RETURN; DAT_INVALID_STATE while an EP uses it
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for non-zero flags.
 */
int kdapl_usrq_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;
	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_SRQ,
				  DAT_INVALID_HANDLE_SRQ, kdapl_srq_free);
	return 0;
}

/**
 * kdapl_usrq_post() - KDAPL_IOC_SRQ_POST
 * @ufile: the file
 * @arg: struct kdapl_ioc_srq_post
 * @status: out: the DAT_RETURN of dat_srq_post_recv()
 *
 * A count beyond KDAPL_SRQ_POST_IOV_MAX is refused before the copy, as
 * kDAT refuses one beyond the SRQ's max_recv_iov.
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -ENOMEM.
 */
int kdapl_usrq_post(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_srq_post *a = arg;
	DAT_DTO_COOKIE cookie = { .as_64 = a->cookie };
	DAT_LMR_TRIPLET *segs;
	struct kdapl_uobj *uobj;
	int err;

	uobj = kdapl_usrq_find(ufile, a->srq_id, status);
	if (!uobj)
		return 0;
	if (a->num_segments < 0 || a->num_segments > KDAPL_SRQ_POST_IOV_MAX) {
		*status = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		return 0;
	}
	err = kdapl_uioctl_segments(a->segments, a->num_segments,
				    DAT_INVALID_ARG3, &segs, status);
	if (err || *status)
		return err;
	*status = kdapl_srq_post_recv(&ufile->owner, uobj->handle,
				      a->num_segments, segs, cookie);
	kvfree(segs);
	return 0;
}

/**
 * kdapl_usrq_query() - KDAPL_IOC_SRQ_QUERY
 * @ufile: the file
 * @arg: struct kdapl_ioc_srq_query
 * @status: out: the DAT_RETURN
 *
 * The IA and PZ of the SRQ are the shim's to report: it created them.
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for a non-zero reserved field.
 */
int kdapl_usrq_query(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_srq_query *a = arg;
	struct kdapl_uobj *uobj;
	DAT_SRQ_PARAM p = {};

	if (a->reserved)
		return -EINVAL;
	uobj = kdapl_usrq_find(ufile, a->srq_id, status);
	if (!uobj)
		return 0;
	*status = kdapl_srq_query(&ufile->owner, uobj->handle,
				  DAT_SRQ_FIELD_ALL, &p);
	if (*status)
		return 0;
	a->state = p.srq_state;
	a->max_recv_dtos = p.max_recv_dtos;
	a->max_recv_iov = p.max_recv_iov;
	a->low_watermark = p.low_watermark;
	a->available_dto_count = p.available_dto_count;
	a->outstanding_dto_count = p.outstanding_dto_count;
	return 0;
}

/* Change a count of the SRQ @arg names with @fn. */
static int kdapl_usrq_set(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status,
			  DAT_RETURN (*fn)(struct kdapl_owner *, DAT_SRQ_HANDLE,
					   DAT_COUNT))
{
	struct kdapl_ioc_srq_set *a = arg;
	struct kdapl_uobj *uobj;

	uobj = kdapl_usrq_find(ufile, a->srq_id, status);
	if (uobj)
		*status = fn(&ufile->owner, uobj->handle, a->value);
	return 0;
}

/**
 * kdapl_usrq_resize() - KDAPL_IOC_SRQ_RESIZE
 * @ufile: the file
 * @arg: struct kdapl_ioc_srq_set: the new max_recv_dtos
 * @status: out: the DAT_RETURN of dat_srq_resize()
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_usrq_resize(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status)
{
	return kdapl_usrq_set(ufile, arg, status, kdapl_srq_resize);
}

/**
 * kdapl_usrq_set_lw() - KDAPL_IOC_SRQ_SET_LW
 * @ufile: the file
 * @arg: struct kdapl_ioc_srq_set: the new low watermark
 * @status: out: the DAT_RETURN of dat_srq_set_lw()
 *
 * Context: process context, ufile->lock held.
 * Return: 0.
 */
int kdapl_usrq_set_lw(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status)
{
	return kdapl_usrq_set(ufile, arg, status, kdapl_srq_set_lw);
}
