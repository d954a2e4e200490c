// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Event Dispatchers.
 *
 * Every case runs on each test adapter (soft RoCE and soft iWARP) and
 * skips when the adapter is missing.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/resource.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kdapl_test_util.h"

/* dat_error() as a constant expression, for the tables. */
#define EVD_ERR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (DAT_RETURN)(type) | (subtype)))

#define EVD_BAD_HANDLE	EVD_ERR(DAT_INVALID_HANDLE, \
				DAT_INVALID_HANDLE_EVD_REQUEST)

#define EVD_ALL_STREAMS							\
	(DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG |	\
	 DAT_EVD_CONNECTION_FLAG | DAT_EVD_RMR_BIND_FLAG |		\
	 DAT_EVD_ASYNC_FLAG)

/* Long enough for anything that should happen, short enough not to hang. */
#define EVD_TIMEOUT	(10 * HZ)

/* ---------------------------------------------------------------------
 * Helpers
 */

static DAT_IA_HANDLE evd_test_ia(struct kunit *test, DAT_EVD_HANDLE *async)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);

	if (async)
		KUNIT_ASSERT_EQ(test, dat_ia_query(ia, async, 0, NULL, 0, NULL),
				DAT_SUCCESS);
	return ia;
}

static bool evd_test_is_siw(struct kunit *test)
{
	const char *const *name = test->param_value;

	return !strncmp(*name, "siw", 3);
}

static DAT_COUNT evd_test_max_qlen(struct kunit *test, DAT_IA_HANDLE ia)
{
	DAT_IA_ATTR *attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(ia, NULL,
					   DAT_IA_FIELD_IA_MAX_EVD_QLEN, attr,
					   0, NULL),
			DAT_SUCCESS);
	KUNIT_ASSERT_GT(test, attr->max_evd_qlen, 0);
	return attr->max_evd_qlen;
}

static void evd_test_put(struct kunit_resource *res)
{
	kdapl_object_put(res->data);
}

static int evd_test_hold(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

/* The EVD behind a handle; the reference is dropped when the test ends. */
static struct kdapl_evd *evd_test_struct(struct kunit *test, DAT_EVD_HANDLE h)
{
	struct kdapl_object *obj;

	KUNIT_ASSERT_EQ(test, kdapl_object_get(&kdapl_kernel_owner, h,
					       DAT_HANDLE_TYPE_EVD, 0, &obj),
			DAT_SUCCESS);
	kunit_alloc_resource(test, evd_test_hold, evd_test_put, GFP_KERNEL,
			     obj);
	return container_of(obj, struct kdapl_evd, obj);
}

static DAT_EVD_HANDLE evd_test_create(struct kunit *test, DAT_IA_HANDLE ia,
				      DAT_COUNT qlen, DAT_UPCALL_POLICY policy,
				      const DAT_UPCALL_OBJECT *upcall,
				      DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	KUNIT_ASSERT_EQ(test, dat_evd_kcreate(ia, qlen, policy, upcall, flags,
					      &evd),
			DAT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, evd);
	return evd;
}

/* A software event whose every field tells which one it is. */
static DAT_EVENT evd_sw_event(uintptr_t id)
{
	DAT_EVENT e = {
		.event_number = DAT_SOFTWARE_EVENT,
		.evd_handle = (DAT_EVD_HANDLE)(uintptr_t)0x5a5a5a5a,
		.event_data.software_event_data.pointer = (void *)id,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(e.event_extension_data); i++)
		e.event_extension_data[i] = id * 1000 + i;
	return e;
}

static DAT_RETURN evd_post(DAT_EVD_HANDLE evd, uintptr_t id)
{
	DAT_EVENT e = evd_sw_event(id);

	return dat_evd_post_se(evd, &e);
}

static void evd_expect_sw(struct kunit *test, const DAT_EVENT *e,
			  DAT_EVD_HANDLE evd, uintptr_t id)
{
	int i;

	KUNIT_EXPECT_EQ(test, (int)e->event_number, (int)DAT_SOFTWARE_EVENT);
	KUNIT_EXPECT_PTR_EQ(test, e->evd_handle, evd);
	KUNIT_EXPECT_PTR_EQ(test, e->event_data.software_event_data.pointer,
			    (void *)id);
	for (i = 0; i < ARRAY_SIZE(e->event_extension_data); i++)
		KUNIT_EXPECT_EQ(test, e->event_extension_data[i],
				(DAT_UINT64)(id * 1000 + i));
}

static void evd_expect_dequeue(struct kunit *test, DAT_EVD_HANDLE evd,
			       uintptr_t id)
{
	DAT_EVENT e;

	memset(&e, 0, sizeof(e));
	KUNIT_ASSERT_EQ(test, dat_evd_dequeue(evd, &e), DAT_SUCCESS);
	evd_expect_sw(test, &e, evd, id);
}

static void evd_expect_empty(struct kunit *test, DAT_EVD_HANDLE evd)
{
	DAT_EVENT e;

	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(evd, &e),
			KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
}

static void evd_expect_overflow(struct kunit *test, DAT_EVD_HANDLE async,
				DAT_EVD_HANDLE evd)
{
	DAT_EVENT e;

	memset(&e, 0, sizeof(e));
	KUNIT_ASSERT_EQ(test, dat_evd_dequeue(async, &e), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, (int)e.event_number,
			(int)DAT_ASYNC_ERROR_EVD_OVERFLOW);
	KUNIT_EXPECT_PTR_EQ(test, e.evd_handle, async);
	KUNIT_EXPECT_PTR_EQ(test, e.event_data.asynch_error_event_data.dat_handle,
			    (DAT_HANDLE)evd);
	KUNIT_EXPECT_EQ(test, e.event_data.asynch_error_event_data.reason,
			(DAT_COUNT)DAT_EVD_OVERFLOW_ERROR);
}

static void evd_drain(DAT_EVD_HANDLE evd)
{
	DAT_EVENT e;

	while (dat_evd_dequeue(evd, &e) == DAT_SUCCESS)
		;
}

/* Where an upcall ran. */
enum evd_ctx {
	EVD_CTX_TASK,
	EVD_CTX_ATOMIC,		/* bottom halves and interrupts disabled */
	EVD_CTX_SOFTIRQ,
	EVD_CTX_HARDIRQ,
};

static enum evd_ctx evd_ctx(void)
{
	if (in_hardirq())
		return EVD_CTX_HARDIRQ;
	if (in_serving_softirq())
		return EVD_CTX_SOFTIRQ;
	if (in_softirq() && irqs_disabled())
		return EVD_CTX_ATOMIC;
	return EVD_CTX_TASK;
}

#define EVD_REC_MAX	16
#define EVD_REPOST_ID	100

/*
 * Records the upcalls of an EVD, and can post events from inside them or
 * block in them (process context only) to test concurrency.
 */
struct evd_rec {
	spinlock_t lock;	/* protects the records */
	int calls;
	DAT_EVENT ev[EVD_REC_MAX];
	DAT_BOOLEAN more[EVD_REC_MAX];
	void *instance[EVD_REC_MAX];
	struct task_struct *task[EVD_REC_MAX];
	enum evd_ctx ctx[EVD_REC_MAX];
	atomic_t depth;
	int max_depth;
	DAT_EVD_HANDLE repost_evd;
	int repost_nested;	/* calls that each post one more event */
	int repost_batch;	/* events the next call posts */
	atomic_t reposted;
	uintptr_t block_on;	/* the call for this event blocks */
	struct completion entered;
	struct completion release;
};

static void evd_rec_upcall(DAT_PVOID data, const DAT_EVENT *event,
			   DAT_BOOLEAN more)
{
	struct evd_rec *r = data;
	unsigned long flags;
	DAT_EVENT e;
	int depth, i, n;

	depth = atomic_inc_return(&r->depth);
	spin_lock_irqsave(&r->lock, flags);
	i = r->calls++;
	if (i < EVD_REC_MAX) {
		r->ev[i] = *event;
		r->more[i] = more;
		r->instance[i] = data;
		r->task[i] = current;
		r->ctx[i] = evd_ctx();
	}
	r->max_depth = max(r->max_depth, depth);
	n = r->repost_batch;
	r->repost_batch = 0;
	if (r->repost_nested > 0) {
		r->repost_nested--;
		n++;
	}
	spin_unlock_irqrestore(&r->lock, flags);

	if (r->block_on &&
	    (uintptr_t)event->event_data.software_event_data.pointer ==
	    r->block_on) {
		complete(&r->entered);
		wait_for_completion_timeout(&r->release, EVD_TIMEOUT);
	}
	while (n-- > 0) {
		e = evd_sw_event(EVD_REPOST_ID +
				 atomic_inc_return(&r->reposted) - 1);
		dat_evd_post_se(r->repost_evd, &e);
	}
	atomic_dec(&r->depth);
}

static struct evd_rec *evd_rec_new(struct kunit *test,
				   DAT_UPCALL_OBJECT *upcall)
{
	struct evd_rec *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	spin_lock_init(&r->lock);
	atomic_set(&r->depth, 0);
	atomic_set(&r->reposted, 0);
	init_completion(&r->entered);
	init_completion(&r->release);
	upcall->instance_data = r;
	upcall->upcall_func = evd_rec_upcall;
	return r;
}

static int evd_rec_calls(struct evd_rec *r)
{
	unsigned long flags;
	int calls;

	spin_lock_irqsave(&r->lock, flags);
	calls = r->calls;
	spin_unlock_irqrestore(&r->lock, flags);
	return calls;
}

/*
 * Wait until @r has seen @n upcalls: events kdapl queues are delivered by
 * its work queue, after the call that queued them returned.
 */
static int evd_rec_wait(struct evd_rec *r, int n)
{
	unsigned long end = jiffies + EVD_TIMEOUT;

	while (evd_rec_calls(r) < n && time_before(jiffies, end))
		usleep_range(1000, 2000);
	return evd_rec_calls(r);
}

/* Upcall number @i delivered software event @id of @evd. */
static void evd_expect_call(struct kunit *test, struct evd_rec *r, int i,
			    DAT_EVD_HANDLE evd, uintptr_t id, bool more)
{
	KUNIT_ASSERT_LT(test, i, r->calls);
	evd_expect_sw(test, &r->ev[i], evd, id);
	KUNIT_EXPECT_EQ(test, r->more[i], more ? DAT_TRUE : DAT_FALSE);
	KUNIT_EXPECT_PTR_EQ(test, r->instance[i], (void *)r);
}

/* ---------------------------------------------------------------------
 * Creation
 */

struct evd_flags_case {
	const char *desc;
	DAT_EVD_FLAGS flags;
	DAT_RETURN ret;
};

static const struct evd_flags_case evd_flags_cases[] = {
	{ "software", DAT_EVD_SOFTWARE_FLAG, DAT_SUCCESS },
	{ "cr", DAT_EVD_CR_FLAG, DAT_SUCCESS },
	{ "dto", DAT_EVD_DTO_FLAG, DAT_SUCCESS },
	{ "connection", DAT_EVD_CONNECTION_FLAG, DAT_SUCCESS },
	{ "rmr bind", DAT_EVD_RMR_BIND_FLAG, DAT_SUCCESS },
	{ "async", DAT_EVD_ASYNC_FLAG, DAT_SUCCESS },
	{ "default", DAT_EVD_DEFAULT_FLAG, DAT_SUCCESS },
	{ "all", EVD_ALL_STREAMS, DAT_SUCCESS },
	{ "none", 0, EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) },
	{ "bit 1", 0x2, EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) },
	{ "bits 2 3", 0xc, EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) },
	{ "dto and bit 1", DAT_EVD_DTO_FLAG | 0x2,
	  EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) },
	{ "extension", DAT_EVD_EXTENSION_BASE,
	  EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) },
	{ "all and extension", EVD_ALL_STREAMS | DAT_EVD_EXTENSION_BASE,
	  EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) },
	{ "every bit", (DAT_EVD_FLAGS)~0U,
	  EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) },
};

