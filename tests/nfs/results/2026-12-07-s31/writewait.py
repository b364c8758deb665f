#!/usr/bin/env python3
"""writewait.py RUNDIR...: where an nfsd WRITE's time goes, from a lab
run traced with sched_trace=1.

For every RUNDIR/trace.txt: each nfsd WRITE (nfsd_write_start to
nfsd_write_done of one thread and xid) is split into the time its
thread ran, waited runnable for the CPU (preempted, or woken and not
yet run), and slept: uninterruptible (D; the kernel stack of the sleep
names the wait) or otherwise.  The runnable time is charged to what ran
on the CPU instead (one vCPU: whatever the switches put on it), with
the flusher named apart (the threads that emitted writeback_start).

Prints, per tuning (meta.json's), the median over its runs of the mean
time per WRITE in each state, for all WRITEs and for the slowest
hundredth of each run (at or above its p99); the CPU's share by task
from the first WRITE to the last; then, in those slowest WRITEs, who
took the CPU while they were runnable, what it ran while they slept,
and what the D sleeps waited on.
An analysis for RESULTS' twenty-fourth pass, not one of the lab's tools.
"""
import bisect
import importlib.machinery
import importlib.util
import json
import os
import re
import statistics
import sys
from collections import defaultdict


def lab_analyze():
    """tests/nfs/lab-analyze as a module: its percentile and xid parser."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "lab-analyze")
    loader = importlib.machinery.SourceFileLoader("lab_analyze", path)
    spec = importlib.util.spec_from_loader("lab_analyze", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


LAB = lab_analyze()

LINE_RE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\w+): ?(.*)$")
STACK_RE = re.compile(r"^ => (\S+)")
STACK_HEAD_RE = re.compile(r"^\s*.+?-(\d+)\s+\[\d+\]\s+\S+\s+\d+\.\d+: <stack trace>")
SWITCH_RE = re.compile(r"prev_comm=(.+?) prev_pid=(\d+) prev_prio=\d+ "
                       r"prev_state=(\S+) ==> next_comm=(.+?) next_pid=(\d+)")
WAKE_RE = re.compile(r"comm=(.+?) pid=(\d+) ")
# Frames that say "this thread slept", not on what.
SLEEP_FRAMES = re.compile(
    r"^(__traceiter_\w+|trace_\w+|event_triggers_call|__schedule|schedule|"
    r"schedule_timeout|io_schedule|io_schedule_timeout|"
    r"schedule_preempt_disabled|preempt_schedule\w*|__wait_for_common|"
    r"wait_for_completion\w*|bit_wait\w*|__wait_on_bit\w*|"
    r"out_of_line_wait_on_bit\w*)(\.\w+)?(\+0x[0-9a-f]+/0x[0-9a-f]+)?$")
STATES = ("run", "runq", "D", "S")
NFSD = "nfsd"


def frame_name(f):
    return f.split("+", 1)[0]


# Addresses the guessing unwinder (the lab's kernels have
# CONFIG_UNWINDER_GUESS) finds on the stack that are no caller.
STALE_FRAMES = re.compile(r"^(ring_buffer_\w+|lapic_next_event|"
                          r"autoremove_wake_function|__hrtimer_rearm_deferred)$")


def sleep_site(frames):
    """The first four frames below the scheduler's own."""
    names = [n for n in (frame_name(f) for f in frames)
             if not STALE_FRAMES.match(n)]
    i = 0
    while i < len(names) and SLEEP_FRAMES.match(names[i]):
        i += 1
    return " < ".join(names[i:i + 4]) or "?"


def comm_class(comm, pid, flushers):
    if pid in flushers:
        return "flusher"
    for prefix, name in (("nfsd", "another nfsd"), ("jbd2/", "jbd2"),
                         ("ksoftirqd/", "ksoftirqd"), ("kworker/", "kworker"),
                         ("swapper/", "idle"), ("nfswbd", "nfswbd")):
        if comm.startswith(prefix):
            return name
    return comm


