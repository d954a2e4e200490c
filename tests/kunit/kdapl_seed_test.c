// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for what the seed manual pages (dat_ep_create,
 * dat_ep_modify, dat_ep_get_status) say about EPs with a connection, on
 * loopback: receive completion flags that suppress events, receives
 * that fail when the EP changes PZ, request_idle after unsignalled
 * requests, recv_idle of an EP on an SRQ, and EPs as large as the IA
 * says they may be.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/delay.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "kdapl_test_util.h"

/* Qualifiers no other suite listens on. */
#define SEED_QUAL		47500

#define SEED_MSG		64

/**
 * struct seed_env - a pair to connect and its buffers
 * @test: the test
 * @p: the pair (client in @p.pz, server in @p.spz)
 * @cdto: completions of the client, both streams
 * @srecv: receive completions of the server
 * @sreq: request completions of the server
 * @cbuf: the client's page, in the LMR @cctx
 * @cctx: its context
 */
struct seed_env {
	struct kunit *test;
	struct kdapl_test_pair p;
	DAT_EVD_HANDLE cdto, srecv, sreq;
	u8 *cbuf;
	DAT_LMR_CONTEXT cctx;
};

static void *seed_lmr(struct seed_env *env, DAT_PZ_HANDLE pz,
		      DAT_LMR_CONTEXT *ctx)
{
	u8 *buf = kunit_kzalloc(env->test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(env->test, buf);
	kdapl_test_lmr(env->test, env->p.ia, pz, buf, PAGE_SIZE,
		       DAT_MEM_PRIV_ALL_FLAG, ctx, NULL);
	return buf;
}

/* The objects of a pair; the EPs are the caller's. */
static void seed_env_init(struct kunit *test, struct seed_env *env)
{
	memset(env, 0, sizeof(*env));
	env->test = test;
	kdapl_test_pair_init(test, &env->p, SEED_QUAL);
	env->cdto = kdapl_test_evd(test, env->p.ia, 64, DAT_EVD_DTO_FLAG);
	env->srecv = kdapl_test_evd(test, env->p.ia, 64, DAT_EVD_DTO_FLAG);
	env->sreq = kdapl_test_evd(test, env->p.ia, 64, DAT_EVD_DTO_FLAG);
	env->cbuf = seed_lmr(env, env->p.pz, &env->cctx);
	memset(env->cbuf, 0x5e, PAGE_SIZE);
}

/* An EP with default attributes but for those of @attr, if not NULL. */
static DAT_EP_HANDLE seed_ep(struct seed_env *env, DAT_PZ_HANDLE pz,
			     DAT_EVD_HANDLE recv, DAT_EVD_HANDLE req,
			     DAT_EVD_HANDLE conn, const DAT_EP_ATTR *attr)
{
	DAT_EP_HANDLE ep;

	KUNIT_ASSERT_EQ(env->test, dat_ep_create(env->p.ia, pz, recv, req,
						 conn, attr, &ep),
			DAT_SUCCESS);
	return ep;
}

/* The default EP attributes of the IA. */
static void seed_attr(struct seed_env *env, DAT_EP_ATTR *attr)
{
	DAT_EP_HANDLE ep = seed_ep(env, env->p.pz, env->cdto, env->cdto,
				   env->p.conn, NULL);
	DAT_EP_PARAM p;

	KUNIT_ASSERT_EQ(env->test, dat_ep_query(ep, DAT_EP_FIELD_ALL, &p),
			DAT_SUCCESS);
	*attr = p.ep_attr;
	KUNIT_ASSERT_EQ(env->test, dat_ep_free(ep), DAT_SUCCESS);
}

static DAT_RETURN seed_post(DAT_EP_HANDLE ep, bool recv, void *buf,
			    DAT_LMR_CONTEXT ctx, u64 cookie,
			    DAT_COMPLETION_FLAGS flags)
{
	DAT_LMR_TRIPLET t = { .lmr_context = ctx, .segment_length = SEED_MSG,
			      .virtual_address = (uintptr_t)buf };

	if (recv)
		return dat_ep_post_recv(ep, 1, &t, (DAT_DTO_COOKIE)cookie,
					flags);
	return dat_ep_post_send(ep, 1, &t, (DAT_DTO_COOKIE)cookie, flags);
}

/* The next event of @evd is the completion of @cookie; its status. */
static DAT_DTO_COMPLETION_STATUS seed_dto(struct seed_env *env,
					  DAT_EVD_HANDLE evd, u64 cookie)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	KUNIT_ASSERT_TRUE_MSG(env->test,
			      kdapl_test_wait(evd, &ev, KDAPL_TEST_WAIT_MS),
			      "no completion of %llu", cookie);
	KUNIT_ASSERT_EQ(env->test, ev.event_number, DAT_DTO_COMPLETION_EVENT);
	d = &ev.event_data.dto_completion_event_data;
	KUNIT_EXPECT_EQ(env->test, d->user_cookie.as_64, cookie);
	return d->status;
}