/* A new EVD reports its flags and has a softirq CQ iff it takes DTOs. */
static void evd_check_new(struct kunit *test, DAT_EVD_HANDLE h,
			  DAT_EVD_FLAGS flags, DAT_COUNT qlen)
{
	struct kdapl_evd *evd = evd_test_struct(test, h);
	DAT_EVD_PARAM param;

	KUNIT_EXPECT_EQ(test, dat_evd_query(h, DAT_EVD_FIELD_ALL_KDAT, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.evd_flags, flags);
	KUNIT_EXPECT_EQ(test, param.evd_qlen, qlen);
	if (flags & (DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG)) {
		KUNIT_ASSERT_NOT_NULL(test, evd->cq);
		KUNIT_EXPECT_EQ(test, evd->cq->poll_ctx, IB_POLL_SOFTIRQ);
		KUNIT_EXPECT_PTR_EQ(test, evd->cq->cq_context, (void *)evd);
		KUNIT_EXPECT_GE(test, evd->cq->cqe, qlen);
		KUNIT_EXPECT_GE(test, evd->cq_size, (u32)qlen);
	} else {
		KUNIT_EXPECT_NULL(test, evd->cq);
	}
}

static void evd_create_flags_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	const struct evd_flags_case *c;
	DAT_EVD_FLAGS flags;
	DAT_EVD_HANDLE evd;
	DAT_RETURN ret;
	unsigned int i;

	for (c = evd_flags_cases;
	     c < evd_flags_cases + ARRAY_SIZE(evd_flags_cases); c++) {
		evd = DAT_HANDLE_NULL;
		ret = dat_evd_kcreate(ia, 4, DAT_UPCALL_DISABLE, NULL,
				      c->flags, &evd);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "%s", c->desc);
		if (ret)
			continue;
		evd_check_new(test, evd, c->flags, 4);
		KUNIT_EXPECT_EQ_MSG(test, dat_evd_free(evd), DAT_SUCCESS, "%s",
				    c->desc);
	}

	/* Every non-empty combination of the six streams. */
	for (i = 1; i < 64; i++) {
		flags = 0;
		if (i & 1)
			flags |= DAT_EVD_SOFTWARE_FLAG;
		if (i & 2)
			flags |= DAT_EVD_CR_FLAG;
		if (i & 4)
			flags |= DAT_EVD_DTO_FLAG;
		if (i & 8)
			flags |= DAT_EVD_CONNECTION_FLAG;
		if (i & 16)
			flags |= DAT_EVD_RMR_BIND_FLAG;
		if (i & 32)
			flags |= DAT_EVD_ASYNC_FLAG;
		ret = dat_evd_kcreate(ia, 2, DAT_UPCALL_DISABLE, NULL, flags,
				      &evd);
		KUNIT_ASSERT_EQ_MSG(test, ret, DAT_SUCCESS, "flags %#x", flags);
		evd_check_new(test, evd, flags, 2);
		KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
		/* An unknown bit spoils any combination. */
		KUNIT_EXPECT_EQ_MSG(test,
				    dat_evd_kcreate(ia, 2, DAT_UPCALL_DISABLE,
						    NULL, flags | 0x4, &evd),
				    KDAPL_ERR(DAT_INVALID_PARAMETER,
					      DAT_INVALID_ARG5),
				    "flags %#x", flags);
	}
}

static void evd_create_qlen_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_COUNT max = evd_test_max_qlen(test, ia);
	static const DAT_EVD_FLAGS flags[] = {
		DAT_EVD_SOFTWARE_FLAG, DAT_EVD_DTO_FLAG,
	};
	DAT_COUNT big = min_t(DAT_COUNT, max, 32767);
	DAT_EVD_HANDLE evd;
	int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		KUNIT_EXPECT_EQ(test, dat_evd_kcreate(ia, 0, DAT_UPCALL_DISABLE,
						      NULL, flags[i], &evd),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2));
		KUNIT_EXPECT_EQ(test, dat_evd_kcreate(ia, -1,
						      DAT_UPCALL_DISABLE, NULL,
						      flags[i], &evd),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2));
		KUNIT_EXPECT_EQ(test, dat_evd_kcreate(ia, max + 1,
						      DAT_UPCALL_DISABLE, NULL,
						      flags[i], &evd),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2));
		if (max < S32_MAX)
			KUNIT_EXPECT_EQ(test,
					dat_evd_kcreate(ia, S32_MAX,
							DAT_UPCALL_DISABLE,
							NULL, flags[i], &evd),
					KDAPL_ERR(DAT_INVALID_PARAMETER,
						  DAT_INVALID_ARG2));

		evd = evd_test_create(test, ia, 1, DAT_UPCALL_DISABLE, NULL,
				      flags[i]);
		evd_check_new(test, evd, flags[i], 1);
		KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);

		evd = evd_test_create(test, ia, big, DAT_UPCALL_DISABLE, NULL,
				      flags[i]);
		evd_check_new(test, evd, flags[i], big);
		KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
	}
}

static void evd_create_args_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall, nofunc = { .instance_data = test };
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	static const DAT_UPCALL_POLICY bad_policies[] = {
		DAT_UPCALL_TEARDOWN, 3, 99, 101, -2,
	};
	static const DAT_UPCALL_POLICY enabled[] = {
		DAT_UPCALL_SINGLE_INSTANCE, DAT_UPCALL_NOTIFY, DAT_UPCALL_MANY,
	};
	DAT_EVD_PARAM param;
	int i;

	evd_rec_new(test, &upcall);

	KUNIT_EXPECT_EQ(test, dat_evd_kcreate(ia, 4, DAT_UPCALL_DISABLE, NULL,
					      DAT_EVD_SOFTWARE_FLAG, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6));
	for (i = 0; i < ARRAY_SIZE(bad_policies); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    dat_evd_kcreate(ia, 4, bad_policies[i],
						    &upcall,
						    DAT_EVD_SOFTWARE_FLAG,
						    &evd),
				    KDAPL_ERR(DAT_INVALID_PARAMETER,
					      DAT_INVALID_ARG3),
				    "policy %d", bad_policies[i]);
	for (i = 0; i < ARRAY_SIZE(enabled); i++) {
		KUNIT_EXPECT_EQ(test, dat_evd_kcreate(ia, 4, enabled[i], NULL,
						      DAT_EVD_SOFTWARE_FLAG,
						      &evd),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG4));
		KUNIT_EXPECT_EQ(test, dat_evd_kcreate(ia, 4, enabled[i],
						      &nofunc,
						      DAT_EVD_SOFTWARE_FLAG,
						      &evd),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG4));
		evd = evd_test_create(test, ia, 4, enabled[i], &upcall,
				      DAT_EVD_SOFTWARE_FLAG);
		KUNIT_EXPECT_EQ(test, dat_evd_query(evd,
						    DAT_EVD_FIELD_UPCALL_POLICY |
						    DAT_EVD_FIELD_UPCALL,
						    &param),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, param.upcall_policy, enabled[i]);
		KUNIT_EXPECT_PTR_EQ(test, param.upcall.instance_data,
				    upcall.instance_data);
		KUNIT_EXPECT_PTR_EQ(test, param.upcall.upcall_func,
				    upcall.upcall_func);
		KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
	}

	/* Disabled with an object: kept for later. */
	evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_UPCALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.upcall.instance_data,
			    upcall.instance_data);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);

	/* Bad IA handles. */
	KUNIT_EXPECT_EQ(test, dat_evd_kcreate(DAT_HANDLE_NULL, 4,
					      DAT_UPCALL_DISABLE, NULL,
					      DAT_EVD_SOFTWARE_FLAG, &evd),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_evd_kcreate(pz, 4, DAT_UPCALL_DISABLE, NULL,
					      DAT_EVD_SOFTWARE_FLAG, &evd),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_evd_kcreate((DAT_IA_HANDLE)(uintptr_t)
					      0xdeadbeefUL, 4,
					      DAT_UPCALL_DISABLE, NULL,
					      DAT_EVD_SOFTWARE_FLAG, &evd),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_kcreate(ia, 4, DAT_UPCALL_DISABLE, NULL,
					      DAT_EVD_SOFTWARE_FLAG, &evd),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
}

