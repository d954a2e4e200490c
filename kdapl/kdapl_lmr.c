// SPDX-License-Identifier: GPL-2.0
/*
 * Local Memory Regions: kernel memory registered with an RDMA device.
 *
 * Linux 6.1 gives kernel consumers one way to register memory so that a
 * peer can reach it with a remote key: fast registration.  An MR is
 * allocated with ib_alloc_mr(), its page list is computed from a
 * DMA-mapped scatterlist with ib_map_mr_sg(), and an IB_WR_REG_MR work
 * request posted on a QP makes it valid.  That work request needs a QP
 * in RTS, which an LMR does not have: LMRs are created before any
 * connection.  dat_lmr_kcreate() therefore does all but the posting.
 * The keys, address and size it returns are final; the LMR stays
 * "unregistered" (@registered false) until the connection code posts
 * the pending registrations of the PZ on the first of its QPs to reach
 * RTS.  The PZ lists its LMRs by lmr_context for that and for the
 * segment checks of DTOs.
 *
 * kdapl never allocates, frees, pins or unpins the memory of a kernel
 * consumer's LMR: the consumer owns it and must keep it until the LMR is
 * freed.  The LMRs of processes are pinned and registered at once
 * (kdapl_umem.c).
 *
 * See Documentation/memory.rst.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/dma-direction.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

/* An LMR may be the source and the sink of any transfer. */
#define KDAPL_LMR_DMA_DIR	DMA_BIDIRECTIONAL

#define KDAPL_MEM_OPTIMIZE_ALL	(DAT_MEM_OPTIMIZE_IA |			\
				 DAT_MEM_OPTIMIZE_MIN_EXPOSURE |	\
				 DAT_MEM_OPTIMIZE_EXACT_EXPOSURE)

static bool kdapl_lmr_owns_sgt(const struct kdapl_lmr *lmr)
{
	return lmr->mem_type != DAT_MEM_TYPE_SG;
}

/**
 * kdapl_mem_access() - the IB access flags of DAT memory privileges
 * @ia: the IA of the memory
 * @priv: DAT_MEM_PRIV_* flags of an LMR or of an RMR binding
 *
 * Local read is always allowed.  Remote write needs local write (ib_core
 * refuses it otherwise).  Remote access is granted only when asked for:
 * on iWARP the sink of an RDMA Read is written by the peer's response,
 * and DAT tells the consumer so (rdma_write_for_rdma_read_req), who asks
 * for remote write on such sinks.  Remote atomics (an IB extension) are
 * granted where the device has them; they write too.
 *
 * Context: any context.
 * Return: IB_ACCESS_* flags.
 */
int kdapl_mem_access(const struct kdapl_ia *ia, DAT_MEM_PRIV_FLAGS priv)
{
	int access = 0;

	if (priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
		access |= IB_ACCESS_LOCAL_WRITE;
	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		access |= IB_ACCESS_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		access |= IB_ACCESS_REMOTE_WRITE | IB_ACCESS_LOCAL_WRITE;
	if ((priv & DAT_IB_MEM_PRIV_REMOTE_ATOMIC) &&
	    (ia->ib_ext & KDAPL_IB_EXT_ATOMICS))
		access |= IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_LOCAL_WRITE;
	return access;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_mem_access);

/* The page of one byte of a kernel virtual range, or NULL. */
static struct page *kdapl_kva_page(unsigned long addr)
{
	if (is_vmalloc_addr((void *)addr))
		return vmalloc_to_page((void *)addr);
	if (virt_addr_valid((void *)addr))
		return virt_to_page((void *)addr);
	return NULL;
}

/* Pages of DAT_MEM_TYPE_VIRTUAL: linear-map or vmalloc memory. */
static DAT_RETURN kdapl_lmr_va_pages(unsigned long addr, struct page **pages,
				     unsigned int npages)
{
	unsigned long p = addr & PAGE_MASK;
	unsigned int i;

	for (i = 0; i < npages; i++, p += PAGE_SIZE) {
		pages[i] = kdapl_kva_page(p);
		if (!pages[i])
			return dat_error(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG3);
	}
	return DAT_SUCCESS;
}

/*
 * Pages of DAT_MEM_TYPE_PHYSICAL and PHYSICAL_VAR_PAGES: @pas holds
 * physical addresses of blocks of @block_size bytes (a power of two, at
 * least PAGE_SIZE), each aligned to its size.
 */
static DAT_RETURN kdapl_lmr_phys_pages(const DAT_PADDR *pas, u64 block_size,
				       struct page **pages,
				       unsigned int npages)
{
	unsigned int shift = ilog2(block_size) - PAGE_SHIFT;
	unsigned long pfn;
	unsigned int i;
	DAT_PADDR pa;

	for (i = 0; i < npages; i++) {
		pa = pas[(u64)i >> shift];
		if (pa & (block_size - 1))
			return dat_error(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG3);
		pfn = PHYS_PFN(pa) + (i & (BIT_ULL(shift) - 1));
		if (!pfn_valid(pfn))
			return dat_error(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG3);
		pages[i] = pfn_to_page(pfn);
	}
	return DAT_SUCCESS;
}

/*
 * Build @lmr->sgt over the pages of a virtual or physical region.
 * Sets *iova to the address the registration starts at.
 */
static DAT_RETURN kdapl_lmr_build_pages(struct kdapl_lmr *lmr, u32 max_pages,
					u64 *iova)
{
	const DAT_REGION_DESCRIPTION *r = &lmr->region;
	u64 len = lmr->length, npages, block = PAGE_SIZE;
	unsigned long addr = 0, offset = 0;
	struct page **pages;
	DAT_RETURN ret;

	switch (lmr->mem_type) {
	case DAT_MEM_TYPE_VIRTUAL:
		addr = (unsigned long)r->for_va;
		if (len - 1 > ULONG_MAX - addr)
			return dat_error(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG3);
		npages = ((addr + len - 1) >> PAGE_SHIFT) -
			 (addr >> PAGE_SHIFT) + 1;
		offset = offset_in_page(addr);
		*iova = addr;
		break;
	case DAT_MEM_TYPE_PHYSICAL_VAR_PAGES:
		block = r->for_array.page_size;
		fallthrough;
	default:
		npages = (len >> PAGE_SHIFT) + !!(len & ~PAGE_MASK);
		break;
	}
	if (npages > max_pages)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);

	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	if (lmr->mem_type == DAT_MEM_TYPE_VIRTUAL) {
		ret = kdapl_lmr_va_pages(addr, pages, npages);
	} else {
		const DAT_PADDR *pas = lmr->mem_type == DAT_MEM_TYPE_PHYSICAL ?
				       r->for_physical : r->for_array.pages;

		ret = kdapl_lmr_phys_pages(pas, block, pages, npages);
		*iova = pas[0];
	}
	if (!ret && sg_alloc_table_from_pages(&lmr->sgt, pages, npages,
					      offset, len, GFP_KERNEL))
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	kvfree(pages);
	if (ret)
		return ret;
	lmr->sg = lmr->sgt.sgl;
	lmr->nents = lmr->sgt.orig_nents;
	return DAT_SUCCESS;
}

