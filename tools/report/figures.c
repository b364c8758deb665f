// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * figures.c - from a parsed trace to the figures every subcommand shows:
 * COMMIT and WRITE latency, WRITE volume and rate, overall and per group.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "report.h"
#include "status.h"

int report_parse_by(const char *s, enum report_by *by, const char **why)
{
	if (!strcmp(s, "none")) {
		*by = REPORT_BY_NONE;
	} else if (!strcmp(s, "client")) {
		*by = REPORT_BY_CLIENT;
	} else if (!strcmp(s, "file")) {
		*by = REPORT_BY_FILE;
	} else if (!strcmp(s, "export")) {
		/*
		 * By the device of the COMMIT's file, which only the kprobe
		 * on nfsd_commit reads (the tracepoints carry fh_hash, a
		 * hash of the whole handle), named by record's export lines.
		 */
		*by = REPORT_BY_EXPORT;
	} else if (!strcmp(s, "owner")) {
		/* The file's owner, again only from the kprobe. */
		*by = REPORT_BY_OWNER;
	} else {
		*why = "expected client, export, file, owner or none";
		return -1;
	}
	return 0;
}

const char *report_by_name(enum report_by by)
{
	switch (by) {
	case REPORT_BY_CLIENT:
		return "client";
	case REPORT_BY_EXPORT:
		return "export";
	case REPORT_BY_FILE:
		return "file";
	case REPORT_BY_OWNER:
		return "owner";
	case REPORT_BY_NONE:
		break;
	}
	return "none";
}

static void group_free(struct report_group *g)
{
	free(g->name);
	nfswb_lat_free(&g->commit);
	nfswb_lat_free(&g->write);
}

void report_figures_free(struct report_figures *f)
{
	group_free(&f->all);
	for (size_t i = 0; i < f->ngroups; i++)
		group_free(&f->groups[i]);
	free(f->groups);
	free(f->index);
	nfswb_trace_free(&f->trace);
	memset(f, 0, sizeof(*f));
}

/* What a group is keyed by: 0 for "unknown", else client + 1 or fh_hash. */
static uint64_t group_key(const struct report_figures *f,
			  const struct nfswb_trace_op *op)
{
	if (f->by == REPORT_BY_CLIENT)
		return op->client >= 0 ? (uint64_t)op->client + 1 : 0;
	if (f->by == REPORT_BY_EXPORT)
		return op->has_file ? (UINT64_C(2) << 32) |
				      ((uint64_t)op->dev_major << 20) |
				      op->dev_minor : 0;
	if (f->by == REPORT_BY_OWNER)
		return op->has_uid ? (UINT64_C(3) << 32) | op->uid : 0;
	return op->has_fh ? (UINT64_C(1) << 32) | op->fh_hash : 0;
}

static size_t slot_of(uint64_t key, size_t cap)
{
	/* Fibonacci hashing; cap is a power of two. */
	return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
	       (cap - 1);
}

/* Open addressing from key to group index, doubled at half full. */
static int index_grow(struct report_figures *f)
{
	size_t cap = f->index_cap ? f->index_cap * 2 : 64;
	struct report_index_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < f->index_cap; i++) {
		size_t j;

		if (!f->index[i].used)
			continue;
		for (j = slot_of(f->index[i].key, cap); slots[j].used;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = f->index[i];
	}
	free(f->index);
	f->index = slots;
	f->index_cap = cap;
	return 0;
}

/* An export's path, or the device where record named no export on it. */
static void export_name(const struct report_figures *f,
			const struct nfswb_trace_op *op, char *buf, size_t len)
{
	const struct nfswb_trace_export *x =
		nfswb_trace_export_of(&f->trace, op->dev_major, op->dev_minor);

	if (x)
		snprintf(buf, len, "%s", x->path);
	else
		snprintf(buf, len, "dev %u:%u", op->dev_major, op->dev_minor);
}

