// SPDX-License-Identifier: GPL-2.0
/*
 * shim_test: udapl-shim as a uDAPL program reaches it, through Debian's
 * libdat2 and a dat.conf (DAT_OVERRIDE) naming libdaplkdapl.so.2.
 *
 *   DAT_OVERRIDE=dat.conf shim_test IA_NAME [SKIPPED_CASE]
 *
 * Runs in the test VM with kdapl loaded.  TAP output; the exit status is
 * 0 only if every case passed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/udat_redirection.h>

#include "tap.h"
#include "side.h"

static int test_open_close(void)
{
	DAT_PROVIDER_ATTR pattr;
	DAT_EVD_HANDLE async, a2;
	DAT_IA_ATTR attr;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;
	int i;

	ret = dat_ia_open("no-such-ia", 8, &async, &ia);
	if (DAT_GET_TYPE(ret) != DAT_PROVIDER_NOT_FOUND)
		return FAIL("unknown IA: %#x", ret);
	/* The library is loaded and unloaded with each first open. */
	for (i = 0; i < 3; i++) {
		if (open_ia(&ia, &async))
			return -1;
		if (!async)
			return FAIL("no async EVD");
		ret = dat_ia_query(ia, &a2, DAT_IA_FIELD_ALL, &attr,
				   DAT_PROVIDER_FIELD_ALL, &pattr);
		if (ret != DAT_SUCCESS)
			return FAIL("dat_ia_query: %#x", ret);
		if (a2 != async)
			return FAIL("async EVD %p, query %p", async, a2);
		if (strncmp(attr.adapter_name, ia_name, 3))
			return FAIL("adapter %s", attr.adapter_name);
		if (attr.max_evd_qlen <= 0 || !attr.ia_address_ptr)
			return FAIL("attributes");
		if (pattr.dapl_version_major != 2 ||
		    pattr.dapl_version_minor != 0 || pattr.is_thread_safe)
			return FAIL("provider attributes");
		ret = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);
		if (ret != DAT_SUCCESS)
			return FAIL("dat_ia_close: %#x", ret);
	}
	return 0;
}

static int test_pz(void)
{
	DAT_EVD_HANDLE async;
	DAT_HANDLE_TYPE type;
	DAT_PZ_PARAM param;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;

	if (open_ia(&ia, &async))
		return -1;
	ret = dat_pz_create(ia, &pz);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_pz_create: %#x", ret);
	ret = dat_get_handle_type(pz, &type);
	if (ret != DAT_SUCCESS || type != DAT_HANDLE_TYPE_PZ)
		return FAIL("handle type %#x %d", ret, type);
	ret = dat_pz_query(pz, DAT_PZ_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS || param.ia_handle != ia)
		return FAIL("dat_pz_query: %#x %p %p", ret, param.ia_handle, ia);
	ret = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("graceful close with a PZ: %#x", ret);
	if (dat_pz_free(pz) != DAT_SUCCESS)
		return FAIL("dat_pz_free");
	if (dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) != DAT_SUCCESS)
		return FAIL("dat_ia_close");
	return 0;
}

static int test_evd(void)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };
	DAT_CONTEXT ctx = { .as_64 = 0x1234 }, out;
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_COUNT nmore;
	DAT_RETURN ret;
	int i;

	if (open_ia(&ia, &async))
		return -1;
	ret = dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
			     &evd);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_create: %#x", ret);
	for (i = 0; i < 2; i++) {
		ev.event_data.software_event_data.pointer = (void *)(long)(i + 1);
		ret = dat_evd_post_se(evd, &ev);
		if (ret != DAT_SUCCESS)
			return FAIL("dat_evd_post_se: %#x", ret);
	}
	memset(&ev, 0, sizeof(ev));
	ret = dat_evd_wait(evd, 1000, 2, &ev, &nmore);
	if (ret != DAT_SUCCESS || nmore != 1)
		return FAIL("dat_evd_wait: %#x %d", ret, nmore);
	if (ev.event_number != DAT_SOFTWARE_EVENT || ev.evd_handle != evd ||
	    ev.event_data.software_event_data.pointer != (void *)1L)
		return FAIL("first event");
	ret = dat_evd_dequeue(evd, &ev);
	if (ret != DAT_SUCCESS ||
	    ev.event_data.software_event_data.pointer != (void *)2L)
		return FAIL("second event: %#x", ret);
	ret = dat_evd_dequeue(evd, &ev);
	if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
		return FAIL("empty: %#x", ret);
	ret = dat_evd_wait(evd, 10000, 1, &ev, &nmore);
	if (DAT_GET_TYPE(ret) != DAT_TIMEOUT_EXPIRED || nmore != 0)
		return FAIL("timeout: %#x %d", ret, nmore);
	ret = dat_evd_wait(evd, 0, 5, &ev, &nmore);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("threshold above qlen: %#x", ret);
	if (dat_set_consumer_context(evd, ctx) != DAT_SUCCESS ||
	    dat_get_consumer_context(evd, &out) != DAT_SUCCESS ||
	    out.as_64 != 0x1234)
		return FAIL("consumer context");
	ret = dat_evd_free(evd);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_free: %#x", ret);
	ret = dat_evd_free(async);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("free of the async EVD: %#x", ret);
	return dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/*
 * Debian's libdat2 declares dat_cno_fd_create() and dat_cno_trigger() but
 * exports neither: a program reaches them through the provider table, as
 * the macros of udat_redirection.h do, with libdat2's own IA lookup.
 */
DAT_RETURN dats_get_ia_handle(DAT_IA_HANDLE handle, DAT_IA_HANDLE *ia);

static DAT_RETURN cno_fd_create(DAT_IA_HANDLE ia, DAT_FD *fd,
				DAT_CNO_HANDLE *cno)
{
	DAT_IA_HANDLE pia;

	if (dats_get_ia_handle(ia, &pia) != DAT_SUCCESS)
		return ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	return DAT_CNO_FD_CREATE(pia, fd, cno);
}

/* dat_ia_ha_related(): Debian's macro for it is broken; the table entry. */
static int test_ha_related(void)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_BOOLEAN answer = DAT_TRUE;
	DAT_IA_HANDLE ia, pia;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;

	if (dat_ia_open(ia_name, 8, &async, &ia) != DAT_SUCCESS ||
	    dats_get_ia_handle(ia, &pia) != DAT_SUCCESS ||
	    dat_pz_create(ia, &pz) != DAT_SUCCESS)
		return FAIL("open");
	ret = DAT_HANDLE_TO_PROVIDER(pia)->ia_ha_related_func(pia, ia_name,
							      &answer);
	if (ret != DAT_SUCCESS || answer != DAT_FALSE)
		return FAIL("own name: %#x, answer %d", ret, answer);
	ret = DAT_HANDLE_TO_PROVIDER(pia)->ia_ha_related_func(pia, NULL,
							      &answer);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("no name: %#x", ret);
	ret = DAT_HANDLE_TO_PROVIDER(pia)->ia_ha_related_func(pz, ia_name,
							      &answer);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
		return FAIL("a PZ: %#x", ret);
	return dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

static int test_cno(void)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };
	DAT_EVD_HANDLE async, evd, got;
	DAT_CNO_HANDLE cno, fcno;
	DAT_EVD_PARAM eparam;
	DAT_CNO_PARAM param;
	struct pollfd pfd = { .events = POLLIN };
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;
	DAT_FD fd;

	if (open_ia(&ia, &async))
		return -1;
	ret = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cno_create: %#x", ret);
	ret = dat_cno_query(cno, DAT_CNO_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS || param.ia_handle != ia ||
	    param.proxy_type != DAT_PROXY_TYPE_AGENT)
		return FAIL("dat_cno_query: %#x", ret);
	ret = dat_evd_create(ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &evd);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_create with a CNO: %#x", ret);
	ret = dat_evd_query(evd, DAT_EVD_FIELD_ALL, &eparam);
	if (ret != DAT_SUCCESS || eparam.cno_handle != cno)
		return FAIL("dat_evd_query: %#x", ret);
	got = evd;
	ret = dat_cno_wait(cno, 10000, &got);
	if (ret != ERR(DAT_QUEUE_EMPTY, 0) || got != DAT_HANDLE_NULL)
		return FAIL("idle dat_cno_wait: %#x", ret);
	if (dat_evd_post_se(evd, &ev) != DAT_SUCCESS)
		return FAIL("dat_evd_post_se");
	got = DAT_HANDLE_NULL;
	ret = dat_cno_wait(cno, DAT_TIMEOUT_INFINITE, &got);
	if (ret != DAT_SUCCESS || got != evd)
		return FAIL("dat_cno_wait: %#x %p", ret, got);
	if (dat_evd_dequeue(evd, &ev) != DAT_SUCCESS)
		return FAIL("dequeue");
	ret = dat_cno_free(cno);
	if (ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE))
		return FAIL("dat_cno_free in use: %#x", ret);
	ret = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("graceful close with a CNO: %#x", ret);
	if (dat_evd_free(evd) != DAT_SUCCESS)
		return FAIL("dat_evd_free");
	/* DAT: its last EVD freed, the CNO's waiters return with none. */
	got = evd;
	ret = dat_cno_wait(cno, DAT_TIMEOUT_INFINITE, &got);
	if (ret != DAT_SUCCESS || got != DAT_HANDLE_NULL)
		return FAIL("dat_cno_wait without EVDs: %#x %p", ret, got);
	if (dat_cno_free(cno) != DAT_SUCCESS)
		return FAIL("dat_cno_free");

	/* A CNO with a descriptor: poll() it, then dat_cno_trigger(). */
	ret = cno_fd_create(ia, &fd, &fcno);
	if (ret != DAT_SUCCESS || fd < 0)
		return FAIL("dat_cno_fd_create: %#x", ret);
	ret = dat_cno_query(fcno, DAT_CNO_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS || param.proxy_type != DAT_PROXY_TYPE_FD ||
	    param.proxy.fd != fd)
		return FAIL("dat_cno_query fd: %#x", ret);
	if (dat_evd_create(ia, 4, fcno, DAT_EVD_SOFTWARE_FLAG, &evd))
		return FAIL("dat_evd_create");
	ret = DAT_CNO_TRIGGER(fcno, &got);
	if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
		return FAIL("dat_cno_trigger untriggered: %#x", ret);
	dat_evd_post_se(evd, &ev);
	pfd.fd = fd;
	if (poll(&pfd, 1, 5000) != 1 || pfd.revents != POLLIN)
		return FAIL("poll: %#x", pfd.revents);
	ret = DAT_CNO_TRIGGER(fcno, &got);
	if (ret != DAT_SUCCESS || got != evd)
		return FAIL("dat_cno_trigger: %#x", ret);
	if (poll(&pfd, 1, 0) != 0)
		return FAIL("poll after trigger: %#x", pfd.revents);
	if (dat_evd_free(evd) || dat_cno_free(fcno))
		return FAIL("free");
	if (fcntl(fd, F_GETFD) != -1)
		return FAIL("descriptor left open");
	return dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

