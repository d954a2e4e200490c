// SPDX-License-Identifier: GPL-2.0
/*
 * udat_bench: a uDAPL benchmark that runs unchanged over any provider
 * libdat2 loads, so that udapl-shim and OFA's provider are measured by
 * the same code in the same boot.
 *
 *   udat_bench [-t SECONDS] [-w WINDOW] [-s SIZE,...] IA_NAME
 *
 * One thread drives both ends of a connection between two IAs of the
 * same name (two opens), polling with dat_evd_dequeue() as dtest -p
 * does.  For each size it measures:
 *
 *   send_rate, write_rate, read_rate  operations per second with WINDOW
 *	(default 32) outstanding on the initiator;
 *   wimm_rate the same for RDMA Writes with immediate data, each of
 *	which consumes a receive of the peer (IB extension; where the IA
 *	lists DAT_IB_IMMED_DATA);
 *   fadd_rate, cswap_rate  the same for fetch-and-add and
 *	compare-and-swap on 8 bytes, at the size 8 only (where the IA
 *	lists the atomics);
 *   send_lat  half the round trip of a send/receive ping-pong;
 *   write_lat half the round trip of an RDMA Write ping-pong in which
 *	each side only polls its memory for the peer's write (no event
 *	tells it): batching that held a post back would stall it;
 *   read_lat  one RDMA Read, posted and reaped.
 *
 * and, once, conn_rate: connections per second, each a new EP pair
 * connected, established on both sides, disconnected and freed, as
 * dtestcm measures them but one at a time;
 *
 * and the system calls the thread made per operation, counted by the
 * kernel (perf_event_open() on the raw_syscalls:sys_enter tracepoint;
 * -1 where tracefs is not mounted).  Each result is one line:
 *
 *   UB <test> <size> <value> <unit> <syscalls per op>
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#define UB_QUAL		0x5542
#define UB_WINDOW_MAX	64
#define UB_TIMEOUT	(10 * 1000 * 1000)

/* Operations of ub_post(). */
enum ub_op {
	UB_SEND,
	UB_WRITE,
	UB_READ,
	UB_WRITE_IMMED,
	UB_FETCH_ADD,
	UB_CMP_SWAP,
	UB_NR_OPS
};

struct ub_side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, conn, cr, req, rcv;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lkey;
	DAT_RMR_CONTEXT rkey;
	DAT_IA_ADDRESS_PTR addr;
	unsigned char *buf;
	unsigned char *rx;
	long posted_recvs;
	int immed, atomics;
};

static double ub_seconds = 0.5;
static int ub_window = 32;
static size_t ub_max_size;
static int ub_sysfd = -1;

static void ub_die(const char *what, DAT_RETURN ret)
{
	const char *major = "?", *minor = "?";

	dat_strerror(ret, &major, &minor);
	fprintf(stderr, "udat_bench: %s: %s %s (%#x)\n", what, major, minor,
		ret);
	exit(1);
}

static void ub_check(const char *what, DAT_RETURN ret)
{
	if (ret != DAT_SUCCESS)
		ub_die(what, ret);
}

static long long ub_clock_calls;
static int ub_clock_syscall;

