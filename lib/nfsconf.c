// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfsconf.c - read nfs.conf(5) the way nfs-utils' support/nfs/conffile.c
 * does, so that nfswbd sees exactly what `nfsconf --get` prints.
 *
 * The quirks that matter, all reproduced on purpose:
 *  - '\' before a newline joins lines (both become blanks);
 *  - a last line without a newline is ignored;
 *  - a value is cut at the first '#' or ';' unless it is quoted; a quoted
 *    value ends at the next quote of the same kind, the rest is dropped;
 *  - an empty value sets nothing;
 *  - a later "tag = value" for the same section and tag replaces the most
 *    recent earlier one, whatever its [section "arg"];
 *  - "include = [-]FILE" reads FILE (relative to the including file's
 *    directory) in place, starting in the current section;
 *  - FILE.d/ *.conf are read after FILE in version order and override it;
 *  - $NAME takes the process environment first, then [environment].
 * Where nfs-utils logs a warning and goes on, we record the same problem
 * (with the physical line) in the diag and go on the same way.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exports.h"
#include "nfsconf.h"
#include "readfile.h"

#define MAX_INCLUDE_DEPTH	16	/* nfs-utils recurses until it crashes */
#define MAX_EXPANSIONS		16	/* "$a" -> "$b" -> ... ; a loop hangs nfs-utils */
#define MAX_CONF_SIZE		(16u << 20)

struct binding {
	char *section;		/* lower case, as conf_set() stores it */
	char *arg;		/* [section "arg"], or NULL */
	char *tag;
	char *value;
	const char *file;	/* owned by nfswb_nfsconf.files */
	unsigned int line;
};

struct nfswb_nfsconf {
	struct binding *b;	/* in the order they were set */
	size_t count, cap;
	char **files;		/* every file name a binding points to */
	size_t nfiles;
	bool no_include;	/* fuzzing: never open other files */
};

struct reader {
	struct nfswb_nfsconf *c;
	struct nfswb_diag *diag;
	/*
	 * With @owned set, only problems in that section (or that concern a
	 * whole file) go to @diag and count; the rest go to @warn.
	 */
	const char *owned;
	struct nfswb_diag *warn;
	char *last_header;	/* text of the latest "[...]" line, or NULL */
	int problems;
	int depth;
};

/* The section a problem is in, for problems that concern a whole file. */
#define WHOLE_FILE	((const char *)-1)

static void problem(struct reader *r, const char *section, const char *file,
		    unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Record a problem found while in @section (NULL: outside any section).
 * Lines after a header that could not be parsed belong to whatever that
 * header named, so @section NULL falls back to the latest header's text.
 */
static void problem(struct reader *r, const char *section, const char *file,
		    unsigned int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->owned && section != WHOLE_FILE) {
		if (!section)
			section = r->last_header;
		n = strlen(r->owned);
		if (!section || strncasecmp(section, r->owned, n) ||
		    (section[n] && !isspace((unsigned char)section[n]) &&
		     section[n] != '"' && section[n] != ']')) {
			nfswb_diag_add(r->warn, file, line, "%s", msg);
			return;
		}
	}
	nfswb_diag_add(r->diag, file, line, "%s", msg);
	r->problems++;
}

static const char *intern_file(struct reader *r, const char *name)
{
	struct nfswb_nfsconf *c = r->c;
	char **files, *copy;

	if (c->nfiles && !strcmp(c->files[c->nfiles - 1], name))
		return c->files[c->nfiles - 1];
	files = realloc(c->files, (c->nfiles + 1) * sizeof(*files));
	if (!files)
		return NULL;
	c->files = files;
	copy = strdup(name);
	if (!copy)
		return NULL;
	c->files[c->nfiles++] = copy;
	return copy;
}

static void free_binding(struct binding *b)
{
	free(b->section);
	free(b->arg);
	free(b->tag);
	free(b->value);
}

