// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_restore: the journal puts every value back, on restore_all, on
 * put_back, and at the next open after the process holding it was killed
 * with SIGKILL at an arbitrary moment (NFSWB_KILL_LOOPS rounds, default 30);
 * it names nothing but the bdi attributes nfswbd changes, leaves a value
 * someone changed after nfswbd, and locks each device against a second
 * journal.  Plain files under a fake sysroot stand in for sysfs.
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

/* Originals: what the sysfs files would read. */
static const char *const originals[NFILES] = {
	"0", "1000000", "4932800512", "3", "18446744073709551615", "15",
};
static const char *const attrs[3] = {
	"strict_limit", "max_ratio_fine", "dirty_background_time",
};

static void put_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%s\n", content) < 0 || fclose(f)) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
}

static void mkdirs(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	if (system(cmd)) {
		fprintf(stderr, "%s failed\n", cmd);
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
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir);
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
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir);
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
	r = t_journal_open_root(statedir, tmpdir);
	T_CHECK(count_changed(true) == 0, "reopen restored what was left");
	nfswb_restore_close(r);
}

static void test_lock(void)
{
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir), *r2 = NULL;
	char err[512] = "";
	pid_t pid;
	int st;

	/* flock is per open file description: try from another process. */
	pid = fork();
	if (pid == 0)
		_exit(nfswb_restore_open(open(statedir, O_RDONLY), statedir,
					 tmpdir, &r2, err, sizeof(err)) < 0 &&
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
	fprintf(f, "# comment\n%s 0\nnot-a-record\n%s 1000000\n",
		esc_space(files[0], e0, sizeof(e0)),
		esc_space(files[1], e1, sizeof(e1)));
	/* A torn append: its change never happened, so must be ignored. */
	snprintf(line, sizeof(line), "%s 99",
		 esc_space(files[2], e2, sizeof(e2)));
	fputs(line, f);
	fclose(f);
	r = t_journal_open_root(statedir, tmpdir);
	T_CHECK(count_changed(true) == 0, "journal restored, torn line ignored");
	T_CHECK(nfswb_restore_count(r) == 0, "nothing left");
	nfswb_restore_close(r);
}

static void test_gone_file_dropped(void)
{
	char gone[PATH_MAX + 8];
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir);

	snprintf(gone, sizeof(gone), "%s/sys/class/bdi/7:9", tmpdir);
	mkdir(gone, 0755);
	strcat(gone, "/strict_limit");
	put_file(gone, "5");
	T_CHECK(nfswb_restore_set(r, gone, "6") == 0, "set");
	nfswb_restore_close(r);
	unlink(gone);
	r = t_journal_open_root(statedir, tmpdir);
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
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir);
	char v[32];
	unsigned int k;

	for (k = 0;; k++) {
		snprintf(v, sizeof(v), "%u", 100 + k);
		if (nfswb_restore_set(r, files[k % NFILES], v) < 0)
			_exit(3);
		if (k % 5 == 4 &&
		    nfswb_restore_put_back(r, files[(k / 5) % NFILES]) < 0)
			_exit(4);
	}
}

/* Whether a fake attribute was left empty by a kill mid-write. */
static bool torn_file(void)
{
	char buf[256];
	int i;

	for (i = 0; i < NFILES; i++)
		if (get_file(files[i], buf, sizeof(buf)) && !buf[0])
			return true;
	return false;
}

static void test_kill9_loop(void)
{
	const char *env = getenv("NFSWB_KILL_LOOPS");
	int loops = env ? atoi(env) : 30, i, st, bad = 0, torn = 0;
	struct nfswb_restore *r;

	reset_files();
	srand((unsigned int)getpid());
	for (i = 0; i < loops; i++) {
		st = t_fork_and_kill(child_churn, 1, 20);
		T_CHECK(!st, "child ended by itself: status %d", st);
		/* The fake attributes are plain files: a kill between the
		 * O_TRUNC and the write leaves one empty, which a sysfs
		 * store (one call, all or nothing) cannot.  Such a round
		 * tests the fake, not the journal: count it apart and
		 * start the next from clean files. */
		if (torn_file()) {
			fprintf(stderr, "round %d: torn write in the fake sysfs, not counted\n", i);
			torn++;
			reset_files();
			continue;
		}
		r = t_journal_open_root(statedir, tmpdir);
		if (count_changed(true)) {
			fprintf(stderr, "round %d: values not restored\n", i);
			bad++;
		}
		nfswb_restore_close(r);
	}
	T_CHECK(bad == 0, "%d of %d kill -9 rounds left values changed",
		bad, loops);
	T_CHECK(torn <= loops / 2, "%d of %d rounds torn: too few tested",
		torn, loops);
}

