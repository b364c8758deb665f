/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mech_files_cachestat.h - cachestat(2) (Linux 6.5): page cache state of a file
 * range, including how many pages are dirty and under writeback.
 *
 * glibc 2.36 (Debian 12) has no wrapper and its kernel headers no struct,
 * so both are defined here with the kernel's layout (include/uapi/linux/
 * mman.h).  Kernels before 6.5 return ENOSYS; the files mechanism then
 * falls back to an estimate (doc/mechanisms.md).
 */
#ifndef NFSWB_MECH_FILES_CACHESTAT_H
#define NFSWB_MECH_FILES_CACHESTAT_H

#include <stdint.h>

struct nfswb_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/**
 * nfswb_cachestat - page cache state of [@off, @off + @len) of @fd.
 * @fd: any open file (read-only is enough).
 * @off: start, in bytes.
 * @len: length in bytes; 0 means to the end of the file.
 * @cs: result, in pages.
 *
 * Return: 0, or a negative errno (-ENOSYS: the kernel predates 6.5).
 */
int nfswb_cachestat(int fd, uint64_t off, uint64_t len,
		    struct nfswb_cachestat *cs);

#endif
