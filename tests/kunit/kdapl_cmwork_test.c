// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the rdma_cm handlers of kdapl, which run on ib_cm's
 * and iw_cm's work queues, shared by every connection manager user of
 * the machine: they never wait.  While a kDAT connection waits for the
 * registration of an LMR (held back through kdapl_dto_test_hooks.reg), an
 * unrelated connection made with raw rdma_cm completes; the receive
 * posted into that LMR reaches the device only once it is registered,
 * so a peer that sends first waits (RNR on RoCE) instead of hitting an
 * unknown key.  A peer that disconnects while that work waits leaves
 * the consumer ESTABLISHED, then DISCONNECTED; a work that fails,
 * ESTABLISHED, then BROKEN.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <rdma/rdma_cm.h>

#include "kdapl_test_util.h"

/* Qualifiers no other suite listens on. */
#define CMW_QUAL		47400
#define CMW_RAW_PORT		47410

/* How long the raw connection may take while kDAT waits. */
#define CMW_RAW_MS		5000

/**
 * struct cmw_hold - registrations held back
 * @armed: hold the registrations of kdapl's work items
 * @held: registrations waiting now
 * @release: lets them go
 * @err: what the registrations released return (0, or a negative errno
 *	that fails them)
 */
static struct cmw_hold {
	bool armed;
	atomic_t held;
	struct completion release;
	int err;
} cmw_hold;

/*
 * Hold a registration made by a work item of kdapl (the connection's
 * work after ESTABLISHED), not one of the test's own thread.
 */
static int cmw_reg_hook(void)
{
	if (!READ_ONCE(cmw_hold.armed) || !(current->flags & PF_WQ_WORKER))
		return 0;
	atomic_inc(&cmw_hold.held);
	wait_for_completion_timeout(&cmw_hold.release, 30 * HZ);
	atomic_dec(&cmw_hold.held);
	return READ_ONCE(cmw_hold.err);
}

/**
 * struct cmw_raw - a connection made with rdma_cm alone
 * @listen: the listening identifier
 * @cli: the active side
 * @srv: the passive side, from the connection request
 * @pd: protection domain of both QPs
 * @cq: their CQ (no work request is ever posted)
 * @cli_up: @cli is established
 * @srv_up: @srv is established
 * @err: first error of a handler
 */
struct cmw_raw {
	struct rdma_cm_id *listen, *cli, *srv;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct completion cli_up, srv_up;
	int err;
};

static int cmw_raw_qp(struct cmw_raw *r, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr init = {
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return rdma_create_qp(id, r->pd, &init);
}

static int cmw_raw_event(struct cmw_raw *r, struct rdma_cm_id *id,
			 struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	int err;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		return rdma_resolve_route(id, 2000);
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		err = cmw_raw_qp(r, id);
		return err ?: rdma_connect_locked(id, &param);
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		r->srv = id;
		err = cmw_raw_qp(r, id);
		return err ?: rdma_accept(id, &param);
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(id == r->cli ? &r->cli_up : &r->srv_up);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		return ev->status ?: -EIO;
	}
}

static int cmw_raw_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cmw_raw *r = id->context;
	int err = cmw_raw_event(r, id, ev);

	if (err && !r->err)
		r->err = err;
	/* Never let rdma_cm destroy an identifier: the test does. */
	return 0;
}

/* The raw connection of the running case, stopped by cmw_exit(). */
static struct cmw_raw *cmw_raw_live;

/* Listen on @sin's address and connect to it, without waiting. */
static void cmw_raw_start(struct kunit *test, struct cmw_raw *r,
			  struct sockaddr_in *sin)
{
	struct sockaddr_in addr = *sin;

	cmw_raw_live = r;
	init_completion(&r->cli_up);
	init_completion(&r->srv_up);
	addr.sin_port = htons(CMW_RAW_PORT);
	r->listen = rdma_create_id(&init_net, cmw_raw_handler, r, RDMA_PS_TCP,
				   IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->listen));
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(r->listen,
					     (struct sockaddr *)&addr), 0);
	KUNIT_ASSERT_NOT_NULL(test, r->listen->device);
	r->pd = ib_alloc_pd(r->listen->device, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->pd));
	r->cq = ib_alloc_cq(r->listen->device, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->cq));
	KUNIT_ASSERT_EQ(test, rdma_listen(r->listen, 4), 0);
	r->cli = rdma_create_id(&init_net, cmw_raw_handler, r, RDMA_PS_TCP,
				IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->cli));
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(r->cli, NULL,
						(struct sockaddr *)&addr,
						2000),
			0);
}

