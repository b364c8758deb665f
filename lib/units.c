// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * units.c - durations, sizes and rates, strictly parsed.
 *
 * A number is decimal digits with an optional fraction ("1.5").  The
 * value is computed in integers (no floating point), so "0.1s" is exactly
 * 100 ms; a fraction finer than the base unit (ms, byte) is rounded down.
 * Overflow of uint64_t is an error, not a wrap.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

/* Digits of a fraction that are significant: 10^9 times any unit fits. */
#define FRAC_DIGITS	9

struct unit {
	const char *suffix;
	uint64_t mult;
};

static const struct unit duration_units[] = {
	{ "ms",	1 },
	{ "s",	1000 },
	{ "m",	60 * 1000 },
	{ NULL,	0 },
};

#define KIB	(UINT64_C(1) << 10)
#define MIB	(UINT64_C(1) << 20)
#define GIB	(UINT64_C(1) << 30)
#define TIB	(UINT64_C(1) << 40)

/* Size suffixes; "B" and "iB" may follow the letter (handled below). */
static const struct unit size_units[] = {
	{ "",	1 },
	{ "k",	KIB }, { "K", KIB },
	{ "m",	MIB }, { "M", MIB },
	{ "g",	GIB }, { "G", GIB },
	{ "t",	TIB }, { "T", TIB },
	{ NULL,	0 },
};

/*
 * parse_number - split "123.45rest" into integer part, fraction scaled to
 * FRAC_DIGITS digits, and *rest.  Returns 0 or -1 with *why.
 */
static int parse_number(const char *s, uint64_t *ipart, uint64_t *frac,
			const char **rest, const char **why)
{
	uint64_t v = 0, f = 0;
	unsigned int nfrac = 0;
	const char *p = s;

	if (!s || !*s) {
		*why = "empty value";
		return -EINVAL;
	}
	if (*p == '-') {
		*why = "negative value";
		return -EINVAL;
	}
	if (*p < '0' || *p > '9') {
		*why = "not a number";
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10) {
			*why = "number too large";
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9') {
			*why = "no digits after the decimal point";
			return -EINVAL;
		}
		for (; *p >= '0' && *p <= '9'; p++) {
			if (nfrac < FRAC_DIGITS) {
				f = f * 10 + (uint64_t)(*p - '0');
				nfrac++;
			}
		}
		for (; nfrac < FRAC_DIGITS; nfrac++)
			f *= 10;
	}
	*ipart = v;
	*frac = f;
	*rest = p;
	return 0;
}

/* v = ipart * mult + frac * mult / 10^FRAC_DIGITS, without overflow. */
static int scale(uint64_t ipart, uint64_t frac, uint64_t mult, uint64_t *out,
		 const char **why)
{
	const uint64_t one = UINT64_C(1000000000);
	uint64_t whole, part;

	if (mult && ipart > UINT64_MAX / mult)
		goto overflow;
	whole = ipart * mult;
	/* frac < 10^9 and mult <= 2^40: split mult to stay below 2^64. */
	part = (frac * (mult % one)) / one + frac * (mult / one);
	if (whole > UINT64_MAX - part)
		goto overflow;
	*out = whole + part;
	return 0;
overflow:
	*why = "number too large";
	return -ERANGE;
}

static const struct unit *find_unit(const struct unit *tab, const char *s,
				    size_t len)
{
	for (; tab->suffix; tab++)
		if (strlen(tab->suffix) == len && !strncmp(tab->suffix, s, len))
			return tab;
	return NULL;
}

