// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Shared Receive Queues.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>
#include <linux/spinlock.h>

#include "kdapl_test_util.h"

#define SRQ_TEST_BUF_LEN	4096

/* Sentinels of the attribute table, resolved against the device. */
#define SRQ_DEV_MAX		(-1000)	/* the device's limit */
#define SRQ_DEV_MAX_PLUS1	(-1001)	/* one above it */

/* KDAPL_ERR() as a constant expression, for the tables. */
#define SRQ_ERR(type, subtype)	(DAT_CLASS_ERROR | (type) | (subtype))

#define SRQ_BAD_ATTR	SRQ_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)
#define SRQ_BAD_HANDLE	KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ)

/* Everything a device-backed case needs: an IA, a PZ and an LMR. */
struct srq_test_env {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	void *buf;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT ctx;
	DAT_VADDR addr;
	DAT_VLEN len;
	const struct ib_device_attr *dev;
	bool iwarp;
};

static DAT_LMR_HANDLE srq_test_lmr(struct kunit *test, struct srq_test_env *e,
				   DAT_PZ_HANDLE pz, void *buf,
				   DAT_MEM_PRIV_FLAGS priv,
				   DAT_LMR_CONTEXT *ctx, DAT_VADDR *addr,
				   DAT_VLEN *len)
{
	DAT_REGION_DESCRIPTION region = { .for_va = buf };
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;

	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(e->ia, DAT_MEM_TYPE_VIRTUAL,
					      region, SRQ_TEST_BUF_LEN, pz,
					      priv, DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE,
					      &lmr, ctx, &rctx, len, addr),
			DAT_SUCCESS);
	KUNIT_ASSERT_GE(test, *len, (DAT_VLEN)SRQ_TEST_BUF_LEN);
	return lmr;
}

/*
 * The buffers are allocated before the IA is opened, so that they are
 * freed only after the IA (and any LMR left in it) is closed.
 */
static void srq_test_env(struct kunit *test, struct srq_test_env *e)
{
	const char *const *name = test->param_value;
	struct kdapl_ia *ia;

	memset(e, 0, sizeof(*e));
	e->buf = kunit_kzalloc(test, SRQ_TEST_BUF_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->buf);
	e->ia = kdapl_test_open_ia(test, *name);
	e->iwarp = !strncmp(*name, "siw", 3);
	KUNIT_ASSERT_EQ(test, dat_ia_query(e->ia, &e->async, 0, NULL, 0, NULL),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, e->ia, IA, DAT_INVALID_HANDLE_IA, &ia),
			DAT_SUCCESS);
	e->dev = &ia->ibdev->attrs;
	kdapl_object_put(&ia->obj);
	e->pz = kdapl_test_pz(test, e->ia);
	e->lmr = srq_test_lmr(test, e, e->pz, e->buf,
			      DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
			      DAT_MEM_PRIV_LOCAL_READ_FLAG,
			      &e->ctx, &e->addr, &e->len);
}

static DAT_SRQ_HANDLE srq_test_srq(struct kunit *test, struct srq_test_env *e,
				   DAT_COUNT dtos, DAT_COUNT iov)
{
	DAT_SRQ_ATTR attr = {
		.max_recv_dtos = dtos,
		.max_recv_iov = iov,
		.low_watermark = DAT_SRQ_LW_DEFAULT,
	};
	DAT_SRQ_HANDLE srq;

	KUNIT_ASSERT_EQ(test, dat_srq_create(e->ia, e->pz, &attr, &srq),
			DAT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, srq);
	return srq;
}

static DAT_COUNT srq_test_available(struct kunit *test, DAT_SRQ_HANDLE srq)
{
	DAT_SRQ_PARAM p;

	KUNIT_EXPECT_EQ(test, dat_srq_query(srq,
					    DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT,
					    &p),
			DAT_SUCCESS);
	return p.available_dto_count;
}

static DAT_SRQ_STATE srq_test_state(struct kunit *test, DAT_SRQ_HANDLE srq)
{
	DAT_SRQ_PARAM p;

	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_SRQ_STATE, &p),
			DAT_SUCCESS);
	return p.srq_state;
}

/* Post one receive of @len bytes at @off into the env's LMR. */
static DAT_RETURN srq_test_post(struct srq_test_env *e, DAT_SRQ_HANDLE srq,
				u64 off, u32 len, u64 cookie)
{
	DAT_LMR_TRIPLET iov = {
		.lmr_context = e->ctx,
		.virtual_address = e->addr + off,
		.segment_length = len,
	};
	DAT_DTO_COOKIE c = { .as_64 = cookie };

	return dat_srq_post_recv(srq, 1, &iov, c);
}

