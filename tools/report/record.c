// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record.c - "nfswb-report record": capture the NFS server events into a
 * tracefs instance of our own and write them as ftrace text, with samples
 * of the device's dirty backlog and bandwidth between them.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <sys/sysmacros.h>

#include "capture.h"
#include "probeargs.h"
#include "clock.h"
#include "sample.h"
#include "etab.h"
#include "procfs.h"
#include "report.h"
#include "units.h"

/*
 * "# nfswb-export dev=MAJ:MIN path=PATH" for each of knfsd's exports, so
 * that summary --by export can name the device a COMMIT's file is on.
 */
static void write_exports(FILE *out)
{
	struct nfswb_etab e = { 0 };

	if (nfswb_etab_load("", &e))
		return;
	for (size_t i = 0; i < e.count; i++) {
		struct stat st;

		if (!stat(e.entries[i].path, &st))
			fprintf(out, "# nfswb-export dev=%u:%u path=%s\n",
				major(st.st_dev), minor(st.st_dev),
				e.entries[i].path);
	}
	nfswb_etab_free(&e);
}

static void write_header(FILE *out, const struct nfswb_capture *c)
{
	struct utsname u;

	fprintf(out, "# nfswb-report record %s", PACKAGE_VERSION);
	if (!uname(&u))
		fprintf(out, " on %s %s", u.sysname, u.release);
	fprintf(out, "\n# instance %s, trace_clock %s\n# events:", c->name,
		c->clock_local ? "local" : "mono");
	for (size_t i = 0; i < c->nevents; i++)
		fprintf(out, " %s", c->events[i]);
	fprintf(out, "\n# commit source: %s\n", c->commit_source);
	write_exports(out);
}

int report_opt_probe_offsets(const struct report_cmd *cmd, const char *file,
			     struct nfswb_probe_offsets *o)
{
	char why[512];

	if (!nfswb_probe_offsets_load(file, o, why, sizeof(why)))
		return 0;
	return report_usage(cmd, "--probe-offsets %s", why);
}

static int record_run(int argc, char **argv)
{
	const char *output = NULL, *bdi = NULL, *status = NULL, *why;
	char *extra[NFSWB_CAPTURE_MAX_EVENTS / 2];
	size_t nextra = 0;
	uint64_t duration_ms = 0;
	struct nfswb_probe_offsets offsets = { 0 };
	struct nfswb_capture cap;
	double start, next_sample;
	static char buf[65536];
	FILE *out = stdout;
	int pid = 0, c, ret = 1;
	struct stat st;
	char *end;

	while ((c = report_getopt(&report_record_cmd, argc, argv)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'd':
			if (nfswb_parse_duration_ms(optarg, &duration_ms, &why))
				return report_usage(&report_record_cmd,
						    "--duration %s: %s",
						    optarg, why);
			break;
		case 'p':
			errno = 0;
			pid = (int)strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0)
				return report_usage(&report_record_cmd,
						    "--pid %s: not a process id",
						    optarg);
			break;
		case 'b':
			bdi = optarg;
			break;
		case 's':
			status = optarg;
			break;
		case 'P':
			if (report_opt_probe_offsets(&report_record_cmd, optarg,
						     &offsets))
				return REPORT_EXIT_USAGE;
			break;
		case 'e':
			if (nextra == NFSWB_CAPTURE_MAX_EVENTS / 2)
				return report_usage(&report_record_cmd,
						    "too many --event");
			extra[nextra++] = optarg;
			break;
		case 'h':
			return report_help(&report_record_cmd, stdout);
		default:
			return report_bad_option(&report_record_cmd);
		}
	}
	if (optind != argc)
		return report_usage(&report_record_cmd,
				    "unexpected argument '%s'", argv[optind]);
	if (bdi) {
		char path[PATH_MAX];

		if (access(nfswb_bdi_stats_path("", bdi, path, sizeof(path)),
			   R_OK)) {
			report_err("record", "--bdi %s: %s: %s", bdi, path,
				   strerror(errno));
			return 1;
		}
	}

	capture_signals();
	if (output && strcmp(output, "-")) {
		out = fopen(output, "w");
		if (!out) {
			report_err("record", "%s: %s", output, strerror(errno));
			return 1;
		}
	}
	if (nfswb_capture_open(&cap, "nfswb-report-", 0, pid, &offsets, extra,
			       nextra)) {
		report_err("record", "%s", cap.why);
		/*
		 * Leave no empty recording that looks like a quiet server,
		 * but remove only a regular file: -o may name a device
		 * such as /dev/null.
		 */
		if (out != stdout && !fstat(fileno(out), &st) &&
		    S_ISREG(st.st_mode))
			unlink(output);
		goto out;
	}
	write_header(out, &cap);
	fflush(out);
	if (cap.clock_local)
		report_err("record", "warning: trace_clock 'mono' refused; "
			   "samples will not line up with events");
	fprintf(stderr, "nfswb-report record: %zu events enabled in %s; "
		"COMMIT source %s; %s\n", cap.nevents, cap.name,
		cap.commit_source, duration_ms ? "recording" :
		"Ctrl-C to stop");

	start = nfswb_now_s();
	next_sample = start;
	while (!capture_stop) {
		double now = nfswb_now_s();
		ssize_t n;

		if (duration_ms && (now - start) * 1000.0 >= (double)duration_ms)
			break;
		if ((bdi || status) && now >= next_sample) {
			if (bdi && sample_bdi(bdi, out, now))
				report_err("record", "cannot read /sys/kernel/"
					   "debug/bdi/%s/stats", bdi);
			if (status && sample_status(status, out, now) < 0)
				report_err("record", "cannot read %s", status);
			next_sample += 1.0;
		}
		n = nfswb_capture_read(&cap, buf, sizeof(buf), 100);
		if (n < 0) {
			report_err("record", "trace_pipe: %s", strerror((int)-n));
			goto out_close;
		}
		if (n > 0 && fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
			report_err("record", "%s: %s", output ? output :
				   "stdout", strerror(errno));
			goto out_close;
		}
	}
	/* What the kernel still holds: drain without waiting. */
	for (;;) {
		ssize_t n = nfswb_capture_read(&cap, buf, sizeof(buf), 0);

		if (n <= 0)
			break;
		fwrite(buf, 1, (size_t)n, out);
	}
	ret = 0;
