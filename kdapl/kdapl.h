/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl internal definitions shared by the files of the module.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#ifndef _KDAPL_H
#define _KDAPL_H

#include <linux/hash.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>
#include <rdma/kdat.h>
#include <rdma/kdat_ib_extensions.h>

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
 * @ia_lock: protects @ias and @gone; taken before any IA lock
 * @ias: IAs open on the adapter
 * @gone: the device is being removed; no IA may open
 * @sysdev: its device in /sys/class/kdapl, or NULL (see kdapl_sysfs.c)
 * @stats: per-CPU counters of the IAs open on it (see kdapl_stats.c)
 *
 * Names are written only under the registry lock; readers copy them out
 * under the same lock.
 */
struct kdapl_adapter {
	struct kref ref;
	struct list_head entry;
	struct mutex ia_lock;	/* see above */
	struct list_head ias;
	bool gone;
	struct ib_device *ibdev;
	u32 port;
	enum kdapl_transport transport;
	char ibdev_name[IB_DEVICE_NAME_MAX];
	char netdev_name[IFNAMSIZ];
	char name[KDAPL_IA_NAME_MAX];
	struct device *sysdev;
	struct kdapl_stats __percpu *stats;
};

/**
 * enum kdapl_stat - the counters of an adapter
 * @KDAPL_STAT_POSTS_SEND: sends posted (with or without invalidation)
 * @KDAPL_STAT_POSTS_RDMA_WRITE: RDMA Writes posted
 * @KDAPL_STAT_POSTS_RDMA_READ: RDMA Reads posted
 * @KDAPL_STAT_POSTS_RECV: receives posted to EPs
 * @KDAPL_STAT_POSTS_OTHER: other work requests posted (RMR binds)
 * @KDAPL_STAT_POST_ERRORS: posts to an EP of the adapter that were refused
 * @KDAPL_STAT_COMPLETIONS: DTO and bind completions that succeeded
 * @KDAPL_STAT_COMPLETION_ERRORS: those that did not, flushed ones included
 * @KDAPL_STAT_CONNECTION_EVENTS: events of the connection EVDs
 * @KDAPL_STAT_CONNECTION_REQUESTS: connection requests to service points
 * @KDAPL_STAT_ASYNC_EVENTS: events of the async EVDs
 * @KDAPL_STAT_EVD_OVERFLOWS: events refused by a full EVD
 * @KDAPL_STAT_NR: how many there are
 *
 * The first four follow the order of DAT_DTOS (kdapl_stat_post()).
 */
enum kdapl_stat {
	KDAPL_STAT_POSTS_SEND,
	KDAPL_STAT_POSTS_RDMA_WRITE,
	KDAPL_STAT_POSTS_RDMA_READ,
	KDAPL_STAT_POSTS_RECV,
	KDAPL_STAT_POSTS_OTHER,
	KDAPL_STAT_POST_ERRORS,
	KDAPL_STAT_COMPLETIONS,
	KDAPL_STAT_COMPLETION_ERRORS,
	KDAPL_STAT_CONNECTION_EVENTS,
	KDAPL_STAT_CONNECTION_REQUESTS,
	KDAPL_STAT_ASYNC_EVENTS,
	KDAPL_STAT_EVD_OVERFLOWS,
	KDAPL_STAT_NR
};

/**
 * struct kdapl_stats - one CPU's copy of an adapter's counters
 * @count: by enum kdapl_stat; unsigned long so that readers never see
 *	half an update
 */
struct kdapl_stats {
	unsigned long count[KDAPL_STAT_NR];
};

extern const struct attribute_group kdapl_stats_group;

struct kdapl_stats __percpu *kdapl_stats_alloc(void);
void kdapl_stats_free(struct kdapl_stats __percpu *stats);
unsigned long kdapl_stats_sum(const struct kdapl_adapter *adapter,
			      enum kdapl_stat id);
void kdapl_stats_init(void);

/**
 * kdapl_stat_inc() - count one occurrence on an adapter
 * @adapter: the adapter of the IA where it happened
 * @id: what happened
 *
 * Context: any context; this CPU's copy only, so no lock and no atomic.
 */
static inline void kdapl_stat_inc(struct kdapl_adapter *adapter,
				  enum kdapl_stat id)
{
	this_cpu_inc(adapter->stats->count[id]);
}

/**
 * kdapl_stat_post() - count a post of a DTO operation
 * @adapter: the adapter of the EP
 * @op: DAT_DTO_* operation posted
 * @ret: what the post returned
 */
static inline void kdapl_stat_post(struct kdapl_adapter *adapter, DAT_DTOS op,
				   DAT_RETURN ret)
{
	static_assert(KDAPL_STAT_POSTS_SEND == (int)DAT_DTO_SEND &&
		      KDAPL_STAT_POSTS_RDMA_WRITE == (int)DAT_DTO_RDMA_WRITE &&
		      KDAPL_STAT_POSTS_RDMA_READ == (int)DAT_DTO_RDMA_READ &&
		      KDAPL_STAT_POSTS_RECV == (int)DAT_DTO_RECEIVE);

	if (unlikely(ret))
		kdapl_stat_inc(adapter, KDAPL_STAT_POST_ERRORS);
	else if (likely((unsigned int)op <= DAT_DTO_RECEIVE))
		kdapl_stat_inc(adapter, (enum kdapl_stat)op);
	else
		kdapl_stat_inc(adapter, KDAPL_STAT_POSTS_OTHER);
}

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
void kdapl_adapter_addr(struct kdapl_adapter *adapter,
			struct sockaddr_storage *ss);
unsigned int kdapl_adapter_ia_count(struct kdapl_adapter *adapter);

int kdapl_sysfs_init(void);
void kdapl_sysfs_exit(void);
void kdapl_sysfs_add(struct kdapl_adapter *adapter, struct ib_device *ibdev);
void kdapl_sysfs_rename(struct kdapl_adapter *adapter);
void kdapl_sysfs_del(struct kdapl_adapter *adapter);
void kdapl_registry_show(struct kdapl_registry *reg, struct seq_file *m);

int kdapl_device_init(void);
void kdapl_device_exit(void);

/* ---------------------------------------------------------------------
 * The DAT object model: see Documentation/objects.rst.
 */

struct kdapl_ia;
struct kdapl_conn;
struct kdapl_dto;
struct kdapl_lmr;
struct kdapl_ep;
struct rdma_cm_event;
struct rdma_cm_id;

/**
 * struct kdapl_object - what every DAT object starts with
 * @ref: lifetime of the memory; the handle table holds one reference
 *	while the object is published, every lookup takes one more
 * @type: DAT_HANDLE_TYPE_* of the object
 * @id: index in the handle table, from 1
 * @gen: generation, different for every object ever published
 * @handle: the handle, as kdapl_object_handle() gives it; set by
 *	kdapl_object_init() and kdapl_object_publish()
 * @users: how many other DAT objects use this one (an EP uses its PZ and
 *	EVDs, a service point its EVD, ...); freeing is refused with
 *	DAT_INVALID_STATE while it is not zero.  Changed under the IA lock.
 * @owner: the owner of the object's IA: lookups on behalf of another
 *	owner do not find it
 * @ia: the IA the object belongs to; for an IA, the IA itself
 * @ia_entry: link in &kdapl_ia.objects, under the IA lock
 * @rcu: the memory is freed after a grace period, lookups run under RCU
 */
struct kdapl_object {
	struct kref ref;
	DAT_HANDLE_TYPE type;
	u32 id;
	u32 gen;
	DAT_HANDLE handle;
	int users;
	struct kdapl_owner *owner;
	struct kdapl_ia *ia;
	struct list_head ia_entry;
	struct rcu_head rcu;
};

/**
 * struct kdapl_type_ops - per handle type operations, see kdapl_object.c
 * @name: short name for messages
 * @bad_handle: DAT_INVALID_HANDLE subtype for a bad handle of this type
 * @close_rank: abrupt IA close frees objects in increasing rank
 * @free: frees the object as dat_<type>_free() would, but in any state
 *	(abrupt close); called with the IA lock held, must not take it
 * @detach: optional; drops the verbs resources of the object when its
 *	device goes away, keeping the DAT object for the consumer to free;
 *	called with the IA lock held.  Without it the object is freed.
 * @release: frees the memory once the last reference is gone (any
 *	context; use kfree_rcu() on the containing object)
 *
 * @free and @detach are called with a reference to the object held.
 */
struct kdapl_type_ops {
	const char *name;
	DAT_RETURN_SUBTYPE bad_handle;
	unsigned int close_rank;
	void (*free)(struct kdapl_object *obj);
	void (*detach)(struct kdapl_object *obj);
	void (*release)(struct kdapl_object *obj);
};

extern const struct kdapl_type_ops kdapl_ia_type;
extern const struct kdapl_type_ops kdapl_pz_type;
extern const struct kdapl_type_ops kdapl_evd_type;
extern const struct kdapl_type_ops kdapl_ep_type;
extern const struct kdapl_type_ops kdapl_lmr_type;
extern const struct kdapl_type_ops kdapl_rmr_type;
extern const struct kdapl_type_ops kdapl_srq_type;

void kdapl_object_init(struct kdapl_object *obj, DAT_HANDLE_TYPE type,
		       struct kdapl_ia *ia);
int kdapl_object_publish(struct kdapl_object *obj);
int kdapl_object_init_table(void);
#if IS_ENABLED(CONFIG_KUNIT)
void kdapl_object_exhaust(u32 id);
#endif
void kdapl_object_exit(void);
void kdapl_object_count_show(struct seq_file *m);
bool kdapl_object_unpublish(struct kdapl_object *obj);
DAT_RETURN kdapl_object_get(struct kdapl_owner *owner, DAT_HANDLE handle,
			    DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE bad_handle,
			    struct kdapl_object **objp);
void kdapl_object_put(struct kdapl_object *obj);
const struct kdapl_type_ops *kdapl_object_ops(DAT_HANDLE_TYPE type);

/* A handle: the type, a generation and the index in the handle table. */
#define KDAPL_HANDLE_TYPE_SHIFT	56
#define KDAPL_HANDLE_GEN_SHIFT	32
#define KDAPL_HANDLE_GEN_MASK	0xffffffU

