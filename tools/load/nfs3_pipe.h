/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfs3_pipe.h - several RPC calls in flight on one TCP connection, as a
 * kernel client keeps many WRITEs outstanding; libtirpc's CLIENT allows one
 * call at a time.  The calls are encoded here (record marking, call header,
 * AUTH_SYS) and the replies matched to them by XID, in whatever order the
 * server sends them.
 *
 * The caller sends up to depth calls and reaps replies one at a time.  All
 * calls in flight together must have replies of one type (WRITE3res, say),
 * since the decoder is given when reaping.  A broken connection is
 * reopened and every call in flight sent again (nfswb-load sends only
 * idempotent procedures), within each call's timeout.
 *
 * Replies are small (WRITE, COMMIT), so depth of them fit the socket's
 * receive buffer: sending may block without deadlocking the server.
 */
#ifndef NFSWB_NFS3_PIPE_H
#define NFSWB_NFS3_PIPE_H

#include "nfs3_client.h"

/* Most calls in flight on one connection (see the note above). */
#define NFS3_PIPE_MAX_DEPTH	64

struct nfs3_pipe_slot;

struct nfs3_pipe {
	const struct nfs3_server *srv;
	rpcprog_t prog;
	rpcvers_t vers;
	uint16_t port;
	int fd;				/* -1 while disconnected */
	AUTH *auth;
	uint32_t next_xid;
	unsigned int depth;
	unsigned int in_flight;
	unsigned int max_in_flight;	/* the most there ever were */
	unsigned long reconnects;
	struct nfs3_pipe_slot *slots;	/* depth of them */
	char *rbuf;			/* one reply record */
};

/**
 * nfs3_pipe_open() - connect a pipe for up to @depth calls in flight
 * @p: pipe, filled
 * @srv: server; must outlive @p
 * @prog: RPC program
 * @vers: program version
 * @port: TCP port
 * @depth: 1 to NFS3_PIPE_MAX_DEPTH
 * @err: message buffer
 *
 * Return: LOAD_OK, LOAD_ERR_INTERNAL or LOAD_ERR_UNREACHABLE.
 */
enum load_err nfs3_pipe_open(struct nfs3_pipe *p,
			     const struct nfs3_server *srv, rpcprog_t prog,
			     rpcvers_t vers, uint16_t port, unsigned int depth,
			     char *err);

/**
 * nfs3_pipe_close() - close the connection and free the pipe's buffers
 * @p: pipe; may be unopened (zeroed) or already closed
 */
void nfs3_pipe_close(struct nfs3_pipe *p);

/**
 * nfs3_pipe_send() - send one call in a free slot
 * @p: pipe with in_flight < depth
 * @proc: procedure number
 * @xargs: argument encoder
 * @args: arguments, encoded before this returns
 * @tag: the caller's note for the call, returned by nfs3_pipe_reap()
 * @err: message buffer
 *
 * Return: LOAD_OK, LOAD_ERR_UNREACHABLE when the connection cannot be
 * reopened in time, LOAD_ERR_INTERNAL when out of memory or slots.
 */
enum load_err nfs3_pipe_send(struct nfs3_pipe *p, rpcproc_t proc,
			     xdrproc_t xargs, void *args, uint64_t tag,
			     char *err);

/**
 * nfs3_pipe_reap() - wait for the reply to any call in flight
 * @p: pipe with in_flight > 0
 * @until_us: give up quietly at this nfswb_now_us() time; 0 waits as long
 *	as the oldest call's timeout
 * @xres: result decoder of every call in flight
 * @res: result, zeroed here; free with xdr_free(@xres, @res) after a reply
 * @res_size: sizeof(*@res)
 * @got: out, whether a reply came (false: @until_us came first)
 * @tag: out, the tag the call was sent with
 * @rtt_us: out, from the (last) send of the call to its reply
 * @err: message buffer
 *
 * Return: LOAD_OK; LOAD_ERR_UNREACHABLE when the oldest call timed out or
 * the connection could not be reopened; LOAD_ERR_NFS for an RPC-level
 * error or a reply that does not decode (that call is then finished, and
 * nothing is left to free).
 */
enum load_err nfs3_pipe_reap(struct nfs3_pipe *p, uint64_t until_us,
			     xdrproc_t xres, void *res, size_t res_size,
			     bool *got, uint64_t *tag, uint64_t *rtt_us,
			     char *err);

#endif /* NFSWB_NFS3_PIPE_H */
