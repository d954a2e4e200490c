// SPDX-License-Identifier: GPL-2.0
/*
 * shim_rmr: Remote Memory Regions of udapl-shim through Debian's libdat2.
 *
 * The server binds an RMR over a window of its buffer; the client writes
 * and reads through the window's rmr_context, the server reads into an
 * RMR of its own (dat_ep_post_rdma_read_to_rmr()), and the client's Send
 * with invalidate ends the window.  Every call's DAT_RETURN, every bind
 * completion and the bytes moved are checked, and a write past the window
 * must reach no byte outside it.
 *
 *   shim_rmr IA_NAME
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat2/udat.h>
#include <dat2/udat_redirection.h>

#include "tap.h"
#include "side.h"

#define BUF	65536
#define WIN_OFF	4096
#define WIN_LEN	8192

/*
 * Debian's libdat2 declares dat_rmr_create_for_ep(),
 * dat_ep_post_rdma_read_to_rmr() and dat_ep_post_send_with_invalidate()
 * but does not export them: they are called through the provider's
 * table, as the DAT_* redirection macros would.
 */
static DAT_RETURN rmr_create_for_ep(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr)
{
	return DAT_RMR_CREATE_FOR_EP(pz, rmr);
}

static DAT_RETURN read_to_rmr(DAT_EP_HANDLE ep, const DAT_RMR_TRIPLET *sink,
			      DAT_DTO_COOKIE ck, const DAT_RMR_TRIPLET *src,
			      DAT_COMPLETION_FLAGS flags)
{
	return DAT_EP_POST_RDMA_READ_TO_RMR(ep, sink, ck, src, flags);
}

static DAT_RETURN send_inv(DAT_EP_HANDLE ep, DAT_LMR_TRIPLET *iov,
			   DAT_DTO_COOKIE ck, DAT_RMR_CONTEXT ctx)
{
	return DAT_EP_POST_SEND_WITH_INVALIDATE(ep, 1, iov, ck,
						DAT_COMPLETION_DEFAULT_FLAG,
						DAT_TRUE, ctx);
}

/* What one test works with: a connected pair and an LMR on each side. */
struct rmr_env {
	struct side s, c;
	DAT_PSP_HANDLE psp;
	char *sbuf, *cbuf;
	DAT_LMR_HANDLE slmr, clmr;
	DAT_LMR_CONTEXT sl, cl;
	DAT_RMR_CONTEXT sr, cr;
};

static int env_open(struct rmr_env *e, DAT_CONN_QUAL qual)
{
	int i;

	e->sbuf = aligned_alloc(4096, BUF);
	e->cbuf = aligned_alloc(4096, BUF);
	if (!e->sbuf || !e->cbuf)
		return FAIL("buffers");
	memset(e->sbuf, 0, BUF);
	for (i = 0; i < BUF; i++)
		e->cbuf[i] = (char)(i * 7 + 3);
	if (pair_connect(&e->s, &e->c, qual, &e->psp) ||
	    make_lmr(&e->s, e->sbuf, BUF, &e->slmr, &e->sl, &e->sr) ||
	    make_lmr(&e->c, e->cbuf, BUF, &e->clmr, &e->cl, &e->cr))
		return -1;
	return 0;
}

static int env_close(struct rmr_env *e)
{
	int ret = pair_close(&e->s, &e->c);

	free(e->sbuf);
	free(e->cbuf);
	return ret;
}

/* The next event of @evd must be the bind completion of @rmr, @cookie. */
static int bind_done(DAT_EVD_HANDLE evd, DAT_RMR_HANDLE rmr,
		     DAT_UINT64 cookie)
{
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (wait_event(evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev))
		return -1;
	d = &ev.event_data.rmr_completion_event_data;
	if (d->rmr_handle != rmr || d->user_cookie.as_64 != cookie ||
	    d->status != DAT_RMR_BIND_SUCCESS)
		return FAIL("bind completion %p %#llx status %d", d->rmr_handle,
			    (unsigned long long)d->user_cookie.as_64,
			    d->status);
	return 0;
}

/* Bind @rmr over [@off, @off + @len) of the server's buffer. */
static DAT_RETURN win_bind(struct rmr_env *e, DAT_RMR_HANDLE rmr,
			   size_t off, DAT_VLEN len, DAT_UINT64 cookie,
			   DAT_RMR_CONTEXT *ctx)
{
	DAT_LMR_TRIPLET t = { .lmr_context = e->sl,
			      .virtual_address = (uintptr_t)e->sbuf + off,
			      .segment_length = len };
	DAT_RMR_COOKIE ck = { .as_64 = cookie };

	return dat_rmr_bind(rmr, e->slmr, &t, DAT_MEM_PRIV_ALL_FLAG,
			    DAT_VA_TYPE_VA, e->s.ep, ck,
			    DAT_COMPLETION_DEFAULT_FLAG, ctx);
}

