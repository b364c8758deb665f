// SPDX-License-Identifier: GPL-2.0-or-later
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static const char *log_ident = "nfswb";
static bool log_syslog;
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

void nfswb_log_init(const char *ident, bool use_syslog)
{
	log_ident = ident;
	log_syslog = use_syslog;
	if (use_syslog)
		openlog(ident, LOG_PID, LOG_DAEMON);
}

void nfswb_log_set_level(enum nfswb_log_level max)
{
	log_max = max;
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
	if (log_syslog) {
		errno = saved_errno;
		vsyslog(syslog_prio[level], fmt, ap);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		fprintf(stderr, "%s[%ld.%03ld] %s: ", log_ident, (long)ts.tv_sec,
			ts.tv_nsec / 1000000, level_names[level]);
		/* glibc's vfprintf expands %m from errno, as syslog does. */
		errno = saved_errno;
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
	errno = saved_errno;
}