/* ---- what the journal may name, and how its records merge ---- */

struct parsed_rec {
	char text[512];
	unsigned int n, skipped;
};

static int collect(void *arg, unsigned int line, const char *path,
		   const char *original, const char *set)
{
	struct parsed_rec *p = arg;
	size_t len = strlen(p->text);

	snprintf(p->text + len, sizeof(p->text) - len, "%u:%s=%s/%s;", line,
		 path, original, set ? set : "?");
	p->n++;
	return 0;
}

static void count_skip(void *arg, unsigned int line, const char *why,
		       bool torn)
{
	struct parsed_rec *p = arg;

	(void)line;
	(void)why;
	(void)torn;
	p->skipped++;
}

static void test_parse(void)
{
	static const struct {
		const char *in, *want;
		unsigned int skipped;
	} cases[] = {
		/* First original, last set value, order of first appearance. */
		{ "/sys/class/bdi/7:0/strict_limit 0\n"
		  "/sys/class/bdi/8:0/max_ratio_fine 100\n"
		  "/sys/class/bdi/7:0/strict_limit 0 1\n"
		  "/sys/class/bdi/8:0/max_ratio_fine 5 7\n",
		  "1:/sys/class/bdi/7:0/strict_limit=0/1;"
		  "2:/sys/class/bdi/8:0/max_ratio_fine=100/7;", 0 },
		/* A last record without SET: the last change is unconfirmed. */
		{ "/sys/class/bdi/7:0/strict_limit 0 1\n"
		  "/sys/class/bdi/7:0/strict_limit 0\n",
		  "1:/sys/class/bdi/7:0/strict_limit=0/?;", 0 },
		{ "/sys/class/bdi/btrfs-1/dirty_background_time 0 1000\n",
		  "1:/sys/class/bdi/btrfs-1/dirty_background_time=0/1000;", 0 },
		/* Anything else is skipped, line by line. */
		{ "/proc/sys/kernel/core_pattern |/tmp/evil%20%25p\n"
		  "/tmp/victim X\n"
		  "/sys/class/bdi/7:0/read_ahead_kb 4096\n"
		  "/sys/class/bdi/7:0/max_bytes 4096\n"
		  "/sys/class/bdi/7:0/../../../../etc/shadow 1\n"
		  "/sys/class/bdi/../strict_limit 1\n"
		  "/sys/class/bdi/7:0:1/strict_limit 1\n"
		  "/sys/class/bdi/7:0/strict_limit -1\n"
		  "/sys/class/bdi/7:0/strict_limit 1 2 3\n"
		  "/sys/class/bdi/7:0/strict_limit 1%00\n"
		  "/sys/class/bdi/7:0/strict_limit 123456789012345678901\n"
		  "/sys/class/bdi/7:0/strict_limit\n"
		  "# comment\n\n"
		  "/sys/class/bdi/7:0/strict_limit 0 1", "", 13 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct parsed_rec p = { "", 0, 0 };
		const struct nfswb_restore_reader rd = {
			.record = collect, .skip = count_skip, .arg = &p,
		};

		T_CHECK(nfswb_restore_parse(cases[i].in, strlen(cases[i].in),
					    "", &rd) == 0, "parse %zu", i);
		T_CHECK(!strcmp(p.text, cases[i].want),
			"case %zu: got \"%s\", want \"%s\"", i, p.text,
			cases[i].want);
		T_CHECK(p.skipped == cases[i].skipped,
			"case %zu: %u lines skipped, want %u", i, p.skipped,
			cases[i].skipped);
	}
	/* Under a sysroot, only paths below it. */
	T_CHECK(nfswb_restore_path_ok("/r", "/r/sys/class/bdi/7:0/strict_limit",
				      false), "sysroot path");
	T_CHECK(!nfswb_restore_path_ok("/r", "/sys/class/bdi/7:0/strict_limit",
				       false), "path outside the sysroot");
	T_CHECK(nfswb_restore_path_ok("", "/sys/class/bdi/7:0/max_bytes", true) &&
		!nfswb_restore_path_ok("", "/sys/class/bdi/7:0/max_bytes", false),
		"max_bytes is written, never journalled");
}

/* Neither a file outside the list nor a value that is not a number. */
static void test_refuse_write(void)
{
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir);
	char victim[PATH_MAX + 8], buf[64];

	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	put_file(victim, "precious");
	T_CHECK(nfswb_restore_set(r, victim, "1") == -EPERM,
		"writing %s must be refused", victim);
	T_CHECK(!strcmp(get_file(victim, buf, sizeof(buf)), "precious"),
		"victim written: %s", buf);
	reset_files();
	T_CHECK(nfswb_restore_set(r, files[0], "1\n0") == -EPERM,
		"a value that is not a number must be refused");
	T_CHECK(nfswb_restore_count(r) == 0, "nothing journalled");
	nfswb_restore_close(r);
}

