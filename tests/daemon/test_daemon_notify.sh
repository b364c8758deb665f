#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What systemd's Type=notify sees from nfswbd (sd_notify(3) on a
# NOTIFY_SOCKET of our own): READY=1 with a STATUS= line once started,
# and, acting, only after every mechanism is attached; RELOADING=1 and
# READY=1 around a SIGHUP, with a STATUS= that says when a reload was
# refused; STOPPING=1 on SIGTERM.
. "${srcdir:-.}/daemon/daemon-lib.sh"

command -v python3 >/dev/null || skip "needs python3"
sock="$WORK/notify"
msgs="$WORK/notify.log"
log="$WORK/log"

# One line per datagram, newlines inside it shown as " | ".
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        try:
            m = s.recv(4096)
        except socket.timeout:
            break
        out.write(m.decode().replace("\n", " | ") + "\n")
' "$sock" "$msgs" &
PIDS="$!"
wait_for 5 test -S "$sock" || fail "the notify listener did not start"
: > "$msgs"

got() { grep -q -- "$1" "$msgs"; }
count() { grep -c -- "$1" "$msgs"; }

conf="$WORK/a.exports"
echo "$WORK/export1  (background_time=1s)" > "$conf"
NOTIFY_SOCKET=$sock "$NFSWBD" -F --dry-run -c "$conf" --nfs-conf "$NFS_CONF" \
	--state-dir "$WORK/state" 2>"$log" &
pid=$!
PIDS="$pid $PIDS"

wait_for 5 got '^READY=1 | STATUS=1 export(s) on 1 device(s), dry run$' ||
	fail "no READY=1 with a STATUS= line: $(cat "$msgs") / $(cat "$log")"

# A refused reload: RELOADING=1, then READY=1 saying so.
echo "$WORK/export1  (background_time=never)" > "$conf"
kill -HUP $pid
wait_for 5 got 'STATUS=reload failed with 1 error(s); the previous configuration stays in force' ||
	fail "a refused reload is not in STATUS=: $(cat "$msgs")"
got '^RELOADING=1$' || fail "no RELOADING=1 before the refused reload: $(cat "$msgs")"

# A good reload.
printf '%s\n%s\n' "$WORK/export1  (background_time=1s)" \
	"$WORK/export2  (background_time=2s)" > "$conf"
kill -HUP $pid
wait_for 5 got 'STATUS=2 export(s) on 1 device(s), dry run, reloaded$' ||
	fail "a good reload is not in STATUS=: $(cat "$msgs")"
[ "$(count '^RELOADING=1$')" -eq 2 ] || fail "RELOADING=1 not sent per reload: $(cat "$msgs")"

kill -TERM $pid
wait $pid || fail "SIGTERM: exit $?"
got '^STOPPING=1$' || fail "no STOPPING=1 on SIGTERM: $(cat "$msgs")"

# Acting (root, an ext4 loop device): READY=1 comes after the attach.
[ "$(id -u)" -eq 0 ] || { echo "acting part needs root: not run"; exit 0; }
limit_daemon 64M 0 notify
: > "$msgs"
: > "$log"
NOTIFY_SOCKET=$sock start
wait_for 10 got '^READY=1' || fail "acting: no READY=1: $(cat "$log")"
grep -q "limit mechanism attached" "$log" ||
	fail "acting: READY=1 before the limit mechanism attached: $(cat "$log")"
kill -TERM $pid
wait $pid || fail "acting: SIGTERM: exit $?"
restored || fail "acting: the bdi's settings were not put back"
exit 0
