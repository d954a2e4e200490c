// SPDX-License-Identifier: GPL-2.0
/*
 * shim_ud: the datagram EPs of udapl-shim (DAT_IB_SERVICE_TYPE_UD of
 * <dat2/dat_ib_extensions.h>) through Debian's libdat2, beyond the
 * exchange that shim_ibext checks: what a datagram EP refuses before and
 * after its queue pair is up, rejected and unanswered resolutions,
 * several peers and address handles on one EP, the MTU, a disconnect
 * and a reset (which lets go of the resolutions' private data), and the
 * frees at dat_ep_free().
 *
 * Two IAs of one process, on the same device, are the two sides: the
 * server's datagram EP has a PSP, the client's EPs resolve it.  Every
 * DAT_RETURN, event number, extension type and status, cookie, length
 * and byte is checked.  Where the IA does not list DAT_IB_UD (siw), the
 * only case checks that no datagram EP or call is offered.
 *
 *   DAT_OVERRIDE=dat.conf shim_ud IA_NAME
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>

#include "tap.h"
#include "side.h"

#define QUAL		47460	/* the qualifiers of this program: +0..9 */
#define GRH		40	/* the global route header before a datagram */
#define SLOT		8192	/* a receive slot: a datagram of any MTU */
#define SLOTS		16
#define BUFSZ		(SLOT * SLOTS)
#define MSG		100	/* bytes of most datagrams */
#define NOT_IMPL	ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE)
#define BAD_ARG(n)	ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG##n)

#define EV_REQUEST	((DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_REQUEST_EVENT)
#define EV_ESTABLISHED \
	((DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED)
#define EV_REJECT	((DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_REJECT_EVENT)
#define EV_ERROR	((DAT_EVENT_NUMBER)DAT_IB_UD_CONNECTION_ERROR_EVENT)

/* The port MTU the IA lists (DAT_IB_TRANSPORT_MTU), 0 if none. */
static unsigned long ia_mtu;

/* A side's buffer and its LMR. */
struct ubuf {
	unsigned char *p;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
};

/* The value of a provider attribute of @ia, or NULL. */
static const char *ia_attr(DAT_IA_HANDLE ia, const char *name)
{
	DAT_PROVIDER_ATTR p;
	int i;

	if (dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &p) !=
	    DAT_SUCCESS)
		return NULL;
	for (i = 0; i < p.num_provider_specific_attr; i++)
		if (!strcmp(p.provider_specific_attr[i].name, name))
			return p.provider_specific_attr[i].value;
	return NULL;
}

static int buf_open(struct side *sd, struct ubuf *b, unsigned char fill)
{
	b->p = aligned_alloc(4096, BUFSZ);
	if (!b->p)
		return FAIL("buffer");
	memset(b->p, fill, BUFSZ);
	return make_lmr(sd, b->p, BUFSZ, &b->lmr, &b->lc, &b->rc);
}

/* A datagram EP of side @sd on its EVDs, as shim_ibext makes them. */
static DAT_RETURN ud_ep(struct side *sd, DAT_EP_HANDLE *ep)
{
	return side_ud_ep(sd, SLOT, SLOTS, ep);
}

static const DAT_IB_EXTENSION_EVENT_DATA *ext_of(const DAT_EVENT *ev)
{
	return (const DAT_IB_EXTENSION_EVENT_DATA *)ev->event_extension_data;
}

/* The next event of @evd, within @usec, must be @number. */
static int wait_ev(DAT_EVD_HANDLE evd, DAT_TIMEOUT usec,
		   DAT_EVENT_NUMBER number, DAT_EVENT *ev)
{
	DAT_COUNT nmore;
	DAT_RETURN ret = dat_evd_wait(evd, usec, 1, ev, &nmore);

	if (ret != DAT_SUCCESS)
		return FAIL("dat_evd_wait for %#x: %#x", number, ret);
	if (ev->event_number != number)
		return FAIL("event %#x, expected %#x", ev->event_number,
			    number);
	return 0;
}

/* Nothing more on @evd: plain DAT_QUEUE_EMPTY, as OFA's provider says. */
static int evd_empty(DAT_EVD_HANDLE evd, const char *what)
{
	DAT_EVENT ev;
	DAT_RETURN ret;

	memset(&ev, 0, sizeof(ev));
	ret = dat_evd_dequeue(evd, &ev);
	if (ret != DAT_QUEUE_EMPTY)
		return FAIL("%s: event %#x left (%#x)", what, ev.event_number,
			    ret);
	return 0;
}

/*
 * @fep of @from asks for @to's PSP on @qual with 4 bytes of private data
 * @pd: @to's CR EVD must report the request (qualifier, PSP, the private
 * data first in the CR's).  The CR goes to *@cr.
 */
