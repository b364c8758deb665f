// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * commits.c - nfswbd's own COMMIT latency histogram, per export, for the
 * metrics ([nfswbd] commit-latency).
 *
 * It reads lib's tracefs capture with only the events that time COMMIT:
 * knfsd's nfsd_commit_start/done, else the kprobe pair on nfsd_commit, or
 * (commit-latency-pid-file) a userspace server's fsync calls.  Each line
 * goes through the trace parser as nfswb-report reads it, the completed
 * COMMITs are counted into buckets and forgotten (nfswb_trace_drain), so
 * memory stays bounded however long the server runs.
 *
 * A COMMIT's export: for the kprobe, the file's device (several exports
 * on one file system share its series); for fsync, the descriptor's path
 * (/proc/PID/fd/FD) under the longest export path; else "unknown".
 *
 * Buckets: 0.1 ms x 1.5^k, k = 0..29 (0.1 ms to 12.78 s), the span of
 * NFS-Ganesha's nfs_latency_ms (30 buckets from 0.1 ms to 12.8 s), so
 * that the two can be put side by side; in seconds, Prometheus' base
 * unit (promtool refuses "ms" in a name), so Ganesha's figure is this
 * one times 1000.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture.h"
#include "commits.h"
#include "log.h"
#include "nfswbd.h"
#include "trace.h"

#define NBUCKETS	30
#define MAX_SERIES	256
#define MAX_EXPORTS	1024
#define MAX_FDS		4096	/* the server's descriptors remembered */

struct series {
	char bdi[64];
	char export[PATH_MAX];
	uint64_t buckets[NBUCKETS + 1];	/* the last: above every bound */
	uint64_t count;
	double sum_ms;
};

struct export_dev {
	dev_t dev;
	char bdi[64];
	char path[PATH_MAX];
	size_t len;
};

struct nfswbd_commits {
	struct nfswb_capture cap;
	struct nfswb_trace trace;
	unsigned int lineno;
	char partial[4096];		/* a line split across reads */
	size_t npartial;
	struct series *series;
	size_t nseries;
	struct export_dev *exports;
	size_t nexports;
	uint64_t dropped;		/* COMMITs beyond MAX_SERIES */
	int server_pid;
	/*
	 * The export each of the server's descriptors was last seen on (+1;
	 * 0: not seen): the fsync is read some milliseconds after it ran,
	 * and a file's last COMMIT may be followed by its close at once.
	 */
	uint16_t fd_export[MAX_FDS];
};

/* The upper bound of bucket @k (0..29), ms. */
static double bound_ms(unsigned int k)
{
	return 0.1 * pow(1.5, k);
}

/* Bucket of a latency: the first bound not below it, NBUCKETS for none. */
static unsigned int bucket_of(double ms)
{
	for (unsigned int k = 0; k < NBUCKETS; k++)
		if (ms <= bound_ms(k))
			return k;
	return NBUCKETS;
}

void nfswbd_commits_exports(struct nfswbd_commits *c,
			    const struct nfswbd_table *t)
{
	size_t n = 0;

	if (!c)
		return;
	free(c->exports);
	c->exports = calloc(MAX_EXPORTS, sizeof(*c->exports));
	c->nexports = 0;
	if (!c->exports)
		return;
	for (size_t i = 0; i < t->ndevs; i++) {
		const struct nfswbd_dev *d = &t->devs[i];

		for (size_t k = 0; k < d->nexports && n < MAX_EXPORTS; k++) {
			struct export_dev *x = &c->exports[n];
			struct stat st;

			if (stat(d->paths[k], &st) < 0)
				continue;
			x->dev = st.st_dev;
			snprintf(x->bdi, sizeof(x->bdi), "%s", d->id.bdi);
			snprintf(x->path, sizeof(x->path), "%s", d->paths[k]);
			x->len = strlen(x->path);
			while (x->len > 1 && x->path[x->len - 1] == '/')
				x->path[--x->len] = '\0';
			n++;
		}
	}
	c->nexports = n;
	memset(c->fd_export, 0, sizeof(c->fd_export));
}

/* The export a path is under: the longest export path that prefixes it. */
static const struct export_dev *export_of_path(const struct nfswbd_commits *c,
					       const char *path)
{
	const struct export_dev *best = NULL;

	for (size_t i = 0; i < c->nexports; i++) {
		const struct export_dev *x = &c->exports[i];

		if (!strncmp(path, x->path, x->len) &&
		    (path[x->len] == '/' || !path[x->len] || x->len == 1) &&
		    (!best || x->len > best->len))
			best = x;
	}
	return best;
}

