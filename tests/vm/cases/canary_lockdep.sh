#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bench self-test: load canary_lockdep.ko (tests/vm/canary), which causes
# a lockdep circular locking report.  The test itself passes; the bench's
# sanitizers result must fail.  Needs "vm.sh --mods DIR" with the built
# canaries, as tests/vm/selftest.sh does.

. /usr/lib/kdapl/lib.sh

kernel_is_debug || skip "canary_lockdep needs the debug kernel"
kmod_load canary_lockdep
kmod_unload canary_lockdep
