# SPDX-License-Identifier: GPL-2.0
#
# The device of an open IA goes away while a kernel consumer holds one
# object of every family: the consumer gets the catastrophic async event,
# frees every object with DAT_SUCCESS, closes the IA, and kdapl unloads.
# The sanitizer scan of the run checks that nothing leaked.

. /usr/lib/kdapl/lib.sh

check_removal() {
	dev=$1
	adapter=$2
	dmesg -c >/dev/null
	kmod_load kdapl_hold name="$adapter"
	rdma_del "$dev"
	kmod_unload kdapl_hold
	dmesg | grep -q 'kdapl_hold: PASS' ||
		die "$adapter: $(dmesg | grep kdapl_hold)"
	[ -z "$(cat /sys/kernel/debug/kdapl/ias)" ] ||
		die "adapter still listed after removal"
}

rdma_add rxe
kdapl_load
check_removal rxe0 rxe0-1
if kernel_is_debug; then
	rdma_add siw
	check_removal siw0 siw0-1
fi
kdapl_unload
exit 0
