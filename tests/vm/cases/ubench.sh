# SPDX-License-Identifier: GPL-2.0
#
# The user path against OFA's provider: tests/user/udat-bench/udat_bench,
# one binary, over udapl-shim (kdapl) and over libdaplofa on the same rxe0
# in the same boot, REPS rounds with the order of the two alternating.
# The table (medians of the rounds; ratios kdapl/OFA) goes to the host as
# block "ubench", every measurement as block "ubench-runs".  Performance
# never fails the test: only a benchmark that cannot run does.
#
# perftest, when the guest has it, gives the device's own limit in the
# same boot: a server and a client process on rxe0, connected by rdma_cm.
#
# /etc/kdapl-ubench.conf (optional) may set REPS, SECONDS_EACH (per
# measurement), SIZES (comma separated), PERFTEST_SIZES (the sizes
# perftest runs at, comma separated; empty: none) and ICOUNT (1: the VM
# runs under QEMU's -icount, for the table's header; perftest does not
# run there: its two processes would share the one vCPU, each polling).

. /usr/lib/kdapl/lib.sh

REPS=3
SECONDS_EACH=0.3
SIZES=8,64,512,4096,32768,262144,1048576
ICOUNT=
unset PERFTEST_SIZES
[ -r /etc/kdapl-ubench.conf ] && . /etc/kdapl-ubench.conf
PERFTEST_SIZES=${PERFTEST_SIZES-$SIZES}

