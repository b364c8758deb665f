// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_kernel.c - the kernel mechanism: give the device's bdi a
 * background threshold of its own (kernel-patch/) and let the flusher
 * start writeback once the device's dirty data exceeds it.  The kernel
 * has the dirty count and acts at the moment data is dirtied.
 *
 * Where the kernel offers /sys/class/bdi/BDI/dirty_background_bytes
 * (series v2), the threshold is the policy's knob_bytes: write-behind's
 * least kick once the data's rate is known, before that our target
 * (bandwidth x background_time from our own estimate of the disk),
 * written when it moves by more than 1/8.  Otherwise the
 * threshold is a time the kernel multiplies by its own bandwidth
 * estimate (v2's dirty_background_time_ms, v1's
 * dirty_background_time); that estimate starts at 100 MB/s and learns
 * only while writeback runs, so on a slower disk the threshold is too
 * high exactly when it matters.  Where the kernel shows its estimate
 * (v1's /sys/class/bdi/BDI/write_bandwidth), this file reports it and
 * the policy turns it into knob_bytes / estimate (nfswb_policy_knob_ms);
 * elsewhere background_time as is.
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

/* The per-bdi knobs, the one this file prefers first. */
static const struct kernel_knob {
	const char *name;
	bool bytes;		/* in bytes, else in milliseconds */
} kernel_knobs[] = {
	{ "dirty_background_bytes", true },
	{ "dirty_background_time_ms", false },
	{ "dirty_background_time", false },	/* series v1 */
};
#define NKNOBS	(sizeof(kernel_knobs) / sizeof(kernel_knobs[0]))
#define KNOB_GLOB	"dirty_background_{bytes,time_ms,time}"
#define BW_ATTR	"write_bandwidth"

enum { KERNEL_KNOB_MS, KERNEL_KNOB_BYTES, KERNEL_ERRORS };

static const char *const kernel_counters[] = {
	[KERNEL_KNOB_MS] = "knob_ms",		/* time knob value in force */
	[KERNEL_KNOB_BYTES] = "knob_bytes",	/* bytes knob value in force */
	[KERNEL_ERRORS] = "errors",
	NULL,
};

struct kernel_priv {
	const struct kernel_knob *kind;
	char knob[PATH_MAX];
	struct nfswb_kfile bw;	/* v1's write_bandwidth, held open */
	uint64_t value;		/* value written, valid when set */
	int set;
};

static int kernel_probe(const char *sysroot, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < NKNOBS; i++) {
		if (nfswb_any_bdi_has(sysroot, kernel_knobs[i].name)) {
			snprintf(why, len, "per-bdi %s present",
				 kernel_knobs[i].name);
			return 0;
		}
	}
	/* System-wide: no device's bdi has a knob, so name them all. */
	snprintf(why, len,
		 "kernel lacks the per-bdi knob: no %s/sys/class/bdi/*/" KNOB_GLOB
		 " (see kernel-patch/)", sysroot);
	return -ENOENT;
}

static int kernel_write(struct nfswb_mech_dev *d, struct kernel_priv *p,
			uint64_t value)
{
	char v[32];
	int ret;

	snprintf(v, sizeof(v), "%" PRIu64, value);
	ret = nfswb_restore_set(d->restore, p->knob, v);
	if (ret < 0)
		return ret;
	p->value = value;
	p->set = 1;
	d->count[p->kind->bytes ? KERNEL_KNOB_BYTES : KERNEL_KNOB_MS] = value;
	return 0;
}

static int kernel_attach(struct nfswb_mech_dev *d, char *why, size_t len)
{
	char bw_attr[PATH_MAX];
	struct kernel_priv *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	d->priv = p;
	for (p->kind = kernel_knobs; p->kind < kernel_knobs + NKNOBS; p->kind++)
		if (nfswb_bdi_attr_path(p->knob, sizeof(p->knob), d->sysroot,
					d->id->bdi, p->kind->name) == 0 &&
		    access(p->knob, W_OK) == 0)
			break;
	if (p->kind == kernel_knobs + NKNOBS) {
		snprintf(why, len,
			 "kernel lacks %s/sys/class/bdi/%s/" KNOB_GLOB
			 " (see kernel-patch/)", d->sysroot, d->id->bdi);
		return -ENOENT;
	}
	/* The bytes knob waits for our first target (the first apply). */
	if (p->kind->bytes) {
		xlog(L_INFO, "bdi %s: %s follows our target", d->id->bdi,
		     p->kind->name);
		return 0;
	}
	ret = kernel_write(d, p, d->opts.background_time_ms);
	if (ret) {
		snprintf(why, len, "cannot write %" PRIu64 " to %s: %s",
			 d->opts.background_time_ms, p->knob, strerror(-ret));
		return ret;
	}
	if (nfswb_bdi_attr_path(bw_attr, sizeof(bw_attr), d->sysroot,
				d->id->bdi, BW_ATTR) < 0 ||
	    nfswb_kfile_open(&p->bw, bw_attr) < 0) {
		xlog(L_NOTICE, "bdi %s: no %s: the knob rests on the kernel's own bandwidth estimate",
		     d->id->bdi, BW_ATTR);
		nfswb_kfile_close(&p->bw);
	}
	xlog(L_INFO, "bdi %s: %s = %" PRIu64 " ms", d->id->bdi, p->kind->name,
	     p->value);
	return 0;
}

static void kernel_observe(struct nfswb_mech_dev *d,
			   struct nfswb_policy_in *in)
{
	struct kernel_priv *p = d->priv;

	if (!p)
		return;
	if (p->set && !p->kind->bytes)
		in->knob_in_force_ms = p->value;
	if (p->bw.path && (nfswb_kfile_reopen(&p->bw) < 0 ||
			   nfswb_kfile_read_u64(&p->bw, &in->kernel_bw) < 0))
		in->kernel_bw = 0;
}

/*
 * The flusher acts on its own; the knob moves when the policy says (the
 * time knob) or when our target moves by more than 1/8 (the bytes knob).
 */
static int kernel_apply(struct nfswb_mech_dev *d,
			const struct nfswb_policy_out *o)
{
	struct kernel_priv *p = d->priv;
	uint64_t want;
	int ret;

	if (!p)
		return 0;
	if (p->kind->bytes) {
		want = o->knob_bytes;
		if (!want || (p->set && !nfswb_policy_knob_change(p->value, want)))
			return 0;
	} else {
		if (!o->knob_change)
			return 0;
		want = o->knob_ms;
	}
	ret = kernel_write(d, p, want);
	if (ret) {
		d->count[KERNEL_ERRORS]++;
		return ret;
	}
	xlog(L_DEBUG, "bdi %s: %s = %" PRIu64 " (threshold %" PRIu64 " bytes)",
	     d->id->bdi, p->kind->name, want, o->knob_bytes);
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
	d->count[KERNEL_KNOB_BYTES] = 0;
	nfswb_kfile_close(&p->bw);
	free(p);
	d->priv = NULL;
}

const struct nfswb_mech nfswb_mech_kernel = {
	.name = "kernel",
	.role = NFSWB_MECH_PRIMARY,
	.mode = NFSWB_MODE_KERNEL,
	.whole_device = true,
	.counter_names = kernel_counters,
	.probe = kernel_probe,
	.attach = kernel_attach,
	.observe = kernel_observe,
	.apply = kernel_apply,
	.detach = kernel_detach,
};
