// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_step.c - nfswb_step(), the per-device interval nfswbd runs: a
 * table of inputs (bandwidth, dirty, what the mechanisms and the kernel
 * report) and the decisions they must give, then that the step samples
 * the device with and without deciding.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "step.h"
#include "test.h"

#define MiB	(1ull << 20)
#define GiB	(1ull << 30)

static const struct step_case {
	const char *name;
	uint64_t bw, bg_ms, ct_ms, dirty, inflight, cap, knob, kernel_bw,
		 thresh;
	uint64_t target, kick, want_cap, knob_ms;
	bool cap_change, clamped, knob_change;
} cases[] = {
	/* name              bw        bg    ct    dirty     infl   cap      knob kbw      thresh
	 *                   target    kick     cap      knob  chg clamp knobchg */
	{ "below target",    100*MiB, 1000,    0,  50*MiB,      0,       0,    0,       0,      0,
			     100*MiB,       0,       0, 1000, false, false, true },
	{ "excess kicked",   100*MiB, 1000,    0, 130*MiB,      0,       0, 1000,       0,      0,
			     100*MiB,  20*MiB,       0, 1000, false, false, false },
	{ "in-flight bound", 100*MiB, 1000,    0, 300*MiB, 15*MiB,       0, 1000,       0,      0,
			     100*MiB,   5*MiB,       0, 1000, false, false, false },
	{ "target floor",      1*MiB, 1000,    0,  20*MiB,      0,       0, 1000,       0,      0,
			       8*MiB,       4*MiB,   0, 1000, false, false, false },
	{ "cap",             100*MiB, 1000, 3000,       0,      0,       0, 1000,       0,      0,
			     100*MiB,       0, 300*MiB, 1000, true, false, false },
	{ "cap hysteresis",  100*MiB, 1000, 3000,       0,      0, 280*MiB, 1000,       0,      0,
			     100*MiB,       0, 300*MiB, 1000, false, false, false },
	{ "cap floor",         4*MiB, 1000, 2000,       0,      0,       0, 1000,       0,      0,
			       8*MiB,       0,  64*MiB, 1000, true, false, false },
	{ "cap clamped",       1*GiB, 1000, 5000,       0,      0,       0, 1000,       0,  2*GiB,
			       1*GiB,       0,   2*GiB, 1000, true, true, false },
	{ "clamp in force",    1*GiB, 1000, 5000,       0,      0,   2*GiB, 1000,      0,  2*GiB,
			       1*GiB,       0,   2*GiB, 1000, false, true, false },
	{ "threshold unknown", 1*GiB, 1000, 5000,       0,      0,       0, 1000,       0,      0,
			       1*GiB,       0,   5*GiB, 1000, true, false, false },
	{ "cap lifted",      100*MiB, 1000,    0,       0,      0, 300*MiB, 1000,       0,      0,
			     100*MiB,       0,       0, 1000, true, false, false },
	{ "knob over kernel estimate", 32*MiB, 1000, 0,  0,      0,       0, 1000, 100*MiB,      0,
			      32*MiB,       0,       0,  320, false, false, true },
	{ "knob within 1/8",  32*MiB, 1000,    0,       0,      0,       0,  300, 100*MiB,      0,
			      32*MiB,       0,       0,  320, false, false, false },
	{ "knob bounded",    500*MiB, 1000,    0,       0,      0,       0, 1000,   5*MiB,      0,
			     500*MiB,       0,       0, 10000, false, false, true },
};

