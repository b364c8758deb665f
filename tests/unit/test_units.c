// SPDX-License-Identifier: GPL-2.0-or-later
/* test_units - durations, sizes and rates as nfswb.exports(5) documents. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "units.h"

enum kind { DUR, SIZE, RATE };

static const struct {
	enum kind kind;
	const char *in;
	int ok;
	uint64_t want;		/* when ok */
	const char *why;	/* a word the reason must contain when !ok */
} cases[] = {
	/* durations: the unit is required, but for 0 */
	{ DUR, "0", 1, 0, NULL },
	{ DUR, "250", 0, 0, "unit: ms, s or m" },
	{ DUR, "0.5", 0, 0, "unit: ms, s or m" },
	{ DUR, "250ms", 1, 250, NULL },
	{ DUR, "1s", 1, 1000, NULL },
	{ DUR, "1.5s", 1, 1500, NULL },
	{ DUR, "0.1s", 1, 100, NULL },
	{ DUR, "0.0015s", 1, 1, NULL },		/* rounded down to ms */
	{ DUR, "2m", 1, 120000, NULL },
	{ DUR, "18446744073709551615ms", 1, UINT64_MAX, NULL },
	{ DUR, "18446744073709551616", 0, 0, "large" },
	{ DUR, "18446744073709551615s", 0, 0, "large" },
	/* the fraction's part alone carries past 2^64 (once 383 ms) */
	{ DUR, "18446744073709551.999s", 0, 0, "large" },
	{ DUR, "18446744073709551.615s", 1, UINT64_MAX, NULL },
	{ DUR, "0.0015m", 1, 90, NULL },	/* 9 digits of fraction */
	{ DUR, "0.000000001m", 1, 0, NULL },
	{ DUR, "", 0, 0, "empty" },
	{ DUR, "-1s", 0, 0, "negative" },
	{ DUR, "s", 0, 0, "number" },
	{ DUR, " 1s", 0, 0, "number" },
	{ DUR, "1s ", 0, 0, "unit" },
	{ DUR, "1 s", 0, 0, "unit" },
	{ DUR, "1h", 0, 0, "unit" },
	{ DUR, "1S", 0, 0, "unit" },
	{ DUR, "1.s", 0, 0, "decimal" },
	{ DUR, "1.5.0s", 0, 0, "unit" },
	{ DUR, "1sx", 0, 0, "unit" },
	{ DUR, "0x10", 0, 0, "unit" },
	/* sizes: binary suffixes only */
	{ SIZE, "0", 1, 0, NULL },
	{ SIZE, "4096", 1, 4096, NULL },
	{ SIZE, "4096B", 1, 4096, NULL },
	{ SIZE, "1k", 1, 1024, NULL },
	{ SIZE, "1K", 1, 1024, NULL },
	{ SIZE, "1KiB", 1, 1024, NULL },
	{ SIZE, "1KB", 1, 1024, NULL },
	{ SIZE, "32M", 1, 33554432, NULL },
	{ SIZE, "32MiB", 1, 33554432, NULL },
	{ SIZE, "1.5G", 1, 1610612736, NULL },
	{ SIZE, "2T", 1, UINT64_C(2) << 40, NULL },
	{ SIZE, "16777215T", 1, UINT64_C(16777215) << 40, NULL },
	{ SIZE, "16777216T", 0, 0, "large" },
	{ SIZE, "32M/s", 0, 0, "unit" },	/* a size is not a rate */
	{ SIZE, "32iB", 0, 0, "unit" },
	{ SIZE, "32P", 0, 0, "unit" },
	{ SIZE, "32Mi", 0, 0, "unit" },
	{ SIZE, "-32M", 0, 0, "negative" },
	{ SIZE, "", 0, 0, "empty" },
	/* rates */
	{ RATE, "200M", 1, UINT64_C(200) << 20, NULL },
	{ RATE, "32MiB/s", 1, 33554432, NULL },
	{ RATE, "32M/s", 1, 33554432, NULL },
	{ RATE, "100/s", 1, 100, NULL },
	{ RATE, "1G", 1, UINT64_C(1) << 30, NULL },
	{ RATE, "1g", 1, UINT64_C(1) << 30, NULL },
	{ RATE, "1.1k", 1, 1126, NULL },	/* 1126.4 rounded down */
	{ RATE, "32M/", 0, 0, "unit" },
	{ RATE, "32M/h", 0, 0, "unit" },
	{ RATE, "32Mbit", 0, 0, "unit" },
	{ RATE, "M", 0, 0, "number" },
};

static int parse(enum kind k, const char *s, uint64_t *v, const char **why)
{
	switch (k) {
	case DUR:
		return nfswb_parse_duration_ms(s, v, why);
	case SIZE:
		return nfswb_parse_size(s, v, why);
	default:
		return nfswb_parse_rate(s, v, why);
	}
}

static const struct {
	uint64_t v;
	const char *dur, *size, *rate;
} formats[] = {
	{ 0, "0ms", "0B", "0B/s" },
	{ 999, "999ms", "999B", "999B/s" },
	{ 1000, "1s", "1000B", "1000B/s" },
	{ 1024, "1.024s", "1KiB", "1KiB/s" },
	{ 1500, "1.5s", "1.5KiB", "1.5KiB/s" },
	{ 60000, "60s", "58.6KiB", "58.6KiB/s" },
	{ UINT64_C(200) << 20, "209715.2s", "200MiB", "200MiB/s" },
	{ UINT64_C(3) << 40, "3298534883.328s", "3TiB", "3TiB/s" },
};

int main(void)
{
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = NULL;
		uint64_t v = 12345;
		int ret = parse(cases[i].kind, cases[i].in, &v, &why);

		if (cases[i].ok) {
			T_CHECK(ret == 0, "'%s' rejected: %s", cases[i].in,
				why ? why : "?");
			T_CHECK(ret || v == cases[i].want,
				"'%s' gave %" PRIu64 ", want %" PRIu64,
				cases[i].in, v, cases[i].want);
		} else {
			int want = strstr(cases[i].why, "large") ?
				   -ERANGE : -EINVAL;

			T_CHECK(ret == want, "'%s' gave %d (%" PRIu64 "), want %d",
				cases[i].in, ret, v, want);
			T_CHECK(ret == 0 || (why && strstr(why, cases[i].why)),
				"'%s': reason '%s' lacks '%s'", cases[i].in,
				why ? why : "(none)", cases[i].why);
			T_CHECK(ret == 0 || v == 12345,
				"'%s': output written on error", cases[i].in);
		}
	}

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const char *why;
		uint64_t back;

		nfswb_format_duration_ms(formats[i].v, buf, sizeof(buf));
		T_CHECK(!strcmp(buf, formats[i].dur), "duration %" PRIu64
			" printed '%s', want '%s'", formats[i].v, buf,
			formats[i].dur);
		/* Durations print exactly: they parse back. */
		T_CHECK(!nfswb_parse_duration_ms(buf, &back, &why) &&
			back == formats[i].v, "'%s' does not parse back", buf);
		nfswb_format_size(formats[i].v, buf, sizeof(buf));
		T_CHECK(!strcmp(buf, formats[i].size), "size %" PRIu64
			" printed '%s', want '%s'", formats[i].v, buf,
			formats[i].size);
		nfswb_format_rate(formats[i].v, buf, sizeof(buf));
		T_CHECK(!strcmp(buf, formats[i].rate), "rate %" PRIu64
			" printed '%s', want '%s'", formats[i].v, buf,
			formats[i].rate);
	}
	return t_result();
}
