// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for data transfer without a connection: the argument,
 * handle and state errors of every post function and of dat_rmr_bind(),
 * receives posted before a connection (held, counted in recv_idle),
 * receives flushed at once on an EP that lost its connection, and the
 * completion status table.  States come from kdapl_ep_set_state(): an EP
 * "connected" that way has no queue pair, and posts must fail cleanly.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "kdapl_test_util.h"

#define KDAPL_DTO_TEST_LEN	4096

struct kdapl_dto_env {
	struct kunit *test;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE recv, req, conn;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR attr;
	void *buf;
	DAT_LMR_HANDLE lmr, lmr_ro;
	DAT_LMR_CONTEXT ctx, ctx_ro;
	DAT_VADDR addr, addr_ro;
	DAT_RMR_CONTEXT rctx;
};

static DAT_LMR_HANDLE kdapl_dto_test_lmr(struct kdapl_dto_env *env, void *buf,
					 DAT_MEM_PRIV_FLAGS priv,
					 DAT_LMR_CONTEXT *ctx, DAT_VADDR *addr,
					 DAT_RMR_CONTEXT *rctx)
{
	DAT_REGION_DESCRIPTION r = { .for_va = buf };
	DAT_LMR_HANDLE lmr;
	DAT_VLEN len;

	KUNIT_ASSERT_EQ(env->test,
			dat_lmr_kcreate(env->ia, DAT_MEM_TYPE_VIRTUAL, r,
					KDAPL_DTO_TEST_LEN, env->pz, priv,
					DAT_VA_TYPE_VA,
					DAT_MEM_OPTIMIZE_DONT_CARE, &lmr, ctx,
					rctx, &len, addr),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(env->test, len, (DAT_VLEN)KDAPL_DTO_TEST_LEN);
	return lmr;
}

static void kdapl_dto_env_open(struct kunit *test, struct kdapl_dto_env *env,
			       const char *name)
{
	DAT_EP_PARAM p;

	memset(env, 0, sizeof(*env));
	env->test = test;
	env->ia = kdapl_test_open_ia(test, name);
	env->pz = kdapl_test_pz(test, env->ia);
	env->recv = kdapl_test_evd(test, env->ia, 64, DAT_EVD_DTO_FLAG);
	env->req = kdapl_test_evd(test, env->ia, 64,
				  DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG);
	env->conn = kdapl_test_evd(test, env->ia, 8, DAT_EVD_CONNECTION_FLAG);
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, env->pz, env->recv,
					    env->req, env->conn, NULL,
					    &env->ep),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_query(env->ep, DAT_EP_FIELD_ALL, &p),
			DAT_SUCCESS);
	env->attr = p.ep_attr;
	/* Two pages: one writable LMR, one read-only LMR. */
	env->buf = kunit_kzalloc(test, 2 * KDAPL_DTO_TEST_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->buf);
	env->lmr = kdapl_dto_test_lmr(env, env->buf, DAT_MEM_PRIV_ALL_FLAG,
				      &env->ctx, &env->addr, &env->rctx);
	env->lmr_ro = kdapl_dto_test_lmr(env, env->buf + KDAPL_DTO_TEST_LEN,
					 DAT_MEM_PRIV_LOCAL_READ_FLAG,
					 &env->ctx_ro, &env->addr_ro, NULL);
}

/* The environment on the adapter the test case is parameterised with. */
static void kdapl_dto_env_init(struct kunit *test, struct kdapl_dto_env *env)
{
	const char *const *name = test->param_value;

	kdapl_dto_env_open(test, env, *name);
}

static void kdapl_dto_set_state(struct kunit *test, DAT_EP_HANDLE handle,
				DAT_EP_STATE state)
{
	struct kdapl_ep *ep;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, handle, EP, DAT_INVALID_HANDLE_EP,
					&ep),
			DAT_SUCCESS);
	kdapl_ep_set_state(ep, state);
	kdapl_object_put(&ep->obj);
}

static DAT_BOOLEAN kdapl_dto_recv_idle(struct kunit *test, DAT_EP_HANDLE ep)
{
	DAT_BOOLEAN recv_idle = 42, request_idle = 42;

	KUNIT_ASSERT_EQ(test, dat_ep_get_status(ep, NULL, &recv_idle,
						&request_idle),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, request_idle, DAT_TRUE);
	return recv_idle;
}

#define ARG_ERR(n)	KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG##n)