/* A value someone changed after nfswbd is theirs: never put back. */
static void test_changed_since(void)
{
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir);
	char buf[64];

	reset_files();
	T_CHECK(nfswb_restore_set(r, files[0], "1") == 0, "set 0");
	T_CHECK(nfswb_restore_set(r, files[1], "2") == 0, "set 1");
	put_file(files[1], "77");
	T_CHECK(nfswb_restore_all(r) == 0, "restore_all");
	T_CHECK(!strcmp(get_file(files[0], buf, sizeof(buf)), originals[0]),
		"unchanged one restored: %s", buf);
	T_CHECK(!strcmp(get_file(files[1], buf, sizeof(buf)), "77"),
		"changed one left: %s", buf);
	nfswb_restore_close(r);
	/* The same after a crash: the next open leaves it too. */
	reset_files();
	r = t_journal_open_root(statedir, tmpdir);
	T_CHECK(nfswb_restore_set(r, files[2], "5") == 0, "set 2");
	nfswb_restore_close(r);
	put_file(files[2], "78");
	r = t_journal_open_root(statedir, tmpdir);
	T_CHECK(!strcmp(get_file(files[2], buf, sizeof(buf)), "78"),
		"changed one left at the next open: %s", buf);
	nfswb_restore_close(r);
}

/* One journal per device: a second one (another state directory, another
 * process) cannot change a bdi the first has changed. */
static void test_device_lock(void)
{
	struct nfswb_restore *r = t_journal_open_root(statedir, tmpdir);
	char other[PATH_MAX + 8], buf[64];
	pid_t pid;
	int st;

	reset_files();
	snprintf(other, sizeof(other), "%s/state2", tmpdir);
	T_CHECK(nfswb_restore_set(r, files[0], "1") == 0, "first journal");
	pid = fork();
	if (pid == 0) {
		struct nfswb_restore *r2 = t_journal_open_root(other, tmpdir);
		int same, next;

		same = nfswb_restore_set(r2, files[1], "9") == -EBUSY;
		next = nfswb_restore_set(r2, files[3], "9") == 0;
		nfswb_restore_all(r2);
		_exit(same && next ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"second journal: refused on the same bdi, free on another");
	T_CHECK(!strcmp(get_file(files[1], buf, sizeof(buf)), originals[1]),
		"the second journal changed a locked bdi: %s", buf);
	T_CHECK(nfswb_restore_all(r) == 0, "restore_all");
	nfswb_restore_close(r);
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
	for (i = 0; i < NFILES; i++) {
		snprintf(files[i], sizeof(files[i]), "%s/sys/class/bdi/7:%d",
			 tmpdir, i / 3);
		mkdirs(files[i]);
		snprintf(files[i] + strlen(files[i]),
			 sizeof(files[i]) - strlen(files[i]), "/%s",
			 attrs[i % 3]);
	}

	test_set_and_restore_all();
	test_put_back();
	test_lock();
	test_torn_and_malformed();
	test_gone_file_dropped();
	test_parse();
	test_refuse_write();
	test_changed_since();
	test_device_lock();
	test_kill9_loop();
	return t_result();
}
