// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the connections of Endpoints: the argument, handle and
 * state checks of dat_ep_connect(), dat_ep_dup_connect(),
 * dat_ep_common_connect() and dat_ep_disconnect() in every EP state, and real connections on each
 * adapter in loopback (the IA connects to its own address): no listener,
 * connect timeout and abort, accept with private data both ways, reject,
 * accept of a request its peer gave up, dup_connect, graceful and abrupt
 * disconnect, and freeing connected EPs.
 *
 * The expectations follow the DAT manual pages (dat_ep_connect(3),
 * dat_ep_dup_connect(3), dat_ep_common_connect(3) and
 * dat_ep_disconnect(3)).
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "kdapl_test_util.h"

/* Qualifiers no other suite listens on. */
#define KDAPL_CM_TEST_NOLISTEN	47120
#define KDAPL_CM_TEST_QUAL	47130

/* How long a loopback connection event may take. */
#define KDAPL_CM_TEST_WAIT_MS	10000

static const DAT_EP_STATE kdapl_cm_test_states[] = {
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

static const DAT_RETURN_SUBTYPE kdapl_cm_test_subtypes[] = {
	DAT_INVALID_STATE_EP_UNCONNECTED,
	DAT_INVALID_STATE_EP_RESERVED,
	DAT_INVALID_STATE_EP_PASSCONNPENDING,
	DAT_INVALID_STATE_EP_ACTCONNPENDING,
	DAT_INVALID_STATE_EP_TENTCONNPENDING,
	DAT_INVALID_STATE_EP_CONNECTED,
	DAT_INVALID_STATE_EP_DISCPENDING,
	DAT_INVALID_STATE_EP_DISCONNECTED,
	DAT_INVALID_STATE_EP_COMPLPENDING,
};

struct kdapl_cm_env {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE conn;	/* connection events of the client */
	DAT_EVD_HANDLE sconn;	/* connection events of the server */
	DAT_EVD_HANDLE cr;	/* connection requests */
	DAT_EVD_HANDLE dto;
	struct sockaddr_in addr;	/* the IA's address */
	DAT_COUNT pd_max;
	bool iwarp;
};

static struct kdapl_cm_env *kdapl_cm_env(struct kunit *test, const char *name)
{
	DAT_PROVIDER_ATTR pattr;
	struct kdapl_cm_env *env;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR attr;

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->ia = kdapl_test_open_ia(test, name);
	env->pz = kdapl_test_pz(test, env->ia);
	env->conn = kdapl_test_evd(test, env->ia, 8, DAT_EVD_CONNECTION_FLAG);
	env->sconn = kdapl_test_evd(test, env->ia, 8,
				    DAT_EVD_CONNECTION_FLAG);
	env->cr = kdapl_test_evd(test, env->ia, 8, DAT_EVD_CR_FLAG);
	env->dto = kdapl_test_evd(test, env->ia, 64, DAT_EVD_DTO_FLAG);
	KUNIT_ASSERT_EQ(test, dat_ia_query(env->ia, &async,
					   DAT_IA_FIELD_ALL, &attr,
					   DAT_PROVIDER_FIELD_ALL, &pattr),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, attr.ia_address_ptr->sa_family, AF_INET);
	memcpy(&env->addr, attr.ia_address_ptr, sizeof(env->addr));
	env->pd_max = pattr.max_private_data_size;
	env->iwarp = !strcmp(name, KDAPL_TEST_IWARP);
	return env;
}

static DAT_EP_HANDLE kdapl_cm_ep(struct kunit *test, struct kdapl_cm_env *env,
				 DAT_EVD_HANDLE conn)
{
	DAT_EP_HANDLE ep;

	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, env->pz, env->dto,
					    env->dto, conn, NULL, &ep),
			DAT_SUCCESS);
	return ep;
}

/* Wait until @ep has no DTO outstanding (the flushes came). */
static void kdapl_cm_idle(struct kunit *test, DAT_EP_HANDLE ep)
{
	unsigned long end = jiffies + msecs_to_jiffies(KDAPL_CM_TEST_WAIT_MS);
	DAT_BOOLEAN recv_idle, req_idle;

	do {
		KUNIT_ASSERT_EQ(test, dat_ep_get_status(ep, NULL, &recv_idle,
							&req_idle),
				DAT_SUCCESS);
		if (recv_idle && req_idle)
			return;
		usleep_range(5000, 10000);
	} while (time_before(jiffies, end));
	KUNIT_FAIL(test, "DTOs still outstanding");
}

