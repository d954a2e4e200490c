// SPDX-License-Identifier: GPL-2.0
/*
 * DAT handles: typed, generation-checked, owned references to kdapl
 * objects.
 *
 * A handle is not a pointer.  It packs the object's type, a generation
 * and an index in one global table:
 *
 *   bits 63..56  DAT_HANDLE_TYPE
 *   bits 55..32  generation (never 0)
 *   bits 31..0   index in kdapl_handles (from 1)
 *
 * A lookup checks all three, and that the object belongs to the owner
 * the lookup is made for, and takes a reference: a NULL, freed, stale,
 * foreign or made-up handle, or one of another owner (another process's,
 * or a kernel consumer's from a process), gives DAT_INVALID_HANDLE and
 * never touches freed memory.  Lookups run under RCU and may come from
 * any context; object memory is freed after a grace period.
 *
 * Each index has its own generations, starting at a value drawn from a
 * key chosen at module load and counting up each time the index is
 * given out again: the lowest free index is reused, the generation
 * makes a handle of a freed object useless, and a handle of another
 * owner cannot be guessed from one's own.  An index whose generations
 * all went (2^24 - 1 objects) is retired for as long as the module is
 * loaded, so no handle ever comes back.
 *
 * The xarray allocates indexes and owns the entries; lookups read a flat
 * copy of its pointers, kdapl_handle_table, indexed by the handle's
 * index: two loads and no call on every DTO post instead of an xarray
 * walk (which takes an RCU read section of its own).  The table only
 * grows, by doubling, before an index beyond it is used; every write to
 * it is made under the xarray's lock, and a replaced table is freed
 * after a grace period.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/hash.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include "kdapl.h"

/* Every published object by id; see kdapl_object_lookup_rcu(). */
static DEFINE_XARRAY_FLAGS(kdapl_handles, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);

struct kdapl_handle_table __rcu *kdapl_handle_table;
EXPORT_SYMBOL_IF_KUNIT(kdapl_handle_table);
/* Serialises the growth of kdapl_handle_table. */
static DEFINE_MUTEX(kdapl_handle_grow);
/* Where the generations of each index start; see kdapl_gen_first(). */
static u32 kdapl_gen_key;

/* The per-type operations, indexed by DAT_HANDLE_TYPE. */
static const struct kdapl_type_ops *const kdapl_types[] = {
	[DAT_HANDLE_TYPE_IA] = &kdapl_ia_type,
	[DAT_HANDLE_TYPE_PZ] = &kdapl_pz_type,
	[DAT_HANDLE_TYPE_EVD] = &kdapl_evd_type,
	[DAT_HANDLE_TYPE_EP] = &kdapl_ep_type,
	[DAT_HANDLE_TYPE_LMR] = &kdapl_lmr_type,
	[DAT_HANDLE_TYPE_RMR] = &kdapl_rmr_type,
	[DAT_HANDLE_TYPE_SRQ] = &kdapl_srq_type,
	[DAT_HANDLE_TYPE_PSP] = &kdapl_psp_type,
	[DAT_HANDLE_TYPE_RSP] = &kdapl_rsp_type,
	[DAT_HANDLE_TYPE_CR] = &kdapl_cr_type,
	[DAT_HANDLE_TYPE_CSP] = &kdapl_csp_type,
};

/*
 * Objects published and not yet released, per type: what debugfs
 * "objects" shows, so that tests can check that nothing is left.
 */
static atomic_long_t kdapl_live[ARRAY_SIZE(kdapl_types)];

/**
 * kdapl_object_ops() - operations of a handle type
 * @type: a DAT_HANDLE_TYPE
 *
 * Return: the operations, or NULL for a type kdapl has no objects of.
 */
const struct kdapl_type_ops *kdapl_object_ops(DAT_HANDLE_TYPE type)
{
	if ((unsigned int)type >= ARRAY_SIZE(kdapl_types))
		return NULL;
	return kdapl_types[type];
}

/**
 * kdapl_object_init() - set up the common part of a new object
 * @obj: the object, zeroed
 * @type: its DAT_HANDLE_TYPE
 * @ia: the IA it belongs to (the IA itself for an IA)
 *
 * The object holds one reference, which kdapl_object_publish() hands to
 * the handle table.  Until then it has no handle and nobody can find it.
 *
 * Context: any context.
 */
