#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswb-report plot as people look at it: the legend stands clear of every
# point (it used to cover the slowest COMMIT in the top right corner),
# "plot A B" draws two traces in two colours with a median and p99 each,
# --cdf draws each trace's distribution up to 100 %, and a legend row of
# long paths and a long title end inside the picture.
. "${srcdir:-.}/unit/report-lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 reads the SVG" >&2; exit 77; }

# trace FILE SEED MEDIAN_US: 300 COMMITs over 30 s, the slowest last.
trace() {
	python3 - "$@" <<'PY'
import random, sys
path, seed, med = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
out = []
for i in range(300):
    us = int(rng.lognormvariate(0, 0.5) * med)
    out.append("            nfsd-71      [000] .....  %.6f: svc_stats_latency: xid=0x%x server=127.0.0.1:2049 client=10.0.0.1:800 proc=COMMIT execute-us=%d" % (1000 + i * 0.1, i + 1, us))
out.append("            nfsd-71      [000] .....  1030.000000: svc_stats_latency: xid=0x999 server=127.0.0.1:2049 client=10.0.0.1:800 proc=COMMIT execute-us=%d" % (med * 30))
open(path, "w").write("\n".join(out) + "\n")
PY
}
trace "$work/a" 1 40000
trace "$work/b" 2 8000

# svgcheck SVG: pycheck, one "DESCRIPTION | EXPR" per stdin line,
# over dots (list of (cx, cy, fill)), lines, polylines, texts and panel
# (the latency panel's frame: x, y, w, h).
svgcheck() {
	pycheck 'import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
cls = lambda e: (e.get("class") or "").split()
dots = [(float(c.get("cx")), float(c.get("cy")), c.get("style"))
        for c in root.iter(ns + "circle") if cls(c) == ["dot"]]
legend_dots = [c for c in root.iter(ns + "circle") if len(cls(c)) == 2]
lines = [(cls(l), float(l.get("y1")), float(l.get("x1")))
         for l in root.iter(ns + "line")]
# The lines of the panel itself (a legend sample is in a group of its own).
wide = [(c, y) for c, y, x in lines if c[1:] and c[0] in ("p50", "p99")]
polylines = [p for p in root.iter(ns + "polyline")]
frames = [r for r in root.iter(ns + "rect") if cls(r) == ["frame"]]
panel = [float(frames[0].get(k)) for k in ("x", "y", "width", "height")]
texts = [(float(t.get("y") or 0), "".join(t.itertext()))
         for t in root.iter(ns + "text")]' "$1"
}

"$report" plot -o "$work/one.svg" "$work/a" 2>"$work/err"
rc=$?
check "plot A exits 0 (got $rc): $(cat "$work/err")" test $rc = 0
svgcheck "$work/one.svg" <<'PY'
one: every COMMIT is a dot | len(dots) == 301
one: every dot lies inside the latency panel | all(panel[0] <= x <= panel[0] + panel[2] and panel[1] <= y <= panel[1] + panel[3] for x, y, _ in dots)
one: the legend (its dot and its texts) is above the panel | any(t == "median" for y, t in texts) and all(float(c.get("cy")) < panel[1] for c in legend_dots) and all(y < panel[1] for y, t in texts if "COMMITs from" in t or t == "median")
one: the slowest COMMIT is the highest dot | min(dots, key=lambda d: d[1])[0] == max(d[0] for d in dots)
PY

"$report" plot -o "$work/ab.svg" "$work/a" "$work/b" 2>"$work/err"
rc=$?
check "plot A B exits 0 (got $rc): $(cat "$work/err")" test $rc = 0
svgcheck "$work/ab.svg" <<'PY'
A B: 602 dots in two colours, 301 each | len(dots) == 602 and sorted(set(d[2] for d in dots)) == ["fill:#1f77b4", "fill:#ff7f0e"] and sum(d[2] == "fill:#1f77b4" for d in dots) == 301
A B: a median and a p99 for each | sorted(" ".join(c) for c, y in wide) == ["p50 s0", "p50 s1", "p99 s0", "p99 s1"]
A B: B's median is below A's (B is faster) | [y for c, y, x in lines if c == ["p50", "s1"]][0] > [y for c, y, x in lines if c == ["p50", "s0"]][0]
A B: each trace named in the legend | sum("COMMITs from" in t for y, t in texts) == 2
A B: no pooling: the title says A vs B | any(" vs " in t for y, t in texts)
PY

