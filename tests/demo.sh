#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: set up what is missing, build kdapl, boot Debian's kernel in
# a VM with a soft RoCE device, load the module and print the Interface
# Adapters it made, then have a kernel consumer move data through kDAT
# over that device (send/recv and RDMA write) and print what it moved;
# then run Debian's dtest between two processes over udapl-shim and over
# OFA's provider and print how long each took.

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash tests/setup.sh
make -s user
rm -f build/vm/blocks/demo.txt build/vm/blocks/demo-data.txt \
	build/vm/blocks/demo-user.txt
status=0
tests/run-vm.sh --mem 4096 --mods tests/bench distro demo || status=$?
echo
if [ -s build/vm/blocks/demo.txt ]; then
	cat build/vm/blocks/demo.txt
else
	echo "demo: the VM printed no adapter list" >&2
	status=1
fi
echo
if [ -s build/vm/blocks/demo-data.txt ]; then
	cat build/vm/blocks/demo-data.txt
else
	echo "demo: the VM printed no data transfer report" >&2
	status=1
fi
echo
if [ -s build/vm/blocks/demo-user.txt ]; then
	cat build/vm/blocks/demo-user.txt
else
	echo "demo: the VM printed no dtest report" >&2
	status=1
fi
exit $status
