// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_estimator.c - what the estimator costs, and what it says about a
 * real device.
 *
 *   bench_estimator                 ns per sample (median of 7 runs)
 *   bench_estimator --live DEV SECS sample /sys/block/DEV/stat every
 *                                   100 ms and print the estimate
 *
 * Built by "make check", never run by it: numbers, not pass/fail.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blkstat.h"
#include "clock.h"
#include "estimator.h"

#define RUNS		7
#define SAMPLES		1000000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void bench_cpu(void)
{
	double ns[RUNS];

	for (int r = 0; r < RUNS; r++) {
		struct nfswb_estimator e;
		struct nfswb_blkstat s = { .nfields = 17 };
		uint64_t t0;

		nfswb_estimator_init(&e, NULL);
		t0 = nfswb_now_ns();
		for (uint64_t i = 0; i < SAMPLES; i++) {
			/* Busy every sample: the median runs every time. */
			s.wr_sectors += 20000 + (i * 7919) % 4000;
			s.io_ticks += 90;
			s.wr_ticks += 900;
			s.in_flight = 8;
			nfswb_estimator_sample(&e, 100 * (i + 1), &s);
		}
		ns[r] = (double)(nfswb_now_ns() - t0) / SAMPLES;
		if (nfswb_estimator_bandwidth(&e) == 0)
			abort();
	}
	qsort(ns, RUNS, sizeof(ns[0]), cmp_double);
	printf("nfswb_estimator_sample, busy interval: median %.1f ns, "
	       "min %.1f ns, max %.1f ns per sample (%d runs of %d)\n",
	       ns[RUNS / 2], ns[0], ns[RUNS - 1], RUNS, SAMPLES);
}

static int live(const char *dev, int secs)
{
	struct nfswb_estimator e;
	struct nfswb_blkstat s, prev;
	char path[256];
	uint64_t start = nfswb_now_ns() / 1000000, t;
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", dev);
	nfswb_estimator_init(&e, NULL);
	ret = nfswb_blkstat_read(path, &prev);
	if (ret) {
		fprintf(stderr, "%s: %s\n", path, strerror(-ret));
		return 1;
	}
	nfswb_estimator_sample(&e, start, &prev);
	printf("%8s %10s %6s %12s %12s %s\n", "ms", "MiB/s", "busy%",
	       "interval", "estimate", "state");
	for (int i = 0; i < secs * 10; i++) {
		uint64_t prev_t = e.prev_ms, busy_before = e.busy_samples;

		usleep(100000);
		t = nfswb_now_ns() / 1000000;
		ret = nfswb_blkstat_read(path, &s);
		if (ret) {
			fprintf(stderr, "%s: %s\n", path, strerror(-ret));
			return 1;
		}
		nfswb_estimator_sample(&e, t, &s);
		printf("%8" PRIu64 " %10.1f %6.0f %12.1f %12.1f %s\n",
		       t - start,
		       (double)(s.wr_sectors - prev.wr_sectors) * 512 /
		       (double)(t - prev_t) * 1000 / 1048576,
		       (double)(s.io_ticks - prev.io_ticks) * 100 /
		       (double)(t - prev_t),
		       e.busy_samples > busy_before ?
		       (double)e.last_rate / 1048576 : 0.0,
		       (double)nfswb_estimator_bandwidth(&e) / 1048576,
		       e.learned ? "learned" : "cold");
		prev = s;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--live") == 0)
		return live(argv[2], atoi(argv[3]));
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--live DEV SECONDS]\n", argv[0]);
		return 2;
	}
	bench_cpu();
	return 0;
}