/* ---------------------------------------------------------------------
 * Posting and dequeuing
 */

static void evd_post_dequeue_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_EVD_HANDLE evd, dto;
	DAT_EVENT e;
	uintptr_t id;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_SOFTWARE_FLAG);
	evd_expect_empty(test, evd);

	/* Round trip, FIFO, wrapping around the ring several times. */
	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 3), DAT_SUCCESS);
	evd_expect_dequeue(test, evd, 1);
	evd_expect_dequeue(test, evd, 2);
	for (id = 4; id < 20; id += 2) {
		KUNIT_EXPECT_EQ(test, evd_post(evd, id), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, evd_post(evd, id + 1), DAT_SUCCESS);
		evd_expect_dequeue(test, evd, id - 1);
		evd_expect_dequeue(test, evd, id);
	}
	evd_expect_dequeue(test, evd, 19);
	evd_expect_empty(test, evd);

	/* Arguments. */
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(evd, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_evd_post_se(evd, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	e = evd_sw_event(7);
	e.event_number = DAT_DTO_COMPLETION_EVENT;
	KUNIT_EXPECT_EQ(test, dat_evd_post_se(evd, &e),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	e.event_number = DAT_ASYNC_ERROR_EVD_OVERFLOW;
	KUNIT_EXPECT_EQ(test, dat_evd_post_se(evd, &e),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	evd_expect_empty(test, evd);

	/* Only software EVDs take software events. */
	dto = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_DEFAULT_FLAG);
	KUNIT_EXPECT_EQ(test, evd_post(dto, 8),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	evd_expect_empty(test, dto);
	KUNIT_EXPECT_EQ(test, dat_evd_free(dto), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
}

/* A deferred free that only counts. */
struct evd_gone_rec {
	struct kdapl_evd_gone gone;
	atomic_t freed;
};

static void evd_gone_count(struct kdapl_evd_gone *gone)
{
	atomic_inc(&container_of(gone, struct evd_gone_rec, gone)->freed);
}

/* An upcall that holds its first event until the test lets it go. */
static void evd_hold_upcall(DAT_PVOID data, const DAT_EVENT *event,
			    DAT_BOOLEAN more)
{
	struct kdapl_test_held *h = data;

	if (kdapl_test_held_enter(h))
		kdapl_test_held_leave(h);
}

/*
 * kdapl_evd_defer_free(): with upcalls disabled, memory is freed at once
 * though events are queued (they are the consumer's); while an upcall
 * runs, with an event queued behind it, it is kept until the last upcall
 * returns.
 */
static void evd_defer_free_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_EVENT sw = { .event_number = DAT_SOFTWARE_EVENT };
	DAT_UPCALL_OBJECT upcall;
	struct evd_gone_rec *r;
	struct kdapl_test_held *h;
	struct kdapl_evd *e;
	DAT_EVD_HANDLE evd;
	int i;

	r = kunit_kcalloc(test, 2, sizeof(*r), GFP_KERNEL);
	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, h);
	r[0].gone.free = evd_gone_count;
	r[1].gone.free = evd_gone_count;
	kdapl_test_held_init(test, h);
	evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_SOFTWARE_FLAG);
	e = evd_test_struct(test, evd);

	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	kdapl_evd_defer_free(e, &r[0].gone);
	KUNIT_EXPECT_EQ(test, atomic_read(&r[0].freed), 1);

	/* Event 1 goes to the upcall, which holds it; 2 waits behind. */
	upcall.instance_data = h;
	upcall.upcall_func = evd_hold_upcall;
	KUNIT_ASSERT_EQ(test, dat_evd_modify_upcall(evd,
						    DAT_UPCALL_SINGLE_INSTANCE,
						    &upcall),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE(test, kdapl_test_held_wait(&h->entered));
	KUNIT_ASSERT_TRUE(test, kdapl_evd_post(e, &sw));
	kdapl_evd_defer_free(e, &r[1].gone);
	KUNIT_EXPECT_EQ(test, atomic_read(&r[1].freed), 0);
	complete_all(&h->go);
	for (i = 0; i < 250 && !atomic_read(&r[1].freed); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&r[1].freed), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r[0].freed), 1);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
}

/* A full EVD refuses events and reports the overflow once on the async EVD. */
static void evd_overflow_test(struct kunit *test)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;

	ia = evd_test_ia(test, &async);
	evd_drain(async);
	evd = evd_test_create(test, ia, 2, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_SOFTWARE_FLAG);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	evd_expect_empty(test, async);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 3), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	KUNIT_EXPECT_EQ(test, evd_post(evd, 4), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	KUNIT_EXPECT_EQ(test, evd_post(evd, 5), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	evd_expect_overflow(test, async, evd);
	evd_expect_empty(test, async);

	/* Room again: the next overflow is reported anew, once. */
	evd_expect_dequeue(test, evd, 1);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 6), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 7), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	KUNIT_EXPECT_EQ(test, evd_post(evd, 8), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	evd_expect_overflow(test, async, evd);
	evd_expect_empty(test, async);

	/* The refused events are gone, the others kept their order. */
	evd_expect_dequeue(test, evd, 2);
	evd_expect_dequeue(test, evd, 6);
	evd_expect_empty(test, evd);
}

/* The async EVD overflowing does not report itself (no recursion). */
static void evd_async_overflow_test(struct kunit *test)
{
	DAT_EVD_HANDLE async, *evds;
	struct kdapl_evd *aevd;
	DAT_EVD_PARAM param;
	DAT_IA_HANDLE ia;
	int i, n;

	ia = evd_test_ia(test, &async);
	evd_drain(async);
	KUNIT_ASSERT_EQ(test, dat_evd_query(async, DAT_EVD_FIELD_EVD_QLEN |
					    DAT_EVD_FIELD_EVD_FLAGS, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_TRUE(test, param.evd_flags & DAT_EVD_ASYNC_FLAG);
	n = param.evd_qlen;
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_LE(test, n, 64);
	aevd = evd_test_struct(test, async);

	evds = kunit_kcalloc(test, n + 2, sizeof(*evds), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, evds);
	for (i = 0; i < n + 2; i++) {
		evds[i] = evd_test_create(test, ia, 1, DAT_UPCALL_DISABLE,
					  NULL, DAT_EVD_SOFTWARE_FLAG);
		KUNIT_EXPECT_EQ(test, evd_post(evds[i], i), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, evd_post(evds[i], i),
				KDAPL_ERR(DAT_QUEUE_FULL, 0));
	}
	KUNIT_EXPECT_TRUE(test, aevd->overflowed);
	for (i = 0; i < n; i++)
		evd_expect_overflow(test, async, evds[i]);
	evd_expect_empty(test, async);
	KUNIT_EXPECT_FALSE(test, aevd->overflowed);

	/* The async EVD works again. */
	evd_expect_dequeue(test, evds[0], 0);
	KUNIT_EXPECT_EQ(test, evd_post(evds[0], 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evds[0], 2),
			KDAPL_ERR(DAT_QUEUE_FULL, 0));
	evd_expect_overflow(test, async, evds[0]);
	evd_expect_empty(test, async);
}

/* ---------------------------------------------------------------------
 * Upcalls
 */

static void evd_upcall_disable_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall;
	struct evd_rec *r = evd_rec_new(test, &upcall);
	DAT_EVD_HANDLE evd;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 0);
	evd_expect_dequeue(test, evd, 1);
	evd_expect_dequeue(test, evd, 2);
	evd_expect_empty(test, evd);
}

