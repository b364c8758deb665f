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
	struct nfswb_step_in in = {
		.stat = &st,
		.decide = true,
		.policy = {
			.now_ms = s->now_ms,
			.interval_ms = s->interval_ms,
			.background_time_ms = s->background_time_ms,
			.nfs_dirty_bytes = (uint64_t)s->dirty,
			.inflight_bytes = (uint64_t)s->inflight,
		},
	};
	struct nfswb_step_out out;
	uint64_t kick;

	st.wr_sectors = (uint64_t)(s->written / 512);
	st.io_ticks = (uint64_t)s->busy_ms;
	st.wr_ticks = (uint64_t)s->write_ticks;
	st.in_flight = s->inflight >= 1 ? 1 : 0;
	nfswb_step(&s->est, &in, &out);
	s->out = out.decision;
	kick = s->out.kick_bytes;
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

		s->dirty += rate / 1000.0;
		s->inflight -= w;
		s->written += w;
		s->busy_ms += w / can;
		s->write_ticks += w / can * (depth < 64 ? depth : 64);
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

int main(void)
{
	test_below_capacity();
	test_overload();
	return t_result();
}
