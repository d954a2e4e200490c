# SPDX-License-Identifier: GPL-2.0
#
# udapl-shim through Debian's libdat2: a dat.conf line names
# libdaplkdapl.so.2 for the IA, DAT_OVERRIDE points libdat2 at it, and
# tests/user/shim/shim_test opens, queries and closes IAs and uses PZs and
# EVDs through the DAT API; tests/user/shim/shim_rmr binds RMRs and moves
# data through them, tests/user/shim/shim_ibext uses the IB extensions
# (which siw refuses) and tests/user/shim/shim_ud datagram EPs (which siw
# has none of), on rxe and (debug kernel) on siw.
# Afterwards the module must unload.

. /usr/lib/kdapl/lib.sh

kdapl_load
rdma_add rxe
conf=/tmp/kdapl-dat.conf
echo 'rxe0-1 u2.0 nonthreadsafe default /usr/lib/kdapl/libdaplkdapl.so.2 dapl.2.0 "rxe0-1" ""' >"$conf"
[ -r /usr/lib/kdapl/libdaplkdapl.so.2 ] || die "no libdaplkdapl.so.2 in the guest"
check env DAT_OVERRIDE="$conf" shim_test rxe0-1
dat_conf "$conf"
check shim_rmr rxe0-1
check shim_ibext rxe0-1
check shim_ud rxe0-1
if kernel_is_debug; then
	rdma_add siw
	check shim_rmr siw0-1
	check shim_ibext siw0-1
	check shim_ud siw0-1
	rdma_del siw0
fi
kdapl_nothing_left 20 || die "objects left"
rdma_del rxe0
kdapl_unload
