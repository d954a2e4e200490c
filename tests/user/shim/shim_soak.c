// SPDX-License-Identifier: GPL-2.0
/*
 * shim_soak: many processes, each with many connected EPs, moving
 * verified messages through udapl-shim for a while; memory must stay
 * flat.
 *
 *   DAT_OVERRIDE=dat.conf shim_soak IA_NAME PROCS EPS SECONDS [SLAB_KB]
 *
 * Each of PROCS processes opens two IAs and connects EPS pairs of EPs
 * between them, then, round after round, sends a message of a varying
 * length on every pair and checks every byte received, for SECONDS and
 * the time the samples take.  At a fifth of the time and at the end,
 * each process notes its resident size and the parent the kernel's
 * unreclaimable slab (every cache shrunk first, which also empties
 * KASAN's quarantine) and the pages kdapl pins; the growth between the
 * two must stay under a bound (flat memory, not a leak per message):
 * 512 kB of RSS, no pinned page, and SLAB_KB (default 4096; 0 to only
 * print it).  Prints one line per process and "soak: N messages, ..."
 * and exits 0 only if every process passed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dat2/udat.h>

#include "tap.h"
#include "side.h"

#define SLOT		2048
#define MAX_EPS		64
#define QUAL		5600
#define WAIT_US		5000000
#define RSS_SLACK_KB	512

struct pair {
	DAT_EP_HANDLE sep, cep;
};

static struct side s, c;
static struct pair pairs[MAX_EPS];
static unsigned char *sbuf, *cbuf;
static DAT_LMR_CONTEXT sl, cl;
static int neps;

/* A field of a /proc file in kB ("Name:   123 kB"), or -1. */
static long proc_kb(const char *file, const char *name)
{
	char line[256];
	size_t n = strlen(name);
	long v = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * The unreclaimable slab in kB, once every cache has been shrunk: under
 * KASAN a cache's shrink also frees the objects its quarantine holds,
 * which otherwise count here for as long as the quarantine keeps them
 * (up to 1/32 of memory, spread over partly used slabs).  Shrinking
 * needs root; without it the figure includes the quarantine.
 */
static long slab_kb_settled(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir = opendir("/sys/kernel/slab");
	FILE *f;

	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 d->d_name);
		f = fopen(path, "w");
		if (!f)
			continue;
		fputs("1", f);
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return proc_kb("/proc/meminfo", "SUnreclaim");
}

/* The pages user LMRs pin, from debugfs (-1 where it is not mounted). */
static long kdapl_pinned(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/sys/kernel/debug/kdapl/objects", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "pinned_pages ", 13))
			v = strtol(line + 13, NULL, 10);
	fclose(f);
	return v;
}

static DAT_RETURN post_recv(int j)
{
	DAT_LMR_TRIPLET iov = {
		.lmr_context = sl,
		.virtual_address = (uintptr_t)sbuf + j * SLOT,
		.segment_length = SLOT,
	};
	DAT_DTO_COOKIE ck = { .as_64 = j };

	return dat_ep_post_recv(pairs[j].sep, 1, &iov, ck,
				DAT_COMPLETION_DEFAULT_FLAG);
}

static int connect_pairs(int id)
{
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;
	int j;

	if (side_open_dto(&s, 2 * MAX_EPS) || side_open_dto(&c, 2 * MAX_EPS))
		return -1;
	sbuf = aligned_alloc(4096, MAX_EPS * SLOT);
	cbuf = aligned_alloc(4096, MAX_EPS * SLOT);
	if (!sbuf || !cbuf ||
	    make_lmr(&s, sbuf, MAX_EPS * SLOT, &lmr, &sl, &rctx) ||
	    make_lmr(&c, cbuf, MAX_EPS * SLOT, &lmr, &cl, &rctx))
		return FAIL("buffers");
	if (dat_psp_create(s.ia, QUAL + id, s.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	for (j = 0; j < neps; j++) {
		struct pair *p = &pairs[j];

		p->sep = j ? DAT_HANDLE_NULL : s.ep;
		p->cep = j ? DAT_HANDLE_NULL : c.ep;
		if ((!p->sep &&
		     dat_ep_create(s.ia, s.pz, s.dto, s.dto, s.conn, NULL,
				   &p->sep) != DAT_SUCCESS) ||
		    (!p->cep &&
		     dat_ep_create(c.ia, c.pz, c.dto, c.dto, c.conn, NULL,
				   &p->cep) != DAT_SUCCESS))
			return FAIL("EP %d", j);
		if (post_recv(j) != DAT_SUCCESS ||
		    dat_ep_connect(p->cep, s.addr, QUAL + id, WAIT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG) != DAT_SUCCESS ||
		    wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT, &ev) ||
		    dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				  p->sep, 0, NULL) != DAT_SUCCESS ||
		    wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
		    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
			return FAIL("connection %d", j);
	}
	return 0;
}

static void fill(unsigned char *p, size_t len, unsigned long n)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(n * 131 + i * 7);
}

