// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Endpoints: dat_ep_create() and its return values, the
 * dat_ep_modify() parameter x state table, dat_ep_query(),
 * dat_ep_get_status(), dat_ep_reset() and dat_ep_free(), on every adapter.
 *
 * States other than UNCONNECTED come from connections, which this suite
 * does not make: it puts EPs in them with kdapl_ep_set_state().  The
 * expectations are written from the DAT manual pages, not taken from the
 * implementation's own tables.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/irqflags.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>

#include "kdapl_test_util.h"

/* The eight states of DAT 1.2 / 2.0 an EP can be in. */
static const DAT_EP_STATE kdapl_ep_test_states[] = {
	DAT_EP_STATE_UNCONNECTED,
	DAT_EP_STATE_RESERVED,
	DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
	DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
	DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
	DAT_EP_STATE_CONNECTED,
	DAT_EP_STATE_DISCONNECT_PENDING,
	DAT_EP_STATE_DISCONNECTED,
};

#define KDAPL_EP_NR_STATES	ARRAY_SIZE(kdapl_ep_test_states)

static const char *const kdapl_ep_test_state_names[] = {
	"UNCONNECTED", "RESERVED", "PASSIVE_CONNECTION_PENDING",
	"ACTIVE_CONNECTION_PENDING", "TENTATIVE_CONNECTION_PENDING",
	"CONNECTED", "DISCONNECT_PENDING", "DISCONNECTED",
};

/* The DAT_INVALID_STATE subtype naming each of those states. */
static const DAT_RETURN_SUBTYPE kdapl_ep_test_state_subtypes[] = {
	DAT_INVALID_STATE_EP_UNCONNECTED,
	DAT_INVALID_STATE_EP_RESERVED,
	DAT_INVALID_STATE_EP_PASSCONNPENDING,
	DAT_INVALID_STATE_EP_ACTCONNPENDING,
	DAT_INVALID_STATE_EP_TENTCONNPENDING,
	DAT_INVALID_STATE_EP_CONNECTED,
	DAT_INVALID_STATE_EP_DISCPENDING,
	DAT_INVALID_STATE_EP_DISCONNECTED,
};

/* ---------------------------------------------------------------------
 * The dat_ep_modify() table, as dat_ep_modify(3) states it.
 */

#define T_S(state)	BIT(DAT_EP_STATE_##state)
#define T_NEVER		0
#define T_QUIESCENT	(T_S(UNCONNECTED) | T_S(TENTATIVE_CONNECTION_PENDING))
#define T_PRECONNECT	(T_QUIESCENT | T_S(RESERVED) |			\
			 T_S(PASSIVE_CONNECTION_PENDING))
#define T_UNCONNECTED	T_S(UNCONNECTED)

struct kdapl_ep_row {
	const char *name;
	DAT_EP_PARAM_MASK field;
	u32 states;
};

#define T_ROW(f, s)	{ #f, DAT_EP_FIELD_##f, s }

static const struct kdapl_ep_row kdapl_ep_rows[] = {
	T_ROW(IA_HANDLE, T_NEVER),
	T_ROW(EP_STATE, T_NEVER),
	T_ROW(COMM, T_NEVER),
	T_ROW(LOCAL_IA_ADDRESS_PTR, T_NEVER),
	T_ROW(LOCAL_PORT_QUAL, T_NEVER),
	T_ROW(REMOTE_IA_ADDRESS_PTR, T_NEVER),
	T_ROW(REMOTE_PORT_QUAL, T_NEVER),
	T_ROW(PZ_HANDLE, T_QUIESCENT),
	T_ROW(RECV_EVD_HANDLE, T_PRECONNECT),
	T_ROW(REQUEST_EVD_HANDLE, T_PRECONNECT),
	T_ROW(CONNECT_EVD_HANDLE, T_PRECONNECT),
	T_ROW(SRQ_HANDLE, T_NEVER),
	T_ROW(EP_ATTR_SERVICE_TYPE, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_MESSAGE_SIZE, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_RDMA_SIZE, T_PRECONNECT),
	T_ROW(EP_ATTR_QOS, T_PRECONNECT),
	T_ROW(EP_ATTR_RECV_COMPLETION_FLAGS, T_PRECONNECT),
	T_ROW(EP_ATTR_REQUEST_COMPLETION_FLAGS, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_RECV_DTOS, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_REQUEST_DTOS, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_RECV_IOV, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_REQUEST_IOV, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_RDMA_READ_IN, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_RDMA_READ_OUT, T_PRECONNECT),
	T_ROW(EP_ATTR_SRQ_SOFT_HW, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_RDMA_READ_IOV, T_PRECONNECT),
	T_ROW(EP_ATTR_MAX_RDMA_WRITE_IOV, T_PRECONNECT),
	T_ROW(EP_ATTR_NUM_TRANSPORT_ATTR, T_UNCONNECTED),
	T_ROW(EP_ATTR_TRANSPORT_SPECIFIC_ATTR, T_UNCONNECTED),
	T_ROW(EP_ATTR_NUM_PROVIDER_ATTR, T_UNCONNECTED),
	T_ROW(EP_ATTR_PROVIDER_SPECIFIC_ATTR, T_UNCONNECTED),
};

/* ---------------------------------------------------------------------
 * Test environment: an IA with objects to give EPs, and the limits of
 * its device.
 */

struct kdapl_ep_env {
	struct kunit *test;
	DAT_IA_HANDLE ia;
	DAT_IA_HANDLE ia2;		/* another IA on the same adapter */
	DAT_EVD_HANDLE async;		/* the async EVD of @ia */
	DAT_PZ_HANDLE pz, pz2, pz_other;
	DAT_EVD_HANDLE recv, recv2;	/* DTO streams only */
	DAT_EVD_HANDLE req, req2;	/* DTO streams only */
	DAT_EVD_HANDLE conn, conn2;	/* connection events only */
	DAT_EVD_HANDLE dto_conn;	/* DTO and connection events */
	DAT_EVD_HANDLE dto_other;	/* DTO EVD of @ia2 */
	DAT_EVD_HANDLE conn_other;	/* connection EVD of @ia2 */
	struct ib_device_attr dev;
	u64 port_max_msg;
	DAT_SOCK_ADDR addr;
};

/* The IA behind a handle, for the device limits. */
static struct kdapl_ia *kdapl_ep_test_ia(struct kunit *test, DAT_IA_HANDLE h)
{
	struct kdapl_object *obj;

	KUNIT_ASSERT_EQ(test, kdapl_object_get(&kdapl_kernel_owner, h, DAT_HANDLE_TYPE_IA,
					       DAT_INVALID_HANDLE_IA, &obj),
			DAT_SUCCESS);
	kdapl_object_put(obj);	/* the open IA keeps it */
	return container_of(obj, struct kdapl_ia, obj);
}

/* The EP behind a live handle; valid while the handle is. */
static struct kdapl_ep *kdapl_ep_test_ep(struct kunit *test, DAT_EP_HANDLE h)
{
	struct kdapl_object *obj;

	KUNIT_ASSERT_EQ(test, kdapl_object_get(&kdapl_kernel_owner, h, DAT_HANDLE_TYPE_EP,
					       DAT_INVALID_HANDLE_EP, &obj),
			DAT_SUCCESS);
	kdapl_object_put(obj);
	return container_of(obj, struct kdapl_ep, obj);
}

static struct kdapl_ep_env *kdapl_ep_env(struct kunit *test,
					 const char *name)
{
	struct kdapl_ep_env *env;
	struct ib_port_attr port;
	struct kdapl_ia *ia;

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->test = test;
	env->ia = kdapl_test_open_ia(test, name);
	env->ia2 = kdapl_test_open_ia(test, name);
	KUNIT_ASSERT_EQ(test, dat_ia_query(env->ia, &env->async, 0, NULL, 0,
					   NULL),
			DAT_SUCCESS);

	env->pz = kdapl_test_pz(test, env->ia);
	env->pz2 = kdapl_test_pz(test, env->ia);
	env->pz_other = kdapl_test_pz(test, env->ia2);
	env->recv = kdapl_test_evd(test, env->ia, 8, DAT_EVD_DTO_FLAG);
	env->recv2 = kdapl_test_evd(test, env->ia, 8, DAT_EVD_DTO_FLAG);
	env->req = kdapl_test_evd(test, env->ia, 8, DAT_EVD_DTO_FLAG);
	env->req2 = kdapl_test_evd(test, env->ia, 8, DAT_EVD_DTO_FLAG);
	env->conn = kdapl_test_evd(test, env->ia, 8, DAT_EVD_CONNECTION_FLAG);
	env->conn2 = kdapl_test_evd(test, env->ia, 8, DAT_EVD_CONNECTION_FLAG);
	env->dto_conn = kdapl_test_evd(test, env->ia, 8, DAT_EVD_DTO_FLAG |
				       DAT_EVD_CONNECTION_FLAG);
	env->dto_other = kdapl_test_evd(test, env->ia2, 8, DAT_EVD_DTO_FLAG);
	env->conn_other = kdapl_test_evd(test, env->ia2, 8,
					 DAT_EVD_CONNECTION_FLAG);

	ia = kdapl_ep_test_ia(test, env->ia);
	mutex_lock(&ia->lock);
	KUNIT_ASSERT_NOT_NULL(test, ia->ibdev);
	env->dev = ia->ibdev->attrs;
	KUNIT_ASSERT_EQ(test, ib_query_port(ia->ibdev, ia->adapter->port,
					    &port), 0);
	mutex_unlock(&ia->lock);
	env->port_max_msg = port.max_msg_sz;
	return env;
}

