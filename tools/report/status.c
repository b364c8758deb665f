// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status.c - samples beside a trace: the bdi's own counters from debugfs,
 * and nfswbd's status.json (per device, and per file owner once the daemon
 * reports owners in files mode), written as "# nfswb-sample" lines.
 *
 * status.json is read through lib's one parser (statusfile.h): devices
 * from "devices", owner entries ({"owner": UID, "dirty_bytes": N, and
 * optionally "kicked_bytes" and "files"}) from anywhere in the document.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "procfs.h"
#include "sample.h"
#include "report.h"
#include "status.h"
#include "statusfile.h"

int sample_bdi(const char *bdi, FILE *out, double t)
{
	struct nfswb_bdi_stats st;

	if (nfswb_bdi_stats_read("", bdi, &st))
		return -1;
	fprintf(out, "# nfswb-sample t=%.6f bdi=%s dirty=%" PRIu64
		" writeback=%" PRIu64 " bandwidth=%" PRIu64 "\n", t, bdi,
		st.reclaimable, st.writeback, st.write_bandwidth);
	return 0;
}

/*
 * Owner entries anywhere in the document: {"owner": UID, "dirty_bytes": N}
 * for one file, or with "files" (nfswbd's per-device owners) for several.
 */
static void find_owners(const struct nfswb_jval *v, struct status_doc *d)
{
	uint64_t uid, dirty, kicked = 0, files = 1;

	if (v->type == NFSWB_J_OBJ && nfswb_jget_u64(v, "owner", &uid) &&
	    nfswb_jget_u64(v, "dirty_bytes", &dirty) && uid <= UINT32_MAX) {
		size_t i;

		for (i = 0; i < d->nowners; i++)
			if (d->owners[i].uid == uid)
				break;
		if (i == d->nowners) {
			if (d->nowners == STATUS_MAX)
				return;
			d->owners[d->nowners++] =
				(struct status_owner){ .uid = (uint32_t)uid };
		}
		nfswb_jget_u64(v, "kicked_bytes", &kicked);
		nfswb_jget_u64(v, "files", &files);
		d->owners[i].dirty += dirty;
		d->owners[i].kicked += kicked;
		d->owners[i].files += (unsigned int)files;
	}
	for (size_t i = 0; i < v->nkids; i++)
		find_owners(&v->kids[i], d);
}

int status_read(const char *path, struct status_doc *doc)
{
	const struct nfswb_jval *devs;
	struct nfswb_jval root;
	char why[512];
	int r;

	memset(doc, 0, sizeof(*doc));
	r = nfswb_status_load(path, &root, why, sizeof(why));
	if (r)
		return r;
	devs = nfswb_jget(&root, "devices");
	for (size_t i = 0; devs && devs->type == NFSWB_J_ARR &&
			   i < devs->nkids && doc->ndevices < STATUS_MAX; i++) {
		const struct nfswb_jval *d = &devs->kids[i];
		struct status_device *dev = &doc->devices[doc->ndevices];
		const char *bdi = nfswb_jget_str(d, "bdi", NULL);
		int dirty, bw;

		if (!bdi)
			continue;
		snprintf(dev->bdi, sizeof(dev->bdi), "%s", bdi);
		dirty = nfswb_jget_count(d, "dirty_bytes", &dev->dirty);
		bw = nfswb_jget_count(d, "bandwidth.bytes_per_s",
				      &dev->bandwidth);
		if (bw == 0 && nfswb_jget(d, "bandwidth") &&
		    nfswb_jget(d, "bandwidth")->type == NFSWB_J_NUM)
			bw = nfswb_jget_count(d, "bandwidth", &dev->bandwidth);
		/* A number no count can have: not nfswbd's file. */
		if (dirty < 0 || bw < 0) {
			r = -EINVAL;
			break;
		}
		dev->has_dirty = dirty > 0;
		dev->has_bandwidth = bw > 0;
		doc->ndevices++;
	}
	if (!r)
		find_owners(&root, doc);
	nfswb_jval_free(&root);
	return r;
}