/* One message on every pair, each received, checked and reposted. */
static int round_all(unsigned long r)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	unsigned char expect[SLOT];
	DAT_COUNT nmore;
	DAT_EVENT ev;
	int j, k;

	d = &ev.event_data.dto_completion_event_data;
	for (j = 0; j < neps; j++) {
		size_t len = 1 + (r * 389 + j * 97) % SLOT;
		DAT_LMR_TRIPLET iov = {
			.lmr_context = cl,
			.virtual_address = (uintptr_t)cbuf + j * SLOT,
			.segment_length = len,
		};

		DAT_DTO_COOKIE ck = { .as_64 = j };

		fill(cbuf + j * SLOT, len, r + j);
		if (dat_ep_post_send(pairs[j].cep, 1, &iov, ck,
				     DAT_COMPLETION_DEFAULT_FLAG) != DAT_SUCCESS)
			return FAIL("send %lu/%d", r, j);
	}
	for (k = 0; k < 2 * neps; k++) {
		int recv = k < neps;
		size_t len;

		if (dat_evd_wait(recv ? s.dto : c.dto, WAIT_US, 1, &ev,
				 &nmore) != DAT_SUCCESS ||
		    d->status != DAT_DTO_SUCCESS)
			return FAIL("completion %lu/%d: status %d", r, k,
				    d->status);
		if (!recv)
			continue;
		j = (int)d->user_cookie.as_64;
		len = 1 + (r * 389 + j * 97) % SLOT;
		fill(expect, len, r + j);
		if (j < 0 || j >= neps || d->transfered_length != len ||
		    memcmp(sbuf + j * SLOT, expect, len))
			return FAIL("message %lu/%d differs", r, j);
		if (post_recv(j) != DAT_SUCCESS)
			return FAIL("post_recv %d", j);
	}
	return 0;
}

/* Has the parent closed the other end of @fd? */
static int closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * One process: connect, say so on @ready, wait for the parent to close
 * @go, move messages until it closes @stop (its marks taken), check its
 * own RSS, noted first @secs / 5 seconds in.
 */
static int soak_one(int id, int secs, int ready, int go, int stop)
{
	unsigned long r, msgs;
	long rss0 = -1, rss1;
	time_t mark;
	char ch;

	if (connect_pairs(id) || write(ready, "", 1) != 1 ||
	    read(go, &ch, 1) != 0)
		return 1;
	mark = time(NULL) + secs / 5;
	for (r = 0; !closed(stop); r++) {
		if (round_all(r))
			return 1;
		if (rss0 < 0 && time(NULL) >= mark)
			rss0 = proc_kb("/proc/self/status", "VmRSS");
	}
	rss1 = proc_kb("/proc/self/status", "VmRSS");
	msgs = r * neps;
	printf("soak: process %d: %lu messages on %d EPs, RSS %ld -> %ld kB\n",
	       id, msgs, neps, rss0, rss1);
	if (rss1 - rss0 > RSS_SLACK_KB)
		return FAIL("process %d grew by %ld kB", id, rss1 - rss0);
	if (dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS ||
	    dat_ia_close(c.ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
		return FAIL("close");
	return 0;
}

/* Start @procs processes; returns how many said they are connected. */
static int start_all(int procs, int secs, int go[2], int stop[2])
{
	int ready[2], i, n = 0, rc;
	char ch;
	pid_t pid;

	if (pipe(ready) || pipe(go) || pipe(stop))
		return -1;
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pid = fork();
		if (pid < 0)
			return FAIL("fork");
		if (!pid) {
			close(ready[0]);
			close(go[1]);
			close(stop[1]);
			rc = soak_one(i, secs, ready[1], go[0], stop[0]);
			fflush(stdout);
			_exit(rc);
		}
	}
	close(ready[1]);
	close(go[0]);
	close(stop[0]);
	while (n < procs && read(ready[0], &ch, 1) == 1)
		n++;
	close(ready[0]);
	return n;
}

int main(int argc, char **argv)
{
	long slab0, slab1, pin0, pin1, slab_kb = 4096;
	int procs, secs, status, bad = 0, go[2], stop[2], i;
	time_t end;
	pid_t pid;

	if (argc != 5 && argc != 6) {
		fprintf(stderr,
			"usage: shim_soak IA_NAME PROCS EPS SECONDS [SLAB_KB]\n");
		return 2;
	}
	ia_name = argv[1];
	procs = atoi(argv[2]);
	neps = atoi(argv[3]);
	secs = atoi(argv[4]);
	if (argc == 6)
		slab_kb = atol(argv[5]);
	if (procs < 1 || neps < 1 || neps > MAX_EPS || secs < 10)
		return 2;
	i = start_all(procs, secs, go, stop);
	if (i < 0)
		return 1;
	if (i != procs)
		bad++;
	/*
	 * All connected: they start together and run until both samples
	 * are taken (shrinking every cache takes seconds under KASAN).
	 */
	close(go[1]);
	end = time(NULL) + secs;
	sleep(secs / 5);
	slab0 = slab_kb_settled();
	pin0 = kdapl_pinned();
	while (time(NULL) < end)
		sleep(1);
	slab1 = slab_kb_settled();
	pin1 = kdapl_pinned();
	close(stop[1]);
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	printf("soak: %d processes of %d EPs for %d s: %d failed; ", procs,
	       neps, secs, bad);
	printf("unreclaimable slab %ld -> %ld kB, pinned pages %ld -> %ld\n",
	       slab0, slab1, pin0, pin1);
	if (slab_kb && slab1 - slab0 > slab_kb)
		return FAIL("unreclaimable slab grew by %ld kB", slab1 - slab0);
	if (pin1 != pin0)
		return FAIL("pinned pages %ld -> %ld", pin0, pin1);
	return bad ? 1 : 0;
}
