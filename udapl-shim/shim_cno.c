// SPDX-License-Identifier: GPL-2.0
/*
 * Consumer Notification Objects.  A CNO is an object of the IA's file
 * in the kernel: the sinks of the EVDs created with it trigger it, and
 * dat_cno_wait() sleeps in one ioctl until one does, then returns that
 * EVD.  dat_cno_fd_create() gives the CNO a descriptor that polls
 * readable while it is triggered; dat_cno_trigger() then says by which
 * EVD without sleeping.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <unistd.h>

#include "shim.h"

static struct shim_cno *shim_cno_get(DAT_CNO_HANDLE handle)
{
	return (struct shim_cno *)shim_obj_get(handle, DAT_HANDLE_TYPE_CNO);
}

static DAT_RETURN shim_cno_new(DAT_IA_HANDLE ia_handle, __u32 flags,
			       DAT_CNO_HANDLE *cno_handle,
			       struct shim_cno **cnop)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct kdapl_ioc_cno_create c = { 0 };
	struct shim_cno *cno;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!cno_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	cno = shim_obj_new(sizeof(*cno), DAT_HANDLE_TYPE_CNO, ia);
	if (!cno)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	c.ia_id = ia->obj.id;
	c.flags = flags;
	ret = SHIM_CALL(ia, CNO_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&cno->obj);
		return ret;
	}
	cno->obj.id = c.cno_id;
	cno->fd = c.fd;
	*cno_handle = (DAT_CNO_HANDLE)cno;
	*cnop = cno;
	return DAT_SUCCESS;
}

DAT_RETURN shim_cno_create(DAT_IA_HANDLE ia_handle,
			   DAT_OS_WAIT_PROXY_AGENT agent,
			   DAT_CNO_HANDLE *cno_handle)
{
	struct shim_cno *cno;
	DAT_RETURN ret;

	ret = shim_cno_new(ia_handle, 0, cno_handle, &cno);
	if (ret == DAT_SUCCESS)
		cno->agent = agent;
	return ret;
}

DAT_RETURN shim_cno_fd_create(DAT_IA_HANDLE ia_handle, DAT_FD *fd,
			      DAT_CNO_HANDLE *cno_handle)
{
	struct shim_cno *cno;
	DAT_RETURN ret;

	if (!fd)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = shim_cno_new(ia_handle, KDAPL_CNO_FD, cno_handle, &cno);
	if (ret == DAT_SUCCESS)
		*fd = cno->fd;
	return ret;
}

DAT_RETURN shim_cno_modify_agent(DAT_CNO_HANDLE handle,
				 DAT_OS_WAIT_PROXY_AGENT agent)
{
	struct shim_cno *cno = shim_cno_get(handle);

	if (!cno)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	cno->agent = agent;
	return DAT_SUCCESS;
}

DAT_RETURN shim_cno_query(DAT_CNO_HANDLE handle, DAT_CNO_PARAM_MASK mask,
			  DAT_CNO_PARAM *param)
{
	struct shim_cno *cno = shim_cno_get(handle);

	if (!cno)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	/* The mask's values overlap (PROXY is IA_HANDLE | PROXY_TYPE). */
	if (mask & ~(DAT_CNO_FIELD_PROXY | DAT_CNO_FIELD_ALL))
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	param->ia_handle = shim_consumer_ia_handle(cno->obj.ia);
	if (cno->fd >= 0) {
		param->proxy_type = DAT_PROXY_TYPE_FD;
		param->proxy.fd = cno->fd;
	} else {
		param->proxy_type = DAT_PROXY_TYPE_AGENT;
		param->proxy.agent = cno->agent;
	}
	return DAT_SUCCESS;
}

/**
 * shim_cno_forget() - close the descriptor of a CNO its IA's close freed
 * @cno: the CNO, whose handle is dead (see shim_ia_forget())
 */
void shim_cno_forget(struct shim_cno *cno)
{
	if (cno->fd >= 0)
		close(cno->fd);
	cno->fd = -1;
}

DAT_RETURN shim_cno_free(DAT_CNO_HANDLE handle)
{
	struct shim_cno *cno = shim_cno_get(handle);
	DAT_RETURN ret;

	if (!cno)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	ret = shim_obj_kfree(&cno->obj, KDAPL_IOC_CNO_FREE);
	if (ret != DAT_SUCCESS)
		return ret;
	shim_cno_forget(cno);
	shim_obj_free(&cno->obj);
	return DAT_SUCCESS;
}

/* One wait in the kernel; the EVD that triggered the CNO on success. */
static DAT_RETURN shim_cno_take(struct shim_cno *cno, DAT_TIMEOUT timeout,
				DAT_EVD_HANDLE *evd)
{
	struct kdapl_ioc_cno_wait w = { 0 };
	DAT_RETURN ret;

	w.cno_id = cno->obj.id;
	w.timeout_us = timeout;
	ret = SHIM_CALL(cno->obj.ia, CNO_WAIT, w);
	/* No EVD on a timeout, nor when the CNO's last EVD was freed. */
	*evd = DAT_HANDLE_NULL;
	if (ret == DAT_SUCCESS)
		*evd = (DAT_EVD_HANDLE)(uintptr_t)w.evd_cookie;
	return ret;
}

DAT_RETURN shim_cno_wait(DAT_CNO_HANDLE handle, DAT_TIMEOUT timeout,
			 DAT_EVD_HANDLE *evd)
{
	struct shim_cno *cno = shim_cno_get(handle);

	if (!cno)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	if (!evd)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return shim_cno_take(cno, timeout, evd);
}

DAT_RETURN shim_cno_trigger(DAT_CNO_HANDLE handle, DAT_EVD_HANDLE *evd)
{
	struct shim_cno *cno = shim_cno_get(handle);

	if (!cno)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	if (!evd)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	/* The descriptor said it is triggered: take it without sleeping. */
	return shim_cno_take(cno, 0, evd);
}
