// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Remote Memory Regions: create, query and free, handle
 * misuse, the use an RMR bound to an LMR takes on it, and teardown by an
 * abrupt IA close.  Binding goes through kdapl_rmr_bind_lmr(), the
 * bookkeeping half of dat_rmr_bind().
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>

#include "kdapl_test_util.h"

static DAT_LMR_HANDLE kdapl_rmr_test_lmr(struct kunit *test,
					 DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
					 void *buf, DAT_VLEN len,
					 DAT_LMR_CONTEXT *lctx)
{
	DAT_REGION_DESCRIPTION r = { .for_va = buf };
	DAT_LMR_HANDLE lmr;

	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, len,
					      pz, DAT_MEM_PRIV_ALL_FLAG,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE, &lmr,
					      lctx, NULL, NULL, NULL),
			DAT_SUCCESS);
	return lmr;
}

/* Bind or unbind (lmr NULL) through the internal helpers. */
static void kdapl_rmr_test_bind(struct kunit *test, DAT_RMR_HANDLE rmr,
				DAT_LMR_HANDLE lmr,
				const DAT_LMR_TRIPLET *t,
				DAT_MEM_PRIV_FLAGS priv)
{
	struct kdapl_lmr *l = NULL;
	struct kdapl_rmr *r;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, rmr, RMR, DAT_INVALID_HANDLE_RMR, &r),
			DAT_SUCCESS);
	if (lmr &&
	    kdapl_get(&kdapl_kernel_owner, lmr, LMR, DAT_INVALID_HANDLE_LMR, &l) != DAT_SUCCESS) {
		kdapl_object_put(&r->obj);
		KUNIT_ASSERT_FAILURE(test, "bad LMR handle");
	}
	mutex_lock(&r->obj.ia->lock);
	if (l)
		kdapl_rmr_bind_lmr(r, l, t, priv);
	else
		kdapl_rmr_unbind(r);
	mutex_unlock(&r->obj.ia->lock);
	if (l)
		kdapl_object_put(&l->obj);
	kdapl_object_put(&r->obj);
}

static int kdapl_rmr_test_users(struct kunit *test, DAT_LMR_HANDLE lmr)
{
	struct kdapl_lmr *l;
	int users;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, lmr, LMR,
					DAT_INVALID_HANDLE_LMR, &l),
			DAT_SUCCESS);
	users = atomic_read(&l->rmr_binds);
	kdapl_object_put(&l->obj);
	return users;
}

static void kdapl_rmr_lifecycle_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	static const DAT_LMR_TRIPLET zero;
	DAT_RMR_HANDLE rmr, rmr2;
	DAT_RMR_PARAM p;

	KUNIT_ASSERT_EQ(test, dat_rmr_create(pz, &rmr), DAT_SUCCESS);
	KUNIT_EXPECT_NOT_NULL(test, rmr);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(pz, &rmr2), DAT_SUCCESS);
	KUNIT_EXPECT_PTR_NE(test, rmr, rmr2);

	memset(&p, 0xa5, sizeof(p));
	KUNIT_ASSERT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, p.ia_handle, ia);
	KUNIT_EXPECT_PTR_EQ(test, p.pz_handle, pz);
	KUNIT_EXPECT_EQ(test, memcmp(&p.lmr_triplet, &zero, sizeof(zero)), 0);
	KUNIT_EXPECT_EQ(test, p.mem_priv, DAT_MEM_PRIV_NONE_FLAG);
	KUNIT_EXPECT_EQ(test, p.rmr_context, 0u);
	KUNIT_EXPECT_EQ(test, p.rmr_scope, DAT_RMR_SCOPE_PZ);
	KUNIT_EXPECT_EQ(test, p.va_type, DAT_VA_TYPE_VA);

	/* Only the fields asked for are written. */
	memset(&p, 0xa5, sizeof(p));
	KUNIT_ASSERT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_PZ_HANDLE, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, p.pz_handle, pz);
	KUNIT_EXPECT_EQ(test, p.rmr_context, 0xa5a5a5a5u);

	/* The PZ is in use while an RMR exists. */
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

