// SPDX-License-Identifier: GPL-2.0
/*
 * The reference half of the kdapl benchmark.  The same traffic as
 * kdapl_bench_dat.c, written the way a kernel ULP writes it
 * with ib_core verbs: rdma_cm on loopback (server and client in this
 * module), one CQ per side polled with IB_POLL_SOFTIRQ (as kdapl's EVDs
 * are), ib_cqe done callbacks, the PD's local_dma_lkey for sends and
 * receives (or, with bench_cfg.raw_mr, fast-registration MRs), a
 * fast-registration MR for the target of RDMA writes, and every request
 * signalled.  Sends and RDMA Writes the QP takes inline are posted
 * inline, as kdapl posts them, unless bench_cfg.raw_inline is off.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/inet.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "kdapl_bench.h"

struct raw_recv {
	struct ib_cqe cqe;
	u32 off;
};

struct raw_side {
	struct raw_bench *rb;
	int side;
	struct rdma_cm_id *id;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;	/* over rbuf: remote writes (and receives) */
	struct ib_mr *smr;	/* over sbuf, with bench_cfg.raw_mr */
	u32 slkey;		/* lkey of sends and writes */
	u32 max_inline;		/* bytes sent inline, with bench_cfg.raw_inline */
	u32 rlkey;		/* lkey of receives */
	u64 sdma;
	u64 rdma;
	struct ib_cqe send_cqe;
	struct ib_cqe reg_cqe;
	struct completion reg_done;
	int reg_status;
	struct raw_recv recv[BENCH_RECV_DEPTH];
	u32 nrecv;
};

struct raw_bench {
	struct bench b;
	struct raw_side s[2];
	struct rdma_cm_id *listen;
	struct ib_pd *pd;
	struct ib_device *dev;
	struct completion resolved;
	struct completion established;
	atomic_t nestablished;
	int cm_error;
	bool use_mr;
	bool use_inline;
};

static struct raw_side *raw_side(struct bench *b, int side)
{
	return &container_of(b, struct raw_bench, b)->s[side];
}

static void raw_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct raw_side *s = container_of(wc->wr_cqe, struct raw_side,
					  send_cqe);

	bench_request_done(&s->rb->b, s->side, wc->status == IB_WC_SUCCESS);
}

static void raw_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct raw_recv *r = container_of(wc->wr_cqe, struct raw_recv, cqe);
	struct raw_side *s = cq->cq_context;

	bench_recv_done(&s->rb->b, s->side, r->off, wc->byte_len,
			wc->status == IB_WC_SUCCESS);
}

static void raw_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct raw_side *s = container_of(wc->wr_cqe, struct raw_side,
					  reg_cqe);

	s->reg_status = wc->status;
	complete(&s->reg_done);
}

/*
 * With raw_inline, messages the QP takes inline are copied by the post
 * from their kernel address, as kdapl does for its virtual LMRs.
 */
static void raw_inline(struct raw_side *s, int side, u32 off, u32 len,
		       struct ib_sge *sge, struct ib_send_wr *wr)
{
	if (len > s->max_inline)
		return;
	sge->addr = (uintptr_t)s->rb->b.sbuf[side] + off;
	wr->send_flags |= IB_SEND_INLINE;
}

