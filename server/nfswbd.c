// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfswbd - start writeback of NFS-written data early, per exported device.
 *
 * This file: the command line, the pid file, daemonising, and the order
 * of start-up and shutdown.  See nfswbd(8).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "caps.h"
#include "fdlimit.h"
#include "log.h"
#include "nfswbd.h"
#include "restore.h"
#include "statedir.h"
#include "units.h"

#define PIDFILE	"nfswbd.pid"

enum {
	OPT_NFS_CONF = 256,
	OPT_EXPORTS_DIR,
	OPT_STATE_DIR,
	OPT_DRY_RUN,
	OPT_ONCE,
	OPT_CHECK_CONFIG,
	OPT_SYSROOT,
	OPT_INTERVAL,
	OPT_METRICS_FILE,
	OPT_METRICS_LISTEN,
	OPT_STATUS,
	OPT_JSON,
};

static const struct option long_options[] = {
	{ "foreground",	  no_argument,	     NULL, 'F' },
	{ "config",	  required_argument, NULL, 'c' },
	{ "nfs-conf",	  required_argument, NULL, OPT_NFS_CONF },
	{ "exports-dir",  required_argument, NULL, OPT_EXPORTS_DIR },
	{ "state-dir",	  required_argument, NULL, OPT_STATE_DIR },
	{ "dry-run",	  no_argument,	     NULL, OPT_DRY_RUN },
	{ "once",	  no_argument,	     NULL, OPT_ONCE },
	{ "check-config", no_argument,	     NULL, OPT_CHECK_CONFIG },
	{ "interval",	  required_argument, NULL, OPT_INTERVAL },
	{ "sysroot",	  required_argument, NULL, OPT_SYSROOT },
	{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
	{ "metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN },
	{ "status",	  no_argument,	     NULL, OPT_STATUS },
	{ "json",	  no_argument,	     NULL, OPT_JSON },
	{ "verbose",	  no_argument,	     NULL, 'v' },
	{ "help",	  no_argument,	     NULL, 'h' },
	{ "version",	  no_argument,	     NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *out)
{
	fprintf(out,
"Usage: nfswbd [options]\n"
"Start writeback of NFS-written data early, per exported device.\n"
"\n"
"  -F, --foreground       do not daemonise; log to stderr\n"
"  -c, --config FILE      exports file (default %s and %s/*.exports)\n"
"      --exports-dir DIR  also read DIR/*.exports (with -c)\n"
"      --nfs-conf FILE    nfs.conf with an [nfswbd] section (default %s)\n"
"      --state-dir DIR    pid file, status.json, restore journal (default %s)\n"
"      --interval TIME    sampling interval (default %ums)\n"
"      --metrics-file PATH  Prometheus text file, replaced every second\n"
"      --metrics-listen [ADDR:]PORT  serve GET /metrics (ADDR 127.0.0.1)\n"
"      --dry-run          sample, estimate and log decisions; change nothing\n"
"      --once             run one interval and exit (implies -F)\n"
"      --check-config     validate, print every export's effective setting\n"
"      --status [--json]  the running daemon's status, one screen per device\n"
"  -v, --verbose          more log messages (twice: debug)\n"
"  -h, --help             this text\n"
"  -V, --version          print the version\n",
		NFSWB_EXPORTS_FILE, NFSWB_EXPORTS_DIR, NFSWB_NFS_CONF,
		NFSWB_STATEDIR, NFSWBD_DEFAULT_INTERVAL_MS);
}

/*
 * Before daemonising changes to "/", and for reloads: relative names
 * would name other files.
 */
static int make_absolute(const char **p, char **owned)
{
	char cwd[PATH_MAX];
	size_t len;

	if (!*p || (*p)[0] == '/' || !(*p)[0])
		return 0;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	len = strlen(cwd) + strlen(*p) + 2;
	*owned = malloc(len);
	if (!*owned)
		return -1;
	snprintf(*owned, len, "%s/%s", cwd, *p);
	*p = *owned;
	return 0;
}

/*
 * The pid file is held with flock(2): the kernel drops the lock however
 * the holder dies, so a file left by a crash never blocks a restart, and
 * a live daemon is never mistaken for a stale one.
 */
static int pidfile_lock(int dirfd, const char *state_dir)
{
	char other[32] = "";
	ssize_t n;
	int fd;

	fd = nfswb_statedir_openat(dirfd, PIDFILE, O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		fprintf(stderr, "nfswbd: cannot open %s/%s: %s\n", state_dir,
			PIDFILE, fd == -ELOOP ? "it is a symlink" :
			fd == -EINVAL ? "not a regular file" :
			strerror(-fd));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = pread(fd, other, sizeof(other) - 1, 0);
		if (n > 0)
			other[strcspn(other, "\n")] = '\0';
		fprintf(stderr,
			"nfswbd: another nfswbd (pid %s) is running with state directory %s\n",
			other[0] ? other : "unknown", state_dir);
		close(fd);
		return -1;
	}
	return fd;
}

static int pidfile_write(int fd)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, len, 0) != len)
		return -1;
	return 0;
}

