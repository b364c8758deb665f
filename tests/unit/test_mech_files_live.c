// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_mech_files_live: the files mechanism on a real ext4 loop filesystem.
 *
 * A process named "nfsd" (in writers=) writes one file steadily while a
 * process named "tempwriter" writes a temp file beside it.  The test
 * drives the mechanism as the daemon does (events, dirty_bytes, policy,
 * apply) and checks with its own cachestat(2) calls that the tracked
 * file's dirty bytes stay near the policy's target while the temp file's
 * stay dirty, and that the temp writer's events were ignored.  Then the
 * bound: with max_files=4 and ten files written, at most four are
 * tracked, and a deleted file drops out.  Run once with io_uring and once
 * with the sync_file_range(2) worker thread.  A file leased by its writer
 * (an NFSv4 write delegation) neither holds the mechanism up nor has its
 * lease broken, unless the mechanism is told it may break leases.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "mech_files_cachestat.h"
#include "log.h"
#include "loopfs.h"
#include "mech.h"
#include "satmath.h"
#include "step.h"
#include "test.h"

static uint64_t count_files(const struct nfswb_mech_dev *d, const char *name)
{
	return nfswb_mech_counter(&nfswb_mech_files, d, name);
}

#define MiB		((uint64_t)1 << 20)
#define RATE		(40 * MiB)	/* bytes/s per writer */
#define BLOCK		(64 * 1024)
#define RUN_MS		5000
#define BG_MS		200		/* background_time */
#define BW		(50 * MiB)	/* fixed bandwidth for the policy */
#define INTERVAL_MS	100

static struct loopfs fs;

/*
 * Writers are forked before the mechanism attaches (its kick thread
 * must not be running at fork: a child of a multi-threaded process may
 * find a lock held forever, as one did under ASan) and wait for the
 * write end of this pipe to close: go_start(), once attached.
 */
static int go[2] = { -1, -1 };

static void go_prepare(void)
{
	if (pipe(go) < 0) {
		perror("pipe");
		exit(T_EXIT_FAIL);
	}
}

static void go_start(void)
{
	close(go[0]);
	close(go[1]);
	go[0] = go[1] = -1;
}

/* In a forked writer: take the name @comm, die with the test, wait for go. */
static void child_wait_go(const char *comm)
{
	char c;

	prctl(PR_SET_NAME, comm);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(go[1]);
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
}

/* The writers' fdatasync distance in bytes (0: none), set before a fork. */
static uint64_t writer_sync_every;
/* Whether the writers append to what is there, set before a fork. */
static bool writer_append;

/* A child named @comm writing @path at RATE for @ms (or to files[] round robin). */
static pid_t writer(const char *comm, const char *const *paths,
		    unsigned int npaths, uint64_t ms, int unlink_after)
{
	static char block[BLOCK];
	uint64_t start, written = 0;
	struct timespec ts;
	unsigned int i = 0;
	int fds[16];
	pid_t pid = fork();

	if (pid)
		return pid;
	child_wait_go(comm);
	memset(block, 'x', sizeof(block));
	for (i = 0; i < npaths; i++) {
		fds[i] = open(paths[i], O_WRONLY | O_CREAT |
			      (writer_append ? O_APPEND : O_TRUNC), 0644);
		if (fds[i] < 0)
			_exit(2);
	}
	start = nfswb_now_ms();
	for (i = 0; nfswb_now_ms() - start < ms; i = (i + 1) % npaths) {
		if (write(fds[i], block, BLOCK) != BLOCK)
			_exit(3);
		written += BLOCK;
		if (writer_sync_every && written % writer_sync_every == 0 &&
		    fdatasync(fds[i]) < 0)
			_exit(3);
		/* Pace to RATE. */
		while (written * 1000 / RATE > nfswb_now_ms() - start) {
			ts.tv_sec = 0;
			ts.tv_nsec = 1000000;
			nanosleep(&ts, NULL);
		}
	}
	if (unlink_after)
		for (i = 0; i < npaths; i++)
			unlink(paths[i]);
	_exit(0);
}

static uint64_t dirty_of(const char *path)
{
	struct nfswb_cachestat cs;
	int fd = open(path, O_RDONLY);
	uint64_t v = 0;

	if (fd < 0)
		return 0;
	if (nfswb_cachestat(fd, 0, 0, &cs) == 0)
		v = cs.nr_dirty * (uint64_t)sysconf(_SC_PAGESIZE);
	close(fd);
	return v;
}

struct drive {
	struct nfswb_mech_dev d;
	struct nfswb_device_id id;
	const char *paths[1];
	struct nfswb_estimator est;	/* fixed at BW */
};

static void attach(struct drive *dr, unsigned int max_files, bool uring)
{
	char why[256];

	struct nfswb_estimator_params bw = { .fixed_bw = BW };

	memset(dr, 0, sizeof(*dr));
	nfswb_estimator_init(&dr->est, &bw);
	strcpy(dr->id.bdi, fs.bdi);
	dr->id.st_dev = fs.st_dev;
	dr->paths[0] = fs.mnt;
	dr->d.id = &dr->id;
	dr->d.sysroot = "";
	dr->d.paths = dr->paths;
	dr->d.npaths = 1;
	nfswb_export_opts_default(&dr->d.opts);
	dr->d.opts.nwriters = 1;
	strcpy(dr->d.opts.writers[0], "nfsd");
	dr->d.opts.background_time_ms = BG_MS;
	dr->d.max_files = max_files;
	dr->d.use_io_uring = uring;
	if (nfswb_mech_files.attach(&dr->d, why, sizeof(why)) < 0) {
		nfswb_mech_files.detach(&dr->d);
		T_SKIP("files mechanism cannot attach here: %s", why);
	}
}

