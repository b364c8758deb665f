// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_kfile.c - lib/readfile.c's kernel files held open (struct
 * nfswb_kfile): each read from offset 0 of the one fd sees the text as it
 * is now, on a file rewritten in place, /proc/self/stat (minflt after
 * touching fresh pages), /proc/vmstat (pgfault, and the whole file, which
 * is longer than one read of seq_file) and sysfs (lo's rx_packets after
 * sending it datagrams); a read error (the task behind /proc/PID/stat
 * reaped) closes the fd, and only a reopen tries the path again.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bdiattr.h"
#include "procfs.h"
#include "readfile.h"
#include "test.h"

static void rewrite(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");	/* the same inode, truncated */

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(T_EXIT_FAIL);
	}
}

static void test_regular(void)
{
	char path[] = "/tmp/test_kfile.XXXXXX", buf[64], small[4];
	struct nfswb_kfile f = { 0 };
	uint64_t v = 0;
	int fd = mkstemp(path);

	if (fd < 0)
		T_SKIP("no temporary file: %s", strerror(errno));
	close(fd);
	unlink(path);
	T_CHECK(nfswb_kfile_reopen(&f) == -EBADF, "never opened");
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) == -EBADF,
		"never opened: read");
	T_CHECK(nfswb_kfile_open(&f, path) == -ENOENT && !f.open,
		"missing file");
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) == -ENOENT,
		"missing: the open's error");
	rewrite(path, "123456\n");
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) == -ENOENT,
		"only a reopen opens it");
	T_CHECK(nfswb_kfile_reopen(&f) == 0 && f.open, "reopened");
	T_CHECK(nfswb_kfile_read_u64(&f, &v) == 0 && v == 123456, "%" PRIu64,
		v);
	/* Shorter text: nothing of the old one is left after it. */
	rewrite(path, "7\n");
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) == 2 &&
		!strcmp(buf, "7\n"), "'%s'", buf);
	T_CHECK(nfswb_kfile_read_u64(&f, &v) == 0 && v == 7, "%" PRIu64, v);
	T_CHECK(nfswb_kfile_read(&f, small, sizeof(small)) == 2, "fits");
	rewrite(path, "12345\n");
	T_CHECK(nfswb_kfile_read(&f, small, sizeof(small)) == -EFBIG && f.open,
		"too long for the buffer, still open");
	T_CHECK(nfswb_read_text(path, buf, sizeof(buf)) == 6 &&
		!strcmp(buf, "12345\n"), "once: '%s'", buf);
	nfswb_kfile_close(&f);
	T_CHECK(!f.open && !f.path, "closed");
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) == -EBADF,
		"closed: read");
	unlink(path);
}

/*
 * A keyed counter near the start is found in one short read; one past
 * it, or on the line the short read cuts, from the whole text.
 */
static void test_keyed_head(void)
{
	char path[] = "/tmp/test_kfile.XXXXXX", buf[64];
	struct nfswb_kfile f = { 0 };
	uint64_t v = 0;
	int fd = mkstemp(path);
	FILE *out;

	if (fd < 0 || !(out = fdopen(fd, "w")))
		T_SKIP("no temporary file: %s", strerror(errno));
	fprintf(out, "nr_early%20s\n", "7");	/* 29 bytes */
	/* 29 + 93 * 22 = 2075 bytes: the next line starts past 2 KiB. */
	for (int i = 0; i < 93; i++)
		fprintf(out, "nr_filler_%03d 1234567\n", i);
	fputs("nr_late 42\n", out);
	fclose(out);
	T_CHECK(nfswb_kfile_open(&f, path) == 0, "open");
	T_CHECK(nfswb_kfile_keyed_u64(&f, "nr_early", &v) == 0 && v == 7,
		"early: %" PRIu64, v);
	T_CHECK(nfswb_kfile_keyed_u64(&f, "nr_late", &v) == 0 && v == 42,
		"late: %" PRIu64, v);
	/* The head's last byte, 2046, is "nr_filler_091 12|34567". */
	T_CHECK(nfswb_kfile_keyed_u64(&f, "nr_filler_091", &v) == 0 &&
		v == 1234567, "the line the head cuts: %" PRIu64, v);
	T_CHECK(nfswb_kfile_keyed_u64(&f, "nr_none", &v) == -ENOENT, "absent");
	T_CHECK(nfswb_kfile_read_head(&f, buf, sizeof(buf)) == sizeof(buf) - 1 &&
		!strncmp(buf, "nr_early ", 9), "head");
	nfswb_kfile_close(&f);
	unlink(path);
}

