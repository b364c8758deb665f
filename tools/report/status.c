// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status.c - samples beside a trace: the bdi's own counters from debugfs,
 * and nfswbd's status.json (per device, and per file owner once the daemon
 * reports owners in files mode), written as "# nfswb-sample" lines.
 *
 * status.json is read with a small reader that visits every object and
 * keeps its scalar members: a device is an object with "bdi", an owner
 * entry one with a numeric "owner" (a uid).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "report.h"
#include "status.h"

double sample_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sample_bdi(const char *bdi, FILE *out, double t)
{
	uint64_t dirty = 0, wb = 0, bw = 0;
	bool have_dirty = false;
	char path[128], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/bdi/%s/stats", bdi);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		/* Values are in kB; the bandwidth in kBps. */
		if (sscanf(line, "BdiReclaimable: %llu", &v) == 1) {
			dirty = (uint64_t)v * 1024;
			have_dirty = true;
		} else if (sscanf(line, "BdiWriteback: %llu", &v) == 1) {
			wb = (uint64_t)v * 1024;
		} else if (sscanf(line, "BdiWriteBandwidth: %llu", &v) == 1) {
			bw = (uint64_t)v * 1024;
		}
	}
	fclose(f);
	if (!have_dirty)
		return -1;
	fprintf(out, "# nfswb-sample t=%.6f bdi=%s dirty=%" PRIu64
		" writeback=%" PRIu64 " bandwidth=%" PRIu64 "\n", t, bdi, dirty,
		wb, bw);
	return 0;
}

/* ---- a small JSON reader: objects' scalar members ---- */

#define MEMBERS_MAX	32

struct member {
	char key[32];
	char str[64];
	bool is_num;
	double num;
};

struct reader {
	const char *p, *end;
	int depth;
	struct status_doc *doc;
};

static void skip_ws(struct reader *r)
{
	while (r->p < r->end && isspace((unsigned char)*r->p))
		r->p++;
}

/* A string into @out (truncated, escapes kept simple). */
static int read_string(struct reader *r, char *out, size_t len)
{
	size_t n = 0;

	if (r->p >= r->end || *r->p != '"')
		return -1;
	r->p++;
	while (r->p < r->end && *r->p != '"') {
		char c = *r->p++;

		if (c == '\\') {
			if (r->p >= r->end)
				return -1;
			c = *r->p++;
			if (c == 'u') {
				/* Non-ASCII is not expected here: keep '?'. */
				r->p += r->end - r->p >= 4 ? 4 : r->end - r->p;
				c = '?';
			}
		}
		if (n + 1 < len)
			out[n++] = c;
	}
	if (r->p >= r->end)
		return -1;
	r->p++;
	if (len)
		out[n] = '\0';
	return 0;
}

static int read_value(struct reader *r, struct member *m);

static void object_done(struct reader *r, const struct member *m, size_t n)
{
	const struct member *bdi = NULL, *owner = NULL, *dirty = NULL,
			    *bw = NULL;
	struct status_doc *d = r->doc;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(m[i].key, "bdi") && !m[i].is_num)
			bdi = &m[i];
		else if (!strcmp(m[i].key, "owner") && m[i].is_num)
			owner = &m[i];
		else if (!strcmp(m[i].key, "dirty_bytes") && m[i].is_num)
			dirty = &m[i];
		else if ((!strcmp(m[i].key, "bytes_per_s") ||
			  !strcmp(m[i].key, "bandwidth")) && m[i].is_num)
			bw = &m[i];
	}
	if (bdi && d->ndevices < STATUS_MAX) {
		struct status_device *dev = &d->devices[d->ndevices++];

		snprintf(dev->bdi, sizeof(dev->bdi), "%s", bdi->str);
		dev->has_dirty = dirty != NULL;
		dev->dirty = dirty ? (uint64_t)dirty->num : 0;
		/* "bandwidth": {"bytes_per_s": N} was lifted to N. */
		dev->has_bandwidth = bw != NULL;
		dev->bandwidth = bw ? (uint64_t)bw->num : 0;
	} else if (owner && dirty && owner->num >= 0 &&
		   owner->num <= UINT32_MAX) {
		uint32_t uid = (uint32_t)owner->num;
		size_t i;

		for (i = 0; i < d->nowners; i++)
			if (d->owners[i].uid == uid)
				break;
		if (i == d->nowners) {
			if (d->nowners == STATUS_MAX)
				return;
			d->owners[d->nowners++] =
				(struct status_owner){ .uid = uid };
		}
		d->owners[i].dirty += (uint64_t)dirty->num;
		d->owners[i].files++;
	}
}

