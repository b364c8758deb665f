// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lab-writer: the load generator the NFS lab runs inside its guest.
 *
 *   lab-writer write FILE [-s SIZE] [-r RATE] [-b BS] [-S SEED]
 *	Write SIZE bytes of a known pattern at RATE bytes/s (0: as fast as
 *	the file takes them), fsync at the end, print the times.
 *   lab-writer crash FILE MARKER [-s SIZE] [-c EVERY] [-r RATE] [-S SEED]
 *	[--reset]
 *	Write the pattern and fsync every EVERY bytes; after each fsync
 *	returns, append "committed FILE LENGTH SEED" to MARKER and fsync it.
 *	With --reset, hard-reset the machine through sysrq right after the
 *	last marker, while the server still has the writes in flight.
 *   lab-writer verify FILE LENGTH SEED
 *	Check the first LENGTH bytes of FILE against the pattern.
 *   lab-writer tempfiles DIR [-s SIZE] [-l LIFE_MS] [-t DURATION_MS]
 *	Create, fill and delete SIZE-byte files in DIR, one at a time, each
 *	living LIFE_MS, for DURATION_MS (0: until SIGTERM, which cuts the
 *	last file's life short); before each unlink, count with cachestat(2)
 *	the file's pages that went to the disk: those no longer dirty.
 *   lab-writer sample OUT [-i INTERVAL_MS] LABEL=FILE...
 *	Every INTERVAL_MS until SIGTERM, read each FILE and append one JSON
 *	line to OUT: {"t": seconds, "LABEL.Key": n, ...} for "Key: n" lines
 *	(/proc/meminfo, debugfs bdi stats), "LABEL.i": n for the i-th
 *	number of a file of plain numbers (/sys/block/DEV/stat), and
 *	"LABEL.name.i": n for the i-th number of a "name n n ..." line
 *	(/proc/stat; the first ten of each line).
 *
 * Sizes are lib/units.c's (K, M and G are powers of 1024).  The pattern
 * is lib/pattern.c's, a function of (seed, offset), so any byte can be
 * checked on its own.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pattern.h"
#include "units.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

/* Layout of cachestat(2)'s arguments, Linux 6.5 and later. */
struct lab_cachestat_range {
	uint64_t off;
	uint64_t len;
};

struct lab_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

struct opts {
	uint64_t size;
	uint64_t rate;
	uint64_t bs;
	uint64_t every;
	uint64_t seed;
	uint64_t life_ms;
	uint64_t duration_ms;
	bool reset;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sizes, seeds and intervals: lib/units.c's one size parser. */
static int parse_size(const char *s, uint64_t *out)
{
	const char *why;

	if (nfswb_parse_size(s, out, &why)) {
		fprintf(stderr, "lab-writer: '%s': %s\n", s, why);
		return -1;
	}
	return 0;
}

/*
 * Fill @len bytes (a multiple of 8) for file offset @off (likewise) with
 * lib/pattern.c's pattern, the one nfswb-load writes: stream 0 of @seed.
 */
static void pattern_fill(uint64_t *buf, uint64_t off, uint64_t len,
			 uint64_t seed)
{
	nfswb_pattern_fill(buf, nfswb_pattern_key(seed, 0), off, len);
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* Set by SIGTERM or SIGINT where the mode installs on_term(). */
static volatile sig_atomic_t stop_asked;

static void on_term(int sig)
{
	(void)sig;
	stop_asked = 1;
}

/* Sleep until @start + @bytes / @rate, the pacing schedule. */
static void pace(double start, uint64_t bytes, uint64_t rate)
{
	double due, left;
	struct timespec ts;

	if (!rate)
		return;
	due = start + (double)bytes / rate;
	left = due - now_s();
	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int append_marker(const char *marker, const char *file,
			 uint64_t length, uint64_t seed)
{
	char line[PATH_MAX + 64];
	int fd, n, ret = -1;

	fd = open(marker, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0) {
		fprintf(stderr, "lab-writer: %s: %s\n", marker, strerror(errno));
		return -1;
	}
	n = snprintf(line, sizeof(line), "committed %s %" PRIu64 " %" PRIu64 "\n",
		     file, length, seed);
	if (write_all(fd, line, n, lseek(fd, 0, SEEK_END)) || fsync(fd)) {
		fprintf(stderr, "lab-writer: %s: %s\n", marker, strerror(errno));
		goto out;
	}
	/* The serial console too, for a human watching the log. */
	fprintf(stdout, "%s", line);
	fflush(stdout);
	ret = 0;
out:
	close(fd);
	return ret;
}

static void sysrq_reset(void)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY);

	if (fd < 0 || write(fd, "b", 1) != 1)
		fprintf(stderr, "lab-writer: sysrq reset: %s\n", strerror(errno));
	/* Not reached when the reset works. */
	exit(1);
}

/*
 * The write and crash modes.  @marker is NULL for a plain paced write.
 */
static int do_write(const char *file, const char *marker,
		    const struct opts *o)
{
	uint64_t done = 0, since_commit = 0;
	double start, t_fsync, t_end;
	uint64_t *buf;
	int fd, ret = 1;

	buf = aligned_alloc(4096, o->bs);
	if (!buf) {
		fprintf(stderr, "lab-writer: out of memory\n");
		return 1;
	}
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "lab-writer: %s: %s\n", file, strerror(errno));
		goto out_free;
	}
	start = now_s();
	while (done < o->size) {
		uint64_t len = o->size - done < o->bs ? o->size - done : o->bs;

		pace(start, done, o->rate);
		pattern_fill(buf, done, (len + 7) & ~7ULL, o->seed);
		if (write_all(fd, buf, len, done)) {
			fprintf(stderr, "lab-writer: write %s at %" PRIu64 ": %s\n",
				file, done, strerror(errno));
			goto out_close;
		}
		done += len;
		since_commit += len;
		if (marker && (since_commit >= o->every || done == o->size)) {
			if (fsync(fd)) {
				fprintf(stderr, "lab-writer: fsync %s: %s\n",
					file, strerror(errno));
				goto out_close;
			}
			if (append_marker(marker, file, done, o->seed))
				goto out_close;
			since_commit = 0;
		}
	}
	if (marker && o->reset)
		sysrq_reset();
	t_fsync = now_s();
	if (fsync(fd)) {
		fprintf(stderr, "lab-writer: fsync %s: %s\n", file, strerror(errno));
		goto out_close;
	}
	t_end = now_s();
	printf("bytes=%" PRIu64 " write_s=%.3f fsync_s=%.3f total_s=%.3f\n",
	       done, t_fsync - start, t_end - t_fsync, t_end - start);
	ret = 0;
out_close:
	if (close(fd) && !ret) {
		fprintf(stderr, "lab-writer: close %s: %s\n", file, strerror(errno));
		ret = 1;
	}
out_free:
	free(buf);
	return ret;
}

