// SPDX-License-Identifier: GPL-2.0
/*
 * failmalloc.so: make one allocation of udapl-shim fail, for
 * shim_failnth (LD_PRELOAD).
 *
 * Interposes calloc() and mmap().  Once armed with failmalloc_arm(n),
 * the n-th call made from libdaplkdapl.so (the caller's return address
 * is in a segment of that library) fails as the system would: NULL with ENOMEM, or
 * MAP_FAILED with ENOMEM.  Calls from anywhere else, libdat2 and the
 * program included, always go through.  failmalloc_fired() says whether
 * the failure happened.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#define _GNU_SOURCE
#include <link.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "failmalloc.h"

void *__libc_calloc(size_t n, size_t size);

static int countdown;
static bool fired;

/**
 * failmalloc_arm() - fail the @n-th allocation of the shim from now
 * @n: from 1; 0 disarms (and keeps what failmalloc_fired() says)
 *
 * Return: 0.
 */
int failmalloc_arm(int n)
{
	countdown = n;
	if (n)
		fired = false;
	return 0;
}

/**
 * failmalloc_fired() - did the armed failure happen?
 *
 * Return: true once the allocation chosen by failmalloc_arm() failed.
 */
bool failmalloc_fired(void)
{
	return fired;
}

/* dl_iterate_phdr(): 1 if *@data lies in a segment of udapl-shim. */
static int in_shim(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t addr = *(uintptr_t *)data, start;
	int i;

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libdaplkdapl.so"))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
		if (info->dlpi_phdr[i].p_type == PT_LOAD && addr >= start &&
		    addr - start < info->dlpi_phdr[i].p_memsz)
			return 1;
	}
	return 0;
}

/* Is the code at @addr in udapl-shim?  Nothing here allocates. */
static bool from_shim(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;

	return dl_iterate_phdr(in_shim, &a) == 1;
}

/* Is this allocation, by @caller, the one to fail? */
static bool fail_now(const void *caller)
{
	if (countdown <= 0 || !from_shim(caller))
		return false;
	if (--countdown)
		return false;
	fired = true;
	errno = ENOMEM;
	return true;
}

void *calloc(size_t n, size_t size)
{
	if (fail_now(__builtin_return_address(0)))
		return NULL;
	return __libc_calloc(n, size);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long ret;

	if (fail_now(__builtin_return_address(0)))
		return MAP_FAILED;
	ret = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return ret == -1 ? MAP_FAILED : (void *)ret;
}
