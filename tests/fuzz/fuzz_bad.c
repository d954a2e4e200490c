// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_fuzz: malformed calls, memory pulled from under registrations,
 * the file replaced during calls, waits ended by a signal or a free, and
 * fork.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <rdma/kdapl_ioctl.h>

#include "fuzz.h"

/* A command number: ours, or one with a wrong type, size or direction. */
static unsigned long fz_command(struct fz_thread *t)
{
	unsigned int nr = fz_chance(t, 90) ? fz_below(t, KDAPL_NR_MAX + 2) :
		fz_below(t, 256);

	switch (fz_below(t, 10)) {
	case 0:
		return _IOR(KDAPL_IOCTL_TYPE, nr, struct kdapl_ioc_head);
	case 1:
		return _IOWR(KDAPL_IOCTL_TYPE, nr, struct kdapl_ioc_hello);
	case 2:
		return _IOWR(fz_below(t, 256), nr, struct kdapl_ioc_head);
	case 3:
		return fz_rand(t);
	}
	return KDAPL_IOC(nr);
}

/*
 * A malformed call: a random command with a buffer of random bytes whose
 * head claims a size from nothing to past the limit, or a pointer that
 * faults, is read-only, is the kernel's or straddles into a page without
 * access.
 */
static void op_malformed(struct fz_thread *t)
{
	__u64 words[(KDAPL_IOC_MAX_SIZE + 64) / 8];
	__u8 *buf = (__u8 *)words;
	static const __u32 sizes[] = {
		0, 4, 7, 8, 16, 24, 64, 255, 4095, KDAPL_IOC_MAX_SIZE,
		KDAPL_IOC_MAX_SIZE + 1, 0x7fffffff, 0xffffffff,
	};
	struct kdapl_ioc_head *h = (void *)buf;
	struct fz_proc *p = t->proc;
	unsigned long cmd = fz_command(t);
	unsigned int i, n = fz_below(t, 512);
	void *arg = buf;

	memset(words, 0, sizeof(words));
	for (i = 0; i < n; i++)
		buf[fz_below(t, sizeof(words))] = fz_rand(t);
	h->size = fz_chance(t, 50) ? sizes[fz_below(t, 13)] : fz_num(t, 512);
	switch (fz_below(t, 8)) {
	case 0:
		arg = NULL;
		break;
	case 1:
		arg = p->bad_page;
		break;
	case 2:
		arg = p->ro_page;
		break;
	case 3:
		arg = (void *)(uintptr_t)0xffff888000001000ULL;
		break;
	case 4:
		arg = buf + 1 + fz_below(t, 7);
		break;
	case 5:
		/* The head readable, the rest in a page without access. */
		arg = (char *)p->bad_page - 8 - 8 * fz_below(t, 4);
		break;
	}
	fz_raw_ioctl(t, p->fd, cmd, arg);
}

/* mmap of the file at made-up offsets and sizes; kept only briefly. */
static void op_mmap_random(struct fz_thread *t)
{
	size_t len = 4096 * (1 + fz_below(t, 8));
	off_t off = fz_chance(t, 80) ? 4096 * (off_t)fz_below(t, 64) :
		(off_t)(fz_rand(t) & ~4095ULL & 0x7fffffffffffULL);
	void *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->proc->fd,
		 off);
	if (m != MAP_FAILED)
		munmap(m, len);
}

/*
 * Take memory away under its registrations: unmap a region and map a
 * fresh one in its place, or move it.  LMRs keep their pinned pages.
 */
