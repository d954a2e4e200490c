# SPDX-License-Identifier: GPL-2.0
#
# make demo: load kdapl next to a soft RoCE device and show what it found,
# then run a kernel consumer of kDAT (kdapl_bench.ko demo=1) that
# connects to itself over rxe0 and moves data with send/recv and RDMA
# write, checking every byte, and show what it moved and how fast.

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
rdma_del rxe0
kdapl_unload
exit 0
