// SPDX-License-Identifier: GPL-2.0
/*
 * side.c - the two sides of a connection through the DAT API, for the
 * shim's test programs
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#include "tap.h"
#include "side.h"

char *ia_name;

int open_ia(DAT_IA_HANDLE *ia, DAT_EVD_HANDLE *async)
{
	DAT_RETURN ret;

	*async = DAT_HANDLE_NULL;
	ret = dat_ia_open(ia_name, 8, async, ia);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ia_open: %#x", ret);
	return 0;
}

int side_open_dto(struct side *sd, DAT_COUNT dto_qlen)
{
	DAT_IA_ATTR attr;

	if (open_ia(&sd->ia, &sd->async))
		return -1;
	if (dat_ia_query(sd->ia, NULL, DAT_IA_FIELD_ALL, &attr, 0, NULL) !=
	    DAT_SUCCESS)
		return FAIL("query");
	sd->addr = attr.ia_address_ptr;
	if (dat_pz_create(sd->ia, &sd->pz) != DAT_SUCCESS ||
	    dat_evd_create(sd->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
			   &sd->conn) != DAT_SUCCESS ||
	    dat_evd_create(sd->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
			   &sd->cr) != DAT_SUCCESS)
		return FAIL("objects");
	sd->dto = DAT_HANDLE_NULL;
	if (dto_qlen && dat_evd_create(sd->ia, dto_qlen, DAT_HANDLE_NULL,
				       DAT_EVD_DTO_FLAG, &sd->dto) !=
	    DAT_SUCCESS)
		return FAIL("DTO EVD");
	if (dat_ep_create(sd->ia, sd->pz, sd->dto, sd->dto, sd->conn, NULL,
			  &sd->ep) != DAT_SUCCESS)
		return FAIL("dat_ep_create");
	return 0;
}

int side_open(struct side *sd)
{
	return side_open_dto(sd, 0);
}

int wait_event(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER number, DAT_EVENT *ev)
{
	DAT_COUNT nmore;
	DAT_RETURN ret = dat_evd_wait(evd, 5000000, 1, ev, &nmore);

	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_wait: %#x", ret);
	if (ev->event_number != number)
		return FAIL("event %#x, expected %#x", ev->event_number,
			    number);
	return 0;
}

/* Connect the EPs of two open sides through a PSP of @qual. */
int pair_link(struct side *s, struct side *c, DAT_CONN_QUAL qual,
	      DAT_PSP_HANDLE *psp)
{
	DAT_EVENT ev;

	if (dat_psp_create(s->ia, qual, s->cr, DAT_PSP_CONSUMER_FLAG, psp) !=
	    DAT_SUCCESS ||
	    dat_ep_connect(c->ep, s->addr, qual, 5000000, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG) !=
	    DAT_SUCCESS)
		return FAIL("connect");
	if (wait_event(s->cr, DAT_CONNECTION_REQUEST_EVENT, &ev))
		return -1;
	if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			  s->ep, 0, NULL) != DAT_SUCCESS)
		return FAIL("accept");
	if (wait_event(c->conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev) ||
	    wait_event(s->conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
		return -1;
	return 0;
}

/* Connect two sides with DTO EVDs through a PSP of @qual. */
int pair_connect(struct side *s, struct side *c, DAT_CONN_QUAL qual,
		 DAT_PSP_HANDLE *psp)
{
	if (side_open_dto(s, 64) || side_open_dto(c, 64))
		return -1;
	return pair_link(s, c, qual, psp);
}

/*
 * Disconnect @ep, an EP of the client @c, gracefully: both sides must
 * see DISCONNECTED.
 */
int pair_disconnect(struct side *s, struct side *c, DAT_EP_HANDLE ep)
{
	DAT_EVENT ev;

	if (dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG) != DAT_SUCCESS ||
	    wait_event(c->conn, DAT_CONNECTION_EVENT_DISCONNECTED, &ev) ||
	    wait_event(s->conn, DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
		return FAIL("disconnect");
	return 0;
}

/* Close both sides' IAs abruptly, with what they still hold. */
int pair_close(struct side *s, struct side *c)
{
	if (dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS ||
	    dat_ia_close(c->ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
		return FAIL("close");
	return 0;
}

int make_lmr(struct side *sd, void *buf, DAT_VLEN len, DAT_LMR_HANDLE *lmr,
	     DAT_LMR_CONTEXT *lctx, DAT_RMR_CONTEXT *rctx)
{
	DAT_REGION_DESCRIPTION region = { .for_va = buf };
	DAT_VADDR va;
	DAT_VLEN rlen;

	if (dat_lmr_create(sd->ia, DAT_MEM_TYPE_VIRTUAL, region, len, sd->pz,
			   DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, lmr, lctx,
			   rctx, &rlen, &va) != DAT_SUCCESS)
		return FAIL("dat_lmr_create");
	return 0;
}

/* The next DTO completion must be @cookie, @op, success, @len bytes. */
int dto_done(struct side *sd, DAT_UINT64 cookie, DAT_DTOS op, DAT_VLEN len)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	if (wait_event(sd->dto, DAT_DTO_COMPLETION_EVENT, &ev))
		return -1;
	d = &ev.event_data.dto_completion_event_data;
	if (d->ep_handle != sd->ep || d->user_cookie.as_64 != cookie ||
	    d->status != DAT_DTO_SUCCESS || d->operation != op ||
	    d->transfered_length != len)
		return FAIL("completion %#llx op %d status %d len %llu",
			    (unsigned long long)d->user_cookie.as_64,
			    d->operation, d->status,
			    (unsigned long long)d->transfered_length);
	return 0;
}

/* A datagram EP of @sd on its EVDs: messages up to @msg, @recvs receives. */
DAT_RETURN side_ud_ep(struct side *sd, DAT_VLEN msg, DAT_COUNT recvs,
		      DAT_EP_HANDLE *ep)
{
	DAT_EP_ATTR a;

	memset(&a, 0, sizeof(a));
	a.service_type = (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD;
	a.max_message_size = msg;
	a.max_recv_dtos = recvs;
	a.max_request_dtos = 8;
	a.max_recv_iov = 1;
	a.max_request_iov = 1;
	a.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	return dat_ep_create(sd->ia, sd->pz, sd->dto, sd->dto, sd->conn, &a,
			     ep);
}

/* @ep must be in state @want. */
int ep_state(DAT_EP_HANDLE ep, DAT_EP_STATE want)
{
	DAT_EP_STATE state = (DAT_EP_STATE)-1;
	DAT_RETURN ret = dat_ep_get_status(ep, &state, NULL, NULL);

	if (ret != DAT_SUCCESS || state != want)
		return FAIL("EP state %d (%#x), expected %d", state, ret, want);
	return 0;
}

/*
 * Print @word for the program's caller, then wait until @file exists
 * (@present) or is gone: 60 s at most.
 */
int tell_and_wait(const char *word, const char *file, int present)
{
	int i;

	printf("%s\n", word);
	fflush(stdout);
	for (i = 0; (access(file, F_OK) == 0) != present; i++) {
		if (i == 1200)
			return FAIL("%s: %s after 60 s", file,
				    present ? "absent" : "present");
		usleep(50000);
	}
	return 0;
}
