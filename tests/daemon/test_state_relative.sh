#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Relative paths.  A relative state-dir, exports-file
# or exports-dir in nfs.conf is refused with a message naming nfs.conf
# (relative to what? the daemon runs in /), by the daemon and by
# --check-config; relative command-line paths are made absolute before
# daemonising, so the pid file lands where it was asked for.
. "${srcdir:-.}/daemon/daemon-lib.sh"

conf="$WORK/ok.exports"
echo "$WORK/export1  (background_time=1s)" > "$conf"
cd "$WORK" || fail "cd $WORK"
for key in state-dir exports-file exports-dir; do
	case $key in
	state-dir)	value=rel/state ;;
	exports-file)	value=ok.exports ;;
	exports-dir)	value=exports.d ;;
	esac
	printf '[nfswbd]\n%s = %s\n' "$key" "$value" > "$WORK/rel.conf"
	args=(--nfs-conf "$WORK/rel.conf" --dry-run --once -F)
	[ $key = exports-file ] || args+=(-c "$conf")
	[ $key = state-dir ] || args+=(--state-dir "$WORK/state")
	timeout 10 "$NFSWBD" "${args[@]}" >/dev/null 2>"$WORK/log"
	rc=$?
	[ $rc -eq 1 ] || fail "$key = $value: exit $rc, expected 1: $(cat "$WORK/log")"
	grep -q "$WORK/rel.conf:2: .*$key = $value: must be an absolute path" "$WORK/log" ||
		fail "$key = $value: no message naming nfs.conf: $(cat "$WORK/log")"
	timeout 10 "$NFSWBD" --check-config --nfs-conf "$WORK/rel.conf" \
		-c "$conf" >/dev/null 2>"$WORK/log"
	[ $? -eq 1 ] && grep -q "must be an absolute path" "$WORK/log" ||
		fail "--check-config accepts $key = $value: $(cat "$WORK/log")"
done
[ -e "$WORK/rel" ] && fail "a relative state-dir was created"

# Relative on the command line: absolute before daemonising.
: > "$WORK/empty.conf"
"$NFSWBD" --dry-run -c ok.exports --nfs-conf empty.conf --state-dir cl-state \
	2>"$WORK/log" || fail "daemonising with relative paths: $(cat "$WORK/log")"
wait_for 5 test -s "$WORK/cl-state/nfswbd.pid" ||
	fail "no pid file in $WORK/cl-state"
pid=$(cat "$WORK/cl-state/nfswbd.pid")
PIDS=$pid
wait_for 5 test -s "$WORK/cl-state/status.json" ||
	fail "no status.json in $WORK/cl-state"
kill -TERM "$pid"
wait_for 5 eval '! kill -0 $pid 2>/dev/null' || fail "daemon did not stop"
PIDS=
exit 0