static int test_lmr(void)
{
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_EVD_HANDLE async;
	DAT_LMR_PARAM param;
	DAT_LMR_HANDLE lmr, lmr2;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	static char buf[1 << 20];
	DAT_VADDR addr;
	DAT_VLEN len;
	DAT_RETURN ret;

	if (open_ia(&ia, &async) || dat_pz_create(ia, &pz) != DAT_SUCCESS)
		return FAIL("set-up");
	region.for_va = buf;
	ret = dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, sizeof(buf), pz,
			     DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &lctx,
			     &rctx, &len, &addr);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_lmr_create: %#x", ret);
	if (!lctx || !rctx || len != sizeof(buf) || addr != (DAT_VADDR)buf)
		return FAIL("outputs");
	ret = dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS || param.ia_handle != ia ||
	    param.pz_handle != pz || param.lmr_context != lctx ||
	    param.registered_size != sizeof(buf))
		return FAIL("dat_lmr_query: %#x", ret);
	ret = dat_pz_free(pz);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("PZ in use: %#x", ret);
	region.for_va = NULL;
	ret = dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, 4096, pz,
			     0, DAT_VA_TYPE_VA, &lmr2, NULL, NULL, NULL, NULL);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("NULL region: %#x", ret);
	if (dat_lmr_free(lmr) != DAT_SUCCESS)
		return FAIL("dat_lmr_free");
	if (dat_pz_free(pz) != DAT_SUCCESS)
		return FAIL("dat_pz_free");
	return dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

static int test_connect(void)
{
	DAT_CR_ARRIVAL_EVENT_DATA *req;
	DAT_EP_PARAM epp;
	DAT_EP_STATE state;
	DAT_PSP_HANDLE psp;
	DAT_CR_PARAM crp;
	struct side s, c;
	DAT_EVENT ev;
	DAT_RETURN ret;

	if (side_open(&s) || side_open(&c))
		return -1;
	ret = dat_psp_create(s.ia, 5151, s.cr, DAT_PSP_CONSUMER_FLAG, &psp);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_psp_create: %#x", ret);
	ret = dat_ep_connect(c.ep, s.addr, 5151, 5000000, 5, "hello",
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_connect: %#x", ret);
	if (wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return -1;
	req = &ev.event_data.cr_arrival_event_data;
	if (req->sp_handle.psp_handle != psp || req->conn_qual != 5151 ||
	    !req->cr_handle || !req->local_ia_address_ptr)
		return FAIL("request event");
	if (dat_cr_query(req->cr_handle, DAT_CR_FIELD_ALL, &crp) !=
	    DAT_SUCCESS)
		return FAIL("dat_cr_query");
	/*
	 * The client's private data and address reach the server (the
	 * transport may pad the private data: IB CM to 56 bytes).
	 */
	if (crp.private_data_size < 5 || !crp.private_data ||
	    memcmp(crp.private_data, "hello", 5))
		return FAIL("request private data (%d bytes)",
			    crp.private_data_size);
	if (!crp.remote_ia_address_ptr ||
	    crp.remote_ia_address_ptr->sa_family != AF_INET ||
	    memcmp(&((struct sockaddr_in *)crp.remote_ia_address_ptr)->sin_addr,
		   &((struct sockaddr_in *)s.addr)->sin_addr, 4))
		return FAIL("request address");
	ret = dat_cr_accept(req->cr_handle, s.ep, 6, "world");
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cr_accept: %#x", ret);
	if (wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    ev.event_data.connect_event_data.ep_handle != c.ep)
		return FAIL("client established");
	if (ev.event_data.connect_event_data.private_data_size < 6 ||
	    memcmp(ev.event_data.connect_event_data.private_data, "world", 6))
		return FAIL("accept private data (%d bytes)",
			    ev.event_data.connect_event_data.private_data_size);
	if (dat_ep_query(c.ep, DAT_EP_FIELD_ALL, &epp) != DAT_SUCCESS ||
	    epp.ep_state != DAT_EP_STATE_CONNECTED ||
	    epp.remote_port_qual != 5151 || epp.connect_evd_handle != c.conn ||
	    epp.pz_handle != c.pz ||
	    memcmp(&((struct sockaddr_in *)epp.remote_ia_address_ptr)->sin_addr,
		   &((struct sockaddr_in *)s.addr)->sin_addr, 4))
		return FAIL("dat_ep_query");
	if (wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    ev.event_data.connect_event_data.ep_handle != s.ep)
		return FAIL("server established");
	if (dat_ep_get_status(c.ep, &state, NULL, NULL) != DAT_SUCCESS ||
	    state != DAT_EP_STATE_CONNECTED)
		return FAIL("state %d", state);
	/* Queue depths change only before a connection. */
	ret = dat_ep_modify(c.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &epp);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("dat_ep_modify connected: %#x", ret);
	if (pair_disconnect(&s, &c, c.ep))
		return -1;
	if (dat_ep_free(c.ep) != DAT_SUCCESS || dat_ep_free(s.ep) !=
	    DAT_SUCCESS || dat_psp_free(psp) != DAT_SUCCESS)
		return FAIL("free");
	return pair_close(&s, &c);
}

/* A request handed off to another PSP comes again there, with a new CR. */
static int test_cr_handoff(void)
{
	DAT_CR_ARRIVAL_EVENT_DATA *req;
	DAT_PSP_HANDLE psp, psp2;
	DAT_EVD_HANDLE cr2;
	DAT_CR_HANDLE old;
	DAT_CR_PARAM crp;
	DAT_CONN_QUAL q2;
	struct side s, c;
	DAT_EVENT ev;
	DAT_RETURN ret;

	if (side_open(&s) || side_open(&c) ||
	    dat_evd_create(s.ia, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr2))
		return FAIL("set-up");
	if (dat_psp_create(s.ia, 5252, s.cr, DAT_PSP_CONSUMER_FLAG, &psp) ||
	    dat_psp_create_any(s.ia, &q2, cr2, DAT_PSP_CONSUMER_FLAG, &psp2))
		return FAIL("PSPs");
	ret = dat_ep_connect(c.ep, s.addr, 5252, 5000000, 5, "hello",
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS || wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT,
					     &ev))
		return FAIL("request: %#x", ret);
	old = ev.event_data.cr_arrival_event_data.cr_handle;
	ret = dat_cr_handoff(old, q2 + 1000);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("no PSP there: %#x", ret);
	/* The old handle is destroyed (its memory too: not to be used). */
	ret = dat_cr_handoff(old, q2);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cr_handoff: %#x", ret);
	if (wait_event(cr2, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return -1;
	req = &ev.event_data.cr_arrival_event_data;
	if (req->sp_handle.psp_handle != psp2 || req->conn_qual != q2 ||
	    !req->cr_handle)
		return FAIL("request on the other PSP");
	if (dat_cr_query(req->cr_handle, DAT_CR_FIELD_ALL, &crp) ||
	    crp.private_data_size < 5 || memcmp(crp.private_data, "hello", 5))
		return FAIL("the request's private data");
	if (dat_cr_accept(req->cr_handle, s.ep, 0, NULL) != DAT_SUCCESS)
		return FAIL("accept");
	if (wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return -1;
	/* Both sides see the end: kdaplctl's counts are exact. */
	if (pair_disconnect(&s, &c, c.ep))
		return -1;
	return pair_close(&s, &c);
}

/* dat_ep_dup_connect(): a second connection to where the first goes. */
static int test_dup_connect(void)
{
	DAT_EP_HANDLE ep2, sep2;
	DAT_PSP_HANDLE psp;
	DAT_CR_PARAM crp;
	struct side s, c;
	DAT_EVENT ev;
	DAT_RETURN ret;

	if (pair_connect(&s, &c, 5353, &psp))
		return -1;
	if (dat_ep_create(c.ia, c.pz, c.dto, c.dto, c.conn, NULL, &ep2) ||
	    dat_ep_create(s.ia, s.pz, s.dto, s.dto, s.conn, NULL, &sep2))
		return FAIL("EPs");
	ret = dat_ep_dup_connect(ep2, sep2, 5000000, 0, NULL,
				 DAT_QOS_BEST_EFFORT);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP))
		return FAIL("EP of another IA: %#x", ret);
	ret = dat_ep_dup_connect(c.ep, ep2, 5000000, 0, NULL,
				 DAT_QOS_BEST_EFFORT);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("connected EP: %#x", ret);
	ret = dat_ep_dup_connect(ep2, c.ep, 5000000, 0, NULL,
				 (DAT_QOS)99);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6))
		return FAIL("bad QoS: %#x", ret);
	ret = dat_ep_dup_connect(ep2, c.ep, 0, 0, NULL, DAT_QOS_BEST_EFFORT);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("zero timeout: %#x", ret);
	ret = dat_ep_dup_connect(ep2, c.ep, 5000000, 3, "dup",
				 DAT_QOS_BEST_EFFORT);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_dup_connect: %#x", ret);
	if (wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return -1;
	if (ev.event_data.cr_arrival_event_data.conn_qual != 5353 ||
	    dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
			 DAT_CR_FIELD_ALL, &crp) ||
	    crp.private_data_size < 3 || memcmp(crp.private_data, "dup", 3))
		return FAIL("the duplicate's request");
	if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, sep2,
			  0, NULL))
		return FAIL("accept");
	if (wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    ev.event_data.connect_event_data.ep_handle != ep2 ||
	    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return FAIL("duplicate established");
	/* Both connections end on both sides: kdaplctl's counts are exact. */
	if (pair_disconnect(&s, &c, c.ep) || pair_disconnect(&s, &c, ep2))
		return -1;
	return pair_close(&s, &c);
}

