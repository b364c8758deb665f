#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd --dry-run --once: one decision per device on stdout and a valid
# status.json; nfs.conf [nfswbd] settings apply and the command line wins;
# a dry run touches no restore journal.
. "${srcdir:-.}/daemon/daemon-lib.sh"

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
[ "$(json_get "$st" '.mode')" = dry-run ] || fail "status mode"
[ "$(json_get "$st" '.interval_ms')" = 50 ] ||
	fail "[nfswbd] interval = 50ms not applied"
[ "$(json_get "$st" '.devices[0].bdi')" = "$BDI" ] || fail "status bdi"
[ "$(json_get "$st" '.devices[0].exports')" = "[\"$WORK/export1\"]" ] ||
	fail "status exports"
[ "$(json_get "$st" '.devices[0].commit_target_ms')" = 4000 ] ||
	fail "status commit_target_ms"
[ "$(json_get "$st" '.devices[0].background_min_bytes')" = 8388608 ] ||
	fail "status background_min_bytes: not the 8 MiB default"
# bandwidth x background_time, and never below the policy's floor.
json_get "$st" '.devices[0] | ([8 * 1048576, .bandwidth.bytes_per_s * 2] | max) as $want
	| (.target_bytes - $want) | fabs <= $want / 100' | grep -qx true ||
	fail "target_bytes is not bandwidth x background_time"
src=$(json_get "$st" '.devices[0].dirty_source')
case "$src" in
debugfs-bdi|vmstat-global) ;;
*) fail "dirty_source '$src' in a dry run" ;;
esac
[ -e "$WORK/state/nfswbd.pid" ] && fail "--once left its pid file"

# The command line overrides nfs.conf.
timeout 20 "$NFSWBD" --dry-run --once --interval 200ms -c "$WORK/a.exports" \
	--nfs-conf "$WORK/nfs.conf" --state-dir "$WORK/state" >/dev/null 2>&1 ||
	fail "--interval 200ms run failed"
[ "$(json_get "$st" '.interval_ms')" = 200 ] ||
	fail "--interval did not override nfs.conf"

# A dry run must not open the restore journal: it changes nothing.
[ -e "$WORK/state/restore.journal" ] && fail "a dry run created a restore journal"
exit 0
