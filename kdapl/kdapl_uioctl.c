// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands of /dev/kdapl: one table entry per command.
 *
 * kdapl_uioctl() reads the argument structure (as long as the head says,
 * zero-extended or with a zero tail checked, see copy_struct_from_user()),
 * calls the command's handler with a kernel copy and the file as owner,
 * and writes the structure back with the DAT_RETURN in its head.  The
 * handlers see only kernel memory and check every id through the file's
 * table, every length and count against its limit.
 *
 * A command that makes a descriptor reserves its number and hands the file
 * to kdapl_uioctl_defer_fd(): the descriptor is installed only once the
 * reply that carries its number has been written, so that a failed
 * copy-out leaves no descriptor the process cannot know of.
 *
 * Locking: handlers run with ufile->lock held, except those marked
 * KDAPL_UIOCTL_UNLOCKED (the ones that sleep waiting for events), which
 * take it themselves for their lookups.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/file.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kdapl_trace.h"
#include "kdapl_user.h"

/* The handler may run before the ABI handshake. */
#define KDAPL_UIOCTL_BEFORE_HELLO	BIT(0)
/* The handler takes ufile->lock itself. */
#define KDAPL_UIOCTL_UNLOCKED		BIT(1)

/**
 * struct kdapl_uioctl_def - a command of /dev/kdapl
 * @handler: does the command on a kernel copy of the argument; returns
 *	0 with the DAT_RETURN in *status, or a negative errno for the
 *	ioctl itself
 * @size: the size of the argument structure this kernel knows
 * @min_size: the smallest size a caller may pass (the first ABI's)
 * @flags: KDAPL_UIOCTL_*
 */
struct kdapl_uioctl_def {
	int (*handler)(struct kdapl_ufile *ufile, void *arg,
		       DAT_RETURN *status);
	u32 size;
	u32 min_size;
	u32 flags;
};

union kdapl_uioctl_arg {
	struct kdapl_ioc_head head;
	struct kdapl_ioc_hello hello;
	struct kdapl_ioc_ia_open ia_open;
	struct kdapl_ioc_obj_free obj_free;
	struct kdapl_ioc_ia_query ia_query;
	struct kdapl_ioc_pz_create pz_create;
	struct kdapl_ioc_evd_create evd_create;
	struct kdapl_ioc_evd_wait evd_wait;
	struct kdapl_ioc_evd_fd evd_fd;
	struct kdapl_ioc_cno_create cno_create;
	struct kdapl_ioc_cno_wait cno_wait;
	struct kdapl_ioc_rsp_create rsp_create;
	struct kdapl_ioc_ep_modify ep_modify;
	struct kdapl_ioc_evd_post_se evd_post_se;
	struct kdapl_ioc_lmr_create lmr_create;
	struct kdapl_ioc_ep_create ep_create;
	struct kdapl_ioc_ep_connect ep_connect;
	struct kdapl_ioc_ep_get_status ep_get_status;
	struct kdapl_ioc_psp_create psp_create;
	struct kdapl_ioc_cr_reply cr_reply;
	struct kdapl_ioc_ep_ring ep_ring;
	struct kdapl_ioc_ep_post ep_post;
	struct kdapl_ioc_ep_query ep_query;
	struct kdapl_ioc_evd_modify evd_modify;
	struct kdapl_ioc_lmr_sync lmr_sync;
	struct kdapl_ioc_cr_handoff cr_handoff;
	struct kdapl_ioc_ep_dup_connect ep_dup_connect;
	struct kdapl_ioc_evd_modify_cno evd_modify_cno;
	struct kdapl_ioc_evd_resize evd_resize;
	struct kdapl_ioc_srq_create srq_create;
	struct kdapl_ioc_srq_post srq_post;
	struct kdapl_ioc_srq_query srq_query;
	struct kdapl_ioc_srq_set srq_set;
	struct kdapl_ioc_rmr_create rmr_create;
	struct kdapl_ioc_rmr_query rmr_query;
	struct kdapl_ioc_rmr_bind rmr_bind;
	struct kdapl_ioc_csp_create csp_create;
	struct kdapl_ioc_counters counters;
};

/**
 * struct kdapl_ucall - the outcome of one command
 * @status: the DAT_RETURN for the reply's head; handlers get its address
 * @file: a file to install as @fd once the reply is written, or NULL
 * @fd: the descriptor number reserved for @file
 */
struct kdapl_ucall {
	DAT_RETURN status;
	struct file *file;
	int fd;
};

static_assert(KDAPL_ABI_NAME_MAX == KDAPL_IA_NAME_MAX);
static_assert(sizeof(union kdapl_uioctl_arg) <= 512);

/* The mmap offset of an EVD's ring: its id, in pages. */
static u64 kdapl_uioctl_ring_offset(const struct kdapl_uobj *uobj)
{
	return (u64)uobj->id << PAGE_SHIFT;
}

