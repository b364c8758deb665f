#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check nfswb-report against figures computed here, independently, from
the same raw ftrace lines that this script generates.

usage: report_check.py NFSWB_REPORT WORKDIR

Percentiles are nearest rank over exact fractions, mean and stdev come
from Python's statistics module, WRITE volume is the sum of the len=
fields and its rate is divided by (last done - first start) computed
from the decimal timestamps as printed.
"""
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

PCTS = ["1", "5", "10", "20", "30", "40", "50", "60", "70", "80", "90",
        "95", "99", "99.5", "99.9", "99.95", "99.99"]
failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", msg, file=sys.stderr)


def nearest_rank(values, pct):
    s = sorted(values)
    rank = math.ceil(Fraction(pct) * len(s) / 100)
    return s[max(rank, 1) - 1]


def expected(values):
    if not values:
        return {"count": 0, "min": None, "max": None, "mean": None}
    e = {"count": len(values), "min": min(values), "max": max(values),
         "mean": statistics.fmean(values),
         "stdev": statistics.stdev(values) if len(values) > 1 else 0.0}
    e["pct"] = {p: nearest_rank(values, p) for p in PCTS}
    return e


def compare_lat(name, got, exp):
    check(got["count"] == exp["count"],
          f"{name} count {got['count']} != {exp['count']}")
    if not exp["count"]:
        check(got["min"] is None and got["p99.9"] is None,
              f"{name}: empty set must give null figures")
        return
    check(got["min"] == exp["min"], f"{name} min {got['min']} != {exp['min']}")
    check(got["max"] == exp["max"], f"{name} max {got['max']} != {exp['max']}")
    check(abs(got["mean"] - exp["mean"]) <= 0.006,
          f"{name} mean {got['mean']} != {exp['mean']:.3f}")
    check(abs(got["stdev"] - exp["stdev"]) <= 0.006,
          f"{name} stdev {got['stdev']} != {exp['stdev']:.3f}")
    for p in PCTS:
        key = "%f" % float(p)
        check(got["percentiles"][key] == exp["pct"][p],
              f"{name} p{p} {got['percentiles'][key]} != {exp['pct'][p]}")
    for short, p in (("p50", "50"), ("p90", "90"), ("p99", "99"),
                     ("p99.9", "99.9")):
        check(got[short] == exp["pct"][p], f"{name} {short}")


class Trace:
    """Lines in the tracefs 'trace' format plus what they mean."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = ["# tracer: nop", "#",
                      "#           TASK-PID     CPU#  |||||  TIMESTAMP  "
                      "FUNCTION",
                      "#              | |         |   |||||     |         |"]
        self.bad = []           # 1-based line numbers of malformed lines
        self.ts = Decimal("1000.000000")
        self.xid = 0x1000

    def tick(self, us):
        self.ts += Decimal(us) / Decimal(1000000)
        return "%.6f" % self.ts

    def event(self, task, pid, name, fields, ts):
        cpu = self.rng.randint(0, 1)
        self.lines.append(f"{task:>16}-{pid:<7} [{cpu:03d}] .....  "
                          f"{ts}: {name}: {fields}")

    def malformed(self, text):
        self.lines.append(text)
        self.bad.append(len(self.lines))

    def write(self, path, truncate_last=False):
        with open(path, "w") as f:
            f.write("\n".join(self.lines))
            if not truncate_last:
                f.write("\n")