/**
 * kdapl_object_handle() - the handle of a published object
 * @obj: the object
 *
 * Inline: completion handlers put handles in every event.
 *
 * Context: any context.
 * Return: the handle; never DAT_HANDLE_NULL.
 */
static inline DAT_HANDLE kdapl_object_handle(const struct kdapl_object *obj)
{
	return obj->handle;
}

/* The handle of type @type, generation @gen and index @id. */
static inline DAT_HANDLE kdapl_handle_make(DAT_HANDLE_TYPE type, u32 gen,
					   u32 id)
{
	u64 v = (u64)type << KDAPL_HANDLE_TYPE_SHIFT |
		(u64)gen << KDAPL_HANDLE_GEN_SHIFT | id;

	return (DAT_HANDLE)(uintptr_t)v;
}

/* The type a handle names, whether or not it names an object. */
static inline DAT_HANDLE_TYPE kdapl_handle_type(DAT_HANDLE handle)
{
	return (u64)(uintptr_t)handle >> KDAPL_HANDLE_TYPE_SHIFT;
}

#define KDAPL_HANDLE_TABLE_MIN	256

/**
 * struct kdapl_handle_table - published objects by handle index
 * @size: slots in @objs and @gens
 * @rcu: frees a replaced table
 * @gens: the generation last given at each index, 0 for none yet
 *	(written under the xarray's lock)
 * @objs: the object of each index, NULL for a free one
 */
struct kdapl_handle_table {
	u32 size;
	struct rcu_head rcu;
	u32 *gens;
	struct kdapl_object __rcu *objs[];
};

extern struct kdapl_handle_table __rcu *kdapl_handle_table;

/* The object at index @id of the handle table, or NULL.  Under RCU. */
static inline struct kdapl_object *kdapl_handle_table_obj(u32 id)
{
	struct kdapl_handle_table *t;

	t = rcu_dereference_check(kdapl_handle_table,
				  rcu_read_lock_any_held());
	return t && id < t->size ?
	       rcu_dereference_check(t->objs[id], rcu_read_lock_any_held()) :
	       NULL;
}

/**
 * kdapl_object_lookup_rcu() - look up a handle without taking a reference
 * @owner: who looks: another owner's object is not found
 * @handle: the handle
 * @type: the type the handle must have
 *
 * For fast paths that pin the object by other means once found: the
 * caller holds rcu_read_lock() from the lookup until it has taken a lock
 * of the object under which it checks that the object is still in
 * service (object memory is freed only after a grace period).  Inline:
 * every DTO post starts with it.
 *
 * Context: any context, under rcu_read_lock().
 * Return: the object, or NULL if @handle is NULL, of another type or
 * owner, stale or unknown, or the object is being released.
 */
static inline struct kdapl_object *
kdapl_object_lookup_rcu(const struct kdapl_owner *owner, DAT_HANDLE handle,
			DAT_HANDLE_TYPE type)
{
	u64 v = (u64)(uintptr_t)handle;
	struct kdapl_object *obj;
	u32 gen = (v >> KDAPL_HANDLE_GEN_SHIFT) & KDAPL_HANDLE_GEN_MASK;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "handle lookup outside an RCU read section");
	/* A NULL handle or generation 0 matches no object (gen != 0). */
	if ((v >> KDAPL_HANDLE_TYPE_SHIFT) != (u64)type)
		return NULL;
	obj = kdapl_handle_table_obj((u32)v);
	if (!obj || obj->type != type || obj->gen != gen ||
	    obj->owner != owner || !kref_read(&obj->ref))
		return NULL;
	return obj;
}

/*
 * Look up a handle of a given family for @owner and take a reference; on
 * success *ptr is the containing object (struct kdapl_ep etc.).
 */
#define kdapl_get(owner, handle, family, subtype, ptr) ({		\
	typeof(ptr) __kdapl_ptr = (ptr);				\
									\
	kdapl_object_get_typed(owner, handle, DAT_HANDLE_TYPE_##family,	\
			       subtype, (void **)__kdapl_ptr,		\
			       offsetof(typeof(**__kdapl_ptr), obj));	\
})

DAT_RETURN kdapl_object_get_typed(struct kdapl_owner *owner, DAT_HANDLE handle,
				  DAT_HANDLE_TYPE type,
				  DAT_RETURN_SUBTYPE bad_handle, void **ptr,
				  size_t offset);

/**
 * struct kdapl_owner - who opened IAs: a kernel consumer or an open file
 * @lock: protects @ias
 * @ias: open IAs of the owner
 * @kernel: the kernel consumers' owner, which alone may give kernel
 *	addresses and physical memory (see kdapl_owner_kernel())
 *
 * Every object belongs to the owner of its IA, and only that owner's
 * lookups find it.  When the owner goes away (the file is released)
 * every IA it still has is closed abruptly, which frees everything in
 * it.
 */
struct kdapl_owner {
	struct mutex lock;	/* see above */
	struct list_head ias;
	bool kernel;
};

extern struct kdapl_owner kdapl_kernel_owner;
void kdapl_owner_init(struct kdapl_owner *owner);
void kdapl_owner_show(struct kdapl_owner *owner, struct seq_file *m);

/**
 * kdapl_owner_kernel() - may an owner give kernel-only inputs?
 * @owner: the owner of a call
 *
 * Kernel virtual addresses, physical addresses and scatterlists
 * (DAT_MEM_TYPE_VIRTUAL on kernel memory, DAT_MEM_TYPE_PHYSICAL and
 * _PHYSICAL_VAR_PAGES, DAT_MEM_TYPE_SG) come from kernel consumers only:
 * every call that takes them checks this, so that an owner of
 * /dev/kdapl is refused by construction.
 *
 * Context: any context.
 * Return: true for the kernel consumers' owner.
 */
static inline bool kdapl_owner_kernel(const struct kdapl_owner *owner)
{
	return owner->kernel;
}

void kdapl_owner_release(struct kdapl_owner *owner);

/**
 * struct kdapl_ia - an open Interface Adapter
 * @obj: handle and references
 * @owner: who opened it
 * @owner_entry: link in &kdapl_owner.ias, under its lock
 * @adapter: the adapter opened, with a reference
 * @ibdev: its device; NULL once the device is gone
 * @lock: serialises creation and freeing of the IA's objects and protects
 *	@objects and the @users counts of the objects; process context only
 * @objects: every object of the IA except the IA itself
 * @async_evd: the asynchronous event EVD (with a use), or NULL
 * @async_evd_handle: its handle; events are posted through a lookup, so
 *	an EVD freed meanwhile only loses them
 * @async_evd_created: @async_evd was created by dat_ia_open()
 * @closing: an abrupt close is freeing the objects
 * @adapter_entry: link in &kdapl_adapter.ias, under its ia_lock
 * @addr: IPv4 address of the port's net_device at open time, or zero
 * @mtu: the port's active MTU in bytes at open time, as text
 * @provider_attr: the provider-specific attributes (the MTU) that
 *	dat_ia_query() reports; they point into the IA
 * @num_provider_attr: entries of @provider_attr in use
 * @ib_ext: KDAPL_IB_EXT_* flags: the IB extension operations the
 *	transport carries; set at open
 * @counters: the DAT_COUNTERS of the IA, by DAT_IA_COUNTERS (kdapl_counters.c)
 */
struct kdapl_ia {
	struct kdapl_object obj;
	struct kdapl_owner *owner;
	struct list_head owner_entry;
	struct kdapl_adapter *adapter;
	struct ib_device *ibdev;
	struct mutex lock;	/* see above */
	struct list_head objects;
	struct kdapl_evd *async_evd;
	DAT_EVD_HANDLE async_evd_handle;
	bool async_evd_created;
	bool closing;
	struct list_head adapter_entry;
	DAT_SOCK_ADDR addr;
	char mtu[12];
	DAT_NAMED_ATTR provider_attr[7];
	DAT_COUNT num_provider_attr;
	u32 ib_ext;
	atomic64_t counters[DCNT_IA_ALL_COUNTERS];
};

/* The privileges that give an LMR an rmr_context. */
#define KDAPL_MEM_PRIV_REMOTE	(DAT_MEM_PRIV_REMOTE_READ_FLAG |	\
				 DAT_MEM_PRIV_REMOTE_WRITE_FLAG |	\
				 DAT_IB_MEM_PRIV_REMOTE_ATOMIC)

/* The privileges an LMR may have: DAT's and the IB extension's. */
#define KDAPL_LMR_PRIV_ALL	(DAT_MEM_PRIV_ALL_FLAG |		\
				 DAT_IB_MEM_PRIV_REMOTE_ATOMIC)

/* struct kdapl_ia.ib_ext */
#define KDAPL_IB_EXT_IMMED_DATA	BIT(0)	/* RDMA Write with immediate */
#define KDAPL_IB_EXT_ATOMICS	BIT(1)	/* compare and swap, fetch and add */
#define KDAPL_IB_EXT_COUNTERS	BIT(2)	/* DAT_COUNTERS, kdapl_counters.c */
#define KDAPL_IB_EXT_UD		BIT(3)	/* datagram EPs, kdapl_ud.c */

/* The provider-specific attribute of the transport's MTU (as OFA's). */
#define KDAPL_ATTR_TRANSPORT_MTU	"DAT_IB_TRANSPORT_MTU"

DAT_RETURN kdapl_ia_open(struct kdapl_owner *owner, const char *name,
			 DAT_COUNT async_evd_qlen,
			 DAT_EVD_HANDLE *async_evd_handle,
			 DAT_IA_HANDLE *ia_handle);
DAT_RETURN kdapl_ia_teardown(struct kdapl_ia *ia, DAT_CLOSE_FLAGS flags);
void kdapl_ia_detach_adapter(struct kdapl_adapter *adapter);
void kdapl_ia_add_object(struct kdapl_ia *ia, struct kdapl_object *obj);
void kdapl_ia_del_object(struct kdapl_ia *ia, struct kdapl_object *obj);
void kdapl_ia_async_event(struct kdapl_ia *ia, DAT_EVENT_NUMBER number,
			  DAT_HANDLE handle, int reason);

