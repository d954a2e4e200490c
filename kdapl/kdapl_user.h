/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl_user.h - /dev/kdapl: open files, their objects and event rings
 *
 * Copyright (c) 2026 The kdapl authors
 */
#ifndef _KDAPL_USER_H
#define _KDAPL_USER_H

#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/kdapl_ioctl.h>

#include "kdapl.h"

/**
 * struct kdapl_ufile - an open file of /dev/kdapl
 * @owner: owns every IA opened through the file (see struct kdapl_owner)
 * @lock: serialises changes of @objs; ioctls that create or free
 *	objects hold it across the kDAT call
 * @objs: the file's objects by id (struct kdapl_uobj)
 * @by_handle: the same objects by the index of their kDAT handle, for
 *	the event sinks, which run in any context and read it under RCU
 * @next_id: where the cyclic id allocation goes on
 * @tgid: the process that opened the file; calls from others fail
 * @ready: the ABI handshake succeeded
 * @comm: the command of the process that opened the file
 * @entry: link in the list of open files (kdapl_chardev.c)
 */
struct kdapl_ufile {
	struct kdapl_owner owner;
	struct mutex lock;	/* see above */
	struct xarray objs;
	struct xarray by_handle;
	u32 next_id;
	struct pid *tgid;
	bool ready;
	char comm[TASK_COMM_LEN];
	struct list_head entry;
};

/**
 * struct kdapl_uring_mem - the memory of an event ring, which the
 *	process maps
 * @ref: the ring while it uses it, and every mapping of it
 * @hdr: the shared header, at the start of @size bytes of vmalloc_user()
 * @size: bytes of the mapping
 * @user: the user whose RLIMIT_MEMLOCK its pages count against
 * @charged: pages charged to @user->locked_vm (0 with CAP_IPC_LOCK)
 *
 * A resized ring moves to new memory; the old one stays until the
 * process unmaps it, so that no mapping ever points at freed pages.
 */
struct kdapl_uring_mem {
	struct kref ref;
	struct kdapl_ring_head *hdr;
	size_t size;
	struct user_struct *user;
	unsigned long charged;
};

/**
 * struct kdapl_uring_crej - a connection request to reject
 * @node: in struct kdapl_uring.crq_rejects
 * @cr: its CR
 */
struct kdapl_uring_crej {
	struct list_head node;
	DAT_CR_HANDLE cr;
};

/**
 * struct kdapl_uring - the event ring of an EVD of a file
 * @ref: the file's object and every mapping hold one
 * @lock: serialises producers (the sink runs one at a time per EVD, but
 *	the EVD of an event and the ring's state change together), and
 *	orders them against kdapl_uring_resize(): @mem, @hdr, @ev, @ext,
 *	@entries and @tail change together under it
 * @mem: the shared memory the ring uses now
 * @hdr: its header
 * @ev: its event slots
 * @ext: the extensions of its slots (connection streams), or NULL
 * @has_ext: the EVD has connection streams: every @mem has @ext
 * @cr_direct: the EVD takes connection requests and no completions:
 *	its sink delivers requests itself, into a slot it found free
 * @qlen: the EVD's queue length, as created or last resized
 * @entries: slots, a power of two
 * @tail: the producer index; the shared copy is only written
 * @overflows: events lost because the ring was full
 * @cookie: the EVD's cookie, put in every event
 * @wait: dat_evd_wait() sleeps here
 * @dead: the EVD was freed: waiters return
 * @ufile: the file, for the cookies of other objects
 * @ia_id: the id of the EVD's IA, for the objects its events bring
 * @user: the user whose RLIMIT_MEMLOCK @crq counts against (changed
 *	with @crq under @lock)
 * @charged: pages charged to @user->locked_vm (0 with CAP_IPC_LOCK)
 * @overflowing: the last event was lost; the next loss after a success
 *	is reported again
 * @cno: the CNO its events trigger, or NULL: set before the sink runs,
 *	changed under @lock (the sink triggers it under @lock), dropped
 *	after the sink stopped
 * @waiters: threads in kdapl_uring_wait(): while there are, events
 *	wake them and do not trigger @cno
 * @state: KDAPL_EVD_DISABLED (events do not trigger @cno) and
 *	KDAPL_EVD_UNWAITABLE (waits fail); written under ufile->lock, read
 *	without it by the sink and the waiters
 * @crq: connection requests the sink parked for @cr_work (an EVD that
 *	also takes completion streams), @crq_entries of them; NULL otherwise
 * @crq_entries: room in @crq: the ring's @entries when it was created or
 *	last grew
 * @crq_rejects: struct kdapl_uring_crej of the requests that found @crq
 *	full, for @cr_work to reject; under @lock
 * @crq_head: the oldest parked request, under @lock
 * @crq_count: requests parked, under @lock
 * @reserved: slots @cr_work reserved for requests it is delivering,
 *	under @lock; the sink leaves them free
 * @cr_work: delivers parked requests in process context, on kdapl_wq
 * @rcu: freed after a grace period (kdapl_uring_get() runs under RCU)
 */
