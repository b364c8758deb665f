/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blkstat.h - one sample of /sys/block/DEV/stat (Documentation/block/stat.rst).
 */
#ifndef NFSWB_BLKSTAT_H
#define NFSWB_BLKSTAT_H

#include <stdint.h>

#include "readfile.h"

struct nfswb_blkstat {
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
	uint64_t in_flight, io_ticks, time_in_queue;
	uint64_t dc_ios, dc_merges, dc_sectors, dc_ticks;
	uint64_t fl_ios, fl_ticks;
	int nfields;	/* 11, 15 or 17 depending on kernel */
};

/**
 * nfswb_blkstat_parse - parse the text of a stat file.
 * @line: the file's text, fields separated by blanks
 * @s: filled in; fields the kernel did not print are 0
 *
 * Return: 0, or -EINVAL when the line does not start with at
 * least 11 unsigned decimal numbers (a number that overflows 64 bits or
 * has trailing junk ends the list).
 */
int nfswb_blkstat_parse(const char *line, struct nfswb_blkstat *s);

/**
 * nfswb_blkstat_read - read and parse @stat_path.
 * @stat_path: e.g. /sys/block/sda/stat
 * @s: filled in
 *
 * Return: 0, or a negative errno from open/read, or -EINVAL from the
 * parser.
 */
int nfswb_blkstat_read(const char *stat_path, struct nfswb_blkstat *s);

/**
 * nfswb_blkstat_read_file - the same from the stat file held open.
 * @f: opened with nfswb_kfile_open()
 * @s: filled in
 *
 * Return: as nfswb_blkstat_read(), or nfswb_kfile_read()'s error.
 */
int nfswb_blkstat_read_file(struct nfswb_kfile *f, struct nfswb_blkstat *s);

#endif
