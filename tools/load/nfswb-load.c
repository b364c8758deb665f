// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfswb-load - an NFSv3 load generator that measures WRITE and COMMIT as a
 * client sees them.
 *
 * Each simulated client is one thread with its own TCP connection and its
 * own file.  It writes the file sequentially with WRITEs of --wsize bytes,
 * paced to --rate, and sends COMMIT for what it wrote unstable, every
 * --commit-every bytes and at the end of each pass over the file (a
 * "close").  Like the Linux client, it keeps the write verifier of each
 * unstable WRITE and, when a COMMIT returns a different one (the server
 * restarted and may have lost the data), writes the range again and
 * recommits.  Nothing is cached on this side, so the numbers depend on the
 * server alone.
 *
 * libtirpc has no asynchronous calls, so the write phase runs on a
 * connection of its own (nfs3_pipe.c) that keeps up to --iodepth WRITEs in
 * flight, as a kernel client does; set-up, read-back and clean-up are one
 * call at a time on the libtirpc one.  See nfswb-load(1).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "latency.h"
#include "pattern.h"
#include "units.h"
#include "nfs3_client.h"
#include "nfs3_pipe.h"

#define LOAD_MAX_CLIENTS	1024
#define LOAD_MAX_WSIZE		(16u << 20)	/* far above any server's wtmax */
#define LOAD_DEFAULT_IOSIZE	(1u << 20)	/* the Linux client's cap */
#define LOAD_DEFAULT_SIZE	(64ull << 20)
#define LOAD_DEFAULT_TIMEOUT_MS	30000
/* More clients than this get no line each in the text output (--json has). */
#define LOAD_TEXT_MAX_CLIENTS	16
/* Pause before resending a call the server answered NFS3ERR_JUKEBOX. */
#define LOAD_JUKEBOX_PAUSE_US	100000
/* A verifier that changes this often means a server that keeps restarting. */
#define LOAD_MAX_RECOMMITS	8

struct load_opts {
	struct nfs3_server srv;
	const char *export;
	unsigned int clients;
	unsigned int iodepth;		/* WRITEs in flight per client */
	uint64_t size;
	uint64_t rate;			/* bytes/s per client, 0 = unpaced */
	uint64_t wsize;			/* 0 = the server's choice */
	uint64_t commit_every;		/* 0 = on close only */
	stable_how stable;
	uint64_t duration_ms;		/* 0 = one pass */
	bool verify;
	bool json;
	bool keep;
};

struct load_run;

/* A WRITE in flight, by its nfs3_pipe tag. */
struct load_io {
	uint64_t off;
	uint32_t len;
	bool busy;
};

struct load_client {
	struct load_run *run;
	unsigned int id;
	pthread_t thread;
	struct nfs3_conn conn;
	struct nfs3_pipe pipe;		/* the write phase's connection */
	struct load_io *ios;		/* iodepth of them */
	uint64_t issued_since_commit;	/* bytes sent in WRITEs */
	uint64_t jukebox_since;		/* first JUKEBOX of a WRITE in a row */
	char name[NAME_MAX + 1];
	nfs_fh3 fh;
	bool created;
	uint64_t key;			/* of the data pattern (pattern.h) */
	uint64_t *pat;			/* pattern scratch, iosize + 2 words */

	/* Unstable data not yet committed: [win_start, win_end). */
	uint64_t win_start, win_end;
	bool win_unstable;
	bool win_have_verf;
	bool win_mixed;			/* writes returned different verifiers */
	char win_verf[NFS3_WRITEVERFSIZE];

	uint64_t extent;		/* bytes from 0 that hold the pattern */
	uint64_t bytes_written, write_ops;
	uint64_t commit_ops;
	uint64_t bytes_read, read_ops;
	uint64_t verifier_changes, rewritten_bytes;
	uint64_t jukebox_retries;
	uint64_t passes;
	unsigned int max_in_flight;	/* the most WRITEs that were */
	struct nfswb_lat write_lat, commit_lat, read_lat;
	uint64_t t_write_start, t_write_end;
	uint64_t t_read_start, t_read_end;
	bool verified;

	enum load_err rc;
	char err[NFS3_ERRLEN];
};

struct load_run {
	const struct load_opts *o;
	nfs_fh3 root;
	uint32_t wsize, rsize;
	uint64_t seed;
	/* The start gate: clients connect and create, then wait for "go". */
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cond;
	unsigned int gate_ready;
	bool gate_open;
	atomic_bool stop;		/* an error or a signal: wind down */
	struct load_client *clients;
};

static atomic_bool interrupted;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&interrupted, true);
}

static bool should_stop(struct load_run *run)
{
	return atomic_load(&run->stop) || atomic_load(&interrupted);
}

