#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress: the full-length reliability runs in the debug VM (KASAN,
# lockdep, kmemleak, hung-task detection): the /dev/kdapl fuzzer for a
# million calls and a thousand workloads killed with SIGKILL.  make
# check runs short versions of the same cases.  Not part of make check:
# see Documentation/reliability.rst.
#
#   make stress [STRESS_CALLS=N] [STRESS_KILLS=N]

set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

calls=${STRESS_CALLS:-1000000}
kills=${STRESS_KILLS:-1000}
out=build/stress
mkdir -p "$out"
results=$out/results.txt
: >"$results"

printf 'CALLS=%s\nSECONDS_MAX=7200\n' "$calls" >"$out/fuzz.conf"
printf 'ROUNDS=%s\n' "$kills" >"$out/kill9.conf"

bash tests/setup.sh || exit 1
tests/vm/debug-kernel.sh >/dev/null || exit 1
tests/run-vm.sh --results "$results" --mem 4096 \
	--test-timeout 14400 --timeout 18000 \
	--file "$out/fuzz.conf:/etc/kdapl-fuzz.conf" \
	--file "$out/kill9.conf:/etc/kdapl-kill9.conf" \
	debug fuzz kill9
cat "$results"
p=$(grep -c '^PASS' "$results")
f=$(grep -c '^FAIL' "$results")
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
