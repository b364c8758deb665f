// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_nfsconf - the [nfswbd] section: export option defaults with their
 * errors as FILE:LINE, unknown keys, and the strict loader.  (That values
 * equal nfsconf --get is test_nfsconf.sh.)
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "exports.h"
#include "nfsconf.h"
#include "test.h"

#define MAXM	3

static const struct {
	const char *text;
	const char *want;		/* formatted defaults, or NULL */
	const char *errors[MAXM];
} cases[] = {
	{ .text = "",
	  .want = "mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd" },
	{ .text = "[nfswbd]\nmode = files\nbackground-time = 2s\n"
		  "commit-target = 5s\nwriters = nfsd\n",
	  .want = "mode=files,background_time=2s,commit_target=5s,writers=nfsd" },
	{ .text = "[NFSWBD]\nMode = \"limit\"\nbandwidth = 100M # fixed\n"
		  "min-bandwidth = 10M\nmax-bandwidth = 1G\n",
	  .want = "mode=limit,background_time=1s,bandwidth=100MiB/s,min_bandwidth=10MiB/s,max_bandwidth=1GiB/s,writers=nfsd:ganesha.nfsd" },
	{ .text = "[nfswbd]\nbackground-time = 100ms\nbackground-min = 512K\n",
	  .want = "mode=auto,background_time=100ms,background_min=512KiB,writers=nfsd:ganesha.nfsd" },
	/* [nfswbd "x"] is not ours */
	{ .text = "[nfswbd]\nmode = kernel\n[nfswbd \"x\"]\nbogus = 1\n",
	  .want = "mode=kernel,background_time=1s,writers=nfsd:ganesha.nfsd" },
	{ .text = "[environment]\nbt = 3s\n[nfswbd]\nbackground-time = $bt\n",
	  .want = "mode=auto,background_time=3s,writers=nfsd:ganesha.nfsd" },
	/* errors name the line of the key */
	{ .text = "[nfswbd]\n\nbackground-time = 0\nmode = fast\n",
	  .errors = { "C:4: [nfswbd] mode = fast: unknown mode (use auto, kernel, files, limit or off)",
		      "C:3: [nfswbd] background-time = 0: must be above 0 (to leave an export alone, use mode=off)" } },
	{ .text = "[nfswbd]\nbackground-min = 2G\n",
	  .errors = { "C:2: [nfswbd] background-min = 2G: outside 64KiB..1GiB" } },
	{ .text = "[nfswbd]\nwriters = a_process_name_too_long\n",
	  .errors = { "C:2: [nfswbd] writers = a_process_name_too_long: process name 'a_process_name_too_long' is longer than 15 characters (the kernel's comm)" } },
	{ .text = "[nfswbd]\nmin-bandwidth = 2G\nmax-bandwidth = 1G\n",
	  .errors = { "C: [nfswbd] min_bandwidth (2GiB/s) is above max_bandwidth (1GiB/s)" } },
};

static void check_defaults(void)
{
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nfswb_diag diag = { 0 };
		struct nfswb_export_opts d, before;
		struct nfswb_nfsconf *c;
		size_t nerr = 0;
		char got[512];
		int ret;

		T_CHECK(nfswb_nfsconf_parse_buffer("C", cases[i].text,
						   strlen(cases[i].text), false,
						   &c, &diag) == 0 && c,
			"case %zu: parse: %s", i,
			diag.count ? diag.msgs[0] : "out of memory");
		nfswb_export_opts_default(&d);
		before = d;
		ret = nfswb_nfsconf_daemon_defaults(c, "C", &d, &diag);
		while (nerr < MAXM && cases[i].errors[nerr])
			nerr++;
		if (cases[i].want) {
			nfswb_export_opts_format(&d, got, sizeof(got));
			T_CHECK(ret == 0 && !strcmp(got, cases[i].want),
				"case %zu: %d\n  got  '%s'\n  want '%s'", i, ret,
				got, cases[i].want);
		} else {
			T_CHECK(ret == -EINVAL, "case %zu: accepted", i);
			T_CHECK(!memcmp(&d, &before, sizeof(d)),
				"case %zu: defaults changed on error", i);
		}
		T_CHECK(diag.count == nerr, "case %zu: %zu messages, want %zu",
			i, diag.count, nerr);
		for (k = 0; k < nerr && k < diag.count; k++)
			T_CHECK(!strcmp(diag.msgs[k], cases[i].errors[k]),
				"case %zu:\n  got  '%s'\n  want '%s'", i,
				diag.msgs[k], cases[i].errors[k]);
		nfswb_nfsconf_free(c);
		nfswb_diag_clear(&diag);
	}
}

