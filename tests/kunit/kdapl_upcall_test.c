// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the context of upcalls: kdapl never calls an upcall
 * with one of its locks held or from inside a kDAT call, and each kind
 * runs where kdat.h says.  Upcalls of an EVD with DTO streams run with
 * bottom halves disabled; the others in process context, where they may
 * make every kDAT call but freeing their own EVD.  The cases make those
 * calls from upcalls while connections are torn down, disconnected and
 * their IA closed, on each adapter; lockdep watches.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/resource.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <rdma/kdat_ib_extensions.h>

#include "kdapl_test_util.h"

/* Qualifiers no other suite listens on. */
#define UPC_QUAL		47200

#define UPC_SENDS		24
#define UPC_MSG			1024	/* above any inline size */
#define UPC_MAX_CALLS		64

/* The calls of UPC_BH_CALLS: every kDAT call allowed in any context. */
enum upc_bh_call {
	UPC_DEQUEUE, UPC_GET_STATUS, UPC_POST_RECV, UPC_HANDLE_TYPE,
	UPC_EVD_QUERY, UPC_POST_SE, UPC_MODIFY_UPCALL, UPC_EP_QUERY,
	UPC_POST_SEND, UPC_POST_SEND_INV, UPC_POST_READ, UPC_POST_READ_RMR,
	UPC_POST_WRITE, UPC_SRQ_POST_RECV, UPC_SRQ_QUERY, UPC_PZ_QUERY,
	UPC_LMR_QUERY, UPC_RMR_QUERY, UPC_PSP_QUERY, UPC_BH_NCALLS
};

/* Which calls an upcall makes when it sees its trigger. */
enum upc_action {
	UPC_NONE,
	UPC_BH_CALLS,		/* what a bottom-half upcall may call */
	UPC_FREE_EPS,		/* free its own EP and another, an EVD */
	UPC_CLOSE_IA,		/* close its IA abruptly */
};

/**
 * struct upc_rec - what the upcalls of one EVD saw
 * @lock: protects the counters
 * @ia: the IA whose locks must not be held
 * @bh: the upcalls must run with bottom halves disabled (else in process
 *	context, preemptible)
 * @calls: upcalls so far
 * @bad_ctx: upcalls in the wrong context
 * @locked: upcalls with a lock of kdapl held
 * @inline_calls: upcalls from the thread of the test itself
 * @tester: that thread
 * @cookies: DTO cookies seen, one bit each
 * @statuses: DTO statuses seen, one bit each
 * @action: calls to make on the trigger event
 * @trigger: the event number that triggers @action
 * @acted: @action was taken
 * @ep: the EP @action frees or posts on
 * @ia_handle: the IA @action closes
 * @other_ep: another EP @action frees
 * @other_evd: an EVD @action frees
 * @rets: what the calls of @action returned
 * @pz: a PZ of the IA, for UPC_BH_CALLS
 * @lmr: an LMR of @pz, for UPC_BH_CALLS
 * @rmr: an RMR of @pz, for UPC_BH_CALLS
 * @srq: an SRQ of @pz, for UPC_BH_CALLS
 * @psp: a PSP of the IA, for UPC_BH_CALLS
 * @sw_evd: a software EVD without upcall, for UPC_BH_CALLS
 * @param: what the queries of UPC_BH_CALLS fill (not on the softirq
 *	stack)
 * @done: completed when @action was taken, or at @want calls
 * @want: calls after which @done completes, 0 for none
 */
struct upc_rec {
	spinlock_t lock;	/* see above */
	struct kdapl_ia *ia;
	bool bh;
	unsigned int calls;
	unsigned int bad_ctx;
	unsigned int locked;
	unsigned int inline_calls;
	struct task_struct *tester;
	unsigned long cookies;
	unsigned long statuses;
	enum upc_action action;
	DAT_EVENT_NUMBER trigger;
	bool acted;
	DAT_EP_HANDLE ep;
	DAT_EP_HANDLE other_ep;
	DAT_EVD_HANDLE other_evd;
	DAT_IA_HANDLE ia_handle;
	DAT_RETURN rets[UPC_BH_NCALLS];
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr;
	DAT_RMR_HANDLE rmr;
	DAT_SRQ_HANDLE srq;
	DAT_PSP_HANDLE psp;
	DAT_EVD_HANDLE sw_evd;
	union {
		DAT_EP_PARAM ep;
		DAT_EVD_PARAM evd;
		DAT_PZ_PARAM pz;
		DAT_LMR_PARAM lmr;
		DAT_RMR_PARAM rmr;
		DAT_SRQ_PARAM srq;
		DAT_PSP_PARAM psp;
	} param;
	struct completion done;
	unsigned int want;
};