/* The client's RDMA @op of @len bytes at @off of its buffer, window @ctx. */
static int client_rdma(struct rmr_env *e, DAT_DTOS op, size_t off,
		       DAT_VLEN len, DAT_RMR_CONTEXT ctx, DAT_VADDR remote)
{
	DAT_LMR_TRIPLET iov = { .lmr_context = e->cl,
				.virtual_address = (uintptr_t)e->cbuf + off,
				.segment_length = len };
	DAT_RMR_TRIPLET r = { .rmr_context = ctx, .virtual_address = remote,
			      .segment_length = len };
	DAT_DTO_COOKIE ck = { .as_64 = 0x700 + op };
	DAT_RETURN ret;

	if (op == DAT_DTO_RDMA_WRITE)
		ret = dat_ep_post_rdma_write(e->c.ep, 1, &iov, ck, &r,
					     DAT_COMPLETION_DEFAULT_FLAG);
	else
		ret = dat_ep_post_rdma_read(e->c.ep, 1, &iov, ck, &r,
					    DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("post op %d: %#x", op, ret);
	return dto_done(&e->c, ck.as_64, op, len);
}

/* The calls that fail before anything is posted. */
static int test_errors(void)
{
	DAT_LMR_TRIPLET t = { 0 };
	DAT_RMR_COOKIE ck = { .as_64 = 1 };
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_HANDLE rmr;
	struct rmr_env e;
	DAT_RETURN ret;

	if (env_open(&e, 6161))
		return -1;
	ret = dat_rmr_create(e.s.pz, NULL);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("create with no handle: %#x", ret);
	ret = rmr_create_for_ep(e.s.pz, &rmr);
	if (ret != ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE))
		return FAIL("create_for_ep: %#x", ret);
	if (dat_rmr_create(e.s.pz, &rmr) != DAT_SUCCESS)
		return FAIL("dat_rmr_create");
	ret = dat_rmr_bind(rmr, e.slmr, NULL, DAT_MEM_PRIV_ALL_FLAG,
			   DAT_VA_TYPE_VA, e.s.ep, ck, 0, &ctx);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("no triplet: %#x", ret);
	t = (DAT_LMR_TRIPLET){ .lmr_context = e.sl,
			       .virtual_address = (uintptr_t)e.sbuf,
			       .segment_length = 4096 };
	ret = dat_rmr_bind(rmr, e.slmr, &t, 0x10000, DAT_VA_TYPE_VA, e.s.ep,
			   ck, 0, &ctx);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4))
		return FAIL("bad privileges: %#x", ret);
	ret = dat_rmr_bind(rmr, e.slmr, &t, DAT_MEM_PRIV_ALL_FLAG,
			   DAT_VA_TYPE_VA, e.s.ep, ck, 0x4000, &ctx);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8))
		return FAIL("bad flags: %#x", ret);
	ret = dat_rmr_bind(rmr, e.slmr, &t, DAT_MEM_PRIV_ALL_FLAG,
			   DAT_VA_TYPE_VA, e.s.ep, ck, 0, NULL);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG9))
		return FAIL("no context: %#x", ret);
	/* A range past the LMR, and an LMR of the other IA. */
	t.virtual_address = (uintptr_t)e.sbuf + BUF - 100;
	ret = dat_rmr_bind(rmr, e.slmr, &t, DAT_MEM_PRIV_ALL_FLAG,
			   DAT_VA_TYPE_VA, e.s.ep, ck, 0, &ctx);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("range past the LMR: %#x", ret);
	t.virtual_address = (uintptr_t)e.sbuf;
	ret = dat_rmr_bind(rmr, e.clmr, &t, DAT_MEM_PRIV_ALL_FLAG,
			   DAT_VA_TYPE_VA, e.s.ep, ck, 0, &ctx);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR))
		return FAIL("LMR of another IA: %#x", ret);
	ret = dat_rmr_bind(rmr, e.slmr, &t, DAT_MEM_PRIV_ALL_FLAG,
			   DAT_VA_TYPE_VA, e.c.ep, ck, 0, &ctx);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP))
		return FAIL("EP of another IA: %#x", ret);
	/* Not connected: nothing is bound. */
	if (pair_disconnect(&e.s, &e.c, e.c.ep))
		return -1;
	ret = dat_rmr_bind(rmr, e.slmr, &t, DAT_MEM_PRIV_ALL_FLAG,
			   DAT_VA_TYPE_VA, e.s.ep, ck, 0, &ctx);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("bind on a disconnected EP: %#x", ret);
	/* (A freed handle cannot be tried: libdat2 reads its first word.) */
	if (dat_rmr_free(rmr) != DAT_SUCCESS)
		return FAIL("dat_rmr_free");
	return env_close(&e);
}

