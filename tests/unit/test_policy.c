// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_policy.c - every branch of nfswb_policy_decide(), and overflow.
 *
 * Expected values are worked out by hand in the comments, not recomputed
 * with the policy's formulas.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "test.h"

#define M(n)	((uint64_t)(n) << 20)	/* MiB */
#define K(n)	((uint64_t)(n) << 10)	/* KiB */
#define MAX	UINT64_MAX

struct policy_case {
	const char *name;
	struct {
		uint64_t interval_ms, dirty, inflight, bandwidth;
		uint64_t background_time_ms, commit_target_ms, cap_in_force;
	} in;
	struct {
		uint64_t target, kick, cap;
		bool cap_change;
	} out;
};

/*
 * Columns:
 *   in:  interval_ms, nfs dirty, in flight, bandwidth, background_time_ms,
 *        commit_target_ms, cap in force
 *   out: target, kick, cap, cap_change
 * Most cases vary one input from 100 ms, 100 MiB/s, background_time 1 s.
 */

static const struct policy_case cases[] = {
	/* --- target --- */
	{ "target = 100 MiB/s x 1 s, clean device",
	  { 100, 0, 0, M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	{ "target floored: 4 MiB/s x 1 s = 4 MiB < 8 MiB",
	  { 100, 0, 0, M(4), 1000, 0, 0 },
	  { M(8), 0, 0, 0 } },
	{ "target floored: background_time 0",
	  { 100, 0, 0, M(100), 0, 0, 0 },
	  { M(8), 0, 0, 0 } },
	{ "target 250 ms of 100 MiB/s = 25 MiB",
	  { 100, 0, 0, M(100), 250, 0, 0 },
	  { M(25), 0, 0, 0 } },

	/* --- kick --- */
	{ "dirty exactly at target: no kick",
	  { 100, M(100), 0, M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	{ "excess 10 MiB within the 20 MiB in-flight budget: kick 10",
	  { 100, M(110), 0, M(100), 1000, 0, 0 },
	  { M(100), M(10), 0, 0 } },
	{ "excess 50 MiB, budget 100 MiB/s x 200 ms = 20 MiB: kick 20",
	  { 100, M(150), 0, M(100), 1000, 0, 0 },
	  { M(100), M(20), 0, 0 } },
	{ "excess 50, 5 in flight: kick 15",
	  { 100, M(150), M(5), M(100), 1000, 0, 0 },
	  { M(100), M(15), 0, 0 } },
	{ "excess 50, budget all in flight: no kick",
	  { 100, M(150), M(20), M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	{ "excess 50, more than the budget in flight: no kick",
	  { 100, M(150), M(30), M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	{ "room 2 MiB < 4 MiB minimum, excess 50: deferred",
	  { 100, M(150), M(18), M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	{ "room 2 MiB, excess 3 MiB: still cut short, deferred",
	  { 100, M(103), M(18), M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	{ "room 2 MiB, excess 2 MiB: the whole excess, kicked",
	  { 100, M(102), M(18), M(100), 1000, 0, 0 },
	  { M(100), M(2), 0, 0 } },
	{ "excess 1 MiB, nothing in flight: the whole excess, kicked",
	  { 100, M(101), 0, M(100), 1000, 0, 0 },
	  { M(100), M(1), 0, 0 } },
	{ "excess 1 byte: kicked",
	  { 100, M(100) + 1, 0, M(100), 1000, 0, 0 },
	  { M(100), 1, 0, 0 } },
	{ "kick exactly the 4 MiB minimum, cut short by room",
	  { 100, M(150), M(16), M(100), 1000, 0, 0 },
	  { M(100), M(4), 0, 0 } },
	{ "slow 4 MiB/s: budget 0.8 MiB raised to one 4 MiB kick",
	  { 100, M(20), 0, M(4), 1000, 0, 0 },
	  { M(8), M(4), 0, 0 } },
	{ "slow 4 MiB/s, 1 MiB in flight: 3 MiB room, deferred",
	  { 100, M(20), M(1), M(4), 1000, 0, 0 },
	  { M(8), 0, 0, 0 } },
	{ "interval 0: budget raised to the minimum kick",
	  { 0, M(150), 0, M(100), 1000, 0, 0 },
	  { M(100), M(4), 0, 0 } },
	{ "interval 1 s: budget 200 MiB, kick all 150 MiB excess",
	  { 1000, M(250), 0, M(100), 1000, 0, 0 },
	  { M(100), M(150), 0, 0 } },

	/* --- cap --- */
	{ "no commit_target, no cap in force: nothing",
	  { 100, 0, 0, M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	{ "no commit_target, cap in force: lift it",
	  { 100, 0, 0, M(100), 1000, 0, M(300) },
	  { M(100), 0, 0, 1 } },
	{ "commit_target 3 s at 100 MiB/s, none in force: set 300 MiB",
	  { 100, 0, 0, M(100), 1000, 3000, 0 },
	  { M(100), 0, M(300), 1 } },
	{ "cap 300 MiB, 280 in force: moves 20 <= 35, kept",
	  { 100, 0, 0, M(100), 1000, 3000, M(280) },
	  { M(100), 0, M(300), 0 } },
	{ "cap 300 MiB, 256 in force: moves 44 > 32, changed",
	  { 100, 0, 0, M(100), 1000, 3000, M(256) },
	  { M(100), 0, M(300), 1 } },
	{ "cap equal to the cap in force: kept",
	  { 100, 0, 0, M(100), 1000, 3000, M(300) },
	  { M(100), 0, M(300), 0 } },
	/* 90 MiB/s x 1 s = 90 MiB; 80 MiB + 80/8 = 90: exactly 1/8 */
	{ "cap up by exactly 1/8 of the cap in force: kept",
	  { 100, 0, 0, M(90), 100, 1000, M(80) },
	  { M(9), 0, M(90), 0 } },
	{ "cap up by 1/8 + 1 byte: changed",
	  { 100, 0, 0, M(90), 100, 1000, M(80) - 1 },
	  { M(9), 0, M(90), 1 } },
	/* 96 MiB in force, 96/8 = 12; the new cap 84 is 12 below: kept */
	{ "cap down by exactly 1/8: kept",
	  { 100, 0, 0, M(84), 100, 1000, M(96) },
	  { M(8400)/1000, 0, M(84), 0 } },
	{ "cap down by more than 1/8: changed",
	  { 100, 0, 0, M(84), 100, 1000, M(96) + 8 },
	  { M(8400)/1000, 0, M(84), 1 } },
	{ "cap floored at 2 x target: 100 MiB/s x 2 s bg = 200, cap 400",
	  { 100, 0, 0, M(100), 2000, 1000, 0 },
	  { M(200), 0, M(400), 1 } },
	{ "cap floored at 64 MiB: 10 MiB/s x 1 s",
	  { 100, 0, 0, M(10), 1000, 1000, 0 },
	  { M(10), 0, M(64), 1 } },
	{ "kick and cap in one decision",
	  { 100, M(110), 0, M(100), 1000, 3000, M(300) },
	  { M(100), M(10), M(300), 0 } },

	/* --- overflow: saturate, never wrap --- */
	/* MAX x 1000 overflows; (MAX / 1000) x 1000 + 615 = MAX */
	{ "bandwidth 2^64-1, 1 s: target saturates at 2^64-1",
	  { 100, MAX, 0, MAX, 1000, 3000, 0 },
	  { MAX, 0, MAX, 1 } },
	{ "background_time 2^64-1 ms at 1 TiB/s: target saturates",
	  { 100, 0, 0, 1ull << 40, MAX, 0, 0 },
	  { MAX, 0, 0, 0 } },
	{ "all huge, background_time 0: kick everything above 8 MiB",
	  { MAX, MAX, 0, MAX, 0, 0, 0 },
	  { M(8), MAX - M(8), 0, 0 } },
	{ "in flight 2^64-1: no kick",
	  { 100, MAX, MAX, M(100), 1000, 0, 0 },
	  { M(100), 0, 0, 0 } },
	/* (2^62 + 999) x 8 / 1000 overflows in the product, exact result: */
	{ "split multiplication keeps precision: (2^62+999) x 8 ms",
	  { 100, 0, 0, (1ull << 62) + 999, 8, 0, 0 },
	  { 36893488147419111ull, 0, 0, 0 } },
	{ "commit_target 2^64-1 ms at 1 B/s: cap (2^64-1)/1000",
	  { 100, 0, 0, 1, 1000, MAX, MAX },
	  { M(8), 0, 18446744073709551ull, 1 } },
	{ "cap in force 2^64-1, new cap saturates too: kept",
	  { 100, 0, 0, MAX, 1000, MAX, MAX },
	  { MAX, 0, MAX, 0 } },
};

/* The kernel knob's value: target / kernel estimate, bounded. */
static const struct {
	const char *name;
	uint64_t bg_ms, target, kernel_bw, want_ms;
} knob_cases[] = {
	{ "kernel estimate unknown: the configured time", 1000, M(32), 0, 1000 },
	{ "no target yet: the configured time", 1000, 0, M(100), 1000 },
	{ "kernel at its 100 MB/s start, we know 32 MiB/s", 1000, M(32),
	  M(100), 320 },
	{ "estimates agree", 1000, M(32), M(32), 1000 },
	{ "kernel low: a longer time, same threshold", 1000, M(32),
	  M(16), 2000 },
	{ "kernel far too low: capped at 10x", 500, M(64), M(1), 5000 },
	{ "rounds up, never 0", 1000, 1, M(1000), 1 },
	{ "exact: 3 B at 1000 B/s is 3 ms", 1000, 3, 1000, 3 },
	{ "ceil: 3 B at 2000 B/s is 1.5 ms, so 2", 1000, 3, 2000, 2 },
	{ "saturating multiply", 1000, UINT64_MAX, UINT64_MAX, 1000 },
};

static const struct {
	uint64_t cur, want;
	bool change;
} knob_change_cases[] = {
	{ 0, 1000, true },	/* never written */
	{ 1000, 1000, false },
	{ 1000, 1125, false },	/* exactly 1/8: kept */
	{ 1000, 1126, true },
	{ 1000, 875, false },
	{ 1000, 874, true },
	{ 1, 2, true },
};

static void test_knob(void)
{
	size_t i;
	uint64_t ms;

	for (i = 0; i < sizeof(knob_cases) / sizeof(knob_cases[0]); i++) {
		ms = nfswb_policy_knob_ms(knob_cases[i].bg_ms,
					  knob_cases[i].target,
					  knob_cases[i].kernel_bw);
		T_CHECK(ms == knob_cases[i].want_ms, "%s: %" PRIu64
			" ms, want %" PRIu64, knob_cases[i].name, ms,
			knob_cases[i].want_ms);
	}
	for (i = 0; i < sizeof(knob_change_cases) /
		    sizeof(knob_change_cases[0]); i++)
		T_CHECK(nfswb_policy_knob_change(knob_change_cases[i].cur,
						 knob_change_cases[i].want) ==
			knob_change_cases[i].change,
			"change %" PRIu64 " -> %" PRIu64,
			knob_change_cases[i].cur, knob_change_cases[i].want);
}

/*
 * Standby: below a quarter of the target it begins, from half of it on it
 * ends; in between the state in force stays (hysteresis).
 */
static const struct {
	const char *name;
	uint64_t bound, target;
	bool in_force, standby;
} standby_cases[] = {
	{ "clean device: stand by", 0, M(32), false, true },
	{ "just below a quarter: stand by", M(8) - 1, M(32), false, true },
	{ "a quarter: not yet", M(8), M(32), false, false },
	{ "between, active: stays active", M(12), M(32), false, false },
	{ "between, standing by: stays", M(12), M(32), true, true },
	{ "just below half, standing by: stays", M(16) - 1, M(32), true,
	  true },
	{ "half: back to measuring", M(16), M(32), true, false },
	{ "above the target: measuring", M(40), M(32), true, false },
	{ "target 0 (never from the policy): never", 0, 0, false, false },
	{ "the lab's randwrite: 2 MiB dirty, 32 MiB/s x 1 s", M(2), M(32),
	  false, true },
	{ "the same 2 MiB under the 8 MiB floor: a quarter, measuring",
	  M(2), M(8), false, false },
};

/*
 * The written bound: a sequence of looks (measured, count, time) and
 * reads (count, time) on one state, each with what it must give.
 */
static const struct written_case {
	const char *name;
	bool look;		/* a look, else a read */
	uint64_t bytes;		/* look: measured dirty bytes */
	uint64_t written, ms;	/* nfsd's count, the clock */
	bool want;		/* read: a bound; look: the look broke it */
	uint64_t bound;		/* read: the bound */
} written_cases[] = {
	{ "no look yet: no bound", false, 0, M(100), 1000, false, 0 },
	{ "first look never breaks", true, M(3), M(100), 1000, false, 0 },
	{ "the count has not moved: not proven", false, 0, M(100), 1000,
	  false, 0 },
	{ "a look with the count unmoved: still not", true, M(30), M(100),
	  1100, false, 0 },
	{ "idle knfsd beside another server: no bound", false, 0, M(100),
	  1200, false, 0 },
	{ "the count moved: a look proves it", true, M(3), M(101), 1300,
	  false, 0 },
	{ "at once: what the look found", false, 0, M(101), 1300, true, M(3) },
	{ "plus what nfsd wrote since", false, 0, M(106), 1500, true, M(8) },
	{ "a COMMIT cleaned it: the look is lower", true, M(1), M(106), 1600,
	  false, 0 },
	{ "the bound starts over from the look", false, 0, M(107), 1700, true,
	  M(2) },
	{ "the look within twice the bound and 4 MiB", true, M(8), M(108),
	  1800, false, 0 },
	{ "just before it ages out", false, 0, M(108), 1800 + 5000, true,
	  M(8) },
	{ "aged: no bound until the next look", false, 0, M(108),
	  1800 + 5001, false, 0 },
	{ "looked at again", true, M(0), M(108), 7000, false, 0 },
	{ "nfsd restarted: its count went back", false, 0, M(1), 7100, false,
	  0 },
	{ "a look after the restart starts over", true, M(1), M(1), 7200,
	  false, 0 },
	{ "and bounds again", false, 0, M(2), 7300, true, M(2) },
	{ "writes nfsd did not count: broken", true, M(20), M(2), 7400, true,
	  0 },
	{ "broken stays broken", false, 0, M(2), 7500, false, 0 },
	{ "and no look breaks it again", true, M(50), M(2), 7600, false, 0 },
	{ "nor gives it back", false, 0, M(3), 7700, false, 0 },
};

static void test_written_bound(void)
{
	struct nfswb_written_bound w = { 0 };
	uint64_t bound;

	for (size_t i = 0; i < sizeof(written_cases) /
			       sizeof(written_cases[0]); i++) {
		const struct written_case *c = &written_cases[i];

		if (c->look) {
			bool broke = nfswb_written_bound_look(&w, c->bytes,
							      c->written, 0,
							      c->ms, M(3));

			T_CHECK(broke == c->want, "%s: broke %d", c->name,
				broke);
			continue;
		}
		bound = 0;
		T_CHECK(nfswb_written_bound_get(&w, c->written, c->ms,
						&bound) == c->want &&
			(!c->want || bound == c->bound),
			"%s: bound %" PRIu64 ", want %" PRIu64, c->name,
			bound, c->bound);
	}
}

/*
 * Clients that commit often: a sequence of looks on one state, each
 * (what nfsd wrote since the last, the COMMITs it was sent, what others
 * cleaned since, what the look found), with the verdict after it.  3 MiB
 * the most a COMMIT may find.  Until the verdict, looks come every
 * interval, 1 MiB apart, a COMMIT of 2 MiB every other look (the first
 * NFSWB_COMMITS_OFTEN_LOOKS - 1 made by test_commits_often()); after
 * it, a second apart.
 */
static const struct often_case {
	const char *name;
	uint64_t arrived, commits, cleaned, measured;
	bool often;
} often_cases[] = {
	{ "the last of the first looks, a COMMIT every 2 MiB: often", M(1),
	  1, M(2), 0, true },
	{ "a second apart: 11 MiB, most committed", M(11), 5, M(10), M(2),
	  true },
	{ "an idle second keeps it", 0, 0, 0, 0, true },
	{ "a quarter cleaned still keeps it", M(8), 4, M(2), M(2), true },
	{ "more than 3 MiB found: over", M(11), 5, M(10), M(3) + K(256),
	  false },
	{ "the peak holds it off", M(1), 1, M(2), 0, false },
	{ "the peak decayed, a COMMIT every 2 MiB still: often", M(1), 1,
	  M(2), 0, true },
	{ "they stop committing: 8 of 11 MiB left dirty", M(11), 0, M(3),
	  M(8), false },
	{ "the peak holds it off", M(1), 1, M(2), 0, false },
};

/* What a pattern of looks, repeated, makes of a fresh state. */
static bool often_after(const uint64_t (*looks)[4], size_t n,
			unsigned int times)
{
	struct nfswb_commits_often c = { 0 };
	bool often = false;

	for (unsigned int t = 0; t < times && !often; t++)
		for (size_t i = 0; i < n && !often; i++)
			often = nfswb_commits_often_look(&c, looks[i][0],
							 looks[i][1],
							 looks[i][2],
							 looks[i][3], M(3));
	return often;
}

static void test_commits_often(void)
{
	/* A file COMMITted at its end every 4 MiB (seqwrite). */
	static const uint64_t every4[][4] = {
		{ M(1), 0, 0, M(1) }, { M(1), 0, 0, M(2) },
		{ M(1), 0, 0, M(3) }, { M(1), 1, M(4), 0 },
	};
	/* The same written behind: the COMMIT finds the 1 MiB left. */
	static const uint64_t every4_behind[][4] = {
		{ M(1), 0, 0, M(1) }, { M(1), 0, 0, M(1) },
		{ M(1), 0, 0, M(1) }, { M(1), 1, M(1), 0 },
	};
	/*
	 * The same on 6.12's slow disk: the COMMIT's pages are cleaned over
	 * every look until the next (counting cleaning as COMMITs took this
	 * for a COMMIT every 1 MiB).
	 */
	static const uint64_t every4_spread[][4] = {
		{ M(1), 1, K(768), M(1) }, { M(1), 0, K(768), M(1) },
		{ M(1), 0, K(768), M(1) }, { M(1), 0, K(768), M(1) },
	};
	/* Every 2 MiB written behind (tempfile, randwrite): yes. */
	static const uint64_t every2_behind[][4] = {
		{ M(1), 0, 0, M(1) }, { M(1), 1, M(1), 0 },
	};
	/* COMMITs every 1 MiB, but on another device: this one kicks all. */
	static const uint64_t elsewhere[][4] = {
		{ M(1), 1, 0, K(256) },
	};
	struct nfswb_commits_often c = { 0 };
	struct nfswb_written_bound w = { 0 };
	uint64_t written = M(100), commits = 7;
	unsigned int i;

	for (i = 0; i + 1 < NFSWB_COMMITS_OFTEN_LOOKS; i++)
		T_CHECK(!nfswb_commits_often_look(&c, M(1), i % 2,
						  i % 2 ? M(2) : 0,
						  i % 2 ? 0 : M(1), M(3)),
			"often after %u looks", i + 1);
	for (size_t k = 0; k < sizeof(often_cases) / sizeof(often_cases[0]);
	     k++) {
		const struct often_case *o = &often_cases[k];
		bool often = nfswb_commits_often_look(&c, o->arrived,
						      o->commits, o->cleaned,
						      o->measured, M(3));

		T_CHECK(often == o->often, "%s: often %d, peak %" PRIu64
			", allowed %" PRIu64 " for %" PRIu64, o->name, often,
			c.peak, c.allowed, c.arrived);
	}
	T_CHECK(!often_after(every4, 4, 40) &&
		!often_after(every4_behind, 4, 40) &&
		!often_after(every4_spread, 4, 40) &&
		often_after(every2_behind, 2, 8) &&
		!often_after(elsewhere, 1, 40),
		"COMMITs every 4 MiB: often %d, written behind %d, cleaned slowly %d; every 2 MiB written behind %d; elsewhere %d",
		often_after(every4, 4, 40), often_after(every4_behind, 4, 40),
		often_after(every4_spread, 4, 40),
		often_after(every2_behind, 2, 8),
		often_after(elsewhere, 1, 40));
	T_CHECK(nfswb_policy_commits_often_backlog(0) == M(3) &&
		nfswb_policy_commits_often_backlog(M(64)) == M(24),
		"backlog: %" PRIu64 ", %" PRIu64,
		nfswb_policy_commits_often_backlog(0),
		nfswb_policy_commits_often_backlog(M(64)));

	/*
	 * Through the written bound: 1 MiB arrives between looks and a
	 * COMMIT cleans all but 256 KiB of it each time.  What the last
	 * look kicked is the daemon's, not the clients': a device that
	 * kicks all each look finds (1 MiB a look, as it arrives) was not
	 * cleaned by them, whatever COMMITs nfsd counts.  Without nfsd's
	 * COMMIT count (0 at every look) it is never so.
	 */
	for (i = 0; i < NFSWB_COMMITS_OFTEN_LOOKS + 1; i++) {
		nfswb_written_bound_look(&w, K(256), written, commits++,
					 100 * i, M(3));
		written += M(1);
	}
	T_CHECK(w.commits.often && !nfswb_written_bound_commits_seldom(&w),
		"a COMMIT between every look: often %d", w.commits.often);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < 4 * NFSWB_COMMITS_OFTEN_LOOKS; i++) {
		nfswb_written_bound_look(&w, M(1), written, commits++,
					 100 * i, M(3));
		w.base_kick = M(1);
		written += M(1);
	}
	T_CHECK(!w.commits.often && w.commits.cleaned == 0 &&
		nfswb_written_bound_commits_seldom(&w),
		"the daemon's own kicks counted as the clients' COMMITs: %"
		PRIu64 " cleaned of %" PRIu64, w.commits.cleaned,
		w.commits.arrived);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < 4 * NFSWB_COMMITS_OFTEN_LOOKS; i++) {
		nfswb_written_bound_look(&w, K(256), written, 0, 100 * i,
					 M(3));
		written += M(1);
	}
	T_CHECK(!w.commits.often && w.commits.allowed == 0,
		"no COMMIT count: often %d", w.commits.often);
	/* nfsd restarted: its counts start over, and no COMMIT is made up. */
	nfswb_written_bound_look(&w, K(256), M(1), 3, 100 * i++, M(3));
	nfswb_written_bound_look(&w, K(256), M(2), 2, 100 * i++, M(3));
	T_CHECK(w.commits.allowed == 0, "COMMITs from a count that went back: %"
		PRIu64, w.commits.allowed);
	/* Writes nfsd did not count break the bound, and the verdict. */
	memset(&w, 0, sizeof(w));
	for (i = 0; i < NFSWB_COMMITS_OFTEN_LOOKS + 1; i++) {
		nfswb_written_bound_look(&w, K(256), written, commits++,
					 100 * i, M(3));
		written += M(1);
	}
	nfswb_written_bound_look(&w, M(64), written, commits, 100 * i, M(3));
	T_CHECK(w.broken && !w.commits.often &&
		!nfswb_written_bound_commits_seldom(&w),
		"broken %d, often %d", w.broken, w.commits.often);
	/*
	 * Seldom, so a leased file may be opened: only once judged.  A
	 * file COMMITted every 4 MiB, 1 MiB a look: not before the
	 * sixteenth look, then yes.
	 */
	memset(&w, 0, sizeof(w));
	for (i = 0; i < NFSWB_COMMITS_OFTEN_LOOKS; i++) {
		T_CHECK(!nfswb_written_bound_commits_seldom(&w),
			"seldom after %u looks", i);
		nfswb_written_bound_look(&w, i % 4 == 3 ? 0 : M(1) * (i % 4 + 1),
					 written, commits, 100 * i, M(3));
		commits += i % 4 == 3;
		written += M(1);
	}
	nfswb_written_bound_look(&w, M(1), written, commits, 100 * i, M(3));
	T_CHECK(nfswb_written_bound_commits_seldom(&w),
		"4 MiB a COMMIT, judged: seldom %d (often %d, %u looks)",
		nfswb_written_bound_commits_seldom(&w), w.commits.often,
		w.commits.looks);
}

/*
 * The local-writers watch: a sequence of (dirtied, nfsd's bytes, nfsd's
 * WRITEs, time) on one state, each with the verdict it must give, the
 * last closed window's bytes beyond what nfsd's WRITEs can have dirtied
 * (their bytes, 1/8 more, 8 KiB a WRITE, 16 MiB), that window's length
 * and whether this update closed it.  Until local writers are present
 * it also looks inside a window every 100 ms and closes it early on
 * them.
 */
#define ALLOWED(bytes, writes) \
	((bytes) + (bytes) / 8 + (writes) * 8192ull + M(16))

static const struct local_case {
	const char *name;
	uint64_t dirtied, written, writes, ms;
	enum nfswb_local_verdict want;
	uint64_t local, window_ms;
	bool closed;
} local_cases[] = {
	{ "first counts: no window yet", M(1000), M(500), 1000, 0,
	  NFSWB_LOCAL_UNKNOWN, 0, 0, false },
	{ "a look inside, NFS alone: the window stays open", M(1100),
	  M(600), 1100, 4999, NFSWB_LOCAL_UNKNOWN, 0, 0, false },
	{ "NFS alone: absent", M(1100), M(600), 1100, 5000,
	  NFSWB_LOCAL_ABSENT, 0, 5000, true },
	{ "metadata, an eighth beyond the data: within", M(1206), M(680),
	  1180, 10000, NFSWB_LOCAL_ABSENT, 0, 5000, true },
	/* Twice the bytes (the bound before) took these for local. */
	{ "1 KiB WRITEs, a page dirtied each: within 8 KiB a WRITE",
	  M(1206 + 64), M(680 + 16), 1180 + 16384, 15000,
	  NFSWB_LOCAL_ABSENT, 0, 5000, true },
	{ "a look 1 s in, NFS alone: still absent", M(1280), M(706),
	  17574, 16000, NFSWB_LOCAL_ABSENT, 0, 5000, false },
	{ "50 ms later: no look is due, nothing counted", M(1300),
	  M(706), 17574, 16050, NFSWB_LOCAL_ABSENT, 0, 5000, false },
	/*
	 * The lab's tempfile with its temp files starting late: NFS at
	 * 10 MiB/s in 1 MiB WRITEs and 64 MiB of temp files written at
	 * once.  Twice nfsd's bytes allowed 56 MiB here and 116 in a whole
	 * window: the temp files passed as NFS's.
	 */
	{ "temp files beside NFS: the look 100 ms on closes the window, present",
	  M(1270 + 20 + 64), M(716), 17584, 16150, NFSWB_LOCAL_PRESENT,
	  M(84) - ALLOWED(M(20), 20), 1150, true },
	{ "present: no look inside the window", M(1400), M(760), 17640,
	  20000, NFSWB_LOCAL_PRESENT, M(84) - ALLOWED(M(20), 20), 1150,
	  false },
	{ "the window closes at 5 s: local writers again", M(1354 + 104),
	  M(716 + 56), 17584 + 56, 21150, NFSWB_LOCAL_PRESENT,
	  M(104) - ALLOWED(M(56), 56), 5000, true },
	{ "quiet again, not for long enough", M(1462), M(776), 17644, 26150,
	  NFSWB_LOCAL_PRESENT, 0, 5000, true },
	{ "nfsd restarted: the window starts over", M(1464), M(1), 1, 28000,
	  NFSWB_LOCAL_PRESENT, 0, 5000, false },
	{ "quiet, 5 s short of 5 min", M(1474), M(6), 6, 22000 + 295000,
	  NFSWB_LOCAL_PRESENT, 0, 289000, true },
	{ "a window not closed changes nothing", M(1479), M(6), 6,
	  22000 + 299999, NFSWB_LOCAL_PRESENT, 0, 289000, false },
	{ "quiet for 5 min: absent", M(1484), M(11), 11, 22000 + 300000,
	  NFSWB_LOCAL_ABSENT, 0, 5000, true },
	/* Without a count of WRITEs, twice the bytes: as before. */
	{ "no count of WRITEs: a restart", M(1484), M(11), 0, 330000,
	  NFSWB_LOCAL_ABSENT, 0, 5000, false },
	{ "then twice the bytes are NFS's", M(1484 + 56), M(31), 0, 335000,
	  NFSWB_LOCAL_ABSENT, 0, 5000, true },
	{ "and more is local", M(1540 + 70), M(51), 0, 340000,
	  NFSWB_LOCAL_PRESENT, M(70) - M(20) * 2 - M(16), 5000,
	  true },
	{ "no nfsd count (0): a count that went back, the window starts over",
	  M(1780), 0, 0, 400000, NFSWB_LOCAL_PRESENT,
	  M(70) - M(20) * 2 - M(16), 5000, false },
	{ "then all of it is local", M(1880), 0, 0, 405000,
	  NFSWB_LOCAL_PRESENT, M(84), 5000, true },
};

static void test_local_watch(void)
{
	struct nfswb_local_watch w = { 0 };

	for (size_t i = 0; i < sizeof(local_cases) /
			       sizeof(local_cases[0]); i++) {
		const struct local_case *c = &local_cases[i];
		enum nfswb_local_verdict v;

		v = nfswb_local_watch_update(&w, c->dirtied, c->written,
					     c->writes, c->ms);
		T_CHECK(v == c->want && w.local_bytes == c->local &&
			w.window_ms == c->window_ms && w.closed == c->closed,
			"%s: verdict %d, local %" PRIu64 ", window %" PRIu64
			" ms, closed %d", c->name, (int)v, w.local_bytes,
			w.window_ms, w.closed);
	}
}

/*
 * The pace: what the device wrote lately sizes the target when that is
 * less than the bandwidth, and "limited" says that data above the
 * target waits for in-flight room (only then may bursts teach the
 * estimator).  Interval 100 ms throughout.
 */
static const struct pace_case {
	const char *name;
	uint64_t bw;
	bool have_rate;
	uint64_t rate, dirty, inflight, bg_ms;
	uint64_t target, kick;
	bool limited;
} pace_cases[] = {
	{ "rate unknown: the bandwidth paces, 100 MiB",
	  M(100), false, 0, 0, 0, 1000, M(100), 0, false },
	{ "6 MiB/s written on a 16 MiB/s device: the 8 MiB floor",
	  M(16), true, M(6), 0, 0, 1000, M(8), 0, false },
	{ "12 of 16 MiB/s: 12 MiB",
	  M(16), true, M(12), 0, 0, 1000, M(12), 0, false },
	{ "bursts wrote 30 on a 16 MiB/s estimate: the bandwidth, 16",
	  M(16), true, M(30), 0, 0, 1000, M(16), 0, false },
	{ "idle device: the floor",
	  M(16), true, 0, 0, 0, 1000, M(8), 0, false },
	{ "40 MiB/s for 250 ms: 10 MiB",
	  M(100), true, M(40), 0, 0, 250, M(10), 0, false },
	{ "50 of 200: target 50, excess 10 within 40 of room: kick 10",
	  M(200), true, M(50), M(60), 0, 1000, M(50), M(10), false },
	{ "50 of 200: excess 50 beyond 40 of room: kick 40, limited",
	  M(200), true, M(50), M(100), 0, 1000, M(50), M(40), true },
	{ "16 of 16: 20 dirty, excess 4 = room 4: kicked, not limited",
	  M(16), true, M(16), M(20), 0, 1000, M(16), M(4), false },
	{ "6 of 16: excess 1, the 4 MiB of room in flight: limited",
	  M(16), true, M(6), M(9), M(4), 1000, M(8), 0, true },
	{ "room 2 < 4 MiB, excess 50: deferred, limited",
	  M(100), false, 0, M(150), M(18), 1000, M(100), 0, true },
	{ "below the target, room full: not limited",
	  M(16), true, M(6), M(5), M(8), 1000, M(8), 0, false },
};

/*
 * One pace case decided with the target floor @bg_min (0: the default),
 * as on a device whose clients' COMMITs clean more than it kicks: so
 * continuous kicking (test_continuous) stays off, the ordinary rule shows.
 */
static void check_pace(const struct pace_case *c, uint64_t bg_min)
{
	const struct nfswb_policy_in in = {
		.memory = { .cleaned_bytes = M(100), .continuous = true },
		.interval_ms = 100,
		.nfs_dirty_bytes = c->dirty,
		.inflight_bytes = c->inflight,
		.bandwidth = c->bw,
		.write_rate = c->rate,
		.have_write_rate = c->have_rate,
		.background_time_ms = c->bg_ms,
		.background_min = bg_min,
	};
	struct nfswb_policy_out o;

	nfswb_policy_decide(&in, &o);
	T_CHECK(o.target_bytes == c->target && o.kick_bytes == c->kick &&
		o.limited == c->limited,
		"%s: target %" PRIu64 " kick %" PRIu64 " limited %d",
		c->name, o.target_bytes, o.kick_bytes, o.limited);
}

static void test_pace(void)
{
	for (size_t i = 0; i < sizeof(pace_cases) / sizeof(pace_cases[0]);
	     i++)
		check_pace(&pace_cases[i], 0);
}

/*
 * The floor, background_min: it bounds the target from below and halves
 * into the minimum kick (at most 4 MiB).  A 16 MiB/s device, interval
 * 100 ms: the in-flight budget is 16 MiB/s x 200 ms = 3355443 bytes.
 */
#define K(n)	((uint64_t)(n) << 10)	/* KiB */

static const struct floor_case {
	uint64_t bg_min;
	struct pace_case c;
} floor_cases[] = {
	/* 3.5 MiB/s x 100 ms = 367001 bytes */
	{ K(512), { "randwrite at 3.5 MiB/s, 100 ms, floor 512 KiB: target 512 KiB",
	  M(16), true, K(3584), 0, 0, 100, K(512), 0, false } },
	{ 0, { "the same, floor 0: the default 8 MiB",
	  M(16), true, K(3584), M(1), 0, 100, M(8), 0, false } },
	{ K(512), { "floor 512 KiB, 1 MiB dirty: the 512 KiB excess kicked",
	  M(16), true, K(3584), M(1), 0, 100, K(512), K(512), false } },
	/* room 3355443 - 3000000 = 355443 >= the 256 KiB minimum */
	{ K(512), { "floor 512 KiB, room 347 KiB of excess 2 MiB: kicked, limited",
	  M(16), true, K(3584), K(2560), 3000000, 100, K(512), 355443, true } },
	/* budget raised to 4 MiB, room 4194304 - 3000000 = 1194304 < 4 MiB */
	{ 0, { "default floor, room 1.1 MiB of excess 2 MiB: deferred, limited",
	  M(16), true, K(3584), M(10), 3000000, 100, M(8), 0, true } },
	/* room 204800 < 262144 */
	{ K(512), { "floor 512 KiB, room 200 KiB < 256 KiB minimum: deferred",
	  M(16), true, K(3584), K(2560), 3355443 - K(200), 100, K(512), 0, true } },
	/* 100 KiB/s x 200 ms = 20480, raised to the 32 KiB minimum kick */
	{ K(64), { "floor 64 KiB on a 100 KiB/s device: one 32 KiB kick in flight",
	  K(100), false, 0, K(164), 0, 100, K(64), K(32), true } },
	{ M(1024), { "floor 1 GiB: target 1 GiB, kicks still from 4 MiB (budget 20)",
	  M(100), false, 0, M(1024 + 50), 0, 1000, M(1024), M(20), true } },
};

static void test_floor(void)
{
	for (size_t i = 0; i < sizeof(floor_cases) / sizeof(floor_cases[0]);
	     i++)
		check_pace(&floor_cases[i].c, floor_cases[i].bg_min);
	T_CHECK(nfswb_policy_min_kick(0) == M(4) &&
		nfswb_policy_min_kick(M(8)) == M(4) &&
		nfswb_policy_min_kick(K(512)) == K(256) &&
		nfswb_policy_min_kick(M(1024)) == M(4),
		"nfswb_policy_min_kick: 0 %" PRIu64 ", 512 KiB %" PRIu64,
		nfswb_policy_min_kick(0), nfswb_policy_min_kick(K(512)));
	T_CHECK(nfswb_policy_target(M(1), 100, K(512)) == K(512) &&
		nfswb_policy_target(M(10), 100, K(512)) == M(1),
		"nfswb_policy_target with a 512 KiB floor");
}

/*
 * Continuous kicking, write-behind: a 16 MiB/s device, interval 100 ms
 * (in-flight budget 3355443 bytes), background_time 1 s, the default
 * 8 MiB floor, so the minimum kick is 1 MiB and the target 0.  It begins
 * when the backlog passes that 1 MiB with data at most at half the
 * bandwidth, and stops above 3/4, when others clean more than it kicks
 * or when it kicked less than the lowered floor lately (decayed sums,
 * 1/16 per decision).
 */
static const struct continuous_case {
	const char *name;
	bool have_rate;
	uint64_t rate, dirty, bg_min;
	struct nfswb_policy_memory mem;
	bool continuous;
	uint64_t target, kick;
	struct nfswb_policy_memory want;
} continuous_cases[] = {
	{ "6 of 16, 1 MiB: not past the lowered floor, not yet",
	  true, M(6), M(1), 0, { 0, 0, 0, false },
	  false, M(8), 0, { M(1), 0, 0, false } },
	{ "6 of 16, 4 MiB: past it, begins; target 0, the room kicked",
	  true, M(6), M(4), 0, { 0, 0, 0, false },
	  true, 0, 3355443, { M(4) - 3355443, 3355443, 0, true } },
	{ "beginning: what others cleaned before is forgotten",
	  true, M(6), M(4), 0, { M(12), 0, M(5), false },
	  true, 0, 3355443, { M(4) - 3355443, 3355443, 0, true } },
	{ "9 of 16, above half: the ordinary target, whole excess kicked",
	  true, M(9), M(10), 0, { 0, 0, 0, false },
	  false, M(9), M(1), { M(9), M(1), 0, false } },
	/* the budget raised to the 4 MiB minimum kick */
	{ "rate unknown: never (the bandwidth's target)",
	  false, 0, M(20), 0, { 0, 0, 0, false },
	  false, M(16), M(4), { M(16), M(4), 0, false } },
	/* kicked 4 MiB decays to 3.75 MiB */
	{ "going on at 10 of 16: 0.5 MiB, below the 1 MiB minimum, waits",
	  true, M(10), K(512), 0, { K(512), M(4), 0, true },
	  true, 0, 0, { K(512), K(3840), 0, true } },
	{ "going on, 1.5 MiB: all of it kicked",
	  true, M(10), K(1536), 0, { K(1536), M(4), 0, true },
	  true, 0, K(1536), { 0, K(3840) + K(1536), 0, true } },
	{ "13 of 16, above 3/4: stops, ordinary target",
	  true, M(13), K(1536), 0, { K(1536), M(4), 0, true },
	  false, M(13), 0, { K(1536), K(3840), 0, false } },
	{ "a COMMIT cleaned 1.5 MiB, kicks did more lately: goes on",
	  true, M(6), K(512), 0, { M(2), M(4), 0, true },
	  true, 0, 0, { K(512), K(3840), K(1536), true } },
	/* cleaned 1 MiB decays to 960 KiB, + 1792 KiB = 2752 KiB > 1920 KiB */
	{ "others cleaned more than it kicked: stops",
	  true, M(6), K(256), 0, { M(2), M(2), M(1), true },
	  false, M(8), 0, { K(256), K(1920), K(2752), false } },
	/* kicked 1 MiB decays to 960 KiB, below the 1 MiB lowered floor */
	{ "idle, kicked less than the lowered floor lately: stops",
	  true, 0, 0, 0, { 0, M(1), 0, true },
	  false, M(8), 0, { 0, K(960), 0, false } },
	/* an eighth of 512 KiB is 64 KiB: 1.5 MiB is past it, all kicked */
	{ "background_min=512K: begins past 64 KiB",
	  true, M(1), K(1536), K(512), { 0, 0, 0, false },
	  true, 0, K(1536), { 0, K(1536), 0, true } },
};

/* The 16 MiB/s device of the write-behind tables: interval 100 ms, 1 s. */
static struct nfswb_policy_in slow_device(bool have_rate, uint64_t rate,
					   uint64_t dirty, uint64_t bg_min)
{
	return (struct nfswb_policy_in){
		.interval_ms = 100,
		.nfs_dirty_bytes = dirty,
		.bandwidth = M(16),
		.write_rate = rate,
		.have_write_rate = have_rate,
		.background_time_ms = 1000,
		.background_min = bg_min,
	};
}

static void test_continuous(void)
{
	for (size_t i = 0; i < sizeof(continuous_cases) /
			       sizeof(continuous_cases[0]); i++) {
		const struct continuous_case *c = &continuous_cases[i];
		struct nfswb_policy_in in = slow_device(c->have_rate, c->rate,
							c->dirty, c->bg_min);
		struct nfswb_policy_out o;

		in.memory = c->mem;

		nfswb_policy_decide(&in, &o);
		T_CHECK(nfswb_policy_continuous(&in) == c->continuous &&
			o.memory.continuous == c->continuous &&
			o.target_bytes == c->target && o.kick_bytes == c->kick,
			"%s: continuous %d target %" PRIu64 " kick %" PRIu64,
			c->name, o.memory.continuous, o.target_bytes,
			o.kick_bytes);
		T_CHECK(o.memory.left_bytes == c->want.left_bytes &&
			o.memory.kicked_bytes == c->want.kicked_bytes &&
			o.memory.cleaned_bytes == c->want.cleaned_bytes,
			"%s: left %" PRIu64 " kicked %" PRIu64 " cleaned %" PRIu64,
			c->name, o.memory.left_bytes, o.memory.kicked_bytes,
			o.memory.cleaned_bytes);
	}
}

/*
 * The kernel knob's threshold: write-behind's least kick (an eighth of the
 * floor) once the data's rate is known, at any rate and whatever the
 * memory of kicks; the target before; the time knob is that over the
 * kernel's estimate.  A 16 MiB/s device, background_time 1 s.
 */
static const struct knob_bytes_case {
	const char *name;
	bool have_rate;
	uint64_t rate, dirty, bg_min, kernel_bw;
	bool continuous;	/* the memory says it writes behind */
	uint64_t want_bytes, want_ms;
} knob_bytes_cases[] = {
	{ "rate unknown: the target, 1 s of 16 MiB/s",
	  false, 0, 0, 0, 0, false, M(16), 1000 },
	{ "6 of 16, not writing behind yet: the least kick, 1 MiB",
	  true, M(6), 0, 0, 0, false, M(1), 1000 },
	{ "6 of 16, writing behind: 1 MiB",
	  true, M(6), M(2), 0, 0, true, M(1), 1000 },
	{ "exactly half: 1 MiB", true, M(8), 0, 0, 0, false, M(1), 1000 },
	/* files mode's target would be 9 MiB (pace 9 MiB/s x 1 s) */
	{ "9 of 16, above half: still 1 MiB",
	  true, M(9), M(4), 0, 0, false, M(1), 1000 },
	{ "15 of 16, nearly the disk's speed: 1 MiB",
	  true, M(15), M(12), 0, 0, false, M(1), 1000 },
	{ "faster than the disk: 1 MiB, the backlog passes it anyway",
	  true, M(24), M(64), 0, 0, false, M(1), 1000 },
	{ "background_min=512K: 64 KiB",
	  true, M(1), 0, K(512), 0, false, K(64), 1000 },
	{ "background_min=512K, above half: 64 KiB",
	  true, M(12), M(1), K(512), 0, false, K(64), 1000 },
	/* 1 MiB over a kernel at 100 MiB/s: 10 ms */
	{ "the time knob: 1 MiB over the kernel's 100 MiB/s, 10 ms",
	  true, M(6), 0, 0, M(100), false, M(1), 10 },
	{ "the time knob, above half: still 10 ms",
	  true, M(9), 0, 0, M(100), false, M(1), 10 },
	/* rate unknown: the 16 MiB target over 100 MiB/s, 160 ms */
	{ "the time knob, rate unknown: 160 ms",
	  false, 0, 0, 0, M(100), false, M(16), 160 },
};

static void test_knob_bytes(void)
{
	for (size_t i = 0; i < sizeof(knob_bytes_cases) /
			       sizeof(knob_bytes_cases[0]); i++) {
		const struct knob_bytes_case *c = &knob_bytes_cases[i];
		struct nfswb_policy_in in = slow_device(c->have_rate, c->rate,
							c->dirty, c->bg_min);
		struct nfswb_policy_out o;

		in.kernel_bw = c->kernel_bw;
		in.memory = (struct nfswb_policy_memory){
			.left_bytes = c->dirty,
			.kicked_bytes = c->continuous ? M(4) : 0,
			.continuous = c->continuous,
		};

		nfswb_policy_decide(&in, &o);
		T_CHECK(o.knob_bytes == c->want_bytes && o.knob_ms == c->want_ms,
			"%s: knob %" PRIu64 " bytes, %" PRIu64 " ms", c->name,
			o.knob_bytes, o.knob_ms);
	}
}

/*
 * The standby interval: the time the backlog takes to reach the target
 * at the device's rate, between the sampling interval and 1 s.
 */
static const struct {
	const char *name;
	uint64_t bound, target, bw, interval_ms, want_ms;
} standby_interval_cases[] = {
	{ "clean, target 1 s of the device: 1 s", 0, M(32), M(32), 100, 1000 },
	{ "a quarter dirty: 750 ms", M(8), M(32), M(32), 100, 750 },
	{ "the lab's randwrite: 8 MiB floor at 32 MiB/s, 64 KiB: 248 ms",
	  K(64), M(8), M(32), 100, 248 },
	{ "2 MiB of the 8 MiB floor at 32 MiB/s: 187 ms",
	  M(2), M(8), M(32), 100, 187 },
	{ "a slow device: capped at 1 s", 0, M(8), M(1), 100, 1000 },
	{ "a fast device: never below the interval", M(7), M(8), M(100), 100,
	  100 },
	{ "a longer interval given: kept", 0, M(32), M(32), 2000, 2000 },
	{ "at the target: the interval", M(8), M(8), M(32), 100, 100 },
	{ "bandwidth unknown: the interval", 0, M(8), 0, 100, 100 },
	{ "saturated sizes: 1 s", 0, UINT64_MAX, 1, 100, 1000 },
};

static void test_standby(void)
{
	for (size_t i = 0; i < sizeof(standby_interval_cases) /
			       sizeof(standby_interval_cases[0]); i++) {
		uint64_t got = nfswb_policy_standby_interval_ms(
			standby_interval_cases[i].bound,
			standby_interval_cases[i].target,
			standby_interval_cases[i].bw,
			standby_interval_cases[i].interval_ms);

		T_CHECK(got == standby_interval_cases[i].want_ms,
			"%s: %" PRIu64 " ms", standby_interval_cases[i].name,
			got);
	}
	for (size_t i = 0; i < sizeof(standby_cases) /
			       sizeof(standby_cases[0]); i++)
		T_CHECK(nfswb_policy_standby(standby_cases[i].bound,
					     standby_cases[i].target,
					     standby_cases[i].in_force) ==
			standby_cases[i].standby, "%s", standby_cases[i].name);
	T_CHECK(nfswb_policy_target(M(100), 1000, 0) == M(100) &&
		nfswb_policy_target(M(1), 1000, 0) == NFSWB_MIN_TARGET_BYTES,
		"nfswb_policy_target");
}

int main(void)
{
	test_knob();
	test_knob_bytes();
	test_pace();
	test_standby();
	test_written_bound();
	test_commits_often();
	test_local_watch();
	test_floor();
	test_continuous();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct policy_case *c = &cases[i];
		const struct nfswb_policy_in in = {
			.now_ms = 1000 * i,
			.interval_ms = c->in.interval_ms,
			.nfs_dirty_bytes = c->in.dirty,
			.inflight_bytes = c->in.inflight,
			.bandwidth = c->in.bandwidth,
			.background_time_ms = c->in.background_time_ms,
			.commit_target_ms = c->in.commit_target_ms,
			.cap_in_force = c->in.cap_in_force,
		};
		struct nfswb_policy_out o;

		nfswb_policy_decide(&in, &o);
		T_CHECK(o.target_bytes == c->out.target,
			"%s: target %" PRIu64 ", want %" PRIu64, c->name,
			o.target_bytes, c->out.target);
		T_CHECK(o.kick_bytes == c->out.kick,
			"%s: kick %" PRIu64 ", want %" PRIu64, c->name,
			o.kick_bytes, c->out.kick);
		T_CHECK(o.cap_bytes == c->out.cap,
			"%s: cap %" PRIu64 ", want %" PRIu64, c->name,
			o.cap_bytes, c->out.cap);
		T_CHECK(o.cap_change == c->out.cap_change,
			"%s: cap_change %d", c->name, o.cap_change);
	}
	printf("%zu policy cases\n", sizeof(cases) / sizeof(cases[0]));
	return t_result();
}
