// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_trace.c - the ftrace line parser on the forms the kernel, trace-cmd
 * and nfswb-report write, and on lines it must reject.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "test.h"
#include "trace.h"

struct line_case {
	const char *line;
	int ret;
	enum nfswb_trace_kind kind;
	int pid;
	double ts;
	uint32_t xid;
	uint64_t num;		/* execute-us, len, dirty or lost count */
	const char *text;	/* client or bdi */
};

static const struct line_case cases[] = {
	/* The kernel's own line, as in lab.md. */
	{ "nfsd-71 [000] ..... 49.247750: svc_stats_latency: xid=0xa88ba7c9 "
	  "server=127.0.0.1:2049 client=127.0.0.1:905 proc=COMMIT "
	  "execute-us=4178513", 1, NFSWB_TEV_RPC_LATENCY, 71, 49.24775,
	  0xa88ba7c9, 4178513, "127.0.0.1:905" },
	/* Padded as in the trace file, with a TGID column. */
	{ "            nfsd-1234  (   1234) [001] d..1.  123.000001: "
	  "svc_stats_latency: xid=0x00000001 server=[::1]:2049 "
	  "client=[::1]:800 proc=WRITE execute-us=0", 1,
	  NFSWB_TEV_RPC_LATENCY, 1234, 123.000001, 1, 0, "[::1]:800" },
	/* trace-cmd report: no flags column; an older kernel's addr=. */
	{ "  nfsd-9   [003]  7.5: svc_stats_latency: addr=10.0.0.1:1 "
	  "xid=0xffffffff proc=COMMIT execute-us=18446744073709551615", 1,
	  NFSWB_TEV_RPC_LATENCY, 9, 7.5, 0xffffffff, UINT64_MAX,
	  "10.0.0.1:1" },
	/* A task name with spaces and dashes. */
	{ "  my odd-task-name-42 [000] ..... 1.000000: nfsd_write_start: "
	  "xid=0x2 fh_hash=0xdeadbeef offset=4096 len=262144", 1,
	  NFSWB_TEV_WRITE_START, 42, 1.0, 2, 262144, NULL },
	{ "nfsd-7 [000] ..... 2.5: nfsd_commit_done: xid=0x3 fh_hash=0x1 "
	  "offset=0 len=0", 1, NFSWB_TEV_COMMIT_DONE, 7, 2.5, 3, 0, NULL },
	/* Syscall events. */
	{ "ganesha.nfsd-400 [000] ..... 3.0: sys_fsync(fd: 5)", 1,
	  NFSWB_TEV_FSYNC_ENTER, 400, 3.0, 0, 0, NULL },
	{ "ganesha.nfsd-400 [000] ..... 3.2: sys_fdatasync -> 0x0", 1,
	  NFSWB_TEV_FSYNC_EXIT, 400, 3.2, 0, 0, NULL },
	{ "ganesha.nfsd-401 [000] ..... 3.0: sys_enter: NR 74 (5, 0)", 1,
	  NFSWB_TEV_FSYNC_ENTER, 401, 3.0, 0, 0, NULL },
	{ "ganesha.nfsd-401 [000] ..... 3.0: sys_exit: NR 75 = 0", 1,
	  NFSWB_TEV_FSYNC_EXIT, 401, 3.0, 0, 0, NULL },
	{ "ganesha.nfsd-401 [000] ..... 3.0: sys_enter: NR 1 (5, 0)", 0,
	  NFSWB_TEV_IGNORED, 0, 0, 0, 0, NULL },
	{ "x-1 [000] ..... 3.0: sys_write(fd: 5)", 0, NFSWB_TEV_IGNORED,
	  0, 0, 0, 0, NULL },
	{ "kworker-5 [000] ..... 9.0: wb_bg_time_kick: bdi=254:0 "
	  "dirty=123", 1, NFSWB_TEV_BG_KICK, 5, 9.0, 0, 0, "254:0" },
	/* Comments: ours carry samples. */
	{ "# nfswb-sample t=12.25 bdi=254:0 dirty=1048576 writeback=0 "
	  "bandwidth=33554432", 1, NFSWB_TEV_SAMPLE, 0, 12.25, 0, 1048576,
	  "254:0" },
	{ "# tracer: nop", 0, NFSWB_TEV_IGNORED, 0, 0, 0, 0, NULL },
	{ "", 0, NFSWB_TEV_IGNORED, 0, 0, 0, 0, NULL },
	{ "CPU:1 [LOST 77 EVENTS]", 1, NFSWB_TEV_LOST, 0, 0, 0, 77, NULL },
	/* trace-cmd report's preamble. */
	{ "version = 6", 0, NFSWB_TEV_IGNORED, 0, 0, 0, 0, NULL },
	{ "cpus=2", 0, NFSWB_TEV_IGNORED, 0, 0, 0, 0, NULL },
	{ "CPU 1 is empty", 0, NFSWB_TEV_IGNORED, 0, 0, 0, 0, NULL },
	{ "CPU 1 is emptyish", -EINVAL, 0, 0, 0, 0, 0, NULL },
	/* Other events are skipped, other procedures kept for the caller. */
	{ "kworker-5 [000] ..... 9.0: writeback_start: bdi 254:0: x", 0,
	  NFSWB_TEV_IGNORED, 0, 0, 0, 0, NULL },
	/* Malformed. */
	{ "nfsd-71 [000] ..... 49.2: svc_stats_latency: xid=0x1 proc=COMMIT "
	  "execute-us=", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "nfsd-71 [000] ..... 49.2: svc_stats_latency: xid=0x1 proc=COMMIT "
	  "execute-us=-5", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "nfsd-71 [000] ..... 49.2: svc_stats_latency: xid=0x100000000 "
	  "proc=COMMIT execute-us=5", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "nfsd-71 [000] ..... 49.2: svc_stats_latency: xid=0x1 proc=COMMIT "
	  "execute-us=18446744073709551616", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "nfsd-71 [000] ..... 49.2: nfsd_write_done: xid=0x1 fh_hash=0x1 "
	  "offset=0", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "nfsd-71 [000] ..... 49.2: nfsd_write_done: xid=0x0x1 "
	  "fh_hash=0x1 offset=0 len=1", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "nfsd-71 [000] ..... nan: nfsd_write_done: xid=0x1", -EINVAL, 0, 0, 0,
	  0, 0, NULL },
	{ "nfsd-71 [000] ..... 49.2", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "nfsd [000] ..... 49.2: x: y", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "[000] 49.2: x: y", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "just words", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "# nfswb-sample dirty=5", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "# nfswb-sample t=1 dirty=5M", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "# nfswb-sample t=12abc dirty=5", -EINVAL, 0, 0, 0, 0, 0, NULL },
	{ "CPU:1 [LOST", -EINVAL, 0, 0, 0, 0, 0, NULL },
};

