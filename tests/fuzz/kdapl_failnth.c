// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_failnth: every allocation an ioctl of /dev/kdapl makes, failed in
 * turn.
 *
 *   kdapl_failnth [-a] IA_NAME
 *
 * A fixed sequence of calls takes a file from open to a connected
 * endpoint with posted work and back (the stages below).  For each
 * stage and each n, a fresh file runs the stages before it, then the
 * stage's call with the thread's fail-nth set to n: the n-th slab
 * allocation of the call fails (CONFIG_FAILSLAB, with
 * /sys/kernel/debug/failslab/ignore-gfp-wait off).  The call must come
 * back clean: DAT_SUCCESS (the failure was absorbed),
 * DAT_INSUFFICIENT_RESOURCES, or ENOMEM; then the file is closed and
 * debugfs "objects" must count nothing.  A stage is done at the first n
 * that its call does not reach.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <rdma/kdapl_ioctl.h>

#define FN_QUAL		31000
#define FN_MAX_NTH	300

/* What the stages made so far. */
struct fn_ctx {
	int fd;
	int nth;	/* fail-nth for the stage's call, 0 for none */
	bool hit;	/* the failure was injected */
	__u32 ia, pz, dto_evd, conn_evd, cr_evd, cno, lmr, ep, ep2, psp;
	__u32 lmr_context;
	__u8 addr[128];
	void *cr_ring, *post_ring;
	size_t cr_ring_size, post_ring_size;
	char *buf;	/* a page, registered */
};

static const char *ia_name;
static int failnth_fd = -1;

/* Arm the calling thread's fail-nth; -1 if it cannot be. */
static int fn_arm(int nth)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", nth);

	if (failnth_fd < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
			 (long)syscall(SYS_gettid));
		failnth_fd = open(path, O_RDWR);
		if (failnth_fd < 0)
			return -1;
	}
	return pwrite(failnth_fd, s, len, 0) == len ? 0 : -1;
}

/* Disarm; true if the failure was injected (the counter reached 0). */
static bool fn_disarm(void)
{
	char s[16] = "";

	if (pread(failnth_fd, s, sizeof(s) - 1, 0) <= 0)
		return false;
	if (atoi(s) == 0)
		return true;
	fn_arm(0);
	return false;
}

/* One ioctl; armed when @c->nth is set.  Returns status or -errno. */
static long fn_call(struct fn_ctx *c, unsigned int nr, void *arg, size_t size)
{
	struct kdapl_ioc_head *h = arg;
	int ret;

	h->size = size;
	h->status = 0xdeadbeef;
	if (c->nth && fn_arm(c->nth)) {
		perror("kdapl_failnth: fail-nth");
		exit(2);
	}
	ret = ioctl(c->fd, KDAPL_IOC(nr), arg);
	if (c->nth) {
		c->hit = fn_disarm();
		c->nth = 0;
	}
	return ret ? -errno : (long)h->status;
}

#define FN_CALL(c, nr, a) fn_call(c, KDAPL_NR_##nr, &(a), sizeof(a))

static long st_ia_open(struct fn_ctx *c)
{
	struct kdapl_ioc_ia_open a = { .async_qlen = 8 };
	long r;

	strncpy(a.name, ia_name, sizeof(a.name) - 1);
	r = FN_CALL(c, IA_OPEN, a);
	c->ia = a.ia_id;
	return r;
}

static long st_ia_query(struct fn_ctx *c)
{
	struct kdapl_ioc_ia_query a = { .ia_id = c->ia };
	long r = FN_CALL(c, IA_QUERY, a);

	memcpy(c->addr, a.addr, sizeof(c->addr));
	return r;
}

static long st_pz(struct fn_ctx *c)
{
	struct kdapl_ioc_pz_create a = { .ia_id = c->ia };
	long r = FN_CALL(c, PZ_CREATE, a);

	c->pz = a.pz_id;
	return r;
}