static const char *stable_name(stable_how s)
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
static enum load_err client_fail(struct load_client *c, enum load_err rc,
				 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum load_err client_fail(struct load_client *c, enum load_err rc,
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

/* Client @c's pattern for [off, off + len), in its scratch buffer. */
static const uint8_t *pattern_at(struct load_client *c, uint64_t off,
				 size_t len)
{
	return nfswb_pattern_fill(c->pat, c->key, off, len);
}

static void window_reset(struct load_client *c)
{
	c->win_start = c->win_end = 0;
	c->win_unstable = c->win_have_verf = c->win_mixed = false;
}

static void window_note(struct load_client *c, uint64_t off, uint64_t end,
			const WRITE3resok *ok)
{
	/* Replies come in any order; the window spans every one of them. */
	if (c->win_start == c->win_end) {
		c->win_start = off;
		c->win_end = end;
	} else {
		if (off < c->win_start)
			c->win_start = off;
		if (end > c->win_end)
			c->win_end = end;
	}
	if (ok->committed != UNSTABLE)
		return;
	c->win_unstable = true;
	if (!c->win_have_verf) {
		memcpy(c->win_verf, ok->verf, sizeof(c->win_verf));
		c->win_have_verf = true;
	} else if (memcmp(c->win_verf, ok->verf, sizeof(c->win_verf))) {
		c->win_mixed = true;
	}
}

/* Sleep until @t_us on CLOCK_MONOTONIC, waking to notice a stop. */
static void sleep_until_us(struct load_run *run, uint64_t t_us)
{
	const uint64_t slice_us = 100000;

	while (!should_stop(run)) {
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
 * libtirpc connection.  NFS3ERR_JUKEBOX
 * means "busy, try later" (knfsd answers it while rpc.mountd handles an
 * export upcall): resend after a pause, like a real client, for at most
 * --timeout.  Then, or when the run stops, the caller sees the status.
 */
static enum load_err client_call(struct load_client *c, rpcproc_t proc,
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
		else if (nfswb_now_us() - since >= limit || should_stop(c->run))
			return LOAD_OK;
		xdr_free(xres, res);
		c->jukebox_retries++;
		sleep_until_us(c->run, nfswb_now_us() + LOAD_JUKEBOX_PAUSE_US);
	}
}

/* Send a WRITE of [off, off + n) of the pattern. */
static enum load_err write_send(struct load_client *c, uint64_t off,
				uint32_t n)
{
	const struct load_opts *o = c->run->o;
	char err[NFS3_ERRLEN];
	WRITE3args a = {
		.file = c->fh,
		.offset = off,
		.count = n,
		.stable = o->stable,
		.data.data_len = n,
		.data.data_val = (char *)pattern_at(c, off, n),
	};
	unsigned int i;
	enum load_err rc;

	for (i = 0; c->ios[i].busy; i++)
		;	/* the pipe has a free slot, so there is one */
	c->ios[i] = (struct load_io){ .off = off, .len = n, .busy = true };
	rc = nfs3_pipe_send(&c->pipe, NFSPROC3_WRITE,
			    (xdrproc_t)xdr_WRITE3args, &a, i, err);
	if (rc != LOAD_OK)
		return client_fail(c, rc, "WRITE %s offset %" PRIu64 ": %s",
				   c->name, off, err);
	if (c->pipe.in_flight > c->max_in_flight)
		c->max_in_flight = c->pipe.in_flight;
	return LOAD_OK;
}

/*
 * Wait for one WRITE reply, until @until_us when it is not 0, and account
 * for it.  NFS3ERR_JUKEBOX is resent after a pause, for at most --timeout
 * in a row; a short WRITE is followed by one for the rest.
 */
static enum load_err write_reap(struct load_client *c, uint64_t until_us)
{
	uint64_t limit = (uint64_t)c->run->o->srv.timeout_ms * 1000;
	char err[NFS3_ERRLEN];
	WRITE3res r;
	uint64_t tag, rtt, off, now;
	uint32_t n, done;
	enum load_err rc;
	bool got;

	rc = nfs3_pipe_reap(&c->pipe, until_us, (xdrproc_t)xdr_WRITE3res, &r,
			    sizeof(r), &got, &tag, &rtt, err);
	if (rc != LOAD_OK)
		return client_fail(c, rc, "WRITE %s: %s", c->name, err);
	if (!got)
		return LOAD_OK;
	off = c->ios[tag].off;
	n = c->ios[tag].len;
	c->ios[tag].busy = false;

	if (r.status == NFS3ERR_JUKEBOX) {
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
		now = nfswb_now_us();
		if (!c->jukebox_since)
			c->jukebox_since = now;
		else if (now - c->jukebox_since >= limit)
			return client_fail(c, LOAD_ERR_NFS,
					   "WRITE %s offset %" PRIu64 ": %s",
					   c->name, off,
					   nfs3_stat_name(NFS3ERR_JUKEBOX));
		c->jukebox_retries++;
		sleep_until_us(c->run, now + LOAD_JUKEBOX_PAUSE_US);
		return write_send(c, off, n);
	}
	c->jukebox_since = 0;
	if (r.status != NFS3_OK) {
		rc = client_fail(c, LOAD_ERR_NFS,
				 "WRITE %s offset %" PRIu64 ": %s",
				 c->name, off, nfs3_stat_name(r.status));
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
		return rc;
	}
	done = r.WRITE3res_u.resok.count;
	if (done == 0 || done > n) {
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
		return client_fail(c, LOAD_ERR_NFS,
				   "WRITE %s offset %" PRIu64 ": server wrote %u of %u bytes",
				   c->name, off, done, n);
	}
	if (nfswb_lat_add(&c->write_lat, rtt) < 0) {
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
		return client_fail(c, LOAD_ERR_INTERNAL, "out of memory");
	}
	window_note(c, off, off + done, &r.WRITE3res_u.resok);
	xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
	c->write_ops++;
	c->bytes_written += done;
	if (off + done > c->extent)
		c->extent = off + done;
	if (done < n)
		return write_send(c, off + done, n - done);
	return LOAD_OK;
}

/* Send WRITE [off, off + n), first waiting for a free slot if need be. */
static enum load_err write_queue(struct load_client *c, uint64_t off,
				 uint32_t n)
{
	enum load_err rc;

	while (c->pipe.in_flight >= c->pipe.depth) {
		rc = write_reap(c, 0);
		if (rc != LOAD_OK)
			return rc;
	}
	return write_send(c, off, n);
}

/* Wait until no WRITE is in flight. */
static enum load_err write_drain(struct load_client *c)
{
	enum load_err rc;

	while (c->pipe.in_flight) {
		rc = write_reap(c, 0);
		if (rc != LOAD_OK)
			return rc;
	}
	return LOAD_OK;
}

/* WRITE [off, off + len) of the pattern and wait for every reply. */
static enum load_err write_range(struct load_client *c, uint64_t off,
				 uint64_t len)
{
	enum load_err rc;

	while (len) {
		uint32_t n = len < c->run->wsize ? (uint32_t)len : c->run->wsize;

		rc = write_queue(c, off, n);
		if (rc != LOAD_OK)
			return rc;
		off += n;
		len -= n;
	}
	return write_drain(c);
}

/*
 * COMMIT what was written unstable since the last COMMIT.  When the
 * verifier differs from the one the WRITEs returned, the server may have
 * lost the data: write the range again and commit again (RFC 1813,
 * section 3.3.7).
 */
static enum load_err commit_window(struct load_client *c)
{
	char err[NFS3_ERRLEN];
	unsigned int attempt;
	enum load_err rc;

	/* Like a client's fsync: COMMIT once every WRITE has its reply. */
	rc = write_drain(c);
	if (rc != LOAD_OK)
		return rc;
	c->issued_since_commit = 0;
	for (attempt = 0; c->win_unstable; attempt++) {
		uint64_t start = c->win_start, len = c->win_end - c->win_start;
		COMMIT3args a = {
			.file = c->fh,
			.offset = start,
			/* count3 is 32 bits; 0 means "to the end of the file". */
			.count = len > UINT32_MAX ? 0 : (uint32_t)len,
		};
		COMMIT3res r;
		uint64_t rtt;
		bool same;

		rc = client_call(c, NFSPROC3_COMMIT, (xdrproc_t)xdr_COMMIT3args,
				 &a, (xdrproc_t)xdr_COMMIT3res, &r, sizeof(r),
				 &rtt, err);
		if (rc != LOAD_OK)
			return client_fail(c, rc, "COMMIT %s offset %" PRIu64 ": %s",
					   c->name, start, err);
		if (r.status != NFS3_OK) {
			rc = client_fail(c, LOAD_ERR_NFS,
					 "COMMIT %s offset %" PRIu64 ": %s",
					 c->name, start, nfs3_stat_name(r.status));
			xdr_free((xdrproc_t)xdr_COMMIT3res, (char *)&r);
			return rc;
		}
		if (nfswb_lat_add(&c->commit_lat, rtt) < 0)
			return client_fail(c, LOAD_ERR_INTERNAL, "out of memory");
		c->commit_ops++;
		same = !c->win_mixed &&
		       !memcmp(c->win_verf, r.COMMIT3res_u.resok.verf,
			       sizeof(c->win_verf));
		xdr_free((xdrproc_t)xdr_COMMIT3res, (char *)&r);
		window_reset(c);
		if (same)
			break;

		c->verifier_changes++;
		if (attempt + 1 >= LOAD_MAX_RECOMMITS)
			return client_fail(c, LOAD_ERR_NFS,
					   "COMMIT %s: the write verifier changed %u times in a row",
					   c->name, attempt + 1);
		rc = write_range(c, start, len);
		if (rc != LOAD_OK)
			return rc;
		c->rewritten_bytes += len;
	}
	window_reset(c);
	return LOAD_OK;
}

/*
 * Write passes over the file until one pass is done, or, with --duration,
 * until the time is up.  WRITE n starts no earlier than start + bytes
 * before it / rate, so a slow reply is caught up afterwards rather than
 * stretching the run (the rate is an average, not a gap).
 */
static enum load_err write_phase(struct load_client *c)
{
	const struct load_opts *o = c->run->o;
	uint64_t start = nfswb_now_us(), end = 0, sent = 0;
	enum load_err rc;

	if (o->duration_ms)
		end = start + o->duration_ms * 1000;
	c->t_write_start = start;
	for (;;) {
		uint64_t off;

		for (off = 0; off < o->size && !should_stop(c->run);) {
			uint64_t n = o->size - off;

			if (n > c->run->wsize)
				n = c->run->wsize;
			if (o->rate) {
				uint64_t due = start + (uint64_t)((double)sent *
						1e6 / (double)o->rate);

				if (end && due >= end)
					break;
				/* Take replies while waiting for the next slot in time. */
				while (c->pipe.in_flight && nfswb_now_us() < due &&
				       !should_stop(c->run)) {
					rc = write_reap(c, due);
					if (rc != LOAD_OK)
						return rc;
				}
				sleep_until_us(c->run, due);
				if (should_stop(c->run))
					break;
			}
			if (end && nfswb_now_us() >= end)
				break;
			rc = write_queue(c, off, (uint32_t)n);
			if (rc != LOAD_OK)
				return rc;
			off += n;
			sent += n;
			c->issued_since_commit += n;
			if (o->commit_every &&
			    c->issued_since_commit >= o->commit_every) {
				rc = commit_window(c);
				if (rc != LOAD_OK)
					return rc;
			}
		}
		/* The end of a pass is a close: commit what is left. */
		rc = commit_window(c);
		if (rc != LOAD_OK)
			return rc;
		if (off >= o->size)
			c->passes++;
		if (!end || nfswb_now_us() >= end || off < o->size ||
		    should_stop(c->run))
			break;
	}
	c->t_write_end = nfswb_now_us();
	return LOAD_OK;
}

/* The file must be exactly what was written: size, then every byte. */
static enum load_err verify_phase(struct load_client *c)
{
	char err[NFS3_ERRLEN];
	GETATTR3args ga = { .object = c->fh };
	GETATTR3res gr;
	uint64_t off, size;
	enum load_err rc;

	rc = client_call(c, NFSPROC3_GETATTR, (xdrproc_t)xdr_GETATTR3args, &ga,
			 (xdrproc_t)xdr_GETATTR3res, &gr, sizeof(gr), NULL, err);
	if (rc != LOAD_OK)
		return client_fail(c, rc, "GETATTR %s: %s", c->name, err);
	if (gr.status != NFS3_OK)
		return client_fail(c, LOAD_ERR_NFS, "GETATTR %s: %s", c->name,
				   nfs3_stat_name(gr.status));
	size = gr.GETATTR3res_u.resok.obj_attributes.size;
	if (size != c->extent)
		return client_fail(c, LOAD_ERR_VERIFY,
				   "verify %s: file has %" PRIu64 " bytes, %" PRIu64 " were written",
				   c->name, size, c->extent);

	c->t_read_start = nfswb_now_us();
	for (off = 0; off < c->extent && !should_stop(c->run);) {
		uint64_t left = c->extent - off;
		uint32_t n = left < c->run->rsize ? (uint32_t)left : c->run->rsize;
		READ3args a = { .file = c->fh, .offset = off, .count = n };
		READ3res r;
		READ3resok *ok = &r.READ3res_u.resok;
		uint8_t want;
		uint64_t rtt;
		size_t i;

		/* xdr_bytes allocates the data: a server cannot overrun us. */
		rc = client_call(c, NFSPROC3_READ, (xdrproc_t)xdr_READ3args, &a,
				 (xdrproc_t)xdr_READ3res, &r, sizeof(r), &rtt,
				 err);
		if (rc != LOAD_OK)
			return client_fail(c, rc, "READ %s offset %" PRIu64 ": %s",
					   c->name, off, err);
		if (r.status != NFS3_OK) {
			rc = client_fail(c, LOAD_ERR_NFS,
					 "READ %s offset %" PRIu64 ": %s",
					 c->name, off, nfs3_stat_name(r.status));
			xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
			return rc;
		}
		if (ok->data.data_len == 0 || ok->data.data_len > n) {
			rc = client_fail(c, LOAD_ERR_VERIFY,
					 "verify %s: READ at offset %" PRIu64 " returned %u bytes%s, expected %u",
					 c->name, off, ok->data.data_len,
					 ok->eof ? " and EOF" : "", n);
			xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
			return rc;
		}
		if (nfswb_lat_add(&c->read_lat, rtt) < 0) {
			xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
			return client_fail(c, LOAD_ERR_INTERNAL, "out of memory");
		}
		n = ok->data.data_len;
		i = nfswb_pattern_check(c->key, off, ok->data.data_val, n,
					&want);
		if (i < n) {
			rc = client_fail(c, LOAD_ERR_VERIFY,
					 "verify %s: data differs at offset %" PRIu64 ": expected 0x%02x, read 0x%02x",
					 c->name, off + i, want,
					 (uint8_t)ok->data.data_val[i]);
			xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
			return rc;
		}
		xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
		c->read_ops++;
		c->bytes_read += n;
		off += n;
	}
	c->t_read_end = nfswb_now_us();
	if (off >= c->extent)
		c->verified = true;
	return LOAD_OK;
}

static enum load_err create_file(struct load_client *c)
{
	char err[NFS3_ERRLEN];
	CREATE3args a;
	CREATE3res r;
	CREATE3resok *ok = &r.CREATE3res_u.resok;
	sattr3 *attr = &a.how.createhow3_u.obj_attributes;
	enum load_err rc;

	/* UNCHECKED with size 0 truncates a file left by an earlier run. */
	memset(&a, 0, sizeof(a));
	a.where.dir = c->run->root;
	a.where.name = c->name;
	a.how.mode = UNCHECKED;
	attr->mode.set_it = TRUE;
	attr->mode.set_mode3_u.mode = 0644;
	attr->size.set_it = TRUE;
	attr->size.set_size3_u.size = 0;

	rc = client_call(c, NFSPROC3_CREATE, (xdrproc_t)xdr_CREATE3args, &a,
			 (xdrproc_t)xdr_CREATE3res, &r, sizeof(r), NULL, err);
	if (rc != LOAD_OK)
		return client_fail(c, rc, "CREATE %s: %s", c->name, err);
	if (r.status != NFS3_OK) {
		rc = client_fail(c, LOAD_ERR_NFS, "CREATE %s in %s: %s", c->name,
				 c->run->o->export, nfs3_stat_name(r.status));
		xdr_free((xdrproc_t)xdr_CREATE3res, (char *)&r);
		return rc;
	}
	c->created = true;
	if (ok->obj.handle_follows) {
		/* Take the handle over; the rest of the reply is freed. */
		c->fh = ok->obj.post_op_fh3_u.handle;
		memset(&ok->obj.post_op_fh3_u.handle, 0,
		       sizeof(ok->obj.post_op_fh3_u.handle));
		xdr_free((xdrproc_t)xdr_CREATE3res, (char *)&r);
		return LOAD_OK;
	}
	xdr_free((xdrproc_t)xdr_CREATE3res, (char *)&r);

	/* The server may omit the handle; LOOKUP is then required. */
	{
		LOOKUP3args la = { .what = a.where };
		LOOKUP3res lr;

		rc = client_call(c, NFSPROC3_LOOKUP,
				 (xdrproc_t)xdr_LOOKUP3args, &la,
				 (xdrproc_t)xdr_LOOKUP3res, &lr, sizeof(lr),
				 NULL, err);
		if (rc != LOAD_OK)
			return client_fail(c, rc, "LOOKUP %s: %s", c->name, err);
		if (lr.status != NFS3_OK) {
			rc = client_fail(c, LOAD_ERR_NFS, "LOOKUP %s: %s",
					 c->name, nfs3_stat_name(lr.status));
			xdr_free((xdrproc_t)xdr_LOOKUP3res, (char *)&lr);
			return rc;
		}
		c->fh = lr.LOOKUP3res_u.resok.object;
		memset(&lr.LOOKUP3res_u.resok.object, 0,
		       sizeof(lr.LOOKUP3res_u.resok.object));
		xdr_free((xdrproc_t)xdr_LOOKUP3res, (char *)&lr);
	}
	return LOAD_OK;
}

static void remove_file(struct load_client *c)
{
	char err[NFS3_ERRLEN];
	REMOVE3args a = {
		.object.dir = c->run->root,
		.object.name = c->name,
	};
	REMOVE3res r;

	if (client_call(c, NFSPROC3_REMOVE, (xdrproc_t)xdr_REMOVE3args, &a,
			(xdrproc_t)xdr_REMOVE3res, &r, sizeof(r), NULL,
			err) != LOAD_OK) {
		fprintf(stderr, "nfswb-load: warning: REMOVE %s: %s\n",
			c->name, err);
		return;
	}
	if (r.status != NFS3_OK)
		fprintf(stderr, "nfswb-load: warning: REMOVE %s: %s\n",
			c->name, nfs3_stat_name(r.status));
	xdr_free((xdrproc_t)xdr_REMOVE3res, (char *)&r);
}

static void *client_main(void *arg)
{
	struct load_client *c = arg;
	struct load_run *run = c->run;
	const struct load_opts *o = run->o;
	char err[NFS3_ERRLEN];
	enum load_err rc;

	rc = nfs3_connect(&c->conn, &o->srv, NFS_PROGRAM, NFS_V3,
			  o->srv.nfs_port, err);
	if (rc != LOAD_OK)
		client_fail(c, rc, "%s", err);
	else if (create_file(c) == LOAD_OK) {
		rc = nfs3_pipe_open(&c->pipe, &o->srv, NFS_PROGRAM, NFS_V3,
				    o->srv.nfs_port, o->iodepth, err);
		if (rc != LOAD_OK)
			client_fail(c, rc, "%s", err);
	}

	/* Time counts from when every client has its connection and file. */
	pthread_mutex_lock(&run->gate_lock);
	run->gate_ready++;
	pthread_cond_broadcast(&run->gate_cond);
	while (!run->gate_open)
		pthread_cond_wait(&run->gate_cond, &run->gate_lock);
	pthread_mutex_unlock(&run->gate_lock);
	if (should_stop(run))
		goto out;
	rc = write_phase(c);
	nfs3_pipe_close(&c->pipe);
	if (rc != LOAD_OK)
		goto out;
	if (o->verify && !should_stop(run))
		verify_phase(c);
out:
	nfs3_pipe_close(&c->pipe);
	if (c->created && !o->keep && c->conn.clnt)
		remove_file(c);
	nfs3_disconnect(&c->conn);
	return NULL;
}

/* MNT the export and return its root handle. */
static enum load_err mount_export(const struct load_opts *o, nfs_fh3 *root,
				  bool unmount)
{
	char err[NFS3_ERRLEN];
	struct nfs3_conn mc;
	char *path = (char *)o->export;
	mountres3 r;
	enum load_err rc;
	unsigned int i;

	rc = nfs3_connect(&mc, &o->srv, MOUNT_PROGRAM, MOUNT_V3,
			  o->srv.mount_port, err);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: %s\n", err);
		return rc;
	}
	if (unmount) {
		/* UMNT is a courtesy; the server forgets nothing it needs. */
		rc = nfs3_call(&mc, MOUNTPROC3_UMNT, (xdrproc_t)xdr_dirpath,
			       &path, (xdrproc_t)(void (*)(void))xdr_void, NULL, NULL, err);
		if (rc != LOAD_OK)
			fprintf(stderr, "nfswb-load: warning: UMNT %s: %s\n",
				o->export, err);
		nfs3_disconnect(&mc);
		return LOAD_OK;
	}

	memset(&r, 0, sizeof(r));
	rc = nfs3_call(&mc, MOUNTPROC3_MNT, (xdrproc_t)xdr_dirpath, &path,
		       (xdrproc_t)xdr_mountres3, &r, NULL, err);
	nfs3_disconnect(&mc);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: MNT %s: %s\n", o->export, err);
		return rc;
	}
	if (r.fhs_status != MNT3_OK) {
		fprintf(stderr, "nfswb-load: %s refused to mount %s: %s\n",
			o->srv.host, o->export, mnt3_stat_name(r.fhs_status));
		xdr_free((xdrproc_t)xdr_mountres3, (char *)&r);
		return LOAD_ERR_MOUNT;
	}
	rc = LOAD_ERR_MOUNT;
	if (r.mountres3_u.mountinfo.auth_flavors.auth_flavors_len == 0)
		rc = LOAD_OK;
	for (i = 0; i < r.mountres3_u.mountinfo.auth_flavors.auth_flavors_len;
	     i++)
		if (r.mountres3_u.mountinfo.auth_flavors.auth_flavors_val[i] ==
		    AUTH_SYS)
			rc = LOAD_OK;
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: %s exports %s without AUTH_SYS (sec=sys); nfswb-load speaks only AUTH_SYS\n",
			o->srv.host, o->export);
		xdr_free((xdrproc_t)xdr_mountres3, (char *)&r);
		return rc;
	}
	root->data.data_len = r.mountres3_u.mountinfo.fhandle.fhandle3_len;
	root->data.data_val = r.mountres3_u.mountinfo.fhandle.fhandle3_val;
	r.mountres3_u.mountinfo.fhandle.fhandle3_val = NULL;
	r.mountres3_u.mountinfo.fhandle.fhandle3_len = 0;
	xdr_free((xdrproc_t)xdr_mountres3, (char *)&r);
	return LOAD_OK;
}