def knfsd_trace(rng, with_rpc, n_commit, n_write):
    """Clients writing and committing; returns trace and expectations."""
    t = Trace(rng)
    clients = ["127.0.0.1:905", "127.0.0.1:714", "[::1]:822"]
    commits, writes, nfsd_w, nfsd_c = [], [], [], []
    per_client = {c: {"commit": [], "write": []} for c in clients}
    per_file = {}
    files = [rng.randrange(1 << 32) for _ in range(40)]
    wbytes, wfirst, wlast = 0, None, None
    ops = ["c"] * n_commit + ["w"] * n_write
    rng.shuffle(ops)
    for i, op in enumerate(ops):
        client = rng.choice(clients)
        t.xid += 1
        xid = "0x%08x" % t.xid
        fh = "0x%08x" % rng.choice(files)
        off = rng.randrange(1 << 30) * 4096
        length = rng.choice([4096, 65536, 262144, 1048576, 12345])
        pid = rng.choice([71, 72, 73])
        if op == "w":
            start = t.tick(rng.randint(1, 400))
            t.event("nfsd", pid, "nfsd_write_start",
                    f"xid={xid} fh_hash={fh} offset={off} len={length}",
                    start)
            done = t.tick(rng.randint(0, 3000))
            t.event("nfsd", pid, "nfsd_write_done",
                    f"xid={xid} fh_hash={fh} offset={off} len={length}",
                    done)
            us = int((Decimal(done) - Decimal(start)) * 1000000)
            nfsd_w.append(us)
            per_file.setdefault(fh, {"commit": [], "write": []})
            per_file[fh]["write"].append(us)
            wbytes += length
            wfirst = Decimal(start) if wfirst is None else wfirst
            wlast = Decimal(done)
            exec_us = us + rng.randint(5, 200)
            if with_rpc:
                t.event("nfsd", pid, "svc_stats_latency",
                        f"xid={xid} server=127.0.0.1:2049 client={client} "
                        f"proc=WRITE execute-us={exec_us}", t.tick(3))
                writes.append(exec_us)
                per_client[client]["write"].append(exec_us)
        else:
            start = t.tick(rng.randint(1, 1000))
            t.event("nfsd", pid, "nfsd_commit_start",
                    f"xid={xid} fh_hash={fh} offset=0 len=0", start)
            # Long-tailed, like COMMITs behind a dirty backlog.
            lat = int(rng.lognormvariate(11, 1.5))
            done = t.tick(lat)
            t.event("nfsd", pid, "nfsd_commit_done",
                    f"xid={xid} fh_hash={fh} offset=0 len=0", done)
            nfsd_c.append(lat)
            per_file.setdefault(fh, {"commit": [], "write": []})
            per_file[fh]["commit"].append(lat)
            exec_us = lat + rng.randint(5, 200)
            if with_rpc:
                t.event("nfsd", pid, "svc_stats_latency",
                        f"xid={xid} server=127.0.0.1:2049 client={client} "
                        f"proc=COMMIT execute-us={exec_us}", t.tick(3))
                commits.append(exec_us)
                per_client[client]["commit"].append(exec_us)
        # Noise the parser must skip or reject.
        if i % 97 == 5:
            t.event("nfsd", pid, "svc_stats_latency",
                    f"xid={xid} server=127.0.0.1:2049 client={client} "
                    "proc=GETATTR execute-us=12", t.tick(1))
        if i % 211 == 17:
            t.event("kworker/u4:2-e", 55, "writeback_start",
                    "bdi 254:0: sb_dev 0:0 nr_pages=1024", t.tick(1))
        if i % 503 == 40:
            t.malformed("            nfsd-71      [001] .....  "
                        f"{t.tick(1)}: svc_stats_latency: xid={xid} "
                        "proc=COMMIT execute-us=12x")
        if i % 701 == 99:
            t.malformed("this is not ftrace")
        if i % 389 == 11:
            t.malformed("            nfsd-71      [001] .....  "
                        f"{t.tick(1)}: nfsd_write_done: xid={xid} "
                        "fh_hash=0xzz offset=0 len=1")
    exp = {
        "commit": commits if with_rpc else nfsd_c,
        "write": writes if with_rpc else nfsd_w,
        "bytes": wbytes,
        "rate": float(wbytes / (wlast - wfirst)) if nfsd_w else None,
        "per_client": per_client,
        "per_file": per_file,
    }
    exp["nfsd_commit"] = nfsd_c
    return t, exp


def overlapping_calls(rng, t, pids, n, start, finish):
    """n calls by the threads @pids, each with at most one open at a time,
    as a server's worker threads make them: start(pid, now) at a call's
    start returns what finish(pid, now, state) gets at its end."""
    open_calls = {}
    done = 0
    while done < n:
        pid = rng.choice(pids)
        if pid in open_calls:
            now = t.tick(rng.randint(1, 50000))
            finish(pid, now, open_calls.pop(pid))
            done += 1
        else:
            now = t.tick(rng.randint(1, 2000))
            open_calls[pid] = start(pid, now)


