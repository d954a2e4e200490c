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

#endif /* _KDAPL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE kdapl_trace
#include <trace/define_trace.h>
