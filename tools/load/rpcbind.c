// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rpcbind.c - port lookups for nfswb-load: RPCBPROC_GETADDR by netid,
 * portmap v2 GETPORT as the IPv4 fallback, and the universal addresses
 * GETADDR answers with.
 *
 * The calls go over nfs3_call() on an ordinary connection, so they have
 * the --timeout budget rather than libtirpc's 60-second rpcb_getaddr().
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rpcbind.h"

#include <rpc/pmap_prot.h>
#include <rpc/rpcb_prot.h>

/* A port octet of a universal address: one to three digits, 0 to 255. */
static int parse_octet(const char *s, const char *end, unsigned int *v)
{
	size_t n = (size_t)(end - s);

	if (n < 1 || n > 3)
		return -1;
	*v = 0;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		*v = *v * 10 + (unsigned int)(*s - '0');
	}
	return *v <= 255 ? 0 : -1;
}

int nfs3_uaddr_port(const char *uaddr, uint16_t *port)
{
	size_t len = strnlen(uaddr, NFS3_UADDR_MAX + 1);
	const char *end = uaddr + len;
	const char *lo, *hi;
	unsigned int p1, p2;

	if (len == 0 || len > NFS3_UADDR_MAX)
		return -1;
	/* Printable, no spaces: it may end up in a message. */
	for (const char *s = uaddr; s < end; s++)
		if (*s <= ' ' || *s > '~')
			return -1;
	lo = strrchr(uaddr, '.');
	if (!lo)
		return -1;
	for (hi = lo - 1; hi >= uaddr && *hi != '.'; hi--)
		;
	if (hi <= uaddr)	/* one dot only, or no address before it */
		return -1;
	if (parse_octet(hi + 1, lo, &p1) || parse_octet(lo + 1, end, &p2))
		return -1;
	if (p1 == 0 && p2 == 0)
		return -1;
	*port = (uint16_t)(p1 << 8 | p2);
	return 0;
}

/* GETADDR's result, a string of at most NFS3_UADDR_MAX bytes. */
static bool_t xdr_uaddr(XDR *xdrs, char **uaddr)
{
	return xdr_string(xdrs, uaddr, NFS3_UADDR_MAX);
}

/* The port in GETADDR's answer; "" means not registered. */
static enum load_err check_uaddr(const struct nfs3_server *srv,
				 rpcprog_t prog, rpcvers_t vers,
				 const char *netid, const char *uaddr,
				 uint16_t *port, char *err)
{
	if (!uaddr[0]) {
		snprintf(err, NFS3_ERRLEN,
			 "%s version %lu over %s is not registered with rpcbind on %s: is the server running?",
			 nfs3_prog_name(prog), (unsigned long)vers, netid,
			 srv->host);
		return LOAD_ERR_UNREACHABLE;
	}
	if (nfs3_uaddr_port(uaddr, port)) {
		snprintf(err, NFS3_ERRLEN,
			 "rpcbind on %s: %s over %s is at \"%.*s\", not a universal address ADDRESS.P1.P2",
			 srv->host, nfs3_prog_name(prog), netid,
			 NFS3_UADDR_MAX, uaddr);
		return LOAD_ERR_UNREACHABLE;
	}
	return LOAD_OK;
}

/*
 * GETADDR as rpcbind version 4, then 3.  Return LOAD_ERR_NFS with
 * @rb->status RPC_PROGVERSMISMATCH when rpcbind speaks neither.
 */
