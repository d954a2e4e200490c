// SPDX-License-Identifier: GPL-2.0
/*
 * Interface Adapter naming and the registry of adapters.
 *
 * Every port of every RDMA device that can run the RDMA connection
 * manager becomes one Interface Adapter.  This file holds what does not
 * need a device: the naming rule, the list and the lookup by name, so
 * that KUnit can test it with adapters made from plain strings.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/ctype.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kdapl.h"
#include "kdapl_trace.h"

struct kdapl_registry kdapl_registry = {
	.lock = __MUTEX_INITIALIZER(kdapl_registry.lock),
	.adapters = LIST_HEAD_INIT(kdapl_registry.adapters),
};

static const char * const kdapl_transport_names[] = {
	[KDAPL_TRANSPORT_IB] = "ib",
	[KDAPL_TRANSPORT_ROCE] = "roce",
	[KDAPL_TRANSPORT_IWARP] = "iwarp",
};

/**
 * kdapl_transport_name() - short name of a transport, as listed in debugfs
 * @transport: the transport
 *
 * Return: "ib", "roce", "iwarp", or "unknown" for an out-of-range value.
 */
const char *kdapl_transport_name(enum kdapl_transport transport)
{
	if ((unsigned int)transport >= ARRAY_SIZE(kdapl_transport_names))
		return "unknown";
	return kdapl_transport_names[transport];
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_transport_name);

static bool kdapl_name_part_ok(const char *s)
{
	for (; *s; s++)
		if (!isgraph(*s))
			return false;
	return true;
}

/**
 * kdapl_adapter_format_name() - build the name of an Interface Adapter
 * @buf: where the name is written
 * @size: size of @buf
 * @ibdev_name: name of the RDMA device, such as "mlx5_0" or "rxe0"
 * @port: port number, from 1
 * @netdev_name: net_device of the port for RoCE and iWARP; NULL or ""
 *	for InfiniBand
 *
 * The name is "<ibdev>-<port>" for InfiniBand and
 * "<ibdev>-<port>-<netdev>" when the port has a net_device, for example
 * "mlx5_0-1" or "rxe0-1-eth0".  The parts may not contain white space,
 * because DAT registry files separate fields with it.
 *
 * Return: the length of the name, -EINVAL for an empty device name, a
 * port of 0 or white space in a part, -ENAMETOOLONG if @buf is too small.
 */
int kdapl_adapter_format_name(char *buf, size_t size,
			      const char *ibdev_name,
			      u32 port,
			      const char *netdev_name)
{
	int len;

	if (!ibdev_name || !*ibdev_name || !port ||
	    !kdapl_name_part_ok(ibdev_name))
		return -EINVAL;
	if (netdev_name && !kdapl_name_part_ok(netdev_name))
		return -EINVAL;

	if (netdev_name && *netdev_name)
		len = snprintf(buf, size, "%s-%u-%s", ibdev_name, port,
			       netdev_name);
	else
		len = snprintf(buf, size, "%s-%u", ibdev_name, port);
	if (len >= size)
		return -ENAMETOOLONG;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_adapter_format_name);

/**
 * kdapl_adapter_create() - allocate an adapter that is not listed yet
 * @ibdev_name: name of the RDMA device
 * @port: port number, from 1
 * @netdev_name: net_device of the port, or NULL
 * @transport: transport of the port
 *
 * Context: process context, may sleep.
 * Return: the adapter holding one reference, or an ERR_PTR() from
 * kdapl_adapter_format_name() or -ENOMEM.
 */
struct kdapl_adapter *
kdapl_adapter_create(const char *ibdev_name, u32 port,
		     const char *netdev_name, enum kdapl_transport transport)
{
	struct kdapl_adapter *adapter;
	int ret;

	if (strlen(ibdev_name) >= IB_DEVICE_NAME_MAX ||
	    (netdev_name && strlen(netdev_name) >= IFNAMSIZ))
		return ERR_PTR(-ENAMETOOLONG);

	adapter = kzalloc(sizeof(*adapter), GFP_KERNEL);
	if (!adapter)
		return ERR_PTR(-ENOMEM);

	ret = kdapl_adapter_format_name(adapter->name, sizeof(adapter->name),
					ibdev_name, port, netdev_name);
	if (ret < 0) {
		kfree(adapter);
		return ERR_PTR(ret);
	}
	adapter->stats = kdapl_stats_alloc();
	if (!adapter->stats) {
		kfree(adapter);
		return ERR_PTR(-ENOMEM);
	}

	kref_init(&adapter->ref);
	INIT_LIST_HEAD(&adapter->entry);
	mutex_init(&adapter->ia_lock);
	INIT_LIST_HEAD(&adapter->ias);
	adapter->port = port;
	adapter->transport = transport;
	strscpy(adapter->ibdev_name, ibdev_name, sizeof(adapter->ibdev_name));
	if (netdev_name)
		strscpy(adapter->netdev_name, netdev_name,
			sizeof(adapter->netdev_name));
	return adapter;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_adapter_create);