static struct report_group *new_group(struct report_figures *f,
				      const struct nfswb_trace_op *op)
{
	char name[NFSWB_TRACE_ADDR_LEN + 16];
	struct report_group *g;

	if (f->ngroups == f->groups_cap) {
		size_t cap = f->groups_cap ? f->groups_cap * 2 : 16;

		g = realloc(f->groups, cap * sizeof(*g));
		if (!g)
			return NULL;
		f->groups = g;
		f->groups_cap = cap;
	}
	if (f->by == REPORT_BY_CLIENT && op->client >= 0)
		snprintf(name, sizeof(name), "%s",
			 f->trace.clients[op->client]);
	else if (f->by == REPORT_BY_FILE && op->has_fh)
		snprintf(name, sizeof(name), "fh_hash=0x%08x", op->fh_hash);
	else if (f->by == REPORT_BY_EXPORT && op->has_file)
		export_name(f, op, name, sizeof(name));
	else if (f->by == REPORT_BY_OWNER && op->has_uid)
		report_owner_name(op->uid, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "unknown");
	g = &f->groups[f->ngroups];
	memset(g, 0, sizeof(*g));
	g->name = strdup(name);
	if (!g->name)
		return NULL;
	f->ngroups++;
	return g;
}

static struct report_group *find_group(struct report_figures *f,
				       const struct nfswb_trace_op *op)
{
	uint64_t key;
	size_t j;

	if (f->by == REPORT_BY_NONE)
		return NULL;
	if (2 * (f->ngroups + 1) > f->index_cap && index_grow(f))
		return NULL;
	key = group_key(f, op);
	for (j = slot_of(key, f->index_cap); f->index[j].used;
	     j = (j + 1) & (f->index_cap - 1))
		if (f->index[j].key == key)
			return &f->groups[f->index[j].group];
	if (!new_group(f, op))
		return NULL;
	f->index[j] = (struct report_index_slot){ .used = true, .key = key,
						  .group = f->ngroups - 1 };
	return &f->groups[f->ngroups - 1];
}

static int add_latencies(struct report_figures *f,
			 const struct nfswb_trace_ops *ops, bool commit)
{
	for (size_t i = 0; i < ops->count; i++) {
		const struct nfswb_trace_op *op = &ops->v[i];
		struct report_group *g = find_group(f, op);

		if (nfswb_lat_add(commit ? &f->all.commit : &f->all.write,
				  op->us))
			return -ENOMEM;
		if (f->by != REPORT_BY_NONE && !g)
			return -ENOMEM;
		if (g && nfswb_lat_add(commit ? &g->commit : &g->write, op->us))
			return -ENOMEM;
	}
	return 0;
}

static void add_volume(struct report_group *g, const struct nfswb_trace_op *op)
{
	double start = op->ts - (double)op->us / 1e6;

	if (!g->write_ops || start < g->write_first)
		g->write_first = start;
	if (!g->write_ops || op->ts > g->write_last)
		g->write_last = op->ts;
	g->write_ops++;
	g->write_bytes += op->bytes;
}

static int compute(struct report_figures *f)
{
	const struct nfswb_trace_ops *commits, *writes;
	const struct nfswb_trace_ops *vol = &f->trace.nfsd_write;

	commits = nfswb_trace_commits(&f->trace, &f->commit_src);
	writes = nfswb_trace_writes(&f->trace, &f->write_rpc);
	if (add_latencies(f, commits, true) || add_latencies(f, writes, false))
		return -ENOMEM;
	for (size_t i = 0; i < vol->count; i++) {
		struct report_group *g = find_group(f, &vol->v[i]);

		if (f->by != REPORT_BY_NONE && !g)
			return -ENOMEM;
		add_volume(&f->all, &vol->v[i]);
		if (g)
			add_volume(g, &vol->v[i]);
	}
	nfswb_lat_summarize(&f->all.commit, &f->all.commit_s);
	nfswb_lat_summarize(&f->all.write, &f->all.write_s);
	for (size_t i = 0; i < f->ngroups; i++) {
		nfswb_lat_summarize(&f->groups[i].commit,
				    &f->groups[i].commit_s);
		nfswb_lat_summarize(&f->groups[i].write, &f->groups[i].write_s);
	}
	return 0;
}

