/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfs.h - small readers for the text the kernel prints in /proc, /sys
 * and debugfs, shared by the library, nfswbd and the tools.  Readers
 * return 0 (a pid), or a negative errno: what open or read said
 * (-ENOENT: no such file, or no such line in it).
 */
#ifndef NFSWB_PROCFS_H
#define NFSWB_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "readfile.h"

/**
 * nfswb_kfile_keyed_u64 - the number on the first line of the file held
 * open (readfile.h) that starts with @key followed by ' ' or ':'
 * ("nr_dirty 12" in /proc/vmstat, "BdiReclaimable:   8 kB" in debugfs).
 * Returns 0 with *@v set, -ENOENT when the file has no such line, or
 * nfswb_kfile_read()'s error.
 */
int nfswb_kfile_keyed_u64(struct nfswb_kfile *f, const char *key,
			  uint64_t *v);

/* What debugfs says of one bdi (mm/backing-dev.c's bdi_debug_stats_show). */
struct nfswb_bdi_stats {
	uint64_t reclaimable;		/* BdiReclaimable, bytes: dirty */
	uint64_t writeback;		/* BdiWriteback, bytes */
	uint64_t write_bandwidth;	/* BdiWriteBandwidth, bytes/s */
	uint64_t dirtied;		/* BdiDirtied, bytes: ever dirtied */
	bool has_reclaimable;
	bool has_dirtied;
};

/**
 * nfswb_bdi_stats_path - "@sysroot/sys/kernel/debug/bdi/@bdi/stats" in @buf
 * (@len bytes); returns @buf.
 */
char *nfswb_bdi_stats_path(const char *sysroot, const char *bdi, char *buf,
			   size_t len);

/**
 * nfswb_bdi_stats_read - read the bdi's debugfs stats in one pass.
 * Returns 0, -errno when the file cannot be read (debugfs not mounted,
 * or not root), or -ENOENT when it has no BdiReclaimable.
 */
int nfswb_bdi_stats_read(const char *sysroot, const char *bdi,
			 struct nfswb_bdi_stats *st);

/**
 * nfswb_proc_comm - the command name of task @pid (/proc/PID/comm, its
 * newline removed) into @comm, @len bytes with the NUL.  Returns 0 or
 * -errno (-ENOENT: no such task).
 */
int nfswb_proc_comm(pid_t pid, char *comm, size_t len);

/**
 * nfswb_proc_tgid - the thread group (process) of task @pid, from
 * /proc/PID/status; a negative errno (-ENOENT) when it is gone.
 */
pid_t nfswb_proc_tgid(pid_t pid);

/**
 * nfswb_unescape_octal - undo the \ooo escapes the kernel and nfs-utils
 * write for space, tab, newline and backslash (mountinfo, etab), in place.
 */
void nfswb_unescape_octal(char *s);

/* knfsd's counters since nfsd started in this network namespace. */
struct nfswb_nfsd_counts {
	uint64_t written;	/* bytes its WRITEs wrote: "io"'s second number */
	/*
	 * COMMITs it was sent: NFSv3's (procedure 21 of "proc3") and
	 * NFSv4's (operation 5 of "proc4ops"); has_commits false when
	 * neither line is there whole.
	 */
	uint64_t commits;
	bool has_commits;
	/*
	 * WRITEs it was sent: NFSv3's (procedure 7) and NFSv4's (operation
	 * 38); 0 when neither line is there.
	 */
	uint64_t writes;
};

/**
 * nfswb_nfsd_counts - read knfsd's counters from /proc/net/rpc/nfsd
 * (fs/nfsd/stats.c), held open as @f.
 * Returns 0 with @c set, -ENOENT when the text has no whole "io" line, or
 * nfswb_kfile_read_head()'s error (-ENOENT: nfsd not loaded).
 */
int nfswb_nfsd_counts(struct nfswb_kfile *f, struct nfswb_nfsd_counts *c);

/*
 * Leases on one device's files that an O_RDONLY open would start to
 * break, as /proc/locks lists them (fs/locks.c, lock_get_status()): every
 * lease and delegation ("LEASE", "DELEG": NFSv4 delegations, SMB
 * oplocks, F_SETLEASE) but an active read lease.  Opening such a file,
 * even O_NONBLOCK, makes nfsd recall the client's write delegation.
 */
#define NFSWB_LEASED_MAX	65536

struct nfswb_leased {
	uint64_t *ino;		/* sorted once read */
	size_t n, cap;
	/* More than NFSWB_LEASED_MAX, or /proc/locks unreadable: every file. */
	bool all;
};

/**
 * nfswb_leased_read - forget what @l held, then read @path (/proc/locks)
 * for device @dev.  A missing file (a kernel without file locking) holds
 * no lease; any other error, or more than NFSWB_LEASED_MAX leases, sets
 * @l->all.  Return: 0, or the negative errno of such an error.
 */
int nfswb_leased_read(struct nfswb_leased *l, const char *path, dev_t dev);

/** nfswb_leased_has - does @l say inode @ino is leased (or all are)? */
bool nfswb_leased_has(const struct nfswb_leased *l, uint64_t ino);

/** nfswb_leased_free - free @l's memory; @l is empty again. */
void nfswb_leased_free(struct nfswb_leased *l);

/* Where nfswb_dirty_bound() found its number. */
enum nfswb_dirty_bound_source {
	NFSWB_BOUND_NONE,	/* neither file could be read */
	NFSWB_BOUND_BDI,	/* debugfs bdi/BDI/stats BdiReclaimable */
	NFSWB_BOUND_GLOBAL,	/* /proc/vmstat nr_dirty, every device */
};

/* The files nfswb_dirty_bound() reads, held open by the device's owner. */
struct nfswb_dirty_files {
	struct nfswb_kfile bdi_stats;	/* debugfs bdi/BDI/stats */
	struct nfswb_kfile vmstat;	/* /proc/vmstat */
};

/**
 * nfswb_dirty_files_open - open @sysroot's debugfs stats of bdi @bdi (as
 * named in /sys/class/bdi) and /proc/vmstat.  A file that does not open
 * (debugfs not mounted) is skipped until nfswb_dirty_files_reopen()
 * opens it.
 */
void nfswb_dirty_files_open(struct nfswb_dirty_files *df,
			    const char *sysroot, const char *bdi);

/** nfswb_dirty_files_reopen - open again the files a read error closed. */
void nfswb_dirty_files_reopen(struct nfswb_dirty_files *df);

/** nfswb_dirty_files_close - close both; @df is all zeroes. */
void nfswb_dirty_files_close(struct nfswb_dirty_files *df);

/**
 * nfswb_dirty_bound - an upper bound of the dirty bytes on the bdi of
 * @df, hence of its NFS-written dirty bytes: its BdiReclaimable from
 * debugfs when mounted, else the machine's nr_dirty.  One small file
 * read.  Returns the source; *@bytes is 0 with NFSWB_BOUND_NONE.
 */
enum nfswb_dirty_bound_source nfswb_dirty_bound(struct nfswb_dirty_files *df,
						uint64_t *bytes);

/**
 * nfswb_dirtied - the bytes ever dirtied on the bdi of @df: its
 * BdiDirtied from debugfs when mounted, else the machine's nr_dirtied
 * (/proc/vmstat, every device), for the local-writers watch (policy.h).
 * Returns the source; *@bytes is 0 with NFSWB_BOUND_NONE.
 */
enum nfswb_dirty_bound_source nfswb_dirtied(struct nfswb_dirty_files *df,
					    uint64_t *bytes);

#endif
