// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the IB extensions of kDAT, on loopback connections:
 * the IA attributes that announce them, RDMA Write with immediate data
 * (the peer's receive brings the immediate), compare and swap and fetch
 * and add (the values returned and left in the target), their argument
 * checks, the checks of datagram EPs that need no peer, and the
 * DAT_NOT_IMPLEMENTED of what the transport lacks (siw: no immediate
 * data, no atomics, no datagrams).
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/kdat_ib_extensions.h>

#include "kdapl_test_util.h"

/* Qualifiers no other suite listens on. */
#define IBEXT_QUAL	47400

#define IBEXT_LEN	PAGE_SIZE
#define IBEXT_MSG	300
#define IBEXT_IMMED	0xfeedbeef

/**
 * struct ibext_env - a connected pair with a page and an LMR on each side
 * @test: the test
 * @p: the pair
 * @cdto: DTO EVD of the client
 * @sdto: DTO EVD of the server
 * @cbuf: the client's page, in an LMR of lmr_context @cctx
 * @sbuf: the server's page, in an LMR of lmr_context @sctx, remotely
 *	accessible through @srctx (atomics included)
 * @cctx: see @cbuf
 * @sctx: see @sbuf
 * @srctx: see @sbuf
 * @iwarp: the adapter is iWARP
 */
struct ibext_env {
	struct kunit *test;
	struct kdapl_test_pair p;
	DAT_EVD_HANDLE cdto, sdto;
	u8 *cbuf, *sbuf;
	DAT_LMR_CONTEXT cctx, sctx;
	DAT_RMR_CONTEXT srctx;
	bool iwarp;
};

static u8 *ibext_page(struct kunit *test, int fill)
{
	u8 *buf = kunit_kmalloc(test, IBEXT_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, fill, IBEXT_LEN);
	return buf;
}

static void ibext_env_init(struct kunit *test, struct ibext_env *env,
			   DAT_CONN_QUAL qual)
{
	DAT_RMR_CONTEXT unused;

	memset(env, 0, sizeof(*env));
	env->test = test;
	kdapl_test_pair_init(test, &env->p, qual);
	env->iwarp = kdapl_test_iwarp(test);
	env->cdto = kdapl_test_evd(test, env->p.ia, 16, DAT_EVD_DTO_FLAG);
	env->sdto = kdapl_test_evd(test, env->p.ia, 16, DAT_EVD_DTO_FLAG);
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->p.ia, env->p.pz, env->cdto,
					    env->cdto, env->p.conn, NULL,
					    &env->p.cli),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->p.ia, env->p.spz, env->sdto,
					    env->sdto, env->p.sconn, NULL,
					    &env->p.srv),
			DAT_SUCCESS);
	env->cbuf = ibext_page(test, 0x11);
	env->sbuf = ibext_page(test, 0xa5);
	kdapl_test_lmr(test, env->p.ia, env->p.pz, env->cbuf, IBEXT_LEN,
		       DAT_MEM_PRIV_ALL_FLAG, &env->cctx, &unused);
	kdapl_test_lmr(test, env->p.ia, env->p.spz, env->sbuf, IBEXT_LEN,
		       DAT_MEM_PRIV_ALL_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC,
		       &env->sctx, &env->srctx);
	kdapl_test_connect(test, &env->p);
}

/*
 * The next event of @evd is a DAT_IB_DTO_EVENT of @op and @type for
 * @cookie, successful: its transferred length and immediate data.
 */
static void ibext_expect(struct ibext_env *env, DAT_EVD_HANDLE evd,
			 u64 cookie, DAT_IB_DTOS op, DAT_IB_EXT_TYPE type,
			 DAT_VLEN length, u32 immed)
{
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	struct kunit *test = env->test;
	DAT_EVENT ev;

	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(evd, &ev,
						    KDAPL_TEST_WAIT_MS),
			      "no event");
	d = &ev.event_data.dto_completion_event_data;
	x = (const DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	KUNIT_ASSERT_EQ(test, (u32)ev.event_number, (u32)DAT_IB_DTO_EVENT);
	KUNIT_EXPECT_EQ(test, d->status, DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, cookie);
	KUNIT_EXPECT_EQ(test, (u32)d->operation, (u32)op);
	KUNIT_EXPECT_EQ(test, d->transfered_length, length);
	KUNIT_EXPECT_PTR_EQ(test, d->ep_handle,
			    evd == env->cdto ? env->p.cli : env->p.srv);
	KUNIT_EXPECT_EQ(test, (u32)x->type, (u32)type);
	KUNIT_EXPECT_EQ(test, (u32)x->status, (u32)DAT_OP_SUCCESS);
	KUNIT_EXPECT_EQ(test, x->val.immed.data, immed);
}

/* Is the provider-specific attribute @name "TRUE"? */
static bool ibext_has_attr(const DAT_PROVIDER_ATTR *p, const char *name)
{
	int i;

	for (i = 0; i < p->num_provider_specific_attr; i++)
		if (!strcmp(p->provider_specific_attr[i].name, name))
			return !strcmp(p->provider_specific_attr[i].value,
				       "TRUE");
	return false;
}

/*
 * The IA announces the IB extensions, and each operation where the
 * transport carries it: immediate data and atomics on RoCE; an iWARP IA,
 * which has neither, does not claim the extension.
 */
static void ibext_attr_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	bool roce = !kdapl_test_iwarp(test);
	DAT_PROVIDER_ATTR *pattr;
	DAT_IA_HANDLE ia;
	DAT_IA_ATTR *attr;
	DAT_EVD_HANDLE async;

	ia = kdapl_test_open_ia(test, *name);
	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	pattr = kunit_kzalloc(test, sizeof(*pattr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_NOT_NULL(test, pattr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, attr,
					   DAT_PROVIDER_FIELD_ALL, pattr),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, attr->extension_supported,
			roce ? DAT_EXTENSION_IB : DAT_EXTENSION_NONE);
	KUNIT_EXPECT_EQ(test, attr->extension_version,
			roce ? DAT_IB_EXTENSION_VERSION : 0);
	KUNIT_EXPECT_EQ(test, ibext_has_attr(pattr,
					     "DAT_EXTENSION_INTERFACE"),
			roce);
	KUNIT_EXPECT_EQ(test, ibext_has_attr(pattr, DAT_IB_ATTR_IMMED_DATA),
			roce);
	KUNIT_EXPECT_EQ(test, ibext_has_attr(pattr, DAT_IB_ATTR_CMP_AND_SWAP),
			roce);
	KUNIT_EXPECT_EQ(test, ibext_has_attr(pattr,
					     DAT_IB_ATTR_FETCH_AND_ADD),
			roce);
}

/*
 * An RDMA Write with immediate data moves the data, and the peer's
 * receive completes with the immediate, its own cookie and the written
 * length; the writer's completion is extended too.
 */
static void ibext_write_immed_test(struct kunit *test)
{
	DAT_LMR_TRIPLET l, r;
	DAT_RMR_TRIPLET remote;
	struct ibext_env env;
	DAT_RETURN ret;

	ibext_env_init(test, &env, IBEXT_QUAL);
	r = (DAT_LMR_TRIPLET){ .lmr_context = env.sctx, .segment_length = 64,
			       .virtual_address = (uintptr_t)env.sbuf };
	KUNIT_ASSERT_EQ(test, dat_ep_post_recv(env.p.srv, 1, &r,
					       (DAT_DTO_COOKIE)7ULL, 0),
			DAT_SUCCESS);
	l = (DAT_LMR_TRIPLET){ .lmr_context = env.cctx,
			       .segment_length = IBEXT_MSG,
			       .virtual_address = (uintptr_t)env.cbuf };
	remote = (DAT_RMR_TRIPLET){ .rmr_context = env.srctx,
				    .segment_length = IBEXT_MSG,
				    .virtual_address =
					(uintptr_t)env.sbuf + 1024 };
	ret = dat_ib_post_rdma_write_immed(env.p.cli, 1, &l,
					   (DAT_DTO_COOKIE)9ULL, &remote,
					   IBEXT_IMMED, 0);
	if (env.iwarp) {
		KUNIT_EXPECT_EQ(test, ret,
				KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0));
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, DAT_SUCCESS);
	ibext_expect(&env, env.cdto, 9, DAT_IB_DTO_RDMA_WRITE_IMMED,
		     DAT_IB_RDMA_WRITE_IMMED, IBEXT_MSG, 0);
	ibext_expect(&env, env.sdto, 7, DAT_IB_DTO_RECV_IMMED,
		     DAT_IB_RDMA_WRITE_IMMED_DATA, IBEXT_MSG, IBEXT_IMMED);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(env.sbuf + 1024, 0x11, IBEXT_MSG), NULL);
	/* The receive's own buffer was not written. */
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(env.sbuf, 0xa5, 64), NULL);
}

/* Post an atomic on the client: the target is @off bytes into sbuf. */
static DAT_RETURN ibext_atomic(struct ibext_env *env, bool fetch_add,
			       u64 compare_add, u64 swap, u32 off,
			       DAT_VLEN local_len, u64 cookie)
{
	DAT_LMR_TRIPLET l = { .lmr_context = env->cctx,
			      .segment_length = local_len,
			      .virtual_address = (uintptr_t)env->cbuf };
	DAT_RMR_TRIPLET r = { .rmr_context = env->srctx,
			      .segment_length = sizeof(u64),
			      .virtual_address = (uintptr_t)env->sbuf + off };

	if (fetch_add)
		return dat_ib_post_fetch_and_add(env->p.cli, compare_add, &l,
						 (DAT_DTO_COOKIE)cookie, &r, 0);
	return dat_ib_post_cmp_and_swap(env->p.cli, compare_add, swap, &l,
					(DAT_DTO_COOKIE)cookie, &r, 0);
}