/* conf_set_now(override = 1): drop the latest same section+tag, append. */
static void set_value(struct reader *r, const char *file, unsigned int line,
		      const char *section, const char *arg, const char *tag,
		      const char *value)
{
	struct nfswb_nfsconf *c = r->c;
	struct binding nb = { 0 };
	size_t i;
	char *p;

	if (!*value)
		return;
	for (i = c->count; i-- > 0;) {
		if (!strcasecmp(c->b[i].section, section) &&
		    !strcasecmp(c->b[i].tag, tag)) {
			const struct binding *o = &c->b[i];

			/*
			 * A drop-in overriding nfs.conf is what drop-ins are
			 * for; the same key twice in one file is a slip.
			 */
			if (!strcmp(o->file, file) &&
			    (o->arg ? arg && !strcasecmp(o->arg, arg) : !arg))
				problem(r, section, file, line,
					"[%s] %s set again (first at line %u); the later value wins",
					section, tag, o->line);
			free_binding(&c->b[i]);
			memmove(&c->b[i], &c->b[i + 1],
				(c->count - i - 1) * sizeof(c->b[0]));
			c->count--;
			break;
		}
	}
	if (c->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct binding *b = realloc(c->b, cap * sizeof(*b));

		if (!b)
			goto nomem;
		c->b = b;
		c->cap = cap;
	}
	nb.section = strdup(section);
	nb.arg = arg ? strdup(arg) : NULL;
	nb.tag = strdup(tag);
	nb.value = strdup(value);
	nb.file = intern_file(r, file);
	nb.line = line;
	if (!nb.section || (arg && !nb.arg) || !nb.tag || !nb.value ||
	    !nb.file) {
		free_binding(&nb);
		goto nomem;
	}
	for (p = nb.section; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	c->b[c->count++] = nb;
	return;
nomem:
	problem(r, WHOLE_FILE, file, line, "out of memory");
}

/* The whole file, with its length (text after a NUL byte included). */
static char *read_conf(const char *path, size_t *len, int *err)
{
	char *buf;
	int ret = nfswb_read_file_bounded(path, MAX_CONF_SIZE, &buf, len);

	if (ret < 0) {
		*err = -ret;
		return NULL;
	}
	return buf;
}

static void parse_buffer(struct reader *r, char *buf, size_t len,
			 const char *file, char **section, char **arg);

/* "include = [-]FILE", relative to the directory of @file. */
static void do_include(struct reader *r, const char *file, unsigned int line,
		       const char *val, const char *section, const char *arg)
{
	char *path = NULL, *copy = NULL, *text = NULL;
	char *isec = NULL, *iarg = NULL;
	bool optional = false;
	size_t len = 0;
	int err = 0;

	if (*val == '-') {
		optional = true;
		val++;
	}
	if (r->c->no_include) {
		problem(r, section, file, line, "include not followed here");
		return;
	}
	if (r->depth >= MAX_INCLUDE_DEPTH) {
		problem(r, section, file, line, "includes nested deeper than %d",
			MAX_INCLUDE_DEPTH);
		return;
	}
	if (val[0] == '/') {
		path = strdup(val);
	} else {
		copy = strdup(file);
		if (copy && asprintf(&path, "%s/%s", dirname(copy), val) < 0)
			path = NULL;
	}
	if (!path) {
		problem(r, WHOLE_FILE, file, line, "out of memory");
		goto out;
	}
	text = read_conf(path, &len, &err);
	if (!text) {
		if (!optional)
			problem(r, section, file, line, "cannot include %s: %s", path,
				strerror(err));
		goto out;
	}
	/* The included file starts in our section but cannot change it. */
	if (section) {
		isec = strdup(section);
		iarg = arg ? strdup(arg) : NULL;
	}
	r->depth++;
	parse_buffer(r, text, len, path, &isec, &iarg);
	r->depth--;
out:
	free(isec);
	free(iarg);
	free(text);
	free(path);
	free(copy);
}

/* conf_parse_line(): one line, NUL-terminated, modified in place. */
static void parse_line(struct reader *r, char *line, const char *file,
		       unsigned int lineno, char **section, char **arg)
{
	char *val, *ptr;

	while (isspace((unsigned char)*line))
		line++;
	if (*line == '\0' || *line == '#' || *line == ';')
		return;

	if (*line == '[') {
		line++;
		free(*section);
		free(*arg);
		*section = *arg = NULL;
		while (isblank((unsigned char)*line))
			line++;
		free(r->last_header);
		r->last_header = strdup(line);
		ptr = strchr(line, ']');
		if (!ptr) {
			problem(r, line, file, lineno,
				"no ']' closing the section name; lines up to the next section are ignored");
			return;
		}
		*ptr-- = '\0';
		while (ptr >= line && isblank((unsigned char)*ptr))
			*ptr-- = '\0';
		val = strchr(line, '"');
		if (val) {
			ptr = val - 1;
			*val++ = '\0';
			while (ptr > line && isblank((unsigned char)*ptr))
				*ptr-- = '\0';
		}
		*section = strdup(line);
		if (!*section) {
			problem(r, WHOLE_FILE, file, lineno, "out of memory");
			return;
		}
		if (!val)
			return;
		ptr = strchr(val, '"');
		if (!ptr) {
			problem(r, *section, file, lineno,
				"no '\"' closing the section argument; values go to [%s] itself",
				*section);
			return;
		}
		*ptr = '\0';
		*arg = strdup(val);
		if (!*arg)
			problem(r, WHOLE_FILE, file, lineno, "out of memory");
		return;
	}

	ptr = strchr(line, '=');
	if (!ptr) {
		problem(r, *section, file, lineno,
			"line is neither a section, an assignment nor a comment");
		return;
	}
	if (!*section) {
		problem(r, NULL, file, lineno,
			"assignment outside any section is ignored");
		return;
	}
	val = ptr + 1;
	*ptr-- = '\0';
	while (ptr >= line && isblank((unsigned char)*ptr))
		*ptr-- = '\0';
	while (*val && isblank((unsigned char)*val))
		val++;

	if (*val == '"' || *val == '\'') {
		char quote = *val++;

		ptr = strchr(val, quote);
		if (!ptr) {
			problem(r, *section, file, lineno,
				"no closing %c: the assignment is ignored",
				quote);
			return;
		}
		*ptr = '\0';
	} else {
		ptr = strchr(val, '#');
		if (ptr)
			*ptr = '\0';
		ptr = strchr(val, ';');
		if (ptr)
			*ptr = '\0';
		ptr = val + strlen(val) - 1;
		while (ptr > val && isspace((unsigned char)*ptr))
			*ptr-- = '\0';
	}

	if (*line == '\0') {
		problem(r, *section, file, lineno, "assignment without a name");
		return;
	}
	if (!strcasecmp(line, "include"))
		do_include(r, file, lineno, val, *section, *arg);
	else
		set_value(r, file, lineno, *section, *arg, line, val);
}

/*
 * conf_parse(): @buf holds @len bytes and a NUL after them; text after a
 * NUL byte inside is not seen, as in nfs-utils, but said so.  Line
 * numbers count physical lines, so a message points at the line an entry
 * starts on even after continuations.
 */
static void parse_buffer(struct reader *r, char *buf, size_t len,
			 const char *file, char **section, char **arg)
{
	unsigned int physical = 1, start = 1;
	char *cp, *line = buf;

	for (cp = buf; *cp; cp++) {
		if (*cp != '\n')
			continue;
		physical++;
		if (cp > buf && cp[-1] == '\\') {
			cp[-1] = cp[0] = ' ';
			continue;
		}
		*cp = '\0';
		parse_line(r, line, file, start, section, arg);
		line = cp + 1;
		start = physical;
	}
	if ((size_t)(cp - buf) < len)
		problem(r, *section, file, physical,
			"NUL byte: the rest of the file is ignored (as nfs-utils does)");
	else if (cp != line)
		problem(r, *section, file, start,
			"last line has no newline and is ignored (as nfs-utils does)");
}

static int conf_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	if (d->d_name[0] == '.')
		return 0;
	if (d->d_type != DT_REG && d->d_type != DT_LNK &&
	    d->d_type != DT_UNKNOWN)
		return 0;
	return n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

static void read_one(struct reader *r, const char *path, bool missing_ok)
{
	char *section = NULL, *arg = NULL, *text;
	size_t len = 0;
	int err = 0;

	text = read_conf(path, &len, &err);
	if (!text) {
		if (!(missing_ok && err == ENOENT))
			problem(r, WHOLE_FILE, path, 0, "cannot read: %s",
				strerror(err));
		return;
	}
	/* Every file starts outside any section. */
	free(r->last_header);
	r->last_header = NULL;
	parse_buffer(r, text, len, path, &section, &arg);
	free(section);
	free(arg);
	free(text);
}

static struct nfswb_nfsconf *conf_new(void)
{
	return calloc(1, sizeof(struct nfswb_nfsconf));
}

/* @path, then @path.d/ *.conf; the problems counted in @r. */
static void read_all(struct reader *r, const char *path)
{
	struct dirent **names = NULL;
	char *dir = NULL;
	int n, i;

	read_one(r, path, true);

	/* FILE.d/ *.conf, as conf_init_dir(): they have the last word. */
	if (asprintf(&dir, "%s.d", path) < 0) {
		problem(r, WHOLE_FILE, path, 0, "out of memory");
		return;
	}
	n = scandir(dir, &names, conf_filter, versionsort);
	if (n < 0 && errno != ENOENT)
		problem(r, WHOLE_FILE, dir, 0, "cannot read directory: %s",
			strerror(errno));
	for (i = 0; i < n; i++) {
		char *file;

		if (asprintf(&file, "%s/%s", dir, names[i]->d_name) >= 0) {
			read_one(r, file, false);
			free(file);
		} else {
			problem(r, WHOLE_FILE, dir, 0, "out of memory");
		}
		free(names[i]);
	}
	free(names);
	free(dir);
}

/* A new configuration read from @path into *@out; the problems counted. */
static int read_new(struct reader *r, const char *path,
		    struct nfswb_nfsconf **out)
{
	r->c = conf_new();
	*out = r->c;
	if (!r->c) {
		nfswb_diag_add(r->diag, path, 0, "out of memory");
		return 1;
	}
	read_all(r, path);
	free(r->last_header);
	r->last_header = NULL;
	return r->problems;
}

int nfswb_nfsconf_read(const char *path, struct nfswb_nfsconf **out,
		       struct nfswb_diag *diag)
{
	struct reader r = { .diag = diag };

	return read_new(&r, path, out);
}

int nfswb_nfsconf_load(const char *path, struct nfswb_nfsconf **out,
		       struct nfswb_diag *diag)
{
	return nfswb_nfsconf_load_owned(path, NULL, out, diag, NULL);
}

int nfswb_nfsconf_load_owned(const char *path, const char *section,
			     struct nfswb_nfsconf **out,
			     struct nfswb_diag *errors,
			     struct nfswb_diag *warnings)
{
	struct reader r = {
		.diag = errors, .owned = section, .warn = warnings,
	};
	struct nfswb_nfsconf *c;

	*out = NULL;
	if (read_new(&r, path, &c)) {
		nfswb_nfsconf_free(c);
		return -EINVAL;
	}
	*out = c;
	return 0;
}

int nfswb_nfsconf_parse_buffer(const char *name, const char *buf, size_t len,
			       bool follow_includes,
			       struct nfswb_nfsconf **out,
			       struct nfswb_diag *diag)
{
	struct reader r = { .diag = diag };
	char *section = NULL, *arg = NULL, *text;

	r.c = conf_new();
	*out = r.c;
	text = malloc(len + 1);
	if (!r.c || !text) {
		free(text);
		nfswb_diag_add(diag, name, 0, "out of memory");
		return 1;
	}
	r.c->no_include = !follow_includes;
	memcpy(text, buf, len);
	text[len] = '\0';
	parse_buffer(&r, text, len, name, &section, &arg);
	free(section);
	free(arg);
	free(text);
	free(r.last_header);
	return r.problems;
}

void nfswb_nfsconf_free(struct nfswb_nfsconf *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->count; i++)
		free_binding(&c->b[i]);
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->b);
	free(c->files);
	free(c);
}

