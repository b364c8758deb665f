// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * readfile.c - whole configuration files, read with a bound (readfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
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
