// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_core_sim.c - the estimator and the policy in a closed loop.
 *
 * A simulated device writes what the policy kicked at a fixed capacity;
 * NFS clients dirty data at a rate of their own.  Every interval the
 * device's stat counters and dirty bytes go through nfswb_step(), the
 * very function nfswbd's per-device tick runs, whose kicks feed the
 * device.  The kernel's own
 * flusher is left out: the worst case for nfswb.  Simulated time, 1 ms
 * steps.
 *
 * Checked: the estimate reaches the device's capacity from a cold start
 * (32 MiB/s, too high or far too low) with nothing but the policy's own
 * kicks to learn from; while clients
 * write below capacity, what is outstanding (dirty + in flight) stays
 * within background_time (+ two intervals) of device time, which is the
 * COMMIT latency bound nfswb exists for; when clients write faster than
 * the device, the kicks never let the device idle.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "step.h"
#include "test.h"

#define MiB	(1024.0 * 1024.0)

struct sim {
	double capacity;		/* device, bytes/s */
	double dirty, inflight;		/* bytes */
	double written, busy_ms;	/* device counters, exact */
	double write_ticks;		/* request time, ms */
	uint64_t now_ms;
	struct nfswb_estimator est;
	struct nfswb_policy_out out;
	uint64_t interval_ms, background_time_ms;
	uint64_t idle_with_work_ms;	/* device idle while dirty > target */
	/*
	 * A throttle's bucket (qemu lets bps/10 through at once): up to
	 * burst_cap bytes written at burst_x times capacity, refilled at
	 * capacity while the device idles.  0: none.
	 */
	double burst_cap, burst_level, burst_x;
	bool standby;			/* stood by last interval */
	uint64_t standby_intervals, measured_intervals, kicks;
};

static void sim_init(struct sim *s, double capacity)
{
	memset(s, 0, sizeof(*s));
	s->capacity = capacity;
	s->interval_ms = 100;
	s->background_time_ms = 1000;
	s->now_ms = 1000;
	nfswb_estimator_init(&s->est, NULL);
}

static void sim_sample(struct sim *s)
{
	struct nfswb_blkstat st = { .nfields = 17 };
	/* The bound is exact here (the bdi's dirty bytes, all NFS). */
	struct nfswb_step_in in = {
		.stat = &st,
		.decide = true,
		.have_bound = true,
		.dirty_bound_bytes = (uint64_t)s->dirty,
		.standby_in_force = s->standby,
		.policy = {
			.now_ms = s->now_ms,
			.interval_ms = s->interval_ms,
			.background_time_ms = s->background_time_ms,
			.inflight_bytes = (uint64_t)s->inflight,
			.memory = s->out.memory,
		},
	};
	struct nfswb_step_out out;
	uint64_t kick;

	st.wr_sectors = (uint64_t)(s->written / 512);
	st.io_ticks = (uint64_t)s->busy_ms;
	st.wr_ticks = (uint64_t)s->write_ticks;
	st.in_flight = s->inflight >= 1 ? 1 : 0;
	nfswb_step_sample(&s->est, &in, &out);
	s->standby = out.standby;
	if (out.standby) {
		s->standby_intervals++;
	} else {
		/* What the files mode pays for: measuring each file. */
		in.policy.nfs_dirty_bytes = (uint64_t)s->dirty;
		s->measured_intervals++;
	}
	nfswb_step_decide(&s->est, &in, &out);
	s->out = out.decision;
	kick = s->out.kick_bytes;
	if (kick)
		s->kicks++;
	if ((double)kick > s->dirty)
		kick = (uint64_t)s->dirty;
	s->dirty -= (double)kick;
	s->inflight += (double)kick;
}

