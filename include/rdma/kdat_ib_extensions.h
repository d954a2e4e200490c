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
 * The counters of IAs, EPs and EVDs (provider attribute DAT_COUNTERS) are
 * read with dat_ib_query_counters() and dat_ib_print_counters().
 *
 * Unreliable datagram endpoints (provider attribute DAT_IB_UD): an EP
 * created with service type DAT_IB_SERVICE_TYPE_UD resolves the address
 * of a peer EP with dat_ep_connect() or dat_cr_accept(), as many times
 * as it has peers; each resolution ends with a
 * DAT_IB_UD_CONNECTION_EVENT_ESTABLISHED whose extension data carries a
 * DAT_IB_ADDR_HANDLE for dat_ib_post_send_ud() and, in @context, the
 * resolution for dat_ib_ud_cm_free().  Received messages start with the
 * 40 bytes of the packet's global route header.
 *
 * Not here: the collectives.
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

/* The service type of an unreliable datagram EP. */
#define DAT_IB_SERVICE_TYPE_UD		DAT_SERVICE_TYPE_EXTENSION_BASE

typedef struct dat_ib_immed_data {
	DAT_UINT32		data;
} DAT_IB_IMMED_DATA;

struct kdapl_ud_ah;

/**
 * typedef DAT_IB_ADDR_HANDLE - where an unreliable datagram goes
 * @ah: the address handle, owned by the EP that resolved it until
 *	dat_ib_ud_ah_free() or the EP's free; opaque (uDAT's is a
 *	struct ibv_ah pointer of the same size)
 * @qpn: the peer's queue pair number
 * @ia_addr: the peer's address, for reference
 */
typedef struct dat_ib_addr_handle {
	struct kdapl_ud_ah	*ah;
	DAT_UINT32		qpn;
	DAT_SOCK_ADDR6		ia_addr;
} DAT_IB_ADDR_HANDLE;

/*
 * The event_extension_data of a DAT_IB_DTO_EVENT and of the
 * DAT_IB_UD_CONNECTION_* events, with the layout of uDAT's structure.
 */
typedef struct dat_ib_extension_event_data {
	DAT_IB_EXT_TYPE		type;
	DAT_IB_STATUS		status;
	union {
		DAT_IB_IMMED_DATA	immed;
	} val;
	union {
		DAT_IB_ADDR_HANDLE	remote_ah;
		DAT_UINT64		reserved[5];
	};
	DAT_CONTEXT		context;
} DAT_IB_EXTENSION_EVENT_DATA;

/*
 * The 64-bit counters of an IA, an EP and an EVD (attribute
 * DAT_COUNTERS).  A counter that kdapl does not keep reads as zero: see
 * "Counters" in Documentation/dto.rst.
 */
typedef enum dat_ia_counters {
	DCNT_IA_PZ_CREATE,
	DCNT_IA_PZ_FREE,
	DCNT_IA_LMR_CREATE,
	DCNT_IA_LMR_FREE,
	DCNT_IA_RMR_CREATE,
	DCNT_IA_RMR_FREE,
	DCNT_IA_PSP_CREATE,
	DCNT_IA_PSP_CREATE_ANY,
	DCNT_IA_PSP_FREE,
	DCNT_IA_RSP_CREATE,
	DCNT_IA_RSP_FREE,
	DCNT_IA_EVD_CREATE,
	DCNT_IA_EVD_FREE,
	DCNT_IA_EP_CREATE,
	DCNT_IA_EP_FREE,
	DCNT_IA_SRQ_CREATE,
	DCNT_IA_SRQ_FREE,
	DCNT_IA_SP_CR,
	DCNT_IA_SP_CR_ACCEPTED,
	DCNT_IA_SP_CR_REJECTED,
	DCNT_IA_MEM_ALLOC,
	DCNT_IA_MEM_ALLOC_DATA,
	DCNT_IA_MEM_FREE,
	DCNT_IA_ASYNC_ERROR,
	DCNT_IA_ASYNC_QP_ERROR,
	DCNT_IA_ASYNC_CQ_ERROR,
	DCNT_IA_CM_LISTEN,
	DCNT_IA_CM_REQ_TX,
	DCNT_IA_CM_REQ_RX,
	DCNT_IA_CM_REP_TX,
	DCNT_IA_CM_REP_RX,
	DCNT_IA_CM_RTU_TX,
	DCNT_IA_CM_RTU_RX,
	DCNT_IA_CM_USER_REJ_TX,
	DCNT_IA_CM_USER_REJ_RX,
	DCNT_IA_CM_ACTIVE_EST,
	DCNT_IA_CM_PASSIVE_EST,
	DCNT_IA_CM_AH_REQ_TX,
	DCNT_IA_CM_AH_REQ_RX,
	DCNT_IA_CM_AH_RESOLVED,
	DCNT_IA_CM_DREQ_TX,
	DCNT_IA_CM_DREQ_RX,
	DCNT_IA_CM_DREP_TX,
	DCNT_IA_CM_DREP_RX,
	DCNT_IA_CM_MRA_TX,
	DCNT_IA_CM_MRA_RX,
	DCNT_IA_CM_REQ_FULLQ_POLL,
	DCNT_IA_CM_ERR,
	DCNT_IA_CM_ERR_REQ_FULLQ,
	DCNT_IA_CM_ERR_REQ_DUP,
	DCNT_IA_CM_ERR_REQ_RETRY,
	DCNT_IA_CM_ERR_REP_DUP,
	DCNT_IA_CM_ERR_REP_RETRY,
	DCNT_IA_CM_ERR_RTU_DUP,
	DCNT_IA_CM_ERR_RTU_RETRY,
	DCNT_IA_CM_ERR_REFUSED,
	DCNT_IA_CM_ERR_RESET,
	DCNT_IA_CM_ERR_TIMEOUT,
	DCNT_IA_CM_ERR_REJ_TX,
	DCNT_IA_CM_ERR_REJ_RX,
	DCNT_IA_CM_ERR_DREQ_DUP,
	DCNT_IA_CM_ERR_DREQ_RETRY,
	DCNT_IA_CM_ERR_DREP_DUP,
	DCNT_IA_CM_ERR_DREP_RETRY,
	DCNT_IA_CM_ERR_MRA_DUP,
	DCNT_IA_CM_ERR_MRA_RETRY,
	DCNT_IA_CM_ERR_UNEXPECTED,
	DCNT_IA_LNK_ERR_RCV,
	DCNT_IA_LNK_ERR_RCV_REM_PHYS,
	DCNT_IA_LNK_ERR_RCV_CONSTRAINT,
	DCNT_IA_LNK_ERR_XMT_DISCARDS,
	DCNT_IA_LNK_ERR_XMT_CONTRAINT,
	DCNT_IA_LNK_ERR_INTEGRITY,
	DCNT_IA_LNK_ERR_EXC_BUF_OVERRUN,
	DCNT_IA_LNK_WARN_RCV_SW_RELAY,
	DCNT_IA_LNK_WARN_XMT_WAIT,
	DCNT_IA_DIAG_ERR_RQ_RAE,
	DCNT_IA_DIAG_ERR_RQ_OOS,
	DCNT_IA_DIAG_ERR_RQ_RIRE,
	DCNT_IA_DIAG_ERR_RQ_UDSDPRD,
	DCNT_IA_DIAG_ERR_SQ_RAE,
	DCNT_IA_DIAG_ERR_SQ_OOS,
	DCNT_IA_DIAG_ERR_SQ_RIRE,
	DCNT_IA_DIAG_ERR_SQ_RREE,
	DCNT_IA_DIAG_ERR_SQ_TREE,
	DCNT_IA_ALL_COUNTERS,	/* all of them, in this order */
} DAT_IA_COUNTERS;

