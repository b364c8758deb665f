/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdlimit.h - file descriptors for files mode, which holds every written
 * file open: raise RLIMIT_NOFILE's soft limit to the hard one at start,
 * and bound max-files so that the status file, sysfs and /proc reads and
 * the mechanisms' own fds always find one left.
 */
#ifndef NFSWB_FDLIMIT_H
#define NFSWB_FDLIMIT_H

#include <stddef.h>

#include "mech_files_kick.h"

/*
 * Events files mode reads from fanotify at once: each brings an open fd,
 * so a read of a whole 64 KiB buffer could need 2,700 of them.
 */
#define NFSWB_FD_EVENT_BATCH	128u

/*
 * The files a device's samples hold open (readfile.h): its stat file,
 * debugfs stats and /proc/vmstat, files mode's /proc/vmstat or kernel
 * mode's write_bandwidth, and limit mode's /proc/vmstat.
 */
#define NFSWB_FD_SAMPLED	5u

/*
 * Descriptors beside max-files: per daemon (status, sysfs, /proc, the
 * journal, the loop's own), and per device (its fanotify group, the
 * files it samples, a batch of events, and the files evicted whose last
 * kick is still queued).
 */
#define NFSWB_FD_HEADROOM	64u
#define NFSWB_FD_PER_DEVICE	(8u + NFSWB_FD_SAMPLED + NFSWB_FD_EVENT_BATCH + \
				 NFSWB_KICK_QUEUE)

/**
 * nfswb_nofile_raise - set the soft RLIMIT_NOFILE to the hard limit.
 *
 * Return: the soft limit now in force (unchanged if raising failed).
 */
unsigned long nfswb_nofile_raise(void);

/**
 * nfswb_nofile_max_files - max-files each of @ndevs devices may hold.
 * @want: the configured max-files.
 * @ndevs: devices in files mode (0 counts as 1).
 *
 * Return: @want, or less so that @ndevs x max-files plus the headroom
 * fit in the soft RLIMIT_NOFILE; at least 1.
 */
unsigned int nfswb_nofile_max_files(unsigned int want, size_t ndevs);

#endif
