// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_limit.c - the limit mechanism: cap the dirty data a device may hold
 * with its bdi's strict_limit=1 and max_bytes = bandwidth x commit_target
 * (Linux 6.2+), so the backlog a COMMIT must flush stays bounded even when
 * data arrives faster than the disk writes.  The policy decides the cap
 * and when a change is worth making (hysteresis); this file reports what
 * is in force and the kernel's dirty threshold, and writes the cap.
 *
 * max_bytes is stored by the kernel as a ratio of the global dirty
 * threshold of the moment (mm/page-writeback.c, bdi_set_max_bytes), and a
 * value above that threshold is refused with EINVAL.  So the policy
 * clamps the cap to the nr_dirty_threshold this file reports, and the
 * setting is recorded for restore through max_ratio_fine, which holds it
 * exactly.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bdiattr.h"
#include "log.h"
#include "mech.h"
#include "procfs.h"
#include "restore.h"
#include "units.h"

enum { LIMIT_CAP_BYTES, LIMIT_CAP_CHANGES, LIMIT_ERRORS };

static const char *const limit_counters[] = {
	[LIMIT_CAP_BYTES] = "cap_bytes",	/* dirty cap in force, 0: none */
	[LIMIT_CAP_CHANGES] = "cap_changes",
	[LIMIT_ERRORS] = "errors",
	NULL,
};

struct limit_priv {
	char strict[PATH_MAX];
	char max_bytes[PATH_MAX];
	char max_ratio_fine[PATH_MAX];
	struct nfswb_kfile vmstat;	/* /proc/vmstat, held open */
	bool active;		/* strict_limit and max_bytes are ours */
	bool clamp_logged;
};

static bool limit_wanted(const struct nfswb_export_opts *o)
{
	return o->commit_target_ms != 0;
}

static int limit_probe(const char *sysroot, char *why, size_t len)
{
	if (nfswb_any_bdi_has(sysroot, "strict_limit") &&
	    nfswb_any_bdi_has(sysroot, "max_bytes") &&
	    nfswb_any_bdi_has(sysroot, "max_ratio_fine"))
		return 0;
	snprintf(why, len,
		 "kernel lacks /sys/class/bdi/BDI/strict_limit, max_bytes or max_ratio_fine (Linux 6.2 or later)");
	return -ENOENT;
}

static int limit_attach(struct nfswb_mech_dev *d, char *why, size_t len)
{
	const char *bdi = d->id->bdi;
	char vmstat[PATH_MAX];
	struct limit_priv *p;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	d->priv = p;
	snprintf(vmstat, sizeof(vmstat), "%s/proc/vmstat", d->sysroot);
	nfswb_kfile_open(&p->vmstat, vmstat);	/* dirty_threshold() does without */
	if (nfswb_bdi_attr_path(p->strict, sizeof(p->strict), d->sysroot, bdi,
				"strict_limit") < 0 ||
	    nfswb_bdi_attr_path(p->max_bytes, sizeof(p->max_bytes),
				d->sysroot, bdi, "max_bytes") < 0 ||
	    nfswb_bdi_attr_path(p->max_ratio_fine, sizeof(p->max_ratio_fine),
				d->sysroot, bdi, "max_ratio_fine") < 0) {
		snprintf(why, len, "bdi name %s is too long", bdi);
		return -ENAMETOOLONG;
	}
	if (access(p->strict, W_OK) < 0 || access(p->max_bytes, W_OK) < 0 ||
	    access(p->max_ratio_fine, W_OK) < 0) {
		int err = errno;

		snprintf(why, len,
			 "cannot write %s, max_bytes or max_ratio_fine beside it: %s",
			 p->strict, strerror(err));
		return -err;
	}
	return 0;
}

