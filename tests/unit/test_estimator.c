// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_estimator.c - the bandwidth estimator against a model device.
 *
 * The model writes at a set rate while busy, is busy a set fraction of
 * each interval, and reports /sys/block/DEV/stat counters the way the
 * kernel prints them: io_ticks in whole jiffies (HZ=250), tick fields as
 * 32-bit values.  Samples come every 100 +- 5 ms of simulated time (or as
 * a case says) with +-10 % noise on the bytes written per 100 ms of work.  Everything is deterministic (fixed
 * seeds); "time" below is simulated milliseconds, never the wall clock.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "estimator.h"
#include "satmath.h"
#include "test.h"

#define MiB		(1024.0 * 1024.0)
#define JIFFY_MS	4.0	/* HZ=250 */

struct model {
	uint64_t rng;
	uint64_t now_ms;
	bool kernel32;		/* sectors and I/O counts are 32-bit too */
	bool no_io_ticks;	/* driver without io_ticks accounting */
	double noise;		/* relative noise on bytes, e.g. 0.10 */
	unsigned int depth_max;	/* writes in flight: 1 .. this */
	unsigned int dt_ms;	/* sampling interval ... */
	unsigned int jitter_ms;	/* ... +- this */
	double io_ticks, wr_ticks, rd_ticks;	/* exact, ms */
	double wr_sect, rd_sect;
	uint64_t tick_base;	/* added to every tick field (wrap tests) */
	uint64_t sect_base;
	struct nfswb_blkstat st;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Uniform in [-1, 1]. */
static double unit_noise(uint64_t *s)
{
	return (double)(xorshift(s) % 2001) / 1000.0 - 1.0;
}

static void model_init(struct model *m, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	m->rng = seed * 2654435761u + 1;
	m->noise = 0.10;
	m->depth_max = 32;
	m->dt_ms = 100;
	m->jitter_ms = 5;
	m->now_ms = 1000000;
}

/*
 * One interval: busy for @busy of it, of which @read_share went to reads;
 * writes move @rate bytes/s while they run.
 */
static void model_step(struct model *m, double rate, double busy,
		       double read_share)
{
	uint64_t dt = m->dt_ms - m->jitter_ms +
		      xorshift(&m->rng) % (2 * m->jitter_ms + 1);
	double busy_ms = busy * (double)dt;
	double write_ms = busy_ms * (1.0 - read_share);
	double bytes, noise = 0;
	unsigned int draws = dt >= 200 ? (unsigned int)(dt / 100) : 1;
	unsigned int depth;
	uint64_t mask32 = UINT32_MAX;

	/* The noise is per 100 ms of work: long intervals average it. */
	for (unsigned int i = 0; i < draws; i++)
		noise += unit_noise(&m->rng);
	bytes = rate * write_ms / 1000.0 * (1.0 + m->noise * noise / draws);
	depth = 1 + (unsigned int)(xorshift(&m->rng) % m->depth_max);

	m->now_ms += dt;
	m->io_ticks += busy_ms;
	m->wr_ticks += write_ms * depth;
	m->rd_ticks += (busy_ms - write_ms) * depth;
	m->wr_sect += bytes / 512.0;
	m->rd_sect += rate * (busy_ms - write_ms) / 1000.0 / 512.0;

	/* The kernel prints jiffies_to_msecs(io_ticks) as %u. */
	m->st.io_ticks = m->no_io_ticks ? 0 :
		(m->tick_base + (uint64_t)(m->io_ticks / JIFFY_MS) * 4) &
		mask32;
	m->st.wr_ticks = (m->tick_base + (uint64_t)m->wr_ticks) & mask32;
	m->st.rd_ticks = (m->tick_base + (uint64_t)m->rd_ticks) & mask32;
	m->st.wr_sectors = m->sect_base + (uint64_t)m->wr_sect;
	m->st.rd_sectors = m->sect_base + (uint64_t)m->rd_sect;
	if (m->kernel32) {
		m->st.wr_sectors &= mask32;
		m->st.rd_sectors &= mask32;
	}
	m->st.in_flight = busy > 0 ? depth : 0;
	m->st.nfields = 17;
}

static void feed(struct nfswb_estimator *e, struct model *m, double rate,
		 double busy, double read_share)
{
	model_step(m, rate, busy, read_share);
	nfswb_estimator_sample(e, m->now_ms, &m->st);
}

static double est_mib(const struct nfswb_estimator *e)
{
	return (double)nfswb_estimator_bandwidth(e) / MiB;
}

static bool within(const struct nfswb_estimator *e, double rate, double tol)
{
	double bw = (double)nfswb_estimator_bandwidth(e);

	return bw >= rate * (1.0 - tol) && bw <= rate * (1.0 + tol);
}

/*
 * Run @secs of simulated time at @rate with a busy fraction drawn from
 * [@busy_lo, 1]; return the time from the start of the run until the
 * estimate entered +-10 % of @rate for good, or UINT64_MAX if it never did.
 */
static uint64_t run_phase(struct nfswb_estimator *e, struct model *m,
			  double rate, double busy_lo, unsigned int secs)
{
	uint64_t start = m->now_ms, settled = UINT64_MAX;

	while (m->now_ms - start < secs * 1000ull) {
		double busy = busy_lo + (1.0 - busy_lo) *
			      (double)(xorshift(&m->rng) % 1001) / 1000.0;

		feed(e, m, rate, busy, 0.0);
		if (!within(e, rate, 0.10))
			settled = UINT64_MAX;
		else if (settled == UINT64_MAX)
			settled = m->now_ms - start;
	}
	return settled;
}

#define NSEEDS 25

struct step_case {
	const char *name;
	double from, to;	/* MiB/s */
	double busy_lo;
	unsigned int dt_ms;	/* sampling interval */
	uint64_t limit_ms;	/* convergence must be no slower */
};

static const struct step_case steps[] = {
	{ "step up 50 -> 200 MiB/s", 50, 200, 0.6, 100, 2000 },
	{ "step down 200 -> 50 MiB/s", 200, 50, 0.6, 100, 2000 },
	{ "step up 20 -> 1000 MiB/s (NVMe-like)", 20, 1000, 0.6, 100, 2000 },
	{ "step down 500 -> 8 MiB/s", 500, 8, 0.6, 100, 2000 },
	{ "small step 100 -> 125 MiB/s, busy 50-100 %", 100, 125, 0.5, 100,
	  2000 },
	{ "step up 50 -> 200 MiB/s, sampled every 10 ms", 50, 200, 0.6, 10,
	  2000 },
	{ "step down 200 -> 50 MiB/s, sampled every 10 ms", 200, 50, 0.6, 10,
	  2000 },
	{ "step up 50 -> 200 MiB/s, sampled every 250 ms", 50, 200, 0.6, 250,
	  2000 },
	/* Two whole intervals are the least a median of three can need. */
	{ "step up 50 -> 200 MiB/s, sampled every 1 s", 50, 200, 0.6, 1000,
	  2100 },
	{ "step down 200 -> 50 MiB/s, sampled every 1 s", 200, 50, 0.6, 1000,
	  2100 },
};

static void test_steps(void)
{
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step_case *c = &steps[i];
		uint64_t t[NSEEDS];

		for (unsigned int seed = 0; seed < NSEEDS; seed++) {
			struct nfswb_estimator e;
			struct model m;

			model_init(&m, seed + 1);
			m.dt_ms = c->dt_ms;
			m.jitter_ms = c->dt_ms / 20;
			nfswb_estimator_init(&e, NULL);
			run_phase(&e, &m, c->from * MiB, c->busy_lo, 20);
			T_CHECK(within(&e, c->from * MiB, 0.10),
				"%s seed %u: %.1f MiB/s before the step",
				c->name, seed, est_mib(&e));
			t[seed] = run_phase(&e, &m, c->to * MiB, c->busy_lo,
					    20);
			T_CHECK(t[seed] <= c->limit_ms,
				"%s seed %u: converged after %" PRIu64 " ms",
				c->name, seed, t[seed]);
		}
		qsort(t, NSEEDS, sizeof(t[0]), nfswb_cmp_u64);
		printf("%-48s to +-10%%: median %5" PRIu64 " ms, max %5" PRIu64
		       " ms of simulated time (%d seeds)\n", c->name,
		       t[NSEEDS / 2], t[NSEEDS - 1], NSEEDS);
	}
}