struct kdapl_uring {
	struct kref ref;
	spinlock_t lock;	/* see above */
	struct kdapl_uring_mem *mem;
	struct kdapl_ring_head *hdr;
	struct kdapl_uevent *ev;
	struct kdapl_uevent_ext *ext;
	bool has_ext;
	bool cr_direct;
	u32 qlen;
	u32 entries;
	u32 tail;
	u32 overflows;
	u64 cookie;
	wait_queue_head_t wait;
	bool dead;
	struct kdapl_ufile *ufile;
	u32 ia_id;
	struct user_struct *user;
	unsigned long charged;
	bool overflowing;
	struct kdapl_ucno *cno;
	atomic_t waiters;
	u32 state;
	DAT_EVENT *crq;
	u32 crq_entries;
	struct list_head crq_rejects;
	u32 crq_head;
	u32 crq_count;
	u32 reserved;
	struct work_struct cr_work;
	struct rcu_head rcu;
};

/**
 * struct kdapl_ucno - a Consumer Notification Object of a file
 * @ref: the file's object, each EVD of the CNO, each waiter and the
 *	CNO's descriptor hold one
 * @lock: guards @fired and @triggered
 * @wait: dat_cno_wait() and poll() sleep here
 * @evds: EVDs that trigger it (under ufile->lock); while there are, it
 *	cannot be freed
 * @triggered: an EVD triggered it since a wait last took it
 * @fired: the cookie of the EVD that triggered it last
 * @dead: the CNO was freed: waiters return
 */
struct kdapl_ucno {
	struct kref ref;
	spinlock_t lock;	/* see above */
	wait_queue_head_t wait;
	u32 evds;
	bool triggered;
	u64 fired;
	bool dead;
};

/**
 * struct kdapl_upost - the post ring of an EP of a file
 * @ref: the EP's object, every mapping and every running consumer hold
 *	one
 * @lock: serialises the consumers (doorbell and completion sinks)
 * @hdr: the shared header, at the start of @size bytes of vmalloc_user()
 * @rec: the shared records
 * @entries: records, a power of two
 * @stride: bytes per record
 * @max_iov: local segments a record may have
 * @tail: the consumer index; the shared copy is only written
 * @inflight: requests posted from the ring whose completion event the
 *	sink has not seen yet (while non-zero the kernel polls the ring)
 * @dead: the EP was freed: nothing more is taken
 * @size: bytes of the mapping
 * @ufile: the file, the owner of the EP
 * @ep: the EP's kDAT handle
 * @user: the user whose RLIMIT_MEMLOCK the ring's pages count against
 * @charged: pages charged to @user->locked_vm
 * @iov: a record's local segments, read out of the ring (under @lock)
 * @atomic: an atomic record's operands, read out of the ring (under @lock)
 * @rcu: freed after a grace period (lookups run under RCU)
 */
struct kdapl_upost {
	struct kref ref;
	spinlock_t lock;	/* see above */
	struct kdapl_post_head *hdr;
	void *rec;
	u32 entries;
	u32 stride;
	u32 max_iov;
	u32 tail;
	u32 inflight;
	bool dead;
	size_t size;
	struct kdapl_ufile *ufile;
	DAT_EP_HANDLE ep;
	struct user_struct *user;
	unsigned long charged;
	DAT_LMR_TRIPLET iov[KDAPL_POST_IOV_MAX];
	struct kdapl_post_atomic atomic;
	struct rcu_head rcu;
};

/**
 * struct kdapl_uobj - an object of a file
 * @id: its id in the file, reused only after 2^32 - 1 others
 * @ia_id: the id of its IA (its own for an IA)
 * @type: DAT_HANDLE_TYPE_*
 * @handle: the kDAT handle, looked up with the file as owner
 * @cookie: the caller's cookie, put in events about the object
 * @evd: for an EVD, the kDAT EVD its ring's sink serves
 * @ring: for an EVD, its event ring (read under RCU by mmap())
 * @post: for an EP, its post ring once asked for (read under RCU)
 * @cno: for a CNO, its state
 * @rcu: freed after a grace period: event sinks read @handle and
 *	@cookie under RCU
 */
