/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bdiattr.h - the per-bdi sysfs attributes the mechanisms read and write,
 * /sys/class/bdi/BDI/ATTR below a sysroot ("" on a live system).
 */
#ifndef NFSWB_BDIATTR_H
#define NFSWB_BDIATTR_H

#include <stddef.h>
#include <stdint.h>

#include "readfile.h"

/**
 * nfswb_bdi_attr_path - format SYSROOT/sys/class/bdi/BDI/ATTR into @buf.
 * @buf: destination.
 * @len: size of @buf.
 * @sysroot: "" or a fake root for tests.
 * @bdi: bdi name, e.g. "8:0".
 * @attr: attribute file name.
 *
 * Return: 0, or -ENAMETOOLONG if it does not fit.
 */
int nfswb_bdi_attr_path(char *buf, size_t len, const char *sysroot,
			const char *bdi, const char *attr);

/**
 * nfswb_kfile_read_u64 - read one unsigned decimal number from a sysfs
 * file held open.
 * @f: opened with nfswb_kfile_open()
 * @v: the value.
 *
 * Return: 0, a negative errno (-EINVAL if it is not a number), or
 * nfswb_kfile_read()'s error.
 */
int nfswb_kfile_read_u64(struct nfswb_kfile *f, uint64_t *v);

/**
 * nfswb_any_bdi_has - does some bdi under @sysroot have @attr?
 * @sysroot: "" or a fake root.
 * @attr: attribute file name.
 *
 * For probes, which ask what the kernel can do before any device is
 * known.  Return: 1 yes, 0 no (or no bdi at all).
 */
int nfswb_any_bdi_has(const char *sysroot, const char *attr);

#endif
