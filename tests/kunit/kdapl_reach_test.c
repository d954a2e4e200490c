// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for what the device and the peer can reach, on loopback
 * connections: an LMR freed with receives posted or held moves no byte
 * into the memory its consumer owns again; an RMR unbind takes effect
 * when it completes, and a flushed one still leaves its old context
 * unusable; peers get remote write only where it was asked for; the sink
 * of dat_ep_post_rdma_read_to_rmr() is checked as an RMR, never used as
 * a raw key.  Every case checks the memory itself (a poison pattern) as
 * well as the statuses; KASAN watches the freed buffers.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "kdapl_test_util.h"

/* Qualifiers no other suite listens on. */
#define REACH_QUAL		47300

#define REACH_LEN		PAGE_SIZE
#define REACH_MSG		256	/* above any inline size */
#define REACH_POISON		0xa5
#define REACH_DATA		0x11

/**
 * struct reach_env - a connected pair and what its cases need
 * @test: the test
 * @p: the pair: the client in @p.pz, the server in @p.spz
 * @cdto: DTO and RMR bind completions of the client
 * @sdto: DTO and RMR bind completions of the server
 * @async: the async EVD of the IA
 * @cbuf: a page of the client, in @clmr
 * @clmr: the client's LMR, all privileges
 * @cctx: its lmr_context
 * @crctx: its rmr_context
 * @iwarp: the adapter is iWARP
 */
struct reach_env {
	struct kunit *test;
	struct kdapl_test_pair p;
	DAT_EVD_HANDLE cdto, sdto, async;
	u8 *cbuf;
	DAT_LMR_HANDLE clmr;
	DAT_LMR_CONTEXT cctx;
	DAT_RMR_CONTEXT crctx;
	bool iwarp;
};

static DAT_LMR_HANDLE reach_lmr(struct reach_env *env, DAT_PZ_HANDLE pz,
				void *buf, DAT_MEM_PRIV_FLAGS priv,
				DAT_LMR_CONTEXT *ctx, DAT_RMR_CONTEXT *rctx)
{
	return kdapl_test_lmr(env->test, env->p.ia, pz, buf, REACH_LEN, priv,
			      ctx, rctx);
}

static void *reach_page(struct reach_env *env, int fill)
{
	void *buf = kunit_kmalloc(env->test, REACH_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(env->test, buf);
	memset(buf, fill, REACH_LEN);
	return buf;
}

static DAT_EP_HANDLE reach_ep(struct reach_env *env, DAT_PZ_HANDLE pz,
			      DAT_EVD_HANDLE dto, DAT_EVD_HANDLE conn,
			      DAT_SRQ_HANDLE srq)
{
	DAT_EP_HANDLE ep;

	if (srq)
		KUNIT_ASSERT_EQ(env->test,
				dat_ep_create_with_srq(env->p.ia, pz, dto, dto,
						       conn, srq, NULL, &ep),
				DAT_SUCCESS);
	else
		KUNIT_ASSERT_EQ(env->test,
				dat_ep_create(env->p.ia, pz, dto, dto, conn,
					      NULL, &ep),
				DAT_SUCCESS);
	return ep;
}

/*
 * Open the IA and make the objects of a pair, unconnected; @srq, if
 * not NULL, gets an SRQ of the server's PZ for the server EP.
 */
static void reach_env_init(struct kunit *test, struct reach_env *env,
			   DAT_SRQ_HANDLE *srq)
{
	DAT_SRQ_ATTR sattr = { .max_recv_dtos = 8, .max_recv_iov = 1 };
	DAT_PROVIDER_ATTR pattr;
	DAT_IA_ATTR attr;

	memset(env, 0, sizeof(*env));
	env->test = test;
	kdapl_test_pair_init(test, &env->p, REACH_QUAL);
	env->iwarp = kdapl_test_iwarp(test);
	KUNIT_ASSERT_EQ(test, dat_ia_query(env->p.ia, &env->async, 0, &attr,
					   0, &pattr),
			DAT_SUCCESS);
	env->cdto = kdapl_test_evd(test, env->p.ia, 64, DAT_EVD_DTO_FLAG |
				   DAT_EVD_RMR_BIND_FLAG);
	env->sdto = kdapl_test_evd(test, env->p.ia, 64, DAT_EVD_DTO_FLAG |
				   DAT_EVD_RMR_BIND_FLAG);
	if (srq)
		KUNIT_ASSERT_EQ(test, dat_srq_create(env->p.ia, env->p.spz,
						     &sattr, srq),
				DAT_SUCCESS);
	env->p.cli = reach_ep(env, env->p.pz, env->cdto, env->p.conn, NULL);
	env->p.srv = reach_ep(env, env->p.spz, env->sdto, env->p.sconn,
			      srq ? *srq : NULL);
	env->cbuf = reach_page(env, REACH_DATA);
	env->clmr = reach_lmr(env, env->p.pz, env->cbuf, DAT_MEM_PRIV_ALL_FLAG,
			      &env->cctx, &env->crctx);
}

/* The next event of @evd, which must come. */
static void reach_event(struct reach_env *env, DAT_EVD_HANDLE evd,
			DAT_EVENT *ev)
{
	KUNIT_ASSERT_TRUE_MSG(env->test,
			      kdapl_test_wait(evd, ev, KDAPL_TEST_WAIT_MS),
			      "no event");
}

/* The next event of @evd is the DTO completion of @cookie: its status. */
static DAT_DTO_COMPLETION_STATUS reach_dto(struct reach_env *env,
					   DAT_EVD_HANDLE evd, u64 cookie,
					   DAT_VLEN *length)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	reach_event(env, evd, &ev);
	KUNIT_ASSERT_EQ(env->test, ev.event_number, DAT_DTO_COMPLETION_EVENT);
	d = &ev.event_data.dto_completion_event_data;
	KUNIT_EXPECT_EQ(env->test, d->user_cookie.as_64, cookie);
	if (length)
		*length = d->transfered_length;
	return d->status;
}

