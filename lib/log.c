// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static const char *log_ident = "nfswb";
static enum { TO_STDERR, TO_JOURNAL, TO_SYSLOG } log_dest;
static enum nfswb_log_level log_max = L_INFO;
/* For status.json: what went wrong last, and when. */
static char last_error[256];
static time_t last_error_time;

static const char *const level_names[] = {
	[L_ERROR] = "error",
	[L_WARNING] = "warning",
	[L_NOTICE] = "notice",
	[L_INFO] = "info",
	[L_DEBUG] = "debug",
};

static const int syslog_prio[] = {
	[L_ERROR] = LOG_ERR,
	[L_WARNING] = LOG_WARNING,
	[L_NOTICE] = LOG_NOTICE,
	[L_INFO] = LOG_INFO,
	[L_DEBUG] = LOG_DEBUG,
};

const char *nfswb_log_last_error(time_t *when)
{
	if (!last_error[0])
		return NULL;
	if (when)
		*when = last_error_time;
	return last_error;
}

/*
 * systemd sets JOURNAL_STREAM to "DEV:INO" of the stream it connected to
 * stderr; only when stderr still is that stream do "<N>" prefixes reach
 * journald (and not a terminal or a redirected file).  See systemd.exec(5).
 */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	if (!env || sscanf(env, "%llu:%llu%c", &dev, &ino, &end) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void nfswb_log_init(const char *ident, bool use_syslog)
{
	log_ident = ident;
	if (use_syslog) {
		log_dest = TO_SYSLOG;
		openlog(ident, LOG_PID, LOG_DAEMON);
	} else {
		log_dest = stderr_is_journal() ? TO_JOURNAL : TO_STDERR;
	}
}

void nfswb_log_set_level(enum nfswb_log_level max)
{
	log_max = max;
}

/* "nfswbd[1234] 2026-12-01T09:43:46.123 ": syslog's ident[pid], then the time. */
static void stderr_prefix(void)
{
	struct timespec ts;
	struct tm tm;
	char when[32] = "";

	clock_gettime(CLOCK_REALTIME, &ts);
	if (localtime_r(&ts.tv_sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s[%ld] %s.%03ld ", log_ident, (long)getpid(), when,
		ts.tv_nsec / 1000000);
}

void xlog(enum nfswb_log_level level, const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;

	if (level == L_ERROR) {
		va_start(ap, fmt);
		/* glibc expands %m from errno here as well. */
		vsnprintf(last_error, sizeof(last_error), fmt, ap);
		va_end(ap);
		last_error_time = time(NULL);
		errno = saved_errno;
	}
	if (level > log_max)
		return;
	va_start(ap, fmt);
	if (log_dest == TO_SYSLOG) {
		errno = saved_errno;
		vsyslog(syslog_prio[level], fmt, ap);
	} else {
		/* journald adds the time, the ident and the pid itself. */
		if (log_dest == TO_JOURNAL)
			fprintf(stderr, "<%d>", syslog_prio[level]);
		else
			stderr_prefix();
		fprintf(stderr, "%s: ", level_names[level]);
		/* glibc's vfprintf expands %m from errno, as syslog does. */
		errno = saved_errno;
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
	errno = saved_errno;
}