/*
 * A kdapl lock the upcall runs under, if any of those we can see: the
 * mutexes for process-context upcalls (a softirq may interrupt a task
 * that holds one, so it tells nothing there), and for all of them the
 * spinlocks, which are taken with interrupts off.
 */
static bool upc_holds_lock(struct upc_rec *r)
{
	if (irqs_disabled())
		return true;
	return !r->bh && (lockdep_is_held(&r->ia->lock) ||
			  lockdep_is_held(&r->ia->adapter->ia_lock));
}

static bool upc_ctx_ok(struct upc_rec *r)
{
	if (r->bh)
		return in_softirq() && !in_hardirq();
	return !preempt_count() && !irqs_disabled();
}

/*
 * Every call allowed from an upcall in any context.  The requests carry
 * more segments than any EP takes: refused under the EP's lock (or for
 * the EP's state), they never reach the peer.  The receive has none.
 */
static void upc_bh_calls(struct upc_rec *r, const DAT_EVENT *ev)
{
	DAT_EVENT sw = { .event_number = DAT_SOFTWARE_EVENT };
	const DAT_DTO_COOKIE ck = { .as_64 = 99 };
	const DAT_COUNT many = 64;
	DAT_RMR_TRIPLET remote = {};
	DAT_LMR_TRIPLET none = {};
	DAT_HANDLE_TYPE type;
	DAT_RETURN *ret = r->rets;
	DAT_BOOLEAN ri, qi;
	DAT_EVENT dq;

	ret[UPC_DEQUEUE] = dat_evd_dequeue(ev->evd_handle, &dq);
	ret[UPC_GET_STATUS] = dat_ep_get_status(r->ep, NULL, &ri, &qi);
	ret[UPC_POST_RECV] = dat_ep_post_recv(r->ep, 0, &none, ck, 0);
	ret[UPC_HANDLE_TYPE] = dat_get_handle_type(r->ep, &type);
	ret[UPC_EVD_QUERY] = dat_evd_query(ev->evd_handle, DAT_EVD_FIELD_ALL,
					   &r->param.evd);
	ret[UPC_POST_SE] = dat_evd_post_se(r->sw_evd, &sw);
	ret[UPC_MODIFY_UPCALL] = dat_evd_modify_upcall(r->sw_evd,
						       DAT_UPCALL_DISABLE,
						       NULL);
	ret[UPC_EP_QUERY] = dat_ep_query(r->ep, DAT_EP_FIELD_ALL,
					 &r->param.ep);
	ret[UPC_POST_SEND] = dat_ep_post_send(r->ep, many, &none, ck, 0);
	ret[UPC_POST_SEND_INV] = dat_ep_post_send_with_invalidate(r->ep, many,
								  &none, ck, 0,
								  DAT_FALSE,
								  0);
	ret[UPC_POST_READ] = dat_ep_post_rdma_read(r->ep, many, &none, ck,
						   &remote, 0);
	ret[UPC_POST_READ_RMR] = dat_ep_post_rdma_read_to_rmr(r->ep, &remote,
							      ck, &remote, 0);
	ret[UPC_POST_WRITE] = dat_ep_post_rdma_write(r->ep, many, &none, ck,
						     &remote, 0);
	ret[UPC_SRQ_POST_RECV] = dat_srq_post_recv(r->srq, 0, NULL, ck);
	ret[UPC_SRQ_QUERY] = dat_srq_query(r->srq, DAT_SRQ_FIELD_ALL,
					   &r->param.srq);
	ret[UPC_PZ_QUERY] = dat_pz_query(r->pz, DAT_PZ_FIELD_ALL,
					 &r->param.pz);
	ret[UPC_LMR_QUERY] = dat_lmr_query(r->lmr, DAT_LMR_FIELD_ALL,
					   &r->param.lmr);
	ret[UPC_RMR_QUERY] = dat_rmr_query(r->rmr, DAT_RMR_FIELD_ALL,
					   &r->param.rmr);
	ret[UPC_PSP_QUERY] = dat_psp_query(r->psp, DAT_PSP_FIELD_ALL,
					   &r->param.psp);
}

static void upc_act(struct upc_rec *r, const DAT_EVENT *ev)
{
	switch (r->action) {
	case UPC_BH_CALLS:
		upc_bh_calls(r, ev);
		break;
	case UPC_FREE_EPS:
		r->rets[0] = dat_ep_free(r->ep);
		r->rets[1] = dat_ep_free(r->other_ep);
		r->rets[2] = dat_evd_free(r->other_evd);
		break;
	case UPC_CLOSE_IA:
		r->rets[0] = dat_ia_close(r->ia_handle, DAT_CLOSE_ABRUPT_FLAG);
		break;
	default:
		break;
	}
}

