// SPDX-License-Identifier: GPL-2.0
/*
 * User memory: the LMRs a process of /dev/kdapl registers.
 *
 * A process registers its own virtual memory (DAT_MEM_TYPE_VIRTUAL with a
 * user address).  ib_reg_user_mr() pins the pages of the calling process
 * for the life of the MR (FOLL_LONGTERM), charges them to the process's
 * pinned_vm against RLIMIT_MEMLOCK (rxe waives the limit for
 * CAP_IPC_LOCK, siw of 6.1 does not), and registers them for local and,
 * where the privileges ask, remote access.  Unlike kernel LMRs there is
 * no fast registration, so the device's fast-registration page list
 * limit (512 pages on rxe) does not cap a user LMR: the device's MR size
 * does.  The MR is valid at once.
 *
 * On top of the per-process limit, every process's registrations count
 * against one module-wide cap (user_pin_max_mb), which binds root too.
 * The pages stay pinned until the LMR's MR is deregistered, which
 * dat_lmr_free() does only once no work request can reach the memory
 * (kdapl_lmr_forget()).
 *
 * The driver keeps the pages of a user MR to itself, so an RMR bound to a
 * range of a user LMR pins that range again (kdapl_umem_window()) and
 * maps its own MR over it.  Those pins are charged as ib_umem_get()
 * charges the LMR's: to the process's pinned_vm against RLIMIT_MEMLOCK
 * (waived for CAP_IPC_LOCK), and to the module-wide cap.  They last until
 * the RMR binds again or goes (see kdapl_rmr.c).
 *
 * Context: process context, in the process that owns the memory.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

static unsigned int user_pin_max_mb;
module_param(user_pin_max_mb, uint, 0644);
MODULE_PARM_DESC(user_pin_max_mb,
		 "MiB of memory all processes together may register through /dev/kdapl (0: half of RAM); binds CAP_IPC_LOCK too");

/* Pages pinned by every user LMR. */
static atomic64_t kdapl_umem_pinned = ATOMIC64_INIT(0);

static u64 kdapl_umem_limit(void)
{
	unsigned int mb = READ_ONCE(user_pin_max_mb);

	if (!mb)
		return totalram_pages() / 2;
	return (u64)mb << (20 - PAGE_SHIFT);
}

/**
 * kdapl_umem_pinned_pages() - pages all user LMRs pin
 *
 * Context: any context.
 * Return: the module's count.
 */
u64 kdapl_umem_pinned_pages(void)
{
	return atomic64_read(&kdapl_umem_pinned);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_umem_pinned_pages);

static bool kdapl_umem_charge(u64 npages)
{
	if (atomic64_add_return(npages, &kdapl_umem_pinned) <=
	    kdapl_umem_limit())
		return true;
	atomic64_sub(npages, &kdapl_umem_pinned);
	return false;
}

static DAT_RETURN kdapl_umem_error(long err)
{
	switch (err) {
	case -EFAULT:
	case -EINVAL:
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	case -ENOMEM:
	case -EPERM:
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	default:
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY_REGION);
	}
}

/*
 * Is [va, end) mapped in the calling process with the access @writable
 * asks, in mappings whose pages can be pinned?  Checked before the
 * device pins anything, so that a range the process cannot give is
 * refused the same way on every device (and siw of 6.1, which leaks its
 * page list when pinning fails on the first page, never gets one).  A
 * concurrent munmap() can still make the device's pinning fail; that is
 * refused as well, only by the device.
 */
static bool kdapl_umem_mapped(u64 va, u64 end, bool writable)
{
	unsigned long need = VM_READ | (writable ? VM_WRITE : 0);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool ok = true;

	mmap_read_lock(mm);
	while (va < end) {
		vma = vma_lookup(mm, va);
		if (!vma || (vma->vm_flags & need) != need ||
		    (vma->vm_flags & (VM_IO | VM_PFNMAP))) {
			ok = false;
			break;
		}
		va = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ok;
}

/**
 * kdapl_umem_register() - pin and register the user memory of an LMR
 * @lmr: the new LMR: region.for_va is an address of the calling process
 * @ia: its IA, locked
 *
 * Context: process context, the IA lock held.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (ARG3) for a range that
 * wraps, is not user memory, is not mapped or is mapped without the
 * access the privileges need (read, and write for local or remote
 * writes), (ARG4) for a length beyond
 * the device's MR size; DAT_INSUFFICIENT_RESOURCES (MEMORY) over
 * RLIMIT_MEMLOCK or the module's cap, nothing pinned.
 */
DAT_RETURN kdapl_umem_register(struct kdapl_lmr *lmr, struct kdapl_ia *ia)
{
	u64 va = (u64)(uintptr_t)lmr->region.for_va;
	u64 len = lmr->length, end, npages;
	struct ib_mr *mr;

	lockdep_assert_held(&ia->lock);
	if (check_add_overflow(va, len, &end) ||
	    !access_ok((void __user *)(uintptr_t)va, len))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (len > ia->ibdev->attrs.max_mr_size)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	lmr->access = kdapl_mem_access(ia, lmr->priv);
	if (!kdapl_umem_mapped(va, end, ib_access_writable(lmr->access)))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	npages = (PAGE_ALIGN(end) - (va & PAGE_MASK)) >> PAGE_SHIFT;
	if (!kdapl_umem_charge(npages))
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);

	mr = ib_reg_user_mr(lmr->pz->pd, va, len, va, lmr->access);
	if (IS_ERR(mr)) {
		atomic64_sub(npages, &kdapl_umem_pinned);
		return kdapl_umem_error(PTR_ERR(mr));
	}
	lmr->mr = mr;
	lmr->user_pages = npages;
	lmr->lmr_context = mr->lkey;
	lmr->rmr_context = lmr->priv & KDAPL_MEM_PRIV_REMOTE ? mr->rkey : 0;
	lmr->registered_address = va;
	lmr->registered_size = len;
	/* The MR addresses the memory by its user addresses. */
	lmr->sge_lkey = mr->lkey;
	lmr->sge_offset = 0;
	lmr->cpu_va = false;
	lmr->need_sync = false;
	WRITE_ONCE(lmr->registered, true);
	return DAT_SUCCESS;
}

