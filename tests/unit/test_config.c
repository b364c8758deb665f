// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_config - nfswb.exports(5): good lines, every error with its exact
 * FILE:LINE, continuation, escapes, default lines, drop-in order,
 * duplicates across files, and the rule that merges exports on a device.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "exports.h"
#include "test.h"

#define MAXE	4

/*
 * One file's text, the exports it yields ("PATH|OPTIONS" with OPTIONS as
 * nfswb_export_opts_format prints them, "@LINE" appended) and the exact
 * messages.  Lines with errors yield nothing; the others still do
 * (nfswb_config_load() then refuses the whole configuration).
 */
static const struct {
	const char *text;
	size_t len;		/* when the text holds a NUL byte */
	const char *exports[MAXE];
	const char *errors[MAXE];
} cases[] = {
	/* good lines */
	{ .text = "",
	  .exports = { NULL },
	  .errors = { NULL } },
	{ .text = "# only a comment\n\n   \t\n",
	  .exports = { NULL },
	  .errors = { NULL } },
	{ .text = "/srv/nfs/home  (background_time=1s,commit_target=3s)\n",
	  .exports = { "/srv/nfs/home|mode=auto,background_time=1s,commit_target=3s,writers=nfsd:ganesha.nfsd@1" } },
	{ .text = "/srv\n",
	  .exports = { "/srv|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@1" } },
	{ .text = "/srv ()\n",
	  .exports = { "/srv|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@1" } },
	{ .text = "/srv(mode=files)", /* no space, no final newline */
	  .exports = { "/srv|mode=files,background_time=1s,writers=nfsd:ganesha.nfsd@1" } },
	{ .text = "  /a ( mode=limit , bandwidth=200M )  # trailing comment\n",
	  .exports = { "/a|mode=limit,background_time=1s,bandwidth=200MiB/s,writers=nfsd:ganesha.nfsd@1" } },
	{ .text = "/a (min_bandwidth=10M,max_bandwidth=1G,writers=nfsd)\n",
	  .exports = { "/a|mode=auto,background_time=1s,min_bandwidth=10MiB/s,max_bandwidth=1GiB/s,writers=nfsd@1" } },
	{ .text = "/a (background_time=1.5s,commit_target=2m,writers=a:b:a)\n",
	  .exports = { "/a|mode=auto,background_time=1.5s,commit_target=120s,writers=a:b@1" } },
	{ .text = "/a (writers=abcdefghijklmno)\n", /* 15 characters: fits */
	  .exports = { "/a|mode=auto,background_time=1s,writers=abcdefghijklmno@1" } },
	{ .text = "/a (mode=off)\r\n", /* CRLF */
	  .exports = { "/a|mode=off,background_time=1s,writers=nfsd:ganesha.nfsd@1" } },
	/* paths: quotes, octal escapes, normalisation */
	{ .text = "/srv/\"with space\"/x (mode=files)\n",	/* as exportfs */
	  .exports = { "/srv/with space/x|mode=files,background_time=1s,writers=nfsd:ganesha.nfsd@1" } },
	{ .text = "\"/srv/with space\" (mode=files)\n",
	  .exports = { "/srv/with space|mode=files,background_time=1s,writers=nfsd:ganesha.nfsd@1" } },
	{ .text = "/srv/octal\\040space\n\"/q\\011tab\"\n",
	  .exports = { "/srv/octal space|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@1",
	    "/q\ttab|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2" } },
	{ .text = "//srv//a/ \n/srv/b#not-a-comment\n/\n",
	  .exports = { "/srv/a|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@1",
	    "/srv/b#not-a-comment|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2",
	    "/|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@3" } },
	/* continuation: the entry keeps the line it starts on */
	{ .text = "# x\n/a \\\n  (mode=files,\\\n   background_time=2s)\n/b\n",
	  .exports = { "/a|mode=files,background_time=2s,writers=nfsd:ganesha.nfsd@2",
	    "/b|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@5" } },
	{ .text = "# comment \\\n/not-swallowed\n/c # also \\\n/d\n", /* as exportfs */
	  .exports = { "/not-swallowed|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2",
		       "/c|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@3",
		       "/d|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@4" } },
	{ .text = "\"/a #b\" (mode=off) #c\n/e#f\n",
	  .exports = { "/a #b|mode=off,background_time=1s,writers=nfsd:ganesha.nfsd@1",
		       "/e#f|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2" } },
	/* default lines apply to the lines after them */
	{ .text = "/a\n-mode=files,background_time=2s\n/b\n/c (mode=kernel)\n-commit_target=5s\n/d\n",
	  .exports = { "/a|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@1",
	    "/b|mode=files,background_time=2s,writers=nfsd:ganesha.nfsd@3",
	    "/c|mode=kernel,background_time=2s,writers=nfsd:ganesha.nfsd@4",
	    "/d|mode=files,background_time=2s,commit_target=5s,writers=nfsd:ganesha.nfsd@6" } },
	{ .text = "-(writers=knfsd)\n/a\n",
	  .exports = { "/a|mode=auto,background_time=1s,writers=knfsd@2" } },
	/* the limits nfswb.exports(5) gives are allowed themselves */
	{ .text = "/a (background_time=2s,commit_target=2s)\n"
		  "/b (background_time=60m,commit_target=60m)\n"
		  "/c (min_bandwidth=100M,max_bandwidth=100M)\n",
	  .exports = { "/a|mode=auto,background_time=2s,commit_target=2s,writers=nfsd:ganesha.nfsd@1",
		       "/b|mode=auto,background_time=3600s,commit_target=3600s,writers=nfsd:ganesha.nfsd@2",
		       "/c|mode=auto,background_time=1s,min_bandwidth=100MiB/s,max_bandwidth=100MiB/s,writers=nfsd:ganesha.nfsd@3" } },

	/* errors, each with its line */
	{ .text = "srv/a\n",
	  .exports = { NULL },
	  .errors = { "T:1: relative path 'srv/a' (exported paths are absolute)" } },
	{ .text = "\n\"/a (mode=off)\n",
	  .exports = { NULL },
	  .errors = { "T:2: unterminated quote in path" } },
	{ .text = "/a\\x\n/b\\0400\n/c\\000\n",
	  .exports = { "/b 0|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2" },
	  .errors = { "T:1: bad escape '\\x' in path (use three octal digits, e.g. \\040 for a space)",
	    "T:3: escape '\\000' (NUL) in path" } },
	{ .text = "/a (mode=fast)\n",
	  .exports = { NULL },
	  .errors = { "T:1: mode=fast: unknown mode (use auto, kernel, files, limit or off)" } },
	{ .text = "/a (speed=1)\n/b (background-time=1s)\n",
	  .exports = { NULL },
	  .errors = { "T:1: unknown option 'speed'",
	    "T:2: unknown option 'background-time' (option names use '_')" } },
	{ .text = "/a (mode=off,mode=off)\n",
	  .exports = { NULL },
	  .errors = { "T:1: option 'mode' given twice" } },
	{ .text = "/a (mode)\n/b (commit_target=)\n",
	  .exports = { NULL },
	  .errors = { "T:1: option 'mode' needs a value",
	    "T:2: option 'commit_target' needs a value" } },
	{ .text = "/a (mode=off,,writers=x)\n/b (=1)\n",
	  .exports = { NULL },
	  .errors = { "T:1: empty option in the list", "T:2: option without a name" } },
	{ .text = "/a (background_time=0)\n",
	  .exports = { NULL },
	  .errors = { "T:1: background_time=0: must be above 0 (to leave an export alone, use mode=off)" } },
	/* background_time=2 once meant 2 ms: the unit is required */
	{ .text = "/a (background_time=2)\n\n/b (commit_target=2.5)\n",
	  .exports = { NULL },
	  .errors = { "T:1: background_time=2: a duration needs a unit: ms, s or m (e.g. 2s or 250ms)",
		      "T:3: commit_target=2.5: a duration needs a unit: ms, s or m (e.g. 2s or 250ms)" } },
	{ .text = "/a (background_time=61m)\n/b (commit_target=-1s)\n",
	  .exports = { NULL },
	  .errors = { "T:1: background_time=61m: longer than the limit of 60m",
	    "T:2: commit_target=-1s: negative value" } },
	{ .text = "/a (bandwidth=0)\n/b (bandwidth=2T)\n/c (max_bandwidth=1Gbit)\n",
	  .exports = { NULL },
	  .errors = { "T:1: bandwidth=0: must be above 0 (leave it out to estimate the rate)",
	    "T:2: bandwidth=2T: above the limit of 1TiB/s",
	    "T:3: max_bandwidth=1Gbit: unknown rate unit (use k, M, G or T, optionally with iB and /s)" } },
	/* background_min: a size within 64KiB..1GiB; the default is not printed */
	{ .text = "/a (background_min=512K)\n/b (background_min=64KiB)\n"
		  "/c (background_min=1G)\n/d (background_min=8M)\n",
	  .exports = { "/a|mode=auto,background_time=1s,background_min=512KiB,writers=nfsd:ganesha.nfsd@1",
		       "/b|mode=auto,background_time=1s,background_min=64KiB,writers=nfsd:ganesha.nfsd@2",
		       "/c|mode=auto,background_time=1s,background_min=1GiB,writers=nfsd:ganesha.nfsd@3",
		       "/d|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@4" } },
	{ .text = "/a (background_min=0)\n/b (background_min=65535)\n"
		  "/c (background_min=1025M)\n/d (background_min=1ms)\n",
	  .exports = { NULL },
	  .errors = { "T:1: background_min=0: outside 64KiB..1GiB",
		      "T:2: background_min=65535: outside 64KiB..1GiB",
		      "T:3: background_min=1025M: outside 64KiB..1GiB",
		      "T:4: background_min=1ms: unknown size unit (use k, M, G or T, optionally with iB)" } },
	{ .text = "/a (min_bandwidth=200M,max_bandwidth=100M)\n",
	  .exports = { NULL },
	  .errors = { "T:1: /a: min_bandwidth (200MiB/s) is above max_bandwidth (100MiB/s)" } },
	{ .text = "/a (background_time=2s,commit_target=1s)\n",
	  .exports = { NULL },
	  .errors = { "T:1: /a: commit_target (1s) is shorter than background_time (2s)" } },
	{ .text = "/a (writers=abcdefghijklmnop)\n/b (writers=a::b)\n/c (writers=a:b:c:d:e:f:g:h:i)\n",
	  .exports = { NULL },
	  .errors = { "T:1: writers=abcdefghijklmnop: process name 'abcdefghijklmnop' is longer than 15 characters (the kernel's comm)",
	    "T:2: writers=a::b: empty process name",
	    "T:3: writers=a:b:c:d:e:f:g:h:i: more than 8 process names" } },
	/*
	 * One error, no follow-on: commit_target=500ms is shorter than the
	 * 1 s left in place of the bad background_time, not than the 250 ms
	 * meant.  A bad default line changes no default.
	 */
	{ .text = "-background_time=250,commit_target=500ms\n/a\n"
		  "/b (background_time=250,commit_target=500ms)\n",
	  .exports = { "/a|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2" },
	  .errors = { "T:1: background_time=250: a duration needs a unit: ms, s or m (e.g. 2s or 250ms)",
		      "T:3: background_time=250: a duration needs a unit: ms, s or m (e.g. 2s or 250ms)" } },
	/* found by fuzz_config: a name that breaks the option syntax */
	{ .text = "-writers=5s)\n/c\n/d (writers=a b)\n",
	  .exports = { "/c|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2" },
	  .errors = { "T:1: writers=5s): process name '5s)' may not hold blanks, control characters or any of ( ) , = # \" \\",
		      "T:3: writers=a b: process name 'a b' may not hold blanks, control characters or any of ( ) , = # \" \\" } },
	{ .text = "/a (mode=off\n/b mode=off\n/c (mode=off) x\n",
	  .exports = { NULL },
	  .errors = { "T:1: missing ')' after the options of /a",
	    "T:2: expected '(' or end of line after /b, found 'mode=off'",
	    "T:3: unexpected text 'x' after the option list" } },
	{ .text = "/a\n# comment\n/b\n//a/\n",
	  .exports = { "/a|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@1",
		       "/b|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@3" },
	  .errors = { "T:4: /a configured twice (first at T:1)" } },
	{ .text = "\"\"\n\"/a\"\"b c\"\n-\n-bogus=1\n",
	  .exports = { "/ab c|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@2" },
	  .errors = { "T:1: empty path",
	    "T:3: '-' without default options", "T:4: unknown option 'bogus'" } },
	/* all errors of a line and of a file, lines after continuations */
	{ .text = "/a \\\n (mode=x,\\\n  foo=1)\n/b (mode=x)\n",
	  .exports = { NULL },
	  .errors = { "T:1: mode=x: unknown mode (use auto, kernel, files, limit or off)",
	    "T:1: unknown option 'foo'",
	    "T:4: mode=x: unknown mode (use auto, kernel, files, limit or off)" } },
	{ .text = "/a\n/b\0\n/c (mode=x)\n",
	  .len = sizeof("/a\n/b\0\n/c (mode=x)\n") - 1,
	  .exports = { "/a|mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd@1" },
	  .errors = { "T:2: NUL byte in line",
		      "T:3: mode=x: unknown mode (use auto, kernel, files, limit or off)" } },
};