static long fn_evd(struct fn_ctx *c, __u32 flags, __u32 *id,
		   void **ring, size_t *size)
{
	struct kdapl_ioc_evd_create a = {
		.ia_id = c->ia, .qlen = 16, .flags = flags, .cno_id = c->cno,
	};
	long r = FN_CALL(c, EVD_CREATE, a);

	*id = a.evd_id;
	if (r == DAT_SUCCESS && ring) {
		*ring = mmap(NULL, a.ring_size, PROT_READ | PROT_WRITE,
			     MAP_SHARED, c->fd, a.ring_offset);
		*size = a.ring_size;
		if (*ring == MAP_FAILED)
			return -EFAULT;
	}
	return r;
}

static long st_cno(struct fn_ctx *c)
{
	struct kdapl_ioc_cno_create a = { .ia_id = c->ia,
					  .flags = KDAPL_CNO_FD };
	long r = FN_CALL(c, CNO_CREATE, a);

	if (r == DAT_SUCCESS)
		close(a.fd);
	c->cno = a.cno_id;
	return r;
}

static long st_dto_evd(struct fn_ctx *c)
{
	return fn_evd(c, DAT_EVD_DTO_FLAG, &c->dto_evd, NULL, NULL);
}

static long st_conn_evd(struct fn_ctx *c)
{
	return fn_evd(c, DAT_EVD_CONNECTION_FLAG, &c->conn_evd, NULL, NULL);
}

static long st_cr_evd(struct fn_ctx *c)
{
	return fn_evd(c, DAT_EVD_CR_FLAG, &c->cr_evd, &c->cr_ring,
		      &c->cr_ring_size);
}

static long st_evd_fd(struct fn_ctx *c)
{
	struct kdapl_ioc_evd_fd a = { .evd_id = c->dto_evd };
	long r = FN_CALL(c, EVD_FD, a);

	if (r == DAT_SUCCESS)
		close(a.fd);
	return r;
}

static long st_lmr(struct fn_ctx *c)
{
	struct kdapl_ioc_lmr_create a = {
		.ia_id = c->ia, .pz_id = c->pz, .addr = (uintptr_t)c->buf,
		.length = 4096, .privileges = DAT_MEM_PRIV_ALL_FLAG,
	};
	long r = FN_CALL(c, LMR_CREATE, a);

	c->lmr = a.lmr_id;
	c->lmr_context = a.lmr_context;
	return r;
}

static long fn_ep(struct fn_ctx *c, __u32 *id)
{
	struct kdapl_ioc_ep_create a = {
		.ia_id = c->ia, .pz_id = c->pz, .recv_evd_id = c->dto_evd,
		.request_evd_id = c->dto_evd, .connect_evd_id = c->conn_evd,
	};
	long r = FN_CALL(c, EP_CREATE, a);

	*id = a.ep_id;
	return r;
}

static long st_ep(struct fn_ctx *c)
{
	return fn_ep(c, &c->ep);
}

static long st_ep_ring(struct fn_ctx *c)
{
	struct kdapl_ioc_ep_ring a = { .ep_id = c->ep };
	long r = FN_CALL(c, EP_RING, a);

	if (r != DAT_SUCCESS)
		return r;
	c->post_ring = mmap(NULL, a.ring_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, c->fd, a.ring_offset);
	c->post_ring_size = a.ring_size;
	return c->post_ring == MAP_FAILED ? -EFAULT : r;
}

static long st_psp(struct fn_ctx *c)
{
	struct kdapl_ioc_psp_create a = { .ia_id = c->ia, .evd_id = c->cr_evd,
					  .conn_qual = FN_QUAL };
	long r = FN_CALL(c, PSP_CREATE, a);

	c->psp = a.psp_id;
	return r;
}

static long st_connect(struct fn_ctx *c)
{
	struct kdapl_ioc_ep_connect a = { .ep_id = c->ep, .conn_qual = FN_QUAL,
					  .timeout_us = 5000000 };

	memcpy(a.addr, c->addr, sizeof(a.addr));
	return FN_CALL(c, EP_CONNECT, a);
}