/* Transfer sizes: --wsize, capped by what the server takes. */
static enum load_err negotiate_sizes(struct load_run *run)
{
	const struct load_opts *o = run->o;
	char err[NFS3_ERRLEN], a[32], b[32];
	FSINFO3args fa = { .fsroot = run->root };
	FSINFO3res fr;
	FSINFO3resok *ok = &fr.FSINFO3res_u.resok;
	struct nfs3_conn nc;
	enum load_err rc;
	uint32_t wtmax, rtmax;

	rc = nfs3_connect(&nc, &o->srv, NFS_PROGRAM, NFS_V3, o->srv.nfs_port,
			  err);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: %s\n", err);
		return rc;
	}
	memset(&fr, 0, sizeof(fr));
	rc = nfs3_call(&nc, NFSPROC3_FSINFO, (xdrproc_t)xdr_FSINFO3args, &fa,
		       (xdrproc_t)xdr_FSINFO3res, &fr, NULL, err);
	nfs3_disconnect(&nc);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: FSINFO %s: %s\n", o->export, err);
		return rc;
	}
	if (fr.status != NFS3_OK) {
		fprintf(stderr, "nfswb-load: FSINFO %s: %s\n", o->export,
			nfs3_stat_name(fr.status));
		xdr_free((xdrproc_t)xdr_FSINFO3res, (char *)&fr);
		return LOAD_ERR_NFS;
	}
	wtmax = ok->wtmax ? ok->wtmax : LOAD_DEFAULT_IOSIZE;
	rtmax = ok->rtmax ? ok->rtmax : LOAD_DEFAULT_IOSIZE;
	xdr_free((xdrproc_t)xdr_FSINFO3res, (char *)&fr);

	run->wsize = wtmax < LOAD_DEFAULT_IOSIZE ? wtmax : LOAD_DEFAULT_IOSIZE;
	if (o->wsize && o->wsize <= wtmax) {
		run->wsize = (uint32_t)o->wsize;
	} else if (o->wsize) {
		fprintf(stderr, "nfswb-load: warning: --wsize %s is more than the server's wtmax %s; using %s\n",
			nfswb_format_size(o->wsize, a, sizeof(a)),
			nfswb_format_size(wtmax, b, sizeof(b)), b);
		run->wsize = wtmax;
	}
	run->rsize = rtmax < LOAD_DEFAULT_IOSIZE ? rtmax : LOAD_DEFAULT_IOSIZE;
	return LOAD_OK;
}