/*
 * DAT_MEM_TYPE_LMR: a table of its own over the pages of @orig, which is
 * registered again; the new LMR does not depend on @orig afterwards.
 */
static DAT_RETURN kdapl_lmr_build_shared(struct kdapl_lmr *lmr,
					 const struct kdapl_lmr *orig,
					 u64 *iova)
{
	struct scatterlist *s, *d;
	unsigned int i;

	if (!orig->sg || sg_alloc_table(&lmr->sgt, orig->nents, GFP_KERNEL))
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	d = lmr->sgt.sgl;
	for_each_sg(orig->sg, s, orig->nents, i) {
		sg_set_page(d, sg_page(s), s->length, s->offset);
		d = sg_next(d);
	}
	lmr->sg = lmr->sgt.sgl;
	lmr->nents = lmr->sgt.orig_nents;
	lmr->length = orig->length;
	*iova = orig->registered_address;
	return DAT_SUCCESS;
}

/* DAT_MEM_TYPE_SG: the caller's list, which must hold @lmr->length. */
static DAT_RETURN kdapl_lmr_use_sg(struct kdapl_lmr *lmr)
{
	const DAT_SG_LIST *l = &lmr->region.for_sg;
	struct scatterlist *s;
	u64 total = 0;
	unsigned int i;

	for_each_sg(l->sg, s, l->nents, i)
		total += s->length;
	if (total < lmr->length)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	lmr->sg = l->sg;
	lmr->nents = l->nents;
	return DAT_SUCCESS;
}

/* Pages the page list of an MR over the mapped list needs, at most. */
static u64 kdapl_lmr_dma_pages(struct scatterlist *sg, int nents)
{
	struct scatterlist *s;
	u64 pages = 0, a;
	int i;

	for_each_sg(sg, s, nents, i) {
		a = sg_dma_address(s);
		pages += (ALIGN(a + sg_dma_len(s), PAGE_SIZE) -
			  ALIGN_DOWN(a, PAGE_SIZE)) >> PAGE_SHIFT;
	}
	return pages;
}

/* Undo the DMA mapping and the MR.  IA lock held, or not yet published. */
static void kdapl_lmr_unmap(struct kdapl_lmr *lmr, struct ib_device *dev)
{
	if (lmr->user) {
		kdapl_umem_release(lmr);
		return;
	}
	if (lmr->mr) {
		ib_dereg_mr(lmr->mr);
		lmr->mr = NULL;
	}
	if (lmr->dma_nents) {
		ib_dma_unmap_sg(dev, lmr->sg, lmr->nents, KDAPL_LMR_DMA_DIR);
		lmr->dma_nents = 0;
	}
	if (kdapl_lmr_owns_sgt(lmr))
		sg_free_table(&lmr->sgt);
	lmr->sg = NULL;
	lmr->nents = 0;
}

/* DMA-map @lmr->sg and allocate and map its MR.  IA lock held. */
/*
 * Does the DMA mapping of @lmr need syncs?  Virtual DMA devices (rxe,
 * siw) access memory with the CPU; others need them where the DMA API
 * says so (non-coherent devices, bounce buffers).
 */
static bool kdapl_lmr_need_sync(const struct kdapl_lmr *lmr,
				struct ib_device *dev)
{
	struct scatterlist *s;
	int i;

	if (ib_uses_virt_dma(dev))
		return false;
	for_each_sg(lmr->sg, s, lmr->dma_nents, i)
		if (dma_need_sync(dev->dma_device, sg_dma_address(s)))
			return true;
	return false;
}

