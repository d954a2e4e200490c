# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures in /dev/kdapl calls (tests/fuzz/kdapl_failnth): on
# the debug kernel (CONFIG_FAILSLAB), every slab allocation of each call
# of a sequence from IA open to a connection with posted work fails in
# turn; each must give a clean DAT error or ENOMEM and leave nothing
# behind.  Skipped on the distro kernel, which has no fault injection.
#
# The calls that set up a QP in the driver (connect, accept) run without
# failures: the error paths of rxe and siw of 6.1 break under them (see
# kdapl_failnth.c); /etc/kdapl-failnth.conf may set ARGS=-a to fail them
# too.

. /usr/lib/kdapl/lib.sh

FAILSLAB=/sys/kernel/debug/failslab
kernel_is_debug || skip "fault injection needs the debug kernel"
[ -d "$FAILSLAB" ] || skip "no failslab"
# failslab fails GFP_KERNEL allocations only with ignore-gfp-wait off;
# its stack dumps would read as kernel reports to the bench.
echo N >"$FAILSLAB/ignore-gfp-wait"
echo 0 >"$FAILSLAB/verbose"

ARGS=
# shellcheck disable=SC1091 # written by the host
[ -r /etc/kdapl-failnth.conf ] && . /etc/kdapl-failnth.conf

kdapl_load
rdma_add rxe
echo KDAPL-FAULTS-EXPECTED-BEGIN >/dev/kmsg
# shellcheck disable=SC2086 # options
kdapl_failnth $ARGS rxe0-1
rc=$?
echo KDAPL-FAULTS-EXPECTED-END >/dev/kmsg
echo Y >"$FAILSLAB/ignore-gfp-wait"
[ "$rc" = 0 ] || die "kdapl_failnth failed"
rdma_del rxe0
kdapl_unload