/* A service point freed and made again on its qualifier takes requests. */
static int test_rsp(void)
{
	DAT_CR_ARRIVAL_EVENT_DATA *req;
	DAT_RSP_PARAM rp;
	DAT_CR_PARAM crp;
	DAT_RSP_HANDLE rsp;
	struct side s, c;
	DAT_EVENT ev;
	DAT_RETURN ret;

	if (side_open(&s) || side_open(&c))
		return -1;
	ret = dat_rsp_create(s.ia, 5252, s.ep, s.cr, &rsp);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_rsp_create: %#x", ret);
	ret = dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &rp);
	if (ret != DAT_SUCCESS || rp.ia_handle != s.ia ||
	    rp.conn_qual != 5252 || rp.evd_handle != s.cr ||
	    rp.ep_handle != s.ep)
		return FAIL("dat_rsp_query: %#x", ret);
	ret = dat_rsp_create(s.ia, 5253, c.ep, s.cr, &rsp);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP))
		return FAIL("RSP on another IA's EP: %#x", ret);
	ret = dat_ep_connect(c.ep, s.addr, 5252, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_connect: %#x", ret);
	if (wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return -1;
	req = &ev.event_data.cr_arrival_event_data;
	if (req->sp_handle.rsp_handle != rsp || req->conn_qual != 5252)
		return FAIL("request event");
	if (dat_cr_query(req->cr_handle, DAT_CR_FIELD_ALL, &crp) !=
	    DAT_SUCCESS || crp.local_ep_handle != s.ep)
		return FAIL("dat_cr_query: EP %p", crp.local_ep_handle);
	/* No EP: the RSP's. */
	ret = dat_cr_accept(req->cr_handle, DAT_HANDLE_NULL, 0, NULL);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cr_accept: %#x", ret);
	if (wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    ev.event_data.connect_event_data.ep_handle != s.ep)
		return FAIL("established");
	if (pair_disconnect(&s, &c, c.ep))
		return -1;
	if (dat_rsp_free(s.ep) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP))
		return FAIL("dat_rsp_free of an EP");
	ret = dat_rsp_free(rsp);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_rsp_free: %#x", ret);
	return pair_close(&s, &c);
}

static int test_psp_again(void)
{
	DAT_PSP_HANDLE psp;
	struct side s, c;
	DAT_EVENT ev;
	int round;

	if (side_open(&s))
		return -1;
	for (round = 0; round < 2; round++) {
		if (side_open(&c))
			return -1;
		if (dat_psp_create(s.ia, 5353, s.cr, DAT_PSP_CONSUMER_FLAG,
				   &psp) != DAT_SUCCESS)
			return FAIL("round %d: dat_psp_create", round);
		if (dat_ep_connect(c.ep, s.addr, 5353, 5000000, 0, NULL,
				   DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG) != DAT_SUCCESS)
			return FAIL("round %d: connect", round);
		if (wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT, &ev))
			return FAIL("round %d: no request", round);
		if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				  s.ep, 0, NULL) != DAT_SUCCESS)
			return FAIL("round %d: accept", round);
		if (wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
		    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
			return FAIL("round %d: established", round);
		if (dat_psp_free(psp) != DAT_SUCCESS)
			return FAIL("round %d: dat_psp_free", round);
		/* The server's EP is reset and used again, as dapltest's. */
		if (dat_ep_disconnect(s.ep, DAT_CLOSE_ABRUPT_FLAG) !=
		    DAT_SUCCESS ||
		    wait_event(s.conn, DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
			return FAIL("round %d: server disconnect", round);
		/*
		 * No private data, yet a pointer that may be read, as OFA's
		 * provider gives: dtestcm reads it for every event it waits
		 * for.
		 */
		if (ev.event_data.connect_event_data.private_data_size ||
		    !ev.event_data.connect_event_data.private_data)
			return FAIL("round %d: DISCONNECTED private data %d %p",
				    round,
				    ev.event_data.connect_event_data.private_data_size,
				    ev.event_data.connect_event_data.private_data);
		if (dat_ep_reset(s.ep) != DAT_SUCCESS)
			return FAIL("round %d: server EP reset", round);
		if (dat_ia_close(c.ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
			return FAIL("round %d: close", round);
	}
	return dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

#define BUF	65536

/* Send/receive, RDMA Write and Read, and a stream of writes. */
static int test_dto(void)
{
	char *sbuf = aligned_alloc(4096, BUF);
	char *cbuf = aligned_alloc(4096, BUF);
	DAT_LMR_CONTEXT sl, cl;
	DAT_RMR_CONTEXT sr, cr;
	DAT_LMR_HANDLE slmr, clmr;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rmr;
	DAT_DTO_COOKIE ck;
	DAT_PSP_HANDLE psp;
	DAT_RETURN ret;
	struct side s, c;
	int i, out, done;

	if (!sbuf || !cbuf)
		return FAIL("buffers");
	if (pair_connect(&s, &c, 5252, &psp) ||
	    make_lmr(&s, sbuf, BUF, &slmr, &sl, &sr) ||
	    make_lmr(&c, cbuf, BUF, &clmr, &cl, &cr))
		return -1;
	for (i = 0; i < BUF; i++)
		cbuf[i] = (char)(i * 13 + 5);
	iov = (DAT_LMR_TRIPLET){ .lmr_context = sl,
				 .virtual_address = (uintptr_t)sbuf,
				 .segment_length = 4096 };
	ck.as_64 = 0x51;
	if (dat_ep_post_recv(s.ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG) !=
	    DAT_SUCCESS)
		return FAIL("dat_ep_post_recv");
	iov = (DAT_LMR_TRIPLET){ .lmr_context = cl,
				 .virtual_address = (uintptr_t)cbuf,
				 .segment_length = 3000 };
	ck.as_64 = 0xc1;
	if (dat_ep_post_send(c.ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG) !=
	    DAT_SUCCESS)
		return FAIL("dat_ep_post_send");
	if (dto_done(&c, 0xc1, DAT_DTO_SEND, 3000) ||
	    dto_done(&s, 0x51, DAT_DTO_RECEIVE, 3000))
		return -1;
	if (memcmp(sbuf, cbuf, 3000))
		return FAIL("received data differs");

	/* A bad segment fails in the call. */
	iov.lmr_context = cl ^ 0x3c3c00;
	ret = dat_ep_post_send(c.ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (DAT_GET_TYPE(ret) != DAT_PROTECTION_VIOLATION)
		return FAIL("bad lmr_context: %#x", ret);
	ret = dat_ep_post_send(c.ep, -1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != (DAT_RETURN)(DAT_INVALID_PARAMETER | DAT_INVALID_ARG2 |
				DAT_CLASS_ERROR))
		return FAIL("negative count: %#x", ret);

	/* 400 RDMA Writes of 128 bytes, up to 16 outstanding. */
	memset(sbuf, 0, BUF);
	rmr.rmr_context = sr;
	rmr.segment_length = 128;
	iov.lmr_context = cl;
	iov.segment_length = 128;
	for (out = done = i = 0; done < 400;) {
		if (i < 400 && out < 16) {
			iov.virtual_address = (uintptr_t)cbuf + 128 * i;
			rmr.virtual_address = (uintptr_t)sbuf + 128 * i;
			ck.as_64 = 0x1000 + i;
			ret = dat_ep_post_rdma_write(c.ep, 1, &iov, ck, &rmr,
						     DAT_COMPLETION_DEFAULT_FLAG);
			if (ret != DAT_SUCCESS)
				return FAIL("write %d: %#x", i, ret);
			i++;
			out++;
			continue;
		}
		if (dto_done(&c, 0x1000 + done, DAT_DTO_RDMA_WRITE, 128))
			return FAIL("write %d", done);
		done++;
		out--;
	}
	if (memcmp(sbuf, cbuf, 128 * 400))
		return FAIL("written data differs");
	/* Read the server's first 4 KiB back into the client's last. */
	iov.virtual_address = (uintptr_t)cbuf + BUF - 4096;
	iov.segment_length = 4096;
	rmr.virtual_address = (uintptr_t)sbuf;
	rmr.segment_length = 4096;
	ck.as_64 = 0xead;
	if (dat_ep_post_rdma_read(c.ep, 1, &iov, ck, &rmr,
				  DAT_COMPLETION_DEFAULT_FLAG) != DAT_SUCCESS ||
	    dto_done(&c, 0xead, DAT_DTO_RDMA_READ, 4096))
		return FAIL("RDMA Read");
	if (memcmp(cbuf + BUF - 4096, sbuf, 4096))
		return FAIL("read data differs");
	/* Both sides hear the end before the IAs close (kdaplctl counts). */
	if (pair_disconnect(&s, &c, c.ep) || pair_close(&s, &c))
		return -1;
	free(sbuf);
	free(cbuf);
	return 0;
}

/* The provider's SRQ support and transport MTU, as OFA's tools read them. */
static int srq_provider_attr(DAT_IA_HANDLE ia)
{
	DAT_PROVIDER_ATTR pa;
	int i;

	if (dat_ia_query(ia, NULL, 0, NULL,
			 DAT_PROVIDER_FIELD_PROVIDER_SPECIFIC_ATTR |
			 DAT_PROVIDER_FIELD_SRQ_SUPPORTED, &pa) != DAT_SUCCESS)
		return FAIL("dat_ia_query");
	if (pa.srq_supported != DAT_TRUE)
		return FAIL("srq_supported %d", pa.srq_supported);
	for (i = 0; i < pa.num_provider_specific_attr; i++)
		if (!strcmp(pa.provider_specific_attr[i].name,
			    "DAT_IB_TRANSPORT_MTU"))
			break;
	/* The VMs' links have an MTU of 1500: the path MTU is 1024. */
	if (i == pa.num_provider_specific_attr ||
	    strcmp(pa.provider_specific_attr[i].value, "1024"))
		return FAIL("no DAT_IB_TRANSPORT_MTU of 1024");
	return 0;
}

/* Give the server side @s an SRQ and an EP that takes receives from it. */
static int srq_setup(struct side *s, DAT_SRQ_HANDLE *srq)
{
	DAT_SRQ_ATTR attr = { .max_recv_dtos = 8, .max_recv_iov = 2 };
	DAT_EP_PARAM epp;
	DAT_RETURN ret;
	DAT_COUNT n;

	ret = dat_srq_create(s->ia, s->pz, NULL, srq);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("srq_create without attributes: %#x", ret);
	ret = dat_srq_create(s->ia, s->pz, &attr, srq);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_srq_create: %#x", ret);
	ret = dat_ep_create_with_srq(s->ia, s->pz, s->dto, s->dto, s->conn,
				     s->pz, NULL, &s->ep);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ))
		return FAIL("ep_create_with_srq, a PZ for the SRQ: %#x", ret);
	/* kDAT's order: the EP pointer, then the PZ, the EVDs, the SRQ. */
	ret = dat_ep_create_with_srq(s->ia, *srq, s->dto, s->dto, s->conn,
				     s->pz, NULL, &s->ep);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ))
		return FAIL("ep_create_with_srq, PZ and SRQ swapped: %#x", ret);
	ret = dat_ep_create_with_srq(s->ia, *srq, s->dto, s->dto, s->conn,
				     s->pz, NULL, NULL);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8))
		return FAIL("ep_create_with_srq, no EP pointer: %#x", ret);
	if (dat_ep_free(s->ep) != DAT_SUCCESS ||
	    dat_ep_create_with_srq(s->ia, s->pz, s->dto, s->dto, s->conn,
				   *srq, NULL, &s->ep) != DAT_SUCCESS)
		return FAIL("dat_ep_create_with_srq");
	if (dat_ep_query(s->ep, DAT_EP_FIELD_ALL, &epp) != DAT_SUCCESS ||
	    epp.srq_handle != *srq)
		return FAIL("the EP's srq_handle");
	if (dat_ep_recv_query(s->ep, &n, &n) !=
	    ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE) ||
	    dat_ep_set_watermark(s->ep, 2, DAT_WATERMARK_INFINITE) !=
	    ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE) ||
	    dat_ep_set_watermark(s->ep, DAT_WATERMARK_INFINITE,
				 DAT_WATERMARK_INFINITE) != DAT_SUCCESS ||
	    dat_ep_set_watermark(s->ep, -5, 1) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("recv_query or set_watermark");
	ret = dat_srq_free(*srq);
	if (ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE))
		return FAIL("srq_free while an EP uses it: %#x", ret);
	return 0;
}

