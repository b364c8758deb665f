/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * etab.h - knfsd's view of its exports (/proc/fs/nfs/exports and
 * /var/lib/nfs/etab).  COMMIT only syncs on "sync" exports; nfswbd warns
 * about configured paths that knfsd does not export or exports "async".
 *
 * Both files have one line per (path, client):
 *   PATH<TAB>CLIENT(opt,opt,...)
 * with the path's blanks, '\', '#' and '"' written as \ooo octal, and '#'
 * comment lines in the kernel's file.  The kernel's table holds only the
 * exports that clients have used since mountd last filled its cache, so
 * nfswb_etab_load() reads both files and merges them.
 */
#ifndef NFSWB_ETAB_H
#define NFSWB_ETAB_H

#include <stdbool.h>
#include <stddef.h>

struct nfswb_knfsd_export {
	char *path;
	bool async;		/* any client of this path has async */
	unsigned int clients;	/* lines seen for this path */
};

struct nfswb_etab {
	struct nfswb_knfsd_export *entries;
	size_t count;
	size_t skipped;		/* lines that were not PATH CLIENT(OPTS) */
};

/**
 * nfswb_etab_parse - add the exports in one file's text to @out.
 * @text: /proc/fs/nfs/exports or /var/lib/nfs/etab contents
 * @out: zero-initialised, or holding earlier results to merge with
 *
 * Lines of a path already in @out merge into its entry.  NFSv4 pseudo-root
 * entries (option v4root) are not exports and are left out.  Lines that
 * are not PATH CLIENT(OPTS) are counted in @out->skipped.
 *
 * Return: 0, or -ENOMEM.
 */
int nfswb_etab_parse(const char *text, struct nfswb_etab *out);

/**
 * nfswb_etab_load - read /proc/fs/nfs/exports and /var/lib/nfs/etab.
 * @sysroot: prefix for both paths, "" on a live system
 * @out: zero-initialised
 *
 * Return: 0 when at least one exists, -ENOENT when neither does (knfsd
 * not set up), or the negative errno reading one failed with.
 */
int nfswb_etab_load(const char *sysroot, struct nfswb_etab *out);

/**
 * nfswb_etab_find - the entry of exactly @path (trailing '/' ignored).
 * Return: the entry, or NULL when knfsd does not export @path.
 */
const struct nfswb_knfsd_export *nfswb_etab_find(const struct nfswb_etab *e,
						 const char *path);

/**
 * nfswb_etab_covering - the export through which clients reach @path:
 * @path itself, else its nearest exported ancestor.
 * Return: the entry, or NULL.
 */
const struct nfswb_knfsd_export *
nfswb_etab_covering(const struct nfswb_etab *e, const char *path);

void nfswb_etab_free(struct nfswb_etab *e);

#endif