/**
 * kdapl_object_alive() - has an object found by handle not been freed?
 * @obj: the object; a lookup holds its memory, not its life
 *
 * Context: the IA lock held: objects leave their IA's list under it.
 * Return: true while @obj is an object of its IA.
 */
static inline bool kdapl_object_alive(struct kdapl_object *obj)
{
	lockdep_assert_held(&obj->ia->lock);
	return !list_empty(&obj->ia_entry);
}

/* Take and drop a "user" reference that blocks freeing of @obj. */
static inline void kdapl_use(struct kdapl_object *obj)
{
	lockdep_assert_held(&obj->ia->lock);
	obj->users++;
}

static inline void kdapl_unuse(struct kdapl_object *obj)
{
	lockdep_assert_held(&obj->ia->lock);
	WARN_ON_ONCE(obj->users <= 0);
	obj->users--;
}

#define KDAPL_PZ_LMR_HASH_BITS	6
#define KDAPL_PZ_RMR_HASH_BITS	4

/**
 * struct kdapl_pz - a Protection Zone: an ib_pd
 * @obj: handle and references
 * @pd: the protection domain; NULL once the device is gone
 * @lmrs: LMRs of the PZ by lmr_context
 * @lmr_hash: the same LMRs hashed by lmr_context, for the segment checks
 *	of DTO posts (an RCU hlist lookup costs no call; an xarray indexed
 *	by device keys is deep); changed under the IA lock
 * @rmr_hash: bound RMRs of the PZ by rmr_context, for the sinks of
 *	dat_ep_post_rdma_read_to_rmr(); changed under the IA lock
 * @reg_mutex: serialises the registration work requests of the PZ's
 *	LMRs (kdapl_dto.c) and the deregistration of their MRs
 */
struct kdapl_pz {
	struct kdapl_object obj;
	struct ib_pd *pd;
	struct xarray lmrs;
	struct hlist_head lmr_hash[1 << KDAPL_PZ_LMR_HASH_BITS];
	struct hlist_head rmr_hash[1 << KDAPL_PZ_RMR_HASH_BITS];
	struct mutex reg_mutex;	/* see above */
};

/**
 * struct kdapl_evd - an Event Dispatcher
 * @obj: handle and references
 * @flags: DAT_EVD_*_FLAG streams the EVD takes
 * @lock: protects the ring, the upcall fields and the stream bookkeeping;
 *	taken with interrupts disabled, from any context
 * @ring: @qlen events, @count of them queued from @head
 * @qlen: capacity of @ring
 * @head: index of the oldest queued event
 * @count: queued events
 * @overflowed: an event was refused since the last dequeue; reported
 *	once on the async EVD
 * @policy: DAT_UPCALL_* policy
 * @upcall: upcall object, valid unless @policy is DAT_UPCALL_DISABLE
 * @upcalls_running: upcalls in progress (SINGLE_INSTANCE allows one),
 *	but for one on the lock-free fast path
 * @si: state of the SINGLE_INSTANCE fast path: off, idle (may be taken
 *	without @lock) or busy (an upcall runs), and a generation
 * @si_gen: generation of the last arming of @si; @lock
 * @upcall_done: woken when @upcalls_running drops to zero
 * @kick: delivers what kdapl_evd_post() queued to the upcall, on
 *	kdapl_wq; holds a reference while queued
 * @cq: completion queue for the DTO and RMR bind streams, or NULL
 * @cq_size: entries of @cq
 * @cq_reserved: entries the queues of QPs on @cq reserved (IA lock)
 * @xcqs: further CQs (struct kdapl_evd_xcq) for the queues that did not
 *	fit @cq: on a device that cannot resize it, or past the device's
 *	max_cqe (IA lock)
 * @stream_flags: completion flags of the EP streams that feed the EVD,
 *	the same for all (valid when @recv_streams or @request_streams)
 * @recv_streams: EP receive streams feeding the EVD
 * @request_streams: EP request streams feeding the EVD
 * @counters: the DAT_COUNTERS of the EVD, by DAT_EVD_COUNTERS
 * @gone: memory that queued events may point to, freed once none is
 *	queued and no upcall runs (kdapl_evd_defer_free()); @lock
 */
struct kdapl_evd {
	struct kdapl_object obj;
	DAT_EVD_FLAGS flags;
	spinlock_t lock;	/* see above */
	DAT_EVENT *ring;
	u32 qlen;
	u32 head;
	u32 count;
	bool overflowed;
	DAT_UPCALL_POLICY policy;
	DAT_UPCALL_OBJECT upcall;
	unsigned int upcalls_running;
	atomic_t si;
	u32 si_gen;
	wait_queue_head_t upcall_done;
	struct work_struct kick;
	struct ib_cq *cq;
	u32 cq_size;
	u32 cq_reserved;
	struct list_head xcqs;
	DAT_COMPLETION_FLAGS stream_flags;
	unsigned int recv_streams;
	unsigned int request_streams;
	atomic64_t counters[DCNT_EVD_ALL_COUNTERS];
	struct list_head gone;
};

/**
 * struct kdapl_evd_gone - memory that events on an EVD may point to
 * @node: in the EVD's gone list
 * @free: frees the memory, and does nothing else: it is called in any
 *	context, with any kdapl lock but evd->lock held
 *
 * A connection event carries a pointer to its private data, kept by the
 * connection that made the event.  An upcall reads it when it is handed
 * the event, which may be after the EP was reset or freed: the EVD's
 * kick work copies it to a file's event ring then.  Such memory is handed
 * to the EVD instead of being freed (kdapl_evd_defer_free()).
 */
struct kdapl_evd_gone {
	struct list_head node;
	void (*free)(struct kdapl_evd_gone *gone);
};

/* Which EP completion stream feeds an EVD. */
enum kdapl_stream {
	KDAPL_STREAM_RECV,
	KDAPL_STREAM_REQUEST,
};

DAT_RETURN kdapl_evd_create(struct kdapl_ia *ia, DAT_COUNT qlen,
			    DAT_UPCALL_POLICY policy,
			    const DAT_UPCALL_OBJECT *upcall,
			    DAT_EVD_FLAGS flags, struct kdapl_evd **evdp);
bool kdapl_evd_post(struct kdapl_evd *evd, const DAT_EVENT *event);
void kdapl_evd_defer_free(struct kdapl_evd *evd, struct kdapl_evd_gone *gone);
int kdapl_evd_deliver_slow(struct kdapl_evd *evd, DAT_EVENT *ev);
void kdapl_evd_si_finish(struct kdapl_evd *evd);

/*
 * The single-instance fast path.  With DAT_UPCALL_SINGLE_INSTANCE,
 * nothing queued and no upcall running, an event is handed to the
 * upcall without evd->lock: evd->si is then KDAPL_EVD_SI_IDLE, and the
 * deliverer that moves it to KDAPL_EVD_SI_BUSY (cmpxchg) runs the upcall
 * and moves it back.  Everyone else takes evd->lock through
 * kdapl_evd_lock() (kdapl_evd.c), which turns the fast state off first:
 * a fast upcall still running is then counted in upcalls_running like
 * any other, and its deliverer, whose cmpxchg back fails, finishes under
 * the lock (kdapl_evd_si_finish()) with the events queued meanwhile.
 * kdapl_evd_unlock() turns the fast state on again when the conditions
 * hold.  The generation in the upper bits changes at each arming, so
 * that an upcall object read before the cmpxchg is known to be the
 * current one when the cmpxchg succeeds.
 */
#define KDAPL_EVD_SI_OFF	0
#define KDAPL_EVD_SI_IDLE	1
#define KDAPL_EVD_SI_BUSY	2
#define KDAPL_EVD_SI_MODE	3
#define KDAPL_EVD_SI_GEN_SHIFT	2

/*
 * Hand @ev to the upcall on the fast path; false if the fast state was
 * not IDLE (the caller takes the locked path).
 */
static __always_inline bool kdapl_evd_si_deliver(struct kdapl_evd *evd,
						 const DAT_EVENT *ev)
{
	DAT_UPCALL_FUNC func;
	void *data;
	int s, busy;

	s = atomic_read_acquire(&evd->si);
	if ((s & KDAPL_EVD_SI_MODE) != KDAPL_EVD_SI_IDLE)
		return false;
	func = READ_ONCE(evd->upcall.upcall_func);
	data = READ_ONCE(evd->upcall.instance_data);
	busy = (s & ~KDAPL_EVD_SI_MODE) | KDAPL_EVD_SI_BUSY;
	/* Fully ordered: the upcall object read above is still current. */
	if (!atomic_try_cmpxchg(&evd->si, &s, busy))
		return false;
	func(data, ev, DAT_FALSE);
	s = busy;
	if (unlikely(!atomic_try_cmpxchg_release(&evd->si, &s,
						 (busy & ~KDAPL_EVD_SI_MODE) |
						 KDAPL_EVD_SI_IDLE)))
		kdapl_evd_si_finish(evd);
	return true;
}

/**
 * kdapl_evd_deliver() - deliver an event the caller gives up
 * @evd: the EVD, kept alive by the caller
 * @ev: the event: its evd_handle is set, and the upcall may be handed
 *	@ev itself
 *
 * Hands the event to the upcall from the caller's context, or queues it
 * (see dat_evd_post_se() for the policies).  For the completion handlers
 * of @evd's own CQ, and for dat_evd_post_se(); everything else goes
 * through kdapl_evd_post().  Inline: with a SINGLE_INSTANCE upcall and
 * nothing queued, the event goes to the upcall without a lock or a call
 * of kdapl's own.
 *
 * Context: any context; the caller holds no kdapl lock, since the
 * upcall may call kDAT.
 * Return: 0, or -ENOSPC when the ring was full (overflow reported), or
 * -ENODEV when the EVD has been freed.
 */
static inline int kdapl_evd_deliver(struct kdapl_evd *evd, DAT_EVENT *ev)
{
	ev->evd_handle = kdapl_object_handle(&evd->obj);
	if (kdapl_evd_si_deliver(evd, ev))
		return 0;
	return kdapl_evd_deliver_slow(evd, ev);
}

