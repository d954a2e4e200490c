// SPDX-License-Identifier: GPL-2.0
/*
 * The kDAT half of the kdapl benchmark, and the data mover of "make
 * demo".  The same traffic as kdapl_bench_raw.c through
 * the DAT API: dat_ia_open(), one PZ, per side one DTO EVD (receive and
 * request streams) with a DAT_UPCALL_SINGLE_INSTANCE upcall, a connection
 * EVD, LMRs over the same buffers, a PSP and dat_cr_accept() on the
 * server side, dat_ep_connect() on the client side, and
 * dat_ep_post_send() / dat_ep_post_recv() / dat_ep_post_rdma_write() with
 * every request completing to its EVD.
 *
 * bench_dat_demo() moves some MiB with send/recv and RDMA write, checks
 * every byte, and prints what it moved and how fast.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <rdma/kdat.h>

#include "kdapl_bench.h"

/* Cookies: the offset of the buffer, and this bit for receives. */
#define DAT_BENCH_RECV	BIT_ULL(32)

struct dat_side {
	struct dat_bench *db;
	int side;
	DAT_EVD_HANDLE dto_evd;
	DAT_EVD_HANDLE conn_evd;
	DAT_EP_HANDLE ep;
	DAT_LMR_HANDLE slmr;
	DAT_LMR_HANDLE rlmr;
	DAT_LMR_CONTEXT sctx;
	DAT_LMR_CONTEXT rctx;
	DAT_RMR_CONTEXT rkey;
	DAT_VADDR saddr;
	DAT_VADDR raddr;
};

struct dat_bench {
	struct bench b;
	struct dat_side s[2];
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async_evd;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
};

static struct dat_side *dat_side(struct bench *b, int side)
{
	return &container_of(b, struct dat_bench, b)->s[side];
}

static int dat_errno(DAT_RETURN ret)
{
	switch (DAT_GET_TYPE(ret)) {
	case DAT_SUCCESS:
		return 0;
	case DAT_INSUFFICIENT_RESOURCES:
		return -ENOMEM;
	case DAT_QUEUE_FULL:
		return -ENOSPC;
	default:
		return -EIO;
	}
}

static int dat_post_send(struct bench *b, int side, u32 off, u32 len)
{
	struct dat_side *s = dat_side(b, side);
	DAT_LMR_TRIPLET iov = {
		.virtual_address = s->saddr + off,
		.segment_length = len,
		.lmr_context = s->sctx,
	};
	DAT_DTO_COOKIE cookie = { .as_64 = off };

	return dat_errno(dat_ep_post_send(s->ep, 1, &iov, cookie,
					  DAT_COMPLETION_DEFAULT_FLAG));
}

static int dat_post_write(struct bench *b, int side, u32 off, u32 len)
{
	struct dat_side *s = dat_side(b, side);
	struct dat_side *peer = dat_side(b, !side);
	DAT_LMR_TRIPLET iov = {
		.virtual_address = s->saddr + off,
		.segment_length = len,
		.lmr_context = s->sctx,
	};
	DAT_RMR_TRIPLET riov = {
		.virtual_address = peer->raddr + off,
		.segment_length = len,
		.rmr_context = peer->rkey,
	};
	DAT_DTO_COOKIE cookie = { .as_64 = off };

	return dat_errno(dat_ep_post_rdma_write(s->ep, 1, &iov, cookie, &riov,
						DAT_COMPLETION_DEFAULT_FLAG));
}

static int dat_post_recv(struct bench *b, int side, u32 off, u32 len)
{
	struct dat_side *s = dat_side(b, side);
	DAT_LMR_TRIPLET iov = {
		.virtual_address = s->raddr + off,
		.segment_length = len,
		.lmr_context = s->rctx,
	};
	DAT_DTO_COOKIE cookie = { .as_64 = DAT_BENCH_RECV | off };

	return dat_errno(dat_ep_post_recv(s->ep, 1, &iov, cookie,
					  DAT_COMPLETION_DEFAULT_FLAG));
}

static const struct bench_ops dat_ops = {
	.post_send = dat_post_send,
	.post_recv = dat_post_recv,
	.post_write = dat_post_write,
};

