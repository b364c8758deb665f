/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.h - read the ftrace text format (the tracefs "trace" and
 * "trace_pipe" files, trace-cmd report) for the events that show what an
 * NFS server's clients wait for:
 *
 *   sunrpc:svc_stats_latency   xid=0x.. server=A client=A proc=COMMIT execute-us=N
 *   nfsd:nfsd_write_start/done xid=0x.. fh_hash=0x.. offset=N len=N
 *   nfsd:nfsd_commit_start/done (same fields; upstream 2025, patched 6.12)
 *   writeback:wb_bg_time_kick  (patched kernel; any key=value fields)
 *   syscalls:sys_enter_fsync/fdatasync, sys_exit_* and raw_syscalls
 *	sys_enter/sys_exit NR 74/75 (x86-64): a userspace server's COMMIT
 *   nfswb_commit_entry/_exit: the kprobe/kretprobe pair nfswb-report
 *	record puts on nfsd_commit where the tracepoints are missing,
 *	"(nfsd_commit+0x0/0x..) [xid_be=0x..] [dev=N] [ino=N] [uid=N]"
 *	(the file's owner; dev is the
 *	kernel's s_dev, MAJOR << 20 | MINOR; xid_be the xid's bytes as a
 *	little-endian u32); every NFS version's COMMIT goes through it
 *   nfswb_commit_file: the same entry kprobe, made beside the nfsd_commit
 *	tracepoints to name the file of the nfsd_commit_start that follows
 *	on the same thread (the tracepoints carry only a hash of the handle)
 *
 * and nfswb's own comment lines, which carry samples taken beside the
 * trace (documented in nfswb-report(1)):
 *
 *   # nfswb-sample t=SECONDS [bdi=MAJ:MIN] [dirty=BYTES]
 *	[writeback=BYTES] [bandwidth=BYTES_PER_S] [key=value ...]
 *   # nfswb-export dev=MAJ:MIN path=PATH (the rest of the line)
 *
 * t is in the trace's own clock (nfswb-report record sets "mono", so
 * CLOCK_MONOTONIC).  Malformed lines are counted with their line numbers;
 * nothing in the input can make the parser fail other than memory.
 */
#ifndef NFSWB_TRACE_H
#define NFSWB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latency.h"

enum nfswb_trace_kind {
	NFSWB_TEV_IGNORED = 0,	/* comment, blank, or an event not used */
	NFSWB_TEV_RPC_LATENCY,	/* svc_stats_latency */
	NFSWB_TEV_WRITE_START,
	NFSWB_TEV_WRITE_DONE,
	NFSWB_TEV_COMMIT_START,
	NFSWB_TEV_COMMIT_DONE,
	NFSWB_TEV_FSYNC_ENTER,	/* fsync or fdatasync, sys_enter */
	NFSWB_TEV_FSYNC_EXIT,
	NFSWB_TEV_BG_KICK,	/* writeback:wb_bg_time_kick */
	NFSWB_TEV_SAMPLE,	/* "# nfswb-sample" */
	NFSWB_TEV_LOST,		/* "CPU:N [LOST M EVENTS]" */
	NFSWB_TEV_KCOMMIT_ENTRY,	/* kprobe on nfsd_commit */
	NFSWB_TEV_KCOMMIT_EXIT,		/* its kretprobe */
	NFSWB_TEV_EXPORT,	/* "# nfswb-export" */
	NFSWB_TEV_KCOMMIT_FILE,	/* entry kprobe beside the tracepoints */
};

#define NFSWB_TRACE_ADDR_LEN	64
#define NFSWB_TRACE_NAME_LEN	32

/* One parsed line; which members are set depends on @kind. */
struct nfswb_trace_event {
	enum nfswb_trace_kind kind;
	double ts;			/* seconds, trace clock */
	int pid;
	/* svc_stats_latency */
	uint32_t xid;
	char proc[NFSWB_TRACE_NAME_LEN];
	char client[NFSWB_TRACE_ADDR_LEN];
	uint64_t execute_us;
	/* nfsd_io_class */
	uint32_t fh_hash;
	uint64_t offset, len;
	/* sample */
	char bdi[NFSWB_TRACE_NAME_LEN];
	bool has_dirty, has_writeback, has_bandwidth;
	uint64_t dirty, writeback, bandwidth;
	/* lost events */
	uint64_t lost;
	/* fsync: the descriptor synced */
	bool has_fd;
	int fd;
	/* kprobe: the file and its owner; export line: dev and path */
	bool has_xid, has_file, has_uid;
	uint32_t uid;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	char path[256];
};