/* The binding dat_rmr_query() reports. */
static int check_query(struct rmr_env *e, DAT_RMR_HANDLE rmr, size_t off,
		       DAT_VLEN len, DAT_RMR_CONTEXT ctx)
{
	DAT_RMR_PARAM p;

	memset(&p, 0xa5, sizeof(p));
	if (dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p) != DAT_SUCCESS)
		return FAIL("dat_rmr_query");
	if (p.ia_handle != e->s.ia || p.pz_handle != e->s.pz ||
	    p.rmr_context != ctx || p.lmr_triplet.segment_length != len ||
	    (len && (p.lmr_triplet.lmr_context != e->sl ||
		     p.lmr_triplet.virtual_address !=
		     (uintptr_t)e->sbuf + off ||
		     p.mem_priv != DAT_MEM_PRIV_ALL_FLAG)) ||
	    p.va_type != DAT_VA_TYPE_VA)
		return FAIL("query: context %#x length %u priv %#x",
			    p.rmr_context, p.lmr_triplet.segment_length,
			    p.mem_priv);
	return 0;
}

/* Bind, remote write and read through the window, unbind, rebind. */
static int test_bind(void)
{
	DAT_VADDR win;
	DAT_RMR_CONTEXT ctx, ctx2;
	DAT_RMR_HANDLE rmr;
	DAT_HANDLE_TYPE type;
	struct rmr_env e;
	DAT_RETURN ret;

	if (env_open(&e, 6162))
		return -1;
	win = (uintptr_t)e.sbuf + WIN_OFF;
	if (dat_rmr_create(e.s.pz, &rmr) != DAT_SUCCESS)
		return FAIL("dat_rmr_create");
	if (dat_get_handle_type(rmr, &type) != DAT_SUCCESS ||
	    type != DAT_HANDLE_TYPE_RMR)
		return FAIL("handle type %d", type);
	if (check_query(&e, rmr, 0, 0, 0))
		return -1;
	ret = win_bind(&e, rmr, WIN_OFF, WIN_LEN, 0xb1, &ctx);
	if (ret != DAT_SUCCESS || !ctx || ctx == e.sr)
		return FAIL("bind: %#x context %#x", ret, ctx);
	if (bind_done(e.s.dto, rmr, 0xb1) ||
	    check_query(&e, rmr, WIN_OFF, WIN_LEN, ctx))
		return -1;

	/* The client writes the whole window and reads it back. */
	if (client_rdma(&e, DAT_DTO_RDMA_WRITE, 0, WIN_LEN, ctx, win))
		return -1;
	if (memcmp(e.sbuf + WIN_OFF, e.cbuf, WIN_LEN))
		return FAIL("written data differs");
	if (e.sbuf[WIN_OFF - 1] || e.sbuf[WIN_OFF + WIN_LEN])
		return FAIL("bytes outside the window written");
	memset(e.sbuf + WIN_OFF, 0x5c, 512);
	if (client_rdma(&e, DAT_DTO_RDMA_READ, 32768, 512, ctx, win))
		return -1;
	if (memcmp(e.cbuf + 32768, e.sbuf + WIN_OFF, 512))
		return FAIL("read data differs");

	/* Unbind, then bind again: a new context, the old one is gone. */
	ret = win_bind(&e, rmr, 0, 0, 0xb2, &ctx2);
	if (ret != DAT_SUCCESS || ctx2)
		return FAIL("unbind: %#x context %#x", ret, ctx2);
	if (bind_done(e.s.dto, rmr, 0xb2) || check_query(&e, rmr, 0, 0, 0))
		return -1;
	ret = win_bind(&e, rmr, 0, 4096, 0xb3, &ctx2);
	if (ret != DAT_SUCCESS || !ctx2 || ctx2 == ctx)
		return FAIL("rebind: %#x context %#x (was %#x)", ret, ctx2, ctx);
	if (bind_done(e.s.dto, rmr, 0xb3) ||
	    client_rdma(&e, DAT_DTO_RDMA_WRITE, 4096, 4096, ctx2,
			(uintptr_t)e.sbuf))
		return -1;
	if (memcmp(e.sbuf, e.cbuf + 4096, 4096))
		return FAIL("data written after the rebind differs");
	/* A bound RMR uses its LMR. */
	ret = dat_lmr_free(e.slmr);
	if (ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE))
		return FAIL("free of a bound LMR: %#x", ret);
	if (dat_rmr_free(rmr) != DAT_SUCCESS)
		return FAIL("dat_rmr_free");
	if (pair_disconnect(&e.s, &e.c, e.c.ep))
		return -1;
	return env_close(&e);
}

