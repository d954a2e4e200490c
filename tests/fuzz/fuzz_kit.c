// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_fuzz: objects made to fit together.  Random parameters rarely
 * give an endpoint whose EVDs have the right streams, a listener, and a
 * peer that connects to it; a kit does, so that connection requests,
 * accepts, established connections and data transfers happen between
 * the processes while the other operations go on around them.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <string.h>

#include <dat2/udat.h>
#include <rdma/kdapl_ioctl.h>

#include "fuzz.h"

/**
 * fz_get_kit() - the process's last kit
 * @t: the thread
 * @kit: where it is copied
 *
 * Return: false if no kit was made yet.
 */
bool fz_get_kit(struct fz_thread *t, struct fz_kit *kit)
{
	struct fz_proc *p = t->proc;

	pthread_mutex_lock(&p->lock);
	*kit = p->kit;
	pthread_mutex_unlock(&p->lock);
	return kit->ia && kit->lmr.id;
}

static __u32 fz_kit_evd(struct fz_thread *t, __u32 ia, __u32 flags)
{
	struct kdapl_ioc_evd_create a;

	FZ_ARG(a);
	a.ia_id = ia;
	a.qlen = 64;
	a.flags = flags;
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_EVD_CREATE, &a) != DAT_SUCCESS)
		return 0;
	fz_put(t->proc, FZ_EVD, a.evd_id);
	fz_map_ring(t, a.evd_id, a.ring_offset, a.ring_size, false, 0);
	return a.evd_id;
}

/* An EP of the kit with receives posted, or 0. */
static __u32 fz_kit_ep(struct fz_thread *t, const struct fz_kit *kit)
{
	struct kdapl_ioc_ep_create a;
	struct kdapl_ioc_ep_ring r;

	FZ_ARG(a);
	a.ia_id = kit->ia;
	a.pz_id = kit->pz;
	a.recv_evd_id = kit->dto_evd;
	a.request_evd_id = kit->dto_evd;
	a.connect_evd_id = kit->conn_evd;
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_EP_CREATE, &a) != DAT_SUCCESS)
		return 0;
	fz_put(t->proc, FZ_EP, a.ep_id);
	pthread_mutex_lock(&t->proc->lock);
	t->proc->kit_eps[t->proc->nkit_eps++ % FZ_POOL] = a.ep_id;
	pthread_mutex_unlock(&t->proc->lock);
	FZ_ARG(r);
	r.ep_id = a.ep_id;
	if (fz_ioctl(t, KDAPL_NR_EP_RING, &r) == DAT_SUCCESS) {
		fz_map_ring(t, r.ep_id, r.ring_offset, r.ring_size, true,
			    r.max_iov);
		fz_kit_post(t, a.ep_id, &kit->lmr, DAT_DTO_RECEIVE, 4);
	}
	return a.ep_id;
}

/* IA, PZ, EVDs and an LMR that fit, made the process's kit. */
static bool fz_kit_make(struct fz_thread *t, struct fz_kit *kit)
{
	struct kdapl_ioc_ia_open o;
	struct kdapl_ioc_pz_create z;
	struct kdapl_ioc_lmr_create l;
	struct kdapl_ioc_ia_query q;

	memset(kit, 0, sizeof(*kit));
	FZ_ARG(o);
	strncpy(o.name, fz_ia_name, sizeof(o.name) - 1);
	o.async_qlen = 16;
	if (fz_ioctl(t, KDAPL_NR_IA_OPEN, &o) != DAT_SUCCESS)
		return false;
	kit->ia = o.ia_id;
	fz_put(t->proc, FZ_IA, o.ia_id);
	FZ_ARG(q);
	q.ia_id = o.ia_id;
	if (fz_ioctl(t, KDAPL_NR_IA_QUERY, &q) == DAT_SUCCESS) {
		pthread_mutex_lock(&t->proc->lock);
		memcpy(t->proc->addr, q.addr, sizeof(q.addr));
		t->proc->have_addr = true;
		pthread_mutex_unlock(&t->proc->lock);
	}
	FZ_ARG(z);
	z.ia_id = kit->ia;
	if (fz_ioctl(t, KDAPL_NR_PZ_CREATE, &z) != DAT_SUCCESS)
		return false;
	kit->pz = z.pz_id;
	fz_put(t->proc, FZ_PZ, z.pz_id);
	kit->dto_evd = fz_kit_evd(t, kit->ia, DAT_EVD_DTO_FLAG);
	kit->conn_evd = fz_kit_evd(t, kit->ia, DAT_EVD_CONNECTION_FLAG);
	FZ_ARG(l);
	l.ia_id = kit->ia;
	l.pz_id = kit->pz;
	l.length = 65536;
	l.addr = (uintptr_t)t->proc->region[fz_below(t, FZ_REGIONS)];
	l.privileges = DAT_MEM_PRIV_ALL_FLAG;
	if (fz_ioctl(t, KDAPL_NR_LMR_CREATE, &l) != DAT_SUCCESS)
		return false;
	kit->lmr = (struct fz_lmr){ .id = l.lmr_id,
				    .lmr_context = l.lmr_context,
				    .addr = l.registered_address,
				    .len = l.registered_length };
	fz_put(t->proc, FZ_LMR, l.lmr_id);
	fz_put_lmr(t->proc, &kit->lmr);
	pthread_mutex_lock(&t->proc->lock);
	t->proc->kit = *kit;
	pthread_mutex_unlock(&t->proc->lock);
	return true;
}

