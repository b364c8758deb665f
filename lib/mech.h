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
 * mechanism.  Each interval the mechanisms observe, the step (step.h)
 * decides, the mechanisms act.  Every
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
struct nfswb_owners;

/*
 * Each mechanism keeps its own counters in nfswb_mech_dev.count[], named
 * by its counter_names (status.json shows them under those names).
 */
#define NFSWB_MECH_MAX_COUNTERS	12

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
	/*
	 * Files mode may open a leased file (an NFSv4 delegation, which
	 * nfsd then recalls): set by the caller each interval from
	 * nfswb_written_bound_commits_seldom().
	 */
	bool may_break_leases;
	uint64_t count[NFSWB_MECH_MAX_COUNTERS];
	void *priv;
};

/*
 * A primary mechanism does the early writeback, one per device; mode=auto
 * takes the first primary in the registry this kernel has (one acting on
 * the whole device only while no local writers are found).  An overlay
 * runs beside the primary when the options want it (limit with
 * commit_target); mode=NAME selects either kind alone.
 */
enum nfswb_mech_role {
	NFSWB_MECH_PRIMARY,
	NFSWB_MECH_OVERLAY,
};

struct nfswb_mech {
	const char *name;
	enum nfswb_mech_role role;
	enum nfswb_mode mode;		/* mode=NAME */
	/*
	 * It acts on all the data dirtied on the device, NFS's or not (the
	 * kernel knob): mode=auto then prefers it only where no local
	 * writers dirty the device (policy.h's local watch), and uses the
	 * next primary meanwhile.
	 */
	bool whole_device;
	/* Overlays: do these options ask for it, and which one does. */
	bool (*wanted)(const struct nfswb_export_opts *o);
	const char *wanted_by;
	const char *const *counter_names;	/* NULL-terminated */
	/*
	 * Can this kernel do it?  0, or a negative errno with the missing
	 * piece in @why.  (attach and apply return 0 or a negative errno
	 * too.)
	 * On success @why may say what made it available.
	 */
	int (*probe)(const char *sysroot, char *why, size_t len);
	int (*attach)(struct nfswb_mech_dev *d, char *why, size_t len);
	/* An fd the main loop polls for input (fanotify), or -1. */
	int (*poll_fd)(struct nfswb_mech_dev *d);
	void (*on_readable)(struct nfswb_mech_dev *d);
	/* NFS-written dirty bytes on the device, as this mechanism sees them. */
	uint64_t (*dirty_bytes)(struct nfswb_mech_dev *d);
	/*
	 * Before the decision: fill in what this mechanism has in force
	 * and what the kernel reports beside it (policy.h's inputs).
	 */
	void (*observe)(struct nfswb_mech_dev *d, struct nfswb_policy_in *in);
	/* Carry out one policy decision; the deciding is the policy's. */
	int (*apply)(struct nfswb_mech_dev *d, const struct nfswb_policy_out *o);
	/* Optional: dirty and kicked bytes per file owner, the top ones. */
	void (*owners)(const struct nfswb_mech_dev *d, struct nfswb_owners *out);
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

/*
 * Data a writer rewrites in place below where a tracked file was last
 * seen clean makes no event while the file is silenced; files mode finds
 * it within NFSWB_FILES_SCRUB_PASS refreshes of the file, one stretch of
 * that part a refresh (at most 2 MiB: a file caching more takes longer).
 * The stretches cost what the appended tail does, not many times it:
 * while nfsd appends, the tail a refresh walks is what came since the
 * last COMMIT (tempfile's 256 MiB file: about 512 pages).
 */
#define NFSWB_FILES_SCRUB_PASS	128

/*
 * Each mechanism file defines one struct nfswb_mech nfswb_mech_NAME for
 * the file lib/mech_NAME.c; naming the file in lib/mech.am's NFSWB_MECHS
 * registers it (mech_list.h, generated at build time, holds one
 * NFSWB_MECH(name, NAME) line per mechanism, in that list's order).
 */
#define NFSWB_MECH(name, NAME) extern const struct nfswb_mech nfswb_mech_##name;
#include "mech_list.h"
#undef NFSWB_MECH

/*
 * The registry (mech.c), in probe order: mode=auto takes the first
 * primary this kernel has and falls back to the next primary when one
 * fails to attach.  NULL-terminated.
 */
extern const struct nfswb_mech *const nfswb_mechs[];

/* Most mechanisms one device can have: a primary and the overlays. */
enum {
	NFSWB_MECH_MAX_PER_DEV = 0
#define NFSWB_MECH(name, NAME) + 1
#include "mech_list.h"
#undef NFSWB_MECH
};

/** nfswb_mech_by_mode - the mechanism mode=@mode names, or NULL. */
const struct nfswb_mech *nfswb_mech_by_mode(enum nfswb_mode mode);

/**
 * nfswb_mech_usable - probe @m, with a reason either way in @why.
 * Return: true when this kernel has what @m needs.
 */
bool nfswb_mech_usable(const struct nfswb_mech *m, const char *sysroot,
		       char *why, size_t len);

/**
 * nfswb_mech_next_primary - the fallback: the first primary after @after
 * (NULL: from the top) that this kernel has.
 * @why: "NAME mode unavailable: WHY" for each one passed over, joined
 *       with "; ", or the chosen one's own reason when none was
 * Return: the mechanism, or NULL when no primary is left.
 */
const struct nfswb_mech *nfswb_mech_next_primary(const struct nfswb_mech *after,
						 const char *sysroot,
						 char *why, size_t len);

/**
 * nfswb_mech_counter - counter @name of @m on @d; 0 if @m has none such.
 */
uint64_t nfswb_mech_counter(const struct nfswb_mech *m,
			    const struct nfswb_mech_dev *d, const char *name);

#endif
