// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_fuzz: calls that create, use and free objects, with parameters
 * mostly sensible and sometimes not.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>
#include <rdma/kdapl_ioctl.h>

#include "fuzz.h"

/* A reserved field: zero, now and then not (EINVAL expected). */
static __u32 fz_reserved(struct fz_thread *t)
{
	return fz_chance(t, 3) ? fz_rand(t) | 1 : 0;
}

/* The remote connection qualifiers the processes listen on. */
static __u64 fz_conn_qual(struct fz_thread *t)
{
	return fz_chance(t, 95) ? 20000 + fz_below(t, 6) : fz_rand(t);
}

/* Private data: a user pointer and a size, sensible or not. */
static void fz_private_data(struct fz_thread *t, __u64 *ptr, __u32 *size)
{
	*size = fz_chance(t, 50) ? 0 : fz_num(t, 64);
	*ptr = *size || fz_chance(t, 10) ? fz_user_addr(t, *size & 0xffff) : 0;
}

static void op_ia_open(struct fz_thread *t)
{
	struct kdapl_ioc_ia_open a;

	FZ_ARG(a);
	if (fz_chance(t, 95))
		snprintf(a.name, sizeof(a.name), "%s", fz_ia_name);
	else
		memset(a.name, 'A' + fz_below(t, 26), sizeof(a.name));
	a.async_qlen = fz_num(t, 32);
	a.reserved = fz_reserved(t);
	a.async_cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_IA_OPEN, &a) != DAT_SUCCESS)
		return;
	fz_put(t->proc, FZ_IA, a.ia_id);
	fz_put(t->proc, FZ_EVD, a.async_evd_id);
	if (fz_chance(t, 60))
		fz_map_ring(t, a.async_evd_id, a.async_ring_offset,
			    a.async_ring_size, false, 0);
}

static void op_ia_query(struct fz_thread *t)
{
	struct kdapl_ioc_ia_query a;
	struct fz_proc *p = t->proc;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.reserved = fz_reserved(t);
	if (fz_ioctl(t, KDAPL_NR_IA_QUERY, &a) != DAT_SUCCESS)
		return;
	pthread_mutex_lock(&p->lock);
	memcpy(p->addr, a.addr, sizeof(p->addr));
	p->have_addr = true;
	pthread_mutex_unlock(&p->lock);
}

/* A free of one object: @nr with an id of @kind, or of any kind. */
static void fz_free(struct fz_thread *t, unsigned int nr, enum fz_kind kind)
{
	struct kdapl_ioc_obj_free a;

	FZ_ARG(a);
	a.id = fz_pick(t, kind);
	if (nr == KDAPL_NR_IA_CLOSE || nr == KDAPL_NR_EP_DISCONNECT)
		a.flags = fz_chance(t, 90) ? fz_below(t, 2) : fz_rand(t);
	else
		a.flags = fz_reserved(t);
	fz_ioctl(t, nr, &a);
}

static void op_ia_close(struct fz_thread *t)
{
	/* Rarer than the other frees: an IA takes everything with it. */
	if (fz_chance(t, 30))
		fz_free(t, KDAPL_NR_IA_CLOSE, FZ_IA);
}

static void op_pz_create(struct fz_thread *t)
{
	struct kdapl_ioc_pz_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	if (fz_ioctl(t, KDAPL_NR_PZ_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_PZ, a.pz_id);
}

static void op_evd_create(struct fz_thread *t)
{
	static const __u32 flags[] = {
		DAT_EVD_DTO_FLAG, DAT_EVD_CONNECTION_FLAG, DAT_EVD_CR_FLAG,
		DAT_EVD_SOFTWARE_FLAG, DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG,
		DAT_EVD_DTO_FLAG | DAT_EVD_SOFTWARE_FLAG, DAT_EVD_ASYNC_FLAG,
		DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG | DAT_EVD_DTO_FLAG,
	};
	struct kdapl_ioc_evd_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.qlen = fz_num(t, 64);
	a.flags = fz_chance(t, 90) ? flags[fz_below(t, 8)] : fz_rand(t);
	a.cno_id = fz_chance(t, 25) ? fz_pick(t, FZ_CNO) : 0;
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_EVD_CREATE, &a) != DAT_SUCCESS)
		return;
	fz_put(t->proc, FZ_EVD, a.evd_id);
	if (fz_chance(t, 70))
		fz_map_ring(t, a.evd_id, a.ring_offset, a.ring_size, false, 0);
}