static double ub_now(void)
{
	struct timespec t;

	ub_clock_calls++;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Count the thread's system calls from here on, if the kernel lets us. */
static void ub_syscalls_open(void)
{
	struct perf_event_attr a = { 0 };
	unsigned long long id;
	FILE *f;

	f = fopen("/sys/kernel/tracing/events/raw_syscalls/sys_enter/id", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
			  "r");
	if (!f)
		return;
	if (fscanf(f, "%llu", &id) != 1)
		id = 0;
	fclose(f);
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = id;
	a.exclude_kernel = 0;
	ub_sysfd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/*
 * The thread's system calls so far, less its clock reads where the clock
 * is one (a guest whose clocksource the vDSO cannot read): the polling
 * loops read it, and the figure is about the provider's calls.
 */
static long long ub_syscalls(void)
{
	long long n;

	if (ub_sysfd < 0 || read(ub_sysfd, &n, sizeof(n)) != sizeof(n))
		return -1;
	return ub_clock_syscall ? n - ub_clock_calls : n;
}

/* Is clock_gettime() a system call here?  Count 100 of them. */
static void ub_clock_probe(void)
{
	long long before, after;
	int i;

	before = ub_syscalls();
	for (i = 0; i < 100; i++)
		ub_now();
	after = ub_syscalls();
	ub_clock_syscall = before >= 0 && after - before >= 100;
}

static void ub_evd(struct ub_side *s, DAT_COUNT qlen, DAT_EVD_FLAGS flags,
		   DAT_EVD_HANDLE *evd)
{
	ub_check("dat_evd_create",
		 dat_evd_create(s->ia, qlen, DAT_HANDLE_NULL, flags, evd));
}

/* Does the provider attribute @name say TRUE? */
static int ub_attr(const DAT_PROVIDER_ATTR *p, const char *name)
{
	int i;

	for (i = 0; i < p->num_provider_specific_attr; i++)
		if (!strcmp(p->provider_specific_attr[i].name, name))
			return !strcmp(p->provider_specific_attr[i].value,
				       "TRUE");
	return 0;
}

static void ub_open(struct ub_side *s, char *name)
{
	DAT_REGION_DESCRIPTION region;
	DAT_VADDR reg_addr;
	DAT_VLEN reg_len;
	DAT_PROVIDER_ATTR pattr;
	DAT_IA_ATTR attr;
	DAT_EP_ATTR ea;

	s->async = DAT_HANDLE_NULL;
	ub_check("dat_ia_open", dat_ia_open(name, 8, &s->async, &s->ia));
	ub_check("dat_ia_query", dat_ia_query(s->ia, NULL, DAT_IA_FIELD_ALL,
					      &attr, DAT_PROVIDER_FIELD_ALL,
					      &pattr));
	s->addr = attr.ia_address_ptr;
	s->immed = ub_attr(&pattr, DAT_IB_ATTR_IMMED_DATA);
	s->atomics = ub_attr(&pattr, DAT_IB_ATTR_FETCH_AND_ADD) &&
		     ub_attr(&pattr, DAT_IB_ATTR_CMP_AND_SWAP);
	ub_check("dat_pz_create", dat_pz_create(s->ia, &s->pz));
	ub_evd(s, 8, DAT_EVD_CONNECTION_FLAG, &s->conn);
	ub_evd(s, 8, DAT_EVD_CR_FLAG, &s->cr);
	ub_evd(s, 4 * UB_WINDOW_MAX, DAT_EVD_DTO_FLAG, &s->req);
	ub_evd(s, 4 * UB_WINDOW_MAX, DAT_EVD_DTO_FLAG, &s->rcv);

	memset(&ea, 0, sizeof(ea));
	ea.service_type = DAT_SERVICE_TYPE_RC;
	ea.max_message_size = ub_max_size;
	ea.max_rdma_size = ub_max_size;
	ea.qos = DAT_QOS_BEST_EFFORT;
	ea.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	ea.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	ea.max_recv_dtos = 2 * UB_WINDOW_MAX;
	ea.max_request_dtos = 2 * UB_WINDOW_MAX;
	ea.max_recv_iov = 1;
	ea.max_request_iov = 1;
	ea.max_rdma_read_in = attr.max_rdma_read_per_ep_in < 16 ?
			      attr.max_rdma_read_per_ep_in : 16;
	ea.max_rdma_read_out = attr.max_rdma_read_per_ep_out < 16 ?
			       attr.max_rdma_read_per_ep_out : 16;
	ea.max_rdma_read_iov = 1;
	ea.max_rdma_write_iov = 1;
	ub_check("dat_ep_create", dat_ep_create(s->ia, s->pz, s->rcv, s->req,
						s->conn, &ea, &s->ep));

	/* Two halves: what the side sends from, and what the peer targets. */
	s->buf = mmap(NULL, 2 * ub_max_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->buf == MAP_FAILED) {
		perror("udat_bench: mmap");
		exit(1);
	}
	memset(s->buf, 0, 2 * ub_max_size);
	s->rx = s->buf + ub_max_size;
	region.for_va = s->buf;
	ub_check("dat_lmr_create",
		 dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, region,
				2 * ub_max_size, s->pz, DAT_MEM_PRIV_ALL_FLAG |
				(s->atomics ? DAT_IB_MEM_PRIV_REMOTE_ATOMIC : 0),
				DAT_VA_TYPE_VA, &s->lmr, &s->lkey, &s->rkey,
				&reg_len, &reg_addr));
}

static void ub_wait(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER number,
		    const char *what)
{
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ub_check(what, dat_evd_wait(evd, UB_TIMEOUT, 1, &ev, &nmore));
	if (ev.event_number != number) {
		fprintf(stderr, "udat_bench: %s: event %#x\n", what,
			ev.event_number);
		exit(1);
	}
}

static void ub_connect(struct ub_side *a, struct ub_side *b)
{
	DAT_PSP_HANDLE psp;
	DAT_COUNT nmore;
	DAT_EVENT ev;

	ub_check("dat_psp_create",
		 dat_psp_create(b->ia, UB_QUAL, b->cr, DAT_PSP_CONSUMER_FLAG,
				&psp));
	ub_check("dat_ep_connect",
		 dat_ep_connect(a->ep, b->addr, UB_QUAL, UB_TIMEOUT, 0, NULL,
				DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG));
	ub_check("request", dat_evd_wait(b->cr, UB_TIMEOUT, 1, &ev, &nmore));
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
		ub_die("no request", DAT_INTERNAL_ERROR);
	ub_check("dat_cr_accept",
		 dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			       b->ep, 0, NULL));
	ub_wait(b->conn, DAT_CONNECTION_EVENT_ESTABLISHED, "server");
	ub_wait(a->conn, DAT_CONNECTION_EVENT_ESTABLISHED, "client");
	ub_check("dat_psp_free", dat_psp_free(psp));
}

