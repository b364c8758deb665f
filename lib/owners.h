/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * owners.h - dirty and kicked bytes per file owner (st_uid), bounded.
 *
 * A device counts at most NFSWB_OWNERS_SLOTS distinct owners; the bytes
 * of any further owner go to the "other" bucket, so memory stays fixed
 * however many users write.  For status.json the owners are sorted by
 * bytes and all but the first NFSWB_OWNERS_SHOWN folded into "other".
 */
#ifndef NFSWB_OWNERS_H
#define NFSWB_OWNERS_H

#include <stddef.h>
#include <stdint.h>

#define NFSWB_OWNERS_SLOTS	64
#define NFSWB_OWNERS_SHOWN	16

struct nfswb_owner {
	uint32_t uid;
	uint32_t files;		/* tracked files it owns */
	uint64_t dirty_bytes;	/* measured dirty now */
	uint64_t kicked_bytes;	/* kicked since the mechanism attached */
};

struct nfswb_owners {
	struct nfswb_owner slot[NFSWB_OWNERS_SLOTS];
	size_t n;
	struct nfswb_owner other;	/* uid unused */
};

/** nfswb_owners_add - add @o's counts to its owner's slot (or "other"). */
void nfswb_owners_add(struct nfswb_owners *t, const struct nfswb_owner *o);

/**
 * nfswb_owners_top - sort by dirty plus kicked bytes, largest first, and
 * fold all slots after the first @keep into "other".
 */
void nfswb_owners_top(struct nfswb_owners *t, size_t keep);

#endif
