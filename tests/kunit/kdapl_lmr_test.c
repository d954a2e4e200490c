// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Local Memory Regions: registration of kmalloc, vmalloc,
 * physical-page, scatterlist and shared regions, argument checking, free
 * (refused while an RMR uses the LMR, memory left alone), query, DMA
 * syncs, and teardown by an abrupt IA close.
 *
 * Memory the LMRs describe is allocated before the IA is opened: KUnit
 * releases resources in reverse order, so the IA (and with it any LMR a
 * failed test left) is gone before the memory is freed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <kunit/resource.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "kdapl_test_util.h"

#define KDAPL_PRIV_LOCAL	(DAT_MEM_PRIV_LOCAL_READ_FLAG |		\
				 DAT_MEM_PRIV_LOCAL_WRITE_FLAG)

/* --- test-managed memory ------------------------------------------- */

static int kdapl_test_vzalloc_init(struct kunit_resource *res, void *size)
{
	res->data = vzalloc((size_t)(uintptr_t)size);
	return res->data ? 0 : -ENOMEM;
}

static void kdapl_test_vzalloc_free(struct kunit_resource *res)
{
	vfree(res->data);
}

static void *kdapl_test_vzalloc(struct kunit *test, size_t size)
{
	void *p = kunit_alloc_resource(test, kdapl_test_vzalloc_init,
				       kdapl_test_vzalloc_free, GFP_KERNEL,
				       (void *)(uintptr_t)size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* --- helpers -------------------------------------------------------- */

static DAT_RETURN kdapl_test_lmr_va(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				    void *va, DAT_VLEN len,
				    DAT_MEM_PRIV_FLAGS priv,
				    DAT_LMR_HANDLE *lmr,
				    DAT_LMR_CONTEXT *lmr_context)
{
	DAT_REGION_DESCRIPTION r = { .for_va = va };

	return dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, len, pz, priv,
			       DAT_VA_TYPE_VA, DAT_MEM_OPTIMIZE_DONT_CARE, lmr,
			       lmr_context, NULL, NULL, NULL);
}

static struct kdapl_lmr *kdapl_test_get_lmr(struct kunit *test,
					    DAT_LMR_HANDLE handle)
{
	struct kdapl_lmr *lmr;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, handle, LMR, DAT_INVALID_HANDLE_LMR,
					&lmr),
			DAT_SUCCESS);
	return lmr;
}

static struct kdapl_pz *kdapl_test_get_pz(struct kunit *test,
					  DAT_PZ_HANDLE handle)
{
	struct kdapl_pz *pz;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, handle, PZ, DAT_INVALID_HANDLE_PZ,
					&pz),
			DAT_SUCCESS);
	return pz;
}

static u32 kdapl_test_max_pages(struct kunit *test, DAT_IA_HANDLE handle)
{
	struct kdapl_ia *ia;
	u32 max;

	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, handle, IA, DAT_INVALID_HANDLE_IA,
					&ia),
			DAT_SUCCESS);
	max = ia->ibdev->attrs.max_fast_reg_page_list_len;
	kdapl_object_put(&ia->obj);
	return max;
}

/*
 * What every successful create must give: keys, a registration covering
 * [@first, @first + @len) that starts at @addr, the LMR listed in its PZ
 * by lmr_context, and a query that reports the same.
 */
static void kdapl_test_check_lmr(struct kunit *test, DAT_IA_HANDLE ia,
				 DAT_PZ_HANDLE pz, DAT_LMR_HANDLE lmr,
				 DAT_MEM_TYPE mem_type,
				 DAT_MEM_PRIV_FLAGS priv, DAT_VLEN length,
				 DAT_VADDR addr, DAT_VADDR first,
				 DAT_LMR_CONTEXT lctx, DAT_RMR_CONTEXT rctx,
				 DAT_VLEN rsize, DAT_VADDR raddr)
{
	DAT_LMR_PARAM *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct kdapl_pz *z = kdapl_test_get_pz(test, pz);
	struct kdapl_lmr *l = kdapl_test_get_lmr(test, lmr);
	bool remote = priv & (DAT_MEM_PRIV_REMOTE_READ_FLAG |
			      DAT_MEM_PRIV_REMOTE_WRITE_FLAG);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NE(test, lctx, 0u);
	if (remote)
		KUNIT_EXPECT_NE(test, rctx, 0u);
	else
		KUNIT_EXPECT_EQ(test, rctx, 0u);
	KUNIT_EXPECT_EQ(test, raddr, addr);
	KUNIT_EXPECT_GE(test, rsize, length);
	KUNIT_EXPECT_LE(test, raddr, first);
	KUNIT_EXPECT_GE(test, raddr + rsize, first + length);

	/* Listed in its PZ by lmr_context, for the DTO checks. */
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&z->lmrs, lctx), (void *)l);
	KUNIT_EXPECT_FALSE(test, l->registered);
	/*
	 * Sends and receives: the PD's local_dma_lkey and DMA addresses
	 * over one DMA range, the LMR's own key over several.
	 */
	if (l->dma_nents == 1) {
		KUNIT_EXPECT_EQ(test, l->sge_lkey, z->pd->local_dma_lkey);
		KUNIT_EXPECT_EQ(test, raddr + l->sge_offset,
				(u64)sg_dma_address(l->sg));
	} else {
		KUNIT_EXPECT_EQ(test, l->sge_lkey, lctx);
		KUNIT_EXPECT_EQ(test, l->sge_offset, 0ull);
	}
	kdapl_object_put(&l->obj);
	kdapl_object_put(&z->obj);

	KUNIT_ASSERT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_ALL_KDAT, p),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, p->ia_handle, ia);
	KUNIT_EXPECT_EQ(test, p->mem_type, mem_type);
	KUNIT_EXPECT_PTR_EQ(test, p->pz_handle, pz);
	KUNIT_EXPECT_EQ(test, p->mem_priv, priv);
	KUNIT_EXPECT_EQ(test, p->va_type, DAT_VA_TYPE_VA);
	KUNIT_EXPECT_EQ(test, p->lmr_context, lctx);
	KUNIT_EXPECT_EQ(test, p->rmr_context, rctx);
	KUNIT_EXPECT_EQ(test, p->registered_size, rsize);
	KUNIT_EXPECT_EQ(test, p->registered_address, raddr);
	KUNIT_EXPECT_EQ(test, p->lmr_state.fmr_support, DAT_FALSE);
	KUNIT_EXPECT_EQ(test, p->lmr_state.bound, DAT_FALSE);
	if (mem_type != DAT_MEM_TYPE_LMR)
		KUNIT_EXPECT_EQ(test, p->length, length);
}

