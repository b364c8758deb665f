/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfs3_client.h - the RPC side of nfswb-load: TCP connections with bounded
 * connect and call times, MOUNT v3 and NFSv3 calls through libtirpc, and
 * the names of their status codes (rpcbind lookups: rpcbind.h).
 *
 * Every function that can fail fills a caller-supplied message buffer and
 * returns one of enum load_err, which nfswb-load also uses as its exit code.
 */
#ifndef NFSWB_NFS3_CLIENT_H
#define NFSWB_NFS3_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rpc/rpc.h>

#include "clock.h"
#include "nfs3_prot.h"
#include "mount3.h"

/* Exit codes of nfswb-load; documented in nfswb-load(1). */
enum load_err {
	LOAD_OK = 0,
	LOAD_ERR_INTERNAL = 1,		/* out of memory, threads, ... */
	LOAD_ERR_USAGE = 2,		/* bad command line */
	LOAD_ERR_UNREACHABLE = 3,	/* connect, rpcbind, RPC timeout */
	LOAD_ERR_MOUNT = 4,		/* MNT refused (MNT3ERR_*) */
	LOAD_ERR_NFS = 5,		/* NFS3ERR_* or an RPC-level error */
	LOAD_ERR_VERIFY = 6,		/* read-back differs from what was written */
};

#define NFS3_ERRLEN	512

/* Where the server is and how long to wait for it. */
struct nfs3_server {
	char host[128];			/* as given, for messages */
	struct sockaddr_storage addr;	/* port left 0 */
	socklen_t addrlen;
	uint16_t nfs_port;		/* 0: ask rpcbind */
	uint16_t mount_port;		/* 0: ask rpcbind */
	uint16_t rpcbind_port;		/* 0: 111 (tests run their own) */
	unsigned int timeout_ms;	/* connect and each call */
};

/* One TCP connection carrying one RPC program version. */
struct nfs3_conn {
	CLIENT *clnt;
	const struct nfs3_server *srv;
	rpcprog_t prog;
	rpcvers_t vers;
	uint16_t port;
	unsigned long reconnects;	/* transport re-established */
	enum clnt_stat status;		/* of the last call nfs3_call sent */
};

/**
 * nfs3_server_parse() - resolve "HOST[:PORT]" or "[V6ADDR][:PORT]"
 * @srv: filled; nfs_port is set when PORT is given, else 0
 * @spec: the --server argument
 * @err: message buffer of NFS3_ERRLEN bytes
 *
 * Return: LOAD_OK, LOAD_ERR_USAGE for a malformed port, or
 * LOAD_ERR_UNREACHABLE when the name does not resolve.
 */
enum load_err nfs3_server_parse(struct nfs3_server *srv, const char *spec,
				char *err);

/**
 * nfs3_connect() - open a TCP connection and an AUTH_SYS RPC client on it
 * @c: connection, filled
 * @srv: server; must outlive @c
 * @prog: RPC program
 * @vers: program version
 * @port: TCP port
 * @err: message buffer
 *
 * As root, a reserved source port is used, as the kernel client does, so
 * that exports with the "secure" option accept the calls.
 *
 * Return: LOAD_OK, or LOAD_ERR_UNREACHABLE.
 */
enum load_err nfs3_connect(struct nfs3_conn *c, const struct nfs3_server *srv,
			   rpcprog_t prog, rpcvers_t vers, uint16_t port,
			   char *err);

/**
 * nfs3_open_socket() - a TCP socket connected to @port on @srv within
 * @timeout_ms, from a reserved port when root, with TCP_NODELAY
 * @srv: server
 * @prog: RPC program, for messages
 * @port: TCP port
 * @timeout_ms: connect budget
 * @fdp: out, the blocking socket
 * @err: message buffer
 *
 * Return: LOAD_OK, LOAD_ERR_INTERNAL or LOAD_ERR_UNREACHABLE.
 */
enum load_err nfs3_open_socket(const struct nfs3_server *srv, rpcprog_t prog,
			       uint16_t port, unsigned int timeout_ms,
			       int *fdp, char *err);

/**
 * nfs3_prog_name() - "nfs", "mountd", "rpcbind" for messages
 * @prog: RPC program
 *
 * Return: static text.
 */
const char *nfs3_prog_name(rpcprog_t prog);

/**
 * nfs3_disconnect() - destroy the client and close its socket
 * @c: connection; may be unconnected
 */
void nfs3_disconnect(struct nfs3_conn *c);

/**
 * nfs3_call() - one RPC call with the server's timeout
 * @c: connection
 * @proc: procedure number
 * @xargs: argument encoder
 * @args: arguments
 * @xres: result decoder
 * @res: result, zeroed by the caller; free with xdr_free(@xres, @res)
 * @rtt_us: out, optional: the round trip of the call that succeeded
 * @err: message buffer
 *
 * When the connection breaks (server restarted, connection reset) the call
 * reconnects and resends it until the timeout, as a real client does; all
 * procedures nfswb-load sends are idempotent.
 *
 * Return: LOAD_OK, LOAD_ERR_UNREACHABLE on timeout or when reconnecting
 * fails, LOAD_ERR_NFS for any other RPC error (its clnt_stat is left in
 * @c->status, and @c stays connected).
 */
enum load_err nfs3_call(struct nfs3_conn *c, rpcproc_t proc, xdrproc_t xargs,
			void *args, xdrproc_t xres, void *res,
			uint64_t *rtt_us, char *err);

/**
 * nfs3_stat_name() - "NFS3ERR_NOSPC" for NFS3ERR_NOSPC
 * @status: an nfsstat3
 *
 * Return: the RFC 1813 name, or "NFS3ERR_<number>" for an unknown one
 * (static storage, not thread safe for unknown codes).
 */
const char *nfs3_stat_name(nfsstat3 status);

/**
 * mnt3_stat_name() - "MNT3ERR_ACCES" for MNT3ERR_ACCES
 * @status: a mountstat3
 *
 * Return: the RFC 1813 name, or "MNT3ERR_<number>" for an unknown one.
 */
const char *mnt3_stat_name(mountstat3 status);

#endif /* NFSWB_NFS3_CLIENT_H */
