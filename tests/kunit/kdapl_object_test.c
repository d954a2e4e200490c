// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for DAT handles: typed, generation-checked, owned, never a
 * pointer.  Every misuse must give DAT_INVALID_HANDLE with the subtype
 * of the expected type, never an oops; another owner's handle is refused
 * exactly as a freed one is.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/resource.h>
#include <kunit/test-bug.h>
#include <linux/slab.h>

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

#define KDAPL_HANDLE_INDEX(h)	((u32)(uintptr_t)(h))

/*
 * Each index counts its own generations and retires once it has given
 * them all: a handle never comes back while the module is loaded.
 */
static void kdapl_generation_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE seen[16], pz, old;
	DAT_PZ_PARAM param;
	u32 id;
	int i, j;

	/* The lowest free index comes back, with another generation. */
	old = kdapl_test_pz(test, ia);
	id = KDAPL_HANDLE_INDEX(old);
	KUNIT_ASSERT_EQ(test, dat_pz_free(old), DAT_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(seen); i++) {
		seen[i] = kdapl_test_pz(test, ia);
		KUNIT_EXPECT_EQ(test, KDAPL_HANDLE_INDEX(seen[i]), id);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, seen[i], seen[j]);
		KUNIT_EXPECT_PTR_NE(test, seen[i], old);
		KUNIT_ASSERT_EQ(test, dat_pz_free(seen[i]), DAT_SUCCESS);
	}

	/* An index that gave all its generations is not given again. */
	kdapl_object_exhaust(id);
	pz = kdapl_test_pz(test, ia);
	KUNIT_EXPECT_NE(test, KDAPL_HANDLE_INDEX(pz), id);
	for (i = 0; i < ARRAY_SIZE(seen); i++)
		KUNIT_EXPECT_EQ(test, dat_pz_query(seen[i], DAT_PZ_FIELD_ALL,
						   &param),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

/*
 * Another owner's objects cannot be reached, in either direction, even
 * with their exact handles: each refusal is that of a freed handle.
 */
static void kdapl_owner_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_owner *other = kdapl_test_owner(test);
	DAT_IA_HANDLE kia = kdapl_test_open_ia(test, *name), oia;
	DAT_EVD_HANDLE oasync = DAT_HANDLE_NULL, oevd, kevd;
	DAT_PZ_HANDLE kpz = kdapl_test_pz(test, kia), opz, pz, freed;
	DAT_RETURN bad_pz = KDAPL_ERR(DAT_INVALID_HANDLE,
				      DAT_INVALID_HANDLE_PZ);
	DAT_RETURN bad_ia = KDAPL_ERR(DAT_INVALID_HANDLE,
				      DAT_INVALID_HANDLE_IA);
	DAT_LMR_TRIPLET t = {};
	DAT_HANDLE_TYPE type;
	DAT_PZ_PARAM param;
	DAT_EP_HANDLE oep;

	KUNIT_ASSERT_EQ(test, kdapl_ia_open(other, *name, 8, &oasync, &oia),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_pz_create(other, oia, &opz), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_evd_kcreate(other, oia, 8,
						DAT_UPCALL_DISABLE, NULL,
						DAT_EVD_DTO_FLAG, &oevd),
			DAT_SUCCESS);
	kevd = kdapl_test_evd(test, kia, 8, DAT_EVD_DTO_FLAG);
	freed = kdapl_test_pz(test, kia);
	KUNIT_ASSERT_EQ(test, dat_pz_free(freed), DAT_SUCCESS);

	/* Kernel consumers do not reach the other owner's objects... */
	KUNIT_EXPECT_EQ(test, dat_pz_create(oia, &pz), bad_ia);
	KUNIT_EXPECT_EQ(test, dat_pz_query(opz, DAT_PZ_FIELD_ALL, &param),
			dat_pz_query(freed, DAT_PZ_FIELD_ALL, &param));
	KUNIT_EXPECT_EQ(test, dat_pz_free(opz), bad_pz);
	KUNIT_EXPECT_EQ(test, dat_get_handle_type(opz, &type), bad_pz);
	KUNIT_EXPECT_EQ(test, dat_ia_close(oia, DAT_CLOSE_ABRUPT_FLAG), bad_ia);
	/* ...nor does the other owner reach theirs, or mix them with its own. */
	KUNIT_EXPECT_EQ(test, kdapl_pz_free(other, kpz), bad_pz);
	KUNIT_EXPECT_EQ(test, kdapl_pz_create(other, kia, &pz), bad_ia);
	KUNIT_EXPECT_EQ(test, kdapl_ep_create(other, oia, kpz, oevd, oevd,
					      DAT_HANDLE_NULL, NULL, &oep),
			bad_pz);
	KUNIT_EXPECT_EQ(test, kdapl_ep_create(other, oia, opz, kevd, oevd,
					      DAT_HANDLE_NULL, NULL, &oep),
			KDAPL_ERR(DAT_INVALID_HANDLE,
				  DAT_INVALID_HANDLE_EVD_RECV));
	KUNIT_ASSERT_EQ(test, kdapl_ep_create(other, oia, opz, oevd, oevd,
					      DAT_HANDLE_NULL, NULL, &oep),
			DAT_SUCCESS);
	/* The posting fast path checks the owner too. */
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(oep, 0, &t,
					       (DAT_DTO_COOKIE)0ULL, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, kdapl_ep_post_recv(other, oep, 0, &t,
						 (DAT_DTO_COOKIE)0ULL, 0),
			DAT_SUCCESS);

	/* Releasing the owner closes its IA and frees what was in it. */
	kdapl_owner_release(other);
	KUNIT_EXPECT_EQ(test, kdapl_pz_free(other, opz), bad_pz);
	KUNIT_EXPECT_EQ(test, kdapl_ia_close(other, oia,
					     DAT_CLOSE_ABRUPT_FLAG), bad_ia);
	/* The kernel consumers' objects are untouched. */
	KUNIT_EXPECT_EQ(test, dat_pz_free(kpz), DAT_SUCCESS);
}