/* No event, or exactly one low watermark event of @srq, is queued. */
static void srq_test_expect_lw_event(struct kunit *test,
				     struct srq_test_env *e,
				     DAT_SRQ_HANDLE srq, bool expected)
{
	DAT_ASYNCH_ERROR_EVENT_DATA *data;
	DAT_EVENT ev;

	if (expected) {
		KUNIT_ASSERT_EQ(test, dat_evd_dequeue(e->async, &ev),
				DAT_SUCCESS);
		data = &ev.event_data.asynch_error_event_data;
		KUNIT_EXPECT_EQ(test, ev.event_number,
				DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR);
		KUNIT_EXPECT_PTR_EQ(test, data->dat_handle, srq);
		KUNIT_EXPECT_EQ(test, data->reason,
				(DAT_COUNT)DAT_SRQ_LOW_WATERMARK_EVENT);
	}
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(e->async, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
}

/* ------------------------------------------------------------------ */

struct srq_attr_case {
	const char *desc;
	DAT_COUNT dtos;
	DAT_COUNT iov;
	DAT_COUNT lw;
	DAT_RETURN ret;
};

static const struct srq_attr_case srq_attr_cases[] = {
	{ "plain", 16, 1, DAT_SRQ_LW_DEFAULT, DAT_SUCCESS },
	{ "one receive", 1, 1, DAT_SRQ_LW_DEFAULT, DAT_SUCCESS },
	{ "device max iov", 8, SRQ_DEV_MAX, DAT_SRQ_LW_DEFAULT, DAT_SUCCESS },
	{ "watermark = dtos", 4, 2, 4, DAT_SUCCESS },
	{ "zero dtos", 0, 1, DAT_SRQ_LW_DEFAULT, SRQ_BAD_ATTR },
	{ "negative dtos", -1, 1, DAT_SRQ_LW_DEFAULT, SRQ_BAD_ATTR },
	{ "dtos above device", SRQ_DEV_MAX_PLUS1, 1, DAT_SRQ_LW_DEFAULT,
	  SRQ_BAD_ATTR },
	{ "zero iov", 4, 0, DAT_SRQ_LW_DEFAULT, SRQ_BAD_ATTR },
	{ "negative iov", 4, -3, DAT_SRQ_LW_DEFAULT, SRQ_BAD_ATTR },
	{ "iov above device", 4, SRQ_DEV_MAX_PLUS1, DAT_SRQ_LW_DEFAULT,
	  SRQ_BAD_ATTR },
	{ "watermark above dtos", 4, 1, 5, SRQ_BAD_ATTR },
	{ "negative watermark", 4, 1, -1, SRQ_BAD_ATTR },
};

static DAT_COUNT srq_test_resolve(DAT_COUNT v, int dev_max)
{
	if (v == SRQ_DEV_MAX)
		return dev_max;
	if (v == SRQ_DEV_MAX_PLUS1)
		return dev_max + 1;
	return v;
}

/* Every row of srq_attr_cases, with the exact result and attributes. */
static void kdapl_srq_create_attr_test(struct kunit *test)
{
	struct srq_test_env e;
	DAT_SRQ_PARAM p;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_ATTR attr;
	unsigned int i;

	srq_test_env(test, &e);
	for (i = 0; i < ARRAY_SIZE(srq_attr_cases); i++) {
		const struct srq_attr_case *c = &srq_attr_cases[i];

		attr.max_recv_dtos = srq_test_resolve(c->dtos,
						      e.dev->max_srq_wr);
		attr.max_recv_iov = srq_test_resolve(c->iov,
						     e.dev->max_srq_sge);
		attr.low_watermark = c->lw;
		srq = DAT_HANDLE_NULL;
		KUNIT_EXPECT_EQ_MSG(test, dat_srq_create(e.ia, e.pz, &attr,
							 &srq),
				    c->ret, "row %s", c->desc);
		if (c->ret != DAT_SUCCESS)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL,
							&p),
				    DAT_SUCCESS, "row %s", c->desc);
		KUNIT_EXPECT_PTR_EQ(test, p.ia_handle, e.ia);
		KUNIT_EXPECT_PTR_EQ(test, p.pz_handle, e.pz);
		KUNIT_EXPECT_EQ(test, p.srq_state, DAT_SRQ_STATE_OPERATIONAL);
		KUNIT_EXPECT_EQ(test, p.max_recv_dtos, attr.max_recv_dtos);
		KUNIT_EXPECT_EQ(test, p.max_recv_iov, attr.max_recv_iov);
		KUNIT_EXPECT_EQ(test, p.low_watermark, attr.low_watermark);
		KUNIT_EXPECT_EQ(test, p.available_dto_count, 0);
		KUNIT_EXPECT_EQ(test, p.outstanding_dto_count,
				DAT_VALUE_UNKNOWN);
		/* An armed watermark above zero receives fires at once. */
		srq_test_expect_lw_event(test, &e, srq,
					 attr.low_watermark !=
					 DAT_SRQ_LW_DEFAULT);
		KUNIT_EXPECT_EQ_MSG(test, dat_srq_free(srq), DAT_SUCCESS,
				    "row %s", c->desc);
	}
	/* Nothing refused left an event behind either. */
	srq_test_expect_lw_event(test, &e, DAT_HANDLE_NULL, false);
}

