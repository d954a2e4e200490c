// SPDX-License-Identifier: GPL-2.0
/*
 * The IB extensions of <dat2/dat_ib_extensions.h> (version 209): the
 * provider's dat_extension_op() entry, which libdat2 calls with the
 * arguments of the dat_ib_post_*() macros as a va_list, and the
 * DAT_IB_DTO_EVENTs their completions bring.
 *
 * shim_ext_defs, indexed by DAT_IB_OP, says for each operation what
 * performs it and which KDAPL_IA_EXT_* the IA's transport must carry.
 * An operation without a handler returns DAT_NOT_IMPLEMENTED whatever
 * its handle; one the transport lacks returns it before any argument is
 * read.  The posts are requests of the EP's post ring, posted through
 * shim_post_wr(); the counter operations take an IA, EP or EVD
 * (shim_counters.c).  DAT_INVALID_ARGn numbers the argument of the
 * dat_ib_*() macro (the EP is the first).
 *
 * A datagram EP's address handles and resolutions are ids the kernel
 * gives (see Documentation/userapi.rst): DAT_IB_ADDR_HANDLE.ah carries
 * the address handle's id in the pointer's place, and the DAT_CONTEXT of
 * a DAT_IB_UD_CONNECTION_* event the resolution's, so that nothing needs
 * freeing in the library when the EP goes.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/* The event data the extension adds must fit where DAT_EVENT keeps it. */
static_assert(sizeof(DAT_IB_EXTENSION_EVENT_DATA) <=
	      sizeof(((DAT_EVENT *)0)->event_extension_data),
	      "extension event data");

/**
 * struct shim_ext_def - how the shim performs one DAT_IB_OP
 * @needs: the KDAPL_IA_EXT_* flags the IA's transport must carry
 * @on_ep: reads the operation's arguments and performs it on an EP (a
 *	post, or the free of what a datagram EP resolved)
 * @call: performs an operation on a handle of another type, which it
 *	checks itself (with @needs)
 *
 * An operation with neither @on_ep nor @call is not implemented.
 */
struct shim_ext_def {
	__u32 needs;
	DAT_RETURN (*on_ep)(struct shim_ep *ep, va_list args);
	DAT_RETURN (*call)(DAT_HANDLE handle, va_list args);
};

/*
 * dat_ib_post_rdma_write_immed(ep, segments, lbuf, cookie, rbuf, idata,
 * flags): an RDMA Write whose immediate data consumes a receive of the
 * peer.
 */
static DAT_RETURN shim_ext_write_immed(struct shim_ep *ep, va_list args)
{
	struct shim_wr wr = { .op = KDAPL_POST_RDMA_WRITE_IMMED };

	wr.n = va_arg(args, DAT_COUNT);
	wr.iov = va_arg(args, const DAT_LMR_TRIPLET *);
	wr.cookie = va_arg(args, DAT_DTO_COOKIE);
	wr.remote = va_arg(args, const DAT_RMR_TRIPLET *);
	wr.imm_data = va_arg(args, DAT_UINT32);
	wr.flags = va_arg(args, unsigned int);
	if (!wr.remote)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (wr.flags & ~SHIM_POST_FLAGS)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	return shim_post_wr(ep, &wr);
}

/*
 * The arguments both atomics end with: the local segment that receives
 * the original value, the cookie, the remote target and the flags.
 * @lbuf_arg is the local segment's DAT_INVALID_ARGn; the others follow
 * it.  The target must be 8-byte aligned and the segment hold 8 bytes:
 * the kernel checks both too, but a refusal there may come as a failed
 * completion, not as this call's return.
 */
