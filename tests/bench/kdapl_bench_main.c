// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: kdapl against raw ib_core verbs on the same device, in
 * the same boot (see Documentation/benchmark.rst).
 *
 * Loading the module connects both halves (each a client and a server in
 * this module, on loopback through the device of @ip), then for every
 * operation and size measures the message rate and the latency of each
 * half @reps times, alternating which half goes first, and prints one
 * "KDAPL-BENCH" line per operation and size and one "KDAPL-BENCH-RUN"
 * line per round.  The figures of a half are the medians over the rounds
 * (the best ones too); the ratios kdapl/raw are the medians of the ratios
 * of each round, whose two measurements ran back to back, so that the
 * slow drifts of an emulated machine cancel out.  Then it disconnects
 * and the load returns 0; it fails if anything could not run.
 *
 * With demo=1 only the kDAT half is connected, and it moves and checks
 * data instead (bench_dat_demo()).  With aa=1 a second raw half takes
 * the place of the kDAT one: the ratios then show the noise floor of the
 * method on this machine.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/err.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sort.h>

#include "kdapl_bench.h"

#define BENCH_MAX_REPS	31

static char *ip = "10.0.2.15";
module_param(ip, charp, 0444);
MODULE_PARM_DESC(ip, "IPv4 address of the RDMA device (the servers listen there)");

static char *ia_name = "rxe0-1";
module_param(ia_name, charp, 0444);
MODULE_PARM_DESC(ia_name, "kDAT Interface Adapter of that device");

static ushort raw_port = 18515;
module_param(raw_port, ushort, 0444);
MODULE_PARM_DESC(raw_port, "rdma_cm port of the raw half");

static ushort dat_port = 18516;
module_param(dat_port, ushort, 0444);
MODULE_PARM_DESC(dat_port, "connection qualifier of the kDAT half");

static u32 sizes[BENCH_MAX_SIZES] = { 8, 64, 512, 4096, 65536, 1048576 };
static int nsizes = 6;
module_param_array(sizes, uint, &nsizes, 0444);
MODULE_PARM_DESC(sizes, "message sizes (multiples of 4, 8 to 1 MiB)");

static bool raw_mr;
module_param(raw_mr, bool, 0444);
MODULE_PARM_DESC(raw_mr, "raw half: MR lkeys instead of the PD's local_dma_lkey");

static bool raw_inline = true;
module_param(raw_inline, bool, 0444);
MODULE_PARM_DESC(raw_inline, "raw half: sends and RDMA Writes the QP takes inline are posted inline, as kdapl posts them (default); 0 for a raw half written like most ULPs");

static bool aa;
module_param(aa, bool, 0444);
MODULE_PARM_DESC(aa, "A/A run: a second raw half (port raw_port + 2) in place of kDAT, to measure the noise floor");

static uint ops = 3;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "operations: 1 send/recv, 2 RDMA write, 3 both");

static uint scale = 100;
module_param(scale, uint, 0444);
MODULE_PARM_DESC(scale, "iteration counts, percent of the defaults");

static uint reps = 15;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "measurements of each half per operation and size");

static uint only;
module_param(only, uint, 0444);
MODULE_PARM_DESC(only, "measure one half only, for profiles: 1 raw, 2 kDAT (the other half's figures are 0)");

static bool demo;
module_param(demo, bool, 0444);
MODULE_PARM_DESC(demo, "kDAT only: move and check data instead");

static uint demo_mib = 16;
module_param(demo_mib, uint, 0444);
MODULE_PARM_DESC(demo_mib, "MiB moved by each operation in demo mode");

struct bench_figs {
	u64 rate[BENCH_MAX_REPS];	/* messages/s */
	u64 lat[BENCH_MAX_REPS];	/* ns */
};

/* Ratios kdapl/raw of the measurements of one round, in thousandths. */
static u64 bench_ratio(u64 kdapl, u64 raw)
{
	return div64_u64(kdapl * 1000, max(raw, 1ULL));
}

