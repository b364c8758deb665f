#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_load_args.sh - nfswb-load's command-line errors and its bounded
# failures without a server: each case expects an exit code and a message,
# and must finish within a few seconds (nothing may hang).
# Exit 0 pass, 1 fail.

set -u
LOAD=${NFSWB_LOAD:-../tools/load/nfswb-load}
[ -x "$LOAD" ] || { echo "FAIL: $LOAD not built" >&2; exit 1; }

fail=0
tmp=$(mktemp -d /tmp/nfswb-load-args.XXXXXX) || exit 1
hang_pid=
cleanup() {
	[ -n "$hang_pid" ] && kill "$hang_pid" 2>/dev/null && wait "$hang_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# expect CODE PATTERN MAX_SECONDS ARGS...: exit CODE, stderr+stdout
# matching the extended regex PATTERN, in at most MAX_SECONDS.
expect() {
	local code=$1 pattern=$2 max=$3 rc start elapsed
	shift 3
	start=$(date +%s%N)
	timeout $((max + 10)) "$LOAD" "$@" >"$tmp/out" 2>&1
	rc=$?
	elapsed=$((($(date +%s%N) - start) / 1000000))
	if [ $rc -ne "$code" ]; then
		echo "FAIL: nfswb-load $*: exit $rc, expected $code" >&2
		sed 's/^/    /' "$tmp/out" >&2
		fail=1
	elif ! grep -Eq -- "$pattern" "$tmp/out"; then
		echo "FAIL: nfswb-load $*: output lacks /$pattern/:" >&2
		sed 's/^/    /' "$tmp/out" >&2
		fail=1
	elif [ $elapsed -gt $((max * 1000)) ]; then
		echo "FAIL: nfswb-load $*: took ${elapsed} ms, limit ${max} s" >&2
		fail=1
	else
		echo "ok: exit $code in ${elapsed} ms: $(head -n 1 "$tmp/out")"
	fi
}

S=(--server 127.0.0.1:2049 --export /srv)

# Usage errors: exit 2, naming the option and the value.
expect 2 "--server and --export are required" 2
expect 2 "--server and --export are required" 2 --server 127.0.0.1
expect 2 "unrecognized option '--frobnicate'" 2 "${S[@]}" --frobnicate
expect 2 "unexpected argument 'extra'" 2 "${S[@]}" extra
expect 2 "--size 0: must be more than 0" 2 "${S[@]}" --size 0
expect 2 "--size 12X: " 2 "${S[@]}" --size 12X
expect 2 "--size abc: " 2 "${S[@]}" --size abc
expect 2 "--size -1: " 2 "${S[@]}" --size -1
expect 2 "--rate fast: " 2 "${S[@]}" --rate fast
expect 2 "--wsize 32M: must be from 1 to 16M" 2 "${S[@]}" --wsize 32M
expect 2 "--clients 0: expected a whole number from 1 to 1024" 2 "${S[@]}" --clients 0
expect 2 "--clients 5000: expected a whole number" 2 "${S[@]}" --clients 5000
expect 2 "--clients 2x: expected a whole number" 2 "${S[@]}" --clients 2x
expect 2 "--iodepth 0: expected a whole number from 1 to 64" 2 "${S[@]}" --iodepth 0
expect 2 "--iodepth 65: expected a whole number from 1 to 64" 2 "${S[@]}" --iodepth 65
expect 2 "--commit-every 0: must be more than 0, or \"close\"" 2 "${S[@]}" --commit-every 0
expect 2 "--commit-every sometimes: " 2 "${S[@]}" --commit-every sometimes
expect 2 "--stable sync: expected unstable, data_sync or file_sync" 2 "${S[@]}" --stable sync
expect 2 "--duration 5x: " 2 "${S[@]}" --duration 5x
expect 2 "--timeout 0: must be from 1ms to 1 hour" 2 "${S[@]}" --timeout 0
expect 2 "--mount-port 70000: expected a whole number from 1 to 65535" 2 "${S[@]}" --mount-port 70000
expect 2 "--export srv: must be an absolute path" 2 --server 127.0.0.1 --export srv
expect 2 "--server 127.0.0.1:99999: port must be a number" 2 --server 127.0.0.1:99999 --export /srv
expect 2 "--server \[::1: expected \[ADDRESS\]:PORT" 2 --server "[::1" --export /srv
expect 0 "binary suffixes" 2 --help
expect 0 "^nfswb-load [0-9]" 2 --version

# A port nobody listens on: refused at once, exit 3, naming host and port.
port=
for _ in $(seq 50); do
	p=$((20000 + RANDOM % 20000))
	if ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
		port=$p
		break
	fi
done
if [ -n "$port" ]; then
	expect 3 "cannot connect to (nfs|mountd) at 127.0.0.1 port $port: Connection refused" 5 \
		--server "127.0.0.1:$port" --mount-port "$port" --export /srv
fi

# A server that accepts the connection and never answers: --timeout bounds
# the wait, exit 3.
if command -v python3 >/dev/null; then
	python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
conns = []
while True:
	c, _ = s.accept()
	conns.append(c)' >"$tmp/port" &
	hang_pid=$!
	for _ in $(seq 100); do
		[ -s "$tmp/port" ] && break
		sleep 0.1
	done
	hport=$(cat "$tmp/port")
	if [ -n "$hport" ]; then
		expect 3 "no reply to procedure 1 within 500 ms" 5 \
			--server "127.0.0.1:$hport" --mount-port "$hport" \
			--export /srv --timeout 500ms
	else
		echo "FAIL: the silent server did not start" >&2
		fail=1
	fi
fi

exit $fail
