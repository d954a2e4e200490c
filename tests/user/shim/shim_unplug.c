// SPDX-License-Identifier: GPL-2.0
/*
 * shim_unplug: a uDAPL program whose device goes away under it.
 *
 *   DAT_OVERRIDE=dat.conf shim_unplug IA_NAME GO_FILE
 *
 * Connects two IAs through the shim and moves verified messages between
 * them.  After 100 round trips it prints "READY"; the caller then deletes
 * the device (tests/vm/cases/unplug.sh).  The program must then see, in
 * bounded time: DAT_ASYNC_ERROR_IA_CATASTROPHIC on both async EVDs, a
 * BROKEN or DISCONNECTED connection event on both EPs, every outstanding
 * DTO completed exactly once, DAT errors from calls that need the device,
 * and the event rings still readable.  It prints "CHECKED" and keeps
 * everything open until GO_FILE exists, so that the caller sees that the
 * removal did not wait for it; then every free and the close must
 * succeed.  TAP output; the exit status is 0 only if every case passed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dat2/udat.h>

#include "tap.h"
#include "side.h"

#define SLOT	4096
#define RECVS	16
#define BUF	(2 * RECVS * SLOT)
#define WAIT_US	2000000
#define QUAL	5353

static const char *go_file;
static struct side s, c;
static DAT_PSP_HANDLE psp;
static DAT_LMR_HANDLE slmr, clmr;
static DAT_LMR_CONTEXT sl, cl;
static char *sbuf, *cbuf;
/* Receives posted on the server, by slot; the client's send in flight. */
static int posted[RECVS];
static int send_out;
static unsigned int trips;

static void fill(char *p, size_t len, unsigned int n)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(n * 31 + i * 7);
}

static DAT_RETURN post_recv(int slot)
{
	DAT_LMR_TRIPLET iov = {
		.lmr_context = sl,
		.virtual_address = (uintptr_t)sbuf + slot * SLOT,
		.segment_length = SLOT,
	};
	DAT_DTO_COOKIE ck = { .as_64 = slot };
	DAT_RETURN ret;

	ret = dat_ep_post_recv(s.ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (ret == DAT_SUCCESS)
		posted[slot] = 1;
	return ret;
}

static DAT_RETURN post_send(unsigned int n, size_t len)
{
	char *p = cbuf + (RECVS + n % RECVS) * SLOT;
	DAT_LMR_TRIPLET iov = {
		.lmr_context = cl,
		.virtual_address = (uintptr_t)p,
		.segment_length = len,
	};
	DAT_DTO_COOKIE ck = { .as_64 = 0x5e00000000ull + n };
	DAT_RETURN ret;

	fill(p, len, n);
	ret = dat_ep_post_send(c.ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (ret == DAT_SUCCESS)
		send_out = 1;
	return ret;
}

/*
 * One round trip: a message of a length that varies, checked where it
 * landed.  Returns 0, or 1 once something failed (the device went); a
 * completion that came is accounted for either way.
 */
static int round_trip(unsigned int n)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	size_t len = 1 + (n * 397) % SLOT;
	char expect[SLOT];
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_UINT64 slot;

	d = &ev.event_data.dto_completion_event_data;
	if (post_send(n, len) != DAT_SUCCESS ||
	    dat_evd_wait(s.dto, WAIT_US, 1, &ev, &nmore) != DAT_SUCCESS)
		return 1;
	slot = d->user_cookie.as_64;
	if (slot >= RECVS || !posted[slot])
		return FAIL("receive cookie %#llx", (unsigned long long)slot);
	posted[slot] = 0;
	if (d->status != DAT_DTO_SUCCESS)
		return 1;
	fill(expect, len, n);
	if (d->transfered_length != len ||
	    memcmp(sbuf + slot * SLOT, expect, len))
		return FAIL("message %u: %llu bytes differ", n,
			    (unsigned long long)d->transfered_length);
	if (post_recv(slot) != DAT_SUCCESS ||
	    dat_evd_wait(c.dto, WAIT_US, 1, &ev, &nmore) != DAT_SUCCESS)
		return 1;
	if (d->user_cookie.as_64 != 0x5e00000000ull + n)
		return FAIL("send cookie %#llx",
			    (unsigned long long)d->user_cookie.as_64);
	send_out = 0;
	return d->status != DAT_DTO_SUCCESS;
}

/* Messages go back and forth until the device goes (60 s at most). */
static int test_traffic(void)
{
	time_t end = time(NULL) + 60;
	DAT_RMR_CONTEXT rctx;
	int slot, ret;

	sbuf = aligned_alloc(4096, BUF);
	cbuf = aligned_alloc(4096, BUF);
	if (!sbuf || !cbuf)
		return FAIL("buffers");
	if (pair_connect(&s, &c, QUAL, &psp) ||
	    make_lmr(&s, sbuf, BUF, &slmr, &sl, &rctx) ||
	    make_lmr(&c, cbuf, BUF, &clmr, &cl, &rctx))
		return -1;
	for (slot = 0; slot < RECVS; slot++)
		if (post_recv(slot) != DAT_SUCCESS)
			return FAIL("post_recv %d", slot);
	while (!(ret = round_trip(trips))) {
		if (++trips == 100) {
			printf("READY\n");
			fflush(stdout);
		}
		if (time(NULL) > end)
			return FAIL("the device is still there");
	}
	printf("# %u round trips before the device went\n", trips);
	return ret < 0 || trips < 100 ? FAIL("failed at %u", trips) : 0;
}

/* An event of @number arrives on @evd within 10 s; others are skipped. */
static int expect_event(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER number,
			DAT_EVENT_NUMBER or)
{
	DAT_COUNT nmore;
	DAT_EVENT ev;
	int i;

	for (i = 0; i < 10; i++) {
		if (dat_evd_wait(evd, 1000000, 1, &ev, &nmore) != DAT_SUCCESS)
			continue;
		if (ev.event_number == number || ev.event_number == or)
			return 0;
		printf("# skipped event %#x\n", ev.event_number);
	}
	return FAIL("no event %#x", number);
}

/*
 * Each DTO outstanding on @sd completes once: receives flushed (or, for
 * the one in flight, received), the send done or flushed; then nothing.
 * The one DTO the transport was moving when the device went may instead
 * end with the error it met (siw completes it with the socket's error).
 */
static int drain(struct side *sd, int recvs, int sends)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	int in_flight = 0;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_UINT64 ck;

	d = &ev.event_data.dto_completion_event_data;
	while (recvs + sends > 0) {
		if (dat_evd_wait(sd->dto, 10000000, 1, &ev, &nmore) !=
		    DAT_SUCCESS)
			return FAIL("%d receives, %d sends not completed",
				    recvs, sends);
		ck = d->user_cookie.as_64;
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
			return FAIL("event %#x", ev.event_number);
		if (d->status != DAT_DTO_ERR_FLUSHED &&
		    d->status != DAT_DTO_SUCCESS) {
			if (in_flight++)
				return FAIL("a second DTO with status %d",
					    d->status);
			printf("# in flight: %#llx ended with status %d\n",
			       (unsigned long long)ck, d->status);
		}
		if (sd == &s && ck < RECVS && posted[ck]) {
			posted[ck] = 0;
			recvs--;
		} else if (sd == &c && ck == 0x5e00000000ull + trips &&
			   sends) {
			sends--;
		} else {
			return FAIL("completion %#llx, once too many",
				    (unsigned long long)ck);
		}
	}
	if (dat_evd_dequeue(sd->dto, &ev) != DAT_QUEUE_EMPTY)
		return FAIL("more completions: event %#x", ev.event_number);
	return 0;
}