def parse(path):
    """Per nfsd pid, its state segments (start, end, state, detail); the
    CPUs' segments (start, end, comm, pid); the WRITEs (pid, start, end)."""
    segs = defaultdict(list)
    cpu_segs = []
    cpu_cur = {}
    state = {}          # pid -> [state, since, detail]
    writes, open_w = [], {}
    flushers = set()
    stack_pid, stack = None, None   # the stack being read, and whose
    first_t = last_t = None
    with open(path, errors="replace") as f:
        for line in f:
            m = STACK_RE.match(line)
            if m:
                if stack is not None:
                    stack.append(m.group(1))
                continue
            if stack is not None:
                # The trigger's stack follows its switch: the thread's
                # D sleep it belongs to is the current one.
                st = state.get(stack_pid)
                if st and st[0] == "D":
                    st[2] = sleep_site(stack)
                stack = None
            m = STACK_HEAD_RE.match(line)
            if m:
                stack_pid, stack = int(m.group(1)), []
                continue
            m = LINE_RE.match(line)
            if not m:
                continue
            pid, cpu, t, ev, rest = (int(m.group(2)), int(m.group(3)),
                                     float(m.group(4)), m.group(5), m.group(6))
            if first_t is None:
                first_t = t
            last_t = t
            if ev == "sched_switch":
                s = SWITCH_RE.search(rest)
                if not s:
                    continue
                pcomm, ppid, pst, ncomm, npid = (s.group(1), int(s.group(2)),
                                                s.group(3), s.group(4),
                                                int(s.group(5)))
                if cpu in cpu_cur:
                    c0, p0, t0 = cpu_cur[cpu]
                    cpu_segs.append((t0, t, c0, p0))
                cpu_cur[cpu] = (ncomm, npid, t)
                if pcomm == NFSD:
                    # A thread first seen leaving the CPU ran from the
                    # trace's start.
                    st = state.get(ppid) or ["run", first_t, None]
                    segs[ppid].append((st[1], t, st[0], st[2]))
                    kind = ("runq" if pst.startswith("R") else
                            "D" if pst == "D" else "S")
                    state[ppid] = [kind, t, "?" if kind == "D" else None]
                if ncomm == NFSD:
                    st = state.get(npid)
                    if st:
                        segs[npid].append((st[1], t, st[0], st[2]))
                    state[npid] = ["run", t, None]
            elif ev == "sched_wakeup":
                w = WAKE_RE.search(rest)
                if not w or w.group(1) != NFSD:
                    continue
                wpid = int(w.group(2))
                st = state.get(wpid)
                if st and st[0] in ("D", "S"):
                    segs[wpid].append((st[1], t, st[0], st[2]))
                    state[wpid] = ["runq", t, None]
            elif ev == "nfsd_write_start":
                x = LAB.XID_RE.search(rest)
                open_w[(pid, x and x.group(1))] = t
            elif ev == "nfsd_write_done":
                x = LAB.XID_RE.search(rest)
                t0 = open_w.pop((pid, x and x.group(1)), None)
                if t0 is not None:
                    writes.append((pid, t0, t))
            elif ev == "writeback_start":
                flushers.add(pid)
    # What was open when tracing stopped.
    for pid, st in state.items():
        segs[pid].append((st[1], last_t, st[0], st[2]))
    for cpu, (comm, cpid, t0) in cpu_cur.items():
        cpu_segs.append((t0, last_t, comm, cpid))
    return segs, cpu_segs, writes, flushers, len(cpu_cur)


def overlap(a0, a1, b0, b1):
    return max(0.0, min(a1, b1) - max(a0, b0))


def split_writes(segs, cpu_segs, writes, flushers):
    """Per WRITE: its latency, the time in each state, the runnable time
    by what ran instead, and the D time by sleep site (seconds)."""
    out = []
    cpu_segs.sort()
    starts = [s[0] for s in cpu_segs]
    for pid, w0, w1 in writes:
        d = {"lat": w1 - w0, "state": defaultdict(float),
             "who": defaultdict(float), "off": defaultdict(float),
             "site": defaultdict(float)}
        for s0, s1, st, detail in segs.get(pid, ()):
            if s1 <= w0 or s0 >= w1:
                continue
            ov = overlap(s0, s1, w0, w1)
            d["state"][st] += ov
            if st == "D":
                d["site"][detail or "?"] += ov
            if st == "run":
                continue
            # Off the CPU: what the CPU did meanwhile.  While runnable,
            # that is who went first; while asleep (on i_rwsem, most of
            # all, behind the WRITE that holds it), what kept the
            # holder from finishing, or idle when the wait was no CPU's.
            a0, a1 = max(s0, w0), min(s1, w1)
            i = max(0, bisect.bisect_right(starts, a0) - 1)
            while i < len(cpu_segs) and cpu_segs[i][0] < a1:
                c0, c1, comm, cpid = cpu_segs[i]
                if cpid != pid:
                    who = comm_class(comm, cpid, flushers)
                    d["off" if st != "runq" else "who"][who] += \
                        overlap(c0, c1, a0, a1)
                i += 1
        out.append(d)
    return out