static void kdapl_dto_recv_args_test(struct kunit *test)
{
	struct kdapl_dto_env env;
	DAT_LMR_TRIPLET t, many[64];
	DAT_DTO_COOKIE c = { .as_64 = 7 };
	int i;

	kdapl_dto_env_init(test, &env);
	t = (DAT_LMR_TRIPLET) { env.addr, 64, env.ctx };

	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(DAT_HANDLE_NULL, 1, &t, c, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.pz, 1, &t, c, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, -1, &t, c, 0),
			ARG_ERR(2));
	KUNIT_ASSERT_LT(test, env.attr.max_recv_iov, (DAT_COUNT)64);
	for (i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = t;
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep,
					       env.attr.max_recv_iov + 1,
					       many, c, 0),
			ARG_ERR(2));
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, NULL, c, 0),
			ARG_ERR(3));
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c,
					       DAT_COMPLETION_SUPPRESS_FLAG),
			ARG_ERR(5));
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0x100),
			ARG_ERR(5));
	/* The EP was not created for unsignalled receives. */
	KUNIT_EXPECT_EQ(test,
			dat_ep_post_recv(env.ep, 1, &t, c,
					 DAT_COMPLETION_UNSIGNALLED_FLAG),
			ARG_ERR(5));

	/* Segments: unknown context, outside the LMR, read-only LMR. */
	t.lmr_context = env.ctx ^ 0x5a5a0000;
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));
	t = (DAT_LMR_TRIPLET) { env.addr + 1, KDAPL_DTO_TEST_LEN, env.ctx };
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));
	t = (DAT_LMR_TRIPLET) { env.addr - 1, 2, env.ctx };
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));
	t = (DAT_LMR_TRIPLET) { env.addr_ro, 64, env.ctx_ro };
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			KDAPL_ERR(DAT_PRIVILEGES_VIOLATION,
				  DAT_PRIVILEGES_WRITE));
	/* Nothing of that was posted. */
	KUNIT_EXPECT_EQ(test, kdapl_dto_recv_idle(test, env.ep), DAT_TRUE);

	/* An LMR freed is no longer known to the PZ. */
	KUNIT_ASSERT_EQ(test, dat_lmr_free(env.lmr_ro), DAT_SUCCESS);
	t = (DAT_LMR_TRIPLET) { env.addr_ro, 64, env.ctx_ro };
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));

	/* A freed EP. */
	KUNIT_ASSERT_EQ(test, dat_ep_free(env.ep), DAT_SUCCESS);
	t = (DAT_LMR_TRIPLET) { env.addr, 64, env.ctx };
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
}

/* Receives before a connection are held, counted and limited. */
static void kdapl_dto_recv_held_test(struct kunit *test)
{
	const DAT_EP_PARAM_MASK flags_field =
		DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS;
	struct kdapl_dto_env env;
	DAT_EP_PARAM p = {};
	DAT_DTO_COOKIE c = { .as_64 = 1 };
	DAT_LMR_TRIPLET t;
	DAT_EVENT ev;
	DAT_COUNT i;

	kdapl_dto_env_init(test, &env);
	t = (DAT_LMR_TRIPLET) { env.addr, 64, env.ctx };
	KUNIT_EXPECT_EQ(test, kdapl_dto_recv_idle(test, env.ep), DAT_TRUE);
	/* Zero segments (a zero-length receive) with a NULL vector. */
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 0, NULL, c, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_dto_recv_idle(test, env.ep), DAT_FALSE);
	for (i = 1; i < env.attr.max_recv_dtos; i++)
		KUNIT_ASSERT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
				DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				  DAT_RESOURCE_TEP));
	/* Held, not completed: no event. */
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env.recv, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	/*
	 * Posted receives fix the receive completion flags: a change the EP
	 * took before them (see the end) is refused for its state.
	 */
	p.ep_attr.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(env.ep, flags_field, &p),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONNECTED));
	/* Still held in the other pre-connection states. */
	kdapl_dto_set_state(test, env.ep, DAT_EP_STATE_RESERVED);
	KUNIT_EXPECT_EQ(test, kdapl_dto_recv_idle(test, env.ep), DAT_FALSE);
	kdapl_dto_set_state(test, env.ep, DAT_EP_STATE_UNCONNECTED);
	/* Freeing the EP drops them. */
	KUNIT_EXPECT_EQ(test, dat_ep_free(env.ep), DAT_SUCCESS);

	/* Without receives posted, the same change is taken. */
	KUNIT_ASSERT_EQ(test, dat_ep_create(env.ia, env.pz, env.recv, env.req,
					    env.conn, NULL, &env.ep),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_modify(env.ep, flags_field, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(env.ep), DAT_SUCCESS);
}

