// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * conf.c - nfswbd's own settings.
 *
 * As in nfs-utils, a value on the command line wins over the [nfswbd]
 * section of nfs.conf, which wins over the built-in default.  The export
 * option defaults in [nfswbd] (mode, background-time, ...) are read by
 * the library (nfswb_nfsconf_daemon_defaults) so that every tool agrees
 * on them; the keys below only concern the daemon itself.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "nfsconf.h"
#include "nfswbd.h"
#include "units.h"

#define SECTION "nfswbd"

/* Longest status-interval: a status file older than this says nothing. */
#define STATUS_INTERVAL_MAX_MS	(60ULL * 60 * 1000)

static const char *conf_get(const struct nfswb_nfsconf *nc, const char *tag)
{
	return nc ? nfswb_nfsconf_get(nc, SECTION, tag) : NULL;
}

/* The value and the line that set it, for messages (@file if unset). */
static const char *conf_get_at(const struct nfswb_nfsconf *nc,
			       const char *tag, const char **file,
			       unsigned int *line)
{
	*line = 0;
	return nc ? nfswb_nfsconf_get_where(nc, SECTION, tag, file, line) :
		    NULL;
}

/* A path from nfs.conf must be absolute: the daemon runs in "/". */
static const char *conf_path(const struct nfswb_nfsconf *nc, const char *file,
			     const char *tag, struct nfswb_diag *diag)
{
	unsigned int line;
	const char *v = conf_get_at(nc, tag, &file, &line);

	if (v && v[0] != '/') {
		nfswb_diag_add(diag, file, line,
			       "[%s] %s = %s: must be an absolute path",
			       SECTION, tag, v);
		return NULL;
	}
	return v;
}

/* A duration from @min to @max; errors name the line that set it. */
static int conf_duration(const struct nfswb_nfsconf *nc, const char *file,
			 const char *tag, uint64_t min, uint64_t max,
			 uint64_t *ms, struct nfswb_diag *diag)
{
	unsigned int line;
	const char *v = conf_get_at(nc, tag, &file, &line);
	char a[32], b[32];
	const char *why;
	uint64_t n;

	if (!v)
		return 0;
	if (nfswb_parse_duration_ms(v, &n, &why) < 0) {
		nfswb_diag_add(diag, file, line, "[%s] %s = %s: %s", SECTION,
			       tag, v, why);
		return -1;
	}
	if (n < min || n > max) {
		nfswb_diag_add(diag, file, line,
			       "[%s] %s = %s: must be from %s to %s", SECTION,
			       tag, v, nfswb_format_duration_ms(min, a, sizeof(a)),
			       nfswb_format_duration_ms(max, b, sizeof(b)));
		return -1;
	}
	*ms = n;
	return 0;
}

static int conf_uint(const struct nfswb_nfsconf *nc, const char *file,
		     const char *tag, unsigned int min, unsigned int max,
		     unsigned int *out, struct nfswb_diag *diag)
{
	unsigned int line;
	const char *v = conf_get_at(nc, tag, &file, &line);
	unsigned long n;
	char *end;

	if (!v)
		return 0;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n < min || n > max) {
		nfswb_diag_add(diag, file, line,
			       "[%s] %s = %s: expected a number from %u to %u",
			       SECTION, tag, v, min, max);
		return -1;
	}
	*out = n;
	return 0;
}

static int check_interval(uint64_t ms, const char *file, const char *what,
			  struct nfswb_diag *diag)
{
	if (ms >= NFSWBD_MIN_INTERVAL_MS && ms <= NFSWBD_MAX_INTERVAL_MS)
		return 0;
	nfswb_diag_add(diag, file, 0,
		       "%s: interval must be between %ums and %ums", what,
		       NFSWBD_MIN_INTERVAL_MS, NFSWBD_MAX_INTERVAL_MS);
	return -1;
}