/* One completion of @evd if there is one: 1, 0, or exits on an error. */
static int ub_reap(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;
	DAT_RETURN ret = dat_evd_dequeue(evd, &ev);

	if (DAT_GET_TYPE(ret) == DAT_QUEUE_EMPTY)
		return 0;
	ub_check("dat_evd_dequeue", ret);
	if ((ev.event_number != DAT_DTO_COMPLETION_EVENT &&
	     ev.event_number != (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT) ||
	    ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
		fprintf(stderr, "udat_bench: completion %#x status %d\n",
			ev.event_number,
			ev.event_data.dto_completion_event_data.status);
		exit(1);
	}
	return 1;
}

static DAT_LMR_TRIPLET ub_iov(struct ub_side *s, void *p, size_t size)
{
	DAT_LMR_TRIPLET iov = {
		.lmr_context = s->lkey,
		.virtual_address = (uintptr_t)p,
		.segment_length = size,
	};

	return iov;
}

/* Whole-half receives: any size the test goes on with fits. */
static void ub_post_recv(struct ub_side *s)
{
	DAT_LMR_TRIPLET iov = ub_iov(s, s->rx, ub_max_size);
	DAT_DTO_COOKIE c = { .as_64 = 0 };

	ub_check("dat_ep_post_recv",
		 dat_ep_post_recv(s->ep, 1, &iov, c,
				  DAT_COMPLETION_DEFAULT_FLAG));
	s->posted_recvs++;
}

static void ub_post(struct ub_side *s, struct ub_side *peer, enum ub_op op,
		    size_t size)
{
	DAT_RMR_TRIPLET r = {
		.rmr_context = peer->rkey,
		.virtual_address = (uintptr_t)peer->rx,
		.segment_length = size,
	};
	DAT_LMR_TRIPLET iov = ub_iov(s, s->buf, size);
	DAT_DTO_COOKIE c = { .as_64 = 1 };
	DAT_COMPLETION_FLAGS f = DAT_COMPLETION_DEFAULT_FLAG;
	DAT_RETURN ret;

	switch (op) {
	case UB_SEND:
		ret = dat_ep_post_send(s->ep, 1, &iov, c, f);
		break;
	case UB_WRITE:
		ret = dat_ep_post_rdma_write(s->ep, 1, &iov, c, &r, f);
		break;
	case UB_READ:
		ret = dat_ep_post_rdma_read(s->ep, 1, &iov, c, &r, f);
		break;
	case UB_WRITE_IMMED:
		ret = dat_ib_post_rdma_write_immed(s->ep, 1, &iov, c, &r, 7, f);
		break;
	case UB_FETCH_ADD:
		ret = dat_ib_post_fetch_and_add(s->ep, 1, &iov, c, &r, f);
		break;
	default:
		ret = dat_ib_post_cmp_and_swap(s->ep, 0, 1, &iov, c, &r, f);
		break;
	}
	ub_check("post", ret);
}

/* Does @op consume a receive of the peer? */
static int ub_consumes(enum ub_op op)
{
	return op == UB_SEND || op == UB_WRITE_IMMED;
}

/* Reap @b's receives and keep two windows of them posted. */
static void ub_refill(struct ub_side *b)
{
	while (ub_reap(b->rcv))
		b->posted_recvs--;
	while (b->posted_recvs < 2 * ub_window)
		ub_post_recv(b);
}

static void ub_report(const char *test, size_t size, double value,
		      const char *unit, long long calls, long ops)
{
	printf("UB %s %zu %.3f %s %.3f\n", test, size, value, unit,
	       calls < 0 ? -1.0 : (double)calls / ops);
	fflush(stdout);
}

/* A measurement that makes no progress for long fails; it never hangs. */
static void ub_stuck(double t0)
{
	if (ub_now() - t0 > ub_seconds + 60) {
		fprintf(stderr, "udat_bench: no progress for a minute\n");
		exit(1);
	}
}

/* Wait for one completion of @evd. */
static void ub_reap_one(DAT_EVD_HANDLE evd, double t0)
{
	while (!ub_reap(evd))
		ub_stuck(t0);
}

/* @op with WINDOW outstanding. */
static void ub_rate(struct ub_side *a, struct ub_side *b, enum ub_op op,
		    size_t size)
{
	static const char * const name[UB_NR_OPS] = {
		"send_rate", "write_rate", "read_rate", "wimm_rate",
		"fadd_rate", "cswap_rate",
	};
	long done = 0, out = 0;
	long long calls;
	double t0, t;

	if (ub_consumes(op))
		ub_refill(b);
	calls = ub_syscalls();
	t0 = ub_now();
	do {
		while (out < ub_window) {
			ub_post(a, b, op, size);
			out++;
		}
		while (ub_reap(a->req)) {
			out--;
			done++;
		}
		if (ub_consumes(op))
			ub_refill(b);
		ub_stuck(t0);
		t = ub_now();
	} while (t - t0 < ub_seconds || done < 16);
	if (calls >= 0)
		calls = ub_syscalls() - calls;
	while (out) {
		out -= ub_reap(a->req);
		if (ub_consumes(op))
			ub_refill(b);
		ub_stuck(t0);
	}
	ub_report(name[op], size, done / (t - t0), "ops/s", calls, done);
}

static void ub_send_lat(struct ub_side *a, struct ub_side *b, size_t size)
{
	long iters = 0;
	long long calls;
	double t0, t;

	ub_refill(a);
	ub_refill(b);
	calls = ub_syscalls();
	t0 = ub_now();
	do {
		ub_post(a, b, UB_SEND, size);
		ub_reap_one(b->rcv, t0);
		b->posted_recvs--;
		ub_post_recv(b);
		ub_post(b, a, UB_SEND, size);
		ub_reap_one(a->rcv, t0);
		a->posted_recvs--;
		ub_post_recv(a);
		ub_reap_one(a->req, t0);
		ub_reap_one(b->req, t0);
		iters++;
		t = ub_now();
	} while (t - t0 < ub_seconds || iters < 16);
	if (calls >= 0)
		calls = ub_syscalls() - calls;
	ub_report("send_lat", size, (t - t0) / iters / 2 * 1e6, "us", calls,
		  2 * iters);
}

/* A byte the device writes: read anew each time. */
static unsigned char ub_peek(const unsigned char *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/*
 * RDMA Write ping-pong: each write carries a sequence number in its last
 * byte, which the receiver polls for in its memory.  Completions of the
 * writes are reaped as they come, never waited for.
 */
static void ub_write_lat(struct ub_side *a, struct ub_side *b, size_t size)
{
	unsigned char *fa = a->rx + size - 1;
	unsigned char *fb = b->rx + size - 1;
	long iters = 0, out_a = 0, out_b = 0;
	unsigned char seq = 0;
	long long calls;
	double t0, t;

	*fa = 0;
	*fb = 0;
	calls = ub_syscalls();
	t0 = ub_now();
	do {
		seq = seq == 255 ? 1 : seq + 1;
		a->buf[size - 1] = seq;
		ub_post(a, b, UB_WRITE, size);
		out_a++;
		while (ub_peek(fb) != seq) {
			out_a -= ub_reap(a->req);
			ub_stuck(t0);
		}
		b->buf[size - 1] = seq;
		ub_post(b, a, UB_WRITE, size);
		out_b++;
		while (ub_peek(fa) != seq) {
			out_b -= ub_reap(b->req);
			ub_stuck(t0);
		}
		/* Keep the send queues from filling up. */
		while (out_a > ub_window || out_b > ub_window) {
			out_a -= ub_reap(a->req);
			out_b -= ub_reap(b->req);
			ub_stuck(t0);
		}
		iters++;
		t = ub_now();
	} while (t - t0 < ub_seconds || iters < 16);
	if (calls >= 0)
		calls = ub_syscalls() - calls;
	while (out_a || out_b) {
		out_a -= ub_reap(a->req);
		out_b -= ub_reap(b->req);
		ub_stuck(t0);
	}
	ub_report("write_lat", size, (t - t0) / iters / 2 * 1e6, "us", calls,
		  2 * iters);
}

static void ub_read_lat(struct ub_side *a, struct ub_side *b, size_t size)
{
	long iters = 0;
	long long calls;
	double t0, t;

	calls = ub_syscalls();
	t0 = ub_now();
	do {
		ub_post(a, b, UB_READ, size);
		ub_reap_one(a->req, t0);
		iters++;
		t = ub_now();
	} while (t - t0 < ub_seconds || iters < 16);
	if (calls >= 0)
		calls = ub_syscalls() - calls;
	ub_report("read_lat", size, (t - t0) / iters * 1e6, "us", calls,
		  iters);
}

/* An EP of @s on its EVDs, with the attributes of its first. */
static DAT_EP_HANDLE ub_ep(struct ub_side *s)
{
	DAT_EP_PARAM p;
	DAT_EP_HANDLE ep;

	ub_check("dat_ep_query", dat_ep_query(s->ep, DAT_EP_FIELD_ALL, &p));
	ub_check("dat_ep_create", dat_ep_create(s->ia, s->pz, s->rcv, s->req,
						s->conn, &p.ep_attr, &ep));
	return ep;
}

/*
 * Connections per second: each a new EP on both sides, connected
 * through a PSP, established on both, disconnected and freed.
 */
static void ub_conn_rate(struct ub_side *a, struct ub_side *b)
{
	DAT_EP_HANDLE ea, eb;
	DAT_PSP_HANDLE psp;
	long iters = 0;
	long long calls;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	double t0, t;

	ub_check("dat_psp_create",
		 dat_psp_create(b->ia, UB_QUAL + 1, b->cr,
				DAT_PSP_CONSUMER_FLAG, &psp));
	calls = ub_syscalls();
	t0 = ub_now();
	do {
		ea = ub_ep(a);
		eb = ub_ep(b);
		ub_check("dat_ep_connect",
			 dat_ep_connect(ea, b->addr, UB_QUAL + 1, UB_TIMEOUT,
					0, NULL, DAT_QOS_BEST_EFFORT,
					DAT_CONNECT_DEFAULT_FLAG));
		ub_check("request",
			 dat_evd_wait(b->cr, UB_TIMEOUT, 1, &ev, &nmore));
		if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
			ub_die("no request", DAT_INTERNAL_ERROR);
		ub_check("dat_cr_accept",
			 dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				       eb, 0, NULL));
		ub_wait(b->conn, DAT_CONNECTION_EVENT_ESTABLISHED, "server");
		ub_wait(a->conn, DAT_CONNECTION_EVENT_ESTABLISHED, "client");
		ub_check("dat_ep_disconnect",
			 dat_ep_disconnect(ea, DAT_CLOSE_GRACEFUL_FLAG));
		ub_wait(a->conn, DAT_CONNECTION_EVENT_DISCONNECTED, "client");
		ub_wait(b->conn, DAT_CONNECTION_EVENT_DISCONNECTED, "server");
		ub_check("dat_ep_free", dat_ep_free(ea));
		ub_check("dat_ep_free", dat_ep_free(eb));
		iters++;
		t = ub_now();
	} while (t - t0 < ub_seconds || iters < 8);
	if (calls >= 0)
		calls = ub_syscalls() - calls;
	ub_check("dat_psp_free", dat_psp_free(psp));
	ub_report("conn_rate", 0, iters / (t - t0), "conn/s", calls, iters);
}

/* The receives still posted complete as flushed; the close drops them. */
static void ub_close(struct ub_side *s)
{
	ub_check("dat_ep_free", dat_ep_free(s->ep));
	ub_check("dat_lmr_free", dat_lmr_free(s->lmr));
	munmap(s->buf, 2 * ub_max_size);
	ub_check("dat_ia_close", dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG));
}

