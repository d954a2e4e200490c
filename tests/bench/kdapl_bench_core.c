// SPDX-License-Identifier: GPL-2.0
/*
 * The measuring engine of the kdapl benchmark; see kdapl_bench.h.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "kdapl_bench.h"

const char *const bench_op_names[] = { "send", "write" };

static int bench_alloc_bufs(struct bench *b)
{
	int i;

	for (i = 0; i < 2; i++) {
		b->sbuf[i] = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
						    BENCH_BUF_ORDER);
		b->rbuf[i] = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
						    BENCH_BUF_ORDER);
		if (!b->sbuf[i] || !b->rbuf[i])
			return -ENOMEM;
	}
	return 0;
}

/**
 * bench_init() - prepare a benchmark and its four buffers
 * @b: zeroed benchmark
 * @impl: name in the results
 * @ops: posting functions
 *
 * The buffers are physically contiguous: the raw half maps them with
 * ib_dma_map_single() and uses the PD's local_dma_lkey.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM (bench_free_bufs() frees what was allocated).
 */
int bench_init(struct bench *b, const char *impl,
	       const struct bench_ops *ops)
{
	b->impl = impl;
	b->ops = ops;
	b->window = BENCH_WINDOW;
	b->rdepth = BENCH_RECV_DEPTH;
	init_completion(&b->finished);
	return bench_alloc_bufs(b);
}

void bench_free_bufs(struct bench *b)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (b->sbuf[i])
			free_pages((unsigned long)b->sbuf[i], BENCH_BUF_ORDER);
		if (b->rbuf[i])
			free_pages((unsigned long)b->rbuf[i], BENCH_BUF_ORDER);
		b->sbuf[i] = NULL;
		b->rbuf[i] = NULL;
	}
}

/* The pattern of message @seq: every 32-bit word differs. */
void bench_fill(u8 *buf, u32 len, u32 seq)
{
	u32 *w = (u32 *)buf;
	u32 i;

	for (i = 0; i < len / 4; i++)
		w[i] = seq * 0x9e3779b9U + i;
}

/* Return: true if @buf does not hold the pattern of message @seq. */
bool bench_differs(const u8 *buf, u32 len, u32 seq)
{
	const u32 *w = (const u32 *)buf;
	u32 i;

	for (i = 0; i < len / 4; i++)
		if (w[i] != seq * 0x9e3779b9U + i)
			return true;
	return false;
}

static bool bench_is_stopped(struct bench *b)
{
	return test_bit(0, &b->stopped);
}

/* End the run, with @err (0: finished).  Only the first call counts. */
static void bench_stop(struct bench *b, int err)
{
	if (test_and_set_bit(0, &b->stopped))
		return;
	b->t1 = ktime_get_ns();
	b->error = err;
	complete(&b->finished);
}

static void bench_part_done(struct bench *b)
{
	if (atomic_dec_and_test(&b->parts))
		bench_stop(b, 0);
}

/* Receives a side takes in the current run. */
static u32 bench_recvs_expected(struct bench *b, int side)
{
	if (b->op != BENCH_OP_SEND)
		return 0;
	if (b->kind == BENCH_LAT || side == BENCH_SERVER)
		return b->n;
	return 0;
}

/* Post the next receive of @side, unless all the run needs are posted. */
static void bench_post_recv(struct bench *b, int side)
{
	u32 k = atomic_fetch_inc(&b->rposted[side]);
	int ret;

	if (k >= bench_recvs_expected(b, side) || bench_is_stopped(b))
		return;
	ret = b->ops->post_recv(b, side, (k % b->rslots) * b->size, b->size);
	if (ret)
		bench_stop(b, ret);
}

/* Post request number @idx of @side (a send or an RDMA write). */
static void bench_post_request(struct bench *b, int side, u32 idx)
{
	u32 off = (idx % b->slots) * b->size;
	int ret;

	if (bench_is_stopped(b))
		return;
	if (b->verify)
		bench_fill(b->sbuf[side] + off, b->size, idx);
	atomic_inc(&b->pending[side]);
	if (b->op == BENCH_OP_SEND)
		ret = b->ops->post_send(b, side, off, b->size);
	else
		ret = b->ops->post_write(b, side, off, b->size);
	if (ret) {
		atomic_dec(&b->pending[side]);
		bench_stop(b, ret);
	}
}

/**
 * bench_request_done() - a send or RDMA write of @side completed
 * @b: the benchmark
 * @side: BENCH_CLIENT or BENCH_SERVER
 * @ok: the completion was successful
 *
 * Context: completion handler (softirq or upcall).
 */
