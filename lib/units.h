/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * units.h - durations, sizes and rates as written in nfswb.exports(5),
 * nfs.conf(5) and on command lines.
 *
 * Durations: a non-negative decimal number with a unit: "ms", "s", "m"
 * (minutes); "1.5s" is allowed.  The unit is required (only "0" may go
 * without): a bare number was milliseconds once, and "2" read as 2 ms
 * where 2 s was meant.
 * Sizes and rates: a non-negative decimal number with an optional binary
 * suffix k/K (2^10), m/M (2^20), g/G (2^30), t/T (2^40), optionally followed
 * by "iB" or "B"; rates may end in "/s".  "32M" and "32MiB/s" are both
 * 33554432.  All suffixes are binary: "M" never means 10^6.
 * A fraction finer than the base unit (1 ms, 1 byte) is rounded down; the
 * arithmetic is integer only.  Empty strings, signs, blanks, unknown units,
 * trailing text and values beyond uint64_t are errors.
 * Every parser returns 0, or a negative errno (-EINVAL, -ERANGE for a
 * value beyond uint64_t) with a static reason in *why and the output
 * untouched (the lib convention: doc/architecture.md).
 */
#ifndef NFSWB_UNITS_H
#define NFSWB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/**
 * nfswb_parse_duration_ms - "250ms", "1.5s", "2m", "0" to milliseconds.
 * @s: the text
 * @ms: the result
 * @why: the reason when the text is not a duration
 */
int nfswb_parse_duration_ms(const char *s, uint64_t *ms, const char **why);

/**
 * nfswb_parse_size - "4096", "32M", "32MiB", "1.5G" to bytes.
 */
int nfswb_parse_size(const char *s, uint64_t *bytes, const char **why);

/**
 * nfswb_parse_rate - a size, optionally ending in "/s", to bytes/s.
 */
int nfswb_parse_rate(const char *s, uint64_t *bytes_per_s, const char **why);

/*
 * Human-readable forms; each returns @buf.
 * Durations are exact and parse back: "250ms", "1s", "1.5s".
 * Sizes and rates use the largest binary unit not above the value, exact
 * when it divides ("32MiB", "32MiB/s"), else with one decimal
 * ("117.7MiB/s"), which is for people and not for parsing back.
 */
char *nfswb_format_duration_ms(uint64_t ms, char *buf, size_t len);
char *nfswb_format_size(uint64_t bytes, char *buf, size_t len);
char *nfswb_format_rate(uint64_t bytes_per_s, char *buf, size_t len);

#endif
