#!/usr/bin/env python3
"""cpufit.py CELLDIR...: a run's server WRITE p99 against how often its
server had no CPU to spare while the WRITEs flowed.

For every CELLDIR/run-N/result.json (lab-analyze since 627ff7b): the
tuning (with the lab's flusher_nice where set), the run,
server_cpu.between_commits (the CPU's busy share and
the share of 100 ms sample intervals with no idle or iowait tick, over
the intervals that overlap no COMMIT) and the WRITE and COMMIT p99.
Prints the runs sorted by that all-busy share, the rank correlation of
the share with WRITE p99 over all runs (Spearman, ties ranked by
order), and the least-squares line WRITE p99 = a + b x share.  With
--svg FILE, also a scatter plot of the runs (one hollow marker shape per
tuning, a run on top of another drawn larger around it) with that line.
An analysis for RESULTS' twenty-third pass, not one of the lab's tools.
"""
import glob
import json
import os
import sys
from xml.sax.saxutils import escape


def runs(cells):
    for cell in cells:
        for path in sorted(glob.glob(os.path.join(cell, "run-*", "result.json"))):
            with open(path) as f:
                r = json.load(f)
            b = r.get("server_cpu", {}).get("between_commits")
            if not b or b.get("full_intervals") is None:
                print(f"{path}: no server_cpu.between_commits (lab-analyze "
                      "before 627ff7b, or no /proc/stat samples)", file=sys.stderr)
                continue
            nice = r.get("parameters", {}).get("flusher_nice", "kernel")
            yield {"tuning": r.get("tuning", "?") +
                   ("" if nice == "kernel" else f" (flusher nice {nice})"),
                   "run": os.path.basename(os.path.dirname(path)),
                   "busy": b["busy"], "full": b["full_intervals"],
                   "write_p99": r["write_latency_us"]["p99"] / 1e3,
                   "commit_p99": r["commit_latency_us"]["p99"] / 1e3}


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    out = [0] * len(v)
    for k, i in enumerate(order):
        out[i] = k
    return out


