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

#define JOURNAL_TMP	NFSWB_RESTORE_JOURNAL ".tmp"
#define JOURNAL_HEADER	"# nfswbd: original values to restore (restore.h)\n"

struct restore_entry {
	char *path;
	char *value;
};

struct nfswb_restore {
	char *dir;
	int dirfd;
	int lockfd;
	int jfd;		/* journal, O_APPEND */
	struct restore_entry *v;
	size_t n, cap;
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

/* ---- reading and writing the settings themselves ---- */

/* Read a sysfs/sysctl value into @buf without its trailing newline. */
static int read_value(const char *path, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

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
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
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

/* ---- the journal ---- */

static ssize_t find(const struct nfswb_restore *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].path, path))
			return (ssize_t)i;
	return -1;
}

static int add_entry(struct nfswb_restore *r, const char *path,
		     const char *value)
{
	struct restore_entry *v;
	char *p, *val;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;

		v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	p = strdup(path);
	val = strdup(value);
	if (!p || !val) {
		free(p);
		free(val);
		errno = ENOMEM;
		return -1;
	}
	r->v[r->n].path = p;
	r->v[r->n].value = val;
	r->n++;
	return 0;
}

static void remove_entry(struct nfswb_restore *r, size_t i)
{
	free(r->v[i].path);
	free(r->v[i].value);
	memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(r->v[0]));
	r->n--;
}

