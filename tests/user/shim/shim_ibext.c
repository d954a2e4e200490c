// SPDX-License-Identifier: GPL-2.0
/*
 * shim_ibext: the IB extensions of udapl-shim (<dat2/dat_ib_extensions.h>,
 * version 209) through Debian's libdat2 and its dat_ib_post_*() macros.
 *
 * On an IA whose provider attributes list an operation (rxe), the
 * operation moves data and its DAT_IB_DTO_EVENTs carry the extension
 * data; on one that does not (siw), the operation answers
 * DAT_NOT_IMPLEMENTED; dat_ib_open_query() lists the attributes.
 * Datagram EPs have their own program, shim_ud.  Every DAT_RETURN, event number, operation,
 * extension type, status, immediate, cookie and length is checked, and
 * the bytes moved.
 *
 *   DAT_OVERRIDE=dat.conf shim_ibext IA_NAME
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#include "tap.h"
#include "side.h"

#define BUF		65536
#define RECV_OFF	32768	/* the server's receive buffers */
#define NOT_IMPL	ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE)

/* What the IA's provider attributes offer. */
struct caps {
	int immed;
	int atomics;
	int counters;
};

/* The value of a provider attribute, or NULL. */
static const char *prov_attr(const DAT_PROVIDER_ATTR *p, const char *name)
{
	int i;

	for (i = 0; i < p->num_provider_specific_attr; i++)
		if (!strcmp(p->provider_specific_attr[i].name, name))
			return p->provider_specific_attr[i].value;
	return NULL;
}

/* An attribute that must be absent or TRUE: 1 if TRUE, 0 if absent. */
static int prov_flag(const DAT_PROVIDER_ATTR *p, const char *name)
{
	const char *v = prov_attr(p, name);

	if (!v)
		return 0;
	return strcmp(v, "TRUE") ? -1 : 1;
}

static int get_caps(DAT_IA_HANDLE ia, struct caps *c)
{
	DAT_PROVIDER_ATTR p;
	int faa, cas;

	if (dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &p) !=
	    DAT_SUCCESS)
		return FAIL("dat_ia_query");
	c->immed = prov_flag(&p, DAT_IB_ATTR_IMMED_DATA);
	faa = prov_flag(&p, DAT_IB_ATTR_FETCH_AND_ADD);
	cas = prov_flag(&p, DAT_IB_ATTR_CMP_AND_SWAP);
	if (c->immed < 0 || faa < 0 || cas < 0 || faa != cas)
		return FAIL("attributes: immed %d fetch_add %d cmp_swap %d",
			    c->immed, faa, cas);
	c->atomics = cas;
	c->counters = prov_flag(&p, DAT_IB_ATTR_COUNTERS);
	if (c->counters < 0 || (c->counters && !c->immed && !c->atomics))
		return FAIL("attribute DAT_COUNTERS %d", c->counters);
	return 0;
}

static int make_lmr_priv(struct side *sd, void *buf, DAT_VLEN len,
			 DAT_MEM_PRIV_FLAGS priv, DAT_LMR_HANDLE *lmr,
			 DAT_LMR_CONTEXT *lctx, DAT_RMR_CONTEXT *rctx)
{
	DAT_REGION_DESCRIPTION region = { .for_va = buf };
	DAT_RETURN ret;
	DAT_VADDR va;
	DAT_VLEN rlen;

	ret = dat_lmr_create(sd->ia, DAT_MEM_TYPE_VIRTUAL, region, len,
			     sd->pz, priv, DAT_VA_TYPE_VA, lmr, lctx, rctx,
			     &rlen, &va);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_lmr_create priv %#x: %#x", priv, ret);
	return 0;
}

/* What a DAT_IB_DTO_EVENT must say. */
struct expect {
	DAT_EP_HANDLE ep;
	DAT_UINT64 cookie;
	int op;			/* DAT_IB_DTOS */
	DAT_IB_EXT_TYPE type;
	DAT_VLEN len;
	DAT_UINT32 imm;		/* for the receive types */
};

static int check_event(const DAT_EVENT *ev, const struct expect *x)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	const DAT_IB_EXTENSION_EVENT_DATA *e =
		(const DAT_IB_EXTENSION_EVENT_DATA *)ev->event_extension_data;

	if (ev->event_number != (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT)
		return FAIL("event %#x, expected DAT_IB_DTO_EVENT",
			    ev->event_number);
	if (d->ep_handle != x->ep || d->user_cookie.as_64 != x->cookie ||
	    d->status != DAT_DTO_SUCCESS || (int)d->operation != x->op ||
	    d->transfered_length != x->len)
		return FAIL("got %p %#llx status %d op %d len %llu, want %p %#llx 0 %d %llu",
			    d->ep_handle,
			    (unsigned long long)d->user_cookie.as_64,
			    d->status, d->operation,
			    (unsigned long long)d->transfered_length, x->ep,
			    (unsigned long long)x->cookie, x->op,
			    (unsigned long long)x->len);
	if (e->type != x->type || e->status != DAT_OP_SUCCESS)
		return FAIL("extension type %d status %d, expected %d 0",
			    e->type, e->status, x->type);
	if ((x->type == DAT_IB_RDMA_WRITE_IMMED_DATA ||
	     x->type == DAT_IB_RECV_IMMED_DATA) && e->val.immed.data != x->imm)
		return FAIL("immediate %#x, expected %#x", e->val.immed.data,
			    x->imm);
	return 0;
}