/* metrics-file and metrics-listen (off unless set). */
static void conf_metrics(const struct nfswbd_cmdline *cl,
			 const struct nfswb_nfsconf *nc, const char *conf_file,
			 struct nfswbd_settings *s, struct nfswb_diag *diag)
{
	const char *file = cl->metrics_file ? cl->metrics_file :
			   conf_get(nc, "metrics-file");
	const char *listen = cl->metrics_listen ? cl->metrics_listen :
			     conf_get(nc, "metrics-listen");
	char host[64], port[8];
	const char *why;

	if (file && file[0] != '/')
		nfswb_diag_add(diag, cl->metrics_file ? "command line" :
			       conf_file, 0, "metrics-file %s: an absolute "
			       "path is expected", file);
	else if (file && !(s->metrics_file = strdup(file)))
		nfswb_diag_add(diag, "nfswbd", 0, "out of memory");
	if (listen && nfswbd_metrics_parse_listen(listen, host, sizeof(host),
						  port, sizeof(port), &why))
		nfswb_diag_add(diag, cl->metrics_listen ? "command line" :
			       conf_file, 0, "metrics-listen %s: %s", listen,
			       why);
	else if (listen && !(s->metrics_listen = strdup(listen)))
		nfswb_diag_add(diag, "nfswbd", 0, "out of memory");

	/* The histogram goes to the metrics: off without an output. */
	s->commit_latency = nc && nfswb_nfsconf_get_bool(nc, SECTION,
							 "commit-latency",
							 false);
	file = conf_get(nc, "commit-latency-pid-file");
	if (file && file[0] != '/')
		nfswb_diag_add(diag, conf_file, 0, "commit-latency-pid-file "
			       "%s: an absolute path is expected", file);
	else if (file && !(s->commit_pid_file = strdup(file)))
		nfswb_diag_add(diag, "nfswbd", 0, "out of memory");
	if (s->commit_latency && !s->metrics_file && !s->metrics_listen)
		nfswb_diag_add(diag, conf_file, 0, "commit-latency needs "
			       "metrics-file or metrics-listen to publish to");
}

/**
 * nfswbd_settings_load - combine the command line, nfs.conf and built-ins.
 * @cl: the parsed command line
 * @s: filled; free with nfswbd_settings_free() even on failure
 * @defaults: export option defaults, from built-ins and [nfswbd]
 * @diag: every problem found
 *
 * Returns 0, or -1 when @diag holds errors.
 */
int nfswbd_settings_load(const struct nfswbd_cmdline *cl,
			 struct nfswbd_settings *s,
			 struct nfswb_export_opts *defaults,
			 struct nfswb_diag *diag)
{
	struct nfswb_diag warnings = { 0 };
	struct nfswb_nfsconf *nc = NULL;
	const char *conf_file, *file, *dir;
	size_t errors = nfswb_diag_errors(diag);
	unsigned int verbosity = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	nfswb_export_opts_default(defaults);

	conf_file = cl->nfs_conf ? cl->nfs_conf : NFSWB_NFS_CONF;
	s->nfs_conf = strdup(conf_file);
	/*
	 * nfs.conf is shared with every nfs-utils daemon: a problem outside
	 * [nfswbd] is theirs to report and only warned about here, while
	 * one inside [nfswbd] is an error.  The rest is still checked so
	 * that one run lists every problem.
	 */
	if (nfswb_nfsconf_load_owned(conf_file, SECTION, &nc, diag,
				     &warnings) < 0)
		nc = NULL;
	for (i = 0; i < warnings.count; i++)
		xlog(L_WARNING, "%s (outside [" SECTION "], ignored)",
		     warnings.msgs[i]);
	nfswb_diag_clear(&warnings);
	if (nc) {
		nfswb_nfsconf_daemon_defaults(nc, conf_file, defaults, diag);
		nfswb_nfsconf_check_keys(nc, SECTION, NULL, diag);
	}

	/*
	 * Exports: -c names the only file (it must exist) unless
	 * --exports-dir adds a directory; nfs.conf's exports-file and
	 * exports-dir replace the built-in pair.
	 */
	file = conf_path(nc, conf_file, "exports-file", diag);
	dir = conf_path(nc, conf_file, "exports-dir", diag);
	if (cl->exports_file) {
		s->exports_file = strdup(cl->exports_file);
		s->exports_required = true;
		dir = cl->exports_dir;
	} else {
		s->exports_file = strdup(file ? file : NFSWB_EXPORTS_FILE);
		s->exports_required = file != NULL;
		if (cl->exports_dir_given)
			dir = cl->exports_dir;
		else if (!dir)
			dir = NFSWB_EXPORTS_DIR;
	}
	s->exports_dir = dir ? strdup(dir) : NULL;

