#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A restore journal may name only the per-bdi
# attributes nfswbd changes.  A planted record naming any other file (here
# a scratch file standing in for /proc/sys/kernel/core_pattern, and a bdi
# attribute nfswbd never writes) is not applied, and the error names the
# journal's file and line.
. "${srcdir:-.}/daemon/daemon-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (a journal is only replayed by an acting daemon)"
conf="$WORK/ok.exports"
state="$WORK/state"
echo "$WORK/export1  (mode=files)" > "$conf"
mkdir -m 0700 "$state"
echo precious > "$WORK/victim"
{
	printf '%s X\n' "$WORK/victim"
	printf '/sys/class/bdi/999:999/read_ahead_kb 4096\n'
	printf '/sys/class/bdi/999:999/../../../../%s 1\n' "$WORK/victim"
} > "$state/restore.journal"

"$NFSWBD" -F --once -c "$conf" --nfs-conf "$NFS_CONF" --state-dir "$state" \
	2>"$WORK/log"
[ "$(cat "$WORK/victim")" = precious ] ||
	fail "a journal record made root write $WORK/victim: $(cat "$WORK/log")"
for line in 1 2 3; do
	grep -q "$state/restore.journal:$line: not a setting nfswbd changes" "$WORK/log" ||
		fail "no error naming restore.journal:$line: $(cat "$WORK/log")"
done
grep -q "restored" "$WORK/log" && fail "something was restored: $(cat "$WORK/log")"
exit 0
