// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_status - libFuzzer target for the status.json parser
 * (lib/statusfile.c), the one reader every tool uses.
 *
 * Invariants beyond "no crash, no leak, no undefined behaviour": a
 * rejected document has a reason and an offset inside the input; an
 * accepted one has object members with names and string values free of
 * NUL bytes, and the typed lookups agree with the tree.
 *
 * As fuzz_trace: a libFuzzer target with -DNFSWB_LIBFUZZER, else a check
 * program replaying $srcdir/fuzz/corpus-status.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "statusfile.h"

static void check_tree(const struct nfswb_jval *v, int depth)
{
	FUZZ_CHECK(depth <= NFSWB_STATUS_MAX_DEPTH + 1);
	if (v->type == NFSWB_J_STR)
		FUZZ_CHECK(v->str != NULL);
	FUZZ_CHECK(v->nkids == 0 || v->type == NFSWB_J_ARR ||
		   v->type == NFSWB_J_OBJ);
	for (size_t i = 0; i < v->nkids; i++) {
		const struct nfswb_jval *k = &v->kids[i];

		FUZZ_CHECK((v->type == NFSWB_J_OBJ) == (k->key != NULL));
		if (v->type == NFSWB_J_OBJ && k->key[0] &&
		    !strchr(k->key, '.')) {
			const struct nfswb_jval *g = nfswb_jget(v, k->key);
			uint64_t u;

			/* The first member of a name is the one found. */
			FUZZ_CHECK(g && !strcmp(g->key, k->key));
			if (nfswb_jget_u64(v, k->key, &u))
				FUZZ_CHECK(g->type == NFSWB_J_NUM &&
					   g->num >= 0);
		}
		check_tree(k, depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfswb_jval v;
	const char *why;
	size_t at;
	int r;

	r = nfswb_json_parse((const char *)data, size, &v, &why, &at);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r) {
		FUZZ_CHECK(why && *why);
		FUZZ_CHECK(at <= size);
		return 0;
	}
	check_tree(&v, 0);
	nfswb_jval_free(&v);
	return 0;
}
