#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_report_ganesha.sh - nfswb-report record -p against NFS-Ganesha: every
# COMMIT the server executes is counted, also on the worker threads
# Ganesha starts after record did (record once named only the threads
# that existed when it started, and counted 8 of 48 COMMITs).
# Exit 0 pass, 1 fail, 77 when Ganesha or the syscall events are missing.

set -u
srcdir=${srcdir:-$(dirname "$0")/..}
LOAD=${NFSWB_LOAD:-../tools/load/nfswb-load}
REPORT=${NFSWB_REPORT:-../tools/report/nfswb-report}
. "$srcdir/ganesha/ganesha-lib.sh"
g_isolate "$0" "$@"

fail=0

REC_PID=
cleanup() {
	[ -n "$REC_PID" ] && kill -TERM "$REC_PID" 2>/dev/null && wait "$REC_PID"
	g_stop
	rm -rf "$G_DIR" "${DISK:-}"
}

[ -x "$LOAD" ] || { echo "FAIL: $LOAD not built" >&2; exit 1; }
[ -x "$REPORT" ] || { echo "FAIL: $REPORT not built" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: Ganesha and tracefs need root" >&2; exit 77; }
tracing=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$tracing" ] && [ -d "$tracing/events/syscalls/sys_enter_fsync" ] ||
	{ echo "SKIP: no tracefs or no syscalls:sys_enter_fsync event" >&2; exit 77; }

G_DIR=$(mktemp -d /tmp/nfswb-report-ganesha.XXXXXX) || exit 1
DISK=$(mktemp -d /var/tmp/nfswb-report-disk.XXXXXX) || exit 1
trap cleanup EXIT
trap 'exit 1' INT TERM

g_start "$DISK"
rc=$?
if [ $rc -ne 0 ]; then
	echo "SKIP: $G_WHY" >&2
	exit 77
fi
threads_before=$(ls /proc/"$G_PID"/task | wc -l)
SRV=(--server "127.0.0.1:$G_NFS_PORT" --mount-port "$G_MNT_PORT" --timeout 60s)

# record first, while Ganesha has only the threads of an idle server.
record_start "$REPORT" "$G_DIR/rec" -p "$G_PID"
check "record is running: $(cat "$G_DIR/rec.err")" test $? = 0

# 4 clients x 48M, a COMMIT every 4M: 48 COMMITs, each one fsync.
timeout 300 "$LOAD" "${SRV[@]}" --export "$DISK" --clients 4 --size 48M \
	--commit-every 4M --json >"$G_DIR/load.json"
rc=$?
check "nfswb-load exits 0 (got $rc)" [ $rc -eq 0 ]
threads_after=$(ls /proc/"$G_PID"/task | wc -l)
echo "Ganesha threads: $threads_before before the clients, $threads_after after"
sleep 1
kill -INT "$REC_PID"
wait "$REC_PID"
rc=$?
REC_PID=
check "record exits 0 on SIGINT (got $rc)" [ $rc -eq 0 ]

load_commits=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["commit"]["ops"])' "$G_DIR/load.json")
"$REPORT" summary --json "$G_DIR/rec" >"$G_DIR/summary.json" 2>"$G_DIR/summary.err"
rc=$?
check "summary exits 0 (got $rc): $(cat "$G_DIR/summary.err")" [ $rc -eq 0 ]
read -r src count < <(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(d["commit_source"], d["commit_latency_us"]["count"])' "$G_DIR/summary.json")
echo "nfswb-load sent $load_commits COMMITs; nfswb-report counted $count from $src"
check "nfswb-load sent 48 COMMITs" [ "$load_commits" = 48 ]
check "the COMMITs were timed from fsync" [ "$src" = fsync ]
check "every COMMIT counted ($count of $load_commits)" [ "$count" = "$load_commits" ]
exit $fail
