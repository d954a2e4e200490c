#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Place kdapl in a kernel source tree as drivers/infiniband/ulp/kdapl,
# the way it would live upstream:
#
#   drivers/infiniband/ulp/kdapl/        kdapl/ (Kconfig, Makefile, sources)
#   drivers/infiniband/ulp/kdapl/tests/  tests/kunit/ (the KUnit suites)
#   include/rdma/                        include/rdma/kdat*.h
#   include/uapi/rdma/                   include/uapi/rdma/kdapl*.h
#
# and hook it into drivers/infiniband/Kconfig and ulp/Makefile.  Running
# it again refreshes the copy.  Existing files of the tree are replaced,
# never written in place, so a tree of hard links stays safe.
#
#   tests/kunit/intree.sh /path/to/linux
#   cd /path/to/linux
#   tools/testing/kunit/kunit.py run --arch=x86_64 \
#           --kunitconfig=drivers/infiniband/ulp/kdapl

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ksrc=${1:?usage: intree.sh KERNEL_SOURCE_DIR}
[ -f "$ksrc/drivers/infiniband/Kconfig" ] ||
	{ echo "intree.sh: $ksrc is not a kernel source tree" >&2; exit 1; }

dst=$ksrc/drivers/infiniband/ulp/kdapl
rm -rf "$dst"
mkdir -p "$dst/tests"
cp "$top"/kdapl/*.[ch] "$top"/kdapl/Kconfig "$top"/kdapl/Makefile \
	"$top"/kdapl/.kunitconfig "$dst/"
cp "$top"/tests/kunit/*.[ch] "$top"/tests/kunit/Makefile "$dst/tests/"
for h in "$top"/include/rdma/kdat*.h; do
	rm -f "$ksrc/include/rdma/$(basename "$h")"
	cp "$h" "$ksrc/include/rdma/"
done
for h in "$top"/include/uapi/rdma/kdapl*.h; do
	rm -f "$ksrc/include/uapi/rdma/$(basename "$h")"
	cp "$h" "$ksrc/include/uapi/rdma/"
done

kconfig=$ksrc/drivers/infiniband/Kconfig
if ! grep -q 'ulp/kdapl/Kconfig' "$kconfig"; then
	sed '/source "drivers\/infiniband\/ulp\/rtrs\/Kconfig"/a source "drivers/infiniband/ulp/kdapl/Kconfig"' \
		"$kconfig" >"$kconfig.new"
	mv "$kconfig.new" "$kconfig"
fi
grep -q 'ulp/kdapl/Kconfig' "$kconfig" ||
	{ echo "intree.sh: could not hook $kconfig" >&2; exit 1; }

makefile=$ksrc/drivers/infiniband/ulp/Makefile
if ! grep -q 'CONFIG_KDAPL' "$makefile"; then
	{ cat "$makefile"; echo 'obj-$(CONFIG_KDAPL)			+= kdapl/'; } \
		>"$makefile.new"
	mv "$makefile.new" "$makefile"
fi
echo "intree.sh: kdapl placed in $dst"
