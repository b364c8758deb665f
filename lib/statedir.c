// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * statedir.c - a state directory root can trust (statedir.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statedir.h"

/* Missing parents of the state directory, as mkdir -p with mode 0755. */
static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int nfswb_statedir_open(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	if (path[0] != '/') {
		snprintf(err, errlen,
			 "state directory %s is not an absolute path", path);
		return -EINVAL;
	}
	ret = mkdir_parents(path);
	if (!ret && mkdir(path, 0700) < 0 && errno != EEXIST)
		ret = -errno;
	if (ret < 0) {
		snprintf(err, errlen, "cannot create state directory %s: %s",
			 path, strerror(-ret));
		return ret;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open state directory %s: %s",
			 path, ret == -ELOOP || ret == -ENOTDIR ?
			 "it is a symlink or not a directory" :
			 strerror(-ret));
		return ret;
	}
	ret = -EPERM;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot stat state directory %s: %s",
			 path, strerror(-ret));
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "state directory %s is owned by uid %u, not %u; refusing to use it",
			 path, (unsigned int)st.st_uid,
			 (unsigned int)geteuid());
		goto fail;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
			 "state directory %s is writable by group or others (mode %04o); refusing to use it",
			 path, (unsigned int)(st.st_mode & 07777));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return ret;
}

int nfswb_statedir_openat(int dirfd, const char *name, int flags,
			  mode_t mode)
{
	struct stat st;
	int fd, e;

	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		    mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		e = EPERM;
		goto fail;
	}
	if (!(flags & O_NONBLOCK) &&
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		e = errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -e;
}

int nfswb_statedir_create_tmp(int dirfd, const char *name, mode_t mode)
{
	struct stat st;
	int fd;

	fd = nfswb_statedir_openat(dirfd, name,
				   O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd != -EEXIST)
		return fd;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return -EEXIST;
	if (unlinkat(dirfd, name, 0) < 0)
		return -errno;
	return nfswb_statedir_openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL,
				     mode);
}

int nfswb_statedir_read(int dirfd, const char *name, size_t max, char **buf,
			size_t *len)
{
	struct stat st;
	size_t n = 0, cap;
	ssize_t got;
	char *b;
	int fd, e;

	*buf = NULL;
	*len = 0;
	fd = nfswb_statedir_openat(dirfd, name, O_RDONLY, 0);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		e = EFBIG;
		goto fail;
	}
	/* Sized from st_size, grown if the file grows, never past @max. */
	cap = (size_t)st.st_size + 1;
	b = malloc(cap + 1);
	if (!b) {
		e = ENOMEM;
		goto fail;
	}
	for (;;) {
		if (n == cap) {
			char *nb;

			if (n > max) {
				free(b);
				e = EFBIG;
				goto fail;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				e = ENOMEM;
				goto fail;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			free(b);
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		free(b);
		e = EFBIG;
		goto fail;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
fail:
	close(fd);
	return -e;
}
