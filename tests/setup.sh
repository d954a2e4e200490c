#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing kdapl needs on Debian 12.  Idempotent:
# when everything is installed it does nothing, and it runs apt-get update
# at most once per call.

set -euo pipefail

packages=(
	# the target kernel: image, headers and source
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	# building the debug kernel and the modules
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio patch
	kmod xz-utils python3 sparse rsync
	# the VM bench
	qemu-system-x86 busybox-static iproute2
	# RDMA and DAT user space: the reference provider and its tests
	rdma-core ibverbs-utils libdapl2 libdapl-dev dapl2-utils
	# the device's own limit in the user-path benchmark
	perftest
	# the Debian packages, DKMS, man pages and the HTML documentation
	debhelper dh-dkms dkms lintian mandoc python3-sphinx
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	     grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all packages present"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "setup: missing packages: ${missing[*]}; run as root" >&2
	exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
