/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_files.h - what bench_files and bench_files_rewrite share: the
 * files mechanism attached to the loop filesystem as nfswbd attaches it,
 * one interval of nfswbd's loop on it, the CPU share a run used, medians.
 */
#ifndef NFSWB_BENCH_FILES_H
#define NFSWB_BENCH_FILES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "clock.h"
#include "mech.h"
#include "mechdev.h"
#include "policy.h"
#include "test.h"

#define INTERVAL_MS	100

struct bench_dev {
	struct nfswb_mech_dev d;
	struct nfswb_device_id id;
	const char *paths[1];
	uint64_t write_rate;	/* bytes/s the device writes; 0: unknown */
	struct nfswb_policy_memory memory;	/* the last decision's */
};

/* One device, @mnt exported, default options; skips when it cannot attach. */
static inline void bench_attach(struct bench_dev *b, const char *mnt,
				const char *bdi, unsigned int max_files)
{
	char why[256];

	t_mech_dev_init(&b->d, &b->id, NULL, "", bdi);
	b->paths[0] = mnt;
	b->d.paths = b->paths;
	b->d.npaths = 1;
	b->d.max_files = max_files;
	b->write_rate = 0;
	memset(&b->memory, 0, sizeof(b->memory));
	b->d.use_io_uring = true;
	if (nfswb_mech_files.attach(&b->d, why, sizeof(why)) < 0)
		T_SKIP("files mechanism cannot attach: %s", why);
}

static inline uint64_t bench_count(const struct bench_dev *b, const char *name)
{
	return nfswb_mech_counter(&nfswb_mech_files, &b->d, name);
}

/*
 * The decision and its application, as nfswbd makes them each interval,
 * for @dirty NFS-written bytes and a device of @bandwidth bytes/s.
 */
static inline void bench_interval(struct bench_dev *b, uint64_t dirty,
				  uint64_t bandwidth)
{
	struct nfswb_policy_in in = { 0 };
	struct nfswb_policy_out o;

	in.now_ms = nfswb_now_us() / 1000;
	in.interval_ms = INTERVAL_MS;
	in.nfs_dirty_bytes = dirty;
	in.inflight_bytes = bench_count(b, "inflight_bytes");
	in.bandwidth = bandwidth;
	in.background_time_ms = b->d.opts.background_time_ms;
	in.background_min = b->d.opts.background_min;
	in.write_rate = b->write_rate;
	in.have_write_rate = b->write_rate != 0;
	/* Passed back as nfswbd's tick does: continuous kicking holds. */
	in.memory = b->memory;
	nfswb_policy_decide(&in, &o);
	b->memory = o.memory;
	nfswb_mech_files.apply(&b->d, &o);
}

static inline double bench_tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* User + system time from @r0 to @r1, in % of one core over @us. */
static inline double bench_cpu_pct(const struct rusage *r0,
				   const struct rusage *r1, uint64_t us)
{
	return 100.0 * (bench_tv_s(r1->ru_utime) - bench_tv_s(r0->ru_utime) +
			bench_tv_s(r1->ru_stime) - bench_tv_s(r0->ru_stime)) /
	       ((double)us / 1e6);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorts @v). */
static inline double bench_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(v[0]), bench_cmp_double);
	return v[n / 2];
}

#endif
