// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl: the DAT 2.0 kernel API (kDAPL) over ib_core and rdma_cm.
 *
 * Module entry points and the debugfs directory.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include "kdapl.h"
#include "kdapl_user.h"

static struct dentry *kdapl_debugfs;

/*
 * Work that the rdma_cm event handlers hand off because it needs an IA
 * lock (see kdapl_cm_handler()).
 */
struct workqueue_struct *kdapl_wq;

static int kdapl_ias_show(struct seq_file *m, void *unused)
{
	kdapl_registry_show(&kdapl_registry, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kdapl_ias);

/*
 * What is alive: objects per type, open files and pinned user pages.
 * Tests read it after processes exit and expect zeros everywhere.
 */
static int kdapl_objects_show(struct seq_file *m, void *unused)
{
	kdapl_object_count_show(m);
	seq_printf(m, "files %ld\n", kdapl_chardev_open_files());
	seq_printf(m, "pinned_pages %llu\n", kdapl_umem_pinned_pages());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kdapl_objects);

/* Who owns what: the kernel consumers, then each open file. */
static int kdapl_owners_show(struct seq_file *m, void *unused)
{
	kdapl_chardev_owners_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kdapl_owners);

static int kdapl_pinned_get(void *data, u64 *val)
{
	*val = kdapl_umem_pinned_pages();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kdapl_pinned_fops, kdapl_pinned_get, NULL, "%llu\n");

static int __init kdapl_init(void)
{
	int ret;

	kdapl_object_init_table();
	kdapl_wq = alloc_workqueue("kdapl", WQ_MEM_RECLAIM, 0);
	if (!kdapl_wq)
		return -ENOMEM;
	kdapl_debugfs = debugfs_create_dir("kdapl", NULL);
	debugfs_create_file("ias", 0444, kdapl_debugfs, NULL, &kdapl_ias_fops);
	debugfs_create_file("objects", 0444, kdapl_debugfs, NULL,
			    &kdapl_objects_fops);
	debugfs_create_file("owners", 0444, kdapl_debugfs, NULL,
			    &kdapl_owners_fops);
	debugfs_create_file_unsafe("user_pinned_pages", 0444, kdapl_debugfs,
				   NULL, &kdapl_pinned_fops);

	ret = kdapl_sysfs_init();
	if (ret)
		goto err_debugfs;
	ret = kdapl_device_init();
	if (ret)
		goto err_sysfs;
	ret = kdapl_chardev_init();
	if (ret)
		goto err_device;
	return 0;

err_device:
	kdapl_device_exit();
err_sysfs:
	kdapl_sysfs_exit();
err_debugfs:
	debugfs_remove_recursive(kdapl_debugfs);
	destroy_workqueue(kdapl_wq);
	return ret;
}

static void __exit kdapl_exit(void)
{
	kdapl_chardev_exit();
	kdapl_device_exit();
	kdapl_sysfs_exit();
	debugfs_remove_recursive(kdapl_debugfs);
	destroy_workqueue(kdapl_wq);
	kdapl_object_exit();
}

module_init(kdapl_init);
module_exit(kdapl_exit);

MODULE_AUTHOR("The kdapl authors");
MODULE_DESCRIPTION("kDAPL: DAT 2.0 kernel API over RDMA");
MODULE_LICENSE("GPL");