/* One interval of what the daemon does, through its own nfswb_step(). */
static void step(struct drive *dr, struct nfswb_policy_out *o)
{
	struct pollfd pfd = {
		.fd = nfswb_mech_files.poll_fd(&dr->d), .events = POLLIN,
	};
	uint64_t until = nfswb_now_ms() + INTERVAL_MS;
	struct nfswb_step_in in = { .decide = true };
	struct nfswb_step_out out;
	int left;

	while ((left = (int)(until - nfswb_now_ms())) > 0 &&
	       left <= INTERVAL_MS) {
		if (poll(&pfd, 1, left) > 0)
			nfswb_mech_files.on_readable(&dr->d);
	}
	in.policy.now_ms = nfswb_now_ms();
	in.policy.interval_ms = INTERVAL_MS;
	in.policy.nfs_dirty_bytes = nfswb_mech_files.dirty_bytes(&dr->d);
	in.policy.background_time_ms = dr->d.opts.background_time_ms;
	in.policy.background_min = dr->d.opts.background_min;
	nfswb_mech_files.observe(&dr->d, &in.policy);
	nfswb_step(&dr->est, &in, &out);
	*o = out.decision;
	nfswb_mech_files.apply(&dr->d, o);
}

/*
 * Attach (io_uring, up to 64 files), start @child and step until it
 * exits; its wait status.  @early: a target of 256 KiB (50 MiB/s x 5 ms),
 * which kicks every interval, else the test's BG_MS.
 */
static int run_writer(struct drive *dr, pid_t child, bool early)
{
	struct nfswb_policy_out o;
	int st;

	attach(dr, 64, true);
	if (early) {
		dr->d.opts.background_time_ms = 5;
		dr->d.opts.background_min = 256 << 10;
	}
	go_start();
	while (waitpid(child, &st, WNOHANG) == 0)
		step(dr, &o);
	return st;
}

/*
 * The kernel's flusher writes a bdi back once its dirty pages pass its
 * share of the background threshold, a share that follows the bdi's part
 * of all recent writeout: with other disks busy, a fresh loop device's
 * share is small and the flusher takes the temp file, which the test
 * must see stay dirty.  A minimum share for the test's own device keeps
 * the flusher off.  A loop device keeps its bdi settings from one attach
 * to the next, so whatever an earlier user left (a max_ratio of 0 has
 * been seen) is overridden too, and everything is put back at exit.
 */
static struct {
	char path[96], orig[32];
} bdi_saved[2];

static void bdi_restore(void)
{
	for (int i = 1; i >= 0; i--) {
		FILE *f;

		if (!bdi_saved[i].orig[0] ||
		    !(f = fopen(bdi_saved[i].path, "we")))
			continue;
		fputs(bdi_saved[i].orig, f);
		if (fclose(f))
			fprintf(stderr, "%s: cannot restore %s",
				bdi_saved[i].path, bdi_saved[i].orig);
		bdi_saved[i].orig[0] = '\0';
	}
}

static void bdi_set(int slot, const char *attr, const char *value)
{
	char *path = bdi_saved[slot].path, *orig = bdi_saved[slot].orig;
	FILE *f;

	snprintf(path, sizeof(bdi_saved[slot].path), "/sys/class/bdi/%s/%s",
		 fs.bdi, attr);
	f = fopen(path, "re");
	if (!f || !fgets(orig, sizeof(bdi_saved[slot].orig), f))
		T_SKIP("cannot read %s: %s", path, strerror(errno));
	fclose(f);
	f = fopen(path, "we");
	if (!f || fputs(value, f) < 0 || fclose(f)) {
		orig[0] = '\0';
		T_SKIP("cannot set %s to %s (other bdis hold the 100 %% "
		       "min_ratio allows?)", path, value);
	}
}

