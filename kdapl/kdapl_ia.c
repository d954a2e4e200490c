// SPDX-License-Identifier: GPL-2.0
/*
 * Interface Adapter instances: dat_ia_open(), dat_ia_close(),
 * dat_ia_query(), and the ownership of objects.
 *
 * An open IA belongs to an owner (kernel consumers share one; every open
 * /dev/kdapl file is another) and owns every object created in it.  The
 * IA lock serialises creating and freeing those objects.  An abrupt close,
 * the owner going away and the device going away all free or detach the
 * objects in the order of their type's close rank, so that nothing is
 * freed while something still uses it.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

#define KDAPL_PROVIDER_NAME		"kdapl"
#define KDAPL_PROVIDER_MAJOR		1
#define KDAPL_PROVIDER_MINOR		0

struct kdapl_owner kdapl_kernel_owner = {
	.lock = __MUTEX_INITIALIZER(kdapl_kernel_owner.lock),
	.ias = LIST_HEAD_INIT(kdapl_kernel_owner.ias),
	.kernel = true,
};
EXPORT_SYMBOL_IF_KUNIT(kdapl_kernel_owner);

/**
 * kdapl_owner_init() - set up an owner of IAs
 * @owner: the owner, for example in the private data of an open file
 *
 * Context: any context.
 */
void kdapl_owner_init(struct kdapl_owner *owner)
{
	mutex_init(&owner->lock);
	INIT_LIST_HEAD(&owner->ias);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_owner_init);

/* The QP number of an EP's connection, or -1 without one. */
static long kdapl_owner_ep_qpn(struct kdapl_object *obj)
{
	struct kdapl_ep *ep = container_of(obj, struct kdapl_ep, obj);
	unsigned long flags;
	long qpn = -1;

	spin_lock_irqsave(&ep->lock, flags);
	if (ep->qp)
		qpn = ep->qp->qp_num;
	spin_unlock_irqrestore(&ep->lock, flags);
	return qpn;
}

/**
 * kdapl_owner_show() - what an owner has, for debugfs
 * @owner: the owner
 * @m: where a line's rest goes: " <type>=<count>" for each type it has
 *	objects of, then " qpn=<n>,<n>..." with the QP numbers of its
 *	connected EPs (what rdma resource show lists as kdapl's QPs)
 *
 * Context: process context; takes the owner's lock, then each IA's.
 */
void kdapl_owner_show(struct kdapl_owner *owner, struct seq_file *m)
{
	unsigned int count[DAT_HANDLE_TYPE_EXTENSION_BASE] = { 0 };
	struct kdapl_object *obj;
	struct kdapl_ia *ia;
	const char *sep = " qpn=";
	unsigned int t;
	long qpn;

	mutex_lock(&owner->lock);
	list_for_each_entry(ia, &owner->ias, owner_entry) {
		count[DAT_HANDLE_TYPE_IA]++;
		mutex_lock(&ia->lock);
		list_for_each_entry(obj, &ia->objects, ia_entry)
			if ((unsigned int)obj->type < ARRAY_SIZE(count))
				count[obj->type]++;
		mutex_unlock(&ia->lock);
	}
	for (t = 0; t < ARRAY_SIZE(count); t++)
		if (count[t] && kdapl_object_ops(t))
			seq_printf(m, " %s=%u", kdapl_object_ops(t)->name,
				   count[t]);
	list_for_each_entry(ia, &owner->ias, owner_entry) {
		mutex_lock(&ia->lock);
		list_for_each_entry(obj, &ia->objects, ia_entry) {
			if (obj->type != DAT_HANDLE_TYPE_EP)
				continue;
			qpn = kdapl_owner_ep_qpn(obj);
			if (qpn < 0)
				continue;
			seq_printf(m, "%s%ld", sep, qpn);
			sep = ",";
		}
		mutex_unlock(&ia->lock);
	}
	mutex_unlock(&owner->lock);
}

/**
 * kdapl_owner_release() - close every IA an owner still has
 * @owner: the owner going away
 *
 * Each IA is closed abruptly, which frees all its objects.
 *
 * Context: process context, may sleep.
 */
