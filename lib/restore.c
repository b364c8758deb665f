// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * restore.c - the journal of kernel settings nfswbd changed (restore.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "restore.h"
#include "statedir.h"

#define JOURNAL_TMP	NFSWB_RESTORE_JOURNAL ".tmp"
#define JOURNAL_HEADER	"# nfswbd: original values to restore (restore.h)\n"

/* Entries of gone devices logged one by one in a pass; the rest counted. */
#define GONE_LOGGED	8

/* Appended records beyond this (over the live ones) trigger a rewrite. */
#define COMPACT_SLACK	64

struct restore_entry {
	char *path;
	char *value;		/* the original */
	char *set;		/* read after our last change; NULL: unknown */
	int lock;		/* index in locks[] of its bdi's, or -1 */
};

/* An flock on SYSROOT/sys/class/bdi/BDI, shared by that bdi's entries. */
struct bdi_lock {
	char *dir;
	int fd;			/* -1: slot free */
	unsigned int refs;
};

struct nfswb_restore {
	char *dir;
	char *sysroot;
	int dirfd;
	int lockfd;
	int jfd;		/* journal, O_APPEND */
	bool failed;		/* a journal write failed since open */
	size_t appended;	/* records appended since the last rewrite */
	struct restore_entry *v;
	size_t n, cap;
	struct bdi_lock *locks;
	size_t nlocks;
	char *busy_dir;		/* the last one found locked, logged */
	size_t gone;		/* entries of gone devices in this pass */
};

/* ---- escaping: '%', space and anything not printable become %XX ---- */

static bool needs_escape(unsigned char c)
{
	return c == '%' || c <= ' ' || c >= 0x7f;
}