static uint64_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void test_target(bool uring)
{
	char nfs[PATH_MAX + 16], tmp[PATH_MAX + 16];
	const char *np[1] = { nfs }, *tp[1] = { tmp };
	uint64_t samples[RUN_MS / INTERVAL_MS], target = 0, temp_dirty;
	uint64_t tmp_written;
	struct nfswb_policy_out o;
	unsigned int n = 0;
	struct drive dr;
	pid_t a, b;
	int st;

	snprintf(nfs, sizeof(nfs), "%s/export-%d.dat", fs.mnt, uring);
	snprintf(tmp, sizeof(tmp), "%s/temp-%d.dat", fs.mnt, uring);
	go_prepare();
	a = writer("nfsd", np, 1, RUN_MS, 0);
	b = writer("tempwriter", tp, 1, RUN_MS, 0);
	attach(&dr, 64, uring);
	go_start();
	while (waitpid(a, &st, WNOHANG) == 0) {
		step(&dr, &o);
		target = o.target_bytes;
		if (n < sizeof(samples) / sizeof(samples[0]))
			samples[n++] = dirty_of(nfs);
	}
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "nfsd writer failed");
	waitpid(b, &st, 0);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "temp writer failed");
	temp_dirty = dirty_of(tmp);
	/* What it wrote: a loaded machine may run it below RATE. */
	tmp_written = size_of(tmp);

	/* Skip the first second: the policy needs dirty data to act on. */
	qsort(samples + 10, n - 10, sizeof(samples[0]), nfswb_cmp_u64);
	fprintf(stderr,
		"%s: target %" PRIu64 " MiB, tracked file dirty p50 %" PRIu64
		" MiB max %" PRIu64 " MiB; temp file dirty %" PRIu64 " of %"
		PRIu64 " MiB; events %" PRIu64 " ignored %" PRIu64 " kicks %"
		PRIu64 " errors %" PRIu64 "\n",
		uring ? "io_uring" : "thread", target / MiB,
		samples[10 + (n - 10) / 2] / MiB, samples[n - 1] / MiB,
		temp_dirty / MiB, tmp_written / MiB, count_files(&dr.d, "events_seen"),
		count_files(&dr.d, "events_ignored"), count_files(&dr.d, "kicks"),
		count_files(&dr.d, "errors"));
	T_CHECK(n > 20, "only %u samples", n);
	/*
	 * Near the target: the writer adds RATE x INTERVAL between two
	 * looks, and the kick in flight is bounded by two intervals.
	 */
	T_CHECK(samples[10 + (n - 10) / 2] <= target + 3 * RATE / 10,
		"tracked file's median dirty %" PRIu64 " far above target %"
		PRIu64, samples[10 + (n - 10) / 2], target);
	T_CHECK(samples[n - 1] <= target + 6 * RATE / 10,
		"tracked file's max dirty %" PRIu64 " far above target %"
		PRIu64, samples[n - 1], target);
	T_CHECK(samples[10 + (n - 10) / 2] >= target / 4,
		"tracked file flushed far below target: %" PRIu64,
		samples[10 + (n - 10) / 2]);
	T_CHECK(tmp_written >= (uint64_t)RATE * RUN_MS / 1000 / 4,
		"the temp writer wrote only %" PRIu64 " bytes", tmp_written);
	T_CHECK(temp_dirty >= tmp_written / 10 * 8,
		"temp file lost its cache: %" PRIu64 " of %" PRIu64 " dirty",
		temp_dirty, tmp_written);
	T_CHECK(count_files(&dr.d, "events_ignored") > 0,
		"temp writer's events not ignored");
	/* The temp file is silenced for a second at a time, not per write. */
	T_CHECK(count_files(&dr.d, "events_ignored") <= 3 * RUN_MS / 1000 + 5,
		"%" PRIu64 " ignored events: local writes are not silenced",
		count_files(&dr.d, "events_ignored"));
	T_CHECK(count_files(&dr.d, "files_tracked") <= 1, "tracked %" PRIu64 " files",
		count_files(&dr.d, "files_tracked"));
	T_CHECK(count_files(&dr.d, "kicks") > 0, "no kicks");
	T_CHECK(count_files(&dr.d, "errors") == 0, "%" PRIu64 " errors",
		count_files(&dr.d, "errors"));
	nfswb_mech_files.detach(&dr.d);
	unlink(nfs);
	unlink(tmp);
}

static void test_bound_and_delete(void)
{
	char names[10][PATH_MAX + 16];
	const char *paths[10];
	struct nfswb_policy_out o;
	uint64_t most = 0;
	struct drive dr;
	unsigned int i;
	pid_t a;
	int st;

	for (i = 0; i < 10; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/many-%u", fs.mnt, i);
		paths[i] = names[i];
	}
	/* Ten files round robin for 1.5 s, then deleted by the writer. */
	go_prepare();
	a = writer("nfsd", paths, 10, 1500, 1);
	attach(&dr, 4, true);
	go_start();
	while (waitpid(a, &st, WNOHANG) == 0) {
		step(&dr, &o);
		if (count_files(&dr.d, "files_tracked") > most)
			most = count_files(&dr.d, "files_tracked");
	}
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer failed");
	T_CHECK(most <= 4, "tracked %" PRIu64 " files with max_files=4", most);
	T_CHECK(count_files(&dr.d, "files_evicted") > 0, "nothing evicted");
	/*
	 * Deleted files drop out at their next link count check: with at
	 * most 4 tracked, each is refreshed every step, so within
	 * NFSWB_FILES_NLINK_EVERY steps of the last look that saw it
	 * linked (that look may have raced with the unlink: one more).
	 */
	for (i = 0; i < NFSWB_FILES_NLINK_EVERY + 1 &&
		    count_files(&dr.d, "files_tracked"); i++)
		step(&dr, &o);
	T_CHECK(count_files(&dr.d, "files_tracked") == 0,
		"%" PRIu64 " deleted files still tracked",
		count_files(&dr.d, "files_tracked"));
	nfswb_mech_files.detach(&dr.d);
}

/*
 * Refreshes count from where completed kicks left a file clean; data
 * rewritten below that point must still be seen: here the file was seen
 * clean, and the rewrite's event makes the looks that follow go over all
 * of it below that point, a stretch a look.
 */
