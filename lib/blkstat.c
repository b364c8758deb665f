// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blkstat.c - parse one line of /sys/block/DEV/stat.
 *
 * The line has grown over the years (Documentation/block/stat.rst):
 * 11 fields before 4.18, 15 with the discard fields, 17 with the flush
 * fields since 5.5.  Anything with at least the 11 classic fields is
 * accepted; fields a kernel may add after the 17th are ignored.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "blkstat.h"

#define BLKSTAT_MAX_FIELDS	17

/* Parse one unsigned decimal field; returns the end or NULL. */
static const char *parse_field(const char *p, uint64_t *val)
{
	uint64_t v = 0;

	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p)) {
		unsigned int digit = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - digit) / 10)
			return NULL;
		v = v * 10 + digit;
		p++;
	}
	if (*p && !isspace((unsigned char)*p))
		return NULL;
	*val = v;
	return p;
}

int nfswb_blkstat_parse(const char *line, struct nfswb_blkstat *s)
{
	uint64_t f[BLKSTAT_MAX_FIELDS] = { 0 };
	const char *p = line;
	int n = 0;

	memset(s, 0, sizeof(*s));
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || n == BLKSTAT_MAX_FIELDS)
			break;
		p = parse_field(p, &f[n]);
		if (!p)
			break;
		n++;
	}
	if (n < 11)
		return -EINVAL;

	s->rd_ios = f[0];
	s->rd_merges = f[1];
	s->rd_sectors = f[2];
	s->rd_ticks = f[3];
	s->wr_ios = f[4];
	s->wr_merges = f[5];
	s->wr_sectors = f[6];
	s->wr_ticks = f[7];
	s->in_flight = f[8];
	s->io_ticks = f[9];
	s->time_in_queue = f[10];
	s->dc_ios = f[11];
	s->dc_merges = f[12];
	s->dc_sectors = f[13];
	s->dc_ticks = f[14];
	s->fl_ios = f[15];
	s->fl_ticks = f[16];
	s->nfields = n;
	return 0;
}

/* 17 fields of up to 20 digits are 357 bytes: room for more fields. */
#define BLKSTAT_TEXT_MAX	1024

int nfswb_blkstat_read(const char *stat_path, struct nfswb_blkstat *s)
{
	char buf[BLKSTAT_TEXT_MAX];
	int ret = nfswb_read_text(stat_path, buf, sizeof(buf));

	return ret < 0 ? ret : nfswb_blkstat_parse(buf, s);
}

int nfswb_blkstat_read_file(struct nfswb_kfile *f, struct nfswb_blkstat *s)
{
	char buf[BLKSTAT_TEXT_MAX];
	int ret = nfswb_kfile_read(f, buf, sizeof(buf));

	return ret < 0 ? ret : nfswb_blkstat_parse(buf, s);
}