/* Field 10 of /proc/PID/stat, after the command in parentheses. */
static uint64_t stat_minflt(const char *text)
{
	const char *p = strrchr(text, ')');
	uint64_t v = 0;

	/* ") S ppid pgrp session tty tpgid flags minflt" */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %" SCNu64,
			 &v) != 1)
		return 0;
	return v;
}

/* Fault in @n fresh pages: minflt and vmstat's pgfault grow by @n. */
static void touch_pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		perror("mmap");
		exit(T_EXIT_FAIL);
	}
	for (size_t i = 0; i < n; i++)
		m[i * page] = 1;
	munmap(m, n * page);
}

static void test_proc_self_stat(void)
{
	struct nfswb_kfile f = { 0 };
	uint64_t before, after;
	char buf[1024];

	T_CHECK(nfswb_kfile_open(&f, "/proc/self/stat") == 0, "open");
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) > 0, "read");
	before = stat_minflt(buf);
	touch_pages(64);
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) > 0, "read again");
	after = stat_minflt(buf);
	T_CHECK(before && after >= before + 64,
		"minflt %" PRIu64 " -> %" PRIu64 " after 64 fresh pages", before,
		after);
	nfswb_kfile_close(&f);
}

static size_t lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void test_vmstat(void)
{
	static char text[65536], fresh[65536];
	struct nfswb_kfile f = { 0 };
	uint64_t before = 0, after = 0;
	size_t n;
	FILE *p;
	int len;

	T_CHECK(nfswb_kfile_open(&f, "/proc/vmstat") == 0, "open");
	T_CHECK(nfswb_kfile_keyed_u64(&f, "pgfault", &before) == 0, "pgfault");
	touch_pages(256);
	T_CHECK(nfswb_kfile_keyed_u64(&f, "pgfault", &after) == 0 &&
		after >= before + 256,
		"pgfault %" PRIu64 " -> %" PRIu64 " after 256 fresh pages",
		before, after);
	/* All of it, as stdio reads it to the end. */
	len = nfswb_kfile_read(&f, text, sizeof(text));
	p = fopen("/proc/vmstat", "re");
	n = p ? fread(fresh, 1, sizeof(fresh) - 1, p) : 0;
	if (p)
		fclose(p);
	fresh[n] = '\0';
	T_CHECK(len > 0 && n > 0 && lines(text) == lines(fresh),
		"%d bytes, %zu lines read; stdio read %zu bytes, %zu lines",
		len, lines(text), n, lines(fresh));
	nfswb_kfile_close(&f);
}

static void test_sysfs(void)
{
	const char *path = "/sys/class/net/lo/statistics/rx_packets";
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct nfswb_kfile f = { 0 };
	uint64_t before = 0, after = 0;
	int rx, tx;

	if (nfswb_kfile_open(&f, path) < 0) {
		fprintf(stderr, "note: no %s: sysfs part skipped\n", path);
		return;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	T_CHECK(rx >= 0 && tx >= 0 &&
		bind(rx, (struct sockaddr *)&a, sizeof(a)) == 0 &&
		getsockname(rx, (struct sockaddr *)&a, &alen) == 0,
		"a socket on 127.0.0.1: %s", strerror(errno));
	T_CHECK(nfswb_kfile_read_u64(&f, &before) == 0, "read");
	for (int i = 0; i < 20; i++)
		sendto(tx, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	T_CHECK(nfswb_kfile_read_u64(&f, &after) == 0 && after >= before + 20,
		"rx_packets %" PRIu64 " -> %" PRIu64 " after 20 datagrams",
		before, after);
	close(rx);
	close(tx);
	nfswb_kfile_close(&f);
}

static void wait_to_be_killed(void)
{
	for (;;)
		pause();
}

/* A file whose reads fail once what it shows is gone, as sysfs's do. */
static void test_gone(void)
{
	struct nfswb_kfile f = { 0 };
	char path[64], buf[1024];
	pid_t pid = t_fork(wait_to_be_killed);
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	T_CHECK(nfswb_kfile_open(&f, path) == 0, "open %s", path);
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) > 0, "read");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ret = nfswb_kfile_read(&f, buf, sizeof(buf));
	T_CHECK(ret < 0 && !f.open, "the task is gone: %d, %s", ret,
		f.open ? "still open" : "closed");
	T_CHECK(nfswb_kfile_read(&f, buf, sizeof(buf)) == ret,
		"closed: the same error, without a new open");
	T_CHECK(nfswb_kfile_reopen(&f) == -ENOENT && !f.open, "reopen");
	nfswb_kfile_close(&f);
}

int main(void)
{
	test_regular();
	test_keyed_head();
	test_proc_self_stat();
	test_vmstat();
	test_sysfs();
	test_gone();
	return t_result();
}