struct ib_cq *kdapl_evd_cq_reserve(struct kdapl_evd *evd, u32 n);
void kdapl_evd_cq_unreserve(struct kdapl_evd *evd, struct ib_cq *cq, u32 n);
DAT_COMPLETION_FLAGS kdapl_evd_stream_default(const struct kdapl_evd *evd);
DAT_RETURN kdapl_evd_attach_stream(struct kdapl_evd *evd,
				   enum kdapl_stream stream,
				   DAT_COMPLETION_FLAGS flags);
void kdapl_evd_detach_stream(struct kdapl_evd *evd, enum kdapl_stream stream);

/**
 * struct kdapl_srq - a Shared Receive Queue
 * @obj: handle and references
 * @pz: its PZ (in use while the SRQ exists)
 * @srq: the ib_srq; NULL once the device is gone
 * @lock: protects the counters and @state; any context
 * @state: DAT_SRQ_STATE_*
 * @max_recv_dtos: capacity asked for (the device may give more)
 * @max_recv_iov: segments per receive
 * @low_watermark: DAT_SRQ_LW_DEFAULT (none) or the armed limit
 * @posted: receives posted and not completed
 * @dev_max_wr: receives the device queue holds (at least @max_recv_dtos)
 * @free_recvs: receive contexts that can be posted, under @lock; with the
 *	posted ones they are always @max_recv_dtos
 * @spare_recvs: contexts set aside by a shrinking resize, IA lock
 * @chunks: memory of all the receive contexts, IA lock
 * @qps: the EP of each QP on the SRQ, keyed by the QP's address, for
 *	completions
 */
struct kdapl_srq {
	struct kdapl_object obj;
	struct kdapl_pz *pz;
	struct ib_srq *srq;
	spinlock_t lock;	/* see above */
	DAT_SRQ_STATE state;
	DAT_COUNT max_recv_dtos;
	DAT_COUNT max_recv_iov;
	DAT_COUNT low_watermark;
	atomic_t posted;
	u32 dev_max_wr;
	struct list_head free_recvs;
	struct list_head spare_recvs;
	struct list_head chunks;
	struct xarray qps;
};

/**
 * struct kdapl_srq_recv - context of one receive posted to an SRQ
 * @cqe: completion handle, the wr_cqe of the posted work request; its
 *	done callback gives the context back and reports the completion to
 *	the receive EVD of the EP in the QP's qp_context
 * @entry: link in &kdapl_srq.free_recvs or &kdapl_srq.spare_recvs while
 *	not posted
 * @srq: the SRQ
 * @cookie: the consumer's cookie, returned with the completion
 * @posted: on the device (SRQ lock)
 * @dead: an LMR of it was freed: it completes with a protection error
 * @sync: an LMR of it needs DMA syncs (kdapl_lmr_sync_sges())
 * @nlmr: entries of @lmrs (and @sge) in use
 * @lmrs: the LMR of each segment, max_recv_iov entries
 * @sge: the segments, max_recv_iov entries
 */
struct kdapl_srq_recv {
	struct ib_cqe cqe;
	struct list_head entry;
	struct kdapl_srq *srq;
	DAT_DTO_COOKIE cookie;
	bool posted;
	bool dead;
	bool sync;
	u16 nlmr;
	struct kdapl_lmr **lmrs;
	struct ib_sge *sge;
};

void kdapl_srq_forget_lmr(struct kdapl_srq *srq, const struct kdapl_lmr *lmr);
int kdapl_srq_attach_qp(struct kdapl_srq *srq, struct ib_qp *qp,
			struct kdapl_ep *ep);
void kdapl_srq_detach_qp(struct kdapl_srq *srq, struct ib_qp *qp);

/**
 * struct kdapl_ep - an Endpoint
 * @obj: handle and references
 * @lock: protects @state and @attr against concurrent modify and the
 *	connection upcalls; taken with interrupts disabled, any context
 * @state: DAT_EP_STATE_*
 * @pz: PZ, or NULL
 * @recv_evd: EVD of the receive completions, or NULL
 * @request_evd: EVD of the request completions, or NULL
 * @connect_evd: EVD of the connection events, or NULL
 * @srq: SRQ the EP takes its receives from, or NULL
 * @attr: current attributes
 * @recv_outstanding: receives posted and not completed
 * @request_outstanding: sends, RDMA operations and binds posted and not
 *	completed
 * @recvs_posted: a receive was ever posted (recv completion flags are
 *	fixed from then on)
 * @local_addr: local address once bound, else zero
 * @remote_addr: peer address once known, else zero
 * @local_port: local port qualifier
 * @remote_port: remote port qualifier
 *
 * Connection (kdapl_cm.c; see Documentation/connections.rst):
 * @cm_id: rdma_cm identifier of the current connection, or NULL
 * @qp: queue pair of the current connection, or NULL; set (with
 *	WRITE_ONCE, under @lock) once the QP is in INIT and cleared under
 *	@lock before it is destroyed; the DTO code posts to it under @lock
 * @conn: private connection state of kdapl_cm.c
 *
 * Data transfer (kdapl_dto.c; see Documentation/dto.rst):
 * @dto: private DTO state of kdapl_dto.c (work request contexts and the
 *	receives posted before the QP exists)
 * @counters: the DAT_COUNTERS of the EP, by DAT_EP_COUNTERS
 */
struct kdapl_ep {
	struct kdapl_object obj;
	spinlock_t lock;	/* see above */
	DAT_EP_STATE state;
	struct kdapl_pz *pz;
	struct kdapl_evd *recv_evd;
	struct kdapl_evd *request_evd;
	struct kdapl_evd *connect_evd;
	struct kdapl_srq *srq;
	DAT_EP_ATTR attr;
	atomic_t recv_outstanding;
	atomic_t request_outstanding;
	bool recvs_posted;
	DAT_SOCK_ADDR local_addr;
	DAT_SOCK_ADDR remote_addr;
	DAT_PORT_QUAL local_port;
	DAT_PORT_QUAL remote_port;
	/* connection, kdapl_cm.c */
	struct rdma_cm_id *cm_id;
	struct ib_qp *qp;
	struct kdapl_conn *conn;
	/* data transfer, kdapl_dto.c */
	struct kdapl_dto *dto;
	/* unreliable datagrams, kdapl_ud.c */
	struct kdapl_ud *ud;
	atomic64_t counters[DCNT_EP_ALL_COUNTERS];
};

/* Is @ep an unreliable datagram EP?  Its service type never changes. */
static inline bool kdapl_ep_is_ud(const struct kdapl_ep *ep)
{
	return ep->attr.service_type == DAT_IB_SERVICE_TYPE_UD;
}

struct ib_ud_wr;
DAT_RETURN kdapl_ud_wr(struct kdapl_ep *ep, const DAT_IB_ADDR_HANDLE *remote,
		       u64 length, struct ib_ud_wr *wr);
int kdapl_ud_ep_init(struct kdapl_ep *ep);
void kdapl_ud_ep_fini(struct kdapl_ep *ep);
void kdapl_ud_set_mtu(struct kdapl_ep *ep, u32 mtu);
struct rdma_ah_attr;
int kdapl_ud_ah_create(struct kdapl_ep *ep, struct ib_pd *pd,
		       struct rdma_ah_attr *attr, u32 qkey,
		       struct kdapl_ud_ah **ahp, u32 *idp);
void kdapl_ud_ah_destroy_all(struct kdapl_ep *ep);
void kdapl_ud_peers_stop(struct kdapl_ep *ep);
void kdapl_ud_peers_destroy(struct kdapl_ep *ep);
DAT_RETURN kdapl_cm_ud_up(struct kdapl_ep *ep);
DAT_RETURN kdapl_ud_connect(struct kdapl_ep *ep, const struct sockaddr *dst,
			    DAT_CONN_QUAL conn_qual, DAT_COUNT pd_size,
			    const void *pd);
struct kdapl_cr;
DAT_RETURN kdapl_ud_accept(struct kdapl_ep *ep, struct rdma_cm_id *id,
			   const void *pd, u8 pd_size,
			   const struct kdapl_cr *cr);
DAT_RETURN kdapl_ep_ud_cm_free(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle, DAT_CONTEXT cm);
void kdapl_dto_wait_requests(struct kdapl_ep *ep);
DAT_RETURN kdapl_ep_ud_ah_free(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle,
			       const DAT_IB_ADDR_HANDLE *remote);
DAT_RETURN kdapl_ep_post_send_ud(struct kdapl_owner *owner,
				 DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 const DAT_IB_ADDR_HANDLE *remote_ah,
				 DAT_DTO_COOKIE user_cookie,
				 DAT_COMPLETION_FLAGS completion_flags);
#if IS_ENABLED(CONFIG_KUNIT)
/* The module parameter ud_peers_max, for the KUnit suites. */
extern unsigned int kdapl_ud_peers_max;
#endif

/*
 * Count for DAT_COUNTERS (kdapl_counters.c).  Relaxed atomics: the
 * counters order nothing, and a reader wants each value whole.
 */
static inline void kdapl_ia_count(struct kdapl_ia *ia, DAT_IA_COUNTERS id)
{
	atomic64_inc(&ia->counters[id]);
}

static inline void kdapl_ep_count(struct kdapl_ep *ep, DAT_EP_COUNTERS id,
				  u64 n)
{
	atomic64_add(n, &ep->counters[id]);
}

static inline void kdapl_evd_count(struct kdapl_evd *evd, DAT_EVD_COUNTERS id)
{
	atomic64_inc(&evd->counters[id]);
}

DAT_RETURN kdapl_counters_query(struct kdapl_owner *owner, DAT_HANDLE handle,
				int counter, bool reset, u64 *values,
				unsigned int capacity, unsigned int *count);

void kdapl_ep_default_attr(struct kdapl_ia *ia, DAT_EP_ATTR *attr);
void kdapl_ep_set_state(struct kdapl_ep *ep, DAT_EP_STATE state);
DAT_RETURN kdapl_ep_state_error(DAT_EP_STATE state);

/* Is @state one of the connected states? */
static inline bool kdapl_ep_state_connected(DAT_EP_STATE state)
{
	return state == DAT_EP_STATE_CONNECTED ||
	       state == DAT_EP_STATE_CONNECTED_SINGLE_PATH ||
	       state == DAT_EP_STATE_CONNECTED_MULTI_PATH;
}