/* Post receives of 2048 bytes at @buf + 2048 * i, cookies 0x5a0 + i. */
static int srq_post(DAT_SRQ_HANDLE srq, DAT_LMR_CONTEXT lctx, char *buf,
		    int first, int n)
{
	DAT_LMR_TRIPLET iov[2];
	DAT_DTO_COOKIE ck;
	DAT_RETURN ret;
	int i;

	for (i = first; i < first + n; i++) {
		/* Two segments of 1024 bytes each. */
		iov[0] = (DAT_LMR_TRIPLET){ .lmr_context = lctx,
			.virtual_address = (uintptr_t)buf + 2048 * i,
			.segment_length = 1024 };
		iov[1] = iov[0];
		iov[1].virtual_address += 1024;
		ck.as_64 = 0x5a0 + i;
		ret = dat_srq_post_recv(srq, 2, iov, ck);
		if (ret != DAT_SUCCESS)
			return FAIL("dat_srq_post_recv %d: %#x", i, ret);
	}
	return 0;
}

/* The low watermark event of @srq is the next async event. */
static int srq_lw_event(struct side *s, DAT_SRQ_HANDLE srq)
{
	DAT_ASYNCH_ERROR_EVENT_DATA *a;
	DAT_EVENT ev;

	if (wait_event(s->async, DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, &ev))
		return -1;
	a = &ev.event_data.asynch_error_event_data;
	if (a->dat_handle != srq || a->reason != DAT_SRQ_LOW_WATERMARK_EVENT)
		return FAIL("low watermark event of %p, reason %d",
			    a->dat_handle, a->reason);
	return 0;
}

/*
 * An SRQ with fewer receives than its new low watermark says so at once,
 * and so does a new one created with a low watermark.
 */
static int srq_below_lw(struct side *s, DAT_SRQ_HANDLE srq)
{
	DAT_SRQ_ATTR attr = { .max_recv_dtos = 4, .max_recv_iov = 1,
			      .low_watermark = 1 };
	DAT_SRQ_HANDLE srq2;

	if (srq_lw_event(s, srq))
		return -1;
	if (dat_srq_create(s->ia, s->pz, &attr, &srq2) != DAT_SUCCESS ||
	    srq_lw_event(s, srq2) || dat_srq_free(srq2) != DAT_SUCCESS)
		return FAIL("an SRQ created with a low watermark");
	attr.low_watermark = 5;
	if (dat_srq_create(s->ia, s->pz, &attr, &srq2) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("a low watermark above the size");
	return 0;
}

/*
 * Once disconnected, the EP on the SRQ says it takes no more receives
 * (IB's Last WQE Reached, as OFA reports it); the EP without one is quiet.
 */
static int srq_last_wqe(struct side *s, struct side *c)
{
	DAT_ASYNCH_ERROR_EVENT_DATA *a;
	DAT_EVENT ev;

	if (wait_event(s->async, DAT_ASYNC_ERROR_EP_BROKEN, &ev))
		return -1;
	a = &ev.event_data.asynch_error_event_data;
	if (a->dat_handle != s->ep || a->reason != DAT_EP_TRANSFER_TO_ERROR)
		return FAIL("EP_BROKEN of %p, reason %d", a->dat_handle,
			    a->reason);
	if (DAT_GET_TYPE(dat_evd_dequeue(c->async, &ev)) != DAT_QUEUE_EMPTY)
		return FAIL("async event %#x without an SRQ", ev.event_number);
	return 0;
}

static int test_srq(void)
{
	char *sbuf = aligned_alloc(4096, BUF), *cbuf = aligned_alloc(4096, BUF);
	DAT_LMR_CONTEXT sl, cl;
	DAT_RMR_CONTEXT sr, cr;
	DAT_LMR_HANDLE slmr, clmr;
	DAT_LMR_TRIPLET iov, bad[3];
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	DAT_DTO_COOKIE ck = { .as_64 = 0xc5 };
	DAT_PSP_HANDLE psp;
	DAT_RETURN ret;
	struct side s, c;
	int i;

	if (!sbuf || !cbuf)
		return FAIL("buffers");
	memset(sbuf, 0, BUF);
	for (i = 0; i < BUF; i++)
		cbuf[i] = (char)(i * 7 + 3);
	if (side_open_dto(&s, 64) || side_open_dto(&c, 64) ||
	    srq_provider_attr(s.ia) || srq_setup(&s, &srq) ||
	    make_lmr(&s, sbuf, BUF, &slmr, &sl, &sr) ||
	    make_lmr(&c, cbuf, BUF, &clmr, &cl, &cr) ||
	    srq_post(srq, sl, sbuf, 0, 3))
		return -1;
	ret = dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p);
	if (ret != DAT_SUCCESS || p.max_recv_dtos < 8 || p.max_recv_iov < 2 ||
	    p.available_dto_count != 3 || p.pz_handle != s.pz ||
	    p.srq_state != DAT_SRQ_STATE_OPERATIONAL)
		return FAIL("dat_srq_query: %#x, %d receives", ret,
			    p.available_dto_count);
	bad[0] = (DAT_LMR_TRIPLET){ .lmr_context = sl ^ 0x5a5a00,
				    .virtual_address = (uintptr_t)sbuf,
				    .segment_length = 16 };
	ret = dat_srq_post_recv(srq, 1, bad, ck);
	if (DAT_GET_TYPE(ret) != DAT_PROTECTION_VIOLATION)
		return FAIL("srq_post_recv, bad lmr_context: %#x", ret);
	bad[0].lmr_context = sl;
	bad[1] = bad[0];
	bad[2] = bad[0];
	ret = dat_srq_post_recv(srq, 3, bad, ck);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("srq_post_recv, 3 segments of 2: %#x", ret);
	if (pair_link(&s, &c, 5959, &psp))
		return -1;
	/* Three sends land in the SRQ's receives, in order. */
	for (i = 0; i < 3; i++) {
		iov = (DAT_LMR_TRIPLET){ .lmr_context = cl,
			.virtual_address = (uintptr_t)cbuf + 2048 * i,
			.segment_length = 1500 + i };
		ck.as_64 = 0xc50 + i;
		if (dat_ep_post_send(c.ep, 1, &iov, ck,
				     DAT_COMPLETION_DEFAULT_FLAG) !=
		    DAT_SUCCESS || dto_done(&c, 0xc50 + i, DAT_DTO_SEND,
					    1500 + i) ||
		    dto_done(&s, 0x5a0 + i, DAT_DTO_RECEIVE, 1500 + i))
			return FAIL("send %d", i);
		if (memcmp(sbuf + 2048 * i, cbuf + 2048 * i, 1500 + i))
			return FAIL("received data %d differs", i);
	}
	ret = dat_srq_resize(srq, 16);
	if (ret != DAT_SUCCESS ||
	    dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p) != DAT_SUCCESS ||
	    p.max_recv_dtos < 16 || p.available_dto_count != 0)
		return FAIL("dat_srq_resize: %#x, %d", ret, p.max_recv_dtos);
	ret = dat_srq_set_lw(srq, 2);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_srq_set_lw: %#x", ret);
	if (srq_below_lw(&s, srq))
		return -1;
	if (pair_disconnect(&s, &c, c.ep) || srq_last_wqe(&s, &c))
		return -1;
	if (pair_close(&s, &c))
		return -1;
	free(sbuf);
	free(cbuf);
	return 0;
}