def ganesha_trace(rng, n):
    """fsync syscalls of a userspace server, several threads at once."""
    t = Trace(rng)
    lat = []

    def start(pid, now):
        name = rng.choice(["sys_fsync", "sys_fdatasync"])
        if name == "sys_fdatasync":
            # The raw_syscalls form of the same thing.
            t.lines.append(f"     ganesha.nfsd-{pid} [001] ..... {now}: "
                           "sys_enter: NR 75 (7, 0, 0, 0, 0, 0)")
        else:
            t.lines.append(f"     ganesha.nfsd-{pid} [001] ..... {now}: "
                           "sys_fsync(fd: 7)")
        return now

    def finish(pid, now, began):
        t.lines.append(f"     ganesha.nfsd-{pid} [000] ..... {now}: "
                       "sys_fsync -> 0x0")
        lat.append(int((Decimal(now) - Decimal(began)) * 1000000))

    overlapping_calls(rng, t, [4001, 4002, 4003, 4004], n, start, finish)
    return t, lat


def kprobe_trace(rng, n):
    """The kprobe pair record puts on nfsd_commit on a kernel without the
    nfsd_commit tracepoints: NFSv4 COMMITs inside COMPOUNDs and NFSv3
    ones (the only ones svc_stats_latency names), several nfsd threads at
    once, files on two exported devices and one that is not exported."""
    t = Trace(rng)
    t.lines += ["# nfswb-export dev=254:16 path=/srv/v4 export",
                "# nfswb-export dev=8:1 path=/srv/v3",
                "# nfswb-export dev=8:1 path=/srv/v3-second"]
    devs = {"/srv/v4 export": (254, 16), "/srv/v3": (8, 1),
            "dev 9:3": (9, 3)}
    per_export = {name: [] for name in devs}
    per_owner = {}
    lat, v3 = [], []

    def start(pid, now):
        name = rng.choice(list(devs))
        major, minor = devs[name]
        t.xid += 1
        xid_be = int.from_bytes(t.xid.to_bytes(4, "big"), "little")
        uid = rng.choice([0, 4242])
        t.event("nfsd", pid, "nfswb_commit_entry",
                "(nfsd_commit+0x0/0x1f0) xid_be=0x%x dev=%d ino=%d"
                " uid=%d" % (xid_be, major << 20 | minor,
                             rng.randint(12, 99), uid), now)
        return (now, name, t.xid, rng.random() < 0.3, uid)

    def finish(pid, now, state):
        began, name, xid, is_v3, uid = state
        back = "nfsd3_proc_commit+0x4e/0x90" if is_v3 else \
            "nfsd4_commit+0x6a/0xa0"
        t.event("nfsd", pid, "nfswb_commit_exit",
                f"({back} <- nfsd_commit) ret=0x0", now)
        us = int((Decimal(now) - Decimal(began)) * 1000000)
        lat.append(us)
        per_export[name].append(us)
        per_owner.setdefault(uid, []).append(us)
        proc = "COMMIT" if is_v3 else "COMPOUND"
        t.event("nfsd", pid, "svc_stats_latency",
                "xid=0x%08x server=10.0.0.1:2049 client=10.0.0.%d:800"
                " proc=%s execute-us=%d" % (xid, pid, proc, us + 7),
                t.tick(3))
        if is_v3:
            v3.append(us + 7)

    overlapping_calls(rng, t, [71, 72, 73, 74], n, start, finish)
    return t, lat, per_export, v3, per_owner


def device_trace(rng):
    """A writer behind a slow wire, COMMIT every 2 s, dirty samples."""
    t = Trace(rng)
    dirty, commits, kicks = 0, [], 0
    bw = 32 << 20
    for step in range(300):             # 30 s in 100 ms steps
        now = t.tick(100000)
        dirty += int(rng.uniform(20, 30) * (1 << 20) / 10)
        if dirty > (32 << 20):          # background writeback
            dirty -= int(bw / 10 * rng.uniform(0.8, 1.0))
            if step % 5 == 0:
                t.event("kworker/u4:1", 33, "wb_bg_time_kick",
                        "bdi=254:16 dirty=%d" % dirty, now)
                kicks += 1
        dirty = max(dirty, 0)
        t.lines.append("# nfswb-sample t=%s bdi=254:16 dirty=%d "
                       "writeback=0 bandwidth=%d" % (now, dirty,
                                                     int(bw * 0.95)))
        if step % 20 == 19:
            lat = int(dirty / bw * 1e6) + rng.randint(500, 5000)
            t.xid += 1
            t.event("nfsd", 71, "svc_stats_latency",
                    "xid=0x%08x server=127.0.0.1:2049 client=127.0.0.1:905"
                    " proc=COMMIT execute-us=%d" % (t.xid, lat), now)
            commits.append(lat)
            dirty = 0
    return t, commits, kicks


