// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_hold: a kernel consumer that keeps one object of every family
 * open across the removal of its device.
 *
 * Loading it opens the IA named by "name" and creates a PZ, an EVD
 * with a CQ, an LMR over kmalloc memory, an RMR, an SRQ with a posted
 * receive and an EP.  The VM test then deletes the device.  Unloading
 * checks that the async EVD got DAT_ASYNC_ERROR_IA_CATASTROPHIC, that
 * every object can still be freed with DAT_SUCCESS and that the IA then
 * closes gracefully; it prints "kdapl_hold: PASS" or the first failure.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/kdat.h>

static char *name = "rxe0-1";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "adapter to open");

#define KDAPL_HOLD_BUF	4096

static DAT_IA_HANDLE ia;
static DAT_EVD_HANDLE async_evd, evd, conn_evd;
static DAT_PZ_HANDLE pz;
static DAT_LMR_HANDLE lmr;
static DAT_RMR_HANDLE rmr;
static DAT_SRQ_HANDLE srq;
static DAT_EP_HANDLE ep;
static void *buf;

static int kdapl_hold_fail(const char *what, DAT_RETURN ret)
{
	pr_err("kdapl_hold: FAIL: %s returned 0x%08x\n", what, ret);
	return -EIO;
}

#define CHECK(call) ({							\
	DAT_RETURN __r = (call);					\
	__r == DAT_SUCCESS ? 0 : kdapl_hold_fail(#call, __r);		\
})

static int __init kdapl_hold_init(void)
{
	DAT_SRQ_ATTR srq_attr = { .max_recv_dtos = 8, .max_recv_iov = 1 };
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_CONTEXT lmr_context;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COOKIE cookie = { .as_64 = 42 };

	buf = kzalloc(KDAPL_HOLD_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	region.for_va = buf;

	async_evd = DAT_HANDLE_NULL;
	if (CHECK(dat_ia_open(name, 8, &async_evd, &ia)))
		goto err;
	if (CHECK(dat_pz_create(ia, &pz)) ||
	    CHECK(dat_evd_kcreate(ia, 16, DAT_UPCALL_DISABLE, NULL,
				  DAT_EVD_DTO_FLAG, &evd)) ||
	    CHECK(dat_evd_kcreate(ia, 4, DAT_UPCALL_DISABLE, NULL,
				  DAT_EVD_CONNECTION_FLAG, &conn_evd)) ||
	    CHECK(dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, region,
				  KDAPL_HOLD_BUF, pz,
				  DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				  DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
				  DAT_VA_TYPE_VA, DAT_MEM_OPTIMIZE_DONT_CARE,
				  &lmr, &lmr_context, NULL, NULL, NULL)) ||
	    CHECK(dat_rmr_create(pz, &rmr)) ||
	    CHECK(dat_srq_create(ia, pz, &srq_attr, &srq)))
		goto err_close;

	iov.virtual_address = (uintptr_t)buf;
	iov.segment_length = 256;
	iov.lmr_context = lmr_context;
	if (CHECK(dat_srq_post_recv(srq, 1, &iov, cookie)) ||
	    CHECK(dat_ep_create(ia, pz, evd, evd, conn_evd, NULL, &ep)))
		goto err_close;
	pr_info("kdapl_hold: holding objects on %s\n", name);
	return 0;

err_close:
	dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
err:
	kfree(buf);
	return -EIO;
}

static void __exit kdapl_hold_exit(void)
{
	DAT_EVENT event;
	int err;

	err = CHECK(dat_evd_dequeue(async_evd, &event));
	if (!err && event.event_number != DAT_ASYNC_ERROR_IA_CATASTROPHIC) {
		pr_err("kdapl_hold: FAIL: async event 0x%x\n",
		       event.event_number);
		err = -EIO;
	}
	err = err ?: CHECK(dat_ep_free(ep));
	err = err ?: CHECK(dat_srq_free(srq));
	err = err ?: CHECK(dat_rmr_free(rmr));
	err = err ?: CHECK(dat_lmr_free(lmr));
	err = err ?: CHECK(dat_evd_free(evd));
	err = err ?: CHECK(dat_evd_free(conn_evd));
	err = err ?: CHECK(dat_pz_free(pz));
	err = err ?: CHECK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	if (err)
		dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	else
		pr_info("kdapl_hold: PASS\n");
	/* The LMR never owned the memory: it is ours to free. */
	kfree(buf);
}

module_init(kdapl_hold_init);
module_exit(kdapl_hold_exit);

MODULE_DESCRIPTION("kdapl consumer holding objects across device removal");
MODULE_LICENSE("GPL");
