// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_core_sim_seqwrite.c - the lab's seqwrite in a closed loop with
 * nfswb_step(), the function nfswbd's per-device tick runs.
 *
 * One client writes 4 MiB files one after the other at the wire's
 * 11 MiB/s and COMMITs each at its end, waiting for the COMMIT before
 * the next file (fio's fsync at each file's end, a backup or copy job).
 * The device writes 16 MiB/s in order: a COMMIT waits for the kicked
 * data queued before it and then for the file's dirty rest.  The daemon
 * kicks what the policy asks, with files mode's written bound (nfsd's
 * counts of what it wrote and of the COMMITs it was sent).  No kernel
 * flusher.  Simulated time, 1 ms steps.
 *
 * Checked: the data arrives slower than the disk writes, so at the
 * shipped defaults it is written behind as it comes, and a COMMIT waits
 * for about an interval's arrivals instead of the whole file (250 ms of
 * this device, as when nothing is kicked); the client, waiting less,
 * writes more.  A 512 KiB floor (64 KiB minimum kick) waits less at the median.
 * 4 MiB a COMMIT is more than clients that commit often send
 * (policy.h): the written bound never says so.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim_device.h"
#include "step.h"
#include "test.h"

#define MiB		(1024.0 * 1024.0)
#define FILE_SIZE	(4 * MiB)
#define RUN_MS		120000

struct ssim {
	double capacity;
	struct sim_client c;	/* commit_every: FILE_SIZE */
	struct sim_device dev;
	uint64_t now_ms, interval_ms, background_time_ms, background_min;
	struct nfswb_estimator est;
	struct nfswb_written_bound wb;
	double written;			/* nfsd's count */
	bool standby;
	struct nfswb_policy_memory memory;
	uint64_t kicks, intervals, standby_intervals, continuous, often;
};

static void ssim_sample(struct ssim *m)
{
	const struct sim_bounds bounds = {
		.bdi = m->c.dirty,
		.written = &m->wb,
		.written_bytes = m->written,
		.commits = m->c.commits,
	};
	struct nfswb_step_out out;

	sim_device_step(&m->dev, &m->est, m->c.dirty, &bounds,
			(struct nfswb_policy_in){
				.now_ms = m->now_ms,
				.interval_ms = m->interval_ms,
				.background_time_ms = m->background_time_ms,
				.background_min = m->background_min,
			}, &m->standby, &m->memory, &out);
	m->intervals++;
	m->standby_intervals += m->standby;
	m->continuous += m->memory.continuous;
	m->often += out.commits_often;
	m->kicks += sim_kick(&m->dev, &m->c.dirty, out.decision.kick_bytes,
			     m->now_ms);
}

static void ssim_ms(struct ssim *m)
{
	double can = m->capacity / 1000.0;
	double depth = sim_device_depth(&m->dev);

	m->written += sim_client_ms(&m->c, &m->dev, m->now_ms);
	sim_device_write(&m->dev, can, can, depth, m->now_ms, sim_woken_one,
			 &m->c.waiting);
	m->now_ms++;
	if (m->now_ms % m->interval_ms == 0)
		ssim_sample(m);
}

struct result {
	double p50, p99, mbs;
	uint64_t kicks, continuous, often;
};

static struct result run(uint64_t background_time_ms, uint64_t background_min,
			 const char *label)
{
	static struct ssim m;
	struct result r = { 0 };
	unsigned int n, skip;
	uint64_t *lat;

	memset(&m, 0, sizeof(m));
	m.capacity = 16 * MiB;
	m.c.rate = 11 * MiB;
	m.c.commit_every = FILE_SIZE;
	m.interval_ms = 100;
	m.background_time_ms = background_time_ms;
	m.background_min = background_min;
	m.now_ms = 1000;
	nfswb_estimator_init(&m.est, NULL);
	for (uint64_t t = 0; t < RUN_MS; t++)
		ssim_ms(&m);
	/* The first 10 s: the write rate is not measured yet. */
	skip = m.dev.ncommits / 12;
	n = sim_commit_latencies(&m.dev, skip, label, &lat);
	if (!n)
		return r;
	r.p50 = (double)sim_percentile(lat, n, 50);
	r.p99 = (double)sim_percentile(lat, n, 99);
	r.mbs = (double)m.dev.ncommits * FILE_SIZE / (RUN_MS / 1000) / MiB;
	r.kicks = m.kicks;
	r.continuous = m.continuous;
	r.often = m.often;
	printf("seqwrite 11 MiB/s on 16, %s: %u COMMITs (%.2f MiB/s), p50 %.0f p99 %.0f max %" PRIu64 " ms, %" PRIu64 " kicks, stood by %.0f %%, %" PRIu64 " intervals continuous, %" PRIu64 " committing often\n",
	       label, m.dev.ncommits, r.mbs, r.p50, r.p99,
	       sim_percentile(lat, n, 100), m.kicks,
	       100.0 * (double)m.standby_intervals / (double)m.intervals,
	       m.continuous, m.often);
	return r;
}

int main(void)
{
	struct result stock = run(1000, 1ull << 30,
				  "background_min=1G (nothing kicked)");
	struct result shipped = run(1000, 0, "shipped defaults");
	struct result small = run(1000, 512 << 10, "background_min=512K");

	/* Each COMMIT writes its whole 4 MiB: 250 ms of this device. */
	T_CHECK(stock.kicks == 0 && stock.p99 >= 240,
		"nothing kicked: %" PRIu64 " kicks, COMMIT p99 %.0f ms",
		stock.kicks, stock.p99);
	/*
	 * Written behind: a COMMIT waits for the 1 MiB minimum kick and an
	 * interval's 1.1 MiB at most, and the client, waiting less, writes
	 * more.
	 */
	T_CHECK(shipped.continuous > 0 && shipped.p99 <= 0.35 * stock.p99 &&
		shipped.mbs >= 1.3 * stock.mbs,
		"shipped defaults: COMMIT p99 %.0f ms against %.0f, %.2f MiB/s against %.2f",
		shipped.p99, stock.p99, shipped.mbs, stock.mbs);
	T_CHECK(!stock.often && !shipped.often && !small.often,
		"4 MiB a COMMIT taken for clients that commit often: %" PRIu64
		", %" PRIu64 ", %" PRIu64 " intervals", stock.often,
		shipped.often, small.often);
	T_CHECK(small.p50 <= shipped.p50 && small.p99 <= 0.35 * stock.p99,
		"background_min=512K: COMMIT p50 %.0f ms (the default's %.0f), p99 %.0f",
		small.p50, shipped.p50, small.p99);
	return t_result();
}
