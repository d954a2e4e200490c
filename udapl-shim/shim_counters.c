// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of the IB extensions (provider attribute DAT_COUNTERS):
 * dat_ib_query_counters(), dat_ib_print_counters(), and
 * dat_ib_start_counter() and dat_ib_stop_counter(), reached through
 * dat_extension_op() on an IA, EP or EVD.
 *
 * The kernel counts what it sees of each object (KDAPL_IOC_COUNTERS).
 * An EVD's waits and dequeues happen here, most of them without a system
 * call, so the shim counts those itself (shim_evd_tally()) and adds them
 * to the kernel's values; a reset zeroes both.  DAT_INVALID_ARGn numbers
 * the argument of the macro, the handle being the first.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

#include "shim.h"
#include <rdma/kdat_counter_names.h>

/* Every counter of Debian's header has its name. */
static_assert(SHIM_ARRAY_SIZE(kdat_ia_counter_names) == DCNT_IA_ALL_COUNTERS,
	      "IA counters");
static_assert(SHIM_ARRAY_SIZE(kdat_ep_counter_names) == DCNT_EP_ALL_COUNTERS,
	      "EP counters");
static_assert(SHIM_ARRAY_SIZE(kdat_evd_counter_names) ==
	      DCNT_EVD_ALL_COUNTERS, "EVD counters");

/**
 * struct shim_counter_type - the counters of one handle type
 * @type: DAT_HANDLE_TYPE_*
 * @nr: how many, the type's DCNT_*_ALL_COUNTERS
 * @names: their names, by DCNT_* value
 * @what: the type's name in what dat_ib_print_counters() prints
 */
struct shim_counter_type {
	DAT_HANDLE_TYPE type;
	unsigned int nr;
	const char *const *names;
	const char *what;
};

static const struct shim_counter_type shim_counter_types[] = {
	{ DAT_HANDLE_TYPE_IA, DCNT_IA_ALL_COUNTERS, kdat_ia_counter_names,
	  "IA" },
	{ DAT_HANDLE_TYPE_EP, DCNT_EP_ALL_COUNTERS, kdat_ep_counter_names,
	  "EP" },
	{ DAT_HANDLE_TYPE_EVD, DCNT_EVD_ALL_COUNTERS, kdat_evd_counter_names,
	  "EVD" },
};

/*
 * The IA, EP or EVD behind @handle and its counter type, or NULL with
 * the error in *@ret.
 */
static struct shim_obj *shim_counters_obj(DAT_HANDLE handle,
					  const struct shim_counter_type **tp,
					  DAT_RETURN *ret)
{
	struct shim_obj *obj;
	size_t i;

	for (i = 0; i < SHIM_ARRAY_SIZE(shim_counter_types); i++) {
		obj = shim_obj_get(handle, shim_counter_types[i].type);
		if (!obj)
			continue;
		if (!(obj->ia->ib_extensions & KDAPL_IA_EXT_COUNTERS)) {
			*ret = SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
			return NULL;
		}
		*tp = &shim_counter_types[i];
		return obj;
	}
	*ret = SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	return NULL;
}

/* Add the EVD counters the shim keeps to the kernel's, resetting them. */
static void shim_counters_add_evd(struct shim_evd *evd, int counter,
				  DAT_UINT64 *values, int reset)
{
	int first = counter == DCNT_EVD_ALL_COUNTERS ? 0 : counter;
	int n = counter == DCNT_EVD_ALL_COUNTERS ? DCNT_EVD_ALL_COUNTERS : 1;
	int i;

	for (i = 0; i < n; i++)
		values[i] += reset ?
			__atomic_exchange_n(&evd->counters[first + i], 0,
					    __ATOMIC_RELAXED) :
			__atomic_load_n(&evd->counters[first + i],
					__ATOMIC_RELAXED);
}

