# SPDX-License-Identifier: GPL-2.0-or-later
# prometheus-lib.sh - a Prometheus (Debian's prometheus) on 127.0.0.1 for
# the metrics tests, started by PID, and its HTTP query API.  Sourced.
#
# prom_start DIR PORT TARGET: scrape TARGET (ADDR:PORT) every second,
# storage in DIR, listening on 127.0.0.1:PORT; sets PROM_PID (the caller
# ends it) and PROM_PORT.
# prom_query EXPR: prints "SERIES VALUE": how many series the instant
# query returned and the first value that is a number (else the first
# value; a series with no sample in a rate window is NaN); "-1 -" when
# the query fails.

prom_start() {
	cat > "$1/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: nfswbd
	    static_configs:
	      - targets: ['$3']
	EOF
	PROM_PORT=$2
	prometheus --config.file="$1/prometheus.yml" --storage.tsdb.path="$1/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >"$1/prometheus.log" 2>&1 &
	PROM_PID=$!
}

prom_query() {
	curl -s -G "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" | python3 -c 'import json, sys
try:
	d = json.load(sys.stdin)
	r = d["data"]["result"] if d["status"] == "success" else None
except Exception:
	r = None
if r is None:
	print(-1, "-")
else:
	vals = [x["value"][1] for x in r]
	num = [v for v in vals if v != "NaN"]
	print(len(r), (num or vals or ["-"])[0])'
}

# prom_panels DASHBOARD: "TITLE<TAB>EXPR" per query of a Grafana
# dashboard, with $__rate_interval as 1m and $instance as .*
prom_panels() {
	python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["panels"]:
	for t in p.get("targets", []):
		e = t["expr"].replace("$__rate_interval", "1m").replace("$instance", ".*")
		print(p["title"] + "\t" + e)' "$1"
}