/* The next event of @evd is the RMR bind completion of @cookie. */
static DAT_DTO_COMPLETION_STATUS reach_bind_done(struct reach_env *env,
						 DAT_EVD_HANDLE evd,
						 DAT_RMR_HANDLE rmr,
						 u64 cookie)
{
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	reach_event(env, evd, &ev);
	KUNIT_ASSERT_EQ(env->test, ev.event_number,
			DAT_RMR_BIND_COMPLETION_EVENT);
	d = &ev.event_data.rmr_completion_event_data;
	KUNIT_EXPECT_PTR_EQ(env->test, d->rmr_handle, rmr);
	KUNIT_EXPECT_EQ(env->test, d->user_cookie.as_64, cookie);
	return d->status;
}

/* Post a send of REACH_MSG bytes of the client's page on @ep. */
static DAT_RETURN reach_send(struct reach_env *env, DAT_EP_HANDLE ep,
			     u64 cookie)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = env->cctx,
		.virtual_address = (uintptr_t)env->cbuf,
		.segment_length = REACH_MSG,
	};

	return dat_ep_post_send(ep, 1, &t, (DAT_DTO_COOKIE)cookie, 0);
}

/* Post a receive of REACH_MSG bytes into @buf, of the LMR @ctx. */
static DAT_RETURN reach_recv(DAT_EP_HANDLE ep, void *buf,
			     DAT_LMR_CONTEXT ctx, u64 cookie)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = ctx,
		.virtual_address = (uintptr_t)buf,
		.segment_length = REACH_MSG,
	};

	return dat_ep_post_recv(ep, 1, &t, (DAT_DTO_COOKIE)cookie, 0);
}

/* An RDMA Write of REACH_MSG bytes of the client's page to a window. */
static DAT_RETURN reach_write(struct reach_env *env, DAT_EP_HANDLE ep,
			      DAT_RMR_CONTEXT rctx, void *to, u64 cookie)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = env->cctx,
		.virtual_address = (uintptr_t)env->cbuf,
		.segment_length = REACH_MSG,
	};
	DAT_RMR_TRIPLET r = {
		.rmr_context = rctx,
		.virtual_address = (uintptr_t)to,
		.segment_length = REACH_MSG,
	};

	return dat_ep_post_rdma_write(ep, 1, &t, (DAT_DTO_COOKIE)cookie, &r,
				      0);
}

/*
 * The client sends to a server that must not receive it: the send is
 * refused (the connection already went) or completes in error.
 */
static void reach_send_fails(struct reach_env *env, u64 cookie)
{
	DAT_RETURN ret = reach_send(env, env->p.cli, cookie);

	if (ret == DAT_SUCCESS)
		KUNIT_EXPECT_NE(env->test,
				reach_dto(env, env->cdto, cookie, NULL),
				DAT_DTO_SUCCESS);
	else
		KUNIT_EXPECT_EQ(env->test, DAT_GET_TYPE(ret),
				(DAT_UINT32)DAT_INVALID_STATE);
}

