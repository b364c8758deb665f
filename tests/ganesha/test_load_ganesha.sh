#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_load_ganesha.sh - nfswb-load against a real NFSv3 server: NFS-Ganesha
# on 127.0.0.1, started and stopped by PID, exporting a directory on the
# root disk and a tmpfs.  Checks bytes written (on the server's disk too),
# COMMIT counts per policy, stable writes needing no COMMIT, --verify,
# pacing, the JSON, a refused mount, and the rewrite + recommit after the
# server restarts between the WRITEs and the COMMIT.
# Exit 0 pass, 1 fail, 77 when Ganesha cannot run here.

set -u
srcdir=${srcdir:-$(dirname "$0")/..}
LOAD=${NFSWB_LOAD:-../tools/load/nfswb-load}
. "$srcdir/ganesha/ganesha-lib.sh"
g_isolate "$0" "$@"

fail=0
TMPFS=
TINY=


cleanup() {
	g_stop
	[ -n "$TMPFS" ] && umount "$TMPFS" 2>/dev/null
	[ -n "$TINY" ] && umount "$TINY" 2>/dev/null
	rm -rf "$G_DIR" "${DISK:-}"
}

[ -x "$LOAD" ] || { echo "FAIL: $LOAD not built" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: Ganesha needs root" >&2; exit 77; }

G_DIR=$(mktemp -d /tmp/nfswb-load-test.XXXXXX) || exit 1
# A directory on the root disk (not /tmp, which may be a tmpfs elsewhere).
DISK=$(mktemp -d /var/tmp/nfswb-load-disk.XXXXXX) || exit 1
export DISK
trap cleanup EXIT
trap 'exit 1' INT TERM

TMPFS=$G_DIR/tmpfs
mkdir -p "$TMPFS"
if ! mount -t tmpfs -o size=256m nfswb-load-test "$TMPFS" 2>/dev/null; then
	echo "note: cannot mount a tmpfs here; the tmpfs export is a plain directory"
	TMPFS_MOUNTED=
	TMPFS_DIR=$TMPFS
	TMPFS=
else
	TMPFS_MOUNTED=1
	TMPFS_DIR=$TMPFS
fi

# A 1 MiB tmpfs fills up: WRITE must fail with NFS3ERR_NOSPC.
TINY=$G_DIR/tiny
mkdir -p "$TINY"
if ! mount -t tmpfs -o size=1m nfswb-load-tiny "$TINY" 2>/dev/null; then
	TINY=
fi

g_start "$DISK" "$TMPFS_DIR" ${TINY:+"$TINY"}
rc=$?
if [ $rc -ne 0 ]; then
	echo "SKIP: $G_WHY" >&2
	exit 77
fi
echo "Ganesha pid $G_PID on 127.0.0.1 nfs port $G_NFS_PORT mount port $G_MNT_PORT${NFSWB_LOAD_NETNS:+ (network namespace of its own)}"
SRV=(--server "127.0.0.1:$G_NFS_PORT" --mount-port "$G_MNT_PORT" --timeout 60s)

# jcheck FILE: parse FILE as JSON, then pycheck each stdin line
# "DESCRIPTION | PYTHON-EXPRESSION" over the document d.
jcheck() {
	pycheck 'import json, os, sys
try:
    d = json.load(open(sys.argv[1]))
    print("ok: JSON parses")
except Exception as e:
    print("FAIL: %s is not JSON: %s" % (sys.argv[1], e), file=sys.stderr)
    sys.exit(1)' "$1"
}

# 1. Three clients, unstable, COMMIT every 1M of 4M files, --verify, kept.
out=$G_DIR/run1.json
timeout 120 "$LOAD" "${SRV[@]}" --export "$DISK" --clients 3 --size 4M \
	--wsize 256k --commit-every 1M --verify --keep --json >"$out"
rc=$?
check "3 clients on the disk export exit 0 (got $rc)" [ $rc -eq 0 ]
jcheck "$out" <<'EOF'
JSON parses | isinstance(d, dict)
12MiB written | d["write"]["bytes"] == 3 * 4 * 2**20
48 WRITEs of 256KiB | d["write"]["ops"] == 48 and d["wsize"] == 256 * 1024
4 COMMITs per client (every 1M, nothing left at close) | d["commit"]["ops"] == 12 and all(c["commit_ops"] == 4 for c in d["per_client"])
COMMIT latency summary has 12 samples | d["commit_latency_us"]["count"] == 12 and d["commit_latency_us"]["max"] >= d["commit_latency_us"]["min"] > 0
verify ok | d["verify"] == "ok" and all(c["verify"] == "ok" for c in d["per_client"])
12MiB read back | d["read"]["bytes"] == 3 * 4 * 2**20
no verifier change | d["verifier_changes"] == 0
error is null | d["error"] is None
the server's disk holds the 3 files, 4MiB each | [os.stat(os.path.join(os.environ["DISK"], c["file"])).st_size for c in d["per_client"]] == [4 * 2**20] * 3
EOF

# 2. FILE_SYNC writes are stable: a client needs no COMMIT.
out=$G_DIR/run2.json
timeout 120 "$LOAD" "${SRV[@]}" --export "$TMPFS_DIR" --clients 2 --size 2M \
	--stable file_sync --verify --json >"$out"
rc=$?
check "file_sync on the tmpfs export exits 0 (got $rc)" [ $rc -eq 0 ]
jcheck "$out" <<'EOF'
file_sync: no COMMIT | d["commit"]["ops"] == 0 and d["commit_latency_us"]["count"] == 0
file_sync: 4MiB written, verify ok | d["write"]["bytes"] == 4 * 2**20 and d["verify"] == "ok"
EOF
left=$(find "$TMPFS_DIR" -name 'nfswb-load.*' | wc -l)
check "files removed without --keep (found $left)" [ "$left" -eq 0 ]

# 3. Text output, COMMIT on close.
out=$G_DIR/run3.txt
timeout 120 "$LOAD" "${SRV[@]}" --export "$TMPFS_DIR" --clients 4 --size 3M \
	--verify >"$out"
rc=$?
check "4 clients, text output, exit 0 (got $rc)" [ $rc -eq 0 ]
check "text has a write line with BW" grep -q "^  write: IOPS=.*BW=.*MB/s" "$out"
check "text counts 4 COMMITs (one per close)" grep -q "^  commit: count=4$" "$out"
check "text has COMMIT percentiles" grep -Eq "commit percentiles \((usec|msec|sec)\)" "$out"
check "text says verify OK" grep -q "^  verify: OK$" "$out"

# 4. Pacing: at 2MiB/s for 1s a client sends at most 2MiB.
out=$G_DIR/run4.json
timeout 120 "$LOAD" "${SRV[@]}" --export "$TMPFS_DIR" --size 1M --wsize 64k \
	--rate 2M --duration 1s --verify --json >"$out"
rc=$?
check "paced run exits 0 (got $rc)" [ $rc -eq 0 ]
jcheck "$out" <<'EOF'
paced: at most 2MiB in 1s | 0 < d["write"]["bytes"] <= 2 * 2**20
paced: the run took about 1s | 800 <= d["write"]["runtime_ms"] <= 3000
paced: rewrote the 1MiB file at least once, verify ok | d["per_client"][0]["passes"] >= 1 and d["verify"] == "ok"
EOF

# 4b. --iodepth: several WRITEs in flight per client.  Each client sends 8
# before it reads a reply, so its count of calls sent and not yet answered
# reaches 8; the COMMITs still come after every WRITE of their range.
out=$G_DIR/run4b.json
timeout 120 "$LOAD" "${SRV[@]}" --export "$DISK" --clients 2 --size 8M \
	--wsize 64k --iodepth 8 --commit-every 2M --verify --json >"$out"
rc=$?
check "--iodepth 8 exits 0 (got $rc)" [ $rc -eq 0 ]
jcheck "$out" <<'EOF'
iodepth: reported | d["iodepth"] == 8
iodepth: every client had 8 WRITEs in flight | d["max_in_flight"] == 8 and all(c["max_in_flight"] == 8 for c in d["per_client"])
iodepth: 16MiB in 256 WRITEs | d["write"]["bytes"] == 16 * 2**20 and d["write"]["ops"] == 256
iodepth: 4 COMMITs per client | all(c["commit_ops"] == 4 for c in d["per_client"])
iodepth: verify ok | d["verify"] == "ok"
EOF

# 5. A path that is not exported: the mount is refused with its name.
err=$G_DIR/run5.err
timeout 60 "$LOAD" "${SRV[@]}" --export /nonexistent-export >/dev/null 2>"$err"
rc=$?
check "refused mount exits 4 (got $rc)" [ $rc -eq 4 ]
check "refused mount names MNT3ERR_*" grep -q "MNT3ERR_" "$err"

# 6. A full file system: the WRITE's status is named, exit 5, bounded.
if [ -n "$TINY" ]; then
	err=$G_DIR/run6.err
	timeout 60 "$LOAD" "${SRV[@]}" --export "$TINY" --size 4M >/dev/null 2>"$err"
	rc=$?
	check "WRITE to a full export exits 5 (got $rc)" [ $rc -eq 5 ]
	check "the message names WRITE, the file and NFS3ERR_NOSPC" \
		grep -Eq "WRITE nfswb-load\.[^ ]+ offset [0-9]+: NFS3ERR_NOSPC" "$err"
	sed 's/^/    /' "$err"
else
	echo "note: no tmpfs, NFS3ERR_NOSPC not tested"
fi

# 7. The server crashes and restarts between WRITEs and the COMMIT: the
# new write verifier makes the client write the range again and recommit.
# The rate stretches the writes over ~2 s; SIGKILL stands for the crash
# (and skips Ganesha's 10 s shutdown); the client keeps reconnecting
# meanwhile (timeout 90 s).
# restart_run OUT ARGS...: nfswb-load ARGS with JSON into OUT while the
# server is killed after 1 s and started again; sets rc to its exit code.
restart_run() {
	local out=$1 load_pid
	shift
	timeout 150 "$LOAD" "${SRV[@]}" --timeout 90s --export "$DISK" \
		--verify --json "$@" >"$out" &
	load_pid=$!
	sleep 1
	g_kill_server
	if ! g_launch; then
		echo "FAIL: Ganesha did not restart: $G_WHY" >&2
		fail=1
		kill "$load_pid" 2>/dev/null
	fi
	wait "$load_pid"
	rc=$?
}
out=$G_DIR/run7.json
restart_run "$out" --size 4M --wsize 256k --rate 2M
check "restart run exits 0 (got $rc)" [ $rc -eq 0 ]
jcheck "$out" <<'EOF'
restart: the client reconnected | d["reconnects"] >= 1
restart: verifier change seen and data rewritten | d["verifier_changes"] >= 1 and d["rewritten_bytes"] > 0
restart: verify ok | d["verify"] == "ok"
EOF

# 7b. The same with 4 WRITEs in flight: every one is sent again on the new
# connection, and the data still reads back right.
out=$G_DIR/run7b.json
restart_run "$out" --size 4M --wsize 64k --iodepth 4 --rate 2M
check "restart with --iodepth 4 exits 0 (got $rc)" [ $rc -eq 0 ]
jcheck "$out" <<'EOF'
restart iodepth: reconnected | d["reconnects"] >= 1
restart iodepth: verifier change seen and data rewritten | d["verifier_changes"] >= 1 and d["rewritten_bytes"] > 0
restart iodepth: verify ok | d["verify"] == "ok"
EOF

# 8. SIGINT stops a long paced run at once: what was written is committed,
# the JSON says why, exit 1.
out=$G_DIR/run8.json
timeout 60 "$LOAD" "${SRV[@]}" --export "$TMPFS_DIR" --clients 2 --size 64M \
	--wsize 64k --rate 1M --duration 60s --json >"$out" &
load_pid=$!
sleep 1.5
t0=$(date +%s%N)
kill -INT "$load_pid"
wait "$load_pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "SIGINT: exit 1 (got $rc) within 5 s (took $ms ms)" [ $rc -eq 1 -a $ms -lt 5000 ]
jcheck "$out" <<'EOF'
SIGINT: error says interrupted | d["error"] == "interrupted"
SIGINT: each client committed what it wrote | all(c["commit_ops"] == 1 and c["bytes_written"] > 0 for c in d["per_client"])
EOF

# 9. No ports given: both come from rpcbind.  Only when rpcbind holds our
# Ganesha's ports (another test's Ganesha may have registered last).
reg=$(rpcinfo -p 127.0.0.1 2>/dev/null)
if echo "$reg" | grep -Eq "^ *100003 +3 +tcp +$G_NFS_PORT " &&
   echo "$reg" | grep -Eq "^ *100005 +3 +tcp +$G_MNT_PORT "; then
	out=$G_DIR/run9.json
	timeout 60 "$LOAD" --server 127.0.0.1 --export "$TMPFS_DIR" --size 1M \
		--verify --timeout 20s --json >"$out"
	rc=$?
	check "ports from rpcbind: exit 0 (got $rc)" [ $rc -eq 0 ]
	G_NFS_PORT=$G_NFS_PORT G_MNT_PORT=$G_MNT_PORT jcheck "$out" <<'EOF'
rpcbind gave our ports | d["nfs_port"] == int(os.environ["G_NFS_PORT"]) and d["mount_port"] == int(os.environ["G_MNT_PORT"])
rpcbind run verified | d["verify"] == "ok"
EOF
else
	echo "note: rpcbind does not hold this Ganesha's ports; lookup not tested"
fi

if [ $fail -ne 0 ]; then
	echo "--- Ganesha log tail" >&2
	tail -n 20 "$G_DIR/ganesha.log" >&2
fi
exit $fail
