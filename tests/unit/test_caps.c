// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_caps: after nfswb_caps_drop(NFSWB_CAPS_DAEMON) the process has exactly
 * CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH and CAP_FOWNER in its effective, permitted and
 * bounding sets, none inheritable, no_new_privs set; a capability it
 * dropped (CAP_CHOWN) is refused, one it kept (fanotify) still works.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "test.h"

static uint64_t status_mask(const char *key)
{
	char line[256];
	uint64_t v = UINT64_MAX;
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtoull(line + klen + 1, NULL, 16);
	fclose(f);
	return v;
}

static int child(void)
{
	char err[256], tmp[] = "/tmp/nfswb-caps-XXXXXX";
	int fd;

	if (nfswb_caps_drop(NFSWB_CAPS_DAEMON, err, sizeof(err)) < 0) {
		fprintf(stderr, "nfswb_caps_drop: %s\n", err);
		return 1;
	}
	T_CHECK(status_mask("CapEff") == NFSWB_CAPS_DAEMON, "CapEff %" PRIx64,
		status_mask("CapEff"));
	T_CHECK(status_mask("CapPrm") == NFSWB_CAPS_DAEMON, "CapPrm %" PRIx64,
		status_mask("CapPrm"));
	T_CHECK(status_mask("CapBnd") == NFSWB_CAPS_DAEMON, "CapBnd %" PRIx64,
		status_mask("CapBnd"));
	T_CHECK(status_mask("CapInh") == 0, "CapInh %" PRIx64,
		status_mask("CapInh"));
	T_CHECK(status_mask("CapAmb") == 0, "CapAmb %" PRIx64,
		status_mask("CapAmb"));
	T_CHECK(status_mask("NoNewPrivs") == 1, "NoNewPrivs not set");
	T_CHECK(nfswb_caps_effective() == NFSWB_CAPS_DAEMON,
		"nfswb_caps_effective %" PRIx64, nfswb_caps_effective());

	fd = mkstemp(tmp);
	if (fd >= 0) {
		T_CHECK(fchown(fd, 1, 1) < 0 && errno == EPERM,
			"chown to uid 1 still allowed after dropping CAP_CHOWN");
		close(fd);
		unlink(tmp);
	}
	fd = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	T_CHECK(fd >= 0, "fanotify_init refused: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	return t_result();
}

int main(void)
{
	pid_t pid;
	int st;

	if (geteuid() != 0 || !(nfswb_caps_effective() &
				NFSWB_CAP_BIT(21)))
		T_SKIP("needs root with CAP_SYS_ADMIN to test dropping the rest");
	/* In a child: dropping is for good. */
	pid = fork();
	if (pid == 0)
		_exit(child());
	waitpid(pid, &st, 0);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed");
	return t_result();
}
