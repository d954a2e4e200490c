#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a QEMU guest (software emulation) on the distro or the debug kernel,
# run guest test scripts in it and turn the console into PASS/FAIL lines.
# Run with --help for the options.
#
# The commas in QEMU arguments are QEMU's, not array separators:
# shellcheck disable=SC2054

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/vm

distro_kver=${KDAPL_DISTRO_KVER:-6.1.0-56-amd64}
# Distro modules for virtio networking, RDMA and veth (moved.sh); their
# dependencies are staged too.
distro_kmods="virtio_pci virtio_net crc32_generic ib_core ib_cm iw_cm
	rdma_cm ib_uverbs rdma_ucm rdma_rxe veth"
# Loaded by the guest init before the network is set up.
distro_boot_kmods="virtio_pci virtio_net"

usage() {
	cat <<'USAGE'
Usage: tests/vm/vm.sh [OPTION]... [TEST]...

Boot the kdapl test VM once and run the guest tests TEST... in order.  A
TEST is NAME for tests/vm/cases/NAME.sh, or the path of any .sh file (its
name is then the file name without .sh).  Guest tests source
/usr/lib/kdapl/lib.sh (tests/vm/guest/lib.sh).

Options:
  --kernel distro|debug|kcsan
                         kernel to boot (default distro): Debian's 6.1
                         kernel, the KASAN/lockdep/kmemleak kernel of
                         tests/vm/debug-kernel.sh, or its KCSAN variant
  --timeout SEC          kill the VM after SEC seconds (default 600)
  --test-timeout SEC     guest-side limit per test (default 300, or less
                         than --timeout when that is short)
  --mem MB               guest memory (default 2048 debug, 1024 distro)
  --shell                no tests: an interactive shell on the console,
                         with rxe0 (and siw0 on debug) set up; exit the
                         shell to stop the VM (Ctrl-A x kills QEMU)
  --mods DIR             put every DIR/*.ko into the guest at /kdapl/
                         (repeatable)
  --bin FILE             copy executable FILE to the guest's /usr/bin with
                         its shared libraries (repeatable)
  --file SRC:DEST        copy SRC to guest path DEST, with its shared
                         libraries if it is a dynamic ELF (repeatable),
                         e.g. a dat.conf or a provider library that is
                         loaded with dlopen()
  --results FILE         append the PASS/FAIL lines to FILE
  --peer N:LPORT:RPORT   host N (1 or 2) of a two-host run
                         (tests/vm/twohost.sh): one more NIC, a QEMU
                         socket netdev sending UDP from 127.0.0.1:LPORT to
                         the other VM's 127.0.0.1:RPORT, with address
                         10.0.9.N; results are named <kernel>-hostN/...
  --kill-on TEXT         kill QEMU (SIGKILL) as soon as TEXT appears on
                         the console: a test that printed TEXT then
                         passes, and so does guest-exit
  --blocks DIR           where KDAPL-BLOCK blocks go (default
                         build/vm/blocks)
  --icount               one vCPU with QEMU's -icount (shift=1, sleep=off):
                         guest time counts executed instructions, 2 ns
                         each, so timings are repeatable (for benchmarks)
  --no-leak-scan         skip the two kmemleak scans at the end of a
                         debug boot (about 75 s under emulation), for
                         runs that look only for other kernel reports
  --expect-fail          invert the exit status: 0 iff at least one result
                         failed (proves the bench catches a bug); the
                         details are printed as usual
  -q, --quiet            do not copy the console to stdout (it is still
                         in the log)
  -h, --help             this text

Results, one line each, "PASS <kernel>/<name>" or "FAIL <kernel>/<name>":
  <test>       the test's TAP line: exit 0 passes, 77 is a skip (passes),
               anything else, a guest timeout or no line at all fails
  sanitizers   fails on any kernel report in the console (KASAN, lockdep,
               kmemleak, BUG/WARNING/Oops, hung task, ...); the reports
               are printed
  guest-exit   fails if the guest did not reach KDAPL-VM-END (hang, panic,
               --timeout)
Exit status 0 iff every result passed (inverted by --expect-fail).

The guest always has busybox, /usr/bin/rdma, and libgcc_s (glibc loads it
at run time); when a copied program uses libibverbs, the rxe and siw
verbs providers come along.  Tests must not print the words the
sanitizers result looks for (BUG:, WARNING:, Call Trace:, ...).

The console log is build/vm/<kernel>-<time>-<pid>.log (<kernel>-latest.log
links to the newest).  Lines a test prints between "KDAPL-BLOCK-BEGIN TAG"
and "KDAPL-BLOCK-END TAG" (see emit_block in lib.sh) are written to
<blocks dir>/TAG.txt, replacing that file; files of other tags are left
alone (remove a stale TAG.txt before the run if that matters).

In a two-host run the guest has KDAPL_VM_PEER=N and KDAPL_VM_PEER_NIC
(the NIC of the link) in its environment.

Environment: KDAPL_VM_KVM=1 uses KVM instead of TCG (hangs on some hosts);
KDAPL_VM_KEEP=1 keeps the staging directory build/vm/run-<pid>.
USAGE
}

die() {
	echo "vm.sh: $*" >&2
	exit 2
}

kernel=distro
mem=
timeout=600
test_timeout=
shell=0
expect_fail=0
leak_scan=1
icount=0
quiet=0
results=
blocks=$out/blocks
peer=
kill_on=
mods=()
bins=()
files=()
tests=()

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:?}; shift ;;
	--timeout) timeout=${2:?}; shift ;;
	--test-timeout) test_timeout=${2:?}; shift ;;
	--mem) mem=${2:?}; shift ;;
	--shell) shell=1 ;;
	--mods) mods+=("${2:?}"); shift ;;
	--bin) bins+=("${2:?}"); shift ;;
	--file) files+=("${2:?}"); shift ;;
	--results) results=${2:?}; shift ;;
	--peer) peer=${2:?}; shift ;;
	--kill-on) kill_on=${2:?}; shift ;;
	--blocks) blocks=${2:?}; shift ;;
	--icount) icount=1 ;;
	--expect-fail) expect_fail=1 ;;
	--no-leak-scan) leak_scan=0 ;;
	-q | --quiet) quiet=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; tests+=("$@"); break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) tests+=("$1") ;;
	esac
	shift
done

case $kernel in
distro | debug | kcsan) ;;
*) die "--kernel must be distro, debug or kcsan" ;;
esac
# is_count VALUE: a positive whole number.
is_count() {
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]
}
is_count "$timeout" || die "--timeout needs a number of seconds"
[ -z "$mem" ] || is_count "$mem" || die "--mem needs a size in MB"
if [ -z "$test_timeout" ]; then
	test_timeout=300
	if [ "$timeout" -le 360 ]; then
		# Leave the host a margin to collect the rest of the run.
		test_timeout=$((timeout > 60 ? timeout - 30 : timeout))
	fi
fi
is_count "$test_timeout" || die "--test-timeout needs a number of seconds"
peer_id=
if [ -n "$peer" ]; then
	[[ $peer =~ ^([12]):([0-9]+):([0-9]+)$ ]] ||
		die "--peer wants N:LPORT:RPORT with N 1 or 2, got $peer"
	peer_id=${BASH_REMATCH[1]}
	peer_lport=${BASH_REMATCH[2]}
	peer_rport=${BASH_REMATCH[3]}
fi
if [ "$shell" = 0 ] && [ ${#tests[@]} = 0 ]; then
	die "no test given (see --help)"
fi

# Resolve the tests to files and guest names.
test_names=()
test_files=()
for t in ${tests[@]+"${tests[@]}"}; do
	case $t in
	*/* | *.sh) f=$t ;;
	*) f=$here/cases/$t.sh ;;
	esac
	[ -f "$f" ] || die "no such test: $t ($f)"
	name=$(basename "$f" .sh)
	[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "bad test name: $name"
	f=$(realpath "$f")
	for i in ${test_names[@]+"${!test_names[@]}"}; do
		if [ "${test_names[$i]}" = "$name" ] &&
			[ "${test_files[$i]}" != "$f" ]; then
			die "two different tests named $name"
		fi
	done
	test_names+=("$name")
	test_files+=("$f")
done

# Kernel image.
if [ "$kernel" != distro ]; then
	kdir=$(bash "$here/debug-kernel.sh" "$kernel")
	bzimage=$kdir/build/arch/x86/boot/bzImage
	mem=${mem:-2048}
	nics=2
else
	bzimage=/boot/vmlinuz-$distro_kver
	mem=${mem:-1024}
	nics=1
fi
[ -r "$bzimage" ] || die "no kernel image $bzimage"

mkdir -p "$out"
run=$out/run-$$
rm -rf "$run"
mkdir -p "$run"
cleanup() {
	if [ "${KDAPL_VM_KEEP:-0}" != 1 ]; then
		rm -rf "$run"
	fi
}
trap cleanup EXIT

root=$run/root

# --- initramfs -------------------------------------------------------------

# copy_libs ELF: copy the shared libraries and loader ELF needs, each to
# the path ldd names.
copy_libs() {
	local lib deps
	if ! deps=$(ldd "$1" 2>/dev/null); then
		return 0	# static or not an ELF executable/library
	fi
	if grep -q 'not found' <<<"$deps"; then
		die "$1: missing libraries:" \
			"$(grep 'not found' <<<"$deps" | tr -d '\t')"
	fi
	awk '$2 == "=>" && $3 ~ /^\// { print $3; next }
	     $1 ~ /^\// { print $1 }' <<<"$deps" |
	while read -r lib; do
		[ -e "$root$lib" ] ||
			install -D -m 755 "$(realpath "$lib")" "$root$lib"
	done
}

# copy_file SRC DEST: copy SRC into the guest at DEST, with its libraries.
copy_file() {
	[ -f "$1" ] || die "no such file: $1"
	rm -f "$root$2"
	install -D -m "$(stat -c %a "$1")" "$1" "$root$2"
	copy_libs "$1"
}

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/lib/kdapl,lib,lib64,etc}
mkdir -p "$root"/{proc,sys,dev,tmp,root,tests,kdapl}

