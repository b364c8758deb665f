#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_metrics_commits.sh - nfswbd's COMMIT latency histogram against a
# real server and a real Prometheus, all on 127.0.0.1: NFS-Ganesha serves
# an export on the root disk, nfswbd (a dry run, commit-latency = yes,
# Ganesha's pid file) times its COMMITs through their fsync calls, and
# nfswb-report record -p times the same COMMITs beside it.  4 nfswb-load
# clients send 48 COMMITs; Prometheus must count 48 for the export, its
# histogram_quantile(0.99) must fall in the bucket of nfswb-report's p99,
# and every panel of doc/grafana-nfswb.json must return data.
# This host has no nfsd, so the fsync path is what feeds the histogram
# here; the nfsd_commit tracepoints and kprobe feed it in the lab.
# Exit 0 pass, 1 fail, 77 when Ganesha, Prometheus or the syscall events
# are missing.

set -u
srcdir=${srcdir:-$(dirname "$0")/..}
LOAD=${NFSWB_LOAD:-../tools/load/nfswb-load}
REPORT=${NFSWB_REPORT:-../tools/report/nfswb-report}
NFSWBD=${NFSWBD:-../server/nfswbd}
DASHBOARD=$srcdir/../doc/grafana-nfswb.json
. "$srcdir/ganesha/ganesha-lib.sh"
. "$srcdir/daemon/prometheus-lib.sh"
g_isolate "$0" "$@"

fail=0
skip() { echo "SKIP: $*" >&2; exit 77; }

PIDS=
cleanup() {
	local p
	for p in $PIDS; do
		kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	g_stop
	rm -rf "$G_DIR" "${DISK:-}"
}