/* --- creation of each memory type ------------------------------------ */

static void kdapl_lmr_kmalloc_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_HANDLE lmr, lmr2;
	DAT_LMR_CONTEXT lctx, lctx2;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rsize, len = 2 * PAGE_SIZE + 50;
	DAT_VADDR raddr;
	DAT_LMR_PARAM param;
	struct kdapl_lmr *l;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	r.for_va = buf + 100;

	rctx = 0x5a5a5a5a;
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r,
					      len, pz, KDAPL_PRIV_LOCAL,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE,
					      &lmr, &lctx, &rctx, &rsize,
					      &raddr),
			DAT_SUCCESS);
	kdapl_test_check_lmr(test, ia, pz, lmr, DAT_MEM_TYPE_VIRTUAL,
			     KDAPL_PRIV_LOCAL, len, (uintptr_t)(buf + 100),
			     (uintptr_t)(buf + 100), lctx, rctx, rsize, raddr);
	/* kmalloc memory is one DMA range: sends need no MR lookup. */
	l = kdapl_test_get_lmr(test, lmr);
	KUNIT_EXPECT_EQ(test, l->dma_nents, 1);
	KUNIT_EXPECT_NE(test, l->sge_lkey, lctx);
	kdapl_object_put(&l->obj);
	KUNIT_ASSERT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_REGION_DESC,
					    &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.region_desc.for_va, buf + 100);

	/* Remote privileges give an rmr_context; NULL outputs are fine. */
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r,
					      len, pz, DAT_MEM_PRIV_ALL_FLAG,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_EXACT_EXPOSURE,
					      &lmr2, &lctx2, NULL, NULL,
					      NULL),
			DAT_SUCCESS);
	KUNIT_EXPECT_NE(test, lctx2, lctx);
	KUNIT_ASSERT_EQ(test, dat_lmr_query(lmr2, DAT_LMR_FIELD_ALL_KDAT,
					    &param),
			DAT_SUCCESS);
	kdapl_test_check_lmr(test, ia, pz, lmr2, DAT_MEM_TYPE_VIRTUAL,
			     DAT_MEM_PRIV_ALL_FLAG, len,
			     (uintptr_t)(buf + 100), (uintptr_t)(buf + 100),
			     lctx2, param.rmr_context, param.registered_size,
			     param.registered_address);

	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

static void kdapl_lmr_vmalloc_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kdapl_test_vzalloc(test, 6 * PAGE_SIZE);
	DAT_REGION_DESCRIPTION r = { .for_va = buf + 10 };
	DAT_VLEN rsize, len = 5 * PAGE_SIZE;
	struct kdapl_lmr *l;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_VADDR raddr;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r,
					      len, pz,
					      DAT_MEM_PRIV_REMOTE_READ_FLAG,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE,
					      &lmr, &lctx, &rctx, &rsize,
					      &raddr),
			DAT_SUCCESS);
	kdapl_test_check_lmr(test, ia, pz, lmr, DAT_MEM_TYPE_VIRTUAL,
			     DAT_MEM_PRIV_REMOTE_READ_FLAG, len,
			     (uintptr_t)(buf + 10), (uintptr_t)(buf + 10),
			     lctx, rctx, rsize, raddr);

	/* Six pages touched; the table holds them, in order. */
	l = kdapl_test_get_lmr(test, lmr);
	KUNIT_EXPECT_PTR_EQ(test, sg_page(l->sg), vmalloc_to_page(buf));
	KUNIT_EXPECT_EQ(test, l->sg->offset, 10u);
	KUNIT_EXPECT_GT(test, l->dma_nents, 0);
	kunit_info(test, "vmalloc region in %u entries\n", l->nents);
	kdapl_object_put(&l->obj);

	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
}

static void kdapl_lmr_physical_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_PADDR *pas = kunit_kcalloc(test, 3, sizeof(*pas), GFP_KERNEL);
	DAT_REGION_DESCRIPTION r = { .for_physical = pas };
	DAT_VLEN rsize, len = 2 * PAGE_SIZE + 123;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_VADDR raddr;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, pas);
	/* Pages in reverse order of allocation: rarely contiguous. */
	for (i = 2; i >= 0; i--)
		pas[i] = page_to_phys(kdapl_test_pages(test, 0));
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_PHYSICAL, r,
					      len, pz, KDAPL_PRIV_LOCAL,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE,
					      &lmr, &lctx, &rctx, &rsize,
					      &raddr),
			DAT_SUCCESS);
	kdapl_test_check_lmr(test, ia, pz, lmr, DAT_MEM_TYPE_PHYSICAL,
			     KDAPL_PRIV_LOCAL, len, pas[0], pas[0], lctx,
			     rctx, rsize, raddr);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
}

static void kdapl_lmr_var_pages_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_PADDR *pas = kunit_kcalloc(test, 2, sizeof(*pas), GFP_KERNEL);
	DAT_VLEN rsize, len = 3 * PAGE_SIZE;
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_VADDR raddr;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	KUNIT_ASSERT_NOT_NULL(test, pas);
	pas[1] = page_to_phys(kdapl_test_pages(test, 1));
	pas[0] = page_to_phys(kdapl_test_pages(test, 1));
	r.for_array.page_size = 2 * PAGE_SIZE;
	r.for_array.pages = pas;
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test,
			dat_lmr_kcreate(ia, DAT_MEM_TYPE_PHYSICAL_VAR_PAGES, r,
					len, pz, DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
					DAT_VA_TYPE_VA,
					DAT_MEM_OPTIMIZE_DONT_CARE, &lmr, &lctx,
					&rctx, &rsize, &raddr),
			DAT_SUCCESS);
	kdapl_test_check_lmr(test, ia, pz, lmr,
			     DAT_MEM_TYPE_PHYSICAL_VAR_PAGES,
			     DAT_MEM_PRIV_REMOTE_WRITE_FLAG, len, pas[0],
			     pas[0], lctx, rctx, rsize, raddr);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
}

