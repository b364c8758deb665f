# SPDX-License-Identifier: GPL-2.0-or-later
# check-lib.sh - what the test scripts (and scripts/demo.sh) share:
# check, pycheck and record_start.  Sourced, not run; defines functions
# only.  A failed check sets fail=1: the script ends with exit $fail.

# check DESCRIPTION COMMAND...: run it, "ok: ..." or "FAIL: ..." and fail=1
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what" >&2
		fail=1
	fi
}

# pycheck SETUP ARG...: python3 runs SETUP (ARGs in sys.argv[1:]), then
# checks each stdin line "DESCRIPTION | PYTHON-EXPRESSION" over the names
# SETUP defined; one python3 start for all of them (it costs seconds on a
# loaded machine).  A SETUP that fails (a file that does not parse) and
# each false expression are a FAIL.
pycheck() {
	local setup=$1
	shift
	python3 -c "$setup"'
bad = 0
for line in sys.stdin:
    if not line.strip():
        continue
    what, expr = line.rsplit("|", 1)
    try:
        good = eval(expr) is True
    except Exception as e:
        good, what = False, what + " (%s)" % e
    print(("ok: " if good else "FAIL: ") + what.strip(),
          file=sys.stdout if good else sys.stderr)
    bad += not good
sys.exit(1 if bad else 0)' "$@" || fail=1
}

# record_start REPORT OUT ARG...: "REPORT record ARG... -o OUT" in the
# background (its stderr in OUT.err, its PID in REC_PID), and wait up to
# 10 s for the header it writes once its events are on.  Returns 1 when
# the header never came.
record_start() {
	local report=$1 out=$2
	shift 2
	"$report" record "$@" -o "$out" 2>"$out.err" &
	REC_PID=$!
	for _ in $(seq 100); do
		grep -q "^# events:" "$out" 2>/dev/null && return 0
		sleep 0.1
	done
	grep -q "^# events:" "$out" 2>/dev/null
}