static size_t ub_parse_sizes(char *arg, size_t *sizes, size_t max)
{
	size_t n = 0;
	char *tok;

	for (tok = strtok(arg, ","); tok && n < max; tok = strtok(NULL, ","))
		sizes[n++] = strtoul(tok, NULL, 0);
	return n;
}

int main(int argc, char **argv)
{
	size_t sizes[16] = { 8, 64, 512, 4096, 32768, 262144, 1048576 };
	size_t nsizes = 7, i;
	struct ub_side a = { 0 }, b = { 0 };
	DAT_EVENT ev;
	int opt;

	while ((opt = getopt(argc, argv, "t:w:s:")) != -1) {
		switch (opt) {
		case 't':
			ub_seconds = atof(optarg);
			break;
		case 'w':
			ub_window = atoi(optarg);
			break;
		case 's':
			nsizes = ub_parse_sizes(optarg, sizes, 16);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || ub_window < 1 || ub_window > UB_WINDOW_MAX ||
	    !nsizes)
		goto usage;
	for (i = 0; i < nsizes; i++) {
		if (sizes[i] < 8)
			goto usage;
		if (sizes[i] > ub_max_size)
			ub_max_size = sizes[i];
	}
	ub_max_size = (ub_max_size + 4095) & ~(size_t)4095;

	ub_open(&a, argv[optind]);
	ub_open(&b, argv[optind]);
	ub_connect(&a, &b);
	ub_syscalls_open();
	ub_clock_probe();
	for (i = 0; i < nsizes; i++) {
		ub_rate(&a, &b, UB_SEND, sizes[i]);
		ub_rate(&a, &b, UB_WRITE, sizes[i]);
		ub_rate(&a, &b, UB_READ, sizes[i]);
		if (a.immed && b.immed)
			ub_rate(&a, &b, UB_WRITE_IMMED, sizes[i]);
		if (a.atomics && b.atomics && sizes[i] == 8) {
			ub_rate(&a, &b, UB_FETCH_ADD, 8);
			ub_rate(&a, &b, UB_CMP_SWAP, 8);
		}
		ub_send_lat(&a, &b, sizes[i]);
		ub_write_lat(&a, &b, sizes[i]);
		ub_read_lat(&a, &b, sizes[i]);
	}
	ub_conn_rate(&a, &b);
	ub_check("dat_ep_disconnect",
		 dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dat_evd_wait(a.conn, UB_TIMEOUT, 1, &ev, NULL);
	dat_evd_wait(b.conn, UB_TIMEOUT, 1, &ev, NULL);
	ub_close(&a);
	ub_close(&b);
	return 0;

usage:
	fprintf(stderr,
		"usage: udat_bench [-t SECONDS] [-w WINDOW] [-s SIZE,...] IA_NAME\n");
	return 2;
}
