# SPDX-License-Identifier: GPL-2.0
#
# iWARP connections whose local port another program holds.  rdma_cm
# picks an active connection's port in its own port space; soft iWARP
# then binds a kernel TCP socket to it, which fails when an unrelated
# TCP socket has the port (iwpmd, which would map ports, does not run
# here).  With the ephemeral range narrowed to 600 ports and half of them
# held by tcphold, every connection must still be made: OFA's dtestcm
# through udapl-shim (100 connections), then kdapl_conn_test's
# connect/disconnect cycles for a kernel consumer.  With every port of a
# ten-port range held, a connect fails with DAT_INSUFFICIENT_RESOURCES.

. /usr/lib/kdapl/lib.sh

kernel_is_debug || skip "siw is only in the debug kernel"

dat_conf /tmp/ports-dat.conf
ulimit -l unlimited
# shellcheck disable=SC2034 # read by tool_pair() and show()
LIMIT=120 SHOW=20

# The cases after this one in the boot get the ports back, whatever
# happens here.
range=$(cat /proc/sys/net/ipv4/ip_local_port_range)
holder=
restore() {
	[ -z "$holder" ] || kill "$holder" 2>/dev/null
	echo "$range" >/proc/sys/net/ipv4/ip_local_port_range
}
trap restore EXIT
echo "41000 41599" >/proc/sys/net/ipv4/ip_local_port_range ||
	die "cannot narrow the ephemeral port range"
tcphold 41000 41300 >/tmp/tcphold.log 2>&1 &
holder=$!
# Earlier cases of the boot may still have a port of the range.
wait_for /tmp/tcphold.log "holding [0-9]* ports" ||
	die "tcphold: $(cat /tmp/tcphold.log)"
held=$(sed -n 's/^tcphold: holding \([0-9]*\) ports$/\1/p' /tmp/tcphold.log)
[ "${held:-0}" -ge 250 ] || die "tcphold: $(cat /tmp/tcphold.log)"

kdapl_load
rdma_add siw
err=
tool_pair siw0-1 10.0.3.15 dtestcm -c 100 -- -c 100 ||
	{ show /tmp/pair-c.log; err="dtestcm -c 100 failed"; }

dmesg -c >/dev/null
insmod /kdapl/kdapl_conn_test.ko ia=siw0-1 addr=10.0.3.15 \
	test=pingpong,cycles cycles=60 || err="$err; insmod kdapl_conn_test failed"
rmmod kdapl_conn_test 2>/dev/null
log=$(dmesg | sed -n 's/^.*kdapl_conn_test: //p')
echo "$log" | sed "s/^/# /" | tail -n 8 >&2
for t in pingpong cycles; do
	echo "$log" | grep -qx "PASS $t" || err="$err; kdapl_conn_test: no 'PASS $t'"
done

# No port left at all: ten ports, every one held.  They are above
# Debian's ephemeral range (32768-60999), where no connection of an
# earlier case can still hold one (in TIME_WAIT, say).
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
tcphold 61000 61010 >/tmp/tcphold.log 2>&1 &
holder=$!
wait_for /tmp/tcphold.log "holding [0-9]* ports" ||
	die "tcphold: $(cat /tmp/tcphold.log)"
grep -qx "tcphold: holding 10 ports" /tmp/tcphold.log ||
	die "tcphold: $(cat /tmp/tcphold.log)"
echo "61000 61009" >/proc/sys/net/ipv4/ip_local_port_range
dmesg -c >/dev/null
insmod /kdapl/kdapl_conn_test.ko ia=siw0-1 addr=10.0.3.15 test=no_port ||
	err="$err; insmod kdapl_conn_test failed"
rmmod kdapl_conn_test 2>/dev/null
log=$(dmesg | sed -n 's/^.*kdapl_conn_test: //p')
echo "$log" | sed "s/^/# /" | tail -n 4 >&2
echo "$log" | grep -qx "PASS no_port" || err="$err; kdapl_conn_test: no 'PASS no_port'"

restore
holder=
rdma_del siw0
kdapl_nothing_left 10 || err="$err; objects left"
kdapl_unload
[ -z "$err" ] || die "${err#; }"
exit 0