/* The next connection event of @evd for @ep breaks its connection. */
static void reach_expect_broken(struct reach_env *env, DAT_EVD_HANDLE evd,
				DAT_EP_HANDLE ep)
{
	DAT_EVENT ev;

	reach_event(env, evd, &ev);
	KUNIT_EXPECT_PTR_EQ(env->test,
			    ev.event_data.connect_event_data.ep_handle, ep);
	KUNIT_EXPECT_TRUE_MSG(env->test,
			      ev.event_number ==
			      DAT_CONNECTION_EVENT_BROKEN ||
			      ev.event_number ==
			      DAT_CONNECTION_EVENT_DISCONNECTED,
			      "event %#x", ev.event_number);
}

static bool reach_poisoned(const u8 *buf)
{
	return !memchr_inv(buf, REACH_POISON, REACH_LEN);
}

/*
 * dat_lmr_free() with a receive on the device: the consumer owns the
 * memory again when the free returns.  The receive completes with a
 * protection error, the connection it was on breaks, and the peer's
 * send lands nowhere: the poison written after the free stays, and with
 * @release the buffer is freed at once (KASAN would see a write).
 */
static void reach_free_posted(struct kunit *test, bool release)
{
	struct reach_env env;
	DAT_LMR_CONTEXT ctx;
	DAT_LMR_HANDLE lmr;
	DAT_VLEN len = 1;
	u8 *buf;

	reach_env_init(test, &env, NULL);
	buf = kmalloc(REACH_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	lmr = reach_lmr(&env, env.p.spz, buf, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			&ctx, NULL);
	kdapl_test_connect(test, &env.p);
	KUNIT_ASSERT_EQ(test, reach_recv(env.p.srv, buf, ctx, 1), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	if (release) {
		kfree(buf);
		buf = NULL;
	} else {
		memset(buf, REACH_POISON, REACH_LEN);
	}
	reach_send_fails(&env, 2);
	if (buf) {
		KUNIT_EXPECT_TRUE(test, reach_poisoned(buf));
		kfree(buf);
	}
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.sdto, 1, &len),
			DAT_DTO_ERR_LOCAL_PROTECTION);
	KUNIT_EXPECT_EQ(test, len, 0);
	reach_expect_broken(&env, env.p.sconn, env.p.srv);
}

static void reach_free_posted_test(struct kunit *test)
{
	reach_free_posted(test, false);
}

static void reach_free_posted_kfree_test(struct kunit *test)
{
	reach_free_posted(test, true);
}

/*
 * A receive still held (posted before the connection) that references
 * a freed LMR completes at once with a protection error; the connection
 * made afterwards delivers into the next receive, not into it.
 */
static void reach_free_held_test(struct kunit *test)
{
	DAT_LMR_CONTEXT ctx, ctx2;
	DAT_BOOLEAN rx, tx;
	struct reach_env env;
	DAT_LMR_HANDLE lmr;
	DAT_VLEN len = 1;
	u8 *buf, *buf2;

	reach_env_init(test, &env, NULL);
	buf = reach_page(&env, 0);
	buf2 = reach_page(&env, 0);
	lmr = reach_lmr(&env, env.p.spz, buf, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			&ctx, NULL);
	reach_lmr(&env, env.p.spz, buf2, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &ctx2,
		  NULL);
	KUNIT_ASSERT_EQ(test, reach_recv(env.p.srv, buf, ctx, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	memset(buf, REACH_POISON, REACH_LEN);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.sdto, 1, &len),
			DAT_DTO_ERR_LOCAL_PROTECTION);
	KUNIT_EXPECT_EQ(test, len, 0);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(env.p.srv, NULL, &rx, &tx),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, rx, DAT_TRUE);

	KUNIT_ASSERT_EQ(test, reach_recv(env.p.srv, buf2, ctx2, 2),
			DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	KUNIT_ASSERT_EQ(test, reach_send(&env, env.p.cli, 3), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 3, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.sdto, 2, &len),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, len, REACH_MSG);
	KUNIT_EXPECT_EQ(test, memcmp(buf2, env.cbuf, REACH_MSG), 0);
	KUNIT_EXPECT_TRUE(test, reach_poisoned(buf));
}

/*
 * A receive an SRQ holds cannot be taken back from the device: freeing
 * its LMR puts the SRQ in error (reported on the async EVD) and breaks
 * the connections of its EPs; the peer's send lands nowhere.
 */
