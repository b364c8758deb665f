// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * devtable.c - configured exports grouped by the device they write to.
 *
 * Writeback is per bdi, so the daemon keeps one state per bdi: one
 * estimator, one decision, one set of mechanisms.  Several exports on one
 * bdi share it; their options are combined by nfswb_export_opts_merge()
 * (see nfswb.exports(5)).  A table is built completely, or not at all,
 * so that a reload with a broken file leaves the running table alone.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etab.h"
#include "fdlimit.h"
#include "log.h"
#include "nfswbd.h"
#include "restore.h"

static struct nfswbd_dev *table_find(struct nfswbd_table *t, const char *bdi)
{
	for (size_t i = 0; i < t->ndevs; i++)
		if (!strcmp(t->devs[i].id.bdi, bdi))
			return &t->devs[i];
	return NULL;
}

static int dev_add_export(struct nfswbd_dev *d, const struct nfswb_export *e,
			  dev_t st_dev)
{
	const struct nfswb_export **ex;
	const char **paths;
	dev_t *devs;

	ex = realloc(d->exports, (d->nexports + 1) * sizeof(*ex));
	if (!ex)
		return -1;
	d->exports = ex;
	paths = realloc(d->paths, (d->nexports + 1) * sizeof(*paths));
	if (!paths)
		return -1;
	d->paths = paths;
	devs = realloc(d->st_devs, (d->nexports + 1) * sizeof(*devs));
	if (!devs)
		return -1;
	d->st_devs = devs;
	d->st_devs[d->nexports] = st_dev;
	d->exports[d->nexports] = e;
	d->paths[d->nexports] = e->path;
	d->nexports++;
	return 0;
}

static void dev_select(struct nfswbd_dev *d, const struct nfswb_mech *m)
{
	if (d->nmechs < NFSWB_MECH_MAX_PER_DEV)
		d->mechs[d->nmechs++].mech = m;
}

/*
 * mode=auto found @whole, a mechanism acting on all the device's dirty
 * data: begin with the next primary that acts on NFS's alone, and let
 * the local watch (tick.c) move to @whole once a window shows no local
 * writers.  Returns the one to begin with.
 */
static const struct nfswb_mech *auto_start(const char *sysroot,
					   struct nfswbd_dev *d,
					   const struct nfswb_mech *whole)
{
	const struct nfswb_mech *narrow = whole;
	char why[400];

	do
		narrow = nfswb_mech_next_primary(narrow, sysroot, why,
						 sizeof(why));
	while (narrow && narrow->whole_device);
	if (!narrow)
		return whole;
	d->auto_whole = whole;
	d->auto_narrow = narrow;
	snprintf(d->mode_why, sizeof(d->mode_why),
		 "%s mode until %d s show no local writers dirtying the device (%s mode would write their data back too)",
		 narrow->name, NFSWB_LOCAL_WINDOW_MS / 1000, whole->name);
	return narrow;
}

/*
 * Turn the configured mode into mechanisms this kernel has, from the
 * registry (lib/mech.c).  Only auto falls back; a mode asked for by name
 * that cannot work is an error, as the admin would otherwise believe it
 * active.  Overlays join when the options want them.
 */
static void dev_resolve_mode(const char *sysroot, struct nfswbd_dev *d,
			     struct nfswb_diag *diag)
{
	const struct nfswb_export *first = d->exports[0];
	enum nfswb_mode mode = d->opts.mode;
	const struct nfswb_mech *m;
	char why[400];

	d->nmechs = 0;
	d->effective = NFSWB_MODE_OFF;
	d->mode_why[0] = '\0';
	d->auto_whole = d->auto_narrow = NULL;
	memset(&d->local, 0, sizeof(d->local));
	d->local_source = NFSWBD_DIRTY_NONE;

	if (mode == NFSWB_MODE_OFF) {
		snprintf(d->mode_why, sizeof(d->mode_why), "mode=off");
		return;
	}
	if (mode == NFSWB_MODE_AUTO) {
		m = nfswb_mech_next_primary(NULL, sysroot, why, sizeof(why));
		snprintf(d->mode_why, sizeof(d->mode_why), "%s", why);
		if (m && m->whole_device)
			m = auto_start(sysroot, d, m);
		if (m)
			dev_select(d, m);
	} else {
		m = nfswb_mech_by_mode(mode);
		if (!m || !nfswb_mech_usable(m, sysroot, why, sizeof(why))) {
			nfswb_diag_add(diag, first->file, first->line,
				       "%s: mode=%s is not available on this kernel: %s",
				       first->path, nfswb_mode_name(mode),
				       m ? why : "no such mechanism");
			return;
		}
		dev_select(d, m);
		snprintf(d->mode_why, sizeof(d->mode_why), "configured");
	}