/* Bad arguments and handles of dat_srq_create(); the PZ in use. */
static void kdapl_srq_create_args_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_SRQ_ATTR attr = { .max_recv_dtos = 4, .max_recv_iov = 1 };
	DAT_IA_HANDLE other_ia;
	DAT_PZ_HANDLE other_pz, freed_pz;
	struct kdapl_ia *ia;
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	int max_srq;

	srq_test_env(test, &e);
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, e.pz, NULL, &srq),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, e.pz, &attr, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, dat_srq_create(DAT_HANDLE_NULL, e.pz, &attr,
					     &srq),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.pz, e.pz, &attr, &srq),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, DAT_HANDLE_NULL, &attr,
					     &srq),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, e.ia, &attr, &srq),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, e.lmr, &attr, &srq),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));

	freed_pz = kdapl_test_pz(test, e.ia);
	KUNIT_ASSERT_EQ(test, dat_pz_free(freed_pz), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, freed_pz, &attr, &srq),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));

	/* A PZ of another IA is not a PZ of this one. */
	other_ia = kdapl_test_open_ia(test, *name);
	other_pz = kdapl_test_pz(test, other_ia);
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, other_pz, &attr, &srq),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ));

	/* A device without SRQs, simulated for one call. */
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, e.ia, IA, DAT_INVALID_HANDLE_IA, &ia),
			DAT_SUCCESS);
	mutex_lock(&ia->lock);
	max_srq = ia->ibdev->attrs.max_srq;
	ia->ibdev->attrs.max_srq = 0;
	mutex_unlock(&ia->lock);
	KUNIT_EXPECT_EQ(test, dat_srq_create(e.ia, e.pz, &attr, &srq),
			KDAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	mutex_lock(&ia->lock);
	ia->ibdev->attrs.max_srq = max_srq;
	mutex_unlock(&ia->lock);
	kdapl_object_put(&ia->obj);

	/* The SRQ uses its PZ until it is freed. */
	srq = srq_test_srq(test, &e, 4, 1);
	KUNIT_EXPECT_EQ(test, dat_pz_free(e.pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(e.lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(e.pz), DAT_SUCCESS);
}

/* Posting fills the SRQ up to its size, never beyond. */
static void kdapl_srq_post_recv_test(struct kunit *test)
{
	DAT_DTO_COOKIE cookie = { .as_64 = 7 };
	DAT_LMR_TRIPLET iov[2];
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 4, 2);
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 0);

	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 512, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 1);

	iov[0] = (DAT_LMR_TRIPLET){ .lmr_context = e.ctx,
				    .virtual_address = e.addr + 512,
				    .segment_length = 512 };
	iov[1] = (DAT_LMR_TRIPLET){ .lmr_context = e.ctx,
				    .virtual_address = e.addr + 2048,
				    .segment_length = 2048 };
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 2, iov, cookie),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 2);

	/* A zero-length receive needs no segment at all. */
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 0, NULL, cookie),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 3);

	/* The whole LMR, to its last byte. */
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, e.len, 4),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 4);

	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 5),
			KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				  DAT_RESOURCE_SRQ));
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 0, NULL, cookie),
			KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				  DAT_RESOURCE_SRQ));
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.available_dto_count, 4);
	KUNIT_EXPECT_EQ(test, p.max_recv_dtos, 4);
	KUNIT_EXPECT_EQ(test, p.srq_state, DAT_SRQ_STATE_OPERATIONAL);
}