/* The global dirty threshold in bytes, the most max_bytes may be. */
static uint64_t dirty_threshold(struct limit_priv *p)
{
	uint64_t pages;

	if (nfswb_kfile_reopen(&p->vmstat) < 0 ||
	    nfswb_kfile_keyed_u64(&p->vmstat, "nr_dirty_threshold", &pages) < 0)
		return 0;
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Write the cap the policy decided (already floored and clamped). */
static int write_cap(struct nfswb_mech_dev *d, struct limit_priv *p,
		     uint64_t cap)
{
	uint64_t lower;
	char v[32];
	int err;

	if (p->active && cap == d->count[LIMIT_CAP_BYTES])
		return 0;
	snprintf(v, sizeof(v), "%" PRIu64, cap);
	err = nfswb_restore_set_via(d->restore, p->max_ratio_fine, p->max_bytes,
				    v);
	if (err < 0) {
		/* The threshold moved under us (memory was used): retry lower. */
		lower = dirty_threshold(p) / 10 * 9;
		if (err != -EINVAL || !lower || cap <= lower)
			return err;
		cap = lower;
		snprintf(v, sizeof(v), "%" PRIu64, cap);
		err = nfswb_restore_set_via(d->restore, p->max_ratio_fine,
					    p->max_bytes, v);
		if (err < 0)
			return err;
	}
	if (!p->active) {
		err = nfswb_restore_set(d->restore, p->strict, "1");
		if (err < 0)
			return err;
	}
	p->active = true;
	if (d->count[LIMIT_CAP_BYTES] != cap)
		d->count[LIMIT_CAP_CHANGES]++;
	d->count[LIMIT_CAP_BYTES] = cap;
	return 0;
}

static int put_back(struct nfswb_mech_dev *d, struct limit_priv *p)
{
	int ret = nfswb_restore_put_back(d->restore, p->strict);
	int ret2 = nfswb_restore_put_back(d->restore, p->max_ratio_fine);

	if (ret2 < 0)
		ret = ret2;
	p->active = false;
	d->count[LIMIT_CAP_BYTES] = 0;
	return ret;
}

static void limit_observe(struct nfswb_mech_dev *d,
			  struct nfswb_policy_in *in)
{
	struct limit_priv *p = d->priv;

	if (!p)
		return;
	if (p->active)
		in->cap_in_force = d->count[LIMIT_CAP_BYTES];
	in->dirty_threshold = dirty_threshold(p);
}

static int limit_apply(struct nfswb_mech_dev *d,
		       const struct nfswb_policy_out *o)
{
	struct limit_priv *p = d->priv;
	int ret = 0;

	if (!p)
		return 0;
	if (o->cap_clamped && !p->clamp_logged) {
		char b[32];

		nfswb_format_size(o->cap_bytes, b, sizeof(b));
		xlog(L_NOTICE,
		     "bdi %s: dirty cap clamped to the global dirty threshold %s (max_bytes cannot exceed it)",
		     d->id->bdi, b);
		p->clamp_logged = true;
	}
	if (!o->cap_bytes) {
		if (p->active) {
			xlog(L_INFO, "bdi %s: dirty cap lifted", d->id->bdi);
			ret = put_back(d, p);
		}
	} else if (!p->active || o->cap_change) {
		ret = write_cap(d, p, o->cap_bytes);
	}
	if (ret < 0)
		d->count[LIMIT_ERRORS]++;
	return ret;
}

static void limit_detach(struct nfswb_mech_dev *d)
{
	struct limit_priv *p = d->priv;

	if (!p)
		return;
	if (put_back(d, p) < 0)
		d->count[LIMIT_ERRORS]++;
	nfswb_kfile_close(&p->vmstat);
	free(p);
	d->priv = NULL;
}

const struct nfswb_mech nfswb_mech_limit = {
	.name = "limit",
	.role = NFSWB_MECH_OVERLAY,
	.mode = NFSWB_MODE_LIMIT,
	.wanted = limit_wanted,
	.wanted_by = "commit_target",
	.counter_names = limit_counters,
	.probe = limit_probe,
	.attach = limit_attach,
	.observe = limit_observe,
	.apply = limit_apply,
	.detach = limit_detach,
};
