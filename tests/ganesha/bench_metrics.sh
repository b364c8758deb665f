#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench_metrics.sh - what nfswbd costs with its metrics on: the daemon in
# the files mode (acting) on an export of NFS-Ganesha on 127.0.0.1, with
# metrics-file, metrics-listen (scraped once a second here) and the
# COMMIT latency histogram from Ganesha's fsync calls, while nfswb-load
# sends small UNSTABLE WRITEs and a COMMIT every 4 MiB.  Prints the
# WRITE and COMMIT rates reached and nfswbd's CPU (user + system, from
# /proc/PID/stat) as a percentage of one core.  Aim: < 1 % at 20k
# WRITE/s.  Not a test: it prints numbers.
#
# Usage: bench_metrics.sh [seconds [clients [iodepth [wsize [dry]]]]]
# (defaults 20 4 16 4k); "dry" runs nfswbd with --dry-run, which attaches
# no mechanism, to tell the metrics' own cost from the files mode's.  As
# root.  Build without --enable-sanitizers for meaningful numbers.
set -u
srcdir=${srcdir:-$(dirname "$0")/..}
LOAD=${NFSWB_LOAD:-../tools/load/nfswb-load}
NFSWBD=${NFSWBD:-../server/nfswbd}
. "$srcdir/ganesha/ganesha-lib.sh"
g_isolate "$0" "$@"

secs=${1:-20} clients=${2:-4} iodepth=${3:-16} wsize=${4:-4k} dry=${5:-}
[ "$dry" = dry ] && dry=--dry-run
PIDS=
cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	g_stop
	rm -rf "$G_DIR" "${DISK:-}"
}
G_DIR=$(mktemp -d /tmp/nfswb-bench-metrics.XXXXXX) || exit 1
DISK=$(mktemp -d /var/tmp/nfswb-bench-disk.XXXXXX) || exit 1
trap cleanup EXIT
g_start "$DISK" || { echo "SKIP: $G_WHY" >&2; exit 77; }
port=$(g_free_port)

echo "$DISK (mode=files)" > "$G_DIR/nfswb.exports"
cat > "$G_DIR/nfs.conf" <<EOF
[nfswbd]
metrics-file = $G_DIR/nfswb.prom
commit-latency = yes
commit-latency-pid-file = $G_DIR/ganesha.pid
EOF
"$NFSWBD" -F $dry -c "$G_DIR/nfswb.exports" --nfs-conf "$G_DIR/nfs.conf" \
	--state-dir "$G_DIR/state" --metrics-listen "127.0.0.1:$port" \
	2>"$G_DIR/nfswbd.err" &
nfswbd=$!
PIDS="$PIDS $nfswbd"
sleep 2
grep -q "commit latency from" "$G_DIR/nfswbd.err" ||
	{ echo "nfswbd did not start its histogram:" >&2; cat "$G_DIR/nfswbd.err" >&2; exit 1; }

# A scraper, as Prometheus would be (once a second instead of 15 s).
( while :; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep 1; done ) &
PIDS="$PIDS $!"

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
t0=$(ticks $nfswbd)
s0=$(date +%s.%N)
timeout $((secs + 120)) "$LOAD" --server "127.0.0.1:$G_NFS_PORT" --mount-port "$G_MNT_PORT" \
	--export "$DISK" --clients "$clients" --iodepth "$iodepth" --wsize "$wsize" \
	--size 64M --commit-every 4M --duration "${secs}s" --json >"$G_DIR/load.json" ||
	{ echo "nfswb-load failed" >&2; exit 1; }
t1=$(ticks $nfswbd)
s1=$(date +%s.%N)
python3 - "$G_DIR/load.json" "$t0" "$t1" "$s0" "$s1" "$(getconf CLK_TCK)" \
	"$G_DIR/nfswb.prom" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t0, t1, s0, s1, hz = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
wall = s1 - s0
run = d["write"]["runtime_ms"] / 1000.0
commits = sum(float(l.split()[-1]) for l in open(sys.argv[7])
              if l.startswith("nfswb_commit_latency_seconds_count"))
print("WRITE/s %.0f (%d WRITEs of %d bytes in %.1f s), COMMIT/s %.1f (%d sent, %d in the histogram)"
      % (d["write"]["ops"] / run, d["write"]["ops"], d["wsize"], run,
         d["commit"]["ops"] / run, d["commit"]["ops"], commits))
print("nfswbd CPU: %.2f %% of one core (%d ticks of 1/%d s over %.1f s)"
      % (100.0 * (t1 - t0) / hz / wall, t1 - t0, hz, wall))
EOF
