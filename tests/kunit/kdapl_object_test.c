// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for DAT handles: typed, generation-checked, never a
 * pointer.  Every misuse must give DAT_INVALID_HANDLE with the subtype
 * of the expected type, never an oops.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "kdapl_test_util.h"

struct kdapl_bad_handle_case {
	const char *desc;
	DAT_HANDLE handle;
};

/* Values no live object can have. */
static const struct kdapl_bad_handle_case kdapl_bad_handles[] = {
	{ "NULL", DAT_HANDLE_NULL },
	{ "one", (DAT_HANDLE)1UL },
	{ "two", (DAT_HANDLE)2UL },
	{ "all ones", (DAT_HANDLE)~0UL },
	{ "kernel pointer", (DAT_HANDLE)0xffff888000000000UL },
	{ "PZ type, generation 0", (DAT_HANDLE)(6UL << 56 | 1) },
	{ "PZ type, unused index", (DAT_HANDLE)(6UL << 56 | 1UL << 32 |
						0xfffffff0) },
	{ "EP type, random", (DAT_HANDLE)(1UL << 56 | 0x123456UL << 32 |
					  77) },
};

static void kdapl_bad_handle_desc(const struct kdapl_bad_handle_case *c,
				  char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kdapl_bad_handle, kdapl_bad_handles, kdapl_bad_handle_desc);

/* Garbage handles are refused by every family's functions. */
static void kdapl_bad_handle_test(struct kunit *test)
{
	const struct kdapl_bad_handle_case *c = test->param_value;
	DAT_HANDLE_TYPE type;
	DAT_PZ_PARAM pz_param;
	DAT_PZ_HANDLE pz;

	KUNIT_EXPECT_EQ(test, dat_ia_close(c->handle, DAT_CLOSE_ABRUPT_FLAG),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_pz_create(c->handle, &pz),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_pz_free(c->handle),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_pz_query(c->handle, DAT_PZ_FIELD_ALL,
					   &pz_param),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_get_handle_type(c->handle,
							       &type)),
			(DAT_RETURN)DAT_INVALID_HANDLE);
}

/* A handle of one type is no handle of another type. */
static void kdapl_wrong_type_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia), pz2;
	DAT_HANDLE_TYPE type;

	KUNIT_EXPECT_EQ(test, dat_ia_close(pz, DAT_CLOSE_ABRUPT_FLAG),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_pz_free(ia),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_pz_create(pz, &pz2),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));

	KUNIT_EXPECT_EQ(test, dat_get_handle_type(ia, &type), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_IA);
	KUNIT_EXPECT_EQ(test, dat_get_handle_type(pz, &type), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_PZ);
	KUNIT_EXPECT_EQ(test, dat_get_handle_type(pz, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
}

/* A freed handle stays invalid, even after its index is reused. */
static void kdapl_stale_handle_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE old, pz;
	DAT_HANDLE_TYPE type;
	DAT_PZ_PARAM param;
	int i;

	old = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, dat_pz_free(old), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(old),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_pz_query(old, DAT_PZ_FIELD_ALL, &param),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_get_handle_type(old, &type),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));

	/* New objects never get the old handle back. */
	for (i = 0; i < 64; i++) {
		pz = kdapl_test_pz(test, ia);
		KUNIT_EXPECT_PTR_NE(test, pz, old);
		KUNIT_ASSERT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, dat_pz_free(old),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
}

/* The same index with another generation is refused. */
static void kdapl_forged_generation_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	unsigned long v = (unsigned long)pz;
	DAT_PZ_PARAM param;

	v ^= 1UL << 40;		/* flip a generation bit */
	KUNIT_EXPECT_EQ(test, dat_pz_query((DAT_HANDLE)v, DAT_PZ_FIELD_ALL,
					   &param),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_pz_free((DAT_HANDLE)v),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	/* The real one is untouched. */
	KUNIT_EXPECT_EQ(test, dat_pz_query(pz, DAT_PZ_FIELD_ALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.ia_handle, ia);
}

static struct kunit_case kdapl_object_cases[] = {
	KUNIT_CASE_PARAM(kdapl_bad_handle_test, kdapl_bad_handle_gen_params),
	KUNIT_CASE_PARAM(kdapl_wrong_type_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_stale_handle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_forged_generation_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_object_suite = {
	.name = "kdapl_handle",
	.test_cases = kdapl_object_cases,
};

kunit_test_suite(kdapl_object_suite);