/* Resize an EVD, and map its new ring now and then, at the same offset. */
static void op_evd_resize(struct fz_thread *t)
{
	struct kdapl_ioc_evd_resize a;

	FZ_ARG(a);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.qlen = fz_chance(t, 90) ? (__s32)fz_num(t, 300) : (__s32)fz_rand(t);
	a.reserved = fz_reserved(t);
	if (fz_ioctl(t, KDAPL_NR_EVD_RESIZE, &a) == DAT_SUCCESS &&
	    fz_chance(t, 50))
		fz_map_ring(t, a.evd_id, (__u64)a.evd_id * getpagesize(),
			    a.ring_size, false, 0);
}

static void op_evd_wait(struct fz_thread *t)
{
	struct kdapl_ioc_evd_wait a;

	FZ_ARG(a);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.threshold = fz_num(t, 4);
	a.timeout_us = fz_below(t, 2000);
	a.reserved = fz_reserved(t);
	fz_ioctl(t, KDAPL_NR_EVD_WAIT, &a);
}

static void op_evd_post_se(struct fz_thread *t)
{
	struct kdapl_ioc_evd_post_se a;

	FZ_ARG(a);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.reserved = fz_reserved(t);
	a.pointer = fz_rand(t);
	fz_ioctl(t, KDAPL_NR_EVD_POST_SE, &a);
}

static void op_evd_modify(struct fz_thread *t)
{
	const __u32 bits = KDAPL_EVD_DISABLED | KDAPL_EVD_UNWAITABLE;
	struct kdapl_ioc_evd_modify a;

	FZ_ARG(a);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.set = fz_chance(t, 95) ? fz_below(t, bits + 1) : fz_rand(t);
	a.clear = fz_chance(t, 95) ? fz_below(t, bits + 1) & ~a.set :
		fz_rand(t);
	fz_ioctl(t, KDAPL_NR_EVD_MODIFY, &a);
}

static void op_evd_modify_cno(struct fz_thread *t)
{
	struct kdapl_ioc_evd_modify_cno a;

	FZ_ARG(a);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.cno_id = fz_chance(t, 70) ? fz_pick(t, FZ_CNO) : 0;
	fz_ioctl(t, KDAPL_NR_EVD_MODIFY_CNO, &a);
}

/* @n segments of the process's LMRs, some out of range, some garbage. */
static void fz_segments(struct fz_thread *t, struct kdapl_post_sge *seg,
			unsigned int n)
{
	struct fz_lmr lmr;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (fz_pick_lmr(t, &lmr) && fz_chance(t, 80)) {
			seg[i].context = lmr.lmr_context;
			seg[i].virtual_address = lmr.addr + fz_below(t, 64);
			seg[i].segment_length = fz_num(t, lmr.len);
		} else {
			seg[i].context = fz_rand(t);
			seg[i].virtual_address = fz_rand(t);
			seg[i].segment_length = fz_rand(t);
		}
	}
}

static void op_lmr_sync(struct fz_thread *t)
{
	struct kdapl_post_sge seg[8];
	struct kdapl_ioc_lmr_sync a;
	unsigned int n = fz_below(t, 9);

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.flags = fz_chance(t, 95) ? fz_below(t, 2) : fz_rand(t);
	fz_segments(t, seg, n);
	a.segments = fz_chance(t, 90) ? (__u64)(uintptr_t)seg :
		fz_user_addr(t, n * sizeof(seg[0]));
	a.num_segments = fz_chance(t, 95) ? n : fz_rand(t);
	fz_ioctl(t, KDAPL_NR_LMR_SYNC, &a);
}

/*
 * Read the counters of an IA, EP or EVD: one or all, reset or not, into
 * a buffer that holds them or into any user address.
 */
