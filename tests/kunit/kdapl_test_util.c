// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the KUnit suites of kdapl.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/resource.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/mm.h>

#include "kdapl_test_util.h"
#include "kdapl_user.h"

const char *const kdapl_test_adapters[KDAPL_TEST_NR_ADAPTERS] = {
	KDAPL_TEST_ROCE,
	KDAPL_TEST_IWARP,
};

const void *kdapl_test_adapter_gen(const void *prev, char *desc)
{
	const char *const *next;

	next = prev ? (const char *const *)prev + 1 : kdapl_test_adapters;
	if (next >= kdapl_test_adapters + KDAPL_TEST_NR_ADAPTERS)
		return NULL;
	strscpy(desc, *next, KUNIT_PARAM_DESC_SIZE);
	return next;
}

static int kdapl_test_hold_ia(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void kdapl_test_close_ia(struct kunit_resource *res)
{
	DAT_IA_HANDLE ia = res->data;

	/* Already closed by the test itself is fine. */
	dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
}

DAT_IA_HANDLE kdapl_test_open_ia(struct kunit *test, const char *name)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	struct kdapl_adapter *adapter;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	adapter = kdapl_adapter_get(name);
	if (!adapter)
		kunit_skip(test, "no adapter %s", name);
	kdapl_adapter_put(adapter);

	ret = dat_ia_open(name, 8, &async, &ia);
	KUNIT_ASSERT_EQ(test, ret, DAT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, ia);
	KUNIT_ASSERT_NOT_NULL(test, async);
	kunit_alloc_resource(test, kdapl_test_hold_ia, kdapl_test_close_ia, GFP_KERNEL, ia);
	return ia;
}

DAT_PZ_HANDLE kdapl_test_pz(struct kunit *test, DAT_IA_HANDLE ia)
{
	DAT_PZ_HANDLE pz;

	KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz), DAT_SUCCESS);
	return pz;
}

DAT_LMR_HANDLE kdapl_test_lmr(struct kunit *test, DAT_IA_HANDLE ia,
			      DAT_PZ_HANDLE pz, void *buf, DAT_VLEN len,
			      DAT_MEM_PRIV_FLAGS priv, DAT_LMR_CONTEXT *ctx,
			      DAT_RMR_CONTEXT *rctx)
{
	DAT_REGION_DESCRIPTION r = { .for_va = buf };
	DAT_LMR_HANDLE lmr;

	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, len,
					      pz, priv, DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE, &lmr,
					      ctx, rctx, NULL, NULL),
			DAT_SUCCESS);
	return lmr;
}

DAT_EVD_HANDLE kdapl_test_evd(struct kunit *test, DAT_IA_HANDLE ia,
			      DAT_COUNT qlen, DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd;

	KUNIT_ASSERT_EQ(test, dat_evd_kcreate(ia, qlen, DAT_UPCALL_DISABLE,
					      NULL, flags, &evd),
			DAT_SUCCESS);
	return evd;
}

DAT_EP_STATE kdapl_test_ep_state(struct kunit *test, DAT_EP_HANDLE ep)
{
	DAT_EP_STATE state = -1;

	KUNIT_EXPECT_EQ(test, dat_ep_get_status(ep, &state, NULL, NULL),
			DAT_SUCCESS);
	return state;
}

void kdapl_test_set_ep_state(struct kunit *test, DAT_EP_HANDLE ep,
			     DAT_EP_STATE state)
{
	struct kdapl_ep *e;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, ep, EP, DAT_INVALID_HANDLE_EP, &e),
			DAT_SUCCESS);
	kdapl_ep_set_state(e, state);
	kdapl_object_put(&e->obj);
}

bool kdapl_test_wait(DAT_EVD_HANDLE evd, DAT_EVENT *event, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	do {
		if (dat_evd_dequeue(evd, event) == DAT_SUCCESS)
			return true;
		usleep_range(2000, 5000);
	} while (time_before(jiffies, end));
	return dat_evd_dequeue(evd, event) == DAT_SUCCESS;
}

void kdapl_test_expect_conn(struct kunit *test, DAT_EVD_HANDLE evd,
			    DAT_EP_HANDLE ep, DAT_EVENT_NUMBER number,
			    DAT_EVENT *event)
{
	DAT_EVENT ev;

	if (!event)
		event = &ev;
	memset(event, 0, sizeof(*event));
	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(evd, event,
						    KDAPL_TEST_WAIT_MS),
			      "no event 0x%x", number);
	KUNIT_EXPECT_EQ(test, event->event_number, number);
	KUNIT_EXPECT_PTR_EQ(test, event->evd_handle, evd);
	KUNIT_EXPECT_PTR_EQ(test,
			    event->event_data.connect_event_data.ep_handle,
			    ep);
}

void kdapl_test_ia_addr(struct kunit *test, DAT_IA_HANDLE ia,
			struct sockaddr_in *sin)
{
	DAT_IA_ATTR *attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_EQ(test, dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, attr,
					   0, NULL),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, attr->ia_address_ptr->sa_family, AF_INET);
	memcpy(sin, attr->ia_address_ptr, sizeof(*sin));
}

bool kdapl_test_iwarp(struct kunit *test)
{
	const char *const *name = test->param_value;

	return !strcmp(*name, KDAPL_TEST_IWARP);
}

