// SPDX-License-Identifier: GPL-2.0
/*
 * Interface Adapters.  Each open IA is a file of /dev/kdapl of its own,
 * so closing the IA, or the process ending, releases everything in it at
 * once in the kernel.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

/* Open the IA's file and the IA in it; the async EVD comes with it. */
static DAT_RETURN shim_ia_open_dev(struct shim_ia *ia, const char *name,
				   DAT_COUNT qlen)
{
	struct kdapl_ioc_ia_open o = { .async_qlen = qlen };
	struct shim_evd *evd;
	DAT_RETURN ret;

	if (strlen(name) >= sizeof(o.name))
		return SHIM_ERR(DAT_PROVIDER_NOT_FOUND,
				 DAT_NAME_NOT_REGISTERED);
	strcpy(o.name, name);
	ia->fd = shim_dev_open(&ia->max_command);
	if (ia->fd < 0)
		return shim_dev_errno(errno);
	evd = shim_obj_new(sizeof(*evd), DAT_HANDLE_TYPE_EVD, ia);
	if (!evd)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	o.async_cookie = (uintptr_t)evd;
	ret = SHIM_CALL(ia, IA_OPEN, o);
	if (ret != DAT_SUCCESS) {
		shim_obj_free(&evd->obj);
		return ret;
	}
	ia->obj.id = o.ia_id;
	/* Closing the file frees the IA if the ring cannot be mapped. */
	if (shim_evd_map(evd, o.async_evd_id, o.async_ring_size,
			 o.async_ring_offset, qlen, DAT_EVD_ASYNC_FLAG)) {
		shim_obj_free(&evd->obj);
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	ia->async_evd = evd;
	return DAT_SUCCESS;
}

static void shim_ia_add_attr(struct shim_ia *ia, const char *name,
			     const char *value)
{
	DAT_NAMED_ATTR *a;

	assert(ia->num_prov_attr < SHIM_PROV_ATTR_MAX);
	a = &ia->prov_attr[ia->num_prov_attr++];
	a->name = name;
	a->value = value;
}

/*
 * The provider-specific attributes, under OFA's names: the transport's
 * MTU, which OFA's tools size their messages by (none if the kernel does
 * not know it), and the IB extensions: the interface and each operation
 * the transport carries, none on a transport that carries none (dtestx
 * leaves out the atomics the attributes do not list).
 */
static void shim_ia_set_prov_attr(struct shim_ia *ia, __u32 mtu)
{
	ia->num_prov_attr = 0;
	if (mtu) {
		snprintf(ia->mtu, sizeof(ia->mtu), "%u", mtu);
		shim_ia_add_attr(ia, "DAT_IB_TRANSPORT_MTU", ia->mtu);
	}
	if (!ia->ib_extensions)
		return;
	shim_ia_add_attr(ia, "DAT_EXTENSION_INTERFACE", "TRUE");
	if (ia->ib_extensions & KDAPL_IA_EXT_IMMED_DATA)
		shim_ia_add_attr(ia, DAT_IB_ATTR_IMMED_DATA, "TRUE");
	if (ia->ib_extensions & KDAPL_IA_EXT_ATOMICS) {
		shim_ia_add_attr(ia, DAT_IB_ATTR_FETCH_AND_ADD, "TRUE");
		shim_ia_add_attr(ia, DAT_IB_ATTR_CMP_AND_SWAP, "TRUE");
	}
	if (ia->ib_extensions & KDAPL_IA_EXT_COUNTERS)
		shim_ia_add_attr(ia, DAT_IB_ATTR_COUNTERS, "TRUE");
	if (ia->ib_extensions & KDAPL_IA_EXT_UD)
		shim_ia_add_attr(ia, DAT_IB_ATTR_UD, "TRUE");
}

/* The IA's address, which events and queries point to, and its limits. */
static DAT_RETURN shim_ia_fetch_addr(struct shim_ia *ia)
{
	struct kdapl_ioc_ia_query q = { .ia_id = ia->obj.id };
	DAT_RETURN ret = SHIM_CALL(ia, IA_QUERY, q);

	if (ret == DAT_SUCCESS) {
		memcpy(&ia->addr, q.addr, sizeof(ia->addr));
		ia->max_message_size = q.max_message_size;
		ia->max_rdma_size = q.max_rdma_size;
		ia->max_private_data = q.max_private_data_size;
		ia->max_rdma_read_iov = q.max_iov_segments_per_rdma_read;
		ia->max_rdma_write_iov = q.max_iov_segments_per_rdma_write;
		/* A module older than the SRQ commands has none to offer. */
		ia->srq_supported = q.max_srqs > 0 &&
				    ia->max_command > KDAPL_NR_SRQ_SET_LW;
		ia->ib_extensions = q.ib_extensions;
		shim_ia_set_prov_attr(ia, q.transport_mtu);
	}
	return ret;
}

DAT_RETURN shim_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia_handle)
{
	const DAT_PROVIDER *provider;
	struct shim_ia *ia;
	DAT_RETURN ret;

	if (!name)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!async_evd)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!ia_handle)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	/* An async EVD of another IA is not supported yet. */
	if (*async_evd != DAT_HANDLE_NULL)
		return SHIM_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	if (qlen <= 0)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	provider = shim_provider_of(name);
	if (!provider)
		return SHIM_ERR(DAT_PROVIDER_NOT_FOUND,
				 DAT_NAME_NOT_REGISTERED);

	ia = shim_obj_new(sizeof(*ia), DAT_HANDLE_TYPE_IA, NULL);
	if (!ia)
		return SHIM_ERR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	ia->obj.provider = provider;
	ia->fd = -1;
	ret = shim_ia_open_dev(ia, name, qlen);
	if (ret == DAT_SUCCESS)
		ret = shim_ia_fetch_addr(ia);
	if (ret != DAT_SUCCESS) {
		if (ia->async_evd)
			shim_evd_unmap(ia->async_evd);
		if (ia->fd >= 0)
			close(ia->fd);
		shim_obj_free(&ia->obj);
		return ret;
	}
	*async_evd = (DAT_EVD_HANDLE)ia->async_evd;
	*ia_handle = (DAT_IA_HANDLE)ia;
	return DAT_SUCCESS;
}