static DAT_RETURN shim_ext_atomic(struct shim_ep *ep, __u32 op,
				  const struct kdapl_post_atomic *operands,
				  va_list args, DAT_RETURN_SUBTYPE lbuf_arg)
{
	struct shim_wr wr = { .op = op, .n = 1, .atomic = operands };

	wr.iov = va_arg(args, const DAT_LMR_TRIPLET *);
	wr.cookie = va_arg(args, DAT_DTO_COOKIE);
	wr.remote = va_arg(args, const DAT_RMR_TRIPLET *);
	wr.flags = va_arg(args, unsigned int);
	if (!wr.iov)
		return SHIM_ERR(DAT_INVALID_PARAMETER, lbuf_arg);
	if (wr.iov->segment_length < sizeof(__u64))
		return SHIM_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	if (!wr.remote || wr.remote->virtual_address % sizeof(__u64))
		return SHIM_ERR(DAT_INVALID_PARAMETER, lbuf_arg + 2);
	/* No solicited wait: an atomic brings the peer no event. */
	if (wr.flags & ~(SHIM_POST_FLAGS & ~DAT_COMPLETION_SOLICITED_WAIT_FLAG))
		return SHIM_ERR(DAT_INVALID_PARAMETER, lbuf_arg + 3);
	return shim_post_wr(ep, &wr);
}

/* dat_ib_post_cmp_and_swap(ep, cmp, swap, lbuf, cookie, rbuf, flags) */
static DAT_RETURN shim_ext_cmp_swap(struct shim_ep *ep, va_list args)
{
	struct kdapl_post_atomic operands;

	operands.compare_add = va_arg(args, DAT_UINT64);
	operands.swap = va_arg(args, DAT_UINT64);
	return shim_ext_atomic(ep, KDAPL_POST_CMP_AND_SWAP, &operands, args,
			       DAT_INVALID_ARG4);
}

/* dat_ib_post_fetch_and_add(ep, add, lbuf, cookie, rbuf, flags) */
static DAT_RETURN shim_ext_fetch_add(struct shim_ep *ep, va_list args)
{
	struct kdapl_post_atomic operands = { 0 };

	operands.compare_add = va_arg(args, DAT_UINT64);
	return shim_ext_atomic(ep, KDAPL_POST_FETCH_AND_ADD, &operands, args,
			       DAT_INVALID_ARG3);
}

/*
 * dat_ib_post_send_ud(ep, segments, lbuf, ah_ptr, cookie, flags): a
 * datagram to the queue pair and address handle @ah_ptr names.  The
 * kernel checks that the EP has the handle, and the length against the
 * MTU.
 */
static DAT_RETURN shim_ext_send_ud(struct shim_ep *ep, va_list args)
{
	struct shim_wr wr = { .op = KDAPL_POST_SEND_UD };
	const DAT_IB_ADDR_HANDLE *ah;
	DAT_RMR_TRIPLET remote = { 0 };

	wr.n = va_arg(args, DAT_COUNT);
	wr.iov = va_arg(args, const DAT_LMR_TRIPLET *);
	ah = va_arg(args, const DAT_IB_ADDR_HANDLE *);
	wr.cookie = va_arg(args, DAT_DTO_COOKIE);
	wr.flags = va_arg(args, unsigned int);
	if (!ah || !ah->ah || (uintptr_t)ah->ah > UINT32_MAX)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (wr.flags & ~SHIM_POST_FLAGS)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	remote.rmr_context = (uintptr_t)ah->ah;
	wr.remote = &remote;
	wr.imm_data = ah->qpn;
	return shim_post_wr(ep, &wr);
}

/* Free the address handle or resolution @id of a datagram EP. */
static DAT_RETURN shim_ext_ud_free(struct shim_ep *ep, unsigned long cmd,
				   __u64 id)
{
	struct kdapl_ioc_ud_free f = { .ep_id = ep->obj.id, .id = id };

	if (id > UINT32_MAX)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return shim_dev_call(ep->obj.ia->fd, cmd, &f, sizeof(f));
}

/* dat_ib_ud_ah_free(ep, ah_ptr) */
static DAT_RETURN shim_ext_ud_ah_free(struct shim_ep *ep, va_list args)
{
	const DAT_IB_ADDR_HANDLE *ah = va_arg(args, const DAT_IB_ADDR_HANDLE *);

	if (!ah)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return shim_ext_ud_free(ep, KDAPL_IOC_UD_AH_FREE, (uintptr_t)ah->ah);
}

/*
 * Unlist the private data of resolution @cm of @ep, or every one with
 * @all; returns what was unlisted, for the caller to free.
 */