static void kdapl_cm_reset(struct kunit *test, DAT_EP_HANDLE ep)
{
	kdapl_cm_idle(test, ep);
	KUNIT_EXPECT_EQ(test, dat_ep_reset(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_UNCONNECTED);
}

static struct sockaddr *kdapl_cm_sa(struct sockaddr_in *sin)
{
	return (struct sockaddr *)sin;
}

/* ---------------------------------------------------------------------
 * Arguments and handles
 */

static void kdapl_cm_args_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = env->addr, bad = env->addr;
	struct kdapl_cm_unix { sa_family_t family; char path[14]; } un = {
		.family = AF_UNIX,
	};
	static const u8 pd[256];
	DAT_EP_HANDLE ep, nopz, dup;
	DAT_IA_HANDLE ia = env->ia;
	const DAT_TIMEOUT to = DAT_TIMEOUT_INFINITE;
	const DAT_CONN_QUAL q = KDAPL_CM_TEST_NOLISTEN;

	ep = kdapl_cm_ep(test, env, env->conn);
	dup = kdapl_cm_ep(test, env, env->conn);
	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, DAT_HANDLE_NULL,
					    DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					    DAT_HANDLE_NULL, NULL, &nopz),
			DAT_SUCCESS);

	/* The transport's limit, as the provider attributes say. */
	KUNIT_EXPECT_EQ(test, env->pd_max, env->iwarp ? 252 : 56);

	KUNIT_EXPECT_EQ(test, dat_ep_connect(env->pz, kdapl_cm_sa(&sin), q, to,
					     0, NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(DAT_HANDLE_NULL,
					     kdapl_cm_sa(&sin), q, to, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, NULL, q, to, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, (struct sockaddr *)&un, q, to,
					     0, NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_UNSUPPORTED));
	bad.sin_addr.s_addr = htonl(INADDR_ANY);
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&bad), q, to, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_MALFORMED));
	bad.sin_addr.s_addr = htonl(0xe0000001);	/* 224.0.0.1 */
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&bad), q, to, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_MALFORMED));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), 0, to, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, 0, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to, -1,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to,
					     env->pd_max + 1, (DAT_PVOID)pd,
					     DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to, 4,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to, 0,
					     NULL, (DAT_QOS)0x100, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to, 0,
					     NULL, DAT_QOS_HIGH_THROUGHPUT, 0),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to, 0,
					     NULL, DAT_QOS_BEST_EFFORT,
					     (DAT_CONNECT_FLAGS)0x4),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to, 0,
					     NULL, DAT_QOS_BEST_EFFORT,
					     DAT_CONNECT_MULTIPATH_REQUIRED_FLAG),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0));
	KUNIT_EXPECT_EQ(test, dat_ep_connect(nopz, kdapl_cm_sa(&sin), q, to, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONFIGURED));
	/* None of them moved the EP. */
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_UNCONNECTED);

	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(env->pz, dup, to, 0, NULL,
						 DAT_QOS_BEST_EFFORT),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, env->pz, to, 0, NULL,
						 DAT_QOS_BEST_EFFORT),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, dup, 0, 0, NULL,
						 DAT_QOS_BEST_EFFORT),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, dup, to, -1, NULL,
						 DAT_QOS_BEST_EFFORT),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, dup, to, env->pd_max + 1,
						 (DAT_PVOID)pd,
						 DAT_QOS_BEST_EFFORT),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, dup, to, 4, NULL,
						 DAT_QOS_BEST_EFFORT),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, dup, to, 0, NULL,
						 (DAT_QOS)0x100),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, dup, to, 0, NULL,
						 DAT_QOS_PREMIUM),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0));
	/* The duplicated EP must be connected. */
	KUNIT_EXPECT_EQ(test, dat_ep_dup_connect(ep, dup, to, 0, NULL,
						 DAT_QOS_BEST_EFFORT),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONNECTED));

	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(env->pz,
						DAT_CLOSE_ABRUPT_FLAG),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(ep, (DAT_CLOSE_FLAGS)2),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	/* A freed EP is a bad handle. */
	KUNIT_EXPECT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin), q, to, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
}

/* ---------------------------------------------------------------------
 * Every state, without connections (kdapl_ep_set_state())
 */

static void kdapl_cm_state_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = env->addr;
	const DAT_CLOSE_FLAGS ab = DAT_CLOSE_ABRUPT_FLAG;
	const DAT_CLOSE_FLAGS gr = DAT_CLOSE_GRACEFUL_FLAG;
	const DAT_TIMEOUT to = DAT_TIMEOUT_INFINITE;
	DAT_EP_HANDLE ep, dup, fresh;
	unsigned int i;
	DAT_EVENT ev;

	ep = kdapl_cm_ep(test, env, env->conn);
	dup = kdapl_cm_ep(test, env, env->conn);
	fresh = kdapl_cm_ep(test, env, env->conn);

	for (i = 0; i < ARRAY_SIZE(kdapl_cm_test_states); i++) {
		DAT_EP_STATE s = kdapl_cm_test_states[i];
		DAT_RETURN state_err = KDAPL_ERR(DAT_INVALID_STATE,
						 kdapl_cm_test_subtypes[i]);

		kunit_info(test, "state %d", s);
		/* dat_ep_connect(): only UNCONNECTED (tested elsewhere). */
		if (s != DAT_EP_STATE_UNCONNECTED) {
			kdapl_test_set_ep_state(test, ep, s);
			KUNIT_EXPECT_EQ(test,
					dat_ep_connect(ep, kdapl_cm_sa(&sin),
						       KDAPL_CM_TEST_NOLISTEN,
						       to, 0, NULL,
						       DAT_QOS_BEST_EFFORT, 0),
					state_err);
			KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep), s);
			KUNIT_EXPECT_EQ(test,
					dat_ep_dup_connect(ep, fresh, to, 0,
							   NULL,
							   DAT_QOS_BEST_EFFORT),
					state_err);
		}

		/* dat_ep_dup_connect(): the duplicated EP in state @s. */
		kdapl_test_set_ep_state(test, dup, s);
		if (s == DAT_EP_STATE_CONNECTED)
			/* Forced: it has no peer address to go to. */
			KUNIT_EXPECT_EQ(test,
					dat_ep_dup_connect(fresh, dup, to, 0,
							   NULL,
							   DAT_QOS_BEST_EFFORT),
					KDAPL_ERR(DAT_INVALID_ADDRESS,
						  DAT_INVALID_ADDRESS_UNSUPPORTED));
		else
			KUNIT_EXPECT_EQ(test,
					dat_ep_dup_connect(fresh, dup, to, 0,
							   NULL,
							   DAT_QOS_BEST_EFFORT),
					state_err);
		KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, fresh),
				DAT_EP_STATE_UNCONNECTED);

		/* dat_ep_disconnect(), both flags. */
		kdapl_test_set_ep_state(test, ep, s);
		switch (s) {
		case DAT_EP_STATE_UNCONNECTED:
		case DAT_EP_STATE_RESERVED:
		case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
		case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
			KUNIT_EXPECT_EQ(test,
					dat_ep_disconnect(ep, ab),
					state_err);
			KUNIT_EXPECT_EQ(test,
					dat_ep_disconnect(ep, gr),
					state_err);
			KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep), s);
			break;
		case DAT_EP_STATE_DISCONNECT_PENDING:
			/* Graceful again does nothing, abrupt finishes. */
			KUNIT_EXPECT_EQ(test,
					dat_ep_disconnect(ep, gr),
					DAT_SUCCESS);
			KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep), s);
			KUNIT_EXPECT_EQ(test,
					dat_ep_disconnect(ep, ab),
					DAT_SUCCESS);
			KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
					DAT_EP_STATE_DISCONNECTED);
			break;
		default:
			/* Connected, pending or disconnected: success. */
			KUNIT_EXPECT_EQ(test,
					dat_ep_disconnect(ep, ab),
					DAT_SUCCESS);
			KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
					DAT_EP_STATE_DISCONNECTED);
			kdapl_test_set_ep_state(test, ep, s);
			KUNIT_EXPECT_EQ(test,
					dat_ep_disconnect(ep, gr),
					DAT_SUCCESS);
			if (s == DAT_EP_STATE_DISCONNECTED)
				KUNIT_EXPECT_EQ(test,
						kdapl_test_ep_state(test, ep), s);
			break;
		}
	}
	/* No connection existed: no connection event either. */
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env->conn, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
	kdapl_test_set_ep_state(test, ep, DAT_EP_STATE_UNCONNECTED);
	kdapl_test_set_ep_state(test, dup, DAT_EP_STATE_UNCONNECTED);
}

