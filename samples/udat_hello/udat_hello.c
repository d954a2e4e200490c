// SPDX-License-Identifier: GPL-2.0
/*
 * udat_hello: the smallest uDAPL program.  Opens the IA named on the
 * command line through the DAT registry (dat.conf, or DAT_OVERRIDE),
 * prints its provider and address, registers a buffer in a protection
 * zone, and undoes it all.  Exits 0 only if every call succeeded.
 *
 *   cc -o udat_hello udat_hello.c -ldat2
 *   ./udat_hello rxe0-1
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>

#include <dat2/udat.h>

#define HELLO_LEN	4096

static int fail(const char *call, DAT_RETURN ret)
{
	fprintf(stderr, "udat_hello: %s: %#x\n", call, ret);
	return 1;
}

/* Register a buffer in a new PZ and free both again. */
static int memory(DAT_IA_HANDLE ia)
{
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
	DAT_LMR_HANDLE lmr;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;

	region.for_va = calloc(1, HELLO_LEN);
	if (!region.for_va)
		return fail("calloc", DAT_INSUFFICIENT_RESOURCES);
	ret = dat_pz_create(ia, &pz);
	if (ret != DAT_SUCCESS)
		return fail("dat_pz_create", ret);
	ret = dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, HELLO_LEN, pz,
			     DAT_MEM_PRIV_LOCAL_WRITE_FLAG, DAT_VA_TYPE_VA,
			     &lmr, &lmr_context, &rmr_context, &reg_len,
			     &reg_addr);
	if (ret != DAT_SUCCESS)
		return fail("dat_lmr_create", ret);
	printf("%d bytes registered, lmr_context %#x\n", HELLO_LEN,
	       lmr_context);
	ret = dat_lmr_free(lmr);
	if (ret != DAT_SUCCESS)
		return fail("dat_lmr_free", ret);
	ret = dat_pz_free(pz);
	if (ret != DAT_SUCCESS)
		return fail("dat_pz_free", ret);
	free(region.for_va);
	return 0;
}

int main(int argc, char **argv)
{
	DAT_EVD_HANDLE async_evd = DAT_HANDLE_NULL;
	DAT_PROVIDER_ATTR pattr;
	struct sockaddr_in *sin;
	DAT_IA_ATTR attr;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;
	char addr[INET_ADDRSTRLEN] = "?";

	if (argc != 2) {
		fprintf(stderr, "usage: udat_hello IA_NAME\n");
		return 2;
	}
	ret = dat_ia_open(argv[1], 8, &async_evd, &ia);
	if (ret != DAT_SUCCESS)
		return fail("dat_ia_open", ret);
	ret = dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &attr,
			   DAT_PROVIDER_FIELD_ALL, &pattr);
	if (ret != DAT_SUCCESS)
		return fail("dat_ia_query", ret);
	sin = (struct sockaddr_in *)attr.ia_address_ptr;
	if (sin && sin->sin_family == AF_INET)
		inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof(addr));
	printf("%s: provider %s, adapter %s, address %s\n", argv[1],
	       pattr.provider_name, attr.adapter_name, addr);
	if (memory(ia))
		return 1;
	ret = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);
	if (ret != DAT_SUCCESS)
		return fail("dat_ia_close", ret);
	return 0;
}
