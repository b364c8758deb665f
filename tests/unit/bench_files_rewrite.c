// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_files_rewrite: what the files mechanism costs a random-rewrite
 * workload, the fio job of the lab's report: 64 KiB random writes over
 * a 256 MiB file, fdatasync every 2 MiB, as fast as they go.
 *
 * A child named "nfsd" (so its writes are tracked) runs the job on a
 * scratch ext4 loop filesystem for SECONDS, in three modes, alternated
 * RUNS times so that a noisy machine hits all of them alike:
 *   off     no mechanism at all;
 *   events  attached, fanotify events read, never refreshed;
 *   full    as nfswbd runs it: events, dirty_bytes() every 100 ms and
 *           apply() with the policy (a bandwidth high enough that it
 *           does not kick: the lab saw zero kicks);
 *   kick    the lab's randwrite instead: the file laid out first (all
 *           of it cached), the writer paced to 4 MiB/s, a
 *           16 MiB/s disk writing what arrives, and
 *           background_time=100ms,background_min=512K, a target below
 *           the 2 MiB between two fdatasyncs: it kicks continuously,
 *           what kicking early on such a file costs.
 * Printed per mode: the writer's MiB/s (median), and for full and kick
 * the CPU time of one interval's dirty_bytes() and apply() (mean, in
 * us) and the mechanism's CPU (this process, io_uring workers included)
 * in % of one core.
 *
 * Usage: bench_files_rewrite [seconds [runs [file_mib]]] (defaults 5 3
 * 256); as root.  Build without --enable-sanitizers.
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

#define BLOCK		(64 * 1024)
#define SYNC_EVERY	(2u << 20)
#define MAX_RUNS	9
#define MAX_CALLS	4096

enum mode { OFF, EVENTS, FULL, KICK, NMODES };
static const char *const mode_names[NMODES] = { "off", "events", "full",
						   "kick" };

static struct loopfs fs;
static unsigned int seconds = 5, runs = 3, file_mib = 256;

/* The kick mode's pace: the lab's randwrite arrives at about this. */
#define KICK_WRITER_RATE	(4u << 20)

/*
 * The fio job, at @rate bytes/s (0: as fast as it goes); writes the
 * MiB/s it reached to @out.
 */
static pid_t start_writer(const char *path, int ready_fd, int out_fd,
			  uint64_t rate)
{
	uint64_t size = (uint64_t)file_mib << 20, done = 0, start, end;
	static char buf[BLOCK];
	double mibs;
	pid_t pid;
	int fd;

	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_NAME, "nfsd");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(buf, 'r', sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		_exit(3);
	/*
	 * Paced, it is the lab's job, whose file fio lays out first: all
	 * of it is in the cache, which every cachestat walks.
	 */
	for (uint64_t off = 0; rate && off < size; off += BLOCK)
		if (pwrite(fd, buf, BLOCK, (off_t)off) != BLOCK)
			_exit(3);
	if (rate && fsync(fd) < 0)
		_exit(3);
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	srand(7);
	start = nfswb_now_us();
	end = start + (uint64_t)seconds * 1000000;
	while (nfswb_now_us() < end) {
		off_t off = (off_t)((uint64_t)rand() % (size / BLOCK)) * BLOCK;

		if (pwrite(fd, buf, BLOCK, off) != BLOCK)
			_exit(4);
		done += BLOCK;
		if (rate) {
			uint64_t due = start + done * 1000000 / rate;
			uint64_t now = nfswb_now_us();

			if (due > now)
				usleep((useconds_t)(due - now));
		}
		if (done % SYNC_EVERY == 0 && fdatasync(fd) < 0)
			_exit(4);
	}
	mibs = (double)done / (1 << 20) / ((double)(nfswb_now_us() - start) / 1e6);
	if (write(out_fd, &mibs, sizeof(mibs)) != sizeof(mibs))
		_exit(5);
	_exit(0);
}

