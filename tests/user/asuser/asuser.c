// SPDX-License-Identifier: GPL-2.0
/*
 * asuser: run a command as another user, for the VM tests of non-root
 * use (the guest's busybox has no su for numeric ids without a passwd
 * file).
 *
 *   asuser UID GID[,GID...] COMMAND [ARG...]
 *
 * The first GID is the primary group, all of them the supplementary
 * groups.  Every capability goes with the switch to a non-zero uid.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_GROUPS	16

int main(int argc, char **argv)
{
	gid_t groups[MAX_GROUPS];
	char *list, *tok, *save = NULL;
	int n = 0;
	uid_t uid;

	if (argc < 4) {
		fprintf(stderr, "usage: asuser UID GID[,GID...] COMMAND [ARG...]\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	list = argv[2];
	for (tok = strtok_r(list, ",", &save); tok && n < MAX_GROUPS;
	     tok = strtok_r(NULL, ",", &save))
		groups[n++] = strtoul(tok, NULL, 10);
	if (!n || setgroups(n, groups) || setresgid(groups[0], groups[0],
						    groups[0]) ||
	    setresuid(uid, uid, uid)) {
		perror("asuser");
		return 125;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
