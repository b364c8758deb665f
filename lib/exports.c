// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * exports.c - the nfswb.exports(5) parser, in the manner of exports(5).
 *
 * A file is read into memory and cut into logical lines ('\' before a
 * newline joins the next physical line).  Each logical line is a comment,
 * a "-opts" default line, or "PATH [(opts)]".  Every problem is recorded
 * with the line where its entry starts; parsing goes on so that one run
 * shows them all, and the caller applies nothing unless there were none.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exports.h"
#include "readfile.h"
#include "units.h"

#define MAX_FILE_SIZE	(16u << 20)	/* an exports file, not a database */

static const char *const mode_names[] = {
	[NFSWB_MODE_AUTO] = "auto",
#define NFSWB_MECH(name, NAME) [NFSWB_MODE_##NAME] = #name,
#include "mech_list.h"
#undef NFSWB_MECH
	[NFSWB_MODE_OFF] = "off",
};

#define NMODES	(sizeof(mode_names) / sizeof(mode_names[0]))

const char *nfswb_mode_name(enum nfswb_mode m)
{
	if ((unsigned int)m < NMODES)
		return mode_names[m];
	return "?";
}

/* "unknown mode (use auto, kernel, files, limit or off)" */
static void mode_choices(char *why, size_t len)
{
	size_t pos = (size_t)snprintf(why, len, "unknown mode (use");

	for (unsigned int i = 0; i < NMODES && pos < len; i++)
		pos += (size_t)snprintf(why + pos, len - pos, "%s %s%s",
					i == 0 ? "" : i + 1 == NMODES ? " or" : ",",
					mode_names[i], i + 1 == NMODES ? ")" : "");
}