static void reach_free_srq_test(struct kunit *test)
{
	DAT_DTO_COOKIE c = { .as_64 = 5 };
	struct reach_env env;
	DAT_LMR_CONTEXT ctx;
	DAT_LMR_TRIPLET t;
	DAT_SRQ_HANDLE srq;
	DAT_LMR_HANDLE lmr;
	DAT_SRQ_PARAM sp;
	DAT_EVENT ev;
	u8 *buf;

	reach_env_init(test, &env, &srq);
	buf = reach_page(&env, 0);
	lmr = reach_lmr(&env, env.p.spz, buf, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			&ctx, NULL);
	t = (DAT_LMR_TRIPLET) { .lmr_context = ctx, .segment_length = 64,
				.virtual_address = (uintptr_t)buf };
	/*
	 * Before the connection: on iWARP kdapl's first message takes it
	 * and posts it again (see Documentation/connections.rst).
	 */
	KUNIT_ASSERT_EQ(test, dat_srq_post_recv(srq, 1, &t, c), DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);

	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	memset(buf, REACH_POISON, REACH_LEN);
	reach_event(&env, env.async, &ev);
	KUNIT_EXPECT_EQ(test, ev.event_number,
			DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR);
	KUNIT_EXPECT_EQ(test, ev.event_data.asynch_error_event_data.reason,
			DAT_SRQ_TRANSFER_TO_ERROR);
	/* Then the broken EP takes no more of the SRQ's receives. */
	reach_event(&env, env.async, &ev);
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_ASYNC_ERROR_EP_BROKEN);
	KUNIT_EXPECT_PTR_EQ(test,
			    ev.event_data.asynch_error_event_data.dat_handle,
			    (DAT_HANDLE)env.p.srv);
	KUNIT_EXPECT_EQ(test, ev.event_data.asynch_error_event_data.reason,
			DAT_EP_TRANSFER_TO_ERROR);
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &sp),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, sp.srq_state, DAT_SRQ_STATE_ERROR);
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 1, &t, c),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_ERROR));
	reach_expect_broken(&env, env.p.sconn, env.p.srv);
	reach_send_fails(&env, 6);
	KUNIT_EXPECT_TRUE(test, reach_poisoned(buf));
}

/* Bind @rmr to the whole of @lmr on the server EP; its context. */
static DAT_RMR_CONTEXT reach_bind(struct reach_env *env, DAT_RMR_HANDLE rmr,
				  DAT_LMR_HANDLE lmr, DAT_LMR_CONTEXT ctx,
				  void *buf, DAT_MEM_PRIV_FLAGS priv,
				  u64 cookie)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = ctx,
		.virtual_address = (uintptr_t)buf,
		.segment_length = REACH_LEN,
	};
	DAT_RMR_CONTEXT rctx = 0;

	KUNIT_ASSERT_EQ(env->test,
			dat_rmr_bind(rmr, lmr, &t, priv, DAT_VA_TYPE_VA,
				     env->p.srv, (DAT_RMR_COOKIE)cookie, 0,
				     &rctx),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(env->test, reach_bind_done(env, env->sdto, rmr, cookie),
			DAT_DTO_SUCCESS);
	return rctx;
}

static DAT_RETURN reach_unbind(struct reach_env *env, DAT_RMR_HANDLE rmr,
			       u64 cookie)
{
	DAT_LMR_TRIPLET none = {};
	DAT_RMR_CONTEXT rctx;

	return dat_rmr_bind(rmr, DAT_HANDLE_NULL, &none,
			    DAT_MEM_PRIV_NONE_FLAG, DAT_VA_TYPE_VA, env->p.srv,
			    (DAT_RMR_COOKIE)cookie, 0, &rctx);
}

/*
 * A window that starts inside a DMA range of its LMR: four contiguous
 * pages, one range, the window a page and 100 bytes in.  What the peer
 * writes through it lands there and nowhere else (siw of 6.1 ignores an
 * offset into the first range of a mapping).  The RDMA Read of the
 * window after the write makes sure the write was placed.
 */