static void test_lines(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct line_case *c = &cases[i];
		struct nfswb_trace_event ev;
		const char *why;
		uint64_t num = 0;
		const char *text = NULL;
		int r;

		r = nfswb_trace_parse_line(c->line, strlen(c->line), &ev, &why);
		T_CHECK(r == c->ret, "case %zu: ret %d want %d (%s)", i, r,
			c->ret, why ? why : "");
		if (r < 0) {
			T_CHECK(why && *why, "case %zu: no reason", i);
			continue;
		}
		if (r == 0)
			continue;
		T_CHECK(ev.kind == c->kind, "case %zu: kind %d", i, ev.kind);
		T_CHECK(ev.pid == c->pid, "case %zu: pid %d", i, ev.pid);
		T_CHECK(ev.ts == c->ts, "case %zu: ts %f", i, ev.ts);
		T_CHECK(ev.xid == c->xid, "case %zu: xid %x", i, ev.xid);
		switch (ev.kind) {
		case NFSWB_TEV_RPC_LATENCY:
			num = ev.execute_us;
			text = ev.client;
			break;
		case NFSWB_TEV_WRITE_START:
		case NFSWB_TEV_COMMIT_DONE:
			num = ev.len;
			break;
		case NFSWB_TEV_SAMPLE:
			num = ev.dirty;
			text = ev.bdi;
			T_CHECK(ev.has_dirty && ev.has_bandwidth &&
				ev.bandwidth == 33554432, "case %zu: bw", i);
			break;
		case NFSWB_TEV_BG_KICK:
			text = ev.bdi;
			break;
		case NFSWB_TEV_LOST:
			num = ev.lost;
			break;
		default:
			break;
		}
		T_CHECK(num == c->num, "case %zu: number %" PRIu64, i, num);
		if (c->text)
			T_CHECK(text && !strcmp(text, c->text),
				"case %zu: text %s", i, text ? text : "");
	}
}