static void evd_upcall_single_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall;
	struct evd_rec *r = evd_rec_new(test, &upcall);
	DAT_EVD_HANDLE evd;
	int i;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_SINGLE_INSTANCE, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 1);
	evd_expect_call(test, r, 0, evd, 1, false);
	KUNIT_EXPECT_PTR_EQ(test, r->task[0], current);
	KUNIT_EXPECT_EQ(test, r->ctx[0], EVD_CTX_TASK);
	/* Consumed by the upcall, not queued. */
	evd_expect_empty(test, evd);

	/*
	 * Events posted from the upcall wait for it to return, then the
	 * same caller delivers them in order: never two upcalls at once.
	 */
	r->repost_evd = evd;
	r->repost_batch = 2;
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 4);
	evd_expect_call(test, r, 1, evd, 2, false);
	evd_expect_call(test, r, 2, evd, EVD_REPOST_ID, true);
	evd_expect_call(test, r, 3, evd, EVD_REPOST_ID + 1, false);
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_PTR_EQ(test, r->task[i], current);
	KUNIT_EXPECT_EQ(test, r->max_depth, 1);
	evd_expect_empty(test, evd);

	/* Nested posts from every upcall: still one at a time. */
	r->repost_nested = 3;
	KUNIT_EXPECT_EQ(test, evd_post(evd, 3), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 8);
	evd_expect_call(test, r, 4, evd, 3, false);
	evd_expect_call(test, r, 5, evd, EVD_REPOST_ID + 2, false);
	evd_expect_call(test, r, 6, evd, EVD_REPOST_ID + 3, false);
	evd_expect_call(test, r, 7, evd, EVD_REPOST_ID + 4, false);
	KUNIT_EXPECT_EQ(test, r->max_depth, 1);
	evd_expect_empty(test, evd);
}

static void evd_upcall_many_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall;
	struct evd_rec *r = evd_rec_new(test, &upcall);
	DAT_EVD_HANDLE evd;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_MANY, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 1);
	evd_expect_call(test, r, 0, evd, 1, false);
	KUNIT_EXPECT_PTR_EQ(test, r->task[0], current);
	evd_expect_empty(test, evd);

	/* Every post calls the upcall at once, even from an upcall. */
	r->repost_evd = evd;
	r->repost_nested = 2;
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 4);
	evd_expect_call(test, r, 1, evd, 2, false);
	evd_expect_call(test, r, 2, evd, EVD_REPOST_ID, false);
	evd_expect_call(test, r, 3, evd, EVD_REPOST_ID + 1, false);
	KUNIT_EXPECT_EQ(test, r->max_depth, 3);
	evd_expect_empty(test, evd);
}

static void evd_upcall_notify_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall;
	struct evd_rec *r = evd_rec_new(test, &upcall);
	DAT_EVD_PARAM param;
	DAT_EVD_HANDLE evd;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_NOTIFY, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 1);
	evd_expect_call(test, r, 0, evd, 1, false);
	/* One notification: disarmed, and the events stay queued. */
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_UPCALL_POLICY,
					    &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.upcall_policy, DAT_UPCALL_DISABLE);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 1);

	/* Re-arming with events queued notifies, from kdapl's work queue. */
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_NOTIFY,
						    DAT_UPCALL_SAME),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_wait(r, 2), 2);
	evd_expect_call(test, r, 1, evd, 1, true);
	KUNIT_EXPECT_PTR_NE(test, r->task[1], current);
	evd_expect_dequeue(test, evd, 1);
	evd_expect_dequeue(test, evd, 2);
	evd_expect_empty(test, evd);

	/* Re-arming on an empty EVD waits for the next event. */
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_NOTIFY,
						    DAT_UPCALL_SAME),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 2);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 3), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 3);
	evd_expect_call(test, r, 2, evd, 3, false);
	evd_expect_dequeue(test, evd, 3);
}

static void evd_modify_upcall_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall, upcall2, nofunc = { .instance_data = test };
	struct evd_rec *r = evd_rec_new(test, &upcall);
	struct evd_rec *r2 = evd_rec_new(test, &upcall2);
	static const DAT_UPCALL_POLICY bad_policies[] = { 3, 99, 101, -2 };
	DAT_EVD_PARAM param;
	DAT_EVD_HANDLE evd;
	int i;

	evd = evd_test_create(test, ia, 8, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_SOFTWARE_FLAG);
	for (i = 0; i < ARRAY_SIZE(bad_policies); i++)
		KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd,
							    bad_policies[i],
							    &upcall),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2));
	/* Enabling needs an upcall function. */
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd,
						    DAT_UPCALL_SINGLE_INSTANCE,
						    DAT_UPCALL_SAME),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_MANY,
						    &nofunc),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_NOTIFY,
						    &nofunc),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_UPCALL_POLICY |
					    DAT_EVD_FIELD_UPCALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.upcall_policy, DAT_UPCALL_DISABLE);
	KUNIT_EXPECT_NULL(test, param.upcall.upcall_func);

	/*
	 * Enabling with events queued delivers them, in order, from kdapl's
	 * work queue: never from the call.
	 */
	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 3), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd,
						    DAT_UPCALL_SINGLE_INSTANCE,
						    &upcall),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_wait(r, 3), 3);
	evd_expect_call(test, r, 0, evd, 1, true);
	evd_expect_call(test, r, 1, evd, 2, true);
	evd_expect_call(test, r, 2, evd, 3, false);
	KUNIT_EXPECT_PTR_NE(test, r->task[2], current);
	KUNIT_EXPECT_EQ(test, r->ctx[2], EVD_CTX_TASK);
	evd_expect_empty(test, evd);

	/* Disable: queued again; MANY with the same object delivers. */
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_DISABLE,
						    DAT_UPCALL_SAME),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 3);
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_MANY,
						    DAT_UPCALL_SAME),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_wait(r, 4), 4);
	evd_expect_call(test, r, 3, evd, 4, false);
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_UPCALL_POLICY |
					    DAT_EVD_FIELD_UPCALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.upcall_policy, DAT_UPCALL_MANY);
	KUNIT_EXPECT_PTR_EQ(test, param.upcall.instance_data, (void *)r);

	/* Switching the object. */
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd,
						    DAT_UPCALL_SINGLE_INSTANCE,
						    &upcall2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 5), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 4);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r2), 1);
	evd_expect_call(test, r2, 0, evd, 5, false);

	/* Teardown: disabled, object kept, events queue. */
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_TEARDOWN,
						    DAT_UPCALL_SAME),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_UPCALL_POLICY |
					    DAT_EVD_FIELD_UPCALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.upcall_policy, DAT_UPCALL_DISABLE);
	KUNIT_EXPECT_PTR_EQ(test, param.upcall.instance_data, (void *)r2);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 6), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r2), 1);
	evd_expect_dequeue(test, evd, 6);
	/* Teardown of a disabled EVD, and disabling while disabled. */
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_TEARDOWN,
						    &upcall),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd, DAT_UPCALL_DISABLE,
						    DAT_UPCALL_SAME),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_UPCALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.upcall.instance_data, (void *)r);
}

/* Work items that post an event or change an EVD from another thread. */
struct evd_work {
	struct work_struct work;
	DAT_EVD_HANDLE evd;
	uintptr_t id;
	DAT_RETURN ret;
	bool done;
};

static void evd_post_work(struct work_struct *work)
{
	struct evd_work *w = container_of(work, struct evd_work, work);

	w->ret = evd_post(w->evd, w->id);
	WRITE_ONCE(w->done, true);
}

static void evd_teardown_work(struct work_struct *work)
{
	struct evd_work *w = container_of(work, struct evd_work, work);

	w->ret = dat_evd_modify_upcall(w->evd, DAT_UPCALL_TEARDOWN,
				       DAT_UPCALL_SAME);
	WRITE_ONCE(w->done, true);
}

static void evd_free_work(struct work_struct *work)
{
	struct evd_work *w = container_of(work, struct evd_work, work);

	w->ret = dat_evd_free(w->evd);
	WRITE_ONCE(w->done, true);
}

static void evd_test_destroy_wq(struct kunit_resource *res)
{
	destroy_workqueue(res->data);
}

static struct workqueue_struct *evd_test_wq(struct kunit *test)
{
	struct workqueue_struct *wq;

	wq = alloc_workqueue("kdapl_evd_test", WQ_UNBOUND, 4);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	kunit_alloc_resource(test, evd_test_hold, evd_test_destroy_wq,
			     GFP_KERNEL, wq);
	return wq;
}

static void evd_work_start(struct workqueue_struct *wq, struct evd_work *w,
			   work_func_t fn, DAT_EVD_HANDLE evd, uintptr_t id)
{
	INIT_WORK(&w->work, fn);
	w->evd = evd;
	w->id = id;
	w->done = false;
	queue_work(wq, &w->work);
}

/*
 * SINGLE_INSTANCE: while an upcall runs, a new event is queued and the
 * running upcall delivers it before returning.
 */
static void evd_single_concurrent_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall;
	/* The work queue goes (drained) before the records it may use. */
	struct evd_rec *r = evd_rec_new(test, &upcall);
	struct workqueue_struct *wq = evd_test_wq(test);
	struct evd_work w;
	DAT_EVD_HANDLE evd;
	DAT_RETURN ret;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_SINGLE_INSTANCE, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	r->block_on = 1;
	evd_work_start(wq, &w, evd_post_work, evd, 1);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->entered,
							  EVD_TIMEOUT), 0);

	ret = evd_post(evd, 2);
	KUNIT_EXPECT_EQ(test, ret, DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 1);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(w.done));

	complete(&r->release);
	flush_work(&w.work);
	KUNIT_EXPECT_EQ(test, w.ret, DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 2);
	evd_expect_call(test, r, 0, evd, 1, false);
	evd_expect_call(test, r, 1, evd, 2, false);
	/* Delivered by the worker that ran the first upcall. */
	KUNIT_EXPECT_PTR_EQ(test, r->task[1], r->task[0]);
	KUNIT_EXPECT_PTR_NE(test, r->task[1], current);
	KUNIT_EXPECT_EQ(test, r->max_depth, 1);
	evd_expect_empty(test, evd);
}

