// SPDX-License-Identifier: GPL-2.0
/*
 * kDAT Endpoints: creation, attributes, state snapshot, reset and free.
 *
 * An Endpoint (EP) is the consumer's end of a reliable connection.  This
 * file keeps its attributes, the objects it uses (PZ, EVDs, SRQ) and its
 * state; the queue pair and the connection manager identifier come with
 * the connection and are created by the connection code, so the
 * attributes are checked here against the limits of the device rather
 * than by creating verbs objects.
 *
 * Locking: the IA lock (a mutex) serialises dat_ep_create(),
 * dat_ep_modify(), dat_ep_reset() and dat_ep_free() and protects the
 * use counts and EVD stream registrations.  ep->lock (a spinlock taken
 * with interrupts disabled) protects ep->state, ep->attr and the object
 * pointers; the connection code changes the state under it alone, so
 * dat_ep_modify() checks the state again under it before committing.
 * dat_ep_query() and dat_ep_get_status() take only ep->lock and may be
 * called from any context.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/visibility.h>
#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

/* Provider defaults for an EP created without attributes. */
#define KDAPL_EP_DEFAULT_MESSAGE_SIZE	SZ_1M
#define KDAPL_EP_DEFAULT_RDMA_SIZE	SZ_1G
#define KDAPL_EP_DEFAULT_DTOS		64
#define KDAPL_EP_DEFAULT_IOV		4

/* Longest message of a reliable connection when the port does not say. */
#define KDAPL_EP_RC_MAX_MESSAGE		0x80000000ULL

/* Sets of EP states, as bits of a u32 indexed by DAT_EP_STATE. */
#define KDAPL_EP_S(state)	BIT(DAT_EP_STATE_##state)

#define KDAPL_EP_UNCONNECTED_STATES					\
	(KDAPL_EP_S(UNCONNECTED) | KDAPL_EP_S(UNCONFIGURED_UNCONNECTED))

/* Quiescent: nothing can arrive on the EP. */
#define KDAPL_EP_QUIESCENT_STATES					\
	(KDAPL_EP_UNCONNECTED_STATES |					\
	 KDAPL_EP_S(TENTATIVE_CONNECTION_PENDING) |			\
	 KDAPL_EP_S(UNCONFIGURED_TENTATIVE))

/* Before a connection is requested (active) or accepted (passive). */
#define KDAPL_EP_PRECONNECT_STATES					\
	(KDAPL_EP_QUIESCENT_STATES |					\
	 KDAPL_EP_S(RESERVED) | KDAPL_EP_S(UNCONFIGURED_RESERVED) |	\
	 KDAPL_EP_S(PASSIVE_CONNECTION_PENDING) |			\
	 KDAPL_EP_S(UNCONFIGURED_PASSIVE))

/**
 * struct kdapl_ep_field - when dat_ep_modify() may change a parameter
 * @field: the DAT_EP_FIELD_* bit
 * @states: the states (BIT(DAT_EP_STATE_*)) in which it may be changed;
 *	0 when it can never be changed
 */
struct kdapl_ep_field {
	DAT_EP_PARAM_MASK field;
	u32 states;
};

/*
 * The dat_ep_modify() table of the DAT specification, one row per field
 * of DAT_EP_PARAM.  The unconfigured variants of DAT 2.0 states allow
 * what their configured counterparts allow.
 */
static const struct kdapl_ep_field kdapl_ep_fields[] = {
	{ DAT_EP_FIELD_IA_HANDLE, 0 },
	{ DAT_EP_FIELD_EP_STATE, 0 },
	{ DAT_EP_FIELD_COMM, 0 },
	{ DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR, 0 },
	{ DAT_EP_FIELD_LOCAL_PORT_QUAL, 0 },
	{ DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR, 0 },
	{ DAT_EP_FIELD_REMOTE_PORT_QUAL, 0 },
	{ DAT_EP_FIELD_PZ_HANDLE, KDAPL_EP_QUIESCENT_STATES },
	{ DAT_EP_FIELD_RECV_EVD_HANDLE, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_REQUEST_EVD_HANDLE, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_CONNECT_EVD_HANDLE, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_SRQ_HANDLE, 0 },
	{ DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_QOS, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
	  KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
	  KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV,
	  KDAPL_EP_PRECONNECT_STATES },
	{ DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR,
	  KDAPL_EP_UNCONNECTED_STATES },
	{ DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR,
	  KDAPL_EP_UNCONNECTED_STATES },
	{ DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR,
	  KDAPL_EP_UNCONNECTED_STATES },
	{ DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR,
	  KDAPL_EP_UNCONNECTED_STATES },
};

