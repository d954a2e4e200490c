// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_conn_test: kDAT connections and data transfer, end to end.
 *
 * A kernel consumer with its client and its server in the same module,
 * connected over loopback through the IA's own address.  Loading it runs
 * the scenarios named by "test" (comma separated, or "all") in its init
 * and prints one line per check:
 *
 *	kdapl_conn_test: PASS <check>
 *	kdapl_conn_test: FAIL <check>: <why>
 *
 * The VM cases (tests/vm/cases/conn_*.sh) grep these lines.  Scenarios:
 *
 * pingpong  connect with private data both ways, round trips of
 *	     send/receive with data checks, graceful disconnect
 * rdma      RDMA write and read of 1 MiB in several segment layouts,
 *	     checked by CRC32
 * cycles    many connect/disconnect cycles, by reset and by new EPs
 * reject    a rejected request and a request to a port nobody listens on
 * rsp       a Reserved Service Point: RESERVED, TENTATIVE, accept
 * timeout   connect to an address with no host
 * flush     abrupt disconnect with DTOs outstanding: each completes once
 * rmr       RMR bind/unbind/rebind, RDMA outside a window, with stale
 *	     contexts and to a freed LMR, send with invalidate, RDMA read
 *	     into an RMR
 * handoff   a connection request handed from one PSP to another
 * flags     completion flags: SUPPRESS, UNSIGNALLED (also more in a row
 *	     than max_request_dtos, and retired by the disconnect),
 *	     SOLICITED_WAIT, BARRIER_FENCE after an RDMA read (also of a
 *	     message the device could have sent inline)
 * errors    UNREACHABLE (no ARP answer, long timeout), a send into a
 *	     short receive (statuses and connection events per transport),
 *	     an RDMA read into an unbound RMR (refused at post)
 * break_connecting  an EP broken (an LMR of its receive freed) while
 *	     its connect to a port nobody listens on fails, at delays that
 *	     sweep the race between teardown and rdma_cm's handler
 * psp_race  a PSP freed while a connection request to it is in flight,
 *	     at delays that sweep twice the time a request takes
 * no_port   (the ephemeral ports held, by iwarp_ports.sh) a connect
 *	     that gets no local port: DAT_INSUFFICIENT_RESOURCES
 * ibext     RDMA Write with immediate data and the atomics (IB
 *	     extensions); on iWARP, their DAT_NOT_IMPLEMENTED
 * ud        datagram EPs: resolution with private data, datagrams,
 *	     refused posts, address handles and resolutions freed, a
 *	     rejected resolution and one nobody answers; on iWARP, the EP's
 *	     DAT_MODEL_NOT_SUPPORTED
 * removal   (load, delete the device, unload) traffic from a kthread
 *	     while the device goes away; checked when the module unloads
 *
 * Every wait polls an EVD with dat_evd_dequeue() and a bounded sleep and
 * reports what it was waiting for when it times out.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/bitops.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <rdma/kdat.h>
#include <rdma/kdat_ib_extensions.h>

static char *ia_name = "rxe0-1";
module_param_named(ia, ia_name, charp, 0444);
MODULE_PARM_DESC(ia, "Interface Adapter to open");

static char *addr = "10.0.2.15";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the IA (client connects to it)");

static char *unreach;
module_param(unreach, charp, 0444);
MODULE_PARM_DESC(unreach, "address with no host (default: addr with .99)");

static char *test = "all";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "scenarios to run, comma separated, or all");

static unsigned int port = 18515;
module_param(port, uint, 0444);
MODULE_PARM_DESC(port, "first connection qualifier used");

static unsigned int cycles = 1000;
module_param(cycles, uint, 0444);
MODULE_PARM_DESC(cycles, "connect/disconnect cycles of the cycles test");

static unsigned int rounds = 100;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "round trips of the pingpong test");

static unsigned int progress;
module_param(progress, uint, 0444);
MODULE_PARM_DESC(progress, "round trips done by the removal traffic (read)");

#define KCT "kdapl_conn_test: "

/* Waits: connection events and DTOs, generous for software emulation. */
#define KCT_WAIT_MS		15000
#define KCT_QUIET_MS		200
#define KCT_CONNECT_TIMEOUT_US	(20 * USEC_PER_SEC)

#define KCT_SLOT		4096
#define KCT_FENCE_SMALL		32	/* under rxe's inline size */
#define KCT_RECV_SLOTS		32
#define KCT_SEND_SLOTS		32
#define KCT_MSG_LEN		((KCT_RECV_SLOTS + KCT_SEND_SLOTS) * KCT_SLOT)
#define KCT_BIG_LEN		SZ_1M
#define KCT_DTOS		64
#define KCT_EVD_QLEN		256

/* Cookie kinds, in the top byte of as_64. */
#define KCT_CK_RECV		1ULL
#define KCT_CK_SEND		2ULL
#define KCT_CK_WRITE		3ULL
#define KCT_CK_READ		4ULL
#define KCT_COOKIE(kind, n)	(((kind) << 56) | (n))
#define KCT_CK_KIND(c)		((c) >> 56)
#define KCT_CK_NUM(c)		((c) & 0xffffffffULL)

struct kct_buf {
	void *va;
	size_t len;
	bool vmem;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
};

struct kct_side {
	const char *who;
	DAT_EP_HANDLE ep;
	DAT_EVD_HANDLE conn_evd;
	DAT_EVD_HANDLE recv_evd;
	DAT_EVD_HANDLE req_evd;
	struct kct_buf msg;
	struct kct_buf big;
	/* receive slots posted and not completed */
	DECLARE_BITMAP(recv_posted, KCT_RECV_SLOTS);
};

struct kct {
	const char *name;
	bool failed;
	bool iwarp;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async_evd;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
	DAT_IA_ATTR ia_attr;
	DAT_EP_ATTR ep_attr;
	struct sockaddr_in sin;
	struct kct_side cli;
	struct kct_side srv;
	/* the server sends this many bytes as soon as it is connected */
	u32 srv_first;
	/* removal traffic */
	struct task_struct *thread;
	unsigned int sends_out;
	int thread_err;
};

static struct kct *removal_t;

static __printf(2, 3) void kct_fail(struct kct *t, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err(KCT "FAIL %s: %pV\n", t->name, &vaf);
	va_end(args);
	t->failed = true;
}

static void kct_pass(struct kct *t, const char *step)
{
	if (step)
		pr_info(KCT "PASS %s/%s\n", t->name, step);
	else
		pr_info(KCT "PASS %s\n", t->name);
}

/* A DAT call that must return exactly @want. */
#define KCT_RET(call, want) ({						\
	DAT_RETURN __r = (call);					\
	DAT_RETURN __w = (want);					\
	bool __ok = __r == __w;						\
	if (!__ok)							\
		kct_fail(t, "line %d: %s = 0x%08x, expected 0x%08x",	\
			 __LINE__, #call, __r, __w);			\
	__ok;								\
})

#define KCT_OK(call)	KCT_RET(call, DAT_SUCCESS)

/* A condition that must hold. */
#define KCT_CHECK(cond, fmt, ...) ({					\
	bool __c = !!(cond);						\
	if (!__c)							\
		kct_fail(t, "line %d: " fmt, __LINE__, ##__VA_ARGS__);	\
	__c;								\
})

static const char *kct_state_name(DAT_EP_STATE s)
{
	static const char * const names[] = {
		"UNCONNECTED", "UNCONFIGURED_UNCONNECTED", "RESERVED",
		"UNCONFIGURED_RESERVED", "PASSIVE_CONNECTION_PENDING",
		"UNCONFIGURED_PASSIVE", "ACTIVE_CONNECTION_PENDING",
		"TENTATIVE_CONNECTION_PENDING", "UNCONFIGURED_TENTATIVE",
		"CONNECTED", "DISCONNECT_PENDING", "DISCONNECTED",
		"COMPLETION_PENDING", "CONNECTED_SINGLE_PATH",
		"CONNECTED_MULTI_PATH",
	};

	return (unsigned int)s < ARRAY_SIZE(names) ? names[s] : "?";
}

/*
 * The EP of @s is in one of the states of @mask (bits BIT(DAT_EP_STATE_*));
 * with @idle, both of its queues are idle too.
 */
static bool kct_state(struct kct *t, int line, struct kct_side *s, u32 mask,
		      bool idle)
{
	DAT_BOOLEAN recv_idle, req_idle;
	DAT_EP_STATE state;
	DAT_RETURN r;

	r = dat_ep_get_status(s->ep, &state, &recv_idle, &req_idle);
	if (r != DAT_SUCCESS) {
		kct_fail(t, "line %d: %s dat_ep_get_status = 0x%08x", line,
			 s->who, r);
		return false;
	}
	if ((unsigned int)state >= 32 || !(mask & BIT(state))) {
		kct_fail(t, "line %d: %s EP in %s, expected %s%s%s", line,
			 s->who, kct_state_name(state),
			 kct_state_name(__ffs(mask)),
			 hweight32(mask) > 1 ? " or " : "",
			 hweight32(mask) > 1 ? kct_state_name(__fls(mask)) : "");
		return false;
	}
	if (idle && (recv_idle != DAT_TRUE || req_idle != DAT_TRUE)) {
		kct_fail(t, "line %d: %s EP not idle (recv %d request %d)",
			 line, s->who, recv_idle, req_idle);
		return false;
	}
	return true;
}

#define KCT_STATE(s, a)		kct_state(t, __LINE__, s, BIT(a), false)
#define KCT_STATE2(s, a, b)	kct_state(t, __LINE__, s, BIT(a) | BIT(b), false)
#define KCT_STATE_IDLE(s, a)	kct_state(t, __LINE__, s, BIT(a), true)

/*
 * Wait up to @ms for an event on @evd.  Fails the test, naming @what,
 * on a timeout or an unexpected dequeue error, unless @quiet.
 */
static bool kct_wait(struct kct *t, DAT_EVD_HANDLE evd, DAT_EVENT *ev,
		     unsigned int ms, const char *what, bool quiet)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);
	unsigned int spins = 0;
	DAT_RETURN r;

	for (;;) {
		r = dat_evd_dequeue(evd, ev);
		if (r == DAT_SUCCESS)
			return true;
		if (DAT_GET_TYPE(r) != DAT_QUEUE_EMPTY) {
			kct_fail(t, "waiting for %s: dat_evd_dequeue = 0x%08x",
				 what, r);
			return false;
		}
		if (time_after(jiffies, deadline))
			break;
		/* Spin a little for fast loopback, then sleep. */
		if (++spins < 20)
			cpu_relax();
		else
			usleep_range(50, 200);
	}
	if (!quiet)
		kct_fail(t, "no %s within %u ms", what, ms);
	return false;
}

/* No event arrives on @evd for a while. */
static bool kct_quiet(struct kct *t, DAT_EVD_HANDLE evd, const char *what)
{
	DAT_EVENT ev;

	if (kct_wait(t, evd, &ev, KCT_QUIET_MS, what, true)) {
		kct_fail(t, "unexpected event 0x%x on the %s EVD",
			 ev.event_number, what);
		return false;
	}
	return !t->failed;
}

static const char *kct_conn_event_name(DAT_EVENT_NUMBER n)
{
	switch (n) {
	case DAT_CONNECTION_REQUEST_EVENT: return "CONNECTION_REQUEST";
	case DAT_CONNECTION_EVENT_ESTABLISHED: return "ESTABLISHED";
	case DAT_CONNECTION_EVENT_PEER_REJECTED: return "PEER_REJECTED";
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED: return "NON_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
		return "ACCEPT_COMPLETION_ERROR";
	case DAT_CONNECTION_EVENT_DISCONNECTED: return "DISCONNECTED";
	case DAT_CONNECTION_EVENT_BROKEN: return "BROKEN";
	case DAT_CONNECTION_EVENT_TIMED_OUT: return "TIMED_OUT";
	case DAT_CONNECTION_EVENT_UNREACHABLE: return "UNREACHABLE";
	case DAT_DTO_COMPLETION_EVENT: return "DTO_COMPLETION";
	case DAT_ASYNC_ERROR_IA_CATASTROPHIC: return "IA_CATASTROPHIC";
	default: return "?";
	}
}

/* The next connection event of @s is @number, for its EP. */
static bool kct_conn_event(struct kct *t, int line, struct kct_side *s,
			   DAT_EVENT_NUMBER number, DAT_EVENT *ev)
{
	char what[80];

	snprintf(what, sizeof(what), "%s %s event (line %d)", s->who,
		 kct_conn_event_name(number), line);
	if (!kct_wait(t, s->conn_evd, ev, KCT_WAIT_MS, what, false))
		return false;
	if (ev->event_number != number) {
		kct_fail(t, "line %d: %s got 0x%x (%s), expected 0x%x (%s)",
			 line, s->who, ev->event_number,
			 kct_conn_event_name(ev->event_number), number,
			 kct_conn_event_name(number));
		return false;
	}
	if (ev->evd_handle != s->conn_evd ||
	    ev->event_data.connect_event_data.ep_handle != s->ep) {
		kct_fail(t, "line %d: %s %s event for EVD %p EP %p", line,
			 s->who, kct_conn_event_name(number), ev->evd_handle,
			 ev->event_data.connect_event_data.ep_handle);
		return false;
	}
	return true;
}

#define KCT_CONN_EVENT(s, n, ev)	kct_conn_event(t, __LINE__, s, n, ev)

/*
 * Private data received: what was sent, possibly padded with zeros to
 * the transport's fixed size (InfiniBand CM messages have no length).
 */
static bool kct_pdata(struct kct *t, const char *what, const void *got,
		      DAT_COUNT got_len, const void *want, DAT_COUNT want_len)
{
	const u8 *g = got;
	DAT_COUNT i;

	if (got_len < want_len || got_len > 256 || (got_len && !got)) {
		kct_fail(t, "%s: private data of %d bytes, sent %d", what,
			 got_len, want_len);
		return false;
	}
	if (t->iwarp && got_len != want_len) {
		kct_fail(t, "%s: private data of %d bytes on iWARP, sent %d",
			 what, got_len, want_len);
		return false;
	}
	if (want_len && memcmp(got, want, want_len)) {
		kct_fail(t, "%s: private data differs (%*ph...)", what,
			 (int)min(want_len, 16), got);
		return false;
	}
	for (i = want_len; i < got_len; i++) {
		if (g[i]) {
			kct_fail(t, "%s: private data byte %d is 0x%02x", what,
				 i, g[i]);
			return false;
		}
	}
	return true;
}

static void kct_fill(void *buf, size_t len, u32 seed)
{
	u8 *p = buf;
	u32 x = seed * 2654435761U + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1664525U + 1013904223U;
		p[i] = x >> 24;
	}
}

/* ---------------------------------------------------------------------
 * Set-up and teardown
 */

static bool kct_buf_init(struct kct *t, struct kct_buf *b, size_t len,
			 DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN reg_len = 0;
	DAT_VADDR reg_addr = 0;

	b->len = len;
	b->vmem = len > KCT_MSG_LEN;
	b->va = b->vmem ? vzalloc(len) : kzalloc(len, GFP_KERNEL);
	if (!KCT_CHECK(b->va, "no memory for %zu bytes", len))
		return false;
	region.for_va = b->va;
	if (!KCT_OK(dat_lmr_kcreate(t->ia, DAT_MEM_TYPE_VIRTUAL, region, len,
				    t->pz, priv, DAT_VA_TYPE_VA,
				    DAT_MEM_OPTIMIZE_DONT_CARE, &b->lmr,
				    &b->lctx, &b->rctx, &reg_len, &reg_addr)))
		return false;
	return KCT_CHECK(reg_len == len && reg_addr == (uintptr_t)b->va,
			 "LMR registered %llu bytes at 0x%llx", reg_len,
			 reg_addr);
}

static void kct_buf_fini(struct kct *t, struct kct_buf *b)
{
	if (b->lmr)
		KCT_OK(dat_lmr_free(b->lmr));
	b->lmr = DAT_HANDLE_NULL;
	if (b->vmem)
		vfree(b->va);
	else
		kfree(b->va);
	b->va = NULL;
}

static bool kct_ep_create(struct kct *t, struct kct_side *s)
{
	bitmap_zero(s->recv_posted, KCT_RECV_SLOTS);
	return KCT_OK(dat_ep_create(t->ia, t->pz, s->recv_evd, s->req_evd,
				    s->conn_evd, &t->ep_attr, &s->ep)) &&
	       KCT_STATE_IDLE(s, DAT_EP_STATE_UNCONNECTED);
}