static void test_table(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct step_case *c = &cases[i];
		struct nfswb_estimator_params p = { .fixed_bw = c->bw };
		struct nfswb_estimator est;
		struct nfswb_step_in in = {
			.decide = true,
			.policy = {
				.now_ms = 5000, .interval_ms = 100,
				.nfs_dirty_bytes = c->dirty,
				.inflight_bytes = c->inflight,
				.background_time_ms = c->bg_ms,
				.commit_target_ms = c->ct_ms,
				.cap_in_force = c->cap,
				.knob_in_force_ms = c->knob,
				.kernel_bw = c->kernel_bw,
				.dirty_threshold = c->thresh,
			},
		};
		struct nfswb_step_out out;
		const struct nfswb_policy_out *o = &out.decision;

		nfswb_estimator_init(&est, &p);
		nfswb_step(&est, &in, &out);
		T_CHECK(out.decided && out.bandwidth == c->bw, "%s: decided",
			c->name);
		T_CHECK(o->target_bytes == c->target && o->kick_bytes == c->kick,
			"%s: target %" PRIu64 " kick %" PRIu64, c->name,
			o->target_bytes, o->kick_bytes);
		T_CHECK(o->cap_bytes == c->want_cap &&
			o->cap_change == c->cap_change &&
			o->cap_clamped == c->clamped,
			"%s: cap %" PRIu64 " change %d clamped %d", c->name,
			o->cap_bytes, o->cap_change, o->cap_clamped);
		T_CHECK(o->knob_ms == c->knob_ms &&
			o->knob_change == c->knob_change,
			"%s: knob %" PRIu64 " change %d", c->name, o->knob_ms,
			o->knob_change);
	}
}

/* The step samples whether or not it decides; no sample, no baseline. */
static void test_sampling(void)
{
	struct nfswb_blkstat st = { .nfields = 17 };
	struct nfswb_step_in in = {
		.policy = { .now_ms = 1000, .background_time_ms = 1000 },
	};
	struct nfswb_step_out out;
	struct nfswb_estimator est;

	nfswb_estimator_init(&est, NULL);
	nfswb_step(&est, &in, &out);
	T_CHECK(!est.have_prev && !out.decided,
		"no sample: no baseline, no decision");
	T_CHECK(out.bandwidth == NFSWB_EST_DEFAULT_INITIAL,
		"cold estimate %" PRIu64, out.bandwidth);

	in.stat = &st;
	nfswb_step(&est, &in, &out);
	T_CHECK(est.have_prev && est.prev_ms == 1000 && !out.decided,
		"mode off still samples");

	/* 1 s of 100 MiB written, busy throughout: a period that teaches. */
	st.wr_sectors = 100 * MiB / 512;
	st.wr_ios = 800;
	st.io_ticks = 1000;
	st.wr_ticks = 1000;
	in.policy.now_ms = 2000;
	in.decide = true;
	nfswb_step(&est, &in, &out);
	T_CHECK(est.busy_samples == 1 && out.decided,
		"busy period learned: %" PRIu64, est.busy_samples);
	T_CHECK(out.decision.target_bytes == out.bandwidth,
		"target %" PRIu64 " from the step's own estimate %" PRIu64,
		out.decision.target_bytes, out.bandwidth);
}

/*
 * Standby: the first half decides it from the bound and the target of
 * the estimate; standing by, the bound stands in for the dirty bytes
 * (so no kick), the decision says so, and the estimator hears that there
 * is no backlog.  Without a bound the device never stands by.
 */
