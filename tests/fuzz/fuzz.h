/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - state shared by the parts of kdapl_fuzz
 *
 * Copyright (c) 2026 The kdapl authors
 */
#ifndef _KDAPL_FUZZ_H
#define _KDAPL_FUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include <rdma/kdapl_ioctl.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define FZ_MAX_THREADS	8
/* Ids remembered per kind; older ones are overwritten (and go stale). */
#define FZ_POOL		16
/* Mapped rings per process. */
#define FZ_RINGS	64
/* Regions of anonymous memory that LMRs register. */
#define FZ_REGIONS	4
#define FZ_REGION_SIZE	(256 * 1024)
/* Remote segments published for the other processes' RDMA. */
#define FZ_REMOTES	32
/* Operations kept for finding new kernel coverage, per process. */
#define FZ_CORPUS	256
/* Bytes of the map of PCs reached (a bit per hashed PC). */
#define FZ_COV_MAP	(128 * 1024)

enum fz_kind {
	FZ_IA, FZ_PZ, FZ_EVD, FZ_LMR, FZ_EP, FZ_PSP, FZ_RSP, FZ_CNO, FZ_CR,
	FZ_SRQ, FZ_RMR, FZ_CSP, FZ_KINDS
};

/**
 * struct fz_ring - a ring this process mapped
 * @id: the EVD's or EP's id
 * @addr: the mapping, NULL for a free slot
 * @size: its bytes
 * @post: a post ring (else an event ring)
 * @max_iov: segments a post record may carry
 * @entries: slots, as the header said when the ring was mapped (0 if
 *	that did not fit the mapping)
 * @stride: bytes per post record
 */
struct fz_ring {
	__u32 id;
	void *addr;
	size_t size;
	bool post;
	__u32 max_iov;
	__u32 entries;
	__u32 stride;
};

/**
 * struct fz_lmr - an LMR this process registered
 * @id: its id
 * @lmr_context: its local key
 * @addr: its first byte
 * @len: its length
 */
struct fz_lmr {
	__u32 id;
	__u32 lmr_context;
	__u64 addr;
	__u64 len;
};

/**
 * struct fz_remote - a segment another process may reach with RDMA
 * @rmr_context: the remote key
 * @len: bytes
 * @addr: the first byte
 */
struct fz_remote {
	__u32 rmr_context;
	__u32 len;
	__u64 addr;
};

/**
 * struct fz_kit - objects made to fit together, so that connections
 *	form and data moves between the processes' endpoints
 * @ia: the IA
 * @pz: a PZ of it
 * @dto_evd: an EVD of DTO completions
 * @conn_evd: an EVD of connection events
 * @lmr: an LMR in @pz
 */
struct fz_kit {
	__u32 ia;
	__u32 pz;
	__u32 dto_evd;
	__u32 conn_evd;
	struct fz_lmr lmr;
};

/**
 * struct fz_shared - what all processes of a run share
 * @calls: ioctls made, over all processes
 * @successes: of which DAT_SUCCESS
 * @internal: of which DAT_INTERNAL_ERROR
 * @forks: children forked on a file of the parent
 * @failures: answers outside the ABI
 * @events: events read from event rings
 * @requests: of which connection requests
 * @established: of which connections established
 * @dto_ok: of which DTO completions with success
 * @remotes: segments of registered memory, for RDMA from the others
 * @cov_threads: non-zero once a thread traces with KCOV
 * @cov_pcs: PCs reached (bits set in @cov_map)
 * @cov_kept: operations kept for reaching new PCs
 * @cov_replays: operations that were replays of kept ones
 * @cov_map: a bit per hashed PC reached by any thread
 */
struct fz_shared {
	long calls;
	long successes;
	long internal;
	long forks;
	long failures;
	long events;
	long requests;
	long established;
	long dto_ok;
	struct fz_remote remotes[FZ_REMOTES];
	long cov_threads;
	long cov_pcs;
	long cov_kept;
	long cov_replays;
	__u8 cov_map[FZ_COV_MAP];
};

struct fz_op;

/**
 * struct fz_seed - an operation and the seed of its random choices
 * @op: the operation
 * @seed: the thread's random state when it started
 */
struct fz_seed {
	const struct fz_op *op;
	__u64 seed;
};

/**
 * struct fz_proc - one process's view of its file and objects
 * @fd: the open file of /dev/kdapl (replaced now and then)
 * @lock: guards everything below, and the mappings: a ring or region
 *	is written or unmapped only under it
 * @ids: ids of created objects per kind, a ring of FZ_POOL each
 * @count: ids ever put in each pool
 * @rings: mapped rings
 * @lmrs: registered memory, a ring of FZ_POOL
 * @nlmrs: LMRs ever put in @lmrs
 * @addr: the IA's address, a struct sockaddr_in or sockaddr_in6
 * @have_addr: @addr was queried
 * @region: anonymous memory to register
 * @bad_page: a page mapped without access, after a scratch page
 * @ro_page: a read-only page
 * @kit: the last kit made (all zero before)
 * @kit_eps: EPs made from kits, a ring of FZ_POOL: the ones that connect
 * @nkit_eps: EPs ever put in @kit_eps
 * @index: the process's number in the run
 * @corpus: operations that reached new kernel code, a ring of FZ_CORPUS
 * @ncorpus: operations ever put in @corpus
 */
