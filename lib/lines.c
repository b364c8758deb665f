// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lines.c - bounded line reading for files named on a command line; see
 * lines.h.
 */
#include "lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int nfswb_lines_open(struct nfswb_lines *l, const char *path, size_t max)
{
	struct stat st;
	int err;

	memset(l, 0, sizeof(*l));
	l->max = max;
	l->is_stdin = !strcmp(path, "-");
	l->f = l->is_stdin ? stdin : fopen(path, "r");
	if (!l->f)
		return -errno;
	if (fstat(fileno(l->f), &st) < 0)
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR;
	else
		return 0;
	nfswb_lines_close(l);
	return -err;
}

ssize_t nfswb_lines_next(struct nfswb_lines *l, const char **line)
{
	int c;

	l->len = 0;
	errno = 0;
	while ((c = getc_unlocked(l->f)) != EOF) {
		if (l->len + 2 > l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 256;
			char *b;

			if (cap > l->max + 1)
				cap = l->max + 1;
			if (l->len + 2 > cap) {
				l->lineno++;
				return -EFBIG;
			}
			b = realloc(l->buf, cap);
			if (!b)
				return -ENOMEM;
			l->buf = b;
			l->cap = cap;
		}
		l->buf[l->len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (c == EOF && ferror(l->f))
		return errno ? -errno : -EIO;
	if (!l->len)
		return 0;
	l->buf[l->len] = '\0';
	l->lineno++;
	*line = l->buf;
	return (ssize_t)l->len;
}

void nfswb_lines_close(struct nfswb_lines *l)
{
	if (l->f && !l->is_stdin)
		fclose(l->f);
	free(l->buf);
	l->f = NULL;
	l->buf = NULL;
}