static DAT_RETURN shim_ia_query_attr(struct shim_ia *ia, DAT_IA_ATTR *a)
{
	struct kdapl_ioc_ia_query q = { .ia_id = ia->obj.id };
	DAT_RETURN ret = SHIM_CALL(ia, IA_QUERY, q);

	if (ret != DAT_SUCCESS)
		return ret;
	memset(a, 0, sizeof(*a));
	snprintf(a->adapter_name, sizeof(a->adapter_name), "%s",
		 q.adapter_name);
	snprintf(a->vendor_name, sizeof(a->vendor_name), "%s", q.vendor_name);
	memcpy(&ia->addr, q.addr, sizeof(ia->addr));
	a->ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ia->addr;
	a->hardware_version_major = q.hardware_version_major;
	a->hardware_version_minor = q.hardware_version_minor;
	a->firmware_version_major = q.firmware_version_major;
	a->firmware_version_minor = q.firmware_version_minor;
	a->max_eps = q.max_eps;
	a->max_dto_per_ep = q.max_dto_per_ep;
	a->max_rdma_read_per_ep_in = q.max_rdma_read_per_ep_in;
	a->max_rdma_read_per_ep_out = q.max_rdma_read_per_ep_out;
	a->max_evds = q.max_evds;
	a->max_evd_qlen = q.max_evd_qlen;
	a->max_iov_segments_per_dto = q.max_iov_segments_per_dto;
	a->max_lmrs = q.max_lmrs;
	a->max_lmr_block_size = q.max_lmr_block_size;
	a->max_lmr_virtual_address = q.max_lmr_virtual_address;
	a->max_pzs = q.max_pzs;
	a->max_message_size = q.max_message_size;
	a->max_rdma_size = q.max_rdma_size;
	a->max_rmrs = q.max_rmrs;
	a->max_rmr_target_address = q.max_rmr_target_address;
	a->max_srqs = q.max_srqs;
	a->max_ep_per_srq = q.max_ep_per_srq;
	a->max_recv_per_srq = q.max_recv_per_srq;
	a->max_iov_segments_per_rdma_read = q.max_iov_segments_per_rdma_read;
	a->max_iov_segments_per_rdma_write = q.max_iov_segments_per_rdma_write;
	a->max_rdma_read_in = q.max_rdma_read_in;
	a->max_rdma_read_out = q.max_rdma_read_out;
	a->zb_supported = q.zb_supported ? DAT_TRUE : DAT_FALSE;
	/*
	 * Only an IA whose transport carries some of the operations claims
	 * the extension (libdat2 passes dat_extension_op() on only then):
	 * OFA's dtest uses RDMA Write with immediate data wherever the IA
	 * claims it.  The operations the transport lacks are refused.
	 */
	if (ia->ib_extensions) {
		a->extension_supported = DAT_EXTENSION_IB;
		a->extension_version = DAT_IB_EXTENSION_VERSION;
	}
	return DAT_SUCCESS;
}

/*
 * The provider's attributes.  libdat2 rebuilds its registry key from the
 * DAPL version and thread safety at dat_ia_close(): they must be the
 * ones of the dat.conf line (u2.0 nonthreadsafe).
 */
