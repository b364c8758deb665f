#!/usr/bin/env python3
"""commitgap.py RUN...: per lab run, what each COMMIT found on the server.

For every nfsd_commit_start..nfsd_commit_done pair in RUN/trace.txt:
the KiB that nfsd WRITEs completed after the flusher's last
writeback_start (any reason) before the COMMIT, i.e. data no flusher
pass had been started for.  Prints, per run, the COMMIT duration
p50/p99 (from the two tracepoints) and that amount's p50/p90/max.
With the block events (lab-init traces them since 21a5bfb) it also
prints, per run, medians over COMMITs of: the KiB of write requests in
flight at the COMMIT's start, the KiB of write bios that nfsd threads
(the COMMIT's own fsync) and other tasks (the flusher, jbd2) submitted
during the COMMIT, and the KiB of write requests completed during it;
then the same medians over the slowest tenth of the COMMITs.
An analysis for RESULTS' fifteenth pass, not one of the lab's tools.
"""
import math
import re
import statistics
import sys

EVENT = re.compile(r"\s(\d+\.\d+): (\w+): (.*)")
LEN = re.compile(r"len=(\d+)")
# block_bio_queue: "253,0 W 123456 + 128 [nfsd]"
BIO = re.compile(r"^(\d+,\d+) (\S+) (\d+) \+ (\d+) \[(.*)\]")
# block_rq_issue: "253,0 W 65536 () 123456 + 128 none,0,0 [kworker/0:1H]"
# block_rq_complete: "253,0 W () 123456 + 128 none,0,0 [0]"
RQ = re.compile(r"^(\d+,\d+) (\S+) (?:\d+ )?\(.*?\) (\d+) \+ (\d+)")


def pct(xs, p):
    """Nearest rank, as the lab's result.json."""
    xs = sorted(xs)
    return xs[max(0, math.ceil(p * len(xs)) - 1)]


def commits(path, blocks):
    """One dict per COMMIT; the block keys only when the trace has them."""
    since = 0
    inflight = {}
    cur = None
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            m = EVENT.search(line)
            if not m:
                continue
            t, name, rest = float(m.group(1)), m.group(2), m.group(3)
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
                if cur is not None and "block" in cur:
                    cur["completed"] += done
            elif name == "block_bio_queue":
                b = BIO.match(rest)
                if b and "W" in b.group(2) and cur is not None and "block" in cur:
                    who = "by_nfsd" if b.group(5).startswith("nfsd") else "by_others"
                    cur[who] += int(b.group(4)) * 512
            elif name == "nfsd_commit_start":
                cur = {"t": t, "unstarted": since}
                if blocks:
                    cur.update(block=True, inflight=sum(inflight.values()),
                               by_nfsd=0, by_others=0, completed=0)
            elif name == "nfsd_commit_done" and cur:
                cur["ms"] = (t - cur["t"]) * 1000
                rows.append(cur)
                cur = None
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
            % (run, len(rows), statistics.median(ms), pct(ms, 0.99),
               statistics.median(kib), pct(kib, 0.9), max(kib)))
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
