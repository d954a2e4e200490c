// SPDX-License-Identifier: GPL-2.0
/*
 * Event Dispatchers.  Each EVD's events arrive in a ring the kernel
 * fills and the shim maps: dat_evd_dequeue() reads the ring without a
 * system call, and dat_evd_wait() sleeps in the kernel only when the
 * ring holds fewer events than its threshold.  See
 * Documentation/userapi.rst for the ring's memory ordering.
 *
 * The kernel's events carry cookies: an EVD's cookie, and the cookie of
 * every object an event names, is the address of the shim's object, so
 * an event becomes a DAT_EVENT with the consumer's handles in it.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "shim.h"

/**
 * shim_evd_map() - map the ring of an EVD the kernel created
 * @evd: the shim's EVD, from shim_obj_new(); its address was the cookie
 *	the kernel was given
 * @id: its id
 * @size: the ring's size
 * @offset: the ring's mmap offset
 * @qlen: its queue length
 * @flags: its DAT_EVD_FLAGS
 *
 * Return: 0, or -1 if the ring cannot be mapped.
 */
int shim_evd_map(struct shim_evd *evd, __u32 id, __u64 size,
		 __u64 offset, DAT_COUNT qlen, DAT_EVD_FLAGS flags)
{
	void *p;

	evd->obj.id = id;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 evd->obj.ia->fd, offset);
	if (p == MAP_FAILED)
		return -1;
	evd->hdr = p;
	evd->ev = (struct kdapl_uevent *)((char *)p + KDAPL_RING_EVENTS);
	evd->ext = NULL;
	if (evd->hdr->ext_offset)
		evd->ext = (struct kdapl_uevent_ext *)((char *)p +
						       evd->hdr->ext_offset);
	evd->map_size = size;
	evd->map_offset = offset;
	evd->qlen = qlen;
	evd->flags = flags;
	return 0;
}

/**
 * shim_evd_unmap() - forget an EVD the kernel freed
 * @evd: the EVD
 */
void shim_evd_unmap(struct shim_evd *evd)
{
	shim_evd_forget(evd);
	shim_obj_free(&evd->obj);
}

/**
 * shim_evd_forget() - unmap the ring of an EVD its IA's close freed
 * @evd: the EVD, whose handle is dead (see shim_ia_forget())
 */
void shim_evd_forget(struct shim_evd *evd)
{
	if (evd->hdr)
		munmap(evd->hdr, evd->map_size);
	evd->hdr = NULL;
}

static struct shim_evd *shim_evd_get(DAT_EVD_HANDLE handle)
{
	return (struct shim_evd *)shim_obj_get(handle, DAT_HANDLE_TYPE_EVD);
}

/* Events in the ring. */
static __u32 shim_evd_count(struct shim_evd *evd)
{
	__u32 tail = __atomic_load_n(&evd->hdr->tail, __ATOMIC_ACQUIRE);

	return tail - evd->hdr->head;
}

/* The consumer's handle for an object named by an event. */
static DAT_HANDLE shim_evd_handle(struct shim_evd *evd, __u64 cookie)
{
	if (!cookie)
		return (DAT_HANDLE)evd->obj.ia;
	return (DAT_HANDLE)(uintptr_t)cookie;
}

/*
 * The private data of a connection event, kept with its EP.  An event
 * without any still points at the EP's buffer, as OFA's provider does:
 * dtestcm reads the private data of every connection event it waits for.
 */
static void shim_evd_conn_pdata(const struct kdapl_uevent *u,
				const struct kdapl_uevent_ext *x,
				DAT_CONNECTION_EVENT_DATA *conn)
{
	struct shim_ep *ep = (struct shim_ep *)conn->ep_handle;

	conn->private_data_size = 0;
	conn->private_data = NULL;
	if (!shim_obj_get(conn->ep_handle, DAT_HANDLE_TYPE_EP))
		return;
	conn->private_data = ep->pdata;
	if (!x || !u->length || u->length > sizeof(ep->pdata))
		return;
	memcpy(ep->pdata, x->private_data, u->length);
	conn->private_data_size = u->length;
}

