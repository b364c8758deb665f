// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tick.c - what nfswbd does each sampling interval: drop the devices that
 * went away, then for each device read the inputs, let the step decide
 * (lib/step.c) and hand the decision to the mechanisms; in a dry run, log
 * what would have been done instead.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "nfswbd.h"
#include "step.h"
#include "units.h"

/* One line: what the device looks like and what a dry run would do. */
static void format_decision(const struct nfswbd_dev *d, char *buf,
			    size_t len)
{
	const struct nfswb_policy_out *o = &d->decision;
	const struct nfswb_estimator *e = &d->est;
	char bw[32], dirty[32], target[32], kick[32], cap[32] = "none";
	char mechs[64];

	nfswb_format_rate(nfswb_estimator_bandwidth(e), bw, sizeof(bw));
	nfswb_format_size(d->dirty_bytes, dirty, sizeof(dirty));
	nfswb_format_size(o->target_bytes, target, sizeof(target));
	nfswb_format_size(o->kick_bytes, kick, sizeof(kick));
	if (o->cap_bytes)
		nfswb_format_size(o->cap_bytes, cap, sizeof(cap));
	snprintf(buf, len,
		 "dry-run: bdi %s (%s) mode %s: bandwidth %s (%s) dirty %s (%s%s) target %s -> kick %s, cap %s%s",
		 d->id.bdi, d->id.blockdev,
		 nfswbd_dev_mechs(d, mechs, sizeof(mechs)), bw,
		 e->p.fixed_bw ? "fixed" : e->learned ? "learned" : "cold",
		 dirty, nfswbd_dirty_source_name(d->dirty_source),
		 o->standby ? ", standing by" : "", target,
		 kick, cap, o->cap_change ? " (change)" : "");
}

/*
 * In a dry run, log a device's decision when it would act or differs
 * from the last one logged, but at most once a second: at 10 samples a
 * second anything more floods syslog.
 */
static void dry_run_log(struct nfswbd_dev *d, uint64_t now_ms)
{
	const struct nfswb_policy_out *o = &d->decision;
	bool acts = o->kick_bytes || o->cap_change;
	char line[512];
	bool changed = !d->have_logged ||
		       o->target_bytes != d->logged.target_bytes ||
		       o->cap_bytes != d->logged.cap_bytes ||
		       !o->kick_bytes != !d->logged.kick_bytes;

	if (!acts && !changed)
		return;
	if (d->have_logged && now_ms - d->last_log_ms < NFSWBD_LOG_PERIOD_MS)
		return;
	format_decision(d, line, sizeof(line));
	xlog(L_NOTICE, "%s", line);
	d->logged = *o;
	d->have_logged = true;
	d->last_log_ms = now_ms;
}

/*
 * Open the files a sample of @d reads, once: from then on a sample is a
 * pread(2) of each (readfile.h).  A file that does not open, or that a
 * read error closed, is opened again at each presence check
 * (sampling_reopen).
 */
static void sampling_open(const char *sysroot, struct nfswbd_dev *d)
{
	if (d->sampling_open)
		return;
	nfswb_kfile_open(&d->stat_file, d->id.stat_path);
	nfswb_dirty_files_open(&d->dirty_files, sysroot, d->id.bdi);
	d->sampling_open = true;
}

static void sampling_reopen(struct nfswbd_dev *d)
{
	if (!d->sampling_open)
		return;
	nfswb_kfile_reopen(&d->stat_file);
	nfswb_dirty_files_reopen(&d->dirty_files);
}

/*
 * nfsd's counts of the bytes it wrote and of the COMMITs it was sent, for
 * the written bound: one read a tick for all the devices sampled in it
 * (the counts are global).  NULL when they cannot be read (nfsd not
 * loaded, a Ganesha server).
 */
static const struct nfswb_nfsd_counts *nfsd_counts(const char *sysroot,
						   struct nfswbd_table *t,
						   uint64_t now_ms)
{
	char path[PATH_MAX];

	if (!t->nfsd_stats.path) {	/* never opened */
		snprintf(path, sizeof(path), "%s/proc/net/rpc/nfsd", sysroot);
		nfswb_kfile_open(&t->nfsd_stats, path);
	}
	if (!t->nfsd_read_ms || t->nfsd_read_ms != now_ms) {
		t->nfsd_counts_ok = nfswb_nfsd_counts(&t->nfsd_stats,
						      &t->nfsd_counts) == 0;
		t->nfsd_read_ms = now_ms;
	}
	return t->nfsd_counts_ok ? &t->nfsd_counts : NULL;
}

