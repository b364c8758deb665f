/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfsconf.h - a reader for nfs.conf(5), compatible with nfs-utils'
 * conffile.c: [section] and [section "arg"] headers, "name = value",
 * '#' and ';' comments, quoted values, case-insensitive section and tag
 * names, "include = [-]FILE", $var expansion from [environment] then the
 * process environment, and FILE.d/ *.conf drop-ins.
 * The daemon owns the [nfswbd] section.
 */
#ifndef NFSWB_NFSCONF_H
#define NFSWB_NFSCONF_H

#include <stdbool.h>

#include "diag.h"

struct nfswb_nfsconf;

/* Missing file is not an error (nfs.conf is optional); syntax errors are. */
int nfswb_nfsconf_load(const char *path, struct nfswb_nfsconf **out,
		       struct nfswb_diag *diag);
void nfswb_nfsconf_free(struct nfswb_nfsconf *c);

/* The value as nfsconf --get prints it, or NULL when unset. */
const char *nfswb_nfsconf_get(const struct nfswb_nfsconf *c,
			      const char *section, const char *tag);
/* Booleans as conf_get_bool: true/t/yes/y/on/1 and false/f/no/n/off/0. */
bool nfswb_nfsconf_get_bool(const struct nfswb_nfsconf *c, const char *section,
			    const char *tag, bool def);

#endif
