# SPDX-License-Identifier: GPL-2.0
#
# The kdapl_conn_test scenarios of conn_rxe.sh on soft iWARP (siw0-1,
# 10.0.3.15), which only the debug kernel has.  Where siw and rxe differ
# (the errors scenario: completion statuses, connection events), the
# module asserts what each does in 6.1.

. /usr/lib/kdapl/lib.sh

kernel_is_debug || skip "siw is only in the debug kernel"

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

rdma_add siw
kdapl_load
err=$(conn_run siw0-1 10.0.3.15)
kdapl_unload
rdma_del siw0
[ -z "$err" ] || die "siw0-1: $err"
exit 0
