/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel's <linux/in6.h>: struct sockaddr_in6
 * comes from the C library.
 */
#ifndef DAT_CONSTANTS_STUB_LINUX_IN6_H
#define DAT_CONSTANTS_STUB_LINUX_IN6_H

#include <netinet/in.h>

#endif
