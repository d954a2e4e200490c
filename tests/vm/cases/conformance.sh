# SPDX-License-Identifier: GPL-2.0
#
# The conformance matrix (make conformance): the suites of OFA's tools
# that the tools case does not run, each over udapl-shim (kdapl) on rxe0
# and, on the debug kernel, siw0, and on the distro kernel over OFA's
# provider on rxe0 in the same boot:
#
#   dapltest -T F  every FFT suite; queryinfo one case a run, as the tool
#                  itself crashes in some cases (with OFA too)
#   dapltest -T L  every limit subtest, each on its own (-m 100 -w 1)
#   dtestcm        100 and 1000 connections (bursts of 100), polling and
#                  waiting (-w)
#   dtestx         RDMA Write with immediate data and atomics, with -p
#                  the counters, and with -u -m datagrams between
#                  several EPs
#   dtestsrq       shared receive queues
#
# A row passes when every process exits 0 and the tool reports no
# failure.  Results go to the host as block "conformance-<kernel kind>",
# one "command<TAB>column<TAB>PASS|FAIL" line each, for
# tests/vm/tools-table.sh.  The case itself passes once the matrix ran:
# the table is the result.

. /usr/lib/kdapl/lib.sh

LIMIT=300
if kernel_is_debug; then kind=debug; else kind=distro; fi
out=/tmp/conformance-results.txt
: >"$out"

dat_conf /tmp/conformance-dat.conf
ulimit -l unlimited

# row COMMAND COLUMN RC LOG: record one run, with the log's end if failed.
row() {
	tool_result "$out" "$1" "$2" "$3"
	[ "$3" = 0 ] || [ "$3" = n/a ] || show "$4"
}

# fft IA SUITE [CASES...]: one FFT run; no "Result: FAIL", some PASS.
fft() {
	_ia=$1 _f=$2
	shift 2
	timeout "$LIMIT" dapltest -T F -D "$_ia" -f "$_f" "$@" \
		>/tmp/fft.log 2>&1 &&
		! grep -q "Result: FAIL" /tmp/fft.log &&
		grep -q "Result: PASS" /tmp/fft.log
}

# The queryinfo cases, from the range the tool gives.
queryinfo_cases() {
	_n=$(dapltest -T F -f queryinfo case999 2>&1 |
	     sed -n 's/.*within range : 0 -- \([0-9]*\).*/\1/p')
	_c=0
	while [ "$_c" -le "${_n:-0}" ]; do
		printf 'case%d ' "$_c"
		_c=$((_c + 1))
	done
}

# matrix COLUMN IA ADDR: every row for one provider.
matrix() {
	_col=$1 _ia=$2 _addr=$3
	for f in hwconn endpoint pz mem connmgt; do
		fft "$_ia" "$f"
		row "dapltest -T F -f $f" "$_col" $? /tmp/fft.log
	done
	# One case a run: the tool crashes in some (with OFA's provider too).
	for c in $(queryinfo_cases); do
		fft "$_ia" queryinfo "$c"
		row "dapltest -T F -f queryinfo $c" "$_col" $? /tmp/fft.log
	done
	for l in limit_ia limit_pz limit_cno limit_evd limit_ep limit_rsp \
		 limit_psp limit_lmr limit_rpost limit_size_lmr; do
		# Exhaustion ends with a failing call: that is the limit.
		# The tool's own verdict is "error occurs"; a first call
		# that fails is a limit of zero.
		timeout "$LIMIT" dapltest -T L -D "$_ia" -m 100 -w 1 "$l" \
			>/tmp/limit.log 2>&1 &&
			! grep -q "error occurs\|#1 fails" /tmp/limit.log
		row "dapltest -T L -m 100 -w 1 $l" "$_col" $? /tmp/limit.log
	done
	tool_pair "$_ia" "$_addr" dtestcm -c 100 -- -c 100
	row "dtestcm -c 100" "$_col" $? /tmp/pair-c.log
	tool_pair "$_ia" "$_addr" dtestcm -c 100 -w -- -c 100 -w
	row "dtestcm -c 100 -w" "$_col" $? /tmp/pair-c.log
	# 1000 connections in bursts of 100 on one EVD, polled and waited.
	tool_pair "$_ia" "$_addr" dtestcm -c 1000 -- -c 1000
	row "dtestcm -c 1000" "$_col" $? /tmp/pair-c.log
	tool_pair "$_ia" "$_addr" dtestcm -c 1000 -w -- -c 1000 -w
	row "dtestcm -c 1000 -w" "$_col" $? /tmp/pair-c.log
	dtestx_run "$_ia" "$_addr" "$_col"
	_x=$?
	[ "$_x" = 2 ] && _x=n/a
	row "dtestx" "$_col" "$_x" /tmp/pair-c.log
	dtestx_run "$_ia" "$_addr" "$_col" -p
	_x=$?
	[ "$_x" = 2 ] && _x=n/a
	row "dtestx -p" "$_col" "$_x" /tmp/pair-c.log
	# Datagrams between several EPs of each side (the tools case runs
	# the single-EP test).
	dtestx_ud_run "$_ia" "$_addr" "$_col" -m
	_x=$?
	[ "$_x" = 2 ] && _x=n/a
	row "dtestx -u -m" "$_col" "$_x" /tmp/pair-c.log
	tool_pair "$_ia" "$_addr" dtestsrq --
	row "dtestsrq" "$_col" $? /tmp/pair-c.log
}

kdapl_load
rdma_add rxe
matrix "kdapl rxe" rxe0-1 10.0.2.15
if [ "$kind" = distro ]; then
	matrix "OFA rxe" ofa-v2-cma-roe-eth0 10.0.2.15
else
	rdma_add siw
	matrix "kdapl siw" siw0-1 10.0.3.15
	rdma_del siw0
fi
rdma_del rxe0
kdapl_nothing_left 10 || die "objects left after the matrix"
kdapl_unload
emit_block "conformance-$kind" "$out"
