/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - a small streaming JSON writer (status.json, reports, results).
 * Commas and nesting are tracked; strings are escaped per RFC 8259.
 */
#ifndef NFSWB_JSON_H
#define NFSWB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define NFSWB_JSON_MAX_DEPTH	16

struct nfswb_json {
	FILE *out;
	int depth;
	bool need_comma[NFSWB_JSON_MAX_DEPTH];
	bool pretty;
};

void nfswb_json_init(struct nfswb_json *j, FILE *out, bool pretty);
/* A NULL key writes a bare value (array element or top level). */
void nfswb_json_obj_begin(struct nfswb_json *j, const char *key);
void nfswb_json_obj_end(struct nfswb_json *j);
void nfswb_json_arr_begin(struct nfswb_json *j, const char *key);
void nfswb_json_arr_end(struct nfswb_json *j);
void nfswb_json_str(struct nfswb_json *j, const char *key, const char *v);
void nfswb_json_u64(struct nfswb_json *j, const char *key, uint64_t v);
void nfswb_json_i64(struct nfswb_json *j, const char *key, int64_t v);
void nfswb_json_double(struct nfswb_json *j, const char *key, double v);
/* A number with a fixed count of decimals ("4178513.25"), never exponent. */
void nfswb_json_fixed(struct nfswb_json *j, const char *key, double v,
		      int decimals);
void nfswb_json_bool(struct nfswb_json *j, const char *key, bool v);
void nfswb_json_null(struct nfswb_json *j, const char *key);
/* Finish the document with a newline. */
void nfswb_json_end(struct nfswb_json *j);

#endif