static struct series *series_of(struct nfswbd_commits *c, const char *bdi,
				const char *export)
{
	for (size_t i = 0; i < c->nseries; i++)
		if (!strcmp(c->series[i].bdi, bdi) &&
		    !strcmp(c->series[i].export, export))
			return &c->series[i];
	if (c->nseries == MAX_SERIES)
		return NULL;
	snprintf(c->series[c->nseries].bdi, sizeof(c->series[0].bdi), "%s",
		 bdi);
	snprintf(c->series[c->nseries].export, sizeof(c->series[0].export),
		 "%s", export);
	return &c->series[c->nseries++];
}

/*
 * Every export of file system @dev, comma-separated into @names (the
 * kernel's probe names the file's device, not the export); the first one.
 */
static const struct export_dev *dev_names(const struct nfswbd_commits *c,
					  dev_t dev, char *names, size_t size)
{
	const struct export_dev *first = NULL;
	size_t len = 0;

	names[0] = '\0';
	for (size_t i = 0; i < c->nexports; i++) {
		if (c->exports[i].dev != dev)
			continue;
		if (!first)
			first = &c->exports[i];
		len += (size_t)snprintf(names + len, len < size ? size - len : 0,
					"%s%s", len ? "," : "",
					c->exports[i].path);
	}
	return first;
}

/*
 * A series for every configured export from the start, at zero: a
 * histogram that first appears with all its COMMITs in it shows no
 * increase to rate(), and its quantiles read NaN.
 */
static void known_series(struct nfswbd_commits *c)
{
	char names[PATH_MAX];

	for (size_t i = 0; i < c->nexports; i++) {
		const struct export_dev *x = &c->exports[i];

		if (c->server_pid)	/* a userspace server: by fd, per path */
			series_of(c, x->bdi, x->path);
		else if (dev_names(c, x->dev, names, sizeof(names)) == x)
			series_of(c, x->bdi, names);
	}
}

/* Label the COMMIT with its export, by device or by the synced file. */
static void on_commit(const struct nfswb_trace_op *op,
		      enum nfswb_commit_source src, void *arg)
{
	struct nfswbd_commits *c = arg;
	const struct export_dev *x = NULL;
	char names[PATH_MAX] = "";
	struct series *s;
	double ms = (double)op->us / 1000.0;

	(void)src;
	if (op->has_file) {
		x = dev_names(c, makedev(op->dev_major, op->dev_minor), names,
			      sizeof(names));
	} else if (op->has_fd) {
		char link[64], path[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/fd/%d", op->pid,
			 op->fd);
		n = readlink(link, path, sizeof(path) - 1);
		if (n > 0) {
			path[n] = '\0';
			x = export_of_path(c, path);
		}
		if (op->fd >= 0 && op->fd < MAX_FDS) {
			if (x)
				c->fd_export[op->fd] =
					(uint16_t)(x - c->exports + 1);
			else if (n <= 0 && c->fd_export[op->fd])
				x = &c->exports[c->fd_export[op->fd] - 1];
		}
		if (x)
			snprintf(names, sizeof(names), "%s", x->path);
	}
	s = series_of(c, x ? x->bdi : "", x ? names : "unknown");
	if (!s) {
		c->dropped++;
		return;
	}
	s->buckets[bucket_of(ms)]++;
	s->count++;
	s->sum_ms += ms;
}

static void feed(struct nfswbd_commits *c, const char *line, size_t len)
{
	if (nfswb_trace_feed(&c->trace, c->cap.name, ++c->lineno, line, len))
		xlog(L_ERROR, "commit latency: out of memory");
}

void nfswbd_commits_read(struct nfswbd_commits *c)
{
	char buf[65536];
	ssize_t n;

	while ((n = nfswb_capture_read(&c->cap, buf, sizeof(buf), 0)) > 0) {
		const char *p = buf, *end = buf + n;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (!nl) {
				/* Keep the start of a line for the next read. */
				if (c->npartial + len < sizeof(c->partial)) {
					memcpy(c->partial + c->npartial, p, len);
					c->npartial += len;
				}
				break;
			}
			if (c->npartial) {
				if (c->npartial + len < sizeof(c->partial)) {
					memcpy(c->partial + c->npartial, p, len);
					feed(c, c->partial, c->npartial + len);
				}
				c->npartial = 0;
			} else {
				feed(c, p, len);
			}
			p = nl + 1;
		}
	}
	if (n < 0)
		xlog(L_WARNING, "commit latency: trace_pipe: %s",
		     strerror((int)-n));
	nfswb_trace_drain(&c->trace, on_commit, c);
}

