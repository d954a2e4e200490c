// SPDX-License-Identifier: GPL-2.0
/*
 * The objects of an open file of /dev/kdapl.
 *
 * A file names its objects by ids of its own, allocated cyclically from
 * 1 so that an id comes back only after 2^32 - 1 others: a stale id finds
 * nothing rather than a newer object.  Objects that an event brings (a
 * connection request's CR) are inserted by the event's sink, under the
 * xarray's own lock.  Each id maps to the kDAT handle of
 * the object, looked up with the file as owner, so a handle of another
 * owner could not be reached even through a corrupted table.
 *
 * Locking: ufile->lock serialises removals and the insertions of ioctls;
 * lookups run under it too (every ioctl that uses an object holds it), so
 * an object found cannot be destroyed under its user.  mmap() and the
 * sinks read the tables under RCU; objects are freed with kfree_rcu().
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>

#include "kdapl_user.h"

/* The handle table index of a kDAT handle: unique among live objects. */
static unsigned long kdapl_uobj_index(DAT_HANDLE handle)
{
	return (u32)(uintptr_t)handle;
}

/**
 * kdapl_uobj_alloc() - a new object of a file, not yet in its table
 * @type: DAT_HANDLE_TYPE_* of the kDAT object
 * @handle: its kDAT handle
 * @cookie: the caller's cookie for it
 *
 * Context: process context.
 * Return: the object, or NULL without memory.
 */
struct kdapl_uobj *kdapl_uobj_alloc(DAT_HANDLE_TYPE type, DAT_HANDLE handle,
				    u64 cookie)
{
	struct kdapl_uobj *uobj;

	uobj = kzalloc(sizeof(*uobj), GFP_KERNEL_ACCOUNT);
	if (!uobj)
		return NULL;
	uobj->type = type;
	uobj->handle = handle;
	uobj->cookie = cookie;
	return uobj;
}

/*
 * Give @uobj an id and publish it; callers say how they are serialised.
 * The id is reserved first (lookups see nothing there), the object goes
 * into @by_handle, and storing it under its id is the last step: once
 * another thread can find it, nothing here touches it again.  Returns
 * the id, or 0 with nothing published.
 */
static u32 __kdapl_uobj_insert(struct kdapl_ufile *ufile,
			       struct kdapl_uobj *uobj, u32 ia_id)
{
	unsigned long idx = kdapl_uobj_index(uobj->handle);
	u32 id;

	if (xa_alloc_cyclic(&ufile->objs, &id, XA_ZERO_ENTRY,
			    XA_LIMIT(1, U32_MAX), &ufile->next_id,
			    GFP_KERNEL_ACCOUNT) < 0)
		return 0;
	uobj->id = id;
	uobj->ia_id = ia_id ? ia_id : id;
	/*
	 * A stale object of a reused handle index gives way.  Objects of
	 * the file alone (a CNO) have no kDAT handle and no event names them.
	 */
	if (uobj->handle && xa_err(xa_store(&ufile->by_handle, idx, uobj,
					    GFP_KERNEL_ACCOUNT))) {
		xa_release(&ufile->objs, id);
		return 0;
	}
	xa_store(&ufile->objs, id, uobj, GFP_KERNEL_ACCOUNT);
	return id;
}

/**
 * kdapl_uobj_insert() - give an object an id in its file
 * @ufile: the file
 * @uobj: the object
 * @ia_id: the id of its IA; 0 for an IA, which gets its own id
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -ENOMEM or -EBUSY (no free id).
 */
int kdapl_uobj_insert(struct kdapl_ufile *ufile, struct kdapl_uobj *uobj,
		      u32 ia_id)
{
	lockdep_assert_held(&ufile->lock);
	return __kdapl_uobj_insert(ufile, uobj, ia_id) ? 0 : -ENOMEM;
}

/**
 * kdapl_uobj_add_from_event() - an id for an object an event brings
 * @ufile: the file
 * @type: DAT_HANDLE_TYPE_* of the kDAT object (a CR)
 * @handle: its kDAT handle
 * @ia_id: the id of its IA
 *
 * For the sink of a connection request EVD, which may not take the
 * file's lock (an ioctl holding it may wait for the sink): the xarray
 * serialises the insertion, and the object is published last, so that
 * an ioctl that guesses the id meanwhile finds nothing or all of it.
 *
 * Context: process context (the sinks of CR EVDs, and the delivery of
 * requests parked by EVDs that merge them with completions, run from
 * kdapl's work queue).
 * Return: the new id, or 0 without memory.
 */
u32 kdapl_uobj_add_from_event(struct kdapl_ufile *ufile, DAT_HANDLE_TYPE type,
			      DAT_HANDLE handle, u32 ia_id)
{
	struct kdapl_uobj *uobj;
	u32 id;

	might_sleep();
	uobj = kdapl_uobj_alloc(type, handle, 0);
	if (!uobj)
		return 0;
	id = __kdapl_uobj_insert(ufile, uobj, ia_id);
	if (!id)
		kfree(uobj);
	return id;
}

