// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * acting.c - attach each device's mechanisms, move them across a reload,
 * detach them (which restores every kernel setting) on the way out.
 *
 * A device gets its primary mechanism (kernel or files, from the mode
 * devtable.c resolved) plus limit when commit_target is set.  Each one
 * is a struct nfswbd_mech_slot holding the mechanism's per-device state.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nfswbd.h"

static void slot_init(struct nfswbd_mech_slot *slot,
		      const struct nfswb_mech *m, const struct nfswbd_table *t,
		      struct nfswbd_dev *d, const char *sysroot)
{
	memset(slot, 0, sizeof(*slot));
	slot->mech = m;
	slot->md.id = &d->id;
	slot->md.sysroot = sysroot;
	slot->md.restore = t->restore;
	slot->md.paths = d->paths;
	slot->md.npaths = d->nexports;
	slot->md.opts = d->opts;
	slot->md.max_files = t->max_files;
	slot->md.use_io_uring = t->use_io_uring;
}

static bool slot_attach(struct nfswbd_mech_slot *slot, struct nfswbd_dev *d)
{
	char why[256] = "";

	if (slot->mech->attach(&slot->md, why, sizeof(why)) < 0) {
		xlog(L_ERROR, "bdi %s (%s): cannot attach the %s mechanism: %s",
		     d->id.bdi, d->id.blockdev, slot->mech->name,
		     why[0] ? why : "unknown error");
		slot->mech->detach(&slot->md);
		slot->attached = false;
		return false;
	}
	slot->attached = true;
	xlog(L_NOTICE, "bdi %s (%s): %s mechanism attached for %zu export(s)",
	     d->id.bdi, d->id.blockdev, slot->mech->name, d->nexports);
	return true;
}

static void dev_attach(struct nfswbd_table *t, struct nfswbd_dev *d,
		       const char *sysroot)
{
	struct nfswbd_mech_slot *slot;

	d->nmechs = 0;
	if (d->use_kernel) {
		slot = &d->mechs[d->nmechs++];
		slot_init(slot, &nfswb_mech_kernel, t, d, sysroot);
		if (!slot_attach(slot, d) && d->opts.mode == NFSWB_MODE_AUTO) {
			xlog(L_WARNING, "bdi %s: mode auto falls back to files",
			     d->id.bdi);
			d->use_kernel = false;
			d->use_files = true;
			d->effective = NFSWB_MODE_FILES;
			snprintf(d->mode_why, sizeof(d->mode_why),
				 "the kernel mechanism failed to attach");
			d->nmechs--;
		}
	}
	if (d->use_files) {
		slot = &d->mechs[d->nmechs++];
		slot_init(slot, &nfswb_mech_files, t, d, sysroot);
		slot_attach(slot, d);
	}
	if (d->use_limit) {
		slot = &d->mechs[d->nmechs++];
		slot_init(slot, &nfswb_mech_limit, t, d, sysroot);
		slot_attach(slot, d);
	}
}

/**
 * nfswbd_table_attach - attach every device's mechanisms.
 * @t: the table
 * @sysroot: "" on a live system
 * @restore: the journal every change goes through
 *
 * A mechanism that fails to attach is logged and left out; the other
 * devices still work.  Returns the number of mechanisms attached, or -1
 * when devices needed mechanisms and not one attached.
 */
int nfswbd_table_attach(struct nfswbd_table *t, const char *sysroot,
			struct nfswb_restore *restore)
{
	int n = 0, wanted = 0;

	t->restore = restore;
	for (size_t i = 0; i < t->ndevs; i++) {
		struct nfswbd_dev *d = &t->devs[i];

		dev_attach(t, d, sysroot);
		wanted += d->nmechs;
		for (unsigned int k = 0; k < d->nmechs; k++)
			n += d->mechs[k].attached;
	}
	return wanted && !n ? -1 : n;
}

static void dev_detach(struct nfswbd_dev *d)
{
	/* Newest first, so limit's cap goes before the primary's state. */
	for (unsigned int k = d->nmechs; k-- > 0;) {
		struct nfswbd_mech_slot *slot = &d->mechs[k];

		if (!slot->attached)
			continue;
		slot->mech->detach(&slot->md);
		slot->attached = false;
		xlog(L_INFO, "bdi %s: %s mechanism detached", d->id.bdi,
		     slot->mech->name);
	}
	d->nmechs = 0;
}

/**
 * nfswbd_table_detach - detach every mechanism, restoring what they changed.
 */
void nfswbd_table_detach(struct nfswbd_table *t)
{
	for (size_t i = 0; i < t->ndevs; i++)
		dev_detach(&t->devs[i]);
}

static bool same_setup(const struct nfswbd_dev *a, const struct nfswbd_dev *b)
{
	if (a->use_kernel != b->use_kernel || a->use_files != b->use_files ||
	    a->use_limit != b->use_limit || a->nexports != b->nexports ||
	    memcmp(&a->opts, &b->opts, sizeof(a->opts)))
		return false;
	for (size_t i = 0; i < a->nexports; i++)
		if (strcmp(a->paths[i], b->paths[i]))
			return false;
	return true;
}

/**
 * nfswbd_table_switch - hand the mechanisms of @cur over to @next.
 * @cur: the table in force; all its mechanisms are gone afterwards
 * @next: the table taking over
 * @sysroot: "" on a live system
 *
 * A device whose exports, options and mechanisms did not change keeps
 * its attached mechanisms (and their learned files and caps).  The rest
 * are detached first, which restores their settings, and only then are
 * the new ones attached, so a restore never undoes a new setting.
 */
void nfswbd_table_switch(struct nfswbd_table *cur, struct nfswbd_table *next,
			 const char *sysroot)
{
	bool *kept = NULL;

	next->restore = cur->restore;
	if (next->ndevs) {
		kept = calloc(next->ndevs, sizeof(*kept));
		if (!kept)
			xlog(L_WARNING, "out of memory: re-attaching every device");
	}

	for (size_t i = 0; kept && i < next->ndevs; i++) {
		struct nfswbd_dev *d = &next->devs[i];

		for (size_t j = 0; j < cur->ndevs; j++) {
			struct nfswbd_dev *o = &cur->devs[j];

			if (strcmp(o->id.bdi, d->id.bdi) || !same_setup(o, d))
				continue;
			d->effective = o->effective;
			memcpy(d->mode_why, o->mode_why, sizeof(d->mode_why));
			d->nmechs = o->nmechs;
			for (unsigned int k = 0; k < o->nmechs; k++) {
				d->mechs[k] = o->mechs[k];
				d->mechs[k].md.id = &d->id;
				d->mechs[k].md.paths = d->paths;
			}
			o->nmechs = 0;
			kept[i] = true;
			break;
		}
	}

	nfswbd_table_detach(cur);

	for (size_t i = 0; i < next->ndevs; i++)
		if (!kept || !kept[i])
			dev_attach(next, &next->devs[i], sysroot);
	free(kept);
}

/**
 * nfswbd_mech_readable - pass a readable fd to the mechanism that owns it.
 */
void nfswbd_mech_readable(struct nfswbd_table *t, int fd)
{
	for (size_t i = 0; i < t->ndevs; i++) {
		struct nfswbd_dev *d = &t->devs[i];

		for (unsigned int k = 0; k < d->nmechs; k++) {
			struct nfswbd_mech_slot *slot = &d->mechs[k];

			if (!slot->attached || !slot->mech->poll_fd ||
			    !slot->mech->on_readable ||
			    slot->mech->poll_fd(&slot->md) != fd)
				continue;
			slot->mech->on_readable(&slot->md);
			return;
		}
	}
}