static DAT_RETURN kdapl_lmr_map(struct kdapl_lmr *lmr, struct kdapl_ia *ia,
				u32 max_pages, u64 iova, bool set_iova)
{
	struct ib_device *dev = ia->ibdev;
	struct ib_mr *mr;
	u64 npages;
	int n;

	n = ib_dma_map_sg(dev, lmr->sg, lmr->nents, KDAPL_LMR_DMA_DIR);
	if (n <= 0)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	lmr->dma_nents = n;
	lmr->need_sync = kdapl_lmr_need_sync(lmr, dev);

	npages = kdapl_lmr_dma_pages(lmr->sg, n);
	if (npages > max_pages)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);
	/*
	 * One page more than needed when the device allows it: rdma_rxe of
	 * 6.1 (rxe_mr_copy()) reads the next entry of its map table after
	 * a copy that ends on the last byte of a full map (256 pages), out
	 * of the table when the MR has exactly that many pages.
	 */
	mr = ib_alloc_mr(lmr->pz->pd, IB_MR_TYPE_MEM_REG,
			 min_t(u64, npages + 1, max_pages));
	if (IS_ERR(mr))
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);
	lmr->mr = mr;

	/*
	 * Inner entries that do not start and end on page boundaries
	 * cannot be described by one page list: ib_map_mr_sg() stops there.
	 */
	n = ib_map_mr_sg(mr, lmr->sg, lmr->dma_nents, NULL, PAGE_SIZE);
	if (n == -ENOMEM)
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);
	if (n != lmr->dma_nents)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	/* The address space of the LMR, with the page offset unchanged. */
	if (set_iova)
		mr->iova = iova;
	lmr->access = kdapl_mem_access(ia, lmr->priv);
	lmr->lmr_context = mr->lkey;
	lmr->rmr_context = lmr->priv & KDAPL_MEM_PRIV_REMOTE ? mr->rkey : 0;
	lmr->registered_address = mr->iova;
	lmr->registered_size = mr->length;
	/*
	 * Local access needs no MR when the LMR is one DMA range: like
	 * other kernel ULPs, its sends and receives then use the PD's
	 * local_dma_lkey and DMA addresses, which spares the device the MR
	 * lookup and address translation of every work request.  kdapl
	 * checks every segment against the LMR and its privileges before
	 * posting.  RDMA Read sinks keep the MR (on iWARP the response is a
	 * tagged write into it), and so does the peer's remote access.
	 */
	if (lmr->dma_nents == 1) {
		lmr->sge_lkey = lmr->pz->pd->local_dma_lkey;
		lmr->sge_offset = sg_dma_address(lmr->sg) - mr->iova;
	} else {
		lmr->sge_lkey = lmr->lmr_context;
		lmr->sge_offset = 0;
	}
	return DAT_SUCCESS;
}

/* Build, map and describe the registration.  IA lock held. */
static DAT_RETURN kdapl_lmr_register(struct kdapl_lmr *lmr,
				     struct kdapl_ia *ia,
				     const struct kdapl_lmr *orig)
{
	u32 max_pages = ia->ibdev->attrs.max_fast_reg_page_list_len;
	bool set_iova = true;
	DAT_RETURN ret;
	u64 iova = 0;

	if (lmr->user)
		return kdapl_umem_register(lmr, ia);
	switch (lmr->mem_type) {
	case DAT_MEM_TYPE_SG:
		ret = kdapl_lmr_use_sg(lmr);
		set_iova = false;
		break;
	case DAT_MEM_TYPE_LMR:
		ret = kdapl_lmr_build_shared(lmr, orig, &iova);
		break;
	default:
		ret = kdapl_lmr_build_pages(lmr, max_pages, &iova);
		break;
	}
	if (!ret)
		ret = kdapl_lmr_map(lmr, ia, max_pages, iova, set_iova);
	if (ret) {
		kdapl_lmr_unmap(lmr, ia->ibdev);
		return ret;
	}
	/* The address space of a virtual LMR is the kernel's. */
	lmr->cpu_va = lmr->mem_type == DAT_MEM_TYPE_VIRTUAL ||
		      (lmr->mem_type == DAT_MEM_TYPE_LMR && orig->cpu_va);
	return DAT_SUCCESS;
}

