# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the tests/daemon/ and tests/ganesha/ scripts: where nfswbd is, a
# scratch directory under /var/tmp (a real block-backed file system on
# most machines, unlike /tmp), and the bdi an export there resolves to.

NFSWBD=${NFSWBD:-../server/nfswbd}
if [ ! -x "$NFSWBD" ]; then
	echo "SKIP: $NFSWBD not built" >&2
	exit 77
fi
NFSWBD=$(readlink -f "$NFSWBD")

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

WORK=$(mktemp -d /var/tmp/nfswbd-test.XXXXXX) || skip "cannot create a directory in /var/tmp"
PIDS=
cleanup() {
	local p i
	# SIGTERM first: a daemon that acted puts the kernel settings back.
	for p in $PIDS; do
		kill -TERM "$p" 2>/dev/null || continue
		for i in $(seq 40); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.05
		done
		kill -KILL "$p" 2>/dev/null
	done
	# A test that set up more (a loop device) defines extra_cleanup.
	if declare -F extra_cleanup >/dev/null; then
		extra_cleanup
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# The bdi the kernel uses for $1: its device, or the disk of a partition.
expected_bdi() {
	local majmin sys
	majmin=$(stat -c '%Hd:%Ld' "$1") || return 1
	sys=$(readlink -f "/sys/dev/block/$majmin" 2>/dev/null) || return 1
	[ -d "$sys" ] || return 1
	[ -f "$sys/partition" ] && sys=$(dirname "$sys")
	[ -e "$sys/bdi" ] || [ -e "/sys/class/bdi/$(cat "$sys/dev")" ] || return 1
	cat "$sys/dev"
}

# wait_for SECONDS COMMAND...: poll COMMAND every 50 ms, bounded.  Once
# the deadline has passed COMMAND is asked one last time: on a loaded
# machine the shell may have slept through the whole wait since the
# last try, and what it waited for may have come meanwhile.
wait_for() {
	local deadline=$(( $(date +%s%N) / 1000000 + $1 * 1000 ))
	shift
	while ! "$@" 2>/dev/null; do
		if [ $(( $(date +%s%N) / 1000000 )) -ge $deadline ]; then
			"$@" 2>/dev/null
			return
		fi
		sleep 0.05
	done
	return 0
}

# stop_daemon PID: SIGTERM, at most 5 s to exit; its exit status.
stop_daemon() {
	kill -TERM "$1"
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$1" 2>/dev/null && fail "still running 5 s after SIGTERM"
	wait "$1"
}

command -v jq >/dev/null || skip "needs jq"

json_valid() {
	jq -e . "$1" >/dev/null 2>&1
}

# json_get FILE FILTER: one jq filter's result, compact, strings raw.
json_get() {
	jq -r -c "$2" "$1"
}

# status_rate FILE FILTER SECONDS PER_MS: how much the number FILTER of
# status.json FILE grows per PER_MS of the daemon's own clock, over
# SECONDS of wall time; "RATE GROWTH MS" (growth and the ms it took, for
# messages).
status_rate() {
	local ms0 n0 ms1 n1
	read -r ms0 n0 < <(json_get "$1" "[.monotonic_ms, ($2)] | @tsv")
	sleep "$3"
	read -r ms1 n1 < <(json_get "$1" "[.monotonic_ms, ($2)] | @tsv")
	[ "$ms1" -gt "$ms0" ] || fail "$1 not rewritten in $3 s"
	echo "$(( (n1 - n0) * $4 / (ms1 - ms0) )) $((n1 - n0)) $((ms1 - ms0))"
}

mkdir -p "$WORK/export1" "$WORK/export2"
BDI=$(expected_bdi "$WORK/export1") ||
	skip "/var/tmp is not on a block device with a bdi"
# No nfs.conf from the host: the tests set what they need.
NFS_CONF="$WORK/nfs.conf"
: > "$NFS_CONF"

# nfsd_write FILE MIB: write MIB MiB to FILE (kept if it exists, so its
# owner stays) from a process named nfsd, the writer files mode tracks.
nfsd_write() {
	python3 - "$1" "$2" <<'PY'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"nfsd", 0, 0, 0)   # PR_SET_NAME
with open(sys.argv[1], "r+b" if os.path.exists(sys.argv[1]) else "wb") as f:
    for _ in range(int(sys.argv[2])):
        f.write(b"x" * (1 << 20))
        f.flush()
        time.sleep(0.02)
PY
}