static void upc_func(DAT_PVOID data, const DAT_EVENT *ev, DAT_BOOLEAN more)
{
	struct upc_rec *r = data;
	bool ctx_ok = upc_ctx_ok(r), locked = upc_holds_lock(r);
	bool act = false, done;
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	r->calls++;
	if (!ctx_ok)
		r->bad_ctx++;
	if (locked)
		r->locked++;
	/* A softirq may run on top of the tester: that is not inline. */
	if (current == r->tester && !in_serving_softirq())
		r->inline_calls++;
	if (ev->event_number == DAT_DTO_COMPLETION_EVENT) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d =
			&ev->event_data.dto_completion_event_data;

		r->cookies |= BIT(d->user_cookie.as_64 % BITS_PER_LONG);
		r->statuses |= BIT(d->status % BITS_PER_LONG);
	}
	if (r->action && !r->acted && ev->event_number == r->trigger) {
		r->acted = true;
		act = true;
	}
	done = r->want && r->calls == r->want;
	spin_unlock_irqrestore(&r->lock, flags);
	if (act) {
		upc_act(r, ev);
		complete(&r->done);
	}
	if (done)
		complete(&r->done);
}

static int upc_hold(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void upc_put(struct kunit_resource *res)
{
	kdapl_object_put(res->data);
}

static struct upc_rec *upc_rec(struct kunit *test, DAT_IA_HANDLE ia, bool bh,
			       DAT_UPCALL_OBJECT *upcall)
{
	struct upc_rec *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct kdapl_ia *kia;

	KUNIT_ASSERT_NOT_NULL(test, r);
	spin_lock_init(&r->lock);
	init_completion(&r->done);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, ia, IA, DAT_INVALID_HANDLE_IA, &kia),
			DAT_SUCCESS);
	/* The IA's memory, for the lock checks, until the test ends. */
	kunit_alloc_resource(test, upc_hold, upc_put, GFP_KERNEL, &kia->obj);
	r->ia = kia;
	r->ia_handle = ia;
	r->bh = bh;
	r->tester = current;
	upcall->instance_data = r;
	upcall->upcall_func = upc_func;
	return r;
}

/* Wait until @r's action was taken or its calls counted. */
static bool upc_wait(struct upc_rec *r)
{
	return wait_for_completion_timeout(&r->done,
					   msecs_to_jiffies(KDAPL_TEST_WAIT_MS));
}

static void upc_expect_clean(struct kunit *test, struct upc_rec *r)
{
	KUNIT_EXPECT_GT(test, r->calls, 0U);
	KUNIT_EXPECT_EQ_MSG(test, r->bad_ctx, 0U,
			    "upcalls outside their context (bh %d)", r->bh);
	KUNIT_EXPECT_EQ_MSG(test, r->locked, 0U,
			    "upcalls with a kdapl lock held");
	KUNIT_EXPECT_EQ_MSG(test, r->inline_calls, 0U,
			    "upcalls from inside a kDAT call");
}

static DAT_EVD_HANDLE upc_evd(struct kunit *test, DAT_IA_HANDLE ia,
			      DAT_EVD_FLAGS flags,
			      const DAT_UPCALL_OBJECT *upcall)
{
	DAT_EVD_HANDLE evd;

	KUNIT_ASSERT_EQ(test, dat_evd_kcreate(ia, 128,
					      upcall ?
					      DAT_UPCALL_SINGLE_INSTANCE :
					      DAT_UPCALL_DISABLE,
					      upcall, flags, &evd),
			DAT_SUCCESS);
	return evd;
}

static DAT_EP_HANDLE upc_ep(struct kunit *test, DAT_IA_HANDLE ia,
			    DAT_PZ_HANDLE pz, DAT_EVD_HANDLE recv,
			    DAT_EVD_HANDLE req, DAT_EVD_HANDLE conn)
{
	DAT_EP_HANDLE ep;

	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, recv, req, conn, NULL,
					    &ep),
			DAT_SUCCESS);
	return ep;
}

/* A buffer of @len bytes registered in @pz, freed with the test. */
static DAT_LMR_HANDLE upc_lmr(struct kunit *test, DAT_IA_HANDLE ia,
			      DAT_PZ_HANDLE pz, size_t len,
			      DAT_LMR_TRIPLET *t)
{
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_HANDLE lmr;
	DAT_VLEN rlen;
	DAT_VADDR addr;
	void *buf;

	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	region.for_va = buf;
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, region,
					      len, pz,
					      DAT_MEM_PRIV_LOCAL_READ_FLAG |
					      DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE, &lmr,
					      &t->lmr_context, NULL, &rlen,
					      &addr),
			DAT_SUCCESS);
	t->virtual_address = (DAT_VADDR)(uintptr_t)buf;
	t->segment_length = len;
	return lmr;
}

