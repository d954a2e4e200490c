# SPDX-License-Identifier: GPL-2.0
#
# Two hosts (tests/vm/twohost.sh): OFA's dtest and dapltest, unmodified,
# with the server on host 1 and the client on host 2, over udapl-shim on
# the link between the two VMs, for each transport of TRANSPORTS (one
# after the other on the same NIC).  Each host checks its own side: exit
# status 0 and what the tool prints on success.
#
# The defaults are make check's short run: two dtest runs, a transaction
# and a performance test on rxe (distro kernel); one dtest run and the
# transaction test on siw (debug kernel, where make stress adds rxe and
# every set of the tools case).
#
# /etc/kdapl-twohost.conf (optional) may set TRANSPORTS, DTEST_SETS and
# DAPLTEST_SETS (one option set per line) and LIMIT (seconds per run).

. /usr/lib/kdapl/lib.sh

[ -n "${KDAPL_VM_PEER:-}" ] || skip "not a two-host run (tests/vm/twohost.sh)"

TRANSPORTS=rxe
DTEST_SETS='
-B 100 -b 65536
-W -D -b 4096 -B 20
'
DAPLTEST_SETS='
-T T -t 2 -w 2 -i 50 -V client SR 1024 server RW 4096 client RR 4096 server SR 1024
-T P -m b -i 200 RW 4096 2
'
if kernel_is_debug; then
	TRANSPORTS=siw
	DTEST_SETS='-B 100 -b 65536'
	DAPLTEST_SETS='-T T -t 2 -w 2 -i 50 -V client SR 1024 server RW 4096 client RR 4096 server SR 1024'
fi
LIMIT=300
[ -r /etc/kdapl-twohost.conf ] && . /etc/kdapl-twohost.conf
[ -n "$TRANSPORTS" ] || skip "no transport to run the tools on"

# A host waits for the other as long as the other may be busy: one run
# (WAIT), or every dapltest client run (ALL).
nsets=$(echo "$DAPLTEST_SETS" | grep -c .)
WAIT=$((LIMIT + 120))
ALL=$((LIMIT * (nsets + 2)))

me=$KDAPL_VM_PEER
server=$(peer_addr 1)
LB=
command -v stdbuf >/dev/null && LB="stdbuf -oL"
dat_conf /tmp/twohost-dat.conf
# shellcheck disable=SC3045 # busybox ash has ulimit -l
ulimit -l unlimited
failed=0

# fail WHAT LOG...: a run failed: say so, show the logs.
fail() {
	echo "# $1: FAIL"
	shift
	for _l in "$@"; do show "$_l"; done
	failed=$((failed + 1))
}

# dtest_side IA STEP OPTIONS...: this host's side of one dtest run.
dtest_side() {
	_ia=$1 _step=$2
	shift 2
	if [ "$me" = 1 ]; then
		# shellcheck disable=SC2086 # LB is a command and its option
		timeout "$LIMIT" $LB dtest -P "$_ia" -s "$@" \
			>/tmp/dtest-s.log 2>&1 &
		_s=$!
		wait_for /tmp/dtest-s.log "waiting for client connection" ||
			{ kill "$_s"; fail "dtest server $*" /tmp/dtest-s.log; }
		peer_signal "$_step"
		wait "$_s" && grep -q "Test Complete. PASSED" /tmp/dtest-s.log &&
			echo "# dtest server $*: PASS" && return
		fail "dtest server $*" /tmp/dtest-s.log
	else
		peer_wait "$_step" "$WAIT"
		sleep 0.5
		# shellcheck disable=SC2086
		timeout "$LIMIT" $LB dtest -P "$_ia" -h "$server" "$@" \
			>/tmp/dtest-c.log 2>&1 &&
			grep -q "Test Complete. PASSED" /tmp/dtest-c.log &&
			echo "# dtest client $*: PASS" && return
		fail "dtest client $*" /tmp/dtest-c.log
	fi
}

# dapltest_side IA STEP: a dapltest server on host 1; on host 2 every
# client set, then the quit test that ends the server.
dapltest_side() {
	if [ "$me" = 1 ]; then
		# shellcheck disable=SC2086 # LB is a command and its option
		timeout "$ALL" $LB dapltest -T S -D "$1" \
			>/tmp/dapltest-s.log 2>&1 &
		_s=$!
		wait_for /tmp/dapltest-s.log "Service Point Ready" ||
			fail "dapltest server" /tmp/dapltest-s.log
		peer_signal "$2"
		wait "$_s" && echo "# dapltest server: PASS" && return
		fail "dapltest server" /tmp/dapltest-s.log
		return
	fi
	peer_wait "$2" "$WAIT"
	sleep 0.5
	echo "$DAPLTEST_SETS" | while read -r _opts; do
		[ -n "$_opts" ] || continue
		# shellcheck disable=SC2086 # a list of options
		dapltest_client "$1" $_opts || echo bad >>/tmp/dapltest-bad
	done
	dapltest_client "$1" -T Q || echo bad >>/tmp/dapltest-bad
	if [ -s /tmp/dapltest-bad ]; then
		failed=$((failed + 1))
	fi
	rm -f /tmp/dapltest-bad
}

# dapltest_client IA -T TEST OPTIONS...: one client run.
dapltest_client() {
	_ia=$1 _t=$3
	shift 3
	if dapltest_run "$_ia" "$server" -T "$_t" "$@"; then
		echo "# dapltest -T $_t $*: PASS"
		return 0
	fi
	echo "# dapltest -T $_t $*: FAIL"
	show /tmp/dapltest-c.log
	return 1
}

kdapl_load
for t in $TRANSPORTS; do
	rdma_add "$t" "$KDAPL_VM_PEER_NIC"
	info "host $me: $t on $KDAPL_VM_PEER_NIC ($(peer_addr "$me"))"
	k=0
	while read -r opts; do
		[ -n "$opts" ] || continue
		k=$((k + 1))
		# shellcheck disable=SC2086 # a list of options
		dtest_side "${t}0-1" "dtest-$t-$k" $opts
	done <<SETS
$DTEST_SETS
SETS
	dapltest_side "${t}0-1" "dapltest-$t"
	# Both hosts are done with this device before it goes.
	if [ "$me" = 1 ]; then
		peer_wait "done-$t" "$ALL"
	else
		peer_signal "done-$t" "$ALL"
	fi
	rdma_del "${t}0"
done
kdapl_nothing_left 20 || failed=$((failed + 1))
kdapl_unload
[ "$failed" = 0 ] || die "$failed runs failed on host $me"