/* ---------------------------------------------------------------------
 * Real connections, loopback on the adapter's own address
 */

/* Nobody listens: the peer's transport refuses. */
/*
 * dat_ep_common_connect(): the port of the address is the qualifier, and
 * the argument numbers are its own.
 */
static void kdapl_cm_common_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = env->addr;
	const DAT_TIMEOUT to = DAT_TIMEOUT_INFINITE;
	static const u8 pd[256];
	DAT_EP_PARAM param;
	DAT_EP_HANDLE ep;

	ep = kdapl_cm_ep(test, env, env->conn);
	sin.sin_port = 0;
	KUNIT_EXPECT_EQ(test, dat_ep_common_connect(ep, kdapl_cm_sa(&sin), to,
						    0, NULL),
			KDAPL_ERR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_MALFORMED));
	sin.sin_port = htons(KDAPL_CM_TEST_NOLISTEN);
	KUNIT_EXPECT_EQ(test, dat_ep_common_connect(env->pz, kdapl_cm_sa(&sin),
						    to, 0, NULL),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_common_connect(ep, NULL, to, 0, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ep_common_connect(ep, kdapl_cm_sa(&sin), 0,
						    0, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_common_connect(ep, kdapl_cm_sa(&sin), to,
						    -1, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, dat_ep_common_connect(ep, kdapl_cm_sa(&sin), to,
						    env->pd_max + 1,
						    (DAT_PVOID)pd),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, dat_ep_common_connect(ep, kdapl_cm_sa(&sin), to,
						    4, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_UNCONNECTED);

	/* To the port, where no one listens. */
	KUNIT_ASSERT_EQ(test, dat_ep_common_connect(ep, kdapl_cm_sa(&sin), to,
						    3, "abc"),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_query(ep, DAT_EP_FIELD_REMOTE_PORT_QUAL,
					   &param), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.remote_port_qual, KDAPL_CM_TEST_NOLISTEN);
	kdapl_test_expect_conn(test, env->conn, ep,
			       DAT_CONNECTION_EVENT_NON_PEER_REJECTED, NULL);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
}

static void kdapl_cm_no_listener_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = env->addr;
	DAT_EP_PARAM param;
	DAT_EP_HANDLE ep;
	int round;

	ep = kdapl_cm_ep(test, env, env->conn);
	for (round = 0; round < 2; round++) {
		KUNIT_ASSERT_EQ(test,
				dat_ep_connect(ep, kdapl_cm_sa(&sin),
					       KDAPL_CM_TEST_NOLISTEN,
					       DAT_TIMEOUT_INFINITE, 3, "abc",
					       DAT_QOS_BEST_EFFORT,
					       DAT_CONNECT_MULTIPATH_FLAG),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, dat_ep_query(ep,
						   DAT_EP_FIELD_REMOTE_PORT_QUAL,
						   &param), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, param.remote_port_qual,
				KDAPL_CM_TEST_NOLISTEN);
		kdapl_test_expect_conn(test, env->conn, ep,
				       DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				       NULL);
		KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
				DAT_EP_STATE_DISCONNECTED);
		/* Disconnecting a disconnected EP does nothing. */
		KUNIT_EXPECT_EQ(test,
				dat_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG),
				DAT_SUCCESS);
		/* Not before a reset. */
		KUNIT_EXPECT_EQ(test,
				dat_ep_connect(ep, kdapl_cm_sa(&sin),
					       KDAPL_CM_TEST_NOLISTEN,
					       DAT_TIMEOUT_INFINITE, 0, NULL,
					       DAT_QOS_BEST_EFFORT, 0),
				KDAPL_ERR(DAT_INVALID_STATE,
					  DAT_INVALID_STATE_EP_DISCONNECTED));
		kdapl_cm_reset(test, ep);
	}
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
}

/* The address of a host that does not answer, on the adapter's subnet. */
static struct sockaddr_in kdapl_cm_nohost(const struct kdapl_cm_env *env)
{
	struct sockaddr_in sin = env->addr;

	sin.sin_addr.s_addr = htonl((ntohl(sin.sin_addr.s_addr) & ~0xffU) |
				    99);
	return sin;
}

/* The DAT timeout ends the attempt with TIMED_OUT. */
static void kdapl_cm_timeout_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = kdapl_cm_nohost(env);
	unsigned long start;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;

	ep = kdapl_cm_ep(test, env, env->conn);
	start = jiffies;
	KUNIT_ASSERT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin),
					     KDAPL_CM_TEST_NOLISTEN,
					     500 * USEC_PER_MSEC, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	kdapl_test_expect_conn(test, env->conn, ep,
			       DAT_CONNECTION_EVENT_TIMED_OUT, NULL);
	/* Not before the timeout, and not much after it. */
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - start), 450U);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - start), 1900U);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_DISCONNECTED);
	/* Nothing else follows (address resolution ends silently). */
	msleep(2200);
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env->conn, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
	kdapl_cm_reset(test, ep);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
}

