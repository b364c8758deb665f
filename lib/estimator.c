// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * estimator.c - per-device write bandwidth from /sys/block/DEV/stat.
 *
 * See estimator.h for the rule and doc/design.md for the reasons.
 */
#include "config.h"

#include <string.h>

#include "estimator.h"
#include "satmath.h"

#define SECTOR_SIZE	512u
/* io_ticks and jiffies sampling may run a little ahead of our clock. */
#define TICKS_SLACK_MS	50u

static uint64_t clamp_bw(const struct nfswb_estimator *e, uint64_t bw)
{
	uint64_t lo = e->p.min_bw, hi = e->p.max_bw;

	if (bw < lo)
		return lo;
	if (hi && bw > hi)
		return hi;
	return bw;
}

void nfswb_estimator_init(struct nfswb_estimator *e,
			  const struct nfswb_estimator_params *p)
{
	memset(e, 0, sizeof(*e));
	if (p)
		e->p = *p;
	if (!e->p.min_bw)
		e->p.min_bw = NFSWB_EST_DEFAULT_MIN;
	if (e->p.max_bw && e->p.max_bw < e->p.min_bw)
		e->p.max_bw = e->p.min_bw;
	if (!e->p.initial_bw)
		e->p.initial_bw = NFSWB_EST_DEFAULT_INITIAL;
	e->limited = true;
	e->estimate = e->p.fixed_bw ? e->p.fixed_bw
				    : clamp_bw(e, e->p.initial_bw);
}

/*
 * The increase of a counter between two samples.  The kernel prints the
 * tick fields as 32-bit values (and the I/O counts as unsigned long, 32 bits
 * on 32-bit kernels), so a counter that went back while both values fit in
 * 32 bits may have wrapped.  The wrap is believed only if the difference
 * modulo 2^32 is no more than @limit; anything else is a reset (device
 * re-created, stats cleared) and the caller skips the period.
 */
static bool counter_delta(uint64_t prev, uint64_t cur, uint64_t limit,
			  uint64_t *delta)
{
	uint64_t d;

	if (cur >= prev)
		d = cur - prev;
	else if (prev <= UINT32_MAX)
		d = (uint32_t)(cur - prev);
	else
		return false;
	if (d > limit)
		return false;
	*delta = d;
	return true;
}

/*
 * The median of the newest periods covering NFSWB_EST_SPAN_MS (at least
 * NFSWB_EST_MIN_SAMPLES), each weighted by its length, so that the span
 * and not the daemon's interval decides how fast the estimate follows.
 */
static uint64_t weighted_median(const struct nfswb_estimator *e)
{
	uint64_t rate[NFSWB_EST_WINDOW], len[NFSWB_EST_WINDOW];
	uint64_t span = 0, half, sum = 0;
	unsigned int n = 0, i, j;

	while (n < e->nwindow &&
	       (span < NFSWB_EST_SPAN_MS || n < NFSWB_EST_MIN_SAMPLES)) {
		unsigned int k = (e->head + NFSWB_EST_WINDOW - 1 - n) %
				 NFSWB_EST_WINDOW;
		uint64_t r = e->window[k], l = e->window_len[k];

		/* Insertion sort by rate: at most 32 values. */
		for (j = n; j > 0 && rate[j - 1] > r; j--) {
			rate[j] = rate[j - 1];
			len[j] = len[j - 1];
		}
		rate[j] = r;
		len[j] = l;
		span += l;
		n++;
	}
	half = span / 2;
	for (i = 0; i < n; i++) {
		sum += len[i];
		if (sum > half)
			break;
	}
	return rate[i < n ? i : n - 1];
}

static void learn(struct nfswb_estimator *e, uint64_t now_ms, uint64_t len,
		  uint64_t rate)
{
	/* One stalled sample must not outweigh the whole span. */
	if (len > NFSWB_EST_SPAN_MS)
		len = NFSWB_EST_SPAN_MS;
	e->window[e->head] = rate;
	e->window_len[e->head] = len;
	e->window_ms[e->head] = now_ms;
	e->head = (e->head + 1) % NFSWB_EST_WINDOW;
	if (e->nwindow < NFSWB_EST_WINDOW)
		e->nwindow++;
	e->last_rate = rate;
	e->busy_samples++;
	e->learned_ms = nfswb_add_sat(e->learned_ms, len);
	if (e->learned_ms >= NFSWB_EST_COLD_MS &&
	    e->busy_samples >= NFSWB_EST_MIN_SAMPLES)
		e->learned = true;
	if (e->learned)
		e->estimate = clamp_bw(e, weighted_median(e));
}

