#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The files a device's samples read stay open (lib/readfile.h's struct
# nfswb_kfile) from its first sample to its drop: its stat file, its
# bdi's debugfs stats and /proc/vmstat are open in the daemon; a SIGHUP
# that keeps the device hands the same open files over (a stat file
# replaced under the daemon is still read through the old one, not
# reopened); reloads leak no descriptor; a reload that leaves the device
# out closes them.
. "${srcdir:-.}/daemon/daemon-lib.sh"

root="$WORK/root"
fake_sysroot "$root"
stat="$root/sys/block/fakedisk/stat"
stats="$root/sys/kernel/debug/bdi/$majmin/stats"
vmstat="$root/proc/vmstat"
printf 'BdiWriteback: 0 kB\nBdiReclaimable: 0 kB\n' > "$stats"
printf 'nr_dirty 0\nnr_writeback 0\n' > "$vmstat"

echo "$WORK/export1  (background_time=1s)" > "$WORK/a.exports"
st="$WORK/state/status.json"
"$NFSWBD" -F --dry-run --sysroot "$root" -c "$WORK/a.exports" \
	--nfs-conf "$NFS_CONF" --state-dir "$WORK/state" 2>"$WORK/err" &
pid=$!
PIDS=$pid

# fds_on FILE: how many of the daemon's descriptors are open on FILE.
fds_on() {
	local f n=0
	for f in /proc/$pid/fd/*; do
		[ "$(readlink "$f")" = "$1" ] && n=$((n + 1))
	done
	echo $n
}
nfds() { ls /proc/$pid/fd | wc -l; }
held() { [ "$(fds_on "$stat")$(fds_on "$stats")$(fds_on "$vmstat")" = "$1" ]; }
reloaded() { json_get "$st" ".reloads == $1" | grep -qx true; }

wait_for 10 held 111 ||
	fail "stat, debugfs stats, vmstat not held open once each: $(fds_on "$stat") $(fds_on "$stats") $(fds_on "$vmstat"); $(cat "$WORK/err")"
n0=$(nfds)

# Replaced under the daemon: the file it holds is the old one.
cp "$stat" "$stat.new" && mv "$stat.new" "$stat"
kill -HUP $pid
wait_for 10 reloaded 1 || fail "no reload: $(cat "$WORK/err")"
sleep 0.3
[ "$(fds_on "$stat (deleted)")" = 1 ] && [ "$(fds_on "$stat")" = 0 ] ||
	fail "the stat file was not handed over across SIGHUP: old $(fds_on "$stat (deleted)"), new $(fds_on "$stat")"
for i in 2 3 4; do
	kill -HUP $pid
	wait_for 10 reloaded $i || fail "reload $i did not happen"
done
sleep 0.3
[ "$(nfds)" = "$n0" ] || fail "$n0 descriptors before four reloads, $(nfds) after"

# A reload that leaves the device out closes what it held.
: > "$WORK/a.exports"
kill -HUP $pid
wait_for 10 reloaded 5 || fail "reload without exports did not happen: $(cat "$WORK/err")"
[ "$(fds_on "$stat (deleted)")$(fds_on "$stats")$(fds_on "$vmstat")" = 000 ] ||
	fail "device left out, its files still open: $(ls -l /proc/$pid/fd)"
kill -0 $pid || fail "nfswbd died: $(cat "$WORK/err")"
exit 0
