/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kDAT: the DAT 2.0 kernel API provided by kdapl.ko.
 *
 * In-kernel consumers include this header and call the exported
 * functions.  See Documentation/index.rst for the object model and the
 * context rules of every call.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _RDMA_KDAT_H
#define _RDMA_KDAT_H

#include <linux/types.h>

/*
 * Longest Interface Adapter name, terminating NUL included: an RDMA
 * device name (IB_DEVICE_NAME_MAX), a port number and a net_device name
 * (IFNAMSIZ), with their separators.
 */
#define KDAPL_IA_NAME_MAX	96

struct kdapl_adapter;

struct kdapl_adapter *kdapl_adapter_get(const char *name);
void kdapl_adapter_put(struct kdapl_adapter *adapter);
int kdapl_adapter_name(struct kdapl_adapter *adapter, char *buf, size_t size);
bool kdapl_adapter_present(struct kdapl_adapter *adapter);

#endif /* _RDMA_KDAT_H */