static int test_ep_modify(void)
{
	DAT_EVD_HANDLE dto2;
	DAT_PZ_HANDLE pz2;
	DAT_EP_PARAM p, q;
	struct side s;
	DAT_RETURN ret;

	if (side_open_dto(&s, 8))
		return -1;
	if (dat_pz_create(s.ia, &pz2) != DAT_SUCCESS ||
	    dat_evd_create(s.ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
			   &dto2) != DAT_SUCCESS)
		return FAIL("objects");
	if (dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &p) != DAT_SUCCESS)
		return FAIL("dat_ep_query");
	p.pz_handle = pz2;
	p.recv_evd_handle = dto2;
	p.ep_attr.max_recv_dtos = 16;
	p.ep_attr.max_rdma_read_in = 1;
	ret = dat_ep_modify(s.ep, DAT_EP_FIELD_PZ_HANDLE |
			    DAT_EP_FIELD_RECV_EVD_HANDLE |
			    DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
			    DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, &p);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_modify: %#x", ret);
	if (dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &q) != DAT_SUCCESS ||
	    q.pz_handle != pz2 || q.recv_evd_handle != dto2 ||
	    q.request_evd_handle != s.dto || q.ep_attr.max_recv_dtos < 16 ||
	    q.ep_attr.max_rdma_read_in != 1)
		return FAIL("modified: pz %p evd %p dtos %d in %d",
			    q.pz_handle, q.recv_evd_handle,
			    q.ep_attr.max_recv_dtos, q.ep_attr.max_rdma_read_in);
	/* Nothing asked, nothing changed. */
	if (dat_ep_modify(s.ep, 0, &p) != DAT_SUCCESS)
		return FAIL("empty mask");
	ret = dat_ep_modify(s.ep, DAT_EP_FIELD_EP_STATE, &p);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_PARAMETER)
		return FAIL("state is not modifiable: %#x", ret);
	ret = dat_ep_modify(s.ep, (DAT_EP_PARAM_MASK)1 << 40, &p);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("unknown field: %#x", ret);
	ret = dat_ep_modify(s.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, NULL);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("no parameters: %#x", ret);
	/* A connection EVD cannot take completions. */
	p.recv_evd_handle = s.conn;
	ret = dat_ep_modify(s.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &p);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_PARAMETER)
		return FAIL("CONNECTION EVD for receives: %#x", ret);
	p.ep_attr.max_recv_dtos = 1 << 30;
	ret = dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_PARAMETER)
		return FAIL("beyond the device: %#x", ret);
	ret = dat_ep_modify(DAT_HANDLE_NULL, DAT_EP_FIELD_PZ_HANDLE, &p);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_HANDLE)
		return FAIL("no EP: %#x", ret);
	if (dat_ep_free(s.ep) != DAT_SUCCESS)
		return FAIL("dat_ep_free");
	return dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

static int test_abrupt_close(void)
{
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	DAT_RETURN ret;

	if (open_ia(&ia, &async) || dat_pz_create(ia, &pz) != DAT_SUCCESS)
		return FAIL("set-up");
	ret = dat_ep_create(ia, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
			    DAT_HANDLE_NULL, NULL, &ep);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_create: %#x", ret);
	/* Resetting an unconnected EP does nothing, as DAT says. */
	ret = dat_ep_reset(ep);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_reset: %#x", ret);
	/* An abrupt close frees what the IA still has. */
	ret = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	return ret == DAT_SUCCESS ? 0 : FAIL("abrupt close: %#x", ret);
}

struct unwait_arg {
	DAT_EVD_HANDLE evd;
	DAT_RETURN ret;
	pid_t tid;
};

static void *unwait_waiter(void *p)
{
	struct unwait_arg *a = p;
	DAT_EVENT ev;
	DAT_COUNT n;

	__atomic_store_n(&a->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	/* 10 s: a waiter the change did not wake fails with a timeout. */
	a->ret = dat_evd_wait(a->evd, 10000000, 1, &ev, &n);
	return NULL;
}

/* The state of an EVD: enable/disable (its CNO), (un)waitable. */
static int test_evd_state(void)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };
	DAT_EVD_HANDLE async, evd, got;
	struct unwait_arg arg;
	DAT_EVD_PARAM param;
	DAT_CNO_HANDLE cno;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;
	pthread_t th;
	DAT_COUNT n;

	if (open_ia(&ia, &async) ||
	    dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno) ||
	    dat_evd_create(ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &evd))
		return FAIL("set-up");
	ret = dat_evd_query(evd, DAT_EVD_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS || param.evd_state !=
	    (DAT_EVD_STATE_ENABLED | DAT_EVD_STATE_WAITABLE))
		return FAIL("initial state: %#x %#x", ret, param.evd_state);

	/* Disabled, its events queue but leave the CNO alone. */
	if (dat_evd_disable(evd) != DAT_SUCCESS ||
	    dat_evd_disable(evd) != DAT_SUCCESS)
		return FAIL("dat_evd_disable");
	dat_evd_query(evd, DAT_EVD_FIELD_ALL, &param);
	if (param.evd_state != (DAT_EVD_STATE_DISABLED | DAT_EVD_STATE_WAITABLE))
		return FAIL("disabled state %#x", param.evd_state);
	if (dat_evd_post_se(evd, &ev) != DAT_SUCCESS)
		return FAIL("post_se");
	ret = dat_cno_wait(cno, 200000, &got);
	if (ret != ERR(DAT_QUEUE_EMPTY, 0))
		return FAIL("CNO of a disabled EVD: %#x", ret);
	if (dat_evd_dequeue(evd, &ev) != DAT_SUCCESS)
		return FAIL("dequeue from a disabled EVD");
	if (dat_evd_enable(evd) != DAT_SUCCESS)
		return FAIL("dat_evd_enable");
	dat_evd_post_se(evd, &ev);
	ret = dat_cno_wait(cno, 5000000, &got);
	if (ret != DAT_SUCCESS || got != evd)
		return FAIL("CNO of an enabled EVD: %#x", ret);
	dat_evd_dequeue(evd, &ev);

	/* Unwaitable: a blocked waiter wakes and fails, so do new ones. */
	arg.evd = evd;
	if (pthread_create(&th, NULL, unwait_waiter, &arg))
		return FAIL("pthread_create");
	usleep(200000);
	if (dat_evd_set_unwaitable(evd) != DAT_SUCCESS)
		return FAIL("dat_evd_set_unwaitable");
	pthread_join(th, NULL);
	if (arg.ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE))
		return FAIL("blocked waiter: %#x", arg.ret);
	dat_evd_post_se(evd, &ev);
	ret = dat_evd_wait(evd, 0, 1, &ev, &n);
	if (ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE))
		return FAIL("wait on an unwaitable EVD: %#x", ret);
	dat_evd_query(evd, DAT_EVD_FIELD_ALL, &param);
	if (param.evd_state != (DAT_EVD_STATE_ENABLED |
				DAT_EVD_STATE_UNWAITABLE))
		return FAIL("unwaitable state %#x", param.evd_state);
	if (dat_evd_clear_unwaitable(evd) != DAT_SUCCESS)
		return FAIL("dat_evd_clear_unwaitable");
	ret = dat_evd_wait(evd, 0, 1, &ev, &n);
	if (ret != DAT_SUCCESS || ev.event_number != DAT_SOFTWARE_EVENT)
		return FAIL("wait after clear: %#x", ret);
	if (dat_evd_enable(DAT_HANDLE_NULL) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST) ||
	    dat_evd_set_unwaitable(cno) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST))
		return FAIL("bad handles");
	if (dat_evd_free(evd) || dat_cno_free(cno))
		return FAIL("free");
	return dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/* Post software events with pointers @from.. @from + @n - 1. */
static int post_numbered(DAT_EVD_HANDLE evd, long from, int n)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };
	DAT_RETURN ret;
	int i;

	for (i = 0; i < n; i++) {
		ev.event_data.software_event_data.pointer = (void *)(from + i);
		ret = dat_evd_post_se(evd, &ev);
		if (ret != DAT_SUCCESS)
			return FAIL("dat_evd_post_se %d: %#x", i, ret);
	}
	return 0;
}

/* Dequeue @n software events, which must carry @from.. in order. */
static int take_numbered(DAT_EVD_HANDLE evd, long from, int n)
{
	DAT_RETURN ret;
	DAT_EVENT ev;
	int i;

	for (i = 0; i < n; i++) {
		ret = dat_evd_dequeue(evd, &ev);
		if (ret != DAT_SUCCESS || ev.event_number != DAT_SOFTWARE_EVENT ||
		    ev.event_data.software_event_data.pointer !=
		    (void *)(from + i))
			return FAIL("event %d: %#x", i, ret);
	}
	ret = dat_evd_dequeue(evd, &ev);
	return DAT_GET_TYPE(ret) == DAT_QUEUE_EMPTY ? 0 :
	       FAIL("more events than %d: %#x", n, ret);
}

/* Wait until the thread @tid sleeps (in the kernel); false after 5 s. */
static bool thread_sleeps(pid_t tid)
{
	char path[64], buf[256], *p;
	int i, fd, len;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (i = 0; i < 500; i++) {
		fd = open(path, O_RDONLY);
		len = fd < 0 ? -1 : (int)read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (len > 0) {
			buf[len] = 0;
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return true;
		}
		usleep(10000);
	}
	return false;
}

