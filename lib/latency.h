/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency.h - latency samples and the figures users know from fio and bcc:
 * count, min, mean, stdev, fio's percentile list (1 ... 99.99), max, and a
 * log2 histogram like nfsdist.  One schema for nfswb-report, nfswb-load and
 * the lab's result.json.
 */
#ifndef NFSWB_LATENCY_H
#define NFSWB_LATENCY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

/* fio's default percentile_list. */
#define NFSWB_LAT_NPCT	17
extern const double nfswb_lat_pct_list[NFSWB_LAT_NPCT];

struct nfswb_lat {
	uint64_t *us;		/* samples, microseconds */
	size_t count, cap;
};

struct nfswb_lat_summary {
	uint64_t count;
	uint64_t min_us, max_us;
	double mean_us, stdev_us;
	uint64_t pct_us[NFSWB_LAT_NPCT];	/* nearest-rank, as fio */
};

int nfswb_lat_add(struct nfswb_lat *l, uint64_t us);
void nfswb_lat_free(struct nfswb_lat *l);
/* Sorts the samples in place. */
void nfswb_lat_summarize(struct nfswb_lat *l, struct nfswb_lat_summary *s);
/* The nearest-rank percentile p (0 < p <= 100) of a summarized set. */
uint64_t nfswb_lat_percentile(const struct nfswb_lat *sorted, double p);

/* fio-style text block: "commit (usec): min=..., max=..., avg=..., stdev=..." */
void nfswb_lat_print_text(FILE *out, const char *label,
			  const struct nfswb_lat_summary *s);
/* nfsdist-style log2 histogram of the samples. */
void nfswb_lat_print_log2(FILE *out, const char *label,
			  const struct nfswb_lat *l);
/*
 * JSON object @key: {"count","min","mean","stdev","max","p50","p90","p99",
 * "p99.9", "percentiles": {"1.000000": ..}} in microseconds.
 */
void nfswb_lat_json(struct nfswb_json *j, const char *key,
		    const struct nfswb_lat_summary *s);

#endif
