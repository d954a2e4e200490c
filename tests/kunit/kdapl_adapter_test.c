// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Interface Adapter naming and lookup.
 *
 * The adapters are built from strings and listed in a registry private
 * to each test, so no RDMA device is needed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kdapl.h"

struct kdapl_name_case {
	const char *desc;
	const char *ibdev;
	u32 port;
	const char *ndev;
	size_t size;
	int ret;
	const char *name;
};

static const struct kdapl_name_case kdapl_name_cases[] = {
	{ "infiniband", "mlx5_0", 1, NULL, KDAPL_IA_NAME_MAX, 8, "mlx5_0-1" },
	{ "ib second port", "mlx4_0", 2, "", KDAPL_IA_NAME_MAX, 8,
	  "mlx4_0-2" },
	{ "roce", "rxe0", 1, "eth0", KDAPL_IA_NAME_MAX, 11, "rxe0-1-eth0" },
	{ "iwarp", "siw0", 1, "eth1", KDAPL_IA_NAME_MAX, 11, "siw0-1-eth1" },
	{ "large port", "hfi1_0", 255, NULL, KDAPL_IA_NAME_MAX, 10,
	  "hfi1_0-255" },
	{ "exact fit", "rxe0", 1, "eth0", 12, 11, "rxe0-1-eth0" },
	{ "one short", "rxe0", 1, "eth0", 11, -ENAMETOOLONG, NULL },
	{ "port zero", "rxe0", 0, "eth0", KDAPL_IA_NAME_MAX, -EINVAL, NULL },
	{ "empty device", "", 1, NULL, KDAPL_IA_NAME_MAX, -EINVAL, NULL },
	{ "no device", NULL, 1, NULL, KDAPL_IA_NAME_MAX, -EINVAL, NULL },
	{ "space in device", "rx e0", 1, NULL, KDAPL_IA_NAME_MAX, -EINVAL,
	  NULL },
	{ "tab in netdev", "rxe0", 1, "eth\t0", KDAPL_IA_NAME_MAX, -EINVAL,
	  NULL },
};

static void kdapl_name_case_desc(const struct kdapl_name_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kdapl_name, kdapl_name_cases, kdapl_name_case_desc);

static void kdapl_format_name_test(struct kunit *test)
{
	const struct kdapl_name_case *c = test->param_value;
	char buf[KDAPL_IA_NAME_MAX];
	int ret;

	memset(buf, 0x5a, sizeof(buf));
	ret = kdapl_adapter_format_name(buf, c->size, c->ibdev, c->port,
					c->ndev);
	KUNIT_ASSERT_EQ(test, ret, c->ret);
	if (c->name) {
		KUNIT_EXPECT_STREQ(test, buf, c->name);
		KUNIT_EXPECT_EQ(test, (size_t)ret, strlen(c->name));
	}
}

/* The longest device, port and net_device names fit KDAPL_IA_NAME_MAX. */
static void kdapl_longest_name_test(struct kunit *test)
{
	char ibdev[IB_DEVICE_NAME_MAX], ndev[IFNAMSIZ];
	char buf[KDAPL_IA_NAME_MAX], want[KDAPL_IA_NAME_MAX];
	int ret;

	memset(ibdev, 'd', sizeof(ibdev) - 1);
	ibdev[sizeof(ibdev) - 1] = '\0';
	memset(ndev, 'n', sizeof(ndev) - 1);
	ndev[sizeof(ndev) - 1] = '\0';
	snprintf(want, sizeof(want), "%s-4294967295-%s", ibdev, ndev);

	ret = kdapl_adapter_format_name(buf, sizeof(buf), ibdev, U32_MAX,
					ndev);
	KUNIT_ASSERT_EQ(test, ret, (int)strlen(want));
	KUNIT_EXPECT_STREQ(test, buf, want);
	KUNIT_EXPECT_LT(test, ret, KDAPL_IA_NAME_MAX);
}

