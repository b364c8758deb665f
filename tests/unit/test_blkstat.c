// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_blkstat.c - /sys/block/DEV/stat lines of every kernel generation.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkstat.h"
#include "test.h"

struct parse_case {
	const char *name;
	const char *line;
	int ret;		/* expected return */
	int nfields;
	uint64_t wr_sectors, in_flight, io_ticks, fl_ticks;
};

static const struct parse_case cases[] = {
	/* Taken from a 6.x virtio disk: 17 fields, %8 padded. */
	{ "17 fields (5.5+)",
	  "   31447     6190  2619762    10469    23926     7770  2370064"
	  "    10419        0    11076    24680     6486       49   240560"
	  "     1423     4892     2366\n",
	  0, 17, 2370064, 0, 11076, 2366 },
	{ "15 fields (4.18+)",
	  "  100 2 300 4 500 6 7000 8 3 9 10 11 12 13 14\n",
	  0, 15, 7000, 3, 9, 0 },
	{ "11 fields (before 4.18)",
	  "1 2 3 4 5 6 77 8 1 10 11",
	  0, 11, 77, 1, 10, 0 },
	{ "extra fields of a future kernel are ignored",
	  "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n",
	  0, 17, 7, 9, 10, 17 },
	{ "64-bit maximum",
	  "0 0 0 0 0 0 18446744073709551615 0 0 4294967295 0",
	  0, 11, UINT64_MAX, 0, 4294967295u, 0 },
	{ "trailing junk after 11 fields ends the list",
	  "1 2 3 4 5 6 7 8 9 10 11 junk",
	  0, 11, 7, 9, 10, 0 },
	{ "10 fields", "1 2 3 4 5 6 7 8 9 10\n", -EINVAL, 0, 0, 0, 0, 0 },
	{ "empty", "", -EINVAL, 0, 0, 0, 0, 0 },
	{ "blank", "   \n", -EINVAL, 0, 0, 0, 0, 0 },
	{ "word in the middle",
	  "1 2 3 4 x 6 7 8 9 10 11 12", -EINVAL, 0, 0, 0, 0, 0 },
	{ "negative number",
	  "1 2 3 4 -5 6 7 8 9 10 11", -EINVAL, 0, 0, 0, 0, 0 },
	{ "number glued to letters",
	  "1 2 3 4 5k 6 7 8 9 10 11", -EINVAL, 0, 0, 0, 0, 0 },
	{ "overflows 64 bits",
	  "1 2 3 4 5 6 18446744073709551616 8 9 10 11", -EINVAL, 0, 0, 0, 0, 0 },
};

static void test_parse_table(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct parse_case *c = &cases[i];
		struct nfswb_blkstat s;
		int ret;

		ret = nfswb_blkstat_parse(c->line, &s);
		T_CHECK(ret == c->ret, "%s: returned %d", c->name, ret);
		if (ret != 0)
			continue;
		T_CHECK(s.nfields == c->nfields, "%s: nfields %d", c->name,
			s.nfields);
		T_CHECK(s.wr_sectors == c->wr_sectors, "%s: wr_sectors %ju",
			c->name, (uintmax_t)s.wr_sectors);
		T_CHECK(s.in_flight == c->in_flight, "%s: in_flight %ju",
			c->name, (uintmax_t)s.in_flight);
		T_CHECK(s.io_ticks == c->io_ticks, "%s: io_ticks %ju",
			c->name, (uintmax_t)s.io_ticks);
		T_CHECK(s.fl_ticks == c->fl_ticks, "%s: fl_ticks %ju",
			c->name, (uintmax_t)s.fl_ticks);
	}
}

/* Every field lands in its own member, in the documented order. */
static void test_field_order(void)
{
	struct nfswb_blkstat s;

	T_CHECK(nfswb_blkstat_parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
				    &s) == 0, "parse");
	const uint64_t got[17] = {
		s.rd_ios, s.rd_merges, s.rd_sectors, s.rd_ticks,
		s.wr_ios, s.wr_merges, s.wr_sectors, s.wr_ticks,
		s.in_flight, s.io_ticks, s.time_in_queue,
		s.dc_ios, s.dc_merges, s.dc_sectors, s.dc_ticks,
		s.fl_ios, s.fl_ticks,
	};
	for (int i = 0; i < 17; i++)
		T_CHECK(got[i] == (uint64_t)i + 1, "field %d is %ju", i + 1,
			(uintmax_t)got[i]);
}

static void test_read(void)
{
	char path[] = "/tmp/nfswb-blkstat-XXXXXX";
	struct nfswb_blkstat s;
	const char *line = "1 2 3 4 5 6 4096 8 2 10 11 0 0 0 0 0 0\n";
	int fd = mkstemp(path), ret;

	T_CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return;
	T_CHECK(write(fd, line, strlen(line)) == (ssize_t)strlen(line),
		"write");
	close(fd);
	T_CHECK(nfswb_blkstat_read(path, &s) == 0, "read %s", path);
	T_CHECK(s.wr_sectors == 4096 && s.in_flight == 2, "values");
	unlink(path);

	ret = nfswb_blkstat_read(path, &s);
	T_CHECK(ret == -ENOENT, "missing file: %d", ret);
}

/* The machine's own disks, when /sys is there: every line must parse. */
static void test_live(void)
{
	const char *devs[] = { "/sys/block/vda/stat", "/sys/block/sda/stat",
			       "/sys/block/nvme0n1/stat" };
	struct nfswb_blkstat s;

	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		if (access(devs[i], R_OK))
			continue;
		T_CHECK(nfswb_blkstat_read(devs[i], &s) == 0, "%s", devs[i]);
		T_CHECK(s.nfields >= 11, "%s: %d fields", devs[i], s.nfields);
	}
}

int main(void)
{
	test_parse_table();
	test_field_order();
	test_read();
	test_live();
	return t_result();
}
