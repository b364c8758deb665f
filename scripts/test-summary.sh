#!/bin/bash
# Sum the automake .trs results of the whole tree into one closing line,
# "N passed, N failed, N skipped", and list what failed or skipped and why
# (a failed test with its FAIL lines and the end of its log).
set -uo pipefail
cd "${1:-.}"
pass=0 fail=0 skip=0
while IFS= read -r trs; do
	res=$(sed -n 's/^:test-result: //p' "$trs" | head -n1)
	name=${trs%.trs}
	case "$res" in
	PASS|XFAIL) pass=$((pass + 1)) ;;
	SKIP)	skip=$((skip + 1))
		why=$(grep -m1 -i 'skip' "$name.log" 2>/dev/null)
		echo "skipped: $name: ${why:-no reason printed}" ;;
	*)	fail=$((fail + 1))
		echo "failed: $name ($res), log: $name.log"
		# The release checks' copies (make distcheck) leave no other
		# trace in CI's output: show what the test said went wrong.
		grep -m5 '^FAIL' "$name.log" 2>/dev/null | sed 's/^/  /'
		tail -n 15 "$name.log" 2>/dev/null | sed 's/^/  | /' ;;
	esac
done < <(find . -name '*.trs' | sort)
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
