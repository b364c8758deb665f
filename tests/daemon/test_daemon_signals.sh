#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A running nfswbd -F --dry-run: status.json within 2 s; a second daemon
# on the same state directory is refused; SIGHUP with a broken file keeps
# the old configuration and logs the error, SIGHUP with a good one
# switches; SIGTERM exits 0 and removes the pid file.
. "${srcdir:-.}/daemon/daemon-lib.sh"

conf="$WORK/a.exports"
state="$WORK/state"
st="$state/status.json"
log="$WORK/log"
echo "$WORK/export1  (background_time=1s)" > "$conf"

exports_are() {
	[ "$(json_get "$st" '.devices[0].exports')" = "$1" ]
}
status_newer_than() {
	[ "$(json_get "$st" '.monotonic_ms')" -gt "$1" ]
}

"$NFSWBD" -F --dry-run -c "$conf" --nfs-conf "$NFS_CONF" \
	--state-dir "$state" 2>"$log" &
pid=$!
PIDS=$pid

wait_for 2 json_valid "$st" || fail "no valid status.json within 2 s: $(cat "$log")"
[ "$(json_get "$st" '.pid')" = $pid ] || fail "status pid"
[ "$(cat "$state/nfswbd.pid")" = $pid ] || fail "pid file"
exports_are "[\"$WORK/export1\"]" || fail "status exports before reload"

# A second daemon on the same state directory must not start.
timeout 10 "$NFSWBD" -F --dry-run -c "$conf" --nfs-conf "$NFS_CONF" \
	--state-dir "$state" 2>"$WORK/err2"
rc=$?
[ $rc -eq 1 ] || fail "second daemon: exit $rc, expected 1"
grep -q "another nfswbd (pid $pid)" "$WORK/err2" ||
	fail "second daemon: no clear message: $(cat "$WORK/err2")"

# A broken file: the error is logged, the old exports stay.
printf '%s\n' "$WORK/export2  (background_time=never)" > "$conf"
kill -HUP $pid
wait_for 3 grep -q "reload failed" "$log" || fail "no 'reload failed' in the log: $(cat "$log")"
grep -q "$conf:1: " "$log" || fail "the log does not name $conf:1: $(cat "$log")"
before=$(json_get "$st" '.monotonic_ms')
wait_for 3 status_newer_than "$before" ||
	fail "status.json not rewritten after a failed reload"
exports_are "[\"$WORK/export1\"]" || fail "a broken reload changed the exports"
kill -0 $pid || fail "daemon died on a broken reload"

# A good file: the new exports take over.
printf '%s\n%s\n' "$WORK/export1  (background_time=1s)" \
	"$WORK/export2  (background_time=2s)" > "$conf"
kill -HUP $pid
wait_for 3 exports_are "[\"$WORK/export1\",\"$WORK/export2\"]" ||
	fail "reload did not switch: $(cat "$st") $(cat "$log")"
grep -q "configuration reloaded" "$log" || fail "no reload message"

# SIGTERM: exit 0, pid file gone.
kill -TERM $pid
for _ in $(seq 60); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
kill -0 $pid 2>/dev/null && fail "still running 3 s after SIGTERM"
wait $pid
rc=$?
PIDS=
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc: $(cat "$log")"
[ -e "$state/nfswbd.pid" ] && fail "pid file left behind"

# Daemonised, with relative paths (the daemon changes to /): the parent
# exits 0 once the daemon runs, and the daemon finds its files.
(cd "$WORK" && timeout 20 "$NFSWBD" --dry-run -c a.exports \
	--nfs-conf nfs.conf --state-dir dstate) ||
	fail "daemonised start failed"
wait_for 3 json_valid "$WORK/dstate/status.json" ||
	fail "the daemon wrote no status.json"
dpid=$(cat "$WORK/dstate/nfswbd.pid")
PIDS=$dpid
[ "$(json_get "$WORK/dstate/status.json" '.pid')" = "$dpid" ] ||
	fail "daemon pid file and status disagree"
[ "$(json_get "$WORK/dstate/status.json" '.config.exports_file')" = "$WORK/a.exports" ] ||
	fail "relative -c not made absolute"
kill -TERM "$dpid"
gone() { ! kill -0 "$dpid" 2>/dev/null; }
wait_for 3 gone || fail "the daemon ignored SIGTERM"
PIDS=
[ -e "$WORK/dstate/nfswbd.pid" ] && fail "daemon left its pid file"
exit 0
