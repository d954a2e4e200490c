#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build kdapl, its test modules for one kernel of the bench, udapl-shim
# and the user-space test programs, and run guest tests
# (tests/vm/cases/NAME.sh) in a VM booted with it.
#
#   tests/run-vm.sh [OPTION...] distro|debug|kcsan [TEST...]
#
# OPTIONs are vm.sh's (for example --shell, --results FILE, --blocks DIR,
# --timeout SEC), and --build-only (build, no VM) and --no-build (boot
# what an earlier run built: two VMs at once must not build the same
# tree twice).
#
# distro: Debian's kernel; kdapl.ko built in place with kbuild, as users
#         build it.
# debug:  the bench's debug kernel (KASAN, lockdep, kmemleak, KUnit); the
#         modules are built on a copy under build/debug.
# kcsan:  its KCSAN variant (no KASAN); the modules under build/kcsan.

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Options before the kernel name go to tests/vm/vm.sh as they are, but
# --build-only (build, do not boot) and --no-build (boot what was built).
args=()
build=1
boot=1
while [ $# -gt 0 ]; do
	case $1 in
	--build-only) boot=0; shift ;;
	--no-build) build=0; shift ;;
	--shell|--expect-fail|--icount|-q|--quiet) args+=("$1"); shift ;;
	--*) args+=("$1" "$2"); shift 2 ;;
	*) break ;;
	esac
done
kernel=${1:?usage: run-vm.sh [--shell] [--results FILE] distro|debug|kcsan [TEST...]}
shift

case $kernel in
distro)
	if [ "$build" = 1 ]; then
		make -s modules KDAPL_TESTS=1 >&2
		make -s samples >&2
	fi
	mods=(--mods kdapl --mods tests/kmod --mods samples/kdat_hello)
	;;
debug | kcsan)
	[ "$build" = 0 ] || make -s "$kernel-modules" >&2
	mods=(--mods "build/$kernel/kdapl" --mods "build/$kernel/tests/kmod"
	      --mods "build/$kernel/tests/kunit")
	;;
*)
	echo "run-vm.sh: unknown kernel '$kernel' (distro, debug or kcsan)" >&2
	exit 2
	;;
esac

# The user-space side: /dev/kdapl's test program, udapl-shim and its test
# through libdat2 (the userdev and shim cases), and OFA's test tools with
# OFA's provider, the reference they are compared with (dtest case).
[ "$build" = 0 ] || make -s shim user kdaplctl >&2
[ "$boot" = 1 ] || exit 0
user=(--bin build/user/kdapl_dev_test --bin build/user/shim_test
      --bin build/user/shim_rmr --bin build/user/shim_ibext
      --bin build/user/shim_ud
      --bin build/user/shim_unplug --bin build/user/shim_hostile
      --bin build/user/shim_soak --bin build/user/shim_failnth
      --bin build/user/shim_peer --bin build/user/shim_moved
      --file build/user/failmalloc.so:/usr/lib/kdapl/failmalloc.so
      --bin build/user/udat_bench --bin build/user/kdapl_fuzz
      --bin build/user/kdapl_failnth --bin build/kdaplctl/kdaplctl
      --bin build/user/asuser --bin build/user/tcphold
      --bin samples/udat_hello/udat_hello
      --bin /usr/bin/udevadm --file dist/60-kdapl.rules:/usr/lib/kdapl/60-kdapl.rules
      --file build/udapl-shim/libdaplkdapl.so.2:/usr/lib/kdapl/libdaplkdapl.so.2
      --bin /usr/bin/dtest --bin /usr/bin/dapltest --bin /usr/bin/dtestcm
      --bin /usr/bin/dtestx --bin /usr/bin/dtestsrq
      --bin /usr/bin/stdbuf
      --file /usr/libexec/coreutils/libstdbuf.so:/usr/libexec/coreutils/libstdbuf.so)
ofa=$(ldconfig -p | sed -n 's/^[[:space:]]*libdaplofa.so.2 .*=> //p' | head -n1)
[ -z "$ofa" ] || user+=(--file "$ofa:$ofa")
# perftest, the device's own limit beside the two providers (ubench case).
for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw \
	 ib_send_lat ib_write_lat ib_read_lat; do
	[ ! -x "/usr/bin/$t" ] || user+=(--bin "/usr/bin/$t")
done

exec tests/vm/vm.sh --kernel "$kernel" "${mods[@]}" "${user[@]}" \
	"${args[@]}" "$@"
