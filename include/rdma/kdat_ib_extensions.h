/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IB extensions of kDAT: RDMA Write with immediate data and the
 * 64-bit atomics, with the constants and event data of Debian's
 * <dat2/dat_ib_extensions.h> (DAT_IB_EXTENSION_VERSION 209).
 *
 * Where uDAT reaches these operations through dat_extension_op() and
 * the macros of that header, kernel consumers call the functions below,
 * which take the macros' arguments in the macros' order.  Completions
 * are DAT_IB_DTO_EVENTs: their event_data is a DTO completion whose
 * operation is a DAT_IB_DTOS value, and their event_extension_data a
 * DAT_IB_EXTENSION_EVENT_DATA.  IA attributes say what the transport
 * carries: extension_supported is DAT_EXTENSION_IB, and the provider
 * attributes DAT_IB_IMMED_DATA, DAT_IB_CMP_AND_SWAP and
 * DAT_IB_FETCH_AND_ADD are "TRUE" where the operation is offered.
 *
 * Not here: unreliable datagram endpoints (DAT_IB_SERVICE_TYPE_UD), the
 * counters and the collectives.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _RDMA_KDAT_IB_EXTENSIONS_H
#define _RDMA_KDAT_IB_EXTENSIONS_H

#include <rdma/kdat_types.h>

#define DAT_IB_EXTENSION_VERSION	209	/* 2.0.9 */

/* Provider-specific attribute names, with the value "TRUE". */
#define DAT_IB_ATTR_COUNTERS		"DAT_COUNTERS"
#define DAT_IB_ATTR_FETCH_AND_ADD	"DAT_IB_FETCH_AND_ADD"
#define DAT_IB_ATTR_CMP_AND_SWAP	"DAT_IB_CMP_AND_SWAP"
#define DAT_IB_ATTR_IMMED_DATA		"DAT_IB_IMMED_DATA"
#define DAT_IB_ATTR_UD			"DAT_IB_UD"

typedef enum dat_ib_event_number {
	DAT_IB_DTO_EVENT = DAT_IB_EXTENSION_RANGE_BASE,
	DAT_IB_UD_CONNECTION_REQUEST_EVENT,
	DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED,
	DAT_IB_UD_CONNECTION_REJECT_EVENT,
	DAT_IB_UD_CONNECTION_ERROR_EVENT,
	DAT_IB_COLLECTIVE_EVENT,
} DAT_IB_EVENT_NUMBER;

/* The operation an extended event reports. */
typedef enum dat_ib_ext_type {
	DAT_IB_FETCH_AND_ADD		= 0,
	DAT_IB_CMP_AND_SWAP		= 1,
	DAT_IB_RDMA_WRITE_IMMED		= 2,
	DAT_IB_RDMA_WRITE_IMMED_DATA	= 3,	/* received */
	DAT_IB_RECV_IMMED_DATA		= 4,	/* send with immediate */
	DAT_IB_UD_CONNECT_REQUEST	= 5,
	DAT_IB_UD_REMOTE_AH		= 6,
	DAT_IB_UD_PASSIVE_REMOTE_AH	= 7,
	DAT_IB_UD_SEND			= 8,
	DAT_IB_UD_RECV			= 9,
	DAT_IB_UD_CONNECT_REJECT	= 10,
	DAT_IB_UD_CONNECT_ERROR		= 11,
} DAT_IB_EXT_TYPE;

typedef enum dat_ib_status {
	DAT_OP_SUCCESS		= 0,
	DAT_IB_OP_ERR			= 1,
	DAT_IB_COLL_COMP_ERR		= 2,
} DAT_IB_STATUS;

/* The operation of the DTO completion of an extended event. */
typedef enum dat_ib_dtos {
	DAT_IB_DTO_RDMA_WRITE_IMMED	= DAT_DTO_EXTENSION_BASE,
	DAT_IB_DTO_RECV_IMMED		= DAT_DTO_EXTENSION_BASE + 1,
	DAT_IB_DTO_FETCH_ADD		= DAT_DTO_EXTENSION_BASE + 2,
	DAT_IB_DTO_CMP_SWAP		= DAT_DTO_EXTENSION_BASE + 3,
	DAT_IB_DTO_RECV_MSG_IMMED	= DAT_DTO_EXTENSION_BASE + 4,
	DAT_IB_DTO_SEND_UD		= DAT_DTO_EXTENSION_BASE + 5,
	DAT_IB_DTO_RECV_UD		= DAT_DTO_EXTENSION_BASE + 6,
	DAT_IB_DTO_RECV_UD_IMMED	= DAT_DTO_EXTENSION_BASE + 7,
} DAT_IB_DTOS;

/* Event dispatcher flag: an EVD that may take extended events. */
#define DAT_IB_EVD_EXTENSION_FLAG	DAT_EVD_EXTENSION_BASE

/* Memory privilege: the target of the peer's atomics. */
#define DAT_IB_MEM_PRIV_REMOTE_ATOMIC	DAT_MEM_PRIV_EXTENSION_BASE

typedef struct dat_ib_immed_data {
	DAT_UINT32		data;
} DAT_IB_IMMED_DATA;

/*
 * The event_extension_data of a DAT_IB_DTO_EVENT.  The union after @val
 * holds uDAT's address handle of unreliable datagrams, which kDAT does
 * not offer; it keeps the layout of the uDAT structure.
 */
typedef struct dat_ib_extension_event_data {
	DAT_IB_EXT_TYPE		type;
	DAT_IB_STATUS		status;
	union {
		DAT_IB_IMMED_DATA	immed;
	} val;
	DAT_UINT64		reserved[5];
	DAT_CONTEXT		context;
} DAT_IB_EXTENSION_EVENT_DATA;

DAT_RETURN dat_ib_post_rdma_write_immed(DAT_EP_HANDLE ep_handle,
					DAT_COUNT num_segments,
					DAT_LMR_TRIPLET *local_iov,
					DAT_DTO_COOKIE user_cookie,
					const DAT_RMR_TRIPLET *remote_iov,
					DAT_UINT32 immed_data,
					DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN dat_ib_post_cmp_and_swap(DAT_EP_HANDLE ep_handle,
				    DAT_UINT64 compare_value,
				    DAT_UINT64 swap_value,
				    DAT_LMR_TRIPLET *local_iov,
				    DAT_DTO_COOKIE user_cookie,
				    const DAT_RMR_TRIPLET *remote_iov,
				    DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN dat_ib_post_fetch_and_add(DAT_EP_HANDLE ep_handle,
				     DAT_UINT64 add_value,
				     DAT_LMR_TRIPLET *local_iov,
				     DAT_DTO_COOKIE user_cookie,
				     const DAT_RMR_TRIPLET *remote_iov,
				     DAT_COMPLETION_FLAGS completion_flags);

#endif /* _RDMA_KDAT_IB_EXTENSIONS_H */
