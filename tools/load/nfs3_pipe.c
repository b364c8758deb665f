// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfs3_pipe.c - pipelined RPC calls over one TCP connection for
 * nfswb-load's --iodepth; see nfs3_pipe.h.
 *
 * Calls are built with libtirpc's own XDR routines (xdr_callhdr,
 * AUTH_MARSHALL, xdr_replymsg, _seterr_reply) into memory, framed with
 * RFC 5531 record marking, and written to a non-blocking socket under
 * poll(2) so that every wait is bounded by a call's timeout.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfs3_pipe.h"

/* WRITE and COMMIT replies are a few hundred bytes. */
#define NFS3_PIPE_MAX_REPLY	(64 * 1024)
/* Record mark, call header, AUTH_SYS credential and verifier. */
#define NFS3_PIPE_CALL_SLACK	1024
#define NFS3_PIPE_RECONNECT_PAUSE_US	200000

struct nfs3_pipe_slot {
	bool busy;
	uint32_t xid;
	uint64_t tag;
	uint64_t t_sent;		/* the last time it was sent */
	uint64_t deadline;		/* its timeout, from the first send */
	char *buf;			/* the encoded call, record mark first */
	size_t len, cap;
};

/* How a socket wait ended. */
enum io_end {
	IO_DONE,
	IO_BROKEN,			/* reset, EOF: reconnect and resend */
	IO_TIMEOUT,
	IO_GARBLED,			/* the stream is out of step */
};

static int ms_left(uint64_t deadline)
{
	uint64_t now = nfswb_now_us();

	if (now >= deadline)
		return 0;
	return (int)((deadline - now + 999) / 1000);
}

static enum io_end wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int rc;

	do {
		rc = poll(&pfd, 1, ms_left(deadline));
	} while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return IO_TIMEOUT;
	return rc < 0 ? IO_BROKEN : IO_DONE;
}

static enum io_end write_all(int fd, const char *buf, size_t len,
			     uint64_t deadline)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		enum io_end e;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return IO_BROKEN;
		e = wait_fd(fd, POLLOUT, deadline);
		if (e != IO_DONE)
			return e;
	}
	return IO_DONE;
}

static enum io_end read_all(int fd, char *buf, size_t len, uint64_t deadline)
{
	while (len) {
		ssize_t n = read(fd, buf, len);
		enum io_end e;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return IO_BROKEN;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return IO_BROKEN;
		e = wait_fd(fd, POLLIN, deadline);
		if (e != IO_DONE)
			return e;
	}
	return IO_DONE;
}

/* One reply record into p->rbuf, its fragments joined. */
static enum io_end read_record(struct nfs3_pipe *p, uint64_t deadline,
			       size_t *lenp)
{
	size_t len = 0;
	uint32_t mark;

	do {
		size_t frag;
		enum io_end e = read_all(p->fd, (char *)&mark, sizeof(mark),
					 deadline);

		if (e != IO_DONE)
			return e;
		mark = ntohl(mark);
		frag = mark & 0x7fffffffu;
		if (frag > NFS3_PIPE_MAX_REPLY - len)
			return IO_GARBLED;
		e = read_all(p->fd, p->rbuf + len, frag, deadline);
		if (e != IO_DONE)
			return e;
		len += frag;
	} while (!(mark & 0x80000000u));
	*lenp = len;
	return IO_DONE;
}

static void drop_connection(struct nfs3_pipe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/*
 * Reopen the connection and send every call in flight again, until
 * @deadline.  A server that restarted has forgotten them all.
 */
static enum load_err reconnect(struct nfs3_pipe *p, uint64_t deadline,
			       char *err)
{
	char cerr[NFS3_ERRLEN] = "";

	for (;;) {
		unsigned int i;
		enum io_end e = IO_DONE;
		int left = ms_left(deadline), fd;

		drop_connection(p);
		if (!left)
			break;
		if (nfs3_open_socket(p->srv, p->prog, p->port,
				     (unsigned int)left, &fd, cerr) != LOAD_OK) {
			usleep(NFS3_PIPE_RECONNECT_PAUSE_US);
			continue;
		}
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
			close(fd);
			continue;
		}
		p->fd = fd;
		p->reconnects++;
		for (i = 0; i < p->depth && e == IO_DONE; i++) {
			struct nfs3_pipe_slot *s = &p->slots[i];

			if (!s->busy)
				continue;
			s->t_sent = nfswb_now_us();
			e = write_all(p->fd, s->buf, s->len, deadline);
		}
		if (e == IO_DONE)
			return LOAD_OK;
	}
	snprintf(err, NFS3_ERRLEN,
		 "%s at %s port %u: lost the connection and could not reconnect within %u ms%s%.200s",
		 nfs3_prog_name(p->prog), p->srv->host, p->port,
		 p->srv->timeout_ms, cerr[0] ? ": " : "", cerr);
	return LOAD_ERR_UNREACHABLE;
}