void kdapl_owner_release(struct kdapl_owner *owner)
{
	struct kdapl_ia *ia;

	for (;;) {
		mutex_lock(&owner->lock);
		ia = list_first_entry_or_null(&owner->ias, struct kdapl_ia,
					      owner_entry);
		if (ia)
			kref_get(&ia->obj.ref);
		mutex_unlock(&owner->lock);
		if (!ia)
			break;
		kdapl_ia_teardown(ia, DAT_CLOSE_ABRUPT_FLAG);
		kdapl_object_put(&ia->obj);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_owner_release);

/*
 * Count the create or free of an object for DAT_COUNTERS.  The table
 * holds each type's DCNT_IA_<type>_CREATE plus one (zero: not counted);
 * the type's _FREE follows its _CREATE.
 */
static void kdapl_ia_count_object(struct kdapl_ia *ia,
				  struct kdapl_object *obj, bool free)
{
	static const u8 create[] = {
		[DAT_HANDLE_TYPE_PZ] = DCNT_IA_PZ_CREATE + 1,
		[DAT_HANDLE_TYPE_LMR] = DCNT_IA_LMR_CREATE + 1,
		[DAT_HANDLE_TYPE_RMR] = DCNT_IA_RMR_CREATE + 1,
		[DAT_HANDLE_TYPE_PSP] = DCNT_IA_PSP_CREATE + 1,
		[DAT_HANDLE_TYPE_RSP] = DCNT_IA_RSP_CREATE + 1,
		[DAT_HANDLE_TYPE_EVD] = DCNT_IA_EVD_CREATE + 1,
		[DAT_HANDLE_TYPE_EP] = DCNT_IA_EP_CREATE + 1,
		[DAT_HANDLE_TYPE_SRQ] = DCNT_IA_SRQ_CREATE + 1,
	};
	int id;

	if (obj->type >= ARRAY_SIZE(create) || !create[obj->type])
		return;
	id = create[obj->type] - 1;
	if (free)
		id += obj->type == DAT_HANDLE_TYPE_PSP ?
		      DCNT_IA_PSP_FREE - DCNT_IA_PSP_CREATE : 1;
	kdapl_ia_count(ia, id);
}

/**
 * kdapl_ia_add_object() - make an object part of its IA
 * @ia: the IA
 * @obj: an object of @ia
 *
 * Context: the IA lock held.
 */
void kdapl_ia_add_object(struct kdapl_ia *ia, struct kdapl_object *obj)
{
	lockdep_assert_held(&ia->lock);
	list_add_tail(&obj->ia_entry, &ia->objects);
	kdapl_ia_count_object(ia, obj, false);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ia_add_object);

/**
 * kdapl_ia_del_object() - take an object out of its IA
 * @ia: the IA
 * @obj: an object of @ia
 *
 * Context: the IA lock held.
 */
void kdapl_ia_del_object(struct kdapl_ia *ia, struct kdapl_object *obj)
{
	lockdep_assert_held(&ia->lock);
	list_del_init(&obj->ia_entry);
	kdapl_ia_count_object(ia, obj, true);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ia_del_object);

/**
 * kdapl_ia_async_event() - report an asynchronous event of an IA
 * @ia: the IA
 * @number: DAT_ASYNC_ERROR_* event
 * @handle: the object concerned
 * @reason: the DAT_*_ASYNC_ERROR_REASON value
 *
 * The event goes to the IA's async EVD, looked up by handle so that an
 * EVD freed meanwhile (an attached one, by its own IA) only loses it.
 *
 * Context: any context.
 */
void kdapl_ia_async_event(struct kdapl_ia *ia, DAT_EVENT_NUMBER number,
			  DAT_HANDLE handle, int reason)
{
	struct kdapl_evd *evd;
	DAT_EVENT event = {
		.event_number = number,
	};

	if (!ia->async_evd_handle ||
	    kdapl_get(ia->owner, ia->async_evd_handle, EVD,
		      DAT_INVALID_HANDLE_EVD_ASYNC, &evd))
		return;

	event.event_data.asynch_error_event_data.dat_handle = handle;
	event.event_data.asynch_error_event_data.reason = reason;
	kdapl_stat_inc(ia->adapter, KDAPL_STAT_ASYNC_EVENTS);
	kdapl_ia_count(ia, DCNT_IA_ASYNC_ERROR);
	if (number == DAT_ASYNC_ERROR_EP_BROKEN)
		kdapl_ia_count(ia, DCNT_IA_ASYNC_QP_ERROR);
	else if (number == DAT_ASYNC_ERROR_EVD_OVERFLOW)
		kdapl_ia_count(ia, DCNT_IA_ASYNC_CQ_ERROR);
	kdapl_evd_post(evd, &event);
	kdapl_object_put(&evd->obj);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ia_async_event);

static bool kdapl_ia_is_async_evd(struct kdapl_ia *ia,
				  struct kdapl_object *obj)
{
	return ia->async_evd && &ia->async_evd->obj == obj;
}

/* The object of @ia to free or detach next: the lowest close rank. */
static struct kdapl_object *kdapl_ia_next_object(struct kdapl_ia *ia,
						 bool keep_async)
{
	struct kdapl_object *obj, *next = NULL;
	unsigned int rank, best = UINT_MAX;

	list_for_each_entry(obj, &ia->objects, ia_entry) {
		if (keep_async && kdapl_ia_is_async_evd(ia, obj))
			continue;
		rank = kdapl_object_ops(obj->type)->close_rank;
		if (rank < best) {
			best = rank;
			next = obj;
		}
	}
	return next;
}

/* Free every object of @ia, the async EVD last.  IA lock held. */
static void kdapl_ia_free_objects(struct kdapl_ia *ia)
{
	struct kdapl_object *obj;

	lockdep_assert_held(&ia->lock);
	ia->closing = true;
	while ((obj = kdapl_ia_next_object(ia, ia->async_evd_created))) {
		kref_get(&obj->ref);
		kdapl_object_ops(obj->type)->free(obj);
		/* A free operation must take the object out of the IA. */
		if (WARN_ON_ONCE(!list_empty(&obj->ia_entry)))
			list_del_init(&obj->ia_entry);
		kdapl_object_put(obj);
	}
}

/* Drop the IA's use of its async EVD, and free it if the IA made it. */
static void kdapl_ia_put_async_evd(struct kdapl_ia *ia)
{
	struct kdapl_evd *evd = ia->async_evd;
	struct kdapl_ia *evd_ia;

	if (!evd)
		return;
	evd_ia = evd->obj.ia;
	ia->async_evd = NULL;
	ia->async_evd_handle = DAT_HANDLE_NULL;

	if (ia->async_evd_created) {
		lockdep_assert_held(&ia->lock);
		kdapl_unuse(&evd->obj);
		kref_get(&evd->obj.ref);
		kdapl_object_ops(DAT_HANDLE_TYPE_EVD)->free(&evd->obj);
		kdapl_object_put(&evd->obj);
		kdapl_object_put(&evd->obj);	/* the IA's reference */
		return;
	}

	/* An EVD of another IA: its lock, not ours. */
	mutex_unlock(&ia->lock);
	mutex_lock(&evd_ia->lock);
	kdapl_unuse(&evd->obj);
	mutex_unlock(&evd_ia->lock);
	mutex_lock(&ia->lock);
	kdapl_object_put(&evd->obj);
}

/**
 * kdapl_ia_teardown() - close an IA
 * @ia: the IA, with a reference held by the caller
 * @flags: DAT_CLOSE_GRACEFUL_FLAG or DAT_CLOSE_ABRUPT_FLAG
 *
 * Context: process context, may sleep.
 * Return: see dat_ia_close().
 */
DAT_RETURN kdapl_ia_teardown(struct kdapl_ia *ia, DAT_CLOSE_FLAGS flags)
{
	struct kdapl_adapter *adapter = ia->adapter;
	struct kdapl_owner *owner = ia->owner;
	DAT_RETURN ret;

	if (flags != DAT_CLOSE_GRACEFUL_FLAG && flags != DAT_CLOSE_ABRUPT_FLAG)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	mutex_lock(&adapter->ia_lock);
	mutex_lock(&ia->lock);
	if (flags == DAT_CLOSE_GRACEFUL_FLAG &&
	    kdapl_ia_next_object(ia, ia->async_evd_created)) {
		ret = dat_error(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
		goto out_unlock;
	}
	if (flags == DAT_CLOSE_GRACEFUL_FLAG && ia->async_evd &&
	    ia->async_evd_created && ia->async_evd->obj.users > 1) {
		/* Another IA took our async EVD as its own. */
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EVD_IN_USE);
		goto out_unlock;
	}
	if (!kdapl_object_unpublish(&ia->obj)) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
		goto out_unlock;
	}
	list_del_init(&ia->adapter_entry);

	/*
	 * Everything but an async EVD the IA made, then that one, even if
	 * another IA uses it too.
	 */
	kdapl_ia_free_objects(ia);
	kdapl_ia_put_async_evd(ia);
	ia->ibdev = NULL;
	mutex_unlock(&ia->lock);
	mutex_unlock(&adapter->ia_lock);

	mutex_lock(&owner->lock);
	list_del_init(&ia->owner_entry);
	mutex_unlock(&owner->lock);
	return DAT_SUCCESS;

out_unlock:
	mutex_unlock(&ia->lock);
	mutex_unlock(&adapter->ia_lock);
	return ret;
}