static void test_standby(void)
{
	struct nfswb_estimator_params p = { .fixed_bw = 32 * MiB };
	struct nfswb_step_in in = {
		.decide = true, .have_bound = true,
		.dirty_bound_bytes = 2 * MiB,
		.policy = { .now_ms = 1000, .interval_ms = 100,
			    .background_time_ms = 1000,
			    .nfs_dirty_bytes = 999 * MiB },
	};
	struct nfswb_step_out out;
	struct nfswb_estimator est;

	nfswb_estimator_init(&est, &p);
	T_CHECK(est.limited, "a new estimator assumes a backlog");
	nfswb_step_sample(&est, &in, &out);
	T_CHECK(out.standby && !out.decided, "2 MiB of a 32 MiB target: stand by");
	nfswb_step_decide(&est, &in, &out);
	T_CHECK(out.decided && out.decision.standby &&
		!out.decision.kick_bytes && !est.limited,
		"standing by: the bound, not nfs_dirty_bytes; kick %" PRIu64,
		out.decision.kick_bytes);

	in.standby_in_force = true;
	in.dirty_bound_bytes = 12 * MiB;
	in.policy.nfs_dirty_bytes = 12 * MiB;
	nfswb_step(&est, &in, &out);
	T_CHECK(out.standby && !est.limited, "12 MiB, standing by: stays");
	in.dirty_bound_bytes = 16 * MiB;
	in.policy.nfs_dirty_bytes = 40 * MiB;
	nfswb_step(&est, &in, &out);
	T_CHECK(!out.standby && !out.decision.standby &&
		out.decision.kick_bytes == 32 * MiB / 5 && est.limited,
		"16 MiB: measuring again, 40 MiB dirty kicks 2 intervals %" PRIu64,
		out.decision.kick_bytes);

	in.have_bound = false;
	in.standby_in_force = false;
	in.policy.nfs_dirty_bytes = 0;
	nfswb_step(&est, &in, &out);
	T_CHECK(!out.standby && !est.limited,
		"no bound: never stands by; clean: no backlog");
}

/*
 * The write rate paces the target: a 16 MiB/s device (fixed) written at
 * 6 MiB/s keeps the bandwidth's target until 2 s are measured, then the
 * 8 MiB floor; at 12 MiB/s, 12 MiB.  The estimator hears "limited" only
 * when data above the target waits for in-flight room: 20 MiB dirty on
 * a 16 MiB target with 4 MiB of room is a backlog (the old rule let the
 * throttle's bursts teach then), not a limit.
 */
/* Within 0.1 %: a sector count per interval rounds the rate down. */
static bool near(uint64_t got, uint64_t want)
{
	return got <= want + want / 1000 && got >= want - want / 1000;
}

/* @n intervals of 100 ms in which the device wrote @rate bytes/s. */
static void write_at(struct nfswb_estimator *est, struct nfswb_step_in *in,
		     struct nfswb_blkstat *st, uint64_t rate, int n,
		     struct nfswb_step_out *out)
{
	for (int i = 0; i < n; i++) {
		st->wr_sectors += rate / 10 / 512;
		st->io_ticks += 10;
		st->wr_ticks += 10;
		in->policy.now_ms += 100;
		nfswb_step(est, in, out);
	}
}

/*
 * When the step says to sample next: the interval while measuring, the
 * standby interval standing by, a second where the clients commit often
 * (files mode's written bound: 1 MiB arrives between looks, COMMITs
 * clean it), which also stops write-behind: 1.5 MiB found at a look of
 * data arriving at a quarter of the device's speed is kicked before,
 * not after.
 */
