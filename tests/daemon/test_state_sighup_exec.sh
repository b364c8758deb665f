#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A SIGHUP right after exec (a reload asked for while
# the daemon starts) must not kill it.  sighup_early.so sends it from a
# constructor, after the dynamic loader and before main(), every time;
# 100 tries (NFSWB_SIGHUP_TRIES): the daemon must live, turn the held
# signal into a reload, and exit 0 on SIGTERM.
. "${srcdir:-.}/daemon/daemon-lib.sh"

preload=$(readlink -f daemon/sighup_early.so) || skip "daemon/sighup_early.so not built"
[ -f "$preload" ] || skip "daemon/sighup_early.so not built"
# The preload comes before a sanitizer's runtime in the library list.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
conf="$WORK/ok.exports"
echo "$WORK/export1  (background_time=1s)" > "$conf"
tries=${NFSWB_SIGHUP_TRIES:-100}
killed=0
for i in $(seq "$tries"); do
	# A log of its own: the shell truncates it only once the child runs.
	log="$WORK/log$i"
	LD_PRELOAD=$preload "$NFSWBD" -F --dry-run -c "$conf" \
		--nfs-conf "$NFS_CONF" --state-dir "$WORK/state" 2>"$log" &
	pid=$!
	PIDS=$pid
	if ! wait_for 5 grep -q "SIGHUP: reloading" "$log"; then
		if ! kill -0 $pid 2>/dev/null; then
			wait $pid
			echo "try $i: killed (status $?): $(cat "$log")" >&2
			killed=$((killed + 1))
			continue
		fi
		fail "try $i: the SIGHUP sent before main() was lost: $(cat "$log")"
	fi
	kill -TERM $pid
	wait $pid || fail "try $i: exit $? after SIGHUP and SIGTERM: $(cat "$log")"
	rm -f "$log"
done
PIDS=
[ $killed -eq 0 ] || fail "a SIGHUP before main() killed the daemon"
exit 0
