// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_files.c - the files mechanism, for kernels without the per-bdi
 * dirty_background_time knob.
 *
 * Learn:  a fanotify FAN_MODIFY mark on the filesystem of each export
 *         (FAN_MARK_FILESYSTEM, else FAN_MARK_MOUNT) reports every write;
 *         only events from processes named in writers= (the thread's
 *         comm, or its thread group leader's: knfsd threads are "nfsd",
 *         Ganesha's threads belong to "ganesha.nfsd") track a file.  The
 *         event's fd is kept, and an ignore mark on the file silences its
 *         further events while it is tracked, so a file written a
 *         thousand times costs one event, not a thousand.
 * Measure: cachestat(2) of each tracked file gives its dirty and
 *         writeback pages, refreshed round-robin within a budget per
 *         interval.  cachestat walks every cached page of its range, so
 *         a refresh counts only from where the file's completed kicks
 *         left it clean (an appended file's dirty data is its tail),
 *         plus one stretch below that point, the next at the next
 *         refresh, so that data rewritten there is found within
 *         NFSWB_FILES_NLINK_EVERY refreshes and no look walks all of a
 *         large file's cache at once.
 *         Between two looks a file's dirty bytes are taken to grow at
 *         the rate seen between its last two, so the device's sum does
 *         not lag by the refresh period when thousands of files are
 *         tracked.  A file newly tracked, or written again after it
 *         was seen clean, is looked at first, at the next interval,
 *         whatever the round-robin's position: a 4 MiB file that a
 *         client writes and COMMITs within half a second would
 *         otherwise wait behind the files written before it.  A file
 *         seen clean loses its ignore mark and is not refreshed until
 *         its next write's event, so that files already COMMITted do
 *         not take the refreshes; one that stays so for IDLE_DROP_MS is
 *         dropped, and its next NFS write tracks it afresh.
 *         Files are held by file handle, not by an open fd, and opened
 *         only for one look or while a kick on them is pending: an open
 *         file keeps its filesystem busy, and the `umount` of an HA
 *         failover right after nfsd stops must not fail.
 *         An open may start to break a lease only where that pays: a
 *         file an NFSv4 client holds a write delegation on is leased
 *         by nfsd, and an open of it, even O_NONBLOCK, makes nfsd
 *         recall the delegation.  So events carry the file's handle
 *         (FAN_REPORT_FID), not an fd the kernel opened; the file is
 *         stat'ed and marked through an O_PATH open, which breaks no
 *         lease; and a look opens no file that /proc/locks (read at
 *         most once a second, and again for a file written since)
 *         shows leased (every lease but an active read lease) unless
 *         the caller says the clients are known not to commit often
 *         (may_break_leases: then the open, O_NONBLOCK, starts the
 *         recall and a later look finds the file free).  A
 *         leased file is looked at again later.  A kernel without
 *         FAN_REPORT_FID (before 5.1) gets the events' fds, O_NONBLOCK
 *         so that the daemon never waits for the lease's holder.
 * Kick:   when the policy asks for kick_bytes, start writeback of the
 *         files dirtied longest ago first, SYNC_FILE_RANGE_WRITE only,
 *         through mech_files_kick.h (io_uring, or a worker thread).
 *
 * Bounded: at most max_files files; when full, the oldest is kicked whole
 * and dropped.  Deleted files (st_nlink == 0) are dropped at the next
 * link count check, every NFSWB_FILES_NLINK_EVERY refreshes of the file
 * (an fstat per refresh would double the syscalls the refresh costs).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fdlimit.h"
#include "mech_files_cachestat.h"
#include "mech_files_track.h"
#include "mech_files_kick.h"
#include "log.h"
#include "mech.h"
#include "owners.h"
#include "procfs.h"

/*
 * Each dirty_bytes() call refreshes 1/REFRESH_CALLS of the tracked files
 * with cachestat, at least REFRESH_MIN and at most REFRESH_MAX: every
 * file is looked at every REFRESH_CALLS intervals (2 s at the default
 * 100 ms) while up to REFRESH_CALLS x REFRESH_MAX files are tracked, and
 * less often beyond; the growth estimate covers the time in between.  A
 * syscall costs 1-5 us (more in VMs with PTI), so this, not the event
 * path, is what the mechanism's CPU use scales with: REFRESH_MAX keeps it
 * under ~650 cachestat calls a second however many files are tracked.
 */
#define REFRESH_CALLS		20
#define REFRESH_MIN		8
#define REFRESH_MAX		64
/*
 * cachestat walks every cached page of its range, about 12 ns a page on
 * a 2020s x86 core and many times that under emulation: a file rewritten
 * at random has all its cache in range at every look (256 MiB: about
 * 470 us of CPU per look, bench_files_rewrite), where an appended one
 * has only its tail.  Each
 * dirty_bytes() call may walk about REFRESH_PAGES pages; a file with
 * more cache is looked at less often, its growth estimate covering the
 * intervals in between (a 256 MiB file: every 8th interval, within the
 * REFRESH_CALLS the round-robin allows itself anyway).
 */
#define REFRESH_PAGES		8192
/* The most one stretch below a file's clean point walks (scrub()). */
#define SCRUB_PAGES		512
/*
 * Files seen clean are passed over by the round-robin at no cost but the
 * step; at most this many a call, so that a million clean files tracked
 * do not make every interval walk them all.
 */
#define REFRESH_SKIP_MAX	4096
/* A file clean this long is dropped: nfsd has most likely closed it. */
#define IDLE_DROP_MS		30000
/* How long a process's writer verdict is trusted (pids are reused). */
#define PID_CACHE_MS		5000
#define PID_CACHE_SIZE		256
#define EVENT_BUF		(64 * 1024)
/*
 * /proc/locks is read at most this often, and again for a file tracked or
 * written again after clean since the last read (its delegation, if any,
 * came with the OPEN before that write).  Read at every call, its cost
 * made test_mech_files_live's random rewrite kick 15-32 MiB of 32
 * instead of 28 every run.  A delegation a client gets on a file still
 * tracked (closed and opened again while dirty) can be recalled within
 * this age.
 */
#define LEASED_MAX_AGE_MS	1000
/*
 * A file written by a process not in writers= is silenced for QUIET_MS
 * with an ignore mark, so a busy local writer costs one event a second,
 * not one per write.  An NFS write to that file in the meantime is
 * learned when the mark expires.
 */
#define QUIET_MS		1000
#define QUIET_MAX		256

enum {
	FILES_EVENTS_SEEN, FILES_EVENTS_IGNORED, FILES_FILES_TRACKED,
	FILES_FILES_EVICTED, FILES_KICKS, FILES_BYTES_KICKED,
	FILES_INFLIGHT_BYTES, FILES_PAGES_WALKED, FILES_LEASE_WAITS,
	FILES_ERRORS,
};

static const char *const files_counters[] = {
	[FILES_EVENTS_SEEN] = "events_seen",	/* fanotify events read */
	[FILES_EVENTS_IGNORED] = "events_ignored", /* not from writers= */
	[FILES_FILES_TRACKED] = "files_tracked",	/* now in the LRU */
	[FILES_FILES_EVICTED] = "files_evicted",
	[FILES_KICKS] = "kicks",		/* writeback starts issued */
	[FILES_BYTES_KICKED] = "bytes_kicked",
	[FILES_INFLIGHT_BYTES] = "inflight_bytes", /* kicked, not written */
	/* cached pages cachestat walked: what measuring costs */
	[FILES_PAGES_WALKED] = "pages_walked",
	/* opens that a lease (NFSv4 delegation) break would have held up */
	[FILES_LEASE_WAITS] = "lease_waits",
	[FILES_ERRORS] = "errors",
	NULL,
};

struct pid_verdict {
	pid_t pid;
	bool writer;
	uint64_t until_ms;
};

struct files_priv {
	int fan;
	int root;			/* export's directory during a call */
	struct nfswb_tracked *opened;	/* files this call opened */
	struct nfswb_filetrack t;
	struct nfswb_kicker *kicker;
	struct nfswb_tracked *zombies;	/* dropped, kicks still pending */
	struct nfswb_tracked *cursor;	/* refresh round-robin position */
	/* Tracked or written again since the last look: refreshed first. */
	struct nfswb_tracked *soon[REFRESH_MAX];
	unsigned int nsoon;
	unsigned int calls;		/* dirty_bytes() calls, wrapping */
	struct pid_verdict pids[PID_CACHE_SIZE];
	uint64_t page;
	uint64_t dirty_sum;		/* bytes, over tracked files */
	uint64_t writeback_sum;		/* including bytes just kicked */
	uint64_t kicked_recent;		/* since the last dirty_bytes() */
	uint64_t vm_writeback;		/* nr_writeback then, bytes or MAX */
	int64_t walk_credit;		/* pages cachestat may walk now */
	struct nfswb_kfile vmstat;	/* /proc/vmstat, held open */
	bool have_cachestat;
	bool fid_mode;			/* events carry handles (FAN_REPORT_FID) */
	bool overflow_logged;
	/* Leased files of device leased_dev, as read at leased_ms. */
	struct nfswb_leased leased;
	dev_t leased_dev;
	uint64_t leased_ms;		/* when read; 0: never */
	uint64_t written_seq;		/* files tracked or rearmed so far */
	uint64_t leased_seq;		/* written_seq when the list was read */
	bool stood_by;			/* the last apply() stood by */
	char *buf;
	struct {
		int fd;
		uint64_t until_ms;
	} quiet[QUIET_MAX];
	unsigned int nquiet;
	struct nfswb_owners kicked;	/* per owner, since attach */
};

/* @off rounded down to a page. */
static uint64_t page_floor(const struct files_priv *p, uint64_t off)
{
	return off / p->page * p->page;
}

/* ---- whose write is it? ---- */

static bool comm_is_writer(const struct nfswb_export_opts *o,
			   const char *comm)
{
	unsigned int i;

	for (i = 0; i < o->nwriters; i++)
		if (!strncmp(comm, o->writers[i], NFSWB_WRITER_LEN - 1))
			return true;
	return false;
}

static bool is_writer(struct nfswb_mech_dev *d, struct files_priv *p,
		      pid_t pid, uint64_t now)
{
	struct pid_verdict *v = &p->pids[(unsigned int)pid % PID_CACHE_SIZE];
	char comm[32];
	bool w = false;
	pid_t tgid;

	if (v->pid == pid && v->until_ms > now)
		return v->writer;
	if (nfswb_proc_comm(pid, comm, sizeof(comm)) == 0)
		w = comm_is_writer(&d->opts, comm);
	if (!w) {
		tgid = nfswb_proc_tgid(pid);
		if (tgid > 0 && tgid != pid &&
		    nfswb_proc_comm(tgid, comm, sizeof(comm)) == 0)
			w = comm_is_writer(&d->opts, comm);
	}
	v->pid = pid;
	v->writer = w;
	v->until_ms = now + PID_CACHE_MS;
	return w;
}

/* ---- tracked files ---- */

/*
 * fanotify_mark() on the file of @fd.  An O_PATH fd is refused there
 * (EBADF): its /proc/self/fd link names the same file, and resolving
 * it opens nothing, so no lease is broken.
 */
static int mark_fd(struct files_priv *p, unsigned int flags, int fd)
{
	char link[32];

	if (fanotify_mark(p->fan, flags, FAN_MODIFY, fd, NULL) == 0)
		return 0;
	if (errno != EBADF)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return fanotify_mark(p->fan, flags, FAN_MODIFY, AT_FDCWD, link);
}

static void set_ignore(struct files_priv *p, struct nfswb_tracked *e, bool on)
{
	unsigned int flags = (on ? FAN_MARK_ADD : FAN_MARK_REMOVE) |
			     FAN_MARK_IGNORED_MASK;

	if (on)
		flags |= FAN_MARK_IGNORED_SURV_MODIFY;
	/* Failure only costs events, never correctness. */
	(void)mark_fd(p, flags, e->fd);
}

static void unlist_open(struct files_priv *p, struct nfswb_tracked *e)
{
	struct nfswb_tracked **pp;

	if (!e->on_open_list)
		return;
	for (pp = &p->opened; *pp; pp = &(*pp)->open_next) {
		if (*pp == e) {
			*pp = e->open_next;
			break;
		}
	}
	e->on_open_list = false;
}

/* Look at @e first at the next call; a full queue leaves it to the round. */
static void refresh_soon(struct files_priv *p, struct nfswb_tracked *e)
{
	if (e->soon || p->nsoon == REFRESH_MAX)
		return;
	e->soon = true;
	p->soon[p->nsoon++] = e;
}

static void unlist_soon(struct files_priv *p, struct nfswb_tracked *e)
{
	unsigned int i;

	if (!e->soon)
		return;
	for (i = 0; i < p->nsoon; i++) {
		if (p->soon[i] == e) {
			p->soon[i] = p->soon[--p->nsoon];
			break;
		}
	}
	e->soon = false;
}

static void free_entry(struct files_priv *p, struct nfswb_tracked *e)
{
	unlist_open(p, e);
	unlist_soon(p, e);
	if (e->fd >= 0)
		close(e->fd);
	free(e->fh);
	free(e);
}

/* ---- files held by handle, open only while in use ---- */

static void note_open(struct files_priv *p, struct nfswb_tracked *e)
{
	if (e->on_open_list)
		return;
	e->on_open_list = true;
	e->open_next = p->opened;
	p->opened = e;
}

/* The export's directory, open during a call: the handles' mount. */
static int root_fd(struct nfswb_mech_dev *d, struct files_priv *p)
{
	if (p->root < 0)
		p->root = open(d->paths[0], O_RDONLY | O_DIRECTORY |
			       O_CLOEXEC);
	return p->root;
}

/*
 * Does a lease cover @e, as /proc/locks said at most LEASED_MAX_AGE_MS
 * ago for its device, and since @e was last tracked or rearmed?  An
 * unreadable list covers every file.
 */
static bool file_leased(struct nfswb_mech_dev *d, struct files_priv *p,
			const struct nfswb_tracked *e)
{
	uint64_t now = nfswb_now_ms();
	char path[PATH_MAX];

	if (!p->leased_ms || now - p->leased_ms >= LEASED_MAX_AGE_MS ||
	    p->leased_dev != e->dev || e->written_seq > p->leased_seq) {
		snprintf(path, sizeof(path), "%s/proc/locks", d->sysroot);
		if (nfswb_leased_read(&p->leased, path, e->dev) < 0)
			d->count[FILES_ERRORS]++;
		p->leased_dev = e->dev;
		p->leased_ms = now ? now : 1;
		p->leased_seq = p->written_seq;
	}
	return nfswb_leased_has(&p->leased, e->ino);
}

/*
 * Open @e by its handle for this call, through an fd of the export's
 * directory (any fd on the filesystem but an O_PATH one will do; it too
 * is closed at the end of the call).  The inode is checked: after an unmount the export path
 * is another filesystem's directory, where the handle means nothing.
 * O_NONBLOCK: a lease (an NFSv4 write delegation) being broken makes the
 * open fail with EWOULDBLOCK instead of waiting for its holder.
 * Returns false when the file is gone or cannot be opened now; errno is
 * EWOULDBLOCK for a lease.
 */
static bool file_open(struct nfswb_mech_dev *d, struct files_priv *p,
		      struct nfswb_tracked *e)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_LARGEFILE | O_NONBLOCK;
	struct stat st;
	int fd;

	if (e->fd >= 0)
		return true;
	errno = ENOENT;
	if (!e->fh)
		return false;
	if (!d->may_break_leases && file_leased(d, p, e)) {
		d->count[FILES_LEASE_WAITS]++;
		errno = EWOULDBLOCK;
		return false;
	}
	if (root_fd(d, p) < 0)
		return false;
	fd = open_by_handle_at(p->root, e->fh, flags | O_NOATIME);
	if (fd < 0 && errno == EPERM)	/* O_NOATIME: not the owner */
		fd = open_by_handle_at(p->root, e->fh, flags);
	if (fd < 0) {
		if (errno == EWOULDBLOCK)
			d->count[FILES_LEASE_WAITS]++;
		return false;
	}
	if (fstat(fd, &st) < 0 || st.st_dev != e->dev || st.st_ino != e->ino) {
		close(fd);
		errno = ESTALE;
		return false;
	}
	/* Grown since it was tracked: appended to (not only rewritten). */
	if ((uint64_t)st.st_size > e->size_opened)
		e->appended = true;
	e->size_opened = (uint64_t)st.st_size;
	e->fd = fd;
	note_open(p, e);
	return true;
}

/* A file with a handle and no kick in flight needs no open fd. */
static void file_close_idle(struct nfswb_tracked *e)
{
	if (e->fh && !e->pending && e->fd >= 0) {
		close(e->fd);
		e->fd = -1;
	}
}

/* End of a call: close what it opened, except files being kicked. */
static void files_release(struct files_priv *p)
{
	struct nfswb_tracked *e, *next;

	for (e = p->opened; e; e = next) {
		next = e->open_next;
		e->open_next = NULL;
		e->on_open_list = false;
		file_close_idle(e);
	}
	p->opened = NULL;
	if (p->root >= 0) {
		close(p->root);
		p->root = -1;
	}
}

/* The handle of @fd, or NULL when its filesystem cannot make one. */
static struct file_handle *handle_of(int fd)
{
	struct file_handle *fh, *copy;
	int mount_id;

	fh = malloc(sizeof(*fh) + MAX_HANDLE_SZ);
	if (!fh)
		return NULL;
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", fh, &mount_id, AT_EMPTY_PATH) < 0) {
		free(fh);
		return NULL;
	}
	copy = realloc(fh, sizeof(*fh) + fh->handle_bytes);
	return copy ? copy : fh;
}