/* "PATH VALUE\n", escaped; NULL on ENOMEM. */
static char *format_record(const char *path, const char *value, size_t *len)
{
	char *p = escape(path), *v = escape(value), *line = NULL;
	int n;

	if (p && v) {
		n = asprintf(&line, "%s %s\n", p, v);
		if (n < 0)
			line = NULL;
		else
			*len = (size_t)n;
	}
	free(p);
	free(v);
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

/*
 * Replace the journal with the entries in memory: write a temporary file,
 * fsync it, rename it over the journal and fsync the directory, so that
 * after a crash the journal is either the old one or the new one.
 */
static int rewrite_journal(struct nfswb_restore *r)
{
	int fd, jfd, e;
	size_t i, len;
	char *line;

	fd = openat(r->dirfd, JOURNAL_TMP,
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	if (write_all(fd, JOURNAL_HEADER, strlen(JOURNAL_HEADER)) < 0)
		goto fail_fd;
	for (i = 0; i < r->n; i++) {
		line = format_record(r->v[i].path, r->v[i].value, &len);
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
		goto fail;
	if (fsync(r->dirfd) < 0)
		goto fail;
	jfd = openat(r->dirfd, NFSWB_RESTORE_JOURNAL,
		     O_WRONLY | O_APPEND | O_CLOEXEC);
	if (jfd < 0)
		goto fail;
	if (r->jfd >= 0)
		close(r->jfd);
	r->jfd = jfd;
	return 0;

fail_fd:
	e = errno;
	close(fd);
	errno = e;
fail:
	e = errno;
	xlog(L_ERROR, "cannot rewrite %s/%s: %s", r->dir, NFSWB_RESTORE_JOURNAL,
	     strerror(e));
	errno = e;
	return -1;
}

/* Append one record and make it durable before the caller changes @path. */
static int append_record(struct nfswb_restore *r, const char *path,
			 const char *value)
{
	size_t len;
	char *line = format_record(path, value, &len);
	int e;

	if (!line)
		return -1;
	if (write_all(r->jfd, line, len) < 0 || fdatasync(r->jfd) < 0) {
		e = errno;
		free(line);
		xlog(L_ERROR, "cannot append to %s/%s: %s", r->dir,
		     NFSWB_RESTORE_JOURNAL, strerror(e));
		errno = e;
		return -1;
	}
	free(line);
	return 0;
}

/* Read the whole journal; *buf NULL and 0 when there is none. */
static int slurp_journal(struct nfswb_restore *r, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = NULL, *nb;
	ssize_t got;
	int fd, e;

	*buf = NULL;
	*len = 0;
	fd = openat(r->dirfd, NFSWB_RESTORE_JOURNAL, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	for (;;) {
		if (!b || n == cap) {
			cap = b ? 2 * cap : cap;
			nb = realloc(b, cap);
			if (!nb)
				goto fail;
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	*buf = b;
	*len = n;
	return 0;
fail:
	e = errno;
	free(b);
	close(fd);
	errno = e;
	return -1;
}

/*
 * Parse the journal left by a previous run into @r, keeping the first
 * record of each path (the true original).  A torn last line is ignored.
 */
static int load_journal(struct nfswb_restore *r)
{
	char *buf, *line, *end, *sp, *path, *value;
	unsigned int lineno = 0;
	size_t len;

	if (slurp_journal(r, &buf, &len) < 0) {
		xlog(L_ERROR, "cannot read %s/%s: %m", r->dir,
		     NFSWB_RESTORE_JOURNAL);
		return -1;
	}
	for (line = buf; buf && line < buf + len; line = end + 1) {
		end = memchr(line, '\n', (size_t)(buf + len - line));
		if (!end) {
			xlog(L_NOTICE, "%s/%s: ignoring a torn last record",
			     r->dir, NFSWB_RESTORE_JOURNAL);
			break;
		}
		lineno++;
		if (line == end || *line == '#')
			continue;
		sp = memchr(line, ' ', (size_t)(end - line));
		path = sp ? unescape(line, (size_t)(sp - line)) : NULL;
		value = sp ? unescape(sp + 1, (size_t)(end - sp - 1)) : NULL;
		if (!path || !value || path[0] != '/') {
			xlog(L_WARNING, "%s/%s:%u: malformed record ignored",
			     r->dir, NFSWB_RESTORE_JOURNAL, lineno);
		} else if (find(r, path) < 0 && add_entry(r, path, value) < 0) {
			free(path);
			free(value);
			free(buf);
			return -1;
		}
		free(path);
		free(value);
	}
	free(buf);
	return 0;
}

/*
 * Write back entry @i.  Returns 1 when the entry is done with (restored,
 * or its file is gone with its device), 0 when it must stay.
 */
static int put_back_entry(struct nfswb_restore *r, size_t i, const char *why)
{
	const struct restore_entry *e = &r->v[i];

	if (write_value(e->path, e->value) == 0) {
		xlog(L_INFO, "restored %s to %s%s", e->path, e->value, why);
		return 1;
	}
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO) {
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

	for (i = r->n; i-- > 0;) {
		if (put_back_entry(r, i, why))
			remove_entry(r, i);
		else
			ret = -1;
	}
	if (rewrite_journal(r) < 0)
		ret = -1;
	return ret;
}

int nfswb_restore_open(const char *state_dir, struct nfswb_restore **rp,
		       char *err, size_t errlen)
{
	struct nfswb_restore *r;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->dirfd = r->lockfd = r->jfd = -1;
	r->dir = strdup(state_dir);
	if (!r->dir) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (mkdir(state_dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create state directory %s: %s",
			 state_dir, strerror(errno));
		goto fail;
	}
	r->dirfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0) {
		snprintf(err, errlen, "cannot open state directory %s: %s",
			 state_dir, strerror(errno));
		goto fail;
	}
	r->lockfd = openat(r->dirfd, NFSWB_RESTORE_LOCK,
			   O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (r->lockfd < 0) {
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
	if (load_journal(r) < 0) {
		snprintf(err, errlen, "cannot read %s/%s: %s", state_dir,
			 NFSWB_RESTORE_JOURNAL, strerror(errno));
		goto fail;
	}
	if (r->n)
		xlog(L_NOTICE, "restoring %zu setting(s) left by a previous run",
		     r->n);
	/* Failures are logged and kept; the journal itself must work. */
	put_back_all(r, " (left by a previous run)");
	if (r->jfd < 0) {
		snprintf(err, errlen, "cannot write %s/%s: %s", state_dir,
			 NFSWB_RESTORE_JOURNAL, strerror(errno));
		goto fail;
	}
	*rp = r;
	return 0;
fail:
	nfswb_restore_close(r);
	return -1;
}

int nfswb_restore_record(struct nfswb_restore *r, const char *path)
{
	char *value;
	int e;

	if (find(r, path) >= 0)
		return 0;
	value = malloc(NFSWB_RESTORE_VALUE_MAX);
	if (!value)
		return -1;
	if (read_value(path, value, NFSWB_RESTORE_VALUE_MAX) < 0) {
		e = errno;
		xlog(L_ERROR, "cannot read %s to record it: %s", path,
		     strerror(e));
		goto fail;
	}
	if (append_record(r, path, value) < 0 ||
	    add_entry(r, path, value) < 0) {
		e = errno;
		goto fail;
	}
	free(value);
	return 0;
fail:
	free(value);
	errno = e;
	return -1;
}

int nfswb_restore_set(struct nfswb_restore *r, const char *path,
		      const char *value)
{
	return nfswb_restore_set_via(r, path, path, value);
}

int nfswb_restore_set_via(struct nfswb_restore *r, const char *record_path,
			  const char *path, const char *value)
{
	if (nfswb_restore_record(r, record_path) < 0)
		return -1;
	if (write_value(path, value) < 0) {
		int e = errno;

		xlog(L_WARNING, "cannot write %s to %s: %s", value, path,
		     strerror(e));
		errno = e;
		return -1;
	}
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
		return -1;
	remove_entry(r, (size_t)i);
	return rewrite_journal(r);
}

int nfswb_restore_all(struct nfswb_restore *r)
{
	if (!r->n)
		return 0;
	return put_back_all(r, "");
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
	for (i = 0; i < r->n; i++) {
		free(r->v[i].path);
		free(r->v[i].value);
	}
	free(r->v);
	if (r->jfd >= 0)
		close(r->jfd);
	if (r->lockfd >= 0)
		close(r->lockfd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->dir);
	free(r);
}
