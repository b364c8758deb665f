/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * etab.h - knfsd's view of its exports (/proc/fs/nfs/exports or
 * /var/lib/nfs/etab).  COMMIT only syncs on "sync" exports; nfswbd warns
 * about configured paths that knfsd does not export or exports "async".
 */
#ifndef NFSWB_ETAB_H
#define NFSWB_ETAB_H

#include <stdbool.h>
#include <stddef.h>

struct nfswb_knfsd_export {
	char *path;
	bool async;	/* any client of this path has async */
};

struct nfswb_etab {
	struct nfswb_knfsd_export *entries;
	size_t count;
};

/* Parse either file's text.  Unparseable lines are skipped. */
int nfswb_etab_parse(const char *text, struct nfswb_etab *out);
/* Read /proc/fs/nfs/exports, else /var/lib/nfs/etab, under @sysroot.
 * Returns 0, or -1 when neither exists (knfsd not running). */
int nfswb_etab_load(const char *sysroot, struct nfswb_etab *out);
const struct nfswb_knfsd_export *nfswb_etab_find(const struct nfswb_etab *e,
						 const char *path);
void nfswb_etab_free(struct nfswb_etab *e);

#endif
