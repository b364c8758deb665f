#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A full state directory.  With its file system full,
# a reload that lifts the cap cannot rewrite the journal: the daemon must
# exit non-zero at the end, and the journal it leaves must never put an
# original back over a change the administrator made since.
. "${srcdir:-.}/daemon/daemon-lib.sh"

limit_daemon 128M 1000000 enospc
state="$WORK/statefs"
mkdir "$state"
mount -t tmpfs -o size=256k,mode=0700 nfswb-test "$state" ||
	skip "cannot mount a tmpfs"
extra_cleanup() {
	mountpoint -q "$state" && umount "$state"
	mountpoint -q "$WORK/mnt" && umount "$WORK/mnt"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$sys" ] && echo "$orig_strict" > "$sys/strict_limit" &&
		echo "$orig_ratio" > "$sys/max_ratio_fine"
}

start
wait_for 3 attached || fail "did not attach: $(cat "$WORK/log")"
wait_for 3 limited || fail "strict_limit not set"

dd if=/dev/zero of="$state/fill" bs=4k 2>/dev/null
df "$state" | grep -q ' 100% ' || fail "could not fill $state: $(df "$state")"

echo "$WORK/mnt/exp  (mode=files)" > "$conf"
kill -HUP "$pid"
wait_for 5 restored || fail "the reload did not lift the cap: $(cat "$WORK/log")"

# The administrator's own settings, after nfswbd put its originals back.
echo 1 > "$sys/strict_limit"
echo 424242 > "$sys/max_ratio_fine"
admin_ratio=$(cat "$sys/max_ratio_fine")

kill -TERM "$pid"
wait "$pid"
rc=$?
PIDS=
[ $rc -ne 0 ] || fail "exit status 0 after the journal could not be written: $(cat "$WORK/log")"

rm -f "$state/fill"
"$NFSWBD" -F --once -c "$conf" --nfs-conf "$NFS_CONF" --state-dir "$state" \
	2>>"$WORK/log2"
[ "$(cat "$sys/strict_limit")" = 1 ] && [ "$(cat "$sys/max_ratio_fine")" = "$admin_ratio" ] ||
	fail "the next start undid the administrator's change: strict_limit $(cat "$sys/strict_limit"), max_ratio_fine $(cat "$sys/max_ratio_fine"): $(cat "$WORK/log2")"
exit 0