static void reach_rmr_window_test(struct kunit *test)
{
	const size_t start = PAGE_SIZE + 100, size = 4 * PAGE_SIZE;
	struct reach_env env;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_CONTEXT ctx;
	DAT_LMR_TRIPLET t, l;
	DAT_RMR_TRIPLET r;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_HANDLE lmr;
	u8 *buf;

	reach_env_init(test, &env, NULL);
	buf = page_address(kdapl_test_pages(test, 2));
	lmr = kdapl_test_lmr(test, env.p.ia, env.p.spz, buf, size,
			     DAT_MEM_PRIV_ALL_FLAG, &ctx, NULL);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(env.p.spz, &rmr), DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	t = (DAT_LMR_TRIPLET) { .lmr_context = ctx, .segment_length = REACH_MSG,
				.virtual_address = (uintptr_t)buf + start };
	KUNIT_ASSERT_EQ(test, dat_rmr_bind(rmr, lmr, &t,
					   DAT_MEM_PRIV_REMOTE_WRITE_FLAG |
					   DAT_MEM_PRIV_REMOTE_READ_FLAG,
					   DAT_VA_TYPE_VA, env.p.srv,
					   (DAT_RMR_COOKIE)1ULL, 0, &rctx),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, reach_bind_done(&env, env.sdto, rmr, 1),
			DAT_DTO_SUCCESS);

	KUNIT_ASSERT_EQ(test, reach_write(&env, env.p.cli, rctx, buf + start,
					  2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 2, NULL),
			DAT_DTO_SUCCESS);
	l = (DAT_LMR_TRIPLET) { .lmr_context = env.cctx,
				.segment_length = REACH_MSG,
				.virtual_address = (uintptr_t)env.cbuf + 2048 };
	r = (DAT_RMR_TRIPLET) { .rmr_context = rctx,
				.segment_length = REACH_MSG,
				.virtual_address = (uintptr_t)buf + start };
	KUNIT_ASSERT_EQ(test, dat_ep_post_rdma_read(env.p.cli, 1, &l,
						    (DAT_DTO_COOKIE)3ULL, &r,
						    0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 3, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + start, REACH_DATA,
					   REACH_MSG));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0, start));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + start + REACH_MSG, 0,
					   size - start - REACH_MSG));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
}

/*
 * An unbind takes effect when it completes: until then its LMR stays
 * in use and the RMR cannot be bound again.  The server's send ahead of
 * it waits for a receive of the client (RNR retries without end), which
 * holds the unbind back: only RoCE has RNR.
 */
static void reach_unbind_pending_test(struct kunit *test)
{
	struct reach_env env;
	DAT_LMR_CONTEXT ctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_TRIPLET t;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_HANDLE lmr;
	u8 *buf;

	reach_env_init(test, &env, NULL);
	if (env.iwarp)
		kunit_skip(test, "iWARP has no RNR to hold a send back");
	buf = reach_page(&env, 0);
	lmr = reach_lmr(&env, env.p.spz, buf, DAT_MEM_PRIV_ALL_FLAG, &ctx,
			NULL);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(env.p.spz, &rmr), DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	rctx = reach_bind(&env, rmr, lmr, ctx, buf,
			  DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 1);
	KUNIT_ASSERT_EQ(test, reach_write(&env, env.p.cli, rctx, buf, 2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 2, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(buf, env.cbuf, REACH_MSG), 0);

	t = (DAT_LMR_TRIPLET) { .lmr_context = ctx, .segment_length = 8,
				.virtual_address = (uintptr_t)buf };
	KUNIT_ASSERT_EQ(test, dat_ep_post_send(env.p.srv, 1, &t,
					       (DAT_DTO_COOKIE)3ULL, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, reach_unbind(&env, rmr, 4), DAT_SUCCESS);
	msleep(100);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE));
	KUNIT_EXPECT_EQ(test, reach_unbind(&env, rmr, 5),
			KDAPL_ERR(DAT_INVALID_STATE, 0));

	/* The client's receive lets the send, then the unbind, complete. */
	KUNIT_ASSERT_EQ(test, reach_recv(env.p.cli, env.cbuf + REACH_MSG,
					 env.cctx, 6),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.sdto, 3, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_bind_done(&env, env.sdto, rmr, 4), DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 6, NULL),
			DAT_DTO_SUCCESS);
	/* Unbound: the LMR is free to go, the RMR to be bound again. */
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
}

/* Put the QP of @handle in the error state behind kdapl's back. */
static void reach_qp_error(struct kunit *test, DAT_EP_HANDLE handle)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct kdapl_ep *ep;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, handle, EP,
					DAT_INVALID_HANDLE_EP, &ep),
			DAT_SUCCESS);
	KUNIT_EXPECT_NOT_NULL(test, ep->qp);
	if (ep->qp)
		KUNIT_EXPECT_EQ(test, ib_modify_qp(ep->qp, &attr,
						   IB_QP_STATE),
				0);
	kdapl_object_put(&ep->obj);
}