"$report" plot --cdf -o "$work/cdf.svg" "$work/a" "$work/b" 2>"$work/err"
rc=$?
check "plot --cdf exits 0 (got $rc): $(cat "$work/err")" test $rc = 0
svgcheck "$work/cdf.svg" <<'PY'
cdf: one curve per trace | len([p for p in polylines if p.get("class") == "cdf"]) == 2
cdf: each rises from 0 % to 100 % | all(abs(float(p.get("points").split()[0].split(",")[1]) - (panel[1] + panel[3])) < 0.1 and abs(float(p.get("points").split()[-1].split(",")[1]) - panel[1]) < 0.1 for p in polylines)
cdf: each never falls | all(all(float(b.split(",")[1]) <= float(a.split(",")[1]) + 1e-6 for a, b in zip(p.get("points").split(), p.get("points").split()[1:])) for p in polylines)
cdf: B left of A (faster) at the median | [x for c, y, x in lines if c == ["p50", "s1"]][0] < [x for c, y, x in lines if c == ["p50", "s0"]][0]
PY

# Traces under long paths (a lab's result directories): each legend row
# still ends inside the picture, keeping the end of the name, where the
# two differ.
long=$work/nfswb-lab-results/randwrite-nfswbd_auto-7.3-stock-20261201-124500/run-1
mkdir -p "$long-before" "$long-after"
cp "$work/a" "$long-before/trace.txt"
cp "$work/b" "$long-after/trace.txt"
"$report" plot -o "$work/long.svg" "$long-before/trace.txt" "$long-after/trace.txt" 2>"$work/err"
rc=$?
check "plot of long paths exits 0 (got $rc): $(cat "$work/err")" test $rc = 0
svgcheck "$work/long.svg" <<'PY'
long: each legend row fits the picture's 960 px (12 px text, <= 120 characters from x=104) | all(len(t) <= 120 for y, t in texts if "COMMITs from" in t)
long: and ends with each name's distinct end and its figures | sum(("run-1-before/trace.txt: " in t) + ("run-1-after/trace.txt: " in t) for y, t in texts if t.endswith(" ms") or t.endswith(" s") or t.endswith("µs")) == 2
PY

# A long title (-t) takes two lines, each inside the picture, and pushes
# the legend below them; a longer one still ends in an ellipsis.
title="seqwrite, nfswbd:auto at its defaults: one run with write delegations from the first file, one with none at all"
"$report" plot -t "$title" -o "$work/title.svg" "$work/a" "$work/b" 2>"$work/err"
rc=$?
check "plot -t LONG exits 0 (got $rc): $(cat "$work/err")" test $rc = 0
svgcheck "$work/title.svg" <<'PY'
title: two lines of at most 84 characters, the whole title | [t for y, t in texts][:2] == ["seqwrite, nfswbd:auto at its defaults: one run with write delegations from the first", "file, one with none at all"]
title: the legend rows below both lines | all(y > 46 + 12 for y, t in texts if "COMMITs from" in t)
title: every dot still inside the latency panel | all(panel[0] <= x <= panel[0] + panel[2] and panel[1] <= y <= panel[1] + panel[3] for x, y, _ in dots)
PY
"$report" plot -t "$title $title" -o "$work/title2.svg" "$work/a" 2>"$work/err"
svgcheck "$work/title2.svg" <<'PY'
title: a longer one is cut, its second line ending in an ellipsis | len([t for y, t in texts][1]) == 84 and [t for y, t in texts][1].endswith("\u2026")
PY

"$report" plot -S /dev/null -o "$work/x.svg" "$work/a" "$work/b" >/dev/null 2>"$work/err"
check "-S with two traces is a usage error" test $? = 2
exit $fail
