// SPDX-License-Identifier: GPL-2.0
/*
 * ib_core client: turns the ports of RDMA devices into Interface Adapters.
 *
 * ib_core calls the add, remove and rename upcalls of a client one at a
 * time per device, from process context, and calls add for devices that
 * exist when the client registers and remove for all of them when it
 * unregisters.  That covers devices coming and going while the module
 * loads or unloads: nothing here races with ib_register_client() or
 * ib_unregister_client().
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

/**
 * struct kdapl_device - what kdapl keeps per RDMA device
 * @ibdev: the device
 * @nports: number of entries in @adapters
 * @adapters: the adapter of each port (index port - first port), NULL
 *	for a port that cannot run the connection manager
 */
struct kdapl_device {
	struct ib_device *ibdev;
	unsigned int nports;
	struct kdapl_adapter *adapters[];
};

static struct ib_client kdapl_ib_client;

static bool kdapl_port_usable(struct ib_device *ibdev, u32 port)
{
	return rdma_cap_ib_cm(ibdev, port) || rdma_cap_iw_cm(ibdev, port);
}

static enum kdapl_transport kdapl_port_transport(struct ib_device *ibdev,
						 u32 port)
{
	if (rdma_protocol_iwarp(ibdev, port))
		return KDAPL_TRANSPORT_IWARP;
	if (rdma_protocol_roce(ibdev, port))
		return KDAPL_TRANSPORT_ROCE;
	return KDAPL_TRANSPORT_IB;
}

static void kdapl_device_free(struct kdapl_device *kdev)
{
	unsigned int i;

	for (i = 0; i < kdev->nports; i++) {
		if (!kdev->adapters[i])
			continue;
		kdapl_sysfs_del(kdev->adapters[i]);
		kdapl_ia_detach_adapter(kdev->adapters[i]);
		kdapl_registry_del(&kdapl_registry, kdev->adapters[i]);
	}
	kfree(kdev);
}

/*
 * The net_device of a RoCE port is the one of its default GID.  iWARP
 * ports have no GID table with net_devices; ib_core only maps them the
 * other way, net_device to RDMA device, which says nothing of the port,
 * so the name is only looked up for single-port iWARP devices.
 */
static void kdapl_port_netdev_name(struct ib_device *ibdev, u32 port,
				   enum kdapl_transport transport, char *buf)
{
	const struct ib_gid_attr *attr;
	struct ib_device *owner;
	struct net_device *ndev;

	buf[0] = '\0';
	if (transport == KDAPL_TRANSPORT_ROCE) {
		attr = rdma_get_gid_attr(ibdev, port, 0);
		if (IS_ERR(attr))
			return;
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(attr);
		if (!IS_ERR(ndev))
			strscpy(buf, ndev->name, IFNAMSIZ);
		rcu_read_unlock();
		rdma_put_gid_attr(attr);
		return;
	}

	if (transport != KDAPL_TRANSPORT_IWARP ||
	    rdma_start_port(ibdev) != rdma_end_port(ibdev))
		return;
	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev) {
		owner = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
		if (!owner)
			continue;
		ib_device_put(owner);
		if (owner == ibdev) {
			strscpy(buf, ndev->name, IFNAMSIZ);
			break;
		}
	}
	rcu_read_unlock();
}

static int kdapl_add_port(struct kdapl_device *kdev, u32 port)
{
	struct ib_device *ibdev = kdev->ibdev;
	struct kdapl_adapter *adapter;
	enum kdapl_transport transport;
	char ndev_name[IFNAMSIZ];
	int ret;

	transport = kdapl_port_transport(ibdev, port);
	kdapl_port_netdev_name(ibdev, port, transport, ndev_name);

	adapter = kdapl_adapter_create(dev_name(&ibdev->dev), port,
				       ndev_name, transport);
	if (IS_ERR(adapter))
		return PTR_ERR(adapter);

	ret = kdapl_registry_add(&kdapl_registry, adapter, ibdev);
	if (ret) {
		kdapl_adapter_put(adapter);
		return ret;
	}
	kdev->adapters[port - rdma_start_port(ibdev)] = adapter;
	kdapl_sysfs_add(adapter, ibdev);
	return 0;
}

static int kdapl_add_one(struct ib_device *ibdev)
{
	struct kdapl_device *kdev;
	unsigned int nports;
	bool any = false;
	u32 port;
	int ret;

	nports = rdma_end_port(ibdev) - rdma_start_port(ibdev) + 1;
	kdev = kzalloc(struct_size(kdev, adapters, nports), GFP_KERNEL);
	if (!kdev)
		return -ENOMEM;
	kdev->ibdev = ibdev;
	kdev->nports = nports;

	rdma_for_each_port(ibdev, port) {
		if (!kdapl_port_usable(ibdev, port))
			continue;
		ret = kdapl_add_port(kdev, port);
		if (ret) {
			dev_warn(&ibdev->dev,
				 "kdapl: no Interface Adapter for port %u: %d\n",
				 port, ret);
			continue;
		}
		any = true;
	}

	if (!any) {
		kfree(kdev);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ibdev, &kdapl_ib_client, kdev);
	return 0;
}

static void kdapl_remove_one(struct ib_device *ibdev, void *client_data)
{
	kdapl_device_free(client_data);
}

static void kdapl_rename_one(struct ib_device *ibdev, void *client_data)
{
	struct kdapl_device *kdev = client_data;
	unsigned int i;

	for (i = 0; i < kdev->nports; i++) {
		if (!kdev->adapters[i])
			continue;
		if (kdapl_registry_rename(&kdapl_registry, kdev->adapters[i],
					  dev_name(&ibdev->dev)))
			dev_warn(&ibdev->dev,
				 "kdapl: adapter of port %u keeps its old name\n",
				 i + rdma_start_port(ibdev));
		else
			kdapl_sysfs_rename(kdev->adapters[i]);
	}
}

static struct ib_client kdapl_ib_client = {
	.name = "kdapl",
	.add = kdapl_add_one,
	.remove = kdapl_remove_one,
	.rename = kdapl_rename_one,
};

/**
 * kdapl_device_init() - hear of RDMA devices: an adapter per port
 *
 * Context: process context, at module load.
 * Return: 0 or the error of ib_register_client().
 */
int kdapl_device_init(void)
{
	return ib_register_client(&kdapl_ib_client);
}

/**
 * kdapl_device_exit() - stop hearing of RDMA devices
 *
 * Context: process context, at module unload; every device is removed
 * from kdapl as ib_core unregisters the client.
 */
void kdapl_device_exit(void)
{
	ib_unregister_client(&kdapl_ib_client);
}
