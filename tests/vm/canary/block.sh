#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bench self-test: blocks reach the host, once through emit_block (side
# channel) and once printed straight to the console.

. /usr/lib/kdapl/lib.sh

printf 'KTAP version 1\n1..1\nok 1 canary_block\n' >/tmp/ktap
emit_block canary_aux /tmp/ktap

echo "KDAPL-BLOCK-BEGIN canary_console"
echo "line one"
echo "line two"
echo "KDAPL-BLOCK-END canary_console"