static const DAT_EP_STATE kdapl_dto_test_states[] = {
	DAT_EP_STATE_UNCONNECTED,
	DAT_EP_STATE_RESERVED,
	DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
	DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
	DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
	DAT_EP_STATE_CONNECTED,
	DAT_EP_STATE_DISCONNECT_PENDING,
	DAT_EP_STATE_DISCONNECTED,
	DAT_EP_STATE_COMPLETION_PENDING,
};

/* The subtype a request gets in each state; no QP exists in any. */
static DAT_RETURN_SUBTYPE kdapl_dto_state_subtype(DAT_EP_STATE s)
{
	switch (s) {
	case DAT_EP_STATE_UNCONNECTED:
		return DAT_INVALID_STATE_EP_UNCONNECTED;
	case DAT_EP_STATE_RESERVED:
		return DAT_INVALID_STATE_EP_RESERVED;
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
		return DAT_INVALID_STATE_EP_PASSCONNPENDING;
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
		return DAT_INVALID_STATE_EP_ACTCONNPENDING;
	case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
		return DAT_INVALID_STATE_EP_TENTCONNPENDING;
	case DAT_EP_STATE_DISCONNECT_PENDING:
		return DAT_INVALID_STATE_EP_DISCPENDING;
	case DAT_EP_STATE_COMPLETION_PENDING:
		return DAT_INVALID_STATE_EP_COMPLPENDING;
	case DAT_EP_STATE_CONNECTED:	/* connected without a QP */
	case DAT_EP_STATE_DISCONNECTED:
	default:
		return DAT_INVALID_STATE_EP_DISCONNECTED;
	}
}

/* Receives flushed at once: the connection is gone or going. */
/*
 * A QP-less EP in these states lost its connection: a receive flushes at
 * once.  In the others (COMPLETION_PENDING included: accepted, the
 * connection coming up) it is held for the QP.
 */
static bool kdapl_dto_state_flushes(DAT_EP_STATE s)
{
	return s == DAT_EP_STATE_CONNECTED ||
	       s == DAT_EP_STATE_DISCONNECT_PENDING ||
	       s == DAT_EP_STATE_DISCONNECTED;
}

static const void *kdapl_dto_state_gen(const void *prev, char *desc)
{
	const DAT_EP_STATE *s = prev ? (const DAT_EP_STATE *)prev + 1 :
				       kdapl_dto_test_states;

	if (s >= kdapl_dto_test_states + ARRAY_SIZE(kdapl_dto_test_states))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "state %d", *s);
	return s;
}

static void kdapl_dto_state_test(struct kunit *test)
{
	const DAT_EP_STATE state = *(const DAT_EP_STATE *)test->param_value;
	DAT_RETURN bad = KDAPL_ERR(DAT_INVALID_STATE,
				   kdapl_dto_state_subtype(state));
	DAT_DTO_COOKIE c = { .as_64 = 0xc0ffee };
	struct kdapl_dto_env env;
	DAT_RMR_TRIPLET remote, rlocal;
	DAT_RMR_CONTEXT rctx = 0x1234;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_TRIPLET t;
	DAT_EVENT ev;

	/* Parameterised by state: soft RoCE, present on every kernel. */
	kdapl_dto_env_open(test, &env, KDAPL_TEST_ROCE);
	t = (DAT_LMR_TRIPLET) { env.addr, 64, env.ctx };
	remote = (DAT_RMR_TRIPLET) { env.addr, 64, env.rctx };
	rlocal = remote;
	KUNIT_ASSERT_EQ(test, dat_rmr_create(env.pz, &rmr), DAT_SUCCESS);
	kdapl_dto_set_state(test, env.ep, state);

	KUNIT_EXPECT_EQ(test, dat_ep_post_send(env.ep, 1, &t, c, 0), bad);
	KUNIT_EXPECT_EQ(test, dat_ep_post_send_with_invalidate(env.ep, 1, &t,
							       c, 0, DAT_TRUE,
							       env.rctx),
			bad);
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_write(env.ep, 1, &t, c,
						     &remote, 0),
			bad);
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read(env.ep, 1, &t, c,
						    &remote, 0),
			bad);
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.ep, &rlocal, c,
							   &remote, 0),
			bad);
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t,
					   DAT_MEM_PRIV_REMOTE_READ_FLAG,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			bad);
	KUNIT_EXPECT_EQ(test, rctx, (DAT_RMR_CONTEXT)0x1234);

	/* Receives are valid in every state. */
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(env.ep, 1, &t, c, 0),
			DAT_SUCCESS);
	if (kdapl_dto_state_flushes(state)) {
		KUNIT_EXPECT_EQ(test, kdapl_dto_recv_idle(test, env.ep),
				DAT_TRUE);
		KUNIT_ASSERT_EQ(test, dat_evd_dequeue(env.recv, &ev),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, ev.event_number,
				DAT_DTO_COMPLETION_EVENT);
		KUNIT_EXPECT_EQ(test,
				ev.event_data.dto_completion_event_data.status,
				DAT_DTO_ERR_FLUSHED);
		KUNIT_EXPECT_EQ(test,
				ev.event_data.dto_completion_event_data.user_cookie.as_64,
				c.as_64);
		KUNIT_EXPECT_PTR_EQ(test,
				    ev.event_data.dto_completion_event_data.ep_handle,
				    env.ep);
		KUNIT_EXPECT_EQ(test,
				ev.event_data.dto_completion_event_data.operation,
				DAT_DTO_RECEIVE);
	} else {
		KUNIT_EXPECT_EQ(test, kdapl_dto_recv_idle(test, env.ep),
				DAT_FALSE);
	}
	/* Exactly one event, or none. */
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env.recv, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env.req, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	/* The IA's abrupt close frees everything in any state. */
}

