/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * estimator.h - a per-device write bandwidth estimate of nfswb's own.
 *
 * Fed with /sys/block/DEV/stat samples (default every 100 ms).  It learns
 * only from intervals in which the device was busy writing, so idle time
 * never decays it, and it must reach within 10 % of a new sustained rate
 * within 2 s while ignoring short bursts (the kernel's own estimate takes
 * ~10 s).  Pure code: no I/O, the caller passes time and counters.
 */
#ifndef NFSWB_ESTIMATOR_H
#define NFSWB_ESTIMATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "blkstat.h"

#define NFSWB_EST_WINDOW	16	/* busy samples remembered */

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
	uint64_t window[NFSWB_EST_WINDOW];	/* bytes/s of busy intervals */
	uint64_t window_ms[NFSWB_EST_WINDOW];	/* when each was learned */
	unsigned int nwindow, head;
	uint64_t estimate;			/* bytes/s, clamped */
	uint64_t busy_samples, skipped_samples;
	bool learned;				/* left cold start */
};

void nfswb_estimator_init(struct nfswb_estimator *e,
			  const struct nfswb_estimator_params *p);
/* Feed one sample taken at @now_ms (monotonic). */
void nfswb_estimator_sample(struct nfswb_estimator *e, uint64_t now_ms,
			    const struct nfswb_blkstat *s);
/* Current estimate in bytes/s, always within [min, max] and > 0. */
uint64_t nfswb_estimator_bandwidth(const struct nfswb_estimator *e);

#endif
