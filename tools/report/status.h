/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * status.h - what nfs-report reads from nfswbd's status.json.
 */
#ifndef NFSWB_REPORT_STATUS_H
#define NFSWB_REPORT_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#define STATUS_MAX	64

struct status_device {
	char bdi[64];
	bool has_dirty, has_bandwidth;
	uint64_t dirty, bandwidth;
};

/* Dirty and kicked bytes per file owner, when the daemon reports owners. */
struct status_owner {
	uint32_t uid;
	uint64_t dirty, kicked;
	unsigned int files;
};

struct status_doc {
	struct status_device devices[STATUS_MAX];
	size_t ndevices;
	struct status_owner owners[STATUS_MAX];
	size_t nowners;
};

/**
 * status_read() - the devices and owners of a status.json
 * @path: file
 * @doc: out
 *
 * Return: 0, -errno if unreadable, -EINVAL if not JSON.
 */
int status_read(const char *path, struct status_doc *doc);

struct nfswb_trace;

/**
 * samples_read_jsonl() - add the samples of a lab's JSON-lines file
 * @t: trace to add to (then call nfswb_trace_finish())
 * @path: file of {"t": SECONDS, "LABEL.BdiReclaimable": KB, ...} lines
 * @cmd: subcommand, for messages
 *
 * Malformed lines are reported with their line numbers and skipped.
 * Return: 0, or -1 for an unreadable file (reported on stderr).
 */
int samples_read_jsonl(struct nfswb_trace *t, const char *path,
		       const char *cmd);

#endif
