#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build kdapl, its test modules for one kernel of the bench, udapl-shim
# and the user-space test programs, and run guest tests
# (tests/vm/cases/NAME.sh) in a VM booted with it.
#
#   tests/run-vm.sh [VM.SH OPTION...] distro|debug|kcsan [TEST...]
#
# for example --shell, --results FILE, --blocks DIR, --timeout SEC.
#
# distro: Debian's kernel; kdapl.ko built in place with kbuild, as users
#         build it.
# debug:  the bench's debug kernel (KASAN, lockdep, kmemleak, KUnit); the
#         modules are built on a copy under build/debug.
# kcsan:  its KCSAN variant (no KASAN); the modules under build/kcsan.

set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Options before the kernel name go to tests/vm/vm.sh as they are.
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--shell|--expect-fail|--icount|-q|--quiet) args+=("$1"); shift ;;
	--*) args+=("$1" "$2"); shift 2 ;;
	*) break ;;
	esac
done
kernel=${1:?usage: run-vm.sh [--shell] [--results FILE] distro|debug|kcsan [TEST...]}
shift

case $kernel in
distro)
	make -s modules KDAPL_TESTS=1 >&2
	make -s samples >&2
	mods=(--mods kdapl --mods tests/kmod --mods samples/kdat_hello)
	;;
debug | kcsan)
	make -s "$kernel-modules" >&2
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
make -s shim user kdaplctl >&2
user=(--bin build/user/kdapl_dev_test --bin build/user/shim_test
      --bin build/user/shim_unplug --bin build/user/shim_hostile
      --bin build/user/shim_soak --bin build/user/shim_failnth
      --file build/user/failmalloc.so:/usr/lib/kdapl/failmalloc.so
      --bin build/user/udat_bench --bin build/user/kdapl_fuzz
      --bin build/user/kdapl_failnth --bin build/kdaplctl/kdaplctl
      --bin build/user/asuser --bin samples/udat_hello/udat_hello
      --bin /usr/bin/udevadm --file dist/60-kdapl.rules:/usr/lib/kdapl/60-kdapl.rules
      --file build/udapl-shim/libdaplkdapl.so.2:/usr/lib/kdapl/libdaplkdapl.so.2
      --bin /usr/bin/dtest --bin /usr/bin/dapltest --bin /usr/bin/dtestcm
      --bin /usr/bin/stdbuf
      --file /usr/libexec/coreutils/libstdbuf.so:/usr/libexec/coreutils/libstdbuf.so)
ofa=$(ldconfig -p | sed -n 's/^[[:space:]]*libdaplofa.so.2 .*=> //p' | head -n1)
[ -z "$ofa" ] || user+=(--file "$ofa:$ofa")

exec tests/vm/vm.sh --kernel "$kernel" "${mods[@]}" "${user[@]}" \
	"${args[@]}" "$@"