for f in "$LOAD" "$REPORT" "$NFSWBD"; do
	[ -x "$f" ] || { echo "FAIL: $f not built" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || skip "Ganesha and tracefs need root"
for tool in prometheus curl python3; do
	command -v $tool >/dev/null || skip "$tool not installed (scripts/install-deps.sh)"
done
tracing=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$tracing" ] && [ -d "$tracing/events/syscalls/sys_enter_fsync" ] ||
	skip "no tracefs or no syscalls:sys_enter_fsync event"

G_DIR=$(mktemp -d /tmp/nfswb-metrics-commits.XXXXXX) || exit 1
DISK=$(mktemp -d /var/tmp/nfswb-metrics-disk.XXXXXX) || exit 1
trap cleanup EXIT
trap 'exit 1' INT TERM

g_start "$DISK" || skip "$G_WHY"
METRICS_PORT=$(g_free_port) && PROM_PORT=$(g_free_port) || skip "no free port"
[ "$METRICS_PORT" != "$PROM_PORT" ] || PROM_PORT=$((METRICS_PORT + 1))

# nfswbd: a dry run on the export, COMMITs timed from Ganesha's fsyncs.
echo "$DISK (background_time=2s)" > "$G_DIR/nfswb.exports"
cat > "$G_DIR/nfs.conf" <<EOF
[nfswbd]
commit-latency = yes
commit-latency-pid-file = $G_DIR/ganesha.pid
EOF
"$NFSWBD" -F --dry-run -c "$G_DIR/nfswb.exports" --nfs-conf "$G_DIR/nfs.conf" \
	--state-dir "$G_DIR/state" --metrics-listen "127.0.0.1:$METRICS_PORT" \
	2>"$G_DIR/nfswbd.err" &
nfswbd_pid=$!
PIDS="$PIDS $nfswbd_pid"
for _ in $(seq 100); do
	grep -q "commit latency from\|COMMIT latency histogram" "$G_DIR/nfswbd.err" && break
	sleep 0.1
done
check "nfswbd times COMMITs from Ganesha's fsync: $(grep -i commit "$G_DIR/nfswbd.err")" \
	grep -q "commit latency from fsync/fdatasync of process $G_PID" "$G_DIR/nfswbd.err"

for _ in $(seq 50); do [ -s "$G_DIR/state/status.json" ] && break; sleep 0.1; done
st=$("$NFSWBD" --status --state-dir "$G_DIR/state")
check "--status names the metrics and the COMMIT source: $(echo "$st" | grep metrics)" \
	sh -c "echo '$st' | grep -q '^  metrics     http://127.0.0.1:$METRICS_PORT/metrics; COMMIT latency from fsync/fdatasync of process $G_PID'"

# Prometheus scrapes it from the start, so that rates see the COMMITs.
prom_start "$G_DIR" "$PROM_PORT" "127.0.0.1:$METRICS_PORT"
PIDS="$PIDS $PROM_PID"
up() { [ "$(prom_query 'up{job="nfswbd"}' | cut -d' ' -f2)" = 1 ]; }
for _ in $(seq 120); do up && break; sleep 0.5; done
check "Prometheus scrapes nfswbd before the COMMITs" up

# nfswb-report record beside it: the reference figures.
record_start "$REPORT" "$G_DIR/rec" -p "$G_PID"

timeout 300 "$LOAD" --server "127.0.0.1:$G_NFS_PORT" --mount-port "$G_MNT_PORT" \
	--timeout 60s --export "$DISK" --clients 4 --size 48M --commit-every 4M \
	--json >"$G_DIR/load.json"
check "nfswb-load exits 0 (got $?)" [ $? -eq 0 ]
sleep 1
kill -INT "$REC_PID"
wait "$REC_PID"
"$REPORT" summary --json "$G_DIR/rec" >"$G_DIR/summary.json" ||
	{ echo "FAIL: summary" >&2; exit 1; }
read -r count p99 < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["commit_latency_us"]
print(d["count"], d["p99"])' "$G_DIR/summary.json")
echo "nfswb-report: $count COMMITs, p99 $p99 us"
check "nfswb-report counted the 48 COMMITs" [ "$count" = 48 ]

# The daemon's own figures, straight from the listener.  They are
# published every status-interval (1 s) from the trace read at each
# sample, so the last COMMITs may show up to two seconds after they
# completed, more on a loaded machine: wait for them, at most 20 s, and
# a second more, to see that none is counted twice.
fetch_metrics() {
	curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" -o "$G_DIR/metrics.txt"
}
counts_48() {
	grep -q "^nfswb_commit_latency_seconds_count{bdi=\"[0-9:]*\",export=\"$DISK\"} 48$" "$G_DIR/metrics.txt"
}
for _ in $(seq 100); do fetch_metrics && counts_48 && break; sleep 0.2; done
sleep 1
fetch_metrics
check "nfswbd counts 48 COMMITs for export $DISK: $(grep '^nfswb_commit_latency_seconds_count' "$G_DIR/metrics.txt")" \
	counts_48
if command -v promtool >/dev/null; then
	promtool check metrics < "$G_DIR/metrics.txt" >"$G_DIR/lint" 2>&1
	rc=$?
	check "promtool check metrics with the histogram is clean: $(cat "$G_DIR/lint")" \
		[ $rc -eq 0 -a ! -s "$G_DIR/lint" ]
fi

for _ in $(seq 120); do
	read -r n v < <(prom_query 'sum(nfswb_commit_latency_seconds_count)')
	[ "$v" = 48 ] && break
	sleep 0.5
done
check "Prometheus has the 48 COMMITs (got $v)" [ "$v" = 48 ]
read -r n q < <(prom_query 'histogram_quantile(0.99, sum by (le) (nfswb_commit_latency_seconds_bucket))')
echo "Prometheus: histogram_quantile(0.99) = $q s"
# The bucket of nfswb-report's p99: bound(k-1) < p99 <= bound(k).
python3 - "$p99" "$q" <<'EOF' || fail=1
import sys
p99_ms, q = int(sys.argv[1]) / 1000.0, float(sys.argv[2]) * 1000.0
bounds = [0.1 * 1.5 ** k for k in range(30)]
k = next((i for i, b in enumerate(bounds) if p99_ms <= b), None)
lo = bounds[k - 1] if k else 0.0
hi = bounds[k] if k is not None else float("inf")
ok = lo <= q <= hi
print(("ok: " if ok else "FAIL: ") +
      f"Prometheus p99 {q:.3f} ms in nfswb-report's p99 bucket ({lo:.3f}, {hi:.3f}] ms (p99 {p99_ms:.3f} ms)",
      file=sys.stdout if ok else sys.stderr)
sys.exit(0 if ok else 1)
EOF

# Every panel of the dashboard returns data.
prom_panels "$DASHBOARD" > "$G_DIR/exprs"
check "the dashboard has queries" test -s "$G_DIR/exprs"
sleep 2
while IFS=$'\t' read -r title expr; do
	read -r n v < <(prom_query "$expr")
	check "panel '$title' returns data ($n series, first $v): $expr" \
		[ "$n" -ge 1 -a "$v" != NaN ]
done < "$G_DIR/exprs"

# The daemon's tracefs instance goes with it; one left by SIGKILL goes
# at the next start.
inst=$tracing/instances/nfswbd-$nfswbd_pid
check "nfswbd's instance exists while it runs" test -d "$inst"
kill -TERM "$nfswbd_pid"
wait "$nfswbd_pid"
check "nfswbd's instance removed at exit" test ! -e "$inst"
start_nfswbd() {	# start_nfswbd: a dry run with the histogram, as $!
	"$NFSWBD" -F --dry-run -c "$G_DIR/nfswb.exports" --nfs-conf "$G_DIR/nfs.conf" \
		--state-dir "$G_DIR/state2" --metrics-file "$G_DIR/m.prom" \
		2>>"$G_DIR/nfswbd2.err" &
}
start_nfswbd
killed=$!
for _ in $(seq 100); do [ -d "$tracing/instances/nfswbd-$killed" ] && break; sleep 0.1; done
kill -KILL "$killed"
wait "$killed" 2>/dev/null
check "SIGKILL leaves nfswbd's instance" test -d "$tracing/instances/nfswbd-$killed"
start_nfswbd
next=$!
for _ in $(seq 100); do [ -d "$tracing/instances/nfswbd-$next" ] && break; sleep 0.1; done
check "the next nfswbd removes it" test ! -e "$tracing/instances/nfswbd-$killed"
kill -TERM "$next"
wait "$next"

[ $fail -eq 0 ] || tail -n 20 "$G_DIR/nfswbd.err" >&2
exit $fail
