// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_statedir: what nfswb_statedir_*() accept and refuse - the directory's
 * owner, mode and type, symlinks and FIFOs in it, leftover temporaries,
 * and the size bound of a read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statedir.h"
#include "test.h"

static char tmpdir[] = "/tmp/nfswb-statedir-XXXXXX";
static pid_t main_pid;

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (getpid() != main_pid)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cleanup of %s failed\n", tmpdir);
}

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void test_open(void)
{
	char dir[PATH_MAX], link[PATH_MAX], err[512];
	struct stat st;
	int fd;

	path(dir, sizeof(dir), "a/b/state");
	fd = nfswb_statedir_open(dir, err, sizeof(err));
	T_CHECK(fd >= 0, "create: %s", err);
	T_CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700,
		"created with mode %o", st.st_mode & 07777);
	close(fd);

	chmod(dir, 0770);
	T_CHECK(nfswb_statedir_open(dir, err, sizeof(err)) == -EPERM &&
		strstr(err, "writable by group or others"),
		"group-writable accepted: %s", err);
	chmod(dir, 0755);
	fd = nfswb_statedir_open(dir, err, sizeof(err));
	T_CHECK(fd >= 0, "0755 of ours refused: %s", err);
	close(fd);

	path(link, sizeof(link), "link");
	T_CHECK(symlink(dir, link) == 0, "symlink");
	T_CHECK(nfswb_statedir_open(link, err, sizeof(err)) < 0 &&
		strstr(err, "symlink"), "symlink accepted: %s", err);
	T_CHECK(nfswb_statedir_open("relative/dir", err, sizeof(err)) == -EINVAL &&
		strstr(err, "not an absolute path"), "relative: %s", err);
	if (geteuid() == 0) {
		T_CHECK(chown(dir, 65534, 65534) == 0, "chown");
		T_CHECK(nfswb_statedir_open(dir, err, sizeof(err)) < 0 &&
			strstr(err, "is owned by uid 65534"),
			"foreign owner accepted: %s", err);
		T_CHECK(chown(dir, 0, 0) == 0, "chown back");
	}
}

static void test_files(void)
{
	char dir[PATH_MAX], err[512], *buf;
	size_t len;
	int dfd, fd;

	path(dir, sizeof(dir), "files");
	dfd = nfswb_statedir_open(dir, err, sizeof(err));
	T_CHECK(dfd >= 0, "open: %s", err);

	/* A symlink is never followed, a FIFO never blocks. */
	T_CHECK(symlinkat("/etc/passwd", dfd, "link") == 0, "symlinkat");
	fd = nfswb_statedir_openat(dfd, "link", O_RDONLY, 0);
	T_CHECK(fd == -ELOOP, "symlink opened: %d", fd);
	T_CHECK(mkfifoat(dfd, "fifo", 0600) == 0, "mkfifoat");
	fd = nfswb_statedir_openat(dfd, "fifo", O_RDONLY, 0);
	T_CHECK(fd == -EINVAL, "FIFO opened: %d", fd);

	/* A temporary: a leftover regular file of ours is replaced, a
	 * symlink in its place is refused and left. */
	fd = nfswb_statedir_create_tmp(dfd, "t.tmp", 0600);
	T_CHECK(fd >= 0, "create_tmp: %s", strerror(-fd));
	T_CHECK(write(fd, "old", 3) == 3, "write");
	close(fd);
	fd = nfswb_statedir_create_tmp(dfd, "t.tmp", 0600);
	T_CHECK(fd >= 0, "create_tmp over a leftover: %s", strerror(-fd));
	T_CHECK(lseek(fd, 0, SEEK_END) == 0, "the leftover was replaced by an empty file");
	close(fd);
	T_CHECK(symlinkat("/tmp/nowhere", dfd, "s.tmp") == 0, "symlinkat");
	fd = nfswb_statedir_create_tmp(dfd, "s.tmp", 0600);
	T_CHECK(fd == -EEXIST, "symlink temporary: %d", fd);
	T_CHECK(faccessat(dfd, "s.tmp", F_OK, AT_SYMLINK_NOFOLLOW) == 0,
		"the symlink was removed");

	/* Reads: missing is empty, the bound is exact. */
	T_CHECK(nfswb_statedir_read(dfd, "missing", 10, &buf, &len) == 0 &&
		!buf, "missing file");
	fd = nfswb_statedir_create_tmp(dfd, "ten", 0600);
	T_CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10, "write ten");
	close(fd);
	T_CHECK(nfswb_statedir_read(dfd, "ten", 10, &buf, &len) == 0 &&
		buf && len == 10 && !strcmp(buf, "0123456789"), "ten bytes");
	free(buf);
	fd = nfswb_statedir_read(dfd, "ten", 9, &buf, &len);
	T_CHECK(fd == -EFBIG, "over the bound: %d", fd);
	close(dfd);
}

int main(void)
{
	main_pid = getpid();
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return T_EXIT_FAIL;
	}
	atexit(cleanup);
	test_open();
	test_files();
	return t_result();
}