static int kdapl_uioctl_hello(struct kdapl_ufile *ufile, void *arg,
			      DAT_RETURN *status)
{
	struct kdapl_ioc_hello *h = arg;

	if (h->abi_version != KDAPL_ABI_VERSION) {
		pr_warn_ratelimited("kdapl: %s[%d] uses /dev/kdapl ABI %u, this module ABI %u\n",
				    current->comm, task_tgid_vnr(current),
				    h->abi_version, KDAPL_ABI_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (h->reserved)
		return -EINVAL;
	h->max_ia_name = KDAPL_ABI_NAME_MAX;
	h->max_private_data = KDAPL_PRIVATE_DATA_MAX;
	h->event_size = sizeof(struct kdapl_uevent);
	h->max_command = KDAPL_NR_MAX;
	WRITE_ONCE(ufile->ready, true);
	*status = DAT_SUCCESS;
	return 0;
}

/* Give a new EVD of the file its object and its ring. */
static DAT_RETURN kdapl_uioctl_add_evd(struct kdapl_ufile *ufile,
				       DAT_EVD_HANDLE handle, u32 qlen,
				       DAT_EVD_FLAGS flags, u64 cookie,
				       u32 ia_id, u32 cno_id,
				       struct kdapl_uobj **uobjp)
{
	struct kdapl_uobj *uobj;
	DAT_RETURN ret;

	uobj = kdapl_uobj_alloc(DAT_HANDLE_TYPE_EVD, handle, cookie);
	if (!uobj)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	/* Set before the id is published: mmap() finds it without a lock. */
	uobj->ring = kdapl_uring_create(ufile, qlen, cookie, ia_id, flags);
	if (!uobj->ring || kdapl_uobj_insert(ufile, uobj, ia_id)) {
		if (uobj->ring)
			kdapl_uring_put(uobj->ring);
		kfree(uobj);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	/* Before the sink can run; kdapl_uring_detach() unlinks it. */
	if (cno_id)
		uobj->ring->cno = kdapl_ucno_find(ufile, cno_id);
	ret = kdapl_uring_attach(ufile, uobj);
	if (ret) {
		kdapl_uobj_destroy(ufile, uobj);
		return ret;
	}
	*uobjp = uobj;
	return DAT_SUCCESS;
}

static int kdapl_uioctl_ia_open(struct kdapl_ufile *ufile, void *arg,
				DAT_RETURN *status)
{
	struct kdapl_ioc_ia_open *a = arg;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	struct kdapl_uobj *ia_uobj, *evd_uobj;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	if (a->reserved)
		return -EINVAL;

	if (strnlen(a->name, sizeof(a->name)) == sizeof(a->name)) {
		*status = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
		return 0;
	}
	ret = kdapl_ia_open(&ufile->owner, a->name, a->async_qlen, &async,
			    &ia);
	if (ret)
		goto out;
	ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_IA, ia, 0, 0, &ia_uobj);
	if (ret)
		goto err_close;
	ret = kdapl_uioctl_add_evd(ufile, async, a->async_qlen,
				   DAT_EVD_ASYNC_FLAG, a->async_cookie,
				   ia_uobj->id, 0, &evd_uobj);
	if (ret)
		goto err_uobj;
	a->ia_id = ia_uobj->id;
	a->async_evd_id = evd_uobj->id;
	a->async_ring_size = kdapl_uring_size(evd_uobj->ring);
	a->async_ring_offset = kdapl_uioctl_ring_offset(evd_uobj);
	goto out;

err_uobj:
	kdapl_uobj_destroy(ufile, ia_uobj);
err_close:
	kdapl_ia_close(&ufile->owner, ia, DAT_CLOSE_ABRUPT_FLAG);
out:
	*status = ret;
	return 0;
}

static int kdapl_uioctl_ia_close(struct kdapl_ufile *ufile, void *arg,
				 DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;
	struct kdapl_uobj *uobj;

	uobj = kdapl_uobj_find(ufile, a->id, DAT_HANDLE_TYPE_IA);
	if (!uobj) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
		return 0;
	}
	/* CNOs are the file's alone: kDAT cannot see them in use. */
	if (a->flags == DAT_CLOSE_GRACEFUL_FLAG &&
	    kdapl_uobj_ia_has(ufile, uobj->ia_id, DAT_HANDLE_TYPE_CNO)) {
		*status = dat_error(DAT_INVALID_STATE,
				    DAT_INVALID_STATE_IA_IN_USE);
		return 0;
	}
	*status = kdapl_ia_close(&ufile->owner, uobj->handle, a->flags);
	if (*status == DAT_SUCCESS)
		kdapl_uobj_drop_ia(ufile, uobj->ia_id);
	return 0;
}

static void kdapl_uioctl_copy_ia_attr(struct kdapl_ioc_ia_query *a,
				      const DAT_IA_ATTR *attr)
{
	strscpy(a->adapter_name, attr->adapter_name, sizeof(a->adapter_name));
	strscpy(a->vendor_name, attr->vendor_name, sizeof(a->vendor_name));
	if (attr->ia_address_ptr)
		memcpy(a->addr, attr->ia_address_ptr,
		       min(sizeof(a->addr), sizeof(DAT_SOCK_ADDR)));
	a->hardware_version_major = attr->hardware_version_major;
	a->hardware_version_minor = attr->hardware_version_minor;
	a->firmware_version_major = attr->firmware_version_major;
	a->firmware_version_minor = attr->firmware_version_minor;
	a->max_eps = attr->max_eps;
	a->max_dto_per_ep = attr->max_dto_per_ep;
	a->max_rdma_read_per_ep_in = attr->max_rdma_read_per_ep_in;
	a->max_rdma_read_per_ep_out = attr->max_rdma_read_per_ep_out;
	a->max_evds = attr->max_evds;
	a->max_evd_qlen = attr->max_evd_qlen;
	a->max_iov_segments_per_dto = attr->max_iov_segments_per_dto;
	a->max_lmrs = attr->max_lmrs;
	a->max_lmr_block_size = attr->max_lmr_block_size;
	a->max_lmr_virtual_address = attr->max_lmr_virtual_address;
	a->max_pzs = attr->max_pzs;
	a->max_rmrs = attr->max_rmrs;
	a->max_message_size = attr->max_message_size;
	a->max_rdma_size = attr->max_rdma_size;
	a->max_rmr_target_address = attr->max_rmr_target_address;
	a->max_srqs = attr->max_srqs;
	a->max_ep_per_srq = attr->max_ep_per_srq;
	a->max_recv_per_srq = attr->max_recv_per_srq;
	a->max_iov_segments_per_rdma_read = attr->max_iov_segments_per_rdma_read;
	a->max_iov_segments_per_rdma_write =
		attr->max_iov_segments_per_rdma_write;
	a->max_rdma_read_in = attr->max_rdma_read_in;
	a->max_rdma_read_out = attr->max_rdma_read_out;
	a->zb_supported = attr->zb_supported;
}

/*
 * What the provider-specific attributes kDAT reports say: the MTU, and
 * the IB extension operations the transport carries.
 */
static void kdapl_uioctl_prov_attr(struct kdapl_ioc_ia_query *a,
				   const DAT_PROVIDER_ATTR *prov)
{
	const DAT_NAMED_ATTR *attr = prov->provider_specific_attr;
	int i;

	/* Out fields: nothing of the caller's comes back. */
	a->transport_mtu = 0;
	a->ib_extensions = 0;
	for (i = 0; i < prov->num_provider_specific_attr; i++) {
		if (!strcmp(attr[i].name, KDAPL_ATTR_TRANSPORT_MTU) &&
		    kstrtou32(attr[i].value, 10, &a->transport_mtu))
			a->transport_mtu = 0;
		if (!strcmp(attr[i].name, DAT_IB_ATTR_IMMED_DATA))
			a->ib_extensions |= KDAPL_IA_EXT_IMMED_DATA;
		if (!strcmp(attr[i].name, DAT_IB_ATTR_CMP_AND_SWAP))
			a->ib_extensions |= KDAPL_IA_EXT_ATOMICS;
		if (!strcmp(attr[i].name, DAT_IB_ATTR_COUNTERS))
			a->ib_extensions |= KDAPL_IA_EXT_COUNTERS;
		if (!strcmp(attr[i].name, DAT_IB_ATTR_UD))
			a->ib_extensions |= KDAPL_IA_EXT_UD;
	}
}

static int kdapl_uioctl_ia_query(struct kdapl_ufile *ufile, void *arg,
				 DAT_RETURN *status)
{
	struct kdapl_ioc_ia_query *a = arg;
	DAT_PROVIDER_ATTR prov;
	struct kdapl_uobj *uobj;
	DAT_IA_ATTR *attr;

	if (a->reserved || a->reserved2)
		return -EINVAL;

	uobj = kdapl_uobj_find(ufile, a->ia_id, DAT_HANDLE_TYPE_IA);
	if (!uobj) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
		return 0;
	}
	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	*status = kdapl_ia_query(&ufile->owner, uobj->handle, NULL,
				 DAT_IA_FIELD_ALL, attr,
				 DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE, &prov);
	if (*status == DAT_SUCCESS) {
		kdapl_uioctl_copy_ia_attr(a, attr);
		a->max_private_data_size = prov.max_private_data_size;
		kdapl_uioctl_prov_attr(a, &prov);
	}
	kfree(attr);
	return 0;
}

