// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * statuscmd.c - nfswbd --status: the running daemon's status.json as one
 * screen per device, like exportfs -v or nfsstat, or (--json) the
 * document itself once lib's parser accepted it.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "nfswbd.h"
#include "statusfile.h"
#include "units.h"

static const char *size_or(const struct nfswb_jval *d, const char *path,
			   char *buf, size_t len, const char *none)
{
	uint64_t v;

	if (!nfswb_jget_u64(d, path, &v))
		return none;
	nfswb_format_size(v, buf, len);
	return buf;
}

static uint64_t u64_or0(const struct nfswb_jval *d, const char *path)
{
	uint64_t v = 0;

	nfswb_jget_u64(d, path, &v);
	return v;
}

/* Local time, as exportfs and nfsstat users read it. */
/* A boolean member that is there and true (a missing one reads false). */
static bool is_true(const struct nfswb_jval *d, const char *path)
{
	const struct nfswb_jval *v = nfswb_jget(d, path);

	return v && v->type == NFSWB_J_BOOL && v->b;
}

static const char *when(uint64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%" PRIu64, t);
	return buf;
}

static void print_duration(double s)
{
	uint64_t t = s > 0 ? (uint64_t)s : 0;

	if (t >= 86400)
		printf("%" PRIu64 "d%02" PRIu64 "h", t / 86400, t % 86400 / 3600);
	else if (t >= 3600)
		printf("%" PRIu64 "h%02" PRIu64 "m", t / 3600, t % 3600 / 60);
	else
		printf("%" PRIu64 "m%02" PRIu64 "s", t / 60, t % 60);
}

static void print_owner(const char *who, const struct nfswb_jval *o)
{
	char a[32], b[32];

	printf("    %-16s dirty %-10s kicked %-10s in %" PRIu64 " file(s)\n", who,
	       size_or(o, "dirty_bytes", a, sizeof(a), "0"),
	       size_or(o, "kicked_bytes", b, sizeof(b), "0"),
	       u64_or0(o, "files"));
}

/* Files mode's top owners by bytes: local user names, else the uid. */
static void print_owners(const struct nfswb_jval *d)
{
	const struct nfswb_jval *ow = nfswb_jget(d, "owners");
	const struct nfswb_jval *other = nfswb_jget(d, "other_owners");

	if (!ow || ow->type != NFSWB_J_ARR || !ow->nkids)
		return;
	printf("  owners\n");
	for (size_t i = 0; i < ow->nkids; i++) {
		struct passwd pw, *res = NULL;
		char who[64], pwbuf[1024];
		uint64_t uid;

		if (!nfswb_jget_u64(&ow->kids[i], "owner", &uid))
			continue;
		if (uid <= UINT32_MAX &&
		    getpwuid_r((uid_t)uid, &pw, pwbuf, sizeof(pwbuf),
			       &res) == 0 && res)
			snprintf(who, sizeof(who), "%s", res->pw_name);
		else
			snprintf(who, sizeof(who), "%" PRIu64, uid);
		print_owner(who, &ow->kids[i]);
	}
	if (other && (u64_or0(other, "dirty_bytes") ||
		      u64_or0(other, "kicked_bytes")))
		print_owner("(other)", other);
}

static void print_device(const struct nfswb_jval *d)
{
	const struct nfswb_jval *ex = nfswb_jget(d, "exports");
	char a[32], b[32], c[32], e[32];
	const char *mode = nfswb_jget_str(d, "mode", "?");
	const char *eff = nfswb_jget_str(d, "effective_mode", "?");

	printf("\n%s  %s  %s\n", nfswb_jget_str(d, "bdi", "?"),
	       nfswb_jget_str(d, "blockdev", "?"),
	       nfswb_jget_str(d, "fstype", "?"));
	printf("  exports     ");
	for (size_t i = 0; ex && ex->type == NFSWB_J_ARR && i < ex->nkids; i++)
		printf("%s%s", i ? ", " : "",
		       ex->kids[i].type == NFSWB_J_STR ? ex->kids[i].str : "?");
	printf("\n  mode        %s", mode);
	if (strcmp(mode, eff))
		printf(" -> %s", eff);
	if (is_true(d, "with_limit"))
		printf(" + limit");
	printf("\n  why         %s\n", nfswb_jget_str(d, "mode_reason", "-"));
	printf("  bandwidth   %s/s (%s, %" PRIu64 " busy samples)",
	       size_or(d, "bandwidth.bytes_per_s", a, sizeof(a), "?"),
	       nfswb_jget_str(d, "bandwidth.state", "?"),
	       u64_or0(d, "bandwidth.busy_samples"));
	/* What paces the target below the bandwidth (policy.h). */
	if (size_or(d, "bandwidth.write_rate_bytes_per_s", b, sizeof(b), NULL))
		printf(", writing %s/s", b);
	printf("\n");
	printf("  target      %-12s dirty %s (%s)\n",
	       size_or(d, "target_bytes", a, sizeof(a), "-"),
	       size_or(d, "dirty_bytes", b, sizeof(b), "?"),
	       nfswb_jget_str(d, "dirty_source", "?"));
	/* Standing by, the dirty figure is the cheap bound, not a walk. */
	if (is_true(d, "commits_often"))
		printf("  doing nothing: the clients' COMMITs keep the backlog small (%" PRIu64 " samples)\n",
		       u64_or0(d, "commits_often_samples"));
	else if (is_true(d, "standby"))
		printf("  standing by %" PRIu64 " intervals: the backlog is far below the target\n",
		       u64_or0(d, "standby_intervals"));
	printf("  in flight   %-12s cap   %s\n",
	       size_or(d, "counters.inflight_bytes", c, sizeof(c), "0"),
	       u64_or0(d, "counters.cap_bytes") ?
	       size_or(d, "counters.cap_bytes", e, sizeof(e), "-") : "none");
	printf("  kicks       %-12" PRIu64 " kicked %s\n",
	       u64_or0(d, "counters.kicks"),
	       size_or(d, "counters.bytes_kicked", a, sizeof(a), "0"));
	printf("  errors      %" PRIu64 "\n", u64_or0(d, "counters.errors"));
	print_owners(d);
}

