/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readfile.h - read a whole file: a configuration file, with a bound, or
 * a file the kernel prints, held open and re-read each sample.
 *
 * For files an admin writes (nfswb.exports, nfs.conf and its includes):
 * opened O_NONBLOCK so that a FIFO cannot hang the reader, only a
 * regular file or the null device (an empty file) is read, and st_size
 * is not trusted - procfs and sysfs report 0 for files that are not
 * empty - so reading goes on to end of file or past the bound.
 *
 * For the files the daemon samples (/sys/block/DEV/stat, /proc/vmstat,
 * debugfs bdi stats, sysfs bdi attributes): a struct nfswb_kfile keeps
 * the file open and each read is a pread(2) from offset 0, which makes
 * seq_file (procfs, debugfs) and kernfs (sysfs) print the file afresh,
 * so a sample costs no openat(2) and close(2).
 */
#ifndef NFSWB_READFILE_H
#define NFSWB_READFILE_H

#include <stdbool.h>
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

/*
 * A kernel text file held open.  All zeroes is closed and never opened;
 * after a read error it is closed and keeps its path (and the error) for
 * nfswb_kfile_reopen(), which the owner calls when it checks that the
 * device is still there.
 */
struct nfswb_kfile {
	char *path;		/* NULL: never opened */
	int fd;			/* valid while open */
	bool open;
	int err;		/* why it is closed: a negative errno */
};

/**
 * nfswb_kfile_open - open @path for sampling (closing what @f held).
 * @f: the file; closed with nfswb_kfile_close() in any case
 * @path: the file to open
 *
 * Return: 0, or a negative errno from open(2) (then @f keeps @path for
 * nfswb_kfile_reopen()), or -ENOMEM.
 */
int nfswb_kfile_open(struct nfswb_kfile *f, const char *path);

/**
 * nfswb_kfile_reopen - open @f again if a read error (or the first open)
 * closed it.
 *
 * Return: 0 when open, the error of open(2), or -EBADF when @f was never
 * opened.
 */
int nfswb_kfile_reopen(struct nfswb_kfile *f);

/**
 * nfswb_kfile_read - the file's text now, NUL-terminated, in @buf.
 * @f: the file
 * @buf: destination
 * @len: size of @buf, with room for the NUL
 *
 * A read shorter than asked is the end of the text (seq_file and
 * kernfs fill what is asked for while they have text).
 *
 * Return: the length of the text, -EFBIG when it does not fit in @buf,
 * the error that closed @f, or read(2)'s error, which closes @f (the
 * device went away: -ENODEV from sysfs, -EIO from debugfs).
 */
int nfswb_kfile_read(struct nfswb_kfile *f, char *buf, size_t len);

/**
 * nfswb_kfile_read_head - the start of the file's text, as much as fits
 * in @buf (@len bytes with the NUL): for a key near the start of a long
 * file (/proc/vmstat's nr_dirty), one short read.
 *
 * Return: the length read, @len - 1 when the text was cut; errors as
 * nfswb_kfile_read() but for -EFBIG.
 */
int nfswb_kfile_read_head(struct nfswb_kfile *f, char *buf, size_t len);

/** nfswb_kfile_close - close @f and forget its path; @f is all zeroes. */
void nfswb_kfile_close(struct nfswb_kfile *f);

/**
 * nfswb_read_text - the text of @path in @buf, once: open, read as
 * nfswb_kfile_read(), close.
 *
 * Return: as nfswb_kfile_read(), or open(2)'s error.
 */
int nfswb_read_text(const char *path, char *buf, size_t len);

#endif