static void kdapl_lmr_sg_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct scatterlist *sg = kunit_kcalloc(test, 3, sizeof(*sg),
					       GFP_KERNEL);
	DAT_VLEN rsize, total = 3 * PAGE_SIZE - 64;
	struct page *pages[3];
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	DAT_VADDR raddr;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, sg);
	sg_init_table(sg, 3);
	for (i = 0; i < 3; i++)
		pages[i] = kdapl_test_pages(test, 0);
	/* The first entry may start inside its page. */
	sg_set_page(&sg[0], pages[0], PAGE_SIZE - 64, 64);
	sg_set_page(&sg[1], pages[1], PAGE_SIZE, 0);
	sg_set_page(&sg[2], pages[2], PAGE_SIZE, 0);
	r.for_sg.sg = sg;
	r.for_sg.nents = 3;

	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	/* A length short of the list registers the whole list. */
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_SG, r,
					      total - 100, pz,
					      KDAPL_PRIV_LOCAL,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE,
					      &lmr, &lctx, &rctx, &rsize,
					      &raddr),
			DAT_SUCCESS);
	/* Mapped in place: the address is the DMA address of entry 0. */
	kdapl_test_check_lmr(test, ia, pz, lmr, DAT_MEM_TYPE_SG,
			     KDAPL_PRIV_LOCAL, total - 100,
			     sg_dma_address(&sg[0]), sg_dma_address(&sg[0]),
			     lctx, rctx, rsize, raddr);
	KUNIT_EXPECT_EQ(test, rsize, total);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);

	/* The caller's list is left as it was. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_PTR_EQ(test, sg_page(&sg[i]), pages[i]);
	KUNIT_EXPECT_EQ(test, sg[0].offset, 64u);
	KUNIT_EXPECT_EQ(test, sg[0].length, (unsigned int)PAGE_SIZE - 64);
	KUNIT_EXPECT_TRUE(test, sg_is_last(&sg[2]));
}

/* DAT_MEM_TYPE_LMR: a second registration of the same memory. */
static void kdapl_lmr_shared_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	DAT_LMR_CONTEXT lctx, lctx2;
	DAT_RMR_CONTEXT rctx, rctx2;
	DAT_LMR_HANDLE orig, shared;
	DAT_VLEN rsize, rsize2;
	DAT_VADDR raddr, raddr2;
	DAT_REGION_DESCRIPTION r;
	DAT_PZ_HANDLE pz, pz2;
	DAT_LMR_TRIPLET t;
	DAT_LMR_PARAM p;
	DAT_IA_HANDLE ia;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	pz2 = kdapl_test_pz(test, ia);
	r.for_va = buf + 8;
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r,
					      PAGE_SIZE, pz, KDAPL_PRIV_LOCAL,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE,
					      &orig, &lctx, &rctx, &rsize,
					      &raddr),
			DAT_SUCCESS);

	/* The length is ignored: that of the shared LMR applies. */
	r.for_lmr_handle = orig;
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_LMR, r, 0, pz2,
					      DAT_MEM_PRIV_REMOTE_READ_FLAG,
					      DAT_VA_TYPE_VA,
					      DAT_MEM_OPTIMIZE_DONT_CARE,
					      &shared, &lctx2, &rctx2, &rsize2,
					      &raddr2),
			DAT_SUCCESS);
	kdapl_test_check_lmr(test, ia, pz2, shared, DAT_MEM_TYPE_LMR,
			     DAT_MEM_PRIV_REMOTE_READ_FLAG, PAGE_SIZE, raddr,
			     raddr, lctx2, rctx2, rsize2, raddr2);
	KUNIT_EXPECT_NE(test, lctx2, lctx);
	KUNIT_EXPECT_EQ(test, rsize2, rsize);
	KUNIT_ASSERT_EQ(test, dat_lmr_query(shared,
					    DAT_LMR_FIELD_REGION_DESC |
					    DAT_LMR_FIELD_LENGTH, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, p.region_desc.for_lmr_handle, orig);
	KUNIT_EXPECT_EQ(test, p.length, (DAT_VLEN)PAGE_SIZE);

	/* The copy does not depend on the original. */
	KUNIT_EXPECT_EQ(test, dat_lmr_free(orig), DAT_SUCCESS);
	t.virtual_address = raddr2;
	t.segment_length = rsize2;
	t.lmr_context = lctx2;
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, &t, 1), DAT_SUCCESS);
	t.lmr_context = lctx;
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, &t, 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(shared), DAT_SUCCESS);
}

/*
 * Remote access only where asked for, on every transport: local write
 * brings no remote write, not even on iWARP, where an RDMA Read sink
 * needs it (the consumer asks for it, see rdma_write_for_rdma_read_req).
 */
static void kdapl_lmr_access_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	DAT_LMR_HANDLE lmr, lmr2, lmr3;
	struct kdapl_lmr *l;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);

	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, buf, 64,
						KDAPL_PRIV_LOCAL, &lmr, NULL),
			DAT_SUCCESS);
	l = kdapl_test_get_lmr(test, lmr);
	KUNIT_EXPECT_EQ(test, l->access, (int)IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, l->rmr_context, 0u);
	kdapl_object_put(&l->obj);

	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, buf, 64,
						DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
						&lmr2, NULL),
			DAT_SUCCESS);
	l = kdapl_test_get_lmr(test, lmr2);
	KUNIT_EXPECT_EQ(test, l->access,
			(int)(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE));
	kdapl_object_put(&l->obj);

	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, buf, 64,
						DAT_MEM_PRIV_NONE_FLAG,
						&lmr3, NULL),
			DAT_SUCCESS);
	l = kdapl_test_get_lmr(test, lmr3);
	KUNIT_EXPECT_EQ(test, l->access, 0);
	kdapl_object_put(&l->obj);
}

/* --- invalid arguments, one row per mistake, on each adapter --------- */

enum kdapl_bad_region {
	KDAPL_R_KMALLOC,
	KDAPL_R_VA_NULL,
	KDAPL_R_VA_USER,
	KDAPL_R_VA_WRAP,
	KDAPL_R_PHYS_NULL,
	KDAPL_R_PHYS_UNALIGNED,
	KDAPL_R_PHYS_NO_PAGE,
	KDAPL_R_PHYS_TOO_MANY,
	KDAPL_R_VAR_NULL,
	KDAPL_R_VAR_SMALL,
	KDAPL_R_VAR_NOT_POW2,
	KDAPL_R_VAR_UNALIGNED,
	KDAPL_R_SG_NULL,
	KDAPL_R_SG_EMPTY,
	KDAPL_R_SG,
	KDAPL_R_SG_GAP,
	KDAPL_R_LMR_NULL,
	KDAPL_R_LMR_PZ,
	KDAPL_R_LMR_FREED,
	KDAPL_R_LMR_OTHER_IA,
};

enum kdapl_bad_handle {
	KDAPL_H_OK,
	KDAPL_H_NULL,
	KDAPL_H_OTHER_TYPE,
	KDAPL_H_FREED,
	KDAPL_H_OTHER_IA,
};

struct kdapl_lmr_bad_row {
	const char *desc;
	DAT_MEM_TYPE mem_type;
	enum kdapl_bad_region region;
	DAT_VLEN length;
	enum kdapl_bad_handle ia;
	enum kdapl_bad_handle pz;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_VA_TYPE va_type;
	DAT_MEM_OPTIMIZE_FLAGS opt;
	bool null_lmr;
	DAT_RETURN ret;
};

