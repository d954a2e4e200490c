#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Soft RDMA devices come and go: rxe0 on eth0 (plus siw0 on eth1 on the
# debug kernel) must show up in "rdma link show" and in sysfs, and be gone
# again after "rdma link delete".

. /usr/lib/kdapl/lib.sh

devs=rxe0
rdma_add rxe
if kernel_is_debug; then
	rdma_add siw
	devs="rxe0 siw0"
fi

check rdma link show
for d in $devs; do
	rdma link show | grep -q "^link $d/" ||
		die "$d is not in 'rdma link show'"
	[ -d "/sys/class/infiniband/$d" ] ||
		die "/sys/class/infiniband/$d does not exist"
done

for d in $devs; do
	rdma_del "$d"
done

check rdma link show
for d in $devs; do
	if rdma link show | grep -q "^link $d/"; then
		die "$d is still in 'rdma link show' after delete"
	fi
	[ ! -e "/sys/class/infiniband/$d" ] ||
		die "/sys/class/infiniband/$d still exists after delete"
done
info "smoke: $devs added and removed"
