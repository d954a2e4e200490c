# SPDX-License-Identifier: GPL-2.0
#
# kdaplctl and the sysfs attributes it reads: list (text and --json)
# with the address, state and open IAs of each adapter, dat-conf printed
# and installed into a dat.conf idempotently and removed again, and
# objects with their owners, and stats counting what a uDAPL program
# did.  ias.sh checks the adapters in sysfs as
# devices come, go and are renamed.

. /usr/lib/kdapl/lib.sh

C=/sys/class/kdapl/rxe0-1-eth0

kdapl_load
rdma_add rxe
check kdaplctl list
kdaplctl list | grep -Eq '^rxe0-1-eth0 +rxe0 +1 +eth0 +10\.0\.2\.15 +roce +active +0$' ||
	die "kdaplctl list: no line for rxe0-1-eth0 as expected"
kdaplctl --json list | grep -q '"name": "rxe0-1-eth0", "ibdev": "rxe0", "port": "1", "netdev": "eth0", "address": "10.0.2.15", "transport": "roce", "state": "active", "ias": "0"' ||
	die "kdaplctl --json list: $(kdaplctl --json list)"

# An IA open by a kernel consumer counts.
kmod_load kdapl_hold name=rxe0-1
expect_eq "$(cat "$C/ias")" 1 "open IAs"
kdaplctl objects | grep -q '^ia  *1$' || die "objects: $(kdaplctl objects)"
kdaplctl objects | grep -Eq '^0 +kernel .*ia=1.*pz=1' ||
	die "no kernel owner line: $(kdaplctl objects)"
kdaplctl --json objects | grep -q '"ia": 1' || die "objects --json"
kdaplctl --json objects |
	grep -q '"owners": \[{"pid": 0, "command": "kernel", "objects": {' ||
	die "objects --json owners: $(kdaplctl --json objects)"
# ib_core names PDs, CQs and MRs after the module that made them.
rdma resource show pd | grep -q 'comm \[kdapl\]' ||
	die "no PD of kdapl in rdma resource show: $(rdma resource show pd)"

# stats: shim_test posts one receive, one send, a send with a bad LMR
# context, 400 RDMA Writes and one RDMA Read, and each completes; it
# makes eight connections, each with its events on both sides, and one
# of them comes as two requests (handed off from one PSP to another).
# Each connection's end is heard before its IAs close: an abrupt close
# of one side makes the other's DISCONNECTED a race with its own close.
# Its srq case adds a connection, three sends into three SRQ receives,
# an SRQ receive with a bad LMR context, and three async events: two
# SRQs below their low watermark and one EP's Last WQE Reached.  Its csp
# case adds a connection through a CSP.  Its evd_resize_conn case adds a
# connection and 16 RDMA Writes.  cr_burst is skipped: how often its
# one-event EVD overflows depends on timing.
stats() {
	kdaplctl stats rxe0-1-eth0 | awk '{ printf "%s=%s ", $1, $2 }'
}
dat_conf /tmp/kdapl-dat.conf
before=$(stats)
check shim_test rxe0-1 cr_burst >/tmp/kdaplctl-shim.log
after=$(stats)
info "before: $before"
info "after: $after"
for c in posts_send=5 posts_recv=5 posts_rdma_write=416 posts_rdma_read=1 \
	posts_other=0 post_errors=2 completions=427 completion_errors=0 \
	connection_requests=15 connection_events=53 async_events=3 \
	evd_overflows=0; do
	b=$(echo "$before" | tr ' ' '\n' | awk -F= -v n="${c%=*}" '$1 == n { print $2 }')
	a=$(echo "$after" | tr ' ' '\n' | awk -F= -v n="${c%=*}" '$1 == n { print $2 }')
	[ -n "$a" ] && [ -n "$b" ] || die "no counter ${c%=*}"
	expect_eq "$((a - b))" "${c#*=}" "${c%=*} by shim_test"
done
kdaplctl --json stats | grep -q '^{"rxe0-1-eth0": {"async_events": [0-9]*, "completion_errors": 0, "completions": [0-9]*, ' ||
	die "stats --json: $(kdaplctl --json stats)"
kdaplctl stats nosuch 2>/dev/null && die "stats of an unknown IA"

# A process's objects are listed under its pid and command, with the
# numbers of its QPs.
kdapl_fuzz -n 1000000 -p 1 -t 1 -T 60 rxe0-1 >/dev/null 2>&1 &
fz=$!
sleep 3
kdaplctl objects | grep -Eq '^[1-9][0-9]* +kdapl_fuzz .*ia=' ||
	die "no line for the fuzzer: $(kdaplctl objects)"
kill -KILL "$fz"
killall -q -KILL kdapl_fuzz
wait

# rdma resource show names every QP after kdapl, which creates them
# itself; kdaplctl objects gives the process of each QP number.  Two
# shim_peer processes play ping-pong over rxe until they are killed.
shim_peer rxe0-1 server 7400 600 1 >/tmp/kdaplctl-peer-s.log 2>&1 &
ps=$!
wait_for /tmp/kdaplctl-peer-s.log listening || die "shim_peer did not listen"
shim_peer rxe0-1 client 10.0.2.15 7400 1000000000 \
	>/tmp/kdaplctl-peer-c.log 2>&1 &
pc=$!
peer_qpns() {
	kdaplctl objects |
		sed -n 's/^[0-9][0-9]* *shim_peer .*qpn=\([0-9,]*\).*/\1/p' |
		tr ',' ' '
}
n=300
while [ "$(peer_qpns | wc -w)" -lt 2 ]; do
	[ "$n" -gt 0 ] || die "no QPs for shim_peer: $(kdaplctl objects)"
	sleep 0.1
	n=$((n - 1))
done
qpns=$(peer_qpns | tr "\n" " ")
info "shim_peer's QPs: $qpns"
for q in $qpns; do
	rdma resource show qp | grep -Eq "lqpn $q .*comm \[kdapl\]" ||
		die "QP $q not under kdapl: $(rdma resource show qp)"
done
rdma resource show qp | grep -q 'comm \[rdma_cm\]' &&
	die "QPs under rdma_cm: $(rdma resource show qp)"
kill -KILL "$pc" "$ps"
wait

# dat-conf: a line per IA; --install keeps the other lines and replaces
# its own block, --remove takes the block out.
expect_eq "$(kdaplctl dat-conf)" \
	'rxe0-1-eth0 u2.0 nonthreadsafe default libdaplkdapl.so.2 dapl.2.0 "rxe0-1-eth0" ""' \
	"dat-conf"
conf=/tmp/kdaplctl-dat.conf
printf 'ofa-v2-x u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "x 0" ""\n' >"$conf"
cp "$conf" "$conf.orig"
check kdaplctl dat-conf --install "$conf"
cp "$conf" "$conf.once"
check kdaplctl dat-conf --install "$conf"
cmp "$conf" "$conf.once" || die "a second install changed the file"
expect_eq "$(grep -c rxe0-1-eth0 "$conf")" 1 "IA lines installed"
grep -q '^ofa-v2-x ' "$conf" || die "install lost another line"
check kdaplctl dat-conf --remove "$conf"
cmp "$conf" "$conf.orig" || die "remove did not give the original back"

# The device goes: its directory goes, the IA stays open until freed.
rdma_del rxe0
[ ! -e "$C" ] || die "$C outlives its device"
kmod_unload kdapl_hold
dmesg | grep -q 'kdapl_hold: PASS' || die "kdapl_hold did not pass"
kdapl_unload
