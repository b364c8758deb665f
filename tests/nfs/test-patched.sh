#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test-patched.sh: boot the lab guest on the kernel built with
# kernel-patch/6.12/series and check what the series promises:
#
#  1. knob 0 (the default): the export's bdi has dirty_background_time and
#     it reads 0, debugfs shows no time-based threshold (BdiBgTimeThresh 0
#     in every sample), the new tracepoints exist and wb_bg_time_kick never
#     fires; nfsd_commit_start/done trace the COMMITs.
#  2. knob 1000 ms during `stream`: wb_bg_time_kick fires for the disk's
#     bdi, every kick reports a threshold that is the bandwidth estimate
#     times one second (4 MB floor, capped by the background threshold)
#     and dirty data above it, and the disk's reclaimable dirty data stays
#     near that threshold while the client writes.
#  3. nfswbd mode=auto picks the kernel mechanism, the knob reads a value
#     within 1..10 x background_time while it runs (background_time scaled
#     by our bandwidth estimate over the kernel's) and 0 after SIGTERM.
#
# Part 2 uses the lab's `--tuning bdi-time=MS` (it writes MS to
# /sys/class/bdi/<vda's bdi>/dirty_background_time after knfsd is up).
# Skips (77) when qemu or the kernel source cannot be had.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$here/lab
top=$(cd "$here/../.." && pwd)
ksrc=${NFSWB_LAB_KSRC:-/usr/src/linux-source-6.12.tar.xz}
size=${NFSWB_TEST_SIZE:-384M}
me=test-patched

skip() { echo "$me: SKIP: $*" >&2; exit 77; }
fail() { echo "$me: FAIL: $*" >&2; exit 1; }

[[ ${NFSWB_LAB_TESTS:-yes} == no ]] &&
	skip "lab tests disabled (configure --disable-lab-tests, as make distcheck does): they boot qemu and build kernels"

command -v qemu-system-x86_64 >/dev/null ||
	skip "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
[[ -r $ksrc ]] || skip "no kernel source $ksrc (apt-get install linux-source-6.12)"
[[ -f $top/kernel-patch/6.12/series ]] || fail "kernel-patch/6.12/series is missing"

out=$(mktemp -d /var/tmp/nfswb-test-patched.XXXXXX) || fail "mktemp"

"$lab" kernel --patched >/dev/null ||
	fail "the patched guest kernel does not build (lab kernel --patched)"

# py DIR SCRIPT MESSAGE: run SCRIPT with the run directory as argv[1];
# it exits non-zero (printing why) when the check fails.
py() {
	local dir=$1 script=$2 msg=$3 why
	why=$(python3 -c "$script" "$dir" 2>&1) || fail "$msg: $why (see $dir)"
	[[ -n $why ]] && echo "$me: $why"
	return 0
}

# Helpers shared by the checks: samples.jsonl rows and trace events.
read -r -d '' common <<'EOF'
import json, os, re, sys
run = sys.argv[1]

def samples():
    rows = []
    with open(os.path.join(run, "samples.jsonl")) as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass        # the last line may be cut by the shutdown
    return rows

def events(name):
    pat = re.compile(r"\s" + name + r":\s(.*)$")
    found = []
    with open(os.path.join(run, "trace.txt")) as f:
        for line in f:
            m = pat.search(line)
            if m:
                found.append(dict(kv.split("=", 1)
                                  for kv in m.group(1).split() if "=" in kv))
    return found

def die(msg):
    print(msg)
    sys.exit(1)

# The disk's dirty_background_time in a bdi dump the lab wrote
# (bdi-before.txt, bdi-tuned.txt, bdi-after.txt: grep -H lines).
def knob(name):
    p = os.path.join(run, name)
    if not os.path.exists(p):
        die(name + " is missing: the lab did not record the bdi")
    for line in open(p):
        # PATH:VALUE, and the bdi in PATH is MAJ:MIN itself.
        path, _, value = line.rstrip("\n").rpartition(":")
        if path.endswith("/dirty_background_time"):
            return value.strip()
    die("no dirty_background_time in " + name)
EOF

# ---------------------------------------------------------------- knob 0

"$lab" run stream size="$size" --kernel patched --quiet --out "$out/off" \
	>/dev/null || fail "stream on the patched kernel failed (see $out/off)"
run=$out/off/run-1

py "$run" "$common"'
on = open(os.path.join(run, "trace-events.txt")).read().split()
for ev in ("writeback/wb_bg_time_kick", "nfsd/nfsd_commit_start",
           "nfsd/nfsd_commit_done"):
    if ev not in on:
        die(ev + " is not among the enabled trace events")
' "the patched kernel lacks a tracepoint of the series"

# The knob itself, as the lab found it before any tuning.
py "$run" "$common"'
v = knob("bdi-before.txt")
if v != "0":
    die("dirty_background_time reads %s, not 0, by default" % v)
' "the knob is not 0 by default"

py "$run" "$common"'
rows = samples()
if not rows:
    die("no samples")
vals = [r.get("bdi.BdiBgTimeThresh") for r in rows]
if any(v is None for v in vals):
    die("debugfs bdi stats lack BdiBgTimeThresh")