static bool kct_side_init(struct kct *t, struct kct_side *s, const char *who,
			  bool big)
{
	s->who = who;
	if (!KCT_OK(dat_evd_kcreate(t->ia, 16, DAT_UPCALL_DISABLE, NULL,
				    DAT_EVD_CONNECTION_FLAG, &s->conn_evd)) ||
	    !KCT_OK(dat_evd_kcreate(t->ia, KCT_EVD_QLEN, DAT_UPCALL_DISABLE,
				    NULL, DAT_EVD_DTO_FLAG, &s->recv_evd)) ||
	    !KCT_OK(dat_evd_kcreate(t->ia, KCT_EVD_QLEN, DAT_UPCALL_DISABLE,
				    NULL, DAT_EVD_DTO_FLAG, &s->req_evd)))
		return false;
	if (!kct_buf_init(t, &s->msg, KCT_MSG_LEN,
			  DAT_MEM_PRIV_LOCAL_READ_FLAG |
			  DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
			  DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
		return false;
	/* An RDMA read sink on iWARP needs remote write: give it all. */
	if (big && !kct_buf_init(t, &s->big, KCT_BIG_LEN,
				 DAT_MEM_PRIV_ALL_FLAG |
				 DAT_IB_MEM_PRIV_REMOTE_ATOMIC))
		return false;
	return kct_ep_create(t, s);
}

static void kct_side_fini(struct kct *t, struct kct_side *s)
{
	if (s->ep)
		KCT_OK(dat_ep_free(s->ep));
	s->ep = DAT_HANDLE_NULL;
	if (s->big.va)
		kct_buf_fini(t, &s->big);
	if (s->msg.va)
		kct_buf_fini(t, &s->msg);
	if (s->req_evd)
		KCT_OK(dat_evd_free(s->req_evd));
	if (s->recv_evd)
		KCT_OK(dat_evd_free(s->recv_evd));
	if (s->conn_evd)
		KCT_OK(dat_evd_free(s->conn_evd));
	s->req_evd = DAT_HANDLE_NULL;
	s->recv_evd = DAT_HANDLE_NULL;
	s->conn_evd = DAT_HANDLE_NULL;
}

static bool kct_addr(struct kct *t, const char *str, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	return KCT_CHECK(in4_pton(str, -1, (u8 *)&sin->sin_addr.s_addr, -1,
				  NULL), "bad address '%s'", str);
}

/* EP attributes for every scenario, from the IA's limits. */
static void kct_ep_attr(struct kct *t)
{
	const DAT_IA_ATTR *a = &t->ia_attr;
	DAT_EP_ATTR *e = &t->ep_attr;

	memset(e, 0, sizeof(*e));
	e->service_type = DAT_SERVICE_TYPE_RC;
	e->max_message_size = min_t(u32, a->max_message_size, SZ_64K);
	e->max_rdma_size = min_t(u32, a->max_rdma_size, KCT_BIG_LEN);
	e->qos = DAT_QOS_BEST_EFFORT;
	e->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	e->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	e->max_recv_dtos = min(a->max_dto_per_ep, KCT_DTOS);
	e->max_request_dtos = min(a->max_dto_per_ep, KCT_DTOS);
	e->max_recv_iov = min(a->max_iov_segments_per_dto, 4);
	e->max_request_iov = min(a->max_iov_segments_per_rdma_write, 256);
	e->max_rdma_read_in = min(a->max_rdma_read_per_ep_in, 16);
	e->max_rdma_read_out = min(a->max_rdma_read_per_ep_out, 16);
	e->srq_soft_hw = DAT_HW_DEFAULT;
	e->max_rdma_read_iov = min(a->max_iov_segments_per_rdma_read, 256);
	e->max_rdma_write_iov = min(a->max_iov_segments_per_rdma_write, 256);
}

/*
 * Open the IA, a PZ, the CR EVD, a PSP on @qual (any free one if 0) and
 * both sides.
 */
static bool kct_open(struct kct *t, DAT_CONN_QUAL qual, bool big)
{
	struct sockaddr_in *ia_sin;

	t->iwarp = !strncmp(ia_name, "siw", 3);
	if (!kct_addr(t, addr, &t->sin))
		return false;
	t->async_evd = DAT_HANDLE_NULL;
	if (!KCT_OK(dat_ia_open(ia_name, 16, &t->async_evd, &t->ia)))
		return false;
	if (!KCT_OK(dat_ia_query(t->ia, NULL, DAT_IA_FIELD_ALL, &t->ia_attr,
				 DAT_PROVIDER_FIELD_NONE, NULL)))
		return false;
	ia_sin = (struct sockaddr_in *)t->ia_attr.ia_address_ptr;
	if (!KCT_CHECK(ia_sin && ia_sin->sin_family == AF_INET &&
		       ia_sin->sin_addr.s_addr == t->sin.sin_addr.s_addr,
		       "IA address is not %s", addr))
		return false;
	kct_ep_attr(t);
	if (!KCT_OK(dat_pz_create(t->ia, &t->pz)) ||
	    !KCT_OK(dat_evd_kcreate(t->ia, 16, DAT_UPCALL_DISABLE, NULL,
				    DAT_EVD_CR_FLAG, &t->cr_evd)))
		return false;
	if (qual) {
		t->qual = qual;
		if (!KCT_OK(dat_psp_create(t->ia, qual, t->cr_evd,
					   DAT_PSP_CONSUMER_FLAG, &t->psp)))
			return false;
	} else {
		DAT_PSP_PARAM p;

		if (!KCT_OK(dat_psp_create_any(t->ia, &t->qual, t->cr_evd,
					       DAT_PSP_CONSUMER_FLAG,
					       &t->psp)) ||
		    !KCT_CHECK(t->qual, "dat_psp_create_any gave qual 0") ||
		    !KCT_OK(dat_psp_query(t->psp, DAT_PSP_FIELD_ALL, &p)))
			return false;
		if (!KCT_CHECK(p.ia_handle == t->ia &&
			       p.conn_qual == t->qual &&
			       p.evd_handle == t->cr_evd &&
			       p.psp_flags == DAT_PSP_CONSUMER_FLAG,
			       "dat_psp_query: ia %p qual %llu evd %p flags %d",
			       p.ia_handle, p.conn_qual, p.evd_handle,
			       p.psp_flags))
			return false;
	}
	return kct_side_init(t, &t->srv, "server", big) &&
	       kct_side_init(t, &t->cli, "client", big);
}

/* Free everything with DAT_SUCCESS, then a graceful close must work. */
static void kct_close(struct kct *t)
{
	if (!t->ia)
		return;
	kct_side_fini(t, &t->cli);
	kct_side_fini(t, &t->srv);
	if (t->psp)
		KCT_OK(dat_psp_free(t->psp));
	t->psp = DAT_HANDLE_NULL;
	if (t->cr_evd)
		KCT_OK(dat_evd_free(t->cr_evd));
	t->cr_evd = DAT_HANDLE_NULL;
	if (t->pz)
		KCT_OK(dat_pz_free(t->pz));
	t->pz = DAT_HANDLE_NULL;
	if (!KCT_OK(dat_ia_close(t->ia, DAT_CLOSE_GRACEFUL_FLAG)))
		dat_ia_close(t->ia, DAT_CLOSE_ABRUPT_FLAG);
	t->ia = DAT_HANDLE_NULL;
}

/* ---------------------------------------------------------------------
 * Connections
 */

/*
 * Post the first @len bytes of receive slot @slot of @s; returns what
 * dat_ep_post_recv() did.
 */
static DAT_RETURN kct_post_recv_len_ret(struct kct_side *s, unsigned int slot,
					u32 len)
{
	DAT_LMR_TRIPLET iov = {
		.virtual_address = (uintptr_t)s->msg.va + slot * KCT_SLOT,
		.segment_length = len,
		.lmr_context = s->msg.lctx,
	};
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_RECV, slot) };
	DAT_RETURN r;

	memset(s->msg.va + slot * KCT_SLOT, 0xee, KCT_SLOT);
	r = dat_ep_post_recv(s->ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (r == DAT_SUCCESS)
		set_bit(slot, s->recv_posted);
	return r;
}

/* Post receive slot @slot of @s; returns what dat_ep_post_recv() did. */
static DAT_RETURN kct_post_recv_ret(struct kct_side *s, unsigned int slot)
{
	return kct_post_recv_len_ret(s, slot, KCT_SLOT);
}

static bool kct_post_recv(struct kct *t, struct kct_side *s, unsigned int slot)
{
	return KCT_OK(kct_post_recv_ret(s, slot));
}

static bool kct_post_recvs(struct kct *t, struct kct_side *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!kct_post_recv(t, s, i))
			return false;
	return true;
}

static bool kct_send(struct kct *t, struct kct_side *s, unsigned int slot,
		     u32 len, u32 seed, u64 n);

/*
 * Connect the client to the server's PSP: private data @cpd goes with
 * the request, @spd with the accept.  Checks every state and event on
 * the way.  The accept's private data is left in @est (client's event).
 */
static bool kct_connect(struct kct *t, const void *cpd, DAT_COUNT clen,
			const void *spd, DAT_COUNT slen, DAT_EVENT *est)
{
	DAT_CR_ARRIVAL_EVENT_DATA *cra;
	struct sockaddr_in *rsin;
	DAT_CR_PARAM crp;
	DAT_EVENT ev;
	DAT_CR_HANDLE cr;
	DAT_HANDLE_TYPE type;

	if (!KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				   t->qual, KCT_CONNECT_TIMEOUT_US, clen,
				   (DAT_PVOID)cpd, DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)))
		return false;
	/* Nobody accepted yet: the client must still be pending. */
	if (!KCT_STATE(&t->cli, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING))
		return false;

	if (!kct_wait(t, t->cr_evd, &ev, KCT_WAIT_MS, "connection request",
		      false))
		return false;
	cra = &ev.event_data.cr_arrival_event_data;
	if (!KCT_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT &&
		       ev.evd_handle == t->cr_evd,
		       "CR EVD got event 0x%x", ev.event_number) ||
	    !KCT_CHECK(cra->sp_handle.psp_handle == t->psp &&
		       cra->conn_qual == t->qual && !cra->truncate_flag,
		       "request: psp %p qual %llu truncated %d",
		       cra->sp_handle.psp_handle, cra->conn_qual,
		       cra->truncate_flag))
		return false;
	cr = cra->cr_handle;
	if (!KCT_OK(dat_get_handle_type(cr, &type)) ||
	    !KCT_CHECK(type == DAT_HANDLE_TYPE_CR, "CR handle of type %d",
		       type))
		return false;
	if (!KCT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp)))
		return false;
	rsin = (struct sockaddr_in *)crp.remote_ia_address_ptr;
	if (!KCT_CHECK(rsin && rsin->sin_family == AF_INET &&
		       rsin->sin_addr.s_addr == t->sin.sin_addr.s_addr,
		       "CR remote address is not %s", addr) ||
	    !KCT_CHECK(crp.local_ep_handle == DAT_HANDLE_NULL,
		       "CR of a consumer PSP has EP %p",
		       crp.local_ep_handle) ||
	    !kct_pdata(t, "connection request", crp.private_data,
		       crp.private_data_size, cpd, clen))
		return false;
	/* The server's EP is not involved until the accept. */
	if (!KCT_STATE(&t->srv, DAT_EP_STATE_UNCONNECTED) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING))
		return false;

	if (!KCT_OK(dat_cr_accept(cr, t->srv.ep, slen, (DAT_PVOID)spd)))
		return false;
	if (!KCT_STATE2(&t->srv, DAT_EP_STATE_COMPLETION_PENDING,
			DAT_EP_STATE_CONNECTED))
		return false;
	/* An accepted CR is gone. */
	if (!KCT_RET(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp),
		     dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR)))
		return false;

	if (!KCT_CONN_EVENT(&t->srv, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return false;
	if (t->srv_first && !kct_send(t, &t->srv, 0, t->srv_first, 7, 7))
		return false;
	if (!KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_ESTABLISHED, est))
		return false;
	if (!kct_pdata(t, "accept", est->event_data.connect_event_data.private_data,
		       est->event_data.connect_event_data.private_data_size,
		       spd, slen))
		return false;
	return KCT_STATE(&t->srv, DAT_EP_STATE_CONNECTED) &&
	       KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED);
}

/*
 * @a disconnects (graceful or abrupt); both sides must report
 * DISCONNECTED and reach that state.
 */
static bool kct_disconnect(struct kct *t, struct kct_side *a,
			   struct kct_side *b, DAT_CLOSE_FLAGS flags)
{
	DAT_EVENT ev;

	if (!KCT_OK(dat_ep_disconnect(a->ep, flags)) ||
	    !KCT_STATE2(a, DAT_EP_STATE_DISCONNECT_PENDING,
			DAT_EP_STATE_DISCONNECTED))
		return false;
	return KCT_CONN_EVENT(a, DAT_CONNECTION_EVENT_DISCONNECTED, &ev) &&
	       KCT_CONN_EVENT(b, DAT_CONNECTION_EVENT_DISCONNECTED, &ev) &&
	       KCT_STATE(a, DAT_EP_STATE_DISCONNECTED) &&
	       KCT_STATE(b, DAT_EP_STATE_DISCONNECTED);
}

/*
 * The receives still posted on @s complete, each once, as flushed, and
 * nothing else arrives.
 */
static bool kct_flush_recvs(struct kct *t, struct kct_side *s)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	char what[64];
	DAT_EVENT ev;
	u64 ck;

	snprintf(what, sizeof(what), "%s flushed receive", s->who);
	while (!bitmap_empty(s->recv_posted, KCT_RECV_SLOTS)) {
		if (!kct_wait(t, s->recv_evd, &ev, KCT_WAIT_MS, what, false))
			return false;
		d = &ev.event_data.dto_completion_event_data;
		ck = d->user_cookie.as_64;
		if (!KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			       d->ep_handle == s->ep &&
			       d->status == DAT_DTO_ERR_FLUSHED &&
			       KCT_CK_KIND(ck) == KCT_CK_RECV &&
			       KCT_CK_NUM(ck) < KCT_RECV_SLOTS &&
			       test_and_clear_bit(KCT_CK_NUM(ck),
						  s->recv_posted),
			       "%s: event 0x%x status %d cookie 0x%llx",
			       what, ev.event_number, d->status, ck))
			return false;
	}
	return kct_quiet(t, s->recv_evd, "receive") &&
	       kct_quiet(t, s->req_evd, "request");
}

/* ---------------------------------------------------------------------
 * 1. pingpong
 */

/*
 * Send @len bytes filled from @seed from send slot @slot of @s, cookie
 * @n, with @flags.
 */
static bool kct_send_flags(struct kct *t, struct kct_side *s,
			   unsigned int slot, u32 len, u32 seed, u64 n,
			   DAT_COMPLETION_FLAGS flags)
{
	void *buf = s->msg.va + (KCT_RECV_SLOTS + slot) * KCT_SLOT;
	DAT_LMR_TRIPLET iov[2];
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_SEND, n) };
	DAT_COUNT nseg = 1;

	kct_fill(buf, len, seed);
	iov[0].virtual_address = (uintptr_t)buf;
	iov[0].segment_length = len;
	iov[0].lmr_context = s->msg.lctx;
	/* Odd messages go as two segments. */
	if ((n & 1) && len > 1 && t->ep_attr.max_request_iov > 1) {
		iov[0].segment_length = len / 2;
		iov[1].virtual_address = (uintptr_t)buf + len / 2;
		iov[1].segment_length = len - len / 2;
		iov[1].lmr_context = s->msg.lctx;
		nseg = 2;
	}
	return KCT_OK(dat_ep_post_send(s->ep, nseg, iov, ck, flags));
}

static bool kct_send(struct kct *t, struct kct_side *s, unsigned int slot,
		     u32 len, u32 seed, u64 n)
{
	return kct_send_flags(t, s, slot, len, seed, n,
			      DAT_COMPLETION_DEFAULT_FLAG);
}

/* The next DTO completion on @evd is @op of cookie @ck and @len bytes. */
static bool kct_dto_done(struct kct *t, struct kct_side *s,
			 DAT_EVD_HANDLE evd, DAT_DTOS op, u64 ck, u32 len,
			 const char *what)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (!kct_wait(t, evd, &ev, KCT_WAIT_MS, what, false))
		return false;
	d = &ev.event_data.dto_completion_event_data;
	return KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			 ev.evd_handle == evd && d->ep_handle == s->ep &&
			 d->status == DAT_DTO_SUCCESS &&
			 d->operation == op &&
			 d->user_cookie.as_64 == ck &&
			 d->transfered_length == len,
			 "%s: event 0x%x EP %p status %d op %d cookie 0x%llx len %u, expected op %d cookie 0x%llx len %u",
			 what, ev.event_number, d->ep_handle, d->status,
			 d->operation, d->user_cookie.as_64,
			 d->transfered_length, op, ck, len);
}

/* A message of @len bytes with @seed arrives on @s; repost its slot. */
static bool kct_recv(struct kct *t, struct kct_side *s, u32 len, u32 seed,
		     u8 *expect)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	unsigned int slot;
	DAT_EVENT ev;
	u64 ck;

	if (!kct_wait(t, s->recv_evd, &ev, KCT_WAIT_MS, "message", false))
		return false;
	d = &ev.event_data.dto_completion_event_data;
	ck = d->user_cookie.as_64;
	slot = KCT_CK_NUM(ck);
	if (!KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		       d->ep_handle == s->ep &&
		       d->status == DAT_DTO_SUCCESS &&
		       d->operation == DAT_DTO_RECEIVE &&
		       KCT_CK_KIND(ck) == KCT_CK_RECV &&
		       slot < KCT_RECV_SLOTS &&
		       test_and_clear_bit(slot, s->recv_posted) &&
		       d->transfered_length == len,
		       "%s receive: event 0x%x status %d op %d cookie 0x%llx len %u, expected %u",
		       s->who, ev.event_number, d->status, d->operation, ck,
		       d->transfered_length, len))
		return false;
	kct_fill(expect, len, seed);
	if (!KCT_CHECK(!memcmp(s->msg.va + slot * KCT_SLOT, expect, len),
		       "%s: message of %u bytes (seed %u) corrupted", s->who,
		       len, seed))
		return false;
	return kct_post_recv(t, s, slot);
}

static bool kct_round(struct kct *t, unsigned int i, u8 *expect)
{
	u32 len = 1 + (i * 397) % KCT_SLOT;
	u32 rlen = KCT_SLOT - (i * 131) % KCT_SLOT;
	unsigned int slot = i % KCT_SEND_SLOTS;

	return kct_send(t, &t->cli, slot, len, i, i) &&
	       kct_recv(t, &t->srv, len, i, expect) &&
	       kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_SEND,
			    KCT_COOKIE(KCT_CK_SEND, i), len, "client send") &&
	       kct_send(t, &t->srv, slot, rlen, ~i, i) &&
	       kct_recv(t, &t->cli, rlen, ~i, expect) &&
	       kct_dto_done(t, &t->srv, t->srv.req_evd, DAT_DTO_SEND,
			    KCT_COOKIE(KCT_CK_SEND, i), rlen, "server send");
}

static void kct_pingpong(struct kct *t)
{
	static const char cpd[] = "kdapl_conn_test request";
	static const char spd[] = "accepted by the server!";
	DAT_EP_PARAM epp;
	DAT_EVENT est;
	unsigned int i;
	u8 *expect;

	expect = kmalloc(KCT_SLOT, GFP_KERNEL);
	if (!KCT_CHECK(expect, "no memory") || !kct_open(t, port, false))
		goto out;
	/* Receives go before the connection, on both sides. */
	if (!kct_post_recvs(t, &t->srv, 16) ||
	    !kct_post_recvs(t, &t->cli, 16) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_UNCONNECTED))
		goto out;
	if (!kct_connect(t, cpd, sizeof(cpd), spd, sizeof(spd), &est))
		goto out;
	if (!KCT_OK(dat_ep_query(t->cli.ep, DAT_EP_FIELD_ALL, &epp)) ||
	    !KCT_CHECK(epp.ep_state == DAT_EP_STATE_CONNECTED &&
		       epp.remote_port_qual == t->qual &&
		       epp.remote_ia_address_ptr &&
		       ((struct sockaddr_in *)epp.remote_ia_address_ptr)->sin_addr.s_addr ==
		       t->sin.sin_addr.s_addr,
		       "client EP query: state %d remote qual %llu",
		       epp.ep_state, epp.remote_port_qual))
		goto out;
	kct_pass(t, "connect");

	for (i = 0; i < rounds; i++)
		if (!kct_round(t, i, expect))
			goto out;
	if (!KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED) ||
	    !KCT_STATE(&t->srv, DAT_EP_STATE_CONNECTED))
		goto out;
	kct_pass(t, "data");

	if (!kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_GRACEFUL_FLAG) ||
	    !kct_flush_recvs(t, &t->cli) || !kct_flush_recvs(t, &t->srv) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_DISCONNECTED) ||
	    !kct_quiet(t, t->cli.conn_evd, "client connection") ||
	    !kct_quiet(t, t->srv.conn_evd, "server connection"))
		goto out;
	kct_pass(t, "disconnect");
out:
	kct_close(t);
	kfree(expect);
}

/* ---------------------------------------------------------------------
 * 2. rdma
 */

struct kct_export {
	__be64 addr;
	__be32 rctx;
	__be32 len;
};

static DAT_RETURN kct_post_rdma(struct kct *t, bool read, u32 n,
				DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE ck,
				const DAT_RMR_TRIPLET *r)
{
	if (read)
		return dat_ep_post_rdma_read(t->cli.ep, n, iov, ck, r,
					     DAT_COMPLETION_DEFAULT_FLAG);
	return dat_ep_post_rdma_write(t->cli.ep, n, iov, ck, r,
				      DAT_COMPLETION_DEFAULT_FLAG);
}

