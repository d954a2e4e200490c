# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the guest tests of the kdapl VM bench (busybox ash, POSIX sh).
# A test starts with:  . /usr/lib/kdapl/lib.sh
#
# A test passes by exiting 0, is skipped by exiting 77 (see skip) and fails
# with any other status.  die and check end the test; in the interactive
# shell of "vm.sh --shell" they only return 1 so the shell stays up.

KDAPL_MODDIR=/kdapl

# True when running in an interactive shell rather than a test script.
kdapl_interactive() {
	case $- in
	*i*) return 0 ;;
	esac
	return 1
}

# die MSG...: fail the test with a message.
die() {
	echo "FAIL: $*" >&2
	if kdapl_interactive; then
		return 1
	fi
	exit 1
}

# skip MSG...: end the test as skipped.
skip() {
	echo "SKIP: $*"
	if kdapl_interactive; then
		return 0
	fi
	exit 77
}

# info MSG...: a comment line in the log.
info() {
	echo "# $*"
}

# check CMD [ARG...]: run a command, fail the test if it fails.
check() {
	echo "+ $*"
	"$@" || die "command failed (exit $?): $*"
}

# expect_eq ACTUAL EXPECTED MSG: fail unless the two strings are equal.
expect_eq() {
	[ "$1" = "$2" ] || die "$3: got '$1', expected '$2'"
}

# kernel_is_debug: true on the bench's debug kernel (KASAN, lockdep, ...)
# and its KCSAN variant.
kernel_is_debug() {
	case $(uname -r) in
	*-kdapl-debug | *-kdapl-kcsan) return 0 ;;
	esac
	return 1
}

# True when this kernel has modules to load with modprobe (distro kernel).
kdapl_has_kmods() {
	[ -f "/lib/modules/$(uname -r)/modules.dep" ]
}

# rdma_wait_active NAME [SECONDS]: wait until port 1 of NAME is ACTIVE.
rdma_wait_active() {
	_n=${2:-20}
	while [ "$_n" -gt 0 ]; do
		if grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" \
			2>/dev/null; then
			return 0
		fi
		sleep 1
		_n=$((_n - 1))
	done
	die "$1: port 1 not ACTIVE:" \
		"$(cat "/sys/class/infiniband/$1/ports/1/state" 2>&1)"
}

# rdma_add rxe|siw [NETDEV]: add soft RoCE rxe0 (default on eth0) or soft
# iWARP siw0 (default on eth1, debug kernel only) and wait for it.
rdma_add() {
	case $1 in
	rxe)
		if kdapl_has_kmods; then
			# rdma_rxe needs crc32 from crc32_generic, or
			# "rdma link add" fails with ENOENT.
			check modprobe crc32_generic
			check modprobe rdma_rxe
		fi
		check rdma link add rxe0 type rxe netdev "${2:-eth0}"
		rdma_wait_active rxe0
		;;
	siw)
		kernel_is_debug || die "siw is only in the debug kernel"
		check rdma link add siw0 type siw netdev "${2:-eth1}"
		rdma_wait_active siw0
		;;
	*)
		die "rdma_add: unknown type '$1' (rxe or siw)"
		;;
	esac
}

# rdma_del NAME: delete a soft RDMA link.
rdma_del() {
	check rdma link delete "$1"
}

# rdma_core_load: load the RDMA core modules kdapl links against (distro
# kernel; built in on the debug kernel).
rdma_core_load() {
	if kdapl_has_kmods; then
		check modprobe -a ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm
	fi
}

# kmod_load NAME [PARAM=VALUE...]: insmod /kdapl/NAME.ko.
kmod_load() {
	_m=$1
	shift
	[ -f "$KDAPL_MODDIR/$_m.ko" ] ||
		die "$KDAPL_MODDIR/$_m.ko missing (vm.sh --mods DIR)"
	check insmod "$KDAPL_MODDIR/$_m.ko" "$@"
}

# kmod_unload NAME: rmmod NAME.
kmod_unload() {
	check rmmod "$1"
}