static void op_counters(struct fz_thread *t)
{
	static const struct {
		__u32 type;
		enum fz_kind kind;
	} types[] = {
		{ DAT_HANDLE_TYPE_IA, FZ_IA },
		{ DAT_HANDLE_TYPE_EP, FZ_EP },
		{ DAT_HANDLE_TYPE_EVD, FZ_EVD },
	};
	unsigned int i = fz_below(t, 3);
	struct kdapl_ioc_counters a;
	__u64 values[DCNT_IA_ALL_COUNTERS];

	FZ_ARG(a);
	a.type = fz_chance(t, 95) ? types[i].type : fz_rand(t);
	a.id = fz_pick(t, types[i].kind);
	a.counter = fz_chance(t, 90) ? fz_below(t, DCNT_IA_ALL_COUNTERS + 2) :
				       fz_rand(t);
	a.reset = fz_chance(t, 95) ? fz_below(t, 2) : fz_rand(t);
	a.capacity = fz_chance(t, 90) ? DCNT_IA_ALL_COUNTERS : fz_rand(t);
	a.values = fz_chance(t, 90) ? (__u64)(uintptr_t)values :
		   fz_user_addr(t, sizeof(values));
	fz_ioctl(t, KDAPL_NR_COUNTERS, &a);
}

/*
 * The frees of what a datagram EP resolved: an EP of the process (of any
 * service type) or a made-up id, and small ids (those a datagram EP
 * gives first) or any.
 */
static void op_ud_free(struct fz_thread *t)
{
	struct kdapl_ioc_ud_free a;

	FZ_ARG(a);
	a.ep_id = fz_pick(t, FZ_EP);
	a.id = fz_chance(t, 80) ? fz_below(t, 8) : fz_rand(t);
	fz_ioctl(t, fz_chance(t, 50) ? KDAPL_NR_UD_AH_FREE :
				       KDAPL_NR_UD_CM_FREE, &a);
}

static void op_lmr_create(struct fz_thread *t)
{
	struct kdapl_ioc_lmr_create a;
	struct fz_remote *rem;
	struct fz_lmr lmr;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.pz_id = fz_pick(t, FZ_PZ);
	a.length = fz_chance(t, 85) ? 1 + fz_below(t, 65536) : fz_num(t, 1);
	a.addr = fz_user_addr(t, a.length);
	a.privileges = fz_chance(t, 85) ? DAT_MEM_PRIV_ALL_FLAG : fz_rand(t);
	a.reserved = fz_reserved(t);
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_LMR_CREATE, &a) != DAT_SUCCESS)
		return;
	lmr = (struct fz_lmr){ .id = a.lmr_id, .lmr_context = a.lmr_context,
			       .addr = a.registered_address,
			       .len = a.registered_length };
	fz_put(t->proc, FZ_LMR, a.lmr_id);
	fz_put_lmr(t->proc, &lmr);
	rem = &fz_sh->remotes[fz_below(t, FZ_REMOTES)];
	rem->rmr_context = a.rmr_context;
	rem->addr = a.registered_address;
	rem->len = a.registered_length;
}

/* Endpoint attributes, mostly within what rxe and siw take. */
static void fz_ep_attr(struct fz_thread *t, struct kdapl_ioc_ep_attr *at)
{
	at->service_type = fz_chance(t, 85) ? DAT_SERVICE_TYPE_RC :
			   fz_chance(t, 70) ? DAT_IB_SERVICE_TYPE_UD :
			   fz_rand(t);
	at->qos = fz_chance(t, 90) ? DAT_QOS_BEST_EFFORT : fz_rand(t);
	at->max_message_size = fz_num(t, 1 << 20);
	at->max_rdma_size = fz_num(t, 1 << 20);
	at->recv_completion_flags = fz_chance(t, 80) ? 0 : fz_rand(t) & 0xff;
	at->request_completion_flags = fz_chance(t, 80) ? 0 : fz_rand(t) & 0xff;
	at->max_recv_dtos = fz_num(t, 32);
	at->max_request_dtos = fz_num(t, 32);
	at->max_recv_iov = fz_num(t, 4);
	at->max_request_iov = fz_num(t, 4);
	at->max_rdma_read_in = fz_num(t, 4);
	at->max_rdma_read_out = fz_num(t, 4);
	at->srq_soft_hw = fz_num(t, 2);
	at->max_rdma_read_iov = fz_num(t, 4);
	at->max_rdma_write_iov = fz_num(t, 4);
	at->reserved = fz_reserved(t);
}

