#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run kdapl's KUnit suites in the debug VM and parse their KTAP output
# with the kernel's kunit.py.  Prints one PASS/FAIL/SKIP line per test
# case (appended to --results FILE if given); exits non-zero on any
# failure.  A skip (a device-backed case without its device) is not a
# pass: the debug VM has both devices, so make check shows it.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

results=/dev/null
if [ "${1:-}" = --results ]; then
	results=$2
fi

# A blocks directory of its own: other VM runs clear the shared one.
blocks=$top/build/vm/kunit-blocks
rm -rf "$blocks"
mkdir -p "$blocks"
vmres=$(mktemp)
trap 'rm -f "$vmres"' EXIT

status=0
tests/run-vm.sh --results "$vmres" --blocks "$blocks" debug kunit || status=1
cat "$vmres" >>"$results"

if [ ! -s "$blocks/kunit.txt" ]; then
	echo "FAIL kunit/output" | tee -a "$results"
	exit 1
fi

# Suites run at module load print no top-level KTAP header (the boot-time
# run prints it); add it so kunit.py sees the suites as subtests.
ktap=$blocks/kunit.ktap
nsuites=$(grep -cE '^(not )?ok [0-9]+ ' "$blocks/kunit.txt" || true)
{
	echo "KTAP version 1"
	echo "1..$nsuites"
	cat "$blocks/kunit.txt"
} >"$ktap"

src=$(tests/vm/debug-kernel.sh)/src
json=$top/build/vm/kunit.json
python3 "$src/tools/testing/kunit/kunit.py" parse --json="$json" "$ktap" ||
	status=1

# One line per test case, parameterised cases included.
lines=$(python3 - "$json" <<'PY'

import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)

count = 0


def leaves(group, prefix):
    """Every test case, parameterised ones as suite.case.param."""
    global count
    for case in group.get("test_cases", []):
        count += 1
        verdict = {"PASS": "PASS", "SKIP": "SKIP"}.get(case["status"],
                                                       "FAIL")
        print(f"{verdict} kunit/{prefix}{case['name']}")
    for sub in group.get("sub_groups", []):
        leaves(sub, f"{prefix}{sub['name']}.")


for suite in doc.get("sub_groups", []):
    leaves(suite, f"{suite['name']}.")
if count == 0:
    print("FAIL kunit/no-test-cases")
PY
)
# KUnit of 6.1 prints a skipped parameter of a case as "ok": only the
# case's summary line counts it.  Those count as skips, not passes.
skips=$(sed -nE 's/^ *# ([a-z0-9_]+): pass:([0-9]+) fail:[0-9]+ skip:([1-9][0-9]*) total:([0-9]+)$/SKIP kunit\/\1 (\3 of \4 parameters)/p' \
	"$blocks/kunit.txt")
[ -z "$skips" ] || lines=$(printf '%s\n%s' "$lines" "$skips")
echo "$lines" | tee -a "$results"
if grep -q '^FAIL' <<<"$lines"; then
	status=1
fi
exit $status
