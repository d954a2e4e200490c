# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures in udapl-shim (tests/user/shim/shim_failnth with
# failmalloc.so): each calloc and ring mmap the shim makes in a scenario
# of two IAs, a connection and a message fails in turn; each must come
# back as DAT_INSUFFICIENT_RESOURCES (DAT_PROVIDER_NOT_FOUND when the
# provider cannot load), the IAs must close, and kdapl must be left with
# nothing after every run.  failnth.sh does the same for the kernel's
# allocations.

. /usr/lib/kdapl/lib.sh

kdapl_load
dat_conf /tmp/kdapl-dat.conf
rdma_add rxe
check env LD_PRELOAD=/usr/lib/kdapl/failmalloc.so shim_failnth rxe0-1
kdapl_nothing_left 20 || die "objects left"
rdma_del rxe0
kdapl_unload
