#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The table of OFA's tools over kdapl and over OFA's own provider, from
# the blocks the "tools" VM case sends (build/vm/blocks/tools-*.txt, one
# "command<TAB>column<TAB>PASS|FAIL" line each), or those of another case
# in the same form ("conformance").  The kdapl rxe column gives the
# distro and debug kernels' results as distro/debug.
#
#   tests/vm/tools-table.sh [BLOCKS_DIR [CASE]]

set -euo pipefail

dir=${1:-build/vm/blocks}
case=${2:-tools}
files=()
for k in distro debug; do
	[ -r "$dir/$case-$k.txt" ] && files+=("$dir/$case-$k.txt")
done
if [ ${#files[@]} -eq 0 ]; then
	echo "tools-table: no results in $dir" >&2
	exit 1
fi

awk -F'\t' '
FNR == 1 { kind = (FILENAME ~ /debug/) ? "debug" : "distro" }
{
	if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	if ($2 == "kdapl rxe") rxe[$1, kind] = $3
	else if ($2 == "kdapl siw") siw[$1] = $3
	else if ($2 == "OFA rxe") ofa[$1] = $3
}
function v(x) { return x == "" ? "-" : x }
END {
	w = 7
	for (i = 1; i <= n; i++) if (length(order[i]) > w) w = length(order[i])
	printf "%-" w "s  %-11s  %-9s  %-7s\n", "command", "kdapl rxe", \
	       "kdapl siw", "OFA rxe"
	printf "%-" w "s  %-11s  %-9s  %-7s\n", "", "distro/debug", "debug", \
	       "distro"
	for (i = 1; i <= n; i++) {
		c = order[i]
		printf "%-" w "s  %-11s  %-9s  %-7s\n", c, \
		       v(rxe[c, "distro"]) "/" v(rxe[c, "debug"]), v(siw[c]), \
		       v(ofa[c])
	}
}' "${files[@]}"