/* The DTO completion data of a DTO event and of a DAT_IB_DTO_EVENT. */
static void shim_evd_dto(const struct kdapl_uevent *u,
			 DAT_DTO_COMPLETION_EVENT_DATA *dto)
{
	dto->ep_handle = (DAT_EP_HANDLE)(uintptr_t)u->data[0];
	dto->user_cookie.as_64 = u->cookie;
	dto->status = u->status;
	dto->transfered_length = u->length;
	dto->operation = u->data[1];
	dto->rmr_context = u->data[2];
}

/*
 * The DAT_EVENT of a ring event.  Returns false if the shim has no
 * memory for the CR handle a connection request needs.
 */
static bool shim_evd_convert(struct shim_evd *evd,
			     const struct kdapl_uevent *u,
			     const struct kdapl_uevent_ext *x, DAT_EVENT *e)
{
	DAT_CR_ARRIVAL_EVENT_DATA *cr = &e->event_data.cr_arrival_event_data;
	DAT_DTO_COMPLETION_EVENT_DATA *dto =
		&e->event_data.dto_completion_event_data;
	DAT_CONNECTION_EVENT_DATA *conn = &e->event_data.connect_event_data;
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *rmr =
		&e->event_data.rmr_completion_event_data;

	e->event_number = u->number;
	e->evd_handle = (DAT_EVD_HANDLE)evd;
	switch (u->number) {
	case DAT_DTO_COMPLETION_EVENT:
		shim_evd_dto(u, dto);
		break;
	case DAT_IB_DTO_EVENT:
		/* A DTO completion, with the IB extension's data. */
		shim_evd_dto(u, dto);
		shim_ext_event(u, e);
		break;
	case DAT_CONNECTION_REQUEST_EVENT:
	case DAT_IB_UD_CONNECTION_REQUEST_EVENT:
		cr->sp_handle.psp_handle = (DAT_PSP_HANDLE)(uintptr_t)u->cookie;
		cr->local_ia_address_ptr =
			(DAT_IA_ADDRESS_PTR)&evd->obj.ia->addr;
		cr->conn_qual = u->data[0];
		cr->cr_handle = shim_cr_from_event(evd->obj.ia, u, x);
		if (u->new_id && !cr->cr_handle)
			return false;
		break;
	case DAT_CONNECTION_EVENT_ESTABLISHED:
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
	case DAT_CONNECTION_EVENT_DISCONNECTED:
	case DAT_CONNECTION_EVENT_BROKEN:
	case DAT_CONNECTION_EVENT_TIMED_OUT:
	case DAT_CONNECTION_EVENT_UNREACHABLE:
		conn->ep_handle = (DAT_EP_HANDLE)(uintptr_t)u->cookie;
		shim_evd_conn_pdata(u, x, conn);
		break;
	case DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED:
	case DAT_IB_UD_CONNECTION_REJECT_EVENT:
	case DAT_IB_UD_CONNECTION_ERROR_EVENT:
		/* A datagram EP's resolution, with the extension's data. */
		conn->ep_handle = (DAT_EP_HANDLE)(uintptr_t)u->cookie;
		shim_evd_conn_pdata(u, x, conn);
		if (!shim_ext_ud_event(u, x, e))
			return false;
		break;
	case DAT_SOFTWARE_EVENT:
		e->event_data.software_event_data.pointer =
			(DAT_PVOID)(uintptr_t)u->data[0];
		break;
	case DAT_RMR_BIND_COMPLETION_EVENT:
		rmr->rmr_handle = (DAT_RMR_HANDLE)(uintptr_t)u->data[0];
		rmr->user_cookie.as_64 = u->cookie;
		rmr->status = u->status;
		break;
	case DAT_ASYNC_ERROR_EVD_OVERFLOW:
	case DAT_ASYNC_ERROR_IA_CATASTROPHIC:
	case DAT_ASYNC_ERROR_EP_BROKEN:
	case DAT_ASYNC_ERROR_TIMED_OUT:
	case DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR:
		e->event_data.asynch_error_event_data.dat_handle =
			shim_evd_handle(evd, u->cookie);
		e->event_data.asynch_error_event_data.reason = u->status;
		break;
	default:
		break;
	}
	return true;
}

