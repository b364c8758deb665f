/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - what the nfswb-report subcommands share: the command table,
 * the figures computed from a trace, and the tracefs capture.
 */
#ifndef NFSWB_REPORT_H
#define NFSWB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latency.h"
#include "trace.h"

/* Exit codes: 0 success, 1 bad input or failure, 2 usage. */
#define REPORT_EXIT_USAGE	2

/* One option of a subcommand: its getopt entry and its help. */
struct report_opt {
	int key;		/* the short option, what report_getopt returns */
	const char *name;	/* the long option */
	const char *arg;	/* its argument's name, NULL for a flag */
	const char *help;	/* '\n' starts another line */
};

/*
 * A subcommand.  Its synopsis (.args) is written once: the usage line of
 * errors and of --help both print it; --help lists .opts, and
 * report_getopt() parses them.
 */
struct report_cmd {
	const char *name;
	const char *args;	/* synopsis after the name */
	const char *oneline;	/* one-line description */
	const char *about;	/* --help's paragraph below the synopsis */
	const struct report_opt *opts;	/* ends with { 0 }; -h is added */
	int (*run)(int argc, char **argv);
};

/* Most options a subcommand has, -h aside. */
#define REPORT_MAX_OPTS	15

/**
 * report_getopt() - getopt_long() over @cmd's option table
 *
 * Return: the option's key, 'h' for --help, '?' for an unknown option or
 * a missing argument (getopt has said which), -1 after the last option.
 */
int report_getopt(const struct report_cmd *cmd, int argc, char **argv);

/* --help of @cmd on @out, from .args, .about and .opts; returns 0. */
int report_help(const struct report_cmd *cmd, FILE *out);

/*
 * Each subcommand's file NAME.c defines report_NAME_cmd; naming the file
 * in Makefile.am's REPORT_CMDS registers it (report_cmds.h, generated at
 * build time, holds one REPORT_CMD(name, NAME) line per subcommand).
 */
#define REPORT_CMD(name, NAME) extern const struct report_cmd report_##name##_cmd;
#include "report_cmds.h"
#undef REPORT_CMD

/* "nfswb-report CMD: ..." on stderr. */
void report_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Usage error: message, the subcommand's synopsis, exit code 2. */
int report_usage(const struct report_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* After getopt_long() reported an unknown option: the synopsis, exit 2. */
int report_bad_option(const struct report_cmd *cmd);

struct nfswb_probe_offsets;
/*
 * -P, --probe-offsets FILE of record and live: load @file into @o.
 * Return: 0, or REPORT_EXIT_USAGE after saying why.
 */
int report_opt_probe_offsets(const struct report_cmd *cmd, const char *file,
			     struct nfswb_probe_offsets *o);

enum report_by {
	REPORT_BY_NONE,
	REPORT_BY_CLIENT,
	REPORT_BY_FILE,		/* nfsd's fh_hash: one file handle */
	REPORT_BY_EXPORT,	/* the COMMIT's device (kprobe's dev) */
	REPORT_BY_OWNER,	/* the COMMIT's file owner (kprobe's uid) */
};

/* The figures of one group of operations (or of all of them). */
struct report_group {
	char *name;
	struct nfswb_lat commit, write;
	struct nfswb_lat_summary commit_s, write_s;
	uint64_t write_bytes, write_ops;	/* from nfsd_write events */
	double write_first, write_last;		/* start/end, seconds */
};

struct report_index_slot {
	bool used;
	uint64_t key;
	size_t group;
};

struct report_figures {
	struct nfswb_trace trace;
	enum nfswb_commit_source commit_src;
	bool write_rpc;
	struct report_group all;
	struct report_group *groups;
	size_t ngroups, groups_cap;
	struct report_index_slot *index;	/* group key -> groups[] */
	size_t index_cap;
	enum report_by by;
};

/**
 * report_parse_by() - "client", "export", "file", "none"
 * @s: option argument
 * @by: out
 * @why: out on failure
 *
 * Return: 0, or -1.
 */
int report_parse_by(const char *s, enum report_by *by, const char **why);
/* report_by_name() - "client", "export", "file" or "none" */
const char *report_by_name(enum report_by by);

/**
 * report_read_lines() - every line of a file named on the command line,
 * in bounded memory (lines.h)
 * @cmd: subcommand, for messages
 * @path: the file, "-" for stdin
 * @line_fn: called for each line with its number; non-zero stops (a
 *	negative errno)
 * @ctx: for @line_fn
 *
 * Errors are reported on stderr with the file (and the line, for one
 * longer than 64 KiB).  Return: 0, or -1.
 */
int report_read_lines(const char *cmd, const char *path,
		      int (*line_fn)(void *ctx, const char *path,
				     unsigned int lineno, const char *line,
				     size_t len),
		      void *ctx);

/**
 * report_load() - read trace files and compute every figure
 * @f: out
 * @cmd: subcommand name for messages
 * @files: paths ("-" for stdin)
 * @nfiles: count
 * @by: grouping
 * @samples: a lab's JSON-lines samples to add, or NULL
 *
 * Malformed lines are reported on stderr with their line numbers and do
 * not fail the load.  Return: 0, or -1 for an unreadable file or no memory.
 */
int report_load(struct report_figures *f, const char *cmd, char **files,
		int nfiles, enum report_by by, const char *samples);
void report_figures_free(struct report_figures *f);

/* Write rate of a group in bytes/s, or a negative value if unknown. */
double report_write_rate(const struct report_group *g);

/**
 * report_json_group() - the figures of @g as members of the open object
 * @j: writer
 * @f: figures (for the sources)
 * @g: group
 */
void report_json_group(struct nfswb_json *j, const struct report_figures *f,
		       const struct report_group *g);

/* Human-readable byte counts and rates: "384.0 MiB", "20.1 MiB/s". */
char *report_bytes(double bytes, char *buf, size_t len);

/* Owner names for the per-owner view (idmap.c). */
/**
 * report_owner_name() - NFSv4 name of a uid, "user@domain" via libnfsidmap
 * @uid: owner
 * @buf: out
 * @len: size of @buf
 *
 * Falls back to the decimal uid when no mapping exists.  Return: @buf.
 */
char *report_owner_name(uint32_t uid, char *buf, size_t len);

#endif
