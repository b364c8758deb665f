/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * restore.h - put every kernel setting nfswbd changed back as it was.
 *
 * Before the first change to a sysfs or sysctl file the original value
 * is appended to STATE_DIR/restore.journal and fsync()ed; only then is
 * the new value written.  The originals are written back on a clean exit
 * (nfswb_restore_all), when a reload drops what needed them
 * (nfswb_restore_put_back), and, after a SIGKILL or a crash, by the next
 * nfswb_restore_open() before it returns.  A crash at any point leaves a
 * journal that restores at most values that were never changed, which is
 * harmless: writing a file's original value back is idempotent.
 *
 * Journal format, one record per line, oldest first:
 *
 *	PATH SP VALUE LF
 *
 * where PATH and VALUE escape '%', white space and non-printable bytes
 * as %XX.  VALUE is the file's content without its trailing newline.  A
 * last line without LF is a torn append whose change never happened, and
 * is ignored.  Lines starting with '#' are comments.
 *
 * One process at a time: nfswb_restore_open() takes an exclusive flock on
 * STATE_DIR/restore.lock, released by the kernel however the process ends.
 */
#ifndef NFSWB_RESTORE_H
#define NFSWB_RESTORE_H

#include <stddef.h>

struct nfswb_restore;

#define NFSWB_RESTORE_JOURNAL	"restore.journal"
#define NFSWB_RESTORE_LOCK	"restore.lock"

/* Longest value recorded; sysfs and sysctl values are far shorter. */
#define NFSWB_RESTORE_VALUE_MAX	4096

/**
 * nfswb_restore_open - lock the journal in @state_dir and replay it.
 * @state_dir: directory for the journal; created (mode 0755) if missing.
 * @rp: on success, the new journal handle.
 * @err: on failure, a sentence naming the file and the reason.
 * @errlen: size of @err.
 *
 * Every value left in the journal by a previous run is written back
 * (each one logged) and the journal emptied before this returns.  A value
 * whose file is gone (its device was removed) is logged and dropped.
 *
 * Return: 0, or -1 when the state directory or journal cannot be used or
 * another process holds the lock.
 */
int nfswb_restore_open(const char *state_dir, struct nfswb_restore **rp,
		       char *err, size_t errlen);

/**
 * nfswb_restore_record - remember @path's current value without changing it.
 * @r: journal.
 * @path: absolute path of the file.
 *
 * For settings changed through another file: max_bytes is stored by the
 * kernel as a ratio, so the limit mechanism records max_ratio_fine (exact)
 * before it writes max_bytes.  Recording a path twice keeps the first
 * (true original) value.
 *
 * Return: 0, or -1 with errno set (the reason is logged with the path).
 */
int nfswb_restore_record(struct nfswb_restore *r, const char *path);

/**
 * nfswb_restore_set - record @path's original once, then write @value.
 * @r: journal.
 * @path: absolute path of the file.
 * @value: new content, written with one write(2); no newline needed.
 *
 * Return: 0, or -1 with errno set: from the journal (nothing was written)
 * or from the write itself (for sysfs, EINVAL means the kernel refused the
 * value); the reason is logged with the path.
 */
int nfswb_restore_set(struct nfswb_restore *r, const char *path,
		      const char *value);

/**
 * nfswb_restore_set_via - record @record_path, then write @value to @path.
 * @r: journal.
 * @record_path: the file whose original restores the setting exactly.
 * @path: the file to write.
 * @value: new content for @path.
 *
 * For a setting with two views: max_bytes is stored as a ratio of the
 * dirty threshold of the moment, so writing its old byte value back would
 * not restore it; max_ratio_fine (the same setting, exact) is recorded
 * instead.  @path itself is not journalled.
 *
 * Return: as nfswb_restore_set().
 */
int nfswb_restore_set_via(struct nfswb_restore *r, const char *record_path,
			  const char *path, const char *value);

/**
 * nfswb_restore_original - the recorded original value of @path.
 * @r: journal.
 * @path: absolute path.
 *
 * Return: the value as read before the first change, or NULL if @path
 * has not been recorded.  Valid until the next call that changes @r.
 */
const char *nfswb_restore_original(const struct nfswb_restore *r,
				   const char *path);

/**
 * nfswb_restore_put_back - write @path's original back and forget it.
 * @r: journal.
 * @path: absolute path; not recorded is not an error.
 *
 * Return: 0, or -1 if writing the value or rewriting the journal failed
 * (logged).  A record whose write failed stays in the journal so that the
 * next start tries again.
 */
int nfswb_restore_put_back(struct nfswb_restore *r, const char *path);

/**
 * nfswb_restore_all - write back every original, newest change first.
 * @r: journal.
 *
 * Return: 0, or -1 if any value could not be written back (each logged).
 */
int nfswb_restore_all(struct nfswb_restore *r);

/**
 * nfswb_restore_count - number of paths currently recorded.
 * @r: journal.
 */
size_t nfswb_restore_count(const struct nfswb_restore *r);

/**
 * nfswb_restore_close - release the lock and free @r.
 * @r: journal, or NULL.
 *
 * Values not yet put back stay in the journal for the next start; call
 * nfswb_restore_all() first on a clean exit.
 */
void nfswb_restore_close(struct nfswb_restore *r);

#endif