static int do_verify(const char *file, uint64_t length, uint64_t seed)
{
	uint64_t bs = 1 << 20, off = 0;
	uint64_t *got, *want;
	int fd, ret = 1;

	got = malloc(bs);
	want = malloc(bs);
	if (!got || !want) {
		fprintf(stderr, "lab-writer: out of memory\n");
		goto out_free;
	}
	fd = open(file, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "lab-writer: verify %s: %s\n", file, strerror(errno));
		goto out_free;
	}
	while (off < length) {
		uint64_t len = length - off < bs ? length - off : bs;
		ssize_t n = pread(fd, got, len, off);
		uint64_t i;

		if (n < 0) {
			fprintf(stderr, "lab-writer: verify %s: %s\n",
				file, strerror(errno));
			goto out_close;
		}
		if ((uint64_t)n < len) {
			printf("LOST %s: committed %" PRIu64 " bytes, file ends at %"
			       PRIu64 "\n", file, length, off + n);
			goto out_close;
		}
		pattern_fill(want, off, (len + 7) & ~7ULL, seed);
		if (memcmp(got, want, len)) {
			for (i = 0; i < len && ((char *)got)[i] == ((char *)want)[i]; i++)
				;
			printf("LOST %s: committed %" PRIu64
			       " bytes, first wrong byte at %" PRIu64 "\n",
			       file, length, off + i);
			goto out_close;
		}
		off += len;
	}
	printf("verified %s: %" PRIu64 " bytes\n", file, length);
	ret = 0;
out_close:
	close(fd);
out_free:
	free(got);
	free(want);
	return ret;
}

/*
 * What of a temp file went to the disk, just before its unlink: a page
 * of it in the cache and not dirty was written back, or is under
 * writeback, which the unlink's truncate waits for (the write is on its
 * way); an evicted page was clean when reclaimed, so written too.  The
 * dirty pages die with the file: truncate cancels them, they never reach
 * the disk.  (/proc/PID/io could not say this: its write_bytes counts
 * pages when they are dirtied, not written, and cancelled_write_bytes
 * goes to whichever task drops the last reference; nor do the lab's
 * kernels have TASK_IO_ACCOUNTING.)
 */
