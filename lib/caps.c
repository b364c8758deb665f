// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * caps.c - drop capabilities with prctl(2) and capset(2) (caps.h).
 *
 * libcap is not one of the project's dependencies; the raw interfaces
 * are small and stable (capability(7)).
 */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last > 63 ? 63 : last;
}

static int get_caps(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	memset(data, 0, 2 * sizeof(data[0]));
	return (int)syscall(SYS_capget, &hdr, data);
}

uint64_t nfswb_caps_effective(void)
{
	struct __user_cap_data_struct data[2];

	if (get_caps(data) < 0)
		return 0;
	return (uint64_t)data[1].effective << 32 | data[0].effective;
}

int nfswb_caps_drop(uint64_t keep, char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	uint64_t permitted;
	int cap, last = last_cap(), e;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		e = -errno;
		snprintf(err, errlen, "prctl(PR_SET_NO_NEW_PRIVS): %s",
			 strerror(-e));
		return e;
	}
	if (get_caps(data) < 0) {
		e = -errno;
		snprintf(err, errlen, "capget: %s", strerror(-e));
		return e;
	}
	permitted = (uint64_t)data[1].permitted << 32 | data[0].permitted;
	keep &= permitted;

	/* Ambient capabilities would survive an execve(); none are wanted. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL) {
		e = -errno;
		snprintf(err, errlen, "prctl(PR_CAP_AMBIENT_CLEAR_ALL): %s",
			 strerror(-e));
		return e;
	}
	/* The bounding set first: shrinking it needs CAP_SETPCAP. */
	if (permitted & NFSWB_CAP_BIT(CAP_SETPCAP)) {
		for (cap = 0; cap <= last; cap++) {
			if (keep & NFSWB_CAP_BIT(cap))
				continue;
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 &&
			    errno != EINVAL) {
				e = -errno;
				snprintf(err, errlen,
					 "prctl(PR_CAPBSET_DROP, %d): %s", cap,
					 strerror(-e));
				return e;
			}
		}
	}
	data[0].effective = data[0].permitted = (uint32_t)keep;
	data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
	data[0].inheritable = data[1].inheritable = 0;
	if (syscall(SYS_capset, &hdr, data) < 0) {
		e = -errno;
		snprintf(err, errlen, "capset: %s", strerror(-e));
		return e;
	}
	return 0;
}
