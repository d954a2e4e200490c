# SPDX-License-Identifier: GPL-2.0
#
# The user path against OFA's provider: tests/user/udat-bench/udat_bench,
# one binary, over udapl-shim (kdapl) and over libdaplofa on the same rxe0
# in the same boot, REPS rounds with the order of the two alternating.
# The table (medians of the rounds; ratios kdapl/OFA) goes to the host as
# block "ubench", every measurement as block "ubench-runs".  Performance
# never fails the test: only a benchmark that cannot run does.
#
# /etc/kdapl-ubench.conf (optional) may set REPS, SECONDS_EACH (per
# measurement), SIZES (comma separated) and ICOUNT (1: the VM runs under
# QEMU's -icount, for the table's header).

. /usr/lib/kdapl/lib.sh

REPS=3
SECONDS_EACH=0.3
SIZES=8,64,512,4096,32768,262144,1048576
ICOUNT=
[ -r /etc/kdapl-ubench.conf ] && . /etc/kdapl-ubench.conf

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

# Lines: provider round test size value unit syscalls.  Medians per
# provider, test and size; a rate is better higher, a latency lower.
awk -v reps="$REPS" -v secs="$SECONDS_EACH" -v icount="$ICOUNT" \
	-v kernel="$(uname -r)" '
function median(list,    n, v, i, j, t) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n ? (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : 0
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
	printf "target: rate ratio >= 1.00, latency ratio <= 1.05\n\n"
	printf "%-10s %8s  %10s %10s %6s  %8s %8s  %s\n", "test", "size", \
		"kdapl", "OFA", "ratio", "sys/op k", "sys/op O", "note"
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
		printf "%-10s %8d  %10.1f %10.1f %6.2f  %8.2f %8.2f  %s\n", \
			f[1], f[2], a, b, q, median(sys["kdapl", k]), \
			median(sys["OFA", k]), note
	}
	if (!rows)
		print "no results"
	else
		printf "\n%d of %d rows below target\n", below, rows
}' "$runs" >/tmp/ubench.txt

emit_block ubench-runs "$runs"
emit_block ubench /tmp/ubench.txt
cat /tmp/ubench.txt

rdma_del rxe0
kdapl_unload
[ "$failed" = 0 ] || die "udat_bench failed to run"
exit 0
