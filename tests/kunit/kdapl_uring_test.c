// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the event rings of /dev/kdapl (kdapl_uring.c): what the
 * sink of a file's EVD does with the events it is handed, checked
 * without a process.  The file's owner has a listening IA; a kernel
 * consumer's IA connects to it, and the requests that arrive are handed
 * to a ring's sink as the file's EVD would hand them.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/bottom_half.h>
#include <linux/delay.h>

#include "kdapl_test_util.h"
#include "kdapl_user.h"

#define URING_QUAL	47230
#define URING_CLIENTS	3

struct uring_env {
	struct kdapl_ufile *ufile;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	struct sockaddr_in addr;
	struct kdapl_uring *ring;
};

/* The ring goes before its file (resources go in reverse order). */
static void uring_env_free(void *data)
{
	struct uring_env *env = data;

	if (env->ring)
		kdapl_uring_put(env->ring);
}

/* A file whose IA listens on URING_QUAL, its requests on a kDAT EVD. */
static struct uring_env *uring_env_init(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct kdapl_adapter *adapter;
	struct kdapl_owner *owner;
	struct uring_env *env;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR *attr;

	adapter = kdapl_adapter_get(*name);
	if (!adapter)
		kunit_skip(test, "no adapter %s", *name);
	kdapl_adapter_put(adapter);

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->ufile = kdapl_test_ufile(test);
	owner = &env->ufile->owner;
	kdapl_test_defer(test, uring_env_free, env);
	KUNIT_ASSERT_EQ(test, kdapl_ia_open(owner, *name, 8, &async, &env->ia),
			DAT_SUCCESS);
	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_EQ(test, kdapl_ia_query(owner, env->ia, NULL,
					     DAT_IA_FIELD_ALL, attr, 0, NULL),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, attr->ia_address_ptr->sa_family, AF_INET);
	memcpy(&env->addr, attr->ia_address_ptr, sizeof(env->addr));
	KUNIT_ASSERT_EQ(test, kdapl_evd_kcreate(owner, env->ia, 8,
						DAT_UPCALL_DISABLE, NULL,
						DAT_EVD_CR_FLAG, &env->cr_evd),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_psp_create(owner, env->ia, URING_QUAL,
					       env->cr_evd,
					       DAT_PSP_CONSUMER_FLAG,
					       &env->psp),
			DAT_SUCCESS);
	return env;
}

/* The next event of the file's kDAT EVD @evd, waiting up to 5 s. */
static bool uring_next(struct uring_env *env, DAT_EVD_HANDLE evd,
		       DAT_EVENT *ev)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (kdapl_evd_dequeue(&env->ufile->owner, evd, ev) ==
		    DAT_SUCCESS)
			return true;
		msleep(20);
	}
	return false;
}

/*
 * An EVD that merges requests with completions parks requests for a work
 * item, in a queue as long as its ring.  More requests than that, handed
 * to the sink before the work can run (bottom halves disabled on this
 * CPU, where the work is queued), are rejected by the work, as those it
 * finds no slot for are: every client is answered, and nothing is lost.
 * (Where the work may run on another CPU meanwhile, as on PREEMPT_RT,
 * the case still passes but may not reach the full queue.)
 */
