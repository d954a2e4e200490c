// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Interface Adapter instances: open by name, graceful and
 * abrupt close, query, async EVDs, and teardown when the owner goes away.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/in.h>
#include <linux/slab.h>

#include "kdapl_test_util.h"

struct kdapl_ia_name_case {
	const char *name;	/* as given to dat_ia_open() */
	const char *full;	/* adapter_name dat_ia_query() reports */
};

/* The VM puts rxe0 on eth0 and siw0 on eth1. */
static const struct kdapl_ia_name_case kdapl_ia_names[] = {
	{ "rxe0-1-eth0", "rxe0-1-eth0" },
	{ "rxe0-1", "rxe0-1-eth0" },
	{ "eth0", "rxe0-1-eth0" },
	{ "siw0-1-eth1", "siw0-1-eth1" },
	{ "siw0-1", "siw0-1-eth1" },
	{ "eth1", "siw0-1-eth1" },
};

static void kdapl_ia_name_desc(const struct kdapl_ia_name_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kdapl_ia_name, kdapl_ia_names, kdapl_ia_name_desc);

static void kdapl_ia_open_by_name_test(struct kunit *test)
{
	const struct kdapl_ia_name_case *c = test->param_value;
	DAT_IA_ATTR *attr;
	DAT_IA_HANDLE ia;

	ia = kdapl_test_open_ia(test, c->name);
	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, attr,
					   0, NULL),
			DAT_SUCCESS);
	KUNIT_EXPECT_STREQ(test, attr->adapter_name, c->full);
}

struct kdapl_ia_open_case {
	const char *desc;
	const char *name;
	DAT_COUNT qlen;
	bool null_async;
	bool null_ia;
	DAT_RETURN ret;
};

static const struct kdapl_ia_open_case kdapl_ia_open_cases[] = {
	{ "no such adapter", "mlx5_9-1", 8, false, false,
	  KDAPL_ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED) },
	{ "empty name", "", 8, false, false,
	  KDAPL_ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED) },
	{ "NULL name", NULL, 8, false, false,
	  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1) },
	{ "NULL async EVD pointer", KDAPL_TEST_ROCE, 8, true, false,
	  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3) },
	{ "NULL IA pointer", KDAPL_TEST_ROCE, 8, false, true,
	  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4) },
	{ "async queue length 0", KDAPL_TEST_ROCE, 0, false, false,
	  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) },
	{ "async queue length -1", KDAPL_TEST_ROCE, -1, false, false,
	  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) },
};

static void kdapl_ia_open_case_desc(const struct kdapl_ia_open_case *c,
				    char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kdapl_ia_open, kdapl_ia_open_cases, kdapl_ia_open_case_desc);

static void kdapl_ia_open_errors_test(struct kunit *test)
{
	const struct kdapl_ia_open_case *c = test->param_value;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	struct kdapl_adapter *adapter;

	if (c->name && !strcmp(c->name, KDAPL_TEST_ROCE)) {
		adapter = kdapl_adapter_get(c->name);
		if (!adapter)
			kunit_skip(test, "no adapter %s", c->name);
		kdapl_adapter_put(adapter);
	}
	KUNIT_EXPECT_EQ(test, dat_ia_open(c->name, c->qlen,
					  c->null_async ? NULL : &async,
					  c->null_ia ? NULL : &ia),
			c->ret);
	KUNIT_EXPECT_PTR_EQ(test, ia, DAT_HANDLE_NULL);
}

static void kdapl_ia_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz;
	DAT_IA_HANDLE ia;

	kdapl_test_open_ia(test, *name);	/* skips without the device */
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async, &ia), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, 0x7),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* Graceful close refuses while an object is left. */
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_IA_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
	/* The async EVD the open created does not count. */
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_pz_create(ia, &pz),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
}

/* An abrupt close frees everything, the async EVD included. */
static void kdapl_ia_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_HANDLE_TYPE type;
	DAT_PZ_HANDLE pz;
	DAT_IA_HANDLE ia;

	kdapl_test_open_ia(test, *name);
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async, &ia), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_get_handle_type(async, &type), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_EVD);
	KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_get_handle_type(async, &type)),
			(DAT_RETURN)DAT_INVALID_HANDLE);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_get_handle_type(pz, &type)),
			(DAT_RETURN)DAT_INVALID_HANDLE);
}

/* A second IA can take the first one's async EVD. */
static void kdapl_ia_shared_async_evd_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async1 = DAT_HANDLE_NULL, async2, got;
	DAT_IA_HANDLE ia1, ia2;
	DAT_PZ_HANDLE pz;

	kdapl_test_open_ia(test, *name);
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async1, &ia1),
			DAT_SUCCESS);

	/* A PZ handle is no async EVD. */
	KUNIT_ASSERT_EQ(test, dat_pz_create(ia1, &pz), DAT_SUCCESS);
	async2 = pz;
	KUNIT_EXPECT_EQ(test, dat_ia_open(*name, 4, &async2, &ia2),
			KDAPL_ERR(DAT_INVALID_HANDLE,
				  DAT_INVALID_HANDLE_EVD_ASYNC));
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);

	async2 = async1;
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async2, &ia2),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, async2, async1);
	KUNIT_EXPECT_EQ(test, dat_ia_query(ia2, &got, 0, NULL, 0, NULL),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, got, async1);

	/* The first IA cannot go gracefully while the second uses its EVD. */
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EVD_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
}