/* The objects UPC_BH_CALLS queries, besides @r->lmr. */
static void upc_bh_objects(struct kunit *test, struct upc_rec *r,
			   const struct kdapl_test_pair *p)
{
	DAT_SRQ_ATTR sattr = { .max_recv_dtos = 4, .max_recv_iov = 1 };

	r->pz = p->pz;
	KUNIT_ASSERT_EQ(test, dat_rmr_create(p->pz, &r->rmr), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_srq_create(p->ia, p->pz, &sattr, &r->srq),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_psp_create(p->ia, UPC_QUAL + 9, p->cr,
					     DAT_PSP_CONSUMER_FLAG, &r->psp),
			DAT_SUCCESS);
	r->sw_evd = upc_evd(test, p->ia, DAT_EVD_SOFTWARE_FLAG, NULL);
}

/* What the calls of UPC_BH_CALLS returned. */
static void upc_bh_expect(struct kunit *test, struct upc_rec *r)
{
	static const enum upc_bh_call ok[] = {
		UPC_GET_STATUS, UPC_POST_RECV, UPC_HANDLE_TYPE, UPC_EVD_QUERY,
		UPC_POST_SE, UPC_MODIFY_UPCALL, UPC_EP_QUERY,
		UPC_SRQ_POST_RECV, UPC_SRQ_QUERY, UPC_PZ_QUERY, UPC_LMR_QUERY,
		UPC_RMR_QUERY, UPC_PSP_QUERY,
	};
	DAT_RETURN ret;
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++)
		KUNIT_EXPECT_EQ_MSG(test, r->rets[ok[i]], DAT_SUCCESS,
				    "call %d", ok[i]);
	ret = r->rets[UPC_DEQUEUE];
	KUNIT_EXPECT_TRUE(test, ret == DAT_SUCCESS ||
			  ret == KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
	/* Refused for their segments, or for a connection going. */
	for (i = UPC_POST_SEND; i <= UPC_POST_WRITE; i++) {
		ret = r->rets[i];
		KUNIT_EXPECT_TRUE_MSG(test,
				      DAT_GET_TYPE(ret) == DAT_INVALID_STATE ||
				      DAT_GET_TYPE(ret) ==
				      DAT_INVALID_PARAMETER ||
				      DAT_GET_TYPE(ret) ==
				      DAT_PROTECTION_VIOLATION,
				      "call %d: %#x", i, ret);
	}
}

/*
 * Sends in flight when the client disconnects abruptly complete, most
 * of them flushed (on siw kdapl reports those itself): every completion
 * reaches the request EVD's upcall once, with bottom halves disabled and
 * no kdapl lock held, and the upcall's calls return.
 */
