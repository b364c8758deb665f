#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A device that goes away under nfswbd: the loop image's file system is
# unmounted and the loop device detached, and its number is given to an
# unrelated image.  nfswbd must notice, put the bdi's settings back (a
# loop device's bdi outlives its attachment: left alone, the cap would
# apply to the next image) and drop the device; a reload with the old
# export still configured must work rather than fail on the missing path.
. "${srcdir:-.}/daemon/daemon-lib.sh"

limit_daemon 64M 1000000 vanish
st="$state/status.json"
# files + limit: fanotify marks on the file system that goes away too.
echo "$WORK/mnt/exp  (mode=files,commit_target=2s)" > "$conf"
echo "$WORK/export1  (mode=off)" >> "$conf"
has_dev() {
	[ "$(json_get "$st" '.pid')" = "$pid" ] &&
	json_get "$st" '[.devices[].bdi] | join(" ")' | grep -qw "$1"
}
lacks_dev() {
	[ "$(json_get "$st" '.pid')" = "$pid" ] &&
	! json_get "$st" '[.devices[].bdi] | join(" ")' | grep -qw "$1"
}

start
wait_for 3 limited || fail "strict_limit not set: $(cat "$WORK/log")"
wait_for 3 has_dev "$bdi" || fail "status.json lacks bdi $bdi"

# Gone: umount, then the loop device detached.
umount "$WORK/mnt" || fail "cannot unmount $WORK/mnt"
losetup -d "$LOOP"
wait_for 3 restored ||
	fail "bdi $bdi not restored after its file system went away: strict_limit $(cat "$sys/strict_limit") max_ratio_fine $(cat "$sys/max_ratio_fine")"
grep -q "no longer on this device" "$WORK/log" ||
	fail "the drop is not logged: $(cat "$WORK/log")"
wait_for 3 lacks_dev "$bdi" || fail "bdi $bdi still in status.json: $(cat "$st")"

# The number reused by an unrelated image: nothing of ours applies to it.
truncate -s 64M "$WORK/img2"
losetup "$LOOP" "$WORK/img2" || skip "cannot reattach $LOOP"
sleep 1.5
restored || fail "a cap reached the new image on $LOOP: strict_limit $(cat "$sys/strict_limit")"

# A reload with the vanished export still configured goes through.
kill -HUP "$pid"
reloaded() {
	grep -q "configuration reloaded" "$WORK/log"
}
wait_for 3 reloaded || fail "reload did not complete: $(cat "$WORK/log")"
grep -q "reload failed" "$WORK/log" && fail "reload failed: $(cat "$WORK/log")"
grep -q "does not exist (any more): export left out" "$WORK/log" ||
	fail "the left-out export is not named: $(cat "$WORK/log")"
kill -0 "$pid" || fail "the daemon died"
restored || fail "the reload touched $LOOP"
kill -TERM "$pid"
wait "$pid" || fail "exit status $? after SIGTERM"
PIDS=
restored || fail "settings changed after exit"
exit 0
