/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pattern.h - the data pattern nfswb-load and the lab's writer put in the
 * files they write, so that what comes back can be checked byte by byte.
 *
 * The 64-bit word at byte offset 8*w of a stream (one file) is
 * key ^ (w * golden ratio), stored little-endian as the host keeps it, with
 * key = splitmix64(seed + stream).  Multiplying by an odd constant is a
 * bijection, so no two words of one stream are equal: data landing at the
 * wrong offset, a lost WRITE (zeros) or another stream's data all fail the
 * comparison.  A per-run seed means a file left by an earlier run does not
 * pass.  One multiply per word keeps the cost far below any network's or
 * disk's.
 */
#ifndef NFSWB_PATTERN_H
#define NFSWB_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/**
 * nfswb_splitmix64 - Steele, Lea and Flood's SplitMix64 step: a well-mixed
 * 64-bit value from any 64-bit input (seeds, keys).
 */
uint64_t nfswb_splitmix64(uint64_t x);

/**
 * nfswb_pattern_key - the key of stream @stream (a client, a file) in the
 * run seeded with @seed.
 */
uint64_t nfswb_pattern_key(uint64_t seed, uint64_t stream);

/**
 * nfswb_pattern_words - how many uint64_t a buffer for
 * nfswb_pattern_fill(@off, @len) needs: @len bytes starting @off % 8 bytes
 * into the first word.
 */
size_t nfswb_pattern_words(uint64_t off, size_t len);

/**
 * nfswb_pattern_fill - the pattern bytes [@off, @off + @len) of the stream
 * with @key, written into @buf (nfswb_pattern_words() words).
 *
 * Return: a pointer into @buf at byte @off % 8, where the @len bytes begin.
 */
const uint8_t *nfswb_pattern_fill(uint64_t *buf, uint64_t key, uint64_t off,
				  size_t len);

/**
 * nfswb_pattern_check - compare @len bytes read at @off with the pattern,
 * without a buffer.
 *
 * Return: @len when they match, else the index of the first byte that
 * differs (its expected value in *@want when @want is not NULL).
 */
size_t nfswb_pattern_check(uint64_t key, uint64_t off, const void *data,
			   size_t len, uint8_t *want);

#endif
