#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A device in mode=off is only reported, so it is sampled once a second
# (as often as status.json is written), not every 100 ms interval: in
# the lab's TCG guest ten samples a second cost 2 % of the vCPU for a
# device the daemon leaves alone.
. "${srcdir:-.}/daemon/daemon-lib.sh"

root="$WORK/root"
fake_sysroot "$root"
echo "$WORK/export1  (mode=off)" > "$WORK/a.exports"
st="$WORK/state/status.json"
"$NFSWBD" -F --sysroot "$root" -c "$WORK/a.exports" \
	--nfs-conf "$NFS_CONF" --state-dir "$WORK/state" 2>"$WORK/err" &
PIDS=$!

off_sampled() {
	json_get "$st" '[.devices[0].mode, .devices[0].sampling_ms] == ["off", 1000]' |
		grep -qx true
}
wait_for 10 off_sampled ||
	fail "mode=off device not sampled every 1000 ms: $(jq -c '{interval_ms, sampling_ms, d: [.devices[] | {mode, sampling_ms, samples}]}' "$st" 2>&1) $(cat "$WORK/err")"

r=$(status_rate "$st" ".devices[0].samples" 3.5 10000) || exit 1
read -r per_10s n ms <<<"$r"
# About 10 in 10 s; the old daemon took 100.
[ "$per_10s" -ge 5 ] && [ "$per_10s" -le 15 ] ||
	fail "mode=off device sampled $n times in $ms ms, expected about one a second"
kill -0 $PIDS || fail "nfswbd died: $(cat "$WORK/err")"
exit 0
