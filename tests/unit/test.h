/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the unit tests.  Each test is a standalone program:
 * exit 0 on pass, 1 on failure, 77 when the machine lacks what the test
 * needs (the reason goes to stderr), as automake's harness expects.
 */
#ifndef NFSWB_TEST_H
#define NFSWB_TEST_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/*
 * t_fork - run @child (which must not return) in a new process; a failed
 * fork fails the test.  Returns the child's pid.
 */
static inline pid_t t_fork(void (*child)(void))
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(T_EXIT_FAIL);
	}
	if (pid == 0) {
		child();
		_exit(T_EXIT_FAIL);
	}
	return pid;
}

/*
 * t_fork_and_kill - run @child (which must not return) in a new process
 * and SIGKILL it after @min_ms plus a random 0..@spread_ms - 1 ms: the
 * crash at an arbitrary moment that restore tests need.  Seed rand() once
 * per test.  Returns 0 if the child died of the SIGKILL, else its wait
 * status (it ended by itself, which is a failure of the test).
 */
static inline int t_fork_and_kill(void (*child)(void), unsigned int min_ms,
				  unsigned int spread_ms)
{
	struct timespec ts;
	unsigned int ms;
	pid_t pid;
	int st;

	pid = t_fork(child);
	ms = min_ms + (spread_ms ? (unsigned int)rand() % spread_ms : 0);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : st;
}

#endif /* NFSWB_TEST_H */
