# SPDX-License-Identifier: GPL-2.0
#
# /dev/kdapl from user space: the ABI handshake, malformed calls, IA, PZ,
# EVD and LMR objects, event rings, waits, mmap rules, isolation between
# files and across fork, connections (tests/user/kdapl-dev), on rxe and,
# on the debug kernel, on siw.  Afterwards the module must unload: every
# file released everything it had.

. /usr/lib/kdapl/lib.sh

kdapl_load
rdma_add rxe
[ -c /dev/kdapl ] || die "no /dev/kdapl"
mode=$(stat -c %a /dev/kdapl)
expect_eq "$mode" 660 "mode of /dev/kdapl"
check kdapl_dev_test rxe0-1
rdma_del rxe0
if kernel_is_debug; then
	rdma_add siw
	check kdapl_dev_test siw0-1
	rdma_del siw0
fi
kdapl_unload