/* Segments of DTO @d when @nseg segments go @per to a DTO. */
static u32 kct_dto_segs(u32 d, u32 per, u32 nseg)
{
	return min(per, nseg - d * per);
}

/*
 * Index of local segment @j of DTO @d: in reverse order in the DTO, or
 * in order with @fwd.  siw of 6.1 must get them in order: it keeps its
 * page list index from one segment of a work request to the next and
 * only searches forward, so a segment below the previous one in the
 * same MR is read from the wrong page (KASAN report in siw_tx_hdt()).
 */
static u32 kct_seg_index(u32 d, u32 j, u32 per, u32 nseg, bool fwd)
{
	if (fwd)
		return d * per + j;
	return d * per + kct_dto_segs(d, per, nseg) - 1 - j;
}

/*
 * Move 1 MiB between the client's and the server's big buffers with
 * @seg-byte segments.  Each DTO takes as many segments as the EP allows
 * (the last one the rest), in reverse order within the DTO except on
 * iWARP (see kct_seg_index()), and covers a
 * contiguous remote range, so the remote buffer must equal the local
 * segments taken in IOV order.
 */
static bool kct_rdma_layout(struct kct *t, const struct kct_export *ex,
			    u32 seg, bool read)
{
	u32 nseg = KCT_BIG_LEN / seg;
	u32 max_iov = read ? t->ep_attr.max_rdma_read_iov :
			     t->ep_attr.max_rdma_write_iov;
	u32 per = min(nseg, max_iov);
	u32 ndto = DIV_ROUND_UP(nseg, per), d, j, n, posted = 0, done = 0;
	u64 raddr = be64_to_cpu(ex->addr);
	DAT_LMR_TRIPLET *iov;
	u32 crc_local = ~0U, crc_remote;
	u8 *local = t->cli.big.va, *remote = t->srv.big.va;
	const char *what = read ? "RDMA read" : "RDMA write";
	u64 kind = read ? KCT_CK_READ : KCT_CK_WRITE;
	bool ok = false;

	iov = kcalloc(per, sizeof(*iov), GFP_KERNEL);
	if (!KCT_CHECK(iov, "no memory"))
		return false;
	if (read) {
		memset(local, 0, KCT_BIG_LEN);
		kct_fill(remote, KCT_BIG_LEN, seg + 7);
	} else {
		kct_fill(local, KCT_BIG_LEN, seg);
		memset(remote, 0, KCT_BIG_LEN);
	}

	while (done < ndto) {
		/* Keep at most half the request queue busy. */
		while (posted < ndto && posted - done < KCT_DTOS / 2) {
			DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(kind, posted) };
			DAT_RMR_TRIPLET r;

			n = kct_dto_segs(posted, per, nseg);
			r.virtual_address = raddr + (u64)posted * per * seg;
			r.segment_length = n * seg;
			r.rmr_context = be32_to_cpu(ex->rctx);
			for (j = 0; j < n; j++) {
				u32 k = kct_seg_index(posted, j, per, nseg,
						      t->iwarp);

				iov[j].virtual_address = (uintptr_t)local +
							 (u64)k * seg;
				iov[j].segment_length = seg;
				iov[j].lmr_context = t->cli.big.lctx;
			}
			if (!KCT_OK(kct_post_rdma(t, read, n, iov, ck, &r)))
				goto out;
			posted++;
		}
		n = kct_dto_segs(done, per, nseg);
		if (!kct_dto_done(t, &t->cli, t->cli.req_evd,
				  read ? DAT_DTO_RDMA_READ : DAT_DTO_RDMA_WRITE,
				  KCT_COOKIE(kind, done), n * seg, what))
			goto out;
		done++;
	}
	for (d = 0; d < ndto; d++) {
		for (j = 0; j < kct_dto_segs(d, per, nseg); j++) {
			u32 k = kct_seg_index(d, j, per, nseg, t->iwarp);

			crc_local = crc32_le(crc_local, local + (u64)k * seg,
					     seg);
		}
	}
	crc_remote = crc32_le(~0U, remote, KCT_BIG_LEN);
	ok = KCT_CHECK(crc_local == crc_remote,
		       "%s of %u x %u bytes (%u per DTO): remote crc 0x%08x, local segments 0x%08x",
		       what, nseg, seg, per, crc_remote, crc_local);
	if (ok)
		pr_info(KCT "%s %u x %u bytes in %u DTOs of up to %u segments: crc 0x%08x\n",
			what, nseg, seg, ndto, per, crc_remote);
out:
	kfree(iov);
	return ok;
}

static void kct_rdma(struct kct *t)
{
	static const u32 segs[] = { SZ_4K, SZ_16K, SZ_64K, SZ_256K, SZ_1M };
	struct kct_export ex, got;
	DAT_CONNECTION_EVENT_DATA *c;
	DAT_EVENT est;
	unsigned int i;

	if (!kct_open(t, port + 1, true))
		goto out;
	ex.addr = cpu_to_be64((uintptr_t)t->srv.big.va);
	ex.rctx = cpu_to_be32(t->srv.big.rctx);
	ex.len = cpu_to_be32(KCT_BIG_LEN);
	if (!KCT_CHECK(t->srv.big.rctx, "server LMR without rmr_context") ||
	    !kct_connect(t, NULL, 0, &ex, sizeof(ex), &est))
		goto out;
	/* The client learns the region from the accept's private data. */
	c = &est.event_data.connect_event_data;
	memcpy(&got, c->private_data, sizeof(got));
	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		if (!kct_rdma_layout(t, &got, segs[i], false))
			goto out;
		if (!kct_rdma_layout(t, &got, segs[i], true))
			goto out;
	}
	kct_pass(t, "transfers");
	if (!kct_disconnect(t, &t->srv, &t->cli, DAT_CLOSE_GRACEFUL_FLAG) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_DISCONNECTED))
		goto out;
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 3. cycles
 */

static void kct_cycles(struct kct *t)
{
	ktime_t start = ktime_get();
	DAT_EVENT est;
	unsigned int i;
	u32 pd;

	if (!kct_open(t, port + 2, false))
		goto out;
	for (i = 0; i < cycles; i++) {
		bool by_server = i & 1;
		DAT_CLOSE_FLAGS flags = (i & 2) ? DAT_CLOSE_ABRUPT_FLAG :
						  DAT_CLOSE_GRACEFUL_FLAG;

		pd = i;
		if (!kct_connect(t, &pd, sizeof(pd), NULL, 0, &est))
			break;
		if (by_server ?
		    !kct_disconnect(t, &t->srv, &t->cli, flags) :
		    !kct_disconnect(t, &t->cli, &t->srv, flags))
			break;
		if (!KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
		    !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_DISCONNECTED))
			break;
		if (i % 3 == 2) {
			/* New EPs. */
			if (!KCT_OK(dat_ep_free(t->cli.ep)) ||
			    !KCT_OK(dat_ep_free(t->srv.ep)))
				break;
			t->cli.ep = DAT_HANDLE_NULL;
			t->srv.ep = DAT_HANDLE_NULL;
			if (!kct_ep_create(t, &t->cli) ||
			    !kct_ep_create(t, &t->srv))
				break;
		} else if (!KCT_OK(dat_ep_reset(t->cli.ep)) ||
			   !KCT_OK(dat_ep_reset(t->srv.ep)) ||
			   !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_UNCONNECTED) ||
			   !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_UNCONNECTED)) {
			break;
		}
	}
	if (t->failed) {
		pr_err(KCT "cycles: failed in cycle %u\n", i);
		goto out;
	}
	if (!kct_quiet(t, t->cli.conn_evd, "client connection") ||
	    !kct_quiet(t, t->srv.conn_evd, "server connection") ||
	    !kct_quiet(t, t->cr_evd, "connection request"))
		goto out;
	pr_info(KCT "cycles: %u connect/disconnect cycles in %lld ms\n",
		cycles, ktime_ms_delta(ktime_get(), start));
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 4. reject
 */

static void kct_reject(struct kct *t)
{
	static const char cpd[] = "please reject me";
	static const char rpd[] = "rejected, sorry";
	DAT_CONNECTION_EVENT_DATA *c;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	bool peer_ok;

	/* Any free qualifier, checked with dat_psp_query(). */
	if (!kct_open(t, 0, false))
		goto out;
	if (!KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				   t->qual, KCT_CONNECT_TIMEOUT_US,
				   sizeof(cpd), (DAT_PVOID)cpd,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) ||
	    !kct_wait(t, t->cr_evd, &ev, KCT_WAIT_MS, "connection request",
		      false) ||
	    !KCT_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT,
		       "CR EVD got 0x%x", ev.event_number))
		goto out;
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	if (!KCT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp)) ||
	    !kct_pdata(t, "request", crp.private_data, crp.private_data_size,
		       cpd, sizeof(cpd)) ||
	    !KCT_OK(dat_cr_reject(cr, sizeof(rpd), (DAT_PVOID)rpd)) ||
	    !KCT_RET(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp),
		     dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR)))
		goto out;
	/* A wrong event still ends the attempt: go on with the next check. */
	peer_ok = KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_PEER_REJECTED,
				 &ev);
	if (!KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED))
		goto out;
	c = &ev.event_data.connect_event_data;
	if (peer_ok) {
		/* The reject's private data is optional in DAT; if any, ours. */
		if (c->private_data_size &&
		    !kct_pdata(t, "reject", c->private_data,
			       c->private_data_size, rpd, sizeof(rpd)))
			goto out;
		pr_info(KCT "reject: %d bytes of private data with PEER_REJECTED\n",
			c->private_data_size);
	}
	/* The server's EP never took part. */
	if (!KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_UNCONNECTED) ||
	    !kct_quiet(t, t->srv.conn_evd, "server connection"))
		goto out;
	if (peer_ok)
		kct_pass(t, "peer");

	/* Nobody listens on this qualifier. */
	if (!KCT_OK(dat_ep_reset(t->cli.ep)) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_UNCONNECTED) ||
	    !KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				   port + 99, KCT_CONNECT_TIMEOUT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
			    &ev) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !kct_quiet(t, t->cr_evd, "connection request"))
		goto out;
	kct_pass(t, "no-listener");
	if (!KCT_OK(dat_ep_reset(t->cli.ep)))
		goto out;
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 5. rsp: a Reserved Service Point
 */

static void kct_rsp(struct kct *t)
{
	DAT_CR_ARRIVAL_EVENT_DATA *cra;
	DAT_RSP_HANDLE rsp;
	DAT_RSP_PARAM rp;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	u32 pd = 0x12345678;

	if (!kct_open(t, port + 3, false))
		goto out;
	if (!KCT_OK(dat_rsp_create(t->ia, port + 4, t->srv.ep, t->cr_evd,
				   &rsp)) ||
	    !KCT_STATE(&t->srv, DAT_EP_STATE_RESERVED) ||
	    !KCT_OK(dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &rp)) ||
	    !KCT_CHECK(rp.ia_handle == t->ia && rp.conn_qual == port + 4 &&
		       rp.evd_handle == t->cr_evd && rp.ep_handle == t->srv.ep,
		       "dat_rsp_query: qual %llu EP %p", rp.conn_qual,
		       rp.ep_handle))
		goto out;
	if (!KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				   port + 4, KCT_CONNECT_TIMEOUT_US,
				   sizeof(pd), &pd, DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !kct_wait(t, t->cr_evd, &ev, KCT_WAIT_MS, "connection request",
		      false))
		goto out;
	cra = &ev.event_data.cr_arrival_event_data;
	cr = cra->cr_handle;
	if (!KCT_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT &&
		       cra->conn_qual == port + 4 &&
		       cra->sp_handle.rsp_handle == rsp,
		       "CR EVD got 0x%x qual %llu RSP %p", ev.event_number,
		       cra->conn_qual, cra->sp_handle.rsp_handle) ||
	    /* The request puts the reserved EP in TENTATIVE. */
	    !KCT_STATE(&t->srv, DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING) ||
	    !KCT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp)) ||
	    !KCT_CHECK(crp.local_ep_handle == t->srv.ep,
		       "CR of the RSP names EP %p", crp.local_ep_handle) ||
	    !kct_pdata(t, "request", crp.private_data, crp.private_data_size,
		       &pd, sizeof(pd)))
		goto out;
	/* The request took the EP from the RSP. */
	if (!KCT_OK(dat_rsp_query(rsp, DAT_RSP_FIELD_EP_HANDLE, &rp)) ||
	    !KCT_CHECK(rp.ep_handle == DAT_HANDLE_NULL,
		       "RSP still names EP %p after the request", rp.ep_handle))
		goto out;
	kct_pass(t, "tentative");
	/* NULL: the EP the request came with. */
	if (!KCT_OK(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL)) ||
	    !KCT_STATE2(&t->srv, DAT_EP_STATE_COMPLETION_PENDING,
			DAT_EP_STATE_CONNECTED) ||
	    !KCT_CONN_EVENT(&t->srv, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    !KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    !KCT_STATE(&t->srv, DAT_EP_STATE_CONNECTED) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED))
		goto out;
	kct_pass(t, "accept");
	if (!kct_disconnect(t, &t->srv, &t->cli, DAT_CLOSE_ABRUPT_FLAG))
		goto out;
	/* A used RSP still needs its free. */
	KCT_OK(dat_rsp_free(rsp));
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 6. timeout
 */

/* An address with no host: the "unreach" parameter, or addr with .99. */
static bool kct_nobody(struct kct *t, struct sockaddr_in *nobody)
{
	if (unreach)
		return kct_addr(t, unreach, nobody);
	/* The IA's own subnet, host .99: nobody answers ARP. */
	*nobody = t->sin;
	((u8 *)&nobody->sin_addr.s_addr)[3] = 99;
	return true;
}

/*
 * A DAT timeout shorter than address resolution (kdapl_cm.c gives
 * rdma_resolve_addr() 2 s): TIMED_OUT.  The "errors" scenario waits
 * longer and gets UNREACHABLE instead.
 */
static void kct_timeout(struct kct *t)
{
	struct sockaddr_in nobody;
	char def[16];
	ktime_t start;
	s64 ms;
	DAT_EVENT ev;

	if (!kct_open(t, port + 5, false) || !kct_nobody(t, &nobody))
		goto out;
	snprintf(def, sizeof(def), "%pI4", &nobody.sin_addr.s_addr);
	start = ktime_get();
	if (!KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&nobody,
				   port + 5, 500 * USEC_PER_MSEC, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) ||
	    !KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_TIMED_OUT, &ev))
		goto out;
	ms = ktime_ms_delta(ktime_get(), start);
	pr_info(KCT "timeout: %s timed out after %lld ms\n", def, ms);
	if (!KCT_CHECK(ms >= 400 && ms < 10000,
		       "timed out after %lld ms for a 500 ms timeout", ms) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !kct_quiet(t, t->cli.conn_evd, "client connection") ||
	    !KCT_OK(dat_ep_reset(t->cli.ep)) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_UNCONNECTED))
		goto out;
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 7. flush
 */

/*
 * InfiniBand and RoCE: fewer receives on the server than sends, so the
 * last sends wait for a receive (RNR retries) and must be flushed.
 * iWARP has no RNR retry (a send without a receive breaks the
 * connection): there the server has a receive for every send.
 */
#define KCT_FLUSH_SRV_RECVS	8
#define KCT_FLUSH_SENDS		24
#define KCT_FLUSH_WRITES	8

static void kct_flush(struct kct *t)
{
	unsigned int srv_ok = 0, cli_ok = 0, cli_flushed = 0, cli_broken = 0;
	unsigned int n, srv_recvs;
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DECLARE_BITMAP(req, KCT_FLUSH_SENDS + KCT_FLUSH_WRITES);
	DAT_EVENT est, ev;
	unsigned int i;
	u8 *expect;
	u64 ck;

	expect = kmalloc(KCT_SLOT, GFP_KERNEL);
	if (!KCT_CHECK(expect, "no memory") || !kct_open(t, port + 6, false))
		goto out;
	srv_recvs = t->iwarp ? KCT_FLUSH_SENDS : KCT_FLUSH_SRV_RECVS;
	if (!kct_post_recvs(t, &t->srv, srv_recvs) ||
	    !kct_post_recvs(t, &t->cli, KCT_RECV_SLOTS) ||
	    !kct_connect(t, NULL, 0, NULL, 0, &est))
		goto out;
	bitmap_zero(req, KCT_FLUSH_SENDS + KCT_FLUSH_WRITES);
	for (i = 0; i < KCT_FLUSH_SENDS; i++) {
		if (!kct_send(t, &t->cli, i, 64 + i, 1000 + i, i))
			goto out;
		set_bit(i, req);
	}
	for (i = 0; i < KCT_FLUSH_WRITES; i++) {
		DAT_LMR_TRIPLET iov = {
			.virtual_address = (uintptr_t)t->cli.msg.va,
			.segment_length = KCT_SLOT,
			.lmr_context = t->cli.msg.lctx,
		};
		DAT_RMR_TRIPLET r = {
			.virtual_address = (uintptr_t)t->srv.msg.va +
				(KCT_RECV_SLOTS + i) * KCT_SLOT,
			.segment_length = KCT_SLOT,
			.rmr_context = t->srv.msg.rctx,
		};
		DAT_DTO_COOKIE c = {
			.as_64 = KCT_COOKIE(KCT_CK_WRITE, KCT_FLUSH_SENDS + i),
		};

		if (!KCT_OK(dat_ep_post_rdma_write(t->cli.ep, 1, &iov, c, &r,
						   DAT_COMPLETION_DEFAULT_FLAG)))
			goto out;
		set_bit(KCT_FLUSH_SENDS + i, req);
	}
	/* Abruptly, with all of that outstanding. */
	if (!kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_ABRUPT_FLAG))
		goto out;

	/* Requests: each once, in order, successes before flushes. */
	for (n = 0; n < KCT_FLUSH_SENDS + KCT_FLUSH_WRITES; n++) {
		if (!kct_wait(t, t->cli.req_evd, &ev, KCT_WAIT_MS,
			      "client request completion", false)) {
			pr_err(KCT "flush: %u of %u requests completed (%u done, %u in progress, %u flushed), missing %*pbl\n",
			       n, KCT_FLUSH_SENDS + KCT_FLUSH_WRITES, cli_ok,
			       cli_broken, cli_flushed,
			       KCT_FLUSH_SENDS + KCT_FLUSH_WRITES, req);
			goto out;
		}
		d = &ev.event_data.dto_completion_event_data;
		ck = d->user_cookie.as_64;
		i = KCT_CK_NUM(ck);
		if (!KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			       d->ep_handle == t->cli.ep &&
			       i < KCT_FLUSH_SENDS + KCT_FLUSH_WRITES &&
			       test_and_clear_bit(i, req),
			       "request completion 0x%x cookie 0x%llx (twice?)",
			       ev.event_number, ck) ||
		    !KCT_CHECK(d->operation == (KCT_CK_KIND(ck) == KCT_CK_SEND ?
						DAT_DTO_SEND : DAT_DTO_RDMA_WRITE),
			       "cookie 0x%llx completed as operation %d", ck,
			       d->operation))
			goto out;
		if (d->status == DAT_DTO_SUCCESS) {
			if (!KCT_CHECK(!cli_flushed && !cli_broken,
				       "cookie 0x%llx succeeded after a flush",
				       ck))
				goto out;
			cli_ok++;
		} else if (t->iwarp && d->status == DAT_DTO_ERR_LOCAL_EP &&
			   !cli_flushed && !cli_broken) {
			/*
			 * siw completes the request it was transmitting
			 * when the QP leaves RTS with IB_WC_LOC_QP_OP_ERR
			 * (siw_sq_flush()), not as flushed: at most one,
			 * between the successes and the flushes.
			 */
			cli_broken++;
		} else if (!KCT_CHECK(d->status == DAT_DTO_ERR_FLUSHED,
				      "cookie 0x%llx status %d", ck,
				      d->status)) {
			goto out;
		} else {
			cli_flushed++;
		}
	}
	/* Server receives: each once, success (with the data) or flushed. */
	while (!bitmap_empty(t->srv.recv_posted, KCT_RECV_SLOTS)) {
		if (!kct_wait(t, t->srv.recv_evd, &ev, KCT_WAIT_MS,
			      "server receive completion", false))
			goto out;
		d = &ev.event_data.dto_completion_event_data;
		ck = d->user_cookie.as_64;
		i = KCT_CK_NUM(ck);
		if (!KCT_CHECK(KCT_CK_KIND(ck) == KCT_CK_RECV &&
			       i < KCT_RECV_SLOTS &&
			       test_and_clear_bit(i, t->srv.recv_posted),
			       "server receive cookie 0x%llx", ck))
			goto out;
		if (d->status == DAT_DTO_SUCCESS) {
			/* Sends arrive in order: receive n holds send n. */
			kct_fill(expect, 64 + srv_ok, 1000 + srv_ok);
			if (!KCT_CHECK(d->transfered_length == 64 + srv_ok &&
				       !memcmp(t->srv.msg.va + i * KCT_SLOT,
					       expect, 64 + srv_ok),
				       "server message %u: %u bytes or data wrong",
				       srv_ok, d->transfered_length))
				goto out;
			srv_ok++;
		} else if (!KCT_CHECK(d->status == DAT_DTO_ERR_FLUSHED,
				      "server receive status %d", d->status)) {
			goto out;
		}
	}
	pr_info(KCT "flush: client %u done, %u in progress, %u flushed; server %u received\n",
		cli_ok, cli_broken, cli_flushed, srv_ok);
	/* A send that completed was received; writes follow the sends. */
	if (!KCT_CHECK(min_t(unsigned int, cli_ok, KCT_FLUSH_SENDS) <= srv_ok &&
		       srv_ok <= srv_recvs,
		       "%u requests succeeded, %u received", cli_ok, srv_ok) ||
	    !KCT_CHECK(t->iwarp || cli_flushed >= KCT_FLUSH_SENDS +
		       KCT_FLUSH_WRITES - KCT_FLUSH_SRV_RECVS,
		       "only %u requests flushed", cli_flushed) ||
	    !kct_flush_recvs(t, &t->cli) || !kct_flush_recvs(t, &t->srv) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_OK(dat_ep_reset(t->cli.ep)) ||
	    !KCT_OK(dat_ep_reset(t->srv.ep)) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_UNCONNECTED))
		goto out;
