/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of kdapl.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM kdapl

#if !defined(_KDAPL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KDAPL_TRACE_H

#include <linux/tracepoint.h>

#include "kdapl.h"

DECLARE_EVENT_CLASS(kdapl_adapter_class,
		    TP_PROTO(const struct kdapl_adapter *adapter),
		    TP_ARGS(adapter),
		    TP_STRUCT__entry(__string(name, adapter->name)
				     __field(u32, port)
				     __field(int, transport)),
		    TP_fast_assign(__assign_str(name, adapter->name);
				   __entry->port = adapter->port;
				   __entry->transport = adapter->transport;),
		    TP_printk("ia=%s port=%u transport=%d", __get_str(name),
			      __entry->port, __entry->transport)
);

DEFINE_EVENT(kdapl_adapter_class, kdapl_adapter_add,
	     TP_PROTO(const struct kdapl_adapter *adapter),
	     TP_ARGS(adapter));

DEFINE_EVENT(kdapl_adapter_class, kdapl_adapter_remove,
	     TP_PROTO(const struct kdapl_adapter *adapter),
	     TP_ARGS(adapter));

/*
 * Connections: every rdma_cm event an EP or service point receives, with
 * the EP state before and after it was handled, and every DAT connection
 * event delivered.
 */
TRACE_EVENT(kdapl_cm_event,
	    TP_PROTO(u64 handle, int event, int status, int old_state,
		     int new_state),
	    TP_ARGS(handle, event, status, old_state, new_state),
	    TP_STRUCT__entry(__field(u64, handle)
			     __field(int, event)
			     __field(int, status)
			     __field(int, old_state)
			     __field(int, new_state)),
	    TP_fast_assign(__entry->handle = handle;
			   __entry->event = event;
			   __entry->status = status;
			   __entry->old_state = old_state;
			   __entry->new_state = new_state;),
	    TP_printk("handle=0x%llx cm_event=%d status=%d state %d->%d",
		      __entry->handle, __entry->event, __entry->status,
		      __entry->old_state, __entry->new_state)
);

TRACE_EVENT(kdapl_conn_event,
	    TP_PROTO(u64 ep_handle, unsigned int number, int state),
	    TP_ARGS(ep_handle, number, state),
	    TP_STRUCT__entry(__field(u64, ep_handle)
			     __field(unsigned int, number)
			     __field(int, state)),
	    TP_fast_assign(__entry->ep_handle = ep_handle;
			   __entry->number = number;
			   __entry->state = state;),
	    TP_printk("ep=0x%llx event=0x%x state=%d", __entry->ep_handle,
		      __entry->number, __entry->state)
);

/* Data transfer: a DTO or RMR bind posted, and its completion. */
TRACE_EVENT(kdapl_dto_post,
	    TP_PROTO(u64 ep_handle, int op, u64 cookie, u64 length,
		     int nsegs, int ret),
	    TP_ARGS(ep_handle, op, cookie, length, nsegs, ret),
	    TP_STRUCT__entry(__field(u64, ep_handle)
			     __field(int, op)
			     __field(u64, cookie)
			     __field(u64, length)
			     __field(int, nsegs)
			     __field(int, ret)),
	    TP_fast_assign(__entry->ep_handle = ep_handle;
			   __entry->op = op;
			   __entry->cookie = cookie;
			   __entry->length = length;
			   __entry->nsegs = nsegs;
			   __entry->ret = ret;),
	    TP_printk("ep=0x%llx op=%d cookie=0x%llx len=%llu nsegs=%d ret=0x%x",
		      __entry->ep_handle, __entry->op, __entry->cookie,
		      __entry->length, __entry->nsegs, __entry->ret)
);

TRACE_EVENT(kdapl_dto_complete,
	    TP_PROTO(u64 ep_handle, int op, u64 cookie, int wc_status,
		     int dat_status, u32 length),
	    TP_ARGS(ep_handle, op, cookie, wc_status, dat_status, length),
	    TP_STRUCT__entry(__field(u64, ep_handle)
			     __field(int, op)
			     __field(u64, cookie)
			     __field(int, wc_status)
			     __field(int, dat_status)
			     __field(u32, length)),
	    TP_fast_assign(__entry->ep_handle = ep_handle;
			   __entry->op = op;
			   __entry->cookie = cookie;
			   __entry->wc_status = wc_status;
			   __entry->dat_status = dat_status;
			   __entry->length = length;),
	    TP_printk("ep=0x%llx op=%d cookie=0x%llx wc_status=%d status=%d len=%u",
		      __entry->ep_handle, __entry->op, __entry->cookie,
		      __entry->wc_status, __entry->dat_status,
		      __entry->length)
);

/* /dev/kdapl: each ioctl command, and what each post ring drain took. */
TRACE_EVENT(kdapl_uioctl,
	    TP_PROTO(unsigned int nr, u32 size, int ret, u32 status),
	    TP_ARGS(nr, size, ret, status),
	    TP_STRUCT__entry(__field(unsigned int, nr)
			     __field(u32, size)
			     __field(int, ret)
			     __field(u32, status)),
	    TP_fast_assign(__entry->nr = nr;
			   __entry->size = size;
			   __entry->ret = ret;
			   __entry->status = status;),
	    TP_printk("nr=0x%x size=%u ret=%d status=0x%x", __entry->nr,
		      __entry->size, __entry->ret, __entry->status)
);

TRACE_EVENT(kdapl_upost_drain,
	    TP_PROTO(u64 ep_handle, bool doorbell, u32 taken, u32 inflight,
		     int ret),
	    TP_ARGS(ep_handle, doorbell, taken, inflight, ret),
	    TP_STRUCT__entry(__field(u64, ep_handle)
			     __field(bool, doorbell)
			     __field(u32, taken)
			     __field(u32, inflight)
			     __field(int, ret)),
	    TP_fast_assign(__entry->ep_handle = ep_handle;
			   __entry->doorbell = doorbell;
			   __entry->taken = taken;
			   __entry->inflight = inflight;
			   __entry->ret = ret;),
	    TP_printk("ep=0x%llx by=%s taken=%u inflight=%u ret=0x%x",
		      __entry->ep_handle,
		      __entry->doorbell ? "doorbell" : "completion",
		      __entry->taken, __entry->inflight, __entry->ret)
);

#endif /* _KDAPL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE kdapl_trace
#include <trace/define_trace.h>
