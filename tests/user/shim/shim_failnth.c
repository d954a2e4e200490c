// SPDX-License-Identifier: GPL-2.0
/*
 * shim_failnth: every allocation of udapl-shim fails in turn.
 *
 *   LD_PRELOAD=failmalloc.so DAT_OVERRIDE=dat.conf shim_failnth IA_NAME
 *
 * Runs one scenario again and again, each time in a new process: open
 * two IAs, connect an EP of each through a PSP, register memory, send a
 * message, close both IAs.  Run n makes the n-th allocation the shim
 * does (calloc, and the mmap of its rings) fail, through failmalloc.so,
 * until a run goes through with no failure left to inject.  Each failed call must return
 * DAT_INSUFFICIENT_RESOURCES (or DAT_PROVIDER_NOT_FOUND from
 * dat_ia_open(), when the failure stops the provider from loading), the
 * closes must succeed, and afterwards kdapl must hold nothing of the
 * process (debugfs kdapl/objects).  Prints one line per unclean run and
 * "failnth: N runs, N failures injected, N unclean"; exits 0 only if
 * there are none.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dat2/udat.h>

#include "side.h"

#define QUAL	5700
#define LEN	4096
#define WAIT_US	5000000

static int (*arm)(int n);
static bool (*fired)(void);
static char *sbuf, *cbuf;

/* Where the scenario stopped: the call and its return. */
struct stop {
	const char *call;
	DAT_RETURN ret;
};

/* Note where the scenario stopped if @ret is an error; true if so. */
static bool stopped(struct stop *st, const char *call, DAT_RETURN ret)
{
	if (ret == DAT_SUCCESS)
		return false;
	st->call = call;
	st->ret = ret;
	return true;
}

#define CALL(st, expr) stopped(st, #expr, expr)

struct end {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, conn, cr, dto;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	char *buf;
};

static int end_open(struct end *e, struct stop *st)
{
	DAT_REGION_DESCRIPTION region = { .for_va = e->buf };
	DAT_RMR_CONTEXT rctx;
	DAT_VADDR va;
	DAT_VLEN rlen;

	e->async = DAT_HANDLE_NULL;
	if (CALL(st, dat_ia_open(ia_name, 8, &e->async, &e->ia)) ||
	    CALL(st, dat_pz_create(e->ia, &e->pz)) ||
	    CALL(st, dat_evd_create(e->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CONNECTION_FLAG, &e->conn)) ||
	    CALL(st, dat_evd_create(e->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CR_FLAG, &e->cr)) ||
	    CALL(st, dat_evd_create(e->ia, 16, DAT_HANDLE_NULL,
				    DAT_EVD_DTO_FLAG, &e->dto)) ||
	    CALL(st, dat_ep_create(e->ia, e->pz, e->dto, e->dto, e->conn,
				   NULL, &e->ep)) ||
	    CALL(st, dat_lmr_create(e->ia, DAT_MEM_TYPE_VIRTUAL, region, LEN,
				    e->pz, DAT_MEM_PRIV_ALL_FLAG,
				    DAT_VA_TYPE_VA, &e->lmr, &e->lctx, &rctx,
				    &rlen, &va)))
		return -1;
	return 0;
}

static DAT_RETURN wait_for(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	DAT_COUNT nmore;

	return dat_evd_wait(evd, WAIT_US, 1, ev, &nmore);
}

/* Open, connect, send one message; stops at the first failed call. */
static int scenario(struct end *s, struct end *c, struct stop *st)
{
	DAT_LMR_TRIPLET iov = { .segment_length = 64 };
	DAT_DTO_COOKIE ck = { .as_64 = 1 };
	DAT_IA_ATTR attr;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;

	if (end_open(s, st) || end_open(c, st) ||
	    CALL(st, dat_ia_query(s->ia, NULL, DAT_IA_FIELD_ALL, &attr, 0,
				  NULL)) ||
	    CALL(st, dat_psp_create(s->ia, QUAL, s->cr, DAT_PSP_CONSUMER_FLAG,
				    &psp)))
		return -1;
	iov.lmr_context = s->lctx;
	iov.virtual_address = (uintptr_t)s->buf;
	if (CALL(st, dat_ep_post_recv(s->ep, 1, &iov, ck,
				      DAT_COMPLETION_DEFAULT_FLAG)) ||
	    CALL(st, dat_ep_connect(c->ep, attr.ia_address_ptr, QUAL, WAIT_US,
				    0, NULL, DAT_QOS_BEST_EFFORT,
				    DAT_CONNECT_DEFAULT_FLAG)) ||
	    CALL(st, wait_for(s->cr, &ev)) ||
	    CALL(st, dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				   s->ep, 0, NULL)) ||
	    CALL(st, wait_for(c->conn, &ev)) ||
	    CALL(st, wait_for(s->conn, &ev)))
		return -1;
	iov.lmr_context = c->lctx;
	iov.virtual_address = (uintptr_t)c->buf;
	if (CALL(st, dat_ep_post_send(c->ep, 1, &iov, ck,
				      DAT_COMPLETION_DEFAULT_FLAG)) ||
	    CALL(st, wait_for(c->dto, &ev)) ||
	    CALL(st, wait_for(s->dto, &ev)))
		return -1;
	return 0;
}