/* Stop tracking @e; its fd lives on while kicks on it are pending. */
static void drop(struct nfswb_mech_dev *d, struct files_priv *p,
		 struct nfswb_tracked *e)
{
	if (p->cursor == e)
		p->cursor = e->next;
	nfswb_filetrack_del(&p->t, e);
	p->dirty_sum -= e->dirty_bytes;
	p->writeback_sum -= e->writeback_bytes;
	unlist_soon(p, e);
	if (!e->listening && file_open(d, p, e))
		set_ignore(p, e, false);
	d->count[FILES_FILES_TRACKED] = p->t.count;
	if (e->pending) {
		unlist_open(p, e);
		e->next = p->zombies;
		p->zombies = e;
	} else {
		free_entry(p, e);
	}
}

static void kick_done(void *arg, void *token, int res)
{
	struct nfswb_mech_dev *d = arg;
	struct files_priv *p = d->priv;
	struct nfswb_tracked *e = token, **pp;

	if (res < 0) {
		d->count[FILES_ERRORS]++;
		xlog(L_DEBUG, "files: writeback kick failed: %s",
		     strerror(-res));
	}
	if (res < 0)
		e->kick_failed = true;
	e->pending--;
	if (e->pending)
		return;
	/* All of them started writeback: what lies below is not dirty. */
	if (!e->kick_failed && e->kick_end > e->clean_below)
		e->clean_below = e->kick_end;
	e->kick_failed = false;
	for (pp = &p->zombies; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			free_entry(p, e);
			return;
		}
	}
	/* Unless this call still looks at it, the file is closed again. */
	if (!e->on_open_list)
		file_close_idle(e);
}