/**
 * kdapl_ep_connected_state() - may work requests be posted on an EP?
 * @ep: the EP, with ep->lock held
 *
 * Context: any context.
 * Return: DAT_SUCCESS for a connected EP with a QP, else the
 * DAT_INVALID_STATE error of its state (DISCONNECTED for a connection
 * being torn down).
 */
static inline DAT_RETURN kdapl_ep_connected_state(const struct kdapl_ep *ep)
{
	lockdep_assert_held(&ep->lock);
	if (!kdapl_ep_state_connected(ep->state))
		return kdapl_ep_state_error(ep->state);
	if (!ep->qp)
		return kdapl_ep_state_error(DAT_EP_STATE_DISCONNECTED);
	return DAT_SUCCESS;
}

/**
 * struct kdapl_lmr - a Local Memory Region
 * @obj: handle and references
 * @pz: its PZ (in use while the LMR exists)
 * @mem_type: DAT_MEM_TYPE_* it was created from
 * @region: region description as given
 * @length: length asked for
 * @priv: DAT_MEM_PRIV_* privileges
 * @va_type: DAT_VA_TYPE_*
 * @access: IB_ACCESS_* flags the registration work request must give
 * @mr: the memory region; NULL once the device is gone
 * @sgt: scatter table kdapl built and mapped (virtual and physical
 *	types); for DAT_MEM_TYPE_SG the caller's list is mapped in place
 * @sg: the mapped list (@sgt.sgl or the caller's)
 * @nents: entries of @sg given to the DMA API
 * @dma_nents: entries the DMA API returned
 * @lmr_context: local key
 * @rmr_context: remote key, zero without remote privileges
 * @registered_size: bytes covered by the registration
 * @registered_address: address of the first byte covered
 * @sge_lkey: the key local sends and receives use: the PD's
 *	local_dma_lkey when the LMR is one DMA-contiguous range, else
 *	@lmr_context
 * @sge_offset: what turns an address of the LMR into the address the
 *	work request gives with @sge_lkey (its DMA address, or itself)
 * @cpu_va: the LMR's addresses are the kernel's virtual addresses of its
 *	memory (DAT_MEM_TYPE_VIRTUAL, or an LMR shared from one), so that
 *	a small send can be copied inline by the device's post
 * @need_sync: the DMA mapping needs syncs around the device's accesses
 *	(a non-coherent or bounced mapping; never for virtual DMA devices)
 * @registered: the registration work request has completed on a QP of
 *	the PZ (see Documentation/objects.rst); at once for user memory
 * @user: the memory is a process's, pinned and registered by
 *	kdapl_umem_register()
 * @user_pages: pages it pins (the module's count)
 * @rmr_binds: RMR bindings of the LMR, and unbinds not completed yet
 *	(kdapl_rmr.c); dat_lmr_free() refuses while not zero.  Any context.
 * @hash_node: in the PZ's @lmr_hash while the LMR is in its @lmrs
 */
struct kdapl_lmr {
	struct kdapl_object obj;
	struct kdapl_pz *pz;
	DAT_MEM_TYPE mem_type;
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN length;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_VA_TYPE va_type;
	int access;
	struct ib_mr *mr;
	struct sg_table sgt;
	struct scatterlist *sg;
	unsigned int nents;
	int dma_nents;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VLEN registered_size;
	DAT_VADDR registered_address;
	u32 sge_lkey;
	u64 sge_offset;
	bool cpu_va;
	bool need_sync;
	bool registered;
	bool user;
	u64 user_pages;
	atomic_t rmr_binds;
	struct hlist_node hash_node;
};

/**
 * struct kdapl_uwin - pages of a user LMR that an RMR's MR maps
 * @mm: the process whose pinned_vm they are charged to, grabbed
 * @dev: the device they are DMA-mapped for
 * @sgt: the pages from the window's first byte to its last
 * @nents: entries of @sgt after DMA mapping
 * @writable: pinned for writing
 * @npages: pages in @pages
 * @pages: the pinned pages
 */
struct kdapl_uwin {
	struct mm_struct *mm;
	struct ib_device *dev;
	struct sg_table sgt;
	int nents;
	bool writable;
	unsigned int npages;
	struct page *pages[];
};

/**
 * struct kdapl_rmr - a Remote Memory Region (a memory window emulated
 *	with fast-registration MRs, bound by work requests)
 * @obj: handle and references
 * @pz: its PZ (in use while the RMR exists)
 * @lock: protects the binding (@lmr, @triplet, @priv, @rmr_context,
 *	@cur), @retiring, @busy and @broken; any context
 * @mr: the two MRs binds alternate between; NULL once the device is gone
 *	or after a repair failed (IA lock)
 * @win: for each of @mr, the pages of a user LMR it maps, or NULL (IA
 *	lock)
 * @cur: index in @mr of the current binding's MR
 * @max_pages: pages an MR can map
 * @lmr: LMR of the binding last posted (a use), or NULL
 * @retiring: LMR of the previous binding, in use until the bind posted
 *	completes
 * @triplet: range of the binding last posted
 * @priv: its privileges
 * @rmr_context: its remote key, zero when unbound
 * @busy: a bind or unbind work request is in flight
 * @broken: a bind failed; kdapl_rmr_repair_work() replaces the MRs
 * @idle: woken when @busy clears
 * @bind_ep: EP the last bind was posted on, with a reference (IA lock)
 * @hash_node: in the PZ's rmr_hash while @rmr_context is not zero
 * @repair: the repair after a failed bind, on kdapl_wq
 * @repair_evd: EVD of the failed bind's event, with a reference, or NULL
 * @repair_event: that event, delivered once the repair is done
 */
struct kdapl_rmr {
	struct kdapl_object obj;
	struct kdapl_pz *pz;
	spinlock_t lock;	/* see above */
	struct ib_mr *mr[2];
	struct kdapl_uwin *win[2];
	u8 cur;
	u32 max_pages;
	struct kdapl_lmr *lmr;
	struct kdapl_lmr *retiring;
	DAT_LMR_TRIPLET triplet;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_RMR_CONTEXT rmr_context;
	bool busy;
	bool broken;
	wait_queue_head_t idle;
	struct kdapl_ep *bind_ep;
	struct hlist_node hash_node;
	struct work_struct repair;
	struct kdapl_evd *repair_evd;
	DAT_EVENT repair_event;
};

/**
 * kdapl_lmr_covers() - is a range inside what an LMR registered?
 * @lmr: the LMR
 * @va: first byte, in the LMR's address space
 * @len: bytes; 0 is always covered
 *
 * Inline: every DTO segment is checked with it.
 *
 * Context: any context; the registered range of an LMR never changes.
 * Return: true if [@va, @va + @len) lies within the registered range.
 */
static inline bool kdapl_lmr_covers(const struct kdapl_lmr *lmr,
				    DAT_VADDR va, DAT_VLEN len)
{
	if (!len)
		return true;
	return va >= lmr->registered_address &&
	       len <= lmr->registered_size &&
	       va - lmr->registered_address <= lmr->registered_size - len;
}

void kdapl_lmr_sync_range(struct kdapl_lmr *lmr, DAT_VADDR va, DAT_VLEN len,
			  bool for_cpu);
DAT_RETURN kdapl_umem_register(struct kdapl_lmr *lmr, struct kdapl_ia *ia);
void kdapl_umem_release(struct kdapl_lmr *lmr);
DAT_RETURN kdapl_umem_window(struct ib_device *dev, u64 va, u64 len,
			     bool writable, struct kdapl_uwin **winp);
void kdapl_umem_window_release(struct kdapl_uwin *win);
u64 kdapl_umem_pinned_pages(void);
void kdapl_lmr_sync_sges(struct kdapl_lmr *const *lmrs,
			 const struct ib_sge *sge, unsigned int n,
			 bool for_cpu);
#if IS_ENABLED(CONFIG_KUNIT)
extern atomic_t kdapl_lmr_sge_syncs[2];

/**
 * struct kdapl_dto_test_hooks - where KUnit cases step into the DTO code
 * @reg: when set, called before each registration batch is posted, so
 *	that a case can hold registrations back, or fail them with the
 *	negative errno it returns
 */
struct kdapl_dto_test_hooks {
	int (*reg)(void);
};

extern struct kdapl_dto_test_hooks kdapl_dto_test_hooks;
#endif

/**
 * kdapl_lmr_sge() - the work request segment of a local segment
 * @lmr: the LMR of @t, checked to cover it
 * @t: the segment
 * @sge: filled with the key and address of the LMR's local access (the
 *	PD's local_dma_lkey and the DMA address for an LMR that is one DMA
 *	range, see kdapl_lmr_map()) and the length
 *
 * For sends, RDMA Write sources and receives; RDMA Read sinks use the
 * MR's key.
 *
 * Context: any context.
 */
static inline void kdapl_lmr_sge(const struct kdapl_lmr *lmr,
				 const DAT_LMR_TRIPLET *t, struct ib_sge *sge)
{
	sge->addr = t->virtual_address + lmr->sge_offset;
	sge->length = t->segment_length;
	sge->lkey = lmr->sge_lkey;
}

/**
 * kdapl_pz_lmr_rcu() - the LMR of a PZ with a given lmr_context
 * @pz: the PZ
 * @lmr_context: the key
 *
 * Context: any context, under rcu_read_lock() or with interrupts
 * disabled; the LMR's memory stays until a grace period after it left
 * the PZ.
 * Return: the LMR, or NULL.
 */
static inline struct kdapl_lmr *kdapl_pz_lmr_rcu(struct kdapl_pz *pz,
						 DAT_LMR_CONTEXT lmr_context)
{
	struct hlist_head *head;
	struct kdapl_lmr *lmr;

	head = &pz->lmr_hash[hash_32(lmr_context, KDAPL_PZ_LMR_HASH_BITS)];
	hlist_for_each_entry_rcu(lmr, head, hash_node)
		if (lmr->lmr_context == lmr_context)
			return lmr;
	return NULL;
}