static int kdapl_uioctl_pz_create(struct kdapl_ufile *ufile, void *arg,
				  DAT_RETURN *status)
{
	struct kdapl_ioc_pz_create *a = arg;
	struct kdapl_uobj *ia, *uobj;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;

	ia = kdapl_uobj_find(ufile, a->ia_id, DAT_HANDLE_TYPE_IA);
	if (!ia) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
		return 0;
	}
	ret = kdapl_pz_create(&ufile->owner, ia->handle, &pz);
	if (!ret) {
		ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_PZ, pz, 0, ia->id,
				     &uobj);
		if (ret)
			kdapl_pz_free(&ufile->owner, pz);
		else
			a->pz_id = uobj->id;
	}
	*status = ret;
	return 0;
}

static int kdapl_uioctl_pz_free(struct kdapl_ufile *ufile, void *arg,
				DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;
	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_PZ,
				  DAT_INVALID_HANDLE_PZ, kdapl_pz_free);
	return 0;
}

static int kdapl_uioctl_evd_create(struct kdapl_ufile *ufile, void *arg,
				   DAT_RETURN *status)
{
	struct kdapl_ioc_evd_create *a = arg;
	struct kdapl_uobj *ia, *uobj, *cno;
	DAT_EVD_HANDLE evd;
	DAT_RETURN ret;

	ia = kdapl_uobj_find(ufile, a->ia_id, DAT_HANDLE_TYPE_IA);
	if (!ia) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
		return 0;
	}
	if (a->cno_id) {
		cno = kdapl_uobj_find(ufile, a->cno_id, DAT_HANDLE_TYPE_CNO);
		/* A CNO gathers EVDs of one IA (DAT). */
		if (!cno || cno->ia_id != ia->id) {
			*status = dat_error(DAT_INVALID_HANDLE,
					    DAT_INVALID_HANDLE_CNO);
			return 0;
		}
	}
	ret = kdapl_evd_kcreate(&ufile->owner, ia->handle, a->qlen,
				DAT_UPCALL_DISABLE, NULL, a->flags, &evd);
	if (!ret) {
		ret = kdapl_uioctl_add_evd(ufile, evd, a->qlen, a->flags,
					   a->cookie, ia->id, a->cno_id,
					   &uobj);
		if (ret) {
			kdapl_evd_free(&ufile->owner, evd);
		} else {
			a->evd_id = uobj->id;
			a->entries = uobj->ring->entries;
			a->ring_size = kdapl_uring_size(uobj->ring);
			a->ring_offset = kdapl_uioctl_ring_offset(uobj);
		}
	}
	*status = ret;
	return 0;
}