/* The connection request: wait for it in the CR EVD's ring, accept. */
static long st_accept(struct fn_ctx *c)
{
	struct kdapl_ioc_evd_wait w = { .evd_id = c->cr_evd, .threshold = 1,
					.timeout_us = 10000000 };
	struct kdapl_ioc_cr_reply a = { 0 };
	struct kdapl_ring_head *h = c->cr_ring;
	const struct kdapl_uevent *ev;
	int nth = c->nth;

	c->nth = 0;
	if (FN_CALL(c, EVD_WAIT, w) != DAT_SUCCESS ||
	    fn_ep(c, &c->ep2) != DAT_SUCCESS)
		return -ETIMEDOUT;
	ev = (const void *)((char *)c->cr_ring + KDAPL_RING_EVENTS);
	ev += h->head & (h->entries - 1);
	if (ev->number != DAT_CONNECTION_REQUEST_EVENT)
		return -EBADMSG;
	a.cr_id = ev->new_id;
	a.ep_id = c->ep2;
	__atomic_store_n(&h->head, h->head + 1, __ATOMIC_RELEASE);
	c->nth = nth;
	return FN_CALL(c, CR_ACCEPT, a);
}

/* A receive written into the post ring, then the doorbell. */
static long st_post(struct fn_ctx *c)
{
	struct kdapl_post_head *h = c->post_ring;
	struct kdapl_post_record *rec;
	struct kdapl_ioc_ep_post a = { .ep_id = c->ep,
				       .flags = KDAPL_POST_SYNC };

	rec = (void *)((char *)c->post_ring + KDAPL_POST_RECORDS +
		       (size_t)(h->head & (h->entries - 1)) * h->stride);
	memset(rec, 0, h->stride);
	rec->op = DAT_DTO_RECEIVE;
	rec->num_segments = 1;
	rec->sge[0].virtual_address = (uintptr_t)c->buf;
	rec->sge[0].segment_length = 64;
	rec->sge[0].context = c->lmr_context;
	__atomic_store_n(&h->head, h->head + 1, __ATOMIC_RELEASE);
	return FN_CALL(c, EP_POST, a);
}

static long fn_free(struct fn_ctx *c, unsigned int nr, __u32 id)
{
	struct kdapl_ioc_obj_free a = { .id = id };

	return fn_call(c, nr, &a, sizeof(a));
}

static long st_disconnect(struct fn_ctx *c)
{
	return fn_free(c, KDAPL_NR_EP_DISCONNECT, c->ep);
}

static long st_ep_free(struct fn_ctx *c)
{
	return fn_free(c, KDAPL_NR_EP_FREE, c->ep2);
}

static long st_ia_close(struct fn_ctx *c)
{
	return fn_free(c, KDAPL_NR_IA_CLOSE, c->ia);
}

/*
 * @driver: the call sets up a QP in the driver (ep_connect, cr_accept),
 * whose error paths in rxe and siw of 6.1 are broken under allocation
 * failures (rxe cleans up a lock it never initialised when its UDP
 * socket cannot be made, siw frees its inbound read queue twice): those
 * calls are made to fail only with -a.
 */
static const struct {
	const char *name;
	long (*run)(struct fn_ctx *c);
	bool driver;
} stages[] = {
	{ "ia_open", st_ia_open, false },
	{ "ia_query", st_ia_query, false },
	{ "pz_create", st_pz, false },
	{ "cno_create", st_cno, false },
	{ "evd_create(dto)", st_dto_evd, false },
	{ "evd_create(conn)", st_conn_evd, false },
	{ "evd_create(cr)", st_cr_evd, false },
	{ "evd_fd", st_evd_fd, false },
	{ "lmr_create", st_lmr, false },
	{ "ep_create", st_ep, false },
	{ "ep_ring", st_ep_ring, false },
	{ "psp_create", st_psp, false },
	{ "ep_connect", st_connect, true },
	{ "cr_accept", st_accept, true },
	{ "ep_post", st_post, false },
	{ "ep_disconnect", st_disconnect, false },
	{ "ep_free", st_ep_free, false },
	{ "ia_close", st_ia_close, false },
};