/* Pairing: interleaved starts, a done without start, a start never done. */
static void test_pairing(void)
{
	static const char *const lines[] = {
		"nfsd-1 [000] ..... 10.000000: nfsd_write_start: xid=0x1 "
		"fh_hash=0xa offset=0 len=100",
		"nfsd-2 [000] ..... 10.000100: nfsd_write_start: xid=0x2 "
		"fh_hash=0xb offset=0 len=200",
		"nfsd-2 [000] ..... 10.000150: nfsd_write_done: xid=0x2 "
		"fh_hash=0xb offset=0 len=200",
		"nfsd-1 [000] ..... 10.001000: nfsd_write_done: xid=0x1 "
		"fh_hash=0xa offset=0 len=100",
		"nfsd-1 [000] ..... 10.002000: nfsd_write_done: xid=0x9 "
		"fh_hash=0xa offset=0 len=100",
		"nfsd-1 [000] ..... 10.003000: nfsd_commit_start: xid=0x5 "
		"fh_hash=0xa offset=0 len=0",
		"nfsd-1 [000] ..... 10.004000: svc_stats_latency: xid=0x1 "
		"server=s client=c1 proc=WRITE execute-us=1100",
		"garbage",
	};
	struct nfswb_trace t;

	nfswb_trace_init(&t);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		T_CHECK(nfswb_trace_feed(&t, "mem", (unsigned int)i + 1,
					 lines[i], strlen(lines[i])) == 0,
			"feed");
	nfswb_trace_finish(&t);
	T_CHECK(t.nfsd_write.count == 2, "pairs %zu", t.nfsd_write.count);
	T_CHECK(t.nfsd_write.v[0].us == 50 && t.nfsd_write.v[0].bytes == 200,
		"first pair %" PRIu64, t.nfsd_write.v[0].us);
	T_CHECK(t.nfsd_write.v[1].us == 1000 && t.nfsd_write.v[1].client == 0,
		"second pair %" PRIu64 " client %d", t.nfsd_write.v[1].us,
		t.nfsd_write.v[1].client);
	T_CHECK(t.rpc_write.count == 1 && t.rpc_write.v[0].has_fh &&
		t.rpc_write.v[0].fh_hash == 0xa, "rpc op gets the fh_hash");
	/* One done without start, one start never done. */
	T_CHECK(t.unmatched == 2, "unmatched %" PRIu64, t.unmatched);
	T_CHECK(t.nbad == 1 && t.bad[0].line == 8, "bad line %u",
		t.bad[0].line);
	nfswb_trace_free(&t);
}

/*
 * Pairing, case by case: the lines fed, the ops that come out (w: nfsd
 * WRITE, c: nfsd COMMIT, f: fsync, with their microseconds, in the order
 * they finished) and how many events found no partner.
 */
#define W(ts, ev, xid, fh) "nfsd-1 [000] ..... " ts ": nfsd_" ev ": xid=" \
	xid " fh_hash=" fh " offset=0 len=4096"
#define F(pid, ts, what) "srv-" pid " [000] ..... " ts ": " what