/*
 * The server reads the client's buffer into a window of its own, then
 * the client's Send with invalidate ends the window the client wrote
 * through: the receive reports it, and the client's next write through
 * it breaks the connection without touching the buffer.
 */
static int test_read_to_rmr_and_invalidate(void)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET sink, src;
	DAT_DTO_COOKIE ck;
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_HANDLE rmr;
	struct rmr_env e;
	DAT_COUNT n;
	DAT_EVENT ev;

	if (env_open(&e, 6163))
		return -1;
	if (dat_rmr_create(e.s.pz, &rmr) != DAT_SUCCESS ||
	    win_bind(&e, rmr, WIN_OFF, WIN_LEN, 0xc1, &ctx) != DAT_SUCCESS ||
	    bind_done(e.s.dto, rmr, 0xc1))
		return FAIL("bind");
	sink = (DAT_RMR_TRIPLET){ .rmr_context = ctx,
				  .virtual_address = (uintptr_t)e.sbuf +
						     WIN_OFF + 1024,
				  .segment_length = 2048 };
	src = (DAT_RMR_TRIPLET){ .rmr_context = e.cr,
				 .virtual_address = (uintptr_t)e.cbuf + 8192,
				 .segment_length = 2048 };
	ck.as_64 = 0xd1;
	if (read_to_rmr(e.s.ep, &sink, ck, &src, DAT_COMPLETION_DEFAULT_FLAG) !=
	    DAT_SUCCESS || dto_done(&e.s, 0xd1, DAT_DTO_RDMA_READ, 2048))
		return FAIL("read to RMR");
	if (memcmp(e.sbuf + WIN_OFF + 1024, e.cbuf + 8192, 2048))
		return FAIL("data read into the RMR differs");
	sink.rmr_context ^= 0x5a5a00;
	if (DAT_GET_TYPE(read_to_rmr(e.s.ep, &sink, ck, &src, 0)) !=
	    DAT_PROTECTION_VIOLATION)
		return FAIL("read to an unknown RMR context");

	iov = (DAT_LMR_TRIPLET){ .lmr_context = e.sl,
				 .virtual_address = (uintptr_t)e.sbuf + 60000,
				 .segment_length = 64 };
	ck.as_64 = 0xe1;
	if (dat_ep_post_recv(e.s.ep, 1, &iov, ck, 0) != DAT_SUCCESS)
		return FAIL("dat_ep_post_recv");
	iov = (DAT_LMR_TRIPLET){ .lmr_context = e.cl,
				 .virtual_address = (uintptr_t)e.cbuf,
				 .segment_length = 32 };
	ck.as_64 = 0xe2;
	if (send_inv(e.c.ep, &iov, ck, ctx) != DAT_SUCCESS ||
	    dto_done(&e.c, 0xe2, DAT_DTO_SEND, 32) ||
	    wait_event(e.s.dto, DAT_DTO_COMPLETION_EVENT, &ev))
		return FAIL("send with invalidate");
	d = &ev.event_data.dto_completion_event_data;
	if (d->user_cookie.as_64 != 0xe1 || d->status != DAT_DTO_SUCCESS ||
	    d->operation != DAT_DTO_RECEIVE_WITH_INVALIDATE ||
	    d->rmr_context != ctx || d->transfered_length != 32)
		return FAIL("receive: op %d status %d context %#x (sent %#x)",
			    d->operation, d->status, d->rmr_context, ctx);

	memset(e.sbuf, 0, BUF);
	iov.virtual_address = (uintptr_t)e.cbuf;
	iov.segment_length = 256;
	src.rmr_context = ctx;
	src.virtual_address = (uintptr_t)e.sbuf + WIN_OFF;
	src.segment_length = 256;
	if (dat_ep_post_rdma_write(e.c.ep, 1, &iov, ck, &src, 0) !=
	    DAT_SUCCESS)
		return FAIL("write after invalidate: post");
	if (dat_evd_wait(e.c.conn, 5000000, 1, &ev, &n) != DAT_SUCCESS ||
	    (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
	     ev.event_number != DAT_CONNECTION_EVENT_BROKEN))
		return FAIL("write after invalidate: no end of the connection");
	for (n = 0; n < BUF; n++)
		if (e.sbuf[n])
			return FAIL("write after invalidate wrote byte %d", n);
	dat_rmr_free(rmr);
	return env_close(&e);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: shim_rmr IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	printf("TAP version 13\n1..3\n");
	tap_run("rmr_errors", test_errors);
	tap_run("rmr_bind", test_bind);
	tap_run("rmr_read_to_rmr_invalidate", test_read_to_rmr_and_invalidate);
	return tap_done("shim_rmr");
}
