/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statusfile.h - the one reader of nfswbd's status.json (schema in
 * nfswbd(8), STATUS FILE): a bounded JSON parser into a tree, and
 * lookups by member path.  nfswbd --status, nfswb-report record/live and
 * the fuzzer use it; no tool reads the file by hand.
 */
#ifndef NFSWB_STATUSFILE_H
#define NFSWB_STATUSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds: the daemon writes far less; anything bigger is not its file. */
#define NFSWB_STATUS_MAX_BYTES	(16u << 20)
#define NFSWB_STATUS_MAX_DEPTH	32

enum nfswb_jtype {
	NFSWB_J_NULL, NFSWB_J_BOOL, NFSWB_J_NUM, NFSWB_J_STR, NFSWB_J_ARR,
	NFSWB_J_OBJ,
};

struct nfswb_jval {
	enum nfswb_jtype type;
	char *key;			/* member name inside an object */
	bool b;
	double num;
	char *str;			/* NUL-terminated; \u escapes as UTF-8 */
	struct nfswb_jval *kids;	/* array elements, object members */
	size_t nkids;
};

/**
 * nfswb_json_parse() - parse one JSON document
 * @buf: text (need not be NUL-terminated)
 * @len: its length, at most NFSWB_STATUS_MAX_BYTES
 * @out: the tree; free with nfswb_jval_free() on success
 * @why: out on failure: a static reason
 * @at: out on failure: byte offset of the problem
 *
 * Return: 0, -EINVAL for text that is not JSON (or nests deeper than
 * NFSWB_STATUS_MAX_DEPTH), -ENOMEM.
 */
int nfswb_json_parse(const char *buf, size_t len, struct nfswb_jval *out,
		     const char **why, size_t *at);

/* nfswb_jval_free() - release a tree from nfswb_json_parse() */
void nfswb_jval_free(struct nfswb_jval *v);

/**
 * nfswb_jget() - a member by path, "bandwidth.bytes_per_s"
 * @v: an object
 * @path: member names separated by '.'
 *
 * Return: the value, or NULL when a step is missing or not an object.
 */
const struct nfswb_jval *nfswb_jget(const struct nfswb_jval *v,
				    const char *path);

/* Typed lookups: @def when the member is missing or of another type. */
const char *nfswb_jget_str(const struct nfswb_jval *v, const char *path,
			   const char *def);
bool nfswb_jget_u64(const struct nfswb_jval *v, const char *path,
		    uint64_t *out);

/**
 * nfswb_jget_count() - a byte count, rate or counter member
 * @v: an object
 * @path: as nfswb_jget()
 * @out: the value, when found
 *
 * Return: 1 found, 0 missing or null, -ERANGE present but no count can
 * have it (a string, a negative number, 2^64 or more, -1e999).
 */
int nfswb_jget_count(const struct nfswb_jval *v, const char *path,
		     uint64_t *out);

/**
 * nfswb_status_load() - read and parse a status.json
 * @path: file
 * @doc: out: the document, an object; free with nfswb_jval_free()
 * @why: out on failure, e.g. "status.json:1 byte 17: expected ':'"
 * @whylen: size of @why
 *
 * Return: 0, or a negative errno (-EINVAL: not a JSON object, -EFBIG:
 * larger than NFSWB_STATUS_MAX_BYTES).
 */
int nfswb_status_load(const char *path, struct nfswb_jval *doc, char *why,
		      size_t whylen);

#endif
