/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scratch ext4 filesystem on a loop device for the mechanism tests:
 * truncate + mkfs.ext4 + losetup + mount in a temporary directory, torn
 * down at exit whatever happens.  Tests call loopfs_setup() and skip (77)
 * with its reason when the machine cannot do it (not root, no loop).
 */
#ifndef NFSWB_LOOPFS_H
#define NFSWB_LOOPFS_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test.h"

struct loopfs {
	char dir[PATH_MAX];	/* temporary directory */
	char mnt[PATH_MAX];	/* the filesystem, or "" for no mount */
	char img[PATH_MAX];
	char dev[64];		/* /dev/loopN */
	char bdi[32];		/* "7:N" */
	dev_t st_dev;
	pid_t owner;
};

static struct loopfs *loopfs_current;

static void loopfs_teardown(void)
{
	struct loopfs *l = loopfs_current;
	char cmd[3 * PATH_MAX];

	if (!l || l->owner != getpid())
		return;
	loopfs_current = NULL;
	if (l->mnt[0]) {
		snprintf(cmd, sizeof(cmd),
			 "umount '%s' 2>/dev/null || umount -l '%s'", l->mnt,
			 l->mnt);
		if (system(cmd))
			fprintf(stderr, "cannot unmount %s\n", l->mnt);
	}
	if (l->dev[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d '%s'", l->dev);
		if (system(cmd))
			fprintf(stderr, "cannot detach %s\n", l->dev);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", l->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", l->dir);
}

/*
 * loopfs_setup - a @size_mb image, with ext4 mounted when @mount.
 * Skips the test (exit 77) when the machine cannot, fails it on errors.
 */
static void loopfs_setup(struct loopfs *l, unsigned int size_mb, int mount)
{
	char cmd[3 * PATH_MAX];
	struct stat st;
	FILE *p;

	memset(l, 0, sizeof(*l));
	if (geteuid() != 0)
		T_SKIP("needs root for losetup and mount");
	if (access("/dev/loop-control", W_OK) != 0)
		T_SKIP("no /dev/loop-control: loop devices unavailable");
	strcpy(l->dir, "/var/tmp/nfswb-loopfs-XXXXXX");
	if (!mkdtemp(l->dir)) {
		perror("mkdtemp");
		exit(T_EXIT_FAIL);
	}
	l->owner = getpid();
	loopfs_current = l;
	atexit(loopfs_teardown);
	snprintf(l->img, sizeof(l->img), "%s/img", l->dir);
	snprintf(cmd, sizeof(cmd), "truncate -s %uM '%s'", size_mb, l->img);
	if (system(cmd))
		T_SKIP("cannot create %s", l->img);
	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s'", l->img);
	p = popen(cmd, "r");
	if (!p || !fgets(l->dev, sizeof(l->dev), p)) {
		if (p)
			pclose(p);
		T_SKIP("losetup -f failed: no free loop device");
	}
	pclose(p);
	l->dev[strcspn(l->dev, "\n")] = '\0';
	if (stat(l->dev, &st) < 0 || !S_ISBLK(st.st_mode))
		T_SKIP("%s is not a block device", l->dev);
	snprintf(l->bdi, sizeof(l->bdi), "%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	l->st_dev = st.st_rdev;
	if (!mount)
		return;
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F '%s' >/dev/null 2>&1",
		 l->dev);
	if (system(cmd))
		T_SKIP("mkfs.ext4 failed on %s (e2fsprogs missing?)", l->dev);
	snprintf(l->mnt, sizeof(l->mnt), "%s/mnt", l->dir);
	mkdir(l->mnt, 0755);
	snprintf(cmd, sizeof(cmd), "mount -t ext4 '%s' '%s'", l->dev, l->mnt);
	if (system(cmd)) {
		l->mnt[0] = '\0';
		T_SKIP("cannot mount %s", l->dev);
	}
}

#endif
