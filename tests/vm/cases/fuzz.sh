# SPDX-License-Identifier: GPL-2.0
#
# /dev/kdapl under random and malformed calls (tests/fuzz/kdapl_fuzz):
# several processes and threads on rxe and, on the debug kernel, on siw.
# After the processes exit the module must hold no object, no open file
# and no pinned page (debugfs "objects"), and it must unload.  Crashes,
# KASAN, lockdep, kmemleak and hung-task reports fail the run on the
# host.
#
# /etc/kdapl-fuzz.conf may set CALLS, PROCS, PROCS_SIW, THREADS,
# SECONDS_MAX and SEED (make stress gives a long run); the default is the
# short run of make check.

. /usr/lib/kdapl/lib.sh

# Under KASAN a call costs some ten times more: the short run is shorter.
CALLS=10000
SECONDS_MAX=120
if kernel_is_debug; then
	CALLS=3000
	SECONDS_MAX=40
fi
PROCS=3
THREADS=3
SEED=
# shellcheck disable=SC1091 # written by the host for long runs
[ -r /etc/kdapl-fuzz.conf ] && . /etc/kdapl-fuzz.conf
# On siw, freeing an EP whose connection request is unanswered waits for
# the peer's MPA reply (see Documentation/connections.rst) with the
# file's lock held: other processes keep the calls going meanwhile.
PROCS_SIW=${PROCS_SIW:-$PROCS}

# fuzz_on DEVICE IA PROCS: one run of the fuzzer, then the checks.
fuzz_on() {
	info "fuzzing $2: $CALLS calls, $3 processes x $THREADS threads"
	check kdapl_fuzz -n "$CALLS" -p "$3" -t "$THREADS" \
		-T "$SECONDS_MAX" ${SEED:+-s "$SEED"} "$2"
	check kdapl_nothing_left 20
	rdma_del "$1"
}

kdapl_load
[ -r /sys/kernel/debug/kdapl/objects ] || die "no debugfs kdapl/objects"
rdma_add rxe
fuzz_on rxe0 rxe0-1 "$PROCS"
if kernel_is_debug; then
	rdma_add siw
	fuzz_on siw0 siw0-1 "$PROCS_SIW"
fi
check kdapl_nothing_left 20
kdapl_unload
