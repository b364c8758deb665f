/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statedir.h - the state directory (pid file, status.json, restore
 * journal) as a root daemon may use it: only a directory it made itself
 * or one as safe (owned by the effective user, writable by nobody else),
 * every file in it opened relative to the directory's fd without
 * following symlinks, temporaries created exclusively, and every read of
 * a state file bounded to a regular file of limited size.
 */
#ifndef NFSWB_STATEDIR_H
#define NFSWB_STATEDIR_H

#include <stddef.h>
#include <sys/types.h>

/**
 * nfswb_statedir_open - create or check @path, return an fd on it.
 * @path: absolute directory name.
 * @err: on failure, a sentence naming the directory and the reason.
 * @errlen: size of @err.
 *
 * A missing directory is created with mode 0700 (missing parents 0755).
 * An existing one is refused if it is a symlink, not owned by the
 * effective user, or writable by its group or others: files planted in
 * it (a journal, symlinks named like the temporaries) would steer root.
 *
 * Return: an O_DIRECTORY fd (close-on-exec), or a negative errno (-EPERM
 * for a directory refused as above).
 */
int nfswb_statedir_open(const char *path, char *err, size_t errlen);

/**
 * nfswb_statedir_openat - open @name in the state directory, no symlinks.
 * @dirfd: from nfswb_statedir_open().
 * @name: a plain file name (no '/').
 * @flags: open(2) flags; O_NOFOLLOW and O_CLOEXEC are added.
 * @mode: for O_CREAT.
 *
 * Only a regular file owned by the effective user is returned; a FIFO or
 * device is refused without blocking (it is opened with O_NONBLOCK, which
 * is cleared again for a regular file).
 *
 * Return: fd, or a negative errno: -ELOOP for a symlink, -EINVAL for
 * anything but a regular file, -EPERM for a file owned by someone else.
 */
int nfswb_statedir_openat(int dirfd, const char *name, int flags,
			  mode_t mode);

/**
 * nfswb_statedir_create_tmp - create @name exclusively for writing.
 * @dirfd: from nfswb_statedir_open().
 * @name: temporary file name.
 * @mode: its mode.
 *
 * A leftover @name (a crash between create and rename) is removed when
 * it is a regular file owned by the effective user - in a directory
 * nobody else can write, only this daemon made it - and refused (EEXIST)
 * otherwise.
 *
 * Return: fd, or a negative errno.
 */
int nfswb_statedir_create_tmp(int dirfd, const char *name, mode_t mode);

/**
 * nfswb_statedir_read - read all of @name, at most @max bytes.
 * @dirfd: from nfswb_statedir_open().
 * @name: file name.
 * @max: the largest size accepted.
 * @buf: on success, malloc()ed content (NUL-terminated), or NULL when
 *	 the file does not exist.
 * @len: its length.
 *
 * Return: 0, or a negative errno (-EFBIG when the file is larger than
 * @max, and as nfswb_statedir_openat()).
 */
int nfswb_statedir_read(int dirfd, const char *name, size_t max, char **buf,
			size_t *len);

#endif
