// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * write.c - the write phase of a client: WRITEs of the data pattern,
 * up to --iodepth in flight, paced to --rate; COMMIT of what went unstable
 * every --commit-every bytes and at the end of each pass; and, when the
 * COMMIT's verifier is not the WRITEs' (the server restarted), the range
 * written again and recommitted (RFC 1813, section 3.3.7).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "load.h"
#include "pattern.h"

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
		return load_client_fail(c, rc,
					"WRITE %s offset %" PRIu64 ": %s",
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
		return load_client_fail(c, rc, "WRITE %s: %s", c->name, err);
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
			return load_client_fail(c, LOAD_ERR_NFS,
						"WRITE %s offset %" PRIu64
						": NFS3ERR_JUKEBOX", c->name,
						off);
		c->jukebox_retries++;
		load_sleep_until_us(c->run, now + LOAD_JUKEBOX_PAUSE_US);
		return write_send(c, off, n);
	}
	c->jukebox_since = 0;
	if (r.status != NFS3_OK) {
		rc = load_client_fail(c, LOAD_ERR_NFS,
				      "WRITE %s offset %" PRIu64 ": %s",
				      c->name, off, nfs3_stat_name(r.status));
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
		return rc;
	}
	done = r.WRITE3res_u.resok.count;
	if (done == 0 || done > n) {
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
		return load_client_fail(c, LOAD_ERR_NFS,
					"WRITE %s offset %" PRIu64 ": server wrote %u of %u bytes",
					c->name, off, done, n);
	}
	if (nfswb_lat_add(&c->write_lat, rtt) < 0) {
		xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
		return load_client_fail(c, LOAD_ERR_INTERNAL, "out of memory");
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

		rc = load_client_op(c, NFSPROC3_COMMIT,
				    (xdrproc_t)xdr_COMMIT3args, &a,
				    (xdrproc_t)xdr_COMMIT3res, &r, sizeof(r),
				    &rtt, "COMMIT %s offset %" PRIu64,
				    c->name, start);
		if (rc != LOAD_OK)
			return rc;
		if (nfswb_lat_add(&c->commit_lat, rtt) < 0)
			return load_client_fail(c, LOAD_ERR_INTERNAL,
						"out of memory");
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
			return load_client_fail(c, LOAD_ERR_NFS,
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
enum load_err load_write_phase(struct load_client *c)
{
	const struct load_opts *o = c->run->o;
	uint64_t start = nfswb_now_us(), end = 0, sent = 0;
	enum load_err rc;

	if (o->duration_ms)
		end = start + o->duration_ms * 1000;
	c->t_write_start = start;
	for (;;) {
		uint64_t off;

		for (off = 0; off < o->size && !load_should_stop(c->run);) {
			uint64_t n = o->size - off;

			if (n > c->run->wsize)
				n = c->run->wsize;
			if (o->rate) {
				uint64_t due = start + (uint64_t)((double)sent *
						1e6 / (double)o->rate);

				if (end && due >= end)
					break;
				/* Take replies until the next WRITE is due. */
				while (c->pipe.in_flight &&
				       nfswb_now_us() < due &&
				       !load_should_stop(c->run)) {
					rc = write_reap(c, due);
					if (rc != LOAD_OK)
						return rc;
				}
				load_sleep_until_us(c->run, due);
				if (load_should_stop(c->run))
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
		    load_should_stop(c->run))
			break;
	}
	c->t_write_end = nfswb_now_us();
	return LOAD_OK;
}
