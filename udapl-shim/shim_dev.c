// SPDX-License-Identifier: GPL-2.0
/*
 * The device: opening /dev/kdapl with the ABI handshake, and one ioctl
 * with its outcome as a DAT_RETURN.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "shim.h"

/**
 * shim_dev_errno() - the DAT_RETURN of a failed system call
 * @err: its errno
 *
 * Return: the DAT error that says the same to the consumer.
 */
DAT_RETURN shim_dev_errno(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return SHIM_ERR(DAT_PROVIDER_NOT_FOUND,
				 DAT_NAME_NOT_REGISTERED);
	case EACCES:
	case EPERM:
		return SHIM_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE);
	case ENOMEM:
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	case EINTR:
		return SHIM_ERR(DAT_INTERRUPTED_CALL, DAT_NO_SUBTYPE);
	case ENOTTY:
		/* A command of a newer ABI than the module's. */
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	default:
		return SHIM_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	}
}

/**
 * shim_dev_call() - one ioctl of /dev/kdapl
 * @fd: the file
 * @cmd: KDAPL_IOC_*
 * @arg: the argument structure, starting with struct kdapl_ioc_head
 * @size: its size
 *
 * Return: the DAT_RETURN the kernel gave, or the DAT error of the failed
 * system call.
 */
DAT_RETURN shim_dev_call(int fd, unsigned long cmd, void *arg, size_t size)
{
	struct kdapl_ioc_head *head = arg;

	head->size = size;
	head->status = 0;
	if (ioctl(fd, cmd, arg))
		return shim_dev_errno(errno);
	return head->status;
}

/**
 * shim_dev_open() - open /dev/kdapl and agree on the ABI
 * @max_command: out: how many commands the module knows (0 from a module
 *	older than that field)
 *
 * A module that speaks another ABI is reported on stderr (the kernel log
 * says which version it speaks).
 *
 * Return: the file, or -1 with errno set.
 */
int shim_dev_open(__u32 *max_command)
{
	struct kdapl_ioc_hello hello = { .abi_version = KDAPL_ABI_VERSION };
	int fd, err;

	fd = open("/dev/" KDAPL_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	hello.head.size = sizeof(hello);
	if (ioctl(fd, KDAPL_IOC_HELLO, &hello) == 0 &&
	    hello.head.status == DAT_SUCCESS) {
		*max_command = hello.max_command;
		return fd;
	}
	err = errno;
	if (err == EPROTONOSUPPORT)
		fprintf(stderr,
			"libdaplkdapl: /dev/%s does not speak ABI %u: the kdapl module and this library differ (see the kernel log)\n",
			KDAPL_DEVICE_NAME, KDAPL_ABI_VERSION);
	close(fd);
	errno = err;
	return -1;
}