static void check_case(size_t i)
{
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	const char *text = cases[i].text;
	size_t len = cases[i].len ? cases[i].len : strlen(text);
	size_t k, nexp = 0, nerr = 0;
	int ret;

	ret = nfswb_config_parse_buffer("T", text, len, NULL, &cfg, &diag);

	while (nexp < MAXE && cases[i].exports[nexp])
		nexp++;
	while (nerr < MAXE && cases[i].errors[nerr])
		nerr++;
	T_CHECK((size_t)ret == nfswb_diag_errors(&diag),
		"case %zu: returned %d for %zu messages", i, ret, diag.count);
	T_CHECK(diag.count == nerr, "case %zu: %zu messages, want %zu%s%s", i,
		diag.count, nerr, diag.count ? "; first: " : "",
		diag.count ? diag.msgs[0] : "");
	for (k = 0; k < nerr && k < diag.count; k++)
		T_CHECK(!strcmp(diag.msgs[k], cases[i].errors[k]),
			"case %zu:\n  got  '%s'\n  want '%s'", i, diag.msgs[k],
			cases[i].errors[k]);
	T_CHECK(cfg.count == nexp, "case %zu: %zu exports, want %zu", i,
		cfg.count, nexp);
	for (k = 0; k < nexp && k < cfg.count; k++) {
		char opts[512], got[1024];

		nfswb_export_opts_format(&cfg.exports[k].opts, opts,
					 sizeof(opts));
		snprintf(got, sizeof(got), "%s|%s@%u", cfg.exports[k].path,
			 opts, cfg.exports[k].line);
		T_CHECK(!strcmp(got, cases[i].exports[k]),
			"case %zu:\n  got  '%s'\n  want '%s'", i, got,
			cases[i].exports[k]);
		T_CHECK(!strcmp(cfg.exports[k].file, "T"), "case %zu: file",
			i);
	}
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);
}

