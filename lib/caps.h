/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * caps.h - keep only the capabilities nfswbd needs, for its whole life.
 *
 * nfswbd runs as uid 0.  The files it writes (/sys/class/bdi/BDI/ATTR,
 * /proc/sys/vm/NAME, its state directory) and reads (debugfs bdi stats) are
 * owned by root, so uid 0's owner permissions suffice and no
 * CAP_DAC_OVERRIDE is kept.  It keeps:
 *
 *   CAP_SYS_ADMIN        fanotify_init() with event fds, and
 *                        FAN_MARK_FILESYSTEM / FAN_MARK_MOUNT marks
 *                        (files mode; a reload may switch to it)
 *   CAP_DAC_READ_SEARCH  to look up export paths below directories that
 *                        root does not own (e.g. 0700 home directories)
 *   CAP_FOWNER           cachestat(2) and O_NOATIME on the files of
 *                        other owners, which files mode opens read-only
 *                        (cachestat wants a writable fd or the owner)
 *
 * Everything else goes from the effective, permitted, inheritable,
 * ambient and bounding sets, and PR_SET_NO_NEW_PRIVS is set, so nothing
 * the daemon might execute can gain privilege.
 */
#ifndef NFSWB_CAPS_H
#define NFSWB_CAPS_H

#include <stddef.h>
#include <stdint.h>

#define NFSWB_CAP_BIT(cap)	((uint64_t)1 << (cap))

/*
 * CAP_SYS_ADMIN (21) | CAP_FOWNER (3) | CAP_DAC_READ_SEARCH (2), as
 * linux/capability.h.
 */
#define NFSWB_CAPS_DAEMON	(NFSWB_CAP_BIT(21) | NFSWB_CAP_BIT(3) | \
				 NFSWB_CAP_BIT(2))
/*
 * CAP_SYS_PTRACE (19), only with [nfswbd] commit-latency-pid-file: the
 * kernel lets a process read another's /proc/PID/fd links only if its
 * permitted set covers the other's, and a userspace server as root keeps
 * all of them; the link names the file a COMMIT synced, hence its export.
 */
#define NFSWB_CAP_SERVER_FDS	NFSWB_CAP_BIT(19)

/**
 * nfswb_caps_drop - keep only the capabilities in @keep.
 * @keep: mask of capability numbers to keep (NFSWB_CAPS_DAEMON).
 * @err: on failure, what failed.
 * @errlen: size of @err.
 *
 * Needs CAP_SETPCAP to shrink the bounding set (dropped last).  Without
 * any capability (not root) there is nothing to drop and it succeeds
 * after setting PR_SET_NO_NEW_PRIVS.
 *
 * Return: 0, or the negative errno of the call that failed.
 */
int nfswb_caps_drop(uint64_t keep, char *err, size_t errlen);

/**
 * nfswb_caps_effective - the calling thread's effective set, or 0.
 */
uint64_t nfswb_caps_effective(void);

#endif
