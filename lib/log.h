/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - logging in the style of nfs-utils' xlog: to stderr when in the
 * foreground (with the pid and the time, or with "<N>" priority prefixes
 * when stderr is systemd's journal stream), to syslog(3) when daemonised.
 * "%m" works as in syslog.
 */
#ifndef NFSWB_LOG_H
#define NFSWB_LOG_H

#include <stdbool.h>
#include <time.h>

enum nfswb_log_level {
	L_ERROR = 0,
	L_WARNING,
	L_NOTICE,
	L_INFO,
	L_DEBUG,
};

/* nfswb_log_init - @ident names the program; @use_syslog after daemon(). */
void nfswb_log_init(const char *ident, bool use_syslog);
void nfswb_log_set_level(enum nfswb_log_level max);
void xlog(enum nfswb_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * nfswb_log_last_error - the last L_ERROR message (even one below the
 * level shown) and when (wall clock), or NULL before the first.
 */
const char *nfswb_log_last_error(time_t *when);

#endif
