# SPDX-License-Identifier: GPL-2.0-or-later
# neighbour: a latency-sensitive reader beside a writer.  The server
# lays out a READ_SIZE file and drops its caches; on the client, fio
# runs seqwrite's writer (FILE_SIZE files, fsync at each file's end) and
# a random 4 KiB O_DIRECT reader of that file at READ_IOPS: the reader's
# latency is what the writer's writeback costs a neighbour.  (The layout
# of a scenario file: see randwrite.sh.)

# seqwrite_env and seqwrite_writer: the writer.
# shellcheck source=seqwrite.sh
source "${BASH_SOURCE[0]%/*}/seqwrite.sh"

SC_DEFAULTS="size=256M file_size=4M bs=1M read_size=256M read_iops=20"
SC_HELP="fio: seqwrite's writer and a READ_IOPS random reader of an uncached file"

sc_env() {
	[[ ${P[read_iops]} =~ ^[1-9][0-9]*$ ]] || die "neighbour: read_iops: a positive number"
	seqwrite_env neighbour
	echo "LAB_READ_MB=$(($(to_bytes "${P[read_size]}") >> 20))"
}

# On the server, before the tuning and the daemon: the reader's file,
# on the disk and out of every cache, as on a server that has held it a
# while (a daemon started before it would see its layout as a local
# writer, and mode=auto would keep kernel mode off for 5 minutes).
sc_prepare() {
	mkdir -p $EXPORT/neighbour
	dd if=/dev/urandom of=$EXPORT/neighbour/read.dat bs=1M \
		count="$LAB_READ_MB" conv=fsync status=none ||
		fail "neighbour: cannot lay out the reader's file"
	chmod 0666 $EXPORT/neighbour/read.dat
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# The reader runs as long as the writer: the writer's exitall stops it.
sc_client() {
	{
		seqwrite_writer writer
		echo exitall=1
		cat <<EOJ

[reader]
filename=neighbour/read.dat
rw=randread
bs=4k
direct=1
rate_iops=$P_read_iops
time_based=1
runtime=3600
EOJ
	} | fio_job neighbour
}
