#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-daemon.sh - what nfswbd itself costs beside a workload whose
# COMMITs come often: the lab's randwrite job (random writes of BS over a
# 256 MiB file, fsync every 2 MiB) at a fixed rate, by fio run under the
# name "nfsd" so that the files mode tracks it, on a scratch ext4 loop
# filesystem (its image on tmpfs with BENCH_DAEMON_TMPFS=1, so that the
# 20k writes/s of issue #16 reach the page cache, not a disk).  nfswbd
# runs in files mode on it.  Printed: the write rate fio achieved, the
# daemon's CPU (user + system of all its threads, io_uring workers
# included, from /proc/PID/stat) in % of one core, the share of its main
# thread and of the io_uring workers alive at the end (per-thread times
# of /proc/PID/task; an exited worker is only in the total), its peak
# RSS, the syscalls it made per sampling interval (strace -c, a second
# pass) and how many intervals it stood by.  Aim: < 1 % and < 16 MiB.
# With BENCH_DAEMON_IDLE=1 a second, idle ext4 loop filesystem is
# exported too, with BENCH_DAEMON_IDLE_OPTS (default background_min=256M:
# without debugfs its bound is the machine's nr_dirty, which the busy
# device and the host keep above a quarter of the 8 MiB default): a
# device standing by beside the busy one; the samples per second of each
# device are printed.
# Not a test: it prints numbers.
#
# Usage: bench-daemon.sh [seconds [rate [bs]]]  (defaults 60 4M 64K; 20k
# writes/s is 80M 4K); as root.  NFSWBD=path picks the daemon (default
# ../server/nfswbd); NFSWBD_ARGS adds options; BENCH_DAEMON_OPTS adds
# export options (e.g. background_min=512K,background_time=100ms: a
# target below the 2 MiB between two fsyncs, so that it acts on a fast
# device); BENCH_DAEMON_STRACE=file
# keeps strace's table of calls.  Build without --enable-sanitizers for
# meaningful numbers.
set -u
NFSWBD=${NFSWBD:-../server/nfswbd}
secs=${1:-60} rate=${2:-4M} bs=${3:-64K}
to_bytes() { numfmt --from=iec "$1"; }
bs_bytes=$(to_bytes "$bs") && rate_bytes=$(to_bytes "$rate") || exit 1
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (loop device, fanotify)" >&2; exit 77; }
for p in fio losetup mkfs.ext4 strace numfmt jq; do
	command -v $p >/dev/null || { echo "SKIP: $p is missing" >&2; exit 77; }