static char *escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(s);
	char *out = malloc(3 * len + 1);
	char *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (needs_escape(c)) {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p = '\0';
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode @len bytes of @s; NULL on a malformed escape or an embedded NUL. */
static char *unescape(const char *s, size_t len)
{
	char *out = malloc(len + 1);
	size_t i, o = 0;
	int hi, lo;

	if (!out)
		return NULL;
	for (i = 0; i < len; i++) {
		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		if (i + 2 >= len)
			goto bad;
		hi = hexval(s[i + 1]);
		lo = hexval(s[i + 2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			goto bad;
		out[o++] = (char)(hi << 4 | lo);
		i += 2;
	}
	out[o] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* ---- what the journal may name ---- */

static const char *const journal_attrs[] = { NFSWB_RESTORE_ATTRS, NULL };
static const char *const write_attrs[] = { NFSWB_RESTORE_WRITE_ATTRS, NULL };

static bool all_digits(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* "MAJ:MIN" or "btrfs-N", as device.c names bdis. */
static bool bdi_name_ok(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);

	if (len > 6 && !memcmp(s, "btrfs-", 6))
		return all_digits(s + 6, len - 6);
	return colon && all_digits(s, (size_t)(colon - s)) &&
	       all_digits(colon + 1, len - (size_t)(colon - s) - 1);
}

/* An unsigned decimal number, as every attribute we change holds. */
static bool value_ok(const char *v)
{
	size_t len = strlen(v);

	return len <= 20 && all_digits(v, len);
}

bool nfswb_restore_path_ok(const char *sysroot, const char *path, bool write)
{
	static const char mid[] = "/sys/class/bdi/";
	size_t rlen = strlen(sysroot);
	const char *bdi, *slash;

	if (strncmp(path, sysroot, rlen) ||
	    strncmp(path + rlen, mid, sizeof(mid) - 1))
		return false;
	bdi = path + rlen + sizeof(mid) - 1;
	slash = strchr(bdi, '/');
	if (!slash || !bdi_name_ok(bdi, (size_t)(slash - bdi)))
		return false;
	for (const char *const *a = write ? write_attrs : journal_attrs; *a;
	     a++)
		if (!strcmp(slash + 1, *a))
			return true;
	return false;
}

/*
 * The static helpers below return -1 with errno set, as the system calls
 * they wrap do; each public function turns that into the negative errno
 * it returns (the lib convention, doc/architecture.md).
 */
static int neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* ---- reading and writing the settings themselves ---- */

/* Read a sysfs/sysctl value into @buf without its trailing newline. */
static int read_value(const char *path, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == size - 1) {
		errno = EFBIG;
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		/* An embedded NUL: not a value we can write back. */
		errno = EINVAL;
		return -1;
	}
	buf[len] = '\0';
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return 0;
}

/*
 * Write "@value\n" with a single write(2): sysfs and sysctl handlers parse
 * one write as one value, and accept the trailing newline as echo(1)
 * sends it.
 */
static int write_value(const char *path, const char *value)
{
	size_t len = strlen(value);
	char *buf = malloc(len + 2);
	ssize_t n;
	int fd, e = 0;

	if (!buf)
		return -1;
	memcpy(buf, value, len);
	buf[len] = '\n';
	fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	do {
		n = write(fd, buf, len + 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		e = errno;
	else if ((size_t)n != len + 1)
		e = EIO;
	if (close(fd) < 0 && !e)
		e = errno;
out:
	free(buf);
	errno = e;
	return e ? -1 : 0;
}

/* ---- one nfswbd per device: an flock on the bdi's sysfs directory ---- */

/* The directory of @path: everything before its last '/'. */
static char *bdi_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strndup(path, (size_t)(slash - path));
}

/* Take (or share) the lock of @path's bdi; its index, or -1 (EBUSY...). */
static int bdi_lock_get(struct nfswb_restore *r, const char *path)
{
	struct bdi_lock *l;
	char *dir = bdi_dir(path);
	size_t i, slot = r->nlocks;
	int fd, e;

	if (!dir)
		return -1;
	for (i = 0; i < r->nlocks; i++) {
		if (r->locks[i].fd < 0) {
			slot = i;
			continue;
		}
		if (!strcmp(r->locks[i].dir, dir)) {
			r->locks[i].refs++;
			free(dir);
			return (int)i;
		}
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		if (e == EWOULDBLOCK) {
			/* Once per device, not at every retry. */
			if (!r->busy_dir || strcmp(r->busy_dir, dir))
				xlog(L_ERROR, "%s is locked: another nfswbd is changing this device's settings; leaving them to it",
				     dir);
			free(r->busy_dir);
			r->busy_dir = dir;
			dir = NULL;
			e = EBUSY;
		}
		free(dir);
		errno = e;
		return -1;
	}
	if (slot == r->nlocks) {
		l = realloc(r->locks, (r->nlocks + 1) * sizeof(*l));
		if (!l) {
			close(fd);
			free(dir);
			errno = ENOMEM;
			return -1;
		}
		r->locks = l;
		r->nlocks++;
	}
	r->locks[slot].dir = dir;
	r->locks[slot].fd = fd;
	r->locks[slot].refs = 1;
	return (int)slot;
}

static void bdi_lock_put(struct nfswb_restore *r, int i)
{
	struct bdi_lock *l;

	if (i < 0)
		return;
	l = &r->locks[i];
	if (--l->refs)
		return;
	close(l->fd);
	free(l->dir);
	l->fd = -1;
	l->dir = NULL;
}

/* Make sure entry @e holds its bdi's lock (entries from a journal do not). */
static int entry_lock(struct nfswb_restore *r, struct restore_entry *e)
{
	if (e->lock < 0)
		e->lock = bdi_lock_get(r, e->path);
	return e->lock < 0 ? -1 : 0;
}

/* ---- the entries in memory ---- */

/*
 * Linear: the daemon journals a few attributes per device; a journal
 * read at start-up is merged by nfswb_restore_parse() in O(n log n).
 */
static ssize_t find(const struct nfswb_restore *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].path, path))
			return (ssize_t)i;
	return -1;
}

static int set_str(char **dst, const char *src)
{
	char *p = src ? strdup(src) : NULL;

	if (src && !p) {
		errno = ENOMEM;
		return -1;
	}
	free(*dst);
	*dst = p;
	return 0;
}

static struct restore_entry *add_entry(struct nfswb_restore *r,
				       const char *path, const char *value,
				       const char *set)
{
	struct restore_entry *v, *e;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;

		v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	e = &r->v[r->n];
	memset(e, 0, sizeof(*e));
	e->lock = -1;
	if (set_str(&e->path, path) < 0 || set_str(&e->value, value) < 0 ||
	    set_str(&e->set, set) < 0) {
		free(e->path);
		free(e->value);
		free(e->set);
		errno = ENOMEM;
		return NULL;
	}
	r->n++;
	return e;
}

static void free_entry(struct nfswb_restore *r, struct restore_entry *e)
{
	bdi_lock_put(r, e->lock);
	free(e->path);
	free(e->value);
	free(e->set);
}

static void remove_entry(struct nfswb_restore *r, size_t i)
{
	free_entry(r, &r->v[i]);
	memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(r->v[0]));
	r->n--;
}

