/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel's <linux/types.h>, so that
 * include/rdma/kdat_types.h can be compiled by the dat-constants test.
 * Only the names that header uses are provided, with the kernel's
 * definitions for x86-64.
 */
#ifndef DAT_CONSTANTS_STUB_LINUX_TYPES_H
#define DAT_CONSTANTS_STUB_LINUX_TYPES_H

#include <stddef.h>
#include <stdint.h>	/* uintptr_t */

typedef unsigned char		u8;
typedef unsigned short		u16;
typedef unsigned int		u32;
typedef unsigned long long	u64;
typedef signed char		s8;
typedef short			s16;
typedef int			s32;
typedef long long		s64;

#endif
