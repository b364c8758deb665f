# SPDX-License-Identifier: GPL-2.0-or-later
# report-lib.sh - what nfswb-report's test scripts share: the tool, a
# scratch directory removed on exit, and check().  Sourced, not run.
report=${NFSWB_REPORT:-../tools/report/nfswb-report}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0

check() {	# check DESCRIPTION COMMAND...: run it, say ok or FAIL
	local msg=$1
	shift
	if "$@"; then
		echo "ok: $msg"
	else
		echo "FAIL: $msg" >&2
		fail=1
	fi
}
