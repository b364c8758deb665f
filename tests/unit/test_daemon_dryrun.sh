#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd --dry-run --once: one decision per device on stdout and a valid
# status.json; nfs.conf [nfswbd] settings apply and the command line wins;
# acting without --dry-run is refused while no mechanism can act.
. "${srcdir:-.}/unit/daemon-lib.sh"

cat > "$WORK/a.exports" <<EOT
$WORK/export1  (background_time=2s,commit_target=4s)
EOT
printf '[nfswbd]\ninterval = 50ms\n' > "$WORK/nfs.conf"

out=$(timeout 20 "$NFSWBD" --dry-run --once -c "$WORK/a.exports" \
	--nfs-conf "$WORK/nfs.conf" --state-dir "$WORK/state" 2>"$WORK/err")
rc=$?
[ $rc -eq 0 ] || fail "--once: exit $rc: $(cat "$WORK/err")"
case "$out" in
"dry-run: bdi $BDI "*target*kick*cap*) ;;
*) fail "--once: no decision for bdi $BDI on stdout: $out" ;;
esac
st="$WORK/state/status.json"
json_valid "$st" || fail "status.json is not valid JSON"
[ "$(json_get "$st" 'd["mode"]')" = dry-run ] || fail "status mode"
[ "$(json_get "$st" 'd["interval_ms"]')" = 50 ] ||
	fail "[nfswbd] interval = 50ms not applied"
[ "$(json_get "$st" 'd["devices"][0]["bdi"]')" = "$BDI" ] || fail "status bdi"
[ "$(json_get "$st" 'd["devices"][0]["exports"]')" = "['$WORK/export1']" ] ||
	fail "status exports"
[ "$(json_get "$st" 'd["devices"][0]["commit_target_ms"]')" = 4000 ] ||
	fail "status commit_target_ms"
# bandwidth x background_time, and never below the policy's floor.
dev0='d["devices"][0]'
json_get "$st" "abs($dev0[\"target_bytes\"] - max(8 << 20, $dev0[\"bandwidth\"][\"bytes_per_s\"] * 2)) <= $dev0[\"target_bytes\"] // 100" |
	grep -qx True ||
	fail "target_bytes is not bandwidth x background_time"
src=$(json_get "$st" 'd["devices"][0]["dirty_source"]')
case "$src" in
debugfs-bdi|vmstat-global) ;;
*) fail "dirty_source '$src' in a dry run" ;;
esac
[ -e "$WORK/state/nfswbd.pid" ] && fail "--once left its pid file"

# The command line overrides nfs.conf.
timeout 20 "$NFSWBD" --dry-run --once --interval 200ms -c "$WORK/a.exports" \
	--nfs-conf "$WORK/nfs.conf" --state-dir "$WORK/state" >/dev/null 2>&1 ||
	fail "--interval 200ms run failed"
[ "$(json_get "$st" 'd["interval_ms"]')" = 200 ] ||
	fail "--interval did not override nfs.conf"

# Acting is not available yet: say so and fail, do not pretend.
timeout 20 "$NFSWBD" --once -c "$WORK/a.exports" --nfs-conf "$WORK/nfs.conf" \
	--state-dir "$WORK/state2" >/dev/null 2>"$WORK/err"
rc=$?
[ $rc -eq 1 ] || fail "without --dry-run: exit $rc, expected 1"
grep -q "dry-run" "$WORK/err" || fail "without --dry-run: no hint: $(cat "$WORK/err")"
exit 0
