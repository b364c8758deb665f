#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd --check-config: the effective line for a good file; every error,
# and only the errors, as FILE:LINE: for a bad one; tmpfs is refused.
. "${srcdir:-.}/daemon/daemon-lib.sh"

# 1. A good file: exit 0 and one line per export with the merged setting.
good="$WORK/good.exports"
cat > "$good" <<EOT
# two exports on one device share one state
$WORK/export1  (background_time=2s,commit_target=3s)
$WORK/export2  (background_time=500ms,min_bandwidth=8M,background_min=512K)
EOT
out=$("$NFSWBD" --check-config -c "$good" --nfs-conf "$NFS_CONF" 2>"$WORK/err")
rc=$?
[ $rc -eq 0 ] || fail "good file: exit $rc: $(cat "$WORK/err")"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] || fail "good file: expected 2 lines, got: $out"
line1=$(printf '%s\n' "$out" | sed -n 1p)
case "$line1" in
"$WORK/export1 bdi=$BDI "*) ;;
*) fail "good file: line 1 is not export1 on bdi $BDI: $line1" ;;
esac
# Merged: the smallest background_time, the only commit_target, the
# largest min_bandwidth, the smallest background_min, for both exports.
for l in "$line1" "$(printf '%s\n' "$out" | sed -n 2p)"; do
	for want in background_time=500ms commit_target=3s \
		    min_bandwidth=8MiB/s background_min=512KiB shared=2 \
		    mode=auto effective=; do
		case "$l" in
		*" $want"*) ;;
		*) fail "good file: '$want' missing in: $l" ;;
		esac
	done
done

# The option the merge replaced is said at the line that set it.
grep -q "^$good:2: warning: $WORK/export1 background_time=2s overridden by background_time=500ms of $WORK/export2 ($good:3)" "$WORK/err" ||
	fail "good file: no merge note for export1's background_time: $(cat "$WORK/err")"
[ "$(grep -c "overridden" "$WORK/err")" -eq 1 ] ||
	fail "good file: expected exactly one merge note: $(cat "$WORK/err")"

# 2. Three errors on lines 2, 4 and 6: exactly those three, exit 1.
bad="$WORK/bad.exports"
cat > "$bad" <<EOT
# line 1
relative/path  (mode=files)
$WORK/export1  (background_time=2s)
$WORK/export2  (no_such_option=1)

$WORK/export3  (background_time=soon)
EOT
"$NFSWBD" --check-config -c "$bad" --nfs-conf "$NFS_CONF" >"$WORK/out" 2>"$WORK/err"
rc=$?
[ $rc -eq 1 ] || fail "bad file: exit $rc, expected 1"
[ -s "$WORK/out" ] && fail "bad file: printed settings: $(cat "$WORK/out")"
for n in 2 4 6; do
	[ "$(grep -c "^$bad:$n: " "$WORK/err")" -eq 1 ] ||
		fail "bad file: no single '$bad:$n:' error in: $(cat "$WORK/err")"
done
[ "$(wc -l < "$WORK/err")" -eq 3 ] ||
	fail "bad file: expected exactly 3 lines: $(cat "$WORK/err")"

# 3. Device resolution errors are collected too: every one, not the first.
cat > "$WORK/nodev.exports" <<EOT
$WORK/missing-1  (background_time=1s)
$WORK/export1  (background_time=1s)
$WORK/missing-2
EOT
"$NFSWBD" --check-config -c "$WORK/nodev.exports" --nfs-conf "$NFS_CONF" \
	>"$WORK/out" 2>"$WORK/err"
rc=$?
[ $rc -eq 1 ] || fail "missing dirs: exit $rc, expected 1"
grep -q "^$WORK/nodev.exports:1: .*missing-1" "$WORK/err" &&
grep -q "^$WORK/nodev.exports:3: .*missing-2" "$WORK/err" ||
	fail "missing dirs: both not reported: $(cat "$WORK/err")"

