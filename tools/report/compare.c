// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare.c - "nfswb-report compare A B": the before/after view, every
 * figure of two traces side by side with the ratio B/A.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report.h"

/* One compared figure: its name and how to read it from a summary. */
struct row {
	const char *name;
	bool have;
	double a, b;
	bool few_a, few_b;	/* a side has too few samples for it */
};

/*
 * The p-th percentile of n samples is their maximum while n < 100/(100-p):
 * a p99 of 20 COMMITs is the slowest of them, not a 1-in-100 figure.
 */
static uint64_t samples_for(double p)
{
	return (uint64_t)llround(100.0 / (100.0 - p));
}

static double pct(const struct nfswb_lat_summary *s, double p)
{
	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		if (nfswb_lat_pct_list[i] == p)
			return (double)s->pct_us[i];
	return NAN;
}

/* The latency rows of one operation, in fio's order. */
static size_t lat_rows(struct row *r, const char *op,
		       const struct nfswb_lat_summary *a,
		       const struct nfswb_lat_summary *b, char names[][32])
{
	static const double show[] = { 50.0, 90.0, 99.0, 99.9 };
	bool have = a->count && b->count;
	size_t n = 0;
	char few[2][160] = { "", "" };

#define ROW(h, x, y, ...)						\
	do {								\
		snprintf(names[n], 32, __VA_ARGS__);			\
		r[n] = (struct row){ .name = names[n], .have = (h),	\
				    .a = (x), .b = (y) };		\
		n++;							\
	} while (0)
	ROW(true, (double)a->count, (double)b->count, "%s count", op);
	ROW(have, (double)a->min_us, (double)b->min_us, "%s min (us)", op);
	ROW(have, a->mean_us, b->mean_us, "%s mean (us)", op);
	ROW(have, a->stdev_us, b->stdev_us, "%s stdev (us)", op);
	for (size_t i = 0; i < sizeof(show) / sizeof(show[0]); i++) {
		uint64_t need = samples_for(show[i]);

		ROW(have, pct(a, show[i]), pct(b, show[i]), "%s p%g (us)", op,
		    show[i]);
		r[n - 1].few_a = have && a->count < need;
		r[n - 1].few_b = have && b->count < need;
		for (int side = 0; side < 2; side++) {
			size_t l = strlen(few[side]);

			if (side ? r[n - 1].few_b : r[n - 1].few_a)
				snprintf(few[side] + l, sizeof(few[side]) - l,
					 "%sp%g needs %" PRIu64, l ? ", " : "",
					 show[i], need);
		}
	}
	for (int side = 0; side < 2; side++)
		if (few[side][0])
			report_err("compare", "warning: %c has %" PRIu64 " %s "
				   "samples: %s", side ? 'B' : 'A',
				   side ? b->count : a->count, op, few[side]);
	ROW(have, (double)a->max_us, (double)b->max_us, "%s max (us)", op);
#undef ROW
	return n;
}

