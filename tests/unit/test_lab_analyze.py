#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/nfs/lab-analyze on fixtures: the per-run metrics it derives
(write amplification, re-read hit ratio, nfswbd's CPU share and RSS), the
spread across runs, `bench`'s goal verdict, each criterion made to
pass, fail and go missing by the figures of the cells, and its command
line.  Run from tests/
(or with $srcdir naming it), as `make check` does.
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what, file=sys.stderr)


def load(path):
    # No __pycache__ beside the script in the source tree.
    sys.dont_write_bytecode = True
    loader = importlib.machinery.SourceFileLoader("lab_analyze", path)
    spec = importlib.util.spec_from_loader("lab_analyze", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def fio_job(rw, nbytes, runtime_ms, clat_p99_ns, sync_p99_ns=None):
    io = {"io_bytes": nbytes, "runtime": runtime_ms,
          "clat_ns": {"N": 10, "min": 1000, "max": clat_p99_ns, "mean": 5000,
                      "percentile": {"50.000000": 2000,
                                     "99.000000": clat_p99_ns}}}
    job = {"write": {"io_bytes": 0, "runtime": 0},
           "read": {"io_bytes": 0, "runtime": 0}, "sync": {}}
    job[rw] = io
    if sync_p99_ns:
        job["sync"] = {"total_ios": 4, "lat_ns": {
            "N": 4, "min": 1000, "max": sync_p99_ns, "mean": 9000,
            "percentile": {"50.000000": 3000, "99.000000": sync_p99_ns}}}
    return job


def run_fixture(work, name, cpu_ticks, disk_read_sectors):
    """A two-guest reread run with stock tuning: 64 MiB written (96 MiB to
    disk), 64 MiB read back (DISK_READ_SECTORS from disk), nfswbd's
    marks CPU_TICKS apart over 20 s."""
    d = os.path.join(work, name)
    write(d + "/meta.json", json.dumps({
        "scenario": "reread", "tuning": "stock", "topology": "two-guest",
        "nfs_version": "4.2", "kernel": {"kind": "7.3"},
        "parameters": {}, "host_loadavg": [1.5, 1.0]}))
    write(d + "/guest-done", "finished\n")
    write(d + "/client-done", "finished\n")
    write(d + "/trace.txt", "".join(
        " nfsd-7 [000] ..... %d.000000: nfsd_commit_%s: xid=0x1\n"
        % (t, kind) for t, kind in ((1, "start"), (2, "done"))))
    write(d + "/fio.json", json.dumps({"jobs": [
        fio_job("write", 64 << 20, 8000, 900000, 300000000),
        fio_job("read", 64 << 20, 4000, 700000)]}))
    write(d + "/metrics.txt", "sectors_before=0\nread_sectors_before=100\n"
          "read_sectors_after=%d\nsectors_after=%d\nscenario_s=20\n"
          % (100 + disk_read_sectors, 96 << 11))
    write(d + "/nfswbd-proc.txt",
          "at=start t=100.00 cpu_ticks=50 clk_tck=100 main_ticks=40 "
          "others_ticks=10\n"
          "at=end t=120.00 cpu_ticks=%d clk_tck=100 main_ticks=50 "
          "others_ticks=%d\n"
          "at=stop t=121.50 cpu_ticks=%d clk_tck=100 VmHWM=5120 VmRSS=4096 "
          "Threads=3\n" % (50 + cpu_ticks, cpu_ticks - 10, 60 + cpu_ticks))
    return d


def test_run_metrics(la, work):
    # 16 MiB of the 64 MiB came from disk: 0.75 hit; 40 ticks over 20 s:
    # 2 % of a core.
    a = la.analyze_run(run_fixture(work, "run-1", 40, 16 << 11))
    check(a["status"] == "ok", "fixture run is ok: %s" % a.get("errors"))
    check(a.get("client_read_bytes") == 64 << 20, "client_read_bytes")
    check(a.get("write_amplification") == 1.5, "write amplification 96/64: %s"
          % a.get("write_amplification"))
    check(a.get("reread_hit_ratio") == 0.75, "re-read hit 1 - 16/64: %s"
          % a.get("reread_hit_ratio"))
    check(a.get("nfswbd_cpu_pct") == 2.0, "nfswbd CPU 0.4 s / 20 s: %s"
          % a.get("nfswbd_cpu_pct"))
    check(a.get("nfswbd_rss_peak_kB") == 5120, "nfswbd RSS is VmHWM")
    # Of those 40 ticks the main thread ran 10: 0.5 %; the workers the rest.
    check(a.get("nfswbd_main_cpu_pct") == 0.5, "nfswbd main thread 0.1 s / 20 s: %s"
          % a.get("nfswbd_main_cpu_pct"))
    check(a["fio_read_latency_us"].get("p99") == 700, "read p99 (fio clat)")
    # Readahead that reads more than the client asked for: no hit at
    # all, not a negative ratio.
    b = la.analyze_run(run_fixture(work, "run-2", 100, 80 << 11))
    check(b.get("reread_hit_ratio") == 0.0, "hit ratio clamped at 0: %s"
          % b.get("reread_hit_ratio"))
    check(b.get("nfswbd_cpu_pct") == 5.0, "nfswbd CPU 1 s / 20 s")
    # A proc file with a mark that lacks its fields is an error.
    write(work + "/run-2/nfswbd-proc.txt", "at=start t=1\nat=end t=2\n")
    c = la.analyze_run(work + "/run-2")
    check(c["status"] == "failed" and any("nfswbd-proc.txt" in e for e in c["errors"]),
          "a broken nfswbd-proc.txt fails the run: %s" % c.get("errors"))
    # A lab from before main_ticks: the total only.
    write(work + "/run-2/nfswbd-proc.txt",
          "at=start t=1 cpu_ticks=0 clk_tck=100\n"
          "at=end t=2 cpu_ticks=1 clk_tck=100\n")
    c = la.analyze_run(work + "/run-2")
    check(c.get("nfswbd_cpu_pct") == 1.0 and "nfswbd_main_cpu_pct" not in c,
          "without main_ticks no main thread figure: %s"
          % {k: v for k, v in c.items() if k.startswith("nfswbd")})
    # Medians and the spread of the new figures across runs.
    m = la.combine([a, b], ["run-1", "run-2"])
    check(m["range"].get("reread_hit_ratio") == [0.0, 0.75], "hit ratio spread")
    check(m["range"].get("nfswbd_cpu_pct") == [2.0, 5.0], "CPU spread")
    check(m["range"].get("host_load_start") == [1.5, 1.5], "host load spread")
    check("fio_read_latency_us.p99" in m["range"], "read p99 spread")


def cell(w, tuning, kind="7.3", **f):
    """An aggregated cell with the figures of the goal (defaults: equal
    for everyone)."""
    r = {"scenario": w, "tuning": tuning, "kernel": {"kind": kind},
         "nfs_version": "4.2", "status": "ok", "repeat": 3,
         "write_MBps": f.get("mbps", 10.0),
         "fio_fsync_latency_us": {"p50": 50000, "p99": f.get("fsync", 100000)},
         "commit_latency_us": {"count": f.get("commits", 200), "p50": 10000,
                               "p99": f.get("commit", 50000), "max": 60000},
         "write_latency_us": {"p99": f.get("write", 20000)},
         "disk_bytes": 300 << 20, "write_amplification": 1.2}
    if w == "reread":
        r["reread_hit_ratio"] = f.get("hit", 1.0)
    if w == "tempfile":
        r["tempfile_bytes_written"] = f.get("temp", 0)
    if "status" in f:
        r["status"] = f["status"]
    return r


def verdict(la, cells, workload="reread"):
    for t in la.bench_tables(cells):
        if t["workload"] == workload:
            return {c["criterion"]: c["result"] for c in t["verdict"]["criteria"]}, \
                t["verdict"]["result"]
    return None, None


def peers(w, **cand):
    """stock, two peers (the best fsync and the best MB/s) and nfswbd:auto
    with figures CAND."""
    return [cell(w, "stock", fsync=200000, mbps=9.0, commit=80000, write=20000),
            cell(w, "global-bg=16777216", fsync=100000, mbps=9.5, commit=60000),
            cell(w, "bdi-cap=33554432", fsync=150000, mbps=10.0, commit=50000),
            cell(w, "nfswbd:auto", **cand)]


def criterion(la, cells, name):
    """The reread table of CELLS and its criterion NAME: (criterion, table)."""
    table = next(t for t in la.bench_tables(cells) if t["workload"] == "reread")
    return next(c for c in table["verdict"]["criteria"]
                if c["criterion"] == name), table


def test_verdict(la):
    ok = dict(fsync=110000, mbps=9.8, commit=55000, write=24000, hit=1.0)
    v, overall = verdict(la, peers("reread", **ok))
    check(overall == "pass" and set(v.values()) == {"pass"},
          "at every limit exactly, every criterion passes: %s" % v)
    check(set(v) == {"client fsync p99", "server COMMIT p99", "MB/s",
                     "server WRITE p99", "re-read hit ratio"},
          "reread judges its hit ratio and no temp-file bytes: %s" % sorted(v))
    # Each criterion failed once, by its own figure only.
    for name, key, bad in (("client fsync p99", "fsync", 110001),
                           ("server COMMIT p99", "commit", 55001),
                           ("MB/s", "mbps", 9.79),
                           ("server WRITE p99", "write", 24001),
                           ("re-read hit ratio", "hit", 0.99)):
        v, overall = verdict(la, peers("reread", **dict(ok, **{key: bad})))
        check(overall == "fail" and v[name] == "fail" and
              all(r == "pass" for n, r in v.items() if n != name),
              "%s=%s fails %s alone: %s" % (key, bad, name, v))
    # Temp-file bytes: no more than stock's.
    t = [cell("tempfile", "stock", temp=4096), cell("tempfile", "nfswbd:auto", temp=4096)]
    v, _ = verdict(la, t, "tempfile")
    check(v.get("temp-file bytes to disk") == "pass", "temp bytes == stock's pass")
    t[1]["tempfile_bytes_written"] = 4097
    v, _ = verdict(la, t, "tempfile")
    check(v.get("temp-file bytes to disk") == "fail", "temp bytes > stock's fail")
    check("re-read hit ratio" not in v, "tempfile does not judge re-reads")

    # Missing: a peer not measured turns a pass into "missing", never a
    # pass; a fail stays a fail (more peers cannot make the best worse).
    cells = peers("reread", **ok)
    cells[2] = {"status": "missing", "scenario": "reread", "tuning": "bdi-cap_32M",
                "kernel": {"kind": "7.3"}, "nfs_version": "4.2"}
    v, overall = verdict(la, cells)
    check(overall == "missing" and v["MB/s"] == "missing" and
          v["client fsync p99"] == "missing" and v["server WRITE p99"] == "pass",
          "an unmeasured peer leaves the best-peer criteria missing: %s" % v)
    cells[3] = cell("reread", "nfswbd:auto", **dict(ok, fsync=200000))
    v, overall = verdict(la, cells)
    check(overall == "fail" and v["client fsync p99"] == "fail",
          "a fail with a peer missing is a fail: %s" % v)
    # A failed cell counts as not measured.
    cells = peers("reread", **ok)
    cells[0]["status"] = "failed"
    v, _ = verdict(la, cells)
    check(v["server WRITE p99"] == "missing" and v["re-read hit ratio"] == "missing",
          "stock failed: its criteria are missing: %s" % v)
    # No nfswbd:auto: everything missing.
    v, overall = verdict(la, peers("reread", **ok)[:3])
    check(overall == "missing" and set(v.values()) == {"missing"},
          "without nfswbd:auto every criterion is missing: %s" % v)
    # nfswbd:auto on the patched kernel is not the shipped defaults.
    cells = peers("reread", **ok)
    cells[3]["kernel"] = {"kind": "7.3-patched"}
    v, overall = verdict(la, cells)
    check(overall == "missing", "nfswbd:auto (patched) is not the candidate: %s" % v)
    table = next(t for t in la.bench_tables(cells) if t["workload"] == "reread")
    md = "\n".join(la.verdict_lines(table))
    check("measured only on 7.3-patched" in md,
          "the verdict says where nfswbd:auto was measured: %s" % md)
    # With the series, nfswbd:auto and stock on the patched kernel are
    # judged, and the verdict says which kernel; on the shipped kernel
    # they are then not the candidate.
    cells = [dict(c, kernel={"kind": "7.3-patched"}) for c in peers("reread", **ok)]
    table = next(t for t in la.bench_tables(cells, series=True)
                 if t["workload"] == "reread")
    check(table["verdict"]["result"] == "pass",
          "with the series, nfswbd:auto (patched) is judged: %s" % table["verdict"])
    md = "\n".join(la.verdict_lines(table))
    check("on Linux 7.3 with the kernel series: 5 pass" in md,
          "the verdict names the series: %s" % md)
    cells[3] = cell("reread", "nfswbd:auto", **dict(ok, commit=55001))
    table = next(t for t in la.bench_tables(cells, series=True)
                 if t["workload"] == "reread")
    check(table["verdict"]["result"] == "missing" and
          "not the patched kernel" in "\n".join(la.verdict_lines(table)),
          "with the series, nfswbd:auto (shipped) is not the candidate: %s"
          % table["verdict"])
    six = [dict(c, kernel={"kind": "6.12-patched"}) for c in peers("reread", **ok)]
    table = next(t for t in la.bench_tables(six, series=True)
                 if t["workload"] == "reread")
    check(table["kernel"] == "6.12" and table["verdict"]["result"] == "pass",
          "6.12-patched is 6.12's series kernel: %s" % table["verdict"])
    # A tuning another workload has is expected in this one too.
    cells = peers("reread", **ok) + [cell("randwrite", "nfsd-io=direct")]
    v, overall = verdict(la, cells)
    check(overall == "missing" and v["MB/s"] == "missing",
          "a tuning measured elsewhere and not here is missing: %s" % v)
    # Cells of different sizes judge nothing.
    cells = peers("reread", **ok)
    for r in cells:
        r["parameters"] = {"size": "256M"}
    cells[1]["parameters"]["size"] = "32M"
    v, overall = verdict(la, cells)
    check(overall == "missing" and set(v.values()) == {"missing"},
          "cells of different sizes: every criterion missing: %s" % v)
    text = la.table_parameters({"rows": cells})
    check("**Not comparable**: the cells differ in size (256M/32M)." in text,
          "cells of different sizes are not comparable: %s" % text)
    # A cell from before tempfile had temp_start_ms ran it at 0.
    t = [cell("tempfile", "stock"), cell("tempfile", "nfswbd:auto")]
    t[1]["parameters"] = {"temp_start_ms": "0"}
    check(la.parameters_differ(t) == [],
          "no temp_start_ms is temp_start_ms=0: %s" % la.parameters_differ(t))
    t[1]["parameters"] = {"temp_start_ms": "10000"}
    check(la.parameters_differ(t) == ["temp_start_ms (0/10000)"],
          "temp_start_ms=10000 differs: %s" % la.parameters_differ(t))
    # A fail whose runs overlap says so; one that holds run for run, or
    # of single runs, does not.  WRITE p99: the limit 1.2 x stock's 20 ms.
    def write_fail(cand_range, stock_range):
        cells = peers("reread", **dict(ok, write=30000))
        if stock_range:
            cells[0]["range"] = {"write_latency_us.p99": stock_range}
        if cand_range:
            cells[3]["range"] = {"write_latency_us.p99": cand_range}
        c, table = criterion(la, cells, "server WRITE p99")
        line = next(x for x in la.verdict_lines(table) if "WRITE p99" in x)
        return c, line
    c, line = write_fail([22000, 40000], [15000, 30000])
    check(c["result"] == "fail" and c["firm"] is False and
          "the runs overlap (nfswbd:auto 22–40 ms, the limit from stock's "
          "runs 18–36 ms): more rounds decide" in line,
          "an overlapping fail: %s / %s" % (c, line))
    c, line = write_fail([29000, 40000], [15000, 20000])
    check(c["result"] == "fail" and c["firm"] is True and
          "overlap" not in line, "a fail run for run: %s / %s" % (c, line))
    c, line = write_fail(None, None)
    check(c["result"] == "fail" and c["firm"] is True and
          "spread" not in c and "overlap" not in line,
          "a fail of single runs: %s / %s" % (c, line))
    # MB/s (higher is better): the best run above the limit overlaps.
    cells = peers("reread", **dict(ok, mbps=9.0))
    cells[2]["range"] = {"write_MBps": [9.5, 10.5]}
    cells[3]["range"] = {"write_MBps": [8.8, 9.4]}
    c, _ = criterion(la, cells, "MB/s")
    check(c["result"] == "fail" and c["firm"] is False,
          "MB/s 9.0 (8.8-9.4) against 0.98 x 10.0 (9.31-10.29): %s" % c)
    # A peer whose client sent no COMMIT is not the best COMMIT p99.
    cells = peers("reread", **ok) + [cell("reread", "nfsd-io=direct", commit=0,
                                          commits=0)]
    v, _ = verdict(la, cells)
    check(v["server COMMIT p99"] == "pass", "a peer without COMMITs is not "
          "the best COMMIT p99: %s" % v)


def test_rounds(la, work):
    """Round by round: each run of nfswbd:auto against the run of the same
    round of the row whose median sets the limit; runs without a round
    pair only under bench --rounds, by their names."""
    def runs(key, vals, rounds):
        return [{"status": "ok", key: v, "round": k} if k else
                {"status": "ok", key: v} for v, k in zip(vals, rounds)]

    # MB/s: the limit 0.98 x the best peer's.  Round by round the
    # candidate meets it in rounds a and c only.
    cells = peers("reread", mbps=9.8, fsync=110000, commit=55000, write=24000)
    cells[2]["per_run"] = runs("write_MBps", [10.0, 11.0, 10.0], "abc")
    cells[3]["per_run"] = runs("write_MBps", [9.8, 10.7, 9.9], "abc")
    c, table = criterion(la, cells, "MB/s")
    line = next(x for x in la.verdict_lines(table) if ": MB/s:" in x)
    check(c["result"] == "pass" and c["rounds"] == {"within": 2, "of": 3} and
          "in 2 of 3 rounds within the limit that round's bdi-cap=32M run "
          "sets" in line, "MB/s round by round: %s / %s" % (c, line))
    # Rounds that only one side ran are not pairs; one pair is no count.
    cells[2]["per_run"] = runs("write_MBps", [10.0, 11.0], "ab")
    cells[3]["per_run"] = runs("write_MBps", [9.8, 10.7], "bc")
    c, _ = criterion(la, cells, "MB/s")
    check("rounds" not in c, "a single shared round is not counted: %s" % c)
    # A failed run is no figure.
    cells[2]["per_run"] = runs("write_MBps", [10.0, 11.0, 10.0], "abc")
    cells[3]["per_run"] = runs("write_MBps", [9.8, 10.7, 9.9], "abc")
    cells[3]["per_run"][1]["status"] = "failed"
    c, _ = criterion(la, cells, "MB/s")
    check(c["rounds"] == {"within": 2, "of": 2}, "a failed run: %s" % c)

    # bench end to end: runs with no round are paired by --rounds alone.
    cells_dir = os.path.join(work, "rounds")
    dirs = []
    for tuning, name, p99s in (("stock", "stock", [20000, 30000, 25000]),
                               ("nfswbd:auto", "nfswbd_auto",
                                [23000, 37000, 31000])):
        d = os.path.join(cells_dir, "reread-%s-7.3-v4.2" % name)
        for i, v in enumerate(p99s, 1):
            r = cell("reread", tuning, write=v)
            del r["repeat"]
            write(os.path.join(d, "run-%d" % i, "meta.json"), "{}")
            write(os.path.join(d, "run-%d" % i, "result.json"), json.dumps(r))
        dirs.append(d)
    out = os.path.join(work, "rounds-out")
    os.makedirs(out)

    def write_criterion(*flags):
        with contextlib.redirect_stdout(io.StringIO()):
            la.bench(out, dirs, rounds="--rounds" in flags)
        doc = json.loads(open(os.path.join(out, "bench.json")).read())
        return next(c for c in doc["tables"][0]["verdict"]["criteria"]
                    if c["criterion"] == "server WRITE p99")

    c = write_criterion()
    check(c["result"] == "fail" and "rounds" not in c,
          "runs without rounds are not paired: %s" % c)
    c = write_criterion("--rounds")
    # 1.2 x 20/30/25 = 24/36/30 against 23/37/31: within in round 1 only.
    check(c["rounds"] == {"within": 1, "of": 3},
          "--rounds pairs run-N with run-N: %s" % c)


def test_bench(la, work):
    """`bench` end to end on cells of result.json only: the table, the
    verdict lines, a missing cell, the plot with every point."""
    out = os.path.join(work, "bench")
    os.makedirs(out)
    dirs = []
    cells = peers("reread", fsync=300000, mbps=9.8, commit=55000, write=24000,
                  hit=0.5)
    cells.append(cell("reread", "nfsd-io=dontcache", mbps=9.5, fsync=100000))
    cells[0]["range"] = {"write_MBps": [8.5, 9.25]}
    for r in cells:
        r["parameters"] = {"size": "256M", "bs": "1M", "timeout": "600"}
    for r in cells:
        d = os.path.join(work, "cells", "reread-%s-7.3-v4.2" % la.tuning_key(r["tuning"]))
        write(d + "/result.json", json.dumps(r))
        dirs.append(d)
    dirs.append(os.path.join(work, "cells", "reread-nfsd-io_direct-7.3-v4.2"))
    os.makedirs(dirs[-1])
    saved = sys.stdout
    sys.stdout = open(os.devnull, "w")
    try:
        la.bench(out, dirs)
    finally:
        sys.stdout.close()
        sys.stdout = saved
    md = open(os.path.join(out, "bench.md")).read()
    check("### reread, NFSv4.2, Linux 7.3" in md, "one table per workload")
    check("| reread | v4.2 | 7.3 | **fail** | client fsync p99, re-read hit ratio "
          "| server COMMIT p99, MB/s |" in md, "the overview line of the verdict")
    check("| stock | 3 | 9.00 (8.50–9.25) |" in md, "the spread beside the median")
    check(re.search(r"\| bdi-cap=32M \|", md) is not None, "sizes read as sizes")
    check(re.search(r"\| nfsd-io=direct \| - \|.*\| missing \|", md) is not None,
          "a cell without result is a missing row")
    check("Parameters: bs=1M size=256M.\n" in md, "the parameters the cells share")
    check("**Goal verdict: FAIL**" in md, "the verdict: %s" % md)
    check("- fail: client fsync p99: nfswbd:auto 300 ms > 1.1 x best peer's "
          "100 ms = 110 ms" in md, "the fsync figures")
    check("- fail: re-read hit ratio: nfswbd:auto 0.50 < 1 x stock's 1.00" in md,
          "the hit ratio figures")
    check("- missing: MB/s:" in md and "not measured: nfsd-io=direct" in md,
          "a passing criterion with a peer missing is missing")
    doc = json.load(open(os.path.join(out, "bench.json")))
    check(doc["tables"][0]["verdict"]["result"] == "fail", "bench.json verdict")
    svg = open(os.path.join(out, "bench-reread.svg")).read()
    # Every measured row is a marker and its number a label (or in one).
    check(svg.count("<circle") == 5, "5 points drawn: %d" % svg.count("<circle"))
    labels = re.findall(r'<text x="[0-9.]+" y="[0-9.]+">([0-9,]+)</text>', svg)
    nums = sorted(int(n) for l in labels for n in l.split(","))
    rows = sorted(c["row"] for c in doc["cells"] if c["status"] == "ok")
    check(len(rows) == 5 and nums == rows, "every point numbered once with "
          "its row: %s, rows %s" % (nums, rows))
    # The trade-off plot: COMMIT p99 against WRITE p99, the goal's box
    # from stock's WRITE p99 x 1.2 (24 ms) and the best peer's COMMIT p99
    # x 1.1 (55 ms).  Inside: bdi-cap and dontcache (20, 50) and nfswbd
    # on the corner (24, 55); outside: stock (20, 80), global-bg (20, 60).
    check("(bench-reread-tradeoff.svg)" in md, "the trade-off plot linked")
    svg = open(os.path.join(out, "bench-reread-tradeoff.svg")).read()
    box = re.search(r'<rect class="goal" x="([0-9.]+)" y="([0-9.]+)" '
                    r'width="([0-9.]+)" height="([0-9.]+)"', svg)
    check(box is not None, "the goal's box drawn")
    if box:
        x, y, w, h = (float(v) for v in box.groups())
        inside = [c for c in re.findall(r'<circle cx="([0-9.]+)" cy="([0-9.]+)"', svg)
                  if x - 0.2 <= float(c[0]) <= x + w + 0.2
                  and y - 0.2 <= float(c[1]) <= y + h + 0.2]
        check(len(inside) == 3, "3 points in the goal's box: %d" % len(inside))
    check(re.search(r"WRITE p99 &lt;= 24(\.0)? ms = 1.2 x stock's", svg) and
          re.search(r"COMMIT p99 &lt;= 55(\.0)? ms = 1.1 x", svg),
          "the box's limits in the key")


def test_load_counters(la, work):
    """A manyclients run on an NFSv4.2 mount: nfswb-load speaks NFSv3,
    so the nfsd COMMIT counter is proc3's and the client's COMMITs are
    load.json's, not the kernel mount's (which sent none)."""
    d = run_fixture(work, "run-load", 40, 0)

    def proc(writes, commits):
        v3 = [0] * 22
        v3[la.PROC3["WRITE"]], v3[la.PROC3["COMMIT"]] = writes, commits
        v4 = [0] * 76
        v4[la.PROC4OPS["COMMIT"]] = 5  # the mount's own, not the load's
        return "proc3 22 %s\nproc4ops 76 %s\n" % (
            " ".join(map(str, v3)), " ".join(map(str, v4)))
    write(d + "/nfsd-before.txt", proc(0, 0))
    write(d + "/nfsd-after.txt", proc(2048, 64))
    write(d + "/load.json", json.dumps({
        "commit": {"ops": 64}, "write": {"ops": 2048},
        "commit_latency_us": {"p99": 2800000}}))
    a = la.analyze_run(d)
    check(a.get("nfsd_commit_counter") == "proc3 commit"
          and a.get("nfsd_commit_delta") == 64,
          "nfswb-load's COMMITs are in proc3: %s %s"
          % (a.get("nfsd_commit_counter"), a.get("nfsd_commit_delta")))
    check(a.get("client_commits") == 64 and a.get("client_writes") == 2048,
          "client COMMITs and WRITEs from load.json: %s %s"
          % (a.get("client_commits"), a.get("client_writes")))


def test_delegreturns(la, work):
    """An NFSv4 run: the client's DELEGRETURNs during the load, from its
    mountstats before and after (what was returned before is left out)."""
    d = run_fixture(work, "run-deleg", 40, 0)

    def stats(writes, commits, delegs):
        return ("device fe80::1:/ mounted on /mnt with fstype nfs4\n"
                "per-op statistics\n"
                "\t       WRITE: %d %d 0 0 0 0 0 0 0\n"
                "\t      COMMIT: %d %d 0 0 0 0 0 0 0\n"
                "\t DELEGRETURN: %d %d 0 0 0 0 0 0 0\n"
                % (writes, writes, commits, commits, delegs, delegs))
    write(d + "/client-mountstats-before.txt", stats(0, 0, 2))
    write(d + "/client-mountstats-after.txt", stats(512, 128, 56))
    a = la.analyze_run(d)
    check(a.get("client_delegreturns") == 54 and a.get("client_commits") == 128,
          "client DELEGRETURNs and COMMITs from mountstats: %s %s"
          % (a.get("client_delegreturns"), a.get("client_commits")))


def test_nfswbd_counters(la, work):
    """The daemon's last status.json: its mechanisms' counters and its
    samples and standby intervals, summed over the devices."""
    path = os.path.join(work, "nfswbd-status.json")
    write(path, json.dumps({"devices": [
        {"samples": 200, "standby_intervals": 70, "standby": True,
         "counters": {"kicks": 3, "pages_walked": 1000}},
        {"samples": 10, "standby_intervals": 10, "standby": True,
         "counters": {"kicks": 1}}]}))
    c = la.nfswbd_counters(path)
    check(c.get("nfswbd_samples") == 210
          and c.get("nfswbd_standby_intervals") == 80
          and c.get("nfswbd_kicks") == 4
          and c.get("nfswbd_pages_walked") == 1000
          and "nfswbd_standby" not in c,
          "status.json summed over devices: %s" % c)


def test_log_axis(la):
    """A y axis spanning more than PLOT_LOG_RATIO goes log, 1-2-5 ticks;
    the points keep their order and the axis takes in both."""
    lo, hi, ticks, dec = la.log_axis([46.5, 1231])
    check((lo, hi, dec) == (20, 2000, 0) and
          [round(t) for t in ticks] == [20, 50, 100, 200, 500, 1000, 2000],
          "log axis over 46.5..1231: %s" % ((lo, hi, ticks, dec),))
    # Points just above a step and just below one: the axis goes a step
    # further, so that neither marker sits on an axis line.
    lo, hi, ticks, dec = la.log_axis([53.3, 4844])
    check((lo, hi) == (20, 10000),
          "log axis over 53.3..4844 keeps clear of both: %s" % ((lo, hi),))
    lo, hi, ticks, dec = la.log_axis([0.5, 20])
    check((lo, hi, dec) == (0.2, 50, 1),
          "log axis over 0.5..20 (steps themselves): %s" % ((lo, hi, dec),))
    pts = [(10.0, 46.5, "a", 1), (3.4, 1231.0, "b", 2), (9.0, 60.0, "c", 3)]
    svg = la.pareto_svg("t", pts, "server COMMIT p99")
    check("log scale" in svg, "a 26x span is drawn on a log scale")
    cy = [float(m) for m in re.findall(r'<circle cx="[0-9.]+" cy="([0-9.]+)"', svg)]
    check(len(cy) == 3 and cy[1] < cy[2] < cy[0],
          "higher p99 drawn higher, on the log scale too: %s" % cy)
    svg = la.pareto_svg("t", pts[:1] + pts[2:], "server COMMIT p99")
    check("log scale" not in svg, "a 1.3x span stays linear")


def test_table_title(la):
    """A table's title says the version the clients spoke where it is not
    the mount's: manyclients' nfswb-load clients speak NFSv3."""
    rows = [{"status": "ok", "nfsd_commit_counter": "proc3 commit"},
            {"status": "missing"}]
    t = {"workload": "manyclients", "nfs_version": "4.2", "kernel": "7.3",
         "rows": rows}
    title = la.table_title(t)
    check(title == "manyclients, NFSv3 clients (mount NFSv4.2), Linux 7.3",
          "NFSv3 clients on an NFSv4.2 mount: %s" % title)
    rows[0]["nfsd_commit_counter"] = "proc4ops COMMIT"
    title = la.table_title(t)
    check(title == "manyclients, NFSv4.2, Linux 7.3", "NFSv4.2 clients: %s" % title)
    t["nfs_version"] = "3"
    rows[0]["nfsd_commit_counter"] = "proc3 commit"
    title = la.table_title(t)
    check(title == "manyclients, NFSv3, Linux 7.3", "NFSv3 mount: %s" % title)


def test_missing_rows(la, work):
    """A table lists as missing the matrix's tunings that another workload
    has, not a side experiment run in one workload (nfswbd:off)."""
    cells = [cell("tempfile", "stock"), cell("tempfile", "nfswbd:auto"),
             cell("tempfile", "nfswbd:off"), cell("tempfile", "bdi-cap=33554432"),
             cell("randwrite", "stock"), cell("randwrite", "nfswbd:auto")]

    def missing(tables):
        return {(t["workload"], r["tuning"]) for t in tables for r in t["rows"]
                if r.get("status") == "missing"}

    matrix = {la.tuning_key(t) for t in ("stock", "bdi-cap=32M", "nfswbd:auto")}
    got = missing(la.bench_tables([dict(c) for c in cells], matrix))
    check(got == {("randwrite", "bdi-cap=33554432")},
          "only the matrix's tuning is missing in randwrite: %s" % sorted(got))
    # The matrix as the lab script beside lab-analyze spells it.
    lab = os.path.join(work, "lab")
    write(lab, 'X=1\nBENCH_TUNINGS="stock bdi-cap=32M\nnfswbd:auto"\n')
    check(la.matrix_tunings(lab) == matrix, "BENCH_TUNINGS read: %s"
          % la.matrix_tunings(lab))
    check(la.matrix_tunings(os.path.join(work, "none")) is None,
          "no lab script: no matrix")
    real = la.matrix_tunings()
    check(real is not None and la.tuning_key("nfswbd:auto") in real and
          la.tuning_key("nfswbd:off") not in real,
          "the lab's own matrix: %s" % real)


def test_cpu_column(la):
    """The server CPU column and its note show only where a row has the
    figure: tables of runs from before the CPU samples stay as written."""
    old = [cell("seqwrite", "stock"), cell("seqwrite", "nfswbd:auto")]
    new = [dict(c) for c in old]
    new[1]["server_cpu_all_busy_between_commits"] = 0.17
    head = "server CPU all busy"
    md_old = la.bench_markdown(la.bench_tables(old))
    md_new = la.bench_markdown(la.bench_tables(new))
    check(head not in md_old, "no CPU column without the figure")
    check("| %s |" % head in md_new and "| 0.17 |" in md_new
          and "- %s: the share" % head in md_new,
          "the CPU column, its figure and its note with it")
    check(md_new.count("- %s:" % head) == 1, "the note once")


def test_command_line(path, work):
    """Bad command lines get one line naming the problem, never a
    traceback; --help prints the usage and succeeds."""
    def cli(*args):
        p = subprocess.run([sys.executable, path] + list(args),
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    rc, out, err = cli("--help")
    check(rc == 0 and out.startswith("Usage:") and "bench [--series]" in out,
          "--help: exit %d, %r" % (rc, out[:80]))
    missing = os.path.join(work, "no-such-dir")
    for args, want in ((["bench", "--help"], "unknown option --help"),
                       (["summary", "--bogus"], "unknown option --bogus"),
                       (["bench", "--series"], "no OUT directory"),
                       (["bench", missing, work], missing + ": no such directory"),
                       (["frobnicate"], "bad arguments: frobnicate")):
        rc, out, err = cli(*args)
        check(rc == 1 and want in err and "Traceback" not in err,
              "%s: exit %d, %r" % (" ".join(args), rc, err[:200]))


def test_server_cpu(la, work):
    """The server's CPU shares come from /proc/stat's cpu line in the
    samples; an interval without an idle or iowait tick is all busy."""
    def sample(t, user, system, idle, softirq):
        return json.dumps(dict({"t": t}, **{
            "stat.cpu.%d" % i: v for i, v in
            enumerate((user, 0, system, idle, 0, 0, softirq, 0, 0, 0))}))
    path = work + "/cpu-samples.jsonl"
    write(path, "\n".join([
        sample(0.0, 100, 50, 1000, 10),
        sample(0.1, 108, 52, 1000, 10),   # 10 ticks, none idle
        json.dumps({"t": 0.15}),           # a sample without the file
        sample(0.2, 111, 52, 1006, 11),   # 10 ticks, 6 idle
        '{"t": 0.3, "stat.cpu.0": 1',      # cut by the shutdown
    ]) + "\n")
    cpu = la.sample_summary(path).get("server_cpu")
    check(cpu == {"busy": 0.7, "user": 0.55, "system": 0.1, "irq": 0.05,
                  "iowait": 0.0, "idle": 0.3, "intervals": 2,
                  "full_intervals": 0.5},
          "CPU shares over 20 ticks, one of two intervals all busy: %s" % cpu)
    # A COMMIT inside the second interval leaves the first between
    # COMMITs; one that ended before the samples changes nothing.
    trace = "".join(" nfsd-7 [000] ..... %s: nfsd_commit_%s: xid=0x%d\n"
                    % (t, kind, x) for t, kind, x in (
                        ("10.000000", "start", 1), ("10.500000", "done", 1),
                        ("11.120000", "start", 2), ("11.130000", "done", 2)))
    spans = [[a - 11, b - 11] for a, b in la.commit_spans(trace)]
    check([[round(a, 3), round(b, 3)] for a, b in spans]
          == [[-1.0, -0.5], [0.12, 0.13]], "commit spans: %s" % spans)
    between = la.sample_summary(path, spans)["server_cpu"].get("between_commits")
    check(between is not None and between["busy"] == 1.0
          and between["intervals"] == 1 and between["full_intervals"] == 1.0,
          "between COMMITs: the first interval only: %s" % between)
    check("between_commits" not in cpu, "no split without COMMITs")
    write(path, sample(0.0, 1, 1, 1, 1) + "\n" + json.dumps({"t": 0.1}) + "\n")
    check("server_cpu" not in la.sample_summary(path),
          "no CPU figures from one sample of the cpu line")


def main():
    path = os.path.join(os.environ.get("srcdir", "."), "nfs", "lab-analyze")
    la = load(path)
    with tempfile.TemporaryDirectory() as work:
        test_run_metrics(la, work)
        test_load_counters(la, work)
        test_delegreturns(la, work)
        test_nfswbd_counters(la, work)
        test_server_cpu(la, work)
        test_verdict(la)
        test_rounds(la, work)
        test_bench(la, work)
        test_log_axis(la)
        test_table_title(la)
        test_missing_rows(la, work)
        test_cpu_column(la)
        test_command_line(path, work)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