/* Defaults passed in (from nfs.conf) are where each file starts. */
static void check_caller_defaults(void)
{
	static const char text[] = "/a\n-mode=files\n/b\n";
	struct nfswb_export_opts d;
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	char why[128];

	nfswb_export_opts_default(&d);
	T_CHECK(!nfswb_export_opt_set(&d, "background_time", "3s", why,
				      sizeof(why)), "%s", why);
	nfswb_config_parse_buffer("T", text, sizeof(text) - 1, &d, &cfg, &diag);
	nfswb_config_parse_buffer("U", "/c\n", 3, &d, &cfg, &diag);
	T_CHECK(diag.count == 0 && cfg.count == 3, "defaults: %zu/%zu",
		diag.count, cfg.count);
	if (cfg.count == 3) {
		T_CHECK(cfg.exports[0].opts.background_time_ms == 3000 &&
			cfg.exports[0].opts.mode == NFSWB_MODE_AUTO, "/a");
		T_CHECK(cfg.exports[1].opts.mode == NFSWB_MODE_FILES &&
			cfg.exports[1].opts.background_time_ms == 3000, "/b");
		/* a default line does not leak into the next file */
		T_CHECK(cfg.exports[2].opts.mode == NFSWB_MODE_AUTO, "/c");
		T_CHECK(cfg.exports[1].opts.set ==
			(NFSWB_OPT_MODE | NFSWB_OPT_BG_TIME), "set bits %#x",
			cfg.exports[1].opts.set);
	}
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);
}

