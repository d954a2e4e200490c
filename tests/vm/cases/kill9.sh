# SPDX-License-Identifier: GPL-2.0
#
# kill -9 at random points: each round starts a workload over /dev/kdapl
# on rxe0 (dtest client and server over udapl-shim, a dapltest server
# with a transaction client, the /dev/kdapl ABI test, the shim's test,
# or the fuzzer), waits a random time and kills one of its processes,
# or all, with SIGKILL.  Afterwards the module must hold no object, open
# file or pinned page (debugfs "objects"), and it must unload; kmemleak
# is checked by the host.
#
# /etc/kdapl-kill9.conf may set ROUNDS (make stress: 1000) and SEED.

. /usr/lib/kdapl/lib.sh

# Fewer rounds under KASAN, where each takes longer.
ROUNDS=30
kernel_is_debug && ROUNDS=5
SEED=$$
# shellcheck disable=SC1091 # written by the host for long runs
[ -r /etc/kdapl-kill9.conf ] && . /etc/kdapl-kill9.conf

IA=rxe0-1
ADDR=10.0.2.15

# rnd N: a number below N from awk's generator, seeded per round.
rnd() {
	awk -v s="$SEED" -v r="$round" -v n="$1" -v k="$2" \
		'BEGIN { srand(s * 7919 + r * 31 + k); print int(rand() * n) }'
}

# start_workload KIND: start it in the background; its pids in $pids.
start_workload() {
	pids=
	case $1 in
	0)
		dtest -P "$IA" -s -B 200 -b 65536 >/tmp/k9-s.log 2>&1 &
		pids=$!
		sleep 0.3
		dtest -P "$IA" -h "$ADDR" -B 200 -b 65536 >/tmp/k9-c.log 2>&1 &
		pids="$pids $!"
		;;
	1)
		dapltest -T S -D "$IA" >/tmp/k9-s.log 2>&1 &
		pids=$!
		sleep 0.5
		dapltest -T T -s "$ADDR" -D "$IA" -t 2 -w 2 -i 2000 \
			client SR 1024 server RW 4096 client RR 4096 \
			>/tmp/k9-c.log 2>&1 &
		pids="$pids $!"
		;;
	2)
		kdapl_dev_test "$IA" >/tmp/k9-c.log 2>&1 &
		pids=$!
		;;
	3)
		shim_test "$IA" >/tmp/k9-c.log 2>&1 &
		pids=$!
		;;
	*)
		kdapl_fuzz -n 1000000 -p 2 -t 2 -s "$round" "$IA" \
			>/tmp/k9-c.log 2>&1 &
		pids=$!
		;;
	esac
}

# kill_round: one workload, killed after 0-3 s.
kill_round() {
	_kind=$(rnd 5 1)
	eval "n$_kind=\$((n$_kind + 1))"
	start_workload "$_kind"
	_ms=$(rnd 3000 2)
	sleep "$((_ms / 1000)).$(printf %03d $((_ms % 1000)))"
	if [ "$(rnd 2 3)" = 0 ]; then
		# shellcheck disable=SC2086 # a list of pids
		kill -KILL $pids 2>/dev/null
	else
		_n=$(echo "$pids" | wc -w)
		kill -KILL "$(echo "$pids" | cut -d' ' -f$(($(rnd "$_n" 4) + 1)))" \
			2>/dev/null
		sleep 0.5
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
	fi
	# What is left: the fuzzer's own children, a server whose client
	# was killed.
	reap
}

# reap: kill every process of the workloads until none is found (two
# seconds at most; busybox has killall, not pkill).
reap() {
	_i=0
	while [ "$_i" -lt 10 ]; do
		_k=0
		for _p in kdapl_fuzz dtest dapltest kdapl_dev_test shim_test; do
			killall -q -KILL "$_p" 2>/dev/null && _k=1
		done
		[ "$_k" = 0 ] && break
		sleep 0.2
		_i=$((_i + 1))
	done
	wait
}

dat_conf /tmp/kill9-dat.conf
# shellcheck disable=SC3045 # busybox ash has ulimit -l
ulimit -l unlimited
kdapl_load
rdma_add rxe
round=0
n0=0 n1=0 n2=0 n3=0 n4=0
while [ "$round" -lt "$ROUNDS" ]; do
	kill_round
	round=$((round + 1))
	[ $((round % 50)) = 0 ] && info "$round rounds"
done
info "$ROUNDS workloads killed with SIGKILL: dtest $n0, dapltest $n1," \
	"kdapl_dev_test $n2, shim_test $n3, kdapl_fuzz $n4"
check kdapl_nothing_left 30
rdma_del rxe0
kdapl_unload
