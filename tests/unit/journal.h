/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.h - for the tests that change kernel settings through
 * restore.h: the journal in a directory, or the test fails.
 */
#ifndef NFSWB_TEST_JOURNAL_H
#define NFSWB_TEST_JOURNAL_H

#include <stdio.h>
#include <stdlib.h>

#include <unistd.h>

#include "restore.h"
#include "statedir.h"
#include "test.h"

/* The journal in @dir, for paths under @sysroot ("" on a live system). */
static inline struct nfswb_restore *t_journal_open_root(const char *dir,
							 const char *sysroot)
{
	struct nfswb_restore *r;
	char err[512];
	int fd = nfswb_statedir_open(dir, err, sizeof(err));

	if (fd < 0 ||
	    nfswb_restore_open(fd, dir, sysroot, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "FAIL: journal in %s: %s\n", dir, err);
		exit(T_EXIT_FAIL);
	}
	close(fd);
	return r;
}

static inline struct nfswb_restore *t_journal_open(const char *dir)
{
	return t_journal_open_root(dir, "");
}

#endif
