// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_latency.c - latency figures against values known independently.
 *
 * A shuffled permutation of base+1 ... base+n has its k-th order statistic
 * at base+k, so the nearest-rank percentile p is base + ceil(p * n / 100),
 * computed here in integer hundredths of a percent; the mean and sample
 * variance of 1..n are (n + 1) / 2 and n (n + 1) / 12.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "test.h"

/* fio's percentile list in hundredths of a percent, typed independently. */
static const unsigned int pct_x100[NFSWB_LAT_NPCT] = {
	100, 500, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000,
	9000, 9500, 9900, 9950, 9990, 9995, 9999,
};

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	/* xorshift64: deterministic, no libc rand() state shared. */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void fill_permutation(struct nfswb_lat *l, size_t n, uint64_t base)
{
	uint64_t *v = calloc(n ? n : 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = base + i + 1;
	for (size_t i = n; i > 1; i--) {
		size_t j = rnd() % i;
		uint64_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		T_CHECK(nfswb_lat_add(l, v[i]) == 0, "add");
	free(v);
}

static bool close_to(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(1.0, fabs(b));
}

static void test_permutations(void)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 10, 99, 100, 1000, 1001,
					10007, 100000 };
	static const uint64_t bases[] = { 0, 1000, UINT64_C(1) << 40 };

	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			struct nfswb_lat l = { 0 };
			struct nfswb_lat_summary s;
			uint64_t n = sizes[z], base = bases[b];
			double var = (double)n * (double)(n + 1) / 12.0;

			fill_permutation(&l, n, base);
			nfswb_lat_summarize(&l, &s);
			T_CHECK(s.count == n, "n=%" PRIu64, n);
			T_CHECK(s.min_us == base + 1, "n=%" PRIu64, n);
			T_CHECK(s.max_us == base + n, "n=%" PRIu64, n);
			T_CHECK(close_to(s.mean_us,
					 (double)base + (double)(n + 1) / 2.0,
					 1e-12),
				"n=%" PRIu64 " mean %f", n, s.mean_us);
			T_CHECK(close_to(s.stdev_us, n > 1 ? sqrt(var) : 0.0,
					 1e-9),
				"n=%" PRIu64 " stdev %f want %f", n,
				s.stdev_us, sqrt(var));
			for (int i = 0; i < NFSWB_LAT_NPCT; i++) {
				uint64_t rank = (pct_x100[i] * n + 9999) / 10000;

				if (rank < 1)
					rank = 1;
				T_CHECK(s.pct_us[i] == base + rank,
					"n=%" PRIu64 " p%u/100: %" PRIu64
					" want %" PRIu64, n, pct_x100[i],
					s.pct_us[i], base + rank);
			}
			/* The direct call agrees: p=100 is the max, p=0 the min. */
			T_CHECK(nfswb_lat_percentile(&l, 100.0) == base + n,
				"p100");
			T_CHECK(nfswb_lat_percentile(&l, 0.0) == base + 1,
				"n=%" PRIu64 " p0: %" PRIu64, n,
				nfswb_lat_percentile(&l, 0.0));
			nfswb_lat_free(&l);
		}
	}
}

