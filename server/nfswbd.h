/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfswbd.h - state shared by the files of the nfswbd daemon.
 *
 *   nfswbd.c    main, command line, pid file, daemonising
 *   conf.c      daemon settings from nfs.conf [nfswbd], loading exports
 *   devtable.c  exports grouped by device, merged options, resolved mode
 *   acting.c    attaching, moving and detaching each device's mechanisms
 *   dirty.c     how many dirty bytes a device holds, and where that came from
 *   loop.c      the timerfd/signalfd/poll loop and reload
 *   tick.c      one interval: each device's step, carried out
 *   status.c    status.json
 *   metrics.c   Prometheus text file and HTTP listener
 *   checkconf.c --check-config
 */
#ifndef NFSWBD_H
#define NFSWBD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "device.h"
#include "diag.h"
#include "estimator.h"
#include "exports.h"
#include "mech.h"
#include "policy.h"
#include "procfs.h"
#include "readfile.h"

#define NFSWBD_DEFAULT_INTERVAL_MS	100
#define NFSWBD_MIN_INTERVAL_MS		10
#define NFSWBD_MAX_INTERVAL_MS		10000
#define NFSWBD_DEFAULT_MAX_FILES	4096
#define NFSWBD_STATUS_PERIOD_MS		1000
#define NFSWBD_LOG_PERIOD_MS		1000
/* How often the devices are checked for having gone away. */
#define NFSWBD_PRESENT_PERIOD_MS	1000

/*
 * Daemon-wide settings: command line over nfs.conf [nfswbd] over
 * built-ins.  The strings are owned (nfswbd_settings_free).
 */
struct nfswbd_settings {
	char *exports_file;		/* main exports file */
	bool exports_required;		/* named explicitly: must exist */
	char *exports_dir;		/* drop-in directory, NULL: none */
	char *nfs_conf;
	char *state_dir;
	char *sysroot;			/* "" on a live system */
	char *metrics_file;		/* Prometheus textfile, NULL: none */
	char *metrics_listen;		/* "ADDR:PORT", NULL: no listener */
	bool commit_latency;		/* COMMIT histogram in the metrics */
	char *commit_pid_file;		/* userspace server's pid file */
	uint64_t interval_ms;
	uint64_t status_ms;		/* status.json period */
	unsigned int max_files;		/* files mode LRU size per device */
	bool use_io_uring;
	bool foreground;
	bool dry_run;
	bool once;
	/* A reload drops (with a warning) exports whose path is gone. */
	bool drop_missing;
	int verbose;
};

/* What the daemon knows about its own run, for status.json and metrics. */
struct nfswbd_run_info {
	uint64_t start_time_s;		/* wall clock, seconds since the epoch */
	uint64_t reloads;		/* reloads that took effect */
	uint64_t last_reload_s;		/* wall clock of the last one, 0: none */
	uint64_t failed_reloads;	/* kept the previous configuration */
	const char *commit_source;	/* what times COMMIT, NULL: off */
};

/* Command-line values; a NULL or unset field leaves nfs.conf's in force. */
struct nfswbd_cmdline {
	const char *exports_file;
	const char *exports_dir;
	bool exports_dir_given;
	const char *nfs_conf;
	const char *state_dir;
	const char *sysroot;
	const char *metrics_file;
	const char *metrics_listen;
	uint64_t interval_ms;		/* 0: not given */
	bool foreground;
	bool dry_run;
	bool once;
	bool check_config;
	bool status, status_json;	/* --status [--json] */
	bool reload;			/* SIGHUP: see drop_missing */
	int verbose;
};

/* Where a device's dirty byte count came from (status "dirty_source"). */
enum nfswbd_dirty_source {
	NFSWBD_DIRTY_NONE = 0,		/* nothing readable */
	NFSWBD_DIRTY_MECH,		/* the mechanism's own count */
	NFSWBD_DIRTY_DEBUGFS,		/* BdiReclaimable of the bdi */
	NFSWBD_DIRTY_VMSTAT,		/* global nr_dirty: an upper bound */
	NFSWBD_DIRTY_NFSD_WRITTEN,	/* the written bound (policy.h) */
};

