// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the tracepoints declared in kdapl_trace.h.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#define CREATE_TRACE_POINTS
#include "kdapl_trace.h"