static void op_region_churn(struct fz_thread *t)
{
	struct fz_proc *p = t->proc;
	int i = fz_below(t, FZ_REGIONS);
	void *m;

	pthread_mutex_lock(&p->lock);
	if (fz_chance(t, 50)) {
		munmap(p->region[i], FZ_REGION_SIZE);
		m = mmap(p->region[i], FZ_REGION_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	} else {
		m = mremap(p->region[i], FZ_REGION_SIZE, FZ_REGION_SIZE,
			   MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
		if (m != MAP_FAILED) {
			munmap(p->region[i], FZ_REGION_SIZE);
			munmap(m, FZ_REGION_SIZE);
			m = mmap(p->region[i], FZ_REGION_SIZE,
				 PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		} else {
			m = p->region[i];
		}
	}
	if (m == MAP_FAILED)
		fz_fail("cannot map region %d again: %s", i, strerror(errno));
	pthread_mutex_unlock(&p->lock);
}

/*
 * Replace the file under the descriptor while other threads call on it:
 * their calls finish on the old file, which is released after the last.
 * Every id remembered is stale from now on.
 */
static void op_replace_file(struct fz_thread *t)
{
	struct fz_proc *p = t->proc;
	int fd;

	if (!fz_chance(t, 10))
		return;
	fd = fz_dev_open();
	if (fd < 0) {
		fz_fail("cannot open /dev/kdapl again");
		return;
	}
	pthread_mutex_lock(&p->lock);
	if (dup3(fd, p->fd, O_CLOEXEC) < 0)
		fz_fail("dup3: %s", strerror(errno));
	p->have_addr = false;
	pthread_mutex_unlock(&p->lock);
	close(fd);
}

/* In a forked child: every call on the parent's file must be refused. */
static void fz_child(struct fz_thread *t, int parent_fd)
{
	struct kdapl_ioc_ia_open a;
	unsigned int i;
	int fd;

	for (i = 0; i < 20; i++) {
		__u8 buf[512] = { 0 };
		struct kdapl_ioc_head *h = (void *)buf;

		h->size = 8 + 8 * fz_below(t, 32);
		memcpy(buf + 8, &i, sizeof(i));
		if (ioctl(parent_fd, KDAPL_IOC(fz_below(t, KDAPL_NR_MAX)),
			  buf) == 0 || errno != EPERM)
			_exit(3);
	}
	if (mmap(NULL, 4096, PROT_READ, MAP_SHARED, parent_fd,
		 4096 * fz_below(t, 32)) != MAP_FAILED || errno != EPERM)
		_exit(4);
	/* A file of its own works, and is dropped with objects in it. */
	fd = fz_dev_open();
	if (fd < 0)
		_exit(5);
	memset(&a, 0, sizeof(a));
	a.head.size = sizeof(a);
	strncpy(a.name, fz_ia_name, sizeof(a.name) - 1);
	a.async_qlen = 8;
	if (ioctl(fd, KDAPL_IOC_IA_OPEN, &a) || a.head.status != DAT_SUCCESS)
		_exit(6);
	_exit(0);
}

static void op_fork(struct fz_thread *t)
{
	int status;
	pid_t pid;

	if (!fz_chance(t, 10))
		return;
	__atomic_add_fetch(&fz_sh->forks, 1, __ATOMIC_RELAXED);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0)
		fz_child(t, t->proc->fd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fz_fail("forked child: status %#x (%s)", status,
			"3: a call on the parent's file was not refused with EPERM, 4: an mmap was not, 5-6: its own file failed");
}

struct fz_waiter {
	struct fz_thread t;
	__u32 evd_id;
};

static void *fz_waiter_main(void *arg)
{
	struct fz_waiter *w = arg;
	struct kdapl_ioc_evd_wait a = {
		.head.size = sizeof(a),
		.evd_id = w->evd_id,
		.threshold = 1000000,
		.timeout_us = ~0U,
	};

	fz_ioctl(&w->t, KDAPL_NR_EVD_WAIT, &a);
	return NULL;
}

/*
 * Join a waiter, which must be back within three seconds; with @sig, the
 * signal is sent again every millisecond (the first may come before the
 * waiter sleeps).
 */
static bool fz_join(pthread_t tid, bool sig, const char *how)
{
	int i;

	for (i = 0; i < 3000; i++) {
		if (pthread_tryjoin_np(tid, NULL) == 0)
			return true;
		if (sig)
			pthread_kill(tid, SIGUSR1);
		usleep(1000);
	}
	fz_fail("a wait without limit was not ended by %s", how);
	pthread_detach(tid);
	return false;
}

/*
 * A wait without a time limit, on an EVD of its own, ended by a signal
 * (DAT_INTERRUPTED_CALL or EINTR) or by the free of the EVD.
 */
static void op_wait_ended(struct fz_thread *t)
{
	struct kdapl_ioc_evd_create c = { .head.size = sizeof(c) };
	struct kdapl_ioc_obj_free f = { .head.size = sizeof(f) };
	bool by_signal = fz_chance(t, 50), joined;
	struct fz_waiter *w;
	pthread_t tid;

	c.ia_id = fz_pick(t, FZ_IA);
	c.qlen = 8;
	c.flags = DAT_EVD_SOFTWARE_FLAG;
	if (fz_ioctl(t, KDAPL_NR_EVD_CREATE, &c) != DAT_SUCCESS)
		return;
	f.id = c.evd_id;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
	w->t = *t;
	w->t.calls = 0;
	w->evd_id = c.evd_id;
	if (pthread_create(&tid, NULL, fz_waiter_main, w)) {
		free(w);
		fz_ioctl(t, KDAPL_NR_EVD_FREE, &f);
		return;
	}
	usleep(1000 + fz_below(t, 3000));
	if (by_signal) {
		joined = fz_join(tid, true, "a signal");
		fz_ioctl(t, KDAPL_NR_EVD_FREE, &f);
	} else {
		fz_ioctl(t, KDAPL_NR_EVD_FREE, &f);
		joined = fz_join(tid, false, "the free of its EVD");
	}
	if (joined)
		free(w);
}

const struct fz_op fz_bad_ops[] = {
	{ "malformed", 12, op_malformed },
	{ "mmap_random", 2, op_mmap_random },
	{ "region_churn", 1, op_region_churn },
	{ "replace_file", 1, op_replace_file },
	{ "fork", 1, op_fork },
	{ "wait_ended", 1, op_wait_ended },
};

const unsigned int fz_nr_bad_ops = ARRAY_SIZE(fz_bad_ops);
