// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_device_loop.c - device resolution on real loop-backed mounts.
 *
 * ext4 on /dev/loopN must resolve to bdi 7:N; ext4 on a partition
 * loopNp1 (major 259) to its disk's bdi 7:N; btrfs on loopN, and a
 * subvolume in it, to the filesystem's btrfs-K bdi with loopN's stat file.
 * Needs root, loop devices, mkfs.ext4, sfdisk, partx and mkfs.btrfs; a case
 * that cannot run makes the test skip (77), never pass.
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"
#include "test.h"

static char dir[64];
static char loops[3][64];	/* attached loop devices, to detach */
static char mounts[3][128];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
	char cmd[2 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static bool have(const char *tool)
{
	return run("command -v %s >/dev/null 2>&1", tool) == 0;
}

/* A sparse image of @mib MiB, attached; its /dev/loopN in @dev. */
static int attach(int slot, const char *name, int mib, bool partscan,
		  const char *sfdisk_script)
{
	char img[128], cmd[256];
	FILE *p;
	int fd;

	snprintf(img, sizeof(img), "%s/%s.img", dir, name);
	fd = open(img, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)mib << 20)) {
		fprintf(stderr, "%s: %s\n", img, strerror(errno));
		return -1;
	}
	close(fd);
	if (sfdisk_script &&
	    run("printf '%s' | sfdisk -q '%s' >/dev/null 2>&1", sfdisk_script,
		img))
		return -1;
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s'%s' 2>/dev/null",
		 partscan ? "-P " : "", img);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(loops[slot], sizeof(loops[slot]), p)) {
		pclose(p);
		loops[slot][0] = '\0';
		return -1;
	}
	pclose(p);
	loops[slot][strcspn(loops[slot], "\n")] = '\0';
	return 0;
}

static int mount_fs(int slot, const char *fstype, const char *dev)
{
	snprintf(mounts[slot], sizeof(mounts[slot]), "%s/mnt%d", dir, slot);
	if (mkdir(mounts[slot], 0755))
		return -1;
	if (run("mkfs.%s -q %s '%s' >/dev/null 2>&1", fstype,
		strcmp(fstype, "ext4") == 0 ? "-F" : "-f", dev))
		return -1;
	if (mount(dev, mounts[slot], fstype, 0, NULL)) {
		fprintf(stderr, "mount %s: %s\n", dev, strerror(errno));
		return -1;
	}
	return 0;
}

static void expect(const char *path, const char *bdi, const char *blockdev,
		   const char *fstype)
{
	struct nfswb_device_id id;
	char err[512] = "";

	if (nfswb_resolve_device("", path, &id, err, sizeof(err))) {
		T_CHECK(0, "%s: %s", path, err);
		return;
	}
	T_CHECK(strcmp(id.bdi, bdi) == 0, "%s: bdi %s, want %s", path, id.bdi,
		bdi);
	T_CHECK(strcmp(id.blockdev, blockdev) == 0, "%s: blockdev %s, want %s",
		path, id.blockdev, blockdev);
	T_CHECK(strcmp(id.fstype, fstype) == 0, "%s: fstype %s", path,
		id.fstype);
	T_CHECK(access(id.stat_path, R_OK) == 0, "%s: %s", path, id.stat_path);
	printf("%-40s %-6s on %-6s -> bdi %-8s stat %s\n", path, fstype,
	       blockdev, id.bdi, id.stat_path);
}

/* "7:3" for /dev/loop3. */
static void devno_of(const char *dev, char *buf, size_t len)
{
	struct stat st;

	if (stat(dev, &st) == 0)
		snprintf(buf, len, "%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
	else
		snprintf(buf, len, "?");
}

/*
 * Without udev (containers) the partition's node never appears: make one
 * in the test directory from /sys/class/block/loopNp1/dev.
 */
static void make_node(char *part, size_t len)
{
	char sysdev[128], line[32];
	unsigned int maj, min;
	FILE *f;

	snprintf(sysdev, sizeof(sysdev), "/sys/class/block/%s/dev",
		 strrchr(part, '/') + 1);
	f = fopen(sysdev, "re");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) &&
	    sscanf(line, "%u:%u", &maj, &min) == 2) {
		snprintf(part, len, "%s/part1", dir);
		if (mknod(part, S_IFBLK | 0600, makedev(maj, min)))
			fprintf(stderr, "mknod %s: %s\n", part,
				strerror(errno));
	}
	fclose(f);
}