/* The original value the last atomic returned. */
static u64 ibext_result(struct ibext_env *env)
{
	return *(u64 *)env->cbuf;
}

/*
 * Compare and swap stores only on a match and returns the original
 * either way; fetch and add returns the original and adds.  Misaligned
 * targets and short local segments are refused before the post; iWARP
 * has no atomics.
 */
static void ibext_atomic_test(struct kunit *test)
{
	u64 *target;
	struct ibext_env env;

	ibext_env_init(test, &env, IBEXT_QUAL + 2);
	target = (u64 *)(env.sbuf + 64);
	*target = 0x12345;
	if (env.iwarp) {
		KUNIT_EXPECT_EQ(test, ibext_atomic(&env, false, 1, 2, 64, 8, 1),
				KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0));
		KUNIT_EXPECT_EQ(test, ibext_atomic(&env, true, 1, 0, 64, 8, 1),
				KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0));
		return;
	}
	KUNIT_EXPECT_EQ(test, ibext_atomic(&env, false, 0x12345, 0x54321, 68,
					   8, 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	KUNIT_EXPECT_EQ(test, ibext_atomic(&env, true, 1, 0, 68, 8, 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	KUNIT_EXPECT_EQ(test, ibext_atomic(&env, true, 1, 0, 64, 4, 1),
			KDAPL_ERR(DAT_LENGTH_ERROR, 0));

	KUNIT_ASSERT_EQ(test, ibext_atomic(&env, false, 0x12345, 0x54321, 64,
					   16, 2),
			DAT_SUCCESS);
	ibext_expect(&env, env.cdto, 2, DAT_IB_DTO_CMP_SWAP,
		     DAT_IB_CMP_AND_SWAP, sizeof(u64), 0);
	KUNIT_EXPECT_EQ(test, ibext_result(&env), 0x12345ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*target), 0x54321ULL);
	/* Only the first 8 bytes of the local segment are written. */
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(env.cbuf + 8, 0x11, 8), NULL);

	KUNIT_ASSERT_EQ(test, ibext_atomic(&env, false, 0x12345, 7, 64, 8, 3),
			DAT_SUCCESS);
	ibext_expect(&env, env.cdto, 3, DAT_IB_DTO_CMP_SWAP,
		     DAT_IB_CMP_AND_SWAP, sizeof(u64), 0);
	KUNIT_EXPECT_EQ(test, ibext_result(&env), 0x54321ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*target), 0x54321ULL);

	KUNIT_ASSERT_EQ(test, ibext_atomic(&env, true, 0x10, 0, 64, 8, 4),
			DAT_SUCCESS);
	ibext_expect(&env, env.cdto, 4, DAT_IB_DTO_FETCH_ADD,
		     DAT_IB_FETCH_AND_ADD, sizeof(u64), 0);
	KUNIT_EXPECT_EQ(test, ibext_result(&env), 0x54321ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*target), 0x54331ULL);
}

/* ---------------------------------------------------------------------
 * DAT_COUNTERS
 */

#define IBEXT_SEND_LEN		100
#define IBEXT_RECV_LEN		256
#define IBEXT_NR_SENDS		3
#define IBEXT_WRITE_LEN		128
#define IBEXT_READ_LEN		64

/**
 * struct ibext_counts - the counters a counters case expects
 * @ia: of the IA, by DAT_IA_COUNTERS
 * @cli: of the client EP, by DAT_EP_COUNTERS
 * @srv: of the server EP
 */
struct ibext_counts {
	u64 ia[DCNT_IA_ALL_COUNTERS];
	u64 cli[DCNT_EP_ALL_COUNTERS];
	u64 srv[DCNT_EP_ALL_COUNTERS];
};

/* The provider attributes of @ia, and its async EVD in *@async. */
static DAT_PROVIDER_ATTR *ibext_pattr(struct kunit *test, DAT_IA_HANDLE ia,
				      DAT_EVD_HANDLE *async)
{
	DAT_PROVIDER_ATTR *pattr = kunit_kzalloc(test, sizeof(*pattr),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pattr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(ia, async, 0, NULL,
					   DAT_PROVIDER_FIELD_ALL, pattr),
			DAT_SUCCESS);
	return pattr;
}

/*
 * @ret is an error of @type: the type compared, whatever the subtype,
 * and the class an error's.
 */
static void ibext_expect_err(struct kunit *test, DAT_RETURN ret,
			     DAT_RETURN_TYPE type, const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, DAT_GET_TYPE(ret), (u32)type, "%s: %#x",
			    what, ret);
	KUNIT_EXPECT_TRUE_MSG(test, ret & DAT_CLASS_ERROR,
			      "%s: %#x is not of DAT_CLASS_ERROR", what, ret);
}

/*
 * All @nr counters of @h (its type's DCNT_*_ALL_COUNTERS) are @want,
 * reset as they are read if @reset.  They are read into room for the
 * IA's counters, all U64_MAX before: those after @nr stay so.
 */
static void ibext_expect_counters(struct kunit *test, DAT_HANDLE h, int nr,
				  const u64 *want, bool reset,
				  const char *what)
{
	u64 *v = kunit_kmalloc_array(test, DCNT_IA_ALL_COUNTERS, sizeof(*v),
				     GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, v);
	memset(v, 0xff, DCNT_IA_ALL_COUNTERS * sizeof(*v));
	KUNIT_ASSERT_EQ_MSG(test, dat_ib_query_counters(h, nr, v, reset),
			    DAT_SUCCESS, "%s", what);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], want[i], "%s counter %d",
				    what, i);
	for (; i < DCNT_IA_ALL_COUNTERS; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], U64_MAX,
				    "%s: counter %d written", what, i);
}

/* Every counter of @h (@nr of them) is zero. */
static void ibext_expect_zero(struct kunit *test, DAT_HANDLE h, int nr,
			      const char *what)
{
	u64 *zero = kunit_kcalloc(test, nr, sizeof(*zero), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, zero);
	ibext_expect_counters(test, h, nr, zero, false, what);
}

/*
 * The counters of EVD @evd: @conn connection events and @dto DTO
 * completions delivered, @found events dequeued.  How often an empty
 * EVD was polled (kdapl_test_wait()) is the test's timing: the failed
 * dequeues are whatever DEQUEUE_NOT_FOUND says, and DEQUEUE counts them
 * with the successful ones.
 */
static void ibext_expect_evd(struct kunit *test, DAT_EVD_HANDLE evd,
			     u64 conn, u64 dto, u64 found, const char *what)
{
	u64 want[DCNT_EVD_ALL_COUNTERS] = {}, polls;

	KUNIT_ASSERT_EQ(test, dat_ib_query_counters(evd,
						    DCNT_EVD_DEQUEUE_NOT_FOUND,
						    &polls, 0),
			DAT_SUCCESS);
	want[DCNT_EVD_CONN_CALLBACK] = conn;
	want[DCNT_EVD_DTO_CALLBACK] = dto;
	want[DCNT_EVD_DEQUEUE_FOUND] = found;
	want[DCNT_EVD_DEQUEUE_NOT_FOUND] = polls;
	want[DCNT_EVD_DEQUEUE] = found + polls;
	ibext_expect_counters(test, evd, DCNT_EVD_ALL_COUNTERS, want, false,
			      what);
}

/* The next event of @evd is the successful DTO completion @op of @cookie. */
static void ibext_expect_dto(struct ibext_env *env, DAT_EVD_HANDLE evd,
			     u64 cookie, DAT_DTOS op, DAT_VLEN length)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	struct kunit *test = env->test;
	DAT_EVENT ev;

	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(evd, &ev,
						    KDAPL_TEST_WAIT_MS),
			      "no completion of %llu", cookie);
	d = &ev.event_data.dto_completion_event_data;
	KUNIT_ASSERT_EQ(test, ev.event_number, DAT_DTO_COMPLETION_EVENT);
	KUNIT_EXPECT_EQ(test, d->status, DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, cookie);
	KUNIT_EXPECT_EQ(test, d->operation, op);
	KUNIT_EXPECT_EQ(test, d->transfered_length, length);
}

/*
 * An IA without DAT_COUNTERS (siw: no IB extension at all) counts
 * nothing: every counter call is DAT_NOT_IMPLEMENTED, and writes
 * nothing.
 */
static void ibext_no_counters(struct kunit *test, struct ibext_env *env,
			      DAT_EVD_HANDLE async)
{
	const struct {
		DAT_HANDLE h;
		int all;
	} objs[] = {
		{ env->p.ia, DCNT_IA_ALL_COUNTERS },
		{ env->p.cli, DCNT_EP_ALL_COUNTERS },
		{ env->p.srv, DCNT_EP_ALL_COUNTERS },
		{ env->cdto, DCNT_EVD_ALL_COUNTERS },
		{ env->p.conn, DCNT_EVD_ALL_COUNTERS },
		{ async, DCNT_EVD_ALL_COUNTERS },
	};
	u64 v = 0x5a5a;
	int i;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		ibext_expect_err(test, dat_ib_query_counters(objs[i].h,
							     objs[i].all, &v,
							     0),
				 DAT_NOT_IMPLEMENTED, "query all");
		ibext_expect_err(test, dat_ib_query_counters(objs[i].h, 0,
							     &v, 1),
				 DAT_NOT_IMPLEMENTED, "query one");
		ibext_expect_err(test, dat_ib_print_counters(objs[i].h,
							     objs[i].all, 0),
				 DAT_NOT_IMPLEMENTED, "print");
	}
	KUNIT_EXPECT_EQ(test, v, 0x5a5aULL);
	ibext_expect_err(test, dat_ib_start_counter(env->p.ia, DCNT_IA_CM),
			 DAT_NOT_IMPLEMENTED, "start");
	ibext_expect_err(test, dat_ib_stop_counter(env->p.ia, DCNT_IA_CM),
			 DAT_NOT_IMPLEMENTED, "stop");
}