static void test_rewrite_below(void)
{
	char path[PATH_MAX + 16], block[BLOCK], comm[17] = "";
	struct pollfd pfd = { .events = POLLIN };
	const char *np[1] = { path };
	struct nfswb_policy_out o;
	uint64_t seen = 0, quiet = UINT64_MAX, v;
	struct drive dr;
	unsigned int i;
	pid_t a;
	int st, fd;

	snprintf(path, sizeof(path), "%s/rewrite.dat", fs.mnt);
	/* 32 MiB appended: kicks from the front advance the clean point. */
	go_prepare();
	a = writer("nfsd", np, 1, 800, 0);
	st = run_writer(&dr, a, false);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer failed");
	T_CHECK(count_files(&dr.d, "kicks") > 0, "no kicks while appending");
	fd = open(path, O_RDWR);
	T_CHECK(fd >= 0 && fdatasync(fd) == 0, "fdatasync %s", path);
	/* Clean now; the growth estimate fades within a few looks. */
	for (i = 0; i < 8; i++) {
		step(&dr, &o);
		v = nfswb_mech_files.dirty_bytes(&dr.d);
		quiet = v < quiet ? v : quiet;
	}
	T_CHECK(quiet < MiB / 2, "%" PRIu64 " dirty bytes after fdatasync",
		quiet);
	pfd.fd = nfswb_mech_files.poll_fd(&dr.d);
	/* As nfsd: a clean file's next write is its event. */
	prctl(PR_GET_NAME, comm);
	prctl(PR_SET_NAME, "nfsd");
	memset(block, 'r', sizeof(block));
	for (i = 0; i < MiB / BLOCK; i++)
		T_CHECK(pwrite(fd, block, BLOCK, (off_t)i * BLOCK) == BLOCK,
			"rewrite");
	/* Its event read while the name says so: the check reads it then. */
	if (poll(&pfd, 1, INTERVAL_MS) > 0)
		nfswb_mech_files.on_readable(&dr.d);
	prctl(PR_SET_NAME, comm);
	for (i = 0; i < NFSWB_FILES_SCRUB_PASS + 1 && seen < MiB; i++) {
		v = nfswb_mech_files.dirty_bytes(&dr.d);
		seen = v > seen ? v : seen;
	}
	T_CHECK(seen >= MiB, "1 MiB rewritten at offset 0 not seen in %u "
		"refreshes (largest count %" PRIu64 ")", i, seen);
	close(fd);
	nfswb_mech_files.detach(&dr.d);
	unlink(path);
}


/*
 * An appended file is measured from where its dirty tail begins: the
 * pages cachestat walks follow what was appended since its last COMMIT
 * or kick, not all the file keeps cached.  Two ways of being cleaned:
 *  - @kicked: kicked whole at every interval (a target of 256 KiB, each
 *    interval's 4 MiB).  Before, a whole-file kick left the clean point
 *    where it was: 138512 pages walked, 20480 now.
 *  - else by its own fdatasync every 2 MiB, as tempfile's NFS writer's
 *    COMMITs do, never kicked (the target is 10 MiB).  Before, its clean
 *    point never moved: 138864-148480 pages; in the lab's tempfile the
 *    daemon's main thread took 8 % of the vCPU for 2 kicks.
 * 40 MiB appended in 1 s, then 10 more intervals.
 */
static void test_append_walk(bool kicked)
{
	const char *how = kicked ? "kicked" : "fdatasync every 2 MiB";
	char path[PATH_MAX + 16];
	const char *np[1] = { path };
	struct nfswb_policy_out o;
	uint64_t walked, pages = (uint64_t)RATE / 4096;	/* 1 s of it */
	struct drive dr;
	unsigned int i;
	pid_t a;
	int st;

	snprintf(path, sizeof(path), "%s/append-%d.dat", fs.mnt, kicked);
	go_prepare();
	writer_sync_every = kicked ? 0 : 2 * MiB;
	a = writer("nfsd", np, 1, 1000, 0);
	writer_sync_every = 0;
	st = run_writer(&dr, a, kicked);
	for (i = 0; i < 10; i++)
		step(&dr, &o);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer failed");
	walked = count_files(&dr.d, "pages_walked");
	printf("append, %s: %" PRIu64 " kicks, %" PRIu64 " pages walked for a file of %" PRIu64 "\n",
	       how, count_files(&dr.d, "kicks"), walked, pages);
	T_CHECK(!kicked || count_files(&dr.d, "kicks") >= 5, "%s: %" PRIu64
		" kicks", how, count_files(&dr.d, "kicks"));
	T_CHECK(walked < 3 * pages, "%s: %" PRIu64 " pages walked for a file "
		"of %" PRIu64 " pages", how, walked, pages);
	nfswb_mech_files.detach(&dr.d);
	unlink(path);
}


/*
 * No look walks a large file's whole cache at once, however long it is
 * tracked: a 192 MiB file laid out first (49152 pages, all cached), then
 * appended by nfsd with an fdatasync every 2 MiB for 4 s, never kicked
 * (tempfile's NFS writer, a file grown by an earlier session).  After the
 * first looks, which must count all of it, a look walks the appended tail
 * and one stretch below it.  Before, every NFSWB_FILES_NLINK_EVERY-th
 * refresh walked all of it: 65536 or more pages in one call, tens of ms
 * of the lab's one-CPU server (tempfile's client fsync p99 +19 %).
 */
#define LAID_OUT	(192 * MiB)
#define FIRST_LOOKS	8

/* A stretch (at most 2 MiB) and two intervals' appending, in pages. */
static uint64_t look_bound(uint64_t interval_ms)
{
	if (interval_ms < INTERVAL_MS)
		interval_ms = INTERVAL_MS;
	return 2 * MiB / 4096 + 2 * RATE * interval_ms / 1000 / 4096;
}