static enum load_err lookup_getaddr(struct nfs3_conn *rb, rpcprog_t prog,
				    rpcvers_t vers, const char *netid,
				    uint16_t *port, char *err)
{
	static const rpcvers_t versions[] = { RPCBVERS4, RPCBVERS };
	const struct nfs3_server *srv = rb->srv;
	struct rpcb args = {
		.r_prog = prog,
		.r_vers = vers,
		.r_netid = (char *)netid,
		.r_addr = (char *)"",
		.r_owner = (char *)"",
	};
	enum load_err rc = LOAD_ERR_NFS;

	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		char *uaddr = NULL;

		/* On the same connection, as libtirpc's rpcb_getaddr(). */
		rb->vers = versions[i];
		clnt_control(rb->clnt, CLSET_VERS, (char *)&rb->vers);
		rc = nfs3_call(rb, RPCBPROC_GETADDR, (xdrproc_t)xdr_rpcb, &args,
			       (xdrproc_t)xdr_uaddr, &uaddr, NULL, err);
		if (rc == LOAD_OK)
			rc = check_uaddr(srv, prog, vers, netid, uaddr, port,
					 err);
		xdr_free((xdrproc_t)xdr_uaddr, (char *)&uaddr);
		if (rc != LOAD_ERR_NFS)
			return rc;
		if (rb->status == RPC_PROGVERSMISMATCH)
			continue;
		if (rb->status == RPC_CANTDECODERES)
			snprintf(err, NFS3_ERRLEN,
				 "rpcbind on %s: the reply to GETADDR for %s over %s is not a string of at most %d characters",
				 srv->host, nfs3_prog_name(prog), netid,
				 NFS3_UADDR_MAX);
		return LOAD_ERR_UNREACHABLE;
	}
	return rc;
}

/* Portmap v2 GETPORT: an IPv4 "tcp" registration only. */
static enum load_err lookup_getport(struct nfs3_conn *rb, rpcprog_t prog,
				    rpcvers_t vers, uint16_t *port, char *err)
{
	struct pmap map = {
		.pm_prog = prog,
		.pm_vers = vers,
		.pm_prot = IPPROTO_TCP,
	};
	u_long result = 0;
	enum load_err rc;

	rb->vers = PMAPVERS;
	clnt_control(rb->clnt, CLSET_VERS, (char *)&rb->vers);
	rc = nfs3_call(rb, PMAPPROC_GETPORT, (xdrproc_t)xdr_pmap, &map,
		       (xdrproc_t)xdr_u_long, &result, NULL, err);
	if (rc != LOAD_OK)
		return rc == LOAD_ERR_NFS ? LOAD_ERR_UNREACHABLE : rc;
	if (result == 0 || result > 65535) {
		snprintf(err, NFS3_ERRLEN,
			 "%s version %lu over TCP is not registered with portmap on %s: is the server running?",
			 nfs3_prog_name(prog), (unsigned long)vers,
			 rb->srv->host);
		return LOAD_ERR_UNREACHABLE;
	}
	*port = (uint16_t)result;
	return LOAD_OK;
}

enum load_err nfs3_getport(const struct nfs3_server *srv, rpcprog_t prog,
			   rpcvers_t vers, uint16_t *port, char *err)
{
	bool ipv6 = srv->addr.ss_family == AF_INET6;
	uint16_t rb_port = srv->rpcbind_port ? srv->rpcbind_port : PMAPPORT;
	struct nfs3_conn rb;
	enum load_err rc;

	rc = nfs3_connect(&rb, srv, RPCBPROG, RPCBVERS4, rb_port, err);
	if (rc != LOAD_OK) {
		size_t n = strlen(err);

		snprintf(err + n, NFS3_ERRLEN - n,
			 " (no rpcbind there; give the ports with --server HOST:PORT and --mount-port)");
		return rc;
	}
	rc = lookup_getaddr(&rb, prog, vers, ipv6 ? "tcp6" : "tcp", port, err);
	if (rc == LOAD_ERR_NFS && rb.status == RPC_PROGVERSMISMATCH) {
		if (ipv6) {
			snprintf(err, NFS3_ERRLEN,
				 "rpcbind on %s speaks only portmap version 2, which knows no IPv6 ports: give them with --server [ADDRESS]:PORT and --mount-port",
				 srv->host);
			rc = LOAD_ERR_UNREACHABLE;
		} else {
			rc = lookup_getport(&rb, prog, vers, port, err);
		}
	}
	nfs3_disconnect(&rb);
	return rc;
}