struct srq_seg_case {
	const char *desc;
	s64 off;		/* from the LMR's first byte */
	bool from_end;		/* @off is from the byte after its last */
	u32 len;		/* 0: the LMR's length plus one */
	int ctx_delta;		/* added to the lmr_context */
	DAT_RETURN ret;
};

#define SRQ_BAD_SEG	SRQ_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)

static const struct srq_seg_case srq_seg_cases[] = {
	{ "unknown lmr_context", 0, false, 64, 0x100,
	  SRQ_ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE) },
	{ "before the LMR", -1, false, 64, 0, SRQ_BAD_SEG },
	{ "far before the LMR", -(1LL << 40), false, 64, 0, SRQ_BAD_SEG },
	{ "across the end", -8, true, 16, 0, SRQ_BAD_SEG },
	{ "one byte too long", 0, false, 0, 0, SRQ_BAD_SEG },
	{ "after the LMR", 0, true, 1, 0, SRQ_BAD_SEG },
	{ "far after the LMR", 1LL << 40, true, 1, 0, SRQ_BAD_SEG },
	{ "maximal length", 0, false, U32_MAX, 0, SRQ_BAD_SEG },
};

/*
 * Segments the SRQ must refuse, alone and behind a good segment; nothing
 * is ever posted.
 */
static void kdapl_srq_post_recv_bad_test(struct kunit *test)
{
	DAT_DTO_COOKIE cookie = { .as_64 = 1 };
	DAT_LMR_CONTEXT ro_ctx, other_ctx;
	DAT_VADDR ro_addr, other_addr;
	DAT_VLEN ro_len, other_len;
	DAT_LMR_HANDLE ro_lmr, other_lmr;
	DAT_PZ_HANDLE other_pz;
	DAT_LMR_TRIPLET iov[2];
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	void *ro_buf, *other_buf;
	unsigned int i;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 4, 2);
	iov[0] = (DAT_LMR_TRIPLET){ .lmr_context = e.ctx,
				    .virtual_address = e.addr,
				    .segment_length = 64 };

	for (i = 0; i < ARRAY_SIZE(srq_seg_cases); i++) {
		const struct srq_seg_case *c = &srq_seg_cases[i];
		DAT_LMR_TRIPLET *bad = &iov[1];

		bad->lmr_context = e.ctx + c->ctx_delta;
		bad->virtual_address = e.addr + (c->from_end ? e.len : 0) +
				       c->off;
		bad->segment_length = c->len ? c->len : e.len + 1;
		KUNIT_EXPECT_EQ_MSG(test, dat_srq_post_recv(srq, 1, bad,
							    cookie),
				    c->ret, "row %s alone", c->desc);
		KUNIT_EXPECT_EQ_MSG(test, dat_srq_post_recv(srq, 2, iov,
							    cookie),
				    c->ret, "row %s second", c->desc);
	}

	/* An LMR without local write privilege cannot receive. */
	ro_buf = kunit_kzalloc(test, SRQ_TEST_BUF_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ro_buf);
	ro_lmr = srq_test_lmr(test, &e, e.pz, ro_buf,
			      DAT_MEM_PRIV_LOCAL_READ_FLAG, &ro_ctx,
			      &ro_addr, &ro_len);
	iov[1] = (DAT_LMR_TRIPLET){ .lmr_context = ro_ctx,
				    .virtual_address = ro_addr,
				    .segment_length = 64 };
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 1, &iov[1], cookie),
			KDAPL_ERR(DAT_PRIVILEGES_VIOLATION,
				  DAT_PRIVILEGES_WRITE));
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 2, iov, cookie),
			KDAPL_ERR(DAT_PRIVILEGES_VIOLATION,
				  DAT_PRIVILEGES_WRITE));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(ro_lmr), DAT_SUCCESS);

	/* An LMR of another PZ of the same IA. */
	other_buf = kunit_kzalloc(test, SRQ_TEST_BUF_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other_buf);
	other_pz = kdapl_test_pz(test, e.ia);
	other_lmr = srq_test_lmr(test, &e, other_pz, other_buf,
				 DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &other_ctx,
				 &other_addr, &other_len);
	iov[1] = (DAT_LMR_TRIPLET){ .lmr_context = other_ctx,
				    .virtual_address = other_addr,
				    .segment_length = 64 };
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 1, &iov[1], cookie),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(other_lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(other_pz), DAT_SUCCESS);

	/* Segment counts. */
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 3, iov, cookie),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, -1, iov, cookie),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 1, NULL, cookie),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));

	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 0);

	/* After dat_lmr_free() its lmr_context means nothing to the PZ. */
	other_lmr = srq_test_lmr(test, &e, e.pz, other_buf,
				 DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &other_ctx,
				 &other_addr, &other_len);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(other_lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_post_recv(srq, 1, &iov[1], cookie),
			KDAPL_ERR(DAT_PROTECTION_VIOLATION,
				  DAT_PROTECTION_WRITE));
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 0);

	/*
	 * Freeing an LMR a posted receive uses: no QP may take that receive
	 * any more, so the SRQ is in error, and stays the consumer's to free.
	 */
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(e.lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_state(test, srq), DAT_SRQ_STATE_ERROR);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 2),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_ERROR));
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 1);
}