/* ---- report ---------------------------------------------------------- */

struct op_total {
	uint64_t ops, bytes;
	uint64_t t_start, t_end;	/* earliest start, latest end */
	struct nfswb_lat lat;
	struct nfswb_lat_summary sum;
};

static void total_add(struct op_total *t, const struct nfswb_lat *l,
		      uint64_t bytes, uint64_t start, uint64_t end)
{
	size_t i;

	t->ops += l->count;
	t->bytes += bytes;
	if (start && (!t->t_start || start < t->t_start))
		t->t_start = start;
	if (end > t->t_end)
		t->t_end = end;
	for (i = 0; i < l->count; i++)
		nfswb_lat_add(&t->lat, l->us[i]);
}

static double total_secs(const struct op_total *t)
{
	if (!t->t_start || t->t_end <= t->t_start)
		return 0;
	return (double)(t->t_end - t->t_start) / 1e6;
}

static double total_bw(const struct op_total *t)
{
	double s = total_secs(t);

	return s > 0 ? (double)t->bytes / s : 0;
}

/* fio's line: "write: IOPS=256, BW=123MiB/s (129MB/s)(256MiB/2083msec)" */
static void print_bw_line(FILE *out, const char *label,
			  const struct op_total *t)
{
	double s = total_secs(t), bw = total_bw(t);
	char sz[32];

	fprintf(out, "  %s: IOPS=%.0f, BW=%.1fMiB/s (%.1fMB/s)(%s/%.0fmsec)\n",
		label, s > 0 ? (double)t->ops / s : 0, bw / 1048576, bw / 1e6,
		nfswb_format_size(t->bytes, sz, sizeof(sz)), s * 1000);
}

