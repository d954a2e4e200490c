// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cov.c - coverage guidance from KCOV
 *
 * Where the kernel has KCOV (/sys/kernel/debug/kcov; the debug kernel
 * instruments kdapl, and only kdapl), each thread traces the PCs its own
 * calls run in the kernel.  An operation whose run reaches a PC that no
 * run reached before (a bitmap shared by the processes) goes into the
 * process's corpus with the seed its random choices came from.  Half of
 * the operations then come from the corpus: a kept operation, half of
 * the time with its own choices again (applied to the objects and rings
 * of the moment, so that calls which opened new paths are tried in new
 * states), half of the time with new ones.  The other half are drawn as
 * without KCOV.  Work that runs outside the
 * thread (interrupts, work items) is not traced.  Without KCOV every
 * operation is drawn at random.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

/* From <linux/kcov.h>, which Debian ships in linux-libc-dev. */
#include <linux/kcov.h>

/* PCs one operation may record; more are dropped by KCOV. */
#define FZ_COV_WORDS	(64 * 1024)

/* Replay kept operations (-R turns it off, for comparison). */
bool fz_cov_guided = true;

/**
 * fz_cov_open() - start tracing the calling thread, if the kernel can
 * @t: the thread
 *
 * Leaves @t->cov NULL (random operations) when there is no KCOV.
 */
void fz_cov_open(struct fz_thread *t)
{
	size_t size = FZ_COV_WORDS * sizeof(unsigned long);
	void *area;
	int fd;

	t->cov = NULL;
	fd = open("/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	if (ioctl(fd, KCOV_INIT_TRACE, FZ_COV_WORDS))
		goto out;
	area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		goto out;
	if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
		munmap(area, size);
		goto out;
	}
	t->cov = area;
	__atomic_store_n(&fz_sh->cov_threads, 1, __ATOMIC_RELAXED);
out:
	/* The mapping and the task keep the trace; the fd is not needed. */
	close(fd);
}

/* A bit of the shared map per PC (hashed); true if it was clear. */
static bool fz_cov_mark(unsigned long pc)
{
	unsigned long h = (pc * 0x9e3779b97f4a7c15ULL) >> 40;
	__u8 bit = 1 << (h & 7);
	__u8 *byte = &fz_sh->cov_map[(h >> 3) % sizeof(fz_sh->cov_map)];

	return !(__atomic_fetch_or(byte, bit, __ATOMIC_RELAXED) & bit);
}

/* How many of the PCs of the last operation were new. */
static unsigned long fz_cov_new(struct fz_thread *t)
{
	unsigned long n, i, fresh = 0;

	n = __atomic_load_n(&t->cov[0], __ATOMIC_RELAXED);
	if (n > FZ_COV_WORDS - 1)
		n = FZ_COV_WORDS - 1;
	for (i = 1; i <= n; i++)
		fresh += fz_cov_mark(t->cov[i]);
	if (fresh)
		__atomic_add_fetch(&fz_sh->cov_pcs, fresh, __ATOMIC_RELAXED);
	return fresh;
}

/* Keep @op and @seed, over the oldest entry once the corpus is full. */
static void fz_cov_keep(struct fz_proc *p, const struct fz_op *op, __u64 seed)
{
	struct fz_seed *s;

	pthread_mutex_lock(&p->lock);
	s = &p->corpus[p->ncorpus++ % FZ_CORPUS];
	s->op = op;
	s->seed = seed;
	pthread_mutex_unlock(&p->lock);
	__atomic_add_fetch(&fz_sh->cov_kept, 1, __ATOMIC_RELAXED);
}

/* A corpus entry to replay, or false when there is none. */
static bool fz_cov_replay(struct fz_thread *t, struct fz_seed *s)
{
	struct fz_proc *p = t->proc;
	unsigned int n;

	pthread_mutex_lock(&p->lock);
	n = p->ncorpus < FZ_CORPUS ? p->ncorpus : FZ_CORPUS;
	if (n)
		*s = p->corpus[fz_below(t, n)];
	pthread_mutex_unlock(&p->lock);
	return n;
}

/**
 * fz_cov_run() - one operation, chosen with the help of coverage
 * @t: the thread, with @t->cov set
 * @choose: draws an operation at random
 */
void fz_cov_run(struct fz_thread *t,
		const struct fz_op *(*choose)(struct fz_thread *t))
{
	struct fz_seed s;
	bool replay;
	__u64 next;

	replay = fz_cov_guided && fz_chance(t, 50) && fz_cov_replay(t, &s);
	if (!replay) {
		s.op = choose(t);
		s.seed = fz_rand(t) | 1;
	} else if (fz_chance(t, 50)) {
		/* The kept operation with choices of its own. */
		s.seed = fz_rand(t) | 1;
	}
	next = fz_rand(t);
	/* The operation's choices come from its seed alone. */
	t->rng = s.seed;
	__atomic_store_n(&t->cov[0], 0, __ATOMIC_RELAXED);
	s.op->run(t);
	t->rng = next | 1;
	if (replay)
		__atomic_add_fetch(&fz_sh->cov_replays, 1, __ATOMIC_RELAXED);
	if (fz_cov_new(t))
		fz_cov_keep(t->proc, s.op, s.seed);
}