static DEFINE_SPINLOCK(srq_test_lock);

/* dat_srq_post_recv() and dat_srq_query() with interrupts disabled. */
static void kdapl_srq_post_atomic_test(struct kunit *test)
{
	DAT_RETURN r1, r2, r3, q;
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	unsigned long flags;
	DAT_SRQ_PARAM p;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 2, 1);

	spin_lock_irqsave(&srq_test_lock, flags);
	r1 = srq_test_post(&e, srq, 0, 128, 1);
	r2 = srq_test_post(&e, srq, 128, 128, 2);
	r3 = srq_test_post(&e, srq, 256, 128, 3);
	q = dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p);
	spin_unlock_irqrestore(&srq_test_lock, flags);

	KUNIT_EXPECT_EQ(test, r1, DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, r2, DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, r3, KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
					    DAT_RESOURCE_SRQ));
	KUNIT_EXPECT_EQ(test, q, DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.available_dto_count, 2);
}

/* Query arguments. */
static void kdapl_srq_query_test(struct kunit *test)
{
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 8, 2);
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, 0, &p), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_SRQ_STATE, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.srq_state, DAT_SRQ_STATE_OPERATIONAL);
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, 0x100, &p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL | 0x8000,
					    &p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
}

/*
 * Resizing: up within and beyond the device queue (siw cannot resize its
 * queue), down, below the receives posted and below the watermark.
 */
static void kdapl_srq_resize_test(struct kunit *test)
{
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	int i;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 8, 1);

	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, -5),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, e.dev->max_srq_wr + 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 64 * i, 64, i),
				DAT_SUCCESS);

	/* Down to exactly what is posted, then not below. */
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 3), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.max_recv_dtos, 3);
	KUNIT_EXPECT_EQ(test, p.available_dto_count, 3);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 9),
			KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				  DAT_RESOURCE_SRQ));
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 2),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 3), DAT_SUCCESS);

	/* Back up to the size created: the device queue holds it. */
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 8), DAT_SUCCESS);
	for (i = 3; i < 8; i++)
		KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 64 * i, 64, i),
				DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 9),
			KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				  DAT_RESOURCE_SRQ));
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 8);

	/* Beyond the device queue: rxe grows it, siw cannot. */
	if (e.iwarp) {
		KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 64),
				KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
					  DAT_RESOURCE_SRQ));
		KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL,
						    &p),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, p.max_recv_dtos, 8);
		KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 9),
				KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
					  DAT_RESOURCE_SRQ));
	} else {
		KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 64), DAT_SUCCESS);
		for (i = 8; i < 64; i++)
			KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, i, 1, i),
					DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 99),
				KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
					  DAT_RESOURCE_SRQ));
		KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 64);
	}

	/* Not below the low watermark. */
	srq = srq_test_srq(test, &e, 8, 1);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, i),
				DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 3),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_OPERATIONAL));
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, DAT_SRQ_LW_DEFAULT),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 3),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_IN_USE));
}

/* Arming and disarming the low watermark, and its event. */
static void kdapl_srq_set_lw_test(struct kunit *test)
{
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 8, 1);
	srq_test_expect_lw_event(test, &e, srq, false);

	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 9),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, -1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, DAT_WATERMARK_INFINITE),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	srq_test_expect_lw_event(test, &e, srq, false);

	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 64, 64, 2), DAT_SUCCESS);

	/* Two posted, not below 2: armed in the device, no event yet. */
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 2), DAT_SUCCESS);
	srq_test_expect_lw_event(test, &e, srq, false);
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_LOW_WATERMARK,
					    &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.low_watermark, 2);

	/* Already below: the event comes at once, once. */
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 3), DAT_SUCCESS);
	srq_test_expect_lw_event(test, &e, srq, true);
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 8), DAT_SUCCESS);
	srq_test_expect_lw_event(test, &e, srq, true);

	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, DAT_SRQ_LW_DEFAULT),
			DAT_SUCCESS);
	srq_test_expect_lw_event(test, &e, srq, false);
	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.low_watermark, DAT_SRQ_LW_DEFAULT);

	/* The limit follows the size. */
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 5),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 1), DAT_SUCCESS);
	srq_test_expect_lw_event(test, &e, srq, false);
}

