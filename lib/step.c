// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * step.c - one interval of one device, as step.h describes.
 */
#include "config.h"

#include <string.h>

#include "step.h"

void nfswb_step(struct nfswb_estimator *est, const struct nfswb_step_in *in,
		struct nfswb_step_out *out)
{
	struct nfswb_policy_in p = in->policy;

	memset(out, 0, sizeof(*out));
	if (in->stat)
		nfswb_estimator_sample(est, p.now_ms, in->stat);
	out->bandwidth = nfswb_estimator_bandwidth(est);
	if (!in->decide)
		return;
	p.bandwidth = out->bandwidth;
	nfswb_policy_decide(&p, &out->decision);
	out->decided = true;
}
