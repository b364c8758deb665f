/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - when to kick writeback, how much, and what dirty cap.
 *
 * Pure code: state in, decisions out, no I/O.  The daemon gathers the
 * inputs per device each interval, asks nfswb_policy_decide(), and hands
 * the decision to the device's mechanism.
 */
#ifndef NFSWB_POLICY_H
#define NFSWB_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/* Kicks smaller than this are deferred: tiny writes fragment (Chinner 2012). */
#define NFSWB_MIN_KICK_BYTES	(4ull << 20)
/* The target never goes below this, whatever bandwidth x time says. */
#define NFSWB_MIN_TARGET_BYTES	(8ull << 20)
/* Cap changes smaller than 1/8 are ignored (hysteresis). */
#define NFSWB_CAP_HYSTERESIS_SHIFT 3

struct nfswb_policy_in {
	uint64_t now_ms;
	uint64_t interval_ms;		/* sampling interval */
	uint64_t nfs_dirty_bytes;	/* dirty bytes NFS wrote on the device */
	uint64_t inflight_bytes;	/* kicked, not yet written */
	uint64_t bandwidth;		/* bytes/s, > 0 */
	uint64_t background_time_ms;
	uint64_t commit_target_ms;	/* 0: no cap */
	uint64_t cap_in_force;		/* bytes, 0: none */
};

struct nfswb_policy_out {
	uint64_t target_bytes;	/* bandwidth x background_time, floored */
	uint64_t kick_bytes;	/* start writeback of this many now (0: none) */
	uint64_t cap_bytes;	/* desired cap, 0: none */
	bool cap_change;	/* cap_bytes differs enough from cap_in_force */
};

void nfswb_policy_decide(const struct nfswb_policy_in *in,
			 struct nfswb_policy_out *out);

#endif