/* Closing the EVD's IA abruptly first leaves the other IA working. */
static void kdapl_ia_shared_async_abrupt_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async1 = DAT_HANDLE_NULL, async2;
	DAT_IA_HANDLE ia1, ia2;
	DAT_PZ_HANDLE pz;

	kdapl_test_open_ia(test, *name);
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async1, &ia1),
			DAT_SUCCESS);
	async2 = async1;
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async2, &ia2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia1, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_create(ia2, &pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
}

/* No IA is related to another for high availability, not even itself. */
static void kdapl_ia_ha_related_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_NAME_PTR self = (DAT_NAME_PTR)(*name);
	DAT_BOOLEAN answer = DAT_TRUE;
	DAT_PZ_HANDLE pz;

	KUNIT_EXPECT_EQ(test, dat_ia_ha_related(ia, self, &answer),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, answer, DAT_FALSE);
	KUNIT_EXPECT_EQ(test, dat_ia_ha_related(ia, NULL, &answer),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ia_ha_related(ia, self, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_ha_related(pz, self, &answer),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

static void kdapl_ia_query_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	bool iwarp = !strcmp(*name, KDAPL_TEST_IWARP);
	DAT_PROVIDER_ATTR *prov;
	struct sockaddr_in *sin;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR *attr;

	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	prov = kunit_kzalloc(test, sizeof(*prov), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_NOT_NULL(test, prov);

	KUNIT_ASSERT_EQ(test, dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, attr,
					   DAT_PROVIDER_FIELD_ALL, prov),
			DAT_SUCCESS);
	KUNIT_EXPECT_NOT_NULL(test, async);
	KUNIT_EXPECT_GT(test, attr->max_eps, 0);
	KUNIT_EXPECT_GT(test, attr->max_dto_per_ep, 0);
	KUNIT_EXPECT_GT(test, attr->max_evds, 0);
	KUNIT_EXPECT_GT(test, attr->max_evd_qlen, 0);
	KUNIT_EXPECT_GT(test, attr->max_iov_segments_per_dto, 0);
	KUNIT_EXPECT_GT(test, attr->max_pzs, 0);
	KUNIT_EXPECT_GT(test, attr->max_lmrs, 0);
	KUNIT_EXPECT_GT(test, attr->max_message_size, 0ULL);
	KUNIT_EXPECT_GT(test, attr->max_rdma_size, 0ULL);

	/* The address consumers reach the port at: eth0 or eth1 of the VM. */
	sin = (struct sockaddr_in *)attr->ia_address_ptr;
	KUNIT_ASSERT_NOT_NULL(test, sin);
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr),
			iwarp ? 0x0a00030fU : 0x0a00020fU);

	KUNIT_EXPECT_STREQ(test, prov->provider_name, "kdapl");
	KUNIT_EXPECT_EQ(test, prov->dapl_version_major, 2U);
	KUNIT_EXPECT_EQ(test, prov->dapl_version_minor, 0U);
	KUNIT_EXPECT_EQ(test, prov->is_thread_safe, DAT_TRUE);
	KUNIT_EXPECT_EQ(test, prov->max_private_data_size, iwarp ? 252 : 56);
	KUNIT_EXPECT_EQ(test, prov->rdma_write_for_rdma_read_req,
			iwarp ? DAT_TRUE : DAT_FALSE);

	KUNIT_EXPECT_EQ(test, dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, NULL,
					   0, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ia_query(ia, NULL, 0, NULL, ~0ULL, prov),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
}

/* The owner going away closes its IAs and frees their objects. */
static void kdapl_owner_release_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async[3] = {};
	DAT_IA_HANDLE ia[3];
	struct kdapl_owner *owner;
	DAT_HANDLE_TYPE type;
	DAT_PZ_HANDLE pz[3];
	int i;

	kdapl_test_open_ia(test, *name);
	owner = kdapl_test_owner(test);

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, kdapl_ia_open(owner, *name, 4, &async[i],
						    &ia[i]),
				DAT_SUCCESS);
		KUNIT_ASSERT_EQ(test, kdapl_pz_create(owner, ia[i], &pz[i]),
				DAT_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, kdapl_ia_close(owner, ia[1],
					     DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_get_handle_type(owner, pz[0], &type),
			DAT_SUCCESS);

	kdapl_owner_release(owner);
	KUNIT_EXPECT_TRUE(test, list_empty(&owner->ias));
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test,
				kdapl_get_handle_type(owner, ia[i], &type),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_IA));
		KUNIT_EXPECT_EQ(test,
				kdapl_get_handle_type(owner, pz[i], &type),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_PZ));
	}
}

static struct kunit_case kdapl_ia_cases[] = {
	KUNIT_CASE_PARAM(kdapl_ia_open_by_name_test, kdapl_ia_name_gen_params),
	KUNIT_CASE_PARAM(kdapl_ia_open_errors_test, kdapl_ia_open_gen_params),
	KUNIT_CASE_PARAM(kdapl_ia_close_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ia_abrupt_close_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ia_shared_async_evd_test,
			 kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ia_shared_async_abrupt_test,
			 kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ia_query_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ia_ha_related_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_owner_release_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_ia_suite = {
	.name = "kdapl_ia",
	.test_cases = kdapl_ia_cases,
};

kunit_test_suite(kdapl_ia_suite);
