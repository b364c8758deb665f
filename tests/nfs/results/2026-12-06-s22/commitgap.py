#!/usr/bin/env python3
"""commitgap.py RUN...: per lab run, what each COMMIT found on the server.

For every nfsd_commit_start..nfsd_commit_done pair in RUN/trace.txt:
the KiB that nfsd WRITEs completed after the flusher's last
writeback_start (any reason) before the COMMIT, i.e. data no flusher
pass had been started for.  Prints, per run, the COMMIT duration
p50/p99 (from the two tracepoints) and that amount's p50/p90/max.
With the block events (lab-init traces them since 21a5bfb) it also
prints, per run, medians over COMMITs of: the KiB of write requests in
flight at the COMMIT's start, the KiB of write bios that the COMMIT's
own nfsd thread (its fsync) and other tasks (the flusher, jbd2, other
nfsd threads) submitted during the COMMIT, and the KiB of write
requests completed during it; then the same medians over the slowest
tenth of the COMMITs.
An analysis for RESULTS' fifteenth pass, not one of the lab's tools.
"""
import importlib.machinery
import importlib.util
import os
import re
import statistics
import sys


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
# "  nfsd-93  [000] .....  38.020419: nfsd_commit_start: xid=..."
EVENT = re.compile(r"-(\d+)\s.*?\s(\d+\.\d+): (\w+): (.*)")
LEN = re.compile(r"len=(\d+)")
# block_bio_queue: "253,0 W 123456 + 128 [nfsd]"
BIO = re.compile(r"^(\d+,\d+) (\S+) (\d+) \+ (\d+) \[(.*)\]")
# block_rq_issue: "253,0 W 65536 () 123456 + 128 none,0,0 [kworker/0:1H]"
# block_rq_complete: "253,0 W () 123456 + 128 none,0,0 [0]"
RQ = re.compile(r"^(\d+,\d+) (\S+) (?:\d+ )?\(.*?\) (\d+) \+ (\d+)")


def pct(xs, p):
    return LAB.percentile(sorted(xs), p)


def op_key(pid, rest):
    """An nfsd operation's key: its thread and xid, as lab-analyze pairs."""
    xid = LAB.XID_RE.search(rest)
    return (pid, xid.group(1) if xid else None)


def op_done(opened, pid, rest, t, rows):
    """The operation of OPENED that this done event ends: its ms, to ROWS."""
    cur = opened.pop(op_key(pid, rest), None)
    if cur:
        cur["ms"] = (t - cur["t"]) * 1000
        rows.append(cur)


def commits(path, blocks):
    """One dict per COMMIT; the block keys only when the trace has them.

    COMMITs pair up by nfsd thread and xid, as in lab-analyze; an nfsd
    thread runs one COMMIT at a time, so the bios a thread submits while
    its COMMIT is open are that COMMIT's own fsync's.
    """
    since = 0
    inflight = {}
    open_commits = {}
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            m = EVENT.search(line)
            if not m:
                continue
            pid, t, name, rest = m.group(1), float(m.group(2)), m.group(3), m.group(4)
            if name == "writeback_start":
                since = 0
            elif name == "nfsd_write_done":
                n = LEN.search(rest)
                since += int(n.group(1)) if n else 0
            elif name == "block_rq_issue":
                r = RQ.match(rest)
                if r and "W" in r.group(2):
                    inflight[(r.group(1), r.group(3))] = int(r.group(4)) * 512
            elif name == "block_rq_complete":
                r = RQ.match(rest)
                done = inflight.pop((r.group(1), r.group(3)), 0) if r else 0
                if blocks:
                    for cur in open_commits.values():
                        cur["completed"] += done
            elif name == "block_bio_queue":
                b = BIO.match(rest)
                if b and "W" in b.group(2) and blocks:
                    size = int(b.group(4)) * 512
                    for (cpid, _), cur in open_commits.items():
                        cur["by_nfsd" if cpid == pid else "by_others"] += size
            elif name == "nfsd_commit_start":
                cur = {"t": t, "unstarted": since}
                if blocks:
                    cur.update(inflight=sum(inflight.values()),
                               by_nfsd=0, by_others=0, completed=0)
                open_commits[op_key(pid, rest)] = cur
            elif name == "nfsd_commit_done":
                op_done(open_commits, pid, rest, t, rows)
    return rows


def has_blocks(path):
    with open(path, errors="replace") as f:
        return any(" block_rq_issue: " in line for line in f)


for run in sys.argv[1:]:
    blocks = has_blocks(run + "/trace.txt")
    rows = commits(run + "/trace.txt", blocks)
    if not rows:
        print("%s: no COMMITs traced" % run)
        continue
    ms = [r["ms"] for r in rows]
    kib = [r["unstarted"] / 1024 for r in rows]
    line = ("%s: %d COMMITs, %.1f / %.1f ms p50/p99; KiB since the last flusher start p50 %.0f p90 %.0f max %.0f"
            % (run, len(rows), statistics.median(ms), pct(ms, 99),
               statistics.median(kib), pct(kib, 90), max(kib)))
    if blocks:
        med = {k: statistics.median(r[k] for r in rows) / 1024
               for k in ("inflight", "by_nfsd", "by_others", "completed")}
        line += ("; KiB (medians): in flight at start %.0f, submitted during it by nfsd %.0f, by others %.0f, completed during it %.0f"
                 % (med["inflight"], med["by_nfsd"], med["by_others"], med["completed"]))
        # The same for the slowest tenth, where p99 comes from.
        slow = sorted(rows, key=lambda r: r["ms"])[-max(1, len(rows) // 10):]
        med = {k: statistics.median(r[k] for r in slow) / 1024
               for k in ("inflight", "by_nfsd", "by_others", "completed")}
        line += ("; slowest %d (from %.1f ms): %.0f, %.0f, %.0f, %.0f"
                 % (len(slow), slow[0]["ms"], med["inflight"], med["by_nfsd"],
                    med["by_others"], med["completed"]))
    print(line)
