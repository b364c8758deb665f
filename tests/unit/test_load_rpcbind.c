// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_load_rpcbind.c - nfswb-load's port lookups (tools/load/rpcbind.c)
 * against fake rpcbinds in child processes, as rpc.mountd registers with
 * the real one: its IPv4 and IPv6 listeners on ports of their own, so
 * portmap v2 GETPORT names the IPv4 port and an IPv6 connect to it is
 * refused (the lab's manyclients failure against fe80::1%eth0).
 *
 * Each fake speaks the rpcbind versions a case gives it and answers
 * GETADDR by program and netid from a table; the test listens on the
 * ports it hands out.  Also the universal-address parser, table-tested.
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <rpc/rpc.h>
#include <rpc/pmap_prot.h>
#include <rpc/rpcb_prot.h>

#include "rpcbind.h"
#include "test.h"

/* Programs the fakes know nothing of, or answer badly for. */
#define PROG_UNREGISTERED	400000
#define PROG_LONG_UADDR		400001
#define PROG_BAD_UADDR		400002

struct fake_map {
	rpcprog_t prog;
	const char *netid;	/* NULL: the portmap v2 answer */
	char uaddr[512];	/* GETADDR's reply */
	unsigned long port;	/* GETPORT's reply */
};

#define FAKE_MAPS	8
static struct fake_map fake_maps[FAKE_MAPS];
static size_t fake_nmaps;

static void fake_add(rpcprog_t prog, const char *netid, const char *uaddr,
		     unsigned long port)
{
	struct fake_map *m = &fake_maps[fake_nmaps++];

	m->prog = prog;
	m->netid = netid;
	snprintf(m->uaddr, sizeof(m->uaddr), "%s", uaddr ? uaddr : "");
	m->port = port;
}

static void fake_dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	if (rq->rq_vers == PMAPVERS && rq->rq_proc == PMAPPROC_GETPORT) {
		struct pmap args = { 0 };
		u_long port = 0;

		if (!svc_getargs(xprt, (xdrproc_t)xdr_pmap, (char *)&args)) {
			svcerr_decode(xprt);
			return;
		}
		for (size_t i = 0; i < fake_nmaps; i++)
			if (!fake_maps[i].netid &&
			    fake_maps[i].prog == args.pm_prog)
				port = fake_maps[i].port;
		svc_sendreply(xprt, (xdrproc_t)xdr_u_long, (char *)&port);
		return;
	}
	if (rq->rq_vers != PMAPVERS && rq->rq_proc == RPCBPROC_GETADDR) {
		struct rpcb args = { 0 };
		char *uaddr = (char *)"";

		if (!svc_getargs(xprt, (xdrproc_t)xdr_rpcb, (char *)&args)) {
			svcerr_decode(xprt);
			return;
		}
		for (size_t i = 0; i < fake_nmaps; i++)
			if (fake_maps[i].netid &&
			    fake_maps[i].prog == args.r_prog &&
			    !strcmp(fake_maps[i].netid, args.r_netid))
				uaddr = fake_maps[i].uaddr;
		svc_sendreply(xprt, (xdrproc_t)xdr_wrapstring, (char *)&uaddr);
		svc_freeargs(xprt, (xdrproc_t)xdr_rpcb, (char *)&args);
		return;
	}
	svcerr_noproc(xprt);
}

