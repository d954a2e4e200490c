// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_counters.c - the DAT_COUNTERS of the IB extensions
 *
 * IAs, EPs and EVDs count what happens to them in 64-bit counters,
 * indexed by the DCNT_* values of <rdma/kdat_ib_extensions.h>, which
 * dat_ib_query_counters() reads and dat_ib_print_counters() prints.
 * The counting sites are where things happen: kdapl_ia_add_object() and
 * kdapl_ia_del_object() for creates and frees, the post and completion
 * paths of kdapl_dto.c, the connection code, the EVDs.  Each counter is
 * an atomic64_t incremented with relaxed atomics: counting takes no
 * lock, and a reader sees each value whole (though not all of them at
 * one instant).  A reset exchanges each value read with zero, so no
 * increment is lost between the read and the reset.
 *
 * Counters that describe what kdapl cannot see read as zero: the IB CM
 * messages that rdma_cm does not report (REP, RTU, MRA, DREP and their
 * retries), the memory allocator of OFA's provider, the sampled port
 * counters (LNK, DIAG), unreliable datagrams, and the waits of uDAT
 * (udapl-shim counts those, and the dequeues it makes without the
 * kernel, itself).
 *
 * An IA offers the counters when it offers an IB extension operation
 * (KDAPL_IB_EXT_COUNTERS), as its provider attribute DAT_COUNTERS says.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>
#include <kunit/visibility.h>

#include "kdapl.h"
#include <rdma/kdat_counter_names.h>

/* Every counter has its name. */
static_assert(ARRAY_SIZE(kdat_ia_counter_names) == DCNT_IA_ALL_COUNTERS);
static_assert(ARRAY_SIZE(kdat_ep_counter_names) == DCNT_EP_ALL_COUNTERS);
static_assert(ARRAY_SIZE(kdat_evd_counter_names) == DCNT_EVD_ALL_COUNTERS);

/**
 * struct kdapl_counter_type - the counters of one handle type
 * @type: DAT_HANDLE_TYPE_*
 * @nr: how many, the type's DCNT_*_ALL_COUNTERS
 * @obj: offset of the &struct kdapl_object in the object
 * @counters: offset of the counters in the object
 * @names: the counters' names, by DCNT_* value
 * @what: the type's name in messages
 */
struct kdapl_counter_type {
	DAT_HANDLE_TYPE type;
	unsigned int nr;
	size_t obj;
	size_t counters;
	const char *const *names;
	const char *what;
};

static const struct kdapl_counter_type kdapl_counter_types[] = {
	{
		.type = DAT_HANDLE_TYPE_IA,
		.nr = DCNT_IA_ALL_COUNTERS,
		.obj = offsetof(struct kdapl_ia, obj),
		.counters = offsetof(struct kdapl_ia, counters),
		.names = kdat_ia_counter_names,
		.what = "IA",
	},
	{
		.type = DAT_HANDLE_TYPE_EP,
		.nr = DCNT_EP_ALL_COUNTERS,
		.obj = offsetof(struct kdapl_ep, obj),
		.counters = offsetof(struct kdapl_ep, counters),
		.names = kdat_ep_counter_names,
		.what = "EP",
	},
	{
		.type = DAT_HANDLE_TYPE_EVD,
		.nr = DCNT_EVD_ALL_COUNTERS,
		.obj = offsetof(struct kdapl_evd, obj),
		.counters = offsetof(struct kdapl_evd, counters),
		.names = kdat_evd_counter_names,
		.what = "EVD",
	},
};

/*
 * The object of @handle with its counter type, a reference held;
 * DAT_INVALID_HANDLE for a handle of another type or owner, and
 * DAT_NOT_IMPLEMENTED when the object's IA does not count.
 */
static DAT_RETURN kdapl_counters_get(struct kdapl_owner *owner,
				     DAT_HANDLE handle,
				     const struct kdapl_counter_type **tp,
				     struct kdapl_object **objp)
{
	DAT_HANDLE_TYPE type;
	unsigned int i;
	DAT_RETURN ret;

