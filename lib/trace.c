// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.c - the ftrace text format, as tracefs prints it:
 *
 *   TASK-PID [(TGID)] [CPU] [FLAGS] TIMESTAMP: EVENT: FIELDS
 *   nfsd-71 [000] ..... 49.247750: svc_stats_latency: xid=0xa88ba7c9 ...
 *
 * The task name may hold spaces and dashes, the flags column is absent
 * in trace-cmd output and older kernels, so the line is anchored on the
 * "[CPU]" column and read outwards from it.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Longer lines are not ftrace events this parser knows. */
#define LINE_MAX_LEN	4096
/* Start events kept while waiting for their done event. */
#define PENDING_MAX	4096

/* x86-64 system call numbers, for raw_syscalls. */
#define NR_FSYNC	74
#define NR_FDATASYNC	75

struct nfswb_trace_pending {
	enum nfswb_trace_kind kind;	/* the start kind */
	uint32_t xid, fh_hash;
	int pid;
	bool has_fd;
	int fd;
	double ts;
	uint64_t len;
	bool has_xid;			/* kprobe: read the xid */
	bool has_file;			/* kprobe: dev/ino */
	bool has_uid;
	uint32_t uid;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
};

static int parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	/* Digits only: strtoull() would take signs, spaces and "0x". */
	if (!*s || s[strspn(s, base == 16 ? "0123456789abcdefABCDEF" :
					     "0123456789")])
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int parse_u32_hex(const char *s, uint32_t *v)
{
	uint64_t x;

	if (strncmp(s, "0x", 2) || parse_u64(s + 2, 16, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/*
 * Copy the value of "key=value" among the space-separated tokens of
 * @fields into @out.  Returns false when the key is absent or too long.
 */
static bool get_field(const char *fields, const char *key, char *out,
		      size_t outlen)
{
	size_t klen = strlen(key);
	const char *p = fields;

	while (*p) {
		const char *end;

		while (*p == ' ')
			p++;
		end = strchrnul(p, ' ');
		if ((size_t)(end - p) > klen && !strncmp(p, key, klen) &&
		    p[klen] == '=') {
			size_t vlen = (size_t)(end - p) - klen - 1;

			if (vlen >= outlen)
				return false;
			memcpy(out, p + klen + 1, vlen);
			out[vlen] = '\0';
			return true;
		}
		p = end;
	}
	return false;
}

static int field_u64(const char *fields, const char *key, int base,
		     uint64_t *v)
{
	char buf[32];

	if (!get_field(fields, key, buf, sizeof(buf)))
		return -EINVAL;
	if (base == 16) {
		if (strncmp(buf, "0x", 2))
			return -EINVAL;
		return parse_u64(buf + 2, 16, v);
	}
	return parse_u64(buf, base, v);
}

static int parse_sample(char *p, struct nfswb_trace_event *ev,
			const char **why)
{
	char buf[32];
	char *end;

	ev->kind = NFSWB_TEV_SAMPLE;
	if (!get_field(p, "t", buf, sizeof(buf)) ||
	    (ev->ts = strtod(buf, &end), end == buf || *end) ||
	    !isfinite(ev->ts) || ev->ts < 0) {
		*why = "nfswb-sample without a valid t=SECONDS";
		return -EINVAL;
	}
	if (get_field(p, "bdi", ev->bdi, sizeof(ev->bdi)) && !ev->bdi[0]) {
		*why = "nfswb-sample with an empty bdi=";
		return -EINVAL;
	}
	ev->has_dirty = get_field(p, "dirty", buf, sizeof(buf));
	if (ev->has_dirty && parse_u64(buf, 10, &ev->dirty))
		goto bad_number;
	ev->has_writeback = get_field(p, "writeback", buf, sizeof(buf));
	if (ev->has_writeback && parse_u64(buf, 10, &ev->writeback))
		goto bad_number;
	ev->has_bandwidth = get_field(p, "bandwidth", buf, sizeof(buf));
	if (ev->has_bandwidth && parse_u64(buf, 10, &ev->bandwidth))
		goto bad_number;
	return 1;
bad_number:
	*why = "nfswb-sample with a value that is not a decimal byte count";
	return -EINVAL;
}

/* "# nfswb-export dev=MAJ:MIN path=PATH": the path is the rest. */
static int parse_export(char *p, struct nfswb_trace_event *ev,
			const char **why)
{
	unsigned int major, minor;
	char buf[32], *path;
	int end = 0;

	ev->kind = NFSWB_TEV_EXPORT;
	path = strstr(p, " path=");
	if (!get_field(p, "dev", buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u%n", &major, &minor, &end) != 2 || buf[end] ||
	    major >= (1u << 12) || minor >= (1u << 20)) {
		*why = "nfswb-export without a valid dev=MAJ:MIN";
		return -EINVAL;
	}
	if (!path || !path[6] || strlen(path + 6) >= sizeof(ev->path)) {
		*why = "nfswb-export without path= (or a path too long)";
		return -EINVAL;
	}
	ev->dev_major = major;
	ev->dev_minor = minor;
	strcpy(ev->path, path + 6);
	return 1;
}

/*
 * The kprobe pair on nfsd_commit: "(nfsd_commit+0x0/0x1f0) xid_be=0x..
 * dev=N ino=N" and "(nfsd3_proc_commit+0x.. <- nfsd_commit) ret=0x0".
 * The fields are there when the kernel could resolve them (BTF).
 */
static int parse_kcommit(const char *fields, enum nfswb_trace_kind kind,
			 struct nfswb_trace_event *ev, const char **why)
{
	uint64_t v, dev, ino;
	char buf[32];

	ev->kind = kind;
	if (kind == NFSWB_TEV_KCOMMIT_EXIT)
		return 1;
	if (get_field(fields, "xid_be", buf, sizeof(buf))) {
		if (strncmp(buf, "0x", 2) || parse_u64(buf + 2, 16, &v) ||
		    v > UINT32_MAX) {
			*why = "nfswb_commit_entry with a bad xid_be=";
			return -EINVAL;
		}
		/* rq_xid is big-endian; the probe read it as a host u32. */
		ev->xid = __builtin_bswap32((uint32_t)v);
		ev->has_xid = true;
	}
	if (!field_u64(fields, "dev", 10, &dev) &&
	    !field_u64(fields, "ino", 10, &ino)) {
		if (dev > UINT32_MAX) {
			*why = "nfswb_commit_entry with a bad dev=";
			return -EINVAL;
		}
		/* The kernel's dev_t: MINORBITS is 20. */
		ev->dev_major = (uint32_t)(dev >> 20);
		ev->dev_minor = (uint32_t)(dev & 0xfffff);
		ev->ino = ino;
		ev->has_file = true;
	}
	if (!field_u64(fields, "uid", 10, &v)) {
		if (v > UINT32_MAX) {
			*why = "nfswb_commit_entry with a bad uid=";
			return -EINVAL;
		}
		ev->uid = (uint32_t)v;
		ev->has_uid = true;
	}
	return 1;
}

/* "CPU:3 [LOST 120 EVENTS]" */
static int parse_lost(const char *p, struct nfswb_trace_event *ev,
		      const char **why)
{
	unsigned long long n;
	unsigned int cpu;
	int end = 0;

	if (sscanf(p, "CPU:%u [LOST %llu EVENTS]%n", &cpu, &n, &end) != 2 ||
	    !end) {
		*why = "malformed LOST EVENTS line";
		return -EINVAL;
	}
	ev->kind = NFSWB_TEV_LOST;
	ev->lost = n;
	return 1;
}

static int parse_rpc_latency(const char *fields, struct nfswb_trace_event *ev,
			     const char **why)
{
	char buf[32];

	if (!get_field(fields, "xid", buf, sizeof(buf)) ||
	    parse_u32_hex(buf, &ev->xid)) {
		*why = "svc_stats_latency without a valid xid=0x...";
		return -EINVAL;
	}
	if (!get_field(fields, "proc", ev->proc, sizeof(ev->proc)) ||
	    !ev->proc[0]) {
		*why = "svc_stats_latency without proc=";
		return -EINVAL;
	}
	if (field_u64(fields, "execute-us", 10, &ev->execute_us)) {
		*why = "svc_stats_latency without a valid execute-us=";
		return -EINVAL;
	}
	/* Kernels before 5.x printed addr= and no server=. */
	if (!get_field(fields, "client", ev->client, sizeof(ev->client)))
		get_field(fields, "addr", ev->client, sizeof(ev->client));
	ev->kind = NFSWB_TEV_RPC_LATENCY;
	return 1;
}

static int parse_nfsd_io(const char *fields, enum nfswb_trace_kind kind,
			 struct nfswb_trace_event *ev, const char **why)
{
	char buf[32];
	uint64_t h;

	if (!get_field(fields, "xid", buf, sizeof(buf)) ||
	    parse_u32_hex(buf, &ev->xid) ||
	    field_u64(fields, "fh_hash", 16, &h) || h > UINT32_MAX ||
	    field_u64(fields, "offset", 10, &ev->offset) ||
	    field_u64(fields, "len", 10, &ev->len)) {
		*why = "nfsd I/O event without valid xid, fh_hash, offset, len";
		return -EINVAL;
	}
	ev->fh_hash = (uint32_t)h;
	ev->kind = kind;
	return 1;
}

/* raw_syscalls: "NR 74 (5, 0, ...)" or "NR 74 = 0". */
static int parse_raw_syscall(const char *fields, bool enter,
			     struct nfswb_trace_event *ev, const char **why)
{
	long nr;

	if (sscanf(fields, "NR %ld", &nr) != 1) {
		*why = "raw syscall event without NR";
		return -EINVAL;
	}
	if (nr != NR_FSYNC && nr != NR_FDATASYNC)
		return 0;
	ev->kind = enter ? NFSWB_TEV_FSYNC_ENTER : NFSWB_TEV_FSYNC_EXIT;
	/* The arguments are in hex: "NR 74 (7, 0, ...)". */
	if (enter) {
		unsigned long fd;

		if (sscanf(fields, "NR %*d (%lx", &fd) == 1 && fd <= INT32_MAX) {
			ev->fd = (int)fd;
			ev->has_fd = true;
		}
	}
	return 1;
}

/*
 * The header columns: "TASK-PID [(TGID)] [CPU] [FLAGS] TS:".  Sets the
 * pid and timestamp and returns the text after the timestamp, or NULL.
 */
static char *parse_header(char *p, struct nfswb_trace_event *ev,
			  const char **why)
{
	char *cpu = NULL, *q, *dash, *end;

	/* The first " [digits]" is the CPU column. */
	for (q = strchr(p, '['); q; q = strchr(q + 1, '[')) {
		char *d = q + 1;

		if (q == p || q[-1] != ' ')
			continue;
		while (*d >= '0' && *d <= '9')
			d++;
		if (d > q + 1 && *d == ']') {
			cpu = q;
			break;
		}
	}
	if (!cpu) {
		*why = "not an ftrace event line (no [CPU] column)";
		return NULL;
	}

	/* TASK-PID, optionally followed by "(TGID)". */
	end = cpu;
	while (end > p && end[-1] == ' ')
		end--;
	if (end > p && end[-1] == ')') {
		while (end > p && end[-1] != '(')
			end--;
		if (end > p)
			end--;
		while (end > p && end[-1] == ' ')
			end--;
	}
	for (dash = end; dash > p && dash[-1] != '-'; dash--)
		;
	if (dash == p || dash == end) {
		*why = "not an ftrace event line (no TASK-PID)";
		return NULL;
	}
	ev->pid = 0;
	for (q = dash; q < end; q++) {
		if (*q < '0' || *q > '9' || ev->pid > 10000000) {
			*why = "not an ftrace event line (bad PID)";
			return NULL;
		}
		ev->pid = ev->pid * 10 + (*q - '0');
	}

	/* After "]": an optional flags column, then "SECONDS:". */
	q = strchr(cpu, ']') + 1;
	for (int col = 0; col < 2; col++) {
		char *tok, *tend;

		while (*q == ' ')
			q++;
		tok = q;
		tend = strchrnul(tok, ' ');
		if (tend > tok && tend[-1] == ':') {
			char *num_end;

			errno = 0;
			ev->ts = strtod(tok, &num_end);
			if (errno || num_end != tend - 1 || !isfinite(ev->ts) ||
			    ev->ts < 0 || *tok < '0' || *tok > '9') {
				*why = "bad timestamp";
				return NULL;
			}
			return tend;
		}
		q = tend;
	}
	*why = "no TIMESTAMP: column";
	return NULL;
}

static bool is_fsync_name(const char *s, size_t n)
{
	return (n == 9 && !strncmp(s, "sys_fsync", n)) ||
	       (n == 13 && !strncmp(s, "sys_fdatasync", n));
}

static int parse_event(char *p, struct nfswb_trace_event *ev,
		       const char **why)
{
	char *name, *fields, *nend;
	size_t n;

	p = parse_header(p, ev, why);
	if (!p)
		return -EINVAL;
	while (*p == ' ')
		p++;
	name = p;
	nend = name + strcspn(name, " :(");
	n = (size_t)(nend - name);
	if (!n) {
		*why = "no event name";
		return -EINVAL;
	}

	/*
	 * Syscall events print "sys_fsync(fd: 0x00000005)" (older kernels
	 * "fd: 5") and "sys_fsync -> 0x0".
	 */
	if (*nend == '(') {
		unsigned long fd;
		char *e;

		if (!is_fsync_name(name, n))
			return 0;
		ev->kind = NFSWB_TEV_FSYNC_ENTER;
		if (!strncmp(nend, "(fd: ", 5)) {
			errno = 0;
			fd = strtoul(nend + 5, &e, 0);
			if (!errno && e > nend + 5 && *e == ')' &&
			    fd <= INT32_MAX) {
				ev->fd = (int)fd;
				ev->has_fd = true;
			}
		}
		return 1;
	}
	if (*nend == ' ' && !strncmp(nend, " -> ", 4))
		return is_fsync_name(name, n) ?
			(ev->kind = NFSWB_TEV_FSYNC_EXIT, 1) : 0;
	if (*nend != ':')
		return 0;	/* some other output, e.g. a function tracer */
	fields = nend + 1;
	while (*fields == ' ')
		fields++;

#define IS(s) (n == sizeof(s) - 1 && !strncmp(name, s, n))
	if (IS("svc_stats_latency"))
		return parse_rpc_latency(fields, ev, why);
	if (IS("nfsd_write_start"))
		return parse_nfsd_io(fields, NFSWB_TEV_WRITE_START, ev, why);
	if (IS("nfsd_write_done"))
		return parse_nfsd_io(fields, NFSWB_TEV_WRITE_DONE, ev, why);
	if (IS("nfsd_commit_start"))
		return parse_nfsd_io(fields, NFSWB_TEV_COMMIT_START, ev, why);
	if (IS("nfsd_commit_done"))
		return parse_nfsd_io(fields, NFSWB_TEV_COMMIT_DONE, ev, why);
	if (IS("sys_enter"))
		return parse_raw_syscall(fields, true, ev, why);
	if (IS("sys_exit"))
		return parse_raw_syscall(fields, false, ev, why);
	if (IS("nfswb_commit_entry"))
		return parse_kcommit(fields, NFSWB_TEV_KCOMMIT_ENTRY, ev, why);
	if (IS("nfswb_commit_exit"))
		return parse_kcommit(fields, NFSWB_TEV_KCOMMIT_EXIT, ev, why);
	if (IS("nfswb_commit_file"))
		return parse_kcommit(fields, NFSWB_TEV_KCOMMIT_FILE, ev, why);
	if (IS("wb_bg_time_kick")) {
		get_field(fields, "bdi", ev->bdi, sizeof(ev->bdi));
		ev->kind = NFSWB_TEV_BG_KICK;
		return 1;
	}
#undef IS
	return 0;
}

/* The lines "trace-cmd report" prints before the events. */
static bool is_trace_cmd_header(const char *p)
{
	unsigned int cpu;
	int end = 0;

	if (!strncmp(p, "cpus=", 5) || !strncmp(p, "version = ", 10))
		return true;
	return sscanf(p, "CPU %u is empty%n", &cpu, &end) == 1 && end &&
	       !p[end];
}

int nfswb_trace_parse_line(const char *line, size_t len,
			   struct nfswb_trace_event *ev, const char **why)
{
	char buf[LINE_MAX_LEN + 1];
	char *p;

	memset(ev, 0, sizeof(*ev));
	*why = NULL;
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
		       line[len - 1] == '\n'))
		len--;
	if (len > LINE_MAX_LEN) {
		if (line[0] == '#')
			return 0;
		*why = "line too long for an ftrace event";
		return -EINVAL;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		*why = "NUL byte in line";
		return -EINVAL;
	}
	for (p = buf; *p; p++)
		if (*p == '\t')
			*p = ' ';
	p = buf;
	while (*p == ' ')
		p++;
	if (!*p)
		return 0;
	if (*p == '#') {
		p++;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "nfswb-sample", 12) &&
		    (p[12] == ' ' || !p[12]))
			return parse_sample(p + 12, ev, why);
		if (!strncmp(p, "nfswb-export ", 13))
			return parse_export(p + 12, ev, why);
		return 0;
	}
	if (!strncmp(p, "CPU:", 4) && strstr(p, "[LOST"))
		return parse_lost(p, ev, why);
	if (is_trace_cmd_header(p))
		return 0;
	return parse_event(p, ev, why);
}