/* What ibext_env_init() counts on its IA. */
static void ibext_env_counts(struct ibext_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->ia[DCNT_IA_PZ_CREATE] = 2;
	c->ia[DCNT_IA_LMR_CREATE] = 2;
	/* The async EVD, three connection EVDs and two DTO EVDs. */
	c->ia[DCNT_IA_EVD_CREATE] = 6;
	c->ia[DCNT_IA_EP_CREATE] = 2;
	/* kdapl_test_connect(): a PSP for one connection. */
	c->ia[DCNT_IA_PSP_CREATE] = 1;
	c->ia[DCNT_IA_PSP_FREE] = 1;
	c->ia[DCNT_IA_CM_LISTEN] = 1;
	c->ia[DCNT_IA_CM_REQ_TX] = 1;
	c->ia[DCNT_IA_CM_REQ_RX] = 1;
	c->ia[DCNT_IA_SP_CR] = 1;
	c->ia[DCNT_IA_SP_CR_ACCEPTED] = 1;
	c->ia[DCNT_IA_CM_ACTIVE_EST] = 1;
	c->ia[DCNT_IA_CM_PASSIVE_EST] = 1;
	c->cli[DCNT_EP_CONNECT] = 1;
}

/*
 * Sends, receives, an RDMA Write and Read, and the extension operations
 * the IA offers, on the env's connection: the EP counters count each
 * post and receive with its bytes, the DTO EVDs each completion.
 */
static void ibext_counters_dto(struct ibext_env *env, struct ibext_counts *c,
			       bool immed, bool atomics)
{
	struct kunit *test = env->test;
	DAT_LMR_TRIPLET l, r;
	DAT_RMR_TRIPLET remote;
	u64 cdto = 0, sdto = 0;
	int i;

	for (i = 0; i < IBEXT_NR_SENDS; i++) {
		r = (DAT_LMR_TRIPLET){ .lmr_context = env->sctx,
				       .segment_length = IBEXT_RECV_LEN,
				       .virtual_address =
					(uintptr_t)env->sbuf +
					i * IBEXT_RECV_LEN };
		KUNIT_ASSERT_EQ(test, dat_ep_post_recv(env->p.srv, 1, &r,
						       (DAT_DTO_COOKIE)
						       (10ULL + i), 0),
				DAT_SUCCESS);
	}
	l = (DAT_LMR_TRIPLET){ .lmr_context = env->cctx,
			       .segment_length = IBEXT_SEND_LEN,
			       .virtual_address = (uintptr_t)env->cbuf };
	for (i = 0; i < IBEXT_NR_SENDS; i++)
		KUNIT_ASSERT_EQ(test, dat_ep_post_send(env->p.cli, 1, &l,
						       (DAT_DTO_COOKIE)
						       (20ULL + i), 0),
				DAT_SUCCESS);
	for (i = 0; i < IBEXT_NR_SENDS; i++) {
		ibext_expect_dto(env, env->cdto, 20 + i, DAT_DTO_SEND,
				 IBEXT_SEND_LEN);
		ibext_expect_dto(env, env->sdto, 10 + i, DAT_DTO_RECEIVE,
				 IBEXT_SEND_LEN);
	}
	cdto += IBEXT_NR_SENDS;
	sdto += IBEXT_NR_SENDS;
	c->cli[DCNT_EP_POST_SEND] = IBEXT_NR_SENDS;
	c->cli[DCNT_EP_POST_SEND_DATA] = IBEXT_NR_SENDS * IBEXT_SEND_LEN;
	c->srv[DCNT_EP_POST_RECV] = IBEXT_NR_SENDS;
	c->srv[DCNT_EP_POST_RECV_DATA] = IBEXT_NR_SENDS * IBEXT_RECV_LEN;
	c->srv[DCNT_EP_RECV] = IBEXT_NR_SENDS;
	c->srv[DCNT_EP_RECV_DATA] = IBEXT_NR_SENDS * IBEXT_SEND_LEN;

	/* An RDMA Write and an RDMA Read: nothing received. */
	l.segment_length = IBEXT_WRITE_LEN;
	remote = (DAT_RMR_TRIPLET){ .rmr_context = env->srctx,
				    .segment_length = IBEXT_WRITE_LEN,
				    .virtual_address =
					(uintptr_t)env->sbuf + 2048 };
	KUNIT_ASSERT_EQ(test, dat_ep_post_rdma_write(env->p.cli, 1, &l,
						     (DAT_DTO_COOKIE)30ULL,
						     &remote, 0),
			DAT_SUCCESS);
	ibext_expect_dto(env, env->cdto, 30, DAT_DTO_RDMA_WRITE,
			 IBEXT_WRITE_LEN);
	l = (DAT_LMR_TRIPLET){ .lmr_context = env->cctx,
			       .segment_length = IBEXT_READ_LEN,
			       .virtual_address = (uintptr_t)env->cbuf + 512 };
	remote.segment_length = IBEXT_READ_LEN;
	KUNIT_ASSERT_EQ(test, dat_ep_post_rdma_read(env->p.cli, 1, &l,
						    (DAT_DTO_COOKIE)31ULL,
						    &remote, 0),
			DAT_SUCCESS);
	ibext_expect_dto(env, env->cdto, 31, DAT_DTO_RDMA_READ,
			 IBEXT_READ_LEN);
	cdto += 2;
	c->cli[DCNT_EP_POST_WRITE] = 1;
	c->cli[DCNT_EP_POST_WRITE_DATA] = IBEXT_WRITE_LEN;
	c->cli[DCNT_EP_POST_READ] = 1;
	c->cli[DCNT_EP_POST_READ_DATA] = IBEXT_READ_LEN;

	if (immed) {
		r = (DAT_LMR_TRIPLET){ .lmr_context = env->sctx,
				       .segment_length = 64,
				       .virtual_address =
					(uintptr_t)env->sbuf + 768 };
		KUNIT_ASSERT_EQ(test, dat_ep_post_recv(env->p.srv, 1, &r,
						       (DAT_DTO_COOKIE)7ULL,
						       0),
				DAT_SUCCESS);
		l = (DAT_LMR_TRIPLET){ .lmr_context = env->cctx,
				       .segment_length = IBEXT_MSG,
				       .virtual_address =
					(uintptr_t)env->cbuf };
		remote = (DAT_RMR_TRIPLET){ .rmr_context = env->srctx,
					    .segment_length = IBEXT_MSG,
					    .virtual_address =
						(uintptr_t)env->sbuf + 1024 };
		KUNIT_ASSERT_EQ(test,
				dat_ib_post_rdma_write_immed(env->p.cli, 1, &l,
							     (DAT_DTO_COOKIE)
							     9ULL, &remote,
							     IBEXT_IMMED, 0),
				DAT_SUCCESS);
		ibext_expect(env, env->cdto, 9, DAT_IB_DTO_RDMA_WRITE_IMMED,
			     DAT_IB_RDMA_WRITE_IMMED, IBEXT_MSG, 0);
		ibext_expect(env, env->sdto, 7, DAT_IB_DTO_RECV_IMMED,
			     DAT_IB_RDMA_WRITE_IMMED_DATA, IBEXT_MSG,
			     IBEXT_IMMED);
		cdto++;
		sdto++;
		c->cli[DCNT_EP_POST_WRITE_IMM] = 1;
		c->cli[DCNT_EP_POST_WRITE_IMM_DATA] = IBEXT_MSG;
		c->srv[DCNT_EP_POST_RECV]++;
		c->srv[DCNT_EP_POST_RECV_DATA] += 64;
		c->srv[DCNT_EP_RECV_RDMA_IMM] = 1;
		c->srv[DCNT_EP_RECV_RDMA_IMM_DATA] = IBEXT_MSG;
	}

	if (atomics) {
		KUNIT_ASSERT_EQ(test, ibext_atomic(env, false,
						   0xa5a5a5a5a5a5a5a5ULL, 1,
						   3072, 8, 40),
				DAT_SUCCESS);
		ibext_expect(env, env->cdto, 40, DAT_IB_DTO_CMP_SWAP,
			     DAT_IB_CMP_AND_SWAP, sizeof(u64), 0);
		KUNIT_ASSERT_EQ(test, ibext_atomic(env, true, 2, 0, 3072, 8,
						   41),
				DAT_SUCCESS);
		ibext_expect(env, env->cdto, 41, DAT_IB_DTO_FETCH_ADD,
			     DAT_IB_FETCH_AND_ADD, sizeof(u64), 0);
		KUNIT_EXPECT_EQ(test, ibext_result(env), 1ULL);
		KUNIT_EXPECT_EQ(test, READ_ONCE(*(u64 *)(env->sbuf + 3072)),
				3ULL);
		cdto += 2;
		c->cli[DCNT_EP_POST_CMP_SWAP] = 1;
		c->cli[DCNT_EP_POST_FETCH_ADD] = 1;
	}

	ibext_expect_counters(test, env->p.cli, DCNT_EP_ALL_COUNTERS, c->cli,
			      false, "client EP");
	ibext_expect_counters(test, env->p.srv, DCNT_EP_ALL_COUNTERS, c->srv,
			      false, "server EP");
	/* Each completion delivered, and dequeued by ibext_expect*(). */
	ibext_expect_evd(test, env->cdto, 0, cdto, cdto, "client DTO EVD");
	ibext_expect_evd(test, env->sdto, 0, sdto, sdto, "server DTO EVD");
	/* A DTO counts nothing on the IA. */
	ibext_expect_counters(test, env->p.ia, DCNT_IA_ALL_COUNTERS, c->ia,
			      false, "IA after the DTOs");
}

