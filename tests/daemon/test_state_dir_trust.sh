#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root trusts no state directory it did not make.
# One made by nobody, or writable by others, is refused with a message,
# and neither the symlinks planted in it (named like the pid file and the
# temporaries) nor its planted journal are followed or applied; in a
# directory of its own, a symlink where a temporary goes is not followed
# either; a missing directory is created with mode 0700.
. "${srcdir:-.}/daemon/daemon-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (the daemon's trust in its state directory)"
id nobody >/dev/null 2>&1 || skip "needs a user nobody"
conf="$WORK/ok.exports"
echo "$WORK/export1  (mode=files)" > "$conf"
run() {
	"$NFSWBD" -F --once -c "$conf" --nfs-conf "$NFS_CONF" \
		--state-dir "$1" 2>"$WORK/log"
}
plant() {	# DIR: symlinks to targets holding "precious", a journal
	local t
	for t in nfswbd.pid .status.json.tmp restore.journal.tmp; do
		echo precious > "$WORK/target$t"
		ln -s "$WORK/target$t" "$1/$t"
	done
	echo precious > "$WORK/victim"
	printf '%s X\n' "$WORK/victim" > "$1/restore.journal"
}
untouched() {
	local t
	for t in nfswbd.pid .status.json.tmp restore.journal.tmp; do
		[ "$(cat "$WORK/target$t")" = precious ] ||
			fail "$1: root wrote through the symlink $t: $(cat "$WORK/log")"
	done
	[ "$(cat "$WORK/victim")" = precious ] ||
		fail "$1: the planted journal was applied: $(cat "$WORK/log")"
}

# 1. Made by nobody.
mkdir "$WORK/bynobody"
plant "$WORK/bynobody"
chown -h nobody "$WORK/bynobody" "$WORK/bynobody"/*
run "$WORK/bynobody" && fail "a state directory owned by nobody was used"
grep -q "state directory $WORK/bynobody is owned by uid $(id -u nobody)" "$WORK/log" ||
	fail "no clear message for a foreign state directory: $(cat "$WORK/log")"
untouched "owned by nobody"
rm -rf "$WORK/bynobody"

# 2. Root's, but writable by others.
mkdir -m 0777 "$WORK/open"
chmod 0777 "$WORK/open"
plant "$WORK/open"
run "$WORK/open" && fail "a world-writable state directory was used"
grep -q "state directory $WORK/open is writable by group or others" "$WORK/log" ||
	fail "no clear message for a writable state directory: $(cat "$WORK/log")"
untouched "world-writable"
rm -rf "$WORK/open"

# 3. A symlink as the state directory itself.
mkdir -m 0700 "$WORK/real"
ln -s "$WORK/real" "$WORK/link"
run "$WORK/link" && fail "a symlinked state directory was used"
grep -q "cannot open state directory $WORK/link" "$WORK/log" ||
	fail "no clear message for a symlinked state directory: $(cat "$WORK/log")"

# 4. Its own directory, with a symlink where the status temporary goes:
#    runs, but writes nothing through it.
mkdir -m 0700 "$WORK/own"
echo precious > "$WORK/target.status.json.tmp"
ln -s "$WORK/target.status.json.tmp" "$WORK/own/.status.json.tmp"
run "$WORK/own"
[ "$(cat "$WORK/target.status.json.tmp")" = precious ] ||
	fail "status.json written through a symlink: $(cat "$WORK/log")"

# 5. Missing: created 0700, and used.
run "$WORK/new/state" || fail "a missing state directory: $(cat "$WORK/log")"
[ "$(stat -c %a "$WORK/new/state")" = 700 ] ||
	fail "state directory created with mode $(stat -c %a "$WORK/new/state")"
exit 0