/**
 * nfswbd_status_cmd - print STATE_DIR/status.json for people (or as is).
 * Returns the exit status: 0, 1 when there is no readable status (the
 * daemon is not running there), 2 for a file that is not its status.
 */
int nfswbd_status_cmd(const struct nfswbd_cmdline *cl, bool json)
{
	struct nfswbd_settings s;
	struct nfswb_export_opts defaults;
	struct nfswb_diag diag = { 0 };
	const struct nfswb_jval *devs;
	struct nfswb_jval doc;
	char path[4096], why[512];
	uint64_t pid = 0, mono, start;
	char date[32];
	int r;

	nfswbd_settings_load(cl, &s, &defaults, &diag);
	nfswb_diag_clear(&diag);
	snprintf(path, sizeof(path), "%s/status.json",
		 s.state_dir ? s.state_dir : NFSWB_STATEDIR);
	nfswbd_settings_free(&s);
	r = nfswb_status_load(path, &doc, why, sizeof(why));
	if (r) {
		fprintf(stderr, "nfswbd: %s%s\n", why, r == -ENOENT ?
			" (is nfswbd running with this --state-dir?)" : "");
		return r == -ENOENT || r == -EACCES ? 1 : 2;
	}
	if (json) {
		FILE *f = fopen(path, "r");
		char buf[8192];
		size_t n;

		/* The parser accepted it; hand out exactly what it read. */
		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, stdout);
		if (f)
			fclose(f);
		nfswb_jval_free(&doc);
		return fflush(stdout) ? 1 : 0;
	}

	printf("nfswbd %s, pid ", nfswb_jget_str(&doc, "version", "?"));
	if (nfswb_jget_u64(&doc, "pid", &pid))
		printf("%" PRIu64, pid);
	else
		printf("?");
	printf(", %s, interval %" PRIu64 "ms",
	       nfswb_jget_str(&doc, "mode", "?"),
	       u64_or0(&doc, "interval_ms"));
	/* Longer while every device stands by or does nothing. */
	if (u64_or0(&doc, "sampling_ms") > u64_or0(&doc, "interval_ms"))
		printf(" (sampling every %" PRIu64 "ms)",
		       u64_or0(&doc, "sampling_ms"));
	printf("\n");
	printf("  up          ");
	if (!pid || kill((pid_t)pid, 0) < 0)
		printf("not running (the file is a leftover)");
	else if (nfswb_jget_u64(&doc, "start_time_s", &start))
		print_duration((double)time(NULL) - (double)start);
	else
		printf("?");
	if (nfswb_jget_u64(&doc, "start_time_s", &start))
		printf(" (since %s)", when(start, date, sizeof(date)));
	if (nfswb_jget_u64(&doc, "monotonic_ms", &mono)) {
		printf(", status written %.1f s ago",
		       nfswb_now_s() - mono / 1e3);
	}
	printf("\n  reloads     %" PRIu64, u64_or0(&doc, "reloads"));
	if (nfswb_jget_u64(&doc, "last_reload_s", &start))
		printf(", last %s", when(start, date, sizeof(date)));
	if (u64_or0(&doc, "failed_reloads"))
		printf(", %" PRIu64 " failed (previous configuration kept)",
		       u64_or0(&doc, "failed_reloads"));
	printf("\n  metrics     ");
	if (nfswb_jget_str(&doc, "metrics.file", NULL) ||
	    nfswb_jget_str(&doc, "metrics.listen", NULL)) {
		const char *file = nfswb_jget_str(&doc, "metrics.file", NULL);
		const char *listen = nfswb_jget_str(&doc, "metrics.listen",
						    NULL);

		if (file)
			printf("%s", file);
		if (listen)
			printf("%shttp://%s/metrics", file ? ", " : "", listen);
		printf("; COMMIT latency %s%s",
		       nfswb_jget_str(&doc, "metrics.commit_latency", NULL) ?
		       "from " : "off",
		       nfswb_jget_str(&doc, "metrics.commit_latency", ""));
	} else {
		printf("off");
	}
	printf("\n  last error  ");
	if (nfswb_jget_str(&doc, "last_error.message", NULL) &&
	    nfswb_jget_u64(&doc, "last_error.time_s", &start))
		printf("%s: %s", when(start, date, sizeof(date)),
		       nfswb_jget_str(&doc, "last_error.message", NULL));
	else
		printf("none");
	printf("\n  config      %s, %s\n",
	       nfswb_jget_str(&doc, "config.exports_file", "?"),
	       nfswb_jget_str(&doc, "config.nfs_conf", "?"));
	devs = nfswb_jget(&doc, "devices");
	if (!devs || devs->type != NFSWB_J_ARR || !devs->nkids)
		printf("\nno devices: no export is configured\n");
	for (size_t i = 0; devs && devs->type == NFSWB_J_ARR &&
			   i < devs->nkids; i++)
		print_device(&devs->kids[i]);
	nfswb_jval_free(&doc);
	return fflush(stdout) ? 1 : 0;
}