/**
 * kdapl_umem_release() - deregister and unpin the memory of a user LMR
 * @lmr: the LMR; no work request can reach its memory any more
 *
 * Context: process context (any process: pinned_vm is the owner's).
 */
void kdapl_umem_release(struct kdapl_lmr *lmr)
{
	if (lmr->mr) {
		ib_dereg_mr(lmr->mr);
		lmr->mr = NULL;
	}
	atomic64_sub(lmr->user_pages, &kdapl_umem_pinned);
	lmr->user_pages = 0;
}

/*
 * Charge @npages to the calling process's pinned_vm, as ib_umem_get()
 * does: over RLIMIT_MEMLOCK without CAP_IPC_LOCK, nothing is charged.
 */
static bool kdapl_umem_charge_mm(struct mm_struct *mm, u64 npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;

	if (atomic64_add_return(npages, &mm->pinned_vm) <= limit ||
	    capable(CAP_IPC_LOCK))
		return true;
	atomic64_sub(npages, &mm->pinned_vm);
	return false;
}

/* The pages of [@va, @va + @len), pinned and in a table of @win. */
static DAT_RETURN kdapl_umem_window_pin(struct kdapl_uwin *win, u64 va,
					u64 len)
{
	unsigned int gup = FOLL_LONGTERM | (win->writable ? FOLL_WRITE : 0);
	int n;

	n = pin_user_pages_fast(va & PAGE_MASK, win->npages, gup, win->pages);
	if (n != win->npages) {
		if (n > 0)
			unpin_user_pages(win->pages, n);
		return kdapl_umem_error(n < 0 ? n : -EFAULT);
	}
	/* No segment longer than the device takes (huge pages merge). */
	if (sg_alloc_table_from_pages_segment(&win->sgt, win->pages,
					      win->npages, offset_in_page(va),
					      len,
					      ib_dma_max_seg_size(win->dev),
					      GFP_KERNEL)) {
		unpin_user_pages(win->pages, win->npages);
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	return DAT_SUCCESS;
}

/**
 * kdapl_umem_window() - pin a range of user memory for an RMR's MR
 * @dev: the device of the MR
 * @va: first byte, an address of the calling process inside a user LMR
 * @len: bytes, not 0
 * @writable: the window allows writes
 * @winp: out: the pages, DMA-mapped for @dev
 *
 * Context: process context, in the process that owns the memory.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (ARG3) for memory the
 * process does not have mapped as @writable asks;
 * DAT_INSUFFICIENT_RESOURCES (MEMORY) over RLIMIT_MEMLOCK or the
 * module's cap.
 */
DAT_RETURN kdapl_umem_window(struct ib_device *dev, u64 va, u64 len,
			     bool writable, struct kdapl_uwin **winp)
{
	u64 npages = (PAGE_ALIGN(va + len) - (va & PAGE_MASK)) >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;
	struct kdapl_uwin *win;
	DAT_RETURN ret;

	if (!kdapl_umem_mapped(va, va + len, writable))
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!kdapl_umem_charge_mm(mm, npages))
		return dat_error(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	if (!kdapl_umem_charge(npages)) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto uncharge_mm;
	}
	win = kvzalloc(struct_size(win, pages, npages), GFP_KERNEL_ACCOUNT);
	if (!win) {
		ret = dat_error(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto uncharge;
	}
	mmgrab(mm);
	win->mm = mm;
	win->dev = dev;
	win->npages = npages;
	win->writable = writable;
	ret = kdapl_umem_window_pin(win, va, len);
	if (ret)
		goto free;
	win->nents = ib_dma_map_sg(dev, win->sgt.sgl, win->sgt.orig_nents,
				   DMA_BIDIRECTIONAL);
	if (win->nents > 0) {
		*winp = win;
		return DAT_SUCCESS;
	}
	ret = dat_error(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	sg_free_table(&win->sgt);
	unpin_user_pages(win->pages, win->npages);
free:
	mmdrop(mm);
	kvfree(win);
uncharge:
	atomic64_sub(npages, &kdapl_umem_pinned);
uncharge_mm:
	atomic64_sub(npages, &mm->pinned_vm);
	return ret;
}

/**
 * kdapl_umem_window_release() - unmap and unpin an RMR's user window
 * @win: the window, or NULL; no key of an MR maps it any more
 *
 * Context: process context (any process).
 */
void kdapl_umem_window_release(struct kdapl_uwin *win)
{
	if (!win)
		return;
	ib_dma_unmap_sg(win->dev, win->sgt.sgl, win->sgt.orig_nents,
			DMA_BIDIRECTIONAL);
	sg_free_table(&win->sgt);
	unpin_user_pages_dirty_lock(win->pages, win->npages, win->writable);
	atomic64_sub(win->npages, &kdapl_umem_pinned);
	atomic64_sub(win->npages, &win->mm->pinned_vm);
	mmdrop(win->mm);
	kvfree(win);
}
