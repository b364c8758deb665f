#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The written bound (lib/policy.h) in files mode on an ext4 loop image:
# beside 64 MiB that a local process left dirty, BdiReclaimable keeps
# the device measuring, but nfsd's count of what it wrote (a fake
# /proc/net/rpc/nfsd under --sysroot, the rest of it the live /sys and
# /proc) lets it stand by while the NFS writer's file is clean.  Then
# the writer dirties 24 MiB that the count does not show: the first look
# breaks the bound, the daemon says so, and measures again.
. "${srcdir:-.}/daemon/daemon-lib.sh"

loop_export 256M
echo "$WORK/mnt/exp  (mode=files)" > "$WORK/a.exports"
"$NFSWBD" --check-config -c "$WORK/a.exports" --nfs-conf "$NFS_CONF" \
	>/dev/null 2>"$WORK/err" ||
	skip "files mode not available here: $(cat "$WORK/err")"

root="$WORK/root"
mkdir -p "$root/proc/net/rpc"
ln -s /sys "$root/sys"
ln -s /proc/self "$root/proc/self"
ln -s /proc/vmstat "$root/proc/vmstat"
counter="$root/proc/net/rpc/nfsd"
# count BYTES: nfsd's io line, rewritten in place at one length (the
# daemon holds the file open and re-reads it).
count() {
	printf 'rc 0 0 0\nfh 0 0 0 0 0\nio 0 %20u\nth 8 0\n' "$1" 1<> "$counter"
}
count 0

# 64 MiB of a local process's data, left dirty (the 30 s expiry is far).
dd if=/dev/zero of="$WORK/mnt/exp/tmp" bs=1M count=64 status=none ||
	fail "cannot write the local file"
# The NFS writer's file: 1 MiB, then fsync, as a COMMIT would.
python3 - "$WORK/mnt/exp/data" <<'PY' || fail "nfsd writer failed"
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"nfsd", 0, 0, 0)   # PR_SET_NAME
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b"x" * (1 << 20))
os.fsync(fd)
os.close(fd)
PY

st="$WORK/state/status.json"
"$NFSWBD" -F --sysroot "$root" -c "$WORK/a.exports" --nfs-conf "$NFS_CONF" \
	--state-dir "$WORK/state" 2>"$WORK/log" &
pid=$!
PIDS=$pid

# nfsd goes on writing a little (64 KiB every 0.2 s), to other files.
(
	n=0
	while kill -0 "$pid" 2>/dev/null; do
		n=$((n + 65536))
		count "$n"
		sleep 0.2
	done
) &
PIDS="$PIDS $!"

standing_by() {
	json_get "$st" '[.devices[0].standby, .devices[0].dirty_source] == [true, "nfsd-written"]' |
		grep -qx true
}
wait_for 10 standing_by ||
	fail "beside 64 MiB of local dirty data, not standing by with the written bound: $(jq -c '.devices[0] | {standby, dirty_source, dirty_bytes, target_bytes, counters}' "$st" 2>&1) $(tail -5 "$WORK/log")"

# 24 MiB more from the NFS writer that nfsd's count does not show.
python3 - "$WORK/mnt/exp/data" <<'PY' || fail "second nfsd writer failed"
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"nfsd", 0, 0, 0)
fd = os.open(sys.argv[1], os.O_WRONLY)
os.lseek(fd, 0, os.SEEK_END)
for _ in range(24):
    os.write(fd, b"y" * (1 << 20))
os.close(fd)
PY
broken() {
	grep -q "more than nfsd's count of its writes allows" "$WORK/log"
}
# The bound ages in 5 s; the look after that breaks it.
wait_for 10 broken ||
	fail "24 MiB the count does not show did not break the bound: $(jq -c '.devices[0] | {standby, dirty_source, dirty_bytes}' "$st" 2>&1) $(tail -5 "$WORK/log")"
measuring() {
	[ "$(json_get "$st" '.devices[0].dirty_source')" = mechanism ]
}
wait_for 5 measuring ||
	fail "the broken bound still stands in: $(jq -c '.devices[0] | {standby, dirty_source}' "$st" 2>&1)"
sleep 1
[ "$(json_get "$st" '.devices[0].dirty_source')" != nfsd-written ] ||
	fail "the written bound stood in again after it broke"
stop_daemon "$pid" || fail "SIGTERM: exit $?: $(tail -5 "$WORK/log")"
exit 0