/* Is the stop one a failed allocation may cause? */
static bool clean_stop(const struct stop *st)
{
	DAT_RETURN type = DAT_GET_TYPE(st->ret);

	return type == DAT_INSUFFICIENT_RESOURCES ||
	       (type == DAT_PROVIDER_NOT_FOUND &&
		!strncmp(st->call, "dat_ia_open", 11));
}

/* Every count of debugfs kdapl/objects is zero; @say what is not. */
static bool kdapl_empty_now(bool say)
{
	FILE *f = fopen("/sys/kernel/debug/kdapl/objects", "r");
	char name[64];
	long v;
	bool empty = true;

	if (!f)
		return false;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		if (v) {
			if (say)
				printf("# left: %s %ld\n", name, v);
			empty = false;
		}
	fclose(f);
	return empty;
}

/* Connections end in work items: up to 10 s for the counts to drop. */
static bool kdapl_empty(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (kdapl_empty_now(false))
			return true;
		usleep(100000);
	}
	return kdapl_empty_now(true);
}

/* Bits of a run's exit status. */
#define RUN_FIRED	1	/* the failure was injected */
#define RUN_UNCLEAN	2	/* something was wrong */
#define RUN_THROUGH	4	/* the scenario went through */

/*
 * Run n, in a child process of its own: libdat2 never loads a provider
 * again in a process where its dat_provider_init() failed once.
 */
static int run(int n)
{
	struct end s = { .buf = sbuf }, c = { .buf = cbuf };
	struct stop st = { NULL, DAT_SUCCESS };
	int ret, status = 0;

	arm(n);
	ret = scenario(&s, &c, &st);
	arm(0);
	if (fired())
		status |= RUN_FIRED;
	if (!ret)
		status |= RUN_THROUGH;
	if (ret && (!fired() || !clean_stop(&st))) {
		printf("# n=%d: %s returned %#x%s\n", n, st.call, st.ret,
		       fired() ? "" : " with no failure injected");
		status |= RUN_UNCLEAN;
	}
	if ((c.ia && dat_ia_close(c.ia, DAT_CLOSE_ABRUPT_FLAG) !=
	     DAT_SUCCESS) ||
	    (s.ia && dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) !=
	     DAT_SUCCESS)) {
		printf("# n=%d: dat_ia_close failed\n", n);
		status |= RUN_UNCLEAN;
	}
	if (!kdapl_empty()) {
		printf("# n=%d: objects left in kdapl\n", n);
		status |= RUN_UNCLEAN;
	}
	return status;
}

/* Run n in a child; its status bits, or RUN_UNCLEAN if it crashed. */
static int run_child(int n)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return RUN_UNCLEAN;
	if (!pid) {
		status = run(n);
		fflush(stdout);
		_exit(status);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("# n=%d: the program died (%#x)\n", n, status);
		return RUN_UNCLEAN;
	}
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	int n, st, injected = 0, unclean = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: shim_failnth IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	sbuf = aligned_alloc(4096, LEN);
	cbuf = aligned_alloc(4096, LEN);
	if (!sbuf || !cbuf)
		return 1;
	arm = (int (*)(int))dlsym(RTLD_DEFAULT, "failmalloc_arm");
	fired = (bool (*)(void))dlsym(RTLD_DEFAULT, "failmalloc_fired");
	if (!arm || !fired) {
		fprintf(stderr, "shim_failnth: LD_PRELOAD failmalloc.so\n");
		return 2;
	}
	for (n = 1; n < 1000; n++) {
		st = run_child(n);
		injected += !!(st & RUN_FIRED);
		unclean += !!(st & RUN_UNCLEAN);
		if ((st & RUN_THROUGH) && !(st & RUN_FIRED))
			break;
	}
	printf("failnth: %d runs, %d failures injected, %d unclean\n", n,
	       injected, unclean);
	/* Every run but the last must have met its failure. */
	if (injected != n - 1 || injected < 5) {
		printf("# the failures did not reach the shim\n");
		return 1;
	}
	return unclean || n == 1000;
}