/*
 * The IPv4 address consumers reach the adapter at, if it has one, and
 * the port's active MTU, which consumers size messages by.  Both are
 * taken once: the attributes point to them without a lock.
 */
static void kdapl_ia_set_addr(struct kdapl_ia *ia)
{
	struct ib_port_attr port;
	int mtu;

	kdapl_adapter_addr(ia->adapter, &ia->addr);
	if (ib_query_port(ia->ibdev, ia->adapter->port, &port))
		return;
	mtu = ib_mtu_enum_to_int(port.active_mtu);
	if (mtu <= 0)
		return;
	snprintf(ia->mtu, sizeof(ia->mtu), "%d", mtu);
	ia->provider_attr[0].name = KDAPL_ATTR_TRANSPORT_MTU;
	ia->provider_attr[0].value = ia->mtu;
	ia->num_provider_attr = 1;
}

static void kdapl_ia_add_attr(struct kdapl_ia *ia, const char *name,
			      const char *value)
{
	if (WARN_ON_ONCE(ia->num_provider_attr >=
			 ARRAY_SIZE(ia->provider_attr)))
		return;
	ia->provider_attr[ia->num_provider_attr].name = name;
	ia->provider_attr[ia->num_provider_attr].value = value;
	ia->num_provider_attr++;
}

