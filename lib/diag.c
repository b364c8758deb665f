// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diag.c - the list of "FILE:LINE: reason" messages a parser collects.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void nfswb_diag_add(struct nfswb_diag *d, const char *file, unsigned int line,
		    const char *fmt, ...)
{
	char *reason = NULL, *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&reason, fmt, ap);
	va_end(ap);
	if (n < 0)
		goto lost;
	if (line)
		n = asprintf(&msg, "%s:%u: %s", file, line, reason);
	else
		n = asprintf(&msg, "%s: %s", file, reason);
	free(reason);
	if (n < 0)
		goto lost;

	if (d->count == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;
		char **msgs = realloc(d->msgs, cap * sizeof(*msgs));

		if (!msgs)
			goto lost;
		d->msgs = msgs;
		d->cap = cap;
	}
	d->msgs[d->count++] = msg;
	return;
lost:
	/* The error still counts: a caller must not apply a bad config. */
	free(msg);
	d->lost++;
}

void nfswb_diag_print(const struct nfswb_diag *d, FILE *out)
{
	size_t i;

	for (i = 0; i < d->count; i++)
		fprintf(out, "%s\n", d->msgs[i]);
	if (d->lost)
		fprintf(out, "(%zu more errors lost: out of memory)\n", d->lost);
}

void nfswb_diag_clear(struct nfswb_diag *d)
{
	size_t i;

	for (i = 0; i < d->count; i++)
		free(d->msgs[i]);
	free(d->msgs);
	memset(d, 0, sizeof(*d));
}