static const char *verify_state(const struct load_opts *o,
				const struct load_client *c)
{
	if (!o->verify)
		return "off";
	if (c->verified)
		return "ok";
	return c->rc == LOAD_ERR_VERIFY ? "failed" : "not done";
}

/* What the clients did, added up. */
struct load_totals {
	struct op_total write, commit, read;
	uint64_t verifier_changes, rewritten_bytes;
	uint64_t reconnects, jukebox_retries;
	unsigned int max_in_flight;	/* of any client */
	bool all_verified;
	const char *error;		/* the first client's failure */
	struct rusage ru;
};

static double tv_secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void print_text(const struct load_run *run,
		       const struct load_totals *t)
{
	const struct load_opts *o = run->o;
	char a[32], b[32], r[32], ce[32];
	unsigned int i;

	if (o->commit_every)
		nfswb_format_size(o->commit_every, ce, sizeof(ce));
	else
		snprintf(ce, sizeof(ce), "close");
	printf("nfswb-load: %u client%s, iodepth=%u, %s:%u %s, size=%s, wsize=%s, stable=%s, commit-every=%s, rate=%s\n",
	       o->clients, o->clients == 1 ? "" : "s", o->iodepth, o->srv.host,
	       o->srv.nfs_port, o->export,
	       nfswb_format_size(o->size, a, sizeof(a)),
	       nfswb_format_size(run->wsize, b, sizeof(b)),
	       stable_name(o->stable), ce,
	       o->rate ? nfswb_format_rate(o->rate, r, sizeof(r)) :
			 "unlimited");
	print_bw_line(stdout, "write", &t->write);
	nfswb_lat_print_text(stdout, "  write", &t->write.sum);
	printf("  commit: count=%" PRIu64 "\n", t->commit.ops);
	if (t->commit.ops)
		nfswb_lat_print_text(stdout, "  commit", &t->commit.sum);
	if (o->verify) {
		print_bw_line(stdout, "read", &t->read);
		nfswb_lat_print_text(stdout, "  read", &t->read.sum);
	}
	printf("  verifier changes=%" PRIu64 ", rewritten=%s, reconnects=%" PRIu64 ", jukebox retries=%" PRIu64 ", most WRITEs in flight=%u\n",
	       t->verifier_changes,
	       nfswb_format_size(t->rewritten_bytes, a, sizeof(a)),
	       t->reconnects, t->jukebox_retries, t->max_in_flight);
	for (i = 0; i < o->clients && o->clients <= LOAD_TEXT_MAX_CLIENTS; i++) {
		const struct load_client *c = &run->clients[i];

		printf("  client %u: %s: written=%s in %" PRIu64 " WRITEs, %" PRIu64 " COMMITs, %" PRIu64 " passes, verify %s\n",
		       c->id, c->name,
		       nfswb_format_size(c->bytes_written, a, sizeof(a)),
		       c->write_ops, c->commit_ops, c->passes,
		       verify_state(o, c));
	}
	if (o->verify)
		printf("  verify: %s\n", t->all_verified ? "OK" : "FAILED");
	printf("  cpu: usr=%.3fs, sys=%.3fs\n", tv_secs(&t->ru.ru_utime),
	       tv_secs(&t->ru.ru_stime));
}

