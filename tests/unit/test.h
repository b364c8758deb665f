/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the unit tests.  Each test is a standalone program:
 * exit 0 on pass, 1 on failure, 77 when the machine lacks what the test
 * needs (the reason goes to stderr), as automake's harness expects.
 */
#ifndef NFSWB_TEST_H
#define NFSWB_TEST_H

#include <stdio.h>
#include <stdlib.h>

enum {
	T_EXIT_PASS = 0,
	T_EXIT_FAIL = 1,
	T_EXIT_SKIP = 77,
};

static int t_failures;

#define T_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			t_failures++;					\
		}							\
	} while (0)

#define T_SKIP(...)							\
	do {								\
		fprintf(stderr, "SKIP: ");				\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		exit(T_EXIT_SKIP);					\
	} while (0)

static inline int t_result(void)
{
	return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;
}

#endif /* NFSWB_TEST_H */
