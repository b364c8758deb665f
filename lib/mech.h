/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mech.h - the one interface behind which each writeback mechanism sits.
 *
 *   kernel  write the device's /sys/class/bdi/BDI/dirty_background_time
 *           (patched kernels, kernel-patch/) and let the flusher do the rest
 *   files   fanotify FAN_MODIFY from the writers= processes, cachestat(2)
 *           to know each tracked file's dirty bytes, io_uring
 *           IORING_OP_SYNC_FILE_RANGE (SYNC_FILE_RANGE_WRITE only) to kick
 *   limit   strict_limit=1 and max_bytes = bandwidth x commit_target on
 *           the device's bdi, following the estimate with hysteresis
 *
 * The daemon owns one struct nfswb_mech_dev per device and per active
 * mechanism; the policy (policy.h) decides, the mechanism acts.  Every
 * kernel setting a mechanism changes goes through restore.h first, so it
 * is put back on exit, on reload and after a crash.
 */
#ifndef NFSWB_MECH_H
#define NFSWB_MECH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exports.h"
#include "device.h"
#include "policy.h"

struct nfswb_restore;

/* Counters shown in status.json; a mechanism fills those that apply. */
struct nfswb_mech_counters {
	uint64_t events_seen;		/* fanotify events read */
	uint64_t events_ignored;	/* from processes not in writers= */
	uint64_t files_tracked;		/* now in the LRU */
	uint64_t files_evicted;
	uint64_t kicks;			/* writeback starts issued */
	uint64_t bytes_kicked;
	uint64_t inflight_bytes;	/* kicked, not yet completed */
	uint64_t cap_bytes;		/* dirty cap in force, 0: none */
	uint64_t cap_changes;
	uint64_t knob_ms;		/* kernel knob value in force */
	uint64_t errors;
};

struct nfswb_mech_dev {
	const struct nfswb_device_id *id;
	const char *sysroot;		/* "" on a live system */
	struct nfswb_restore *restore;	/* journal of changed settings */
	/* Exported paths on this device and their combined options. */
	const char *const *paths;
	size_t npaths;
	struct nfswb_export_opts opts;
	unsigned int max_files;		/* files mode LRU size */
	bool use_io_uring;
	struct nfswb_mech_counters c;
	void *priv;
};

struct nfswb_mech {
	const char *name;
	/* Can this kernel do it?  0, or -1 with the missing piece in @why. */
	int (*probe)(const char *sysroot, char *why, size_t len);
	int (*attach)(struct nfswb_mech_dev *d, char *why, size_t len);
	/* An fd the main loop polls for input (fanotify), or -1. */
	int (*poll_fd)(struct nfswb_mech_dev *d);
	void (*on_readable)(struct nfswb_mech_dev *d);
	/* NFS-written dirty bytes on the device, as this mechanism sees them. */
	uint64_t (*dirty_bytes)(struct nfswb_mech_dev *d);
	/* Carry out one policy decision. */
	int (*apply)(struct nfswb_mech_dev *d, const struct nfswb_policy_out *o);
	/* Undo every change and free; safe after a failed attach. */
	void (*detach)(struct nfswb_mech_dev *d);
};

/*
 * files mode checks a tracked file's link count on every
 * NFSWB_FILES_NLINK_EVERY-th refresh of it (and on every one without
 * cachestat), so a deleted file drops out at most that many refreshes
 * after its last link went.  A file is refreshed every interval while at
 * most 8 are tracked, every 20 intervals up to 1280, less often beyond.
 */
#define NFSWB_FILES_NLINK_EVERY	16

extern const struct nfswb_mech nfswb_mech_kernel;
extern const struct nfswb_mech nfswb_mech_files;
extern const struct nfswb_mech nfswb_mech_limit;

#endif
