// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latency.c - latency samples summarized the way fio and bcc print them.
 *
 * Samples are kept exactly (one uint64_t each) rather than in fio's
 * logarithmic buckets: a lab run has at most a few hundred thousand WRITEs
 * and a few thousand COMMITs, and exact order statistics can be checked
 * against an independent computation.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "satmath.h"

const double nfswb_lat_pct_list[NFSWB_LAT_NPCT] = {
	1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0,
	90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
};

int nfswb_lat_add(struct nfswb_lat *l, uint64_t us)
{
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		uint64_t *p;

		if (cap > SIZE_MAX / sizeof(*p))
			return -ENOMEM;
		p = realloc(l->us, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->us = p;
		l->cap = cap;
	}
	l->us[l->count++] = us;
	return 0;
}

void nfswb_lat_free(struct nfswb_lat *l)
{
	free(l->us);
	l->us = NULL;
	l->count = l->cap = 0;
}

uint64_t nfswb_lat_percentile(const struct nfswb_lat *sorted, double p)
{
	double rank;
	size_t idx;

	if (!sorted->count)
		return 0;
	/*
	 * Nearest rank: the smallest sample such that at least p percent of
	 * the samples are less than or equal to it, rank = ceil(p/100 * n).
	 * The relative nudge keeps 99.9% of 1000 samples at rank 999 despite
	 * binary rounding of 99.9; true fractions of a rank are far larger.
	 */
	rank = ceil(p / 100.0 * (double)sorted->count * (1.0 - 1e-12));
	if (rank < 1.0)
		rank = 1.0;
	idx = (size_t)rank - 1;
	if (idx >= sorted->count)
		idx = sorted->count - 1;
	return sorted->us[idx];
}

void nfswb_lat_summarize(struct nfswb_lat *l, struct nfswb_lat_summary *s)
{
	double mean = 0.0, m2 = 0.0;

	memset(s, 0, sizeof(*s));
	s->count = l->count;
	if (!l->count)
		return;

	qsort(l->us, l->count, sizeof(*l->us), nfswb_cmp_u64);
	s->min_us = l->us[0];
	s->max_us = l->us[l->count - 1];

	/* Welford: stable even for samples near UINT64_MAX. */
	for (size_t i = 0; i < l->count; i++) {
		double x = (double)l->us[i];
		double delta = x - mean;

		mean += delta / (double)(i + 1);
		m2 += delta * (x - mean);
	}
	s->mean_us = mean;
	/* fio reports the sample standard deviation (n - 1). */
	s->stdev_us = l->count > 1 ? sqrt(m2 / (double)(l->count - 1)) : 0.0;

	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		s->pct_us[i] = nfswb_lat_percentile(l, nfswb_lat_pct_list[i]);
}

/*
 * fio's display units: a figure set moves to msec when every number in it
 * is above 1000 usec (fio's usec_to_msec), and here on to sec above 10^6,
 * since COMMITs can take seconds.  The latency line weighs min, max, mean
 * and stdev; the percentiles their smallest value, as fio does.
 */
struct lat_unit {
	const char *name;
	uint64_t div;
};

static struct lat_unit unit_above(double smallest)
{
	if (smallest > 1e6)
		return (struct lat_unit){ "sec", 1000000 };
	if (smallest > 1e3)
		return (struct lat_unit){ "msec", 1000 };
	return (struct lat_unit){ "usec", 1 };
}

void nfswb_lat_print_text(FILE *out, const char *label,
			  const struct nfswb_lat_summary *s)
{
	struct lat_unit u, pu;
	uint64_t min_pct = UINT64_MAX;
	int width;

	if (!s->count) {
		fprintf(out, "  %s (usec): no samples\n", label);
		return;
	}
	u = unit_above(fmin(fmin((double)s->min_us, (double)s->max_us),
			    fmin(s->mean_us, s->stdev_us)));
	fprintf(out, "  %s (%s): min=%" PRIu64 ", max=%" PRIu64
		", avg=%.2f, stdev=%.2f, samples=%" PRIu64 "\n",
		label, u.name, s->min_us / u.div, s->max_us / u.div,
		s->mean_us / (double)u.div, s->stdev_us / (double)u.div,
		s->count);

	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		if (s->pct_us[i] < min_pct)
			min_pct = s->pct_us[i];
	pu = unit_above((double)min_pct);
	/* fio's column is 7 wide; seconds-long COMMITs need more. */
	width = snprintf(NULL, 0, "%" PRIu64, s->max_us / pu.div);
	if (width < 7)
		width = 7;
	fprintf(out, "  %s percentiles (%s):\n", label, pu.name);
	for (int i = 0; i < NFSWB_LAT_NPCT; i++) {
		/* Four per row, as fio does. */
		if (i % 4 == 0)
			fputs("     |", out);
		fprintf(out, " %5.2fth=[%*" PRIu64 "]%s",
			nfswb_lat_pct_list[i], width, s->pct_us[i] / pu.div,
			i == NFSWB_LAT_NPCT - 1 ? "\n" :
			i % 4 == 3 ? ",\n" : ",");
	}
}

