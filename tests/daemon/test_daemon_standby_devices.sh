#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each device on its own schedule: beside a device whose backlog is past
# half its target, sampled every 100 ms interval, an idle one stands by
# and is sampled every 250 ms (the 8 MiB floor at the cold 32 MiB/s
# estimate, as in test_daemon_standby.sh), not every interval with the
# first.  Two fake disks under --sysroot: $WORK/export1's and a loop
# image's (root only), so that the two exports have a device each.
. "${srcdir:-.}/daemon/daemon-lib.sh"

loop_export 64M
root="$WORK/root"
fake_sysroot "$root"
busy=$majmin
idle=$(stat -c '%Hd:%Ld' "$WORK/mnt/exp")
mkdir -p "$root/sys/devices/fakeidle" "$root/sys/class/bdi/$idle" \
	"$root/sys/block/fakeidle" "$root/sys/kernel/debug/bdi/$idle"
ln -s ../../devices/fakeidle "$root/sys/dev/block/$idle"
echo "$idle" > "$root/sys/devices/fakeidle/dev"
echo "1 0 2 0 3 0 48 0 0 5 5 0 0 0 0 0 0" > "$root/sys/block/fakeidle/stat"
printf 'BdiWriteback: 0 kB\nBdiReclaimable: 6144 kB\n' \
	> "$root/sys/kernel/debug/bdi/$busy/stats"
printf 'BdiWriteback: 0 kB\nBdiReclaimable: 0 kB\n' \
	> "$root/sys/kernel/debug/bdi/$idle/stats"

printf '%s  (background_time=1s)\n' "$WORK/export1" "$WORK/mnt/exp" \
	> "$WORK/a.exports"
st="$WORK/state/status.json"
"$NFSWBD" -F --dry-run --sysroot "$root" -c "$WORK/a.exports" \
	--nfs-conf "$NFS_CONF" --state-dir "$WORK/state" 2>"$WORK/err" &
PIDS=$!

dev() { json_get "$st" ".devices[] | select(.bdi == \"$1\") | $2"; }
settled() {
	[ "$(dev "$busy" '[.standby, .sampling_ms]')" = "[false,100]" ] &&
	[ "$(dev "$idle" '[.standby, .sampling_ms]')" = "[true,250]" ]
}
wait_for 10 settled ||
	fail "not one device sampled every 100 ms and one standing by at 250 ms: $(jq -c '[.devices[] | {bdi, standby, sampling_ms, target_bytes, dirty_bytes}]' "$st" 2>&1) $(cat "$WORK/err")"
[ "$(json_get "$st" .sampling_ms)" = 100 ] ||
	fail "the daemon's sampling_ms is not the shortest device's"

# Samples over 2.5 s of status.json: the idle device stands by at each.
count() {
	json_get "$st" "[.monotonic_ms, (.devices[] | select(.bdi == \"$busy\") | .samples), (.devices[] | select(.bdi == \"$idle\") | .standby_intervals)] | @tsv"
}
read -r ms0 b0 i0 < <(count)
sleep 2.5
read -r ms1 b1 i1 < <(count)
[ "$ms1" -gt "$ms0" ] || fail "status.json not rewritten in 2.5 s"
busy_per_s=$(( (b1 - b0) * 1000 / (ms1 - ms0) ))
idle_per_s=$(( (i1 - i0) * 1000 / (ms1 - ms0) ))
[ "$idle_per_s" -le 6 ] && [ "$idle_per_s" -ge 2 ] ||
	fail "the idle device stood by at $idle_per_s samples/s ($((i1 - i0)) in $((ms1 - ms0)) ms), expected about 4"
[ "$busy_per_s" -ge 5 ] && [ "$busy_per_s" -gt "$idle_per_s" ] ||
	fail "the busy device had $busy_per_s samples/s, expected about 10"
kill -0 $PIDS || fail "nfswbd died: $(cat "$WORK/err")"
exit 0
