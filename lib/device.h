/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * device.h - from an exported path to the device whose writeback matters.
 *
 * path -> st_dev -> mount (from mountinfo) -> block device -> the bdi
 * name as it appears in /sys/class/bdi and the block device whose
 * /sys/block/.../stat the estimator samples.  A partition maps to its
 * disk's bdi; dm, md, loop and nvme are whole-disk bdis; btrfs is found
 * through /sys/fs/btrfs/UUID/bdi, sampling the stat file of the disk of
 * the mount's source device (for a multi-device btrfs, that one member).
 * Filesystems without a bdi of their own (tmpfs, overlay, an NFS
 * re-export, fuse) are errors naming the path.
 *
 * @sysroot is prepended to every /sys and /proc path ("" on a live
 * system) so that tests build fake trees in a temporary directory.
 */
#ifndef NFSWB_DEVICE_H
#define NFSWB_DEVICE_H

#include <stddef.h>
#include <sys/types.h>

#define NFSWB_BDI_NAME_LEN	64
#define NFSWB_DEV_NAME_LEN	64

struct nfswb_device_id {
	char bdi[NFSWB_BDI_NAME_LEN];		/* "8:0", "btrfs-1" */
	char blockdev[NFSWB_DEV_NAME_LEN];	/* "sda", "dm-0", "loop3" */
	char stat_path[256];			/* .../sys/block/sda/stat */
	char fstype[32];			/* "ext4" */
	dev_t st_dev;
};

/**
 * nfswb_resolve_device - find the bdi and disk behind an exported path.
 * @sysroot: prefix for /proc and /sys paths, "" on a live system
 * @path: the exported path; it is stat()ed on the live system
 * @id: filled in on success
 * @err: on failure, one sentence naming @path and what is missing, e.g.
 *       "/srv/x is on tmpfs, which has no backing device: nothing to
 *       write back" or "/srv/y does not exist"
 * @errlen: size of @err
 *
 * Return: 0, or a negative errno with @err set: -ENOENT (no such path),
 * -ENODEV (no backing device, or none nfswb can reach), -ENOTBLK,
 * -ENAMETOOLONG, or what a failed stat/open said.
 */
int nfswb_resolve_device(const char *sysroot, const char *path,
			 struct nfswb_device_id *id, char *err, size_t errlen);

/**
 * nfswb_resolve_device_st - the same for an st_dev already known.
 * @sysroot: as above
 * @path: names the export in messages and picks the mount among several
 *        of the same device (bind mounts); not stat()ed
 * @dev: the st_dev of @path
 * @id: filled in on success
 * @err: as above
 * @errlen: size of @err
 *
 * For tests on fake trees, and for the daemon when it stat()ed the path
 * itself.
 *
 * Return: as nfswb_resolve_device().
 */
int nfswb_resolve_device_st(const char *sysroot, const char *path, dev_t dev,
			    struct nfswb_device_id *id, char *err,
			    size_t errlen);

#endif
