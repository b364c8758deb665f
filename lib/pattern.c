// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pattern.c - the verifiable data pattern of nfswb-load and the lab's
 * writer; see pattern.h for its definition and why it catches misplaced,
 * lost and foreign data.
 */
#include "pattern.h"

#include <string.h>

#define GOLDEN	0x9e3779b97f4a7c15ull

uint64_t nfswb_splitmix64(uint64_t x)
{
	x += GOLDEN;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t nfswb_pattern_key(uint64_t seed, uint64_t stream)
{
	return nfswb_splitmix64(seed + stream);
}

static uint64_t word_at(uint64_t key, uint64_t w)
{
	return key ^ (w * GOLDEN);
}

size_t nfswb_pattern_words(uint64_t off, size_t len)
{
	return ((size_t)(off % 8) + len + 7) / 8;
}

const uint8_t *nfswb_pattern_fill(uint64_t *buf, uint64_t key, uint64_t off,
				  size_t len)
{
	uint64_t w0 = off / 8;
	size_t i, n = nfswb_pattern_words(off, len);

	for (i = 0; i < n; i++)
		buf[i] = word_at(key, w0 + i);
	return (const uint8_t *)buf + off % 8;
}

size_t nfswb_pattern_check(uint64_t key, uint64_t off, const void *data,
			   size_t len, uint8_t *want)
{
	const uint8_t *p = data;
	size_t i = 0;

	/* A word at a time where the data is word-aligned in the file. */
	while (i < len) {
		uint64_t pos = off + i, w = word_at(key, pos / 8), got;
		size_t skip = (size_t)(pos % 8), n = 8 - skip, j;

		if (n > len - i)
			n = len - i;
		if (n == 8) {
			memcpy(&got, p + i, 8);
			if (got == w) {
				i += 8;
				continue;
			}
		}
		for (j = 0; j < n; j++) {
			uint8_t b = ((const uint8_t *)&w)[skip + j];

			if (p[i + j] != b) {
				if (want)
					*want = b;
				return i + j;
			}
		}
		i += n;
	}
	return len;
}