static void test_schedule(void)
{
	struct nfswb_written_bound w = { 0 };
	struct nfswb_blkstat st = { .nfields = 17 };
	struct nfswb_step_in in = {
		.stat = &st, .decide = true, .have_bound = true,
		.dirty_bound_bytes = 999 * MiB,
		.policy = { .now_ms = 1000, .interval_ms = 100,
			    .background_time_ms = 1000 },
	};
	struct nfswb_step_out out;
	struct nfswb_estimator est;
	uint64_t written = 100 * MiB;
	int i;

	nfswb_estimator_init(&est, NULL);	/* cold: 32 MiB/s */
	nfswb_step(&est, &in, &out);
	T_CHECK(!out.standby && out.sample_ms == 100,
		"measuring: sampled every interval, not %" PRIu64 " ms",
		out.sample_ms);
	in.dirty_bound_bytes = 0;
	nfswb_step(&est, &in, &out);
	T_CHECK(out.standby && out.sample_ms == 1000,
		"standing by, 32 MiB from the target at 32 MiB/s: %" PRIu64
		" ms", out.sample_ms);

	/* 8 MiB/s for 2 s: write-behind may begin from 1 MiB. */
	in.dirty_bound_bytes = 999 * MiB;
	write_at(&est, &in, &st, 8 * MiB, 20, &out);
	in.written_bound = &w;
	in.have_written = true;
	for (i = 0; i < 2 * NFSWB_COMMITS_OFTEN_LOOKS && !out.commits_often;
	     i++) {
		in.written_bytes = written;
		in.commits = (uint64_t)i / 2;
		in.policy.nfs_dirty_bytes = i % 2 ? 0 : MiB / 2;
		in.policy.memory = out.decision.memory;
		in.standby_in_force = out.standby;
		write_at(&est, &in, &st, 8 * MiB, 1, &out);
		written += MiB;
	}
	T_CHECK(out.commits_often && out.sample_ms == 1000 &&
		!out.standby && i <= NFSWB_COMMITS_OFTEN_LOOKS + 1,
		"COMMITs every 2 MiB: often %d after %d looks, next in %"
		PRIu64 " ms", out.commits_often, i, out.sample_ms);
	/* 1.5 MiB at a quarter of the device's speed: no write-behind. */
	in.written_bytes = written + 2 * MiB;
	in.policy.nfs_dirty_bytes = 3 * MiB / 2;
	in.policy.memory = out.decision.memory;
	write_at(&est, &in, &st, 8 * MiB, 1, &out);
	T_CHECK(out.commits_often && out.have_write_rate &&
		!out.decision.kick_bytes && !out.decision.memory.continuous,
		"commits often: kicked %" PRIu64 ", continuous %d",
		out.decision.kick_bytes, out.decision.memory.continuous);
	/* The clients stop committing: 11 MiB arrived, 8 still dirty. */
	in.written_bytes += 11 * MiB;
	in.policy.nfs_dirty_bytes = 8 * MiB;
	in.policy.memory = out.decision.memory;
	write_at(&est, &in, &st, 8 * MiB, 1, &out);
	T_CHECK(!out.commits_often && out.sample_ms == 100 &&
		out.decision.kick_bytes,
		"8 of 11 MiB left dirty: often %d, next in %" PRIu64
		" ms, kicked %" PRIu64, out.commits_often, out.sample_ms,
		out.decision.kick_bytes);
}

/*
 * A cold estimator on a clean device sampled at 1 s, interval 100 ms,
 * background_time 1 s: the first sample, the baseline, is taken.
 */
static void cold_start(struct nfswb_estimator *est, struct nfswb_step_in *in,
		       struct nfswb_blkstat *st, struct nfswb_step_out *out)
{
	*st = (struct nfswb_blkstat){ .nfields = 17 };
	*in = (struct nfswb_step_in){
		.stat = st, .decide = true,
		.policy = { .now_ms = 1000, .interval_ms = 100,
			    .background_time_ms = 1000 },
	};
	nfswb_estimator_init(est, NULL);
	nfswb_step(est, in, out);
}

/*
 * The write rate paces the target: a device written at 6 MiB/s keeps the
 * (cold, 32 MiB/s) bandwidth's target until 2 s are measured, then the
 * 8 MiB floor; at 12 MiB/s, 12 MiB.  The estimator hears "limited" only
 * when data above the target waits for in-flight room: 24 MiB dirty on
 * a 20 MiB target with 6.4 MiB of room is a backlog (under the old rule
 * the throttle's bursts taught then), not a limit.  bandwidth= fixes the
 * target as well.
 */