static void uring_crq_full_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct uring_env *env = uring_env_init(test);
	DAT_EVENT ev[URING_CLIENTS], cev;
	DAT_EP_HANDLE cli[URING_CLIENTS];
	DAT_EVD_HANDLE conn, dto;
	DAT_IA_HANDLE cia;
	DAT_PZ_HANDLE pz;
	struct kdapl_uevent *u;
	struct kdapl_uobj *uobj;
	u32 i, delivered;

	cia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, cia);
	conn = kdapl_test_evd(test, cia, 8, DAT_EVD_CONNECTION_FLAG);
	dto = kdapl_test_evd(test, cia, 8, DAT_EVD_DTO_FLAG);
	for (i = 0; i < URING_CLIENTS; i++) {
		KUNIT_ASSERT_EQ(test, dat_ep_create(cia, pz, dto, dto, conn,
						    NULL, &cli[i]),
				DAT_SUCCESS);
		KUNIT_ASSERT_EQ(test, dat_ep_connect(cli[i],
						     (struct sockaddr *)&env->addr,
						     URING_QUAL, 30000000, 0,
						     NULL, DAT_QOS_BEST_EFFORT,
						     0),
				DAT_SUCCESS);
	}
	for (i = 0; i < URING_CLIENTS; i++)
		KUNIT_ASSERT_TRUE_MSG(test, uring_next(env, env->cr_evd, &ev[i]),
				      "request %u", i);

	/* Two slots, so two requests park; the third finds no room. */
	env->ring = kdapl_uring_create(env->ufile, 1, 0x5eed, 0,
				       DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG);
	KUNIT_ASSERT_NOT_NULL(test, env->ring);
	KUNIT_ASSERT_EQ(test, env->ring->crq_entries, 2U);
	local_bh_disable();
	for (i = 0; i < URING_CLIENTS; i++)
		kdapl_uring_sink(env->ring, &ev[i], DAT_FALSE);
	local_bh_enable();
	flush_work(&env->ring->cr_work);
	KUNIT_EXPECT_EQ(test, env->ring->overflows, 0U);

	/* The consumer rejects what was delivered; the work did the rest. */
	delivered = env->ring->tail;
	KUNIT_EXPECT_LE(test, delivered, 2U);
	for (i = 0; i < delivered; i++) {
		u = &env->ring->ev[i];
		KUNIT_ASSERT_EQ(test, u->number, DAT_CONNECTION_REQUEST_EVENT);
		uobj = xa_load(&env->ufile->objs, u->new_id);
		KUNIT_ASSERT_NOT_NULL(test, uobj);
		KUNIT_EXPECT_EQ(test, kdapl_cr_reject(&env->ufile->owner,
						      uobj->handle, 0, NULL),
				DAT_SUCCESS);
	}
	for (i = 0; i < URING_CLIENTS; i++) {
		KUNIT_ASSERT_TRUE_MSG(test, kdapl_test_wait(conn, &cev, 5000),
				      "client %u unanswered", i);
		KUNIT_EXPECT_TRUE(test, cev.event_number ==
				  DAT_CONNECTION_EVENT_PEER_REJECTED ||
				  cev.event_number ==
				  DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	}
	for (i = 0; i < URING_CLIENTS; i++) {
		KUNIT_EXPECT_EQ(test, dat_ep_reset(cli[i]), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, dat_ep_free(cli[i]), DAT_SUCCESS);
	}
}

/*
 * A resize moves the ring's events in order and grows the kDAT EVD; one
 * that the ring refuses (more events queued than the new length) leaves
 * the kDAT EVD's queue length as it was.
 */
static void uring_resize_test(struct kunit *test)
{
	struct uring_env *env = uring_env_init(test);
	struct kdapl_owner *owner = &env->ufile->owner;
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };
	DAT_EVD_PARAM param;
	DAT_EVD_HANDLE evd;
	u32 i;

	KUNIT_ASSERT_EQ(test, kdapl_evd_kcreate(owner, env->ia, 4,
						DAT_UPCALL_DISABLE, NULL,
						DAT_EVD_SOFTWARE_FLAG, &evd),
			DAT_SUCCESS);
	env->ring = kdapl_uring_create(env->ufile, 4, 0x5e, 0,
				       DAT_EVD_SOFTWARE_FLAG);
	KUNIT_ASSERT_NOT_NULL(test, env->ring);
	for (i = 0; i < 3; i++) {
		ev.event_data.software_event_data.pointer =
			(DAT_PVOID)(uintptr_t)(i + 1);
		kdapl_uring_sink(env->ring, &ev, DAT_FALSE);
	}

	mutex_lock(&env->ufile->lock);
	KUNIT_EXPECT_EQ(test, kdapl_uring_resize(env->ring, evd, 2),
			KDAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, kdapl_evd_query(owner, evd,
					      DAT_EVD_FIELD_EVD_QLEN, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.evd_qlen, 4);
	KUNIT_EXPECT_EQ(test, env->ring->entries, 4U);
	KUNIT_EXPECT_EQ(test, kdapl_uring_resize(env->ring, evd, 16),
			DAT_SUCCESS);
	mutex_unlock(&env->ufile->lock);

	KUNIT_EXPECT_EQ(test, kdapl_evd_query(owner, evd,
					      DAT_EVD_FIELD_EVD_QLEN, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.evd_qlen, 16);
	KUNIT_EXPECT_EQ(test, env->ring->entries, 16U);
	KUNIT_EXPECT_EQ(test, env->ring->hdr->head, 0U);
	KUNIT_EXPECT_EQ(test, env->ring->hdr->tail, 3U);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, env->ring->ev[i].data[0], (u64)i + 1);
}