static void op_ep_create(struct fz_thread *t)
{
	struct kdapl_ioc_ep_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.pz_id = fz_pick(t, FZ_PZ);
	a.recv_evd_id = fz_chance(t, 90) ? fz_pick(t, FZ_EVD) : 0;
	a.request_evd_id = fz_chance(t, 90) ? fz_pick(t, FZ_EVD) : 0;
	a.connect_evd_id = fz_chance(t, 90) ? fz_pick(t, FZ_EVD) : 0;
	a.cookie = fz_rand(t);
	if (fz_chance(t, 40)) {
		a.flags = fz_chance(t, 95) ? KDAPL_EP_CREATE_ATTR : fz_rand(t);
		fz_ep_attr(t, &a.attr);
	}
	a.srq_id = fz_chance(t, 20) ? fz_pick(t, FZ_SRQ) : 0;
	if (fz_ioctl(t, KDAPL_NR_EP_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_EP, a.ep_id);
}

static void op_ep_modify(struct fz_thread *t)
{
	struct kdapl_ioc_ep_modify a;

	FZ_ARG(a);
	a.ep_id = fz_pick(t, FZ_EP);
	a.pz_id = fz_pick(t, FZ_PZ);
	a.recv_evd_id = fz_pick(t, FZ_EVD);
	a.request_evd_id = fz_pick(t, FZ_EVD);
	a.connect_evd_id = fz_pick(t, FZ_EVD);
	a.reserved = fz_reserved(t);
	a.mask = fz_chance(t, 80) ? fz_rand(t) & DAT_EP_FIELD_ALL : fz_rand(t);
	fz_ep_attr(t, &a.attr);
	fz_ioctl(t, KDAPL_NR_EP_MODIFY, &a);
}

/* The IA's own address, mostly, for a connect; else random bytes. */
static void fz_remote_addr(struct fz_thread *t, __u8 addr[128])
{
	struct fz_proc *p = t->proc;

	pthread_mutex_lock(&p->lock);
	if (p->have_addr && fz_chance(t, 90))
		memcpy(addr, p->addr, 128);
	else
		for (unsigned int i = 0; i < 128; i++)
			addr[i] = fz_rand(t);
	pthread_mutex_unlock(&p->lock);
}

static void op_ep_connect(struct fz_thread *t)
{
	struct kdapl_ioc_ep_connect a;

	FZ_ARG(a);
	a.ep_id = fz_pick(t, FZ_EP);
	a.timeout_us = fz_chance(t, 80) ? 100000 + fz_below(t, 2000000) :
		fz_rand(t);
	a.conn_qual = fz_conn_qual(t);
	fz_remote_addr(t, a.addr);
	fz_private_data(t, &a.private_data, &a.private_data_size);
	a.connect_flags = fz_chance(t, 90) ? DAT_CONNECT_DEFAULT_FLAG :
		fz_rand(t);
	fz_ioctl(t, KDAPL_NR_EP_CONNECT, &a);
}

/* The qualifier goes in the address's port (IPv4 and IPv6 alike). */
static void op_ep_common_connect(struct fz_thread *t)
{
	struct kdapl_ioc_ep_connect a;
	__u16 port = fz_conn_qual(t);

	FZ_ARG(a);
	a.ep_id = fz_pick(t, FZ_EP);
	a.timeout_us = fz_chance(t, 80) ? 100000 + fz_below(t, 2000000) :
		fz_rand(t);
	fz_remote_addr(t, a.addr);
	port = htons(port);
	memcpy(a.addr + 2, &port, sizeof(port));
	fz_private_data(t, &a.private_data, &a.private_data_size);
	if (fz_chance(t, 5))
		a.conn_qual = fz_rand(t);
	fz_ioctl(t, KDAPL_NR_EP_COMMON_CONNECT, &a);
}

static void op_ep_dup_connect(struct fz_thread *t)
{
	struct kdapl_ioc_ep_dup_connect a;

	FZ_ARG(a);
	a.ep_id = fz_pick(t, FZ_EP);
	a.dup_ep_id = fz_pick(t, FZ_EP);
	a.timeout_us = fz_chance(t, 80) ? 100000 + fz_below(t, 2000000) :
		fz_rand(t);
	fz_private_data(t, &a.private_data, &a.private_data_size);
	fz_ioctl(t, KDAPL_NR_EP_DUP_CONNECT, &a);
}

static void op_ep_get_status(struct fz_thread *t)
{
	struct kdapl_ioc_ep_get_status a;

	FZ_ARG(a);
	a.ep_id = fz_pick(t, FZ_EP);
	fz_ioctl(t, KDAPL_NR_EP_GET_STATUS, &a);
}

static void op_ep_query(struct fz_thread *t)
{
	struct kdapl_ioc_ep_query a;

	FZ_ARG(a);
	a.ep_id = fz_pick(t, FZ_EP);
	fz_ioctl(t, KDAPL_NR_EP_QUERY, &a);
}

static void op_psp_create(struct fz_thread *t)
{
	struct kdapl_ioc_psp_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.conn_qual = fz_conn_qual(t);
	a.flags = fz_chance(t, 90) ? fz_below(t, 2) : fz_rand(t);
	a.reserved = fz_reserved(t);
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_PSP_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_PSP, a.psp_id);
}