static void cmw_raw_stop(struct cmw_raw *r)
{
	struct rdma_cm_id *ids[] = { r->cli, r->srv, r->listen };
	int i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		if (IS_ERR_OR_NULL(ids[i]))
			continue;
		if (ids[i]->qp) {
			rdma_disconnect(ids[i]);
			rdma_destroy_qp(ids[i]);
		}
		rdma_destroy_id(ids[i]);
	}
	if (!IS_ERR_OR_NULL(r->cq))
		ib_free_cq(r->cq);
	if (!IS_ERR_OR_NULL(r->pd))
		ib_dealloc_pd(r->pd);
}

/*
 * Two pages, the second not right after the first: an LMR of two DMA
 * ranges.  Of three distinct pages, two always make such a pair.  The
 * pages outlive the IA (see kdapl_test_pages()), opened later.
 */
static void cmw_split_pages(struct kunit *test, struct page **pages)
{
	struct page *p[3];
	int i, j;

	for (i = 0; i < 3; i++)
		p[i] = kdapl_test_pages(test, 0);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++) {
			if (i != j &&
			    page_to_pfn(p[j]) != page_to_pfn(p[i]) + 1) {
				pages[0] = p[i];
				pages[1] = p[j];
				return;
			}
		}
	}
	KUNIT_FAIL(test, "no two pages apart");
}

static void cmw_split_lmr(struct kunit *test, DAT_IA_HANDLE ia,
			  DAT_PZ_HANDLE pz, struct page **pages,
			  DAT_LMR_CONTEXT *ctx, DAT_VADDR *addr)
{
	DAT_PADDR *pas = kunit_kcalloc(test, 2, sizeof(*pas), GFP_KERNEL);
	DAT_REGION_DESCRIPTION r = { .for_physical = pas };
	DAT_LMR_HANDLE lmr;

	KUNIT_ASSERT_NOT_NULL(test, pas);
	pas[0] = page_to_phys(pages[0]);
	pas[1] = page_to_phys(pages[1]);
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_PHYSICAL, r,
					      2 * PAGE_SIZE, pz,
					      DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE, &lmr,
					      ctx, NULL, NULL, addr),
			DAT_SUCCESS);
}

/* The client EP on @dto (for both queues), the server's on @sdto. */
static void cmw_eps(struct kunit *test, struct kdapl_test_pair *p,
		    DAT_EVD_HANDLE dto, DAT_EVD_HANDLE sdto)
{
	KUNIT_ASSERT_EQ(test, dat_ep_create(p->ia, p->pz, dto, dto, p->conn,
					    NULL, &p->cli),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create(p->ia, p->spz, sdto, sdto,
					    p->sconn, NULL, &p->srv),
			DAT_SUCCESS);
}

/*
 * Connect @p->cli to @p->srv through a PSP (*@psp) with the server's
 * registrations held: the server's connection work waits in its
 * registration.  On RoCE the client is established meanwhile.  On iWARP
 * it is not: its ESTABLISHED waits for the server's answer in the
 * initiator-first exchange, which follows the server's own ESTABLISHED,
 * so it stays ACTIVE_CONNECTION_PENDING.  *@sin is the address; the
 * client's connect timeout is @timeout.
 */