struct kdapl_uobj {
	u32 id;
	u32 ia_id;
	DAT_HANDLE_TYPE type;
	DAT_HANDLE handle;
	u64 cookie;
	struct kdapl_evd *evd;
	struct kdapl_uring *ring;
	struct kdapl_upost *post;
	struct kdapl_ucno *cno;
	struct rcu_head rcu;
};

extern const struct file_operations kdapl_chardev_fops;
int kdapl_chardev_init(void);
void kdapl_chardev_exit(void);
long kdapl_chardev_open_files(void);
void kdapl_chardev_owners_show(struct seq_file *m);

long kdapl_uioctl(struct kdapl_ufile *ufile, unsigned int cmd,
		  void __user *arg);
void kdapl_uioctl_defer_fd(DAT_RETURN *status, int fd, struct file *file);
int kdapl_uioctl_segments(u64 addr, u32 count, DAT_RETURN_SUBTYPE bad,
			  DAT_LMR_TRIPLET **segs, DAT_RETURN *status);

/* The commands of kdapl_uconn.c, for the table of kdapl_uioctl.c. */
int kdapl_uconn_ep_create(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status);
int kdapl_uconn_ep_modify(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status);
int kdapl_uconn_ep_free(struct kdapl_ufile *ufile, void *arg,
			DAT_RETURN *status);
int kdapl_uconn_ep_connect(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status);
int kdapl_uconn_ep_common_connect(struct kdapl_ufile *ufile, void *arg,
				  DAT_RETURN *status);
int kdapl_uconn_ep_dup_connect(struct kdapl_ufile *ufile, void *arg,
			       DAT_RETURN *status);
int kdapl_uconn_ep_disconnect(struct kdapl_ufile *ufile, void *arg,
			      DAT_RETURN *status);
int kdapl_uconn_ep_get_status(struct kdapl_ufile *ufile, void *arg,
			      DAT_RETURN *status);
int kdapl_uconn_ep_reset(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status);
int kdapl_uconn_ep_query(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status);
int kdapl_uconn_psp_create(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status);
int kdapl_uconn_psp_create_any(struct kdapl_ufile *ufile, void *arg,
			       DAT_RETURN *status);
int kdapl_uconn_psp_free(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status);
int kdapl_uconn_rsp_create(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status);
int kdapl_uconn_rsp_free(struct kdapl_ufile *ufile, void *arg,
			 DAT_RETURN *status);
int kdapl_uconn_cr_accept(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status);
int kdapl_uconn_cr_reject(struct kdapl_ufile *ufile, void *arg,
			  DAT_RETURN *status);
int kdapl_uconn_cr_handoff(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status);
int kdapl_uconn_ud_ah_free(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status);
int kdapl_uconn_ud_cm_free(struct kdapl_ufile *ufile, void *arg,
			   DAT_RETURN *status);

struct kdapl_uobj *kdapl_uobj_alloc(DAT_HANDLE_TYPE type, DAT_HANDLE handle,
				    u64 cookie);
int kdapl_uobj_insert(struct kdapl_ufile *ufile, struct kdapl_uobj *uobj,
		      u32 ia_id);
struct kdapl_uobj *kdapl_uobj_find(struct kdapl_ufile *ufile, u32 id,
				   DAT_HANDLE_TYPE type);
DAT_HANDLE kdapl_uobj_handle(struct kdapl_ufile *ufile, u32 id,
			     DAT_HANDLE_TYPE type);
u32 kdapl_uobj_add_from_event(struct kdapl_ufile *ufile, DAT_HANDLE_TYPE type,
			      DAT_HANDLE handle, u32 ia_id);
DAT_RETURN kdapl_uobj_add(struct kdapl_ufile *ufile, DAT_HANDLE_TYPE type,
			  DAT_HANDLE handle, u64 cookie, u32 ia_id,
			  struct kdapl_uobj **uobjp);
struct kdapl_upost *kdapl_uobj_post(struct kdapl_ufile *ufile,
				    DAT_HANDLE handle);
bool kdapl_uobj_cookie(struct kdapl_ufile *ufile, DAT_HANDLE handle,
		       u64 *cookie);
DAT_RETURN kdapl_uobj_find_ia_pz(struct kdapl_ufile *ufile, u32 ia_id,
				 u32 pz_id, struct kdapl_uobj **ia,
				 struct kdapl_uobj **pz);