/*
 * Daemonise as nfs-utils' daemon_init()/daemon_ready() do, rather than
 * daemon(3): the parent waits on a pipe and exits with the start-up
 * status, so "nfswbd" returns 1 when the journal or the mechanisms fail
 * after the fork, not 0 with the failure only in syslog.
 */
static int daemon_init(int *ready_fd)
{
	int pfd[2], fd;
	char status = 1;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid > 0) {
		close(pfd[1]);
		if (read(pfd[0], &status, 1) != 1)
			status = 1;	/* the child died before it was ready */
		_exit(status);
	}
	close(pfd[0]);
	if (setsid() < 0 || chdir("/") < 0)
		return -1;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
	*ready_fd = pfd[1];
	return 0;
}

static void daemon_ready(int *ready_fd)
{
	char status = 0;

	if (*ready_fd < 0)
		return;
	if (write(*ready_fd, &status, 1) != 1)
		xlog(L_WARNING, "cannot tell the parent process we started: %m");
	close(*ready_fd);
	*ready_fd = -1;
}

static int parse_args(int argc, char **argv, struct nfswbd_cmdline *cl)
{
	const char *why;
	int c;

	while ((c = getopt_long(argc, argv, "Fc:vhV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'F':
			cl->foreground = true;
			break;
		case 'c':
			cl->exports_file = optarg;
			break;
		case OPT_NFS_CONF:
			cl->nfs_conf = optarg;
			break;
		case OPT_EXPORTS_DIR:
			cl->exports_dir = optarg;
			cl->exports_dir_given = true;
			break;
		case OPT_STATE_DIR:
			cl->state_dir = optarg;
			break;
		case OPT_DRY_RUN:
			cl->dry_run = true;
			break;
		case OPT_ONCE:
			cl->once = true;
			break;
		case OPT_CHECK_CONFIG:
			cl->check_config = true;
			break;
		case OPT_SYSROOT:
			cl->sysroot = optarg;
			break;
		case OPT_METRICS_FILE:
			cl->metrics_file = optarg;
			break;
		case OPT_METRICS_LISTEN:
			cl->metrics_listen = optarg;
			break;
		case OPT_STATUS:
			cl->status = true;
			break;
		case OPT_JSON:
			cl->status_json = true;
			break;
		case OPT_INTERVAL:
			if (nfswb_parse_duration_ms(optarg, &cl->interval_ms,
						    &why) < 0) {
				fprintf(stderr, "nfswbd: --interval %s: %s\n",
					optarg, why);
				return -1;
			}
			if (!cl->interval_ms) {
				fprintf(stderr, "nfswbd: --interval must not be 0\n");
				return -1;
			}
			break;
		case 'v':
			cl->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("nfswbd %s\n", PACKAGE_VERSION);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nfswbd: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return -1;
	}
	return 0;
}

static void log_export_warning(const struct nfswb_export *e, const char *msg,
			       void *arg)
{
	(void)arg;
	xlog(L_WARNING, "%s:%u: %s %s", e->file, e->line, e->path, msg);
}

/*
 * Signals during start-up.  A SIGHUP (a reload asked for too early) must
 * never kill the daemon: it is held before main() even runs, from
 * .preinit_array (the program's first code after the dynamic loader and
 * a sanitizer runtime), and becomes a reload once the loop runs.  SIGTERM
 * and SIGINT keep their default action (they end the process at once)
 * until the journal is open; from there on they are held too, and
 * start_stopped() looks for them between the steps, so a SIGTERM still
 * ends start-up promptly but with every setting put back.
 */
static sigset_t inherited_mask;

static void hold_sighup(int argc, char **argv, char **envp)
{
	sigset_t hup;

	(void)argc;
	(void)argv;
	(void)envp;
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigprocmask(SIG_BLOCK, &hup, &inherited_mask);
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit_hold_sighup)(int, char **, char **) = hold_sighup;

static bool start_stopped(void)
{
	sigset_t pending;

	if (sigpending(&pending) < 0)
		return false;
	if (!sigismember(&pending, SIGTERM) && !sigismember(&pending, SIGINT))
		return false;
	xlog(L_NOTICE, "%s during start-up: exiting",
	     sigismember(&pending, SIGTERM) ? "SIGTERM" : "SIGINT");
	return true;
}

/* The soft fd limit up to the hard one: files mode holds files open. */
static void raise_nofile(void)
{
	unsigned long n = nfswb_nofile_raise();

	xlog(L_DEBUG, "RLIMIT_NOFILE: %lu descriptors", n);
}

int main(int argc, char **argv)
{
	struct nfswbd_cmdline cl = { 0 };
	struct nfswbd_settings s = { 0 };
	struct nfswbd_table t = { 0 };
	struct nfswb_diag diag = { 0 };
	struct nfswb_restore *restore = NULL;
	char *owned[5] = { NULL };
	char why[512];
	int statefd = -1, pidfd = -1, readyfd = -1, ret = 1;
	sigset_t sigs;

	if (parse_args(argc, argv, &cl) < 0)
		return 1;
	nfswb_log_init("nfswbd", false);
	nfswb_log_set_level(cl.verbose >= 2 ? L_DEBUG :
			    cl.verbose ? L_INFO : L_NOTICE);

	if (cl.check_config) {
		sigprocmask(SIG_SETMASK, &inherited_mask, NULL);
		return nfswbd_check_config(&cl);
	}
	if (cl.status) {
		sigprocmask(SIG_SETMASK, &inherited_mask, NULL);
		return nfswbd_status_cmd(&cl, cl.status_json);
	}

	if (cl.once)
		cl.foreground = true;
	raise_nofile();
	if (make_absolute(&cl.exports_file, &owned[0]) < 0 ||
	    make_absolute(&cl.exports_dir, &owned[1]) < 0 ||
	    make_absolute(&cl.nfs_conf, &owned[2]) < 0 ||
	    make_absolute(&cl.state_dir, &owned[3]) < 0 ||
	    make_absolute(&cl.sysroot, &owned[4]) < 0) {
		fprintf(stderr, "nfswbd: %s\n", strerror(errno));
		goto out;
	}

	if (nfswbd_config_load(&cl, &s, &t, &diag) < 0) {
		nfswb_diag_print(&diag, stderr);
		fprintf(stderr, "nfswbd: %zu error(s); not starting\n",
			nfswb_diag_errors(&diag));
		goto out;
	}
	if (s.verbose > cl.verbose)
		nfswb_log_set_level(s.verbose >= 2 ? L_DEBUG : L_INFO);
	nfswbd_etab_warn(s.sysroot, &t.cfg, log_export_warning, NULL);
	if (!t.cfg.count)
		xlog(L_WARNING, "no exports configured in %s%s%s",
		     s.exports_file, s.exports_dir ? " or " : "",
		     s.exports_dir ? s.exports_dir : "");
	if (t.max_files < s.max_files)
		xlog(L_NOTICE, "max-files %u lowered to %u per device: RLIMIT_NOFILE allows no more for %zu device(s)",
		     s.max_files, t.max_files, t.ndevs);

	statefd = nfswb_statedir_open(s.state_dir, why, sizeof(why));
	if (statefd < 0) {
		fprintf(stderr, "nfswbd: %s\n", why);
		goto out;
	}
	pidfd = pidfile_lock(statefd, s.state_dir);
	if (pidfd < 0)
		goto out;
	nfswbd_status_set_dir(statefd);

	/* Before any thread exists: capabilities are per thread. */
	if (nfswb_caps_drop(NFSWB_CAPS_DAEMON | (s.commit_pid_file ?
						 NFSWB_CAP_SERVER_FDS : 0),
			    why, sizeof(why)) < 0) {
		fprintf(stderr, "nfswbd: cannot drop capabilities: %s\n", why);
		goto out_pid;
	}

	signal(SIGPIPE, SIG_IGN);
	if (!s.foreground) {
		/* From here on, messages go to syslog. */
		nfswb_log_init("nfswbd", true);
		if (daemon_init(&readyfd) < 0) {
			fprintf(stderr, "nfswbd: cannot daemonise: %s\n",
				strerror(errno));
			goto out_pid;
		}
	}
	if (pidfile_write(pidfd) < 0) {
		xlog(L_ERROR, "cannot write %s/%s: %m", s.state_dir, PIDFILE);
		goto out_pid;
	}

	/* From here a SIGTERM must let the journal put things back. */
	if (nfswbd_signals_block(&sigs) < 0) {
		xlog(L_ERROR, "sigprocmask: %m");
		goto out_pid;
	}
	/*
	 * Journal first: it puts back whatever a killed predecessor left
	 * changed, before any mechanism records the current values as the
	 * originals.
	 */
	if (!s.dry_run) {
		if (nfswb_restore_open(statefd, s.state_dir, s.sysroot,
				       &restore, why, sizeof(why)) < 0) {
			xlog(L_ERROR, "%s", why);
			goto out_pid;
		}
		if (start_stopped()) {
			ret = 0;
			goto out_restore;
		}
		if (nfswbd_table_attach(&t, s.sysroot, restore) < 0) {
			xlog(L_ERROR, "no writeback mechanism could attach; exiting");
			goto out_restore;
		}
	}
	if (start_stopped()) {
		ret = 0;
		goto out_restore;
	}

	nfswbd_table_log_modes(&t);
	xlog(L_NOTICE, "started%s: %zu export(s) on %zu device(s), interval %" PRIu64 "ms",
	     s.dry_run ? " (dry run: acting on nothing)" : "", t.cfg.count,
	     t.ndevs, t.interval_ms);
	daemon_ready(&readyfd);
	/* Under systemd (Type=notify): every device is attached by now. */
	sd_notifyf(0, "READY=1\nSTATUS=%zu export(s) on %zu device(s)%s",
		   t.cfg.count, t.ndevs, s.dry_run ? ", dry run" : "");
	ret = nfswbd_run(&s, &cl, &t);

out_restore:
	if (restore) {
		nfswbd_table_detach(&t);
		if (nfswb_restore_all(restore) < 0)
			ret = 1;
		nfswb_restore_close(restore);
	}
	if (!s.once)
		unlinkat(statefd, "status.json", 0);
out_pid:
	unlinkat(statefd, PIDFILE, 0);
	close(pidfd);
out:
	if (statefd >= 0)
		close(statefd);
	nfswb_diag_clear(&diag);
	nfswbd_table_free(&t);
	nfswbd_settings_free(&s);
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
		free(owned[i]);
	if (readyfd >= 0)
		close(readyfd);	/* the parent reads EOF: start-up failed */
	return ret;
}