#define KDAPL_ROW(d, t, reg, len, r)					\
	{ .desc = d, .mem_type = t, .region = reg, .length = len,	\
	  .priv = KDAPL_PRIV_LOCAL, .ret = r }

static const struct kdapl_lmr_bad_row kdapl_lmr_bad_rows[] = {
	KDAPL_ROW("type 3", 3, KDAPL_R_KMALLOC, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)),
	KDAPL_ROW("type 0x200", 0x200, KDAPL_R_KMALLOC, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)),
	KDAPL_ROW("lmr|physical", DAT_MEM_TYPE_LMR |
		  DAT_MEM_TYPE_PHYSICAL, KDAPL_R_KMALLOC, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)),
	KDAPL_ROW("shared virtual", DAT_MEM_TYPE_SHARED_VIRTUAL,
		  KDAPL_R_KMALLOC, 64, KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0)),
	KDAPL_ROW("platform", DAT_MEM_TYPE_PLATFORM, KDAPL_R_KMALLOC, 64,
		  KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0)),
	KDAPL_ROW("ia", DAT_MEM_TYPE_IA, KDAPL_R_KMALLOC, 64,
		  KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0)),
	KDAPL_ROW("bypass", DAT_MEM_TYPE_BYPASS, KDAPL_R_KMALLOC, 64,
		  KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0)),
	KDAPL_ROW("va NULL", DAT_MEM_TYPE_VIRTUAL, KDAPL_R_VA_NULL, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("va user address", DAT_MEM_TYPE_VIRTUAL, KDAPL_R_VA_USER,
		  64, KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("va wraps", DAT_MEM_TYPE_VIRTUAL, KDAPL_R_VA_WRAP, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("physical NULL", DAT_MEM_TYPE_PHYSICAL, KDAPL_R_PHYS_NULL,
		  64, KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("physical unaligned", DAT_MEM_TYPE_PHYSICAL,
		  KDAPL_R_PHYS_UNALIGNED, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("physical no page", DAT_MEM_TYPE_PHYSICAL,
		  KDAPL_R_PHYS_NO_PAGE, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("physical too many pages", DAT_MEM_TYPE_PHYSICAL,
		  KDAPL_R_PHYS_TOO_MANY, 0,
		  KDAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
			    DAT_RESOURCE_MEMORY_REGION)),
	KDAPL_ROW("var pages NULL", DAT_MEM_TYPE_PHYSICAL_VAR_PAGES,
		  KDAPL_R_VAR_NULL, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("var pages below PAGE_SIZE", DAT_MEM_TYPE_PHYSICAL_VAR_PAGES,
		  KDAPL_R_VAR_SMALL, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("var pages size 3 pages", DAT_MEM_TYPE_PHYSICAL_VAR_PAGES,
		  KDAPL_R_VAR_NOT_POW2, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("var pages unaligned", DAT_MEM_TYPE_PHYSICAL_VAR_PAGES,
		  KDAPL_R_VAR_UNALIGNED, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("sg NULL", DAT_MEM_TYPE_SG, KDAPL_R_SG_NULL, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("sg no entries", DAT_MEM_TYPE_SG, KDAPL_R_SG_EMPTY, 64,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("sg shorter than length", DAT_MEM_TYPE_SG, KDAPL_R_SG,
		  2 * PAGE_SIZE + 1,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4)),
	KDAPL_ROW("sg inner entry mid-page", DAT_MEM_TYPE_SG, KDAPL_R_SG_GAP,
		  64, KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("lmr NULL", DAT_MEM_TYPE_LMR, KDAPL_R_LMR_NULL, 64,
		  KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR)),
	KDAPL_ROW("lmr is a PZ", DAT_MEM_TYPE_LMR, KDAPL_R_LMR_PZ, 64,
		  KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR)),
	KDAPL_ROW("lmr freed", DAT_MEM_TYPE_LMR, KDAPL_R_LMR_FREED, 64,
		  KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR)),
	KDAPL_ROW("lmr of another IA", DAT_MEM_TYPE_LMR, KDAPL_R_LMR_OTHER_IA,
		  64, KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)),
	KDAPL_ROW("length 0", DAT_MEM_TYPE_VIRTUAL, KDAPL_R_KMALLOC, 0,
		  KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4)),
	{ .desc = "privilege remote atomic", .region = KDAPL_R_KMALLOC,
	  .length = 64,
	  .priv = DAT_MEM_PRIV_ALL_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC,
	  .ret = DAT_SUCCESS },
	{ .desc = "privilege 0x80", .region = KDAPL_R_KMALLOC, .length = 64,
	  .priv = DAT_MEM_PRIV_EXTENSION_BASE << 1,
	  .ret = KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6) },
	{ .desc = "privilege 0x04", .region = KDAPL_R_KMALLOC, .length = 64,
	  .priv = 0x04,
	  .ret = KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6) },
	{ .desc = "va type ZB", .region = KDAPL_R_KMALLOC, .length = 64,
	  .va_type = DAT_VA_TYPE_ZB,
	  .ret = KDAPL_ERR(DAT_NOT_IMPLEMENTED, 0) },
	{ .desc = "va type 2", .region = KDAPL_R_KMALLOC, .length = 64,
	  .va_type = 2,
	  .ret = KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7) },
	{ .desc = "optimization 0x8", .region = KDAPL_R_KMALLOC, .length = 64,
	  .opt = 0x8,
	  .ret = KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8) },
	{ .desc = "NULL lmr_handle", .region = KDAPL_R_KMALLOC, .length = 64,
	  .null_lmr = true,
	  .ret = KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG9) },
	{ .desc = "IA NULL", .region = KDAPL_R_KMALLOC, .length = 64,
	  .ia = KDAPL_H_NULL,
	  .ret = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA) },
	{ .desc = "IA is a PZ", .region = KDAPL_R_KMALLOC, .length = 64,
	  .ia = KDAPL_H_OTHER_TYPE,
	  .ret = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA) },
	{ .desc = "IA closed", .region = KDAPL_R_KMALLOC, .length = 64,
	  .ia = KDAPL_H_FREED,
	  .ret = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA) },
	{ .desc = "PZ NULL", .region = KDAPL_R_KMALLOC, .length = 64,
	  .pz = KDAPL_H_NULL,
	  .ret = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ) },
	{ .desc = "PZ is the IA", .region = KDAPL_R_KMALLOC, .length = 64,
	  .pz = KDAPL_H_OTHER_TYPE,
	  .ret = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ) },
	{ .desc = "PZ freed", .region = KDAPL_R_KMALLOC, .length = 64,
	  .pz = KDAPL_H_FREED,
	  .ret = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ) },
	{ .desc = "PZ of another IA", .region = KDAPL_R_KMALLOC, .length = 64,
	  .pz = KDAPL_H_OTHER_IA,
	  .ret = KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ) },
	KDAPL_ROW("valid (control)", DAT_MEM_TYPE_VIRTUAL, KDAPL_R_KMALLOC,
		  64, DAT_SUCCESS),
	KDAPL_ROW("valid sg (control)", DAT_MEM_TYPE_SG, KDAPL_R_SG,
		  2 * PAGE_SIZE, DAT_SUCCESS),
};

