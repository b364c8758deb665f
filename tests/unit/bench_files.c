// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_files: the files mechanism's own cost under a synthetic NFS load.
 *
 * A child process named "nfsd" writes WRITES_PER_S blocks per second
 * spread over NFILES files on a scratch ext4 loop filesystem, while this
 * process runs the files mechanism as nfswbd does (fanotify events,
 * dirty_bytes, policy, apply every 100 ms).  Printed per run: the CPU the
 * mechanism used (user + system from getrusage(RUSAGE_SELF), its io_uring
 * workers included) as a percentage of one core, and this process's
 * resident set; then the median of the runs.  Aim: < 1 % and < 16 MiB.
 *
 * Usage: bench_files [seconds [writes_per_s [files [block [runs]]]]]
 * (defaults 10 20000 10000 4096 3); as root.  Build without
 * --enable-sanitizers for meaningful RSS.
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_files.h"
#include "log.h"
#include "loopfs.h"

#define MAX_RUNS	9

static struct loopfs fs;
static unsigned int seconds = 10, rate = 20000, nfiles = 10000, block = 4096;
static unsigned int runs = 3;

/* Each process holds about @n files: the writer its files, we the LRU. */
static void raise_nofile(unsigned int n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max < n)
		T_SKIP("RLIMIT_NOFILE hard limit below %u", n);
	rl.rlim_cur = n;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		T_SKIP("cannot raise RLIMIT_NOFILE to %u: %s", n,
		       strerror(errno));
}

#define WARMUP_S	5

/*
 * The "nfsd" writer: @rate writes/s of @block bytes over @nfiles files
 * for WARMUP_S + seconds; a byte on @ready_fd once its files are open.
 */
static pid_t start_writer(int run, int ready_fd)
{
	uint64_t start, due, done = 0, end;
	char path[PATH_MAX + 32], *buf;
	struct timespec ts;
	unsigned int i;
	int *fds;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_NAME, "nfsd");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	buf = malloc(block);
	fds = calloc(nfiles, sizeof(*fds));
	if (!buf || !fds)
		_exit(2);
	memset(buf, 'n', block);
	for (i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/r%d-f%u", fs.mnt, run, i);
		fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fds[i] < 0)
			_exit(3);
	}
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	start = nfswb_now_us();
	end = start + (uint64_t)(seconds + WARMUP_S) * 1000000;
	srand(42);
	while (nfswb_now_us() < end) {
		due = (nfswb_now_us() - start) * rate / 1000000;
		for (; done < due && nfswb_now_us() < end; done++)
			if (write(fds[(unsigned int)rand() % nfiles], buf,
				  block) != (ssize_t)block)
				_exit(4);
		ts.tv_sec = 0;
		ts.tv_nsec = 500000;
		nanosleep(&ts, NULL);
	}
	printf("writer: %.0f writes/s achieved\n",
	       (double)done * 1e6 / (double)(nfswb_now_us() - start));
	fflush(stdout);
	_exit(0);
}