static const DAT_CLOSE_FLAGS kdapl_cm_test_flags[] = {
	DAT_CLOSE_ABRUPT_FLAG, DAT_CLOSE_GRACEFUL_FLAG,
};

/* dat_ep_disconnect() aborts a pending attempt, either flag. */
static void kdapl_cm_abort_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = kdapl_cm_nohost(env);
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	int i;

	ep = kdapl_cm_ep(test, env, env->conn);
	for (i = 0; i < ARRAY_SIZE(kdapl_cm_test_flags); i++) {
		KUNIT_ASSERT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin),
						     KDAPL_CM_TEST_NOLISTEN,
						     DAT_TIMEOUT_INFINITE, 0,
						     NULL,
						     DAT_QOS_BEST_EFFORT, 0),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test,
				dat_ep_disconnect(ep, kdapl_cm_test_flags[i]),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
				DAT_EP_STATE_DISCONNECTED);
		/* The event is there when dat_ep_disconnect() returns. */
		KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env->conn, &ev),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, ev.event_number,
				DAT_CONNECTION_EVENT_DISCONNECTED);
		KUNIT_EXPECT_PTR_EQ(test,
				    ev.event_data.connect_event_data.ep_handle,
				    ep);
		kdapl_cm_reset(test, ep);
	}
	/* Freeing a connecting EP is fine too. */
	KUNIT_ASSERT_EQ(test, dat_ep_connect(ep, kdapl_cm_sa(&sin),
					     KDAPL_CM_TEST_NOLISTEN,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
}

/* Wait for a request on @env->cr; returns its CR handle. */
static DAT_CR_HANDLE kdapl_cm_request(struct kunit *test,
				      struct kdapl_cm_env *env,
				      DAT_PSP_HANDLE psp)
{
	DAT_EVENT ev = {};

	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(env->cr, &ev,
						    KDAPL_CM_TEST_WAIT_MS),
			      "no connection request");
	KUNIT_ASSERT_EQ(test, ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	KUNIT_EXPECT_PTR_EQ(test, ev.event_data.cr_arrival_event_data.sp_handle.psp_handle,
			    psp);
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

/* Accept @cli's request to @psp on @srv, see both established. */
static void kdapl_cm_accept_both(struct kunit *test, struct kdapl_cm_env *env,
				 DAT_PSP_HANDLE psp, DAT_EP_HANDLE cli,
				 DAT_EP_HANDLE srv)
{
	DAT_CR_HANDLE cr = kdapl_cm_request(test, env, psp);

	KUNIT_ASSERT_EQ(test, dat_cr_accept(cr, srv, 0, NULL), DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

/* Connect @cli to @qual on the IA's own address, no private data. */
static void kdapl_cm_connect(struct kunit *test, struct kdapl_cm_env *env,
			     DAT_EP_HANDLE cli, DAT_CONN_QUAL qual)
{
	struct sockaddr_in sin = env->addr;

	KUNIT_ASSERT_EQ(test, dat_ep_connect(cli, kdapl_cm_sa(&sin), qual,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
}

/* Connect @cli to @qual, accept on @srv, see both established. */
static void kdapl_cm_establish(struct kunit *test, struct kdapl_cm_env *env,
			       DAT_PSP_HANDLE psp, DAT_CONN_QUAL qual,
			       DAT_EP_HANDLE cli, DAT_EP_HANDLE srv)
{
	kdapl_cm_connect(test, env, cli, qual);
	kdapl_cm_accept_both(test, env, psp, cli, srv);
}

/*
 * Accept with private data both ways, dup_connect, graceful disconnect
 * from the active side, abrupt from the passive side.
 */
static void kdapl_cm_accept_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = env->addr;
	DAT_EP_HANDLE cli, srv, cli2, srv2;
	DAT_CONNECTION_EVENT_DATA *cd;
	DAT_CR_PARAM crp = {};
	DAT_EP_PARAM param;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	cli = kdapl_cm_ep(test, env, env->conn);
	cli2 = kdapl_cm_ep(test, env, env->conn);
	srv = kdapl_cm_ep(test, env, env->sconn);
	srv2 = kdapl_cm_ep(test, env, env->sconn);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, KDAPL_CM_TEST_QUAL,
					     env->cr, DAT_PSP_CONSUMER_FLAG,
					     &psp), DAT_SUCCESS);

	KUNIT_ASSERT_EQ(test, dat_ep_connect(cli, kdapl_cm_sa(&sin),
					     KDAPL_CM_TEST_QUAL,
					     DAT_TIMEOUT_INFINITE, 5, "hello",
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	cr = kdapl_cm_request(test, env, psp);
	KUNIT_ASSERT_EQ(test, dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp),
			DAT_SUCCESS);
	KUNIT_ASSERT_GE(test, crp.private_data_size, 5);
	KUNIT_EXPECT_EQ(test, memcmp(crp.private_data, "hello", 5), 0);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, cli),
			DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);

	KUNIT_ASSERT_EQ(test, dat_cr_accept(cr, srv, 5, "world"),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	cd = &ev.event_data.connect_event_data;
	KUNIT_ASSERT_GE(test, cd->private_data_size, 5);
	KUNIT_ASSERT_NOT_NULL(test, cd->private_data);
	KUNIT_EXPECT_EQ(test, memcmp(cd->private_data, "world", 5), 0);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, cli),
			DAT_EP_STATE_CONNECTED);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, srv),
			DAT_EP_STATE_CONNECTED);
	KUNIT_EXPECT_EQ(test, dat_ep_query(cli, DAT_EP_FIELD_ALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.remote_port_qual, KDAPL_CM_TEST_QUAL);
	KUNIT_EXPECT_EQ(test, ((struct sockaddr_in *)
			       param.remote_ia_address_ptr)->sin_addr.s_addr,
			sin.sin_addr.s_addr);
	KUNIT_EXPECT_EQ(test, ((struct sockaddr_in *)
			       param.local_ia_address_ptr)->sin_addr.s_addr,
			sin.sin_addr.s_addr);
	/* A connected EP connects no more. */
	KUNIT_EXPECT_EQ(test, dat_ep_connect(cli, kdapl_cm_sa(&sin),
					     KDAPL_CM_TEST_QUAL,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_CONNECTED));

	/* A second connection to the same place. */
	KUNIT_ASSERT_EQ(test, dat_ep_dup_connect(cli2, cli, 5 * USEC_PER_SEC,
						 0, NULL,
						 DAT_QOS_BEST_EFFORT),
			DAT_SUCCESS);
	kdapl_cm_accept_both(test, env, psp, cli2, srv2);

	/* Graceful from the active side: both hear DISCONNECTED. */
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(cli, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, cli),
			DAT_EP_STATE_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, srv),
			DAT_EP_STATE_DISCONNECTED);

	/* Abrupt from the passive side: its event is out at once. */
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(srv2, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, srv2),
			DAT_EP_STATE_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env->sconn, &ev), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, ev.event_number,
			DAT_CONNECTION_EVENT_DISCONNECTED);
	kdapl_test_expect_conn(test, env->conn, cli2,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);

	/* All four come back for another round. */
	kdapl_cm_reset(test, cli);
	kdapl_cm_reset(test, srv);
	kdapl_cm_reset(test, cli2);
	kdapl_cm_reset(test, srv2);
	kdapl_cm_establish(test, env, psp, KDAPL_CM_TEST_QUAL, cli, srv);

	/* Freeing a connected EP disconnects its peer. */
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	KUNIT_EXPECT_EQ(test, dat_ep_free(srv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(srv2), DAT_SUCCESS);
}

