#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswb-report on hostile input and output: a file that is one endless
# line (/dev/zero) fails in bounded memory and names the line, a directory
# is named as one, output that cannot be written (/dev/full) fails every
# subcommand, and a status.json number no count can have (-1e999) is
# refused rather than printed as 8388608 TiB, and a bad --probe-offsets
# file is a usage error naming its line.
. "${srcdir:-.}/unit/report-lib.sh"

trace=$work/t.trace
for i in 1 2 3 4 5; do
	printf '            nfsd-71      [000] .....  100%d.000000: svc_stats_latency: xid=0x%d server=127.0.0.1:2049 client=10.0.0.1:800 proc=COMMIT execute-us=%d000\n' \
		"$i" "$i" "$i"
done >"$trace"
cat > "$work/status.json" <<'JSON'
{"program": "nfswbd", "devices": [{"bdi": "254:16",
 "bandwidth": {"bytes_per_s": 33554432}, "dirty_bytes": 3145728}]}
JSON

# 1. A file that is one line without end.  First 300 MiB of zeros on
# stdin, with the peak memory measured (the old whole-line reader took
# 512 MiB for it); only then /dev/zero itself, which that reader would
# grow on until memory ran out.
peak=$(python3 -c 'import resource, subprocess, sys
with open(sys.argv[2], "w") as err:
	p = subprocess.Popen([sys.argv[1], "summary", "-"], stdin=subprocess.PIPE,
			     stdout=subprocess.DEVNULL, stderr=err)
	zeros = bytes(1 << 20)
	try:
		for _ in range(300):
			p.stdin.write(zeros)
		p.stdin.close()
	except BrokenPipeError:
		pass
	rc = p.wait()
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' \
	"$report" "$work/err")
set -- $peak
check "300 MiB of zeros on stdin: exit 1 (got $1)" test "$1" = 1
check "within 200 MiB of memory (peak $2 MiB)" test "$2" -lt 200
check "and says the line is too long: $(head -c 300 "$work/err")" \
	grep -q "^nfswb-report summary: -: line 1 is longer than 65536 bytes" "$work/err"
if [ "$1" = 1 ] && [ "$2" -lt 200 ]; then
	timeout 20 "$report" summary /dev/zero >"$work/out" 2>"$work/err"
	rc=$?
	check "summary /dev/zero exits 1 (got $rc)" test $rc = 1
	check "and names the line: $(head -c 300 "$work/err")" \
		grep -q "/dev/zero: line 1 is longer than 65536 bytes" "$work/err"
fi

# A line just under the bound is read (and reported malformed); one over
# it is refused with its number.
{ cat "$trace"; head -c 65535 /dev/zero | tr '\0' x; echo; } >"$work/long-ok"
"$report" summary "$work/long-ok" >"$work/out" 2>"$work/err"
rc=$?
check "a 65536-byte line is read (exit $rc)" test $rc = 0
check "and its COMMITs counted" grep -q "samples=5" "$work/out"
{ cat "$trace"; head -c 65536 /dev/zero | tr '\0' x; echo; } >"$work/long-bad"
"$report" summary "$work/long-bad" >"$work/out" 2>"$work/err"
rc=$?
check "a 65537-byte line is refused (exit $rc)" test $rc = 1
check "with its number: $(cat "$work/err")" \
	grep -q "long-bad: line 6 is longer than 65536 bytes" "$work/err"

# The lab's JSON-lines samples are read the same way.
timeout 20 "$report" plot -S /dev/zero -o "$work/z.svg" "$trace" >/dev/null 2>"$work/err"
rc=$?
check "plot -S /dev/zero exits 1 (got $rc)" test $rc = 1
check "and names the line: $(head -c 300 "$work/err")" \
	grep -q "/dev/zero: line 1 is longer than 65536 bytes" "$work/err"
"$report" plot -S "$work" -o "$work/z.svg" "$trace" >/dev/null 2>"$work/err"
rc=$?
check "plot -S DIR exits 1 (got $rc)" test $rc = 1
check "plot -S DIR names a directory: $(cat "$work/err")" \
	grep -q "$work: Is a directory" "$work/err"

# 2. A directory.
"$report" summary "$work" >"$work/out" 2>"$work/err"
rc=$?
check "summary DIR exits 1 (got $rc)" test $rc = 1
check "and names a directory: $(cat "$work/err")" \
	grep -q "$work: Is a directory" "$work/err"
"$report" compare "$trace" "$work" >"$work/out" 2>"$work/err"
rc=$?
check "compare with a directory exits 1 (got $rc)" test $rc = 1
check "compare with a directory names it: $(cat "$work/err")" \
	grep -q "$work: Is a directory" "$work/err"

# 3. Output that cannot be written fails, whatever the subcommand.
if [ -w /dev/full ]; then
	full() {	# full DESCRIPTION ARGS...
		local what=$1
		shift
		"$report" "$@" >/dev/full 2>"$work/err"
		rc=$?
		check "$what >/dev/full exits non-zero (got $rc)" test $rc != 0
		check "$what names the failed output" \
			grep -q "standard output: " "$work/err"
	}
	full "summary" summary "$trace"
	full "summary --json" summary --json "$trace"
	full "summary --csv" summary --csv "$trace"
	full "compare" compare "$trace" "$trace"
	full "compare --json" compare --json "$trace" "$trace"
	full "live -T" live -T -n 1 -i 10ms -s "$work/status.json"
	ln -s /dev/full "$work/full.svg"
	"$report" plot -o "$work/full.svg" "$trace" 2>"$work/err"
	rc=$?
	check "plot -o (a full device) exits 1 (got $rc)" test $rc = 1
	check "and names it: $(cat "$work/err")" \
		grep -q "full.svg: No space left on device" "$work/err"
	full "--help" --help
	full "summary --help" summary --help
	full "--version" --version
else
	echo "note: no writable /dev/full; output errors not tested" >&2
fi

# 4. status.json numbers no byte count can have.
for v in -1e999 1e999 -1 1e20; do
	cat > "$work/bad.json" <<JSON
{"program": "nfswbd", "devices": [{"bdi": "254:16",
 "bandwidth": {"bytes_per_s": 33554432}, "dirty_bytes": $v}]}
JSON
	"$report" live -T -n 1 -i 10ms -s "$work/bad.json" >"$work/out" 2>&1
	check "dirty_bytes $v is refused: $(grep -i "bad.json\|dirty" "$work/out" | head -2)" \
		grep -q "bad.json: Invalid argument" "$work/out"
	check "dirty_bytes $v is not printed as a size" \
		sh -c "! grep -q 'TiB\|EiB' '$work/out'"
done
# 5. A probe-offsets file that is not one is a usage error naming its
# line, before any tracefs is touched (the host has no kprobe events).
printf 'svc_rqst.rq_xid=11384\nnfsd_file.nf_file=24x\n' > "$work/offsets"
for sub in record live; do
	"$report" $sub -P "$work/offsets" >"$work/out" 2>&1
	rc=$?
	check "$sub -P (bad line): exit 2 (got $rc)" test $rc = 2
	check "$sub -P names the line: $(head -1 "$work/out")" \
		grep -q "offsets:2: nfsd_file.nf_file: not a byte offset" "$work/out"
done
"$report" record -P "$work" >"$work/out" 2>&1
check "record -P DIR is refused as a directory: $(head -1 "$work/out")" \
	grep -q "Is a directory" "$work/out"
exit $fail