/* The device limits of each attribute, from ib_device_attr and the port. */
static u32 kdapl_ep_max_message(const struct kdapl_ep_env *env)
{
	return min_t(u64, env->port_max_msg, U32_MAX);
}

static u32 kdapl_ep_max_rdma(const struct kdapl_ep_env *env)
{
	return min3(env->port_max_msg, env->dev.max_mr_size, (u64)U32_MAX);
}

static DAT_RETURN kdapl_ep_state_err(unsigned int state_idx)
{
	return KDAPL_ERR(DAT_INVALID_STATE,
			 kdapl_ep_test_state_subtypes[state_idx]);
}

static void kdapl_ep_set(struct kunit *test, DAT_EP_HANDLE ep,
			 DAT_EP_STATE state)
{
	kdapl_ep_set_state(kdapl_ep_test_ep(test, ep), state);
}

static DAT_EP_PARAM *kdapl_ep_query_all(struct kunit *test, DAT_EP_HANDLE ep)
{
	DAT_EP_PARAM *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, dat_ep_query(ep, DAT_EP_FIELD_ALL, p),
			DAT_SUCCESS);
	return p;
}

/* Every field of two DAT_EP_PARAMs is the same. */
static void kdapl_ep_expect_param_eq(struct kunit *test, const char *what,
				     const DAT_EP_PARAM *a,
				     const DAT_EP_PARAM *b)
{
	const DAT_EP_ATTR *x = &a->ep_attr, *y = &b->ep_attr;

	KUNIT_EXPECT_PTR_EQ_MSG(test, a->ia_handle, b->ia_handle, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, a->ep_state, b->ep_state, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, a->comm.domain, b->comm.domain, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, a->comm.type, b->comm.type, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, a->comm.protocol, b->comm.protocol,
			    "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, a->local_ia_address_ptr,
				b->local_ia_address_ptr, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, a->local_port_qual, b->local_port_qual,
			    "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, a->remote_ia_address_ptr,
				b->remote_ia_address_ptr, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, a->remote_port_qual, b->remote_port_qual,
			    "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, a->pz_handle, b->pz_handle, "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, a->recv_evd_handle, b->recv_evd_handle,
				"%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, a->request_evd_handle,
				b->request_evd_handle, "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, a->connect_evd_handle,
				b->connect_evd_handle, "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, a->srq_handle, b->srq_handle, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->service_type, y->service_type, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_message_size, y->max_message_size,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_rdma_size, y->max_rdma_size,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->qos, y->qos, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->recv_completion_flags,
			    y->recv_completion_flags, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->request_completion_flags,
			    y->request_completion_flags, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_recv_dtos, y->max_recv_dtos,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_request_dtos, y->max_request_dtos,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_recv_iov, y->max_recv_iov, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_request_iov, y->max_request_iov,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_rdma_read_in, y->max_rdma_read_in,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_rdma_read_out, y->max_rdma_read_out,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->srq_soft_hw, y->srq_soft_hw, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_rdma_read_iov, y->max_rdma_read_iov,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->max_rdma_write_iov, y->max_rdma_write_iov,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->ep_transport_specific_count,
			    y->ep_transport_specific_count, "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, x->ep_transport_specific,
				y->ep_transport_specific, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, x->ep_provider_specific_count,
			    y->ep_provider_specific_count, "%s", what);
	KUNIT_EXPECT_PTR_EQ_MSG(test, x->ep_provider_specific,
				y->ep_provider_specific, "%s", what);
}

/*
 * Set in @p a new value for @field: a valid one different from what an
 * EP created with the defaults has where one exists (@valid), or an
 * invalid one.  Returns false when the field has no such value on this
 * device.
 */
static bool kdapl_ep_row_value(struct kdapl_ep_env *env,
			       DAT_EP_PARAM_MASK field, bool valid,
			       DAT_EP_PARAM *p)
{
	const struct ib_device_attr *d = &env->dev;
	DAT_EP_ATTR *a = &p->ep_attr;

	switch (field) {
	case DAT_EP_FIELD_IA_HANDLE:
		p->ia_handle = env->ia2;
		return valid;
	case DAT_EP_FIELD_EP_STATE:
		p->ep_state = p->ep_state == DAT_EP_STATE_CONNECTED ?
			      DAT_EP_STATE_DISCONNECTED :
			      DAT_EP_STATE_CONNECTED;
		return valid;
	case DAT_EP_FIELD_COMM:
		p->comm.domain = AF_INET;
		p->comm.type = SOCK_STREAM;
		return valid;
	case DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR:
		p->local_ia_address_ptr = (struct sockaddr *)&env->addr;
		return valid;
	case DAT_EP_FIELD_LOCAL_PORT_QUAL:
		p->local_port_qual = 4791;
		return valid;
	case DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR:
		p->remote_ia_address_ptr = (struct sockaddr *)&env->addr;
		return valid;
	case DAT_EP_FIELD_REMOTE_PORT_QUAL:
		p->remote_port_qual = 4791;
		return valid;
	case DAT_EP_FIELD_PZ_HANDLE:
		p->pz_handle = valid ? env->pz2 : env->recv;
		return true;
	case DAT_EP_FIELD_RECV_EVD_HANDLE:
		p->recv_evd_handle = valid ? env->recv2 : env->conn;
		return true;
	case DAT_EP_FIELD_REQUEST_EVD_HANDLE:
		p->request_evd_handle = valid ? env->req2 : env->conn;
		return true;
	case DAT_EP_FIELD_CONNECT_EVD_HANDLE:
		p->connect_evd_handle = valid ? env->conn2 : env->recv;
		return true;
	case DAT_EP_FIELD_SRQ_HANDLE:
		p->srq_handle = env->pz;
		return valid;
	case DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE:
		a->service_type = valid ? DAT_SERVICE_TYPE_RC :
				  DAT_SERVICE_TYPE_EXTENSION_BASE + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE:
		if (valid) {
			a->max_message_size = SZ_4K;
			return true;
		}
		if (kdapl_ep_max_message(env) == U32_MAX)
			return false;
		a->max_message_size = kdapl_ep_max_message(env) + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE:
		if (valid) {
			a->max_rdma_size = SZ_4K;
			return true;
		}
		if (kdapl_ep_max_rdma(env) == U32_MAX)
			return false;
		a->max_rdma_size = kdapl_ep_max_rdma(env) + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_QOS:
		/* Only best effort is offered. */
		a->qos = valid ? DAT_QOS_BEST_EFFORT : DAT_QOS_HIGH_THROUGHPUT;
		return true;
	case DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS:
		a->recv_completion_flags =
			valid ? DAT_COMPLETION_SOLICITED_WAIT_FLAG :
				DAT_COMPLETION_BARRIER_FENCE_FLAG;
		return true;
	case DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS:
		a->request_completion_flags =
			valid ? DAT_COMPLETION_UNSIGNALLED_FLAG : 0x40;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS:
		a->max_recv_dtos = valid ? 16 : -1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS:
		a->max_request_dtos = valid ? 16 : -1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV:
		a->max_recv_iov = valid ? 1 : d->max_recv_sge + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV:
		a->max_request_iov = valid ? 1 : d->max_send_sge + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN:
		a->max_rdma_read_in = valid ? 1 : d->max_qp_rd_atom + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT:
		a->max_rdma_read_out = valid ? 1 : d->max_qp_init_rd_atom + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW:
		a->srq_soft_hw = valid ? 8 : -2;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV:
		a->max_rdma_read_iov = valid ? 0 : d->max_sge_rd + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV:
		a->max_rdma_write_iov = valid ? 1 : d->max_send_sge + 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR:
		/* None is supported: 0 is the only valid count. */
		a->ep_transport_specific_count = valid ? 0 : 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR:
		a->ep_transport_specific = NULL;
		return valid;
	case DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR:
		a->ep_provider_specific_count = valid ? 0 : 1;
		return true;
	case DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR:
		a->ep_provider_specific = NULL;
		return valid;
	}
	KUNIT_FAIL(env->test, "no value for field %#llx", field);
	return false;
}

/* An EP with every object and the default attributes. */
static DAT_EP_HANDLE kdapl_ep_full(struct kdapl_ep_env *env)
{
	DAT_EP_HANDLE ep;

	KUNIT_ASSERT_EQ(env->test, dat_ep_create(env->ia, env->pz, env->recv,
						 env->req, env->conn, NULL,
						 &ep),
			DAT_SUCCESS);
	return ep;
}

/* ---------------------------------------------------------------------
 * Parameters: adapter x row x state.
 */

struct kdapl_ep_xparam {
	const char *adapter;
	unsigned int row;
	unsigned int state;
};