/*
 * dat_ep_common_connect() to a CSP: the request comes with the CSP as
 * sp_handle and the port as conn_qual, and is accepted as a PSP's.
 */
static void kdapl_cm_csp_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	DAT_COMM comm = { AF_INET, SOCK_STREAM, IPPROTO_TCP };
	struct sockaddr_in sin = env->addr;
	DAT_CR_ARRIVAL_EVENT_DATA *d;
	DAT_EP_HANDLE cli, srv;
	DAT_CSP_HANDLE csp;
	DAT_EVENT ev = {};

	cli = kdapl_cm_ep(test, env, env->conn);
	srv = kdapl_cm_ep(test, env, env->sconn);
	sin.sin_port = htons(KDAPL_CM_TEST_QUAL + 3);
	KUNIT_ASSERT_EQ(test, dat_csp_create(env->ia, &comm, kdapl_cm_sa(&sin),
					     env->cr, &csp),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_common_connect(cli, kdapl_cm_sa(&sin),
						    DAT_TIMEOUT_INFINITE, 3,
						    "csp"),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(env->cr, &ev,
						    KDAPL_CM_TEST_WAIT_MS),
			      "no connection request");
	KUNIT_ASSERT_EQ(test, ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	d = &ev.event_data.cr_arrival_event_data;
	KUNIT_EXPECT_PTR_EQ(test, d->sp_handle.csp_handle, csp);
	KUNIT_EXPECT_EQ(test, d->conn_qual, KDAPL_CM_TEST_QUAL + 3);
	KUNIT_ASSERT_EQ(test, dat_cr_accept(d->cr_handle, srv, 0, NULL),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(cli, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	KUNIT_EXPECT_EQ(test, dat_csp_free(csp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(srv), DAT_SUCCESS);
}

/* The peer's consumer rejects: PEER_REJECTED with its private data. */
static void kdapl_cm_reject_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	DAT_CONNECTION_EVENT_DATA *cd;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE cli;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	cli = kdapl_cm_ep(test, env, env->conn);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, KDAPL_CM_TEST_QUAL + 1,
					     env->cr, DAT_PSP_CONSUMER_FLAG,
					     &psp), DAT_SUCCESS);
	kdapl_cm_connect(test, env, cli, KDAPL_CM_TEST_QUAL + 1);
	cr = kdapl_cm_request(test, env, psp);
	KUNIT_ASSERT_EQ(test, dat_cr_reject(cr, 4, "nope"), DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_PEER_REJECTED, &ev);
	cd = &ev.event_data.connect_event_data;
	KUNIT_ASSERT_GE(test, cd->private_data_size, 4);
	KUNIT_ASSERT_NOT_NULL(test, cd->private_data);
	KUNIT_EXPECT_EQ(test, memcmp(cd->private_data, "nope", 4), 0);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, cli),
			DAT_EP_STATE_DISCONNECTED);
	kdapl_cm_reset(test, cli);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
}

/*
 * One accept on @srv of a request whose peer's EP is freed @delay_ms
 * before it, with a receive posted on @srv: DAT_SUCCESS, the CR gone,
 * ACCEPT_COMPLETION_ERROR, the receive flushed, @srv DISCONNECTED.
 * iWARP completes the passive side when it sends its reply, so there
 * the accept may instead be ESTABLISHED and then end.
 */
static void kdapl_cm_accept_gone_once(struct kunit *test,
				      struct kdapl_cm_env *env,
				      DAT_PSP_HANDLE psp, DAT_CONN_QUAL qual,
				      DAT_EP_HANDLE srv,
				      const DAT_LMR_TRIPLET *iov,
				      unsigned int delay_ms)
{
	DAT_DTO_COOKIE cookie = { .as_64 = delay_ms };
	DAT_EP_HANDLE cli = kdapl_cm_ep(test, env, env->conn);
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev = {};

	kdapl_cm_connect(test, env, cli, qual);
	cr = kdapl_cm_request(test, env, psp);
	KUNIT_ASSERT_EQ(test, dat_ep_post_recv(srv, 1, (DAT_LMR_TRIPLET *)iov,
					       cookie,
					       DAT_COMPLETION_DEFAULT_FLAG),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
	msleep(delay_ms);

	KUNIT_EXPECT_EQ(test, dat_cr_accept(cr, srv, 0, NULL), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR));
	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(env->sconn, &ev,
						    KDAPL_CM_TEST_WAIT_MS),
			      "no connection event");
	if (env->iwarp &&
	    ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED) {
		KUNIT_ASSERT_TRUE_MSG(test,
				      kdapl_test_wait(env->sconn, &ev,
						      KDAPL_CM_TEST_WAIT_MS),
				      "the connection did not end");
		KUNIT_EXPECT_TRUE(test,
				  ev.event_number ==
				  DAT_CONNECTION_EVENT_DISCONNECTED ||
				  ev.event_number ==
				  DAT_CONNECTION_EVENT_BROKEN);
	} else {
		KUNIT_EXPECT_EQ(test, ev.event_number,
				DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	}
	KUNIT_EXPECT_PTR_EQ(test, ev.event_data.connect_event_data.ep_handle,
			    srv);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, srv),
			DAT_EP_STATE_DISCONNECTED);
	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(env->dto, &ev,
						    KDAPL_CM_TEST_WAIT_MS),
			      "the receive did not complete");
	KUNIT_EXPECT_EQ(test, ev.event_data.dto_completion_event_data.status,
			DAT_DTO_ERR_FLUSHED);
	KUNIT_EXPECT_EQ(test,
			ev.event_data.dto_completion_event_data.user_cookie.as_64,
			delay_ms);
	kdapl_cm_reset(test, srv);
}