static void kdapl_adapter_release(struct kref *ref)
{
	struct kdapl_adapter *adapter =
		container_of(ref, struct kdapl_adapter, ref);

	kdapl_stats_free(adapter->stats);
	kfree(adapter);
}

/**
 * kdapl_adapter_put() - drop a reference to an Interface Adapter
 * @adapter: the adapter, or NULL
 *
 * Context: any context.
 */
void kdapl_adapter_put(struct kdapl_adapter *adapter)
{
	if (adapter)
		kref_put(&adapter->ref, kdapl_adapter_release);
}
EXPORT_SYMBOL_GPL(kdapl_adapter_put);

static bool kdapl_adapter_matches_alias(const struct kdapl_adapter *adapter,
					const char *name)
{
	char shortname[IB_DEVICE_NAME_MAX + 12];

	if (adapter->netdev_name[0] && !strcmp(adapter->netdev_name, name))
		return true;
	snprintf(shortname, sizeof(shortname), "%s-%u", adapter->ibdev_name,
		 adapter->port);
	return !strcmp(shortname, name);
}

/**
 * kdapl_registry_add() - list an adapter
 * @reg: the registry
 * @adapter: an adapter from kdapl_adapter_create(), not listed yet
 * @ibdev: the device it stands for; NULL in tests without a device
 *
 * On success the registry owns the caller's reference.
 *
 * Context: process context, takes the registry lock.
 * Return: 0, or -EEXIST if an adapter of the same name is listed.
 */
int kdapl_registry_add(struct kdapl_registry *reg,
		       struct kdapl_adapter *adapter,
		       struct ib_device *ibdev)
{
	struct kdapl_adapter *other;

