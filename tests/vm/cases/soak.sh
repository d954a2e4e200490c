# SPDX-License-Identifier: GPL-2.0
#
# Soak (tests/user/shim/shim_soak): processes with many connected EPs
# each move verified messages through udapl-shim; each process's resident
# size, the kernel's unreclaimable slab and the pages kdapl pins must be
# as large near the end as a fifth of the way in (within a small slack;
# the slab on the distro kernel only), and nothing is left afterwards.  make check runs it for 30 s (20 s
# under KASAN); /etc/kdapl-soak.conf may set PROCS, EPS and
# SOAK_SECONDS (make stress: 8 processes of 32 EPs for ten minutes).

. /usr/lib/kdapl/lib.sh

PROCS=4
EPS=16
SOAK_SECONDS=30
# Growth of the unreclaimable slab allowed, in kB.  KASAN's quarantine
# holds freed objects in the slab for a while, so under the debug kernel
# the figure is only printed: kmemleak looks for leaks there.
SLAB_KB=4096
if kernel_is_debug; then
	SOAK_SECONDS=20
	SLAB_KB=0
fi
[ -r /etc/kdapl-soak.conf ] && . /etc/kdapl-soak.conf

kdapl_load
dat_conf /tmp/kdapl-dat.conf
rdma_add rxe
check shim_soak rxe0-1 "$PROCS" "$EPS" "$SOAK_SECONDS" "$SLAB_KB"
kdapl_nothing_left 20 || die "objects left"
rdma_del rxe0
kdapl_unload