/* ---- writing the journal ---- */

/* "PATH ORIGINAL[ SET]\n", escaped; NULL on ENOMEM. */
static char *format_record(const char *path, const char *value,
			   const char *set, size_t *len)
{
	char *p = escape(path), *v = escape(value);
	char *s = set ? escape(set) : NULL, *line = NULL;
	int n;

	if (p && v && (s || !set)) {
		n = asprintf(&line, "%s %s%s%s\n", p, v, s ? " " : "",
			     s ? s : "");
		if (n < 0)
			line = NULL;
		else
			*len = (size_t)n;
	}
	free(p);
	free(v);
	free(s);
	return line;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void journal_failed(struct nfswb_restore *r, const char *what, int e)
{
	xlog(L_ERROR, "cannot %s %s/%s: %s", what, r->dir,
	     NFSWB_RESTORE_JOURNAL, strerror(e));
	r->failed = true;
	errno = e;
}

/*
 * Replace the journal with the entries in memory: write a temporary file,
 * fsync it, rename it over the journal and fsync the directory, so that
 * after a crash the journal is either the old one or the new one.  When
 * that fails (a full file system) and nothing is left to restore, the
 * journal is removed instead, which needs no space: a stale journal must
 * not outlive what it recorded.
 */
static int rewrite_journal(struct nfswb_restore *r)
{
	int fd, jfd, e;
	size_t i, len;
	char *line;

	fd = nfswb_statedir_create_tmp(r->dirfd, JOURNAL_TMP, 0600);
	if (fd < 0) {
		errno = -fd;
		goto fail;
	}
	if (write_all(fd, JOURNAL_HEADER, strlen(JOURNAL_HEADER)) < 0)
		goto fail_fd;
	for (i = 0; i < r->n; i++) {
		line = format_record(r->v[i].path, r->v[i].value, r->v[i].set,
				     &len);
		if (!line)
			goto fail_fd;
		if (write_all(fd, line, len) < 0) {
			free(line);
			goto fail_fd;
		}
		free(line);
	}
	if (fsync(fd) < 0)
		goto fail_fd;
	close(fd);
	if (renameat(r->dirfd, JOURNAL_TMP, r->dirfd,
		     NFSWB_RESTORE_JOURNAL) < 0)
		goto fail_tmp;
	if (fsync(r->dirfd) < 0)
		goto fail;
	jfd = nfswb_statedir_openat(r->dirfd, NFSWB_RESTORE_JOURNAL,
				    O_WRONLY | O_APPEND, 0);
	if (jfd < 0) {
		errno = -jfd;
		goto fail;
	}
	if (r->jfd >= 0)
		close(r->jfd);
	r->jfd = jfd;
	r->appended = 0;
	return 0;

fail_fd:
	e = errno;
	close(fd);
	errno = e;
fail_tmp:
	e = errno;
	unlinkat(r->dirfd, JOURNAL_TMP, 0);
	errno = e;
fail:
	e = errno;
	if (!r->n && (unlinkat(r->dirfd, NFSWB_RESTORE_JOURNAL, 0) == 0 ||
		      errno == ENOENT) && fsync(r->dirfd) == 0) {
		xlog(L_ERROR, "cannot rewrite %s/%s (%s); removed it, nothing is left to restore",
		     r->dir, NFSWB_RESTORE_JOURNAL, strerror(e));
		r->failed = true;
		/* Appends need a journal: the next record creates one. */
		if (r->jfd >= 0)
			close(r->jfd);
		r->jfd = nfswb_statedir_openat(r->dirfd, NFSWB_RESTORE_JOURNAL,
					       O_WRONLY | O_APPEND | O_CREAT,
					       0600);
		return 0;
	}
	journal_failed(r, "rewrite", e);
	return -1;
}

/*
 * Append one record and make it durable.  A failed append is cut off
 * again, so that a later one does not continue a torn line.
 */
static int append_record(struct nfswb_restore *r, const char *path,
			 const char *value, const char *set)
{
	size_t len;
	char *line = format_record(path, value, set, &len);
	off_t end;
	int e;

	if (!line)
		return -1;
	if (r->jfd < 0) {
		e = EBADF;
		goto fail;
	}
	end = lseek(r->jfd, 0, SEEK_END);
	if (end < 0 || write_all(r->jfd, line, len) < 0 ||
	    fdatasync(r->jfd) < 0) {
		e = errno;
		if (end >= 0 && ftruncate(r->jfd, end) == 0)
			fdatasync(r->jfd);
		goto fail;
	}
	free(line);
	r->appended++;
	return 0;
fail:
	free(line);
	journal_failed(r, "append to", e);
	return -1;
}

/* Rewrite a journal grown long with confirmations; failure is logged. */
static void maybe_compact(struct nfswb_restore *r)
{
	if (r->appended > COMPACT_SLACK + 2 * r->n)
		rewrite_journal(r);
}

/* ---- reading the journal ---- */

struct parsed {
	char *path, *orig, *set;
	unsigned int line;
};

static int cmp_path_line(const void *a, const void *b)
{
	const struct parsed *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_line(const void *a, const void *b)
{
	const struct parsed *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/* Split one record line into its unescaped fields: their count, or -1. */
static int split_fields(const char *line, size_t len, char **f, int max)
{
	const char *p = line, *end = line + len, *sp;
	int n = 0;

	while (p <= end) {
		sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			sp = end;
		if (n == max || !(f[n] = unescape(p, (size_t)(sp - p)))) {
			while (n > 0)
				free(f[--n]);
			return -1;
		}
		n++;
		p = sp + 1;
	}
	return n;
}

static const char *check_record(const char *sysroot, char *const *f, int n)
{
	if (n < 2)
		return "malformed record (not PATH ORIGINAL [SET])";
	if (!nfswb_restore_path_ok(sysroot, f[0], false))
		return "not a setting nfswbd changes (only SYSROOT/sys/class/bdi/BDI/ATTR, ATTR strict_limit, max_ratio_fine or dirty_background_{time,time_ms,bytes})";
	if (!value_ok(f[1]) || (n == 3 && !value_ok(f[2])))
		return "value is not an unsigned decimal number";
	return NULL;
}

int nfswb_restore_parse(const char *buf, size_t len, const char *sysroot,
			const struct nfswb_restore_reader *rd)
{
	struct parsed *v = NULL, *nv;
	size_t n = 0, cap = 0, i, j, groups;
	const char *line, *end, *why;
	unsigned int lineno = 0;
	char *f[3];
	int nf, k, ret = -1, e = ENOMEM;

	for (line = buf; line < buf + len; line = end + 1) {
		end = memchr(line, '\n', (size_t)(buf + len - line));
		lineno++;
		if (!end) {
			rd->skip(rd->arg, lineno, "a torn last record (its change never happened), ignored", true);
			break;
		}
		if (line == end || *line == '#')
			continue;
		nf = split_fields(line, (size_t)(end - line), f, 3);
		why = nf < 0 ? "malformed record (bad escape or too many fields)" :
			       check_record(sysroot, f, nf);
		if (why) {
			for (k = 0; k < nf; k++)
				free(f[k]);
			rd->skip(rd->arg, lineno, why, false);
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				for (k = 0; k < nf; k++)
					free(f[k]);
				goto out;
			}
			v = nv;
		}
		v[n].path = f[0];
		v[n].orig = f[1];
		v[n].set = nf == 3 ? f[2] : NULL;
		v[n].line = lineno;
		n++;
	}

	/* Merge each path's records: first original, last set value. */
	if (n)
		qsort(v, n, sizeof(*v), cmp_path_line);
	for (i = 0, groups = 0; i < n; i = j) {
		struct parsed g = v[i];

		for (j = i + 1; j < n && !strcmp(v[j].path, v[i].path); j++)
			;
		if (j - 1 != i) {
			g.set = v[j - 1].set;
			free(v[i].set);
		}
		for (size_t m = i + 1; m < j; m++) {
			free(v[m].path);
			free(v[m].orig);
			if (m != j - 1)
				free(v[m].set);
		}
		v[groups++] = g;
	}
	if (groups)
		qsort(v, groups, sizeof(*v), cmp_line);
	n = groups;
	for (i = 0; i < n; i++) {
		k = rd->record(rd->arg, v[i].line, v[i].path, v[i].orig,
			       v[i].set);
		if (k < 0) {
			e = -k;
			goto out;
		}
	}
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].orig);
		free(v[i].set);
	}
	free(v);
	return ret < 0 ? -e : 0;
}

