#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of the VM bench: it must pass a good run and fail the runs
# that hide a bug.  Usage:
#
#   tests/vm/selftest.sh [--results FILE] [--distro-only]
#
# Each check boots a VM through vm.sh and looks at its exit status and
# output, then prints "PASS bench/<check>" or "FAIL bench/<check>" (also
# appended to FILE).  Exit status 0 iff every check passed.
#
#   fail          distro: a failing guest test gives FAIL and status 1,
#                 and the test after it, which prints more than a pipe
#                 holds, its own result
#   test-timeout  distro: the guest ends a hung test and goes on; blocks
#                 reach the host through both channels
#   host-timeout  distro: a guest that does not finish is killed at
#                 --timeout and reported
#   smoke         debug: smoke passes with no kernel report
#   canary_uaf    debug: KASAN use-after-free fails the run (--expect-fail)
#   canary_lockdep  debug: lockdep AB-BA report fails the run
#                 (these two skip the kmemleak scans, which they do not
#                 need: about 75 s each under emulation)
#   canary_leak   debug: kmemleak report fails the run
#
# The canary modules (tests/vm/canary) are built against the debug kernel
# in build/vm/canary.  --distro-only skips the debug kernel checks.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/vm/selftest

results=
debug=1
while [ $# -gt 0 ]; do
	case $1 in
	--results) results=${2:?}; shift ;;
	--distro-only) debug=0 ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "selftest.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

mkdir -p "$out"
npass=0
nfail=0

record() {
	local line="$1 bench/$2"
	echo "$line"
	if [ -n "$results" ]; then
		echo "$line" >>"$results"
	fi
	if [ "$1" = PASS ]; then
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
	fi
}

# check NAME RC REGEX... -- VMARGS...: run vm.sh VMARGS, want exit status
# RC and every REGEX (grep -E) to match a line of its output.
check() {
	local name=$1 want=$2 rc=0 ok=1 p
	shift 2
	local pats=()
	while [ "$1" != -- ]; do
		pats+=("$1")
		shift
	done
	shift
	echo "=== bench/$name: vm.sh $*"
	# Indented: the FAIL lines a canary must cause are not make check's.
	"$here/vm.sh" -q --blocks "$out/blocks" "$@" >"$out/$name.out" 2>&1 ||
		rc=$?
	sed 's/^/  | /' "$out/$name.out"
	if [ "$rc" != "$want" ]; then
		echo "bench/$name: vm.sh exited with $rc, wanted $want"
		ok=0
	fi
	for p in "${pats[@]}"; do
		if ! grep -qE -- "$p" "$out/$name.out"; then
			echo "bench/$name: no line matches /$p/"
			ok=0
		fi
	done
	last_ok=$ok
}

# Finish a check: PASS only if it and any extra condition held.
finish() {
	if [ "$last_ok" = 1 ] && [ "${2:-1}" = 1 ]; then
		record PASS "$1"
	else
		record FAIL "$1"
	fi
}

canary=$here/canary

check fail 1 '^FAIL distro/fail$' '^PASS distro/chatty$' \
	'^PASS distro/sanitizers$' '^PASS distro/guest-exit$' \
	'^vm: 3 passed, 1 failed$' -- \
	--kernel distro "$canary/fail.sh" "$canary/chatty.sh"
finish fail

rm -rf "$out/blocks"
check test-timeout 1 '^FAIL distro/hang$' 'timeout after 5s' \
	'^PASS distro/block$' '^PASS distro/smoke$' \
	'^PASS distro/guest-exit$' -- \
	--kernel distro --test-timeout 5 \
	"$canary/hang.sh" "$canary/block.sh" smoke
blocks_ok=1
if ! grep -qx 'ok 1 canary_block' "$out/blocks/canary_aux.txt" ||
	[ "$(cat "$out/blocks/canary_console.txt")" != "line one
line two" ]; then
	echo "bench/test-timeout: blocks missing or wrong in $out/blocks"
	blocks_ok=0
fi
finish test-timeout "$blocks_ok"

check host-timeout 1 '^FAIL distro/hang$' '^FAIL distro/guest-exit$' \
	'killed after 30s' -- \
	--kernel distro --timeout 30 --test-timeout 600 "$canary/hang.sh"
finish host-timeout

if [ "$debug" = 1 ]; then
	kdir=$(bash "$here/debug-kernel.sh")
	mods=$top/build/vm/canary
	rm -rf "$mods"
	mkdir -p "$mods"
	cp "$canary/Kbuild" "$canary"/*.c "$mods/"
	make -s -C "$kdir/build" M="$mods" modules

	check smoke 0 '^PASS debug/smoke$' '^PASS debug/sanitizers$' \
		'^PASS debug/guest-exit$' -- \
		--kernel debug smoke
	finish smoke

	check canary_uaf 0 '^PASS debug/canary_uaf$' \
		'^FAIL debug/sanitizers$' '^PASS debug/guest-exit$' \
		'BUG: KASAN: use-after-free in canary_uaf_init' -- \
		--kernel debug --mods "$mods" --no-leak-scan \
		--expect-fail canary_uaf
	finish canary_uaf

	check canary_lockdep 0 '^PASS debug/canary_lockdep$' \
		'^FAIL debug/sanitizers$' '^PASS debug/guest-exit$' \
		'WARNING: possible circular locking dependency detected' \
		'canary_lock_a' -- \
		--kernel debug --mods "$mods" --no-leak-scan \
		--expect-fail canary_lockdep
	finish canary_lockdep

	check canary_leak 0 '^PASS debug/canary_leak$' \
		'^FAIL debug/sanitizers$' '^PASS debug/guest-exit$' \
		'unreferenced object' -- \
		--kernel debug --mods "$mods" --expect-fail canary_leak
	finish canary_leak
fi

echo "selftest: $npass passed, $nfail failed"
[ "$nfail" = 0 ]
