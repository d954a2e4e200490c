#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that kdapl builds as part of a kernel tree: place it in a tree of
# hard links to the debug kernel's source (tests/kunit/intree.sh), enable
# CONFIG_KDAPL and CONFIG_KDAPL_KUNIT_TEST as modules on top of the debug
# kernel's configuration, and build the kdapl directory with W=1.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
debug=$("$top/tests/vm/debug-kernel.sh")
work=$top/build/in-tree

rm -rf "$work"
mkdir -p "$work/obj"
cp -al "$debug/src" "$work/src"
"$top/tests/kunit/intree.sh" "$work/src"

cp "$debug/build/.config" "$work/obj/.config"
cat >>"$work/obj/.config" <<'CFG'
CONFIG_KDAPL=m
CONFIG_KDAPL_KUNIT_TEST=m
CFG
kmake() {
	make -C "$work/src" O="$work/obj" ARCH=x86_64 -j"$(nproc)" "$@"
}
kmake -s olddefconfig
grep -qx 'CONFIG_KDAPL=m' "$work/obj/.config"
grep -qx 'CONFIG_KDAPL_KUNIT_TEST=m' "$work/obj/.config"
kmake -s modules_prepare
kmake W=1 drivers/infiniband/ulp/kdapl/ 2>&1 | tee "$work/build.log"
test -f "$work/obj/drivers/infiniband/ulp/kdapl/kdapl.o"
test -f "$work/obj/drivers/infiniband/ulp/kdapl/tests/kdapl_kunit.o"
if grep -E 'ulp/kdapl/.*(warning|error):' "$work/build.log"; then
	exit 1
fi
rm -rf "$work"