int nfswbd_commits_fd(const struct nfswbd_commits *c)
{
	return c ? c->cap.fd : -1;
}

const char *nfswbd_commits_source(const struct nfswbd_commits *c)
{
	return c ? c->cap.commit_source : "off";
}

/* The server named by commit-latency-pid-file, or 0 (logged). */
static int read_pid_file(const char *path)
{
	char buf[32], *end;
	long pid;
	FILE *f = fopen(path, "r");

	if (!f) {
		xlog(L_ERROR, "commit-latency-pid-file %s: %m", path);
		return 0;
	}
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		xlog(L_ERROR, "commit-latency-pid-file %s: empty", path);
		return 0;
	}
	fclose(f);
	errno = 0;
	pid = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || pid <= 1 ||
	    pid > INT32_MAX || kill((pid_t)pid, 0) < 0) {
		xlog(L_ERROR, "commit-latency-pid-file %s: no running process "
		     "'%.*s'", path, (int)strcspn(buf, "\n"), buf);
		return 0;
	}
	return (int)pid;
}

int nfswbd_commits_start(const struct nfswbd_settings *s,
			 const struct nfswbd_table *t,
			 struct nfswbd_commits **out)
{
	struct nfswbd_commits *c;
	int pid = 0;

	*out = NULL;
	if (s->commit_pid_file) {
		pid = read_pid_file(s->commit_pid_file);
		if (!pid)
			return -1;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->series = calloc(MAX_SERIES, sizeof(*c->series)))) {
		free(c);
		xlog(L_ERROR, "commit latency: out of memory");
		return -1;
	}
	nfswb_trace_init(&c->trace);
	c->server_pid = pid;
	/* A kernel without BTF: COMMITs stay per server, not per export. */
	if (nfswb_capture_open(&c->cap, "nfswbd-", NFSWB_CAPTURE_COMMITS_ONLY,
			       pid, NULL, NULL, 0) < 0) {
		xlog(L_ERROR, "commit latency: %s", c->cap.why);
		nfswbd_commits_stop(c);
		return -1;
	}
	if (!strncmp(c->cap.commit_source, "none", 4)) {
		xlog(L_ERROR, "commit latency: no COMMIT source: %s",
		     c->cap.commit_source);
		nfswbd_commits_stop(c);
		return -1;
	}
	nfswbd_commits_exports(c, t);
	known_series(c);
	xlog(L_NOTICE, "commit latency from %s", c->cap.commit_source);
	*out = c;
	return 0;
}

void nfswbd_commits_stop(struct nfswbd_commits *c)
{
	if (!c)
		return;
	nfswb_capture_close(&c->cap);
	nfswb_trace_free(&c->trace);
	free(c->series);
	free(c->exports);
	free(c);
}

/* The family's lines; @label writes one escaped label. */
void nfswbd_commits_render(const struct nfswbd_commits *c, FILE *f, bool om,
			   void (*label)(FILE *, const char *, const char *,
					 bool))
{
	const char *name = "nfswb_commit_latency_seconds";

	fprintf(f, "# HELP %s COMMIT latency seen by the server, per export "
		"(Ganesha's nfs_latency_ms buckets, in seconds)\n"
		"# TYPE %s histogram\n", name, name);
	if (om)
		fprintf(f, "# UNIT %s seconds\n", name);
	for (size_t i = 0; c && i < c->nseries; i++) {
		const struct series *s = &c->series[i];
		uint64_t cum = 0;

		for (unsigned int k = 0; k <= NBUCKETS; k++) {
			cum += s->buckets[k];
			fprintf(f, "%s_bucket{", name);
			label(f, "bdi", s->bdi, true);
			label(f, "export", s->export, false);
			if (k < NBUCKETS)
				fprintf(f, ",le=\"%.6g\"} %" PRIu64 "\n",
					bound_ms(k) / 1000.0,
					cum);
			else
				fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n", cum);
		}
		fprintf(f, "%s_sum{", name);
		label(f, "bdi", s->bdi, true);
		label(f, "export", s->export, false);
		fprintf(f, "} %.9f\n%s_count{", s->sum_ms / 1000.0, name);
		label(f, "bdi", s->bdi, true);
		label(f, "export", s->export, false);
		fprintf(f, "} %" PRIu64 "\n", s->count);
	}
}