static void test_look_bounded(void)
{
	uint64_t walked = 0, prev = 0, most = 0, bound = 0, steps = 0;
	char path[PATH_MAX + 16], block[BLOCK];
	const char *np[1] = { path };
	struct nfswb_policy_out o;
	uint64_t then, now;
	struct drive dr;
	pid_t a;
	int st, fd;

	snprintf(path, sizeof(path), "%s/grown.dat", fs.mnt);
	memset(block, 'g', sizeof(block));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	T_CHECK(fd >= 0, "create %s", path);
	for (uint64_t off = 0; off < LAID_OUT; off += BLOCK)
		T_CHECK(pwrite(fd, block, BLOCK, (off_t)off) == BLOCK,
			"lay out %s", path);
	T_CHECK(fsync(fd) == 0, "fsync %s", path);
	close(fd);
	go_prepare();
	writer_sync_every = 2 * MiB;
	writer_append = true;
	a = writer("nfsd", np, 1, 4000, 0);
	writer_sync_every = 0;
	writer_append = false;
	attach(&dr, 64, true);
	go_start();
	then = nfswb_now_ms();
	while (waitpid(a, &st, WNOHANG) == 0) {
		step(&dr, &o);
		now = nfswb_now_ms();
		walked = count_files(&dr.d, "pages_walked");
		/*
		 * The first looks count all of it: when it is tracked, and
		 * when the appending's first event finds it clean there.
		 * After them the tail is what was appended since the last
		 * look, which a loaded host makes come late.
		 */
		if (steps >= FIRST_LOOKS && (!most || (walked - prev) * bound >
						       most * look_bound(now - then))) {
			most = walked - prev;
			bound = look_bound(now - then);
		}
		prev = walked;
		then = now;
		steps++;
	}
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer failed");
	printf("grown file: at most %" PRIu64 " pages walked in one of %" PRIu64
	       " intervals against its bound of %" PRIu64 " (%" PRIu64
	       " in all, %" PRIu64 " kicks)\n", most, steps, bound, walked,
	       count_files(&dr.d, "kicks"));
	T_CHECK(steps > FIRST_LOOKS + NFSWB_FILES_NLINK_EVERY, "only %" PRIu64
		" intervals", steps);
	T_CHECK(most <= bound, "%" PRIu64 " pages walked in one interval, "
		"more than %" PRIu64, most, bound);
	nfswb_mech_files.detach(&dr.d);
	unlink(path);
}

/*
 * A file rewritten at random (64 KiB blocks over a file laid out first,
 * as randwrite's fio job writes, fdatasync every 8 MiB) and kicked early,
 * with a target of 256 KiB: most of what is written is kicked.  Before, a kick of part of the file moved its clean point to
 * where that kick ended, and the next kicks looked for dirty pages only
 * above it: rewrites below it were never kicked (5 kicks, 3 MiB of 20
 * MiB written in bench_files_rewrite's kick mode; here 3 kicks, 10-11 of
 * the 32 MiB).
 */
#define REWRITE_FILE	(64 * MiB)
#define REWRITE_RATE	(8 * MiB)
#define REWRITE_MS	4000

static pid_t random_rewriter(const char *path)
{
	static char block[BLOCK];
	uint64_t start, written = 0, blocks = REWRITE_FILE / BLOCK;
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	child_wait_go("nfsd");
	memset(block, 'w', sizeof(block));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		_exit(2);
	srand(11);
	start = nfswb_now_ms();
	while (nfswb_now_ms() - start < REWRITE_MS) {
		off_t off = (off_t)((uint64_t)rand() % blocks) * BLOCK;

		if (pwrite(fd, block, BLOCK, off) != BLOCK)
			_exit(3);
		written += BLOCK;
		if (written % (8 * MiB) == 0 && fdatasync(fd) < 0)
			_exit(3);
		while (written * 1000 / REWRITE_RATE > nfswb_now_ms() - start)
			usleep(1000);
	}
	_exit(0);
}

static void test_random_rewrite_kicked(void)
{
	char path[PATH_MAX + 16], block[BLOCK];
	uint64_t written = (uint64_t)REWRITE_RATE * REWRITE_MS / 1000, kicked;
	struct drive dr;
	pid_t w;
	int st, fd;

	snprintf(path, sizeof(path), "%s/random.dat", fs.mnt);
	memset(block, 'l', sizeof(block));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	T_CHECK(fd >= 0, "create %s", path);
	for (uint64_t off = 0; off < REWRITE_FILE; off += BLOCK)
		T_CHECK(pwrite(fd, block, BLOCK, (off_t)off) == BLOCK,
			"lay out %s", path);
	T_CHECK(fsync(fd) == 0, "fsync %s", path);
	close(fd);
	go_prepare();
	w = random_rewriter(path);
	st = run_writer(&dr, w, true);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "rewriter failed");
	kicked = count_files(&dr.d, "bytes_kicked");
	printf("random rewrite: kicked %" PRIu64 " of %" PRIu64 " MiB in %" PRIu64 " kicks\n",
	       kicked >> 20, written >> 20, count_files(&dr.d, "kicks"));
	T_CHECK(kicked >= written / 2, "kicked %" PRIu64 " KiB of %" PRIu64
		" KiB rewritten (%" PRIu64 " kicks)", kicked >> 10,
		written >> 10, count_files(&dr.d, "kicks"));
	T_CHECK(count_files(&dr.d, "errors") == 0, "%" PRIu64 " errors",
		count_files(&dr.d, "errors"));
	nfswb_mech_files.detach(&dr.d);
	unlink(path);
}

/*
 * Dirty data far into a sparse file is kicked, not the holes before it:
 * 32 MiB at @off, then kicks of 8 MiB an interval.  Before, the range to
 * kick reached from offset 0 to the data in 1 GiB kicks; past 256 GiB the
 * queue was full first and nothing was ever kicked.
 */
