/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * units.h - durations, sizes and rates as written in nfswb.exports(5),
 * nfs.conf(5) and on command lines.
 *
 * Durations: a non-negative decimal number with a unit: "ms", "s", "m"
 * (minutes).  A bare number is milliseconds, the unit of the kernel's
 * dirty_background_time knob.  "1.5s" is allowed.
 * Sizes and rates: a non-negative decimal number with an optional binary
 * suffix k/K (2^10), m/M (2^20), g/G (2^30), t/T (2^40), optionally followed
 * by "iB" or "B"; rates may end in "/s".  "32M" and "32MiB/s" are both
 * 33554432.  All suffixes are binary: "M" never means 10^6.
 * Every function returns 0, or -1 with a static reason in *why.
 */
#ifndef NFSWB_UNITS_H
#define NFSWB_UNITS_H

#include <stddef.h>
#include <stdint.h>

int nfswb_parse_duration_ms(const char *s, uint64_t *ms, const char **why);
int nfswb_parse_size(const char *s, uint64_t *bytes, const char **why);
int nfswb_parse_rate(const char *s, uint64_t *bytes_per_s, const char **why);

/* Human-readable forms, e.g. "1.5s", "32MiB", "32MiB/s"; return buf. */
char *nfswb_format_duration_ms(uint64_t ms, char *buf, size_t len);
char *nfswb_format_size(uint64_t bytes, char *buf, size_t len);
char *nfswb_format_rate(uint64_t bytes_per_s, char *buf, size_t len);

#endif
