// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_owners: the per-owner table sums by uid, keeps at most
 * NFSWB_OWNERS_SLOTS owners (later ones go to "other"), and its top-N
 * sorts by dirty plus kicked bytes and folds the rest into "other",
 * losing no byte on the way.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "owners.h"
#include "test.h"

static uint64_t total(const struct nfswb_owners *t)
{
	uint64_t s = t->other.dirty_bytes + t->other.kicked_bytes;

	for (size_t i = 0; i < t->n; i++)
		s += t->slot[i].dirty_bytes + t->slot[i].kicked_bytes;
	return s;
}

int main(void)
{
	struct nfswb_owners t;
	uint64_t sum = 0;

	memset(&t, 0, sizeof(t));
	/* Owner u writes u bytes dirty and u kicked, in two calls. */
	for (uint32_t u = 1; u <= NFSWB_OWNERS_SLOTS + 10; u++) {
		nfswb_owners_add(&t, &(struct nfswb_owner){
			.uid = u, .files = 1, .dirty_bytes = u });
		nfswb_owners_add(&t, &(struct nfswb_owner){
			.uid = u, .kicked_bytes = u });
		sum += 2 * u;
	}
	T_CHECK(t.n == NFSWB_OWNERS_SLOTS, "%zu slots", t.n);
	T_CHECK(t.slot[4].uid == 5 && t.slot[4].dirty_bytes == 5 &&
		t.slot[4].kicked_bytes == 5 && t.slot[4].files == 1,
		"uid 5 not summed: uid %u dirty %" PRIu64 " kicked %" PRIu64,
		t.slot[4].uid, t.slot[4].dirty_bytes, t.slot[4].kicked_bytes);
	T_CHECK(t.other.files == 10, "other has %u files, want 10",
		t.other.files);
	T_CHECK(total(&t) == sum, "bytes lost: %" PRIu64 " of %" PRIu64,
		total(&t), sum);

	nfswb_owners_top(&t, NFSWB_OWNERS_SHOWN);
	T_CHECK(t.n == NFSWB_OWNERS_SHOWN, "top kept %zu", t.n);
	for (size_t i = 0; i < t.n; i++)
		T_CHECK(t.slot[i].uid == NFSWB_OWNERS_SLOTS - i,
			"slot %zu is uid %u, want %zu", i, t.slot[i].uid,
			(size_t)NFSWB_OWNERS_SLOTS - i);
	T_CHECK(t.other.files == 10 + NFSWB_OWNERS_SLOTS - NFSWB_OWNERS_SHOWN,
		"other has %u files", t.other.files);
	T_CHECK(total(&t) == sum, "top lost bytes: %" PRIu64 " of %" PRIu64,
		total(&t), sum);
	return t_result();
}
