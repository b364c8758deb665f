/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_device.h - the disk of the closed-loop simulations that drive
 * nfswb_step() with COMMITs (test_core_sim_randwrite, _multiwriter,
 * _tempfile, _seqwrite).
 *
 * One queue of write requests, the daemon's kicks and the clients'
 * COMMITs, written strictly in order: a COMMIT waits for everything
 * queued before it, as ext4's journal commit waits for the writeback it
 * allocated.  The caller says how many bytes the device writes in each
 * 1 ms step (a throttle's bucket lives in the caller).  The device keeps
 * the diskstats counters nfswbd samples and every COMMIT's latency.
 */
#ifndef NFSWB_SIM_DEVICE_H
#define NFSWB_SIM_DEVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "satmath.h"
#include "step.h"
#include "test.h"

#define SIM_QUEUE	4096
#define SIM_MAX_COMMITS	4096

struct sim_request {
	double bytes;		/* left to write */
	int waiter;		/* the client waiting for it, or -1: a kick */
	uint64_t start_ms;	/* when it was queued */
};

struct sim_device {
	struct sim_request q[SIM_QUEUE];
	unsigned int qhead, qn;
	double queued;				/* bytes in q */
	double written, busy_ms, write_ticks;	/* diskstats, exact */
	uint64_t lat[SIM_MAX_COMMITS];		/* COMMIT latencies, ms */
	unsigned int ncommits;
};

/* Queue @bytes at @now_ms; @waiter >= 0: a COMMIT that client waits for. */
static inline void sim_enqueue(struct sim_device *d, double bytes,
			       int waiter, uint64_t now_ms)
{
	struct sim_request *r;

	if (d->qn == SIM_QUEUE) {
		fprintf(stderr, "simulated queue full\n");
		exit(T_EXIT_FAIL);
	}
	r = &d->q[(d->qhead + d->qn++) % SIM_QUEUE];
	r->bytes = bytes;
	r->waiter = waiter;
	r->start_ms = now_ms;
	d->queued += bytes;
}

/*
 * The queue depth diskstats' wr_ticks counts, taken before the step's
 * new requests: a kick goes as 512 KiB requests (capped at 64 at once
 * by sim_device_write()).
 */
static inline double sim_device_depth(const struct sim_device *d)
{
	return d->queued / (512 * 1024.0) + 1;
}

/*
 * One 1 ms step: write up to @speed bytes of the queue in order; for
 * each COMMIT done, record its latency and call @woken(@arg, waiter).
 * The device is busy the whole step while requests are left, else for
 * the share of @full_speed (its speed unthrottled) it wrote.  @depth:
 * sim_device_depth() at the step's start.  Returns the bytes written.
 */
static inline double sim_device_write(struct sim_device *d, double speed,
				      double full_speed, double depth,
				      uint64_t now_ms,
				      void (*woken)(void *arg, int waiter),
				      void *arg)
{
	double w = 0, busy;

	while (d->qn && w < speed) {
		struct sim_request *r = &d->q[d->qhead];
		double n = r->bytes < speed - w ? r->bytes : speed - w;

		r->bytes -= n;
		d->queued -= n;
		w += n;
		if (r->bytes > 1e-6)
			break;
		if (r->waiter >= 0) {
			if (d->ncommits < SIM_MAX_COMMITS)
				d->lat[d->ncommits++] = now_ms - r->start_ms;
			woken(arg, r->waiter);
		}
		d->qhead = (d->qhead + 1) % SIM_QUEUE;
		d->qn--;
	}
	busy = d->qn ? 1 : w / full_speed;
	d->written += w;
	d->busy_ms += busy;
	d->write_ticks += busy * (depth < 64 ? depth : 64);
	return w;
}

/*
 * The cheap bounds a device may stand by with, when they are not the NFS
 * dirty bytes themselves: BdiReclaimable counting a local writer's bytes
 * too, and nfsd's counts of what it wrote and of the COMMITs it was sent
 * for the written bound (NULL: none).
 */
struct sim_bounds {
	double bdi;
	struct nfswb_written_bound *written;
	double written_bytes;
	uint64_t commits;
};

/*
 * nfswbd's interval on the device: sample its counters, and unless the
 * step stands by, decide with @dirty, the exact NFS dirty bytes (the
 * files mode's measurement).  @bounds: the bounds to stand by with
 * (NULL: @dirty is the bdi's).  @policy: the options and the clock; the
 * in-flight bytes are the queue's.  @standby and @memory: in force (the
 * last decision's), then updated, as nfswbd's tick keeps them.
 */
static inline void sim_device_step(const struct sim_device *d,
				   struct nfswb_estimator *est, double dirty,
				   const struct sim_bounds *bounds,
				   struct nfswb_policy_in policy,
				   bool *standby,
				   struct nfswb_policy_memory *memory,
				   struct nfswb_step_out *out)
{
	struct nfswb_blkstat st = { .nfields = 17 };
	struct nfswb_step_in in;

	st.wr_sectors = (uint64_t)(d->written / 512);
	st.io_ticks = (uint64_t)d->busy_ms;
	st.wr_ticks = (uint64_t)d->write_ticks;
	st.in_flight = d->qn ? 1 : 0;
	policy.inflight_bytes = (uint64_t)d->queued;
	policy.memory = *memory;
	in = (struct nfswb_step_in){
		.stat = &st,
		.decide = true,
		.have_bound = true,
		.dirty_bound_bytes = (uint64_t)(bounds ? bounds->bdi : dirty),
		.standby_in_force = *standby,
		.policy = policy,
	};
	if (bounds && bounds->written) {
		in.written_bound = bounds->written;
		in.have_written = true;
		in.written_bytes = (uint64_t)bounds->written_bytes;
		in.commits = bounds->commits;
	}
	nfswb_step_sample(est, &in, out);
	*standby = out->standby;
	if (!out->standby)
		in.policy.nfs_dirty_bytes = (uint64_t)dirty;
	nfswb_step_decide(est, &in, out);
	*memory = out->decision.memory;
}

/* The client's WRITE size: fio's bs=64k, as the lab's writers use. */
#define SIM_WRITE_SIZE	(64 * 1024.0)

/*
 * One client writing SIM_WRITE_SIZE WRITEs at @rate bytes/s while it is
 * not waiting, and COMMITting all it left dirty every @commit_every
 * bytes, waiting for the COMMIT before it writes on (fio's fsync=N, or
 * an fsync at each file's end).  Pass &waiting to sim_device_write()
 * with sim_woken_one().
 */
struct sim_client {
	double rate, commit_every;
	int id;			/* the COMMIT's waiter, for @woken */
	uint64_t commits;	/* COMMITs sent, as nfsd counts them */
	double arrived;		/* written, to the next WRITE */
	double dirty, since_commit;
	uint64_t first_dirty_ms;	/* its oldest dirty data's WRITE */
	bool waiting;
};

/* @c's 1 ms at @now_ms: its WRITEs, its COMMIT on @d; the bytes it wrote. */
static inline double sim_client_ms(struct sim_client *c, struct sim_device *d,
				   uint64_t now_ms)
{
	double wrote = 0;

	if (c->waiting)
		return 0;
	c->arrived += c->rate / 1000.0;
	while (c->arrived >= SIM_WRITE_SIZE && !c->waiting) {
		c->arrived -= SIM_WRITE_SIZE;
		if (c->dirty < 1)
			c->first_dirty_ms = now_ms;
		c->dirty += SIM_WRITE_SIZE;
		c->since_commit += SIM_WRITE_SIZE;
		wrote += SIM_WRITE_SIZE;
		if (c->since_commit >= c->commit_every) {
			sim_enqueue(d, c->dirty, c->id, now_ms);
			c->commits++;
			c->dirty = 0;
			c->since_commit = 0;
			c->waiting = true;
			c->arrived = 0;
		}
	}
	return wrote;
}

/*
 * The daemon's kick of @bytes of one file: at most what is dirty
 * (@dirty, which it takes them from), queued behind what the device
 * has.  Returns whether anything was kicked (less than a byte is none).
 */
static inline bool sim_kick(struct sim_device *d, double *dirty,
			    uint64_t bytes, uint64_t now_ms)
{
	double kick = (double)bytes;

	if (kick > *dirty)
		kick = *dirty;
	if (kick < 1)
		return false;
	sim_enqueue(d, kick, -1, now_ms);
	*dirty -= kick;
	return true;
}

/* sim_device_write()'s @woken for a single client: @arg is its waiting flag. */
static inline void sim_woken_one(void *arg, int waiter)
{
	(void)waiter;
	*(bool *)arg = false;
}

/* Sort the @n latencies from @lat, for sim_percentile(). */
static inline void sim_sort(uint64_t *lat, unsigned int n)
{
	qsort(lat, n, sizeof(*lat), nfswb_cmp_u64);
}

/*
 * @d's COMMIT latencies after the first @skip, sorted, at *@lat: their
 * count, or 0 (a failed check, named @label) when fewer than 100 are
 * left to take percentiles of.
 */
static inline unsigned int sim_commit_latencies(struct sim_device *d,
						unsigned int skip,
						const char *label,
						uint64_t **lat)
{
	unsigned int n = d->ncommits - skip;

	T_CHECK(n >= 100, "%s: %u COMMITs", label, d->ncommits);
	if (n < 100)
		return 0;
	*lat = d->lat + skip;
	sim_sort(*lat, n);
	return n;
}

/* The @pct percentile of @n (> 0) sorted latencies; 100: the largest. */
static inline uint64_t sim_percentile(const uint64_t *sorted, unsigned int n,
				      unsigned int pct)
{
	unsigned int i = n * pct / 100;

	return sorted[i < n ? i : n - 1];
}

#endif