	for (const struct nfswb_mech *const *o = nfswb_mechs; *o; o++) {
		if ((*o)->role != NFSWB_MECH_OVERLAY || nfswbd_dev_has(d, *o) ||
		    !(*o)->wanted || !(*o)->wanted(&d->opts))
			continue;
		if (nfswb_mech_usable(*o, sysroot, why, sizeof(why)))
			dev_select(d, *o);
		else
			nfswb_diag_add(diag, first->file, first->line,
				       "%s: %s needs the %s mechanism, which is not available: %s",
				       first->path, (*o)->wanted_by, (*o)->name,
				       why);
	}
	if (d->nmechs)
		d->effective = d->mechs[0].mech->mode;
}

/** nfswbd_dev_has - is @m among the mechanisms selected for @d? */
bool nfswbd_dev_has(const struct nfswbd_dev *d, const struct nfswb_mech *m)
{
	for (unsigned int i = 0; i < d->nmechs; i++)
		if (d->mechs[i].mech == m)
			return true;
	return false;
}

/** nfswbd_dev_counter - counter @name summed over @d's attached mechanisms. */
uint64_t nfswbd_dev_counter(const struct nfswbd_dev *d, const char *name)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < d->nmechs; i++)
		if (d->mechs[i].attached)
			sum += nfswb_mech_counter(d->mechs[i].mech,
						  &d->mechs[i].md, name);
	return sum;
}

/**
 * nfswbd_dev_mechs - the mechanisms selected for @d as "files+limit",
 * or "off" without any.
 */
const char *nfswbd_dev_mechs(const struct nfswbd_dev *d, char *buf,
			     size_t len)
{
	size_t pos = 0;

	snprintf(buf, len, "off");
	for (unsigned int i = 0; i < d->nmechs && pos < len; i++)
		pos += snprintf(buf + pos, len - pos, "%s%s", i ? "+" : "",
				d->mechs[i].mech->name);
	return buf;
}

/**
 * nfswbd_table_build - load the exports and resolve them into devices.
 * @s: settings (files, sysroot)
 * @defaults: option defaults from nfs.conf
 * @t: the new table; empty on failure
 * @diag: every error, as FILE:LINE: reason
 *
 * Returns 0, or -1 with @diag holding every problem found.
 */
int nfswbd_table_build(const struct nfswbd_settings *s,
		       const struct nfswb_export_opts *defaults,
		       struct nfswbd_table *t, struct nfswb_diag *diag)
{
	size_t errors = nfswb_diag_errors(diag);

	memset(t, 0, sizeof(*t));
	t->defaults = *defaults;
	t->interval_ms = s->interval_ms;
	t->max_files = s->max_files;
	t->use_io_uring = s->use_io_uring;

	if (nfswb_config_load(s->exports_file, s->exports_required,
			      s->exports_dir, defaults, &t->cfg, diag) < 0)
		goto fail;

	/* Allocate for the worst case: every export on its own device. */
	t->devs = calloc(t->cfg.count ? t->cfg.count : 1, sizeof(*t->devs));
	if (!t->devs) {
		nfswb_diag_add(diag, "nfswbd", 0, "out of memory");
		goto fail;
	}

	/* The device follows from st_dev: resolve a run on one st_dev once. */
	struct nfswb_device_id id;
	bool have_id = false;
	dev_t id_dev = 0;

	for (size_t i = 0; i < t->cfg.count; i++) {
		const struct nfswb_export *e = &t->cfg.exports[i];
		struct nfswbd_dev *d;
		struct stat st;
		char err[512];

		/* A reload forgets a path that went away (unmounted, say). */
		if (s->drop_missing && stat(e->path, &st) < 0 &&
		    errno == ENOENT) {
			xlog(L_WARNING, "%s:%u: %s does not exist (any more): export left out",
			     e->file, e->line, e->path);
			continue;
		}
		if (!have_id || stat(e->path, &st) < 0 || st.st_dev != id_dev) {
			have_id = false;
			if (nfswb_resolve_device(s->sysroot, e->path, &id, err,
						 sizeof(err)) < 0) {
				nfswb_diag_add(diag, e->file, e->line, "%s",
					       err);
				continue;
			}
			if (stat(e->path, &st) == 0) {
				id_dev = st.st_dev;
				have_id = true;
			}
		}
		d = table_find(t, id.bdi);
		if (!d) {
			d = &t->devs[t->ndevs++];
			d->id = id;
			d->opts = e->opts;
		} else {
			char why[256];

			if (nfswb_export_opts_merge(&d->opts, &e->opts, why,
						    sizeof(why)) < 0)
				nfswb_diag_add(diag, e->file, e->line,
					       "%s: shares bdi %s with %s (%s:%u): %s",
					       e->path, id.bdi,
					       d->exports[0]->path,
					       d->exports[0]->file,
					       d->exports[0]->line, why);
		}
		if (dev_add_export(d, e, id.st_dev) < 0) {
			nfswb_diag_add(diag, "nfswbd", 0, "out of memory");
			goto fail;
		}
	}
	/* Also for devices beside a broken export: report every error. */
	for (size_t i = 0; i < t->ndevs; i++) {
		struct nfswbd_dev *d = &t->devs[i];
		struct nfswb_estimator_params p = {
			.fixed_bw = d->opts.bandwidth,
			.min_bw = d->opts.min_bandwidth,
			.max_bw = d->opts.max_bandwidth,
		};

		dev_resolve_mode(s->sysroot, d, diag);
		nfswb_estimator_init(&d->est, &p);
	}
	/* Files mode holds its files open: leave fds for everything else. */
	t->max_files = nfswb_nofile_max_files(s->max_files, t->ndevs);
	if (nfswb_diag_errors(diag) > errors)
		goto fail;
	return 0;
fail:
	nfswbd_table_free(t);
	return -1;
}

