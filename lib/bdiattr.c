// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bdiattr.c - per-bdi sysfs attribute helpers (bdiattr.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bdiattr.h"

int nfswb_bdi_attr_path(char *buf, size_t len, const char *sysroot,
			const char *bdi, const char *attr)
{
	int n = snprintf(buf, len, "%s/sys/class/bdi/%s/%s", sysroot, bdi,
			 attr);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* One unsigned decimal number and an optional newline. */
static int parse_u64(const char *buf, uint64_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || buf[0] == '-')
		return -EINVAL;
	*v = x;
	return 0;
}

int nfswb_kfile_read_u64(struct nfswb_kfile *f, uint64_t *v)
{
	char buf[64];
	int ret = nfswb_kfile_read(f, buf, sizeof(buf));

	return ret < 0 ? (ret == -EFBIG ? -EINVAL : ret) : parse_u64(buf, v);
}

int nfswb_any_bdi_has(const char *sysroot, const char *attr)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int found = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/class/bdi", sysroot);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (nfswb_bdi_attr_path(path, sizeof(path), sysroot,
					de->d_name, attr) == 0 &&
		    access(path, F_OK) == 0)
			found = 1;
	}
	closedir(d);
	return found;
}