void bench_request_done(struct bench *b, int side, bool ok)
{
	u32 idx;

	atomic_dec(&b->pending[side]);
	if (!ok) {
		bench_stop(b, -EIO);
		return;
	}
	if (b->kind != BENCH_RATE || side != BENCH_CLIENT)
		return;
	idx = atomic_fetch_inc(&b->posted);
	if (idx < b->n)
		bench_post_request(b, BENCH_CLIENT, idx);
	if (atomic_inc_return(&b->done) == b->n)
		bench_part_done(b);
}

/**
 * bench_recv_done() - a receive of @side completed
 * @b: the benchmark
 * @side: BENCH_CLIENT or BENCH_SERVER
 * @off: offset of the receive in the side's target buffer
 * @len: bytes received
 * @ok: the completion was successful
 *
 * Context: completion handler (softirq or upcall).  The receives of a side
 * complete in order, one handler at a time.
 */
void bench_recv_done(struct bench *b, int side, u32 off, u32 len, bool ok)
{
	u32 k;
	u64 now;

	if (!ok) {
		bench_stop(b, -EIO);
		return;
	}
	k = atomic_inc_return(&b->recvd[side]) - 1;
	if (len != b->size ||
	    (b->verify && bench_differs(b->rbuf[side] + off, len, k)))
		atomic_inc(&b->bad);
	bench_post_recv(b, side);
	if (b->kind == BENCH_RATE) {
		if (k + 1 == b->n)
			bench_part_done(b);
		return;
	}
	if (side == BENCH_SERVER) {
		bench_post_request(b, BENCH_SERVER, k);
		return;
	}
	now = ktime_get_ns();
	b->rtt[k] = now - b->stamp;
	if (k + 1 < b->n) {
		b->stamp = now;
		bench_post_request(b, BENCH_CLIENT, k + 1);
	} else {
		bench_stop(b, 0);
	}
}

static void bench_reset(struct bench *b, enum bench_op op,
			enum bench_kind kind, u32 size, u32 n)
{
	int i;

	b->op = op;
	b->kind = kind;
	b->size = size;
	b->n = n;
	b->slots = max_t(u32, 1, BENCH_BUF_SIZE / size);
	b->rslots = min_t(u32, b->slots, b->rdepth);
	atomic_set(&b->posted, 0);
	atomic_set(&b->done, 0);
	atomic_set(&b->parts, op == BENCH_OP_SEND ? 2 : 1);
	atomic_set(&b->bad, 0);
	for (i = 0; i < 2; i++) {
		atomic_set(&b->recvd[i], 0);
		atomic_set(&b->rposted[i], 0);
	}
	b->stopped = 0;
	b->error = 0;
	reinit_completion(&b->finished);
}

/* Wait until no request is outstanding; Return: 0 or -ETIMEDOUT. */
static int bench_drain(struct bench *b)
{
	unsigned long end = jiffies + 10 * HZ;

	while (atomic_read(&b->pending[0]) || atomic_read(&b->pending[1])) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(100, 200);
	}
	return 0;
}

/* Wait for the end of a run started by completion handlers. */
static int bench_wait(struct bench *b)
{
	int ret;

	if (!wait_for_completion_timeout(&b->finished, BENCH_RUN_TIMEOUT)) {
		bench_stop(b, -ETIMEDOUT);
		pr_err("kdapl_bench: %s: run timed out (%u/%u done)\n",
		       b->impl, atomic_read(&b->done),
		       atomic_read(&b->recvd[BENCH_SERVER]));
	}
	ret = bench_drain(b);
	if (b->error)
		return b->error;
	if (ret)
		return ret;
	if (atomic_read(&b->bad)) {
		pr_err("kdapl_bench: %s: %d messages of wrong length/content\n",
		       b->impl, atomic_read(&b->bad));
		return -EBADMSG;
	}
	return 0;
}

/**
 * bench_rate() - message rate of @op with @size byte messages
 * @b: the benchmark
 * @op: BENCH_OP_SEND or BENCH_OP_WRITE
 * @size: message size
 * @n: messages
 * @ns: the time the run took, in nanoseconds
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int bench_rate(struct bench *b, enum bench_op op, u32 size, u32 n, u64 *ns)
{
	u32 i;

	bench_reset(b, op, BENCH_RATE, size, n);
	for (i = 0; i < min(b->rdepth, n); i++)
		bench_post_recv(b, BENCH_SERVER);
	b->t0 = ktime_get_ns();
	for (i = 0; i < min(b->window, n); i++)
		bench_post_request(b, BENCH_CLIENT,
				   atomic_fetch_inc(&b->posted));
	i = bench_wait(b);
	*ns = b->t1 - b->t0;
	return i;
}

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Wait until @side may post; Return: 0, or -ETIMEDOUT. */
static int bench_wait_room(struct bench *b, int side)
{
	unsigned long end = jiffies + 10 * HZ;

	while (atomic_read(&b->pending[side]) >= b->window) {
		if (time_after(jiffies, end) || bench_is_stopped(b))
			return -ETIMEDOUT;
		cond_resched();
	}
	return 0;
}

