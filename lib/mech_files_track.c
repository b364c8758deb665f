// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_files_track.c - hash + age-ordered list of tracked files
 * (mech_files_track.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "mech_files_track.h"

static size_t bucket_of(const struct nfswb_filetrack *t, uint64_t dev,
			uint64_t ino)
{
	/* 64-bit mix (splitmix64 finaliser): inode numbers are sequential. */
	uint64_t h = ino ^ (dev * 0x9e3779b97f4a7c15ull);

	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (size_t)h & (t->nbuckets - 1);
}

int nfswb_filetrack_init(struct nfswb_filetrack *t, size_t max_files)
{
	size_t n = 16;

	while (n < max_files && n < ((size_t)1 << 30))
		n <<= 1;
	t->buckets = calloc(n, sizeof(*t->buckets));
	if (!t->buckets)
		return -ENOMEM;
	t->nbuckets = n;
	t->head = t->tail = NULL;
	t->count = 0;
	t->rate_sum = t->rate_time_sum = 0;
	return 0;
}

struct nfswb_tracked *nfswb_filetrack_find(const struct nfswb_filetrack *t,
					   uint64_t dev, uint64_t ino)
{
	struct nfswb_tracked *e = t->buckets[bucket_of(t, dev, ino)];

	for (; e; e = e->hnext)
		if (e->ino == ino && e->dev == dev)
			return e;
	return NULL;
}

static void list_append(struct nfswb_filetrack *t, struct nfswb_tracked *e)
{
	e->next = NULL;
	e->prev = t->tail;
	if (t->tail)
		t->tail->next = e;
	else
		t->head = e;
	t->tail = e;
}

static void list_unlink(struct nfswb_filetrack *t, struct nfswb_tracked *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		t->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		t->tail = e->prev;
	e->prev = e->next = NULL;
}

void nfswb_filetrack_add(struct nfswb_filetrack *t, struct nfswb_tracked *e)
{
	size_t b = bucket_of(t, e->dev, e->ino);

	e->hnext = t->buckets[b];
	t->buckets[b] = e;
	list_append(t, e);
	t->count++;
	t->rate_sum += e->rate;
	t->rate_time_sum += e->rate * (double)e->seen_ms;
}

void nfswb_filetrack_del(struct nfswb_filetrack *t, struct nfswb_tracked *e)
{
	struct nfswb_tracked **pp = &t->buckets[bucket_of(t, e->dev, e->ino)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == e) {
			*pp = e->hnext;
			break;
		}
	}
	e->hnext = NULL;
	list_unlink(t, e);
	t->count--;
	t->rate_sum -= e->rate;
	t->rate_time_sum -= e->rate * (double)e->seen_ms;
	if (!t->count)
		t->rate_sum = t->rate_time_sum = 0;
}

void nfswb_filetrack_renew(struct nfswb_filetrack *t,
			   struct nfswb_tracked *e)
{
	list_unlink(t, e);
	list_append(t, e);
}

void nfswb_filetrack_set_growth(struct nfswb_filetrack *t,
				struct nfswb_tracked *e, double rate,
				uint64_t seen_ms)
{
	if (rate < 0)
		rate = 0;
	t->rate_sum += rate - e->rate;
	t->rate_time_sum += rate * (double)seen_ms -
			    e->rate * (double)e->seen_ms;
	e->rate = rate;
	e->seen_ms = seen_ms;
}

uint64_t nfswb_filetrack_growth_of(const struct nfswb_tracked *e,
				   uint64_t now_ms)
{
	if (now_ms <= e->seen_ms)
		return 0;
	return (uint64_t)(e->rate * (double)(now_ms - e->seen_ms));
}

uint64_t nfswb_filetrack_growth(const struct nfswb_filetrack *t,
				uint64_t now_ms)
{
	double g = t->rate_sum * (double)now_ms - t->rate_time_sum;

	/* Negative only by rounding, or when entries were seen "later". */
	return g > 0 ? (uint64_t)g : 0;
}

void nfswb_filetrack_resum(struct nfswb_filetrack *t)
{
	struct nfswb_tracked *e;

	t->rate_sum = t->rate_time_sum = 0;
	for (e = t->head; e; e = e->next) {
		t->rate_sum += e->rate;
		t->rate_time_sum += e->rate * (double)e->seen_ms;
	}
}

void nfswb_filetrack_free(struct nfswb_filetrack *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->nbuckets = 0;
	t->head = t->tail = NULL;
	t->count = 0;
	t->rate_sum = t->rate_time_sum = 0;
}
