/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture.h - the tracefs instance that record and live read from, and
 * the samples taken beside it.
 */
#ifndef NFSWB_REPORT_CAPTURE_H
#define NFSWB_REPORT_CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define CAPTURE_MAX_EVENTS	16

struct tracefs_instance;
struct tracefs_dynevent;

struct capture {
	struct tracefs_instance *inst;
	/* nfswb_commit_entry/_exit on nfsd_commit, system nfswb_PID */
	struct tracefs_dynevent *probes[2];
	char probe_system[32];
	char commit_source[160];	/* what times COMMITs, for the header */
	int fd;				/* the instance's trace_pipe */
	char name[64];
	bool clock_local;		/* "mono" clock refused */
	size_t nevents;
	char events[CAPTURE_MAX_EVENTS][64];	/* "system:event" enabled */
	char why[512];			/* on failure */
};

/* Set by SIGINT, SIGTERM, SIGHUP once capture_signals() ran. */
extern volatile sig_atomic_t capture_stop;

/* capture_signals() - stop flag on SIGINT/SIGTERM/SIGHUP; ignore SIGPIPE */
void capture_signals(void);

/**
 * capture_open() - create our instance and enable the events this kernel has
 * @c: out
 * @server_pid: a userspace NFS server (Ganesha) whose fsync/fdatasync
 *	calls time its COMMITs, or 0; the instance then records only that
 *	process and the threads it starts
 * @extra: more events to enable, "SYSTEM:EVENT" each
 * @nextra: how many
 *
 * Return: 0, or -1 with the reason in @c->why (nothing left behind).
 */
int capture_open(struct capture *c, int server_pid, char *const *extra,
		 size_t nextra);

/**
 * capture_read() - text from the instance's trace_pipe
 * @c: open capture
 * @buf: out
 * @len: size of @buf
 * @timeout_ms: how long to wait for data
 *
 * Return: bytes read, 0 on timeout or signal, or a negative errno.
 */
ssize_t capture_read(struct capture *c, char *buf, size_t len, int timeout_ms);

/* capture_close() - remove the instance; safe to call twice */
void capture_close(struct capture *c);

/* The instance stamps with CLOCK_MONOTONIC: nfswb_now_s() of clock.h. */

/**
 * sample_bdi() - "# nfswb-sample" from /sys/kernel/debug/bdi/BDI/stats
 * @bdi: "MAJ:MIN"
 * @out: stream
 * @t: timestamp
 *
 * Return: 0, or -1 if the file cannot be read.
 */
int sample_bdi(const char *bdi, FILE *out, double t);

/**
 * sample_status() - one "# nfswb-sample" line per device of nfswbd's
 *	status.json (bdi, dirty_bytes, bandwidth.bytes_per_s)
 * @path: status.json
 * @out: stream
 * @t: timestamp
 *
 * Return: lines written, or -1 if the file cannot be read.
 */
int sample_status(const char *path, FILE *out, double t);

#endif