const char *nfswbd_dirty_source_name(enum nfswbd_dirty_source s);
enum nfswbd_dirty_source nfswbd_dirty_source_of(enum nfswb_dirty_bound_source b);

/* One mechanism selected for one device, attached when acting. */
struct nfswbd_mech_slot {
	const struct nfswb_mech *mech;
	struct nfswb_mech_dev md;
	bool attached;
};

struct nfswbd_dev {
	struct nfswb_device_id id;
	struct nfswb_export_opts opts;		/* merged over its exports */
	const struct nfswb_export **exports;	/* into the table's config */
	const char **paths;
	dev_t *st_devs;				/* of each path, when resolved */
	size_t nexports;

	/*
	 * Configured opts.mode resolved on this kernel: mechs[0..nmechs),
	 * the primary (if any) first, then the overlays.
	 */
	enum nfswb_mode effective;
	char mode_why[512];
	struct nfswbd_mech_slot mechs[NFSWB_MECH_MAX_PER_DEV];
	unsigned int nmechs;
	/*
	 * mode=auto where the first primary acts on the whole device: it
	 * (auto_whole) while the local watch finds no local writers, the
	 * next primary (auto_narrow) otherwise.  NULL: no such choice.
	 */
	const struct nfswb_mech *auto_whole;
	const struct nfswb_mech *auto_narrow;
	struct nfswb_local_watch local;
	enum nfswbd_dirty_source local_source;	/* what it last read */
	/*
	 * After a move that failed to attach, the next switch_skip windows
	 * are let pass; switch_wait doubles with each failure up to the
	 * quiet period, so a knob that cannot be written is not retried
	 * (and logged) every window.  Both 0 after a move that worked.
	 */
	unsigned int switch_skip;
	unsigned int switch_wait;

	struct nfswb_estimator est;
	bool stat_ok;				/* last stat read worked */
	/*
	 * The files each sample reads, open from the first sample to the
	 * drop (tick.c); a reload hands them to the same device.
	 */
	struct nfswb_kfile stat_file;		/* id.stat_path */
	struct nfswb_dirty_files dirty_files;	/* debugfs stats, vmstat */
	bool sampling_open;
	/* Files mode's measurements and nfsd's count (policy.h). */
	struct nfswb_written_bound written;

	uint64_t dirty_bytes;
	enum nfswbd_dirty_source dirty_source;
	struct nfswb_policy_out decision;
	bool decided;
	bool standby;				/* stood by last interval */
	uint64_t standby_intervals;		/* how many it stood by */
	bool commits_often;			/* the clients commit often */
	uint64_t commits_often_samples;		/* samples it did nothing at */
	uint64_t sample_ms;			/* its sampling interval now */
	uint64_t due_ms;			/* its next sample, 0: at once */
	uint64_t samples;			/* taken, beside the first */
	uint64_t dry_cap;			/* cap a dry run would have set */

	uint64_t last_log_ms;
	struct nfswb_policy_out logged;
	bool have_logged;
};

struct nfswbd_table {
	struct nfswb_config cfg;
	struct nfswb_export_opts defaults;	/* nfs.conf [nfswbd] defaults */
	struct nfswbd_dev *devs;
	size_t ndevs;
	uint64_t interval_ms;
	uint64_t sampling_ms;			/* the shortest device's now */
	unsigned int max_files;
	bool use_io_uring;
	struct nfswb_restore *restore;		/* when acting */
	uint64_t present_ms;			/* devices last checked */
	/*
	 * nfsd's counts of what it wrote and of the COMMITs it was sent are
	 * one for all devices (the written bound, policy.h): read at most
	 * once a tick, whatever the number of devices that use them.
	 */
	struct nfswb_kfile nfsd_stats;		/* /proc/net/rpc/nfsd */
	bool nfsd_counts_ok;
	struct nfswb_nfsd_counts nfsd_counts;	/* as of nfsd_read_ms */
	uint64_t nfsd_read_ms;			/* 0: not read yet */
};

