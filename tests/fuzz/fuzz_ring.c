// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_fuzz: the rings.  Post rings get records, sensible or not, and
 * doorbells; event rings are drained (connection requests give CR ids)
 * or scribbled on; rings are unmapped and moved while in use.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>

#include <dat2/udat.h>
#include <rdma/kdapl_ioctl.h>

#include "fuzz.h"

#define FZ_BATCH	8

/* One record, before it is copied into a ring. */
struct fz_rec {
	struct kdapl_post_record r;
	struct kdapl_post_sge sge[KDAPL_POST_IOV_MAX];
};

static void op_ep_ring(struct fz_thread *t)
{
	struct kdapl_ioc_ep_ring a;

	memset(&a, 0, sizeof(a));
	a.head.size = sizeof(a);
	a.ep_id = fz_pick(t, FZ_EP);
	if (fz_ioctl(t, KDAPL_NR_EP_RING, &a) == DAT_SUCCESS)
		fz_map_ring(t, a.ep_id, a.ring_offset, a.ring_size, true,
			    a.max_iov);
}

/* A local segment: part of a registered LMR, or anything. */
static void fz_sge(struct fz_thread *t, struct kdapl_post_sge *s)
{
	struct fz_lmr lmr;
	__u64 off;

	if (fz_chance(t, 85) && fz_pick_lmr(t, &lmr)) {
		off = lmr.len ? fz_below(t, lmr.len) : 0;
		s->virtual_address = lmr.addr + off;
		s->segment_length = fz_chance(t, 90) ?
			fz_below(t, lmr.len - off + 1) : fz_num(t, 1);
		s->context = fz_chance(t, 95) ? lmr.lmr_context : fz_rand(t);
		return;
	}
	s->virtual_address = fz_user_addr(t, 64);
	s->segment_length = fz_num(t, 4096);
	s->context = fz_rand(t);
}

/* A remote segment: one another process published, or anything. */
static void fz_remote_sge(struct fz_thread *t, struct kdapl_post_sge *s)
{
	const struct fz_remote *rem = &fz_sh->remotes[fz_below(t, FZ_REMOTES)];

	if (fz_chance(t, 80) && rem->len) {
		s->virtual_address = rem->addr + fz_below(t, rem->len);
		s->segment_length = fz_below(t, rem->len + 64);
		s->context = rem->rmr_context;
		return;
	}
	s->virtual_address = fz_rand(t);
	s->segment_length = fz_num(t, 4096);
	s->context = fz_rand(t);
}

static void fz_record(struct fz_thread *t, struct fz_rec *rec)
{
	static const __u32 ops[] = {
		DAT_DTO_SEND, DAT_DTO_RECEIVE, DAT_DTO_RECEIVE,
		DAT_DTO_RDMA_WRITE, DAT_DTO_RDMA_READ,
		KDAPL_POST_SEND_INVALIDATE, KDAPL_POST_RDMA_READ_TO_RMR,
		KDAPL_POST_RDMA_WRITE_IMMED, KDAPL_POST_CMP_AND_SWAP,
		KDAPL_POST_FETCH_AND_ADD, KDAPL_POST_SEND_UD,
	};
	unsigned int i, n;

	memset(rec, 0, sizeof(*rec));
	rec->r.op = fz_chance(t, 95) ? ops[fz_below(t, ARRAY_SIZE(ops))] :
		fz_rand(t);
	n = fz_below(t, 4);
	rec->r.num_segments = fz_chance(t, 95) ? n : fz_rand(t);
	rec->r.flags = fz_chance(t, 85) ? DAT_COMPLETION_DEFAULT_FLAG :
		fz_rand(t) & 0xff;
	rec->r.imm_data = rec->r.op == KDAPL_POST_RDMA_WRITE_IMMED ||
			  rec->r.op == KDAPL_POST_SEND_UD ||
			  fz_chance(t, 3) ? fz_rand(t) : 0;
	rec->r.cookie = fz_rand(t);
	fz_remote_sge(t, &rec->r.remote);
	/* A datagram names an address handle, mostly one of the first. */
	if (rec->r.op == KDAPL_POST_SEND_UD && fz_chance(t, 80))
		rec->r.remote = (struct kdapl_post_sge){
			.context = fz_below(t, 8),
		};
	for (i = 0; i < n; i++)
		fz_sge(t, &rec->sge[i]);
}