/* Poll the last byte of the target buffer of @side until it is @tag. */
static int bench_poll_byte(struct bench *b, int side, u8 tag)
{
	u8 *p = &b->rbuf[side][b->size - 1];
	unsigned long end = jiffies + 10 * HZ;
	unsigned int spins = 0;

	while (READ_ONCE(*p) != tag) {
		if (bench_is_stopped(b))
			return b->error ? b->error : -EIO;
		if (++spins % 64 == 0) {
			if (time_after(jiffies, end))
				return -ETIMEDOUT;
			cond_resched();
		}
		cpu_relax();
	}
	return 0;
}

/* The rounds of bench_write_pingpong(). */
static int bench_write_rounds(struct bench *b)
{
	u32 i;
	int ret;

	memset(b->rbuf[BENCH_CLIENT], 0, b->size);
	memset(b->rbuf[BENCH_SERVER], 0, b->size);
	for (i = 0; i < b->n; i++) {
		u8 tag = i % 255 + 1;
		u64 start = ktime_get_ns();

		ret = bench_wait_room(b, BENCH_CLIENT);
		if (ret)
			return ret;
		b->sbuf[BENCH_CLIENT][b->size - 1] = tag;
		bench_post_request(b, BENCH_CLIENT, 0);
		ret = bench_poll_byte(b, BENCH_SERVER, tag);
		if (ret)
			return ret;
		ret = bench_wait_room(b, BENCH_SERVER);
		if (ret)
			return ret;
		b->sbuf[BENCH_SERVER][b->size - 1] = tag;
		bench_post_request(b, BENCH_SERVER, 0);
		ret = bench_poll_byte(b, BENCH_CLIENT, tag);
		if (ret)
			return ret;
		b->rtt[i] = ktime_get_ns() - start;
	}
	return 0;
}

/* The RDMA write ping-pong, driven from here (see the file comment). */
static int bench_write_pingpong(struct bench *b)
{
	long nice = task_nice(current);
	int ret;

	/*
	 * The device's work may be deferred to ksoftirqd.  At the lowest
	 * priority this poller is preempted by its wake-up every time,
	 * not only when the scheduler's fairness says so; with one CPU
	 * (--icount) it would otherwise, now and then, keep ksoftirqd
	 * waiting until the next tick.
	 */
	set_user_nice(current, MAX_NICE);
	ret = bench_write_rounds(b);
	set_user_nice(current, nice);
	if (!ret)
		bench_stop(b, 0);
	return ret;
}

/**
 * bench_latency() - median one-way latency of @op with @size bytes
 * @b: the benchmark
 * @op: BENCH_OP_SEND or BENCH_OP_WRITE
 * @size: message size
 * @n: round trips
 * @ns: half the median round trip, in nanoseconds
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int bench_latency(struct bench *b, enum bench_op op, u32 size, u32 n,
		  u64 *ns)
{
	u32 i;
	int ret;

	b->rtt = kcalloc(n, sizeof(*b->rtt), GFP_KERNEL);
	if (!b->rtt)
		return -ENOMEM;
	bench_reset(b, op, BENCH_LAT, size, n);
	if (op == BENCH_OP_SEND) {
		for (i = 0; i < min(b->rdepth, n); i++) {
			bench_post_recv(b, BENCH_SERVER);
			bench_post_recv(b, BENCH_CLIENT);
		}
		b->stamp = ktime_get_ns();
		bench_post_request(b, BENCH_CLIENT, 0);
		ret = bench_wait(b);
	} else {
		ret = bench_write_pingpong(b);
		if (ret)
			bench_stop(b, ret);
		if (bench_drain(b) && !ret)
			ret = -ETIMEDOUT;
	}
	if (!ret) {
		sort(b->rtt, n, sizeof(*b->rtt), bench_cmp_u64, NULL);
		*ns = b->rtt[n / 2] / 2;
	}
	kfree(b->rtt);
	b->rtt = NULL;
	return ret;
}

/*
 * Iterations: up to 30000 messages or 64 MiB per rate run, up to 3000
 * round trips or 4 MiB per latency run (about a second each in TCG).
 */
u32 bench_rate_n(u32 size, u32 scale)
{
	u64 n = clamp_t(u64, SZ_64M / size, 64, 30000);

	return max_t(u32, 16, div_u64(n * scale, 100));
}

u32 bench_lat_n(u32 size, u32 scale)
{
	u64 n = clamp_t(u64, SZ_4M / size, 20, 3000);

	return max_t(u32, 5, div_u64(n * scale, 100));
}