void nfswb_trace_init(struct nfswb_trace *t)
{
	memset(t, 0, sizeof(*t));
}

/* Grow *v (of *cap elements of @size) to hold one more than @count. */
static int grow(void *vp, size_t *cap, size_t count, size_t size)
{
	void **v = vp;
	size_t ncap;
	void *p;

	if (count < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*v, ncap * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

static int ops_add(struct nfswb_trace_ops *o, const struct nfswb_trace_op *op)
{
	if (grow(&o->v, &o->cap, o->count, sizeof(*o->v)))
		return -ENOMEM;
	o->v[o->count++] = *op;
	return 0;
}

static int intern_client(struct nfswb_trace *t, const char *name)
{
	if (!name[0])
		return -1;
	for (size_t i = 0; i < t->nclients; i++)
		if (!strcmp(t->clients[i], name))
			return (int)i;
	if (t->nclients >= INT32_MAX ||
	    grow(&t->clients, &t->clients_cap, t->nclients,
		 sizeof(*t->clients)))
		return -2;
	t->clients[t->nclients] = strdup(name);
	if (!t->clients[t->nclients])
		return -2;
	return (int)t->nclients++;
}

static int pending_add(struct nfswb_trace *t, const struct nfswb_trace_event *ev)
{
	struct nfswb_trace_pending *pe;

	if (t->npending >= PENDING_MAX) {
		/* Starts that never finished: forget the oldest. */
		memmove(t->pending, t->pending + 1,
			(t->npending - 1) * sizeof(*t->pending));
		t->npending--;
		t->unmatched++;
	}
	if (grow(&t->pending, &t->pending_cap, t->npending,
		 sizeof(*t->pending)))
		return -ENOMEM;
	pe = &t->pending[t->npending++];
	pe->kind = ev->kind;
	pe->xid = ev->xid;
	pe->fh_hash = ev->fh_hash;
	pe->pid = ev->pid;
	pe->ts = ev->ts;
	pe->len = ev->len;
	pe->has_fd = ev->has_fd;
	pe->fd = ev->fd;
	pe->has_xid = ev->has_xid;
	pe->has_file = ev->has_file;
	pe->has_uid = ev->has_uid;
	pe->uid = ev->uid;
	pe->dev_major = ev->dev_major;
	pe->dev_minor = ev->dev_minor;
	pe->ino = ev->ino;
	return 0;
}

/* Pair a done/exit event with its start; 0 if matched, 1 if not. */
static int pending_take(struct nfswb_trace *t, enum nfswb_trace_kind start,
			const struct nfswb_trace_event *ev,
			struct nfswb_trace_pending *out)
{
	/* A syscall or a function returns on the thread that entered it. */
	bool by_pid = start == NFSWB_TEV_FSYNC_ENTER ||
		      start == NFSWB_TEV_KCOMMIT_ENTRY ||
		      start == NFSWB_TEV_KCOMMIT_FILE;

	/* Newest first: a thread's latest start is the one finishing. */
	for (size_t i = t->npending; i-- > 0;) {
		struct nfswb_trace_pending *pe = &t->pending[i];

		if (pe->kind != start)
			continue;
		if (by_pid ? pe->pid != ev->pid :
			     pe->xid != ev->xid || pe->fh_hash != ev->fh_hash)
			continue;
		/* A file probe that read the xid names only that request. */
		if (start == NFSWB_TEV_KCOMMIT_FILE && pe->has_xid &&
		    pe->xid != ev->xid)
			continue;
		*out = *pe;
		memmove(pe, pe + 1, (t->npending - i - 1) * sizeof(*pe));
		t->npending--;
		return 0;
	}
	return 1;
}

static int add_pair(struct nfswb_trace *t, struct nfswb_trace_ops *ops,
		    enum nfswb_trace_kind start,
		    const struct nfswb_trace_event *ev)
{
	struct nfswb_trace_pending pe;
	struct nfswb_trace_op op = { 0 };
	double d;

	if (pending_take(t, start, ev, &pe)) {
		t->unmatched++;
		return 0;
	}
	d = ev->ts - pe.ts;
	if (d < 0) {
		t->unmatched++;
		return 0;
	}
	op.ts = ev->ts;
	op.us = (uint64_t)llround(d * 1e6);
	op.bytes = pe.len;
	op.client = -1;
	op.pid = ev->pid;
	op.has_fd = pe.has_fd;
	op.fd = pe.fd;
	/*
	 * The file, as the kprobe entry read it (the exit knows nothing),
	 * or as the file probe before an nfsd_commit_start did.
	 */
	op.has_file = pe.has_file;
	op.has_uid = pe.has_uid;
	op.uid = pe.uid;
	op.dev_major = pe.dev_major;
	op.dev_minor = pe.dev_minor;
	op.ino = pe.ino;
	if (start == NFSWB_TEV_KCOMMIT_ENTRY) {
		op.xid = pe.xid;
	} else {
		op.xid = ev->xid;
		op.fh_hash = ev->fh_hash;
		op.has_fh = start != NFSWB_TEV_FSYNC_ENTER;
	}
	return ops_add(ops, &op);
}

/*
 * nfsd_commit_start: the file probe that fired just before on the same
 * thread, if any, names its file.
 */
static int commit_start(struct nfswb_trace *t, struct nfswb_trace_event *ev)
{
	struct nfswb_trace_pending pe;

	if (!pending_take(t, NFSWB_TEV_KCOMMIT_FILE, ev, &pe)) {
		ev->has_file = pe.has_file;
		ev->has_uid = pe.has_uid;
		ev->uid = pe.uid;
		ev->dev_major = pe.dev_major;
		ev->dev_minor = pe.dev_minor;
		ev->ino = pe.ino;
	}
	return pending_add(t, ev);
}

static int add_bad(struct nfswb_trace *t, const char *file,
		   unsigned int lineno, const char *why)
{
	if (t->nbad < NFSWB_TRACE_KEEP_BAD) {
		struct nfswb_trace_bad *b = &t->bad[t->nbad];

		b->file = strdup(file);
		if (!b->file)
			return -ENOMEM;
		b->line = lineno;
		b->why = why;
	}
	t->nbad++;
	return 0;
}

int nfswb_trace_feed(struct nfswb_trace *t, const char *file,
		     unsigned int lineno, const char *line, size_t len)
{
	struct nfswb_trace_event ev;
	struct nfswb_trace_op op = { 0 };
	const char *why;
	int r, c;

	t->lines++;
	r = nfswb_trace_parse_line(line, len, &ev, &why);
	if (r < 0)
		return add_bad(t, file, lineno, why);
	if (r == 0)
		return 0;

	if (ev.kind != NFSWB_TEV_SAMPLE && ev.kind != NFSWB_TEV_LOST &&
	    ev.kind != NFSWB_TEV_EXPORT) {
		t->events++;
		if (!t->any_ts || ev.ts < t->first_ts)
			t->first_ts = ev.ts;
		if (!t->any_ts || ev.ts > t->last_ts)
			t->last_ts = ev.ts;
		t->any_ts = true;
	}

	switch (ev.kind) {
	case NFSWB_TEV_RPC_LATENCY:
		if (strcmp(ev.proc, "COMMIT") && strcmp(ev.proc, "WRITE"))
			return 0;
		c = intern_client(t, ev.client);
		if (c == -2)
			return -ENOMEM;
		op.ts = ev.ts;
		op.us = ev.execute_us;
		op.xid = ev.xid;
		op.client = c;
		return ops_add(ev.proc[0] == 'C' ? &t->rpc_commit :
						   &t->rpc_write, &op);
	case NFSWB_TEV_COMMIT_START:
		return commit_start(t, &ev);
	case NFSWB_TEV_WRITE_START:
	case NFSWB_TEV_FSYNC_ENTER:
	case NFSWB_TEV_KCOMMIT_FILE:
		return pending_add(t, &ev);
	case NFSWB_TEV_WRITE_DONE:
		return add_pair(t, &t->nfsd_write, NFSWB_TEV_WRITE_START, &ev);
	case NFSWB_TEV_COMMIT_DONE:
		return add_pair(t, &t->nfsd_commit, NFSWB_TEV_COMMIT_START,
				&ev);
	case NFSWB_TEV_FSYNC_EXIT:
		return add_pair(t, &t->fsync, NFSWB_TEV_FSYNC_ENTER, &ev);
	case NFSWB_TEV_KCOMMIT_ENTRY:
		return pending_add(t, &ev);
	case NFSWB_TEV_KCOMMIT_EXIT:
		return add_pair(t, &t->kprobe_commit, NFSWB_TEV_KCOMMIT_ENTRY,
				&ev);
	case NFSWB_TEV_EXPORT: {
		struct nfswb_trace_export *x;

		if (t->nexports >= 4096 ||
		    nfswb_trace_export_of(t, ev.dev_major, ev.dev_minor))
			return 0;	/* the first line of a device wins */
		if (grow(&t->exports, &t->exports_cap, t->nexports,
			 sizeof(*t->exports)))
			return -ENOMEM;
		x = &t->exports[t->nexports];
		x->dev_major = ev.dev_major;
		x->dev_minor = ev.dev_minor;
		x->path = strdup(ev.path);
		if (!x->path)
			return -ENOMEM;
		t->nexports++;
		return 0;
	}
	case NFSWB_TEV_BG_KICK:
		if (grow(&t->kicks, &t->kicks_cap, t->nkicks,
			 sizeof(*t->kicks)))
			return -ENOMEM;
		t->kicks[t->nkicks++] = ev.ts;
		return 0;
	case NFSWB_TEV_SAMPLE: {
		struct nfswb_trace_sample s = {
			.t = ev.ts,
			.has_dirty = ev.has_dirty,
			.has_writeback = ev.has_writeback,
			.has_bandwidth = ev.has_bandwidth,
			.dirty = ev.dirty,
			.writeback = ev.writeback,
			.bandwidth = ev.bandwidth,
		};

		memcpy(s.bdi, ev.bdi, sizeof(s.bdi));
		return nfswb_trace_add_sample(t, &s);
	}
	case NFSWB_TEV_LOST:
		t->lost_events += ev.lost;
		return 0;
	case NFSWB_TEV_IGNORED:
		return 0;
	}
	return 0;
}

int nfswb_trace_add_sample(struct nfswb_trace *t,
			   const struct nfswb_trace_sample *s)
{
	if (grow(&t->samples, &t->samples_cap, t->nsamples,
		 sizeof(*t->samples)))
		return -ENOMEM;
	t->samples[t->nsamples++] = *s;
	return 0;
}

/* What one side of a pairing knows about an xid. */
struct xid_client {
	uint32_t xid;
	int client;
	const struct nfswb_trace_op *op;	/* its fh_hash, its file */
};

static int cmp_xid(const void *a, const void *b)
{
	uint32_t x = ((const struct xid_client *)a)->xid;
	uint32_t y = ((const struct xid_client *)b)->xid;

	return (x > y) - (x < y);
}

static int cmp_sample(const void *a, const void *b)
{
	double x = ((const struct nfswb_trace_sample *)a)->t;
	double y = ((const struct nfswb_trace_sample *)b)->t;

	return (x > y) - (x < y);
}

/* The ops of @lists (@nlists of them) sorted by xid; NULL if none. */
static struct xid_client *xid_map(const struct nfswb_trace_ops *const *lists,
				  size_t nlists, size_t *n)
{
	struct xid_client *map;
	size_t k = 0;

	*n = 0;
	for (size_t l = 0; l < nlists; l++)
		*n += lists[l]->count;
	if (!*n)
		return NULL;
	map = malloc(*n * sizeof(*map));
	if (!map)
		return NULL;
	for (size_t l = 0; l < nlists; l++)
		for (size_t i = 0; i < lists[l]->count; i++)
			map[k++] = (struct xid_client){ lists[l]->v[i].xid,
							lists[l]->v[i].client,
							&lists[l]->v[i] };
	qsort(map, *n, sizeof(*map), cmp_xid);
	return map;
}

/*
 * Give @ops what the other side knows of the same xid: the client
 * (svc_stats_latency's), or (@want_fh) the nfsd events' fh_hash and the
 * file a kprobe read, so that an RPC COMMIT groups by export too.
 */
static void resolve(struct nfswb_trace_ops *ops, const struct xid_client *map,
		    size_t n, bool want_fh)
{
	for (size_t i = 0; map && i < ops->count; i++) {
		struct nfswb_trace_op *op = &ops->v[i];
		struct xid_client key = { .xid = op->xid };
		const struct xid_client *m, *first;

		m = bsearch(&key, map, n, sizeof(*map), cmp_xid);
		if (!m)
			continue;
		if (!want_fh) {
			op->client = m->client;
			continue;
		}
		/* Every entry of this xid: the fh from one, the file from another. */
		for (first = m; first > map && first[-1].xid == op->xid; first--)
			;
		for (m = first; m < map + n && m->xid == op->xid; m++) {
			if (m->op->has_fh && !op->has_fh) {
				op->fh_hash = m->op->fh_hash;
				op->has_fh = true;
			}
			if (m->op->has_file && !op->has_file) {
				op->has_file = true;
				op->dev_major = m->op->dev_major;
				op->dev_minor = m->op->dev_minor;
				op->ino = m->op->ino;
				op->has_uid = m->op->has_uid;
				op->uid = m->op->uid;
			}
		}
	}
}

void nfswb_trace_finish(struct nfswb_trace *t)
{
	const struct nfswb_trace_ops *rpc[] = { &t->rpc_commit, &t->rpc_write };
	const struct nfswb_trace_ops *nfsd[] = {
		&t->nfsd_commit, &t->nfsd_write, &t->kprobe_commit,
	};
	struct xid_client *map;
	size_t n;

	t->unmatched += t->npending;
	t->npending = 0;
	if (t->nsamples > 1)
		qsort(t->samples, t->nsamples, sizeof(*t->samples),
		      cmp_sample);

	/* On failure the clients and files just stay unknown. */
	map = xid_map(rpc, 2, &n);
	resolve(&t->nfsd_commit, map, n, false);
	resolve(&t->nfsd_write, map, n, false);
	resolve(&t->kprobe_commit, map, n, false);
	free(map);
	map = xid_map(nfsd, 3, &n);
	resolve(&t->rpc_commit, map, n, true);
	resolve(&t->rpc_write, map, n, true);
	free(map);
}

const struct nfswb_trace_ops *nfswb_trace_commits(const struct nfswb_trace *t,
					       enum nfswb_commit_source *src)
{
	const struct nfswb_trace_ops *best = &t->rpc_commit;

	/*
	 * svc_stats_latency names NFSv3's COMMIT only (NFSv4's travels in a
	 * COMPOUND); nfsd_commit, traced or probed, sees every version.
	 */
	*src = NFSWB_SRC_RPC;
	if (t->nfsd_commit.count > best->count) {
		best = &t->nfsd_commit;
		*src = NFSWB_SRC_NFSD;
	}
	if (t->kprobe_commit.count > best->count) {
		best = &t->kprobe_commit;
		*src = NFSWB_SRC_KPROBE;
	}
	if (best->count)
		return best;
	*src = t->fsync.count ? NFSWB_SRC_FSYNC : NFSWB_SRC_NONE;
	return &t->fsync;
}

size_t nfswb_trace_drain(struct nfswb_trace *t,
			 void (*fn)(const struct nfswb_trace_op *op,
				    enum nfswb_commit_source src, void *arg),
			 void *arg)
{
	const struct {
		struct nfswb_trace_ops *ops;
		enum nfswb_commit_source src;
	} commits[] = {
		{ &t->rpc_commit, NFSWB_SRC_RPC },
		{ &t->nfsd_commit, NFSWB_SRC_NFSD },
		{ &t->kprobe_commit, NFSWB_SRC_KPROBE },
		{ &t->fsync, NFSWB_SRC_FSYNC },
	};
	size_t n = 0;

	for (size_t k = 0; k < sizeof(commits) / sizeof(commits[0]); k++) {
		for (size_t i = 0; i < commits[k].ops->count; i++)
			fn(&commits[k].ops->v[i], commits[k].src, arg);
		n += commits[k].ops->count;
		commits[k].ops->count = 0;
	}
	t->rpc_write.count = 0;
	t->nfsd_write.count = 0;
	t->nkicks = 0;
	t->nsamples = 0;
	return n;
}

const struct nfswb_trace_ops *nfswb_trace_writes(const struct nfswb_trace *t,
					      bool *rpc)
{
	*rpc = t->rpc_write.count > 0;
	return *rpc ? &t->rpc_write : &t->nfsd_write;
}

const char *nfswb_commit_source_name(enum nfswb_commit_source src)
{
	switch (src) {
	case NFSWB_SRC_RPC:
		return "svc_stats_latency";
	case NFSWB_SRC_NFSD:
		return "nfsd_commit";
	case NFSWB_SRC_FSYNC:
		return "fsync";
	case NFSWB_SRC_KPROBE:
		return "kprobe:nfsd_commit";
	case NFSWB_SRC_NONE:
		break;
	}
	return "none";
}

const struct nfswb_trace_export *
nfswb_trace_export_of(const struct nfswb_trace *t, uint32_t major,
		      uint32_t minor)
{
	for (size_t i = 0; i < t->nexports; i++)
		if (t->exports[i].dev_major == major &&
		    t->exports[i].dev_minor == minor)
			return &t->exports[i];
	return NULL;
}

void nfswb_trace_print_bad(const struct nfswb_trace *t, FILE *out)
{
	size_t kept = t->nbad < NFSWB_TRACE_KEEP_BAD ? t->nbad :
						      NFSWB_TRACE_KEEP_BAD;

	for (size_t i = 0; i < kept; i++)
		fprintf(out, "%s:%u: %s\n", t->bad[i].file, t->bad[i].line,
			t->bad[i].why);
	if (t->nbad > kept)
		fprintf(out, "... and %llu more malformed lines\n",
			(unsigned long long)(t->nbad - kept));
}

void nfswb_trace_free(struct nfswb_trace *t)
{
	size_t kept = t->nbad < NFSWB_TRACE_KEEP_BAD ? t->nbad :
						      NFSWB_TRACE_KEEP_BAD;

	free(t->rpc_commit.v);
	free(t->rpc_write.v);
	free(t->nfsd_commit.v);
	free(t->nfsd_write.v);
	free(t->fsync.v);
	free(t->kprobe_commit.v);
	for (size_t i = 0; i < t->nexports; i++)
		free(t->exports[i].path);
	free(t->exports);
	free(t->samples);
	free(t->kicks);
	for (size_t i = 0; i < t->nclients; i++)
		free(t->clients[i]);
	free(t->clients);
	free(t->pending);
	for (size_t i = 0; i < kept; i++)
		free(t->bad[i].file);
	memset(t, 0, sizeof(*t));
}
