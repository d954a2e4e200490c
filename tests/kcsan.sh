#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kcsan: the KUnit suites and the connection tests of kdapl on the
# KCSAN variant of the debug kernel.  Every data race KCSAN reports is
# listed; the run fails on those with a frame of kdapl (races inside
# ib_core, rxe or siw alone are printed, not counted).  Not part of
# make check: see Documentation/testing.rst.

set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

results=$(mktemp)
trap 'rm -f "$results"' EXIT
tests/run-vm.sh --results "$results" --timeout 2400 kcsan \
	kunit conn_rxe conn_siw conn_removal
vm=$?
log=build/vm/kcsan-latest.log

# A KCSAN that is not watching reports nothing: insist that it was.
if ! grep -q 'kcsan: enabled early' "$log"; then
	echo "kcsan: FAIL: KCSAN was not enabled at boot (see $log)"
	exit 1
fi

# One line per report: "ours|theirs <title>".
races=$(sed -E 's/\r+$//; s/^\[ *[0-9.]+\] //' "$log" | awk '
	/BUG: KCSAN:/ { if (title != "") print kind, title
			title = $0; kind = "theirs"; next }
	title != "" && /(\[kdapl[a-z_]*\]|[ \t]kdapl_[a-z0-9_]+\+0x)/ {
		kind = "ours"
	}
	title != "" && /^====================+$/ { print kind, title; title = "" }
	END { if (title != "") print kind, title }')

grep -v '^PASS .*/sanitizers$' "$results" | grep -v '^FAIL .*/sanitizers$'
ours=$(grep -c '^ours ' <<<"$races" || true)
theirs=$(grep -c '^theirs ' <<<"$races" || true)
echo "kcsan: $ours race(s) with a kdapl frame, $theirs elsewhere"
[ -n "$races" ] && sort <<<"$races" | uniq -c
failed=$(grep -v '/sanitizers$' "$results" | grep -c '^FAIL' || true)
if [ "$ours" != 0 ] || [ "$failed" != 0 ]; then
	echo "kcsan: FAIL"
	exit 1
fi
[ "$vm" = 0 ] || echo "kcsan: (the VM counted the reports above)"
echo "kcsan: PASS"
