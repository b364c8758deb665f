#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every read of a state file is bounded.  A FIFO as
# restore.journal neither hangs start-up nor makes SIGTERM ineffective; a
# device node, a symlink and an oversized file are refused with a message
# naming the journal; a 200,000-record journal is replayed in linear time
# (bounded here by a generous 60 s; quadratic took minutes).
. "${srcdir:-.}/daemon/daemon-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (a journal is only replayed by an acting daemon)"
conf="$WORK/ok.exports"
echo "$WORK/export1  (mode=files)" > "$conf"
state="$WORK/state"
mkdir -m 0700 "$state"
j="$state/restore.journal"
run() {
	timeout "$1" "$NFSWBD" -F --once -c "$conf" --nfs-conf "$NFS_CONF" \
		--state-dir "$state" 2>"$WORK/log"
}

# 1. A FIFO: start-up must end by itself, and a SIGTERM must end it too.
mkfifo "$j"
"$NFSWBD" -F -c "$conf" --nfs-conf "$NFS_CONF" --state-dir "$state" \
	2>"$WORK/log" &
pid=$!
PIDS=$pid
sleep 0.5
kill -TERM "$pid" 2>/dev/null
wait_for 5 eval '! kill -0 $pid' ||
	fail "a FIFO as restore.journal: start-up still running 5 s after SIGTERM: $(cat "$WORK/log")"
PIDS=
grep -q "$j: not a regular file" "$WORK/log" ||
	fail "a FIFO as restore.journal: no message naming it: $(cat "$WORK/log")"
rm -f "$j"

# 2. A character device (/dev/zero's numbers) and a symlink to one.
mknod "$j" c 1 5
run 10
[ $? -eq 1 ] || fail "a device as restore.journal was not refused: $(cat "$WORK/log")"
grep -q "$j: not a regular file" "$WORK/log" ||
	fail "a device as restore.journal: no message naming it: $(cat "$WORK/log")"
rm -f "$j"
ln -s /dev/zero "$j"
run 10
[ $? -eq 1 ] || fail "a symlink as restore.journal was not refused: $(cat "$WORK/log")"
grep -q "$j: it is a symlink" "$WORK/log" ||
	fail "a symlink as restore.journal: no message naming it: $(cat "$WORK/log")"
rm -f "$j"

# 3. Larger than any journal nfswbd writes.
head -c $((17 << 20)) /dev/zero | tr '\0' '#' > "$j"
run 30
[ $? -eq 1 ] || fail "a 17 MiB journal was not refused: $(cat "$WORK/log")"
grep -q "$j: larger than any journal nfswbd writes" "$WORK/log" ||
	fail "a 17 MiB journal: no message naming it: $(cat "$WORK/log")"
rm -f "$j"

# 4. 200,000 records of devices that are gone: linear replay, all dropped.
awk 'BEGIN { for (i = 0; i < 200000; i++)
	printf "/sys/class/bdi/4000:%d/strict_limit 0 1\n", i }' > "$j"
run 60
rc=$?
[ $rc -ne 124 ] || fail "200,000 journal records not replayed within 60 s"
[ ! -s "$j" ] || ! grep -q '^/' "$j" ||
	fail "records of gone devices kept: $(grep -c '^/' "$j") left"
exit 0
