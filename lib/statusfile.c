// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * statusfile.c - a small, bounded JSON parser (RFC 8259) into a tree, for
 * nfswbd's status.json.  Recursive descent with a depth limit; numbers
 * through strtod() on a copied token; strings unescaped, \u to UTF-8
 * (surrogate pairs joined; a lone surrogate is an error).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statusfile.h"

struct parser {
	const char *p, *start, *end;
	int depth;
	const char *why;
};

static int fail(struct parser *ps, const char *why)
{
	if (!ps->why)
		ps->why = why;
	return -EINVAL;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int hex4(struct parser *ps, unsigned int *out)
{
	*out = 0;
	if (ps->end - ps->p < 4)
		return fail(ps, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;

		*out <<= 4;
		if (c >= '0' && c <= '9')
			*out |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*out |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*out |= (unsigned int)(c - 'A' + 10);
		else
			return fail(ps, "bad \\u escape");
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at ps->p ('"') into a fresh buffer. */
static int parse_string(struct parser *ps, char **out)
{
	const char *q;
	size_t n = 0;
	char *s;

	/* The unescaped text is never longer than the escaped one. */
	for (q = ps->p + 1; q < ps->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= ps->end)
		return fail(ps, "unterminated string");
	s = malloc((size_t)(q - ps->p));
	if (!s)
		return -ENOMEM;
	ps->p++;
	while (*ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p++;
		unsigned int cp, lo;

		if (c < 0x20) {
			free(s);
			return fail(ps, "control character in string");
		}
		if (c != '\\') {
			s[n++] = (char)c;
			continue;
		}
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': case '\\': case '/':
			s[n++] = (char)c;
			break;
		case 'b': s[n++] = '\b'; break;
		case 'f': s[n++] = '\f'; break;
		case 'n': s[n++] = '\n'; break;
		case 'r': s[n++] = '\r'; break;
		case 't': s[n++] = '\t'; break;
		case 'u':
			if (hex4(ps, &cp))
				goto bad;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				goto bad_surrogate;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' ||
				    ps->p[1] != 'u')
					goto bad_surrogate;
				ps->p += 2;
				if (hex4(ps, &lo))
					goto bad;
				if (lo < 0xdc00 || lo > 0xdfff)
					goto bad_surrogate;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			if (!cp)
				goto bad_nul;
			n += put_utf8(s + n, cp);
			break;
		default:
			free(s);
			return fail(ps, "bad escape in string");
		}
	}
	ps->p++;
	s[n] = '\0';
	*out = s;
	return 0;
bad_surrogate:
	fail(ps, "lone UTF-16 surrogate in \\u escape");
	goto bad;
bad_nul:
	fail(ps, "\\u0000 in string");
bad:
	free(s);
	return -EINVAL;
}

static int parse_value(struct parser *ps, struct nfswb_jval *v);

static int add_kid(struct nfswb_jval *v, size_t *cap, struct nfswb_jval **kid)
{
	if (v->nkids == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		struct nfswb_jval *k = realloc(v->kids, ncap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		v->kids = k;
		*cap = ncap;
	}
	*kid = &v->kids[v->nkids];
	memset(*kid, 0, sizeof(**kid));
	return 0;
}

/* An array or object at ps->p; @obj says which. */
static int parse_container(struct parser *ps, struct nfswb_jval *v, bool obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;
	int r;

	if (++ps->depth > NFSWB_STATUS_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	v->type = obj ? NFSWB_J_OBJ : NFSWB_J_ARR;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		struct nfswb_jval *kid;
		char *key = NULL;

		skip_ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a member name");
			r = parse_string(ps, &key);
			if (r)
				return r;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				return fail(ps, "expected ':'");
			}
			ps->p++;
		}
		r = add_kid(v, &cap, &kid);
		if (r) {
			free(key);
			return r;
		}
		kid->key = key;
		v->nkids++;	/* counted now: freed with the tree on error */
		r = parse_value(ps, kid);
		if (r)
			return r;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return 0;
		}
		return fail(ps, obj ? "expected ',' or '}'" :
				      "expected ',' or ']'");
	}
}

