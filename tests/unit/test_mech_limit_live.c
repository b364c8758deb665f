// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_mech_limit_live: the limit mechanism on a real loop device's bdi.
 *
 * limit: strict_limit=1 and max_bytes are set and put back by detach;
 * then NFSWB_KILL_LOOPS rounds (default 20) of a child that changes the
 * cap continuously and is killed with SIGKILL at a random moment, each
 * followed by nfswb_restore_open(), must leave strict_limit and
 * max_ratio_fine (the exact form of max_bytes) as they were.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bdiattr.h"
#include "journal.h"
#include "mechdev.h"
#include "log.h"
#include "loopfs.h"
#include "mech.h"
#include "restore.h"
#include "test.h"

#define MiB ((uint64_t)1 << 20)

static struct loopfs fs;
static char state[PATH_MAX + 16];

struct orig {
	const char *attr;
	char value[64];
};

/*
 * max_bytes is shown as max_ratio_fine x the dirty threshold of the
 * moment, which moves with free memory: the ratio is what must come back.
 */
static struct orig origs[] = {
	{ "strict_limit", "" }, { "max_ratio_fine", "" },
	{ "min_ratio_fine", "" },
};

static void attr_path(char *buf, size_t len, const char *attr)
{
	if (nfswb_bdi_attr_path(buf, len, "", fs.bdi, attr) < 0) {
		fprintf(stderr, "bdi path too long\n");
		exit(T_EXIT_FAIL);
	}
}

static void read_attr(const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	attr_path(path, sizeof(path), attr);
	f = fopen(path, "r");
	if (!f || !fgets(buf, (int)len, f)) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static int count_changed(const char *when)
{
	char now[64];
	size_t i;
	int changed = 0;

	for (i = 0; i < sizeof(origs) / sizeof(origs[0]); i++) {
		read_attr(origs[i].attr, now, sizeof(now));
		if (strcmp(now, origs[i].value)) {
			fprintf(stderr, "%s: %s is %s, was %s\n", when,
				origs[i].attr, now, origs[i].value);
			changed++;
		}
	}
	return changed;
}

static void test_set_and_detach(void)
{
	struct nfswb_policy_out o = { .cap_bytes = 64 * MiB,
				      .cap_change = true };
	struct nfswb_device_id id;
	struct nfswb_mech_dev d;
	struct nfswb_restore *r = t_journal_open(state);
	uint64_t max_bytes;
	char why[256], v[64];

	t_mech_dev_init(&d, &id, r, "", fs.bdi);
	T_CHECK(nfswb_mech_limit.attach(&d, why, sizeof(why)) == 0,
		"attach: %s", why);
	T_CHECK(nfswb_mech_limit.apply(&d, &o) == 0, "apply");
	read_attr("strict_limit", v, sizeof(v));
	T_CHECK(!strcmp(v, "1"), "strict_limit %s", v);
	read_attr("max_bytes", v, sizeof(v));
	max_bytes = strtoull(v, NULL, 10);
	/* Stored as a ratio in millionths of the dirty threshold. */
	T_CHECK(max_bytes > 63 * MiB && max_bytes < 65 * MiB,
		"max_bytes %" PRIu64 " for a 64 MiB cap", max_bytes);
	nfswb_mech_limit.detach(&d);
	T_CHECK(count_changed("after detach") == 0, "detach restores");
	nfswb_restore_close(r);
}

/* Change the cap forever; the parent kills us at a random moment. */
static void churn(void)
{
	struct nfswb_policy_out o = { .cap_change = true };
	struct nfswb_restore *r = t_journal_open(state);
	struct nfswb_device_id id;
	struct nfswb_mech_dev d;
	char why[256];
	unsigned int k;

	t_mech_dev_init(&d, &id, r, "", fs.bdi);
	if (nfswb_mech_limit.attach(&d, why, sizeof(why)) < 0)
		_exit(2);
	for (k = 0;; k++) {
		o.cap_bytes = (k % 3) ? (32 + k % 97) * MiB : 0;
		if (nfswb_mech_limit.apply(&d, &o) < 0)
			_exit(3);
	}
}

static void test_kill_loop(void)
{
	const char *env = getenv("NFSWB_KILL_LOOPS");
	int loops = env ? atoi(env) : 20, i, st, bad = 0;
	struct nfswb_restore *r;

	srand((unsigned int)getpid());
	for (i = 0; i < loops; i++) {
		st = t_fork_and_kill(churn, 2, 30);
		T_CHECK(!st, "churn ended by itself: %d", st);
		r = t_journal_open(state);
		if (count_changed("after kill -9 and reopen"))
			bad++;
		nfswb_restore_close(r);
	}
	fprintf(stderr, "limit: %d kill -9 rounds, %d left values changed\n",
		loops, bad);
	T_CHECK(bad == 0, "%d of %d rounds left values changed", bad, loops);
}

int main(void)
{
	char why[256];
	size_t i;

	nfswb_log_init("test-mech-limit", false);
	nfswb_log_set_level(L_ERROR);
	loopfs_setup(&fs, 64, 0);
	snprintf(state, sizeof(state), "%s/state", fs.dir);
	if (nfswb_mech_limit.probe("", why, sizeof(why)) < 0)
		T_SKIP("%s", why);
	for (i = 0; i < sizeof(origs) / sizeof(origs[0]); i++)
		read_attr(origs[i].attr, origs[i].value,
			  sizeof(origs[i].value));
	test_set_and_detach();
	test_kill_loop();
	return t_result();
}