/* DAT_INVALID_STATE subtype that names each EP state. */
static const DAT_RETURN_SUBTYPE kdapl_ep_state_subtypes[] = {
	[DAT_EP_STATE_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONNECTED,
	[DAT_EP_STATE_UNCONFIGURED_UNCONNECTED] =
		DAT_INVALID_STATE_EP_UNCONFIGURED,
	[DAT_EP_STATE_RESERVED] = DAT_INVALID_STATE_EP_RESERVED,
	[DAT_EP_STATE_UNCONFIGURED_RESERVED] =
		DAT_INVALID_STATE_EP_UNCONFRESERVED,
	[DAT_EP_STATE_PASSIVE_CONNECTION_PENDING] =
		DAT_INVALID_STATE_EP_PASSCONNPENDING,
	[DAT_EP_STATE_UNCONFIGURED_PASSIVE] =
		DAT_INVALID_STATE_EP_UNCONFPASSIVE,
	[DAT_EP_STATE_ACTIVE_CONNECTION_PENDING] =
		DAT_INVALID_STATE_EP_ACTCONNPENDING,
	[DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING] =
		DAT_INVALID_STATE_EP_TENTCONNPENDING,
	[DAT_EP_STATE_UNCONFIGURED_TENTATIVE] =
		DAT_INVALID_STATE_EP_UNCONFTENTATIVE,
	[DAT_EP_STATE_CONNECTED] = DAT_INVALID_STATE_EP_CONNECTED,
	[DAT_EP_STATE_DISCONNECT_PENDING] = DAT_INVALID_STATE_EP_DISCPENDING,
	[DAT_EP_STATE_DISCONNECTED] = DAT_INVALID_STATE_EP_DISCONNECTED,
	[DAT_EP_STATE_COMPLETION_PENDING] = DAT_INVALID_STATE_EP_COMPLPENDING,
	[DAT_EP_STATE_CONNECTED_SINGLE_PATH] = DAT_INVALID_STATE_EP_CONNECTED,
	[DAT_EP_STATE_CONNECTED_MULTI_PATH] = DAT_INVALID_STATE_EP_CONNECTED,
};

/*
 * An EP found by its handle may have been freed since (the lookup only
 * holds its memory); with the IA lock held, it is alive while it is
 * still an object of its IA.
 */
static bool kdapl_ep_alive(struct kdapl_ep *ep)
{
	lockdep_assert_held(&ep->obj.ia->lock);
	return !list_empty(&ep->obj.ia_entry);
}

/**
 * kdapl_ep_state_error() - the DAT_INVALID_STATE error naming an EP state
 * @state: the state the EP is in
 *
 * Return: DAT_INVALID_STATE with the DAT_INVALID_STATE_EP_* subtype of
 * @state.
 */
DAT_RETURN kdapl_ep_state_error(DAT_EP_STATE state)
{
	DAT_RETURN_SUBTYPE subtype = DAT_INVALID_STATE_EP_PROVIDERCONTROL;

	if ((unsigned int)state < ARRAY_SIZE(kdapl_ep_state_subtypes))
		subtype = kdapl_ep_state_subtypes[state];
	return dat_error(DAT_INVALID_STATE, subtype);
}

static bool kdapl_ep_state_in(DAT_EP_STATE state, u32 states)
{
	return (unsigned int)state < 32 && (states & BIT(state));
}

/**
 * struct kdapl_ep_links - the objects an EP uses
 * @pz: PZ or NULL
 * @recv_evd: receive completion EVD or NULL
 * @request_evd: request completion EVD or NULL
 * @connect_evd: connection event EVD or NULL
 * @srq: SRQ or NULL
 */
struct kdapl_ep_links {
	struct kdapl_pz *pz;
	struct kdapl_evd *recv_evd;
	struct kdapl_evd *request_evd;
	struct kdapl_evd *connect_evd;
	struct kdapl_srq *srq;
};

static void kdapl_ep_links_put(struct kdapl_ep_links *links)
{
	if (links->pz)
		kdapl_object_put(&links->pz->obj);
	if (links->recv_evd)
		kdapl_object_put(&links->recv_evd->obj);
	if (links->request_evd)
		kdapl_object_put(&links->request_evd->obj);
	if (links->connect_evd)
		kdapl_object_put(&links->connect_evd->obj);
	if (links->srq)
		kdapl_object_put(&links->srq->obj);
	memset(links, 0, sizeof(*links));
}

/* Take or drop the "users" count of every linked object. */
static void kdapl_ep_links_use(struct kdapl_ep_links *links, bool use)
{
	struct kdapl_object *objs[] = {
		links->pz ? &links->pz->obj : NULL,
		links->recv_evd ? &links->recv_evd->obj : NULL,
		links->request_evd ? &links->request_evd->obj : NULL,
		links->connect_evd ? &links->connect_evd->obj : NULL,
		links->srq ? &links->srq->obj : NULL,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		if (!objs[i])
			continue;
		if (use)
			kdapl_use(objs[i]);
		else
			kdapl_unuse(objs[i]);
	}
}

/*
 * Look up a PZ of @ia.  A NULL handle is fine (no PZ).  Called with the
 * IA lock held, so a PZ found is not being freed.
 */
static DAT_RETURN kdapl_ep_get_pz(struct kdapl_ia *ia, DAT_PZ_HANDLE handle,
				  DAT_RETURN bad, struct kdapl_pz **pzp)
{
	struct kdapl_pz *pz;

	*pzp = NULL;
	if (handle == DAT_HANDLE_NULL)
		return DAT_SUCCESS;
	if (kdapl_get(ia->owner, handle, PZ, DAT_INVALID_HANDLE_PZ, &pz))
		return bad;
	if (pz->obj.ia != ia) {
		kdapl_object_put(&pz->obj);
		return bad;
	}
	*pzp = pz;
	return DAT_SUCCESS;
}

/*
 * Look up an EVD of @ia that takes the @need stream.  A NULL handle is
 * fine (the consumer is not interested in those events).
 */
static DAT_RETURN kdapl_ep_get_evd(struct kdapl_ia *ia, DAT_EVD_HANDLE handle,
				   DAT_EVD_FLAGS need, DAT_RETURN bad,
				   struct kdapl_evd **evdp)
{
	struct kdapl_evd *evd;

	*evdp = NULL;
	if (handle == DAT_HANDLE_NULL)
		return DAT_SUCCESS;
	if (kdapl_get(ia->owner, handle, EVD, DAT_INVALID_HANDLE_EVD_ASYNC,
		      &evd))
		return bad;
	if (evd->obj.ia != ia || !(evd->flags & need)) {
		kdapl_object_put(&evd->obj);
		return bad;
	}
	*evdp = evd;
	return DAT_SUCCESS;
}

/* Limits of the IA's device; the IA lock is held and ia->ibdev is set. */
static void kdapl_ep_max_attr(struct kdapl_ia *ia, DAT_EP_ATTR *max)
{
	const struct ib_device_attr *dev = &ia->ibdev->attrs;
	struct ib_port_attr port;
	u64 msg = KDAPL_EP_RC_MAX_MESSAGE;

	if (!ib_query_port(ia->ibdev, ia->adapter->port, &port) &&
	    port.max_msg_sz)
		msg = port.max_msg_sz;

	memset(max, 0, sizeof(*max));
	max->service_type = DAT_SERVICE_TYPE_RC;
	max->max_message_size = min_t(u64, msg, U32_MAX);
	max->max_rdma_size = min3(msg, dev->max_mr_size, (u64)U32_MAX);
	/* The QP has room for kdapl's own requests. */
	max->max_recv_dtos = max(dev->max_qp_wr - KDAPL_EP_WR_RESERVED, 0);
	max->max_request_dtos = max(dev->max_qp_wr - KDAPL_EP_SEND_WR_EXTRA -
				    KDAPL_EP_WR_RESERVED, 0);
	max->max_recv_iov = dev->max_recv_sge;
	max->max_request_iov = dev->max_send_sge;
	max->max_rdma_read_in = dev->max_qp_rd_atom;
	max->max_rdma_read_out = dev->max_qp_init_rd_atom;
	max->srq_soft_hw = dev->max_srq_wr;
	max->max_rdma_read_iov = dev->max_sge_rd;
	max->max_rdma_write_iov = dev->max_send_sge;
}

/**
 * kdapl_ep_default_attr() - the attributes of an EP created without any
 * @ia: the IA the EP belongs to
 * @attr: filled with the provider defaults
 *
 * Reliable connection; messages up to 1 MiB and RDMA transfers up to
 * 1 GiB, both capped by the port's largest message and the device's
 * largest region; 64 receives and 64 requests, 4 segments per receive,
 * per request and per RDMA write and 1 to 4 per RDMA read, as many RDMA
 * reads in and out as the device allows per QP, each capped by the
 * device limits; default completion flags, best-effort QoS, no SRQ
 * high watermark and no transport or provider specific attributes.
 * When the device is gone the device-dependent values are zero.
 *
 * Context: process context, with the IA lock held.
 */
void kdapl_ep_default_attr(struct kdapl_ia *ia, DAT_EP_ATTR *attr)
{
	DAT_EP_ATTR max;

	lockdep_assert_held(&ia->lock);

	if (ia->ibdev)
		kdapl_ep_max_attr(ia, &max);
	else
		memset(&max, 0, sizeof(max));

	memset(attr, 0, sizeof(*attr));
	attr->service_type = DAT_SERVICE_TYPE_RC;
	attr->max_message_size = min_t(u32, KDAPL_EP_DEFAULT_MESSAGE_SIZE,
				       max.max_message_size);
	attr->max_rdma_size = min_t(u32, KDAPL_EP_DEFAULT_RDMA_SIZE,
				    max.max_rdma_size);
	attr->qos = DAT_QOS_BEST_EFFORT;
	attr->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	attr->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	attr->max_recv_dtos = min(KDAPL_EP_DEFAULT_DTOS, max.max_recv_dtos);
	attr->max_request_dtos = min(KDAPL_EP_DEFAULT_DTOS,
				     max.max_request_dtos);
	attr->max_recv_iov = min(KDAPL_EP_DEFAULT_IOV, max.max_recv_iov);
	attr->max_request_iov = min(KDAPL_EP_DEFAULT_IOV, max.max_request_iov);
	attr->max_rdma_read_in = max.max_rdma_read_in;
	attr->max_rdma_read_out = max.max_rdma_read_out;
	attr->srq_soft_hw = DAT_HW_DEFAULT;
	attr->max_rdma_read_iov = min(KDAPL_EP_DEFAULT_IOV,
				      max.max_rdma_read_iov);
	attr->max_rdma_write_iov = min(KDAPL_EP_DEFAULT_IOV,
				       max.max_rdma_write_iov);
}

/*
 * The receive completion flags of dat_ep_modify(): default, notification
 * suppression (then dat_ep_post_recv() takes
 * DAT_COMPLETION_UNSIGNALLED_FLAG), solicited wait, EVD threshold.
 */
static bool kdapl_ep_recv_flags_ok(DAT_COMPLETION_FLAGS flags)
{
	switch (flags) {
	case DAT_COMPLETION_DEFAULT_FLAG:
	case DAT_COMPLETION_SUPPRESS_FLAG:
	case DAT_COMPLETION_SOLICITED_WAIT_FLAG:
	case DAT_COMPLETION_EVD_THRESHOLD_FLAG:
		return true;
	default:
		return false;
	}
}

static bool kdapl_ep_request_flags_ok(DAT_COMPLETION_FLAGS flags)
{
	switch (flags) {
	case DAT_COMPLETION_DEFAULT_FLAG:
	case DAT_COMPLETION_UNSIGNALLED_FLAG:
	case DAT_COMPLETION_EVD_THRESHOLD_FLAG:
		return true;
	default:
		return false;
	}
}

/* Only best-effort service is offered (see the provider attributes). */
static bool kdapl_ep_qos_ok(DAT_QOS qos)
{
	return qos == DAT_QOS_BEST_EFFORT;
}

static bool kdapl_ep_count_ok(DAT_COUNT value, DAT_COUNT max)
{
	return value >= 0 && value <= max;
}

/*
 * Check the attributes selected by @mask (DAT_EP_FIELD_EP_ATTR_* bits)
 * against the device; the service type is checked by the callers.
 * Called with the IA lock held and ia->ibdev set.
 */
static bool kdapl_ep_attr_ok(struct kdapl_ia *ia, const DAT_EP_ATTR *attr,
			     DAT_EP_PARAM_MASK mask)
{
	DAT_EP_ATTR max;

	kdapl_ep_max_attr(ia, &max);

	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE) &&
	    attr->max_message_size > max.max_message_size)
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE) &&
	    attr->max_rdma_size > max.max_rdma_size)
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_QOS) && !kdapl_ep_qos_ok(attr->qos))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) &&
	    !kdapl_ep_recv_flags_ok(attr->recv_completion_flags))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS) &&
	    !kdapl_ep_request_flags_ok(attr->request_completion_flags))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS) &&
	    !kdapl_ep_count_ok(attr->max_recv_dtos, max.max_recv_dtos))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS) &&
	    !kdapl_ep_count_ok(attr->max_request_dtos, max.max_request_dtos))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV) &&
	    !kdapl_ep_count_ok(attr->max_recv_iov, max.max_recv_iov))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV) &&
	    !kdapl_ep_count_ok(attr->max_request_iov, max.max_request_iov))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN) &&
	    !kdapl_ep_count_ok(attr->max_rdma_read_in, max.max_rdma_read_in))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT) &&
	    !kdapl_ep_count_ok(attr->max_rdma_read_out,
			       max.max_rdma_read_out))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW) &&
	    attr->srq_soft_hw != DAT_HW_DEFAULT &&
	    !kdapl_ep_count_ok(attr->srq_soft_hw, max.srq_soft_hw))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV) &&
	    !kdapl_ep_count_ok(attr->max_rdma_read_iov,
			       max.max_rdma_read_iov))
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV) &&
	    !kdapl_ep_count_ok(attr->max_rdma_write_iov,
			       max.max_rdma_write_iov))
		return false;
	/* No transport or provider specific attribute is supported. */
	if ((mask & DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR) &&
	    attr->ep_transport_specific_count)
		return false;
	if ((mask & DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR) &&
	    attr->ep_provider_specific_count)
		return false;
	return true;
}