static int parse_number(struct parser *ps, struct nfswb_jval *v)
{
	const char *q = ps->p;
	char buf[64], *end;
	size_t n;

	if (q < ps->end && *q == '-')
		q++;
	if (q >= ps->end || *q < '0' || *q > '9')
		return fail(ps, "unexpected character");
	if (*q == '0' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9')
		return fail(ps, "leading zero in number");
	while (q < ps->end && strchr("0123456789.eE+-", *q))
		q++;
	n = (size_t)(q - ps->p);
	if (n >= sizeof(buf))
		return fail(ps, "number too long");
	memcpy(buf, ps->p, n);
	buf[n] = '\0';
	v->num = strtod(buf, &end);
	if (*end || end[-1] == '.' || end[-1] == 'e' || end[-1] == 'E')
		return fail(ps, "malformed number");
	v->type = NFSWB_J_NUM;
	ps->p = q;
	return 0;
}

static int parse_value(struct parser *ps, struct nfswb_jval *v)
{
	static const struct { const char *w; enum nfswb_jtype t; bool b; }
	words[] = {
		{ "true", NFSWB_J_BOOL, true },
		{ "false", NFSWB_J_BOOL, false },
		{ "null", NFSWB_J_NULL, false },
	};

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of text");
	switch (*ps->p) {
	case '{':
		return parse_container(ps, v, true);
	case '[':
		return parse_container(ps, v, false);
	case '"':
		v->type = NFSWB_J_STR;
		return parse_string(ps, &v->str);
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t l = strlen(words[i].w);

		if ((size_t)(ps->end - ps->p) >= l &&
		    !memcmp(ps->p, words[i].w, l)) {
			v->type = words[i].t;
			v->b = words[i].b;
			ps->p += l;
			return 0;
		}
	}
	return parse_number(ps, v);
}

static void jval_release(struct nfswb_jval *v)
{
	for (size_t i = 0; i < v->nkids; i++)
		jval_release(&v->kids[i]);
	free(v->kids);
	free(v->key);
	free(v->str);
}

void nfswb_jval_free(struct nfswb_jval *v)
{
	if (!v)
		return;
	jval_release(v);
	memset(v, 0, sizeof(*v));
}

int nfswb_json_parse(const char *buf, size_t len, struct nfswb_jval *out,
		     const char **why, size_t *at)
{
	struct parser ps = { .p = buf, .start = buf, .end = buf + len };
	int r;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	*at = 0;
	if (len > NFSWB_STATUS_MAX_BYTES) {
		*why = "document too large";
		return -EINVAL;
	}
	r = parse_value(&ps, out);
	if (!r) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			r = fail(&ps, "text after the document");
	}
	if (r) {
		*why = r == -ENOMEM ? "out of memory" : ps.why;
		*at = (size_t)(ps.p - ps.start);
		nfswb_jval_free(out);
	}
	return r;
}

const struct nfswb_jval *nfswb_jget(const struct nfswb_jval *v,
				    const char *path)
{
	while (v && *path) {
		const char *dot = strchrnul(path, '.');
		size_t n = (size_t)(dot - path);
		const struct nfswb_jval *found = NULL;

		if (v->type != NFSWB_J_OBJ)
			return NULL;
		for (size_t i = 0; i < v->nkids && !found; i++)
			if (strlen(v->kids[i].key) == n &&
			    !memcmp(v->kids[i].key, path, n))
				found = &v->kids[i];
		v = found;
		path = *dot ? dot + 1 : dot;
	}
	return v;
}

const char *nfswb_jget_str(const struct nfswb_jval *v, const char *path,
			   const char *def)
{
	v = nfswb_jget(v, path);
	return v && v->type == NFSWB_J_STR ? v->str : def;
}

int nfswb_jget_count(const struct nfswb_jval *v, const char *path,
		     uint64_t *out)
{
	v = nfswb_jget(v, path);
	if (!v || v->type == NFSWB_J_NULL)
		return 0;
	/* 2^64 itself does not fit; every double below it does. */
	if (v->type != NFSWB_J_NUM || !(v->num >= 0) ||
	    v->num >= 18446744073709551616.0)
		return -ERANGE;
	*out = (uint64_t)v->num;
	return 1;
}

bool nfswb_jget_u64(const struct nfswb_jval *v, const char *path,
		    uint64_t *out)
{
	return nfswb_jget_count(v, path, out) == 1;
}

int nfswb_status_load(const char *path, struct nfswb_jval *doc, char *why,
		      size_t whylen)
{
	const char *reason;
	size_t len = 0, at;
	struct stat st;
	char *buf;
	int fd, r;

	memset(doc, 0, sizeof(*doc));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > NFSWB_STATUS_MAX_BYTES) {
		close(fd);
		snprintf(why, whylen, "%s: %s", path, S_ISREG(st.st_mode) ?
			 "larger than a status file can be" :
			 "not a regular file");
		return S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(why, whylen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	r = nfswb_json_parse(buf, len, doc, &reason, &at);
	if (r) {
		unsigned int line = 1;

		for (size_t i = 0; i < at && i < len; i++)
			line += buf[i] == '\n';
		snprintf(why, whylen, "%s:%u: not nfswbd's status (byte %zu: "
			 "%s)", path, line, at, reason);
	} else if (doc->type != NFSWB_J_OBJ) {
		nfswb_jval_free(doc);
		snprintf(why, whylen, "%s: not nfswbd's status (not an "
			 "object)", path);
		r = -EINVAL;
	}
	free(buf);
	return r;
}