static char tmpdir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
}

/* Drop-ins in version order; duplicates across files name both places. */
static void check_load(void)
{
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	char main_file[128], dir[128], want[512];
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_config.XXXXXX");
	if (!mkdtemp(tmpdir))
		T_SKIP("mkdtemp: %m");
	snprintf(main_file, sizeof(main_file), "%s/nfswb.exports", tmpdir);
	snprintf(dir, sizeof(dir), "%s/d", tmpdir);

	/* neither file nor directory: fine unless the file is required */
	ret = nfswb_config_load(main_file, false, dir, NULL, &cfg, &diag);
	T_CHECK(ret == 0 && cfg.count == 0 && diag.count == 0,
		"missing optional: %d", ret);
	ret = nfswb_config_load(main_file, true, dir, NULL, &cfg, &diag);
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory",
		 main_file);
	T_CHECK(ret == -EINVAL && diag.count == 1 &&
		!strcmp(diag.msgs[0], want),
		"missing required: %d %s", ret,
		diag.count ? diag.msgs[0] : "");
	nfswb_diag_clear(&diag);

	if (mkdir(dir, 0700))
		T_SKIP("mkdir: %m");
	put("nfswb.exports", "/main\n");
	put("d/10-b.exports", "/ten\n");
	put("d/9-a.exports", "-mode=files\n/nine\n");
	put("d/.hidden.exports", "bad line\n");
	put("d/README", "bad line\n");
	put("d/x.exports.bak", "bad line\n");
	ret = nfswb_config_load(main_file, true, dir, NULL, &cfg, &diag);
	T_CHECK(ret == 0 && diag.count == 0, "load: %d %s", ret,
		diag.count ? diag.msgs[0] : "");
	T_CHECK(cfg.count == 3, "load: %zu exports", cfg.count);
	if (cfg.count == 3) {
		T_CHECK(!strcmp(cfg.exports[0].path, "/main") &&
			!strcmp(cfg.exports[1].path, "/nine") &&
			!strcmp(cfg.exports[2].path, "/ten"),
			"order: %s %s %s", cfg.exports[0].path,
			cfg.exports[1].path, cfg.exports[2].path);
		T_CHECK(cfg.exports[1].opts.mode == NFSWB_MODE_FILES &&
			cfg.exports[2].opts.mode == NFSWB_MODE_AUTO,
			"defaults stay in their file");
		T_CHECK(strstr(cfg.exports[1].file, "/d/9-a.exports") &&
			cfg.exports[1].line == 2, "where: %s:%u",
			cfg.exports[1].file, cfg.exports[1].line);
	}
	nfswb_config_free(&cfg);

	/* one bad drop-in: everything is refused, every error listed */
	put("d/20-c.exports", "\n/main (mode=files)\n/x (mode=?)\n");
	ret = nfswb_config_load(main_file, true, dir, NULL, &cfg, &diag);
	T_CHECK(ret == -EINVAL && cfg.count == 0 && cfg.exports == NULL,
		"bad drop-in: %d, %zu exports", ret, cfg.count);
	T_CHECK(diag.count == 2, "bad drop-in: %zu messages", diag.count);
	snprintf(want, sizeof(want),
		 "%s/20-c.exports:2: /main configured twice (first at %s:1)",
		 dir, main_file);
	T_CHECK(diag.count > 0 && !strcmp(diag.msgs[0], want),
		"\n  got  '%s'\n  want '%s'", diag.count ? diag.msgs[0] : "",
		want);
	nfswb_diag_clear(&diag);

	unlink(main_file);
	snprintf(want, sizeof(want), "%s/d/20-c.exports", tmpdir);
	unlink(want);
	put("d/20-c.exports", "/main\n");
	ret = nfswb_config_load(main_file, false, dir, NULL, &cfg, &diag);
	T_CHECK(ret == 0 && cfg.count == 3, "after fix: %d %zu", ret,
		cfg.count);
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);

	{
		static const char *const files[] = {
			"d/10-b.exports", "d/9-a.exports", "d/.hidden.exports",
			"d/README", "d/x.exports.bak", "d/20-c.exports",
		};
		char path[256];
		size_t i;

		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", tmpdir, files[i]);
			unlink(path);
		}
		rmdir(dir);
		rmdir(tmpdir);
	}
}