/* A listening TCP socket on @family's loopback; its port in @port. */
static int listen_loopback(int family, uint16_t *port)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6)
					   : sizeof(struct sockaddr_in);
	int fd;

	if (family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	else
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET6
		      ? ((struct sockaddr_in6 *)&ss)->sin6_port
		      : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* What fake_serve() serves: its listening socket and rpcbind versions. */
static int fake_fd;
static rpcvers_t fake_lo, fake_hi;

static void fake_serve(void)
{
	SVCXPRT *xprt;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	xprt = svc_vc_create(fake_fd, 0, 0);
	if (!xprt)
		return;
	for (rpcvers_t v = fake_lo; v <= fake_hi; v++)
		if (!svc_reg(xprt, RPCBPROG, v, fake_dispatch, NULL))
			return;
	svc_run();
}

/*
 * Start a fake rpcbind on @family's loopback speaking versions @lo..@hi
 * of program 100000, answering from fake_maps; its port in @port.
 */
static pid_t fake_start(int family, rpcvers_t lo, rpcvers_t hi,
			uint16_t *port)
{
	pid_t pid;

	fake_fd = listen_loopback(family, port);
	if (fake_fd < 0) {
		fprintf(stderr, "fake rpcbind: %s\n", strerror(errno));
		exit(T_EXIT_FAIL);
	}
	fake_lo = lo;
	fake_hi = hi;
	pid = t_fork(fake_serve);
	close(fake_fd);
	return pid;
}

static void fake_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void uaddr_of(char *buf, size_t size, const char *host, uint16_t port)
{
	snprintf(buf, size, "%s.%u.%u", host, port >> 8, port & 0xff);
}

static struct nfs3_server server_at(const char *host, uint16_t rpcbind_port)
{
	struct nfs3_server srv = { 0 };
	char err[NFS3_ERRLEN];

	if (nfs3_server_parse(&srv, host, err) != LOAD_OK) {
		fprintf(stderr, "%s\n", err);
		exit(T_EXIT_FAIL);
	}
	srv.rpcbind_port = rpcbind_port;
	srv.timeout_ms = 5000;
	return srv;
}

/* nfs3_getport() must give @want and a connection to it must work. */
static void expect_port(const char *what, const struct nfs3_server *srv,
			rpcprog_t prog, uint16_t want)
{
	char err[NFS3_ERRLEN] = "";
	uint16_t port = 0;
	enum load_err rc;
	int fd;

	rc = nfs3_getport(srv, prog, 3, &port, err);
	T_CHECK(rc == LOAD_OK, "%s: lookup failed (%d): %s", what, rc, err);
	if (rc != LOAD_OK)
		return;
	T_CHECK(port == want, "%s: port %u, expected %u", what, port, want);
	rc = nfs3_open_socket(srv, prog, port, srv->timeout_ms, &fd, err);
	T_CHECK(rc == LOAD_OK, "%s: %s", what, err);
	if (rc == LOAD_OK)
		close(fd);
	else
		return;
	printf("ok: %s: port %u\n", what, port);
}

static void expect_error(const char *what, const struct nfs3_server *srv,
			 rpcprog_t prog, const char *message)
{
	char err[NFS3_ERRLEN] = "";
	uint16_t port = 0;
	enum load_err rc;

	rc = nfs3_getport(srv, prog, 3, &port, err);
	T_CHECK(rc == LOAD_ERR_UNREACHABLE, "%s: exit code %d, port %u", what,
		rc, port);
	T_CHECK(strstr(err, message), "%s: message \"%s\" lacks \"%s\"", what,
		err, message);
	if (rc == LOAD_ERR_UNREACHABLE && strstr(err, message))
		printf("ok: %s: %s\n", what, err);
}

static void test_uaddr_parse(void)
{
	static const struct {
		const char *uaddr;
		int rc;
		uint16_t port;
	} cases[] = {
		{ "fe80::1.137.121", 0, 35193 },
		{ "fe80::1%eth0.137.121", 0, 35193 },
		{ "127.0.0.1.8.1", 0, 2049 },
		{ "::1.0.111", 0, 111 },
		{ "::.255.255", 0, 65535 },
		{ "", -1, 0 },			/* empty */
		{ "fe80::1", -1, 0 },		/* no dots */
		{ "::1.137", -1, 0 },		/* one octet */
		{ ".137.121", -1, 0 },		/* no address */
		{ "::1.256.1", -1, 0 },		/* port octet > 255 */
		{ "::1.1.256", -1, 0 },
		{ "::1.1.1000", -1, 0 },
		{ "::1..1", -1, 0 },
		{ "::1.1.", -1, 0 },
		{ "::1.+1.2", -1, 0 },
		{ "::1.1.2 ", -1, 0 },
		{ "::1.0.0", -1, 0 },		/* port 0 */
	};
	char longest[NFS3_UADDR_MAX + 2];
	uint16_t port;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		port = 0;
		rc = nfs3_uaddr_port(cases[i].uaddr, &port);
		T_CHECK(rc == cases[i].rc, "\"%s\": %d, expected %d",
			cases[i].uaddr, rc, cases[i].rc);
		if (rc == 0 && cases[i].rc == 0)
			T_CHECK(port == cases[i].port, "\"%s\": port %u, expected %u",
				cases[i].uaddr, port, cases[i].port);
	}
	/* Exactly the limit passes; one more character is too long. */
	memset(longest, 'f', sizeof(longest));
	memcpy(longest + NFS3_UADDR_MAX - 4, ".1.2", 5);
	T_CHECK(nfs3_uaddr_port(longest, &port) == 0 && port == 258,
		"%zu characters refused", strlen(longest));
	memset(longest, 'f', sizeof(longest));
	memcpy(longest + NFS3_UADDR_MAX - 3, ".1.2", 5);
	T_CHECK(nfs3_uaddr_port(longest, &port) == -1,
		"%zu characters accepted", strlen(longest));
	printf("ok: universal addresses\n");
}

