// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_device.c - export path -> bdi, on fake sysfs trees and live.
 *
 * The fake tree mirrors what the kernel shows: /proc/self/mountinfo,
 * /sys/dev/block/MAJ:MIN links into /sys/devices, partitions inside their
 * disk's directory with a "partition" attribute, each disk's "bdi" link,
 * /sys/class/bdi, and /sys/fs/btrfs/UUID/{devices/,bdi}.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "device.h"
#include "test.h"

static char root[PATH_MAX];

static const char *at(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* root + formatted suffix, in one of a few rotating buffers. */
static const char *at(const char *fmt, ...)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];
	size_t n = (size_t)snprintf(b, PATH_MAX, "%s", root);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b + n, PATH_MAX - n, fmt, ap);
	va_end(ap);
	return b;
}

static void mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST) {
		fprintf(stderr, "mkdir %s: %s\n", tmp, strerror(errno));
		exit(T_EXIT_FAIL);
	}
}

static void put(const char *path, const char *text)
{
	char dir[PATH_MAX];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdir_p(dir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "write %s: %s\n", path, strerror(errno));
		exit(T_EXIT_FAIL);
	}
}

static void link_to(const char *target, const char *link)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", link);
	*strrchr(dir, '/') = '\0';
	mkdir_p(dir);
	if (symlink(target, link)) {
		fprintf(stderr, "symlink %s: %s\n", link, strerror(errno));
		exit(T_EXIT_FAIL);
	}
}

static const char stat_line[] =
	"1 0 8 0 2 0 16 0 0 4 4 0 0 0 0 0 0\n";

/* A bdi as the kernel registers it: virtual device + class link. */
static void add_bdi(const char *name)
{
	mkdir_p(at("/sys/devices/virtual/bdi/%s", name));
	put(at("/sys/devices/virtual/bdi/%s/max_ratio", name), "100\n");
	link_to(at("/sys/devices/virtual/bdi/%s", name),
		at("/sys/class/bdi/%s", name));
}

/*
 * A whole disk under @parent (a /sys/devices path); @with_bdi_link false
 * models a kernel without the disk's bdi link, where "dev" names the bdi.
 */
static void add_disk(const char *parent, const char *name, const char *devno,
		     bool with_bdi_link)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", at("/sys/devices/%s/block/%s",
					    parent, name));
	mkdir_p(dir);
	put(at("/sys/devices/%s/block/%s/dev", parent, name), devno);
	put(at("/sys/devices/%s/block/%s/stat", parent, name), stat_line);
	add_bdi(devno);
	if (with_bdi_link)
		link_to(at("/sys/devices/virtual/bdi/%s", devno),
			at("/sys/devices/%s/block/%s/bdi", parent, name));
	link_to(dir, at("/sys/block/%s", name));
	link_to(dir, at("/sys/dev/block/%s", devno));
}

static void add_part(const char *parent, const char *disk, const char *name,
		     const char *devno)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", at("/sys/devices/%s/block/%s/%s",
					    parent, disk, name));
	put(at("/sys/devices/%s/block/%s/%s/partition", parent, disk, name),
	    "1\n");
	put(at("/sys/devices/%s/block/%s/%s/dev", parent, disk, name), devno);
	put(at("/sys/devices/%s/block/%s/%s/stat", parent, disk, name),
	    stat_line);
	link_to(dir, at("/sys/dev/block/%s", devno));
}

/* A mounted btrfs: /sys/fs/btrfs/UUID/devices/<member> and its bdi. */
static void add_btrfs(const char *uuid, const char *bdi, const char *member,
		      const char *member_dir_at)
{
	char member_dir[PATH_MAX];

	/* @member_dir_at may be one of at()'s buffers: copy it first. */
	snprintf(member_dir, sizeof(member_dir), "%s", member_dir_at);
	add_bdi(bdi);
	link_to(at("/sys/devices/virtual/bdi/%s", bdi),
		at("/sys/fs/btrfs/%s/bdi", uuid));
	link_to(member_dir, at("/sys/fs/btrfs/%s/devices/%s", uuid, member));
	put(at("/sys/fs/btrfs/%s/label", uuid), "\n");
}

#define PCI	"pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0"
#define PCI2	"pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0"
#define NVME	"pci0000:00/0000:00:04.0/nvme/nvme0"