def summarize(rundir):
    meta = {}
    try:
        with open(os.path.join(rundir, "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        pass
    segs, cpu_segs, writes, flushers, ncpu = parse(os.path.join(rundir, "trace.txt"))
    if not any(s for s in segs.values()):
        print(f"{rundir}: no sched_switch of nfsd in trace.txt (not sched_trace=1?)",
              file=sys.stderr)
        return None
    ws = split_writes(segs, cpu_segs, writes, flushers)
    if not ws:
        print(f"{rundir}: no nfsd WRITE pairs", file=sys.stderr)
        return None
    lats = sorted(w["lat"] for w in ws)
    p99 = LAB.percentile(lats, 99)
    slow = [w for w in ws if w["lat"] >= p99]

    def mean_states(group):
        return {st: 1e3 * sum(w["state"][st] for w in group) / len(group)
                for st in STATES} | {
            "lat": 1e3 * sum(w["lat"] for w in group) / len(group)}

    def totals(group, key):
        t = defaultdict(float)
        for w in group:
            for k, v in w[key].items():
                t[k] += v * 1e3 / len(group)
        return dict(t)

    # The CPU over the load: first WRITE's start to last one's end.
    t0, t1 = min(w[1] for w in writes), max(w[2] for w in writes)
    cpu = defaultdict(float)
    for c0, c1, comm, cpid in cpu_segs:
        if c1 > t0 and c0 < t1:
            cpu[comm_class(comm, cpid, flushers)] += overlap(c0, c1, t0, t1)
    cpu = {k: v / (t1 - t0) for k, v in cpu.items()}

    return {"tuning": meta.get("tuning", "?"), "run": os.path.basename(rundir),
            "cpu": cpu, "span": t1 - t0,
            "ncpu": ncpu, "writes": len(ws), "p99": p99 * 1e3,
            "all": mean_states(ws), "slow": mean_states(slow),
            "slow_who": totals(slow, "who"), "slow_site": totals(slow, "site"),
            "slow_off": totals(slow, "off"),
            "all_who": totals(ws, "who"), "all_site": totals(ws, "site")}


def med(v):
    return statistics.median(v) if v else float("nan")


def main(argv):
    runs = [r for r in (summarize(d) for d in argv) if r]
    if not runs:
        return 1
    by = defaultdict(list)
    for r in runs:
        by[r["tuning"]].append(r)
    if any(r["ncpu"] > 1 for r in runs):
        print("note: more than one CPU in some traces; 'who ran instead' "
              "adds up every CPU's time", file=sys.stderr)
    print("| tuning | runs | WRITE p99 ms | WRITEs | mean ms: latency / running / "
          "runnable / D sleep / other sleep (all) | the same, slowest 1 % |")
    print("|---|---:|---:|---:|---|---|")
    for tuning, rs in by.items():
        def cols(k):
            return " / ".join(f"{med([r[k][s] for r in rs]):.1f}"
                              for s in ("lat",) + STATES)
        print(f"| {tuning} | {len(rs)} | {med([r['p99'] for r in rs]):.1f} | "
              f"{med([r['writes'] for r in rs]):.0f} | {cols('all')} | {cols('slow')} |")
    print("\nThe CPU from the first WRITE's start to the last one's end, share "
          "by task (median over runs; nfsd includes the interrupts and "
          "softirqs that came while it ran):\n")
    for tuning, rs in by.items():
        names = set().union(*(r["cpu"] for r in rs))
        items = sorted(((med([r["cpu"].get(n, 0.0) for r in rs]), n)
                        for n in names), reverse=True)[:8]
        print(f"- {tuning} ({med([r['span'] for r in rs]):.1f} s): " +
              "; ".join(f"{n.replace('another ', '')} {v:.3f}"
                        for v, n in items if v >= 0.005))
    for key, title in (("slow_who", "runnable, charged to what ran instead"),
                       ("slow_off", "asleep, what the CPU did meanwhile"),
                       ("slow_site", "D sleep, by kernel stack")):
        print(f"\nSlowest 1 % of WRITEs, {title} (median over runs of the mean ms a WRITE):\n")
        for tuning, rs in by.items():
            names = set().union(*(r[key] for r in rs))
            items = sorted(((med([r[key].get(n, 0.0) for r in rs]), n)
                            for n in names), reverse=True)[:5]
            print(f"- {tuning}: " + "; ".join(f"{n} {v:.1f}" for v, n in items
                                              if v >= 0.05))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