/* A listener on the kit: a PSP whose requests come to a CR EVD. */
static void fz_kit_listen(struct fz_thread *t, const struct fz_kit *kit)
{
	struct kdapl_ioc_psp_create a;

	FZ_ARG(a);
	a.ia_id = kit->ia;
	a.evd_id = fz_kit_evd(t, kit->ia, DAT_EVD_CR_FLAG);
	a.conn_qual = 20000 + fz_below(t, 6);
	a.flags = DAT_PSP_CONSUMER_FLAG;
	if (fz_ioctl(t, KDAPL_NR_PSP_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_PSP, a.psp_id);
}

/* An EP of the kit connecting to one of the listeners' qualifiers. */
static void fz_kit_connect(struct fz_thread *t, const struct fz_kit *kit)
{
	struct kdapl_ioc_ep_connect a;
	struct fz_proc *p = t->proc;

	FZ_ARG(a);
	a.ep_id = fz_kit_ep(t, kit);
	if (!a.ep_id)
		return;
	a.timeout_us = 2000000;
	a.conn_qual = 20000 + fz_below(t, 6);
	pthread_mutex_lock(&p->lock);
	memcpy(a.addr, p->addr, sizeof(a.addr));
	pthread_mutex_unlock(&p->lock);
	a.connect_flags = DAT_CONNECT_DEFAULT_FLAG;
	fz_ioctl(t, KDAPL_NR_EP_CONNECT, &a);
}

/**
 * fz_kit_accept() - accept a connection request on a new EP of the kit
 * @t: the thread
 * @cr_id: the request's CR
 */
void fz_kit_accept(struct fz_thread *t, __u32 cr_id)
{
	struct kdapl_ioc_cr_reply a;
	struct fz_kit kit;

	FZ_ARG(a);
	a.cr_id = cr_id;
	if (!fz_get_kit(t, &kit))
		return;
	a.ep_id = fz_kit_ep(t, &kit);
	if (!a.ep_id)
		return;
	fz_ioctl(t, KDAPL_NR_CR_ACCEPT, &a);
}

static void op_kit(struct fz_thread *t)
{
	struct fz_kit kit;

	if (!fz_get_kit(t, &kit) || fz_chance(t, 10)) {
		if (!fz_kit_make(t, &kit))
			return;
		fz_kit_listen(t, &kit);
	}
	if (fz_chance(t, 20))
		fz_kit_listen(t, &kit);
	fz_kit_connect(t, &kit);
}

/* Sends and RDMA on the kit's endpoints, mostly the newest. */
static void op_kit_send(struct fz_thread *t)
{
	static const __u32 ops[] = {
		DAT_DTO_SEND, DAT_DTO_RDMA_WRITE, DAT_DTO_RDMA_READ,
		DAT_DTO_RECEIVE,
	};
	struct fz_proc *p = t->proc;
	struct fz_kit kit;
	__u32 ep = 0;

	if (!fz_get_kit(t, &kit))
		return;
	pthread_mutex_lock(&p->lock);
	if (p->nkit_eps)
		ep = p->kit_eps[fz_below(t, p->nkit_eps < FZ_POOL ?
					p->nkit_eps : FZ_POOL)];
	pthread_mutex_unlock(&p->lock);
	if (!ep || fz_chance(t, 10))
		ep = fz_pick(t, FZ_EP);
	fz_kit_post(t, ep, &kit.lmr, ops[fz_below(t, 4)], 1 + fz_below(t, 4));
}

const struct fz_op fz_kit_ops[] = {
	{ "kit", 6, op_kit },
	{ "kit_send", 10, op_kit_send },
};

const unsigned int fz_nr_kit_ops = ARRAY_SIZE(fz_kit_ops);
