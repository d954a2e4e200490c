#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bench self-test: a guest test that fails; the bench must report FAIL.

. /usr/lib/kdapl/lib.sh

check test -e /nonexistent-on-purpose