/**
 * nfswb_trace_parse_line() - parse one line of ftrace text
 * @line: the line, without its newline; need not be NUL-terminated
 * @len: its length
 * @ev: out: the event (zeroed first)
 * @why: out: on -EINVAL, a static reason
 *
 * Return: 1 for an event of a kind above, 0 for a line to ignore,
 * -EINVAL for a malformed line (a recognised event without its fields, a
 * line that is not in the ftrace format, a number out of range).
 */
int nfswb_trace_parse_line(const char *line, size_t len,
			   struct nfswb_trace_event *ev, const char **why);

/* Where the COMMIT figures came from, best first. */
enum nfswb_commit_source {
	NFSWB_SRC_NONE = 0,
	NFSWB_SRC_RPC,		/* svc_stats_latency proc=COMMIT */
	NFSWB_SRC_NFSD,		/* nfsd_commit_start -> _done */
	NFSWB_SRC_FSYNC,	/* fsync/fdatasync of a userspace server */
	NFSWB_SRC_KPROBE,	/* kprobe/kretprobe on nfsd_commit */
};

/* One timed operation. */
struct nfswb_trace_op {
	double ts;		/* completion, seconds */
	uint64_t us;		/* latency */
	uint64_t bytes;		/* WRITE length, 0 if unknown */
	uint32_t xid;
	uint32_t fh_hash;
	bool has_fh;		/* fh_hash known (nfsd events) */
	bool has_file;		/* dev/ino known (kprobe, or nfswb_commit_file) */
	bool has_uid;		/* the file's owner known (kprobe) */
	uint32_t uid;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	int client;		/* index in clients[], -1 if unknown */
	int pid;		/* the thread that completed it */
	bool has_fd;		/* fsync: the descriptor synced */
	int fd;
};

struct nfswb_trace_ops {
	struct nfswb_trace_op *v;
	size_t count, cap;
};

struct nfswb_trace_sample {
	double t;
	char bdi[NFSWB_TRACE_NAME_LEN];
	bool has_dirty, has_writeback, has_bandwidth;
	uint64_t dirty, writeback, bandwidth;
};

/* A malformed line kept for the report; all of them are counted. */
struct nfswb_trace_bad {
	char *file;
	unsigned int line;
	const char *why;
};

#define NFSWB_TRACE_KEEP_BAD	50

/* An export's device, from a "# nfswb-export" line. */
struct nfswb_trace_export {
	uint32_t dev_major, dev_minor;
	char *path;
};

/* Everything read from one or more files. */
struct nfswb_trace {
	struct nfswb_trace_ops rpc_commit, rpc_write;	/* svc_stats_latency */
	struct nfswb_trace_ops nfsd_commit, nfsd_write;	/* start -> done */
	struct nfswb_trace_ops fsync;			/* enter -> exit */
	struct nfswb_trace_ops kprobe_commit;		/* entry -> exit */
	struct nfswb_trace_export *exports;
	size_t nexports, exports_cap;
	struct nfswb_trace_sample *samples;
	size_t nsamples, samples_cap;
	double *kicks;					/* wb_bg_time_kick */
	size_t nkicks, kicks_cap;
	char **clients;
	size_t nclients, clients_cap;
	/* Open start events waiting for their done/exit. */
	struct nfswb_trace_pending *pending;
	size_t npending, pending_cap;

	uint64_t lines, events, lost_events, unmatched;
	uint64_t nbad;
	struct nfswb_trace_bad bad[NFSWB_TRACE_KEEP_BAD];
	double first_ts, last_ts;
	bool any_ts;
};

/**
 * nfswb_trace_init() - an empty trace
 * @t: trace to initialise
 */