static void json_op(struct nfswb_json *j, const char *key,
		    const struct op_total *t)
{
	nfswb_json_obj_begin(j, key);
	nfswb_json_u64(j, "ops", t->ops);
	nfswb_json_u64(j, "bytes", t->bytes);
	nfswb_json_u64(j, "runtime_ms", (uint64_t)(total_secs(t) * 1000));
	nfswb_json_u64(j, "bw_bytes", (uint64_t)total_bw(t));
	nfswb_json_fixed(j, "mb_s", total_bw(t) / 1e6, 3);
	nfswb_json_obj_end(j);
}

static void print_json(const struct load_run *run,
		       const struct load_totals *t)
{
	const struct load_opts *o = run->o;
	struct nfswb_json j;
	unsigned int i;

	nfswb_json_init(&j, stdout, true);
	nfswb_json_obj_begin(&j, NULL);
	nfswb_json_str(&j, "tool", "nfswb-load");
	nfswb_json_str(&j, "version", PACKAGE_VERSION);
	nfswb_json_str(&j, "server", o->srv.host);
	nfswb_json_u64(&j, "nfs_port", o->srv.nfs_port);
	nfswb_json_u64(&j, "mount_port", o->srv.mount_port);
	nfswb_json_str(&j, "export", o->export);
	nfswb_json_u64(&j, "clients", o->clients);
	nfswb_json_u64(&j, "iodepth", o->iodepth);
	nfswb_json_u64(&j, "max_in_flight", t->max_in_flight);
	nfswb_json_u64(&j, "size", o->size);
	nfswb_json_u64(&j, "wsize", run->wsize);
	nfswb_json_u64(&j, "rsize", run->rsize);
	nfswb_json_u64(&j, "rate", o->rate);
	nfswb_json_str(&j, "stable", stable_name(o->stable));
	if (o->commit_every)
		nfswb_json_u64(&j, "commit_every", o->commit_every);
	else
		nfswb_json_str(&j, "commit_every", "close");
	nfswb_json_u64(&j, "duration_ms", o->duration_ms);

	json_op(&j, "write", &t->write);
	json_op(&j, "commit", &t->commit);
	if (o->verify)
		json_op(&j, "read", &t->read);
	nfswb_json_fixed(&j, "write_mb_s", total_bw(&t->write) / 1e6, 3);
	nfswb_lat_json(&j, "write_latency_us", &t->write.sum);
	nfswb_lat_json(&j, "commit_latency_us", &t->commit.sum);
	if (o->verify)
		nfswb_lat_json(&j, "read_latency_us", &t->read.sum);
	nfswb_json_u64(&j, "verifier_changes", t->verifier_changes);
	nfswb_json_u64(&j, "rewritten_bytes", t->rewritten_bytes);
	nfswb_json_u64(&j, "reconnects", t->reconnects);
	nfswb_json_u64(&j, "jukebox_retries", t->jukebox_retries);
	nfswb_json_str(&j, "verify", !o->verify ? "off" :
			t->all_verified ? "ok" : "failed");
	nfswb_json_obj_begin(&j, "cpu");
	nfswb_json_fixed(&j, "user_s", tv_secs(&t->ru.ru_utime), 3);
	nfswb_json_fixed(&j, "sys_s", tv_secs(&t->ru.ru_stime), 3);
	nfswb_json_obj_end(&j);

	nfswb_json_arr_begin(&j, "per_client");
	for (i = 0; i < o->clients; i++) {
		struct load_client *c = &run->clients[i];
		struct nfswb_lat_summary cs;

		nfswb_json_obj_begin(&j, NULL);
		nfswb_json_u64(&j, "id", c->id);
		nfswb_json_str(&j, "file", c->name);
		nfswb_json_u64(&j, "bytes_written", c->bytes_written);
		nfswb_json_u64(&j, "write_ops", c->write_ops);
		nfswb_json_u64(&j, "commit_ops", c->commit_ops);
		nfswb_json_u64(&j, "passes", c->passes);
		nfswb_json_u64(&j, "max_in_flight", c->max_in_flight);
		nfswb_json_u64(&j, "verifier_changes", c->verifier_changes);
		nfswb_json_str(&j, "verify", verify_state(o, c));
		nfswb_lat_summarize(&c->commit_lat, &cs);
		nfswb_lat_json(&j, "commit_latency_us", &cs);
		if (c->rc != LOAD_OK)
			nfswb_json_str(&j, "error", c->err);
		nfswb_json_obj_end(&j);
	}
	nfswb_json_arr_end(&j);
	if (t->error)
		nfswb_json_str(&j, "error", t->error);
	else
		nfswb_json_null(&j, "error");
	nfswb_json_obj_end(&j);
	nfswb_json_end(&j);
}

static enum load_err report(struct load_run *run)
{
	const struct load_opts *o = run->o;
	struct load_totals t = { .all_verified = o->verify };
	enum load_err rc = LOAD_OK;
	unsigned int i;