/* MANY: a new event is delivered at once, beside the running upcall. */
static void evd_many_concurrent_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall;
	/* The work queue goes (drained) before the records it may use. */
	struct evd_rec *r = evd_rec_new(test, &upcall);
	struct workqueue_struct *wq = evd_test_wq(test);
	struct evd_work w;
	DAT_EVD_HANDLE evd;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_MANY, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	r->block_on = 1;
	evd_work_start(wq, &w, evd_post_work, evd, 1);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->entered,
							  EVD_TIMEOUT), 0);

	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 2);
	evd_expect_call(test, r, 1, evd, 2, false);
	KUNIT_EXPECT_PTR_EQ(test, r->task[1], current);
	KUNIT_EXPECT_EQ(test, r->max_depth, 2);

	complete(&r->release);
	flush_work(&w.work);
	KUNIT_EXPECT_EQ(test, w.ret, DAT_SUCCESS);
	evd_expect_empty(test, evd);
}

/*
 * MANY switched to SINGLE_INSTANCE while two upcalls run: new events wait,
 * and the last upcall to return delivers them, one at a time.
 */
static void evd_many_to_single_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_UPCALL_OBJECT upcall;
	struct evd_rec *r = evd_rec_new(test, &upcall);
	struct workqueue_struct *wq = evd_test_wq(test);
	struct evd_work w1, w2;
	DAT_EVD_HANDLE evd;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_MANY, &upcall,
			      DAT_EVD_SOFTWARE_FLAG);
	/* Both upcalls block on the same completion. */
	r->block_on = 1;
	evd_work_start(wq, &w1, evd_post_work, evd, 1);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->entered,
							  EVD_TIMEOUT), 0);
	evd_work_start(wq, &w2, evd_post_work, evd, 1);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->entered,
							  EVD_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, r->max_depth, 2);

	KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd,
						    DAT_UPCALL_SINGLE_INSTANCE,
						    DAT_UPCALL_SAME),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 3), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 2);

	complete_all(&r->release);
	flush_work(&w1.work);
	flush_work(&w2.work);
	KUNIT_EXPECT_EQ(test, w1.ret, DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, w2.ret, DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, evd_rec_calls(r), 4);
	evd_expect_call(test, r, 2, evd, 2, true);
	evd_expect_call(test, r, 3, evd, 3, false);
	/* By one of the workers, one after the other. */
	KUNIT_EXPECT_PTR_EQ(test, r->task[3], r->task[2]);
	KUNIT_EXPECT_PTR_NE(test, r->task[2], current);
	KUNIT_EXPECT_EQ(test, r->max_depth, 2);
	evd_expect_empty(test, evd);
}

/* Wait for the upcall policy of @evd to become DAT_UPCALL_DISABLE. */
static bool evd_wait_disabled(DAT_EVD_HANDLE evd)
{
	DAT_EVD_PARAM param;
	int tries;

	for (tries = 0; tries < 250; tries++) {
		if (dat_evd_query(evd, DAT_EVD_FIELD_UPCALL_POLICY, &param))
			return false;
		if (param.upcall_policy == DAT_UPCALL_DISABLE)
			return true;
		msleep(20);
	}
	return false;
}

/* TEARDOWN and dat_evd_free() wait for a running upcall. */
static void evd_teardown_wait_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	work_func_t fns[] = { evd_teardown_work, evd_free_work };
	DAT_UPCALL_OBJECT upcall[ARRAY_SIZE(fns)];
	struct evd_rec *recs[ARRAY_SIZE(fns)];
	struct workqueue_struct *wq;
	struct evd_work post, stop;
	struct evd_rec *r;
	DAT_EVD_HANDLE evd;
	int i;

	/* The work queue goes (drained) before the records it may use. */
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		recs[i] = evd_rec_new(test, &upcall[i]);
	wq = evd_test_wq(test);

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		r = recs[i];
		evd = evd_test_create(test, ia, 4, DAT_UPCALL_SINGLE_INSTANCE,
				      &upcall[i], DAT_EVD_SOFTWARE_FLAG);
		r->block_on = 1;
		evd_work_start(wq, &post, evd_post_work, evd, 1);
		KUNIT_ASSERT_GT(test,
				wait_for_completion_timeout(&r->entered,
							    EVD_TIMEOUT), 0);
		evd_work_start(wq, &stop, fns[i], evd, 0);

		if (fns[i] == evd_teardown_work) {
			/* Disabled at once: new events are queued. */
			KUNIT_EXPECT_TRUE(test, evd_wait_disabled(evd));
			KUNIT_EXPECT_EQ(test, evd_post(evd, 2), DAT_SUCCESS);
		} else {
			msleep(100);
		}
		msleep(100);
		KUNIT_EXPECT_FALSE(test, READ_ONCE(stop.done));

		complete(&r->release);
		flush_work(&stop.work);
		flush_work(&post.work);
		KUNIT_EXPECT_TRUE(test, READ_ONCE(stop.done));
		KUNIT_EXPECT_EQ(test, stop.ret, DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, post.ret, DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 1);
		if (fns[i] == evd_teardown_work) {
			evd_expect_dequeue(test, evd, 2);
			KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
		} else {
			KUNIT_EXPECT_EQ(test, dat_evd_free(evd),
					EVD_BAD_HANDLE);
		}
	}
}

/* ---------------------------------------------------------------------
 * Posting from interrupt context
 */

struct evd_irq {
	struct kdapl_evd *evd;		/* plain queue */
	struct kdapl_evd *up_evd;	/* SINGLE_INSTANCE upcall */
	struct kdapl_evd *full_evd;	/* qlen 1, already full */
	uintptr_t id;
	bool ret[3];
	enum evd_ctx ctx;
	struct completion done;
	struct hrtimer timer;
	struct tasklet_struct tasklet;
};

static void evd_irq_post(struct evd_irq *x)
{
	DAT_EVENT e = evd_sw_event(x->id);

	x->ctx = evd_ctx();
	x->ret[0] = kdapl_evd_post(x->evd, &e);
	x->ret[1] = kdapl_evd_post(x->up_evd, &e);
	x->ret[2] = kdapl_evd_post(x->full_evd, &e);
	complete(&x->done);
}

static enum hrtimer_restart evd_irq_timer(struct hrtimer *timer)
{
	evd_irq_post(container_of(timer, struct evd_irq, timer));
	return HRTIMER_NORESTART;
}

static void evd_irq_tasklet(struct tasklet_struct *t)
{
	struct evd_irq *x = from_tasklet(x, t, tasklet);

	evd_irq_post(x);
}

/*
 * Each post from context @ctx was queued at once; the upcall (the @call'th)
 * ran later, in process context on kdapl's work queue.
 */
static void evd_expect_irq_post(struct kunit *test, struct evd_irq *x,
				struct evd_rec *r, DAT_EVD_HANDLE evd,
				DAT_EVD_HANDLE up_evd, DAT_EVD_HANDLE full,
				DAT_EVD_HANDLE async, enum evd_ctx ctx,
				int call)
{
	KUNIT_EXPECT_EQ(test, x->ctx, ctx);
	KUNIT_EXPECT_TRUE(test, x->ret[0]);
	KUNIT_EXPECT_TRUE(test, x->ret[1]);
	KUNIT_EXPECT_FALSE(test, x->ret[2]);
	evd_expect_dequeue(test, evd, x->id);
	evd_expect_empty(test, evd);
	KUNIT_ASSERT_EQ(test, evd_rec_wait(r, call + 1), call + 1);
	evd_expect_call(test, r, call, up_evd, x->id, false);
	KUNIT_EXPECT_EQ(test, r->ctx[call], EVD_CTX_TASK);
	KUNIT_EXPECT_PTR_NE(test, r->task[call], current);
	/* The overflow, queued on the async EVD from that context too. */
	evd_expect_overflow(test, async, full);
	evd_expect_empty(test, async);
	/* Make room, fill again: the next overflow is reported anew. */
	evd_expect_dequeue(test, full, 0);
	KUNIT_EXPECT_EQ(test, evd_post(full, 0), DAT_SUCCESS);
}

