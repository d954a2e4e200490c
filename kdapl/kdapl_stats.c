// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_stats.c - counters of what happens on each adapter
 *
 * Each adapter counts, for all the IAs open on it, the work requests
 * posted by kind, the posts refused, the DTO completions that succeeded
 * and those that did not (flushed ones included), and the connection,
 * connection-request, asynchronous and overflow events it raised.  The
 * counters are per CPU: the posting and completion paths only increment
 * their own CPU's copy, and readers add the copies up.  They are in
 * /sys/class/kdapl/<IA>/stats/, one file per counter, as long as the
 * device is there; kdaplctl stats reads them.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/device.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>

#include "kdapl.h"

/* The file names of the counters, by enum kdapl_stat. */
static const char *const kdapl_stat_names[KDAPL_STAT_NR] = {
	[KDAPL_STAT_POSTS_SEND] = "posts_send",
	[KDAPL_STAT_POSTS_RDMA_WRITE] = "posts_rdma_write",
	[KDAPL_STAT_POSTS_RDMA_READ] = "posts_rdma_read",
	[KDAPL_STAT_POSTS_RECV] = "posts_recv",
	[KDAPL_STAT_POSTS_OTHER] = "posts_other",
	[KDAPL_STAT_POST_ERRORS] = "post_errors",
	[KDAPL_STAT_COMPLETIONS] = "completions",
	[KDAPL_STAT_COMPLETION_ERRORS] = "completion_errors",
	[KDAPL_STAT_CONNECTION_EVENTS] = "connection_events",
	[KDAPL_STAT_CONNECTION_REQUESTS] = "connection_requests",
	[KDAPL_STAT_ASYNC_EVENTS] = "async_events",
	[KDAPL_STAT_EVD_OVERFLOWS] = "evd_overflows",
};

/**
 * kdapl_stats_alloc() - the zeroed counters of a new adapter
 *
 * Context: process context, may sleep.
 * Return: the per-CPU counters, or NULL without memory.
 */
struct kdapl_stats __percpu *kdapl_stats_alloc(void)
{
	return alloc_percpu(struct kdapl_stats);
}

/**
 * kdapl_stats_free() - free an adapter's counters
 * @stats: from kdapl_stats_alloc(), or NULL
 */
void kdapl_stats_free(struct kdapl_stats __percpu *stats)
{
	free_percpu(stats);
}

/**
 * kdapl_stats_sum() - a counter of an adapter, all CPUs together
 * @adapter: the adapter
 * @id: the counter
 *
 * Other CPUs may be incrementing their copies meanwhile: the sum is a
 * snapshot, and never goes backwards between two calls.
 *
 * Context: any context.
 * Return: the sum.
 */
unsigned long kdapl_stats_sum(const struct kdapl_adapter *adapter,
			      enum kdapl_stat id)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(adapter->stats, cpu)->count[id]);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_stats_sum);

/* A counter file: the attribute knows its counter by its index. */
struct kdapl_stat_attr {
	struct device_attribute attr;
	enum kdapl_stat id;
};

static ssize_t kdapl_stat_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	const struct kdapl_stat_attr *sa =
		container_of(attr, struct kdapl_stat_attr, attr);

	return sysfs_emit(buf, "%lu\n",
			  kdapl_stats_sum(dev_get_drvdata(dev), sa->id));
}

static struct kdapl_stat_attr kdapl_stat_attrs[KDAPL_STAT_NR];
static struct attribute *kdapl_stats_attrs[KDAPL_STAT_NR + 1];

/* The stats/ directory of each adapter's device in /sys/class/kdapl. */
const struct attribute_group kdapl_stats_group = {
	.name = "stats",
	.attrs = kdapl_stats_attrs,
};

/**
 * kdapl_stats_init() - make the counter files of kdapl_stats_group
 *
 * One file per name of kdapl_stat_names[]; called once, before the
 * first adapter's device is made.
 */
void kdapl_stats_init(void)
{
	struct kdapl_stat_attr *sa;
	enum kdapl_stat id;

	for (id = 0; id < KDAPL_STAT_NR; id++) {
		sa = &kdapl_stat_attrs[id];
		sysfs_attr_init(&sa->attr.attr);
		sa->attr.attr.name = kdapl_stat_names[id];
		sa->attr.attr.mode = 0444;
		sa->attr.show = kdapl_stat_show;
		sa->id = id;
		kdapl_stats_attrs[id] = &sa->attr.attr;
	}
}