/**
 * nfswbd_table_sampling_adopt - across a reload, @next takes over the
 * files @prev holds open for all its devices; @prev is left with none.
 */
void nfswbd_table_sampling_adopt(struct nfswbd_table *next,
				 struct nfswbd_table *prev)
{
	if (!prev->nfsd_stats.path || next->nfsd_stats.path)
		return;
	next->nfsd_stats = prev->nfsd_stats;
	memset(&prev->nfsd_stats, 0, sizeof(prev->nfsd_stats));
}

/** nfswbd_table_sampling_close - close what nfswbd_table_sampling_adopt() moves. */
void nfswbd_table_sampling_close(struct nfswbd_table *t)
{
	nfswb_kfile_close(&t->nfsd_stats);
}

/**
 * nfswbd_dev_sampling_adopt - across a reload, @d (of the new table)
 * takes over the files @prev (the same bdi in the old one) holds open,
 * when they are the same files; @prev is left with none.
 */
void nfswbd_dev_sampling_adopt(struct nfswbd_dev *d, struct nfswbd_dev *prev)
{
	if (!prev->sampling_open || d->sampling_open ||
	    !prev->stat_file.path ||
	    strcmp(prev->stat_file.path, d->id.stat_path))
		return;
	d->stat_file = prev->stat_file;
	d->dirty_files = prev->dirty_files;
	d->sampling_open = true;
	memset(&prev->stat_file, 0, sizeof(prev->stat_file));
	memset(&prev->dirty_files, 0, sizeof(prev->dirty_files));
	prev->sampling_open = false;
}

/** nfswbd_dev_sampling_close - close the files @d samples (at its drop). */
void nfswbd_dev_sampling_close(struct nfswbd_dev *d)
{
	nfswb_kfile_close(&d->stat_file);
	nfswb_dirty_files_close(&d->dirty_files);
	d->sampling_open = false;
}

static const char *local_source_name(enum nfswbd_dirty_source src)
{
	return src == NFSWBD_DIRTY_DEBUGFS ? "the device's BdiDirtied" :
	       "the machine's nr_dirtied";
}

/*
 * mode=auto between a mechanism acting on the whole device and one acting
 * on NFS's data alone (devtable.c's auto_start): once a window, compare
 * what was dirtied on the device with what nfsd wrote (policy.h's local
 * watch), and move to the one the verdict asks for.  A dry run only says
 * which it would use.
 */