/*
 * The time the device spent on writes: the busy time, apportioned by the
 * request time of writes against reads and discards.  Request times are
 * sums over concurrent requests, so this is a share of queue occupancy,
 * which (Little's law) follows the share of the device's throughput.
 * Without tick accounting, sectors decide the share.
 */
static uint64_t write_busy_ms(uint64_t busy, uint64_t wr_t, uint64_t other_t,
			      uint64_t wr_sect, uint64_t other_sect)
{
	uint64_t num = wr_t, other = other_t, den;

	if (!num && !other) {
		num = wr_sect;
		other = other_sect;
	}
	/* Only the ratio matters: keep num and den below 2^32. */
	while (num > INT32_MAX || other > INT32_MAX) {
		num >>= 1;
		other >>= 1;
	}
	den = num + other;
	if (!den || num < other)
		return 0;	/* writes were not the main load */
	return busy / den * num + busy % den * num / den;
}

/*
 * A period busy for less than NFSWB_EST_BUSY_PCT % still teaches when it
 * wrote a batch at depth: at least NFSWB_EST_BATCH_BYTES with on average
 * NFSWB_EST_MIN_DEPTH writes in flight while writing (wr_ticks per write
 * busy ms, Little's law).  That is what nfswbd's own kicks look like on a
 * device faster than its estimate: without this rule an estimate that is
 * too low keeps the kicks too small to keep the device half busy, and the
 * estimator would never see the device's speed.  A journal commit or a
 * trickle of small synchronous writes runs at depth 1 and is left out.
 */
static bool deep_batch(uint64_t bytes, uint64_t dwr_t, uint64_t wbusy)
{
	return bytes >= NFSWB_EST_BATCH_BYTES &&
	       dwr_t / wbusy >= NFSWB_EST_MIN_DEPTH;
}

/* Remember every measured period for the write rate. */
static void note_written(struct nfswb_estimator *e, uint64_t len,
			 uint64_t bytes)
{
	e->rate_bytes[e->rate_head] = bytes;
	e->rate_len[e->rate_head] = len;
	e->rate_head = (e->rate_head + 1) % NFSWB_EST_WINDOW;
	if (e->nrate < NFSWB_EST_WINDOW)
		e->nrate++;
}

bool nfswb_estimator_write_rate(const struct nfswb_estimator *e,
				uint64_t *bps)
{
	uint64_t bytes = 0, len = 0;

	/* bandwidth= fixes the target too: the admin said so. */
	if (e->p.fixed_bw)
		return false;
	for (unsigned int n = 0; n < e->nrate && len < NFSWB_EST_RATE_MS;
	     n++) {
		unsigned int k = (e->rate_head + NFSWB_EST_WINDOW - 1 - n) %
				 NFSWB_EST_WINDOW;

		bytes = nfswb_add_sat(bytes, e->rate_bytes[k]);
		len = nfswb_add_sat(len, e->rate_len[k]);
	}
	if (len < NFSWB_EST_RATE_MS)
		return false;
	*bps = nfswb_mul_sat(bytes / len, 1000) +
	       bytes % len * 1000 / len;
	return true;
}

