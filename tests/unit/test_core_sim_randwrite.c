// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_core_sim_randwrite.c - the lab's randwrite in a closed loop with
 * nfswb_step(), the function nfswbd's per-device tick runs, at the
 * shipped defaults, after a backlog, and at
 * background_min=512K,background_time=100ms.
 *
 * One client writes 64 KiB at a time at 3.5 MiB/s and COMMITs after
 * every 2 MiB, waiting for the COMMIT (fio's fsync=32 of 64 KiB
 * writes).  The device writes 16 MiB/s in order: a COMMIT waits for the
 * kicked data queued before it and then for the file's dirty rest.  The
 * daemon kicks what the policy asks (one file: oldest data first).  No
 * kernel flusher.  Simulated time, 1 ms steps.
 *
 * Checked, first do no harm: with a floor so high that nothing is ever
 * kicked (background_min=1G, stock's behaviour) each COMMIT writes its
 * own 2 MiB (125 ms of this device).  At the shipped defaults the data,
 * arriving at a quarter of the device's speed, is written behind: a
 * COMMIT finds at most the 1 MiB minimum kick and an interval's 350 KiB,
 * its p99 is well below that 125 ms, and as much is written in the run.
 * With a 512 KiB floor (its minimum kick 64 KiB) less again.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim_device.h"
#include "step.h"
#include "test.h"

#define MiB		(1024.0 * 1024.0)
#define FSYNC_EVERY	(2 * MiB)

struct rsim {
	double capacity;	/* bytes/s */
	/* commit_every: the first COMMIT's distance, then FSYNC_EVERY */
	struct sim_client c;
	struct sim_device dev;
	uint64_t now_ms, interval_ms, background_time_ms, background_min;
	struct nfswb_estimator est;
	bool standby;
	struct nfswb_policy_memory memory;
	uint64_t kicks, late_kicks;	/* late: after the first 10 s */
	uint64_t late_intervals, late_standby;
	uint64_t continuous;		/* intervals kicked continuously */
};

static void rsim_sample(struct rsim *m)
{
	struct nfswb_step_out out;
	bool kicked;

	sim_device_step(&m->dev, &m->est, m->c.dirty, NULL,
			(struct nfswb_policy_in){
				.now_ms = m->now_ms,
				.interval_ms = m->interval_ms,
				.background_time_ms = m->background_time_ms,
				.background_min = m->background_min,
			}, &m->standby, &m->memory, &out);
	kicked = sim_kick(&m->dev, &m->c.dirty, out.decision.kick_bytes,
			  m->now_ms);
	m->kicks += kicked;
	m->continuous += m->memory.continuous;
	if (m->now_ms > 11000) {
		m->late_intervals++;
		m->late_standby += m->standby;
		m->late_kicks += kicked;
	}
}

static void rsim_ms(struct rsim *m)
{
	double can = m->capacity / 1000.0;
	double depth = sim_device_depth(&m->dev);

	sim_client_ms(&m->c, &m->dev, m->now_ms);
	if (m->c.waiting)
		m->c.commit_every = FSYNC_EVERY;
	sim_device_write(&m->dev, can, can, depth, m->now_ms, sim_woken_one,
			 &m->c.waiting);
	m->now_ms++;
	if (m->now_ms % m->interval_ms == 0)
		rsim_sample(m);
}

/*
 * 120 s of randwrite; the COMMIT p99 in ms.  @first: the bytes before the
 * first COMMIT (FSYNC_EVERY: none more than the others).  @late: set to
 * the kicks and the intervals stood by after the first 10 s, of @n.
 */
/* The last run's COMMITted MiB/s. */
static double last_mbs;

static double run(uint64_t background_time_ms, uint64_t background_min,
		  double first, const char *label, uint64_t *late_kicks,
		  double *late_standby, uint64_t *continuous)
{
	static struct rsim m;
	double p99, mbs;
	unsigned int n, skip;
	uint64_t *lat;

	memset(&m, 0, sizeof(m));
	m.capacity = 16 * MiB;
	m.c.rate = 3.5 * MiB;
	m.interval_ms = 100;
	m.background_time_ms = background_time_ms;
	m.background_min = background_min;
	m.c.commit_every = first;
	m.now_ms = 1000;
	nfswb_estimator_init(&m.est, NULL);
	for (uint64_t t = 0; t < 120000; t++)
		rsim_ms(&m);
	/* The first 10 s: the write rate is not measured yet. */
	skip = m.dev.ncommits / 12;
	n = sim_commit_latencies(&m.dev, skip, label, &lat);
	if (!n)
		return 0;
	p99 = (double)sim_percentile(lat, n, 99);
	mbs = (double)m.dev.ncommits * FSYNC_EVERY / 120 / MiB;
	last_mbs = mbs;
	*late_kicks = m.late_kicks;
	*continuous = m.continuous;
	*late_standby = (double)m.late_standby / (double)m.late_intervals;
	printf("randwrite 3.5 MiB/s on 16, %s: %u COMMITs (%.2f MiB/s), p50 %" PRIu64 " p99 %.0f max %" PRIu64 " ms, %" PRIu64 " kicks (%" PRIu64 " after 10 s), stood by %.0f %% after 10 s, %" PRIu64 " intervals continuous\n",
	       label, m.dev.ncommits, mbs, sim_percentile(lat, n, 50), p99,
	       sim_percentile(lat, n, 100), m.kicks, m.late_kicks,
	       100 * *late_standby, m.continuous);
	return p99;
}

int main(void)
{
	uint64_t kicks, cont, stock_kicks;
	double standby, stock, shipped, small, stock_mbs;

	stock = run(1000, 1ull << 30, FSYNC_EVERY,
		    "background_min=1G (nothing kicked)", &stock_kicks,
		    &standby, &cont);
	stock_mbs = last_mbs;
	T_CHECK(stock_kicks == 0 && stock >= 120,
		"background_min=1G: %" PRIu64 " kicks, COMMIT p99 %.0f ms, expected the whole 2 MiB (125 ms)",
		stock_kicks, stock);
	shipped = run(1000, 0, FSYNC_EVERY, "shipped defaults", &kicks,
		      &standby, &cont);
	T_CHECK(kicks > 0 && cont > 0 && shipped > 0 &&
		shipped <= 0.6 * stock && last_mbs >= stock_mbs,
		"shipped defaults: %" PRIu64 " kicks, %" PRIu64 " intervals continuous, COMMIT p99 %.0f ms (nothing kicked: %.0f), %.2f MiB/s (%.2f)",
		kicks, cont, shipped, stock, last_mbs, stock_mbs);
	small = run(100, 512 << 10, FSYNC_EVERY,
		    "background_time=100ms,background_min=512K", &kicks,
		    &standby, &cont);
	T_CHECK(small > 0 && small <= shipped,
		"background_min=512K: COMMIT p99 %.0f ms, above the default's %.0f ms",
		small, shipped);
	return t_result();
}