static void kdapl_transport_name_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, kdapl_transport_name(KDAPL_TRANSPORT_IB),
			   "ib");
	KUNIT_EXPECT_STREQ(test, kdapl_transport_name(KDAPL_TRANSPORT_ROCE),
			   "roce");
	KUNIT_EXPECT_STREQ(test, kdapl_transport_name(KDAPL_TRANSPORT_IWARP),
			   "iwarp");
	KUNIT_EXPECT_STREQ(test, kdapl_transport_name(42), "unknown");
}

static void kdapl_create_test(struct kunit *test)
{
	char longdev[IB_DEVICE_NAME_MAX + 1];
	struct kdapl_adapter *adapter;

	adapter = kdapl_adapter_create("rxe0", 1, "eth0",
				       KDAPL_TRANSPORT_ROCE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, adapter);
	KUNIT_EXPECT_STREQ(test, adapter->name, "rxe0-1-eth0");
	KUNIT_EXPECT_STREQ(test, adapter->ibdev_name, "rxe0");
	KUNIT_EXPECT_STREQ(test, adapter->netdev_name, "eth0");
	KUNIT_EXPECT_EQ(test, adapter->port, 1u);
	KUNIT_EXPECT_PTR_EQ(test, adapter->ibdev, NULL);
	kdapl_adapter_put(adapter);

	memset(longdev, 'x', sizeof(longdev) - 1);
	longdev[sizeof(longdev) - 1] = '\0';
	adapter = kdapl_adapter_create(longdev, 1, NULL, KDAPL_TRANSPORT_IB);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(adapter), -ENAMETOOLONG);

	adapter = kdapl_adapter_create("rxe0", 0, "eth0",
				       KDAPL_TRANSPORT_ROCE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(adapter), -EINVAL);
}

static long kdapl_stats_inc_here(void *arg)
{
	kdapl_stat_inc(arg, KDAPL_STAT_ASYNC_EVENTS);
	return 0;
}

/* Posts count by operation, refusals apart; copies of all CPUs add up. */
static void kdapl_stats_test(struct kunit *test)
{
	static const struct {
		DAT_DTOS op;
		enum kdapl_stat id;
	} posts[] = {
		{ DAT_DTO_SEND, KDAPL_STAT_POSTS_SEND },
		{ DAT_DTO_RDMA_WRITE, KDAPL_STAT_POSTS_RDMA_WRITE },
		{ DAT_DTO_RDMA_READ, KDAPL_STAT_POSTS_RDMA_READ },
		{ DAT_DTO_RECEIVE, KDAPL_STAT_POSTS_RECV },
		{ DAT_DTO_BIND_MW, KDAPL_STAT_POSTS_OTHER },
	};
	struct kdapl_adapter *adapter;
	enum kdapl_stat id;
	unsigned int i;
	int cpu, cpus = 0;

	adapter = kdapl_adapter_create("rxe0", 1, "eth0",
				       KDAPL_TRANSPORT_ROCE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, adapter);
	for (id = 0; id < KDAPL_STAT_NR; id++)
		KUNIT_EXPECT_EQ(test, kdapl_stats_sum(adapter, id), 0ul);
	for (i = 0; i < ARRAY_SIZE(posts); i++) {
		kdapl_stat_post(adapter, posts[i].op, DAT_SUCCESS);
		kdapl_stat_post(adapter, posts[i].op,
				dat_error(DAT_INVALID_STATE, 0));
		KUNIT_EXPECT_EQ(test, kdapl_stats_sum(adapter, posts[i].id),
				1ul);
	}
	KUNIT_EXPECT_EQ(test, kdapl_stats_sum(adapter, KDAPL_STAT_POST_ERRORS),
			(unsigned long)ARRAY_SIZE(posts));

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, kdapl_stats_inc_here,
						  adapter), 0);
		cpus++;
	}
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, kdapl_stats_sum(adapter, KDAPL_STAT_ASYNC_EVENTS),
			(unsigned long)cpus);
	KUNIT_EXPECT_EQ(test, kdapl_stats_sum(adapter, KDAPL_STAT_COMPLETIONS),
			0ul);
	kdapl_adapter_put(adapter);
}

