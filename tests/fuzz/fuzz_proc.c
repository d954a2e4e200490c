// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_fuzz: a process, the ids and mappings it remembers, its threads.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <rdma/kdapl_ioctl.h>

#include "fuzz.h"

/**
 * fz_dev_open() - open /dev/kdapl and make the handshake
 *
 * Return: the descriptor, or -1.
 */
int fz_dev_open(void)
{
	struct kdapl_ioc_hello h = {
		.head.size = sizeof(h),
		.abi_version = KDAPL_ABI_VERSION,
	};
	int fd = open("/dev/kdapl", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("kdapl_fuzz: /dev/kdapl");
		return -1;
	}
	if (ioctl(fd, KDAPL_IOC_HELLO, &h) || h.head.status != DAT_SUCCESS) {
		fprintf(stderr, "kdapl_fuzz: handshake failed\n");
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * fz_put() - remember the id of a new object
 * @p: the process
 * @kind: its kind
 * @id: its id
 */
void fz_put(struct fz_proc *p, enum fz_kind kind, __u32 id)
{
	pthread_mutex_lock(&p->lock);
	p->ids[kind][p->count[kind]++ % FZ_POOL] = id;
	pthread_mutex_unlock(&p->lock);
}

/**
 * fz_pick() - an id to pass where an object of @kind is expected
 * @t: the thread
 * @kind: the kind
 *
 * Mostly a remembered id of that kind (which may be freed by now),
 * sometimes one of another kind, zero or a made-up number.
 *
 * Return: the id.
 */
__u32 fz_pick(struct fz_thread *t, enum fz_kind kind)
{
	struct fz_proc *p = t->proc;
	unsigned int n, r = fz_below(t, 100);
	__u32 id;

	if (r < 8)
		return fz_below(t, 64);
	if (r < 10)
		return fz_rand(t);
	if (r < 18)
		kind = fz_below(t, FZ_KINDS);
	pthread_mutex_lock(&p->lock);
	n = p->count[kind] < FZ_POOL ? p->count[kind] : FZ_POOL;
	/* The newest ids are the likeliest to be alive. */
	if (n && fz_chance(t, 60))
		id = p->ids[kind][(p->count[kind] - 1) % FZ_POOL];
	else
		id = n ? p->ids[kind][fz_below(t, n)] : 0;
	pthread_mutex_unlock(&p->lock);
	return id;
}

/**
 * fz_put_lmr() - remember a registered LMR, and publish its remote key
 * @p: the process
 * @lmr: the LMR
 */
void fz_put_lmr(struct fz_proc *p, const struct fz_lmr *lmr)
{
	pthread_mutex_lock(&p->lock);
	p->lmrs[p->nlmrs++ % FZ_POOL] = *lmr;
	pthread_mutex_unlock(&p->lock);
}

/**
 * fz_pick_lmr() - a remembered LMR
 * @t: the thread
 * @lmr: where it is copied
 *
 * Return: false if none was registered yet.
 */
bool fz_pick_lmr(struct fz_thread *t, struct fz_lmr *lmr)
{
	struct fz_proc *p = t->proc;
	unsigned int n;

	pthread_mutex_lock(&p->lock);
	n = p->nlmrs < FZ_POOL ? p->nlmrs : FZ_POOL;
	if (n)
		*lmr = p->lmrs[fz_below(t, n)];
	pthread_mutex_unlock(&p->lock);
	return n;
}

/**
 * fz_user_addr() - an address to hand the kernel as user memory
 * @t: the thread
 * @len: bytes the call will cover
 *
 * Mostly inside a registration region; sometimes NULL, a page without
 * access, a read-only page, a kernel address, one that wraps, or one
 * straddling the end of a region.
 *
 * Return: the address.
 */
__u64 fz_user_addr(struct fz_thread *t, __u64 len)
{
	struct fz_proc *p = t->proc;
	char *r = p->region[fz_below(t, FZ_REGIONS)];
	__u64 off;

	switch (fz_below(t, 20)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)p->bad_page + fz_below(t, 4096);
	case 2:
		return (uintptr_t)p->ro_page;
	case 3:
		return 0xffff888000000000ULL + fz_below(t, 1 << 20) * 4096;
	case 4:
		return ~0ULL - fz_below(t, 8192);
	case 5:
		return (uintptr_t)r + FZ_REGION_SIZE - fz_below(t, 4096);
	}
	off = len < FZ_REGION_SIZE ? fz_below(t, FZ_REGION_SIZE - len) : 0;
	return (uintptr_t)r + off;
}

/* Slots and stride of a ring just mapped, if they fit the mapping. */
static void fz_ring_geometry(struct fz_ring *r)
{
	__u64 need;

	if (r->post) {
		const struct kdapl_post_head *h = r->addr;

		r->entries = h->entries;
		r->stride = h->stride;
		need = KDAPL_POST_RECORDS + (__u64)r->entries * r->stride;
		if (r->stride < sizeof(struct kdapl_post_record) +
				r->max_iov * sizeof(struct kdapl_post_sge))
			r->entries = 0;
	} else {
		const struct kdapl_ring_head *h = r->addr;

		r->entries = h->entries;
		need = KDAPL_RING_EVENTS +
		       (__u64)r->entries * sizeof(struct kdapl_uevent);
	}
	if (!r->entries || (r->entries & (r->entries - 1)) || need > r->size)
		r->entries = 0;
}

/**
 * fz_map_ring() - map a ring the kernel just described, usually right
 * @t: the thread
 * @id: the EVD's or EP's id
 * @offset: the mmap offset the kernel gave
 * @size: the size it gave
 * @post: a post ring
 * @max_iov: segments per record, for a post ring
 *
 * Sometimes maps it wrong (private, executable, too big, at another
 * offset): the kernel must refuse those, and nothing is remembered.
 */
void fz_map_ring(struct fz_thread *t, __u32 id, __u64 offset,
		 __u64 size, bool post, __u32 max_iov)
{
	struct fz_proc *p = t->proc;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED;
	bool wrong = fz_chance(t, 15);
	struct fz_ring *slot;
	void *addr;
	int i;

	if (wrong) {
		switch (fz_below(t, 4)) {
		case 0:
			flags = MAP_PRIVATE;
			break;
		case 1:
			prot |= PROT_EXEC;
			break;
		case 2:
			size += 4096 * (1 + fz_below(t, 4));
			break;
		default:
			offset += 4096 * (1 + fz_below(t, 3));
			break;
		}
	}
	pthread_mutex_lock(&p->lock);
	addr = mmap(NULL, size, prot, flags, p->fd, offset);
	if (addr == MAP_FAILED || wrong) {
		if (addr != MAP_FAILED)
			munmap(addr, size);
		pthread_mutex_unlock(&p->lock);
		return;
	}
	i = fz_below(t, FZ_RINGS);
	slot = &p->rings[i];
	if (slot->addr)
		munmap(slot->addr, slot->size);
	*slot = (struct fz_ring){ .id = id, .addr = addr, .size = size,
				  .post = post, .max_iov = max_iov };
	fz_ring_geometry(slot);
	pthread_mutex_unlock(&p->lock);
}

/**
 * fz_pick_ring() - a mapped ring, with the process lock held
 * @t: the thread
 * @post: a post ring (else an event ring)
 *
 * Return: the ring, with the lock held, or NULL without it.
 */
struct fz_ring *fz_pick_ring(struct fz_thread *t, bool post)
{
	struct fz_proc *p = t->proc;
	int i, start = fz_below(t, FZ_RINGS);

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < FZ_RINGS; i++) {
		struct fz_ring *r = &p->rings[(start + i) % FZ_RINGS];

		if (r->addr && r->post == post && r->entries)
			return r;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* All the operations, weighted across the three tables. */
static const struct fz_op *fz_choose(struct fz_thread *t)
{
	static const struct {
		const struct fz_op *ops;
		const unsigned int *n;
	} tables[] = {
		{ fz_obj_ops, &fz_nr_obj_ops },
		{ fz_ring_ops, &fz_nr_ring_ops },
		{ fz_bad_ops, &fz_nr_bad_ops },
		{ fz_kit_ops, &fz_nr_kit_ops },
	};
	unsigned int i, j, total = 0, r;
#define FZ_TABLES ARRAY_SIZE(tables)

	for (i = 0; i < FZ_TABLES; i++)
		for (j = 0; j < *tables[i].n; j++)
			total += tables[i].ops[j].weight;
	r = fz_below(t, total);
	for (i = 0; i < FZ_TABLES; i++)
		for (j = 0; j < *tables[i].n; j++) {
			if (r < tables[i].ops[j].weight)
				return &tables[i].ops[j];
			r -= tables[i].ops[j].weight;
		}
	return &fz_obj_ops[0];
#undef FZ_TABLES
}

static void *fz_thread_main(void *arg)
{
	struct fz_thread *t = arg;

	fz_cov_open(t);
	while (!fz_done()) {
		if (t->cov)
			fz_cov_run(t, fz_choose);
		else
			fz_choose(t)->run(t);
	}
	return NULL;
}

/* The memory the process registers, and pages to make calls fault. */
static int fz_proc_memory(struct fz_proc *p)
{
	char *scratch;
	int i;

	for (i = 0; i < FZ_REGIONS; i++) {
		p->region[i] = mmap(NULL, FZ_REGION_SIZE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->region[i] == MAP_FAILED)
			return -1;
		memset(p->region[i], 0x5a, FZ_REGION_SIZE);
	}
	/* A scratch page, then the page without access. */
	scratch = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p->ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	if (scratch == MAP_FAILED || p->ro_page == MAP_FAILED)
		return -1;
	p->bad_page = scratch + 4096;
	return mprotect(p->bad_page, 4096, PROT_NONE);
}

/**
 * fz_proc_run() - the body of one process of the run
 * @index: its number
 * @threads: threads to run
 * @seed: its seed
 *
 * Return: its exit status.
 */
int fz_proc_run(int index, int threads, __u64 seed)
{
	static struct fz_thread th[FZ_MAX_THREADS];
	static struct fz_proc proc;
	long calls = 0;
	int i;

	proc.index = index;
	pthread_mutex_init(&proc.lock, NULL);
	if (fz_proc_memory(&proc))
		return 1;
	proc.fd = fz_dev_open();
	if (proc.fd < 0)
		return 1;
	for (i = 0; i < threads; i++) {
		th[i].proc = &proc;
		th[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + i;
		if (pthread_create(&th[i].tid, NULL, fz_thread_main, &th[i]))
			return 1;
	}
	for (i = 0; i < threads; i++) {
		pthread_join(th[i].tid, NULL);
		calls += th[i].calls;
	}
	printf("kdapl_fuzz: process %d: %ld calls\n", index, calls);
	return 0;
}
