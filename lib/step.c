// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * step.c - one interval of one device, as step.h describes.
 */
#include "config.h"

#include <string.h>

#include "satmath.h"
#include "step.h"

void nfswb_step_sample(struct nfswb_estimator *est,
		       const struct nfswb_step_in *in,
		       struct nfswb_step_out *out)
{
	memset(out, 0, sizeof(*out));
	if (in->stat)
		nfswb_estimator_sample(est, in->policy.now_ms, in->stat);
	out->bandwidth = nfswb_estimator_bandwidth(est);
	if (in->decide && in->have_bound)
		out->standby = nfswb_policy_standby(
			in->dirty_bound_bytes,
			nfswb_policy_target(out->bandwidth,
					    in->policy.background_time_ms),
			in->standby_in_force);
}

void nfswb_step_decide(struct nfswb_estimator *est,
		       const struct nfswb_step_in *in,
		       struct nfswb_step_out *out)
{
	struct nfswb_policy_in p = in->policy;
	uint64_t backlog;

	if (!in->decide)
		return;
	p.bandwidth = out->bandwidth;
	if (out->standby)
		p.nfs_dirty_bytes = in->dirty_bound_bytes;
	nfswb_policy_decide(&p, &out->decision);
	out->decision.standby = out->standby;
	out->decided = true;
	backlog = nfswb_add_sat(p.nfs_dirty_bytes, p.inflight_bytes);
	nfswb_estimator_set_backlog(est, backlog >=
				    out->decision.target_bytes >>
				    NFSWB_STANDBY_LEAVE_SHIFT);
}

void nfswb_step(struct nfswb_estimator *est, const struct nfswb_step_in *in,
		struct nfswb_step_out *out)
{
	nfswb_step_sample(est, in, out);
	nfswb_step_decide(est, in, out);
}
