// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_mech_sysfs: the kernel and limit mechanisms against a fake sysroot,
 * driven as nfswbd drives them (observe, the policy's decision, apply).
 * What they report and write, the clamp, and that detach (and a journal
 * left behind) put every original back.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "mechdev.h"
#include "log.h"
#include "mech.h"
#include "restore.h"
#include "test.h"

static uint64_t count_kernel(const struct nfswb_mech_dev *d, const char *name)
{
	return nfswb_mech_counter(&nfswb_mech_kernel, d, name);
}

static uint64_t count_limit(const struct nfswb_mech_dev *d, const char *name)
{
	return nfswb_mech_counter(&nfswb_mech_limit, d, name);
}

#define BDI	"7:42"
#define MiB	(1ull << 20)

/*
 * One interval as nfswbd runs it for @m alone: what the mechanism and the
 * kernel report, the policy's decision at @bandwidth, @m's apply.
 */
static int interval(const struct nfswb_mech *m, struct nfswb_mech_dev *d,
		    uint64_t bandwidth)
{
	struct nfswb_policy_in in = {
		.interval_ms = 100,
		.bandwidth = bandwidth,
		.background_time_ms = d->opts.background_time_ms,
		.commit_target_ms = d->opts.commit_target_ms,
	};
	struct nfswb_policy_out o;

	m->observe(d, &in);
	nfswb_policy_decide(&in, &o);
	return m->apply(d, &o);
}

static char root[] = "/tmp/nfswb-mechsysfs-XXXXXX";
static char state[PATH_MAX];

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%s\n", content) < 0 || fclose(f)) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
}

static const char *get(const char *rel)
{
	static char buf[128];
	char path[PATH_MAX];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return "(missing)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

/* The fake bdi's @attr reads @want (a macro: the failure names its line). */
#define CHECK_ATTR(attr, want, what)					\
	T_CHECK(!strcmp(get("sys/class/bdi/" BDI "/" attr), want),	\
		"%s: " attr " is %s, want %s", what,			\
		get("sys/class/bdi/" BDI "/" attr), want)

static void mkdirs(const char *rel)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, rel);
	if (system(cmd)) {
		fprintf(stderr, "%s failed\n", cmd);
		exit(T_EXIT_FAIL);
	}
}

static void fake_tree(void)
{
	mkdirs("sys/class/bdi/" BDI);
	mkdirs("proc");
	put("sys/class/bdi/" BDI "/strict_limit", "0");
	put("sys/class/bdi/" BDI "/max_bytes", "4932800512");
	put("sys/class/bdi/" BDI "/max_ratio_fine", "1000000");
	/* 1 GiB of dirty threshold in 4 KiB pages. */
	put("proc/vmstat", "nr_dirty 12\nnr_dirty_threshold 262144\n");
}

/*
 * A device of the fake tree, its journal open, @background_time_ms and
 * @commit_target_ms set (0: the default), @m attached; returns the journal.
 */
static struct nfswb_restore *attach_dev(const struct nfswb_mech *m,
					struct nfswb_mech_dev *d,
					struct nfswb_device_id *id,
					uint64_t background_time_ms,
					uint64_t commit_target_ms)
{
	struct nfswb_restore *r = t_journal_open_root(state, root);
	char why[256];

	t_mech_dev_init(d, id, r, root, BDI);
	if (background_time_ms)
		d->opts.background_time_ms = background_time_ms;
	if (commit_target_ms)
		d->opts.commit_target_ms = commit_target_ms;
	T_CHECK(m->attach(d, why, sizeof(why)) == 0, "%s attach: %s", m->name,
		why);
	return r;
}