/* The next event of @evd, waited for, must be @x. */
static int ib_done(DAT_EVD_HANDLE evd, const struct expect *x)
{
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN ret;

	ret = dat_evd_wait(evd, 5000000, 1, &ev, &nmore);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_wait: %#x", ret);
	return check_event(&ev, x);
}

/*
 * The next two events of @evd must be @x[0] and @x[1]: waited for with a
 * threshold of 2, then dequeued, and nothing after them.
 */
static int ib_done2(DAT_EVD_HANDLE evd, const struct expect *x)
{
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;
	DAT_RETURN ret;

	ret = dat_evd_wait(evd, 5000000, 2, &ev, &nmore);
	if (ret != DAT_SUCCESS || nmore != 1)
		return FAIL("dat_evd_wait threshold 2: %#x nmore %d", ret,
			    nmore);
	if (check_event(&ev, &x[0]))
		return -1;
	ret = dat_evd_dequeue(evd, &ev);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_dequeue: %#x", ret);
	if (check_event(&ev, &x[1]))
		return -1;
	ret = dat_evd_dequeue(evd, &ev);
	if (ret != DAT_QUEUE_EMPTY)
		return FAIL("event %#x left: %#x", ev.event_number, ret);
	return 0;
}

/* dat_ia_query(): the IB extension interface, and attributes that agree. */
static int test_query(void)
{
	DAT_PROVIDER_ATTR p;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR attr;
	DAT_IA_HANDLE ia;
	const char *v;
	struct caps c;
	int want = -1;

	if (open_ia(&ia, &async))
		return -1;
	if (dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &attr,
			 DAT_PROVIDER_FIELD_ALL, &p) != DAT_SUCCESS)
		return FAIL("dat_ia_query");
	if (get_caps(ia, &c))
		return -1;
	/* The extension is claimed where some operation is offered. */
	if (c.immed || c.atomics) {
		v = prov_attr(&p, "DAT_EXTENSION_INTERFACE");
		if (attr.extension_supported != DAT_EXTENSION_IB ||
		    attr.extension_version != 209 || !v || strcmp(v, "TRUE"))
			return FAIL("extension %d version %d interface %s",
				    attr.extension_supported,
				    attr.extension_version, v ? v : "(none)");
	} else if (attr.extension_supported != DAT_EXTENSION_NONE ||
		   prov_attr(&p, "DAT_EXTENSION_INTERFACE")) {
		return FAIL("extension %d claimed without operations",
			    attr.extension_supported);
	}
	/* rxe carries every operation, siw (iWARP) none. */
	if (!strncmp(ia_name, "rxe", 3))
		want = 1;
	else if (!strncmp(ia_name, "siw", 3))
		want = 0;
	if (want >= 0 && (c.immed != want || c.atomics != want))
		return FAIL("%s: immediate data %d, atomics %d", ia_name,
			    c.immed, c.atomics);
	printf("# %s: immediate data %d, atomics %d\n", ia_name, c.immed,
	       c.atomics);
	return dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/*
 * DAT_IB_MEM_PRIV_REMOTE_ATOMIC is a privilege an LMR takes on every IA
 * (dtestx asks for it on all its LMRs); it gives the LMR a remote
 * context.  A privilege beyond it is still refused.
 */
static int test_lmr_priv(void)
{
	DAT_MEM_PRIV_FLAGS priv = DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				  DAT_IB_MEM_PRIV_REMOTE_ATOMIC;
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx = 0;
	DAT_LMR_PARAM param;
	DAT_LMR_HANDLE lmr;
	struct side s;
	DAT_RETURN ret;
	char *buf;

	buf = aligned_alloc(4096, 4096);
	if (!buf || side_open(&s) ||
	    make_lmr_priv(&s, buf, 4096, priv, &lmr, &lctx, &rctx))
		return -1;
	if (!rctx)
		return FAIL("no rmr_context with remote atomic access");
	ret = dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS || param.mem_priv != priv ||
	    param.rmr_context != rctx)
		return FAIL("dat_lmr_query: %#x priv %#x", ret,
			    param.mem_priv);
	if (dat_lmr_free(lmr) != DAT_SUCCESS)
		return FAIL("dat_lmr_free");
	region.for_va = buf;
	ret = dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, region, 4096, s.pz,
			     DAT_MEM_PRIV_ALL_FLAG | 0x80, DAT_VA_TYPE_VA,
			     &lmr, &lctx, &rctx, NULL, NULL);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6))
		return FAIL("privilege 0x80: %#x", ret);
	free(buf);
	return dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/* A connected pair, each side with a 64 KiB buffer and its LMR. */
