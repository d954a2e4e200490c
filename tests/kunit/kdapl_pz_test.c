// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Protection Zones.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "kdapl_test_util.h"

static void kdapl_pz_lifecycle_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_PARAM param = {};
	DAT_PZ_HANDLE pz;

	KUNIT_EXPECT_EQ(test, dat_pz_create(ia, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz), DAT_SUCCESS);
	KUNIT_EXPECT_NOT_NULL(test, pz);

	KUNIT_EXPECT_EQ(test, dat_pz_query(pz, DAT_PZ_FIELD_ALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.ia_handle, ia);
	KUNIT_EXPECT_EQ(test, dat_pz_query(pz, DAT_PZ_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_pz_query(pz, 0x2, &param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
}

/* A PZ another object uses cannot be freed. */
static void kdapl_pz_in_use_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	struct kdapl_pz *p;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, pz, PZ, DAT_INVALID_HANDLE_PZ, &p),
			DAT_SUCCESS);
	mutex_lock(&p->obj.ia->lock);
	kdapl_use(&p->obj);
	mutex_unlock(&p->obj.ia->lock);

	KUNIT_EXPECT_EQ(test, dat_pz_free(pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));

	mutex_lock(&p->obj.ia->lock);
	kdapl_unuse(&p->obj);
	mutex_unlock(&p->obj.ia->lock);
	kdapl_object_put(&p->obj);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

/* An abrupt close frees many PZs at once. */
static void kdapl_pz_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz[16];
	DAT_PZ_PARAM param;
	DAT_IA_HANDLE ia;
	int i;

	kdapl_test_open_ia(test, *name);	/* skips without the device */
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async, &ia), DAT_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(pz); i++)
		KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz[i]), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(pz); i++)
		KUNIT_EXPECT_EQ(test, dat_pz_query(pz[i], DAT_PZ_FIELD_ALL,
						   &param),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_PZ));
}

static struct kunit_case kdapl_pz_cases[] = {
	KUNIT_CASE_PARAM(kdapl_pz_lifecycle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_pz_in_use_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_pz_abrupt_close_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_pz_suite = {
	.name = "kdapl_pz",
	.test_cases = kdapl_pz_cases,
};

kunit_test_suite(kdapl_pz_suite);