	mutex_lock(&reg->lock);
	list_for_each_entry(other, &reg->adapters, entry) {
		if (!strcmp(other->name, adapter->name)) {
			mutex_unlock(&reg->lock);
			return -EEXIST;
		}
	}
	adapter->ibdev = ibdev;
	list_add_tail(&adapter->entry, &reg->adapters);
	trace_kdapl_adapter_add(adapter);
	mutex_unlock(&reg->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_registry_add);

/**
 * kdapl_registry_del() - unlist an adapter and detach it from its device
 * @reg: the registry
 * @adapter: a listed adapter
 *
 * Lookups no longer find the adapter and kdapl_adapter_present() turns
 * false; holders of references keep a valid object.  Drops the
 * registry's reference.
 *
 * Context: process context, takes the registry lock.
 */
void kdapl_registry_del(struct kdapl_registry *reg,
			struct kdapl_adapter *adapter)
{
	mutex_lock(&reg->lock);
	trace_kdapl_adapter_remove(adapter);
	list_del_init(&adapter->entry);
	adapter->ibdev = NULL;
	mutex_unlock(&reg->lock);
	kdapl_adapter_put(adapter);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_registry_del);

/**
 * kdapl_registry_lookup() - find a listed adapter by name
 * @reg: the registry
 * @name: full name first; failing that "<ibdev>-<port>" or a net_device
 *	name
 *
 * Context: process context, takes the registry lock.
 * Return: the adapter with a new reference, or NULL.
 */
struct kdapl_adapter *
kdapl_registry_lookup(struct kdapl_registry *reg, const char *name)
{
	struct kdapl_adapter *adapter, *found = NULL;

	mutex_lock(&reg->lock);
	list_for_each_entry(adapter, &reg->adapters, entry) {
		if (!strcmp(adapter->name, name)) {
			found = adapter;
			break;
		}
	}
	if (!found) {
		list_for_each_entry(adapter, &reg->adapters, entry) {
			if (kdapl_adapter_matches_alias(adapter, name)) {
				found = adapter;
				break;
			}
		}
	}
	if (found)
		kref_get(&found->ref);
	mutex_unlock(&reg->lock);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_registry_lookup);

/**
 * kdapl_registry_rename() - follow a rename of the adapter's device
 * @reg: the registry
 * @adapter: a listed adapter
 * @ibdev_name: the new device name
 *
 * The adapter keeps its port and net_device; its name is rebuilt with
 * the new device name.  On error the old names stay.
 *
 * Context: process context, takes the registry lock.
 * Return: 0, or an error from kdapl_adapter_format_name().
 */
int kdapl_registry_rename(struct kdapl_registry *reg,
			  struct kdapl_adapter *adapter,
			  const char *ibdev_name)
{
	char name[KDAPL_IA_NAME_MAX];
	int ret;

	if (strlen(ibdev_name) >= IB_DEVICE_NAME_MAX)
		return -ENAMETOOLONG;

	mutex_lock(&reg->lock);
	ret = kdapl_adapter_format_name(name, sizeof(name), ibdev_name,
					adapter->port, adapter->netdev_name);
	if (ret >= 0) {
		strscpy(adapter->ibdev_name, ibdev_name,
			sizeof(adapter->ibdev_name));
		strscpy(adapter->name, name, sizeof(adapter->name));
		ret = 0;
	}
	mutex_unlock(&reg->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_registry_rename);

/**
 * kdapl_registry_count() - number of listed adapters
 * @reg: the registry
 *
 * Context: process context, takes the registry lock.
 * Return: the count at the time of the call.
 */
unsigned int kdapl_registry_count(struct kdapl_registry *reg)
{
	struct kdapl_adapter *adapter;
	unsigned int n = 0;

	mutex_lock(&reg->lock);
	list_for_each_entry(adapter, &reg->adapters, entry)
		n++;
	mutex_unlock(&reg->lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_registry_count);

/**
 * kdapl_registry_show() - list the adapters, one line each
 * @reg: the registry
 * @m: where the list is written
 *
 * Each line holds the name, device, port, transport and net_device ("-"
 * when none), separated by single spaces.
 *
 * Context: process context, takes the registry lock.
 */
void kdapl_registry_show(struct kdapl_registry *reg, struct seq_file *m)
{
	struct kdapl_adapter *adapter;

	mutex_lock(&reg->lock);
	list_for_each_entry(adapter, &reg->adapters, entry)
		seq_printf(m, "%s %s %u %s %s\n", adapter->name,
			   adapter->ibdev_name, adapter->port,
			   kdapl_transport_name(adapter->transport),
			   adapter->netdev_name[0] ? adapter->netdev_name : "-");
	mutex_unlock(&reg->lock);
}

/**
 * kdapl_adapter_get() - look up an Interface Adapter by name
 * @name: "<ibdev>-<port>[-<netdev>]", "<ibdev>-<port>", or the name of
 *	the port's net_device
 *
 * The reference keeps the adapter object alive, not its device: check
 * kdapl_adapter_present() before using the device.
 *
 * Context: process context, may sleep.
 * Return: the adapter with a reference for the caller to drop with
 * kdapl_adapter_put(), or NULL if no adapter has that name.
 */
struct kdapl_adapter *kdapl_adapter_get(const char *name)
{
	if (!name)
		return NULL;
	return kdapl_registry_lookup(&kdapl_registry, name);
}
EXPORT_SYMBOL_GPL(kdapl_adapter_get);

/**
 * kdapl_adapter_name() - copy an adapter's current name
 * @adapter: the adapter
 * @buf: destination
 * @size: size of @buf; KDAPL_IA_NAME_MAX always suffices
 *
 * Context: process context, may sleep.
 * Return: the length of the name, or -E2BIG if it was truncated.
 */
int kdapl_adapter_name(struct kdapl_adapter *adapter, char *buf, size_t size)
{
	ssize_t len;

	mutex_lock(&kdapl_registry.lock);
	len = strscpy(buf, adapter->name, size);
	mutex_unlock(&kdapl_registry.lock);
	return len;
}
EXPORT_SYMBOL_GPL(kdapl_adapter_name);

/**
 * kdapl_adapter_present() - whether the adapter's device is still there
 * @adapter: the adapter
 *
 * Context: process context, may sleep.
 * Return: false once ib_core has removed the device.
 */
bool kdapl_adapter_present(struct kdapl_adapter *adapter)
{
	bool present;

	mutex_lock(&kdapl_registry.lock);
	present = adapter->ibdev;
	mutex_unlock(&kdapl_registry.lock);
	return present;
}
EXPORT_SYMBOL_GPL(kdapl_adapter_present);

/**
 * kdapl_adapter_addr() - the address consumers reach an adapter at
 * @adapter: the adapter
 * @ss: where the address goes: a struct sockaddr_in with the primary
 *	IPv4 address of the adapter's net_device, or all zero (AF_UNSPEC)
 *	if it has no net_device or no address
 *
 * Context: process context.
 */
void kdapl_adapter_addr(struct kdapl_adapter *adapter,
			struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char name[IFNAMSIZ];
	struct net_device *ndev;
	__be32 a;

	memset(ss, 0, sizeof(*ss));
	mutex_lock(&kdapl_registry.lock);
	strscpy(name, adapter->netdev_name, sizeof(name));
	mutex_unlock(&kdapl_registry.lock);
	if (!name[0])
		return;
	ndev = dev_get_by_name(&init_net, name);
	if (!ndev)
		return;
	a = inet_select_addr(ndev, 0, RT_SCOPE_UNIVERSE);
	dev_put(ndev);
	if (!a)
		return;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = a;
}

/**
 * kdapl_adapter_ia_count() - IAs open on an adapter
 * @adapter: the adapter
 *
 * Context: process context; takes the adapter's IA lock.
 * Return: the count, kernel consumers' and processes' together.
 */
unsigned int kdapl_adapter_ia_count(struct kdapl_adapter *adapter)
{
	struct list_head *pos;
	unsigned int n = 0;

	mutex_lock(&adapter->ia_lock);
	list_for_each(pos, &adapter->ias)
		n++;
	mutex_unlock(&adapter->ia_lock);
	return n;
}