static int read_object(struct reader *r, struct member *parent)
{
	struct member m[MEMBERS_MAX];
	size_t n = 0;

	if (++r->depth > 32)
		return -1;
	r->p++;		/* '{' */
	skip_ws(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
		r->depth--;
		return 0;
	}
	for (;;) {
		struct member cur = { 0 };

		skip_ws(r);
		if (read_string(r, cur.key, sizeof(cur.key)))
			return -1;
		skip_ws(r);
		if (r->p >= r->end || *r->p++ != ':')
			return -1;
		skip_ws(r);
		if (read_value(r, &cur))
			return -1;
		if (n < MEMBERS_MAX)
			m[n++] = cur;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == '}') {
			r->p++;
			break;
		}
		return -1;
	}
	/* Lift a nested "bytes_per_s" ("bandwidth": {...}) to the parent. */
	for (size_t i = 0; parent && i < n; i++)
		if (!strcmp(m[i].key, "bytes_per_s") && m[i].is_num) {
			parent->is_num = true;
			parent->num = m[i].num;
		}
	object_done(r, m, n);
	r->depth--;
	return 0;
}

static int read_array(struct reader *r)
{
	if (++r->depth > 32)
		return -1;
	r->p++;		/* '[' */
	skip_ws(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		r->depth--;
		return 0;
	}
	for (;;) {
		struct member ignored = { 0 };

		skip_ws(r);
		if (read_value(r, &ignored))
			return -1;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			break;
		}
		return -1;
	}
	r->depth--;
	return 0;
}

static int read_value(struct reader *r, struct member *m)
{
	char *end;

	if (r->p >= r->end)
		return -1;
	switch (*r->p) {
	case '{':
		return read_object(r, m);
	case '[':
		return read_array(r);
	case '"':
		return read_string(r, m->str, sizeof(m->str));
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "true", "false", "null" };

		for (size_t i = 0; i < 3; i++) {
			size_t l = strlen(words[i]);

			if ((size_t)(r->end - r->p) >= l &&
			    !strncmp(r->p, words[i], l)) {
				r->p += l;
				return 0;
			}
		}
		return -1;
	}
	default: {
		char num[64];
		size_t l = 0;

		while (r->p + l < r->end && l < sizeof(num) - 1 &&
		       strchr("-+.eE0123456789", r->p[l]))
			l++;
		if (!l)
			return -1;
		memcpy(num, r->p, l);
		num[l] = '\0';
		m->num = strtod(num, &end);
		/* nfswbd writes counts and rates: -1e999 is no byte count. */
		if (*end || !isfinite(m->num) || m->num < 0 ||
		    m->num >= 18446744073709551616.0)
			return -1;
		m->is_num = true;
		r->p += l;
		return 0;
	}
	}
}

int status_read(const char *path, struct status_doc *doc)
{
	struct reader r = { 0 };
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct member top = { 0 };
	FILE *f = fopen(path, "r");
	int ret;

	memset(doc, 0, sizeof(*doc));
	if (!f)
		return -errno;
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (!nb || cap > (64u << 20)) {
				free(nb ? nb : buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	r.p = buf;
	r.end = buf + len;
	r.doc = doc;
	skip_ws(&r);
	ret = read_value(&r, &top) ? -EINVAL : 0;
	free(buf);
	return ret;
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

int samples_read_jsonl(struct nfswb_trace *t, const char *path,
		       const char *cmd)
{
	unsigned int lineno = 0, bad = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) >= 0) {
		int r;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		r = jsonl_line(t, line);
		if (r == -2) {
			ret = -ENOMEM;
			break;
		}
		if (r < 0 && bad++ < NFSWB_TRACE_KEEP_BAD)
			fprintf(stderr, "%s:%u: not a sample line "
				"({\"t\": SECONDS, ...})\n", path, lineno);
	}
	if (bad)
		report_err(cmd, "%u malformed sample line(s) skipped", bad);
	free(line);
	fclose(f);
	return ret;
}
