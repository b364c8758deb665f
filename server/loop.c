// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loop.c - the daemon's one thread: a timerfd armed for the device whose
 * sample is due first, a signalfd for SIGHUP/SIGTERM/SIGINT and the
 * mechanisms' own fds, all in one poll(2); and the reload on SIGHUP.
 * What each expiry does is tick.c's.  CLOCK_MONOTONIC throughout, so
 * wall-clock steps never confuse the estimator.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "commits.h"
#include "log.h"
#include "metrics.h"
#include "nfswbd.h"
#include "units.h"

struct loop {
	struct nfswbd_settings *s;
	const struct nfswbd_cmdline *cl;
	struct nfswbd_table *t;
	int sfd, tfd;
	uint64_t timer_next_ms;			/* its next expiry */
	uint64_t timer_period_ms;
	uint64_t status_due_ms;		/* next status.json and metrics; 0: now */
	struct nfswbd_metrics *metrics;		/* HTTP listener, or NULL */
	struct nfswbd_commits *commits;		/* COMMIT histogram, or NULL */
	struct nfswbd_run_info run;
	bool stop;
};

/*
 * Expire at @due_ms (CLOCK_MONOTONIC) and every @period_ms after: the
 * samples of a device keep their interval without a re-arm each time;
 * the timer is re-armed only when the earliest device's due time is not
 * the next expiry (arm_next).
 */
