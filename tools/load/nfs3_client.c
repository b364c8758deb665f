// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfs3_client.c - TCP RPC connections for nfswb-load over libtirpc.
 *
 * libtirpc's own connection helpers (clnt_create, clnt_tp_create) connect
 * with a blocking connect(2) and look ports up with a fixed 60-second
 * rpcbind timeout, so an unreachable server would stall the tool for
 * minutes.  Here the socket is connected non-blocking under the --timeout
 * budget and then handed to clnt_vc_create(); rpcbind is asked with an
 * ordinary call on such a connection (rpcbind.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "nfs3_client.h"

#include <rpc/pmap_prot.h>

/* Record buffers: big enough that a 1 MiB WRITE is four fragments. */
#define NFS3_XPRT_BUFSZ		(256 * 1024)
/* Pause between reconnect attempts while a server restarts. */
#define NFS3_RECONNECT_PAUSE_MS	200

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

enum load_err nfs3_server_parse(struct nfs3_server *srv, const char *spec,
				char *err)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *ai = NULL;
	const char *colon = NULL;
	size_t hostlen;
	int rc;

	srv->nfs_port = 0;
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close == spec + 1 ||
		    (close[1] && close[1] != ':')) {
			snprintf(err, NFS3_ERRLEN,
				 "--server %s: expected [ADDRESS]:PORT", spec);
			return LOAD_ERR_USAGE;
		}
		hostlen = (size_t)(close - spec - 1);
		if (hostlen >= sizeof(srv->host))
			goto toolong;
		memcpy(srv->host, spec + 1, hostlen);
		if (close[1])
			colon = close + 1;
	} else {
		colon = strchr(spec, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;	/* a bare IPv6 address */
		hostlen = colon ? (size_t)(colon - spec) : strlen(spec);
		if (hostlen >= sizeof(srv->host))
			goto toolong;
		memcpy(srv->host, spec, hostlen);
	}
	srv->host[hostlen] = '\0';
	if (!hostlen) {
		snprintf(err, NFS3_ERRLEN, "--server %s: no host name", spec);
		return LOAD_ERR_USAGE;
	}
	if (colon && parse_port(colon + 1, &srv->nfs_port)) {
		snprintf(err, NFS3_ERRLEN,
			 "--server %s: port must be a number from 1 to 65535",
			 spec);
		return LOAD_ERR_USAGE;
	}

	rc = getaddrinfo(srv->host, NULL, &hints, &ai);
	if (rc) {
		snprintf(err, NFS3_ERRLEN, "server %s: %s", srv->host,
			 gai_strerror(rc));
		return LOAD_ERR_UNREACHABLE;
	}
	memcpy(&srv->addr, ai->ai_addr, ai->ai_addrlen);
	srv->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return LOAD_OK;

toolong:
	snprintf(err, NFS3_ERRLEN, "--server: host name too long");
	return LOAD_ERR_USAGE;
}

/*
 * Connect @fd to @sa within @timeout_ms.  connect(2) on a blocking socket
 * may wait for the kernel's SYN retries (minutes), hence O_NONBLOCK and
 * poll(2); the socket is made blocking again for libtirpc, which bounds
 * its own reads with poll.
 */
static int connect_timed(int fd, const struct sockaddr *sa, socklen_t len,
			 unsigned int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int flags, soerr = 0;
	socklen_t slen = sizeof(soerr);
	int rc;

	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -1;
	if (connect(fd, sa, len) < 0) {
		if (errno != EINPROGRESS)
			return -1;
		do {
			rc = poll(&pfd, 1, (int)timeout_ms);
		} while (rc < 0 && errno == EINTR);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) < 0)
			return -1;
		if (soerr) {
			errno = soerr;
			return -1;
		}
	}
	return fcntl(fd, F_SETFL, flags);
}

const char *nfs3_prog_name(rpcprog_t prog)
{
	switch (prog) {
	case NFS_PROGRAM:
		return "nfs";
	case MOUNT_PROGRAM:
		return "mountd";
	case PMAPPROG:
		return "rpcbind";
	default:
		return "rpc";
	}
}

