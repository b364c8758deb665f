/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * estimator.h - a per-device write bandwidth estimate of nfswb's own.
 *
 * Fed with /sys/block/DEV/stat samples (default every 100 ms).  It learns
 * only from periods in which the device was busy writing, so idle time
 * never decays it, and it reaches within 10 % of a new sustained rate
 * within 2 s while ignoring short bursts (the kernel's own estimate takes
 * ~10 s).  Pure code: no I/O, the caller passes time and counters.
 *
 * The rule (doc/design.md explains why):
 *   Samples closer than NFSWB_EST_MIN_PERIOD_MS to the last baseline are
 *   merged into one period, so a short daemon interval does not turn
 *   jiffy-granular io_ticks into noise; so are samples after which the
 *   device was busy for NFSWB_EST_STALL_PCT % of the time but completed
 *   nothing, so that a stall (up to NFSWB_EST_MAX_STALL_MS) counts against
 *   the period that ends it.  A period teaches when the device
 *   wrote at least NFSWB_EST_MIN_BYTES, io_ticks advanced by at least
 *   NFSWB_EST_BUSY_PCT % of the wall time (or it wrote a batch of
 *   NFSWB_EST_BATCH_BYTES at an average depth of NFSWB_EST_MIN_DEPTH), and
 *   writes held at least half of the request time (wr_ticks against
 *   rd_ticks + dc_ticks).  Its rate
 *   is the bytes written divided by the write share of the busy time, i.e.
 *   what the device writes while it is writing.  The estimate is the
 *   median of the rates of the newest periods that cover NFSWB_EST_SPAN_MS
 *   (at least NFSWB_EST_MIN_SAMPLES of them), each weighted by its length,
 *   clamped to [min, max].
 *   Unless the estimate holds writeback back (the step says so: data
 *   above the target waits for in-flight room, see
 *   nfswb_estimator_set_limited) only sustained writing teaches: a
 *   period that ends a run of busy periods at least NFSWB_EST_SUSTAIN_MS
 *   long.  The first NFSWB_EST_SUSTAIN_MS of every run are left out,
 *   counted in burst_samples: a throttle's bucket (qemu lets bps/10
 *   through at once) or a disk's write cache lets a short burst after
 *   idle through far faster than the device sustains, and a workload
 *   whose COMMITs come often, or whose data arrives slower than the
 *   device writes, writes nothing but such bursts.  While it is limited
 *   every busy period teaches as above: an estimate too low must rise
 *   with the kicks it allows, which keep the device only partly busy.
 *   Beside the estimate, the write rate: bytes written per second of
 *   wall time over the newest NFSWB_EST_RATE_MS (nfswb_estimator_
 *   write_rate), which the policy's target follows below the device's
 *   speed.
 *   Cold start: initial_bw until periods covering NFSWB_EST_COLD_MS, and
 *   at least NFSWB_EST_MIN_SAMPLES of them, have taught.
 *   A counter that goes backwards is a 32-bit wrap when the wrapped
 *   difference is plausible, otherwise a reset: the period is skipped and
 *   the sample becomes the new baseline.
 */
#ifndef NFSWB_ESTIMATOR_H
#define NFSWB_ESTIMATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "blkstat.h"

#define NFSWB_EST_WINDOW	32	/* busy periods remembered, at most */
#define NFSWB_EST_SPAN_MS	1600	/* the median looks this far back */
#define NFSWB_EST_MIN_SAMPLES	3	/* ...over at least this many periods */
#define NFSWB_EST_COLD_MS	500	/* busy time before the first median */
#define NFSWB_EST_MIN_PERIOD_MS	80	/* shorter samples are merged */
#define NFSWB_EST_STALL_PCT	90	/* busy, nothing completed: merged */
#define NFSWB_EST_MAX_STALL_MS	500	/* ...for at most this long */
#define NFSWB_EST_BUSY_PCT	50	/* io_ticks share of wall time */
#define NFSWB_EST_BATCH_BYTES	(1ull << 20)	/* ...or a batch this big */
#define NFSWB_EST_MIN_DEPTH	4	/* ...written at this depth */
#define NFSWB_EST_MIN_BYTES	(64ull << 10)	/* written in the period */
#define NFSWB_EST_SUSTAIN_MS	500	/* busy this long: past the burst */
#define NFSWB_EST_RATE_MS	2000	/* the write rate looks this far back */
/* Faster than this is a counter glitch, not a device (1 TiB/s). */
#define NFSWB_EST_PLAUSIBLE_BW	(1ull << 40)

