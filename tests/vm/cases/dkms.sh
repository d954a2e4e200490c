# SPDX-License-Identifier: GPL-2.0
#
# The module as the kdapl-dkms package builds it: tests/pkg/check.sh
# installs the packages on the host, keeps the module DKMS built for
# Debian's kernel, and the host puts it where DKMS installs it
# (updates/dkms) with a fresh depmod.  modprobe must load it with its
# dependencies, it must be that file, and it must work.

. /usr/lib/kdapl/lib.sh

ko=/lib/modules/$(uname -r)/updates/dkms/kdapl.ko
[ -f "$ko" ] || skip "no DKMS-built module (tests/pkg/check.sh makes it)"
check modprobe kdapl
expect_eq "$(cat /sys/module/kdapl/srcversion)" \
	"$(modinfo -F srcversion "$ko")" "srcversion of the loaded kdapl"
rdma_add rxe
check grep -q rxe0 /sys/kernel/debug/kdapl/ias
check kdapl_dev_test rxe0-1
rdma_del rxe0
kdapl_unload