if any(vals):
    die("BdiBgTimeThresh is %d kB with the knob at its default" % max(vals))
kicks = events("wb_bg_time_kick")
if kicks:
    die("%d wb_bg_time_kick events with the knob at 0" % len(kicks))
starts, dones = events("nfsd_commit_start"), events("nfsd_commit_done")
if not starts or len(starts) != len(dones):
    die("nfsd_commit_start/done: %d/%d events" % (len(starts), len(dones)))
print("knob 0: BdiBgTimeThresh 0 in %d samples, no kicks, %d COMMITs traced"
      % (len(rows), len(starts)))
' "knob 0 is not today's behaviour"

# ------------------------------------------------------------- knob 1000

"$lab" run stream size="$size" --kernel patched --tuning bdi-time=1000 \
	--quiet --out "$out/on" >/dev/null ||
	fail "stream with dirty_background_time=1000 failed (see $out/on)"
run=$out/on/run-1

py "$run" "$common"'
kicks = events("wb_bg_time_kick")
if not kicks:
    die("no wb_bg_time_kick event during stream with the knob at 1000 ms")
bdis = set(k.get("bdi") for k in kicks)
if len(bdis) != 1 or next(iter(bdis), "0:").startswith("0:"):
    die("kicks for bdis %s, expected only the disk'\''s" % sorted(map(str, bdis)))
for k in kicks:
    rec, th = int(k["reclaimable_kb"]), int(k["thresh_kb"])
    bw, ms = int(k["avg_write_bw_kbps"]), int(k["bg_time_ms"])
    want = max(bw * ms // 1000, 4096)
    if ms != 1000:
        die("kick with bg_time_ms=%d" % ms)
    if rec <= th:
        die("kick with reclaimable %d kB <= threshold %d kB" % (rec, th))
    if th > want:   # below it only when capped at the background threshold
        die("threshold %d kB is above max(%d kB/s x 1 s, 4 MB)" % (th, bw))
# Dirty data the disk holds, against the threshold in effect at each
# sample.  Allow what arrives between a dirtier'\''s checks and the
# flusher'\''s start: 8 nfsd threads x ~1 MB ratelimit, plus 100 ms of wire.
rows = [r for r in samples() if r.get("bdi.BdiBgTimeThresh")]
if not rows:
    die("BdiBgTimeThresh stayed 0 with the knob at 1000 ms")
slack = 16 * 1024
over = [r for r in rows
        if r.get("bdi.BdiReclaimable", 0) > r["bdi.BdiBgTimeThresh"] + slack]
peak = max(r.get("bdi.BdiReclaimable", 0) for r in rows)
top = max(r["bdi.BdiBgTimeThresh"] for r in rows)
if len(over) > len(rows) // 10:
    die("reclaimable above threshold + 16 MB in %d of %d samples (peak %d kB, "
        "threshold up to %d kB)" % (len(over), len(rows), peak, top))
if peak > 2 * top + slack:
    die("reclaimable peaked at %d kB, threshold at most %d kB" % (peak, top))
print("knob 1000: %d kicks; reclaimable peak %d kB, threshold up to %d kB, "
      "%d of %d samples above threshold + 16 MB"
      % (len(kicks), peak, top, len(over), len(rows)))
' "dirty_background_time=1000 does not hold the dirty data near bandwidth x time"

# ------------------------------------------------- nfswbd's kernel mode

# The daemon on the patched kernel: mode=auto must pick the knob, write
# background_time to the disk's bdi while it runs and put 0 back when it
# is stopped (the lab sends SIGTERM after the scenario).
"$lab" run paced size=64M --kernel patched \
	--tuning nfswbd:auto,background_time=1500ms --quiet --out "$out/daemon" \
	>/dev/null || fail "paced with nfswbd on the patched kernel failed (see $out/daemon)"
run=$out/daemon/run-1

py "$run" "$common"'
r = json.load(open(os.path.join(run, "result.json")))
if r.get("nfswbd_mode") != "kernel":
    die("nfswbd chose mode %s, not kernel" % r.get("nfswbd_mode"))
# The daemon writes target / kernel estimate (write_bandwidth, 5/5), so
# the value is 1500 ms scaled by how far the kernel estimate is off,
# within 1..10 x 1500.
knob_ms = r.get("nfswbd_knob_ms") or 0
if not 1 <= knob_ms <= 15000:
    die("nfswbd reports knob %s ms, not within 1..15000" % knob_ms)
got = (knob("bdi-before.txt"), knob("bdi-tuned.txt"), knob("bdi-after.txt"))
if got[0] != "0" or got[2] != "0" or not 1 <= int(got[1]) <= 15000:
    die("dirty_background_time before/with/after nfswbd: %s/%s/%s, "
        "expected 0, 1..15000, 0" % got)
print("nfswbd: mode kernel, dirty_background_time %s -> %s (last %d) -> %s "
      "after SIGTERM" % (got[0], got[1], knob_ms, got[2]))
' "nfswbd did not set and restore the kernel knob"

rm -rf "$out"
exit 0
