#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd's metrics through the real consumers, all on 127.0.0.1: the
# metrics file and the HTTP listener pass `promtool check metrics`; a
# Prometheus (Debian's prometheus) scrapes the listener and its query API
# returns what status.json says; node_exporter's textfile collector
# (Debian's prometheus-node-exporter) reads the file without error; every
# PromQL expression of the Grafana dashboard in doc/ but the COMMIT panels
# (test_metrics_commits.sh) returns data.
# Exit 0 pass, 1 fail, 77 when Prometheus or node_exporter is missing.
. "${srcdir:-.}/daemon/daemon-lib.sh"
. "${srcdir:-.}/daemon/prometheus-lib.sh"
DASHBOARD=${srcdir:-.}/../doc/grafana-nfswb.json

for tool in prometheus promtool prometheus-node-exporter curl python3; do
	command -v $tool >/dev/null || skip "$tool not installed (scripts/install-deps.sh)"
done
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
METRICS_PORT=$(free_port) && PROM_PORT=$(free_port) && NODE_PORT=$(free_port) ||
	skip "no free port"
mkdir -p "$WORK/export1" "$WORK/textfile"
# A fixed bandwidth: the target (bandwidth x background_time) cannot move
# between the scrape and the status file read below.
echo "$WORK/export1 (background_time=2s,bandwidth=100M)" > "$WORK/a.exports"
printf '[nfswbd]\nmetrics-file = %s\n' "$WORK/textfile/nfswb.prom" > "$WORK/nfs.conf"

# A dry run: the figures are the same, nothing on the machine changes.
"$NFSWBD" -F --dry-run -c "$WORK/a.exports" --nfs-conf "$WORK/nfs.conf" \
	--state-dir "$WORK/state" --metrics-listen "127.0.0.1:$METRICS_PORT" \
	2>"$WORK/nfswbd.err" &
PIDS="$PIDS $!"
wait_for 10 test -s "$WORK/textfile/nfswb.prom" ||
	fail "no metrics file within 10 s: $(cat "$WORK/nfswbd.err")"
wait_for 10 curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" -o "$WORK/http.txt" ||
	fail "no HTTP answer within 10 s: $(cat "$WORK/nfswbd.err")"

# 1. promtool lints both outputs.
# Clean: no error and no lint message either.
promtool check metrics < "$WORK/textfile/nfswb.prom" >"$WORK/lint" 2>&1 &&
	[ ! -s "$WORK/lint" ] || fail "promtool check metrics (file): $(cat "$WORK/lint")"
promtool check metrics < "$WORK/http.txt" >"$WORK/lint" 2>&1 &&
	[ ! -s "$WORK/lint" ] || fail "promtool check metrics (HTTP): $(cat "$WORK/lint")"
grep -q "^nfswb_target_bytes{bdi=\"$BDI\"} [0-9]" "$WORK/http.txt" ||
	fail "no nfswb_target_bytes for bdi $BDI: $(cat "$WORK/http.txt")"
# OpenMetrics to who asks for it, ending in # EOF.
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' \
	-D "$WORK/om.head" "http://127.0.0.1:$METRICS_PORT/metrics" -o "$WORK/om.txt" ||
	fail "OpenMetrics request failed"
grep -qi '^Content-Type: application/openmetrics-text' "$WORK/om.head" ||
	fail "OpenMetrics Content-Type missing: $(cat "$WORK/om.head")"
[ "$(tail -n1 "$WORK/om.txt")" = "# EOF" ] || fail "OpenMetrics text does not end in # EOF"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$METRICS_PORT/nosuch")
[ "$code" = 404 ] || fail "GET /nosuch answered $code, not 404"
# A request that never ends is cut off; the listener keeps serving.
curl -s -o /dev/null -H "X-Long: $(head -c 9000 /dev/zero | tr '\0' x)" \
		"http://127.0.0.1:$METRICS_PORT/metrics"
curl -sf "http://127.0.0.1:$METRICS_PORT/metrics" -o /dev/null ||
	fail "listener stopped serving after an oversized request"

# 2. Prometheus scrapes the listener (OpenMetrics, as it asks for it).
prom_start "$WORK" "$PROM_PORT" "127.0.0.1:$METRICS_PORT"
PIDS="$PIDS $PROM_PID"
got_target() { [ "$(prom_query 'nfswb_target_bytes' | cut -d' ' -f1)" -ge 1 ] 2>/dev/null; }
wait_for 60 got_target ||
	fail "Prometheus has no nfswb_target_bytes after 60 s: $(tail -n 5 "$WORK/prometheus.log")"
[ "$(prom_query 'up{job="nfswbd"} == 1')" = "1 1" ] || fail "the nfswbd target is not up"
want=$(json_get "$WORK/state/status.json" '.devices[0].target_bytes')
got=$(prom_query "nfswb_target_bytes{bdi=\"$BDI\"}" | cut -d' ' -f2)
[ "$want" = 209715200 ] || fail "status.json says target $want, not 2 s at 100 MiB/s"
[ "$got" = "$want" ] || fail "Prometheus says target $got, status.json $want"

# 3. Every panel of the dashboard returns data from this Prometheus.
[ -r "$DASHBOARD" ] || fail "no dashboard $DASHBOARD"
prom_panels "$DASHBOARD" > "$WORK/exprs" ||
	fail "$DASHBOARD is not a Grafana dashboard"
[ -s "$WORK/exprs" ] || fail "the dashboard has no queries"
# rate() needs two scrapes in its window.
sleep 3
while IFS=$'\t' read -r title expr; do
	# The COMMIT panels need COMMITs: test_metrics_commits.sh runs them.
	case $expr in *nfswb_commit_latency*) continue ;; esac
	read -r n _ < <(prom_query "$expr")
	[ "$n" -ge 1 ] 2>/dev/null || fail "panel '$title': '$expr' returned $n series"
	echo "ok: panel '$title' ($n series)"
done < "$WORK/exprs"

# 4. node_exporter's textfile collector reads the file.
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$WORK/textfile" \
	--web.listen-address="127.0.0.1:$NODE_PORT" >"$WORK/node.log" 2>&1 &
PIDS="$PIDS $!"
wait_for 20 curl -sf "http://127.0.0.1:$NODE_PORT/metrics" -o "$WORK/node.txt" ||
	fail "node_exporter did not answer: $(tail -n 5 "$WORK/node.log")"
grep -q '^node_textfile_scrape_error 0' "$WORK/node.txt" ||
	fail "node_exporter's textfile collector failed: $(grep -i textfile "$WORK/node.txt" "$WORK/node.log")"
grep -q "^nfswb_dirty_bytes{bdi=\"$BDI\"}" "$WORK/node.txt" ||
	fail "nfswb_dirty_bytes not passed on by node_exporter"

# 5. The file goes with the daemon: stale figures would read as live.
for p in $PIDS; do kill -TERM "$p"; break; done
wait_for 10 test ! -e "$WORK/textfile/nfswb.prom" ||
	fail "the metrics file outlived the daemon"
exit 0
