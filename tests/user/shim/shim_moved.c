// SPDX-License-Identifier: GPL-2.0
/*
 * shim_moved: the address of an open IA moves to another RDMA device.
 *
 *   DAT_OVERRIDE=dat.conf shim_moved IA_NAME GO_FILE
 *
 * Two IAs of one process on IA_NAME: a datagram EP of one resolves a
 * datagram EP of the other through a PSP, so that its queue pair is up.
 * The program prints "READY" and waits until GO_FILE exists; meanwhile
 * the caller (tests/vm/cases/moved.sh) moves the IA's address to the
 * network device of another RDMA device.  From then on nothing the IA
 * creates may bind to that device, whose removal would otherwise wait
 * for this program: a second datagram connect, the first of a new
 * datagram EP and an RC connect fail with
 * DAT_INVALID_ADDRESS_UNSUPPORTED and leave their EPs as they were, a
 * PSP and an RSP fail with DAT_INVALID_STATE.  It prints "CHECKED" and
 * keeps everything open until GO_FILE is gone (the caller removes the
 * other device meanwhile), then every free must succeed.
 * TAP output; the exit status is 0 only if every case passed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#include "tap.h"
#include "side.h"

#define QUAL		47480
#define UNSUPPORTED	ERR(DAT_INVALID_ADDRESS, \
			    DAT_INVALID_ADDRESS_UNSUPPORTED)
#define BAD_STATE	ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE)
#define EV_REQUEST	((DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_REQUEST_EVENT)
#define EV_ESTABLISHED \
	((DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED)

static const char *go_file;
static struct side s, c;
static DAT_EP_HANDLE sud, cud;
static DAT_PSP_HANDLE psp;

/* Nothing arrives on @evd within half a second. */
static int evd_quiet(DAT_EVD_HANDLE evd)
{
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN ret = dat_evd_wait(evd, 500000, 1, &ev, &nmore);

	if (DAT_GET_TYPE(ret) != DAT_TIMEOUT_EXPIRED)
		return FAIL("event %#x (%#x) after a refused call",
			    ev.event_number, ret);
	return 0;
}

/* @cud resolves @sud through the PSP: both queue pairs come up. */
static int test_resolve(void)
{
	DAT_CR_HANDLE cr;
	DAT_RETURN ret;
	DAT_EVENT ev;

	if (side_open_dto(&s, 8) || side_open_dto(&c, 8))
		return -1;
	if (side_ud_ep(&s, 4096, 4, &sud) != DAT_SUCCESS ||
	    side_ud_ep(&c, 4096, 4, &cud) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	ret = dat_psp_create(s.ia, QUAL, s.cr, DAT_PSP_CONSUMER_FLAG, &psp);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_psp_create: %#x", ret);
	ret = dat_ep_connect(cud, s.addr, QUAL, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_connect: %#x", ret);
	if (wait_event(s.cr, EV_REQUEST, &ev))
		return -1;
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	ret = dat_cr_accept(cr, sud, 0, NULL);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cr_accept: %#x", ret);
	if (wait_event(s.conn, EV_ESTABLISHED, &ev) ||
	    wait_event(c.conn, EV_ESTABLISHED, &ev))
		return -1;
	return ep_state(cud, DAT_EP_STATE_CONNECTED);
}

/*
 * A second resolution would bind to the other device, and so would the
 * queue pair of a new datagram EP.
 */
static int test_ud_connect(void)
{
	DAT_EP_HANDLE fresh;
	DAT_RETURN ret;
	int bad;

	ret = dat_ep_connect(cud, s.addr, QUAL, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != UNSUPPORTED)
		return FAIL("datagram connect: %#x", ret);
	if (evd_quiet(c.conn) || evd_quiet(s.cr) ||
	    ep_state(cud, DAT_EP_STATE_CONNECTED))
		return -1;
	if (side_ud_ep(&c, 4096, 4, &fresh) != DAT_SUCCESS)
		return FAIL("a new datagram EP");
	ret = dat_ep_connect(fresh, s.addr, QUAL, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	bad = ret != UNSUPPORTED;
	if (bad)
		FAIL("new datagram EP's connect: %#x", ret);
	bad = bad || evd_quiet(c.conn) ||
	      ep_state(fresh, DAT_EP_STATE_UNCONNECTED);
	/* Freed whatever happened, so that it holds nothing on rxe0. */
	ret = dat_ep_free(fresh);
	if (ret != DAT_SUCCESS)
		return FAIL("new datagram EP's free: %#x", ret);
	return bad ? -1 : 0;
}

static int test_rc_connect(void)
{
	DAT_RETURN ret;

	ret = dat_ep_connect(c.ep, s.addr, QUAL, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != UNSUPPORTED)
		return FAIL("RC connect: %#x", ret);
	if (evd_quiet(c.conn))
		return -1;
	return ep_state(c.ep, DAT_EP_STATE_UNCONNECTED);
}

/* A listener would bind to the other device. */
static int test_listen(void)
{
	DAT_PSP_HANDLE p = DAT_HANDLE_NULL;
	DAT_RSP_HANDLE r = DAT_HANDLE_NULL;
	DAT_RETURN ret;

	ret = dat_psp_create(s.ia, QUAL + 1, s.cr, DAT_PSP_CONSUMER_FLAG, &p);
	if (ret != BAD_STATE)
		return FAIL("dat_psp_create: %#x", ret);
	ret = dat_rsp_create(s.ia, QUAL + 2, s.ep, s.cr, &r);
	if (ret != BAD_STATE)
		return FAIL("dat_rsp_create: %#x", ret);
	return ep_state(s.ep, DAT_EP_STATE_UNCONNECTED);
}

/* Everything goes, although the other device went away meanwhile. */
static int test_free(void)
{
	if (dat_ep_free(cud) != DAT_SUCCESS ||
	    dat_ep_free(sud) != DAT_SUCCESS ||
	    dat_psp_free(psp) != DAT_SUCCESS)
		return FAIL("frees");
	return pair_close(&s, &c);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: shim_moved IA_NAME GO_FILE\n");
		return 2;
	}
	ia_name = argv[1];
	go_file = argv[2];
	printf("TAP version 13\n1..5\n");
	tap_run("moved_resolve", test_resolve);
	if (tell_and_wait("READY", go_file, 1))
		return 1;
	tap_run("moved_ud_connect", test_ud_connect);
	tap_run("moved_rc_connect", test_rc_connect);
	tap_run("moved_listen", test_listen);
	if (tell_and_wait("CHECKED", go_file, 0))
		return 1;
	tap_run("moved_free", test_free);
	return tap_done("shim_moved");
}