/*
 * Post an unbind on the server EP that the device flushes.  RoCE: the
 * QP is put in error first.  iWARP closes the connection of a QP put in
 * error at once, so the unbind goes first, behind a write that keeps the
 * transmit thread busy; should the unbind still execute, the case
 * cannot be made.
 */
static void reach_flush_unbind(struct reach_env *env, DAT_RMR_HANDLE rmr,
			       DAT_LMR_CONTEXT ctx, void *buf)
{
	DAT_LMR_TRIPLET t = { .lmr_context = ctx, .segment_length = REACH_LEN,
			      .virtual_address = (uintptr_t)buf };
	DAT_RMR_TRIPLET r = { .rmr_context = env->crctx,
			      .segment_length = REACH_LEN,
			      .virtual_address = (uintptr_t)env->cbuf };
	struct kunit *test = env->test;
	DAT_DTO_COMPLETION_STATUS st;

	if (!env->iwarp)
		reach_qp_error(test, env->p.srv);
	else
		KUNIT_ASSERT_EQ(test,
				dat_ep_post_rdma_write(env->p.srv, 1, &t,
						       (DAT_DTO_COOKIE)9ULL,
						       &r, 0),
				DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, reach_unbind(env, rmr, 3), DAT_SUCCESS);
	if (env->iwarp) {
		reach_qp_error(test, env->p.srv);
		reach_dto(env, env->sdto, 9, NULL);
	}
	st = reach_bind_done(env, env->sdto, rmr, 3);
	if (env->iwarp && st == DAT_DTO_SUCCESS)
		kunit_skip(test, "the unbind executed before the flush");
	KUNIT_EXPECT_EQ(test, st, DAT_DTO_ERR_FLUSHED);
}

/*
 * An unbind flushed by a broken connection: the old rmr_context, valid
 * on every QP of the PZ, must still reach nothing.  A second connection
 * of the same PZs keeps using it after the LMR was freed and its memory
 * reused: remote access error, broken connection, nothing written.
 */
static void reach_unbind_flushed_test(struct kunit *test)
{
	DAT_EP_HANDLE cli2, srv2;
	struct kdapl_test_pair p2;
	DAT_DTO_COMPLETION_STATUS st;
	struct reach_env env;
	DAT_LMR_CONTEXT ctx;
	DAT_RMR_CONTEXT rctx;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_HANDLE lmr;
	u8 *buf;

	reach_env_init(test, &env, NULL);
	buf = reach_page(&env, 0);
	lmr = reach_lmr(&env, env.p.spz, buf, DAT_MEM_PRIV_ALL_FLAG, &ctx,
			NULL);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(env.p.spz, &rmr), DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	p2 = env.p;
	p2.conn = kdapl_test_evd(test, env.p.ia, 8, DAT_EVD_CONNECTION_FLAG);
	p2.sconn = kdapl_test_evd(test, env.p.ia, 8, DAT_EVD_CONNECTION_FLAG);
	cli2 = reach_ep(&env, env.p.pz, env.cdto, p2.conn, NULL);
	srv2 = reach_ep(&env, env.p.spz, env.sdto, p2.sconn, NULL);
	p2.cli = cli2;
	p2.srv = srv2;
	p2.qual = REACH_QUAL + 1;
	kdapl_test_connect(test, &p2);
	rctx = reach_bind(&env, rmr, lmr, ctx, buf,
			  DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 1);
	/* The context works on every connection of the PZ. */
	KUNIT_ASSERT_EQ(test, reach_write(&env, cli2, rctx, buf, 2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 2, NULL),
			DAT_DTO_SUCCESS);

	reach_flush_unbind(&env, rmr, ctx, buf);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	memset(buf, REACH_POISON, REACH_LEN);

	KUNIT_ASSERT_EQ(test, reach_write(&env, cli2, rctx, buf, 4),
			DAT_SUCCESS);
	st = reach_dto(&env, env.cdto, 4, NULL);
	if (!env.iwarp)
		KUNIT_EXPECT_EQ(test, st, DAT_DTO_ERR_REMOTE_ACCESS);
	reach_expect_broken(&env, p2.sconn, srv2);
	KUNIT_EXPECT_TRUE(test, reach_poisoned(buf));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
}

/*
 * A peer writes to the server's LMR of @priv through @rctx (its remote
 * context), or through its lmr_context (the STag on iWARP) when @rctx is
 * NULL: remote access error, broken connection, nothing written.
 */