# kdapl_load [PARAM=VALUE...]: load the RDMA core, then kdapl.ko.
kdapl_load() {
	rdma_core_load
	kmod_load kdapl "$@"
}

# kdapl_unload: remove kdapl.ko.
kdapl_unload() {
	kmod_unload kdapl
}

# kdapl_reset: after a failed test, remove what it may have left (its soft
# RDMA links, kdapl and the modules that use it) so that the next test
# starts from a clean guest.  What cannot be removed is reported; the next
# tests then fail on it as they should.
kdapl_reset() {
	for _l in $(rdma link show 2>/dev/null |
		    awk '{ split($2, a, "/"); print a[1] }'); do
		rdma link delete "$_l" 2>/dev/null &&
			echo "# reset: deleted $_l"
	done
	# The fourth field of /proc/modules lists the modules using kdapl.
	for _m in $(awk '$1 == "kdapl" { gsub(/[,-]/, " ", $4); print $4 }' \
		    /proc/modules) kdapl; do
		[ -d "/sys/module/$_m" ] || continue
		if rmmod "$_m" 2>/dev/null; then
			echo "# reset: unloaded $_m"
		else
			echo "# reset: cannot unload $_m"
		fi
	done
}

# kdapl_nothing_left SECONDS: true once every count of debugfs
# kdapl/objects (objects per type, open files, pinned pages) is zero,
# waiting up to SECONDS for connections to be torn down by work items;
# else print the counts and fail.
kdapl_nothing_left() {
	_o=/sys/kernel/debug/kdapl/objects
	_i=0
	while ! awk '$2 != 0 { bad = 1 } END { exit bad }' "$_o"; do
		_i=$((_i + 1))
		if [ "$_i" -ge "$1" ]; then
			echo "left in kdapl:"
			cat "$_o"
			return 1
		fi
		sleep 1
	done
}

# emit_block TAG FILE: send FILE to the host, which writes it to
# build/vm/blocks/TAG.txt.  The side channel (/dev/ttyS1) carries it
# without kernel messages mixed in; the console is the fallback.
emit_block() {
	[ -r "$2" ] || die "emit_block: cannot read $2"
	_aux=${KDAPL_AUX:-}
	if [ -n "$_aux" ] && [ -c "$_aux" ] &&
		{ echo "KDAPL-BLOCK-BEGIN $1" && awk 1 "$2" &&
			echo "KDAPL-BLOCK-END $1"; } >"$_aux" 2>/dev/null; then
		info "block $1: $(wc -l <"$2") lines sent to the host"
	else
		echo "KDAPL-BLOCK-BEGIN $1"
		awk 1 "$2"
		echo "KDAPL-BLOCK-END $1"
	fi
}

# wait_for FILE TEXT [SECONDS]: until TEXT is in FILE (30 s at most by
# default); false if it never came.
wait_for() {
	_n=$((${3:-30} * 10))
	while ! grep -q "$2" "$1" 2>/dev/null; do
		[ "$_n" -gt 0 ] || return 1
		sleep 0.1
		_n=$((_n - 1))
	done
}

# tool_result FILE COMMAND COLUMN RC: record a run of OFA's tools in FILE
# as "command<TAB>column<TAB>PASS|FAIL|n/a" (what tests/vm/tools-table.sh
# reads) and in the log.
tool_result() {
	case $4 in
	0) _r=PASS ;;
	n/a) _r=n/a ;;
	*) _r=FAIL ;;
	esac
	printf '%s\t%s\t%s\n' "$2" "$3" "$_r" >>"$1"
	echo "# $3: $2: $_r"
}