/* DTO completions of a side: softirq, one upcall at a time. */
static void dat_dto_upcall(DAT_PVOID instance, const DAT_EVENT *ev,
			   DAT_BOOLEAN more)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	struct dat_side *s = instance;
	bool ok = ev->event_number == DAT_DTO_COMPLETION_EVENT &&
		  d->status == DAT_DTO_SUCCESS;
	u64 cookie = d->user_cookie.as_64;

	if (cookie & DAT_BENCH_RECV)
		bench_recv_done(&s->db->b, s->side, (u32)cookie,
				d->transfered_length, ok);
	else
		bench_request_done(&s->db->b, s->side, ok);
}

/* Wait for an event on an EVD without upcalls. */
static int dat_wait_event(DAT_EVD_HANDLE evd, DAT_EVENT *ev,
			  unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	DAT_RETURN ret;

	for (;;) {
		ret = dat_evd_dequeue(evd, ev);
		if (ret == DAT_SUCCESS)
			return 0;
		if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
			return dat_errno(ret);
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(500, 1000);
	}
}

static int dat_lmr(struct dat_bench *db, void *buf, DAT_MEM_PRIV_FLAGS priv,
		   DAT_LMR_HANDLE *lmr, DAT_LMR_CONTEXT *ctx,
		   DAT_RMR_CONTEXT *rkey, DAT_VADDR *addr)
{
	DAT_REGION_DESCRIPTION region = { .for_va = buf };
	DAT_VLEN len;

	return dat_errno(dat_lmr_kcreate(db->ia, DAT_MEM_TYPE_VIRTUAL, region,
					 BENCH_BUF_SIZE, db->pz, priv,
					 DAT_VA_TYPE_VA,
					 DAT_MEM_OPTIMIZE_DONT_CARE, lmr, ctx,
					 rkey, &len, addr));
}

static int dat_side_create(struct dat_bench *db, struct dat_side *s)
{
	DAT_UPCALL_OBJECT upcall = {
		.instance_data = s,
		.upcall_func = dat_dto_upcall,
	};
	DAT_RMR_CONTEXT unused;
	DAT_RETURN dr;
	int ret;

	dr = dat_evd_kcreate(db->ia, BENCH_CQ_DEPTH,
			     DAT_UPCALL_SINGLE_INSTANCE, &upcall,
			     DAT_EVD_DTO_FLAG, &s->dto_evd);
	if (dr == DAT_SUCCESS)
		dr = dat_evd_kcreate(db->ia, 8, DAT_UPCALL_DISABLE, NULL,
				     DAT_EVD_CONNECTION_FLAG, &s->conn_evd);
	if (dr != DAT_SUCCESS) {
		pr_err("kdapl_bench: dat_evd_kcreate: %#x\n", dr);
		return dat_errno(dr);
	}
	ret = dat_lmr(db, db->b.sbuf[s->side], DAT_MEM_PRIV_LOCAL_READ_FLAG,
		      &s->slmr, &s->sctx, &unused, &s->saddr);
	if (!ret)
		ret = dat_lmr(db, db->b.rbuf[s->side],
			      DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
			      DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
			      &s->rlmr, &s->rctx, &s->rkey, &s->raddr);
	if (ret) {
		pr_err("kdapl_bench: dat_lmr_kcreate: %d\n", ret);
		return ret;
	}
	/* Provider defaults: 64 receives and requests, 1 MiB messages. */
	dr = dat_ep_create(db->ia, db->pz, s->dto_evd, s->dto_evd,
			   s->conn_evd, NULL, &s->ep);
	if (dr != DAT_SUCCESS) {
		pr_err("kdapl_bench: dat_ep_create: %#x\n", dr);
		return dat_errno(dr);
	}
	return 0;
}

static int dat_expect_established(struct dat_side *s)
{
	DAT_EVENT ev;
	int ret;

	ret = dat_wait_event(s->conn_evd, &ev, 10000);
	if (ret)
		return ret;
	if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED) {
		pr_err("kdapl_bench: side %d: connection event %#x\n",
		       s->side, ev.event_number);
		return -ECONNREFUSED;
	}
	return 0;
}