struct env {
	struct side s, c;
	DAT_PSP_HANDLE psp;
	unsigned char *sbuf, *cbuf;
	DAT_LMR_HANDLE slmr, clmr;
	DAT_LMR_CONTEXT sl, cl;
	DAT_RMR_CONTEXT sr, cr;
	struct caps caps;
};

static int env_open(struct env *e, DAT_CONN_QUAL qual,
		    DAT_MEM_PRIV_FLAGS spriv)
{
	int i;

	e->sbuf = aligned_alloc(4096, BUF);
	e->cbuf = aligned_alloc(4096, BUF);
	if (!e->sbuf || !e->cbuf)
		return FAIL("buffers");
	memset(e->sbuf, 0xee, BUF);
	for (i = 0; i < BUF; i++)
		e->cbuf[i] = (unsigned char)(i * 7 + 3);
	if (pair_connect(&e->s, &e->c, qual, &e->psp) ||
	    make_lmr_priv(&e->s, e->sbuf, BUF, spriv, &e->slmr, &e->sl,
			  &e->sr) ||
	    make_lmr(&e->c, e->cbuf, BUF, &e->clmr, &e->cl, &e->cr) ||
	    get_caps(e->s.ia, &e->caps))
		return -1;
	return 0;
}

static int env_close(struct env *e)
{
	int ret = pair_close(&e->s, &e->c);

	free(e->sbuf);
	free(e->cbuf);
	return ret;
}

/* The server posts a receive of 256 bytes at RECV_OFF + @i * 256. */
static int server_recv(struct env *e, int i, DAT_UINT64 cookie)
{
	DAT_LMR_TRIPLET iov = {
		.lmr_context = e->sl,
		.virtual_address = (uintptr_t)e->sbuf + RECV_OFF + i * 256,
		.segment_length = 256,
	};
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	if (dat_ep_post_recv(e->s.ep, 1, &iov, ck,
			     DAT_COMPLETION_DEFAULT_FLAG) != DAT_SUCCESS)
		return FAIL("dat_ep_post_recv");
	return 0;
}