def run(report, *args):
    p = subprocess.run([report, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    report, work = sys.argv[1], sys.argv[2]
    rng = random.Random(20261130)

    # 1. knfsd with svc_stats_latency: figures, bad lines, truncation.
    t, exp = knfsd_trace(rng, True, 700, 3000)
    t.malformed("            nfsd-71      [001] .....  "
                "1999.000000: svc_stats_latency: xid=0x1 proc=COMMIT ex")
    path = f"{work}/knfsd.trace"
    t.write(path, truncate_last=True)
    rc, out, err = run(report, "summary", "--json", path)
    check(rc == 0, f"summary exit {rc}: {err}")
    got = json.loads(out)
    check(got["commit_source"] == "svc_stats_latency", "commit source")
    compare_lat("commit", got["commit_latency_us"], expected(exp["commit"]))
    compare_lat("write", got["write_latency_us"], expected(exp["write"]))
    compare_lat("nfsd_commit", got["nfsd_commit_latency_us"],
                expected(exp["nfsd_commit"]))
    check(got["write_bytes"] == exp["bytes"],
          f"bytes {got['write_bytes']} != {exp['bytes']}")
    check(abs(got["write_bytes_per_s"] - exp["rate"]) <= 1 + exp["rate"] * 1e-6,
          f"rate {got['write_bytes_per_s']} != {exp['rate']}")
    check(got["malformed_lines"] == len(t.bad),
          f"malformed {got['malformed_lines']} != {len(t.bad)}")
    for n in t.bad:
        check(f"{path}:{n}: " in err, f"line {n} not reported: {err[:300]}")
    check(err.count(f"{path}:") == len(t.bad), "only the bad lines reported")

    # 2. Per client.
    rc, out, err = run(report, "summary", "--json", "--by", "client", path)
    got = json.loads(out)
    groups = {g["name"]: g for g in got["groups"]}
    check(set(groups) == set(exp["per_client"]),
          f"clients {sorted(groups)}")
    for c, e in exp["per_client"].items():
        if c in groups:
            compare_lat(f"commit[{c}]", groups[c]["commit_latency_us"],
                        expected(e["commit"]))
            compare_lat(f"write[{c}]", groups[c]["write_latency_us"],
                        expected(e["write"]))

    # 3. CSV: a header and two rows per group, p99 column agrees.
    rc, out, err = run(report, "summary", "--csv", "--by", "client", path)
    rows = [r.split(",") for r in out.strip().split("\n")]
    check(len(rows) == 1 + 2 * (1 + len(exp["per_client"])),
          f"csv rows {len(rows)}")
    col = rows[0].index("p99_us")
    check(int(rows[1][col]) == expected(exp["commit"])["pct"]["99"],
          "csv p99")

    # 4. knfsd without svc_stats_latency: nfsd start/done pairs.
    t, exp = knfsd_trace(rng, False, 300, 1000)
    path2 = f"{work}/pairs.trace"
    t.write(path2)
    rc, out, err = run(report, "summary", "--json", path2)
    got = json.loads(out)
    check(got["commit_source"] == "nfsd_commit", "pair source")
    compare_lat("commit pairs", got["commit_latency_us"],
                expected(exp["commit"]))
    compare_lat("write pairs", got["write_latency_us"], expected(exp["write"]))
    check(got["unmatched_events"] == 0, "no unmatched pairs")
    rc, out, err = run(report, "summary", "--json", "--by", "file", path2)
    groups = {g["name"]: g for g in json.loads(out)["groups"]}
    want = {"fh_hash=" + fh: e for fh, e in exp["per_file"].items()}
    check(set(groups) == set(want), f"files {len(groups)} != {len(want)}")
    for name, e in list(want.items())[:50]:
        if name in groups:
            compare_lat(f"commit[{name}]", groups[name]["commit_latency_us"],
                        expected(e["commit"]))
            compare_lat(f"write[{name}]", groups[name]["write_latency_us"],
                        expected(e["write"]))

    # 5. Ganesha's fsyncs.
    t, lat = ganesha_trace(rng, 500)
    path3 = f"{work}/ganesha.trace"
    t.write(path3)
    rc, out, err = run(report, "summary", "--json", path3)
    got = json.loads(out)
    check(got["commit_source"] == "fsync", "fsync source")
    compare_lat("fsync", got["commit_latency_us"], expected(lat))

    # 6. compare: ratios of independently known figures.
    rc, out, err = run(report, "compare", "--json", path, path2)
    check(rc == 0, f"compare exit {rc}: {err}")
    got = json.loads(out)
    a = json.loads(run(report, "summary", "--json", path)[1])
    b = json.loads(run(report, "summary", "--json", path2)[1])
    for key, fig in (("commit p50 (us)", "p50"), ("commit p99 (us)", "p99"),
                     ("commit max (us)", "max")):
        want = b["commit_latency_us"][fig] / a["commit_latency_us"][fig]
        check(abs(got["ratio"][key] - want) <= 1e-5 * want,
              f"ratio {key} {got['ratio'][key]} != {want}")
    rc, out, err = run(report, "compare", path, path2)
    check("commit p50 (us)" in out and "B/A" in out, "compare text")

    # 7. Errors: a missing file, an impossible grouping.
    rc, out, err = run(report, "summary", f"{work}/does-not-exist")
    check(rc == 1 and "does-not-exist" in err, f"missing file: {rc} {err}")
    rc, out, err = run(report, "summary", "--by", "nosuch", path)
    check(rc == 2 and "export" in err, f"--by nosuch: {rc} {err}")

    # 7b. The kprobe on nfsd_commit: every version's COMMIT, per export.
    t, lat, per_export, v3, per_owner = kprobe_trace(rng, 400)
    kpath = f"{work}/kprobe.trace"
    t.write(kpath)
    rc, out, err = run(report, "summary", "--json", "--by", "export", kpath)
    check(rc == 0, f"kprobe summary exit {rc}: {err}")
    got = json.loads(out)
    check(got["commit_source"] == "kprobe:nfsd_commit",
          f"kprobe source: {got['commit_source']}")
    compare_lat("kprobe commit", got["commit_latency_us"], expected(lat))
    check(got["by"] == "export", "by export")
    groups = {g["name"]: g for g in got["groups"]}
    check(set(groups) == set(per_export), f"exports {sorted(groups)}")
    for name, e in per_export.items():
        if name in groups:
            compare_lat(f"commit[{name}]", groups[name]["commit_latency_us"],
                        expected(e))
    # Only the NFSv3 COMMITs: svc_stats_latency, which saw fewer, yields.
    check(len(v3) < len(lat), "the fixture has NFSv4 COMMITs")
    v3_only = [line for line in t.lines if "nfswb_commit" not in line]
    with open(f"{work}/v3only.trace", "w") as f:
        f.write("\n".join(v3_only) + "\n")
    got = json.loads(run(report, "summary", "--json",
                         f"{work}/v3only.trace")[1])
    check(got["commit_source"] == "svc_stats_latency",
          f"without the kprobe: {got['commit_source']}")
    compare_lat("v3 commit", got["commit_latency_us"], expected(v3))
    # The client comes from the RPC with the same xid (NFSv3 here).
    rc, out, err = run(report, "summary", "--json", "--by", "client", kpath)
    got = json.loads(out)
    named = sum(g["commit_latency_us"]["count"] for g in got["groups"]
                if g["name"] != "unknown")
    check(named >= len(v3), f"clients named for {named} of {len(v3)} v3")
    rc, out, err = run(report, "summary", kpath)
    check("kprobe:nfsd_commit" in out, "text names the kprobe source")
    # Per owner: uid 4242 has no name here, so libnfsidmap's fallback is
    # the number; uid 0 is named (root@DOMAIN) or "0" without idmapd.conf.
    rc, out, err = run(report, "summary", "--json", "--by", "owner", kpath)
    check(rc == 0, f"--by owner exit {rc}: {err}")
    got = json.loads(out)
    groups = {g["name"]: g for g in got["groups"]}
    check(len(groups) == 2 and "4242" in groups, f"owners {sorted(groups)}")
    if "4242" in groups:
        compare_lat("commit[4242]", groups["4242"]["commit_latency_us"],
                    expected(per_owner[4242]))
        root = [n for n in groups if n != "4242"]
        if root:
            compare_lat(f"commit[{root[0]}]",
                        groups[root[0]]["commit_latency_us"],
                        expected(per_owner[0]))

    # 8. An empty trace: zero counts, null figures, no crash.
    open(f"{work}/empty.trace", "w").close()
    rc, out, err = run(report, "summary", "--json", f"{work}/empty.trace")
    got = json.loads(out)
    compare_lat("empty", got["commit_latency_us"], expected([]))

    # 9. plot: a valid SVG with one dot per COMMIT and the device lines.
    t, commits, kicks = device_trace(rng)
    path4 = f"{work}/device.trace"
    t.write(path4)
    rc, out, err = run(report, "plot", "-o", f"{work}/p.svg", path4)
    check(rc == 0, f"plot exit {rc}: {err}")
    import xml.etree.ElementTree as ET
    ns = "{http://www.w3.org/2000/svg}"
    try:
        root = ET.parse(f"{work}/p.svg").getroot()
        dots = [c for c in root.iter(ns + "circle")
                if c.get("class") == "dot"]
        # The legend's dot is "dot s0", apart from the COMMITs'.
        check(len(dots) == len(commits),
              f"dots {len(dots)} != {len(commits)}")
        lines = list(root.iter(ns + "polyline"))
        check(len(lines) == 2, f"polylines {len(lines)}")
        npts = len(lines[0].get("points").split()) if lines else 0
        check(npts == 300, f"dirty points {npts}")
        ticks = [x for x in root.iter(ns + "line")
                 if "kick" in (x.get("class") or "").split()]
        check(len(ticks) == kicks + 1, f"kick ticks {len(ticks)}")
        width = float(root.get("width"))
        for c in dots:
            check(0 <= float(c.get("cx")) <= width, "dot inside")
    except ET.ParseError as e:
        check(False, f"plot SVG does not parse: {e}")
    rc, out, err = run(report, "plot", "-o", f"{work}/p.jpg", path4)
    check(rc == 2 and ".svg or .png" in err, "plot refuses other formats")
    if shutil.which("rsvg-convert"):
        rc, out, err = run(report, "plot", "-o", f"{work}/p.png", path4)
        check(rc == 0, f"plot png exit {rc}: {err}")
        with open(f"{work}/p.png", "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", "PNG signature")
        check(not [n for n in os.listdir(work) if n.startswith("p.png.")],
              "temporary SVG removed")

    # 10. plot -S: the lab's JSON-lines samples draw the same lines as
    # the equivalent '# nfswb-sample' comments (kB and kBps scaled).
    plain, jsonl = [], []
    for line in t.lines:
        if line.startswith("# nfswb-sample"):
            f = dict(kv.split("=", 1) for kv in line.split()[2:])
            dirty_kb = int(f["dirty"]) // 1024
            bw_kb = int(f["bandwidth"]) // 1024
            jsonl.append('{"t": %s, "dev.BdiReclaimable": %d, '
                         '"dev.BdiWriteBandwidth": %d, "mem.Dirty": 5}'
                         % (f["t"], dirty_kb, bw_kb))
            plain.append("# nfswb-sample t=%s bdi=dev dirty=%d "
                         "bandwidth=%d" % (f["t"], dirty_kb * 1024,
                                           bw_kb * 1024))
        else:
            plain.append(line)
    jsonl.insert(7, "not json")
    with open(f"{work}/lab.trace", "w") as f:
        f.write("\n".join(l for l in plain
                          if not l.startswith("# nfswb-sample")) + "\n")
    with open(f"{work}/lab.samples.trace", "w") as f:
        f.write("\n".join(plain) + "\n")
    with open(f"{work}/samples.jsonl", "w") as f:
        f.write("\n".join(jsonl) + "\n")
    rc, out, err = run(report, "plot", "-S", f"{work}/samples.jsonl",
                       "-o", f"{work}/j.svg", f"{work}/lab.trace")
    check(rc == 0, f"plot -S exit {rc}: {err}")
    check(f"{work}/samples.jsonl:8: not a sample line" in err,
          f"bad JSON line reported: {err}")
    rc, out, err = run(report, "plot", "-o", f"{work}/c.svg",
                       f"{work}/lab.samples.trace")
    pj = [p.get("points") for p in
          ET.parse(f"{work}/j.svg").getroot().iter(ns + "polyline")]
    pc = [p.get("points") for p in
          ET.parse(f"{work}/c.svg").getroot().iter(ns + "polyline")]
    check(len(pj) == 2 and pj == pc, "JSON-lines samples plot the same")

    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