out:
	kct_close(t);
	kfree(expect);
}

/* ---------------------------------------------------------------------
 * 8. removal: traffic while the device goes away
 */

static int kct_traffic(void *arg)
{
	struct kct *t = arg;
	u8 *expect = kmalloc(KCT_SLOT, GFP_KERNEL);
	unsigned int i = 0;

	if (!expect) {
		t->thread_err = -ENOMEM;
		goto idle;
	}
	/* Failures here are expected once the device is gone: quietly. */
	while (!kthread_should_stop()) {
		u32 len = 1 + (i * 397) % KCT_SLOT;
		unsigned int slot = i % KCT_SEND_SLOTS;
		DAT_EVENT ev;
		DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
		unsigned int s;

		kct_fill(t->cli.msg.va + (KCT_RECV_SLOTS + slot) * KCT_SLOT,
			 len, i);
		{
			DAT_LMR_TRIPLET iov = {
				.virtual_address = (uintptr_t)t->cli.msg.va +
					(KCT_RECV_SLOTS + slot) * KCT_SLOT,
				.segment_length = len,
				.lmr_context = t->cli.msg.lctx,
			};
			DAT_DTO_COOKIE ck = {
				.as_64 = KCT_COOKIE(KCT_CK_SEND, i),
			};

			if (dat_ep_post_send(t->cli.ep, 1, &iov, ck,
					     DAT_COMPLETION_DEFAULT_FLAG) !=
			    DAT_SUCCESS)
				break;
			t->sends_out++;
		}
		if (!kct_wait(t, t->srv.recv_evd, &ev, 2000, "", true))
			break;
		s = KCT_CK_NUM(d->user_cookie.as_64);
		if (s >= KCT_RECV_SLOTS || !test_and_clear_bit(s, t->srv.recv_posted))
			break;
		if (d->status != DAT_DTO_SUCCESS)
			break;
		kct_fill(expect, len, i);
		if (d->transfered_length != len ||
		    memcmp(t->srv.msg.va + s * KCT_SLOT, expect, len)) {
			t->thread_err = -EBADMSG;
			break;
		}
		if (kct_post_recv_ret(&t->srv, s) != DAT_SUCCESS)
			break;
		if (!kct_wait(t, t->cli.req_evd, &ev, 2000, "", true))
			break;
		t->sends_out--;
		if (d->status != DAT_DTO_SUCCESS)
			break;
		WRITE_ONCE(progress, ++i);
	}
idle:
	kfree(expect);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static int kct_removal_start(struct kct *t)
{
	DAT_EVENT est;

	if (!kct_open(t, port + 7, false) ||
	    !kct_post_recvs(t, &t->srv, KCT_RECV_SLOTS) ||
	    !kct_post_recvs(t, &t->cli, KCT_RECV_SLOTS) ||
	    !kct_connect(t, NULL, 0, NULL, 0, &est))
		goto err;
	t->thread = kthread_run(kct_traffic, t, "kdapl_conn_test");
	if (!KCT_CHECK(!IS_ERR(t->thread), "kthread_run: %ld",
		       PTR_ERR(t->thread)))
		goto err;
	kct_pass(t, "traffic");
	return 0;
err:
	t->thread = NULL;
	kct_close(t);
	return -EIO;
}

/*
 * Every DTO still outstanding on @s completes once, and nothing else:
 * flushed, but for up to @landed receives of messages in flight, and
 * for @sends sends that may have completed before the device went.
 */
static bool kct_removal_drain(struct kct *t, struct kct_side *s,
			      unsigned int sends, unsigned int landed)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	unsigned int i;
	u64 ck;

	d = &ev.event_data.dto_completion_event_data;
	while (!bitmap_empty(s->recv_posted, KCT_RECV_SLOTS)) {
		if (!kct_wait(t, s->recv_evd, &ev, KCT_WAIT_MS,
			      "receive completion after removal", false))
			return false;
		ck = d->user_cookie.as_64;
		i = KCT_CK_NUM(ck);
		if (!KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			       KCT_CK_KIND(ck) == KCT_CK_RECV &&
			       i < KCT_RECV_SLOTS &&
			       test_and_clear_bit(i, s->recv_posted),
			       "%s: receive completion cookie 0x%llx", s->who,
			       ck))
			return false;
		if (d->status == DAT_DTO_SUCCESS && landed) {
			landed--;
			continue;
		}
		if (!KCT_CHECK(d->status == DAT_DTO_ERR_FLUSHED,
			       "%s: receive 0x%llx status %d", s->who, ck,
			       d->status))
			return false;
	}
	for (i = 0; i < sends; i++) {
		if (!kct_wait(t, s->req_evd, &ev, KCT_WAIT_MS,
			      "send completion after removal", false))
			return false;
		ck = d->user_cookie.as_64;
		if (!KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			       KCT_CK_KIND(ck) == KCT_CK_SEND &&
			       KCT_CK_NUM(ck) == progress &&
			       (d->status == DAT_DTO_SUCCESS ||
				d->status == DAT_DTO_ERR_FLUSHED),
			       "%s: send completion cookie 0x%llx status %d",
			       s->who, ck, d->status))
			return false;
	}
	return kct_quiet(t, s->recv_evd, "receive") &&
	       kct_quiet(t, s->req_evd, "request");
}

static void kct_removal_check(struct kct *t)
{
	bool catastrophic = false;
	struct kct_side *sides[] = { &t->cli, &t->srv };
	DAT_EVENT ev;
	unsigned int i;

	kthread_stop(t->thread);
	pr_info(KCT "removal: %u round trips before the device went away\n",
		progress);
	if (!KCT_CHECK(!t->thread_err, "traffic thread error %d",
		       t->thread_err) ||
	    !KCT_CHECK(progress > 0, "no traffic before the removal"))
		goto out;
	while (kct_wait(t, t->async_evd, &ev, 1000, "", true))
		if (ev.event_number == DAT_ASYNC_ERROR_IA_CATASTROPHIC)
			catastrophic = true;
	if (!KCT_CHECK(catastrophic, "no DAT_ASYNC_ERROR_IA_CATASTROPHIC"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		struct kct_side *s = sides[i];

		if (!kct_wait(t, s->conn_evd, &ev, KCT_WAIT_MS,
			      "connection event after removal", false) ||
		    !KCT_CHECK(ev.event_number == DAT_CONNECTION_EVENT_BROKEN ||
			       ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED,
			       "%s: connection event 0x%x (%s)", s->who,
			       ev.event_number,
			       kct_conn_event_name(ev.event_number)) ||
		    !KCT_STATE(s, DAT_EP_STATE_DISCONNECTED) ||
		    !kct_removal_drain(t, s, s == &t->cli ? t->sends_out : 0,
				       s == &t->srv ? t->sends_out : 0) ||
		    !KCT_STATE_IDLE(s, DAT_EP_STATE_DISCONNECTED))
			goto out;
	}
	kct_pass(t, "events");
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 9. rmr: RMR bind, remote access errors, send with invalidate
 */

#define KCT_RMR_OFF		SZ_64K
#define KCT_RMR_LEN		SZ_16K
#define KCT_RMR_RECVS		8
#define KCT_RMR_PRIV		(DAT_MEM_PRIV_LOCAL_READ_FLAG |		\
				 DAT_MEM_PRIV_LOCAL_WRITE_FLAG |	\
				 DAT_MEM_PRIV_REMOTE_READ_FLAG |	\
				 DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/*
 * Bind (@len > 0) or unbind (@len == 0) @rmr on @s's EP over @len bytes
 * at @off of @b; the DAT_RMR_BIND_COMPLETION_EVENT must follow on the
 * request EVD.
 */
static bool kct_bind(struct kct *t, struct kct_side *s, DAT_RMR_HANDLE rmr,
		     struct kct_buf *b, size_t off, u32 len, u64 cookie,
		     DAT_RMR_CONTEXT *ctx)
{
	DAT_LMR_TRIPLET tr = {
		.virtual_address = (uintptr_t)b->va + off,
		.segment_length = len,
		.lmr_context = b->lctx,
	};
	DAT_RMR_COOKIE ck = { .as_64 = cookie };
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (!KCT_OK(dat_rmr_bind(rmr, len ? b->lmr : DAT_HANDLE_NULL, &tr,
				 KCT_RMR_PRIV, DAT_VA_TYPE_VA, s->ep, ck,
				 DAT_COMPLETION_DEFAULT_FLAG, ctx)) ||
	    !kct_wait(t, s->req_evd, &ev, KCT_WAIT_MS, "bind completion",
		      false))
		return false;
	d = &ev.event_data.rmr_completion_event_data;
	return KCT_CHECK(ev.event_number == DAT_RMR_BIND_COMPLETION_EVENT &&
			 ev.evd_handle == s->req_evd &&
			 d->rmr_handle == rmr &&
			 d->user_cookie.as_64 == cookie &&
			 d->status == DAT_RMR_BIND_SUCCESS &&
			 (len ? *ctx != 0 : *ctx == 0),
			 "bind: event 0x%x rmr %p cookie 0x%llx status %d context 0x%x",
			 ev.event_number, d->rmr_handle, d->user_cookie.as_64,
			 d->status, *ctx);
}

/* One client RDMA write or read of @len bytes at @loff of its big LMR. */
static bool kct_rdma1(struct kct *t, bool read, size_t loff, u64 raddr,
		      u32 len, DAT_RMR_CONTEXT rctx, u64 ck)
{
	DAT_LMR_TRIPLET iov = {
		.virtual_address = (uintptr_t)t->cli.big.va + loff,
		.segment_length = len,
		.lmr_context = t->cli.big.lctx,
	};
	DAT_RMR_TRIPLET r = {
		.virtual_address = raddr,
		.segment_length = len,
		.rmr_context = rctx,
	};
	DAT_DTO_COOKIE c = { .as_64 = ck };

	return KCT_OK(kct_post_rdma(t, read, 1, &iov, c, &r));
}

/*
 * Write @len bytes to [@raddr) and read them back; data checked.  An
 * RDMA write completing says nothing of its placement at the peer on
 * iWARP (siw completes it once sent): the read that follows it on the
 * same EP does.
 */
static bool kct_rmr_rw(struct kct *t, u64 raddr, u32 len,
		       DAT_RMR_CONTEXT rctx, u32 seed)
{
	u8 *local = t->cli.big.va, *back = local + SZ_256K;
	u8 *remote = t->srv.big.va + (raddr - (uintptr_t)t->srv.big.va);

	kct_fill(local, len, seed);
	memset(remote, 0, len);
	memset(back, 0, len);
	if (!kct_rdma1(t, false, 0, raddr, len, rctx,
		       KCT_COOKIE(KCT_CK_WRITE, seed)) ||
	    !kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_RDMA_WRITE,
			  KCT_COOKIE(KCT_CK_WRITE, seed), len, "RMR write") ||
	    !kct_rdma1(t, true, SZ_256K, raddr, len, rctx,
		       KCT_COOKIE(KCT_CK_READ, seed)) ||
	    !kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_RDMA_READ,
			  KCT_COOKIE(KCT_CK_READ, seed), len, "RMR read") ||
	    !KCT_CHECK(!memcmp(remote, local, len),
		       "RMR write of %u bytes: data differs", len) ||
	    !KCT_CHECK(!memcmp(back, local, len),
		       "RMR read of %u bytes: data differs", len))
		return false;
	/* And a read of what the server put there. */
	kct_fill(remote, len, seed + 1);
	return kct_rdma1(t, true, SZ_256K, raddr, len, rctx,
			 KCT_COOKIE(KCT_CK_READ, seed + 1)) &&
	       kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_RDMA_READ,
			    KCT_COOKIE(KCT_CK_READ, seed + 1), len,
			    "RMR read") &&
	       KCT_CHECK(!memcmp(remote, back, len),
			 "RMR read of %u bytes: data differs", len);
}

/* The next connection event of @s within @ms, or 0 (logged). */
static DAT_EVENT_NUMBER kct_next_conn(struct kct *t, struct kct_side *s,
				      unsigned int ms)
{
	DAT_EVENT ev;

	if (!kct_wait(t, s->conn_evd, &ev, ms, "", true))
		return 0;
	return ev.event_number;
}

/*
 * After a fault: @sev and @cev are the connection events the server and
 * the client reported by themselves (0: none yet).  A side still
 * connected is disconnected abruptly; both must end DISCONNECTED with
 * DISCONNECTED or BROKEN reported, the client's receives flushed; then
 * both EPs are reset and connected again with fresh receives.
 */
static bool kct_rmr_reconnect(struct kct *t, DAT_EVENT_NUMBER sev,
			      DAT_EVENT_NUMBER cev)
{
	DAT_EVENT est;

	if (!cev) {
		if (!KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED) ||
		    !KCT_OK(dat_ep_disconnect(t->cli.ep,
					      DAT_CLOSE_ABRUPT_FLAG)))
			return false;
		cev = kct_next_conn(t, &t->cli, KCT_WAIT_MS);
	}
	if (!sev)
		sev = kct_next_conn(t, &t->srv, KCT_WAIT_MS);
	if (!KCT_CHECK((sev == DAT_CONNECTION_EVENT_DISCONNECTED ||
			sev == DAT_CONNECTION_EVENT_BROKEN) &&
		       (cev == DAT_CONNECTION_EVENT_DISCONNECTED ||
			cev == DAT_CONNECTION_EVENT_BROKEN),
		       "connection events: server 0x%x, client 0x%x", sev,
		       cev) ||
	    !KCT_STATE(&t->srv, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !kct_flush_recvs(t, &t->cli) ||
	    !kct_quiet(t, t->srv.conn_evd, "server connection") ||
	    !kct_quiet(t, t->cli.conn_evd, "client connection") ||
	    !KCT_OK(dat_ep_reset(t->srv.ep)) ||
	    !KCT_OK(dat_ep_reset(t->cli.ep)) ||
	    !kct_post_recvs(t, &t->srv, KCT_RMR_RECVS) ||
	    !kct_post_recvs(t, &t->cli, KCT_RMR_RECVS))
		return false;
	return kct_connect(t, NULL, 0, NULL, 0, &est);
}

/*
 * A client RDMA write with cookie @ck (posted by the caller) hit memory
 * it may not reach.  Its completion is @want, and the connection breaks
 * on both sides: the server's receives flush and each side reports its
 * connection event; then reconnect with fresh receives.
 */
static bool kct_rmr_fault(struct kct *t, const char *what, u64 ck)
{
	DAT_DTO_COMPLETION_STATUS want = t->iwarp ? DAT_DTO_SUCCESS :
					 DAT_DTO_ERR_REMOTE_ACCESS;
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT_NUMBER cev, sev;
	DAT_EVENT ev;

	if (!kct_wait(t, t->cli.req_evd, &ev, KCT_WAIT_MS, what, false))
		return false;
	d = &ev.event_data.dto_completion_event_data;
	pr_info(KCT "rmr: %s: client status %d\n", what, d->status);
	if (!KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		       d->ep_handle == t->cli.ep &&
		       d->user_cookie.as_64 == ck &&
		       d->operation == DAT_DTO_RDMA_WRITE &&
		       d->status == want,
		       "%s: event 0x%x cookie 0x%llx op %d status %d, expected status %d",
		       what, ev.event_number, d->user_cookie.as_64,
		       d->operation, d->status, want) ||
	    !kct_flush_recvs(t, &t->srv))
		return false;
	sev = kct_next_conn(t, &t->srv, 2000);
	cev = kct_next_conn(t, &t->cli, 2000);
	pr_info(KCT "rmr: %s: server event 0x%x (%s), client event 0x%x (%s)\n",
		what, sev, kct_conn_event_name(sev), cev,
		kct_conn_event_name(cev));
	/*
	 * rxe: the write fails with REMOTE_ACCESS and kdapl breaks the
	 * client's connection (kdapl_cm_qp_broken()); the server's QP went
	 * to the error state without an event or a failed DTO of its own
	 * (its receives flush), and it sees the client close.
	 */
	if (!t->iwarp &&
	    !KCT_CHECK(cev == DAT_CONNECTION_EVENT_BROKEN &&
		       sev == DAT_CONNECTION_EVENT_DISCONNECTED,
		       "%s: connection events 0x%x 0x%x on RoCE", what, sev,
		       cev))
		return false;
	/*
	 * siw: the server terminates the connection (BROKEN, or
	 * DISCONNECTED when the close overtakes the QP error); the client
	 * sees it closed by its peer, or BROKEN when the TERMINATE fails
	 * a message it was receiving (see kct_err_event_ok()).
	 */
	if (t->iwarp &&
	    !KCT_CHECK((cev == DAT_CONNECTION_EVENT_DISCONNECTED ||
			cev == DAT_CONNECTION_EVENT_BROKEN) &&
		       (sev == DAT_CONNECTION_EVENT_BROKEN ||
			sev == DAT_CONNECTION_EVENT_DISCONNECTED),
		       "%s: connection events 0x%x 0x%x on iWARP", what, sev,
		       cev))
		return false;
	return kct_rmr_reconnect(t, sev, cev);
}

