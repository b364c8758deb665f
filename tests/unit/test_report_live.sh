#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswb-report live: refreshes COUNT times, shows nfswbd's devices and the
# dirty bytes per owner (names through libnfsidmap), and with tracefs
# removes its instance when it ends.
report=${NFSWB_REPORT:-../tools/report/nfswb-report}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
check() {
	local msg=$1
	shift
	if ! "$@"; then
		echo "FAIL: $msg" >&2
		fail=1
	fi
}

cat > "$work/status.json" <<'JSON'
{"program": "nfswbd", "devices": [{"bdi": "254:16",
 "bandwidth": {"bytes_per_s": 33554432}, "dirty_bytes": 3145728,
 "files": [{"path": "/srv/a", "owner": 0, "dirty_bytes": 2048},
	   {"path": "/srv/b", "owner": 0, "dirty_bytes": 2048},
	   {"path": "/srv/c", "owner": 4000000, "dirty_bytes": 1048576}]}]}
JSON

"$report" live -n 3 -i 100ms -T -s "$work/status.json" >"$work/out" 2>"$work/err"
rc=$?
check "live -T exits 0 (got $rc): $(cat "$work/err")" test $rc = 0
check "three refreshes" test "$(grep -c '^nfswb-report live ' "$work/out")" = 3
check "device line" grep -q "bdi 254:16 *dirty *3.0 MiB *bandwidth *32.0 MiB/s" "$work/out"
# uid 0 has a name on every system; 4000000 has none and stays a number.
check "owner root mapped, two files" grep -Eq "^  root(@[^ ]*)? +4.0 KiB in 2 file" "$work/out"
check "unmapped owner stays numeric" grep -Eq "^  4000000 +1.0 MiB in 1 file" "$work/out"

echo '{"devices": [' > "$work/bad.json"
"$report" live -n 1 -i 100ms -T -s "$work/bad.json" >"$work/out" 2>&1
check "broken status.json is named" grep -q "bad.json: Invalid argument" "$work/out"

"$report" live -T >/dev/null 2>"$work/err"
check "--no-trace without --status is a usage error" test $? = 2

tracing=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ "$(id -u)" = 0 ] && [ -n "$tracing" ] &&
   [ -d "$tracing/events/syscalls/sys_enter_fsync" ]; then
	"$report" live -n 2 -i 200ms -p $$ >"$work/out" 2>"$work/err" &
	pid=$!
	wait $pid
	rc=$?
	check "live with tracefs exits 0 (got $rc): $(cat "$work/err")" test $rc = 0
	check "names its instance" grep -q "nfswb-report-$pid, 4 events" "$work/out"
	check "COMMIT table" grep -q "^total " "$work/out"
	check "instance removed" test ! -e "$tracing/instances/nfswb-report-$pid"
else
	echo "note: tracefs part skipped (not root, or no tracefs/syscall events)" >&2
fi
exit $fail