static struct kdapl_registry *kdapl_test_registry(struct kunit *test)
{
	struct kdapl_registry *reg;

	reg = kunit_kzalloc(test, sizeof(*reg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, reg);
	mutex_init(&reg->lock);
	INIT_LIST_HEAD(&reg->adapters);
	return reg;
}

static struct kdapl_adapter *kdapl_test_add(struct kunit *test,
					    struct kdapl_registry *reg,
					    const char *ibdev, u32 port,
					    const char *ndev)
{
	struct kdapl_adapter *adapter;

	adapter = kdapl_adapter_create(ibdev, port, ndev,
				       ndev ? KDAPL_TRANSPORT_ROCE :
					      KDAPL_TRANSPORT_IB);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, adapter);
	KUNIT_ASSERT_EQ(test, kdapl_registry_add(reg, adapter, NULL), 0);
	return adapter;
}

static void kdapl_registry_drain(struct kdapl_registry *reg)
{
	struct kdapl_adapter *adapter, *next;

	list_for_each_entry_safe(adapter, next, &reg->adapters, entry)
		kdapl_registry_del(reg, adapter);
}

struct kdapl_lookup_case {
	const char *query;
	const char *found;	/* full name of the adapter found, or NULL */
};

static const struct kdapl_lookup_case kdapl_lookup_cases[] = {
	{ "rxe0-1-eth0", "rxe0-1-eth0" },	/* full name */
	{ "rxe0-1", "rxe0-1-eth0" },		/* device and port */
	{ "eth0", "rxe0-1-eth0" },		/* net_device */
	{ "siw0-1-eth1", "siw0-1-eth1" },
	{ "eth1", "siw0-1-eth1" },
	{ "mlx5_0-2", "mlx5_0-2" },
	{ "mlx5_0-1", "mlx5_0-1" },
	{ "rxe0-2", NULL },
	{ "rxe0", NULL },
	{ "eth2", NULL },
	{ "", NULL },
	{ "rxe0-1-eth", NULL },
	{ "RXE0-1-ETH0", NULL },
};

static void kdapl_lookup_case_desc(const struct kdapl_lookup_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->query);
}

KUNIT_ARRAY_PARAM(kdapl_lookup, kdapl_lookup_cases, kdapl_lookup_case_desc);

static void kdapl_lookup_test(struct kunit *test)
{
	const struct kdapl_lookup_case *c = test->param_value;
	struct kdapl_registry *reg = kdapl_test_registry(test);
	struct kdapl_adapter *adapter;

	kdapl_test_add(test, reg, "rxe0", 1, "eth0");
	kdapl_test_add(test, reg, "siw0", 1, "eth1");
	kdapl_test_add(test, reg, "mlx5_0", 1, NULL);
	kdapl_test_add(test, reg, "mlx5_0", 2, NULL);
	KUNIT_EXPECT_EQ(test, kdapl_registry_count(reg), 4u);

	adapter = kdapl_registry_lookup(reg, c->query);
	if (c->found) {
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, adapter);
		if (adapter)
			KUNIT_EXPECT_STREQ(test, adapter->name, c->found);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, adapter, NULL);
	}
	kdapl_adapter_put(adapter);
	kdapl_registry_drain(reg);
	KUNIT_EXPECT_EQ(test, kdapl_registry_count(reg), 0u);
}

/* A full name wins over an alias of another adapter. */
static void kdapl_lookup_precedence_test(struct kunit *test)
{
	struct kdapl_registry *reg = kdapl_test_registry(test);
	struct kdapl_adapter *adapter;

	/* The net_device of the first is named like the second adapter. */
	kdapl_test_add(test, reg, "rxe0", 1, "mlx5_0-1");
	kdapl_test_add(test, reg, "mlx5_0", 1, NULL);

	adapter = kdapl_registry_lookup(reg, "mlx5_0-1");
	KUNIT_ASSERT_NOT_NULL(test, adapter);
	KUNIT_EXPECT_STREQ(test, adapter->name, "mlx5_0-1");
	kdapl_adapter_put(adapter);
	kdapl_registry_drain(reg);
}

