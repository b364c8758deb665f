// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_mech_kernel_live: the kernel mechanism on a real loop device's bdi:
 * attach and the first interval write the bdi's knob (dirty_background_bytes
 * where the kernel has it, else the time knob), detach and a journal left
 * by a killed process put it back.  Skips (77) on kernels without a knob
 * (kernel-patch/ adds them).
 */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bdiattr.h"
#include "journal.h"
#include "mechdev.h"
#include "log.h"
#include "loopfs.h"
#include "mech.h"
#include "restore.h"
#include "test.h"

static struct loopfs fs;
static char state[PATH_MAX + 16];
static const char *knob;	/* the one the mechanism uses on fs.bdi */
static unsigned int scale;	/* bytes per ms of our test values */

/* The knob mech_kernel.c prefers among those fs.bdi has. */
static void pick_knob(void)
{
	static const char *const names[] = {
		"dirty_background_bytes", "dirty_background_time_ms",
		"dirty_background_time",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (nfswb_bdi_attr_path(path, sizeof(path), "", fs.bdi,
					names[i]) == 0 && access(path, W_OK) == 0)
			break;
	}
	if (i == sizeof(names) / sizeof(names[0]))
		T_SKIP("bdi %s has no knob although the probe found one", fs.bdi);
	knob = names[i];
	scale = i == 0 ? 4096 : 1;	/* bytes: whole pages */
}

static void read_knob(char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	if (nfswb_bdi_attr_path(path, sizeof(path), "", fs.bdi, knob) < 0 ||
	    !(f = fopen(path, "r"))) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Attach and run one interval whose target is @ms x scale bytes. */
static int attach(struct nfswb_mech_dev *d, struct nfswb_device_id *id,
		  struct nfswb_restore *r, unsigned int ms)
{
	struct nfswb_policy_out o = { .target_bytes = (uint64_t)ms * scale,
				      .knob_bytes = (uint64_t)ms * scale };
	char why[256];

	t_mech_dev_init(d, id, r, "", fs.bdi);
	d->opts.background_time_ms = ms;
	if (nfswb_mech_kernel.attach(d, why, sizeof(why)) < 0) {
		fprintf(stderr, "attach: %s\n", why);
		return -1;
	}
	return nfswb_mech_kernel.apply(d, &o);
}

static bool knob_is(const char *v, unsigned int ms)
{
	char want[32];

	snprintf(want, sizeof(want), "%llu", (unsigned long long)ms * scale);
	return !strcmp(v, want);
}

int main(void)
{
	struct nfswb_device_id id;
	struct nfswb_mech_dev d;
	struct nfswb_restore *r;
	char why[256], v[64], orig[64];
	int st, fds[2];
	pid_t pid;

	nfswb_log_init("test-mech-kernel", false);
	nfswb_log_set_level(L_ERROR);
	if (nfswb_mech_kernel.probe("", why, sizeof(why)) < 0)
		T_SKIP("%s", why);
	loopfs_setup(&fs, 64, 0);
	snprintf(state, sizeof(state), "%s/state", fs.dir);
	pick_knob();
	read_knob(orig, sizeof(orig));

	r = t_journal_open(state);
	T_CHECK(attach(&d, &id, r, 1234) == 0, "attach");
	read_knob(v, sizeof(v));
	T_CHECK(knob_is(v, 1234), "%s %s after attach", knob, v);
	nfswb_mech_kernel.detach(&d);
	read_knob(v, sizeof(v));
	T_CHECK(!strcmp(v, orig), "knob %s after detach, was %s", v, orig);
	nfswb_restore_close(r);

	/* Killed while the knob is set: the next open puts it back. */
	if (pipe(fds) < 0)
		return T_EXIT_FAIL;
	pid = fork();
	if (pid == 0) {
		r = t_journal_open(state);
		if (attach(&d, &id, r, 777) < 0)
			_exit(2);
		if (write(fds[1], "x", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	T_CHECK(read(fds[0], v, 1) == 1, "child did not attach");
	read_knob(v, sizeof(v));
	T_CHECK(knob_is(v, 777), "%s %s in the child", knob, v);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	r = t_journal_open(state);
	read_knob(v, sizeof(v));
	T_CHECK(!strcmp(v, orig), "knob %s after kill -9 and reopen", v);
	nfswb_restore_close(r);
	return t_result();
}
