/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl internal definitions shared by the files of the module.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _KDAPL_H
#define _KDAPL_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/kdat.h>

struct seq_file;

/**
 * enum kdapl_transport - how a port reaches its peers
 * @KDAPL_TRANSPORT_IB: native InfiniBand
 * @KDAPL_TRANSPORT_ROCE: RDMA over Converged Ethernet (e.g. rdma_rxe)
 * @KDAPL_TRANSPORT_IWARP: iWARP over TCP (e.g. siw)
 */
enum kdapl_transport {
	KDAPL_TRANSPORT_IB,
	KDAPL_TRANSPORT_ROCE,
	KDAPL_TRANSPORT_IWARP,
};

/**
 * struct kdapl_adapter - an Interface Adapter: one port of an RDMA device
 * @ref: references; the registry holds one while the adapter is listed
 * @entry: link in &kdapl_registry.adapters, under its lock
 * @ibdev: the device, or NULL once ib_core removed it (under the lock)
 * @port: port number on @ibdev, from 1
 * @transport: transport of the port
 * @ibdev_name: name of @ibdev, kept current by the rename upcall
 * @netdev_name: the port's net_device for RoCE and iWARP, else empty
 * @name: the adapter name consumers open, see kdapl_adapter_format_name()
 *
 * Names are written only under the registry lock; readers copy them out
 * under the same lock.
 */
struct kdapl_adapter {
	struct kref ref;
	struct list_head entry;
	struct ib_device *ibdev;
	u32 port;
	enum kdapl_transport transport;
	char ibdev_name[IB_DEVICE_NAME_MAX];
	char netdev_name[IFNAMSIZ];
	char name[KDAPL_IA_NAME_MAX];
};

/**
 * struct kdapl_registry - the adapters the module knows about
 * @lock: protects @adapters and the names and @ibdev of listed adapters
 * @adapters: listed adapters, in the order their devices arrived
 */
struct kdapl_registry {
	struct mutex lock;	/* see above */
	struct list_head adapters;
};

extern struct kdapl_registry kdapl_registry;

const char *kdapl_transport_name(enum kdapl_transport transport);
int kdapl_adapter_format_name(char *buf, size_t size, const char *ibdev_name,
			      u32 port, const char *ndev_name);
struct kdapl_adapter *kdapl_adapter_create(const char *ibdev_name, u32 port,
					   const char *ndev_name,
					   enum kdapl_transport transport);
bool kdapl_adapter_matches(const struct kdapl_adapter *adapter,
			   const char *name);
int kdapl_registry_add(struct kdapl_registry *reg,
		       struct kdapl_adapter *adapter, struct ib_device *ibdev);
void kdapl_registry_del(struct kdapl_registry *reg,
			struct kdapl_adapter *adapter);
struct kdapl_adapter *kdapl_registry_lookup(struct kdapl_registry *reg,
					    const char *name);
int kdapl_registry_rename(struct kdapl_registry *reg,
			  struct kdapl_adapter *adapter,
			  const char *ibdev_name);
unsigned int kdapl_registry_count(struct kdapl_registry *reg);
void kdapl_registry_show(struct kdapl_registry *reg, struct seq_file *m);

int kdapl_device_init(void);
void kdapl_device_exit(void);

#endif /* _KDAPL_H */
