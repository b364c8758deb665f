// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_trace - libFuzzer target for the ftrace text parser (lib/trace.c)
 * and the figures computed from what it accepts (lib/latency.c).
 *
 * Besides "no crash, no leak, no undefined behaviour" it checks what must
 * hold for any input: every line is counted once, a rejected line has a
 * reason, no start event stays pending after nfswb_trace_finish(), and
 * the figures are ordered (min <= every percentile <= max, the mean
 * between min and max).
 *
 * Built with -DNFSWB_LIBFUZZER (configure --enable-fuzzers, clang) it is
 * a libFuzzer target; without, linked with replay.c, it is a check
 * program that replays the committed corpus in $srcdir/fuzz/corpus-trace
 * (or the files and directories named on its command line).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "latency.h"
#include "trace.h"

static void check_figures(const struct nfswb_trace_ops *ops)
{
	struct nfswb_lat lat = { 0 };
	struct nfswb_lat_summary s;
	struct nfswb_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < ops->count; i++)
		FUZZ_CHECK(nfswb_lat_add(&lat, ops->v[i].us) == 0);
	nfswb_lat_summarize(&lat, &s);
	FUZZ_CHECK(s.count == ops->count);
	if (s.count) {
		FUZZ_CHECK(s.min_us <= s.pct_us[0]);
		for (int i = 1; i < NFSWB_LAT_NPCT; i++)
			FUZZ_CHECK(s.pct_us[i - 1] <= s.pct_us[i]);
		FUZZ_CHECK(s.pct_us[NFSWB_LAT_NPCT - 1] <= s.max_us);
		/* Rounding of huge values may nudge the mean by an ulp. */
		FUZZ_CHECK(s.mean_us >= (double)s.min_us * (1 - 1e-12));
		FUZZ_CHECK(s.mean_us <= (double)s.max_us * (1 + 1e-12));
		FUZZ_CHECK(s.stdev_us >= 0);
	}
	f = open_memstream(&buf, &len);
	FUZZ_CHECK(f);
	nfswb_json_init(&j, f, false);
	nfswb_lat_json(&j, NULL, &s);
	nfswb_json_end(&j);
	nfswb_lat_print_log2(f, "fuzz", &lat, false);
	fclose(f);
	FUZZ_CHECK(buf && buf[0] == '{');
	free(buf);
	nfswb_lat_free(&lat);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct nfswb_trace_event ev;
	struct nfswb_trace t;
	unsigned int lineno = 0;
	const char *why;
	uint64_t lines = 0;
	int r;

	/* The whole input as one line: any length, any bytes. */
	r = nfswb_trace_parse_line(p, size, &ev, &why);
	FUZZ_CHECK(r == -EINVAL || r == 0 || r == 1);
	FUZZ_CHECK(r != -EINVAL || (why && *why));

	nfswb_trace_init(&t);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		FUZZ_CHECK(nfswb_trace_feed(&t, "fuzz", ++lineno, p, n) == 0);
		lines++;
		p += n + (nl ? 1 : 0);
	}
	nfswb_trace_finish(&t);
	FUZZ_CHECK(t.lines == lines);
	FUZZ_CHECK(t.nbad <= t.lines && t.events <= t.lines);
	FUZZ_CHECK(t.npending == 0);
	for (size_t i = 0; i < t.nbad && i < NFSWB_TRACE_KEEP_BAD; i++)
		FUZZ_CHECK(t.bad[i].line >= 1 && t.bad[i].line <= lineno &&
		      t.bad[i].why);
	for (size_t i = 1; i < t.nsamples; i++)
		FUZZ_CHECK(t.samples[i - 1].t <= t.samples[i].t);
	check_figures(&t.rpc_commit);
	check_figures(&t.rpc_write);
	check_figures(&t.nfsd_commit);
	check_figures(&t.nfsd_write);
	check_figures(&t.fsync);
	nfswb_trace_free(&t);
	return 0;
}
