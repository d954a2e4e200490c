#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bench self-test: load canary_leak.ko (tests/vm/canary), which leaks a
# buffer: the kmemleak scan at the end of the run reports it.  The test
# itself passes; the bench's sanitizers result must fail.  Needs
# "vm.sh --mods DIR" with the built canaries, as tests/vm/selftest.sh does.

. /usr/lib/kdapl/lib.sh

kernel_is_debug || skip "canary_leak needs the debug kernel"
kmod_load canary_leak
kmod_unload canary_leak
