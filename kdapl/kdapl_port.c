// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_port.c - binding identifiers: on the IA's device, and to local
 * ports of active connections on soft iWARP
 *
 * An identifier is bound to the IA's address only while that address is
 * on the IA's device (kdapl_port_bind_addr()).
 *
 * rdma_cm gives an active connection a port from its own port space,
 * which knows nothing of the host's TCP sockets.  An iWARP device that
 * runs on the host's TCP stack without port mapping (siw, which says so
 * with IW_F_NO_PORT_MAP) then binds a kernel TCP socket to that port,
 * and the connect fails at once when an unrelated TCP socket holds it.
 * On such a device kdapl reserves the port first: a TCP socket of its
 * own, bound with SO_REUSEADDR to a port TCP chose, and the identifier
 * bound to that port.  TCP gives the port to no socket that binds
 * without SO_REUSEADDR or asks for any port, while the device's own
 * socket (bound with SO_REUSEADDR as well) may share it.  The reserving
 * socket is released once the identifier is destroyed.  Other devices
 * bind as rdma_cm does by itself.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/net.h>
#include <net/sock.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "kdapl.h"

/* Ports TCP offers that rdma_cm has given to other identifiers. */
#define KDAPL_PORT_TRIES	16

/* A TCP socket of @src's address bound to a free port, in @bound. */
static struct socket *kdapl_port_take(const struct sockaddr *src,
				      struct sockaddr_storage *bound)
{
	int len = src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					       sizeof(struct sockaddr_in);
	struct socket *sock;
	int err;

	err = sock_create_kern(&init_net, src->sa_family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (err)
		return ERR_PTR(err);
	sock_set_reuseaddr(sock->sk);
	memset(bound, 0, sizeof(*bound));
	memcpy(bound, src, len);
	kdapl_sockaddr_set_port((struct sockaddr *)bound, 0);
	err = kernel_bind(sock, (struct sockaddr *)bound, len);
	if (!err)
		err = kernel_getsockname(sock, (struct sockaddr *)bound);
	if (err < 0) {
		sock_release(sock);
		return ERR_PTR(err);
	}
	return sock;
}

/*
 * rdma_cm refuses a port it has given to another identifier:
 * -EADDRINUSE, or -EADDRNOTAVAIL when that one is bound to a wildcard
 * address.
 */
static bool kdapl_port_taken(int err)
{
	return err == -EADDRINUSE || err == -EADDRNOTAVAIL;
}

/**
 * kdapl_port_bind_addr() - bind an identifier to an address of a device
 * @id: the identifier, not bound yet
 * @addr: the address, with its port
 * @ibdev: the device @addr must belong to: the IA's
 *
 * An IA keeps the address its net_device had when it was opened.  Where
 * that address has moved to the net_device of another RDMA device,
 * rdma_cm binds @id to that device, which detaching the IA does not
 * reach: that device's removal would wait for the consumer.  Refused.
 *
 * Context: process context; may sleep.
 * Return: 0, -EXDEV when @addr is on another device (the caller destroys
 * @id), or the negative errno of rdma_bind_addr().
 */
int kdapl_port_bind_addr(struct rdma_cm_id *id, const struct sockaddr *addr,
			 struct ib_device *ibdev)
{
	int err = rdma_bind_addr(id, (struct sockaddr *)addr);

	if (!err && id->device != ibdev)
		err = -EXDEV;
	return err;
}

/* kdapl_port_bind() on a device that needs a reserved port. */
static int kdapl_port_bind_reserved(struct rdma_cm_id *id,
				    const struct sockaddr *src,
				    struct ib_device *ibdev,
				    struct socket **sockp)
{
	struct socket *tried[KDAPL_PORT_TRIES];
	struct sockaddr_storage addr;
	struct socket *sock;
	int n, err = -EADDRINUSE;

	/* Refused ports stay held meanwhile, so that TCP offers others. */
	for (n = 0; n < KDAPL_PORT_TRIES; n++) {
		sock = kdapl_port_take(src, &addr);
		if (IS_ERR(sock)) {
			err = PTR_ERR(sock);
			break;
		}
		err = kdapl_port_bind_addr(id, (struct sockaddr *)&addr, ibdev);
		if (!err) {
			*sockp = sock;
			break;
		}
		tried[n] = sock;
		if (!kdapl_port_taken(err)) {
			n++;
			break;
		}
	}
	while (n-- > 0)
		sock_release(tried[n]);
	return err;
}

/**
 * kdapl_port_bind() - bind the identifier of an active connection
 * @id: the identifier, not bound yet
 * @src: the local address; its port is ignored
 * @ibdev: the device the connection leaves from
 * @sockp: where a reserving socket goes; set to NULL if none is needed
 *
 * Binds @id to @src as kdapl_port_bind_addr() does.  On a device that
 * runs on the host's TCP stack without port mapping, the port is one no
 * other TCP socket of the host holds, kept so by a socket of kdapl's,
 * given back by kdapl_port_release() after @id is destroyed.
 *
 * Context: process context; may sleep.
 * Return: 0, or the negative errno of kdapl_port_bind_addr() or of the
 * socket: -EADDRINUSE when TCP has no port left.
 */
int kdapl_port_bind(struct rdma_cm_id *id, const struct sockaddr *src,
		    struct ib_device *ibdev, struct socket **sockp)
{
	*sockp = NULL;
	if (!rdma_protocol_iwarp(ibdev, rdma_start_port(ibdev)) ||
	    !(ibdev->iw_driver_flags & IW_F_NO_PORT_MAP))
		return kdapl_port_bind_addr(id, src, ibdev);
	return kdapl_port_bind_reserved(id, src, ibdev, sockp);
}

/**
 * kdapl_port_release() - give back a port kdapl_port_bind() reserved
 * @sock: the reserving socket, or NULL
 *
 * Context: process context; may sleep.
 */
void kdapl_port_release(struct socket *sock)
{
	if (sock)
		sock_release(sock);
}