static void reap(struct nfswb_mech_dev *d, struct files_priv *p)
{
	nfswb_kicker_reap(p->kicker, kick_done, d);
}

/*
 * Queue writeback of [@off, @off + @len) (@len 0: to EOF), split to what
 * one kick may carry.  Returns 0, or -EAGAIN if the queue is full.
 */
static int kick_range(struct files_priv *p, struct nfswb_tracked *e,
		      uint64_t off, uint64_t len)
{
	uint64_t n;
	int ret;

	e->kick_end = e->clean_below;	/* callers may say better */
	do {
		n = len > NFSWB_KICK_MAX_LEN ? NFSWB_KICK_MAX_LEN : len;
		ret = nfswb_kicker_kick(p->kicker, e->fd, off, n, e);
		if (ret < 0)
			return ret;
		e->pending++;
		off += n;
		len -= n;
	} while (len);
	return 0;
}

enum refresh_result {
	FILE_DIRTY,	/* dirty, under writeback or being kicked */
	FILE_CLEAN,
	FILE_GONE,	/* deleted, or unreadable: drop it */
	FILE_LEASED,	/* its lease is being broken: not now */
};

/*
 * Look at one stretch of @e below its clean point, from where the last
 * stretch ended, and add what it finds to @cs.  Data rewritten in place
 * below the clean point makes no event while the file is silenced: the
 * stretches find it within NFSWB_FILES_SCRUB_PASS refreshes (a file
 * caching more than that many SCRUB_PAGES: within one stretch each).
 * Before, every NFSWB_FILES_NLINK_EVERY-th refresh walked all of it at
 * once: a 256 MiB file is 65536 pages, tens of ms of CPU under
 * emulation in one call, taken from nfsd on the lab's one-CPU server.
 * Return: true if the stretch holds dirty pages; @e's clean point then
 * moves down to the stretch, so that later refreshes count them.
 */