static void learn_steady(struct nfswb_estimator *e, struct model *m,
			 double rate, unsigned int secs)
{
	run_phase(e, m, rate, 0.7, secs);
}

/*
 * Cold start: initial_bw until busy periods covering NFSWB_EST_COLD_MS
 * (and at least NFSWB_EST_MIN_SAMPLES of them) have been seen.
 */
static void test_cold_start(void)
{
	struct nfswb_estimator_params p = { .initial_bw = 10 << 20 };
	struct nfswb_estimator e;
	struct model m;
	int cold = NFSWB_EST_COLD_MS / 100;

	nfswb_estimator_init(&e, NULL);
	T_CHECK(nfswb_estimator_bandwidth(&e) == NFSWB_EST_DEFAULT_INITIAL,
		"default initial %.1f MiB/s", est_mib(&e));

	model_init(&m, 7);
	m.jitter_ms = 0;
	nfswb_estimator_init(&e, &p);
	feed(&e, &m, 200 * MiB, 1.0, 0.0);	/* baseline only */
	for (int i = 0; i < cold - 1; i++) {
		feed(&e, &m, 200 * MiB, 1.0, 0.0);
		T_CHECK(nfswb_estimator_bandwidth(&e) == 10 << 20 && !e.learned,
			"busy sample %d: %.1f MiB/s during cold start", i + 1,
			est_mib(&e));
	}
	feed(&e, &m, 200 * MiB, 1.0, 0.0);
	T_CHECK(e.learned && within(&e, 200 * MiB, 0.10),
		"after %d busy samples of 100 ms: %.1f MiB/s", cold,
		est_mib(&e));

	/* Sampled every second: three periods, not 500 ms, are needed. */
	model_init(&m, 7);
	m.dt_ms = 1000;
	m.jitter_ms = 0;
	nfswb_estimator_init(&e, &p);
	for (int i = 0; i < NFSWB_EST_MIN_SAMPLES; i++)
		feed(&e, &m, 200 * MiB, 1.0, 0.0);
	T_CHECK(!e.learned, "learned after %d samples of 1 s",
		NFSWB_EST_MIN_SAMPLES - 1);
	feed(&e, &m, 200 * MiB, 1.0, 0.0);
	T_CHECK(e.learned && within(&e, 200 * MiB, 0.10),
		"after %d samples of 1 s: %.1f MiB/s", NFSWB_EST_MIN_SAMPLES,
		est_mib(&e));

	/* Idle samples do not count towards leaving the cold start. */
	model_init(&m, 8);
	nfswb_estimator_init(&e, &p);
	for (int i = 0; i < 600; i++)
		feed(&e, &m, 200 * MiB, 0.0, 0.0);
	T_CHECK(!e.learned && nfswb_estimator_bandwidth(&e) == 10 << 20,
		"a minute idle left cold start: %.1f MiB/s", est_mib(&e));
}

