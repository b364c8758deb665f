// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_filetrack: the tracked-file set: lookup, age order, and the growth
 * estimate the files mechanism adds between two looks at a file.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "mech_files_track.h"
#include "test.h"

#define N	6

static struct nfswb_tracked ent[N];

static void test_order_and_lookup(void)
{
	struct nfswb_filetrack t;
	struct nfswb_tracked *e;
	uint64_t seen[N] = { 0 };
	int i, n;

	T_CHECK(nfswb_filetrack_init(&t, 2) == 0, "init");
	memset(ent, 0, sizeof(ent));
	for (i = 0; i < N; i++) {
		ent[i].dev = 8;
		ent[i].ino = (uint64_t)i + 100;
		nfswb_filetrack_add(&t, &ent[i]);
	}
	T_CHECK(t.count == N, "count %zu", t.count);
	for (i = 0; i < N; i++)
		T_CHECK(nfswb_filetrack_find(&t, 8, (uint64_t)i + 100) ==
			&ent[i], "find %d", i);
	T_CHECK(!nfswb_filetrack_find(&t, 9, 100), "other dev found");

	/* Kicked: goes to the end; deleted: gone from both. */
	nfswb_filetrack_renew(&t, &ent[0]);
	nfswb_filetrack_del(&t, &ent[3]);
	T_CHECK(!nfswb_filetrack_find(&t, 8, 103), "deleted entry found");
	n = 0;
	for (e = t.head; e; e = e->next)
		seen[n++] = e->ino;
	T_CHECK(n == N - 1 && seen[0] == 101 && seen[1] == 102 &&
		seen[2] == 104 && seen[3] == 105 && seen[4] == 100,
		"order %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
		PRIu64, seen[0], seen[1], seen[2], seen[3], seen[4]);
	nfswb_filetrack_free(&t);
}

/*
 * Each row: a file's rate (bytes/ms) and when it was last seen; the set's
 * growth at "now" must equal the sum of rate x (now - seen) over the
 * files seen before now.
 */
static const struct {
	double rate;
	uint64_t seen_ms;
} rows[N] = {
	{ 0, 1000 },		/* idle file */
	{ 4, 1000 },		/* 4 kB/s, seen 1 s before now */
	{ 100, 1900 },		/* 100 kB/s, seen 100 ms before */
	{ 1.5, 0 },		/* seen long ago */
	{ 50, 2000 },		/* seen just now */
	{ 2, 2500 },		/* "seen" after now: no negative growth */
};

static void test_growth(void)
{
	const uint64_t now = 2000;
	struct nfswb_filetrack t;
	uint64_t want = 0, got, one;
	int i, round;

	T_CHECK(nfswb_filetrack_init(&t, N) == 0, "init");
	memset(ent, 0, sizeof(ent));
	for (i = 0; i < N; i++) {
		ent[i].ino = (uint64_t)i;
		nfswb_filetrack_add(&t, &ent[i]);
		nfswb_filetrack_set_growth(&t, &ent[i], rows[i].rate,
					   rows[i].seen_ms);
		one = nfswb_filetrack_growth_of(&ent[i], now);
		if (rows[i].seen_ms < now)
			T_CHECK(one == (uint64_t)(rows[i].rate *
						  (double)(now - rows[i].seen_ms)),
				"row %d: growth %" PRIu64, i, one);
		else
			T_CHECK(one == 0, "row %d: growth %" PRIu64, i, one);
		want += one;
	}
	/* The last row counts negatively in the O(1) sum: 2 x 500 ms. */
	got = nfswb_filetrack_growth(&t, now);
	T_CHECK(got + 1000 == want, "set growth %" PRIu64 ", files %" PRIu64,
		got, want);
	T_CHECK(nfswb_filetrack_growth(&t, 3000) ==
		(uint64_t)(4 * 2000 + 100 * 1100 + 1.5 * 3000 + 50 * 1000 +
			   2 * 500), "growth at 3000 ms: %" PRIu64,
		nfswb_filetrack_growth(&t, 3000));

	/* Running updates agree with a recomputation, after many of them. */
	for (round = 0; round < 100000; round++) {
		i = round % N;
		nfswb_filetrack_set_growth(&t, &ent[i],
					   (double)(round % 97) / 7.0,
					   (uint64_t)round);
	}
	got = nfswb_filetrack_growth(&t, 200000);
	nfswb_filetrack_resum(&t);
	one = nfswb_filetrack_growth(&t, 200000);
	T_CHECK(got + 1 >= one && got <= one + 1,
		"running sum %" PRIu64 " vs recomputed %" PRIu64, got, one);

	/* A file deleted while it grows takes its growth with it. */
	nfswb_filetrack_resum(&t);
	one = nfswb_filetrack_growth_of(&ent[1], 300000);
	got = nfswb_filetrack_growth(&t, 300000);
	T_CHECK(ent[1].rate > 0 && one > 0, "row 1 does not grow");
	nfswb_filetrack_del(&t, &ent[1]);
	T_CHECK(nfswb_filetrack_growth(&t, 300000) + one <= got + 1 &&
		nfswb_filetrack_growth(&t, 300000) + one + 1 >= got,
		"deleting a file growing by %" PRIu64 ": set %" PRIu64
		" -> %" PRIu64, one, got, nfswb_filetrack_growth(&t, 300000));
	nfswb_filetrack_add(&t, &ent[1]);

	/* Negative rates are clamped; an emptied set has no growth. */
	nfswb_filetrack_set_growth(&t, &ent[0], -5, 0);
	T_CHECK(ent[0].rate == 0, "negative rate kept: %f", ent[0].rate);
	for (i = 0; i < N; i++)
		nfswb_filetrack_del(&t, &ent[i]);
	T_CHECK(t.count == 0 && nfswb_filetrack_growth(&t, 1u << 30) == 0,
		"empty set grows");
	nfswb_filetrack_free(&t);
}

int main(void)
{
	test_order_and_lookup();
	test_growth();
	return t_result();
}
