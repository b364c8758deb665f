// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech.c - the mechanism registry.  Mode selection, the fallback when a
 * mechanism fails to attach, status.json and --check-config all read
 * this one table; a new mechanism is its own file plus one line in
 * lib/mech.am's NFSWB_MECHS, from which the table is generated.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mech.h"

/*
 * Probe order, as lib/mech.am lists the files: mode=auto falls back down
 * the primaries.  Today kernel (the per-bdi knob, kernel-patch/), files
 * (fanotify + cachestat + kicks), then the limit overlay (strict_limit +
 * max_bytes); each says its role in its own struct.
 */
const struct nfswb_mech *const nfswb_mechs[] = {
#define NFSWB_MECH(name, NAME) &nfswb_mech_##name,
#include "mech_list.h"
#undef NFSWB_MECH
	NULL,
};

const struct nfswb_mech *nfswb_mech_by_mode(enum nfswb_mode mode)
{
	for (const struct nfswb_mech *const *m = nfswb_mechs; *m; m++)
		if ((*m)->mode == mode)
			return *m;
	return NULL;
}

bool nfswb_mech_usable(const struct nfswb_mech *m, const char *sysroot,
		       char *why, size_t len)
{
	why[0] = '\0';
	if (m->probe(sysroot, why, len) == 0) {
		if (!why[0])
			snprintf(why, len, "%s mechanism available", m->name);
		return true;
	}
	if (!why[0])
		snprintf(why, len, "not supported by this kernel");
	return false;
}

const struct nfswb_mech *nfswb_mech_next_primary(const struct nfswb_mech *after,
						 const char *sysroot,
						 char *why, size_t len)
{
	const struct nfswb_mech *const *m = nfswb_mechs;
	size_t pos = 0;
	char one[256];

	why[0] = '\0';
	if (after)
		while (*m && *m++ != after)
			;
	for (; *m; m++) {
		if ((*m)->role != NFSWB_MECH_PRIMARY)
			continue;
		if (nfswb_mech_usable(*m, sysroot, one, sizeof(one))) {
			if (!pos)
				snprintf(why, len, "%s", one);
			return *m;
		}
		if (pos < len)
			pos += snprintf(why + pos, len - pos, "%s%s mode unavailable: %s",
					pos ? "; " : "", (*m)->name, one);
	}
	return NULL;
}

uint64_t nfswb_mech_counter(const struct nfswb_mech *m,
			    const struct nfswb_mech_dev *d, const char *name)
{
	for (unsigned int i = 0; m->counter_names && m->counter_names[i] &&
	     i < NFSWB_MECH_MAX_COUNTERS; i++)
		if (!strcmp(m->counter_names[i], name))
			return d->count[i];
	return 0;
}
