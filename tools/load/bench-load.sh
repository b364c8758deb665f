#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-load.sh - is nfswb-load the bottleneck?  Runs it on loopback
# against NFS-Ganesha exporting a tmpfs (no disk in the way) with 1 and 4
# clients at --iodepth 1 and 8, 3 times each, and prints the median write MB/s, nfswb-load's
# own CPU time and Ganesha's CPU time over the same runs.  If the
# generator used a core while the server did not, the generator would be
# what is measured.
#
# Usage: bench-load.sh [NFSWB-LOAD [SIZE-PER-CLIENT]]   (as root)
# "load cpu %" is nfswb-load's user+system time over the run's wall time
# (100 = one core); "ganesha cpu s" is the server's over the same run.
# A measurement, not a test: it prints numbers and does not judge them.

set -u
here=$(cd "$(dirname "$0")" && pwd)
LOAD=${1:-$here/nfswb-load}
SIZE=${2:-256M}
REPEATS=3
. "$here/../../tests/ganesha/ganesha-lib.sh"
g_isolate "$0" "$@"

[ "$(id -u)" = 0 ] || { echo "bench-load: run as root (Ganesha, tmpfs)" >&2; exit 1; }
[ -x "$LOAD" ] || { echo "bench-load: $LOAD not built" >&2; exit 1; }

G_DIR=$(mktemp -d /tmp/nfswb-load-bench.XXXXXX) || exit 1
EXP=$G_DIR/tmpfs
cleanup() {
	g_stop
	umount "$EXP" 2>/dev/null
	rm -rf "$G_DIR"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkdir -p "$EXP"
mount -t tmpfs -o size=4g nfswb-load-bench "$EXP" ||
	{ echo "bench-load: cannot mount a tmpfs" >&2; exit 1; }
if ! g_start "$EXP"; then
	echo "bench-load: Ganesha did not start: $G_WHY" >&2
	exit 1
fi

# cpu_ticks PID: user+system clock ticks of a process so far
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
hz=$(getconf CLK_TCK)

echo "nfswb-load benchmark: Ganesha $(ganesha.nfsd -v 2>&1 | sed -n 's/.*Release = //p') on 127.0.0.1, tmpfs export, $SIZE per client, wsize 1M, unstable + COMMIT on close, medians of $REPEATS"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %7s %9s %9s %11s %11s %13s %14s\n" clients iodepth "MB/s" "MiB/s" "load cpu s" "load cpu %" "load cpu s/GiB" "ganesha cpu s"
for clients in 1 4; do
for depth in 1 8; do
	rows=()
	for r in $(seq $REPEATS); do
		g0=$(cpu_ticks "$G_PID")
		json=$("$LOAD" --server "127.0.0.1:$G_NFS_PORT" \
			--mount-port "$G_MNT_PORT" --export "$EXP" \
			--clients "$clients" --iodepth "$depth" --size "$SIZE" \
			--wsize 1M --json) ||
			{ echo "bench-load: nfswb-load failed" >&2; exit 1; }
		g1=$(cpu_ticks "$G_PID")
		rows+=("$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
cpu = d["cpu"]["user_s"] + d["cpu"]["sys_s"]
rt = d["write"]["runtime_ms"] / 1000
print("%.1f %.3f %.1f %.3f %.2f" % (d["write_mb_s"], cpu, 100 * cpu / rt if rt else 0,
      cpu / (d["write"]["bytes"] / 2**30),
      (int(sys.argv[2]) - int(sys.argv[3])) / int(sys.argv[4])))' \
			"$json" "$g1" "$g0" "$hz")")
		echo "  run $r, $clients client(s), iodepth $depth: ${rows[-1]}"
	done
	# The median run by MB/s.
	med=$(printf '%s\n' "${rows[@]}" | sort -n -k1,1 | sed -n "$(((REPEATS + 1) / 2))p")
	set -- $med
	printf "%-8s %7s %9s %9.1f %11s %11s %13s %14s\n" "$clients" "$depth" \
		"$1" "$(echo "$1 * 1000000 / 1048576" | bc -l)" "$2" "$3" "$4" "$5"
done
done