# 4. An export on tmpfs has no bdi: an error naming the path.
shm=$(findmnt -n -o TARGET -t tmpfs /dev/shm 2>/dev/null | head -n 1)
[ -n "$shm" ] || shm=$(findmnt -n -o TARGET -t tmpfs /run 2>/dev/null | head -n 1)
if [ -n "$shm" ] && tdir=$(mktemp -d "$shm/nfswbd-test.XXXXXX"); then
	echo "$tdir  (mode=auto)" > "$WORK/tmpfs.exports"
	"$NFSWBD" --check-config -c "$WORK/tmpfs.exports" \
		--nfs-conf "$NFS_CONF" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	rmdir "$tdir"
	[ $rc -eq 1 ] || fail "tmpfs: exit $rc, expected 1"
	grep -q "^$WORK/tmpfs.exports:1: .*$tdir" "$WORK/err" ||
		fail "tmpfs: error does not name the line and path: $(cat "$WORK/err")"
else
	echo "note: no tmpfs mounted; tmpfs case not run" >&2
fi

# conf_case WHAT CONF RC PATTERN: --check-config of the good exports with
# nfs.conf CONF exits RC and says PATTERN (grep) on stderr.
conf_case() {
	"$NFSWBD" --check-config -c "$good" --nfs-conf "$2" >/dev/null 2>"$WORK/err"
	rc=$?
	[ $rc -eq "$3" ] ||
		fail "$1: exit $rc, expected $3: $(cat "$WORK/err")"
	grep -q "$4" "$WORK/err" ||
		fail "$1: no '$4' in: $(cat "$WORK/err")"
}

# 5. A broken nfs.conf [nfswbd] value is reported with the file's name.
printf '[nfswbd]\ninterval = soon\n' > "$WORK/bad.conf"
conf_case "bad nfs.conf" "$WORK/bad.conf" 1 "^$WORK/bad.conf:2: .*interval"

# 6. A problem in another daemon's section of nfs.conf is only a warning
# naming FILE:LINE; the same problem inside [nfswbd] is an error.
printf '[nfsd]\nthreads 8\n[nfswbd]\ninterval = 200ms\n' > "$WORK/other.conf"
conf_case "problem outside [nfswbd]" "$WORK/other.conf" 0 \
	"warning.*$WORK/other.conf:2: "
printf '[nfsd]\nthreads = 8\n[nfswbd]\ninterval 200ms\n' > "$WORK/own.conf"
conf_case "problem inside [nfswbd]" "$WORK/own.conf" 1 "^$WORK/own.conf:4: "

# 7. The daemon's own keys: each error at its line, status-interval
# bounded, a key twice in [nfswbd] and a NUL byte are errors.
printf '[nfswbd]\n\nmax-files = 0\nstatus-interval = 61m\n' > "$WORK/own2.conf"
conf_case "max-files line" "$WORK/own2.conf" 1 \
	"^$WORK/own2.conf:3: \\[nfswbd\\] max-files = 0: expected a number"
conf_case "status-interval bound" "$WORK/own2.conf" 1 \
	"^$WORK/own2.conf:4: \\[nfswbd\\] status-interval = 61m: must be from 10ms to 3600s"
printf '[nfswbd]\ninterval = 200ms\ninterval = 300ms\n' > "$WORK/twice.conf"
conf_case "key twice" "$WORK/twice.conf" 1 \
	"^$WORK/twice.conf:3: \\[nfswbd\\] interval set again (first at line 2)"
printf '[nfswbd]\ninterval = 200ms\n\000mode = off\n' > "$WORK/nul.conf"
conf_case "NUL byte" "$WORK/nul.conf" 1 "^$WORK/nul.conf:3: NUL byte"

# 8. --nfs-conf /dev/null is an empty configuration; a duration without
# a unit names the units.
conf_case "/dev/null" /dev/null 0 "."
printf '[nfswbd]\nbackground-time = 2\n' > "$WORK/nounit.conf"
conf_case "no unit" "$WORK/nounit.conf" 1 \
	"^$WORK/nounit.conf:2: .*background-time = 2: a duration needs a unit: ms, s or m"
exit 0
