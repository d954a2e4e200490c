# SPDX-License-Identifier: GPL-2.0
#
# The device goes away under traffic: kdapl_conn_test connects a client
# and a server EP and keeps send/receive round trips going from a kthread;
# the test deletes the device.  On unload the module checks that the
# async EVD got DAT_ASYNC_ERROR_IA_CATASTROPHIC, that both connections
# broke (BROKEN or DISCONNECTED, EP DISCONNECTED), that every outstanding
# DTO completed once and that every object frees with DAT_SUCCESS before
# a graceful IA close.  kdapl must unload after; the sanitizer scan of the
# run checks for leaks.

. /usr/lib/kdapl/lib.sh

PROGRESS=/sys/module/kdapl_conn_test/parameters/progress

# removal DEV IA ADDR: prints what went wrong; the device is gone after.
removal() {
	dmesg -c >/dev/null
	if ! insmod /kdapl/kdapl_conn_test.ko ia="$2" addr="$3" test=removal
	then
		echo "set-up failed: $(dmesg | grep 'kdapl_conn_test: FAIL')"
		rdma link delete "$1"
		return
	fi
	_p1=$(cat "$PROGRESS")
	sleep 1
	_p2=$(cat "$PROGRESS")
	[ "$_p2" -gt "$_p1" ] || echo "no traffic ($_p1, then $_p2 round trips)"
	info "$2: $_p2 round trips, deleting $1" >&2
	rdma link delete "$1" || echo "rdma link delete $1 failed"
	rmmod kdapl_conn_test || echo "rmmod kdapl_conn_test failed"
	_log=$(dmesg | sed -n 's/^.*kdapl_conn_test: //p')
	echo "$_log" | sed "s/^/# $2: /" >&2
	echo "$_log" | grep '^FAIL' | head -n 5
	for _t in removal/traffic removal/events removal; do
		echo "$_log" | grep -qx "PASS $_t" || echo "no 'PASS $_t'"
	done
	[ -z "$(cat /sys/kernel/debug/kdapl/ias)" ] ||
		echo "adapter still listed after removal"
}

rdma_add rxe
kdapl_load
err=$(removal rxe0 rxe0-1 10.0.2.15)
[ -z "$err" ] || { kdapl_unload; die "rxe0-1: $err"; }
if kernel_is_debug; then
	rdma_add siw
	err=$(removal siw0 siw0-1 10.0.3.15)
	[ -z "$err" ] || { kdapl_unload; die "siw0-1: $err"; }
fi
kdapl_unload
exit 0
