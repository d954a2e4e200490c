// SPDX-License-Identifier: GPL-2.0
/*
 * shim_hostile: a hostile peer against a victim IA, through udapl-shim.
 *
 *   DAT_OVERRIDE=dat.conf shim_hostile IA_NAME
 *
 * The victim registers a buffer that starts and ends in the middle of a
 * page, between guard pages; every byte outside the buffer, in its pages
 * and in the guards, holds a poison.  For each attack a new attacker IA
 * connects to the victim's service point and a new victim EP accepts;
 * the attacker then uses a freed (stale) rmr_context, a made-up one,
 * RDMA Writes and Reads that run past either end of the buffer, sends
 * more than the posted receive holds, or dies by SIGKILL in the middle of
 * a stream of writes.  Each attack must fail on the attacker's side with
 * the completion status the transport gives, break only that
 * connection, and leave the poison and the rest of the buffer as they
 * were; a bystander connection on the victim IA must go on moving
 * verified data after every attack.  TAP output; the exit status is 0
 * only if every case passed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dat2/udat.h>

#include "tap.h"
#include "side.h"

#define PAGE		4096
#define PAGES		6		/* guard, 4 for the buffer, guard */
#define SKEW		100		/* the buffer starts and ends mid-page */
#define LEN		(4 * PAGE - 2 * SKEW)
#define POISON		0xa5
#define QUAL		5454
#define WAIT_US		5000000

/* A registered buffer between poisoned guard pages. */
struct gbuf {
	unsigned char *map;	/* PAGES pages */
	unsigned char *buf;	/* LEN bytes at map + PAGE + SKEW */
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
};

static struct side victim, bys_s, bys_c;
static DAT_PSP_HANDLE psp, bys_psp;
static struct gbuf vbuf;
static unsigned char *bys_sbuf, *bys_cbuf;
static DAT_LMR_CONTEXT bys_sl, bys_cl;
static unsigned int bys_n;

static int gbuf_make(struct side *sd, struct gbuf *g)
{
	DAT_REGION_DESCRIPTION region;
	DAT_VADDR va;
	DAT_VLEN rlen;

	g->map = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		return FAIL("mmap");
	memset(g->map, POISON, PAGES * PAGE);
	g->buf = g->map + PAGE + SKEW;
	region.for_va = g->buf;
	if (dat_lmr_create(sd->ia, DAT_MEM_TYPE_VIRTUAL, region, LEN, sd->pz,
			   DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &g->lmr,
			   &g->lctx, &g->rctx, &rlen, &va) != DAT_SUCCESS)
		return FAIL("dat_lmr_create");
	return 0;
}

/* Every byte of @g's pages is still the poison, but for [@from, @to). */
static int gbuf_intact(const struct gbuf *g, size_t from, size_t to,
		       const char *what)
{
	size_t i, start = PAGE + SKEW + from, end = PAGE + SKEW + to;

	for (i = 0; i < PAGES * PAGE; i++)
		if ((i < start || i >= end) && g->map[i] != POISON)
			return FAIL("%s: byte %zd of the buffer is %#x", what,
				    (ssize_t)i - PAGE - SKEW, g->map[i]);
	return 0;
}

/* A round trip of verified data on the bystander connection. */
static int bystander(void)
{
	DAT_LMR_TRIPLET iov = { .segment_length = 512 };
	DAT_DTO_COOKIE ck = { .as_64 = ++bys_n };
	int i;

	iov.lmr_context = bys_sl;
	iov.virtual_address = (uintptr_t)bys_sbuf;
	if (dat_ep_post_recv(bys_s.ep, 1, &iov, ck,
			     DAT_COMPLETION_DEFAULT_FLAG) != DAT_SUCCESS)
		return FAIL("post_recv");
	for (i = 0; i < 512; i++)
		bys_cbuf[i] = (unsigned char)(i * 7 + bys_n);
	iov.lmr_context = bys_cl;
	iov.virtual_address = (uintptr_t)bys_cbuf;
	if (dat_ep_post_send(bys_c.ep, 1, &iov, ck,
			     DAT_COMPLETION_DEFAULT_FLAG) != DAT_SUCCESS)
		return FAIL("post_send");
	if (dto_done(&bys_c, bys_n, DAT_DTO_SEND, 512) ||
	    dto_done(&bys_s, bys_n, DAT_DTO_RECEIVE, 512))
		return FAIL("round trip %u", bys_n);
	return memcmp(bys_sbuf, bys_cbuf, 512) ?
	       FAIL("data of round trip %u", bys_n) : 0;
}