/* dat_evd_resize() of a software EVD: its events stay, in order. */
static int test_evd_resize_se(void)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };
	struct unwait_arg arg = { 0 };
	DAT_EVD_HANDLE async, evd;
	DAT_EVD_PARAM param;
	DAT_PZ_HANDLE pz;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;
	DAT_COUNT n;
	pthread_t th;

	if (open_ia(&ia, &async) || dat_pz_create(ia, &pz) ||
	    dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd))
		return FAIL("set-up");
	if (post_numbered(evd, 1, 3))
		return -1;
	ret = dat_evd_resize(evd, 2);
	if (ret != ERR(DAT_INVALID_STATE, 0))
		return FAIL("below the events queued: %#x", ret);
	ret = dat_evd_resize(evd, 0);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("qlen 0: %#x", ret);
	ret = dat_evd_resize(pz, 8);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST))
		return FAIL("a PZ handle: %#x", ret);
	ret = dat_evd_resize(evd, 100);
	if (ret != DAT_SUCCESS)
		return FAIL("grow: %#x", ret);
	if (dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &param) ||
	    param.evd_qlen != 100)
		return FAIL("qlen after the resize: %d", param.evd_qlen);
	/* The three events moved; the ring takes 100 now (4 before). */
	if (take_numbered(evd, 1, 3) || post_numbered(evd, 10, 100))
		return -1;
	ret = dat_evd_wait(evd, 0, 100, &ev, &n);
	if (ret != DAT_SUCCESS || n != 99 ||
	    ev.event_data.software_event_data.pointer != (void *)10L)
		return FAIL("wait for 100: %#x %d", ret, n);
	if (take_numbered(evd, 11, 99))
		return -1;

	/* Shrink with two events queued, then refill past the old head. */
	if (post_numbered(evd, 200, 2))
		return -1;
	ret = dat_evd_resize(evd, 3);
	if (ret != DAT_SUCCESS)
		return FAIL("shrink: %#x", ret);
	ret = dat_evd_wait(evd, 0, 4, &ev, &n);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("threshold above the new qlen: %#x", ret);
	if (post_numbered(evd, 202, 1) || take_numbered(evd, 200, 3) ||
	    post_numbered(evd, 300, 3) || take_numbered(evd, 300, 3))
		return -1;

	/* Not while a thread waits on it: the waiter is unaffected. */
	arg.evd = evd;
	if (pthread_create(&th, NULL, unwait_waiter, &arg))
		return FAIL("pthread_create");
	while (!__atomic_load_n(&arg.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (!thread_sleeps(arg.tid))
		return FAIL("the waiter does not sleep");
	ret = dat_evd_resize(evd, 64);
	post_numbered(evd, 400, 1);
	pthread_join(th, NULL);
	if (ret != ERR(DAT_INVALID_STATE, 0))
		return FAIL("with a waiter: %#x", ret);
	if (arg.ret != DAT_SUCCESS)
		return FAIL("the waiter: %#x", arg.ret);
	if (dat_evd_free(evd) != DAT_SUCCESS || dat_pz_free(pz) != DAT_SUCCESS)
		return FAIL("free");
	return dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/*
 * A connection request waiting in a resized EVD keeps its private data
 * (the ring's extensions move too), and a DTO EVD resized while
 * connected completes RDMA Writes into its new ring.
 */
static int test_evd_resize_conn(void)
{
	char *sbuf = aligned_alloc(4096, BUF);
	char *cbuf = aligned_alloc(4096, BUF);
	DAT_CR_ARRIVAL_EVENT_DATA *req;
	DAT_EVD_HANDLE cr_evd, got;
	DAT_LMR_HANDLE slmr, clmr;
	DAT_LMR_CONTEXT sl, cl;
	DAT_RMR_CONTEXT sr, cr;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rmr;
	DAT_DTO_COOKIE ck;
	DAT_PSP_HANDLE psp;
	DAT_CNO_HANDLE cno;
	DAT_CR_PARAM crp;
	struct side s, c;
	DAT_RETURN ret;
	DAT_EVENT ev;
	int i;

	if (!sbuf || !cbuf || side_open_dto(&s, 64) || side_open_dto(&c, 64))
		return FAIL("set-up");
	/* The CNO says the request is in the ring, which keeps it. */
	if (dat_cno_create(s.ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno) ||
	    dat_evd_create(s.ia, 2, cno, DAT_EVD_CR_FLAG, &cr_evd) ||
	    dat_psp_create(s.ia, 5353, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp))
		return FAIL("PSP");
	ret = dat_ep_connect(c.ep, s.addr, 5353, 5000000, 7, "resized",
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_connect: %#x", ret);
	ret = dat_cno_wait(cno, 5000000, &got);
	if (ret != DAT_SUCCESS || got != cr_evd)
		return FAIL("CNO: %#x", ret);
	ret = dat_evd_resize(cr_evd, 300);
	if (ret != DAT_SUCCESS)
		return FAIL("resize with a request queued: %#x", ret);
	if (wait_event(cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return -1;
	req = &ev.event_data.cr_arrival_event_data;
	if (req->sp_handle.psp_handle != psp || req->conn_qual != 5353 ||
	    dat_cr_query(req->cr_handle, DAT_CR_FIELD_ALL, &crp) ||
	    crp.private_data_size < 7 || memcmp(crp.private_data, "resized", 7))
		return FAIL("request after the resize");
	if (dat_cr_accept(req->cr_handle, s.ep, 0, NULL) ||
	    wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return FAIL("accept");

	/* Connected: shrink, then grow, the client's DTO EVD. */
	if (dat_evd_resize(c.dto, 8) || dat_evd_resize(c.dto, 256))
		return FAIL("DTO EVD resize");
	if (make_lmr(&s, sbuf, BUF, &slmr, &sl, &sr) ||
	    make_lmr(&c, cbuf, BUF, &clmr, &cl, &cr))
		return -1;
	memset(sbuf, 0, BUF);
	for (i = 0; i < BUF; i++)
		cbuf[i] = (char)(i * 7 + 3);
	rmr.rmr_context = sr;
	rmr.segment_length = 1024;
	iov.lmr_context = cl;
	iov.segment_length = 1024;
	/* 16 outstanding: more than the 8 slots of the shrunk ring. */
	for (i = 0; i < 16; i++) {
		iov.virtual_address = (uintptr_t)cbuf + 1024 * i;
		rmr.virtual_address = (uintptr_t)sbuf + 1024 * i;
		ck.as_64 = 0x2000 + i;
		ret = dat_ep_post_rdma_write(c.ep, 1, &iov, ck, &rmr,
					     DAT_COMPLETION_DEFAULT_FLAG);
		if (ret != DAT_SUCCESS)
			return FAIL("write %d: %#x", i, ret);
	}
	for (i = 0; i < 16; i++)
		if (dto_done(&c, 0x2000 + i, DAT_DTO_RDMA_WRITE, 1024))
			return FAIL("write %d", i);
	if (memcmp(sbuf, cbuf, 16 * 1024))
		return FAIL("written data differs");
	if (pair_disconnect(&s, &c, c.ep) || dat_lmr_free(slmr) ||
	    dat_lmr_free(clmr) || dat_ep_free(c.ep) || dat_ep_free(s.ep) ||
	    dat_psp_free(psp) || dat_evd_free(cr_evd) || dat_cno_free(cno))
		return FAIL("free");
	free(sbuf);
	free(cbuf);
	return pair_close(&s, &c);
}

#define BURST_EPS	32

/*
 * Reject the requests @mixed delivers and count the answers @conn gets,
 * for up to 10 s; -1 once an answer is not a reject.
 */
static int burst_answers(DAT_EVD_HANDLE mixed, DAT_EVD_HANDLE conn, int n)
{
	int answered = 0, i;
	DAT_EVENT ev;

	for (i = 0; i < 1000 && answered < n; i++) {
		while (dat_evd_dequeue(mixed, &ev) == DAT_SUCCESS)
			if (ev.event_number == DAT_CONNECTION_REQUEST_EVENT)
				dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle,
					      0, NULL);
		while (dat_evd_dequeue(conn, &ev) == DAT_SUCCESS) {
			if (ev.event_number !=
			    DAT_CONNECTION_EVENT_PEER_REJECTED &&
			    ev.event_number !=
			    DAT_CONNECTION_EVENT_NON_PEER_REJECTED) {
				FAIL("client event %#x", ev.event_number);
				return -1;
			}
			answered++;
		}
		usleep(10000);
	}
	return answered;
}

/*
 * A burst of connection requests to a PSP whose EVD also takes
 * completions and holds one event: each request is delivered or
 * rejected, none is left unanswered.  The EVD's sink parks requests for
 * a work item, which delivers those that fit and rejects the others;
 * requests that come faster than the work runs overflow the parking
 * queue and must be rejected too.
 */
static int test_cr_burst(void)
{
	DAT_EP_HANDLE ep[BURST_EPS];
	DAT_EVD_HANDLE mixed, conn;
	DAT_PSP_HANDLE psp;
	DAT_IA_ATTR attr;
	struct side s, c;
	int i, answered;
	DAT_RETURN ret;

	if (open_ia(&s.ia, &s.async) || open_ia(&c.ia, &c.async) ||
	    dat_pz_create(c.ia, &c.pz))
		return FAIL("set-up");
	if (dat_ia_query(s.ia, NULL, DAT_IA_FIELD_ALL, &attr, 0, NULL) !=
	    DAT_SUCCESS)
		return FAIL("query");
	s.addr = attr.ia_address_ptr;
	if (dat_evd_create(s.ia, 1, DAT_HANDLE_NULL,
			   DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG, &mixed) ||
	    dat_evd_create(c.ia, 2 * BURST_EPS, DAT_HANDLE_NULL,
			   DAT_EVD_CONNECTION_FLAG, &conn) ||
	    dat_psp_create(s.ia, 5454, mixed, DAT_PSP_CONSUMER_FLAG, &psp))
		return FAIL("objects");
	for (i = 0; i < BURST_EPS; i++)
		if (dat_ep_create(c.ia, c.pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				  conn, NULL, &ep[i]))
			return FAIL("EP %d", i);
	for (i = 0; i < BURST_EPS; i++) {
		ret = dat_ep_connect(ep[i], s.addr, 5454, 20000000, 0, NULL,
				     DAT_QOS_BEST_EFFORT,
				     DAT_CONNECT_DEFAULT_FLAG);
		if (ret != DAT_SUCCESS)
			return FAIL("connect %d: %#x", i, ret);
	}
	/* The server rejects what it is given; the kernel the rest. */
	answered = burst_answers(mixed, conn, BURST_EPS);
	if (answered != BURST_EPS)
		return FAIL("%d of %d requests answered", answered, BURST_EPS);
	for (i = 0; i < BURST_EPS; i++)
		if (dat_ep_free(ep[i]))
			return FAIL("free EP %d", i);
	if (dat_psp_free(psp) || dat_evd_free(mixed) || dat_evd_free(conn) ||
	    dat_pz_free(c.pz))
		return FAIL("free");
	if (dat_ia_close(c.ia, DAT_CLOSE_GRACEFUL_FLAG) ||
	    dat_ia_close(s.ia, DAT_CLOSE_GRACEFUL_FLAG))
		return FAIL("close");
	return 0;
}

/* dat_evd_modify_cno(): the EVD's events go to the new CNO only. */
static int test_evd_cno(void)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };
	DAT_EVD_HANDLE async, async2, evd, got;
	DAT_CNO_HANDLE a, b, other;
	DAT_EVD_PARAM param;
	DAT_IA_HANDLE ia, ia2;
	DAT_RETURN ret;

	if (open_ia(&ia, &async) || open_ia(&ia2, &async2) ||
	    dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &a) ||
	    dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &b) ||
	    dat_cno_create(ia2, DAT_OS_WAIT_PROXY_AGENT_NULL, &other) ||
	    dat_evd_create(ia, 4, a, DAT_EVD_SOFTWARE_FLAG, &evd))
		return FAIL("set-up");
	ret = dat_evd_modify_cno(evd, other);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO))
		return FAIL("CNO of another IA: %#x", ret);
	ret = dat_evd_modify_cno(evd, evd);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO))
		return FAIL("not a CNO: %#x", ret);
	if (dat_evd_modify_cno(evd, b) != DAT_SUCCESS)
		return FAIL("dat_evd_modify_cno");
	if (dat_evd_query(evd, DAT_EVD_FIELD_ALL, &param) ||
	    param.cno_handle != b)
		return FAIL("query after the change");
	/* A, left without EVDs, was triggered with none. */
	got = evd;
	ret = dat_cno_wait(a, 0, &got);
	if (ret != DAT_SUCCESS || got != DAT_HANDLE_NULL)
		return FAIL("old CNO: %#x %p", ret, got);
	dat_evd_post_se(evd, &ev);
	ret = dat_cno_wait(b, 5000000, &got);
	if (ret != DAT_SUCCESS || got != evd)
		return FAIL("new CNO: %#x %p", ret, got);
	ret = dat_cno_wait(a, 100000, &got);
	if (ret != ERR(DAT_QUEUE_EMPTY, 0))
		return FAIL("old CNO triggered again: %#x", ret);
	if (dat_cno_free(a) != DAT_SUCCESS)
		return FAIL("the old CNO is free to go");
	/* No CNO at all. */
	if (dat_evd_modify_cno(evd, DAT_HANDLE_NULL) != DAT_SUCCESS)
		return FAIL("no CNO");
	dat_cno_wait(b, 0, &got);
	dat_evd_post_se(evd, &ev);
	ret = dat_cno_wait(b, 100000, &got);
	if (ret != ERR(DAT_QUEUE_EMPTY, 0))
		return FAIL("CNO after removal: %#x", ret);
	if (dat_evd_free(evd) || dat_cno_free(b) || dat_cno_free(other))
		return FAIL("free");
	if (dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) ||
	    dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG))
		return FAIL("close");
	return 0;
}