static int written_bytes(int fd, uint64_t *bytes)
{
	struct lab_cachestat_range range = { 0, 0 };	/* the whole file */
	struct lab_cachestat cs;

	if (syscall(__NR_cachestat, fd, &range, &cs, 0))
		return -1;
	*bytes = (cs.nr_cache - cs.nr_dirty + cs.nr_evicted) * 4096;
	return 0;
}

static int do_tempfiles(const char *dir, const struct opts *o)
{
	struct sigaction sa = { .sa_handler = on_term };
	uint64_t written = 0, created = 0;
	char path[PATH_MAX];
	double start = now_s();
	uint64_t *buf;
	int ret = 1;

	buf = aligned_alloc(4096, o->bs);
	if (!buf) {
		fprintf(stderr, "lab-writer: out of memory\n");
		return 1;
	}
	pattern_fill(buf, 0, o->bs, o->seed);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop_asked &&
	       (!o->duration_ms || (now_s() - start) * 1000 < o->duration_ms)) {
		double born = now_s();
		uint64_t off, t, file_written;
		int fd;

		snprintf(path, sizeof(path), "%s/lab-temp.%" PRIu64, dir, created);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, "lab-writer: %s: %s\n", path, strerror(errno));
			goto out;
		}
		for (off = 0; off < o->size; off += o->bs) {
			uint64_t len = o->size - off < o->bs ? o->size - off : o->bs;

			if (write_all(fd, buf, len, off)) {
				fprintf(stderr, "lab-writer: %s: %s\n", path,
					strerror(errno));
				close(fd);
				goto out;
			}
		}
		/* Its life, in 100 ms steps so that a stop ends it early. */
		for (t = 100; !stop_asked && t < o->life_ms + 100; t += 100)
			pace(born, t < o->life_ms ? t : o->life_ms, 1000);
		if (written_bytes(fd, &file_written)) {
			fprintf(stderr, "lab-writer: cachestat: %s\n", strerror(errno));
			close(fd);
			goto out;
		}
		written += file_written;
		close(fd);
		if (unlink(path)) {
			fprintf(stderr, "lab-writer: unlink %s: %s\n", path,
				strerror(errno));
			goto out;
		}
		created++;
	}
	printf("tempfiles=%" PRIu64 " tempfile_bytes=%" PRIu64
	       " tempfile_bytes_written=%" PRIu64 "\n",
	       created, created * o->size, written);
	ret = 0;
out:
	free(buf);
	return ret;
}

/* The numbers sampled of a "name n n ..." line: /proc/stat's cpu lines
 * have ten, its "intr" line hundreds. */
#define SAMPLE_LINE_MAX 10

/*
 * Append the numbers of the file open at @fd to the JSON line in @f.
 * Opened once and re-read with pread: proc, sysfs and debugfs files
 * give fresh contents at offset 0, and an open per file per sample was a
 * quarter of the sampler's time in a TCG guest.
 */
static void sample_file(FILE *f, const char *label, int fd)
{
	char buf[16384], *p, *end;
	ssize_t n;
	int idx = 0;

	if (fd < 0)
		return;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (!strchr(buf, ':')) {
		/*
		 * Lines of plain numbers (block stat), or of a name and
		 * its numbers (/proc/stat: "cpu 1 2 ...").
		 */
		for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
			const char *name = NULL;
			int i = 0;

			if (isalpha((unsigned char)*p)) {
				name = p;
				p += strcspn(p, " ");
				if (!*p)
					continue;
				*p++ = '\0';
			}
			for (; !name || i < SAMPLE_LINE_MAX; p = end, i++) {
				unsigned long long v = strtoull(p, &end, 10);

				if (end == p)
					break;
				if (name)
					fprintf(f, ",\"%s.%s.%d\":%llu", label,
						name, i, v);
				else
					fprintf(f, ",\"%s.%d\":%llu", label,
						idx++, v);
			}
		}
		return;
	}
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
		char *colon = strchr(p, ':');
		unsigned long long v;

		if (!colon)
			continue;
		*colon = '\0';
		v = strtoull(colon + 1, &end, 10);
		if (end == colon + 1 || strpbrk(p, "\"\\ ("))
			continue;
		fprintf(f, ",\"%s.%s\":%llu", label, p, v);
	}
}