static struct kdapl_ep_xparam
kdapl_ep_xparams[KDAPL_TEST_NR_ADAPTERS * ARRAY_SIZE(kdapl_ep_rows) *
		 KDAPL_EP_NR_STATES];

/* Next of @nrows x @nstates rows per adapter, in kdapl_ep_xparams. */
static const void *kdapl_ep_xgen(const void *prev, char *desc,
				 unsigned int nrows, unsigned int nstates,
				 const char *(*row_name)(unsigned int row))
{
	const struct kdapl_ep_xparam *p = prev;
	unsigned int i = p ? p - kdapl_ep_xparams + 1 : 0;
	struct kdapl_ep_xparam *x;

	if (i >= KDAPL_TEST_NR_ADAPTERS * nrows * nstates)
		return NULL;
	x = &kdapl_ep_xparams[i];
	x->adapter = kdapl_test_adapters[i / (nrows * nstates)];
	x->row = i / nstates % nrows;
	x->state = i % nstates;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s%s%s%s", x->adapter,
		 row_name ? " " : "", row_name ? row_name(x->row) : "",
		 nstates > 1 ? " " : "",
		 nstates > 1 ? kdapl_ep_test_state_names[x->state] : "");
	return x;
}

static const char *kdapl_ep_row_name(unsigned int row)
{
	return kdapl_ep_rows[row].name;
}

static const void *kdapl_ep_modify_gen(const void *prev, char *desc)
{
	return kdapl_ep_xgen(prev, desc, ARRAY_SIZE(kdapl_ep_rows),
			     KDAPL_EP_NR_STATES, kdapl_ep_row_name);
}

static const void *kdapl_ep_state_gen(const void *prev, char *desc)
{
	return kdapl_ep_xgen(prev, desc, 1, KDAPL_EP_NR_STATES, NULL);
}

/* ---------------------------------------------------------------------
 * dat_ep_modify(): one row of the table in one state.
 */

/* Freeing @h gives @ret; on success it is recreated in @h. */
static void kdapl_ep_expect_free(struct kdapl_ep_env *env,
				 DAT_EVD_HANDLE *h, bool pz, DAT_RETURN ret)
{
	struct kunit *test = env->test;
	DAT_EVD_FLAGS flags = 0;
	DAT_EVD_PARAM param;

	if (pz) {
		KUNIT_EXPECT_EQ(test, dat_pz_free(*h), ret);
		if (ret == DAT_SUCCESS)
			*h = kdapl_test_pz(test, env->ia);
		return;
	}
	KUNIT_ASSERT_EQ(test, dat_evd_query(*h, DAT_EVD_FIELD_EVD_FLAGS,
					    &param),
			DAT_SUCCESS);
	flags = param.evd_flags;
	KUNIT_EXPECT_EQ(test, dat_evd_free(*h), ret);
	if (ret == DAT_SUCCESS)
		*h = kdapl_test_evd(test, env->ia, 8, flags);
}

static void kdapl_ep_modify_row_test(struct kunit *test)
{
	const struct kdapl_ep_xparam *x = test->param_value;
	const struct kdapl_ep_row *row = &kdapl_ep_rows[x->row];
	DAT_EP_STATE state = kdapl_ep_test_states[x->state];
	bool allowed = row->states & BIT(state);
	DAT_EP_PARAM *before, *after, *p;
	struct kdapl_ep_env *env;
	DAT_EVD_HANDLE *old, *new;
	DAT_EP_HANDLE ep;
	DAT_RETURN want;

	env = kdapl_ep_env(test, x->adapter);
	ep = kdapl_ep_full(env);
	kdapl_ep_set(test, ep, state);
	before = kdapl_ep_query_all(test, ep);
	KUNIT_ASSERT_EQ(test, before->ep_state, state);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	/* An invalid value: the state is checked first. */
	*p = *before;
	if (kdapl_ep_row_value(env, row->field, false, p)) {
		if (row->states == T_NEVER)
			want = KDAPL_ERR(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG2);
		else if (!allowed)
			want = kdapl_ep_state_err(x->state);
		else
			want = KDAPL_ERR(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG3);
		KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, row->field, p), want);
		after = kdapl_ep_query_all(test, ep);
		kdapl_ep_expect_param_eq(test, "invalid value", before, after);
	}

	/* A valid value. */
	*p = *before;
	KUNIT_ASSERT_TRUE(test, kdapl_ep_row_value(env, row->field, true, p));
	if (row->states == T_NEVER)
		want = KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!allowed)
		want = kdapl_ep_state_err(x->state);
	else
		want = DAT_SUCCESS;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, row->field, p), want);
	after = kdapl_ep_query_all(test, ep);
	if (want == DAT_SUCCESS)
		kdapl_ep_expect_param_eq(test, "changed", p, after);
	else
		kdapl_ep_expect_param_eq(test, "unchanged", before, after);

	/* The use counts moved with the handles, or did not. */
	old = NULL;
	new = NULL;
	switch (row->field) {
	case DAT_EP_FIELD_PZ_HANDLE:
		old = &env->pz;
		new = &env->pz2;
		break;
	case DAT_EP_FIELD_RECV_EVD_HANDLE:
		old = &env->recv;
		new = &env->recv2;
		break;
	case DAT_EP_FIELD_REQUEST_EVD_HANDLE:
		old = &env->req;
		new = &env->req2;
		break;
	case DAT_EP_FIELD_CONNECT_EVD_HANDLE:
		old = &env->conn;
		new = &env->conn2;
		break;
	}
	if (old) {
		bool pz = row->field == DAT_EP_FIELD_PZ_HANDLE;
		DAT_RETURN in_use = pz ?
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE) :
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EVD_IN_USE);

		kdapl_ep_expect_free(env, old, pz, want == DAT_SUCCESS ?
				     DAT_SUCCESS : in_use);
		kdapl_ep_expect_free(env, new, pz, want == DAT_SUCCESS ?
				     in_use : DAT_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
}

/* Mask and argument checks of dat_ep_modify(), all fields at once. */
static void kdapl_ep_modify_args_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_PARAM *before, *p;
	DAT_EP_HANDLE ep = kdapl_ep_full(env);

	before = kdapl_ep_query_all(test, ep);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	*p = *before;

	/* Nothing to change: fine, even without a structure. */
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, 0, NULL), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, 0, p), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_QOS, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, DAT_EP_FIELD_ALL + 1, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, BIT_ULL(63) |
					    DAT_EP_FIELD_EP_ATTR_QOS, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* A field that never changes spoils the whole mask. */
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, DAT_EP_FIELD_ALL, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, DAT_EP_FIELD_SRQ_HANDLE |
					    DAT_EP_FIELD_EP_ATTR_QOS, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	/* Every modifiable field, unchanged values, in UNCONNECTED: fine. */
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_ALL |
					    DAT_EP_FIELD_PZ_HANDLE |
					    DAT_EP_FIELD_RECV_EVD_HANDLE |
					    DAT_EP_FIELD_REQUEST_EVD_HANDLE |
					    DAT_EP_FIELD_CONNECT_EVD_HANDLE,
					    p),
			DAT_SUCCESS);
	kdapl_ep_expect_param_eq(test, "same values", before,
				 kdapl_ep_query_all(test, ep));
}

/* All or nothing: one bad field or state keeps the others unchanged. */
static void kdapl_ep_modify_atomic_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_PARAM *before, *p;
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	DAT_EP_PARAM_MASK mask;

	before = kdapl_ep_query_all(test, ep);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	mask = DAT_EP_FIELD_PZ_HANDLE | DAT_EP_FIELD_RECV_EVD_HANDLE |
	       DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
	       DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV;
	*p = *before;
	p->pz_handle = env->pz2;
	p->recv_evd_handle = env->recv2;
	p->ep_attr.max_recv_dtos = 7;
	p->ep_attr.max_request_iov = env->dev.max_send_sge + 1;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, mask, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	kdapl_ep_expect_param_eq(test, "bad value", before,
				 kdapl_ep_query_all(test, ep));

	/* A bad handle among good values. */
	p->ep_attr.max_request_iov = 1;
	p->recv_evd_handle = env->dto_other;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, mask, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	kdapl_ep_expect_param_eq(test, "bad handle", before,
				 kdapl_ep_query_all(test, ep));

	/* The PZ cannot change in RESERVED, the rest could. */
	p->recv_evd_handle = env->recv2;
	kdapl_ep_set(test, ep, DAT_EP_STATE_RESERVED);
	before->ep_state = DAT_EP_STATE_RESERVED;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, mask, p),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_RESERVED));
	kdapl_ep_expect_param_eq(test, "bad state", before,
				 kdapl_ep_query_all(test, ep));
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));

	/* Without the PZ it goes through in RESERVED. */
	env->recv2 = kdapl_test_evd(test, env->ia, 8, DAT_EVD_DTO_FLAG);
	p->recv_evd_handle = env->recv2;
	p->pz_handle = before->pz_handle;
	mask &= ~DAT_EP_FIELD_PZ_HANDLE;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, mask, p), DAT_SUCCESS);
	p->ep_state = DAT_EP_STATE_RESERVED;
	kdapl_ep_expect_param_eq(test, "reserved", p,
				 kdapl_ep_query_all(test, ep));
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), DAT_SUCCESS);
}