static const struct {
	const char *name;
	const char *lines[6];
	const char *ops;
	uint64_t unmatched;
} pairs[] = {
	{ "one xid on two file handles: each done finds its own start",
	  { W("1.000", "write_start", "0x7", "0xa"),
	    W("1.001", "write_start", "0x7", "0xb"),
	    W("1.004", "write_done", "0x7", "0xa"),
	    W("1.005", "write_done", "0x7", "0xb") },
	  "w4000 w4000", 0 },
	{ "a done stamped before its start is no op",
	  { W("2.000", "write_start", "0x8", "0xa"),
	    W("1.999", "write_done", "0x8", "0xa") },
	  "", 1 },
	{ "interleaved starts of one request: the newest is the one done",
	  { W("3.000", "commit_start", "0x9", "0xa"),
	    W("3.002", "commit_start", "0x9", "0xa"),
	    W("3.003", "commit_done", "0x9", "0xa"),
	    W("3.010", "commit_done", "0x9", "0xa") },
	  "c1000 c10000", 0 },
	{ "a WRITE done does not end a COMMIT",
	  { W("4.000", "commit_start", "0x5", "0xa"),
	    W("4.001", "write_done", "0x5", "0xa") },
	  "", 2 },
	{ "fsync pairs by thread, whatever came in between",
	  { F("10", "5.000", "sys_fsync(fd: 5)"),
	    F("11", "5.001", "sys_fsync(fd: 6)"),
	    F("10", "5.003", "sys_fsync -> 0x0"),
	    F("11", "5.007", "sys_fsync -> 0x0") },
	  "f3000 f6000", 0 },
};

static void ops_text(const struct nfswb_trace_ops *o, char c, char *buf,
		     size_t len)
{
	for (size_t i = 0; i < o->count; i++) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, "%s%c%" PRIu64, n ? " " : "", c,
			 o->v[i].us);
	}
}

static void test_pair_cases(void)
{
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct nfswb_trace t;
		char got[256] = "";

		nfswb_trace_init(&t);
		for (size_t k = 0; k < 6 && pairs[i].lines[k]; k++)
			T_CHECK(nfswb_trace_feed(&t, "mem", (unsigned int)k + 1,
						 pairs[i].lines[k],
						 strlen(pairs[i].lines[k])) == 0,
				"%s: feed", pairs[i].name);
		nfswb_trace_finish(&t);
		ops_text(&t.nfsd_write, 'w', got, sizeof(got));
		ops_text(&t.nfsd_commit, 'c', got, sizeof(got));
		ops_text(&t.fsync, 'f', got, sizeof(got));
		T_CHECK(!strcmp(got, pairs[i].ops), "%s: ops \"%s\", want \"%s\"",
			pairs[i].name, got, pairs[i].ops);
		T_CHECK(t.unmatched == pairs[i].unmatched,
			"%s: %" PRIu64 " unmatched, want %" PRIu64,
			pairs[i].name, t.unmatched, pairs[i].unmatched);
		nfswb_trace_free(&t);
	}
}

/* A fresh trace fed @n lines, each of which must feed. */
static void feed_all(struct nfswb_trace *t, const char *const *lines, size_t n)
{
	nfswb_trace_init(t);
	for (size_t i = 0; i < n; i++)
		T_CHECK(nfswb_trace_feed(t, "mem", (unsigned int)i + 1,
					 lines[i], strlen(lines[i])) == 0,
			"feed %zu", i);
}

/*
 * Beside the nfsd_commit tracepoints, the entry kprobe nfswb_commit_file
 * names the file of the nfsd_commit_start that follows on its thread:
 * the COMMIT gets its device and inode (so an export); a probe of
 * another thread or another xid does not give its file away.
 */