static int load_record(void *arg, unsigned int line, const char *path,
		       const char *original, const char *set)
{
	(void)line;
	return add_entry(arg, path, original, set) ? 0 : -ENOMEM;
}

static void load_skip(void *arg, unsigned int line, const char *why,
		      bool torn)
{
	const struct nfswb_restore *r = arg;

	xlog(torn ? L_NOTICE : L_ERROR, "%s/%s:%u: %s%s", r->dir,
	     NFSWB_RESTORE_JOURNAL, line, why, torn ? "" : "; ignored");
}

/* Read the journal left by a previous run into @r. */
static int load_journal(struct nfswb_restore *r, char *err, size_t errlen)
{
	const struct nfswb_restore_reader rd = {
		.record = load_record, .skip = load_skip, .arg = r,
	};
	size_t len;
	char *buf;
	int ret;

	ret = nfswb_statedir_read(r->dirfd, NFSWB_RESTORE_JOURNAL,
				  NFSWB_RESTORE_JOURNAL_MAX, &buf, &len);
	if (ret < 0) {
		snprintf(err, errlen, "cannot read %s/%s: %s", r->dir,
			 NFSWB_RESTORE_JOURNAL,
			 ret == -EFBIG ? "larger than any journal nfswbd writes" :
			 ret == -EINVAL ? "not a regular file" :
			 ret == -ELOOP ? "it is a symlink" :
			 ret == -EPERM ? "owned by another user" :
			 strerror(-ret));
		errno = -ret;
		return -1;
	}
	if (!buf)
		return 0;
	ret = nfswb_restore_parse(buf, len, r->sysroot, &rd);
	free(buf);
	if (ret < 0) {
		snprintf(err, errlen, "cannot read %s/%s: %s", r->dir,
			 NFSWB_RESTORE_JOURNAL, strerror(-ret));
		errno = -ret;
		return -1;
	}
	return 0;
}

