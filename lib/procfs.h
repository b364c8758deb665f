/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfs.h - small readers for the text the kernel prints in /proc, /sys
 * and debugfs, shared by the library, nfswbd and the tools.
 */
#ifndef NFSWB_PROCFS_H
#define NFSWB_PROCFS_H

#include <stdint.h>

/**
 * nfswb_read_keyed_u64 - the number on the first line of @path that starts
 * with @key followed by ' ' or ':' ("nr_dirty 12" in /proc/vmstat,
 * "BdiReclaimable:   8 kB" in debugfs).  Returns 0 with *@v set, or -1
 * when the file cannot be read or has no such line.
 */
int nfswb_read_keyed_u64(const char *path, const char *key, uint64_t *v);

/**
 * nfswb_unescape_octal - undo the \ooo escapes the kernel and nfs-utils
 * write for space, tab, newline and backslash (mountinfo, etab), in place.
 */
void nfswb_unescape_octal(char *s);

/* Where nfswb_dirty_bound() found its number. */
enum nfswb_dirty_bound_source {
	NFSWB_BOUND_NONE,	/* neither file could be read */
	NFSWB_BOUND_BDI,	/* debugfs bdi/BDI/stats BdiReclaimable */
	NFSWB_BOUND_GLOBAL,	/* /proc/vmstat nr_dirty, every device */
};

/**
 * nfswb_dirty_bound - an upper bound of the dirty bytes on bdi @bdi (as
 * named in /sys/class/bdi), hence of its NFS-written dirty bytes: its
 * BdiReclaimable from debugfs when mounted, else the machine's nr_dirty.
 * One small file read.  Returns the source; *@bytes is 0 with
 * NFSWB_BOUND_NONE.
 */
enum nfswb_dirty_bound_source nfswb_dirty_bound(const char *sysroot,
						const char *bdi,
						uint64_t *bytes);

#endif