static void cmw_connect_held(struct kunit *test, struct kdapl_test_pair *p,
			     struct sockaddr_in *sin, DAT_PSP_HANDLE *psp,
			     DAT_TIMEOUT timeout)
{
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	int i;

	init_completion(&cmw_hold.release);
	atomic_set(&cmw_hold.held, 0);
	WRITE_ONCE(cmw_hold.err, 0);
	WRITE_ONCE(cmw_hold.armed, true);
	WRITE_ONCE(kdapl_dto_test_hooks.reg, cmw_reg_hook);

	kdapl_test_ia_addr(test, p->ia, sin);
	KUNIT_ASSERT_EQ(test, dat_psp_create(p->ia, p->qual, p->cr,
					     DAT_PSP_CONSUMER_FLAG, psp),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_connect(p->cli, (struct sockaddr *)sin,
					     p->qual, timeout, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(p->cr, &ev,
						KDAPL_TEST_WAIT_MS));
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	KUNIT_ASSERT_EQ(test, dat_cr_accept(cr, p->srv, 0, NULL), DAT_SUCCESS);
	if (!kdapl_test_iwarp(test))
		kdapl_test_expect_conn(test, p->conn, p->cli,
				       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	for (i = 0; i < 500 && !atomic_read(&cmw_hold.held); i++)
		msleep(20);
	KUNIT_ASSERT_EQ(test, atomic_read(&cmw_hold.held), 1);
	if (kdapl_test_iwarp(test)) {
		/* Time for an answer that must not come. */
		msleep(200);
		KUNIT_EXPECT_EQ(test, dat_evd_dequeue(p->conn, &ev),
				KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
		KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, p->cli),
				DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	}
}

/*
 * The server's registration waits in its connection's work item: the
 * server is not established yet (nor, on iWARP, the client), and a raw
 * rdma_cm connection completes meanwhile.  On RoCE the client sends at once;
 * the message waits (RNR) until the receive held for the registration
 * reaches the device, and lands there.  The accepted EP is in
 * COMPLETION_PENDING until then.
 */
static void cmw_slow_reg_test(struct kunit *test)
{
	struct kdapl_test_pair p;
	DAT_LMR_CONTEXT sctx, cctx;
	DAT_EVD_HANDLE dto, sdto;
	struct sockaddr_in sin;
	DAT_LMR_TRIPLET t, c;
	struct page *pages[2];
	DAT_VADDR saddr;
	struct cmw_raw *r;
	DAT_LMR_HANDLE clmr;
	unsigned long tmo = msecs_to_jiffies(CMW_RAW_MS);
	DAT_EP_PARAM epp;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;
	bool iwarp;
	u8 *msg;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	cmw_split_pages(test, pages);
	kdapl_test_pair_init(test, &p, CMW_QUAL);
	iwarp = kdapl_test_iwarp(test);
	dto = kdapl_test_evd(test, p.ia, 16, DAT_EVD_DTO_FLAG);
	sdto = kdapl_test_evd(test, p.ia, 16, DAT_EVD_DTO_FLAG);
	cmw_eps(test, &p, dto, sdto);
	cmw_split_lmr(test, p.ia, p.spz, pages, &sctx, &saddr);
	/* The message straddles the two ranges. */
	t = (DAT_LMR_TRIPLET) { .lmr_context = sctx, .segment_length = 64,
				.virtual_address = saddr + PAGE_SIZE - 32 };
	KUNIT_ASSERT_EQ(test, dat_ep_post_recv(p.srv, 1, &t,
					       (DAT_DTO_COOKIE)1ULL, 0),
			DAT_SUCCESS);

	cmw_connect_held(test, &p, &sin, &psp, DAT_TIMEOUT_INFINITE);
	/*
	 * Accepted, its QP completing on its EVDs: COMPLETION_PENDING,
	 * where they cannot change.
	 */
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, p.srv),
			DAT_EP_STATE_COMPLETION_PENDING);
	epp.recv_evd_handle = dto;
	KUNIT_EXPECT_EQ(test, dat_ep_modify(p.srv,
					    DAT_EP_FIELD_RECV_EVD_HANDLE,
					    &epp),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_COMPLPENDING));

	cmw_raw_start(test, r, &sin);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&r->cli_up, tmo));
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&r->srv_up, tmo));
	KUNIT_EXPECT_EQ(test, r->err, 0);
	/* kDAT's server is still waiting for its registration. */
	KUNIT_EXPECT_EQ(test, atomic_read(&cmw_hold.held), 1);
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(p.sconn, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, 0));

	if (!iwarp) {
		msg = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, msg);
		memset(msg, 0x3c, PAGE_SIZE);
		KUNIT_ASSERT_EQ(test,
				dat_lmr_kcreate(p.ia, DAT_MEM_TYPE_VIRTUAL,
						(DAT_REGION_DESCRIPTION)
						{ .for_va = msg }, PAGE_SIZE,
						p.pz, DAT_MEM_PRIV_LOCAL_READ_FLAG,
						DAT_VA_TYPE_VA,
						DAT_MEM_OPTIMIZE_DONT_CARE,
						&clmr,
						&cctx, NULL, NULL, NULL),
				DAT_SUCCESS);
		c = (DAT_LMR_TRIPLET) { .lmr_context = cctx,
					.segment_length = 64,
					.virtual_address = (uintptr_t)msg };
		KUNIT_ASSERT_EQ(test, dat_ep_post_send(p.cli, 1, &c,
						       (DAT_DTO_COOKIE)2ULL,
						       0),
				DAT_SUCCESS);
		msleep(200);
	}

	complete_all(&cmw_hold.release);
	if (iwarp) {
		/*
		 * The client hears ESTABLISHED only after the server's
		 * consumer could: a client that disconnects once it is
		 * established finds every server EP established (dtestcm's
		 * server counts on that).
		 */
		kdapl_test_expect_conn(test, p.conn, p.cli,
				       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
		KUNIT_EXPECT_EQ(test, dat_evd_dequeue(p.sconn, &ev),
				DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, ev.event_number,
				DAT_CONNECTION_EVENT_ESTABLISHED);
		KUNIT_EXPECT_PTR_EQ(test,
				    ev.event_data.connect_event_data.ep_handle,
				    p.srv);
	} else {
		kdapl_test_expect_conn(test, p.sconn, p.srv,
				       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	}
	WRITE_ONCE(cmw_hold.armed, false);
	WRITE_ONCE(kdapl_dto_test_hooks.reg, NULL);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);

	if (!iwarp) {
		DAT_DTO_COMPLETION_EVENT_DATA *d =
			&ev.event_data.dto_completion_event_data;

		KUNIT_ASSERT_TRUE(test, kdapl_test_wait(dto, &ev,
							KDAPL_TEST_WAIT_MS));
		KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, 2);
		KUNIT_EXPECT_EQ(test, d->status, DAT_DTO_SUCCESS);
		KUNIT_ASSERT_TRUE(test, kdapl_test_wait(sdto, &ev,
							KDAPL_TEST_WAIT_MS));
		KUNIT_EXPECT_EQ(test, d->user_cookie.as_64, 1);
		KUNIT_EXPECT_EQ(test, d->status, DAT_DTO_SUCCESS);
		KUNIT_EXPECT_EQ(test, d->transfered_length, 64);
		KUNIT_EXPECT_EQ(test, memcmp(page_address(pages[0]) +
					     PAGE_SIZE - 32, msg, 32), 0);
		KUNIT_EXPECT_EQ(test, memcmp(page_address(pages[1]), msg, 32),
				0);
	}
}