static void upcall_flush_context_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_test_pair p = {};
	DAT_EVD_HANDLE creq, crecv, srecv;
	DAT_UPCALL_OBJECT upcall;
	DAT_LMR_TRIPLET cbuf, sbuf, t;
	struct upc_rec *r;
	int i;

	p.ia = kdapl_test_open_ia(test, *name);
	p.sia = p.ia;
	p.pz = kdapl_test_pz(test, p.ia);
	p.spz = p.pz;
	p.conn = kdapl_test_evd(test, p.ia, 8, DAT_EVD_CONNECTION_FLAG);
	p.sconn = kdapl_test_evd(test, p.ia, 8, DAT_EVD_CONNECTION_FLAG);
	p.cr = kdapl_test_evd(test, p.ia, 8, DAT_EVD_CR_FLAG);
	p.qual = UPC_QUAL;
	r = upc_rec(test, p.ia, true, &upcall);
	creq = upc_evd(test, p.ia, DAT_EVD_DTO_FLAG, &upcall);
	crecv = upc_evd(test, p.ia, DAT_EVD_DTO_FLAG, NULL);
	srecv = upc_evd(test, p.ia, DAT_EVD_DTO_FLAG, NULL);
	p.cli = upc_ep(test, p.ia, p.pz, crecv, creq, p.conn);
	p.srv = upc_ep(test, p.ia, p.pz, srecv, srecv, p.sconn);
	r->lmr = upc_lmr(test, p.ia, p.pz, UPC_SENDS * UPC_MSG, &cbuf);
	upc_lmr(test, p.ia, p.pz, UPC_SENDS * UPC_MSG, &sbuf);
	upc_bh_objects(test, r, &p);

	for (i = 0; i < UPC_SENDS; i++) {
		t = sbuf;
		t.virtual_address += i * UPC_MSG;
		t.segment_length = UPC_MSG;
		KUNIT_ASSERT_EQ(test, dat_ep_post_recv(p.srv, 1, &t,
						       (DAT_DTO_COOKIE)(u64)i,
						       0),
				DAT_SUCCESS);
	}
	kdapl_test_connect(test, &p);

	r->action = UPC_BH_CALLS;
	r->trigger = DAT_DTO_COMPLETION_EVENT;
	r->ep = p.cli;
	r->want = UPC_SENDS;
	for (i = 0; i < UPC_SENDS; i++) {
		t = cbuf;
		t.virtual_address += i * UPC_MSG;
		t.segment_length = UPC_MSG;
		KUNIT_ASSERT_EQ(test, dat_ep_post_send(p.cli, 1, &t,
						       (DAT_DTO_COOKIE)(u64)i,
						       0),
				DAT_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(p.cli, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE_MSG(test, upc_wait(r),
			      "%u of %u completions", r->calls, UPC_SENDS);
	/* Each once, and nothing more. */
	msleep(200);
	KUNIT_EXPECT_EQ(test, r->calls, UPC_SENDS);
	KUNIT_EXPECT_EQ(test, r->cookies, GENMASK(UPC_SENDS - 1, 0));
	/* rxe fails what it takes from a queue in error with LOC_QP_OP. */
	KUNIT_EXPECT_EQ(test, r->statuses & ~(BIT(DAT_DTO_SUCCESS) |
					      BIT(DAT_DTO_ERR_FLUSHED) |
					      BIT(DAT_DTO_ERR_LOCAL_EP)), 0UL);
	upc_expect_clean(test, r);
	KUNIT_EXPECT_TRUE(test, r->acted);
	upc_bh_expect(test, r);
	KUNIT_EXPECT_EQ(test, dat_psp_free(r->psp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(p.cli), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(p.srv), DAT_SUCCESS);
}

/*
 * The peer disconnects: the server's connection EVD upcall, in process
 * context, frees its own EP, another EP of the IA and an EVD.
 */
static void upcall_disconnect_free_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_test_pair p = {};
	DAT_UPCALL_OBJECT upcall;
	DAT_EVD_HANDLE dto, sconn;
	struct upc_rec *r;
	int round;

	for (round = 0; round < 2; round++) {
		memset(&p, 0, sizeof(p));
		p.ia = kdapl_test_open_ia(test, *name);
		p.sia = p.ia;
		p.pz = kdapl_test_pz(test, p.ia);
		p.spz = p.pz;
		p.conn = kdapl_test_evd(test, p.ia, 8,
					DAT_EVD_CONNECTION_FLAG);
		p.cr = kdapl_test_evd(test, p.ia, 8, DAT_EVD_CR_FLAG);
		dto = kdapl_test_evd(test, p.ia, 64, DAT_EVD_DTO_FLAG);
		r = upc_rec(test, p.ia, false, &upcall);
		/* Set up, then armed once connected. */
		sconn = upc_evd(test, p.ia, DAT_EVD_CONNECTION_FLAG, NULL);
		p.sconn = sconn;
		p.qual = UPC_QUAL + 1 + round;
		p.cli = upc_ep(test, p.ia, p.pz, dto, dto, p.conn);
		p.srv = upc_ep(test, p.ia, p.pz, dto, dto, p.sconn);
		kdapl_test_connect(test, &p);

		r->action = UPC_FREE_EPS;
		r->trigger = DAT_CONNECTION_EVENT_DISCONNECTED;
		r->ep = p.srv;
		r->other_ep = upc_ep(test, p.ia, p.pz, dto, dto,
				     DAT_HANDLE_NULL);
		r->other_evd = kdapl_test_evd(test, p.ia, 4,
					      DAT_EVD_SOFTWARE_FLAG);
		KUNIT_ASSERT_EQ(test, dat_evd_modify_upcall(sconn,
							    DAT_UPCALL_SINGLE_INSTANCE,
							    &upcall),
				DAT_SUCCESS);
		/* Graceful the first round, a freed peer the second. */
		if (!round)
			KUNIT_EXPECT_EQ(test,
					dat_ep_disconnect(p.cli,
							  DAT_CLOSE_GRACEFUL_FLAG),
					DAT_SUCCESS);
		else
			KUNIT_EXPECT_EQ(test, dat_ep_free(p.cli), DAT_SUCCESS);
		KUNIT_ASSERT_TRUE_MSG(test, upc_wait(r),
				      "round %d: no DISCONNECTED upcall", round);
		upc_expect_clean(test, r);
		KUNIT_EXPECT_EQ(test, r->rets[0], DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, r->rets[1], DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, r->rets[2], DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, dat_ep_free(p.srv),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_EP));
		if (!round)
			KUNIT_EXPECT_EQ(test, dat_ep_free(p.cli), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(sconn,
							    DAT_UPCALL_TEARDOWN,
							    NULL),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, dat_ia_close(p.ia, DAT_CLOSE_ABRUPT_FLAG),
				DAT_SUCCESS);
	}
}

/*
 * Two IAs: the client's is closed abruptly with the connection up, and
 * the server's connection upcall closes its own IA from the DISCONNECTED
 * event that follows.
 */
static void upcall_ia_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_test_pair p = {};
	DAT_UPCALL_OBJECT upcall;
	DAT_EVD_HANDLE cdto, sdto;
	struct upc_rec *r;

	p.ia = kdapl_test_open_ia(test, *name);
	p.sia = kdapl_test_open_ia(test, *name);
	p.pz = kdapl_test_pz(test, p.ia);
	p.spz = kdapl_test_pz(test, p.sia);
	p.conn = kdapl_test_evd(test, p.ia, 8, DAT_EVD_CONNECTION_FLAG);
	p.sconn = kdapl_test_evd(test, p.sia, 8, DAT_EVD_CONNECTION_FLAG);
	p.cr = kdapl_test_evd(test, p.sia, 8, DAT_EVD_CR_FLAG);
	cdto = kdapl_test_evd(test, p.ia, 64, DAT_EVD_DTO_FLAG);
	sdto = kdapl_test_evd(test, p.sia, 64, DAT_EVD_DTO_FLAG);
	p.qual = UPC_QUAL + 3;
	p.cli = upc_ep(test, p.ia, p.pz, cdto, cdto, p.conn);
	p.srv = upc_ep(test, p.sia, p.spz, sdto, sdto, p.sconn);
	kdapl_test_connect(test, &p);

	r = upc_rec(test, p.sia, false, &upcall);
	r->action = UPC_CLOSE_IA;
	r->trigger = DAT_CONNECTION_EVENT_DISCONNECTED;
	KUNIT_ASSERT_EQ(test, dat_evd_modify_upcall(p.sconn,
						    DAT_UPCALL_SINGLE_INSTANCE,
						    &upcall),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(p.ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE_MSG(test, upc_wait(r),
			      "no DISCONNECTED upcall");
	upc_expect_clean(test, r);
	KUNIT_EXPECT_EQ(test, r->rets[0], DAT_SUCCESS);
	/* Everything of both IAs is gone. */
	KUNIT_EXPECT_EQ(test, dat_ep_free(p.srv),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_ia_close(p.sia, DAT_CLOSE_ABRUPT_FLAG),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
}

static void upc_post_se(struct kunit *test, DAT_EVD_HANDLE evd, u64 id)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };

	ev.event_data.software_event_data.pointer = (void *)(uintptr_t)id;
	KUNIT_ASSERT_EQ(test, dat_evd_post_se(evd, &ev), DAT_SUCCESS);
}

/*
 * Enabling upcalls with events queued delivers them from kdapl's work
 * queue, never from dat_evd_modify_upcall(), for every policy.
 */
static void upcall_modify_test(struct kunit *test)
{
	static const DAT_UPCALL_POLICY policies[] = {
		DAT_UPCALL_SINGLE_INSTANCE, DAT_UPCALL_MANY, DAT_UPCALL_NOTIFY,
	};
	const char *const *name = test->param_value;
	DAT_UPCALL_OBJECT upcall;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE evd;
	struct upc_rec *r;
	int i;

	ia = kdapl_test_open_ia(test, *name);
	for (i = 0; i < ARRAY_SIZE(policies); i++) {
		r = upc_rec(test, ia, false, &upcall);
		evd = kdapl_test_evd(test, ia, 8, DAT_EVD_SOFTWARE_FLAG);
		upc_post_se(test, evd, 1);
		upc_post_se(test, evd, 2);
		r->want = policies[i] == DAT_UPCALL_NOTIFY ? 1 : 2;
		KUNIT_ASSERT_EQ(test, dat_evd_modify_upcall(evd, policies[i],
							    &upcall),
				DAT_SUCCESS);
		KUNIT_ASSERT_TRUE_MSG(test, upc_wait(r),
				      "policy %d: %u upcalls", policies[i],
				      r->calls);
		upc_expect_clean(test, r);
		KUNIT_EXPECT_EQ(test, dat_evd_modify_upcall(evd,
							    DAT_UPCALL_TEARDOWN,
							    NULL),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
	}
}

/*
 * A receive posted on an EP that lost its connection completes as
 * flushed: its upcall runs with bottom halves disabled, from kdapl's work
 * queue, whatever the poster's context.
 */
static void upcall_recv_flush_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_UPCALL_OBJECT upcall;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto;
	DAT_LMR_TRIPLET t;
	DAT_EP_HANDLE ep;
	struct upc_rec *r;
	unsigned long flags;

	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	r = upc_rec(test, ia, true, &upcall);
	dto = upc_evd(test, ia, DAT_EVD_DTO_FLAG, &upcall);
	ep = upc_ep(test, ia, pz, dto, dto, DAT_HANDLE_NULL);
	upc_lmr(test, ia, pz, 256, &t);
	kdapl_test_set_ep_state(test, ep, DAT_EP_STATE_DISCONNECTED);
	r->want = 2;
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(ep, 1, &t,
					       (DAT_DTO_COOKIE)1ULL, 0),
			DAT_SUCCESS);
	/* With interrupts off too: the upcall still runs elsewhere. */
	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, dat_ep_post_recv(ep, 1, &t,
					       (DAT_DTO_COOKIE)2ULL, 0),
			DAT_SUCCESS);
	local_irq_restore(flags);
	KUNIT_ASSERT_TRUE_MSG(test, upc_wait(r),
			      "%u flushed completions", r->calls);
	upc_expect_clean(test, r);
	KUNIT_EXPECT_EQ(test, r->cookies, BIT(1) | BIT(2));
	KUNIT_EXPECT_EQ(test, r->statuses, BIT(DAT_DTO_ERR_FLUSHED));
	kdapl_test_set_ep_state(test, ep, DAT_EP_STATE_UNCONNECTED);
}