static struct shim_ud_pdata *shim_ext_ud_unlist(struct shim_ep *ep, __u64 cm,
						bool all)
{
	struct shim_ud_pdata **pp, *p, *out = NULL;

	pthread_mutex_lock(&ep->lock);
	for (pp = &ep->ud_pdata; (p = *pp);) {
		if (all || p->cm == cm) {
			*pp = p->next;
			p->next = out;
			out = p;
		} else {
			pp = &p->next;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	return out;
}

static void shim_ext_ud_pdata_free(struct shim_ud_pdata *p)
{
	struct shim_ud_pdata *next;

	for (; p; p = next) {
		next = p->next;
		free(p);
	}
}

/**
 * shim_ext_ud_forget() - free what the shim keeps of an EP's resolutions
 * @ep: the EP, being freed (or its IA closed)
 */
void shim_ext_ud_forget(struct shim_ep *ep)
{
	shim_ext_ud_pdata_free(shim_ext_ud_unlist(ep, 0, true));
}

/**
 * shim_ext_ud_take() - take the private data kept for an EP's
 *	resolutions off the EP, before its reset
 * @ep: the EP
 *
 * Taken before the reset, so that a resolution made after it (another
 * thread may connect the EP as soon as it is UNCONNECTED) keeps its own.
 *
 * Return: the list, for shim_ext_ud_settle().
 */
struct shim_ud_pdata *shim_ext_ud_take(struct shim_ep *ep)
{
	return shim_ext_ud_unlist(ep, 0, true);
}

/**
 * shim_ext_ud_settle() - after the reset, free what shim_ext_ud_take()
 *	took, or put it back
 * @ep: the EP
 * @old: the list taken
 * @reset: the kernel reset the EP, which ended its resolutions
 */
void shim_ext_ud_settle(struct shim_ep *ep, struct shim_ud_pdata *old,
			bool reset)
{
	struct shim_ud_pdata *last;

	if (reset || !old) {
		shim_ext_ud_pdata_free(old);
		return;
	}
	for (last = old; last->next; last = last->next)
		;
	pthread_mutex_lock(&ep->lock);
	last->next = ep->ud_pdata;
	ep->ud_pdata = old;
	pthread_mutex_unlock(&ep->lock);
}

/* dat_ib_ud_cm_free(ep, cm): its private data goes with it. */
static DAT_RETURN shim_ext_ud_cm_free(struct shim_ep *ep, va_list args)
{
	DAT_CONTEXT cm = va_arg(args, DAT_CONTEXT);
	DAT_RETURN ret;

	ret = shim_ext_ud_free(ep, KDAPL_IOC_UD_CM_FREE, cm.as_64);
	if (ret == DAT_SUCCESS)
		shim_ext_ud_pdata_free(shim_ext_ud_unlist(ep, cm.as_64, false));
	return ret;
}

/*
 * Every operation of the header up to the last before the open and
 * close queries; an entry without @on_ep or @call answers
 * DAT_NOT_IMPLEMENTED
 * (see Documentation/shim.rst for why each is missing).
 */
static const struct shim_ext_def shim_ext_defs[] = {
	[DAT_IB_FETCH_AND_ADD_OP] = {
		.needs = KDAPL_IA_EXT_ATOMICS,
		.on_ep = shim_ext_fetch_add,
	},
	[DAT_IB_CMP_AND_SWAP_OP] = {
		.needs = KDAPL_IA_EXT_ATOMICS,
		.on_ep = shim_ext_cmp_swap,
	},
	[DAT_IB_RDMA_WRITE_IMMED_OP] = {
		.needs = KDAPL_IA_EXT_IMMED_DATA,
		.on_ep = shim_ext_write_immed,
	},
	[DAT_IB_UD_SEND_OP] = {
		.needs = KDAPL_IA_EXT_UD,
		.on_ep = shim_ext_send_ud,
	},
	[DAT_IB_UD_CM_FREE_OP] = {
		.needs = KDAPL_IA_EXT_UD,
		.on_ep = shim_ext_ud_cm_free,
	},
	[DAT_IB_UD_AH_FREE_OP] = {
		.needs = KDAPL_IA_EXT_UD,
		.on_ep = shim_ext_ud_ah_free,
	},
	/* The counters of an IA, EP or EVD: shim_counters.c. */
	[DAT_IB_QUERY_COUNTERS_OP] = { .call = shim_counters_query },
	[DAT_IB_PRINT_COUNTERS_OP] = { .call = shim_counters_print },
	[DAT_IB_START_COUNTERS_OP] = { .call = shim_counters_sample },
	[DAT_IB_STOP_COUNTERS_OP] = { .call = shim_counters_sample },
	/* The collectives are not implemented. */
	[DAT_IB_COLLECTIVE_CREATE_MEMBER_OP ... DAT_IB_COLLECTIVE_BARRIER_OP] = {},
};

/*
 * dat_ib_open_query(name, ia_handle, ia_mask, ia_attr, prov_mask,
 * prov_attr): libdat2 finds the provider by @name and passes the name in
 * the handle's place.  The IA is opened as dat_ia_open() would open it,
 * with an async EVD of its own, and queried; dat_ib_close_query()
 * closes it.
 */
static DAT_RETURN shim_ext_open_query(const char *name, va_list args)
{
	DAT_IA_HANDLE *ia = va_arg(args, DAT_IA_HANDLE *);
	DAT_IA_ATTR_MASK ia_mask = va_arg(args, DAT_IA_ATTR_MASK);
	DAT_IA_ATTR *ia_attr = va_arg(args, DAT_IA_ATTR *);
	DAT_PROVIDER_ATTR_MASK prov_mask = va_arg(args, DAT_PROVIDER_ATTR_MASK);
	DAT_PROVIDER_ATTR *prov_attr = va_arg(args, DAT_PROVIDER_ATTR *);
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = shim_ia_open((const DAT_NAME_PTR)name, 1, &async, ia);
	if (ret != DAT_SUCCESS)
		return ret;
	ret = shim_ia_query(*ia, NULL, ia_mask, ia_attr, prov_mask,
			    prov_attr);
	if (ret != DAT_SUCCESS) {
		shim_ia_close(*ia, DAT_CLOSE_ABRUPT_FLAG);
		*ia = DAT_HANDLE_NULL;
	}
	return ret;
}

/*
 * dat_extension_op(): libdat2 passes an IA handle as the shim's own IA
 * (the counter operations take one), and every other handle as it is;
 * the open and close queries, beyond the table, take an IA name and the
 * IA they opened.
 */
DAT_RETURN shim_handle_extendedop(DAT_HANDLE handle, DAT_EXTENDED_OP op,
				  va_list args)
{
	const struct shim_ext_def *def;
	struct shim_ep *ep;

	if (op == (DAT_EXTENDED_OP)DAT_IB_OPEN_QUERY_OP)
		return shim_ext_open_query((const char *)handle, args);
	if (op == (DAT_EXTENDED_OP)DAT_IB_CLOSE_QUERY_OP)
		return shim_ia_close(handle, DAT_CLOSE_ABRUPT_FLAG);
	if (op < 0 || (size_t)op >= SHIM_ARRAY_SIZE(shim_ext_defs))
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	def = &shim_ext_defs[op];
	if (def->call)
		return def->call(handle, args);
	if (!def->on_ep)
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	ep = (struct shim_ep *)shim_obj_get(handle, DAT_HANDLE_TYPE_EP);
	if (!ep)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if ((ep->obj.ia->ib_extensions & def->needs) != def->needs)
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	return def->on_ep(ep, args);
}

/**
 * shim_ext_event() - the extension data of a DAT_IB_DTO_EVENT
 * @u: the ring's event: data[1] is the DAT_IB_DTOS operation, data[2]
 *	the immediate data a receive brought and, in its high half, the
 *	queue pair a datagram came from
 * @e: the DAT_EVENT, whose DTO completion data is filled in already
 *
 * Fills the DAT_IB_EXTENSION_EVENT_DATA in @e->event_extension_data: the
 * type of the operation and, for a receive, the immediate data or the
 * sender's queue pair.
 */
void shim_ext_event(const struct kdapl_uevent *u, DAT_EVENT *e)
{
	DAT_IB_EXTENSION_EVENT_DATA *x =
		(DAT_IB_EXTENSION_EVENT_DATA *)e->event_extension_data;

	memset(e->event_extension_data, 0, sizeof(e->event_extension_data));
	/* No receive with invalidate: data[2] is the immediate data. */
	e->event_data.dto_completion_event_data.rmr_context = 0;
	x->status = DAT_OP_SUCCESS;
	if (u->status != DAT_DTO_SUCCESS)
		x->status = DAT_IB_OP_ERR;
	switch (u->data[1]) {
	case DAT_IB_DTO_RDMA_WRITE_IMMED:
		x->type = DAT_IB_RDMA_WRITE_IMMED;
		break;
	case DAT_IB_DTO_RECV_IMMED:
		x->type = DAT_IB_RDMA_WRITE_IMMED_DATA;
		x->val.immed.data = u->data[2];
		break;
	case DAT_IB_DTO_RECV_MSG_IMMED:
		x->type = DAT_IB_RECV_IMMED_DATA;
		x->val.immed.data = u->data[2];
		break;
	case DAT_IB_DTO_FETCH_ADD:
		x->type = DAT_IB_FETCH_AND_ADD;
		break;
	case DAT_IB_DTO_CMP_SWAP:
		x->type = DAT_IB_CMP_AND_SWAP;
		break;
	case DAT_IB_DTO_SEND_UD:
		x->type = DAT_IB_UD_SEND;
		break;
	case DAT_IB_DTO_RECV_UD:
	case DAT_IB_DTO_RECV_UD_IMMED:
		x->type = DAT_IB_UD_RECV;
		x->val.immed.data = (__u32)u->data[2];
		x->remote_ah.qpn = u->data[2] >> 32;
		break;
	default:
		/* An operation this library does not know of. */
		x->status = DAT_IB_OP_ERR;
		break;
	}
}

/*
 * The private data of a resolution's event, in memory of its own: the
 * EP's buffer is rewritten by its next event, while DAT keeps a
 * resolution's until dat_ib_ud_cm_free() or the EP's reset or free.
 * NULL without memory.
 */
static const void *shim_ext_ud_keep(struct shim_ep *ep, __u64 cm,
				    const void *data, size_t len)
{
	struct shim_ud_pdata *p = malloc(sizeof(*p));

	if (!p)
		return NULL;
	p->cm = cm;
	memcpy(p->data, data, len);
	pthread_mutex_lock(&ep->lock);
	p->next = ep->ud_pdata;
	ep->ud_pdata = p;
	pthread_mutex_unlock(&ep->lock);
	return p->data;
}

/**
 * shim_ext_ud_event() - the extension data of a DAT_IB_UD_CONNECTION_*
 *	event
 * @u: the ring's event: @new_id the address handle's id, data[0] the
 *	DAT_IB_EXT_TYPE, data[1] the peer's queue pair, data[2] the
 *	resolution's id
 * @x: its extension, with the peer's address, or NULL
 * @e: the DAT_EVENT, whose connection event data is filled in already
 *	(the private data in the EP's buffer, which this moves to memory
 *	kept until the resolution is freed)
 *
 * Return: false without memory for the private data.
 */
bool shim_ext_ud_event(const struct kdapl_uevent *u,
		       const struct kdapl_uevent_ext *x, DAT_EVENT *e)
{
	DAT_IB_EXTENSION_EVENT_DATA *d =
		(DAT_IB_EXTENSION_EVENT_DATA *)e->event_extension_data;
	DAT_CONNECTION_EVENT_DATA *conn = &e->event_data.connect_event_data;
	const void *pd;

	if (conn->private_data_size) {
		pd = shim_ext_ud_keep((struct shim_ep *)conn->ep_handle,
				      u->data[2], conn->private_data,
				      conn->private_data_size);
		if (!pd)
			return false;
		conn->private_data = (DAT_PVOID)pd;
	}

	memset(e->event_extension_data, 0, sizeof(e->event_extension_data));
	d->type = u->data[0];
	d->status = u->status;
	d->remote_ah.ah = (struct ibv_ah *)(uintptr_t)u->new_id;
	d->remote_ah.qpn = u->data[1];
	if (x)
		memcpy(&d->remote_ah.ia_addr, x->addr,
		       sizeof(d->remote_ah.ia_addr));
	d->context.as_64 = u->data[2];
	return true;
}