static void auto_choose(const struct nfswbd_settings *s,
			struct nfswbd_table *t, struct nfswbd_dev *d,
			uint64_t now_ms)
{
	const struct nfswb_mech *want, *cur = d->mechs[0].mech;
	struct nfswb_local_watch *w = &d->local;
	enum nfswb_local_verdict v, before = w->verdict;
	enum nfswbd_dirty_source src;
	const struct nfswb_nfsd_counts *nfsd;
	uint64_t dirtied;
	char local[32];

	/* The files are read only when a window can close or be looked in. */
	if (!d->auto_whole || !nfswb_local_watch_due(w, now_ms))
		return;
	src = nfswbd_dirty_source_of(nfswb_dirtied(&d->dirty_files, &dirtied));
	if (src == NFSWBD_DIRTY_NONE)
		return;		/* cannot tell: keeps what it has */
	d->local_source = src;
	/* No count of nfsd's (NFS-Ganesha): every dirtied byte is local. */
	nfsd = nfsd_counts(s->sysroot, t, now_ms);
	v = nfswb_local_watch_update(w, dirtied, nfsd ? nfsd->written : 0,
				     nfsd ? nfsd->writes : 0, now_ms);
	/*
	 * A look inside a window that left it open says nothing new: the
	 * backoff below counts closed windows, not looks.
	 */
	if (!w->closed)
		return;
	want = v == NFSWB_LOCAL_ABSENT ? d->auto_whole : d->auto_narrow;
	/*
	 * Say what the verdict is once it changes, whether or not it moves;
	 * a move that failed is tried again only after its backoff.
	 */
	if (v == NFSWB_LOCAL_UNKNOWN || (v == before && want == cur))
		return;
	if (v == before && d->switch_skip) {
		d->switch_skip--;
		return;
	}
	nfswb_format_size(w->local_bytes, local, sizeof(local));
	if (v == NFSWB_LOCAL_PRESENT)
		snprintf(d->mode_why, sizeof(d->mode_why),
			 "%s mode: local writers dirtied %s beyond what nfsd wrote in %.1f s (%s); %s mode would write their data back too; %d s without them moves to it",
			 want->name, local, w->window_ms / 1000.0,
			 local_source_name(src), d->auto_whole->name,
			 NFSWB_LOCAL_QUIET_MS / 1000);
	else
		snprintf(d->mode_why, sizeof(d->mode_why),
			 "%s mode: no local writers dirtied the device (%s against nfsd's writes, every %d s)",
			 want->name, local_source_name(src),
			 NFSWB_LOCAL_WINDOW_MS / 1000);
	xlog(L_NOTICE, "bdi %s (%s): %s", d->id.bdi, d->id.blockdev,
	     d->mode_why);
	if (want == cur)
		return;
	if (s->dry_run) {
		d->mechs[0].mech = want;
		d->effective = want->mode;
		return;
	}
	if (nfswbd_dev_switch_primary(t, d, want, s->sysroot)) {
		d->switch_skip = d->switch_wait = 0;
		return;
	}
	/* Stay with what attached; try again after a growing wait. */
	d->switch_wait = d->switch_wait ? 2 * d->switch_wait : 1;
	if (d->switch_wait > NFSWB_LOCAL_QUIET_MS / NFSWB_LOCAL_WINDOW_MS)
		d->switch_wait = NFSWB_LOCAL_QUIET_MS / NFSWB_LOCAL_WINDOW_MS;
	d->switch_skip = d->switch_wait;
	snprintf(d->mode_why, sizeof(d->mode_why),
		 "%s mode: the %s mechanism failed to attach; next try in %u s",
		 cur->name, want->name,
		 (d->switch_wait + 1) * (NFSWB_LOCAL_WINDOW_MS / 1000));
	xlog(L_WARNING, "bdi %s (%s): %s", d->id.bdi, d->id.blockdev,
	     d->mode_why);
}

/*
 * One interval of one device: read what the step needs, let the step
 * decide (lib/step.c, the same function the simulation runs), hand the
 * decision to the mechanisms.
 */
static void dev_tick(const struct nfswbd_settings *s, struct nfswbd_table *t,
		     struct nfswbd_dev *d, uint64_t now_ms)
{
	struct nfswb_step_in in = { .decide = d->effective != NFSWB_MODE_OFF };
	enum nfswbd_dirty_source bound_source = NFSWBD_DIRTY_NONE;
	const struct nfswb_nfsd_counts *nfsd;
	struct nfswb_step_out out;
	struct nfswb_blkstat st;
	bool seldom;
	int ret;

	/*
	 * A device left alone (mode=off) is only reported: once a second,
	 * as often as status.json is written, is enough for that, and its
	 * samples would otherwise cost what an acting device's do.
	 */
	d->sample_ms = t->interval_ms;
	if (!in.decide && d->sample_ms < NFSWB_STANDBY_MAX_INTERVAL_MS)
		d->sample_ms = NFSWB_STANDBY_MAX_INTERVAL_MS;
	sampling_open(s->sysroot, d);
	if (in.decide)
		auto_choose(s, t, d, now_ms);
	ret = nfswb_blkstat_read_file(&d->stat_file, &st);
	if (!ret) {
		in.stat = &st;
		if (!d->stat_ok)
			xlog(L_DEBUG, "bdi %s: sampling %s", d->id.bdi,
			     d->id.stat_path);
		d->stat_ok = true;
	} else if (d->stat_ok) {
		xlog(L_WARNING, "bdi %s: cannot read %s: %s", d->id.bdi,
		     d->id.stat_path, strerror(-ret));
		d->stat_ok = false;
	}
	/*
	 * The cheap bound is read only when the device may stand by: it
	 * stands by now, or its measured dirty bytes were low enough last
	 * interval to enter standby.
	 */
	if (in.decide && (d->standby || !d->decided ||
			  d->dirty_bytes < d->decision.target_bytes >>
					   NFSWB_STANDBY_ENTER_SHIFT))
		in.have_bound = nfswbd_dirty_bound_read(d, &bound_source,
							&in.dirty_bound_bytes);
	in.standby_in_force = d->standby;
	/*
	 * Files mode counts NFS's dirty bytes alone, so nfsd's count of
	 * what it wrote bounds them between two looks (the written bound);
	 * read every interval, as each look starts the bound over.
	 */
	nfsd = in.decide && nfswbd_dirty_nfs_only(d) ?
	       nfsd_counts(s->sysroot, t, now_ms) : NULL;
	if (nfsd) {
		in.written_bound = &d->written;
		in.have_written = true;
		in.written_bytes = nfsd->written;
		in.commits = nfsd->has_commits ? nfsd->commits : 0;
	}