/* Freeing: refused while used, discards posted receives. */
static void kdapl_srq_free_test(struct kunit *test)
{
	struct kdapl_srq *s;
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	DAT_EP_HANDLE ep;
	int i;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 16, 1);

	/* A user, as an EP would be. */
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, srq, SRQ,
					DAT_INVALID_HANDLE_SRQ, &s),
			DAT_SUCCESS);
	mutex_lock(&s->obj.ia->lock);
	kdapl_use(&s->obj);
	mutex_unlock(&s->obj.ia->lock);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_IN_USE));
	mutex_lock(&s->obj.ia->lock);
	kdapl_unuse(&s->obj);
	mutex_unlock(&s->obj.ia->lock);
	kdapl_object_put(&s->obj);

	/* A real EP on the SRQ. */
	KUNIT_ASSERT_EQ(test, dat_ep_create_with_srq(e.ia, e.pz,
						     DAT_HANDLE_NULL,
						     DAT_HANDLE_NULL,
						     DAT_HANDLE_NULL, srq,
						     NULL, &ep),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_IN_USE));
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);

	/* Free with receives posted: all of them go (kmemleak watches). */
	for (i = 1; i < 16; i++)
		KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 64 * i, 64, i),
				DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 16);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), SRQ_BAD_HANDLE);

	/* Everything it used is free again. */
	KUNIT_EXPECT_EQ(test, dat_lmr_free(e.lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(e.pz), DAT_SUCCESS);
}

/* Every SRQ function refuses @h with DAT_INVALID_HANDLE_SRQ. */
static void srq_test_refused(struct kunit *test, DAT_HANDLE h,
			     const char *what)
{
	DAT_LMR_TRIPLET iov = {};
	DAT_DTO_COOKIE cookie = {};
	DAT_SRQ_PARAM p;

	KUNIT_EXPECT_EQ_MSG(test, dat_srq_post_recv(h, 0, NULL, cookie),
			    SRQ_BAD_HANDLE, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, dat_srq_post_recv(h, 1, &iov, cookie),
			    SRQ_BAD_HANDLE, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, dat_srq_query(h, DAT_SRQ_FIELD_ALL, &p),
			    SRQ_BAD_HANDLE, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, dat_srq_resize(h, 4), SRQ_BAD_HANDLE,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, dat_srq_set_lw(h, 1), SRQ_BAD_HANDLE,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, dat_srq_free(h), SRQ_BAD_HANDLE, "%s", what);
}

static const struct {
	const char *desc;
	DAT_HANDLE handle;
} srq_garbage[] = {
	{ "NULL", DAT_HANDLE_NULL },
	{ "one", (DAT_HANDLE)1UL },
	{ "all ones", (DAT_HANDLE)~0UL },
	{ "kernel pointer", (DAT_HANDLE)0xffff888000000000UL },
	{ "SRQ type, generation 0", (DAT_HANDLE)(10UL << 56 | 1) },
	{ "SRQ type, unused index", (DAT_HANDLE)(10UL << 56 | 1UL << 32 |
						 0xfffffff0) },
};

/* NULL, garbage, freed and foreign handles; device-free part first. */
static void kdapl_srq_bad_handle_test(struct kunit *test)
{
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(srq_garbage); i++)
		srq_test_refused(test, srq_garbage[i].handle,
				 srq_garbage[i].desc);

	srq_test_env(test, &e);
	srq_test_refused(test, e.ia, "IA handle");
	srq_test_refused(test, e.pz, "PZ handle");
	srq_test_refused(test, e.lmr, "LMR handle");
	srq_test_refused(test, e.async, "EVD handle");

	srq = srq_test_srq(test, &e, 4, 1);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
	srq_test_refused(test, srq, "freed SRQ");
	/* A new SRQ does not revive the old handle. */
	KUNIT_EXPECT_PTR_NE(test, srq_test_srq(test, &e, 4, 1), srq);
	srq_test_refused(test, srq, "freed SRQ, after another create");
}

