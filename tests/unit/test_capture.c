// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_capture.c - what nfswb_capture_open() refuses, with which errno,
 * and that a refused open leaves no tracefs instance behind.  Needs root
 * and tracefs (skips without them).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "capture.h"
#include "test.h"

#define PREFIX "nfswb-test-capture-"

/* The instance our open makes, gone again after a refusal. */
static void check_no_instance(const char *what)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/instances/" PREFIX "%d",
		 tracefs_tracing_dir(), (int)getpid());
	T_CHECK(access(path, F_OK) < 0 && errno == ENOENT,
		"%s: %s left behind", what, path);
}

static void check_refused(char *event, int server_pid, int want,
			  const char *why)
{
	struct nfswb_capture c;
	char *extra[] = { event };
	int r = nfswb_capture_open(&c, PREFIX, 0, server_pid, NULL, extra,
				   event ? 1 : 0);

	if (r == 0)
		nfswb_capture_close(&c);
	T_CHECK(r == want && strstr(c.why, why),
		"%s: r %d (%s), want %d \"%s\"", event ? event : "pid", r,
		c.why, want, why);
	check_no_instance(event ? event : "pid");
}

int main(void)
{
	struct nfswb_capture c;
	pid_t gone;
	int r;

	if (geteuid() != 0)
		T_SKIP("needs root for a tracefs instance");
	if (!tracefs_tracing_dir())
		T_SKIP("no tracefs on this host");
	/*
	 * An instance this host will not make is the skip; else the open
	 * succeeds or finds none of the events (no nfsd here).
	 */
	r = nfswb_capture_open(&c, PREFIX, 0, 0, NULL, NULL, 0);
	if (r < 0 && strstr(c.why, "cannot create tracefs instance"))
		T_SKIP("%s", c.why);
	T_CHECK(r == 0 || (r == -EOPNOTSUPP &&
			   strstr(c.why, "none of the events")),
		"plain open: r %d (%s)", r, c.why);
	if (r == 0)
		nfswb_capture_close(&c);
	check_no_instance("close");

	check_refused("nocolon", 0, -EINVAL, "expected SYSTEM:EVENT");
	check_refused(":event", 0, -EINVAL, "expected SYSTEM:EVENT");
	check_refused("nfswb_no_such_system:no_such_event", 0, -ENOENT,
		      "no such event on this kernel");

	/* A pid that was reaped: no process to follow. */
	gone = fork();
	if (gone < 0) {
		perror("fork");
		return T_EXIT_FAIL;
	}
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	check_refused(NULL, (int)gone, -ESRCH, "no such process");
	return t_result();
}