/**
 * struct upc_held - what a held connection upcall saw
 * @held: holds the first event until the test lets it go
 * @number: the event's number
 * @cm: the resolution a datagram EP's event names
 * @len: its private data's size
 * @copy: the start of its private data, as the upcall read it when let go
 */
struct upc_held {
	struct kdapl_test_held held;
	DAT_EVENT_NUMBER number;
	DAT_CONTEXT cm;
	DAT_COUNT len;
	u8 copy[16];
};

static void upc_held_func(DAT_PVOID data, const DAT_EVENT *ev,
			  DAT_BOOLEAN more)
{
	const DAT_CONNECTION_EVENT_DATA *c = &ev->event_data.connect_event_data;
	const DAT_IB_EXTENSION_EVENT_DATA *x =
		(const void *)ev->event_extension_data;
	struct upc_held *h = data;

	/* What the test looks at before it lets the upcall go. */
	if (completion_done(&h->held.entered))
		return;
	h->number = ev->event_number;
	h->cm = x->context;
	if (!kdapl_test_held_enter(&h->held))
		return;
	h->len = c->private_data_size;
	if (c->private_data && h->len > 0)
		memcpy(h->copy, c->private_data,
		       min_t(size_t, h->len, sizeof(h->copy)));
	kdapl_test_held_leave(&h->held);
}