/* Arguments that need no handle, in the order of dat_lmr_kcreate(). */
static DAT_RETURN kdapl_lmr_check_args(DAT_MEM_TYPE mem_type,
				       const DAT_REGION_DESCRIPTION *r,
				       DAT_VLEN length,
				       DAT_MEM_PRIV_FLAGS privileges,
				       DAT_VA_TYPE va_type,
				       DAT_MEM_OPTIMIZE_FLAGS optimization,
				       DAT_LMR_HANDLE *lmr_handle)
{
	bool bad_region;
	u64 block;

	switch (mem_type) {
	case DAT_MEM_TYPE_VIRTUAL:
		bad_region = !r->for_va;
		break;
	case DAT_MEM_TYPE_PHYSICAL:
		bad_region = !r->for_physical;
		break;
	case DAT_MEM_TYPE_PHYSICAL_VAR_PAGES:
		block = r->for_array.page_size;
		bad_region = !r->for_array.pages || block < PAGE_SIZE ||
			     !is_power_of_2(block);
		break;
	case DAT_MEM_TYPE_SG:
		bad_region = !r->for_sg.sg || !r->for_sg.nents;
		break;
	case DAT_MEM_TYPE_LMR:
		/* The handle is looked up later. */
		bad_region = false;
		break;
	case DAT_MEM_TYPE_SHARED_VIRTUAL:
	case DAT_MEM_TYPE_PLATFORM:
	case DAT_MEM_TYPE_IA:
	case DAT_MEM_TYPE_BYPASS:
		return dat_error(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	default:
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	if (bad_region)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	/* The length of a shared LMR is that of the LMR it shares. */
	if (!length && mem_type != DAT_MEM_TYPE_LMR)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (privileges & ~KDAPL_LMR_PRIV_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (va_type == DAT_VA_TYPE_ZB)
		return dat_error(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	if (va_type != DAT_VA_TYPE_VA)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	if (optimization & ~KDAPL_MEM_OPTIMIZE_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
	if (!lmr_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG9);
	return DAT_SUCCESS;
}

/*
 * The IA, PZ and (for DAT_MEM_TYPE_LMR) shared LMR dat_lmr_kcreate()
 * names, with a reference each; none on failure.
 */
static DAT_RETURN kdapl_lmr_lookup(struct kdapl_owner *owner,
				   DAT_IA_HANDLE ia_handle,
				   DAT_PZ_HANDLE pz_handle,
				   DAT_MEM_TYPE mem_type,
				   const DAT_REGION_DESCRIPTION *region,
				   struct kdapl_ia **iap, struct kdapl_pz **pzp,
				   struct kdapl_lmr **origp)
{
	struct kdapl_lmr *orig = NULL;
	struct kdapl_ia *ia;
	struct kdapl_pz *pz;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;
	ret = kdapl_get(owner, pz_handle, PZ, DAT_INVALID_HANDLE_PZ, &pz);
	if (ret)
		goto out_ia;
	if (pz->obj.ia != ia) {
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		goto out_pz;
	}
	if (mem_type == DAT_MEM_TYPE_LMR) {
		ret = kdapl_get(owner, region->for_lmr_handle, LMR,
				DAT_INVALID_HANDLE_LMR, &orig);
		if (ret)
			goto out_pz;
		if (orig->obj.ia != ia) {
			kdapl_object_put(&orig->obj);
			ret = dat_error(DAT_INVALID_PARAMETER,
					DAT_INVALID_ARG3);
			goto out_pz;
		}
	}
	*iap = ia;
	*pzp = pz;
	*origp = orig;
	return DAT_SUCCESS;

out_pz:
	kdapl_object_put(&pz->obj);
out_ia:
	kdapl_object_put(&ia->obj);
	return ret;
}

/*
 * Register the new @lmr and make it an object of its IA and PZ.  IA lock
 * held; on failure nothing of it remains but its memory.
 */
static DAT_RETURN kdapl_lmr_install(struct kdapl_lmr *lmr, struct kdapl_ia *ia,
				    struct kdapl_pz *pz,
				    const struct kdapl_lmr *orig)
{
	DAT_RETURN ret;
	int err;

	lockdep_assert_held(&ia->lock);
	if (!ia->ibdev || ia->closing || !pz->pd)
		return dat_error(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	/* The shared LMR may have been freed since the lookup. */
	if (orig && list_empty(&orig->obj.ia_entry))
		return dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	ret = kdapl_lmr_register(lmr, ia, orig);
	if (ret)
		return ret;

	err = xa_insert(&pz->lmrs, lmr->lmr_context, lmr, GFP_KERNEL);
	if (err) {
		ret = err == -ENOMEM ?
		      dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY) :
		      dat_error(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
		goto err_unmap;
	}
	if (kdapl_object_publish(&lmr->obj)) {
		xa_erase(&pz->lmrs, lmr->lmr_context);
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto err_unmap;
	}
	kdapl_ia_add_object(ia, &lmr->obj);
	kdapl_pz_add_lmr_hash(pz, lmr);
	/*
	 * The LMR keeps the lookup's reference to its PZ until its memory
	 * goes, so that a late query or free never finds it freed (the IA
	 * is held by every published object).
	 */
	kdapl_use(&pz->obj);
	/* Usable at once if a connection of the PZ is up. */
	kdapl_dto_lmr_created(lmr);
	return DAT_SUCCESS;

err_unmap:
	/* kdapl_dto_qp_rts() may have seen it in the PZ's list. */
	kdapl_dto_reg_lock(pz);
	kdapl_lmr_unmap(lmr, ia->ibdev);
	kdapl_dto_reg_unlock(pz);
	return ret;
}

/**
 * kdapl_lmr_kcreate() - dat_lmr_kcreate() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_lmr_kcreate()
 * @mem_type: as for dat_lmr_kcreate()
 * @region_description: as for dat_lmr_kcreate()
 * @length: as for dat_lmr_kcreate()
 * @pz_handle: as for dat_lmr_kcreate()
 * @privileges: as for dat_lmr_kcreate()
 * @va_type: as for dat_lmr_kcreate()
 * @optimization: as for dat_lmr_kcreate()
 * @lmr_handle: as for dat_lmr_kcreate()
 * @lmr_context: as for dat_lmr_kcreate()
 * @rmr_context: as for dat_lmr_kcreate()
 * @registered_length: as for dat_lmr_kcreate()
 * @registered_address: as for dat_lmr_kcreate()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_lmr_kcreate().
 * Return: as dat_lmr_kcreate().
 */
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
			     DAT_VADDR *registered_address)
{
	struct kdapl_lmr *lmr, *orig;
	struct kdapl_ia *ia;
	struct kdapl_pz *pz;
	DAT_RETURN ret;

	/*
	 * Physical addresses and scatterlists come from kernel callers only;
	 * the virtual addresses of other owners are their processes'.
	 */
	if (!kdapl_owner_kernel(owner) && mem_type != DAT_MEM_TYPE_LMR &&
	    mem_type != DAT_MEM_TYPE_VIRTUAL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ret = kdapl_lmr_check_args(mem_type, &region_description, length,
				   privileges, va_type, optimization,
				   lmr_handle);
	if (ret)
		return ret;
	ret = kdapl_lmr_lookup(owner, ia_handle, pz_handle, mem_type,
			       &region_description, &ia, &pz, &orig);
	if (ret)
		return ret;

	lmr = kzalloc(sizeof(*lmr), GFP_KERNEL_ACCOUNT);
	if (!lmr) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out;
	}
	kdapl_object_init(&lmr->obj, DAT_HANDLE_TYPE_LMR, ia);
	lmr->pz = pz;
	lmr->mem_type = mem_type;
	lmr->region = region_description;
	lmr->length = length;
	lmr->priv = privileges;
	lmr->va_type = va_type;
	lmr->user = !kdapl_owner_kernel(owner) &&
		    mem_type == DAT_MEM_TYPE_VIRTUAL;

	mutex_lock(&ia->lock);
	ret = kdapl_lmr_install(lmr, ia, pz, orig);
	if (ret) {
		mutex_unlock(&ia->lock);
		kfree(lmr);
		goto out;
	}
	*lmr_handle = kdapl_object_handle(&lmr->obj);
	if (lmr_context)
		*lmr_context = lmr->lmr_context;
	if (rmr_context)
		*rmr_context = lmr->rmr_context;
	if (registered_length)
		*registered_length = lmr->registered_size;
	if (registered_address)
		*registered_address = lmr->registered_address;
	mutex_unlock(&ia->lock);
	/* The LMR keeps the reference to its PZ. */
	pz = NULL;
out:
	if (pz)
		kdapl_object_put(&pz->obj);
	if (orig)
		kdapl_object_put(&orig->obj);
	kdapl_object_put(&ia->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_lmr_kcreate);

/**
 * dat_lmr_kcreate() - register kernel memory as a Local Memory Region
 * @ia_handle: the IA
 * @mem_type: how @region_description describes the memory:
 *	DAT_MEM_TYPE_VIRTUAL (for_va: a kernel virtual address in the
 *	linear map or in vmalloc space), DAT_MEM_TYPE_PHYSICAL
 *	(for_physical: page-aligned physical addresses, one per PAGE_SIZE
 *	page of @length), DAT_MEM_TYPE_PHYSICAL_VAR_PAGES (for_array:
 *	physical blocks of one power-of-two size), DAT_MEM_TYPE_SG (for_sg:
 *	a struct scatterlist, DMA-mapped in place) or DAT_MEM_TYPE_LMR
 *	(for_lmr_handle: the memory of another LMR of the IA)
 * @region_description: the memory
 * @length: bytes to register; ignored for DAT_MEM_TYPE_LMR
 * @pz_handle: PZ of the LMR, of the same IA
 * @privileges: DAT_MEM_PRIV_* flags
 * @va_type: DAT_VA_TYPE_VA
 * @optimization: DAT_MEM_OPTIMIZE_* flags; accepted and ignored
 * @lmr_handle: out: the LMR
 * @lmr_context: out, may be NULL: the local key
 * @rmr_context: out, may be NULL: the remote key, 0 unless @privileges
 *	has remote read or remote write
 * @registered_length: out, may be NULL: bytes registered
 * @registered_address: out, may be NULL: address of the first byte
 *	registered, in the address space triplets and RMR binds use: the
 *	virtual address for VIRTUAL, the first physical address for the
 *	physical types, the DMA address of the first entry for SG, and
 *	that of the shared LMR for LMR
 *
 * The memory stays the caller's: it is neither copied nor pinned, and
 * must stay allocated until dat_lmr_free().  The registration becomes
 * usable by DTOs once a connection of the PZ is established.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS;
 * DAT_INVALID_HANDLE (IA) for a bad @ia_handle, (PZ) for a bad
 * @pz_handle or a PZ of another IA, (LMR) for a bad for_lmr_handle;
 * DAT_INVALID_PARAMETER (ARG2) for an unknown @mem_type, (ARG3) for a
 * region that is NULL, not kernel memory, not page-aligned where it must
 * be, wraps around, is an LMR of another IA, or is a scatterlist whose
 * inner entries do not start and end on page boundaries, (ARG4) for a
 * zero @length or one beyond the scatterlist, (ARG6) for unknown
 * privileges, (ARG7) for an unknown @va_type, (ARG8) for unknown
 * optimization flags, (ARG9) for a NULL @lmr_handle;
 * DAT_NOT_IMPLEMENTED for DAT_MEM_TYPE_SHARED_VIRTUAL, PLATFORM, IA and
 * BYPASS and for DAT_VA_TYPE_ZB;
 * DAT_INVALID_STATE if the IA's device is gone or the IA is closing;
 * DAT_INSUFFICIENT_RESOURCES (MEMORY_REGION) if the region needs more
 * pages than the device's fast-registration page list
 * (max_fast_reg_page_list_len) or the device refuses the MR, (MEMORY)
 * when out of memory.
 */
DAT_RETURN dat_lmr_kcreate(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
			   DAT_REGION_DESCRIPTION region_description,
			   DAT_VLEN length, DAT_PZ_HANDLE pz_handle,
			   DAT_MEM_PRIV_FLAGS privileges, DAT_VA_TYPE va_type,
			   DAT_MEM_OPTIMIZE_FLAGS optimization,
			   DAT_LMR_HANDLE *lmr_handle,
			   DAT_LMR_CONTEXT *lmr_context,
			   DAT_RMR_CONTEXT *rmr_context,
			   DAT_VLEN *registered_length,
			   DAT_VADDR *registered_address)
{
	return kdapl_lmr_kcreate(&kdapl_kernel_owner, ia_handle, mem_type,
				 region_description, length, pz_handle,
				 privileges, va_type, optimization, lmr_handle,
				 lmr_context, rmr_context, registered_length,
				 registered_address);
}
EXPORT_SYMBOL_GPL(dat_lmr_kcreate);

/**
 * kdapl_lmr_query() - dat_lmr_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @lmr_handle: as for dat_lmr_query()
 * @mask: as for dat_lmr_query()
 * @param: as for dat_lmr_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_lmr_query().
 * Return: as dat_lmr_query().
 */
DAT_RETURN kdapl_lmr_query(struct kdapl_owner *owner, DAT_LMR_HANDLE lmr_handle,
			   DAT_LMR_PARAM_MASK mask, DAT_LMR_PARAM *param)
{
	struct kdapl_lmr *lmr;
	DAT_RETURN ret;

	if (mask & ~DAT_LMR_FIELD_ALL_KDAT)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, lmr_handle, LMR, DAT_INVALID_HANDLE_LMR, &lmr);
	if (ret)
		return ret;

	if (mask & DAT_LMR_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&lmr->obj.ia->obj);
	if (mask & DAT_LMR_FIELD_MEM_TYPE)
		param->mem_type = lmr->mem_type;
	if (mask & DAT_LMR_FIELD_REGION_DESC)
		param->region_desc = lmr->region;
	if (mask & DAT_LMR_FIELD_LENGTH)
		param->length = lmr->length;
	if (mask & DAT_LMR_FIELD_PZ_HANDLE)
		param->pz_handle = kdapl_object_handle(&lmr->pz->obj);
	if (mask & DAT_LMR_FIELD_MEM_PRIV)
		param->mem_priv = lmr->priv;
	if (mask & DAT_LMR_FIELD_VA_TYPE)
		param->va_type = lmr->va_type;
	if (mask & DAT_LMR_FIELD_LMR_CONTEXT)
		param->lmr_context = lmr->lmr_context;
	if (mask & DAT_LMR_FIELD_RMR_CONTEXT)
		param->rmr_context = lmr->rmr_context;
	if (mask & DAT_LMR_FIELD_REGISTERED_SIZE)
		param->registered_size = lmr->registered_size;
	if (mask & DAT_LMR_FIELD_REGISTERED_ADDRESS)
		param->registered_address = lmr->registered_address;
	if (mask & DAT_LMR_FIELD_LMR_STATE) {
		param->lmr_state.fmr_support = DAT_FALSE;
		param->lmr_state.bound = READ_ONCE(lmr->registered) ?
					 DAT_TRUE : DAT_FALSE;
	}
	kdapl_object_put(&lmr->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_lmr_query);

/**
 * dat_lmr_query() - parameters of a Local Memory Region
 * @lmr_handle: the LMR
 * @mask: DAT_LMR_FIELD_* wanted (DAT_LMR_FIELD_ALL_KDAT for all)
 * @param: out: the fields @mask asks for; the others are not written
 *
 * region_desc, length and mem_type are what dat_lmr_kcreate() was given
 * (for a shared LMR, the length of the LMR shared).  lmr_state.bound
 * says whether the registration has been posted and completed on a
 * connection of the PZ; lmr_state.fmr_support is always DAT_FALSE.
 *
 * Context: any context.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (ARG2) for mask bits outside
 * DAT_LMR_FIELD_ALL_KDAT, (ARG3) for a NULL @param; DAT_INVALID_HANDLE
 * (LMR) for a bad @lmr_handle.
 */
DAT_RETURN dat_lmr_query(DAT_LMR_HANDLE lmr_handle, DAT_LMR_PARAM_MASK mask,
			 DAT_LMR_PARAM *param)
{
	return kdapl_lmr_query(&kdapl_kernel_owner, lmr_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_lmr_query);

/*
 * The device must not touch the memory of @lmr once it is freed: every
 * work request still referencing it (posts found it before it left its
 * PZ's hash) completes with a protection error.  Those the device has
 * cannot be taken back: the connection of their EP is broken and its QP
 * drained, and an SRQ holding such a receive is given up.  IA lock held.
 */
static void kdapl_lmr_forget(struct kdapl_lmr *lmr)
{
	struct kdapl_ia *ia = lmr->obj.ia;
	struct kdapl_object *obj;

	lockdep_assert_held(&ia->lock);
	list_for_each_entry(obj, &ia->objects, ia_entry) {
		if (obj->type == DAT_HANDLE_TYPE_SRQ) {
			kdapl_srq_forget_lmr(container_of(obj, struct kdapl_srq,
							  obj), lmr);
			continue;
		}
		if (obj->type != DAT_HANDLE_TYPE_EP)
			continue;
		if (kdapl_dto_forget_lmr(container_of(obj, struct kdapl_ep, obj),
					 lmr))
			kdapl_cm_ep_break(container_of(obj, struct kdapl_ep,
						       obj));
	}
}

/* Release everything of a freed LMR but its memory.  IA lock held. */
static void kdapl_lmr_destroy(struct kdapl_lmr *lmr)
{
	struct kdapl_ia *ia = lmr->obj.ia;

	lockdep_assert_held(&ia->lock);
	kdapl_pz_del_lmr_hash(lmr);
	xa_cmpxchg(&lmr->pz->lmrs, lmr->lmr_context, lmr, NULL, 0);
	/* Posts that found it in the hash are done once each EP is locked. */
	kdapl_lmr_forget(lmr);
	/* Never under a registration work request in flight. */
	kdapl_dto_reg_lock(lmr->pz);
	kdapl_lmr_unmap(lmr, ia->ibdev);
	kdapl_dto_reg_unlock(lmr->pz);
	kdapl_unuse(&lmr->pz->obj);
	kdapl_ia_del_object(ia, &lmr->obj);
}

/**
 * kdapl_lmr_free() - dat_lmr_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @lmr_handle: as for dat_lmr_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_lmr_free().
 * Return: as dat_lmr_free().
 */
DAT_RETURN kdapl_lmr_free(struct kdapl_owner *owner, DAT_LMR_HANDLE lmr_handle)
{
	struct kdapl_lmr *lmr;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, lmr_handle, LMR, DAT_INVALID_HANDLE_LMR, &lmr);
	if (ret)
		return ret;
	ia = lmr->obj.ia;

	mutex_lock(&ia->lock);
	if (lmr->obj.users || atomic_read(&lmr->rmr_binds))
		ret = dat_error(DAT_INVALID_STATE,
				DAT_INVALID_STATE_LMR_IN_USE);
	else if (!kdapl_object_unpublish(&lmr->obj))
		ret = dat_error(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	else
		kdapl_lmr_destroy(lmr);
	mutex_unlock(&ia->lock);
	kdapl_object_put(&lmr->obj);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_lmr_free);

/**
 * dat_lmr_free() - destroy a Local Memory Region
 * @lmr_handle: the LMR
 *
 * Deregisters the memory and undoes its DMA mapping; the memory itself
 * is neither freed nor unpinned and stays the caller's, as does the
 * scatterlist of a DAT_MEM_TYPE_SG region.  Afterwards the handle is
 * invalid, the lmr_context is no longer known to the PZ, DTOs using it
 * fail with a protection error and the device refuses its rmr_context.
 * The device touches the memory no more once this returns: a DTO posted
 * before that still references the LMR completes with
 * DAT_DTO_ERR_LOCAL_PROTECTION and moves no byte.  If the device already
 * has such a work request, the connection of its EP is broken (BROKEN)
 * and its QP drained before this returns; an SRQ holding such a receive
 * goes to the error state, and so do the connections of its EPs.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (LMR) for a bad, freed or
 * concurrently freed @lmr_handle; DAT_INVALID_STATE (LMR_IN_USE) while
 * an RMR is bound to the LMR, or an unbind from it has not completed.
 */
DAT_RETURN dat_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	return kdapl_lmr_free(&kdapl_kernel_owner, lmr_handle);
}
EXPORT_SYMBOL_GPL(dat_lmr_free);

/* The LMR of @ia with @lmr_context, among the LMRs of its PZs. */
static struct kdapl_lmr *kdapl_lmr_find(struct kdapl_ia *ia,
					DAT_LMR_CONTEXT lmr_context)
{
	struct kdapl_object *obj;
	struct kdapl_lmr *lmr;

	lockdep_assert_held(&ia->lock);
	list_for_each_entry(obj, &ia->objects, ia_entry) {
		if (obj->type != DAT_HANDLE_TYPE_PZ)
			continue;
		lmr = xa_load(&container_of(obj, struct kdapl_pz, obj)->lmrs,
			      lmr_context);
		if (lmr)
			return lmr;
	}
	return NULL;
}

/**
 * kdapl_lmr_sync_range() - sync a range of an LMR's DMA mapping
 * @lmr: the LMR
 * @va: first byte, in the LMR's address space
 * @len: bytes, a range @lmr covers
 * @for_cpu: the device wrote the range and the CPU reads it next (else
 *	the CPU wrote it and the device accesses it next)
 *
 * Used by dat_lmr_sync_rdma_read() and dat_lmr_sync_rdma_write(), and
 * for the segments of work requests (kdapl_lmr_sync_sges()).
 *
 * Context: any context; the LMR's mapping is not torn down meanwhile
 * (the IA lock held, or a work request of the LMR outstanding).
 */
void kdapl_lmr_sync_range(struct kdapl_lmr *lmr, DAT_VADDR va, DAT_VLEN len,
			  bool for_cpu)
{
	u64 off = va - lmr->registered_address, chunk, l;
	struct ib_device *dev;
	struct scatterlist *s;
	int i;

	/* Without its device the LMR has no mapping left to sync. */
	if (!lmr->mr)
		return;
	dev = lmr->mr->device;
	/*
	 * The registration maps its address space onto the mapped entries
	 * back to back, from the first byte of the first entry.
	 */
	for_each_sg(lmr->sg, s, lmr->dma_nents, i) {
		l = sg_dma_len(s);
		if (off >= l) {
			off -= l;
			continue;
		}
		chunk = min(l - off, len);
		if (for_cpu)
			ib_dma_sync_single_for_cpu(dev, sg_dma_address(s) + off,
						   chunk, KDAPL_LMR_DMA_DIR);
		else
			ib_dma_sync_single_for_device(dev,
						      sg_dma_address(s) + off,
						      chunk, KDAPL_LMR_DMA_DIR);
		len -= chunk;
		off = 0;
		if (!len)
			break;
	}
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Segments kdapl_lmr_sync_sges() synced, for the device and for the CPU. */
atomic_t kdapl_lmr_sge_syncs[2];
EXPORT_SYMBOL_IF_KUNIT(kdapl_lmr_sge_syncs);
#endif

/**
 * kdapl_lmr_sync_sges() - sync the segments of a work request
 * @lmrs: the LMR of each segment
 * @sge: the segments, as kdapl_lmr_sge() builds them (or with the LMR's
 *	own key and address, for RDMA Read sinks)
 * @n: number of segments
 * @for_cpu: after the device wrote them (else before it accesses them)
 *
 * Only the segments of LMRs whose mapping needs it are synced: kdapl
 * makes its local DTOs coherent, the consumer syncs what peers access
 * (dat_lmr_sync_rdma_read(), dat_lmr_sync_rdma_write()).
 *
 * Context: any context; the work request is outstanding.
 */
void kdapl_lmr_sync_sges(struct kdapl_lmr *const *lmrs,
			 const struct ib_sge *sge, unsigned int n,
			 bool for_cpu)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct kdapl_lmr *lmr = lmrs[i];
		u64 va = sge[i].addr;

		if (!lmr->need_sync)
			continue;
		if (sge[i].lkey == lmr->sge_lkey)
			va -= lmr->sge_offset;
		kdapl_lmr_sync_range(lmr, va, sge[i].length, for_cpu);
#if IS_ENABLED(CONFIG_KUNIT)
		atomic_inc(&kdapl_lmr_sge_syncs[for_cpu]);
#endif
	}
}

/*
 * One pass over the segments: check each (@apply false) or sync each
 * (@apply true, after a checking pass succeeded).  IA lock held.
 */
static DAT_RETURN kdapl_lmr_sync_pass(struct kdapl_ia *ia,
				      const DAT_LMR_TRIPLET *segs, DAT_VLEN n,
				      bool for_cpu, bool apply)
{
	const DAT_LMR_TRIPLET *t;
	struct kdapl_lmr *lmr;
	DAT_VLEN i;

	for (i = 0, t = segs; i < n; i++, t++) {
		if (!t->segment_length)
			continue;
		lmr = kdapl_lmr_find(ia, t->lmr_context);
		if (!lmr || !kdapl_lmr_covers(lmr, t->virtual_address,
					      t->segment_length))
			return dat_error(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG2);
		if (apply)
			kdapl_lmr_sync_range(lmr, t->virtual_address,
					     t->segment_length, for_cpu);
		cond_resched();
	}
	return DAT_SUCCESS;
}

static DAT_RETURN kdapl_lmr_sync(struct kdapl_owner *owner,
				 DAT_IA_HANDLE ia_handle,
				 const DAT_LMR_TRIPLET *segs, DAT_VLEN n,
				 bool for_cpu)
{
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	ret = kdapl_get(owner, ia_handle, IA, DAT_INVALID_HANDLE_IA, &ia);
	if (ret)
		return ret;
	if (n && !segs) {
		ret = dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	} else if (n) {
		mutex_lock(&ia->lock);
		ret = kdapl_lmr_sync_pass(ia, segs, n, for_cpu, false);
		if (!ret)
			kdapl_lmr_sync_pass(ia, segs, n, for_cpu, true);
		mutex_unlock(&ia->lock);
	}
	kdapl_object_put(&ia->obj);
	return ret;
}

/**
 * kdapl_lmr_sync_rdma_read() - dat_lmr_sync_rdma_read() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_lmr_sync_rdma_read()
 * @local_segments: as for dat_lmr_sync_rdma_read()
 * @num_segments: as for dat_lmr_sync_rdma_read()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_lmr_sync_rdma_read().
 * Return: as dat_lmr_sync_rdma_read().
 */
DAT_RETURN kdapl_lmr_sync_rdma_read(struct kdapl_owner *owner,
				    DAT_IA_HANDLE ia_handle,
				    const DAT_LMR_TRIPLET *local_segments,
				    DAT_VLEN num_segments)
{
	return kdapl_lmr_sync(owner, ia_handle, local_segments, num_segments,
			      false);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_lmr_sync_rdma_read);

/**
 * dat_lmr_sync_rdma_read() - make local writes visible to RDMA Reads
 * @ia_handle: the IA
 * @local_segments: ranges of LMRs of the IA the consumer wrote and a
 *	peer will read; entries with a zero segment_length are skipped
 * @num_segments: entries in @local_segments
 *
 * Hands the ranges to the device (DMA sync for device) so that an
 * incoming RDMA Read sees what the CPU wrote.  The LMRs may be in
 * different PZs of the IA.  Nothing is synced if any entry is invalid.
 *
 * Context: process context, may sleep.
 * Return: DAT_SUCCESS (also when @num_segments is 0);
 * DAT_INVALID_HANDLE (IA) for a bad @ia_handle; DAT_INVALID_PARAMETER
 * (ARG2) for a NULL @local_segments with entries, an lmr_context no LMR
 * of the IA has, or a range outside the LMR's registered range.
 */
DAT_RETURN dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				  const DAT_LMR_TRIPLET *local_segments,
				  DAT_VLEN num_segments)
{
	return kdapl_lmr_sync_rdma_read(&kdapl_kernel_owner, ia_handle,
					local_segments, num_segments);
}
EXPORT_SYMBOL_GPL(dat_lmr_sync_rdma_read);

/**
 * kdapl_lmr_sync_rdma_write() - dat_lmr_sync_rdma_write() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_lmr_sync_rdma_write()
 * @local_segments: as for dat_lmr_sync_rdma_write()
 * @num_segments: as for dat_lmr_sync_rdma_write()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_lmr_sync_rdma_write().
 * Return: as dat_lmr_sync_rdma_write().
 */
DAT_RETURN kdapl_lmr_sync_rdma_write(struct kdapl_owner *owner,
				     DAT_IA_HANDLE ia_handle,
				     const DAT_LMR_TRIPLET *local_segments,
				     DAT_VLEN num_segments)
{
	return kdapl_lmr_sync(owner, ia_handle, local_segments, num_segments,
			      true);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_lmr_sync_rdma_write);

/**
 * dat_lmr_sync_rdma_write() - make RDMA Writes visible to the CPU
 * @ia_handle: the IA
 * @local_segments: ranges of LMRs of the IA that peers wrote; entries
 *	with a zero segment_length are skipped
 * @num_segments: entries in @local_segments
 *
 * Hands the ranges back to the CPU (DMA sync for CPU) after incoming
 * RDMA Writes completed, so that the consumer reads what was written.
 * Nothing is synced if any entry is invalid.
 *
 * Context: process context, may sleep.
 * Return: as dat_lmr_sync_rdma_read().
 */
DAT_RETURN dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *local_segments,
				   DAT_VLEN num_segments)
{
	return kdapl_lmr_sync_rdma_write(&kdapl_kernel_owner, ia_handle,
					 local_segments, num_segments);
}
EXPORT_SYMBOL_GPL(dat_lmr_sync_rdma_write);

/* Abrupt close: free in any state (RMRs, rank 20, went first). */
static void kdapl_lmr_force_free(struct kdapl_object *obj)
{
	struct kdapl_lmr *lmr = container_of(obj, struct kdapl_lmr, obj);

	kdapl_object_unpublish(obj);
	kdapl_lmr_destroy(lmr);
}

/* The device goes away: drop the registration, keep the object. */
static void kdapl_lmr_detach(struct kdapl_object *obj)
{
	struct kdapl_lmr *lmr = container_of(obj, struct kdapl_lmr, obj);

	kdapl_dto_reg_lock(lmr->pz);
	kdapl_lmr_unmap(lmr, obj->ia->ibdev);
	kdapl_dto_reg_unlock(lmr->pz);
}

static void kdapl_lmr_release(struct kdapl_object *obj)
{
	struct kdapl_lmr *lmr = container_of(obj, struct kdapl_lmr, obj);

	kdapl_object_put(&lmr->pz->obj);
	kfree_rcu(lmr, obj.rcu);
}

const struct kdapl_type_ops kdapl_lmr_type = {
	.name = "lmr",
	.bad_handle = DAT_INVALID_HANDLE_LMR,
	.close_rank = 30,
	.free = kdapl_lmr_force_free,
	.detach = kdapl_lmr_detach,
	.release = kdapl_lmr_release,
};
EXPORT_SYMBOL_IF_KUNIT(kdapl_lmr_type);
