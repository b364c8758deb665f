#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# server/nfswbd.service.in as systemd judges it: `systemd-analyze verify`
# prints nothing (its Exec= paths exist, its man pages are found) and
# `systemd-analyze security` rates it 2.5 or better.  The unit is made
# from the .in with sbindir set to this build's server/, as make does.
set -uo pipefail
top=$(cd "${srcdir:-.}/.." && pwd)
built=$(cd .. && pwd)

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed (systemd)"
[ -x "$built/server/nfswbd" ] || skip "server/nfswbd not built"
systemd-analyze security --help 2>/dev/null | grep -q -- --offline ||
	skip "systemd-analyze too old for security --offline (systemd < 250)"

work=$(mktemp -d /tmp/nfswb-unit.XXXXXX) || fail "mktemp"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/man/man5" "$work/man/man8"
cp "$top/server/nfswbd.8" "$work/man/man8/"
cp "$top/server/nfswb.exports.5" "$work/man/man5/"
sed "s|@sbindir@|$built/server|g" "$top/server/nfswbd.service.in" > "$work/nfswbd.service"
grep -q '@[a-z]*@' "$work/nfswbd.service" && fail "unsubstituted @...@ left in the unit"

# The unit make installs names the configured sbindir, not a placeholder.
if [ -f "$built/server/nfswbd.service" ]; then
	grep -q '@sbindir@' "$built/server/nfswbd.service" &&
		fail "server/nfswbd.service still says @sbindir@"
fi

out=$(cd "$work" && MANPATH="$work/man" systemd-analyze verify ./nfswbd.service 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] || fail "systemd-analyze verify (exit $rc): $out"

score=$(cd "$work" && systemd-analyze security --offline=yes ./nfswbd.service 2>&1 |
	sed -n 's/.*Overall exposure level for nfswbd.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "systemd-analyze security gave no overall exposure level"
echo "systemd-analyze security: $score"
awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }' ||
	fail "systemd-analyze security: exposure $score, above 2.5"
exit 0
