#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run kdapl's KUnit suites in the debug VM and parse their KTAP output
# with the kernel's kunit.py.  Prints one PASS/FAIL line per test case
# (appended to --results FILE if given); exits non-zero on any failure.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

results=/dev/null
if [ "${1:-}" = --results ]; then
	results=$2
fi

# A blocks directory of its own: other VM runs clear the shared one.
blocks=build/vm/kunit-blocks
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

src=$(tests/vm/debug-kernel.sh)/src
json=build/vm/kunit.json
python3 "$src/tools/testing/kunit/kunit.py" parse --json="$json" \
	"$blocks/kunit.txt" || status=1

# One line per test case, parameterised cases included.
lines=$(python3 - "$json" <<'PY'

import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)

count = 0
for suite in doc.get("sub_groups", []):
    for case in suite.get("test_cases", []):
        count += 1
        verdict = "PASS" if case["status"] in ("PASS", "SKIP") else "FAIL"
        print(f"{verdict} kunit/{suite['name']}.{case['name']}")
if count == 0:
    print("FAIL kunit/no-test-cases")
PY
)
echo "$lines" | tee -a "$results"
if grep -q '^FAIL' <<<"$lines"; then
	status=1
fi
exit $status