static void test_sparse(uint64_t off)
{
	char path[PATH_MAX + 16];
	struct nfswb_policy_out o = { .kick_bytes = 8 * MiB };
	uint64_t before, after = 0;
	struct drive dr;
	unsigned int i;
	int st, done[2];
	char ok;
	pid_t a;

	snprintf(path, sizeof(path), "%s/sparse.dat", fs.mnt);
	go_prepare();
	if (pipe(done) < 0) {
		perror("pipe");
		exit(T_EXIT_FAIL);
	}
	a = fork();
	if (a == 0) {
		static char block[BLOCK];
		char c = 3;
		int fd;

		child_wait_go("nfsd");
		memset(block, 's', sizeof(block));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		for (i = 0; fd >= 0 && i < 32 * MiB / BLOCK; i++)
			if (pwrite(fd, block, BLOCK, (off_t)(off + i * BLOCK)) !=
			    BLOCK)
				break;
		c = i == 32 * MiB / BLOCK ? 0 : 3;
		/* Stay alive: the mechanism reads the writer's comm. */
		if (write(done[1], &c, 1) == 1)
			pause();
		_exit(c);
	}
	close(done[1]);
	attach(&dr, 64, true);
	go_start();
	if (read(done[0], &ok, 1) != 1 || ok) {
		kill(a, SIGKILL);
		waitpid(a, &st, 0);
		close(done[0]);
		nfswb_mech_files.detach(&dr.d);
		unlink(path);
		fprintf(stderr, "sparse: cannot write at %" PRIu64 " GiB here\n",
			off >> 30);
		return;
	}
	before = dirty_of(path);
	for (i = 0; i < 40; i++) {
		struct pollfd pfd = {
			.fd = nfswb_mech_files.poll_fd(&dr.d), .events = POLLIN,
		};

		if (poll(&pfd, 1, INTERVAL_MS) > 0)
			nfswb_mech_files.on_readable(&dr.d);
		nfswb_mech_files.dirty_bytes(&dr.d);
		nfswb_mech_files.apply(&dr.d, &o);
		after = dirty_of(path);
		if (after <= 8 * MiB)
			break;
	}
	fprintf(stderr, "sparse at %" PRIu64 " GiB: dirty %" PRIu64 " -> %"
		PRIu64 " MiB, kicks %" PRIu64 ", errors %" PRIu64 "\n",
		off >> 30, before / MiB, after / MiB,
		count_files(&dr.d, "kicks"), count_files(&dr.d, "errors"));
	kill(a, SIGKILL);
	waitpid(a, &st, 0);
	close(done[0]);
	T_CHECK(before >= 16 * MiB, "only %" PRIu64 " bytes dirty at start",
		before);
	T_CHECK(count_files(&dr.d, "kicks") > 0, "no kicks at %" PRIu64
		" GiB", off >> 30);
	T_CHECK(after <= 8 * MiB, "%" PRIu64 " MiB still dirty at %" PRIu64
		" GiB after %u intervals", after / MiB, off >> 30, i);
	nfswb_mech_files.detach(&dr.d);
	unlink(path);
}

/*
 * seqwrite's case: a client writes one 4 MiB file after another and
 * COMMITs each within half a second.  A file tracked behind many files
 * already clean must be measured at the next interval, not when the
 * round-robin comes to it (before: 8 files a look, so with 40 tracked a
 * new file waited 5 intervals and was COMMITted unmeasured); and the
 * clean files, silent until written again, cost no cachestat at all.
 */
