# SPDX-License-Identifier: GPL-2.0
#
# make bench: kdapl against raw ib_core verbs on rxe0 (or siw0 on the
# debug kernel), in the same boot.  kdapl_bench.ko connects both halves,
# measures each operation and size REPS times per half, alternating which
# half goes first.  The table (medians of the rounds; ratios kdapl/raw as
# medians of the per-round ratios) goes to the host as block "bench",
# every measurement as block "bench-runs".  Performance never fails the
# test: only a benchmark that cannot run does.
#
# /etc/kdapl-bench.conf (optional, from tests/bench/run.sh) may set REPS,
# SCALE (iteration counts in percent), SIZES (comma separated), DEV
# (rxe or siw), RAW_MR (1: the raw half uses MR lkeys instead of the
# PD's local_dma_lkey), RAW_INLINE (0: the raw half sends nothing
# inline; 1, the default: what its QP takes, as kdapl), AA (1: an A/A run, a second raw
# half in place of kdapl, which shows the noise floor) and ICOUNT
# (1: the VM runs under QEMU's -icount, for the table's header).

. /usr/lib/kdapl/lib.sh

REPS=15
SCALE=50
SIZES=
DEV=rxe
RAW_MR=0
RAW_INLINE=1
AA=0
ICOUNT=
[ -r /etc/kdapl-bench.conf ] && . /etc/kdapl-bench.conf

case $DEV in
rxe) addr=10.0.2.15 desc="soft RoCE" ;;
siw) addr=10.0.3.15 desc="soft iWARP" ;;
*) die "DEV must be rxe or siw" ;;
esac

kdapl_load
rdma_add "$DEV"

params="reps=$REPS scale=$SCALE ip=$addr ia_name=${DEV}0-1 raw_mr=$RAW_MR"
params="$params raw_inline=$RAW_INLINE aa=$AA"
[ -z "$SIZES" ] || params="$params sizes=$SIZES"

dmesg -c >/dev/null
failed=0
# shellcheck disable=SC2086
if insmod "$KDAPL_MODDIR/kdapl_bench.ko" $params; then
	rmmod kdapl_bench
else
	failed=1
	dmesg | grep kdapl_bench | sed 's/^/# /'
fi
runs=/tmp/bench-runs.txt
dmesg | sed -n 's/.*KDAPL-BENCH-RUN //p' >"$runs"
dmesg | sed -n 's/.*KDAPL-BENCH //p' >/tmp/bench-lines.txt

# The table: medians of the rounds; ratios kdapl/raw are the medians of
# the ratios of each round (whose two measurements ran back to back).
awk -v kernel="$(uname -r)" -v dev="${DEV}0 ($desc)" -v addr="$addr" \
	-v rawmr="$RAW_MR" -v rawinline="$RAW_INLINE" -v aa="$AA" \
	-v icount="$ICOUNT" '
function val(s, k,    n, i, kv) {
	n = split(s, kv, " ")
	for (i = 1; i <= n; i++)
		if (index(kv[i], k "=") == 1)
			return substr(kv[i], length(k) + 2)
	return ""
}
function ratio(a, b) {
	return b > 0 ? a / b : 0
}
NR == 1 {
	printf "kdapl benchmark: %s, loopback on %s, kernel %s\n", dev, \
		addr, kernel
	printf "%d rounds, kdapl and raw back to back in each; medians.\n", \
		val($0, "reps")
	printf "rate: messages/s, window of 32; latency: round trip / 2 (us)\n"
	printf "ratio: median of the per-round ratios kdapl/raw; best: ratio"
	printf " of the best figures\n"
	if (rawmr)
		printf "raw half with MR lkeys (raw_mr=1)\n"
	if (!rawinline)
		printf "raw half without inline sends and writes (raw_inline=0)\n"
	if (aa)
		printf "A/A RUN: the kdapl columns are a second raw half\n"
	if (icount)
		printf "ICOUNT: one vCPU, time = instructions x 2 ns; +instr:" \
			" instructions per message kdapl adds to raw\n"
	printf "target: rate ratio >= 0.95, latency ratio <= 1.05"
	if (icount)
		printf "; +instr <= 300 for 8-byte messages"
	printf "\n\n"
	printf "%-5s %7s  %9s %9s %5s  %8s %8s %5s  %6s  %-12s  %s\n", \
		"op", "size", "raw msg/s", "kdapl", "ratio", "raw us", \
		"kdapl us", "ratio", "+instr", "note", "best"
}
{
	q = val($0, "rate_ratio") / 1000; l = val($0, "lat_ratio") / 1000
	kr = val($0, "kdapl_rate"); rr = val($0, "raw_rate")
	# Time per message at the rate, in instructions of 2 ns.
	extra = (icount && kr > 0 && rr > 0) ? \
		(1e9 / kr - 1e9 / rr) / 2 : ""
	ok = q >= 0.95 && l <= 1.05
	if (extra != "" && val($0, "size") == 8 && extra > 300)
		ok = 0
	note = ok ? "PASS" : "BELOW-TARGET"
	if (note != "PASS")
		below++
	rows++
	printf "%-5s %7d  %9d %9d %5.2f  %8.1f %8.1f %5.2f  %6s  %-12s  %.2f %.2f\n", \
		val($0, "op"), val($0, "size"), rr, kr, q, \
		val($0, "raw_lat_ns") / 1000, val($0, "kdapl_lat_ns") / 1000, \
		l, extra == "" ? "-" : sprintf("%d", extra), note, \
		ratio(val($0, "kdapl_rate_best"), val($0, "raw_rate_best")), \
		ratio(val($0, "kdapl_lat_best"), val($0, "raw_lat_best"))
}
END {
	if (!rows)
		print "no results"
	else
		printf "\n%d of %d rows below target\n", below, rows
}' /tmp/bench-lines.txt >/tmp/bench.txt

emit_block bench-runs "$runs"
emit_block bench /tmp/bench.txt
cat /tmp/bench.txt

rdma_del "${DEV}0"
kdapl_unload
[ "$failed" = 0 ] || die "kdapl_bench.ko failed to run"
exit 0