/* Idle time never decays the estimate, nor do trickles and reads. */
static void test_idle(void)
{
	struct nfswb_estimator e;
	struct model m;
	uint64_t before;

	model_init(&m, 3);
	nfswb_estimator_init(&e, NULL);
	learn_steady(&e, &m, 150 * MiB, 5);
	before = nfswb_estimator_bandwidth(&e);

	for (int i = 0; i < 600; i++)		/* 60 s idle */
		feed(&e, &m, 150 * MiB, 0.0, 0.0);
	T_CHECK(nfswb_estimator_bandwidth(&e) == before,
		"60 s idle: %.1f -> %.1f MiB/s", (double)before / MiB,
		est_mib(&e));

	/* A journal commit now and then: busy 20 % of an interval, depth 1. */
	m.depth_max = 1;
	for (int i = 0; i < 600; i++)
		feed(&e, &m, 150 * MiB, (i % 50) ? 0.0 : 0.2, 0.0);
	T_CHECK(nfswb_estimator_bandwidth(&e) == before,
		"60 s of trickle writes: %.1f -> %.1f MiB/s",
		(double)before / MiB, est_mib(&e));

	m.depth_max = 32;

	/* Busy reading, hardly writing: nothing to learn about writes. */
	for (int i = 0; i < 100; i++)
		feed(&e, &m, 150 * MiB, 1.0, 0.9);
	T_CHECK(nfswb_estimator_bandwidth(&e) == before,
		"10 s of reads: %.1f -> %.1f MiB/s", (double)before / MiB,
		est_mib(&e));
	printf("%-48s %.1f MiB/s unchanged after 60 s idle, 60 s trickle, "
	       "10 s reads\n", "idle gaps", (double)before / MiB);
}

