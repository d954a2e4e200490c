# SPDX-License-Identifier: GPL-2.0
#
# The device goes away under a uDAPL program that is moving data through
# udapl-shim (tests/user/shim/shim_unplug).  While the program runs, rmmod
# of kdapl is refused and kdapl stays loaded.  "rdma link delete" must
# return in bounded time with the program still running and holding its
# objects; the program sees the catastrophic event, its connections break,
# its DTOs flush, and it frees everything with DAT_SUCCESS.  Afterwards
# kdapl holds nothing and unloads.  On rxe, and on siw on the debug kernel.

. /usr/lib/kdapl/lib.sh

# wait_line WORD IA: until the program's log has WORD (30 s at most, and
# only while the program runs).
wait_line() {
	_i=0
	until grep -q "$1" "$_log"; do
		_i=$((_i + 1))
		[ "$_i" -lt 300 ] && kill -0 "$_pid" 2>/dev/null ||
			die "$2: no $1: $(cat "$_log")"
		sleep 0.1
	done
}

# unplug DEV IA: one program, one removal.
unplug() {
	_log=/tmp/unplug-$1.log
	_go=/tmp/unplug-$1.go
	rm -f "$_go"
	shim_unplug "$2" "$_go" >"$_log" 2>&1 &
	_pid=$!
	wait_line READY "$2"

	if rmmod kdapl 2>/tmp/unplug-rmmod.err; then
		die "rmmod kdapl succeeded with /dev/kdapl open"
	fi
	info "rmmod refused: $(cat /tmp/unplug-rmmod.err)"
	[ -d /sys/module/kdapl ] || die "kdapl unloaded"

	_t0=$(date +%s)
	check timeout 30 rdma link delete "$1"
	_t=$(($(date +%s) - _t0))
	info "$1 deleted in $_t s"
	kill -0 "$_pid" 2>/dev/null ||
		die "the program ended before the removal returned: $(cat "$_log")"
	[ "$(awk '$1 == "files" { print $2 }' /sys/kernel/debug/kdapl/objects)" -gt 0 ] ||
		die "no open file counted while the program runs"

	wait_line CHECKED "$2"
	touch "$_go"
	wait "$_pid"
	_rc=$?
	cat "$_log"
	[ "$_rc" -eq 0 ] || die "shim_unplug $2 exited with $_rc"
	kdapl_nothing_left 10 || die "objects left after $2"
	[ -z "$(cat /sys/kernel/debug/kdapl/ias)" ] ||
		die "adapter still listed after removal"
}

kdapl_load
dat_conf /tmp/kdapl-dat.conf
rdma_add rxe
unplug rxe0 rxe0-1
if kernel_is_debug; then
	rdma_add siw
	unplug siw0 siw0-1
fi
kdapl_unload