/* EVDs and PZ can be set to and from NULL ("not interested"). */
static void kdapl_ep_modify_null_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	DAT_EP_PARAM_MASK mask = DAT_EP_FIELD_PZ_HANDLE |
				 DAT_EP_FIELD_RECV_EVD_HANDLE |
				 DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				 DAT_EP_FIELD_CONNECT_EVD_HANDLE;
	DAT_EP_PARAM *p;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, mask, p), DAT_SUCCESS);
	p = kdapl_ep_query_all(test, ep);
	KUNIT_EXPECT_NULL(test, p->pz_handle);
	KUNIT_EXPECT_NULL(test, p->recv_evd_handle);
	KUNIT_EXPECT_NULL(test, p->request_evd_handle);
	KUNIT_EXPECT_NULL(test, p->connect_evd_handle);
	/* Nothing uses them any more. */
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->req), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->conn), DAT_SUCCESS);

	/* And back: one EVD for both completion streams. */
	p->pz_handle = env->pz2;
	p->recv_evd_handle = env->recv2;
	p->request_evd_handle = env->recv2;
	p->connect_evd_handle = env->dto_conn;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, mask, p), DAT_SUCCESS);
	kdapl_ep_expect_param_eq(test, "back", p,
				 kdapl_ep_query_all(test, ep));
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv2),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EVD_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->dto_conn), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz2), DAT_SUCCESS);
}

/* Receive completion flags are fixed once a receive was posted. */
static void kdapl_ep_modify_recvs_posted_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	struct kdapl_ep *e = kdapl_ep_test_ep(test, ep);
	DAT_EP_PARAM_MASK recv_flags =
		DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS;
	DAT_EP_PARAM_MASK request_flags =
		DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS;
	DAT_EP_PARAM *before, *p;

	before = kdapl_ep_query_all(test, ep);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	*p = *before;

	WRITE_ONCE(e->recvs_posted, true);
	p->ep_attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, recv_flags, p),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONNECTED));
	kdapl_ep_expect_param_eq(test, "posted", before,
				 kdapl_ep_query_all(test, ep));
	/* The same flags again, and the other fields, are fine. */
	p->ep_attr.recv_completion_flags = before->ep_attr.recv_completion_flags;
	p->ep_attr.max_recv_dtos = 3;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, recv_flags |
					    DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
					    p),
			DAT_SUCCESS);
	kdapl_ep_expect_param_eq(test, "posted, same flags", p,
				 kdapl_ep_query_all(test, ep));
	p->ep_attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, request_flags, p),
			DAT_SUCCESS);
	WRITE_ONCE(e->recvs_posted, false);
	p->ep_attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep, recv_flags, p), DAT_SUCCESS);
}

/* ---------------------------------------------------------------------
 * dat_ep_create()
 */

struct kdapl_ep_create_args {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE recv, req, conn;
	DAT_SRQ_HANDLE srq;
	bool with_srq;
	DAT_EP_ATTR *attr;
	DAT_EP_HANDLE *out;
};

enum kdapl_ep_create_id {
	C_DEFAULTS,
	C_ALL_OBJECTS,
	C_EXPLICIT_ATTR,
	C_NULL_OUT,
	C_NULL_IA,
	C_GARBAGE_IA,
	C_PZ_AS_IA,
	C_CLOSED_IA,
	C_GARBAGE_PZ,
	C_EVD_AS_PZ,
	C_OTHER_IA_PZ,
	C_FREED_PZ,
	C_GARBAGE_RECV,
	C_RECV_NO_DTO,
	C_RECV_OTHER_IA,
	C_PZ_AS_RECV,
	C_ASYNC_AS_RECV,
	C_FREED_RECV,
	C_GARBAGE_REQ,
	C_REQ_NO_DTO,
	C_REQ_OTHER_IA,
	C_GARBAGE_CONN,
	C_CONN_NO_CONN,
	C_CONN_OTHER_IA,
	C_SERVICE_TYPE,
	C_MESSAGE_SIZE,
	C_RDMA_SIZE,
	C_RECV_DTOS,
	C_RECV_DTOS_NEG,
	C_REQUEST_DTOS,
	C_RECV_IOV,
	C_REQUEST_IOV,
	C_READ_IN,
	C_READ_OUT,
	C_READ_IOV,
	C_WRITE_IOV,
	C_SOFT_HW,
	C_QOS,
	C_RECV_SUPPRESS,
	C_RECV_FENCE,
	C_RECV_UNSIGNALLED,
	C_REQUEST_SUPPRESS,
	C_TRANSPORT_ATTR,
	C_PROVIDER_ATTR,
	C_RECV_SOLICITED,
	C_RECV_THRESHOLD,
	C_REQUEST_UNSIGNALLED,
	C_REQUEST_THRESHOLD,
	C_SHARED_EVD,
	C_SHARED_SOLICITED,
	C_SHARED_UNSIGNALLED,
	C_MIXED_EVD_DEFAULT,
	C_MIXED_EVD_THRESHOLD,
	C_MIXED_EVD_SOLICITED,
	C_MIXED_EVD_NULL_ATTR,
	C_SRQ_NULL,
	C_SRQ_GARBAGE,
	C_SRQ_PZ,
	C_SRQ_NULL_OUT,
	C_SRQ_BAD_ATTR,
	C_SRQ_BAD_RECV,
};

struct kdapl_ep_create_row {
	const char *name;
	enum kdapl_ep_create_id id;
	DAT_RETURN ret;
};

/* KDAPL_ERR() as a constant expression, for the table. */
#define C_ERR(type, sub)	(DAT_CLASS_ERROR | (type) | (sub))
#define C_ROW(id, ret)	{ #id, id, ret }
#define C_HANDLE(sub)	C_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_##sub)
#define C_ARG(n)	C_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG##n)

static const struct kdapl_ep_create_row kdapl_ep_create_rows[] = {
	C_ROW(C_DEFAULTS, DAT_SUCCESS),
	C_ROW(C_ALL_OBJECTS, DAT_SUCCESS),
	C_ROW(C_EXPLICIT_ATTR, DAT_SUCCESS),
	C_ROW(C_NULL_OUT, C_ARG(7)),
	C_ROW(C_NULL_IA, C_HANDLE(IA)),
	C_ROW(C_GARBAGE_IA, C_HANDLE(IA)),
	C_ROW(C_PZ_AS_IA, C_HANDLE(IA)),
	C_ROW(C_CLOSED_IA, C_HANDLE(IA)),
	C_ROW(C_GARBAGE_PZ, C_HANDLE(PZ)),
	C_ROW(C_EVD_AS_PZ, C_HANDLE(PZ)),
	C_ROW(C_OTHER_IA_PZ, C_HANDLE(PZ)),
	C_ROW(C_FREED_PZ, C_HANDLE(PZ)),
	C_ROW(C_GARBAGE_RECV, C_HANDLE(EVD_RECV)),
	C_ROW(C_RECV_NO_DTO, C_HANDLE(EVD_RECV)),
	C_ROW(C_RECV_OTHER_IA, C_HANDLE(EVD_RECV)),
	C_ROW(C_PZ_AS_RECV, C_HANDLE(EVD_RECV)),
	C_ROW(C_ASYNC_AS_RECV, C_HANDLE(EVD_RECV)),
	C_ROW(C_FREED_RECV, C_HANDLE(EVD_RECV)),
	C_ROW(C_GARBAGE_REQ, C_HANDLE(EVD_REQUEST)),
	C_ROW(C_REQ_NO_DTO, C_HANDLE(EVD_REQUEST)),
	C_ROW(C_REQ_OTHER_IA, C_HANDLE(EVD_REQUEST)),
	C_ROW(C_GARBAGE_CONN, C_HANDLE(EVD_CONN)),
	C_ROW(C_CONN_NO_CONN, C_HANDLE(EVD_CONN)),
	C_ROW(C_CONN_OTHER_IA, C_HANDLE(EVD_CONN)),
	C_ROW(C_SERVICE_TYPE, C_ERR(DAT_MODEL_NOT_SUPPORTED, 0)),
	C_ROW(C_MESSAGE_SIZE, C_ARG(6)),
	C_ROW(C_RDMA_SIZE, C_ARG(6)),
	C_ROW(C_RECV_DTOS, C_ARG(6)),
	C_ROW(C_RECV_DTOS_NEG, C_ARG(6)),
	C_ROW(C_REQUEST_DTOS, C_ARG(6)),
	C_ROW(C_RECV_IOV, C_ARG(6)),
	C_ROW(C_REQUEST_IOV, C_ARG(6)),
	C_ROW(C_READ_IN, C_ARG(6)),
	C_ROW(C_READ_OUT, C_ARG(6)),
	C_ROW(C_READ_IOV, C_ARG(6)),
	C_ROW(C_WRITE_IOV, C_ARG(6)),
	C_ROW(C_SOFT_HW, C_ARG(6)),
	C_ROW(C_QOS, C_ARG(6)),
	C_ROW(C_RECV_SUPPRESS, DAT_SUCCESS),
	C_ROW(C_RECV_FENCE, C_ARG(6)),
	C_ROW(C_RECV_UNSIGNALLED, C_ARG(6)),
	C_ROW(C_REQUEST_SUPPRESS, C_ARG(6)),
	C_ROW(C_TRANSPORT_ATTR, C_ARG(6)),
	C_ROW(C_PROVIDER_ATTR, C_ARG(6)),
	C_ROW(C_RECV_SOLICITED, DAT_SUCCESS),
	C_ROW(C_RECV_THRESHOLD, DAT_SUCCESS),
	C_ROW(C_REQUEST_UNSIGNALLED, DAT_SUCCESS),
	C_ROW(C_REQUEST_THRESHOLD, DAT_SUCCESS),
	C_ROW(C_SHARED_EVD, DAT_SUCCESS),
	C_ROW(C_SHARED_SOLICITED, C_ARG(6)),
	C_ROW(C_SHARED_UNSIGNALLED, C_ARG(6)),
	C_ROW(C_MIXED_EVD_DEFAULT, C_ARG(6)),
	C_ROW(C_MIXED_EVD_THRESHOLD, DAT_SUCCESS),
	C_ROW(C_MIXED_EVD_SOLICITED, C_ARG(6)),
	C_ROW(C_MIXED_EVD_NULL_ATTR, DAT_SUCCESS),
	C_ROW(C_SRQ_NULL, C_HANDLE(SRQ)),
	C_ROW(C_SRQ_GARBAGE, C_HANDLE(SRQ)),
	C_ROW(C_SRQ_PZ, C_HANDLE(SRQ)),
	C_ROW(C_SRQ_NULL_OUT, C_ARG(8)),
	C_ROW(C_SRQ_BAD_ATTR, C_ARG(7)),
	C_ROW(C_SRQ_BAD_RECV, C_ARG(7)),
};