/*
 * Write back entry @i, unless its file no longer reads the value nfswbd
 * set (someone changed it since: theirs now).  Returns 1 when the entry
 * is done with (restored, left, or its file is gone with its device), 0
 * when it must stay.
 */
static int put_back_entry(struct nfswb_restore *r, size_t i, const char *why)
{
	struct restore_entry *e = &r->v[i];
	char cur[NFSWB_RESTORE_VALUE_MAX];

	if (entry_lock(r, e) < 0) {
		if (errno != EBUSY)
			goto failed;
		xlog(L_WARNING, "not restoring %s to %s: another nfswbd holds the device; kept for the next start",
		     e->path, e->value);
		return 0;
	}
	if (e->set && read_value(e->path, cur, sizeof(cur)) == 0 &&
	    strcmp(cur, e->set)) {
		xlog(L_NOTICE, "not restoring %s to %s: it reads %s, not the %s nfswbd set, so someone changed it since",
		     e->path, e->value, cur, e->set);
		return 1;
	}
	if (write_value(e->path, e->value) == 0) {
		xlog(L_INFO, "restored %s to %s%s", e->path, e->value, why);
		return 1;
	}
failed:
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO) {
		/* A journal of many gone devices must not flood the log. */
		if (r->gone++ < GONE_LOGGED)
			xlog(L_WARNING, "cannot restore %s to %s: %m; the device is gone, dropping it",
			     e->path, e->value);
		return 1;
	}
	xlog(L_ERROR, "cannot restore %s to %s: %m; kept for the next start",
	     e->path, e->value);
	return 0;
}