/*
 * Accepts after the peer gave up (its EP freed while it waited), once
 * with time for the peer's reject or close to arrive first and once
 * without: the request cannot be accepted any more, which the accept
 * reports as DAT does.  The EP, reset, then serves another request.
 */
static void kdapl_cm_peer_gone_test(struct kunit *test)
{
	/* Before the IA: freed after it is closed. */
	void *buf = page_address(kdapl_test_pages(test, 0));
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	const DAT_CONN_QUAL qual = KDAPL_CM_TEST_QUAL + 7;
	DAT_LMR_TRIPLET iov = { .segment_length = 64 };
	DAT_EP_HANDLE cli, srv;
	DAT_PSP_HANDLE psp;

	kdapl_test_lmr(test, env->ia, env->pz, buf, 64,
		       DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &iov.lmr_context, NULL);
	iov.virtual_address = (DAT_VADDR)(uintptr_t)buf;
	srv = kdapl_cm_ep(test, env, env->sconn);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, qual, env->cr,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	kdapl_cm_accept_gone_once(test, env, psp, qual, srv, &iov, 1000);
	kdapl_cm_accept_gone_once(test, env, psp, qual, srv, &iov, 0);

	cli = kdapl_cm_ep(test, env, env->conn);
	kdapl_cm_establish(test, env, psp, qual, cli, srv);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	KUNIT_EXPECT_EQ(test, dat_ep_free(srv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
}

/*
 * Hand the rdma_cm handler of @ep a peer's reject carrying @pd, as ib_cm
 * delivers a REJ that arrives after the connection was established
 * (rdma_cm passes it on while its identifier is connected).
 */
static void kdapl_cm_late_reject(struct kunit *test, DAT_EP_HANDLE ep,
				 const char *pd)
{
	struct rdma_cm_event rej = {
		.event = RDMA_CM_EVENT_REJECTED,
		.param.conn.private_data = pd,
		.param.conn.private_data_len = strlen(pd),
	};
	struct rdma_cm_id *id;
	struct kdapl_ep *e;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, ep, EP,
					DAT_INVALID_HANDLE_EP, &e),
			DAT_SUCCESS);
	id = e->cm_id;
	kdapl_object_put(&e->obj);
	KUNIT_ASSERT_NOT_NULL(test, id);
	rej.status = rdma_protocol_iwarp(id->device, id->port_num) ?
		     -ECONNREFUSED : IB_CM_REJ_CONSUMER_DEFINED;
	KUNIT_EXPECT_EQ(test, id->event_handler(id, &rej), 0);
}

/*
 * A reject after ESTABLISHED (a faulty or hostile peer's) breaks the
 * connection, and leaves the private data of ESTABLISHED, which the
 * consumer may still be reading, as the peer's accept gave it.
 */
static void kdapl_cm_late_reject_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	const DAT_CONN_QUAL qual = KDAPL_CM_TEST_QUAL + 8;
	unsigned long end = jiffies + 5 * HZ;
	DAT_CONNECTION_EVENT_DATA *cd;
	DAT_EP_HANDLE cli, srv;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;

	cli = kdapl_cm_ep(test, env, env->conn);
	srv = kdapl_cm_ep(test, env, env->sconn);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, qual, env->cr,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	kdapl_cm_connect(test, env, cli, qual);
	KUNIT_ASSERT_EQ(test, dat_cr_accept(kdapl_cm_request(test, env, psp),
					    srv, 5, "world"),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	/* ESTABLISHED is queued, not yet dequeued, when the reject comes. */
	while (kdapl_test_ep_state(test, cli) != DAT_EP_STATE_CONNECTED &&
	       time_before(jiffies, end))
		msleep(20);
	KUNIT_ASSERT_EQ(test, kdapl_test_ep_state(test, cli),
			DAT_EP_STATE_CONNECTED);
	kdapl_cm_late_reject(test, cli, "XXXXX");

	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	cd = &ev.event_data.connect_event_data;
	/* IB pads the accept's private data to its full size. */
	KUNIT_ASSERT_GE(test, cd->private_data_size, 5);
	KUNIT_EXPECT_EQ(test, memcmp(cd->private_data, "world", 5), 0);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_BROKEN, &ev);
	KUNIT_EXPECT_EQ(test, ev.event_data.connect_event_data.private_data_size,
			0);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, cli),
			DAT_EP_STATE_DISCONNECTED);
	/* Its teardown closes the connection for the peer too. */
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(srv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
}

#define KDAPL_CM_FULL_CLIENTS	3

/*
 * Requests to a PSP whose EVD is full: the EVD overflows (the IA hears
 * of it) and the requests it could not take are rejected at once, so
 * that their clients do not wait for a reply that cannot come.
 */
