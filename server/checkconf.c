// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * checkconf.c - nfswbd --check-config: everything the daemon would do at
 * start-up short of acting, then the effective setting of every export,
 * one line each, on stdout:
 *
 *   PATH bdi=8:0 blockdev=sda fstype=ext4 mode=auto effective=files
 *        background_time=1s background_min=8MiB commit_target=none
 *        bandwidth=estimated min_bandwidth=4MiB/s max_bandwidth=none
 *        writers=nfsd:ganesha.nfsd
 *        shared=N reason="..."
 *
 * (one line; wrapped here).  Errors go to stderr as FILE:LINE: reason,
 * all of them, and the exit status is 1.  Warnings (knfsd does not
 * export the path, or exports it async) go to stderr and do not fail.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfswbd.h"
#include "units.h"

/* Paths as exports(5) writes them: white space and '\' as octal. */
static void print_path(FILE *out, const char *p)
{
	for (; *p; p++) {
		unsigned char c = *p;

		if (isspace(c) || c == '\\' || !isprint(c))
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
}

static void print_export(FILE *out, const struct nfswbd_dev *d,
			 const struct nfswb_export *e)
{
	const struct nfswb_export_opts *o = &d->opts;
	char buf[64];

	print_path(out, e->path);
	fprintf(out, " bdi=%s blockdev=%s fstype=%s mode=%s effective=%s",
		d->id.bdi, d->id.blockdev, d->id.fstype,
		nfswb_mode_name(o->mode),
		nfswbd_dev_mechs(d, buf, sizeof(buf)));
	fprintf(out, " background_time=%s",
		nfswb_format_duration_ms(o->background_time_ms, buf,
					 sizeof(buf)));
	fprintf(out, " background_min=%s",
		nfswb_format_size(o->background_min, buf, sizeof(buf)));
	fprintf(out, " commit_target=%s", o->commit_target_ms ?
		nfswb_format_duration_ms(o->commit_target_ms, buf,
					 sizeof(buf)) : "none");
	fprintf(out, " bandwidth=%s", o->bandwidth ?
		nfswb_format_rate(o->bandwidth, buf, sizeof(buf)) :
		"estimated");
	fprintf(out, " min_bandwidth=%s",
		nfswb_format_rate(o->min_bandwidth ? o->min_bandwidth :
				  NFSWB_EST_DEFAULT_MIN, buf, sizeof(buf)));
	fprintf(out, " max_bandwidth=%s", o->max_bandwidth ?
		nfswb_format_rate(o->max_bandwidth, buf, sizeof(buf)) :
		"none");
	fputs(" writers=", out);
	for (unsigned int i = 0; i < o->nwriters; i++)
		fprintf(out, "%s%s", i ? ":" : "", o->writers[i]);
	fprintf(out, " shared=%zu reason=\"%s\"\n", d->nexports,
		d->mode_why);
}

static void print_warning(const struct nfswb_export *e, const char *msg,
			  void *arg)
{
	fprintf(arg, "%s:%u: warning: %s %s\n", e->file, e->line, e->path,
		msg);
}

/**
 * nfswbd_check_config - validate and print; returns the exit status.
 */
int nfswbd_check_config(const struct nfswbd_cmdline *cl)
{
	struct nfswb_diag diag = { 0 };
	struct nfswbd_settings s;
	struct nfswbd_table t = { 0 };
	const struct nfswbd_dev **devof = NULL;
	int ret = 1;

	if (nfswbd_config_load(cl, &s, &t, &diag) < 0)
		goto out;

	if (!nfswbd_etab_warn(s.sysroot, &t.cfg, print_warning, stderr))
		fprintf(stderr,
			"nfswbd: note: knfsd is not running; exports not checked against its table\n");
	/* An option one export set and the merge on its device replaced. */
	for (size_t k = 0; k < t.ndevs; k++)
		nfswb_export_merge_notes(t.devs[k].exports, t.devs[k].nexports,
					 &t.devs[k].opts, print_warning,
					 stderr);
	if (!t.cfg.count)
		fprintf(stderr, "nfswbd: no exports configured in %s%s%s\n",
			s.exports_file, s.exports_dir ? " or " : "",
			s.exports_dir ? s.exports_dir : "");

	/*
	 * In file order, which is the order admins read them in; each
	 * export's device found through one map, not a search per export.
	 */
	devof = calloc(t.cfg.count ? t.cfg.count : 1, sizeof(*devof));
	if (!devof) {
		nfswb_diag_add(&diag, "nfswbd", 0, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < t.ndevs; k++)
		for (size_t x = 0; x < t.devs[k].nexports; x++)
			devof[t.devs[k].exports[x] - t.cfg.exports] =
				&t.devs[k];
	for (size_t i = 0; i < t.cfg.count; i++)
		if (devof[i])
			print_export(stdout, devof[i], &t.cfg.exports[i]);
	ret = fflush(stdout) ? 1 : 0;
out:
	free(devof);
	nfswb_diag_print(&diag, stderr);
	nfswb_diag_clear(&diag);
	nfswbd_table_free(&t);
	nfswbd_settings_free(&s);
	return ret;
}
