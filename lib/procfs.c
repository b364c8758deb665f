// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs.c - small readers for the text the kernel prints in /proc, /sys
 * and debugfs.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

int nfswb_read_keyed_u64(const char *path, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	char line[256];
	int ret = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		if (strncmp(p, key, klen))
			continue;
		p += klen;
		if (*p != ':' && *p != ' ')
			continue;
		if (*p == ':')
			p++;
		if (sscanf(p, "%" SCNu64, v) == 1)
			ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

void nfswb_unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

enum nfswb_dirty_bound_source nfswb_dirty_bound(const char *sysroot,
						const char *bdi,
						uint64_t *bytes)
{
	char path[512];
	uint64_t v;

	/* mm/backing-dev.c prints "BdiReclaimable: %10lu kB". */
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/bdi/%s/stats",
		 sysroot, bdi);
	if (nfswb_read_keyed_u64(path, "BdiReclaimable", &v) == 0) {
		*bytes = v << 10;
		return NFSWB_BOUND_BDI;
	}
	snprintf(path, sizeof(path), "%s/proc/vmstat", sysroot);
	if (nfswb_read_keyed_u64(path, "nr_dirty", &v) == 0) {
		*bytes = v * (uint64_t)sysconf(_SC_PAGESIZE);
		return NFSWB_BOUND_GLOBAL;
	}
	*bytes = 0;
	return NFSWB_BOUND_NONE;
}
