#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress: the full-length reliability runs in the debug VM (KASAN,
# lockdep, kmemleak, hung-task detection): the /dev/kdapl fuzzer for a
# million calls, a thousand workloads killed with SIGKILL, and ten
# minutes of soak (8 processes of 32 connected EPs); then the two-host
# runs with every dtest and dapltest set of make check's tools table,
# and a host killed mid-transfer on rxe (distro and debug kernels) and
# siw (debug).  make check runs short versions of the same cases.  Not
# part of make check: see Documentation/reliability.rst.
#
#   make stress [STRESS_CALLS=N] [STRESS_KILLS=N] [STRESS_SOAK=SECONDS]

set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

calls=${STRESS_CALLS:-1000000}
kills=${STRESS_KILLS:-1000}
soak=${STRESS_SOAK:-600}
out=build/stress
mkdir -p "$out"
results=$out/results.txt
: >"$results"

# siw gets more processes: see PROCS_SIW in tests/vm/cases/fuzz.sh.
printf 'CALLS=%s\nSECONDS_MAX=7200\nPROCS_SIW=16\n' "$calls" \
	>"$out/fuzz.conf"
printf 'ROUNDS=%s\n' "$kills" >"$out/kill9.conf"
printf 'PROCS=8\nEPS=32\nSOAK_SECONDS=%s\n' "$soak" >"$out/soak.conf"

bash tests/setup.sh || exit 1
tests/vm/debug-kernel.sh >/dev/null || exit 1
tests/run-vm.sh --results "$results" --mem 4096 \
	--test-timeout 14400 --timeout 18000 \
	--file "$out/fuzz.conf:/etc/kdapl-fuzz.conf" \
	--file "$out/kill9.conf:/etc/kdapl-kill9.conf" \
	--file "$out/soak.conf:/etc/kdapl-soak.conf" \
	debug fuzz kill9 soak

# Two hosts: every set of the tools case (tests/vm/cases/tools.sh), on
# rxe and siw on the debug kernel; a host killed on rxe and on siw.
{
	sed -n "/^DTEST_SETS='/,/^'/p; /^DAPLTEST_SETS='/,/^'/p" \
		tests/vm/cases/tools.sh
	echo LIMIT=900
} >"$out/twohost-distro.conf"
{
	cat "$out/twohost-distro.conf"
	echo 'TRANSPORTS="rxe siw"'
} >"$out/twohost-debug.conf"
printf 'TRANSPORTS=\nKILL_TRANSPORT=rxe\n' >"$out/twohost-kill-rxe.conf"
tests/vm/twohost.sh --results "$results" \
	--conf "$out/twohost-distro.conf" --timeout 3600 distro
tests/vm/twohost.sh --results "$results" \
	--conf "$out/twohost-debug.conf" --timeout 7200 debug
tests/vm/twohost.sh --results "$results" \
	--conf "$out/twohost-kill-rxe.conf" --timeout 1200 debug
cat "$results"
p=$(grep -c '^PASS' "$results")
f=$(grep -c '^FAIL' "$results")
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