# busybox (static) and its applets.
bb=/bin/busybox
if ldd "$bb" >/dev/null 2>&1; then
	die "$bb is dynamically linked: install busybox-static"
fi
install -m 755 "$bb" "$root/bin/busybox"
while read -r applet; do
	[ -n "$applet" ] || continue
	mkdir -p "$root/$(dirname "$applet")"
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done < <("$bb" --list-full)

copy_file /usr/bin/rdma /usr/bin/rdma
for b in ${bins[@]+"${bins[@]}"}; do
	copy_file "$b" "/usr/bin/$(basename "$b")"
done
for f in ${files[@]+"${files[@]}"}; do
	[[ $f == *:/* ]] || die "--file wants SRC:/ABSOLUTE/DEST, got $f"
	copy_file "${f%%:*}" "${f#*:}"
done

# glibc loads libgcc_s at run time (thread exit and cancellation).  awk
# reads to the end: leaving early would kill ldconfig with SIGPIPE, which
# pipefail turns into a failure of the whole script once the cache no
# longer fits in a pipe buffer.
hostlib() {
	ldconfig -p | awk -v l="$1" '$1 == l && !found { print $NF; found = 1 }'
}
gcc_s=$(hostlib libgcc_s.so.1)
has_lib() {
	[ -n "$(find "$root" -name "$1" -print -quit)" ]
}
if [ -n "$gcc_s" ] && has_lib libc.so.6; then
	copy_file "$gcc_s" "$gcc_s"
fi

# Programs using libibverbs also get its soft RoCE and soft iWARP
# providers, which it loads by name at run time.
if has_lib libibverbs.so.1; then
	pdir=$(dirname "$(realpath "$(hostlib libibverbs.so.1)")")/libibverbs
	for p in rxe siw; do
		drv=/etc/libibverbs.d/$p.driver
		copy_file "$drv" "$drv"
		for so in "$pdir"/lib"$p"-rdmav*.so; do
			copy_file "$so" "$so"
		done
	done
fi

install -m 755 "$here/guest/init" "$root/init"
install -m 644 "$here/guest/lib.sh" "$root/usr/lib/kdapl/lib.sh"
for i in ${test_names[@]+"${!test_names[@]}"}; do
	install -m 644 "${test_files[$i]}" "$root/tests/${test_names[$i]}.sh"
done

for d in ${mods[@]+"${mods[@]}"}; do
	[ -d "$d" ] || die "--mods $d: not a directory"
	found=0
	for ko in "$d"/*.ko; do
		[ -f "$ko" ] || continue
		install -m 644 "$ko" "$root/kdapl/"
		found=1
	done
	[ "$found" = 1 ] || echo "vm.sh: warning: no .ko in $d" >&2
done

# Distro kernel modules with their dependencies, decompressed if needed
# (busybox modprobe loads plain .ko only), then a fresh depmod.
boot_kmods=
if [ "$kernel" = distro ]; then
	src=/lib/modules/$distro_kver
	dst=$root/lib/modules/$distro_kver
	mkdir -p "$dst"
	for m in $distro_kmods; do
		# One module per call: later words would be taken as options.
		modprobe -S "$distro_kver" --show-depends "$m" ||
			die "distro module $m not found"
	done | awk '$1 == "insmod" { print $2 }' | sort -u |
	while read -r ko; do
		rel=${ko#*/modules/"$distro_kver"/}
		mkdir -p "$dst/$(dirname "$rel")"
		case $ko in
		*.ko) cp "$ko" "$dst/$rel" ;;
		*.ko.xz) xz -dc "$ko" >"$dst/${rel%.xz}" ;;
		*.ko.zst) zstd -qdc "$ko" >"$dst/${rel%.zst}" ;;
		*.ko.gz) gzip -dc "$ko" >"$dst/${rel%.gz}" ;;
		*) die "unexpected module file $ko" ;;
		esac
	done
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -f "$src/$f" ] || continue
		sed -E 's/\.ko\.(xz|zst|gz)$/.ko/' "$src/$f" >"$dst/$f"
	done
	depmod -b "$root" "$distro_kver"
	boot_kmods=$distro_boot_kmods
