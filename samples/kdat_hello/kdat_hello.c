// SPDX-License-Identifier: GPL-2.0
/*
 * kdat_hello: the smallest kDAT consumer.  Loading it opens the IA named
 * by the "ia" parameter, prints the address peers reach it at, registers
 * a buffer in a protection zone, and undoes it all; the load fails if
 * any call does.  A real consumer goes on to endpoints and connections:
 * see Documentation/consumer.rst.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/kdat.h>

static char *ia_name = "rxe0-1";
module_param_named(ia, ia_name, charp, 0444);
MODULE_PARM_DESC(ia, "the Interface Adapter to open (default rxe0-1)");

#define HELLO_LEN	4096

/* Register a buffer in a new PZ and free both again. */
static DAT_RETURN kdat_hello_memory(DAT_IA_HANDLE ia)
{
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_LMR_HANDLE lmr;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;
	void *buf;

	buf = kzalloc(HELLO_LEN, GFP_KERNEL);
	if (!buf)
		return DAT_INSUFFICIENT_RESOURCES;
	ret = dat_pz_create(ia, &pz);
	if (ret != DAT_SUCCESS)
		goto out;
	region.for_va = buf;
	ret = dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, region, HELLO_LEN, pz,
			      DAT_MEM_PRIV_LOCAL_WRITE_FLAG, DAT_VA_TYPE_VA,
			      DAT_MEM_OPTIMIZE_DONT_CARE, &lmr, &lmr_context,
			      &rmr_context, NULL, NULL);
	if (ret == DAT_SUCCESS) {
		pr_info("kdat_hello: %u bytes registered, lmr_context %#x\n",
			HELLO_LEN, lmr_context);
		ret = dat_lmr_free(lmr);
	}
	if (dat_pz_free(pz) != DAT_SUCCESS && ret == DAT_SUCCESS)
		ret = DAT_INTERNAL_ERROR;
out:
	kfree(buf);
	return ret;
}

static int __init kdat_hello_init(void)
{
	DAT_EVD_HANDLE async_evd = DAT_HANDLE_NULL;
	DAT_IA_ATTR attr;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	ret = dat_ia_open(ia_name, 8, &async_evd, &ia);
	if (ret != DAT_SUCCESS) {
		pr_err("kdat_hello: dat_ia_open(%s): %#x\n", ia_name, ret);
		return -ENODEV;
	}
	ret = dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &attr, 0, NULL);
	if (ret == DAT_SUCCESS) {
		pr_info("kdat_hello: %s (%s) at %pISc\n", ia_name,
			attr.adapter_name, attr.ia_address_ptr);
		ret = kdat_hello_memory(ia);
	}
	if (ret != DAT_SUCCESS)
		pr_err("kdat_hello: %#x\n", ret);
	if (dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) != DAT_SUCCESS ||
	    ret != DAT_SUCCESS)
		return -EIO;
	return 0;
}

static void __exit kdat_hello_exit(void)
{
}

module_init(kdat_hello_init);
module_exit(kdat_hello_exit);

MODULE_DESCRIPTION("The smallest kDAT consumer");
MODULE_LICENSE("GPL");