/*
 * A later value wins, as in nfs-utils, but the same key twice in one
 * file is a slip and said so; a drop-in overriding a key is not.
 */
static void check_duplicates(void)
{
	static const char text[] = "[nfswbd]\nmode = files\n[x]\nmode = y\n"
				   "[nfswbd]\nmode = kernel\n";
	struct nfswb_diag diag = { 0 };
	struct nfswb_nfsconf *c = NULL;
	int n;

	n = nfswb_nfsconf_parse_buffer("C", text, strlen(text), false, &c,
				       &diag);
	T_CHECK(n == 1 && diag.count == 1 &&
		!strcmp(diag.msgs[0],
			"C:6: [nfswbd] mode set again (first at line 2); the later value wins"),
		"%d: %s", n, diag.count ? diag.msgs[0] : "");
	T_CHECK(c && !strcmp(nfswb_nfsconf_get(c, "nfswbd", "mode"), "kernel"),
		"the later value does not win");
	nfswb_nfsconf_free(c);
	nfswb_diag_clear(&diag);
}

static void check_keys(void)
{
	static const char text[] =
		"[nfswbd]\ninterval = 100ms\nbackground-time = 1s\n"
		"intervall = 5\n[nfswbd \"arg\"]\nx = 1\n[other]\ny = 1\n"
		"[nfswbd]\nBogus = 2\n";
	static const char *const keys[] = { "interval", "state-dir", NULL };
	struct nfswb_diag diag = { 0 };
	struct nfswb_nfsconf *c;

	nfswb_nfsconf_parse_buffer("K", text, sizeof(text) - 1, false, &c,
				   &diag);
	T_CHECK(nfswb_nfsconf_check_keys(c, "nfswbd", keys, &diag) == -EINVAL,
		"unknown keys not found");
	T_CHECK(diag.count == 2 &&
		!strcmp(diag.msgs[0], "K:4: [nfswbd] unknown key 'intervall'") &&
		!strcmp(diag.msgs[1], "K:10: [nfswbd] unknown key 'Bogus'"),
		"%zu messages: %s", diag.count,
		diag.count ? diag.msgs[0] : "");
	nfswb_diag_clear(&diag);
	T_CHECK(nfswb_nfsconf_check_keys(c, "other", (const char *const[]){
						 "y", NULL }, &diag) == 0 &&
		diag.count == 0, "[other] y is known");
	nfswb_nfsconf_free(c);
}

/* The strict loader gives nothing at all when a problem was found. */
static void check_load(void)
{
	char path[] = "/tmp/test_nfsconf.XXXXXX";
	struct nfswb_diag diag = { 0 };
	struct nfswb_nfsconf *c = (void *)1;
	FILE *f;
	int fd;

	T_CHECK(nfswb_nfsconf_load("/nonexistent/nfs.conf", &c, &diag) == 0 &&
		c && diag.count == 0, "a missing nfs.conf is fine");
	T_CHECK(nfswb_nfsconf_get(c, "nfswbd", "mode") == NULL, "empty");
	nfswb_nfsconf_free(c);

	fd = mkstemp(path);
	if (fd < 0)
		T_SKIP("mkstemp: %m");
	f = fdopen(fd, "w");
	fputs("[nfswbd]\nmode = files\n[broken\n", f);
	fclose(f);
	T_CHECK(nfswb_nfsconf_load(path, &c, &diag) == -EINVAL && c == NULL &&
		diag.count == 1, "broken file: %zu messages", diag.count);
	nfswb_diag_clear(&diag);
	T_CHECK(nfswb_nfsconf_read(path, &c, &diag) == 1 && c &&
		!strcmp(nfswb_nfsconf_get(c, "nfswbd", "mode"), "files"),
		"lenient read keeps what nfs-utils keeps");
	T_CHECK(nfswb_nfsconf_get_bool(c, "nfswbd", "mode", true) &&
		!nfswb_nfsconf_get_bool(c, "nfswbd", "mode", false),
		"a non-boolean gives the default");
	nfswb_nfsconf_free(c);
	nfswb_diag_clear(&diag);
	unlink(path);
}