static void kdapl_cm_full_evd_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	DAT_EP_HANDLE cli[KDAPL_CM_FULL_CLIENTS];
	const DAT_CONN_QUAL qual = KDAPL_CM_TEST_QUAL + 6;
	struct sockaddr_in sin = env->addr;
	DAT_EVD_HANDLE evd, async;
	DAT_EVENT_NUMBER n;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	int i;

	KUNIT_ASSERT_EQ(test, dat_ia_query(env->ia, &async, 0, NULL, 0, NULL),
			DAT_SUCCESS);
	evd = kdapl_test_evd(test, env->ia, 1, DAT_EVD_CR_FLAG);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, qual, evd,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	for (i = 0; i < KDAPL_CM_FULL_CLIENTS; i++) {
		cli[i] = kdapl_cm_ep(test, env, env->conn);
		KUNIT_ASSERT_EQ(test, dat_ep_connect(cli[i], kdapl_cm_sa(&sin),
						     qual, 30000000, 0, NULL,
						     DAT_QOS_BEST_EFFORT, 0),
				DAT_SUCCESS);
	}
	/* The EVD keeps the first request; the others are answered. */
	for (i = 1; i < KDAPL_CM_FULL_CLIENTS; i++) {
		KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(env->conn, &ev,
							    5000),
				      "request %d unanswered", i);
		n = ev.event_number;
		KUNIT_EXPECT_TRUE_MSG(test,
				      n == DAT_CONNECTION_EVENT_PEER_REJECTED ||
				      n == DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				      "event %#x", n);
	}
	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(async, &ev, 1000));
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	KUNIT_EXPECT_PTR_EQ(test, ev.event_data.asynch_error_event_data.dat_handle,
			    (DAT_HANDLE)evd);

	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(evd, &ev, 1000));
	KUNIT_ASSERT_EQ(test, ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	KUNIT_ASSERT_EQ(test, dat_cr_reject(cr, 0, NULL), DAT_SUCCESS);
	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(env->conn, &ev, 5000));
	KUNIT_EXPECT_EQ(test, ev.event_number,
			DAT_CONNECTION_EVENT_PEER_REJECTED);
	KUNIT_EXPECT_FALSE(test, kdapl_test_wait(evd, &ev, 100));
	for (i = 0; i < KDAPL_CM_FULL_CLIENTS; i++) {
		kdapl_cm_reset(test, cli[i]);
		KUNIT_EXPECT_EQ(test, dat_ep_free(cli[i]), DAT_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
}

/*
 * Another thread of the consumer: holds the rdma_cm handler of a PSP
 * while the test runs, or frees a PSP.
 */
struct kdapl_cm_thread {
	struct work_struct work;
	struct completion held;
	struct completion release;
	struct rdma_cm_id *id;
	DAT_PSP_HANDLE psp;
	DAT_RETURN ret;
};

static void kdapl_cm_hold_work(struct work_struct *work)
{
	struct kdapl_cm_thread *t =
		container_of(work, struct kdapl_cm_thread, work);

	rdma_lock_handler(t->id);
	complete(&t->held);
	wait_for_completion(&t->release);
	rdma_unlock_handler(t->id);
}

static void kdapl_cm_free_work(struct work_struct *work)
{
	struct kdapl_cm_thread *t =
		container_of(work, struct kdapl_cm_thread, work);

	t->ret = dat_psp_free(t->psp);
}

/* The rdma_cm identifier a live PSP listens with. */
static struct rdma_cm_id *kdapl_cm_psp_id(struct kunit *test,
					  DAT_PSP_HANDLE h)
{
	struct rdma_cm_id *id;
	struct kdapl_sp *sp;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, h, PSP,
					DAT_INVALID_HANDLE_PSP, &sp),
			DAT_SUCCESS);
	id = sp->cm_id;	/* the live PSP keeps it */
	kdapl_object_put(&sp->obj);
	return id;
}

/*
 * A request that reached the kernel's CM but not yet the PSP when the PSP
 * is freed is rejected: the peer hears NON_PEER_REJECTED (PEER_REJECTED
 * on iWARP, whose MPA reject does not say who rejected), and the provider
 * frees what it kept for the request (kmemleak watches).  The CM hands
 * requests to their listeners one at a time, so holding the handler of
 * another PSP, as a consumer's slow handler would, keeps the request
 * queued across dat_psp_free().  On RoCE the request may also overtake the
 * free: then it is a CR of the freed PSP, which the consumer rejects.
 */
static void kdapl_cm_queued_request_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	const DAT_CONN_QUAL qa = KDAPL_CM_TEST_QUAL + 4;
	const DAT_CONN_QUAL qb = KDAPL_CM_TEST_QUAL + 5;
	struct sockaddr_in sin = env->addr;
	struct kdapl_cm_thread holder = {}, freer = {};
	DAT_PSP_HANDLE psp_a, psp_b;
	DAT_EP_HANDLE cli_a, cli_b;
	DAT_EVENT ev = {};
	bool b_requested;

	cli_a = kdapl_cm_ep(test, env, env->conn);
	cli_b = kdapl_cm_ep(test, env, env->sconn);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, qa, env->cr,
					     DAT_PSP_CONSUMER_FLAG, &psp_a),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, qb, env->cr,
					     DAT_PSP_CONSUMER_FLAG, &psp_b),
			DAT_SUCCESS);
	holder.id = kdapl_cm_psp_id(test, psp_a);
	init_completion(&holder.held);
	init_completion(&holder.release);
	INIT_WORK_ONSTACK(&holder.work, kdapl_cm_hold_work);
	freer.psp = psp_b;
	INIT_WORK_ONSTACK(&freer.work, kdapl_cm_free_work);

	queue_work(system_unbound_wq, &holder.work);
	wait_for_completion(&holder.held);
	KUNIT_EXPECT_EQ(test, dat_ep_connect(cli_a, kdapl_cm_sa(&sin), qa,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	msleep(1000);	/* A's request waits for its handler */
	KUNIT_EXPECT_EQ(test, dat_ep_connect(cli_b, kdapl_cm_sa(&sin), qb,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	msleep(1000);	/* B's request waits behind it */
	queue_work(system_unbound_wq, &freer.work);
	msleep(200);	/* the free may wait for the CM's queue */
	complete(&holder.release);
	flush_work(&holder.work);
	flush_work(&freer.work);
	destroy_work_on_stack(&holder.work);
	destroy_work_on_stack(&freer.work);
	KUNIT_EXPECT_EQ(test, freer.ret, DAT_SUCCESS);

	KUNIT_ASSERT_EQ(test, dat_cr_reject(kdapl_cm_request(test, env, psp_a),
					    0, NULL), DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli_a,
			       DAT_CONNECTION_EVENT_PEER_REJECTED, NULL);
	b_requested = kdapl_test_wait(env->cr, &ev, 1000);
	if (b_requested) {
		const DAT_CR_ARRIVAL_EVENT_DATA *cr =
			&ev.event_data.cr_arrival_event_data;

		KUNIT_ASSERT_EQ(test, ev.event_number,
				DAT_CONNECTION_REQUEST_EVENT);
		KUNIT_EXPECT_PTR_EQ(test, cr->sp_handle.psp_handle, psp_b);
		KUNIT_EXPECT_EQ(test, dat_cr_reject(cr->cr_handle, 0, NULL),
				DAT_SUCCESS);
	}
	/* On iWARP the CM has one queue: B's request was behind A's. */
	KUNIT_EXPECT_FALSE(test, env->iwarp && b_requested);
	kdapl_test_expect_conn(test, env->sconn, cli_b,
			       b_requested || env->iwarp ?
			       DAT_CONNECTION_EVENT_PEER_REJECTED :
			       DAT_CONNECTION_EVENT_NON_PEER_REJECTED, NULL);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp_a), DAT_SUCCESS);
	kdapl_cm_reset(test, cli_a);
	kdapl_cm_reset(test, cli_b);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli_a), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli_b), DAT_SUCCESS);
}