/*
 * Duplicate paths are found by hashing: 100,000 exports must cost a
 * number of path comparisons in proportion, not n^2/2 (the scan before
 * took minutes).  Counted, not timed.
 */
static void check_scale(void)
{
	const size_t n = 100000;
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	size_t len = 0, i;
	char *buf = malloc(n * 16 + 32);
	int errors;

	if (!buf) {
		T_CHECK(0, "out of memory");
		return;
	}
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(buf + len, "/e/%zu\n", i);
	len += (size_t)sprintf(buf + len, "/e/%zu\n", n / 2);
	errors = nfswb_config_parse_buffer("big", buf, len, NULL, &cfg, &diag);
	T_CHECK(errors == 1 && cfg.count == n, "%d errors, %zu exports",
		errors, cfg.count);
	T_CHECK(diag.count == 1 &&
		!strcmp(diag.msgs[0],
			"big:100001: /e/50000 configured twice (first at big:50001)"),
		"%s", diag.count ? diag.msgs[0] : "");
	/* A lookup and an insert per line, and rehashing as the table doubles. */
	T_CHECK(cfg.path_compares <= 4 * n,
		"%llu path comparisons for %zu exports",
		(unsigned long long)cfg.path_compares, n);
	printf("%zu exports: %llu path comparisons\n", n,
	       (unsigned long long)cfg.path_compares);
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);
	free(buf);
}