DAT_RETURN kdapl_uobj_free(struct kdapl_ufile *ufile, u32 id,
			   DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE bad,
			   DAT_RETURN (*fn)(struct kdapl_owner *, DAT_HANDLE));
void kdapl_uobj_destroy(struct kdapl_ufile *ufile, struct kdapl_uobj *uobj);
bool kdapl_uobj_ia_has(struct kdapl_ufile *ufile, u32 ia_id,
		       DAT_HANDLE_TYPE type);
void kdapl_uobj_drop_ia(struct kdapl_ufile *ufile, u32 ia_id);
void kdapl_uobj_release_all(struct kdapl_ufile *ufile);

bool kdapl_uring_charge(size_t size, struct user_struct **user,
			unsigned long *charged);
void kdapl_uring_uncharge(struct user_struct *user, unsigned long charged);
struct kdapl_uring *kdapl_uring_create(struct kdapl_ufile *ufile, u32 qlen,
				       u64 cookie, u32 ia_id,
				       DAT_EVD_FLAGS flags);
int kdapl_uring_evd_fd(struct kdapl_ufile *ufile, void *arg,
		       DAT_RETURN *status);
void kdapl_uring_put(struct kdapl_uring *ring);
struct kdapl_uring *kdapl_uring_get(struct kdapl_ufile *ufile, u32 id);
DAT_RETURN kdapl_uring_attach(struct kdapl_ufile *ufile,
			      struct kdapl_uobj *uobj);
void kdapl_uring_detach(struct kdapl_uobj *uobj);
int kdapl_uring_map(struct vm_area_struct *vma, void *mem, size_t size,
		    const struct vm_operations_struct *ops, void *priv);
int kdapl_uring_mmap(struct kdapl_uring *ring, struct vm_area_struct *vma);
DAT_RETURN kdapl_uring_wait(struct kdapl_uring *ring, u32 threshold,
			    u32 timeout_us, u32 *count);
u32 kdapl_uring_modify(struct kdapl_uring *ring, u32 set, u32 clear);
DAT_RETURN kdapl_uring_resize(struct kdapl_uring *ring, DAT_EVD_HANDLE evd,
			      u32 qlen);
void kdapl_uring_sink(DAT_PVOID data, const DAT_EVENT *ev, DAT_BOOLEAN more);
size_t kdapl_uring_size(struct kdapl_uring *ring);
struct kdapl_ucno *kdapl_uring_set_cno(struct kdapl_uring *ring,
				       struct kdapl_ucno *cno);

int kdapl_usrq_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status);
int kdapl_usrq_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);
int kdapl_usrq_post(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);
int kdapl_usrq_query(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);
int kdapl_usrq_resize(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status);
int kdapl_usrq_set_lw(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status);

int kdapl_urmr_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status);
int kdapl_urmr_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);
int kdapl_urmr_query(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);
int kdapl_urmr_bind(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);

int kdapl_ucsp_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status);
int kdapl_ucsp_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);

int kdapl_ucno_create(struct kdapl_ufile *ufile, void *arg,
		      DAT_RETURN *status);
int kdapl_ucno_free(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);
int kdapl_ucno_wait(struct kdapl_ufile *ufile, void *arg, DAT_RETURN *status);
struct kdapl_ucno *kdapl_ucno_find(struct kdapl_ufile *ufile, u32 id);
void kdapl_ucno_unlink(struct kdapl_ucno *cno);
void kdapl_ucno_trigger(struct kdapl_ucno *cno, u64 evd_cookie);
void kdapl_ucno_detach(struct kdapl_uobj *uobj);
void kdapl_ucno_put(struct kdapl_ucno *cno);

struct kdapl_upost *kdapl_upost_create(struct kdapl_ufile *ufile,
				       DAT_EP_HANDLE ep, u32 entries,
				       u32 max_iov);
DAT_RETURN kdapl_upost_doorbell(struct kdapl_upost *post, bool sync,
				u32 *tail);
int kdapl_upost_ep_ring(struct kdapl_ufile *ufile, void *arg,
			DAT_RETURN *status);
int kdapl_upost_ep_post(struct kdapl_ufile *ufile, void *arg,
			DAT_RETURN *status);
struct kdapl_upost *kdapl_upost_get(struct kdapl_ufile *ufile, u32 id);
void kdapl_upost_put(struct kdapl_upost *post);
void kdapl_upost_detach(struct kdapl_uobj *uobj);
void kdapl_upost_completed(struct kdapl_upost *post);
int kdapl_upost_mmap(struct kdapl_upost *post, struct vm_area_struct *vma);

#endif /* _KDAPL_USER_H */