/* The rows share kdapl_ep_xparams with the modify table. */
static_assert(ARRAY_SIZE(kdapl_ep_create_rows) <=
	      ARRAY_SIZE(kdapl_ep_rows) * KDAPL_EP_NR_STATES);

static const char *kdapl_ep_create_name(unsigned int row)
{
	return kdapl_ep_create_rows[row].name + 2;	/* no "C_" */
}

static const void *kdapl_ep_create_gen(const void *prev, char *desc)
{
	return kdapl_ep_xgen(prev, desc, ARRAY_SIZE(kdapl_ep_create_rows), 1,
			     kdapl_ep_create_name);
}

#define KDAPL_EP_GARBAGE	((DAT_HANDLE)(uintptr_t)0xdeadbeefUL)

/* Fill @a for row @id; false to skip the row on this device. */
static bool kdapl_ep_create_prepare(struct kdapl_ep_env *env,
				    enum kdapl_ep_create_id id,
				    struct kdapl_ep_create_args *a)
{
	struct kunit *test = env->test;
	const struct ib_device_attr *d = &env->dev;
	DAT_EP_ATTR *attr = a->attr;

	/* Valid attributes, from the defaults, for the attribute rows. */
	attr->service_type = DAT_SERVICE_TYPE_RC;
	attr->max_message_size = SZ_4K;
	attr->max_rdma_size = SZ_64K;
	attr->qos = DAT_QOS_BEST_EFFORT;
	attr->max_recv_dtos = 8;
	attr->max_request_dtos = 8;
	attr->max_recv_iov = 1;
	attr->max_request_iov = 1;
	attr->max_rdma_read_in = 1;
	attr->max_rdma_read_out = 1;
	attr->srq_soft_hw = DAT_HW_DEFAULT;
	attr->max_rdma_read_iov = 1;
	attr->max_rdma_write_iov = 1;

	switch (id) {
	case C_DEFAULTS:
		a->pz = NULL;
		a->recv = NULL;
		a->req = NULL;
		a->conn = NULL;
		a->attr = NULL;
		break;
	case C_ALL_OBJECTS:
		a->attr = NULL;
		break;
	case C_EXPLICIT_ATTR:
		break;
	case C_NULL_OUT:
	case C_SRQ_NULL_OUT:
		a->out = NULL;
		break;
	case C_NULL_IA:
		a->ia = NULL;
		break;
	case C_GARBAGE_IA:
		a->ia = KDAPL_EP_GARBAGE;
		break;
	case C_PZ_AS_IA:
		a->ia = env->pz;
		break;
	case C_CLOSED_IA:
		a->ia = env->ia2;
		KUNIT_ASSERT_EQ(test, dat_ia_close(env->ia2,
						   DAT_CLOSE_ABRUPT_FLAG),
				DAT_SUCCESS);
		a->pz = NULL;
		a->recv = NULL;
		a->req = NULL;
		a->conn = NULL;
		break;
	case C_GARBAGE_PZ:
		a->pz = KDAPL_EP_GARBAGE;
		break;
	case C_EVD_AS_PZ:
		a->pz = env->recv;
		break;
	case C_OTHER_IA_PZ:
		a->pz = env->pz_other;
		break;
	case C_FREED_PZ:
		KUNIT_ASSERT_EQ(test, dat_pz_free(env->pz2), DAT_SUCCESS);
		a->pz = env->pz2;
		break;
	case C_GARBAGE_RECV:
		a->recv = KDAPL_EP_GARBAGE;
		break;
	case C_RECV_NO_DTO:
		a->recv = env->conn;
		break;
	case C_RECV_OTHER_IA:
		a->recv = env->dto_other;
		break;
	case C_PZ_AS_RECV:
		a->recv = env->pz;
		break;
	case C_ASYNC_AS_RECV:
		a->recv = env->async;
		break;
	case C_FREED_RECV:
		KUNIT_ASSERT_EQ(test, dat_evd_free(env->recv2), DAT_SUCCESS);
		a->recv = env->recv2;
		break;
	case C_GARBAGE_REQ:
		a->req = KDAPL_EP_GARBAGE;
		break;
	case C_REQ_NO_DTO:
		a->req = env->conn;
		break;
	case C_REQ_OTHER_IA:
		a->req = env->dto_other;
		break;
	case C_GARBAGE_CONN:
		a->conn = KDAPL_EP_GARBAGE;
		break;
	case C_CONN_NO_CONN:
		a->conn = env->recv;
		break;
	case C_CONN_OTHER_IA:
		a->conn = env->conn_other;
		break;
	case C_SERVICE_TYPE:
		/* An extension's number no extension defines (UD is +0). */
		attr->service_type = DAT_SERVICE_TYPE_EXTENSION_BASE + 1;
		break;
	case C_MESSAGE_SIZE:
		if (kdapl_ep_max_message(env) == U32_MAX)
			return false;
		attr->max_message_size = kdapl_ep_max_message(env) + 1;
		break;
	case C_RDMA_SIZE:
		if (kdapl_ep_max_rdma(env) == U32_MAX)
			return false;
		attr->max_rdma_size = kdapl_ep_max_rdma(env) + 1;
		break;
	case C_RECV_DTOS:
		if (d->max_qp_wr == S32_MAX)
			return false;
		attr->max_recv_dtos = d->max_qp_wr + 1;
		break;
	case C_RECV_DTOS_NEG:
		attr->max_recv_dtos = -1;
		break;
	case C_REQUEST_DTOS:
		if (d->max_qp_wr == S32_MAX)
			return false;
		attr->max_request_dtos = d->max_qp_wr + 1;
		break;
	case C_RECV_IOV:
		attr->max_recv_iov = d->max_recv_sge + 1;
		break;
	case C_REQUEST_IOV:
		attr->max_request_iov = d->max_send_sge + 1;
		break;
	case C_READ_IN:
		attr->max_rdma_read_in = d->max_qp_rd_atom + 1;
		break;
	case C_READ_OUT:
		attr->max_rdma_read_out = d->max_qp_init_rd_atom + 1;
		break;
	case C_READ_IOV:
		attr->max_rdma_read_iov = d->max_sge_rd + 1;
		break;
	case C_WRITE_IOV:
		attr->max_rdma_write_iov = d->max_send_sge + 1;
		break;
	case C_SOFT_HW:
		attr->srq_soft_hw = -2;
		break;
	case C_QOS:
		attr->qos = DAT_QOS_LOW_LATENCY;
		break;
	case C_RECV_SUPPRESS:
		attr->recv_completion_flags = DAT_COMPLETION_SUPPRESS_FLAG;
		break;
	case C_RECV_FENCE:
		attr->recv_completion_flags =
			DAT_COMPLETION_BARRIER_FENCE_FLAG;
		break;
	case C_RECV_UNSIGNALLED:
		attr->recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
		break;
	case C_REQUEST_SUPPRESS:
		attr->request_completion_flags = DAT_COMPLETION_SUPPRESS_FLAG;
		break;
	case C_TRANSPORT_ATTR:
		attr->ep_transport_specific_count = 1;
		break;
	case C_PROVIDER_ATTR:
		attr->ep_provider_specific_count = 1;
		break;
	case C_RECV_SOLICITED:
		attr->recv_completion_flags =
			DAT_COMPLETION_SOLICITED_WAIT_FLAG;
		break;
	case C_RECV_THRESHOLD:
		attr->recv_completion_flags =
			DAT_COMPLETION_EVD_THRESHOLD_FLAG;
		break;
	case C_REQUEST_UNSIGNALLED:
		attr->request_completion_flags =
			DAT_COMPLETION_UNSIGNALLED_FLAG;
		break;
	case C_REQUEST_THRESHOLD:
		attr->request_completion_flags =
			DAT_COMPLETION_EVD_THRESHOLD_FLAG;
		break;
	case C_SHARED_EVD:
		a->req = a->recv;
		break;
	case C_SHARED_SOLICITED:
		/* A solicited-wait receive EVD takes no other stream. */
		a->req = a->recv;
		attr->recv_completion_flags =
			DAT_COMPLETION_SOLICITED_WAIT_FLAG;
		break;
	case C_SHARED_UNSIGNALLED:
		/* Unsignalled requests: every stream on the EVD the same. */
		a->req = a->recv;
		attr->request_completion_flags =
			DAT_COMPLETION_UNSIGNALLED_FLAG;
		break;
	case C_MIXED_EVD_DEFAULT:
		/* An EVD with connection events too refuses default flags, */
		a->recv = env->dto_conn;
		a->req = env->dto_conn;
		a->conn = env->dto_conn;
		break;
	case C_MIXED_EVD_THRESHOLD:
		/* takes threshold flags */
		a->recv = env->dto_conn;
		attr->recv_completion_flags =
			DAT_COMPLETION_EVD_THRESHOLD_FLAG;
		break;
	case C_MIXED_EVD_SOLICITED:
		/* and nothing else. */
		a->recv = env->dto_conn;
		attr->recv_completion_flags =
			DAT_COMPLETION_SOLICITED_WAIT_FLAG;
		break;
	case C_MIXED_EVD_NULL_ATTR:
		/* The provider defaults use what such an EVD takes. */
		a->recv = env->dto_conn;
		a->req = env->dto_conn;
		a->conn = env->dto_conn;
		a->attr = NULL;
		break;
	case C_SRQ_NULL:
		a->with_srq = true;
		a->srq = NULL;
		break;
	case C_SRQ_GARBAGE:
		a->with_srq = true;
		a->srq = KDAPL_EP_GARBAGE;
		break;
	case C_SRQ_PZ:
		a->with_srq = true;
		a->srq = env->pz;
		break;
	case C_SRQ_BAD_ATTR:
		a->with_srq = true;
		attr->max_recv_iov = -1;
		break;
	case C_SRQ_BAD_RECV:
		/* The stream rules name the attributes, argument 7. */
		a->with_srq = true;
		a->req = a->recv;
		attr->recv_completion_flags =
			DAT_COMPLETION_SOLICITED_WAIT_FLAG;
		break;
	}
	if (id == C_SRQ_NULL_OUT)
		a->with_srq = true;
	return true;
}

