/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture.h - a tracefs instance of our own with the events that time an
 * NFS server's COMMITs (and, for nfswb-report, its WRITEs), read as ftrace
 * text from the instance's trace_pipe.  nfswb-report record/live and
 * nfswbd's COMMIT latency histogram use it.
 */
#ifndef NFSWB_CAPTURE_H
#define NFSWB_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define NFSWB_CAPTURE_MAX_EVENTS	16

struct tracefs_instance;
struct tracefs_dynevent;
struct nfswb_probe_offsets;

/* Only what times COMMIT: no svc_stats_latency, WRITE or kick events. */
#define NFSWB_CAPTURE_COMMITS_ONLY	0x1

struct nfswb_capture {
	struct tracefs_instance *inst;
	/*
	 * nfswb_commit_entry/_exit on nfsd_commit, or nfswb_commit_file
	 * beside its tracepoints; system nfswb_PID
	 */
	struct tracefs_dynevent *probes[2];
	char probe_system[32];
	char commit_source[256];	/* what times COMMITs, for headers */
	int fd;				/* the instance's trace_pipe */
	char name[64];
	bool clock_local;		/* "mono" clock refused */
	bool backlog;			/* the last read left text behind */
	size_t nevents;
	char events[NFSWB_CAPTURE_MAX_EVENTS][64];	/* "system:event" */
	char why[512];			/* on failure */
};

/**
 * nfswb_capture_open() - create our instance and enable the events this
 *	kernel has
 * @c: out
 * @prefix: instance name prefix ("nfswb-report-", "nfswbd-"); the pid
 *	follows, and instances of the prefix whose pid is gone are removed
 * @flags: NFSWB_CAPTURE_COMMITS_ONLY or 0
 * @server_pid: a userspace NFS server (Ganesha) whose fsync/fdatasync
 *	calls time its COMMITs, or 0; the instance then records only that
 *	process and the threads it starts
 * @offsets: struct offsets for the kprobe on a kernel without BTF, or NULL
 * @extra: more events to enable, "SYSTEM:EVENT" each
 * @nextra: how many
 *
 * COMMIT is timed by nfsd:nfsd_commit_start/done where the kernel has
 * them, else by a kprobe/kretprobe pair on nfsd_commit (libtracefs'
 * dynamic events, removed by nfswb_capture_close()), or by @server_pid's
 * fsync calls; @c->commit_source says which, or what is missing.
 *
 * Return: 0, or a negative errno with the reason in @c->why (nothing left
 * behind): -ENODEV without tracefs, -EOPNOTSUPP when this kernel has none
 * of the events (or, with @server_pid, no fsync events), -ESRCH for no
 * such @server_pid, -EINVAL / -ENOENT for an @extra that is malformed /
 * not on this kernel, or the errno of a tracefs file that cannot be made,
 * written or opened.
 */
int nfswb_capture_open(struct nfswb_capture *c, const char *prefix,
		       unsigned int flags, int server_pid,
		       const struct nfswb_probe_offsets *offsets,
		       char *const *extra, size_t nextra);

/**
 * nfswb_capture_read() - text from the instance's trace_pipe
 * @c: open capture
 * @buf: out
 * @len: size of @buf
 * @timeout_ms: how long to wait for data (0: do not wait)
 *
 * The kernel wakes a reader of the all-CPU trace_pipe at every event
 * (its buffer_percent applies to the per-CPU pipes only).  So that a
 * busy server's events cost a wakeup per batch, not per event, a call
 * that finds the pipe had been drained and then sees data waits up to
 * %NFSWB_CAPTURE_GATHER_MS more (never past @timeout_ms) before it reads.
 *
 * Return: bytes read (whole lines), 0 on timeout or signal, or a
 * negative errno.
 */
ssize_t nfswb_capture_read(struct nfswb_capture *c, char *buf, size_t len,
			   int timeout_ms);
#define NFSWB_CAPTURE_GATHER_MS 50

/* nfswb_capture_close() - remove the instance and probes; safe twice */
void nfswb_capture_close(struct nfswb_capture *c);

#endif
