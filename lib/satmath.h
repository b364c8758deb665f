/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * satmath.h - byte and rate arithmetic that saturates at UINT64_MAX
 * instead of wrapping: a huge configured rate or a counter jump must
 * give "a lot", never a small number; and the order of such numbers.
 */
#ifndef NFSWB_SATMATH_H
#define NFSWB_SATMATH_H

#include <stdint.h>

/* nfswb_add_sat - @a + @b, or UINT64_MAX when that overflows. */
static inline uint64_t nfswb_add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* nfswb_mul_sat - @a * @b, or UINT64_MAX when that overflows. */
static inline uint64_t nfswb_mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* nfswb_cmp_u64 - qsort(3) and bsearch(3) order of uint64_t elements. */
static inline int nfswb_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

#endif