static void one_run(int run, double *cpu_pct, double *rss_mib)
{
	struct bench_dev b;
	struct rusage r0, r1, m0, m1;
	struct pollfd pfd;
	uint64_t t0 = 0, t1, next, warm;
	int st, left, ready[2];
	double main_pct;
	pid_t w;
	char c;

	bench_attach(&b, fs.mnt, fs.bdi, nfiles + 512);
	pfd.fd = nfswb_mech_files.poll_fd(&b.d);
	pfd.events = POLLIN;

	if (pipe(ready) < 0)
		T_SKIP("pipe: %s", strerror(errno));
	w = start_writer(run, ready[1]);
	/* Creating the files is setup, not load: measure from the writes. */
	while (read(ready[0], &c, 1) != 1) {
		if (errno != EINTR)
			T_SKIP("writer failed to start");
	}
	close(ready[0]);
	close(ready[1]);
	warm = nfswb_now_us() + WARMUP_S * 1000000;
	next = nfswb_now_us() + INTERVAL_MS * 1000;
	while (waitpid(w, &st, WNOHANG) == 0) {
		if (!t0 && nfswb_now_us() >= warm) {
			getrusage(RUSAGE_SELF, &r0);
			getrusage(RUSAGE_THREAD, &m0);
			t0 = nfswb_now_us();
		}
		left = (int)(((int64_t)next - (int64_t)nfswb_now_us()) / 1000);
		if (left > 0 && poll(&pfd, 1, left) > 0) {
			nfswb_mech_files.on_readable(&b.d);
			continue;
		}
		next += INTERVAL_MS * 1000;
		/* A bandwidth low enough that the policy kicks: their cost counts. */
		bench_interval(&b, nfswb_mech_files.dirty_bytes(&b.d), 32ull << 20);
	}
	t1 = nfswb_now_us();
	getrusage(RUSAGE_SELF, &r1);
	getrusage(RUSAGE_THREAD, &m1);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		T_SKIP("writer failed (status %d): too few inodes or space?",
		       st);
	*cpu_pct = bench_cpu_pct(&r0, &r1, t1 - t0);
	main_pct = bench_cpu_pct(&m0, &m1, t1 - t0);
	/* The peak, from the kernel: sampling /proc here would cost CPU. */
	*rss_mib = (double)r1.ru_maxrss / 1024.0;
	printf("run %d: %.1f s, CPU %.2f %% of one core (main loop %.2f %%, the rest io_uring workers), RSS %.1f MiB; events %"
	       PRIu64 " (ignored %" PRIu64 "), tracked %" PRIu64 ", evicted %"
	       PRIu64 ", kicks %" PRIu64 " (%" PRIu64 " MiB), errors %" PRIu64
	       "\n", run, (double)(t1 - t0) / 1e6, *cpu_pct, main_pct,
	       *rss_mib,
	       bench_count(&b, "events_seen"), bench_count(&b, "events_ignored"),
	       bench_count(&b, "files_tracked"), bench_count(&b, "files_evicted"),
	       bench_count(&b, "kicks"), bench_count(&b, "bytes_kicked") >> 20,
	       bench_count(&b, "errors"));
	fflush(stdout);
	nfswb_mech_files.detach(&b.d);
}

int main(int argc, char **argv)
{
	double cpu[MAX_RUNS], rss[MAX_RUNS];
	char cmd[PATH_MAX + 32];
	unsigned int i;

	if (argc > 1)
		seconds = (unsigned int)atoi(argv[1]);
	if (argc > 2)
		rate = (unsigned int)atoi(argv[2]);
	if (argc > 3)
		nfiles = (unsigned int)atoi(argv[3]);
	if (argc > 4)
		block = (unsigned int)atoi(argv[4]);
	if (argc > 5)
		runs = (unsigned int)atoi(argv[5]);
	if (!seconds || !rate || !nfiles || !block || !runs ||
	    runs > MAX_RUNS) {
		fprintf(stderr, "usage: %s [seconds [writes_per_s [files [block [runs<=%d]]]]]\n",
			argv[0], MAX_RUNS);
		return 2;
	}
	nfswb_log_init("bench-files", false);
	nfswb_log_set_level(L_WARNING);
	raise_nofile(nfiles + 1024);
	loopfs_setup(&fs, 4096, 1);
	printf("files mechanism: %u writes/s of %u B over %u files by \"nfsd\", %u s x %u runs\n",
	       rate, block, nfiles, seconds, runs);
	for (i = 0; i < runs; i++) {
		one_run((int)i, &cpu[i], &rss[i]);
		/* Start each run from a clean filesystem. */
		snprintf(cmd, sizeof(cmd), "rm -f '%s'/r%u-* && sync", fs.mnt,
			 i);
		if (system(cmd))
			fprintf(stderr, "cleanup after run %u failed\n", i);
	}
	printf("median: CPU %.2f %% of one core (aim < 1 %%), RSS %.1f MiB (aim < 16 MiB)\n",
	       bench_median(cpu, runs), bench_median(rss, runs));
	return 0;
}
