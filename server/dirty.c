// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dirty.c - how many dirty bytes a device holds.
 *
 * Best first: the mechanism's own count of NFS-written dirty bytes (files
 * mode knows exactly which files NFS wrote); else the bdi's BdiReclaimable
 * from debugfs (all dirty data on the device, NFS or not); else the
 * global nr_dirty from /proc/vmstat, an upper bound for every device.
 * A device standing by in files mode may instead hold the written bound
 * (lib/policy.h: the last look plus what nfsd wrote since).
 * status.json names the source so that nobody mistakes the debugfs and
 * vmstat ones for NFS-only numbers.  The last two files are held open by the device
 * (tick.c opens them).
 */
#include "config.h"

#include "nfswbd.h"
#include "procfs.h"

const char *nfswbd_dirty_source_name(enum nfswbd_dirty_source s)
{
	switch (s) {
	case NFSWBD_DIRTY_MECH:
		return "mechanism";
	case NFSWBD_DIRTY_DEBUGFS:
		return "debugfs-bdi";
	case NFSWBD_DIRTY_VMSTAT:
		return "vmstat-global";
	case NFSWBD_DIRTY_NFSD_WRITTEN:
		return "nfsd-written";
	case NFSWBD_DIRTY_NONE:
		break;
	}
	return "none";
}

/* The slot of the attached mechanism that counts NFS's dirty bytes, or -1. */
static int counting_mech(const struct nfswbd_dev *d)
{
	for (unsigned int i = 0; i < d->nmechs; i++)
		if (d->mechs[i].attached && d->mechs[i].mech->dirty_bytes)
			return (int)i;
	return -1;
}

uint64_t nfswbd_dirty_read(struct nfswbd_dev *d,
			   enum nfswbd_dirty_source *src)
{
	int i = counting_mech(d);
	uint64_t v;

	if (i >= 0) {
		*src = NFSWBD_DIRTY_MECH;
		return d->mechs[i].mech->dirty_bytes(&d->mechs[i].md);
	}
	nfswbd_dirty_bound_read(d, src, &v);
	return v;
}

bool nfswbd_dirty_nfs_only(const struct nfswbd_dev *d)
{
	return counting_mech(d) >= 0;
}

/** nfswbd_dirty_source_of - the source status.json names for @b. */
enum nfswbd_dirty_source nfswbd_dirty_source_of(enum nfswb_dirty_bound_source b)
{
	switch (b) {
	case NFSWB_BOUND_BDI:
		return NFSWBD_DIRTY_DEBUGFS;
	case NFSWB_BOUND_GLOBAL:
		return NFSWBD_DIRTY_VMSTAT;
	case NFSWB_BOUND_NONE:
		break;
	}
	return NFSWBD_DIRTY_NONE;
}

bool nfswbd_dirty_bound_read(struct nfswbd_dev *d,
			     enum nfswbd_dirty_source *src, uint64_t *bytes)
{
	*src = nfswbd_dirty_source_of(nfswb_dirty_bound(&d->dirty_files,
							bytes));
	return *src != NFSWBD_DIRTY_NONE;
}
