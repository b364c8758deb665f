/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mechdev.h - a struct nfswb_mech_dev as nfswbd sets one up, for the
 * mechanism tests: one device (@bdi), default options, @r's journal.
 */
#ifndef NFSWB_TEST_MECHDEV_H
#define NFSWB_TEST_MECHDEV_H

#include <stdio.h>
#include <string.h>

#include "mech.h"

static inline void t_mech_dev_init(struct nfswb_mech_dev *d,
				   struct nfswb_device_id *id,
				   struct nfswb_restore *r, const char *sysroot,
				   const char *bdi)
{
	memset(d, 0, sizeof(*d));
	memset(id, 0, sizeof(*id));
	snprintf(id->bdi, sizeof(id->bdi), "%s", bdi);
	d->id = id;
	d->sysroot = sysroot;
	d->restore = r;
	nfswb_export_opts_default(&d->opts);
}

#endif
