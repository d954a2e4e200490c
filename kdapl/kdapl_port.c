// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_port.c - local ports of active iWARP connections
 *
 * rdma_cm gives an active connection a port from its own port space,
 * which knows nothing of the host's TCP sockets.  A software iWARP
 * device (siw) then binds a kernel TCP socket to that port, and the
 * connect fails when an unrelated TCP socket holds it.  iwpmd, the
 * iWARP port mapper, avoids this by mapping ports; where it does not run,
 * kdapl reserves the port itself: a TCP socket of its own, bound with
 * SO_REUSEADDR to a port TCP chose, keeps the port from other TCP users
 * while the device's own socket (bound with SO_REUSEADDR as well) may
 * share it.  The identifier is bound to that port, and the socket is
 * released once the identifier is destroyed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <linux/net.h>
#include <net/sock.h>
#include <rdma/rdma_cm.h>

#include "kdapl.h"

/* A port rdma_cm holds for another identifier is given back: try again. */
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

/**
 * kdapl_port_bind() - bind an active iWARP identifier to a reserved port
 * @id: the identifier, not bound yet
 * @src: the local address; its port is ignored
 * @sockp: where the reserving socket goes
 *
 * Binds @id to @src with a port that no other TCP socket of the host
 * holds, and keeps it so with a socket of kdapl's, given back by
 * kdapl_port_release() after @id is destroyed.
 *
 * Context: process context; may sleep.
 * Return: 0, or the negative errno of rdma_bind_addr() or of the socket.
 */
int kdapl_port_bind(struct rdma_cm_id *id, const struct sockaddr *src,
		    struct socket **sockp)
{
	struct sockaddr_storage addr;
	struct socket *sock;
	int tries, err = -EADDRINUSE;

	for (tries = 0; tries < KDAPL_PORT_TRIES; tries++) {
		sock = kdapl_port_take(src, &addr);
		if (IS_ERR(sock))
			return PTR_ERR(sock);
		err = rdma_bind_addr(id, (struct sockaddr *)&addr);
		if (!err) {
			*sockp = sock;
			return 0;
		}
		sock_release(sock);
		if (err != -EADDRINUSE)
			break;
	}
	return err;
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