/*
 * What only the filesystem tells: a symlink to an export is the same
 * export, a regular file is no export; /proc/self/mem (st_size 0, yet
 * not empty) is not read as an empty file; /dev/null is one.
 */
static void check_paths(void)
{
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	char dir[160], want[600], conf[160];
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_config.XXXXXX");
	if (!mkdtemp(tmpdir))
		T_SKIP("mkdtemp: %m");
	snprintf(dir, sizeof(dir), "%s/dir", tmpdir);
	snprintf(conf, sizeof(conf), "%s/paths.exports", tmpdir);
	if (mkdir(dir, 0700))
		T_SKIP("mkdir: %m");
	put("file", "");
	snprintf(want, sizeof(want), "%s/link", tmpdir);
	if (symlink("dir", want))
		T_SKIP("symlink: %m");
	snprintf(want, sizeof(want), "%s/dir\n%s/link (mode=files)\n%s/file\n",
		 tmpdir, tmpdir, tmpdir);
	put("paths.exports", want);
	ret = nfswb_config_load(conf, true, NULL, NULL, &cfg, &diag);
	T_CHECK(ret == -EINVAL && cfg.count == 0 && diag.count == 2,
		"paths: %d, %zu messages", ret, diag.count);
	snprintf(want, sizeof(want),
		 "%s:2: %s/link is the directory %s/dir (first at %s:1) under another name: configured twice",
		 conf, tmpdir, tmpdir, conf);
	T_CHECK(diag.count > 1 && !strcmp(diag.msgs[1], want),
		"\n  got  '%s'\n  want '%s'", diag.count > 1 ? diag.msgs[1] : "",
		want);
	snprintf(want, sizeof(want),
		 "%s:3: %s/file is not a directory (an export is a directory tree)",
		 conf, tmpdir);
	T_CHECK(diag.count > 0 && !strcmp(diag.msgs[0], want),
		"\n  got  '%s'\n  want '%s'", diag.count ? diag.msgs[0] : "",
		want);
	nfswb_diag_clear(&diag);

	ret = nfswb_config_load("/proc/self/mem", true, NULL, NULL, &cfg,
				&diag);
	T_CHECK(ret == -EINVAL && diag.count == 1 &&
		!strcmp(diag.msgs[0],
			"/proc/self/mem: cannot read: Input/output error"),
		"/proc/self/mem: %d %s", ret, diag.count ? diag.msgs[0] : "");
	nfswb_diag_clear(&diag);
	ret = nfswb_config_load("/dev/null", true, NULL, NULL, &cfg, &diag);
	T_CHECK(ret == 0 && cfg.count == 0 && diag.count == 0,
		"/dev/null: %d %s", ret, diag.count ? diag.msgs[0] : "");
	nfswb_diag_clear(&diag);
	ret = nfswb_config_load("/dev/zero", true, NULL, NULL, &cfg, &diag);
	T_CHECK(ret == -EINVAL && diag.count == 1 &&
		!strcmp(diag.msgs[0], "/dev/zero: not a regular file"),
		"/dev/zero: %d %s", ret, diag.count ? diag.msgs[0] : "");
	nfswb_diag_clear(&diag);

	unlink(conf);
	snprintf(want, sizeof(want), "%s/link", tmpdir);
	unlink(want);
	snprintf(want, sizeof(want), "%s/file", tmpdir);
	unlink(want);
	rmdir(dir);
	rmdir(tmpdir);
}