/*
 * Take the oldest event; the ring must hold one.  Without memory for
 * what the event brings, it stays in the ring for the next call.
 */
static DAT_RETURN shim_evd_pop(struct shim_evd *evd, DAT_EVENT *event)
{
	__u32 head = evd->hdr->head;
	__u32 slot = head & (evd->hdr->entries - 1);

	if (!shim_evd_convert(evd, &evd->ev[slot],
			      evd->ext ? &evd->ext[slot] : NULL, event))
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	/* The slot is read before the kernel may reuse it. */
	__atomic_store_n(&evd->hdr->head, head + 1, __ATOMIC_RELEASE);
	return DAT_SUCCESS;
}

DAT_RETURN shim_evd_dequeue(DAT_EVD_HANDLE handle, DAT_EVENT *event)
{
	struct shim_evd *evd = shim_evd_get(handle);

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (!event)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (evd->unmapped)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	shim_evd_tally(evd, DCNT_EVD_DEQUEUE);
	/*
	 * Plain DAT_QUEUE_EMPTY, without the error class, as OFA's provider
	 * returns for completion streams: dtest -p compares the whole value.
	 */
	if (!shim_evd_count(evd)) {
		shim_evd_tally(evd, DCNT_EVD_DEQUEUE_NOT_FOUND);
		return DAT_QUEUE_EMPTY;
	}
	shim_evd_tally(evd, DCNT_EVD_DEQUEUE_FOUND);
	return shim_evd_pop(evd, event);
}

DAT_RETURN shim_evd_wait(DAT_EVD_HANDLE handle, DAT_TIMEOUT timeout,
			 DAT_COUNT threshold, DAT_EVENT *event,
			 DAT_COUNT *nmore)
{
	struct shim_evd *evd = shim_evd_get(handle);
	struct kdapl_ioc_evd_wait w = { 0 };
	DAT_RETURN ret;
	__u32 n;

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (threshold <= 0 || threshold > evd->qlen)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!event)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (evd->unmapped)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	if (__atomic_load_n(&evd->state, __ATOMIC_RELAXED) &
	    KDAPL_EVD_UNWAITABLE)
		return SHIM_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EVD_UNWAITABLE);
	shim_evd_tally(evd, DCNT_EVD_WAIT);
	while ((n = shim_evd_count(evd)) < (__u32)threshold) {
		w.evd_id = evd->obj.id;
		w.threshold = threshold;
		w.timeout_us = timeout;
		shim_evd_tally(evd, DCNT_EVD_WAIT_BLOCKED);
		ret = SHIM_CALL(evd->obj.ia, EVD_WAIT, w);
		if (ret == DAT_SUCCESS)
			shim_evd_tally(evd, DCNT_EVD_WAIT_NOTIFY);
		if (ret != DAT_SUCCESS) {
			if (nmore)
				*nmore = shim_evd_count(evd);
			return ret;
		}
	}
	ret = shim_evd_pop(evd, event);
	if (nmore)
		*nmore = ret == DAT_SUCCESS ? n - 1 : n;
	return ret;
}

