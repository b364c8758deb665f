/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.h - for the tests that change kernel settings through
 * restore.h: the journal in a directory, or the test fails.
 */
#ifndef NFSWB_TEST_JOURNAL_H
#define NFSWB_TEST_JOURNAL_H

#include <stdio.h>
#include <stdlib.h>

#include "restore.h"
#include "test.h"

static inline struct nfswb_restore *t_journal_open(const char *dir)
{
	struct nfswb_restore *r;
	char err[512];

	if (nfswb_restore_open(dir, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "FAIL: journal in %s: %s\n", dir, err);
		exit(T_EXIT_FAIL);
	}
	return r;
}

#endif
