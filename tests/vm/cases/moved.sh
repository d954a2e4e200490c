# SPDX-License-Identifier: GPL-2.0
#
# The address of an open IA moves to the network device of another RDMA
# device (tests/user/shim/shim_moved).  The IA is on rxe1, over a second
# network device (eth1 on the debug kernel, a veth on the distro kernel);
# its address moves to eth0, under rxe0.  Nothing the IA creates after
# the move may bind to rxe0: the program checks the refusals, and
# "rdma link delete rxe0" must return while it still holds every object,
# since kdapl detaches only what is on the IA's own device.  Then the
# program frees everything and kdapl holds nothing.

. /usr/lib/kdapl/lib.sh

log=/tmp/moved.log
go=/tmp/moved.go

# wait_line WORD: until the program's log has WORD (30 s at most).
wait_line() {
	wait_for "$log" "$1" 30 || die "no $1: $(cat "$log")"
}

# wait_gid DEV HEX: until a GID of port 1 of DEV ends in HEX (10 s).
wait_gid() {
	_i=0
	until cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null |
		grep -q "ffff:$2\$"; do
		_i=$((_i + 1))
		[ "$_i" -lt 100 ] || die "$1 has no GID for ffff:$2"
		sleep 0.1
	done
}

# restore [check]: the address back where it was (later cases of the
# boot use the network); with "check", each step must succeed, without
# it (after a failure) each is tried.
restore() {
	$1 ip addr del "$addr/24" dev eth0
	if [ "$nd" = eth1 ]; then
		$1 ip addr add "$addr/24" dev eth1
	else
		$1 ip link delete kdm0
	fi
}

if [ -e /sys/class/net/eth1 ]; then
	nd=eth1
	addr=10.0.3.15
	gid=0a00:030f
else
	nd=kdm0
	addr=10.0.7.15
	gid=0a00:070f
fi
trap restore EXIT
trap 'exit 1' TERM
if [ "$nd" = kdm0 ]; then
	# busybox ip names no peer: the kernel names it veth0.
	check modprobe veth
	check ip link add kdm0 type veth
	check ip link set veth0 up
	check ip link set kdm0 up
	check ip addr add "$addr/24" dev "$nd"
fi

kdapl_load
cat >/tmp/moved-dat.conf <<CONF
rxe1-1 u2.0 nonthreadsafe default /usr/lib/kdapl/libdaplkdapl.so.2 dapl.2.0 "rxe1-1" ""
CONF
export DAT_OVERRIDE=/tmp/moved-dat.conf
rdma_add rxe
check rdma link add rxe1 type rxe netdev "$nd"
rdma_wait_active rxe1
wait_gid rxe1 "$gid"

rm -f "$go"
shim_moved rxe1-1 "$go" >"$log" 2>&1 &
pid=$!
wait_line READY
check ip addr del "$addr/24" dev "$nd"
check ip addr add "$addr/24" dev eth0
wait_gid rxe0 "$gid"
touch "$go"
wait_line CHECKED

# The removal of rxe0 must not wait for the program.
rdma link delete rxe0 &
del=$!
_i=0
while kill -0 "$del" 2>/dev/null && [ "$_i" -lt 300 ]; do
	_i=$((_i + 1))
	sleep 0.1
done
if kill -0 "$del" 2>/dev/null; then
	rm -f "$go"
	wait "$pid"
	wait "$del"
	cat "$log"
	die "the removal of rxe0 waited for the program"
fi
wait "$del" || die "rdma link delete rxe0 failed"
info "rxe0 deleted in $((_i / 10)).$((_i % 10)) s, the program still running"
kill -0 "$pid" 2>/dev/null || die "the program ended early: $(cat "$log")"

rm -f "$go"
wait "$pid"
rc=$?
cat "$log"
[ "$rc" -eq 0 ] || die "shim_moved exited with $rc"
kdapl_nothing_left 10 || die "objects left"
rdma_del rxe1
trap - EXIT
restore check
kdapl_unload
exit 0
