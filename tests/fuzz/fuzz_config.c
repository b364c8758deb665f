// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_config - libFuzzer target for the two configuration parsers: the
 * same bytes go to nfswb_config_parse_buffer() (nfswb.exports(5)) and to
 * nfswb_nfsconf_parse_buffer() (nfs.conf(5), includes not followed).
 *
 * Besides "no crash, no leak, no undefined behaviour" it checks what must
 * hold for any input: every export is an absolute path, its options pass
 * the one-export rules, their canonical text parses back to the same
 * options, and merging exports never yields an invalid combination.
 *
 * Built with -DNFSWB_LIBFUZZER (configure --enable-fuzzers, clang) it is
 * a libFuzzer target; without, linked with replay.c, it is a check
 * program that replays the committed corpus in $srcdir/fuzz/corpus-config
 * (or the files and directories named on its command line).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "diag.h"
#include "exports.h"
#include "nfsconf.h"

static void check_export(const struct nfswb_export *e)
{
	struct nfswb_config again = { 0 };
	struct nfswb_diag diag = { 0 };
	char opts[1024], line[1200], why[256];

	FUZZ_CHECK(e->path[0] == '/');
	FUZZ_CHECK(e->line > 0);
	FUZZ_CHECK(nfswb_export_opts_check(&e->opts, why, sizeof(why)) == 0);
	nfswb_export_opts_format(&e->opts, opts, sizeof(opts));
	snprintf(line, sizeof(line), "/x (%s)\n", opts);
	FUZZ_CHECK(nfswb_config_parse_buffer("again", line, strlen(line), NULL,
					&again, &diag) == 0);
	FUZZ_CHECK(again.count == 1 &&
		   nfswb_export_opts_equal(&again.exports[0].opts, &e->opts));
	nfswb_config_free(&again);
	nfswb_diag_clear(&diag);
}

static void fuzz_exports(const uint8_t *data, size_t size)
{
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	struct nfswb_export_opts merged;
	char why[256];
	size_t i, j;
	int errors;

	errors = nfswb_config_parse_buffer("fuzz", (const char *)data, size,
					   NULL, &cfg, &diag);
	FUZZ_CHECK(errors >= 0 && (size_t)errors == nfswb_diag_errors(&diag));
	for (i = 0; i < cfg.count; i++) {
		check_export(&cfg.exports[i]);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(cfg.exports[i].path,
				     cfg.exports[j].path) != 0);
	}
	/* Fold every export into one device, as the daemon may. */
	if (cfg.count) {
		merged = cfg.exports[0].opts;
		for (i = 1; i < cfg.count; i++)
			if (nfswb_export_opts_merge(&merged,
						    &cfg.exports[i].opts, why,
						    sizeof(why)) == 0)
				FUZZ_CHECK(nfswb_export_opts_check(&merged, why,
							      sizeof(why)) == 0);
	}
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);
}

static void fuzz_nfsconf(const uint8_t *data, size_t size)
{
	static const char *const keys[][2] = {
		{ "nfswbd", "mode" }, { "nfswbd", "writers" },
		{ "nfsd", "threads" }, { "environment", "x" }, { "a", "b" },
	};
	struct nfswb_export_opts d;
	struct nfswb_diag diag = { 0 };
	struct nfswb_nfsconf *c = NULL;
	size_t i;

	nfswb_nfsconf_parse_buffer("fuzz.conf", (const char *)data, size,
				   false, &c, &diag);
	if (c) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const char *v = nfswb_nfsconf_get(c, keys[i][0],
							  keys[i][1]);

			FUZZ_CHECK(!v || *v);	/* empty values are never set */
			(void)nfswb_nfsconf_get_bool(c, keys[i][0], keys[i][1],
						     true);
		}
		nfswb_export_opts_default(&d);
		if (nfswb_nfsconf_daemon_defaults(c, "fuzz.conf", &d,
						  &diag) == 0) {
			char why[256];

			FUZZ_CHECK(nfswb_export_opts_check(&d, why,
						      sizeof(why)) == 0);
		}
	}
	nfswb_nfsconf_free(c);
	nfswb_diag_clear(&diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_exports(data, size);
	fuzz_nfsconf(data, size);
	return 0;
}