static bool scrub(struct nfswb_mech_dev *d, struct files_priv *p,
		  struct nfswb_tracked *e, struct nfswb_cachestat *cs)
{
	uint64_t len = e->clean_below / NFSWB_FILES_SCRUB_PASS + p->page;
	struct nfswb_cachestat part;
	uint64_t from;

	if (e->scrub_at >= e->clean_below)
		e->scrub_at = 0;
	from = e->scrub_at;
	len = page_floor(p, len);
	if (len > SCRUB_PAGES * p->page)
		len = SCRUB_PAGES * p->page;
	if (len > e->clean_below - from)
		len = e->clean_below - from;
	if (nfswb_cachestat(e->fd, from, len, &part) < 0) {
		d->count[FILES_ERRORS]++;
		return false;
	}
	p->walk_credit -= (int64_t)part.nr_cache;
	d->count[FILES_PAGES_WALKED] += part.nr_cache;
	cs->nr_writeback += part.nr_writeback;
	e->scrub_at = from + len;
	if (part.nr_dirty) {
		cs->nr_dirty += part.nr_dirty;
		e->clean_below = from;
		e->scrub_at = 0;
		return true;
	}
	/* A whole pass found nothing below: the file is what it shows. */
	if (e->scrub_at >= e->clean_below)
		e->unsure = false;
	return false;
}

/*
 * Refresh one file's dirty and writeback counts; with @below, one
 * stretch below its clean point too.
 */
static enum refresh_result refresh(struct nfswb_mech_dev *d,
				   struct files_priv *p,
				   struct nfswb_tracked *e, uint64_t now,
				   bool below)
{
	bool was_clean = !e->dirty_bytes && !e->writeback_bytes;
	bool dirty_below = false;
	struct nfswb_cachestat cs;
	uint64_t dirty, wb = 0;
	double rate = e->rate;
	struct stat st;

	if (!file_open(d, p, e))	/* deleted, or its filesystem gone */
		return errno == EWOULDBLOCK ? FILE_LEASED : FILE_GONE;
	if (p->have_cachestat) {
		/* Now and then: deleted files must not be written back. */
		if (!(e->refreshes++ % NFSWB_FILES_NLINK_EVERY)) {
			if (fstat(e->fd, &st) < 0 || st.st_nlink == 0)
				return FILE_GONE;
			/* Truncated below its clean point: all of it counts. */
			if ((uint64_t)st.st_size < e->clean_below)
				e->clean_below = 0;
		}
		if (nfswb_cachestat(e->fd, e->clean_below, 0, &cs) < 0) {
			d->count[FILES_ERRORS]++;
			return FILE_GONE;
		}
		p->walk_credit -= (int64_t)cs.nr_cache;
		d->count[FILES_PAGES_WALKED] += cs.nr_cache;
		if (e->clean_below && below)
			dirty_below = scrub(d, p, e, &cs);
		else
			e->unsure = false;	/* this look saw all of it */
		/*
		 * An appended file's dirty and writeback pages are its tail,
		 * what was appended since its last COMMIT (or kick).  Later
		 * looks start below that tail, as after a whole kick
		 * (files_apply), and cost what is appended, not all the file
		 * keeps cached.  Pages left dirty further back are found by
		 * the stretches below (scrub), and kicked by a whole-file
		 * kick.
		 */
		if (e->appended && !e->pending && !dirty_below) {
			uint64_t tail = (cs.nr_dirty + cs.nr_writeback) *
					p->page;

			if (e->size_opened > tail) {
				uint64_t from = page_floor(p, e->size_opened -
							      tail);

				if (from > e->clean_below)
					e->clean_below = from;
			}
		}
		dirty = cs.nr_dirty * p->page;
		wb = cs.nr_writeback * p->page;
	} else {
		/*
		 * No cachestat (Linux < 6.5): bytes appended since the last
		 * kick stand for the dirty bytes; overwrites are not seen.
		 */
		if (fstat(e->fd, &st) < 0 || st.st_nlink == 0)
			return FILE_GONE;
		dirty = (uint64_t)st.st_size > e->base_size ?
			(uint64_t)st.st_size - e->base_size : 0;
	}
	/*
	 * Growth since the last look, halved into the running rate: a
	 * writer that stopped (or data the flusher took) fades out in a few
	 * looks instead of being extrapolated on.
	 */
	if (now > e->seen_ms) {
		double seen = dirty > e->dirty_bytes ?
			      (double)(dirty - e->dirty_bytes) : 0;

		rate = (e->rate + seen / (double)(now - e->seen_ms)) / 2;
	}
	p->dirty_sum += dirty - e->dirty_bytes;
	p->writeback_sum += wb - e->writeback_bytes;
	e->dirty_bytes = dirty;
	e->writeback_bytes = wb;
	nfswb_filetrack_set_growth(&p->t, e, rate, now);
	if (dirty && was_clean) {
		/* Dirty again: its data is the newest, so kicked last. */
		e->first_dirty_ms = now;
		nfswb_filetrack_renew(&p->t, e);
	}
	if (dirty || wb || e->pending) {
		e->last_dirty_ms = now;
		return FILE_DIRTY;
	}
	return FILE_CLEAN;
}

/*
 * Refresh @e and act on what it shows.  A clean file lifts its ignore
 * mark, so that its next write is an event, and is not looked at until
 * then; a second look after the lift catches a write in between, which
 * left no event.
 */
static void look(struct nfswb_mech_dev *d, struct files_priv *p,
		 struct nfswb_tracked *e, uint64_t now)
{
	enum refresh_result r = refresh(d, p, e, now, true);