static int arm_timer(struct loop *l, uint64_t due_ms, uint64_t period_ms)
{
	struct itimerspec its = { 0 };

	its.it_interval.tv_sec = period_ms / 1000;
	its.it_interval.tv_nsec = (period_ms % 1000) * 1000000;
	its.it_value.tv_sec = due_ms / 1000;
	its.it_value.tv_nsec = (due_ms % 1000) * 1000000;
	if (timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -1;
	l->timer_next_ms = due_ms;
	l->timer_period_ms = period_ms;
	return 0;
}

/* The timer for the device due first (nfswbd_tick's answer). */
static void arm_next(struct loop *l, uint64_t due_ms)
{
	if (due_ms == l->timer_next_ms)
		return;
	if (arm_timer(l, due_ms, l->t->sampling_ms) < 0)
		xlog(L_ERROR, "timerfd_settime: %m");
}

static void log_export_warning(const struct nfswb_export *e, const char *msg,
			       void *arg)
{
	(void)arg;
	xlog(L_WARNING, "%s:%u: %s %s", e->file, e->line, e->path, msg);
}

static void reload(struct loop *l)
{
	struct nfswbd_cmdline cl = *l->cl;
	struct nfswb_diag diag = { 0 };
	struct nfswbd_settings ns;
	struct nfswbd_table nt;
	char *tmp;

	xlog(L_NOTICE, "SIGHUP: reloading configuration");
	sd_notify(0, "RELOADING=1");
	cl.reload = true;
	if (nfswbd_config_load(&cl, &ns, &nt, &diag) < 0) {
		for (size_t i = 0; i < diag.count; i++)
			xlog(L_ERROR, "%s", diag.msgs[i]);
		xlog(L_ERROR, "reload failed with %zu error(s); the previous configuration stays in force",
		     nfswb_diag_errors(&diag));
		l->run.failed_reloads++;
		sd_notifyf(0, "READY=1\nSTATUS=reload failed with %zu error(s); the previous configuration stays in force",
			   nfswb_diag_errors(&diag));
		nfswbd_table_free(&nt);
		nfswbd_settings_free(&ns);
		nfswb_diag_clear(&diag);
		return;
	}
	nfswb_diag_clear(&diag);
	nfswbd_etab_warn(ns.sysroot, &nt.cfg, log_export_warning, NULL);

	nfswbd_table_adopt_state(&nt, l->t);
	if (!l->s->dry_run)
		nfswbd_table_switch(l->t, &nt, l->s->sysroot);

	/* The state directory holds the pid file: it cannot move. */
	if (strcmp(ns.state_dir, l->s->state_dir))
		xlog(L_WARNING, "state-dir changes take effect at restart");
	if (!ns.metrics_listen != !l->s->metrics_listen ||
	    (ns.metrics_listen && strcmp(ns.metrics_listen,
					 l->s->metrics_listen)))
		xlog(L_WARNING, "metrics-listen changes take effect at restart");
	if (ns.commit_latency != l->s->commit_latency ||
	    !ns.commit_pid_file != !l->s->commit_pid_file ||
	    (ns.commit_pid_file && strcmp(ns.commit_pid_file,
					  l->s->commit_pid_file)))
		xlog(L_WARNING, "commit-latency changes take effect at restart");
	tmp = ns.state_dir;
	ns.state_dir = l->s->state_dir;
	l->s->state_dir = tmp;
	ns.dry_run = l->s->dry_run;
	ns.once = l->s->once;
	ns.foreground = l->s->foreground;
	nfswbd_settings_free(l->s);
	*l->s = ns;

	nfswbd_table_free(l->t);
	*l->t = nt;
	/* Every device is sampled at the next expiry, one interval on. */
	l->t->sampling_ms = l->t->interval_ms;
	if (arm_timer(l, nfswb_now_ms() + l->t->interval_ms,
		      l->t->interval_ms) < 0)
		xlog(L_ERROR, "timerfd_settime: %m");
	nfswbd_table_log_modes(l->t);
	nfswbd_commits_exports(l->commits, l->t);
	xlog(L_NOTICE, "configuration reloaded: %zu export(s) on %zu device(s)",
	     l->t->cfg.count, l->t->ndevs);
	sd_notifyf(0, "READY=1\nSTATUS=%zu export(s) on %zu device(s)%s, reloaded",
		   l->t->cfg.count, l->t->ndevs, l->s->dry_run ? ", dry run" : "");
	l->status_due_ms = 0;
	l->run.reloads++;
	l->run.last_reload_s = (uint64_t)time(NULL);
}

static void on_signal(struct loop *l)
{
	struct signalfd_siginfo si;

	while (read(l->sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			reload(l);
			break;
		case SIGTERM:
		case SIGINT:
			xlog(L_NOTICE, "%s: exiting", strsignal(si.ssi_signo));
			sd_notify(0, "STOPPING=1");
			l->stop = true;
			break;
		}
	}
}

static void on_timer(struct loop *l)
{
	uint64_t expirations, now, next;

	if (read(l->tfd, &expirations, sizeof(expirations)) < 0)
		return;
	l->timer_next_ms += expirations * l->timer_period_ms;
	now = nfswb_now_ms();
	/* trace_pipe may wake poll() only past a watermark: drain anyway. */
	if (l->commits)
		nfswbd_commits_read(l->commits);
	next = nfswbd_tick(l->s, l->t, now);
	if (l->s->once) {
		if (l->s->dry_run)
			nfswbd_print_decisions(l->t, stdout);
		nfswbd_status_write(l->s, l->t, now);
		nfswbd_metrics_publish(l->metrics, l->s, l->t, &l->run,
				       l->commits);
		l->stop = true;
		return;
	}
	/*
	 * On its own schedule, not the samples': a device standing by is
	 * sampled once a second at most, and waiting for a sample would
	 * stretch a shorter status-interval to that.  A sample up to a
	 * quarter of the interval early publishes it when the next one comes
	 * after the due time, so that the two share a wake-up: a device
	 * standing by then costs no wake-up of its own for the status.
	 */
	if (now >= l->status_due_ms ||
	    (now + l->s->status_ms / 4 >= l->status_due_ms &&
	     next > l->status_due_ms)) {
		nfswbd_status_write(l->s, l->t, now);
		nfswbd_metrics_publish(l->metrics, l->s, l->t, &l->run,
				       l->commits);
		l->status_due_ms = now + l->s->status_ms;
	}
	arm_next(l, next < l->status_due_ms ? next : l->status_due_ms);
}

/**
 * nfswbd_signals_block - hold SIGHUP, SIGTERM and SIGINT for the signalfd.
 * @mask: set to those signals
 *
 * Called early in start-up too: a SIGTERM that arrives while mechanisms
 * attach must wait for the loop, which detaches them, rather than kill
 * the daemon with kernel settings changed.
 */
int nfswbd_signals_block(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGINT);
	return sigprocmask(SIG_BLOCK, mask, NULL);
}