static int dat_connect(struct dat_bench *db, const struct bench_cfg *cfg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	DAT_CR_ARRIVAL_EVENT_DATA *cr;
	DAT_EVENT ev;
	DAT_RETURN dr;
	int ret;

	if (!in4_pton(cfg->ip, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;

	dr = dat_ia_open(cfg->ia_name, 16, &db->async_evd, &db->ia);
	if (dr != DAT_SUCCESS) {
		pr_err("kdapl_bench: dat_ia_open(%s): %#x\n", cfg->ia_name,
		       dr);
		return dat_errno(dr);
	}
	dr = dat_pz_create(db->ia, &db->pz);
	if (dr == DAT_SUCCESS)
		dr = dat_evd_kcreate(db->ia, 8, DAT_UPCALL_DISABLE, NULL,
				     DAT_EVD_CR_FLAG, &db->cr_evd);
	if (dr != DAT_SUCCESS)
		return dat_errno(dr);
	ret = dat_side_create(db, &db->s[BENCH_CLIENT]);
	if (!ret)
		ret = dat_side_create(db, &db->s[BENCH_SERVER]);
	if (ret)
		return ret;

	dr = dat_psp_create(db->ia, cfg->dat_port, db->cr_evd, DAT_PSP_CONSUMER_FLAG,
			    &db->psp);
	if (dr != DAT_SUCCESS) {
		pr_err("kdapl_bench: dat_psp_create: %#x\n", dr);
		return dat_errno(dr);
	}
	dr = dat_ep_connect(db->s[BENCH_CLIENT].ep, (struct sockaddr *)&sin,
			    cfg->dat_port, 10 * USEC_PER_SEC, 0, NULL,
			    DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (dr != DAT_SUCCESS) {
		pr_err("kdapl_bench: dat_ep_connect: %#x\n", dr);
		return dat_errno(dr);
	}
	ret = dat_wait_event(db->cr_evd, &ev, 10000);
	if (ret || ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		pr_err("kdapl_bench: no connection request (%d, %#x)\n", ret,
		       ret ? 0 : ev.event_number);
		return ret ? ret : -EPROTO;
	}
	cr = &ev.event_data.cr_arrival_event_data;
	dr = dat_cr_accept(cr->cr_handle, db->s[BENCH_SERVER].ep, 0, NULL);
	if (dr != DAT_SUCCESS) {
		pr_err("kdapl_bench: dat_cr_accept: %#x\n", dr);
		return dat_errno(dr);
	}
	ret = dat_expect_established(&db->s[BENCH_SERVER]);
	if (!ret)
		ret = dat_expect_established(&db->s[BENCH_CLIENT]);
	return ret;
}

static void dat_teardown(struct dat_bench *db)
{
	DAT_EP_STATE state;
	DAT_EVENT ev;
	DAT_RETURN dr;
	int i;

	if (!db->ia)
		return;
	if (db->s[BENCH_CLIENT].ep &&
	    dat_ep_get_status(db->s[BENCH_CLIENT].ep, &state, NULL,
			      NULL) == DAT_SUCCESS &&
	    state == DAT_EP_STATE_CONNECTED &&
	    dat_ep_disconnect(db->s[BENCH_CLIENT].ep,
			      DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS) {
		for (i = 0; i < 2; i++)
			if (dat_wait_event(db->s[i].conn_evd, &ev, 5000))
				pr_warn("kdapl_bench: side %d: no disconnect event\n",
					i);
	}
	/* Abrupt: frees whatever is left, in dependency order. */
	dr = dat_ia_close(db->ia, DAT_CLOSE_ABRUPT_FLAG);
	if (dr != DAT_SUCCESS)
		pr_err("kdapl_bench: dat_ia_close: %#x\n", dr);
	db->ia = DAT_HANDLE_NULL;
}

/* Print a demo line: what moved, how long it took. */
static void dat_demo_report(const char *what, u64 bytes, u32 msgs, u32 size,
			    u64 ns)
{
	u64 kbps = div64_u64(bytes * 1000000ULL, max(ns, 1ULL));	/* kB/s */

	pr_info("KDAPL-DEMO %s: %llu bytes in %u messages of %u bytes, verified, %llu.%03llu MB/s\n",
		what, bytes, msgs, size, kbps / 1000, kbps % 1000);
}

/**
 * bench_dat_demo() - move data through kDAT and check it
 * @b: from bench_dat_open()
 * @mib: MiB moved by each operation
 *
 * Send/recv of @mib MiB in 64 KiB messages with the content of every
 * message checked at the receiver; then RDMA writes of the whole 1 MiB
 * buffer, @mib times, each pass with its own pattern checked in the
 * target buffer.  Prints one KDAPL-DEMO line per operation.
 *
 * Context: process context.
 * Return: 0, or a negative errno (-EBADMSG: the data differed).
 */
int bench_dat_demo(struct bench *b, u32 mib)
{
	u32 size = SZ_64K, msgs, pass, passes = max(mib, 1U);
	u64 ns, total = 0;
	int ret;

	/* Receive slots must not be reused while posted: 16 of 64 KiB. */
	b->window = 8;
	b->rdepth = BENCH_BUF_SIZE / size;
	b->verify = true;
	msgs = passes * (BENCH_BUF_SIZE / size);
	ret = bench_rate(b, BENCH_OP_SEND, size, msgs, &ns);
	if (ret) {
		pr_err("kdapl_bench: demo send/recv: %d\n", ret);
		return ret;
	}
	dat_demo_report("send/recv", (u64)msgs * size, msgs, size, ns);

	/* Every pass writes the whole buffer once: 16 writes of 64 KiB. */
	b->verify = false;
	b->window = 16;
	for (pass = 0; pass < passes; pass++) {
		bench_fill(b->sbuf[BENCH_CLIENT], BENCH_BUF_SIZE, pass + 1);
		ret = bench_rate(b, BENCH_OP_WRITE, size,
				 BENCH_BUF_SIZE / size, &ns);
		if (ret) {
			pr_err("kdapl_bench: demo RDMA write: %d\n", ret);
			return ret;
		}
		total += ns;
		/* The check must tell this pass from any other. */
		if (bench_differs(b->rbuf[BENCH_SERVER], BENCH_BUF_SIZE,
				  pass + 1) ||
		    !bench_differs(b->rbuf[BENCH_SERVER], BENCH_BUF_SIZE,
				   pass + 2)) {
			pr_err("kdapl_bench: demo RDMA write: pass %u: target differs\n",
			       pass);
			return -EBADMSG;
		}
	}
	msgs = passes * (BENCH_BUF_SIZE / size);
	dat_demo_report("RDMA write", (u64)msgs * size, msgs, size, total);
	return 0;
}

/**
 * bench_dat_open() - connect the kDAT half
 * @cfg: IA, address and connection qualifier
 *
 * Context: process context.
 * Return: the connected benchmark, or an ERR_PTR().
 */
struct bench *bench_dat_open(const struct bench_cfg *cfg)
{
	struct dat_bench *db;
	int ret;

	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return ERR_PTR(-ENOMEM);
	db->s[BENCH_CLIENT].db = db;
	db->s[BENCH_CLIENT].side = BENCH_CLIENT;
	db->s[BENCH_SERVER].db = db;
	db->s[BENCH_SERVER].side = BENCH_SERVER;

	ret = bench_init(&db->b, "kdapl", &dat_ops);
	if (!ret)
		ret = dat_connect(db, cfg);
	if (ret) {
		pr_err("kdapl_bench: kdapl: connection failed: %d\n", ret);
		bench_dat_close(&db->b);
		return ERR_PTR(ret);
	}
	return &db->b;
}

/**
 * bench_dat_close() - disconnect the kDAT half and free it
 * @b: from bench_dat_open()
 *
 * Context: process context.
 */
void bench_dat_close(struct bench *b)
{
	struct dat_bench *db = container_of(b, struct dat_bench, b);

	dat_teardown(db);
	bench_free_bufs(b);
	kfree(db);
}
