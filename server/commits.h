/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * commits.h - nfswbd's COMMIT latency histogram per export (commits.c),
 * published with the metrics.
 */
#ifndef NFSWBD_COMMITS_H
#define NFSWBD_COMMITS_H

#include <stdbool.h>
#include <stdio.h>

struct nfswbd_settings;
struct nfswbd_table;
struct nfswbd_commits;

/**
 * nfswbd_commits_start() - open the capture that times COMMITs
 * @s: settings (commit_pid_file: a userspace server's pid file)
 * @t: the table, for the exports' devices and paths
 * @out: the histogram
 *
 * Return: 0, or -1 (logged: no tracefs, no COMMIT source on this
 * kernel, no such server process).
 */
int nfswbd_commits_start(const struct nfswbd_settings *s,
			 const struct nfswbd_table *t,
			 struct nfswbd_commits **out);

/* nfswbd_commits_exports() - the exports changed (reload); NULL ok */
void nfswbd_commits_exports(struct nfswbd_commits *c,
			    const struct nfswbd_table *t);

/* nfswbd_commits_fd() - to poll for input, -1 for NULL */
int nfswbd_commits_fd(const struct nfswbd_commits *c);

/* nfswbd_commits_read() - take what the capture has, without waiting */
void nfswbd_commits_read(struct nfswbd_commits *c);

/* nfswbd_commits_source() - what times COMMIT, "off" for NULL */
const char *nfswbd_commits_source(const struct nfswbd_commits *c);


/**
 * nfswbd_commits_render() - the nfswb_commit_latency_seconds family
 * @c: histogram, or NULL (HELP and TYPE only)
 * @f: stream
 * @om: OpenMetrics (adds UNIT)
 * @label: writes one label, escaped ("first" has no comma before it)
 */
void nfswbd_commits_render(const struct nfswbd_commits *c, FILE *f, bool om,
			   void (*label)(FILE *f, const char *name,
					 const char *value, bool first));

/* nfswbd_commits_stop() - close the capture and free; NULL ok */
void nfswbd_commits_stop(struct nfswbd_commits *c);

#endif