static int raw_post_send(struct bench *b, int side, u32 off, u32 len)
{
	struct raw_side *s = raw_side(b, side);
	struct ib_sge sge = {
		.addr = s->sdma + off,
		.length = len,
		.lkey = s->slkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &s->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	raw_inline(s, side, off, len, &sge, &wr);
	return ib_post_send(s->qp, &wr, NULL);
}

static int raw_post_write(struct bench *b, int side, u32 off, u32 len)
{
	struct raw_side *s = raw_side(b, side);
	struct raw_side *peer = raw_side(b, !side);
	struct ib_sge sge = {
		.addr = s->sdma + off,
		.length = len,
		.lkey = s->slkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &s->send_cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = peer->mr->iova + off,
		.rkey = peer->mr->rkey,
	};

	raw_inline(s, side, off, len, &sge, &wr.wr);
	return ib_post_send(s->qp, &wr.wr, NULL);
}

/* Context: process context or this side's CQ handler (one at a time). */
static int raw_post_recv(struct bench *b, int side, u32 off, u32 len)
{
	struct raw_side *s = raw_side(b, side);
	struct raw_recv *r = &s->recv[s->nrecv++ % BENCH_RECV_DEPTH];
	struct ib_sge sge = {
		.addr = s->rdma + off,
		.length = len,
		.lkey = s->rlkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	r->off = off;
	return ib_post_recv(s->qp, &wr, NULL);
}

static const struct bench_ops raw_ops = {
	.post_send = raw_post_send,
	.post_recv = raw_post_recv,
	.post_write = raw_post_write,
};

/* CQ, QP and DMA mappings of a side, on the PD of the bench. */
static int raw_side_create(struct raw_bench *rb, struct raw_side *s,
			   struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = BENCH_QP_DEPTH,
			.max_recv_wr = BENCH_QP_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_device *dev = rb->dev;
	int i, ret;

	s->id = id;
	s->sdma = ib_dma_map_single(dev, rb->b.sbuf[s->side], BENCH_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, s->sdma)) {
		s->sdma = 0;
		return -ENOMEM;
	}
	s->rdma = ib_dma_map_single(dev, rb->b.rbuf[s->side], BENCH_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, s->rdma)) {
		s->rdma = 0;
		return -ENOMEM;
	}
	s->cq = ib_alloc_cq(dev, s, BENCH_CQ_DEPTH, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(s->cq)) {
		ret = PTR_ERR(s->cq);
		s->cq = NULL;
		return ret;
	}
	attr.send_cq = s->cq;
	attr.recv_cq = s->cq;
	/* As much inline as kdapl's QPs get from rxe (4 SGEs' worth). */
	if (rb->use_inline)
		attr.cap.max_inline_data = BENCH_INLINE;
	attr.qp_context = s;
	ret = rdma_create_qp(id, rb->pd, &attr);
	if (ret)
		return ret;
	s->qp = id->qp;
	s->max_inline = rb->use_inline ? attr.cap.max_inline_data : 0;
	s->mr = ib_alloc_mr(rb->pd, IB_MR_TYPE_MEM_REG,
			    BENCH_BUF_SIZE >> PAGE_SHIFT);
	if (IS_ERR(s->mr)) {
		ret = PTR_ERR(s->mr);
		s->mr = NULL;
		return ret;
	}
	if (rb->use_mr) {
		s->smr = ib_alloc_mr(rb->pd, IB_MR_TYPE_MEM_REG,
				     BENCH_BUF_SIZE >> PAGE_SHIFT);
		if (IS_ERR(s->smr)) {
			ret = PTR_ERR(s->smr);
			s->smr = NULL;
			return ret;
		}
	}
	s->slkey = rb->pd->local_dma_lkey;
	s->rlkey = rb->pd->local_dma_lkey;
	s->send_cqe.done = raw_send_done;
	s->reg_cqe.done = raw_reg_done;
	for (i = 0; i < BENCH_RECV_DEPTH; i++)
		s->recv[i].cqe.done = raw_recv_done;
	init_completion(&s->reg_done);
	return 0;
}

/* Register @mr over the buffer at @dma (IB_WR_REG_MR) and wait. */
static int raw_register(struct raw_side *s, struct ib_mr *mr, u64 dma,
			int access)
{
	struct scatterlist sg;
	struct ib_reg_wr wr = {
		.wr = {
			.wr_cqe = &s->reg_cqe,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = mr,
		.access = access,
	};
	int n, ret;

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = dma;
	sg_dma_len(&sg) = BENCH_BUF_SIZE;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1)
		return n < 0 ? n : -EINVAL;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.key = mr->rkey;
	reinit_completion(&s->reg_done);
	ret = ib_post_send(s->qp, &wr.wr, NULL);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&s->reg_done, 10 * HZ))
		return -ETIMEDOUT;
	return s->reg_status == IB_WC_SUCCESS ? 0 : -EIO;
}

/*
 * The target buffer takes remote writes through an MR; with raw_mr the
 * source buffer gets one too, and both MRs' lkeys replace the PD's
 * local_dma_lkey (as kdapl's LMRs do).
 */
static int raw_side_register(struct raw_side *s)
{
	int ret;

	ret = raw_register(s, s->mr, s->rdma,
			   IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (ret || !s->smr)
		return ret;
	ret = raw_register(s, s->smr, s->sdma, 0);
	if (ret)
		return ret;
	s->slkey = s->smr->lkey;
	s->rlkey = s->mr->lkey;
	return 0;
}

static struct rdma_conn_param raw_conn_param = {
	.responder_resources = 1,
	.initiator_depth = 1,
	.retry_count = 7,
	.rnr_retry_count = 7,
};

static int raw_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct raw_bench *rb = id->context;
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, 2000);
		if (ret) {
			rb->cm_error = ret;
			complete(&rb->resolved);
		}
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		complete(&rb->resolved);
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/* Accept from the handler: rdma_accept() wants its lock. */
		if (rb->s[BENCH_SERVER].id || !rb->pd) {
			rb->cm_error = -EBUSY;
			return -EBUSY;
		}
		ret = raw_side_create(rb, &rb->s[BENCH_SERVER], id);
		if (!ret)
			ret = rdma_accept(id, &raw_conn_param);
		if (ret) {
			/* The CM destroys the id: forget it, keep the rest. */
			struct raw_side *s = &rb->s[BENCH_SERVER];

			if (s->qp)
				rdma_destroy_qp(id);
			s->qp = NULL;
			s->id = NULL;
			rb->cm_error = ret;
			complete(&rb->established);
			return ret;
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (atomic_inc_return(&rb->nestablished) == 2)
			complete(&rb->established);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		rb->cm_error = ev->status ? ev->status : -EHOSTUNREACH;
		complete(&rb->resolved);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		rb->cm_error = ev->status ? ev->status : -ECONNREFUSED;
		complete(&rb->established);
		break;
	default:
		break;
	}
	return 0;
}

