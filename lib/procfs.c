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
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lines.h"
#include "procfs.h"
#include "satmath.h"

/*
 * /proc/vmstat is 4 KiB on 6.x, with room for the counters kernels add;
 * /proc/PID/status and a bdi's debugfs stats are smaller.
 */
#define PROC_TEXT_MAX	16384

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

/* The number of the first line of @text that is @key's. */
static int find_keyed_u64(const char *text, const char *key, uint64_t *v)
{
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');

		if (!keyed_u64(line, key, v))
			return 0;
		if (!nl)
			break;
		line = nl + 1;
	}
	return -ENOENT;
}

/* The same as nfswb_kfile_keyed_u64() from @path, read once. */
static int read_keyed_u64(const char *path, const char *key, uint64_t *v)
{
	char text[PROC_TEXT_MAX];
	int ret = nfswb_read_text(path, text, sizeof(text));

	return ret < 0 ? ret : find_keyed_u64(text, key, v);
}

/*
 * The counters nfswbd samples are in the first 1.6 KiB of /proc/vmstat
 * (nr_dirty_threshold the last of them, 6.x): one read of this much
 * finds them, and seq_file formats no more lines than it is asked for.
 */
#define KEYED_HEAD	2048

int nfswb_kfile_keyed_u64(struct nfswb_kfile *f, const char *key,
			  uint64_t *v)
{
	char text[PROC_TEXT_MAX], *nl;
	int ret = nfswb_kfile_read_head(f, text, KEYED_HEAD);

	if (ret < 0)
		return ret;
	if (ret < KEYED_HEAD - 1)
		return find_keyed_u64(text, key, v);
	/* Cut: only whole lines count, and the rest may hold @key. */
	nl = strrchr(text, '\n');
	if (nl) {
		nl[1] = '\0';
		if (!find_keyed_u64(text, key, v))
			return 0;
	}
	ret = nfswb_kfile_read(f, text, sizeof(text));
	return ret < 0 ? ret : find_keyed_u64(text, key, v);
}

/*
 * nfsd's stats: "rc", "fh", "io READ WRITE", then per version "procN
 * COUNT" and COUNT numbers, one per procedure, and "proc4ops COUNT" and
 * one per operation.  nfsd formats the whole text at each read
 * (single_open), so reading all of it costs no more than its head; 76
 * operations of up to 20 digits fit.
 */
#define NFSD_STATS_MAX		4096
#define NFSD_PROC3_WRITE	7	/* NFSPROC3_WRITE */
#define NFSD_PROC3_COMMIT	21	/* NFSPROC3_COMMIT */
#define NFSD_OP_COMMIT		5	/* OP_COMMIT */
#define NFSD_OP_WRITE		38	/* OP_WRITE */

/*
 * The @index-th number after "@key COUNT" on @line (a whole line, to
 * @end); false when @line is not @key's or has no such number.
 */
static bool nfsd_table_nth(const char *line, const char *end,
			   const char *key, unsigned int index, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *p = line + klen;
	unsigned long long count, n = 0;
	char *next;

	if (strncmp(line, key, klen) || *p != ' ')
		return false;
	errno = 0;
	count = strtoull(p, &next, 10);
	if (next == p || errno || count <= index)
		return false;
	for (p = next; p < end; p = next) {
		n = strtoull(p, &next, 10);
		if (next == p || next > end || errno)
			return false;
		if (!index--) {
			*v = n;
			return true;
		}
	}
	return false;
}

int nfswb_nfsd_counts(struct nfswb_kfile *f, struct nfswb_nfsd_counts *c)
{
	char text[NFSD_STATS_MAX];
	uint64_t rd, v;
	bool have_io = false;
	int ret = nfswb_kfile_read_head(f, text, sizeof(text));

	if (ret < 0)
		return ret;
	memset(c, 0, sizeof(*c));
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');

		if (!nl)
			break;	/* cut: not a whole line */
		if (!strncmp(line, "io ", 3) &&
		    sscanf(line + 3, "%" SCNu64 " %" SCNu64, &rd,
			   &c->written) == 2)
			have_io = true;
		if (nfsd_table_nth(line, nl, "proc3", NFSD_PROC3_COMMIT, &v) ||
		    nfsd_table_nth(line, nl, "proc4ops", NFSD_OP_COMMIT, &v)) {
			c->commits += v;
			c->has_commits = true;
		}
		if (nfsd_table_nth(line, nl, "proc3", NFSD_PROC3_WRITE, &v) ||
		    nfsd_table_nth(line, nl, "proc4ops", NFSD_OP_WRITE, &v))
			c->writes += v;
		line = nl + 1;
	}
	return have_io ? 0 : -ENOENT;
}

/* Add the inode of one /proc/locks @line when it is such a lease on @dev. */
static void leased_add_line(struct nfswb_leased *l, const char *line,
			    dev_t dev)
{
	char kind[8], state[10], type[6];
	unsigned int maj, min;
	uint64_t ino, *grown;
	const char *p = strstr(line, ": ");

	if (!p || l->all)
		return;
	p += 2;
	if (!strncmp(p, "-> ", 3))	/* a lease's waiter: the same file */
		p += 3;
	if (sscanf(p, "%7s %9s %5s %*d %x:%x:%" SCNu64, kind, state, type,
		   &maj, &min, &ino) != 6 ||
	    (strcmp(kind, "LEASE") && strcmp(kind, "DELEG")) ||
	    (!strcmp(state, "ACTIVE") && !strcmp(type, "READ")) ||
	    maj != major(dev) || min != minor(dev))
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		grown = cap <= NFSWB_LEASED_MAX ?
			realloc(l->ino, cap * sizeof(*l->ino)) : NULL;
		if (!grown) {
			l->all = true;
			return;
		}
		l->ino = grown;
		l->cap = cap;
	}
	l->ino[l->n++] = ino;
}