enum load_err nfs3_open_socket(const struct nfs3_server *srv, rpcprog_t prog,
			       uint16_t port, unsigned int timeout_ms,
			       int *fdp, char *err)
{
	struct sockaddr_storage ss = srv->addr;
	int one = 1;
	int fd;

	set_port(&ss, port);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, NFS3_ERRLEN, "socket: %s", strerror(errno));
		return LOAD_ERR_INTERNAL;
	}
	/*
	 * knfsd's default "secure" export option wants a source port below
	 * 1024; only root can bind one.  Without it the call still works
	 * against servers that do not ask (Ganesha's default).
	 */
	if (geteuid() == 0) {
		struct sockaddr_storage any = { .ss_family = ss.ss_family };

		(void)bindresvport_sa(fd, (struct sockaddr *)&any);
	}
	if (connect_timed(fd, (struct sockaddr *)&ss, srv->addrlen,
			  timeout_ms) < 0) {
		snprintf(err, NFS3_ERRLEN, "cannot connect to %s at %s port %u: %s",
			 nfs3_prog_name(prog), srv->host, port, strerror(errno));
		close(fd);
		return LOAD_ERR_UNREACHABLE;
	}
	/* Small COMMIT and WRITE replies must not wait for Nagle. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*fdp = fd;
	return LOAD_OK;
}

static enum load_err conn_open(struct nfs3_conn *c,
			       const struct nfs3_server *srv, rpcprog_t prog,
			       rpcvers_t vers, uint16_t port,
			       unsigned int timeout_ms, char *err)
{
	struct sockaddr_storage ss = srv->addr;
	struct netbuf nb;
	enum load_err rc;
	int fd;

	c->clnt = NULL;
	c->srv = srv;
	c->prog = prog;
	c->vers = vers;
	c->port = port;
	set_port(&ss, port);
	rc = nfs3_open_socket(srv, prog, port, timeout_ms, &fd, err);
	if (rc != LOAD_OK)
		return rc;

	nb.buf = &ss;
	nb.len = nb.maxlen = srv->addrlen;
	c->clnt = clnt_vc_create(fd, &nb, prog, vers, NFS3_XPRT_BUFSZ,
				 NFS3_XPRT_BUFSZ);
	if (!c->clnt) {
		snprintf(err, NFS3_ERRLEN, "%s at %s port %u: %s",
			 nfs3_prog_name(prog), srv->host, port,
			 clnt_spcreateerror("cannot create RPC client"));
		close(fd);
		return LOAD_ERR_UNREACHABLE;
	}
	clnt_control(c->clnt, CLSET_FD_CLOSE, NULL);
	auth_destroy(c->clnt->cl_auth);
	c->clnt->cl_auth = authunix_create_default();
	if (!c->clnt->cl_auth) {
		snprintf(err, NFS3_ERRLEN, "cannot create AUTH_SYS credentials");
		nfs3_disconnect(c);
		return LOAD_ERR_INTERNAL;
	}
	return LOAD_OK;
}

enum load_err nfs3_connect(struct nfs3_conn *c, const struct nfs3_server *srv,
			   rpcprog_t prog, rpcvers_t vers, uint16_t port,
			   char *err)
{
	c->reconnects = 0;
	c->status = RPC_SUCCESS;
	return conn_open(c, srv, prog, vers, port, srv->timeout_ms, err);
}

void nfs3_disconnect(struct nfs3_conn *c)
{
	if (!c->clnt)
		return;
	if (c->clnt->cl_auth)
		auth_destroy(c->clnt->cl_auth);
	c->clnt->cl_auth = NULL;
	clnt_destroy(c->clnt);
	c->clnt = NULL;
}

static struct timeval ms_to_tv(unsigned int ms)
{
	struct timeval tv = {
		.tv_sec = ms / 1000,
		.tv_usec = (ms % 1000) * 1000,
	};

	return tv;
}

static bool transport_broken(enum clnt_stat st)
{
	return st == RPC_CANTSEND || st == RPC_CANTRECV;
}

enum load_err nfs3_call(struct nfs3_conn *c, rpcproc_t proc, xdrproc_t xargs,
			void *args, xdrproc_t xres, void *res,
			uint64_t *rtt_us, char *err)
{
	uint64_t deadline = nfswb_now_us() + (uint64_t)c->srv->timeout_ms * 1000;
	char cerr[NFS3_ERRLEN] = "";
	enum clnt_stat st;

	for (;;) {
		uint64_t now = nfswb_now_us();
		uint64_t t0;
		unsigned int left_ms;

		if (now >= deadline)
			break;
		left_ms = (unsigned int)((deadline - now + 999) / 1000);
		if (!c->clnt) {
			/* Reconnect within what is left of this call's budget. */
			if (conn_open(c, c->srv, c->prog, c->vers, c->port,
				      left_ms, cerr) != LOAD_OK) {
				usleep(NFS3_RECONNECT_PAUSE_MS * 1000);
				continue;
			}
			c->reconnects++;
			cerr[0] = '\0';
			continue;
		}
		t0 = nfswb_now_us();
		st = clnt_call(c->clnt, proc, xargs, args, xres, res,
			       ms_to_tv(left_ms));
		c->status = st;
		if (st == RPC_SUCCESS) {
			if (rtt_us)
				*rtt_us = nfswb_now_us() - t0;
			return LOAD_OK;
		}
		if (st == RPC_TIMEDOUT)
			break;
		if (!transport_broken(st)) {
			snprintf(err, NFS3_ERRLEN, "%s procedure %u: %s",
				 nfs3_prog_name(c->prog), (unsigned int)proc,
				 clnt_sperror(c->clnt, "RPC"));
			return LOAD_ERR_NFS;
		}
		/* The connection broke: drop it and try again. */
		nfs3_disconnect(c);
	}
	if (cerr[0])
		snprintf(err, NFS3_ERRLEN,
			 "lost the connection and could not reconnect within %u ms: %.400s",
			 c->srv->timeout_ms, cerr);
	else
		snprintf(err, NFS3_ERRLEN,
			 "%s at %s port %u: no reply to procedure %u within %u ms",
			 nfs3_prog_name(c->prog), c->srv->host, c->port,
			 (unsigned int)proc, c->srv->timeout_ms);
	return LOAD_ERR_UNREACHABLE;
}

