// SPDX-License-Identifier: GPL-2.0
/*
 * Common Service Points: listeners on an address and port, the passive
 * side of dat_ep_common_connect().
 *
 * A CSP is a service point (kdapl_sp.c) whose port is the one its
 * address gives, not one folded from a connection qualifier; its
 * requests are reported as a PSP's are, with the CSP as sp_handle and
 * the port as conn_qual, and are accepted or rejected the same way.  The
 * communicator is a socket triple: kdapl's connections are reliable
 * streams over rdma_cm, so it must name a stream socket (SOCK_STREAM, of
 * the address's family, protocol 0 or TCP).
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <kunit/visibility.h>
#include <net/ipv6.h>

#include "kdapl.h"

/**
 * kdapl_csp_local() - may a CSP of @ia listen on @addr?
 * @ia: the IA
 * @addr: the CSP's address
 *
 * Context: any context.
 * Return: true for the IA's own address or the wildcard address of the
 * IA's family.
 */
bool kdapl_csp_local(const struct kdapl_ia *ia, const struct sockaddr *addr)
{
	sa_family_t family = ia->addr.ss_family == AF_INET6 ? AF_INET6 :
							     AF_INET;
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)addr;

	if (addr->sa_family != family)
		return false;
	if (family == AF_INET6)
		return ipv6_addr_any(&a6->sin6_addr) ||
		       ipv6_addr_equal(&a6->sin6_addr,
				       &((const struct sockaddr_in6 *)
					 &ia->addr)->sin6_addr);
	return a4->sin_addr.s_addr == htonl(INADDR_ANY) ||
	       a4->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)&ia->addr)->sin_addr.s_addr;
}

/* The arguments of dat_csp_create() alone, into @tmpl. */
static DAT_RETURN kdapl_csp_args(const DAT_COMM *comm,
				 const struct sockaddr *addr,
				 const DAT_CSP_HANDLE *csp_handle,
				 struct kdapl_sp *tmpl)
{
	size_t len;

	if (!comm)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!addr)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!csp_handle)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (addr->sa_family == AF_INET)
		len = sizeof(struct sockaddr_in);
	else if (addr->sa_family == AF_INET6)
		len = sizeof(struct sockaddr_in6);
	else
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (comm->domain != addr->sa_family || comm->type != SOCK_STREAM ||
	    (comm->protocol && comm->protocol != IPPROTO_TCP))
		return dat_error(DAT_COMM_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!kdapl_sockaddr_port(addr))
		return dat_error(DAT_INVALID_ADDRESS,
				 DAT_INVALID_ADDRESS_MALFORMED);
	tmpl->comm = *comm;
	memset(&tmpl->address, 0, sizeof(tmpl->address));
	memcpy(&tmpl->address, addr, len);
	return DAT_SUCCESS;
}

/**
 * kdapl_csp_create() - dat_csp_create() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @ia_handle: as for dat_csp_create()
 * @comm: as for dat_csp_create()
 * @address: as for dat_csp_create()
 * @evd_handle: as for dat_csp_create()
 * @csp_handle: as for dat_csp_create()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_csp_create().
 * Return: as dat_csp_create().
 */
DAT_RETURN kdapl_csp_create(struct kdapl_owner *owner, DAT_IA_HANDLE ia_handle,
			    const DAT_COMM *comm,
			    DAT_IA_ADDRESS_PTR address,
			    DAT_EVD_HANDLE evd_handle,
			    DAT_CSP_HANDLE *csp_handle)
{
	struct kdapl_sp tmpl;
	DAT_RETURN ret;

	ret = kdapl_csp_args(comm, address, csp_handle, &tmpl);
	if (ret)
		return ret;
	return kdapl_sp_create(owner, DAT_HANDLE_TYPE_CSP, ia_handle,
			       kdapl_sockaddr_port(address), false,
			       DAT_HANDLE_NULL, evd_handle, 0, &tmpl, NULL,
			       csp_handle);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_csp_create);

/**
 * dat_csp_create() - listen on an address and port
 * @ia_handle: the IA
 * @comm: the communicator: a stream socket (SOCK_STREAM) of the
 *	address's family, protocol 0 or IPPROTO_TCP
 * @address: the IA's address or the wildcard address of its family,
 *	with the port to listen on (not 0)
 * @evd_handle: the EVD of the connection requests (DAT_EVD_CR_FLAG)
 * @csp_handle: out: the new CSP
 *
 * The passive side of dat_ep_common_connect(): requests for the port
 * arrive on @evd_handle as DAT_CONNECTION_REQUEST_EVENTs whose sp_handle
 * is the CSP and whose conn_qual is the port.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - listening.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - @comm is NULL.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @address is NULL.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG5 - @csp_handle is NULL.
 * * %DAT_COMM_NOT_SUPPORTED - another communicator.
 * * %DAT_INVALID_ADDRESS | %DAT_INVALID_ADDRESS_UNSUPPORTED - not the
 *   IA's address, or another family.
 * * %DAT_INVALID_ADDRESS | %DAT_INVALID_ADDRESS_MALFORMED - port 0.
 * * %DAT_INVALID_HANDLE - a bad IA or EVD, or an EVD without requests.
 * * %DAT_CONN_QUAL_IN_USE - something listens on the port already.
 * * %DAT_INVALID_STATE - the IA is closing or lost its device.
 * * %DAT_INSUFFICIENT_RESOURCES - out of memory.
 */