typedef enum dat_ep_counters {
	DCNT_EP_CONNECT,
	DCNT_EP_DISCONNECT,
	DCNT_EP_POST_SEND,
	DCNT_EP_POST_SEND_DATA,
	DCNT_EP_POST_SEND_UD,
	DCNT_EP_POST_SEND_UD_DATA,
	DCNT_EP_POST_RECV,
	DCNT_EP_POST_RECV_DATA,
	DCNT_EP_POST_WRITE,
	DCNT_EP_POST_WRITE_DATA,
	DCNT_EP_POST_WRITE_IMM,
	DCNT_EP_POST_WRITE_IMM_DATA,
	DCNT_EP_POST_READ,
	DCNT_EP_POST_READ_DATA,
	DCNT_EP_POST_CMP_SWAP,
	DCNT_EP_POST_FETCH_ADD,
	DCNT_EP_RECV,
	DCNT_EP_RECV_DATA,
	DCNT_EP_RECV_UD,
	DCNT_EP_RECV_UD_DATA,
	DCNT_EP_RECV_IMM,
	DCNT_EP_RECV_IMM_DATA,
	DCNT_EP_RECV_RDMA_IMM,
	DCNT_EP_RECV_RDMA_IMM_DATA,
	DCNT_EP_ALL_COUNTERS,	/* all of them, in this order */
} DAT_EP_COUNTERS;

typedef enum dat_evd_counters {
	DCNT_EVD_WAIT,
	DCNT_EVD_WAIT_BLOCKED,
	DCNT_EVD_WAIT_NOTIFY,
	DCNT_EVD_DEQUEUE,
	DCNT_EVD_DEQUEUE_FOUND,
	DCNT_EVD_DEQUEUE_NOT_FOUND,
	DCNT_EVD_DEQUEUE_POLL,
	DCNT_EVD_DEQUEUE_POLL_FOUND,
	DCNT_EVD_CONN_CALLBACK,
	DCNT_EVD_DTO_CALLBACK,
	DCNT_EVD_ALL_COUNTERS,	/* all of them, in this order */
} DAT_EVD_COUNTERS;

/* What dat_ib_start_counter() samples. */
typedef enum dat_ia_counter_type {
	DCNT_IA_CM,
	DCNT_IA_LNK,
	DCNT_IA_DIAG,
} DAT_IA_COUNTER_TYPE;

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
DAT_RETURN dat_ib_post_send_ud(DAT_EP_HANDLE ep_handle,
			       DAT_COUNT num_segments,
			       DAT_LMR_TRIPLET *local_iov,
			       DAT_IB_ADDR_HANDLE *remote_ah,
			       DAT_DTO_COOKIE user_cookie,
			       DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN dat_ib_ud_cm_free(DAT_EP_HANDLE ep_handle, DAT_CONTEXT cm);
DAT_RETURN dat_ib_ud_ah_free(DAT_EP_HANDLE ep_handle,
			     DAT_IB_ADDR_HANDLE *remote_ah);
DAT_RETURN dat_ib_query_counters(DAT_HANDLE dat_handle, int counter,
				 DAT_UINT64 *p_cntrs_out, int reset);
DAT_RETURN dat_ib_print_counters(DAT_HANDLE dat_handle, int counter,
				 int reset);
DAT_RETURN dat_ib_start_counter(DAT_HANDLE dat_handle,
				DAT_IA_COUNTER_TYPE type);
DAT_RETURN dat_ib_stop_counter(DAT_HANDLE dat_handle,
			       DAT_IA_COUNTER_TYPE type);

#endif /* _RDMA_KDAT_IB_EXTENSIONS_H */
