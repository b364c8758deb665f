# SPDX-License-Identifier: GPL-2.0-or-later
# tempfile: fio on the client writes a SIZE file in BS blocks, fsync
# every FSYNC_EVERY (size / fsync_every COMMITs); meanwhile a local
# process on the server, as a build or a sort does, keeps one TEMP_SIZE
# file at a time in the export's file system, deleting each TEMP_LIFE_MS
# after it was made.  They die long before the 30 s dirty expiry, so
# left alone they never reach the disk; a tuning that writes a whole
# device back early throws them to it for nothing.  lab-writer's
# tempfiles.txt says how many of their bytes did (result.json's
# tempfile_bytes_written).  TEMP_SIZE is 2/3 of the server's background
# threshold (10 % of mem=1G): stock keeps a whole file in cache.
# TEMP_START_MS holds the first file back that long after the load
# starts, so that they can begin after nfswbd's mode=auto has already
# chosen a mechanism for a device it saw with no local writers.
# (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="size=256M bs=1M fsync_every=2M temp_size=64M temp_life_ms=5000 temp_start_ms=0"
SC_HELP="fio: SIZE in BS writes, fsync every FSYNC_EVERY; server-local TEMP_SIZE files living TEMP_LIFE_MS, the first TEMP_START_MS after the start"

sc_env() {
	(($(to_bytes "${P[temp_size]}") > 0)) || die "tempfile: temp_size: more than 0"
	echo "LAB_FIO_FSYNC=$(sc_ratio tempfile fsync_every bs)"
}

sc_client() {
	fio_job tempfile <<EOJ
[tempfile]
rw=write
bs=$P_bs
size=$P_size
fsync=$LAB_FIO_FSYNC
end_fsync=1
EOJ
}

# The temp files go to a directory of the export's file system that the
# client never writes, from before the load until sc_server_end.  The
# bound is the server's own wait for the client.
sc_server() {
	mkdir -p "$EXPORT/tmp"
	# A late start sleeps in a subshell that then becomes lab-writer,
	# so the pid below is lab-writer's either way.
	(
		sleep "$((P_temp_start_ms / 1000)).$(printf '%03d' $((P_temp_start_ms % 1000)))"
		exec "$OUT/bin/lab-writer" tempfiles "$EXPORT/tmp" -s "$P_temp_size" \
			-l "$P_temp_life_ms" -t $(((LAB_TIMEOUT + 180) * 1000))
	) >"$OUT/tempfiles.txt" 2>>"$OUT/writer.err" &
	echo $! >/run/lab/tempfiles.pid
}

# After the load: SIGTERM ends the last file's life; lab-writer counts
# and deletes it, then prints its totals to tempfiles.txt.
sc_server_end() {
	local pid rc=0 late=
	pid=$(cat /run/lab/tempfiles.pid)
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" || rc=$?
	# A SIGTERM during the late start's sleep ends the subshell before
	# lab-writer exists: it fails here, with nothing of its own to say.
	((P_temp_start_ms > 0)) &&
		late=" (did the load end before temp_start_ms=$P_temp_start_ms?)"
	((rc == 0)) ||
		fail "lab-writer tempfiles failed, status $rc$late: $(tail -2 "$OUT/writer.err" | tr '\n' ' ')"
	grep -q '^tempfiles=' "$OUT/tempfiles.txt" ||
		fail "lab-writer tempfiles printed no counts"
}
