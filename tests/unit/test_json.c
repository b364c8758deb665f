// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_json - strings as the JSON writer puts them: escapes, and bytes
 * that are not UTF-8 (an export path may hold any) turned into U+FFFD so
 * that status.json stays valid JSON.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "test.h"

static const struct {
	const char *in, *want;
} cases[] = {
	{ "/srv/plain", "\"/srv/plain\"" },
	{ "a\"b\\c\n\t\x01", "\"a\\\"b\\\\c\\n\\t\\u0001\"" },
	{ "/srv/caf\xc3\xa9", "\"/srv/caf\xc3\xa9\"" },		/* é, kept */
	{ "/srv/\xf0\x9f\x98\x80", "\"/srv/\xf0\x9f\x98\x80\"" },	/* U+1F600 */
	{ "/srv/latin1-\xe9t\xe9", "\"/srv/latin1-\\ufffdt\\ufffd\"" },
	{ "/srv/\xc0\xaf", "\"/srv/\\ufffd\\ufffd\"" },		/* overlong '/' */
	{ "/srv/\xed\xa0\x80", "\"/srv/\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
	{ "/srv/\xe2\x82", "\"/srv/\\ufffd\\ufffd\"" },		/* cut short */
	{ "/srv/\xff", "\"/srv/\\ufffd\"" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nfswb_json j;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			T_SKIP("open_memstream failed");
		nfswb_json_init(&j, f, false);
		nfswb_json_str(&j, NULL, cases[i].in);
		fclose(f);
		T_CHECK(!strcmp(buf, cases[i].want), "case %zu: got %s want %s",
			i, buf, cases[i].want);
		free(buf);
	}
	return t_result();
}