kdapl_load
rdma_add rxe
ulimit -l unlimited
# The system call counter reads the raw_syscalls tracepoint's id.
[ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

dat_conf /tmp/ubench-dat.conf

runs=/tmp/ubench-runs.txt
: >"$runs"
failed=0
# run PROVIDER IA ROUND
run() {
	if udat_bench -t "$SECONDS_EACH" -s "$SIZES" "$2" >/tmp/ubench-one.txt \
		2>/tmp/ubench-err.txt; then
		sed -n "s/^UB /$1 $3 /p" /tmp/ubench-one.txt >>"$runs"
	else
		failed=1
		echo "# udat_bench over $1 failed:"
		sed 's/^/#   /' /tmp/ubench-err.txt
	fi
}
r=1
while [ "$r" -le "$REPS" ]; do
	if [ $((r % 2)) = 1 ]; then
		run kdapl rxe0-1 "$r"
		run OFA ofa-v2-cma-roe-eth0 "$r"
	else
		run OFA ofa-v2-cma-roe-eth0 "$r"
		run kdapl rxe0-1 "$r"
	fi
	r=$((r + 1))
done

# pt_one TEST SIZE FIELD TOOL ARG...: one perftest server and client at
# SIZE; FIELD of the client's result line (MsgRate in Mpps for the
# bandwidth tools, t_avg in us for the latency tools) becomes the line
# "TEST SIZE VALUE" of $pt, a rate in ops/s.
pt_one() {
	local test=$1 size=$2 field=$3 srv try=0
	shift 3
	timeout 60 "$@" -R -d rxe0 -s "$size" >/tmp/pt-srv.txt 2>&1 &
	srv=$!
	# A client the server's host refuses (no listener yet) crashes in
	# librdmacm: start it once the server's identifier listens.
	until rdma resource show cm_id 2>/dev/null |
	      grep -q "state LISTEN .*comm ib_"; do
		try=$((try + 1))
		[ "$try" -lt 100 ] || break
		sleep 0.1
	done
	try=0
	until timeout 60 "$@" -R -d rxe0 -s "$size" 10.0.2.15 \
		>/tmp/pt-cli.txt 2>&1; do
		try=$((try + 1))
		if [ "$try" -ge 3 ]; then
			echo "# perftest $* -s $size failed:"
			tail -n 3 /tmp/pt-cli.txt | sed 's/^/#   /'
			kill "$srv" 2>/dev/null
			break
		fi
		sleep 0.3
	done
	wait "$srv"
	awk -v t="$test" -v s="$size" -v f="$field" '
		$1 == s && NF >= f && $f + 0 > 0 {
			v = $f
			# MsgRate has six decimals (1 op/s); below 1000
			# op/s the average bandwidth (MiB/s) says more.
			if (t ~ /_rate$/)
				v = v >= 0.001 ? v * 1e6 : $4 * 1048576 / s
		}
		END {
			if (v != "")
				print t, s, v
		}' /tmp/pt-cli.txt >>"$pt"
}

# pt_iters SIZE rate|latency: perftest's iterations: each run a
# second or less under TCG, and at least 20 operations.
pt_iters() {
	local n
	if [ "$1" -le 4096 ]; then
		n=1000
	elif [ "$1" -le 65536 ]; then
		n=200
	else
		n=20
	fi
	[ "$2" != rate ] || n=$((n * 5))
	echo "$n"
}

pt=/tmp/ubench-perftest.txt
: >"$pt"
# Not under -icount: the two processes, each polling, would share the
# one vCPU (and with -e, sleeping on events, perftest measures wake-ups
# and has no RDMA Write).
if [ -z "$ICOUNT" ] && [ -n "$PERFTEST_SIZES" ] &&
   command -v ib_write_bw >/dev/null; then
	for size in $(echo "$PERFTEST_SIZES" | tr , ' '); do
		n=$(pt_iters "$size" rate)
		pt_one send_rate "$size" 5 ib_send_bw -t 32 -n "$n"
		pt_one write_rate "$size" 5 ib_write_bw -t 32 -n "$n"
		pt_one read_rate "$size" 5 ib_read_bw -t 32 -n "$n"
		if [ "$size" = 8 ]; then
			pt_one fadd_rate 8 5 ib_atomic_bw -A FETCH_AND_ADD \
				-t 32 -n "$n"
			pt_one cswap_rate 8 5 ib_atomic_bw -A CMP_AND_SWAP \
				-t 32 -n "$n"
		fi
		n=$(pt_iters "$size" latency)
		pt_one send_lat "$size" 6 ib_send_lat -n "$n"
		pt_one write_lat "$size" 6 ib_write_lat -n "$n"
		pt_one read_lat "$size" 6 ib_read_lat -n "$n"
	done
fi

# Lines: provider round test size value unit syscalls.  Medians per
# provider, test and size; a rate is better higher, a latency lower.
awk -v reps="$REPS" -v secs="$SECONDS_EACH" -v icount="$ICOUNT" \
	-v kernel="$(uname -r)" -v ptfile="$pt" '
function median(list,    n, v, i, j, t) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n ? (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : 0
}
FILENAME == ptfile {
	pt[$1 " " $2] = $3
	next
}
{
	k = $3 " " $4
	if (!(k in seen)) {
		seen[k] = 1
		order[++nk] = k
	}
	val[$1, k] = val[$1, k] " " $5
	sys[$1, k] = sys[$1, k] " " $7
	unit[k] = $6
}
END {
	printf "user path: udat_bench over udapl-shim (kdapl) and OFA'"'"'s"
	printf " libdaplofa, rxe0, kernel %s\n", kernel
	printf "%d rounds of %ss per figure, order alternating; medians.", \
		reps, secs
	if (icount)
		printf " ICOUNT: time = instructions x 2 ns."
	printf "\nrate: ops/s with a window of 32 (conn_rate: connections/s," \
		" one at a time); latency: us (ping-pong: round trip / 2);" \
		" sys/op: system calls of the thread per op\n"
	if (icount)
		printf "perftest: not under ICOUNT (real time only)\n"
	else
		printf "perftest: the device'"'"'s own limit, a server and" \
			" a client process (one thread drives both ends in" \
			" udat_bench)\n"
	printf "target: rate ratio >= 1.00, latency ratio <= 1.05\n\n"
	printf "%-10s %8s  %10s %10s %6s  %8s %8s  %10s  %s\n", "test", \
		"size", "kdapl", "OFA", "ratio", "sys/op k", "sys/op O", \
		"perftest", "note"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split(k, f, " ")
		a = median(val["kdapl", k]); b = median(val["OFA", k])
		q = b > 0 ? a / b : 0
		if (unit[k] ~ /\/s$/)
			ok = q >= 1.0
		else
			ok = q > 0 && q <= 1.05
		note = ok ? "PASS" : "BELOW-TARGET"
		if (!ok)
			below++
		rows++
		p = k in pt ? sprintf("%10.1f", pt[k]) : sprintf("%10s", "-")
		printf "%-10s %8d  %10.1f %10.1f %6.2f  %8.2f %8.2f  %s  %s\n", \
			f[1], f[2], a, b, q, median(sys["kdapl", k]), \
			median(sys["OFA", k]), p, note
	}
	if (!rows)
		print "no results"
	else
		printf "\n%d of %d rows below target\n", below, rows
}' "$pt" "$runs" >/tmp/ubench.txt

emit_block ubench-runs "$runs"
emit_block ubench-perftest "$pt"
emit_block ubench /tmp/ubench.txt
cat /tmp/ubench.txt

rdma_del rxe0
kdapl_unload
[ "$failed" = 0 ] || die "udat_bench failed to run"
exit 0
