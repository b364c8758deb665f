#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd --status: one screen per device from the running daemon's
# status.json (read through lib's parser), --json as the document, and
# clear errors for a state directory without a daemon or a broken file.
. "${srcdir:-.}/daemon/daemon-lib.sh"

echo "$WORK/export1 (background_time=2s)" > "$WORK/a.exports"
"$NFSWBD" -F --dry-run -c "$WORK/a.exports" --nfs-conf "$NFS_CONF" \
	--state-dir "$WORK/state" 2>"$WORK/err" &
PIDS="$PIDS $!"
wait_for 10 test -s "$WORK/state/status.json" ||
	fail "no status.json within 10 s: $(cat "$WORK/err")"

out=$("$NFSWBD" --status --state-dir "$WORK/state") || fail "--status failed"
echo "$out"
for want in "^nfswbd .*, pid [0-9]*, dry-run, interval 100ms\\( (sampling every [0-9]*ms)\\)\\{0,1\\}$" \
	"^  up          [0-9]*m[0-9]*s (since 20[0-9-]* [0-9:]*), status written [0-9.]* s ago$" \
	"^  reloads     0$" "^  metrics     off$" "^  last error  none$" \
	"^$BDI  " "^  exports     $WORK/export1$" "^  mode        auto" \
	"^  bandwidth   .*/s (cold" "^  target      [0-9.]*MiB " "^  kicks       0 " \
	"^  errors      0$"; do
	echo "$out" | grep -q -- "$want" || fail "--status lacks '$want'"
done
"$NFSWBD" --status --json --state-dir "$WORK/state" > "$WORK/st.json" ||
	fail "--status --json failed"
[ "$(json_get "$WORK/st.json" '.devices[0].bdi')" = "$BDI" ] ||
	fail "--status --json is not the status document"
# 2 s x cold 32 MiB/s until 2 s of writes are measured; then the
# device's write rate (idle: 0) paces it, down to the 8 MiB floor, and
# --status shows the rate.
json_get "$WORK/st.json" '.devices[0] | .bandwidth.write_rate_bytes_per_s as $r
	| if $r == null then .target_bytes == 67108864
	  else ([8388608, ([$r * 2, 67108864] | min)] | max) as $w
	       | (.target_bytes - $w) | fabs <= $w / 100 + 1 end' |
	grep -qx true || fail "target and write rate: $(jq -c '.devices[0] | {target_bytes, bandwidth}' "$WORK/st.json")"
sleep 3
"$NFSWBD" --status --state-dir "$WORK/state" | grep -q "^  bandwidth   .*, writing [0-9.]*[KMG]*i*B/s$" ||
	fail "--status does not show the write rate after 3 s: $("$NFSWBD" --status --state-dir "$WORK/state" | grep bandwidth)"

# A device standing by says so, with its count of intervals; one that
# does not, does not.  (The same document, standby set, in a state dir
# of its own: the running daemon's own flag changes with the host.)
mkdir -m 700 "$WORK/sbstate" || fail "mkdir"
python3 - "$WORK/st.json" "$WORK/sbstate/status.json" <<'PY' || fail "python3"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["devices"][0]["standby"] = True
doc["devices"][0]["standby_intervals"] = 7
json.dump(doc, open(sys.argv[2], "w"))
PY
"$NFSWBD" --status --state-dir "$WORK/sbstate" | grep -q "^  standing by 7 intervals: " ||
	fail "--status does not say the device stands by"
python3 - "$WORK/sbstate/status.json" <<'PY' || fail "python3"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["devices"][0]["standby"] = False
json.dump(doc, open(sys.argv[1], "w"))
PY
! "$NFSWBD" --status --state-dir "$WORK/sbstate" | grep -q "standing by" ||
	fail "--status says standing by for a device that measures"
# One whose clients commit often says it does nothing, and why.
python3 - "$WORK/sbstate/status.json" <<'PY' || fail "python3"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["devices"][0]["commits_often"] = True
doc["devices"][0]["commits_often_samples"] = 12
json.dump(doc, open(sys.argv[1], "w"))
PY
"$NFSWBD" --status --state-dir "$WORK/sbstate" |
	grep -q "^  doing nothing: the clients' COMMITs keep the backlog small (12 samples)$" ||
	fail "--status does not say the clients commit often"

# A failed reload, then a good one: counted, dated, the error kept.
pid=${PIDS# }
echo "/nonexistent/x (mode=bogus)" >> "$WORK/a.exports"
kill -HUP "$pid"
failed() { json_get "$WORK/state/status.json" .failed_reloads | grep -qx 1; }
wait_for 10 failed || fail "a failed reload is not counted in status.json"
echo "$WORK/export1 (background_time=2s)" > "$WORK/a.exports"
kill -HUP "$pid"
reloaded() { json_get "$WORK/state/status.json" .reloads | grep -qx 1; }
wait_for 10 reloaded || fail "a reload is not counted in status.json"
out=$("$NFSWBD" --status --state-dir "$WORK/state") || fail "--status failed"
echo "$out" | grep -q "^  reloads     1, last 20[0-9-]* [0-9:]*, 1 failed (previous configuration kept)$" ||
	fail "--status after reloads: $out"
echo "$out" | grep -q "^  last error  20[0-9-]* [0-9:]*: reload failed with 1 error(s)" ||
	fail "--status does not show the last error: $out"
json_get "$WORK/state/status.json" '(.time_s - .start_time_s) >= 0 and .time_s > 1600000000 and (.last_reload_s >= .start_time_s) and (.last_error.message | test("reload failed"))' |
	grep -qx true || fail "status.json run fields: $(jq -c '{time_s,start_time_s,last_reload_s,last_error}' "$WORK/state/status.json")"

"$NFSWBD" --status --state-dir "$WORK/none" 2>"$WORK/err.none"
[ $? = 1 ] || fail "no daemon: exit is not 1"
grep -q "is nfswbd running" "$WORK/err.none" || fail "no daemon: $(cat "$WORK/err.none")"
mkdir "$WORK/bad"
printf '{"devices": [{"bdi": "8:0",\n "exports": [}' > "$WORK/bad/status.json"
"$NFSWBD" --status --state-dir "$WORK/bad" 2>"$WORK/err.bad"
[ $? = 2 ] || fail "broken status.json: exit is not 2"
grep -q "status.json:2: not nfswbd's status (byte 41: unexpected character)" "$WORK/err.bad" ||
	fail "broken status.json: $(cat "$WORK/err.bad")"
exit 0