	if (r == FILE_LEASED)
		return;		/* as it was, until a later look */
	/*
	 * Written since it was seen clean, yet clean above its clean point:
	 * the write was below it (in place), or a COMMIT was quicker.  It
	 * stays silenced and looked at until the stretches below its clean
	 * point have all been seen (a whole look now would cost all its
	 * cache at every COMMIT).
	 */
	if (r == FILE_CLEAN && e->rearmed && e->clean_below) {
		e->unsure = true;
		e->scrub_at = 0;	/* a whole pass from now on */
	}
	e->rearmed = false;
	if (r == FILE_CLEAN && !e->unsure) {
		set_ignore(p, e, false);
		/* Above the clean point only: the first look saw below. */
		r = refresh(d, p, e, now, false);
		if (r == FILE_DIRTY) {
			set_ignore(p, e, true);
		} else if (r == FILE_CLEAN) {
			e->listening = true;
			nfswb_filetrack_set_growth(&p->t, e, 0, now);
		}
	}
	if (r == FILE_GONE)
		drop(d, p, e);
}

/* Fold @e's estimated growth into its dirty count, as of @now. */
static void settle(struct files_priv *p, struct nfswb_tracked *e,
		   uint64_t now)
{
	uint64_t g = nfswb_filetrack_growth_of(e, now);

	e->dirty_bytes += g;
	p->dirty_sum += g;
	nfswb_filetrack_set_growth(&p->t, e, e->rate, now);
}

static void account_kick(struct nfswb_mech_dev *d, struct files_priv *p,
			 struct nfswb_tracked *e, uint64_t bytes);

/* ---- fanotify events ---- */

/*
 * Track the file of @fd, which it takes: an event's fd, or an O_PATH
 * open of the event's handle (@opath), kept no longer than this call.
 */
static void track(struct nfswb_mech_dev *d, struct files_priv *p, int fd,
		  bool opath, uint64_t now)
{
	struct nfswb_tracked *e;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink == 0) {
		close(fd);
		return;
	}
	e = nfswb_filetrack_find(&p->t, st.st_dev, st.st_ino);
	if (e) {
		/*
		 * Written again after it was seen clean: silence it again and
		 * look at it next.  Else it raced with the ignore mark.
		 */
		if (e->listening) {
			(void)mark_fd(p, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
					 FAN_MARK_IGNORED_SURV_MODIFY, fd);
			e->listening = false;
			e->rearmed = true;
			e->written_seq = ++p->written_seq;
			refresh_soon(p, e);
		}
		close(fd);
		return;
	}
	if (p->t.count >= d->max_files && p->t.head) {
		/* Full: the oldest goes, with a last kick of all it holds. */
		struct nfswb_tracked *old = p->t.head;

		settle(p, old, now);
		if (file_open(d, p, old) && kick_range(p, old, 0, 0) == 0)
			account_kick(d, p, old, old->dirty_bytes);
		drop(d, p, old);
		d->count[FILES_FILES_EVICTED]++;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		close(fd);
		d->count[FILES_ERRORS]++;
		return;
	}
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->uid = st.st_uid;
	e->fd = fd;
	e->fh = handle_of(fd);
	if (!opath)
		note_open(p, e);	/* closed at the end of this call */
	e->first_dirty_ms = now;
	e->last_dirty_ms = now;
	e->seen_ms = now;
	e->base_size = p->have_cachestat ? 0 : (uint64_t)st.st_size;
	e->size_opened = (uint64_t)st.st_size;
	e->written_seq = ++p->written_seq;
	nfswb_filetrack_add(&p->t, e);
	set_ignore(p, e, true);
	if (opath) {	/* a look opens it by its handle */
		close(fd);
		e->fd = -1;
	}
	refresh_soon(p, e);
	d->count[FILES_FILES_TRACKED] = p->t.count;
}

/* Silence a file a local process writes, for QUIET_MS; takes @fd. */
static void quiet(struct files_priv *p, int fd, uint64_t now)
{
	if (p->nquiet == QUIET_MAX ||
	    mark_fd(p, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
		       FAN_MARK_IGNORED_SURV_MODIFY, fd) < 0) {
		close(fd);
		return;
	}
	p->quiet[p->nquiet].fd = fd;
	p->quiet[p->nquiet].until_ms = now + QUIET_MS;
	p->nquiet++;
}

/* Lift expired silences, unless the file has since been tracked. */
static void unquiet(struct files_priv *p, uint64_t now, bool all)
{
	unsigned int i = 0;
	struct stat st;
	int fd;

	while (i < p->nquiet) {
		if (!all && p->quiet[i].until_ms > now) {
			i++;
			continue;
		}
		fd = p->quiet[i].fd;
		if (!all && (fstat(fd, &st) < 0 ||
			     !nfswb_filetrack_find(&p->t, st.st_dev,
						   st.st_ino)))
			(void)mark_fd(p, FAN_MARK_REMOVE |
					 FAN_MARK_IGNORED_MASK, fd);
		close(fd);
		p->quiet[i] = p->quiet[--p->nquiet];
	}
}

/* Does the fanotify group @fan hold unread events? */
static bool events_queued(int fan)
{
	int bytes = 0;

	return ioctl(fan, FIONREAD, &bytes) == 0 && bytes > 0;
}

/*
 * The file of a FAN_REPORT_FID event @m, opened O_PATH by its handle
 * (an O_PATH open breaks no lease); -1 when the event has no handle or
 * the file is gone.
 */
static int event_file(struct nfswb_mech_dev *d, struct files_priv *p,
		      const unsigned char *raw,
		      const struct fanotify_event_metadata *m)
{
	const unsigned char *end = raw + m->event_len;
	const unsigned char *q = m->metadata_len <= m->event_len ?
				 raw + m->metadata_len : end;
	struct fanotify_event_info_header h;
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} handle;
	size_t at = sizeof(h) + sizeof(__kernel_fsid_t);

	while ((size_t)(end - q) >= sizeof(h)) {
		memcpy(&h, q, sizeof(h));
		if (h.len < sizeof(h) || h.len > (size_t)(end - q))
			break;
		if (h.info_type == FAN_EVENT_INFO_TYPE_FID &&
		    h.len >= at + sizeof(handle.fh)) {
			memcpy(&handle.fh, q + at, sizeof(handle.fh));
			if (handle.fh.handle_bytes > MAX_HANDLE_SZ ||
			    h.len < at + sizeof(handle.fh) +
				    handle.fh.handle_bytes)
				break;
			memcpy(handle.bytes, q + at + sizeof(handle.fh),
			       handle.fh.handle_bytes);
			if (root_fd(d, p) < 0)
				return -1;
			return open_by_handle_at(p->root, &handle.fh,
						 O_PATH | O_CLOEXEC);
		}
		q += h.len;
	}
	d->count[FILES_ERRORS]++;
	return -1;
}

