// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs.c - small readers for the text the kernel prints in /proc, /sys
 * and debugfs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/*
 * The number after "@key:" or "@key " on @line, as /proc and debugfs
 * print; -ENOENT when @line is not @key's.
 */
static int keyed_u64(const char *line, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *p = line;

	if (strncmp(p, key, klen))
		return -ENOENT;
	p += klen;
	if (*p != ':' && *p != ' ')
		return -ENOENT;
	if (*p == ':')
		p++;
	return sscanf(p, "%" SCNu64, v) == 1 ? 0 : -ENOENT;
}

int nfswb_read_keyed_u64(const char *path, const char *key, uint64_t *v)
{
	char line[256];
	int ret = -ENOENT;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			ret = keyed_u64(line, key, v);
			if (!ret)
				break;
		}
	fclose(f);
	return ret;
}

int nfswb_vmstat_read(const char *sysroot, const char *key, uint64_t *v)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/vmstat", sysroot);
	return nfswb_read_keyed_u64(path, key, v);
}

char *nfswb_bdi_stats_path(const char *sysroot, const char *bdi, char *buf,
			   size_t len)
{
	snprintf(buf, len, "%s/sys/kernel/debug/bdi/%s/stats", sysroot, bdi);
	return buf;
}

int nfswb_bdi_stats_read(const char *sysroot, const char *bdi,
			 struct nfswb_bdi_stats *st)
{
	char path[PATH_MAX], line[256];
	uint64_t v;
	FILE *f;

	memset(st, 0, sizeof(*st));
	f = fopen(nfswb_bdi_stats_path(sysroot, bdi, path, sizeof(path)), "re");
	if (!f)
		return -errno;
	/* mm/backing-dev.c prints "BdiReclaimable: %10lu kB", and kBps. */
	while (fgets(line, sizeof(line), f)) {
		if (!keyed_u64(line, "BdiReclaimable", &v)) {
			st->reclaimable = v << 10;
			st->has_reclaimable = true;
		} else if (!keyed_u64(line, "BdiWriteback", &v)) {
			st->writeback = v << 10;
		} else if (!keyed_u64(line, "BdiWriteBandwidth", &v)) {
			st->write_bandwidth = v << 10;
		}
	}
	fclose(f);
	return st->has_reclaimable ? 0 : -ENOENT;
}

int nfswb_proc_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, comm, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? (int)n : -ESRCH;
	comm[n] = '\0';
	if (comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	return 0;
}

pid_t nfswb_proc_tgid(pid_t pid)
{
	char path[64];
	uint64_t tgid;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ret = nfswb_read_keyed_u64(path, "Tgid", &tgid);
	if (ret < 0)
		return ret;
	if (tgid > INT32_MAX)
		return -ERANGE;
	return (pid_t)tgid;
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
	struct nfswb_bdi_stats st;
	uint64_t v;

	if (nfswb_bdi_stats_read(sysroot, bdi, &st) == 0) {
		*bytes = st.reclaimable;
		return NFSWB_BOUND_BDI;
	}
	if (nfswb_vmstat_read(sysroot, "nr_dirty", &v) == 0) {
		*bytes = v * (uint64_t)sysconf(_SC_PAGESIZE);
		return NFSWB_BOUND_GLOBAL;
	}
	*bytes = 0;
	return NFSWB_BOUND_NONE;
}
