/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lines.h - read a text file a user named, line by line, in bounded
 * memory: a line longer than the bound is an error with its number, not
 * gigabytes of buffer (`summary /dev/zero`), and a directory is refused by
 * name rather than failing as an I/O error on the first read.
 */
#ifndef NFSWB_LINES_H
#define NFSWB_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Longer than any ftrace or JSON-lines record the tools read. */
#define NFSWB_LINES_MAX_DEFAULT	(64 * 1024)

struct nfswb_lines {
	FILE *f;
	bool is_stdin;
	char *buf;
	size_t len, cap, max;
	uint64_t lineno;	/* of the line last returned (or refused) */
};

/**
 * nfswb_lines_open - open @path ("-" is stdin) for reading lines of at most
 * @max bytes, newline included
 *
 * Return: 0, or a negative errno: -EISDIR for a directory, else what
 * fopen(3) or fstat(2) said.
 */
int nfswb_lines_open(struct nfswb_lines *l, const char *path, size_t max);

/**
 * nfswb_lines_next - the next line, NUL-terminated with its newline (the
 * last line may lack one); NUL bytes inside are kept and counted
 *
 * Return: its length (> 0) with *@line set, 0 at the end of the file,
 * -EFBIG when line l->lineno is longer than the bound, or the read
 * error's negative errno.
 */
ssize_t nfswb_lines_next(struct nfswb_lines *l, const char **line);

/** nfswb_lines_close - close the file (not stdin) and free the buffer */
void nfswb_lines_close(struct nfswb_lines *l);

#endif