int nfswb_parse_duration_ms(const char *s, uint64_t *ms, const char **why)
{
	const struct unit *u;
	uint64_t ipart, frac;
	const char *rest;
	int ret;

	ret = parse_number(s, &ipart, &frac, &rest, why);
	if (ret)
		return ret;
	/*
	 * A bare number used to be milliseconds; background_time=2 then
	 * meant 2 ms where 2 s was meant.  Only 0 needs no unit.
	 */
	if (!*rest && (ipart || frac)) {
		*why = "a duration needs a unit: ms, s or m (e.g. 2s or 250ms)";
		return -EINVAL;
	}
	u = *rest ? find_unit(duration_units, rest, strlen(rest)) :
		    &duration_units[0];
	if (!u) {
		*why = "unknown duration unit (use ms, s or m)";
		return -EINVAL;
	}
	return scale(ipart, frac, u->mult, ms, why);
}

/*
 * parse_bytes - sizes and rates: "32", "32k", "32K", "32KB", "32KiB",
 * "32B", and with @rate also any of these followed by "/s".
 */
static int parse_bytes(const char *s, int rate, uint64_t *out,
		       const char **why)
{
	const struct unit *u;
	uint64_t ipart, frac;
	const char *rest;
	int ret;
	size_t len;

	ret = parse_number(s, &ipart, &frac, &rest, why);
	if (ret)
		return ret;
	len = strlen(rest);
	if (rate && len >= 2 && !strcmp(rest + len - 2, "/s"))
		len -= 2;
	/* Optional "iB" or "B" after the letter ("B" alone means bytes). */
	if (len >= 3 && !strncmp(rest + len - 2, "iB", 2))
		len -= 2;
	else if (len >= 1 && rest[len - 1] == 'B')
		len -= 1;
	u = find_unit(size_units, rest, len);
	if (!u) {
		*why = rate ? "unknown rate unit (use k, M, G or T, optionally with iB and /s)"
			    : "unknown size unit (use k, M, G or T, optionally with iB)";
		return -EINVAL;
	}
	return scale(ipart, frac, u->mult, out, why);
}

int nfswb_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	return parse_bytes(s, 0, bytes, why);
}

int nfswb_parse_rate(const char *s, uint64_t *bytes_per_s, const char **why)
{
	return parse_bytes(s, 1, bytes_per_s, why);
}

/*
 * Durations print as "250ms", "1s", "1.5s": exact, so that the output
 * parses back to the same value.
 */
char *nfswb_format_duration_ms(uint64_t ms, char *buf, size_t len)
{
	if (ms < 1000)
		snprintf(buf, len, "%" PRIu64 "ms", ms);
	else if (ms % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "s", ms / 1000);
	else {
		char frac[8];
		size_t n;

		snprintf(frac, sizeof(frac), "%03" PRIu64, ms % 1000);
		for (n = strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		snprintf(buf, len, "%" PRIu64 ".%ss", ms / 1000, frac);
	}
	return buf;
}

static const struct {
	const char *name;
	uint64_t mult;
} byte_units[] = {
	{ "TiB", TIB }, { "GiB", GIB }, { "MiB", MIB }, { "KiB", KIB },
};

/*
 * Bytes print exactly in the largest unit that divides them ("32MiB"),
 * otherwise rounded to one decimal in the largest unit not above them
 * ("117.7MiB"), which is for people, not for parsing back.
 */
static char *format_bytes(uint64_t v, const char *tail, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(byte_units) / sizeof(byte_units[0]); i++) {
		uint64_t m = byte_units[i].mult;

		if (v < m)
			continue;
		if (v % m == 0)
			snprintf(buf, len, "%" PRIu64 "%s%s", v / m,
				 byte_units[i].name, tail);
		else
			snprintf(buf, len, "%.1f%s%s", (double)v / (double)m,
				 byte_units[i].name, tail);
		return buf;
	}
	snprintf(buf, len, "%" PRIu64 "B%s", v, tail);
	return buf;
}

char *nfswb_format_size(uint64_t bytes, char *buf, size_t len)
{
	return format_bytes(bytes, "", buf, len);
}

char *nfswb_format_rate(uint64_t bytes_per_s, char *buf, size_t len)
{
	return format_bytes(bytes_per_s, "/s", buf, len);
}