void kdapl_test_pair_init(struct kunit *test, struct kdapl_test_pair *p,
			  DAT_CONN_QUAL qual)
{
	const char *const *name = test->param_value;

	memset(p, 0, sizeof(*p));
	p->ia = kdapl_test_open_ia(test, *name);
	p->sia = p->ia;
	p->pz = kdapl_test_pz(test, p->ia);
	p->spz = kdapl_test_pz(test, p->ia);
	p->conn = kdapl_test_evd(test, p->ia, 8, DAT_EVD_CONNECTION_FLAG);
	p->sconn = kdapl_test_evd(test, p->ia, 8, DAT_EVD_CONNECTION_FLAG);
	p->cr = kdapl_test_evd(test, p->ia, 8, DAT_EVD_CR_FLAG);
	p->qual = qual;
}

void kdapl_test_connect(struct kunit *test, struct kdapl_test_pair *p)
{
	struct sockaddr_in sin;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	kdapl_test_ia_addr(test, p->sia, &sin);
	KUNIT_ASSERT_EQ(test, dat_psp_create(p->sia, p->qual, p->cr,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_connect(p->cli, (struct sockaddr *)&sin,
					     p->qual, DAT_TIMEOUT_INFINITE, 0,
					     NULL, DAT_QOS_BEST_EFFORT, 0),
			DAT_SUCCESS);
	KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(p->cr, &ev,
						    KDAPL_TEST_WAIT_MS),
			      "no connection request");
	KUNIT_ASSERT_EQ(test, ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	KUNIT_ASSERT_EQ(test, dat_cr_accept(cr, p->srv, 0, NULL), DAT_SUCCESS);
	kdapl_test_expect_conn(test, p->conn, p->cli,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	kdapl_test_expect_conn(test, p->sconn, p->srv,
			       DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
}

static int kdapl_test_pages_init(struct kunit_resource *res, void *order)
{
	res->data = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_COMP,
				(unsigned int)(uintptr_t)order);
	return res->data ? 0 : -ENOMEM;
}

static void kdapl_test_pages_free(struct kunit_resource *res)
{
	struct page *page = res->data;

	__free_pages(page, compound_order(page));
}

struct page *kdapl_test_pages(struct kunit *test, unsigned int order)
{
	struct page *page = kunit_alloc_resource(test, kdapl_test_pages_init,
						 kdapl_test_pages_free,
						 GFP_KERNEL,
						 (void *)(uintptr_t)order);

	KUNIT_ASSERT_NOT_NULL(test, page);
	return page;
}

static int kdapl_owner_hold(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void kdapl_owner_drop(struct kunit_resource *res)
{
	kdapl_owner_release(res->data);
}

struct kdapl_owner *kdapl_test_owner(struct kunit *test)
{
	struct kdapl_owner *owner;

	owner = kunit_kzalloc(test, sizeof(*owner), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	kdapl_owner_init(owner);
	kunit_alloc_resource(test, kdapl_owner_hold, kdapl_owner_drop,
			     GFP_KERNEL, owner);
	return owner;
}

struct kdapl_test_deferred {
	void (*fn)(void *data);
	void *data;
};

static int kdapl_test_defer_init(struct kunit_resource *res, void *context)
{
	struct kdapl_test_deferred *d = kmalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	*d = *(struct kdapl_test_deferred *)context;
	res->data = d;
	return 0;
}

static void kdapl_test_defer_run(struct kunit_resource *res)
{
	struct kdapl_test_deferred *d = res->data;

	d->fn(d->data);
	kfree(d);
}

void kdapl_test_defer(struct kunit *test, void (*fn)(void *data), void *data)
{
	struct kdapl_test_deferred d = { .fn = fn, .data = data };

	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test,
							 kdapl_test_defer_init,
							 kdapl_test_defer_run,
							 GFP_KERNEL, &d));
}

bool kdapl_test_held_wait(struct completion *c)
{
	return wait_for_completion_timeout(c,
					   msecs_to_jiffies(KDAPL_TEST_WAIT_MS));
}

static void kdapl_test_held_release(void *data)
{
	struct kdapl_test_held *h = data;

	complete_all(&h->go);
	if (completion_done(&h->entered))
		kdapl_test_held_wait(&h->left);
}

void kdapl_test_held_init(struct kunit *test, struct kdapl_test_held *h)
{
	init_completion(&h->entered);
	init_completion(&h->go);
	init_completion(&h->left);
	kdapl_test_defer(test, kdapl_test_held_release, h);
}

bool kdapl_test_held_enter(struct kdapl_test_held *h)
{
	if (completion_done(&h->entered))
		return false;
	complete_all(&h->entered);
	kdapl_test_held_wait(&h->go);
	return true;
}

void kdapl_test_held_leave(struct kdapl_test_held *h)
{
	complete_all(&h->left);
}

static void kdapl_ufile_drop(struct kunit_resource *res)
{
	struct kdapl_ufile *ufile = res->data;

	kdapl_owner_release(&ufile->owner);
	kdapl_uobj_release_all(ufile);
	mutex_destroy(&ufile->lock);
}

struct kdapl_ufile *kdapl_test_ufile(struct kunit *test)
{
	struct kdapl_ufile *ufile;

	ufile = kunit_kzalloc(test, sizeof(*ufile), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ufile);
	kdapl_owner_init(&ufile->owner);
	mutex_init(&ufile->lock);
	xa_init_flags(&ufile->objs, XA_FLAGS_ALLOC1);
	xa_init(&ufile->by_handle);
	ufile->next_id = 1;
	kunit_alloc_resource(test, kdapl_owner_hold, kdapl_ufile_drop,
			     GFP_KERNEL, ufile);
	return ufile;
}

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for kdapl");
MODULE_LICENSE("GPL");
