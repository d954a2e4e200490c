#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make conformance: the whole conformance matrix of OFA's tools (the
# "conformance" VM case, and the "tools" case's dtest and dapltest sets)
# over kdapl on rxe (distro and debug kernels) and siw (debug kernel),
# and over OFA's provider on rxe in the distro boot; prints both tables.
# Exits non-zero when a row fails over kdapl.  See
# Documentation/conformance.rst.

set -euo pipefail
cd "$(dirname "$0")/.."

blocks=build/vm/conformance-blocks
rm -rf "$blocks"
mkdir -p "$blocks"
status=0
tests/run-vm.sh --blocks "$blocks" --mem 4096 --test-timeout 3000 \
	--timeout 3300 distro tools conformance || status=1
tests/run-vm.sh --blocks "$blocks" --mem 4096 --test-timeout 3000 \
	--timeout 3300 debug tools conformance || status=1
echo "== OFA's tools (tools case)"
tests/vm/tools-table.sh "$blocks" tools || status=1
echo "== conformance matrix"
tests/vm/tools-table.sh "$blocks" conformance || status=1
# A row that fails over kdapl fails the run, unless it is a documented
# failure of the tool itself (Documentation/conformance.rst, note 1)
# that failed over OFA's provider in the same run too.
tool_faults='^dapltest -T F -f queryinfo case(5|13|15)$'
if ! cat "$blocks"/*.txt | awk -F '\t' -v faults="$tool_faults" '
	$2 == "OFA rxe" && $3 == "FAIL" { ofa[$1] = 1 }
	$2 ~ /^kdapl/ && $3 == "FAIL" { bad[$1] = 1 }
	END {
		for (c in bad)
			if (!(c ~ faults && c in ofa)) {
				print "conformance: fails over kdapl: " c
				n++
			}
		exit n > 0
	}'; then
	status=1
fi
exit $status