enum load_err nfs3_pipe_open(struct nfs3_pipe *p,
			     const struct nfs3_server *srv, rpcprog_t prog,
			     rpcvers_t vers, uint16_t port, unsigned int depth,
			     char *err)
{
	enum load_err rc;
	int fd;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->srv = srv;
	p->prog = prog;
	p->vers = vers;
	p->port = port;
	p->depth = depth;
	/* Any start will do: the connection is the pipe's alone. */
	p->next_xid = (uint32_t)nfswb_now_us();
	p->slots = calloc(depth, sizeof(*p->slots));
	p->rbuf = malloc(NFS3_PIPE_MAX_REPLY);
	p->auth = authunix_create_default();
	if (!p->slots || !p->rbuf || !p->auth) {
		snprintf(err, NFS3_ERRLEN, "out of memory for %u calls in flight",
			 depth);
		nfs3_pipe_close(p);
		return LOAD_ERR_INTERNAL;
	}
	rc = nfs3_open_socket(srv, prog, port, srv->timeout_ms, &fd, err);
	if (rc != LOAD_OK) {
		nfs3_pipe_close(p);
		return rc;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		snprintf(err, NFS3_ERRLEN, "fcntl O_NONBLOCK: %s",
			 strerror(errno));
		close(fd);
		nfs3_pipe_close(p);
		return LOAD_ERR_INTERNAL;
	}
	p->fd = fd;
	return LOAD_OK;
}

void nfs3_pipe_close(struct nfs3_pipe *p)
{
	unsigned int i;

	drop_connection(p);
	if (p->slots)
		for (i = 0; i < p->depth; i++)
			free(p->slots[i].buf);
	free(p->slots);
	free(p->rbuf);
	if (p->auth)
		auth_destroy(p->auth);
	p->slots = NULL;
	p->rbuf = NULL;
	p->auth = NULL;
	p->in_flight = 0;
}

static enum load_err encode_call(struct nfs3_pipe *p, struct nfs3_pipe_slot *s,
				 rpcproc_t proc, xdrproc_t xargs, void *args,
				 char *err)
{
	size_t need = xdr_sizeof(xargs, args) + NFS3_PIPE_CALL_SLACK;
	struct rpc_msg m;
	uint32_t mark, proc32 = (uint32_t)proc;
	bool_t ok;
	XDR x;

	if (need > s->cap) {
		char *b = realloc(s->buf, need);

		if (!b) {
			snprintf(err, NFS3_ERRLEN, "out of memory");
			return LOAD_ERR_INTERNAL;
		}
		s->buf = b;
		s->cap = need;
	}
	memset(&m, 0, sizeof(m));
	m.rm_xid = s->xid;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	m.rm_call.cb_prog = p->prog;
	m.rm_call.cb_vers = p->vers;
	xdrmem_create(&x, s->buf + sizeof(mark), (u_int)(s->cap - sizeof(mark)),
		      XDR_ENCODE);
	/* xdr_callhdr stops before the procedure number, as clnt_vc's does. */
	ok = xdr_callhdr(&x, &m) && xdr_u_int32_t(&x, &proc32) &&
	     AUTH_MARSHALL(p->auth, &x) && xargs(&x, args);
	s->len = xdr_getpos(&x);
	xdr_destroy(&x);
	if (!ok) {
		snprintf(err, NFS3_ERRLEN, "%s procedure %u: cannot encode the call",
			 nfs3_prog_name(p->prog), (unsigned int)proc);
		return LOAD_ERR_INTERNAL;
	}
	mark = htonl(0x80000000u | (uint32_t)s->len);
	memcpy(s->buf, &mark, sizeof(mark));
	s->len += sizeof(mark);
	return LOAD_OK;
}

enum load_err nfs3_pipe_send(struct nfs3_pipe *p, rpcproc_t proc,
			     xdrproc_t xargs, void *args, uint64_t tag,
			     char *err)
{
	struct nfs3_pipe_slot *s = NULL;
	enum load_err rc;
	unsigned int i;
	enum io_end e;

	for (i = 0; i < p->depth && !s; i++)
		if (!p->slots[i].busy)
			s = &p->slots[i];
	if (!s) {
		snprintf(err, NFS3_ERRLEN, "all %u call slots are in flight",
			 p->depth);
		return LOAD_ERR_INTERNAL;
	}
	s->xid = p->next_xid++;
	s->tag = tag;
	rc = encode_call(p, s, proc, xargs, args, err);
	if (rc != LOAD_OK)
		return rc;
	s->t_sent = nfswb_now_us();
	s->deadline = s->t_sent + (uint64_t)p->srv->timeout_ms * 1000;
	s->busy = true;
	p->in_flight++;
	if (p->in_flight > p->max_in_flight)
		p->max_in_flight = p->in_flight;

	e = p->fd < 0 ? IO_BROKEN : write_all(p->fd, s->buf, s->len, s->deadline);
	if (e == IO_DONE)
		return LOAD_OK;
	if (e == IO_TIMEOUT) {
		/* Part of a record may have gone: the stream is lost. */
		drop_connection(p);
		snprintf(err, NFS3_ERRLEN,
			 "%s at %s port %u: could not send procedure %u within %u ms",
			 nfs3_prog_name(p->prog), p->srv->host, p->port,
			 (unsigned int)proc, p->srv->timeout_ms);
		return LOAD_ERR_UNREACHABLE;
	}
	/* reconnect() sends this call again with the others. */
	return reconnect(p, s->deadline, err);
}