	type = kdapl_handle_type(handle);
	for (i = 0; i < ARRAY_SIZE(kdapl_counter_types); i++)
		if (kdapl_counter_types[i].type == type)
			break;
	if (i == ARRAY_SIZE(kdapl_counter_types))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_ARG1);
	ret = kdapl_object_get(owner, handle, type,
			       kdapl_object_ops(type)->bad_handle, objp);
	if (ret)
		return ret;
	if (!((*objp)->ia->ib_ext & KDAPL_IB_EXT_COUNTERS)) {
		kdapl_object_put(*objp);
		return dat_error(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	}
	*tp = &kdapl_counter_types[i];
	return DAT_SUCCESS;
}

/*
 * Read counter @counter of @obj (of type @t), or all of them, into
 * @values; see kdapl_counters_query().
 */
static DAT_RETURN kdapl_counters_read(struct kdapl_object *obj,
				      const struct kdapl_counter_type *t,
				      int counter, bool reset, u64 *values,
				      unsigned int capacity,
				      unsigned int *count)
{
	unsigned int first, n, i;
	atomic64_t *c;

	if (counter < 0 || counter > t->nr)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	first = counter == t->nr ? 0 : counter;
	n = counter == t->nr ? t->nr : 1;
	if (n > capacity)
		return dat_error(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	c = (atomic64_t *)((char *)obj - t->obj + t->counters);
	for (i = 0; i < n; i++)
		values[i] = reset ? atomic64_xchg(&c[first + i], 0) :
				    atomic64_read(&c[first + i]);
	*count = n;
	return DAT_SUCCESS;
}

/**
 * kdapl_counters_query() - read the counters of an IA, EP or EVD
 * @owner: who asks
 * @handle: the IA, EP or EVD
 * @counter: the DCNT_* value of one counter of @handle's type, or the
 *	type's DCNT_*_ALL_COUNTERS for all of them
 * @reset: zero the counters read
 * @values: where the values go, in DCNT_* order
 * @capacity: values @values has room for
 * @count: out: values written
 *
 * Context: any context.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE for a handle that is not an
 * IA, EP or EVD of @owner; DAT_INVALID_PARAMETER for a @counter out of
 * range; DAT_LENGTH_ERROR if @capacity is too small; DAT_NOT_IMPLEMENTED
 * if the IA does not offer the counters.
 */
DAT_RETURN kdapl_counters_query(struct kdapl_owner *owner, DAT_HANDLE handle,
				int counter, bool reset, u64 *values,
				unsigned int capacity, unsigned int *count)
{
	const struct kdapl_counter_type *t;
	struct kdapl_object *obj;
	DAT_RETURN ret;

	ret = kdapl_counters_get(owner, handle, &t, &obj);
	if (ret)
		return ret;
	ret = kdapl_counters_read(obj, t, counter, reset, values, capacity,
				  count);
	kdapl_object_put(obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_counters_query);

/**
 * dat_ib_query_counters() - read the counters of an IA, EP or EVD
 * @dat_handle: the IA, EP or EVD
 * @counter: the DCNT_* value of one counter of the handle's type, or
 *	the type's DCNT_*_ALL_COUNTERS for all of them
 * @p_cntrs_out: where the value goes, or all of them in DCNT_* order
 * @reset: nonzero to zero the counters read
 *
 * Context: any context.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE for a handle that is not an
 * IA, EP or EVD; DAT_INVALID_PARAMETER for a @counter out of range or a
 * NULL @p_cntrs_out; DAT_NOT_IMPLEMENTED if the IA does not offer the
 * counters (its provider attributes lack DAT_COUNTERS).
 */
DAT_RETURN dat_ib_query_counters(DAT_HANDLE dat_handle, int counter,
				 DAT_UINT64 *p_cntrs_out, int reset)
{
	unsigned int count;

	if (!p_cntrs_out)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return kdapl_counters_query(&kdapl_kernel_owner, dat_handle, counter,
				    reset, p_cntrs_out, DCNT_IA_ALL_COUNTERS,
				    &count);
}
EXPORT_SYMBOL_GPL(dat_ib_query_counters);

/**
 * dat_ib_print_counters() - print the counters of an IA, EP or EVD
 * @dat_handle: the IA, EP or EVD
 * @counter: as for dat_ib_query_counters()
 * @reset: as for dat_ib_query_counters()
 *
 * Prints one line per counter to the kernel log, at KERN_INFO.
 *
 * Context: process context, may sleep.
 * Return: as dat_ib_query_counters(), or DAT_INSUFFICIENT_RESOURCES
 * without memory.
 */
DAT_RETURN dat_ib_print_counters(DAT_HANDLE dat_handle, int counter,
				 int reset)
{
	const struct kdapl_counter_type *t;
	unsigned int first, count, i;
	struct kdapl_object *obj;
	DAT_RETURN ret;
	u64 *values;

	ret = kdapl_counters_get(&kdapl_kernel_owner, dat_handle, &t, &obj);
	if (ret)
		return ret;
	values = kcalloc(t->nr, sizeof(*values), GFP_KERNEL);
	if (!values) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto put;
	}
	ret = kdapl_counters_read(obj, t, counter, reset, values, t->nr,
				  &count);
	first = counter == t->nr ? 0 : counter;
	for (i = 0; !ret && i < count; i++)
		pr_info("kdapl: %s %u: %s %llu\n", t->what, obj->id,
			t->names[first + i], values[i]);
	kfree(values);
put:
	kdapl_object_put(obj);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ib_print_counters);

/* dat_ib_start_counter() and dat_ib_stop_counter(). */
static DAT_RETURN kdapl_counters_sample(DAT_HANDLE dat_handle,
					DAT_IA_COUNTER_TYPE type)
{
	const struct kdapl_counter_type *t;
	struct kdapl_object *obj;
	DAT_RETURN ret;

	ret = kdapl_counters_get(&kdapl_kernel_owner, dat_handle, &t, &obj);
	if (ret)
		return ret;
	kdapl_object_put(obj);
	if (t->type != DAT_HANDLE_TYPE_IA)
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	switch (type) {
	case DCNT_IA_CM:
		return DAT_SUCCESS;	/* always counted */
	case DCNT_IA_LNK:
	case DCNT_IA_DIAG:
		return dat_error(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	default:
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
}

/**
 * dat_ib_start_counter() - start sampling a kind of IA counters
 * @dat_handle: the IA
 * @type: DCNT_IA_CM, DCNT_IA_LNK or DCNT_IA_DIAG
 *
 * The connection counters (DCNT_IA_CM) always count; the port's link
 * and diagnostic counters are not sampled.
 *
 * Context: any context.
 * Return: DAT_SUCCESS for DCNT_IA_CM; DAT_NOT_IMPLEMENTED for the link
 * and diagnostic counters, or on an IA without DAT_COUNTERS;
 * DAT_INVALID_HANDLE if @dat_handle is not an IA; DAT_INVALID_PARAMETER
 * for another @type.
 */
DAT_RETURN dat_ib_start_counter(DAT_HANDLE dat_handle,
				DAT_IA_COUNTER_TYPE type)
{
	return kdapl_counters_sample(dat_handle, type);
}
EXPORT_SYMBOL_GPL(dat_ib_start_counter);

/**
 * dat_ib_stop_counter() - stop sampling a kind of IA counters
 * @dat_handle: the IA
 * @type: as for dat_ib_start_counter()
 *
 * Context: any context.
 * Return: as dat_ib_start_counter().
 */
DAT_RETURN dat_ib_stop_counter(DAT_HANDLE dat_handle,
			       DAT_IA_COUNTER_TYPE type)
{
	return kdapl_counters_sample(dat_handle, type);
}
EXPORT_SYMBOL_GPL(dat_ib_stop_counter);
