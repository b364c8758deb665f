// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_procfs.c - lib/procfs.c's readers: a bdi's debugfs stats as
 * mm/backing-dev.c prints them, /proc/vmstat counters whose names are
 * prefixes of others, nfsd's count of the bytes it wrote, and /proc/PID/comm and Tgid of this process and of
 * one of its threads.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"
#include "test.h"

static char root[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2], cmd[PATH_MAX * 3];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0 || !(f = fopen(path, "w"))) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(T_EXIT_FAIL);
	}
	fputs(text, f);
	fclose(f);
}

static void test_bdi_stats(void)
{
	struct nfswb_dirty_files df = { 0 };
	struct nfswb_bdi_stats st;
	char path[PATH_MAX];
	uint64_t bytes;

	/* bdi_debug_stats_show() in mm/backing-dev.c, 6.x. */
	put("sys/kernel/debug/bdi/7:0/stats",
	    "BdiWriteback:              128 kB\n"
	    "BdiReclaimable:           8192 kB\n"
	    "BdiDirtyThresh:          65536 kB\n"
	    "DirtyThresh:            262144 kB\n"
	    "BackgroundThresh:       131072 kB\n"
	    "BdiDirtied:             500000 kB\n"
	    "BdiWritten:             490000 kB\n"
	    "BdiWriteBandwidth:       20480 kBps\n"
	    "b_dirty:                     3\n");
	T_CHECK(nfswb_bdi_stats_read(root, "7:0", &st) == 0, "read");
	T_CHECK(st.reclaimable == 8192ull << 10, "%llu",
		(unsigned long long)st.reclaimable);
	T_CHECK(st.writeback == 128ull << 10, "writeback");
	T_CHECK(st.write_bandwidth == 20480ull << 10, "bandwidth");
	T_CHECK(st.has_dirtied && st.dirtied == 500000ull << 10, "dirtied");
	nfswb_dirty_files_open(&df, root, "7:0");
	T_CHECK(nfswb_dirty_bound(&df, &bytes) == NFSWB_BOUND_BDI &&
		bytes == 8192ull << 10, "bound from debugfs");
	T_CHECK(nfswb_dirtied(&df, &bytes) == NFSWB_BOUND_BDI &&
		bytes == 500000ull << 10, "dirtied from debugfs");
	/* Held open: the same fd reads the text written since. */
	put("sys/kernel/debug/bdi/7:0/stats",
	    "BdiWriteback:                0 kB\n"
	    "BdiReclaimable:             16 kB\n");
	T_CHECK(nfswb_dirty_bound(&df, &bytes) == NFSWB_BOUND_BDI &&
		bytes == 16ull << 10, "bound read again: %llu",
		(unsigned long long)bytes);
	/* No BdiDirtied and no /proc/vmstat under this root yet. */
	T_CHECK(nfswb_dirtied(&df, &bytes) == NFSWB_BOUND_NONE && !bytes,
		"no dirtied count");
	nfswb_dirty_files_close(&df);
	T_CHECK(!df.bdi_stats.path && !df.vmstat.open, "closed");
	T_CHECK(!strcmp(nfswb_bdi_stats_path("/x", "8:16", path, sizeof(path)),
			"/x/sys/kernel/debug/bdi/8:16/stats"), "%s", path);

	put("sys/kernel/debug/bdi/7:1/stats", "BdiWriteback: 1 kB\n");
	T_CHECK(nfswb_bdi_stats_read(root, "7:1", &st) == -ENOENT,
		"no BdiReclaimable");
	T_CHECK(nfswb_bdi_stats_read(root, "7:9", &st) == -ENOENT, "no file");
}

