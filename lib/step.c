// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * step.c - one interval of one device, as step.h describes.
 */
#include "config.h"

#include <string.h>

#include "step.h"

void nfswb_step_sample(struct nfswb_estimator *est,
		       const struct nfswb_step_in *in,
		       struct nfswb_step_out *out)
{
	struct nfswb_policy_in p = in->policy;

	memset(out, 0, sizeof(*out));
	if (in->stat)
		nfswb_estimator_sample(est, in->policy.now_ms, in->stat);
	out->bandwidth = nfswb_estimator_bandwidth(est);
	out->have_write_rate = nfswb_estimator_write_rate(est,
							  &out->write_rate);
	p.bandwidth = out->bandwidth;
	p.write_rate = out->write_rate;
	p.have_write_rate = out->have_write_rate;
	/* Kicked continuously last interval: the lowered target's thresholds. */
	if (in->decide && in->have_bound)
		out->standby = nfswb_policy_standby(
			in->dirty_bound_bytes,
			nfswb_policy_target_now(&p, p.memory.continuous),
			in->standby_in_force);
}

void nfswb_step_decide(struct nfswb_estimator *est,
		       const struct nfswb_step_in *in,
		       struct nfswb_step_out *out)
{
	struct nfswb_policy_in p = in->policy;

	if (!in->decide)
		return;
	p.bandwidth = out->bandwidth;
	p.write_rate = out->write_rate;
	p.have_write_rate = out->have_write_rate;
	if (out->standby)
		p.nfs_dirty_bytes = in->dirty_bound_bytes;
	nfswb_policy_decide(&p, &out->decision);
	out->decision.standby = out->standby;
	out->decided = true;
	nfswb_estimator_set_limited(est, out->decision.limited);
}

void nfswb_step(struct nfswb_estimator *est, const struct nfswb_step_in *in,
		struct nfswb_step_out *out)
{
	nfswb_step_sample(est, in, out);
	nfswb_step_decide(est, in, out);
}
