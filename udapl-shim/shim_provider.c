// SPDX-License-Identifier: GPL-2.0
/*
 * The provider: what libdat2 loads.
 *
 * libdat2 dlopen()s the library at the first dat_ia_open() of an IA name
 * that dat.conf (or DAT_OVERRIDE) gives it, calls dat_provider_init() with
 * that name, and dlclose()s it after the last close.  Each name gets its
 * own copy of the DAT_PROVIDER table, whose device_name is the name: that
 * is how libdat2 finds the entry again at dat_ia_close().  The table is
 * the dispatch of every DAT call.  No thread or state outlives
 * dat_provider_fini().
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define SHIM_FN(name)		.name##_func = shim_##name

static const DAT_PROVIDER shim_provider_template = {
	SHIM_FN(ia_open), SHIM_FN(ia_query), SHIM_FN(ia_close),
	SHIM_FN(set_consumer_context), SHIM_FN(get_consumer_context),
	SHIM_FN(get_handle_type),
	SHIM_FN(cno_create), SHIM_FN(cno_modify_agent), SHIM_FN(cno_query),
	SHIM_FN(cno_free), SHIM_FN(cno_wait),
	SHIM_FN(cr_query), SHIM_FN(cr_accept), SHIM_FN(cr_reject),
	SHIM_FN(cr_handoff),
	SHIM_FN(evd_create), SHIM_FN(evd_query), SHIM_FN(evd_modify_cno),
	SHIM_FN(evd_enable), SHIM_FN(evd_disable), SHIM_FN(evd_wait),
	SHIM_FN(evd_resize), SHIM_FN(evd_post_se), SHIM_FN(evd_dequeue),
	SHIM_FN(evd_free),
	SHIM_FN(ep_create), SHIM_FN(ep_query), SHIM_FN(ep_modify),
	SHIM_FN(ep_connect), SHIM_FN(ep_dup_connect), SHIM_FN(ep_disconnect),
	SHIM_FN(ep_post_send), SHIM_FN(ep_post_recv),
	SHIM_FN(ep_post_rdma_read), SHIM_FN(ep_post_rdma_write),
	SHIM_FN(ep_get_status), SHIM_FN(ep_free),
	SHIM_FN(lmr_create), SHIM_FN(lmr_query), SHIM_FN(lmr_free),
	SHIM_FN(rmr_create), SHIM_FN(rmr_query), SHIM_FN(rmr_bind),
	SHIM_FN(rmr_free),
	SHIM_FN(psp_create), SHIM_FN(psp_query), SHIM_FN(psp_free),
	SHIM_FN(rsp_create), SHIM_FN(rsp_query), SHIM_FN(rsp_free),
	SHIM_FN(pz_create), SHIM_FN(pz_query), SHIM_FN(pz_free),
	SHIM_FN(psp_create_any), SHIM_FN(ep_reset),
	SHIM_FN(evd_set_unwaitable), SHIM_FN(evd_clear_unwaitable),
	SHIM_FN(lmr_sync_rdma_read), SHIM_FN(lmr_sync_rdma_write),
	SHIM_FN(ep_create_with_srq), SHIM_FN(ep_recv_query),
	SHIM_FN(ep_set_watermark),
	SHIM_FN(srq_create), SHIM_FN(srq_free), SHIM_FN(srq_post_recv),
	SHIM_FN(srq_query), SHIM_FN(srq_resize), SHIM_FN(srq_set_lw),
	SHIM_FN(csp_create), SHIM_FN(csp_query), SHIM_FN(csp_free),
	SHIM_FN(ep_common_connect), SHIM_FN(rmr_create_for_ep),
	SHIM_FN(ep_post_send_with_invalidate),
	SHIM_FN(ep_post_rdma_read_to_rmr),
	SHIM_FN(cno_fd_create), SHIM_FN(cno_trigger),
	SHIM_FN(ia_ha_related),
	SHIM_FN(handle_extendedop),
};

/**
 * struct shim_provider - the table registered for one IA name
 * @provider: the table; device_name points to @name
 * @info: what libdat2 registered it under
 * @next: the next name's table
 * @name: the IA name
 */
struct shim_provider {
	DAT_PROVIDER provider;
	DAT_PROVIDER_INFO info;
	struct shim_provider *next;
	char name[];
};

static struct shim_provider *shim_providers;
static pthread_mutex_t shim_providers_lock = PTHREAD_MUTEX_INITIALIZER;

/**
 * shim_provider_of() - the table of an IA name
 * @ia_name: the name dat_ia_open() was given
 *
 * Return: the table dat_provider_init() registered for it, or NULL.
 */
const DAT_PROVIDER *shim_provider_of(const char *ia_name)
{
	const DAT_PROVIDER *found = NULL;
	struct shim_provider *p;

	pthread_mutex_lock(&shim_providers_lock);
	for (p = shim_providers; p; p = p->next)
		if (!strcmp(p->name, ia_name)) {
			found = &p->provider;
			break;
		}
	pthread_mutex_unlock(&shim_providers_lock);
	return found;
}

void dat_provider_init(const DAT_PROVIDER_INFO *info,
		       const char *instance_data)
{
	size_t len = strnlen(info->ia_name, DAT_NAME_MAX_LENGTH);
	struct shim_provider *p;

	/* The IA name is the instance: dat.conf's parameters add nothing. */
	(void)instance_data;
	p = calloc(1, sizeof(*p) + len + 1);
	if (!p)
		return;
	memcpy(p->name, info->ia_name, len);
	p->provider = shim_provider_template;
	p->provider.device_name = p->name;
	p->info = *info;
	if (dat_registry_add_provider(&p->provider, info) != DAT_SUCCESS) {
		free(p);
		return;
	}
	pthread_mutex_lock(&shim_providers_lock);
	p->next = shim_providers;
	shim_providers = p;
	pthread_mutex_unlock(&shim_providers_lock);
}

void dat_provider_fini(const DAT_PROVIDER_INFO *info)
{
	struct shim_provider **pp, *p = NULL;

	pthread_mutex_lock(&shim_providers_lock);
	for (pp = &shim_providers; *pp; pp = &(*pp)->next)
		if (!strncmp((*pp)->name, info->ia_name,
			     DAT_NAME_MAX_LENGTH)) {
			p = *pp;
			*pp = p->next;
			break;
		}
	pthread_mutex_unlock(&shim_providers_lock);
	if (!p)
		return;
	dat_registry_remove_provider(&p->provider, info);
	free(p);
}