/**
 * nfswbd_table_adopt_state - carry learned state across a reload.
 * @next: the table about to take over
 * @prev: the table in force
 *
 * A device that stays keeps its bandwidth estimate, so a reload does not
 * send it back to the cold-start value; if its bandwidth options changed
 * the estimate restarts cold (the old one was clamped differently), but
 * the last sample stays the baseline so the next interval still counts.
 * It keeps the files it samples open, too.
 */
void nfswbd_table_adopt_state(struct nfswbd_table *next,
			      struct nfswbd_table *prev)
{
	for (size_t i = 0; i < next->ndevs; i++) {
		struct nfswbd_dev *d = &next->devs[i];

		for (size_t j = 0; j < prev->ndevs; j++) {
			struct nfswbd_dev *o = &prev->devs[j];

			if (strcmp(o->id.bdi, d->id.bdi))
				continue;
			if (!memcmp(&o->est.p, &d->est.p, sizeof(d->est.p))) {
				d->est = o->est;
			} else {
				d->est.have_prev = o->est.have_prev;
				d->est.prev = o->est.prev;
				d->est.prev_ms = o->est.prev_ms;
			}
			d->stat_ok = o->stat_ok;
			d->dry_cap = o->dry_cap;
			nfswbd_dev_sampling_adopt(d, o);
			break;
		}
	}
	nfswbd_table_sampling_adopt(next, prev);
}

void nfswbd_table_free(struct nfswbd_table *t)
{
	for (size_t i = 0; i < t->ndevs; i++) {
		nfswbd_dev_sampling_close(&t->devs[i]);
		free(t->devs[i].exports);
		free(t->devs[i].paths);
		free(t->devs[i].st_devs);
	}
	free(t->devs);
	nfswbd_table_sampling_close(t);
	nfswb_config_free(&t->cfg);
	memset(t, 0, sizeof(*t));
}

/* knfsd serves when its nfsd filesystem is mounted with threads started. */
static bool knfsd_running(const char *sysroot)
{
	char path[512];
	unsigned int threads = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/fs/nfsd/threads", sysroot);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%u", &threads) != 1)
		threads = 0;
	fclose(f);
	return threads > 0;
}

/**
 * nfswbd_etab_warn - compare the configuration with knfsd's export table.
 * @sysroot: prefix for /proc and /var/lib/nfs
 * @cfg: the configured exports
 * @warn: called with a sentence for each export COMMIT will not benefit
 * @arg: passed to @warn
 *
 * Only while knfsd runs: otherwise its tables say nothing (and the server
 * may be NFS-Ganesha, whose exports are not in them).  A configured path
 * counts as exported when it is, or lies below, a knfsd export.
 * Returns true when the comparison was made.
 */
bool nfswbd_etab_warn(const char *sysroot, const struct nfswb_config *cfg,
		      void (*warn)(const struct nfswb_export *e,
				   const char *msg, void *arg),
		      void *arg)
{
	struct nfswb_etab etab = { 0 };

	if (!knfsd_running(sysroot) || nfswb_etab_load(sysroot, &etab) < 0)
		return false;
	for (size_t i = 0; i < cfg->count; i++) {
		const struct nfswb_export *e = &cfg->exports[i];
		const struct nfswb_knfsd_export *k;

		k = nfswb_etab_covering(&etab, e->path);
		if (!k)
			warn(e, "is not exported by knfsd", arg);
		else if (k->async)
			warn(e, "is exported async: COMMIT does not sync it, so early writeback cannot shorten COMMITs",
			     arg);
	}
	nfswb_etab_free(&etab);
	return true;
}

/**
 * nfswbd_table_log_modes - say what each device will do, and why.
 */
void nfswbd_table_log_modes(const struct nfswbd_table *t)
{
	for (size_t i = 0; i < t->ndevs; i++) {
		const struct nfswbd_dev *d = &t->devs[i];

		char mechs[64];

		/* Auto that did not get the first primary says so louder. */
		xlog(d->opts.mode == NFSWB_MODE_AUTO &&
		     (!d->nmechs || d->mechs[0].mech != nfswb_mechs[0]) ?
		     L_NOTICE : L_INFO,
		     "bdi %s (%s, %zu export(s)): mode %s -> %s: %s",
		     d->id.bdi, d->id.blockdev, d->nexports,
		     nfswb_mode_name(d->opts.mode),
		     nfswbd_dev_mechs(d, mechs, sizeof(mechs)), d->mode_why);
	}
}