/* A client RDMA write of one byte at @raddr with @rctx that must fail. */
static bool kct_rmr_bad_write(struct kct *t, const char *what, u64 raddr,
			      DAT_RMR_CONTEXT rctx, u32 n)
{
	u64 ck = KCT_COOKIE(KCT_CK_WRITE, 0x1000 + n);

	return kct_rdma1(t, false, 0, raddr, 1, rctx, ck) &&
	       kct_rmr_fault(t, what, ck);
}

static void kct_rmr(struct kct *t)
{
	DAT_RMR_CONTEXT ctx = 0, old, inv;
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL, crmr = DAT_HANDLE_NULL;
	struct kct_buf x = { };
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET lr, rr;
	DAT_DTO_COOKIE ck;
	DAT_EVENT est, ev;
	u64 base;
	DAT_RETURN r;

	if (!kct_open(t, port + 8, true) ||
	    !kct_buf_init(t, &x, SZ_16K, DAT_MEM_PRIV_ALL_FLAG) ||
	    !kct_post_recvs(t, &t->srv, KCT_RMR_RECVS) ||
	    !kct_post_recvs(t, &t->cli, KCT_RMR_RECVS) ||
	    !kct_connect(t, NULL, 0, NULL, 0, &est) ||
	    !KCT_OK(dat_rmr_create(t->pz, &rmr)))
		goto out;
	base = (uintptr_t)t->srv.big.va + KCT_RMR_OFF;

	/* 1. Bind a sub-range of the server's big LMR. */
	if (!kct_bind(t, &t->srv, rmr, &t->srv.big, KCT_RMR_OFF, KCT_RMR_LEN,
		      0x5151, &ctx) ||
	    !KCT_CHECK(ctx != t->srv.big.rctx,
		       "RMR context 0x%x is the LMR's", ctx))
		goto out;
	kct_pass(t, "bind");

	/* 2. RDMA write and read through it. */
	if (!kct_rmr_rw(t, base, KCT_RMR_LEN, ctx, 1) ||
	    !kct_rmr_rw(t, base + KCT_RMR_LEN - 100, 100, ctx, 2))
		goto out;
	kct_pass(t, "access");

	/* 3. One byte past the end of the window. */
	if (!kct_rmr_bad_write(t, "write past the window",
			       base + KCT_RMR_LEN, ctx, 1))
		goto out;
	kct_pass(t, "range");

	/* 4. Unbind: the context is dead; a rebind gives a new one. */
	old = ctx;
	if (!kct_rmr_rw(t, base, 4096, ctx, 3) ||
	    !kct_bind(t, &t->srv, rmr, &t->srv.big, 0, 0, 0x5152, &ctx) ||
	    !kct_rmr_bad_write(t, "write after unbind", base, old, 2) ||
	    !kct_bind(t, &t->srv, rmr, &t->srv.big, KCT_RMR_OFF, KCT_RMR_LEN,
		      0x5153, &ctx) ||
	    !KCT_CHECK(ctx != old, "rebind kept context 0x%x", ctx) ||
	    !kct_rmr_rw(t, base, KCT_RMR_LEN, ctx, 4) ||
	    !kct_rmr_bad_write(t, "write with a stale context", base, old, 3) ||
	    !kct_rmr_rw(t, base, 4096, ctx, 5))
		goto out;
	kct_pass(t, "unbind");

	/* 5. dat_lmr_free() of an LMR in use by an RMR, then without. */
	if (!kct_bind(t, &t->srv, rmr, &x, 0, SZ_4K, 0x5154, &ctx) ||
	    !KCT_RET(dat_lmr_free(x.lmr),
		     dat_error(DAT_INVALID_STATE,
			       DAT_INVALID_STATE_LMR_IN_USE)) ||
	    !kct_rmr_rw(t, (uintptr_t)x.va, SZ_4K, x.rctx, 6) ||
	    !KCT_OK(dat_rmr_free(rmr)))
		goto out;
	rmr = DAT_HANDLE_NULL;
	if (!KCT_OK(dat_lmr_free(x.lmr)))
		goto out;
	x.lmr = DAT_HANDLE_NULL;
	if (!kct_rmr_bad_write(t, "write to a freed LMR", (uintptr_t)x.va,
			       x.rctx, 4))
		goto out;
	kct_pass(t, "lmr_free");

	/* 6. Send with invalidate of a bound RMR of the server. */
	if (!KCT_OK(dat_rmr_create(t->pz, &rmr)) ||
	    !kct_bind(t, &t->srv, rmr, &t->srv.big, KCT_RMR_OFF, KCT_RMR_LEN,
		      0x5155, &inv) ||
	    !kct_rmr_rw(t, base, 4096, inv, 7))
		goto out;
	kct_fill(t->cli.msg.va + KCT_RECV_SLOTS * KCT_SLOT, 32, 77);
	iov.virtual_address = (uintptr_t)t->cli.msg.va +
			      KCT_RECV_SLOTS * KCT_SLOT;
	iov.segment_length = 32;
	iov.lmr_context = t->cli.msg.lctx;
	ck.as_64 = KCT_COOKIE(KCT_CK_SEND, 77);
	if (!KCT_OK(dat_ep_post_send_with_invalidate(t->cli.ep, 1, &iov, ck,
						     DAT_COMPLETION_DEFAULT_FLAG,
						     DAT_TRUE, inv)) ||
	    !kct_wait(t, t->srv.recv_evd, &ev, KCT_WAIT_MS,
		      "receive with invalidate", false))
		goto out;
	d = &ev.event_data.dto_completion_event_data;
	if (!KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		       d->ep_handle == t->srv.ep &&
		       d->status == DAT_DTO_SUCCESS &&
		       d->operation == DAT_DTO_RECEIVE_WITH_INVALIDATE &&
		       d->rmr_context == inv &&
		       d->transfered_length == 32 &&
		       KCT_CK_KIND(d->user_cookie.as_64) == KCT_CK_RECV &&
		       test_and_clear_bit(KCT_CK_NUM(d->user_cookie.as_64),
					  t->srv.recv_posted),
		       "receive: event 0x%x status %d op %d context 0x%x (sent 0x%x) len %u",
		       ev.event_number, d->status, d->operation,
		       d->rmr_context, inv, d->transfered_length) ||
	    !kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_SEND,
			  ck.as_64, 32, "send with invalidate") ||
	    !kct_rmr_bad_write(t, "write after invalidate", base, inv, 5))
		goto out;
	kct_pass(t, "invalidate");

	/* 7. RDMA read into a bound RMR of the client. */
	memset(t->cli.big.va, 0, SZ_16K);
	kct_fill(t->srv.big.va, SZ_16K, 99);
	if (!KCT_OK(dat_rmr_create(t->pz, &crmr)) ||
	    !kct_bind(t, &t->cli, crmr, &t->cli.big, 0, SZ_16K, 0x5156,
		      &ctx))
		goto out;
	lr.virtual_address = (uintptr_t)t->cli.big.va;
	lr.segment_length = SZ_16K;
	lr.rmr_context = ctx;
	rr.virtual_address = (uintptr_t)t->srv.big.va;
	rr.segment_length = SZ_16K;
	rr.rmr_context = t->srv.big.rctx;
	ck.as_64 = KCT_COOKIE(KCT_CK_READ, 99);
	r = dat_ep_post_rdma_read_to_rmr(t->cli.ep, &lr, ck, &rr,
					 DAT_COMPLETION_DEFAULT_FLAG);
	if (!KCT_OK(r) ||
	    !kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_RDMA_READ,
			  ck.as_64, SZ_16K, "RDMA read to RMR") ||
	    !KCT_CHECK(!memcmp(t->cli.big.va, t->srv.big.va, SZ_16K),
		       "RDMA read to RMR: data differs") ||
	    !KCT_RET(dat_ep_post_rdma_read_to_rmr(t->cli.ep, NULL, ck, &rr,
						  DAT_COMPLETION_DEFAULT_FLAG),
		     dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)))
		goto out;
	kct_pass(t, "read_to_rmr");

	if (!kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_GRACEFUL_FLAG))
		goto out;
out:
	if (crmr)
		KCT_OK(dat_rmr_free(crmr));
	if (rmr)
		KCT_OK(dat_rmr_free(rmr));
	if (x.va)
		kct_buf_fini(t, &x);
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 10. handoff: a CR passed from one PSP to another
 */

/* Counter @id of @h, one of the @all of its type, must be @want. */
static bool kct_counter(struct kct *t, DAT_HANDLE h, int all, int id,
			u64 want)
{
	u64 v[DCNT_IA_ALL_COUNTERS];

	memset(v, 0xa5, sizeof(v));
	return KCT_OK(dat_ib_query_counters(h, all, v, 0)) &&
	       KCT_CHECK(v[id] == want, "counter %d: %llu, expected %llu",
			 id, v[id], want);
}

#define kct_ep_counter(t, ep, id, want)					\
	kct_counter(t, ep, DCNT_EP_ALL_COUNTERS, id, want)

static void kct_handoff(struct kct *t)
{
	DAT_CONN_QUAL qb = port + 10;
	DAT_PSP_HANDLE psp_b = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE evd_b = DAT_HANDLE_NULL;
	DAT_CR_ARRIVAL_EVENT_DATA *cra;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM crp;
	DAT_EVENT ev;

	if (!kct_open(t, port + 9, false) ||
	    !KCT_OK(dat_evd_kcreate(t->ia, 16, DAT_UPCALL_DISABLE, NULL,
				    DAT_EVD_CR_FLAG, &evd_b)) ||
	    !KCT_OK(dat_psp_create(t->ia, qb, evd_b, DAT_PSP_CONSUMER_FLAG,
				   &psp_b)) ||
	    !KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				   t->qual, KCT_CONNECT_TIMEOUT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !kct_wait(t, t->cr_evd, &ev, KCT_WAIT_MS, "connection request on A",
		      false))
		goto out;
	cra = &ev.event_data.cr_arrival_event_data;
	cr = cra->cr_handle;
	if (!KCT_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT &&
		       cra->sp_handle.psp_handle == t->psp &&
		       cra->conn_qual == t->qual,
		       "request on A: event 0x%x psp %p qual %llu",
		       ev.event_number, cra->sp_handle.psp_handle,
		       cra->conn_qual) ||
	    /* Errors leave the CR where it is. */
	    !KCT_RET(dat_cr_handoff(cr, port + 11),
		     dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)) ||
	    !KCT_RET(dat_cr_handoff(DAT_HANDLE_NULL, qb),
		     dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR)) ||
	    !KCT_RET(dat_cr_handoff((DAT_CR_HANDLE)t->cli.ep, qb),
		     dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR)) ||
	    !KCT_OK(dat_cr_handoff(cr, qb)) ||
	    !kct_wait(t, evd_b, &ev, KCT_WAIT_MS, "connection request on B",
		      false))
		goto out;
	if (!KCT_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT &&
		       ev.evd_handle == evd_b &&
		       cra->cr_handle == cr &&
		       cra->sp_handle.psp_handle == psp_b &&
		       cra->conn_qual == qb,
		       "request on B: event 0x%x CR %p (was %p) psp %p qual %llu",
		       ev.event_number, cra->cr_handle, cr,
		       cra->sp_handle.psp_handle, cra->conn_qual) ||
	    !kct_quiet(t, t->cr_evd, "CR A") ||
	    !KCT_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp)) ||
	    !KCT_CHECK(crp.local_ep_handle == DAT_HANDLE_NULL,
		       "handed-off CR has EP %p", crp.local_ep_handle) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) ||
	    /* One request arrived, however often it was handed on. */
	    (!t->iwarp &&
	     !kct_counter(t, t->ia, DCNT_IA_ALL_COUNTERS, DCNT_IA_SP_CR, 1)))
		goto out;
	kct_pass(t, "moved");
	if (!KCT_OK(dat_cr_accept(cr, t->srv.ep, 0, NULL)) ||
	    !KCT_CONN_EVENT(&t->srv, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    !KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    !KCT_STATE(&t->srv, DAT_EP_STATE_CONNECTED) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED) ||
	    /* An accepted CR is gone. */
	    !KCT_RET(dat_cr_handoff(cr, t->qual),
		     dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR)) ||
	    !kct_quiet(t, evd_b, "CR B") ||
	    !kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_GRACEFUL_FLAG))
		goto out;
	kct_pass(t, "accept");
out:
	if (psp_b)
		KCT_OK(dat_psp_free(psp_b));
	if (evd_b)
		KCT_OK(dat_evd_free(evd_b));
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 11. flags: DTO completion flags end to end
 */

/*
 * dat_ep_get_status() of @s reports exactly @recv_idle and @req_idle;
 * with @ms, keep asking until it does or @ms have passed.
 */
static bool kct_idle(struct kct *t, int line, struct kct_side *s,
		     DAT_BOOLEAN recv_idle, DAT_BOOLEAN req_idle,
		     unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);
	DAT_BOOLEAN ri, qi;
	DAT_EP_STATE state;
	DAT_RETURN r;

	for (;;) {
		r = dat_ep_get_status(s->ep, &state, &ri, &qi);
		if (r != DAT_SUCCESS) {
			kct_fail(t, "line %d: %s dat_ep_get_status = 0x%08x",
				 line, s->who, r);
			return false;
		}
		if (ri == recv_idle && qi == req_idle)
			return true;
		if (!time_before(jiffies, deadline))
			break;
		usleep_range(1000, 2000);
	}
	kct_fail(t, "line %d: %s EP in %s: recv_idle %d request_idle %d, expected %d %d",
		 line, s->who, kct_state_name(state), ri, qi, recv_idle,
		 req_idle);
	return false;
}

#define KCT_IDLE(s, r, q)	kct_idle(t, __LINE__, s, r, q, 0)

/* Length of flags test message @n: 64 to 2063 bytes. */
static u32 kct_flags_len(u64 n)
{
	return 64 + (n * 397) % 2000;
}

/* Client message @n with @flags (the server's receive is checked later). */
static bool kct_flags_send(struct kct *t, u64 n, DAT_COMPLETION_FLAGS flags)
{
	return kct_send_flags(t, &t->cli, n % KCT_SEND_SLOTS, kct_flags_len(n),
			      n, n, flags);
}

/* The server receives client message @n, data checked. */
static bool kct_flags_recv(struct kct *t, u64 n, u8 *expect)
{
	return kct_recv(t, &t->srv, kct_flags_len(n), n, expect);
}

/* The next client request completion is the send of message @n. */
static bool kct_flags_done(struct kct *t, u64 n, const char *what)
{
	return kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_SEND,
			    KCT_COOKIE(KCT_CK_SEND, n), kct_flags_len(n), what);
}

/* Unsignalled sends in a round of the ring test. */
#define KCT_UNSIG_ROUND		24

/* @count unsignalled sends from number @first, then their receives. */
static bool kct_flags_unsignalled(struct kct *t, u64 first,
				  unsigned int count, u8 *expect)
{
	u64 n;

	for (n = first; n < first + count; n++)
		if (!kct_flags_send(t, n, DAT_COMPLETION_UNSIGNALLED_FLAG))
			return false;
	for (n = first; n < first + count; n++)
		if (!kct_flags_recv(t, n, expect))
			return false;
	return true;
}

/*
 * BARRIER_FENCE: an RDMA read of @len bytes, then a fenced send of the
 * buffer it reads into.  The send waits for the read's data, so the
 * server receives what it had in its big buffer (pattern @seed); without
 * the fence it could send the old contents.
 */
static bool kct_fence(struct kct *t, u32 len, u32 seed, u8 *expect)
{
	DAT_LMR_TRIPLET iov = {
		.virtual_address = (uintptr_t)t->cli.big.va,
		.segment_length = len,
		.lmr_context = t->cli.big.lctx,
	};
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_SEND, seed + 1) };

	memset(t->cli.big.va, 0xee, len);
	kct_fill(t->srv.big.va, len, seed);
	return kct_rdma1(t, true, 0, (uintptr_t)t->srv.big.va, len,
			 t->srv.big.rctx, KCT_COOKIE(KCT_CK_READ, seed)) &&
	       KCT_OK(dat_ep_post_send(t->cli.ep, 1, &iov, ck,
				       DAT_COMPLETION_BARRIER_FENCE_FLAG)) &&
	       kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_RDMA_READ,
			    KCT_COOKIE(KCT_CK_READ, seed), len,
			    "RDMA read before a fence") &&
	       kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_SEND,
			    ck.as_64, len, "fenced send") &&
	       kct_recv(t, &t->srv, len, seed, expect) &&
	       KCT_CHECK(!memcmp(t->cli.big.va, t->srv.big.va, len),
			 "RDMA read of %u bytes before a fence: data differs",
			 len) &&
	       KCT_IDLE(&t->cli, DAT_TRUE, DAT_TRUE);
}

