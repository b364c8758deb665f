#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswb-report summary/compare against figures that report_check.py
# computes independently from the synthetic ftrace lines it generates.
report=${NFSWB_REPORT:-../tools/report/nfswb-report}
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is needed to compute the expected figures" >&2
	exit 77
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
python3 "${srcdir:-.}/unit/report_check.py" "$report" "$work"
