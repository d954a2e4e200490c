// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the post rings of /dev/kdapl (kdapl_upost.c): what the
 * kernel does with the records a process writes, checked without a
 * process.  The ring belongs to a file whose owner has its own IA, EP
 * and EVD; records are written through the kernel mapping of the ring,
 * as the process would write them through its own.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "kdapl_test_util.h"
#include "kdapl_user.h"

#define UPOST_ENTRIES	8
#define UPOST_MAX_IOV	2

struct upost_env {
	struct kdapl_ufile *ufile;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_EVD_HANDLE evd;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	struct kdapl_upost *post;
	u32 head;
};

/* The ring goes before its file (resources go in reverse order). */
static void upost_env_free(void *data)
{
	struct upost_env *env = data;

	if (env->post)
		kdapl_upost_put(env->post);
}

/* A file's IA with a PZ, a DTO EVD and an unconnected EP, and its ring. */
static struct upost_env *upost_env_init(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_owner *owner;
	struct kdapl_adapter *adapter;
	struct upost_env *env;

	adapter = kdapl_adapter_get(*name);
	if (!adapter)
		kunit_skip(test, "no adapter %s", *name);
	kdapl_adapter_put(adapter);

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->ufile = kdapl_test_ufile(test);
	owner = &env->ufile->owner;
	kdapl_test_defer(test, upost_env_free, env);
	KUNIT_ASSERT_EQ(test, kdapl_ia_open(owner, *name, 8, &env->async,
					    &env->ia),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_pz_create(owner, env->ia, &env->pz),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_evd_kcreate(owner, env->ia, 16,
						DAT_UPCALL_DISABLE, NULL,
						DAT_EVD_DTO_FLAG, &env->evd),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_ep_create(owner, env->ia, env->pz,
					      env->evd, env->evd,
					      DAT_HANDLE_NULL, NULL, &env->ep),
			DAT_SUCCESS);
	env->post = kdapl_upost_create(env->ufile, env->ep, UPOST_ENTRIES,
				       UPOST_MAX_IOV);
	KUNIT_ASSERT_NOT_NULL(test, env->post);
	return env;
}

/* The next record slot, zeroed, as the process would fill it. */
static struct kdapl_post_record *upost_rec(struct upost_env *env)
{
	struct kdapl_upost *post = env->post;
	struct kdapl_post_record *r;

	r = post->rec + (size_t)(env->head & (post->entries - 1)) *
			post->stride;
	memset(r, 0, post->stride);
	env->head++;
	return r;
}

/* Publish the head and ring the doorbell; the DAT_RETURN of the call. */
static DAT_RETURN upost_ring(struct upost_env *env, bool sync, u32 *tail)
{
	/* As the process does: the records before the head are written. */
	smp_store_release(&env->post->hdr->head, env->head);
	return kdapl_upost_doorbell(env->post, sync, tail);
}

#define UPOST_BAD	KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_NO_SUBTYPE)

/*
 * Records the kernel refuses as it reads them: an unknown operation, more
 * segments than the ring was made for, a non-zero reserved field.  Each
 * is consumed (the tail passes it) and, as the last record of a
 * synchronous doorbell, fails the call; a receive on the unconnected EP
 * is taken.
 */
static void upost_records_test(struct kunit *test)
{
	struct upost_env *env = upost_env_init(test);
	struct kdapl_post_record *r;
	u32 tail;

	upost_rec(env)->op = 0x77;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), UPOST_BAD);
	KUNIT_EXPECT_EQ(test, tail, 1U);

	r = upost_rec(env);
	r->op = DAT_DTO_RECEIVE;
	r->num_segments = UPOST_MAX_IOV + 1;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), UPOST_BAD);
	KUNIT_EXPECT_EQ(test, tail, 2U);

	r = upost_rec(env);
	r->op = DAT_DTO_RECEIVE;
	r->imm_data = 1;	/* only a write with immediate has one */
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), UPOST_BAD);

	r = upost_rec(env);
	r->op = DAT_DTO_RECEIVE;
	r->num_segments = U32_MAX;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), UPOST_BAD);

	r = upost_rec(env);
	r->op = DAT_DTO_RECEIVE;
	r->cookie = 5;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, tail, 5U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(env->post->hdr->tail), 5U);
}

