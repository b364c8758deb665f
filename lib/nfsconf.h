/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfsconf.h - a reader for nfs.conf(5), compatible with nfs-utils'
 * conffile.c: [section] and [section "arg"] headers, "name = value",
 * '#' and ';' comments, quoted values, case-insensitive section and tag
 * names, "include = [-]FILE", $var expansion from the process environment
 * then [environment], and FILE.d/ *.conf drop-ins.  A value read here is
 * the value `nfsconf --file FILE --get SECTION TAG` prints
 * (tests/unit/test_nfsconf.sh checks that).
 *
 * The daemon owns the [nfswbd] section; its keys are documented in
 * doc/nfs.conf.example.
 */
#ifndef NFSWB_NFSCONF_H
#define NFSWB_NFSCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "exports.h"

struct nfswb_nfsconf;

/**
 * nfswb_nfsconf_read - read @path and @path.d/ *.conf as nfs-utils does.
 * A missing @path is not a problem (nfs.conf is optional).  Everything
 * nfs-utils would warn about and skip is added to @diag as
 * "FILE:LINE: reason" and skipped the same way.  *@out is always set
 * (NULL only when out of memory) and must be freed.
 * Returns the number of problems.
 */
int nfswb_nfsconf_read(const char *path, struct nfswb_nfsconf **out,
		       struct nfswb_diag *diag);

/**
 * nfswb_nfsconf_load - the strict form: 0 with *@out set, or -EINVAL with
 * *@out NULL and every problem in @diag (nothing partially applied).
 */
int nfswb_nfsconf_load(const char *path, struct nfswb_nfsconf **out,
		       struct nfswb_diag *diag);

/**
 * nfswb_nfsconf_load_owned - the form for a program that owns @section:
 * a problem inside [@section] (or one that concerns a whole file, like an
 * unreadable file) is an error in @errors; a problem elsewhere is another
 * program's business, goes to @warnings and is skipped as nfs-utils
 * skips it.  @section NULL: every problem is an error, as in
 * nfswb_nfsconf_load().  Returns 0 with *@out set, or -EINVAL with
 * *@out NULL when @errors got any (nothing partially applied).
 */
int nfswb_nfsconf_load_owned(const char *path, const char *section,
			     struct nfswb_nfsconf **out,
			     struct nfswb_diag *errors,
			     struct nfswb_diag *warnings);

/**
 * nfswb_nfsconf_parse_buffer - one file's text; includes are read only
 * when @follow_includes (never while fuzzing).  Like nfswb_nfsconf_read().
 */
int nfswb_nfsconf_parse_buffer(const char *name, const char *buf, size_t len,
			       bool follow_includes,
			       struct nfswb_nfsconf **out,
			       struct nfswb_diag *diag);

void nfswb_nfsconf_free(struct nfswb_nfsconf *c);

/* The value as nfsconf --get prints it, or NULL when unset. */
const char *nfswb_nfsconf_get(const struct nfswb_nfsconf *c,
			      const char *section, const char *tag);
/* The same, with the file and line that set it in *@file and *@line. */
const char *nfswb_nfsconf_get_where(const struct nfswb_nfsconf *c,
				    const char *section, const char *tag,
				    const char **file, unsigned int *line);
/* The same for [section "arg"] (nfsconf --get --arg ARG). */
const char *nfswb_nfsconf_get_arg(const struct nfswb_nfsconf *c,
				  const char *section, const char *arg,
				  const char *tag);
/* Booleans as conf_get_bool: true/t/yes/y/on/1 and false/f/no/n/off/0. */
bool nfswb_nfsconf_get_bool(const struct nfswb_nfsconf *c, const char *section,
			    const char *tag, bool def);

/**
 * nfswb_nfsconf_daemon_defaults - apply the [nfswbd] keys mode,
 * background-time, commit-target, bandwidth, min-bandwidth, max-bandwidth
 * and writers onto @defaults (the per-export defaults that nfswb.exports
 * lines start from).  Errors are "FILE:LINE: [nfswbd] key = value: reason".
 * Returns 0, or -EINVAL with @defaults unchanged.
 */
int nfswb_nfsconf_daemon_defaults(const struct nfswb_nfsconf *c,
				  const char *conf_name,
				  struct nfswb_export_opts *defaults,
				  struct nfswb_diag *diag);

/**
 * nfswb_nfsconf_check_keys - report every key of @section (without an
 * argument) that is neither in the NULL-terminated @keys (may be NULL)
 * nor, for [nfswbd], in the one list of its keys (lib/nfsconf.c: the
 * export option keys above and the daemon's own): a typo there would
 * otherwise be silently ignored.  Errors are "FILE:LINE: [section]
 * unknown key 'KEY'".  Returns 0, or -EINVAL when any was found.
 */
int nfswb_nfsconf_check_keys(const struct nfswb_nfsconf *c,
			     const char *section, const char *const *keys,
			     struct nfswb_diag *diag);

#endif
