# SPDX-License-Identifier: GPL-2.0
#
# Soak (tests/user/shim/shim_soak): processes with many connected EPs
# each move verified messages through udapl-shim; each process's resident
# size, the kernel's unreclaimable slab and the pages kdapl pins must be
# as large at the end as a fifth of the way in (within a small slack),
# and nothing is left afterwards.  make check runs it for 30 s (20 s
# under KASAN); /etc/kdapl-soak.conf may set PROCS, EPS, SOAK_SECONDS and
# SLAB_KB (make stress: 8 processes of 32 EPs for ten minutes).

. /usr/lib/kdapl/lib.sh

PROCS=4
EPS=16
SOAK_SECONDS=30
# Growth of the unreclaimable slab allowed, in kB.  shim_soak shrinks
# every cache before it reads the figure, which also empties KASAN's
# quarantine: under the debug kernel freed objects would otherwise stay
# counted (up to 1/32 of memory, over partly used slabs).
SLAB_KB=4096
kernel_is_debug && SOAK_SECONDS=20
[ -r /etc/kdapl-soak.conf ] && . /etc/kdapl-soak.conf

kdapl_load
dat_conf /tmp/kdapl-dat.conf
rdma_add rxe
check shim_soak rxe0-1 "$PROCS" "$EPS" "$SOAK_SECONDS" "$SLAB_KB"
kdapl_nothing_left 20 || die "objects left"
rdma_del rxe0
kdapl_unload