DAT_RETURN shim_evd_post_se(DAT_EVD_HANDLE handle, const DAT_EVENT *event)
{
	struct shim_evd *evd = shim_evd_get(handle);
	struct kdapl_ioc_evd_post_se p = { 0 };

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (!event || event->event_number != DAT_SOFTWARE_EVENT)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	p.evd_id = evd->obj.id;
	p.pointer = (uintptr_t)event->event_data.software_event_data.pointer;
	return SHIM_CALL(evd->obj.ia, EVD_POST_SE, p);
}

DAT_RETURN shim_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT qlen,
			   DAT_CNO_HANDLE cno, DAT_EVD_FLAGS flags,
			   DAT_EVD_HANDLE *evd_handle)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(ia_handle,
							    DAT_HANDLE_TYPE_IA);
	struct kdapl_ioc_evd_create c = { 0 };
	struct shim_evd *evd;
	__u32 c_id = 0;
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (qlen <= 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (cno != DAT_HANDLE_NULL) {
		struct shim_obj *c = shim_obj_get(cno, DAT_HANDLE_TYPE_CNO);

		if (!c || c->ia != ia)
			return SHIM_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_CNO);
		c_id = c->id;
	}
	if (!evd_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	evd = shim_obj_new(sizeof(*evd), DAT_HANDLE_TYPE_EVD, ia);
	if (!evd)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	c.ia_id = ia->obj.id;
	c.qlen = qlen;
	c.flags = flags;
	c.cno_id = c_id;
	c.cookie = (uintptr_t)evd;
	ret = SHIM_CALL(ia, EVD_CREATE, c);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&evd->obj);
		return ret;
	}
	if (shim_evd_map(evd, c.evd_id, c.ring_size, c.ring_offset, qlen,
			 flags)) {
		shim_obj_kfree(&evd->obj, KDAPL_IOC_EVD_FREE);
		shim_obj_free(&evd->obj);
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	evd->cno = cno;
	*evd_handle = (DAT_EVD_HANDLE)evd;
	return DAT_SUCCESS;
}

/*
 * Map the ring the kernel moved an EVD's events to, which is at the same
 * offset, and unmap the old one, which the kernel no longer writes.
 */
static int shim_evd_remap(struct shim_evd *evd, __u64 size)
{
	void *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 evd->obj.ia->fd, evd->map_offset);
	if (p == MAP_FAILED)
		return -1;
	munmap(evd->hdr, evd->map_size);
	evd->hdr = p;
	evd->ev = (struct kdapl_uevent *)((char *)p + KDAPL_RING_EVENTS);
	if (evd->ext)
		evd->ext = (struct kdapl_uevent_ext *)((char *)p +
						       evd->hdr->ext_offset);
	evd->map_size = size;
	return 0;
}

/*
 * dat_evd_resize(): the kernel grows the EVD's CQ and, when the ring's
 * number of slots changes, moves the events not dequeued yet to a new
 * ring.  No other call may use the EVD meanwhile (a thread waiting in
 * the kernel makes it fail with DAT_INVALID_STATE).  If the new ring
 * cannot be mapped, its events are where the process cannot reach them:
 * dequeue and wait fail with DAT_INSUFFICIENT_RESOURCES until another
 * dat_evd_resize() maps the ring.
 */
DAT_RETURN shim_evd_resize(DAT_EVD_HANDLE handle, DAT_COUNT qlen)
{
	struct shim_evd *evd = shim_evd_get(handle);
	struct kdapl_ioc_evd_resize r = { 0 };
	DAT_RETURN ret;

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (qlen <= 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (evd->obj.ia->max_command <= KDAPL_NR_EVD_RESIZE)
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	r.evd_id = evd->obj.id;
	r.qlen = qlen;
	ret = SHIM_CALL(evd->obj.ia, EVD_RESIZE, r);
	if (ret != DAT_SUCCESS)
		return ret;
	evd->qlen = qlen;
	if (r.entries != evd->hdr->entries || evd->unmapped) {
		evd->unmapped = shim_evd_remap(evd, r.ring_size) != 0;
		if (evd->unmapped)
			return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY);
	}
	return DAT_SUCCESS;
}

