// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <inttypes.h>
#include <math.h>

#include "json.h"

void nfswb_json_init(struct nfswb_json *j, FILE *out, bool pretty)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
	j->pretty = pretty;
}

static void json_indent(struct nfswb_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/*
 * Length of the well-formed UTF-8 sequence at @p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0.
 */
static unsigned int utf8_len(const unsigned char *p)
{
	unsigned int n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * JSON text is UTF-8; a path need not be: a byte that does not start a
 * well-formed sequence becomes U+FFFD, so the document stays valid.
 */
static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20) {
				fprintf(out, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, out);
			} else {
				unsigned int n = utf8_len(p);

				if (!n) {
					fputs("\\ufffd", out);
				} else {
					fwrite(p, 1, n, out);
					p += n - 1;
				}
			}
		}
	}
	fputc('"', out);
}

/* Separator, indentation and key before any value. */
static void json_prefix(struct nfswb_json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	j->need_comma[j->depth] = true;
	if (j->depth > 0)
		json_indent(j);
	if (key) {
		json_string(j->out, key);
		fputs(j->pretty ? ": " : ":", j->out);
	}
}

static void json_open(struct nfswb_json *j, const char *key, char c)
{
	json_prefix(j, key);
	fputc(c, j->out);
	if (j->depth < NFSWB_JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void json_close(struct nfswb_json *j, char c)
{
	bool had_members = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had_members)
		json_indent(j);
	fputc(c, j->out);
}

void nfswb_json_obj_begin(struct nfswb_json *j, const char *key)
{
	json_open(j, key, '{');
}

void nfswb_json_obj_end(struct nfswb_json *j)
{
	json_close(j, '}');
}

void nfswb_json_arr_begin(struct nfswb_json *j, const char *key)
{
	json_open(j, key, '[');
}

void nfswb_json_arr_end(struct nfswb_json *j)
{
	json_close(j, ']');
}

void nfswb_json_str(struct nfswb_json *j, const char *key, const char *v)
{
	json_prefix(j, key);
	if (v)
		json_string(j->out, v);
	else
		fputs("null", j->out);
}

void nfswb_json_u64(struct nfswb_json *j, const char *key, uint64_t v)
{
	json_prefix(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

void nfswb_json_i64(struct nfswb_json *j, const char *key, int64_t v)
{
	json_prefix(j, key);
	fprintf(j->out, "%" PRId64, v);
}

void nfswb_json_double(struct nfswb_json *j, const char *key, double v)
{
	json_prefix(j, key);
	/* JSON has no NaN or infinity. */
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

void nfswb_json_fixed(struct nfswb_json *j, const char *key, double v,
		      int decimals)
{
	json_prefix(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.*f", decimals, v);
	else
		fputs("null", j->out);
}

void nfswb_json_bool(struct nfswb_json *j, const char *key, bool v)
{
	json_prefix(j, key);
	fputs(v ? "true" : "false", j->out);
}

void nfswb_json_null(struct nfswb_json *j, const char *key)
{
	json_prefix(j, key);
	fputs("null", j->out);
}

void nfswb_json_end(struct nfswb_json *j)
{
	fputc('\n', j->out);
}
