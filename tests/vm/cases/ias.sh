# SPDX-License-Identifier: GPL-2.0
#
# Interface Adapters follow RDMA devices: listed in debugfs and in
# /sys/class/kdapl, and found by kdapl_adapter_get() as devices are
# added, renamed and removed, with the module loaded before or after the
# devices appear.

. /usr/lib/kdapl/lib.sh

IAS=/sys/kernel/debug/kdapl/ias
RXE="rxe0-1-eth0 rxe0 1 roce eth0"
SIW="siw0-1-eth1 siw0 1 iwarp eth1"

# sysfs_ias: the adapters of /sys/class/kdapl, as debugfs lists them.
sysfs_ias() {
	for _d in /sys/class/kdapl/*; do
		[ -d "$_d" ] || continue
		_n=$(cat "$_d/netdev")
		echo "${_d##*/} $(cat "$_d/ibdev") $(cat "$_d/port")" \
			"$(cat "$_d/transport") ${_n:--}"
	done
}

# expect_ias LINE...: the adapter list is exactly these lines, any order,
# in debugfs and in sysfs.
expect_ias() {
	_got=$(sort "$IAS") || die "cannot read $IAS"
	_want=$(for l in "$@"; do echo "$l"; done | sort)
	expect_eq "$_got" "$_want" "adapter list"
	expect_eq "$(sysfs_ias | sort)" "$_want" "adapters in sysfs"
}

# lookup NAME FULL: kdapl_adapter_get(NAME) finds the adapter named FULL.
lookup() {
	kmod_load kdapl_probe name="$1" expect="$2"
	kmod_unload kdapl_probe
}

# no_lookup NAME: kdapl_adapter_get(NAME) finds nothing.
no_lookup() {
	if insmod /kdapl/kdapl_probe.ko name="$1" 2>/dev/null; then
		rmmod kdapl_probe
		die "lookup of '$1' found an adapter"
	fi
}

info "module first, then devices"
kdapl_load
expect_ias
no_lookup rxe0-1
no_lookup eth0

rdma_add rxe
expect_ias "$RXE"
lookup rxe0-1-eth0 rxe0-1-eth0
lookup rxe0-1 rxe0-1-eth0
lookup eth0 rxe0-1-eth0
no_lookup rxe0-2
no_lookup rxe0
no_lookup lo

if kernel_is_debug; then
	rdma_add siw
	expect_ias "$RXE" "$SIW"
	lookup eth1 siw0-1-eth1
	lookup siw0-1 siw0-1-eth1
fi

info "rename follows the device"
check rdma dev set rxe0 name roce9
if kernel_is_debug; then
	expect_ias "roce9-1-eth0 roce9 1 roce eth0" "$SIW"
else
	expect_ias "roce9-1-eth0 roce9 1 roce eth0"
fi
lookup roce9-1 roce9-1-eth0
no_lookup rxe0-1
check rdma dev set roce9 name rxe0
lookup eth0 rxe0-1-eth0

info "removal"
rdma_del rxe0
if kernel_is_debug; then
	expect_ias "$SIW"
else
	expect_ias
fi
no_lookup eth0
no_lookup rxe0-1-eth0

info "unload and load with devices present"
rdma_add rxe
kdapl_unload
[ -e "$IAS" ] && die "$IAS still there after unload"
kdapl_load
if kernel_is_debug; then
	expect_ias "$RXE" "$SIW"
	rdma_del siw0
fi
expect_ias "$RXE"
lookup eth0 rxe0-1-eth0

info "last device goes, then the module"
rdma_del rxe0
expect_ias
kdapl_unload

info "load and unload with no device at all"
kdapl_load
expect_ias
kdapl_unload
[ ! -e /sys/class/kdapl ] || die "/sys/class/kdapl outlives the module"
exit 0
