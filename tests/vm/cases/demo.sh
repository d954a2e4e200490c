# SPDX-License-Identifier: GPL-2.0
#
# make demo: load kdapl next to a soft RoCE device and show what it found.

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
rdma_del rxe0
kdapl_unload
exit 0