	in.policy.now_ms = now_ms;
	in.policy.interval_ms = t->interval_ms;
	in.policy.background_time_ms = d->opts.background_time_ms;
	in.policy.background_min = d->opts.background_min;
	in.policy.commit_target_ms = d->opts.commit_target_ms;
	in.policy.memory = d->decision.memory;
	/* A dry run pretends the caps it would have set are in force. */
	if (s->dry_run)
		in.policy.cap_in_force = d->dry_cap;
	nfswb_step_sample(&d->est, &in, &out);
	if (out.bound_written)
		bound_source = NFSWBD_DIRTY_NFSD_WRITTEN;
	if (out.standby && !d->standby)
		xlog(L_DEBUG, "bdi %s: standing by: dirty bytes at most %" PRIu64 " (%s), far below the target",
		     d->id.bdi, out.bound_bytes,
		     nfswbd_dirty_source_name(bound_source));
	else if (!out.standby && d->standby)
		xlog(L_DEBUG, "bdi %s: backlog growing: measuring again",
		     d->id.bdi);
	d->standby = out.standby;
	seldom = nfswb_written_bound_commits_seldom(&d->written);
	for (unsigned int i = 0; i < d->nmechs; i++)
		d->mechs[i].md.may_break_leases = seldom;
	if (out.standby) {
		d->standby_intervals++;
		d->dirty_bytes = out.bound_bytes;
		d->dirty_source = bound_source;
	} else {
		d->dirty_bytes = nfswbd_dirty_read(d, &d->dirty_source);
	}
	in.policy.nfs_dirty_bytes = d->dirty_bytes;
	for (unsigned int i = 0; in.decide && i < d->nmechs; i++) {
		struct nfswbd_mech_slot *m = &d->mechs[i];

		if (m->attached && m->mech->observe)
			m->mech->observe(&m->md, &in.policy);
	}

	nfswb_step_decide(&d->est, &in, &out);
	if (out.bound_broke)
		xlog(L_WARNING, "bdi %s: its files hold %" PRIu64 " dirty bytes NFS wrote, more than nfsd's count of its writes allows (io in /proc/net/rpc/nfsd): another server writes them; standing by with the bdi's dirty bytes only",
		     d->id.bdi, d->dirty_bytes);
	d->decided = out.decided;
	if (!out.decided)
		return;
	d->decision = out.decision;
	d->sample_ms = out.sample_ms;
	if (out.commits_often != d->commits_often)
		xlog(L_DEBUG, "bdi %s: %s", d->id.bdi, out.commits_often ?
		     "the clients commit often: doing nothing, sampling once a second" :
		     "the clients' COMMITs no longer keep the backlog small");
	d->commits_often = out.commits_often;
	d->commits_often_samples += out.commits_often;
	if (d->decision.cap_change)
		d->dry_cap = d->decision.cap_bytes;

	if (s->dry_run) {
		if (!s->once)
			dry_run_log(d, now_ms);
		return;
	}
	for (unsigned int i = 0; i < d->nmechs; i++) {
		struct nfswbd_mech_slot *m = &d->mechs[i];

		if (m->attached && m->mech->apply(&m->md, &d->decision) < 0)
			xlog(L_DEBUG, "bdi %s: %s: apply failed", d->id.bdi,
			     m->mech->name);
	}
}

/*
 * Is @d still there?  Its bdi is in sysfs and at least one of its export
 * paths is still on the file system it was resolved to (an umount, or a
 * loop device detached and its number given to another image, changes
 * that).  The paths are stat()ed on the live system, as when resolving.
 */