/* The reverse of nfswb_mode_name(); 0, or -EINVAL for an unknown name. */
static int mode_parse(const char *s, enum nfswb_mode *m)
{
	unsigned int i;

	for (i = 0; i < NMODES; i++) {
		if (!strcmp(s, mode_names[i])) {
			*m = (enum nfswb_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

static void writers_default(struct nfswb_export_opts *o)
{
	o->nwriters = 2;
	snprintf(o->writers[0], NFSWB_WRITER_LEN, "nfsd");
	snprintf(o->writers[1], NFSWB_WRITER_LEN, "ganesha.nfsd");
}

void nfswb_export_opts_default(struct nfswb_export_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = NFSWB_MODE_AUTO;
	o->background_time_ms = 1000;
	o->background_min = NFSWB_DEFAULT_BACKGROUND_MIN;
	writers_default(o);
}

/* Option names, in the order nfswb_export_opts_format() prints them. */
static const struct {
	const char *name;
	unsigned int bit;
} opt_names[] = {
	{ "mode", NFSWB_OPT_MODE },
	{ "background_time", NFSWB_OPT_BG_TIME },
	{ "background_min", NFSWB_OPT_BG_MIN },
	{ "commit_target", NFSWB_OPT_COMMIT_TARGET },
	{ "bandwidth", NFSWB_OPT_BANDWIDTH },
	{ "min_bandwidth", NFSWB_OPT_MIN_BW },
	{ "max_bandwidth", NFSWB_OPT_MAX_BW },
	{ "writers", NFSWB_OPT_WRITERS },
};

#define NOPTS	(sizeof(opt_names) / sizeof(opt_names[0]))

static unsigned int opt_bit(const char *name)
{
	unsigned int i;

	for (i = 0; i < NOPTS; i++)
		if (!strcmp(name, opt_names[i].name))
			return opt_names[i].bit;
	return 0;
}

static bool writer_listed(const struct nfswb_export_opts *o, const char *name)
{
	unsigned int i;

	for (i = 0; i < o->nwriters; i++)
		if (!strcmp(o->writers[i], name))
			return true;
	return false;
}

/* "nfsd:ganesha.nfsd": names as the kernel's comm (at most 15 bytes). */
static int parse_writers(struct nfswb_export_opts *o, const char *value,
			 char *why, size_t len)
{
	struct nfswb_export_opts tmp = *o;
	const char *p = value;

	tmp.nwriters = 0;
	for (;;) {
		size_t n = strcspn(p, ":");
		char name[NFSWB_WRITER_LEN];
		size_t i;

		if (n == 0) {
			snprintf(why, len, "empty process name");
			return -EINVAL;
		}
		if (n >= NFSWB_WRITER_LEN) {
			snprintf(why, len,
				 "process name '%.*s' is longer than %d characters (the kernel's comm)",
				 (int)n, p, NFSWB_WRITER_LEN - 1);
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			/* Printable, and nothing the option syntax uses. */
			if (!isgraph((unsigned char)p[i]) ||
			    strchr("(),=#\"\\", p[i])) {
				snprintf(why, len,
					 "process name '%.*s' may not hold blanks, control characters or any of ( ) , = # \" \\",
					 (int)n, p);
				return -EINVAL;
			}
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!writer_listed(&tmp, name)) {
			if (tmp.nwriters == NFSWB_MAX_WRITERS) {
				snprintf(why, len,
					 "more than %d process names",
					 NFSWB_MAX_WRITERS);
				return -EINVAL;
			}
			memcpy(tmp.writers[tmp.nwriters++], name, n + 1);
		}
		p += n;
		if (!*p)
			break;
		p++;
	}
	*o = tmp;
	return 0;
}

static int parse_positive_duration(const char *value, const char *zero_hint,
				   uint64_t *ms, char *why, size_t len)
{
	const char *reason;
	uint64_t v;

	if (nfswb_parse_duration_ms(value, &v, &reason)) {
		snprintf(why, len, "%s", reason);
		return -EINVAL;
	}
	if (v == 0) {
		snprintf(why, len, "must be above 0 (%s)", zero_hint);
		return -EINVAL;
	}
	if (v > NFSWB_MAX_DURATION_MS) {
		snprintf(why, len, "longer than the limit of 60m");
		return -EINVAL;
	}
	*ms = v;
	return 0;
}

static int parse_positive_rate(const char *value, const char *zero_hint,
			       uint64_t *rate, char *why, size_t len)
{
	const char *reason;
	uint64_t v;

	if (nfswb_parse_rate(value, &v, &reason)) {
		snprintf(why, len, "%s", reason);
		return -EINVAL;
	}
	if (v == 0) {
		snprintf(why, len, "must be above 0 (%s)", zero_hint);
		return -EINVAL;
	}
	if (v > NFSWB_MAX_RATE) {
		snprintf(why, len, "above the limit of 1TiB/s");
		return -EINVAL;
	}
	*rate = v;
	return 0;
}

/* Exact, so that it parses back: the largest binary unit that divides. */
static void format_size_exact(uint64_t v, const char *per, char *buf,
			      size_t len)
{
	static const char units[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t m = UINT64_C(1) << (10 * (i + 1));

		if (v >= m && v % m == 0) {
			snprintf(buf, len, "%" PRIu64 "%ciB%s", v / m,
				 units[i], per);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64 "B%s", v, per);
}

static void format_rate_exact(uint64_t v, char *buf, size_t len)
{
	format_size_exact(v, "/s", buf, len);
}

static int parse_background_min(const char *value, uint64_t *bytes,
				char *why, size_t len)
{
	char lo[32], hi[32];
	const char *reason;
	uint64_t v;

	if (nfswb_parse_size(value, &v, &reason)) {
		snprintf(why, len, "%s", reason);
		return -EINVAL;
	}
	if (v < NFSWB_MIN_BACKGROUND_MIN || v > NFSWB_MAX_BACKGROUND_MIN) {
		format_size_exact(NFSWB_MIN_BACKGROUND_MIN, "", lo, sizeof(lo));
		format_size_exact(NFSWB_MAX_BACKGROUND_MIN, "", hi, sizeof(hi));
		snprintf(why, len, "outside %s..%s", lo, hi);
		return -EINVAL;
	}
	*bytes = v;
	return 0;
}

/* opt_apply - nfswb_export_opt_set() with the bare reason in @why. */
static int opt_apply(struct nfswb_export_opts *o, unsigned int bit,
		     const char *value, char *why, size_t len)
{
	int ret = -EINVAL;

	switch (bit) {
	case NFSWB_OPT_MODE:
		ret = mode_parse(value, &o->mode);
		if (ret)
			mode_choices(why, len);
		break;
	case NFSWB_OPT_BG_TIME:
		ret = parse_positive_duration(value,
					      "to leave an export alone, use mode=off",
					      &o->background_time_ms, why, len);
		break;
	case NFSWB_OPT_BG_MIN:
		ret = parse_background_min(value, &o->background_min, why, len);
		break;
	case NFSWB_OPT_COMMIT_TARGET:
		ret = parse_positive_duration(value,
					      "leave it out for no cap",
					      &o->commit_target_ms, why, len);
		break;
	case NFSWB_OPT_BANDWIDTH:
		ret = parse_positive_rate(value,
					  "leave it out to estimate the rate",
					  &o->bandwidth, why, len);
		break;
	case NFSWB_OPT_MIN_BW:
		ret = parse_positive_rate(value,
					  "leave it out for the built-in floor",
					  &o->min_bandwidth, why, len);
		break;
	case NFSWB_OPT_MAX_BW:
		ret = parse_positive_rate(value,
					  "leave it out for no ceiling",
					  &o->max_bandwidth, why, len);
		break;
	case NFSWB_OPT_WRITERS:
		ret = parse_writers(o, value, why, len);
		break;
	default:
		snprintf(why, len, "unknown option");
		return -EINVAL;
	}
	if (!ret)
		o->set |= bit;
	return ret;
}

int nfswb_export_opt_set(struct nfswb_export_opts *o, const char *name,
			 const char *value, char *why, size_t len)
{
	unsigned int bit = opt_bit(name);
	char reason[192];

	if (!bit) {
		snprintf(why, len, "unknown option '%s'%s", name,
			 strchr(name, '-') ? " (option names use '_')" : "");
		return -EINVAL;
	}
	if (opt_apply(o, bit, value, reason, sizeof(reason))) {
		snprintf(why, len, "%s=%s: %s", name, value, reason);
		return -EINVAL;
	}
	return 0;
}

int nfswb_export_opt_set_reason(struct nfswb_export_opts *o,
				const char *name, const char *value,
				char *why, size_t len)
{
	unsigned int bit = opt_bit(name);

	if (!bit) {
		snprintf(why, len, "unknown option");
		return -EINVAL;
	}
	return opt_apply(o, bit, value, why, len);
}

int nfswb_export_opts_check(const struct nfswb_export_opts *o, char *why,
			    size_t len)
{
	char a[32], b[32];

	if (o->min_bandwidth && o->max_bandwidth &&
	    o->min_bandwidth > o->max_bandwidth) {
		snprintf(why, len,
			 "min_bandwidth (%s) is above max_bandwidth (%s)",
			 nfswb_format_rate(o->min_bandwidth, a, sizeof(a)),
			 nfswb_format_rate(o->max_bandwidth, b, sizeof(b)));
		return -EINVAL;
	}
	if (o->commit_target_ms &&
	    o->commit_target_ms < o->background_time_ms) {
		snprintf(why, len,
			 "commit_target (%s) is shorter than background_time (%s)",
			 nfswb_format_duration_ms(o->commit_target_ms, a,
						  sizeof(a)),
			 nfswb_format_duration_ms(o->background_time_ms, b,
						  sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

/* The smaller of two values where 0 means "not set". */
static uint64_t min_set(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

int nfswb_export_opts_merge(struct nfswb_export_opts *into,
			    const struct nfswb_export_opts *from, char *why,
			    size_t len)
{
	struct nfswb_export_opts m = *into;
	unsigned int i;

	if (m.mode == NFSWB_MODE_AUTO) {
		m.mode = from->mode;
	} else if (from->mode != NFSWB_MODE_AUTO && from->mode != m.mode) {
		snprintf(why, len, "mode=%s and mode=%s on one device",
			 nfswb_mode_name(m.mode), nfswb_mode_name(from->mode));
		return -EINVAL;
	}
	if (from->background_time_ms < m.background_time_ms)
		m.background_time_ms = from->background_time_ms;
	if (from->background_min < m.background_min)
		m.background_min = from->background_min;
	m.commit_target_ms = min_set(m.commit_target_ms,
				     from->commit_target_ms);
	m.bandwidth = min_set(m.bandwidth, from->bandwidth);
	if (from->min_bandwidth > m.min_bandwidth)
		m.min_bandwidth = from->min_bandwidth;
	m.max_bandwidth = min_set(m.max_bandwidth, from->max_bandwidth);
	for (i = 0; i < from->nwriters; i++) {
		if (writer_listed(&m, from->writers[i]))
			continue;
		if (m.nwriters == NFSWB_MAX_WRITERS) {
			snprintf(why, len,
				 "more than %d writers on one device",
				 NFSWB_MAX_WRITERS);
			return -EINVAL;
		}
		memcpy(m.writers[m.nwriters++], from->writers[i],
		       NFSWB_WRITER_LEN);
	}
	m.set |= from->set;
	if (nfswb_export_opts_check(&m, why, len))
		return -EINVAL;
	*into = m;
	return 0;
}

bool nfswb_export_opts_equal(const struct nfswb_export_opts *a,
			     const struct nfswb_export_opts *b)
{
	unsigned int i;

	if (a->mode != b->mode ||
	    a->background_time_ms != b->background_time_ms ||
	    a->background_min != b->background_min ||
	    a->commit_target_ms != b->commit_target_ms ||
	    a->bandwidth != b->bandwidth ||
	    a->min_bandwidth != b->min_bandwidth ||
	    a->max_bandwidth != b->max_bandwidth ||
	    a->nwriters != b->nwriters)
		return false;
	for (i = 0; i < a->nwriters; i++)
		if (strcmp(a->writers[i], b->writers[i]))
			return false;
	return true;
}

/* One option's value as the file would write it, for merge notes. */
static void opt_value(const struct nfswb_export_opts *o, unsigned int bit,
		      char *buf, size_t len)
{
	switch (bit) {
	case NFSWB_OPT_MODE:
		snprintf(buf, len, "%s", nfswb_mode_name(o->mode));
		break;
	case NFSWB_OPT_BG_TIME:
		nfswb_format_duration_ms(o->background_time_ms, buf, len);
		break;
	case NFSWB_OPT_BG_MIN:
		format_size_exact(o->background_min, "", buf, len);
		break;
	case NFSWB_OPT_COMMIT_TARGET:
		nfswb_format_duration_ms(o->commit_target_ms, buf, len);
		break;
	case NFSWB_OPT_BANDWIDTH:
		format_rate_exact(o->bandwidth, buf, len);
		break;
	case NFSWB_OPT_MIN_BW:
		format_rate_exact(o->min_bandwidth, buf, len);
		break;
	case NFSWB_OPT_MAX_BW:
		format_rate_exact(o->max_bandwidth, buf, len);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

void nfswb_export_merge_notes(const struct nfswb_export *const *ex, size_t n,
			      const struct nfswb_export_opts *merged,
			      void (*note)(const struct nfswb_export *e,
					   const char *msg, void *arg),
			      void *arg)
{
	char mine[64], won[64], msg[PATH_MAX + 256];
	size_t i, k, b;

	for (b = 0; b < NOPTS; b++) {
		unsigned int bit = opt_names[b].bit;

		if (bit == NFSWB_OPT_WRITERS)
			continue;
		opt_value(merged, bit, won, sizeof(won));
		for (i = 0; i < n; i++) {
			const struct nfswb_export *w = NULL;

			if (!(ex[i]->opts.set & bit))
				continue;
			opt_value(&ex[i]->opts, bit, mine, sizeof(mine));
			if (!strcmp(mine, won))
				continue;
			/* Name the export the merged value came from. */
			for (k = 0; k < n && !w; k++) {
				opt_value(&ex[k]->opts, bit, msg, sizeof(msg));
				if (k != i && !strcmp(msg, won))
					w = ex[k];
			}
			if (w)
				snprintf(msg, sizeof(msg),
					 "%s=%s overridden by %s=%s of %s (%s:%u): exports on one device share one setting",
					 opt_names[b].name, mine,
					 opt_names[b].name, won, w->path,
					 w->file, w->line);
			else
				snprintf(msg, sizeof(msg),
					 "%s=%s overridden by %s=%s: exports on one device share one setting",
					 opt_names[b].name, mine,
					 opt_names[b].name, won);
			note(ex[i], msg, arg);
		}
	}
}

static void append(char *buf, size_t len, size_t *pos, const char *name,
		   const char *value)
{
	int n;

	if (*pos >= len)
		return;
	n = snprintf(buf + *pos, len - *pos, "%s%s=%s", *pos ? "," : "", name,
		     value);
	if (n > 0)
		*pos += (size_t)n;
}

void nfswb_export_opts_format(const struct nfswb_export_opts *o, char *buf,
			      size_t len)
{
	char v[NFSWB_MAX_WRITERS * NFSWB_WRITER_LEN + 8];
	size_t pos = 0;
	unsigned int i;

	if (!len)
		return;
	buf[0] = '\0';
	append(buf, len, &pos, "mode", nfswb_mode_name(o->mode));
	nfswb_format_duration_ms(o->background_time_ms, v, sizeof(v));
	append(buf, len, &pos, "background_time", v);
	if (o->background_min != NFSWB_DEFAULT_BACKGROUND_MIN) {
		format_size_exact(o->background_min, "", v, sizeof(v));
		append(buf, len, &pos, "background_min", v);
	}
	if (o->commit_target_ms) {
		nfswb_format_duration_ms(o->commit_target_ms, v, sizeof(v));
		append(buf, len, &pos, "commit_target", v);
	}
	if (o->bandwidth) {
		format_rate_exact(o->bandwidth, v, sizeof(v));
		append(buf, len, &pos, "bandwidth", v);
	}
	if (o->min_bandwidth) {
		format_rate_exact(o->min_bandwidth, v, sizeof(v));
		append(buf, len, &pos, "min_bandwidth", v);
	}
	if (o->max_bandwidth) {
		format_rate_exact(o->max_bandwidth, v, sizeof(v));
		append(buf, len, &pos, "max_bandwidth", v);
	}
	if (o->nwriters) {
		size_t w = 0;

		for (i = 0; i < o->nwriters && i < NFSWB_MAX_WRITERS; i++)
			w += (size_t)snprintf(v + w, sizeof(v) - w, "%s%.*s",
					      i ? ":" : "",
					      NFSWB_WRITER_LEN - 1,
					      o->writers[i]);
		append(buf, len, &pos, "writers", v);
	}
}

/* ---- the parser ---- */

struct parser {
	const char *name;		/* file name for messages */
	unsigned int line;		/* where the current entry starts */
	struct nfswb_export_opts defaults;	/* after "-opts" lines */
	struct nfswb_config *cfg;
	struct nfswb_diag *diag;
	int errors;
};

static void perr(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void perr(struct parser *ps, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nfswb_diag_add(ps->diag, ps->name, ps->line, "%s", msg);
	ps->errors++;
}

static char *skip_blank(char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' ||
	       *p == '\v')
		p++;
	return p;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static void trim(char **s)
{
	char *p = skip_blank(*s);
	size_t n = strlen(p);

	while (n && is_blank(p[n - 1]))
		p[--n] = '\0';
	*s = p;
}

/*
 * parse_options - "name=value,name=value" (the text between the
 * parentheses, NUL-terminated, modified in place) applied onto @o.
 * Returns the number of errors reported.
 */
static int parse_options(struct parser *ps, char *text,
			 struct nfswb_export_opts *o)
{
	unsigned int seen = 0;
	int errors = ps->errors;
	char *p = text, *opt;

	trim(&p);
	if (!*p)
		return 0;
	for (;;) {
		char *comma = strchr(p, ',');
		char *name, *value, *eq;
		char why[256];
		unsigned int bit;

		if (comma)
			*comma = '\0';
		opt = p;
		trim(&opt);
		eq = strchr(opt, '=');
		name = opt;
		if (eq) {
			*eq = '\0';
			value = eq + 1;
			trim(&name);
			trim(&value);
		} else {
			value = NULL;
		}
		bit = opt_bit(name);
		if (!*name) {
			perr(ps, eq ? "option without a name" :
				      "empty option in the list");
		} else if (!bit) {
			perr(ps, "unknown option '%s'%s", name,
			     strchr(name, '-') ? " (option names use '_')" : "");
		} else if (!value || !*value) {
			perr(ps, "option '%s' needs a value", name);
		} else if (seen & bit) {
			perr(ps, "option '%s' given twice", name);
		} else {
			seen |= bit;
			if (nfswb_export_opt_set(o, name, value, why,
						 sizeof(why)))
				perr(ps, "%s", why);
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return ps->errors - errors;
}

/*
 * parse_path - read a path at *pp into @out (PATH_MAX), leaving *pp after
 * it.  As exportfs(8) reads one: double quotes may enclose any part of it
 * ("/srv/my dir" and /srv/"my dir" are the same) and \ooo escapes are
 * decoded inside and outside them; unlike exportfs, any other backslash
 * is an error rather than kept.
 */
static int parse_path(struct parser *ps, char **pp, char *out)
{
	bool quoted = false;
	size_t n = 0;
	char *p = *pp;

	for (;; p++) {
		char c = *p;

		if (!c) {
			if (quoted) {
				perr(ps, "unterminated quote in path");
				return -EINVAL;
			}
			break;
		}
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (is_blank(c) || c == '('))
			break;
		if (c == '\\') {
			unsigned int v;

			if (p[1] < '0' || p[1] > '3' || p[2] < '0' ||
			    p[2] > '7' || p[3] < '0' || p[3] > '7') {
				perr(ps,
				     "bad escape '\\%.3s' in path (use three octal digits, e.g. \\040 for a space)",
				     p + 1);
				return -EINVAL;
			}
			v = (unsigned int)((p[1] - '0') * 64 + (p[2] - '0') * 8 +
					   (p[3] - '0'));
			if (v == 0) {
				perr(ps, "escape '\\000' (NUL) in path");
				return -EINVAL;
			}
			c = (char)v;
			p += 3;
		}
		if (n + 1 >= PATH_MAX) {
			perr(ps, "path longer than %d bytes", PATH_MAX - 1);
			return -EINVAL;
		}
		out[n++] = c;
	}
	out[n] = '\0';
	*pp = p;
	if (!n) {
		perr(ps, "empty path");
		return -EINVAL;
	}
	if (out[0] != '/') {
		perr(ps, "relative path '%s' (exported paths are absolute)",
		     out);
		return -EINVAL;
	}
	return 0;
}

/* "/srv//nfs/" and "/srv/nfs" are one export: collapse '/' runs. */
static void normalize_path(char *path)
{
	char *r = path, *w = path;

	while (*r) {
		*w++ = *r;
		if (*r == '/')
			while (r[1] == '/')
				r++;
		r++;
	}
	*w = '\0';
	if (w - path > 1 && w[-1] == '/')
		w[-1] = '\0';
}

/*
 * Duplicate paths: an open-addressing hash of export indexes, kept at
 * most half full, so that n exports cost O(n) and not n^2/2 compares
 * (100,000 exports took minutes).
 */
static uint64_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static size_t *index_slot(struct nfswb_config *cfg, const char *path)
{
	size_t mask = cfg->nslots - 1;
	size_t i = (size_t)path_hash(path) & mask;

	for (;; i = (i + 1) & mask) {
		size_t *slot = &cfg->slots[i];

		if (!*slot)
			return slot;
		cfg->path_compares++;
		if (!strcmp(cfg->exports[*slot - 1].path, path))
			return slot;
	}
}

/* Room for one more entry in the hash; -ENOMEM when out of memory. */
static int index_grow(struct nfswb_config *cfg)
{
	size_t *old = cfg->slots, n, i;

	if (cfg->nslots && (cfg->count + 1) * 2 <= cfg->nslots)
		return 0;
	n = cfg->nslots ? cfg->nslots * 2 : 64;
	while ((cfg->count + 1) * 2 > n)
		n *= 2;
	cfg->slots = calloc(n, sizeof(*cfg->slots));
	if (!cfg->slots) {
		cfg->slots = old;
		return -ENOMEM;
	}
	cfg->nslots = n;
	/* Every entry, not only those of old: a caller may have filled cfg. */
	for (i = 0; i < cfg->count; i++)
		*index_slot(cfg, cfg->exports[i].path) = i + 1;
	free(old);
	return 0;
}

static const struct nfswb_export *find_export(struct nfswb_config *cfg,
					      const char *path)
{
	size_t *slot;

	if (!cfg->nslots)
		return NULL;
	slot = index_slot(cfg, path);
	return *slot ? &cfg->exports[*slot - 1] : NULL;
}

static int add_export(struct parser *ps, const char *path,
		      const struct nfswb_export_opts *o)
{
	struct nfswb_config *cfg = ps->cfg;
	struct nfswb_export *e;

	if (cfg->count == cfg->cap || cfg->cap < cfg->count) {
		size_t cap = cfg->count < 16 ? 16 : cfg->count * 2;
		struct nfswb_export *exports;

		exports = realloc(cfg->exports, cap * sizeof(*exports));
		if (!exports)
			goto nomem;
		cfg->exports = exports;
		cfg->cap = cap;
	}
	if (index_grow(cfg) < 0)
		goto nomem;
	e = &cfg->exports[cfg->count];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	e->file = strdup(ps->name);
	if (!e->path || !e->file) {
		free(e->path);
		free(e->file);
		goto nomem;
	}
	e->opts = *o;
	e->line = ps->line;
	*index_slot(cfg, path) = cfg->count + 1;
	cfg->count++;
	return 0;
nomem:
	perr(ps, "out of memory");
	return -ENOMEM;
}

/* Text after an entry: only blanks or a comment. */
static void check_rest(struct parser *ps, char *p, const char *after)
{
	p = skip_blank(p);
	if (*p && *p != '#')
		perr(ps, "unexpected text '%.40s' after %s", p, after);
}

static void parse_defaults_line(struct parser *ps, char *p)
{
	struct nfswb_export_opts o = ps->defaults;
	char why[256], *end;
	int errors;

	p++;				/* the '-' */
	if (*p == '(') {
		end = strchr(++p, ')');
		if (!end) {
			perr(ps, "missing ')' after the default options");
			return;
		}
	} else {
		end = p + strcspn(p, " \t\r\f\v");
	}
	if (*end) {
		*end = '\0';
		check_rest(ps, end + 1, "the default options");
	}
	if (!*skip_blank(p)) {
		perr(ps, "'-' without default options");
		return;
	}
	errors = parse_options(ps, p, &o);
	if (!errors && nfswb_export_opts_check(&o, why, sizeof(why))) {
		perr(ps, "%s", why);
		errors++;
	}
	if (!errors)
		ps->defaults = o;
}

static void parse_export_line(struct parser *ps, char *p)
{
	struct nfswb_export_opts o = ps->defaults;
	const struct nfswb_export *dup;
	char path[PATH_MAX], why[256];
	int errors = ps->errors;

	if (parse_path(ps, &p, path))
		return;
	normalize_path(path);
	p = skip_blank(p);
	if (*p == '(') {
		char *end = strchr(++p, ')');

		if (!end) {
			perr(ps, "missing ')' after the options of %s", path);
			return;
		}
		*end = '\0';
		parse_options(ps, p, &o);
		check_rest(ps, end + 1, "the option list");
	} else if (*p && *p != '#') {
		perr(ps, "expected '(' or end of line after %s, found '%.40s'",
		     path, p);
	}
	if (ps->errors == errors && nfswb_export_opts_check(&o, why,
							    sizeof(why)))
		perr(ps, "%s: %s", path, why);
	dup = find_export(ps->cfg, path);
	if (dup)
		perr(ps, "%s configured twice (first at %s:%u)", path,
		     dup->file, dup->line);
	if (ps->errors == errors)
		add_export(ps, path, &o);
}

static void parse_logical_line(struct parser *ps, char *line)
{
	char *p = skip_blank(line);

	if (!*p || *p == '#')
		return;
	if (*p == '-')
		parse_defaults_line(ps, p);
	else
		parse_export_line(ps, p);
}

int nfswb_config_parse_buffer(const char *name, const char *buf, size_t len,
			      const struct nfswb_export_opts *defaults,
			      struct nfswb_config *cfg, struct nfswb_diag *diag)
{
	struct parser ps = {
		.name = name,
		.cfg = cfg,
		.diag = diag,
	};
	unsigned int physical = 1;
	char *line;
	size_t pos = 0;

	if (defaults)
		ps.defaults = *defaults;
	else
		nfswb_export_opts_default(&ps.defaults);

	/* A logical line is never longer than the whole buffer. */
	line = malloc(len + 1);
	if (!line) {
		nfswb_diag_add(diag, name, 0, "out of memory");
		return 1;
	}
	while (pos < len) {
		bool has_nul = false, quoted = false;
		size_t n = 0;

		ps.line = physical;
		while (pos < len) {
			char c = buf[pos++];

			if (c == '\n') {
				physical++;
				if (n && line[n - 1] == '\\') {
					/* continuation: keep tokens apart */
					line[n - 1] = ' ';
					continue;
				}
				break;
			}
			if (c == '"') {
				quoted = !quoted;
			} else if (c == '#' && !quoted &&
				   (n == 0 || is_blank(line[n - 1]))) {
				/*
				 * A comment runs to the end of its physical
				 * line and, as in exportfs, a '\' there does
				 * not continue it.
				 */
				while (pos < len && buf[pos] != '\n')
					pos++;
				continue;
			}
			if (c == '\0')
				has_nul = true;
			line[n++] = c;
		}
		line[n] = '\0';
		if (has_nul)
			perr(&ps, "NUL byte in line");
		else
			parse_logical_line(&ps, line);
	}
	free(line);
	return ps.errors;
}

/* Read a whole file; errors are "FILE: reason". */
static char *read_file(const char *path, size_t *len, bool missing_ok,
		       bool *missing, struct nfswb_diag *diag)
{
	char *buf;
	int err;

	*missing = false;
	err = nfswb_read_file_bounded(path, MAX_FILE_SIZE, &buf, len);
	if (!err)
		return buf;
	if (err == -ENOENT && missing_ok)
		*missing = true;
	else if (err == -EINVAL || err == -EISDIR)
		nfswb_diag_add(diag, path, 0, "not a regular file");
	else if (err == -EFBIG)
		nfswb_diag_add(diag, path, 0, "larger than %u MiB",
			       MAX_FILE_SIZE >> 20);
	else
		nfswb_diag_add(diag, path, 0, "cannot read: %s",
			       strerror(-err));
	return NULL;
}

static int parse_file(const char *path, bool missing_ok,
		      const struct nfswb_export_opts *defaults,
		      struct nfswb_config *cfg, struct nfswb_diag *diag)
{
	bool missing;
	size_t len = 0;
	char *buf;
	int errors;

	buf = read_file(path, &len, missing_ok, &missing, diag);
	if (!buf)
		return missing ? 0 : 1;
	errors = nfswb_config_parse_buffer(path, buf, len, defaults, cfg,
					   diag);
	free(buf);
	return errors;
}

static int exports_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	static const char ext[] = ".exports";

	if (d->d_name[0] == '.')
		return 0;
	return n > sizeof(ext) - 1 && !strcmp(d->d_name + n - (sizeof(ext) - 1),
					       ext);
}

struct path_id {
	dev_t dev;
	ino_t ino;
	size_t index;
};

static int path_id_cmp(const void *a, const void *b)
{
	const struct path_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * What the text cannot tell: an exported path must be a directory, and
 * two paths that reach one directory (through a symlink or a bind mount)
 * are one export configured twice.  Sorted by (dev, ino): O(n log n).
 * Returns the number of errors added.
 */
static int check_paths(const struct nfswb_config *cfg,
		       struct nfswb_diag *diag)
{
	struct path_id *ids;
	size_t i, run, n = 0;
	int errors = 0;

	if (!cfg->count)
		return 0;
	ids = calloc(cfg->count, sizeof(*ids));
	if (!ids) {
		nfswb_diag_add(diag, "exports", 0, "out of memory");
		return 1;
	}
	for (i = 0; i < cfg->count; i++) {
		const struct nfswb_export *e = &cfg->exports[i];
		struct stat st;

		if (stat(e->path, &st) < 0)
			continue;	/* the device lookup names the cause */
		if (!S_ISDIR(st.st_mode)) {
			nfswb_diag_add(diag, e->file, e->line,
				       "%s is not a directory (an export is a directory tree)",
				       e->path);
			errors++;
			continue;
		}
		ids[n].dev = st.st_dev;
		ids[n].ino = st.st_ino;
		ids[n].index = i;
		n++;
	}
	qsort(ids, n, sizeof(*ids), path_id_cmp);
	for (i = 1, run = 0; i < n; i++) {
		const struct nfswb_export *first, *e;

		if (ids[i].dev != ids[run].dev || ids[i].ino != ids[run].ino) {
			run = i;
			continue;
		}
		first = &cfg->exports[ids[run].index];
		e = &cfg->exports[ids[i].index];
		nfswb_diag_add(diag, e->file, e->line,
			       "%s is the directory %s (first at %s:%u) under another name: configured twice",
			       e->path, first->path, first->file, first->line);
		errors++;
	}
	free(ids);
	return errors;
}

int nfswb_config_load(const char *main_file, bool main_required,
		      const char *dropin_dir,
		      const struct nfswb_export_opts *defaults,
		      struct nfswb_config *cfg, struct nfswb_diag *diag)
{
	struct nfswb_config loaded = { 0 };
	struct dirent **names = NULL;
	int errors = 0, n = 0, i;

	if (main_file)
		errors += parse_file(main_file, !main_required, defaults,
				     &loaded, diag);
	if (dropin_dir) {
		/* versionsort, as exportfs reads /etc/exports.d */
		n = scandir(dropin_dir, &names, exports_filter, versionsort);
		if (n < 0) {
			n = 0;
			if (errno != ENOENT) {
				nfswb_diag_add(diag, dropin_dir, 0,
					       "cannot read directory: %s",
					       strerror(errno));
				errors++;
			}
		}
	}
	for (i = 0; i < n; i++) {
		char *path;

		if (asprintf(&path, "%s/%s", dropin_dir, names[i]->d_name) < 0) {
			nfswb_diag_add(diag, dropin_dir, 0, "out of memory");
			errors++;
		} else {
			errors += parse_file(path, false, defaults, &loaded,
					     diag);
			free(path);
		}
		free(names[i]);
	}
	free(names);

	errors += check_paths(&loaded, diag);
	if (errors) {
		nfswb_config_free(&loaded);
		return -EINVAL;
	}
	*cfg = loaded;
	return 0;
}

void nfswb_config_free(struct nfswb_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->count; i++) {
		free(cfg->exports[i].path);
		free(cfg->exports[i].file);
	}
	free(cfg->exports);
	free(cfg->slots);
	memset(cfg, 0, sizeof(*cfg));
}