static int test_events(void)
{
	int recvs = 0, slot;

	for (slot = 0; slot < RECVS; slot++)
		recvs += posted[slot];
	if (expect_event(s.async, DAT_ASYNC_ERROR_IA_CATASTROPHIC, 0) ||
	    expect_event(c.async, DAT_ASYNC_ERROR_IA_CATASTROPHIC, 0) ||
	    expect_event(s.conn, DAT_CONNECTION_EVENT_BROKEN,
			 DAT_CONNECTION_EVENT_DISCONNECTED) ||
	    expect_event(c.conn, DAT_CONNECTION_EVENT_BROKEN,
			 DAT_CONNECTION_EVENT_DISCONNECTED))
		return -1;
	return drain(&s, recvs, 0) || drain(&c, 0, send_out);
}

/* What needs the device fails with a DAT error; queries still answer. */
static int test_calls(void)
{
	DAT_REGION_DESCRIPTION region = { .for_va = cbuf };
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_VADDR va;
	DAT_VLEN rlen;
	DAT_EP_STATE state;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;

	if (dat_ep_get_status(c.ep, &state, NULL, NULL) != DAT_SUCCESS ||
	    state != DAT_EP_STATE_DISCONNECTED)
		return FAIL("client EP state %d", state);
	ret = post_send(trips + 1, 64);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("post_send: %#x", ret);
	/* A receive on a disconnected EP is taken and flushed at once. */
	posted[0] = 0;
	ret = post_recv(0);
	if (ret != DAT_SUCCESS)
		return FAIL("post_recv: %#x", ret);
	if (drain(&s, 1, 0))
		return -1;
	ret = dat_pz_create(s.ia, &pz);
	if (ret != (DAT_RETURN)ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE))
		return FAIL("dat_pz_create: %#x", ret);
	ret = dat_lmr_create(c.ia, DAT_MEM_TYPE_VIRTUAL, region, SLOT, c.pz,
			     DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &lctx,
			     &rctx, &rlen, &va);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("dat_lmr_create: %#x", ret);
	return 0;
}

/* Everything stays open until the caller says; then frees cleanly. */
static int test_free(void)
{
	struct side *sides[] = { &s, &c };
	DAT_LMR_HANDLE lmrs[] = { slmr, clmr };
	int i;

	if (tell_and_wait("CHECKED", go_file, 1))
		return -1;
	if (dat_psp_free(psp) != DAT_SUCCESS)
		return FAIL("dat_psp_free");
	for (i = 0; i < 2; i++) {
		struct side *sd = sides[i];

		if (dat_ep_free(sd->ep) != DAT_SUCCESS ||
		    dat_lmr_free(lmrs[i]) != DAT_SUCCESS ||
		    dat_evd_free(sd->dto) != DAT_SUCCESS ||
		    dat_evd_free(sd->conn) != DAT_SUCCESS ||
		    dat_evd_free(sd->cr) != DAT_SUCCESS ||
		    dat_pz_free(sd->pz) != DAT_SUCCESS)
			return FAIL("free, side %d", i);
		if (dat_ia_close(sd->ia, DAT_CLOSE_GRACEFUL_FLAG) !=
		    DAT_SUCCESS)
			return FAIL("dat_ia_close, side %d", i);
	}
	free(sbuf);
	free(cbuf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: shim_unplug IA_NAME GO_FILE\n");
		return 2;
	}
	ia_name = argv[1];
	go_file = argv[2];
	printf("TAP version 13\n1..4\n");
	tap_run("traffic", test_traffic);
	if (tap_failures)
		return tap_done("shim_unplug");
	tap_run("events", test_events);
	tap_run("calls", test_calls);
	tap_run("free", test_free);
	return tap_done("shim_unplug");
}