/* Each row on each adapter. */
struct kdapl_lmr_bad_param {
	const struct kdapl_lmr_bad_row *row;
	const char *adapter;
};

static struct kdapl_lmr_bad_param
kdapl_lmr_bad_params[KDAPL_TEST_NR_ADAPTERS * ARRAY_SIZE(kdapl_lmr_bad_rows)];

static const void *kdapl_lmr_bad_gen(const void *prev, char *desc)
{
	const size_t rows = ARRAY_SIZE(kdapl_lmr_bad_rows);
	const struct kdapl_lmr_bad_param *p;
	size_t i;

	if (!prev) {
		for (i = 0; i < ARRAY_SIZE(kdapl_lmr_bad_params); i++) {
			kdapl_lmr_bad_params[i].row =
				&kdapl_lmr_bad_rows[i % rows];
			kdapl_lmr_bad_params[i].adapter =
				kdapl_test_adapters[i / rows];
		}
		p = kdapl_lmr_bad_params;
	} else {
		p = (const struct kdapl_lmr_bad_param *)prev + 1;
	}
	if (p >= kdapl_lmr_bad_params + ARRAY_SIZE(kdapl_lmr_bad_params))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", p->adapter,
		 p->row->desc);
	return p;
}

static DAT_HANDLE kdapl_test_bad_handle(enum kdapl_bad_handle kind,
					DAT_HANDLE good, DAT_HANDLE other_type,
					DAT_HANDLE freed, DAT_HANDLE other_ia)
{
	switch (kind) {
	case KDAPL_H_NULL:
		return DAT_HANDLE_NULL;
	case KDAPL_H_OTHER_TYPE:
		return other_type;
	case KDAPL_H_FREED:
		return freed;
	case KDAPL_H_OTHER_IA:
		return other_ia;
	default:
		return good;
	}
}

static void kdapl_lmr_create_invalid_test(struct kunit *test)
{
	const struct kdapl_lmr_bad_param *param = test->param_value;
	const struct kdapl_lmr_bad_row *row = param->row;
	u8 *buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	struct scatterlist *sg = kunit_kcalloc(test, 2, sizeof(*sg),
					       GFP_KERNEL);
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia, ia2, closed_ia, use_ia;
	DAT_PZ_HANDLE pz, pz2, freed_pz, use_pz;
	DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL, lmr2, freed_lmr;
	DAT_REGION_DESCRIPTION r = {};
	struct page *page, *page2;
	DAT_VLEN length;
	DAT_PADDR *pas;
	u32 max, i;
	DAT_RETURN ret;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, sg);
	page = kdapl_test_pages(test, 1);
	page2 = kdapl_test_pages(test, 0);

	ia = kdapl_test_open_ia(test, param->adapter);
	ia2 = kdapl_test_open_ia(test, param->adapter);
	KUNIT_ASSERT_EQ(test, dat_ia_open(param->adapter, 4, &async,
					  &closed_ia),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ia_close(closed_ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	pz = kdapl_test_pz(test, ia);
	pz2 = kdapl_test_pz(test, ia2);
	freed_pz = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, dat_pz_free(freed_pz), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, buf, 64,
						KDAPL_PRIV_LOCAL, &freed_lmr,
						NULL),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_lmr_free(freed_lmr), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia2, pz2, buf, 64,
						KDAPL_PRIV_LOCAL, &lmr2, NULL),
			DAT_SUCCESS);

	max = kdapl_test_max_pages(test, ia);
	pas = kunit_kcalloc(test, max + 1, sizeof(*pas), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pas);
	for (i = 0; i <= max; i++)
		pas[i] = page_to_phys(page2);

	sg_init_table(sg, 2);
	sg_set_page(&sg[0], page, PAGE_SIZE, 0);
	sg_set_page(&sg[1], page2, PAGE_SIZE, 0);

	switch (row->region) {
	case KDAPL_R_KMALLOC:
		r.for_va = buf;
		break;
	case KDAPL_R_VA_NULL:
		r.for_va = NULL;
		break;
	case KDAPL_R_VA_USER:
		r.for_va = (void *)0x10000UL;
		break;
	case KDAPL_R_VA_WRAP:
		r.for_va = (void *)(ULONG_MAX - 10);
		break;
	case KDAPL_R_PHYS_NULL:
		r.for_physical = NULL;
		break;
	case KDAPL_R_PHYS_UNALIGNED:
		pas[0] = page_to_phys(page2) + 8;
		r.for_physical = pas;
		break;
	case KDAPL_R_PHYS_NO_PAGE:
		pas[0] = 1ULL << 51;
		r.for_physical = pas;
		break;
	case KDAPL_R_PHYS_TOO_MANY:
		r.for_physical = pas;
		break;
	case KDAPL_R_VAR_NULL:
		r.for_array.page_size = PAGE_SIZE;
		r.for_array.pages = NULL;
		break;
	case KDAPL_R_VAR_SMALL:
		r.for_array.page_size = PAGE_SIZE / 2;
		r.for_array.pages = pas;
		break;
	case KDAPL_R_VAR_NOT_POW2:
		r.for_array.page_size = 3 * PAGE_SIZE;
		r.for_array.pages = pas;
		break;
	case KDAPL_R_VAR_UNALIGNED:
		/* Order-1 blocks are 2-page aligned; the second page is not. */
		pas[0] = page_to_phys(page) + PAGE_SIZE;
		r.for_array.page_size = 2 * PAGE_SIZE;
		r.for_array.pages = pas;
		break;
	case KDAPL_R_SG_NULL:
		r.for_sg.sg = NULL;
		r.for_sg.nents = 1;
		break;
	case KDAPL_R_SG_EMPTY:
		r.for_sg.sg = sg;
		r.for_sg.nents = 0;
		break;
	case KDAPL_R_SG:
		r.for_sg.sg = sg;
		r.for_sg.nents = 2;
		break;
	case KDAPL_R_SG_GAP:
		sg_set_page(&sg[1], page2, PAGE_SIZE - 8, 8);
		r.for_sg.sg = sg;
		r.for_sg.nents = 2;
		break;
	case KDAPL_R_LMR_NULL:
		r.for_lmr_handle = DAT_HANDLE_NULL;
		break;
	case KDAPL_R_LMR_PZ:
		r.for_lmr_handle = pz;
		break;
	case KDAPL_R_LMR_FREED:
		r.for_lmr_handle = freed_lmr;
		break;
	case KDAPL_R_LMR_OTHER_IA:
		r.for_lmr_handle = lmr2;
		break;
	}
	/* A region of max + 1 pages: every page the same one. */
	length = row->length;
	if (row->region == KDAPL_R_PHYS_TOO_MANY)
		length = (DAT_VLEN)(max + 1) * PAGE_SIZE;

	use_ia = kdapl_test_bad_handle(row->ia, ia, pz, closed_ia, ia2);
	use_pz = kdapl_test_bad_handle(row->pz, pz, ia, freed_pz, pz2);
	ret = dat_lmr_kcreate(use_ia, row->mem_type, r, length, use_pz,
			      row->priv, row->va_type, row->opt,
			      row->null_lmr ? NULL : &lmr, NULL, NULL, NULL,
			      NULL);
	KUNIT_EXPECT_EQ(test, ret, row->ret);
	if (ret == DAT_SUCCESS)
		KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	else
		KUNIT_EXPECT_PTR_EQ(test, lmr, DAT_HANDLE_NULL);

	/* Nothing was left behind: the PZ frees. */
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