/* Read @counter (or all) of @obj into @values, as the macro would. */
static DAT_RETURN shim_counters_read(struct shim_obj *obj,
				     const struct shim_counter_type *t,
				     int counter, DAT_UINT64 *values,
				     int reset)
{
	struct kdapl_ioc_counters c = {
		.id = obj->id,
		.type = obj->type,
		.counter = counter,
		.reset = !!reset,
		.capacity = t->nr,
		.values = (uintptr_t)values,
	};
	DAT_RETURN ret;

	if (counter < 0 || (unsigned int)counter > t->nr)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = SHIM_CALL(obj->ia, COUNTERS, c);
	if (ret == DAT_SUCCESS && obj->type == DAT_HANDLE_TYPE_EVD)
		shim_counters_add_evd((struct shim_evd *)obj, counter, values,
				      reset);
	return ret;
}

/**
 * shim_counters_query() - dat_ib_query_counters(handle, counter,
 *	p_cntrs_out, reset)
 * @handle: the IA, EP or EVD
 * @args: the macro's arguments after the operation
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE for a handle that is not an
 * IA, EP or EVD; DAT_INVALID_PARAMETER for a counter out of range or a
 * NULL p_cntrs_out; DAT_NOT_IMPLEMENTED on an IA without DAT_COUNTERS.
 */
DAT_RETURN shim_counters_query(DAT_HANDLE handle, va_list args)
{
	const struct shim_counter_type *t;
	DAT_UINT64 *values;
	struct shim_obj *obj;
	int counter, reset;
	DAT_RETURN ret;

	obj = shim_counters_obj(handle, &t, &ret);
	if (!obj)
		return ret;
	counter = va_arg(args, int);
	values = va_arg(args, DAT_UINT64 *);
	reset = va_arg(args, int);
	if (!values)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return shim_counters_read(obj, t, counter, values, reset);
}

/**
 * shim_counters_print() - dat_ib_print_counters(handle, counter, reset)
 * @handle: the IA, EP or EVD
 * @args: the macro's arguments after the operation
 *
 * Prints one line per counter to standard output.
 *
 * Return: as shim_counters_query().
 */
DAT_RETURN shim_counters_print(DAT_HANDLE handle, va_list args)
{
	DAT_UINT64 values[DCNT_IA_ALL_COUNTERS] = { 0 };
	const struct shim_counter_type *t;
	struct shim_obj *obj;
	int counter, reset;
	DAT_RETURN ret;
	unsigned int i, first, n;

	obj = shim_counters_obj(handle, &t, &ret);
	if (!obj)
		return ret;
	counter = va_arg(args, int);
	reset = va_arg(args, int);
	ret = shim_counters_read(obj, t, counter, values, reset);
	if (ret != DAT_SUCCESS)
		return ret;
	first = (unsigned int)counter == t->nr ? 0 : (unsigned int)counter;
	n = (unsigned int)counter == t->nr ? t->nr : 1;
	for (i = 0; i < n; i++)
		printf("kdapl %s %u: %s %llu\n", t->what, obj->id,
		       t->names[first + i], (unsigned long long)values[i]);
	fflush(stdout);
	return DAT_SUCCESS;
}

/**
 * shim_counters_sample() - dat_ib_start_counter(ia, type) and
 *	dat_ib_stop_counter(ia, type)
 * @handle: the IA
 * @args: the macro's arguments after the operation
 *
 * The connection counters (DCNT_IA_CM) always count; the port's link
 * and diagnostic counters are not sampled.
 *
 * Return: DAT_SUCCESS for DCNT_IA_CM; DAT_NOT_IMPLEMENTED for the link
 * and diagnostic counters or on an IA without DAT_COUNTERS;
 * DAT_INVALID_HANDLE if @handle is not an IA; DAT_INVALID_PARAMETER for
 * another type.
 */
DAT_RETURN shim_counters_sample(DAT_HANDLE handle, va_list args)
{
	const struct shim_counter_type *t;
	struct shim_obj *obj;
	DAT_RETURN ret;
	int type;

	obj = shim_counters_obj(handle, &t, &ret);
	if (!obj)
		return ret;
	if (obj->type != DAT_HANDLE_TYPE_IA)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	type = va_arg(args, int);
	switch (type) {
	case DCNT_IA_CM:
		return DAT_SUCCESS;
	case DCNT_IA_LNK:
	case DCNT_IA_DIAG:
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	default:
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
}
