#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A device standing by is sampled less often: the time its backlog takes
# to reach the target at the device's rate (nfswb_policy_standby_interval_ms),
# here the 8 MiB floor at the initial 32 MiB/s estimate of an idle fake
# disk: 250 ms.  Once its backlog grows past half the target it is back
# to the sampling interval, and again longer once it stands by again.
. "${srcdir:-.}/daemon/daemon-lib.sh"

root="$WORK/root"
fake_sysroot "$root"
stats="$root/sys/kernel/debug/bdi/$majmin/stats"
# Rewritten in place, one write of the same length: the daemon holds the
# file open and re-reads it, as it does debugfs's.
reclaimable() {
	printf 'BdiWriteback:            0 kB\nBdiReclaimable:   %8u kB\n' "$1" \
		1<> "$stats"
}
reclaimable 0

echo "$WORK/export1  (background_time=1s)" > "$WORK/a.exports"
st="$WORK/state/status.json"
"$NFSWBD" -F --dry-run --sysroot "$root" -c "$WORK/a.exports" \
	--nfs-conf "$NFS_CONF" --state-dir "$WORK/state" 2>"$WORK/err" &
PIDS=$!

# sampling IS: status.json says the device stands by (or not) and the
# daemon samples every IS ms.
sampling() {
	json_get "$st" "[.devices[0].standby, .sampling_ms] == [$1, $2]" |
		grep -qx true
}
wait_for 10 sampling true 250 ||
	fail "standing by, not sampled every 250 ms: $(jq -c '{interval_ms, sampling_ms, d: .devices[0] | {standby, target_bytes, bandwidth}}' "$st" 2>&1) $(cat "$WORK/err")"

"$NFSWBD" --status --state-dir "$WORK/state" |
	grep -q "^nfswbd .*, interval 100ms (sampling every 250ms)$" ||
	fail "--status does not say it samples every 250 ms: $("$NFSWBD" --status --state-dir "$WORK/state" | head -1)"

# And it does: standby intervals counted over 2 s of status.json.
r=$(status_rate "$st" ".devices[0].standby_intervals" 2.5 1000) || exit 1
read -r per_s n ms <<<"$r"
[ "$per_s" -le 6 ] ||
	fail "standing by, $per_s samples/s ($n in $ms ms), expected about 4"
[ "$per_s" -ge 2 ] || fail "standing by, only $per_s samples/s"

# 6 MiB dirty: past half the 8 MiB target, measured every 100 ms again.
reclaimable 6144
wait_for 10 sampling false 100 ||
	fail "a growing backlog is not sampled every interval: $(jq -c '{sampling_ms, standby: .devices[0].standby}' "$st")"
reclaimable 0
wait_for 10 sampling true 250 || fail "standing by again, not sampled every 250 ms"
kill -0 $PIDS || fail "nfswbd died: $(cat "$WORK/err")"
exit 0