static void test_kernel(void)
{
	struct nfswb_device_id id;
	struct nfswb_mech_dev d;
	struct nfswb_restore *r;
	char why[256], want[PATH_MAX + 128];

	T_CHECK(nfswb_mech_kernel.probe(root, why, sizeof(why)) < 0,
		"probe must fail without the knob");
	snprintf(want, sizeof(want),
		 "kernel lacks the per-bdi knob: no %s/sys/class/bdi/*/dirty_background_{bytes,time_ms,time} (see kernel-patch/)",
		 root);
	T_CHECK(!strcmp(why, want), "probe reason: %s", why);

	put("sys/class/bdi/" BDI "/dirty_background_time", "0");
	T_CHECK(nfswb_mech_kernel.probe(root, why, sizeof(why)) == 0,
		"probe with the knob: %s", why);

	r = attach_dev(&nfswb_mech_kernel, &d, &id, 1500, 0);
	CHECK_ATTR("dirty_background_time", "1500", "knob");
	T_CHECK(count_kernel(&d, "knob_ms") == 1500, "knob_ms %" PRIu64,
		count_kernel(&d, "knob_ms"));

	/*
	 * Without the kernel's estimate the knob is background_time as is:
	 * a new one is written, the same one is not written again.
	 */
	d.opts.background_time_ms = 700;
	T_CHECK(interval(&nfswb_mech_kernel, &d, 32 * MiB) == 0, "apply");
	CHECK_ATTR("dirty_background_time", "700", "knob after change");
	put("sys/class/bdi/" BDI "/dirty_background_time", "699");
	T_CHECK(interval(&nfswb_mech_kernel, &d, 32 * MiB) == 0, "apply");
	CHECK_ATTR("dirty_background_time", "699",
		   "knob rewritten without a change");
	/* Back to what it set: a value changed by someone else stays. */
	put("sys/class/bdi/" BDI "/dirty_background_time", "700");

	/*
	 * With the kernel's estimate shown (patch 5/5), the knob makes its
	 * threshold our target: 32 MiB over a kernel at 100 MiB/s is 320 ms;
	 * a move within 1/8 is not written, a bigger one is.
	 */
	put("sys/class/bdi/" BDI "/write_bandwidth", "104857600");
	nfswb_mech_kernel.detach(&d);
	d.opts.background_time_ms = 1000;
	T_CHECK(nfswb_mech_kernel.attach(&d, why, sizeof(why)) == 0,
		"attach: %s", why);
	T_CHECK(interval(&nfswb_mech_kernel, &d, 32 * MiB) == 0, "apply");
	CHECK_ATTR("dirty_background_time", "320",
		   "knob over a 100 MiB/s kernel estimate");
	put("sys/class/bdi/" BDI "/write_bandwidth", "94371840"); /* 90 MiB/s */
	T_CHECK(interval(&nfswb_mech_kernel, &d, 32 * MiB) == 0, "apply");
	T_CHECK(count_kernel(&d, "knob_ms") == 320,
		"rewrote for a 1/10 move: %" PRIu64,
		count_kernel(&d, "knob_ms"));
	put("sys/class/bdi/" BDI "/write_bandwidth", "33554432");
	T_CHECK(interval(&nfswb_mech_kernel, &d, 32 * MiB) == 0, "apply");
	CHECK_ATTR("dirty_background_time", "1000",
		   "knob once the estimates agree");

	nfswb_mech_kernel.detach(&d);
	CHECK_ATTR("dirty_background_time", "0", "restored to 0");
	T_CHECK(nfswb_restore_count(r) == 0, "journal empty");

	/* A bdi without the knob: attach fails naming the file. */
	strcpy(id.bdi, "7:43");
	T_CHECK(nfswb_mech_kernel.attach(&d, why, sizeof(why)) < 0 &&
		strstr(why, "7:43/dirty_background_{bytes,time_ms,time}"),
		"attach on a bdi without the knob: %s", why);
	nfswb_mech_kernel.detach(&d);
	nfswb_restore_close(r);
}

/*
 * Series v2's bytes knob, preferred over the time knobs: nothing is written
 * at attach, then our target (bandwidth x background_time) as is; a move
 * within 1/8 is not written, a bigger one is; detach puts the old value
 * back and the time knobs stay untouched.
 */
static void test_kernel_bytes(void)
{
	static const char knob[] = "sys/class/bdi/" BDI "/dirty_background_bytes";
	static const char time_ms[] = "sys/class/bdi/" BDI "/dirty_background_time_ms";
	struct nfswb_device_id id;
	struct nfswb_mech_dev d;
	struct nfswb_restore *r;
	char why[256];

	put(knob, "0");
	put(time_ms, "0");
	T_CHECK(nfswb_mech_kernel.probe(root, why, sizeof(why)) == 0 &&
		strstr(why, "dirty_background_bytes"), "probe: %s", why);

	r = attach_dev(&nfswb_mech_kernel, &d, &id, 1000, 0);
	T_CHECK(!strcmp(get(knob), "0"), "bytes knob at attach: %s", get(knob));
	T_CHECK(interval(&nfswb_mech_kernel, &d, 32 * MiB) == 0, "apply");
	T_CHECK(!strcmp(get(knob), "33554432"), "bytes knob: %s", get(knob));
	T_CHECK(count_kernel(&d, "knob_bytes") == 32 * MiB,
		"knob_bytes %" PRIu64, count_kernel(&d, "knob_bytes"));
	T_CHECK(interval(&nfswb_mech_kernel, &d, 30 * MiB) == 0, "apply");
	T_CHECK(!strcmp(get(knob), "33554432"), "rewrote for a 1/16 move: %s",
		get(knob));
	T_CHECK(interval(&nfswb_mech_kernel, &d, 16 * MiB) == 0, "apply");
	T_CHECK(!strcmp(get(knob), "16777216"), "bytes knob after halving: %s",
		get(knob));
	T_CHECK(!strcmp(get(time_ms), "0") &&
		!strcmp(get("sys/class/bdi/" BDI "/dirty_background_time"), "0"),
		"a time knob was written beside the bytes knob");
	/* Data at a quarter of the bandwidth: the kernel writes behind. */
	{
		struct nfswb_policy_in in = {
			.interval_ms = 100, .bandwidth = 16 * MiB,
			.write_rate = 4 * MiB, .have_write_rate = true,
			.background_time_ms = d.opts.background_time_ms,
		};
		struct nfswb_policy_out o;

		nfswb_mech_kernel.observe(&d, &in);
		nfswb_policy_decide(&in, &o);
		T_CHECK(nfswb_mech_kernel.apply(&d, &o) == 0 &&
			!strcmp(get(knob), "1048576"),
			"bytes knob writing behind: %s", get(knob));
	}

	nfswb_mech_kernel.detach(&d);
	T_CHECK(!strcmp(get(knob), "0"), "restored to 0: %s", get(knob));
	T_CHECK(nfswb_restore_count(r) == 0, "journal empty");
	nfswb_restore_close(r);
}

