# SPDX-License-Identifier: GPL-2.0
#
# Devices come and go while kdapl loads and unloads.  ib_core serialises
# client registration against device registration; this checks that
# nothing leaks or trips the sanitizers, and that the final list is right.

. /usr/lib/kdapl/lib.sh

IAS=/sys/kernel/debug/kdapl/ias
ROUNDS=15

rdma_core_load
rdma_add rxe
rdma_del rxe0

(
	i=0
	while [ $i -lt $ROUNDS ]; do
		rdma link add rxe0 type rxe netdev eth0 || exit 1
		rdma link delete rxe0 || exit 1
		i=$((i + 1))
	done
) &
churn=$!

i=0
while [ $i -lt $ROUNDS ]; do
	check insmod /kdapl/kdapl.ko
	cat "$IAS" >/dev/null || die "cannot read $IAS"
	check rmmod kdapl
	i=$((i + 1))
done

wait $churn || die "device churn failed"

info "steady state after the churn"
kdapl_load
rdma_add rxe
expect_eq "$(cat "$IAS")" "rxe0-1-eth0 rxe0 1 roce eth0" "adapter list"
rdma_del rxe0
expect_eq "$(cat "$IAS")" "" "adapter list"
kdapl_unload
exit 0
