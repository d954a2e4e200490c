/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - what the user-space test programs share: TAP output and the
 * DAT error composition
 *
 * A case is a function returning 0 when it passed; FAIL() prints why it
 * did not, with the function and line, and gives the -1 to return.
 *
 * Copyright (c) 2026 The kdapl authors
 */
#ifndef _KDAPL_TEST_TAP_H
#define _KDAPL_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FAIL(...) tap_fail(__func__, __LINE__, __VA_ARGS__)

/* The status of an error of a type and subtype, as the kernel gives it. */
#define ERR(type, sub) ((long)(DAT_CLASS_ERROR | (type) | (sub)))

static int tap_failures;
static int tap_cases;
/* A case to skip (reported as such), or NULL. */
static const char *tap_skip;

static inline int tap_fail(const char *fn, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", fn, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return -1;
}

static inline void tap_run(const char *name, int (*fn)(void))
{
	int ret;

	if (tap_skip && !strcmp(name, tap_skip)) {
		printf("ok %d %s # SKIP\n", ++tap_cases, name);
		fflush(stdout);
		return;
	}
	ret = fn();
	tap_cases++;
	if (ret)
		tap_failures++;
	printf("%sok %d %s\n", ret ? "not " : "", tap_cases, name);
	fflush(stdout);
}

/* The last line and the exit status of a program. */
static inline int tap_done(const char *prog)
{
	printf("# %s: %d passed, %d failed\n", prog,
	       tap_cases - tap_failures, tap_failures);
	return tap_failures ? 1 : 0;
}

#endif /* _KDAPL_TEST_TAP_H */
