// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dirty.c - how many dirty bytes a device holds.
 *
 * Best first: the mechanism's own count of NFS-written dirty bytes (files
 * mode knows exactly which files NFS wrote); else the bdi's BdiReclaimable
 * from debugfs (all dirty data on the device, NFS or not); else the
 * global nr_dirty from /proc/vmstat, an upper bound for every device.
 * status.json names the source so that nobody mistakes the last two for
 * NFS-only numbers.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nfswbd.h"

const char *nfswbd_dirty_source_name(enum nfswbd_dirty_source s)
{
	switch (s) {
	case NFSWBD_DIRTY_MECH:
		return "mechanism";
	case NFSWBD_DIRTY_DEBUGFS:
		return "debugfs-bdi";
	case NFSWBD_DIRTY_VMSTAT:
		return "vmstat-global";
	case NFSWBD_DIRTY_NONE:
		break;
	}
	return "none";
}

/* Find "KEY<sep>N" in a small file; returns 0 and N, or -1. */
static int read_keyed_u64(const char *path, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	char line[256];
	int ret = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		if (strncmp(p, key, klen))
			continue;
		p += klen;
		if (*p != ':' && *p != ' ')
			continue;
		if (*p == ':')
			p++;
		if (sscanf(p, "%" SCNu64, v) == 1)
			ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

uint64_t nfswbd_dirty_read(const char *sysroot, struct nfswbd_dev *d,
			   enum nfswbd_dirty_source *src)
{
	char path[512];
	uint64_t v;

	for (unsigned int i = 0; i < d->nmechs; i++) {
		struct nfswbd_mech_slot *m = &d->mechs[i];

		if (m->attached && m->mech->dirty_bytes) {
			*src = NFSWBD_DIRTY_MECH;
			return m->mech->dirty_bytes(&m->md);
		}
	}

	/* mm/backing-dev.c prints "BdiReclaimable: %10lu kB". */
	snprintf(path, sizeof(path), "%s/sys/kernel/debug/bdi/%s/stats",
		 sysroot, d->id.bdi);
	if (read_keyed_u64(path, "BdiReclaimable", &v) == 0) {
		*src = NFSWBD_DIRTY_DEBUGFS;
		return v << 10;
	}

	snprintf(path, sizeof(path), "%s/proc/vmstat", sysroot);
	if (read_keyed_u64(path, "nr_dirty", &v) == 0) {
		*src = NFSWBD_DIRTY_VMSTAT;
		return v * (uint64_t)sysconf(_SC_PAGESIZE);
	}

	*src = NFSWBD_DIRTY_NONE;
	return 0;
}