/* Arguments of the request posts, checked before the state. */
static void kdapl_dto_request_args_test(struct kunit *test)
{
	DAT_DTO_COOKIE c = { .as_64 = 3 };
	struct kdapl_dto_env env;
	DAT_RMR_TRIPLET remote;
	DAT_LMR_TRIPLET t;

	kdapl_dto_env_init(test, &env);
	t = (DAT_LMR_TRIPLET) { env.addr, 64, env.ctx };
	remote = (DAT_RMR_TRIPLET) { env.addr, 64, env.rctx };

	KUNIT_EXPECT_EQ(test, dat_ep_post_send(DAT_HANDLE_NULL, 1, &t, c, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_post_send(env.ep, -1, &t, c, 0),
			ARG_ERR(2));
	KUNIT_EXPECT_EQ(test, dat_ep_post_send(env.ep, 1, NULL, c, 0),
			ARG_ERR(3));
	KUNIT_EXPECT_EQ(test, dat_ep_post_send(env.ep, 1, &t, c,
					       DAT_COMPLETION_EVD_THRESHOLD_FLAG),
			ARG_ERR(5));
	KUNIT_EXPECT_EQ(test,
			dat_ep_post_send_with_invalidate(env.ep, 1, &t, c, 0,
							 2, 0),
			ARG_ERR(6));
	KUNIT_EXPECT_EQ(test,
			dat_ep_post_send_with_invalidate(env.ep, -1, &t, c, 0,
							 DAT_TRUE, 0),
			ARG_ERR(2));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_write(env.ep, -1, &t, c,
						     &remote, 0),
			ARG_ERR(2));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_write(env.ep, 1, NULL, c,
						     &remote, 0),
			ARG_ERR(3));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_write(env.ep, 1, &t, c, NULL,
						     0),
			ARG_ERR(5));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_write(env.ep, 1, &t, c,
						     &remote,
						     DAT_COMPLETION_SOLICITED_WAIT_FLAG),
			ARG_ERR(6));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read(env.ep, 1, &t, c, NULL,
						    0),
			ARG_ERR(5));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read(env.ep, 1, &t, c,
						    &remote, 0x40),
			ARG_ERR(6));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.ep, NULL, c,
							   &remote, 0),
			ARG_ERR(2));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.ep, &remote, c,
							   NULL, 0),
			ARG_ERR(4));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_read_to_rmr(env.ep, &remote, c,
							   &remote, 0x40),
			ARG_ERR(5));
	/* With valid arguments the state decides. */
	KUNIT_EXPECT_EQ(test, dat_ep_post_send(env.ep, 0, NULL, c, 0),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONNECTED));
}

