// SPDX-License-Identifier: GPL-2.0
/*
 * The DAT_PROVIDER entries udapl-shim does not implement yet: each
 * returns DAT_NOT_IMPLEMENTED, so that a consumer calling one gets a
 * clear error rather than a crash in libdat2, which calls every entry
 * without checking it.  An entry leaves this file when it is
 * implemented; Documentation/userapi.rst lists what is.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <stdarg.h>

#include "shim.h"
#include "shim_unimpl.h"

DAT_RETURN shim_unimpl_handle_extendedop(DAT_HANDLE a,
					 DAT_EXTENDED_OP b,
					 va_list c)
{
	return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}
