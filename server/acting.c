// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * acting.c - attach each device's mechanisms, move them across a reload,
 * detach them (which restores every kernel setting) on the way out.
 *
 * devtable.c selected each device's mechanisms from the registry (the
 * primary first, then the overlays); each is a struct nfswbd_mech_slot
 * holding the mechanism's per-device state.  A primary that fails to
 * attach under mode=auto gives way to the registry's next primary.
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
	for (unsigned int k = 0; k < d->nmechs; k++) {
		struct nfswbd_mech_slot *slot = &d->mechs[k];
		const struct nfswb_mech *failed;
		char why[400];

		slot_init(slot, slot->mech, t, d, sysroot);
		while (!slot_attach(slot, d) && k == 0 &&
		       slot->mech->role == NFSWB_MECH_PRIMARY &&
		       d->opts.mode == NFSWB_MODE_AUTO) {
			failed = slot->mech;
			/* No choice left: the one it began with failed. */
			if (failed == d->auto_narrow)
				slot->mech = d->auto_whole;
			else if (failed == d->auto_whole)
				slot->mech = d->auto_narrow;
			else
				slot->mech = nfswb_mech_next_primary(failed,
						sysroot, why, sizeof(why));
			d->auto_whole = d->auto_narrow = NULL;
			if (!slot->mech) {
				slot->mech = failed;
				break;
			}
			xlog(L_WARNING, "bdi %s: mode auto falls back to %s",
			     d->id.bdi, slot->mech->name);
			d->effective = slot->mech->mode;
			snprintf(d->mode_why, sizeof(d->mode_why),
				 "the %s mechanism failed to attach",
				 failed->name);
			slot_init(slot, slot->mech, t, d, sysroot);
		}
	}
}

/**
 * nfswbd_dev_switch_primary - mode=auto's local watch hands device @d
 * over to the primary @m: the one in force is detached (which restores
 * what it changed), then @m attached.
 * @t: @d's table
 * @sysroot: "" on a live system
 *
 * Return: true when @m attached; else the old one is attached again.
 */
bool nfswbd_dev_switch_primary(struct nfswbd_table *t, struct nfswbd_dev *d,
			       const struct nfswb_mech *m, const char *sysroot)
{
	struct nfswbd_mech_slot *slot = &d->mechs[0];
	const struct nfswb_mech *old = slot->mech;

	if (slot->attached) {
		old->detach(&slot->md);
		slot->attached = false;
	}
	/* Files mode's bound starts from its own first look. */
	memset(&d->written, 0, sizeof(d->written));
	slot_init(slot, m, t, d, sysroot);
	if (slot_attach(slot, d)) {
		d->effective = m->mode;
		return true;
	}
	slot_init(slot, old, t, d, sysroot);
	slot_attach(slot, d);
	return false;
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
	if (a->nmechs != b->nmechs || a->nexports != b->nexports ||
	    !nfswb_export_opts_equal(&a->opts, &b->opts))
		return false;
	/* Where the local watch chooses the primary, the choices must match. */
	if (a->auto_whole != b->auto_whole || a->auto_narrow != b->auto_narrow)
		return false;
	for (unsigned int k = a->auto_whole ? 1 : 0; k < a->nmechs; k++)
		if (a->mechs[k].mech != b->mechs[k].mech)
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
			d->local = o->local;
			d->local_source = o->local_source;
			for (unsigned int k = 0; k < o->nmechs; k++) {
				d->mechs[k] = o->mechs[k];
				d->mechs[k].md.id = &d->id;
				d->mechs[k].md.paths = d->paths;
				o->mechs[k].attached = false;	/* moved */
			}
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

/**
 * nfswbd_table_drop - detach device @i (restoring its settings) and take
 * it out of @t.
 */
void nfswbd_table_drop(struct nfswbd_table *t, size_t i)
{
	struct nfswbd_dev *d = &t->devs[i];

	dev_detach(d);
	nfswbd_dev_sampling_close(d);
	free(d->exports);
	free(d->paths);
	free(d->st_devs);
	memmove(d, d + 1, (t->ndevs - i - 1) * sizeof(*d));
	t->ndevs--;
	/* The devices behind it moved: their mechanisms point at them. */
	for (; i < t->ndevs; i++)
		for (unsigned int k = 0; k < t->devs[i].nmechs; k++)
			t->devs[i].mechs[k].md.id = &t->devs[i].id;
}