void kdapl_pz_add_lmr_hash(struct kdapl_pz *pz, struct kdapl_lmr *lmr);
void kdapl_pz_del_lmr_hash(struct kdapl_lmr *lmr);
void kdapl_pz_add_rmr_hash(struct kdapl_pz *pz, struct kdapl_rmr *rmr);
void kdapl_pz_del_rmr_hash(struct kdapl_rmr *rmr);
struct kdapl_rmr *kdapl_pz_rmr_rcu(struct kdapl_pz *pz,
				   DAT_RMR_CONTEXT rmr_context);

int kdapl_mem_access(const struct kdapl_ia *ia, DAT_MEM_PRIV_FLAGS priv);

void kdapl_rmr_bind_lmr(struct kdapl_rmr *rmr, struct kdapl_lmr *lmr,
			const DAT_LMR_TRIPLET *triplet,
			DAT_MEM_PRIV_FLAGS priv);
void kdapl_rmr_unbind(struct kdapl_rmr *rmr);
bool kdapl_rmr_bind_done(struct kdapl_rmr *rmr, struct kdapl_evd *evd,
			 enum ib_wc_status status, const DAT_EVENT *ev);
DAT_RETURN kdapl_rmr_sink(struct kdapl_pz *pz, const DAT_RMR_TRIPLET *t,
			  bool iwarp, struct ib_sge *sge);

/*
 * The kDAT calls for an owner.  The dat_*() functions of kdat.h pass
 * &kdapl_kernel_owner; an open file of /dev/kdapl passes its own.
 */
DAT_RETURN kdapl_object_get(struct kdapl_owner *owner, DAT_HANDLE handle,
			    DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE bad_handle,
			    struct kdapl_object **objp);
DAT_RETURN kdapl_object_get_typed(struct kdapl_owner *owner, DAT_HANDLE handle,
				  DAT_HANDLE_TYPE type,
				  DAT_RETURN_SUBTYPE bad_handle, void **ptr,
				  size_t offset);
DAT_RETURN kdapl_get_handle_type(struct kdapl_owner *owner, DAT_HANDLE handle,
				 DAT_HANDLE_TYPE *type);
DAT_RETURN kdapl_ia_open(struct kdapl_owner *owner, const char *name,
			 DAT_COUNT async_evd_qlen,
			 DAT_EVD_HANDLE *async_evd_handle,
			 DAT_IA_HANDLE *ia_handle);
DAT_RETURN kdapl_ia_close(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			  DAT_CLOSE_FLAGS flags);
DAT_RETURN kdapl_ia_query(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			  DAT_EVD_HANDLE *async_evd_handle,
			  DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			  DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			  DAT_PROVIDER_ATTR *provider_attr);
DAT_RETURN kdapl_pz_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			   DAT_PZ_HANDLE *pz_handle);
DAT_RETURN kdapl_pz_query(struct kdapl_owner *owner, DAT_PZ_HANDLE pz_handle,
			  DAT_PZ_PARAM_MASK mask, DAT_PZ_PARAM *param);
DAT_RETURN kdapl_pz_free(struct kdapl_owner *owner, DAT_PZ_HANDLE pz_handle);
DAT_RETURN kdapl_evd_kcreate(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			     DAT_COUNT evd_min_qlen,
			     DAT_UPCALL_POLICY upcall_policy,
			     const DAT_UPCALL_OBJECT *upcall,
			     DAT_EVD_FLAGS evd_flags,
			     DAT_EVD_HANDLE *evd_handle);
DAT_RETURN kdapl_evd_free(struct kdapl_owner *owner, DAT_EVD_HANDLE evd_handle);
DAT_RETURN kdapl_evd_post_se(struct kdapl_owner *owner,
			     DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event);
DAT_RETURN kdapl_evd_dequeue(struct kdapl_owner *owner,
			     DAT_EVD_HANDLE evd_handle, DAT_EVENT *event);
DAT_RETURN kdapl_evd_attach_sink(struct kdapl_owner *owner,
				 DAT_EVD_HANDLE evd_handle,
				 const DAT_UPCALL_OBJECT *sink,
				 struct kdapl_evd **evdp);
void kdapl_evd_put_sink(struct kdapl_evd *evd);
DAT_RETURN kdapl_evd_modify_upcall(struct kdapl_owner *owner,
				   DAT_EVD_HANDLE evd_handle,
				   DAT_UPCALL_POLICY upcall_policy,
				   const DAT_UPCALL_OBJECT *upcall);
DAT_RETURN kdapl_evd_query(struct kdapl_owner *owner, DAT_EVD_HANDLE evd_handle,
			   DAT_EVD_PARAM_MASK mask, DAT_EVD_PARAM *param);
DAT_RETURN kdapl_evd_resize(struct kdapl_owner *owner,
			    DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen);
DAT_RETURN kdapl_ep_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			   DAT_PZ_HANDLE pz_handle,
			   DAT_EVD_HANDLE recv_evd_handle,
			   DAT_EVD_HANDLE request_evd_handle,
			   DAT_EVD_HANDLE connect_evd_handle,
			   const DAT_EP_ATTR *ep_attributes,
			   DAT_EP_HANDLE *ep_handle);
DAT_RETURN kdapl_ep_create_with_srq(struct kdapl_owner *owner,
				    DAT_IA_HANDLE ia_handle,
				    DAT_PZ_HANDLE pz_handle,
				    DAT_EVD_HANDLE recv_evd_handle,
				    DAT_EVD_HANDLE request_evd_handle,
				    DAT_EVD_HANDLE connect_evd_handle,
				    DAT_SRQ_HANDLE srq_handle,
				    const DAT_EP_ATTR *ep_attributes,
				    DAT_EP_HANDLE *ep_handle);
DAT_RETURN kdapl_ep_query(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle,
			  DAT_EP_PARAM_MASK mask, DAT_EP_PARAM *param);
DAT_RETURN kdapl_ep_modify(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle,
			   DAT_EP_PARAM_MASK mask, const DAT_EP_PARAM *param);
DAT_RETURN kdapl_ep_recv_query(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle,
			       DAT_COUNT *nbufs_allocated,
			       DAT_COUNT *bufs_alloc_span);
DAT_RETURN kdapl_ep_set_watermark(struct kdapl_owner *owner,
				  DAT_EP_HANDLE ep_handle,
				  DAT_COUNT soft_high_watermark,
				  DAT_COUNT hard_high_watermark);
DAT_RETURN kdapl_ep_get_status(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			       DAT_BOOLEAN *recv_idle,
			       DAT_BOOLEAN *request_idle);
DAT_RETURN kdapl_ep_reset(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle);
DAT_RETURN kdapl_ep_free(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle);
DAT_RETURN kdapl_ep_connect(struct kdapl_owner *owner, DAT_EP_HANDLE ep_handle,
			    DAT_IA_ADDRESS_PTR remote_ia_address,
			    DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			    DAT_COUNT private_data_size,
			    const DAT_PVOID private_data, DAT_QOS qos,
			    DAT_CONNECT_FLAGS connect_flags);
DAT_RETURN kdapl_ep_dup_connect(struct kdapl_owner *owner,
				DAT_EP_HANDLE ep_handle,
				DAT_EP_HANDLE ep_dup_handle,
				DAT_TIMEOUT timeout,
				DAT_COUNT private_data_size,
				const DAT_PVOID private_data, DAT_QOS qos);
DAT_RETURN kdapl_ep_common_connect(struct kdapl_owner *owner,
				   DAT_EP_HANDLE ep_handle,
				   DAT_IA_ADDRESS_PTR remote_ia_address,
				   DAT_TIMEOUT timeout,
				   DAT_COUNT private_data_size,
				   const DAT_PVOID private_data);
DAT_RETURN kdapl_ep_disconnect(struct kdapl_owner *owner,
			       DAT_EP_HANDLE ep_handle,
			       DAT_CLOSE_FLAGS disconnect_flags);