/*
 * A head more than a ring ahead of the tail is refused whole: nothing is
 * taken, and a head behind the tail is the same lie.
 */
static void upost_head_test(struct kunit *test)
{
	struct upost_env *env = upost_env_init(test);
	u32 tail = 0;

	env->head = UPOST_ENTRIES + 1;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail),
			KDAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, tail, 0U);
	env->head = (u32)-1;
	KUNIT_EXPECT_EQ(test, upost_ring(env, false, &tail),
			KDAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, tail, 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(env->post->hdr->tail), 0U);

	/* The ring still works after the lies. */
	env->head = 0;
	upost_rec(env)->op = DAT_DTO_RECEIVE;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, tail, 1U);
}

/*
 * A refused record that is not the last of a synchronous doorbell is not
 * lost: it completes with an error event carrying its cookie on the EVD
 * of its stream.
 */
static void upost_event_test(struct kunit *test)
{
	struct upost_env *env = upost_env_init(test);
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	struct kdapl_post_record *r;
	DAT_EVENT ev;
	u32 tail;

	r = upost_rec(env);
	r->op = 0x77;
	r->cookie = 0x11;
	r = upost_rec(env);
	r->op = DAT_DTO_RECEIVE;
	r->num_segments = UPOST_MAX_IOV + 1;
	r->cookie = 0x22;
	r = upost_rec(env);
	r->op = DAT_DTO_RECEIVE;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, tail, 3U);

	KUNIT_ASSERT_EQ(test, kdapl_evd_dequeue(&env->ufile->owner, env->evd,
						&ev),
			DAT_SUCCESS);
	d = &ev.event_data.dto_completion_event_data;
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_DTO_COMPLETION_EVENT);
	KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, 0x11ULL);
	KUNIT_EXPECT_EQ(test, d->operation, DAT_DTO_SEND);
	KUNIT_EXPECT_EQ(test, d->status, DAT_DTO_ERR_LOCAL_EP);
	KUNIT_ASSERT_EQ(test, kdapl_evd_dequeue(&env->ufile->owner, env->evd,
						&ev),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, 0x22ULL);
	KUNIT_EXPECT_EQ(test, d->operation, DAT_DTO_RECEIVE);
	KUNIT_EXPECT_EQ(test, kdapl_evd_dequeue(&env->ufile->owner, env->evd,
						&ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
}

/*
 * The RMR operations of a post ring.  An RDMA Read into an RMR takes
 * exactly one segment, its sink (more is a bad I/O vector, as for
 * dat_ep_post_rdma_read_to_rmr()); refused in the middle of a batch, it
 * completes as an RDMA Read, a Send with invalidate as a Send.
 */
static void upost_rmr_ops_test(struct kunit *test)
{
	struct upost_env *env = upost_env_init(test);
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	struct kdapl_post_record *r;
	DAT_EVENT ev;
	u32 tail;

	r = upost_rec(env);
	r->op = KDAPL_POST_RDMA_READ_TO_RMR;
	r->num_segments = 2;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	r = upost_rec(env);
	r->op = KDAPL_POST_RDMA_READ_TO_RMR;
	r->num_segments = 1;
	r->cookie = 0x31;
	r = upost_rec(env);
	r->op = KDAPL_POST_SEND_INVALIDATE;
	r->cookie = 0x32;
	upost_rec(env)->op = DAT_DTO_RECEIVE;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, tail, 4U);

	d = &ev.event_data.dto_completion_event_data;
	KUNIT_ASSERT_EQ(test, kdapl_evd_dequeue(&env->ufile->owner, env->evd,
						&ev),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, 0x31ULL);
	KUNIT_EXPECT_EQ(test, d->operation, DAT_DTO_RDMA_READ);
	KUNIT_EXPECT_NE(test, d->status, DAT_DTO_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_evd_dequeue(&env->ufile->owner, env->evd,
						&ev),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, 0x32ULL);
	KUNIT_EXPECT_EQ(test, d->operation, DAT_DTO_SEND);
	KUNIT_EXPECT_NE(test, d->status, DAT_DTO_SUCCESS);
}