/**
 * kdapl_uobj_add() - give a new kDAT object of a file its id
 * @ufile: the file
 * @type: DAT_HANDLE_TYPE_* of the object
 * @handle: its kDAT handle
 * @cookie: the caller's cookie for it
 * @ia_id: the id of its IA; 0 for an IA
 * @uobjp: out: the file's object
 *
 * Context: process context, ufile->lock held.
 * Return: DAT_SUCCESS, or DAT_INSUFFICIENT_RESOURCES; on failure the
 * caller frees the kDAT object.
 */
DAT_RETURN kdapl_uobj_add(struct kdapl_ufile *ufile, DAT_HANDLE_TYPE type,
			  DAT_HANDLE handle, u64 cookie, u32 ia_id,
			  struct kdapl_uobj **uobjp)
{
	struct kdapl_uobj *uobj;

	uobj = kdapl_uobj_alloc(type, handle, cookie);
	if (!uobj)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	if (kdapl_uobj_insert(ufile, uobj, ia_id)) {
		kfree(uobj);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	*uobjp = uobj;
	return DAT_SUCCESS;
}

/**
 * kdapl_uobj_cookie() - the cookie a file gave the object of a handle
 * @ufile: the file
 * @handle: a kDAT handle, from an event
 * @cookie: out: the cookie
 *
 * Context: any context.
 * Return: true if the handle is one of the file's objects.
 */
bool kdapl_uobj_cookie(struct kdapl_ufile *ufile, DAT_HANDLE handle,
		       u64 *cookie)
{
	struct kdapl_uobj *uobj;
	bool found = false;

	rcu_read_lock();
	uobj = xa_load(&ufile->by_handle, kdapl_uobj_index(handle));
	if (uobj && READ_ONCE(uobj->handle) == handle) {
		*cookie = READ_ONCE(uobj->cookie);
		found = true;
	}
	rcu_read_unlock();
	return found;
}

/**
 * kdapl_uobj_post() - the post ring of an EP of a file, by kDAT handle
 * @ufile: the file
 * @handle: the EP's handle, from an event
 *
 * Context: any context.
 * Return: the ring with a reference, or NULL if the handle is no EP of
 * the file with a ring.
 */
struct kdapl_upost *kdapl_uobj_post(struct kdapl_ufile *ufile,
				    DAT_HANDLE handle)
{
	struct kdapl_upost *post = NULL;
	struct kdapl_uobj *uobj;

	rcu_read_lock();
	uobj = xa_load(&ufile->by_handle, kdapl_uobj_index(handle));
	if (uobj && READ_ONCE(uobj->handle) == handle) {
		/* Pairs with the release that published the ring. */
		post = smp_load_acquire(&uobj->post);
		if (post && !kref_get_unless_zero(&post->ref))
			post = NULL;
	}
	rcu_read_unlock();
	return post;
}

/**
 * kdapl_uobj_find() - the object of a file with an id
 * @ufile: the file
 * @id: the id the caller gave
 * @type: the type it must have
 *
 * Context: process context, ufile->lock held.
 * Return: the object, or NULL if the file has none of that id and type.
 */
struct kdapl_uobj *kdapl_uobj_find(struct kdapl_ufile *ufile, u32 id,
				   DAT_HANDLE_TYPE type)
{
	struct kdapl_uobj *uobj;

	lockdep_assert_held(&ufile->lock);
	uobj = xa_load(&ufile->objs, id);
	if (!uobj || uobj->type != type)
		return NULL;
	return uobj;
}

/**
 * kdapl_uobj_handle() - the kDAT handle of the object of a file with an id
 * @ufile: the file
 * @id: the id the caller gave
 * @type: the type it must have
 *
 * For handlers that pass every handle to kDAT and let it judge them, so
 * that errors come in kDAT's order of checks: no such object is a null
 * handle, which kDAT refuses as a bad one.
 *
 * Context: process context, ufile->lock held.
 * Return: the handle, or DAT_HANDLE_NULL.
 */
DAT_HANDLE kdapl_uobj_handle(struct kdapl_ufile *ufile, u32 id,
			     DAT_HANDLE_TYPE type)
{
	struct kdapl_uobj *uobj = kdapl_uobj_find(ufile, id, type);

	return uobj ? uobj->handle : DAT_HANDLE_NULL;
}

/**
 * kdapl_uobj_find_ia_pz() - the IA and PZ a create call names
 * @ufile: the file
 * @ia_id: the IA's id
 * @pz_id: the PZ's id
 * @ia: out: the IA
 * @pz: out: the PZ
 *
 * Context: process context, ufile->lock held.
 * Return: DAT_SUCCESS, or DAT_INVALID_HANDLE (IA or PZ).
 */
DAT_RETURN kdapl_uobj_find_ia_pz(struct kdapl_ufile *ufile, u32 ia_id,
				 u32 pz_id, struct kdapl_uobj **ia,
				 struct kdapl_uobj **pz)
{
	*ia = kdapl_uobj_find(ufile, ia_id, DAT_HANDLE_TYPE_IA);
	if (!*ia)
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	*pz = kdapl_uobj_find(ufile, pz_id, DAT_HANDLE_TYPE_PZ);
	if (!*pz)
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	return DAT_SUCCESS;
}

/**
 * kdapl_uobj_destroy() - forget an object whose kDAT object is gone
 * @ufile: the file
 * @uobj: the object, in the table
 *
 * Context: process context, ufile->lock held.
 */
void kdapl_uobj_destroy(struct kdapl_ufile *ufile, struct kdapl_uobj *uobj)
{
	lockdep_assert_held(&ufile->lock);
	xa_erase(&ufile->objs, uobj->id);
	/* Unless a newer object of the same handle index took the slot. */
	if (uobj->handle)
		xa_cmpxchg(&ufile->by_handle, kdapl_uobj_index(uobj->handle),
			   uobj, NULL, 0);
	if (uobj->ring)
		kdapl_uring_detach(uobj);
	if (uobj->post)
		kdapl_upost_detach(uobj);
	if (uobj->cno)
		kdapl_ucno_detach(uobj);
	kfree_rcu(uobj, rcu);
}

/**
 * kdapl_uobj_free() - free a kDAT object of a file and its file object
 * @ufile: the file
 * @id: the object's id
 * @type: the type it must have
 * @bad: the DAT_INVALID_HANDLE subtype for a wrong id
 * @fn: the owner's free function of the type (kdapl_pz_free(), ...)
 *
 * Context: process context, ufile->lock held.
 * Return: DAT_INVALID_HANDLE (@bad), or what @fn returns; the file
 * object goes only when the kDAT object did.
 */
DAT_RETURN kdapl_uobj_free(struct kdapl_ufile *ufile, u32 id,
			   DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE bad,
			   DAT_RETURN (*fn)(struct kdapl_owner *, DAT_HANDLE))
{
	struct kdapl_uobj *uobj;
	DAT_RETURN ret;

	uobj = kdapl_uobj_find(ufile, id, type);
	if (!uobj)
		return dat_error(DAT_INVALID_HANDLE, bad);
	ret = fn(&ufile->owner, uobj->handle);
	if (ret == DAT_SUCCESS)
		kdapl_uobj_destroy(ufile, uobj);
	return ret;
}

/**
 * kdapl_uobj_ia_has() - does an IA of a file have an object of a type
 * @ufile: the file
 * @ia_id: the IA
 * @type: DAT_HANDLE_TYPE_*
 *
 * Context: process context, ufile->lock held.
 * Return: true if it has one.
 */
bool kdapl_uobj_ia_has(struct kdapl_ufile *ufile, u32 ia_id,
		       DAT_HANDLE_TYPE type)
{
	struct kdapl_uobj *uobj;
	unsigned long id;

	lockdep_assert_held(&ufile->lock);
	xa_for_each(&ufile->objs, id, uobj)
		if (uobj->ia_id == ia_id && uobj->type == type)
			return true;
	return false;
}

/**
 * kdapl_uobj_drop_ia() - forget the objects of a closed IA
 * @ufile: the file
 * @ia_id: the IA, already closed, which freed all its kDAT objects
 *
 * Context: process context, ufile->lock held.
 */
void kdapl_uobj_drop_ia(struct kdapl_ufile *ufile, u32 ia_id)
{
	struct kdapl_uobj *uobj;
	unsigned long id;

	lockdep_assert_held(&ufile->lock);
	xa_for_each(&ufile->objs, id, uobj)
		if (uobj->ia_id == ia_id)
			kdapl_uobj_destroy(ufile, uobj);
}

/**
 * kdapl_uobj_release_all() - forget every object of a released file
 * @ufile: the file; its IAs are closed already
 *
 * Context: process context.
 */
void kdapl_uobj_release_all(struct kdapl_ufile *ufile)
{
	struct kdapl_uobj *uobj;
	unsigned long id;

	mutex_lock(&ufile->lock);
	/* First no sink runs any more: a CR sink may still add objects. */
	xa_for_each(&ufile->objs, id, uobj)
		if (uobj->ring)
			kdapl_uring_detach(uobj);
	xa_for_each(&ufile->objs, id, uobj)
		kdapl_uobj_destroy(ufile, uobj);
	mutex_unlock(&ufile->lock);
	xa_destroy(&ufile->objs);
	xa_destroy(&ufile->by_handle);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_uobj_release_all);