static void kdapl_ep_create_row_test(struct kunit *test)
{
	const struct kdapl_ep_xparam *x = test->param_value;
	const struct kdapl_ep_create_row *row = &kdapl_ep_create_rows[x->row];
	struct kdapl_ep_create_args a = {};
	DAT_SRQ_ATTR srq_attr = {
		.max_recv_dtos = 8,
		.max_recv_iov = 1,
		.low_watermark = DAT_SRQ_LW_DEFAULT,
	};
	DAT_SRQ_HANDLE srq = NULL;
	struct kdapl_ep_env *env;
	DAT_EP_HANDLE ep = NULL;
	DAT_EP_PARAM *p;
	DAT_RETURN ret;

	env = kdapl_ep_env(test, x->adapter);
	a.ia = env->ia;
	a.pz = env->pz;
	a.recv = env->recv;
	a.req = env->req;
	a.conn = env->conn;
	a.attr = kunit_kzalloc(test, sizeof(*a.attr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a.attr);
	a.out = &ep;
	if (!kdapl_ep_create_prepare(env, row->id, &a))
		kunit_skip(test, "no such value on this device");
	if (a.with_srq && row->id != C_SRQ_NULL && row->id != C_SRQ_GARBAGE &&
	    row->id != C_SRQ_PZ) {
		ret = dat_srq_create(env->ia, env->pz, &srq_attr, &srq);
		if (ret == KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0))
			kunit_skip(test, "no SRQ on this device");
		KUNIT_ASSERT_EQ(test, ret, DAT_SUCCESS);
		a.srq = srq;
	}

	if (a.with_srq)
		ret = dat_ep_create_with_srq(a.ia, a.pz, a.recv, a.req, a.conn,
					     a.srq, a.attr, a.out);
	else
		ret = dat_ep_create(a.ia, a.pz, a.recv, a.req, a.conn, a.attr,
				    a.out);
	KUNIT_ASSERT_EQ(test, ret, row->ret);

	if (ret == DAT_SUCCESS) {
		p = kdapl_ep_query_all(test, ep);
		KUNIT_EXPECT_EQ(test, p->ep_state, DAT_EP_STATE_UNCONNECTED);
		KUNIT_EXPECT_PTR_EQ(test, p->ia_handle, a.ia);
		KUNIT_EXPECT_PTR_EQ(test, p->pz_handle, a.pz);
		KUNIT_EXPECT_PTR_EQ(test, p->recv_evd_handle, a.recv);
		KUNIT_EXPECT_PTR_EQ(test, p->request_evd_handle, a.req);
		KUNIT_EXPECT_PTR_EQ(test, p->connect_evd_handle, a.conn);
		KUNIT_EXPECT_PTR_EQ(test, p->srq_handle, a.srq);
		if (a.attr) {
			KUNIT_EXPECT_EQ(test, p->ep_attr.recv_completion_flags,
					a.attr->recv_completion_flags);
			KUNIT_EXPECT_EQ(test,
					p->ep_attr.request_completion_flags,
					a.attr->request_completion_flags);
			KUNIT_EXPECT_EQ(test, p->ep_attr.max_recv_dtos,
					a.attr->max_recv_dtos);
			KUNIT_EXPECT_EQ(test, p->ep_attr.max_message_size,
					a.attr->max_message_size);
		}
		if (row->id == C_MIXED_EVD_NULL_ATTR) {
			KUNIT_EXPECT_EQ(test, p->ep_attr.recv_completion_flags,
					DAT_COMPLETION_EVD_THRESHOLD_FLAG);
			KUNIT_EXPECT_EQ(test,
					p->ep_attr.request_completion_flags,
					DAT_COMPLETION_EVD_THRESHOLD_FLAG);
		}
		KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	}

	/* Nothing is left in use, whatever happened. */
	if (row->id != C_FREED_PZ)
		KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->req), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->conn), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->dto_conn), DAT_SUCCESS);
	if (srq)
		KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), DAT_SUCCESS);
}