/* conf_get_section() without the $ expansion: the latest match. */
static const struct binding *lookup(const struct nfswb_nfsconf *c,
				    const char *section, const char *arg,
				    const char *tag)
{
	size_t i;

	for (i = c->count; i-- > 0;) {
		const struct binding *b = &c->b[i];

		if (strcasecmp(section, b->section))
			continue;
		if (arg ? !b->arg || strcasecmp(arg, b->arg) : b->arg != NULL)
			continue;
		if (strcasecmp(tag, b->tag))
			continue;
		return b;
	}
	return NULL;
}

static const struct binding *lookup_expanded(const struct nfswb_nfsconf *c,
					     const char *section,
					     const char *arg, const char *tag,
					     const char **value)
{
	const struct binding *b;
	int hops;

	for (hops = 0; hops < MAX_EXPANSIONS; hops++) {
		const char *env;

		b = lookup(c, section, arg, tag);
		if (!b)
			return NULL;
		if (b->value[0] != '$') {
			*value = b->value;
			return b;
		}
		env = getenv(b->value + 1);
		if (env && *env) {
			*value = env;
			return b;
		}
		section = "environment";
		tag = b->value + 1;
	}
	return NULL;
}

const char *nfswb_nfsconf_get_arg(const struct nfswb_nfsconf *c,
				  const char *section, const char *arg,
				  const char *tag)
{
	const char *value = NULL;

	if (!c || !lookup_expanded(c, section, arg, tag, &value))
		return NULL;
	return value;
}

