#!/usr/bin/env python3
"""commitgap.py RUN...: per lab run, what each COMMIT found on the server.

For every nfsd_commit_start..nfsd_commit_done pair in RUN/trace.txt:
the KiB that nfsd WRITEs completed after the flusher's last
writeback_start (any reason) before the COMMIT, i.e. data no flusher
pass had been started for.  Prints, per run, the COMMIT duration
p50/p99 (from the two tracepoints) and that amount's p50/p90/max.
An analysis for RESULTS' fifteenth pass, not one of the lab's tools.
"""
import math
import re
import statistics
import sys

EVENT = re.compile(r"\s(\d+\.\d+): (\w+): (.*)")
LEN = re.compile(r"len=(\d+)")


def pct(xs, p):
    """Nearest rank, as the lab's result.json."""
    xs = sorted(xs)
    return xs[max(0, math.ceil(p * len(xs)) - 1)]


def commits(path):
    since = 0
    start = None
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
            elif name == "nfsd_commit_start":
                start = (t, since)
            elif name == "nfsd_commit_done" and start:
                rows.append(((t - start[0]) * 1000, start[1] / 1024))
                start = None
    return rows


for run in sys.argv[1:]:
    rows = commits(run + "/trace.txt")
    if not rows:
        print("%s: no COMMITs traced" % run)
        continue
    ms = [r[0] for r in rows]
    kib = [r[1] for r in rows]
    print("%s: %d COMMITs, %.1f / %.1f ms p50/p99; KiB since the last flusher start p50 %.0f p90 %.0f max %.0f"
          % (run, len(rows), statistics.median(ms), pct(ms, 0.99),
             statistics.median(kib), pct(kib, 0.9), max(kib)))