static void kdapl_rmr_misuse_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	DAT_PZ_HANDLE freed_pz = kdapl_test_pz(test, ia);
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_LMR_HANDLE lmr;
	DAT_RMR_PARAM p;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, dat_pz_free(freed_pz), DAT_SUCCESS);
	lmr = kdapl_rmr_test_lmr(test, ia, pz, buf, 64, NULL);

	KUNIT_EXPECT_EQ(test, dat_rmr_create(pz, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_rmr_create(DAT_HANDLE_NULL, &rmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_rmr_create(ia, &rmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_rmr_create(lmr, &rmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_rmr_create(freed_pz, &rmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_PTR_EQ(test, rmr, DAT_HANDLE_NULL);

	KUNIT_ASSERT_EQ(test, dat_rmr_create(pz, &rmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_ALL + 1, &p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_rmr_query(NULL, DAT_RMR_FIELD_ALL, &p),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_query(lmr, DAT_RMR_FIELD_ALL, &p),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(DAT_HANDLE_NULL),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(lmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(pz),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_free((DAT_RMR_HANDLE)(uintptr_t)
					   0x0700000100000001ULL),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	/* An RMR handle is not an LMR handle either. */
	KUNIT_EXPECT_EQ(test, dat_lmr_free(rmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
}

/*
 * A bound RMR uses its LMR: the LMR cannot be freed; rebinding moves the
 * use; freeing the bound RMR releases it.
 */
static void kdapl_rmr_bind_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	DAT_LMR_TRIPLET t = {}, t2 = {};
	DAT_LMR_HANDLE lmr, lmr2;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_PARAM p;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	lmr = kdapl_rmr_test_lmr(test, ia, pz, buf, PAGE_SIZE,
				 &t.lmr_context);
	lmr2 = kdapl_rmr_test_lmr(test, ia, pz, buf + PAGE_SIZE, PAGE_SIZE,
				  &t2.lmr_context);
	t.virtual_address = (uintptr_t)buf + 16;
	t.segment_length = 128;
	t2.virtual_address = (uintptr_t)buf + PAGE_SIZE;
	t2.segment_length = PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, dat_rmr_create(pz, &rmr), DAT_SUCCESS);

	kdapl_rmr_test_bind(test, rmr, lmr, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	KUNIT_EXPECT_EQ(test, kdapl_rmr_test_users(test, lmr), 1);
	KUNIT_ASSERT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.lmr_triplet.virtual_address,
			t.virtual_address);
	KUNIT_EXPECT_EQ(test, p.lmr_triplet.segment_length, t.segment_length);
	KUNIT_EXPECT_EQ(test, p.lmr_triplet.lmr_context, t.lmr_context);
	KUNIT_EXPECT_EQ(test, p.mem_priv, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	KUNIT_EXPECT_NE(test, p.rmr_context, 0u);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE));

	/* Rebinding moves the use to the new LMR. */
	kdapl_rmr_test_bind(test, rmr, lmr2, &t2,
			    DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	KUNIT_EXPECT_EQ(test, kdapl_rmr_test_users(test, lmr), 0);
	KUNIT_EXPECT_EQ(test, kdapl_rmr_test_users(test, lmr2), 1);
	KUNIT_ASSERT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_LMR_TRIPLET |
					    DAT_RMR_FIELD_MEM_PRIV, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.lmr_triplet.lmr_context, t2.lmr_context);
	KUNIT_EXPECT_EQ(test, p.mem_priv, DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);

	/* Unbinding clears the binding. */
	kdapl_rmr_test_bind(test, rmr, NULL, NULL, 0);
	KUNIT_EXPECT_EQ(test, kdapl_rmr_test_users(test, lmr2), 0);
	KUNIT_ASSERT_EQ(test, dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.rmr_context, 0u);
	KUNIT_EXPECT_EQ(test, p.lmr_triplet.segment_length, 0u);

	/* Freeing a bound RMR unbinds it. */
	kdapl_rmr_test_bind(test, rmr, lmr2, &t2, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr2),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

/* An abrupt close frees RMRs, bound or not, before their LMRs. */
static void kdapl_rmr_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET t = { .segment_length = 64 };
	DAT_RMR_HANDLE rmr[8];
	DAT_PZ_HANDLE pz, pz2;
	DAT_LMR_HANDLE lmr;
	DAT_RMR_PARAM p;
	DAT_IA_HANDLE ia;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	kdapl_test_open_ia(test, *name);	/* skips without the device */
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async, &ia), DAT_SUCCESS);
	pz = kdapl_test_pz(test, ia);
	pz2 = kdapl_test_pz(test, ia);
	lmr = kdapl_rmr_test_lmr(test, ia, pz, buf, PAGE_SIZE,
				 &t.lmr_context);
	t.virtual_address = (uintptr_t)buf;
	for (i = 0; i < ARRAY_SIZE(rmr); i++) {
		KUNIT_ASSERT_EQ(test, dat_rmr_create(i & 1 ? pz2 : pz, &rmr[i]),
				DAT_SUCCESS);
		if (i < 5)
			kdapl_rmr_test_bind(test, rmr[i], lmr, &t,
					    DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	}
	KUNIT_EXPECT_EQ(test, kdapl_rmr_test_users(test, lmr), 5);

	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(rmr); i++) {
		KUNIT_EXPECT_EQ(test, dat_rmr_query(rmr[i], DAT_RMR_FIELD_ALL,
						    &p),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_RMR));
		KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr[i]),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_RMR));
	}
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
}

static struct kunit_case kdapl_rmr_cases[] = {
	KUNIT_CASE_PARAM(kdapl_rmr_lifecycle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_rmr_misuse_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_rmr_bind_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_rmr_abrupt_close_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_rmr_suite = {
	.name = "kdapl_rmr",
	.test_cases = kdapl_rmr_cases,
};

kunit_test_suite(kdapl_rmr_suite);