DAT_RETURN kdapl_ep_post_recv(struct kdapl_owner *owner,
			      DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			      DAT_LMR_TRIPLET *local_iov,
			      DAT_DTO_COOKIE user_cookie,
			      DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN kdapl_ep_post_send(struct kdapl_owner *owner,
			      DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			      DAT_LMR_TRIPLET *local_iov,
			      DAT_DTO_COOKIE user_cookie,
			      DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN kdapl_ep_post_send_with_invalidate(struct kdapl_owner *owner,
					      DAT_EP_HANDLE ep_handle,
					      DAT_COUNT num_segments,
					      DAT_LMR_TRIPLET *local_iov,
					      DAT_DTO_COOKIE user_cookie,
					      DAT_COMPLETION_FLAGS completion_flags,
					      DAT_BOOLEAN invalidate_flag,
					      DAT_RMR_CONTEXT rmr_context);
DAT_RETURN kdapl_ep_post_rdma_write(struct kdapl_owner *owner,
				    DAT_EP_HANDLE ep_handle,
				    DAT_COUNT num_segments,
				    DAT_LMR_TRIPLET *local_iov,
				    DAT_DTO_COOKIE user_cookie,
				    const DAT_RMR_TRIPLET *remote_iov,
				    DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN kdapl_ep_post_rdma_read(struct kdapl_owner *owner,
				   DAT_EP_HANDLE ep_handle,
				   DAT_COUNT num_segments,
				   DAT_LMR_TRIPLET *local_iov,
				   DAT_DTO_COOKIE user_cookie,
				   const DAT_RMR_TRIPLET *remote_iov,
				   DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN kdapl_ep_post_failed(struct kdapl_owner *owner,
				DAT_EP_HANDLE ep_handle, DAT_DTOS op,
				DAT_DTO_COOKIE user_cookie,
				DAT_DTO_COMPLETION_STATUS status);
DAT_RETURN kdapl_ep_post_rdma_read_to_rmr(struct kdapl_owner *owner,
					  DAT_EP_HANDLE ep_handle,
					  const DAT_RMR_TRIPLET *local_iov,
					  DAT_DTO_COOKIE user_cookie,
					  const DAT_RMR_TRIPLET *remote_iov,
					  DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN kdapl_ep_post_rdma_write_immed(struct kdapl_owner *owner,
					  DAT_EP_HANDLE ep_handle,
					  DAT_COUNT num_segments,
					  DAT_LMR_TRIPLET *local_iov,
					  DAT_DTO_COOKIE user_cookie,
					  const DAT_RMR_TRIPLET *remote_iov,
					  DAT_UINT32 immed_data,
					  DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN kdapl_ep_post_atomic(struct kdapl_owner *owner,
				DAT_EP_HANDLE ep_handle, bool fetch_add,
				u64 compare_add, u64 swap,
				DAT_LMR_TRIPLET *local_iov,
				DAT_DTO_COOKIE user_cookie,
				const DAT_RMR_TRIPLET *remote_iov,
				DAT_COMPLETION_FLAGS completion_flags);
DAT_RETURN kdapl_lmr_kcreate(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			     DAT_MEM_TYPE mem_type,
			     DAT_REGION_DESCRIPTION region_description,
			     DAT_VLEN length, DAT_PZ_HANDLE pz_handle,
			     DAT_MEM_PRIV_FLAGS privileges, DAT_VA_TYPE va_type,
			     DAT_MEM_OPTIMIZE_FLAGS optimization,
			     DAT_LMR_HANDLE *lmr_handle,
			     DAT_LMR_CONTEXT *lmr_context,
			     DAT_RMR_CONTEXT *rmr_context,
			     DAT_VLEN *registered_length,
			     DAT_VADDR *registered_address);
DAT_RETURN kdapl_lmr_query(struct kdapl_owner *owner, DAT_LMR_HANDLE lmr_handle,
			   DAT_LMR_PARAM_MASK mask, DAT_LMR_PARAM *param);
DAT_RETURN kdapl_lmr_free(struct kdapl_owner *owner, DAT_LMR_HANDLE lmr_handle);
DAT_RETURN kdapl_lmr_sync_rdma_read(struct kdapl_owner *owner,
				    DAT_IA_HANDLE ia_handle,
				    const DAT_LMR_TRIPLET *local_segments,
				    DAT_VLEN num_segments);
DAT_RETURN kdapl_lmr_sync_rdma_write(struct kdapl_owner *owner,
				     DAT_IA_HANDLE ia_handle,
				     const DAT_LMR_TRIPLET *local_segments,
				     DAT_VLEN num_segments);
DAT_RETURN kdapl_rmr_create(struct kdapl_owner *owner, DAT_PZ_HANDLE pz_handle,
			    DAT_RMR_HANDLE *rmr_handle);
DAT_RETURN kdapl_rmr_query(struct kdapl_owner *owner, DAT_RMR_HANDLE rmr_handle,
			   DAT_RMR_PARAM_MASK mask, DAT_RMR_PARAM *param);
DAT_RETURN kdapl_rmr_free(struct kdapl_owner *owner, DAT_RMR_HANDLE rmr_handle);
DAT_RETURN kdapl_rmr_bind(struct kdapl_owner *owner, DAT_RMR_HANDLE rmr_handle,
			  DAT_LMR_HANDLE lmr_handle,
			  const DAT_LMR_TRIPLET *lmr_triplet,
			  DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			  DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie,
			  DAT_COMPLETION_FLAGS completion_flags,
			  DAT_RMR_CONTEXT *rmr_context);
DAT_RETURN kdapl_psp_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    DAT_CONN_QUAL conn_qual, DAT_EVD_HANDLE evd_handle,
			    DAT_PSP_FLAGS psp_flags, DAT_PSP_HANDLE *psp_handle);
DAT_RETURN kdapl_psp_create_any(struct kdapl_owner *owner,
				DAT_IA_HANDLE ia_handle,
				DAT_CONN_QUAL *conn_qual,
				DAT_EVD_HANDLE evd_handle,
				DAT_PSP_FLAGS psp_flags,
				DAT_PSP_HANDLE *psp_handle);
DAT_RETURN kdapl_psp_query(struct kdapl_owner *owner, DAT_PSP_HANDLE psp_handle,
			   DAT_PSP_PARAM_MASK mask, DAT_PSP_PARAM *param);
DAT_RETURN kdapl_psp_free(struct kdapl_owner *owner, DAT_PSP_HANDLE psp_handle);
DAT_RETURN kdapl_rsp_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    DAT_CONN_QUAL conn_qual, DAT_EP_HANDLE ep_handle,
			    DAT_EVD_HANDLE evd_handle,
			    DAT_RSP_HANDLE *rsp_handle);
DAT_RETURN kdapl_rsp_query(struct kdapl_owner *owner, DAT_RSP_HANDLE rsp_handle,
			   DAT_RSP_PARAM_MASK mask, DAT_RSP_PARAM *param);
DAT_RETURN kdapl_rsp_free(struct kdapl_owner *owner, DAT_RSP_HANDLE rsp_handle);
struct kdapl_sp;
DAT_RETURN kdapl_sp_create(struct kdapl_owner *owner, DAT_HANDLE_TYPE type,
			   DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			   bool any, DAT_EP_HANDLE ep_handle,
			   DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			   const struct kdapl_sp *csp,
			   DAT_CONN_QUAL *conn_qual_out, DAT_HANDLE *sp_handle);
DAT_RETURN kdapl_sp_free(struct kdapl_owner *owner, DAT_HANDLE handle,
			 DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE bad);
void kdapl_sp_force_free(struct kdapl_object *obj);
void kdapl_sp_detach(struct kdapl_object *obj);
void kdapl_sp_release(struct kdapl_object *obj);
bool kdapl_csp_local(const struct kdapl_ia *ia, const struct sockaddr *addr);
DAT_RETURN kdapl_csp_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    const DAT_COMM *comm,
			    DAT_IA_ADDRESS_PTR address,
			    DAT_EVD_HANDLE evd_handle,
			    DAT_CSP_HANDLE *csp_handle);
DAT_RETURN kdapl_csp_query(struct kdapl_owner *owner, DAT_CSP_HANDLE csp_handle,
			   DAT_CSP_PARAM_MASK mask, DAT_CSP_PARAM *param);
DAT_RETURN kdapl_csp_free(struct kdapl_owner *owner, DAT_CSP_HANDLE csp_handle);
DAT_RETURN kdapl_cr_query(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			  DAT_CR_PARAM_MASK mask, DAT_CR_PARAM *param);
DAT_RETURN kdapl_cr_accept(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			   DAT_EP_HANDLE ep_handle, DAT_COUNT private_data_size,
			   const DAT_PVOID private_data);
DAT_RETURN kdapl_cr_drop(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle);
DAT_RETURN kdapl_cr_reject(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			   DAT_COUNT private_data_size,
			   const DAT_PVOID private_data);
DAT_RETURN kdapl_cr_handoff(struct kdapl_owner *owner, DAT_CR_HANDLE cr_handle,
			    DAT_CONN_QUAL handoff);
DAT_RETURN kdapl_srq_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    DAT_PZ_HANDLE pz_handle,
			    const DAT_SRQ_ATTR *srq_attr,
			    DAT_SRQ_HANDLE *srq_handle);
DAT_RETURN kdapl_srq_post_recv(struct kdapl_owner *owner,
			       DAT_SRQ_HANDLE srq_handle,
			       DAT_COUNT num_segments,
			       const DAT_LMR_TRIPLET *local_iov,
			       DAT_DTO_COOKIE user_cookie);
DAT_RETURN kdapl_srq_query(struct kdapl_owner *owner, DAT_SRQ_HANDLE srq_handle,
			   DAT_SRQ_PARAM_MASK mask, DAT_SRQ_PARAM *param);
DAT_RETURN kdapl_srq_resize(struct kdapl_owner *owner,
			    DAT_SRQ_HANDLE srq_handle,
			    DAT_COUNT srq_max_recv_dto);
DAT_RETURN kdapl_srq_set_lw(struct kdapl_owner *owner,
			    DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark);
DAT_RETURN kdapl_srq_free(struct kdapl_owner *owner, DAT_SRQ_HANDLE srq_handle);

/* ---------------------------------------------------------------------
 * Connections (kdapl_cm.c, kdapl_sp.c, kdapl_cr.c) and data transfer
 * (kdapl_dto.c).  The two halves meet only through these calls.
 */

/*
 * Send queue slots a QP has beyond max_request_dtos, for the memory
 * registration and RMR bind work requests of kdapl_dto.c.
 */
#define KDAPL_EP_SEND_WR_EXTRA	32

/*
 * Slots each queue of a QP has beyond the consumer's and the above: the
 * drain work request of ib_drain_qp(), and the message of the iWARP
 * initiator-first exchange (kdapl_cm.c).
 */
#define KDAPL_EP_WR_RESERVED	2

/*
 * Every rdma_cm identifier of kdapl is created with kdapl_cm_handler()
 * and its context points to one of these, embedded in the object that
 * owns the identifier at the time; ownership moves by changing the
 * context (WRITE_ONCE) from listener to CR to EP.
 *
 * Lock rule: the rdma_cm event handlers never take an IA lock (a mutex),
 * so rdma_destroy_id() may be called with an IA lock held.  Work that
 * needs the IA lock (publishing a CR) is queued on kdapl_wq.
 */
enum kdapl_cm_kind {
	KDAPL_CM_SP,	/* listener of a PSP or RSP (kdapl_sp.c) */
	KDAPL_CM_CR,	/* request not yet accepted (kdapl_cr.c) */
	KDAPL_CM_EP,	/* connection of an EP (kdapl_cm.c) */
	KDAPL_CM_UD,	/* a datagram EP's resolution of a peer (kdapl_ud.c) */
};

struct kdapl_cm_ctx {
	enum kdapl_cm_kind kind;
};

extern struct workqueue_struct *kdapl_wq;

int kdapl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);
int kdapl_sp_cm_event(struct kdapl_cm_ctx *ctx, struct rdma_cm_id *id,
		      struct rdma_cm_event *event);
int kdapl_ud_cm_event(struct kdapl_cm_ctx *ctx, struct rdma_cm_id *id,
		      struct rdma_cm_event *event);

/*
 * Longest private data kdapl keeps for any transport: the iWARP MPA
 * limit.  The IA attributes report the limit of its own transport.
 */
#define KDAPL_PRIVATE_DATA_MAX	256

/**
 * struct kdapl_sp - a Public, Reserved or Common Service Point: a listener
 * @obj: handle and references (type PSP, RSP or CSP)
 * @ctx: rdma_cm context of @cm_id
 * @cm_id: the listening identifier; NULL once the SP is freed or its
 *	device is gone (IA lock)
 * @ud_cm_id: a PSP's listener of datagram EPs' resolution requests, in
 *	rdma_cm's RDMA_PS_UDP space, or NULL (IA lock)
 * @evd: EVD of the connection requests (in use while the SP exists, its
 *	memory referenced until the SP's is released)
 * @conn_qual: the port listened on
 * @flags: DAT_PSP_* flags (PSP)
 * @ep: the EP reserved by an RSP, with a reference, until a request
 *	arrives for it or the RSP is freed (IA lock)
 * @lock: protects @closed and @consumed; any context
 * @closed: the SP is freed or lost its device: requests still in flight
 *	are rejected
 * @consumed: an RSP took its one request
 * @comm: the communicator a CSP was created with
 * @address: the address a CSP listens on, as given
 */
struct kdapl_sp {
	struct kdapl_object obj;
	struct kdapl_cm_ctx ctx;
	struct rdma_cm_id *cm_id;
	struct rdma_cm_id *ud_cm_id;
	struct kdapl_evd *evd;
	DAT_CONN_QUAL conn_qual;
	DAT_PSP_FLAGS flags;
	struct kdapl_ep *ep;
	spinlock_t lock;	/* see above */
	bool closed;
	bool consumed;
	DAT_COMM comm;
	DAT_SOCK_ADDR address;
};

/**
 * struct kdapl_cr - a Connection Request
 * @obj: handle and references
 * @ctx: rdma_cm context of @cm_id while the CR owns it
 * @cm_id: the request's identifier, owned by the CR until it is accepted
 *	(then by the EP, or destroyed if the request was dead) or rejected
 *	(then destroyed); NULL afterwards or once the device is gone (IA
 *	lock)
 * @sp: the service point it arrived on, with a reference (the SP may be
 *	freed meanwhile; the CR stays valid)
 * @work: publishes the CR and reports it, out of the rdma_cm handler
 * @ep: EP reserved for it (RSP, or created by the provider) with a
 *	reference, or NULL (IA lock)
 * @provider_ep: @ep was created by kdapl for a DAT_PSP_PROVIDER_FLAG PSP
 * @ud: a datagram EP's resolution request (DAT_IB_UD_CONNECTION_REQUEST_EVENT),
 *	for a datagram EP
 * @local_addr: address the request arrived at
 * @remote_addr: the peer's address
 * @remote_port: the peer's port
 * @conn_qual: conn_qual it arrived at
 * @private_data_size: bytes of @private_data
 * @private_data: the peer's private data
 */
struct kdapl_cr {
	struct kdapl_object obj;
	struct kdapl_cm_ctx ctx;
	struct rdma_cm_id *cm_id;
	struct kdapl_sp *sp;
	struct work_struct work;
	struct kdapl_ep *ep;
	bool provider_ep;
	bool ud;
	DAT_SOCK_ADDR local_addr;
	DAT_SOCK_ADDR remote_addr;
	DAT_PORT_QUAL remote_port;
	DAT_CONN_QUAL conn_qual;
	DAT_COUNT private_data_size;
	u8 private_data[KDAPL_PRIVATE_DATA_MAX];
};

/* A request arrived on @sp (its rdma_cm handler); kdapl_cr.c. */
int kdapl_cr_arrive(struct kdapl_sp *sp, struct rdma_cm_id *id,
		    const struct rdma_cm_event *event);
/* Report a CR on an SP's EVD; the CR is published.  No IA lock. */
void kdapl_cr_report(struct kdapl_cr *cr, struct kdapl_sp *sp);

extern const struct kdapl_type_ops kdapl_psp_type;
extern const struct kdapl_type_ops kdapl_rsp_type;
extern const struct kdapl_type_ops kdapl_csp_type;
extern const struct kdapl_type_ops kdapl_cr_type;

/* Accept the request of a CR on an EP; kdapl_cm.c. */
DAT_RETURN kdapl_cm_accept(struct kdapl_ep *ep, struct rdma_cm_id *id,
			   const void *private_data, u8 private_data_size,
			   const struct kdapl_cr *cr);
/* Largest private data of the IA's transport (connect/accept/reject). */
DAT_COUNT kdapl_cm_private_data_max(const struct kdapl_ia *ia);

/*
 * kdapl_port.c: binding identifiers on the IA's device, and local ports
 * of active connections on soft iWARP.
 */
struct socket;
int kdapl_port_bind_addr(struct rdma_cm_id *id, const struct sockaddr *addr,
			 struct ib_device *ibdev);
int kdapl_port_bind(struct rdma_cm_id *id, const struct sockaddr *src,
		    struct ib_device *ibdev, struct socket **sockp);
void kdapl_port_release(struct socket *sock);

/**
 * kdapl_sockaddr_port() - the port of an address
 * @sa: an IPv4 or IPv6 address
 *
 * Context: any context.
 * Return: the port, in host order; 0 for another family.
 */
static inline u16 kdapl_sockaddr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return 0;
}