/*
 * The events of a datagram EP reach a process in compact form: a
 * resolution's event carries the address handle's id in @new_id, the
 * extension's type, the peer's queue pair and the resolution's id in
 * @data, the private data and the peer's address in the extension; a
 * datagram's receive carries the sender's queue pair in the high half of
 * data[2].  (The events are made here, as kdapl_ud.c and kdapl_dto.c
 * make them for a process's EP.)
 */
static void uring_ud_events_test(struct kunit *test)
{
	struct uring_env *env = uring_env_init(test);
	DAT_IB_EXTENSION_EVENT_DATA *x;
	struct sockaddr_in *sin;
	const u8 pd[4] = { 0, 0, 0, 3 };
	struct kdapl_uring *dto;
	struct kdapl_uevent *u;
	DAT_EVENT ev = {};

	env->ring = kdapl_uring_create(env->ufile, 4, 0x5e, 0,
				       DAT_EVD_CONNECTION_FLAG);
	KUNIT_ASSERT_NOT_NULL(test, env->ring);
	KUNIT_ASSERT_NOT_NULL(test, env->ring->ext);
	ev.event_number = (DAT_EVENT_NUMBER)
			  DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED;
	ev.event_data.connect_event_data.private_data = (void *)pd;
	ev.event_data.connect_event_data.private_data_size = sizeof(pd);
	x = (DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	x->type = DAT_IB_UD_REMOTE_AH;
	x->status = DAT_OP_SUCCESS;
	x->remote_ah.ah = (struct kdapl_ud_ah *)(uintptr_t)7;
	x->remote_ah.qpn = 0x123;
	sin = (struct sockaddr_in *)&x->remote_ah.ia_addr;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x0a010203);
	x->context.as_64 = 9;
	kdapl_uring_sink(env->ring, &ev, DAT_FALSE);
	KUNIT_ASSERT_EQ(test, env->ring->tail, 1U);
	u = &env->ring->ev[0];
	KUNIT_EXPECT_EQ(test, u->number,
			(u32)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, u->status, (u32)DAT_OP_SUCCESS);
	KUNIT_EXPECT_EQ(test, u->new_id, 7U);
	KUNIT_EXPECT_EQ(test, u->data[0], (u64)DAT_IB_UD_REMOTE_AH);
	KUNIT_EXPECT_EQ(test, u->data[1], 0x123ULL);
	KUNIT_EXPECT_EQ(test, u->data[2], 9ULL);
	KUNIT_EXPECT_EQ(test, u->length, (u64)sizeof(pd));
	KUNIT_EXPECT_EQ(test, memcmp(env->ring->ext[0].private_data, pd,
				     sizeof(pd)), 0);
	sin = (struct sockaddr_in *)env->ring->ext[0].addr;
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, sin->sin_addr.s_addr, htonl(0x0a010203));

	dto = kdapl_uring_create(env->ufile, 4, 0x5f, 0, DAT_EVD_DTO_FLAG);
	KUNIT_ASSERT_NOT_NULL(test, dto);
	memset(&ev, 0, sizeof(ev));
	ev.event_number = (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT;
	ev.event_data.dto_completion_event_data.operation =
		(DAT_DTOS)DAT_IB_DTO_RECV_UD;
	ev.event_data.dto_completion_event_data.transfered_length = 56;
	x->type = DAT_IB_UD_RECV;
	x->remote_ah.qpn = 0x456;
	kdapl_uring_sink(dto, &ev, DAT_FALSE);
	KUNIT_EXPECT_EQ(test, dto->tail, 1U);
	KUNIT_EXPECT_EQ(test, dto->ev[0].data[1], (u64)DAT_IB_DTO_RECV_UD);
	KUNIT_EXPECT_EQ(test, dto->ev[0].data[2], 0x456ULL << 32);
	KUNIT_EXPECT_EQ(test, dto->ev[0].length, 56ULL);
	kdapl_uring_put(dto);
}

static struct kunit_case kdapl_uring_test_cases[] = {
	KUNIT_CASE_PARAM(uring_crq_full_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(uring_resize_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(uring_ud_events_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_uring_test_suite = {
	.name = "kdapl_uring",
	.test_cases = kdapl_uring_test_cases,
};

kunit_test_suite(kdapl_uring_test_suite);