static void kct_flags(struct kct *t)
{
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COOKIE ck;
	DAT_EVENT est;
	unsigned int r, rounds;
	u8 *expect;
	bool ok;
	u64 n;

	expect = kmalloc(KCT_SLOT, GFP_KERNEL);
	if (!KCT_CHECK(expect, "no memory") || !kct_open(t, port + 12, true))
		goto out;
	/*
	 * The client's EP allows unsignalled requests, the server's does
	 * not.  Receives are never unsignalled: no recv_completion_flags
	 * have DAT_COMPLETION_UNSIGNALLED_FLAG (Documentation/ep.rst), so
	 * dat_ep_post_recv() refuses it.
	 */
	if (!KCT_OK(dat_ep_free(t->cli.ep)))
		goto out;
	t->cli.ep = DAT_HANDLE_NULL;
	t->ep_attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	ok = kct_ep_create(t, &t->cli);
	t->ep_attr.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	if (!ok)
		goto out;
	iov.virtual_address = (uintptr_t)t->cli.msg.va;
	iov.segment_length = KCT_SLOT;
	iov.lmr_context = t->cli.msg.lctx;
	ck.as_64 = KCT_COOKIE(KCT_CK_RECV, 0);
	if (!KCT_RET(dat_ep_post_recv(t->cli.ep, 1, &iov, ck,
				      DAT_COMPLETION_UNSIGNALLED_FLAG),
		     dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5)) ||
	    !kct_post_recvs(t, &t->srv, KCT_RECV_SLOTS) ||
	    !kct_connect(t, NULL, 0, NULL, 0, &est))
		goto out;
	/* A connected EP without it refuses an unsignalled request. */
	iov.virtual_address = (uintptr_t)t->srv.msg.va +
			      KCT_RECV_SLOTS * KCT_SLOT;
	iov.segment_length = 16;
	iov.lmr_context = t->srv.msg.lctx;
	ck.as_64 = KCT_COOKIE(KCT_CK_SEND, 0);
	if (!KCT_RET(dat_ep_post_send(t->srv.ep, 1, &iov, ck,
				      DAT_COMPLETION_UNSIGNALLED_FLAG),
		     dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5)) ||
	    !kct_quiet(t, t->srv.req_evd, "server request") ||
	    !KCT_IDLE(&t->srv, DAT_FALSE, DAT_TRUE) ||
	    !KCT_IDLE(&t->cli, DAT_TRUE, DAT_TRUE))
		goto out;

	/*
	 * 1. SUPPRESS: a send that succeeds has no event.  The next event
	 * of the request EVD is that of the send after it, both arrive.
	 */
	if (!kct_flags_send(t, 1, DAT_COMPLETION_SUPPRESS_FLAG) ||
	    !kct_flags_send(t, 2, DAT_COMPLETION_DEFAULT_FLAG) ||
	    !kct_flags_recv(t, 1, expect) || !kct_flags_recv(t, 2, expect) ||
	    !kct_flags_done(t, 2, "send after a suppressed one") ||
	    !kct_quiet(t, t->cli.req_evd, "client request") ||
	    !KCT_IDLE(&t->cli, DAT_TRUE, DAT_TRUE))
		goto out;
	kct_pass(t, "suppress");

	/*
	 * 2. UNSIGNALLED: no event on success.  The sends arrive, and once
	 * they completed the EP is request-idle; a signalled send after
	 * them reports as usual.
	 */
	if (!kct_flags_unsignalled(t, 10, 3, expect) ||
	    !kct_quiet(t, t->cli.req_evd, "client request") ||
	    !kct_idle(t, __LINE__, &t->cli, DAT_TRUE, DAT_TRUE, KCT_WAIT_MS) ||
	    !kct_flags_send(t, 13, DAT_COMPLETION_DEFAULT_FLAG) ||
	    !kct_flags_recv(t, 13, expect) ||
	    !kct_flags_done(t, 13, "send after unsignalled ones") ||
	    !kct_quiet(t, t->cli.req_evd, "client request") ||
	    !KCT_IDLE(&t->cli, DAT_TRUE, DAT_TRUE))
		goto out;
	kct_pass(t, "unsignalled");

	/*
	 * 3. More unsignalled sends in a row than max_request_dtos: each
	 * completes without an event and frees its place, so every post
	 * succeeds.  Each round is received before the next (the server
	 * has KCT_RECV_SLOTS receives; iWARP breaks the connection on a
	 * send without one).
	 */
	rounds = t->ep_attr.max_request_dtos / KCT_UNSIG_ROUND + 1;
	for (r = 0, n = 100; r < rounds; r++) {
		if (!kct_flags_unsignalled(t, n, KCT_UNSIG_ROUND, expect))
			goto out;
		n += KCT_UNSIG_ROUND;
		if (!kct_quiet(t, t->cli.req_evd, "client request"))
			goto out;
	}
	if (!kct_idle(t, __LINE__, &t->cli, DAT_TRUE, DAT_TRUE, KCT_WAIT_MS) ||
	    !kct_flags_send(t, n, DAT_COMPLETION_DEFAULT_FLAG) ||
	    !kct_flags_recv(t, n, expect) ||
	    !kct_flags_done(t, n, "send after the unsignalled rounds") ||
	    !kct_quiet(t, t->cli.req_evd, "client request") ||
	    !KCT_IDLE(&t->cli, DAT_TRUE, DAT_TRUE))
		goto out;
	pr_info(KCT "flags: %u unsignalled sends in a row, max_request_dtos %d\n",
		rounds * KCT_UNSIG_ROUND, t->ep_attr.max_request_dtos);
	kct_pass(t, "unsignalled-ring");

	/* 4. SOLICITED_WAIT: an ordinary send for the receiver's data. */
	if (!kct_flags_send(t, 200, DAT_COMPLETION_SOLICITED_WAIT_FLAG) ||
	    !kct_flags_recv(t, 200, expect) ||
	    !kct_flags_done(t, 200, "solicited send") ||
	    !KCT_IDLE(&t->cli, DAT_TRUE, DAT_TRUE))
		goto out;
	kct_pass(t, "solicited");

	/*
	 * 5. BARRIER_FENCE, with a message of a page and one small enough
	 * for the device to copy at post time (IB_SEND_INLINE on rxe): the
	 * fence must also keep kdapl from posting that one inline.
	 */
	if (!kct_fence(t, KCT_SLOT, 300, expect))
		goto out;
	kct_pass(t, "fence");
	if (!kct_fence(t, KCT_FENCE_SMALL, 310, expect))
		goto out;
	kct_pass(t, "fence-small");

	/*
	 * 6. Unsignalled sends posted last complete silently, and the end
	 * of the connection reports nothing more.
	 */
	if (!kct_flags_unsignalled(t, 400, 2, expect) ||
	    !kct_idle(t, __LINE__, &t->cli, DAT_TRUE, DAT_TRUE, KCT_WAIT_MS) ||
	    !kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_GRACEFUL_FLAG) ||
	    !kct_flush_recvs(t, &t->srv) || !kct_flush_recvs(t, &t->cli) ||
	    !kct_idle(t, __LINE__, &t->cli, DAT_TRUE, DAT_TRUE, KCT_WAIT_MS) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_DISCONNECTED) ||
	    !kct_quiet(t, t->cli.req_evd, "client request"))
		goto out;
	kct_pass(t, "unsignalled-end");
out:
	kct_close(t);
	kfree(expect);
}

/* ---------------------------------------------------------------------
 * 12. errors: completion errors and connection events
 */

#define KCT_ERR_RECV_LEN	64	/* the short receive */
#define KCT_ERR_SEND_LEN	256	/* the send that does not fit in it */
#define KCT_ERR_RECVS		KCT_RMR_RECVS

/*
 * The next DTO completion on @evd of @s is @op of cookie @ck with
 * @status; a success must have moved @len bytes.
 */
static bool kct_dto_status(struct kct *t, struct kct_side *s,
			   DAT_EVD_HANDLE evd, DAT_DTOS op, u64 ck,
			   DAT_DTO_COMPLETION_STATUS status, u32 len,
			   const char *what)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (status == DAT_DTO_SUCCESS)
		return kct_dto_done(t, s, evd, op, ck, len, what);
	if (!kct_wait(t, evd, &ev, KCT_WAIT_MS, what, false))
		return false;
	d = &ev.event_data.dto_completion_event_data;
	pr_info(KCT "%s: %s: status %d\n", t->name, what, d->status);
	return KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			 ev.evd_handle == evd && d->ep_handle == s->ep &&
			 d->status == status && d->operation == op &&
			 d->user_cookie.as_64 == ck,
			 "%s: event 0x%x EP %p status %d op %d cookie 0x%llx, expected status %d op %d cookie 0x%llx",
			 what, ev.event_number, d->ep_handle, d->status,
			 d->operation, d->user_cookie.as_64, status, op, ck);
}

/*
 * Is @got the connection event a side that expects @want may report?
 * On iWARP, a side expected to see its peer close (DISCONNECTED) may
 * report BROKEN: siw's receive path fails the message it was receiving
 * when the peer's TERMINATE or reset arrives (siw_tcp_rx_data() calls
 * siw_rdmap_complete() with the error before siw_qp_cm_drop()), and a
 * failed work request breaks the connection.
 */
static bool kct_err_event_ok(const struct kct *t, DAT_EVENT_NUMBER got,
			     DAT_EVENT_NUMBER want)
{
	return got == want ||
	       (t->iwarp && want == DAT_CONNECTION_EVENT_DISCONNECTED &&
		got == DAT_CONNECTION_EVENT_BROKEN);
}

/*
 * The connection events of both sides after a fault, each @sev or @cev
 * (0: none within 2 s), as kct_err_event_ok() takes them; logged.
 */
static bool kct_err_events(struct kct *t, const char *what,
			   DAT_EVENT_NUMBER want_sev, DAT_EVENT_NUMBER want_cev,
			   DAT_EVENT_NUMBER *sev, DAT_EVENT_NUMBER *cev)
{
	*sev = kct_next_conn(t, &t->srv, 2000);
	*cev = kct_next_conn(t, &t->cli, 2000);
	pr_info(KCT "%s: %s: server event 0x%x (%s), client event 0x%x (%s)\n",
		t->name, what, *sev, kct_conn_event_name(*sev), *cev,
		kct_conn_event_name(*cev));
	return KCT_CHECK(kct_err_event_ok(t, *sev, want_sev) &&
			 kct_err_event_ok(t, *cev, want_cev),
			 "%s: connection events: server 0x%x (%s), client 0x%x (%s); expected 0x%x (%s), 0x%x (%s)",
			 what, *sev, kct_conn_event_name(*sev), *cev,
			 kct_conn_event_name(*cev), want_sev,
			 kct_conn_event_name(want_sev), want_cev,
			 kct_conn_event_name(want_cev));
}

/*
 * End a faulty connection: @sev and @cev are the connection events the
 * sides reported (0: none, the side is still CONNECTED).  The client
 * disconnects if it has not ended, the server's receives flush, both
 * report DISCONNECTED and they connect again with fresh receives.
 */
static bool kct_err_reconnect(struct kct *t, DAT_EVENT_NUMBER sev,
			      DAT_EVENT_NUMBER cev)
{
	DAT_EVENT ev;

	if (!cev) {
		if (!KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED) ||
		    !KCT_OK(dat_ep_disconnect(t->cli.ep,
					      DAT_CLOSE_ABRUPT_FLAG)) ||
		    !KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_DISCONNECTED,
				    &ev))
			return false;
		cev = ev.event_number;
	}
	if (!sev) {
		if (!KCT_CONN_EVENT(&t->srv, DAT_CONNECTION_EVENT_DISCONNECTED,
				    &ev))
			return false;
		sev = ev.event_number;
	}
	return kct_flush_recvs(t, &t->srv) && kct_rmr_reconnect(t, sev, cev);
}

/*
 * A. Connecting to an address where nobody answers ARP, with a DAT
 * timeout (20 s) longer than kdapl's address resolution (2 s,
 * KDAPL_CM_RESOLVE_MS in kdapl_cm.c): in 6.1 the resolution retries
 * until its own timeout and fails with -ETIMEDOUT
 * (drivers/infiniband/core/addr.c, process_one_req()), rdma_cm reports
 * RDMA_CM_EVENT_ADDR_ERROR (cma.c, addr_handler()) and kdapl
 * UNREACHABLE.  The "timeout" scenario's 500 ms gives TIMED_OUT first.
 */
static bool kct_err_unreachable(struct kct *t)
{
	struct sockaddr_in nobody;
	ktime_t start;
	DAT_EVENT ev;
	s64 ms;

	if (!kct_nobody(t, &nobody))
		return false;
	start = ktime_get();
	if (!KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&nobody,
				   port + 14, KCT_CONNECT_TIMEOUT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) ||
	    !KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_UNREACHABLE, &ev))
		return false;
	ms = ktime_ms_delta(ktime_get(), start);
	pr_info(KCT "errors: %pI4 unreachable after %lld ms\n",
		&nobody.sin_addr.s_addr, ms);
	return KCT_CHECK(ms >= 1500 && ms < 10000,
			 "unreachable after %lld ms: expected the 2 s of address resolution",
			 ms) &&
	       KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) &&
	       kct_quiet(t, t->cli.conn_evd, "client connection") &&
	       KCT_OK(dat_ep_reset(t->cli.ep)) &&
	       KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_UNCONNECTED);
}

/*
 * B. A send of KCT_ERR_SEND_LEN bytes into the server's receive slot 0,
 * posted with room for KCT_ERR_RECV_LEN.
 *
 * rxe (6.1): the responder's copy_data() refuses more data than the
 * receive's length with -EINVAL, not -ENOSPC (rxe_mr.c), which
 * rxe_resp.c treats as RESPST_ERR_MALFORMED_WQE: the receive completes
 * with IB_WC_LOC_QP_OP_ERR (DAT_DTO_ERR_LOCAL_EP), the NAK (remote
 * operation error) completes the send with IB_WC_REM_OP_ERR
 * (DAT_DTO_ERR_REMOTE_RESPONDER), and both QPs go to the error state
 * with no affiliated event (rxe_qp_error()).  Each side's failed DTO
 * makes kdapl break its connection: both report BROKEN (the server's
 * failure comes before the NAK that fails the client's send, and a
 * close by the other side only after it).
 *
 * siw: the receive completes with IB_WC_LOC_LEN_ERR
 * (DAT_DTO_ERR_LOCAL_LENGTH, siw_send_check_ntoh() in siw_qp_rx.c); the
 * send completed when it went out, so it succeeded.  siw_proc_send()
 * raises IB_EVENT_QP_FATAL on the receiver (BROKEN) and drops the
 * connection (siw_qp_cm_drop()): the sender reports DISCONNECTED.
 */
static bool kct_err_short_recv(struct kct *t)
{
	DAT_DTO_COMPLETION_STATUS rs = t->iwarp ? DAT_DTO_ERR_LOCAL_LENGTH :
						  DAT_DTO_ERR_LOCAL_EP;
	DAT_DTO_COMPLETION_STATUS ss = t->iwarp ? DAT_DTO_SUCCESS :
						  DAT_DTO_ERR_REMOTE_RESPONDER;
	DAT_EVENT_NUMBER want_cev = t->iwarp ?
				    DAT_CONNECTION_EVENT_DISCONNECTED :
				    DAT_CONNECTION_EVENT_BROKEN;
	DAT_EVENT_NUMBER sev, cev;

	if (!kct_send(t, &t->cli, 0, KCT_ERR_SEND_LEN, 1, 2) ||
	    !kct_dto_status(t, &t->srv, t->srv.recv_evd, DAT_DTO_RECEIVE,
			    KCT_COOKIE(KCT_CK_RECV, 0), rs, 0,
			    "short receive") ||
	    !kct_dto_status(t, &t->cli, t->cli.req_evd, DAT_DTO_SEND,
			    KCT_COOKIE(KCT_CK_SEND, 2), ss, KCT_ERR_SEND_LEN,
			    "send to a short receive"))
		return false;
	clear_bit(0, t->srv.recv_posted);
	return kct_flush_recvs(t, &t->srv) &&
	       kct_err_events(t, "short receive", DAT_CONNECTION_EVENT_BROKEN,
			      want_cev, &sev, &cev) &&
	       KCT_STATE(&t->srv, DAT_EP_STATE_DISCONNECTED) &&
	       KCT_STATE(&t->cli, DAT_EP_STATE_DISCONNECTED) &&
	       kct_err_reconnect(t, sev, cev);
}

/*
 * C. An RDMA read into an RMR that is not bound: dat_rmr_bind() and an
 * unbind leave the RMR's old context, which is no sink any more.  The
 * sink of dat_ep_post_rdma_read_to_rmr() is looked up as a bound RMR of
 * the EP's PZ, never passed to the device as a raw key: the post is
 * refused (DAT_PROTECTION_VIOLATION), nothing reaches the device,
 * nothing is written, and the connection stays up.
 */
static bool kct_err_local_prot(struct kct *t, DAT_RMR_HANDLE rmr)
{
	DAT_RMR_CONTEXT ctx, unbound;
	DAT_RMR_TRIPLET lr, rr;
	DAT_DTO_COOKIE ck;

	if (!kct_bind(t, &t->cli, rmr, &t->cli.big, 0, SZ_4K, 0x7001,
		      &unbound) ||
	    !kct_bind(t, &t->cli, rmr, &t->cli.big, 0, 0, 0x7002, &ctx))
		return false;
	memset(t->cli.big.va, 0xee, SZ_4K);
	kct_fill(t->srv.big.va, SZ_4K, 5);
	lr.virtual_address = (uintptr_t)t->cli.big.va;
	lr.segment_length = SZ_4K;
	lr.rmr_context = unbound;
	rr.virtual_address = (uintptr_t)t->srv.big.va;
	rr.segment_length = SZ_4K;
	rr.rmr_context = t->srv.big.rctx;
	ck.as_64 = KCT_COOKIE(KCT_CK_READ, 5);
	return KCT_RET(dat_ep_post_rdma_read_to_rmr(t->cli.ep, &lr, ck, &rr,
						    DAT_COMPLETION_SUPPRESS_FLAG),
		       dat_error(DAT_PROTECTION_VIOLATION,
				 DAT_PROTECTION_WRITE)) &&
	       kct_quiet(t, t->cli.req_evd, "client request") &&
	       KCT_CHECK(!memchr_inv(t->cli.big.va, 0xee, SZ_4K),
			 "RDMA read to an unbound RMR wrote its sink") &&
	       KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED) &&
	       KCT_STATE(&t->srv, DAT_EP_STATE_CONNECTED);
}

static void kct_errors(struct kct *t)
{
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_EVENT est;
	unsigned int i;

	if (!kct_open(t, port + 13, true) || !kct_err_unreachable(t))
		goto out;
	kct_pass(t, "unreachable");

	/* Receive slot 0 of the server is short. */
	if (!KCT_OK(kct_post_recv_len_ret(&t->srv, 0, KCT_ERR_RECV_LEN)))
		goto out;
	for (i = 1; i < KCT_ERR_RECVS; i++)
		if (!kct_post_recv(t, &t->srv, i))
			goto out;
	if (!kct_post_recvs(t, &t->cli, KCT_ERR_RECVS) ||
	    !kct_connect(t, NULL, 0, NULL, 0, &est) ||
	    !kct_err_short_recv(t))
		goto out;
	kct_pass(t, "short-recv");

	if (!KCT_OK(dat_rmr_create(t->pz, &rmr)) ||
	    !kct_err_local_prot(t, rmr))
		goto out;
	kct_pass(t, "local-protection");

	if (!kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_GRACEFUL_FLAG) ||
	    !kct_flush_recvs(t, &t->cli) || !kct_flush_recvs(t, &t->srv) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_DISCONNECTED))
		goto out;
out:
	if (rmr)
		KCT_OK(dat_rmr_free(rmr));
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 12. server_first
 */

/*
 * The ended connection of an EP with an SRQ reports, once, that the EP
 * takes no more of the SRQ's receives (IB's Last WQE Reached); an EP
 * without one reports nothing.
 */
static bool kct_last_wqe(struct kct *t, DAT_EP_HANDLE ep)
{
	DAT_ASYNCH_ERROR_EVENT_DATA *a;
	DAT_EVENT ev;

	if (!kct_wait(t, t->async_evd, &ev, KCT_WAIT_MS, "Last WQE Reached",
		      false))
		return false;
	a = &ev.event_data.asynch_error_event_data;
	return KCT_CHECK(ev.event_number == DAT_ASYNC_ERROR_EP_BROKEN &&
			 a->dat_handle == ep &&
			 a->reason == DAT_EP_TRANSFER_TO_ERROR,
			 "async event 0x%x reason %d", ev.event_number,
			 a->reason) &&
	       kct_quiet(t, t->async_evd, "async");
}