/*
 * Register the receive and request streams of an EP on their EVDs.  On
 * failure nothing stays registered.  The IA lock is held.
 */
static DAT_RETURN kdapl_ep_attach_streams(struct kdapl_evd *recv_evd,
					  DAT_COMPLETION_FLAGS recv_flags,
					  struct kdapl_evd *request_evd,
					  DAT_COMPLETION_FLAGS request_flags)
{
	DAT_RETURN ret;

	if (recv_evd) {
		ret = kdapl_evd_attach_stream(recv_evd, KDAPL_STREAM_RECV,
					      recv_flags);
		if (ret)
			return ret;
	}
	if (request_evd) {
		ret = kdapl_evd_attach_stream(request_evd,
					      KDAPL_STREAM_REQUEST,
					      request_flags);
		if (ret) {
			if (recv_evd)
				kdapl_evd_detach_stream(recv_evd,
							KDAPL_STREAM_RECV);
			return ret;
		}
	}
	return DAT_SUCCESS;
}

/* A completion-flag refusal names the argument holding the flags. */
static DAT_RETURN kdapl_ep_stream_error(DAT_RETURN ret,
					DAT_RETURN_SUBTYPE arg)
{
	if (DAT_GET_TYPE(ret) == DAT_INVALID_PARAMETER)
		return dat_error(DAT_INVALID_PARAMETER, arg);
	return ret;
}

static void kdapl_ep_detach_streams(struct kdapl_evd *recv_evd,
				    struct kdapl_evd *request_evd)
{
	if (recv_evd)
		kdapl_evd_detach_stream(recv_evd, KDAPL_STREAM_RECV);
	if (request_evd)
		kdapl_evd_detach_stream(request_evd, KDAPL_STREAM_REQUEST);
}

/*
 * Look up the objects dat_ep_create() names, into @links (with a
 * reference each).  IA lock held: none of them is being freed.
 */
static DAT_RETURN kdapl_ep_lookup_links(struct kdapl_owner *owner,
					struct kdapl_ia *ia,
					DAT_PZ_HANDLE pz_handle,
					DAT_EVD_HANDLE recv_evd_handle,
					DAT_EVD_HANDLE request_evd_handle,
					DAT_EVD_HANDLE connect_evd_handle,
					bool with_srq, DAT_SRQ_HANDLE srq_handle,
					struct kdapl_ep_links *links)
{
	struct kdapl_srq *srq;
	DAT_RETURN ret;

	lockdep_assert_held(&ia->lock);
	ret = kdapl_ep_get_pz(ia, pz_handle,
			      dat_error(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_PZ), &links->pz);
	if (ret)
		return ret;
	ret = kdapl_ep_get_evd(ia, recv_evd_handle, DAT_EVD_DTO_FLAG,
			       dat_error(DAT_INVALID_HANDLE,
					 DAT_INVALID_HANDLE_EVD_RECV),
			       &links->recv_evd);
	if (ret)
		return ret;
	ret = kdapl_ep_get_evd(ia, request_evd_handle, DAT_EVD_DTO_FLAG,
			       dat_error(DAT_INVALID_HANDLE,
					 DAT_INVALID_HANDLE_EVD_REQUEST),
			       &links->request_evd);
	if (ret)
		return ret;
	ret = kdapl_ep_get_evd(ia, connect_evd_handle, DAT_EVD_CONNECTION_FLAG,
			       dat_error(DAT_INVALID_HANDLE,
					 DAT_INVALID_HANDLE_EVD_CONN),
			       &links->connect_evd);
	if (ret || !with_srq)
		return ret;
	ret = kdapl_get(owner, srq_handle, SRQ, DAT_INVALID_HANDLE_SRQ, &srq);
	if (ret)
		return ret;
	links->srq = srq;
	if (srq->obj.ia != ia)
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
	return DAT_SUCCESS;
}

/*
 * A datagram EP: where the transport has datagrams (not iWARP), with no
 * SRQ (a queue pair of each kind would have to share it).
 */
static bool kdapl_ep_ud_ok(const struct kdapl_ia *ia,
			   const DAT_EP_ATTR *attr,
			   const struct kdapl_ep_links *links)
{
	return attr->service_type == DAT_IB_SERVICE_TYPE_UD &&
	       (ia->ib_ext & KDAPL_IB_EXT_UD) && !links->srq;
}

/*
 * The attributes of a new EP: the consumer's, checked (@attr_arg is the
 * argument to name if they are bad), or the provider's defaults, with
 * completion flags that the EVDs of @links accept.  IA lock held.
 */
static DAT_RETURN kdapl_ep_take_attr(struct kdapl_ia *ia,
				     const DAT_EP_ATTR *ep_attributes,
				     const struct kdapl_ep_links *links,
				     DAT_RETURN_SUBTYPE attr_arg,
				     DAT_EP_ATTR *attr)
{
	if (!ep_attributes) {
		kdapl_ep_default_attr(ia, attr);
		if (links->recv_evd)
			attr->recv_completion_flags =
				kdapl_evd_stream_default(links->recv_evd);
		if (links->request_evd)
			attr->request_completion_flags =
				kdapl_evd_stream_default(links->request_evd);
		return DAT_SUCCESS;
	}
	if (ep_attributes->service_type != DAT_SERVICE_TYPE_RC &&
	    !kdapl_ep_ud_ok(ia, ep_attributes, links))
		return dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!kdapl_ep_attr_ok(ia, ep_attributes, DAT_EP_FIELD_EP_ATTR_ALL))
		return dat_error(DAT_INVALID_PARAMETER, attr_arg);
	*attr = *ep_attributes;
	/* Nothing of the consumer's memory is kept. */
	attr->ep_transport_specific = NULL;
	attr->ep_provider_specific = NULL;
	return DAT_SUCCESS;
}

/*
 * Give the new @ep its streams, work request rings and handle, and make
 * it use the objects of @links, whose references it keeps.  IA lock held;
 * on failure nothing of it remains but @ep's memory.
 */
