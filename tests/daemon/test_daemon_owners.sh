#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Files mode per file owner: on an ext4 loop image a writer named nfsd
# writes 32 MiB to a file owned by uid 4000000 (no name anywhere) and
# 8 MiB to one owned by root; status.json must give each owner its file,
# the larger writer more dirty plus kicked bytes, and owners' kicked bytes
# that add up to the device's bytes_kicked.  nfswb-report live names the
# owners through libnfsidmap, nfswbd --status through the passwd database.
. "${srcdir:-.}/daemon/daemon-lib.sh"

REPORT=${NFSWB_REPORT:-../tools/report/nfswb-report}
[ -x "$REPORT" ] || skip "$REPORT not built"
loop_export 256M
conf="$WORK/owners.exports"
state="$WORK/state"
st="$state/status.json"
echo "$WORK/mnt/exp  (mode=files)" > "$conf"
"$NFSWBD" --check-config -c "$conf" --nfs-conf "$NFS_CONF" >/dev/null 2>"$WORK/err" ||
	skip "files mode not available here: $(cat "$WORK/err")"
touch "$WORK/mnt/exp/big" "$WORK/mnt/exp/small"
chown 4000000 "$WORK/mnt/exp/big" || fail "chown"

"$NFSWBD" -F -c "$conf" --nfs-conf "$NFS_CONF" --state-dir "$state" \
	2>>"$WORK/log" &
pid=$!
PIDS=$pid
files_attached() {
	[ "$(json_get "$st" '.pid')" = "$pid" ] &&
	[ "$(json_get "$st" '.devices[0].mechanisms')" = '["files"]' ]
}
wait_for 5 files_attached || fail "files mode not attached: $(cat "$WORK/log")"
nfsd_write "$WORK/mnt/exp/big" 32 || fail "writer failed"
nfsd_write "$WORK/mnt/exp/small" 8 || fail "writer failed"
two_owners() {
	[ "$(json_get "$st" '.devices[0].owners | length')" = 2 ]
}
wait_for 5 two_owners || fail "not two owners: $(json_get "$st" ".devices[0]")"
sleep 1
cp "$st" "$WORK/st.json"
own() {	# own UID FIELD
	json_get "$WORK/st.json" ".devices[0].owners[] | select(.owner == $1) | .$2"
}
for uid in 0 4000000; do
	[ "$(own $uid files)" = 1 ] || fail "owner $uid: files $(own $uid files), want 1"
done
big=$(( $(own 4000000 dirty_bytes) + $(own 4000000 kicked_bytes) ))
small=$(( $(own 0 dirty_bytes) + $(own 0 kicked_bytes) ))
[ "$small" -gt 0 ] || fail "root's file: no dirty or kicked bytes"
[ "$big" -gt "$small" ] || fail "uid 4000000 wrote 32 MiB, root 8 MiB, but $big <= $small bytes"
[ "$big" -le $((32 << 20)) ] || fail "uid 4000000: $big bytes, more than it wrote"
kicked=$(json_get "$WORK/st.json" '([.devices[0].owners[].kicked_bytes] | add) + .devices[0].other_owners.kicked_bytes')
[ "$kicked" = "$(json_get "$WORK/st.json" '.devices[0].counters.bytes_kicked')" ] ||
	fail "owners kicked $kicked bytes, the device $(json_get "$WORK/st.json" '.devices[0].counters.bytes_kicked')"

"$REPORT" live -n 1 -i 100ms -T -s "$WORK/st.json" >"$WORK/live" 2>&1 ||
	fail "nfswb-report live: $(cat "$WORK/live")"
grep -Eq "^  root(@[^ ]*)? .* in 1 file" "$WORK/live" ||
	fail "nfswb-report live does not name root: $(cat "$WORK/live")"
grep -Eq "^  4000000 .* in 1 file" "$WORK/live" ||
	fail "nfswb-report live does not show uid 4000000: $(cat "$WORK/live")"

"$NFSWBD" --status -c "$conf" --nfs-conf "$NFS_CONF" --state-dir "$state" \
	>"$WORK/status" 2>&1 || fail "nfswbd --status: $(cat "$WORK/status")"
grep -q "^  owners$" "$WORK/status" || fail "no owners block: $(cat "$WORK/status")"
grep -Eq "^    root +dirty [0-9.]+[KMGT]?i?B +kicked [0-9.]+[KMGT]?i?B +in 1 file" "$WORK/status" ||
	fail "nfswbd --status does not name root: $(cat "$WORK/status")"
grep -Eq "^    4000000 .* in 1 file" "$WORK/status" ||
	fail "nfswbd --status does not show uid 4000000: $(cat "$WORK/status")"
stop_daemon "$pid" || fail "SIGTERM: exit $?"
PIDS=
echo "owners: uid 4000000 $big bytes, root $small bytes, kicked $kicked" >&2
exit 0