static int bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v; Return: its median. */
static u64 bench_median(u64 *v, u32 n)
{
	sort(v, n, sizeof(*v), bench_cmp, NULL);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One operation and size: @reps measurements of each half, alternated. */
static int bench_one(struct bench *half[2], enum bench_op op, u32 size)
{
	static struct bench_figs figs[2];
	static u64 rq[BENCH_MAX_REPS], lq[BENCH_MAX_REPS];
	u32 rn = bench_rate_n(size, scale);
	u32 ln = bench_lat_n(size, scale);
	u64 rmed[2], lmed[2], rbest[2], lbest[2];
	u32 r, j;
	int ret;

	for (r = 0; r < reps; r++) {
		for (j = 0; j < 2; j++) {
			struct bench *b = half[(r + j) % 2];
			struct bench_figs *f = &figs[(r + j) % 2];
			u64 ns;

			if (only && (r + j) % 2 != only - 1)
				continue;
			ret = bench_rate(b, op, size, rn, &ns);
			if (ret) {
				pr_err("kdapl_bench: %s %s %u rate: %d\n",
				       b->impl, bench_op_names[op], size, ret);
				return ret;
			}
			f->rate[r] = div64_u64((u64)rn * NSEC_PER_SEC,
					       max(ns, 1ULL));
		}
		for (j = 0; j < 2; j++) {
			struct bench *b = half[(r + j) % 2];
			struct bench_figs *f = &figs[(r + j) % 2];

			if (only && (r + j) % 2 != only - 1)
				continue;
			ret = bench_latency(b, op, size, ln, &f->lat[r]);
			if (ret) {
				pr_err("kdapl_bench: %s %s %u latency: %d\n",
				       b->impl, bench_op_names[op], size, ret);
				return ret;
			}
		}
		for (j = 0; j < 2; j++)
			pr_info("KDAPL-BENCH-RUN impl=%s op=%s size=%u round=%u rate=%llu lat_ns=%llu\n",
				half[j]->impl, bench_op_names[op], size, r + 1,
				figs[j].rate[r], figs[j].lat[r]);
		rq[r] = bench_ratio(figs[1].rate[r], figs[0].rate[r]);
		lq[r] = bench_ratio(figs[1].lat[r], figs[0].lat[r]);
	}
	for (j = 0; j < 2; j++) {
		rmed[j] = bench_median(figs[j].rate, reps);
		lmed[j] = bench_median(figs[j].lat, reps);
		rbest[j] = figs[j].rate[reps - 1];
		lbest[j] = figs[j].lat[0];
	}
	pr_info("KDAPL-BENCH op=%s size=%u reps=%u rate_n=%u lat_n=%u raw_rate=%llu kdapl_rate=%llu raw_lat_ns=%llu kdapl_lat_ns=%llu raw_rate_best=%llu kdapl_rate_best=%llu raw_lat_best=%llu kdapl_lat_best=%llu rate_ratio=%llu lat_ratio=%llu\n",
		bench_op_names[op], size, reps, rn, ln, rmed[0], rmed[1],
		lmed[0], lmed[1], rbest[0], rbest[1], lbest[0], lbest[1],
		bench_median(rq, reps), bench_median(lq, reps));
	return 0;
}

static int bench_all(struct bench *half[2])
{
	enum bench_op op;
	int i, ret;

	for (i = 0; i < nsizes; i++) {
		if (sizes[i] < 8 || sizes[i] > BENCH_BUF_SIZE || sizes[i] % 4) {
			pr_err("kdapl_bench: bad size %u\n", sizes[i]);
			return -EINVAL;
		}
	}
	for (op = BENCH_OP_SEND; op <= BENCH_OP_WRITE; op++) {
		if (!(ops & BIT(op)))
			continue;
		for (i = 0; i < nsizes; i++) {
			ret = bench_one(half, op, sizes[i]);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int __init kdapl_bench_init(void)
{
	const struct bench_cfg cfg = {
		.ip = ip,
		.ia_name = ia_name,
		.raw_port = raw_port,
		.dat_port = dat_port,
		.raw_mr = raw_mr,
		.raw_inline = raw_inline,
	};
	struct bench *half[2];
	int ret;

	if (!reps || reps > BENCH_MAX_REPS || !scale || only > 2)
		return -EINVAL;
	if (aa) {
		struct bench_cfg cfg_b = cfg;

		cfg_b.raw_port = raw_port + 2;
		half[1] = bench_raw_open(&cfg_b);
		if (IS_ERR(half[1]))
			return PTR_ERR(half[1]);
		half[1]->impl = "raw-b";
	} else {
		half[1] = bench_dat_open(&cfg);
		if (IS_ERR(half[1]))
			return PTR_ERR(half[1]);
	}
	if (demo && !aa) {
		ret = bench_dat_demo(half[1], demo_mib);
		bench_dat_close(half[1]);
		return ret;
	}
	half[0] = bench_raw_open(&cfg);
	if (IS_ERR(half[0])) {
		ret = PTR_ERR(half[0]);
	} else {
		ret = bench_all(half);
		bench_raw_close(half[0]);
	}
	if (aa)
		bench_raw_close(half[1]);
	else
		bench_dat_close(half[1]);
	return ret;
}

static void __exit kdapl_bench_exit(void)
{
}

module_init(kdapl_bench_init);
module_exit(kdapl_bench_exit);

MODULE_DESCRIPTION("kdapl benchmark: kDAT against raw ib_core verbs");
MODULE_LICENSE("GPL");
