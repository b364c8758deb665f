// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * step.c - one interval of one device, as step.h describes.
 */
#include "config.h"

#include <string.h>

#include "step.h"

static bool commits_often(const struct nfswb_step_in *in)
{
	return in->written_bound && in->have_written &&
	       in->written_bound->commits.often;
}

void nfswb_step_sample(struct nfswb_estimator *est,
		       const struct nfswb_step_in *in,
		       struct nfswb_step_out *out)
{
	struct nfswb_policy_in p = in->policy;
	uint64_t written;
	bool have_bound;

	memset(out, 0, sizeof(*out));
	if (in->stat)
		nfswb_estimator_sample(est, in->policy.now_ms, in->stat);
	out->bandwidth = nfswb_estimator_bandwidth(est);
	out->have_write_rate = nfswb_estimator_write_rate(est,
							  &out->write_rate);
	p.bandwidth = out->bandwidth;
	p.write_rate = out->write_rate;
	p.have_write_rate = out->have_write_rate;
	have_bound = in->have_bound;
	out->bound_bytes = have_bound ? in->dirty_bound_bytes : 0;
	if (in->written_bound && in->have_written &&
	    nfswb_written_bound_get(in->written_bound, in->written_bytes,
				    in->policy.now_ms, &written) &&
	    (!have_bound || written < out->bound_bytes)) {
		out->bound_bytes = written;
		out->bound_written = true;
		have_bound = true;
	}
	/* Where it writes behind, or may begin to: write-behind's thresholds. */
	p.commits_often = commits_often(in);
	if (in->decide && have_bound)
		out->standby = nfswb_policy_standby(
			out->bound_bytes,
			nfswb_policy_standby_target(&p, p.memory.continuous),
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
		p.nfs_dirty_bytes = out->bound_bytes;
	else if (in->written_bound && in->have_written)
		out->bound_broke = nfswb_written_bound_look(
			in->written_bound, p.nfs_dirty_bytes,
			in->written_bytes, in->commits, p.now_ms,
			nfswb_policy_commits_often_backlog(p.background_min));
	p.commits_often = commits_often(in);
	nfswb_policy_decide(&p, &out->decision);
	if (!out->standby && in->written_bound && in->have_written)
		in->written_bound->base_kick = out->decision.kick_bytes;
	out->decision.standby = out->standby;
	out->commits_often = p.commits_often;
	out->decided = true;
	/* Standing by or not, a second apart; a standby sample costs less. */
	if (p.commits_often)
		out->sample_ms = p.interval_ms > NFSWB_COMMITS_OFTEN_INTERVAL_MS ?
				 p.interval_ms : NFSWB_COMMITS_OFTEN_INTERVAL_MS;
	else if (out->standby)
		out->sample_ms = nfswb_policy_standby_interval_ms(
			out->bound_bytes, out->decision.target_bytes,
			out->bandwidth, p.interval_ms);
	else
		out->sample_ms = p.interval_ms;
	nfswb_estimator_set_limited(est, out->decision.limited);
}

void nfswb_step(struct nfswb_estimator *est, const struct nfswb_step_in *in,
		struct nfswb_step_out *out)
{
	nfswb_step_sample(est, in, out);
	nfswb_step_decide(est, in, out);
}
