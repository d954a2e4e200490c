/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the KUnit suites of kdapl.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _KDAPL_TEST_UTIL_H
#define _KDAPL_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/completion.h>
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
 * An LMR over @len bytes of kernel memory at @buf (DAT_MEM_TYPE_VIRTUAL);
 * @ctx and @rctx may be NULL.  Fails the test otherwise.
 */
DAT_LMR_HANDLE kdapl_test_lmr(struct kunit *test, DAT_IA_HANDLE ia,
			      DAT_PZ_HANDLE pz, void *buf, DAT_VLEN len,
			      DAT_MEM_PRIV_FLAGS priv, DAT_LMR_CONTEXT *ctx,
			      DAT_RMR_CONTEXT *rctx);

/*
 * 2^order physically contiguous pages, aligned to their size and zeroed,
 * freed when the test ends: after an IA opened later is closed.
 */
struct page *kdapl_test_pages(struct kunit *test, unsigned int order);

/*
 * The state of an EP (the test fails if the handle is bad), and forcing
 * one without a connection, as kdapl_ep_set_state() does.
 */
DAT_EP_STATE kdapl_test_ep_state(struct kunit *test, DAT_EP_HANDLE ep);
void kdapl_test_set_ep_state(struct kunit *test, DAT_EP_HANDLE ep,
			     DAT_EP_STATE state);

/*
 * An owner like an open file's (not the kernel consumers'), released
 * (every IA of it closed) when the test ends.
 */
struct kdapl_owner *kdapl_test_owner(struct kunit *test);

struct kdapl_ufile;

/*
 * A file of /dev/kdapl, as opening the device makes one, released as
 * closing it would (every IA and object of it) when the test ends.
 */
struct kdapl_ufile *kdapl_test_ufile(struct kunit *test);

/*
 * Call @fn(@data) when the test ends, before what the test allocated
 * earlier goes (KUnit frees resources in reverse order).
 */
void kdapl_test_defer(struct kunit *test, void (*fn)(void *data), void *data);

/* How long a loopback connection event or DTO may take. */
#define KDAPL_TEST_WAIT_MS	10000

/**
 * struct kdapl_test_held - an upcall that holds its first event
 * @entered: completed when the upcall has the event
 * @go: completed by the test to let the upcall go on
 * @left: completed when the upcall is done with the event
 *
 * Each is completed for all, so that a wait does not undo it.
 */
struct kdapl_test_held {
	struct completion entered, go, left;
};

/*
 * Ready @h; when the test ends, a held upcall is let go and waited for,
 * so that what it uses may be freed.
 */
void kdapl_test_held_init(struct kunit *test, struct kdapl_test_held *h);

/* Wait for @c up to KDAPL_TEST_WAIT_MS; false on timeout. */
bool kdapl_test_held_wait(struct completion *c);

/*
 * From the upcall: true for the first event, once the test has let it
 * go (the upcall then reads it and calls kdapl_test_held_leave()), false
 * for later ones.
 */
bool kdapl_test_held_enter(struct kdapl_test_held *h);
void kdapl_test_held_leave(struct kdapl_test_held *h);

/* Wait for the next event of @evd; false after @ms without one. */
bool kdapl_test_wait(DAT_EVD_HANDLE evd, DAT_EVENT *event, unsigned int ms);

/*
 * The next event of @evd must be connection event @number of @ep; it is
 * copied to @event if that is not NULL.
 */
void kdapl_test_expect_conn(struct kunit *test, DAT_EVD_HANDLE evd,
			    DAT_EP_HANDLE ep, DAT_EVENT_NUMBER number,
			    DAT_EVENT *event);

/* The IPv4 address of an IA. */
void kdapl_test_ia_addr(struct kunit *test, DAT_IA_HANDLE ia,
			struct sockaddr_in *sin);

/* Is the IA on iWARP? */
bool kdapl_test_iwarp(struct kunit *test);

/**
 * struct kdapl_test_pair - two EPs connected over loopback
 * @ia: the client's IA
 * @sia: the server's IA (@ia unless the test opened a second one)
 * @pz: PZ of the client EP
 * @spz: PZ of the server EP
 * @conn: connection EVD of the client
 * @sconn: connection EVD of the server
 * @cr: connection request EVD of the server
 * @cli: the client EP
 * @srv: the server EP
 * @qual: connection qualifier the server listened on
 */
struct kdapl_test_pair {
	DAT_IA_HANDLE ia, sia;
	DAT_PZ_HANDLE pz, spz;
	DAT_EVD_HANDLE conn, sconn, cr;
	DAT_EP_HANDLE cli, srv;
	DAT_CONN_QUAL qual;
};

/*
 * The IA of the test's adapter parameter and, for a pair that connects
 * on @qual, a PZ and a connection EVD for each side and a connection
 * request EVD; the EPs are the caller's.
 */
void kdapl_test_pair_init(struct kunit *test, struct kdapl_test_pair *p,
			  DAT_CONN_QUAL qual);

/*
 * Connect @p->cli to @p->srv through a PSP of @p->sia on @p->qual (freed
 * once accepted); both ESTABLISHED events are dequeued.  Fails the test
 * otherwise.
 */
void kdapl_test_connect(struct kunit *test, struct kdapl_test_pair *p);

#endif /* _KDAPL_TEST_UTIL_H */