static int compare_run(int argc, char **argv)
{
	struct report_figures fa, fb;
	char names[32][32];
	struct row rows[32];
	bool json = false, few = false;
	size_t n = 0;
	double ra, rb;
	int c, ret = 1;

	while ((c = report_getopt(&report_compare_cmd, argc, argv)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			return report_help(&report_compare_cmd, stdout);
		default:
			return report_bad_option(&report_compare_cmd);
		}
	}
	if (argc - optind != 2)
		return report_usage(&report_compare_cmd,
				    "expected two traces, A and B");
	if (report_load(&fa, "compare", argv + optind, 1, REPORT_BY_NONE,
			NULL)) {
		report_figures_free(&fa);
		return 1;
	}
	if (report_load(&fb, "compare", argv + optind + 1, 1, REPORT_BY_NONE,
			NULL))
		goto out;
	if (fa.commit_src != fb.commit_src)
		report_err("compare", "warning: COMMIT is timed by %s in A but "
			   "by %s in B", nfswb_commit_source_name(fa.commit_src),
			   nfswb_commit_source_name(fb.commit_src));

	n += lat_rows(rows + n, "commit", &fa.all.commit_s, &fb.all.commit_s,
		      names + n);
	n += lat_rows(rows + n, "write", &fa.all.write_s, &fb.all.write_s,
		      names + n);
	rows[n++] = (struct row){ .name = "write bytes",
				  .have = fa.all.write_ops && fb.all.write_ops,
				  .a = (double)fa.all.write_bytes,
				  .b = (double)fb.all.write_bytes };
	ra = report_write_rate(&fa.all);
	rb = report_write_rate(&fb.all);
	rows[n++] = (struct row){ .name = "write rate (B/s)",
				  .have = ra >= 0 && rb >= 0, .a = ra, .b = rb };

	if (json) {
		struct nfswb_json j;

		nfswb_json_init(&j, stdout, true);
		nfswb_json_obj_begin(&j, NULL);
		nfswb_json_str(&j, "a_file", argv[optind]);
		nfswb_json_str(&j, "b_file", argv[optind + 1]);
		nfswb_json_obj_begin(&j, "a");
		report_json_group(&j, &fa, &fa.all);
		nfswb_json_obj_end(&j);
		nfswb_json_obj_begin(&j, "b");
		report_json_group(&j, &fb, &fb.all);
		nfswb_json_obj_end(&j);
		/* Figures a side has too few samples for (its maximum). */
		nfswb_json_arr_begin(&j, "few_samples");
		for (size_t i = 0; i < n; i++) {
			char what[48];

			if (rows[i].few_a || rows[i].few_b) {
				snprintf(what, sizeof(what), "%s: %s",
					 rows[i].few_a && rows[i].few_b ?
					 "A and B" : rows[i].few_a ? "A" : "B",
					 rows[i].name);
				nfswb_json_str(&j, NULL, what);
			}
		}
		nfswb_json_arr_end(&j);
		nfswb_json_obj_begin(&j, "ratio");
		for (size_t i = 0; i < n; i++) {
			if (rows[i].have && rows[i].a > 0)
				nfswb_json_double(&j, rows[i].name,
						  rows[i].b / rows[i].a);
			else
				nfswb_json_null(&j, rows[i].name);
		}
		nfswb_json_obj_end(&j);
		nfswb_json_obj_end(&j);
		nfswb_json_end(&j);
	} else {
		printf("A: %s (COMMIT from %s)\nB: %s (COMMIT from %s)\n\n",
		       argv[optind], nfswb_commit_source_name(fa.commit_src),
		       argv[optind + 1],
		       nfswb_commit_source_name(fb.commit_src));
		printf("%-20s %16s %16s %9s\n", "", "A", "B", "B/A");
		for (size_t i = 0; i < n; i++) {
			printf("%-20s", rows[i].name);
			if (!rows[i].have) {
				printf(" %16s %16s %9s\n", "-", "-", "-");
				continue;
			}
			/* Counts and microseconds are whole numbers. */
			printf(rows[i].a == floor(rows[i].a) &&
			       rows[i].b == floor(rows[i].b) ?
			       " %15.0f%c %15.0f%c" : " %15.1f%c %15.1f%c",
			       rows[i].a, rows[i].few_a ? '*' : ' ',
			       rows[i].b, rows[i].few_b ? '*' : ' ');
			if (rows[i].a > 0)
				printf(" %9.3f\n", rows[i].b / rows[i].a);
			else
				printf(" %9s\n", "-");
			few |= rows[i].few_a || rows[i].few_b;
		}
	}
	if (few)
		printf("\n* fewer samples than the percentile needs: it is "
		       "that side's maximum\n");
	ret = 0;
out:
	report_figures_free(&fb);
	report_figures_free(&fa);
	return ret;
}

const struct report_cmd report_compare_cmd = {
	.name = "compare",
	.args = "[--json] A B",
	.oneline = "two traces side by side with ratios (before/after)",
	.about = "The figures of trace A (before) and trace B (after) side "
		 "by side, with the\n"
		 "ratio B/A: below 1 means B waited less.  A percentile that "
		 "a side has too few\n"
		 "samples for (p99 needs 100) is marked '*' and warned about.",
	.opts = (const struct report_opt[]){
		{ 'j', "json", NULL, "one JSON object {a, b, few_samples, "
		  "ratio}" },
		{ 0 },
	},
	.run = compare_run,
};