/*
 * The device going away: the detach operation drops the ib_srq and the
 * receives posted to it, the SRQ stays in error for the consumer to free.
 */
static void kdapl_srq_detach_test(struct kunit *test)
{
	struct kdapl_srq *s;
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	int i;

	srq_test_env(test, &e);
	srq = srq_test_srq(test, &e, 8, 1);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 64 * i, 64, i),
				DAT_SUCCESS);

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, srq, SRQ,
					DAT_INVALID_HANDLE_SRQ, &s),
			DAT_SUCCESS);
	mutex_lock(&s->obj.ia->lock);
	kdapl_srq_type.detach(&s->obj);
	mutex_unlock(&s->obj.ia->lock);
	KUNIT_EXPECT_NULL(test, s->srq);
	KUNIT_EXPECT_TRUE(test, list_empty(&s->chunks));
	kdapl_object_put(&s->obj);

	KUNIT_EXPECT_EQ(test, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.srq_state, DAT_SRQ_STATE_ERROR);
	KUNIT_EXPECT_EQ(test, p.available_dto_count, 0);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 64, 9),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_ERROR));
	KUNIT_EXPECT_EQ(test, dat_srq_resize(srq, 16),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_ERROR));
	KUNIT_EXPECT_EQ(test, dat_srq_set_lw(srq, 1),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_SRQ_ERROR));
	/* Still the PZ's user until freed. */
	KUNIT_EXPECT_EQ(test, dat_pz_free(e.pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(e.lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(e.pz), DAT_SUCCESS);
}

/*
 * The completion callback of a receive, fed with work completions as the
 * CQ of the EP's receive EVD would: the context comes back, and a QP
 * whose qp_context is an EP gets the DTO event on that EVD.
 */
static void kdapl_srq_completion_test(struct kunit *test)
{
	struct kdapl_srq_recv *r1, *r2;
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	struct kdapl_evd *kevd;
	DAT_EVD_HANDLE evd;
	struct srq_test_env e;
	struct ib_cq *cq;
	struct kdapl_srq *s;
	struct kdapl_ep *ep;
	DAT_SRQ_HANDLE srq;
	DAT_EP_HANDLE eph;
	struct ib_qp *qp;
	struct ib_wc wc;
	DAT_EVENT ev;

	srq_test_env(test, &e);
	evd = kdapl_test_evd(test, e.ia, 8, DAT_EVD_DTO_FLAG);
	/*
	 * The device queue keeps the receives "completed" here: give it room
	 * for all of them by shrinking a larger SRQ, which keeps its queue.
	 */
	srq = srq_test_srq(test, &e, 8, 1);
	KUNIT_ASSERT_EQ(test, dat_srq_resize(srq, 2), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create_with_srq(e.ia, e.pz, evd,
						     DAT_HANDLE_NULL,
						     DAT_HANDLE_NULL, srq,
						     NULL, &eph),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, eph, EP, DAT_INVALID_HANDLE_EP, &ep),
			DAT_SUCCESS);
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, evd, EVD, DAT_INVALID_HANDLE_EVD_RECV,
					&kevd),
			DAT_SUCCESS);
	cq->cq_context = kevd;
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, srq, SRQ,
					DAT_INVALID_HANDLE_SRQ, &s),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_srq_attach_qp(s, qp, ep), 0);

	/* A post takes the first free context. */
	spin_lock_irq(&s->lock);
	r1 = list_first_entry(&s->free_recvs, struct kdapl_srq_recv, entry);
	r2 = list_next_entry(r1, entry);
	spin_unlock_irq(&s->lock);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 0, 100, 0x1234),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 100, 100, 0x5678),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 2);
	KUNIT_EXPECT_EQ(test, r1->cookie.as_64, 0x1234ULL);
	KUNIT_EXPECT_EQ(test, r2->cookie.as_64, 0x5678ULL);

	/* A message of 42 bytes arrives at the EP. */
	memset(&wc, 0, sizeof(wc));
	wc.wr_cqe = &r1->cqe;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = 42;
	wc.qp = qp;
	local_bh_disable();
	r1->cqe.done(cq, &wc);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 1);
	KUNIT_ASSERT_EQ(test, dat_evd_dequeue(evd, &ev), DAT_SUCCESS);
	dto = &ev.event_data.dto_completion_event_data;
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_DTO_COMPLETION_EVENT);
	KUNIT_EXPECT_PTR_EQ(test, ev.evd_handle, evd);
	KUNIT_EXPECT_PTR_EQ(test, dto->ep_handle, eph);
	KUNIT_EXPECT_EQ(test, dto->user_cookie.as_64, 0x1234ULL);
	KUNIT_EXPECT_EQ(test, dto->status, DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, dto->transfered_length, 42U);
	KUNIT_EXPECT_EQ(test, dto->operation, DAT_DTO_RECEIVE);

	/* Its context is free again: one more post fits, not two. */
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 200, 100, 0x9abc),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 300, 100, 0xdef0),
			KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				  DAT_RESOURCE_SRQ));

	/* Flushed, with an invalidate flag that must be ignored. */
	memset(&wc, 0, sizeof(wc));
	wc.wr_cqe = &r2->cqe;
	wc.status = IB_WC_WR_FLUSH_ERR;
	wc.wc_flags = IB_WC_WITH_INVALIDATE;
	wc.byte_len = 99;
	wc.qp = qp;
	local_bh_disable();
	r2->cqe.done(cq, &wc);
	local_bh_enable();
	KUNIT_ASSERT_EQ(test, dat_evd_dequeue(evd, &ev), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dto->user_cookie.as_64, 0x5678ULL);
	KUNIT_EXPECT_EQ(test, dto->status, DAT_DTO_ERR_FLUSHED);
	KUNIT_EXPECT_EQ(test, dto->transfered_length, 0U);
	KUNIT_EXPECT_EQ(test, dto->operation, DAT_DTO_RECEIVE);

	/* A QP that left the SRQ: the context comes back, no event. */
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 1);
	spin_lock_irq(&s->lock);
	r1 = list_first_entry(&s->free_recvs, struct kdapl_srq_recv, entry);
	spin_unlock_irq(&s->lock);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq, 300, 100, 0xdef0),
			DAT_SUCCESS);
	kdapl_srq_detach_qp(s, qp);
	memset(&wc, 0, sizeof(wc));
	wc.wr_cqe = &r1->cqe;
	wc.status = IB_WC_SUCCESS;
	wc.byte_len = 7;
	wc.qp = qp;
	local_bh_disable();
	r1->cqe.done(cq, &wc);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, srq_test_available(test, srq), 1);
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(evd, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));

	kdapl_object_put(&s->obj);
	kdapl_object_put(&ep->obj);
	kdapl_object_put(&kevd->obj);
	KUNIT_EXPECT_EQ(test, dat_ep_free(eph), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_srq_free(srq), DAT_SUCCESS);
}

