// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_kernel.c - the kernel mechanism: write the device's
 * /sys/class/bdi/BDI/dirty_background_time (kernel-patch/) and let the
 * flusher start writeback once the device's dirty data exceeds its write
 * bandwidth x that time.  The kernel has the dirty count and acts at the
 * moment data is dirtied; its bandwidth estimate, though, starts at
 * 100 MB/s and learns only while writeback runs, so on a slower disk the
 * threshold is too high exactly when it matters.  Where the kernel shows
 * its estimate (/sys/class/bdi/BDI/write_bandwidth, kernel-patch/ 5/5),
 * this file reports it and the policy turns it into target / estimate
 * (nfswb_policy_knob_ms), making the kernel's threshold ours; elsewhere
 * background_time as is.
 * The daemon reads the device's dirty bytes itself (BdiReclaimable in
 * debugfs), so this mechanism has no dirty_bytes method.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bdiattr.h"
#include "log.h"
#include "mech.h"
#include "restore.h"

#define KNOB	"dirty_background_time"
#define BW_ATTR	"write_bandwidth"

enum { KERNEL_KNOB_MS, KERNEL_ERRORS };

static const char *const kernel_counters[] = {
	[KERNEL_KNOB_MS] = "knob_ms",	/* knob value in force */
	[KERNEL_ERRORS] = "errors",
	NULL,
};

struct kernel_priv {
	char knob[PATH_MAX];
	char bw_attr[PATH_MAX];	/* "" without patch 5 */
	uint64_t ms;		/* value written, valid when set */
	int set;
};

static int kernel_probe(const char *sysroot, char *why, size_t len)
{
	if (nfswb_any_bdi_has(sysroot, KNOB)) {
		snprintf(why, len, "per-bdi " KNOB " present");
		return 0;
	}
	/* System-wide: no device's bdi has the knob, so name them all. */
	snprintf(why, len,
		 "kernel lacks the per-bdi knob: no %s/sys/class/bdi/*/" KNOB
		 " (see kernel-patch/)", sysroot);
	return -ENOENT;
}

static int kernel_write(struct nfswb_mech_dev *d, struct kernel_priv *p,
			uint64_t ms)
{
	char v[32];

	snprintf(v, sizeof(v), "%" PRIu64, ms);
	if (nfswb_restore_set(d->restore, p->knob, v) < 0)
		return -errno;
	p->ms = ms;
	p->set = 1;
	d->count[KERNEL_KNOB_MS] = ms;
	return 0;
}

static int kernel_attach(struct nfswb_mech_dev *d, char *why, size_t len)
{
	struct kernel_priv *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	d->priv = p;
	ret = nfswb_bdi_attr_path(p->knob, sizeof(p->knob), d->sysroot,
				  d->id->bdi, KNOB);
	if (!ret && access(p->knob, W_OK) < 0)
		ret = -errno;
	if (ret) {
		snprintf(why, len, "kernel lacks %s (see kernel-patch/): %s",
			 p->knob, strerror(-ret));
		return ret;
	}
	ret = kernel_write(d, p, d->opts.background_time_ms);
	if (ret) {
		snprintf(why, len, "cannot write %" PRIu64 " to %s: %s",
			 d->opts.background_time_ms, p->knob, strerror(-ret));
		return ret;
	}
	if (nfswb_bdi_attr_path(p->bw_attr, sizeof(p->bw_attr), d->sysroot,
				d->id->bdi, BW_ATTR) < 0 ||
	    access(p->bw_attr, R_OK) < 0) {
		xlog(L_NOTICE, "bdi %s: no %s: the knob rests on the kernel's own bandwidth estimate",
		     d->id->bdi, BW_ATTR);
		p->bw_attr[0] = '\0';
	}
	xlog(L_INFO, "bdi %s: %s = %" PRIu64 " ms", d->id->bdi, KNOB, p->ms);
	return 0;
}

static void kernel_observe(struct nfswb_mech_dev *d,
			   struct nfswb_policy_in *in)
{
	struct kernel_priv *p = d->priv;

	if (!p)
		return;
	if (p->set)
		in->knob_in_force_ms = p->ms;
	if (p->bw_attr[0] && nfswb_read_u64(p->bw_attr, &in->kernel_bw) < 0)
		in->kernel_bw = 0;
}

/* The flusher acts on its own; the knob moves when the policy says. */
static int kernel_apply(struct nfswb_mech_dev *d,
			const struct nfswb_policy_out *o)
{
	struct kernel_priv *p = d->priv;
	int ret;

	if (!p || !o->knob_change)
		return 0;
	ret = kernel_write(d, p, o->knob_ms);
	if (ret) {
		d->count[KERNEL_ERRORS]++;
		return ret;
	}
	xlog(L_DEBUG, "bdi %s: %s = %" PRIu64 " ms (target %" PRIu64 " bytes)",
	     d->id->bdi, KNOB, o->knob_ms, o->target_bytes);
	return 0;
}

static void kernel_detach(struct nfswb_mech_dev *d)
{
	struct kernel_priv *p = d->priv;

	if (!p)
		return;
	if (p->set && nfswb_restore_put_back(d->restore, p->knob) < 0)
		d->count[KERNEL_ERRORS]++;
	d->count[KERNEL_KNOB_MS] = 0;
	free(p);
	d->priv = NULL;
}

const struct nfswb_mech nfswb_mech_kernel = {
	.name = "kernel",
	.role = NFSWB_MECH_PRIMARY,
	.mode = NFSWB_MODE_KERNEL,
	.counter_names = kernel_counters,
	.probe = kernel_probe,
	.attach = kernel_attach,
	.observe = kernel_observe,
	.apply = kernel_apply,
	.detach = kernel_detach,
};
