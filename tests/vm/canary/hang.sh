#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bench self-test: a guest test that never ends; the guest per-test
# timeout or the host --timeout must end it.

. /usr/lib/kdapl/lib.sh

info "hang: sleeping forever"
while :; do
	sleep 60
done