int main(void)
{
	uint16_t mountd6, mountd4, nfs6, rpcbind;
	int fd_m6, fd_m4, fd_n6;
	char ua[64], toolong[300];
	struct nfs3_server srv;
	pid_t pid;

	test_uaddr_parse();

	/* mountd's two listeners and nfsd's IPv6 one, as the test's own. */
	fd_m6 = listen_loopback(AF_INET6, &mountd6);
	if (fd_m6 < 0)
		T_SKIP("no IPv6 loopback (::1): %s", strerror(errno));
	fd_m4 = listen_loopback(AF_INET, &mountd4);
	fd_n6 = listen_loopback(AF_INET6, &nfs6);
	if (fd_m4 < 0 || fd_n6 < 0) {
		perror("listen");
		return T_EXIT_FAIL;
	}

	uaddr_of(ua, sizeof(ua), "::1", mountd6);
	fake_add(MOUNT_PROGRAM, "tcp6", ua, 0);
	uaddr_of(ua, sizeof(ua), "127.0.0.1", mountd4);
	fake_add(MOUNT_PROGRAM, "tcp", ua, 0);
	fake_add(MOUNT_PROGRAM, NULL, NULL, mountd4);
	uaddr_of(ua, sizeof(ua), "::", nfs6);	/* a wildcard answer */
	fake_add(NFS_PROGRAM, "tcp6", ua, 0);
	fake_add(NFS_PROGRAM, NULL, NULL, mountd4);
	memset(toolong, '1', sizeof(toolong) - 1);
	toolong[sizeof(toolong) - 1] = '\0';
	fake_add(PROG_LONG_UADDR, "tcp6", toolong, 0);
	fake_add(PROG_BAD_UADDR, "tcp6", "::1.300.1", 0);

	/* rpcbind v2-v4 on ::1: GETADDR tcp6, not the IPv4 GETPORT answer. */
	pid = fake_start(AF_INET6, PMAPVERS, RPCBVERS4, &rpcbind);
	srv = server_at("::1", rpcbind);
	expect_port("IPv6, rpcbind v4: mountd", &srv, MOUNT_PROGRAM, mountd6);
	expect_port("IPv6, rpcbind v4: nfs", &srv, NFS_PROGRAM, nfs6);
	expect_error("IPv6: not registered", &srv, PROG_UNREGISTERED,
		     "rpc version 3 over tcp6 is not registered with rpcbind on ::1");
	expect_error("IPv6: a reply too long", &srv, PROG_LONG_UADDR,
		     "not a string of at most");
	expect_error("IPv6: a bad universal address", &srv, PROG_BAD_UADDR,
		     "is at \"::1.300.1\", not a universal address");
	fake_stop(pid);

	/* rpcbind v3 only: the v4 call is refused, v3 answers. */
	pid = fake_start(AF_INET6, RPCBVERS, RPCBVERS, &rpcbind);
	srv = server_at("::1", rpcbind);
	expect_port("IPv6, rpcbind v3", &srv, MOUNT_PROGRAM, mountd6);
	fake_stop(pid);

	/* Portmap v2 only: it cannot name an IPv6 port. */
	pid = fake_start(AF_INET6, PMAPVERS, PMAPVERS, &rpcbind);
	srv = server_at("::1", rpcbind);
	expect_error("IPv6, portmap v2 only", &srv, MOUNT_PROGRAM,
		     "speaks only portmap version 2");
	fake_stop(pid);

	/* IPv4: GETADDR with netid tcp, or GETPORT from an old portmapper. */
	fake_nmaps = 0;
	uaddr_of(ua, sizeof(ua), "127.0.0.1", mountd4);
	fake_add(MOUNT_PROGRAM, "tcp", ua, 0);
	fake_add(MOUNT_PROGRAM, NULL, NULL, nfs6);	/* must not be asked */
	pid = fake_start(AF_INET, PMAPVERS, RPCBVERS4, &rpcbind);
	srv = server_at("127.0.0.1", rpcbind);
	expect_port("IPv4, rpcbind v4", &srv, MOUNT_PROGRAM, mountd4);
	fake_stop(pid);

	fake_nmaps = 0;
	fake_add(MOUNT_PROGRAM, NULL, NULL, mountd4);
	pid = fake_start(AF_INET, PMAPVERS, PMAPVERS, &rpcbind);
	srv = server_at("127.0.0.1", rpcbind);
	expect_port("IPv4, portmap v2 only", &srv, MOUNT_PROGRAM, mountd4);
	expect_error("IPv4, portmap v2: not registered", &srv,
		     PROG_UNREGISTERED, "not registered with portmap on 127.0.0.1");
	fake_stop(pid);

	close(fd_m6);
	close(fd_m4);
	close(fd_n6);
	return t_result();
}