struct fz_proc {
	int fd;
	pthread_mutex_t lock;
	__u32 ids[FZ_KINDS][FZ_POOL];
	unsigned int count[FZ_KINDS];
	struct fz_ring rings[FZ_RINGS];
	struct fz_lmr lmrs[FZ_POOL];
	unsigned int nlmrs;
	__u8 addr[128];
	bool have_addr;
	char *region[FZ_REGIONS];
	void *bad_page;
	void *ro_page;
	struct fz_kit kit;
	__u32 kit_eps[FZ_POOL];
	unsigned int nkit_eps;
	int index;
	struct fz_seed corpus[FZ_CORPUS];
	unsigned int ncorpus;
};

/**
 * struct fz_thread - one thread making calls
 * @proc: its process
 * @rng: its random state
 * @calls: calls it made
 * @tid: the thread
 * @cov: its KCOV trace (a count, then PCs), or NULL without KCOV
 */
struct fz_thread {
	struct fz_proc *proc;
	__u64 rng;
	long calls;
	pthread_t tid;
	unsigned long *cov;
};

/**
 * struct fz_op - an entry of the operation table
 * @name: for messages
 * @weight: relative frequency
 * @run: makes one or a few calls
 */
struct fz_op {
	const char *name;
	unsigned int weight;
	void (*run)(struct fz_thread *t);
};

/* Zero an ioctl argument and set the size in its head. */
static inline void fz_arg(void *arg, size_t size)
{
	memset(arg, 0, size);
	((struct kdapl_ioc_head *)arg)->size = size;
}

#define FZ_ARG(a)	fz_arg(&(a), sizeof(a))

extern struct fz_shared *fz_sh;
extern const char *fz_ia_name;

/* kdapl_fuzz.c */
void fz_fail(const char *fmt, ...);
bool fz_done(void);
__u64 fz_rand(struct fz_thread *t);
__u32 fz_below(struct fz_thread *t, __u32 n);
bool fz_chance(struct fz_thread *t, unsigned int pct);
__u64 fz_num(struct fz_thread *t, __u64 usual);
long fz_ioctl(struct fz_thread *t, unsigned int nr, void *arg);
long fz_raw_ioctl(struct fz_thread *t, int fd, unsigned long cmd, void *arg);

/* fuzz_proc.c: the process, its pools and threads */
int fz_proc_run(int index, int threads, __u64 seed);
int fz_dev_open(void);
void fz_put(struct fz_proc *p, enum fz_kind kind, __u32 id);
__u32 fz_pick(struct fz_thread *t, enum fz_kind kind);
void fz_put_lmr(struct fz_proc *p, const struct fz_lmr *lmr);
bool fz_pick_lmr(struct fz_thread *t, struct fz_lmr *lmr);
void fz_map_ring(struct fz_thread *t, __u32 id, __u64 offset,
		 __u64 size, bool post, __u32 max_iov);
struct fz_ring *fz_pick_ring(struct fz_thread *t, bool post);
__u64 fz_user_addr(struct fz_thread *t, __u64 len);

/* fuzz_cov.c: coverage guidance */
extern bool fz_cov_guided;
void fz_cov_open(struct fz_thread *t);
void fz_cov_run(struct fz_thread *t,
		const struct fz_op *(*choose)(struct fz_thread *t));

/* fuzz_kit.c: objects that fit together */
bool fz_get_kit(struct fz_thread *t, struct fz_kit *kit);
void fz_kit_accept(struct fz_thread *t, __u32 cr_id);
extern const struct fz_op fz_kit_ops[];
extern const unsigned int fz_nr_kit_ops;

/* fuzz_ring.c */
void fz_kit_post(struct fz_thread *t, __u32 ep_id, const struct fz_lmr *lmr,
		 __u32 op, unsigned int n);

/* fuzz_ops.c: calls on objects */
extern const struct fz_op fz_obj_ops[];
extern const unsigned int fz_nr_obj_ops;

/* fuzz_ring.c: the rings */
extern const struct fz_op fz_ring_ops[];
extern const unsigned int fz_nr_ring_ops;

/* fuzz_bad.c: malformed calls, memory churn, fork, file replacement */
extern const struct fz_op fz_bad_ops[];
extern const unsigned int fz_nr_bad_ops;

#endif /* _KDAPL_FUZZ_H */