/* The client writes @len bytes at @off into the server's buffer. */
static DAT_RETURN write_immed(struct env *e, size_t off, DAT_VLEN len,
			      DAT_UINT32 imm, DAT_UINT64 cookie)
{
	DAT_LMR_TRIPLET iov = { .lmr_context = e->cl,
				.virtual_address = (uintptr_t)e->cbuf + off,
				.segment_length = len };
	DAT_RMR_TRIPLET r = { .rmr_context = e->sr,
			      .virtual_address = (uintptr_t)e->sbuf + off,
			      .segment_length = len };
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	return dat_ib_post_rdma_write_immed(e->c.ep, 1, &iov, ck, &r, imm,
					    DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * Two RDMA Writes with immediate data: each completes on the writer as
 * DAT_IB_RDMA_WRITE_IMMED and consumes one of the server's receives,
 * which completes with the immediate and the written length; the data
 * lands where it was written and nowhere else.
 */
static int test_write_immed(void)
{
	const struct expect c[2] = {
		{ NULL, 0x90, DAT_IB_DTO_RDMA_WRITE_IMMED,
		  DAT_IB_RDMA_WRITE_IMMED, 1000, 0 },
		{ NULL, 0x91, DAT_IB_DTO_RDMA_WRITE_IMMED,
		  DAT_IB_RDMA_WRITE_IMMED, 4096, 0 },
	}, s[2] = {
		{ NULL, 0x70, DAT_IB_DTO_RECV_IMMED,
		  DAT_IB_RDMA_WRITE_IMMED_DATA, 1000, 0x12345678 },
		{ NULL, 0x71, DAT_IB_DTO_RECV_IMMED,
		  DAT_IB_RDMA_WRITE_IMMED_DATA, 4096, 0x9abcdef0 },
	};
	struct expect cx[2], sx[2];
	struct env e;
	int i;

	if (env_open(&e, 6101, DAT_MEM_PRIV_ALL_FLAG))
		return -1;
	if (!e.caps.immed) {
		if (write_immed(&e, 0, 1000, 0x12345678, 0x90) != NOT_IMPL)
			return FAIL("write with immediate without the attribute");
		return env_close(&e);
	}
	for (i = 0; i < 2; i++) {
		cx[i] = c[i];
		cx[i].ep = e.c.ep;
		sx[i] = s[i];
		sx[i].ep = e.s.ep;
	}
	if (server_recv(&e, 0, 0x70) || server_recv(&e, 1, 0x71))
		return -1;
	if (write_immed(&e, 0, 1000, 0x12345678, 0x90) != DAT_SUCCESS ||
	    write_immed(&e, 8192, 4096, 0x9abcdef0, 0x91) != DAT_SUCCESS)
		return FAIL("dat_ib_post_rdma_write_immed");
	if (ib_done2(e.c.dto, cx) || ib_done2(e.s.dto, sx))
		return -1;
	if (memcmp(e.sbuf, e.cbuf, 1000) ||
	    memcmp(e.sbuf + 8192, e.cbuf + 8192, 4096))
		return FAIL("the data written differs");
	for (i = 0; i < BUF; i++) {
		bool written = i < 1000 || (i >= 8192 && i < 8192 + 4096);

		if (!written && e.sbuf[i] != 0xee)
			return FAIL("byte %d outside the writes: %#x", i,
				    e.sbuf[i]);
	}
	return env_close(&e);
}

/* An atomic of the client on the 8 bytes at @off of the server's buffer. */
static DAT_RETURN atomic(struct env *e, int cas, DAT_UINT64 a, DAT_UINT64 b,
			 size_t off, DAT_UINT64 cookie)
{
	DAT_LMR_TRIPLET iov = { .lmr_context = e->cl,
				.virtual_address = (uintptr_t)e->cbuf,
				.segment_length = 8 };
	DAT_RMR_TRIPLET r = { .rmr_context = e->sr,
			      .virtual_address = (uintptr_t)e->sbuf + off,
			      .segment_length = 8 };
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	if (cas)
		return dat_ib_post_cmp_and_swap(e->c.ep, a, b, &iov, ck, &r,
						DAT_COMPLETION_DEFAULT_FLAG);
	return dat_ib_post_fetch_and_add(e->c.ep, a, &iov, ck, &r,
					 DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * One atomic that must complete with @original in the client's result
 * buffer and leave @after at the target.
 */
static int atomic_step(struct env *e, int cas, DAT_UINT64 a, DAT_UINT64 b,
		       DAT_UINT64 cookie, DAT_UINT64 original,
		       DAT_UINT64 after)
{
	struct expect x = {
		.ep = e->c.ep, .cookie = cookie, .len = 8,
		.op = cas ? DAT_IB_DTO_CMP_SWAP : DAT_IB_DTO_FETCH_ADD,
		.type = cas ? DAT_IB_CMP_AND_SWAP : DAT_IB_FETCH_AND_ADD,
	};
	DAT_UINT64 got, target;
	DAT_RETURN ret;

	memset(e->cbuf, 0xa5, 16);
	ret = atomic(e, cas, a, b, 64, cookie);
	if (ret != DAT_SUCCESS)
		return FAIL("%s: %#x", cas ? "cmp_and_swap" : "fetch_and_add",
			    ret);
	if (ib_done(e->c.dto, &x))
		return -1;
	memcpy(&got, e->cbuf, 8);
	target = __atomic_load_n((DAT_UINT64 *)(e->sbuf + 64),
				 __ATOMIC_ACQUIRE);
	if (got != original || target != after || e->cbuf[8] != 0xa5)
		return FAIL("%#llx: original %#llx (expected %#llx), target %#llx (%#llx)",
			    (unsigned long long)cookie,
			    (unsigned long long)got,
			    (unsigned long long)original,
			    (unsigned long long)target,
			    (unsigned long long)after);
	return 0;
}

/*
 * Compare and swap that matches and one that does not, then fetch and
 * add twice, on a target registered with DAT_IB_MEM_PRIV_REMOTE_ATOMIC.
 */
static int test_atomics(void)
{
	DAT_UINT64 v = 0x12345;
	struct env e;

	if (env_open(&e, 6102, DAT_MEM_PRIV_ALL_FLAG |
			       DAT_IB_MEM_PRIV_REMOTE_ATOMIC))
		return -1;
	if (!e.caps.atomics) {
		if (atomic(&e, 1, 0x12345, 0x98765, 64, 0x31) != NOT_IMPL ||
		    atomic(&e, 0, 1, 0, 64, 0x33) != NOT_IMPL)
			return FAIL("atomics without the attributes");
		return env_close(&e);
	}
	memcpy(e.sbuf + 64, &v, 8);
	if (atomic_step(&e, 1, 0x12345, 0x98765, 0x31, 0x12345, 0x98765) ||
	    atomic_step(&e, 1, 0x654321, 0x6789a, 0x32, 0x98765, 0x98765) ||
	    atomic_step(&e, 0, 0x10, 0, 0x33, 0x98765, 0x98775) ||
	    atomic_step(&e, 0, 0x100000000ull, 0, 0x34, 0x98775,
			0x100098775ull))
		return -1;
	if (e.sbuf[63] != 0xee || e.sbuf[72] != 0xee)
		return FAIL("bytes beside the target changed");
	return env_close(&e);
}

/*
 * An atomic on memory registered without DAT_IB_MEM_PRIV_REMOTE_ATOMIC
 * completes in error: a DAT_IB_DTO_EVENT of its operation and type whose
 * extension status is DAT_IB_OP_ERR, and the target is untouched.
 */
static int test_atomic_denied(void)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	struct env e;

	if (env_open(&e, 6103, DAT_MEM_PRIV_ALL_FLAG))
		return -1;
	if (!e.caps.atomics)
		return env_close(&e);
	memset(e.sbuf, 0, 16);
	if (atomic(&e, 0, 5, 0, 0, 0x35) != DAT_SUCCESS)
		return FAIL("dat_ib_post_fetch_and_add");
	if (dat_evd_wait(e.c.dto, 5000000, 1, &ev, &nmore) != DAT_SUCCESS)
		return FAIL("no completion");
	d = &ev.event_data.dto_completion_event_data;
	x = (const DAT_IB_EXTENSION_EVENT_DATA *)ev.event_extension_data;
	if (ev.event_number != (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT ||
	    d->ep_handle != e.c.ep || d->user_cookie.as_64 != 0x35 ||
	    d->status == DAT_DTO_SUCCESS ||
	    (int)d->operation != DAT_IB_DTO_FETCH_ADD ||
	    x->type != DAT_IB_FETCH_AND_ADD || x->status != DAT_IB_OP_ERR)
		return FAIL("event %#x cookie %#llx status %d op %d type %d ext status %d",
			    ev.event_number,
			    (unsigned long long)d->user_cookie.as_64,
			    d->status, d->operation, x->type, x->status);
	if (e.sbuf[0] || e.sbuf[7])
		return FAIL("the target changed");
	return env_close(&e);
}

/* Counter @id of @h (reading all of them) must be @want. */
static int counter_is(DAT_HANDLE h, int all, int id, DAT_UINT64 want,
		      const char *what)
{
	DAT_UINT64 v[DCNT_IA_ALL_COUNTERS];
	DAT_RETURN ret;

	memset(v, 0xa5, sizeof(v));
	ret = dat_ib_query_counters(h, all, v, 0);
	if (ret != DAT_SUCCESS)
		return FAIL("query counters for %s: %#x", what, ret);
	if (v[id] != want)
		return FAIL("%s: %llu, expected %llu", what,
			    (unsigned long long)v[id],
			    (unsigned long long)want);
	return 0;
}

/* Zero every counter of @h. */
static int counters_reset(DAT_HANDLE h, int all)
{
	DAT_UINT64 v[DCNT_IA_ALL_COUNTERS];

	return dat_ib_query_counters(h, all, v, 1) == DAT_SUCCESS ?
	       0 : FAIL("reset counters");
}

#define EP_IS(h, id, want)	counter_is(h, DCNT_EP_ALL_COUNTERS, id, want, #id)
#define EVD_IS(h, id, want)	counter_is(h, DCNT_EVD_ALL_COUNTERS, id, want, #id)
#define IA_IS(h, id, want)	counter_is(h, DCNT_IA_ALL_COUNTERS, id, want, #id)

/*
 * dat_ib_start_counter() as the header's macro means it: the macro
 * casts to a DAT_COUNTER_TYPE that the header does not define.
 */
#define START(h, type)	dat_extension_op(h, DAT_IB_START_COUNTERS_OP, type)

/* The client sends @n messages of 64, 128, ... bytes to the server. */
static int counted_sends(struct env *e, int n)
{
	DAT_LMR_TRIPLET iov = { .lmr_context = e->cl,
				.virtual_address = (uintptr_t)e->cbuf };
	DAT_DTO_COOKIE ck;
	int i;

	for (i = 0; i < n; i++)
		if (server_recv(e, i, 0x80 + i))
			return -1;
	for (i = 0; i < n; i++) {
		iov.segment_length = 64 * (i + 1);
		ck.as_64 = 0x40 + i;
		if (dat_ep_post_send(e->c.ep, 1, &iov, ck,
				     DAT_COMPLETION_DEFAULT_FLAG) !=
		    DAT_SUCCESS)
			return FAIL("dat_ep_post_send");
		if (dto_done(&e->c, 0x40 + i, DAT_DTO_SEND, 64 * (i + 1)) ||
		    dto_done(&e->s, 0x80 + i, DAT_DTO_RECEIVE, 64 * (i + 1)))
			return -1;
	}
	return 0;
}

/*
 * The counters of the EPs, EVDs and IAs of a connected pair count what
 * the test did, exactly: connections, posts with their bytes, receives,
 * a write with immediate data, waits and dequeues; a reset zeroes them,
 * one counter reads alone, and bad arguments are refused.  Without the
 * attribute DAT_COUNTERS (siw), libdat2 refuses the calls.
 */
static int test_counters(void)
{
	const struct expect wx = { NULL, 0x92, DAT_IB_DTO_RDMA_WRITE_IMMED,
				   DAT_IB_RDMA_WRITE_IMMED, 1000, 0 };
	DAT_UINT64 v[DCNT_IA_ALL_COUNTERS];
	struct expect x = wx;
	DAT_EVENT ev;
	struct env e;

	if (env_open(&e, 6104, DAT_MEM_PRIV_ALL_FLAG))
		return -1;
	if (!e.caps.counters) {
		if (dat_ib_query_counters(e.c.ep, DCNT_EP_ALL_COUNTERS, v, 0) !=
		    NOT_IMPL)
			return FAIL("counters without the attribute");
		return env_close(&e);
	}
	/* The IAs: one connection each way, through libdat2's IA handles. */
	if (IA_IS(e.c.ia, DCNT_IA_CM_REQ_TX, 1) ||
	    IA_IS(e.c.ia, DCNT_IA_CM_ACTIVE_EST, 1) ||
	    IA_IS(e.c.ia, DCNT_IA_CM_PASSIVE_EST, 0) ||
	    IA_IS(e.s.ia, DCNT_IA_CM_PASSIVE_EST, 1) ||
	    IA_IS(e.s.ia, DCNT_IA_SP_CR, 1) ||
	    IA_IS(e.s.ia, DCNT_IA_SP_CR_ACCEPTED, 1) ||
	    IA_IS(e.s.ia, DCNT_IA_PSP_CREATE, 1) ||
	    IA_IS(e.s.ia, DCNT_IA_CM_LISTEN, 1) ||
	    IA_IS(e.c.ia, DCNT_IA_LMR_CREATE, 1) ||
	    IA_IS(e.c.ia, DCNT_IA_EP_CREATE, 1) ||
	    IA_IS(e.c.ia, DCNT_IA_PZ_CREATE, 1) ||
	    IA_IS(e.c.ia, DCNT_IA_PZ_FREE, 0) ||
	    EP_IS(e.c.ep, DCNT_EP_CONNECT, 1))
		return -1;
	if (counters_reset(e.c.ep, DCNT_EP_ALL_COUNTERS) ||
	    counters_reset(e.s.ep, DCNT_EP_ALL_COUNTERS) ||
	    counters_reset(e.c.dto, DCNT_EVD_ALL_COUNTERS) ||
	    counters_reset(e.s.dto, DCNT_EVD_ALL_COUNTERS) ||
	    EP_IS(e.c.ep, DCNT_EP_CONNECT, 0))
		return -1;
	if (counted_sends(&e, 3) ||
	    EP_IS(e.c.ep, DCNT_EP_POST_SEND, 3) ||
	    EP_IS(e.c.ep, DCNT_EP_POST_SEND_DATA, 384) ||
	    EP_IS(e.c.ep, DCNT_EP_RECV, 0) ||
	    EP_IS(e.s.ep, DCNT_EP_POST_RECV, 3) ||
	    EP_IS(e.s.ep, DCNT_EP_POST_RECV_DATA, 768) ||
	    EP_IS(e.s.ep, DCNT_EP_RECV, 3) ||
	    EP_IS(e.s.ep, DCNT_EP_RECV_DATA, 384) ||
	    EVD_IS(e.c.dto, DCNT_EVD_DTO_CALLBACK, 3) ||
	    EVD_IS(e.c.dto, DCNT_EVD_WAIT, 3) ||
	    EVD_IS(e.s.dto, DCNT_EVD_DTO_CALLBACK, 3) ||
	    EVD_IS(e.c.dto, DCNT_EVD_DEQUEUE, 0))
		return -1;
	/* Dequeues happen in the shim; the kernel's counters add to them. */
	if (dat_evd_dequeue(e.c.dto, &ev) != DAT_QUEUE_EMPTY ||
	    EVD_IS(e.c.dto, DCNT_EVD_DEQUEUE, 1) ||
	    EVD_IS(e.c.dto, DCNT_EVD_DEQUEUE_NOT_FOUND, 1) ||
	    EVD_IS(e.c.dto, DCNT_EVD_DEQUEUE_FOUND, 0))
		return -1;
	/* One counter alone, read and reset, then zero. */
	v[0] = 0;
	v[1] = 0x5a;
	if (dat_ib_query_counters(e.c.ep, DCNT_EP_POST_SEND, v, 1) !=
	    DAT_SUCCESS || v[0] != 3 || v[1] != 0x5a ||
	    dat_ib_query_counters(e.c.ep, DCNT_EP_POST_SEND, v, 0) !=
	    DAT_SUCCESS || v[0] != 0 ||
	    EP_IS(e.c.ep, DCNT_EP_POST_SEND_DATA, 384))
		return FAIL("one counter: %llu", (unsigned long long)v[0]);
	if (e.caps.immed) {
		x.ep = e.c.ep;
		if (server_recv(&e, 3, 0x83) ||
		    write_immed(&e, 0, 1000, 0x2468, 0x92) != DAT_SUCCESS ||
		    ib_done(e.c.dto, &x) ||
		    wait_event(e.s.dto, (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT,
			       &ev) ||
		    EP_IS(e.c.ep, DCNT_EP_POST_WRITE_IMM, 1) ||
		    EP_IS(e.c.ep, DCNT_EP_POST_WRITE_IMM_DATA, 1000) ||
		    EP_IS(e.s.ep, DCNT_EP_RECV_RDMA_IMM, 1) ||
		    EP_IS(e.s.ep, DCNT_EP_RECV_RDMA_IMM_DATA, 1000) ||
		    EP_IS(e.s.ep, DCNT_EP_RECV, 3))
			return -1;
	}
	/* Bad arguments, and the samples of the IA. */
	if (dat_ib_query_counters(e.c.ep, DCNT_EP_ALL_COUNTERS + 1, v, 0) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) ||
	    dat_ib_query_counters(e.c.ep, -1, v, 0) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) ||
	    dat_ib_query_counters(e.c.ep, DCNT_EP_POST_SEND, NULL, 0) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3) ||
	    dat_ib_query_counters(e.c.pz, DCNT_EP_POST_SEND, v, 0) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1) ||
	    START(e.c.ia, DCNT_IA_CM) != DAT_SUCCESS ||
	    dat_extension_op(e.c.ia, DAT_IB_STOP_COUNTERS_OP, DCNT_IA_CM) !=
	    DAT_SUCCESS ||
	    START(e.c.ia, DCNT_IA_LNK) != NOT_IMPL ||
	    START(e.c.ia, 99) != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) ||
	    START(e.c.ep, DCNT_IA_CM) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA) ||
	    dat_ib_print_counters(e.c.ep, DCNT_EP_POST_SEND_DATA, 0) !=
	    DAT_SUCCESS)
		return FAIL("counter calls with bad arguments");
	return env_close(&e);
}

