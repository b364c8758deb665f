/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readfile.h - read a whole configuration file, with a bound.
 *
 * For files an admin writes (nfswb.exports, nfs.conf and its includes):
 * opened O_NONBLOCK so that a FIFO cannot hang the reader, only a
 * regular file or the null device (an empty file) is read, and st_size
 * is not trusted - procfs and sysfs report 0 for files that are not
 * empty - so reading goes on to end of file or past the bound.
 */
#ifndef NFSWB_READFILE_H
#define NFSWB_READFILE_H

#include <stddef.h>

/**
 * nfswb_read_file_bounded - the contents of @path, NUL-terminated.
 * @path: the file.
 * @max: the largest size accepted, in bytes.
 * @buf: the contents (free them); text after a NUL byte is kept.
 * @len: their length, without the terminating NUL.
 *
 * Return: 0, or a negative errno: -ENOENT and the rest of open(2)'s,
 * -EISDIR, -EINVAL (neither a regular file nor /dev/null), -EFBIG (longer
 * than @max), -ENOMEM, or read(2)'s (-EIO for /proc/self/mem).
 */
int nfswb_read_file_bounded(const char *path, size_t max, char **buf,
			    size_t *len);

#endif