static void test_vmstat(void)
{
	struct nfswb_dirty_files df = { 0 };
	struct nfswb_kfile vm = { 0 };
	char path[PATH_MAX + 16];
	uint64_t v = 0, bytes;

	/* The longer name first: "nr_dirty" must not take its number. */
	put("proc/vmstat", "nr_dirty_threshold 262144\n"
	    "nr_dirty_background_threshold 131072\nnr_dirty 12\n"
	    "nr_writeback 3\nnr_dirtied 7\n");
	snprintf(path, sizeof(path), "%s/proc/vmstat", root);
	T_CHECK(nfswb_kfile_open(&vm, path) == 0, "open %s", path);
	T_CHECK(nfswb_kfile_keyed_u64(&vm, "nr_dirty", &v) == 0 && v == 12,
		"nr_dirty %llu", (unsigned long long)v);
	T_CHECK(nfswb_kfile_keyed_u64(&vm, "nr_dirty_threshold", &v) == 0 &&
		v == 262144, "threshold");
	T_CHECK(nfswb_kfile_keyed_u64(&vm, "nr_writeback", &v) == 0 && v == 3,
		"writeback");
	T_CHECK(nfswb_kfile_keyed_u64(&vm, "nr_written", &v) == -ENOENT,
		"absent");
	nfswb_kfile_close(&vm);
	/* Without debugfs the bound is the machine's nr_dirty. */
	nfswb_dirty_files_open(&df, root, "9:9");
	T_CHECK(nfswb_dirty_bound(&df, &bytes) == NFSWB_BOUND_GLOBAL &&
		bytes == 12 * (uint64_t)sysconf(_SC_PAGESIZE), "global bound");
	T_CHECK(nfswb_dirtied(&df, &bytes) == NFSWB_BOUND_GLOBAL &&
		bytes == 7 * (uint64_t)sysconf(_SC_PAGESIZE), "global dirtied");
	/* debugfs mounted since: taken up when the files are reopened. */
	put("sys/kernel/debug/bdi/9:9/stats", "BdiReclaimable: 4 kB\n");
	T_CHECK(nfswb_dirty_bound(&df, &bytes) == NFSWB_BOUND_GLOBAL,
		"not reopened yet");
	nfswb_dirty_files_reopen(&df);
	T_CHECK(nfswb_dirty_bound(&df, &bytes) == NFSWB_BOUND_BDI &&
		bytes == 4096, "reopened: bound from debugfs");
	nfswb_dirty_files_close(&df);
	T_CHECK(nfswb_dirty_bound(&df, &bytes) == NFSWB_BOUND_NONE &&
		!bytes, "closed: no bound");
}

static pid_t thread_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	thread_tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&cond);
	while (!done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void test_proc(void)
{
	char comm[32], small[4];
	pthread_t t;

	T_CHECK(nfswb_proc_comm(getpid(), comm, sizeof(comm)) == 0 &&
		!strcmp(comm, "test_procfs"), "comm '%s'", comm);
	T_CHECK(nfswb_proc_comm(getpid(), small, sizeof(small)) == 0 &&
		!strcmp(small, "tes"), "truncated '%s'", small);
	T_CHECK(nfswb_proc_tgid(getpid()) == getpid(), "own tgid");

	pthread_create(&t, NULL, thread_main, NULL);
	pthread_mutex_lock(&lock);
	while (!thread_tid)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	T_CHECK(thread_tid != getpid(), "a thread of its own");
	T_CHECK(nfswb_proc_tgid(thread_tid) == getpid(), "thread's tgid");
	T_CHECK(nfswb_proc_comm(thread_tid, comm, sizeof(comm)) == 0,
		"thread's comm");
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);

	T_CHECK(nfswb_proc_comm(INT32_MAX, comm, sizeof(comm)) == -ENOENT,
		"no such pid");
	T_CHECK(nfswb_proc_tgid(INT32_MAX) == -ENOENT, "no such pid's tgid");
}

