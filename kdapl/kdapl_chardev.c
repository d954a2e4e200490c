// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kdapl: the character device through which processes use kDAT.
 *
 * Every open file is an owner of IAs (struct kdapl_owner): the objects it
 * creates are found only through it, and releasing the file (close, exit,
 * kill) closes its IAs abruptly, exactly as dat_ia_close() with
 * DAT_CLOSE_ABRUPT_FLAG.  Only the process that opened the file may use
 * it: a child that inherits the descriptor across fork(), or a process
 * that receives it over a socket, gets EPERM from every call and cannot
 * map its rings, while the opener is unaffected.
 *
 * Context: all file operations run in process context and may sleep.
 * The file's lock (struct kdapl_ufile) is taken before any kDAT lock.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "kdapl_user.h"

/* The open files, for debugfs "objects" and "owners". */
static LIST_HEAD(kdapl_chardev_list);
static DEFINE_MUTEX(kdapl_chardev_list_lock);

/**
 * kdapl_chardev_open_files() - how many files of /dev/kdapl are open
 *
 * Context: process context; takes the list's lock.
 * Return: the count, for debugfs.
 */
long kdapl_chardev_open_files(void)
{
	struct list_head *pos;
	long n = 0;

	mutex_lock(&kdapl_chardev_list_lock);
	list_for_each(pos, &kdapl_chardev_list)
		n++;
	mutex_unlock(&kdapl_chardev_list_lock);
	return n;
}

/**
 * kdapl_chardev_owners_show() - the owners of objects, for debugfs
 * @m: where a line per owner goes: "<pid> <command>" and what
 *	kdapl_owner_show() prints, "0 kernel" for the kernel consumers
 *
 * Context: process context; takes the list's lock, then each owner's.
 */
void kdapl_chardev_owners_show(struct seq_file *m)
{
	struct kdapl_ufile *ufile;

	seq_puts(m, "0 kernel");
	kdapl_owner_show(&kdapl_kernel_owner, m);
	seq_putc(m, '\n');
	mutex_lock(&kdapl_chardev_list_lock);
	list_for_each_entry(ufile, &kdapl_chardev_list, entry) {
		seq_printf(m, "%d %s", pid_nr(ufile->tgid), ufile->comm);
		kdapl_owner_show(&ufile->owner, m);
		seq_putc(m, '\n');
	}
	mutex_unlock(&kdapl_chardev_list_lock);
}

static int kdapl_chardev_open(struct inode *inode, struct file *file)
{
	struct kdapl_ufile *ufile;

	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL_ACCOUNT);
	if (!ufile)
		return -ENOMEM;
	kdapl_owner_init(&ufile->owner);
	mutex_init(&ufile->lock);
	xa_init_flags(&ufile->objs, XA_FLAGS_ALLOC1);
	xa_init(&ufile->by_handle);
	ufile->next_id = 1;
	ufile->tgid = get_pid(task_tgid(current));
	get_task_comm(ufile->comm, current);
	file->private_data = ufile;
	mutex_lock(&kdapl_chardev_list_lock);
	list_add_tail(&ufile->entry, &kdapl_chardev_list);
	mutex_unlock(&kdapl_chardev_list_lock);
	return nonseekable_open(inode, file);
}

static int kdapl_chardev_release(struct inode *inode, struct file *file)
{
	struct kdapl_ufile *ufile = file->private_data;

	/* No call is running: every one holds a reference to the file. */
	kdapl_owner_release(&ufile->owner);
	kdapl_uobj_release_all(ufile);
	/* Counted and listed until everything it had is gone. */
	mutex_lock(&kdapl_chardev_list_lock);
	list_del(&ufile->entry);
	mutex_unlock(&kdapl_chardev_list_lock);
	put_pid(ufile->tgid);
	mutex_destroy(&ufile->lock);
	kfree(ufile);
	return 0;
}

/* Is the caller the process that opened the file? */
static bool kdapl_chardev_opener(struct kdapl_ufile *ufile)
{
	return task_tgid(current) == ufile->tgid;
}

static long kdapl_chardev_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	struct kdapl_ufile *ufile = file->private_data;

	if (!kdapl_chardev_opener(ufile))
		return -EPERM;
	return kdapl_uioctl(ufile, cmd, (void __user *)arg);
}

/*
 * The offset of an event ring is the EVD's id in pages, that of a post
 * ring the EP's.  Called with the
 * mmap lock held, which ioctls that pin memory take under the file's
 * lock: the ring is found without that lock.
 */
static int kdapl_chardev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kdapl_ufile *ufile = file->private_data;
	struct kdapl_upost *post;
	struct kdapl_uring *ring;
	int ret;

	if (!kdapl_chardev_opener(ufile))
		return -EPERM;
	if (vma->vm_pgoff > U32_MAX)
		return -EINVAL;
	ring = kdapl_uring_get(ufile, vma->vm_pgoff);
	if (ring) {
		ret = kdapl_uring_mmap(ring, vma);
		kdapl_uring_put(ring);
		return ret;
	}
	post = kdapl_upost_get(ufile, vma->vm_pgoff);
	if (!post)
		return -EINVAL;
	ret = kdapl_upost_mmap(post, vma);
	if (ret)
		kdapl_upost_put(post);
	return ret;
}

const struct file_operations kdapl_chardev_fops = {
	.owner = THIS_MODULE,
	.open = kdapl_chardev_open,
	.release = kdapl_chardev_release,
	.unlocked_ioctl = kdapl_chardev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = kdapl_chardev_mmap,
	.llseek = no_llseek,
};

static struct miscdevice kdapl_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = KDAPL_DEVICE_NAME,
	.fops = &kdapl_chardev_fops,
	.mode = 0660,
};

/**
 * kdapl_chardev_init() - create /dev/kdapl
 *
 * Context: module initialisation.
 * Return: 0 or the error of misc_register().
 */
int kdapl_chardev_init(void)
{
	return misc_register(&kdapl_miscdev);
}

/**
 * kdapl_chardev_exit() - remove /dev/kdapl
 *
 * No file can be open: each holds a reference to the module.
 *
 * Context: module exit.
 */
void kdapl_chardev_exit(void)
{
	misc_deregister(&kdapl_miscdev);
}