/*
 * One counter is one value, reset alone; reading all of them with a
 * reset returns them and leaves zeros.
 */
static void ibext_counters_reset(struct ibext_env *env,
				 struct ibext_counts *c)
{
	struct kunit *test = env->test;
	u64 v[2] = { U64_MAX, U64_MAX };

	KUNIT_EXPECT_EQ(test, dat_ib_query_counters(env->p.cli,
						    DCNT_EP_POST_SEND, v, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, v[0], (u64)IBEXT_NR_SENDS);
	KUNIT_EXPECT_EQ(test, v[1], U64_MAX);
	KUNIT_EXPECT_EQ(test, dat_ib_query_counters(env->p.srv,
						    DCNT_EP_RECV_DATA, v, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, v[0], (u64)IBEXT_NR_SENDS * IBEXT_SEND_LEN);
	KUNIT_EXPECT_EQ(test, v[1], U64_MAX);
	KUNIT_EXPECT_EQ(test, dat_ib_query_counters(env->p.ia,
						    DCNT_IA_EVD_CREATE, v, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, v[0], c->ia[DCNT_IA_EVD_CREATE]);

	/* The reset of one counter leaves the others. */
	KUNIT_EXPECT_EQ(test, dat_ib_query_counters(env->p.cli,
						    DCNT_EP_POST_SEND_DATA, v,
						    1),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, v[0], (u64)IBEXT_NR_SENDS * IBEXT_SEND_LEN);
	KUNIT_EXPECT_EQ(test, dat_ib_query_counters(env->p.cli,
						    DCNT_EP_POST_SEND_DATA, v,
						    0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, v[0], 0ULL);
	c->cli[DCNT_EP_POST_SEND_DATA] = 0;
	ibext_expect_counters(test, env->p.cli, DCNT_EP_ALL_COUNTERS, c->cli,
			      false, "client EP, one counter reset");

	/* All of them: read, then zero. */
	ibext_expect_counters(test, env->p.cli, DCNT_EP_ALL_COUNTERS, c->cli,
			      true, "client EP, reset");
	ibext_expect_zero(test, env->p.cli, DCNT_EP_ALL_COUNTERS,
			  "client EP after the reset");
	memset(c->cli, 0, sizeof(c->cli));
	ibext_expect_counters(test, env->p.srv, DCNT_EP_ALL_COUNTERS, c->srv,
			      false, "server EP, the client's reset");

	/* dat_ib_print_counters() resets too. */
	KUNIT_EXPECT_EQ(test, dat_ib_print_counters(env->sdto,
						    DCNT_EVD_ALL_COUNTERS, 1),
			DAT_SUCCESS);
	ibext_expect_zero(test, env->sdto, DCNT_EVD_ALL_COUNTERS,
			  "server DTO EVD after the printed reset");
	KUNIT_EXPECT_EQ(test, dat_ib_print_counters(env->p.ia,
						    DCNT_IA_ALL_COUNTERS, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ib_print_counters(env->p.srv,
						    DCNT_EP_RECV, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ib_print_counters(env->p.cli,
						    DCNT_EP_ALL_COUNTERS, 0),
			DAT_SUCCESS);
	ibext_expect_counters(test, env->p.srv, DCNT_EP_ALL_COUNTERS, c->srv,
			      false, "server EP, printed");
}

/*
 * A dequeue from an empty EVD counts as a dequeue that found nothing;
 * one that finds an event, as found.
 */
static void ibext_counters_dequeue(struct ibext_env *env,
				   struct ibext_counts *c)
{
	struct kunit *test = env->test;
	u64 want[DCNT_EVD_ALL_COUNTERS] = {};
	DAT_EVD_HANDLE evd;
	DAT_EVENT ev;

	evd = kdapl_test_evd(test, env->p.ia, 4, DAT_EVD_DTO_FLAG);
	c->ia[DCNT_IA_EVD_CREATE]++;
	ibext_expect_zero(test, evd, DCNT_EVD_ALL_COUNTERS, "new EVD");
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(evd, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	want[DCNT_EVD_DEQUEUE] = 1;
	want[DCNT_EVD_DEQUEUE_NOT_FOUND] = 1;
	ibext_expect_counters(test, evd, DCNT_EVD_ALL_COUNTERS, want, false,
			      "EVD, one empty dequeue");
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(evd, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	want[DCNT_EVD_DEQUEUE] = 2;
	want[DCNT_EVD_DEQUEUE_NOT_FOUND] = 2;
	ibext_expect_counters(test, evd, DCNT_EVD_ALL_COUNTERS, want, true,
			      "EVD, two empty dequeues");
	ibext_expect_zero(test, evd, DCNT_EVD_ALL_COUNTERS, "EVD, reset");
	KUNIT_EXPECT_EQ(test, dat_ib_print_counters(evd, DCNT_EVD_ALL_COUNTERS,
						    0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
	c->ia[DCNT_IA_EVD_FREE]++;

	/* The server's DTO EVD, reset by ibext_counters_reset(). */
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env->sdto, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	memset(want, 0, sizeof(want));
	want[DCNT_EVD_DEQUEUE] = 1;
	want[DCNT_EVD_DEQUEUE_NOT_FOUND] = 1;
	ibext_expect_counters(test, env->sdto, DCNT_EVD_ALL_COUNTERS, want,
			      false, "server DTO EVD, one empty dequeue");
}

/*
 * The creates and frees of each object type, a PSP with a qualifier of
 * the provider's choice, an RSP, and a rejected connection request.
 */
static void ibext_counters_objects(struct ibext_env *env,
				   struct ibext_counts *c)
{
	DAT_SRQ_ATTR srq_attr = { .max_recv_dtos = 4, .max_recv_iov = 1,
				  .low_watermark = DAT_SRQ_LW_DEFAULT };
	struct kunit *test = env->test;
	u64 want[DCNT_EP_ALL_COUNTERS] = {};
	struct sockaddr_in sin;
	DAT_CONN_QUAL qual;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	DAT_RMR_HANDLE rmr;
	DAT_SRQ_HANDLE srq;
	DAT_LMR_HANDLE lmr;
	DAT_PZ_HANDLE pz;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	pz = kdapl_test_pz(test, env->p.ia);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
	c->ia[DCNT_IA_PZ_CREATE]++;
	c->ia[DCNT_IA_PZ_FREE]++;

	lmr = kdapl_test_lmr(test, env->p.ia, env->p.pz, env->cbuf, IBEXT_LEN,
			     DAT_MEM_PRIV_LOCAL_READ_FLAG, NULL, NULL);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	c->ia[DCNT_IA_LMR_CREATE]++;
	c->ia[DCNT_IA_LMR_FREE]++;

	KUNIT_ASSERT_EQ(test, dat_rmr_create(env->p.pz, &rmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
	c->ia[DCNT_IA_RMR_CREATE]++;
	c->ia[DCNT_IA_RMR_FREE]++;

	KUNIT_ASSERT_EQ(test, dat_srq_create(env->p.ia, env->p.pz, &srq_attr,
					     &srq),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
	c->ia[DCNT_IA_SRQ_CREATE]++;
	c->ia[DCNT_IA_SRQ_FREE]++;

	KUNIT_ASSERT_EQ(test, dat_psp_create_any(env->p.ia, &qual, env->p.cr,
						 DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	c->ia[DCNT_IA_PSP_CREATE]++;
	c->ia[DCNT_IA_PSP_CREATE_ANY]++;
	c->ia[DCNT_IA_PSP_FREE]++;
	c->ia[DCNT_IA_CM_LISTEN]++;
	ibext_expect_counters(test, env->p.ia, DCNT_IA_ALL_COUNTERS, c->ia,
			      false, "IA after the creates and frees");

	/* An RSP reserves an EP of its own. */
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->p.ia, env->p.pz,
					    DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					    DAT_HANDLE_NULL, NULL, &ep),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_rsp_create(env->p.ia, IBEXT_QUAL + 6, ep,
					     env->p.cr, &rsp),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_rsp_free(rsp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	c->ia[DCNT_IA_EP_CREATE]++;
	c->ia[DCNT_IA_EP_FREE]++;
	c->ia[DCNT_IA_RSP_CREATE]++;
	c->ia[DCNT_IA_RSP_FREE]++;
	c->ia[DCNT_IA_CM_LISTEN]++;

	/* A request the server rejects. */
	KUNIT_ASSERT_EQ(test, dat_ep_create(env->p.ia, env->p.pz,
					    DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					    env->p.conn, NULL, &ep),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_psp_create(env->p.ia, IBEXT_QUAL + 5,
					     env->p.cr, DAT_PSP_CONSUMER_FLAG,
					     &psp),
			DAT_SUCCESS);
	kdapl_test_ia_addr(test, env->p.ia, &sin);
	KUNIT_ASSERT_EQ(test, dat_ep_connect(ep, (struct sockaddr *)&sin,
					     IBEXT_QUAL + 5,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(env->p.cr, &ev,
						    KDAPL_TEST_WAIT_MS),
			      "no connection request");
	KUNIT_ASSERT_EQ(test, ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	KUNIT_ASSERT_EQ(test, dat_cr_reject(cr, 0, NULL), DAT_SUCCESS);
	kdapl_test_expect_conn(test, env->p.conn, ep,
			       DAT_CONNECTION_EVENT_PEER_REJECTED, NULL);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	c->ia[DCNT_IA_EP_CREATE]++;
	c->ia[DCNT_IA_PSP_CREATE]++;
	c->ia[DCNT_IA_PSP_FREE]++;
	c->ia[DCNT_IA_CM_LISTEN]++;
	c->ia[DCNT_IA_CM_REQ_TX]++;
	c->ia[DCNT_IA_CM_REQ_RX]++;
	c->ia[DCNT_IA_SP_CR]++;
	c->ia[DCNT_IA_SP_CR_REJECTED]++;
	c->ia[DCNT_IA_CM_USER_REJ_TX]++;
	c->ia[DCNT_IA_CM_USER_REJ_RX]++;
	want[DCNT_EP_CONNECT] = 1;
	ibext_expect_counters(test, ep, DCNT_EP_ALL_COUNTERS, want, false,
			      "rejected EP");
	ibext_expect_counters(test, env->p.ia, DCNT_IA_ALL_COUNTERS, c->ia,
			      false, "IA after the rejection");
}

/*
 * The counters of an IA with DAT_COUNTERS, its EPs and EVDs: exactly
 * what the env's setup, the DTOs, the object creates and frees, a
 * rejection and a disconnect made; resets, single counters, printing.
 * An IA without (siw) answers DAT_NOT_IMPLEMENTED.
 */
static void ibext_counters_test(struct kunit *test)
{
	DAT_PROVIDER_ATTR *pattr;
	struct ibext_counts *c;
	struct ibext_env env;
	DAT_EVD_HANDLE async;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	ibext_env_init(test, &env, IBEXT_QUAL + 4);
	pattr = ibext_pattr(test, env.p.ia, &async);
	KUNIT_EXPECT_EQ(test, ibext_has_attr(pattr, DAT_IB_ATTR_COUNTERS),
			!env.iwarp);
	if (!ibext_has_attr(pattr, DAT_IB_ATTR_COUNTERS)) {
		ibext_no_counters(test, &env, async);
		return;
	}

	ibext_env_counts(c);
	ibext_expect_counters(test, env.p.ia, DCNT_IA_ALL_COUNTERS, c->ia,
			      false, "IA after the setup");
	ibext_expect_counters(test, env.p.cli, DCNT_EP_ALL_COUNTERS, c->cli,
			      false, "client EP after the setup");
	ibext_expect_zero(test, env.p.srv, DCNT_EP_ALL_COUNTERS,
			  "server EP after the setup");
	/* kdapl_test_connect() dequeued one event of each. */
	ibext_expect_evd(test, env.p.conn, 1, 0, 1, "client connection EVD");
	ibext_expect_evd(test, env.p.sconn, 1, 0, 1, "server connection EVD");
	ibext_expect_evd(test, env.p.cr, 1, 0, 1, "CR EVD");
	ibext_expect_zero(test, env.cdto, DCNT_EVD_ALL_COUNTERS,
			  "client DTO EVD after the setup");
	ibext_expect_zero(test, async, DCNT_EVD_ALL_COUNTERS, "async EVD");

	ibext_counters_dto(&env, c,
			   ibext_has_attr(pattr, DAT_IB_ATTR_IMMED_DATA),
			   ibext_has_attr(pattr, DAT_IB_ATTR_CMP_AND_SWAP));
	ibext_counters_reset(&env, c);
	ibext_counters_dequeue(&env, c);
	ibext_counters_objects(&env, c);

	/* A graceful disconnect from the client. */
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(env.p.cli,
						DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
	kdapl_test_expect_conn(test, env.p.conn, env.p.cli,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	kdapl_test_expect_conn(test, env.p.sconn, env.p.srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	c->cli[DCNT_EP_DISCONNECT] = 1;
	c->ia[DCNT_IA_CM_DREQ_TX]++;
	ibext_expect_counters(test, env.p.cli, DCNT_EP_ALL_COUNTERS, c->cli,
			      false, "client EP after the disconnect");
	ibext_expect_counters(test, env.p.srv, DCNT_EP_ALL_COUNTERS, c->srv,
			      false, "server EP after the disconnect");
	/* Established, rejected (the other EP), disconnected. */
	ibext_expect_evd(test, env.p.conn, 3, 0, 3, "client connection EVD");
	ibext_expect_evd(test, env.p.sconn, 2, 0, 2, "server connection EVD");
	ibext_expect_evd(test, env.p.cr, 2, 0, 2, "CR EVD");
	ibext_expect_zero(test, async, DCNT_EVD_ALL_COUNTERS, "async EVD");

	ibext_expect_counters(test, env.p.ia, DCNT_IA_ALL_COUNTERS, c->ia,
			      true, "IA, reset");
	ibext_expect_zero(test, env.p.ia, DCNT_IA_ALL_COUNTERS,
			  "IA after the reset");
	KUNIT_EXPECT_EQ(test, dat_ib_start_counter(env.p.ia, DCNT_IA_CM),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ib_stop_counter(env.p.ia, DCNT_IA_CM),
			DAT_SUCCESS);
}

/*
 * The arguments of the counter calls: counters out of range, no output,
 * handles of the wrong type, NULL or stale; what dat_ib_start_counter()
 * and dat_ib_stop_counter() take.  Without DAT_COUNTERS (siw), the
 * handle and output checks are the same.
 */
static void ibext_counters_args_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_HANDLE bad[3];
	DAT_EP_HANDLE ep, stale;
	struct kdapl_owner *other;
	DAT_PROVIDER_ATTR *pattr;
	DAT_EVD_HANDLE evd;
	unsigned int count;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	bool counters;
	u64 v[DCNT_EP_ALL_COUNTERS + 1];
	int i;

	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	evd = kdapl_test_evd(test, ia, 4, DAT_EVD_DTO_FLAG);
	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, evd, evd, DAT_HANDLE_NULL,
					    NULL, &ep),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, evd, evd, DAT_HANDLE_NULL,
					    NULL, &stale),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_free(stale), DAT_SUCCESS);
	pattr = ibext_pattr(test, ia, NULL);
	counters = ibext_has_attr(pattr, DAT_IB_ATTR_COUNTERS);
	KUNIT_EXPECT_EQ(test, counters, !kdapl_test_iwarp(test));
	memset(v, 0xff, sizeof(v));

	/* No output. */
	ibext_expect_err(test, dat_ib_query_counters(ep, DCNT_EP_POST_SEND,
						     NULL, 0),
			 DAT_INVALID_PARAMETER, "NULL out");
	ibext_expect_err(test, dat_ib_query_counters(ia, DCNT_IA_ALL_COUNTERS,
						     NULL, 1),
			 DAT_INVALID_PARAMETER, "NULL out, IA");

	/* Handles that have no counters. */
	bad[0] = pz;
	bad[1] = DAT_HANDLE_NULL;
	bad[2] = stale;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ibext_expect_err(test, dat_ib_query_counters(bad[i], 0, v, 0),
				 DAT_INVALID_HANDLE, "query");
		ibext_expect_err(test, dat_ib_print_counters(bad[i], 0, 0),
				 DAT_INVALID_HANDLE, "print");
		ibext_expect_err(test, dat_ib_start_counter(bad[i],
							    DCNT_IA_CM),
				 DAT_INVALID_HANDLE, "start");
		ibext_expect_err(test, dat_ib_stop_counter(bad[i], DCNT_IA_CM),
				 DAT_INVALID_HANDLE, "stop");
	}
	/* Another owner's EP is as unknown. */
	other = kdapl_test_owner(test);
	ibext_expect_err(test, kdapl_counters_query(other, ep, 0, false, v,
						    ARRAY_SIZE(v), &count),
			 DAT_INVALID_HANDLE, "other owner");
	KUNIT_EXPECT_EQ(test, v[0], U64_MAX);

	if (!counters) {
		ibext_expect_err(test, dat_ib_query_counters(ep, 0, v, 0),
				 DAT_NOT_IMPLEMENTED, "no counters");
		ibext_expect_err(test, dat_ib_start_counter(ia, DCNT_IA_CM),
				 DAT_NOT_IMPLEMENTED, "no counters, start");
		KUNIT_EXPECT_EQ(test, v[0], U64_MAX);
		return;
	}

	/* Counters out of range: each type has its own. */
	ibext_expect_err(test, dat_ib_query_counters(ep,
						     DCNT_EP_ALL_COUNTERS + 1,
						     v, 0),
			 DAT_INVALID_PARAMETER, "EP counter past all");
	ibext_expect_err(test, dat_ib_query_counters(ep, -1, v, 0),
			 DAT_INVALID_PARAMETER, "EP counter -1");
	ibext_expect_err(test, dat_ib_query_counters(ia,
						     DCNT_IA_ALL_COUNTERS + 1,
						     v, 0),
			 DAT_INVALID_PARAMETER, "IA counter past all");
	ibext_expect_err(test, dat_ib_query_counters(ia, -1, v, 1),
			 DAT_INVALID_PARAMETER, "IA counter -1");
	ibext_expect_err(test, dat_ib_query_counters(evd,
						     DCNT_EVD_ALL_COUNTERS + 1,
						     v, 0),
			 DAT_INVALID_PARAMETER, "EVD counter past all");
	/* An EP's all is past an EVD's counters. */
	ibext_expect_err(test, dat_ib_query_counters(evd,
						     DCNT_EP_ALL_COUNTERS,
						     v, 0),
			 DAT_INVALID_PARAMETER, "EVD counter, EP's all");
	ibext_expect_err(test, dat_ib_print_counters(ep,
						     DCNT_EP_ALL_COUNTERS + 1,
						     0),
			 DAT_INVALID_PARAMETER, "print past all");
	ibext_expect_err(test, dat_ib_print_counters(ep, -1, 0),
			 DAT_INVALID_PARAMETER, "print -1");
	KUNIT_EXPECT_EQ(test, v[0], U64_MAX);

	/* The room kdapl_counters_query() is given. */
	ibext_expect_err(test, kdapl_counters_query(&kdapl_kernel_owner, ep,
						    DCNT_EP_ALL_COUNTERS,
						    false, v,
						    DCNT_EP_ALL_COUNTERS - 1,
						    &count),
			 DAT_LENGTH_ERROR, "no room");
	KUNIT_EXPECT_EQ(test, v[0], U64_MAX);
	KUNIT_EXPECT_EQ(test, kdapl_counters_query(&kdapl_kernel_owner, ep,
						   DCNT_EP_ALL_COUNTERS,
						   false, v,
						   DCNT_EP_ALL_COUNTERS,
						   &count),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, count, (unsigned int)DCNT_EP_ALL_COUNTERS);
	KUNIT_EXPECT_EQ(test, v[DCNT_EP_ALL_COUNTERS], U64_MAX);
	KUNIT_EXPECT_EQ(test, kdapl_counters_query(&kdapl_kernel_owner, ep,
						   DCNT_EP_POST_RECV, false, v,
						   1, &count),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, count, 1U);
	KUNIT_EXPECT_EQ(test, v[0], 0ULL);

	/* Sampling: the IA's, of a known kind. */
	ibext_expect_err(test, dat_ib_start_counter(ep, DCNT_IA_CM),
			 DAT_INVALID_HANDLE, "start, EP");
	ibext_expect_err(test, dat_ib_stop_counter(ep, DCNT_IA_CM),
			 DAT_INVALID_HANDLE, "stop, EP");
	ibext_expect_err(test, dat_ib_start_counter(evd, DCNT_IA_CM),
			 DAT_INVALID_HANDLE, "start, EVD");
	ibext_expect_err(test, dat_ib_stop_counter(evd, DCNT_IA_CM),
			 DAT_INVALID_HANDLE, "stop, EVD");
	KUNIT_EXPECT_EQ(test, dat_ib_start_counter(ia, DCNT_IA_CM),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ib_stop_counter(ia, DCNT_IA_CM),
			DAT_SUCCESS);
	ibext_expect_err(test, dat_ib_start_counter(ia, DCNT_IA_LNK),
			 DAT_NOT_IMPLEMENTED, "start LNK");
	ibext_expect_err(test, dat_ib_stop_counter(ia, DCNT_IA_LNK),
			 DAT_NOT_IMPLEMENTED, "stop LNK");
	ibext_expect_err(test, dat_ib_start_counter(ia, DCNT_IA_DIAG),
			 DAT_NOT_IMPLEMENTED, "start DIAG");
	ibext_expect_err(test, dat_ib_stop_counter(ia, DCNT_IA_DIAG),
			 DAT_NOT_IMPLEMENTED, "stop DIAG");
	ibext_expect_err(test, dat_ib_start_counter(ia,
						    (DAT_IA_COUNTER_TYPE)99),
			 DAT_INVALID_PARAMETER, "start 99");
	ibext_expect_err(test, dat_ib_stop_counter(ia,
						   (DAT_IA_COUNTER_TYPE)99),
			 DAT_INVALID_PARAMETER, "stop 99");
	ibext_expect_err(test, dat_ib_start_counter(ia,
						    (DAT_IA_COUNTER_TYPE)(-1)),
			 DAT_INVALID_PARAMETER, "start -1");
}

/* ---------------------------------------------------------------------
 * Datagram EPs: the argument and state checks
 */

/**
 * struct ibext_ud - an IA with a reliable EP and a datagram EP
 * @test: the test
 * @ia: the IA of the test's adapter
 * @pz: PZ of both EPs
 * @dto: DTO EVD of both EPs
 * @conn: connection EVD of both EPs
 * @rc: a reliable EP with the provider's default attributes, unconnected
 * @ud: the datagram EP, DAT_HANDLE_NULL until created
 * @attr: the attributes of @rc, with the datagram service type
 * @iwarp: the adapter is iWARP
 */
struct ibext_ud {
	struct kunit *test;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn;
	DAT_EP_HANDLE rc, ud;
	DAT_EP_ATTR attr;
	bool iwarp;
};

/* The value of provider attribute @name, or NULL if it is not listed. */
static const char *ibext_attr_value(const DAT_PROVIDER_ATTR *p,
				    const char *name)
{
	int i;

	for (i = 0; i < p->num_provider_specific_attr; i++)
		if (!strcmp(p->provider_specific_attr[i].name, name))
			return p->provider_specific_attr[i].value;
	return NULL;
}

/* All parameters of EP @ep. */
static DAT_EP_PARAM *ibext_ep_param(struct kunit *test, DAT_EP_HANDLE ep)
{
	DAT_EP_PARAM *param = kunit_kzalloc(test, sizeof(*param), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, param);
	KUNIT_ASSERT_EQ(test, dat_ep_query(ep, DAT_EP_FIELD_ALL, param),
			DAT_SUCCESS);
	return param;
}

/* The IA, its objects and the reliable EP; no datagram EP yet. */
static void ibext_ud_init(struct kunit *test, struct ibext_ud *u)
{
	const char *const *name = test->param_value;

	memset(u, 0, sizeof(*u));
	u->test = test;
	u->iwarp = kdapl_test_iwarp(test);
	u->ia = kdapl_test_open_ia(test, *name);
	u->pz = kdapl_test_pz(test, u->ia);
	u->dto = kdapl_test_evd(test, u->ia, 8, DAT_EVD_DTO_FLAG);
	u->conn = kdapl_test_evd(test, u->ia, 8, DAT_EVD_CONNECTION_FLAG);
	KUNIT_ASSERT_EQ(test, dat_ep_create(u->ia, u->pz, u->dto, u->dto,
					    u->conn, NULL, &u->rc),
			DAT_SUCCESS);
	u->attr = ibext_ep_param(test, u->rc)->ep_attr;
	KUNIT_ASSERT_EQ(test, (u32)u->attr.service_type,
			(u32)DAT_SERVICE_TYPE_RC);
	u->attr.service_type = DAT_IB_SERVICE_TYPE_UD;
}

/* dat_ib_post_send_ud() of one segment (never built) to @ah. */
static DAT_RETURN ibext_post_ud(DAT_EP_HANDLE ep, DAT_COUNT n,
				DAT_IB_ADDR_HANDLE *ah)
{
	DAT_LMR_TRIPLET iov = { .segment_length = 8 };

	return dat_ib_post_send_ud(ep, n, &iov, ah, (DAT_DTO_COOKIE)1ULL,
				   DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * The three datagram calls on @ep, a reliable EP: DAT_INVALID_PARAMETER
 * | DAT_INVALID_ARG1 each, before its state or anything else is looked
 * at (DAT_NOT_IMPLEMENTED on iWARP, which has no datagrams).
 */
static void ibext_ud_expect_not_ud(struct kunit *test, DAT_EP_HANDLE ep,
				   bool iwarp)
{
	const DAT_RETURN want = iwarp ?
		KDAPL_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE) :
		KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	DAT_IB_ADDR_HANDLE bogus = { .qpn = 1 };
	DAT_CONTEXT cm = { .as_ptr = &bogus };

	bogus.ah = (struct kdapl_ud_ah *)&bogus;
	KUNIT_EXPECT_EQ(test, ibext_post_ud(ep, 1, &bogus), want);
	KUNIT_EXPECT_EQ(test, dat_ib_ud_ah_free(ep, &bogus), want);
	KUNIT_EXPECT_EQ(test, dat_ib_ud_cm_free(ep, cm), want);
}

/*
 * Create the datagram EP: where the IA lists DAT_IB_UD as "TRUE", which
 * is on every transport but iWARP, where the create is
 * DAT_MODEL_NOT_SUPPORTED and the attribute is not listed at all.  The
 * new EP is UNCONNECTED, of the datagram service type.  False on iWARP.
 */
static bool ibext_ud_create(struct ibext_ud *u)
{
	struct kunit *test = u->test;
	DAT_EP_PARAM *param;
	const char *value;
	DAT_RETURN ret;

	value = ibext_attr_value(ibext_pattr(test, u->ia, NULL),
				 DAT_IB_ATTR_UD);
	ret = dat_ep_create(u->ia, u->pz, u->dto, u->dto, u->conn, &u->attr,
			    &u->ud);
	if (u->iwarp) {
		KUNIT_EXPECT_NULL(test, value);
		KUNIT_EXPECT_EQ(test, ret,
				KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED,
					  DAT_NO_SUBTYPE));
		KUNIT_EXPECT_PTR_EQ(test, u->ud, DAT_HANDLE_NULL);
		return false;
	}
	KUNIT_ASSERT_NOT_NULL(test, value);
	KUNIT_EXPECT_STREQ(test, value, "TRUE");
	KUNIT_ASSERT_EQ(test, ret, DAT_SUCCESS);
	param = ibext_ep_param(test, u->ud);
	KUNIT_EXPECT_EQ(test, (u32)param->ep_attr.service_type,
			(u32)DAT_IB_SERVICE_TYPE_UD);
	KUNIT_EXPECT_EQ(test, param->ep_state, DAT_EP_STATE_UNCONNECTED);
	return true;
}

/*
 * A datagram EP takes no SRQ, though the same attributes without one
 * make a datagram EP; the SRQ is left unused.
 */
static void ibext_ud_srq(struct ibext_ud *u)
{
	DAT_SRQ_ATTR srq_attr = { .max_recv_dtos = 4, .max_recv_iov = 1,
				  .low_watermark = DAT_SRQ_LW_DEFAULT };
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	struct kunit *test = u->test;
	DAT_SRQ_HANDLE srq;

	KUNIT_ASSERT_EQ(test, dat_srq_create(u->ia, u->pz, &srq_attr, &srq),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_create_with_srq(u->ia, u->pz, u->dto,
						     u->dto, u->conn, srq,
						     &u->attr, &ep),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_PTR_EQ(test, ep, DAT_HANDLE_NULL);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
}

/*
 * An EP keeps its service type: dat_ep_modify() to the other one is
 * DAT_INVALID_PARAMETER | DAT_INVALID_ARG3 either way; to its own it
 * succeeds.
 */
static void ibext_ud_modify(struct ibext_ud *u)
{
	const DAT_EP_PARAM_MASK mask = DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE;
	struct kunit *test = u->test;
	DAT_EP_PARAM *param;
	DAT_EP_ATTR *attr;

	param = kunit_kzalloc(test, sizeof(*param), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, param);
	param->ep_attr.service_type = DAT_SERVICE_TYPE_RC;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(u->ud, mask, param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	param->ep_attr.service_type = DAT_IB_SERVICE_TYPE_UD;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(u->rc, mask, param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_ep_modify(u->ud, mask, param), DAT_SUCCESS);
	attr = &ibext_ep_param(test, u->ud)->ep_attr;
	KUNIT_EXPECT_EQ(test, (u32)attr->service_type,
			(u32)DAT_IB_SERVICE_TYPE_UD);
	attr = &ibext_ep_param(test, u->rc)->ep_attr;
	KUNIT_EXPECT_EQ(test, (u32)attr->service_type,
			(u32)DAT_SERVICE_TYPE_RC);
}

/*
 * Posts on the datagram EP before its queue pair is up: the arguments
 * first (no address handle: ARG4; a negative count: ARG2), then the
 * operation (a plain send or RDMA Write: ARG1, before the state), then
 * the state (a datagram: DAT_INVALID_STATE_EP_UNCONNECTED, before the
 * handle is looked for).  Nothing completes.
 */
static void ibext_ud_posts(struct ibext_ud *u)
{
	DAT_RMR_TRIPLET remote = { .segment_length = 8 };
	DAT_LMR_TRIPLET iov = { .segment_length = 8 };
	DAT_DTO_COOKIE ck = { .as_64 = 2 };
	struct kunit *test = u->test;
	DAT_IB_ADDR_HANDLE bogus = { .qpn = 1 };
	DAT_EVENT ev;

	bogus.ah = (struct kdapl_ud_ah *)&bogus;
	KUNIT_EXPECT_EQ(test, ibext_post_ud(u->ud, 1, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, ibext_post_ud(u->ud, -1, &bogus),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, ibext_post_ud(u->ud, 1, &bogus),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_UNCONNECTED));
	KUNIT_EXPECT_EQ(test, dat_ep_post_send(u->ud, 1, &iov, ck,
					       DAT_COMPLETION_DEFAULT_FLAG),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	KUNIT_EXPECT_EQ(test, dat_ep_post_send(u->ud, -1, &iov, ck,
					       DAT_COMPLETION_DEFAULT_FLAG),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_ep_post_rdma_write(u->ud, 1, &iov, ck,
						     &remote, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(u->dto, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
}

/*
 * The datagram calls on EPs that are not datagram EPs: the reliable EP
 * (DAT_INVALID_PARAMETER | DAT_INVALID_ARG1, before its state is
 * looked at; DAT_NOT_IMPLEMENTED on iWARP, which has no datagrams), a PZ
 * and NULL (DAT_INVALID_HANDLE_EP).
 */
static void ibext_ud_not_ud(struct ibext_ud *u)
{
	const DAT_HANDLE bad[] = { u->pz, DAT_HANDLE_NULL };
	const DAT_RETURN bad_ep = KDAPL_ERR(DAT_INVALID_HANDLE,
					    DAT_INVALID_HANDLE_EP);
	DAT_IB_ADDR_HANDLE bogus = { .qpn = 1 };
	DAT_CONTEXT cm = { .as_ptr = &bogus };
	struct kunit *test = u->test;
	int i;

	bogus.ah = (struct kdapl_ud_ah *)&bogus;
	ibext_ud_expect_not_ud(test, u->rc, u->iwarp);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, u->rc),
			DAT_EP_STATE_UNCONNECTED);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ(test, ibext_post_ud(bad[i], 1, &bogus),
				bad_ep);
		KUNIT_EXPECT_EQ(test, dat_ib_ud_ah_free(bad[i], &bogus),
				bad_ep);
		KUNIT_EXPECT_EQ(test, dat_ib_ud_cm_free(bad[i], cm), bad_ep);
	}
}

/*
 * Freeing what the datagram EP does not have: an address handle or a
 * resolution it never made, or none (DAT_INVALID_ARG2 each).
 */
static void ibext_ud_frees(struct ibext_ud *u)
{
	const DAT_RETURN arg2 = KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2);
	DAT_IB_ADDR_HANDLE bogus = { .qpn = 1 };
	DAT_CONTEXT cm = { .as_ptr = &bogus };
	struct kunit *test = u->test;

	bogus.ah = (struct kdapl_ud_ah *)&bogus;
	KUNIT_EXPECT_EQ(test, dat_ib_ud_ah_free(u->ud, &bogus), arg2);
	KUNIT_EXPECT_EQ(test, dat_ib_ud_ah_free(u->ud, NULL), arg2);
	bogus.ah = NULL;
	KUNIT_EXPECT_EQ(test, dat_ib_ud_ah_free(u->ud, &bogus), arg2);
	KUNIT_EXPECT_EQ(test, dat_ib_ud_cm_free(u->ud, cm), arg2);
	cm.as_ptr = NULL;
	KUNIT_EXPECT_EQ(test, dat_ib_ud_cm_free(u->ud, cm), arg2);
}

/*
 * The checks of datagram EPs that need no peer: where they are offered
 * (the provider attribute DAT_IB_UD, not on iWARP), the creates they
 * refuse (an SRQ), the service type dat_ep_modify() keeps, the posts
 * refused before the queue pair is up or on the wrong kind of EP, the
 * frees of what an EP does not have.  Both EPs then free, and with them
 * the PZ and the EVDs: nothing of theirs stays in use.
 */
static void ibext_ud_args_test(struct kunit *test)
{
	struct ibext_ud *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	DAT_EP_HANDLE stale;

	KUNIT_ASSERT_NOT_NULL(test, u);
	ibext_ud_init(test, u);
	ibext_ud_not_ud(u);
	if (!ibext_ud_create(u))
		return;
	ibext_ud_srq(u);
	ibext_ud_modify(u);
	ibext_ud_posts(u);
	ibext_ud_frees(u);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, u->ud),
			DAT_EP_STATE_UNCONNECTED);

	stale = u->ud;
	KUNIT_EXPECT_EQ(test, dat_ep_free(u->ud), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ib_ud_ah_free(stale, NULL),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ep_free(u->rc), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(u->dto), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(u->conn), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(u->pz), DAT_SUCCESS);
}

/*
 * A resolution that starts while the EP's teardown stops them is
 * refused.  The teardown of a broken queue pair runs without the IA
 * lock, so dat_ep_connect() may find the EP CONNECTED and list its
 * resolution after the teardown destroyed the others' identifiers:
 * that identifier would then live until the EP's reset or free, and a
 * removal of the device would wait for the consumer as long.  The
 * teardown's first step is taken here by hand, the EP still CONNECTED.
 */
static void ibext_ud_late_test(struct kunit *test)
{
	struct ibext_ud *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	struct sockaddr_in sin;
	struct kdapl_ep *e;

	KUNIT_ASSERT_NOT_NULL(test, u);
	ibext_ud_init(test, u);
	if (!ibext_ud_create(u))
		return;
	kdapl_test_ia_addr(test, u->ia, &sin);
	/* No PSP listens: the resolution fails later, by itself. */
	KUNIT_ASSERT_EQ(test, dat_ep_connect(u->ud, (struct sockaddr *)&sin,
					     IBEXT_QUAL + 9,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, u->ud),
			DAT_EP_STATE_CONNECTED);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, u->ud, EP,
					DAT_INVALID_HANDLE_EP, &e),
			DAT_SUCCESS);
	kdapl_ud_peers_stop(e);
	kdapl_object_put(&e->obj);
	KUNIT_EXPECT_EQ(test, dat_ep_connect(u->ud, (struct sockaddr *)&sin,
					     IBEXT_QUAL + 9,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_DISCONNECTED));

	KUNIT_EXPECT_EQ(test, dat_ep_free(u->ud), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(u->rc), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(u->dto), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(u->conn), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(u->pz), DAT_SUCCESS);
}

/* The next event of EP @ep on @evd, other EPs' skipped: its number. */
static u32 ibext_ud_next(struct kunit *test, DAT_EVD_HANDLE evd,
			 DAT_EP_HANDLE ep, DAT_EVENT *ev)
{
	while (kdapl_test_wait(evd, ev, 5000))
		if (ev->event_data.connect_event_data.ep_handle == ep)
			return ev->event_number;
	KUNIT_FAIL(test, "no event of EP %p", ep);
	return 0;
}

/*
 * A PSP of @u's IA on @qual with a CR EVD of its own, and a new datagram
 * EP *@cli that asks that PSP: the request's CR.
 */
static DAT_CR_HANDLE ibext_ud_request(struct ibext_ud *u,
				      const struct sockaddr_in *sin,
				      DAT_CONN_QUAL qual,
				      DAT_EVD_HANDLE *cr_evd,
				      DAT_PSP_HANDLE *psp, DAT_EP_HANDLE *cli)
{
	struct kunit *test = u->test;
	DAT_EVENT ev;

	*cr_evd = kdapl_test_evd(test, u->ia, 8, DAT_EVD_CR_FLAG);
	KUNIT_ASSERT_EQ(test, dat_psp_create(u->ia, qual, *cr_evd,
					     DAT_PSP_CONSUMER_FLAG, psp),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create(u->ia, u->pz, u->dto, u->dto,
					    u->conn, &u->attr, cli),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_connect(*cli, (struct sockaddr *)sin,
					     qual, DAT_TIMEOUT_INFINITE, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(*cr_evd, &ev, 5000));
	KUNIT_ASSERT_EQ(test, (u32)ev.event_number,
			(u32)DAT_IB_UD_CONNECTION_REQUEST_EVENT);
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

/* Free what ibext_ud_init(), ibext_ud_create() and ibext_ud_request() made. */
static void ibext_ud_fini(struct ibext_ud *u, DAT_EVD_HANDLE cr_evd,
			  DAT_PSP_HANDLE psp, DAT_EP_HANDLE cli)
{
	struct kunit *test = u->test;

	KUNIT_EXPECT_EQ(test, dat_ep_free(cli), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(u->ud), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(cr_evd), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(u->rc), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(u->dto), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(u->conn), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(u->pz), DAT_SUCCESS);
}

/*
 * An accept that starts while the EP's teardown stops its resolutions
 * is refused with DAT_INVALID_STATE and leaves the request's identifier
 * with its CR: dat_cr_reject() still answers it, and the requester gets
 * the reject.  A first connect that nobody answers brings the accepting
 * EP's queue pair up; the teardown's first step is taken by hand.
 */
static void ibext_ud_late_accept_test(struct kunit *test)
{
	struct ibext_ud *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	struct sockaddr_in sin;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE cli;
	struct kdapl_ep *e;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	KUNIT_ASSERT_NOT_NULL(test, u);
	ibext_ud_init(test, u);
	if (!ibext_ud_create(u))
		return;
	kdapl_test_ia_addr(test, u->ia, &sin);
	KUNIT_ASSERT_EQ(test, dat_ep_connect(u->ud, (struct sockaddr *)&sin,
					     IBEXT_QUAL + 9,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	cr = ibext_ud_request(u, &sin, IBEXT_QUAL + 10, &cr_evd, &psp, &cli);

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, u->ud, EP,
					DAT_INVALID_HANDLE_EP, &e),
			DAT_SUCCESS);
	kdapl_ud_peers_stop(e);
	kdapl_object_put(&e->obj);
	KUNIT_EXPECT_EQ(test, dat_cr_accept(cr, u->ud, 0, NULL),
			KDAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, dat_cr_reject(cr, 0, NULL), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, ibext_ud_next(test, u->conn, cli, &ev),
			(u32)DAT_IB_UD_CONNECTION_REJECT_EVENT);
	x = (const DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	KUNIT_EXPECT_EQ(test, (u32)x->type, (u32)DAT_IB_UD_CONNECT_REJECT);
	ibext_ud_fini(u, cr_evd, psp, cli);
}

/*
 * An address handle whose sends completed goes when it is freed, though
 * other requests of the EP are outstanding (simulated here, as on an EP
 * that always has sends in flight), and counts against ud_peers_max no
 * more: a connect under a limit of 1 succeeds meanwhile.  The count
 * goes back down before anything can abort the test, since the IA's
 * close would wait for it.  The limit applies to every datagram EP
 * while it is lowered, as a write to the parameter would.
 */
static void ibext_ud_dead_test(struct kunit *test)
{
	struct ibext_ud *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	unsigned int max = kdapl_ud_peers_max;
	DAT_IB_ADDR_HANDLE ah;
	struct sockaddr_in sin;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE cli;
	struct kdapl_ep *e;
	DAT_CR_HANDLE cr;
	DAT_RETURN ret;
	DAT_EVENT ev;

	KUNIT_ASSERT_NOT_NULL(test, u);
	ibext_ud_init(test, u);
	if (!ibext_ud_create(u))
		return;
	kdapl_test_ia_addr(test, u->ia, &sin);
	cr = ibext_ud_request(u, &sin, IBEXT_QUAL + 11, &cr_evd, &psp, &cli);
	KUNIT_ASSERT_EQ(test, dat_cr_accept(cr, u->ud, 0, NULL), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, ibext_ud_next(test, u->conn, cli, &ev),
			(u32)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	x = (const DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	ah = x->remote_ah;
	KUNIT_ASSERT_EQ(test, dat_ib_ud_cm_free(cli, x->context), DAT_SUCCESS);

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, cli, EP,
					DAT_INVALID_HANDLE_EP, &e),
			DAT_SUCCESS);
	atomic_inc(&e->request_outstanding);
	KUNIT_EXPECT_EQ(test, dat_ib_ud_ah_free(cli, &ah), DAT_SUCCESS);
	WRITE_ONCE(kdapl_ud_peers_max, 1);
	ret = dat_ep_connect(cli, (struct sockaddr *)&sin, IBEXT_QUAL + 11,
			     DAT_TIMEOUT_INFINITE, 0, NULL,
			     DAT_QOS_BEST_EFFORT, 0);
	WRITE_ONCE(kdapl_ud_peers_max, max);
	atomic_dec(&e->request_outstanding);
	kdapl_object_put(&e->obj);
	KUNIT_EXPECT_EQ(test, ret, DAT_SUCCESS);
	if (ret == DAT_SUCCESS) {
		KUNIT_ASSERT_TRUE(test, kdapl_test_wait(cr_evd, &ev, 5000));
		cr = ev.event_data.cr_arrival_event_data.cr_handle;
		KUNIT_EXPECT_EQ(test, dat_cr_reject(cr, 0, NULL), DAT_SUCCESS);
	}
	ibext_ud_fini(u, cr_evd, psp, cli);
}

/*
 * The datagram calls on a connected reliable EP are refused before
 * anything is posted: dat_ib_post_send_ud() with DAT_INVALID_PARAMETER
 * | DAT_INVALID_ARG1, dat_ib_ud_ah_free() and dat_ib_ud_cm_free() with
 * ARG1 (each DAT_NOT_IMPLEMENTED on iWARP, which has no datagrams).
 * The connection stays up: a send still goes.
 */
static void ibext_ud_rc_test(struct kunit *test)
{
	struct ibext_env env;
	DAT_LMR_TRIPLET l, r;
	DAT_EVENT ev;

	ibext_env_init(test, &env, IBEXT_QUAL + 8);
	ibext_ud_expect_not_ud(test, env.p.cli, env.iwarp);
	l = (DAT_LMR_TRIPLET){ .lmr_context = env.cctx, .segment_length = 8,
			       .virtual_address = (uintptr_t)env.cbuf };
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(env.cdto, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, env.p.cli),
			DAT_EP_STATE_CONNECTED);

	r = (DAT_LMR_TRIPLET){ .lmr_context = env.sctx, .segment_length = 8,
			       .virtual_address = (uintptr_t)env.sbuf };
	KUNIT_ASSERT_EQ(test, dat_ep_post_recv(env.p.srv, 1, &r,
					       (DAT_DTO_COOKIE)3ULL, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_post_send(env.p.cli, 1, &l,
					       (DAT_DTO_COOKIE)2ULL, 0),
			DAT_SUCCESS);
	ibext_expect_dto(&env, env.cdto, 2, DAT_DTO_SEND, 8);
	ibext_expect_dto(&env, env.sdto, 3, DAT_DTO_RECEIVE, 8);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(env.sbuf, 0x11, 8), NULL);
}

static struct kunit_case kdapl_ibext_test_cases[] = {
	KUNIT_CASE_PARAM(ibext_attr_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_write_immed_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_atomic_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_counters_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_counters_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_ud_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_ud_rc_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_ud_late_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_ud_late_accept_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_ud_dead_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_ibext_test_suite = {
	.name = "kdapl_ibext",
	.test_cases = kdapl_ibext_test_cases,
};

kunit_test_suite(kdapl_ibext_test_suite);
