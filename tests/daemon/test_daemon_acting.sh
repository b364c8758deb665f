#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd acting on an ext4 loop image: files + limit attach, a writer named
# nfsd is tracked, the limit's sysfs values are set while running and put
# back on SIGTERM, after kill -9 by the next start, and when a reload
# drops commit_target.
. "${srcdir:-.}/daemon/daemon-lib.sh"

limit_daemon 128M 1000000 act
st="$state/status.json"
stop() {
	stop_daemon "$pid"
}
tracked() {
	[ "$(json_get "$st" '.devices[0].counters.files_tracked')" -ge 1 ]
}
# The mechanism measures the device's dirty bytes unless the device stands
# by (its backlog far below the target), when a cheap bound stands in.
measured() {
	[ "$(json_get "$st" '.devices[0].dirty_source')" = mechanism ]
}

# 1. Attach, track a writer named nfsd, restore on SIGTERM.
start
wait_for 3 attached || fail "mechanisms not attached: $(cat "$WORK/log")"
wait_for 2 limited || fail "strict_limit not set while running"
nfsd_write "$WORK/mnt/exp/data" 32 || fail "writer failed"
wait_for 3 tracked || fail "the nfsd writer's file is not tracked: $(cat "$st")"
wait_for 3 measured ||
	fail "dirty_source is not the mechanism with 32 MiB just written: $(cat "$st")"
[ "$(json_get "$st" '.devices[0].counters.cap_bytes')" -gt 0 ] ||
	fail "no cap in force"
stop || fail "SIGTERM: exit $?: $(cat "$WORK/log")"
restored || fail "sysfs not restored on SIGTERM: strict_limit $(cat "$sys/strict_limit")"

# 2. kill -9 leaves the values changed; the next start puts them back
#    before attaching, and its own exit restores them again.
start
wait_for 3 limited || fail "strict_limit not set on the second start"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
limited || fail "kill -9 should have left strict_limit set"
start
wait_for 3 attached || fail "restart after kill -9 did not attach: $(cat "$WORK/log")"
grep -q "left by a previous run" "$WORK/log" ||
	fail "the restart did not restore the leftovers: $(cat "$WORK/log")"
stop || fail "SIGTERM after restart: exit $?"
restored || fail "sysfs not restored after kill -9 and restart"

# 3. A reload that drops commit_target detaches limit, restoring its
#    values; the daemon goes on with files alone.
start
wait_for 3 attached || fail "third start did not attach"
wait_for 2 limited || fail "strict_limit not set on the third start"
echo "$WORK/mnt/exp  (mode=files)" > "$conf"
kill -HUP "$pid"
files_only() {
	[ "$(json_get "$st" '.devices[0].mechanisms')" = '["files"]' ]
}
wait_for 3 files_only || fail "limit still attached after the reload: $(cat "$WORK/log")"
restored || fail "the reload did not restore the limit's values"
kill -0 "$pid" || fail "the daemon died on reload"
stop || fail "SIGTERM after reload: exit $?"
restored || fail "values changed after the last exit"
PIDS=
exit 0
