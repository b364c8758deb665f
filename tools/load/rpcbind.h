/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rpcbind.h - where the server's MOUNT and NFS services listen: rpcbind's
 * GETADDR (RFC 1833, versions 4 and 3) for the netid of the server's
 * address family, and portmap version 2 GETPORT for an IPv4 server whose
 * rpcbind knows nothing newer.
 *
 * Portmap v2 cannot answer for IPv6: its GETPORT knows only the "tcp"
 * registration, and rpc.mountd (libtirpc) listens for tcp and tcp6 on
 * ports of their own, so the port it returns refuses an IPv6 connection.
 */
#ifndef NFSWB_RPCBIND_H
#define NFSWB_RPCBIND_H

#include <net/if.h>
#include <netinet/in.h>

#include "nfs3_client.h"

/*
 * The longest universal address (RFC 5665 section 5.2.3): an IPv6 address
 * with "%" and an interface name as its scope, then ".p1.p2".  Longer
 * replies are refused before they are stored.
 */
#define NFS3_UADDR_MAX	(INET6_ADDRSTRLEN + IF_NAMESIZE + 8)

/**
 * nfs3_getport() - ask the server's rpcbind (TCP port 111, or
 * @srv->rpcbind_port) for the TCP port of @prog version @vers
 * @srv: server
 * @prog: RPC program
 * @vers: program version
 * @port: out
 * @err: message buffer of NFS3_ERRLEN bytes
 *
 * GETADDR with netid "tcp6" for an IPv6 server, "tcp" for IPv4, tried as
 * rpcbind version 4 and then 3; portmap v2 GETPORT only when neither is
 * spoken and the server is IPv4.  Every call is bounded by the server's
 * timeout.
 *
 * Return: LOAD_OK, or LOAD_ERR_UNREACHABLE when rpcbind cannot be reached,
 * the program is not registered for the netid, or the reply is not a
 * universal address.
 */
enum load_err nfs3_getport(const struct nfs3_server *srv, rpcprog_t prog,
			   rpcvers_t vers, uint16_t *port, char *err);

/**
 * nfs3_uaddr_port() - the port of a TCP universal address
 * @uaddr: "h1.h2.h3.h4.p1.p2" or "IPV6ADDR.p1.p2", printable, at most
 *	   NFS3_UADDR_MAX characters
 * @port: out, p1 * 256 + p2
 *
 * The address part is not checked beyond being there: the caller connects
 * to the address it asked (rpcbind may answer with a wildcard "::").
 *
 * Return: 0, or -1 when @uaddr is empty, too long, has fewer than two
 * dots, a port octet that is not a number from 0 to 255, or port 0.
 */
int nfs3_uaddr_port(const char *uaddr, uint16_t *port);

#endif /* NFSWB_RPCBIND_H */