struct nfswb_estimator_params {
	uint64_t fixed_bw;	/* bytes/s; non-zero disables estimation */
	uint64_t min_bw;	/* clamp; 0 = NFSWB_EST_DEFAULT_MIN */
	uint64_t max_bw;	/* clamp; 0 = none */
	uint64_t initial_bw;	/* cold start; 0 = NFSWB_EST_DEFAULT_INITIAL */
};

#define NFSWB_EST_DEFAULT_MIN		(4ull << 20)	/* 4 MiB/s */
#define NFSWB_EST_DEFAULT_INITIAL	(32ull << 20)	/* 32 MiB/s */

struct nfswb_estimator {
	struct nfswb_estimator_params p;
	bool have_prev;
	uint64_t prev_ms;
	struct nfswb_blkstat prev;
	uint64_t window[NFSWB_EST_WINDOW];	/* bytes/s of busy periods */
	uint64_t window_len[NFSWB_EST_WINDOW];	/* their lengths, ms */
	uint64_t window_ms[NFSWB_EST_WINDOW];	/* when each was learned */
	unsigned int nwindow, head;		/* head: next slot to fill */
	uint64_t estimate;			/* bytes/s, clamped */
	uint64_t last_rate;			/* newest busy period, raw */
	uint64_t learned_ms;			/* busy period time, saturating */
	uint64_t busy_samples, idle_samples, skipped_samples;
	uint64_t stalled_samples;		/* merged into the next period */
	uint64_t burst_samples;			/* busy, not yet sustained */
	uint64_t run_ms;			/* busy periods in a row, ms */
	bool limited;				/* see set_limited; initially true */
	/* Every measured period, busy or not: bytes written, length ms. */
	uint64_t rate_bytes[NFSWB_EST_WINDOW], rate_len[NFSWB_EST_WINDOW];
	unsigned int nrate, rate_head;
	bool learned;				/* left cold start */
};

/**
 * nfswb_estimator_init - start cold.
 * @e: the estimator
 * @p: parameters, copied; NULL for all defaults
 *
 * A max_bw below min_bw is raised to min_bw (the configuration parser
 * rejects such a pair; this keeps the estimator total).
 */
void nfswb_estimator_init(struct nfswb_estimator *e,
			  const struct nfswb_estimator_params *p);

/**
 * nfswb_estimator_sample - feed one sample.
 * @e: the estimator
 * @now_ms: when @s was read, on a monotonic clock
 * @s: the device's counters
 *
 * The first sample only sets the baseline.  A sample less than
 * NFSWB_EST_MIN_PERIOD_MS after the baseline is left for the next one to
 * include, as is one after a stall (see above).  A sample not later than
 * the baseline, or whose counters went
 * back (a reset), is counted in skipped_samples and becomes the new
 * baseline.
 */
void nfswb_estimator_sample(struct nfswb_estimator *e, uint64_t now_ms,
			    const struct nfswb_blkstat *s);

/**
 * nfswb_estimator_set_limited - does the estimate hold writeback back?
 * @e: the estimator
 * @limited: true when data above the target waits because the in-flight
 *           bound (sized by the estimate) is full; false lets the next
 *           samples teach only sustained writing (see above)
 */
void nfswb_estimator_set_limited(struct nfswb_estimator *e, bool limited);

/**
 * nfswb_estimator_write_rate - what the device wrote lately.
 * @e: the estimator
 * @bps: set to the bytes written per second of wall time, idle time
 *       included, over the newest periods covering NFSWB_EST_RATE_MS
 *
 * Unlike the bandwidth this is no speed but a throughput: below the
 * device's speed it is the rate at which data arrives (all of it is
 * written eventually), at or above it what the device sustains.
 * Return: false (and @bps untouched) with fixed_bw (bandwidth= fixes the
 * target as well), or until periods covering NFSWB_EST_RATE_MS have been
 * measured.
 */
bool nfswb_estimator_write_rate(const struct nfswb_estimator *e,
				uint64_t *bps);

/**
 * nfswb_estimator_bandwidth - the estimate in bytes/s.
 * @e: the estimator
 *
 * Return: fixed_bw when set (it is not clamped: the admin said so),
 * otherwise a value within [min, max], never 0.
 */
uint64_t nfswb_estimator_bandwidth(const struct nfswb_estimator *e);

#endif