static void files_on_readable(struct nfswb_mech_dev *d)
{
	struct files_priv *p = d->priv;
	struct fanotify_event_metadata md, *m;
	uint64_t now = nfswb_now_ms();
	bool first = true;
	ssize_t len;
	int fd;

	for (;;) {
		/* A bounded batch: without FID every event holds an fd (fdlimit.h). */
		len = read(p->fan, p->buf, NFSWB_FD_EVENT_BATCH * sizeof(*m));
		if (len < 0 && errno == EINTR)
			continue;
		/*
		 * EAGAIN from the first read (poll said there are events), or
		 * with events still queued: an event's fd would have waited
		 * for a lease break (the events' fds are O_NONBLOCK), and the
		 * event is gone.  The file's next write is an event again: it
		 * is tracked once its lease is returned.
		 */
		if (len < 0 && errno == EAGAIN &&
		    (first || events_queued(p->fan))) {
			d->count[FILES_LEASE_WAITS]++;
			first = false;
			continue;
		}
		first = false;
		if (len <= 0)
			break;
		/*
		 * Each event copied out: with FID records an event's length
		 * need not keep the next one's metadata 8-byte aligned.
		 */
		for (size_t off = 0; (size_t)len - off >= sizeof(md);
		     off += md.event_len) {
			memcpy(&md, p->buf + off, sizeof(md));
			if (md.event_len < sizeof(md) ||
			    md.event_len > (size_t)len - off)
				break;
			m = &md;
			if (m->vers != FANOTIFY_METADATA_VERSION) {
				d->count[FILES_ERRORS]++;
				continue;
			}
			d->count[FILES_EVENTS_SEEN]++;
			if (m->mask & FAN_Q_OVERFLOW) {
				if (!p->overflow_logged)
					xlog(L_WARNING,
					     "bdi %s: fanotify queue overflowed; some NFS-written files are not tracked until written again",
					     d->id->bdi);
				p->overflow_logged = true;
				d->count[FILES_ERRORS]++;
				continue;
			}
			if (p->fid_mode)
				fd = event_file(d, p,
						(const unsigned char *)p->buf +
						off, m);
			else
				fd = m->fd;
			if (fd < 0)
				continue;
			if (!is_writer(d, p, m->pid, now)) {
				d->count[FILES_EVENTS_IGNORED]++;
				quiet(p, fd, now);
				continue;
			}
			track(d, p, fd, p->fid_mode, now);
		}
	}
	/* Kicks of evicted files. */
	if (nfswb_kicker_outstanding(p->kicker) &&
	    nfswb_kicker_flush(p->kicker) < 0)
		d->count[FILES_ERRORS]++;
	files_release(p);
}

static int files_poll_fd(struct nfswb_mech_dev *d)
{
	struct files_priv *p = d->priv;

	return p ? p->fan : -1;
}

/* ---- the mech.h methods ---- */

static int files_probe(const char *sysroot, char *why, size_t len)
{
	int fd;

	(void)sysroot;
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
			   O_RDONLY);
	if (fd < 0) {
		int err = errno;

		snprintf(why, len,
			 "fanotify unavailable: %s (needs CONFIG_FANOTIFY and CAP_SYS_ADMIN)",
			 strerror(err));
		return -err;
	}
	close(fd);
	return 0;
}

static int mark_path(struct nfswb_mech_dev *d, struct files_priv *p,
		     const char *path, char *why, size_t len)
{
	if (fanotify_mark(p->fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			  FAN_MODIFY, AT_FDCWD, path) == 0)
		return 0;
	xlog(L_NOTICE,
	     "bdi %s: no filesystem-wide fanotify mark on %s (%m); watching its mount only",
	     d->id->bdi, path);
	if (fanotify_mark(p->fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY,
			  AT_FDCWD, path) == 0)
		return 0;
	int err = errno;

	snprintf(why, len, "cannot watch %s with fanotify: %s", path,
		 strerror(err));
	return -err;
}

static bool probe_cachestat(const char *path)
{
	struct nfswb_cachestat cs;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return true;	/* assume so; errors show at refresh */
	ok = nfswb_cachestat(fd, 0, 0, &cs) != -ENOSYS;
	close(fd);
	return ok;
}

static int files_attach(struct nfswb_mech_dev *d, char *why, size_t len)
{
	char note[256], vmstat[PATH_MAX];
	struct files_priv *p;
	size_t i;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	p->vm_writeback = UINT64_MAX;	/* not read yet */
	d->priv = p;
	p->fan = -1;
	p->root = -1;
	p->page = (uint64_t)sysconf(_SC_PAGESIZE);
	snprintf(vmstat, sizeof(vmstat), "%s/proc/vmstat", d->sysroot);
	nfswb_kfile_open(&p->vmstat, vmstat);	/* inflight() does without */
	p->buf = malloc(EVENT_BUF);
	if (!p->buf || nfswb_filetrack_init(&p->t, d->max_files) < 0) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	if (!d->npaths) {
		snprintf(why, len, "no exported path to watch");
		return -EINVAL;
	}
	if (!d->opts.nwriters) {
		snprintf(why, len, "writers= names no process");
		return -EINVAL;
	}
	/*
	 * FAN_REPORT_TID: the writing thread, so a thread named "nfsd" in a
	 * process named otherwise still counts; the leader is checked too.
	 */
	p->fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
			       FAN_REPORT_TID | FAN_REPORT_FID, O_RDONLY);
	p->fid_mode = p->fan >= 0;
	if (p->fan < 0 && errno == EINVAL)	/* Linux < 5.1 */
		p->fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC |
				       FAN_NONBLOCK | FAN_REPORT_TID,
				       O_RDONLY | O_LARGEFILE | O_CLOEXEC |
				       O_NONBLOCK);
	if (p->fan < 0) {
		ret = -errno;
		snprintf(why, len, "fanotify_init: %s (needs CAP_SYS_ADMIN)",
			 strerror(-ret));
		return ret;
	}
	for (i = 0; i < d->npaths; i++) {
		ret = mark_path(d, p, d->paths[i], why, len);
		if (ret < 0)
			return ret;
	}

	p->have_cachestat = probe_cachestat(d->paths[0]);
	if (!p->have_cachestat)
		xlog(L_WARNING,
		     "bdi %s: cachestat(2) is missing (Linux < 6.5): dirty bytes are estimated from file growth since the last kick; overwrites are not seen",
		     d->id->bdi);

	ret = nfswb_kicker_open(&p->kicker, d->use_io_uring, note,
				sizeof(note));
	if (ret < 0) {
		snprintf(why, len, "cannot start a writeback thread: %s",
			 strerror(-ret));
		return ret;
	}
	if (note[0])
		xlog(L_WARNING, "bdi %s: %s; kicking with sync_file_range(2) in a worker thread",
		     d->id->bdi, note);
	else if (!d->use_io_uring)
		xlog(L_INFO, "bdi %s: io_uring disabled by configuration; kicking with sync_file_range(2) in a worker thread",
		     d->id->bdi);
	xlog(L_INFO, "bdi %s: files mechanism watching %zu path(s), up to %u files, kicks via %s",
	     d->id->bdi, d->npaths, d->max_files,
	     nfswb_kicker_method(p->kicker));
	return 0;
}