static void test_new_behind_clean(void)
{
	char path[PATH_MAX + 32], block[BLOCK], comm[17] = "";
	struct pollfd pfd = { .events = POLLIN };
	uint64_t walked, seen;
	struct drive dr;
	unsigned int i, j;
	int fd;

	attach(&dr, 64, true);
	pfd.fd = nfswb_mech_files.poll_fd(&dr.d);
	memset(block, 'n', sizeof(block));
	prctl(PR_GET_NAME, comm);
	prctl(PR_SET_NAME, "nfsd");
	for (i = 0; i <= 40; i++) {
		snprintf(path, sizeof(path), "%s/behind-%u.dat", fs.mnt, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		T_CHECK(fd >= 0, "create %s", path);
		for (j = 0; j < (i < 40 ? 1 : 2 * MiB / BLOCK); j++)
			T_CHECK(write(fd, block, BLOCK) == BLOCK, "write");
		/* The first 40 COMMITted; the last one not yet. */
		T_CHECK(i == 40 || fdatasync(fd) == 0, "fdatasync");
		close(fd);
		while (poll(&pfd, 1, 0) > 0)
			nfswb_mech_files.on_readable(&dr.d);
		if (i < 40)
			continue;
		seen = nfswb_mech_files.dirty_bytes(&dr.d);
		T_CHECK(seen >= 2 * MiB, "a new file's 2 MiB behind 40 clean "
			"files: %" PRIu64 " bytes seen at the first look",
			seen);
		fd = open(path, O_RDONLY);
		T_CHECK(fd >= 0 && fdatasync(fd) == 0, "fdatasync %s", path);
		close(fd);
	}
	prctl(PR_SET_NAME, comm);
	for (i = 0; i < 2 * NFSWB_FILES_NLINK_EVERY; i++)
		nfswb_mech_files.dirty_bytes(&dr.d);
	walked = count_files(&dr.d, "pages_walked");
	for (i = 0; i < 2 * NFSWB_FILES_NLINK_EVERY; i++)
		nfswb_mech_files.dirty_bytes(&dr.d);
	printf("new behind clean: %" PRIu64 " files tracked, %" PRIu64
	       " pages walked by %u looks at them clean\n",
	       count_files(&dr.d, "files_tracked"),
	       count_files(&dr.d, "pages_walked") - walked,
	       2 * NFSWB_FILES_NLINK_EVERY);
	T_CHECK(count_files(&dr.d, "files_tracked") == 41, "%" PRIu64
		" files tracked", count_files(&dr.d, "files_tracked"));
	T_CHECK(count_files(&dr.d, "pages_walked") == walked, "%" PRIu64
		" pages walked over clean files", count_files(&dr.d,
		"pages_walked") - walked);
	nfswb_mech_files.detach(&dr.d);
	for (i = 0; i <= 40; i++) {
		snprintf(path, sizeof(path), "%s/behind-%u.dat", fs.mnt, i);
		unlink(path);
	}
}

/*
 * A file leased by its writer, as nfsd leases a file an NFSv4 client
 * holds a write delegation on.  An open of it would start to break the
 * lease, and nfsd would recall the delegation (the lab's tempfile on
 * 7.3: one DELEGRETURN a run, client fsync p99 1.22x stock's); a
 * blocking one would also wait for the holder (the daemon stood still
 * for a whole file's writes in the lab's seqwrite).  So the file is
 * tracked from its event's handle, a look does not open it while
 * /proc/locks shows the lease (counted in lease_waits), and the holder
 * is never told of a break, even when the lease was taken a moment
 * after a look at another file read the list; once the lease is
 * returned, a look a second later (mech_files.c reads /proc/locks at
 * most once a second for files it knows) measures it.  With
 * may_break_leases (the clients are judged not to commit often) the
 * look does open it: O_NONBLOCK, so it does not wait, the holder is
 * told of the break and returns the lease, as a client returns its
 * delegation, and the next look measures the file at once.  A watchdog
 * fails the test if anything waits (for the lease-break-time, 45 s by
 * default).
 */
static volatile sig_atomic_t lease_broken;

static void on_lease_break(int sig)
{
	(void)sig;
	lease_broken = 1;
}

static void on_watchdog(int sig)
{
	static const char msg[] = "FAIL: the files mechanism waited for a lease break\n";

	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	exit(T_EXIT_FAIL);	/* not _exit: the loop device goes at exit */
}

/* Read one byte from @fd within @ms; its value, or -1. */
static int pipe_get(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t until = nfswb_now_ms() + (uint64_t)ms;
	unsigned char c;
	int n;

	/* The lease holder's poll is interrupted by its lease break. */
	while ((n = poll(&pfd, 1, (int)(until - nfswb_now_ms()))) < 0 &&
	       errno == EINTR && nfswb_now_ms() < until)
		;
	if (n != 1 || read(fd, &c, 1) != 1)
		return -1;
	return c;
}

static void lease_holder(const char *path, int to_parent, int from_parent)
{
	static char block[BLOCK];
	char primer[PATH_MAX + 32];
	unsigned int i;
	int fd;

	signal(SIGIO, on_lease_break);
	child_wait_go("nfsd");
	memset(block, 'l', sizeof(block));
	/* A file without a lease first, so that a look reads the list. */
	snprintf(primer, sizeof(primer), "%s.primer", path);
	fd = open(primer, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, block, BLOCK) != BLOCK || close(fd) < 0 ||
	    write(to_parent, "p", 1) != 1 || pipe_get(from_parent, 20000) != 'g')
		_exit(2);
	/* Leased after that read, and written within the list's age. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK) < 0)
		_exit(2);
	if (write(fd, block, BLOCK) != BLOCK ||
	    write(to_parent, "w", 1) != 1)
		_exit(3);
	/* Hold the lease until told, as a client slow to return it. */
	if (pipe_get(from_parent, 20000) != 'r')
		_exit(4);
	if (write(to_parent, lease_broken ? "b" : "n", 1) != 1 ||
	    fcntl(fd, F_SETLEASE, F_UNLCK) < 0)
		_exit(5);
	for (i = 0; i < MiB / BLOCK; i++)
		if (write(fd, block, BLOCK) != BLOCK)
			_exit(6);
	if (write(to_parent, "d", 1) != 1)
		_exit(7);
	pipe_get(from_parent, 20000);
	close(fd);
	unlink(primer);
	_exit(0);
}

/* Take the events until none comes for 200 ms, then look: dirty bytes. */
static uint64_t look_when_quiet(struct drive *dr)
{
	struct pollfd pfd = {
		.fd = nfswb_mech_files.poll_fd(&dr->d), .events = POLLIN,
	};

	while (poll(&pfd, 1, 200) > 0)
		nfswb_mech_files.on_readable(&dr->d);
	return nfswb_mech_files.dirty_bytes(&dr->d);
}