static void evd_irq_post_test(struct kunit *test)
{
	DAT_EVD_HANDLE async, evd, up_evd, full;
	DAT_UPCALL_OBJECT upcall;
	struct evd_rec *r = evd_rec_new(test, &upcall);
	DAT_IA_HANDLE ia = evd_test_ia(test, &async);
	struct evd_irq *x;
	unsigned long flags;
	spinlock_t lock;	/* an arbitrary irqsave lock of a caller */

	x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	evd_drain(async);
	evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_SOFTWARE_FLAG | DAT_EVD_DTO_FLAG);
	up_evd = evd_test_create(test, ia, 4, DAT_UPCALL_SINGLE_INSTANCE,
				 &upcall, DAT_EVD_SOFTWARE_FLAG);
	full = evd_test_create(test, ia, 1, DAT_UPCALL_DISABLE, NULL,
			       DAT_EVD_SOFTWARE_FLAG);
	KUNIT_ASSERT_EQ(test, evd_post(full, 0), DAT_SUCCESS);
	x->evd = evd_test_struct(test, evd);
	x->up_evd = evd_test_struct(test, up_evd);
	x->full_evd = evd_test_struct(test, full);

	/* Bottom halves off and a spinlock held with interrupts off. */
	spin_lock_init(&lock);
	init_completion(&x->done);
	x->id = 1;
	local_bh_disable();
	spin_lock_irqsave(&lock, flags);
	evd_irq_post(x);
	spin_unlock_irqrestore(&lock, flags);
	local_bh_enable();
	evd_expect_irq_post(test, x, r, evd, up_evd, full, async,
			    EVD_CTX_ATOMIC, 0);

	/* Softirq. */
	reinit_completion(&x->done);
	x->id = 2;
	tasklet_setup(&x->tasklet, evd_irq_tasklet);
	tasklet_schedule(&x->tasklet);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&x->done,
							  EVD_TIMEOUT), 0);
	tasklet_kill(&x->tasklet);
	evd_expect_irq_post(test, x, r, evd, up_evd, full, async,
			    EVD_CTX_SOFTIRQ, 1);

	/* Hard interrupt. */
	reinit_completion(&x->done);
	x->id = 3;
	hrtimer_init(&x->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	x->timer.function = evd_irq_timer;
	hrtimer_start(&x->timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&x->done,
							  EVD_TIMEOUT), 0);
	hrtimer_cancel(&x->timer);
	evd_expect_irq_post(test, x, r, evd, up_evd, full, async,
			    EVD_CTX_HARDIRQ, 2);
}

/* ---------------------------------------------------------------------
 * Resize, query
 */

static void evd_resize_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_COUNT max = evd_test_max_qlen(test, ia);
	DAT_EVD_PARAM param;
	DAT_EVD_HANDLE evd;
	uintptr_t id;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_SOFTWARE_FLAG);
	/* Wrap the ring: 2 3 4 5 queued, starting at index 1. */
	for (id = 1; id <= 4; id++)
		KUNIT_EXPECT_EQ(test, evd_post(evd, id), DAT_SUCCESS);
	evd_expect_dequeue(test, evd, 1);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 5), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 3),
			KDAPL_ERR(DAT_INVALID_STATE, 0));
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 1),
			KDAPL_ERR(DAT_INVALID_STATE, 0));
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 0),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, -4),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, max + 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN,
					    &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.evd_qlen, 4);

	/* Same size, then larger: queued events keep their order. */
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 8), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN,
					    &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.evd_qlen, 8);
	for (id = 6; id <= 9; id++)
		KUNIT_EXPECT_EQ(test, evd_post(evd, id), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 10), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	evd_expect_dequeue(test, evd, 2);
	evd_expect_dequeue(test, evd, 3);
	evd_expect_dequeue(test, evd, 4);

	/* Smaller, down to exactly the number queued (6 7 8 9 + 5). */
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 5), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 11), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	for (id = 5; id <= 9; id++)
		evd_expect_dequeue(test, evd, id);
	evd_expect_empty(test, evd);
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 12), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd, 13), KDAPL_ERR(DAT_QUEUE_FULL, 0));
	evd_expect_dequeue(test, evd, 12);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
}

/*
 * The CQ of a DTO EVD never shrinks and grows where the device can
 * (rxe).  Where it cannot (siw) the EVD grows and its CQ stays: what the
 * CQ holds is bounded by the reservations of its queues.
 */
static void evd_resize_cq_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	struct kdapl_evd *e;
	DAT_EVD_PARAM param;
	DAT_EVD_HANDLE evd;
	DAT_RETURN ret;

	evd = evd_test_create(test, ia, 8, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_DTO_FLAG | DAT_EVD_SOFTWARE_FLAG);
	e = evd_test_struct(test, evd);
	KUNIT_ASSERT_NOT_NULL(test, e->cq);

	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 2), DAT_SUCCESS);
	KUNIT_EXPECT_GE(test, e->cq->cqe, 8);
	KUNIT_EXPECT_GE(test, e->cq_size, 8u);
	KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, 8), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, evd_post(evd, 1), DAT_SUCCESS);
	if (evd_test_is_siw(test)) {
		int cqe = e->cq->cqe;

		KUNIT_EXPECT_EQ(test, dat_evd_resize(evd, cqe + 1),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, e->cq->cqe, cqe);
		KUNIT_EXPECT_EQ(test,
				dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN,
					      &param),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, param.evd_qlen, cqe + 1);
	}
	ret = dat_evd_resize(evd, 64);
	KUNIT_EXPECT_EQ(test, ret, DAT_SUCCESS);
	KUNIT_EXPECT_GE(test, e->cq->cqe, 64);
	KUNIT_EXPECT_GE(test, e->cq_size, 64u);
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN,
					    &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.evd_qlen, 64);
	evd_expect_dequeue(test, evd, 1);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
}

/*
 * Queues whose reservations together exceed what one CQ of the device
 * holds (max_cqe; dtestcm's 1000 connections on one EVD) go on in a
 * further CQ also where the EVD's CQ can be resized (rxe; siw, whose
 * max_cqe is 3.2 million, cannot resize and is covered above).
 */
static void evd_xcq_full_test(struct kunit *test, struct kdapl_evd *e)
{
	u32 max = e->obj.ia->ibdev->attrs.max_cqe;
	struct ib_cq *a, *b;

	/* siw cannot resize: its queues go to further CQs anyway. */
	if (evd_test_is_siw(test))
		return;
	mutex_lock(&e->obj.ia->lock);
	a = kdapl_evd_cq_reserve(e, max);
	b = kdapl_evd_cq_reserve(e, 100);
	if (!IS_ERR(b))
		kdapl_evd_cq_unreserve(e, b, 100);
	if (!IS_ERR(a))
		kdapl_evd_cq_unreserve(e, a, max);
	mutex_unlock(&e->obj.ia->lock);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	KUNIT_EXPECT_PTR_NE(test, b, a);
	KUNIT_EXPECT_PTR_EQ(test, b->cq_context, (void *)e);
	KUNIT_EXPECT_EQ(test, e->cq_reserved, 0u);
}

/*
 * Queues reserve room in the CQs of their EVD.  Where the device can
 * resize a CQ (rxe) they all share the EVD's CQ, which grows.  Where it
 * cannot (siw), a queue that does not fit goes to a further CQ that
 * completes into the same EVD, shared by the next queues that fit, and
 * kept for later queues when its last one goes.
 */
static void evd_xcq_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	struct ib_cq *first, *a, *b, *c;
	struct kdapl_evd *e;
	DAT_EVD_HANDLE evd;
	u32 room;

	evd = evd_test_create(test, ia, 8, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_DTO_FLAG);
	e = evd_test_struct(test, evd);
	KUNIT_ASSERT_NOT_NULL(test, e->cq);
	first = e->cq;
	room = e->cq_size;

	mutex_lock(&e->obj.ia->lock);
	a = kdapl_evd_cq_reserve(e, room);
	b = kdapl_evd_cq_reserve(e, 100);
	c = kdapl_evd_cq_reserve(e, 100);
	mutex_unlock(&e->obj.ia->lock);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	KUNIT_EXPECT_PTR_EQ(test, a, first);
	KUNIT_EXPECT_PTR_EQ(test, c, b);
	if (evd_test_is_siw(test)) {
		KUNIT_EXPECT_PTR_NE(test, b, first);
		KUNIT_EXPECT_PTR_EQ(test, b->cq_context, (void *)e);
		KUNIT_EXPECT_EQ(test, b->poll_ctx, IB_POLL_SOFTIRQ);
		KUNIT_EXPECT_PTR_EQ(test, b->event_handler,
				    first->event_handler);
		KUNIT_EXPECT_FALSE(test, list_empty(&e->xcqs));
		KUNIT_EXPECT_EQ(test, e->cq_size, room);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, b, first);
		KUNIT_EXPECT_GE(test, e->cq->cqe, (int)room + 200);
	}
	KUNIT_EXPECT_EQ(test, e->cq_reserved,
			evd_test_is_siw(test) ? room : room + 200);

	mutex_lock(&e->obj.ia->lock);
	kdapl_evd_cq_unreserve(e, b, 100);
	kdapl_evd_cq_unreserve(e, c, 100);
	KUNIT_EXPECT_EQ(test, list_empty(&e->xcqs), !evd_test_is_siw(test));
	/* The first CQ is full again: the further one serves, as it was. */
	c = kdapl_evd_cq_reserve(e, 100);
	KUNIT_EXPECT_PTR_EQ(test, c, b);
	kdapl_evd_cq_unreserve(e, c, 100);
	kdapl_evd_cq_unreserve(e, a, room);
	KUNIT_EXPECT_EQ(test, e->cq_reserved, 0u);
	/* More than the device's CQs hold. */
	a = kdapl_evd_cq_reserve(e, e->obj.ia->ibdev->attrs.max_cqe + 1U);
	mutex_unlock(&e->obj.ia->lock);
	KUNIT_EXPECT_TRUE(test, IS_ERR(a));
	KUNIT_EXPECT_EQ(test, e->cq_reserved, 0u);
	evd_xcq_full_test(test, e);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
}

/*
 * A CQ the device reports in error (an overrun it could not prevent) is
 * an EVD overflow on the async EVD, not a silent death of its QPs.
 */