# fake_sysroot ROOT: a /sys and /proc under ROOT (for --sysroot) in which
# $WORK/export1 is on "fakedisk", an idle disk with a debugfs bdi stats
# file; sets majmin (its bdi).  The caller writes stats and vmstat.
fake_sysroot() {
	majmin=$(stat -c '%Hd:%Ld' "$WORK/export1")
	mkdir -p "$1/proc/self" "$1/sys/dev/block" "$1/sys/devices/fakedisk" \
		"$1/sys/class/bdi/$majmin" "$1/sys/block/fakedisk" \
		"$1/sys/kernel/debug/bdi/$majmin"
	cat /proc/self/mountinfo > "$1/proc/self/mountinfo"
	ln -s ../../devices/fakedisk "$1/sys/dev/block/$majmin"
	echo "$majmin" > "$1/sys/devices/fakedisk/dev"
	echo "1 0 2 0 3 0 48 0 0 5 5 0 0 0 0 0 0" > "$1/sys/block/fakedisk/stat"
}

# loop_export SIZE: an ext4 loop image of SIZE mounted at $WORK/mnt with
# an empty $WORK/mnt/exp, for the tests that let nfswbd act; sets LOOP,
# bdi and sys (its /sys/class/bdi directory), skips where this machine
# cannot (no root, no loop devices, a kernel without strict_limit and
# max_ratio_fine).  The caller's cleanup detaches it.
LOOP= pre_strict= pre_ratio=
loop_export() {
	extra_cleanup() {
		# The bdi outlives the attachment: what limit_daemon reset
		# goes back, or the next user of the device inherits it.
		[ -n "$pre_ratio" ] && echo "$pre_ratio" > "$sys/max_ratio_fine"
		[ -n "$pre_strict" ] && echo "$pre_strict" > "$sys/strict_limit"
		mountpoint -q "$WORK/mnt" && umount "$WORK/mnt"
		[ -n "$LOOP" ] && losetup -d "$LOOP"
	}
	[ "$(id -u)" -eq 0 ] || skip "needs root (loop device, sysfs, fanotify)"
	command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
		skip "needs losetup and mkfs.ext4"
	truncate -s "$1" "$WORK/img" && mkfs.ext4 -q -F "$WORK/img" ||
		skip "cannot make an ext4 image"
	LOOP=$(losetup -f --show "$WORK/img") || skip "no free loop device"
	mkdir -p "$WORK/mnt" && mount "$LOOP" "$WORK/mnt" ||
		skip "cannot mount $LOOP"
	mkdir "$WORK/mnt/exp"
	bdi=$(stat -c '%Hd:%Ld' "$WORK/mnt/exp")
	sys=/sys/class/bdi/$bdi
	[ -w "$sys/strict_limit" ] && [ -e "$sys/max_ratio_fine" ] ||
		skip "bdi $bdi has no strict_limit/max_ratio_fine (kernel < 6.2)"
}

# limit_daemon SIZE RATIO NAME: loop_export SIZE, reset the bdi's
# strict_limit to 0 and max_ratio_fine to RATIO (a loop device's bdi
# outlives its attachment, and an unusual value keeps "restored" from
# being a coincidence), remember them as orig_strict and orig_ratio, and
# write $WORK/NAME.exports asking for files + limit.  Defines start (an
# nfswbd in the foreground as $pid, added to PIDS), limited and restored.
limit_daemon() {
	loop_export "$1"
	pre_strict=$(cat "$sys/strict_limit") && pre_ratio=$(cat "$sys/max_ratio_fine") ||
		skip "cannot read $sys"
	echo 0 > "$sys/strict_limit"
	echo "$2" > "$sys/max_ratio_fine"
	orig_strict=$(cat "$sys/strict_limit")
	orig_ratio=$(cat "$sys/max_ratio_fine")

	conf="$WORK/$3.exports"
	state="$WORK/state"
	echo "$WORK/mnt/exp  (mode=files,commit_target=2s)" > "$conf"
	"$NFSWBD" --check-config -c "$conf" --nfs-conf "$NFS_CONF" >/dev/null 2>"$WORK/err" ||
		skip "files or limit mode not available here: $(cat "$WORK/err")"
}
start() {
	"$NFSWBD" -F -c "$conf" --nfs-conf "$NFS_CONF" --state-dir "$state" \
		2>>"$WORK/log" &
	pid=$!
	PIDS="$PIDS $pid"
}
limited() {
	[ "$(cat "$sys/strict_limit")" = 1 ]
}
restored() {
	[ "$(cat "$sys/strict_limit")" = "$orig_strict" ] &&
	[ "$(cat "$sys/max_ratio_fine")" = "$orig_ratio" ]
}

# attached: the nfswbd started as $pid with state dir $state says in its
# status.json that both files and limit are attached (a sysfs value left
# by an earlier, killed, start proves nothing).
attached() {
	[ "$(json_get "$state/status.json" '.pid')" = "$pid" ] &&
	[ "$(json_get "$state/status.json" '.devices[0].mechanisms')" = '["files","limit"]' ]
}