static void build_tree(void)
{
	add_disk(PCI, "sda", "8:0", true);
	add_part(PCI, "sda", "sda1", "8:1");
	add_disk(PCI2, "sdb", "8:16", true);
	add_part(PCI2, "sdb", "sdb1", "8:17");
	add_part(PCI2, "sdb", "sdb2", "8:18");
	add_disk("pci0000:00/0000:00:05.0/host2/target2:0:0/2:0:0:0", "sdc",
		 "8:32", false);
	add_disk(NVME, "nvme0n1", "259:0", true);
	add_part(NVME, "nvme0n1", "nvme0n1p1", "259:1");
	add_part(NVME, "nvme0n1", "nvme0n1p2", "259:2");
	add_disk("virtual", "dm-0", "254:0", true);
	add_disk("virtual", "dm-1", "254:1", true);
	add_disk("virtual", "md0", "9:0", true);
	add_disk("virtual", "loop3", "7:3", true);
	/* A disk whose bdi is missing from /sys/class/bdi. */
	add_disk("virtual", "zram0", "253:0", true);
	unlink(at("/sys/class/bdi/253:0"));

	add_btrfs("0a1b2c3d-1111-2222-3333-444455556666", "btrfs-1", "sdb2",
		  at("/sys/devices/%s/block/sdb/sdb2", PCI2));
	add_btrfs("9f8e7d6c-aaaa-bbbb-cccc-ddddeeeeffff", "btrfs-2", "dm-1",
		  at("/sys/devices/virtual/block/dm-1"));
	/* /dev/mapper names are links to the dm-N nodes. */
	link_to("../dm-1", at("/dev/mapper/crypt-pool"));
	put(at("/dev/dm-1"), "");

	put(at("/proc/self/mountinfo"),
	    "20 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	    "21 20 259:2 / /srv/nvme rw,relatime shared:2 - xfs /dev/nvme0n1p2 rw,attr2,inode64\n"
	    "22 20 254:0 / /srv/lvm rw,relatime shared:3 - ext4 /dev/mapper/vg-data rw\n"
	    "23 20 9:0 / /srv/md rw,noatime shared:4 - xfs /dev/md0 rw,sunit=1024,swidth=2048\n"
	    "24 20 7:3 / /srv/loop rw,relatime - ext4 /dev/loop3 rw\n"
	    "25 20 0:45 / /srv/btrfs rw,relatime shared:5 - btrfs /dev/sdb2 rw,space_cache=v2,subvolid=5,subvol=/\n"
	    "26 20 0:46 /home /srv/pool rw,relatime shared:6 - btrfs /dev/mapper/crypt-pool rw,subvolid=257,subvol=/home\n"
	    "27 20 0:47 / /srv/lost rw,relatime - btrfs /dev/sdz rw\n"
	    "28 20 0:30 / /srv/tmp rw,nosuid shared:7 - tmpfs tmpfs rw,size=102400k\n"
	    "29 20 0:50 / /srv/overlay rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n"
	    "30 20 0:60 / /srv/nfs rw,relatime - nfs4 server:/export rw,vers=4.2,rsize=1048576\n"
	    "31 20 8:17 / /srv/ntfs rw,relatime - fuseblk /dev/sdb1 rw,user_id=0,group_id=0\n"
	    "32 20 8:48 / /srv/gone rw,relatime - ext4 /dev/sdd rw\n"
	    "33 20 8:32 / /srv/old\\040kernel rw,relatime - ext4 /dev/sdc rw\n"
	    "34 20 253:0 / /srv/zram rw,relatime - ext4 /dev/zram0 rw\n"
	    "35 20 8:1 /data /srv/bind rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	    "garbage line without fields\n");
}

struct device_case {
	const char *path;
	unsigned int maj, min;
	const char *bdi;	/* NULL: an error is expected */
	const char *blockdev;
	const char *fstype;
	const char *err;	/* substring of the error */
};

static const struct device_case cases[] = {
	{ "/srv/data", 8, 1, "8:0", "sda", "ext4", NULL },
	{ "/srv/bind/x", 8, 1, "8:0", "sda", "ext4", NULL },
	{ "/srv/nvme/export", 259, 2, "259:0", "nvme0n1", "xfs", NULL },
	{ "/srv/lvm", 254, 0, "254:0", "dm-0", "ext4", NULL },
	{ "/srv/md/a", 9, 0, "9:0", "md0", "xfs", NULL },
	{ "/srv/loop", 7, 3, "7:3", "loop3", "ext4", NULL },
	{ "/srv/btrfs/vol", 0, 45, "btrfs-1", "sdb", "btrfs", NULL },
	/* A subvolume's own anonymous st_dev is not in mountinfo. */
	{ "/srv/btrfs/subvol/x", 0, 48, "btrfs-1", "sdb", "btrfs", NULL },
	{ "/srv/pool", 0, 46, "btrfs-2", "dm-1", "btrfs", NULL },
	{ "/srv/old kernel/x", 8, 32, "8:32", "sdc", "ext4", NULL },
	{ "/srv/tmp/x", 0, 30, NULL, NULL, NULL,
	  "/srv/tmp/x is on tmpfs, which has no backing device: nothing to write back" },
	{ "/srv/overlay", 0, 50, NULL, NULL, NULL,
	  "/srv/overlay is on overlay, which has no backing device" },
	{ "/srv/nfs/re-export", 0, 60, NULL, NULL, NULL,
	  "/srv/nfs/re-export is on nfs4, which has no backing device" },
	{ "/srv/ntfs", 8, 17, NULL, NULL, NULL,
	  "/srv/ntfs is on fuseblk, which has no backing device" },
	{ "/srv/unmounted", 8, 99, NULL, NULL, NULL,
	  "/srv/unmounted: device 8:99 is not in" },
	{ "/srv/gone", 8, 48, NULL, NULL, NULL,
	  "/srv/gone is on ext4 (device 8:48), which is not a block device" },
	{ "/srv/zram", 253, 0, NULL, NULL, NULL,
	  "/srv/zram is on ext4 (disk zram0), but its bdi 253:0 is not in" },
	{ "/srv/lost", 0, 47, NULL, NULL, NULL,
	  "/srv/lost is on btrfs (/dev/sdz), but no" },
};

static void test_fake_tree(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct device_case *c = &cases[i];
		struct nfswb_device_id id;
		char err[512] = "";
		int ret;

		ret = nfswb_resolve_device_st(root, c->path,
					      makedev(c->maj, c->min), &id,
					      err, sizeof(err));
		if (!c->bdi) {
			T_CHECK(ret < 0 && ret >= -4095, "%s: resolved to %s (%d)",
				c->path, id.bdi, ret);
			T_CHECK(strstr(err, c->err) != NULL,
				"%s: error \"%s\" lacks \"%s\"", c->path, err,
				c->err);
			continue;
		}
		T_CHECK(ret == 0, "%s: %s", c->path, err);
		if (ret)
			continue;
		T_CHECK(strcmp(id.bdi, c->bdi) == 0, "%s: bdi %s, want %s",
			c->path, id.bdi, c->bdi);
		T_CHECK(strcmp(id.blockdev, c->blockdev) == 0,
			"%s: blockdev %s, want %s", c->path, id.blockdev,
			c->blockdev);
		T_CHECK(strcmp(id.fstype, c->fstype) == 0,
			"%s: fstype %s, want %s", c->path, id.fstype,
			c->fstype);
		T_CHECK(strcmp(id.stat_path, at("/sys/block/%s/stat",
						c->blockdev)) == 0,
			"%s: stat_path %s", c->path, id.stat_path);
		T_CHECK(id.st_dev == makedev(c->maj, c->min), "%s: st_dev",
			c->path);
	}

	/* No mountinfo at all: the error names the file. */
	{
		struct nfswb_device_id id;
		char err[512] = "";

		T_CHECK(nfswb_resolve_device_st("/nonexistent-sysroot", "/srv",
						makedev(8, 1), &id, err,
						sizeof(err)) == -ENOENT &&
			strstr(err, "/nonexistent-sysroot/proc/self/mountinfo"),
			"missing mountinfo: \"%s\"", err);
	}
}

