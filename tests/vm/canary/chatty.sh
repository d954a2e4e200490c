#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Bench self-test: a guest test that passes after printing more than a
# pipe holds (100 KiB), as the debug kernel's cases do.  The results of
# the tests before it and of itself must all be read.

i=0
while [ "$i" -lt 1600 ]; do
	echo "canary_chatty: line $i of the output that fills the console log"
	i=$((i + 1))
done
