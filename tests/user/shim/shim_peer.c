// SPDX-License-Identifier: GPL-2.0
/*
 * shim_peer: one side of a connection between two hosts whose other side
 * dies with its machine (tests/vm/cases/twohost_kill.sh).
 *
 *   shim_peer IA_NAME server QUAL BOUND_SECONDS MIN_EXCHANGES
 *   shim_peer IA_NAME client SERVER_IPV4 QUAL KILL_AFTER
 *
 * The two sides play ping-pong: on its turn a side RDMA-writes a pattern
 * of the exchange number into the other side's buffer, then sends the
 * number; the receiver checks every byte of the buffer before it takes
 * its turn.  The client prints KDAPL-KILL-THIS-VM after KILL_AFTER
 * exchanges and plays on until its machine is killed under it.
 *
 * The server is the survivor.  It plays on until the connection fails;
 * when no message has come for a second it probes the peer with a small
 * RDMA Write, because an RC connection notices a dead peer only when it
 * sends: a side that just waits would wait forever.  It then requires a
 * BROKEN or DISCONNECTED connection event within BOUND_SECONDS of the
 * last verified exchange, after at least MIN_EXCHANGES of them, and
 * every object freed with DAT_SUCCESS.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dat2/udat.h>

#include "tap.h"
#include "side.h"

#define SLOT		16384
#define PROBE		64
#define REGION		(SLOT + PROBE)
#define SECOND_US	1000000
#define CONNECT_US	(120 * SECOND_US)
#define KILL_MARK	"KDAPL-KILL-THIS-VM"

enum { CK_RECV = 1, CK_SEND, CK_WRITE, CK_PROBE };

/* What a side tells the other: where to write, and the exchange. */
struct msg {
	DAT_UINT64 addr;
	DAT_UINT32 rctx;
	DAT_UINT32 seq;
};

static struct side me;
/* The peer writes @target; we write from @source; messages out and in. */
static unsigned char *mem, *target, *source;
static struct msg *out, *in, got, peer;
static DAT_LMR_HANDLE lmr;
static DAT_LMR_CONTEXT lctx;
static DAT_RMR_CONTEXT rctx;
static DAT_PSP_HANDLE psp;
static unsigned int nrecv;
static int probing;
/* Our sends and writes not completed yet; a message in @got not taken. */
static unsigned int pending;
static int have_msg;
/* The status of the first DTO that completed in error (-1: none). */
static int first_status = -1;
/* When the survivor stops waiting (0: never). */
static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(unsigned char *p, DAT_UINT32 seq)
{
	size_t i;

	for (i = 0; i < SLOT; i++)
		p[i] = (unsigned char)(seq * 131 + i * 7);
}

static DAT_LMR_TRIPLET iov(void *p, DAT_VLEN len)
{
	return (DAT_LMR_TRIPLET){ .lmr_context = lctx,
				  .virtual_address = (uintptr_t)p,
				  .segment_length = len };
}

static DAT_RETURN post_recv(struct msg *m)
{
	DAT_LMR_TRIPLET l = iov(m, sizeof(*m));
	DAT_DTO_COOKIE ck = { .as_64 = CK_RECV };

	return dat_ep_post_recv(me.ep, 1, &l, ck, DAT_COMPLETION_DEFAULT_FLAG);
}

static DAT_RETURN send_out(void)
{
	DAT_LMR_TRIPLET l = iov(out, sizeof(*out));
	DAT_DTO_COOKIE ck = { .as_64 = CK_SEND };

	return dat_ep_post_send(me.ep, 1, &l, ck, DAT_COMPLETION_DEFAULT_FLAG);
}

