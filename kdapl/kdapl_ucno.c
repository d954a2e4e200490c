// SPDX-License-Identifier: GPL-2.0
/*
 * Consumer Notification Objects of /dev/kdapl.
 *
 * kDAT has no CNO: it is the user API's way of waiting on several EVDs
 * at once, so it exists only as an object of a file.  An EVD created
 * with a CNO triggers it from its ring's sink with each event the ring
 * takes while no thread waits on the EVD itself (DAT: an EVD being
 * waited on notifies its waiter, not its CNO).  The CNO remembers the
 * last EVD that triggered it until dat_cno_wait() takes it; events
 * already in a ring when the CNO is waited on do not trigger it again,
 * so a consumer dequeues from the EVD it is told about and from the
 * others it expects events on.
 *
 * A CNO may also have a file descriptor that polls readable while it is
 * triggered (dat_cno_fd_create()), so that it can sit in an epoll set.
 *
 * Locking: ufile->lock orders creation, freeing and the EVD count, as
 * for every object of the file; cno->lock (taken with interrupts off, the
 * sinks of completion EVDs run with bottom halves disabled) guards the
 * triggered state.  Waiters and pollers sleep on cno->wait.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include "kdapl_user.h"

static void kdapl_ucno_release(struct kref *ref)
{
	kfree(container_of(ref, struct kdapl_ucno, ref));
}

/**
 * kdapl_ucno_put() - drop a reference to a CNO
 * @cno: the CNO
 *
 * Context: any context.
 */
void kdapl_ucno_put(struct kdapl_ucno *cno)
{
	kref_put(&cno->ref, kdapl_ucno_release);
}

/**
 * kdapl_ucno_trigger() - an EVD of a CNO received an event
 * @cno: the CNO
 * @evd_cookie: the EVD's cookie, which the wait returns
 *
 * Context: any context but hardirq; called from the ring sinks.
 */
void kdapl_ucno_trigger(struct kdapl_ucno *cno, u64 evd_cookie)
{
	unsigned long flags;

	spin_lock_irqsave(&cno->lock, flags);
	cno->fired = evd_cookie;
	WRITE_ONCE(cno->triggered, true);
	spin_unlock_irqrestore(&cno->lock, flags);
	/* Pairs with the barriers of prepare_to_wait() and kdapl_ucno_poll(). */
	if (wq_has_sleeper(&cno->wait))
		wake_up_interruptible(&cno->wait);
}

/* Untrigger the CNO if it is triggered, and say by which EVD. */
static bool kdapl_ucno_take(struct kdapl_ucno *cno, u64 *evd_cookie)
{
	unsigned long flags;
	bool taken;

	spin_lock_irqsave(&cno->lock, flags);
	taken = cno->triggered;
	if (taken) {
		*evd_cookie = cno->fired;
		WRITE_ONCE(cno->triggered, false);
	}
	spin_unlock_irqrestore(&cno->lock, flags);
	return taken;
}

static bool kdapl_ucno_ready(struct kdapl_ucno *cno, u64 *evd_cookie)
{
	return READ_ONCE(cno->dead) || kdapl_ucno_take(cno, evd_cookie);
}

static __poll_t kdapl_ucno_poll(struct file *file, poll_table *wait)
{
	struct kdapl_ucno *cno = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &cno->wait, wait);
	/*
	 * poll_wait() queues without a full barrier: this one pairs with
	 * wq_has_sleeper()'s in kdapl_ucno_trigger(), so that either the
	 * trigger sees this poller queued or the poller sees the trigger.
	 */
	smp_mb();
	if (READ_ONCE(cno->triggered))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(cno->dead))
		mask |= EPOLLHUP;
	return mask;
}

static int kdapl_ucno_fd_release(struct inode *inode, struct file *file)
{
	kdapl_ucno_put(file->private_data);
	return 0;
}

static const struct file_operations kdapl_ucno_fops = {
	.owner = THIS_MODULE,
	.poll = kdapl_ucno_poll,
	.release = kdapl_ucno_fd_release,
	.llseek = noop_llseek,
};

/* A descriptor for @cno, not yet installed: returns its number. */
static int kdapl_ucno_file(struct kdapl_ucno *cno, struct file **filep)
{
	struct file *file;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	kref_get(&cno->ref);
	file = anon_inode_getfile("[kdapl-cno]", &kdapl_ucno_fops, cno,
				  O_RDONLY | O_CLOEXEC);
	if (IS_ERR(file)) {
		kdapl_ucno_put(cno);
		put_unused_fd(fd);
		return PTR_ERR(file);
	}
	*filep = file;
	return fd;
}

static struct kdapl_ucno *kdapl_ucno_alloc(void)
{
	struct kdapl_ucno *cno;

	cno = kzalloc(sizeof(*cno), GFP_KERNEL_ACCOUNT);
	if (!cno)
		return NULL;
	kref_init(&cno->ref);
	spin_lock_init(&cno->lock);
	init_waitqueue_head(&cno->wait);
	return cno;
}

/**
 * kdapl_ucno_create() - KDAPL_IOC_CNO_CREATE
 * @ufile: the file
 * @arg: struct kdapl_ioc_cno_create
 * @status: out: DAT_SUCCESS, DAT_INVALID_HANDLE (IA) or
 *	DAT_INSUFFICIENT_RESOURCES
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for unknown flags.
 */
