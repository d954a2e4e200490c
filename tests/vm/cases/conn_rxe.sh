# SPDX-License-Identifier: GPL-2.0
#
# kDAT connections and data transfer on soft RoCE (rxe0-1, 10.0.2.15):
# kdapl_conn_test runs its client and server over loopback and prints a
# PASS or FAIL line per check; every scenario must pass and nothing fail.
# Scenarios: pingpong (private data, send/receive, graceful disconnect),
# rdma (1 MiB RDMA write/read in 4 KiB..1 MiB segments, CRC32 checked),
# cycles (1000 connect/disconnect cycles, 250 under KASAN), reject (peer
# and no listener), rsp (reserved EP: RESERVED, TENTATIVE, accept),
# timeout (no host: TIMED_OUT), flush (abrupt disconnect with DTOs
# outstanding), rmr (RMR bind, remote access errors, send with
# invalidate, RDMA read into an RMR), handoff (a request passed to
# another PSP), flags (SUPPRESS, UNSIGNALLED, SOLICITED_WAIT and
# BARRIER_FENCE completion flags) and
# errors (UNREACHABLE, a send into a short receive, a local protection
# error: the statuses and connection events of each transport), ibext
# (RDMA Write with immediate data and atomics; on siw, their
# DAT_NOT_IMPLEMENTED) and ud (datagram EPs: resolution, datagrams,
# refused posts, rejects; on siw, DAT_MODEL_NOT_SUPPORTED).  The
# sanitizer scan of the run checks for leaks.  conn_siw.sh is the same
# on siw.

. /usr/lib/kdapl/lib.sh

CONN_TESTS="pingpong rdma cycles reject rsp timeout flush rmr handoff"
CONN_TESTS="$CONN_TESTS flags errors server_first break_connecting"
CONN_TESTS="$CONN_TESTS psp_race ibext ud"
# 1000 connect/disconnect cycles take 3 minutes per device under KASAN
# on two emulated cores: 250 there (the distro kernel runs 1000).
CYCLES=1000
kernel_is_debug && CYCLES=250

# conn_run IA ADDR: run every scenario on IA; prints what went wrong.
conn_run() {
	dmesg -c >/dev/null
	insmod /kdapl/kdapl_conn_test.ko ia="$1" addr="$2" test=all \
		cycles="$CYCLES" ||
		echo "insmod kdapl_conn_test failed"
	rmmod kdapl_conn_test 2>/dev/null
	_log=$(dmesg | sed -n 's/^.*kdapl_conn_test: //p')
	echo "$_log" | sed "s/^/# $1: /" >&2
	echo "$_log" | grep '^FAIL' | head -n 5
	for _t in $CONN_TESTS; do
		echo "$_log" | grep -qx "PASS $_t" || echo "no 'PASS $_t'"
	done
	echo "$_log" | grep -qx done || echo "the module did not finish"
}

rdma_add rxe
kdapl_load
err=$(conn_run rxe0-1 10.0.2.15)
kdapl_unload
rdma_del rxe0
[ -z "$err" ] || die "rxe0-1: $err"
exit 0
