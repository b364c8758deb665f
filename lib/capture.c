// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * capture.c - a tracefs instance of our own (never the global buffer)
 * with the NFS server events this kernel has, read as text from its
 * trace_pipe.  The kernel formats the lines, so a capture reads exactly
 * like a "trace" file taken by hand.  Raw buffers through libtraceevent
 * would re-render each event's print format in userspace, and
 * svc_stats_latency prints its addresses with the kernel's %pISpc, which
 * userspace renderers do not all reproduce.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracefs.h>

#include "capture.h"
#include "clock.h"
#include "probeargs.h"

/* Kprobe systems are "nfswb_PID": a dash is not allowed there. */
#define PROBE_PREFIX	"nfswb_"

/* A dead owner's pid from NAME = PREFIX + digits, else 0. */
static long dead_owner(const char *name, const char *prefix)
{
	char *end;
	long pid;

	if (strncmp(name, prefix, strlen(prefix)))
		return 0;
	pid = strtol(name + strlen(prefix), &end, 10);
	if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	return pid;
}

/*
 * Instances left by a run that was killed with SIGKILL: their pid is gone.
 * Removing them keeps trace buffers from pinning memory forever.
 */
static void remove_stale(const char *tracing_dir, const char *prefix)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	/* Listed by hand: tracefs_instances() of 1.6 leaks its regex. */
	snprintf(path, sizeof(path), "%s/instances", tracing_dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct tracefs_instance *inst;

		if (!dead_owner(de->d_name, prefix))
			continue;
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (inst) {
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
		}
	}
	closedir(d);
}

/* Kprobes left by a run killed with SIGKILL; as remove_stale(). */
static void remove_stale_probes(void)
{
	struct tracefs_dynevent **all;

	all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE |
				       TRACEFS_DYNEVENT_KRETPROBE, NULL);
	for (size_t i = 0; all && all[i]; i++) {
		char *system = NULL;

		tracefs_dynevent_info(all[i], &system, NULL, NULL, NULL, NULL);
		if (system && dead_owner(system, PROBE_PREFIX))
			tracefs_dynevent_destroy(all[i], true);
		free(system);
	}
	tracefs_dynevent_list_free(all);
}

/* Enable one event if this kernel has it; record what was enabled. */
static bool enable(struct nfswb_capture *c, const char *system, const char *event)
{
	char sys_re[64], ev_re[64];

	if (!tracefs_event_file_exists(c->inst, system, event, "enable"))
		return false;
	/* libtracefs takes regular expressions: anchor the names. */
	snprintf(sys_re, sizeof(sys_re), "^%s$", system);
	snprintf(ev_re, sizeof(ev_re), "^%s$", event);
	if (tracefs_event_enable(c->inst, sys_re, ev_re))
		return false;
	if (c->nevents < NFSWB_CAPTURE_MAX_EVENTS)
		snprintf(c->events[c->nevents++], sizeof(c->events[0]),
			 "%s:%s", system, event);
	return true;
}