static void op_psp_create_any(struct fz_thread *t)
{
	struct kdapl_ioc_psp_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.flags = fz_chance(t, 90) ? fz_below(t, 2) : fz_rand(t);
	a.reserved = fz_reserved(t);
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_PSP_CREATE_ANY, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_PSP, a.psp_id);
}

static void op_rsp_create(struct fz_thread *t)
{
	struct kdapl_ioc_rsp_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.ep_id = fz_pick(t, FZ_EP);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.reserved = fz_reserved(t);
	a.conn_qual = fz_conn_qual(t);
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_RSP_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_RSP, a.rsp_id);
}

static void fz_cr_reply(struct fz_thread *t, unsigned int nr)
{
	struct kdapl_ioc_cr_reply a;

	FZ_ARG(a);
	a.cr_id = fz_pick(t, FZ_CR);
	a.ep_id = nr == KDAPL_NR_CR_ACCEPT && fz_chance(t, 90) ?
		fz_pick(t, FZ_EP) : fz_reserved(t);
	fz_private_data(t, &a.private_data, &a.private_data_size);
	a.reserved = fz_reserved(t);
	fz_ioctl(t, nr, &a);
}

static void op_cr_accept(struct fz_thread *t)
{
	fz_cr_reply(t, KDAPL_NR_CR_ACCEPT);
}

static void op_cr_reject(struct fz_thread *t)
{
	fz_cr_reply(t, KDAPL_NR_CR_REJECT);
}

static void op_cr_handoff(struct fz_thread *t)
{
	struct kdapl_ioc_cr_handoff a;

	FZ_ARG(a);
	a.cr_id = fz_pick(t, FZ_CR);
	a.reserved = fz_reserved(t);
	a.conn_qual = fz_conn_qual(t);
	fz_ioctl(t, KDAPL_NR_CR_HANDOFF, &a);
}

/* A descriptor the kernel gave: poll it once, then close it. */
static void fz_poll_close(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (fd < 0)
		return;
	poll(&pfd, 1, 0);
	close(fd);
}

static void op_cno_create(struct fz_thread *t)
{
	struct kdapl_ioc_cno_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.flags = fz_chance(t, 90) ? fz_below(t, 2) : fz_rand(t);
	a.fd = -1;
	if (fz_ioctl(t, KDAPL_NR_CNO_CREATE, &a) != DAT_SUCCESS)
		return;
	fz_put(t->proc, FZ_CNO, a.cno_id);
	if (a.flags & KDAPL_CNO_FD)
		fz_poll_close(a.fd);
}

static void op_cno_wait(struct fz_thread *t)
{
	struct kdapl_ioc_cno_wait a;

	FZ_ARG(a);
	a.cno_id = fz_pick(t, FZ_CNO);
	a.timeout_us = fz_below(t, 2000);
	fz_ioctl(t, KDAPL_NR_CNO_WAIT, &a);
}

static void op_evd_fd(struct fz_thread *t)
{
	struct kdapl_ioc_evd_fd a;

	FZ_ARG(a);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.fd = -1;
	if (fz_ioctl(t, KDAPL_NR_EVD_FD, &a) == DAT_SUCCESS)
		fz_poll_close(a.fd);
}

static void op_srq_create(struct fz_thread *t)
{
	struct kdapl_ioc_srq_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.pz_id = fz_pick(t, FZ_PZ);
	a.max_recv_dtos = fz_num(t, 64);
	a.max_recv_iov = fz_num(t, 8);
	a.low_watermark = fz_num(t, 64);
	a.reserved = fz_reserved(t);
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_SRQ_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_SRQ, a.srq_id);
}

