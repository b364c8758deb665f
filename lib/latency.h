/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency.h - latency samples and the figures users know from fio and bcc:
 * count, min, mean, stdev, fio's percentile list (1 ... 99.99), max, and a
 * log2 histogram like nfsdist.  One schema for nfswb-report, nfswb-load and
 * the lab's result.json.
 */
#ifndef NFSWB_LATENCY_H
#define NFSWB_LATENCY_H

#include <stdbool.h>
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

/**
 * nfswb_lat_add() - record one sample
 * @l: sample set, zero-initialised before first use
 * @us: latency in microseconds
 *
 * Return: 0, or -ENOMEM.
 */
int nfswb_lat_add(struct nfswb_lat *l, uint64_t us);

/**
 * nfswb_lat_free() - release the samples; @l may be reused afterwards
 * @l: sample set
 */
void nfswb_lat_free(struct nfswb_lat *l);

/**
 * nfswb_lat_summarize() - compute every figure of @s from @l
 * @l: sample set; sorted in place
 * @s: out: count, min, max, mean, sample stdev (n - 1, as fio) and the
 *	nearest-rank percentiles of nfswb_lat_pct_list.  All zero when
 *	@l is empty.
 */
void nfswb_lat_summarize(struct nfswb_lat *l, struct nfswb_lat_summary *s);

/**
 * nfswb_lat_percentile() - nearest-rank percentile of a sorted set
 * @sorted: a set already passed through nfswb_lat_summarize()
 * @p: percent, 0 < p <= 100
 *
 * Return: the sample at rank ceil(p / 100 * count) (at least rank 1), or 0
 * for an empty set.
 */
uint64_t nfswb_lat_percentile(const struct nfswb_lat *sorted, double p);

/**
 * nfswb_lat_print_text() - fio-style text block
 * @out: stream
 * @label: e.g. "commit": prints "commit (usec): min=..., max=..., avg=...,
 *	stdev=..." then "commit percentiles (usec):" four per row
 * @s: the figures
 *
 * Units scale as fio's do: msec when every figure of the line (or every
 * percentile) is above 1000 usec, sec when above 10^6.
 */
void nfswb_lat_print_text(FILE *out, const char *label,
			  const struct nfswb_lat_summary *s);

/* Bucket numbers run from 1 ([0,1]) to 64 ([2^63, 2^64-1]). */
#define NFSWB_LAT_LOG2_BUCKETS	64

/**
 * nfswb_lat_log2_bucket() - bcc's log2 bucket of a value
 * @us: value
 *
 * Return: 1 for 0 and 1, else floor(log2(us)) + 1; bucket b > 1 holds
 * [2^(b-1), 2^b - 1], as nfsdist prints them.
 */
unsigned int nfswb_lat_log2_bucket(uint64_t us);

/**
 * nfswb_lat_print_log2() - nfsdist-style log2 histogram
 * @out: stream
 * @label: title line
 * @l: samples (sorted or not)
 * @msecs: buckets of milliseconds, as nfsdist -m prints them
 */
void nfswb_lat_print_log2(FILE *out, const char *label,
			  const struct nfswb_lat *l, bool msecs);

/**
 * nfswb_lat_json() - the figures as one JSON object
 * @j: writer
 * @key: member name, or NULL for an array element
 * @s: the figures
 *
 * Writes {"count","min","mean","stdev","max","p50","p90","p99","p99.9",
 * "percentiles": {"1.000000": .., ..., "99.990000": ..}} in microseconds,
 * fio's percentile key spelling.  With no samples every figure but count
 * is null.
 */
void nfswb_lat_json(struct nfswb_json *j, const char *key,
		    const struct nfswb_lat_summary *s);

#endif