int nfswb_leased_read(struct nfswb_leased *l, const char *path, dev_t dev)
{
	struct nfswb_lines lines;
	const char *line;
	ssize_t len;
	int ret;

	l->n = 0;
	l->all = false;
	ret = nfswb_lines_open(&lines, path, 4096);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0) {
		l->all = true;
		return ret;
	}
	while ((len = nfswb_lines_next(&lines, &line)) > 0)
		leased_add_line(l, line, dev);
	nfswb_lines_close(&lines);
	if (len < 0) {
		l->all = true;
		return (int)len;
	}
	if (l->n)
		qsort(l->ino, l->n, sizeof(*l->ino), nfswb_cmp_u64);
	return 0;
}

bool nfswb_leased_has(const struct nfswb_leased *l, uint64_t ino)
{
	return l->all || (l->n && bsearch(&ino, l->ino, l->n, sizeof(ino),
					  nfswb_cmp_u64));
}

void nfswb_leased_free(struct nfswb_leased *l)
{
	free(l->ino);
	memset(l, 0, sizeof(*l));
}

char *nfswb_bdi_stats_path(const char *sysroot, const char *bdi, char *buf,
			   size_t len)
{
	snprintf(buf, len, "%s/sys/kernel/debug/bdi/%s/stats", sysroot, bdi);
	return buf;
}

/* mm/backing-dev.c prints "BdiReclaimable: %10lu kB", and kBps. */
static int bdi_stats_parse(const char *text, struct nfswb_bdi_stats *st)
{
	uint64_t v;

	memset(st, 0, sizeof(*st));
	if (!find_keyed_u64(text, "BdiReclaimable", &v)) {
		st->reclaimable = v << 10;
		st->has_reclaimable = true;
	}
	if (!find_keyed_u64(text, "BdiWriteback", &v))
		st->writeback = v << 10;
	if (!find_keyed_u64(text, "BdiWriteBandwidth", &v))
		st->write_bandwidth = v << 10;
	if (!find_keyed_u64(text, "BdiDirtied", &v)) {
		st->dirtied = v << 10;
		st->has_dirtied = true;
	}
	return st->has_reclaimable ? 0 : -ENOENT;
}

int nfswb_bdi_stats_read(const char *sysroot, const char *bdi,
			 struct nfswb_bdi_stats *st)
{
	char path[PATH_MAX], text[PROC_TEXT_MAX];
	int ret;

	memset(st, 0, sizeof(*st));
	ret = nfswb_read_text(nfswb_bdi_stats_path(sysroot, bdi, path,
						   sizeof(path)),
			      text, sizeof(text));
	return ret < 0 ? ret : bdi_stats_parse(text, st);
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
	ret = read_keyed_u64(path, "Tgid", &tgid);
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

void nfswb_dirty_files_open(struct nfswb_dirty_files *df,
			    const char *sysroot, const char *bdi)
{
	char path[PATH_MAX];

	nfswb_kfile_open(&df->bdi_stats, nfswb_bdi_stats_path(sysroot, bdi,
							       path,
							       sizeof(path)));
	snprintf(path, sizeof(path), "%s/proc/vmstat", sysroot);
	nfswb_kfile_open(&df->vmstat, path);
}

void nfswb_dirty_files_reopen(struct nfswb_dirty_files *df)
{
	nfswb_kfile_reopen(&df->bdi_stats);
	nfswb_kfile_reopen(&df->vmstat);
}

void nfswb_dirty_files_close(struct nfswb_dirty_files *df)
{
	nfswb_kfile_close(&df->bdi_stats);
	nfswb_kfile_close(&df->vmstat);
}

/*
 * @bdi_key of the bdi's debugfs stats (kB), else @vm_key of /proc/vmstat
 * (pages), both from the files @df holds open.
 */
static enum nfswb_dirty_bound_source bdi_else_machine(
	struct nfswb_dirty_files *df, const char *bdi_key, const char *vm_key,
	uint64_t *bytes)
{
	uint64_t v;

	if (nfswb_kfile_keyed_u64(&df->bdi_stats, bdi_key, &v) == 0) {
		*bytes = v << 10;
		return NFSWB_BOUND_BDI;
	}
	if (nfswb_kfile_keyed_u64(&df->vmstat, vm_key, &v) == 0) {
		*bytes = v * (uint64_t)sysconf(_SC_PAGESIZE);
		return NFSWB_BOUND_GLOBAL;
	}
	*bytes = 0;
	return NFSWB_BOUND_NONE;
}

enum nfswb_dirty_bound_source nfswb_dirty_bound(struct nfswb_dirty_files *df,
						uint64_t *bytes)
{
	return bdi_else_machine(df, "BdiReclaimable", "nr_dirty", bytes);
}

enum nfswb_dirty_bound_source nfswb_dirtied(struct nfswb_dirty_files *df,
					    uint64_t *bytes)
{
	return bdi_else_machine(df, "BdiDirtied", "nr_dirtied", bytes);
}