/* CPU time of this thread: a call's own cost, not the machine's load. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

struct result {
	double mibs, call_us, cpu_pct;
	uint64_t kicks, events, kicked;
};

static void one_run(enum mode mode, int run, struct result *res)
{
	static double calls[MAX_CALLS];
	struct bench_dev b;
	struct rusage r0, r1;
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	char path[PATH_MAX + 32], c;
	int st, left, ready[2], out[2];
	unsigned int ncalls = 0;
	uint64_t t0, t1, next;
	pid_t w;

	memset(res, 0, sizeof(*res));
	if (mode != OFF) {
		bench_attach(&b, fs.mnt, fs.bdi, 64);
		if (mode == KICK) {
			b.d.opts.background_time_ms = 100;
			b.d.opts.background_min = 512 << 10;
			b.write_rate = KICK_WRITER_RATE;
		}
		pfd.fd = nfswb_mech_files.poll_fd(&b.d);
	}
	snprintf(path, sizeof(path), "%s/fio-%s-%d", fs.mnt, mode_names[mode],
		 run);
	if (pipe(ready) < 0 || pipe(out) < 0)
		T_SKIP("pipe: %s", strerror(errno));
	w = start_writer(path, ready[1], out[1],
			 mode == KICK ? KICK_WRITER_RATE : 0);
	while (read(ready[0], &c, 1) != 1)
		if (errno != EINTR)
			T_SKIP("writer failed to start");
	getrusage(RUSAGE_SELF, &r0);
	t0 = nfswb_now_us();
	next = t0 + INTERVAL_MS * 1000;
	while (waitpid(w, &st, WNOHANG) == 0) {
		left = (int)(((int64_t)next - (int64_t)nfswb_now_us()) / 1000);
		if (left > 0) {
			if (poll(&pfd, mode == OFF ? 0 : 1, left) > 0)
				nfswb_mech_files.on_readable(&b.d);
			continue;
		}
		next += INTERVAL_MS * 1000;
		if (mode != FULL && mode != KICK)
			continue;
		{
			uint64_t c0 = cpu_ns(), dirty;

			dirty = nfswb_mech_files.dirty_bytes(&b.d);
			/* full: a bandwidth never behind, no kicks. */
			bench_interval(&b, dirty, mode == KICK ? 16ull << 20 :
							       4ull << 30);
			if (ncalls < MAX_CALLS)
				calls[ncalls++] = (double)(cpu_ns() - c0) / 1e3;
		}
	}
	t1 = nfswb_now_us();
	getrusage(RUSAGE_SELF, &r1);
	if (!WIFEXITED(st) || WEXITSTATUS(st) ||
	    read(out[0], &res->mibs, sizeof(res->mibs)) != sizeof(res->mibs))
		T_SKIP("writer failed (status %d)", st);
	res->cpu_pct = bench_cpu_pct(&r0, &r1, t1 - t0);
	/* The mean: a file looked at every 4th call makes the median 0. */
	for (unsigned int k = 0; k < ncalls; k++)
		res->call_us += calls[k] / ncalls;
	if (mode != OFF) {
		res->kicks = bench_count(&b, "kicks");
		res->events = bench_count(&b, "events_seen");
		res->kicked = bench_count(&b, "bytes_kicked");
		nfswb_mech_files.detach(&b.d);
	}
	printf("run %d %-6s: %7.1f MiB/s; interval %6.0f us; mechanism CPU %5.2f %%; events %" PRIu64 ", kicks %" PRIu64 " (%.1f MiB)\n",
	       run, mode_names[mode], res->mibs, res->call_us, res->cpu_pct,
	       res->events, res->kicks, (double)res->kicked / (1 << 20));
	fflush(stdout);
	close(ready[0]);
	close(ready[1]);
	close(out[0]);
	close(out[1]);
	unlink(path);
}

int main(int argc, char **argv)
{
	double v[NMODES][MAX_RUNS], us[NMODES][MAX_RUNS], cpu[NMODES][MAX_RUNS];
	struct result r;
	unsigned int i, m;

	if (argc > 1)
		seconds = (unsigned int)atoi(argv[1]);
	if (argc > 2)
		runs = (unsigned int)atoi(argv[2]);
	if (argc > 3)
		file_mib = (unsigned int)atoi(argv[3]);
	if (!seconds || !runs || runs > MAX_RUNS || !file_mib) {
		fprintf(stderr, "usage: %s [seconds [runs (1-%d) [file_mib]]]\n",
			argv[0], MAX_RUNS);
		return T_EXIT_FAIL;
	}
	nfswb_log_init("bench-files-rewrite", false);
	nfswb_log_set_level(L_WARNING);
	loopfs_setup(&fs, file_mib * 2 + 256, 1);
	printf("64 KiB random writes over %u MiB, fdatasync every 2 MiB, %u s x %u runs\n",
	       file_mib, seconds, runs);
	for (i = 0; i < runs; i++) {
		for (m = 0; m < NMODES; m++) {
			one_run((enum mode)m, (int)i, &r);
			v[m][i] = r.mibs;
			us[m][i] = r.call_us;
			cpu[m][i] = r.cpu_pct;
		}
	}
	for (m = 0; m < NMODES; m++) {
		double mibs = bench_median(v[m], runs);

		if (m == KICK)
			printf("median %-6s: %.1f MiB/s (paced)", mode_names[m],
			       mibs);
		else
			printf("median %-6s: %.1f MiB/s (%+.1f %% against off)",
			       mode_names[m], mibs,
			       100.0 * (mibs / v[OFF][runs / 2] - 1));
		if (m == FULL || m == KICK)
			printf("; interval %.0f us, mechanism CPU %.2f %%",
			       bench_median(us[m], runs),
			       bench_median(cpu[m], runs));
		printf("\n");
	}
	return T_EXIT_PASS;
}