/* The global nr_writeback in bytes, or UINT64_MAX if unreadable. */
static uint64_t vm_writeback(struct files_priv *p)
{
	uint64_t pages;

	if (nfswb_kfile_reopen(&p->vmstat) < 0 ||
	    nfswb_kfile_keyed_u64(&p->vmstat, "nr_writeback", &pages) < 0)
		return UINT64_MAX;
	return pages * p->page;
}

/*
 * Bytes kicked and not yet written.  Per-file writeback counts are as old
 * as their last refresh (up to REFRESH_CALLS intervals) and overstate it
 * once the device has caught up; the kernel's own nr_writeback (global,
 * so an upper bound for the device) plus what was kicked since the last
 * look corrects that at the cost of one read per interval: dirty_bytes()
 * reads it, apply() right after adds its own kicks to that (a read of
 * /proc/vmstat formats all its ~180 counters: 31 us on the host, many
 * times that in the lab's emulated guests).
 */
static uint64_t inflight(const struct files_priv *p)
{
	uint64_t vm = p->vm_writeback;

	if (vm != UINT64_MAX && vm + p->kicked_recent < p->writeback_sum)
		return vm + p->kicked_recent;
	return p->writeback_sum;
}

static uint64_t files_dirty_bytes(struct nfswb_mech_dev *d)
{
	struct files_priv *p = d->priv;
	struct nfswb_tracked *e, *next;
	uint64_t now = nfswb_now_ms();
	bool wrapped = false;
	size_t n, budget, skips;

	if (!p)
		return 0;
	reap(d, p);
	unquiet(p, now, false);
	if (p->stood_by) {
		/*
		 * Back from standby: nothing was looked at meanwhile, so no
		 * growth may be extrapolated over that time; the refreshes
		 * measure each file afresh.
		 */
		for (e = p->t.head; e; e = e->next)
			nfswb_filetrack_set_growth(&p->t, e, 0, now);
		p->stood_by = false;
	}
	n = p->t.count;
	budget = n / REFRESH_CALLS;
	if (budget < REFRESH_MIN)
		budget = REFRESH_MIN;
	if (budget > REFRESH_MAX)
		budget = REFRESH_MAX;
	/*
	 * Round-robin from where the last call stopped, so that every file
	 * is refreshed even when more are tracked than the budget allows.
	 */
	p->walk_credit += REFRESH_PAGES;
	if (p->walk_credit > REFRESH_PAGES)
		p->walk_credit = REFRESH_PAGES;
	/* New and rewritten files first: what the next COMMITs wait for. */
	p->calls++;
	while (p->nsoon) {
		e = p->soon[--p->nsoon];
		e->soon = false;
		e->looked_call = p->calls;
		look(d, p, e, now);
	}
	skips = REFRESH_SKIP_MAX;
	e = p->cursor ? p->cursor : p->t.head;
	while (e && n-- && budget && skips && p->walk_credit > 0) {
		next = e->next;
		if (!next) {
			/* A full round: drop the rounding of the sums. */
			wrapped = true;
			next = p->t.head;
		}
		if (e->listening || e->looked_call == p->calls) {
			/* Clean until an event says otherwise, or just seen. */
			skips--;
			if (e->listening &&
			    now - e->last_dirty_ms >= IDLE_DROP_MS)
				drop(d, p, e);
		} else {
			budget--;
			look(d, p, e, now);
		}
		e = next == e ? NULL : next;
	}
	p->cursor = e;
	if (wrapped)
		nfswb_filetrack_resum(&p->t);
	p->vm_writeback = vm_writeback(p);
	d->count[FILES_INFLIGHT_BYTES] = inflight(p);
	p->kicked_recent = 0;
	files_release(p);
	return p->dirty_sum + nfswb_filetrack_growth(&p->t, now);
}

/*
 * The first dirty page of @e at or after @from, or UINT64_MAX: halving
 * [from, EOF) with cachestat, about 32 calls for 16 TiB.  cachestat walks
 * only the cached pages of its range, so a sparse file's holes cost
 * little; kicking them instead cost a 1 GiB kick each, and past 256 GiB
 * of holes the queue was full before the dirty data was reached.
 */