/* --- free ------------------------------------------------------------ */

/* Refused while an RMR is bound to the LMR; fine once it is unbound. */
static void kdapl_lmr_free_in_use_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	DAT_LMR_TRIPLET t = { .segment_length = 100 };
	struct kdapl_rmr *rm;
	struct kdapl_lmr *l;
	DAT_LMR_HANDLE lmr;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_PARAM p;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, buf, PAGE_SIZE,
						DAT_MEM_PRIV_ALL_FLAG, &lmr,
						&t.lmr_context),
			DAT_SUCCESS);
	t.virtual_address = (uintptr_t)buf;
	KUNIT_ASSERT_EQ(test, dat_rmr_create(pz, &rmr), DAT_SUCCESS);

	l = kdapl_test_get_lmr(test, lmr);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, rmr, RMR, DAT_INVALID_HANDLE_RMR, &rm),
			DAT_SUCCESS);
	mutex_lock(&l->obj.ia->lock);
	kdapl_rmr_bind_lmr(rm, l, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	mutex_unlock(&l->obj.ia->lock);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->rmr_binds), 1);

	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE));
	/* Still alive and usable. */
	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_ALL_KDAT, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(ia, &t, 1), DAT_SUCCESS);

	mutex_lock(&l->obj.ia->lock);
	kdapl_rmr_unbind(rm);
	mutex_unlock(&l->obj.ia->lock);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->rmr_binds), 0);
	kdapl_object_put(&rm->obj);
	kdapl_object_put(&l->obj);

	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

static void kdapl_test_fill(u8 *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(i * 7 + 3);
}

static bool kdapl_test_filled(const u8 *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != (u8)(i * 7 + 3))
			return false;
	return true;
}

/*
 * Free leaves the memory alone, forgets the lmr_context and makes the
 * handle invalid; the PZ cannot be freed before.  The memory is freed by
 * the test afterwards, which KASAN would report if kdapl kept using it.
 */
static void kdapl_lmr_free_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	size_t klen = 2 * PAGE_SIZE + 300, vlen = 4 * PAGE_SIZE;
	DAT_LMR_HANDLE lmr, vlmr;
	DAT_LMR_CONTEXT lctx, vctx;
	DAT_LMR_PARAM param;
	struct kdapl_pz *z;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	u8 *kbuf, *vbuf;

	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	kbuf = kmalloc(klen, GFP_KERNEL);
	vbuf = vmalloc(vlen);
	if (!kbuf || !vbuf) {
		kfree(kbuf);
		vfree(vbuf);
		KUNIT_FAIL(test, "out of memory");
		return;
	}
	kdapl_test_fill(kbuf, klen);
	kdapl_test_fill(vbuf, vlen);

	KUNIT_EXPECT_EQ(test, kdapl_test_lmr_va(ia, pz, kbuf + 1, klen - 1,
						DAT_MEM_PRIV_ALL_FLAG, &lmr,
						&lctx),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_test_lmr_va(ia, pz, vbuf, vlen,
						KDAPL_PRIV_LOCAL, &vlmr,
						&vctx),
			DAT_SUCCESS);
	z = kdapl_test_get_pz(test, pz);
	KUNIT_EXPECT_NOT_NULL(test, xa_load(&z->lmrs, lctx));
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));

	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	KUNIT_EXPECT_NULL(test, xa_load(&z->lmrs, lctx));
	KUNIT_EXPECT_NOT_NULL(test, xa_load(&z->lmrs, vctx));
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_PZ_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(vlmr), DAT_SUCCESS);
	KUNIT_EXPECT_TRUE(test, xa_empty(&z->lmrs));
	kdapl_object_put(&z->obj);

	KUNIT_EXPECT_TRUE(test, kdapl_test_filled(kbuf, klen));
	KUNIT_EXPECT_TRUE(test, kdapl_test_filled(vbuf, vlen));
	kfree(kbuf);
	vfree(vbuf);

	/* The handle is dead for every call. */
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, &param),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(DAT_HANDLE_NULL),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(pz),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(ia),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_EQ(test, dat_lmr_free((DAT_LMR_HANDLE)(uintptr_t)
					   0x0400000100000001ULL),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));

	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
}

/* --- query ----------------------------------------------------------- */

static void kdapl_lmr_query_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	DAT_LMR_CONTEXT lctx;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_PARAM p;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, buf, 256,
						KDAPL_PRIV_LOCAL, &lmr, &lctx),
			DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_ALL_KDAT + 1,
					    &p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, 0x10000, &p),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_lmr_query(NULL, DAT_LMR_FIELD_ALL, &p),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_EQ(test, dat_lmr_query(pz, DAT_LMR_FIELD_ALL, &p),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));

	/* Only what the mask asks for is written. */
	memset(&p, 0xa5, sizeof(p));
	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_LMR_CONTEXT |
					    DAT_LMR_FIELD_LENGTH, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.lmr_context, lctx);
	KUNIT_EXPECT_EQ(test, p.length, (DAT_VLEN)256);
	KUNIT_EXPECT_EQ(test, p.rmr_context, 0xa5a5a5a5u);
	KUNIT_EXPECT_EQ(test, (u32)p.mem_type, 0xa5a5a5a5u);

	memset(&p, 0xa5, sizeof(p));
	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, 0, &p), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.lmr_context, 0xa5a5a5a5u);
}