/*
 * nfswbd's own kicks on a device faster than the estimate: a batch at
 * depth, done in a third of the interval.  It must teach, or a low
 * estimate would keep the kicks too small to ever correct it.
 */
static void test_light_batches(void)
{
	struct nfswb_estimator e;
	struct model m;

	model_init(&m, 14);
	m.depth_max = 32;
	nfswb_estimator_init(&e, NULL);
	for (int i = 0; i < 20; i++)
		feed(&e, &m, 300 * MiB, 0.3, 0.0);
	T_CHECK(within(&e, 300 * MiB, 0.10),
		"batches at depth, 30 %% busy: %.1f MiB/s", est_mib(&e));

	/* The same at depth 1 (synchronous writes) teaches nothing. */
	model_init(&m, 15);
	m.depth_max = 1;
	nfswb_estimator_init(&e, NULL);
	for (int i = 0; i < 20; i++)
		feed(&e, &m, 300 * MiB, 0.3, 0.0);
	T_CHECK(!e.learned && e.busy_samples == 0,
		"depth 1, 30 %% busy taught %" PRIu64 " periods",
		e.busy_samples);
}

/* Writes mixed with 30 % reads still teach the write rate. */
static void test_mixed(void)
{
	struct nfswb_estimator e;
	struct model m;

	model_init(&m, 4);
	nfswb_estimator_init(&e, NULL);
	for (int i = 0; i < 30; i++)
		feed(&e, &m, 80 * MiB, 0.9, 0.3);
	T_CHECK(within(&e, 80 * MiB, 0.10), "30 %% reads: %.1f MiB/s",
		est_mib(&e));
}

/*
 * A 300 ms burst at 10x (a write cache absorbing it) changes nothing,
 * whether the daemon samples every 10 ms, 100 ms or second.
 */
static void test_burst(void)
{
	static const unsigned int intervals[] = { 10, 100, 1000 };
	const double rate = 100 * MiB;

	for (size_t k = 0; k < sizeof(intervals) / sizeof(intervals[0]); k++) {
		unsigned int dt = intervals[k];
		/* Within one 1 s interval the burst averages to 3.7x. */
		unsigned int nburst = dt < 300 ? 300 / dt : 1;
		double burst = dt < 300 ? 10 * rate : 0.7 * rate + 3 * rate;
		double worst = 0;

		for (unsigned int seed = 1; seed <= NSEEDS; seed++) {
			struct nfswb_estimator e;
			struct model m;
			unsigned int n = 0;

			model_init(&m, seed);
			m.dt_ms = dt;
			m.jitter_ms = dt / 20;
			nfswb_estimator_init(&e, NULL);
			learn_steady(&e, &m, rate, 10);
			for (uint64_t start = m.now_ms;
			     m.now_ms - start < 5000; n++) {
				bool in_burst = n >= 10 && n < 10 + nburst;
				double dev;

				feed(&e, &m, in_burst ? burst : rate, 0.8, 0.0);
				T_CHECK(within(&e, rate, 0.10),
					"%u ms seed %u sample %u: %.1f MiB/s",
					dt, seed, n, est_mib(&e));
				dev = est_mib(&e) / (rate / MiB) - 1.0;
				if (dev > worst)
					worst = dev;
			}
			/* The same burst right after a minute idle. */
			for (unsigned int i = 0; i < 60000 / dt; i++)
				feed(&e, &m, rate, 0.0, 0.0);
			for (unsigned int i = 0; i < nburst; i++)
				feed(&e, &m, burst, 1.0, 0.0);
			T_CHECK(within(&e, rate, 0.10),
				"%u ms seed %u: burst after idle: %.1f MiB/s",
				dt, seed, est_mib(&e));
		}
		printf("300 ms burst at 10x, sampled every %4u ms      "
		       "worst deviation %.1f %% (%d seeds)\n", dt,
		       worst * 100, NSEEDS);
	}
}