def pearson(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    return cov / (va * vb) ** 0.5 if va and vb else float("nan")


SHAPES = ("circle", "square", "triangle", "diamond", "cross")
COLOURS = ("#2a7", "#36c", "#c33", "#a5a", "#b80")


def marker(shape, x, y, colour, r=5):
    style = f'fill="none" stroke="{colour}" stroke-width="1.6"'
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" {style}/>'
    if shape == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" {style}/>'
    if shape == "triangle":
        pts = f"{x:.1f},{y - r - 1:.1f} {x - r - 1:.1f},{y + r:.1f} {x + r + 1:.1f},{y + r:.1f}"
        return f'<polygon points="{pts}" {style}/>'
    if shape == "diamond":
        pts = f"{x:.1f},{y - r - 2:.1f} {x + r + 2:.1f},{y:.1f} {x:.1f},{y + r + 2:.1f} {x - r - 2:.1f},{y:.1f}"
        return f'<polygon points="{pts}" {style}/>'
    return (f'<path d="M{x - r:.1f},{y - r:.1f}L{x + r:.1f},{y + r:.1f}'
            f'M{x - r:.1f},{y + r:.1f}L{x + r:.1f},{y - r:.1f}" {style}/>')


def svg(title, rows, a, b):
    W, H, L, R, T, B = 800, 420, 70, 290, 50, 50
    xmax = max(0.5, max(r["full"] for r in rows) * 1.1)
    ymax = max(r["write_p99"] for r in rows) * 1.1
    ystep = 20 if ymax <= 160 else 50
    ymax = ystep * (int(ymax / ystep) + 1)

    def X(v):
        return L + v / xmax * (W - L - R)

    def Y(v):
        return H - B - v / ymax * (H - B - T)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="20" font-size="14">{escape(title)}</text>',
           f'<text x="{L}" y="38">each run: server WRITE p99 against the share of '
           '100 ms samples between COMMITs with no idle CPU</text>',
           f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>',
           f'<line x1="{L}" y1="{H - B}" x2="{L}" y2="{T}" stroke="black"/>',
           f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">'
           'server CPU all busy between COMMITs (share of samples)</text>',
           f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 '
           f'{(T + H - B) / 2})" text-anchor="middle">server WRITE p99 (ms)</text>']
    x = 0.0
    while x <= xmax + 1e-9:
        out.append(f'<text x="{X(x):.0f}" y="{H - B + 16}" text-anchor="middle">{x:.1f}</text>')
        x += 0.1
    for y in range(0, int(ymax) + 1, ystep):
        out.append(f'<text x="{L - 6}" y="{Y(y) + 4:.0f}" text-anchor="end">{y}</text>')
        out.append(f'<line x1="{L}" y1="{Y(y):.0f}" x2="{W - R}" y2="{Y(y):.0f}" stroke="#ddd"/>')
    # The line ends where it leaves the axes, not over the title.
    x_end = xmax
    if a + b * x_end > ymax:
        x_end = (ymax - a) / b
    elif a + b * x_end < 0:
        x_end = -a / b
    out.append(f'<line x1="{X(0):.1f}" y1="{Y(a):.1f}" x2="{X(x_end):.1f}" '
               f'y2="{Y(a + b * x_end):.1f}" stroke="#888" stroke-dasharray="5 4"/>')
    # Stock first, then by name: one tuning keeps its marker across plots.
    tunings = sorted({r["tuning"] for r in rows}, key=lambda t: (t != "stock", t))
    drawn = []
    for r in rows:
        i = tunings.index(r["tuning"]) % len(SHAPES)
        x, y = X(r["full"]), Y(r["write_p99"])
        # A run on top of another is drawn larger around it, not hidden.
        near = sum(1 for px, py in drawn if abs(px - x) < 5 and abs(py - y) < 5)
        drawn.append((x, y))
        out.append(marker(SHAPES[i], x, y, COLOURS[i], 5 + 4 * near))
    kx = W - R + 20
    for n, t in enumerate(tunings):
        i = n % len(SHAPES)
        y = T + 10 + 22 * n
        out.append(marker(SHAPES[i], kx, y - 4, COLOURS[i]))
        out.append(f'<text x="{kx + 14}" y="{y}" fill="{COLOURS[i]}">{escape(t)}</text>')
    out.append(f'<text x="{kx}" y="{T + 10 + 22 * len(tunings) + 8}" fill="#555">'
               f'dashed: {a:.1f} + {b:.1f} x share ms</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    args = argv[1:]
    out_svg = title = None
    if args[:1] == ["--svg"] and len(args) >= 3:
        out_svg, args = args[1], args[2:]
    if args[:1] == ["--title"] and len(args) >= 3:
        title, args = args[1], args[2:]
    if not args:
        print("usage: cpufit.py [--svg FILE [--title TEXT]] CELLDIR...", file=sys.stderr)
        return 2
    rows = sorted(runs(args), key=lambda r: (r["full"], r["write_p99"]))
    if len(rows) < 3:
        print("cpufit.py: fewer than three runs with CPU samples", file=sys.stderr)
        return 1
    print("| tuning | run | CPU busy between COMMITs | 100 ms all busy | WRITE p99 ms | COMMIT p99 ms |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['tuning']} | {r['run']} | {r['busy']:.2f} | {r['full']:.2f} "
              f"| {r['write_p99']:.1f} | {r['commit_p99']:.1f} |")
    full = [r["full"] for r in rows]
    w99 = [r["write_p99"] for r in rows]
    n = len(rows)
    mf, mw = sum(full) / n, sum(w99) / n
    var = sum((x - mf) ** 2 for x in full)
    slope = sum((x - mf) * (y - mw) for x, y in zip(full, w99)) / var if var else 0.0
    print(f"\n{n} runs: Spearman rank correlation of the all-busy share with "
          f"WRITE p99 {pearson(ranks(full), ranks(w99)):.2f}; "
          f"WRITE p99 = {mw - slope * mf:.1f} + {slope:.1f} x share ms "
          f"(Pearson r {pearson(full, w99):.2f})")
    if out_svg:
        with open(out_svg, "w") as f:
            f.write(svg(title or "server WRITE p99 and the server's CPU",
                        rows, mw - slope * mf, slope))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
