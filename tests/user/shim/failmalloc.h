/* SPDX-License-Identifier: GPL-2.0 */
/*
 * failmalloc.h - what failmalloc.so offers the program it is preloaded
 * into (which finds the functions with dlsym())
 *
 * Copyright (c) 2026 The kdapl authors
 */
#ifndef _KDAPL_TEST_FAILMALLOC_H
#define _KDAPL_TEST_FAILMALLOC_H

#include <stdbool.h>

int failmalloc_arm(int n);
bool failmalloc_fired(void);

#endif