/* The ops each answer @want with the EP (or handle) given. */
static int all_ops(DAT_HANDLE h, DAT_LMR_TRIPLET *l, DAT_RMR_TRIPLET *r,
		   DAT_RETURN want_immed, DAT_RETURN want_atomic)
{
	DAT_DTO_COOKIE ck = { .as_64 = 0x55 };
	DAT_RETURN ret;

	ret = dat_ib_post_rdma_write_immed(h, 1, l, ck, r, 1, 0);
	if (ret != want_immed)
		return FAIL("write with immediate: %#x, expected %#x", ret,
			    want_immed);
	ret = dat_ib_post_cmp_and_swap(h, 1, 2, l, ck, r, 0);
	if (ret != want_atomic)
		return FAIL("cmp_and_swap: %#x, expected %#x", ret,
			    want_atomic);
	ret = dat_ib_post_fetch_and_add(h, 1, l, ck, r, 0);
	if (ret != want_atomic)
		return FAIL("fetch_and_add: %#x, expected %#x", ret,
			    want_atomic);
	return 0;
}

/* The operations that are not implemented, on an EP. */
static int unimplemented_ops(DAT_EP_HANDLE ep)
{
	DAT_DTO_COOKIE ck = { .as_64 = 1 };
	DAT_RETURN ret;

	ret = dat_extension_op(ep, DAT_IB_COLLECTIVE_BARRIER_OP, NULL, ck, 0);
	if (ret != NOT_IMPL)
		return FAIL("collective barrier: %#x", ret);
	ret = dat_extension_op(ep, 1000);
	if (ret != NOT_IMPL)
		return FAIL("operation 1000: %#x", ret);
	return 0;
}