static void kdapl_never_called(DAT_PVOID data, const DAT_EVENT *event,
			       DAT_BOOLEAN more)
{
	kunit_fail_current_test("an upcall of a process's EVD ran");
}

/*
 * What only kernel consumers may give: kernel and physical memory, and
 * upcalls (kernel functions).  Another owner's virtual addresses are its
 * process's: a kernel address is not one.
 */
static void kdapl_kernel_only_test(struct kunit *test)
{
	static const DAT_MEM_TYPE types[] = {
		DAT_MEM_TYPE_PHYSICAL, DAT_MEM_TYPE_PHYSICAL_VAR_PAGES,
		DAT_MEM_TYPE_SG,
	};
	const char *const *name = test->param_value;
	struct kdapl_owner *other = kdapl_test_owner(test);
	DAT_UPCALL_OBJECT upcall = {
		.instance_data = test,
		.upcall_func = kdapl_never_called,
	};
	DAT_EVD_HANDLE oasync = DAT_HANDLE_NULL, oevd;
	DAT_REGION_DESCRIPTION region = {};
	void *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	DAT_LMR_CONTEXT ctx;
	DAT_LMR_HANDLE lmr;
	DAT_IA_HANDLE oia;
	DAT_PZ_HANDLE opz;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	kdapl_test_open_ia(test, *name);	/* skips without the adapter */
	KUNIT_ASSERT_EQ(test, kdapl_ia_open(other, *name, 8, &oasync, &oia),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_pz_create(other, oia, &opz), DAT_SUCCESS);
	region.for_va = buf;
	for (i = 0; i < ARRAY_SIZE(types); i++)
		KUNIT_EXPECT_EQ(test,
				kdapl_lmr_kcreate(other, oia, types[i], region,
						  PAGE_SIZE, opz,
						  DAT_MEM_PRIV_ALL_FLAG,
						  DAT_VA_TYPE_VA,
						  DAT_MEM_OPTIMIZE_DONT_CARE,
						  &lmr, &ctx, NULL, NULL,
						  NULL),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test,
			kdapl_lmr_kcreate(other, oia, DAT_MEM_TYPE_VIRTUAL,
					  region, PAGE_SIZE, opz,
					  DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
					  DAT_MEM_OPTIMIZE_DONT_CARE, &lmr, &ctx,
					  NULL, NULL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, kdapl_evd_kcreate(other, oia, 8,
						DAT_UPCALL_SINGLE_INSTANCE,
						&upcall, DAT_EVD_SOFTWARE_FLAG,
						&oevd),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_ASSERT_EQ(test, kdapl_evd_kcreate(other, oia, 8,
						DAT_UPCALL_DISABLE, &upcall,
						DAT_EVD_SOFTWARE_FLAG, &oevd),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_evd_modify_upcall(other, oevd,
						      DAT_UPCALL_MANY,
						      DAT_UPCALL_SAME),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, kdapl_evd_modify_upcall(other, oevd,
						      DAT_UPCALL_DISABLE,
						      DAT_UPCALL_SAME),
			DAT_SUCCESS);
}

static struct kunit_case kdapl_object_cases[] = {
	KUNIT_CASE_PARAM(kdapl_bad_handle_test, kdapl_bad_handle_gen_params),
	KUNIT_CASE_PARAM(kdapl_wrong_type_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_stale_handle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_forged_generation_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_generation_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_owner_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_kernel_only_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_object_suite = {
	.name = "kdapl_handle",
	.test_cases = kdapl_object_cases,
};

kunit_test_suite(kdapl_object_suite);
