// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live.c - "nfswb-report live": like top, once a second, COMMIT and WRITE
 * latency of the last interval and since the start, per client, from a
 * tracefs instance of its own; and the devices (and, in files mode, the
 * file owners) of nfswbd's status.json.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "probeargs.h"
#include "clock.h"
#include "sample.h"
#include "report.h"
#include "status.h"
#include "units.h"

/* Latencies in milliseconds, one decimal: what an admin reads at a glance. */
static void lat_cells(const struct nfswb_trace_ops *ops, size_t from)
{
	struct nfswb_lat lat = { 0 };
	struct nfswb_lat_summary s;

	for (size_t i = from; i < ops->count; i++)
		nfswb_lat_add(&lat, ops->v[i].us);
	nfswb_lat_summarize(&lat, &s);
	if (!s.count)
		printf(" %7d %9s %9s %9s", 0, "-", "-", "-");
	else
		printf(" %7" PRIu64 " %9.1f %9.1f %9.1f", s.count,
		       (double)s.pct_us[6] / 1e3, (double)s.pct_us[12] / 1e3,
		       (double)s.max_us / 1e3);
	nfswb_lat_free(&lat);
}

struct marks {
	size_t commits, writes, volume;
};

static void commit_write_row(const char *label, const struct nfswb_trace *t,
			     const struct marks *from, double seconds)
{
	enum nfswb_commit_source src;
	const struct nfswb_trace_ops *c = nfswb_trace_commits(t, &src);
	bool rpc;
	const struct nfswb_trace_ops *w = nfswb_trace_writes(t, &rpc);
	uint64_t bytes = 0;
	char buf[32];

	printf("%-12s", label);
	lat_cells(c, from->commits);
	lat_cells(w, from->writes);
	for (size_t i = from->volume; i < t->nfsd_write.count; i++)
		bytes += t->nfsd_write.v[i].bytes;
	if (t->nfsd_write.count && seconds > 0)
		printf(" %11s/s\n", report_bytes((double)bytes / seconds, buf,
						 sizeof(buf)));
	else
		printf(" %13s\n", "-");
}

/* Per client, since the start: svc_stats_latency names the client. */
static void client_rows(const struct nfswb_trace *t)
{
	for (size_t c = 0; c < t->nclients; c++) {
		struct nfswb_trace_ops cc = { 0 }, cw = { 0 };
		const struct nfswb_trace_ops *src[2] = { &t->rpc_commit,
							 &t->rpc_write };
		struct nfswb_trace_ops *dst[2] = { &cc, &cw };

		for (int k = 0; k < 2; k++) {
			dst[k]->v = malloc((src[k]->count + 1) *
					   sizeof(*dst[k]->v));
			if (!dst[k]->v)
				continue;
			for (size_t i = 0; i < src[k]->count; i++)
				if (src[k]->v[i].client == (int)c)
					dst[k]->v[dst[k]->count++] =
						src[k]->v[i];
		}
		printf("  %-22.22s", t->clients[c]);
		lat_cells(&cc, 0);
		lat_cells(&cw, 0);
		putchar('\n');
		free(cc.v);
		free(cw.v);
	}
}

static void status_rows(const char *path)
{
	struct status_doc doc;
	char b1[32], b2[32], name[256];
	int r = status_read(path, &doc);

	if (r) {
		printf("\nnfswbd %s: %s\n", path, strerror(-r));
		return;
	}
	printf("\nnfswbd devices (%s):\n", path);
	for (size_t i = 0; i < doc.ndevices; i++)
		printf("  bdi %-10s dirty %12s   bandwidth %12s/s\n",
		       doc.devices[i].bdi,
		       doc.devices[i].has_dirty ?
		       report_bytes((double)doc.devices[i].dirty, b1,
				    sizeof(b1)) : "-",
		       doc.devices[i].has_bandwidth ?
		       report_bytes((double)doc.devices[i].bandwidth, b2,
				    sizeof(b2)) : "-");
	if (!doc.ndevices)
		puts("  none");
	if (doc.nowners) {
		puts("dirty data by owner:");
		for (size_t i = 0; i < doc.nowners; i++) {
			printf("  %-32s %12s in %u file(s)",
			       report_owner_name(doc.owners[i].uid, name,
						 sizeof(name)),
			       report_bytes((double)doc.owners[i].dirty, b1,
					    sizeof(b1)),
			       doc.owners[i].files);
			if (doc.owners[i].kicked)
				printf(", kicked %s",
				       report_bytes((double)doc.owners[i].kicked,
						    b2, sizeof(b2)));
			putchar('\n');
		}
	}
}

/* Feed whole lines from @buf; keep a partial last line for next time. */
static int feed_chunk(struct nfswb_trace *t, char *carry, size_t *ncarry,
		      size_t cap, const char *buf, size_t n,
		      unsigned int *lineno)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (*ncarry < cap)
				carry[(*ncarry)++] = buf[i];
			continue;
		}
		if (nfswb_trace_feed(t, "trace_pipe", ++*lineno, carry,
				     *ncarry))
			return -ENOMEM;
		*ncarry = 0;
	}
	return 0;
}

