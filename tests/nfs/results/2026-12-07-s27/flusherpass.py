#!/usr/bin/env python3
"""flusherpass.py RUN...: per lab run, what a WRITE p99 moves with.

For the multiwriter runs of nfswbd whose WRITE p99 ranged from 22 to
88 ms across sessions with the same kicks.  Per run, from RUN/trace.txt
and RUN/result.json: the WRITE p99 (nfsd_write_start..done), the share
of WRITEs that had a flusher pass on the export's disk beside them
(writegap.py's rule), the flusher passes on that disk (count, mean
duration from the first writeback_start to the last writeback_written
of a nesting, share of the WRITE phase they cover), the disk's write
requests (issue to completion p50/p90, share of time one is in
flight), the p50/p99 of WRITEs with neither a flusher pass nor a disk
write beside them, and the host load.  Then, over all runs given, the
correlation of the WRITE p99 with each.
An analysis for RESULTS' twentieth pass, not one of the lab's tools;
it reads traces with writegap.py's parsers.
"""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# writegap.py (and commitgap.py under it) report over sys.argv at import.
sys.path.insert(0, os.path.join(HERE, "..", "2026-12-06-s23"))
_argv, sys.argv = sys.argv, sys.argv[:1]
import writegap as WG  # noqa: E402
sys.argv = _argv
GAP, LAB = WG.GAP, WG.GAP.LAB
PASS = re.compile(r"\s(\d+\.\d+): (writeback_start|writeback_written): bdi %s:" % WG.DEV)
RQ_DEV = WG.DEV.replace(":", ",")


def passes(path):
    """Durations (s) of flusher passes on the export disk, nested ones merged."""
    out, depth, start = [], 0, 0.0
    with open(path, errors="replace") as f:
        for line in f:
            m = PASS.search(line)
            if not m:
                continue
            t = float(m.group(1))
            if m.group(2) == "writeback_start":
                if depth == 0:
                    start = t
                depth += 1
            elif depth:
                depth -= 1
                if depth == 0:
                    out.append(t - start)
    return out


def requests(path):
    """Write request latencies (s) on the export disk, and its busy share."""
    issued, lat = {}, []
    inflight, busy, last, first = 0, 0.0, None, None
    with open(path, errors="replace") as f:
        for line in f:
            m = GAP.EVENT.search(line)
            if not m or m.group(3) not in ("block_rq_issue", "block_rq_complete"):
                continue
            r = GAP.RQ.match(m.group(4))
            if not r or r.group(1) != RQ_DEV or "W" not in r.group(2):
                continue
            t = float(m.group(2))
            first = t if first is None else first
            if last is not None and inflight:
                busy += t - last
            last = t
            if m.group(3) == "block_rq_issue":
                issued[r.group(3)] = t
                inflight += 1
            elif r.group(3) in issued:
                lat.append(t - issued.pop(r.group(3)))
                inflight = max(0, inflight - 1)
    span = (last - first) if lat and last > first else 0
    return sorted(lat), (busy / span if span else 0.0)


COLUMNS = ("WRITE p99", "beside a pass", "passes", "pass ms",
           "pass share", "rq p50/p90 ms", "disk busy", "alone p50/p99",
           "host load")
rows = []
print("| run | " + " | ".join(COLUMNS) + " |")
print("|---" * (len(COLUMNS) + 1) + "|")
for run in sys.argv[1:]:
    trace = os.path.join(run, "trace.txt")
    if not GAP.has_blocks(trace):
        print("| %s | no block events traced |" % run)
        continue
    writes = WG.writes(trace)
    if not writes:
        print("| %s | no WRITEs traced |" % run)
        continue
    with open(os.path.join(run, "meta.json")) as f:
        load_avg = json.load(f).get("host_loadavg") or []
    ms = sorted(w["ms"] for w in writes)
    alone = sorted(w["ms"] for w in writes if not w["flusher"] and not w["disk"])
    t0 = min(w["t"] for w in writes)
    t1 = max(w["t"] + w["ms"] / 1000 for w in writes)
    durs = passes(trace)
    lat, busy = requests(trace)
    row = {
        "p99": LAB.percentile(ms, 99),
        "beside": sum(w["flusher"] for w in writes) / len(writes),
        "pass_ms": 1000 * statistics.mean(durs) if durs else 0.0,
        "pass_share": sum(durs) / (t1 - t0),
        "alone_p99": LAB.percentile(alone, 99) if alone else 0.0,
        "busy": busy,
    }
    rows.append(row)
    print("| %s | %.1f | %.2f | %d | %.1f | %.2f | %s | %.2f | %s | %s |" % (
        run, row["p99"], row["beside"], len(durs), row["pass_ms"],
        row["pass_share"],
        "%.1f / %.1f" % (1000 * LAB.percentile(lat, 50), 1000 * LAB.percentile(lat, 90))
        if lat else "-", busy,
        "%.1f / %.1f" % (statistics.median(alone), row["alone_p99"]) if alone else "-",
        "-".join("%.2f" % x for x in load_avg) or "-"))
if len(rows) > 2:
    p99 = [r["p99"] for r in rows]
    print()
    print("correlation with WRITE p99 over %d runs: %s" % (len(rows), ", ".join(
        "%s %.2f" % (key, statistics.correlation(p99, [r[key] for r in rows]))
        for key in ("beside", "pass_ms", "pass_share", "busy", "alone_p99"))))