unsigned int nfswb_lat_log2_bucket(uint64_t us)
{
	unsigned int b = 1;

	/* bcc's buckets: [0,1], [2,3], [4,7], ... numbered 1, 2, 3, ... */
	while (us > 1) {
		us >>= 1;
		b++;
	}
	return b;
}

static void print_stars(FILE *out, uint64_t val, uint64_t max, int width)
{
	int n = max ? (int)((double)val / (double)max * width) : 0;

	for (int i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', out);
}

void nfswb_lat_print_log2(FILE *out, const char *label,
			  const struct nfswb_lat *l, bool msecs)
{
	uint64_t hist[NFSWB_LAT_LOG2_BUCKETS + 1] = { 0 };
	unsigned int top = 0;
	uint64_t peak = 0;
	bool wide;

	for (size_t i = 0; i < l->count; i++) {
		/* nfsdist -m divides before bucketing, as here. */
		unsigned int b = nfswb_lat_log2_bucket(msecs ? l->us[i] / 1000 :
						       l->us[i]);

		hist[b]++;
		if (b > top)
			top = b;
	}
	for (unsigned int b = 1; b <= top; b++)
		if (hist[b] > peak)
			peak = hist[b];

	fprintf(out, "\n%s:\n", label);
	if (!top) {
		fputs("     no samples\n", out);
		return;
	}
	/* Columns widen once the values need more than 10 digits. */
	wide = top > 32;
	fprintf(out, wide ? "%20s%-19s : count     distribution\n" :
			    "%5s%-19s : count     distribution\n", "",
		msecs ? "msecs" : "usecs");
	for (unsigned int b = 1; b <= top; b++) {
		uint64_t lo = b == 1 ? 0 : UINT64_C(1) << (b - 1);
		uint64_t hi = b == 64 ? UINT64_MAX : (UINT64_C(1) << b) - 1;
		int w = wide ? 20 : 10;

		fprintf(out, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |",
			w, lo, w, hi, hist[b]);
		print_stars(out, hist[b], peak, 40);
		fputs("|\n", out);
	}
}

void nfswb_lat_json(struct nfswb_json *j, const char *key,
		    const struct nfswb_lat_summary *s)
{
	/* Without samples the figures do not exist: null, not zero. */
	static const struct {
		const char *key;
		double pct;
	} named[] = {
		{ "p50", 50.0 }, { "p90", 90.0 }, { "p99", 99.0 },
		{ "p99.9", 99.9 },
	};
	char name[32];

	nfswb_json_obj_begin(j, key);
	nfswb_json_u64(j, "count", s->count);
	if (s->count) {
		nfswb_json_u64(j, "min", s->min_us);
		nfswb_json_fixed(j, "mean", s->mean_us, 2);
		nfswb_json_fixed(j, "stdev", s->stdev_us, 2);
		nfswb_json_u64(j, "max", s->max_us);
	} else {
		nfswb_json_null(j, "min");
		nfswb_json_null(j, "mean");
		nfswb_json_null(j, "stdev");
		nfswb_json_null(j, "max");
	}
	for (size_t n = 0; n < sizeof(named) / sizeof(named[0]); n++) {
		int idx = -1;

		for (int i = 0; i < NFSWB_LAT_NPCT; i++)
			if (nfswb_lat_pct_list[i] == named[n].pct)
				idx = i;
		if (s->count && idx >= 0)
			nfswb_json_u64(j, named[n].key, s->pct_us[idx]);
		else
			nfswb_json_null(j, named[n].key);
	}
	nfswb_json_obj_begin(j, "percentiles");
	for (int i = 0; i < NFSWB_LAT_NPCT; i++) {
		/* fio's key spelling: "99.900000". */
		snprintf(name, sizeof(name), "%f", nfswb_lat_pct_list[i]);
		if (s->count)
			nfswb_json_u64(j, name, s->pct_us[i]);
		else
			nfswb_json_null(j, name);
	}
	nfswb_json_obj_end(j);
	nfswb_json_obj_end(j);
}