/*
 * The same with an SRQ on the server: the initiator's first message on
 * iWARP takes one of the SRQ's receives, which kdapl posts again, so the
 * consumer sees the client's real message in it and nothing else.
 */
static bool kct_server_first_srq(struct kct *t, u8 *expect)
{
	DAT_SRQ_ATTR sa = { .max_recv_dtos = 4, .max_recv_iov = 1 };
	DAT_LMR_TRIPLET iov = {
		.virtual_address = (uintptr_t)t->srv.msg.va + KCT_SLOT,
		.segment_length = KCT_SLOT,
		.lmr_context = t->srv.msg.lctx,
	};
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_RECV, 1) };
	DAT_SRQ_HANDLE srq;
	DAT_EVENT est;
	bool ok;

	if (!KCT_OK(dat_ep_free(t->srv.ep)))
		return false;
	t->srv.ep = DAT_HANDLE_NULL;
	if (!KCT_OK(dat_srq_create(t->ia, t->pz, &sa, &srq)))
		return false;
	ok = KCT_OK(dat_ep_create_with_srq(t->ia, t->pz, t->srv.recv_evd,
					   t->srv.req_evd, t->srv.conn_evd,
					   srq, &t->ep_attr, &t->srv.ep)) &&
	     KCT_OK(dat_srq_post_recv(srq, 1, &iov, ck)) &&
	     kct_post_recv(t, &t->cli, 0) &&
	     kct_connect(t, NULL, 0, NULL, 0, &est) &&
	     kct_recv(t, &t->cli, 64, 7, expect) &&
	     kct_dto_done(t, &t->srv, t->srv.req_evd, DAT_DTO_SEND,
			  KCT_COOKIE(KCT_CK_SEND, 7), 64, "server send") &&
	     kct_send(t, &t->cli, 0, 100, 9, 9) &&
	     kct_dto_done(t, &t->srv, t->srv.recv_evd, DAT_DTO_RECEIVE,
			  ck.as_64, 100, "server SRQ receive") &&
	     kct_dto_done(t, &t->cli, t->cli.req_evd, DAT_DTO_SEND,
			  KCT_COOKIE(KCT_CK_SEND, 9), 100, "client send") &&
	     kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_GRACEFUL_FLAG) &&
	     kct_flush_recvs(t, &t->cli) &&
	     kct_quiet(t, t->srv.recv_evd, "server receive") &&
	     kct_last_wqe(t, t->srv.ep);
	if (t->srv.ep)
		KCT_OK(dat_ep_free(t->srv.ep));
	t->srv.ep = DAT_HANDLE_NULL;
	KCT_OK(dat_srq_free(srq));
	return ok && !t->failed;
}

/*
 * The server sends the moment it is connected, before the client may
 * have heard of the connection.  On iWARP (RFC 5044) a responder must
 * not send before the initiator's first message, and siw breaks the
 * connection when the two arrive together: kdapl must make it safe.
 */
static void kct_server_first(struct kct *t)
{
	unsigned int i, n = min(cycles, 40U);
	DAT_EVENT est;
	u8 *expect;

	expect = kmalloc(KCT_SLOT, GFP_KERNEL);
	if (!KCT_CHECK(expect, "no memory") || !kct_open(t, port + 11, false))
		goto out;
	t->srv_first = 64;
	for (i = 0; i < n; i++) {
		if (!kct_post_recv(t, &t->cli, 0) ||
		    !kct_connect(t, NULL, 0, NULL, 0, &est) ||
		    !kct_recv(t, &t->cli, 64, 7, expect) ||
		    !kct_dto_done(t, &t->srv, t->srv.req_evd, DAT_DTO_SEND,
				  KCT_COOKIE(KCT_CK_SEND, 7), 64,
				  "server send") ||
		    !kct_disconnect(t, &t->cli, &t->srv,
				    DAT_CLOSE_GRACEFUL_FLAG) ||
		    !kct_flush_recvs(t, &t->cli) ||
		    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
		    !KCT_STATE_IDLE(&t->srv, DAT_EP_STATE_DISCONNECTED) ||
		    !KCT_OK(dat_ep_reset(t->cli.ep)) ||
		    !KCT_OK(dat_ep_reset(t->srv.ep)))
			break;
	}
	if (t->failed) {
		pr_err(KCT "server_first: failed in connection %u\n", i);
		goto out;
	}
	pr_info(KCT "server_first: %u connections\n", n);
	if (kct_server_first_srq(t, expect))
		kct_pass(t, "srq");
out:
	kct_close(t);
	kfree(expect);
}

/* ---------------------------------------------------------------------
 * 13. break_connecting: an EP broken while its connect fails
 */

/*
 * Freeing an LMR that a posted receive names breaks the EP (see
 * dat_lmr_free()).  Done while the EP's connect to a qualifier nobody
 * listens on fails, the teardown of the break meets rdma_cm's handler
 * in rdma_connect_locked(), which on iWARP frees the iw_cm identifier
 * when the connection cannot start.  The delay between the connect and
 * the free sweeps that window, round by round.
 */
#define KCT_BREAK_ROUNDS	96
#define KCT_BREAK_STEP_US	20

static bool kct_break_ended(DAT_EVENT_NUMBER n)
{
	return n == DAT_CONNECTION_EVENT_NON_PEER_REJECTED ||
	       n == DAT_CONNECTION_EVENT_BROKEN ||
	       n == DAT_CONNECTION_EVENT_DISCONNECTED ||
	       n == DAT_CONNECTION_EVENT_UNREACHABLE;
}

static bool kct_break_round(struct kct *t, unsigned int delay_us)
{
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_RECV, 0) };
	struct kct_buf b = { };
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;

	if (!kct_buf_init(t, &b, KCT_SLOT, DAT_MEM_PRIV_LOCAL_READ_FLAG |
					   DAT_MEM_PRIV_LOCAL_WRITE_FLAG))
		goto out;
	iov.virtual_address = (uintptr_t)b.va;
	iov.segment_length = KCT_SLOT;
	iov.lmr_context = b.lctx;
	if (!KCT_OK(dat_ep_post_recv(t->cli.ep, 1, &iov, ck,
				     DAT_COMPLETION_DEFAULT_FLAG)) ||
	    !KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				   port + 98, KCT_CONNECT_TIMEOUT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)))
		goto out;
	if (delay_us)
		usleep_range(delay_us, delay_us + 10);
	if (!KCT_OK(dat_lmr_free(b.lmr)))
		goto out;
	b.lmr = DAT_HANDLE_NULL;
	/* One connection event ends the attempt, whichever cause won. */
	if (!kct_wait(t, t->cli.conn_evd, &ev, KCT_WAIT_MS,
		      "the end of the attempt", false) ||
	    !KCT_CHECK(kct_break_ended(ev.event_number),
		       "attempt ended with 0x%x (%s)", ev.event_number,
		       kct_conn_event_name(ev.event_number)))
		goto out;
	/* The receive never ran: it completes in error, once. */
	if (!kct_wait(t, t->cli.recv_evd, &ev, KCT_WAIT_MS,
		      "the receive's completion", false) ||
	    !KCT_CHECK(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		       ev.event_data.dto_completion_event_data.status !=
		       DAT_DTO_SUCCESS,
		       "receive event 0x%x status %d", ev.event_number,
		       ev.event_data.dto_completion_event_data.status))
		goto out;
	if (KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED))
		KCT_OK(dat_ep_reset(t->cli.ep));
out:
	kct_buf_fini(t, &b);
	return !t->failed;
}

static void kct_break_connecting(struct kct *t)
{
	unsigned int i;

	if (!kct_open(t, port + 15, false))
		goto out;
	for (i = 0; i < KCT_BREAK_ROUNDS; i++)
		if (!kct_break_round(t, i * KCT_BREAK_STEP_US))
			break;
	if (t->failed) {
		pr_err(KCT "break_connecting: failed in round %u\n", i);
		goto out;
	}
	if (!kct_quiet(t, t->cli.conn_evd, "client connection") ||
	    !kct_quiet(t, t->cli.recv_evd, "client receive"))
		goto out;
	pr_info(KCT "break_connecting: %u rounds, 0 to %u us\n", i,
		(i - 1) * KCT_BREAK_STEP_US);
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 14. psp_race: a PSP freed while a connection request to it is in flight
 */

/*
 * The server frees its PSP while the client's request to it is on its
 * way: before it arrives, while the connection manager queues it, or
 * after its CR was posted.  Four rounds measure how long a request
 * takes to become a CR (the shortest counts); the delay between the
 * connect and the free then sweeps twice that, round by round.  Every
 * attempt ends with one event on the client; a request that made it to
 * the CR EVD is rejected; how many got that far is printed (on rxe a
 * request is usually faster than the free).  Run under kmemleak, this is also what
 * shows whether the passive side of the transport lets go of every
 * refused request.
 */
#define KCT_PSP_RACE_ROUNDS	64

static bool kct_psp_race_ended(DAT_EVENT_NUMBER n)
{
	return n == DAT_CONNECTION_EVENT_NON_PEER_REJECTED ||
	       n == DAT_CONNECTION_EVENT_PEER_REJECTED ||
	       n == DAT_CONNECTION_EVENT_UNREACHABLE;
}

/* Reject the CRs of the freed PSP, then the attempt must have ended. */
static bool kct_psp_race_end(struct kct *t, unsigned int *crs)
{
	DAT_EVENT ev;

	while (dat_evd_dequeue(t->cr_evd, &ev) == DAT_SUCCESS) {
		(*crs)++;
		if (!KCT_CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT,
			       "CR EVD got event 0x%x", ev.event_number) ||
		    !KCT_OK(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle,
					  0, NULL)))
			return false;
	}
	if (!kct_wait(t, t->cli.conn_evd, &ev, KCT_WAIT_MS,
		      "the end of the attempt", false) ||
	    !KCT_CHECK(kct_psp_race_ended(ev.event_number),
		       "attempt ended with 0x%x (%s)", ev.event_number,
		       kct_conn_event_name(ev.event_number)) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED))
		return false;
	return KCT_OK(dat_ep_reset(t->cli.ep));
}

/*
 * One attempt; the PSP is freed @delay_us after the connect, or, with
 * @cal, once the request is a CR (*@cal is how long that took).
 */
static bool kct_psp_race_round(struct kct *t, DAT_CONN_QUAL qual,
			       unsigned int delay_us, unsigned int *crs,
			       s64 *cal)
{
	ktime_t start = ktime_get();
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;

	if (!KCT_OK(dat_psp_create(t->ia, qual, t->cr_evd,
				   DAT_PSP_CONSUMER_FLAG, &psp)))
		return false;
	if (!KCT_OK(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				   qual, KCT_CONNECT_TIMEOUT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG))) {
		dat_psp_free(psp);
		return false;
	}
	if (cal) {
		if (!kct_wait(t, t->cr_evd, &ev, KCT_WAIT_MS,
			      "connection request", false)) {
			dat_psp_free(psp);
			return false;
		}
		*cal = ktime_us_delta(ktime_get(), start);
		(*crs)++;
		KCT_OK(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle,
				     0, NULL));
	} else if (delay_us) {
		usleep_range(delay_us, delay_us + 4);
	}
	/* The free waits for the PSP's handler: every CR is posted. */
	return KCT_OK(dat_psp_free(psp)) && kct_psp_race_end(t, crs);
}

static void kct_psp_race(struct kct *t)
{
	unsigned int i, step, crs = 0;
	s64 cal = 0;

	if (!kct_open(t, port + 16, false))
		goto out;
	for (i = 0; i < 4; i++) {
		s64 us;

		if (!kct_psp_race_round(t, port + 17, 0, &crs, &us))
			goto out;
		cal = i ? min(cal, us) : us;
	}
	step = max_t(s64, cal / 32, 1);
	for (i = 0; i < KCT_PSP_RACE_ROUNDS; i++)
		if (!kct_psp_race_round(t, port + 17, i * step, &crs,
					NULL))
			break;
	if (t->failed) {
		pr_err(KCT "psp_race: failed in round %u\n", i);
		goto out;
	}
	if (!kct_quiet(t, t->cli.conn_evd, "client connection") ||
	    !kct_quiet(t, t->cr_evd, "connection request"))
		goto out;
	pr_info(KCT "psp_race: %u rounds of 0 to %u us (a request takes %lld us), %u requests reached the CR EVD\n",
		i, (KCT_PSP_RACE_ROUNDS - 1) * step, cal, crs);
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * 15. no_port: no local port left (iwarp_ports.sh sets the scene)
 */

/*
 * Every port of the host's ephemeral range is held by other sockets, so
 * soft iWARP's connection cannot have a local port: dat_ep_connect()
 * says so with DAT_INSUFFICIENT_RESOURCES, not as an unreachable
 * address, and the EP stays UNCONNECTED.  Not part of "all": it needs
 * the ports held.
 */
static void kct_no_port(struct kct *t)
{
	if (!kct_open(t, port + 18, false))
		goto out;
	if (!KCT_RET(dat_ep_connect(t->cli.ep, (struct sockaddr *)&t->sin,
				    t->qual, KCT_CONNECT_TIMEOUT_US, 0, NULL,
				    DAT_QOS_BEST_EFFORT,
				    DAT_CONNECT_DEFAULT_FLAG),
		     dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP)) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_UNCONNECTED) ||
	    !kct_quiet(t, t->cli.conn_evd, "client connection") ||
	    !kct_quiet(t, t->cr_evd, "connection request"))
		goto out;
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * ibext
 */

#define KCT_IMMED		0x5eedf00d
#define KCT_IMMED_LEN		SZ_64K

/* The next event on @evd is the DAT_IB_DTO_EVENT of @op and @type. */
static bool kct_ib_done(struct kct *t, DAT_EVD_HANDLE evd, DAT_IB_DTOS op,
			DAT_IB_EXT_TYPE type, u64 ck, u32 len, u32 immed)
{
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (!kct_wait(t, evd, &ev, KCT_WAIT_MS, "extended completion", false))
		return false;
	d = &ev.event_data.dto_completion_event_data;
	x = (const DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	return KCT_CHECK((u32)ev.event_number == (u32)DAT_IB_DTO_EVENT &&
			 d->status == DAT_DTO_SUCCESS &&
			 (u32)d->operation == (u32)op &&
			 d->user_cookie.as_64 == ck &&
			 d->transfered_length == len &&
			 (u32)x->type == (u32)type &&
			 x->status == DAT_OP_SUCCESS &&
			 x->val.immed.data == immed,
			 "event 0x%x status %d op %d cookie 0x%llx len %u type %d immed 0x%x",
			 ev.event_number, d->status, d->operation,
			 d->user_cookie.as_64, d->transfered_length, x->type,
			 x->val.immed.data);
}

/* One client atomic on the 8 bytes at @raddr; the original is checked. */
static bool kct_atomic(struct kct *t, bool fetch_add, u64 cmp_add, u64 swap,
		       u64 raddr, DAT_RMR_CONTEXT rctx, u64 original)
{
	DAT_LMR_TRIPLET l = {
		.virtual_address = (uintptr_t)t->cli.big.va,
		.segment_length = sizeof(u64),
		.lmr_context = t->cli.big.lctx,
	};
	DAT_RMR_TRIPLET r = {
		.virtual_address = raddr,
		.segment_length = sizeof(u64),
		.rmr_context = rctx,
	};
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_READ, 8) };
	u64 *result = t->cli.big.va;

	*result = ~0ULL;
	if (fetch_add ?
	    !KCT_OK(dat_ib_post_fetch_and_add(t->cli.ep, cmp_add, &l, ck, &r,
					      DAT_COMPLETION_DEFAULT_FLAG)) :
	    !KCT_OK(dat_ib_post_cmp_and_swap(t->cli.ep, cmp_add, swap, &l, ck,
					     &r, DAT_COMPLETION_DEFAULT_FLAG)))
		return false;
	return kct_ib_done(t, t->cli.req_evd,
			   fetch_add ? DAT_IB_DTO_FETCH_ADD :
				       DAT_IB_DTO_CMP_SWAP,
			   fetch_add ? DAT_IB_FETCH_AND_ADD :
				       DAT_IB_CMP_AND_SWAP,
			   ck.as_64, sizeof(u64), 0) &&
	       KCT_CHECK(READ_ONCE(*result) == original,
			 "atomic returned 0x%llx, expected 0x%llx",
			 READ_ONCE(*result), original);
}

/* The EPs' counters count what kct_ibext_ops() did, exactly. */
static bool kct_ibext_counters(struct kct *t)
{
	if (!kct_ep_counter(t, t->cli.ep, DCNT_EP_POST_WRITE_IMM, 1) ||
	    !kct_ep_counter(t, t->cli.ep, DCNT_EP_POST_WRITE_IMM_DATA,
			 KCT_IMMED_LEN) ||
	    !kct_ep_counter(t, t->cli.ep, DCNT_EP_POST_CMP_SWAP, 2) ||
	    !kct_ep_counter(t, t->cli.ep, DCNT_EP_POST_FETCH_ADD, 1) ||
	    !kct_ep_counter(t, t->srv.ep, DCNT_EP_RECV_RDMA_IMM, 1) ||
	    !kct_ep_counter(t, t->srv.ep, DCNT_EP_RECV_RDMA_IMM_DATA,
			 KCT_IMMED_LEN) ||
	    !kct_ep_counter(t, t->srv.ep, DCNT_EP_RECV, 0))
		return false;
	kct_pass(t, "counters");
	return true;
}

/*
 * 64 KiB written with immediate data into the server's region: the
 * server's receive completes with the immediate and the length, and the
 * data is there.  Then compare and swap (a match, a mismatch) and fetch
 * and add on a word of that region, which the EPs' counters count.
 * iWARP offers none of it.
 */
static bool kct_ibext_ops(struct kct *t, const struct kct_export *got)
{
	u64 raddr = be64_to_cpu(got->addr), *word = t->srv.big.va + SZ_512K;
	DAT_RMR_CONTEXT rctx = be32_to_cpu(got->rctx);
	DAT_LMR_TRIPLET l = {
		.virtual_address = (uintptr_t)t->cli.big.va,
		.segment_length = KCT_IMMED_LEN,
		.lmr_context = t->cli.big.lctx,
	};
	DAT_RMR_TRIPLET r = {
		.virtual_address = raddr,
		.segment_length = KCT_IMMED_LEN,
		.rmr_context = rctx,
	};
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_WRITE, 1) };
	DAT_RETURN ret;

	kct_fill(t->cli.big.va, KCT_IMMED_LEN, 77);
	if (!kct_post_recv(t, &t->srv, 0))
		return false;
	ret = dat_ib_post_rdma_write_immed(t->cli.ep, 1, &l, ck, &r,
					   KCT_IMMED,
					   DAT_COMPLETION_DEFAULT_FLAG);
	if (t->iwarp)
		return KCT_RET(ret, dat_error(DAT_NOT_IMPLEMENTED, 0)) &&
		       KCT_RET(dat_ib_post_fetch_and_add(t->cli.ep, 1, &l, ck,
							 &r, 0),
			       dat_error(DAT_NOT_IMPLEMENTED, 0)) &&
		       KCT_RET(dat_ib_query_counters(t->cli.ep,
						     DCNT_EP_POST_SEND,
						     &raddr, 0),
			       dat_error(DAT_NOT_IMPLEMENTED, 0));
	if (!KCT_OK(ret) ||
	    !kct_ib_done(t, t->cli.req_evd, DAT_IB_DTO_RDMA_WRITE_IMMED,
			 DAT_IB_RDMA_WRITE_IMMED, ck.as_64, KCT_IMMED_LEN, 0) ||
	    !kct_ib_done(t, t->srv.recv_evd, DAT_IB_DTO_RECV_IMMED,
			 DAT_IB_RDMA_WRITE_IMMED_DATA,
			 KCT_COOKIE(KCT_CK_RECV, 0), KCT_IMMED_LEN, KCT_IMMED) ||
	    !KCT_CHECK(!memcmp(t->srv.big.va, t->cli.big.va, KCT_IMMED_LEN),
		       "data written with immediate differs"))
		return false;
	clear_bit(0, t->srv.recv_posted);
	kct_pass(t, "write with immediate");
	raddr += SZ_512K;
	*word = 40;
	if (!kct_atomic(t, false, 40, 41, raddr, rctx, 40) ||
	    !kct_atomic(t, false, 40, 42, raddr, rctx, 41) ||
	    !kct_atomic(t, true, 1000, 0, raddr, rctx, 41) ||
	    !KCT_CHECK(READ_ONCE(*word) == 1041, "target 0x%llx, expected 1041",
		       READ_ONCE(*word)))
		return false;
	kct_pass(t, "atomics");
	return kct_ibext_counters(t);
}