static void test_limit(void)
{
	struct nfswb_device_id id;
	struct nfswb_mech_dev d;
	struct nfswb_restore *r;
	char why[256];

	T_CHECK(nfswb_mech_limit.probe(root, why, sizeof(why)) == 0,
		"limit probe: %s", why);
	r = attach_dev(&nfswb_mech_limit, &d, &id, 0, 2000);
	CHECK_ATTR("strict_limit", "0", "attach alone changes nothing");

	/* 128 MiB/s x 2 s. */
	T_CHECK(interval(&nfswb_mech_limit, &d, 128 * MiB) == 0, "apply cap");
	CHECK_ATTR("strict_limit", "1", "strict_limit");
	CHECK_ATTR("max_bytes", "268435456", "max_bytes");
	T_CHECK(count_limit(&d, "cap_bytes") == 256ull << 20, "cap in force %" PRIu64,
		count_limit(&d, "cap_bytes"));

	/* Within 1/8, nothing is rewritten (hysteresis is policy's). */
	T_CHECK(interval(&nfswb_mech_limit, &d, 130 * MiB) == 0,
		"apply no change");
	CHECK_ATTR("max_bytes", "268435456", "unchanged max_bytes");

	/*
	 * Above the 1 GiB dirty threshold reported: clamped, not refused.
	 * The fake max_ratio_fine shows what a kernel would make of the new
	 * max_bytes (the journal reads it back as the value set).
	 */
	put("sys/class/bdi/" BDI "/max_ratio_fine", "217645");
	T_CHECK(interval(&nfswb_mech_limit, &d, 2048 * MiB) == 0,
		"apply big cap");
	CHECK_ATTR("max_bytes", "1073741824", "clamped max_bytes");
	T_CHECK(count_limit(&d, "cap_changes") == 2, "cap changes %" PRIu64,
		count_limit(&d, "cap_changes"));

	/* No cap wanted any more: both settings go back. */
	d.opts.commit_target_ms = 0;
	T_CHECK(interval(&nfswb_mech_limit, &d, 128 * MiB) == 0, "lift cap");
	CHECK_ATTR("strict_limit", "0", "strict_limit restored");
	CHECK_ATTR("max_ratio_fine", "1000000", "max_ratio_fine restored");
	T_CHECK(count_limit(&d, "cap_bytes") == 0, "no cap in force");

	/*
	 * Cap again (at the 64 MiB floor), leave without detach: the next
	 * open restores, except a value someone changed after nfswbd
	 * (max_ratio_fine here): that one is theirs.
	 */
	d.opts.commit_target_ms = 2000;
	T_CHECK(interval(&nfswb_mech_limit, &d, 16 * MiB) == 0, "cap again");
	put("sys/class/bdi/" BDI "/max_ratio_fine", "62500");
	nfswb_restore_close(r);
	r = t_journal_open_root(state, root);
	CHECK_ATTR("strict_limit", "0",
		   "strict_limit restored at the next open");
	CHECK_ATTR("max_ratio_fine", "62500",
		   "max_ratio_fine changed by someone else must stay");
	nfswb_restore_close(r);
	put("sys/class/bdi/" BDI "/max_ratio_fine", "1000000");

	/* Detach restores. */
	r = t_journal_open_root(state, root);
	d.restore = r;
	nfswb_mech_limit.detach(&d);
	T_CHECK(nfswb_mech_limit.attach(&d, why, sizeof(why)) == 0,
		"attach again: %s", why);
	T_CHECK(interval(&nfswb_mech_limit, &d, 16 * MiB) == 0,
		"cap before detach");
	CHECK_ATTR("strict_limit", "1", "strict_limit set");
	nfswb_mech_limit.detach(&d);
	CHECK_ATTR("strict_limit", "0", "detach restored strict_limit");
	T_CHECK(nfswb_restore_count(r) == 0, "journal empty after detach");
	nfswb_restore_close(r);
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
}

int main(void)
{
	nfswb_log_init("test-mech-sysfs", false);
	nfswb_log_set_level(L_WARNING);
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return T_EXIT_FAIL;
	}
	atexit(cleanup);
	snprintf(state, sizeof(state), "%s/state", root);
	fake_tree();
	test_kernel();
	test_kernel_bytes();
	test_limit();
	return t_result();
}