/*
 * Arguments refused before anything is posted, so that an EP that is
 * not connected shows it: another handle than an EP's (a PZ's: libdat2
 * takes an IA handle as its own), a target not 8-byte aligned, a result
 * segment shorter than 8 bytes, missing triplets and unknown flags.
 * The operations the IA lacks answer DAT_NOT_IMPLEMENTED first; on an
 * IA that offers none (siw), every call does.
 */
static int test_bad_args(void)
{
	DAT_DTO_COOKIE ck = { .as_64 = 0x56 };
	DAT_LMR_TRIPLET l = { .segment_length = 8 };
	DAT_RMR_TRIPLET r = { .virtual_address = 0x10000, .segment_length = 8 };
	DAT_RETURN bad_imm, bad_at;
	struct caps c;
	struct side s;
	DAT_EP_HANDLE ep;
	char buf[16];

	if (side_open_dto(&s, 8) || get_caps(s.ia, &c))
		return -1;
	ep = s.ep;
	l.virtual_address = (uintptr_t)buf;
	/* An IA that claims no extension: libdat2 refuses every call. */
	bad_imm = c.immed || c.atomics ?
		  ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP) : NOT_IMPL;
	if (all_ops(s.pz, &l, &r, bad_imm, bad_imm) || unimplemented_ops(ep))
		return -1;
	/* What the transport lacks is refused before the arguments. */
	bad_imm = c.immed ? ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) :
			    NOT_IMPL;
	if (dat_ib_post_rdma_write_immed(ep, 1, &l, ck, NULL, 1, 0) != bad_imm)
		return FAIL("write with immediate, no remote triplet");
	if (c.immed &&
	    (dat_ib_post_rdma_write_immed(ep, 1, NULL, ck, &r, 1, 0) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3) ||
	     dat_ib_post_rdma_write_immed(ep, -1, &l, ck, &r, 1, 0) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) ||
	     dat_ib_post_rdma_write_immed(ep, 1, &l, ck, &r, 1, 0x1000) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7)))
		return FAIL("write with immediate, bad arguments");
	r.virtual_address = 0x10004;
	bad_at = c.atomics ? ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6) :
			     NOT_IMPL;
	if (dat_ib_post_cmp_and_swap(ep, 1, 2, &l, ck, &r, 0) != bad_at)
		return FAIL("cmp_and_swap, misaligned target");
	bad_at = c.atomics ? ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) :
			     NOT_IMPL;
	if (dat_ib_post_fetch_and_add(ep, 1, &l, ck, &r, 0) != bad_at)
		return FAIL("fetch_and_add, misaligned target");
	r.virtual_address = 0x10000;
	l.segment_length = 4;
	bad_at = c.atomics ? ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE) : NOT_IMPL;
	if (dat_ib_post_cmp_and_swap(ep, 1, 2, &l, ck, &r, 0) != bad_at ||
	    dat_ib_post_fetch_and_add(ep, 1, &l, ck, &r, 0) != bad_at)
		return FAIL("atomics, 4-byte result segment");
	l.segment_length = 8;
	if (c.atomics &&
	    (dat_ib_post_cmp_and_swap(ep, 1, 2, NULL, ck, &r, 0) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4) ||
	     dat_ib_post_fetch_and_add(ep, 1, NULL, ck, &r, 0) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3) ||
	     dat_ib_post_fetch_and_add(ep, 1, &l, ck, NULL, 0) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) ||
	     dat_ib_post_cmp_and_swap(ep, 1, 2, &l, ck, &r, 0x1000) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7) ||
	     /* An atomic brings the peer no event to wait for. */
	     dat_ib_post_fetch_and_add(ep, 1, &l, ck, &r,
				       DAT_COMPLETION_SOLICITED_WAIT_FLAG) !=
	     ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6)))
		return FAIL("atomics, bad arguments");
	return dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/*
 * dat_ib_open_query() opens the IA for its attributes alone (libdat2
 * hands the provider the name), as dat_ia_query() gives them;
 * dat_ib_close_query() closes it.
 */
