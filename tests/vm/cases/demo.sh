# SPDX-License-Identifier: GPL-2.0
#
# make demo: load kdapl next to a soft RoCE device and show what it found,
# then run a kernel consumer of kDAT (kdapl_bench.ko demo=1) that
# connects to itself over rxe0 and moves data with send/recv and RDMA
# write, checking every byte, and show what it moved and how fast; then
# Debian's dtest between two processes over udapl-shim and over OFA's
# provider, with the time each took.

. /usr/lib/kdapl/lib.sh

kdapl_load
rdma_add rxe
{
	echo "kernel: $(uname -r)"
	echo "RDMA links:"
	rdma link show | sed 's/^/  /'
	echo "kdapl Interface Adapters (/sys/kernel/debug/kdapl/ias):"
	echo "  name ibdev port transport netdev"
	sed 's/^/  /' /sys/kernel/debug/kdapl/ias
} >/tmp/demo.txt
emit_block demo /tmp/demo.txt
grep -q '^  rxe0-1-eth0 rxe0 1 roce eth0$' /tmp/demo.txt ||
	die "rxe0 has no Interface Adapter"

# Moving data: the module does the whole run while it loads.
dmesg -c >/dev/null
moved=0
if insmod "$KDAPL_MODDIR/kdapl_bench.ko" demo=1 demo_mib=16; then
	rmmod kdapl_bench
	moved=1
fi
{
	echo "kdapl_bench.ko demo=1: one kDAT consumer, client and server"
	echo "connected over rxe0 (10.0.2.15), every byte checked:"
	dmesg | sed -n 's/.*KDAPL-DEMO /  /p'
	if [ "$moved" = 0 ]; then
		echo "  FAILED:"
		dmesg | grep kdapl_bench | sed 's/^/  /'
	fi
} >/tmp/demo-data.txt
emit_block demo-data /tmp/demo-data.txt
[ "$moved" = 1 ] || die "the kDAT consumer failed"
[ "$(grep -c ' verified, ' /tmp/demo-data.txt)" = 2 ] ||
	die "the kDAT consumer did not report both transfers"
# The user path: Debian's dtest, unmodified, between two processes over
# udapl-shim (kdapl), and the same run over OFA's provider.
ulimit -l unlimited
dat_conf /tmp/demo-dat.conf
DTEST_OPTS="-t -B 100 -b 65536"

# dtest_pair IA LOG: a server and a client; 0 if both passed.
dtest_pair() {
	# shellcheck disable=SC2086 # a list of options
	timeout 120 dtest -P "$1" -s $DTEST_OPTS >"$2.server" 2>&1 &
	_s=$!
	_n=0
	while ! grep -q "waiting for client" "$2.server" 2>/dev/null &&
		[ "$_n" -lt 300 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	sleep 0.5
	# shellcheck disable=SC2086
	timeout 120 dtest -P "$1" -h 10.0.2.15 $DTEST_OPTS >"$2" 2>&1
	_c=$?
	wait "$_s"
	_w=$?
	[ "$_c" = 0 ] && [ "$_w" = 0 ] && grep -q "Test Complete. PASSED" "$2"
}

# rates LOG: "what<TAB>MB/s" for each figure dtest -t printed.
rates() {
	sed -n 's/^[0-9]*: \([^:]*\): *Total=.* \([0-9.]*\) MB\/sec.*/\1\t\2/p' \
		"$1" 2>/dev/null
}

ok_k=0 ok_o=0
dtest_pair rxe0-1 /tmp/demo-dtest-kdapl.log && ok_k=1
dtest_pair ofa-v2-cma-roe-eth0 /tmp/demo-dtest-ofa.log && ok_o=1
{
	echo "dtest $DTEST_OPTS, client and server processes over rxe0,"
	echo "through libdat2: udapl-shim (kdapl) and OFA's libdaplofa"
	echo "(bursts of 100 messages of 64 KiB; what the client measured):"
	printf '  %-34s %10s %10s\n' "" "kdapl" "OFA"
	rates /tmp/demo-dtest-kdapl.log | while IFS='	' read -r what mb; do
		ofa=$(rates /tmp/demo-dtest-ofa.log |
		      awk -F'\t' -v w="$what" '$1 == w { print $2; exit }')
		printf '  %-34s %10s %10s\n' "$what (MB/s)" "$mb" "${ofa:--}"
	done
	printf '  %-34s %10s %10s\n' "result" \
		"$([ "$ok_k" = 1 ] && echo PASSED || echo FAILED)" \
		"$([ "$ok_o" = 1 ] && echo PASSED || echo FAILED)"
} >/tmp/demo-user.txt
emit_block demo-user /tmp/demo-user.txt
# What dtest printed at the end, in the log.
for f in /tmp/demo-dtest-kdapl.log /tmp/demo-dtest-ofa.log; do
	[ ! -r "$f" ] || tail -n 25 "$f" | sed "s|^|# $(basename "$f"): |"
done
if [ "$ok_k" != 1 ]; then
	tail -n 20 /tmp/demo-dtest-kdapl.log /tmp/demo-dtest-kdapl.log.server |
		sed 's/^/# /'
	die "dtest over udapl-shim failed"
fi

rdma_del rxe0
kdapl_unload
exit 0
