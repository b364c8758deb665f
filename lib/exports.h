/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exports.h - the exportfs-style configuration, nfswb.exports(5).
 *
 *   # comment
 *   /srv/nfs/home  (background_time=1s,commit_target=3s)
 *   "/srv/with space"  (mode=files)
 *   /srv/octal\040space  (bandwidth=200M)
 *
 * One exported path per line, then an option list in parentheses; '\' at
 * end of line continues it.  A line "-opts" (as in exports(5)) sets
 * defaults for the lines after it in the same file.
 */
#ifndef NFSWB_EXPORTS_H
#define NFSWB_EXPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "policy.h"

/*
 * mode=auto, one mode=NAME per registered mechanism (NFSWB_MODE_KERNEL,
 * _FILES, _LIMIT: mech_list.h, generated from lib/mech.am), mode=off.
 */
enum nfswb_mode {
	NFSWB_MODE_AUTO = 0,	/* the first primary this kernel has (mech.h) */
#define NFSWB_MECH(name, NAME) NFSWB_MODE_##NAME,
#include "mech_list.h"
#undef NFSWB_MECH
	NFSWB_MODE_OFF,
};

/* nfswb_mode_name - "auto", "kernel", ... */
const char *nfswb_mode_name(enum nfswb_mode m);

#define NFSWB_MAX_WRITERS	8
#define NFSWB_WRITER_LEN	16	/* TASK_COMM_LEN */

/* Bits of nfswb_export_opts.set: which options the file gave explicitly. */
enum {
	NFSWB_OPT_MODE		= 1u << 0,
	NFSWB_OPT_BG_TIME	= 1u << 1,
	NFSWB_OPT_COMMIT_TARGET	= 1u << 2,
	NFSWB_OPT_BANDWIDTH	= 1u << 3,
	NFSWB_OPT_MIN_BW	= 1u << 4,
	NFSWB_OPT_MAX_BW	= 1u << 5,
	NFSWB_OPT_WRITERS	= 1u << 6,
	NFSWB_OPT_BG_MIN	= 1u << 7,
};

struct nfswb_export_opts {
	enum nfswb_mode mode;
	uint64_t background_time_ms;	/* default 1000 */
	/* The target's floor, bytes; default NFSWB_DEFAULT_BACKGROUND_MIN. */
	uint64_t background_min;
	uint64_t commit_target_ms;	/* 0: no dirty cap */
	uint64_t bandwidth;		/* bytes/s; 0: estimate */
	uint64_t min_bandwidth;		/* bytes/s; 0: built-in floor */
	uint64_t max_bandwidth;		/* bytes/s; 0: no ceiling */
	unsigned int nwriters;
	char writers[NFSWB_MAX_WRITERS][NFSWB_WRITER_LEN];
	unsigned int set;		/* NFSWB_OPT_* given explicitly */
};

struct nfswb_export {
	char *path;
	struct nfswb_export_opts opts;
	char *file;			/* where it was configured */
	unsigned int line;
};

struct nfswb_config {
	struct nfswb_export *exports;
	size_t count;
	/* The parser's own: capacity, and a hash of paths for duplicates. */
	size_t cap;
	size_t *slots;			/* export index + 1; 0: free */
	size_t nslots;			/* power of two */
	/* Path comparisons the duplicate checks made (tests bound them). */
	uint64_t path_compares;
};

/* Sanity bounds: products of rate and time stay far below 2^64. */
#define NFSWB_MAX_DURATION_MS	(60ULL * 60 * 1000)	/* 1 hour */
#define NFSWB_MAX_RATE		(1ULL << 40)		/* 1 TiB/s */
/*
 * background_min: the target (policy.h) never goes below it.  8 MiB by
 * default; a smaller one lets data that arrives slower than the device
 * writes be kicked almost as it comes.
 */
#define NFSWB_DEFAULT_BACKGROUND_MIN	NFSWB_MIN_TARGET_BYTES
#define NFSWB_MIN_BACKGROUND_MIN	(64ULL << 10)	/* 64 KiB */
#define NFSWB_MAX_BACKGROUND_MIN	(1ULL << 30)	/* 1 GiB */

/*
 * Built-in defaults: mode=auto, background_time=1s, background_min=8MiB,
 * writers=nfsd:ganesha.nfsd.
 */
void nfswb_export_opts_default(struct nfswb_export_opts *o);

/*
 * nfswb_export_opt_set - apply one "name=value" option to @o and mark it
 * in @o->set.  Returns 0, or a negative errno (-EINVAL, -ERANGE) with the
 * reason in @why.  Used by the parser and by the nfs.conf [nfswbd]
 * defaults (with '_' for '-').
 */