/*
 * A pair on @qual, connected with cmw_connect_held() through *@psp and a
 * connect timeout of @timeout: the server's PZ has an LMR its connection
 * work must register.
 */
static void cmw_held_pair(struct kunit *test, struct kdapl_test_pair *p,
			  DAT_CONN_QUAL qual, DAT_PSP_HANDLE *psp,
			  DAT_TIMEOUT timeout)
{
	struct sockaddr_in sin;
	struct page *pages[2];
	DAT_LMR_CONTEXT sctx;
	DAT_VADDR saddr;

	cmw_split_pages(test, pages);
	kdapl_test_pair_init(test, p, qual);
	cmw_eps(test, p, NULL, NULL);
	cmw_split_lmr(test, p->ia, p->spz, pages, &sctx, &saddr);
	cmw_connect_held(test, p, &sin, psp, timeout);
}

/* Let the held work go, unhook it, and free what cmw_held_pair() made. */
static void cmw_held_pair_free(struct kunit *test, struct kdapl_test_pair *p,
			       DAT_PSP_HANDLE psp)
{
	complete_all(&cmw_hold.release);
	WRITE_ONCE(cmw_hold.armed, false);
	WRITE_ONCE(kdapl_dto_test_hooks.reg, NULL);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(p->srv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(p->cli), DAT_SUCCESS);
}