/* A receive into the process's LMRs, or out of them. */
static void op_srq_post(struct fz_thread *t)
{
	struct kdapl_post_sge seg[4];
	struct kdapl_ioc_srq_post a;
	unsigned int n = fz_below(t, 5);

	FZ_ARG(a);
	a.srq_id = fz_pick(t, FZ_SRQ);
	fz_segments(t, seg, n);
	a.segments = fz_chance(t, 90) ? (__u64)(uintptr_t)seg :
		fz_user_addr(t, n * sizeof(seg[0]));
	a.num_segments = fz_chance(t, 95) ? (__s32)n : (__s32)fz_rand(t);
	a.cookie = fz_rand(t);
	fz_ioctl(t, KDAPL_NR_SRQ_POST, &a);
}

static void op_srq_query(struct fz_thread *t)
{
	struct kdapl_ioc_srq_query a;

	FZ_ARG(a);
	a.srq_id = fz_pick(t, FZ_SRQ);
	a.reserved = fz_reserved(t);
	fz_ioctl(t, KDAPL_NR_SRQ_QUERY, &a);
}

/* A resize or a new low watermark. */
static void op_srq_set(struct fz_thread *t)
{
	struct kdapl_ioc_srq_set a;

	FZ_ARG(a);
	a.srq_id = fz_pick(t, FZ_SRQ);
	a.value = fz_chance(t, 90) ? (__s32)fz_num(t, 128) : (__s32)fz_rand(t);
	fz_ioctl(t, fz_chance(t, 50) ? KDAPL_NR_SRQ_RESIZE :
		 KDAPL_NR_SRQ_SET_LW, &a);
}