static DAT_RETURN kdapl_ep_install(struct kdapl_ia *ia, struct kdapl_ep *ep,
				   struct kdapl_ep_links *links,
				   DAT_RETURN_SUBTYPE attr_arg)
{
	DAT_RETURN ret;

	lockdep_assert_held(&ia->lock);
	ret = kdapl_ep_attach_streams(links->recv_evd,
				      ep->attr.recv_completion_flags,
				      links->request_evd,
				      ep->attr.request_completion_flags);
	if (ret)
		return kdapl_ep_stream_error(ret, attr_arg);

	kdapl_object_init(&ep->obj, DAT_HANDLE_TYPE_EP, ia);
	if (kdapl_dto_ep_init(ep) ||
	    (ep->attr.service_type == DAT_IB_SERVICE_TYPE_UD &&
	     kdapl_ud_ep_init(ep))) {
		kdapl_dto_ep_fini(ep);
		kdapl_ep_detach_streams(links->recv_evd, links->request_evd);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	if (kdapl_object_publish(&ep->obj)) {
		kdapl_ud_ep_fini(ep);
		kdapl_dto_ep_fini(ep);
		kdapl_ep_detach_streams(links->recv_evd, links->request_evd);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	kdapl_ia_add_object(ia, &ep->obj);
	kdapl_ep_links_use(links, true);
	ep->pz = links->pz;
	ep->recv_evd = links->recv_evd;
	ep->request_evd = links->request_evd;
	ep->connect_evd = links->connect_evd;
	ep->srq = links->srq;
	return DAT_SUCCESS;
}

/* dat_ep_create() and dat_ep_create_with_srq() (@with_srq) for an owner. */
static DAT_RETURN kdapl_ep_new(struct kdapl_owner *owner,
			       DAT_IA_HANDLE ia_handle,
			       DAT_PZ_HANDLE pz_handle,
			       DAT_EVD_HANDLE recv_evd_handle,
			       DAT_EVD_HANDLE request_evd_handle,
			       DAT_EVD_HANDLE connect_evd_handle,
			       bool with_srq, DAT_SRQ_HANDLE srq_handle,
			       const DAT_EP_ATTR *ep_attributes,
			       DAT_EP_HANDLE *ep_handle)
{
	DAT_RETURN_SUBTYPE attr_arg = with_srq ? DAT_INVALID_ARG7 :
						 DAT_INVALID_ARG6;
	DAT_RETURN_SUBTYPE out_arg = with_srq ? DAT_INVALID_ARG8 :
						DAT_INVALID_ARG7;
	struct kdapl_ep_links links = {};
	struct kdapl_ia *ia;
	struct kdapl_ep *ep;
	DAT_HANDLE handle;
	DAT_RETURN ret;

	if (!ep_handle)
		return dat_error(DAT_INVALID_PARAMETER, out_arg);

	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL_ACCOUNT);
	if (!ep) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto put_ia;
	}
	spin_lock_init(&ep->lock);
	ep->state = DAT_EP_STATE_UNCONNECTED;
	atomic_set(&ep->recv_outstanding, 0);
	atomic_set(&ep->request_outstanding, 0);

	mutex_lock(&ia->lock);
	if (ia->closing || !ia->ibdev) {
		ret = dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto unlock;
	}
	ret = kdapl_ep_lookup_links(owner, ia, pz_handle, recv_evd_handle,
				    request_evd_handle, connect_evd_handle,
				    with_srq, srq_handle, &links);
	if (!ret)
		ret = kdapl_ep_take_attr(ia, ep_attributes, &links, attr_arg,
					 &ep->attr);
	if (!ret)
		ret = kdapl_ep_install(ia, ep, &links, attr_arg);
	if (ret)
		goto unlock;
	/*
	 * The EP keeps the references of the lookups.  Once unlocked it may
	 * be freed by another thread: take the handle now.
	 */
	handle = kdapl_object_handle(&ep->obj);
	mutex_unlock(&ia->lock);

	*ep_handle = handle;
	kdapl_object_put(&ia->obj);
	return DAT_SUCCESS;

unlock:
	mutex_unlock(&ia->lock);
	kdapl_ep_links_put(&links);
	kfree(ep);
put_ia:
	kdapl_object_put(&ia->obj);
	return ret;
}

/**
 * kdapl_ep_create() - dat_ep_create() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_ep_create()
 * @pz_handle: as for dat_ep_create()
 * @recv_evd_handle: as for dat_ep_create()
 * @request_evd_handle: as for dat_ep_create()
 * @connect_evd_handle: as for dat_ep_create()
 * @ep_attributes: as for dat_ep_create()
 * @ep_handle: as for dat_ep_create()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_create().
 * Return: as dat_ep_create().
 */
DAT_RETURN kdapl_ep_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			   DAT_PZ_HANDLE pz_handle,
			   DAT_EVD_HANDLE recv_evd_handle,
			   DAT_EVD_HANDLE request_evd_handle,
			   DAT_EVD_HANDLE connect_evd_handle,
			   const DAT_EP_ATTR *ep_attributes,
			   DAT_EP_HANDLE *ep_handle)
{
	return kdapl_ep_new(owner, ia_handle, pz_handle, recv_evd_handle,
			    request_evd_handle, connect_evd_handle, false,
			    DAT_HANDLE_NULL, ep_attributes, ep_handle);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_create);

/**
 * dat_ep_create() - create an Endpoint
 * @ia_handle: the IA the EP belongs to
 * @pz_handle: its Protection Zone, or DAT_HANDLE_NULL
 * @recv_evd_handle: EVD for receive completions (needs DAT_EVD_DTO_FLAG),
 *	or DAT_HANDLE_NULL when the consumer is not interested in them
 * @request_evd_handle: EVD for send, RDMA and RMR bind completions (needs
 *	DAT_EVD_DTO_FLAG), or DAT_HANDLE_NULL
 * @connect_evd_handle: EVD for connection events (needs
 *	DAT_EVD_CONNECTION_FLAG), or DAT_HANDLE_NULL
 * @ep_attributes: requested attributes, or NULL for the provider defaults
 *	(see kdapl_ep_default_attr())
 * @ep_handle: where to store the handle of the new EP
 *
 * The EP starts in DAT_EP_STATE_UNCONNECTED and uses the PZ and the EVDs
 * (they cannot be freed) until it is freed.  Its receive and request
 * streams are registered on their EVDs with their completion flags; the
 * flags must agree with those of the other EP streams on the same EVD.
 * The defaults give a stream into an EVD that other kinds of events
 * also feed DAT_COMPLETION_EVD_THRESHOLD_FLAG, the only flags it takes.
 * No queue pair is created yet: that happens with the connection.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - the EP was created, *@ep_handle is its handle.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG7 - @ep_handle is NULL.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_IA - @ia_handle is not an
 *   open IA.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_PZ - @pz_handle is neither
 *   NULL nor a PZ of the IA.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EVD_RECV,
 *   %DAT_INVALID_HANDLE_EVD_REQUEST, %DAT_INVALID_HANDLE_EVD_CONN - that
 *   EVD handle is neither NULL nor an EVD of the IA taking the stream.
 * * %DAT_MODEL_NOT_SUPPORTED - the service type is neither
 *   %DAT_SERVICE_TYPE_RC nor, where the IA lists the provider attribute
 *   DAT_IB_UD (not on iWARP), %DAT_IB_SERVICE_TYPE_UD; or a datagram EP
 *   with an SRQ.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG6 - an attribute is invalid,
 *   unsupported or above the device limits.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG6 - the completion flags
 *   break the rules for the streams sharing an EVD: streams of one kind
 *   share their flags; beside non-DTO streams only default or threshold
 *   flags; once a stream is unsignalled every stream has the same flags;
 *   a solicited-wait receive stream allows no other kind of stream.
 * * %DAT_INSUFFICIENT_RESOURCES | %DAT_RESOURCE_MEMORY - out of memory.
 * * %DAT_INVALID_STATE - the IA is being closed or lost its device.
 */
DAT_RETURN dat_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			 DAT_EVD_HANDLE recv_evd_handle,
			 DAT_EVD_HANDLE request_evd_handle,
			 DAT_EVD_HANDLE connect_evd_handle,
			 const DAT_EP_ATTR *ep_attributes,
			 DAT_EP_HANDLE *ep_handle)
{
	return kdapl_ep_create(&kdapl_kernel_owner, ia_handle, pz_handle,
			       recv_evd_handle, request_evd_handle,
			       connect_evd_handle, ep_attributes, ep_handle);
}
EXPORT_SYMBOL_GPL(dat_ep_create);

/**
 * kdapl_ep_create_with_srq() - dat_ep_create_with_srq() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_ep_create_with_srq()
 * @pz_handle: as for dat_ep_create_with_srq()
 * @recv_evd_handle: as for dat_ep_create_with_srq()
 * @request_evd_handle: as for dat_ep_create_with_srq()
 * @connect_evd_handle: as for dat_ep_create_with_srq()
 * @srq_handle: as for dat_ep_create_with_srq()
 * @ep_attributes: as for dat_ep_create_with_srq()
 * @ep_handle: as for dat_ep_create_with_srq()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_create_with_srq().
 * Return: as dat_ep_create_with_srq().
 */