static bool dev_present(const char *sysroot, const struct nfswbd_dev *d)
{
	char bdi[512];
	struct stat st;

	snprintf(bdi, sizeof(bdi), "%s/sys/class/bdi/%s", sysroot, d->id.bdi);
	if (access(bdi, F_OK) < 0 && errno == ENOENT)
		return false;
	for (size_t i = 0; i < d->nexports; i++)
		if (stat(d->paths[i], &st) == 0 && st.st_dev == d->st_devs[i])
			return true;
	return false;
}

/*
 * Restore the settings of every device that went away and forget it; for
 * the others, open again what a read error closed.
 */
static void drop_gone(const struct nfswbd_settings *s, struct nfswbd_table *t)
{
	nfswb_kfile_reopen(&t->nfsd_stats);	/* nfsd loaded since */
	for (size_t i = t->ndevs; i-- > 0;) {
		if (dev_present(s->sysroot, &t->devs[i])) {
			sampling_reopen(&t->devs[i]);
			continue;
		}
		xlog(L_WARNING, "bdi %s (%s): %s is no longer on this device (unmounted or detached): restoring its settings and dropping it; SIGHUP once it is back",
		     t->devs[i].id.bdi, t->devs[i].id.blockdev,
		     t->devs[i].paths[0]);
		nfswbd_table_drop(t, i);
	}
}

/*
 * When @d is due again after the sample taken at @now_ms: one of its
 * intervals after the time it was due, so that the samples of a device
 * keep the timer's period (loop.c re-arms only when the earliest due time
 * moves), or after @now_ms when it fell behind or was never sampled.
 */
static uint64_t next_due(const struct nfswbd_dev *d, uint64_t now_ms)
{
	uint64_t due = d->due_ms + d->sample_ms;

	return d->due_ms && due > now_ms ? due : now_ms + d->sample_ms;
}

/**
 * nfswbd_tick - one timer expiry: the presence check once a second, and a
 * sample of each device that is due.
 *
 * Each device is sampled on its own schedule: every interval, or less
 * often while it stands by (nfswb_policy_standby_interval_ms), whatever
 * the others do; @t->sampling_ms becomes the shortest of those intervals.
 *
 * Return: when the next device is due (CLOCK_MONOTONIC ms), for the timer.
 */
uint64_t nfswbd_tick(const struct nfswbd_settings *s, struct nfswbd_table *t,
		     uint64_t now_ms)
{
	uint64_t next = UINT64_MAX, shortest = UINT64_MAX;

	if (!t->present_ms || now_ms - t->present_ms >= NFSWBD_PRESENT_PERIOD_MS) {
		drop_gone(s, t);
		t->present_ms = now_ms;
	}
	for (size_t i = 0; i < t->ndevs; i++) {
		struct nfswbd_dev *d = &t->devs[i];

		if (!d->due_ms || d->due_ms <= now_ms) {
			dev_tick(s, t, d, now_ms);
			d->samples++;
			d->due_ms = next_due(d, now_ms);
		}
		if (d->due_ms < next)
			next = d->due_ms;
		if (d->sample_ms < shortest)
			shortest = d->sample_ms;
	}
	t->sampling_ms = shortest == UINT64_MAX ? t->interval_ms : shortest;
	return next == UINT64_MAX ? now_ms + t->interval_ms : next;
}

/** nfswbd_print_decisions - --once --dry-run: each decision, one line. */
void nfswbd_print_decisions(const struct nfswbd_table *t, FILE *out)
{
	char line[512];

	for (size_t i = 0; i < t->ndevs; i++) {
		if (!t->devs[i].decided)
			continue;
		format_decision(&t->devs[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
}

/**
 * nfswbd_prime - take the first sample, so that the first interval has a
 * delta.
 */
void nfswbd_prime(const struct nfswbd_settings *s, struct nfswbd_table *t,
		  uint64_t now_ms)
{
	for (size_t i = 0; i < t->ndevs; i++) {
		struct nfswbd_dev *d = &t->devs[i];
		struct nfswb_step_in in = { .policy.now_ms = now_ms };
		struct nfswb_step_out out;
		struct nfswb_blkstat st;
		int ret;

		sampling_open(s->sysroot, d);
		ret = nfswb_blkstat_read_file(&d->stat_file, &st);

		if (!ret) {
			in.stat = &st;
			d->stat_ok = true;
		} else {
			xlog(L_WARNING, "bdi %s: cannot read %s: %s",
			     d->id.bdi, d->id.stat_path, strerror(-ret));
		}
		nfswb_step(&d->est, &in, &out);
	}
}