out_close:
	nfswb_capture_close(&cap);
out:
	if (out != stdout) {
		if (fclose(out) && !ret) {
			report_err("record", "%s: %s", output, strerror(errno));
			ret = 1;
		}
	} else if (fflush(out)) {
		ret = 1;
	}
	return ret;
}

const struct report_cmd report_record_cmd = {
	.name = "record",
	.args = "[-o FILE] [-d DURATION] [-p PID] [-b BDI] [-s STATUS] "
		"[-P OFFSETS] [-e SYSTEM:EVENT]...",
	.oneline = "capture NFS server events into ftrace text",
	.about = "Capture sunrpc:svc_stats_latency, nfsd:nfsd_write_start/done, "
		 "nfsd:nfsd_commit_start/done\n"
		 "and writeback:wb_bg_time_kick (those this kernel has) in a "
		 "tracefs instance of\n"
		 "its own, and write them as ftrace text.  Stops after "
		 "DURATION or on SIGINT/SIGTERM;\n"
		 "the instance is removed on every exit.",
	.opts = (const struct report_opt[]){
		{ 'o', "output", "FILE", "write here (default: standard "
		  "output)" },
		{ 'd', "duration", "D", "e.g. 30s, 2m (a bare number is "
		  "milliseconds)" },
		{ 'p', "pid", "PID", "also the fsync/fdatasync calls of PID and "
		  "every thread it\nstarts (a userspace server: NFS-Ganesha); "
		  "limits every\nevent to that process" },
		{ 'b', "bdi", "MAJ:MIN", "sample /sys/kernel/debug/bdi/MAJ:MIN/"
		  "stats every second" },
		{ 's', "status", "FILE", "sample nfswbd's status.json every "
		  "second" },
		{ 'P', "probe-offsets", "FILE", "struct offsets for the "
		  "nfsd_commit kprobe on a kernel\nwithout BTF, so that "
		  "COMMITs map to exports (see\nPROBE OFFSETS in "
		  "nfswb-report(1))" },
		{ 'e', "event", "SYS:EV", "also record this event (repeatable)" },
		{ 0 },
	},
	.run = record_run,
};
