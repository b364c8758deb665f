// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * summary.c - "nfswb-report summary": the figures of one or more traces,
 * as fio text, CSV, or JSON (the schema of latency.h).
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "report.h"

/* What the command line asks of summary. */
struct summary_opts {
	enum report_by by;
	bool json, csv;
	bool hist;
	bool msecs;		/* histograms in milliseconds */
};

static void print_text_group(const struct report_figures *f,
			     const struct report_group *g, bool hist,
			     bool msecs)
{
	char b1[32], b2[32], label[96];
	double rate = report_write_rate(g);

	nfswb_lat_print_text(stdout, "commit", &g->commit_s);
	nfswb_lat_print_text(stdout, "write", &g->write_s);
	if (g->write_ops)
		printf("  WRITE: %s in %" PRIu64 " ops, %s/s over %.3f s\n",
		       report_bytes((double)g->write_bytes, b1, sizeof(b1)),
		       g->write_ops, report_bytes(rate > 0 ? rate : 0, b2,
						  sizeof(b2)),
		       g->write_last - g->write_first);
	else if (f->trace.nfsd_write.count)
		puts("  WRITE: none");
	if (hist) {
		snprintf(label, sizeof(label), "COMMIT latency (%s)",
			 nfswb_commit_source_name(f->commit_src));
		nfswb_lat_print_log2(stdout, label, &g->commit, msecs);
		snprintf(label, sizeof(label), "WRITE latency (%s)",
			 f->write_rpc ? "svc_stats_latency" : "nfsd_write");
		nfswb_lat_print_log2(stdout, label, &g->write, msecs);
	}
}

static void print_text(const struct report_figures *f, char **files,
		       int nfiles, bool hist, bool msecs)
{
	const struct nfswb_trace *t = &f->trace;

	printf("nfswb-report summary:");
	for (int i = 0; i < nfiles; i++)
		printf(" %s", files[i]);
	printf("\n  %" PRIu64 " lines, %" PRIu64 " events, %" PRIu64
	       " malformed, %" PRIu64 " unmatched, %" PRIu64
	       " lost; %.3f s traced\n", t->lines, t->events, t->nbad,
	       t->unmatched, t->lost_events,
	       t->any_ts ? t->last_ts - t->first_ts : 0.0);
	printf("  COMMIT from %s, WRITE from %s",
	       nfswb_commit_source_name(f->commit_src),
	       f->write_rpc ? "svc_stats_latency" :
	       t->nfsd_write.count ? "nfsd_write" : "none");
	if (t->nkicks)
		printf(", %zu wb_bg_time_kick", t->nkicks);
	putchar('\n');
	if (!f->commit_src && !t->nfsd_write.count && !t->rpc_write.count)
		puts("  no COMMIT or WRITE events: enable sunrpc:"
		     "svc_stats_latency and nfsd:nfsd_write_* "
		     "(nfswb-report record does)");
	print_text_group(f, &f->all, hist, msecs);
	for (size_t i = 0; i < f->ngroups; i++) {
		printf("\n%s %s:\n", report_by_name(f->by),
		       f->groups[i].name);
		print_text_group(f, &f->groups[i], hist, msecs);
	}
}

static void ops_json(struct nfswb_json *j, const char *key,
		     const struct nfswb_trace_ops *ops)
{
	struct nfswb_lat lat = { 0 };
	struct nfswb_lat_summary s;

	for (size_t i = 0; i < ops->count; i++)
		if (nfswb_lat_add(&lat, ops->v[i].us))
			break;	/* the count shows what was added */
	nfswb_lat_summarize(&lat, &s);
	nfswb_lat_json(j, key, &s);
	nfswb_lat_free(&lat);
}

static void print_json(const struct report_figures *f, char **files,
		       int nfiles)
{
	const struct nfswb_trace *t = &f->trace;
	struct nfswb_json j;

	nfswb_json_init(&j, stdout, true);
	nfswb_json_obj_begin(&j, NULL);
	nfswb_json_str(&j, "program", "nfswb-report");
	nfswb_json_str(&j, "version", PACKAGE_VERSION);
	nfswb_json_arr_begin(&j, "files");
	for (int i = 0; i < nfiles; i++)
		nfswb_json_str(&j, NULL, files[i]);
	nfswb_json_arr_end(&j);
	nfswb_json_u64(&j, "lines", t->lines);
	nfswb_json_u64(&j, "events", t->events);
	nfswb_json_u64(&j, "malformed_lines", t->nbad);
	nfswb_json_u64(&j, "unmatched_events", t->unmatched);
	nfswb_json_u64(&j, "lost_events", t->lost_events);
	nfswb_json_fixed(&j, "duration_s",
			 t->any_ts ? t->last_ts - t->first_ts : 0.0, 6);
	nfswb_json_str(&j, "commit_source",
		       nfswb_commit_source_name(f->commit_src));
	nfswb_json_str(&j, "write_source", f->write_rpc ? "svc_stats_latency" :
		       t->nfsd_write.count ? "nfsd_write" : "none");
	nfswb_json_u64(&j, "bg_time_kicks", t->nkicks);
	report_json_group(&j, f, &f->all);
	/*
	 * On a kernel with both, the time inside nfsd_commit() beside the
	 * RPC's: the difference is queueing and reply.
	 */
	if (f->commit_src == NFSWB_SRC_RPC && t->nfsd_commit.count)
		ops_json(&j, "nfsd_commit_latency_us", &t->nfsd_commit);
	if (f->by != REPORT_BY_NONE) {
		nfswb_json_str(&j, "by", report_by_name(f->by));
		nfswb_json_arr_begin(&j, "groups");
		for (size_t i = 0; i < f->ngroups; i++) {
			nfswb_json_obj_begin(&j, NULL);
			nfswb_json_str(&j, "name", f->groups[i].name);
			report_json_group(&j, f, &f->groups[i]);
			nfswb_json_obj_end(&j);
		}
		nfswb_json_arr_end(&j);
	}
	nfswb_json_obj_end(&j);
	nfswb_json_end(&j);
}

