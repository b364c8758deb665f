#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two nfswbd with different state directories on one
# device.  The second must not journal the first one's values as the
# originals: it is refused the device's settings with a clear message,
# and after both stop every value is back as it was.
. "${srcdir:-.}/daemon/daemon-lib.sh"

limit_daemon 128M 1000000 two
echo "$WORK/mnt/exp  (mode=files,commit_target=2s)" > "$conf"

state="$WORK/stateA"
start
pidA=$pid
wait_for 3 attached || fail "first daemon did not attach: $(cat "$WORK/log")"
wait_for 3 limited || fail "first daemon: strict_limit not set"

state="$WORK/stateB"
"$NFSWBD" -F -c "$conf" --nfs-conf "$NFS_CONF" --state-dir "$state" \
	2>"$WORK/logB" &
pidB=$!
PIDS="$PIDS $pidB"
wait_for 5 grep -q "another nfswbd is changing this device's settings" "$WORK/logB" ||
	fail "second daemon: no clear refusal: $(cat "$WORK/logB")"

stop_daemon "$pidA" || fail "first daemon: exit $?"
sleep 1
stop_daemon "$pidB"
restored || fail "after both stopped: strict_limit $(cat "$sys/strict_limit"), max_ratio_fine $(cat "$sys/max_ratio_fine"), want $orig_strict, $orig_ratio"
PIDS=
exit 0