static void test_lease(bool may_break)
{
	char path[PATH_MAX + 16];
	int up[2], down[2], st, c;
	struct drive dr;
	uint64_t dirty;
	pid_t child;

	snprintf(path, sizeof(path), "%s/leased.dat", fs.mnt);
	signal(SIGPIPE, SIG_IGN);	/* a holder that died is a failure */
	T_CHECK(pipe(up) == 0 && pipe(down) == 0, "pipe");
	go_prepare();
	child = fork();
	if (!child) {
		close(up[0]);
		close(down[1]);
		lease_holder(path, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	attach(&dr, 64, true);
	dr.d.may_break_leases = may_break;
	go_start();
	signal(SIGALRM, on_watchdog);
	alarm(20);
	c = pipe_get(up[0], 10000);
	T_CHECK(c == 'p', "the lease holder wrote its primer (%d)", c);
	look_when_quiet(&dr);
	T_CHECK(write(down[1], "g", 1) == 1, "tell the holder to lease");
	c = pipe_get(up[0], 10000);
	T_CHECK(c == 'w', "the lease holder wrote (%d)", c);
	look_when_quiet(&dr);
	T_CHECK(count_files(&dr.d, "lease_waits") >= 1, "%" PRIu64
		" looks held off by the lease",
		count_files(&dr.d, "lease_waits"));
	T_CHECK(count_files(&dr.d, "files_tracked") == 2, "%" PRIu64
		" files tracked while leased",
		count_files(&dr.d, "files_tracked"));
	T_CHECK(write(down[1], "r", 1) == 1, "tell the holder");
	c = pipe_get(up[0], 10000);
	if (may_break)
		T_CHECK(c == 'b', "the holder's lease was %s", c == 'n' ?
			"not broken" : "lost track of");
	else
		T_CHECK(c == 'n', "the holder's lease was %s", c == 'b' ?
			"broken" : "lost track of");
	c = pipe_get(up[0], 10000);
	T_CHECK(c == 'd', "the holder wrote again after its lease (%d)", c);
	/* The list of leases a look goes by is at most a second old. */
	if (!may_break)
		usleep(1100 * 1000);
	dirty = look_when_quiet(&dr);
	alarm(0);
	printf("lease%s: %" PRIu64 " lease waits, then %" PRIu64
	       " file(s) tracked, %" PRIu64 " bytes dirty\n",
	       may_break ? " (may break)" : "",
	       count_files(&dr.d, "lease_waits"),
	       count_files(&dr.d, "files_tracked"), dirty);
	T_CHECK(count_files(&dr.d, "files_tracked") == 2, "%" PRIu64
		" files tracked once the lease was returned",
		count_files(&dr.d, "files_tracked"));
	T_CHECK(dirty >= MiB / 2, "%" PRIu64 " dirty bytes of the file "
		"written after its lease", dirty);
	(void)!write(down[1], "x", 1);
	waitpid(child, &st, 0);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"lease holder exit status %d", st);
	nfswb_mech_files.detach(&dr.d);
	close(up[0]);
	close(down[1]);
	unlink(path);
}

/*
 * The HA failover: nfsd stops, the export is unmounted.  The files
 * mechanism must not hold the written files open in between: `umount`
 * succeeds within a second of the last write (before, the files stayed
 * open until IDLE_DROP_MS, 30 s, and umount said "target is busy").
 * Last, as it unmounts the test filesystem.
 */
static void test_umount(void)
{
	char path[PATH_MAX + 16];
	const char *np[1] = { path };
	struct nfswb_policy_out o;
	uint64_t start, took = 0;
	struct drive dr;
	unsigned int i;
	pid_t a;
	int st, ret = -1, err = 0;

	snprintf(path, sizeof(path), "%s/umount.dat", fs.mnt);
	go_prepare();
	a = writer("nfsd", np, 1, 1000, 0);
	st = run_writer(&dr, a, false);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer failed");
	T_CHECK(count_files(&dr.d, "files_tracked") == 1, "%" PRIu64
		" files tracked", count_files(&dr.d, "files_tracked"));
	/* The daemon goes on running while the admin unmounts. */
	start = nfswb_now_ms();
	for (i = 0; i < 10; i++) {
		ret = umount2(fs.mnt, 0);
		err = errno;
		if (ret == 0)
			break;
		step(&dr, &o);
	}
	took = nfswb_now_ms() - start;
	fprintf(stderr, "umount after the last write: %s after %u tries, %"
		PRIu64 " ms\n", ret ? strerror(err) : "done", i + 1, took);
	T_CHECK(ret == 0, "umount %s failed for %" PRIu64 " ms: %s", fs.mnt,
		took, strerror(err));
	if (ret == 0) {
		fs.mnt[0] = '\0';
		/* Its files are gone now: they drop out, nothing breaks. */
		for (i = 0; i < NFSWB_FILES_NLINK_EVERY + 2; i++)
			step(&dr, &o);
		T_CHECK(count_files(&dr.d, "files_tracked") == 0, "%" PRIu64
			" files of an unmounted filesystem still tracked",
			count_files(&dr.d, "files_tracked"));
	}
	nfswb_mech_files.detach(&dr.d);
}

int main(void)
{
	struct nfswb_cachestat cs;
	char why[256];
	int fd;

	nfswb_log_init("test-mech-files", false);
	nfswb_log_set_level(L_WARNING);
	if (nfswb_mech_files.probe("", why, sizeof(why)) < 0)
		T_SKIP("%s", why);
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd >= 0 && nfswb_cachestat(fd, 0, 0, &cs) == -ENOSYS)
		T_SKIP("cachestat(2) missing (Linux < 6.5): cannot measure dirty bytes");
	if (fd >= 0)
		close(fd);
	loopfs_setup(&fs, 1024, 1);
	atexit(bdi_restore);
	bdi_set(0, "max_ratio", "100");
	bdi_set(1, "min_ratio", "40");
	test_target(true);
	test_target(false);
	test_bound_and_delete();
	test_rewrite_below();
	test_random_rewrite_kicked();
	test_append_walk(true);
	test_append_walk(false);
	test_look_bounded();
	test_sparse(300ull << 30);
	/* 15.9 TiB: ext4's largest file with 4 KiB blocks is 16 TiB. */
	test_sparse((159ull << 40) / 10);
	test_new_behind_clean();
	test_lease(false);
	test_lease(true);
	test_umount();
	return t_result();
}