static DAT_RETURN write_peer(DAT_UINT64 cookie, void *p, DAT_VLEN len,
			     DAT_VLEN offset)
{
	DAT_LMR_TRIPLET l = iov(p, len);
	DAT_RMR_TRIPLET r = { .rmr_context = peer.rctx,
			      .virtual_address = peer.addr + offset,
			      .segment_length = len };
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	return dat_ep_post_rdma_write(me.ep, 1, &l, ck, &r,
				      DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * Objects and memory, with two receives posted: the peer's introduction
 * and its first turn may both arrive before we have read the first.
 */
static int setup(void)
{
	size_t size = 2 * REGION + 3 * sizeof(struct msg);
	DAT_REGION_DESCRIPTION region;
	DAT_VADDR va;
	DAT_VLEN len;

	if (side_open_dto(&me, 32))
		return -1;
	mem = aligned_alloc(4096, 4096 * ((size + 4095) / 4096));
	if (!mem)
		return FAIL("no memory");
	memset(mem, 0, size);
	target = mem;
	source = mem + REGION;
	out = (struct msg *)(mem + 2 * REGION);
	in = out + 1;
	region.for_va = mem;
	if (dat_lmr_create(me.ia, DAT_MEM_TYPE_VIRTUAL, region, size, me.pz,
			   DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &lctx,
			   &rctx, &len, &va) != DAT_SUCCESS)
		return FAIL("dat_lmr_create");
	if (post_recv(&in[0]) != DAT_SUCCESS ||
	    post_recv(&in[1]) != DAT_SUCCESS)
		return FAIL("dat_ep_post_recv");
	return 0;
}

/* The server: the first connection request on @qual is accepted. */
static int accept_one(DAT_CONN_QUAL qual)
{
	DAT_COUNT nmore;
	DAT_EVENT ev;

	if (dat_psp_create(me.ia, qual, me.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	printf("# listening on %llu\n", (unsigned long long)qual);
	fflush(stdout);
	if (dat_evd_wait(me.cr, CONNECT_US, 1, &ev, &nmore) != DAT_SUCCESS ||
	    ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
		return FAIL("no connection request");
	if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			  me.ep, 0, NULL) != DAT_SUCCESS)
		return FAIL("dat_cr_accept");
	return wait_event(me.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

static int connect_to(const char *ip, DAT_CONN_QUAL qual)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	DAT_COUNT nmore;
	DAT_EVENT ev;

	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		return FAIL("not an IPv4 address: %s", ip);
	if (dat_ep_connect(me.ep, (DAT_IA_ADDRESS_PTR)&sin, qual, CONNECT_US,
			   0, NULL, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG) != DAT_SUCCESS)
		return FAIL("dat_ep_connect");
	if (dat_evd_wait(me.conn, CONNECT_US, 1, &ev, &nmore) != DAT_SUCCESS ||
	    ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED)
		return FAIL("not connected: event %#x", ev.event_number);
	return 0;
}

/* The connection is failing: a DTO completed in error, or @what failed. */
static int failing(DAT_DTO_COMPLETION_EVENT_DATA *d, const char *what)
{
	if (d) {
		printf("# work request %llu completed with status %d\n",
		       (unsigned long long)d->user_cookie.as_64, d->status);
		if (first_status < 0)
			first_status = d->status;
	} else {
		printf("# %s did not work\n", what);
	}
	return 1;
}

/* One DTO completion: 0, or 1 when the connection is failing. */
static int handle(DAT_DTO_COMPLETION_EVENT_DATA *d)
{
	struct msg *m;

	if (d->status != DAT_DTO_SUCCESS)
		return failing(d, NULL);
	switch (d->user_cookie.as_64) {
	case CK_PROBE:
		probing = 0;
		return 0;
	case CK_RECV:
		/* Receives complete in the order they were posted. */
		m = &in[nrecv++ % 2];
		got = *m;
		have_msg = 1;
		return post_recv(m) != DAT_SUCCESS ?
			failing(NULL, "posting a receive") : 0;
	default:
		pending--;
		return 0;
	}
}

/*
 * Completions until the peer's next message is in @got (@msg), or until
 * every send and write of ours has completed and their buffers are ours
 * again (!@msg); after a second without any, a probe.  0 when done, 1
 * when the connection is failing, -1 on any other error.
 */
static int reap(int msg)
{
	DAT_EVENT ev = { 0 };
	DAT_COUNT nmore;
	DAT_RETURN ret;
	int r;

	for (;;) {
		if (msg && have_msg) {
			have_msg = 0;
			return 0;
		}
		if (!msg && !pending)
			return 0;
		if (deadline && now() > deadline)
			return FAIL("nothing completed in error by the deadline");
		ret = dat_evd_wait(me.dto, SECOND_US, 1, &ev, &nmore);
		if (DAT_GET_TYPE(ret) == DAT_TIMEOUT_EXPIRED) {
			if (!probing &&
			    write_peer(CK_PROBE, source + SLOT, 8, SLOT) !=
			    DAT_SUCCESS)
				return failing(NULL, "posting the probe");
			probing = 1;
			continue;
		}
		if (ret != DAT_SUCCESS)
			return FAIL("dat_evd_wait: %#x", ret);
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
			return FAIL("event %#x", ev.event_number);
		r = handle(&ev.event_data.dto_completion_event_data);
		if (r)
			return r;
	}
}

/*
 * Our turn: the pattern of @seq into the peer's buffer, then @seq, once
 * the previous turn's requests are done with both buffers.
 */
static int turn(DAT_UINT32 seq)
{
	int r = reap(0);

	if (r)
		return r;
	fill(source, seq);
	out->seq = seq;
	if (write_peer(CK_WRITE, source, SLOT, 0) != DAT_SUCCESS ||
	    send_out() != DAT_SUCCESS)
		return failing(NULL, "posting a write and a send");
	pending += 2;
	return 0;
}

/* The peer's turn @seq arrived: its pattern must be in our buffer. */
static int check(DAT_UINT32 seq)
{
	static unsigned char expect[SLOT];

	if (got.seq != seq)
		return FAIL("exchange %u, expected %u", got.seq, seq);
	fill(expect, seq);
	if (memcmp(target, expect, SLOT))
		return FAIL("exchange %u: the buffer differs", seq);
	return 0;
}

/* Tell the peer where to write and learn where we write. */
static int introduce(void)
{
	out->addr = (uintptr_t)target;
	out->rctx = rctx;
	out->seq = 0;
	if (send_out() != DAT_SUCCESS)
		return FAIL("no introduction");
	pending++;
	if (reap(1))
		return FAIL("no introduction");
	peer = got;
	return 0;
}

/* The victim: odd turns, the mark after @kill_after exchanges. */
static int play_client(const char *ip, DAT_CONN_QUAL qual,
		       unsigned long kill_after)
{
	unsigned long n = 0;
	DAT_UINT32 seq;

	if (connect_to(ip, qual) || introduce())
		return 1;
	for (seq = 1;; seq += 2) {
		if (turn(seq) || reap(1) || check(seq + 1))
			return 1;
		if (++n == kill_after) {
			printf("# %lu exchanges verified\n%s\n", n, KILL_MARK);
			fflush(stdout);
		}
	}
}

/* Every object the survivor holds goes, each with DAT_SUCCESS. */
static int release(void)
{
	if (dat_ep_free(me.ep) != DAT_SUCCESS ||
	    dat_psp_free(psp) != DAT_SUCCESS ||
	    dat_lmr_free(lmr) != DAT_SUCCESS ||
	    dat_evd_free(me.dto) != DAT_SUCCESS ||
	    dat_evd_free(me.conn) != DAT_SUCCESS ||
	    dat_evd_free(me.cr) != DAT_SUCCESS ||
	    dat_pz_free(me.pz) != DAT_SUCCESS ||
	    dat_ia_close(me.ia, DAT_CLOSE_GRACEFUL_FLAG) != DAT_SUCCESS)
		return FAIL("release");
	return 0;
}

/* After @n exchanges, the last at @last, the connection is failing. */
static int survive(unsigned long n, unsigned long min, double last,
		   double bound)
{
	double left = last + bound - now();
	DAT_COUNT nmore;
	DAT_EVENT ev;

	if (n < min)
		return FAIL("%lu exchanges before the break, wanted %lu", n,
			    min);
	if (left <= 0 ||
	    dat_evd_wait(me.conn, (DAT_TIMEOUT)(left * SECOND_US), 1, &ev,
			 &nmore) != DAT_SUCCESS)
		return FAIL("no connection event within %.0f s", bound);
	if (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
	    ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
		return FAIL("connection event %#x", ev.event_number);
	printf("# survivor: %lu exchanges verified, then %s %.1f s after the last;",
	       n, ev.event_number == DAT_CONNECTION_EVENT_BROKEN ?
	       "BROKEN" : "DISCONNECTED", now() - last);
	printf(" first error status %d\n", first_status);
	return release();
}

/* The survivor: even turns until the connection fails. */
static int play_server(DAT_CONN_QUAL qual, double bound, unsigned long min)
{
	unsigned long n = 0;
	double last;
	DAT_UINT32 seq;
	int ret;

	if (accept_one(qual) || introduce())
		return -1;
	last = now();
	for (seq = 1;; seq += 2) {
		deadline = last + bound;
		ret = reap(1);
		if (ret)
			break;
		if (check(seq))
			return -1;
		n++;
		last = now();
		ret = turn(seq + 1);
		if (ret)
			break;
	}
	return ret < 0 ? -1 : survive(n, min, last, bound);
}

static void die_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s IA_NAME server QUAL BOUND_SECONDS MIN_EXCHANGES\n"
		"       %s IA_NAME client SERVER_IPV4 QUAL KILL_AFTER\n",
		prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc != 6)
		die_usage(argv[0]);
	ia_name = argv[1];
	if (setup())
		return 1;
	if (!strcmp(argv[2], "server"))
		return play_server(strtoull(argv[3], NULL, 0), atof(argv[4]),
				   strtoul(argv[5], NULL, 0)) ? 1 : 0;
	if (!strcmp(argv[2], "client"))
		return play_client(argv[3], strtoull(argv[4], NULL, 0),
				   strtoul(argv[5], NULL, 0));
	die_usage(argv[0]);
	return 2;
}