/*
 * The owner's loader: problems in [nfswbd] (or in a whole file) are
 * errors, problems elsewhere in nfs.conf are warnings and the rest loads.
 */
static void check_load_owned(void)
{
	static const struct {
		const char *text;
		size_t errors, warnings;
		const char *where;	/* ":LINE:" of the first message */
	} owned_cases[] = {
		{ "[nfsd]\nthreads = 8\n[nfswbd]\nmode = files\n", 0, 0, NULL },
		/* Other daemons' sections, or no section at all. */
		{ "[nfsd]\nbogus line\n[nfswbd]\nmode = files\n", 0, 1, ":2:" },
		{ "stray = 1\n[nfswbd]\nmode = files\n", 0, 1, ":1:" },
		{ "[mountd\nx = 1\n[nfswbd]\nmode = files\n", 0, 2, ":1:" },
		{ "[nfswbd]\nmode = files\n[gssd]\nx = 'open\n", 0, 1, ":4:" },
		{ "[nfswbdx]\nbogus\n[nfswbd]\nmode = files\n", 0, 1, ":2:" },
		/* Ours. */
		{ "[nfsd]\nthreads = 8\n[nfswbd]\nbogus line\n", 1, 0, ":4:" },
		{ "[ NFSWBD ]\n= 1\nmode = files\n", 1, 0, ":2:" },
		{ "[nfswbd\nmode = files\n", 2, 0, ":1:" },
		{ "[nfswbd]\nmode = 'files\n", 1, 0, ":2:" },
		{ "[nfsd]\nx = 1\n[nfswbd]\nmode = files", 1, 0, ":4:" },
		{ "[nfswbd]\ninclude = /nonexistent/x.conf\n", 1, 0, ":2:" },
		/* Both: each where it belongs. */
		{ "[nfsd]\nbad\n[nfswbd]\nbad\n", 1, 1, ":4:" },
	};
	char path[] = "/tmp/test_nfsconf.XXXXXX";
	struct nfswb_diag err = { 0 }, warn = { 0 };
	struct nfswb_nfsconf *c;
	size_t i;
	FILE *f;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0)
		T_SKIP("mkstemp: %m");
	close(fd);
	for (i = 0; i < sizeof(owned_cases) / sizeof(owned_cases[0]); i++) {
		f = fopen(path, "w");
		if (!f)
			T_SKIP("%s: %m", path);
		fputs(owned_cases[i].text, f);
		fclose(f);
		ret = nfswb_nfsconf_load_owned(path, "nfswbd", &c, &err, &warn);
		T_CHECK(err.count == owned_cases[i].errors &&
			warn.count == owned_cases[i].warnings,
			"case %zu: %zu errors, %zu warnings; expected %zu, %zu",
			i, err.count, warn.count, owned_cases[i].errors,
			owned_cases[i].warnings);
		if (owned_cases[i].errors) {
			T_CHECK(ret == -EINVAL && !c, "case %zu: loaded", i);
		} else {
			const char *mode = c ? nfswb_nfsconf_get(c, "nfswbd",
								 "mode") : NULL;

			T_CHECK(ret == 0 && mode && !strcmp(mode, "files"),
				"case %zu: [nfswbd] mode not loaded", i);
		}
		if (owned_cases[i].where) {
			const char *m = err.count ? err.msgs[0] : warn.msgs[0];

			T_CHECK(!strncmp(m, path, strlen(path)) &&
				!strncmp(m + strlen(path), owned_cases[i].where,
					 strlen(owned_cases[i].where)),
				"case %zu: '%s' does not start with %s%s", i,
				m, path, owned_cases[i].where);
		}
		nfswb_nfsconf_free(c);
		nfswb_diag_clear(&err);
		nfswb_diag_clear(&warn);
	}
	/* An unreadable file may hold [nfswbd]: an error. */
	T_CHECK(nfswb_nfsconf_load_owned("/tmp", "nfswbd", &c, &err,
					 &warn) == -EINVAL && err.count == 1,
		"unreadable nfs.conf: %zu errors", err.count);
	nfswb_diag_clear(&err);
	nfswb_diag_clear(&warn);
	unlink(path);
}

int main(void)
{
	check_defaults();
	check_keys();
	check_duplicates();
	check_load();
	check_load_owned();
	return t_result();
}