static void kdapl_dto_rmr_bind_args_test(struct kunit *test)
{
	DAT_RMR_COOKIE c = { .as_64 = 5 };
	DAT_RMR_CONTEXT rctx = 0x77;
	struct kdapl_dto_env env;
	DAT_RMR_HANDLE rmr, rmr2;
	DAT_PZ_HANDLE pz2;
	DAT_LMR_TRIPLET t;

	kdapl_dto_env_init(test, &env);
	t = (DAT_LMR_TRIPLET) { env.addr, 64, env.ctx };
	KUNIT_ASSERT_EQ(test, dat_rmr_create(env.pz, &rmr), DAT_SUCCESS);
	pz2 = kdapl_test_pz(test, env.ia);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(pz2, &rmr2), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, NULL, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			ARG_ERR(3));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0x10000,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			ARG_ERR(4));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0,
					   DAT_VA_TYPE_ZB, env.ep, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0, 77, env.ep,
					   c, 0, &rctx),
			ARG_ERR(5));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c,
					   DAT_COMPLETION_SOLICITED_WAIT_FLAG,
					   &rctx),
			ARG_ERR(8));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0, NULL),
			ARG_ERR(9));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(DAT_HANDLE_NULL, env.lmr, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0,
					   DAT_VA_TYPE_VA, env.pz, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.ep, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	/* The RMR of another PZ than the EP's. */
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr2, env.lmr, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE));
	/* Ranges and contexts that do not match the LMR. */
	t.lmr_context = env.ctx_ro;
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			ARG_ERR(3));
	t = (DAT_LMR_TRIPLET) { env.addr + 1, KDAPL_DTO_TEST_LEN, env.ctx };
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			ARG_ERR(3));
	/* Write privileges over a read-only LMR. */
	t = (DAT_LMR_TRIPLET) { env.addr_ro, 64, env.ctx_ro };
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr_ro, &t,
					   DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_PRIVILEGES_VIOLATION,
				  DAT_PRIVILEGES_RDMA_WRITE));
	/* Valid, but not connected: nothing changes. */
	t = (DAT_LMR_TRIPLET) { env.addr, 64, env.ctx };
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, env.lmr, &t,
					   DAT_MEM_PRIV_REMOTE_READ_FLAG,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONNECTED));
	KUNIT_EXPECT_EQ(test, rctx, (DAT_RMR_CONTEXT)0x77);
	/* An unbind of an unbound RMR still needs a connected EP. */
	t.segment_length = 0;
	KUNIT_EXPECT_EQ(test, dat_rmr_bind(rmr, DAT_HANDLE_NULL, &t, 0,
					   DAT_VA_TYPE_VA, env.ep, c, 0,
					   &rctx),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONNECTED));
	/* The LMR is not in use by a failed bind. */
	KUNIT_EXPECT_EQ(test, dat_lmr_free(env.lmr), DAT_SUCCESS);
}

/* The one completion status table. */
static void kdapl_dto_status_test(struct kunit *test)
{
	static const struct {
		enum ib_wc_status wc;
		DAT_DTO_COMPLETION_STATUS dat;
	} map[] = {
		{ IB_WC_SUCCESS, DAT_DTO_SUCCESS },
		{ IB_WC_WR_FLUSH_ERR, DAT_DTO_ERR_FLUSHED },
		{ IB_WC_LOC_LEN_ERR, DAT_DTO_ERR_LOCAL_LENGTH },
		{ IB_WC_LOC_QP_OP_ERR, DAT_DTO_ERR_LOCAL_EP },
		{ IB_WC_LOC_PROT_ERR, DAT_DTO_ERR_LOCAL_PROTECTION },
		{ IB_WC_BAD_RESP_ERR, DAT_DTO_ERR_BAD_RESPONSE },
		{ IB_WC_REM_ACCESS_ERR, DAT_DTO_ERR_REMOTE_ACCESS },
		{ IB_WC_REM_INV_REQ_ERR, DAT_DTO_ERR_REMOTE_RESPONDER },
		{ IB_WC_REM_OP_ERR, DAT_DTO_ERR_REMOTE_RESPONDER },
		{ IB_WC_REM_ABORT_ERR, DAT_DTO_ERR_REMOTE_RESPONDER },
		{ IB_WC_RNR_RETRY_EXC_ERR, DAT_DTO_ERR_RECEIVER_NOT_READY },
		{ IB_WC_MW_BIND_ERR, DAT_DTO_ERR_LOCAL_MM_ERROR },
		{ IB_WC_RETRY_EXC_ERR, DAT_DTO_ERR_TRANSPORT },
		{ IB_WC_FATAL_ERR, DAT_DTO_ERR_TRANSPORT },
		{ IB_WC_GENERAL_ERR, DAT_DTO_ERR_TRANSPORT },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		KUNIT_EXPECT_EQ_MSG(test, kdapl_dto_wc_status(map[i].wc),
				    map[i].dat, "wc status %d", map[i].wc);
}

static struct kunit_case kdapl_dto_cases[] = {
	KUNIT_CASE(kdapl_dto_status_test),
	KUNIT_CASE_PARAM(kdapl_dto_recv_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_dto_recv_held_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_dto_request_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_dto_rmr_bind_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_dto_state_test, kdapl_dto_state_gen),
	{}
};

static struct kunit_suite kdapl_dto_suite = {
	.name = "kdapl_dto",
	.test_cases = kdapl_dto_cases,
};

kunit_test_suite(kdapl_dto_suite);
