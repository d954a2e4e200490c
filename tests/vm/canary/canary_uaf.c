// SPDX-License-Identifier: GPL-2.0
/*
 * Bench canary: on load, read one byte of a buffer that was just freed.
 * KASAN reports the use-after-free and the VM bench must fail the run on
 * that report.  The module itself loads and unloads normally.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>

static int __init canary_uaf_init(void)
{
	char *buf;
	char val;

	buf = kmalloc(64, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf[0] = 'k';
	kfree(buf);

	/* Hide the pointer from the compiler so the bad read stays. */
	OPTIMIZER_HIDE_VAR(buf);
	val = READ_ONCE(buf[0]);
	pr_info("read %d from freed memory on purpose\n", val);
	return 0;
}

static void __exit canary_uaf_exit(void)
{
}

module_init(canary_uaf_init);
module_exit(canary_uaf_exit);

MODULE_DESCRIPTION("kdapl VM bench canary: use-after-free for KASAN");
MODULE_LICENSE("GPL");