/* Run @ms at client rate @rate; returns the worst outstanding time, ms. */
static double sim_run(struct sim *s, double rate, uint64_t ms)
{
	double worst = 0;

	for (uint64_t t = 0; t < ms; t++) {
		double can = s->capacity / 1000.0;
		double w = s->inflight < can ? s->inflight : can;
		/* A kick is queued as 512 KiB requests, up to 64 at once. */
		double depth = s->inflight / (512 * 1024.0) + 1;
		double busy = w / can;

		if (s->burst_level > 0 && s->inflight > 0) {
			/* Through the bucket: faster, for as long as it holds. */
			double fast = can * s->burst_x;

			w = s->inflight < fast ? s->inflight : fast;
			if (w > s->burst_level)
				w = s->burst_level;
			s->burst_level -= w;
			busy = w / fast;
		} else if (s->inflight < 1 && s->burst_level < s->burst_cap) {
			s->burst_level += can;
		}
		s->dirty += rate / 1000.0;
		s->inflight -= w;
		s->written += w;
		s->busy_ms += busy;
		s->write_ticks += busy * (depth < 64 ? depth : 64);
		if (w < can && s->dirty > (double)s->out.target_bytes)
			s->idle_with_work_ms++;
		s->now_ms++;
		if (s->now_ms % s->interval_ms == 0) {
			double out_ms = (s->dirty + s->inflight) /
					s->capacity * 1000.0;

			sim_sample(s);
			if (out_ms > worst)
				worst = out_ms;
		}
	}
	return worst;
}

struct sim_case {
	double capacity, rate;	/* MiB/s */
};

static const struct sim_case cases[] = {
	{ 200, 150 },
	{ 200, 50 },
	{ 40, 30 },
	{ 1000, 700 },
	{ 8, 6 },
};

static void test_below_capacity(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sim_case *c = &cases[i];
		struct sim s;
		double worst, bound;
		uint64_t learn_ms;

		sim_init(&s, c->capacity * MiB);
		/* Learn: the clients' data alone, kicked by the policy. */
		for (learn_ms = 0; learn_ms < 10000; learn_ms += 100) {
			double bw = (double)nfswb_estimator_bandwidth(&s.est);

			if (bw >= 0.9 * c->capacity * MiB &&
			    bw <= 1.1 * c->capacity * MiB)
				break;
			sim_run(&s, c->capacity * MiB, 100);
		}
		sim_run(&s, c->capacity * MiB, 10000 - learn_ms);
		T_CHECK((double)nfswb_estimator_bandwidth(&s.est) >=
			0.9 * c->capacity * MiB &&
			(double)nfswb_estimator_bandwidth(&s.est) <=
			1.1 * c->capacity * MiB,
			"%.0f MiB/s device: estimate %.1f MiB/s", c->capacity,
			(double)nfswb_estimator_bandwidth(&s.est) / MiB);

		/* Drain the learning phase's backlog, then measure. */
		sim_run(&s, 0, 5000);
		worst = sim_run(&s, c->rate * MiB, 20000);
		/* The target is floored at 8 MiB: slow devices get more. */
		bound = (double)s.background_time_ms + 2.0 * s.interval_ms;
		if (8 * MiB / (c->capacity * MiB) * 1000 + 2.0 * s.interval_ms >
		    bound)
			bound = 8 * MiB / (c->capacity * MiB) * 1000 +
				2.0 * s.interval_ms;
		T_CHECK(worst <= bound * 1.05,
			"%.0f MiB/s device, clients at %.0f: %.0f ms outstanding, "
			"bound %.0f", c->capacity, c->rate, worst, bound);
		printf("device %5.0f MiB/s: estimate right after %5" PRIu64
		       " ms; clients at %4.0f: worst outstanding %5.0f ms "
		       "(bound %4.0f)\n", c->capacity, learn_ms, c->rate,
		       worst, bound);
	}
}

/* Clients faster than the device: the device must never wait for kicks. */
static void test_overload(void)
{
	struct sim s;

	sim_init(&s, 200 * MiB);
	sim_run(&s, 200 * MiB, 3000);
	s.idle_with_work_ms = 0;
	sim_run(&s, 300 * MiB, 5000);
	T_CHECK(s.idle_with_work_ms <= 50,
		"device idle %" PRIu64 " ms of 5000 while dirty was above "
		"target", s.idle_with_work_ms);
	printf("overload 300 MiB/s on 200 MiB/s: device idle with work "
	       "%" PRIu64 " ms of 5000\n", s.idle_with_work_ms);
}