	for (i = 0; i < o->clients; i++) {
		struct load_client *c = &run->clients[i];

		total_add(&t.write, &c->write_lat, c->bytes_written,
			  c->t_write_start, c->t_write_end);
		total_add(&t.commit, &c->commit_lat, 0, c->t_write_start,
			  c->t_write_end);
		total_add(&t.read, &c->read_lat, c->bytes_read,
			  c->t_read_start, c->t_read_end);
		t.verifier_changes += c->verifier_changes;
		t.rewritten_bytes += c->rewritten_bytes;
		t.reconnects += c->conn.reconnects + c->pipe.reconnects;
		if (c->max_in_flight > t.max_in_flight)
			t.max_in_flight = c->max_in_flight;
		t.jukebox_retries += c->jukebox_retries;
		if (!c->verified)
			t.all_verified = false;
		if (c->rc != LOAD_OK) {
			fprintf(stderr, "nfswb-load: client %u: %s\n", c->id,
				c->err);
			if (rc == LOAD_OK) {
				rc = c->rc;
				t.error = c->err;
			}
		}
	}
	if (atomic_load(&interrupted) && rc == LOAD_OK) {
		t.error = "interrupted";
		rc = LOAD_ERR_INTERNAL;
		t.all_verified = false;
	}
	nfswb_lat_summarize(&t.write.lat, &t.write.sum);
	nfswb_lat_summarize(&t.commit.lat, &t.commit.sum);
	nfswb_lat_summarize(&t.read.lat, &t.read.sum);
	getrusage(RUSAGE_SELF, &t.ru);

	if (o->json)
		print_json(run, &t);
	else
		print_text(run, &t);
	nfswb_lat_free(&t.write.lat);
	nfswb_lat_free(&t.commit.lat);
	nfswb_lat_free(&t.read.lat);
	return rc;
}

/* ---- setup ----------------------------------------------------------- */

static enum load_err run_clients(struct load_run *run)
{
	const struct load_opts *o = run->o;
	char host[64];
	unsigned int i, started = 0;
	size_t iosize;
	enum load_err rc;

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	iosize = run->wsize > run->rsize ? run->wsize : run->rsize;

	run->clients = calloc(o->clients, sizeof(*run->clients));
	if (!run->clients)
		goto nomem;
	for (i = 0; i < o->clients; i++) {
		struct load_client *c = &run->clients[i];

		c->run = run;
		c->id = i;
		c->key = nfswb_pattern_key(run->seed, i);
		snprintf(c->name, sizeof(c->name), "nfswb-load.%s.%ld.%u",
			 host, (long)getpid(), i);
		c->pat = malloc(iosize + 2 * sizeof(uint64_t));
		c->ios = calloc(o->iodepth, sizeof(*c->ios));
		if (!c->pat || !c->ios)
			goto nomem;
	}

	pthread_mutex_init(&run->gate_lock, NULL);
	pthread_cond_init(&run->gate_cond, NULL);
	for (i = 0; i < o->clients; i++) {
		int err = pthread_create(&run->clients[i].thread, NULL,
					 client_main, &run->clients[i]);

		if (err) {
			fprintf(stderr, "nfswb-load: cannot start client %u: %s\n",
				i, strerror(err));
			atomic_store(&run->stop, true);
			break;
		}
		started++;
	}
	pthread_mutex_lock(&run->gate_lock);
	while (run->gate_ready < started)
		pthread_cond_wait(&run->gate_cond, &run->gate_lock);
	run->gate_open = true;
	pthread_cond_broadcast(&run->gate_cond);
	pthread_mutex_unlock(&run->gate_lock);
	for (i = 0; i < started; i++)
		pthread_join(run->clients[i].thread, NULL);
	pthread_cond_destroy(&run->gate_cond);
	pthread_mutex_destroy(&run->gate_lock);

	rc = report(run);
	if (started < o->clients && rc == LOAD_OK)
		rc = LOAD_ERR_INTERNAL;
	return rc;

nomem:
	fprintf(stderr, "nfswb-load: out of memory\n");
	return LOAD_ERR_INTERNAL;
}

static void free_run(struct load_run *run)
{
	unsigned int i;

	if (run->clients) {
		for (i = 0; i < run->o->clients; i++) {
			struct load_client *c = &run->clients[i];

			free(c->pat);
			free(c->ios);
			free(c->fh.data.data_val);
			nfswb_lat_free(&c->write_lat);
			nfswb_lat_free(&c->commit_lat);
			nfswb_lat_free(&c->read_lat);
		}
		free(run->clients);
	}
	free(run->root.data.data_val);
}

