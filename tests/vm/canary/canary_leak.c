// SPDX-License-Identifier: GPL-2.0
/*
 * Bench canary: on load, allocate a buffer and forget the only pointer to
 * it.  kmemleak reports the unreferenced object at the end of the run and
 * the VM bench must fail the run on that report.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>

static int __init canary_leak_init(void)
{
	char *buf;

	/* Zeroed, so it holds no pointer that kmemleak could follow. */
	buf = kzalloc(256, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(buf);
	pr_info("leaked 256 bytes on purpose\n");
	return 0;
}

static void __exit canary_leak_exit(void)
{
}

module_init(canary_leak_init);
module_exit(canary_leak_exit);

MODULE_DESCRIPTION("kdapl VM bench canary: memory leak for kmemleak");
MODULE_LICENSE("GPL");