int nfswb_export_opt_set(struct nfswb_export_opts *o, const char *name,
			 const char *value, char *why, size_t len);
/* The same, but @why holds only the reason, not "name=value: ". */
int nfswb_export_opt_set_reason(struct nfswb_export_opts *o,
				const char *name, const char *value,
				char *why, size_t len);

/*
 * nfswb_export_opts_check - rules between options of one export
 * (min_bandwidth <= max_bandwidth, commit_target >= background_time).
 * Returns 0, or -EINVAL with the reason in @why.
 */
int nfswb_export_opts_check(const struct nfswb_export_opts *o, char *why,
			    size_t len);

/*
 * nfswb_export_opts_merge - fold @from into @into when two exports share
 * one device (one bdi, one state).  The rule, also in nfswb.exports(5):
 *   mode            auto yields to an explicit mode; two different
 *                   explicit modes are an error
 *   background_time the smallest
 *   background_min  the smallest
 *   commit_target   the smallest of those set
 *   bandwidth       a fixed rate wins over estimation; of two different
 *                   fixed rates the smallest
 *   min_bandwidth   the largest
 *   max_bandwidth   the smallest of those set
 *   writers         the union (error beyond NFSWB_MAX_WRITERS)
 * A merged min_bandwidth above the merged max_bandwidth is an error.
 * Returns 0, or -EINVAL with the reason in @why and @into unchanged.
 */
int nfswb_export_opts_merge(struct nfswb_export_opts *into,
			    const struct nfswb_export_opts *from, char *why,
			    size_t len);

/*
 * nfswb_export_merge_notes - after exports @ex[0..@n) on one device were
 * merged into @merged, call @note for every option an export gave
 * explicitly whose value the merge replaced, with a sentence such as
 * "background_time=2s overridden by background_time=500ms of /srv/b
 * (FILE:LINE): exports on one device share one setting", so that the
 * message can be put at the line that set the lost value.  Writers are
 * a union and never overridden.
 */
void nfswb_export_merge_notes(const struct nfswb_export *const *ex, size_t n,
			      const struct nfswb_export_opts *merged,
			      void (*note)(const struct nfswb_export *e,
					   const char *msg, void *arg),
			      void *arg);

/*
 * nfswb_export_opts_equal - whether @a and @b act the same: every value
 * and the writers in order.  Which options were given explicitly (@set)
 * is not compared.
 */
bool nfswb_export_opts_equal(const struct nfswb_export_opts *a,
			     const struct nfswb_export_opts *b);

/*
 * nfswb_export_opts_format - the canonical option list, e.g.
 * "mode=auto,background_time=1s,writers=nfsd:ganesha.nfsd".  Options at
 * their "unset" value (commit_target, the bandwidths) or, for
 * background_min, at its default are left out, so the text parses back
 * to the same options.
 */
void nfswb_export_opts_format(const struct nfswb_export_opts *o, char *buf,
			      size_t len);

/*
 * nfswb_config_parse_buffer - parse one file's text (@len bytes, need not
 * be NUL-terminated).  Every entry starts from @defaults (NULL: the
 * built-in ones), then the file's "-opts" lines.  Appends the exports of
 * good lines to @cfg and every problem to @diag (as "NAME:LINE: reason",
 * LINE being where the entry starts); a line with a problem adds nothing.
 * A path already in @cfg, from this or an earlier file, is an error
 * naming both places; the check is hashed, so a file of n exports costs
 * O(n).  Returns the number of errors added.
 */
int nfswb_config_parse_buffer(const char *name, const char *buf, size_t len,
			      const struct nfswb_export_opts *defaults,
			      struct nfswb_config *cfg, struct nfswb_diag *diag);

/*
 * nfswb_config_load - read @main_file (missing is an error only when
 * @main_required) and then every @dropin_dir/ *.exports not starting with
 * '.', in version order as exportfs(8) reads /etc/exports.d; a missing
 * directory is not an error, and either name may be NULL.  Each file is
 * read with a bound (its st_size is not trusted: /proc files say 0), and
 * must be a regular file or /dev/null (no exports).  Then every exported
 * path that exists must be a directory, and two paths naming one
 * directory (a symlink, a bind mount) are the same export configured
 * twice; a path that does not exist is left for the caller to report.
 * Returns 0 with the exports in @cfg (pass it empty), or -EINVAL when @diag
 * received any error, with @cfg untouched: nothing is partially applied.
 */
int nfswb_config_load(const char *main_file, bool main_required,
		      const char *dropin_dir,
		      const struct nfswb_export_opts *defaults,
		      struct nfswb_config *cfg, struct nfswb_diag *diag);

/* nfswb_config_free - free every export; @cfg is empty again. */
void nfswb_config_free(struct nfswb_config *cfg);

#endif
