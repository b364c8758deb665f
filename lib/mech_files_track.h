/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mech_files_track.h - the files mechanism's bounded set of tracked files.
 *
 * Keyed by (st_dev, st_ino) in a hash table and kept on one list in the
 * order the files were first seen dirty, oldest first: the order in which
 * the mechanism kicks them, and the order in which it evicts them when
 * the set is full.  Intrusive: the caller allocates entries.
 *
 * Each entry's dirty count was measured (or accounted) at seen_ms and is
 * taken to grow at its rate since: a file is looked at only every so
 * often, and the writes in between are silent.  The set keeps the sums
 * that give the whole set's growth in O(1).
 */
#ifndef NFSWB_MECH_FILES_TRACK_H
#define NFSWB_MECH_FILES_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_handle;

struct nfswb_tracked {
	uint64_t dev, ino;
	uint32_t uid;		/* st_uid when first seen */
	/*
	 * Held by handle, so that no open file keeps the filesystem busy:
	 * fd is open only while the mechanism looks at the file or kicks on
	 * it are pending, else -1.  Without a handle (a filesystem that
	 * cannot make one) the event's fd is kept instead.
	 */
	struct file_handle *fh;
	int fd;
	struct nfswb_tracked *open_next;	/* opened by the current call */
	bool on_open_list;
	uint64_t first_dirty_ms;	/* since when it has been dirty */
	uint64_t last_dirty_ms;		/* last seen dirty */
	uint64_t dirty_bytes;	/* at seen_ms */
	uint64_t seen_ms;
	double rate;		/* dirty growth since seen_ms, bytes per ms */
	uint64_t writeback_bytes;
	uint64_t base_size;	/* no-cachestat fallback: size at last kick */
	/*
	 * Below this offset the file was clean or under writeback when the
	 * last kicks from it completed: most refreshes count from here, so
	 * their cost follows the dirty tail, not the cached size.
	 */
	uint64_t clean_below;
	uint64_t scrub_at;	/* where the next look below clean_below starts */
	uint64_t kick_end;	/* where the pending kicks end */
	uint64_t size_opened;	/* st_size when last opened by handle */
	bool appended;		/* grown since it was tracked */
	unsigned int pending;	/* kicks not yet completed */
	bool kick_failed;	/* one of them failed: do not advance */
	/*
	 * Seen clean, its ignore mark lifted: its next write is an event,
	 * and until then it is not refreshed (a clean file costs nothing).
	 */
	bool listening;
	bool soon;		/* queued to be refreshed at the next look */
	bool rearmed;		/* written again since it was seen clean */
	/*
	 * The event count when it was tracked or rearmed: an NFSv4 client
	 * gets its delegation at OPEN, before the WRITE behind the event.
	 */
	uint64_t written_seq;
	bool unsure;		/* clean above clean_below: a pass below tells */
	unsigned int looked_call;	/* the mechanism's call that looked first */
	unsigned int refreshes;
	struct nfswb_tracked *prev, *next;	/* age order */
	struct nfswb_tracked *hnext;		/* hash chain */
};

struct nfswb_filetrack {
	struct nfswb_tracked **buckets;
	size_t nbuckets;	/* power of two */
	struct nfswb_tracked *head, *tail;
	size_t count;
	double rate_sum;	/* sum of rate */
	double rate_time_sum;	/* sum of rate x seen_ms */
};

/**
 * nfswb_filetrack_init - an empty set sized for about @max_files entries.
 * Return: 0, or -ENOMEM.
 */
int nfswb_filetrack_init(struct nfswb_filetrack *t, size_t max_files);

/** nfswb_filetrack_find - the entry for (@dev, @ino), or NULL. */
struct nfswb_tracked *nfswb_filetrack_find(const struct nfswb_filetrack *t,
					   uint64_t dev, uint64_t ino);

/** nfswb_filetrack_add - insert @e (not present) as the newest entry. */
void nfswb_filetrack_add(struct nfswb_filetrack *t, struct nfswb_tracked *e);

/** nfswb_filetrack_del - unlink @e from the hash and the list. */
void nfswb_filetrack_del(struct nfswb_filetrack *t, struct nfswb_tracked *e);

/** nfswb_filetrack_renew - make @e the newest entry (it was just kicked). */
void nfswb_filetrack_renew(struct nfswb_filetrack *t,
			   struct nfswb_tracked *e);

/**
 * nfswb_filetrack_set_growth - @e was measured at @seen_ms and grows at
 * @rate bytes per ms from then on (its dirty_bytes is the caller's).
 */
void nfswb_filetrack_set_growth(struct nfswb_filetrack *t,
				struct nfswb_tracked *e, double rate,
				uint64_t seen_ms);

/** nfswb_filetrack_growth_of - @e's dirty bytes gained since seen_ms. */
uint64_t nfswb_filetrack_growth_of(const struct nfswb_tracked *e,
				   uint64_t now_ms);

/** nfswb_filetrack_growth - the whole set's, in O(1). */
uint64_t nfswb_filetrack_growth(const struct nfswb_filetrack *t,
				uint64_t now_ms);

/**
 * nfswb_filetrack_resum - recompute the growth sums from the entries, so
 * that rounding in their running updates cannot build up; O(n).
 */
void nfswb_filetrack_resum(struct nfswb_filetrack *t);

/** nfswb_filetrack_free - free the table; entries are the caller's. */
void nfswb_filetrack_free(struct nfswb_filetrack *t);

#endif