const char *nfswb_nfsconf_get_where(const struct nfswb_nfsconf *c,
				    const char *section, const char *tag,
				    const char **file, unsigned int *line)
{
	const struct binding *b;
	const char *value = NULL;

	if (!c)
		return NULL;
	b = lookup_expanded(c, section, NULL, tag, &value);
	if (!b)
		return NULL;
	*file = b->file;
	*line = b->line;
	return value;
}

const char *nfswb_nfsconf_get(const struct nfswb_nfsconf *c,
			      const char *section, const char *tag)
{
	return nfswb_nfsconf_get_arg(c, section, NULL, tag);
}

bool nfswb_nfsconf_get_bool(const struct nfswb_nfsconf *c, const char *section,
			    const char *tag, bool def)
{
	static const char *const yes[] = { "1", "t", "true", "y", "yes", "on" };
	static const char *const no[] = { "0", "f", "false", "n", "no", "off" };
	const char *v = nfswb_nfsconf_get(c, section, tag);
	size_t i;

	if (!v)
		return def;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcasecmp(v, yes[i]))
			return true;
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcasecmp(v, no[i]))
			return false;
	return def;
}

/*
 * Every key of [nfswbd], the one list: those that default an
 * nfswb.exports(5) option ('-' for '_'), then the daemon's own (read by
 * server/conf.c).  A key not listed is reported as unknown.
 */