/*
 * The IB extension operations the transport carries, and the provider
 * attributes that announce them under OFA's names (which dtestx reads):
 * iWARP has no immediate data; atomics need the device's atomic_cap.
 * An IA with none of them does not claim the extension at all: OFA's
 * dtest uses RDMA Write with immediate data wherever the IA claims it.
 */
static void kdapl_ia_set_ib_ext(struct kdapl_ia *ia)
{
	if (ia->adapter->transport != KDAPL_TRANSPORT_IWARP)
		ia->ib_ext |= KDAPL_IB_EXT_IMMED_DATA;
	if (ia->ibdev->attrs.atomic_cap != IB_ATOMIC_NONE)
		ia->ib_ext |= KDAPL_IB_EXT_ATOMICS;
	if (ia->adapter->transport != KDAPL_TRANSPORT_IWARP)
		ia->ib_ext |= KDAPL_IB_EXT_UD;
	if (!ia->ib_ext)
		return;
	ia->ib_ext |= KDAPL_IB_EXT_COUNTERS;
	kdapl_ia_add_attr(ia, "DAT_EXTENSION_INTERFACE", "TRUE");
	kdapl_ia_add_attr(ia, DAT_IB_ATTR_COUNTERS, "TRUE");
	if (ia->ib_ext & KDAPL_IB_EXT_IMMED_DATA)
		kdapl_ia_add_attr(ia, DAT_IB_ATTR_IMMED_DATA, "TRUE");
	if (ia->ib_ext & KDAPL_IB_EXT_ATOMICS) {
		kdapl_ia_add_attr(ia, DAT_IB_ATTR_FETCH_AND_ADD, "TRUE");
		kdapl_ia_add_attr(ia, DAT_IB_ATTR_CMP_AND_SWAP, "TRUE");
	}
	if (ia->ib_ext & KDAPL_IB_EXT_UD)
		kdapl_ia_add_attr(ia, DAT_IB_ATTR_UD, "TRUE");
}

static DAT_RETURN kdapl_ia_attach_async_evd(struct kdapl_ia *ia,
					    DAT_COUNT qlen,
					    DAT_EVD_HANDLE given)
{
	struct kdapl_evd *evd;
	DAT_RETURN ret;

	if (given) {
		ret = kdapl_get(ia->owner, given, EVD,
				DAT_INVALID_HANDLE_EVD_ASYNC, &evd);
		if (ret)
			return ret;
		mutex_lock(&evd->obj.ia->lock);
		if (!(evd->flags & DAT_EVD_ASYNC_FLAG) ||
		    list_empty(&evd->obj.ia_entry)) {
			mutex_unlock(&evd->obj.ia->lock);
			kdapl_object_put(&evd->obj);
			return dat_error(DAT_INVALID_HANDLE,
					 DAT_INVALID_HANDLE_EVD_ASYNC);
		}
		kdapl_use(&evd->obj);
		mutex_unlock(&evd->obj.ia->lock);
		ia->async_evd_created = false;
	} else {
		if (qlen <= 0)
			return dat_error(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG2);
		mutex_lock(&ia->lock);
		ret = kdapl_evd_create(ia, qlen, DAT_UPCALL_DISABLE, NULL,
				       DAT_EVD_ASYNC_FLAG, &evd);
		if (ret) {
			mutex_unlock(&ia->lock);
			return ret;
		}
		kref_get(&evd->obj.ref);
		kdapl_use(&evd->obj);
		mutex_unlock(&ia->lock);
		ia->async_evd_created = true;
	}
	ia->async_evd = evd;
	ia->async_evd_handle = kdapl_object_handle(&evd->obj);
	return DAT_SUCCESS;
}