/* An abrupt IA close with connected EPs tears everything down. */
static void kdapl_cm_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	DAT_EP_HANDLE cli, srv;
	DAT_PSP_HANDLE psp;

	cli = kdapl_cm_ep(test, env, env->conn);
	srv = kdapl_cm_ep(test, env, env->sconn);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, KDAPL_CM_TEST_QUAL + 2,
					     env->cr, DAT_PSP_CONSUMER_FLAG,
					     &psp), DAT_SUCCESS);
	kdapl_cm_establish(test, env, psp, KDAPL_CM_TEST_QUAL + 2, cli, srv);
	KUNIT_EXPECT_EQ(test, dat_ia_close(env->ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
}

/*
 * What events point to lives as long as objects.rst says: the private
 * data of ESTABLISHED until the EP is reset, through its disconnection;
 * a CR's private data and address until it is accepted; the IA's
 * address while the IA is open.  KASAN watches the reads.
 */
static void kdapl_cm_lifetime_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_cm_env *env = kdapl_cm_env(test, *name);
	struct sockaddr_in sin = env->addr;
	const struct sockaddr_in *ia_addr;
	const DAT_CONNECTION_EVENT_DATA *cd;
	DAT_PROVIDER_ATTR *pattr;
	DAT_EP_HANDLE cli, srv;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR *attr;
	DAT_CR_PARAM crp;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EVENT est;

	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	pattr = kunit_kzalloc(test, sizeof(*pattr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_NOT_NULL(test, pattr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(env->ia, &async, DAT_IA_FIELD_ALL,
					   attr, 0, NULL),
			DAT_SUCCESS);
	ia_addr = (const struct sockaddr_in *)attr->ia_address_ptr;
	cli = kdapl_cm_ep(test, env, env->conn);
	srv = kdapl_cm_ep(test, env, env->sconn);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->ia, KDAPL_CM_TEST_QUAL + 3,
					     env->cr, DAT_PSP_CONSUMER_FLAG,
					     &psp), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_connect(cli, kdapl_cm_sa(&sin),
					     KDAPL_CM_TEST_QUAL + 3,
					     DAT_TIMEOUT_INFINITE, 5, "hello",
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	cr = kdapl_cm_request(test, env, psp);
	KUNIT_ASSERT_EQ(test, dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp),
			DAT_SUCCESS);
	/* Other work of the IA before the accept. */
	KUNIT_EXPECT_EQ(test, dat_ia_query(env->ia, &async, 0, NULL,
					   DAT_PROVIDER_FIELD_ALL, pattr),
			DAT_SUCCESS);
	KUNIT_ASSERT_GE(test, crp.private_data_size, 5);
	KUNIT_EXPECT_EQ(test, memcmp(crp.private_data, "hello", 5), 0);
	KUNIT_EXPECT_EQ(test, ((struct sockaddr_in *)
			       crp.remote_ia_address_ptr)->sin_addr.s_addr,
			sin.sin_addr.s_addr);
	KUNIT_ASSERT_EQ(test, dat_cr_accept(cr, srv, 5, "world"),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_ESTABLISHED, &est);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(cli, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->conn, cli,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	kdapl_test_expect_conn(test, env->sconn, srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	/* Disconnected, not reset: the private data is still there. */
	cd = &est.event_data.connect_event_data;
	KUNIT_ASSERT_GE(test, cd->private_data_size, 5);
	KUNIT_ASSERT_NOT_NULL(test, cd->private_data);
	KUNIT_EXPECT_EQ(test, memcmp(cd->private_data, "world", 5), 0);
	KUNIT_EXPECT_EQ(test, ia_addr->sin_addr.s_addr, sin.sin_addr.s_addr);
	kdapl_cm_reset(test, cli);
	KUNIT_EXPECT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(srv), DAT_SUCCESS);
	/* The IA is open: its address is. */
	KUNIT_EXPECT_EQ(test, ia_addr->sin_family, AF_INET);
}

static struct kunit_case kdapl_cm_cases[] = {
	KUNIT_CASE_PARAM(kdapl_cm_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_state_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_common_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_no_listener_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_timeout_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_abort_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_accept_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_csp_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_reject_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_peer_gone_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_late_reject_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_full_evd_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_queued_request_test,
			 kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_lifetime_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_cm_close_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_cm_suite = {
	.name = "kdapl_cm",
	.test_cases = kdapl_cm_cases,
};

kunit_test_suite(kdapl_cm_suite);
