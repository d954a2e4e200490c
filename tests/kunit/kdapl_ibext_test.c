// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the IB extensions of kDAT, on loopback connections:
 * the IA attributes that announce them, RDMA Write with immediate data
 * (the peer's receive brings the immediate), compare and swap and fetch
 * and add (the values returned and left in the target), their argument
 * checks, and the DAT_NOT_IMPLEMENTED of what the transport lacks (siw:
 * no immediate data, no atomics).
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

static struct kunit_case kdapl_ibext_test_cases[] = {
	KUNIT_CASE_PARAM(ibext_attr_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_write_immed_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(ibext_atomic_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_ibext_test_suite = {
	.name = "kdapl_ibext",
	.test_cases = kdapl_ibext_test_cases,
};

kunit_test_suite(kdapl_ibext_test_suite);