/**
 * kdapl_ia_open() - open an IA for an owner
 * @owner: the kernel consumers' owner or an open file's
 * @name: adapter name, see kdapl_adapter_get()
 * @async_evd_qlen: size of the async EVD to create
 * @async_evd_handle: in: an existing EVD with DAT_EVD_ASYNC_FLAG to use,
 *	or DAT_HANDLE_NULL to create one; out: the async EVD
 * @ia_handle: out: the IA
 *
 * Context: process context, may sleep.
 * Return: see dat_ia_open().
 */
DAT_RETURN kdapl_ia_open(struct kdapl_owner *owner, const char *name,
			 DAT_COUNT async_evd_qlen,
			 DAT_EVD_HANDLE *async_evd_handle,
			 DAT_IA_HANDLE *ia_handle)
{
	struct kdapl_adapter *adapter;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (!name)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!async_evd_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!ia_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);

	adapter = kdapl_adapter_get(name);
	if (!adapter)
		return dat_error(DAT_PROVIDER_NOT_FOUND,
				 DAT_NAME_NOT_REGISTERED);

	ia = kzalloc(sizeof(*ia), GFP_KERNEL_ACCOUNT);
	if (!ia) {
		kdapl_adapter_put(adapter);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	ia->owner = owner;
	kdapl_object_init(&ia->obj, DAT_HANDLE_TYPE_IA, ia);
	mutex_init(&ia->lock);
	INIT_LIST_HEAD(&ia->objects);
	INIT_LIST_HEAD(&ia->owner_entry);
	INIT_LIST_HEAD(&ia->adapter_entry);
	ia->adapter = adapter;

	mutex_lock(&adapter->ia_lock);
	if (adapter->gone || !adapter->ibdev) {
		ret = dat_error(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
		goto err_unlock;
	}
	ia->ibdev = adapter->ibdev;
	kdapl_ia_set_addr(ia);
	kdapl_ia_set_ib_ext(ia);

	ret = kdapl_ia_attach_async_evd(ia, async_evd_qlen, *async_evd_handle);
	if (ret)
		goto err_unlock;

	if (kdapl_object_publish(&ia->obj)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto err_async;
	}
	list_add_tail(&ia->adapter_entry, &adapter->ias);
	mutex_unlock(&adapter->ia_lock);

	mutex_lock(&owner->lock);
	list_add_tail(&ia->owner_entry, &owner->ias);
	mutex_unlock(&owner->lock);

	*async_evd_handle = ia->async_evd_handle;
	*ia_handle = kdapl_object_handle(&ia->obj);
	return DAT_SUCCESS;

err_async:
	/* The async EVD is the only object the IA has yet. */
	mutex_lock(&ia->lock);
	kdapl_ia_put_async_evd(ia);
	mutex_unlock(&ia->lock);
err_unlock:
	mutex_unlock(&adapter->ia_lock);
	/* The release puts the adapter, once the async EVD let go too. */
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ia_open);

/**
 * kdapl_ia_detach_adapter() - the adapter's device is going away
 * @adapter: the adapter
 *
 * No IA may open on it any more.  Every open IA loses its device: the
 * verbs resources of its objects are released (objects whose type has
 * no detach operation are freed), and the consumer gets
 * DAT_ASYNC_ERROR_IA_CATASTROPHIC on the IA's async EVD.  The IAs stay
 * open until their owner closes them.
 *
 * Context: process context (the ib_client remove upcall), may sleep.
 */
void kdapl_ia_detach_adapter(struct kdapl_adapter *adapter)
{
	const struct kdapl_type_ops *ops;
	struct kdapl_object *obj, *next;
	unsigned int rank, done;
	struct kdapl_ia *ia;

	mutex_lock(&adapter->ia_lock);
	adapter->gone = true;
	list_for_each_entry(ia, &adapter->ias, adapter_entry) {
		mutex_lock(&ia->lock);
		/*
		 * By increasing close rank, as for an abrupt close: users of
		 * a resource let go of it before it goes.  What cannot live
		 * without the device is freed, the rest detached.
		 */
		for (done = 0;; done = rank) {
			rank = UINT_MAX;
			list_for_each_entry(obj, &ia->objects, ia_entry) {
				ops = kdapl_object_ops(obj->type);
				if (ops->close_rank > done)
					rank = min(rank, ops->close_rank);
			}
			if (rank == UINT_MAX)
				break;
			list_for_each_entry_safe(obj, next, &ia->objects,
						 ia_entry) {
				ops = kdapl_object_ops(obj->type);
				if (ops->close_rank != rank ||
				    kdapl_ia_is_async_evd(ia, obj))
					continue;
				kref_get(&obj->ref);
				if (ops->detach) {
					ops->detach(obj);
				} else {
					ops->free(obj);
					if (WARN_ON_ONCE(!list_empty(&obj->ia_entry)))
						list_del_init(&obj->ia_entry);
				}
				kdapl_object_put(obj);
			}
		}
		ia->ibdev = NULL;
		mutex_unlock(&ia->lock);
		kdapl_ia_async_event(ia, DAT_ASYNC_ERROR_IA_CATASTROPHIC,
				     kdapl_object_handle(&ia->obj),
				     DAT_IA_CATASTROPHIC_ERROR);
	}
	mutex_unlock(&adapter->ia_lock);
}

static void kdapl_ia_free(struct kdapl_object *obj)
{
	/* IAs are never objects of another IA. */
	WARN_ON_ONCE(1);
}

static void kdapl_ia_release(struct kdapl_object *obj)
{
	struct kdapl_ia *ia = container_of(obj, struct kdapl_ia, obj);

	kdapl_adapter_put(ia->adapter);
	kfree_rcu(ia, obj.rcu);
}

const struct kdapl_type_ops kdapl_ia_type = {
	.name = "ia",
	.bad_handle = DAT_INVALID_HANDLE_IA,
	.close_rank = 100,
	.free = kdapl_ia_free,
	.release = kdapl_ia_release,
};

/**
 * dat_ia_open() - open an Interface Adapter
 * @ia_name: adapter name: "<ibdev>-<port>[-<netdev>]", "<ibdev>-<port>"
 *	or the net_device name (see Documentation/adapters.rst)
 * @async_evd_qlen: queue length of the async EVD to create
 * @async_evd_handle: in: DAT_HANDLE_NULL to create an async EVD, or an
 *	existing EVD created with DAT_EVD_ASYNC_FLAG; out: the async EVD
 * @ia_handle: out: the IA
 *
 * The IA belongs to the kernel consumers; close it with dat_ia_close().
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_PROVIDER_NOT_FOUND if no adapter has that
 * name (or its device is going away); DAT_INVALID_PARAMETER for a NULL
 * argument or a queue length below 1 when an EVD is to be created;
 * DAT_INVALID_HANDLE (EVD_ASYNC) for a given EVD that is not an async
 * EVD; DAT_INSUFFICIENT_RESOURCES.
 */
DAT_RETURN dat_ia_open(const char *ia_name, DAT_COUNT async_evd_qlen,
		       DAT_EVD_HANDLE *async_evd_handle,
		       DAT_IA_HANDLE *ia_handle)
{
	return kdapl_ia_open(&kdapl_kernel_owner, ia_name, async_evd_qlen,
			     async_evd_handle, ia_handle);
}
EXPORT_SYMBOL_GPL(dat_ia_open);

/**
 * kdapl_ia_close() - dat_ia_close() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_ia_close()
 * @flags: as for dat_ia_close()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ia_close().
 * Return: as dat_ia_close().
 */
DAT_RETURN kdapl_ia_close(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			  DAT_CLOSE_FLAGS flags)
{
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;
	ret = kdapl_ia_teardown(ia, flags);
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ia_close);

/**
 * dat_ia_close() - close an Interface Adapter
 * @ia_handle: the IA
 * @flags: DAT_CLOSE_GRACEFUL_FLAG or DAT_CLOSE_ABRUPT_FLAG
 *
 * A graceful close refuses while the IA still has objects other than the
 * async EVD dat_ia_open() created.  An abrupt close frees every object
 * of the IA, whatever its state: endpoints first, then RMRs, LMRs, SRQs,
 * EVDs and PZs.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (IA); DAT_INVALID_PARAMETER for
 * unknown @flags; DAT_INVALID_STATE (IA_IN_USE) for a graceful close of
 * an IA with objects, (EVD_IN_USE) if another IA uses its async EVD.
 */
DAT_RETURN dat_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS flags)
{
	return kdapl_ia_close(&kdapl_kernel_owner, ia_handle, flags);
}
EXPORT_SYMBOL_GPL(dat_ia_close);