/* The thread ids of @pid, space-separated, or NULL if there is none. */
static char *thread_ids(int pid)
{
	char path[64], *ids = NULL;
	size_t len = 0;
	struct dirent *de;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return NULL;
	f = open_memstream(&ids, &len);
	if (!f) {
		closedir(d);
		return NULL;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			fprintf(f, "%s ", de->d_name);
	closedir(d);
	fclose(f);
	if (ids && !*ids) {
		free(ids);
		ids = NULL;
	}
	return ids;
}

/*
 * Every thread of @pid, also the ones it starts later: the instance's
 * set_event_pid with the event-fork option, which makes the kernel add
 * each task whose parent is in the list.  A filter on common_pid names
 * only the threads that exist now, and Ganesha starts worker threads as
 * clients connect (record once counted 10 of 48 COMMITs that way).
 * event-fork goes on first, then the list is written until a listing
 * finds no thread it lacks, so a thread started in between is not lost.
 */
static int follow_process(struct nfswb_capture *c, int pid)
{
	char *ids = NULL, *prev = NULL;
	int err;

	if (tracefs_option_enable(c->inst, TRACEFS_OPTION_EVENT_FORK)) {
		err = errno > 0 ? -errno : -EIO;
		snprintf(c->why, sizeof(c->why),
			 "cannot set the event-fork option of %s", c->name);
		return err;
	}
	for (int round = 0; round < 10; round++) {
		ids = thread_ids(pid);
		if (!ids) {
			snprintf(c->why, sizeof(c->why),
				 "no such process %d (/proc/%d/task)", pid,
				 pid);
			free(prev);
			return -ESRCH;
		}
		if (prev && !strcmp(prev, ids))
			break;
		/* Appending keeps threads the kernel added since. */
		if (tracefs_instance_file_append(c->inst, "set_event_pid",
						 ids) < 0) {
			err = errno > 0 ? -errno : -EIO;
			snprintf(c->why, sizeof(c->why),
				 "cannot write set_event_pid of %s: %s",
				 c->name, strerror(-err));
			free(prev);
			free(ids);
			return err;
		}
		free(prev);
		prev = ids;
		ids = NULL;
	}
	free(prev);
	free(ids);
	return 0;
}

/*
 * An entry kprobe on nfsd_commit reading the xid and the file (device,
 * inode, owner), with the first of @args' forms this kernel takes (BTF
 * names, the offsets of a kernel without BTF); with @bare, a probe
 * without arguments if none is taken.  Return: the probe, or NULL.
 */
static struct tracefs_dynevent *
commit_entry_probe(struct nfswb_capture *c, const char *event,
		   const struct nfswb_probe_args *args, bool bare,
		   const char **how)
{
	for (size_t i = 0; i <= args->count; i++) {
		struct tracefs_dynevent *ev;

		if (i == args->count && !bare)
			break;
		ev = tracefs_kprobe_alloc(c->probe_system, event,
					  "nfsd_commit",
					  i < args->count ? args->v[i] : NULL);
		if (ev && tracefs_dynevent_create(ev) == 0) {
			*how = i == args->count ? "no BTF or probe offsets, "
				"so no xid or file" : args->from_offsets[i] ?
				"the file's device, inode and owner, by "
				"probe offsets" : "the file's device, inode "
				"and owner, by BTF";
			return ev;
		}
		tracefs_dynevent_free(ev);
	}
	return NULL;
}

/*
 * The kprobe/kretprobe pair on nfsd_commit, which every NFS version's
 * COMMIT calls, for kernels without the nfsd_commit tracepoints.  The
 * entry reads the xid and the file (per export) where BTF or @offsets
 * say where they are; without, the pair still times every COMMIT.
 * Made with libtracefs' dynamic-event API, destroyed again in
 * capture_close().  Return: true if the pair is enabled; else
 * @c->commit_source says why.
 */
static bool probe_commit(struct nfswb_capture *c,
			 const struct nfswb_probe_args *args)
{
	const char *how = "";

	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		snprintf(c->commit_source, sizeof(c->commit_source),
			 "none: no nfsd_commit tracepoints and no kprobe "
			 "events (CONFIG_KPROBE_EVENTS)");
		return false;
	}
	c->probes[0] = commit_entry_probe(c, "nfswb_commit_entry", args, true,
					  &how);
	if (c->probes[0]) {
		c->probes[1] = tracefs_kretprobe_alloc(c->probe_system,
						       "nfswb_commit_exit",
						       "nfsd_commit",
						       "ret=$retval", 0);
		if (c->probes[1] && tracefs_dynevent_create(c->probes[1])) {
			tracefs_dynevent_free(c->probes[1]);
			c->probes[1] = NULL;
		}
	}
	if (!c->probes[1] ||
	    !enable(c, c->probe_system, "nfswb_commit_entry") ||
	    !enable(c, c->probe_system, "nfswb_commit_exit")) {
		snprintf(c->commit_source, sizeof(c->commit_source),
			 "none: no nfsd_commit tracepoints, and no kprobe "
			 "on nfsd_commit (no nfsd module loaded?)");
		return false;
	}
	snprintf(c->commit_source, sizeof(c->commit_source),
		 "kprobe:nfsd_commit (every NFS version; %s)", how);
	return true;
}

/*
 * Beside the nfsd_commit tracepoints, which name the file only by a hash
 * of its handle: an entry kprobe on nfsd_commit that reads the file's
 * device, inode and owner, so that COMMITs map to exports.  Fires on the
 * same thread just before nfsd_commit_start (lib/trace.c joins them).
 */
