// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdlimit.c - RLIMIT_NOFILE and files mode's max-files (fdlimit.h).
 */
#include "config.h"

#include <sys/resource.h>

#include "fdlimit.h"

unsigned long nfswb_nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t cur = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			rl.rlim_cur = cur;
	}
	return rl.rlim_cur == RLIM_INFINITY ? (unsigned long)-1 :
	       (unsigned long)rl.rlim_cur;
}

unsigned int nfswb_nofile_max_files(unsigned int want, size_t ndevs)
{
	struct rlimit rl;
	unsigned long long reserved, per_dev;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return want;
	if (!ndevs)
		ndevs = 1;
	reserved = NFSWB_FD_HEADROOM +
		   (unsigned long long)ndevs * NFSWB_FD_PER_DEVICE;
	if (rl.rlim_cur <= reserved + ndevs)
		return 1;
	per_dev = (rl.rlim_cur - reserved) / ndevs;
	return per_dev < want ? (unsigned int)per_dev : want;
}