static DAT_COUNT kdapl_clamp(u64 v)
{
	return min_t(u64, v, S32_MAX);
}

static void kdapl_ia_fill_attr(struct kdapl_ia *ia, struct ib_device *ibdev,
			       const struct ib_port_attr *port,
			       DAT_IA_ATTR *a)
{
	const struct ib_device_attr *d = &ibdev->attrs;

	memset(a, 0, sizeof(*a));
	strscpy(a->adapter_name, ia->adapter->name, sizeof(a->adapter_name));
	strscpy(a->vendor_name, dev_name(&ibdev->dev), sizeof(a->vendor_name));
	a->hardware_version_major = d->hw_ver;
	a->firmware_version_major = upper_32_bits(d->fw_ver);
	a->firmware_version_minor = lower_32_bits(d->fw_ver);
	a->ia_address_ptr = (struct sockaddr *)&ia->addr;
	a->max_eps = d->max_qp;
	/* What fits both queues of a QP beside kdapl's own requests. */
	a->max_dto_per_ep = max(d->max_qp_wr - KDAPL_EP_SEND_WR_EXTRA -
				KDAPL_EP_WR_RESERVED, 0);
	a->max_rdma_read_per_ep_in = d->max_qp_rd_atom;
	a->max_rdma_read_per_ep_out = d->max_qp_init_rd_atom;
	a->max_evds = d->max_cq;
	a->max_evd_qlen = d->max_cqe;
	a->max_iov_segments_per_dto = min(d->max_send_sge, d->max_recv_sge);
	a->max_lmrs = d->max_mr;
	/* An LMR is one fast-registration MR: no more pages than it maps. */
	a->max_lmr_block_size = min_t(u64, d->max_mr_size,
				      (u64)d->max_fast_reg_page_list_len *
				      PAGE_SIZE);
	a->max_lmr_virtual_address = U64_MAX;
	a->max_pzs = d->max_pd;
	a->max_message_size = port->max_msg_sz;
	a->max_rdma_size = port->max_msg_sz;
	a->max_rmrs = d->max_mr;
	a->max_rmr_target_address = U64_MAX;
	a->max_srqs = d->max_srq;
	a->max_ep_per_srq = d->max_qp;
	a->max_recv_per_srq = d->max_srq_wr;
	a->max_iov_segments_per_rdma_read = d->max_sge_rd;
	a->max_iov_segments_per_rdma_write = d->max_send_sge;
	a->max_rdma_read_in = kdapl_clamp((u64)d->max_res_rd_atom);
	a->max_rdma_read_out = kdapl_clamp((u64)d->max_res_rd_atom);
	a->max_rdma_read_per_ep_in_guaranteed = DAT_TRUE;
	a->max_rdma_read_per_ep_out_guaranteed = DAT_TRUE;
	a->zb_supported = DAT_FALSE;
	if (ia->ib_ext) {
		a->extension_supported = DAT_EXTENSION_IB;
		a->extension_version = DAT_IB_EXTENSION_VERSION;
	}
	a->reserved_lmr_supported = DAT_FALSE;
}

