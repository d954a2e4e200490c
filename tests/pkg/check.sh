#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages on this host: build them (make deb), run lintian,
# install kdapl-dkms, libdaplkdapl2 and libdaplkdapl-dev, check that DKMS
# built the module for Debian's kernel (the one of KDIR, whatever kernel
# runs) and that the shim, the group and the files are in place, keep
# the DKMS-built module as build/pkg/kdapl-dkms.ko for the VM tests, then
# purge the packages and check that nothing of them is left.  Run as
# root; one PASS or FAIL line per step, non-zero exit if any failed.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

out=build/pkg
mkdir -p "$out"
failed=0

pass() { echo "PASS pkg: $1"; }
fail() { echo "FAIL pkg: $1"; failed=$((failed + 1)); }

# check NAME CMD...: one result for a command, its output in build/pkg.
check() {
	local name=$1
	shift
	if "$@" >"$out/${name// /_}.log" 2>&1; then
		pass "$name"
	else
		fail "$name (see $out/${name// /_}.log)"
	fi
}

if [ "$(id -u)" != 0 ]; then
	echo "tests/pkg/check.sh: run as root" >&2
	exit 1
fi

pkgs=(kdapl-dkms libdaplkdapl2 libdaplkdapl-dev kdapl-utils)
kver=$(make -s print-kver)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ko=/lib/modules/$kver/updates/dkms/kdapl.ko
shim=/usr/lib/$multiarch/libdaplkdapl.so.2
echo "pkg: kdapl $version for kernel $kver"

installed() {
	dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null |
		grep -qx installed
}

dkms_kdapl() {
	dkms status kdapl 2>/dev/null
}

# A previous run that stopped half way: start from nothing.
for p in "${pkgs[@]}"; do
	if dpkg-query -W "$p" >/dev/null 2>&1; then
		echo "pkg: purging $p left from before"
		dpkg --purge "$p" >/dev/null
	fi
done

# DKMS creates a signing key on its first build; remove it at the end
# if this run made it.
mok_before=$(ls /var/lib/dkms/mok.key 2>/dev/null || true)

check "build" make deb

changes=$(ls build/deb/kdapl_"$version"_*.changes 2>/dev/null || true)
debs=()
for p in "${pkgs[@]}"; do
	debs+=("$(ls build/deb/"$p"_"$version"_*.deb 2>/dev/null || true)")
done

lintian_ok() {
	local log=$out/lintian.txt

	[ -n "$changes" ] || return 1
	lintian --tag-display-limit 0 "$changes" >"$log" 2>&1 || true
	cat "$log"
	! grep -q '^E:' "$log"
}
check "lintian" lintian_ok
grep -E '^[WI]:' "$out/lintian.txt" 2>/dev/null | sed 's/^/pkg: lintian: /' || true

install_debs() {
	local deb

	for deb in "${debs[@]}"; do
		[ -f "$deb" ] || return 1
	done
	if ! installed dkms; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q dkms ||
			return 1
	fi
	# The administrator says yes to the dat.conf question (debconf;
	# the owner of a Multi-Arch: same package's question has the arch).
	echo "libdaplkdapl2:$(dpkg --print-architecture) libdaplkdapl2/dat-conf boolean true" |
		debconf-set-selections || return 1
	DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}" || return 1
	for deb in "${pkgs[@]}"; do
		installed "$deb" || return 1
	done
}
check "install" install_debs

# Said yes, but the host has no kdapl loaded: the postinst says what to
# run later and leaves /etc/dat.conf alone (the VM's kdaplctl case runs
# dat-conf --install on a loaded module).
check "dat-conf offer" grep -q "run 'kdaplctl dat-conf --install' once" \
	"$out/install.log"

dkms_installed() {
	dkms_kdapl
	dkms_kdapl | grep -q "^kdapl/$version, $kver, [^:]*: installed"
}
check "dkms status" dkms_installed

# Every parameter has a description: modinfo prints "name:text (type)",
# and "name:(type)" when there is none.
module_ok() {
	local parms

	[ -f "$ko" ] || return 1
	modinfo "$ko" || return 1
	parms=$(modinfo -F parm "$ko")
	[ -n "$parms" ] || return 1
	grep -q '^user_pin_max_mb:' <<<"$parms" || return 1
	! grep -Eq '^[a-z0-9_]+:\(' <<<"$parms"
}
check "module" module_ok

shim_ok() {
	ls -l "$shim"*
	[ -f "$shim" ] || return 1
	ldconfig -p | grep -F "libdaplkdapl.so.2 " | grep -F "$multiarch"
}
check "shim" shim_ok

check "kdaplctl" test -x /usr/sbin/kdaplctl

check "group rdma" getent group rdma

check "udev rule" test -f /lib/udev/rules.d/60-kdapl.rules

keep_ko() {
	cp "$ko" "$out/kdapl-dkms.ko" || return 1
	modinfo -F vermagic "$out/kdapl-dkms.ko"
}
check "keep module" keep_ko

purge_debs() {
	dpkg --purge "${pkgs[@]}" || return 1
	for p in "${pkgs[@]}"; do
		! dpkg-query -W "$p" 2>/dev/null || return 1
	done
}
check "purge" purge_debs

# Nothing of the packages left: no DKMS entry, no module, no file.
nothing_left() {
	local f left=0

	if [ -n "$(dkms_kdapl)" ]; then
		dkms_kdapl
		left=1
	fi
	for f in "$ko" /lib/modules/"$kver"/updates/dkms/kdapl.ko* \
		 /usr/src/kdapl-"$version" /var/lib/dkms/kdapl \
		 "$shim"* /usr/lib/"$multiarch"/libdaplkdapl.so \
		 /usr/include/rdma/kdapl_ioctl.h /usr/include/rdma/kdat.h \
		 /usr/include/rdma/kdat_types.h \
		 /usr/include/rdma/kdat_ib_extensions.h \
		 /usr/include/rdma/kdat_counter_names.h \
		 /lib/udev/rules.d/60-kdapl.rules \
		 /usr/share/man/man4/kdapl.4.gz \
		 /usr/share/man/man7/libdaplkdapl.7.gz \
		 /usr/sbin/kdaplctl /usr/share/man/man8/kdaplctl.8.gz \
		 /usr/share/doc/kdapl-dkms /usr/share/doc/libdaplkdapl2 \
		 /usr/share/doc/libdaplkdapl-dev /usr/share/doc/kdapl-utils; do
		if [ -e "$f" ]; then
			echo "left: $f"
			left=1
		fi
	done
	if debconf-show libdaplkdapl2 2>/dev/null | grep -q .; then
		echo "left in debconf: $(debconf-show libdaplkdapl2)"
		left=1
	fi
	if ldconfig -p | grep -q libdaplkdapl; then
		echo "left in the ld.so cache: libdaplkdapl"
		left=1
	fi
	[ "$left" = 0 ]
}
check "nothing left" nothing_left

if [ -z "$mok_before" ]; then
	rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
fi

if [ "$failed" -ne 0 ]; then
	echo "pkg: $failed failed"
	exit 1
fi
echo "pkg: all passed"