static void evd_cq_error_test(struct kunit *test)
{
	DAT_EVD_HANDLE async, evd;
	struct ib_event event;
	struct kdapl_evd *e;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	ia = evd_test_ia(test, &async);
	evd_drain(async);
	evd = evd_test_create(test, ia, 8, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_DTO_FLAG);
	e = evd_test_struct(test, evd);
	KUNIT_ASSERT_NOT_NULL(test, e->cq);
	KUNIT_ASSERT_NOT_NULL(test, e->cq->event_handler);
	event = (struct ib_event) {
		.device = e->cq->device,
		.element.cq = e->cq,
		.event = IB_EVENT_CQ_ERR,
	};
	e->cq->event_handler(&event, e->cq->cq_context);
	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(async, &ev, 1000));
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	KUNIT_EXPECT_PTR_EQ(test, ev.event_data.asynch_error_event_data.dat_handle,
			    (DAT_HANDLE)evd);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
}

struct evd_query_case {
	const char *desc;
	DAT_EVD_PARAM_MASK mask;
};

static const struct evd_query_case evd_query_cases[] = {
	{ "none", 0 },
	{ "ia", DAT_EVD_FIELD_IA_HANDLE },
	{ "qlen", DAT_EVD_FIELD_EVD_QLEN },
	{ "state", DAT_EVD_FIELD_EVD_STATE },
	{ "cno", DAT_EVD_FIELD_CNO },
	{ "flags", DAT_EVD_FIELD_EVD_FLAGS },
	{ "policy", DAT_EVD_FIELD_UPCALL_POLICY },
	{ "upcall", DAT_EVD_FIELD_UPCALL },
	{ "all udat", DAT_EVD_FIELD_ALL },
	{ "all", DAT_EVD_FIELD_ALL_KDAT },
};

static void evd_query_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	const struct evd_query_case *c;
	DAT_EVD_PARAM param, want;
	DAT_UPCALL_OBJECT upcall;
	DAT_EVD_FLAGS flags = DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG;
	DAT_EVD_HANDLE evd;

	evd_rec_new(test, &upcall);
	evd = evd_test_create(test, ia, 5, DAT_UPCALL_MANY, &upcall, flags);

	for (c = evd_query_cases;
	     c < evd_query_cases + ARRAY_SIZE(evd_query_cases); c++) {
		memset(&param, 0xa5, sizeof(param));
		memset(&want, 0xa5, sizeof(want));
		if (c->mask & DAT_EVD_FIELD_IA_HANDLE)
			want.ia_handle = ia;
		if (c->mask & DAT_EVD_FIELD_EVD_QLEN)
			want.evd_qlen = 5;
		if (c->mask & DAT_EVD_FIELD_EVD_STATE)
			want.evd_state = DAT_EVD_STATE_ENABLED;
		if (c->mask & DAT_EVD_FIELD_CNO)
			want.cno_handle = DAT_HANDLE_NULL;
		if (c->mask & DAT_EVD_FIELD_EVD_FLAGS)
			want.evd_flags = flags;
		if (c->mask & DAT_EVD_FIELD_UPCALL_POLICY)
			want.upcall_policy = DAT_UPCALL_MANY;
		if (c->mask & DAT_EVD_FIELD_UPCALL)
			want.upcall = upcall;
		KUNIT_EXPECT_EQ_MSG(test, dat_evd_query(evd, c->mask, &param),
				    DAT_SUCCESS, "%s", c->desc);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&param, &want, sizeof(param)),
				    0, "%s", c->desc);
	}

	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, 0x80, &param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_ALL_KDAT | 0x100,
					    &param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_evd_query(evd, DAT_EVD_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
}

/* ---------------------------------------------------------------------
 * Freeing, bad handles, abrupt close
 */

static void evd_free_in_use_test(struct kunit *test)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia = evd_test_ia(test, &async);
	struct kdapl_evd *e;

	evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
			      DAT_EVD_DTO_FLAG);
	e = evd_test_struct(test, evd);
	mutex_lock(&e->obj.ia->lock);
	kdapl_use(&e->obj);
	mutex_unlock(&e->obj.ia->lock);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EVD_IN_USE));
	/* Still there and working. */
	KUNIT_EXPECT_NOT_NULL(test, e->cq);
	evd_expect_empty(test, evd);
	mutex_lock(&e->obj.ia->lock);
	kdapl_unuse(&e->obj);
	mutex_unlock(&e->obj.ia->lock);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
	KUNIT_EXPECT_NULL(test, e->cq);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), EVD_BAD_HANDLE);

	/* The async EVD of an IA. */
	KUNIT_EXPECT_EQ(test, dat_evd_free(async),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EVD_IN_USE));
	evd_expect_empty(test, async);
}

enum evd_fn {
	EVD_FN_FREE,
	EVD_FN_POST_SE,
	EVD_FN_DEQUEUE,
	EVD_FN_QUERY,
	EVD_FN_RESIZE,
	EVD_FN_MODIFY_UPCALL,
	EVD_FN_NR,
};

static DAT_RETURN evd_call(enum evd_fn fn, DAT_EVD_HANDLE h)
{
	DAT_UPCALL_OBJECT upcall = { .upcall_func = evd_rec_upcall };
	DAT_EVENT e = evd_sw_event(1);
	DAT_EVD_PARAM param;

	switch (fn) {
	case EVD_FN_FREE:
		return dat_evd_free(h);
	case EVD_FN_POST_SE:
		return dat_evd_post_se(h, &e);
	case EVD_FN_DEQUEUE:
		return dat_evd_dequeue(h, &e);
	case EVD_FN_QUERY:
		return dat_evd_query(h, DAT_EVD_FIELD_ALL_KDAT, &param);
	case EVD_FN_RESIZE:
		return dat_evd_resize(h, 8);
	case EVD_FN_MODIFY_UPCALL:
		return dat_evd_modify_upcall(h, DAT_UPCALL_DISABLE, &upcall);
	default:
		return DAT_SUCCESS;
	}
}

static void evd_bad_handle_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	DAT_EVD_HANDLE freed, live;
	DAT_EVD_HANDLE bad[7];
	struct kdapl_evd *e;
	DAT_EVENT ev;
	int fn, i;

	freed = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
				DAT_EVD_SOFTWARE_FLAG);
	e = evd_test_struct(test, freed);
	KUNIT_ASSERT_EQ(test, dat_evd_free(freed), DAT_SUCCESS);
	live = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
			       DAT_EVD_SOFTWARE_FLAG);

	bad[0] = DAT_HANDLE_NULL;
	bad[1] = freed;
	bad[2] = pz;
	bad[3] = ia;
	bad[4] = (DAT_EVD_HANDLE)(uintptr_t)0xdeadbeefUL;
	bad[5] = (DAT_EVD_HANDLE)(uintptr_t)~0UL;
	/* The live EVD's handle with another generation. */
	bad[6] = (DAT_EVD_HANDLE)((uintptr_t)live ^ (1UL << 32));

	for (fn = 0; fn < EVD_FN_NR; fn++)
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			KUNIT_EXPECT_EQ_MSG(test, evd_call(fn, bad[i]),
					    EVD_BAD_HANDLE,
					    "function %d handle %d", fn, i);

	/* Nothing reached the live EVD, the freed one stays dead. */
	evd_expect_empty(test, live);
	ev = evd_sw_event(1);
	KUNIT_EXPECT_FALSE(test, kdapl_evd_post(e, &ev));
	KUNIT_EXPECT_NULL(test, e->ring);
	KUNIT_EXPECT_EQ(test, dat_evd_free(live), DAT_SUCCESS);
}

/* An abrupt close frees EVDs in any state, queued events included. */
static void evd_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, evd[5];
	DAT_UPCALL_OBJECT upcall;
	struct evd_rec *r = evd_rec_new(test, &upcall);
	struct kdapl_evd *e[ARRAY_SIZE(evd)];
	DAT_EVD_PARAM param;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;
	int i;

	kdapl_test_open_ia(test, *name);	/* skips without the device */
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async, &ia), DAT_SUCCESS);

	evd[0] = evd_test_create(test, ia, 8, DAT_UPCALL_DISABLE, NULL,
				 DAT_EVD_SOFTWARE_FLAG);
	evd[1] = evd_test_create(test, ia, 8, DAT_UPCALL_DISABLE, NULL,
				 DAT_EVD_DEFAULT_FLAG | DAT_EVD_SOFTWARE_FLAG);
	evd[2] = evd_test_create(test, ia, 2, DAT_UPCALL_SINGLE_INSTANCE,
				 &upcall, DAT_EVD_SOFTWARE_FLAG);
	evd[3] = evd_test_create(test, ia, 16, DAT_UPCALL_DISABLE, NULL,
				 DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG);
	evd[4] = evd_test_create(test, ia, 1, DAT_UPCALL_DISABLE, NULL,
				 DAT_EVD_SOFTWARE_FLAG);
	for (i = 0; i < ARRAY_SIZE(evd); i++)
		e[i] = evd_test_struct(test, evd[i]);
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, evd_post(evd[0], i), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, evd_post(evd[1], i), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, evd_post(evd[2], i), DAT_SUCCESS);
	}
	/* Full, with its overflow queued on the async EVD. */
	KUNIT_EXPECT_EQ(test, evd_post(evd[4], 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, evd_post(evd[4], 2),
			KDAPL_ERR(DAT_QUEUE_FULL, 0));
	/* In use, as by an EP. */
	mutex_lock(&e[3]->obj.ia->lock);
	kdapl_use(&e[3]->obj);
	mutex_unlock(&e[3]->obj.ia->lock);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 5);

	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	for (i = 0; i < ARRAY_SIZE(evd); i++) {
		KUNIT_EXPECT_EQ(test, dat_evd_query(evd[i], DAT_EVD_FIELD_ALL,
						    &param),
				EVD_BAD_HANDLE);
		KUNIT_EXPECT_NULL(test, e[i]->ring);
		KUNIT_EXPECT_NULL(test, e[i]->cq);
		ev = evd_sw_event(9);
		KUNIT_EXPECT_FALSE(test, kdapl_evd_post(e[i], &ev));
	}
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(async, &ev), EVD_BAD_HANDLE);
	KUNIT_EXPECT_EQ(test, evd_rec_calls(r), 5);
}