/* NULL attributes give the documented provider defaults. */
static void kdapl_ep_defaults_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	const struct ib_device_attr *d = &env->dev;
	DAT_EP_HANDLE ep, ep2;
	DAT_EP_PARAM *p, *q;
	DAT_EP_ATTR *a;

	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, NULL, NULL, NULL, NULL,
					    NULL, &ep),
			DAT_SUCCESS);
	p = kdapl_ep_query_all(test, ep);
	a = &p->ep_attr;
	KUNIT_EXPECT_EQ(test, p->ep_state, DAT_EP_STATE_UNCONNECTED);
	KUNIT_EXPECT_PTR_EQ(test, p->ia_handle, env->ia);
	KUNIT_EXPECT_NULL(test, p->pz_handle);
	KUNIT_EXPECT_NULL(test, p->recv_evd_handle);
	KUNIT_EXPECT_NULL(test, p->request_evd_handle);
	KUNIT_EXPECT_NULL(test, p->connect_evd_handle);
	KUNIT_EXPECT_NULL(test, p->srq_handle);
	KUNIT_EXPECT_EQ(test, p->local_port_qual, 0);
	KUNIT_EXPECT_EQ(test, p->remote_port_qual, 0);
	KUNIT_EXPECT_NOT_NULL(test, p->local_ia_address_ptr);
	KUNIT_EXPECT_NOT_NULL(test, p->remote_ia_address_ptr);

	KUNIT_EXPECT_EQ(test, a->service_type, DAT_SERVICE_TYPE_RC);
	KUNIT_EXPECT_EQ(test, a->max_message_size,
			min_t(u32, SZ_1M, kdapl_ep_max_message(env)));
	KUNIT_EXPECT_EQ(test, a->max_rdma_size,
			min_t(u32, SZ_1G, kdapl_ep_max_rdma(env)));
	KUNIT_EXPECT_EQ(test, a->qos, DAT_QOS_BEST_EFFORT);
	KUNIT_EXPECT_EQ(test, a->recv_completion_flags,
			DAT_COMPLETION_DEFAULT_FLAG);
	KUNIT_EXPECT_EQ(test, a->request_completion_flags,
			DAT_COMPLETION_DEFAULT_FLAG);
	KUNIT_EXPECT_EQ(test, a->max_recv_dtos, min(64, d->max_qp_wr));
	KUNIT_EXPECT_EQ(test, a->max_request_dtos, min(64, d->max_qp_wr));
	KUNIT_EXPECT_EQ(test, a->max_recv_iov, min(4, d->max_recv_sge));
	KUNIT_EXPECT_EQ(test, a->max_request_iov, min(4, d->max_send_sge));
	KUNIT_EXPECT_EQ(test, a->max_rdma_read_in, d->max_qp_rd_atom);
	KUNIT_EXPECT_EQ(test, a->max_rdma_read_out, d->max_qp_init_rd_atom);
	KUNIT_EXPECT_EQ(test, a->srq_soft_hw, DAT_HW_DEFAULT);
	KUNIT_EXPECT_EQ(test, a->max_rdma_read_iov, min(4, d->max_sge_rd));
	KUNIT_EXPECT_EQ(test, a->max_rdma_write_iov, min(4, d->max_send_sge));
	KUNIT_EXPECT_EQ(test, a->ep_transport_specific_count, 0);
	KUNIT_EXPECT_NULL(test, a->ep_transport_specific);
	KUNIT_EXPECT_EQ(test, a->ep_provider_specific_count, 0);
	KUNIT_EXPECT_NULL(test, a->ep_provider_specific);

	/* Reasonable: something can be sent, received and read. */
	KUNIT_EXPECT_GE(test, a->max_message_size, SZ_4K);
	KUNIT_EXPECT_GE(test, a->max_recv_dtos, 1);
	KUNIT_EXPECT_GE(test, a->max_request_dtos, 1);
	KUNIT_EXPECT_GE(test, a->max_recv_iov, 1);
	KUNIT_EXPECT_GE(test, a->max_request_iov, 1);
	KUNIT_EXPECT_GE(test, a->max_rdma_read_iov, 1);

	/* The defaults are valid attributes, given back as they are... */
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, NULL, NULL, NULL, NULL,
					    a, &ep2),
			DAT_SUCCESS);
	q = kdapl_ep_query_all(test, ep2);
	p->local_ia_address_ptr = q->local_ia_address_ptr;
	p->remote_ia_address_ptr = q->remote_ia_address_ptr;
	kdapl_ep_expect_param_eq(test, "defaults", p, q);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep2), DAT_SUCCESS);
	/* ... also with every stream. */
	KUNIT_EXPECT_EQ(test, dat_ep_create(env->ia, env->pz, env->recv,
					    env->req, env->conn, a, &ep2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
}

/* The completion flag rules across EPs sharing EVDs. */
static void kdapl_ep_stream_rules_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_PARAM_MASK request_flags =
		DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS;
	DAT_EP_HANDLE ep1, ep2, ep3, ep4, ep5;
	DAT_EP_PARAM *p;
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_message_size = SZ_4K;
	a.max_recv_dtos = 4;
	a.max_request_dtos = 4;
	a.max_recv_iov = 1;
	a.max_request_iov = 1;
	a.srq_soft_hw = DAT_HW_DEFAULT;

	/* Receive streams on one EVD share their flags. */
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, NULL, env->recv, NULL,
					    NULL, &a, &ep1),
			DAT_SUCCESS);
	a.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_create(env->ia, NULL, env->recv, NULL,
					    NULL, &a, &ep2),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	a.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_create(env->ia, NULL, env->recv, NULL,
					    NULL, &a, &ep2),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	a.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, NULL, env->recv, NULL,
					    NULL, &a, &ep2),
			DAT_SUCCESS);
	/* A request stream with default flags joins them. */
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, NULL, NULL, env->recv,
					    NULL, &a, &ep3),
			DAT_SUCCESS);

	/* Unsignalled requests on req: every stream there the same. */
	a.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->ia, NULL, NULL, env->req,
					    NULL, &a, &ep4),
			DAT_SUCCESS);
	a.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_create(env->ia, NULL, NULL, env->req,
					    NULL, &a, &ep5),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	KUNIT_EXPECT_EQ(test, dat_ep_create(env->ia, NULL, env->req, NULL,
					    NULL, &a, &ep5),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));

	/* Moving ep1's receives there is refused and changes nothing. */
	p = kdapl_ep_query_all(test, ep1);
	p->recv_evd_handle = env->req;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep1, DAT_EP_FIELD_RECV_EVD_HANDLE,
					    p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_PTR_EQ(test, kdapl_ep_query_all(test, ep1)->recv_evd_handle,
			    env->recv);
	/* ep1 can still be created again next to ep2's receives. */
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_create(env->ia, NULL, env->recv, NULL,
					    NULL, &a, &ep1),
			DAT_SUCCESS);

	/* Once ep4 is gone, req takes default requests again. */
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_create(env->ia, NULL, NULL, env->req,
					    NULL, &a, &ep5),
			DAT_SUCCESS);

	/* Changing ep3's request flags alone: the others hold them. */
	p = kdapl_ep_query_all(test, ep3);
	p->ep_attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep3, request_flags, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	/* Moving it to an EVD of its own with them is fine. */
	p->request_evd_handle = env->req2;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(ep3, request_flags |
					    DAT_EP_FIELD_REQUEST_EVD_HANDLE,
					    p),
			DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_ep_free(ep1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep3), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep5), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->req), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->req2), DAT_SUCCESS);
}

/* ---------------------------------------------------------------------
 * dat_ep_query(), dat_ep_get_status(), dat_ep_reset(), dat_ep_free()
 */

static void kdapl_ep_query_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	DAT_EP_PARAM *p, *all;
	unsigned long flags;
	DAT_RETURN ret;

	all = kdapl_ep_query_all(test, ep);
	KUNIT_EXPECT_PTR_EQ(test, all->pz_handle, env->pz);
	KUNIT_EXPECT_PTR_EQ(test, all->recv_evd_handle, env->recv);
	KUNIT_EXPECT_PTR_EQ(test, all->request_evd_handle, env->req);
	KUNIT_EXPECT_PTR_EQ(test, all->connect_evd_handle, env->conn);

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, dat_ep_query(ep, DAT_EP_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_query(ep, DAT_EP_FIELD_ALL + 1, p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	/* Only the fields asked for are written. */
	memset(p, 0x5a, sizeof(*p));
	KUNIT_EXPECT_EQ(test, dat_ep_query(ep, DAT_EP_FIELD_EP_STATE |
					   DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
					   p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p->ep_state, DAT_EP_STATE_UNCONNECTED);
	KUNIT_EXPECT_EQ(test, p->ep_attr.max_recv_dtos,
			all->ep_attr.max_recv_dtos);
	KUNIT_EXPECT_EQ(test, (uintptr_t)p->pz_handle,
			(uintptr_t)0x5a5a5a5a5a5a5a5aULL);
	KUNIT_EXPECT_EQ(test, p->ep_attr.max_request_dtos, 0x5a5a5a5a);
	KUNIT_EXPECT_EQ(test, p->remote_port_qual, 0x5a5a5a5a5a5a5a5aULL);

	/* Any context. */
	local_irq_save(flags);
	ret = dat_ep_query(ep, DAT_EP_FIELD_ALL, p);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, DAT_SUCCESS);
	kdapl_ep_expect_param_eq(test, "irqs off", all, p);
}

/* Receive queries and high watermarks: the answers DAT allows kdapl. */
static void kdapl_ep_recv_info_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	DAT_COUNT n = 7, span = 7;

	KUNIT_EXPECT_EQ(test, dat_ep_recv_query(ep, &n, &span),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, dat_ep_recv_query(ep, NULL, &span),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ep_recv_query(ep, &n, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_recv_query(env->pz, &n, &span),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, n, 7);
	KUNIT_EXPECT_EQ(test, span, 7);

	KUNIT_EXPECT_EQ(test, dat_ep_set_watermark(ep, DAT_WATERMARK_INFINITE,
						   DAT_WATERMARK_INFINITE),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_set_watermark(ep, 4,
						   DAT_WATERMARK_INFINITE),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, dat_ep_set_watermark(ep, DAT_WATERMARK_INFINITE,
						   0),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, dat_ep_set_watermark(ep, -2, 4),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ep_set_watermark(ep, 4, -2),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_set_watermark(env->conn, 4, 4),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
}

static void kdapl_ep_status_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	struct kdapl_ep *e = kdapl_ep_test_ep(test, ep);
	DAT_BOOLEAN recv_idle, req_idle;
	DAT_EP_STATE state;
	unsigned long flags;
	unsigned int i;
	DAT_RETURN ret;

	/* NULL out-pointers are not written. */
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, NULL, NULL, NULL),
			DAT_SUCCESS);
	state = 77;
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, NULL, NULL),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, state, DAT_EP_STATE_UNCONNECTED);

	recv_idle = DAT_FALSE;
	req_idle = DAT_FALSE;
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, NULL, &recv_idle,
						&req_idle),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, recv_idle, DAT_TRUE);
	KUNIT_EXPECT_EQ(test, req_idle, DAT_TRUE);

	/* Outstanding receives, then requests, then neither. */
	atomic_inc(&e->recv_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, &recv_idle,
						&req_idle),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, recv_idle, DAT_FALSE);
	KUNIT_EXPECT_EQ(test, req_idle, DAT_TRUE);
	atomic_add(2, &e->request_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, &recv_idle,
						&req_idle),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, recv_idle, DAT_FALSE);
	KUNIT_EXPECT_EQ(test, req_idle, DAT_FALSE);
	atomic_dec(&e->recv_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, &recv_idle,
						&req_idle),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, recv_idle, DAT_TRUE);
	KUNIT_EXPECT_EQ(test, req_idle, DAT_FALSE);
	atomic_sub(2, &e->request_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, &recv_idle,
						&req_idle),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, recv_idle, DAT_TRUE);
	KUNIT_EXPECT_EQ(test, req_idle, DAT_TRUE);

	/* Every state is reported, from any context. */
	for (i = 0; i < KDAPL_EP_NR_STATES; i++) {
		kdapl_ep_set(test, ep, kdapl_ep_test_states[i]);
		local_irq_save(flags);
		ret = dat_ep_get_status(ep, &state, &recv_idle, &req_idle);
		local_irq_restore(flags);
		KUNIT_EXPECT_EQ(test, ret, DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, state, kdapl_ep_test_states[i]);
	}
}