/* How exports on one device combine (nfswb.exports(5), "One device"). */
static const struct {
	const char *a, *b;
	const char *want;	/* merged, formatted; or the error */
	bool ok;
} merges[] = {
	{ "", "", "mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd", true },
	{ "mode=auto", "mode=files", "mode=files,background_time=1s,writers=nfsd:ganesha.nfsd", true },
	{ "mode=limit", "", "mode=limit,background_time=1s,writers=nfsd:ganesha.nfsd", true },
	{ "mode=kernel", "mode=kernel", "mode=kernel,background_time=1s,writers=nfsd:ganesha.nfsd", true },
	{ "mode=kernel", "mode=files", "mode=kernel and mode=files on one device", false },
	{ "mode=off", "mode=files", "mode=off and mode=files on one device", false },
	{ "background_time=3s", "background_time=500ms", "mode=auto,background_time=500ms,writers=nfsd:ganesha.nfsd", true },
	{ "background_min=512K", "", "mode=auto,background_time=1s,background_min=512KiB,writers=nfsd:ganesha.nfsd", true },
	{ "background_min=2M", "background_min=1M", "mode=auto,background_time=1s,background_min=1MiB,writers=nfsd:ganesha.nfsd", true },
	{ "commit_target=5s", "", "mode=auto,background_time=1s,commit_target=5s,writers=nfsd:ganesha.nfsd", true },
	{ "commit_target=5s", "commit_target=3s", "mode=auto,background_time=1s,commit_target=3s,writers=nfsd:ganesha.nfsd", true },
	{ "bandwidth=100M", "", "mode=auto,background_time=1s,bandwidth=100MiB/s,writers=nfsd:ganesha.nfsd", true },
	{ "bandwidth=100M", "bandwidth=50M", "mode=auto,background_time=1s,bandwidth=50MiB/s,writers=nfsd:ganesha.nfsd", true },
	{ "min_bandwidth=10M", "min_bandwidth=20M", "mode=auto,background_time=1s,min_bandwidth=20MiB/s,writers=nfsd:ganesha.nfsd", true },
	{ "max_bandwidth=1G", "", "mode=auto,background_time=1s,max_bandwidth=1GiB/s,writers=nfsd:ganesha.nfsd", true },
	{ "max_bandwidth=1G", "max_bandwidth=500M", "mode=auto,background_time=1s,max_bandwidth=500MiB/s,writers=nfsd:ganesha.nfsd", true },
	{ "min_bandwidth=200M", "max_bandwidth=100M", "min_bandwidth (200MiB/s) is above max_bandwidth (100MiB/s)", false },
	{ "writers=nfsd", "writers=ganesha.nfsd:nfsd:x", "mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd:x", true },
	{ "writers=a:b:c:d:e", "writers=e:f:g:h", "mode=auto,background_time=1s,writers=a:b:c:d:e:f:g:h", true },
	{ "writers=a:b:c:d:e", "writers=f:g:h:i", "more than 8 writers on one device", false },
};

static int opts_from(const char *text, struct nfswb_export_opts *o)
{
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	char line[256];
	int ret;

	snprintf(line, sizeof(line), "/x (%s)\n", text);
	ret = nfswb_config_parse_buffer("M", line, strlen(line), NULL, &cfg,
					&diag);
	if (ret == 0 && cfg.count == 1)
		*o = cfg.exports[0].opts;
	else
		ret = -1;
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);
	return ret;
}

