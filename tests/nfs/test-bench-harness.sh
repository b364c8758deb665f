#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test-bench-harness.sh - lab bench counts a finished run toward a cell
# only if the run recorded today's harness (lab-init, lab-writer.c, the
# scenario): a run of another harness, or of one that did not record it,
# is run again.  Checked through `lab bench --list` on a results
# directory made up here; no guest boots.  Exit 0 pass, 1 fail.
set -u
LAB=${srcdir:-$(dirname "$0")}/lab
D=$(mktemp -d /tmp/nfswb-bench-harness.XXXXXX) || exit 1
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

h=$(cat "${LAB%/lab}/lab-init" "${LAB%/lab}/lab-writer.c" \
	"${LAB%/lab}/scenarios/randwrite.sh" | sha256sum | cut -c1-16)
cell=$D/randwrite-stock-7.3-v4.2
# run_done N HARNESS: a finished run; HARNESS "" records none.
run_done() {
	mkdir -p "$cell/run-$1"
	echo '{}' >"$cell/run-$1/result.json"
	if [ -n "$2" ]; then
		printf '{"harness": "%s"}\n' "$2" >"$cell/run-$1/meta.json"
	else
		echo '{}' >"$cell/run-$1/meta.json"
	fi
}
list() {
	"$LAB" bench --list --workloads randwrite --tunings stock --kernels 7.3 \
		--repeat 3 --out "$D" 2>/dev/null | grep '^randwrite '
}

line=$(list) || fail "lab bench --list printed no cell"
case $line in *"0/3 done") ;; *) fail "empty cell: $line" ;; esac
run_done 1 "$h"
run_done 2 0123456789abcdef
line=$(list)
case $line in *"1/3 done, 1 of another harness") ;;
*) fail "one run of this harness, one of another: $line" ;; esac
run_done 3 ""
line=$(list)
case $line in *"1/3 done, 2 of another harness") ;;
*) fail "a run that recorded no harness counts as another: $line" ;; esac
echo "ok: lab bench counts only runs of harness $h"