/* Copy records into a post ring and publish them; the lock is held. */
static void fz_publish(struct fz_thread *t, struct fz_ring *r,
		       const struct fz_rec *recs, unsigned int n)
{
	struct kdapl_post_head *h = r->addr;
	size_t len = r->stride < sizeof(*recs) ? r->stride : sizeof(*recs);
	__u32 head = __atomic_load_n(&h->head, __ATOMIC_RELAXED);
	unsigned int i;

	for (i = 0; i < n; i++, head++)
		memcpy((char *)r->addr + KDAPL_POST_RECORDS +
		       (size_t)(head & (r->entries - 1)) * r->stride,
		       &recs[i], len);
	if (fz_chance(t, 3))
		head += fz_rand(t);
	__atomic_store_n(&h->head, head, __ATOMIC_RELEASE);
}

/* The mapped post ring of @ep_id, with the lock held, or NULL. */
static struct fz_ring *fz_find_post_ring(struct fz_proc *p, __u32 ep_id)
{
	int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < FZ_RINGS; i++)
		if (p->rings[i].addr && p->rings[i].post &&
		    p->rings[i].entries && p->rings[i].id == ep_id)
			return &p->rings[i];
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/**
 * fz_kit_post() - post well-formed requests on an EP through its ring
 * @t: the thread
 * @ep_id: the EP, whose post ring must be mapped
 * @lmr: the LMR the local segments are taken from
 * @op: the DAT_DTOS operation
 * @n: how many (at most 8)
 */
void fz_kit_post(struct fz_thread *t, __u32 ep_id, const struct fz_lmr *lmr,
		 __u32 op, unsigned int n)
{
	struct fz_rec recs[FZ_BATCH];
	struct kdapl_ioc_ep_post a;
	struct fz_ring *r;
	unsigned int i;

	memset(recs, 0, sizeof(recs));
	for (i = 0; i < n && i < FZ_BATCH; i++) {
		struct fz_rec *rec = &recs[i];
		__u64 off = fz_below(t, lmr->len);

		rec->r.op = op;
		rec->r.num_segments = 1;
		rec->r.cookie = fz_rand(t);
		rec->sge[0].virtual_address = lmr->addr + off;
		rec->sge[0].segment_length = fz_below(t, lmr->len - off + 1);
		rec->sge[0].context = lmr->lmr_context;
		fz_remote_sge(t, &rec->r.remote);
	}
	r = fz_find_post_ring(t->proc, ep_id);
	if (!r)
		return;
	fz_publish(t, r, recs, i);
	pthread_mutex_unlock(&t->proc->lock);
	memset(&a, 0, sizeof(a));
	a.head.size = sizeof(a);
	a.ep_id = ep_id;
	fz_ioctl(t, KDAPL_NR_EP_POST, &a);
}

static void op_post(struct fz_thread *t)
{
	struct fz_rec recs[FZ_BATCH];
	struct kdapl_ioc_ep_post a;
	unsigned int i, n = 1 + fz_below(t, FZ_BATCH);
	struct fz_ring *r;

	for (i = 0; i < n; i++)
		fz_record(t, &recs[i]);
	memset(&a, 0, sizeof(a));
	a.head.size = sizeof(a);
	r = fz_pick_ring(t, true);
	if (r) {
		fz_publish(t, r, recs, n);
		a.ep_id = r->id;
		pthread_mutex_unlock(&t->proc->lock);
	}
	if (!r || fz_chance(t, 5))
		a.ep_id = fz_pick(t, FZ_EP);
	a.flags = fz_chance(t, 90) ? fz_below(t, 2) * KDAPL_POST_SYNC :
		fz_rand(t);
	a.reserved = fz_chance(t, 3) ? fz_rand(t) : 0;
	fz_ioctl(t, KDAPL_NR_EP_POST, &a);
}