# tool_pair IA ADDR NAME SERVER-ARGS -- CLIENT-ARGS: a server and a
# client of one dtest tool (dtestcm, dtestx, dtestsrq), the client's
# output then the server's in /tmp/pair-c.log; true if both exit 0.
# IA may be SERVER-IA:CLIENT-IA, to run the two sides on different
# providers.  LIMIT bounds each, LB may make their output line-buffered.
tool_pair() {
	_ia=${1%%:*} _cia=${1#*:} _a=$2 _t=$3
	shift 3
	_sargs=
	while [ "$1" != -- ]; do
		_sargs="$_sargs $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # a list of options; LB a command
	timeout "$LIMIT" ${LB:-} "$_t" -P "$_ia" -s $_sargs \
		>/tmp/pair-s.log 2>&1 &
	_s=$!
	sleep 2
	# shellcheck disable=SC2086 # LB is a command and its option
	timeout "$LIMIT" ${LB:-} "$_t" -P "$_cia" -h "$_a" "$@" \
		>/tmp/pair-c.log 2>&1
	_c=$?
	# A server whose client failed may wait for it forever.
	[ "$_c" = 0 ] || kill "$_s" 2>/dev/null
	wait "$_s"
	_w=$?
	cat /tmp/pair-s.log >>/tmp/pair-c.log
	[ "$_c" = 0 ] && [ "$_w" = 0 ]
}

# cma_trace_start, cma_trace_stop: rdma_cm's own tracepoint of the
# events it gives its consumers (kdapl, and OFA's provider through
# rdma_ucm), with the CM's status, into an emptied trace buffer.
cma_trace_start() {
	_tr=/sys/kernel/tracing
	[ -d $_tr/events ] || mount -t tracefs nodev $_tr 2>/dev/null
	[ -w $_tr/events/rdma_cma/cm_event_handler/enable ] || return 0
	: >$_tr/trace
	echo 0 >$_tr/options/record-cmd
	echo 1 >$_tr/events/rdma_cma/cm_event_handler/enable
}

cma_trace_stop() {
	_tr=/sys/kernel/tracing
	[ -w $_tr/events/rdma_cma/cm_event_handler/enable ] || return 0
	echo 0 >$_tr/events/rdma_cma/cm_event_handler/enable
}

# dtestx_pair IA ADDR SERVER-ARGS -- CLIENT-ARGS: tool_pair for dtestx,
# once more when the tool raced itself.  Its client connects as soon as
# the server has sent its address over the tool's socket, and the server
# creates its PSP only after that: a connect that comes first meets no
# listener, which the CM answers with reason 8 (a REJ, "invalid service
# ID") or, for a datagram EP's resolution, with SIDR status 1
# ("unsupported").  The client then fails on NON_PEER_REJECTED (0x4003)
# or on a datagram connection error (0x40004), or waits for a connection
# that will not come.  rdma_cm's tracepoint shows that answer whichever
# provider the client runs on; OFA's provider loses the same race
# (Documentation/conformance.rst, note 8).  Any other failure, or the
# race twice, fails.
dtestx_pair() {
	_xia=$1 _xa=$2
	shift 2
	cma_trace_start
	tool_pair "$_xia" "$_xa" dtestx "$@"
	_xp=$?
	cma_trace_stop
	[ "$_xp" = 0 ] && return 0
	grep -q "REJECTED (8/8)\|UNREACHABLE (7/1)" \
		/sys/kernel/tracing/trace 2>/dev/null || return 1
	show /tmp/pair-c.log
	grep -h "REJECTED (8/8)\|UNREACHABLE (7/1)" /sys/kernel/tracing/trace |
		sed 's/^ *[^ ]* *[^ ]* *[^ ]* */#   cm: /'
	echo "# dtestx: the client connected before the server listened" \
		"(the tool's race); once more"
	tool_pair "$_xia" "$_xa" dtestx "$@"
}

# dtestx_run IA ADDR COLUMN [-p]: dtestx's RDMA Write with immediate
# data and atomics (IB extensions), IA as for tool_pair; both sides must
# report the test passed.  siw has neither immediate data nor
# atomics, and its IA claims no extension: there the tool must stop at
# "IB extension not supported", which the table shows as n/a (returns
# 2); anything else there fails.  With -p both sides print the counters
# of their IA, EP and EVDs: over kdapl udapl-shim's own lines must be
# there, which it prints only when the query succeeded (dtestx prints
# its own whatever the query returned).  OFA's Debian build has no
# counters, and says so.
dtestx_run() {
	# shellcheck disable=SC2086 # no option or one
	dtestx_pair "$1" "$2" $4 -- $4
	_p=$?
	if [ "$3" = "kdapl siw" ] && [ "$_p" != 0 ] &&
		grep -q "IB extension not supported" /tmp/pair-c.log; then
		return 2
	fi
	[ "$_p" = 0 ] &&
		[ "$(grep -c "immed/atomic test PASSED" /tmp/pair-c.log)" -ge 2 ] &&
		{ [ "$4" != -p ] || [ "${3#kdapl}" = "$3" ] ||
			[ "$(grep -c "^kdapl EP [0-9]*: POST_SEND " \
				/tmp/pair-c.log)" -ge 2 ]; } &&
		return 0
	show /tmp/pair-c.log
	return 1
}

# dtestx_ud_run IA ADDR COLUMN [OPTION]: dtestx's unreliable datagram
# test (-u, with OPTION such as -m for an EP of the server per client EP):
# the server learns the client's address through the tool's own socket,
# then each side resolves the other and sends it datagrams; both must
# report the UD test passed.  siw, whose IA claims no extension, is n/a
# as for dtestx_run (returns 2).
dtestx_ud_run() {
	# shellcheck disable=SC2086 # no option or one
	dtestx_pair "$1" "$2" -u $4 -- -c -u $4
	_p=$?
	if [ "$3" = "kdapl siw" ] && [ "$_p" != 0 ] &&
		grep -q "IB extension not supported" /tmp/pair-c.log; then
		return 2
	fi
	[ "$_p" = 0 ] &&
		[ "$(grep -c "UD test PASSED" /tmp/pair-c.log)" -ge 2 ] &&
		return 0
	show /tmp/pair-c.log
	return 1
}

# dtestx_query IA: dtestx -q, the fast query of extension version 209
# (dat_ib_open_query()), must list the IA's provider attributes.
dtestx_query() {
	timeout 60 dtestx -q -P "$1" >/tmp/dtestx-q.log 2>&1 &&
		grep -q "Open_Query: $1 num_attrs" /tmp/dtestx-q.log &&
		return 0
	show /tmp/dtestx-q.log
	return 1
}

# conn_trace_start: record kdapl's connection tracepoints (kdapl_cm_event,
# kdapl_conn_event) from now on, if tracefs can; conn_trace_report
# prints, after a failed run, what they say went wrong: the counts of
# each event, and the EPs whose connection events were not exactly
# ESTABLISHED then DISCONNECTED, with every event of theirs.
conn_trace_start() {
	_tr=/sys/kernel/tracing
	[ -d $_tr/events ] || mount -t tracefs nodev $_tr 2>/dev/null
	[ -w $_tr/events/kdapl/kdapl_conn_event/enable ] || return 0
	echo 8192 >$_tr/buffer_size_kb
	: >$_tr/trace
	# Recording command names hooks the scheduler's tracepoints, whose
	# live patching under QEMU's emulation once hung a vCPU in the
	# breakpoint handler (an RCU stall): keep tracing to kdapl's own.
	echo 0 >$_tr/options/record-cmd
	echo 1 >$_tr/events/kdapl/kdapl_conn_event/enable
	echo 1 >$_tr/events/kdapl/kdapl_cm_event/enable
}

conn_trace_stop() {
	_tr=/sys/kernel/tracing
	[ -w $_tr/events/kdapl/kdapl_conn_event/enable ] || return 0
	echo 0 >$_tr/events/kdapl/kdapl_conn_event/enable
	echo 0 >$_tr/events/kdapl/kdapl_cm_event/enable
}

conn_trace_report() {
	_tr=/sys/kernel/tracing
	[ -r $_tr/trace ] || return 0
	awk '
	/kdapl_conn_event:/ { match($0, /event=0x[0-9a-f]+/)
		n[substr($0, RSTART, RLENGTH)]++ }
	/kdapl_cm_event:/ { match($0, /cm_event=[0-9]+ status=-?[0-9]+/)
		n[substr($0, RSTART, RLENGTH)]++ }
	/kdapl_(conn|cm)_event:/ {
		match($0, /(ep|handle)=0x[0-9a-f]+/)
		h = substr($0, RSTART, RLENGTH); sub(/.*=/, "", h)
		e = $0; sub(/.*kdapl_/, "", e)
		seq[h] = seq[h] " | " e
		if (e ~ /^conn_event/) {
			match(e, /event=0x[0-9a-f]+/)
			conn[h] = conn[h] " " substr(e, RSTART + 6, RLENGTH - 6)
		}
	}
	END {
		for (k in n) printf "#   trace: %d %s\n", n[k], k
		for (h in seq) if (conn[h] != " 0x4001 0x4005" && shown++ < 10)
			printf "#   trace: EP %s:%s\n", h, seq[h]
	}' $_tr/trace
}

# show LOG: the end of a failed run's output (SHOW lines, default 12).
show() {
	tail -n "${SHOW:-12}" "$1" | sed "s|^|#   $(basename "$1" .log): |"
}

# dapltest_run IA ADDR -T TEST OPTIONS...: one dapltest client against
# the server at ADDR, output in /tmp/dapltest-c.log (dapltest wants -T
# first, the options before the OPs); true if it passed.  LIMIT bounds
# it, LB may make its output line-buffered.
dapltest_run() {
	_ia=$1 _a=$2 _t=$4
	shift 4
	# shellcheck disable=SC2086 # LB is a command and its option
	timeout "$LIMIT" $LB dapltest -T "$_t" -s "$_a" -D "$_ia" "$@" \
		>/tmp/dapltest-c.log 2>&1 &&
		! grep -q -i "error\|fail" /tmp/dapltest-c.log
}

# Two-host runs (tests/vm/twohost.sh): this VM is host KDAPL_VM_PEER
# (1 or 2) at 10.0.9.KDAPL_VM_PEER on KDAPL_VM_PEER_NIC.  The hosts keep
# in step with named signals over TCP port 7100 of the link.

# peer_addr N: the address of host N.
peer_addr() {
	echo "10.0.9.$1"
}

# peer_signal NAME [SECONDS]: give NAME to the other host, which waits
# for it with peer_wait; fails if it did not come for it in time.
peer_signal() {
	# From a file: nc reads it before it answers the connection.
	echo "$1" >/tmp/peer-signal
	timeout "${2:-300}" nc -l -p 7100 </tmp/peer-signal >/dev/null ||
		die "the other host did not take '$1' in ${2:-300}s"
}

# peer_wait NAME [SECONDS]: until the other host signals NAME.
peer_wait() {
	_other=$(peer_addr $((3 - KDAPL_VM_PEER)))
	_end=$(($(date +%s) + ${2:-300}))
	while [ "$(date +%s)" -lt "$_end" ]; do
		_got=$(nc -w 2 "$_other" 7100 </dev/null 2>/dev/null)
		[ "$_got" = "$1" ] && return 0
		[ -z "$_got" ] || die "the other host said '$_got', not '$1'"
		sleep 0.2
	done
	die "no '$1' from the other host in ${2:-300}s"
}

# dat_conf FILE: a dat.conf naming udapl-shim for rxe0-1 and siw0-1 and
# OFA's provider for eth0, and DAT_OVERRIDE pointing libdat2 at it.
dat_conf() {
	cat >"$1" <<CONF
rxe0-1 u2.0 nonthreadsafe default /usr/lib/kdapl/libdaplkdapl.so.2 dapl.2.0 "rxe0-1" ""
siw0-1 u2.0 nonthreadsafe default /usr/lib/kdapl/libdaplkdapl.so.2 dapl.2.0 "siw0-1" ""
ofa-v2-cma-roe-eth0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "eth0 0" ""
CONF
	export DAT_OVERRIDE=$1
}