void nfswb_trace_init(struct nfswb_trace *t);

/**
 * nfswb_trace_feed() - parse and accumulate one line
 * @t: trace
 * @file: name for error messages
 * @lineno: 1-based line number
 * @line: the line without newline
 * @len: its length
 *
 * Return: 0, or -ENOMEM.
 */
int nfswb_trace_feed(struct nfswb_trace *t, const char *file,
		     unsigned int lineno, const char *line, size_t len);

/**
 * nfswb_trace_add_sample() - add a sample read from elsewhere (a lab's
 *	JSON lines, a status file) as if it came in a "# nfswb-sample" line
 * @t: trace
 * @s: the sample; its t must be in the trace's clock
 *
 * Return: 0, or -ENOMEM.
 */
int nfswb_trace_add_sample(struct nfswb_trace *t,
			   const struct nfswb_trace_sample *s);

/**
 * nfswb_trace_read_file() - accumulate every line of a file ("-" is stdin)
 * @t: trace
 * @path: file
 *
 * Return: 0, or a negative errno for a file that cannot be read (the
 * content never fails).
 */
int nfswb_trace_read_file(struct nfswb_trace *t, const char *path);

/**
 * nfswb_trace_finish() - resolve what only the whole trace tells
 * @t: trace
 *
 * Gives nfsd-paired and kprobe operations the client of the
 * svc_stats_latency event with the same xid, and svc_stats_latency
 * operations the fh_hash of the nfsd event and the file of the kprobe
 * (or file probe) with the same xid, counts start events that never
 * completed, and sorts samples by time.
 */
void nfswb_trace_finish(struct nfswb_trace *t);

/**
 * nfswb_trace_commits() - the COMMIT operations to report on
 * @t: finished trace
 * @src: out: which source they came from
 *
 * Return: of svc_stats_latency COMMITs (NFSv3 only), nfsd_commit
 * tracepoint pairs and nfsd_commit kprobe pairs (every version), the one
 * that saw the most COMMITs, svc_stats_latency on a tie (it includes the
 * RPC's own time); else fsync pairs.  Never a mix: they time the same
 * COMMITs differently.
 */
const struct nfswb_trace_ops *nfswb_trace_commits(const struct nfswb_trace *t,
					       enum nfswb_commit_source *src);

/**
 * nfswb_trace_drain() - hand every COMMIT completed so far to @fn and
 *	forget every completed operation, for a reader that runs for as long
 *	as the server does (nfswbd) and must not keep them
 * @t: trace being fed
 * @fn: called once per COMMIT, with its source
 * @arg: for @fn
 *
 * Return: the COMMITs handed over.
 */
size_t nfswb_trace_drain(struct nfswb_trace *t,
			 void (*fn)(const struct nfswb_trace_op *op,
				    enum nfswb_commit_source src, void *arg),
			 void *arg);

/**
 * nfswb_trace_writes() - the WRITE operations to report latency on
 * @t: finished trace
 * @rpc: out: true if they are svc_stats_latency WRITEs (no byte counts),
 *	false if nfsd_write pairs
 */
const struct nfswb_trace_ops *nfswb_trace_writes(const struct nfswb_trace *t,
					      bool *rpc);

/**
 * nfswb_commit_source_name() - "svc_stats_latency", "nfsd_commit", ...
 * @src: source
 */
const char *nfswb_commit_source_name(enum nfswb_commit_source src);

/**
 * nfswb_trace_export_of() - the export a device belongs to
 * @t: trace
 * @major: device major
 * @minor: device minor
 *
 * Return: the first "# nfswb-export" of that device, or NULL.
 */
const struct nfswb_trace_export *
nfswb_trace_export_of(const struct nfswb_trace *t, uint32_t major,
		      uint32_t minor);

/**
 * nfswb_trace_print_bad() - "FILE:LINE: reason" for the kept bad lines and
 *	a count of the rest
 * @t: trace
 * @out: stream
 */
void nfswb_trace_print_bad(const struct nfswb_trace *t, FILE *out);

/**
 * nfswb_trace_free() - release everything
 * @t: trace
 */
void nfswb_trace_free(struct nfswb_trace *t);

#endif