/**
 * kdapl_sockaddr_set_port() - set the port of an address
 * @sa: an IPv4 or IPv6 address
 * @port: the port, in host order
 *
 * Context: any context.
 */
static inline void kdapl_sockaddr_set_port(struct sockaddr *sa, u16 port)
{
	if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)sa)->sin_port = htons(port);
}

/* Qualifiers above the ports fold into 33534..65534; see below. */
#define KDAPL_CONN_QUAL_FOLD_MOD	32001U
#define KDAPL_CONN_QUAL_FOLD_BASE	(U16_MAX - KDAPL_CONN_QUAL_FOLD_MOD)

/**
 * kdapl_conn_qual_port() - the rdma_cm port of a connection qualifier
 * @conn_qual: a qualifier, not 0
 *
 * Qualifiers 1 to 65535 are the ports of rdma_cm's TCP port space.  A
 * larger one (DAT_CONN_QUAL has 64 bits) is folded into 33534..65534 as
 * OFA's uDAPL provider folds it, so that the two meet on any qualifier:
 * @conn_qual modulo 32001, plus 33534.  Two qualifiers that fold to one
 * port cannot both listen on an IA (the second gets
 * DAT_CONN_QUAL_IN_USE), and a connection to one of them reaches
 * whichever listens.
 *
 * Context: any context.
 * Return: the port.
 */
static inline u16 kdapl_conn_qual_port(DAT_CONN_QUAL conn_qual)
{
	if (conn_qual <= U16_MAX)
		return conn_qual;
	return KDAPL_CONN_QUAL_FOLD_BASE + conn_qual % KDAPL_CONN_QUAL_FOLD_MOD;
}

/* Called by kdapl_ep.c with the IA lock held (process context). */
void kdapl_cm_ep_destroy(struct kdapl_ep *ep);
void kdapl_cm_ep_reset(struct kdapl_ep *ep);
void kdapl_cm_ep_break(struct kdapl_ep *ep);
void kdapl_cm_qp_broken(struct kdapl_ep *ep, struct ib_qp *qp);
bool kdapl_conn_srq_rtr(struct kdapl_ep *ep, const struct ib_wc *wc);
void kdapl_conn_qp_caps(const struct kdapl_ep *ep, const DAT_EP_ATTR *attr,
			struct ib_qp_init_attr *init, u32 *send_cqes,
			u32 *recv_cqes);

int kdapl_dto_ep_init(struct kdapl_ep *ep);
/* Frees the DTO state; the QP is gone.  Process context. */
void kdapl_dto_ep_fini(struct kdapl_ep *ep);
void kdapl_dto_qp_created(struct kdapl_ep *ep, u32 max_inline);
int kdapl_dto_qp_rts(struct kdapl_ep *ep);
void kdapl_dto_qp_gone(struct kdapl_ep *ep);
u32 kdapl_dto_req_mark(struct kdapl_ep *ep);
bool kdapl_dto_req_past(struct kdapl_ep *ep, u32 mark);
bool kdapl_dto_forget_lmr(struct kdapl_ep *ep, const struct kdapl_lmr *lmr);
void kdapl_dto_pz_changed(struct kdapl_ep *ep, const struct kdapl_pz *pz);

/* kdapl_dto.c services for the LMR, RMR and SRQ code. */
DAT_DTO_COMPLETION_STATUS kdapl_dto_wc_status(enum ib_wc_status status);
void kdapl_dto_recv_immed(DAT_EVENT *ev, const struct ib_wc *wc);
void kdapl_dto_count_recv(struct kdapl_ep *ep, const struct ib_wc *wc);

/* kdapl_dto_wc_status(), with success (every completion but a few) inline. */
static __always_inline DAT_DTO_COMPLETION_STATUS
kdapl_dto_status(enum ib_wc_status status)
{
	return likely(status == IB_WC_SUCCESS) ? DAT_DTO_SUCCESS :
						 kdapl_dto_wc_status(status);
}

/**
 * kdapl_dto_check_qp() - break the connection after a failed work request
 * @ep: the EP whose QP the work request was posted on
 * @wc: its work completion
 *
 * A work request that failed (not flushed) left the QP in the error
 * state: the connection is broken (kdapl_cm_qp_broken()).  Called by
 * the completion handlers of EP and SRQ receives and of requests, after
 * the failure's own event.  Inline: every completion passes here.
 *
 * Context: CQ context.
 */
static inline void kdapl_dto_check_qp(struct kdapl_ep *ep,
				      const struct ib_wc *wc)
{
	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR))
		kdapl_cm_qp_broken(ep, wc->qp);
}

void kdapl_dto_lmr_created(struct kdapl_lmr *lmr);
void kdapl_dto_reg_lock(struct kdapl_pz *pz);
void kdapl_dto_reg_unlock(struct kdapl_pz *pz);
DAT_RETURN kdapl_dto_post_bind(struct kdapl_ep *ep, struct kdapl_rmr *rmr,
			       u32 inv_key, struct ib_mr *reg_mr, int access,
			       DAT_RMR_COOKIE cookie,
			       DAT_COMPLETION_FLAGS flags);

#endif /* _KDAPL_H */