static void probe_commit_file(struct nfswb_capture *c,
			      const struct nfswb_probe_args *args)
{
	const char *how = "";
	size_t n = strlen(c->commit_source);

	if (tracefs_file_exists(NULL, "kprobe_events"))
		c->probes[0] = commit_entry_probe(c, "nfswb_commit_file", args,
						  false, &how);
	if (c->probes[0] && enable(c, c->probe_system, "nfswb_commit_file"))
		snprintf(c->commit_source + n, sizeof(c->commit_source) - n,
			 "; files from kprobe:nfsd_commit (%s)", how);
	else
		snprintf(c->commit_source + n, sizeof(c->commit_source) - n,
			 "; no file per COMMIT (%s)", c->probes[0] ?
			 "its kprobe cannot be enabled" : "no kprobe on "
			 "nfsd_commit with BTF or probe offsets");
}

/*
 * A kernel without CONFIG_FTRACE_SYSCALLS (the lab's) has no
 * syscalls:sys_enter_fsync but still the raw_syscalls tracepoints; a
 * filter on the system call number, set before they are enabled, keeps
 * the other calls out of the buffer.  lib/trace.c reads both forms.
 */
static bool enable_raw_fsync(struct nfswb_capture *c)
{
	static const char *const names[] = { "sys_enter", "sys_exit" };
	char filter[64];

	snprintf(filter, sizeof(filter), "id == %d || id == %d", SYS_fsync,
		 SYS_fdatasync);
	for (size_t i = 0; i < 2; i++)
		if (!tracefs_event_file_exists(c->inst, "raw_syscalls",
					       names[i], "filter") ||
		    tracefs_event_file_write(c->inst, "raw_syscalls", names[i],
					     "filter", filter) < 0)
			return false;
	return enable(c, "raw_syscalls", names[0]) &&
	       enable(c, "raw_syscalls", names[1]);
}

static int enable_fsync(struct nfswb_capture *c, int pid)
{
	static const char *const names[] = {
		"sys_enter_fsync", "sys_exit_fsync",
		"sys_enter_fdatasync", "sys_exit_fdatasync",
	};
	int n = 0, err;

	/* The pid list before the events: no other process's syncs leak in. */
	err = follow_process(c, pid);
	if (err)
		return err;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		n += enable(c, "syscalls", names[i]);
	if (!n && !enable_raw_fsync(c)) {
		snprintf(c->why, sizeof(c->why),
			 "this kernel has neither syscalls:sys_enter_fsync "
			 "(CONFIG_FTRACE_SYSCALLS) nor raw_syscalls:sys_enter "
			 "events");
		return -EOPNOTSUPP;
	}
	snprintf(c->commit_source, sizeof(c->commit_source),
		 "fsync/fdatasync of process %d and its threads (%s)", pid,
		 n ? "syscalls events" : "raw_syscalls, filtered");
	return 0;
}