static void reach_write_refused(struct kunit *test, DAT_MEM_PRIV_FLAGS priv,
				bool remote_ctx, DAT_CONN_QUAL qual)
{
	DAT_DTO_COMPLETION_STATUS st;
	DAT_RMR_CONTEXT rctx = 0;
	struct reach_env env;
	DAT_LMR_CONTEXT ctx;
	u8 *buf;

	reach_env_init(test, &env, NULL);
	buf = reach_page(&env, REACH_POISON);
	reach_lmr(&env, env.p.spz, buf, priv, &ctx, &rctx);
	if (remote_ctx)
		KUNIT_ASSERT_NE(test, rctx, 0);
	env.p.qual = qual;
	kdapl_test_connect(test, &env.p);
	KUNIT_ASSERT_EQ(test, reach_write(&env, env.p.cli,
					  remote_ctx ? rctx : ctx, buf, 1),
			DAT_SUCCESS);
	st = reach_dto(&env, env.cdto, 1, NULL);
	/* iWARP completes a write once sent; RoCE has the responder's NAK. */
	if (!env.iwarp)
		KUNIT_EXPECT_EQ(test, st, DAT_DTO_ERR_REMOTE_ACCESS);
	reach_expect_broken(&env, env.p.sconn, env.p.srv);
	KUNIT_EXPECT_TRUE(test, reach_poisoned(buf));
}

/*
 * Remote access only where asked: a peer that learns the context of an
 * LMR that is locally writable but remotely only readable, or not
 * remotely accessible at all, cannot write to it, on iWARP either,
 * where the local key is the STag a peer presents.
 */
static void reach_remote_write_test(struct kunit *test)
{
	reach_write_refused(test, DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
			    DAT_MEM_PRIV_REMOTE_READ_FLAG, true, REACH_QUAL);
	reach_write_refused(test, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, false,
			    REACH_QUAL + 2);
}

/*
 * The sink of dat_ep_post_rdma_read_to_rmr() is a bound RMR of the EP's
 * PZ: an LMR's context (a raw local key), an unbound or foreign RMR's is
 * refused before anything is posted.
 */
static void reach_read_to_rmr_test(struct kunit *test)
{
	DAT_MEM_PRIV_FLAGS sink = DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				  DAT_MEM_PRIV_REMOTE_WRITE_FLAG;
	DAT_RMR_TRIPLET local, remote;
	DAT_RMR_CONTEXT src_rctx = 0;
	DAT_RMR_HANDLE rmr, foreign;
	DAT_LMR_CONTEXT ctx, sctx;
	DAT_LMR_TRIPLET t;
	struct reach_env env;
	DAT_LMR_HANDLE lmr, slmr;
	u8 *buf, *src;

	reach_env_init(test, &env, NULL);
	buf = reach_page(&env, REACH_POISON);
	src = reach_page(&env, REACH_DATA);
	lmr = reach_lmr(&env, env.p.pz, buf, DAT_MEM_PRIV_ALL_FLAG, &ctx,
			NULL);
	slmr = reach_lmr(&env, env.p.spz, src, DAT_MEM_PRIV_ALL_FLAG, &sctx,
			 &src_rctx);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(env.p.pz, &rmr), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(env.p.spz, &foreign),
			DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	remote = (DAT_RMR_TRIPLET) { .rmr_context = src_rctx,
				     .virtual_address = (uintptr_t)src,
				     .segment_length = 64 };
	local = (DAT_RMR_TRIPLET) { .rmr_context = ctx,
				    .virtual_address = (uintptr_t)buf,
				    .segment_length = 64 };
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.p.cli, &local,
							   (DAT_DTO_COOKIE)1ULL,
							   &remote, 0),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));

	/* Bound in the client's PZ: the read lands in its window. */
	t = (DAT_LMR_TRIPLET) { .lmr_context = ctx, .segment_length = 128,
				.virtual_address = (uintptr_t)buf };
	KUNIT_ASSERT_EQ(test, dat_rmr_bind(rmr, lmr, &t, sink, DAT_VA_TYPE_VA,
					   env.p.cli, (DAT_RMR_COOKIE)2ULL, 0,
					   &local.rmr_context),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, reach_bind_done(&env, env.cdto, rmr, 2),
			DAT_DTO_SUCCESS);
	/* Beyond the window, then inside it. */
	local.virtual_address += 96;
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.p.cli, &local,
							   (DAT_DTO_COOKIE)3ULL,
							   &remote, 0),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));
	KUNIT_EXPECT_TRUE(test, reach_poisoned(buf));
	local.virtual_address -= 96;
	KUNIT_ASSERT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.p.cli, &local,
							   (DAT_DTO_COOKIE)4ULL,
							   &remote, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 4, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(buf, src, 64), 0);
	KUNIT_EXPECT_EQ(test, buf[64], REACH_POISON);

	/* A window of the server's PZ is no sink for the client. */
	local.rmr_context = reach_bind(&env, foreign, slmr, sctx, src, sink, 5);
	local.virtual_address = (uintptr_t)src;
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.p.cli, &local,
							   (DAT_DTO_COOKIE)6ULL,
							   &remote, 0),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(foreign), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
}