static int live_run(int argc, char **argv)
{
	const char *status = NULL, *why;
	struct nfswb_probe_offsets offsets = { 0 };
	uint64_t interval_ms = 1000;
	long count = 0, pid = 0;
	bool trace = true, tty = isatty(STDOUT_FILENO);
	static char buf[65536], carry[8192];
	size_t ncarry = 0;
	unsigned int lineno = 0;
	struct marks mark = { 0 };
	struct nfswb_trace t;
	struct nfswb_capture cap = { .fd = -1 };
	double start, last;
	char *end;
	int c, ret = 1;

	while ((c = report_getopt(&report_live_cmd, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			if (nfswb_parse_duration_ms(optarg, &interval_ms, &why)
			    || !interval_ms)
				return report_usage(&report_live_cmd,
						    "--interval %s: %s", optarg,
						    interval_ms ? why :
						    "must be positive");
			break;
		case 'n':
		case 'p':
			errno = 0;
			*(c == 'n' ? &count : &pid) = strtol(optarg, &end, 10);
			if (errno || *end || (c == 'n' ? count : pid) <= 0 ||
			    pid > INT32_MAX)
				return report_usage(&report_live_cmd,
						    "-%c %s: expected a positive "
						    "number", c, optarg);
			break;
		case 's':
			status = optarg;
			break;
		case 'P':
			if (report_opt_probe_offsets(&report_live_cmd, optarg,
						     &offsets))
				return REPORT_EXIT_USAGE;
			break;
		case 'T':
			trace = false;
			break;
		case 'h':
			return report_help(&report_live_cmd, stdout);
		default:
			return report_bad_option(&report_live_cmd);
		}
	}
	if (optind != argc)
		return report_usage(&report_live_cmd, "unexpected argument '%s'",
				    argv[optind]);
	if (!trace && !status)
		return report_usage(&report_live_cmd,
				    "--no-trace needs --status FILE");

	capture_signals();
	nfswb_trace_init(&t);
	if (trace && nfswb_capture_open(&cap, "nfswb-report-", 0,
					 (int)pid, &offsets, NULL, 0)) {
		report_err("live", "%s", cap.why);
		if (!status)
			goto out;
		report_err("live", "showing %s only", status);
		trace = false;
	}

	start = last = nfswb_now_s();
	for (long shown = 0; !capture_stop && (!count || shown < count);
	     shown++) {
		double deadline = last + (double)interval_ms / 1e3, now;
		time_t wall = time(NULL);
		char clock[16];

		/* Collect until the next refresh. */
		while (!capture_stop && (now = nfswb_now_s()) < deadline) {
			int wait_ms = (int)((deadline - now) * 1e3) + 1;
			ssize_t n;

			if (!trace) {
				usleep((useconds_t)wait_ms * 1000);
				continue;
			}
			n = nfswb_capture_read(&cap, buf, sizeof(buf), wait_ms);
			if (n < 0) {
				report_err("live", "trace_pipe: %s",
					   strerror((int)-n));
				goto out;
			}
			if (feed_chunk(&t, carry, &ncarry, sizeof(carry), buf,
				       (size_t)n, &lineno))
				goto out;
		}
		if (capture_stop)
			break;
		now = nfswb_now_s();

		if (tty)
			fputs("\033[H\033[2J", stdout);
		strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&wall));
		printf("nfswb-report live  %s  up %.0f s", clock, now - start);
		if (trace)
			printf("  %s, %zu events", cap.name, cap.nevents);
		printf("  (latency in ms)\n\n");
		if (trace) {
			struct marks zero = { 0 };
			enum nfswb_commit_source src;
			bool rpc;

			nfswb_trace_commits(&t, &src);
			printf("%-12s %7s %9s %9s %9s %7s %9s %9s %9s %13s\n",
			       "", "COMMIT", "p50", "p99", "max", "WRITE",
			       "p50", "p99", "max", "WRITE rate");
			commit_write_row("last", &t, &mark, now - last);
			commit_write_row("total", &t, &zero, now - start);
			printf("(COMMIT from %s", nfswb_commit_source_name(src));
			if (t.nbad)
				printf(", %" PRIu64 " malformed lines", t.nbad);
			if (t.lost_events)
				printf(", %" PRIu64 " events lost",
				       t.lost_events);
			puts(")");
			if (t.nclients) {
				printf("\n%-24s %7s %9s %9s %9s %7s %9s %9s "
				       "%9s\n", "clients, total", "COMMIT",
				       "p50", "p99", "max", "WRITE", "p50",
				       "p99", "max");
				client_rows(&t);
			}
			mark.commits = nfswb_trace_commits(&t, &src)->count;
			mark.writes = nfswb_trace_writes(&t, &rpc)->count;
			mark.volume = t.nfsd_write.count;
		}
		if (status)
			status_rows(status);
		if (!tty)
			putchar('\n');
		fflush(stdout);
		last = now;
	}
	ret = 0;
out:
	nfswb_capture_close(&cap);
	nfswb_trace_free(&t);
	return ret;
}

const struct report_cmd report_live_cmd = {
	.name = "live",
	.args = "[-i INTERVAL] [-n COUNT] [-p PID] [-s STATUS] [-P OFFSETS] [-T]",
	.oneline = "refresh every second, like top",
	.about = "Refresh every INTERVAL (default 1s) with COMMIT and WRITE latency "
		 "over the last\n"
		 "interval and since the start, per client, and nfswbd's "
		 "devices and file owners.\n"
		 "Ctrl-C ends it; the tracefs instance is removed.",
	.opts = (const struct report_opt[]){
		{ 'i', "interval", "D", "refresh period, e.g. 1s, 500ms" },
		{ 'n', "count", "N", "stop after N refreshes" },
		{ 'p', "pid", "PID", "also time fsync/fdatasync of a userspace "
		  "server" },
		{ 's', "status", "FILE", "nfswbd's status.json" },
		{ 'P', "probe-offsets", "FILE", "struct offsets for the "
		  "nfsd_commit kprobe on a kernel\nwithout BTF (see "
		  "nfswb-report(1))" },
		{ 'T', "no-trace", NULL, "status.json only, no tracefs" },
		{ 0 },
	},
	.run = live_run,
};