static void csv_row(const char *group, const char *op,
		    const struct nfswb_lat_summary *s,
		    const struct report_group *g)
{
	double rate = report_write_rate(g);

	/* Group names are addresses or fh_hash=0x..: no commas, no quotes. */
	printf("%s,%s,%" PRIu64, group, op, s->count);
	if (s->count) {
		printf(",%" PRIu64 ",%.2f,%.2f,%" PRIu64, s->min_us,
		       s->mean_us, s->stdev_us, s->max_us);
		for (int i = 0; i < NFSWB_LAT_NPCT; i++)
			printf(",%" PRIu64, s->pct_us[i]);
	} else {
		for (int i = 0; i < 4 + NFSWB_LAT_NPCT; i++)
			putchar(',');
	}
	if (op[0] == 'w')
		printf(",%" PRIu64 ",%.0f\n", g->write_bytes,
		       rate >= 0 ? rate : 0.0);
	else
		puts(",,");
}

static void print_csv(const struct report_figures *f)
{
	printf("group,op,count,min_us,mean_us,stdev_us,max_us");
	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		printf(",p%g_us", nfswb_lat_pct_list[i]);
	puts(",write_bytes,write_bytes_per_s");
	csv_row("all", "commit", &f->all.commit_s, &f->all);
	csv_row("all", "write", &f->all.write_s, &f->all);
	for (size_t i = 0; i < f->ngroups; i++) {
		csv_row(f->groups[i].name, "commit", &f->groups[i].commit_s,
			&f->groups[i]);
		csv_row(f->groups[i].name, "write", &f->groups[i].write_s,
			&f->groups[i]);
	}
}

static const struct report_opt summary_opts_table[] = {
	{ 'b', "by", "KEY", "also per client (svc_stats_latency client=), "
	  "per export (the\ndevice of the kprobe's file), per owner (its "
	  "uid, as an NFSv4 name)\nor per file (nfsd fh_hash)" },
	{ 'j', "json", NULL, "one JSON object (commit_latency_us, "
	  "write_latency_us, ...)" },
	{ 'c', "csv", NULL, "one CSV row per group and operation" },
	{ 'H', "no-hist", NULL, "leave out the log2 histograms" },
	{ 'm', "milliseconds", NULL, "histograms in milliseconds, as "
	  "nfsdist -m" },
	{ 0 },
};

/* Return: -1 to go on, else the exit code. */
static int summary_parse(int argc, char **argv, struct summary_opts *o)
{
	const char *why;
	int c;

	*o = (struct summary_opts){ .by = REPORT_BY_NONE, .hist = true };
	while ((c = report_getopt(&report_summary_cmd, argc, argv)) != -1) {
		switch (c) {
		case 'b':
			if (report_parse_by(optarg, &o->by, &why))
				return report_usage(&report_summary_cmd,
						    "--by %s: %s", optarg, why);
			break;
		case 'j':
			o->json = true;
			break;
		case 'c':
			o->csv = true;
			break;
		case 'H':
			o->hist = false;
			break;
		case 'm':
			o->msecs = true;
			break;
		case 'h':
			return report_help(&report_summary_cmd, stdout);
		default:
			return report_bad_option(&report_summary_cmd);
		}
	}
	if (o->json && o->csv)
		return report_usage(&report_summary_cmd,
				    "--json and --csv exclude each other");
	if (optind >= argc)
		return report_usage(&report_summary_cmd, "no trace FILE");
	return -1;
}

static int summary_run(int argc, char **argv)
{
	struct summary_opts o;
	struct report_figures f;
	char **files;
	int nfiles, rc;

	rc = summary_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	files = argv + optind;
	nfiles = argc - optind;
	if (report_load(&f, "summary", files, nfiles, o.by, NULL)) {
		report_figures_free(&f);
		return 1;
	}
	if (o.json)
		print_json(&f, files, nfiles);
	else if (o.csv)
		print_csv(&f);
	else
		print_text(&f, files, nfiles, o.hist, o.msecs);
	report_figures_free(&f);
	return 0;
}

const struct report_cmd report_summary_cmd = {
	.name = "summary",
	.args = "[--by client|export|owner|file|none] [--json|--csv] "
		"[--no-hist] "
		"[-m] FILE...",
	.oneline = "latency figures and WRITE rate of traces",
	.about = "COMMIT and WRITE latency (count, min, mean, stdev, fio's "
		 "percentiles, max, in\n"
		 "fio's units), a log2 histogram like nfsdist, and WRITE "
		 "volume and rate, from\n"
		 "ftrace text (nfswb-report record, or a tracefs 'trace' "
		 "dump).  FILE '-' is stdin.",
	.opts = summary_opts_table,
	.run = summary_run,
};