done
[ -x "$NFSWBD" ] || { echo "no daemon at $NFSWBD" >&2; exit 1; }
D=$(mktemp -d /var/tmp/nfswb-bench-daemon.XXXXXX) || exit 1
img=$D/disk.img
[ -n "${BENCH_DAEMON_TMPFS:-}" ] && img=/dev/shm/${D##*/}.img
LOOPS= MNTS= PIDS=
cleanup() {
	local p m l
	for p in $PIDS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	for m in $MNTS; do mountpoint -q "$m" && umount "$m"; done
	for l in $LOOPS; do losetup -d "$l"; done
	rm -rf "$D" "$img" "$img.idle"
}
trap cleanup EXIT
# loop_fs IMAGE SIZE MOUNTPOINT: an ext4 loop filesystem mounted there.
loop_fs() {
	local loop
	truncate -s "$2" "$1" && mkfs.ext4 -q -F "$1" || return 1
	loop=$(losetup -f --show "$1") || return 1
	LOOPS="$LOOPS $loop"
	mkdir "$3" && mount "$loop" "$3" || return 1
	MNTS="$MNTS $3"
}
loop_fs "$img" 1G "$D/mnt" || exit 1
[ -n "${BENCH_DAEMON_IDLE:-}" ] && { loop_fs "$img.idle" 64M "$D/idle" || exit 1; }
cp "$(command -v fio)" "$D/nfsd"
cat >"$D/job.fio" <<EOJ
[randwrite]
filename=$D/mnt/f
size=256M
bs=$bs
rw=randwrite
fsync=$((2 * 1024 * 1024 / bs_bytes))
rate=$rate
time_based=1
runtime=$((2 * secs + 20))
ioengine=psync
thread=1
EOJ
echo "$D/mnt (mode=files${BENCH_DAEMON_OPTS:+,$BENCH_DAEMON_OPTS})" >"$D/exports"
[ -n "${BENCH_DAEMON_IDLE:-}" ] &&
	echo "$D/idle (mode=files,${BENCH_DAEMON_IDLE_OPTS:-background_min=256M})" >>"$D/exports"
: >"$D/nfs.conf"
"$D/nfsd" --output=/dev/null "$D/job.fio" &
fio=$!
PIDS="$fio"
sleep 5
"$NFSWBD" ${NFSWBD_ARGS:-} -F -c "$D/exports" --nfs-conf "$D/nfs.conf" --state-dir "$D/st" \
	2>"$D/nfswbd.err" &
nfswbd=$!
PIDS="$nfswbd $PIDS"
sleep 3
kill -0 $nfswbd 2>/dev/null || { cat "$D/nfswbd.err" >&2; exit 1; }
# Write syscalls of fio's thread group (the job is a thread: thread=1).
writes() { awk '/^syscw:/ { print $2 }' "/proc/$fio/io"; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# CPU ns of the main thread (the first task) and of the other threads
# alive now (io_uring workers iou-wrk-*, the kick thread), schedstat's
# sum_exec_runtime: finer than the ticks of stat; and how often the
# main thread ran (its wakeups).
threads_ns() {
	local t main= runs rest=0 ns n
	for t in /proc/"$1"/task/*; do
		read -r ns _ n <"$t/schedstat" 2>/dev/null || continue
		if [ -z "$main" ]; then main=$ns runs=$n; else rest=$((rest + ns)); fi
	done
	echo "$main $rest $runs"
}
t0=$(ticks $nfswbd) s0=$(date +%s.%N) w0=$(writes)
read -r main0 rest0 runs0 < <(threads_ns $nfswbd)
# Per device: intervals stood by and samples ("samples" where the daemon
# counts them; a device standing by throughout has one per sample).
devs() { jq -r '.devices[] | "\(.standby_intervals) \(.samples // "-")"' "$D/st/status.json"; }
sb0=$(jq '.devices[0].standby_intervals' "$D/st/status.json")
devs0=$(devs)
load0=$(cut -d' ' -f1 /proc/loadavg)
sleep "$secs"
t1=$(ticks $nfswbd) s1=$(date +%s.%N) w1=$(writes)
read -r main1 rest1 runs1 < <(threads_ns $nfswbd)
hz=$(getconf CLK_TCK)
rss=$(awk '/VmHWM/ { print $2 }' "/proc/$nfswbd/status")
sb1=$(jq '.devices[0].standby_intervals' "$D/st/status.json")
devs1=$(devs)
kicks=$(grep -o '"kicks": *[0-9]*' "$D/st/status.json" | head -1 | grep -o '[0-9]*$')
interval=$(grep -o '"interval_ms": *[0-9]*' "$D/st/status.json" | grep -o '[0-9]*$')
timeout 10 strace -c -f -p $nfswbd -o "$D/strace.txt" 2>/dev/null
[ -n "${BENCH_DAEMON_TRACE:-}" ] && timeout 2 strace -f -T -p $nfswbd -o "$BENCH_DAEMON_TRACE" 2>/dev/null
[ -n "${BENCH_DAEMON_STRACE:-}" ] && cp "$D/strace.txt" "$BENCH_DAEMON_STRACE"
calls=$(awk '$NF == "total" { print $4 }' "$D/strace.txt")
load1=$(cut -d' ' -f1 /proc/loadavg)
echo "$secs s at $rate/s random $bs writes, fsync every 2 MiB, host load $load0 -> $load1"
awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s0="$s0" -v s1="$s1" -v rss="$rss" \
	-v ma="$main0" -v mb="$main1" -v ra="$rest0" -v rb="$rest1" -v wa="$runs0" -v wb="$runs1" -v w0="$w0" -v w1="$w1" \
	-v calls="${calls:-0}" -v sb0="${sb0:-0}" -v sb1="${sb1:-0}" -v k="${kicks:-0}" \
	-v iv="${interval:-100}" 'BEGIN {
	s = s1 - s0; n = s * 1000 / iv
	printf "fio wrote %.0f writes/s\n", (w1 - w0) / s
	printf "nfswbd CPU %.2f %% of one core (main thread %.3f %% in %.1f wakeups/s, other threads alive %.3f %%), peak RSS %.1f MiB\n",
		(b - a) / hz / s * 100, (mb - ma) / 1e7 / s, (wb - wa) / s, (rb - ra) / 1e7 / s, rss / 1024
	printf "%.1f syscalls/s (strace, 10 s), %.1f per %u ms interval; samples standing by: %d (%.0f intervals of %u ms), kicks %s\n",
		calls / 10, calls / 10 * iv / 1000, iv, sb1 - sb0, n, iv, k }'
openat=$(awk '$NF == "openat" { print $4 }' "$D/strace.txt")
echo "openat ${openat:-0} in 10 s ($(awk -v n="${openat:-0}" 'BEGIN { printf "%.1f", n / 10 }')/s)"
# Each device's samples and intervals stood by per second.
paste <(echo "$devs0") <(echo "$devs1") | awk -v s0="$s0" -v s1="$s1" '{
	s = s1 - s0
	printf "device %d: %.2f intervals standing by/s, %s samples/s\n", NR - 1,
		($3 - $1) / s, $2 == "-" ? "-" : sprintf("%.2f", ($4 - $2) / s) }'