/*
 * The client disconnects while the server's connection work waits for
 * its registration: rdma_cm reported ESTABLISHED on the server, whose
 * consumer has not heard it yet.  The connection was made, so the
 * consumer hears ESTABLISHED and then DISCONNECTED, never DISCONNECTED
 * alone (a consumer that counts one ESTABLISHED per accept, as dtestcm
 * does, would wait forever for the last disconnections).
 */
static void cmw_peer_disc_test(struct kunit *test)
{
	struct kdapl_test_pair p;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;

	cmw_held_pair(test, &p, CMW_QUAL + 1, &psp, DAT_TIMEOUT_INFINITE);
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(p.sconn, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, 0));

	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(p.cli, DAT_CLOSE_GRACEFUL_FLAG),
			DAT_SUCCESS);
	/* Both events while the registration is still held. */
	kdapl_test_expect_conn(test, p.sconn, p.srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	kdapl_test_expect_conn(test, p.sconn, p.srv,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmw_hold.held), 1);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, p.srv),
			DAT_EP_STATE_DISCONNECTED);
	kdapl_test_expect_conn(test, p.conn, p.cli,
			       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);

	complete_all(&cmw_hold.release);
	WRITE_ONCE(cmw_hold.armed, false);
	WRITE_ONCE(kdapl_dto_test_hooks.reg, NULL);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	/* Nothing else is reported once the work item finishes. */
	msleep(100);
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(p.sconn, &ev),
			KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
	KUNIT_EXPECT_EQ(test, dat_ep_free(p.srv), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(p.cli), DAT_SUCCESS);
}

/*
 * The server's consumer hears ESTABLISHED, then BROKEN, and its EP is
 * DISCONNECTED; then the pair is freed.
 */
static void cmw_expect_made_broken(struct kunit *test,
				   struct kdapl_test_pair *p,
				   DAT_PSP_HANDLE psp)
{
	kdapl_test_expect_conn(test, p->sconn, p->srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	kdapl_test_expect_conn(test, p->sconn, p->srv,
			       DAT_CONNECTION_EVENT_BROKEN, NULL);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, p->srv),
			DAT_EP_STATE_DISCONNECTED);
	cmw_held_pair_free(test, p, psp);
}

/*
 * The server's connection work fails (its registration does, as when
 * siw flushes the QP of a connection its peer closed before iw_cm says
 * DISCONNECTED): the connection was made, so the consumer hears
 * ESTABLISHED, then BROKEN, never BROKEN alone.
 */
static void cmw_rts_fail_test(struct kunit *test)
{
	struct kdapl_test_pair p;
	DAT_PSP_HANDLE psp;

	cmw_held_pair(test, &p, CMW_QUAL + 2, &psp, DAT_TIMEOUT_INFINITE);
	WRITE_ONCE(cmw_hold.err, -EIO);
	complete_all(&cmw_hold.release);
	cmw_expect_made_broken(test, &p, psp);
}

/*
 * A fatal event of the server's QP while its connection work waits for
 * the registration: the connection was made, so the consumer hears
 * ESTABLISHED, then BROKEN, never BROKEN alone.
 */
static void cmw_qp_fatal_test(struct kunit *test)
{
	struct kdapl_test_pair p;
	DAT_PSP_HANDLE psp;
	struct kdapl_ep *e;

	cmw_held_pair(test, &p, CMW_QUAL + 3, &psp, DAT_TIMEOUT_INFINITE);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, p.srv, EP,
					DAT_INVALID_HANDLE_EP, &e),
			DAT_SUCCESS);
	/* As the QP's IB_EVENT_QP_FATAL does. */
	kdapl_cm_qp_broken(e, READ_ONCE(e->qp));
	kdapl_object_put(&e->obj);
	cmw_expect_made_broken(test, &p, psp);
}

/* The client's connect timeout in cmw_answer_timeout_test(). */
#define CMW_TIMEOUT_MS		2000

/*
 * A connect timeout covers the whole establishment.  On iWARP the client
 * waits for the server's answer, which the held registration keeps back:
 * when its timeout expires it ends with TIMED_OUT, and the server, whose
 * connection was made, hears ESTABLISHED and then the end of it.  On
 * RoCE the client is established first, and the timeout ends nothing.
 */