static int kdapl_uioctl_evd_free(struct kdapl_ufile *ufile, void *arg,
				 DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;
	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_EVD,
				  DAT_INVALID_HANDLE_EVD_REQUEST, kdapl_evd_free);
	return 0;
}

/* Unlocked: sleeps without the file's lock, on a reference to the ring. */
static int kdapl_uioctl_evd_wait(struct kdapl_ufile *ufile, void *arg,
				 DAT_RETURN *status)
{
	struct kdapl_ioc_evd_wait *a = arg;
	struct kdapl_uring *ring = NULL;
	struct kdapl_uobj *uobj;

	if (a->reserved || a->reserved2)
		return -EINVAL;

	mutex_lock(&ufile->lock);
	uobj = kdapl_uobj_find(ufile, a->evd_id, DAT_HANDLE_TYPE_EVD);
	if (uobj) {
		ring = uobj->ring;
		kref_get(&ring->ref);
	}
	mutex_unlock(&ufile->lock);
	if (!ring) {
		*status = dat_error(DAT_INVALID_HANDLE,
				    DAT_INVALID_HANDLE_EVD_REQUEST);
		return 0;
	}
	if (a->threshold <= 0)
		*status = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else
		*status = kdapl_uring_wait(ring, a->threshold, a->timeout_us,
					   &a->count);
	kdapl_uring_put(ring);
	return 0;
}

/* The file's EVD @id, or NULL with DAT_INVALID_HANDLE in *@status. */
static struct kdapl_uobj *kdapl_uioctl_evd(struct kdapl_ufile *ufile, u32 id,
					   DAT_RETURN *status)
{
	struct kdapl_uobj *uobj;

	uobj = kdapl_uobj_find(ufile, id, DAT_HANDLE_TYPE_EVD);
	if (!uobj)
		*status = dat_error(DAT_INVALID_HANDLE,
				    DAT_INVALID_HANDLE_EVD_REQUEST);
	return uobj;
}

static int kdapl_uioctl_evd_post_se(struct kdapl_ufile *ufile, void *arg,
				    DAT_RETURN *status)
{
	struct kdapl_ioc_evd_post_se *a = arg;
	struct kdapl_uobj *uobj;
	DAT_EVENT event = {
		.event_number = DAT_SOFTWARE_EVENT,
	};

	if (a->reserved)
		return -EINVAL;

	uobj = kdapl_uioctl_evd(ufile, a->evd_id, status);
	if (!uobj)
		return 0;
	/* An opaque value of the process, never dereferenced here. */
	event.event_data.software_event_data.pointer =
		(DAT_PVOID)(uintptr_t)a->pointer;
	*status = kdapl_evd_post_se(&ufile->owner, uobj->handle, &event);
	return 0;
}

static int kdapl_uioctl_evd_resize(struct kdapl_ufile *ufile, void *arg,
				   DAT_RETURN *status)
{
	struct kdapl_ioc_evd_resize *a = arg;
	struct kdapl_uobj *uobj;

	if (a->reserved)
		return -EINVAL;

	uobj = kdapl_uioctl_evd(ufile, a->evd_id, status);
	if (!uobj)
		return 0;
	*status = kdapl_uring_resize(uobj->ring, uobj->handle, a->qlen);
	a->entries = uobj->ring->entries;
	a->ring_size = kdapl_uring_size(uobj->ring);
	return 0;
}

