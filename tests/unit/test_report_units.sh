#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswb-report's figures as people read them: summary in fio's units and
# nfsdist's -m, compare's warning when a side has too few samples for a
# percentile, and one synopsis per subcommand in --help and in errors.
. "${srcdir:-.}/unit/report-lib.sh"

# trace FILE N US...: N COMMITs of each latency US (microseconds).
trace() {
	local file=$1 n=$2 i us xid=0
	shift 2
	for us in "$@"; do
		for i in $(seq "$n"); do
			xid=$((xid + 1))
			printf '            nfsd-71      [000] .....  %d.%06d: svc_stats_latency: xid=0x%x server=127.0.0.1:2049 client=10.0.0.1:800 proc=COMMIT execute-us=%d\n' \
				$((1000 + xid)) 0 "$xid" "$us"
		done
	done >"$file"
}

# 1. Milliseconds: every figure is over 1000 us, so msec as fio prints it.
trace "$work/ms" 1 2000 4000 8000 16000 32000
"$report" summary -H "$work/ms" >"$work/out"
check "COMMIT line in msec: $(grep 'commit (' "$work/out")" \
	grep -q "commit (msec): min=2, max=32, avg=12.40, stdev=12.2[0-9], samples=5" "$work/out"
check "percentiles in msec" grep -q "commit percentiles (msec):" "$work/out"
check "p50 is 8 ms" grep -q "50.00th=\[      8\]" "$work/out"
# Seconds-long COMMITs.
trace "$work/s" 1 2000000 3000000 9000000
"$report" summary -H "$work/s" >"$work/out"
check "COMMIT line in sec: $(grep 'commit (' "$work/out")" \
	grep -q "commit (sec): min=2, max=9, avg=4.67," "$work/out"
# Microseconds stay microseconds.
trace "$work/us" 1 20 40 80
"$report" summary -H "$work/us" >"$work/out"
check "COMMIT line in usec" grep -q "commit (usec): min=20, max=80," "$work/out"

# 2. -m: nfsdist's millisecond buckets.
"$report" summary -m "$work/ms" >"$work/out"
check "-m labels msecs" grep -q "msecs *: count" "$work/out"
check "-m: 2 ms in [2, 3]" grep -Eq "^ +2 -> 3 +: 1 " "$work/out"
check "-m: 32 ms in [32, 63]" grep -Eq "^ +32 -> 63 +: 1 " "$work/out"
"$report" summary "$work/ms" >"$work/out"
check "without -m: usecs" grep -q "usecs *: count" "$work/out"

# 3. compare: 5 COMMITs cannot give a p90, p99 or p99.9; 200 give p99.
trace "$work/few" 1 1000 2000 3000 4000 5000
trace "$work/many" 50 1000 2000 3000 4000
"$report" compare "$work/few" "$work/many" >"$work/out" 2>"$work/err"
check "compare exits 0" test $? = 0
check "warns about A: $(cat "$work/err")" \
	grep -q "warning: A has 5 commit samples: p90 needs 10, p99 needs 100, p99.9 needs 1000" "$work/err"
check "warns about B's p99.9 only" \
	grep -q "warning: B has 200 commit samples: p99.9 needs 1000$" "$work/err"
check "p99 of A marked" grep -Eq "^commit p99 \(us\) +5000\* +4000 " "$work/out"
check "p50 not marked" grep -Eq "^commit p50 \(us\) +3000  +2000+ " "$work/out"
check "the mark is explained" grep -q "^\* fewer samples than the percentile needs" "$work/out"
"$report" compare --json "$work/few" "$work/many" >"$work/json" 2>/dev/null
check "JSON lists them" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if "A and B: commit p99.9 (us)" in d["few_samples"] and "A: commit p99 (us)" in d["few_samples"] else 1)' "$work/json"
"$report" compare "$work/many" "$work/many" >/dev/null 2>"$work/err"
check "no p99 warning with 200 samples each" sh -c "! grep -q 'p99 needs' '$work/err'"

# 4. One synopsis: --help's usage line is the one errors print.
for cmd in record summary compare plot live; do
	help=$("$report" "$cmd" --help | head -n 1)
	err=$("$report" "$cmd" --no-such-option 2>&1 >/dev/null | grep '^usage:')
	check "$cmd: --help and errors print one synopsis" test "$help" = "$err"
done
exit $fail
