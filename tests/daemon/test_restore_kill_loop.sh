#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kill -9 / restart loop: nfswbd in files+limit mode on an ext4 loop image
# is killed with SIGKILL at random moments (before, during and after it
# changes the bdi's strict_limit and max_bytes), and restarted; after the
# last round and a SIGTERM every value must be as it was.
#
#   NFSWB_KILL_LOOPS=100 make check TESTS=daemon/test_restore_kill_loop.sh
#
# (default 10 rounds, to keep make check quick).
. "${srcdir:-.}/daemon/daemon-lib.sh"

loops=${NFSWB_KILL_LOOPS:-10}
limit_daemon 64M 987654 kill

changed=0
for round in $(seq "$loops"); do
	start
	# Half the rounds die at a random moment (maybe mid-change), half
	# once the cap is certainly in force.
	if [ $((RANDOM % 2)) -eq 0 ]; then
		sleep "0.$(printf '%03d' $((RANDOM % 200)))"
	else
		wait_for 5 limited || fail "round $round: strict_limit never set: $(tail -5 "$WORK/log")"
	fi
	limited && changed=$((changed + 1))
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	PIDS=
done
[ "$changed" -gt 0 ] || fail "no round ever changed strict_limit"

# The next start restores what the last one left, then a SIGTERM restores
# what it set itself.
start
wait_for 5 attached && limited ||
	fail "final start did not act: $(tail -5 "$WORK/log")"
grep -q "left by a previous run" "$WORK/log" ||
	fail "no start restored what a killed one left"
kill -TERM "$pid"
wait "$pid" || fail "nfswbd exited $? on SIGTERM: $(tail -5 "$WORK/log")"
PIDS=
restored || fail "after $loops kill -9 rounds: strict_limit $(cat "$sys/strict_limit") (was $orig_strict), max_ratio_fine $(cat "$sys/max_ratio_fine") (was $orig_ratio)"
grep -v '^#' "$state/restore.journal" | grep -q . &&
	fail "journal not empty after SIGTERM: $(cat "$state/restore.journal")"
echo "$loops kill -9 rounds ($changed with the cap in force): every value restored" >&2
exit 0