/* Abrupt close of an IA whose SRQ holds receives, and an EP on it. */
static void kdapl_srq_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct srq_test_env e;
	DAT_SRQ_HANDLE srq[3];
	DAT_EP_HANDLE ep;
	unsigned int i;
	int j;

	srq_test_env(test, &e);
	for (i = 0; i < ARRAY_SIZE(srq); i++) {
		srq[i] = srq_test_srq(test, &e, 8, 1);
		for (j = 0; j < 5; j++)
			KUNIT_EXPECT_EQ(test,
					srq_test_post(&e, srq[i], 64 * j, 64,
						      j),
					DAT_SUCCESS);
	}
	KUNIT_ASSERT_EQ(test, dat_ep_create_with_srq(e.ia, e.pz,
						     DAT_HANDLE_NULL,
						     DAT_HANDLE_NULL,
						     DAT_HANDLE_NULL, srq[0],
						     NULL, &ep),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(e.ia, DAT_CLOSE_GRACEFUL_FLAG),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_IA_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_ia_close(e.ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(srq); i++)
		srq_test_refused(test, srq[i], "SRQ after abrupt close");

	/* The adapter is still fine for new IAs and SRQs. */
	srq_test_env(test, &e);
	srq[0] = srq_test_srq(test, &e, 8, 1);
	KUNIT_EXPECT_EQ(test, srq_test_post(&e, srq[0], 0, 64, 1),
			DAT_SUCCESS);
	kunit_info(test, "%s: reopened", *name);
}

static struct kunit_case kdapl_srq_cases[] = {
	KUNIT_CASE_PARAM(kdapl_srq_create_attr_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_create_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_post_recv_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_post_recv_bad_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_post_atomic_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_query_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_resize_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_set_lw_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_free_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_bad_handle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_detach_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_completion_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_srq_abrupt_close_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_srq_suite = {
	.name = "kdapl_srq",
	.test_cases = kdapl_srq_cases,
};

kunit_test_suite(kdapl_srq_suite);