/* Make kdapl treat @handle's mapping as one that needs DMA syncs. */
static void reach_need_sync(struct kunit *test, DAT_LMR_HANDLE handle)
{
	struct kdapl_lmr *lmr;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, handle, LMR,
					DAT_INVALID_HANDLE_LMR, &lmr),
			DAT_SUCCESS);
	lmr->need_sync = true;
	kdapl_object_put(&lmr->obj);
}

/*
 * kdapl makes its local DTOs coherent where the mapping needs it (rxe
 * and siw never do: their LMRs are marked by hand): every segment is
 * synced for the device when posted, and receives and RDMA Read sinks
 * for the CPU when they complete.  What peers access is the consumer's
 * to sync, as lmr_sync_req says: FALSE for virtual DMA devices.
 */
static void reach_dma_sync_test(struct kunit *test)
{
	DAT_PROVIDER_ATTR *pattr;
	DAT_RMR_CONTEXT srctx;
	struct reach_env env;
	DAT_LMR_CONTEXT sctx;
	DAT_LMR_HANDLE slmr;
	DAT_LMR_TRIPLET t;
	DAT_RMR_TRIPLET r;
	DAT_EVD_HANDLE async;
	int dev0, cpu0;
	u8 *buf;

	reach_env_init(test, &env, NULL);
	pattr = kunit_kzalloc(test, sizeof(*pattr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pattr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(env.p.ia, &async, 0, NULL,
					   DAT_PROVIDER_FIELD_ALL, pattr),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, pattr->lmr_sync_req, DAT_FALSE);
	buf = reach_page(&env, REACH_POISON);
	slmr = reach_lmr(&env, env.p.spz, buf, DAT_MEM_PRIV_ALL_FLAG, &sctx,
			 &srctx);
	reach_need_sync(test, slmr);
	reach_need_sync(test, env.clmr);
	kdapl_test_connect(test, &env.p);
	dev0 = atomic_read(&kdapl_lmr_sge_syncs[0]);
	cpu0 = atomic_read(&kdapl_lmr_sge_syncs[1]);

	KUNIT_ASSERT_EQ(test, reach_recv(env.p.srv, buf, sctx, 1), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, reach_send(&env, env.p.cli, 2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 2, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.sdto, 1, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kdapl_lmr_sge_syncs[0]) - dev0, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kdapl_lmr_sge_syncs[1]) - cpu0, 1);

	/* An RDMA Read into the client's page, from the server's. */
	buf[REACH_MSG] = 0x42;
	t = (DAT_LMR_TRIPLET) { .lmr_context = env.cctx,
				.segment_length = 64,
				.virtual_address = (uintptr_t)env.cbuf + 1024 };
	r = (DAT_RMR_TRIPLET) { .rmr_context = srctx, .segment_length = 64,
				.virtual_address = (uintptr_t)buf + REACH_MSG };
	KUNIT_ASSERT_EQ(test, dat_ep_post_rdma_read(env.p.cli, 1, &t,
						    (DAT_DTO_COOKIE)3ULL, &r,
						    0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, reach_dto(&env, env.cdto, 3, NULL),
			DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, env.cbuf[1024], 0x42);
	KUNIT_EXPECT_EQ(test, atomic_read(&kdapl_lmr_sge_syncs[0]) - dev0, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kdapl_lmr_sge_syncs[1]) - cpu0, 2);
}

static struct kunit_case kdapl_reach_test_cases[] = {
	KUNIT_CASE_PARAM(reach_free_posted_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_free_posted_kfree_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_free_held_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_free_srq_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_rmr_window_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_unbind_pending_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_unbind_flushed_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_remote_write_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_read_to_rmr_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(reach_dma_sync_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_reach_test_suite = {
	.name = "kdapl_reach",
	.test_cases = kdapl_reach_test_cases,
};

kunit_test_suite(kdapl_reach_test_suite);