DAT_RETURN kdapl_ep_create_with_srq(struct kdapl_owner *owner,
				    DAT_IA_HANDLE ia_handle,
				    DAT_PZ_HANDLE pz_handle,
				    DAT_EVD_HANDLE recv_evd_handle,
				    DAT_EVD_HANDLE request_evd_handle,
				    DAT_EVD_HANDLE connect_evd_handle,
				    DAT_SRQ_HANDLE srq_handle,
				    const DAT_EP_ATTR *ep_attributes,
				    DAT_EP_HANDLE *ep_handle)
{
	return kdapl_ep_new(owner, ia_handle, pz_handle, recv_evd_handle,
			    request_evd_handle, connect_evd_handle, true,
			    srq_handle, ep_attributes, ep_handle);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_create_with_srq);

/**
 * dat_ep_create_with_srq() - create an Endpoint taking its receives from
 *	a Shared Receive Queue
 * @ia_handle: the IA the EP belongs to
 * @pz_handle: its Protection Zone, or DAT_HANDLE_NULL
 * @recv_evd_handle: EVD for receive completions, or DAT_HANDLE_NULL
 * @request_evd_handle: EVD for request completions, or DAT_HANDLE_NULL
 * @connect_evd_handle: EVD for connection events, or DAT_HANDLE_NULL
 * @srq_handle: the SRQ, of the same IA
 * @ep_attributes: requested attributes, or NULL for the provider defaults
 * @ep_handle: where to store the handle of the new EP
 *
 * As dat_ep_create(); the EP also uses the SRQ until it is freed.
 *
 * Context: process context, may sleep.
 * Return: as dat_ep_create(), with the attributes being argument 7
 * (%DAT_INVALID_ARG7) and @ep_handle argument 8 (%DAT_INVALID_ARG8), and:
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_SRQ - @srq_handle is not an
 *   SRQ of the IA.
 */
DAT_RETURN dat_ep_create_with_srq(DAT_IA_HANDLE ia_handle,
				  DAT_PZ_HANDLE pz_handle,
				  DAT_EVD_HANDLE recv_evd_handle,
				  DAT_EVD_HANDLE request_evd_handle,
				  DAT_EVD_HANDLE connect_evd_handle,
				  DAT_SRQ_HANDLE srq_handle,
				  const DAT_EP_ATTR *ep_attributes,
				  DAT_EP_HANDLE *ep_handle)
{
	return kdapl_ep_create_with_srq(&kdapl_kernel_owner, ia_handle,
					pz_handle, recv_evd_handle,
					request_evd_handle, connect_evd_handle,
					srq_handle, ep_attributes, ep_handle);
}
EXPORT_SYMBOL_GPL(dat_ep_create_with_srq);

static DAT_HANDLE kdapl_ep_obj_handle(struct kdapl_object *obj)
{
	return obj ? kdapl_object_handle(obj) : DAT_HANDLE_NULL;
}

/* Handle of a PZ, EVD or SRQ the EP uses, or DAT_HANDLE_NULL. */
#define kdapl_ep_link_handle(ptr) ({					\
	typeof(ptr) __link = (ptr);					\
									\
	kdapl_ep_obj_handle(__link ? &__link->obj : NULL);		\
})

/* Copy the attribute fields selected by @mask from @from into @to. */
static void kdapl_ep_attr_merge(DAT_EP_ATTR *to, const DAT_EP_ATTR *from,
				DAT_EP_PARAM_MASK mask)
{
	if (mask & DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE)
		to->service_type = from->service_type;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE)
		to->max_message_size = from->max_message_size;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE)
		to->max_rdma_size = from->max_rdma_size;
	if (mask & DAT_EP_FIELD_EP_ATTR_QOS)
		to->qos = from->qos;
	if (mask & DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS)
		to->recv_completion_flags = from->recv_completion_flags;
	if (mask & DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS)
		to->request_completion_flags = from->request_completion_flags;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS)
		to->max_recv_dtos = from->max_recv_dtos;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS)
		to->max_request_dtos = from->max_request_dtos;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV)
		to->max_recv_iov = from->max_recv_iov;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV)
		to->max_request_iov = from->max_request_iov;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN)
		to->max_rdma_read_in = from->max_rdma_read_in;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT)
		to->max_rdma_read_out = from->max_rdma_read_out;
	if (mask & DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW)
		to->srq_soft_hw = from->srq_soft_hw;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV)
		to->max_rdma_read_iov = from->max_rdma_read_iov;
	if (mask & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV)
		to->max_rdma_write_iov = from->max_rdma_write_iov;
	/*
	 * The counts are checked to be 0: nothing to store.  The attribute
	 * arrays are not kept either, there being no attribute to change.
	 */
}

/**
 * kdapl_ep_query() - dat_ep_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_query()
 * @mask: as for dat_ep_query()
 * @param: as for dat_ep_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_query().
 * Return: as dat_ep_query().
 */
DAT_RETURN kdapl_ep_query(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle,
			  DAT_EP_PARAM_MASK mask, DAT_EP_PARAM *param)
{
	struct kdapl_ep *ep;
	unsigned long flags;
	DAT_EP_ATTR *attr;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	if (mask & ~DAT_EP_FIELD_ALL) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (!param) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}

	attr = &param->ep_attr;
	spin_lock_irqsave(&ep->lock, flags);
	if (mask & DAT_EP_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&ep->obj.ia->obj);
	if (mask & DAT_EP_FIELD_EP_STATE)
		param->ep_state = ep->state;
	if (mask & DAT_EP_FIELD_COMM)
		memset(&param->comm, 0, sizeof(param->comm));
	if (mask & DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR)
		param->local_ia_address_ptr =
			(struct sockaddr *)&ep->local_addr;
	if (mask & DAT_EP_FIELD_LOCAL_PORT_QUAL)
		param->local_port_qual = ep->local_port;
	if (mask & DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR)
		param->remote_ia_address_ptr =
			(struct sockaddr *)&ep->remote_addr;
	if (mask & DAT_EP_FIELD_REMOTE_PORT_QUAL)
		param->remote_port_qual = ep->remote_port;
	if (mask & DAT_EP_FIELD_PZ_HANDLE)
		param->pz_handle = kdapl_ep_link_handle(ep->pz);
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		param->recv_evd_handle = kdapl_ep_link_handle(ep->recv_evd);
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		param->request_evd_handle =
			kdapl_ep_link_handle(ep->request_evd);
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		param->connect_evd_handle =
			kdapl_ep_link_handle(ep->connect_evd);
	if (mask & DAT_EP_FIELD_SRQ_HANDLE)
		param->srq_handle = kdapl_ep_link_handle(ep->srq);
	kdapl_ep_attr_merge(attr, &ep->attr, mask);
	if (mask & DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR)
		attr->ep_transport_specific_count = 0;
	if (mask & DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR)
		attr->ep_transport_specific = NULL;
	if (mask & DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR)
		attr->ep_provider_specific_count = 0;
	if (mask & DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR)
		attr->ep_provider_specific = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);
out:
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_query);

/**
 * dat_ep_query() - read parameters of an Endpoint
 * @ep_handle: the EP
 * @mask: DAT_EP_FIELD_* bits of the parameters wanted
 * @param: filled with the parameters selected by @mask; other fields are
 *	not written
 *
 * Handles of objects the EP does not use are DAT_HANDLE_NULL.  The
 * address pointers point into the EP and stay valid until it is freed;
 * the addresses are all zero until a connection sets them.  No transport
 * or provider specific attribute exists: counts 0, pointers NULL.  The
 * communicator triple is all zero (an EP is not a socket).
 *
 * Context: any context.
 * Return:
 * * %DAT_SUCCESS - done.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an EP.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @mask has bits outside
 *   %DAT_EP_FIELD_ALL.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @param is NULL.
 */
DAT_RETURN dat_ep_query(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK mask,
			DAT_EP_PARAM *param)
{
	return kdapl_ep_query(&kdapl_kernel_owner, ep_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_ep_query);

/*
 * The states in which every field of @mask may be modified, or 0 if one
 * of them never may be.
 */
static u32 kdapl_ep_modify_states(DAT_EP_PARAM_MASK mask)
{
	u32 states = ~0U;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kdapl_ep_fields); i++)
		if (mask & kdapl_ep_fields[i].field)
			states &= kdapl_ep_fields[i].states;
	return states;
}

/*
 * Look up the objects a modification of @mask names, into @found (each
 * with a reference), and make @links the objects the EP will use.  The
 * IA lock is held, so the objects the EP uses now stay.
 */
static DAT_RETURN kdapl_ep_modify_links(struct kdapl_ep *ep,
					DAT_EP_PARAM_MASK mask,
					const DAT_EP_PARAM *param,
					struct kdapl_ep_links *found,
					struct kdapl_ep_links *links)
{
	DAT_RETURN bad = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	struct kdapl_ia *ia = ep->obj.ia;
	DAT_RETURN ret;

