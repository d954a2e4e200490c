/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the KUnit suites of kdapl.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _KDAPL_TEST_UTIL_H
#define _KDAPL_TEST_UTIL_H

#include <kunit/test.h>
#include <rdma/kdat.h>

#include "kdapl.h"

/*
 * Adapters the device-backed cases run on, one per transport: soft RoCE
 * and soft iWARP, as tests/vm/cases/kunit.sh sets them up in the debug
 * VM.  A case whose adapter is missing is skipped, not failed.
 */
#define KDAPL_TEST_ROCE		"rxe0-1"
#define KDAPL_TEST_IWARP	"siw0-1"

extern const char *const kdapl_test_adapters[];
#define KDAPL_TEST_NR_ADAPTERS	2

/* KUNIT_CASE_PARAM generator over kdapl_test_adapters. */
const void *kdapl_test_adapter_gen(const void *prev, char *desc);

/* The exact DAT_RETURN of a failure. */
#define KDAPL_ERR(type, subtype)	\
	((DAT_RETURN)(DAT_CLASS_ERROR | (DAT_RETURN)(type) | (DAT_RETURN)(subtype)))

/*
 * Open an IA for the test; skips the test if the adapter is not there.
 * The IA is closed abruptly when the test ends, freeing whatever the test
 * left in it.
 */
DAT_IA_HANDLE kdapl_test_open_ia(struct kunit *test, const char *name);

/* Create a PZ, or an EVD with the given streams, or fail the test. */
DAT_PZ_HANDLE kdapl_test_pz(struct kunit *test, DAT_IA_HANDLE ia);
DAT_EVD_HANDLE kdapl_test_evd(struct kunit *test, DAT_IA_HANDLE ia,
			      DAT_COUNT qlen, DAT_EVD_FLAGS flags);

/*
 * The state of an EP (the test fails if the handle is bad), and forcing
 * one without a connection, as kdapl_ep_set_state() does.
 */
DAT_EP_STATE kdapl_test_ep_state(struct kunit *test, DAT_EP_HANDLE ep);
void kdapl_test_set_ep_state(struct kunit *test, DAT_EP_HANDLE ep,
			     DAT_EP_STATE state);

#endif /* _KDAPL_TEST_UTIL_H */