static void test_edges(void)
{
	struct nfswb_lat l = { 0 };
	struct nfswb_lat_summary s;

	/* No samples: every figure zero. */
	nfswb_lat_summarize(&l, &s);
	T_CHECK(s.count == 0 && s.min_us == 0 && s.max_us == 0 &&
		s.mean_us == 0.0 && s.stdev_us == 0.0, "empty");
	T_CHECK(nfswb_lat_percentile(&l, 50.0) == 0, "empty pct");

	/* One sample: it is every percentile, stdev 0. */
	nfswb_lat_add(&l, 4178513);
	nfswb_lat_summarize(&l, &s);
	T_CHECK(s.count == 1 && s.min_us == 4178513 && s.max_us == 4178513,
		"one");
	T_CHECK(s.mean_us == 4178513.0 && s.stdev_us == 0.0, "one mean");
	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		T_CHECK(s.pct_us[i] == 4178513, "one pct %d", i);
	nfswb_lat_free(&l);

	/* All equal. */
	for (int i = 0; i < 5000; i++)
		nfswb_lat_add(&l, 777);
	nfswb_lat_summarize(&l, &s);
	T_CHECK(s.mean_us == 777.0 && s.stdev_us == 0.0, "equal");
	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		T_CHECK(s.pct_us[i] == 777, "equal pct %d", i);
	nfswb_lat_free(&l);

	/* Huge values: order statistics exact, no overflow in the mean. */
	nfswb_lat_add(&l, UINT64_MAX);
	nfswb_lat_add(&l, UINT64_MAX - 1);
	nfswb_lat_add(&l, 0);
	nfswb_lat_summarize(&l, &s);
	T_CHECK(s.min_us == 0 && s.max_us == UINT64_MAX, "huge minmax");
	T_CHECK(s.pct_us[6] == UINT64_MAX - 1, "huge p50 %" PRIu64,
		s.pct_us[6]);
	T_CHECK(close_to(s.mean_us, 2.0 * 18446744073709551615.0 / 3.0,
			 1e-12), "huge mean %g", s.mean_us);
	T_CHECK(isfinite(s.stdev_us) && s.stdev_us > 1e19, "huge stdev %g",
		s.stdev_us);
	nfswb_lat_free(&l);

	/* Two values: sample stdev of {a, b} is |a - b| / sqrt(2). */
	nfswb_lat_add(&l, 100);
	nfswb_lat_add(&l, 300);
	nfswb_lat_summarize(&l, &s);
	T_CHECK(close_to(s.stdev_us, 200.0 / sqrt(2.0), 1e-12), "two stdev");
	nfswb_lat_free(&l);
}

