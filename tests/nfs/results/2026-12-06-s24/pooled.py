#!/usr/bin/env python3
"""pooled.py CELL...: each cell's COMMITs pooled over its runs.

For every lab bench cell directory given: the COMMIT durations of all
its runs together (nfsd_commit_start..done in each run's trace.txt,
paired as commitgap.py and lab-analyze pair them), their count, p50,
p90 and p99, and beside them each run's own p99 (what lab bench takes
the median of).  A cell whose runs send fewer than 100 COMMITs each has
a per-run p99 that is one of its slowest few; the pooled one is over
all of them.  An analysis for RESULTS' seventeenth pass, not one of the
lab's tools.
"""
import glob
import importlib.machinery
import importlib.util
import os
import statistics
import sys


def commitgap():
    """results/2026-12-06-s22/commitgap.py as a module."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "2026-12-06-s22", "commitgap.py")
    argv, sys.argv = sys.argv, [path]
    loader = importlib.machinery.SourceFileLoader("commitgap", path)
    spec = importlib.util.spec_from_loader("commitgap", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    sys.argv = argv
    return mod


CG = commitgap()
for cell in sys.argv[1:]:
    pooled, per_run = [], []
    for run in sorted(glob.glob(os.path.join(cell, "run-*"))):
        ms = [r["ms"] for r in CG.commits(os.path.join(run, "trace.txt"), False)]
        if ms:
            pooled += ms
            per_run.append(CG.pct(ms, 99))
    if not pooled:
        print("%s: no COMMITs traced" % cell)
        continue
    print("%s: %d COMMITs, pooled p50 %.1f p90 %.1f p99 %.1f ms; per-run p99 %s"
          % (os.path.basename(cell.rstrip("/")), len(pooled),
             statistics.median(pooled), CG.pct(pooled, 90),
             CG.pct(pooled, 99), " ".join("%.0f" % x for x in per_run)))