static int do_sample(const char *out, uint64_t interval_ms,
		     char **specs, int nspecs)
{
	struct sigaction sa = { .sa_handler = on_term };
	double start = now_s();
	uint64_t tick;
	int fds[64];
	FILE *f;
	int i;

	if (nspecs > (int)(sizeof(fds) / sizeof(fds[0]))) {
		fprintf(stderr, "lab-writer: sample: at most %zu files\n",
			sizeof(fds) / sizeof(fds[0]));
		return 2;
	}
	for (i = 0; i < nspecs; i++) {
		char *eq = strchr(specs[i], '=');

		if (!eq) {
			fprintf(stderr, "lab-writer: sample: '%s' is not LABEL=FILE\n",
				specs[i]);
			return 2;
		}
		/* A file missing here is left out of every line. */
		fds[i] = open(eq + 1, O_RDONLY | O_CLOEXEC);
		*eq = '\0';
	}
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "lab-writer: %s: %s\n", out, strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (tick = 0; !stop_asked; tick++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		fprintf(f, "{\"t\":%.3f", ts.tv_sec + ts.tv_nsec / 1e9);
		for (i = 0; i < nspecs; i++)
			sample_file(f, specs[i], fds[i]);
		fprintf(f, "}\n");
		/* Lines reach the share once a second; the rest at exit. */
		if ((tick + 1) * interval_ms % 1000 < interval_ms)
			fflush(f);
		pace(start, (tick + 1) * interval_ms, 1000);
	}
	return fclose(f) ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lab-writer write FILE [-s SIZE] [-r RATE] [-b BS] [-S SEED]\n"
		"       lab-writer crash FILE MARKER [-s SIZE] [-c EVERY] [-r RATE]"
		" [-S SEED] [--reset]\n"
		"       lab-writer verify FILE LENGTH SEED\n"
		"       lab-writer tempfiles DIR [-s SIZE] [-l LIFE_MS] [-t DURATION_MS]\n"
		"       lab-writer sample OUT [-i INTERVAL_MS] LABEL=FILE...\n");
}

int main(int argc, char **argv)
{
	struct opts o = {
		.size = 384ULL << 20, .bs = 1 << 20, .every = 8 << 20,
		.seed = 1, .life_ms = 5000, .duration_ms = 30000,
	};
	uint64_t interval_ms = 100;
	const char *pos[3] = { NULL, NULL, NULL };
	const char *mode;
	int i, npos = 0;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	if (!strcmp(mode, "-h") || !strcmp(mode, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(mode, "sample")) {
		i = 3;
		if (argc > 4 && !strcmp(argv[3], "-i")) {
			if (parse_size(argv[4], &interval_ms) || !interval_ms) {
				fprintf(stderr, "lab-writer: -i needs a number\n");
				return 2;
			}
			i = 5;
		}
		if (argc < 3 || i >= argc) {
			usage(stderr);
			return 2;
		}
		return do_sample(argv[2], interval_ms, argv + i, argc - i);
	}
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		uint64_t *dst = NULL;

		if (!strcmp(a, "--reset")) {
			o.reset = true;
			continue;
		}
		if (a[0] == '-' && a[1] && !a[2]) {
			switch (a[1]) {
			case 's': dst = &o.size; break;
			case 'r': dst = &o.rate; break;
			case 'b': dst = &o.bs; break;
			case 'c': dst = &o.every; break;
			case 'S': dst = &o.seed; break;
			case 'l': dst = &o.life_ms; break;
			case 't': dst = &o.duration_ms; break;
			}
			if (!dst) {
				fprintf(stderr, "lab-writer: unknown option %s\n", a);
				return 2;
			}
			if (i + 1 >= argc || parse_size(argv[i + 1], dst)) {
				fprintf(stderr, "lab-writer: %s needs a number\n", a);
				return 2;
			}
			i++;
			continue;
		}
		if (npos == 3) {
			fprintf(stderr, "lab-writer: too many arguments\n");
			return 2;
		}
		pos[npos++] = a;
	}
	if (!o.bs || o.bs % 8 || !o.every) {
		fprintf(stderr, "lab-writer: -b must be a non-zero multiple of 8, -c non-zero\n");
		return 2;
	}

	if (!strcmp(mode, "write") && npos == 1)
		return do_write(pos[0], NULL, &o);
	if (!strcmp(mode, "crash") && npos == 2)
		return do_write(pos[0], pos[1], &o);
	if (!strcmp(mode, "verify") && npos == 3) {
		uint64_t length, seed;

		if (parse_size(pos[1], &length) || parse_size(pos[2], &seed)) {
			fprintf(stderr, "lab-writer: verify: LENGTH and SEED are numbers\n");
			return 2;
		}
		return do_verify(pos[0], length, seed);
	}
	if (!strcmp(mode, "tempfiles") && npos == 1)
		return do_tempfiles(pos[0], &o);
	usage(stderr);
	return 2;
}
