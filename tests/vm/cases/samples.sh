# SPDX-License-Identifier: GPL-2.0
#
# The README's first steps work as written: samples/kdat_hello, a kDAT
# consumer built out of tree against this tree's Module.symvers, loads,
# reports the IA's address and its registration, and refuses to load on
# an IA that does not exist; samples/udat_hello does the same from user
# space through dat.conf (nonroot.sh runs it as a user of group rdma).

. /usr/lib/kdapl/lib.sh

kdapl_load
rdma_add rxe
dmesg -c >/dev/null
check insmod /kdapl/kdat_hello.ko ia=rxe0-1
dmesg | grep -q 'kdat_hello: rxe0-1 (rxe0-1-eth0) at 10\.0\.2\.15$' ||
	die "kdat_hello: $(dmesg | grep kdat_hello)"
dmesg | grep -q 'kdat_hello: 4096 bytes registered, lmr_context 0x' ||
	die "kdat_hello registered nothing: $(dmesg | grep kdat_hello)"
kmod_unload kdat_hello
if insmod /kdapl/kdat_hello.ko ia=nosuch 2>/dev/null; then
	die "kdat_hello loaded on an IA that does not exist"
fi

dat_conf /tmp/samples-dat.conf
check udat_hello rxe0-1
udat_hello nosuch 2>/tmp/samples.err && die "udat_hello opened nosuch"
grep -q 'udat_hello: dat_ia_open: 0x' /tmp/samples.err ||
	die "udat_hello: $(cat /tmp/samples.err)"
# In dat.conf, but an IA kdapl does not have: the shim's own answer,
# DAT_PROVIDER_NOT_FOUND with DAT_NAME_NOT_REGISTERED (shim.rst).
echo 'nosuch0-1 u2.0 nonthreadsafe default /usr/lib/kdapl/libdaplkdapl.so.2 dapl.2.0 "nosuch0-1" ""' \
	>>/tmp/samples-dat.conf
udat_hello nosuch0-1 2>/tmp/samples.err && die "udat_hello opened nosuch0-1"
expect_eq "$(cat /tmp/samples.err)" "udat_hello: dat_ia_open: 0x800a0064" \
	"an IA kdapl does not have"
kdapl_nothing_left 10 || die "objects left"
rdma_del rxe0
kdapl_unload