	memset(found, 0, sizeof(*found));
	*links = (struct kdapl_ep_links) {
		.pz = ep->pz,
		.recv_evd = ep->recv_evd,
		.request_evd = ep->request_evd,
		.connect_evd = ep->connect_evd,
		.srq = ep->srq,
	};

	if (mask & DAT_EP_FIELD_PZ_HANDLE) {
		ret = kdapl_ep_get_pz(ia, param->pz_handle, bad, &found->pz);
		if (ret)
			goto err;
		links->pz = found->pz;
	}
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE) {
		ret = kdapl_ep_get_evd(ia, param->recv_evd_handle,
				       DAT_EVD_DTO_FLAG, bad,
				       &found->recv_evd);
		if (ret)
			goto err;
		links->recv_evd = found->recv_evd;
	}
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE) {
		ret = kdapl_ep_get_evd(ia, param->request_evd_handle,
				       DAT_EVD_DTO_FLAG, bad,
				       &found->request_evd);
		if (ret)
			goto err;
		links->request_evd = found->request_evd;
	}
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE) {
		ret = kdapl_ep_get_evd(ia, param->connect_evd_handle,
				       DAT_EVD_CONNECTION_FLAG, bad,
				       &found->connect_evd);
		if (ret)
			goto err;
		links->connect_evd = found->connect_evd;
	}
	return DAT_SUCCESS;

err:
	kdapl_ep_links_put(found);
	return ret;
}

/**
 * struct kdapl_ep_streams - where the completion streams of an EP go
 * @recv_evd: EVD of the receive stream, or NULL
 * @recv_flags: receive completion flags
 * @request_evd: EVD of the request stream, or NULL
 * @request_flags: request completion flags
 */
struct kdapl_ep_streams {
	struct kdapl_evd *recv_evd;
	DAT_COMPLETION_FLAGS recv_flags;
	struct kdapl_evd *request_evd;
	DAT_COMPLETION_FLAGS request_flags;
};

/*
 * Move the stream registrations of an EP from @from to @to; a stream
 * whose EVD and flags stay is left alone.  All or nothing: on failure
 * the @from registrations are back.  The IA lock is held.
 */
static DAT_RETURN kdapl_ep_move_streams(const struct kdapl_ep_streams *from,
					const struct kdapl_ep_streams *to)
{
	bool recv = from->recv_evd != to->recv_evd ||
		    from->recv_flags != to->recv_flags;
	bool request = from->request_evd != to->request_evd ||
		       from->request_flags != to->request_flags;
	DAT_RETURN ret;

	if (!recv && !request)
		return DAT_SUCCESS;

	/* Detach first: the new flags may only fit without the old ones. */
	kdapl_ep_detach_streams(recv ? from->recv_evd : NULL,
				request ? from->request_evd : NULL);
	ret = kdapl_ep_attach_streams(recv ? to->recv_evd : NULL,
				      to->recv_flags,
				      request ? to->request_evd : NULL,
				      to->request_flags);
	/* What was registered a moment ago fits again. */
	if (ret)
		WARN_ON_ONCE(kdapl_ep_attach_streams(recv ? from->recv_evd :
							    NULL,
						     from->recv_flags,
						     request ?
						     from->request_evd : NULL,
						     from->request_flags));
	return ret;
}

/*
 * May the EP be modified as asked, in the state it is in?  IA lock held;
 * @states are those every field of @mask may change in.
 */
static DAT_RETURN kdapl_ep_modify_check(struct kdapl_ep *ep,
					DAT_EP_PARAM_MASK mask,
					const DAT_EP_PARAM *param, u32 states)
{
	struct kdapl_ia *ia = ep->obj.ia;
	unsigned long flags;
	DAT_EP_STATE state;

	lockdep_assert_held(&ia->lock);
	if (!kdapl_ep_alive(ep))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	spin_lock_irqsave(&ep->lock, flags);
	state = ep->state;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!kdapl_ep_state_in(state, states))
		return kdapl_ep_state_error(state);
	/* ep->attr changes only under the IA lock, which is held. */
	if ((mask & DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) &&
	    READ_ONCE(ep->recvs_posted) &&
	    param->ep_attr.recv_completion_flags !=
	    ep->attr.recv_completion_flags)
		return kdapl_ep_state_error(state);
	if (!ia->ibdev)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	/* An EP keeps the service type it was created with. */
	if (((mask & DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE) &&
	     param->ep_attr.service_type != ep->attr.service_type) ||
	    !kdapl_ep_attr_ok(ia, &param->ep_attr, mask))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return DAT_SUCCESS;
}

/*
 * Give the EP the objects of @links and the attributes @attr, unless the
 * connection code moved it out of @states meanwhile (or a receive was
 * posted since the check of its completion flags).  Returns the objects
 * replaced in @old.  IA lock held, streams already moved.
 */
static DAT_RETURN kdapl_ep_modify_commit(struct kdapl_ep *ep,
					 DAT_EP_PARAM_MASK mask, u32 states,
					 const DAT_EP_ATTR *attr,
					 const struct kdapl_ep_links *links,
					 struct kdapl_ep_links *old)
{
	unsigned long flags;
	DAT_EP_STATE state;

	spin_lock_irqsave(&ep->lock, flags);
	state = ep->state;
	if (!kdapl_ep_state_in(state, states) ||
	    ((mask & DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) &&
	     ep->recvs_posted &&
	     attr->recv_completion_flags != ep->attr.recv_completion_flags)) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return kdapl_ep_state_error(state);
	}
	*old = (struct kdapl_ep_links) {};
	if (mask & DAT_EP_FIELD_PZ_HANDLE)
		old->pz = ep->pz;
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		old->recv_evd = ep->recv_evd;
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		old->request_evd = ep->request_evd;
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		old->connect_evd = ep->connect_evd;
	/* Receives posted for the old PZ fail with the old receive EVD. */
	if (links->pz != ep->pz)
		kdapl_dto_pz_changed(ep, links->pz);
	ep->pz = links->pz;
	ep->recv_evd = links->recv_evd;
	ep->request_evd = links->request_evd;
	ep->connect_evd = links->connect_evd;
	ep->attr = *attr;
	spin_unlock_irqrestore(&ep->lock, flags);
	return DAT_SUCCESS;
}