static void test_pace(void)
{
	struct nfswb_estimator_params p = { .fixed_bw = 16 * MiB };
	struct nfswb_blkstat st;
	struct nfswb_step_in in;
	struct nfswb_step_out out;
	struct nfswb_estimator est;

	cold_start(&est, &in, &st, &out);
	for (int i = 1; i < 20; i++) {
		write_at(&est, &in, &st, 6 * MiB, 1, &out);
		T_CHECK(!out.have_write_rate &&
			out.decision.target_bytes == 32 * MiB,
			"%d00 ms measured: target %" PRIu64, i,
			out.decision.target_bytes);
	}
	write_at(&est, &in, &st, 6 * MiB, 1, &out);
	T_CHECK(out.have_write_rate && near(out.write_rate, 6 * MiB) &&
		out.decision.target_bytes == 8 * MiB,
		"6 MiB/s written: rate %" PRIu64 ", target %" PRIu64,
		out.write_rate, out.decision.target_bytes);
	write_at(&est, &in, &st, 12 * MiB, 20, &out);
	T_CHECK(near(out.write_rate, 12 * MiB) &&
		near(out.decision.target_bytes, 12 * MiB),
		"12 MiB/s written: rate %" PRIu64 ", target %" PRIu64,
		out.write_rate, out.decision.target_bytes);

	/* 20 MiB/s: target 20, room 32 MiB/s x 200 ms = 6.4 MiB. */
	write_at(&est, &in, &st, 20 * MiB, 20, &out);
	in.policy.nfs_dirty_bytes = 24 * MiB;
	write_at(&est, &in, &st, 20 * MiB, 1, &out);
	T_CHECK(near(out.decision.target_bytes, 20 * MiB) &&
		near(out.decision.kick_bytes, 4 * MiB) &&
		out.decision.kick_bytes >= 4 * MiB && !est.limited,
		"24 MiB dirty on 20, 6.4 MiB of room: kick %" PRIu64
		", limited %d", out.decision.kick_bytes, est.limited);
	in.policy.nfs_dirty_bytes = 40 * MiB;
	write_at(&est, &in, &st, 20 * MiB, 1, &out);
	T_CHECK(out.decision.kick_bytes == 32 * MiB / 5 && est.limited,
		"40 MiB dirty: kick %" PRIu64 ", limited %d",
		out.decision.kick_bytes, est.limited);

	nfswb_estimator_init(&est, &p);
	write_at(&est, &in, &st, 6 * MiB, 30, &out);
	T_CHECK(!out.have_write_rate && out.decision.target_bytes == 16 * MiB,
		"bandwidth=16M: target %" PRIu64, out.decision.target_bytes);
}

/*
 * Continuous kicking (write-behind) through the step, with the last
 * decision's memory passed back in as nfswbd's tick does: a device
 * written at 6 MiB/s (estimate cold, 32 MiB/s) whose backlog passes the
 * 1 MiB lowered floor is kicked continuously to 0 (the room, 32 MiB/s x
 * 200 ms = 6710886 bytes, kicked at once), and does not stand by while
 * it is: 300 and 200 KiB measure.  Without the memory 300 KiB stands by
 * (below half the 1 MiB where write-behind begins), and 1.5 MiB measures
 * and begins it.
 */
