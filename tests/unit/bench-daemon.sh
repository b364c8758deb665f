#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-daemon.sh - what nfswbd itself costs beside a workload whose
# COMMITs come often: the lab's randwrite job (64 KiB random writes over
# a 256 MiB file, fsync every 2 MiB) at a fixed rate, by fio run under
# the name "nfsd" so that the files mode tracks it, on a scratch ext4
# loop filesystem.  nfswbd runs in files mode on it, acting.  Printed:
# the daemon's CPU (user + system of all its threads, io_uring workers
# included, from /proc/PID/stat) in % of one core, its peak RSS, the
# syscalls it made per interval (strace -c, a second pass), and whether
# it stood by.  Aim: < 1 % and < 16 MiB.  Not a test: it prints numbers.
#
# Usage: bench-daemon.sh [seconds [rate]]   (defaults 60 4M); as root.
# NFSWBD=path picks the daemon (default ../server/nfswbd);
# BENCH_DAEMON_STRACE=file keeps strace's table of calls.  Build without
# --enable-sanitizers for meaningful numbers.
set -u
NFSWBD=${NFSWBD:-../server/nfswbd}
secs=${1:-60} rate=${2:-4M}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (loop device, fanotify)" >&2; exit 77; }
for p in fio losetup mkfs.ext4 strace; do
	command -v $p >/dev/null || { echo "SKIP: $p is missing" >&2; exit 77; }
done
[ -x "$NFSWBD" ] || { echo "no daemon at $NFSWBD" >&2; exit 1; }
D=$(mktemp -d /var/tmp/nfswb-bench-daemon.XXXXXX) || exit 1
LOOP= PIDS=
cleanup() {
	local p
	for p in $PIDS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	mountpoint -q "$D/mnt" && umount "$D/mnt"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$D"
}
trap cleanup EXIT
truncate -s 1G "$D/disk.img" && mkfs.ext4 -q -F "$D/disk.img" || exit 1
LOOP=$(losetup -f --show "$D/disk.img") || exit 1
mkdir "$D/mnt" && mount "$LOOP" "$D/mnt" || exit 1
cp "$(command -v fio)" "$D/nfsd"
cat >"$D/job.fio" <<EOJ
[randwrite]
filename=$D/mnt/f
size=256M
bs=64K
rw=randwrite
fsync=32
rate=$rate
time_based=1
runtime=$((2 * secs + 20))
ioengine=psync
EOJ
echo "$D/mnt (mode=files)" >"$D/exports"
: >"$D/nfs.conf"
"$D/nfsd" --output=/dev/null "$D/job.fio" &
PIDS="$!"
sleep 5
"$NFSWBD" -F -c "$D/exports" --nfs-conf "$D/nfs.conf" --state-dir "$D/st" \
	2>"$D/nfswbd.err" &
nfswbd=$!
PIDS="$nfswbd $PIDS"
sleep 3
kill -0 $nfswbd 2>/dev/null || { cat "$D/nfswbd.err" >&2; exit 1; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
t0=$(ticks $nfswbd) s0=$(date +%s.%N)
sleep "$secs"
t1=$(ticks $nfswbd) s1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
rss=$(awk '/VmHWM/ { print $2 }' "/proc/$nfswbd/status")
standby=$(grep -o '"standby_intervals": *[0-9]*' "$D/st/status.json" | grep -o '[0-9]*$')
kicks=$(grep -o '"kicks": *[0-9]*' "$D/st/status.json" | head -1 | grep -o '[0-9]*$')
timeout 10 strace -c -f -p $nfswbd -o "$D/strace.txt" 2>/dev/null
[ -n "${BENCH_DAEMON_STRACE:-}" ] && cp "$D/strace.txt" "$BENCH_DAEMON_STRACE"
calls=$(awk '$NF == "total" { print $4 }' "$D/strace.txt")
echo "$secs s at $rate/s random 64 KiB writes, fsync every 2 MiB"
awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s0="$s0" -v s1="$s1" -v rss="$rss" \
	-v calls="${calls:-0}" -v sb="${standby:-n/a}" -v k="${kicks:-0}" 'BEGIN {
	printf "nfswbd CPU %.2f %% of one core, peak RSS %.1f MiB, %.1f syscalls per 100 ms interval, intervals stood by: %s, kicks %s\n",
		(b - a) / hz / (s1 - s0) * 100, rss / 1024, calls / 100, sb, k }'