/* The arguments of dat_ep_modify() that need no EP; *@states if good. */
static DAT_RETURN kdapl_ep_modify_args(DAT_EP_PARAM_MASK mask,
				       const DAT_EP_PARAM *param, u32 *states)
{
	if (mask & ~DAT_EP_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	*states = kdapl_ep_modify_states(mask);
	if (!*states)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return DAT_SUCCESS;
}

/**
 * kdapl_ep_modify() - dat_ep_modify() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_modify()
 * @mask: as for dat_ep_modify()
 * @param: as for dat_ep_modify()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_modify().
 * Return: as dat_ep_modify().
 */
DAT_RETURN kdapl_ep_modify(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle,
			   DAT_EP_PARAM_MASK mask, const DAT_EP_PARAM *param)
{
	struct kdapl_ep_links found, links, old;
	struct kdapl_ep_streams from, to;
	DAT_EP_ATTR attr;
	struct kdapl_ia *ia;
	struct kdapl_ep *ep;
	DAT_RETURN ret;
	u32 states;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	ia = ep->obj.ia;
	if (!mask)	/* nothing to change, nothing read */
		goto put;
	ret = kdapl_ep_modify_args(mask, param, &states);
	if (ret)
		goto put;

	mutex_lock(&ia->lock);
	ret = kdapl_ep_modify_check(ep, mask, param, states);
	if (ret)
		goto unlock;
	attr = ep->attr;
	kdapl_ep_attr_merge(&attr, &param->ep_attr, mask);
	ret = kdapl_ep_modify_links(ep, mask, param, &found, &links);
	if (ret)
		goto unlock;
	from = (struct kdapl_ep_streams) {
		.recv_evd = ep->recv_evd,
		.recv_flags = ep->attr.recv_completion_flags,
		.request_evd = ep->request_evd,
		.request_flags = ep->attr.request_completion_flags,
	};
	to = (struct kdapl_ep_streams) {
		.recv_evd = links.recv_evd,
		.recv_flags = attr.recv_completion_flags,
		.request_evd = links.request_evd,
		.request_flags = attr.request_completion_flags,
	};
	ret = kdapl_ep_move_streams(&from, &to);
	if (ret) {
		ret = kdapl_ep_stream_error(ret, DAT_INVALID_ARG3);
		goto put_found;
	}
	ret = kdapl_ep_modify_commit(ep, mask, states, &attr, &links, &old);
	if (ret) {
		WARN_ON_ONCE(kdapl_ep_move_streams(&to, &from));
		goto put_found;
	}
	/* The replaced objects, in @old, give way to those in @found. */
	kdapl_ep_links_use(&found, true);
	kdapl_ep_links_use(&old, false);
	/* The EP keeps the references of @found and drops those of @old. */
	kdapl_ep_links_put(&old);
	goto unlock;

put_found:
	kdapl_ep_links_put(&found);
unlock:
	mutex_unlock(&ia->lock);
put:
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_modify);

/**
 * dat_ep_modify() - change parameters of an Endpoint
 * @ep_handle: the EP
 * @mask: DAT_EP_FIELD_* bits of the parameters to change
 * @param: the new values of the parameters selected by @mask
 *
 * Which parameter may change in which state follows the table of the
 * DAT specification (kdapl_ep_fields[]): the PZ only in the quiescent
 * states (UNCONNECTED, TENTATIVE_CONNECTION_PENDING); the EVDs and the
 * attributes before a connection is requested or accepted
 * (UNCONNECTED, RESERVED, PASSIVE_CONNECTION_PENDING,
 * TENTATIVE_CONNECTION_PENDING); the transport and provider specific
 * attributes only when UNCONNECTED; the IA, state, communicator,
 * addresses, port qualifiers and SRQ never.  The receive completion
 * flags cannot change once a receive was posted.  New handles are
 * checked as dat_ep_create() checks them, and the streams move to the
 * new EVDs under the same completion-flag rules.  Nothing changes unless
 * everything can.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - done (also for an empty @mask).
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an EP
 *   (or the EP is freed meanwhile).
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @mask has bits outside
 *   %DAT_EP_FIELD_ALL or selects a parameter that can never be modified.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - the EP is in a state
 *   (named by the subtype) in which one of the parameters cannot be
 *   modified, or the receive completion flags would change after
 *   receives were posted.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @param is NULL, or a new
 *   value is invalid, unsupported or above the device limits, or a new
 *   handle is not a PZ or an EVD of the IA taking the stream.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - the new completion
 *   flags or EVDs break the rules for the streams sharing an EVD (see
 *   dat_ep_create()).
 * * %DAT_INVALID_STATE - the IA lost its device.
 */
DAT_RETURN dat_ep_modify(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK mask,
			 const DAT_EP_PARAM *param)
{
	return kdapl_ep_modify(&kdapl_kernel_owner, ep_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_ep_modify);

/*
 * No receive outstanding at the EP.  An EP with an SRQ posts none of its
 * own, but the device may be filling one it took from the SRQ whenever
 * its QP exists: it is idle only without one (the QP is drained and
 * destroyed before the EP lets go of it).
 */
static bool kdapl_ep_recv_idle(struct kdapl_ep *ep)
{
	if (READ_ONCE(ep->srq))
		return !READ_ONCE(ep->qp);
	return !atomic_read(&ep->recv_outstanding);
}

/**
 * kdapl_ep_get_status() - dat_ep_get_status() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_get_status()
 * @ep_state: as for dat_ep_get_status()
 * @recv_idle: as for dat_ep_get_status()
 * @request_idle: as for dat_ep_get_status()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_get_status().
 * Return: as dat_ep_get_status().
 */
DAT_RETURN kdapl_ep_get_status(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			       DAT_BOOLEAN *recv_idle,
			       DAT_BOOLEAN *request_idle)
{
	struct kdapl_ep *ep;
	unsigned long flags;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	if (ep_state) {
		spin_lock_irqsave(&ep->lock, flags);
		*ep_state = ep->state;
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	if (recv_idle)
		*recv_idle = kdapl_ep_recv_idle(ep) ? DAT_TRUE : DAT_FALSE;
	if (request_idle)
		*request_idle = atomic_read(&ep->request_outstanding) ?
				DAT_FALSE : DAT_TRUE;
	kdapl_object_put(&ep->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_get_status);

/**
 * dat_ep_get_status() - snapshot of the state and activity of an Endpoint
 * @ep_handle: the EP
 * @ep_state: where to store the state, or NULL
 * @recv_idle: where to store whether no receive is outstanding, or NULL
 * @request_idle: where to store whether no send, RDMA operation or RMR
 *	bind is outstanding, or NULL
 *
 * A snapshot only: the values may be stale by the time they are read.
 * A request is outstanding until it completes, unsignalled ones too.  An
 * EP with an SRQ has a receive outstanding whenever its connection's QP
 * exists, since the device may be filling one it took from the SRQ.
 *
 * Context: any context.
 * Return:
 * * %DAT_SUCCESS - done.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an EP.
 */
DAT_RETURN dat_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			     DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *request_idle)
{
	return kdapl_ep_get_status(&kdapl_kernel_owner, ep_handle, ep_state,
				   recv_idle, request_idle);
}
EXPORT_SYMBOL_GPL(dat_ep_get_status);

/* Is @ep_handle an EP of @owner?  DAT_SUCCESS or DAT_INVALID_HANDLE. */
static DAT_RETURN kdapl_ep_check(struct kdapl_owner *owner,
				 DAT_EP_HANDLE ep_handle)
{
	struct kdapl_ep *ep;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (!ret)
		kdapl_object_put(&ep->obj);
	return ret;
}

/**
 * kdapl_ep_recv_query() - dat_ep_recv_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_recv_query()
 * @nbufs_allocated: as for dat_ep_recv_query()
 * @bufs_alloc_span: as for dat_ep_recv_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_recv_query().
 * Return: as dat_ep_recv_query().
 */
DAT_RETURN kdapl_ep_recv_query(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle,
			       DAT_COUNT *nbufs_allocated,
			       DAT_COUNT *bufs_alloc_span)
{
	DAT_RETURN ret = kdapl_ep_check(owner, ep_handle);

	if (ret)
		return ret;
	if (!nbufs_allocated)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!bufs_alloc_span)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_recv_query);

/**
 * dat_ep_recv_query() - receive buffers held at an Endpoint
 * @ep_handle: the EP
 * @nbufs_allocated: where to store the receives the EP holds
 * @bufs_alloc_span: where to store the bytes they span
 *
 * kdapl does not follow the bytes of the receives an EP holds, and an EP
 * with an SRQ holds at most the receive its device is filling: the
 * provider attribute ep_recv_info_supported is 0, and the query is not
 * supported.  dat_ep_get_status() says whether any receive is held.
 *
 * Context: any context.
 * Return:
 * * %DAT_MODEL_NOT_SUPPORTED - for every EP.
 * * %DAT_INVALID_HANDLE - bad handle (%DAT_INVALID_HANDLE_EP).
 * * %DAT_INVALID_PARAMETER - @nbufs_allocated (%DAT_INVALID_ARG2) or
 *   @bufs_alloc_span (%DAT_INVALID_ARG3) is NULL.
 */
DAT_RETURN dat_ep_recv_query(DAT_EP_HANDLE ep_handle,
			     DAT_COUNT *nbufs_allocated,
			     DAT_COUNT *bufs_alloc_span)
{
	return kdapl_ep_recv_query(&kdapl_kernel_owner, ep_handle,
				   nbufs_allocated, bufs_alloc_span);
}
EXPORT_SYMBOL_GPL(dat_ep_recv_query);

/* A high watermark: DAT_WATERMARK_INFINITE (none) or a count. */
static bool kdapl_ep_watermark_ok(DAT_COUNT wm)
{
	return wm == DAT_WATERMARK_INFINITE || wm >= 0;
}

/**
 * kdapl_ep_set_watermark() - dat_ep_set_watermark() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_set_watermark()
 * @soft_high_watermark: as for dat_ep_set_watermark()
 * @hard_high_watermark: as for dat_ep_set_watermark()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_set_watermark().
 * Return: as dat_ep_set_watermark().
 */
DAT_RETURN kdapl_ep_set_watermark(struct kdapl_owner *owner,
				  DAT_EP_HANDLE ep_handle,
				  DAT_COUNT soft_high_watermark,
				  DAT_COUNT hard_high_watermark)
{
	DAT_RETURN ret = kdapl_ep_check(owner, ep_handle);

	if (ret)
		return ret;
	if (!kdapl_ep_watermark_ok(soft_high_watermark))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!kdapl_ep_watermark_ok(hard_high_watermark))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (soft_high_watermark != DAT_WATERMARK_INFINITE ||
	    hard_high_watermark != DAT_WATERMARK_INFINITE)
		return dat_error(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_set_watermark);

/**
 * dat_ep_set_watermark() - arm the high watermarks of an Endpoint
 * @ep_handle: the EP
 * @soft_high_watermark: receives held at the EP above which the IA's
 *	async EVD is told, or DAT_WATERMARK_INFINITE for none
 * @hard_high_watermark: receives held above which the connection
 *	breaks, or DAT_WATERMARK_INFINITE for none
 *
 * An EP holds at most the receive its device is filling (kdapl's SRQs
 * give a QP its receives one message at a time), so kdapl offers no
 * high watermarks: the provider attribute srq_watermarks_supported
 * counts the SRQ's low watermark only.  Disarming both is accepted.
 *
 * Context: any context.
 * Return:
 * * %DAT_SUCCESS - both watermarks are DAT_WATERMARK_INFINITE.
 * * %DAT_MODEL_NOT_SUPPORTED - a finite watermark.
 * * %DAT_INVALID_HANDLE - bad handle (%DAT_INVALID_HANDLE_EP).
 * * %DAT_INVALID_PARAMETER - a negative watermark other than
 *   DAT_WATERMARK_INFINITE (%DAT_INVALID_ARG2, %DAT_INVALID_ARG3).
 */
DAT_RETURN dat_ep_set_watermark(DAT_EP_HANDLE ep_handle,
				DAT_COUNT soft_high_watermark,
				DAT_COUNT hard_high_watermark)
{
	return kdapl_ep_set_watermark(&kdapl_kernel_owner, ep_handle,
				      soft_high_watermark,
				      hard_high_watermark);
}
EXPORT_SYMBOL_GPL(dat_ep_set_watermark);

/**
 * kdapl_ep_reset() - dat_ep_reset() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_reset()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_reset().
 * Return: as dat_ep_reset().
 */
DAT_RETURN kdapl_ep_reset(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle)
{
	struct kdapl_ia *ia;
	struct kdapl_ep *ep;
	unsigned long flags;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	ia = ep->obj.ia;

	mutex_lock(&ia->lock);
	if (!kdapl_ep_alive(ep)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto unlock;
	}
	spin_lock_irqsave(&ep->lock, flags);
	if (ep->state == DAT_EP_STATE_UNCONNECTED) {
		/* Nothing to do: the receives posted stay. */
		spin_unlock_irqrestore(&ep->lock, flags);
		goto unlock;
	}
	if (ep->state != DAT_EP_STATE_DISCONNECTED) {
		ret = kdapl_ep_state_error(ep->state);
	} else if (atomic_read(&ep->recv_outstanding) ||
		   atomic_read(&ep->request_outstanding)) {
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EP_COMPLPENDING);
	} else {
		ep->state = DAT_EP_STATE_UNCONNECTED;
		memset(&ep->local_addr, 0, sizeof(ep->local_addr));
		memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
		ep->local_port = 0;
		ep->remote_port = 0;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	/* The queue pair and identifier of the old connection go. */
	if (!ret)
		kdapl_cm_ep_reset(ep);
unlock:
	mutex_unlock(&ia->lock);
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_reset);

/**
 * dat_ep_reset() - bring a disconnected Endpoint back to UNCONNECTED
 * @ep_handle: the EP
 *
 * Allowed in DAT_EP_STATE_DISCONNECTED once every DTO posted to the EP
 * has completed; the EP keeps its attributes, PZ and EVDs and can be
 * connected again.  In DAT_EP_STATE_UNCONNECTED it does nothing, as DAT
 * says: the receives posted there stay.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - the EP is in DAT_EP_STATE_UNCONNECTED.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an EP
 *   (or the EP is freed meanwhile).
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_* - the EP is neither
 *   disconnected nor unconnected; the subtype names its state.
 * * %DAT_INVALID_STATE | %DAT_INVALID_STATE_EP_COMPLPENDING - the EP is
 *   disconnected but DTOs are still outstanding.
 */
DAT_RETURN dat_ep_reset(DAT_EP_HANDLE ep_handle)
{
	return kdapl_ep_reset(&kdapl_kernel_owner, ep_handle);
}
EXPORT_SYMBOL_GPL(dat_ep_reset);

/*
 * Release everything an EP holds on other objects and unlink it from its
 * IA, whatever its state.  The EP is already unpublished; the IA lock is
 * held.
 */
static void kdapl_ep_destroy(struct kdapl_ep *ep)
{
	struct kdapl_ia *ia = ep->obj.ia;
	struct kdapl_ep_links links;
	unsigned long flags;

	lockdep_assert_held(&ia->lock);

	/*
	 * A connected or connecting EP is torn down (disconnected abruptly,
	 * its connection identifier and queue pair destroyed, its DTOs
	 * flushed) before its EVDs are let go.
	 */
	kdapl_cm_ep_destroy(ep);
	kdapl_dto_ep_fini(ep);
	kdapl_ud_ep_fini(ep);

	spin_lock_irqsave(&ep->lock, flags);
	links = (struct kdapl_ep_links) {
		.pz = ep->pz,
		.recv_evd = ep->recv_evd,
		.request_evd = ep->request_evd,
		.connect_evd = ep->connect_evd,
		.srq = ep->srq,
	};
	ep->pz = NULL;
	ep->recv_evd = NULL;
	ep->request_evd = NULL;
	ep->connect_evd = NULL;
	ep->srq = NULL;
	spin_unlock_irqrestore(&ep->lock, flags);

	kdapl_ep_detach_streams(links.recv_evd, links.request_evd);
	kdapl_ep_links_use(&links, false);
	kdapl_ep_links_put(&links);
	kdapl_ia_del_object(ia, &ep->obj);
}

/**
 * kdapl_ep_free() - dat_ep_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ep_handle: as for dat_ep_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ep_free().
 * Return: as dat_ep_free().
 */
DAT_RETURN kdapl_ep_free(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle)
{
	struct kdapl_ia *ia;
	struct kdapl_ep *ep;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ep_handle, EP, DAT_INVALID_HANDLE_EP, &ep);
	if (ret)
		return ret;
	ia = ep->obj.ia;

	mutex_lock(&ia->lock);
	if (kdapl_object_unpublish(&ep->obj))
		kdapl_ep_destroy(ep);
	else
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	mutex_unlock(&ia->lock);
	kdapl_object_put(&ep->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_free);

/**
 * dat_ep_free() - free an Endpoint
 * @ep_handle: the EP
 *
 * Allowed in any state: a connection is broken first.  The PZ, EVDs and
 * SRQ the EP used can be freed afterwards.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - the EP is freed, its handle is no longer valid.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_EP - @ep_handle is not an EP
 *   (or another thread freed it first).
 */
DAT_RETURN dat_ep_free(DAT_EP_HANDLE ep_handle)
{
	return kdapl_ep_free(&kdapl_kernel_owner, ep_handle);
}
EXPORT_SYMBOL_GPL(dat_ep_free);

/**
 * kdapl_ep_set_state() - force the state of an Endpoint
 * @ep: the EP
 * @state: its new state
 *
 * For the connection code and the KUnit suite, which puts EPs in every
 * state without connecting them.
 *
 * Context: any context.
 */
void kdapl_ep_set_state(struct kdapl_ep *ep, DAT_EP_STATE state)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->state = state;
	spin_unlock_irqrestore(&ep->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ep_set_state);

/* Abrupt IA close: free the EP in whatever state it is. */
static void kdapl_ep_force_free(struct kdapl_object *obj)
{
	struct kdapl_ep *ep = container_of(obj, struct kdapl_ep, obj);

	kdapl_object_unpublish(obj);
	kdapl_ep_destroy(ep);
}

/*
 * The device is going away.  The EP stays, with its PZ and EVDs, for the
 * consumer to query and free.
 */
static void kdapl_ep_detach(struct kdapl_object *obj)
{
	lockdep_assert_held(&obj->ia->lock);
	/*
	 * The queue pair and the connection identifier are destroyed, a
	 * connected EP becomes disconnected.
	 */
	kdapl_cm_ep_break(container_of(obj, struct kdapl_ep, obj));
}

static void kdapl_ep_release(struct kdapl_object *obj)
{
	struct kdapl_ep *ep = container_of(obj, struct kdapl_ep, obj);

	kfree_rcu(ep, obj.rcu);
}

const struct kdapl_type_ops kdapl_ep_type = {
	.name = "ep",
	.bad_handle = DAT_INVALID_HANDLE_EP,
	.close_rank = 10,
	.free = kdapl_ep_force_free,
	.detach = kdapl_ep_detach,
	.release = kdapl_ep_release,
};