/* ---- command line ---------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
"Usage: nfswb-load --server HOST[:PORT] --export PATH [OPTION]...\n"
"Write files over NFSv3 from N simulated clients and report WRITE and\n"
"COMMIT latency as the clients see it.\n"
"\n"
"  -s, --server HOST[:PORT]   NFS server; without PORT ask its rpcbind\n"
"  -e, --export PATH          exported path to mount (MOUNT v3)\n"
"      --mount-port N         mountd port; without it ask rpcbind\n"
"  -c, --clients N            simulated clients, one connection and file each\n"
"                             (1 to %d; default 1)\n"
"      --iodepth N            WRITEs in flight per client (1 to %d;\n"
"                             default 1)\n"
"      --size BYTES           file size per client (default 64M)\n"
"      --rate BYTES/s         pace each client's WRITEs (default: unpaced)\n"
"      --wsize BYTES          WRITE size (default: the server's wtmax, at\n"
"                             most 1M)\n"
"      --commit-every BYTES|close\n"
"                             COMMIT after every BYTES written, or only at\n"
"                             the end of each pass over the file (default)\n"
"      --stable unstable|data_sync|file_sync\n"
"                             stable_how of each WRITE (default unstable)\n"
"      --duration T           rewrite the files for T instead of one pass\n"
"      --verify               read every file back and check its contents\n"
"      --keep                 leave the files on the server\n"
"      --timeout T            give up on a connect or call after T\n"
"                             (default 30s)\n"
"      --json                 print the results as JSON\n"
"  -h, --help                 this text\n"
"  -V, --version              the version\n"
"\n"
"Sizes and rates take binary suffixes: k=2^10, M=2^20, G=2^30 (\"64M\",\n"
"\"10MiB/s\").  Durations take ms, s or m; a bare number is milliseconds.\n"
"Exit status: 0 ok, 1 internal error or interrupted, 2 usage, 3 server\n"
"unreachable or not answering, 4 mount refused, 5 NFS or RPC error,\n"
"6 verify failed.  See nfswb-load(1).\n", LOAD_MAX_CLIENTS,
		NFS3_PIPE_MAX_DEPTH);
}

enum {
	OPT_MOUNT_PORT = 256,
	OPT_IODEPTH,
	OPT_SIZE,
	OPT_RATE,
	OPT_WSIZE,
	OPT_COMMIT_EVERY,
	OPT_STABLE,
	OPT_DURATION,
	OPT_VERIFY,
	OPT_KEEP,
	OPT_TIMEOUT,
	OPT_JSON,
};

static const struct option long_opts[] = {
	{ "server",	  required_argument, NULL, 's' },
	{ "export",	  required_argument, NULL, 'e' },
	{ "mount-port",	  required_argument, NULL, OPT_MOUNT_PORT },
	{ "clients",	  required_argument, NULL, 'c' },
	{ "iodepth",	  required_argument, NULL, OPT_IODEPTH },
	{ "size",	  required_argument, NULL, OPT_SIZE },
	{ "rate",	  required_argument, NULL, OPT_RATE },
	{ "wsize",	  required_argument, NULL, OPT_WSIZE },
	{ "commit-every", required_argument, NULL, OPT_COMMIT_EVERY },
	{ "stable",	  required_argument, NULL, OPT_STABLE },
	{ "duration",	  required_argument, NULL, OPT_DURATION },
	{ "verify",	  no_argument,	     NULL, OPT_VERIFY },
	{ "keep",	  no_argument,	     NULL, OPT_KEEP },
	{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
	{ "json",	  no_argument,	     NULL, OPT_JSON },
	{ "help",	  no_argument,	     NULL, 'h' },
	{ "version",	  no_argument,	     NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static enum load_err bad_arg(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "nfswb-load: --%s %s: %s\n", opt, val, why);
	return LOAD_ERR_USAGE;
}

static enum load_err parse_uint(const char *opt, const char *val, unsigned long min,
		      unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || end == val || *end || val[0] == '-' || v < min ||
	    v > max) {
		char why[64];

		snprintf(why, sizeof(why), "expected a whole number from %lu to %lu",
			 min, max);
		return bad_arg(opt, val, why);
	}
	*out = v;
	return LOAD_OK;
}

static enum load_err parse_args(int argc, char **argv, struct load_opts *o)
{
	const char *server = NULL, *why;
	char err[NFS3_ERRLEN];
	unsigned long v;
	uint64_t ms;
	enum load_err rc;
	int opt;

	o->clients = 1;
	o->iodepth = 1;
	o->size = LOAD_DEFAULT_SIZE;
	o->stable = UNSTABLE;
	o->srv.timeout_ms = LOAD_DEFAULT_TIMEOUT_MS;

	while ((opt = getopt_long(argc, argv, "s:e:c:hV", long_opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			server = optarg;
			break;
		case 'e':
			o->export = optarg;
			break;
		case OPT_MOUNT_PORT:
			if (parse_uint("mount-port", optarg, 1, 65535, &v))
				return LOAD_ERR_USAGE;
			o->srv.mount_port = (uint16_t)v;
			break;
		case 'c':
			if (parse_uint("clients", optarg, 1, LOAD_MAX_CLIENTS, &v))
				return LOAD_ERR_USAGE;
			o->clients = (unsigned int)v;
			break;
		case OPT_IODEPTH:
			if (parse_uint("iodepth", optarg, 1, NFS3_PIPE_MAX_DEPTH, &v))
				return LOAD_ERR_USAGE;
			o->iodepth = (unsigned int)v;
			break;
		case OPT_SIZE:
			if (nfswb_parse_size(optarg, &o->size, &why))
				return bad_arg("size", optarg, why);
			if (!o->size)
				return bad_arg("size", optarg, "must be more than 0");
			break;
		case OPT_RATE:
			if (nfswb_parse_rate(optarg, &o->rate, &why))
				return bad_arg("rate", optarg, why);
			if (!o->rate)
				return bad_arg("rate", optarg, "must be more than 0 (leave it out for no pacing)");
			break;
		case OPT_WSIZE:
			if (nfswb_parse_size(optarg, &o->wsize, &why))
				return bad_arg("wsize", optarg, why);
			if (!o->wsize || o->wsize > LOAD_MAX_WSIZE)
				return bad_arg("wsize", optarg, "must be from 1 to 16M");
			break;
		case OPT_COMMIT_EVERY:
			if (!strcmp(optarg, "close")) {
				o->commit_every = 0;
				break;
			}
			if (nfswb_parse_size(optarg, &o->commit_every, &why))
				return bad_arg("commit-every", optarg, why);
			if (!o->commit_every)
				return bad_arg("commit-every", optarg, "must be more than 0, or \"close\"");
			break;
		case OPT_STABLE:
			if (!strcmp(optarg, "unstable"))
				o->stable = UNSTABLE;
			else if (!strcmp(optarg, "data_sync"))
				o->stable = DATA_SYNC;
			else if (!strcmp(optarg, "file_sync"))
				o->stable = FILE_SYNC;
			else
				return bad_arg("stable", optarg, "expected unstable, data_sync or file_sync");
			break;
		case OPT_DURATION:
			if (nfswb_parse_duration_ms(optarg, &o->duration_ms, &why))
				return bad_arg("duration", optarg, why);
			if (!o->duration_ms)
				return bad_arg("duration", optarg, "must be more than 0");
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_KEEP:
			o->keep = true;
			break;
		case OPT_TIMEOUT:
			if (nfswb_parse_duration_ms(optarg, &ms, &why))
				return bad_arg("timeout", optarg, why);
			if (ms < 1 || ms > 3600 * 1000)
				return bad_arg("timeout", optarg, "must be from 1ms to 1 hour");
			o->srv.timeout_ms = (unsigned int)ms;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(LOAD_OK);
		case 'V':
			printf("nfswb-load %s\n", PACKAGE_VERSION);
			exit(LOAD_OK);
		default:
			fprintf(stderr, "Try 'nfswb-load --help'.\n");
			return LOAD_ERR_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nfswb-load: unexpected argument '%s'\n",
			argv[optind]);
		return LOAD_ERR_USAGE;
	}
	if (!server || !o->export) {
		fprintf(stderr, "nfswb-load: --server and --export are required\n"
			"Try 'nfswb-load --help'.\n");
		return LOAD_ERR_USAGE;
	}
	if (o->export[0] != '/')
		return bad_arg("export", o->export, "must be an absolute path");
	rc = nfs3_server_parse(&o->srv, server, err);
	if (rc != LOAD_OK)
		fprintf(stderr, "nfswb-load: %s\n", err);
	return rc;
}

int main(int argc, char **argv)
{
	struct load_opts o = { 0 };
	struct load_run run = { .o = &o };
	struct sigaction sa = { .sa_handler = on_signal };
	char err[NFS3_ERRLEN];
	enum load_err rc;

	rc = parse_args(argc, argv, &o);
	if (rc != LOAD_OK)
		return rc;

	/* A server that resets the connection must not kill us by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!o.srv.nfs_port) {
		rc = nfs3_getport(&o.srv, NFS_PROGRAM, NFS_V3, &o.srv.nfs_port,
				  err);
		if (rc != LOAD_OK)
			goto fail_msg;
	}
	if (!o.srv.mount_port) {
		rc = nfs3_getport(&o.srv, MOUNT_PROGRAM, MOUNT_V3,
				  &o.srv.mount_port, err);
		if (rc != LOAD_OK)
			goto fail_msg;
	}
	rc = mount_export(&o, &run.root, false);
	if (rc != LOAD_OK)
		return rc;
	rc = negotiate_sizes(&run);
	if (rc == LOAD_OK) {
		run.seed = nfswb_splitmix64(nfswb_now_us() ^ ((uint64_t)getpid() << 32));
		rc = run_clients(&run);
	}
	mount_export(&o, NULL, true);
	free_run(&run);
	return rc;

fail_msg:
	fprintf(stderr, "nfswb-load: %s\n", err);
	return rc;
}