static struct nfs3_pipe_slot *oldest(struct nfs3_pipe *p)
{
	struct nfs3_pipe_slot *o = NULL;
	unsigned int i;

	for (i = 0; i < p->depth; i++)
		if (p->slots[i].busy &&
		    (!o || p->slots[i].deadline < o->deadline))
			o = &p->slots[i];
	return o;
}

static struct nfs3_pipe_slot *slot_of(struct nfs3_pipe *p, uint32_t xid)
{
	unsigned int i;

	for (i = 0; i < p->depth; i++)
		if (p->slots[i].busy && p->slots[i].xid == xid)
			return &p->slots[i];
	return NULL;
}

/* Decode the reply in p->rbuf for slot @s, which is finished either way. */
static enum load_err decode_reply(struct nfs3_pipe *p,
				  struct nfs3_pipe_slot *s, size_t len,
				  xdrproc_t xres, void *res, char *err)
{
	struct rpc_msg r;
	struct rpc_err re;
	bool_t ok;
	XDR x;

	memset(&r, 0, sizeof(r));
	r.acpted_rply.ar_verf = _null_auth;
	r.acpted_rply.ar_results.where = res;
	r.acpted_rply.ar_results.proc = xres;
	xdrmem_create(&x, p->rbuf, (u_int)len, XDR_DECODE);
	ok = xdr_replymsg(&x, &r);
	xdr_destroy(&x);
	s->busy = false;
	p->in_flight--;
	if (r.rm_reply.rp_stat == MSG_ACCEPTED && r.acpted_rply.ar_verf.oa_base)
		xdr_free((xdrproc_t)xdr_opaque_auth,
			 (char *)&r.acpted_rply.ar_verf);
	if (!ok) {
		xdr_free(xres, res);
		snprintf(err, NFS3_ERRLEN, "%s at %s: a reply that does not decode",
			 nfs3_prog_name(p->prog), p->srv->host);
		return LOAD_ERR_NFS;
	}
	_seterr_reply(&r, &re);
	if (re.re_status != RPC_SUCCESS) {
		xdr_free(xres, res);
		snprintf(err, NFS3_ERRLEN, "%s at %s: RPC: %s",
			 nfs3_prog_name(p->prog), p->srv->host,
			 clnt_sperrno(re.re_status));
		return LOAD_ERR_NFS;
	}
	return LOAD_OK;
}

enum load_err nfs3_pipe_reap(struct nfs3_pipe *p, uint64_t until_us,
			     xdrproc_t xres, void *res, size_t res_size,
			     bool *got, uint64_t *tag, uint64_t *rtt_us,
			     char *err)
{
	*got = false;
	for (;;) {
		struct nfs3_pipe_slot *o = oldest(p), *s;
		uint64_t limit;
		uint32_t xid;
		size_t len = 0;	/* set by read_record(); 0 skips the reply */
		enum io_end e;
		enum load_err rc;

		if (!o) {
			snprintf(err, NFS3_ERRLEN, "no call in flight");
			return LOAD_ERR_INTERNAL;
		}
		if (p->fd < 0) {
			rc = reconnect(p, o->deadline, err);
			if (rc != LOAD_OK)
				return rc;
		}
		limit = until_us && until_us < o->deadline ? until_us : o->deadline;
		/* @until_us bounds the wait for a reply to begin, not the
		 * reading of one that has. */
		e = wait_fd(p->fd, POLLIN, limit);
		if (e == IO_TIMEOUT && limit == until_us)
			return LOAD_OK;
		if (e == IO_DONE)
			e = read_record(p, o->deadline, &len);
		if (e == IO_TIMEOUT) {
			drop_connection(p);
			snprintf(err, NFS3_ERRLEN,
				 "%s at %s port %u: no reply within %u ms",
				 nfs3_prog_name(p->prog), p->srv->host, p->port,
				 p->srv->timeout_ms);
			return LOAD_ERR_UNREACHABLE;
		}
		if (e == IO_GARBLED) {
			drop_connection(p);
			snprintf(err, NFS3_ERRLEN,
				 "%s at %s port %u: a reply record of more than %u bytes",
				 nfs3_prog_name(p->prog), p->srv->host, p->port,
				 NFS3_PIPE_MAX_REPLY);
			return LOAD_ERR_NFS;
		}
		if (e == IO_BROKEN) {
			drop_connection(p);
			continue;
		}
		if (len < sizeof(xid))
			continue;
		memcpy(&xid, p->rbuf, sizeof(xid));
		s = slot_of(p, ntohl(xid));
		if (!s)
			continue;	/* a reply to a call sent twice */
		memset(res, 0, res_size);
		*tag = s->tag;
		*rtt_us = nfswb_now_us() - s->t_sent;
		rc = decode_reply(p, s, len, xres, res, err);
		if (rc == LOAD_OK)
			*got = true;
		return rc;
	}
}