static void op_rmr_create(struct fz_thread *t)
{
	struct kdapl_ioc_rmr_create a;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.pz_id = fz_pick(t, FZ_PZ);
	a.cookie = fz_rand(t);
	a.reserved = fz_reserved(t);
	if (fz_ioctl(t, KDAPL_NR_RMR_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_RMR, a.rmr_id);
}

static void op_rmr_query(struct fz_thread *t)
{
	struct kdapl_ioc_rmr_query a;

	FZ_ARG(a);
	a.rmr_id = fz_pick(t, FZ_RMR);
	a.reserved = fz_reserved(t);
	fz_ioctl(t, KDAPL_NR_RMR_QUERY, &a);
}

/* A bind over one of the process's LMRs, an unbind, or nonsense. */
static void op_rmr_bind(struct fz_thread *t)
{
	struct kdapl_ioc_rmr_bind a;
	struct kdapl_post_sge seg;

	FZ_ARG(a);
	fz_segments(t, &seg, 1);
	a.rmr_id = fz_pick(t, FZ_RMR);
	a.lmr_id = fz_pick(t, FZ_LMR);
	a.ep_id = fz_pick(t, FZ_EP);
	a.mem_priv = fz_chance(t, 90) ? fz_below(t, 0x80) : fz_rand(t);
	a.virtual_address = seg.virtual_address;
	a.segment_length = fz_chance(t, 20) ? 0 : seg.segment_length;
	a.lmr_context = seg.context;
	a.va_type = fz_chance(t, 90) ? DAT_VA_TYPE_VA : fz_rand(t);
	a.completion_flags = fz_chance(t, 90) ? fz_below(t, 0x20) : fz_rand(t);
	a.cookie = fz_rand(t);
	a.reserved = fz_reserved(t);
	fz_ioctl(t, KDAPL_NR_RMR_BIND, &a);
}

/* A CSP on the wildcard address, or on nonsense. */
static void op_csp_create(struct fz_thread *t)
{
	struct kdapl_ioc_csp_create a;
	struct sockaddr_in *sin = (struct sockaddr_in *)a.addr;
	unsigned int i;
	__u64 r;

	FZ_ARG(a);
	a.ia_id = fz_pick(t, FZ_IA);
	a.evd_id = fz_pick(t, FZ_EVD);
	a.domain = fz_chance(t, 90) ? AF_INET : (__s32)fz_rand(t);
	a.type = fz_chance(t, 90) ? SOCK_STREAM : (__s32)fz_rand(t);
	a.protocol = fz_chance(t, 90) ? 0 : (__s32)fz_rand(t);
	a.reserved = fz_reserved(t);
	if (fz_chance(t, 90)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(20000 + fz_below(t, 64));
	} else {
		for (i = 0; i < sizeof(a.addr); i += sizeof(r)) {
			r = fz_rand(t);
			memcpy(a.addr + i, &r, sizeof(r));
		}
	}
	a.cookie = fz_rand(t);
	if (fz_ioctl(t, KDAPL_NR_CSP_CREATE, &a) == DAT_SUCCESS)
		fz_put(t->proc, FZ_CSP, a.csp_id);
}

#define FZ_FREE_OP(name, nr, kind)					\
	static void op_##name(struct fz_thread *t)			\
	{								\
		fz_free(t, KDAPL_NR_##nr, kind);			\
	}

FZ_FREE_OP(pz_free, PZ_FREE, FZ_PZ)
FZ_FREE_OP(evd_free, EVD_FREE, FZ_EVD)
FZ_FREE_OP(lmr_free, LMR_FREE, FZ_LMR)
FZ_FREE_OP(ep_free, EP_FREE, FZ_EP)
FZ_FREE_OP(ep_reset, EP_RESET, FZ_EP)
FZ_FREE_OP(ep_disconnect, EP_DISCONNECT, FZ_EP)
FZ_FREE_OP(psp_free, PSP_FREE, FZ_PSP)
FZ_FREE_OP(rsp_free, RSP_FREE, FZ_RSP)
FZ_FREE_OP(cno_free, CNO_FREE, FZ_CNO)
FZ_FREE_OP(srq_free, SRQ_FREE, FZ_SRQ)
FZ_FREE_OP(rmr_free, RMR_FREE, FZ_RMR)
FZ_FREE_OP(csp_free, CSP_FREE, FZ_CSP)

const struct fz_op fz_obj_ops[] = {
	{ "ia_open", 3, op_ia_open },
	{ "ia_close", 2, op_ia_close },
	{ "ia_query", 2, op_ia_query },
	{ "pz_create", 4, op_pz_create },
	{ "pz_free", 2, op_pz_free },
	{ "evd_create", 6, op_evd_create },
	{ "evd_free", 2, op_evd_free },
	{ "evd_wait", 3, op_evd_wait },
	{ "evd_post_se", 2, op_evd_post_se },
	{ "evd_modify", 1, op_evd_modify },
	{ "evd_modify_cno", 1, op_evd_modify_cno },
	{ "evd_resize", 1, op_evd_resize },
	{ "lmr_create", 4, op_lmr_create },
	{ "lmr_free", 2, op_lmr_free },
	{ "lmr_sync", 1, op_lmr_sync },
	{ "counters", 1, op_counters },
	{ "ud_free", 1, op_ud_free },
	{ "ep_create", 6, op_ep_create },
	{ "ep_free", 2, op_ep_free },
	{ "ep_reset", 1, op_ep_reset },
	{ "ep_modify", 2, op_ep_modify },
	{ "ep_connect", 4, op_ep_connect },
	{ "ep_dup_connect", 1, op_ep_dup_connect },
	{ "ep_common_connect", 1, op_ep_common_connect },
	{ "ep_disconnect", 2, op_ep_disconnect },
	{ "ep_get_status", 2, op_ep_get_status },
	{ "ep_query", 2, op_ep_query },
	{ "psp_create", 3, op_psp_create },
	{ "psp_create_any", 1, op_psp_create_any },
	{ "psp_free", 1, op_psp_free },
	{ "rsp_create", 1, op_rsp_create },
	{ "rsp_free", 1, op_rsp_free },
	{ "cr_accept", 3, op_cr_accept },
	{ "cr_reject", 2, op_cr_reject },
	{ "cr_handoff", 1, op_cr_handoff },
	{ "cno_create", 1, op_cno_create },
	{ "cno_free", 1, op_cno_free },
	{ "cno_wait", 1, op_cno_wait },
	{ "evd_fd", 1, op_evd_fd },
	{ "srq_create", 2, op_srq_create },
	{ "srq_free", 1, op_srq_free },
	{ "srq_post", 2, op_srq_post },
	{ "srq_query", 1, op_srq_query },
	{ "srq_set", 1, op_srq_set },
	{ "rmr_create", 2, op_rmr_create },
	{ "rmr_free", 1, op_rmr_free },
	{ "rmr_query", 1, op_rmr_query },
	{ "rmr_bind", 2, op_rmr_bind },
	{ "csp_create", 1, op_csp_create },
	{ "csp_free", 1, op_csp_free },
};

const unsigned int fz_nr_obj_ops = ARRAY_SIZE(fz_obj_ops);
