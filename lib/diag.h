/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag.h - collected error messages of the form "FILE:LINE: reason".
 *
 * Parsers never stop at the first error: they collect every problem so that
 * an admin fixes a file in one pass, and the caller applies nothing unless
 * the list is empty.
 */
#ifndef NFSWB_DIAG_H
#define NFSWB_DIAG_H

#include <stddef.h>
#include <stdio.h>

struct nfswb_diag {
	char **msgs;
	size_t count;
	size_t cap;
	size_t lost;		/* messages dropped for lack of memory */
};

/* nfswb_diag_errors - how many problems were found (stored or lost). */
static inline size_t nfswb_diag_errors(const struct nfswb_diag *d)
{
	return d->count + d->lost;
}

/* nfswb_diag_add - append "FILE:LINE: reason"; line 0 omits the line. */
void nfswb_diag_add(struct nfswb_diag *d, const char *file, unsigned int line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* nfswb_diag_print - write every message, one per line. */
void nfswb_diag_print(const struct nfswb_diag *d, FILE *out);
/* nfswb_diag_clear - free the messages; the list is empty again. */
void nfswb_diag_clear(struct nfswb_diag *d);

#endif
