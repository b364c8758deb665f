// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_log - xlog's three destinations as systemd and a terminal see them:
 * "ident[pid] time level: msg" on a plain stderr, "<N>level: msg" when
 * stderr is the stream JOURNAL_STREAM names, and nothing below the level.
 */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>

#include "log.h"
#include "test.h"

/* Run one xlog() with stderr sent to a fresh file; return what it wrote. */
static char *logged(const char *journal_stream_of, enum nfswb_log_level lvl,
		    const char *msg)
{
	static char buf[512];
	char path[] = "/tmp/test_log.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct stat st;
	ssize_t n;

	if (fd < 0 || saved < 0 || fstat(fd, &st) < 0) {
		perror("test_log: set-up");
		exit(T_EXIT_FAIL);
	}
	unlink(path);
	if (journal_stream_of) {
		char env[64];

		/* "self" names this file, anything else another stream. */
		snprintf(env, sizeof(env), "%llu:%llu",
			 (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino +
			 (strcmp(journal_stream_of, "self") ? 1 : 0));
		setenv("JOURNAL_STREAM", env, 1);
	} else {
		unsetenv("JOURNAL_STREAM");
	}
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	nfswb_log_init("test-log", false);
	errno = ENOENT;
	xlog(lvl, "%s: %%m is %m", msg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void check_match(const char *got, const char *re_text)
{
	regex_t re;

	if (regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "bad regex %s\n", re_text);
		exit(T_EXIT_FAIL);
	}
	T_CHECK(regexec(&re, got, 0, NULL, 0) == 0, "'%s' !~ /%s/", got,
		re_text);
	regfree(&re);
}

int main(void)
{
	char re[256];
	const char *got;

	nfswb_log_set_level(L_INFO);

	/* Terminal or file: ident[pid], the wall-clock time, the level. */
	snprintf(re, sizeof(re),
		 "^test-log\\[%ld\\] [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} "
		 "warning: plain: %%m is No such file or directory\n$",
		 (long)getpid());
	check_match(logged(NULL, L_WARNING, "plain"), re);

	/* The journal's own stream: the priority as "<N>", no time. */
	check_match(logged("self", L_ERROR, "journal"),
		    "^<3>error: journal: %m is No such file or directory\n$");
	check_match(logged("self", L_WARNING, "journal"), "^<4>warning: ");
	check_match(logged("self", L_NOTICE, "journal"), "^<5>notice: ");
	check_match(logged("self", L_INFO, "journal"), "^<6>info: ");

	/* JOURNAL_STREAM inherited, but stderr redirected elsewhere. */
	snprintf(re, sizeof(re), "^test-log\\[%ld\\] [0-9-]{10}T", (long)getpid());
	check_match(logged("other", L_WARNING, "redirected"), re);

	/* Below the level: nothing at all. */
	got = logged("self", L_DEBUG, "quiet");
	T_CHECK(got[0] == '\0', "debug at level info wrote '%s'", got);

	return t_result();
}