static void shim_ia_query_provider(struct shim_ia *ia, DAT_PROVIDER_ATTR *p)
{
	/* What is not set below is 0: not supported. */
	memset(p, 0, sizeof(*p));
	snprintf(p->provider_name, sizeof(p->provider_name), "%s",
		 ia->obj.provider->device_name);
	p->provider_version_major = 2;
	p->provider_version_minor = 0;
	p->dapl_version_major = DAT_VERSION_MAJOR;
	p->dapl_version_minor = DAT_VERSION_MINOR;
	p->lmr_mem_types_supported = DAT_MEM_TYPE_VIRTUAL;
	p->iov_ownership_on_return = DAT_IOV_CONSUMER;
	p->dat_qos_supported = DAT_QOS_BEST_EFFORT;
	p->completion_flags_supported = DAT_COMPLETION_DEFAULT_FLAG;
	p->is_thread_safe = DAT_FALSE;
	p->max_private_data_size = ia->max_private_data;
	p->supports_multipath = DAT_FALSE;
	p->ep_creator = DAT_PSP_CREATES_EP_NEVER;
	p->pz_support = DAT_PZ_UNIQUE;
	p->optimal_buffer_alignment = DAT_OPTIMAL_ALIGNMENT;
	p->srq_supported = ia->srq_supported ? DAT_TRUE : DAT_FALSE;
	/* The SRQ's low watermark; no EP high watermarks (as kDAT). */
	p->srq_watermarks_supported = ia->srq_supported ? 1 : 0;
	p->lmr_sync_req = DAT_FALSE;
	p->dto_async_return_guaranteed = DAT_FALSE;
	p->rdma_write_for_rdma_read_req = DAT_FALSE;
	p->rdma_read_lmr_rmr_context_exposure = DAT_FALSE;
	p->rmr_scope_supported = DAT_RMR_SCOPE_PZ;
	p->is_signal_safe = DAT_FALSE;
	p->ha_supported = DAT_FALSE;
	p->num_provider_specific_attr = ia->num_prov_attr;
	p->provider_specific_attr = ia->prov_attr;
}

/* kdapl pairs no IAs for failover: no name is HA-related (as kDAT). */
DAT_RETURN shim_ia_ha_related(DAT_IA_HANDLE handle, const DAT_NAME_PTR name,
			      DAT_BOOLEAN *answer)
{
	if (!shim_obj_get(handle, DAT_HANDLE_TYPE_IA))
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!name)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!answer)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	*answer = DAT_FALSE;
	return DAT_SUCCESS;
}

DAT_RETURN shim_ia_query(DAT_IA_HANDLE handle, DAT_EVD_HANDLE *async_evd,
			 DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			 DAT_PROVIDER_ATTR_MASK prov_mask,
			 DAT_PROVIDER_ATTR *prov_attr)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_IA);
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (ia_mask && !ia_attr)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (prov_mask && !prov_attr)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (async_evd)
		*async_evd = (DAT_EVD_HANDLE)ia->async_evd;
	if (ia_mask) {
		ret = shim_ia_query_attr(ia, ia_attr);
		if (ret != DAT_SUCCESS)
			return ret;
	}
	if (prov_mask)
		shim_ia_query_provider(ia, prov_attr);
	return DAT_SUCCESS;
}

/*
 * The kernel closed the IA: the objects the consumer still held (an
 * abrupt close) are gone there.  Their rings are unmapped and their
 * descriptors closed, since a mapping keeps the IA's file, and with it
 * kernel memory, alive until the process exits.  Their handles stay
 * allocated but dead: a consumer that uses one gets DAT_INVALID_HANDLE
 * (their memory is the consumer's to leak, as DAT allows).
 */
static void shim_ia_forget(struct shim_ia *ia)
{
	struct shim_obj *obj, *next;

	pthread_mutex_lock(&ia->lock);
	for (obj = ia->objs; obj; obj = next) {
		next = obj->next;
		if (obj->type == DAT_HANDLE_TYPE_EVD)
			shim_evd_forget((struct shim_evd *)obj);
		else if (obj->type == DAT_HANDLE_TYPE_EP)
			shim_ep_forget((struct shim_ep *)obj);
		else if (obj->type == DAT_HANDLE_TYPE_CNO)
			shim_cno_forget((struct shim_cno *)obj);
		obj->magic = 0;
		obj->next = NULL;
		obj->prev = NULL;
	}
	ia->objs = NULL;
	pthread_mutex_unlock(&ia->lock);
}

DAT_RETURN shim_ia_close(DAT_IA_HANDLE handle, DAT_CLOSE_FLAGS flags)
{
	struct shim_ia *ia = (struct shim_ia *)shim_obj_get(handle,
							    DAT_HANDLE_TYPE_IA);
	struct kdapl_ioc_obj_free f = { .flags = flags };
	DAT_RETURN ret;

	if (!ia)
		return SHIM_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG)
		return SHIM_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	f.id = ia->obj.id;
	ret = SHIM_CALL(ia, IA_CLOSE, f);
	if (ret != DAT_SUCCESS)
		return ret;
	shim_evd_unmap(ia->async_evd);
	shim_ia_forget(ia);
	close(ia->fd);
	shim_obj_free(&ia->obj);
	return DAT_SUCCESS;
}