static void seed_expect_empty(struct seed_env *env, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	msleep(50);
	KUNIT_EXPECT_EQ(env->test, dat_evd_dequeue(evd, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
}

/* Poll dat_ep_get_status() until @ep's recv or request queue is idle. */
static bool seed_idle(struct kunit *test, DAT_EP_HANDLE ep, bool recv)
{
	DAT_BOOLEAN ri, qi;
	int i;

	for (i = 0; i < 100; i++) {
		KUNIT_ASSERT_EQ(test, dat_ep_get_status(ep, NULL, &ri, &qi),
				DAT_SUCCESS);
		if (recv ? ri : qi)
			return true;
		msleep(20);
	}
	return false;
}

/*
 * Receive completion flags DAT_COMPLETION_SUPPRESS_FLAG: receives posted
 * unsignalled report nothing when they succeed, the others do.
 */
static void seed_recv_suppress_test(struct kunit *test)
{
	struct seed_env env;
	DAT_LMR_CONTEXT ctx;
	DAT_EP_ATTR attr;
	u8 *buf;

	seed_env_init(test, &env);
	seed_attr(&env, &attr);
	attr.recv_completion_flags = DAT_COMPLETION_SUPPRESS_FLAG;
	env.p.cli = seed_ep(&env, env.p.pz, env.cdto, env.cdto, env.p.conn,
			    NULL);
	env.p.srv = seed_ep(&env, env.p.spz, env.srecv, env.sreq,
			    env.p.sconn, &attr);
	buf = seed_lmr(&env, env.p.spz, &ctx);
	KUNIT_ASSERT_EQ(test, seed_post(env.p.srv, true, buf, ctx, 1,
					DAT_COMPLETION_UNSIGNALLED_FLAG),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, seed_post(env.p.srv, true, buf + SEED_MSG, ctx,
					2, DAT_COMPLETION_DEFAULT_FLAG),
			DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	KUNIT_ASSERT_EQ(test, seed_post(env.p.cli, false, env.cbuf, env.cctx,
					3, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.cdto, 3), DAT_DTO_SUCCESS);
	env.cbuf[0] = 0x7f;
	KUNIT_ASSERT_EQ(test, seed_post(env.p.cli, false, env.cbuf, env.cctx,
					4, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.cdto, 4), DAT_DTO_SUCCESS);
	/* Only the second receive says it completed. */
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.srecv, 2), DAT_DTO_SUCCESS);
	seed_expect_empty(&env, env.srecv);
	KUNIT_EXPECT_EQ(test, buf[0], 0x5e);
	KUNIT_EXPECT_EQ(test, buf[SEED_MSG], 0x7f);
	KUNIT_EXPECT_TRUE(test, seed_idle(test, env.p.srv, true));
}

/*
 * dat_ep_modify() of the PZ: receives posted before it, into LMRs of the
 * old PZ, fail with a protection violation at once and never reach the
 * device; those posted afterwards into the new PZ take the messages.
 */
static void seed_pz_change_test(struct kunit *test)
{
	DAT_LMR_CONTEXT ctx_old, ctx_new;
	DAT_PZ_HANDLE old_pz;
	struct seed_env env;
	DAT_EP_PARAM param;
	u8 *old, *new;

	seed_env_init(test, &env);
	old_pz = kdapl_test_pz(test, env.p.ia);
	env.p.cli = seed_ep(&env, env.p.pz, env.cdto, env.cdto, env.p.conn,
			    NULL);
	env.p.srv = seed_ep(&env, old_pz, env.srecv, env.sreq, env.p.sconn,
			    NULL);
	old = seed_lmr(&env, old_pz, &ctx_old);
	new = seed_lmr(&env, env.p.spz, &ctx_new);
	KUNIT_ASSERT_EQ(test, seed_post(env.p.srv, true, old, ctx_old, 1, 0),
			DAT_SUCCESS);
	param.pz_handle = env.p.spz;
	KUNIT_ASSERT_EQ(test, dat_ep_modify(env.p.srv, DAT_EP_FIELD_PZ_HANDLE,
					    &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.srecv, 1),
			DAT_DTO_ERR_LOCAL_PROTECTION);
	KUNIT_EXPECT_TRUE(test, seed_idle(test, env.p.srv, true));

	KUNIT_ASSERT_EQ(test, seed_post(env.p.srv, true, new, ctx_new, 2, 0),
			DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	KUNIT_ASSERT_EQ(test, seed_post(env.p.cli, false, env.cbuf, env.cctx,
					3, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.cdto, 3), DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.srecv, 2), DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(new, env.cbuf, SEED_MSG), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(old, 0, PAGE_SIZE));
}

/*
 * request_idle of dat_ep_get_status() turns TRUE once unsignalled
 * requests have completed, though no event says so.
 */
static void seed_request_idle_test(struct kunit *test)
{
	DAT_EVD_HANDLE creq;
	struct seed_env env;
	DAT_LMR_CONTEXT ctx;
	DAT_EP_ATTR attr;
	u64 i;
	u8 *buf;

	seed_env_init(test, &env);
	seed_attr(&env, &attr);
	attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	creq = kdapl_test_evd(test, env.p.ia, 16, DAT_EVD_DTO_FLAG);
	env.p.cli = seed_ep(&env, env.p.pz, env.cdto, creq, env.p.conn,
			    &attr);
	env.p.srv = seed_ep(&env, env.p.spz, env.srecv, env.sreq,
			    env.p.sconn, NULL);
	buf = seed_lmr(&env, env.p.spz, &ctx);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, seed_post(env.p.srv, true,
						buf + i * SEED_MSG, ctx, i, 0),
				DAT_SUCCESS);
	kdapl_test_connect(test, &env.p);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test,
				seed_post(env.p.cli, false, env.cbuf,
					  env.cctx, 10 + i,
					  DAT_COMPLETION_UNSIGNALLED_FLAG),
				DAT_SUCCESS);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, seed_dto(&env, env.srecv, i),
				DAT_DTO_SUCCESS);
	KUNIT_EXPECT_TRUE(test, seed_idle(test, env.p.cli, false));
	seed_expect_empty(&env, creq);
	/* Signalled requests of such an EP still report. */
	KUNIT_ASSERT_EQ(test, seed_post(env.p.srv, true, buf, ctx, 4, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, seed_post(env.p.cli, false, env.cbuf, env.cctx,
					20, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, creq, 20), DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.srecv, 4), DAT_DTO_SUCCESS);
}