void kdapl_object_init(struct kdapl_object *obj, DAT_HANDLE_TYPE type,
		       struct kdapl_ia *ia)
{
	kref_init(&obj->ref);
	obj->type = type;
	obj->handle = kdapl_handle_make(type, obj->gen, obj->id);
	obj->ia = ia;
	obj->owner = ia->owner;
	obj->users = 0;
	INIT_LIST_HEAD(&obj->ia_entry);
}

/* The table, for a writer holding the xarray's lock. */
static struct kdapl_handle_table *kdapl_handle_table_locked(void)
{
	return rcu_dereference_protected(kdapl_handle_table,
					 lockdep_is_held(&kdapl_handles.xa_lock));
}

/* The first generation of index @id. */
static u32 kdapl_gen_first(u32 id)
{
	return hash_32(id ^ kdapl_gen_key, 24) ?: 1;
}

/*
 * The generation to give index @id after @last (0: never given), or 0
 * when the index has given every one.
 */
static u32 kdapl_gen_next(u32 id, u32 last)
{
	u32 gen;

	if (!last)
		return kdapl_gen_first(id);
	gen = (last + 1) & KDAPL_HANDLE_GEN_MASK;
	if (!gen)
		gen = 1;
	return gen == kdapl_gen_first(id) ? 0 : gen;
}

/* A table of @size slots: the generations follow the pointers. */
static struct kdapl_handle_table *kdapl_handle_table_alloc(u32 size)
{
	struct kdapl_handle_table *t;
	size_t bytes = struct_size(t, objs, size);

	t = kvzalloc(bytes + size * sizeof(*t->gens), GFP_KERNEL);
	if (!t)
		return NULL;
	t->size = size;
	t->gens = (u32 *)((char *)t + bytes);
	return t;
}

/*
 * Make kdapl_handle_table hold index @id, growing it by doubling.
 * Process context, may sleep.  Returns 0 or -ENOMEM.
 */
