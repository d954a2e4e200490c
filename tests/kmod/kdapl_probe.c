// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_probe: checks the kernel lookup of Interface Adapters from a
 * real system.  Loading it looks up the adapter named by the "name"
 * parameter with kdapl_adapter_get(); the load fails with -ENODEV if
 * there is none, and with -EINVAL if its full name is not "expect".
 * The VM tests load it with insmod and check the exit status.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/module.h>
#include <linux/string.h>
#include <rdma/kdat.h>

static char *name;
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "adapter name to look up");

static char *expect;
module_param(expect, charp, 0444);
MODULE_PARM_DESC(expect, "full name the adapter must have");

static int __init kdapl_probe_init(void)
{
	struct kdapl_adapter *adapter;
	char full[KDAPL_IA_NAME_MAX];
	bool present;
	int ret;

	if (!name)
		return -EINVAL;

	adapter = kdapl_adapter_get(name);
	if (!adapter) {
		pr_info("kdapl_probe: %s: no such adapter\n", name);
		return -ENODEV;
	}
	ret = kdapl_adapter_name(adapter, full, sizeof(full));
	present = kdapl_adapter_present(adapter);
	kdapl_adapter_put(adapter);
	if (ret < 0)
		return ret;

	pr_info("kdapl_probe: %s: found %s%s\n", name, full,
		present ? "" : " (device gone)");
	if (!present)
		return -ENODEV;
	if (expect && strcmp(expect, full))
		return -EINVAL;
	return 0;
}

static void __exit kdapl_probe_exit(void)
{
}

module_init(kdapl_probe_init);
module_exit(kdapl_probe_exit);

MODULE_DESCRIPTION("kdapl adapter lookup probe for the VM tests");
MODULE_LICENSE("GPL");