/*
 * recv_idle of an EP on an SRQ: while it has a QP, it may take the
 * SRQ's receives at any time, so it is not idle; before its connection
 * and after it, it is.
 */
static void seed_srq_idle_test(struct kunit *test)
{
	DAT_SRQ_ATTR sattr = { .max_recv_dtos = 8, .max_recv_iov = 1 };
	DAT_LMR_TRIPLET t;
	struct seed_env env;
	DAT_LMR_CONTEXT ctx;
	DAT_SRQ_HANDLE srq;
	u8 *buf;

	seed_env_init(test, &env);
	KUNIT_ASSERT_EQ(test, dat_srq_create(env.p.ia, env.p.spz, &sattr,
					     &srq),
			DAT_SUCCESS);
	env.p.cli = seed_ep(&env, env.p.pz, env.cdto, env.cdto, env.p.conn,
			    NULL);
	KUNIT_ASSERT_EQ(test, dat_ep_create_with_srq(env.p.ia, env.p.spz,
						     env.srecv, env.sreq,
						     env.p.sconn, srq, NULL,
						     &env.p.srv),
			DAT_SUCCESS);
	buf = seed_lmr(&env, env.p.spz, &ctx);
	t = (DAT_LMR_TRIPLET) { .lmr_context = ctx, .segment_length = SEED_MSG,
				.virtual_address = (uintptr_t)buf };
	KUNIT_ASSERT_EQ(test, dat_srq_post_recv(srq, 1, &t,
						(DAT_DTO_COOKIE)1ULL),
			DAT_SUCCESS);
	KUNIT_EXPECT_TRUE(test, seed_idle(test, env.p.srv, true));
	kdapl_test_connect(test, &env.p);
	KUNIT_EXPECT_FALSE(test, seed_idle(test, env.p.srv, true));
	KUNIT_ASSERT_EQ(test, seed_post(env.p.cli, false, env.cbuf, env.cctx,
					2, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.cdto, 2), DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, seed_dto(&env, env.srecv, 1), DAT_DTO_SUCCESS);
	KUNIT_EXPECT_FALSE(test, seed_idle(test, env.p.srv, true));
	KUNIT_ASSERT_EQ(test, dat_ep_disconnect(env.p.srv,
						DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env.p.sconn, env.p.srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	KUNIT_EXPECT_TRUE(test, seed_idle(test, env.p.srv, true));
}

/*
 * An EP of max_dto_per_ep receives and requests fits its device: the
 * QP kdapl asks for, with its own work requests, is within max_qp_wr.
 * One more is refused.  On siw (32k work requests) it also connects;
 * rxe's limit (a million) would take gigabytes.
 */
static void seed_max_dtos_test(struct kunit *test)
{
	const struct ib_device_attr *dev;
	struct ib_qp_init_attr init = {};
	DAT_EVD_HANDLE recv, req;
	struct seed_env env;
	u32 send_cqes, recv_cqes;
	struct kdapl_ep *ep;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR *ia_attr;
	DAT_EP_HANDLE bad;
	DAT_EP_ATTR attr;
	DAT_COUNT qlen, max;

	seed_env_init(test, &env);
	ia_attr = kunit_kzalloc(test, sizeof(*ia_attr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ia_attr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(env.p.ia, &async, DAT_IA_FIELD_ALL,
					   ia_attr, 0, NULL),
			DAT_SUCCESS);
	max = ia_attr->max_dto_per_ep;
	KUNIT_ASSERT_GT(test, max, 0);
	seed_attr(&env, &attr);
	attr.max_recv_dtos = max;
	attr.max_request_dtos = max;
	/* siw cannot grow a CQ: it must take the QP's completions at once. */
	qlen = kdapl_test_iwarp(test) ? max + 64 : 64;
	recv = kdapl_test_evd(test, env.p.ia, qlen, DAT_EVD_DTO_FLAG);
	req = kdapl_test_evd(test, env.p.ia, qlen, DAT_EVD_DTO_FLAG);
	env.p.srv = seed_ep(&env, env.p.spz, recv, req, env.p.sconn, &attr);
	attr.max_request_dtos++;
	KUNIT_EXPECT_EQ(test, dat_ep_create(env.p.ia, env.p.pz, env.cdto,
					    env.cdto, env.p.conn, &attr, &bad),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, env.p.srv, EP,
					DAT_INVALID_HANDLE_EP, &ep),
			DAT_SUCCESS);
	dev = &ep->obj.ia->ibdev->attrs;
	kdapl_conn_qp_caps(ep, &ep->attr, &init, &send_cqes, &recv_cqes);
	KUNIT_EXPECT_LE(test, init.cap.max_send_wr, (u32)dev->max_qp_wr);
	KUNIT_EXPECT_LE(test, init.cap.max_recv_wr, (u32)dev->max_qp_wr);
	KUNIT_EXPECT_GE(test, send_cqes, init.cap.max_send_wr);
	KUNIT_EXPECT_GE(test, recv_cqes, init.cap.max_recv_wr);
	kdapl_object_put(&ep->obj);
	if (!kdapl_test_iwarp(test))
		return;

	env.p.cli = seed_ep(&env, env.p.pz, env.cdto, env.cdto, env.p.conn,
			    NULL);
	kdapl_test_connect(test, &env.p);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, env.p.srv),
			DAT_EP_STATE_CONNECTED);
}

static struct kunit_case kdapl_seed_test_cases[] = {
	KUNIT_CASE_PARAM(seed_recv_suppress_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(seed_pz_change_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(seed_request_idle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(seed_srq_idle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(seed_max_dtos_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_seed_test_suite = {
	.name = "kdapl_seed",
	.test_cases = kdapl_seed_test_cases,
};

kunit_test_suite(kdapl_seed_test_suite);