/*
 * @disk's first partition in @part.  The kernel reads the table itself
 * only with a parser for it built in (this host has neither the msdos nor
 * the EFI one); partx(8) adds the partition with BLKPG whatever the
 * kernel parses.
 */
static int find_partition(const char *disk, char *part, size_t len)
{
	snprintf(part, len, "%sp1", disk);
	for (int i = 0; i < 50 && access(part, F_OK); i++)
		usleep(20000);	/* udev may create the node late */
	if (access(part, F_OK) && have("partx") &&
	    run("partx -a '%s' >/dev/null 2>&1", disk) == 0)
		for (int i = 0; i < 50 && access(part, F_OK); i++)
			usleep(20000);
	if (access(part, F_OK))
		make_node(part, len);
	return access(part, F_OK) ? -1 : 0;
}

static void cleanup(void)
{
	for (int i = 2; i >= 0; i--) {
		if (mounts[i][0])
			umount2(mounts[i], MNT_DETACH);
		if (loops[i][0])
			run("losetup -d '%s' 2>/dev/null", loops[i]);
	}
	if (dir[0])
		run("rm -rf '%s'", dir);
}

int main(void)
{
	const char *skipped = NULL;	/* why a case could not run */
	char devno[32], part[80];

	if (geteuid() != 0)
		T_SKIP("needs root to attach loop devices and mount them");
	if (!have("losetup") || !have("mkfs.ext4"))
		T_SKIP("needs losetup and mkfs.ext4 (util-linux, e2fsprogs)");

	snprintf(dir, sizeof(dir), "/tmp/nfswb-loop-XXXXXX");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return T_EXIT_FAIL;
	}
	atexit(cleanup);

	/* ext4 on a whole loop device. */
	if (attach(0, "ext4", 64, false, NULL))
		T_SKIP("cannot attach a loop device here");
	if (mount_fs(0, "ext4", loops[0]))
		T_SKIP("cannot mount ext4 on %s here", loops[0]);
	devno_of(loops[0], devno, sizeof(devno));
	expect(mounts[0], devno, strrchr(loops[0], '/') + 1, "ext4");

	/* ext4 on a partition: the disk's bdi, the disk's stat. */
	if (!have("sfdisk"))
		skipped = "no sfdisk (fdisk) to make a partition table";
	else if (attach(1, "part", 64, true, "label: dos\\n,32M\\n"))
		skipped = "cannot attach a partitioned loop device";
	else if (find_partition(loops[1], part, sizeof(part)))
		skipped = "no partition on the loop device (no partx?)";
	else if (mount_fs(1, "ext4", part))
		skipped = "cannot mount ext4 on the partition";
	else {
		devno_of(loops[1], devno, sizeof(devno));
		expect(mounts[1], devno, strrchr(loops[1], '/') + 1, "ext4");
	}

	/* btrfs: its own btrfs-N bdi. */
	if (have("mkfs.btrfs") && attach(2, "btrfs", 128, false, NULL) == 0 &&
	    mount_fs(2, "btrfs", loops[2]) == 0) {
		struct nfswb_device_id id;
		char err[512];

		T_CHECK(nfswb_resolve_device("", mounts[2], &id, err,
					     sizeof(err)) == 0, "btrfs: %s",
			err);
		T_CHECK(strncmp(id.bdi, "btrfs-", 6) == 0, "btrfs bdi %s",
			id.bdi);
		expect(mounts[2], id.bdi, strrchr(loops[2], '/') + 1, "btrfs");

		/* A subvolume has an st_dev of its own, not in mountinfo. */
		if (have("btrfs") &&
		    run("btrfs -q subvolume create '%s/sub' >/dev/null 2>&1",
			mounts[2]) == 0) {
			char sub[192];
			struct stat a, b;

			snprintf(sub, sizeof(sub), "%s/sub", mounts[2]);
			T_CHECK(stat(sub, &a) == 0 && stat(mounts[2], &b) == 0 &&
				a.st_dev != b.st_dev,
				"the subvolume shares its parent's st_dev");
			expect(sub, id.bdi, strrchr(loops[2], '/') + 1,
			       "btrfs");
		}
	} else {
		skipped = "no btrfs here (mkfs.btrfs, or its mount, failed)";
	}
	/* A case that could not run leaves the test unproven: skip, not pass. */
	if (t_result() == T_EXIT_PASS && skipped)
		T_SKIP("%s", skipped);
	return t_result();
}