static void test_log2_buckets(void)
{
	static const struct {
		uint64_t v;
		unsigned int b;
	} t[] = {
		{ 0, 1 }, { 1, 1 }, { 2, 2 }, { 3, 2 }, { 4, 3 }, { 7, 3 },
		{ 8, 4 }, { 1000, 10 }, { 1023, 10 }, { 1024, 11 },
		{ UINT64_C(1) << 63, 64 }, { UINT64_MAX, 64 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		T_CHECK(nfswb_lat_log2_bucket(t[i].v) == t[i].b,
			"%" PRIu64 " -> %u, want %u", t[i].v,
			nfswb_lat_log2_bucket(t[i].v), t[i].b);
}

/* Every printed "lo -> hi : count" row must count the samples in range. */
static void test_log2_print(void)
{
	struct nfswb_lat l = { 0 };
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, rows = 0;
	uint64_t total = 0;
	FILE *f;

	for (int i = 0; i < 3000; i++)
		nfswb_lat_add(&l, rnd() % 5000000);
	nfswb_lat_add(&l, 0);
	f = open_memstream(&buf, &len);
	nfswb_lat_print_log2(f, "commit latency", &l, false);
	fclose(f);

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t lo, hi, count, want = 0;

		if (sscanf(line, "%" SCNu64 " -> %" SCNu64 " : %" SCNu64,
			   &lo, &hi, &count) != 3)
			continue;
		for (size_t i = 0; i < l.count; i++)
			want += l.us[i] >= lo && l.us[i] <= hi;
		T_CHECK(count == want, "row %" PRIu64 "->%" PRIu64 ": %"
			PRIu64 " want %" PRIu64, lo, hi, count, want);
		T_CHECK(rows > 0 || lo == 0, "first row starts at 0");
		total += count;
		rows++;
	}
	T_CHECK(total == l.count, "rows add up: %" PRIu64, total);
	/* 5000000 < 2^23: buckets 1..23. */
	T_CHECK(rows == 23, "rows %zu", rows);
	free(buf);
	nfswb_lat_free(&l);
}

static char *render_json(struct nfswb_lat_summary *s)
{
	struct nfswb_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	nfswb_json_init(&j, f, false);
	nfswb_json_obj_begin(&j, NULL);
	nfswb_lat_json(&j, "commit_latency_us", s);
	nfswb_json_obj_end(&j);
	nfswb_json_end(&j);
	fclose(f);
	return buf;
}

static void test_json(void)
{
	struct nfswb_lat l = { 0 };
	struct nfswb_lat_summary s;
	char *js;

	fill_permutation(&l, 1000, 0);
	nfswb_lat_summarize(&l, &s);
	js = render_json(&s);
	static const char *const want[] = {
		"{\"commit_latency_us\":{\"count\":1000,\"min\":1,",
		"\"mean\":500.50,", "\"max\":1000,", "\"p50\":500,",
		"\"p90\":900,", "\"p99\":990,", "\"p99.9\":999,",
		"\"percentiles\":{\"1.000000\":10,", "\"99.990000\":1000}}}",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		T_CHECK(strstr(js, want[i]), "missing %s in %s", want[i], js);
	free(js);
	nfswb_lat_free(&l);

	nfswb_lat_summarize(&l, &s);
	js = render_json(&s);
	T_CHECK(strstr(js, "\"count\":0,\"min\":null,") &&
		strstr(js, "\"p99.9\":null") &&
		strstr(js, "\"99.990000\":null"), "empty json %s", js);
	free(js);
}

static void test_text(void)
{
	struct nfswb_lat l = { 0 };
	struct nfswb_lat_summary s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fill_permutation(&l, 100, 0);
	nfswb_lat_summarize(&l, &s);
	f = open_memstream(&buf, &len);
	nfswb_lat_print_text(f, "commit", &s);
	fclose(f);
	T_CHECK(strstr(buf, "commit (usec): min=1, max=100, avg=50.50,"),
		"%s", buf);
	T_CHECK(strstr(buf, "99.99th=[    100]"), "%s", buf);
	T_CHECK(strstr(buf, "50.00th=[     50]"), "%s", buf);
	free(buf);
	nfswb_lat_free(&l);
}

/* fio's unit scaling: msec once every figure is over 1000 usec, sec over 10^6. */
static void test_text_units(void)
{
	static const struct {
		uint64_t base, step;
		const char *line, *pct, *p50;
	} t[] = {
		/* 1001..1100 usec, but stdev 29: the line stays in usec */
		{ 1000, 1, "commit (usec): min=1001, max=1100, avg=1050.50,",
		  "commit percentiles (msec):", "50.00th=[      1]" },
		/* 2..200 ms, stdev 58 ms */
		{ 0, 2000, "commit (msec): min=2, max=200, avg=101.00, "
		  "stdev=58.02,", "commit percentiles (msec):",
		  "50.00th=[    100]" },
		/* 2..200 s */
		{ 0, 2000000, "commit (sec): min=2, max=200, avg=101.00, "
		  "stdev=58.02,", "commit percentiles (sec):",
		  "50.00th=[    100]" },
		/* 0..99 usec: usec whatever the spread */
		{ 0, 1, "commit (usec): min=1, max=100,",
		  "commit percentiles (usec):", "50.00th=[     50]" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct nfswb_lat l = { 0 };
		struct nfswb_lat_summary s;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		for (uint64_t v = 1; v <= 100; v++)
			nfswb_lat_add(&l, t[i].base + v * t[i].step);
		nfswb_lat_summarize(&l, &s);
		f = open_memstream(&buf, &len);
		nfswb_lat_print_text(f, "commit", &s);
		fclose(f);
		T_CHECK(strstr(buf, t[i].line), "case %zu: %s", i, buf);
		T_CHECK(strstr(buf, t[i].pct), "case %zu: %s", i, buf);
		T_CHECK(strstr(buf, t[i].p50), "case %zu: %s", i, buf);
		free(buf);
		nfswb_lat_free(&l);
	}
}

/* -m: the same samples in millisecond buckets, as nfsdist -m. */
static void test_log2_msecs(void)
{
	struct nfswb_lat l = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	nfswb_lat_add(&l, 500);		/* 0 ms */
	nfswb_lat_add(&l, 1999);	/* 1 ms */
	nfswb_lat_add(&l, 3000);	/* 3 ms: [2, 3] */
	nfswb_lat_add(&l, 3999);
	nfswb_lat_add(&l, 40000);	/* 40 ms: [32, 63] */
	f = open_memstream(&buf, &len);
	nfswb_lat_print_log2(f, "commit latency", &l, true);
	fclose(f);
	T_CHECK(strstr(buf, "msecs"), "%s", buf);
	T_CHECK(strstr(buf, "         0 -> 1          : 2 "), "%s", buf);
	T_CHECK(strstr(buf, "         2 -> 3          : 2 "), "%s", buf);
	T_CHECK(strstr(buf, "        32 -> 63         : 1 "), "%s", buf);
	free(buf);
	nfswb_lat_free(&l);
}

int main(void)
{
	test_permutations();
	test_edges();
	test_log2_buckets();
	test_log2_print();
	test_json();
	test_text();
	test_text_units();
	test_log2_msecs();
	return t_result();
}