static int test_open_query(void)
{
	DAT_PROVIDER_ATTR p, q;
	DAT_IA_ATTR attr;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL, ia2;
	DAT_EVD_HANDLE async;
	DAT_RETURN ret;

	ret = dat_ib_open_query(ia_name, &ia, DAT_IA_FIELD_ALL, &attr,
				DAT_PROVIDER_FIELD_ALL, &p);
	if (ret != DAT_SUCCESS || !ia)
		return FAIL("dat_ib_open_query: %#x", ret);
	if (!attr.ia_address_ptr || attr.ia_address_ptr->sa_family != AF_INET)
		return FAIL("address of the queried IA");
	if (open_ia(&ia2, &async) ||
	    dat_ia_query(ia2, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &q) !=
	    DAT_SUCCESS)
		return FAIL("dat_ia_query");
	if (p.num_provider_specific_attr != q.num_provider_specific_attr ||
	    strcmp(p.provider_specific_attr[0].name,
		   q.provider_specific_attr[0].name))
		return FAIL("attributes: %d, dat_ia_query %d",
			    p.num_provider_specific_attr,
			    q.num_provider_specific_attr);
	ret = dat_ib_close_query(ia);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ib_close_query: %#x", ret);
	return dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: shim_ibext IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	printf("TAP version 13\n1..8\n");
	tap_run("ibext_query", test_query);
	tap_run("ibext_lmr_priv", test_lmr_priv);
	tap_run("ibext_bad_args", test_bad_args);
	tap_run("ibext_write_immed", test_write_immed);
	tap_run("ibext_atomics", test_atomics);
	tap_run("ibext_atomic_denied", test_atomic_denied);
	tap_run("ibext_counters", test_counters);
	tap_run("ibext_open_query", test_open_query);
	return tap_done("shim_ibext");
}
