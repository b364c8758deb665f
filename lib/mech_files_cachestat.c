// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_files_cachestat.c - the cachestat(2) wrapper glibc lacks
 * (mech_files_cachestat.h).
 */
#include "config.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mech_files_cachestat.h"

/*
 * 451 on every architecture that uses the unified syscall table (all but
 * alpha, where it is 561), from Linux 6.5.
 */
#ifndef __NR_cachestat
# if defined(__alpha__)
#  define __NR_cachestat 561
# else
#  define __NR_cachestat 451
# endif
#endif

/* include/uapi/linux/mman.h */
struct kernel_cachestat_range {
	uint64_t off;
	uint64_t len;
};

int nfswb_cachestat(int fd, uint64_t off, uint64_t len,
		    struct nfswb_cachestat *cs)
{
	struct kernel_cachestat_range range = { .off = off, .len = len };

	return syscall(__NR_cachestat, fd, &range, cs, 0) < 0 ? -errno : 0;
}