/*
 * KDAPL_IOC_COUNTERS: the counters go through a kernel buffer, so that
 * the object is never looked at while user memory faults.
 */
static int kdapl_uioctl_counters(struct kdapl_ufile *ufile, void *arg,
				 DAT_RETURN *status)
{
	struct kdapl_ioc_counters *a = arg;
	struct kdapl_uobj *uobj = NULL;
	unsigned int n;
	u64 *values;
	int err = 0;

	if (a->reset > 1)
		return -EINVAL;
	if (a->type == DAT_HANDLE_TYPE_IA || a->type == DAT_HANDLE_TYPE_EP ||
	    a->type == DAT_HANDLE_TYPE_EVD)
		uobj = kdapl_uobj_find(ufile, a->id, a->type);
	if (!uobj) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_ARG1);
		return 0;
	}
	n = min_t(u32, a->capacity, DCNT_IA_ALL_COUNTERS);
	values = kcalloc(max(n, 1U), sizeof(*values), GFP_KERNEL_ACCOUNT);
	if (!values) {
		*status = dat_error(DAT_INSUFFICIENT_RESOURCES,
				    DAT_RESOURCE_MEMORY);
		return 0;
	}
	a->count = 0;
	*status = kdapl_counters_query(&ufile->owner, uobj->handle, a->counter,
				       a->reset, values, n, &a->count);
	if (*status == DAT_SUCCESS &&
	    copy_to_user(u64_to_user_ptr(a->values), values,
			 array_size(a->count, sizeof(*values))))
		err = -EFAULT;
	kfree(values);
	return err;
}

static int kdapl_uioctl_evd_modify(struct kdapl_ufile *ufile, void *arg,
				   DAT_RETURN *status)
{
	const u32 known = KDAPL_EVD_DISABLED | KDAPL_EVD_UNWAITABLE;
	struct kdapl_ioc_evd_modify *a = arg;
	struct kdapl_uobj *uobj;

	if ((a->set | a->clear) & ~known || (a->set & a->clear))
		return -EINVAL;

	uobj = kdapl_uioctl_evd(ufile, a->evd_id, status);
	if (!uobj)
		return 0;
	a->state = kdapl_uring_modify(uobj->ring, a->set, a->clear);
	*status = DAT_SUCCESS;
	return 0;
}

static int kdapl_uioctl_evd_modify_cno(struct kdapl_ufile *ufile, void *arg,
				       DAT_RETURN *status)
{
	struct kdapl_ioc_evd_modify_cno *a = arg;
	struct kdapl_uobj *uobj, *cno = NULL;
	struct kdapl_ucno *old;

	uobj = kdapl_uioctl_evd(ufile, a->evd_id, status);
	if (!uobj)
		return 0;
	if (a->cno_id) {
		cno = kdapl_uobj_find(ufile, a->cno_id, DAT_HANDLE_TYPE_CNO);
		/* A CNO gathers EVDs of one IA (DAT). */
		if (!cno || cno->ia_id != uobj->ia_id) {
			*status = dat_error(DAT_INVALID_HANDLE,
					    DAT_INVALID_HANDLE_CNO);
			return 0;
		}
	}
	old = kdapl_uring_set_cno(uobj->ring, cno ?
				  kdapl_ucno_find(ufile, a->cno_id) : NULL);
	if (old)
		kdapl_ucno_unlink(old);
	*status = DAT_SUCCESS;
	return 0;
}

static int kdapl_uioctl_lmr_create(struct kdapl_ufile *ufile, void *arg,
				   DAT_RETURN *status)
{
	struct kdapl_ioc_lmr_create *a = arg;
	DAT_REGION_DESCRIPTION region = {
		.for_va = (void *)(uintptr_t)a->addr,
	};
	struct kdapl_uobj *ia, *pz, *uobj;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VADDR reg_addr;
	DAT_VLEN reg_len;
	DAT_LMR_HANDLE lmr;
	DAT_RETURN ret;

	if (a->reserved || a->reserved2)
		return -EINVAL;

	*status = kdapl_uobj_find_ia_pz(ufile, a->ia_id, a->pz_id, &ia, &pz);
	if (*status)
		return 0;
	if (a->addr != (uintptr_t)a->addr) {
		*status = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		return 0;
	}
	ret = kdapl_lmr_kcreate(&ufile->owner, ia->handle,
				DAT_MEM_TYPE_VIRTUAL, region, a->length,
				pz->handle, a->privileges, DAT_VA_TYPE_VA, 0,
				&lmr, &lmr_context, &rmr_context, &reg_len,
				&reg_addr);
	if (!ret) {
		ret = kdapl_uobj_add(ufile, DAT_HANDLE_TYPE_LMR, lmr,
				     a->cookie, ia->id, &uobj);
		if (ret) {
			kdapl_lmr_free(&ufile->owner, lmr);
		} else {
			a->lmr_id = uobj->id;
			a->lmr_context = lmr_context;
			a->rmr_context = rmr_context;
			a->registered_address = reg_addr;
			a->registered_length = reg_len;
		}
	}
	*status = ret;
	return 0;
}