int nfswb_capture_open(struct nfswb_capture *c, const char *prefix,
		       unsigned int flags, int server_pid,
		       const struct nfswb_probe_offsets *offsets,
		       char *const *extra, size_t nextra)
{
	struct nfswb_probe_args args;
	/* The second column: wanted with NFSWB_CAPTURE_COMMITS_ONLY too. */
	static const struct { const char *sys, *ev; bool commit; } events[] = {
		{ "sunrpc", "svc_stats_latency", false },
		{ "nfsd", "nfsd_write_start", false },
		{ "nfsd", "nfsd_write_done", false },
		{ "nfsd", "nfsd_commit_start", true },
		{ "nfsd", "nfsd_commit_done", true },
		{ "writeback", "wb_bg_time_kick", false },
	};
	const char *dir;
	int err;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	dir = tracefs_tracing_dir();
	if (!dir) {
		snprintf(c->why, sizeof(c->why),
			 "tracefs is not mounted and could not be mounted "
			 "(mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENODEV;
	}
	remove_stale(dir, prefix);
	remove_stale_probes();
	nfswb_probe_args(offsets, &args);
	snprintf(c->probe_system, sizeof(c->probe_system), PROBE_PREFIX "%d",
		 (int)getpid());
	snprintf(c->name, sizeof(c->name), "%s%d", prefix, (int)getpid());
	c->inst = tracefs_instance_create(c->name);
	if (!c->inst) {
		err = errno > 0 ? -errno : -EIO;
		snprintf(c->why, sizeof(c->why),
			 "cannot create tracefs instance %s/instances/%s: %s",
			 dir, c->name, strerror(-err));
		return err;
	}
	/* CLOCK_MONOTONIC, so that samples taken here line up. */
	if (tracefs_instance_file_write(c->inst, "trace_clock", "mono") < 0)
		c->clock_local = true;

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (events[i].commit || !(flags & NFSWB_CAPTURE_COMMITS_ONLY))
			enable(c, events[i].sys, events[i].ev);
	/*
	 * What times COMMIT: the nfsd_commit tracepoints, else a kprobe on
	 * nfsd_commit (svc_stats_latency names NFSv3's COMMIT only), or a
	 * userspace server's fsync calls.
	 */
	if (server_pid > 0) {
		err = enable_fsync(c, server_pid);
		if (err)
			goto fail;
	} else if (tracefs_event_file_exists(c->inst, "nfsd",
					     "nfsd_commit_start", "enable")) {
		snprintf(c->commit_source, sizeof(c->commit_source),
			 "nfsd:nfsd_commit_start/done (every NFS version)");
		probe_commit_file(c, &args);
	} else {
		probe_commit(c, &args);
	}
	for (size_t i = 0; i < nextra; i++) {
		char sys[64];
		const char *colon = strchr(extra[i], ':');

		if (!colon || colon == extra[i] || !colon[1] ||
		    (size_t)(colon - extra[i]) >= sizeof(sys)) {
			snprintf(c->why, sizeof(c->why),
				 "--event %s: expected SYSTEM:EVENT", extra[i]);
			err = -EINVAL;
			goto fail;
		}
		memcpy(sys, extra[i], (size_t)(colon - extra[i]));
		sys[colon - extra[i]] = '\0';
		if (!enable(c, sys, colon + 1)) {
			snprintf(c->why, sizeof(c->why),
				 "--event %s: no such event on this kernel",
				 extra[i]);
			err = -ENOENT;
			goto fail;
		}
	}
	if (!c->nevents) {
		snprintf(c->why, sizeof(c->why),
			 "this kernel has none of the events: no nfsd or "
			 "sunrpc tracepoints and no userspace server's pid "
			 "given; COMMIT source %s", c->commit_source);
		err = -EOPNOTSUPP;
		goto fail;
	}
	c->fd = tracefs_instance_file_open(c->inst, "trace_pipe",
					   O_RDONLY | O_NONBLOCK);
	if (c->fd < 0) {
		err = errno > 0 ? -errno : -EIO;
		snprintf(c->why, sizeof(c->why), "cannot open trace_pipe: %s",
			 strerror(-err));
		goto fail;
	}
	if (tracefs_trace_on(c->inst) < 0) {
		err = errno > 0 ? -errno : -EIO;
		snprintf(c->why, sizeof(c->why), "cannot turn tracing on");
		goto fail;
	}
	return 0;
fail:
	nfswb_capture_close(c);
	return err;
}

ssize_t nfswb_capture_read(struct nfswb_capture *c, char *buf, size_t len,
			   int timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	double waited_from = timeout_ms > 0 ? nfswb_now_s() : 0;
	ssize_t n;
	int r;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return 0;
	if (timeout_ms > 0 && !c->backlog) {
		/* Let a burst gather: one wakeup for many events. */
		int left = timeout_ms -
			   (int)((nfswb_now_s() - waited_from) * 1e3);
		int gather = left < NFSWB_CAPTURE_GATHER_MS ?
			     left : NFSWB_CAPTURE_GATHER_MS;

		if (gather > 0)
			poll(NULL, 0, gather);	/* a signal ends it early */
	}
	n = read(c->fd, buf, len);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	pfd.revents = 0;
	c->backlog = n > 0 && poll(&pfd, 1, 0) > 0;
	return n;
}

void nfswb_capture_close(struct nfswb_capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->inst) {
		/* Removing the instance disables its events and frees it. */
		tracefs_instance_destroy(c->inst);
		tracefs_instance_free(c->inst);
		c->inst = NULL;
	}
	/* After the instance: its events had to be off first. */
	for (size_t i = 0; i < 2; i++) {
		if (!c->probes[i])
			continue;
		tracefs_dynevent_destroy(c->probes[i], true);
		tracefs_dynevent_free(c->probes[i]);
		c->probes[i] = NULL;
	}
}
