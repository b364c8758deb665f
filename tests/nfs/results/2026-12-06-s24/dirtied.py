#!/usr/bin/env python3
"""dirtied.py RUN...: per lab run, what the server's device dirtied
against what the client wrote.

BdiDirtied (the device's count of pages ever dirtied, from the run's
100 ms samples.jsonl, kB) over the load, divided by the bytes the
client wrote (result.json client_bytes).  Prints, per workload and
tuning, the runs' ratios.  A run with server-local writers (tempfile)
dirties more than NFS wrote; the rest show how much room nfsd's own
WRITEs need.  An analysis for RESULTS' seventeenth pass, not one of the
lab's tools.
"""
import json
import os
import sys

rows = {}
for run in sys.argv[1:]:
    try:
        res = json.load(open(os.path.join(run, "result.json")))
        with open(os.path.join(run, "samples.jsonl")) as f:
            first = last = None
            for line in f:
                s = json.loads(line)
                if "bdi.BdiDirtied" in s:
                    first = s if first is None else first
                    last = s
    except (OSError, ValueError):
        continue
    if res.get("status") != "ok" or not first or not res.get("client_bytes"):
        continue
    ratio = (last["bdi.BdiDirtied"] - first["bdi.BdiDirtied"]) * 1024 / res["client_bytes"]
    rows.setdefault((res.get("scenario"), res.get("tuning")), []).append(ratio)
for (w, t), rs in sorted(rows.items()):
    print("%-12s %-22s %d runs: %s" % (w, t, len(rs), " ".join("%.3f" % r for r in sorted(rs))))
