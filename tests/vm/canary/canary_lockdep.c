// SPDX-License-Identifier: GPL-2.0
/*
 * Bench canary: on load, take two mutexes in the order A then B, and later
 * B then A, in the same thread.  Nothing can deadlock with one thread, but
 * lockdep reports a possible circular locking dependency and the VM bench
 * must fail the run on that report.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(canary_lock_a);
static DEFINE_MUTEX(canary_lock_b);

static int __init canary_lockdep_init(void)
{
	mutex_lock(&canary_lock_a);
	mutex_lock(&canary_lock_b);
	mutex_unlock(&canary_lock_b);
	mutex_unlock(&canary_lock_a);

	/* The reverse order, on purpose. */
	mutex_lock(&canary_lock_b);
	mutex_lock(&canary_lock_a);
	mutex_unlock(&canary_lock_a);
	mutex_unlock(&canary_lock_b);

	pr_info("took two mutexes in both orders on purpose\n");
	return 0;
}

static void __exit canary_lockdep_exit(void)
{
}

module_init(canary_lockdep_init);
module_exit(canary_lockdep_exit);

MODULE_DESCRIPTION("kdapl VM bench canary: AB-BA locking for lockdep");
MODULE_LICENSE("GPL");
