# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suites of kdapl and send their KTAP output to the host,
# where kunit.py parses it (tests/kunit/run.sh).

. /usr/lib/kdapl/lib.sh

kernel_is_debug || skip "KUnit needs the debug kernel"

# The device-backed cases open rxe0-1 (RoCE) and siw0-1 (iWARP).
rdma_add rxe
rdma_add siw
kdapl_load

# kdapl_fault makes allocations fail with the task's fail-nth counter;
# failslab only fails GFP_KERNEL ones with ignore-gfp-wait off, and its
# stack dumps would read as kernel reports to the bench.
FAILSLAB=/sys/kernel/debug/failslab
if [ -d "$FAILSLAB" ]; then
	echo N >"$FAILSLAB/ignore-gfp-wait"
	echo 0 >"$FAILSLAB/verbose"
fi

dmesg -c >/dev/null
echo KDAPL-FAULTS-EXPECTED-BEGIN >/dev/kmsg
check insmod /kdapl/kdapl_kunit.ko
echo KDAPL-FAULTS-EXPECTED-END >/dev/kmsg
dmesg -s 16777216 >/tmp/kunit.log
emit_block kunit /tmp/kunit.log
kmod_unload kdapl_kunit
[ -d "$FAILSLAB" ] && echo Y >"$FAILSLAB/ignore-gfp-wait"
kdapl_unload
rdma_del siw0
rdma_del rxe0
grep -q 'not ok' /tmp/kunit.log && die "KUnit reported failures"
grep -q 'ok [0-9]* kdapl_' /tmp/kunit.log || die "no KUnit suite result"
exit 0