/* Restore entries newest first; keep those that failed. */
static int put_back_all(struct nfswb_restore *r, const char *why)
{
	int ret = 0;
	size_t i;

	r->gone = 0;
	for (i = r->n; i-- > 0;) {
		if (put_back_entry(r, i, why))
			remove_entry(r, i);
		else
			ret = -1;
	}
	if (r->gone > GONE_LOGGED)
		xlog(L_WARNING, "%zu more settings of devices that are gone dropped",
		     r->gone - GONE_LOGGED);
	r->gone = 0;
	if (rewrite_journal(r) < 0)
		ret = -1;
	return ret;
}

int nfswb_restore_open(int state_dirfd, const char *state_dir,
		       const char *sysroot, struct nfswb_restore **rp,
		       char *err, size_t errlen)
{
	struct nfswb_restore *r;
	int ret;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->dirfd = r->lockfd = r->jfd = -1;
	r->dir = strdup(state_dir);
	r->sysroot = strdup(sysroot);
	if (!r->dir || !r->sysroot) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	r->dirfd = fcntl(state_dirfd, F_DUPFD_CLOEXEC, 3);
	if (r->dirfd < 0) {
		snprintf(err, errlen, "state directory %s: %s", state_dir,
			 strerror(errno));
		goto fail;
	}
	r->lockfd = nfswb_statedir_openat(r->dirfd, NFSWB_RESTORE_LOCK,
					  O_RDWR | O_CREAT, 0600);
	if (r->lockfd < 0) {
		errno = -r->lockfd;
		snprintf(err, errlen, "cannot open %s/%s: %s", state_dir,
			 NFSWB_RESTORE_LOCK, strerror(errno));
		goto fail;
	}
	if (flock(r->lockfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			snprintf(err, errlen,
				 "%s/%s is locked: another nfswbd is running with this state directory",
				 state_dir, NFSWB_RESTORE_LOCK);
		else
			snprintf(err, errlen, "cannot lock %s/%s: %s",
				 state_dir, NFSWB_RESTORE_LOCK,
				 strerror(errno));
		goto fail;
	}
	if (load_journal(r, err, errlen) < 0)
		goto fail;
	if (r->n)
		xlog(L_NOTICE, "restoring %zu setting(s) left by a previous run",
		     r->n);
	/* Failures are logged and kept; the journal itself must work. */
	put_back_all(r, " (left by a previous run)");
	if (r->jfd < 0) {
		/* -1: rewrite_journal() failed and set errno; else an errno. */
		if (r->jfd < -1)
			errno = -r->jfd;
		snprintf(err, errlen, "cannot write %s/%s: %s", state_dir,
			 NFSWB_RESTORE_JOURNAL, strerror(errno));
		goto fail;
	}
	*rp = r;
	return 0;
fail:
	ret = neg_errno();
	nfswb_restore_close(r);
	return ret;
}

/* The entry for @path, recorded (and its bdi locked) if it is new. */
static struct restore_entry *record(struct nfswb_restore *r, const char *path)
{
	struct restore_entry *e;
	ssize_t i = find(r, path);
	char *value;
	int lock, err;

	if (!nfswb_restore_path_ok(r->sysroot, path, false)) {
		xlog(L_ERROR, "refusing to journal %s: not a setting nfswbd changes",
		     path);
		errno = EPERM;
		return NULL;
	}
	if (i >= 0)
		return entry_lock(r, &r->v[i]) < 0 ? NULL : &r->v[i];
	lock = bdi_lock_get(r, path);
	if (lock < 0)
		return NULL;
	value = malloc(NFSWB_RESTORE_VALUE_MAX);
	if (!value) {
		err = ENOMEM;
		goto fail;
	}
	if (read_value(path, value, NFSWB_RESTORE_VALUE_MAX) < 0) {
		err = errno;
		xlog(L_ERROR, "cannot read %s to record it: %s", path,
		     strerror(err));
		goto fail;
	}
	if (!value_ok(value)) {
		err = EINVAL;
		xlog(L_ERROR, "cannot record %s: its value is not a number",
		     path);
		goto fail;
	}
	if (append_record(r, path, value, NULL) < 0 ||
	    !(e = add_entry(r, path, value, NULL))) {
		err = errno;
		goto fail;
	}
	free(value);
	e->lock = lock;
	return e;
fail:
	free(value);
	bdi_lock_put(r, lock);
	errno = err;
	return NULL;
}

int nfswb_restore_set(struct nfswb_restore *r, const char *path,
		      const char *value)
{
	return nfswb_restore_set_via(r, path, path, value);
}

int nfswb_restore_set_via(struct nfswb_restore *r, const char *record_path,
			  const char *path, const char *value)
{
	char cur[NFSWB_RESTORE_VALUE_MAX];
	struct restore_entry *e;
	int err;

	if (!nfswb_restore_path_ok(r->sysroot, path, true) ||
	    !value_ok(value)) {
		xlog(L_ERROR, "refusing to write %s to %s: not a setting nfswbd changes",
		     value, path);
		return -EPERM;
	}
	e = record(r, record_path);
	if (!e)
		return neg_errno();
	/* Unconfirmed until read back: a crash in between restores it. */
	if (e->set) {
		if (append_record(r, e->path, e->value, NULL) < 0)
			return neg_errno();
		set_str(&e->set, NULL);
	}
	if (write_value(path, value) < 0) {
		err = neg_errno();
		xlog(L_WARNING, "cannot write %s to %s: %s", value, path,
		     strerror(-err));
		return err;
	}
	if (read_value(e->path, cur, sizeof(cur)) < 0 || !value_ok(cur)) {
		xlog(L_WARNING, "cannot read %s back after writing %s: %m; it will be restored unconditionally",
		     e->path, path);
		return 0;
	}
	/* A failed confirmation leaves "unknown": restored as before. */
	if (append_record(r, e->path, e->value, cur) == 0 &&
	    set_str(&e->set, cur) == 0)
		maybe_compact(r);
	return 0;
}

const char *nfswb_restore_original(const struct nfswb_restore *r,
				   const char *path)
{
	ssize_t i = find(r, path);

	return i < 0 ? NULL : r->v[i].value;
}

int nfswb_restore_put_back(struct nfswb_restore *r, const char *path)
{
	ssize_t i = find(r, path);

	if (i < 0)
		return 0;
	if (!put_back_entry(r, (size_t)i, ""))
		return -EIO;	/* logged, with the reason */
	remove_entry(r, (size_t)i);
	return rewrite_journal(r) < 0 ? neg_errno() : 0;
}

int nfswb_restore_all(struct nfswb_restore *r)
{
	int ret = r->n ? put_back_all(r, "") : 0;

	return r->failed || ret < 0 ? -EIO : 0;
}

size_t nfswb_restore_count(const struct nfswb_restore *r)
{
	return r->n;
}

void nfswb_restore_close(struct nfswb_restore *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		free_entry(r, &r->v[i]);
	free(r->v);
	for (i = 0; i < r->nlocks; i++)
		if (r->locks[i].fd >= 0) {
			close(r->locks[i].fd);
			free(r->locks[i].dir);
		}
	free(r->locks);
	free(r->busy_dir);
	if (r->jfd >= 0)
		close(r->jfd);
	if (r->lockfd >= 0)
		close(r->lockfd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->sysroot);
	free(r->dir);
	free(r);
}