fi

cat >"$root/etc/kdapl-vm.conf" <<EOF
KDAPL_VM_KERNEL=$kernel
KDAPL_VM_MODE=$([ "$shell" = 1 ] && echo shell || echo tests)
KDAPL_VM_TESTS="${test_names[*]+${test_names[*]}}"
KDAPL_VM_TEST_TIMEOUT=$test_timeout
KDAPL_VM_NICS=$nics
KDAPL_VM_LEAK_SCAN=$leak_scan
KDAPL_VM_KMODS="$boot_kmods"
KDAPL_VM_PEER=$peer_id
KDAPL_VM_PEER_NIC=$([ -n "$peer_id" ] && echo "eth$nics")
EOF

initrd=$run/initramfs.cpio.gz
(cd "$root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$initrd"

# --- QEMU ------------------------------------------------------------------

# Keep the 20 newest logs of each kernel.
find "$out" -maxdepth 1 -name "$kernel-*-*.log" -printf '%T@ %p\n' |
	sort -rn | tail -n +20 | cut -d' ' -f2- |
	while read -r old; do
		rm -f "$old" "${old%.log}.aux"
	done

# kill_when_seen PID: once the console has the --kill-on text, SIGKILL
# the QEMU that PID (timeout) runs, and leave a flag saying so.
kill_when_seen() {
	local q
	while kill -0 "$1" 2>/dev/null && sleep 0.2; do
		grep -qF -- "$kill_on" "$log" || continue
		q=$(pgrep -P "$1" || true)
		[ -n "$q" ] || continue
		: >"$killed_flag"
		kill -KILL "$q"
		return 0
	done
}

stamp=$(date +%Y%m%d-%H%M%S)-$$
log=$out/$kernel-$stamp.log
aux=$out/$kernel-$stamp.aux
: >"$log"
: >"$aux"
ln -sfn "$(basename "$log")" "$out/$kernel-latest.log"

qemu=(qemu-system-x86_64 -m "$mem" -nographic -no-reboot)
if [ "$icount" = 1 ]; then
	# One vCPU: with two, icount's round robin never brings the
	# second one up.
	qemu+=(-smp 1 -accel tcg -icount shift=1,sleep=off)
elif [ "${KDAPL_VM_KVM:-0}" = 1 ]; then
	qemu+=(-smp 2 -enable-kvm -cpu qemu64)
else
	qemu+=(-smp 2 -accel tcg)
fi
qemu+=(-kernel "$bzimage" -initrd "$initrd")
# No "quiet" and no oops=panic: every report reaches the console and the
# run goes on; panic=-1 turns a panic into a reset, which ends QEMU.
# kunit.enable=1: this 6.1 kernel starts with KUnit disabled.
# log_buf_len: the KTAP of all suites must fit the kernel log, which
# allnoconfig makes 128 KiB.
cmdline="console=ttyS0 panic=-1 loglevel=7 printk.time=1 kunit.enable=1"
cmdline+=" log_buf_len=16M"
qemu+=(-append "$cmdline")
# ttyS0: console.  ttyS1: side channel for TAP lines and blocks.
if [ "$shell" = 1 ]; then
	qemu+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$log")
	qemu+=(-serial chardev:con -mon chardev=con,mode=readline)
elif [ "$quiet" = 1 ]; then
	qemu+=(-chardev "file,id=con,path=$log" -serial chardev:con)
	qemu+=(-monitor none)
else
	qemu+=(-chardev "stdio,id=con,signal=off,logfile=$log")
	qemu+=(-serial chardev:con -monitor none)
fi
qemu+=(-chardev "file,id=aux,path=$aux" -serial chardev:aux)
# User-mode NICs with restrict=on: the guest cannot reach anything outside.
# A link speed, or ib_core warns "speed is unknown" at every RoCE port
# query and floods the kernel log.
nic_speed="speed=10000,duplex=full"
qemu+=(-netdev user,id=n0,restrict=on -device "virtio-net-pci,netdev=n0,$nic_speed")
if [ "$nics" -ge 2 ]; then
	qemu+=(-netdev user,id=n1,restrict=on,net=10.0.3.0/24)
	qemu+=(-device "virtio-net-pci,netdev=n1,$nic_speed")
fi
label=$kernel
# The link of a two-host run: UDP datagrams between the two QEMUs on
# loopback, nothing else.  Each host its own MAC.
if [ -n "$peer_id" ]; then
	qemu+=(-netdev "socket,id=p0,udp=127.0.0.1:$peer_rport,localaddr=127.0.0.1:$peer_lport")
	qemu+=(-device "virtio-net-pci,netdev=p0,mac=52:54:00:09:00:0$peer_id,$nic_speed")
	label=$kernel-host$peer_id
fi

echo "vm.sh: kernel $kernel ($bzimage), log $log"
timed_out=0
killed=0
killed_flag=$run/killed
start=$SECONDS
if [ "$shell" = 1 ]; then
	"${qemu[@]}" || echo "vm.sh: QEMU exited with status $?"
elif [ -n "$kill_on" ]; then
	rc=0
	timeout --foreground -k 10 "$timeout" "${qemu[@]}" </dev/null &
	tpid=$!
	kill_when_seen "$tpid" &
	wpid=$!
	wait "$tpid" || rc=$?
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
	if [ -e "$killed_flag" ]; then
		killed=1
		echo "vm.sh: QEMU killed on '$kill_on' (--kill-on)"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		timed_out=1
		echo "vm.sh: VM killed after ${timeout}s (--timeout)"
	elif [ "$rc" != 0 ]; then
		echo "vm.sh: QEMU exited with status $rc"
	fi
else
	rc=0
	timeout --foreground -k 10 "$timeout" "${qemu[@]}" </dev/null || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		timed_out=1
		echo "vm.sh: VM killed after ${timeout}s (--timeout)"
	elif [ "$rc" != 0 ]; then
		echo "vm.sh: QEMU exited with status $rc"
	fi
fi
# SeaBIOS turns off line wrapping on the terminal: turn it back on.
if [ "$quiet" = 0 ] && [ -t 1 ]; then
	printf '\033[?7h'
fi
echo "vm.sh: VM ran $((SECONDS - start))s"

# --- results ---------------------------------------------------------------

# Console lines without CRs and kernel time stamps.
clean() {
	sed -E 's/\r+$//; s/^\[ *[0-9]+\.[0-9]+\] //' "$1"
}

npass=0
nfail=0
result() {
	local line="$1 $label/$2"
	echo "$line"
	if [ -n "$results" ]; then
		echo "$line" >>"$results"
	fi
	if [ "$1" = PASS ]; then
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
	fi
}

# Blocks: the console first, then the side channel, which wins for a tag
# found in both.
mkdir -p "$blocks"
extract_blocks() {
	clean "$1" | awk -v dir="$blocks" '
	/^KDAPL-BLOCK-BEGIN / {
		if (open) { close(f); print "vm.sh: block " tag ": no end" }
		raw = $2; tag = $2
		gsub(/[^A-Za-z0-9._-]/, "_", tag)
		f = dir "/" tag ".txt"
		printf "" > f
		open = 1
		next
	}
	open && $0 == "KDAPL-BLOCK-END " raw {
		close(f)
		open = 0
		print "vm.sh: block " tag " -> " f
		next
	}
	open { print > f }
	END { if (open) print "vm.sh: block " tag ": cut off (no end marker)" }'
}
extract_blocks "$log" | sort -u
extract_blocks "$aux" | sort -u

# TAP lines: "N STATUS NAME" from a channel.  Blocks are data (KUnit's
# KTAP has "ok N" lines of its own), not results.
tap_lines() {
	clean "$1" | awk '
	$1 == "KDAPL-BLOCK-BEGIN" { inblock = 1; next }
	$1 == "KDAPL-BLOCK-END" { inblock = 0; next }
	inblock { next }
	/^ok [0-9]+ / { print $2, (/ # SKIP/ ? "SKIP" : "PASS"), $3; next }
	/^not ok [0-9]+ / { print $3, "FAIL", $4, $0 }'
}
tap_aux=$(tap_lines "$aux")
tap_con=$(tap_lines "$log")

# reached_end: the guest printed its end marker.
reached_end=0
if clean "$log" | grep -x 'KDAPL-VM-END' >/dev/null ||
	clean "$aux" | grep -x 'KDAPL-VM-END' >/dev/null; then
	reached_end=1
fi

# test_output N: the console lines of test N.  The whole log is read: a
# reader that stopped early would kill clean with SIGPIPE, which
# pipefail and set -e turn into the end of this script.
test_output() {
	clean "$log" | awk -v n="$1" '
	$1 == "KDAPL-TEST-BEGIN" && $2 == n { on = 1; next }
	$1 == "KDAPL-TEST-END" && $2 == n { on = 0; next }
	on'
}

echo "vm.sh: results"
# In --shell mode the tests were only copied in: no result for them.
[ "$shell" = 0 ] || test_names=()
for i in ${test_names[@]+"${!test_names[@]}"}; do
	n=$((i + 1))
	name=${test_names[$i]}
	line=$(awk -v n="$n" '$1 == n { print; exit }' <<<"$tap_aux")
	if [ -z "$line" ]; then
		line=$(awk -v n="$n" '$1 == n { print; exit }' <<<"$tap_con")
	fi
	read -r _ st got rest <<<"$line" || true
	if [ -z "$line" ] && [ "$killed" = 1 ] &&
		test_output "$n" | grep -F -- "$kill_on" >/dev/null; then
		echo "# $label/$name: killed with its VM, as planned"
		result PASS "$name"
	elif [ -z "$line" ]; then
		if [ "$timed_out" = 1 ]; then
			echo "# $label/$name: not ok $n $name # timeout" \
				"(VM killed, no result)"
		else
			echo "# $label/$name: no result line (guest died?);" \
				"console tail:"
			test_output "$n" | tail -n 40 | sed 's/^/  | /'
		fi
		result FAIL "$name"
	elif [ "$got" != "$name" ]; then
		echo "# $label/$name: result line $n is for '$got'"
		result FAIL "$name"
	elif [ "$st" = FAIL ]; then
		echo "# $label/$name: $rest; its console output (tail):"
		test_output "$n" | tail -n 40 | sed 's/^/  | /'
		result FAIL "$name"
	else
		if [ "$st" = SKIP ]; then
			echo "# $label/$name: skipped"
		fi
		result PASS "$name"
	fi
done

# Kernel reports: each match starts a report, printed from the match for up
# to 60 lines or through its end line ("---[ end trace" or KASAN's "====").
scan_reports() {
	sed -E 's/\r+$//' "$1" | awk '
	BEGIN {
		pat = "BUG:|WARNING:|Oops|Kernel panic|general protection fault"
		pat = pat "|KASAN|UBSAN|possible circular locking"
		pat = pat "|possible recursive locking|inconsistent lock state"
		pat = pat "|suspicious RCU usage|unreferenced object"
		pat = pat "|suspected memory leak"
		pat = pat "|INFO: task .* blocked for more than|soft lockup"
		pat = pat "|hard LOCKUP"
		pat = pat "|sleeping function called from invalid context"
		pat = pat "|Call Trace:"
		maxshown = 10
	}
	# A guest test that makes allocations fail on purpose brackets the
	# run with these lines (written to /dev/kmsg); inside, the stack
	# dump of an allocation-failure warning is expected.  Every other
	# report still counts there.
	/KDAPL-FAULTS-EXPECTED-BEGIN/ { faults = 1 }
	/KDAPL-FAULTS-EXPECTED-END/ { faults = 0 }
	faults && /vmalloc error:|page allocation failure:/ {
		alloc_warn = NR
		next
	}
	quiet {
		if ($0 ~ /<\/TASK>/)
			quiet = 0
		next
	}
	left > 0 {
		if (n <= maxshown)
			print "  | " $0
		left--
		# Oops/WARN splats and KASAN reports have end lines.
		if ($0 ~ /---\[ end trace/ || $0 ~ /^========================================+$/)
			left = 0
		next
	}
	alloc_warn && NR - alloc_warn <= 4 && /Call Trace:/ {
		alloc_warn = 0
		quiet = 1
		next
	}
	$0 ~ pat {
		n++
		if (n <= maxshown) {
			print "---- kernel report " n " (log line " NR ") ----"
			print "  | " $0
		}
		left = 60
	}
	END {
		if (n > maxshown)
			print "---- " n - maxshown " more not shown ----"
		exit n > 0
	}'
}

if reports=$(scan_reports "$log"); then
	result PASS sanitizers
else
	echo "$reports"
	result FAIL sanitizers
fi

if [ "$reached_end" = 1 ] || [ "$killed" = 1 ]; then
	result PASS guest-exit
else
	echo "# $label/guest-exit: KDAPL-VM-END not reached; console tail:"
	tail -n 40 "$log" | sed -E 's/\r+$//; s/^/  | /'
	result FAIL guest-exit
fi

echo "vm.sh: log $log"
echo "vm: $npass passed, $nfail failed"
if [ "$expect_fail" = 1 ]; then
	if [ "$nfail" -gt 0 ]; then
		echo "vm.sh: --expect-fail: a failure was reported, as wanted"
		exit 0
	fi
	echo "vm.sh: --expect-fail: no failure reported"
	exit 1
fi
[ "$nfail" = 0 ]