static const struct {
	const char *key;
	const char *opt;	/* the export option, or NULL */
} nfswbd_keys[] = {
	{ "mode", "mode" },
	{ "background-time", "background_time" },
	{ "background-min", "background_min" },
	{ "commit-target", "commit_target" },
	{ "bandwidth", "bandwidth" },
	{ "min-bandwidth", "min_bandwidth" },
	{ "max-bandwidth", "max_bandwidth" },
	{ "writers", "writers" },
	{ "exports-file", NULL },
	{ "exports-dir", NULL },
	{ "state-dir", NULL },
	{ "interval", NULL },
	{ "status-interval", NULL },
	{ "max-files", NULL },
	{ "io-uring", NULL },
	{ "verbosity", NULL },
	{ "verbose", NULL },
	{ "metrics-file", NULL },
	{ "metrics-listen", NULL },
	{ "commit-latency", NULL },
	{ "commit-latency-pid-file", NULL },
};

#define NNFSWBD_KEYS	(sizeof(nfswbd_keys) / sizeof(nfswbd_keys[0]))

static bool is_nfswbd_key(const char *tag)
{
	size_t k;

	for (k = 0; k < NNFSWBD_KEYS; k++)
		if (!strcasecmp(tag, nfswbd_keys[k].key))
			return true;
	return false;
}

int nfswb_nfsconf_check_keys(const struct nfswb_nfsconf *c,
			     const char *section, const char *const *keys,
			     struct nfswb_diag *diag)
{
	size_t i, k, errors = 0;

	if (!c)
		return 0;
	for (i = 0; i < c->count; i++) {
		const struct binding *b = &c->b[i];
		bool known = false;

		if (strcasecmp(b->section, section) || b->arg)
			continue;
		for (k = 0; keys && keys[k] && !known; k++)
			known = !strcasecmp(b->tag, keys[k]);
		if (known || (!strcasecmp(section, "nfswbd") &&
			      is_nfswbd_key(b->tag)))
			continue;
		nfswb_diag_add(diag, b->file, b->line, "[%s] unknown key '%s'",
			       section, b->tag);
		errors++;
	}
	return errors ? -EINVAL : 0;
}

int nfswb_nfsconf_daemon_defaults(const struct nfswb_nfsconf *c,
				  const char *conf_name,
				  struct nfswb_export_opts *defaults,
				  struct nfswb_diag *diag)
{
	struct nfswb_export_opts o = *defaults;
	size_t errors = nfswb_diag_errors(diag);
	char why[256];
	size_t k;

	if (!c)
		return 0;
	for (k = 0; k < NNFSWBD_KEYS; k++) {
		const struct binding *b;
		const char *value = NULL;

		if (!nfswbd_keys[k].opt)
			continue;
		b = lookup_expanded(c, "nfswbd", NULL, nfswbd_keys[k].key,
				    &value);
		if (!b)
			continue;
		if (nfswb_export_opt_set_reason(&o, nfswbd_keys[k].opt, value,
						why, sizeof(why)))
			nfswb_diag_add(diag, b->file ? b->file : conf_name,
				       b->line, "[nfswbd] %s = %s: %s",
				       nfswbd_keys[k].key, value, why);
	}
	if (nfswb_diag_errors(diag) == errors &&
	    nfswb_export_opts_check(&o, why, sizeof(why)))
		nfswb_diag_add(diag, conf_name, 0, "[nfswbd] %s", why);
	if (nfswb_diag_errors(diag) != errors)
		return -EINVAL;
	*defaults = o;
	return 0;
}