static void test_continuous(void)
{
	struct nfswb_blkstat st;
	struct nfswb_step_in in;
	struct nfswb_step_out out;
	struct nfswb_estimator est;

	cold_start(&est, &in, &st, &out);
	in.have_bound = true;
	write_at(&est, &in, &st, 6 * MiB, 20, &out);
	T_CHECK(out.have_write_rate && out.decision.target_bytes == 8 * MiB &&
		out.standby && !out.decision.memory.continuous,
		"6 MiB/s, clean: target %" PRIu64 ", standing by",
		out.decision.target_bytes);

	in.policy.memory = out.decision.memory;
	in.dirty_bound_bytes = in.policy.nfs_dirty_bytes = 9 * MiB;
	write_at(&est, &in, &st, 6 * MiB, 1, &out);
	T_CHECK(out.decision.memory.continuous &&
		out.decision.target_bytes == 0 &&
		out.decision.kick_bytes == 6710886,
		"9 MiB: continuous %d, target %" PRIu64 " kick %" PRIu64,
		out.decision.memory.continuous, out.decision.target_bytes,
		out.decision.kick_bytes);

	in.policy.memory = out.decision.memory;
	in.standby_in_force = out.standby;
	in.dirty_bound_bytes = in.policy.nfs_dirty_bytes = 300 << 10;
	write_at(&est, &in, &st, 6 * MiB, 1, &out);
	T_CHECK(!out.standby && out.decision.memory.continuous,
		"continuous, 300 KiB: measuring (standby %d)", out.standby);

	in.policy.memory = out.decision.memory;
	in.standby_in_force = out.standby;
	in.dirty_bound_bytes = in.policy.nfs_dirty_bytes = 200 << 10;
	write_at(&est, &in, &st, 6 * MiB, 1, &out);
	T_CHECK(!out.standby && !out.decision.standby &&
		out.decision.memory.continuous &&
		out.decision.target_bytes == 0 && !out.decision.kick_bytes,
		"continuous, 200 KiB: measuring (standby %d), still continuous %d, kick %" PRIu64 " (below the 1 MiB minimum)",
		out.standby, out.decision.memory.continuous,
		out.decision.kick_bytes);

	in.policy.memory = (struct nfswb_policy_memory){ 0 };
	in.standby_in_force = false;
	in.dirty_bound_bytes = in.policy.nfs_dirty_bytes = 300 << 10;
	write_at(&est, &in, &st, 6 * MiB, 1, &out);
	T_CHECK(out.standby && out.decision.target_bytes == 8 * MiB,
		"no memory, 300 KiB: standing by under the 8 MiB target");

	in.policy.memory = out.decision.memory;
	in.standby_in_force = out.standby;
	in.dirty_bound_bytes = in.policy.nfs_dirty_bytes = 1536 << 10;
	write_at(&est, &in, &st, 6 * MiB, 1, &out);
	T_CHECK(!out.standby && out.decision.memory.continuous &&
		out.decision.kick_bytes == 1536 << 10,
		"no memory, 1.5 MiB: standby %d, continuous %d, kick %" PRIu64,
		out.standby, out.decision.memory.continuous,
		out.decision.kick_bytes);
}

/*
 * A small floor (background_min) reaches the standby thresholds too: a
 * 1 MiB/s device (fixed) with background_time 100 ms and 1 MiB dirty
 * stands by under the default 8 MiB floor (1 MiB < 8/4), but with a
 * 512 KiB floor it measures and kicks: of the 512 KiB above the target,
 * the in-flight budget (1 MiB/s x 200 ms = 200 KiB, raised to the
 * 256 KiB minimum kick) lets 256 KiB go now.
 */
static void test_floor(void)
{
	struct nfswb_estimator_params p = { .fixed_bw = MiB };
	struct nfswb_step_in in = {
		.decide = true, .have_bound = true,
		.dirty_bound_bytes = MiB,
		.policy = { .now_ms = 1000, .interval_ms = 100,
			    .background_time_ms = 100,
			    .nfs_dirty_bytes = MiB },
	};
	struct nfswb_step_out out;
	struct nfswb_estimator est;

	nfswb_estimator_init(&est, &p);
	nfswb_step(&est, &in, &out);
	T_CHECK(out.standby && out.decision.target_bytes == 8 * MiB &&
		!out.decision.kick_bytes,
		"default floor: 1 MiB of an 8 MiB target stands by");

	in.policy.background_min = 512 << 10;
	nfswb_step(&est, &in, &out);
	T_CHECK(!out.standby && out.decision.target_bytes == 512 << 10 &&
		out.decision.kick_bytes == 256 << 10 && out.decision.limited,
		"512 KiB floor: measuring, target %" PRIu64 " kick %" PRIu64,
		out.decision.target_bytes, out.decision.kick_bytes);
}

int main(void)
{
	test_table();
	test_sampling();
	test_standby();
	test_schedule();
	test_pace();
	test_floor();
	test_continuous();
	return t_result();
}