/*
 * The lab's randwrite without a backlog: a disk throttled to 16 MiB/s
 * whose throttle lets each fsync's 2 MiB through at 40 MiB/s after the
 * idle time before it (one half-busy interval in five).  Such bursts
 * must not teach; continuous writing, past its first burst, does; with
 * a backlog the bursts teach as before (the kicks then drive the device).
 */
static void burst_cycles(struct nfswb_estimator *e, struct model *m,
			 unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		feed(e, m, 40 * MiB, 0.6, 0.0);
		for (int k = 0; k < 4; k++)
			feed(e, m, 0, 0.0, 0.0);
	}
}

static void test_bursts_without_backlog(void)
{
	for (unsigned int seed = 1; seed <= NSEEDS; seed++) {
		struct nfswb_estimator e;
		struct model m;
		uint64_t start, settled = UINT64_MAX;

		model_init(&m, seed);
		nfswb_estimator_init(&e, NULL);
		nfswb_estimator_set_limited(&e, false);
		burst_cycles(&e, &m, 120);	/* a minute */
		T_CHECK(!e.learned && nfswb_estimator_bandwidth(&e) ==
			NFSWB_EST_DEFAULT_INITIAL && e.burst_samples >= 119,
			"seed %u: bursts taught: %.1f MiB/s, %" PRIu64
			" burst samples", seed, est_mib(&e), e.burst_samples);

		/* Sustained: one burst interval, then 16 MiB/s busy. */
		feed(&e, &m, 40 * MiB, 1.0, 0.0);
		for (start = m.now_ms; m.now_ms - start < 5000;) {
			feed(&e, &m, 16 * MiB, 1.0, 0.0);
			if (!within(&e, 16 * MiB, 0.10))
				settled = UINT64_MAX;
			else if (settled == UINT64_MAX)
				settled = m.now_ms - start;
		}
		T_CHECK(settled <= 3000, "seed %u: sustained 16 MiB/s: %.1f "
			"MiB/s, settled after %" PRIu64 " ms", seed,
			est_mib(&e), settled);
		burst_cycles(&e, &m, 120);
		T_CHECK(within(&e, 16 * MiB, 0.10),
			"seed %u: bursts after sustained: %.1f MiB/s", seed,
			est_mib(&e));

		/* With a backlog the same bursts teach their speed. */
		nfswb_estimator_init(&e, NULL);
		burst_cycles(&e, &m, 120);
		T_CHECK(within(&e, 40 * MiB, 0.10),
			"seed %u: bursts with a backlog: %.1f MiB/s", seed,
			est_mib(&e));
	}
	printf("16 MiB/s disk, fsync bursts at 40: no backlog keeps the "
	       "estimate; sustained writing teaches 16 (%d seeds)\n",
	       NSEEDS);
}

/*
 * A device that stalls 200 ms of every second, busy but completing
 * nothing: a short stall is an outlier like a burst, and the estimate
 * stays between the rate it delivers (80) and its rate while productive.
 */
static void test_stalls(void)
{
	struct nfswb_estimator e;
	struct model m;
	double lo = 1e30, hi = 0;

	model_init(&m, 12);
	nfswb_estimator_init(&e, NULL);
	for (unsigned int i = 0; i < 300; i++) {
		bool stall = i % 10 >= 8;

		feed(&e, &m, stall ? 0 : 100 * MiB, 1.0, 0.0);
		if (i >= 50) {
			lo = est_mib(&e) < lo ? est_mib(&e) : lo;
			hi = est_mib(&e) > hi ? est_mib(&e) : hi;
		}
	}
	T_CHECK(lo >= 80 * 0.9 && hi <= 100 * 1.1,
		"200 ms stalls: %.1f-%.1f MiB/s, outside 72-110", lo, hi);
	T_CHECK(e.stalled_samples == 60, "%" PRIu64 " stalled samples, want 60",
		e.stalled_samples);
	printf("%-48s estimate %.1f-%.1f MiB/s (delivers 80)\n",
	       "100 MiB/s device stalling 200 ms a second", lo, hi);
}