static void kdapl_ia_fill_provider(struct kdapl_ia *ia,
				   struct ib_device *ibdev,
				   DAT_PROVIDER_ATTR *p)
{
	bool iwarp = rdma_protocol_iwarp(ibdev, ia->adapter->port);
	int i, j;

	memset(p, 0, sizeof(*p));
	strscpy(p->provider_name, KDAPL_PROVIDER_NAME,
		sizeof(p->provider_name));
	p->provider_version_major = KDAPL_PROVIDER_MAJOR;
	p->provider_version_minor = KDAPL_PROVIDER_MINOR;
	p->dapl_version_major = DAT_VERSION_MAJOR;
	p->dapl_version_minor = DAT_VERSION_MINOR;
	p->lmr_mem_types_supported = DAT_MEM_TYPE_VIRTUAL |
				     DAT_MEM_TYPE_LMR |
				     DAT_MEM_TYPE_PHYSICAL |
				     DAT_MEM_TYPE_PHYSICAL_VAR_PAGES |
				     DAT_MEM_TYPE_SG;
	p->iov_ownership_on_return = DAT_IOV_CONSUMER;
	p->dat_qos_supported = DAT_QOS_BEST_EFFORT;
	p->completion_flags_supported = DAT_COMPLETION_DEFAULT_FLAG |
					DAT_COMPLETION_SUPPRESS_FLAG |
					DAT_COMPLETION_SOLICITED_WAIT_FLAG |
					DAT_COMPLETION_UNSIGNALLED_FLAG |
					DAT_COMPLETION_BARRIER_FENCE_FLAG |
					DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	p->is_thread_safe = DAT_TRUE;
	p->max_private_data_size = kdapl_cm_private_data_max(ia);
	p->supports_multipath = DAT_FALSE;
	p->ep_creator = DAT_PSP_CREATES_EP_NEVER;
	p->pz_support = DAT_PZ_UNIQUE;
	p->optimal_buffer_alignment = 64;
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			p->evd_stream_merging_supported[i][j] = DAT_TRUE;
	p->srq_supported = ibdev->attrs.max_srq ? DAT_TRUE : DAT_FALSE;
	p->srq_watermarks_supported = ibdev->attrs.max_srq ? 1 : 0;
	p->srq_ep_pz_difference_supported = DAT_FALSE;
	/* Mappings of virtual DMA devices need no sync (kdapl_lmr_need_sync()). */
	p->lmr_sync_req = ib_uses_virt_dma(ibdev) ? DAT_FALSE : DAT_TRUE;
	p->dto_async_return_guaranteed = DAT_FALSE;
	p->rdma_write_for_rdma_read_req = iwarp ? DAT_TRUE : DAT_FALSE;
	p->rdma_read_lmr_rmr_context_exposure = DAT_FALSE;
	p->rmr_scope_supported = DAT_RMR_SCOPE_PZ;
	p->is_signal_safe = DAT_FALSE;
	p->ha_supported = DAT_FALSE;
	p->upcall_policy = DAT_UPCALL_MANY;
	p->is_interrupt_safe = DAT_TRUE;
	p->fmr_supported = DAT_FALSE;
	p->num_provider_specific_attr = ia->num_provider_attr;
	p->provider_specific_attr = ia->provider_attr;
}

