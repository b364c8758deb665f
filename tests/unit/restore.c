// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * restore: the journal puts every value back, on restore_all, on
 * put_back, and at the next open after the process holding it was killed
 * with SIGKILL at an arbitrary moment (NFSWB_KILL_LOOPS rounds, default 30).
 * Plain files stand in for sysfs attributes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"
#include "restore.h"
#include "test.h"

#define NFILES	6

static char tmpdir[] = "/tmp/nfswb-restore-XXXXXX";
static pid_t main_pid;
static char statedir[PATH_MAX];
static char files[NFILES][PATH_MAX];

/* Originals: what a sysfs file would read, some awkward on purpose. */
static const char *const originals[NFILES] = {
	"0", "4932800512", "1000000", "100 % odd value", "", "tab\there",
};

static void put_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%s\n", content) < 0 || fclose(f)) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
}

static char *get_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

static void reset_files(void)
{
	int i;

	for (i = 0; i < NFILES; i++)
		put_file(files[i], originals[i]);
}

static int count_changed(bool verbose)
{
	char buf[256];
	int i, changed = 0;

	for (i = 0; i < NFILES; i++) {
		if (!get_file(files[i], buf, sizeof(buf)) ||
		    strcmp(buf, originals[i])) {
			if (verbose)
				fprintf(stderr, "  %s is \"%s\", want \"%s\"\n",
					files[i], buf, originals[i]);
			changed++;
		}
	}
	return changed;
}

static void test_set_and_restore_all(void)
{
	struct nfswb_restore *r = t_journal_open(statedir);
	char buf[256];
	int i;

	reset_files();
	for (i = 0; i < NFILES; i++)
		T_CHECK(nfswb_restore_set(r, files[i], "1") == 0, "set %d", i);
	/* A second change keeps the first original. */
	T_CHECK(nfswb_restore_set(r, files[0], "2") == 0, "set again");
	T_CHECK(nfswb_restore_count(r) == NFILES, "count %zu",
		nfswb_restore_count(r));
	T_CHECK(!strcmp(nfswb_restore_original(r, files[0]), originals[0]),
		"original of %s is %s", files[0],
		nfswb_restore_original(r, files[0]));
	T_CHECK(!strcmp(get_file(files[0], buf, sizeof(buf)), "2"),
		"value written: %s", buf);
	T_CHECK(count_changed(false) == NFILES, "all changed");
	T_CHECK(nfswb_restore_all(r) == 0, "restore_all");
	T_CHECK(count_changed(true) == 0, "all restored");
	T_CHECK(nfswb_restore_count(r) == 0, "journal empty");
	nfswb_restore_close(r);
}

static void test_put_back(void)
{
	struct nfswb_restore *r = t_journal_open(statedir);
	char buf[256];

	reset_files();
	T_CHECK(nfswb_restore_set(r, files[1], "7") == 0, "set");
	T_CHECK(nfswb_restore_set(r, files[2], "8") == 0, "set");
	T_CHECK(nfswb_restore_put_back(r, files[1]) == 0, "put_back");
	T_CHECK(!strcmp(get_file(files[1], buf, sizeof(buf)), originals[1]),
		"put back: %s", buf);
	T_CHECK(!strcmp(get_file(files[2], buf, sizeof(buf)), "8"),
		"other untouched: %s", buf);
	T_CHECK(nfswb_restore_put_back(r, "/nonexistent/never-set") == 0,
		"put_back of an unrecorded path is a no-op");
	/* Close without restoring: the next open must restore files[2]. */
	nfswb_restore_close(r);
	r = t_journal_open(statedir);
	T_CHECK(count_changed(true) == 0, "reopen restored what was left");
	nfswb_restore_close(r);
}

static void test_lock(void)
{
	struct nfswb_restore *r = t_journal_open(statedir), *r2 = NULL;
	char err[512] = "";
	pid_t pid;
	int st;

	/* flock is per open file description: try from another process. */
	pid = fork();
	if (pid == 0)
		_exit(nfswb_restore_open(statedir, &r2, err, sizeof(err)) < 0 &&
		      strstr(err, "another nfswbd") ? 0 : 1);
	waitpid(pid, &st, 0);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"second open while locked must fail naming the lock");
	nfswb_restore_close(r);
}

