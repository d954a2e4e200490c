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

DAT_RETURN shim_unimpl_handle_extendedop(DAT_HANDLE a,
					 DAT_EXTENDED_OP b,
					 va_list c);

#endif /* _SHIM_UNIMPL_H */
