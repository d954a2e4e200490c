/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel's <linux/socket.h>: struct sockaddr,
 * struct sockaddr_storage, AF_INET and AF_INET6 come from the C library.
 */
#ifndef DAT_CONSTANTS_STUB_LINUX_SOCKET_H
#define DAT_CONSTANTS_STUB_LINUX_SOCKET_H

#include <sys/socket.h>

#endif