#define NAME(x)	case x: return #x

const char *nfs3_stat_name(nfsstat3 status)
{
	static __thread char buf[32];

	switch (status) {
	NAME(NFS3_OK);
	NAME(NFS3ERR_PERM);
	NAME(NFS3ERR_NOENT);
	NAME(NFS3ERR_IO);
	NAME(NFS3ERR_NXIO);
	NAME(NFS3ERR_ACCES);
	NAME(NFS3ERR_EXIST);
	NAME(NFS3ERR_XDEV);
	NAME(NFS3ERR_NODEV);
	NAME(NFS3ERR_NOTDIR);
	NAME(NFS3ERR_ISDIR);
	NAME(NFS3ERR_INVAL);
	NAME(NFS3ERR_FBIG);
	NAME(NFS3ERR_NOSPC);
	NAME(NFS3ERR_ROFS);
	NAME(NFS3ERR_MLINK);
	NAME(NFS3ERR_NAMETOOLONG);
	NAME(NFS3ERR_NOTEMPTY);
	NAME(NFS3ERR_DQUOT);
	NAME(NFS3ERR_STALE);
	NAME(NFS3ERR_REMOTE);
	NAME(NFS3ERR_BADHANDLE);
	NAME(NFS3ERR_NOT_SYNC);
	NAME(NFS3ERR_BAD_COOKIE);
	NAME(NFS3ERR_NOTSUPP);
	NAME(NFS3ERR_TOOSMALL);
	NAME(NFS3ERR_SERVERFAULT);
	NAME(NFS3ERR_BADTYPE);
	NAME(NFS3ERR_JUKEBOX);
	}
	snprintf(buf, sizeof(buf), "NFS3ERR_%d", (int)status);
	return buf;
}

const char *mnt3_stat_name(mountstat3 status)
{
	static __thread char buf[32];

	switch (status) {
	NAME(MNT3_OK);
	NAME(MNT3ERR_PERM);
	NAME(MNT3ERR_NOENT);
	NAME(MNT3ERR_IO);
	NAME(MNT3ERR_ACCES);
	NAME(MNT3ERR_NOTDIR);
	NAME(MNT3ERR_INVAL);
	NAME(MNT3ERR_NAMETOOLONG);
	NAME(MNT3ERR_NOTSUPP);
	NAME(MNT3ERR_SERVERFAULT);
	}
	snprintf(buf, sizeof(buf), "MNT3ERR_%d", (int)status);
	return buf;
}