static void kdapl_duplicate_test(struct kunit *test)
{
	struct kdapl_registry *reg = kdapl_test_registry(test);
	struct kdapl_adapter *dup;

	kdapl_test_add(test, reg, "rxe0", 1, "eth0");
	dup = kdapl_adapter_create("rxe0", 1, "eth0", KDAPL_TRANSPORT_ROCE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dup);
	KUNIT_EXPECT_EQ(test, kdapl_registry_add(reg, dup, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, kdapl_registry_count(reg), 1u);
	kdapl_adapter_put(dup);
	kdapl_registry_drain(reg);
}

/* A removed adapter is not found but stays valid for its holders. */
static void kdapl_remove_test(struct kunit *test)
{
	struct kdapl_registry *reg = kdapl_test_registry(test);
	struct kdapl_adapter *held, *adapter;

	adapter = kdapl_test_add(test, reg, "rxe0", 1, "eth0");
	held = kdapl_registry_lookup(reg, "eth0");
	KUNIT_ASSERT_PTR_EQ(test, held, adapter);

	kdapl_registry_del(reg, adapter);
	KUNIT_EXPECT_EQ(test, kdapl_registry_count(reg), 0u);
	KUNIT_EXPECT_PTR_EQ(test, kdapl_registry_lookup(reg, "eth0"), NULL);
	KUNIT_EXPECT_PTR_EQ(test, kdapl_registry_lookup(reg, "rxe0-1-eth0"),
			    NULL);
	KUNIT_EXPECT_STREQ(test, held->name, "rxe0-1-eth0");
	KUNIT_EXPECT_PTR_EQ(test, held->ibdev, NULL);
	kdapl_adapter_put(held);

	/* The same name can come back with a new device. */
	kdapl_test_add(test, reg, "rxe0", 1, "eth0");
	KUNIT_EXPECT_EQ(test, kdapl_registry_count(reg), 1u);
	kdapl_registry_drain(reg);
}

static void kdapl_rename_test(struct kunit *test)
{
	struct kdapl_registry *reg = kdapl_test_registry(test);
	struct kdapl_adapter *adapter, *found;

	adapter = kdapl_test_add(test, reg, "rxe0", 1, "eth0");
	KUNIT_EXPECT_EQ(test, kdapl_registry_rename(reg, adapter, "roce7"), 0);
	KUNIT_EXPECT_STREQ(test, adapter->name, "roce7-1-eth0");
	KUNIT_EXPECT_PTR_EQ(test, kdapl_registry_lookup(reg, "rxe0-1"), NULL);

	found = kdapl_registry_lookup(reg, "roce7-1");
	KUNIT_EXPECT_PTR_EQ(test, found, adapter);
	kdapl_adapter_put(found);

	/* A bad new name leaves the old one. */
	KUNIT_EXPECT_EQ(test, kdapl_registry_rename(reg, adapter, "a b"),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, adapter->name, "roce7-1-eth0");
	kdapl_registry_drain(reg);
}

static struct kunit_case kdapl_adapter_cases[] = {
	KUNIT_CASE_PARAM(kdapl_format_name_test, kdapl_name_gen_params),
	KUNIT_CASE(kdapl_longest_name_test),
	KUNIT_CASE(kdapl_transport_name_test),
	KUNIT_CASE(kdapl_create_test),
	KUNIT_CASE(kdapl_stats_test),
	KUNIT_CASE_PARAM(kdapl_lookup_test, kdapl_lookup_gen_params),
	KUNIT_CASE(kdapl_lookup_precedence_test),
	KUNIT_CASE(kdapl_duplicate_test),
	KUNIT_CASE(kdapl_remove_test),
	KUNIT_CASE(kdapl_rename_test),
	{}
};

static struct kunit_suite kdapl_adapter_suite = {
	.name = "kdapl_adapter",
	.test_cases = kdapl_adapter_cases,
};

kunit_test_suite(kdapl_adapter_suite);