/*
 * First do no harm: the lab's randwrite, whose COMMITs come every 2 MiB.
 * A 16 MiB/s device behind a bucket that passes 1.6 MiB at 2.5x; clients
 * write 2 MiB and COMMIT it (the COMMIT, not a kick, writes it) every
 * 500 ms.  The backlog never nears the target, but the data comes at a
 * quarter of the device's speed: the device writes behind, each 2 MiB
 * kicked once at the interval after it came (before its COMMIT, never
 * more than one kick a COMMIT), and the bursts teach the estimator
 * nothing.  Then the clients write 12 MiB/s
 * without COMMITs: it measures again before the backlog reaches the
 * target, learns the device from its cold start and keeps the backlog
 * within the COMMIT latency bound.
 */
static void test_commits_often(void)
{
	struct sim s;
	double worst = 0, bound;

	sim_init(&s, 16 * MiB);
	s.burst_cap = s.burst_level = 1.6 * MiB;
	s.burst_x = 2.5;
	for (int i = 0; i < 120; i++) {		/* a minute */
		s.dirty += 2 * MiB;
		sim_run(&s, 0, 100);
		s.inflight += s.dirty;		/* the COMMIT */
		s.dirty = 0;
		sim_run(&s, 0, 400);
	}
	T_CHECK(s.kicks >= 100 && s.kicks <= 120,
		"COMMITs often: %" PRIu64 " kicks, %" PRIu64
		" intervals measured, %" PRIu64 " stood by", s.kicks,
		s.measured_intervals, s.standby_intervals);
	T_CHECK(nfswb_estimator_bandwidth(&s.est) ==
		NFSWB_EST_DEFAULT_INITIAL && s.est.burst_samples > 0,
		"COMMITs often: the bursts taught %.1f MiB/s",
		(double)nfswb_estimator_bandwidth(&s.est) / MiB);
	printf("COMMITs every 2 MiB: %" PRIu64 " of %" PRIu64
	       " intervals stood by, %" PRIu64 " kicks (write-behind), estimate %.1f MiB/s "
	       "(cold)\n", s.standby_intervals,
	       s.standby_intervals + s.measured_intervals, s.kicks,
	       (double)nfswb_estimator_bandwidth(&s.est) / MiB);

	/*
	 * Without the bucket: behind one, a device loaded below its rate
	 * spends its budget at burst speed and is never busy half the
	 * time, so nothing shows its sustained rate (nor did before).
	 */
	s.burst_cap = s.burst_level = 0;
	s.measured_intervals = 0;
	for (int i = 0; i < 300; i++) {
		double out_ms = sim_run(&s, 12 * MiB, 100);

		if (i >= 200 && out_ms > worst)	/* learned, drained */
			worst = out_ms;
	}
	bound = (double)s.background_time_ms + 2.0 * s.interval_ms;
	T_CHECK(s.measured_intervals > 250 && s.kicks > 0 && !s.standby,
		"backlog growing: measured %" PRIu64 " of 300, %" PRIu64
		" kicks", s.measured_intervals, s.kicks);
	T_CHECK((double)nfswb_estimator_bandwidth(&s.est) <= 1.1 * 16 * MiB &&
		(double)nfswb_estimator_bandwidth(&s.est) >= 0.9 * 16 * MiB,
		"sustained: estimate %.1f MiB/s of 16",
		(double)nfswb_estimator_bandwidth(&s.est) / MiB);
	T_CHECK(worst <= bound * 1.05, "12 MiB/s on 16: %.0f ms outstanding, "
		"bound %.0f", worst, bound);
	printf("then 12 MiB/s: measuring %" PRIu64 " of 300 intervals, "
	       "estimate %.1f MiB/s, worst outstanding %.0f ms (bound %.0f)\n",
	       s.measured_intervals,
	       (double)nfswb_estimator_bandwidth(&s.est) / MiB, worst, bound);
}

int main(void)
{
	test_commits_often();
	test_below_capacity();
	test_overload();
	return t_result();
}
