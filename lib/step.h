/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * step.h - one sampling interval of one device: sample -> estimate ->
 * dirty -> policy.  Pure code: the caller reads the device's counters,
 * its dirty bytes and what the mechanisms and the kernel report, and
 * carries the decision out.  nfswbd's per-device tick and the closed-loop
 * simulation (tests/unit/test_core_sim.c) both run exactly this.
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
	/* Every policy input except bandwidth, which the step fills in. */
	struct nfswb_policy_in policy;
};

struct nfswb_step_out {
	bool decided;
	uint64_t bandwidth;		/* the estimate the decision used */
	struct nfswb_policy_out decision;	/* valid when decided */
};

/**
 * nfswb_step - one interval for one device.
 * @est: the device's estimator, fed @in->stat at @in->policy.now_ms
 * @in: the inputs
 * @out: the decision
 */
void nfswb_step(struct nfswb_estimator *est, const struct nfswb_step_in *in,
		struct nfswb_step_out *out);

#endif