/* The journal's escaping of a space, for records written by hand. */
static const char *esc_space(const char *path, char *buf, size_t size)
{
	size_t o = 0;

	for (; *path && o + 4 < size; path++) {
		if (*path == ' ') {
			memcpy(buf + o, "%20", 3);
			o += 3;
		} else {
			buf[o++] = *path;
		}
	}
	buf[o] = '\0';
	return buf;
}

static void test_torn_and_malformed(void)
{
	char e0[PATH_MAX * 3], e1[PATH_MAX * 3], e2[PATH_MAX * 3];
	char journal[PATH_MAX + 32], line[PATH_MAX * 3 + 64];
	struct nfswb_restore *r;
	FILE *f;

	reset_files();
	put_file(files[0], "changed");
	put_file(files[1], "changed");
	snprintf(journal, sizeof(journal), "%s/%s", statedir,
		 NFSWB_RESTORE_JOURNAL);
	f = fopen(journal, "w");
	if (!f) {
		perror(journal);
		exit(T_EXIT_FAIL);
	}
	fprintf(f, "# comment\n%s 0\nnot-a-record\n%s 4932800512\n",
		esc_space(files[0], e0, sizeof(e0)),
		esc_space(files[1], e1, sizeof(e1)));
	/* A torn append: its change never happened, so must be ignored. */
	snprintf(line, sizeof(line), "%s 99",
		 esc_space(files[2], e2, sizeof(e2)));
	fputs(line, f);
	fclose(f);
	r = t_journal_open(statedir);
	T_CHECK(count_changed(true) == 0, "journal restored, torn line ignored");
	T_CHECK(nfswb_restore_count(r) == 0, "nothing left");
	nfswb_restore_close(r);
}

static void test_gone_file_dropped(void)
{
	char gone[PATH_MAX + 8];
	struct nfswb_restore *r = t_journal_open(statedir);

	snprintf(gone, sizeof(gone), "%s/gone", tmpdir);
	put_file(gone, "5");
	T_CHECK(nfswb_restore_set(r, gone, "6") == 0, "set");
	nfswb_restore_close(r);
	unlink(gone);
	r = t_journal_open(statedir);
	T_CHECK(nfswb_restore_count(r) == 0,
		"a value whose file is gone is dropped, not kept forever");
	nfswb_restore_close(r);
}

/*
 * The child changes values, puts some back and changes them again in a
 * tight loop, so the kill lands anywhere: mid-append, mid-rewrite, between
 * record and write.  Whatever the moment, the next open restores all.
 */
static void child_churn(void)
{
	struct nfswb_restore *r = t_journal_open(statedir);
	char v[32];
	unsigned int k;

	for (k = 0;; k++) {
		snprintf(v, sizeof(v), "churn-%u", k);
		if (nfswb_restore_set(r, files[k % NFILES], v) < 0)
			_exit(3);
		if (k % 5 == 4 &&
		    nfswb_restore_put_back(r, files[(k / 5) % NFILES]) < 0)
			_exit(4);
	}
}

static void test_kill9_loop(void)
{
	const char *env = getenv("NFSWB_KILL_LOOPS");
	int loops = env ? atoi(env) : 30, i, st, bad = 0;
	struct nfswb_restore *r;

	reset_files();
	srand((unsigned int)getpid());
	for (i = 0; i < loops; i++) {
		st = t_fork_and_kill(child_churn, 1, 20);
		T_CHECK(!st, "child ended by itself: status %d", st);
		r = t_journal_open(statedir);
		if (count_changed(true)) {
			fprintf(stderr, "round %d: values not restored\n", i);
			bad++;
		}
		nfswb_restore_close(r);
	}
	T_CHECK(bad == 0, "%d of %d kill -9 rounds left values changed",
		bad, loops);
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (getpid() != main_pid)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", tmpdir);
}

int main(void)
{
	int i;

	main_pid = getpid();
	nfswb_log_init("test-restore", false);
	nfswb_log_set_level(L_WARNING);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return T_EXIT_FAIL;
	}
	atexit(cleanup);
	snprintf(statedir, sizeof(statedir), "%s/state", tmpdir);
	for (i = 0; i < NFILES; i++)
		snprintf(files[i], sizeof(files[i]), "%s/attr %d", tmpdir, i);

	test_set_and_restore_all();
	test_put_back();
	test_lock();
	test_torn_and_malformed();
	test_gone_file_dropped();
	test_kill9_loop();
	return t_result();
}