static int setup(void)
{
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;

	bys_sbuf = aligned_alloc(PAGE, PAGE);
	bys_cbuf = aligned_alloc(PAGE, PAGE);
	if (!bys_sbuf || !bys_cbuf)
		return FAIL("buffers");
	/* The bystander's server side is the victim IA. */
	if (pair_connect(&bys_s, &bys_c, QUAL + 1, &bys_psp) ||
	    make_lmr(&bys_s, bys_sbuf, PAGE, &lmr, &bys_sl, &rctx) ||
	    make_lmr(&bys_c, bys_cbuf, PAGE, &lmr, &bys_cl, &rctx))
		return -1;
	victim = bys_s;
	if (dat_psp_create(victim.ia, QUAL, victim.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	return gbuf_make(&victim, &vbuf) || bystander();
}

/*
 * A new attacker IA connected to a new EP of the victim; @vep is that
 * EP.  The attacker has its own DTO EVD and a buffer at @abuf.
 */
static int attach(struct side *a, DAT_EP_HANDLE *vep)
{
	DAT_EVENT ev;

	if (side_open_dto(a, 16))
		return -1;
	if (dat_ep_create(victim.ia, victim.pz, victim.dto, victim.dto,
			  victim.conn, NULL, vep) != DAT_SUCCESS)
		return FAIL("victim dat_ep_create");
	if (dat_ep_connect(a->ep, victim.addr, QUAL, WAIT_US, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG) !=
	    DAT_SUCCESS)
		return FAIL("dat_ep_connect");
	if (wait_event(victim.cr, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return -1;
	if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			  *vep, 0, NULL) != DAT_SUCCESS)
		return FAIL("dat_cr_accept");
	if (wait_event(a->conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(victim.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return -1;
	return 0;
}

/*
 * The attacker's connection is over: its IA goes, the victim's EP is
 * freed, and whatever the victim's EVDs got from that EP is drained.
 */
static int detach(struct side *a, DAT_EP_HANDLE vep)
{
	DAT_EVENT ev;

	if (dat_ia_close(a->ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
		return FAIL("attacker dat_ia_close");
	/* The victim hears of the end, BROKEN or DISCONNECTED. */
	if (dat_evd_wait(victim.conn, WAIT_US, 1, &ev, &(DAT_COUNT){ 0 }) !=
	    DAT_SUCCESS ||
	    (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
	     ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED))
		return FAIL("victim connection event %#x", ev.event_number);
	if (dat_ep_free(vep) != DAT_SUCCESS)
		return FAIL("victim dat_ep_free");
	while (dat_evd_dequeue(victim.dto, &ev) == DAT_SUCCESS) {
		if (ev.event_data.dto_completion_event_data.ep_handle != vep)
			return FAIL("a completion of another EP");
	}
	return 0;
}

/*
 * The attacker's one DTO fails with a status of @ok (0-terminated); or
 * its connection breaks: iWARP reports the peer's refusal with a
 * TERMINATE message, which completes a write or a send that is already
 * on the wire with success (@may_complete) and flushes a read.
 */
static int attacker_fails(struct side *a, const DAT_DTO_COMPLETION_STATUS *ok,
			  int may_complete)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	d = &ev.event_data.dto_completion_event_data;
	if (dat_evd_wait(a->dto, WAIT_US, 1, &ev, &nmore) != DAT_SUCCESS)
		return FAIL("no completion for the attack");
	printf("# attack completed with status %d\n", d->status);
	if ((d->status == DAT_DTO_SUCCESS && may_complete) ||
	    d->status == DAT_DTO_ERR_FLUSHED) {
		if (dat_evd_wait(a->conn, WAIT_US, 1, &ev, &nmore) !=
		    DAT_SUCCESS ||
		    (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
		     ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED))
			return FAIL("attack completed, connection not broken");
		printf("# then the connection broke (%#x)\n", ev.event_number);
		return 0;
	}
	for (; *ok; ok++)
		if (d->status == *ok)
			return 0;
	return FAIL("attack completed with status %d", d->status);
}

enum attack { STALE, BOGUS, WRITE_END, WRITE_START, READ_END };

static const DAT_DTO_COMPLETION_STATUS remote_errors[] = {
	DAT_DTO_ERR_REMOTE_ACCESS, DAT_DTO_ERR_REMOTE_RESPONDER,
	DAT_DTO_ERR_BAD_RESPONSE, 0,
};

/* One RDMA attack on the victim buffer through a new connection. */
static int rdma_attack(enum attack what)
{
	DAT_LMR_TRIPLET iov = { .segment_length = 64 };
	DAT_RMR_TRIPLET rmr = { .segment_length = 64 };
	DAT_DTO_COOKIE ck = { .as_64 = 0xbad };
	unsigned char *abuf = aligned_alloc(PAGE, PAGE);
	struct gbuf stale;
	struct side a;
	DAT_EP_HANDLE vep;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_RETURN ret;

	if (!abuf || attach(&a, &vep) ||
	    make_lmr(&a, abuf, PAGE, &lmr, &iov.lmr_context, &rctx))
		return -1;
	memset(abuf, 0x3c, PAGE);
	iov.virtual_address = (uintptr_t)abuf;
	rmr.rmr_context = vbuf.rctx;
	rmr.virtual_address = (uintptr_t)vbuf.buf;
	switch (what) {
	case STALE:
		if (gbuf_make(&victim, &stale) ||
		    dat_lmr_free(stale.lmr) != DAT_SUCCESS)
			return FAIL("stale LMR");
		rmr.rmr_context = stale.rctx;
		rmr.virtual_address = (uintptr_t)stale.buf;
		break;
	case BOGUS:
		rmr.rmr_context = vbuf.rctx ^ 0x5a5a00;
		break;
	case WRITE_END:
	case READ_END:
		rmr.virtual_address += LEN - 32;
		break;
	case WRITE_START:
		rmr.virtual_address -= 32;
		break;
	}
	if (what == READ_END)
		ret = dat_ep_post_rdma_read(a.ep, 1, &iov, ck, &rmr,
					    DAT_COMPLETION_DEFAULT_FLAG);
	else
		ret = dat_ep_post_rdma_write(a.ep, 1, &iov, ck, &rmr,
					     DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("post: %#x", ret);
	if (attacker_fails(&a, remote_errors, what != READ_END) ||
	    detach(&a, vep) ||
	    gbuf_intact(&vbuf, 0, 0, "victim"))
		return -1;
	if (what == STALE &&
	    (gbuf_intact(&stale, 0, 0, "stale") ||
	     munmap(stale.map, PAGES * PAGE)))
		return -1;
	if (what == READ_END && abuf[0] != 0x3c)
		return FAIL("read brought data: %#x", abuf[0]);
	free(abuf);
	return bystander();
}

static int test_stale(void) { return rdma_attack(STALE); }
static int test_bogus(void) { return rdma_attack(BOGUS); }
static int test_write_end(void) { return rdma_attack(WRITE_END); }
static int test_write_start(void) { return rdma_attack(WRITE_START); }
static int test_read_end(void) { return rdma_attack(READ_END); }

/* A send of 1024 bytes into a receive of 256 in the middle of the buffer. */
static int test_send_too_big(void)
{
	static const DAT_DTO_COMPLETION_STATUS ok[] = {
		DAT_DTO_ERR_REMOTE_ACCESS, DAT_DTO_ERR_REMOTE_RESPONDER,
		DAT_DTO_ERR_BAD_RESPONSE, DAT_DTO_ERR_TRANSPORT, 0,
	};
	DAT_LMR_TRIPLET iov = { .segment_length = 256 };
	DAT_DTO_COOKIE ck = { .as_64 = 0x5e };
	unsigned char *abuf = aligned_alloc(PAGE, PAGE);
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_EP_HANDLE vep;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	struct side a;

	if (!abuf || attach(&a, &vep))
		return -1;
	iov.lmr_context = vbuf.lctx;
	iov.virtual_address = (uintptr_t)vbuf.buf + 1024;
	if (dat_ep_post_recv(vep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG) !=
	    DAT_SUCCESS)
		return FAIL("victim post_recv");
	memset(abuf, 0x3c, PAGE);
	if (make_lmr(&a, abuf, PAGE, &lmr, &iov.lmr_context, &rctx))
		return -1;
	iov.virtual_address = (uintptr_t)abuf;
	iov.segment_length = 1024;
	if (dat_ep_post_send(a.ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG) !=
	    DAT_SUCCESS)
		return FAIL("attacker post_send");
	/* rxe of 6.1 reports the overlong message as an operation error. */
	d = &ev.event_data.dto_completion_event_data;
	if (dat_evd_wait(victim.dto, WAIT_US, 1, &ev, &nmore) != DAT_SUCCESS ||
	    d->ep_handle != vep || (d->status != DAT_DTO_ERR_LOCAL_LENGTH &&
				    d->status != DAT_DTO_ERR_LOCAL_EP))
		return FAIL("victim receive: status %d", d->status);
	printf("# victim's receive completed with status %d\n", d->status);
	/* The receive's own 256 bytes may have taken data; nothing else. */
	if (attacker_fails(&a, ok, 1) || detach(&a, vep) ||
	    gbuf_intact(&vbuf, 1024, 1024 + 256, "victim"))
		return -1;
	memset(vbuf.buf + 1024, POISON, 256);
	free(abuf);
	return bystander();
}

/* The child's side: connect, say so on @fd, write until killed. */
static void crash_child(int fd)
{
	DAT_LMR_TRIPLET iov = { .segment_length = 512 };
	DAT_RMR_TRIPLET rmr = { .segment_length = 512 };
	DAT_DTO_COOKIE ck = { .as_64 = 0xc };
	unsigned char *abuf = aligned_alloc(PAGE, PAGE);
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	struct side a;
	int i;

	if (!abuf || side_open_dto(&a, 16) ||
	    make_lmr(&a, abuf, PAGE, &lmr, &iov.lmr_context, &rctx) ||
	    dat_ep_connect(a.ep, victim.addr, QUAL, WAIT_US, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG) !=
	    DAT_SUCCESS ||
	    wait_event(a.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		_exit(1);
	memset(abuf, 0x3c, PAGE);
	iov.virtual_address = (uintptr_t)abuf;
	rmr.rmr_context = vbuf.rctx;
	if (write(fd, "", 1) != 1)
		_exit(1);
	for (i = 0;; i++) {
		rmr.virtual_address = (uintptr_t)vbuf.buf + (i % 8) * 512;
		if (dat_ep_post_rdma_write(a.ep, 1, &iov, ck, &rmr,
					   DAT_COMPLETION_DEFAULT_FLAG) !=
		    DAT_SUCCESS ||
		    dat_evd_wait(a.dto, WAIT_US, 1, &ev, &nmore) != DAT_SUCCESS)
			_exit(1);
	}
}

/*
 * A peer process that dies by SIGKILL in the middle of a stream of RDMA
 * Writes into the first 4 KiB of the buffer.
 */
static int test_crash(void)
{
	DAT_EP_HANDLE vep;
	int fds[2], status;
	DAT_EVENT ev;
	char c;
	pid_t pid;

	if (pipe(fds))
		return FAIL("pipe");
	if (dat_ep_create(victim.ia, victim.pz, victim.dto, victim.dto,
			  victim.conn, NULL, &vep) != DAT_SUCCESS)
		return FAIL("victim dat_ep_create");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return FAIL("fork");
	if (!pid)
		crash_child(fds[1]);
	if (wait_event(victim.cr, DAT_CONNECTION_REQUEST_EVENT, &ev) ||
	    dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			  vep, 0, NULL) != DAT_SUCCESS ||
	    wait_event(victim.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    read(fds[0], &c, 1) != 1)
		return FAIL("the child did not connect");
	usleep(200000);
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return FAIL("child: %#x", status);
	close(fds[0]);
	close(fds[1]);
	if (dat_evd_wait(victim.conn, 10 * WAIT_US, 1, &ev,
			 &(DAT_COUNT){ 0 }) != DAT_SUCCESS ||
	    (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
	     ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED))
		return FAIL("victim connection event %#x", ev.event_number);
	if (dat_ep_free(vep) != DAT_SUCCESS)
		return FAIL("victim dat_ep_free");
	/* The writes landed where bound, and nowhere else. */
	if (vbuf.buf[0] != 0x3c || vbuf.buf[4095] != 0x3c)
		return FAIL("the peer's writes did not land");
	if (gbuf_intact(&vbuf, 0, 4096, "victim"))
		return -1;
	memset(vbuf.buf, POISON, 4096);
	return bystander();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: shim_hostile IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	printf("TAP version 13\n1..8\n");
	tap_run("setup", setup);
	if (tap_failures)
		return tap_done("shim_hostile");
	tap_run("stale_rmr_context", test_stale);
	tap_run("bogus_rmr_context", test_bogus);
	tap_run("write_past_end", test_write_end);
	tap_run("write_before_start", test_write_start);
	tap_run("read_past_end", test_read_end);
	tap_run("send_too_big", test_send_too_big);
	tap_run("peer_killed", test_crash);
	return tap_done("shim_hostile");
}