/* The machine's own root and /dev/shm. */
static void test_live(void)
{
	struct nfswb_device_id id;
	char err[512] = "", path[PATH_MAX];
	struct statfs sfs;

	if (access("/proc/self/mountinfo", R_OK) ||
	    access("/sys/class/bdi", F_OK)) {
		fprintf(stderr, "live checks skipped: no /proc or /sys\n");
		return;
	}
	if (nfswb_resolve_device("", "/", &id, err, sizeof(err)) == 0) {
		snprintf(path, sizeof(path), "/sys/class/bdi/%s", id.bdi);
		T_CHECK(access(path, F_OK) == 0, "/: bdi %s not in sysfs",
			id.bdi);
		T_CHECK(access(id.stat_path, R_OK) == 0, "/: %s", id.stat_path);
		printf("/ is on %s, disk %s, bdi %s\n", id.fstype, id.blockdev,
		       id.bdi);
	} else {
		/* Containers may have / on overlay: then it must say so. */
		T_CHECK(strstr(err, "no backing device") != NULL, "/: %s", err);
		printf("/: %s\n", err);
	}

	if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == 0x01021994) {
		T_CHECK(nfswb_resolve_device("", "/dev/shm", &id, err,
					     sizeof(err)) == -ENODEV, "/dev/shm");
		T_CHECK(strcmp(err, "/dev/shm is on tmpfs, which has no backing device: nothing to write back") == 0,
			"/dev/shm: \"%s\"", err);
	}

	T_CHECK(nfswb_resolve_device("", "/nonexistent/export", &id, err,
				     sizeof(err)) == -ENOENT &&
		strcmp(err, "/nonexistent/export does not exist") == 0,
		"missing path: \"%s\"", err);
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (root[0] && !getenv("NFSWB_KEEP_TREE")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", root);
	}
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/nfswb-sysroot-XXXXXX",
		 tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		fprintf(stderr, "mkdtemp %s: %s\n", root, strerror(errno));
		return T_EXIT_FAIL;
	}
	atexit(cleanup);
	build_tree();
	test_fake_tree();
	test_live();
	return t_result();
}
