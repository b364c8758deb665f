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
 *	PATH SP ORIGINAL [SP SET] LF
 *
 * where the fields escape '%', white space and non-printable bytes as
 * %XX.  ORIGINAL is the file's content before nfswbd changed it, without
 * its trailing newline; SET, when present, is what the file read after
 * nfswbd's last change.  A path's first record gives its original, its
 * last record its set value; a last record without SET (appended before
 * every change, confirmed after it) means the change may or may not have
 * happened.  At restore a value is written back only if the file still
 * reads SET (or SET is unknown): a setting someone changed after nfswbd
 * is theirs, and is left.  A last line without LF is a torn append whose
 * change never happened, and is ignored.  Lines starting with '#' are
 * comments.
 *
 * Only the settings nfswbd itself changes may appear: PATH must be
 * SYSROOT/sys/class/bdi/BDI/ATTR with BDI a bdi name ("8:0", "btrfs-1")
 * and ATTR one the mechanisms journal (NFSWB_RESTORE_ATTRS), and values
 * are unsigned decimal numbers.  Anything else is refused on write and
 * ignored with an error naming the journal's file and line on read: a
 * journal is a list of files root writes at start-up.
 *
 * One process at a time: nfswb_restore_open() takes an exclusive flock on
 * STATE_DIR/restore.lock, released by the kernel however the process ends.
 * And one process per device: the first change to a bdi's settings takes
 * an flock on its /sys/class/bdi/BDI directory, held until the last of
 * them is put back, so that a second nfswbd (with another state directory)
 * can never journal the first one's values as the originals.
 */
#ifndef NFSWB_RESTORE_H
#define NFSWB_RESTORE_H

#include <stdbool.h>
#include <stddef.h>

struct nfswb_restore;

#define NFSWB_RESTORE_JOURNAL	"restore.journal"
#define NFSWB_RESTORE_LOCK	"restore.lock"

/* The per-bdi attributes journalled, and those written (max_bytes via
 * max_ratio_fine, see nfswb_restore_set_via()); no sysctl is changed. */
#define NFSWB_RESTORE_ATTRS	"strict_limit", "max_ratio_fine", \
				"dirty_background_time", \
				"dirty_background_time_ms", \
				"dirty_background_bytes"
#define NFSWB_RESTORE_WRITE_ATTRS NFSWB_RESTORE_ATTRS, "max_bytes"

/* The largest journal read: far above what any set of devices writes. */
#define NFSWB_RESTORE_JOURNAL_MAX	(16u << 20)

/* Longest value recorded; sysfs and sysctl values are far shorter. */
#define NFSWB_RESTORE_VALUE_MAX	4096

/**
 * nfswb_restore_open - lock the journal in a state directory and replay it.
 * @state_dirfd: the directory, from nfswb_statedir_open() (statedir.h);
 *		 the journal keeps a duplicate of it.
 * @state_dir: its name, for messages.
 * @sysroot: "" on a live system; the root every journalled path is under.
 * @rp: on success, the new journal handle.
 * @err: on failure, a sentence naming the file and the reason.
 * @errlen: size of @err.
 *
 * Every value left in the journal by a previous run is written back
 * (each one logged) and the journal emptied before this returns.  A value
 * whose file is gone (its device was removed) is logged and dropped, so
 * is one whose file no longer reads what nfswbd set.
 *
 * Return: 0, or a negative errno when the journal cannot be used (not
 * a regular file, larger than NFSWB_RESTORE_JOURNAL_MAX, unwritable) or
 * another process holds the lock (-EWOULDBLOCK).
 */
int nfswb_restore_open(int state_dirfd, const char *state_dir,
		       const char *sysroot, struct nfswb_restore **rp,
		       char *err, size_t errlen);

/**
 * nfswb_restore_path_ok - may the journal name @path?
 * @sysroot: as given to nfswb_restore_open().
 * @path: the file.
 * @write: true for a file written (NFSWB_RESTORE_WRITE_ATTRS), false for
 *	   one journalled (NFSWB_RESTORE_ATTRS).
 *
 * Return: true for SYSROOT/sys/class/bdi/BDI/ATTR with a well-formed BDI
 * and ATTR in the list.
 */
bool nfswb_restore_path_ok(const char *sysroot, const char *path,
			   bool write);

/**
 * struct nfswb_restore_reader - what nfswb_restore_parse() calls.
 * @record: one path's record, merged (first original, last set value),
 *	    in the order the paths first appear; @set is NULL when the
 *	    last change was not confirmed.  @line is the path's first line.
 *	    Return 0, or a negative errno to stop with that error.
 * @skip: a line that is not a valid record (@torn: the last line, cut
 *	  short by a crash, which is harmless), with the reason.
 * @arg: passed to both.
 */
struct nfswb_restore_reader {
	int (*record)(void *arg, unsigned int line, const char *path,
		      const char *original, const char *set);
	void (*skip)(void *arg, unsigned int line, const char *why,
		     bool torn);
	void *arg;
};

/**
 * nfswb_restore_parse - read a journal's records from @buf.
 * @buf: journal content (need not be NUL-terminated).
 * @len: its length.
 * @sysroot: the root every path must be under.
 * @rd: callbacks.
 *
 * Pure: no I/O.  Time O(n log n) in the number of records, memory O(@len).
 *
 * Return: 0, or a negative errno (-ENOMEM, or what @rd->record returned).
 */
int nfswb_restore_parse(const char *buf, size_t len, const char *sysroot,
			const struct nfswb_restore_reader *rd);

/**
 * nfswb_restore_set - record @path's original once, then write @value.
 * @r: journal.
 * @path: absolute path of the file.
 * @value: new content, written with one write(2); no newline needed.
 *
 * The file is read back after the write and that value journalled as the
 * one set.
 *
 * Return: 0, or a negative errno: -EPERM for a file nfswbd does not
 * change, one from the journal (nothing was written) or from the write
 * itself (for sysfs, -EINVAL means the kernel refused the value); the
 * reason is logged with the path.
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
 * Return: 0, or a negative errno (-EIO) if writing the value or
 * rewriting the journal failed (logged).  A record whose write failed stays in the journal so that the
 * next start tries again.
 */
int nfswb_restore_put_back(struct nfswb_restore *r, const char *path);

/**
 * nfswb_restore_all - write back every original, newest change first.
 * @r: journal.
 *
 * Return: 0, or -EIO if any value could not be written back, or if writing
 * the journal failed at any time since nfswb_restore_open() (each logged):
 * the exit status must tell the administrator.
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
