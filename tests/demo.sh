#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: set up what is missing, build kdapl, boot Debian's kernel in
# a VM with a soft RoCE device, load the module and print the Interface
# Adapters it made, then have a kernel consumer move data through kDAT
# over that device (send/recv and RDMA write) and print what it moved.

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash tests/setup.sh
make -s user
rm -f build/vm/blocks/demo.txt build/vm/blocks/demo-data.txt
status=0
tests/run-vm.sh --mods tests/bench distro demo || status=$?
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
exit $status