/* dat_psp_create_any(): a free qualifier, reported and held. */
static int test_psp_any(void)
{
	DAT_PSP_HANDLE psp, psp2, psp3;
	DAT_CONN_QUAL q = 0, q2 = 0;
	DAT_EVD_HANDLE async, cr;
	DAT_PSP_PARAM param;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	if (open_ia(&ia, &async) ||
	    dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr))
		return FAIL("set-up");
	ret = dat_psp_create_any(ia, &q, cr, DAT_PSP_CONSUMER_FLAG, &psp);
	if (ret != DAT_SUCCESS || !q)
		return FAIL("dat_psp_create_any: %#x %llu", ret,
			    (unsigned long long)q);
	ret = dat_psp_create_any(ia, &q2, cr, DAT_PSP_CONSUMER_FLAG, &psp2);
	if (ret != DAT_SUCCESS || !q2 || q2 == q)
		return FAIL("second: %#x %llu", ret, (unsigned long long)q2);
	ret = dat_psp_query(psp, DAT_PSP_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS || param.conn_qual != q)
		return FAIL("dat_psp_query: %#x", ret);
	ret = dat_psp_create(ia, q, cr, DAT_PSP_CONSUMER_FLAG, &psp3);
	if (DAT_GET_TYPE(ret) != DAT_CONN_QUAL_IN_USE)
		return FAIL("its qualifier is taken: %#x", ret);
	ret = dat_psp_create_any(ia, NULL, cr, DAT_PSP_CONSUMER_FLAG, &psp3);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("NULL qualifier: %#x", ret);
	ret = dat_psp_create_any(ia, &q, async, DAT_PSP_CONSUMER_FLAG, &psp3);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR))
		return FAIL("not a CR EVD: %#x", ret);
	if (dat_psp_free(psp) || dat_psp_free(psp2) || dat_evd_free(cr))
		return FAIL("free");
	return dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/* dat_lmr_sync_rdma_read/write(): ranges of the IA's LMRs only. */
static int test_lmr_sync(void)
{
	static char buf[3 * 4096];
	DAT_LMR_TRIPLET seg[2];
	DAT_REGION_DESCRIPTION region = { .for_va = buf + 4096 };
	DAT_EVD_HANDLE async, async2;
	DAT_IA_HANDLE ia, ia2;
	DAT_LMR_CONTEXT lctx;
	DAT_LMR_HANDLE lmr;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;

	if (open_ia(&ia, &async) || open_ia(&ia2, &async2) ||
	    dat_pz_create(ia, &pz) ||
	    dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, 4096, pz,
			   DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &lctx,
			   NULL, NULL, NULL))
		return FAIL("set-up");
	seg[0].lmr_context = lctx;
	seg[0].virtual_address = (DAT_VADDR)(buf + 4096);
	seg[0].segment_length = 4096;
	seg[1].lmr_context = lctx;
	seg[1].virtual_address = (DAT_VADDR)(buf + 5000);
	seg[1].segment_length = 100;
	if (dat_lmr_sync_rdma_read(ia, seg, 2) != DAT_SUCCESS ||
	    dat_lmr_sync_rdma_write(ia, seg, 2) != DAT_SUCCESS ||
	    dat_lmr_sync_rdma_read(ia, NULL, 0) != DAT_SUCCESS)
		return FAIL("valid ranges");
	/* One byte past the LMR. */
	seg[1].segment_length = 4096 - 904 + 1;
	ret = dat_lmr_sync_rdma_read(ia, seg, 2);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("past the end: %#x", ret);
	seg[1].segment_length = 0;
	seg[1].lmr_context = lctx + 1;
	if (dat_lmr_sync_rdma_write(ia, seg, 2) != DAT_SUCCESS)
		return FAIL("an empty segment is skipped");
	seg[1].segment_length = 1;
	ret = dat_lmr_sync_rdma_write(ia, seg, 2);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("unknown lmr_context: %#x", ret);
	/* Another IA of the process does not have the LMR. */
	ret = dat_lmr_sync_rdma_read(ia2, seg, 1);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("LMR of another IA: %#x", ret);
	ret = dat_lmr_sync_rdma_read(ia, NULL, 1);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("NULL segments: %#x", ret);
	ret = dat_lmr_sync_rdma_read(ia, (DAT_LMR_TRIPLET *)8, 2);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("unmapped segments: %#x", ret);
	ret = dat_lmr_sync_rdma_read(ia, seg, 65537);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("too many segments: %#x", ret);
	if (dat_lmr_free(lmr) || dat_pz_free(pz))
		return FAIL("free");
	ret = dat_lmr_sync_rdma_read(ia, seg, 1);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("freed LMR: %#x", ret);
	if (dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) ||
	    dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG))
		return FAIL("close");
	return 0;
}

/*
 * Threads of one process create and free objects of one IA at once, as
 * dapltest's do: the shim's list of the IA's objects must stay whole, so
 * that an abrupt close kills every handle still held.
 */
#define THREADS_N	4
#define THREADS_ITER	3000
#define THREADS_KEEP	50

struct threads_arg {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE kept[THREADS_ITER / THREADS_KEEP];
	DAT_RETURN ret;
};

static void *threads_worker(void *p)
{
	struct threads_arg *a = p;
	DAT_PZ_HANDLE pz;
	int i;

	for (i = 0; i < THREADS_ITER; i++) {
		a->ret = dat_pz_create(a->ia, &pz);
		if (a->ret != DAT_SUCCESS)
			break;
		if (i % THREADS_KEEP == 0) {
			a->kept[i / THREADS_KEEP] = pz;
			continue;
		}
		a->ret = dat_pz_free(pz);
		if (a->ret != DAT_SUCCESS)
			break;
	}
	return NULL;
}

/*
 * dat_ep_common_connect(), which Debian's libdat2 does not export either:
 * through the provider table.  EP handles are the provider's own.
 */
static DAT_RETURN common_connect(DAT_EP_HANDLE ep, struct sockaddr_in *to,
				 DAT_COUNT size, const char *pd)
{
	return DAT_EP_COMMON_CONNECT(ep, (DAT_IA_ADDRESS_PTR)to, 5000000, size,
				     (DAT_PVOID)pd);
}

/* dat_ep_common_connect(): the port of the address is the qualifier. */
static int test_common_connect(void)
{
	struct sockaddr_in to;
	DAT_PSP_HANDLE psp;
	DAT_EP_PARAM epp;
	struct side s, c;
	DAT_EVENT ev;
	DAT_RETURN ret;

	if (side_open(&s) || side_open(&c))
		return -1;
	if (dat_psp_create(s.ia, 5858, s.cr, DAT_PSP_CONSUMER_FLAG, &psp) !=
	    DAT_SUCCESS)
		return FAIL("dat_psp_create");
	memcpy(&to, s.addr, sizeof(to));
	to.sin_port = 0;
	ret = common_connect(c.ep, &to, 0, NULL);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_ADDRESS)
		return FAIL("port 0: %#x", ret);
	ret = common_connect(c.ep, NULL, 0, NULL);
	if (ret != (DAT_RETURN)(DAT_INVALID_PARAMETER | DAT_INVALID_ARG2 |
				DAT_CLASS_ERROR))
		return FAIL("no address: %#x", ret);
	ret = common_connect(c.ep, &to, 4, NULL);
	if (ret != (DAT_RETURN)(DAT_INVALID_PARAMETER | DAT_INVALID_ARG5 |
				DAT_CLASS_ERROR))
		return FAIL("no private data: %#x", ret);
	to.sin_port = htons(5858);
	ret = common_connect(c.ep, &to, 3, "abc");
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_common_connect: %#x", ret);
	if (wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT, &ev) ||
	    ev.event_data.cr_arrival_event_data.conn_qual != 5858 ||
	    ev.event_data.cr_arrival_event_data.sp_handle.psp_handle != psp)
		return FAIL("request");
	if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, s.ep,
			  0, NULL) != DAT_SUCCESS ||
	    wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return FAIL("accept");
	if (dat_ep_query(c.ep, DAT_EP_FIELD_ALL, &epp) != DAT_SUCCESS ||
	    epp.remote_port_qual != 5858)
		return FAIL("remote_port_qual %llu",
			    (unsigned long long)epp.remote_port_qual);
	if (pair_disconnect(&s, &c, c.ep) || dat_psp_free(psp) != DAT_SUCCESS)
		return FAIL("end");
	return pair_close(&s, &c);
}

