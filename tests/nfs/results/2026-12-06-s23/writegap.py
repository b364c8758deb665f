#!/usr/bin/env python3
"""writegap.py RUN...: per lab run, what the slow WRITEs had beside them.

For every nfsd_write_start..nfsd_write_done pair in RUN/trace.txt (paired
by nfsd thread and xid, as lab-analyze does): whether a flusher pass on
the export's disk (writeback_start to writeback_written, any reason) ran
at any time during the WRITE, whether a data write request was on the
disk (issued before its end, completed after its start), and the write
bios that other tasks (the flusher, jbd2, other nfsd threads' fsyncs)
and the WRITE's own thread submitted during it.  Prints, per run, WRITE
p50/p99 for all WRITEs, for those with a flusher pass beside them, with
disk writes but no flusher pass, and with neither, and how many of the
slowest hundredth had a flusher pass or disk writes beside them.
Needs the block events lab-init traces since 21a5bfb.
An analysis for RESULTS' sixteenth pass, not one of the lab's tools;
it reads traces with commitgap.py's parsers.
"""
import importlib.machinery
import importlib.util
import os
import statistics
import sys


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# The lab server's export disk (virtio, 254:0); the 9p root has its own bdi.
DEV = "254:0"
HERE = os.path.dirname(os.path.abspath(__file__))
# commitgap.py runs its report over sys.argv at import: give it none.
_argv, sys.argv = sys.argv, sys.argv[:1]
GAP = load("commitgap", os.path.join(HERE, "..", "2026-12-06-s22", "commitgap.py"))
sys.argv = _argv


def writes(path):
    """One dict per WRITE: ms, flusher (a flusher pass on DEV overlapped
    it), disk (a write request overlapped it), own and others' KiB of
    write bios submitted during it."""
    inflight = 0
    passes = 0
    open_writes = {}
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            m = GAP.EVENT.search(line)
            if not m:
                continue
            pid, t, name, rest = m.group(1), float(m.group(2)), m.group(3), m.group(4)
            if name in ("writeback_start", "writeback_written"):
                if not rest.startswith("bdi %s:" % DEV):
                    continue
                if name == "writeback_start":
                    passes += 1
                    for cur in open_writes.values():
                        cur["flusher"] = True
                elif passes:
                    passes -= 1
            elif name == "block_rq_issue":
                r = GAP.RQ.match(rest)
                if r and "W" in r.group(2):
                    inflight += 1
                    for cur in open_writes.values():
                        cur["disk"] = True
            elif name == "block_rq_complete":
                r = GAP.RQ.match(rest)
                if r and "W" in r.group(2) and inflight:
                    inflight -= 1
            elif name == "block_bio_queue":
                b = GAP.BIO.match(rest)
                if b and "W" in b.group(2):
                    size = int(b.group(4)) * 512
                    for (wpid, _), cur in open_writes.items():
                        cur["own" if wpid == pid else "others"] += size
            elif name == "nfsd_write_start":
                open_writes[GAP.op_key(pid, rest)] = {
                    "t": t, "flusher": passes > 0, "disk": inflight > 0,
                    "own": 0, "others": 0}
            elif name == "nfsd_write_done":
                GAP.op_done(open_writes, pid, rest, t, rows)
    return rows


def p50_p99(rows):
    ms = sorted(r["ms"] for r in rows)
    if not ms:
        return "-"
    return "%.1f / %.1f ms (%d)" % (statistics.median(ms), GAP.LAB.percentile(ms, 99), len(ms))


for run in sys.argv[1:]:
    trace = os.path.join(run, "trace.txt")
    if not GAP.has_blocks(trace):
        print("%s: no block events traced" % run)
        continue
    rows = writes(trace)
    if not rows:
        print("%s: no WRITEs traced" % run)
        continue
    flusher = [r for r in rows if r["flusher"]]
    disk = [r for r in rows if r["disk"] and not r["flusher"]]
    alone = [r for r in rows if not r["disk"] and not r["flusher"]]
    slow = sorted(rows, key=lambda r: r["ms"])[-max(1, len(rows) // 100):]
    print("%s: WRITE p50/p99 all %s; flusher pass beside %s; disk writing, "
          "no flusher pass %s; neither %s; slowest %d (from %.1f ms): %d with "
          "a flusher pass beside, %d more with disk writing, KiB submitted "
          "during them (medians) by other tasks %.0f, by their own thread %.0f"
          % (run, p50_p99(rows), p50_p99(flusher), p50_p99(disk), p50_p99(alone),
             len(slow), slow[0]["ms"], sum(r["flusher"] for r in slow),
             sum(r["disk"] and not r["flusher"] for r in slow),
             statistics.median(r["others"] for r in slow) / 1024,
             statistics.median(r["own"] for r in slow) / 1024))
