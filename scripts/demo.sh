#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - the README's first run, in minutes and without a kernel build:
# NFS-Ganesha on 127.0.0.1 exports an ext4 image on a loop device whose
# writes are throttled to a disk-like 32 MiB/s (cgroup v1
# blkio.throttle.write_bps_device, or cgroup v2 io.max), nfswb-load writes
# 512 MiB at 16 MiB/s with a COMMIT every 128 MiB, once with the stock
# kernel settings and once with nfswbd (built-in defaults), and the COMMIT
# latency from nfswb-load and from nfswb-report is printed side by side.
# Everything it set up is removed again; it ends only processes it started.
#
#   make demo          (as root, after scripts/install-deps.sh && scripts/build.sh)
#
# NFSWB_DEMO_SIZE, NFSWB_DEMO_RATE, NFSWB_DEMO_COMMIT and NFSWB_DEMO_DISK
# (bytes/s) change the run.  Exit 0 done, 1 failed, 77 cannot run here.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${NFSWB_BUILDDIR:-$top}
NFSWBD=$build/server/nfswbd
LOAD=$build/tools/load/nfswb-load
REPORT=$build/tools/report/nfswb-report
size=${NFSWB_DEMO_SIZE:-512M}
rate=${NFSWB_DEMO_RATE:-16M}
commit=${NFSWB_DEMO_COMMIT:-128M}
disk_bps=${NFSWB_DEMO_DISK:-33554432}
me=demo