static int kdapl_handle_table_fit(u32 id)
{
	struct kdapl_handle_table *old, *new;
	unsigned long flags;
	u32 size, i;

	mutex_lock(&kdapl_handle_grow);
	old = rcu_dereference_protected(kdapl_handle_table,
					lockdep_is_held(&kdapl_handle_grow));
	if (old && id < old->size) {
		mutex_unlock(&kdapl_handle_grow);
		return 0;
	}
	size = old ? old->size : KDAPL_HANDLE_TABLE_MIN;
	while (size <= id)
		size *= 2;
	new = kdapl_handle_table_alloc(size);
	if (!new) {
		mutex_unlock(&kdapl_handle_grow);
		return -ENOMEM;
	}
	xa_lock_irqsave(&kdapl_handles, flags);
	for (i = 0; old && i < old->size; i++) {
		RCU_INIT_POINTER(new->objs[i],
				 rcu_dereference_protected(old->objs[i], true));
		new->gens[i] = old->gens[i];
	}
	rcu_assign_pointer(kdapl_handle_table, new);
	xa_unlock_irqrestore(&kdapl_handles, flags);
	mutex_unlock(&kdapl_handle_grow);
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/**
 * kdapl_object_init_table() - draw the key of the generations
 *
 * Context: process context, once at module load, before any object is
 * published.
 * Return: 0.
 */
int kdapl_object_init_table(void)
{
	kdapl_gen_key = get_random_u32();
	return 0;
}

/**
 * kdapl_object_count_show() - the live objects per type, for debugfs
 * @m: where to print a line "<type> <count>" per type
 *
 * Context: process context.
 */
void kdapl_object_count_show(struct seq_file *m)
{
	unsigned int t;

	for (t = 0; t < ARRAY_SIZE(kdapl_types); t++)
		if (kdapl_types[t])
			seq_printf(m, "%s %ld\n", kdapl_types[t]->name,
				   atomic_long_read(&kdapl_live[t]));
}

/**
 * kdapl_object_exit() - free the handle table at module unload
 *
 * Context: process context, at module unload, when every object is gone
 * (only retired indexes are left).
 */
void kdapl_object_exit(void)
{
	struct kdapl_handle_table *t;
	struct kdapl_object *obj;
	unsigned long id;

	xa_for_each(&kdapl_handles, id, obj)
		WARN_ONCE(1, "kdapl: %s object %lu left at unload\n",
			  kdapl_object_ops(obj->type)->name, id);
	xa_destroy(&kdapl_handles);
	t = rcu_dereference_protected(kdapl_handle_table, true);
	RCU_INIT_POINTER(kdapl_handle_table, NULL);
	if (t)
		kvfree_rcu(t, rcu);
}

/*
 * Give @obj, just allocated index obj->id, its generation and handle and
 * make lookups find it; false if the index has no generation left (it
 * is retired, the caller takes another).
 */
static bool kdapl_object_install(struct kdapl_object *obj)
{
	struct kdapl_handle_table *t;
	unsigned long flags;
	u32 gen;

	xa_lock_irqsave(&kdapl_handles, flags);
	t = kdapl_handle_table_locked();
	gen = kdapl_gen_next(obj->id, t->gens[obj->id]);
	if (!gen) {
		/* Reserved: the index is never given out again. */
		__xa_cmpxchg(&kdapl_handles, obj->id, obj, XA_ZERO_ENTRY,
			     GFP_ATOMIC);
		xa_unlock_irqrestore(&kdapl_handles, flags);
		return false;
	}
	t->gens[obj->id] = gen;
	obj->gen = gen;
	obj->handle = kdapl_handle_make(obj->type, gen, obj->id);
	rcu_assign_pointer(t->objs[obj->id], obj);
	xa_unlock_irqrestore(&kdapl_handles, flags);
	return true;
}

/**
 * kdapl_object_publish() - give an object its handle
 * @obj: an object from kdapl_object_init(), fully set up
 *
 * From now on lookups of its handle by its owner find it.  The handle
 * table owns the initial reference, dropped by kdapl_object_unpublish().
 * A published object other than an IA holds a reference to its IA until
 * its memory is released, so the IA outlives every object of it.  On
 * failure the object was never visible and the caller frees it directly.
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM or -EBUSY if the table is full.
 */
int kdapl_object_publish(struct kdapl_object *obj)
{
	int ret;

	if (&obj->ia->obj != obj)
		kref_get(&obj->ia->obj.ref);
	do {
		obj->id = 0;
		ret = xa_alloc_irq(&kdapl_handles, &obj->id, obj,
				   XA_LIMIT(1, U32_MAX), GFP_KERNEL);
		if (!ret)
			ret = kdapl_handle_table_fit(obj->id);
		if (ret) {
			if (obj->id)
				xa_erase_irq(&kdapl_handles, obj->id);
			obj->id = 0;
			if (&obj->ia->obj != obj)
				kdapl_object_put(&obj->ia->obj);
			return ret;
		}
	} while (!kdapl_object_install(obj));
	atomic_long_inc(&kdapl_live[obj->type]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_object_publish);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kdapl_object_exhaust() - spend the generations of an index
 * @id: an index of the handle table
 *
 * The next object given @id finds no generation left: @id is retired.
 * For KUnit, which cannot publish 2^24 objects.
 *
 * Context: any context.
 */
void kdapl_object_exhaust(u32 id)
{
	struct kdapl_handle_table *t;
	unsigned long flags;
	u32 first = kdapl_gen_first(id);

	xa_lock_irqsave(&kdapl_handles, flags);
	t = kdapl_handle_table_locked();
	if (t && id < t->size)
		t->gens[id] = first == 1 ? KDAPL_HANDLE_GEN_MASK : first - 1;
	xa_unlock_irqrestore(&kdapl_handles, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_object_exhaust);
#endif

/**
 * kdapl_object_unpublish() - invalidate an object's handle
 * @obj: a published object; the caller holds a reference
 *
 * Later lookups fail.  Drops the handle table's reference.  Of two
 * threads freeing the same object, only one gets true.
 *
 * Context: any context.
 * Return: true if this call unpublished the object.
 */
bool kdapl_object_unpublish(struct kdapl_object *obj)
{
	unsigned long flags;
	bool mine;

	xa_lock_irqsave(&kdapl_handles, flags);
	mine = obj->id && xa_load(&kdapl_handles, obj->id) == obj;
	if (mine) {
		RCU_INIT_POINTER(kdapl_handle_table_locked()->objs[obj->id],
				 NULL);
		__xa_erase(&kdapl_handles, obj->id);
	}
	xa_unlock_irqrestore(&kdapl_handles, flags);

	if (mine)
		kdapl_object_put(obj);
	return mine;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_object_unpublish);

/**
 * kdapl_object_get() - look up a handle and take a reference
 * @owner: who looks: another owner's object is not found
 * @handle: the handle
 * @type: the type the handle must have
 * @bad_handle: DAT_INVALID_HANDLE subtype to return on failure
 * @objp: where the object is stored on success
 *
 * Context: any context.
 * Return: DAT_SUCCESS, or DAT_INVALID_HANDLE with @bad_handle as subtype
 * if @handle is NULL, of another type or owner, stale or unknown.
 */
DAT_RETURN kdapl_object_get(struct kdapl_owner *owner, DAT_HANDLE handle,
			    DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE bad_handle,
			    struct kdapl_object **objp)
{
	struct kdapl_object *obj;

	rcu_read_lock();
	obj = kdapl_object_lookup_rcu(owner, handle, type);
	if (obj && !kref_get_unless_zero(&obj->ref))
		obj = NULL;
	rcu_read_unlock();

	if (!obj)
		return dat_error(DAT_INVALID_HANDLE, bad_handle);
	*objp = obj;
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_object_get);

/**
 * kdapl_object_get_typed() - kdapl_object_get() returning the container
 * @owner: who looks
 * @handle: the handle
 * @type: the type the handle must have
 * @bad_handle: DAT_INVALID_HANDLE subtype to return on failure
 * @ptr: where the containing object is stored on success
 * @offset: offset of the &struct kdapl_object in the container
 *
 * Use through the kdapl_get() macro.
 *
 * Context: any context.
 * Return: as kdapl_object_get().
 */
DAT_RETURN kdapl_object_get_typed(struct kdapl_owner *owner, DAT_HANDLE handle,
				  DAT_HANDLE_TYPE type,
				  DAT_RETURN_SUBTYPE bad_handle, void **ptr,
				  size_t offset)
{
	struct kdapl_object *obj;
	DAT_RETURN ret;

	ret = kdapl_object_get(owner, handle, type, bad_handle, &obj);
	if (ret == DAT_SUCCESS)
		*ptr = (char *)obj - offset;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_object_get_typed);

static void kdapl_object_release(struct kref *ref)
{
	struct kdapl_object *obj = container_of(ref, struct kdapl_object, ref);
	struct kdapl_ia *ia = obj->ia;
	bool is_ia = &ia->obj == obj;

	/* Only a published object has an id (and was counted). */
	if (obj->id)
		atomic_long_dec(&kdapl_live[obj->type]);
	kdapl_types[obj->type]->release(obj);
	if (!is_ia)
		kdapl_object_put(&ia->obj);
}

/**
 * kdapl_object_put() - drop a reference
 * @obj: the object, or NULL
 *
 * The last reference frees the memory through the type's release
 * operation, after an RCU grace period.
 *
 * Context: any context.
 */
void kdapl_object_put(struct kdapl_object *obj)
{
	if (obj)
		kref_put(&obj->ref, kdapl_object_release);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_object_put);

/**
 * kdapl_get_handle_type() - dat_get_handle_type() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @handle: as for dat_get_handle_type()
 * @type: as for dat_get_handle_type()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_get_handle_type().
 * Return: as dat_get_handle_type().
 */
DAT_RETURN kdapl_get_handle_type(struct kdapl_owner *owner, DAT_HANDLE handle,
				 DAT_HANDLE_TYPE *type)
{
	DAT_HANDLE_TYPE t = kdapl_handle_type(handle);
	struct kdapl_object *obj;
	DAT_RETURN ret;

	if (!type)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!kdapl_object_ops(t))
		return dat_error(DAT_INVALID_HANDLE, 0);
	ret = kdapl_object_get(owner, handle, t, kdapl_object_ops(t)->bad_handle,
			       &obj);
	if (ret)
		return ret;
	*type = t;
	kdapl_object_put(obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_get_handle_type);

/**
 * dat_get_handle_type() - the type of a live handle
 * @handle: any DAT handle
 * @type: where the type is stored
 *
 * Context: any context.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER if @type is NULL;
 * DAT_INVALID_HANDLE if @handle is not the handle of a live object, with
 * the subtype of the type it claims (DAT_INVALID_HANDLE_EP, ...), or no
 * subtype if it claims none kdapl has.
 */
DAT_RETURN dat_get_handle_type(DAT_HANDLE handle, DAT_HANDLE_TYPE *type)
{
	return kdapl_get_handle_type(&kdapl_kernel_owner, handle, type);
}
EXPORT_SYMBOL_GPL(dat_get_handle_type);
