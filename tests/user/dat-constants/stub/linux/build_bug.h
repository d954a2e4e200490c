/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel's <linux/build_bug.h>, so that
 * include/rdma/kdat_ib_extensions.h can be compiled by the dat-constants
 * test: static_assert() with the kernel's optional message.
 */
#ifndef DAT_CONSTANTS_STUB_LINUX_BUILD_BUG_H
#define DAT_CONSTANTS_STUB_LINUX_BUILD_BUG_H

#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#endif /* DAT_CONSTANTS_STUB_LINUX_BUILD_BUG_H */