int kdapl_ucno_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status)
{
	struct kdapl_ioc_cno_create *a = arg;
	struct file *file = NULL;
	struct kdapl_uobj *ia, *uobj;
	int fd = -1;

	if (a->flags & ~KDAPL_CNO_FD)
		return -EINVAL;
	ia = kdapl_uobj_find(ufile, a->ia_id, DAT_HANDLE_TYPE_IA);
	if (!ia) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
		return 0;
	}
	*status = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	uobj = kdapl_uobj_alloc(DAT_HANDLE_TYPE_CNO, NULL, 0);
	if (!uobj)
		return 0;
	uobj->cno = kdapl_ucno_alloc();
	if (!uobj->cno)
		goto err_free;
	if (a->flags & KDAPL_CNO_FD) {
		fd = kdapl_ucno_file(uobj->cno, &file);
		if (fd < 0)
			goto err_put;
	}
	if (kdapl_uobj_insert(ufile, uobj, ia->id))
		goto err_file;
	/* Installed once the reply is written: the process may close it. */
	if (file)
		kdapl_uioctl_defer_fd(status, fd, file);
	a->cno_id = uobj->id;
	a->fd = fd;
	*status = DAT_SUCCESS;
	return 0;

err_file:
	if (file) {
		put_unused_fd(fd);
		fput(file);
	}
err_put:
	kdapl_ucno_put(uobj->cno);
err_free:
	kfree(uobj);
	return 0;
}

/**
 * kdapl_ucno_free() - KDAPL_IOC_CNO_FREE
 * @ufile: the file
 * @arg: struct kdapl_ioc_obj_free
 * @status: out: DAT_SUCCESS, DAT_INVALID_HANDLE, or DAT_INVALID_STATE
 *	while an EVD still triggers it
 *
 * Context: process context, ufile->lock held.
 * Return: 0, or -EINVAL for flags.
 */
int kdapl_ucno_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;
	struct kdapl_uobj *uobj;

	if (a->flags)
		return -EINVAL;
	uobj = kdapl_uobj_find(ufile, a->id, DAT_HANDLE_TYPE_CNO);
	if (!uobj)
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	else if (uobj->cno->evds)
		*status = dat_error(DAT_INVALID_STATE,
				    DAT_INVALID_STATE_CNO_IN_USE);
	else
		kdapl_uobj_destroy(ufile, uobj);
	return 0;
}

/**
 * kdapl_ucno_detach() - the file's CNO object goes
 * @uobj: the object
 *
 * Wakes the waiters (they return DAT_INVALID_HANDLE) and pollers (they
 * see EPOLLHUP) and drops the object's reference.
 *
 * Context: process context, ufile->lock held.
 */
void kdapl_ucno_detach(struct kdapl_uobj *uobj)
{
	struct kdapl_ucno *cno = uobj->cno;

	WRITE_ONCE(cno->dead, true);
	wake_up_interruptible_all(&cno->wait);
	uobj->cno = NULL;
	kdapl_ucno_put(cno);
}

/**
 * kdapl_ucno_find() - the CNO of a file with an id, for a new EVD
 * @ufile: the file
 * @id: the CNO's id
 *
 * Context: process context, ufile->lock held.
 * Return: the CNO with a reference, counted as one more EVD of it, or
 * NULL if the file has no CNO @id.  kdapl_ucno_unlink() undoes it.
 */
struct kdapl_ucno *kdapl_ucno_find(struct kdapl_ufile *ufile, u32 id)
{
	struct kdapl_uobj *uobj;

	uobj = kdapl_uobj_find(ufile, id, DAT_HANDLE_TYPE_CNO);
	if (!uobj)
		return NULL;
	uobj->cno->evds++;
	kref_get(&uobj->cno->ref);
	return uobj->cno;
}

/**
 * kdapl_ucno_unlink() - an EVD of a CNO goes
 * @cno: the CNO, from kdapl_ucno_find()
 *
 * The last one triggers the CNO with no EVD (cookie 0), as DAT unblocks
 * the waiters of a CNO whose EVDs are all freed.
 *
 * Context: process context, ufile->lock held; the EVD's sink no longer
 * runs.
 */
void kdapl_ucno_unlink(struct kdapl_ucno *cno)
{
	/* DAT: freeing the last EVD unblocks the waiters, with no EVD. */
	if (!--cno->evds)
		kdapl_ucno_trigger(cno, 0);
	kdapl_ucno_put(cno);
}

/**
 * kdapl_ucno_wait() - KDAPL_IOC_CNO_WAIT
 * @ufile: the file
 * @arg: struct kdapl_ioc_cno_wait
 * @status: out: see struct kdapl_ioc_cno_wait
 *
 * Context: process context, no lock held; sleeps.
 * Return: 0.
 */
int kdapl_ucno_wait(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status)
{
	struct kdapl_ioc_cno_wait *a = arg;
	struct kdapl_ucno *cno = NULL;
	ktime_t timeout = KTIME_MAX;
	struct kdapl_uobj *uobj;
	u64 cookie = 0;
	long ret;

	mutex_lock(&ufile->lock);
	uobj = kdapl_uobj_find(ufile, a->cno_id, DAT_HANDLE_TYPE_CNO);
	if (uobj) {
		cno = uobj->cno;
		kref_get(&cno->ref);
	}
	mutex_unlock(&ufile->lock);
	if (!cno) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
		return 0;
	}
	if (a->timeout_us != DAT_TIMEOUT_INFINITE)
		timeout = ns_to_ktime((u64)a->timeout_us * NSEC_PER_USEC);
	ret = wait_event_interruptible_hrtimeout(cno->wait,
						 kdapl_ucno_ready(cno, &cookie),
						 timeout);
	if (READ_ONCE(cno->dead))
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	else if (ret == -ETIME)
		*status = dat_error(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	else if (ret)
		*status = dat_error(DAT_INTERRUPTED_CALL, DAT_NO_SUBTYPE);
	else
		*status = DAT_SUCCESS;
	a->evd_cookie = cookie;
	kdapl_ucno_put(cno);
	return 0;
}