static void kct_ibext(struct kct *t)
{
	struct kct_export ex, got;
	DAT_CONNECTION_EVENT_DATA *c;
	DAT_EVENT est;

	if (!kct_open(t, port + 19, true))
		goto out;
	ex.addr = cpu_to_be64((uintptr_t)t->srv.big.va);
	ex.rctx = cpu_to_be32(t->srv.big.rctx);
	ex.len = cpu_to_be32(KCT_BIG_LEN);
	if (!kct_connect(t, NULL, 0, &ex, sizeof(ex), &est))
		goto out;
	c = &est.event_data.connect_event_data;
	memcpy(&got, c->private_data, sizeof(got));
	if (!kct_ibext_ops(t, &got))
		goto out;
	kct_disconnect(t, &t->cli, &t->srv, DAT_CLOSE_GRACEFUL_FLAG);
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * Unreliable datagrams
 */

#define KCT_UD_GRH	40
#define KCT_UD_MSG	64

/* Replace both sides' EPs with datagram EPs. */
static bool kct_ud_eps(struct kct *t)
{
	KCT_OK(dat_ep_free(t->cli.ep));
	KCT_OK(dat_ep_free(t->srv.ep));
	t->cli.ep = DAT_HANDLE_NULL;
	t->srv.ep = DAT_HANDLE_NULL;
	t->ep_attr.service_type = DAT_IB_SERVICE_TYPE_UD;
	t->ep_attr.max_rdma_read_in = 0;
	t->ep_attr.max_rdma_read_out = 0;
	if (t->iwarp) {
		/* No datagrams on iWARP. */
		KCT_RET(dat_ep_create(t->ia, t->pz, t->cli.recv_evd,
				      t->cli.req_evd, t->cli.conn_evd,
				      &t->ep_attr, &t->cli.ep),
			dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
		t->cli.ep = DAT_HANDLE_NULL;
		return false;
	}
	return kct_ep_create(t, &t->cli) && kct_ep_create(t, &t->srv);
}

/* The extension data of a datagram connection event of @s. */
static const DAT_IB_EXTENSION_EVENT_DATA *
kct_ud_event(struct kct *t, struct kct_side *s, DAT_EVENT_NUMBER number,
	     DAT_IB_EXT_TYPE type, DAT_EVENT *ev)
{
	const DAT_IB_EXTENSION_EVENT_DATA *x =
		(const DAT_IB_EXTENSION_EVENT_DATA *)ev->event_extension_data;
	bool active = type == DAT_IB_UD_REMOTE_AH;

	if (!KCT_CONN_EVENT(s, number, ev))
		return NULL;
	if (!KCT_CHECK(x->type == type && x->context.as_ptr &&
		       active == !!x->remote_ah.ah,
		       "%s: type %d context %p ah %p", s->who, x->type,
		       x->context.as_ptr, x->remote_ah.ah))
		return NULL;
	return x;
}

/*
 * Resolve the server's EP from the client's, with private data both
 * ways; the client's address handle and both resolutions are returned,
 * and in @answer (if not NULL) the private data of the client's event.
 */
static bool kct_ud_resolve(struct kct *t, u32 cpd, u32 spd,
			   DAT_IB_ADDR_HANDLE *ah, DAT_CONTEXT *ccm,
			   DAT_CONTEXT *scm, const void **answer)
{
	DAT_IA_ADDRESS_PTR dst = (DAT_IA_ADDRESS_PTR)&t->sin;
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_CR_ARRIVAL_EVENT_DATA *cr;
	DAT_CR_PARAM crp;
	DAT_EVENT ev;

	if (!KCT_OK(dat_ep_connect(t->cli.ep, dst, t->qual,
				   KCT_CONNECT_TIMEOUT_US,
				   sizeof(cpd), &cpd, DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !KCT_STATE(&t->cli, DAT_EP_STATE_CONNECTED) ||
	    !kct_wait(t, t->cr_evd, &ev, KCT_WAIT_MS, "UD request", false))
		return false;
	cr = &ev.event_data.cr_arrival_event_data;
	if (!KCT_CHECK(ev.event_number ==
		       (DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_REQUEST_EVENT &&
		       cr->sp_handle.psp_handle == t->psp &&
		       cr->conn_qual == t->qual,
		       "request event 0x%x psp %p qual %llu", ev.event_number,
		       cr->sp_handle.psp_handle, cr->conn_qual) ||
	    !KCT_OK(dat_cr_query(cr->cr_handle, DAT_CR_FIELD_ALL, &crp)) ||
	    !kct_pdata(t, "UD request", crp.private_data,
		       min(crp.private_data_size, 4), &cpd, sizeof(cpd)) ||
	    !KCT_OK(dat_cr_accept(cr->cr_handle, t->srv.ep, sizeof(spd),
				  &spd)))
		return false;
	x = kct_ud_event(t, &t->srv, (DAT_EVENT_NUMBER)
			 DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
			 DAT_IB_UD_PASSIVE_REMOTE_AH, &ev);
	if (!x)
		return false;
	*scm = x->context;
	x = kct_ud_event(t, &t->cli, (DAT_EVENT_NUMBER)
			 DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
			 DAT_IB_UD_REMOTE_AH, &ev);
	if (!x || !KCT_CHECK(x->remote_ah.qpn, "no queue pair number") ||
	    !kct_pdata(t, "UD answer",
		       ev.event_data.connect_event_data.private_data,
		       min(ev.event_data.connect_event_data.private_data_size,
			   4), &spd, sizeof(spd)))
		return false;
	*ah = x->remote_ah;
	*ccm = x->context;
	if (answer)
		*answer = ev.event_data.connect_event_data.private_data;
	return KCT_STATE(&t->srv, DAT_EP_STATE_CONNECTED);
}

/* A datagram of @len bytes from the client's send slot 0 to @ah. */
static DAT_RETURN kct_ud_send(struct kct *t, DAT_IB_ADDR_HANDLE *ah, u32 len,
			      u64 n)
{
	DAT_LMR_TRIPLET iov = {
		.virtual_address = (uintptr_t)t->cli.msg.va +
				   KCT_RECV_SLOTS * KCT_SLOT,
		.segment_length = len,
		.lmr_context = t->cli.msg.lctx,
	};
	DAT_DTO_COOKIE ck = { .as_64 = KCT_COOKIE(KCT_CK_SEND, n) };

	kct_fill(t->cli.msg.va + KCT_RECV_SLOTS * KCT_SLOT, len, n);
	return dat_ib_post_send_ud(t->cli.ep, 1, &iov, ah, ck,
				   DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * The server's receive of datagram @n, in its receive slot @n - 1: the
 * header, then the message.
 */
static bool kct_ud_recv(struct kct *t, u64 n)
{
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	u8 want[KCT_UD_MSG];
	DAT_EVENT ev;

	if (!kct_wait(t, t->srv.recv_evd, &ev, KCT_WAIT_MS, "UD receive",
		      false))
		return false;
	d = &ev.event_data.dto_completion_event_data;
	x = (const DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	kct_fill(want, sizeof(want), n);
	return KCT_CHECK((u32)ev.event_number == (u32)DAT_IB_DTO_EVENT &&
			 d->status == DAT_DTO_SUCCESS &&
			 (u32)d->operation == (u32)DAT_IB_DTO_RECV_UD &&
			 d->transfered_length == KCT_UD_GRH + KCT_UD_MSG &&
			 x->type == DAT_IB_UD_RECV && x->remote_ah.qpn,
			 "event 0x%x status %d op %d len %u type %d qpn %u",
			 ev.event_number, d->status, d->operation,
			 d->transfered_length, x->type, x->remote_ah.qpn) &&
	       KCT_CHECK(!memcmp(t->srv.msg.va + (n - 1) * KCT_SLOT +
				 KCT_UD_GRH, want, sizeof(want)),
			 "datagram %llu differs", n);
}

/* Calls that must fail, each with its error. */
static bool kct_ud_refused(struct kct *t, DAT_IB_ADDR_HANDLE *ah)
{
	DAT_IB_ADDR_HANDLE bogus = *ah;
	DAT_LMR_TRIPLET iov = {
		.virtual_address = (uintptr_t)t->cli.msg.va,
		.segment_length = 8,
		.lmr_context = t->cli.msg.lctx,
	};
	DAT_DTO_COOKIE ck = { .as_64 = 0 };

	bogus.ah = (struct kdapl_ud_ah *)&bogus;
	return KCT_RET(dat_ep_post_send(t->cli.ep, 1, &iov, ck,
					DAT_COMPLETION_DEFAULT_FLAG),
		       dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1)) &&
	       KCT_RET(kct_ud_send(t, &bogus, 8, 0),
		       dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4)) &&
	       KCT_RET(kct_ud_send(t, NULL, 8, 0),
		       dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4)) &&
	       KCT_RET(kct_ud_send(t, ah, KCT_SLOT, 0),
		       dat_error(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE)) &&
	       KCT_RET(dat_ib_ud_ah_free(t->srv.ep, ah),
		       dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
}

/*
 * Resolutions that fail: the server's consumer rejects (with private
 * data), and nobody listens on the qualifier.  Each ends with its event
 * and leaves a resolution to free.
 */
static bool kct_ud_failures(struct kct *t)
{
	DAT_IA_ADDRESS_PTR dst = (DAT_IA_ADDRESS_PTR)&t->sin;
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_CR_HANDLE cr;
	u32 rpd = 0x7e7e;
	DAT_EVENT ev;

	if (!KCT_OK(dat_ep_connect(t->cli.ep, dst, t->qual,
				   KCT_CONNECT_TIMEOUT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)) ||
	    !kct_wait(t, t->cr_evd, &ev, KCT_WAIT_MS, "UD request", false))
		return false;
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	if (!KCT_OK(dat_cr_reject(cr, sizeof(rpd), &rpd)))
		return false;
	x = kct_ud_event(t, &t->cli, (DAT_EVENT_NUMBER)
			 DAT_IB_UD_CONNECTION_REJECT_EVENT,
			 DAT_IB_UD_CONNECT_REJECT, &ev);
	if (!x || !kct_pdata(t, "UD reject",
			     ev.event_data.connect_event_data.private_data,
			     min(ev.event_data.connect_event_data.private_data_size,
				 4), &rpd, sizeof(rpd)) ||
	    !KCT_OK(dat_ib_ud_cm_free(t->cli.ep, x->context)))
		return false;
	kct_pass(t, "ud reject");
	if (!KCT_OK(dat_ep_connect(t->cli.ep, dst, t->qual + 1,
				   KCT_CONNECT_TIMEOUT_US, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG)))
		return false;
	x = kct_ud_event(t, &t->cli, (DAT_EVENT_NUMBER)
			 DAT_IB_UD_CONNECTION_ERROR_EVENT,
			 DAT_IB_UD_CONNECT_ERROR, &ev);
	if (!x || !KCT_OK(dat_ib_ud_cm_free(t->cli.ep, x->context)))
		return false;
	kct_pass(t, "ud no listener");
	return true;
}

/*
 * Datagram EPs: a resolution with private data both ways, datagrams
 * with their header checked and counted, bad posts refused, the address
 * handle and resolutions freed once (a second free is refused), a
 * rejected resolution and one nobody answers, a disconnect that takes
 * the queue pair down and leaves a resolution and its private data to
 * the consumer until the reset, and after a reset a resolution left for
 * dat_ep_free() to release.  On iWARP, the EP's
 * DAT_MODEL_NOT_SUPPORTED.
 */
static void kct_ud(struct kct *t)
{
	DAT_CONTEXT ccm, scm, ccm2, scm2;
	DAT_IB_ADDR_HANDLE ah, ah2;
	const void *answer;
	u32 spd = 3;
	DAT_EVENT ev;
	u64 n;

	if (!kct_open(t, port + 20, false) || !kct_ud_eps(t))
		goto out;
	if (!kct_post_recvs(t, &t->srv, 4) ||
	    !kct_ud_resolve(t, 0x1234, 0x5678, &ah, &ccm, &scm, NULL) ||
	    !kct_ud_refused(t, &ah))
		goto out;
	for (n = 1; n <= 4; n++) {
		if (!KCT_OK(kct_ud_send(t, &ah, KCT_UD_MSG, n)) ||
		    !kct_ib_done(t, t->cli.req_evd, DAT_IB_DTO_SEND_UD,
				 DAT_IB_UD_SEND, KCT_COOKIE(KCT_CK_SEND, n),
				 KCT_UD_MSG, 0) ||
		    !kct_ud_recv(t, n))
			goto out;
	}
	if (!kct_counter(t, t->cli.ep, DCNT_EP_ALL_COUNTERS,
			 DCNT_EP_POST_SEND_UD, 4) ||
	    !kct_counter(t, t->cli.ep, DCNT_EP_ALL_COUNTERS,
			 DCNT_EP_POST_SEND_UD_DATA, 4 * KCT_UD_MSG) ||
	    !kct_counter(t, t->srv.ep, DCNT_EP_ALL_COUNTERS,
			 DCNT_EP_RECV_UD, 4) ||
	    !kct_counter(t, t->srv.ep, DCNT_EP_ALL_COUNTERS,
			 DCNT_EP_RECV_UD_DATA, 4 * (KCT_UD_GRH + KCT_UD_MSG)))
		goto out;
	kct_pass(t, "ud datagrams");
	if (!KCT_OK(dat_ib_ud_ah_free(t->cli.ep, &ah)) ||
	    !KCT_RET(dat_ib_ud_ah_free(t->cli.ep, &ah),
		     dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)) ||
	    !KCT_RET(kct_ud_send(t, &ah, 8, 0),
		     dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4)) ||
	    !KCT_OK(dat_ib_ud_cm_free(t->cli.ep, ccm)) ||
	    !KCT_RET(dat_ib_ud_cm_free(t->cli.ep, ccm),
		     dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)) ||
	    !KCT_OK(dat_ib_ud_cm_free(t->srv.ep, scm)))
		goto out;
	if (!kct_ud_failures(t))
		goto out;
	/*
	 * A second resolution, whose private data and resolution outlive
	 * the disconnect that takes the queue pair down (DAT keeps them
	 * until the reset); a reset EP brings it up again for a third, left
	 * to dat_ep_free().
	 */
	if (!kct_ud_resolve(t, 2, spd, &ah2, &ccm2, &scm2, &answer) ||
	    !KCT_OK(dat_ep_disconnect(t->cli.ep, DAT_CLOSE_GRACEFUL_FLAG)) ||
	    !KCT_CONN_EVENT(&t->cli, DAT_CONNECTION_EVENT_DISCONNECTED, &ev) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_DISCONNECTED) ||
	    !KCT_RET(kct_ud_send(t, &ah2, 8, 0),
		     dat_error(DAT_INVALID_STATE,
			       DAT_INVALID_STATE_EP_DISCONNECTED)) ||
	    !kct_pdata(t, "UD answer after the disconnect", answer,
		       sizeof(spd), &spd, sizeof(spd)) ||
	    !KCT_OK(dat_ib_ud_cm_free(t->cli.ep, ccm2)) ||
	    !KCT_OK(dat_ep_reset(t->cli.ep)) ||
	    !KCT_STATE_IDLE(&t->cli, DAT_EP_STATE_UNCONNECTED) ||
	    !kct_ud_resolve(t, 4, 5, &ah2, &ccm2, &scm2, NULL))
		goto out;
	kct_pass(t, "ud resolution");
out:
	kct_close(t);
}

/* ---------------------------------------------------------------------
 * Module
 */

struct kct_scenario {
	const char *name;
	void (*run)(struct kct *t);
};

static const struct kct_scenario kct_scenarios[] = {
	{ "pingpong", kct_pingpong },
	{ "rdma", kct_rdma },
	{ "cycles", kct_cycles },
	{ "reject", kct_reject },
	{ "rsp", kct_rsp },
	{ "timeout", kct_timeout },
	{ "flush", kct_flush },
	{ "rmr", kct_rmr },
	{ "handoff", kct_handoff },
	{ "flags", kct_flags },
	{ "errors", kct_errors },
	{ "server_first", kct_server_first },
	{ "break_connecting", kct_break_connecting },
	{ "psp_race", kct_psp_race },
	{ "no_port", kct_no_port },
	{ "ibext", kct_ibext },
	{ "ud", kct_ud },
};

static bool kct_selected(const char *name)
{
	size_t len = strlen(name);
	const char *p = test;

	/* "all" is every scenario but those that need their VM case. */
	if (!strcmp(test, "all"))
		return strcmp(name, "removal") && strcmp(name, "no_port");
	while (p && *p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

static int __init kct_init(void)
{
	unsigned int i;
	struct kct *t;

	pr_info(KCT "on %s (%s), tests %s\n", ia_name, addr, test);
	if (kct_selected("removal")) {
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (!t)
			return -ENOMEM;
		t->name = "removal";
		if (kct_removal_start(t)) {
			kfree(t);
			return -EIO;
		}
		removal_t = t;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(kct_scenarios); i++) {
		ktime_t start = ktime_get();

		if (!kct_selected(kct_scenarios[i].name))
			continue;
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (!t)
			return -ENOMEM;
		t->name = kct_scenarios[i].name;
		kct_scenarios[i].run(t);
		if (!t->failed)
			kct_pass(t, NULL);
		pr_info(KCT "%s took %lld ms\n", t->name,
			ktime_ms_delta(ktime_get(), start));
		kfree(t);
	}
	pr_info(KCT "done\n");
	return 0;
}

static void __exit kct_exit(void)
{
	if (removal_t) {
		kct_removal_check(removal_t);
		if (!removal_t->failed)
			kct_pass(removal_t, NULL);
		kfree(removal_t);
	}
}

module_init(kct_init);
module_exit(kct_exit);

MODULE_DESCRIPTION("kdapl connection and data transfer tests");
MODULE_LICENSE("GPL");