static uint64_t first_dirty(struct files_priv *p, struct nfswb_tracked *e,
			    uint64_t from, uint64_t eof)
{
	uint64_t lo = page_floor(p, from);
	uint64_t hi = (eof + p->page - 1) / p->page * p->page;
	struct nfswb_cachestat cs;

	if (lo >= hi || nfswb_cachestat(e->fd, lo, hi - lo, &cs) < 0 ||
	    !cs.nr_dirty)
		return UINT64_MAX;
	while (hi - lo > p->page) {
		uint64_t mid = lo + page_floor(p, (hi - lo) / 2);

		if (nfswb_cachestat(e->fd, lo, mid - lo, &cs) < 0)
			break;
		if (cs.nr_dirty)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* At most this many 1 GiB pieces are looked at per kick of one file. */
#define KICK_SCAN_PIECES	1024

/*
 * Kick about @want of @e's oldest dirty bytes - appended files (the
 * common NFS case) have them lowest - from its first dirty page on, in
 * pieces of at most NFSWB_KICK_MAX_LEN, skipping pieces without dirty
 * pages.  Sets *@bytes to the dirty bytes kicked.  Returns 0, or -EAGAIN
 * when the queue was full before anything was queued.
 */
static int kick_dirty_part(struct files_priv *p, struct nfswb_tracked *e,
			   uint64_t want, uint64_t *bytes)
{
	uint64_t start, end, off, len = want, eof, whole;
	struct nfswb_cachestat cs;
	unsigned int pieces = 0;
	struct stat st;

	*bytes = 0;
	if (!p->have_cachestat) {
		/* Fallback: the dirty bytes are the growth past base_size. */
		int ret = kick_range(p, e, e->base_size, want);

		if (ret < 0)
			return ret;
		*bytes = want;
		return 0;
	}
	if (fstat(e->fd, &st) < 0)
		return 0;
	eof = (uint64_t)st.st_size;
	whole = page_floor(p, eof);
	start = first_dirty(p, e, e->clean_below, eof);
	if (start == UINT64_MAX && e->clean_below) {
		/*
		 * Nothing dirty above the clean point, yet the file counts
		 * dirty bytes: rewritten below it (at random, as a database
		 * or randwrite's fio job writes).  From 0 on, then, or those
		 * rewrites would wait for the full refresh that finds them.
		 */
		start = first_dirty(p, e, 0, e->clean_below);
		if (start != UINT64_MAX)
			e->clean_below = 0;
	}
	if (start == UINT64_MAX)
		return 0;
	/* The range from there that holds about @want dirty bytes. */
	for (end = eof; len && len < eof - start; len *= 2) {
		if (nfswb_cachestat(e->fd, start, len, &cs) < 0)
			break;
		if (cs.nr_dirty * p->page >= want) {
			end = start + len;
			break;
		}
	}
	e->kick_end = e->clean_below;
	for (off = start; off < end && pieces < KICK_SCAN_PIECES; pieces++) {
		uint64_t n = end - off > NFSWB_KICK_MAX_LEN ?
			     NFSWB_KICK_MAX_LEN : end - off;

		if (nfswb_cachestat(e->fd, off, n, &cs) < 0)
			break;
		if (cs.nr_dirty) {
			if (nfswb_kicker_kick(p->kicker, e->fd, off, n, e) < 0)
				break;	/* queue full */
			e->pending++;
			*bytes += cs.nr_dirty * p->page;
		}
		off += n;
	}
	if (!*bytes)
		return off == start ? -EAGAIN : 0;
	/*
	 * Once these kicks are done, refreshes may start at their end (what
	 * lies between clean_below and start was seen clean), but not past
	 * the last whole page: what is appended there later is new data.
	 */
	e->kick_end = off < whole ? off : whole;
	return 0;
}

static void account_kick(struct nfswb_mech_dev *d, struct files_priv *p,
			 struct nfswb_tracked *e, uint64_t bytes)
{
	if (bytes > e->dirty_bytes)
		bytes = e->dirty_bytes;
	d->count[FILES_KICKS]++;
	d->count[FILES_BYTES_KICKED] += bytes;
	nfswb_owners_add(&p->kicked, &(struct nfswb_owner){
		.uid = e->uid, .kicked_bytes = bytes });
	/* Kicked pages go from dirty to writeback; cachestat confirms later. */
	e->dirty_bytes -= bytes;
	e->writeback_bytes += bytes;
	p->dirty_sum -= bytes;
	p->writeback_sum += bytes;
	p->kicked_recent += bytes;
	e->base_size += bytes;
}

static void files_observe(struct nfswb_mech_dev *d,
			  struct nfswb_policy_in *in)
{
	in->inflight_bytes = d->count[FILES_INFLIGHT_BYTES];
}

static int files_apply(struct nfswb_mech_dev *d,
		       const struct nfswb_policy_out *o)
{
	struct files_priv *p = d->priv;
	struct nfswb_tracked *e, *next;
	uint64_t left, bytes, whole, now = nfswb_now_ms();
	int ret = 0;

	if (!p)
		return 0;
	reap(d, p);
	if (o->standby) {
		/*
		 * The backlog is far below the target (policy.h): no file is
		 * measured or kicked, events still track new files.
		 */
		p->stood_by = true;
		return 0;
	}
	left = o->kick_bytes;
	/* Oldest dirty data first. */
	for (e = p->t.head; e && left; e = next) {
		next = e->next;
		if (e->pending)
			continue;
		settle(p, e, now);
		if (!e->dirty_bytes || !file_open(d, p, e))
			continue;	/* a gone file drops out at its refresh */
		/*
		 * All of it when that is at most twice the kick: one
		 * sync_file_range of the whole file walks only its dirty
		 * pages, where cutting out a part walks all its cached
		 * ones with cachestat several times (a randomly rewritten
		 * 256 MiB file: 65536 pages a call), and writing a little
		 * more than asked, once, costs less than that.
		 */
		if (e->dirty_bytes / 2 <= left) {
			/* The file's next dirty data is new. */
			if (kick_range(p, e, 0, 0) < 0)
				break;	/* queue full: the rest next interval */
			/*
			 * A file that grew since it was tracked is appended
			 * to: all below its size at this open was kicked, and
			 * refreshes may start there once the kick is done, so
			 * that it costs its new tail, not all its cache, at
			 * every look.  One that never grew is rewritten in
			 * place, and its clean point stays.  Rewrites below it
			 * are found by the full refresh, and by a kick that
			 * finds nothing above (kick_dirty_part).
			 */
			whole = page_floor(p, e->size_opened);
			if (e->appended && whole > e->kick_end)
				e->kick_end = whole;
			bytes = e->dirty_bytes;
			e->first_dirty_ms = now;
			nfswb_filetrack_renew(&p->t, e);
		} else {
			/* A big file: only its oldest part, and it stays first. */
			if (kick_dirty_part(p, e, left, &bytes) < 0)
				break;
			if (!bytes)
				continue;
		}
		account_kick(d, p, e, bytes);
		left = left > bytes ? left - bytes : 0;
	}
	ret = nfswb_kicker_flush(p->kicker);
	if (ret < 0)
		d->count[FILES_ERRORS]++;
	d->count[FILES_INFLIGHT_BYTES] = inflight(p);
	files_release(p);
	return ret;
}

static void files_detach(struct nfswb_mech_dev *d)
{
	struct files_priv *p = d->priv;
	struct nfswb_tracked *e;

	if (!p)
		return;
	if (p->kicker)
		nfswb_kicker_close(p->kicker, kick_done, d);
	unquiet(p, 0, true);
	files_release(p);
	while (p->t.head) {
		e = p->t.head;
		nfswb_filetrack_del(&p->t, e);
		free_entry(p, e);
	}
	while (p->zombies) {
		e = p->zombies;
		p->zombies = e->next;
		free_entry(p, e);
	}
	nfswb_filetrack_free(&p->t);
	if (p->fan >= 0)
		close(p->fan);	/* removes every mark */
	nfswb_kfile_close(&p->vmstat);
	nfswb_leased_free(&p->leased);
	free(p->buf);
	free(p);
	d->priv = NULL;
	d->count[FILES_FILES_TRACKED] = 0;
	d->count[FILES_INFLIGHT_BYTES] = 0;
}

/*
 * Per owner: the kicked bytes counted as they were kicked, the dirty
 * bytes as measured (and grown since) on the files tracked now.
 */
static void files_owners(const struct nfswb_mech_dev *d,
			 struct nfswb_owners *out)
{
	struct files_priv *p = d->priv;
	uint64_t now = nfswb_now_ms();

	memset(out, 0, sizeof(*out));
	if (!p)
		return;
	*out = p->kicked;
	for (const struct nfswb_tracked *e = p->t.head; e; e = e->next)
		nfswb_owners_add(out, &(struct nfswb_owner){
			.uid = e->uid, .files = 1,
			.dirty_bytes = e->dirty_bytes +
				       nfswb_filetrack_growth_of(e, now) });
	nfswb_owners_top(out, NFSWB_OWNERS_SHOWN);
}

const struct nfswb_mech nfswb_mech_files = {
	.name = "files",
	.role = NFSWB_MECH_PRIMARY,
	.mode = NFSWB_MODE_FILES,
	.counter_names = files_counters,
	.probe = files_probe,
	.attach = files_attach,
	.poll_fd = files_poll_fd,
	.on_readable = files_on_readable,
	.dirty_bytes = files_dirty_bytes,
	.observe = files_observe,
	.apply = files_apply,
	.owners = files_owners,
	.detach = files_detach,
};