/* --- DMA syncs ------------------------------------------------------- */

static void kdapl_lmr_sync_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	u8 *kbuf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	u8 *vbuf = kdapl_test_vzalloc(test, 3 * PAGE_SIZE);
	DAT_LMR_CONTEXT kctx, vctx, gone_ctx;
	DAT_LMR_HANDLE klmr, vlmr, gone;
	DAT_LMR_TRIPLET t[4], bad;
	DAT_PZ_HANDLE pz, pz2;
	DAT_IA_HANDLE ia;
	unsigned int i;
	struct {
		const char *what;
		DAT_VADDR va;
		DAT_SEG_LENGTH len;
	} bad_ranges[] = {
		{ "before", (uintptr_t)kbuf + 99, 10 },
		{ "past the end", (uintptr_t)kbuf + 100 + PAGE_SIZE - 4, 8 },
		{ "one byte past", (uintptr_t)kbuf + 100 + PAGE_SIZE - 1, 2 },
		{ "longer", (uintptr_t)kbuf + 100, PAGE_SIZE + 1 },
		{ "huge", (uintptr_t)kbuf + 108, U32_MAX },
		{ "at zero", 0, 1 },
	};

	KUNIT_ASSERT_NOT_NULL(test, kbuf);
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	pz2 = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, kbuf + 100, PAGE_SIZE,
						KDAPL_PRIV_LOCAL, &klmr,
						&kctx),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz2, vbuf, 3 * PAGE_SIZE,
						DAT_MEM_PRIV_ALL_FLAG, &vlmr,
						&vctx),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, kbuf, 8,
						KDAPL_PRIV_LOCAL, &gone,
						&gone_ctx),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_lmr_free(gone), DAT_SUCCESS);

	/* LMRs of two PZs, whole and partial, and a skipped empty entry. */
	t[0] = (DAT_LMR_TRIPLET){ (uintptr_t)kbuf + 100, PAGE_SIZE, kctx };
	t[1] = (DAT_LMR_TRIPLET){ (uintptr_t)vbuf + PAGE_SIZE - 10,
				  PAGE_SIZE + 20, vctx };
	t[2] = (DAT_LMR_TRIPLET){ 0xdead, 0, 0x12345 };
	t[3] = (DAT_LMR_TRIPLET){ (uintptr_t)vbuf + 3 * PAGE_SIZE - 1, 1,
				  vctx };
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(ia, t, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, t, 4), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(ia, NULL, 0), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, NULL, 0),
			DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(ia, NULL, 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, NULL, 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(NULL, t, 1),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(pz, t, 1),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));

	/* A freed LMR's context is unknown. */
	bad = (DAT_LMR_TRIPLET){ (uintptr_t)kbuf, 8, gone_ctx };
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(ia, &bad, 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, &bad, 1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	for (i = 0; i < ARRAY_SIZE(bad_ranges); i++) {
		bad = (DAT_LMR_TRIPLET){ bad_ranges[i].va, bad_ranges[i].len,
					 kctx };
		kunit_info(test, "range %s\n", bad_ranges[i].what);
		KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(ia, &bad, 1),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2));
		KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, &bad, 1),
				KDAPL_ERR(DAT_INVALID_PARAMETER,
					  DAT_INVALID_ARG2));
	}

	/* One bad entry among good ones fails the call. */
	t[2] = (DAT_LMR_TRIPLET){ (uintptr_t)kbuf, 1, kctx };
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_read(ia, t, 4),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));

	KUNIT_EXPECT_EQ(test, dat_lmr_free(klmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(vlmr), DAT_SUCCESS);
}

/* --- abrupt close ---------------------------------------------------- */

static void kdapl_lmr_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	size_t klen = 3 * PAGE_SIZE;
	u8 *kbuf = kunit_kmalloc(test, klen, GFP_KERNEL);
	u8 *vbuf = kdapl_test_vzalloc(test, 2 * PAGE_SIZE);
	struct scatterlist *sg = kunit_kcalloc(test, 1, sizeof(*sg),
					       GFP_KERNEL);
	DAT_PADDR *pas = kunit_kcalloc(test, 1, sizeof(*pas), GFP_KERNEL);
	struct page *page = kdapl_test_pages(test, 0);
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_LMR_HANDLE lmr[5];
	DAT_RMR_HANDLE rmr[3];
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_TRIPLET t = { .segment_length = 16 };
	DAT_RMR_PARAM rp;
	DAT_LMR_PARAM lp;
	DAT_PZ_HANDLE pz, pz2;
	struct kdapl_lmr *l;
	struct kdapl_rmr *rm;
	DAT_IA_HANDLE ia;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, kbuf);
	KUNIT_ASSERT_NOT_NULL(test, sg);
	KUNIT_ASSERT_NOT_NULL(test, pas);
	kdapl_test_fill(kbuf, klen);
	sg_init_one(sg, page_address(page), PAGE_SIZE);
	pas[0] = page_to_phys(page);

	kdapl_test_open_ia(test, *name);	/* skips without the device */
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async, &ia), DAT_SUCCESS);
	pz = kdapl_test_pz(test, ia);
	pz2 = kdapl_test_pz(test, ia);

	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz, kbuf, klen,
						DAT_MEM_PRIV_ALL_FLAG, &lmr[0],
						&t.lmr_context),
			DAT_SUCCESS);
	t.virtual_address = (uintptr_t)kbuf;
	KUNIT_ASSERT_EQ(test, kdapl_test_lmr_va(ia, pz2, vbuf, 2 * PAGE_SIZE,
						KDAPL_PRIV_LOCAL, &lmr[1],
						NULL),
			DAT_SUCCESS);
	r.for_sg.sg = sg;
	r.for_sg.nents = 1;
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_SG, r,
					      PAGE_SIZE, pz, KDAPL_PRIV_LOCAL,
					      DAT_VA_TYPE_VA, 0, &lmr[2], NULL,
					      NULL, NULL, NULL),
			DAT_SUCCESS);
	r.for_physical = pas;
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_PHYSICAL, r,
					      PAGE_SIZE, pz2,
					      KDAPL_PRIV_LOCAL, DAT_VA_TYPE_VA,
					      0, &lmr[3], NULL, NULL, NULL,
					      NULL),
			DAT_SUCCESS);
	r.for_lmr_handle = lmr[0];
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_LMR, r, 0, pz2,
					      KDAPL_PRIV_LOCAL, DAT_VA_TYPE_VA,
					      0, &lmr[4], NULL, NULL, NULL,
					      NULL),
			DAT_SUCCESS);

	/* Two RMRs bound to the same LMR, one unbound. */
	for (i = 0; i < ARRAY_SIZE(rmr); i++)
		KUNIT_ASSERT_EQ(test, dat_rmr_create(pz, &rmr[i]), DAT_SUCCESS);
	l = kdapl_test_get_lmr(test, lmr[0]);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, rmr[i], RMR,
						DAT_INVALID_HANDLE_RMR, &rm),
				DAT_SUCCESS);
		mutex_lock(&l->obj.ia->lock);
		kdapl_rmr_bind_lmr(rm, l, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG);
		mutex_unlock(&l->obj.ia->lock);
		kdapl_object_put(&rm->obj);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&l->rmr_binds), 2);
	kdapl_object_put(&l->obj);

	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_IA_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);

	for (i = 0; i < ARRAY_SIZE(lmr); i++)
		KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr[i], DAT_LMR_FIELD_ALL,
						    &lp),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_LMR));
	for (i = 0; i < ARRAY_SIZE(rmr); i++)
		KUNIT_EXPECT_EQ(test, dat_rmr_query(rmr[i], DAT_RMR_FIELD_ALL,
						    &rp),
				KDAPL_ERR(DAT_INVALID_HANDLE,
					  DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr[0]),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR));
	KUNIT_EXPECT_TRUE(test, kdapl_test_filled(kbuf, klen));
	KUNIT_EXPECT_PTR_EQ(test, sg_page(sg), page);
}

