# SPDX-License-Identifier: GPL-2.0-or-later
# report-lib.sh - what nfswb-report's test scripts share: the tool, a
# scratch directory removed on exit, and check-lib.sh's check, pycheck
# and record_start.  Sourced, not run.
. "${srcdir:-.}/check-lib.sh"
report=${NFSWB_REPORT:-../tools/report/nfswb-report}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
