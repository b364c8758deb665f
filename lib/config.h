/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.h - the exportfs-style configuration, nfswb.exports(5).
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
#ifndef NFSWB_CONFIG_H
#define NFSWB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum nfswb_mode {
	NFSWB_MODE_AUTO = 0,	/* kernel if the knob exists, else files (+limit) */
	NFSWB_MODE_KERNEL,
	NFSWB_MODE_FILES,
	NFSWB_MODE_LIMIT,
	NFSWB_MODE_OFF,
};

const char *nfswb_mode_name(enum nfswb_mode m);
int nfswb_mode_parse(const char *s, enum nfswb_mode *m);

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
};

struct nfswb_export_opts {
	enum nfswb_mode mode;
	uint64_t background_time_ms;	/* default 1000 */
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
};

/* Built-in defaults: mode=auto, background_time=1s, writers=nfsd:ganesha.nfsd. */
void nfswb_export_opts_default(struct nfswb_export_opts *o);

/*
 * nfswb_config_parse_buffer - parse one file's text.  Appends exports to
 * @cfg and problems to @diag (as "NAME:LINE: reason").  Returns the number
 * of errors added.
 */
int nfswb_config_parse_buffer(const char *name, const char *buf, size_t len,
			      const struct nfswb_export_opts *defaults,
			      struct nfswb_config *cfg, struct nfswb_diag *diag);

/*
 * nfswb_config_load - read @main_file (missing is an error only when
 * @main_required) and every @dropin_dir/ *.exports in name order.  A path
 * configured twice is an error naming both places.  On any error @cfg is
 * left empty and the return value is -1.
 */
int nfswb_config_load(const char *main_file, bool main_required,
		      const char *dropin_dir,
		      const struct nfswb_export_opts *defaults,
		      struct nfswb_config *cfg, struct nfswb_diag *diag);

void nfswb_config_free(struct nfswb_config *cfg);

#endif
