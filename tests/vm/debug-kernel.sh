#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the debug kernel of the test bench.
#
#   debug-kernel.sh [debug|kcsan]
#
# The kernel comes from Debian's linux-source-6.1 with allnoconfig plus
# tests/vm/debug.config; the kcsan variant replaces KASAN by KCSAN
# (tests/vm/kcsan.config).  The fixes of tests/vm/kernel-patches/ are
# applied to the source: kernel bugs the tests reach that the bench must
# not report as kdapl's (each patch says which test shows its bug).  The
# build lives outside the work tree, keyed by the fragment, the patches and
# the source package version, so a fresh clone on the same machine reuses
# it and a change of any of them rebuilds it.
#
# Prints the build directory on stdout.  The source tree it was built
# from is "$dir/src", the objects are in "$dir/build".

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${KDAPL_CACHE:-/var/cache/kdapl}
variant=${1:-debug}
tarball=/usr/src/linux-source-6.1.tar.xz
# Bump when the build recipe below changes in a way the key cannot see.
recipe=2
patches=$(ls "$here"/kernel-patches/*.patch 2>/dev/null || true)

# The fragment: debug.config, with the lines of a variant's own file
# replacing those that set the same symbols.
fragment() {
	case $variant in
	debug)
		cat "$here/debug.config"
		;;
	kcsan)
		local syms
		syms=$(sed -nE 's/^(# )?(CONFIG_[A-Z0-9_]+)[= ].*/\2/p' \
			"$here/kcsan.config" | paste -sd'|')
		grep -vE "^(# )?($syms|CONFIG_KASAN_[A-Z0-9_]+)[= ]" \
			"$here/debug.config"
		cat "$here/kcsan.config"
		;;
	*)
		echo "debug-kernel.sh: unknown variant '$variant'" >&2
		exit 2
		;;
	esac
}

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( (echo "recipe $recipe"; echo "source $srcver"; fragment
	for p in $patches; do cat "$p"; done) |
	sha256sum | cut -c1-16)
dir=$cache/debug-kernel/$key

log() { echo "debug-kernel: $*" >&2; }

mkdir -p "$cache/debug-kernel"
exec 9>"$cache/debug-kernel/.lock"
flock 9

if [ -f "$dir/stamp" ]; then
	echo "$dir"
	exit 0
fi

log "building $variant $key (linux-source $srcver); about 10 minutes"
rm -rf "$dir"
mkdir -p "$dir/build"
frag=$dir/fragment.config
fragment >"$frag"
tar -C "$dir" -xf "$tarball"
mv "$dir/linux-source-6.1" "$dir/src"
for p in $patches; do
	log "applying $(basename "$p")"
	patch -s -p1 -d "$dir/src" <"$p" >&2
done

jobs=$(nproc)
kmake() {
	make -s -C "$dir/src" O="$dir/build" ARCH=x86_64 -j"$jobs" "$@"
}

KCONFIG_ALLCONFIG=$frag kmake allnoconfig >&2

# allnoconfig silently drops what it cannot satisfy: insist on the fragment.
missing=0
while read -r line; do
	case "$line" in
	CONFIG_*=*)
		if ! grep -qxF "$line" "$dir/build/.config"; then
			log "fragment line not honoured: $line"
			missing=1
		fi
		;;
	"# CONFIG_"*" is not set")
		sym=${line#"# "}
		sym=${sym%" is not set"}
		if grep -q "^$sym=" "$dir/build/.config"; then
			log "fragment line not honoured: $line"
			missing=1
		fi
		;;
	esac
done <"$frag"
[ "$missing" = 0 ] || exit 1

kmake bzImage modules >&2
kmake modules_prepare >&2
touch "$dir/stamp"
log "done: $dir"
echo "$dir"