/**
 * kdapl_ia_query() - dat_ia_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_ia_query()
 * @async_evd_handle: as for dat_ia_query()
 * @ia_attr_mask: as for dat_ia_query()
 * @ia_attr: as for dat_ia_query()
 * @provider_attr_mask: as for dat_ia_query()
 * @provider_attr: as for dat_ia_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_ia_query().
 * Return: as dat_ia_query().
 */
DAT_RETURN kdapl_ia_query(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			  DAT_EVD_HANDLE *async_evd_handle,
			  DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			  DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			  DAT_PROVIDER_ATTR *provider_attr)
{
	struct ib_port_attr port;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (ia_attr_mask & ~DAT_IA_FIELD_ALL_KDAT || (ia_attr_mask && !ia_attr))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (provider_attr_mask & ~DAT_PROVIDER_FIELD_ALL_KDAT ||
	    (provider_attr_mask && !provider_attr))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);

	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;

	mutex_lock(&ia->lock);
	if (!ia->ibdev) {
		ret = dat_error(DAT_INVALID_STATE, 0);
		goto out;
	}
	if (ia_attr) {
		if (ib_query_port(ia->ibdev, ia->adapter->port, &port)) {
			ret = dat_error(DAT_INTERNAL_ERROR, 0);
			goto out;
		}
		kdapl_ia_fill_attr(ia, ia->ibdev, &port, ia_attr);
	}
	if (provider_attr)
		kdapl_ia_fill_provider(ia, ia->ibdev, provider_attr);
	if (async_evd_handle)
		*async_evd_handle = ia->async_evd_handle;
out:
	mutex_unlock(&ia->lock);
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_ia_query);

/**
 * dat_ia_query() - attributes of an IA and of the provider
 * @ia_handle: the IA
 * @async_evd_handle: out: the async EVD; may be NULL
 * @ia_attr_mask: DAT_IA_FIELD_* wanted
 * @ia_attr: out: IA attributes, from the device and port; may be NULL
 *	when @ia_attr_mask is 0
 * @provider_attr_mask: DAT_PROVIDER_FIELD_* wanted
 * @provider_attr: out: provider attributes; may be NULL when
 *	@provider_attr_mask is 0
 *
 * All fields are filled whatever the masks ask for.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (IA); DAT_INVALID_PARAMETER for
 * unknown mask bits or a NULL structure with a non-zero mask;
 * DAT_INVALID_STATE if the IA's device is gone.
 */
DAT_RETURN dat_ia_query(DAT_IA_HANDLE ia_handle,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			DAT_PROVIDER_ATTR *provider_attr)
{
	return kdapl_ia_query(&kdapl_kernel_owner, ia_handle, async_evd_handle,
			      ia_attr_mask, ia_attr, provider_attr_mask,
			      provider_attr);
}
EXPORT_SYMBOL_GPL(dat_ia_query);

/**
 * dat_ia_ha_related() - may another IA take over this one's connections?
 * @ia_handle: the IA
 * @provider_name: the name of the other IA
 * @answer: out: DAT_TRUE if the two IAs are related for high availability
 *
 * kdapl pairs no IAs for failover, so the answer is DAT_FALSE for every
 * name, this IA's own included.
 *
 * Context: any context.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (IA); DAT_INVALID_PARAMETER with
 * DAT_INVALID_ARG2 for a NULL name, DAT_INVALID_ARG3 for a NULL @answer.
 */
DAT_RETURN dat_ia_ha_related(DAT_IA_HANDLE ia_handle,
			     const DAT_NAME_PTR provider_name,
			     DAT_BOOLEAN *answer)
{
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(&kdapl_kernel_owner, ia_handle, IA,
			DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;
	if (!provider_name)
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!answer)
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else
		*answer = DAT_FALSE;
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ia_ha_related);