static void fz_count_event(const struct kdapl_uevent *e)
{
	long *c = NULL;

	__atomic_add_fetch(&fz_sh->events, 1, __ATOMIC_RELAXED);
	if (e->number == DAT_CONNECTION_REQUEST_EVENT)
		c = &fz_sh->requests;
	else if (e->number == DAT_CONNECTION_EVENT_ESTABLISHED)
		c = &fz_sh->established;
	else if (e->number == DAT_DTO_COMPLETION_EVENT &&
		 e->status == DAT_DTO_SUCCESS)
		c = &fz_sh->dto_ok;
	if (c)
		__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* Consume an event ring's events; connection requests give CR ids. */
static void op_drain(struct fz_thread *t)
{
	__u32 crs[16], head, tail;
	struct kdapl_ring_head *h;
	const struct kdapl_uevent *ev;
	unsigned int ncr = 0, i;
	struct fz_ring *r;

	r = fz_pick_ring(t, false);
	if (!r)
		return;
	h = r->addr;
	ev = (const void *)((char *)r->addr + KDAPL_RING_EVENTS);
	tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
	head = h->head;
	if (tail - head > r->entries)
		head = tail - r->entries;
	for (; head != tail; head++) {
		const struct kdapl_uevent *e = &ev[head & (r->entries - 1)];

		fz_count_event(e);
		if (e->number == DAT_CONNECTION_REQUEST_EVENT && ncr < 16)
			crs[ncr++] = e->new_id;
	}
	__atomic_store_n(&h->head, fz_chance(t, 3) ? fz_rand(t) : tail,
			 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&t->proc->lock);
	for (i = 0; i < ncr; i++) {
		if (fz_chance(t, 70))
			fz_kit_accept(t, crs[i]);
		else
			fz_put(t->proc, FZ_CR, crs[i]);
	}
}

/* Random words anywhere in a ring, header included. */
static void op_scribble(struct fz_thread *t)
{
	struct fz_ring *r = fz_pick_ring(t, fz_chance(t, 50));
	unsigned int i, n = 1 + fz_below(t, 8);
	size_t off;

	if (!r)
		return;
	for (i = 0; i < n; i++) {
		off = fz_chance(t, 50) ? fz_below(t, 128) :
			fz_below(t, r->size - 4);
		off &= ~(size_t)3;
		__atomic_store_n((__u32 *)((char *)r->addr + off),
				 (__u32)fz_rand(t), __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&t->proc->lock);
}

/* Unmap a ring, or part of it, or move it, or try to grow it. */
static void op_ring_unmap(struct fz_thread *t)
{
	struct fz_proc *p = t->proc;
	struct fz_ring *r = &p->rings[fz_below(t, FZ_RINGS)];
	void *moved;

	pthread_mutex_lock(&p->lock);
	if (!r->addr)
		goto out;
	switch (fz_below(t, 4)) {
	case 0:
		/* Growing is refused (VM_DONTEXPAND); the ring stays. */
		moved = mremap(r->addr, r->size, r->size + 4096, MREMAP_MAYMOVE);
		if (moved != MAP_FAILED) {
			fz_fail("a ring of %zu bytes grew", r->size);
			munmap(moved, r->size + 4096);
			r->addr = NULL;
		}
		break;
	case 1:
		moved = mremap(r->addr, r->size, r->size, MREMAP_MAYMOVE);
		if (moved != MAP_FAILED)
			r->addr = moved;
		break;
	case 2:
		/* The first page goes first, then the rest. */
		munmap(r->addr, 4096);
		munmap((char *)r->addr + 4096, r->size - 4096);
		r->addr = NULL;
		break;
	default:
		munmap(r->addr, r->size);
		r->addr = NULL;
		break;
	}
out:
	pthread_mutex_unlock(&p->lock);
}

const struct fz_op fz_ring_ops[] = {
	{ "ep_ring", 4, op_ep_ring },
	{ "post", 10, op_post },
	{ "drain", 6, op_drain },
	{ "scribble", 2, op_scribble },
	{ "ring_unmap", 1, op_ring_unmap },
};

const unsigned int fz_nr_ring_ops = ARRAY_SIZE(fz_ring_ops);
