#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswbd's metrics through the real consumers, all on 127.0.0.1: the
# metrics file and the HTTP listener pass `promtool check metrics`; a
# Prometheus (Debian's prometheus) scrapes the listener and its query API
# returns what status.json says; node_exporter's textfile collector
# (Debian's prometheus-node-exporter) reads the file without error; every
# PromQL expression of the Grafana dashboard in doc/ returns data.
# Exit 0 pass, 1 fail, 77 when Prometheus or node_exporter is missing.
. "${srcdir:-.}/unit/daemon-lib.sh"
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
# query EXPR: the number of series the instant query returns (-1: error)
query() {
	curl -s -G "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" |
		python3 -c 'import json, sys
try:
	d = json.load(sys.stdin)
	print(len(d["data"]["result"]) if d["status"] == "success" else -1)
except Exception:
	print(-1)'
}
# value EXPR: the first series' value
value() {
	curl -s -G "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" |
		python3 -c 'import json, sys
print(json.load(sys.stdin)["data"]["result"][0]["value"][1])'
}

METRICS_PORT=$(free_port) && PROM_PORT=$(free_port) && NODE_PORT=$(free_port) ||
	skip "no free port"
mkdir -p "$WORK/export1" "$WORK/textfile"
echo "$WORK/export1 (background_time=2s)" > "$WORK/a.exports"
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
promtool check metrics < "$WORK/textfile/nfswb.prom" >"$WORK/lint" 2>&1 ||
	fail "promtool check metrics (file): $(cat "$WORK/lint")"
promtool check metrics < "$WORK/http.txt" >"$WORK/lint" 2>&1 ||
	fail "promtool check metrics (HTTP): $(cat "$WORK/lint")"
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
cat > "$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: nfswbd
    static_configs:
      - targets: ['127.0.0.1:$METRICS_PORT']
EOF
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PIDS="$PIDS $!"
got_target() { [ "$(query 'nfswb_target_bytes')" -ge 1 ] 2>/dev/null; }
wait_for 60 got_target ||
	fail "Prometheus has no nfswb_target_bytes after 60 s: $(tail -n 5 "$WORK/prometheus.log")"
[ "$(query 'up{job="nfswbd"} == 1')" = 1 ] || fail "the nfswbd target is not up"
want=$(json_get "$WORK/state/status.json" '.devices[0].target_bytes')
got=$(value "nfswb_target_bytes{bdi=\"$BDI\"}")
[ "$got" = "$want" ] || fail "Prometheus says target $got, status.json $want"

# 3. Every panel of the dashboard returns data from this Prometheus.
[ -r "$DASHBOARD" ] || fail "no dashboard $DASHBOARD"
python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["panels"]:
	for t in p.get("targets", []):
		print(p["title"] + "\t" + t["expr"])' "$DASHBOARD" > "$WORK/exprs" ||
	fail "$DASHBOARD is not a Grafana dashboard"
[ -s "$WORK/exprs" ] || fail "the dashboard has no queries"
# rate() needs two scrapes in its window.
sleep 3
while IFS=$'\t' read -r title expr; do
	# Grafana's $__rate_interval, as the panels use it.
	e=${expr//\$__rate_interval/1m}
	e=${e//\$instance/.*}
	n=$(query "$e")
	[ "$n" -ge 1 ] 2>/dev/null || fail "panel '$title': '$e' returned $n series"
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