int sample_status(const char *path, FILE *out, double t)
{
	struct status_doc doc;

	if (status_read(path, &doc))
		return -1;
	for (size_t i = 0; i < doc.ndevices; i++) {
		const struct status_device *d = &doc.devices[i];

		fprintf(out, "# nfswb-sample t=%.6f bdi=%s", t, d->bdi);
		if (d->has_dirty)
			fprintf(out, " dirty=%" PRIu64, d->dirty);
		if (d->has_bandwidth)
			fprintf(out, " bandwidth=%" PRIu64, d->bandwidth);
		fputc('\n', out);
	}
	return (int)doc.ndevices;
}

/*
 * The lab's sampler writes flat JSON lines, {"t": SECONDS, "LABEL.Key": N},
 * where LABEL=/sys/kernel/debug/bdi/MAJ:MIN/stats gives BdiReclaimable,
 * BdiWriteback (kB) and BdiWriteBandwidth (kBps).
 */
static int jsonl_line(struct nfswb_trace *t, const char *line)
{
	struct nfswb_trace_sample s[4];
	const char *p = line;
	size_t n = 0;
	double when = -1;

	memset(s, 0, sizeof(s));
	while ((p = strchr(p, '"'))) {
		const char *key = p + 1, *kend = strchr(key, '"'), *dot;
		char *vend;
		double v;
		size_t i;

		if (!kend)
			return -1;
		p = kend + 1;
		while (*p == ' ' || *p == ':')
			p++;
		v = strtod(p, &vend);
		if (vend == p)
			continue;	/* not a number: a string value */
		p = vend;
		if (kend - key == 1 && key[0] == 't') {
			when = v;
			continue;
		}
		dot = memchr(key, '.', (size_t)(kend - key));
		if (!dot || dot == key || v < 0 ||
		    (size_t)(dot - key) >= sizeof(s[0].bdi))
			continue;
		for (i = 0; i < n; i++)
			if (!strncmp(s[i].bdi, key, (size_t)(dot - key)) &&
			    !s[i].bdi[dot - key])
				break;
		if (i == n) {
			if (n == 4)
				continue;
			memcpy(s[n].bdi, key, (size_t)(dot - key));
			n++;
		}
#define KEY(name) ((size_t)(kend - dot - 1) == strlen(name) && \
		   !strncmp(dot + 1, name, strlen(name)))
		if (KEY("BdiReclaimable")) {
			s[i].dirty = (uint64_t)v * 1024;
			s[i].has_dirty = true;
		} else if (KEY("BdiWriteback")) {
			s[i].writeback = (uint64_t)v * 1024;
			s[i].has_writeback = true;
		} else if (KEY("BdiWriteBandwidth")) {
			s[i].bandwidth = (uint64_t)v * 1024;
			s[i].has_bandwidth = true;
		}
#undef KEY
	}
	if (when < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!s[i].has_dirty && !s[i].has_bandwidth &&
		    !s[i].has_writeback)
			continue;
		s[i].t = when;
		if (nfswb_trace_add_sample(t, &s[i]))
			return -2;
	}
	return 0;
}

struct jsonl_ctx {
	struct nfswb_trace *t;
	unsigned int bad;
};

static int jsonl_feed(void *ctx, const char *path, unsigned int lineno,
		      const char *line, size_t len)
{
	struct jsonl_ctx *c = ctx;
	int r;

	(void)len;
	if (line[strspn(line, " \t\r\n")] == '\0')
		return 0;
	r = jsonl_line(c->t, line);
	if (r == -2)
		return -ENOMEM;
	if (r < 0 && c->bad++ < NFSWB_TRACE_KEEP_BAD)
		fprintf(stderr, "%s:%u: not a sample line "
			"({\"t\": SECONDS, ...})\n", path, lineno);
	return 0;
}

int samples_read_jsonl(struct nfswb_trace *t, const char *path,
		       const char *cmd)
{
	struct jsonl_ctx c = { .t = t };
	int ret = report_read_lines(cmd, path, jsonl_feed, &c);

	if (c.bad)
		report_err(cmd, "%u malformed sample line(s) skipped", c.bad);
	return ret;
}
