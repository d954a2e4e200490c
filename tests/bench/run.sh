#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: build kdapl and the benchmark modules, boot Debian's kernel
# in the VM with soft RoCE, run kdapl_bench_raw.ko and kdapl_bench_dat.ko
# alternately (tests/vm/cases/bench.sh) and print the table.
#
#   tests/bench/run.sh [--reps N] [--user-reps N] [--scale PERCENT]
#                      [--sizes 8,4096,...]
#                      [--kernel distro|debug] [--dev rxe|siw] [--raw-mr]
#                      [--raw-no-inline] [--aa] [--icount]
#
# The raw half uses every technique kdapl uses: the PD's local_dma_lkey
# and inline sends and RDMA Writes where its QP takes them.  --raw-mr
# makes it use MR lkeys instead (kdapl does for LMRs of several DMA
# ranges); --raw-no-inline makes it send nothing inline, as most kernel
# ULPs (both only to see what each technique is worth).  --aa puts a
# second raw half in place of kdapl: its ratios show the noise floor.
# --icount runs the VM with one vCPU under QEMU's -icount, where guest
# time is the count of executed instructions: every figure repeats to
# the last digits from run to run, and the ratios compare the software
# paths instruction for instruction (caches and the host are out of
# the picture).
#
# The reference is the distro kernel on rxe; siw needs --kernel debug,
# whose sanitizers (KASAN, lockdep, ...) make its figures meaningless for
# anything but a smoke run.
#
# In the same boot, tests/vm/cases/ubench.sh measures the user path:
# udat_bench over udapl-shim against OFA's provider (--user-reps rounds).
#
# The tables are also kept in build/bench/bench.txt and ubench.txt, the
# figures of every round in build/bench/bench-runs.txt and
# ubench-runs.txt.  The exit status says whether the
# benchmark ran, not whether kdapl met the performance targets.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

reps=15
ureps=3
scale=50
sizes=
kernel=distro
dev=rxe
raw_mr=0
raw_inline=1
aa=0
icount=
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=${2:?}; shift ;;
	--user-reps) ureps=${2:?}; shift ;;
	--scale) scale=${2:?}; shift ;;
	--sizes) sizes=${2:?}; shift ;;
	--kernel) kernel=${2:?}; shift ;;
	--dev) dev=${2:?}; shift ;;
	--raw-mr) raw_mr=1 ;;
	--raw-no-inline) raw_inline=0 ;;
	--aa) aa=1 ;;
	--icount) icount=--icount ;;
	*) echo "usage: $0 [--reps N] [--user-reps N] [--scale PERCENT]" \
		"[--sizes LIST]" \
		"[--kernel distro|debug] [--dev rxe|siw] [--raw-mr]" \
		"[--raw-no-inline] [--aa]" \
		"[--icount]" >&2
	   exit 2 ;;
	esac
	shift
done

out=build/bench
mkdir -p "$out"
rm -f "$out/bench.txt" "$out/bench-runs.txt"
printf 'REPS=%s\nSCALE=%s\nSIZES=%s\nDEV=%s\nRAW_MR=%s\nRAW_INLINE=%s\nAA=%s\nICOUNT=%s\n' \
	"$reps" "$scale" "$sizes" "$dev" "$raw_mr" "$raw_inline" "$aa" \
	"${icount:+1}" \
	>"$out/bench.conf"
case $kernel in
distro) mods=tests/bench ;;
debug) mods=build/debug/tests/bench ;;
*) echo "$0: --kernel distro or debug" >&2; exit 2 ;;
esac

bash tests/setup.sh
status=0
echo "bench: $reps rounds of both halves in the $kernel VM on ${dev}0" \
	"(about $(((reps * 40 * scale / 100 + 90) / 60)) min in TCG)..."
# run-vm.sh builds kdapl and the test modules (tests/bench included).
# The user path (ubench) runs in the same boot, after the kernel halves.
printf 'REPS=%s\nICOUNT=%s\n' "$ureps" "${icount:+1}" >"$out/ubench.conf"
rm -f "$out/ubench.txt" "$out/ubench-runs.txt"
# shellcheck disable=SC2086
tests/run-vm.sh --quiet $icount --mods "$mods" --blocks "$out" \
	--file "$top/$out/bench.conf:/etc/kdapl-bench.conf" \
	--file "$top/$out/ubench.conf:/etc/kdapl-ubench.conf" \
	--mem 4096 --timeout 1800 --test-timeout 840 "$kernel" bench ubench ||
	status=$?
for t in bench ubench; do
	echo
	if [ -s "$out/$t.txt" ]; then
		cat "$out/$t.txt"
	else
		echo "bench: the VM printed no $t table" >&2
		status=1
	fi
done
exit $status
