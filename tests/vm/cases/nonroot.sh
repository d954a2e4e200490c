# SPDX-License-Identifier: GPL-2.0
#
# /dev/kdapl for users other than root, as the packages set it up: the
# package's udev rule, applied by Debian's systemd-udevd started here,
# gives the node to group rdma with mode 0660.  A user outside the group
# cannot open it; a user in the group runs the README's udat_hello, and
# dtest client and server, over udapl-shim;
# the same user with a small RLIMIT_MEMLOCK is refused the registration
# cleanly, and nothing is left.

. /usr/lib/kdapl/lib.sh

RDMA_GID=990
INSIDE=1000
OUTSIDE=1001

# as UID GIDS LIMIT_KB COMMAND...: run a command as that user, with
# RLIMIT_MEMLOCK at LIMIT_KB.
as() {
	_u=$1 _g=$2 _l=$3
	shift 3
	asuser "$_u" "$_g" sh -c "ulimit -l $_l && exec \"\$@\"" sh "$@"
}

# udev: the rule names the group, which must exist when udevd reads it.
grep -q '^rdma:' /etc/group 2>/dev/null || echo "rdma:x:$RDMA_GID:" >>/etc/group
mkdir -p /etc/udev/rules.d /run/udev
cp /usr/lib/kdapl/60-kdapl.rules /etc/udev/rules.d/
ln -sf "$(command -v udevadm)" /tmp/systemd-udevd
check /tmp/systemd-udevd --daemon

kdapl_load
rdma_add rxe
check udevadm trigger --action=add --settle /sys/class/misc/kdapl
expect_eq "$(stat -c %g:%a /dev/kdapl)" "$RDMA_GID:660" "/dev/kdapl after udev"
conf=/tmp/nonroot-dat.conf
dat_conf "$conf"
chmod 0644 "$conf"

info "outside group rdma: no access"
if as "$OUTSIDE" "$OUTSIDE" 65536 sh -c 'exec 3<>/dev/kdapl'; then
	die "uid $OUTSIDE opened /dev/kdapl"
fi

info "in group rdma: the README's uDAPL program"
check as "$INSIDE" "$INSIDE,$RDMA_GID" 65536 udat_hello rxe0-1
as "$INSIDE" "$INSIDE,$RDMA_GID" 65536 udat_hello rxe0-1 |
	grep -q '^rxe0-1: provider rxe0-1, adapter rxe0-1-eth0, address 10\.0\.2\.15$' ||
	die "udat_hello: $(as "$INSIDE" "$INSIDE,$RDMA_GID" 65536 udat_hello rxe0-1)"

info "in group rdma: dtest over udapl-shim"
as "$INSIDE" "$INSIDE,$RDMA_GID" 65536 \
	dtest -P rxe0-1 -s -B 20 -b 65536 >/tmp/nr-s.log 2>&1 &
srv=$!
sleep 1
as "$INSIDE" "$INSIDE,$RDMA_GID" 65536 \
	dtest -P rxe0-1 -h 10.0.2.15 -B 20 -b 65536 >/tmp/nr-c.log 2>&1
rc=$?
wait "$srv"
src=$?
if [ "$rc" != 0 ] || [ "$src" != 0 ] ||
   ! grep -q "Test Complete. PASSED" /tmp/nr-c.log; then
	tail -n 20 /tmp/nr-c.log /tmp/nr-s.log
	die "dtest as uid $INSIDE: client $rc, server $src"
fi

info "in group rdma, RLIMIT_MEMLOCK 64 KiB: registration refused"
as "$INSIDE" "$INSIDE,$RDMA_GID" 64 \
	timeout 60 dtest -P rxe0-1 -s -B 20 -b 1048576 >/tmp/nr-l.log 2>&1
tail -n 5 /tmp/nr-l.log
# dtest's own exit status does not always say; its words do.
grep -q 'INSUFFICIENT_RESOURCES' /tmp/nr-l.log ||
	die "dtest under a 64 KiB limit did not fail for lack of resources"

# Everything the users had is gone.
check kdapl_nothing_left 20
rdma_del rxe0
kdapl_unload
udevadm control --exit
