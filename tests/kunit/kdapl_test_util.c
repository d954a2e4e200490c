// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the KUnit suites of kdapl.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/resource.h>

#include "kdapl_test_util.h"

const char *const kdapl_test_adapters[KDAPL_TEST_NR_ADAPTERS] = {
	KDAPL_TEST_ROCE,
	KDAPL_TEST_IWARP,
};

const void *kdapl_test_adapter_gen(const void *prev, char *desc)
{
	const char *const *next;

	next = prev ? (const char *const *)prev + 1 : kdapl_test_adapters;
	if (next >= kdapl_test_adapters + KDAPL_TEST_NR_ADAPTERS)
		return NULL;
	strscpy(desc, *next, KUNIT_PARAM_DESC_SIZE);
	return next;
}

static int kdapl_test_hold_ia(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void kdapl_test_close_ia(struct kunit_resource *res)
{
	DAT_IA_HANDLE ia = res->data;

	/* Already closed by the test itself is fine. */
	dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
}

DAT_IA_HANDLE kdapl_test_open_ia(struct kunit *test, const char *name)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	struct kdapl_adapter *adapter;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	adapter = kdapl_adapter_get(name);
	if (!adapter)
		kunit_skip(test, "no adapter %s", name);
	kdapl_adapter_put(adapter);

	ret = dat_ia_open(name, 8, &async, &ia);
	KUNIT_ASSERT_EQ(test, ret, DAT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, ia);
	KUNIT_ASSERT_NOT_NULL(test, async);
	kunit_alloc_resource(test, kdapl_test_hold_ia, kdapl_test_close_ia, GFP_KERNEL, ia);
	return ia;
}

DAT_PZ_HANDLE kdapl_test_pz(struct kunit *test, DAT_IA_HANDLE ia)
{
	DAT_PZ_HANDLE pz;

	KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz), DAT_SUCCESS);
	return pz;
}

DAT_EVD_HANDLE kdapl_test_evd(struct kunit *test, DAT_IA_HANDLE ia,
			      DAT_COUNT qlen, DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd;

	KUNIT_ASSERT_EQ(test, dat_evd_kcreate(ia, qlen, DAT_UPCALL_DISABLE,
					      NULL, flags, &evd),
			DAT_SUCCESS);
	return evd;
}

DAT_EP_STATE kdapl_test_ep_state(struct kunit *test, DAT_EP_HANDLE ep)
{
	DAT_EP_STATE state = -1;

	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, NULL, NULL),
			DAT_SUCCESS);
	return state;
}

void kdapl_test_set_ep_state(struct kunit *test, DAT_EP_HANDLE ep,
			     DAT_EP_STATE state)
{
	struct kdapl_ep *e;

	KUNIT_ASSERT_EQ(test, kdapl_get(ep, EP, DAT_INVALID_HANDLE_EP, &e),
			DAT_SUCCESS);
	kdapl_ep_set_state(e, state);
	kdapl_object_put(&e->obj);
}
