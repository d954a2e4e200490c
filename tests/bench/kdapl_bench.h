/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl_bench.ko: kdapl against raw ib_core verbs.  Two halves,
 * kdapl_bench_raw.c (ib_core verbs and rdma_cm, written as a kernel ULP
 * writes them) and kdapl_bench_dat.c (the same through kDAT), each set up
 * a loopback connection between a client and a server side and give the
 * engine of kdapl_bench_core.c three posting functions; their completion
 * handlers call bench_request_done() and bench_recv_done().  The traffic,
 * the iteration counts and the arithmetic are therefore the same for both
 * halves: only the posting and completion paths differ.
 * kdapl_bench_main.c runs the measurements of both halves alternately.
 *
 * Message rate: the client keeps a window of requests (sends or RDMA
 * writes, each signalled) outstanding; every completion posts the next
 * request from the completion handler.  For sends the server keeps
 * receives posted and reposts one from each receive completion.
 *
 * Latency: send/recv is a ping-pong driven from the receive completion
 * handlers (the server answers each ping with a send, the client posts
 * the next ping when the answer arrives); RDMA write is a ping-pong in
 * which each side polls the last byte of the buffer the peer writes, as
 * RDMA write has no completion at the target.  The figure is the median
 * round trip divided by two.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _KDAPL_BENCH_H
#define _KDAPL_BENCH_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/sizes.h>

/* Each side has a source and a target buffer of this size. */
#define BENCH_BUF_SIZE		SZ_1M
#define BENCH_BUF_ORDER		get_order(BENCH_BUF_SIZE)
/* Requests kept outstanding by the rate test. */
#define BENCH_WINDOW		32
/* Receives kept posted by the receiving side. */
#define BENCH_RECV_DEPTH	64
/* Send and receive queue depth, and completion queue depth. */
#define BENCH_QP_DEPTH		64
#define BENCH_INLINE		64	/* raw_inline: bytes asked for */
#define BENCH_CQ_DEPTH		160
/* Longest run; a run that takes longer failed. */
#define BENCH_RUN_TIMEOUT	(120 * HZ)
#define BENCH_MAX_SIZES		8

enum { BENCH_CLIENT, BENCH_SERVER };
enum bench_op { BENCH_OP_SEND, BENCH_OP_WRITE };
enum bench_kind { BENCH_RATE, BENCH_LAT };

struct bench;

/*
 * Posting functions of an implementation.  @side posts; @off is the
 * offset in its source buffer (send, write) or target buffer (receive);
 * an RDMA write goes to the same offset of the peer's target buffer.
 * Called from process context and from completion handlers.
 */
struct bench_ops {
	int (*post_send)(struct bench *b, int side, u32 off, u32 len);
	int (*post_recv)(struct bench *b, int side, u32 off, u32 len);
	int (*post_write)(struct bench *b, int side, u32 off, u32 len);
};

struct bench {
	const char *impl;
	const struct bench_ops *ops;
	u8 *sbuf[2];
	u8 *rbuf[2];

	/* The run in progress. */
	enum bench_op op;
	enum bench_kind kind;
	u32 size;
	u32 n;
	u32 window;
	u32 rdepth;
	u32 slots;		/* messages of @size in a buffer */
	u32 rslots;		/* receive slots in the target buffer */
	bool verify;		/* fill and check every message */
	atomic_t posted;	/* client requests claimed (rate) */
	atomic_t done;		/* client request completions (rate) */
	atomic_t recvd[2];	/* receives completed, per side */
	atomic_t rposted[2];	/* receives posted, per side */
	atomic_t pending[2];	/* requests outstanding, per side */
	atomic_t parts;		/* conditions left before the run ends */
	atomic_t bad;		/* messages of the wrong length or content */
	unsigned long stopped;	/* bit 0: the run has ended */
	int error;
	u64 stamp;		/* start of the current ping-pong */
	u64 t0;
	u64 t1;
	u64 *rtt;
	struct completion finished;
};

/* Connection parameters of both halves. */
struct bench_cfg {
	const char *ip;		/* IPv4 address of the device */
	const char *ia_name;	/* kDAT Interface Adapter */
	u16 raw_port;
	u16 dat_port;
	bool raw_mr;		/* raw half: MR lkeys, not local_dma_lkey */
	bool raw_inline;	/* raw half: small sends and writes inline */
};

extern const char *const bench_op_names[];

int bench_init(struct bench *b, const char *impl,
	       const struct bench_ops *ops);
void bench_free_bufs(struct bench *b);
void bench_fill(u8 *buf, u32 len, u32 seq);
bool bench_differs(const u8 *buf, u32 len, u32 seq);
void bench_request_done(struct bench *b, int side, bool ok);
void bench_recv_done(struct bench *b, int side, u32 off, u32 len, bool ok);
int bench_rate(struct bench *b, enum bench_op op, u32 size, u32 n, u64 *ns);
int bench_latency(struct bench *b, enum bench_op op, u32 size, u32 n,
		  u64 *ns);
u32 bench_rate_n(u32 size, u32 scale);
u32 bench_lat_n(u32 size, u32 scale);

/* The halves: connected benchmark or ERR_PTR(); close frees it. */
struct bench *bench_raw_open(const struct bench_cfg *cfg);
void bench_raw_close(struct bench *b);
struct bench *bench_dat_open(const struct bench_cfg *cfg);
void bench_dat_close(struct bench *b);
int bench_dat_demo(struct bench *b, u32 mib);

#endif /* _KDAPL_BENCH_H */