static int kdapl_uioctl_lmr_free(struct kdapl_ufile *ufile, void *arg,
				 DAT_RETURN *status)
{
	struct kdapl_ioc_obj_free *a = arg;

	if (a->flags)
		return -EINVAL;
	*status = kdapl_uobj_free(ufile, a->id, DAT_HANDLE_TYPE_LMR,
				  DAT_INVALID_HANDLE_LMR, kdapl_lmr_free);
	return 0;
}

/* A sync's segments are read from the process as they are. */
static_assert(sizeof(struct kdapl_post_sge) == sizeof(DAT_LMR_TRIPLET));
static_assert(offsetof(struct kdapl_post_sge, virtual_address) ==
	      offsetof(DAT_LMR_TRIPLET, virtual_address));
static_assert(offsetof(struct kdapl_post_sge, segment_length) ==
	      offsetof(DAT_LMR_TRIPLET, segment_length));
static_assert(offsetof(struct kdapl_post_sge, context) ==
	      offsetof(DAT_LMR_TRIPLET, lmr_context));

/**
 * kdapl_uioctl_segments() - copy a process's array of segments
 * @addr: its address: struct kdapl_post_sge, laid out as DAT_LMR_TRIPLET
 * @count: its entries, checked by the caller against its command's limit
 * @bad: the DAT_INVALID_ARG subtype of @addr
 * @segs: out: the copy, for kvfree(); NULL when @count is 0
 * @status: out: DAT_INVALID_PARAMETER with @bad if the process cannot
 *	read the array
 *
 * Context: process context.
 * Return: 0 (the copy, or an error in *@status), or -ENOMEM.
 */
int kdapl_uioctl_segments(u64 addr, u32 count, DAT_RETURN_SUBTYPE bad,
			  DAT_LMR_TRIPLET **segs, DAT_RETURN *status)
{
	DAT_LMR_TRIPLET *copy;

	*segs = NULL;
	if (!count)
		return 0;
	copy = vmemdup_user(u64_to_user_ptr(addr),
			    array_size(count, sizeof(*copy)));
	if (IS_ERR(copy)) {
		if (PTR_ERR(copy) != -EFAULT)
			return PTR_ERR(copy);
		*status = dat_error(DAT_INVALID_PARAMETER, bad);
		return 0;
	}
	*segs = copy;
	return 0;
}

static int kdapl_uioctl_lmr_sync(struct kdapl_ufile *ufile, void *arg,
				 DAT_RETURN *status)
{
	struct kdapl_ioc_lmr_sync *a = arg;
	DAT_LMR_TRIPLET *segs;
	struct kdapl_uobj *ia;
	int err;

	if (a->flags & ~KDAPL_LMR_SYNC_FOR_CPU)
		return -EINVAL;

	ia = kdapl_uobj_find(ufile, a->ia_id, DAT_HANDLE_TYPE_IA);
	if (!ia) {
		*status = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
		return 0;
	}
	if (a->num_segments > KDAPL_LMR_SYNC_MAX) {
		*status = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		return 0;
	}
	err = kdapl_uioctl_segments(a->segments, a->num_segments,
				    DAT_INVALID_ARG2, &segs, status);
	if (err || *status)
		return err;
	if (a->flags & KDAPL_LMR_SYNC_FOR_CPU)
		*status = kdapl_lmr_sync_rdma_write(&ufile->owner, ia->handle,
						    segs, a->num_segments);
	else
		*status = kdapl_lmr_sync_rdma_read(&ufile->owner, ia->handle,
						   segs, a->num_segments);
	kvfree(segs);
	return 0;
}

#define KDAPL_UIOCTL_FN(nr, fn, type, fl)				\
	[KDAPL_NR_##nr] = {						\
		.handler = fn,						\
		.size = sizeof(struct type) +				\
			BUILD_BUG_ON_ZERO(sizeof(struct type) >		\
					  sizeof(union kdapl_uioctl_arg)), \
		.min_size = sizeof(struct type),			\
		.flags = (fl),						\
	}
