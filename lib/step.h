/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * step.h - one sampling interval of one device: sample -> estimate ->
 * standby? -> dirty -> policy.  Pure code: the caller reads the device's
 * counters, a cheap bound of its dirty bytes, its dirty bytes as the
 * mechanism measures them (unless the device stands by) and what the
 * mechanisms and the kernel report, and carries the decision out.
 * nfswbd's per-device tick and the closed-loop simulation
 * (tests/unit/test_core_sim.c) both run exactly this.
 *
 * In two halves, because standing by decides whether the expensive
 * input is read at all:
 *   nfswb_step_sample()  feeds the estimator, says whether to stand by;
 *   nfswb_step_decide()  with nfs_dirty_bytes measured (or, standing by,
 *                        the bound in its place) decides.
 * nfswb_step() runs both when every input is at hand.
 */
#ifndef NFSWB_STEP_H
#define NFSWB_STEP_H

#include <stdbool.h>

#include "blkstat.h"
#include "estimator.h"
#include "policy.h"

struct nfswb_step_in {
	/* The device's counters now; NULL when they could not be read. */
	const struct nfswb_blkstat *stat;
	/* false (mode off): only sample, decide nothing. */
	bool decide;
	/*
	 * An upper bound of the device's dirty bytes that costs one read
	 * (nfswb_dirty_bound); have_bound false when none was read, and
	 * then the device never stands by.
	 */
	bool have_bound;
	uint64_t dirty_bound_bytes;
	bool standby_in_force;		/* it stood by last interval */
	/*
	 * The written bound (policy.h), when the mechanism's measurement
	 * counts NFS's writes alone (files mode), and nfsd's counts now
	 * (have_written): the bytes it wrote, and the COMMITs it was sent
	 * (0 when it does not count them); NULL: none.  The device stands
	 * by with the smaller of the two bounds; nfswb_step_decide() checks
	 * a measured interval against it and starts it over from there.
	 */
	struct nfswb_written_bound *written_bound;
	bool have_written;
	uint64_t written_bytes;
	uint64_t commits;
	/*
	 * Every policy input except bandwidth and the write rate, which
	 * the step fills in; memory is the last decision's.
	 */
	struct nfswb_policy_in policy;
};

struct nfswb_step_out {
	bool decided;
	/* Stand by: do not measure nfs_dirty_bytes; the bound stands in. */
	bool standby;
	uint64_t bound_bytes;		/* that bound, when there was one */
	bool bound_written;		/* it was the written bound */
	bool bound_broke;		/* this look broke the written bound */
	/* The clients commit often (struct nfswb_commits_often): it does nothing. */
	bool commits_often;
	/*
	 * When to sample the device next, ms after this sample: the
	 * interval, longer while it stands by
	 * (nfswb_policy_standby_interval_ms), NFSWB_COMMITS_OFTEN_INTERVAL_MS
	 * where the clients commit often.  Set when decided.
	 */
	uint64_t sample_ms;
	uint64_t bandwidth;		/* the estimate the decision used */
	uint64_t write_rate;		/* and the write rate, if known */
	bool have_write_rate;
	struct nfswb_policy_out decision;	/* valid when decided */
};

/**
 * nfswb_step_sample - the first half: feed @in->stat at
 * @in->policy.now_ms to @est, and decide whether the device stands by.
 * @out: bandwidth, standby and the bound are set, the rest cleared
 */
void nfswb_step_sample(struct nfswb_estimator *est,
		       const struct nfswb_step_in *in,
		       struct nfswb_step_out *out);

/**
 * nfswb_step_decide - the second half, after nfswb_step_sample(@out).
 * @in: as for the first half, with nfs_dirty_bytes measured unless
 *      @out->standby
 *
 * Also tells @est whether its estimate limits writeback (data above the
 * target waits for in-flight room): otherwise only sustained writing
 * teaches it (estimator.h).
 */
void nfswb_step_decide(struct nfswb_estimator *est,
		       const struct nfswb_step_in *in,
		       struct nfswb_step_out *out);

/** nfswb_step - both halves, for a caller with every input at hand. */
void nfswb_step(struct nfswb_estimator *est, const struct nfswb_step_in *in,
		struct nfswb_step_out *out);

#endif
