// SPDX-License-Identifier: GPL-2.0
/*
 * Handles: every handle the shim gives out points to a struct shim_obj,
 * whose first word is the IA's DAT_PROVIDER as libdat2 requires.  A
 * handle is checked before use (NULL, alignment, magic, type); a freed
 * handle has its magic cleared before its memory goes, so a stale handle
 * that still points to shim memory is refused.  Garbage that points
 * elsewhere cannot be caught by any provider: libdat2 itself reads the
 * provider through it first.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <stdlib.h>

#include "shim.h"

/* libdat2's handle vector (not in its public headers). */
DAT_RETURN dats_get_ia_handle(DAT_IA_HANDLE handle, DAT_IA_HANDLE *ia);

/**
 * shim_obj_get() - the object behind a handle of a type
 * @handle: what the consumer passed
 * @type: the type it must be
 *
 * Return: the object, or NULL for a NULL, misaligned, freed or other
 * handle.
 */
struct shim_obj *shim_obj_get(DAT_HANDLE handle, DAT_HANDLE_TYPE type)
{
	struct shim_obj *obj = (struct shim_obj *)handle;

	if (!obj || ((uintptr_t)obj & (sizeof(void *) - 1)))
		return NULL;
	if (obj->magic != SHIM_MAGIC || obj->type != type)
		return NULL;
	return obj;
}

/**
 * shim_obj_id() - the id of an object of an IA, for a call the kernel judges
 * @handle: the handle the consumer gave
 * @type: the type it must have
 * @ia: the IA it must belong to
 *
 * Return: the id its IA's file knows it by, or 0 (no object of any file)
 * for a bad handle or an object of another IA: the kernel then refuses it
 * as a bad handle, in its own order of checks.
 */
__u32 shim_obj_id(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
		  const struct shim_ia *ia)
{
	struct shim_obj *obj = shim_obj_get(handle, type);

	return obj && obj->ia == ia ? obj->id : 0;
}

/**
 * shim_obj_new() - allocate an object with its handle head, on its IA's list
 * @size: the size of the object's structure
 * @type: DAT_HANDLE_TYPE_*
 * @ia: its IA; NULL for an IA, which is its own
 *
 * Return: the zeroed object, or NULL without memory.
 */
void *shim_obj_new(size_t size, DAT_HANDLE_TYPE type, struct shim_ia *ia)
{
	struct shim_obj *obj = calloc(1, size);

	if (!obj)
		return NULL;
	obj->type = type;
	obj->ia = ia ? ia : (struct shim_ia *)obj;
	obj->provider = ia ? ia->obj.provider : NULL;
	obj->magic = SHIM_MAGIC;
	if (!ia) {
		pthread_mutex_init(&obj->ia->lock, NULL);
		return obj;
	}
	pthread_mutex_lock(&ia->lock);
	obj->next = ia->objs;
	if (ia->objs)
		ia->objs->prev = obj;
	ia->objs = obj;
	pthread_mutex_unlock(&ia->lock);
	return obj;
}

/**
 * shim_obj_free() - unlist and free an object, invalidating its handle
 * @obj: the object
 */
void shim_obj_free(struct shim_obj *obj)
{
	struct shim_ia *ia = obj->ia;

	if (ia == (struct shim_ia *)obj) {
		pthread_mutex_destroy(&ia->lock);
	} else {
		pthread_mutex_lock(&ia->lock);
		if (obj->prev)
			obj->prev->next = obj->next;
		else if (ia->objs == obj)
			ia->objs = obj->next;
		if (obj->next)
			obj->next->prev = obj->prev;
		pthread_mutex_unlock(&ia->lock);
	}
	obj->magic = 0;
	free(obj);
}

/**
 * shim_obj_kfree() - free the kernel's object behind a handle
 * @obj: the object
 * @cmd: KDAPL_IOC_<TYPE>_FREE
 *
 * Return: the kernel's DAT_RETURN; the shim's object is the caller's to
 * free on success.
 */
DAT_RETURN shim_obj_kfree(struct shim_obj *obj, unsigned long cmd)
{
	struct kdapl_ioc_obj_free f = { .id = obj->id };

	return shim_dev_call(obj->ia->fd, cmd, &f, sizeof(f));
}

/**
 * shim_obj_destroy() - dat_*_free() of an object with nothing but a handle
 * @handle: the consumer's handle
 * @type: the DAT_HANDLE_TYPE_* it must have
 * @bad: the DAT_INVALID_HANDLE subtype for a wrong handle
 * @cmd: KDAPL_IOC_<TYPE>_FREE
 *
 * Return: DAT_INVALID_HANDLE (@bad), or the kernel's DAT_RETURN; the
 * handle is freed on success.
 */
DAT_RETURN shim_obj_destroy(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			    DAT_RETURN_SUBTYPE bad, unsigned long cmd)
{
	struct shim_obj *obj = shim_obj_get(handle, type);
	DAT_RETURN ret;

	if (!obj)
		return SHIM_ERR(DAT_INVALID_HANDLE, bad);
	ret = shim_obj_kfree(obj, cmd);
	if (ret == DAT_SUCCESS)
		shim_obj_free(obj);
	return ret;
}

/**
 * shim_consumer_ia_handle() - the IA handle the consumer holds
 * @ia: the IA
 *
 * libdat2 gives the consumer a small integer in place of the provider's
 * IA handle; queries that return an IA handle must return that integer.
 *
 * Return: the consumer's handle, or DAT_HANDLE_NULL if libdat2 has none.
 */
DAT_IA_HANDLE shim_consumer_ia_handle(struct shim_ia *ia)
{
	DAT_IA_HANDLE p;
	uintptr_t i;

	for (i = 1; i < 4096; i++) {
		if (dats_get_ia_handle((DAT_IA_HANDLE)i, &p) != DAT_SUCCESS)
			break;
		if (p == (DAT_IA_HANDLE)ia)
			return (DAT_IA_HANDLE)i;
	}
	return DAT_HANDLE_NULL;
}

DAT_RETURN shim_set_consumer_context(DAT_HANDLE handle, DAT_CONTEXT context)
{
	DAT_HANDLE_TYPE type;
	struct shim_obj *obj;

	if (shim_get_handle_type(handle, &type) != DAT_SUCCESS)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_NO_SUBTYPE);
	obj = shim_obj_get(handle, type);
	obj->context = context;
	return DAT_SUCCESS;
}

DAT_RETURN shim_get_consumer_context(DAT_HANDLE handle, DAT_CONTEXT *context)
{
	DAT_HANDLE_TYPE type;
	struct shim_obj *obj;

	if (shim_get_handle_type(handle, &type) != DAT_SUCCESS)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_NO_SUBTYPE);
	if (!context)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	obj = shim_obj_get(handle, type);
	*context = obj->context;
	return DAT_SUCCESS;
}

DAT_RETURN shim_get_handle_type(DAT_HANDLE handle, DAT_HANDLE_TYPE *type)
{
	struct shim_obj *obj = (struct shim_obj *)handle;

	if (!obj || ((uintptr_t)obj & (sizeof(void *) - 1)) ||
	    obj->magic != SHIM_MAGIC)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_NO_SUBTYPE);
	if (!type)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	*type = obj->type;
	return DAT_SUCCESS;
}
