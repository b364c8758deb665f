#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd against a fake /sys and /proc (--sysroot): where the dirty bytes
# come from (debugfs BdiReclaimable, else vmstat nr_dirty, else none), and
# the knfsd export-table warnings (not exported, async) that do not fail
# --check-config.
. "${srcdir:-.}/daemon/daemon-lib.sh"

root="$WORK/root"
fake_sysroot "$root"
printf 'BdiWriteback:            0 kB\nBdiReclaimable:      12345 kB\n' \
	> "$root/sys/kernel/debug/bdi/$majmin/stats"
printf 'nr_free_pages 1000\nnr_dirty 100\nnr_writeback 0\n' > "$root/proc/vmstat"

conf="$WORK/a.exports"
echo "$WORK/export1  (background_time=1s)" > "$conf"
st="$WORK/state/status.json"
once() {
	timeout 20 "$NFSWBD" --dry-run --once --sysroot "$root" -c "$conf" \
		--nfs-conf "$NFS_CONF" --state-dir "$WORK/state" \
		>"$WORK/out" 2>"$WORK/err" || fail "--once failed: $(cat "$WORK/err")"
}
expect() {
	local got
	got=$(json_get "$st" "$1")
	[ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
}

once
expect '.devices[0].blockdev' fakedisk
expect '.devices[0].bdi' "$majmin"
expect '.devices[0].bandwidth.stat_readable' true
expect '.devices[0].dirty_source' debugfs-bdi
expect '.devices[0].dirty_bytes' $((12345 * 1024))

rm "$root/sys/kernel/debug/bdi/$majmin/stats"
once
expect '.devices[0].dirty_source' vmstat-global
expect '.devices[0].dirty_bytes' $((100 * $(getconf PAGESIZE)))

rm "$root/proc/vmstat"
once
expect '.devices[0].dirty_source' none
expect '.devices[0].dirty_bytes' 0

# knfsd not running: no comparison, a note only.
check() {
	"$NFSWBD" --check-config --sysroot "$root" -c "$1" --nfs-conf "$NFS_CONF" \
		>"$WORK/out" 2>"$WORK/err"
}
check "$conf" || fail "check-config failed: $(cat "$WORK/err")"
grep -q "knfsd is not running" "$WORK/err" || fail "no note that knfsd is not running"

# knfsd running: export2 is not exported, export1 is exported async.
mkdir -p "$root/proc/fs/nfsd" "$root/proc/fs/nfs"
echo 8 > "$root/proc/fs/nfsd/threads"
printf '# Version 1.2\n%s\t*(rw,async,wdelay,root_squash)\n' "$WORK/export1" \
	> "$root/proc/fs/nfs/exports"
printf '%s\n%s\n' "$WORK/export1  (background_time=1s)" "$WORK/export2" > "$WORK/b.exports"
check "$WORK/b.exports" || fail "warnings must not fail --check-config: $(cat "$WORK/err")"
[ "$(wc -l < "$WORK/out")" -eq 2 ] || fail "expected 2 export lines: $(cat "$WORK/out")"
grep -q "^$WORK/b.exports:1: warning: $WORK/export1 is exported async" "$WORK/err" ||
	fail "no async warning for line 1: $(cat "$WORK/err")"
grep -q "^$WORK/b.exports:2: warning: $WORK/export2 is not exported by knfsd" "$WORK/err" ||
	fail "no 'not exported' warning for line 2: $(cat "$WORK/err")"
exit 0