/* ---------------------------------------------------------------------
 * Endpoint completion streams
 */

enum evd_op {
	EVD_OP_END,
	EVD_OP_ATTACH,
	EVD_OP_DETACH,
};

struct evd_stream_op {
	enum evd_op op;
	enum kdapl_stream stream;
	DAT_COMPLETION_FLAGS flags;
	DAT_RETURN ret;
};

struct evd_stream_case {
	const char *desc;
	DAT_EVD_FLAGS evd_flags;
	struct evd_stream_op ops[7];
};

#define RECV	KDAPL_STREAM_RECV
#define REQ	KDAPL_STREAM_REQUEST
#define DEF	DAT_COMPLETION_DEFAULT_FLAG
#define THR	DAT_COMPLETION_EVD_THRESHOLD_FLAG
#define UNS	DAT_COMPLETION_UNSIGNALLED_FLAG
#define SOL	DAT_COMPLETION_SOLICITED_WAIT_FLAG
#define SUP	DAT_COMPLETION_SUPPRESS_FLAG
#define OK	DAT_SUCCESS
#define BAD	EVD_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6)
#define NO_RECV	EVD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV)
#define NO_REQ	EVD_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST)
#define ATT(s, f, r)	{ EVD_OP_ATTACH, s, f, r }
#define DET(s)		{ EVD_OP_DETACH, s, 0, OK }

static const struct evd_stream_case evd_stream_cases[] = {
	{ "same recv flags", DAT_EVD_DTO_FLAG,
	  { ATT(RECV, DEF, OK), ATT(RECV, DEF, OK), ATT(RECV, THR, BAD) } },
	{ "same request flags", DAT_EVD_DTO_FLAG,
	  { ATT(REQ, THR, OK), ATT(REQ, THR, OK), ATT(REQ, DEF, BAD),
	    ATT(RECV, DEF, BAD), ATT(RECV, THR, OK) } },
	{ "unsignalled request, then recv", DAT_EVD_DTO_FLAG,
	  { ATT(REQ, UNS, OK), ATT(REQ, UNS, OK), ATT(RECV, DEF, BAD),
	    ATT(RECV, UNS, OK) } },
	{ "recv, then unsignalled request", DAT_EVD_DTO_FLAG,
	  { ATT(RECV, DEF, OK), ATT(REQ, UNS, BAD), ATT(REQ, DEF, OK) } },
	{ "unsignalled on a dto and rmr bind evd",
	  DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG,
	  { ATT(REQ, UNS, OK) } },
	{ "unsignalled beside connection events",
	  DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG,
	  { ATT(REQ, UNS, BAD), ATT(REQ, DEF, BAD), ATT(REQ, THR, OK),
	    ATT(RECV, THR, OK), ATT(RECV, SOL, BAD), ATT(RECV, DEF, BAD) } },
	{ "default evd flags", DAT_EVD_DEFAULT_FLAG,
	  { ATT(REQ, THR, OK), ATT(RECV, DEF, BAD), ATT(RECV, THR, OK),
	    ATT(REQ, DAT_COMPLETION_BARRIER_FENCE_FLAG, BAD) } },
	{ "software evd", DAT_EVD_DTO_FLAG | DAT_EVD_SOFTWARE_FLAG,
	  { ATT(RECV, SOL, BAD), ATT(REQ, UNS, BAD), ATT(RECV, DEF, BAD),
	    ATT(RECV, THR, OK) } },
	{ "cr evd", DAT_EVD_DTO_FLAG | DAT_EVD_CR_FLAG,
	  { ATT(RECV, SOL, BAD), ATT(RECV, THR, OK) } },
	{ "async evd", DAT_EVD_DTO_FLAG | DAT_EVD_ASYNC_FLAG,
	  { ATT(REQ, UNS, BAD), ATT(REQ, DEF, BAD), ATT(REQ, THR, OK) } },
	{ "solicited wait receives", DAT_EVD_DTO_FLAG,
	  { ATT(RECV, SOL, OK), ATT(RECV, SOL, OK), ATT(RECV, DEF, BAD),
	    ATT(REQ, DEF, BAD) } },
	{ "solicited wait after a request", DAT_EVD_DTO_FLAG,
	  { ATT(REQ, DEF, OK), ATT(RECV, SOL, BAD), ATT(RECV, DEF, OK) } },
	{ "solicited wait, rmr bind evd",
	  DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG,
	  { ATT(RECV, SOL, OK) } },
	{ "detach frees the flags", DAT_EVD_DTO_FLAG,
	  { ATT(RECV, THR, OK), ATT(RECV, DEF, BAD), DET(RECV),
	    ATT(RECV, DEF, OK), ATT(REQ, UNS, BAD), DET(RECV),
	    ATT(REQ, UNS, OK) } },
	{ "detach solicited wait", DAT_EVD_DTO_FLAG,
	  { ATT(RECV, SOL, OK), ATT(REQ, DEF, BAD), DET(RECV),
	    ATT(REQ, DEF, OK) } },
	{ "unknown completion flag", DAT_EVD_DTO_FLAG,
	  { ATT(RECV, 0x40, BAD), ATT(REQ, 0x80000000U, BAD),
	    ATT(RECV, DEF, OK) } },
	{ "suppressed receives", DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG,
	  { ATT(RECV, SUP, OK), ATT(REQ, DEF, BAD), ATT(REQ, SUP, OK) } },
	{ "no dto stream", DAT_EVD_RMR_BIND_FLAG | DAT_EVD_CONNECTION_FLAG,
	  { ATT(RECV, DEF, NO_RECV), ATT(REQ, DEF, NO_REQ) } },
};

#undef RECV
#undef REQ
#undef DEF
#undef THR
#undef UNS
#undef SOL
#undef SUP
#undef OK
#undef BAD
#undef NO_RECV
#undef NO_REQ
#undef ATT
#undef DET

static void evd_stream_test(struct kunit *test)
{
	DAT_IA_HANDLE ia = evd_test_ia(test, NULL);
	const struct evd_stream_case *c;
	const struct evd_stream_op *op;
	unsigned int streams[2];
	struct kdapl_evd *e;
	DAT_EVD_HANDLE evd;
	DAT_RETURN ret;

	for (c = evd_stream_cases;
	     c < evd_stream_cases + ARRAY_SIZE(evd_stream_cases); c++) {
		evd = evd_test_create(test, ia, 4, DAT_UPCALL_DISABLE, NULL,
				      c->evd_flags);
		e = evd_test_struct(test, evd);
		streams[KDAPL_STREAM_RECV] = 0;
		streams[KDAPL_STREAM_REQUEST] = 0;
		mutex_lock(&e->obj.ia->lock);
		for (op = c->ops; op < c->ops + ARRAY_SIZE(c->ops) &&
		     op->op != EVD_OP_END; op++) {
			if (op->op == EVD_OP_DETACH) {
				kdapl_evd_detach_stream(e, op->stream);
				streams[op->stream]--;
				continue;
			}
			ret = kdapl_evd_attach_stream(e, op->stream,
						      op->flags);
			KUNIT_EXPECT_EQ_MSG(test, ret, op->ret,
					    "%s: step %td", c->desc,
					    op - c->ops);
			if (!ret)
				streams[op->stream]++;
		}
		KUNIT_EXPECT_EQ_MSG(test, e->recv_streams,
				    streams[KDAPL_STREAM_RECV], "%s", c->desc);
		KUNIT_EXPECT_EQ_MSG(test, e->request_streams,
				    streams[KDAPL_STREAM_REQUEST], "%s",
				    c->desc);
		while (streams[KDAPL_STREAM_RECV]--)
			kdapl_evd_detach_stream(e, KDAPL_STREAM_RECV);
		while (streams[KDAPL_STREAM_REQUEST]--)
			kdapl_evd_detach_stream(e, KDAPL_STREAM_REQUEST);
		KUNIT_EXPECT_EQ(test, e->recv_streams, 0u);
		KUNIT_EXPECT_EQ(test, e->request_streams, 0u);
		mutex_unlock(&e->obj.ia->lock);
		KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
	}
}

static struct kunit_case kdapl_evd_test_cases[] = {
	KUNIT_CASE_PARAM(evd_create_flags_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_create_qlen_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_create_args_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_post_dequeue_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_defer_free_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_overflow_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_async_overflow_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_upcall_disable_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_upcall_single_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_upcall_many_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_upcall_notify_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_modify_upcall_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_single_concurrent_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_many_concurrent_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_many_to_single_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_teardown_wait_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_irq_post_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_resize_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_resize_cq_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_xcq_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_cq_error_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_query_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_free_in_use_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_bad_handle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_abrupt_close_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(evd_stream_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_evd_test_suite = {
	.name = "kdapl_evd",
	.test_cases = kdapl_evd_test_cases,
};

kunit_test_suite(kdapl_evd_test_suite);