static int cmp_writer(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Equal, with the writers compared as a set (a union has no order). */
static bool same_merged(const struct nfswb_export_opts *a,
			const struct nfswb_export_opts *b)
{
	struct nfswb_export_opts x = *a, y = *b;

	qsort(x.writers, x.nwriters, sizeof(x.writers[0]), cmp_writer);
	qsort(y.writers, y.nwriters, sizeof(y.writers[0]), cmp_writer);
	return x.set == y.set && nfswb_export_opts_equal(&x, &y);
}

static void check_merge(void)
{
	size_t i;

	for (i = 0; i < sizeof(merges) / sizeof(merges[0]); i++) {
		struct nfswb_export_opts a, b, before, back;
		char why[256] = "", got[512];
		int ret;

		if (opts_from(merges[i].a, &a) || opts_from(merges[i].b, &b)) {
			T_CHECK(0, "merge %zu: bad table entry", i);
			continue;
		}
		before = a;
		ret = nfswb_export_opts_merge(&a, &b, why, sizeof(why));
		if (merges[i].ok) {
			T_CHECK(ret == 0, "merge %zu: %s", i, why);
			nfswb_export_opts_format(&a, got, sizeof(got));
			T_CHECK(!strcmp(got, merges[i].want),
				"merge %zu:\n  got  '%s'\n  want '%s'", i, got,
				merges[i].want);
			/* The merged list parses back to the same options. */
			T_CHECK(opts_from(got, &back) == 0 &&
				nfswb_export_opts_equal(&back, &a),
				"merge %zu: '%s' does not parse back", i, got);
			/* and the rule is symmetric (writers as a set) */
			ret = nfswb_export_opts_merge(&b, &before, why,
						      sizeof(why));
			nfswb_export_opts_format(&b, got, sizeof(got));
			T_CHECK(ret == 0 && same_merged(&a, &b),
				"merge %zu reversed: '%s'", i, got);
		} else {
			T_CHECK(ret == -EINVAL, "merge %zu: accepted", i);
			T_CHECK(!strcmp(why, merges[i].want),
				"merge %zu:\n  got  '%s'\n  want '%s'", i, why,
				merges[i].want);
			T_CHECK(!memcmp(&a, &before, sizeof(a)),
				"merge %zu: changed on error", i);
		}
	}
}

/* The shipped doc/example.exports and the man page's example parse. */
static void check_examples(void)
{
	static const char man_example[] =
		"/srv/nfs/home      (background_time=1s,commit_target=3s)\n"
		"\"/srv/nfs/scratch area\"   (mode=files,bandwidth=800M)\n"
		"-mode=files,writers=ganesha.nfsd\n"
		"/srv/ganesha/a\n"
		"/srv/ganesha/b     (min_bandwidth=50M,\\\n"
		"                    max_bandwidth=2G)\n";
	struct nfswb_config cfg = { 0 };
	struct nfswb_diag diag = { 0 };
	struct nfswb_export_opts merged;
	const char *srcdir = getenv("srcdir");
	char path[512], why[256] = "";
	size_t i;

	nfswb_config_parse_buffer("man", man_example, sizeof(man_example) - 1,
				  NULL, &cfg, &diag);
	T_CHECK(diag.count == 0 && cfg.count == 4, "man example: %zu, %s",
		cfg.count, diag.count ? diag.msgs[0] : "");
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);

	snprintf(path, sizeof(path), "%s/../doc/example.exports",
		 srcdir ? srcdir : ".");
	T_CHECK(nfswb_config_load(path, true, NULL, NULL, &cfg, &diag) == 0,
		"%s: %s", path, diag.count ? diag.msgs[0] : "");
	T_CHECK(cfg.count == 2, "%s: %zu exports", path, cfg.count);
	/* Both may sit on one disk: they must combine. */
	if (cfg.count) {
		merged = cfg.exports[0].opts;
		for (i = 1; i < cfg.count; i++)
			T_CHECK(!nfswb_export_opts_merge(&merged,
							 &cfg.exports[i].opts,
							 why, sizeof(why)),
				"example exports do not combine: %s", why);
		nfswb_export_opts_format(&merged, path, sizeof(path));
		T_CHECK(!strcmp(path, "mode=auto,background_time=500ms,commit_target=3s,max_bandwidth=2GiB/s,writers=nfsd:ganesha.nfsd"),
			"combined example: %s", path);
	}
	nfswb_config_free(&cfg);
	nfswb_diag_clear(&diag);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(i);
	check_caller_defaults();
	check_merge();
	check_load();
	check_scale();
	check_paths();
	check_examples();
	return t_result();
}
