#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mode=auto on a kernel with the per-bdi knob (a fake one under
# --sysroot): the knob acts on everything dirtied on the device, so the
# daemon begins in files mode, moves to kernel mode once a 5 s window
# shows nothing dirtied beyond what nfsd wrote (BdiDirtied against the
# io and proc3 lines of /proc/net/rpc/nfsd), and back to files mode when local
# writers dirty the device, at the next look of the 100 ms
# watch rather than at the window's end (status.json, the log, the
# metric); beside
# local writers from the start it stays in files mode and says why.  A
# dry run: the choice is reported, not made.
. "${srcdir:-.}/daemon/daemon-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (files mode's fanotify probe)"
root="$WORK/root"
fake_sysroot "$root"
echo 0 > "$root/sys/class/bdi/$majmin/dirty_background_bytes"
mkdir -p "$root/proc/net/rpc"
# The daemon holds both files open and preads them: each is rewritten in
# place, one write(2) of a fixed width, so that a read sees all or none.
# nfsd's first: a look between the two writes then sees NFS's bytes
# without the dirtied ones, which closes nothing, not the reverse.
stats() {	# BdiDirtied in kB, nfsd's written bytes, its NFSv3 WRITEs
	printf 'rc 0 0 0\nio 0 %14s\nth 8 0\nproc3 22 0 0 0 0 0 0 0 %12s%s\n' \
		"$2" "${3:-0}" "$(printf ' 0%.0s' $(seq 14))" |
		dd of="$root/proc/net/rpc/nfsd" conv=notrunc status=none
	printf 'BdiWriteback: 0 kB\nBdiReclaimable: 0 kB\nBdiDirtied: %12s kB\n' \
		"$1" | dd of="$root/sys/kernel/debug/bdi/$majmin/stats" \
		conv=notrunc status=none
}
stats 1000000 5000000

conf="$WORK/a.exports"
echo "$WORK/export1  (background_time=1s)" > "$conf"
"$NFSWBD" --check-config --sysroot "$root" -c "$conf" --nfs-conf "$NFS_CONF" \
	>"$WORK/out" 2>"$WORK/err" || fail "--check-config: $(cat "$WORK/err")"
grep -q "mode=auto effective=files" "$WORK/out" ||
	fail "auto does not begin in files mode beside the knob: $(cat "$WORK/out")"

st="$WORK/state/status.json"
printf '[nfswbd]\nmetrics-file = %s\n' "$WORK/nfswb.prom" > "$NFS_CONF"
start() {
	"$NFSWBD" -F --dry-run --sysroot "$root" -c "$conf" --nfs-conf "$NFS_CONF" \
		--state-dir "$WORK/state" 2>"$WORK/err" &
	PIDS=$!
}
is() {
	[ "$(json_get "$st" '[.devices[0].effective_mode, .devices[0].local_writers.verdict] | @tsv')" = "$1	$2" ]
}

# 1. Local writers from the first window on: files mode stays, and says why.
start
wait_for 4 is files unknown ||
	fail "not files mode, verdict unknown, at first: $(cat "$st" "$WORK/err")"
stats 1100000 5000000
wait_for 9 is files present ||
	fail "no verdict beside local writers: $(jq -c .devices[0] "$st")"
json_get "$st" .devices[0].mode_reason | grep -q "^files mode: local writers dirtied" ||
	fail "mode_reason: $(json_get "$st" .devices[0].mode_reason)"
grep -q "files mode: local writers dirtied" "$WORK/err" ||
	fail "the verdict is not logged: $(cat "$WORK/err")"
stop_daemon "$PIDS" || fail "SIGTERM: exit $?"

# 2. A quiet window: kernel mode; then local writers: files mode again.
start
wait_for 4 is files unknown ||
	fail "not files mode, verdict unknown, after a restart: $(cat "$st" "$WORK/err")"
wait_for 9 is kernel absent ||
	fail "no move to kernel mode after a quiet window: $(jq -c .devices[0] "$st") $(cat "$WORK/err")"
grep -q "kernel mode: no local writers" "$WORK/err" ||
	fail "the move is not logged: $(cat "$WORK/err")"

# 200 MiB dirtied while nfsd wrote 10 in 10 WRITEs: 172.671875 MiB
# beyond what they can have dirtied (10 MiB, an eighth more, 8 KiB a
# WRITE) and the 16 MiB slack.
local_bytes=$((200 * 1048576 - 10 * 1048576 - 10 * 131072 - 10 * 8192 - 16 * 1048576))
stats $((1100000 + 204800)) $((5000000 + 10 * 1048576)) 10
wait_for 9 is files present ||
	fail "no move back to files mode beside local writers: $(jq -c .devices[0] "$st")"
[ "$(json_get "$st" .devices[0].local_writers.last_window_bytes)" = $local_bytes ] ||
	fail "last_window_bytes: $(json_get "$st" .devices[0].local_writers)"
[ "$(json_get "$st" .devices[0].local_writers.source)" = debugfs-bdi ] ||
	fail "source: $(json_get "$st" .devices[0].local_writers)"
metric="nfswb_local_writer_bytes{bdi=\"$majmin\"} $local_bytes"
wait_for 3 grep -qxF "$metric" "$WORK/nfswb.prom" ||
	fail "no '$metric' in the metrics: $(grep local_writer "$WORK/nfswb.prom")"
grep -q "files mode: local writers dirtied 172.* beyond what nfsd wrote" "$WORK/err" ||
	fail "the move back is not logged: $(cat "$WORK/err")"
# In kernel mode the watch looks every 100 ms: the window that found
# them closed at a look, before its 5 s were up.
grep -q "files mode: local writers dirtied 172.* in [0-4]\.[0-9] s" "$WORK/err" ||
	fail "the window did not close early: $(grep 'local writers dirtied 172' "$WORK/err")"
kill -0 $PIDS || fail "nfswbd died: $(cat "$WORK/err")"
exit 0