static int raw_connect(struct raw_bench *rb, const struct bench_cfg *cfg)
{
	struct raw_side *c = &rb->s[BENCH_CLIENT];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	int ret;

	if (!in4_pton(cfg->ip, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	sin.sin_port = htons(cfg->raw_port);

	id = rdma_create_id(&init_net, raw_cm_handler, rb, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	rb->listen = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 4);
	if (ret)
		return ret;

	id = rdma_create_id(&init_net, raw_cm_handler, rb, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	c->id = id;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 2000);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&rb->resolved, 10 * HZ))
		return -ETIMEDOUT;
	if (rb->cm_error)
		return rb->cm_error;

	rb->dev = id->device;
	rb->pd = ib_alloc_pd(rb->dev, 0);
	if (IS_ERR(rb->pd)) {
		ret = PTR_ERR(rb->pd);
		rb->pd = NULL;
		return ret;
	}
	ret = raw_side_create(rb, c, id);
	if (ret)
		return ret;
	ret = rdma_connect(id, &raw_conn_param);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&rb->established, 10 * HZ))
		return -ETIMEDOUT;
	if (rb->cm_error)
		return rb->cm_error;
	ret = raw_side_register(c);
	if (!ret)
		ret = raw_side_register(&rb->s[BENCH_SERVER]);
	return ret;
}

static void raw_side_destroy(struct raw_bench *rb, struct raw_side *s)
{
	if (s->qp) {
		/* Nothing was posted before the connection was up. */
		if (atomic_read(&rb->nestablished) == 2)
			ib_drain_qp(s->qp);
		rdma_destroy_qp(s->id);
	}
	if (s->mr)
		ib_dereg_mr(s->mr);
	if (s->smr)
		ib_dereg_mr(s->smr);
	if (s->cq)
		ib_free_cq(s->cq);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->sdma)
		ib_dma_unmap_single(rb->dev, s->sdma, BENCH_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
	if (s->rdma)
		ib_dma_unmap_single(rb->dev, s->rdma, BENCH_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
}

static void raw_teardown(struct raw_bench *rb)
{
	if (rb->s[BENCH_CLIENT].qp)
		rdma_disconnect(rb->s[BENCH_CLIENT].id);
	if (rb->listen)
		rdma_destroy_id(rb->listen);
	raw_side_destroy(rb, &rb->s[BENCH_CLIENT]);
	raw_side_destroy(rb, &rb->s[BENCH_SERVER]);
	if (rb->pd)
		ib_dealloc_pd(rb->pd);
}

/**
 * bench_raw_open() - connect the raw half
 * @cfg: address and port
 *
 * Context: process context.
 * Return: the connected benchmark, or an ERR_PTR().
 */
struct bench *bench_raw_open(const struct bench_cfg *cfg)
{
	struct raw_bench *rb;
	int ret;

	rb = kzalloc(sizeof(*rb), GFP_KERNEL);
	if (!rb)
		return ERR_PTR(-ENOMEM);
	init_completion(&rb->resolved);
	init_completion(&rb->established);
	rb->use_mr = cfg->raw_mr;
	rb->use_inline = cfg->raw_inline;
	rb->s[BENCH_CLIENT].rb = rb;
	rb->s[BENCH_CLIENT].side = BENCH_CLIENT;
	rb->s[BENCH_SERVER].rb = rb;
	rb->s[BENCH_SERVER].side = BENCH_SERVER;

	ret = bench_init(&rb->b, "raw", &raw_ops);
	if (!ret)
		ret = raw_connect(rb, cfg);
	if (ret) {
		pr_err("kdapl_bench: raw: connection failed: %d\n", ret);
		bench_raw_close(&rb->b);
		return ERR_PTR(ret);
	}
	return &rb->b;
}

/**
 * bench_raw_close() - disconnect the raw half and free it
 * @b: from bench_raw_open()
 *
 * Context: process context.
 */
void bench_raw_close(struct bench *b)
{
	struct raw_bench *rb = container_of(b, struct raw_bench, b);

	raw_teardown(rb);
	bench_free_bufs(b);
	kfree(rb);
}
