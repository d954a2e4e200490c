/* SPDX-License-Identifier: GPL-2.0 */
/*
 * side.h - the two sides of a connection through the DAT API, for the
 * shim's test programs
 *
 * Every function returns 0 on success, or -1 after a TAP diagnostic.
 *
 * Copyright (c) 2026 The kdapl authors
 */
#ifndef _KDAPL_TEST_SIDE_H
#define _KDAPL_TEST_SIDE_H

#include <dat2/udat.h>

/* The IA every side opens (the program's argument). */
extern char *ia_name;

/* One side of a connection. */
struct side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, conn, cr, dto;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	DAT_IA_ADDRESS_PTR addr;
};

int open_ia(DAT_IA_HANDLE *ia, DAT_EVD_HANDLE *async);
int side_open_dto(struct side *sd, DAT_COUNT dto_qlen);
int side_open(struct side *sd);
int wait_event(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER number, DAT_EVENT *ev);
int pair_link(struct side *s, struct side *c, DAT_CONN_QUAL qual,
	      DAT_PSP_HANDLE *psp);
int pair_connect(struct side *s, struct side *c, DAT_CONN_QUAL qual,
		 DAT_PSP_HANDLE *psp);
int pair_disconnect(struct side *s, struct side *c, DAT_EP_HANDLE ep);
int pair_close(struct side *s, struct side *c);
int make_lmr(struct side *sd, void *buf, DAT_VLEN len, DAT_LMR_HANDLE *lmr,
	     DAT_LMR_CONTEXT *lctx, DAT_RMR_CONTEXT *rctx);
int dto_done(struct side *sd, DAT_UINT64 cookie, DAT_DTOS op, DAT_VLEN len);
DAT_RETURN side_ud_ep(struct side *sd, DAT_VLEN msg, DAT_COUNT recvs,
		      DAT_EP_HANDLE *ep);
int ep_state(DAT_EP_HANDLE ep, DAT_EP_STATE want);
int tell_and_wait(const char *word, const char *file, int present);

#endif
