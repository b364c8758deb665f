// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - the main() of a fuzz target built without libFuzzer: feed
 * every file of the target's committed corpus ($srcdir/fuzz/FUZZ_CORPUS),
 * or the files and directories named on the command line, to its
 * LLVMFuzzerTestOneInput() once, in name order.  A target's checks abort
 * on a violation, so a clean exit means every input passed.
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fuzz.h"

#ifndef FUZZ_CORPUS
#error "FUZZ_CORPUS must name the target's corpus directory"
#endif

static int replay_file(const char *path, unsigned int *count)
{
	struct stat st;
	uint8_t *buf;
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		perror(path);
		if (f)
			fclose(f);
		return 1;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
	fclose(f);
	if (!buf)
		return 1;
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	(*count)++;
	return 0;
}

static int replay(const char *path, unsigned int *count)
{
	struct dirent **names;
	struct stat st;
	int n, i, ret = 0;
	char *sub;

	if (stat(path, &st)) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, count);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			if (asprintf(&sub, "%s/%s", path, names[i]->d_name) < 0)
				ret = 1;
			else {
				ret |= replay(sub, count);
				free(sub);
			}
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir");
	unsigned int count = 0;
	char *dir;
	int i, ret = 0;

	if (argc > 1) {
		for (i = 1; i < argc; i++)
			ret |= replay(argv[i], &count);
	} else {
		if (asprintf(&dir, "%s/fuzz/%s", srcdir ? srcdir : ".",
			     FUZZ_CORPUS) < 0)
			return 1;
		ret = replay(dir, &count);
		free(dir);
	}
	if (!count) {
		fprintf(stderr, "no corpus files found\n");
		return 1;
	}
	printf("%u inputs replayed\n", count);
	return ret;
}
