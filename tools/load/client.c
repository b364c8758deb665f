// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * client.c - what every phase of a simulated client calls with: its
 * failure (the first one counts), pauses that notice a stop, and one NFS
 * call with JUKEBOX resent, over the pipe or the libtirpc connection.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "load.h"

atomic_bool load_interrupted;

bool load_should_stop(struct load_run *run)
{
	return atomic_load(&run->stop) || atomic_load(&load_interrupted);
}

const char *load_stable_name(stable_how s)
{
	switch (s) {
	case UNSTABLE:
		return "unstable";
	case DATA_SYNC:
		return "data_sync";
	case FILE_SYNC:
		return "file_sync";
	}
	return "?";
}

/* Record a failure of client @c; the first one wins, the run winds down. */
enum load_err load_client_fail(struct load_client *c, enum load_err rc,
			       const char *fmt, ...)
{
	va_list ap;

	if (c->rc == LOAD_OK) {
		c->rc = rc;
		va_start(ap, fmt);
		vsnprintf(c->err, sizeof(c->err), fmt, ap);
		va_end(ap);
	}
	atomic_store(&c->run->stop, true);
	return rc;
}

/* Sleep until @t_us on CLOCK_MONOTONIC, waking to notice a stop. */
void load_sleep_until_us(struct load_run *run, uint64_t t_us)
{
	const uint64_t slice_us = 100000;

	while (!load_should_stop(run)) {
		uint64_t now = nfswb_now_us(), until = t_us;
		struct timespec ts;

		if (now >= t_us)
			break;
		if (until - now > slice_us)
			until = now + slice_us;
		ts.tv_sec = (time_t)(until / 1000000);
		ts.tv_nsec = (long)(until % 1000000) * 1000;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* One call on the pipe, nothing else in flight. */
static enum load_err pipe_call(struct nfs3_pipe *p, rpcproc_t proc,
			       xdrproc_t xargs, void *args, xdrproc_t xres,
			       void *res, size_t res_size, uint64_t *rtt,
			       char *err)
{
	uint64_t tag, t;
	enum load_err rc;
	bool got;

	rc = nfs3_pipe_send(p, proc, xargs, args, 0, err);
	if (rc != LOAD_OK)
		return rc;
	return nfs3_pipe_reap(p, 0, xres, res, res_size, &got, &tag,
			      rtt ? rtt : &t, err);
}

/*
 * One NFS call whose result begins with an nfsstat3.  During the write
 * phase it goes over the pipe (with no WRITE in flight), else over the
 * libtirpc connection.  NFS3ERR_JUKEBOX means "busy, try later" (knfsd
 * answers it while rpc.mountd handles an export upcall): resend after a
 * pause, like a real client, for at most --timeout.  Then, or when the run
 * stops, the caller sees the status.
 */
enum load_err load_client_call(struct load_client *c, rpcproc_t proc,
			       xdrproc_t xargs, void *args, xdrproc_t xres,
			       void *res, size_t res_size, uint64_t *rtt,
			       char *err)
{
	uint64_t limit = (uint64_t)c->run->o->srv.timeout_ms * 1000;
	uint64_t since = 0;
	enum load_err rc;

	for (;;) {
		memset(res, 0, res_size);
		if (c->pipe.slots)
			rc = pipe_call(&c->pipe, proc, xargs, args, xres, res,
				       res_size, rtt, err);
		else
			rc = nfs3_call(&c->conn, proc, xargs, args, xres, res,
				       rtt, err);
		if (rc != LOAD_OK || *(nfsstat3 *)res != NFS3ERR_JUKEBOX)
			return rc;
		if (!since)
			since = nfswb_now_us();
		else if (nfswb_now_us() - since >= limit ||
			 load_should_stop(c->run))
			return LOAD_OK;
		xdr_free(xres, res);
		c->jukebox_retries++;
		load_sleep_until_us(c->run,
				    nfswb_now_us() + LOAD_JUKEBOX_PAUSE_US);
	}
}

/*
 * load_client_call(), and a failure either way (no reply, or a status
 * other than NFS3_OK) ends the client: "LABEL: why", LABEL from @fmt.
 * On LOAD_OK the caller owns @res and frees it; on failure it is freed.
 */
enum load_err load_client_op(struct load_client *c, rpcproc_t proc,
			     xdrproc_t xargs, void *args, xdrproc_t xres,
			     void *res, size_t res_size, uint64_t *rtt,
			     const char *fmt, ...)
{
	char err[NFS3_ERRLEN], label[256];
	nfsstat3 status;
	enum load_err rc;
	va_list ap;

	rc = load_client_call(c, proc, xargs, args, xres, res, res_size, rtt,
			      err);
	if (rc == LOAD_OK && *(nfsstat3 *)res == NFS3_OK)
		return LOAD_OK;
	va_start(ap, fmt);
	vsnprintf(label, sizeof(label), fmt, ap);
	va_end(ap);
	if (rc != LOAD_OK)
		return load_client_fail(c, rc, "%s: %s", label, err);
	status = *(nfsstat3 *)res;
	xdr_free(xres, res);
	return load_client_fail(c, LOAD_ERR_NFS, "%s: %s", label,
				nfs3_stat_name(status));
}
