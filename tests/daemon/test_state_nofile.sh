#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Files mode holds its files open.  Under a soft fd
# limit of 256 the daemon raises it to the hard limit; with the hard limit
# itself 1024 it lowers max-files to what is left; either way, with 3000
# written files the status file still gets written and nothing runs out
# of descriptors.
. "${srcdir:-.}/daemon/daemon-lib.sh"

loop_export 512M
conf="$WORK/nofile.exports"
state="$WORK/state"
echo "$WORK/mnt/exp  (mode=files)" > "$conf"
st="$state/status.json"
write_files() {	# N: N files of 8 KiB by a writer named nfsd
	python3 - "$WORK/mnt/exp" "$1" <<'PY'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"nfsd", 0, 0, 0)   # PR_SET_NAME
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        f.write(b"x" * 8192)
PY
}
status_newer_than() {
	[ "$(json_get "$st" '.monotonic_ms')" -gt "$1" ]
}
tracking() {
	[ "$(json_get "$st" '.devices[0].counters.files_tracked')" -ge "$1" ]
}

# 1. Soft 256, hard as it is: raised.
(ulimit -Sn 256 && exec "$NFSWBD" -F -c "$conf" --nfs-conf "$NFS_CONF" \
	--state-dir "$state" 2>"$WORK/log") &
pid=$!
PIDS=$pid
wait_for 5 json_valid "$st" || fail "no status.json: $(cat "$WORK/log")"
soft=$(awk '/Max open files/ { print $4 }' "/proc/$pid/limits")
hard=$(awk '/Max open files/ { print $5 }' "/proc/$pid/limits")
[ "$soft" = "$hard" ] || fail "soft fd limit $soft not raised to the hard $hard"
write_files 3000 || fail "writer failed"
wait_for 10 tracking 1000 || fail "files not tracked: $(cat "$st")"
before=$(json_get "$st" '.monotonic_ms')
wait_for 5 status_newer_than "$before" || fail "status.json no longer written: $(cat "$WORK/log")"
grep -q "Too many open files" "$WORK/log" && fail "ran out of descriptors: $(cat "$WORK/log")"
stop_daemon "$pid" || fail "exit $?: $(cat "$WORK/log")"
PIDS=
rm -f "$WORK"/mnt/exp/f*

# 2. Hard 1024: max-files lowered so that 3000 files fit in what is left.
(ulimit -n 1024 && exec "$NFSWBD" -F -c "$conf" --nfs-conf "$NFS_CONF" \
	--state-dir "$state" 2>"$WORK/log") &
pid=$!
PIDS=$pid
wait_for 5 json_valid "$st" || fail "no status.json: $(cat "$WORK/log")"
grep -q "max-files 4096 lowered to" "$WORK/log" ||
	fail "max-files not lowered under a hard limit of 1024: $(cat "$WORK/log")"
write_files 3000 || fail "writer failed"
wait_for 10 tracking 100 || fail "files not tracked: $(cat "$st")"
sleep 1
before=$(json_get "$st" '.monotonic_ms')
wait_for 5 status_newer_than "$before" || fail "status.json no longer written: $(cat "$WORK/log")"
grep -q "Too many open files" "$WORK/log" && fail "ran out of descriptors: $(cat "$WORK/log")"
stop_daemon "$pid" || fail "exit $?: $(cat "$WORK/log")"
PIDS=
exit 0
