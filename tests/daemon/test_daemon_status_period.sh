#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# status.json and the metrics are rewritten every status-interval, also
# while the only device stands by and is sampled once a second: the
# status has its own schedule, not the samples'.  (Publishing only at a
# sample once status-interval had passed stretched the 1 s default to
# 2 s, and a scrape right after a burst of COMMITs missed half of them.)
. "${srcdir:-.}/daemon/daemon-lib.sh"

root="$WORK/root"
fake_sysroot "$root"
printf 'BdiWriteback:            0 kB\nBdiReclaimable:          0 kB\n' \
	> "$root/sys/kernel/debug/bdi/$majmin/stats"
# 10 s at the initial 32 MiB/s: a 320 MiB target, standby samples at 1 s.
echo "$WORK/export1  (background_time=10s)" > "$WORK/a.exports"
st="$WORK/state/status.json"

# median_gap SECONDS: the median time (daemon's clock, ms) between two
# rewrites of status.json seen over SECONDS, read every 20 ms: a reader
# that stalls on a loaded machine misses a few, which the median ignores.
median_gap() {
	local end last="" ms gaps=""
	end=$(( $(date +%s%N) / 1000000 + $1 * 1000 ))
	while [ $(( $(date +%s%N) / 1000000 )) -lt "$end" ]; do
		ms=$(json_get "$st" .monotonic_ms 2>/dev/null) || ms=
		if [ -n "$ms" ] && [ "$ms" != "$last" ]; then
			[ -n "$last" ] && gaps="$gaps $((ms - last))"
			last=$ms
		fi
		sleep 0.02
	done
	[ -n "$gaps" ] && printf '%s\n' $gaps | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

standing_by_at_1s() {
	json_get "$st" '.devices[0].standby and .sampling_ms == 1000' |
		grep -qx true
}

for period in 1000 250; do
	printf '[nfswbd]\nstatus-interval = %sms\n' "$period" > "$NFS_CONF"
	rm -rf "$WORK/state"
	"$NFSWBD" -F --dry-run --sysroot "$root" -c "$WORK/a.exports" \
		--nfs-conf "$NFS_CONF" --state-dir "$WORK/state" \
		2>"$WORK/err" &
	PIDS=$!
	wait_for 10 standing_by_at_1s ||
		fail "not standing by at 1 s: $(jq -c '{sampling_ms, d: .devices[0] | {standby, sampling_ms, target_bytes}}' "$st" 2>&1) $(cat "$WORK/err")"
	gap=$(median_gap 4)
	[ -n "$gap" ] || fail "status.json rewritten less than twice in 4 s"
	[ "$gap" -le $((period * 5 / 4)) ] ||
		fail "status-interval ${period}ms, standing by at 1 s: status.json rewritten every ${gap} ms"
	echo "ok: status-interval ${period}ms, sampled every 1 s: status.json rewritten every ${gap} ms"
	stop_daemon "$PIDS"
done
exit 0