/*
 * The device going away: the detach operations drop the verbs resources
 * (the caller's scatterlist is unmapped) and keep the objects, which the
 * consumer then frees as usual.
 */
static void kdapl_lmr_detach_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct scatterlist *sg = kunit_kcalloc(test, 2, sizeof(*sg),
					       GFP_KERNEL);
	struct page *page = kdapl_test_pages(test, 1);
	DAT_LMR_TRIPLET t = { .segment_length = 64 };
	DAT_REGION_DESCRIPTION r;
	struct kdapl_rmr *rm;
	struct kdapl_lmr *l;
	DAT_LMR_HANDLE lmr;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_PARAM p;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	KUNIT_ASSERT_NOT_NULL(test, sg);
	sg_init_table(sg, 2);
	sg_set_page(&sg[0], page, PAGE_SIZE, 0);
	sg_set_page(&sg[1], page + 1, PAGE_SIZE, 0);
	r.for_sg.sg = sg;
	r.for_sg.nents = 2;
	ia = kdapl_test_open_ia(test, *name);
	pz = kdapl_test_pz(test, ia);
	KUNIT_ASSERT_EQ(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_SG, r,
					      2 * PAGE_SIZE, pz,
					      DAT_MEM_PRIV_ALL_FLAG,
					      DAT_VA_TYPE_VA, 0, &lmr,
					      &t.lmr_context, NULL, NULL,
					      &t.virtual_address),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_rmr_create(pz, &rmr), DAT_SUCCESS);
	l = kdapl_test_get_lmr(test, lmr);
	KUNIT_ASSERT_EQ(test, kdapl_get(&kdapl_kernel_owner, rmr, RMR, DAT_INVALID_HANDLE_RMR, &rm),
			DAT_SUCCESS);

	mutex_lock(&l->obj.ia->lock);
	kdapl_rmr_bind_lmr(rm, l, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	kdapl_rmr_type.detach(&rm->obj);
	kdapl_lmr_type.detach(&l->obj);
	mutex_unlock(&l->obj.ia->lock);
	KUNIT_EXPECT_NULL(test, rm->mr[0]);
	KUNIT_EXPECT_NULL(test, rm->mr[1]);
	KUNIT_EXPECT_NULL(test, l->mr);
	KUNIT_EXPECT_EQ(test, l->dma_nents, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->rmr_binds), 1);
	kdapl_object_put(&rm->obj);
	kdapl_object_put(&l->obj);

	KUNIT_EXPECT_EQ(test, dat_lmr_query(lmr, DAT_LMR_FIELD_ALL_KDAT, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.lmr_context, t.lmr_context);
	KUNIT_EXPECT_EQ(test, dat_lmr_sync_rdma_write(ia, &t, 1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE));
	KUNIT_EXPECT_EQ(test, dat_rmr_free(rmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_lmr_free(lmr), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_pz_free(pz), DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, sg_page(&sg[1]), page + 1);
}

/* --- range checks, no device ----------------------------------------- */

struct kdapl_covers_case {
	const char *desc;
	DAT_VADDR va;
	DAT_VLEN len;
	bool covered;
};

static const struct kdapl_covers_case kdapl_covers_cases[] = {
	{ "whole", 0x1000, 0x2000, true },
	{ "first byte", 0x1000, 1, true },
	{ "last byte", 0x2fff, 1, true },
	{ "empty anywhere", 0, 0, true },
	{ "byte before", 0xfff, 1, false },
	{ "straddles the start", 0xfff, 2, false },
	{ "straddles the end", 0x2fff, 2, false },
	{ "byte after", 0x3000, 1, false },
	{ "one too long", 0x1000, 0x2001, false },
	{ "wraps", U64_MAX, 2, false },
	{ "huge length", 0x1001, U64_MAX, false },
};

static void kdapl_covers_desc(const struct kdapl_covers_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kdapl_covers, kdapl_covers_cases, kdapl_covers_desc);

static void kdapl_lmr_covers_test(struct kunit *test)
{
	const struct kdapl_covers_case *c = test->param_value;
	struct kdapl_lmr lmr = {
		.registered_address = 0x1000,
		.registered_size = 0x2000,
	};

	KUNIT_EXPECT_EQ(test, kdapl_lmr_covers(&lmr, c->va, c->len),
			c->covered);
}

static struct kunit_case kdapl_lmr_cases[] = {
	KUNIT_CASE_PARAM(kdapl_lmr_covers_test, kdapl_covers_gen_params),
	KUNIT_CASE_PARAM(kdapl_lmr_kmalloc_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_vmalloc_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_physical_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_var_pages_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_sg_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_shared_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_access_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_create_invalid_test, kdapl_lmr_bad_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_free_in_use_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_free_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_query_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_sync_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_abrupt_close_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_lmr_detach_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_lmr_suite = {
	.name = "kdapl_lmr",
	.test_cases = kdapl_lmr_cases,
};

kunit_test_suite(kdapl_lmr_suite);
