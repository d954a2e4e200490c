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
DAT_RETURN shim_unimpl_csp_create(DAT_IA_HANDLE a,
				  DAT_COMM *b,
				  DAT_IA_ADDRESS_PTR c,
				  DAT_EVD_HANDLE d,
				  DAT_CSP_HANDLE *e);
DAT_RETURN shim_unimpl_csp_query(DAT_CSP_HANDLE a,
				 DAT_CSP_PARAM_MASK b,
				 DAT_CSP_PARAM *c);
DAT_RETURN shim_unimpl_csp_free(DAT_CSP_HANDLE a);
DAT_RETURN shim_unimpl_handle_extendedop(DAT_HANDLE a,
					 DAT_EXTENDED_OP b,
					 va_list c);

#endif /* _SHIM_UNIMPL_H */