skip() { echo "$me: cannot run here: $*" >&2; exit 77; }
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
t0=$(date +%s)
say() { echo "$me: [$(( $(date +%s) - t0 ))s] $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (loop device, cgroup throttle, Ganesha)"
for p in "$NFSWBD" "$LOAD" "$REPORT"; do
	[ -x "$p" ] || skip "$p not built (scripts/build.sh)"
done
for c in losetup mkfs.ext4 python3; do
	command -v $c >/dev/null || skip "$c not installed (scripts/install-deps.sh)"
done

# Ganesha in a network and mount namespace of its own (see there).
. "$top/tests/ganesha/ganesha-lib.sh"
g_isolate "$0" "$@"

work=$(mktemp -d /var/tmp/nfswb-demo.XXXXXX) || fail "mktemp"
G_DIR=$work/ganesha
mkdir -p "$G_DIR"
LOOP= THROTTLE= CGROUP= WBD_PID= REC_PID=

cleanup() {
	local p
	for p in $WBD_PID $REC_PID; do
		kill -TERM "$p" 2>/dev/null && g_wait_gone "$p" 10
	done
	g_stop
	[ -n "$THROTTLE" ] && echo "$THROTTLE" > "$throttle_file" 2>/dev/null
	if [ -n "$CGROUP" ]; then
		cat "$CGROUP/cgroup.procs" 2>/dev/null | while read -r p; do
			echo "$p" > "${CGROUP%/*}/cgroup.procs"
		done
		rmdir "$CGROUP" 2>/dev/null
	fi
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	mountpoint -q "$work/backing" && umount "$work/backing"
	[ -n "${NFSWB_DEMO_SAVE:-}" ] && cp "$work"/*.log "$work"/*.json "$work"/*.rec "$work/state/status.json" "$NFSWB_DEMO_SAVE" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- the disk: an ext4 image on a loop device, writes throttled ---------
say "ext4 image on a loop device, writes throttled to $((disk_bps >> 20)) MiB/s"
# The image lives in RAM (a tmpfs in this mount namespace): the throttle
# is then the disk's only speed, whatever else the host's disk is doing.
mkdir "$work/backing" && mount -t tmpfs -o size=1200M nfswb-demo "$work/backing" ||
	fail "cannot mount a tmpfs for the image"
truncate -s 1G "$work/backing/img" && mkfs.ext4 -q -F "$work/backing/img" || fail "mkfs.ext4"
LOOP=$(losetup -f --show "$work/backing/img") || skip "no free loop device"
mkdir -p "$work/mnt" && mount "$LOOP" "$work/mnt" || fail "cannot mount $LOOP"
mkdir "$work/mnt/exp"
majmin=$(stat -c '%Hd:%Ld' "$work/mnt/exp")
loop_majmin=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')

if [ -f /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ]; then
	# cgroup v1: a limit in the root group holds for every writer of the
	# device, the flusher threads included.
	throttle_file=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
	echo "$loop_majmin $disk_bps" > "$throttle_file" ||
		skip "cannot write $throttle_file"
	THROTTLE="$loop_majmin 0"
	how="cgroup v1 blkio.throttle.write_bps_device"
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	# cgroup v2: writeback is charged to the group that dirtied the pages
	# (with the memory and io controllers on), so Ganesha goes into a
	# group with io.max.  Not tried yet on a cgroup v2 machine.
	grep -qw io /sys/fs/cgroup/cgroup.controllers || skip "cgroup v2 without the io controller"
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	echo +io > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	CGROUP=/sys/fs/cgroup/nfswb-demo.$$
	mkdir "$CGROUP" && echo "$loop_majmin wbps=$disk_bps" > "$CGROUP/io.max" ||
		skip "cannot set io.max in $CGROUP"
	how="cgroup v2 io.max"
else
	skip "neither cgroup v1 blkio nor cgroup v2 io is mounted under /sys/fs/cgroup"
fi

# --- the server -----------------------------------------------------------
say "NFS-Ganesha on 127.0.0.1 exporting $work/mnt/exp"
g_start "$work/mnt/exp" || skip "$G_WHY"
[ -n "$CGROUP" ] && echo "$G_PID" > "$CGROUP/cgroup.procs"
SRV=(--server "127.0.0.1:$G_NFS_PORT" --mount-port "$G_MNT_PORT" --timeout 120s)

# run NAME: one nfswb-load pass, recorded by nfswb-report.
run() {
	local name=$1 opts=()
	sync
	# The bdi's own stats where debugfs has them, nfswbd's view with it.
	[ -f "/sys/kernel/debug/bdi/$majmin/stats" ] && opts+=(-b "$majmin")
	[ -n "$WBD_PID" ] && opts+=(-s "$work/state/status.json")
	record_start "$REPORT" "$work/$name.rec" -p "$G_PID" "${opts[@]}" ||
		fail "nfswb-report record did not start: $(cat "$work/$name.rec.err")"
	say "$name: nfswb-load writes $size at $rate/s, a COMMIT every $commit"
	timeout 600 "$LOAD" "${SRV[@]}" --export "$work/mnt/exp" --size "$size" \
		--rate "$rate" --commit-every "$commit" --json > "$work/$name.load.json" ||
		fail "nfswb-load ($name) failed"
	kill -INT "$REC_PID"
	wait "$REC_PID"
	REC_PID=
	"$REPORT" summary --json "$work/$name.rec" > "$work/$name.report.json" ||
		fail "nfswb-report summary ($name) failed"
}

run stock

say "nfswbd: $work/mnt/exp with the built-in defaults"
echo "$work/mnt/exp" > "$work/demo.exports"
: > "$work/nfs.conf"
"$NFSWBD" -F -c "$work/demo.exports" --nfs-conf "$work/nfs.conf" \
	--state-dir "$work/state" 2> "$work/nfswbd.log" &
WBD_PID=$!
for _ in $(seq 50); do
	[ -s "$work/state/status.json" ] && break
	kill -0 "$WBD_PID" 2>/dev/null || fail "nfswbd exited: $(cat "$work/nfswbd.log")"
	sleep 0.1
done
sed 's/^/    /' "$work/nfswbd.log"
run nfswbd
kill -TERM "$WBD_PID"
wait "$WBD_PID" || fail "nfswbd did not exit cleanly: $(tail -n 5 "$work/nfswbd.log")"
WBD_PID=

# --- the table ------------------------------------------------------------
say "done; disk throttled by $how"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def ms(v):
    return "-" if v is None else f"{v / 1000:.0f} ms"
names = ["COMMITs", "COMMIT p50", "COMMIT p90", "COMMIT max"]
def figures(lat):
    return [str(lat["count"]), ms(lat.get("p50")), ms(lat.get("p90")), ms(lat.get("max"))]
col = {}
for n in ("stock", "nfswbd"):
    l = json.load(open(f"{w}/{n}.load.json"))
    r = json.load(open(f"{w}/{n}.report.json"))
    col[n] = (figures(l["commit_latency_us"]) + figures(r["commit_latency_us"]) +
              [f'{l["write"]["mb_s"]:.1f} MB/s', f'{l["write"]["runtime_ms"] / 1000:.1f} s'])
rows = ([f"{x} (nfswb-load)" for x in names] + [f"{x} (nfswb-report)" for x in names] +
        ["client write rate", "client write time"])
print(f"{'':26} {'stock':>10} {'nfswbd':>10}")
for i, name in enumerate(rows):
    print(f"{name:26} {col['stock'][i]:>10} {col['nfswbd'][i]:>10}")
PY