/*
 * Broken accounting: an in_flight count stuck at 1 keeps io_ticks running
 * while the device idles.  Ten seconds of that, then writes resume: the
 * estimate must neither move during the fake busy time nor dip after it.
 */
static void test_stuck_in_flight(void)
{
	struct nfswb_estimator e;
	struct model m;
	uint64_t before;

	model_init(&m, 13);
	nfswb_estimator_init(&e, NULL);
	learn_steady(&e, &m, 100 * MiB, 3);
	before = nfswb_estimator_bandwidth(&e);
	for (int i = 0; i < 100; i++)
		feed(&e, &m, 0, 1.0, 0.0);	/* busy, nothing completes */
	T_CHECK(nfswb_estimator_bandwidth(&e) == before,
		"stuck in_flight moved the estimate to %.1f MiB/s",
		est_mib(&e));
	for (int i = 0; i < 30; i++) {
		feed(&e, &m, 100 * MiB, 0.9, 0.0);
		T_CHECK(within(&e, 100 * MiB, 0.10),
			"after stuck in_flight, sample %d: %.1f MiB/s", i,
			est_mib(&e));
	}
}

/*
 * Tick fields wrap at 2^32 on every kernel; on 32-bit kernels the counts
 * may too.  Neither may produce a wild estimate or a skipped interval.
 */
static void test_wrap(void)
{
	struct nfswb_estimator e;
	struct model m;

	model_init(&m, 5);
	m.kernel32 = true;
	m.tick_base = UINT32_MAX - 3000;	/* wraps after ~3 s busy */
	m.sect_base = UINT32_MAX - 1000000;	/* wraps after ~500 MB */
	nfswb_estimator_init(&e, NULL);
	learn_steady(&e, &m, 200 * MiB, 2);
	for (int i = 0; i < 100; i++) {
		feed(&e, &m, 200 * MiB, 0.9, 0.0);
		T_CHECK(within(&e, 200 * MiB, 0.10), "sample %d: %.1f MiB/s",
			i, est_mib(&e));
	}
	T_CHECK(m.st.io_ticks < 100000 && m.st.wr_sectors < 10000000,
		"the counters did not wrap: io_ticks %" PRIu64, m.st.io_ticks);
	T_CHECK(e.skipped_samples == 0, "%" PRIu64 " intervals skipped",
		e.skipped_samples);
}

/* Counters back to zero (device re-created): skip, keep, learn on. */
static void test_reset(void)
{
	struct nfswb_estimator e;
	struct model m;
	uint64_t busy_before, before;

	model_init(&m, 6);
	nfswb_estimator_init(&e, NULL);
	learn_steady(&e, &m, 120 * MiB, 3);
	before = nfswb_estimator_bandwidth(&e);
	busy_before = e.busy_samples;

	m.io_ticks = m.wr_ticks = m.rd_ticks = m.wr_sect = m.rd_sect = 0;
	feed(&e, &m, 120 * MiB, 0.9, 0.0);
	T_CHECK(e.skipped_samples == 1, "reset not detected");
	T_CHECK(nfswb_estimator_bandwidth(&e) == before,
		"reset moved the estimate to %.1f MiB/s", est_mib(&e));
	for (int i = 0; i < 20; i++)
		feed(&e, &m, 120 * MiB, 0.9, 0.0);
	T_CHECK(e.busy_samples == busy_before + 20,
		"learning did not resume after the reset");
	T_CHECK(within(&e, 120 * MiB, 0.10), "after reset: %.1f MiB/s",
		est_mib(&e));

	/* A sample not later than the previous one is skipped. */
	before = nfswb_estimator_bandwidth(&e);
	nfswb_estimator_sample(&e, m.now_ms, &m.st);
	T_CHECK(e.skipped_samples == 2 && nfswb_estimator_bandwidth(&e) ==
		before, "repeated timestamp");
}