/* The next event of the EVD is a failed DAT_IB_DTO_EVENT of @op, @type. */
static void upost_expect_ext(struct kunit *test, struct upost_env *env,
			     u64 cookie, DAT_IB_DTOS op, DAT_IB_EXT_TYPE type)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_EVENT ev;

	KUNIT_ASSERT_EQ(test, kdapl_evd_dequeue(&env->ufile->owner, env->evd,
						&ev),
			DAT_SUCCESS);
	d = &ev.event_data.dto_completion_event_data;
	x = (DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	KUNIT_EXPECT_EQ(test, (u32)ev.event_number, (u32)DAT_IB_DTO_EVENT);
	KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, cookie);
	KUNIT_EXPECT_EQ(test, (u32)d->operation, (u32)op);
	KUNIT_EXPECT_NE(test, d->status, DAT_DTO_SUCCESS);
	KUNIT_EXPECT_EQ(test, (u32)x->type, (u32)type);
	KUNIT_EXPECT_EQ(test, (u32)x->status, (u32)DAT_IB_OP_ERR);
}

/*
 * The IB extension operations of a post ring: an atomic takes exactly
 * one segment; refused in the middle of a batch (the EP is not
 * connected, or, on siw, the transport lacks them), each completes as
 * the extended completion of its operation.
 */
static void upost_ib_ext_ops_test(struct kunit *test)
{
	struct upost_env *env = upost_env_init(test);
	struct kdapl_post_record *r;
	u32 tail;

	r = upost_rec(env);
	r->op = KDAPL_POST_CMP_AND_SWAP;
	r->num_segments = 2;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	r = upost_rec(env);
	r->op = KDAPL_POST_RDMA_WRITE_IMMED;
	r->imm_data = 0x1234;
	r->cookie = 0x41;
	r = upost_rec(env);
	r->op = KDAPL_POST_FETCH_AND_ADD;
	r->num_segments = 1;
	r->cookie = 0x42;
	r = upost_rec(env);
	r->op = KDAPL_POST_CMP_AND_SWAP;
	r->num_segments = 1;
	r->cookie = 0x43;
	upost_rec(env)->op = DAT_DTO_RECEIVE;
	KUNIT_EXPECT_EQ(test, upost_ring(env, true, &tail), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, tail, 5U);

	upost_expect_ext(test, env, 0x41, DAT_IB_DTO_RDMA_WRITE_IMMED,
			 DAT_IB_RDMA_WRITE_IMMED);
	upost_expect_ext(test, env, 0x42, DAT_IB_DTO_FETCH_ADD,
			 DAT_IB_FETCH_AND_ADD);
	upost_expect_ext(test, env, 0x43, DAT_IB_DTO_CMP_SWAP,
			 DAT_IB_CMP_AND_SWAP);
}

/*
 * A ring that names an EP of another owner (here a kernel consumer's)
 * posts nothing on it: the file's owner does not own the handle.
 */
static void upost_owner_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct upost_env *env = upost_env_init(test);
	DAT_IA_HANDLE kia = kdapl_test_open_ia(test, *name);
	DAT_PZ_HANDLE kpz = kdapl_test_pz(test, kia);
	DAT_EVD_HANDLE kevd = kdapl_test_evd(test, kia, 8, DAT_EVD_DTO_FLAG);
	DAT_EP_HANDLE kep;
	DAT_EVENT ev;
	u32 tail;

	KUNIT_ASSERT_EQ(test, dat_ep_create(kia, kpz, kevd, kevd,
					    DAT_HANDLE_NULL, NULL, &kep),
			DAT_SUCCESS);
	env->post->ep = kep;
	upost_rec(env)->op = DAT_DTO_RECEIVE;
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(upost_ring(env, true, &tail)),
			(DAT_RETURN)DAT_INVALID_HANDLE);
	env->post->ep = env->ep;
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(kevd, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, dat_ep_free(kep), DAT_SUCCESS);
}

static struct kunit_case kdapl_upost_test_cases[] = {
	KUNIT_CASE_PARAM(upost_records_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upost_head_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upost_event_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upost_rmr_ops_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upost_ib_ext_ops_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upost_owner_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_upost_test_suite = {
	.name = "kdapl_upost",
	.test_cases = kdapl_upost_test_cases,
};

kunit_test_suite(kdapl_upost_test_suite);