static int ud_request(DAT_EP_HANDLE fep, struct side *to, DAT_CONN_QUAL qual,
		      DAT_PSP_HANDLE psp, DAT_UINT32 pd, DAT_CR_HANDLE *cr)
{
	const DAT_CR_ARRIVAL_EVENT_DATA *a;
	DAT_CR_PARAM crp;
	DAT_EVENT ev;
	DAT_RETURN ret;

	ret = dat_ep_connect(fep, to->addr, qual, 5000000, sizeof(pd), &pd,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_connect: %#x", ret);
	if (wait_ev(to->cr, 5000000, EV_REQUEST, &ev))
		return -1;
	a = &ev.event_data.cr_arrival_event_data;
	*cr = a->cr_handle;
	if (a->conn_qual != qual || a->sp_handle.psp_handle != psp || !*cr)
		return FAIL("request: qualifier %llu PSP %p CR %p",
			    (unsigned long long)a->conn_qual,
			    (void *)a->sp_handle.psp_handle, (void *)*cr);
	memset(&crp, 0, sizeof(crp));
	ret = dat_cr_query(*cr, DAT_CR_FIELD_ALL, &crp);
	if (ret != DAT_SUCCESS || crp.private_data_size < (DAT_COUNT)sizeof(pd) ||
	    memcmp(crp.private_data, &pd, sizeof(pd)))
		return FAIL("request's private data: %#x size %d", ret,
			    crp.private_data_size);
	return 0;
}

/*
 * @to accepts @cr on its datagram EP @tep with 4 bytes @pd: the passive
 * ESTABLISHED on @to's connect EVD has no address handle; its resolution
 * goes to *@cm.
 */
static int ud_accept(struct side *to, DAT_CR_HANDLE cr, DAT_EP_HANDLE tep,
		     DAT_UINT32 pd, DAT_CONTEXT *cm)
{
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_EVENT ev;
	DAT_RETURN ret;

	ret = dat_cr_accept(cr, tep, sizeof(pd), &pd);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cr_accept: %#x", ret);
	if (wait_ev(to->conn, 5000000, EV_ESTABLISHED, &ev))
		return -1;
	x = ext_of(&ev);
	if (ev.event_data.connect_event_data.ep_handle != tep ||
	    x->type != DAT_IB_UD_PASSIVE_REMOTE_AH || x->remote_ah.ah ||
	    x->status != DAT_OP_SUCCESS || !x->context.as_64)
		return FAIL("passive: ep %p type %d ah %p status %d",
			    (void *)ev.event_data.connect_event_data.ep_handle,
			    x->type, (void *)x->remote_ah.ah, x->status);
	if (cm)
		*cm = x->context;
	return 0;
}

/*
 * The active ESTABLISHED of @fep on @from's connect EVD: an address
 * handle, @to's queue pair and address, @to's private data @pd first.
 */
static int ud_established(struct side *from, DAT_EP_HANDLE fep,
			  struct side *to, DAT_UINT32 pd,
			  DAT_IB_ADDR_HANDLE *ah, DAT_CONTEXT *cm)
{
	const struct sockaddr_in *want = (const struct sockaddr_in *)to->addr;
	const DAT_CONNECTION_EVENT_DATA *conn;
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	const struct sockaddr_in *got;
	DAT_EVENT ev;

	if (wait_ev(from->conn, 5000000, EV_ESTABLISHED, &ev))
		return -1;
	conn = &ev.event_data.connect_event_data;
	x = ext_of(&ev);
	got = (const struct sockaddr_in *)&x->remote_ah.ia_addr;
	if (conn->ep_handle != fep || x->type != DAT_IB_UD_REMOTE_AH ||
	    !x->remote_ah.ah || !x->remote_ah.qpn ||
	    x->status != DAT_OP_SUCCESS || !x->context.as_64 ||
	    got->sin_family != AF_INET ||
	    got->sin_addr.s_addr != want->sin_addr.s_addr ||
	    conn->private_data_size < (DAT_COUNT)sizeof(pd) ||
	    memcmp(conn->private_data, &pd, sizeof(pd)))
		return FAIL("active: ep %p type %d ah %p qpn %#x status %d pd %d",
			    (void *)conn->ep_handle, x->type,
			    (void *)x->remote_ah.ah, x->remote_ah.qpn,
			    x->status, conn->private_data_size);
	*ah = x->remote_ah;
	if (cm)
		*cm = x->context;
	return 0;
}

/* @fep of @from resolves @tep of @to through @to's PSP @psp on @qual. */
static int ud_resolve(struct side *from, DAT_EP_HANDLE fep, struct side *to,
		      DAT_EP_HANDLE tep, DAT_CONN_QUAL qual, DAT_PSP_HANDLE psp,
		      DAT_IB_ADDR_HANDLE *ah, DAT_CONTEXT *cm,
		      DAT_CONTEXT *passive_cm)
{
	DAT_CR_HANDLE cr;

	if (ud_request(fep, to, qual, psp, htonl(0xc11e0001), &cr) ||
	    ud_accept(to, cr, tep, htonl(0x5e7e0002), passive_cm) ||
	    ud_established(from, fep, to, htonl(0x5e7e0002), ah, cm))
		return -1;
	return 0;
}

/* A receive of a whole slot of @b, @slot, with cookie @cookie. */
static int ud_recv(DAT_EP_HANDLE ep, struct ubuf *b, int slot,
		   DAT_UINT64 cookie)
{
	DAT_LMR_TRIPLET iov = { .lmr_context = b->lc,
				.virtual_address = (uintptr_t)b->p + slot * SLOT,
				.segment_length = SLOT };
	DAT_DTO_COOKIE ck = { .as_64 = cookie };
	DAT_RETURN ret;

	ret = dat_ib_post_recv_ud(ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ib_post_recv_ud: %#x", ret);
	return 0;
}

/* Post a datagram of @len bytes of @b at slot @slot to @ah. */
static DAT_RETURN ud_send(DAT_EP_HANDLE ep, struct ubuf *b, int slot,
			  DAT_VLEN len, DAT_IB_ADDR_HANDLE *ah,
			  DAT_UINT64 cookie)
{
	DAT_LMR_TRIPLET iov = { .lmr_context = b->lc,
				.virtual_address = (uintptr_t)b->p + slot * SLOT,
				.segment_length = len };
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	return dat_ib_post_send_ud(ep, 1, &iov, ah, ck,
				   DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * The next event of @evd must be a successful DAT_IB_DTO_EVENT of @ep:
 * @cookie, operation @op, extension type @type, @len bytes.  The event
 * goes to @ev.
 */
static int ud_done(DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep, DAT_UINT64 cookie,
		   int op, DAT_IB_EXT_TYPE type, DAT_VLEN len, DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	const DAT_IB_EXTENSION_EVENT_DATA *x = ext_of(ev);

	if (wait_ev(evd, 5000000, (DAT_EVENT_NUMBER)DAT_IB_DTO_EVENT, ev))
		return -1;
	if (d->ep_handle != ep || d->user_cookie.as_64 != cookie ||
	    d->status != DAT_DTO_SUCCESS || (int)d->operation != op ||
	    d->transfered_length != len || x->type != type ||
	    x->status != DAT_OP_SUCCESS)
		return FAIL("%p %#llx status %d op %d len %llu type %d, not %p %#llx 0 %d %llu %d",
			    (void *)d->ep_handle,
			    (unsigned long long)d->user_cookie.as_64,
			    d->status, d->operation,
			    (unsigned long long)d->transfered_length, x->type,
			    (void *)ep, (unsigned long long)cookie, op,
			    (unsigned long long)len, type);
	return 0;
}

/*
 * @cep sends @len bytes of its slot @cslot to @ah (cookie @ck); @sep,
 * whose next posted receive is slot @sslot of @sb with cookie @rk, gets
 * them after the route header.  The sender's queue pair, as the receive
 * gives it, goes to *@qpn.
 */
static int ud_datagram(struct side *c, DAT_EP_HANDLE cep, struct ubuf *cb,
		       int cslot, DAT_VLEN len, DAT_IB_ADDR_HANDLE *ah,
		       DAT_UINT64 ck, struct side *s, DAT_EP_HANDLE sep,
		       struct ubuf *sb, int sslot, DAT_UINT64 rk,
		       DAT_UINT32 *qpn)
{
	DAT_RETURN ret;
	DAT_EVENT ev;

	ret = ud_send(cep, cb, cslot, len, ah, ck);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ib_post_send_ud of %llu bytes: %#x",
			    (unsigned long long)len, ret);
	if (ud_done(c->dto, cep, ck, DAT_IB_DTO_SEND_UD, DAT_IB_UD_SEND, len,
		    &ev) ||
	    ud_done(s->dto, sep, rk, DAT_IB_DTO_RECV_UD, DAT_IB_UD_RECV,
		    GRH + len, &ev))
		return -1;
	if (memcmp(sb->p + sslot * SLOT + GRH, cb->p + cslot * SLOT, len))
		return FAIL("the datagram's bytes");
	*qpn = ext_of(&ev)->remote_ah.qpn;
	if (!*qpn)
		return FAIL("no sender's queue pair");
	return 0;
}

/* Fill slot @slot of @b with bytes of its own, starting with @tag. */
static void slot_fill(struct ubuf *b, int slot, unsigned char tag)
{
	unsigned char *p = b->p + slot * SLOT;
	int i;

	for (i = 0; i < SLOT; i++)
		p[i] = (unsigned char)(tag + i * 13);
}

/* ---------------------------------------------------------------------
 * The cases
 */

/* Where the IA lists no DAT_IB_UD: no datagram EP, no datagram call. */
static int test_absent(void)
{
	DAT_IB_ADDR_HANDLE ah = { .ah = (struct ibv_ah *)(uintptr_t)1 };
	DAT_CONTEXT cm = { .as_64 = 1 };
	DAT_DTO_COOKIE ck = { .as_64 = 1 };
	DAT_LMR_TRIPLET l = { 0 };
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	struct side s;
	DAT_RETURN ret;

	if (side_open_dto(&s, 8))
		return -1;
	ret = ud_ep(&s, &ep);
	if (ret != ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE))
		return FAIL("datagram EP without DAT_IB_UD: %#x", ret);
	ret = dat_ib_post_send_ud(s.ep, 1, &l, &ah, ck, 0);
	if (ret != NOT_IMPL)
		return FAIL("dat_ib_post_send_ud: %#x", ret);
	ret = dat_ib_ud_ah_free(s.ep, &ah);
	if (ret != NOT_IMPL)
		return FAIL("dat_ib_ud_ah_free: %#x", ret);
	ret = dat_ib_ud_cm_free(s.ep, cm);
	if (ret != NOT_IMPL)
		return FAIL("dat_ib_ud_cm_free: %#x", ret);
	return dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/*
 * A datagram EP before its first resolution: its attributes as given,
 * UNCONNECTED, no datagram (state error), nothing to free; its service
 * type stays; none on an SRQ; freed at once.
 */
static int test_create(void)
{
	DAT_IB_ADDR_HANDLE ah = { .ah = (struct ibv_ah *)(uintptr_t)1 };
	DAT_SRQ_ATTR sattr = { .max_recv_dtos = 8, .max_recv_iov = 1 };
	DAT_CONTEXT cm = { .as_64 = 1 };
	DAT_SRQ_HANDLE srq;
	DAT_EP_HANDLE ep, ep2;
	DAT_EP_PARAM param;
	DAT_EP_ATTR *a = &param.ep_attr;
	struct ubuf b;
	struct side s;
	DAT_RETURN ret;

	if (side_open_dto(&s, 8) || buf_open(&s, &b, 0))
		return -1;
	ret = ud_ep(&s, &ep);
	if (ret != DAT_SUCCESS)
		return FAIL("datagram EP: %#x", ret);
	ret = dat_ep_query(ep, DAT_EP_FIELD_ALL, &param);
	if (ret != DAT_SUCCESS ||
	    a->service_type != (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD ||
	    a->max_recv_iov != 1 || a->max_request_iov != 1 ||
	    a->max_rdma_read_in != 0 || a->max_rdma_read_out != 0 ||
	    a->max_recv_dtos < SLOTS || a->max_request_dtos < 8)
		return FAIL("dat_ep_query: %#x service %#x iov %d/%d reads %d/%d",
			    ret, a->service_type, a->max_recv_iov,
			    a->max_request_iov, a->max_rdma_read_in,
			    a->max_rdma_read_out);
	if (ep_state(ep, DAT_EP_STATE_UNCONNECTED))
		return -1;
	/* Receives wait for the queue pair; a send has nothing to go on. */
	if (ud_recv(ep, &b, 0, 1))
		return -1;
	ret = ud_send(ep, &b, 1, MSG, &ah, 2);
	if (ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED))
		return FAIL("datagram before any resolution: %#x", ret);
	ret = dat_ib_ud_ah_free(ep, &ah);
	if (ret != BAD_ARG(2))
		return FAIL("dat_ib_ud_ah_free of nothing: %#x", ret);
	ret = dat_ib_ud_ah_free(ep, NULL);
	if (ret != BAD_ARG(2))
		return FAIL("dat_ib_ud_ah_free(NULL): %#x", ret);
	ret = dat_ib_ud_cm_free(ep, cm);
	if (ret != BAD_ARG(2))
		return FAIL("dat_ib_ud_cm_free of nothing: %#x", ret);
	/* A reliable EP takes no datagram call. */
	ret = dat_ib_ud_ah_free(s.ep, &ah);
	if (ret != BAD_ARG(1))
		return FAIL("dat_ib_ud_ah_free on a reliable EP: %#x", ret);
	ret = dat_ib_ud_cm_free(s.ep, cm);
	if (ret != BAD_ARG(1))
		return FAIL("dat_ib_ud_cm_free on a reliable EP: %#x", ret);
	/* The service type is the EP's for good, both ways. */
	a->service_type = DAT_SERVICE_TYPE_RC;
	ret = dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, &param);
	if (ret != BAD_ARG(3))
		return FAIL("datagram EP made reliable: %#x", ret);
	a->service_type = (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD;
	ret = dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, &param);
	if (ret != BAD_ARG(3))
		return FAIL("reliable EP made a datagram EP: %#x", ret);
	if (ep_state(ep, DAT_EP_STATE_UNCONNECTED))
		return -1;
	/* One queue pair of each kind cannot share an SRQ. */
	ret = dat_srq_create(s.ia, s.pz, &sattr, &srq);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_srq_create: %#x", ret);
	memset(a, 0, sizeof(*a));
	a->service_type = (DAT_SERVICE_TYPE)DAT_IB_SERVICE_TYPE_UD;
	a->max_message_size = SLOT;
	a->max_request_dtos = 8;
	a->max_request_iov = 1;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	ret = dat_ep_create_with_srq(s.ia, s.pz, s.dto, s.dto, s.conn, srq, a,
				     &ep2);
	if (ret != ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE))
		return FAIL("datagram EP on an SRQ: %#x", ret);
	if (dat_srq_free(srq) != DAT_SUCCESS)
		return FAIL("dat_srq_free");
	/* With its receive still posted. */
	ret = dat_ep_free(ep);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_free: %#x", ret);
	free(b.p);
	return dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS ?
	       0 : FAIL("close");
}

/*
 * A rejected resolution: the active side's REJECT event brings the
 * rejecter's private data, the passive side hears nothing more; the
 * queue pair stays up, the resolution is freed once, and the next
 * resolution of the same EP succeeds.
 */
static int test_reject(void)
{
	const DAT_CONNECTION_EVENT_DATA *conn;
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_UINT32 rpd = htonl(0x4e6a0003);
	DAT_IB_ADDR_HANDLE ah;
	DAT_EP_HANDLE sep, cep;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	struct ubuf sb, cb;
	struct side s, c;
	DAT_CONTEXT cm;
	DAT_UINT32 qpn;
	DAT_RETURN ret;
	DAT_EVENT ev;

	if (side_open_dto(&s, 16) || side_open_dto(&c, 16) ||
	    buf_open(&s, &sb, 0xee) || buf_open(&c, &cb, 0))
		return -1;
	slot_fill(&cb, 0, 0x31);
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	if (dat_psp_create(s.ia, QUAL, s.cr, DAT_PSP_CONSUMER_FLAG, &psp) !=
	    DAT_SUCCESS)
		return FAIL("dat_psp_create");
	if (ud_request(cep, &s, QUAL, psp, htonl(0xc11e0003), &cr))
		return -1;
	ret = dat_cr_reject(cr, sizeof(rpd), &rpd);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cr_reject: %#x", ret);
	if (wait_ev(c.conn, 5000000, EV_REJECT, &ev))
		return -1;
	conn = &ev.event_data.connect_event_data;
	x = ext_of(&ev);
	if (conn->ep_handle != cep || x->type != DAT_IB_UD_CONNECT_REJECT ||
	    x->status != DAT_IB_OP_ERR || x->remote_ah.ah ||
	    !x->context.as_64)
		return FAIL("reject: ep %p type %d status %d ah %p",
			    (void *)conn->ep_handle, x->type, x->status,
			    (void *)x->remote_ah.ah);
	if (conn->private_data_size < (DAT_COUNT)sizeof(rpd) ||
	    memcmp(conn->private_data, &rpd, sizeof(rpd)))
		return FAIL("reject's private data: %d bytes",
			    conn->private_data_size);
	cm = x->context;
	if (evd_empty(s.conn, "rejecter's connect EVD") ||
	    evd_empty(s.cr, "rejecter's CR EVD") ||
	    evd_empty(c.conn, "rejected side's connect EVD"))
		return -1;
	/* The first resolution brought the queue pair up: it stays. */
	if (ep_state(cep, DAT_EP_STATE_CONNECTED) ||
	    ep_state(sep, DAT_EP_STATE_UNCONNECTED))
		return -1;
	ret = dat_ib_ud_cm_free(cep, cm);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ib_ud_cm_free of the rejected: %#x", ret);
	ret = dat_ib_ud_cm_free(cep, cm);
	if (ret != BAD_ARG(2))
		return FAIL("second dat_ib_ud_cm_free: %#x", ret);
	/* Again, accepted this time, and a datagram through it. */
	if (ud_recv(sep, &sb, 0, 0x30) ||
	    ud_resolve(&c, cep, &s, sep, QUAL, psp, &ah, NULL, NULL) ||
	    ud_datagram(&c, cep, &cb, 0, MSG, &ah, 0x31, &s, sep, &sb, 0,
			0x30, &qpn))
		return -1;
	if (dat_ep_free(cep) != DAT_SUCCESS || dat_ep_free(sep) != DAT_SUCCESS)
		return FAIL("dat_ep_free");
	if (pair_close(&s, &c))
		return -1;
	free(sb.p);
	free(cb.p);
	return 0;
}

/*
 * A resolution that nobody answers (no PSP on the qualifier) ends with
 * DAT_IB_UD_CONNECTION_ERROR_EVENT within 12 seconds; the resolution is
 * freed once.
 */
static int test_unanswered(void)
{
	const DAT_IB_EXTENSION_EVENT_DATA *x;
	DAT_UINT32 pd = htonl(0xc11e0004);
	struct timespec t0, t1;
	DAT_EP_HANDLE cep;
	struct side s, c;
	DAT_RETURN ret;
	DAT_EVENT ev;
	double secs;

	if (side_open_dto(&s, 8) || side_open_dto(&c, 8))
		return -1;
	if (ud_ep(&c, &cep) != DAT_SUCCESS)
		return FAIL("datagram EP");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = dat_ep_connect(cep, s.addr, QUAL + 1, 5000000, sizeof(pd), &pd,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_connect: %#x", ret);
	if (wait_ev(c.conn, 15000000, EV_ERROR, &ev))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	x = ext_of(&ev);
	if (ev.event_data.connect_event_data.ep_handle != cep ||
	    x->type != DAT_IB_UD_CONNECT_ERROR || x->status != DAT_IB_OP_ERR ||
	    x->remote_ah.ah || !x->context.as_64)
		return FAIL("error event: ep %p type %d status %d ah %p",
			    (void *)ev.event_data.connect_event_data.ep_handle,
			    x->type, x->status, (void *)x->remote_ah.ah);
	printf("# error event after %.1f s\n", secs);
	if (secs > 12)
		return FAIL("error event after %.1f s", secs);
	if (evd_empty(s.cr, "CR EVD without a PSP"))
		return -1;
	ret = dat_ib_ud_cm_free(cep, x->context);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ib_ud_cm_free: %#x", ret);
	ret = dat_ib_ud_cm_free(cep, x->context);
	if (ret != BAD_ARG(2))
		return FAIL("second dat_ib_ud_cm_free: %#x", ret);
	if (dat_ep_free(cep) != DAT_SUCCESS)
		return FAIL("dat_ep_free");
	return pair_close(&s, &c);
}

/*
 * What a resolved datagram EP refuses: every other operation (ARG1),
 * made-up and absent address handles (ARG4), a message longer than the
 * MTU (DAT_LENGTH_ERROR).  Nothing is outstanding: each post is answered
 * at once.
 */
static int ud_refusals(DAT_EP_HANDLE ep, struct ubuf *b, DAT_IB_ADDR_HANDLE *ah)
{
	DAT_LMR_TRIPLET l = { .lmr_context = b->lc,
			      .virtual_address = (uintptr_t)b->p,
			      .segment_length = 8 };
	DAT_RMR_TRIPLET r = { .rmr_context = b->rc,
			      .virtual_address = (uintptr_t)b->p + SLOT,
			      .segment_length = 8 };
	DAT_IB_ADDR_HANDLE bad = *ah;
	DAT_DTO_COOKIE ck = { .as_64 = 0x99 };
	DAT_RETURN ret;

	ret = dat_ep_post_send(ep, 1, &l, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != BAD_ARG(1))
		return FAIL("send: %#x", ret);
	ret = dat_ep_post_rdma_write(ep, 1, &l, ck, &r,
				     DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != BAD_ARG(1))
		return FAIL("RDMA Write: %#x", ret);
	ret = dat_ep_post_rdma_read(ep, 1, &l, ck, &r,
				    DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != BAD_ARG(1))
		return FAIL("RDMA Read: %#x", ret);
	ret = dat_ib_post_rdma_write_immed(ep, 1, &l, ck, &r, 0x1234,
					   DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != BAD_ARG(1))
		return FAIL("RDMA Write with immediate data: %#x", ret);
	ret = dat_ib_post_cmp_and_swap(ep, 1, 2, &l, ck, &r,
				       DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != BAD_ARG(1))
		return FAIL("compare and swap: %#x", ret);
	ret = dat_ib_post_fetch_and_add(ep, 1, &l, ck, &r,
					DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != BAD_ARG(1))
		return FAIL("fetch and add: %#x", ret);
	bad.ah = (struct ibv_ah *)(uintptr_t)0x7777;
	ret = ud_send(ep, b, 0, MSG, &bad, 0x99);
	if (ret != BAD_ARG(4))
		return FAIL("made-up address handle: %#x", ret);
	bad.ah = NULL;
	ret = ud_send(ep, b, 0, MSG, &bad, 0x99);
	if (ret != BAD_ARG(4))
		return FAIL("address handle NULL: %#x", ret);
	ret = ud_send(ep, b, 0, MSG, NULL, 0x99);
	if (ret != BAD_ARG(4))
		return FAIL("no address handle: %#x", ret);
	if (ia_mtu) {
		ret = ud_send(ep, b, 0, ia_mtu + 1, ah, 0x99);
		if (ret != ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE))
			return FAIL("%lu bytes, MTU %lu: %#x", ia_mtu + 1,
				    ia_mtu, ret);
	}
	return 0;
}

/*
 * One server EP, three resolutions of it from two client EPs (the first
 * client EP resolves it twice): each address handle carries datagrams,
 * which arrive with the sender's queue pair; a handle of one EP is
 * refused on the other; a datagram of exactly the MTU arrives whole; a
 * freed handle is refused while the other of the same EP still works;
 * the passive resolutions are distinct and freed once each.
 */
static int test_peers(void)
{
	DAT_IB_ADDR_HANDLE ah1a, ah1b, ah2, *other;
	DAT_CONTEXT cm1a, cm1b, cm2, pcm[3], other_cm;
	DAT_EP_HANDLE sep, cep1, cep2;
	DAT_UINT32 q1, q2, q;
	DAT_PSP_HANDLE psp;
	struct ubuf sb, cb;
	struct side s, c;
	DAT_RETURN ret;
	int i;

	if (side_open_dto(&s, 32) || side_open_dto(&c, 32) ||
	    buf_open(&s, &sb, 0xee) || buf_open(&c, &cb, 0))
		return -1;
	for (i = 0; i < SLOTS; i++)
		slot_fill(&cb, i, (unsigned char)(0x40 + i));
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep1) != DAT_SUCCESS ||
	    ud_ep(&c, &cep2) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	for (i = 0; i < 6; i++)
		if (ud_recv(sep, &sb, i, 0x100 + i))
			return -1;
	if (dat_psp_create(s.ia, QUAL + 2, s.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	if (ud_resolve(&c, cep1, &s, sep, QUAL + 2, psp, &ah1a, &cm1a,
		       &pcm[0]) ||
	    ud_resolve(&c, cep1, &s, sep, QUAL + 2, psp, &ah1b, &cm1b,
		       &pcm[1]) ||
	    ud_resolve(&c, cep2, &s, sep, QUAL + 2, psp, &ah2, &cm2, &pcm[2]))
		return -1;
	if (ah1a.ah == ah1b.ah || cm1a.as_64 == cm1b.as_64 ||
	    ah1a.qpn != ah1b.qpn || ah1a.qpn != ah2.qpn)
		return FAIL("handles %p %p %p to queue pairs %#x %#x %#x",
			    (void *)ah1a.ah, (void *)ah1b.ah, (void *)ah2.ah,
			    ah1a.qpn, ah1b.qpn, ah2.qpn);
	if (pcm[0].as_64 == pcm[1].as_64 || pcm[0].as_64 == pcm[2].as_64 ||
	    pcm[1].as_64 == pcm[2].as_64)
		return FAIL("passive resolutions alike");
	if (ep_state(sep, DAT_EP_STATE_CONNECTED) ||
	    ep_state(cep1, DAT_EP_STATE_CONNECTED) ||
	    ep_state(cep2, DAT_EP_STATE_CONNECTED))
		return -1;

	/* A datagram through each handle, from the queue pair of its EP. */
	if (ud_datagram(&c, cep1, &cb, 0, MSG, &ah1a, 0x200, &s, sep, &sb, 0,
			0x100, &q1) ||
	    ud_datagram(&c, cep2, &cb, 1, MSG, &ah2, 0x201, &s, sep, &sb, 1,
			0x101, &q2) ||
	    ud_datagram(&c, cep1, &cb, 2, MSG, &ah1b, 0x202, &s, sep, &sb, 2,
			0x102, &q))
		return -1;
	if (q1 == q2 || q != q1)
		return FAIL("senders' queue pairs %#x %#x %#x", q1, q2, q);

	/* A handle the EP does not have, though another EP does. */
	other = ah1a.ah != ah2.ah ? &ah1a : &ah1b;
	if (other->ah == ah2.ah)
		return FAIL("three handles, two alike");
	ret = ud_send(cep2, &cb, 3, MSG, other, 0x203);
	if (ret != BAD_ARG(4))
		return FAIL("another EP's address handle: %#x", ret);

	if (ud_refusals(cep1, &cb, &ah1a))
		return -1;
	/* Exactly the MTU. */
	if (!ia_mtu)
		printf("# no DAT_IB_TRANSPORT_MTU: the MTU is not tried\n");
	else if (ud_datagram(&c, cep2, &cb, 4, ia_mtu, &ah2, 0x204, &s, sep,
			     &sb, 3, 0x103, &q) || q != q2)
		return FAIL("a datagram of the MTU, %lu bytes", ia_mtu);

	/* Freeing one handle leaves the other of the EP. */
	ret = dat_ib_ud_ah_free(cep1, &ah1a);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ib_ud_ah_free: %#x", ret);
	ret = dat_ib_ud_ah_free(cep1, &ah1a);
	if (ret != BAD_ARG(2))
		return FAIL("second dat_ib_ud_ah_free: %#x", ret);
	ret = ud_send(cep1, &cb, 5, MSG, &ah1a, 0x205);
	if (ret != BAD_ARG(4))
		return FAIL("freed address handle: %#x", ret);
	if (ud_datagram(&c, cep1, &cb, 5, MSG, &ah1b, 0x206, &s, sep, &sb,
			ia_mtu ? 4 : 3, ia_mtu ? 0x104 : 0x103, &q) || q != q1)
		return FAIL("the EP's other handle, after the free");

	/* Resolutions, freed once each, on both sides. */
	for (i = 0; i < 3; i++) {
		ret = dat_ib_ud_cm_free(sep, pcm[i]);
		if (ret != DAT_SUCCESS)
			return FAIL("passive dat_ib_ud_cm_free %d: %#x", i,
				    ret);
	}
	ret = dat_ib_ud_cm_free(sep, pcm[0]);
	if (ret != BAD_ARG(2))
		return FAIL("second passive dat_ib_ud_cm_free: %#x", ret);
	/* One EP's resolution is not the other's, though the ids may be. */
	other_cm = cm1b.as_64 != cm2.as_64 ? cm1b : cm1a;
	if (other_cm.as_64 == cm2.as_64)
		return FAIL("three resolutions, two alike");
	ret = dat_ib_ud_cm_free(cep2, other_cm);
	if (ret != BAD_ARG(2))
		return FAIL("another EP's resolution: %#x", ret);
	if (dat_ib_ud_cm_free(cep1, cm1a) != DAT_SUCCESS ||
	    dat_ib_ud_cm_free(cep1, cm1b) != DAT_SUCCESS ||
	    dat_ib_ud_cm_free(cep2, cm2) != DAT_SUCCESS)
		return FAIL("dat_ib_ud_cm_free");
	/* The datagrams go on without the resolutions. */
	if (ud_datagram(&c, cep2, &cb, 6, MSG, &ah2, 0x207, &s, sep, &sb,
			ia_mtu ? 5 : 4, ia_mtu ? 0x105 : 0x104, &q) || q != q2)
		return FAIL("a datagram after dat_ib_ud_cm_free");
	if (evd_empty(s.dto, "server's DTO EVD") ||
	    evd_empty(c.dto, "client's DTO EVD") ||
	    evd_empty(s.conn, "server's connect EVD") ||
	    evd_empty(c.conn, "client's connect EVD"))
		return -1;
	if (dat_ep_free(cep1) != DAT_SUCCESS ||
	    dat_ep_free(cep2) != DAT_SUCCESS || dat_ep_free(sep) != DAT_SUCCESS)
		return FAIL("dat_ep_free");
	if (pair_close(&s, &c))
		return -1;
	free(sb.p);
	free(cb.p);
	return 0;
}

/*
 * dat_ep_disconnect() of a resolved datagram EP: DISCONNECTED at once,
 * with its event; its address handles are gone with the queue pair, its
 * resolutions stay until freed or the reset; dat_ep_reset() makes it
 * UNCONNECTED, and it resolves again.  The
 * passive side stays CONNECTED and takes the new queue pair's datagrams.
 */
static int test_disconnect(void)
{
	DAT_EP_HANDLE sep, cep;
	DAT_IB_ADDR_HANDLE ah, ah2;
	DAT_PSP_HANDLE psp;
	struct ubuf sb, cb;
	struct side s, c;
	DAT_UINT32 q1, q2;
	DAT_CONTEXT cm;
	DAT_RETURN ret;
	DAT_EVENT ev;

	if (side_open_dto(&s, 16) || side_open_dto(&c, 16) ||
	    buf_open(&s, &sb, 0xee) || buf_open(&c, &cb, 0))
		return -1;
	slot_fill(&cb, 0, 0x51);
	slot_fill(&cb, 1, 0x52);
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	if (dat_psp_create(s.ia, QUAL + 3, s.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	if (ud_recv(sep, &sb, 0, 0x50) || ud_recv(sep, &sb, 1, 0x51) ||
	    ud_resolve(&c, cep, &s, sep, QUAL + 3, psp, &ah, &cm, NULL) ||
	    ud_datagram(&c, cep, &cb, 0, MSG, &ah, 0x60, &s, sep, &sb, 0,
			0x50, &q1))
		return -1;
	ret = dat_ep_disconnect(cep, DAT_CLOSE_GRACEFUL_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_disconnect: %#x", ret);
	if (wait_ev(c.conn, 5000000, DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
		return -1;
	if (ev.event_data.connect_event_data.ep_handle != cep)
		return FAIL("DISCONNECTED of EP %p",
			    (void *)ev.event_data.connect_event_data.ep_handle);
	if (ep_state(cep, DAT_EP_STATE_DISCONNECTED) ||
	    ep_state(sep, DAT_EP_STATE_CONNECTED))
		return -1;
	ret = ud_send(cep, &cb, 1, MSG, &ah, 0x61);
	if (ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED))
		return FAIL("datagram after the disconnect: %#x", ret);
	ret = dat_ib_ud_ah_free(cep, &ah);
	if (ret != BAD_ARG(2))
		return FAIL("address handle after the disconnect: %#x", ret);
	ret = dat_ib_ud_cm_free(cep, cm);
	if (ret != DAT_SUCCESS)
		return FAIL("resolution after the disconnect: %#x", ret);
	ret = dat_ib_ud_cm_free(cep, cm);
	if (ret != BAD_ARG(2))
		return FAIL("second free of the resolution: %#x", ret);
	ret = dat_ep_reset(cep);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ep_reset: %#x", ret);
	if (ep_state(cep, DAT_EP_STATE_UNCONNECTED))
		return -1;
	if (ud_resolve(&c, cep, &s, sep, QUAL + 3, psp, &ah2, NULL, NULL) ||
	    ud_datagram(&c, cep, &cb, 1, MSG, &ah2, 0x62, &s, sep, &sb, 1,
			0x51, &q2))
		return -1;
	if (q2 == q1)
		printf("# the new queue pair has the old number %#x\n", q1);
	if (ep_state(cep, DAT_EP_STATE_CONNECTED))
		return -1;
	if (dat_ep_free(cep) != DAT_SUCCESS || dat_ep_free(sep) != DAT_SUCCESS)
		return FAIL("dat_ep_free");
	if (pair_close(&s, &c))
		return -1;
	free(sb.p);
	free(cb.p);
	return 0;
}

#define RESETS		16

/*
 * dat_ep_reset() ends the resolutions of a datagram EP, and with them
 * the private data the shim keeps for their events: resolving, freeing
 * the passive side's resolution and resetting, again and again, leaves
 * the heap as it was (the first round warms it up).  A kept copy holds
 * 256 bytes of private data.
 */
static int test_reset_forgets(void)
{
	DAT_EP_HANDLE sep, cep;
	DAT_IB_ADDR_HANDLE ah;
	DAT_PSP_HANDLE psp;
	DAT_CONTEXT pcm;
	struct side s, c;
	size_t before = 0;
	DAT_RETURN ret;
	DAT_EVENT ev;
	long grown;
	int i;

	if (side_open_dto(&s, 16) || side_open_dto(&c, 16))
		return -1;
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	if (dat_psp_create(s.ia, QUAL + 6, s.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	for (i = 0; i <= RESETS; i++) {
		if (i == 1)
			before = mallinfo2().uordblks;
		if (ud_resolve(&c, cep, &s, sep, QUAL + 6, psp, &ah, NULL,
			       &pcm))
			return -1;
		ret = dat_ib_ud_cm_free(sep, pcm);
		if (ret != DAT_SUCCESS)
			return FAIL("round %d: passive resolution: %#x", i, ret);
		ret = dat_ep_disconnect(cep, DAT_CLOSE_ABRUPT_FLAG);
		if (ret != DAT_SUCCESS)
			return FAIL("round %d: dat_ep_disconnect: %#x", i, ret);
		if (wait_ev(c.conn, 5000000, DAT_CONNECTION_EVENT_DISCONNECTED,
			    &ev))
			return -1;
		ret = dat_ep_reset(cep);
		if (ret != DAT_SUCCESS)
			return FAIL("round %d: dat_ep_reset: %#x", i, ret);
	}
	grown = (long)(mallinfo2().uordblks - before);
	printf("# heap after %d resets: %+ld bytes\n", RESETS, grown);
	if (grown >= RESETS * 256 / 2)
		return FAIL("%d resets kept %ld bytes", RESETS, grown);
	if (dat_ep_free(cep) != DAT_SUCCESS || dat_ep_free(sep) != DAT_SUCCESS)
		return FAIL("dat_ep_free");
	return pair_close(&s, &c);
}

/* ---------------------------------------------------------------------
 * Nothing left
 */

#define MAX_COUNTS	32

/* The counts of debugfs kdapl/objects, in file order; -1 if unreadable. */
struct counts {
	int n;
	char name[MAX_COUNTS][32];
	long v[MAX_COUNTS];
};

static int counts_read(struct counts *k)
{
	FILE *f = fopen("/sys/kernel/debug/kdapl/objects", "r");

	k->n = 0;
	if (!f)
		return -1;
	while (k->n < MAX_COUNTS &&
	       fscanf(f, "%31s %ld", k->name[k->n], &k->v[k->n]) == 2)
		k->n++;
	fclose(f);
	return k->n ? 0 : -1;
}

/* The count of @name, or -1. */
static long counts_get(const struct counts *k, const char *name)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (!strcmp(k->name[i], name))
			return k->v[i];
	return -1;
}

static int counts_zero(const struct counts *k)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (k->v[i])
			return 0;
	return 1;
}

/* Is every count of @now at most what it was in @then? */
static int counts_le(const struct counts *now, const struct counts *then,
		     int say)
{
	int i, ok = 1;

	for (i = 0; i < now->n; i++)
		if (now->v[i] > counts_get(then, now->name[i])) {
			if (say)
				printf("# left: %s %ld, was %ld\n",
				       now->name[i], now->v[i],
				       counts_get(then, now->name[i]));
			ok = 0;
		}
	return ok;
}

/*
 * Up to 10 s (connections end in work items) for every count to be at
 * most @then's.
 */
static int counts_back(const struct counts *then)
{
	struct counts now;
	int i;

	for (i = 0; i < 100; i++) {
		if (!counts_read(&now) && counts_le(&now, then, 0))
			return 0;
		usleep(100000);
	}
	if (counts_read(&now))
		return FAIL("debugfs kdapl/objects unreadable");
	counts_le(&now, then, 1);
	return -1;
}

/*
 * dat_ep_free() of datagram EPs that still have address handles, active
 * and passive resolutions, receives posted and datagrams received: it
 * succeeds, and the EPs go with all they had (the module's object counts
 * return to what they were with the IAs open, then, the IAs closed, to
 * what they were before).
 */
static int test_free_all(void)
{
	DAT_IB_ADDR_HANDLE sah, cah;
	struct counts before, opened;
	DAT_PSP_HANDLE spsp, cpsp;
	DAT_EP_HANDLE sep, cep;
	struct ubuf sb, cb;
	struct side s, c;
	DAT_UINT32 q;
	int i, have;

	/* A quiet module first: earlier cases' connections may still go. */
	have = !counts_read(&before);
	for (i = 0; have && i < 50 && !counts_zero(&before); i++) {
		usleep(100000);
		have = !counts_read(&before);
	}
	if (!have)
		printf("# no debugfs kdapl/objects: the counts are not checked\n");
	if (side_open_dto(&s, 16) || side_open_dto(&c, 16) ||
	    buf_open(&s, &sb, 0xee) || buf_open(&c, &cb, 0))
		return -1;
	slot_fill(&cb, 0, 0x71);
	slot_fill(&sb, 8, 0x72);
	if (have && counts_read(&opened))
		return FAIL("debugfs kdapl/objects");
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	if (dat_psp_create(s.ia, QUAL + 4, s.cr, DAT_PSP_CONSUMER_FLAG,
			   &spsp) != DAT_SUCCESS ||
	    dat_psp_create(c.ia, QUAL + 5, c.cr, DAT_PSP_CONSUMER_FLAG,
			   &cpsp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	/* Each resolves the other; receives are left posted on both. */
	for (i = 0; i < 4; i++)
		if (ud_recv(sep, &sb, i, 0x80 + i) ||
		    ud_recv(cep, &cb, 4 + i, 0x90 + i))
			return -1;
	if (ud_resolve(&c, cep, &s, sep, QUAL + 4, spsp, &cah, NULL, NULL) ||
	    ud_resolve(&s, sep, &c, cep, QUAL + 5, cpsp, &sah, NULL, NULL) ||
	    ud_datagram(&c, cep, &cb, 0, MSG, &cah, 0xa0, &s, sep, &sb, 0,
			0x80, &q) ||
	    ud_datagram(&s, sep, &sb, 8, MSG, &sah, 0xa1, &c, cep, &cb, 4,
			0x90, &q))
		return -1;
	if (dat_ep_free(cep) != DAT_SUCCESS || dat_ep_free(sep) != DAT_SUCCESS)
		return FAIL("dat_ep_free of datagram EPs with what they had");
	if (dat_psp_free(spsp) != DAT_SUCCESS ||
	    dat_psp_free(cpsp) != DAT_SUCCESS)
		return FAIL("dat_psp_free");
	if (have && counts_back(&opened))
		return FAIL("the datagram EPs left objects");
	if (pair_close(&s, &c))
		return -1;
	if (have && counts_back(&before))
		return FAIL("objects left after the IAs were closed");
	free(sb.p);
	free(cb.p);
	return 0;
}

#define PEERS_MAX	"/sys/module/kdapl/parameters/ud_peers_max"
#define EP_FULL		ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP)

/* Write @value to the module parameter ud_peers_max, the old one to @old. */
static int peers_max_set(const char *value, char *old, size_t size)
{
	FILE *f = fopen(PEERS_MAX, "r+");
	int bad;

	if (!f)
		return FAIL("no %s", PEERS_MAX);
	bad = old && !fgets(old, (int)size, f);
	bad |= fseek(f, 0, SEEK_SET) || fputs(value, f) < 0;
	bad |= fclose(f);
	if (bad)
		return FAIL("%s: cannot set it to %s", PEERS_MAX, value);
	return 0;
}

/* A connect of @ep to @s's PSP on @qual: @want, and nothing changes. */
static int connect_full(DAT_EP_HANDLE ep, struct side *s, struct side *c,
			DAT_CONN_QUAL qual, DAT_RETURN want)
{
	DAT_RETURN ret;

	ret = dat_ep_connect(ep, s->addr, qual, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != want)
		return FAIL("dat_ep_connect past the limit: %#x, want %#x",
			    ret, want);
	if (ep_state(ep, DAT_EP_STATE_CONNECTED) ||
	    evd_empty(s->cr, "CR EVD after a refused connect") ||
	    evd_empty(c->conn, "connect EVD after a refused connect"))
		return -1;
	return 0;
}

/*
 * A datagram EP holds at most ud_peers_max (a module parameter)
 * resolutions and address handles together.  With the limit at 2, a
 * connect past it, and an accept, are DAT_INSUFFICIENT_RESOURCES |
 * DAT_RESOURCE_TEP with nothing changed: no event, no request sent, the
 * CR still answerable.  Each dat_ib_ud_cm_free() and dat_ib_ud_ah_free()
 * makes room again.  A disconnected EP's connect is its state error,
 * however many resolutions it keeps.
 */
static int cap_check(void)
{
	DAT_CONTEXT cm1, cm2, cm3, pcm1, pcm2;
	DAT_IB_ADDR_HANDLE ah1, ah2, ah3;
	DAT_EP_HANDLE sep, cep, cep2;
	DAT_PSP_HANDLE psp;
	struct side s, c;
	DAT_CR_HANDLE cr;
	DAT_RETURN ret;
	DAT_EVENT ev;

	if (side_open_dto(&s, 8) || side_open_dto(&c, 8))
		return -1;
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep) != DAT_SUCCESS ||
	    ud_ep(&c, &cep2) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	if (dat_psp_create(s.ia, QUAL + 8, s.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	/* cep: a resolution and its handle; sep: a resolution. */
	if (ud_resolve(&c, cep, &s, sep, QUAL + 8, psp, &ah1, &cm1, &pcm1) ||
	    connect_full(cep, &s, &c, QUAL + 8, EP_FULL))
		return -1;
	if (dat_ib_ud_cm_free(cep, cm1) != DAT_SUCCESS)
		return FAIL("dat_ib_ud_cm_free");
	/* cep: two handles, a resolution; sep: two resolutions. */
	if (ud_resolve(&c, cep, &s, sep, QUAL + 8, psp, &ah2, &cm2, &pcm2) ||
	    connect_full(cep, &s, &c, QUAL + 8, EP_FULL))
		return -1;
	if (ud_request(cep2, &s, QUAL + 8, psp, htonl(0xc11e0008), &cr))
		return -1;
	ret = dat_cr_accept(cr, sep, 0, NULL);
	if (ret != EP_FULL)
		return FAIL("dat_cr_accept past the limit: %#x", ret);
	if (evd_empty(s.conn, "server's connect EVD after the accept"))
		return -1;
	ret = dat_cr_reject(cr, 0, NULL);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_cr_reject after the refused accept: %#x", ret);
	if (wait_ev(c.conn, 5000000, EV_REJECT, &ev))
		return -1;
	/* The handles count until they are freed. */
	if (dat_ib_ud_cm_free(cep, cm2) != DAT_SUCCESS ||
	    connect_full(cep, &s, &c, QUAL + 8, EP_FULL))
		return -1;
	if (dat_ib_ud_ah_free(cep, &ah1) != DAT_SUCCESS ||
	    dat_ib_ud_cm_free(sep, pcm1) != DAT_SUCCESS)
		return FAIL("frees");
	if (ud_resolve(&c, cep, &s, sep, QUAL + 8, psp, &ah3, &cm3, NULL))
		return -1;
	/* Disconnected, it keeps its resolution: over a limit of 1. */
	if (dat_ep_disconnect(cep, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS ||
	    wait_ev(c.conn, 5000000, DAT_CONNECTION_EVENT_DISCONNECTED, &ev) ||
	    peers_max_set("1", NULL, 0))
		return FAIL("disconnect");
	ret = dat_ep_connect(cep, s.addr, QUAL + 8, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED))
		return FAIL("disconnected EP's connect: %#x", ret);
	if (dat_ep_free(cep) != DAT_SUCCESS || dat_ep_free(cep2) != DAT_SUCCESS ||
	    dat_ep_free(sep) != DAT_SUCCESS ||
	    dat_psp_free(psp) != DAT_SUCCESS)
		return FAIL("frees at the end");
	return pair_close(&s, &c);
}

#define BURST		8	/* the datagram EPs' max_request_dtos */

/* A burst of datagrams from @ep to @ah, cookies @ck and on. */
static int burst_send(DAT_EP_HANDLE ep, struct ubuf *b, DAT_IB_ADDR_HANDLE *ah,
		      DAT_UINT64 ck)
{
	DAT_RETURN ret;
	int i;

	for (i = 0; i < BURST; i++) {
		ret = ud_send(ep, b, i, MSG, ah, ck + i);
		if (ret != DAT_SUCCESS)
			return FAIL("datagram %d of a burst: %#x", i, ret);
	}
	return 0;
}

/* The send completions of a burst_send() of @ep. */
static int burst_done(struct side *c, DAT_EP_HANDLE ep, DAT_UINT64 ck)
{
	DAT_EVENT ev;
	int i;

	for (i = 0; i < BURST; i++)
		if (ud_done(c->dto, ep, ck + i, DAT_IB_DTO_SEND_UD,
			    DAT_IB_UD_SEND, MSG, &ev))
			return -1;
	return 0;
}

/*
 * A handle freed right after a burst of sends to it goes once that
 * burst completed, though later sends are in flight: an EP that always
 * has sends in flight gets its freed handles back.  With the limit at 2
 * the EP holds two handles; a burst goes to the first, which is freed;
 * once the burst completed, another goes to the second handle, and a
 * connect made meanwhile succeeds.
 */
static int inflight_check(void)
{
	DAT_IB_ADDR_HANDLE ah1, ah2;
	DAT_EP_HANDLE sep, cep;
	DAT_CONTEXT cm1, cm2;
	DAT_PSP_HANDLE psp;
	struct side s, c;
	DAT_CR_HANDLE cr;
	struct ubuf cb;
	DAT_RETURN ret;
	DAT_EVENT ev;

	if (side_open_dto(&s, 8) || side_open_dto(&c, 4 * BURST) ||
	    buf_open(&c, &cb, 0x5a))
		return -1;
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	if (dat_psp_create(s.ia, QUAL + 9, s.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return FAIL("dat_psp_create");
	if (ud_resolve(&c, cep, &s, sep, QUAL + 9, psp, &ah1, &cm1, NULL))
		return -1;
	if (dat_ib_ud_cm_free(cep, cm1) != DAT_SUCCESS)
		return FAIL("dat_ib_ud_cm_free");
	if (ud_resolve(&c, cep, &s, sep, QUAL + 9, psp, &ah2, &cm2, NULL))
		return -1;
	if (dat_ib_ud_cm_free(cep, cm2) != DAT_SUCCESS)
		return FAIL("dat_ib_ud_cm_free");
	if (burst_send(cep, &cb, &ah1, 0x300))
		return -1;
	ret = dat_ib_ud_ah_free(cep, &ah1);
	if (ret != DAT_SUCCESS)
		return FAIL("dat_ib_ud_ah_free with sends in flight: %#x", ret);
	if (burst_done(&c, cep, 0x300) || burst_send(cep, &cb, &ah2, 0x400))
		return -1;
	ret = dat_ep_connect(cep, s.addr, QUAL + 9, 5000000, 0, NULL,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS)
		return FAIL("connect with the freed handle's sends done: %#x",
			    ret);
	if (burst_done(&c, cep, 0x400) ||
	    wait_ev(s.cr, 5000000, EV_REQUEST, &ev))
		return -1;
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	if (dat_cr_reject(cr, 0, NULL) != DAT_SUCCESS ||
	    wait_ev(c.conn, 5000000, EV_REJECT, &ev))
		return FAIL("reject");
	if (dat_ep_free(cep) != DAT_SUCCESS || dat_ep_free(sep) != DAT_SUCCESS ||
	    dat_psp_free(psp) != DAT_SUCCESS)
		return FAIL("frees at the end");
	if (pair_close(&s, &c))
		return -1;
	free(cb.p);
	return 0;
}

/* @check() with ud_peers_max at 2, given back whatever happens. */
static int with_peers_max(int (*check)(void))
{
	char old[32];
	int bad;

	if (peers_max_set("2", old, sizeof(old)))
		return -1;
	bad = check();
	return (peers_max_set(old, NULL, 0) || bad) ? -1 : 0;
}

static int test_cap(void)
{
	return with_peers_max(cap_check);
}

static int test_cap_inflight(void)
{
	return with_peers_max(inflight_check);
}

/*
 * The private data of a resolution's event stays valid until the
 * resolution is freed, whatever events come after it: one EP resolves
 * the same PSP twice, answered with different private data, and the
 * first event's bytes are read again after the second is dequeued.
 */
static int test_pdata_kept(void)
{
	DAT_UINT32 apd[2] = { htonl(0xa11ce001), htonl(0xa11ce002) };
	DAT_UINT32 seen[2];
	const DAT_CONNECTION_EVENT_DATA *conn[2];
	DAT_EP_HANDLE sep, cep;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev[2];
	struct side s, c;
	int i;

	if (side_open_dto(&s, 16) || side_open_dto(&c, 16))
		return -1;
	if (ud_ep(&s, &sep) != DAT_SUCCESS || ud_ep(&c, &cep) != DAT_SUCCESS)
		return FAIL("datagram EPs");
	if (dat_psp_create(s.ia, QUAL, s.cr, DAT_PSP_CONSUMER_FLAG, &psp) !=
	    DAT_SUCCESS)
		return FAIL("dat_psp_create");
	for (i = 0; i < 2; i++)
		if (ud_request(cep, &s, QUAL, psp, htonl(0xc11e0010 + i), &cr) ||
		    ud_accept(&s, cr, sep, apd[i], NULL))
			return -1;
	for (i = 0; i < 2; i++) {
		if (wait_ev(c.conn, 5000000, EV_ESTABLISHED, &ev[i]))
			return -1;
		conn[i] = &ev[i].event_data.connect_event_data;
		if (conn[i]->private_data_size < (DAT_COUNT)sizeof(seen[i]))
			return FAIL("event %d: %d bytes of private data", i,
				    conn[i]->private_data_size);
		memcpy(&seen[i], conn[i]->private_data, sizeof(seen[i]));
	}
	if (!((seen[0] == apd[0] && seen[1] == apd[1]) ||
	      (seen[0] == apd[1] && seen[1] == apd[0])))
		return FAIL("private data %#x %#x", ntohl(seen[0]),
			    ntohl(seen[1]));
	if (memcmp(conn[0]->private_data, &seen[0], sizeof(seen[0])))
		return FAIL("the first event's private data was overwritten");
	if (dat_ep_free(cep) != DAT_SUCCESS || dat_ep_free(sep) != DAT_SUCCESS)
		return FAIL("dat_ep_free");
	return pair_close(&s, &c);
}

int main(int argc, char **argv)
{
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;
	const char *v;
	int ud = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: shim_ud IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	printf("TAP version 13\n");
	if (open_ia(&ia, &async))
		return 1;
	v = ia_attr(ia, DAT_IB_ATTR_UD);
	if (v && strcmp(v, "TRUE")) {
		printf("# attribute %s is \"%s\"\n", DAT_IB_ATTR_UD, v);
		return 1;
	}
	ud = !!v;
	v = ia_attr(ia, "DAT_IB_TRANSPORT_MTU");
	ia_mtu = v ? strtoul(v, NULL, 10) : 0;
	if (ia_mtu > SLOT - GRH) {
		printf("# MTU %lu is beyond the test's slots\n", ia_mtu);
		return 1;
	}
	dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	/* rxe carries datagrams, siw (iWARP) none. */
	if ((!strncmp(ia_name, "rxe", 3) && !ud) ||
	    (!strncmp(ia_name, "siw", 3) && ud)) {
		printf("# %s: attribute %s %s\n", ia_name, DAT_IB_ATTR_UD,
		       ud ? "listed" : "missing");
		return 1;
	}
	printf("# %s: datagram EPs %s, MTU %lu\n", ia_name,
	       ud ? "offered" : "not offered", ia_mtu);
	if (!ud) {
		printf("1..1\n");
		tap_run("ud_absent", test_absent);
		return tap_done("shim_ud");
	}
	printf("1..10\n");
	tap_run("ud_create", test_create);
	tap_run("ud_reject", test_reject);
	tap_run("ud_unanswered", test_unanswered);
	tap_run("ud_peers", test_peers);
	tap_run("ud_disconnect", test_disconnect);
	tap_run("ud_reset_forgets", test_reset_forgets);
	tap_run("ud_pdata_kept", test_pdata_kept);
	tap_run("ud_free_all", test_free_all);
	tap_run("ud_cap", test_cap);
	tap_run("ud_cap_inflight", test_cap_inflight);
	return tap_done("shim_ud");
}