static void test_fixed(void)
{
	struct nfswb_estimator_params p = { .fixed_bw = 123 << 20 };
	struct nfswb_estimator e;
	struct model m;

	model_init(&m, 9);
	nfswb_estimator_init(&e, &p);
	T_CHECK(nfswb_estimator_bandwidth(&e) == 123 << 20, "fixed at start");
	learn_steady(&e, &m, 400 * MiB, 5);
	T_CHECK(nfswb_estimator_bandwidth(&e) == 123 << 20,
		"fixed moved to %.1f MiB/s", est_mib(&e));

	/* Fixed below the default floor: the admin's value stands. */
	p.fixed_bw = 1 << 20;
	nfswb_estimator_init(&e, &p);
	T_CHECK(nfswb_estimator_bandwidth(&e) == 1 << 20,
		"fixed 1 MiB/s reads %.1f", est_mib(&e));
}

struct clamp_case {
	const char *name;
	struct nfswb_estimator_params p;
	double device;		/* MiB/s, 0: stay cold */
	uint64_t expect;	/* bytes/s */
};

static const struct clamp_case clamps[] = {
	{ "below min", { .min_bw = 50 << 20 }, 20, 50 << 20 },
	{ "above max", { .max_bw = 100 << 20 }, 300, 100 << 20 },
	{ "default floor", { 0 }, 1, NFSWB_EST_DEFAULT_MIN },
	{ "initial above max", { .max_bw = 16 << 20, .initial_bw = 1ull << 30 },
	  0, 16 << 20 },
	{ "initial below min", { .min_bw = 64 << 20 }, 0, 64 << 20 },
	{ "max below min is raised to min",
	  { .min_bw = 64 << 20, .max_bw = 8 << 20 }, 300, 64 << 20 },
};

static void test_clamps(void)
{
	for (size_t i = 0; i < sizeof(clamps) / sizeof(clamps[0]); i++) {
		const struct clamp_case *c = &clamps[i];
		struct nfswb_estimator e;
		struct model m;

		model_init(&m, 10 + i);
		nfswb_estimator_init(&e, &c->p);
		if (c->device > 0)
			learn_steady(&e, &m, c->device * MiB, 3);
		T_CHECK(nfswb_estimator_bandwidth(&e) == c->expect,
			"%s: %.2f MiB/s", c->name, est_mib(&e));
	}
}

/* A driver without io_ticks accounting but with requests in flight. */
static void test_no_io_ticks(void)
{
	struct nfswb_estimator e;
	struct model m;

	model_init(&m, 11);
	m.no_io_ticks = true;
	nfswb_estimator_init(&e, NULL);
	for (int i = 0; i < 20; i++)
		feed(&e, &m, 60 * MiB, 1.0, 0.0);
	T_CHECK(within(&e, 60 * MiB, 0.10), "no io_ticks: %.1f MiB/s",
		est_mib(&e));
}

/* Absurd inputs: no crash, no UBSan report, a value within the clamps. */
static void test_absurd(void)
{
	struct nfswb_estimator e;
	struct nfswb_blkstat s = { .nfields = 17 };

	nfswb_estimator_init(&e, NULL);
	nfswb_estimator_sample(&e, 1, &s);
	s.wr_sectors = UINT64_MAX / 2;
	s.io_ticks = UINT32_MAX;
	s.wr_ticks = UINT64_MAX;
	nfswb_estimator_sample(&e, UINT64_MAX, &s);
	s.wr_sectors = UINT64_MAX;
	nfswb_estimator_sample(&e, 0, &s);
	T_CHECK(nfswb_estimator_bandwidth(&e) >= NFSWB_EST_DEFAULT_MIN,
		"absurd: %.1f MiB/s", est_mib(&e));
}

/*
 * Exact cases: each sample gives the period's length and what the stat
 * counters grew by in it (MiB written, io_ticks and request times in ms).
 * The first sample is the baseline.  Rates come out exact, so the
 * estimate is compared to the byte.
 */
struct exact_sample {
	unsigned int dt_ms, io_ms, wr_t_ms, rd_t_ms;
	double wr_mib;
};