#define NSTAGES (sizeof(stages) / sizeof((stages)[0]))

/* Are all counts of debugfs "objects" zero?  Waits up to 10 s. */
static bool fn_nothing_left(void)
{
	char line[128];
	int tries;

	for (tries = 0; tries < 100; tries++) {
		FILE *f = fopen("/sys/kernel/debug/kdapl/objects", "r");
		bool clean = true;

		if (!f)
			return false;
		while (fgets(line, sizeof(line), f)) {
			const char *n = strchr(line, ' ');

			if (n && atol(n + 1) != 0)
				clean = false;
		}
		fclose(f);
		if (clean)
			return true;
		usleep(100000);
	}
	return false;
}

static void fn_teardown(struct fn_ctx *c)
{
	if (c->cr_ring && c->cr_ring != MAP_FAILED)
		munmap(c->cr_ring, c->cr_ring_size);
	if (c->post_ring && c->post_ring != MAP_FAILED)
		munmap(c->post_ring, c->post_ring_size);
	close(c->fd);
}

/* A fresh file through stage @k, its call failing at @nth. */
static int fn_run(struct fn_ctx *c, unsigned int k, int nth, long *res)
{
	struct kdapl_ioc_hello h = { .head.size = sizeof(h),
				     .abi_version = KDAPL_ABI_VERSION };
	unsigned int i;
	long r;

	memset(c, 0, offsetof(struct fn_ctx, buf));
	if (!c->buf)
		c->buf = aligned_alloc(4096, 4096);
	if (!c->buf)
		return -1;
	c->fd = open("/dev/kdapl", O_RDWR | O_CLOEXEC);
	if (c->fd < 0 || ioctl(c->fd, KDAPL_IOC_HELLO, &h))
		return -1;
	for (i = 0; i < k; i++) {
		r = stages[i].run(c);
		if (r != DAT_SUCCESS) {
			printf("not ok: stage %s failed (%#lx) with nothing injected\n",
			       stages[i].name, r);
			fn_teardown(c);
			return -1;
		}
	}
	c->nth = nth;
	*res = stages[k].run(c);
	fn_teardown(c);
	return 0;
}

int main(int argc, char **argv)
{
	static struct fn_ctx c;
	unsigned int k, injected = 0, bad = 0;
	bool all = false;
	int nth;
	long r;

	if (argc == 3 && !strcmp(argv[1], "-a")) {
		all = true;
		argv++;
	} else if (argc != 2) {
		fprintf(stderr, "usage: kdapl_failnth [-a] IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	for (k = 0; k < NSTAGES; k++) {
		if (stages[k].driver && !all) {
			printf("%s: not failed (the driver's error paths)\n",
			       stages[k].name);
			continue;
		}
		for (nth = 1; nth <= FN_MAX_NTH; nth++) {
			if (fn_run(&c, k, nth, &r))
				return 1;
			if (!c.hit)
				break;
			injected++;
			if (r != DAT_SUCCESS && r != -ENOMEM &&
			    DAT_GET_TYPE(r) != DAT_INSUFFICIENT_RESOURCES) {
				printf("not ok: %s with allocation %d failed: %#lx\n",
				       stages[k].name, nth, r);
				bad++;
			}
			if (!fn_nothing_left()) {
				printf("not ok: %s with allocation %d failed: %s\n",
				       stages[k].name, nth,
				       "objects left after close");
				bad++;
			}
		}
		printf("%s: %d allocation(s) failed in turn%s\n", stages[k].name,
		       nth - 1, r == DAT_SUCCESS ? "" : ", then the call failed");
		if (nth > FN_MAX_NTH || r != DAT_SUCCESS) {
			printf("not ok: %s does not succeed without failures (%#lx)\n",
			       stages[k].name, r);
			bad++;
		}
	}
	printf("kdapl_failnth: %u stages, %u injected failures, %u bad\n",
	       (unsigned int)NSTAGES, injected, bad);
	return bad ? 1 : 0;
}