/* nfsd's io line, whole or cut; its COMMIT counts; no nfsd, no count. */
static void test_nfsd_counts(void)
{
	struct nfswb_kfile f = { 0 };
	struct nfswb_nfsd_counts c;
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/proc/net/rpc/nfsd", root);
	T_CHECK(nfswb_kfile_open(&f, path) == -ENOENT &&
		nfswb_nfsd_counts(&f, &c) < 0, "nfsd not loaded");
	/* As fs/nfsd/stats.c prints it (6.12's lab seqwrite, proc4ops cut short). */
	put("proc/net/rpc/nfsd", "rc 0 4224 521\nfh 0 0 0 0 0\n"
	    "io 4096 1073741824000\nth 8 0 0.000 0.000 0.000 0.000\n"
	    "ra 0 0 0 0 0 0 0 0 0 0 0 0\nnet 4745 0 4745 2\n"
	    "rpc 4745 0 0 0 0\n"
	    "proc3 22 2 131 0 128 129 0 0 4096 128 0 0 0 0 0 0 0 0 0 0 2 1 128\n"
	    "proc4 2 0 7\nproc4ops 8 0 0 0 0 0 5 0 0\nwdeleg_getattr 0\n");
	T_CHECK(nfswb_kfile_reopen(&f) == 0, "open %s", path);
	T_CHECK(nfswb_nfsd_counts(&f, &c) == 0 &&
		c.written == 1073741824000ull && c.has_commits &&
		c.commits == 133 && c.writes == 4096,
		"written %llu, commits %llu (%d), writes %llu",
		(unsigned long long)c.written, (unsigned long long)c.commits,
		c.has_commits, (unsigned long long)c.writes);
	/* NFSv4's WRITE is operation 38 (7.3's lab, proc4ops whole). */
	put("proc/net/rpc/nfsd", "io 0 268435456\n"
	    "proc3 22 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	    "proc4ops 76 0 0 0 7 0 64 0 0 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 2048 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	T_CHECK(nfswb_nfsd_counts(&f, &c) == 0 && c.writes == 2049 &&
		c.commits == 64, "v4 writes %llu, commits %llu",
		(unsigned long long)c.writes, (unsigned long long)c.commits);
	/* No v4, and a proc3 table too short for COMMIT: none counted. */
	put("proc/net/rpc/nfsd", "rc 0 12 34\nfh 0 0 0 0 0\nio 4096 10\n"
	    "proc3 21 2 131 0 128 129 0 0 4096 128 0 0 0 0 0 0 0 0 0 0 2 1\n");
	T_CHECK(nfswb_nfsd_counts(&f, &c) == 0 && c.written == 10 &&
		!c.has_commits && !c.commits && c.writes == 4096,
		"short proc3: %llu (%d), writes %llu",
		(unsigned long long)c.commits, c.has_commits,
		(unsigned long long)c.writes);
	/* A table with fewer numbers than it says, or cut: none. */
	put("proc/net/rpc/nfsd", "io 4096 10\nproc3 22 2 131 0\n"
	    "proc4ops 76 0 0 0 0 0 9");
	T_CHECK(nfswb_nfsd_counts(&f, &c) == 0 && !c.has_commits,
		"ragged tables: %llu (%d)", (unsigned long long)c.commits,
		c.has_commits);
	/* A read that cuts the io line is no count. */
	put("proc/net/rpc/nfsd", "rc 0 12 34\nfh 0 0 0 0 0\nio 4096 10");
	T_CHECK(nfswb_nfsd_counts(&f, &c) == -ENOENT, "cut io line");
	put("proc/net/rpc/nfsd", "rc 0 12 34\nfh 0 0 0 0 0\nio 4096\n");
	T_CHECK(nfswb_nfsd_counts(&f, &c) == -ENOENT, "one number");
	put("proc/net/rpc/nfsd", "rc 0 12 34\nfh 0 0 0 0 0\nior 1 2\n");
	T_CHECK(nfswb_nfsd_counts(&f, &c) == -ENOENT, "no io line");
	nfswb_kfile_close(&f);
}

/*
 * /proc/locks as fs/locks.c prints it: the leases an O_RDONLY open would
 * break on device 254:0 (fe:00), and nothing else.
 */
static void test_leased(void)
{
	static const char *const text =
		"1: POSIX  ADVISORY  WRITE 123 fe:00:11 0 EOF\n"
		"2: DELEG  ACTIVE    WRITE 0 fe:00:12 0 EOF\n"
		"3: DELEG  ACTIVE    READ  0 fe:00:13 0 EOF\n"
		"4: LEASE  BREAKING  READ  77 fe:00:14 0 EOF\n"
		"5: LEASE  ACTIVE    WRITE 77 08:01:15 0 EOF\n"
		"6: FLOCK  ADVISORY  WRITE 9 fe:00:16 0 EOF\n"
		"6: -> FLOCK  ADVISORY  WRITE 10 fe:00:16 0 EOF\n"
		"7: LEASE  ACTIVE    WRITE 77 fe:00:4294967297 0 EOF\n";
	struct nfswb_leased l = { 0 };
	char path[PATH_MAX + 32];
	const dev_t dev = makedev(254, 0);

	snprintf(path, sizeof(path), "%s/proc/locks", root);
	T_CHECK(nfswb_leased_read(&l, path, dev) == 0 && !l.all && !l.n,
		"no /proc/locks: no lease (%zu, %d)", l.n, l.all);
	put("proc/locks", text);
	T_CHECK(nfswb_leased_read(&l, path, dev) == 0 && l.n == 3 && !l.all,
		"%zu leased", l.n);
	T_CHECK(nfswb_leased_has(&l, 12) && nfswb_leased_has(&l, 14) &&
		nfswb_leased_has(&l, 4294967297ull) &&
		!nfswb_leased_has(&l, 11) && !nfswb_leased_has(&l, 13) &&
		!nfswb_leased_has(&l, 15) && !nfswb_leased_has(&l, 16),
		"which files are leased");
	/* Read again: what it held before is forgotten. */
	put("proc/locks", "1: DELEG  ACTIVE    WRITE 0 fe:00:20 0 EOF\n");
	T_CHECK(nfswb_leased_read(&l, path, dev) == 0 && l.n == 1 &&
		nfswb_leased_has(&l, 20) && !nfswb_leased_has(&l, 12),
		"read again: %zu", l.n);
	/* A list that cannot be read leases every file. */
	snprintf(path, sizeof(path), "%s/proc", root);
	T_CHECK(nfswb_leased_read(&l, path, dev) < 0 && l.all &&
		nfswb_leased_has(&l, 1), "unreadable: all %d", l.all);
	nfswb_leased_free(&l);
	T_CHECK(!l.ino && !l.n && !l.all, "freed");
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(root, sizeof(root), "/tmp/test_procfs.XXXXXX");
	if (!mkdtemp(root))
		T_SKIP("no temporary directory: %s", strerror(errno));
	test_bdi_stats();
	test_vmstat();
	test_nfsd_counts();
	test_leased();
	test_proc();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: %s left behind\n", root);
	return t_result();
}
