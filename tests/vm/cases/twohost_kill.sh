# SPDX-License-Identifier: GPL-2.0
#
# Two hosts (tests/vm/twohost.sh): host 2 dies in the middle of a
# transfer.  shim_peer plays a verified RDMA Write and send ping-pong
# between the two hosts over udapl-shim; after KILL_AFTER exchanges
# host 2 prints the mark on which tests/vm/twohost.sh kills its QEMU.
# Host 1 must see BROKEN or DISCONNECTED within BOUND seconds of the
# last exchange, for the dead peer's reason (a transport error on rxe,
# seconds of TCP retransmissions on siw), free every object with
# DAT_SUCCESS, and kdapl must then hold nothing.
#
# On iWARP the peer's death is TCP's to find: the guest lowers
# net.ipv4.tcp_retries2 to 5 (about 13 s of retransmissions, instead of
# about 15 minutes), as an administrator who wants a bounded detection
# time would.
#
# On rxe of the distro kernel the dying client is shim_peer over OFA's
# provider, which asks for 7 transport retries (on rxe: retry forever):
# the kdapl server must still find it dead, with its own count of 6.
#
# /etc/kdapl-twohost.conf (optional) may set KILL_TRANSPORT (rxe on the
# distro kernel, siw on the debug kernel), KILL_CLIENT (ofa, with rxe on
# the distro kernel, or kdapl), KILL_AFTER and BOUND.

. /usr/lib/kdapl/lib.sh

[ -n "${KDAPL_VM_PEER:-}" ] || skip "not a two-host run (tests/vm/twohost.sh)"

KILL_TRANSPORT=rxe
KILL_CLIENT=ofa
if kernel_is_debug; then
	KILL_TRANSPORT=siw
	KILL_CLIENT=kdapl
fi
KILL_AFTER=100
BOUND=60
[ -r /etc/kdapl-twohost.conf ] && . /etc/kdapl-twohost.conf

t=$KILL_TRANSPORT
ia=${t}0-1
qual=7300
dat_conf /tmp/twohost-dat.conf
if [ "$KILL_CLIENT" = ofa ]; then
	[ "$t" = rxe ] || die "OFA's provider runs here on rxe only"
	echo "ofa-v2-peer u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"$KDAPL_VM_PEER_NIC 0\" \"\"" \
		>>/tmp/twohost-dat.conf
fi
# shellcheck disable=SC3045 # busybox ash has ulimit -l
ulimit -l unlimited
check sysctl -w net.ipv4.tcp_retries2=5
kdapl_load
rdma_add "$t" "$KDAPL_VM_PEER_NIC"
info "host $KDAPL_VM_PEER: $t on $KDAPL_VM_PEER_NIC"

if [ "$KDAPL_VM_PEER" = 2 ]; then
	[ "$KILL_CLIENT" = ofa ] && ia=ofa-v2-peer
	info "the client runs over $ia"
	peer_wait kill 1800
	# Runs until this VM is killed on the mark it prints.
	shim_peer "$ia" client "$(peer_addr 1)" "$qual" "$KILL_AFTER"
	die "shim_peer came back (status $?) before the VM was killed"
fi

shim_peer "$ia" server "$qual" "$BOUND" "$KILL_AFTER" \
	>/tmp/peer.log 2>&1 &
pid=$!
wait_for /tmp/peer.log "listening" || die "shim_peer did not listen"
peer_signal kill
wait "$pid"
rc=$?
cat /tmp/peer.log
[ "$rc" = 0 ] || die "the survivor failed (status $rc)"
# The break must be the dead peer's, not a close by a peer that lived:
# on rxe a request ran out of transport retries
# (DAT_DTO_ERR_TRANSPORT, 8); on siw TCP retransmitted for seconds.
line=$(grep '^# survivor:' /tmp/peer.log)
secs=$(echo "$line" | sed -n 's/.* \([0-9.]*\) s after the last.*/\1/p')
status=$(echo "$line" | sed -n 's/.*first error status \(-*[0-9]*\).*/\1/p')
case $t in
rxe)
	[ "$status" = 8 ] ||
		die "first error status '$status', not a transport error (8)"
	;;
siw)
	awk -v s="$secs" 'BEGIN { exit !(s >= 5) }' ||
		die "ended after '$secs' s: too soon for TCP to have given up"
	;;
esac
kdapl_nothing_left 30 || die "kdapl still holds objects"
rdma_del "${t}0"
kdapl_unload
