// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pattern.c - the data pattern of lib/pattern.c: SplitMix64's
 * reference output, fills at any offset agreeing with the aligned fill,
 * and the check naming the first wrong byte and its expected value.
 */
#include <stdint.h>
#include <string.h>

#include "pattern.h"
#include "test.h"

#define SPAN	4096

int main(void)
{
	static uint64_t aligned[SPAN / 8 + 1], buf[SPAN / 8 + 2];
	const uint64_t key = nfswb_pattern_key(42, 3);
	const uint8_t *all, *p;
	uint8_t copy[SPAN], want;
	size_t i, j;

	/* Vigna's splitmix64.c seeded with 0 starts with this word. */
	T_CHECK(nfswb_splitmix64(0) == 0xe220a8397b1dcdafull, "%#llx",
		(unsigned long long)nfswb_splitmix64(0));
	T_CHECK(nfswb_pattern_key(42, 3) == nfswb_splitmix64(45), "key");
	T_CHECK(nfswb_pattern_key(42, 3) != nfswb_pattern_key(42, 4),
		"streams differ");

	T_CHECK(nfswb_pattern_words(0, 8) == 1, "one word");
	T_CHECK(nfswb_pattern_words(7, 2) == 2, "straddles two words");
	T_CHECK(nfswb_pattern_words(8, 0) == 0, "empty");

	all = nfswb_pattern_fill(aligned, key, 0, SPAN);
	T_CHECK(all == (const uint8_t *)aligned, "aligned fill starts at buf");

	/* Every word of a stream is different (the multiply is a bijection). */
	for (i = 0; i < SPAN / 8; i++)
		for (j = i + 1; j < SPAN / 8; j++)
			if (aligned[i] == aligned[j])
				T_CHECK(0, "words %zu and %zu are equal", i, j);

	/* A fill at any offset and length is the same bytes. */
	for (i = 0; i < 24; i++) {
		size_t len = SPAN - 24 - i;

		p = nfswb_pattern_fill(buf, key, i, len);
		T_CHECK(p == (const uint8_t *)buf + i % 8, "offset %zu", i);
		T_CHECK(!memcmp(p, all + i, len), "fill at %zu", i);
		T_CHECK(nfswb_pattern_check(key, i, all + i, len, NULL) == len,
			"check at %zu", i);
	}

	/* One wrong byte anywhere is found, with what it should have been. */
	memcpy(copy, all, SPAN);
	for (i = 0; i < SPAN; i += 37) {
		copy[i] ^= 0x10;
		want = 0;
		T_CHECK(nfswb_pattern_check(key, 0, copy, SPAN, &want) == i,
			"flipped byte %zu", i);
		T_CHECK(want == all[i], "expected byte at %zu", i);
		/* and from an unaligned start */
		if (i >= 5)
			T_CHECK(nfswb_pattern_check(key, 5, copy + 5, SPAN - 5,
						    NULL) == i - 5,
				"flipped byte %zu from offset 5", i);
		copy[i] ^= 0x10;
	}

	/* Zeros, another stream and data shifted by a word all fail. */
	memset(copy, 0, SPAN);
	T_CHECK(nfswb_pattern_check(key, 0, copy, SPAN, NULL) == 0, "zeros");
	nfswb_pattern_fill(buf, nfswb_pattern_key(42, 4), 0, SPAN);
	T_CHECK(nfswb_pattern_check(key, 0, buf, SPAN, NULL) == 0,
		"another stream");
	T_CHECK(nfswb_pattern_check(key, 8, all, SPAN, NULL) == 0,
		"shifted by a word");
	return t_result();
}