/*
 * A CSP, the passive side of dat_ep_common_connect(): the request comes
 * with the CSP as service point and the port as qualifier.  Debian's
 * libdat2 exports no dat_csp_*(): through the provider table.
 */
static int test_csp(void)
{
	DAT_COMM comm = { AF_INET, SOCK_STREAM, 0 };
	DAT_CR_ARRIVAL_EVENT_DATA *d;
	struct sockaddr_in to;
	DAT_CSP_HANDLE csp;
	DAT_CSP_PARAM p;
	DAT_IA_HANDLE pia;
	struct side s, c;
	DAT_EVENT ev;
	DAT_RETURN ret;

	if (side_open(&s) || side_open(&c) ||
	    dats_get_ia_handle(s.ia, &pia) != DAT_SUCCESS)
		return -1;
	memcpy(&to, s.addr, sizeof(to));
	to.sin_port = htons(5960);
	ret = DAT_CSP_CREATE(pia, NULL, (DAT_IA_ADDRESS_PTR)&to, s.cr, &csp);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("no communicator: %#x", ret);
	comm.type = SOCK_DGRAM;
	ret = DAT_CSP_CREATE(pia, &comm, (DAT_IA_ADDRESS_PTR)&to, s.cr, &csp);
	if (ret != ERR(DAT_COMM_NOT_SUPPORTED, 0))
		return FAIL("datagram communicator: %#x", ret);
	comm.type = SOCK_STREAM;
	ret = DAT_CSP_CREATE(pia, &comm, (DAT_IA_ADDRESS_PTR)&to, s.conn,
			     &csp);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR))
		return FAIL("an EVD without requests: %#x", ret);
	ret = DAT_CSP_CREATE(pia, &comm, (DAT_IA_ADDRESS_PTR)&to, s.cr, &csp);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_csp_create: %#x", ret);
	if (DAT_CSP_QUERY(csp, DAT_CSP_FIELD_ALL, &p) != DAT_SUCCESS ||
	    p.ia_handle != s.ia || p.evd_handle != s.cr ||
	    p.comm->type != SOCK_STREAM ||
	    memcmp(p.address_ptr, &to, sizeof(to)))
		return FAIL("dat_csp_query");
	if (common_connect(c.ep, &to, 3, "csp") != DAT_SUCCESS ||
	    wait_event(s.cr, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return FAIL("request");
	d = &ev.event_data.cr_arrival_event_data;
	if (d->sp_handle.csp_handle != csp || d->conn_qual != 5960)
		return FAIL("request on %p, qualifier %llu", d->sp_handle.csp_handle,
			    (unsigned long long)d->conn_qual);
	if (dat_cr_accept(d->cr_handle, s.ep, 0, NULL) != DAT_SUCCESS ||
	    wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return FAIL("accept");
	if (pair_disconnect(&s, &c, c.ep) || DAT_CSP_FREE(csp) != DAT_SUCCESS)
		return FAIL("end");
	return pair_close(&s, &c);
}

/*
 * One EVD for a server's requests and its EP's completions, as dapltest
 * -T L creates them: a request arrives there, the receive completes
 * there, and a second request, while the connection is up, is rejected.
 */
static int test_evd_mixed(void)
{
	char *sbuf = aligned_alloc(4096, 4096);
	char *cbuf = aligned_alloc(4096, 4096);
	DAT_CR_ARRIVAL_EVENT_DATA *req;
	DAT_LMR_CONTEXT sl, cl, rctx;
	DAT_LMR_HANDLE slmr, clmr;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COOKIE ck;
	DAT_PSP_HANDLE psp;
	DAT_EVD_HANDLE m;
	DAT_EP_HANDLE ep;
	struct side s, c, c2;
	DAT_EVENT ev;
	DAT_RETURN ret;

	if (!sbuf || !cbuf)
		return FAIL("buffers");
	if (side_open(&s) || side_open_dto(&c, 16) || side_open(&c2))
		return -1;
	ret = dat_evd_create(s.ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG |
			     DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG, &m);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_create CR|DTO: %#x", ret);
	if (dat_ep_create(s.ia, s.pz, m, m, s.conn, NULL, &ep) != DAT_SUCCESS ||
	    dat_psp_create(s.ia, 5757, m, DAT_PSP_CONSUMER_FLAG, &psp) !=
	    DAT_SUCCESS || make_lmr(&s, sbuf, 4096, &slmr, &sl, &rctx) ||
	    make_lmr(&c, cbuf, 4096, &clmr, &cl, &rctx))
		return FAIL("objects");
	iov = (DAT_LMR_TRIPLET){ .lmr_context = sl,
				 .virtual_address = (uintptr_t)sbuf,
				 .segment_length = 4096 };
	ck.as_64 = 0x61;
	if (dat_ep_post_recv(ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG) !=
	    DAT_SUCCESS)
		return FAIL("dat_ep_post_recv");
	if (dat_ep_connect(c.ep, s.addr, 5757, 5000000, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG) !=
	    DAT_SUCCESS || wait_event(m, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return FAIL("request");
	req = &ev.event_data.cr_arrival_event_data;
	if (req->sp_handle.psp_handle != psp || req->conn_qual != 5757)
		return FAIL("request event");
	if (dat_cr_accept(req->cr_handle, ep, 0, NULL) != DAT_SUCCESS ||
	    wait_event(c.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return FAIL("accept");
	memset(cbuf, 0x5a, 100);
	iov = (DAT_LMR_TRIPLET){ .lmr_context = cl,
				 .virtual_address = (uintptr_t)cbuf,
				 .segment_length = 100 };
	ck.as_64 = 0xc6;
	if (dat_ep_post_send(c.ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG) !=
	    DAT_SUCCESS || dto_done(&c, 0xc6, DAT_DTO_SEND, 100))
		return FAIL("send");
	if (wait_event(m, DAT_DTO_COMPLETION_EVENT, &ev) ||
	    ev.event_data.dto_completion_event_data.ep_handle != ep ||
	    ev.event_data.dto_completion_event_data.user_cookie.as_64 != 0x61 ||
	    ev.event_data.dto_completion_event_data.transfered_length != 100 ||
	    memcmp(sbuf, cbuf, 100))
		return FAIL("receive");
	/* A request to the PSP while its EVD has a connection's completions. */
	if (dat_ep_connect(c2.ep, s.addr, 5757, 5000000, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG) !=
	    DAT_SUCCESS || wait_event(m, DAT_CONNECTION_REQUEST_EVENT, &ev) ||
	    dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, 0,
			  NULL) != DAT_SUCCESS ||
	    wait_event(c2.conn, DAT_CONNECTION_EVENT_PEER_REJECTED, &ev))
		return FAIL("second request");
	if (dat_evd_dequeue(m, &ev) != DAT_QUEUE_EMPTY)
		return FAIL("event %#x left", ev.event_number);
	if (pair_disconnect(&s, &c, c.ep))
		return -1;
	if (dat_ep_free(ep) != DAT_SUCCESS || dat_psp_free(psp) !=
	    DAT_SUCCESS || dat_lmr_free(slmr) != DAT_SUCCESS ||
	    dat_evd_free(m) != DAT_SUCCESS)
		return FAIL("free");
	if (dat_ia_close(c2.ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
		return FAIL("close");
	free(sbuf);
	free(cbuf);
	return pair_close(&s, &c);
}

static int test_threads(void)
{
	struct threads_arg arg[THREADS_N] = {};
	DAT_EVD_HANDLE async, async2;
	pthread_t th[THREADS_N];
	DAT_IA_HANDLE ia, ia2;
	DAT_HANDLE_TYPE type;
	int i, k, live = 0;
	DAT_RETURN ret;

	/* A second IA keeps the library loaded after the first closes. */
	if (open_ia(&ia, &async) || open_ia(&ia2, &async2))
		return -1;
	for (i = 0; i < THREADS_N; i++) {
		arg[i].ia = ia;
		if (pthread_create(&th[i], NULL, threads_worker, &arg[i]))
			return FAIL("pthread_create");
	}
	for (i = 0; i < THREADS_N; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < THREADS_N; i++)
		if (arg[i].ret != DAT_SUCCESS)
			return FAIL("thread %d: %#x", i, arg[i].ret);
	ret = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("abrupt close: %#x", ret);
	for (i = 0; i < THREADS_N; i++)
		for (k = 0; k < THREADS_ITER / THREADS_KEEP; k++)
			if (dat_get_handle_type(arg[i].kept[k], &type) !=
			    (DAT_RETURN)(DAT_CLASS_ERROR | DAT_INVALID_HANDLE))
				live++;
	if (live)
		return FAIL("%d of %d PZ handles live after the close", live,
			    THREADS_N * THREADS_ITER / THREADS_KEEP);
	return dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: shim_test IA_NAME [SKIPPED_CASE]\n");
		return 2;
	}
	ia_name = argv[1];
	tap_skip = argc == 3 ? argv[2] : NULL;
	printf("TAP version 13\n1..26\n");
	tap_run("open_close", test_open_close);
	tap_run("pz", test_pz);
	tap_run("evd", test_evd);
	tap_run("cno", test_cno);
	tap_run("lmr", test_lmr);
	tap_run("connect", test_connect);
	tap_run("psp_again", test_psp_again);
	tap_run("rsp", test_rsp);
	tap_run("dto", test_dto);
	tap_run("ep_modify", test_ep_modify);
	tap_run("abrupt_close", test_abrupt_close);
	tap_run("threads", test_threads);
	tap_run("evd_state", test_evd_state);
	tap_run("evd_cno", test_evd_cno);
	tap_run("psp_any", test_psp_any);
	tap_run("lmr_sync", test_lmr_sync);
	tap_run("cr_handoff", test_cr_handoff);
	tap_run("dup_connect", test_dup_connect);
	tap_run("evd_mixed", test_evd_mixed);
	tap_run("common_connect", test_common_connect);
	tap_run("ha_related", test_ha_related);
	tap_run("srq", test_srq);
	tap_run("csp", test_csp);
	tap_run("evd_resize_se", test_evd_resize_se);
	tap_run("evd_resize_conn", test_evd_resize_conn);
	tap_run("cr_burst", test_cr_burst);
	return tap_done("shim_test");
}
