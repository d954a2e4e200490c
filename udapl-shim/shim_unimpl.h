/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim_unimpl.h - the DAT_PROVIDER entries not implemented yet
 *
 * Copyright (c) 2026 The kdapl authors
 */
#ifndef _SHIM_UNIMPL_H
#define _SHIM_UNIMPL_H

#include <stdarg.h>

#include "shim.h"

DAT_RETURN shim_unimpl_evd_resize(DAT_EVD_HANDLE a,
				  DAT_COUNT b);
DAT_RETURN shim_unimpl_rmr_create(DAT_PZ_HANDLE a,
				  DAT_RMR_HANDLE *b);
DAT_RETURN shim_unimpl_rmr_query(DAT_RMR_HANDLE a,
				 DAT_RMR_PARAM_MASK b,
				 DAT_RMR_PARAM *c);
DAT_RETURN shim_unimpl_rmr_bind(DAT_RMR_HANDLE a,
				DAT_LMR_HANDLE b,
				const DAT_LMR_TRIPLET *c,
				DAT_MEM_PRIV_FLAGS d,
				DAT_VA_TYPE e,
				DAT_EP_HANDLE f,
				DAT_RMR_COOKIE g,
				DAT_COMPLETION_FLAGS h,
				DAT_RMR_CONTEXT *i);
DAT_RETURN shim_unimpl_rmr_free(DAT_RMR_HANDLE a);
DAT_RETURN shim_unimpl_csp_create(DAT_IA_HANDLE a,
				  DAT_COMM *b,
				  DAT_IA_ADDRESS_PTR c,
				  DAT_EVD_HANDLE d,
				  DAT_CSP_HANDLE *e);
DAT_RETURN shim_unimpl_csp_query(DAT_CSP_HANDLE a,
				 DAT_CSP_PARAM_MASK b,
				 DAT_CSP_PARAM *c);
DAT_RETURN shim_unimpl_csp_free(DAT_CSP_HANDLE a);
DAT_RETURN shim_unimpl_rmr_create_for_ep(DAT_PZ_HANDLE a,
					 DAT_RMR_HANDLE *b);
DAT_RETURN shim_unimpl_ep_post_send_with_invalidate(DAT_EP_HANDLE a,
						    DAT_COUNT b,
						    DAT_LMR_TRIPLET *c,
						    DAT_DTO_COOKIE d,
						    DAT_COMPLETION_FLAGS e,
						    DAT_BOOLEAN f,
						    DAT_RMR_CONTEXT g);
DAT_RETURN shim_unimpl_ep_post_rdma_read_to_rmr(DAT_EP_HANDLE a,
						const DAT_RMR_TRIPLET *b,
						DAT_DTO_COOKIE c,
						const DAT_RMR_TRIPLET *d,
						DAT_COMPLETION_FLAGS e);
DAT_RETURN shim_unimpl_handle_extendedop(DAT_HANDLE a,
					 DAT_EXTENDED_OP b,
					 va_list c);

#endif /* _SHIM_UNIMPL_H */
