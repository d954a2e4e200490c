# SPDX-License-Identifier: GPL-2.0
#
# Hostile and failing peers (tests/user/shim/shim_hostile): stale, made-up
# and out-of-range rmr_contexts, a send larger than the receive, and a
# peer killed in the middle of a stream of writes, each against a victim
# buffer between poisoned guard pages.  Each breaks only its own
# connection, writes nothing outside what was bound, and leaves nothing
# in kdapl.  On rxe, and on siw on the debug kernel.

. /usr/lib/kdapl/lib.sh

kdapl_load
dat_conf /tmp/kdapl-dat.conf
rdma_add rxe
check shim_hostile rxe0-1
if kernel_is_debug; then
	rdma_add siw
	check shim_hostile siw0-1
	rdma_del siw0
fi
kdapl_nothing_left 20 || die "objects left"
rdma_del rxe0
kdapl_unload