static void test_commit_file(void)
{
#define K(pid, ts, xid_be, dev, ino) "nfsd-" pid " [000] ..... " ts \
	": nfswb_commit_file: (nfsd_commit+0x0/0x1f0) xid_be=" xid_be \
	" dev=" dev " ino=" ino " uid=1000"
#define C(pid, ts, ev, xid) "nfsd-" pid " [000] ..... " ts ": nfsd_commit_" \
	ev ": xid=" xid " fh_hash=0xa offset=0 len=0"
	static const char *const lines[] = {
		/* 254:0 is 266338304; thread 1, xid 1 */
		K("1", "1.000", "0x01000000", "266338304", "12"),
		C("1", "1.001", "start", "0x00000001"),
		/* thread 2's probe, then thread 3's COMMIT: no file */
		K("2", "1.002", "0x02000000", "266338305", "13"),
		C("3", "1.003", "start", "0x00000003"),
		/* thread 2's COMMIT of another xid: not its probe's file */
		C("2", "1.004", "start", "0x00000004"),
		C("1", "1.010", "done", "0x00000001"),
		C("3", "1.020", "done", "0x00000003"),
		C("2", "1.030", "done", "0x00000004"),
	};
	struct nfswb_trace t;

	feed_all(&t, lines, sizeof(lines) / sizeof(lines[0]));
	T_CHECK(t.nbad == 0, "%" PRIu64 " bad lines", t.nbad);
	nfswb_trace_finish(&t);
	T_CHECK(t.nfsd_commit.count == 3, "%zu COMMITs", t.nfsd_commit.count);
	T_CHECK(t.kprobe_commit.count == 0, "the file probe is no timer");
	if (t.nfsd_commit.count == 3) {
		const struct nfswb_trace_op *a = &t.nfsd_commit.v[0];

		T_CHECK(a->xid == 1 && a->has_file && a->dev_major == 254 &&
			a->dev_minor == 0 && a->ino == 12 && a->has_uid &&
			a->uid == 1000 && a->us == 9000,
			"xid 1: file %d %u:%u ino %" PRIu64 " %" PRIu64 " us",
			a->has_file, a->dev_major, a->dev_minor, a->ino, a->us);
		T_CHECK(!t.nfsd_commit.v[1].has_file, "another thread's file");
		T_CHECK(!t.nfsd_commit.v[2].has_file, "another xid's file");
	}
	/* Thread 2's probe found no COMMIT of its xid. */
	T_CHECK(t.unmatched == 1, "%" PRIu64 " unmatched", t.unmatched);
	nfswb_trace_free(&t);
#undef K
#undef C
}

/*
 * NFSv3 on a kernel without the tracepoints: svc_stats_latency and the
 * kprobe pair see the same COMMITs, and svc_stats_latency is reported on
 * the tie; its COMMITs take the file the kprobe read for the same xid,
 * so that they group by export.
 */
static void test_rpc_file(void)
{
	static const char *const lines[] = {
		"nfsd-9 [000] ..... 1.000: nfswb_commit_entry: "
		"(nfsd_commit+0x4/0xf2) xid_be=0x07000000 dev=266338304 "
		"ino=12 uid=0",
		"nfsd-9 [000] ..... 1.020: nfswb_commit_exit: "
		"(nfsd3_proc_commit+0x6e/0x8c <- nfsd_commit) ret=0x0",
		"nfsd-9 [000] ..... 1.021: svc_stats_latency: xid=0x00000007 "
		"server=[fe80::1]:2049 client=[fe80::2]:800 proc=COMMIT "
		"execute-us=21000",
		"nfsd-9 [000] ..... 2.021: svc_stats_latency: xid=0x00000008 "
		"server=[fe80::1]:2049 client=[fe80::2]:800 proc=COMMIT "
		"execute-us=5",
	};
	enum nfswb_commit_source src;
	const struct nfswb_trace_ops *c;
	struct nfswb_trace t;

	feed_all(&t, lines, sizeof(lines) / sizeof(lines[0]));
	nfswb_trace_finish(&t);
	c = nfswb_trace_commits(&t, &src);
	T_CHECK(src == NFSWB_SRC_RPC && c->count == 2, "source %d, %zu",
		src, c->count);
	T_CHECK(c->count == 2 && c->v[0].has_file && c->v[0].dev_major == 254 &&
		c->v[0].dev_minor == 0 && c->v[0].ino == 12,
		"the kprobe's file of xid 7");
	T_CHECK(c->count == 2 && !c->v[1].has_file, "no file for xid 8");
	T_CHECK(t.kprobe_commit.count == 1 && t.kprobe_commit.v[0].client == 0,
		"the kprobe's COMMIT gets the RPC's client");
	nfswb_trace_free(&t);
}

int main(void)
{
	test_rpc_file();
	test_lines();
	test_pairing();
	test_pair_cases();
	test_commit_file();
	return t_result();
}