	file = conf_path(nc, conf_file, "state-dir", diag);
	s->state_dir = strdup(cl->state_dir ? cl->state_dir :
			      file ? file : NFSWB_STATEDIR);
	s->sysroot = strdup(cl->sysroot ? cl->sysroot : "");
	conf_metrics(cl, nc, conf_file, s, diag);

	s->interval_ms = NFSWBD_DEFAULT_INTERVAL_MS;
	if (cl->interval_ms) {
		s->interval_ms = cl->interval_ms;
		check_interval(s->interval_ms, "command line", "--interval",
			       diag);
	} else {
		conf_duration(nc, conf_file, "interval", NFSWBD_MIN_INTERVAL_MS,
			      NFSWBD_MAX_INTERVAL_MS, &s->interval_ms, diag);
	}
	s->status_ms = NFSWBD_STATUS_PERIOD_MS;
	conf_duration(nc, conf_file, "status-interval", NFSWBD_MIN_INTERVAL_MS,
		      STATUS_INTERVAL_MAX_MS, &s->status_ms, diag);

	s->max_files = NFSWBD_DEFAULT_MAX_FILES;
	conf_uint(nc, conf_file, "max-files", 1, 1u << 24, &s->max_files,
		  diag);
	s->use_io_uring = nc ? nfswb_nfsconf_get_bool(nc, SECTION, "io-uring",
						      true) : true;

	/* As nfs-utils daemons: "verbosity" counts, "verbose" is a flag. */
	if (conf_get(nc, "verbosity"))
		conf_uint(nc, conf_file, "verbosity", 0, 2, &verbosity,
			  diag);
	else if (nc && nfswb_nfsconf_get_bool(nc, SECTION, "verbose", false))
		verbosity = 1;
	s->verbose = cl->verbose ? cl->verbose : (int)verbosity;
	s->foreground = cl->foreground;
	s->dry_run = cl->dry_run;
	s->once = cl->once;

	if (!s->nfs_conf || !s->exports_file || !s->state_dir ||
	    !s->sysroot || (dir && !s->exports_dir))
		nfswb_diag_add(diag, "nfswbd", 0, "out of memory");
	nfswb_nfsconf_free(nc);
	return nfswb_diag_errors(diag) > errors ? -1 : 0;
}

/**
 * nfswbd_config_load - the settings, then the exports table from them.
 * @cl: command line
 * @s: the settings; free with nfswbd_settings_free() whatever the result
 * @t: the table; empty unless built, free with nfswbd_table_free()
 * @diag: every problem of both, so that one run lists them all
 *
 * Start-up, reload and --check-config load a configuration this one way.
 * Returns 0, or -1 when @diag got errors.
 */
int nfswbd_config_load(const struct nfswbd_cmdline *cl,
		       struct nfswbd_settings *s, struct nfswbd_table *t,
		       struct nfswb_diag *diag)
{
	size_t errors = nfswb_diag_errors(diag);
	struct nfswb_export_opts defaults;

	memset(t, 0, sizeof(*t));
	nfswbd_settings_load(cl, s, &defaults, diag);
	s->drop_missing = cl->reload;
	/* Without an exports path (out of memory) there is nothing to read. */
	if (s->exports_file)
		nfswbd_table_build(s, &defaults, t, diag);
	return nfswb_diag_errors(diag) > errors ? -1 : 0;
}

void nfswbd_settings_free(struct nfswbd_settings *s)
{
	free(s->exports_file);
	free(s->exports_dir);
	free(s->nfs_conf);
	free(s->state_dir);
	free(s->sysroot);
	free(s->metrics_file);
	free(s->metrics_listen);
	free(s->commit_pid_file);
	memset(s, 0, sizeof(*s));
}