int report_read_lines(const char *cmd, const char *path,
		      int (*line_fn)(void *ctx, const char *path,
				     unsigned int lineno, const char *line,
				     size_t len),
		      void *ctx)
{
	struct nfswb_lines l;
	const char *line;
	ssize_t n;
	int r;

	r = nfswb_lines_open(&l, path, NFSWB_LINES_MAX_DEFAULT);
	if (r) {
		report_err(cmd, "%s: %s", path, strerror(-r));
		return -1;
	}
	while ((n = nfswb_lines_next(&l, &line)) > 0) {
		r = line_fn(ctx, path, l.lineno < UINT32_MAX ?
			    (unsigned int)l.lineno : UINT32_MAX,
			    line, (size_t)n);
		if (r)
			break;
	}
	if (n == -EFBIG)
		report_err(cmd, "%s: line %llu is longer than %d bytes: not a "
			   "trace", path, (unsigned long long)l.lineno,
			   NFSWB_LINES_MAX_DEFAULT);
	else if (n < 0 || r)
		report_err(cmd, "%s: %s", path, strerror(n < 0 ? (int)-n : -r));
	nfswb_lines_close(&l);
	return n < 0 || r ? -1 : 0;
}

static int trace_line(void *ctx, const char *path, unsigned int lineno,
		      const char *line, size_t len)
{
	return nfswb_trace_feed(ctx, path, lineno, line, len);
}

int report_load(struct report_figures *f, const char *cmd, char **files,
		int nfiles, enum report_by by, const char *samples)
{
	memset(f, 0, sizeof(*f));
	nfswb_trace_init(&f->trace);
	f->by = by;
	for (int i = 0; i < nfiles; i++)
		if (report_read_lines(cmd, files[i], trace_line, &f->trace))
			return -1;
	if (samples) {
		if (samples_read_jsonl(&f->trace, samples, cmd))
			return -1;
	}
	nfswb_trace_finish(&f->trace);
	if (f->trace.nbad) {
		nfswb_trace_print_bad(&f->trace, stderr);
		report_err(cmd, "%llu malformed line(s) skipped",
			   (unsigned long long)f->trace.nbad);
	}
	if (f->trace.lost_events)
		report_err(cmd, "the trace lost %llu events (buffer overrun): "
			   "figures undercount",
			   (unsigned long long)f->trace.lost_events);
	if (compute(f)) {
		report_err(cmd, "%s", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

double report_write_rate(const struct report_group *g)
{
	double span = g->write_last - g->write_first;

	if (!g->write_ops || span <= 0)
		return -1.0;
	return (double)g->write_bytes / span;
}

void report_json_group(struct nfswb_json *j, const struct report_figures *f,
		       const struct report_group *g)
{
	double rate = report_write_rate(g);
	bool vol = f->trace.nfsd_write.count > 0;

	nfswb_lat_json(j, "commit_latency_us", &g->commit_s);
	nfswb_lat_json(j, "write_latency_us", &g->write_s);
	if (vol) {
		nfswb_json_u64(j, "write_ops", g->write_ops);
		nfswb_json_u64(j, "write_bytes", g->write_bytes);
	} else {
		nfswb_json_null(j, "write_ops");
		nfswb_json_null(j, "write_bytes");
	}
	if (rate >= 0)
		nfswb_json_fixed(j, "write_bytes_per_s", rate, 0);
	else
		nfswb_json_null(j, "write_bytes_per_s");
}

char *report_bytes(double bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (bytes >= 1024.0 && u < 4) {
		bytes /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
	return buf;
}