/* A held upcall, and the connection EVD whose upcall it is. */
static DAT_EVD_HANDLE upc_held_evd(struct kunit *test, DAT_IA_HANDLE ia,
				   struct upc_held **hp)
{
	DAT_UPCALL_OBJECT upcall;
	struct upc_held *h;

	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	kdapl_test_held_init(test, &h->held);
	upcall.instance_data = h;
	upcall.upcall_func = upc_held_func;
	*hp = h;
	return upc_evd(test, ia, DAT_EVD_CONNECTION_FLAG, &upcall);
}

/* Connect @ep to @qual of @sin; the request that reaches @cr_evd. */
static DAT_CR_HANDLE upc_held_request(struct kunit *test, DAT_EP_HANDLE ep,
				      struct sockaddr_in *sin,
				      DAT_CONN_QUAL qual,
				      DAT_EVD_HANDLE cr_evd)
{
	DAT_EVENT ev;

	KUNIT_ASSERT_EQ(test, dat_ep_connect(ep, (struct sockaddr *)sin, qual,
					     DAT_TIMEOUT_INFINITE, 0, NULL,
					     DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(cr_evd, &ev,
						KDAPL_TEST_WAIT_MS));
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

/*
 * Let the held upcall read its event, and check the private data it
 * read: @len bytes of @pd first (an InfiniBand reject carries 148 bytes,
 * the sender's first).
 */
static void upc_held_check(struct kunit *test, struct upc_held *h,
			   const u8 *pd, size_t len)
{
	complete_all(&h->held.go);
	KUNIT_ASSERT_TRUE(test, kdapl_test_held_wait(&h->held.left));
	KUNIT_EXPECT_GE(test, h->len, (DAT_COUNT)len);
	KUNIT_EXPECT_EQ(test, memcmp(h->copy, pd, len), 0);
}

/* Free @ep, unless it is NULL, and @conn, its connection EVD. */
static void upc_held_free(struct kunit *test, DAT_EP_HANDLE ep,
			  DAT_EVD_HANDLE conn)
{
	if (ep)
		KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(conn), DAT_SUCCESS);
}

/*
 * The private data of a connection event stays readable for the upcall
 * that was handed the event, even when the EP is reset (the first round)
 * or freed (the second) while the upcall runs: a file's sink copies it
 * to the process's ring from the EVD's work, after the EP's owner may
 * have done either.
 */
static void upcall_pdata_held_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	static const u8 pd[8] = "kdapl-pd";
	DAT_EVD_HANDLE cr_evd, conn, dto;
	struct sockaddr_in sin;
	struct upc_held *h;
	DAT_PSP_HANDLE psp;
	DAT_PZ_HANDLE pz;
	DAT_IA_HANDLE ia;
	DAT_EP_HANDLE ep;
	DAT_CR_HANDLE cr;
	int round;

	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	kdapl_test_ia_addr(test, ia, &sin);
	cr_evd = kdapl_test_evd(test, ia, 8, DAT_EVD_CR_FLAG);
	dto = kdapl_test_evd(test, ia, 8, DAT_EVD_DTO_FLAG);
	KUNIT_ASSERT_EQ(test, dat_psp_create(ia, UPC_QUAL + 8, cr_evd,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	for (round = 0; round < 2; round++) {
		conn = upc_held_evd(test, ia, &h);
		ep = upc_ep(test, ia, pz, dto, dto, conn);
		cr = upc_held_request(test, ep, &sin, UPC_QUAL + 8, cr_evd);
		KUNIT_ASSERT_EQ(test,
				dat_cr_reject(cr, sizeof(pd), (DAT_PVOID)pd),
				DAT_SUCCESS);
		KUNIT_ASSERT_TRUE(test, kdapl_test_held_wait(&h->held.entered));
		KUNIT_EXPECT_EQ(test, h->number,
				DAT_CONNECTION_EVENT_PEER_REJECTED);
		if (!round)
			KUNIT_EXPECT_EQ(test, dat_ep_reset(ep), DAT_SUCCESS);
		else
			KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
		upc_held_check(test, h, pd, sizeof(pd));
		upc_held_free(test, round ? NULL : ep, conn);
	}
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
}

/*
 * The same for a datagram EP: the private data of the peer's answer
 * stays readable for the upcall handed the resolution's event while the
 * resolution is freed (the first round) or its EP (the second).
 */
static void upcall_ud_pdata_held_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	static const u8 pd[8] = "kdapl-ud";
	DAT_EVD_HANDLE cr_evd, conn, sconn, dto;
	DAT_EP_PARAM *param;
	DAT_EP_ATTR attr;
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep, srv;
	struct upc_held *h;
	DAT_PSP_HANDLE psp;
	DAT_PZ_HANDLE pz;
	DAT_IA_HANDLE ia;
	DAT_CR_HANDLE cr;
	int round;

	ia = kdapl_test_open_ia(test, *name);
	if (kdapl_test_iwarp(test))
		kunit_skip(test, "no datagrams on iWARP");
	pz = kdapl_test_pz(test, ia);
	kdapl_test_ia_addr(test, ia, &sin);
	cr_evd = kdapl_test_evd(test, ia, 8, DAT_EVD_CR_FLAG);
	sconn = kdapl_test_evd(test, ia, 8, DAT_EVD_CONNECTION_FLAG);
	dto = kdapl_test_evd(test, ia, 8, DAT_EVD_DTO_FLAG);
	/* The default attributes, but for the service type. */
	param = kunit_kzalloc(test, sizeof(*param), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, param);
	srv = upc_ep(test, ia, pz, dto, dto, DAT_HANDLE_NULL);
	KUNIT_ASSERT_EQ(test, dat_ep_query(srv, DAT_EP_FIELD_ALL, param),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_free(srv), DAT_SUCCESS);
	attr = param->ep_attr;
	attr.service_type = DAT_IB_SERVICE_TYPE_UD;
	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, dto, dto, sconn, &attr,
					    &srv),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_psp_create(ia, UPC_QUAL + 10, cr_evd,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	for (round = 0; round < 2; round++) {
		conn = upc_held_evd(test, ia, &h);
		KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, dto, dto, conn,
						    &attr, &ep),
				DAT_SUCCESS);
		cr = upc_held_request(test, ep, &sin, UPC_QUAL + 10, cr_evd);
		KUNIT_ASSERT_EQ(test,
				dat_cr_accept(cr, srv, sizeof(pd), (DAT_PVOID)pd),
				DAT_SUCCESS);
		KUNIT_ASSERT_TRUE(test, kdapl_test_held_wait(&h->held.entered));
		KUNIT_EXPECT_EQ(test, (u32)h->number,
				(u32)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
		if (!round)
			KUNIT_EXPECT_EQ(test, dat_ib_ud_cm_free(ep, h->cm),
					DAT_SUCCESS);
		else
			KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
		upc_held_check(test, h, pd, sizeof(pd));
		upc_held_free(test, round ? NULL : ep, conn);
	}
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
}

static struct kunit_case kdapl_upcall_cases[] = {
	KUNIT_CASE_PARAM(upcall_flush_context_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upcall_disconnect_free_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upcall_ia_close_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upcall_modify_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upcall_recv_flush_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upcall_pdata_held_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(upcall_ud_pdata_held_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_upcall_suite = {
	.name = "kdapl_upcall",
	.test_cases = kdapl_upcall_cases,
};

kunit_test_suite(kdapl_upcall_suite);