void nfswb_estimator_sample(struct nfswb_estimator *e, uint64_t now_ms,
			    const struct nfswb_blkstat *s)
{
	const struct nfswb_blkstat *p = &e->prev;
	uint64_t dt, max_sect, max_ticks, max_rqt;
	uint64_t dwr, drd, ddc, dbusy, dwr_t, drd_t, ddc_t, wbusy, bytes;
	bool busy;

	if (!e->have_prev)
		goto rebase;
	if (now_ms <= e->prev_ms) {
		e->skipped_samples++;
		e->run_ms = 0;
		goto rebase;
	}
	dt = now_ms - e->prev_ms;
	/* Too short to measure: the next sample's period includes it. */
	if (dt < NFSWB_EST_MIN_PERIOD_MS)
		return;

	/*
	 * Plausibility limits for a wrapped counter: sectors no faster than
	 * NFSWB_EST_PLAUSIBLE_BW, io_ticks no more than the wall time, and
	 * request times (summed over up to 2^16 concurrent requests) no more
	 * than 2^16 x the wall time.
	 */
	max_sect = nfswb_mul_sat(dt,
				 NFSWB_EST_PLAUSIBLE_BW / SECTOR_SIZE / 1000);
	max_ticks = dt > UINT32_MAX ? UINT64_MAX : dt + TICKS_SLACK_MS;
	max_rqt = nfswb_mul_sat(max_ticks, 1u << 16);
	if (!counter_delta(p->wr_sectors, s->wr_sectors, max_sect, &dwr) ||
	    !counter_delta(p->rd_sectors, s->rd_sectors, max_sect, &drd) ||
	    !counter_delta(p->dc_sectors, s->dc_sectors, max_sect, &ddc) ||
	    !counter_delta(p->io_ticks, s->io_ticks, max_ticks, &dbusy) ||
	    !counter_delta(p->wr_ticks, s->wr_ticks, max_rqt, &dwr_t) ||
	    !counter_delta(p->rd_ticks, s->rd_ticks, max_rqt, &drd_t) ||
	    !counter_delta(p->dc_ticks, s->dc_ticks, max_rqt, &ddc_t)) {
		e->skipped_samples++;
		e->run_ms = 0;
		goto rebase;
	}

	/*
	 * A device that does no io_ticks accounting but had requests in
	 * flight at both ends of the period was busy throughout.
	 */
	if (!dbusy && p->in_flight && s->in_flight)
		dbusy = dt;
	if (dbusy > dt)
		dbusy = dt;

	/*
	 * Sectors and request times are counted when requests complete,
	 * io_ticks as time passes.  A period in which the device was busy
	 * throughout but completed nothing has measured nothing yet: it is
	 * left to the next sample's period, so that a stall (garbage
	 * collection, a host flushing its cache) lowers the rate of the
	 * period that ends it, as it lowers what the device really writes.
	 * A short stall then weighs like a burst: the median ignores it; a
	 * device that stalls most of the time gets a low estimate.
	 */
	if (!dwr && !drd && !ddc && s->in_flight &&
	    nfswb_mul_sat(dbusy, 100) >=
	    nfswb_mul_sat(dt, NFSWB_EST_STALL_PCT)) {
		/*
		 * Longer than NFSWB_EST_MAX_STALL_MS is a hang or broken
		 * accounting (an in_flight count stuck above zero keeps
		 * io_ticks running on an idle device): measure nothing.
		 */
		if (dt > NFSWB_EST_MAX_STALL_MS) {
			note_written(e, dt, 0);
			e->idle_samples++;
			e->run_ms = 0;
			goto rebase;
		}
		e->stalled_samples++;
		return;
	}

	bytes = nfswb_mul_sat(dwr, SECTOR_SIZE);
	note_written(e, dt, bytes);
	wbusy = write_busy_ms(dbusy, dwr_t, nfswb_add_sat(drd_t, ddc_t), dwr,
			      nfswb_add_sat(drd, ddc));
	busy = nfswb_mul_sat(dbusy, 100) >=
	       nfswb_mul_sat(dt, NFSWB_EST_BUSY_PCT);
	if (!wbusy || bytes < NFSWB_EST_MIN_BYTES ||
	    (!busy && !deep_batch(bytes, dwr_t, wbusy))) {
		e->idle_samples++;
		e->run_ms = 0;
		goto rebase;
	}
	/* A deep batch on a mostly idle device is no sustained run. */
	e->run_ms = busy ? nfswb_add_sat(e->run_ms, dt) : 0;
	if (!e->limited && e->run_ms < NFSWB_EST_SUSTAIN_MS) {
		e->burst_samples++;
		goto rebase;
	}
	if (!e->p.fixed_bw)
		learn(e, now_ms, dt, nfswb_mul_sat(bytes, 1000) / wbusy);
	else
		e->busy_samples++;

rebase:
	e->prev = *s;
	e->prev_ms = now_ms;
	e->have_prev = true;
}

void nfswb_estimator_set_limited(struct nfswb_estimator *e, bool limited)
{
	e->limited = limited;
}

uint64_t nfswb_estimator_bandwidth(const struct nfswb_estimator *e)
{
	return e->estimate;
}
