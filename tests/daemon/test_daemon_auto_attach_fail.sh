#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mode=auto whose move to kernel mode fails to attach (a knob that cannot
# be written: here a directory where the file should be) stays in files
# mode, says why in status.json, and tries again after a wait that
# doubles (one window, then two, ...), not every 5 s window: in 24 s two
# tries (at 5 s and 15 s), where one every window would make four.
. "${srcdir:-.}/daemon/daemon-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (files mode's fanotify)"
root="$WORK/root"
fake_sysroot "$root"
mkdir "$root/sys/class/bdi/$majmin/dirty_background_time_ms"
mkdir -p "$root/proc/net/rpc"
printf 'BdiWriteback: 0 kB\nBdiReclaimable: 0 kB\nBdiDirtied: 1000 kB\n' \
	> "$root/sys/kernel/debug/bdi/$majmin/stats"
printf 'rc 0 0 0\nio 0 5000000\nth 8 0\n' > "$root/proc/net/rpc/nfsd"

conf="$WORK/a.exports"
echo "$WORK/export1  (background_time=1s)" > "$conf"
st="$WORK/state/status.json"
"$NFSWBD" -F --sysroot "$root" -c "$conf" --nfs-conf "$NFS_CONF" \
	--state-dir "$WORK/state" 2>"$WORK/err" &
PIDS=$!
tries() { grep -c "cannot attach the kernel mechanism" "$WORK/err"; }
wait_for 9 grep -q "cannot attach the kernel mechanism" "$WORK/err" ||
	fail "no try of kernel mode after a quiet window: $(cat "$WORK/err")"
sleep 1
[ "$(json_get "$st" .devices[0].effective_mode)" = files ] ||
	fail "not files mode after the failed move: $(jq -c .devices[0] "$st")"
json_get "$st" .devices[0].mode_reason |
	grep -q "^files mode: the kernel mechanism failed to attach; next try in 10 s" ||
	fail "mode_reason: $(json_get "$st" .devices[0].mode_reason)"
sleep 17
n=$(tries)
[ "$n" -eq 2 ] || fail "$n tries in about 23 s, not 2 (5 s, 15 s): $(cat "$WORK/err")"
json_get "$st" .devices[0].mode_reason | grep -q "next try in 15 s" ||
	fail "the wait does not grow: $(json_get "$st" .devices[0].mode_reason)"
kill -0 $PIDS || fail "nfswbd died: $(cat "$WORK/err")"
stop_daemon "$PIDS" || fail "SIGTERM: exit $?"
exit 0
