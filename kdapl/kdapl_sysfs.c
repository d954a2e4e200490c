// SPDX-License-Identifier: GPL-2.0
/*
 * The Interface Adapters in sysfs: a class device per adapter,
 * /sys/class/kdapl/<IA name>, child of the RDMA device of its port, with
 * one read-only attribute per fact:
 *
 *   ibdev      the RDMA device
 *   port       the port number
 *   netdev     its net_device (RoCE, iWARP), empty if it has none
 *   address    the IPv4 address consumers reach it at, empty if none
 *   transport  ib, roce or iwarp
 *   state      the port's state: down, init, armed, active, active_defer
 *   ias        IAs open on it, by kernel consumers and processes
 *
 * The device's name is the adapter's name, the one dat_ia_open() and
 * dat.conf take; a rename of the RDMA device renames it.  debugfs keeps
 * what only matters for debugging.
 *
 * Context and locking: the devices are added and removed by the ib_core
 * client upcalls (process context, one at a time per RDMA device).  The
 * attributes read names under the registry lock; a removal waits for the
 * reads in progress (kernfs), and happens before the adapter leaves the
 * registry, so a read never sees a freed adapter.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/device.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

static struct class *kdapl_class;

static struct kdapl_adapter *kdapl_sysfs_adapter(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct kdapl_adapter *adapter = kdapl_sysfs_adapter(dev);
	ssize_t len;

	mutex_lock(&kdapl_registry.lock);
	len = sysfs_emit(buf, "%s\n", adapter->ibdev_name);
	mutex_unlock(&kdapl_registry.lock);
	return len;
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", kdapl_sysfs_adapter(dev)->port);
}
static DEVICE_ATTR_RO(port);

static ssize_t netdev_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", kdapl_sysfs_adapter(dev)->netdev_name);
}
static DEVICE_ATTR_RO(netdev);

static ssize_t address_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	kdapl_adapter_addr(kdapl_sysfs_adapter(dev), &ss);
	if (ss.ss_family != AF_INET)
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%pI4\n", &sin->sin_addr);
}
static DEVICE_ATTR_RO(address);

static ssize_t transport_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  kdapl_transport_name(kdapl_sysfs_adapter(dev)->transport));
}
static DEVICE_ATTR_RO(transport);

static const char *const kdapl_port_states[] = {
	[IB_PORT_NOP] = "nop",
	[IB_PORT_DOWN] = "down",
	[IB_PORT_INIT] = "init",
	[IB_PORT_ARMED] = "armed",
	[IB_PORT_ACTIVE] = "active",
	[IB_PORT_ACTIVE_DEFER] = "active_defer",
};

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct kdapl_adapter *adapter = kdapl_sysfs_adapter(dev);
	enum ib_port_state state = IB_PORT_NOP;
	int ret = -ENODEV;

	mutex_lock(&kdapl_registry.lock);
	if (adapter->ibdev)
		ret = ib_get_cached_port_state(adapter->ibdev, adapter->port,
					       &state);
	mutex_unlock(&kdapl_registry.lock);
	if (ret)
		return sysfs_emit(buf, "gone\n");
	if ((unsigned int)state >= ARRAY_SIZE(kdapl_port_states))
		return sysfs_emit(buf, "%d\n", state);
	return sysfs_emit(buf, "%s\n", kdapl_port_states[state]);
}
static DEVICE_ATTR_RO(state);

static ssize_t ias_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	struct kdapl_adapter *adapter = kdapl_sysfs_adapter(dev);

	return sysfs_emit(buf, "%u\n", kdapl_adapter_ia_count(adapter));
}
static DEVICE_ATTR_RO(ias);

static struct attribute *kdapl_adapter_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_port.attr,
	&dev_attr_netdev.attr,
	&dev_attr_address.attr,
	&dev_attr_transport.attr,
	&dev_attr_state.attr,
	&dev_attr_ias.attr,
	NULL,
};

static const struct attribute_group kdapl_adapter_group = {
	.attrs = kdapl_adapter_attrs,
};

static const struct attribute_group *kdapl_adapter_groups[] = {
	&kdapl_adapter_group,
	&kdapl_stats_group,
	NULL,
};

/**
 * kdapl_sysfs_add() - show an adapter in sysfs
 * @adapter: the adapter, listed in the registry
 * @ibdev: its RDMA device, the parent of the new device
 *
 * A failure only leaves the adapter out of sysfs: it works all the same.
 *
 * Context: process context (an ib_core client upcall).
 */
void kdapl_sysfs_add(struct kdapl_adapter *adapter, struct ib_device *ibdev)
{
	struct device *dev;

	dev = device_create_with_groups(kdapl_class, &ibdev->dev, MKDEV(0, 0),
					adapter, kdapl_adapter_groups, "%s",
					adapter->name);
	if (IS_ERR(dev)) {
		dev_warn(&ibdev->dev, "kdapl: %s not in sysfs: %ld\n",
			 adapter->name, PTR_ERR(dev));
		return;
	}
	adapter->sysdev = dev;
}

/**
 * kdapl_sysfs_rename() - follow a rename of the adapter
 * @adapter: the adapter, whose name just changed
 *
 * Context: process context (the rename upcall).
 */
void kdapl_sysfs_rename(struct kdapl_adapter *adapter)
{
	char name[KDAPL_IA_NAME_MAX];

	if (!adapter->sysdev)
		return;
	mutex_lock(&kdapl_registry.lock);
	strscpy(name, adapter->name, sizeof(name));
	mutex_unlock(&kdapl_registry.lock);
	if (device_rename(adapter->sysdev, name))
		dev_warn(adapter->sysdev, "kdapl: not renamed to %s\n", name);
}

/**
 * kdapl_sysfs_del() - take an adapter out of sysfs
 * @adapter: the adapter, still listed in the registry
 *
 * Returns once no attribute of it is being read.
 *
 * Context: process context (the remove upcall), no kdapl lock held.
 */
void kdapl_sysfs_del(struct kdapl_adapter *adapter)
{
	if (!adapter->sysdev)
		return;
	device_unregister(adapter->sysdev);
	adapter->sysdev = NULL;
}

/**
 * kdapl_sysfs_init() - create /sys/class/kdapl
 *
 * Context: process context, at module load, before the ib_core client.
 * Return: 0 or the error of class_create().
 */
int kdapl_sysfs_init(void)
{
	kdapl_stats_init();
	kdapl_class = class_create(THIS_MODULE, "kdapl");
	return PTR_ERR_OR_ZERO(kdapl_class);
}

/**
 * kdapl_sysfs_exit() - remove /sys/class/kdapl
 *
 * Context: process context, at module unload, after the ib_core client.
 */
void kdapl_sysfs_exit(void)
{
	class_destroy(kdapl_class);
}