/* conf.c */
int nfswbd_settings_load(const struct nfswbd_cmdline *cl,
			 struct nfswbd_settings *s,
			 struct nfswb_export_opts *defaults,
			 struct nfswb_diag *diag);
void nfswbd_settings_free(struct nfswbd_settings *s);
int nfswbd_config_load(const struct nfswbd_cmdline *cl,
		       struct nfswbd_settings *s, struct nfswbd_table *t,
		       struct nfswb_diag *diag);

/* devtable.c */
int nfswbd_table_build(const struct nfswbd_settings *s,
		       const struct nfswb_export_opts *defaults,
		       struct nfswbd_table *t, struct nfswb_diag *diag);
void nfswbd_table_adopt_state(struct nfswbd_table *next,
			      struct nfswbd_table *prev);
void nfswbd_table_free(struct nfswbd_table *t);
void nfswbd_table_log_modes(const struct nfswbd_table *t);
const char *nfswbd_dev_mechs(const struct nfswbd_dev *d, char *buf,
			     size_t len);
bool nfswbd_dev_has(const struct nfswbd_dev *d, const struct nfswb_mech *m);
uint64_t nfswbd_dev_counter(const struct nfswbd_dev *d, const char *name);
bool nfswbd_etab_warn(const char *sysroot, const struct nfswb_config *cfg,
		      void (*warn)(const struct nfswb_export *e,
				   const char *msg, void *arg),
		      void *arg);

/* acting.c */
int nfswbd_table_attach(struct nfswbd_table *t, const char *sysroot,
			struct nfswb_restore *restore);
void nfswbd_table_switch(struct nfswbd_table *cur, struct nfswbd_table *next,
			 const char *sysroot);
void nfswbd_table_detach(struct nfswbd_table *t);
bool nfswbd_dev_switch_primary(struct nfswbd_table *t, struct nfswbd_dev *d,
			       const struct nfswb_mech *m, const char *sysroot);
void nfswbd_mech_readable(struct nfswbd_table *t, int fd);
void nfswbd_table_drop(struct nfswbd_table *t, size_t i);

/* dirty.c */
uint64_t nfswbd_dirty_read(struct nfswbd_dev *d,
			   enum nfswbd_dirty_source *src);
/* Does the dirty count come from a mechanism, NFS's writes alone? */
bool nfswbd_dirty_nfs_only(const struct nfswbd_dev *d);
/* The cheap upper bound alone (debugfs, else vmstat); false: none. */
bool nfswbd_dirty_bound_read(struct nfswbd_dev *d,
			     enum nfswbd_dirty_source *src, uint64_t *bytes);

/* loop.c */
int nfswbd_signals_block(sigset_t *mask);
int nfswbd_run(struct nfswbd_settings *s, const struct nfswbd_cmdline *cl,
	       struct nfswbd_table *t);

/* tick.c */
void nfswbd_prime(const struct nfswbd_settings *s, struct nfswbd_table *t,
		  uint64_t now_ms);
void nfswbd_dev_sampling_adopt(struct nfswbd_dev *d, struct nfswbd_dev *prev);
void nfswbd_dev_sampling_close(struct nfswbd_dev *d);
void nfswbd_table_sampling_adopt(struct nfswbd_table *next,
				 struct nfswbd_table *prev);
void nfswbd_table_sampling_close(struct nfswbd_table *t);
uint64_t nfswbd_tick(const struct nfswbd_settings *s, struct nfswbd_table *t,
		 uint64_t now_ms);
void nfswbd_print_decisions(const struct nfswbd_table *t, FILE *out);

/* status.c */
void nfswbd_status_set_run(const struct nfswbd_run_info *ri);
void nfswbd_status_set_dir(int dirfd);
int nfswbd_status_write(const struct nfswbd_settings *s,
			const struct nfswbd_table *t, uint64_t now_ms);

/* statuscmd.c */
int nfswbd_status_cmd(const struct nfswbd_cmdline *cl, bool json);

/* checkconf.c */
int nfswbd_check_config(const struct nfswbd_cmdline *cl);

#endif
