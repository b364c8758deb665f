// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_kernel.c - the kernel mechanism: write the device's
 * /sys/class/bdi/BDI/dirty_background_time (kernel-patch/) and let the
 * flusher start writeback once the device's dirty data exceeds its write
 * bandwidth x that time.  Nothing runs per interval: the kernel has the
 * bandwidth estimate and the dirty count, and acts at the moment data is
 * dirtied.  The daemon reads the device's dirty bytes itself (BdiReclaimable
 * in debugfs), so this mechanism has no dirty_bytes method.
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

struct kernel_priv {
	char knob[PATH_MAX];
	uint64_t ms;		/* value written, valid when set */
	int set;
};

static int kernel_probe(const char *sysroot, char *why, size_t len)
{
	if (nfswb_any_bdi_has(sysroot, KNOB))
		return 0;
	/* System-wide: no device's bdi has the knob, so name them all. */
	snprintf(why, len,
		 "kernel lacks the per-bdi knob: no %s/sys/class/bdi/*/" KNOB
		 " (see kernel-patch/)", sysroot);
	return -1;
}

static int kernel_write(struct nfswb_mech_dev *d, struct kernel_priv *p,
			uint64_t ms)
{
	char v[32];

	snprintf(v, sizeof(v), "%" PRIu64, ms);
	if (nfswb_restore_set(d->restore, p->knob, v) < 0)
		return -1;
	p->ms = ms;
	p->set = 1;
	d->c.knob_ms = ms;
	return 0;
}

static int kernel_attach(struct nfswb_mech_dev *d, char *why, size_t len)
{
	struct kernel_priv *p;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	d->priv = p;
	if (nfswb_bdi_attr_path(p->knob, sizeof(p->knob), d->sysroot,
				d->id->bdi, KNOB) < 0 ||
	    access(p->knob, W_OK) < 0) {
		snprintf(why, len, "kernel lacks %s (see kernel-patch/): %s",
			 p->knob, strerror(errno));
		return -1;
	}
	if (kernel_write(d, p, d->opts.background_time_ms) < 0) {
		snprintf(why, len, "cannot write %" PRIu64 " to %s: %s",
			 d->opts.background_time_ms, p->knob, strerror(errno));
		return -1;
	}
	xlog(L_INFO, "bdi %s: %s = %" PRIu64 " ms", d->id->bdi, KNOB, p->ms);
	return 0;
}

/*
 * The flusher acts on its own; only a new background_time (the options
 * can be changed in place) needs writing.
 */
static int kernel_apply(struct nfswb_mech_dev *d,
			const struct nfswb_policy_out *o)
{
	struct kernel_priv *p = d->priv;

	(void)o;
	if (!p || (p->set && p->ms == d->opts.background_time_ms))
		return 0;
	if (kernel_write(d, p, d->opts.background_time_ms) < 0) {
		d->c.errors++;
		return -1;
	}
	return 0;
}

static void kernel_detach(struct nfswb_mech_dev *d)
{
	struct kernel_priv *p = d->priv;

	if (!p)
		return;
	if (p->set && nfswb_restore_put_back(d->restore, p->knob) < 0)
		d->c.errors++;
	d->c.knob_ms = 0;
	free(p);
	d->priv = NULL;
}

const struct nfswb_mech nfswb_mech_kernel = {
	.name = "kernel",
	.probe = kernel_probe,
	.attach = kernel_attach,
	.apply = kernel_apply,
	.detach = kernel_detach,
};
