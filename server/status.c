// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status.c - STATE_DIR/status.json, the daemon's view of every device.
 *
 * Written to a temporary file in the same directory (created exclusively,
 * relative to the state directory's fd: statedir.h) and renamed over the
 * old one, so a reader sees either the previous or the new document,
 * never a partial one.  No fsync: after a crash a stale or missing status
 * file is fine, the daemon rewrites it within a second of starting.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "nfswbd.h"
#include "owners.h"
#include "statedir.h"

/*
 * "counters": every counter name in the registry, summed over the
 * device's attached mechanisms (0 where none has it), so the keys do not
 * depend on the mode; "mechanism_counters": each attached one's own.
 */
static void write_counters(struct nfswb_json *j, const struct nfswbd_dev *d)
{
	nfswb_json_obj_begin(j, "counters");
	for (const struct nfswb_mech *const *m = nfswb_mechs; *m; m++) {
		for (const char *const *n = (*m)->counter_names; n && *n; n++) {
			bool seen = false;

			for (const struct nfswb_mech *const *e = nfswb_mechs;
			     e < m && !seen; e++)
				for (const char *const *k = (*e)->counter_names;
				     k && *k && !seen; k++)
					seen = !strcmp(*k, *n);
			if (seen)
				continue;
			nfswb_json_u64(j, *n, nfswbd_dev_counter(d, *n));
		}
	}
	nfswb_json_obj_end(j);

	nfswb_json_obj_begin(j, "mechanism_counters");
	for (unsigned int i = 0; i < d->nmechs; i++) {
		const struct nfswbd_mech_slot *slot = &d->mechs[i];

		if (!slot->attached)
			continue;
		nfswb_json_obj_begin(j, slot->mech->name);
		for (unsigned int k = 0; slot->mech->counter_names &&
		     slot->mech->counter_names[k]; k++)
			nfswb_json_u64(j, slot->mech->counter_names[k],
				       slot->md.count[k]);
		nfswb_json_obj_end(j);
	}
	nfswb_json_obj_end(j);
}

static void owner_counts(struct nfswb_json *j, const struct nfswb_owner *o)
{
	nfswb_json_u64(j, "files", o->files);
	nfswb_json_u64(j, "dirty_bytes", o->dirty_bytes);
	nfswb_json_u64(j, "kicked_bytes", o->kicked_bytes);
}

/*
 * "owners": the top file owners of the mechanism that counts them (files
 * mode), empty otherwise; "other_owners": the rest together.
 */
static void write_owners(struct nfswb_json *j, const struct nfswbd_dev *d)
{
	struct nfswb_owners t = { .n = 0 };

	for (unsigned int i = 0; i < d->nmechs; i++)
		if (d->mechs[i].attached && d->mechs[i].mech->owners)
			d->mechs[i].mech->owners(&d->mechs[i].md, &t);
	nfswb_json_arr_begin(j, "owners");
	for (size_t i = 0; i < t.n; i++) {
		nfswb_json_obj_begin(j, NULL);
		nfswb_json_u64(j, "owner", t.slot[i].uid);
		owner_counts(j, &t.slot[i]);
		nfswb_json_obj_end(j);
	}
	nfswb_json_arr_end(j);
	nfswb_json_obj_begin(j, "other_owners");
	owner_counts(j, &t.other);
	nfswb_json_obj_end(j);
}

/* mode=auto's choice between the whole device and NFS's data alone. */
static void write_local_watch(struct nfswb_json *j,
			      const struct nfswbd_dev *d)
{
	const struct nfswb_local_watch *w = &d->local;
	static const char *const verdicts[] = {
		[NFSWB_LOCAL_UNKNOWN] = "unknown",
		[NFSWB_LOCAL_ABSENT] = "absent",
		[NFSWB_LOCAL_PRESENT] = "present",
	};

	nfswb_json_obj_begin(j, "local_writers");
	nfswb_json_str(j, "verdict", verdicts[w->verdict]);
	nfswb_json_str(j, "source", nfswbd_dirty_source_name(d->local_source));
	nfswb_json_u64(j, "last_window_bytes", w->local_bytes);
	nfswb_json_str(j, "whole_device_mode", d->auto_whole->name);
	nfswb_json_str(j, "nfs_only_mode", d->auto_narrow->name);
	nfswb_json_obj_end(j);
}

static void write_device(struct nfswb_json *j, const struct nfswbd_dev *d)
{
	const struct nfswb_estimator *e = &d->est;
	uint64_t rate;

	nfswb_json_obj_begin(j, NULL);
	nfswb_json_str(j, "bdi", d->id.bdi);
	nfswb_json_str(j, "blockdev", d->id.blockdev);
	nfswb_json_str(j, "fstype", d->id.fstype);
	nfswb_json_arr_begin(j, "exports");
	for (size_t i = 0; i < d->nexports; i++)
		nfswb_json_str(j, NULL, d->paths[i]);
	nfswb_json_arr_end(j);

	nfswb_json_str(j, "mode", nfswb_mode_name(d->opts.mode));
	nfswb_json_str(j, "effective_mode", nfswb_mode_name(d->effective));
	nfswb_json_bool(j, "with_limit", nfswbd_dev_has(d, &nfswb_mech_limit));
	nfswb_json_str(j, "mode_reason", d->mode_why);
	nfswb_json_arr_begin(j, "mechanisms");
	for (unsigned int i = 0; i < d->nmechs; i++)
		if (d->mechs[i].attached)
			nfswb_json_str(j, NULL, d->mechs[i].mech->name);
	nfswb_json_arr_end(j);
	if (d->auto_whole)
		write_local_watch(j, d);

	nfswb_json_u64(j, "background_time_ms", d->opts.background_time_ms);
	nfswb_json_u64(j, "background_min_bytes", d->opts.background_min);
	nfswb_json_u64(j, "commit_target_ms", d->opts.commit_target_ms);

	nfswb_json_obj_begin(j, "bandwidth");
	nfswb_json_u64(j, "bytes_per_s", nfswb_estimator_bandwidth(e));
	nfswb_json_str(j, "state", e->p.fixed_bw ? "fixed" :
				   e->learned ? "learned" : "cold");
	nfswb_json_u64(j, "busy_samples", e->busy_samples);
	nfswb_json_u64(j, "skipped_samples", e->skipped_samples);
	nfswb_json_u64(j, "burst_samples", e->burst_samples);
	if (nfswb_estimator_write_rate(e, &rate))
		nfswb_json_u64(j, "write_rate_bytes_per_s", rate);
	else
		nfswb_json_null(j, "write_rate_bytes_per_s");
	nfswb_json_bool(j, "stat_readable", d->stat_ok);
	nfswb_json_obj_end(j);

	nfswb_json_u64(j, "dirty_bytes", d->dirty_bytes);
	nfswb_json_str(j, "dirty_source",
		       nfswbd_dirty_source_name(d->dirty_source));
	nfswb_json_bool(j, "standby", d->standby);
	nfswb_json_u64(j, "standby_intervals", d->standby_intervals);
	nfswb_json_bool(j, "commits_often", d->commits_often);
	nfswb_json_u64(j, "commits_often_samples", d->commits_often_samples);
	/* Its own schedule: longer while it stands by, whatever the others do. */
	nfswb_json_u64(j, "sampling_ms", d->sample_ms);
	nfswb_json_u64(j, "samples", d->samples);
	if (d->decided) {
		nfswb_json_u64(j, "target_bytes", d->decision.target_bytes);
		nfswb_json_u64(j, "kick_bytes", d->decision.kick_bytes);
		nfswb_json_u64(j, "cap_bytes", d->decision.cap_bytes);
	} else {
		nfswb_json_null(j, "target_bytes");
		nfswb_json_null(j, "kick_bytes");
		nfswb_json_null(j, "cap_bytes");
	}
	write_counters(j, d);
	write_owners(j, d);
	nfswb_json_obj_end(j);
}

/* The loop's run information; set once before the first write. */
static const struct nfswbd_run_info *status_run;

/**
 * nfswbd_status_set_run - the start time and reloads status.json reports.
 */
void nfswbd_status_set_run(const struct nfswbd_run_info *ri)
{
	status_run = ri;
}

/* The daemon's run: wall clock, start, reloads, metrics, last error. */
static void write_run(struct nfswb_json *j, const struct nfswbd_settings *s)
{
	const struct nfswbd_run_info *ri = status_run;
	time_t err_time = 0;
	const char *err = nfswb_log_last_error(&err_time);

	nfswb_json_u64(j, "time_s", (uint64_t)time(NULL));
	if (ri) {
		nfswb_json_u64(j, "start_time_s", ri->start_time_s);
		nfswb_json_u64(j, "reloads", ri->reloads);
		nfswb_json_u64(j, "failed_reloads", ri->failed_reloads);
		if (ri->last_reload_s)
			nfswb_json_u64(j, "last_reload_s", ri->last_reload_s);
		else
			nfswb_json_null(j, "last_reload_s");
	}
	nfswb_json_obj_begin(j, "metrics");
	if (s->metrics_file)
		nfswb_json_str(j, "file", s->metrics_file);
	else
		nfswb_json_null(j, "file");
	if (s->metrics_listen)
		nfswb_json_str(j, "listen", s->metrics_listen);
	else
		nfswb_json_null(j, "listen");
	if (ri && ri->commit_source)
		nfswb_json_str(j, "commit_latency", ri->commit_source);
	else
		nfswb_json_null(j, "commit_latency");
	nfswb_json_obj_end(j);
	nfswb_json_obj_begin(j, "last_error");
	if (err) {
		nfswb_json_str(j, "message", err);
		nfswb_json_u64(j, "time_s", (uint64_t)err_time);
	} else {
		nfswb_json_null(j, "message");
		nfswb_json_null(j, "time_s");
	}
	nfswb_json_obj_end(j);
}

static void write_document(FILE *f, const struct nfswbd_settings *s,
			   const struct nfswbd_table *t, uint64_t now_ms)
{
	struct nfswb_json j;

	nfswb_json_init(&j, f, true);
	nfswb_json_obj_begin(&j, NULL);
	nfswb_json_str(&j, "program", "nfswbd");
	nfswb_json_str(&j, "version", PACKAGE_VERSION);
	nfswb_json_i64(&j, "pid", (int64_t)getpid());
	nfswb_json_str(&j, "mode", s->dry_run ? "dry-run" : "acting");
	nfswb_json_u64(&j, "monotonic_ms", now_ms);
	nfswb_json_u64(&j, "interval_ms", t->interval_ms);
	/* The shortest device's: longer while every device stands by. */
	nfswb_json_u64(&j, "sampling_ms", t->sampling_ms ? t->sampling_ms
							 : t->interval_ms);
	write_run(&j, s);

	nfswb_json_obj_begin(&j, "config");
	nfswb_json_str(&j, "exports_file", s->exports_file);
	if (s->exports_dir)
		nfswb_json_str(&j, "exports_dir", s->exports_dir);
	else
		nfswb_json_null(&j, "exports_dir");
	nfswb_json_str(&j, "nfs_conf", s->nfs_conf);
	nfswb_json_arr_begin(&j, "files");
	for (size_t i = 0; i < t->cfg.count; i++) {
		const char *file = t->cfg.exports[i].file;
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(t->cfg.exports[k].file, file);
		if (!seen)
			nfswb_json_str(&j, NULL, file);
	}
	nfswb_json_arr_end(&j);
	nfswb_json_obj_end(&j);

	nfswb_json_arr_begin(&j, "devices");
	for (size_t i = 0; i < t->ndevs; i++)
		write_device(&j, &t->devs[i]);
	nfswb_json_arr_end(&j);
	nfswb_json_obj_end(&j);
	nfswb_json_end(&j);
}

#define STATUS_FILE	"status.json"
#define STATUS_TMP	".status.json.tmp"

/* The state directory, opened once at start-up: it cannot move. */
static int status_dirfd = -1;

/**
 * nfswbd_status_set_dir - where status.json goes: an fd from
 * nfswb_statedir_open(), which the caller keeps open.
 */
void nfswbd_status_set_dir(int dirfd)
{
	status_dirfd = dirfd;
}

/**
 * nfswbd_status_write - replace STATE_DIR/status.json.
 * Returns 0, or -1 (logged) when the file cannot be written.
 */
int nfswbd_status_write(const struct nfswbd_settings *s,
			const struct nfswbd_table *t, uint64_t now_ms)
{
	bool failed;
	FILE *f;
	int fd;

	fd = nfswb_statedir_create_tmp(status_dirfd, STATUS_TMP, 0644);
	if (fd < 0) {
		xlog(L_ERROR, "cannot write %s/%s: %s", s->state_dir,
		     STATUS_TMP, strerror(-fd));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		xlog(L_ERROR, "cannot write %s/%s: %m", s->state_dir,
		     STATUS_TMP);
		close(fd);
		unlinkat(status_dirfd, STATUS_TMP, 0);
		return -1;
	}
	write_document(f, s, t, now_ms);
	failed = ferror(f);
	if (fclose(f))
		failed = true;
	if (failed) {
		xlog(L_ERROR, "cannot write %s/%s: %m", s->state_dir,
		     STATUS_TMP);
		unlinkat(status_dirfd, STATUS_TMP, 0);
		return -1;
	}
	if (renameat(status_dirfd, STATUS_TMP, status_dirfd, STATUS_FILE) < 0) {
		xlog(L_ERROR, "cannot rename %s/%s to %s: %m", s->state_dir,
		     STATUS_TMP, STATUS_FILE);
		unlinkat(status_dirfd, STATUS_TMP, 0);
		return -1;
	}
	return 0;
}
