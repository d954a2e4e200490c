#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two hosts: boot two test VMs of one kernel at once, joined by a QEMU
# socket netdev on loopback (UDP between the two QEMU processes; the
# guests still have no route off the machine), and run the two-host
# cases in both:
#
#   twohost_tools  OFA's dtest and dapltest, server on host 1 (10.0.9.1),
#                  client on host 2 (10.0.9.2), over udapl-shim
#   twohost_kill   a verified transfer between the hosts, during which
#                  host 2's QEMU is killed (SIGKILL, on the mark its
#                  guest prints): host 1 must see the connection fail
#                  in bounded time and free everything
#
#   tests/vm/twohost.sh [--results FILE] [--conf FILE] [--timeout SEC]
#                       distro|debug
#
# --conf FILE becomes the guests' /etc/kdapl-twohost.conf (see the two
# cases).  Result lines are named <kernel>-host1/... and <kernel>-host2/...
# Exit status 0 iff both VMs passed everything.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

usage="usage: twohost.sh [--results FILE] [--conf FILE] [--timeout SEC] distro|debug"
results=
conf=
timeout=1500
while [ $# -gt 0 ]; do
	case $1 in
	--results) results=$(realpath -m "${2:?}"); shift 2 ;;
	--conf) conf=$(realpath "${2:?}"); shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	*) break ;;
	esac
done
kernel=${1:?$usage}
if ! [[ $timeout =~ ^[0-9]+$ ]] || [ "$timeout" -lt 120 ]; then
	echo "twohost.sh: --timeout needs 120 seconds or more" >&2
	exit 2
fi
cd "$top"
case $kernel in
distro) mem=2048 ;;
debug) mem=3072 ;;
*) echo "twohost.sh: distro or debug, not $kernel" >&2; exit 2 ;;
esac

if ! tests/run-vm.sh --build-only "$kernel"; then
	echo "FAIL $kernel-twohost/build"
	[ -z "$results" ] || echo "FAIL $kernel-twohost/build" >>"$results"
	exit 1
fi

# Two UDP ports on loopback, one per QEMU, from this script's PID, below
# Linux's ephemeral range (32768 and up).
port=$((20000 + $$ % 6000 * 2))
out=build/vm/twohost-$kernel
mkdir -p "$out"
opts=(--no-build -q --mem "$mem" --timeout "$timeout"
      --test-timeout $((timeout - 60)) --blocks "$out/blocks")
if [ -n "$conf" ]; then
	opts+=(--file "$conf:/etc/kdapl-twohost.conf")
fi

tests/run-vm.sh "${opts[@]}" --peer "1:$port:$((port + 1))" \
	"$kernel" twohost_tools twohost_kill >"$out/host1.txt" 2>&1 &
h1=$!
tests/run-vm.sh "${opts[@]}" --peer "2:$((port + 1)):$port" \
	--kill-on KDAPL-KILL-THIS-VM \
	"$kernel" twohost_tools twohost_kill >"$out/host2.txt" 2>&1 &
h2=$!
rc=0
wait "$h1" || rc=1
wait "$h2" || rc=1

for h in 1 2; do
	echo "== host $h"
	# What the VM run says, without the console copy of the guest.
	grep -E '^(vm|vm\.sh|PASS|FAIL|#|  \|)' "$out/host$h.txt" || true
	# A VM that never ran leaves no result of its own: one for it.
	if ! grep -qE '^(PASS|FAIL) ' "$out/host$h.txt"; then
		tail -n 20 "$out/host$h.txt" | sed 's/^/  | /'
		echo "FAIL $kernel-host$h/boot" | tee -a "$out/host$h.txt"
		rc=1
	fi
	if [ -n "$results" ]; then
		grep -E '^(PASS|FAIL) ' "$out/host$h.txt" >>"$results" || true
	fi
done
exit "$rc"