/* Handles that are not EPs: the exact error from every EP call. */
static void kdapl_ep_bad_handle_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_RETURN bad = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	DAT_EP_HANDLE live = kdapl_ep_full(env), freed = kdapl_ep_full(env);
	DAT_BOOLEAN recv_idle, req_idle;
	DAT_EP_PARAM_MASK qos = DAT_EP_FIELD_EP_ATTR_QOS;
	DAT_EP_HANDLE handles[7];
	DAT_EP_STATE state;
	DAT_EP_PARAM *p;
	unsigned int i;

	p = kdapl_ep_query_all(test, live);
	KUNIT_ASSERT_EQ(test, dat_ep_free(freed), DAT_SUCCESS);
	handles[0] = DAT_HANDLE_NULL;
	handles[1] = freed;
	handles[2] = env->recv;		/* an EVD */
	handles[3] = env->pz;		/* a PZ */
	handles[4] = env->ia;		/* an IA */
	handles[5] = KDAPL_EP_GARBAGE;
	/* An EP's handle with another generation. */
	handles[6] = (DAT_HANDLE)((uintptr_t)live ^ BIT_ULL(40));

	for (i = 0; i < ARRAY_SIZE(handles); i++) {
		KUNIT_EXPECT_EQ_MSG(test, dat_ep_query(handles[i],
						       DAT_EP_FIELD_ALL, p),
				    bad, "handle %u", i);
		KUNIT_EXPECT_EQ_MSG(test, dat_ep_modify(handles[i], qos, p),
				    bad, "handle %u", i);
		KUNIT_EXPECT_EQ_MSG(test, dat_ep_modify(handles[i], 0, NULL),
				    bad, "handle %u", i);
		KUNIT_EXPECT_EQ_MSG(test, dat_ep_get_status(handles[i], &state,
							    &recv_idle,
							    &req_idle),
				    bad, "handle %u", i);
		KUNIT_EXPECT_EQ_MSG(test, dat_ep_reset(handles[i]), bad,
				    "handle %u", i);
		KUNIT_EXPECT_EQ_MSG(test, dat_ep_free(handles[i]), bad,
				    "handle %u", i);
	}
	/* None of that touched the live EP or the objects. */
	kdapl_ep_expect_param_eq(test, "live", p,
				 kdapl_ep_query_all(test, live));
	KUNIT_EXPECT_EQ(test, dat_ep_free(live), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(live), bad);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), DAT_SUCCESS);
}

/* dat_ep_free() in every state releases the objects the EP used. */
static void kdapl_ep_free_state_test(struct kunit *test)
{
	const struct kdapl_ep_xparam *x = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, x->adapter);
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	DAT_EP_STATE state;

	kdapl_ep_set(test, ep, kdapl_ep_test_states[x->state]);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, NULL, NULL),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->req), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->conn), DAT_SUCCESS);
}

/*
 * dat_ep_reset(): DISCONNECTED once idle goes to UNCONNECTED; in
 * UNCONNECTED it does nothing (its receives stay posted), as DAT says;
 * any other state is refused.
 */
static void kdapl_ep_reset_state_test(struct kunit *test)
{
	const struct kdapl_ep_xparam *x = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, x->adapter);
	DAT_EP_STATE state = kdapl_ep_test_states[x->state];
	DAT_EP_HANDLE ep = kdapl_ep_full(env);
	struct kdapl_ep *e = kdapl_ep_test_ep(test, ep);
	DAT_EP_STATE now;

	kdapl_ep_set(test, ep, state);
	if (state == DAT_EP_STATE_UNCONNECTED) {
		atomic_inc(&e->recv_outstanding);
		KUNIT_EXPECT_EQ(test, dat_ep_reset(ep), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, atomic_read(&e->recv_outstanding), 1);
		atomic_dec(&e->recv_outstanding);
		KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &now, NULL, NULL),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, now, DAT_EP_STATE_UNCONNECTED);
		return;
	}
	if (state != DAT_EP_STATE_DISCONNECTED) {
		KUNIT_EXPECT_EQ(test, dat_ep_reset(ep),
				kdapl_ep_state_err(x->state));
		KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &now, NULL, NULL),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, now, state);
		return;
	}

	atomic_inc(&e->recv_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ep_reset(ep),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_COMPLPENDING));
	atomic_dec(&e->recv_outstanding);
	atomic_inc(&e->request_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ep_reset(ep),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_COMPLPENDING));
	atomic_dec(&e->request_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &now, NULL, NULL),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, now, DAT_EP_STATE_DISCONNECTED);

	KUNIT_EXPECT_EQ(test, dat_ep_reset(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &now, NULL, NULL),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, now, DAT_EP_STATE_UNCONNECTED);
	/* Again: UNCONNECTED already, nothing to do. */
	KUNIT_EXPECT_EQ(test, dat_ep_reset(ep), DAT_SUCCESS);
	/* It keeps its objects. */
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));
}

/* PZ, EVDs and SRQ an EP uses cannot be freed until the EP is. */
static void kdapl_ep_in_use_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_RETURN pz_busy = KDAPL_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_PZ_IN_USE);
	DAT_RETURN evd_busy = KDAPL_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_EVD_IN_USE);
	DAT_SRQ_ATTR srq_attr = {
		.max_recv_dtos = 8,
		.max_recv_iov = 1,
		.low_watermark = DAT_SRQ_LW_DEFAULT,
	};
	DAT_SRQ_HANDLE srq = NULL;
	DAT_EP_HANDLE ep, ep2;
	DAT_RETURN ret;

	ep = kdapl_ep_full(env);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), pz_busy);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), evd_busy);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->req), evd_busy);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->conn), evd_busy);

	/* Two EPs on the same objects: both must go. */
	ep2 = kdapl_ep_full(env);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), pz_busy);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), evd_busy);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->recv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->req), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(env->conn), DAT_SUCCESS);

	/* An SRQ the EP takes its receives from. */
	ret = dat_srq_create(env->ia, env->pz2, &srq_attr, &srq);
	if (ret == KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0)) {
		KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), DAT_SUCCESS);
		kunit_skip(test, "no SRQ on this device");
	}
	KUNIT_ASSERT_EQ(test, ret, DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create_with_srq(env->ia, env->pz, NULL,
						     NULL, NULL, srq, NULL,
						     &ep),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, kdapl_ep_query_all(test, ep)->srq_handle,
			    srq);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz2), DAT_SUCCESS);
}

/* An abrupt IA close frees EPs in any state with what they use. */
static void kdapl_ep_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_ep_env *env = kdapl_ep_env(test, *name);
	DAT_EP_HANDLE ep[KDAPL_EP_NR_STATES];
	DAT_EP_STATE state;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ep); i++) {
		ep[i] = kdapl_ep_full(env);
		kdapl_ep_set(test, ep[i], kdapl_ep_test_states[i]);
	}
	KUNIT_EXPECT_EQ(test, dat_ia_close(env->ia, DAT_CLOSE_GRACEFUL_FLAG),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_IA_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_ia_close(env->ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(ep); i++)
		KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep[i], &state, NULL,
							NULL),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_pz_free(env->pz),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
}

static struct kunit_case kdapl_ep_cases[] = {
	KUNIT_CASE_PARAM(kdapl_ep_defaults_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_create_row_test, kdapl_ep_create_gen),
	KUNIT_CASE_PARAM(kdapl_ep_stream_rules_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_modify_row_test, kdapl_ep_modify_gen),
	KUNIT_CASE_PARAM(kdapl_ep_modify_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_modify_atomic_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_modify_null_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_modify_recvs_posted_test,
			 kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_query_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_status_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_bad_handle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_recv_info_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_free_state_test, kdapl_ep_state_gen),
	KUNIT_CASE_PARAM(kdapl_ep_reset_state_test, kdapl_ep_state_gen),
	KUNIT_CASE_PARAM(kdapl_ep_in_use_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_ep_abrupt_close_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_ep_suite = {
	.name = "kdapl_ep",
	.test_cases = kdapl_ep_cases,
};

kunit_test_suite(kdapl_ep_suite);