DAT_RETURN shim_evd_query(DAT_EVD_HANDLE handle, DAT_EVD_PARAM_MASK mask,
			  DAT_EVD_PARAM *param)
{
	struct shim_evd *evd = shim_evd_get(handle);
	__u32 state;

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (!param)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (mask & DAT_EVD_FIELD_IA_HANDLE)
		param->ia_handle = shim_consumer_ia_handle(evd->obj.ia);
	state = __atomic_load_n(&evd->state, __ATOMIC_RELAXED);
	param->evd_qlen = evd->qlen;
	param->evd_state = (state & KDAPL_EVD_DISABLED ?
			    DAT_EVD_STATE_DISABLED : DAT_EVD_STATE_ENABLED) |
			   (state & KDAPL_EVD_UNWAITABLE ?
			    DAT_EVD_STATE_UNWAITABLE : DAT_EVD_STATE_WAITABLE);
	param->cno_handle = evd->cno;
	param->evd_flags = evd->flags;
	return DAT_SUCCESS;
}

DAT_RETURN shim_evd_free(DAT_EVD_HANDLE handle)
{
	struct shim_evd *evd = shim_evd_get(handle);
	DAT_RETURN ret;

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	ret = shim_obj_kfree(&evd->obj, KDAPL_IOC_EVD_FREE);
	if (ret == DAT_SUCCESS)
		shim_evd_unmap(evd);
	return ret;
}

/*
 * Set and clear KDAPL_EVD_* bits of an EVD in the kernel, which wakes
 * its waiters when it becomes unwaitable.
 */
static DAT_RETURN shim_evd_modify(DAT_EVD_HANDLE handle, __u32 set,
				  __u32 clear)
{
	struct shim_evd *evd = shim_evd_get(handle);
	struct kdapl_ioc_evd_modify m = { .set = set, .clear = clear };
	DAT_RETURN ret;

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	m.evd_id = evd->obj.id;
	ret = SHIM_CALL(evd->obj.ia, EVD_MODIFY, m);
	if (ret == DAT_SUCCESS)
		__atomic_store_n(&evd->state, m.state, __ATOMIC_RELAXED);
	return ret;
}

DAT_RETURN shim_evd_enable(DAT_EVD_HANDLE handle)
{
	return shim_evd_modify(handle, 0, KDAPL_EVD_DISABLED);
}

DAT_RETURN shim_evd_disable(DAT_EVD_HANDLE handle)
{
	return shim_evd_modify(handle, KDAPL_EVD_DISABLED, 0);
}

DAT_RETURN shim_evd_set_unwaitable(DAT_EVD_HANDLE handle)
{
	return shim_evd_modify(handle, KDAPL_EVD_UNWAITABLE, 0);
}

DAT_RETURN shim_evd_clear_unwaitable(DAT_EVD_HANDLE handle)
{
	return shim_evd_modify(handle, 0, KDAPL_EVD_UNWAITABLE);
}

DAT_RETURN shim_evd_modify_cno(DAT_EVD_HANDLE handle, DAT_CNO_HANDLE cno)
{
	struct kdapl_ioc_evd_modify_cno m = { 0 };
	struct shim_evd *evd = shim_evd_get(handle);
	struct shim_obj *c = NULL;
	DAT_RETURN ret;

	if (!evd)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST);
	if (cno != DAT_HANDLE_NULL) {
		c = shim_obj_get(cno, DAT_HANDLE_TYPE_CNO);
		if (!c || c->ia != evd->obj.ia)
			return SHIM_ERR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_CNO);
	}
	m.evd_id = evd->obj.id;
	m.cno_id = c ? c->id : 0;
	ret = SHIM_CALL(evd->obj.ia, EVD_MODIFY_CNO, m);
	if (ret == DAT_SUCCESS)
		evd->cno = cno;
	return ret;
}
