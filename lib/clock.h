/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.h - the one "now" of the daemon, the tools and the tests:
 * CLOCK_MONOTONIC, which neither settimeofday nor NTP steps move, in the
 * unit the caller counts in.
 */
#ifndef NFSWB_CLOCK_H
#define NFSWB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t nfswb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t nfswb_now_us(void)
{
	return nfswb_now_ns() / 1000;
}

static inline uint64_t nfswb_now_ms(void)
{
	return nfswb_now_ns() / 1000000;
}

/* Seconds, for the trace's clock and sample lines. */
static inline double nfswb_now_s(void)
{
	return (double)nfswb_now_ns() / 1e9;
}

#endif
