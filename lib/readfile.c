// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * readfile.c - whole configuration files, read with a bound, and kernel
 * text files held open for sampling (readfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "readfile.h"

/* /dev/null: what `--nfs-conf /dev/null` means is "no configuration". */
static bool is_null_device(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       minor(st->st_rdev) == 3;
}

int nfswb_read_file_bounded(const char *path, size_t max, char **buf,
			    size_t *len)
{
	size_t n = 0, cap = 4096;
	struct stat st;
	char *b = NULL;
	int fd, err;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !is_null_device(&st)) {
		err = -EINVAL;
		goto out;
	}
	if (st.st_size > 0 && (uint64_t)st.st_size > max) {
		err = -EFBIG;
		goto out;
	}
	/* A hint only: the loop below reads to EOF whatever st_size said. */
	if (st.st_size > 0 && (size_t)st.st_size + 1 > cap)
		cap = (size_t)st.st_size + 1;
	for (;;) {
		ssize_t got;

		if (!b || n + 1 >= cap) {
			char *nb;

			if (b) {
				if (cap > max + 1) {
					err = -EFBIG;
					goto out;
				}
				cap *= 2;
			}
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			err = -EFBIG;
			goto out;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
	err = 0;
out:
	free(b);
	close(fd);
	return err;
}

/*
 * seq_file (procfs, debugfs, sysfs) returns less than asked before the
 * end only when its buffer, a page or more, is full of whole records;
 * a read shorter than asked and than half the smallest page is the end,
 * which saves the read that would return 0 on the small files.
 */
#define KFILE_SHORT_IS_END	2048u

/*
 * The text of @fd from offset 0 into @buf: every sampled read's loop.
 * Text that does not fit is -EFBIG, or with @cut_ok the part that fits.
 */
static int pread_text(int fd, char *buf, size_t len, bool cut_ok)
{
	size_t n = 0;

	if (!len)
		return -EINVAL;
	for (;;) {
		size_t want = len - 1 - n;
		ssize_t got;

		if (!want && cut_ok)
			break;
		if (!want)
			return -EFBIG;
		got = pread(fd, buf + n, want, (off_t)n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		n += (size_t)got;
		if (!got || ((size_t)got < want && n < KFILE_SHORT_IS_END))
			break;
	}
	buf[n] = '\0';
	return n > INT32_MAX ? -EFBIG : (int)n;
}

static int kfile_open_fd(struct nfswb_kfile *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		f->err = -errno;
		return f->err;
	}
	f->fd = fd;
	f->open = true;
	f->err = 0;
	return 0;
}

static void kfile_close_fd(struct nfswb_kfile *f, int err)
{
	if (f->open)
		close(f->fd);
	f->open = false;
	f->fd = -1;
	f->err = err;
}

int nfswb_kfile_open(struct nfswb_kfile *f, const char *path)
{
	nfswb_kfile_close(f);
	f->path = strdup(path);
	if (!f->path) {
		f->err = -ENOMEM;
		return -ENOMEM;
	}
	return kfile_open_fd(f);
}

int nfswb_kfile_reopen(struct nfswb_kfile *f)
{
	if (f->open)
		return 0;
	if (!f->path)
		return -EBADF;
	return kfile_open_fd(f);
}

static int kfile_read(struct nfswb_kfile *f, char *buf, size_t len,
		      bool cut_ok)
{
	int ret;

	if (!f->open)
		return f->err ? f->err : -EBADF;
	ret = pread_text(f->fd, buf, len, cut_ok);
	/* A device that went away does not come back on this fd. */
	if (ret < 0 && ret != -EFBIG && ret != -EINVAL)
		kfile_close_fd(f, ret);
	return ret;
}

int nfswb_kfile_read(struct nfswb_kfile *f, char *buf, size_t len)
{
	return kfile_read(f, buf, len, false);
}

int nfswb_kfile_read_head(struct nfswb_kfile *f, char *buf, size_t len)
{
	return kfile_read(f, buf, len, true);
}

void nfswb_kfile_close(struct nfswb_kfile *f)
{
	kfile_close_fd(f, 0);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

int nfswb_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), ret;

	if (fd < 0)
		return -errno;
	ret = pread_text(fd, buf, len, false);
	close(fd);
	return ret;
}