/**
 * nfswbd_run - serve until SIGTERM/SIGINT (or one interval with --once).
 * @s: settings in force; a reload replaces them
 * @cl: the command line, re-applied over nfs.conf on reload
 * @t: the table in force; a reload replaces it
 *
 * Returns the exit status.
 */
int nfswbd_run(struct nfswbd_settings *s, const struct nfswbd_cmdline *cl,
	       struct nfswbd_table *t)
{
	struct loop l = { .s = s, .cl = cl, .t = t, .sfd = -1, .tfd = -1 };
	struct pollfd *pfds = NULL;
	sigset_t mask;
	int ret = 1;

	if (nfswbd_signals_block(&mask) < 0) {
		xlog(L_ERROR, "sigprocmask: %m");
		goto out;
	}
	l.sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (l.sfd < 0) {
		xlog(L_ERROR, "signalfd: %m");
		goto out;
	}
	l.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	t->sampling_ms = t->interval_ms;
	if (l.tfd < 0 || arm_timer(&l, nfswb_now_ms() + t->interval_ms,
				   t->interval_ms) < 0) {
		xlog(L_ERROR, "timerfd: %m");
		goto out;
	}

	l.run.start_time_s = (uint64_t)time(NULL);
	nfswbd_status_set_run(&l.run);
	/* Without its listener the daemon still does its job: log, go on. */
	if (s->metrics_listen && nfswbd_metrics_start(s->metrics_listen,
						      &l.metrics) < 0)
		xlog(L_ERROR, "serving without the metrics listener");
	if (s->commit_latency && nfswbd_commits_start(s, t, &l.commits) < 0)
		xlog(L_ERROR, "serving without the COMMIT latency histogram");
	if (l.commits)
		l.run.commit_source = nfswbd_commits_source(l.commits);
	nfswbd_prime(s, t, nfswb_now_ms());
	while (!l.stop) {
		size_t n = 3, cap = 3;
		int rc;

		for (size_t i = 0; i < t->ndevs; i++)
			cap += t->devs[i].nmechs;
		free(pfds);
		pfds = calloc(cap, sizeof(*pfds));
		if (!pfds) {
			xlog(L_ERROR, "out of memory");
			goto out;
		}
		pfds[0] = (struct pollfd){ .fd = l.sfd, .events = POLLIN };
		pfds[1] = (struct pollfd){ .fd = l.tfd, .events = POLLIN };
		/* -1 without a histogram: poll() skips it. */
		pfds[2] = (struct pollfd){ .fd = nfswbd_commits_fd(l.commits),
					   .events = POLLIN };
		for (size_t i = 0; i < t->ndevs; i++) {
			struct nfswbd_dev *d = &t->devs[i];

			for (unsigned int k = 0; k < d->nmechs; k++) {
				struct nfswbd_mech_slot *m = &d->mechs[k];
				int fd;

				if (!m->attached || !m->mech->poll_fd)
					continue;
				fd = m->mech->poll_fd(&m->md);
				if (fd >= 0)
					pfds[n++] = (struct pollfd){
						.fd = fd, .events = POLLIN };
			}
		}

		rc = poll(pfds, n, -1);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			xlog(L_ERROR, "poll: %m");
			goto out;
		}
		/* Mechanism input first: it is what the decisions count. */
		for (size_t i = 3; i < n; i++)
			if (pfds[i].revents)
				nfswbd_mech_readable(t, pfds[i].fd);
		if (pfds[2].revents)
			nfswbd_commits_read(l.commits);
		if (pfds[0].revents)
			on_signal(&l);
		if (!l.stop && pfds[1].revents)
			on_timer(&l);
	}
	ret = 0;
out:
	nfswbd_status_set_run(NULL);
	nfswbd_commits_stop(l.commits);
	nfswbd_metrics_stop(l.metrics);
	/* Figures of a daemon that is gone would read as live ones. */
	if (s->metrics_file && !s->once)
		unlink(s->metrics_file);
	free(pfds);
	if (l.tfd >= 0)
		close(l.tfd);
	if (l.sfd >= 0)
		close(l.sfd);
	return ret;
}