static const struct {
	const char *name;
	struct exact_sample s[8];
	uint64_t want_bw;	/* bytes/s */
	bool learned;
	uint64_t skipped;
} exact[] = {
	/*
	 * Four periods of 500 ms cover the 1600 ms span; half the weight is
	 * 1000 ms, reached exactly after the second rate: the median is the
	 * third (the upper median), 30 MiB/s.
	 */
	{ "weighted-median tie: the upper median",
	  { { 0 }, { 500, 500, 500, 0, 5 }, { 500, 500, 500, 0, 20 },
	    { 500, 500, 500, 0, 10 }, { 500, 500, 500, 0, 15 } },
	  30 << 20, true, 0 },
	/*
	 * A 5 s period weighs as the 1.6 s span at most, so two older 1 s
	 * periods at 10 MiB/s outweigh it (2000 ms > half of 3600 ms);
	 * uncapped it would be half of 7000 ms on its own.
	 */
	{ "one long period weighs the span, not its length",
	  { { 0 }, { 1000, 1000, 1000, 0, 10 }, { 1000, 1000, 1000, 0, 10 },
	    { 5000, 5000, 5000, 0, 200 } },
	  10 << 20, true, 0 },
	/*
	 * Write and read request time equal: writes had half the busy time
	 * (10 MiB in 500 ms, 20 MiB/s) and still teach; less is not theirs.
	 */
	{ "writes half of the request time: learned",
	  { { 0 }, { 1000, 1000, 1000, 1000, 10 },
	    { 1000, 1000, 1000, 1000, 10 }, { 1000, 1000, 1000, 1000, 10 } },
	  20 << 20, true, 0 },
	{ "writes under half of the request time: not learned",
	  { { 0 }, { 1000, 1000, 999, 1000, 10 },
	    { 1000, 1000, 999, 1000, 10 }, { 1000, 1000, 999, 1000, 10 } },
	  NFSWB_EST_DEFAULT_INITIAL, false, 0 },
	/*
	 * io_ticks counts jiffies and may run up to 50 ms ahead of our
	 * clock: busy for the whole period, 10 MiB/s.  Further ahead is not
	 * a wrapped counter nor a clock: the period is skipped.
	 */
	{ "io_ticks 50 ms ahead of the clock: busy throughout",
	  { { 0 }, { 1000, 1050, 1000, 0, 10 }, { 1000, 1040, 1000, 0, 10 },
	    { 1000, 1001, 1000, 0, 10 } },
	  10 << 20, true, 0 },
	{ "io_ticks 51 ms ahead of the clock: skipped",
	  { { 0 }, { 1000, 1051, 1000, 0, 10 } },
	  NFSWB_EST_DEFAULT_INITIAL, false, 1 },
};

static void test_exact(void)
{
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		struct nfswb_blkstat st = { .nfields = 17 };
		struct nfswb_estimator e;
		uint64_t now = 1000000;

		nfswb_estimator_init(&e, NULL);
		for (size_t k = 0; k < 8; k++) {
			const struct exact_sample *x = &exact[i].s[k];

			if (k && !x->dt_ms)
				break;
			now += x->dt_ms;
			st.io_ticks += x->io_ms;
			st.wr_ticks += x->wr_t_ms;
			st.rd_ticks += x->rd_t_ms;
			st.wr_sectors += (uint64_t)(x->wr_mib * 2048);
			nfswb_estimator_sample(&e, now, &st);
		}
		T_CHECK(nfswb_estimator_bandwidth(&e) == exact[i].want_bw,
			"%s: %" PRIu64 " B/s, want %" PRIu64, exact[i].name,
			nfswb_estimator_bandwidth(&e), exact[i].want_bw);
		T_CHECK(e.learned == exact[i].learned, "%s: learned %d",
			exact[i].name, e.learned);
		T_CHECK(e.skipped_samples == exact[i].skipped,
			"%s: %" PRIu64 " periods skipped", exact[i].name,
			e.skipped_samples);
	}
}

int main(void)
{
	test_exact();
	test_cold_start();
	test_steps();
	test_idle();
	test_mixed();
	test_light_batches();
	test_burst();
	test_bursts_without_backlog();
	test_stalls();
	test_stuck_in_flight();
	test_wrap();
	test_reset();
	test_fixed();
	test_clamps();
	test_no_io_ticks();
	test_absurd();
	return t_result();
}
