// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * owners.c - dirty and kicked bytes per file owner, in a fixed table.
 */
#include "config.h"

#include <stdlib.h>

#include "owners.h"

static void owner_sum(struct nfswb_owner *to, const struct nfswb_owner *o)
{
	to->files += o->files;
	to->dirty_bytes += o->dirty_bytes;
	to->kicked_bytes += o->kicked_bytes;
}

void nfswb_owners_add(struct nfswb_owners *t, const struct nfswb_owner *o)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->slot[i].uid == o->uid)
			break;
	if (i == t->n) {
		if (t->n == NFSWB_OWNERS_SLOTS) {
			owner_sum(&t->other, o);
			return;
		}
		t->slot[t->n++] = (struct nfswb_owner){ .uid = o->uid };
	}
	owner_sum(&t->slot[i], o);
}

static int by_bytes(const void *a, const void *b)
{
	const struct nfswb_owner *x = a, *y = b;
	uint64_t bx = x->dirty_bytes + x->kicked_bytes;
	uint64_t by = y->dirty_bytes + y->kicked_bytes;

	if (bx != by)
		return bx > by ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

void nfswb_owners_top(struct nfswb_owners *t, size_t keep)
{
	qsort(t->slot, t->n, sizeof(t->slot[0]), by_bytes);
	while (t->n > keep)
		owner_sum(&t->other, &t->slot[--t->n]);
}
