#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: everything, from a fresh Debian 12 machine.
#
# Steps: set-up, build (W=1) for Debian's kernel and for the debug
# kernel, the Debian packages (built, linted, installed, purged), the
# HTML documentation, sparse, checkpatch --strict, user-space tests, the
# bench's own self-test, KUnit in the debug VM, the integration tests in
# the distro and debug VMs, and OFA's dtest and dapltest over kdapl and
# over OFA's provider (with the table of both).  Every result is a PASS
# or FAIL line, also kept in build/check/results.txt; the last line is
# "N passed, N failed" (with ", N skipped" if KUnit skipped cases) and
# the exit status is non-zero if anything failed.

set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

out=build/check
mkdir -p "$out"
results=$out/results.txt
: >"$results"

# section NAME: the header of a step, with the minutes since the start.
section() { echo "== $1 (+$((SECONDS / 60)) min)"; }

pass() { echo "PASS $1" | tee -a "$results"; }
fail() { echo "FAIL $1" | tee -a "$results"; }

# run NAME CMD...: one result for a command, its log kept in build/check.
run() {
	local name=$1 log
	shift
	log=$out/${name//\//_}.log
	section "$name"
	if "$@" >"$log" 2>&1; then
		pass "$name"
	else
		fail "$name"
		tail -n 40 "$log"
	fi
}

# results_run NAME CMD...: a run that adds its own PASS and FAIL lines to
# the results.  One that fails without adding a FAIL line (cut short
# before it reported) is a failure of NAME.
results_run() {
	local name=$1 before
	shift
	before=$(grep -c '^FAIL' "$results")
	"$@" && return 0
	[ "$(grep -c '^FAIL' "$results")" -gt "$before" ] ||
		fail "$name (ended without reporting a failure)"
	echo "$name failed"
	return 1
}

summary() {
	local p f s
	p=$(grep -c '^PASS' "$results")
	f=$(grep -c '^FAIL' "$results")
	s=$(grep -c '^SKIP' "$results")
	if [ "$s" -gt 0 ]; then
		echo "$p passed, $f failed, $s skipped"
	else
		echo "$p passed, $f failed"
	fi
	# Last, so that the tail of a long log names what failed.
	grep '^FAIL' "$results"
	[ "$f" -eq 0 ]
	exit
}

# Our own files in diagnostics of a kbuild log, whatever the prefix.
own_diags() {
	# Ours: in our files, or in a kernel header about one of our
	# functions (sparse reports a lock imbalance where the lock is).
	grep -E "^($top/)?(kdapl|include|tests|build/debug)/[^:]*:[0-9]+:[0-9]*:? *(warning|error)|(warning|error):.* in '(kdapl|dat)_" "$1"
}

# kbuild_clean NAME LOG CMD...: the build must succeed with no diagnostic
# in our files.
kbuild_clean() {
	local log=$2
	shift 2
	"$@" >"$log" 2>&1 || { cat "$log"; return 1; }
	if own_diags "$log"; then
		return 1
	fi
}

section "setup"
if ! bash tests/setup.sh; then
	fail setup
	summary
fi

kdir=$(make -s --no-print-directory print-kdir)

# --- Build for the distro kernel, as users build it, with W=1 ---------
build_distro() {
	# Objects only: the top-level clean would remove build/, results
	# included.
	make -s -C "$kdir" M="$top" KDAPL_TESTS=1 clean >/dev/null || return 1
	kbuild_clean build "$out/build-distro.kbuild" \
		make modules KDAPL_TESTS=1 W=1
}
run build/distro-W1 build_distro

run build/shim make shim
run build/user make user
run build/samples make samples W=1

# --- Packages and documentation -----------------------------------------
# The Debian packages built, linted, installed on this host (DKMS builds
# the module for Debian's kernel, kept for the distro VM's dkms case) and
# purged; the rst documentation through Sphinx.
run pkg/debian bash tests/pkg/check.sh
run docs/htmldocs make htmldocs

# --- Static checks -----------------------------------------------------
sparse_distro() {
	kbuild_clean sparse "$out/sparse.kbuild" \
		make -C "$kdir" M="$top" KDAPL_TESTS=1 C=2 CHECK=sparse modules
}
run static/sparse sparse_distro

debug_dir=
if debug_dir=$(tests/vm/debug-kernel.sh 2>"$out/debug-kernel.log"); then
	pass build/debug-kernel
else
	fail build/debug-kernel
	tail -n 40 "$out/debug-kernel.log"
fi

if [ -n "$debug_dir" ]; then
	checkpatch=$debug_dir/src/scripts/checkpatch.pl
	# The DAT API defines its types as typedefs: NEW_TYPEDEFS does not
	# apply to the API headers.
	while read -r f; do
		case $f in
		include/rdma/kdat*.h) ignore=--ignore=NEW_TYPEDEFS ;;
		udapl-shim/* | tests/user/* | tests/fuzz/* | samples/udat_hello/*)
			# Debian's DAT types, which checkpatch cannot know.
			ignore=--typedefsfile=udapl-shim/checkpatch.typedefs ;;
		*) ignore= ;;
		esac
		run "checkpatch/$f" "$checkpatch" --no-tree --strict --quiet \
			$ignore --file "$f"
	done < <(git ls-files --cached --others --exclude-standard \
		 -- '*.c' '*.h' | grep -v '^build/' | sort -u)

	debug_build() {
		kbuild_clean build "$out/build-debug.kbuild" \
			make debug-modules W=1
	}
	run build/debug-W1 debug_build
fi

# --- User-space tests --------------------------------------------------
run user/dat-constants make -C tests/user/dat-constants check

# --- The bench proves it can fail ---------------------------------------
if [ -n "$debug_dir" ]; then
	section "bench self-test"
	results_run "bench self-test" \
		bash tests/vm/selftest.sh --results "$results"
fi

# --- KUnit in the debug VM ---------------------------------------------
if [ -n "$debug_dir" ]; then
	section "kunit"
	results_run kunit bash tests/kunit/run.sh --results "$results"
fi

# --- Integration tests in both VMs --------------------------------------
vm_tests="smoke ias ias_race ia_removal conn_rxe conn_siw iwarp_ports conn_removal
	userdev shim
	unplug moved hostile soak fuzz failnth failnth_shim kill9 kdaplctl"
section "distro VM"
# The module DKMS built from the package, where DKMS installs it.
dkms=()
if [ -f build/pkg/kdapl-dkms.ko ]; then
	dkms=(--file "build/pkg/kdapl-dkms.ko:/lib/modules/$(make -s print-kver)/updates/dkms/kdapl.ko")
fi
# Distro only: the package's module, non-root use (no kernel debugging
# needed to see who may open the device), and the README's samples
# (built for Debian's kernel, as a reader builds them).
results_run "distro VM tests" \
	tests/run-vm.sh --results "$results" "${dkms[@]}" distro $vm_tests \
	dkms nonroot samples
if [ -n "$debug_dir" ]; then
	section "debug VM"
	# About 17 minutes under KASAN on a 2-core machine (14 before the
	# reliability cases): vm.sh's default limit for a whole run (600 s)
	# would cut it short.
	results_run "debug VM tests" \
		tests/run-vm.sh --results "$results" --timeout 1800 debug \
		$vm_tests
fi

# --- Two hosts ------------------------------------------------------------
# Two VMs joined by a socket netdev: OFA's tools across them, then one
# dies mid-transfer (rxe on the distro kernel, siw on the debug kernel).
section "two hosts"
results_run "two-host run (distro)" \
	tests/vm/twohost.sh --results "$results" --timeout 600 distro
if [ -n "$debug_dir" ]; then
	results_run "two-host run (debug)" \
		tests/vm/twohost.sh --results "$results" --timeout 1200 debug
fi

# --- OFA's tools over kdapl and over OFA's provider ----------------------
# dtest and dapltest need a bigger guest (OFA's dtest server alone takes
# some 800 MB); the table compares kdapl on rxe and siw with OFA.
# The distro boot also runs a short udat_bench (make bench runs it in
# full): it shows the user benchmark runs on both providers and that an
# RDMA Write ping-pong polling only memory progresses.
mkdir -p build/vm
rm -f build/vm/blocks/tools-*.txt build/vm/blocks/ubench.txt
printf 'REPS=1\nSECONDS_EACH=0.05\nSIZES=8,4096,65536\nPERFTEST_SIZES=8\n' \
	>build/vm/ubench-short.conf
section "OFA's tools, distro VM"
results_run "tools in the distro VM" \
	tests/run-vm.sh --results "$results" --mem 4096 --test-timeout 1500 \
	--file build/vm/ubench-short.conf:/etc/kdapl-ubench.conf \
	--timeout 1800 distro tools ubench
if [ -n "$debug_dir" ]; then
	section "OFA's tools, debug VM"
	results_run "tools in the debug VM" \
		tests/run-vm.sh --results "$results" --mem 4096 \
		--test-timeout 1500 --timeout 1800 debug tools
fi
tests/vm/tools-table.sh || fail "tools table"
if [ -s build/vm/blocks/ubench.txt ]; then
	section "user path against OFA (short run; make bench for figures)"
	cat build/vm/blocks/ubench.txt
fi

summary