#define KDAPL_UIOCTL(nr, fn, type, fl)					\
	KDAPL_UIOCTL_FN(nr, kdapl_uioctl_##fn, type, fl)
#define KDAPL_UCONN(nr, fn, type)					\
	KDAPL_UIOCTL_FN(nr, kdapl_uconn_##fn, type, 0)
#define KDAPL_UPOST(nr, fn, type, fl)					\
	KDAPL_UIOCTL_FN(nr, kdapl_upost_##fn, type, fl)
#define KDAPL_UCNO(nr, fn, type, fl)					\
	KDAPL_UIOCTL_FN(nr, kdapl_ucno_##fn, type, fl)
#define KDAPL_USRQ(nr, fn, type)					\
	KDAPL_UIOCTL_FN(nr, kdapl_usrq_##fn, type, 0)
#define KDAPL_URMR(nr, fn, type)					\
	KDAPL_UIOCTL_FN(nr, kdapl_urmr_##fn, type, 0)
#define KDAPL_UCSP(nr, fn, type)					\
	KDAPL_UIOCTL_FN(nr, kdapl_ucsp_##fn, type, 0)

static const struct kdapl_uioctl_def kdapl_uioctls[KDAPL_NR_MAX] = {
	[KDAPL_NR_HELLO] = {
		.handler = kdapl_uioctl_hello,
		.size = sizeof(struct kdapl_ioc_hello),
		/* The hello of a library that predates max_command. */
		.min_size = offsetof(struct kdapl_ioc_hello, max_command),
		.flags = KDAPL_UIOCTL_BEFORE_HELLO,
	},
	KDAPL_UIOCTL(IA_OPEN, ia_open, kdapl_ioc_ia_open, 0),
	KDAPL_UIOCTL(IA_CLOSE, ia_close, kdapl_ioc_obj_free, 0),
	[KDAPL_NR_IA_QUERY] = {
		.handler = kdapl_uioctl_ia_query,
		.size = sizeof(struct kdapl_ioc_ia_query),
		/* The query of a library that predates ib_extensions. */
		.min_size = offsetof(struct kdapl_ioc_ia_query, ib_extensions),
	},
	KDAPL_UIOCTL(PZ_CREATE, pz_create, kdapl_ioc_pz_create, 0),
	KDAPL_UIOCTL(PZ_FREE, pz_free, kdapl_ioc_obj_free, 0),
	KDAPL_UIOCTL(EVD_CREATE, evd_create, kdapl_ioc_evd_create, 0),
	KDAPL_UIOCTL(EVD_FREE, evd_free, kdapl_ioc_obj_free, 0),
	KDAPL_UIOCTL(EVD_WAIT, evd_wait, kdapl_ioc_evd_wait,
		     KDAPL_UIOCTL_UNLOCKED),
	KDAPL_UIOCTL(EVD_POST_SE, evd_post_se, kdapl_ioc_evd_post_se, 0),
	KDAPL_UIOCTL(LMR_CREATE, lmr_create, kdapl_ioc_lmr_create, 0),
	KDAPL_UIOCTL(LMR_FREE, lmr_free, kdapl_ioc_obj_free, 0),
	KDAPL_UCONN(EP_CREATE, ep_create, kdapl_ioc_ep_create),
	KDAPL_UCONN(EP_FREE, ep_free, kdapl_ioc_obj_free),
	KDAPL_UCONN(EP_CONNECT, ep_connect, kdapl_ioc_ep_connect),
	KDAPL_UCONN(EP_DISCONNECT, ep_disconnect, kdapl_ioc_obj_free),
	KDAPL_UCONN(EP_GET_STATUS, ep_get_status, kdapl_ioc_ep_get_status),
	KDAPL_UCONN(EP_QUERY, ep_query, kdapl_ioc_ep_query),
	KDAPL_UCONN(EP_RESET, ep_reset, kdapl_ioc_obj_free),
	KDAPL_UCONN(EP_MODIFY, ep_modify, kdapl_ioc_ep_modify),
	KDAPL_UCONN(PSP_CREATE, psp_create, kdapl_ioc_psp_create),
	KDAPL_UCONN(PSP_FREE, psp_free, kdapl_ioc_obj_free),
	KDAPL_UCONN(RSP_CREATE, rsp_create, kdapl_ioc_rsp_create),
	KDAPL_UCONN(RSP_FREE, rsp_free, kdapl_ioc_obj_free),
	KDAPL_UCONN(CR_ACCEPT, cr_accept, kdapl_ioc_cr_reply),
	KDAPL_UCONN(CR_REJECT, cr_reject, kdapl_ioc_cr_reply),
	KDAPL_UPOST(EP_RING, ep_ring, kdapl_ioc_ep_ring, 0),
	KDAPL_UPOST(EP_POST, ep_post, kdapl_ioc_ep_post,
		    KDAPL_UIOCTL_UNLOCKED),
	KDAPL_UIOCTL_FN(EVD_FD, kdapl_uring_evd_fd, kdapl_ioc_evd_fd, 0),
	KDAPL_UCNO(CNO_CREATE, create, kdapl_ioc_cno_create, 0),
	KDAPL_UCNO(CNO_FREE, free, kdapl_ioc_obj_free, 0),
	KDAPL_UCNO(CNO_WAIT, wait, kdapl_ioc_cno_wait, KDAPL_UIOCTL_UNLOCKED),
	KDAPL_UIOCTL(EVD_MODIFY, evd_modify, kdapl_ioc_evd_modify, 0),
	KDAPL_UCONN(PSP_CREATE_ANY, psp_create_any, kdapl_ioc_psp_create),
	KDAPL_UIOCTL(LMR_SYNC, lmr_sync, kdapl_ioc_lmr_sync, 0),
	KDAPL_UCONN(CR_HANDOFF, cr_handoff, kdapl_ioc_cr_handoff),
	KDAPL_UCONN(EP_DUP_CONNECT, ep_dup_connect, kdapl_ioc_ep_dup_connect),
	KDAPL_UIOCTL(EVD_MODIFY_CNO, evd_modify_cno, kdapl_ioc_evd_modify_cno,
		     0),
	KDAPL_UCONN(EP_COMMON_CONNECT, ep_common_connect,
		    kdapl_ioc_ep_connect),
	KDAPL_USRQ(SRQ_CREATE, create, kdapl_ioc_srq_create),
	KDAPL_USRQ(SRQ_FREE, free, kdapl_ioc_obj_free),
	KDAPL_USRQ(SRQ_POST, post, kdapl_ioc_srq_post),
	KDAPL_USRQ(SRQ_QUERY, query, kdapl_ioc_srq_query),
	KDAPL_USRQ(SRQ_RESIZE, resize, kdapl_ioc_srq_set),
	KDAPL_USRQ(SRQ_SET_LW, set_lw, kdapl_ioc_srq_set),
	KDAPL_URMR(RMR_CREATE, create, kdapl_ioc_rmr_create),
	KDAPL_URMR(RMR_FREE, free, kdapl_ioc_obj_free),
	KDAPL_URMR(RMR_QUERY, query, kdapl_ioc_rmr_query),
	KDAPL_URMR(RMR_BIND, bind, kdapl_ioc_rmr_bind),
	KDAPL_UCSP(CSP_CREATE, create, kdapl_ioc_csp_create),
	KDAPL_UCSP(CSP_FREE, free, kdapl_ioc_obj_free),
	KDAPL_UIOCTL(EVD_RESIZE, evd_resize, kdapl_ioc_evd_resize, 0),
	KDAPL_UIOCTL(COUNTERS, counters, kdapl_ioc_counters, 0),
	KDAPL_UCONN(UD_AH_FREE, ud_ah_free, kdapl_ioc_ud_free),
	KDAPL_UCONN(UD_CM_FREE, ud_cm_free, kdapl_ioc_ud_free),
};

/* The command's entry, or NULL for an unknown command. */
static const struct kdapl_uioctl_def *kdapl_uioctl_find(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	if (cmd != KDAPL_IOC(nr) || nr >= KDAPL_NR_MAX)
		return NULL;
	nr = array_index_nospec(nr, KDAPL_NR_MAX);
	return kdapl_uioctls[nr].handler ? &kdapl_uioctls[nr] : NULL;
}

/**
 * kdapl_uioctl_defer_fd() - install a descriptor after the reply
 * @status: the status pointer the handler was given
 * @fd: a number from get_unused_fd_flags()
 * @file: the file for @fd; the call owns its reference from now on
 *
 * The dispatcher installs @file as @fd once the reply is in user memory,
 * or releases both if the command fails.  At most one per command.
 *
 * Context: an ioctl handler.
 */
void kdapl_uioctl_defer_fd(DAT_RETURN *status, int fd, struct file *file)
{
	struct kdapl_ucall *call = container_of(status, struct kdapl_ucall,
						status);

	WARN_ON_ONCE(call->file);
	call->fd = fd;
	call->file = file;
}

/* Install the deferred descriptor, or drop it when the call failed. */
static void kdapl_uioctl_finish_fd(struct kdapl_ucall *call, long ret)
{
	if (!call->file)
		return;
	if (ret) {
		put_unused_fd(call->fd);
		fput(call->file);
	} else {
		fd_install(call->fd, call->file);
	}
}

/**
 * kdapl_uioctl() - run an ioctl command of /dev/kdapl
 * @ufile: the file, used by the process that opened it
 * @cmd: the command
 * @uarg: the argument structure in user memory
 *
 * Context: process context, may sleep.
 * Return: 0 (the DAT outcome is in the argument's head), -ENOTTY for an
 * unknown command, -EPROTO before the handshake, -EFAULT, -EINVAL for a
 * size out of range, -E2BIG for a non-zero tail the kernel does not know,
 * or the handler's errno.
 */
long kdapl_uioctl(struct kdapl_ufile *ufile, unsigned int cmd,
		  void __user *uarg)
{
	const struct kdapl_uioctl_def *def;
	union kdapl_uioctl_arg arg;
	struct kdapl_ucall call = { .status = DAT_SUCCESS };
	u32 usize;
	long ret;

	def = kdapl_uioctl_find(cmd);
	if (!def)
		return -ENOTTY;
	if (!(def->flags & KDAPL_UIOCTL_BEFORE_HELLO) &&
	    !READ_ONCE(ufile->ready))
		return -EPROTO;
	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < def->min_size || usize > KDAPL_IOC_MAX_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&arg, def->size, uarg, usize);
	if (ret)
		return ret;

	if (def->flags & KDAPL_UIOCTL_UNLOCKED) {
		ret = def->handler(ufile, &arg, &call.status);
	} else {
		mutex_lock(&ufile->lock);
		ret = def->handler(ufile, &arg, &call.status);
		mutex_unlock(&ufile->lock);
	}
	trace_kdapl_uioctl(_IOC_NR(cmd), usize, ret, call.status);
	if (!ret) {
		arg.head.size = usize;
		arg.head.status = call.status;
		if (copy_to_user(uarg, &arg, min_t(u32, usize, def->size)))
			ret = -EFAULT;
	}
	kdapl_uioctl_finish_fd(&call, ret);
	return ret;
}