DAT_RETURN dat_csp_create(DAT_IA_HANDLE ia_handle, DAT_COMM *comm,
			  DAT_IA_ADDRESS_PTR address, DAT_EVD_HANDLE evd_handle,
			  DAT_CSP_HANDLE *csp_handle)
{
	return kdapl_csp_create(&kdapl_kernel_owner, ia_handle, comm, address,
				evd_handle, csp_handle);
}
EXPORT_SYMBOL_GPL(dat_csp_create);

/**
 * kdapl_csp_query() - dat_csp_query() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @csp_handle: as for dat_csp_query()
 * @mask: as for dat_csp_query()
 * @param: as for dat_csp_query()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_csp_query().
 * Return: as dat_csp_query().
 */
DAT_RETURN kdapl_csp_query(struct kdapl_owner *owner, DAT_CSP_HANDLE csp_handle,
			   DAT_CSP_PARAM_MASK mask, DAT_CSP_PARAM *param)
{
	struct kdapl_sp *sp;
	DAT_RETURN ret;

	if (mask & ~DAT_CSP_FIELD_ALL)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!param)
		return dat_error(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ret = kdapl_get(owner, csp_handle, CSP, DAT_INVALID_HANDLE_CSP, &sp);
	if (ret)
		return ret;
	/* None of these changes while the CSP is published. */
	if (mask & DAT_CSP_FIELD_IA_HANDLE)
		param->ia_handle = kdapl_object_handle(&sp->obj.ia->obj);
	if (mask & DAT_CSP_FIELD_COMM)
		param->comm = &sp->comm;
	if (mask & DAT_CSP_FIELD_IA_ADDRESS)
		param->address_ptr = (struct sockaddr *)&sp->address;
	if (mask & DAT_CSP_FIELD_EVD_HANDLE)
		param->evd_handle = kdapl_object_handle(&sp->evd->obj);
	kdapl_object_put(&sp->obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_csp_query);

/**
 * dat_csp_query() - parameters of a Common Service Point
 * @csp_handle: the CSP
 * @mask: DAT_CSP_FIELD_* wanted
 * @param: out: the parameters; comm and address_ptr point into the CSP
 *	and stay valid until it is freed
 *
 * Context: any context.
 * Return:
 * * %DAT_SUCCESS - done.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_CSP - bad @csp_handle.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG2 - unknown bits in @mask.
 * * %DAT_INVALID_PARAMETER | %DAT_INVALID_ARG3 - @param is NULL.
 */
DAT_RETURN dat_csp_query(DAT_CSP_HANDLE csp_handle, DAT_CSP_PARAM_MASK mask,
			 DAT_CSP_PARAM *param)
{
	return kdapl_csp_query(&kdapl_kernel_owner, csp_handle, mask, param);
}
EXPORT_SYMBOL_GPL(dat_csp_query);

/**
 * kdapl_csp_free() - dat_csp_free() for an owner
 * @owner: who calls: &kdapl_kernel_owner for kDAT consumers, the
 *	open file of /dev/kdapl for a process
 * @csp_handle: as for dat_csp_free()
 *
 * Handles of another owner are refused as bad handles are.
 *
 * Context: as dat_csp_free().
 * Return: as dat_csp_free().
 */
DAT_RETURN kdapl_csp_free(struct kdapl_owner *owner, DAT_CSP_HANDLE csp_handle)
{
	return kdapl_sp_free(owner, csp_handle, DAT_HANDLE_TYPE_CSP,
			     DAT_INVALID_HANDLE_CSP);
}
EXPORT_SYMBOL_IF_KUNIT(kdapl_csp_free);

/**
 * dat_csp_free() - stop listening on a Common Service Point
 * @csp_handle: the CSP
 *
 * Requests already reported stay valid and can still be accepted or
 * rejected; requests arriving from now on are refused.
 *
 * Context: process context, may sleep.
 * Return:
 * * %DAT_SUCCESS - the CSP is freed.
 * * %DAT_INVALID_HANDLE | %DAT_INVALID_HANDLE_CSP - bad @csp_handle.
 */
DAT_RETURN dat_csp_free(DAT_CSP_HANDLE csp_handle)
{
	return kdapl_csp_free(&kdapl_kernel_owner, csp_handle);
}
EXPORT_SYMBOL_GPL(dat_csp_free);

const struct kdapl_type_ops kdapl_csp_type = {
	.name = "csp",
	.bad_handle = DAT_INVALID_HANDLE_CSP,
	.close_rank = 5,
	.free = kdapl_sp_force_free,
	.detach = kdapl_sp_detach,
	.release = kdapl_sp_release,
};