static void cmw_answer_timeout_test(struct kunit *test)
{
	struct kdapl_test_pair p;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;

	cmw_held_pair(test, &p, CMW_QUAL + 5, &psp,
		      CMW_TIMEOUT_MS * USEC_PER_MSEC);
	if (!kdapl_test_iwarp(test)) {
		msleep(CMW_TIMEOUT_MS + 500);
		KUNIT_EXPECT_EQ(test, dat_evd_dequeue(p.conn, &ev),
				KDAPL_ERR(DAT_QUEUE_EMPTY, 0));
		KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, p.cli),
				DAT_EP_STATE_CONNECTED);
		cmw_held_pair_free(test, &p, psp);
		return;
	}
	kdapl_test_expect_conn(test, p.conn, p.cli,
			       DAT_CONNECTION_EVENT_TIMED_OUT, NULL);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, p.cli),
			DAT_EP_STATE_DISCONNECTED);
	kdapl_test_expect_conn(test, p.sconn, p.srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	KUNIT_ASSERT_TRUE(test, kdapl_test_wait(p.sconn, &ev,
						KDAPL_TEST_WAIT_MS));
	KUNIT_EXPECT_TRUE(test,
			  ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
			  ev.event_number == DAT_CONNECTION_EVENT_BROKEN);
	cmw_held_pair_free(test, &p, psp);
}

/* Breaks an EP from a work item: the break waits for the held work. */
struct cmw_break {
	struct work_struct work;
	struct kdapl_ep *ep;
	struct completion done;
};

static void cmw_break_work(struct work_struct *work)
{
	struct cmw_break *b = container_of(work, struct cmw_break, work);
	struct kdapl_ia *ia = b->ep->obj.ia;

	mutex_lock(&ia->lock);
	kdapl_cm_ep_break(b->ep);
	mutex_unlock(&ia->lock);
	complete(&b->done);
}

/*
 * kdapl breaks the server's EP (as the device's removal or dat_lmr_free()
 * of an LMR its work requests use do) while its connection work waits
 * for the registration: the connection was made, so the consumer hears
 * ESTABLISHED, then BROKEN, never BROKEN alone.  The break returns once
 * the work has finished.
 */
static void cmw_ep_break_test(struct kunit *test)
{
	struct kdapl_test_pair p;
	DAT_PSP_HANDLE psp;
	struct cmw_break *b;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	cmw_held_pair(test, &p, CMW_QUAL + 4, &psp, DAT_TIMEOUT_INFINITE);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, p.srv, EP,
					DAT_INVALID_HANDLE_EP, &b->ep),
			DAT_SUCCESS);
	init_completion(&b->done);
	INIT_WORK(&b->work, cmw_break_work);
	schedule_work(&b->work);
	kdapl_test_expect_conn(test, p.sconn, p.srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	kdapl_test_expect_conn(test, p.sconn, p.srv,
			       DAT_CONNECTION_EVENT_BROKEN, NULL);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, p.srv),
			DAT_EP_STATE_DISCONNECTED);
	complete_all(&cmw_hold.release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&b->done,
							    30 * HZ));
	kdapl_object_put(&b->ep->obj);
	cmw_held_pair_free(test, &p, psp);
}

static void cmw_exit(struct kunit *test)
{
	if (cmw_raw_live)
		cmw_raw_stop(cmw_raw_live);
	cmw_raw_live = NULL;
	WRITE_ONCE(cmw_hold.armed, false);
	WRITE_ONCE(kdapl_dto_test_hooks.reg, NULL);
	complete_all(&cmw_hold.release);
}

static struct kunit_case kdapl_cmwork_test_cases[] = {
	KUNIT_CASE_PARAM(cmw_slow_reg_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(cmw_peer_disc_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(cmw_rts_fail_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(cmw_qp_fatal_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(cmw_ep_break_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(cmw_answer_timeout_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_cmwork_test_suite = {
	.name = "kdapl_cmwork",
	.exit = cmw_exit,
	.test_cases = kdapl_cmwork_test_cases,
};

kunit_test_suite(kdapl_cmwork_test_suite);
