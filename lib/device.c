// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * device.c - from an exported path to its bdi and block device.
 *
 *   stat(path).st_dev -> the mount in /proc/self/mountinfo (fstype, source)
 *   -> /sys/dev/block/MAJ:MIN (a partition's parent is its disk)
 *   -> the disk's "bdi" link, named as in /sys/class/bdi ("8:0").
 * btrfs gives its files an anonymous st_dev (0:N): the mount's source
 * device names the filesystem whose /sys/fs/btrfs/UUID/devices/ lists it,
 * and that directory's "bdi" link names the bdi ("btrfs-1").
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"
#include "procfs.h"

struct mount_entry {
	char mnt_point[PATH_MAX];
	char fstype[32];
	char source[PATH_MAX];
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* snprintf that reports truncation as failure. */
static bool fmt_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fmt_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

static bool copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

/* Is @mnt the mount point of @path or one of its ancestors? */
static size_t prefix_len(const char *mnt, const char *path)
{
	size_t n = strlen(mnt);

	if (!path)
		return 0;
	if (strcmp(mnt, "/") == 0)
		return 1;
	if (strncmp(mnt, path, n) == 0 && (path[n] == '/' || !path[n]))
		return n;
	return 0;
}

/*
 * Parse one mountinfo line (proc(5)):
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw
 * Fills @m; returns 1 when the line is for @maj:@min, 0 when it is for
 * another device, -EINVAL when malformed.
 */
static int parse_mountinfo_line(char *line, unsigned int maj, unsigned int min,
				struct mount_entry *m)
{
	char *save = NULL, *tok, *mnt = NULL, *fstype = NULL, *source = NULL;
	unsigned int lmaj, lmin;
	int field = 0, match = 0;
	bool after_sep = false;

	for (tok = strtok_r(line, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save), field++) {
		if (field == 2) {
			if (sscanf(tok, "%u:%u", &lmaj, &lmin) != 2)
				return -EINVAL;
			match = lmaj == maj && lmin == min;
		} else if (field == 4) {
			mnt = tok;
		} else if (field > 5 && !after_sep && strcmp(tok, "-") == 0) {
			after_sep = true;
			field = 100;
		} else if (field == 101) {
			fstype = tok;
		} else if (field == 102) {
			source = tok;
		}
	}
	if (!mnt || !fstype || !source)
		return -EINVAL;
	/* mountinfo escapes space, tab, newline and backslash. */
	nfswb_unescape_octal(mnt);
	nfswb_unescape_octal(source);
	if (!copy_str(m->mnt_point, sizeof(m->mnt_point), mnt) ||
	    !copy_str(m->source, sizeof(m->source), source))
		return -EINVAL;
	/* Filesystem type names are short; a long one is cut, not fatal. */
	snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
	return match;
}

/*
 * The mount of @maj:@min that holds @canon: of several (bind mounts,
 * stacked mounts) the one with the longest mount point that is an
 * ancestor of @canon, else the last one listed.
 *
 * btrfs gives each subvolume its own anonymous st_dev, while mountinfo
 * shows the superblock's: when no line has @maj:@min, the deepest mount
 * above @canon is taken if, and only if, it is a btrfs.
 */
static int find_mount(const char *sysroot, const char *path,
		      const char *canon, unsigned int maj, unsigned int min,
		      struct mount_entry *out, char *err, size_t errlen)
{
	char file[PATH_MAX], line[3 * PATH_MAX];
	struct mount_entry m, above;
	size_t best = 0, best_above = 0;
	bool found = false;
	FILE *f;

	if (!fmt_path(file, sizeof(file), "%s/proc/self/mountinfo", sysroot)) {
		set_err(err, errlen, "%s: sysroot path too long", sysroot);
		return -ENAMETOOLONG;
	}
	f = fopen(file, "re");
	if (!f) {
		int e = errno;

		set_err(err, errlen, "%s: %s", file, strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len;
		int r = parse_mountinfo_line(line, maj, min, &m);

		if (r < 0)
			continue;
		len = prefix_len(m.mnt_point, canon);
		if (len && len >= best_above) {
			above = m;
			best_above = len;
		}
		if (r == 1 && (!found || len >= best)) {
			*out = m;
			best = len;
			found = true;
		}
	}
	if (!found && best_above && strcmp(above.fstype, "btrfs") == 0) {
		*out = above;
		found = true;
	}
	fclose(f);
	if (!found) {
		set_err(err, errlen, "%s: device %u:%u is not in %s", path, maj,
			min, file);
		return -ENODEV;
	}
	return 0;
}

/*
 * Copy the last component of @full ("/a/b/sda" -> "sda") into @name.
 * The helpers below return 0 or a negative errno, as the lib does.
 */
static int last_component(const char *full, char *name, size_t len)
{
	const char *base = strrchr(full, '/');

	base = base ? base + 1 : full;
	if (!*base || !copy_str(name, len, base))
		return -ENAMETOOLONG;
	return 0;
}

/* The last component of a symlink's target, e.g. "sda1". */
static int link_basename(const char *link, char *name, size_t len)
{
	char target[PATH_MAX];
	ssize_t n;

	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	return last_component(target, name, len);
}

/* The last component of @dir after resolving every link, e.g. "sda". */
static int dir_basename(const char *dir, char *name, size_t len)
{
	char real[PATH_MAX];

	if (!realpath(dir, real))
		return -errno;
	return last_component(real, name, len);
}

static bool exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	return fmt_path(p, sizeof(p), "%s/%s", dir, name) &&
	       access(p, F_OK) == 0;
}

static int read_line(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "re");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/*
 * @blk is a sysfs block device directory (or a link to one).  Fill in the
 * whole disk's name, its bdi and its stat file.  A partition (it has a
 * "partition" attribute) lives in its disk's directory.
 */
static int disk_of_blockdir(const char *sysroot, const char *path,
			    const char *blk, struct nfswb_device_id *id,
			    char *err, size_t errlen)
{
	char disk_dir[PATH_MAX], file[PATH_MAX], bdi[NFSWB_BDI_NAME_LEN];
	int ret;

	if (exists(blk, "partition")) {
		if (!fmt_path(disk_dir, sizeof(disk_dir), "%s/..", blk))
			goto too_long;
	} else if (!copy_str(disk_dir, sizeof(disk_dir), blk)) {
		goto too_long;
	}

	/* The disk's name: the last component of its real directory. */
	ret = dir_basename(disk_dir, id->blockdev, sizeof(id->blockdev));
	if (ret < 0) {
		set_err(err, errlen, "%s: %s: %s", path, disk_dir,
			strerror(-ret));
		return ret;
	}

	/*
	 * The bdi: the disk's "bdi" link (block/genhd.c), else its "dev"
	 * attribute, which is what the bdi of a disk is named after.
	 */
	if (!fmt_path(file, sizeof(file), "%s/bdi", disk_dir))
		goto too_long;
	if (link_basename(file, bdi, sizeof(bdi)) < 0) {
		if (!fmt_path(file, sizeof(file), "%s/dev", disk_dir))
			goto too_long;
		if (read_line(file, bdi, sizeof(bdi)) < 0) {
			set_err(err, errlen,
				"%s is on %s, whose disk %s has neither a bdi link nor a dev attribute in %s",
				path, id->fstype, id->blockdev, disk_dir);
			return -ENODEV;
		}
	}
	if (!fmt_path(file, sizeof(file), "%s/sys/class/bdi/%s", sysroot, bdi))
		goto too_long;
	if (access(file, F_OK)) {
		set_err(err, errlen,
			"%s is on %s (disk %s), but its bdi %s is not in %s/sys/class/bdi",
			path, id->fstype, id->blockdev, bdi, sysroot);
		return -ENODEV;
	}
	memcpy(id->bdi, bdi, sizeof(bdi));

	if (!fmt_path(id->stat_path, sizeof(id->stat_path),
		      "%s/sys/block/%s/stat", sysroot, id->blockdev))
		goto too_long;
	if (access(id->stat_path, R_OK)) {
		ret = -errno;
		set_err(err, errlen, "%s is on disk %s, but %s is not readable: %s",
			path, id->blockdev, id->stat_path, strerror(-ret));
		return ret;
	}
	return 0;

too_long:
	set_err(err, errlen, "%s: a sysfs path for its device is too long",
		path);
	return -ENAMETOOLONG;
}

/*
 * btrfs: the mount's source device is a member of exactly one mounted
 * filesystem, the one with /sys/fs/btrfs/UUID/devices/<member>.
 */
static int resolve_btrfs(const char *sysroot, const char *path,
			 const struct mount_entry *m, struct nfswb_device_id *id,
			 char *err, size_t errlen)
{
	char fsdir[PATH_MAX], dev[PATH_MAX], member[PATH_MAX];
	char bdi[NFSWB_BDI_NAME_LEN], name[NAME_MAX + 1];
	struct dirent *de;
	DIR *d;
	int ret = -ENODEV;

	/* /dev/mapper/vg-lv is a link to ../dm-3; sysfs knows "dm-3". */
	if (!fmt_path(dev, sizeof(dev), "%s%s", sysroot, m->source) ||
	    dir_basename(dev, name, sizeof(name)) < 0) {
		const char *base = strrchr(m->source, '/');

		if (!copy_str(name, sizeof(name), base ? base + 1 : m->source))
			goto too_long;
	}

	if (!fmt_path(fsdir, sizeof(fsdir), "%s/sys/fs/btrfs", sysroot))
		goto too_long;
	d = opendir(fsdir);
	if (!d) {
		ret = -errno;
		set_err(err, errlen, "%s is on btrfs (%s), but %s: %s", path,
			m->source, fsdir, strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!fmt_path(member, sizeof(member), "%s/%s/devices/%s",
			      fsdir, de->d_name, name) ||
		    access(member, F_OK))
			continue;
		if (!fmt_path(dev, sizeof(dev), "%s/%s/bdi", fsdir,
			      de->d_name) ||
		    link_basename(dev, bdi, sizeof(bdi)) < 0) {
			set_err(err, errlen,
				"%s is on btrfs %s, which has no bdi link in %s/%s",
				path, de->d_name, fsdir, de->d_name);
			goto out;
		}
		/* Sample the member device's disk, as for any block fs. */
		ret = disk_of_blockdir(sysroot, path, member, id, err, errlen);
		if (!ret)
			memcpy(id->bdi, bdi, sizeof(bdi));
		goto out;
	}
	set_err(err, errlen,
		"%s is on btrfs (%s), but no %s/*/devices/%s exists", path,
		m->source, fsdir, name);
out:
	closedir(d);
	return ret;

too_long:
	set_err(err, errlen, "%s: a sysfs path for its device is too long",
		path);
	return -ENAMETOOLONG;
}

/*
 * @path names the export in messages; @canon (its canonical form) picks
 * the mount among several of the same device.
 */
static int resolve(const char *sysroot, const char *path, const char *canon,
		   dev_t dev, struct nfswb_device_id *id, char *err,
		   size_t errlen)
{
	unsigned int maj = major(dev), min = minor(dev);
	char blk[PATH_MAX];
	struct mount_entry m;
	int ret;

	if (!sysroot)
		sysroot = "";
	memset(id, 0, sizeof(*id));
	id->st_dev = dev;
	ret = find_mount(sysroot, path, canon, maj, min, &m, err, errlen);
	if (ret < 0)
		return ret;
	snprintf(id->fstype, sizeof(id->fstype), "%s", m.fstype);

	if (strcmp(m.fstype, "btrfs") == 0)
		return resolve_btrfs(sysroot, path, &m, id, err, errlen);

	/*
	 * Anonymous devices (major 0) have no block device: tmpfs, overlay,
	 * nfs, proc...  fuse and fuseblk write back through a bdi of fuse's
	 * own, not the block device's, so nothing nfswb does would reach it.
	 */
	if (maj == 0 || strncmp(m.fstype, "fuse", 4) == 0) {
		set_err(err, errlen,
			"%s is on %s, which has no backing device: nothing to write back",
			path, m.fstype);
		return -ENODEV;
	}

	if (!fmt_path(blk, sizeof(blk), "%s/sys/dev/block/%u:%u", sysroot,
		      maj, min)) {
		set_err(err, errlen, "%s: sysroot path too long", path);
		return -ENAMETOOLONG;
	}
	if (access(blk, F_OK)) {
		set_err(err, errlen,
			"%s is on %s (device %u:%u), which is not a block device: no %s",
			path, m.fstype, maj, min, blk);
		return -ENOTBLK;
	}
	return disk_of_blockdir(sysroot, path, blk, id, err, errlen);
}

int nfswb_resolve_device_st(const char *sysroot, const char *path, dev_t dev,
			    struct nfswb_device_id *id, char *err,
			    size_t errlen)
{
	return resolve(sysroot, path, path, dev, id, err, errlen);
}

int nfswb_resolve_device(const char *sysroot, const char *path,
			 struct nfswb_device_id *id, char *err, size_t errlen)
{
	char canon[PATH_MAX];
	struct stat st;

	if (stat(path, &st) < 0) {
		int e = errno;

		if (e == ENOENT)
			set_err(err, errlen, "%s does not exist", path);
		else
			set_err(err, errlen, "cannot stat %s: %s", path,
				strerror(e));
		return -e;
	}
	if (!realpath(path, canon))
		snprintf(canon, sizeof(canon), "%s", path);
	return resolve(sysroot, path, canon, st.st_dev, id, err, errlen);
}
