// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_journal - libFuzzer target for the restore journal's reader,
 * nfswb_restore_parse() (restore.h): the list of files root writes at
 * start-up, so what it may return is checked for any input.  Every record
 * names a journalled bdi attribute under the sysroot and holds decimal
 * values, each path comes once, in the order of its first line, and the
 * records written out again read back the same.  The first byte picks the
 * sysroot ("" or a fake root), as the daemon's --sysroot would.
 *
 * Built with -DNFSWB_LIBFUZZER it is a libFuzzer target; without, linked
 * with replay.c, it replays the committed corpus in
 * $srcdir/fuzz/corpus-journal.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "log.h"
#include "restore.h"

struct rec {
	char *path, *orig, *set;
	unsigned int line;
};

struct seen {
	const char *sysroot;
	struct rec *v;
	size_t n, cap;
};

static bool digits(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > 20)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int on_record(void *arg, unsigned int line, const char *path,
		     const char *original, const char *set)
{
	struct seen *s = arg;

	FUZZ_CHECK(nfswb_restore_path_ok(s->sysroot, path, false));
	FUZZ_CHECK(nfswb_restore_path_ok(s->sysroot, path, true));
	FUZZ_CHECK(digits(original));
	FUZZ_CHECK(!set || digits(set));
	FUZZ_CHECK(line > 0);
	FUZZ_CHECK(!s->n || line > s->v[s->n - 1].line);
	for (size_t i = 0; i < s->n; i++)
		FUZZ_CHECK(strcmp(s->v[i].path, path));
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		FUZZ_CHECK(s->v);
	}
	s->v[s->n].path = strdup(path);
	s->v[s->n].orig = strdup(original);
	s->v[s->n].set = set ? strdup(set) : NULL;
	s->v[s->n].line = line;
	s->n++;
	return 0;
}

static void on_skip(void *arg, unsigned int line, const char *why, bool torn)
{
	(void)arg;
	(void)torn;
	FUZZ_CHECK(line > 0);
	FUZZ_CHECK(why && *why);
}

static void release(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].orig);
		free(s->v[i].set);
	}
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen first = { 0 }, again = { 0 };
	const struct nfswb_restore_reader rd1 = {
		.record = on_record, .skip = on_skip, .arg = &first,
	};
	const struct nfswb_restore_reader rd2 = {
		.record = on_record, .skip = on_skip, .arg = &again,
	};
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	if (!size)
		return 0;
	first.sysroot = again.sysroot = data[0] & 1 ? "/fake/root" : "";
	if (nfswb_restore_parse((const char *)data + 1, size - 1,
				first.sysroot, &rd1) < 0) {
		release(&first);
		return 0;
	}

	/* Written out as the journal writes records, read back the same
	 * (paths and values need no escaping: they are checked above). */
	f = open_memstream(&out, &outlen);
	FUZZ_CHECK(f);
	for (size_t i = 0; i < first.n; i++)
		fprintf(f, "%s %s%s%s\n", first.v[i].path, first.v[i].orig,
			first.v[i].set ? " " : "",
			first.v[i].set ? first.v[i].set : "");
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(nfswb_restore_parse(out, outlen, again.sysroot, &rd2) == 0);
	FUZZ_CHECK(again.n == first.n);
	for (size_t i = 0; i < first.n; i++) {
		FUZZ_CHECK(!strcmp(again.v[i].path, first.v[i].path));
		FUZZ_CHECK(!strcmp(again.v[i].orig, first.v[i].orig));
		FUZZ_CHECK(!again.v[i].set == !first.v[i].set);
		FUZZ_CHECK(!first.v[i].set ||
			   !strcmp(again.v[i].set, first.v[i].set));
	}
	free(out);
	release(&first);
	release(&again);
	return 0;
}
