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
dmesg -c >/dev/null
check insmod /kdapl/kdapl_kunit.ko
dmesg -s 16777216 >/tmp/kunit.log
emit_block kunit /tmp/kunit.log
kmod_unload kdapl_kunit
kdapl_unload
rdma_del siw0
rdma_del rxe0
grep -q 'not ok' /tmp/kunit.log && die "KUnit reported failures"
grep -q 'ok [0-9]* kdapl_' /tmp/kunit.log || die "no KUnit suite result"
exit 0
