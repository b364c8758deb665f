# SPDX-License-Identifier: GPL-2.0-or-later
# neighbour: a latency-sensitive reader beside a writer.  The server
# lays out a READ_SIZE file and drops its caches; on the client, fio
# runs seqwrite's writer (FILE_SIZE files, fsync at each file's end) and
# a random 4 KiB reader of that file at READ_IOPS: the reader's p99 is
# what the writer's writeback costs a neighbour.  (The layout of a
# scenario file: see randwrite.sh.)

SC_DEFAULTS="size=256M file_size=4M bs=1M read_size=256M read_iops=20"
SC_HELP="fio: seqwrite's writer and a READ_IOPS random reader of an uncached file"

sc_env() {
	local n
	n=$(($(to_bytes "${P[size]}") / $(to_bytes "${P[file_size]}")))
	((n >= 1)) || die "neighbour: size is below file_size"
	[[ ${P[read_iops]} =~ ^[1-9][0-9]*$ ]] || die "neighbour: read_iops: a positive number"
	echo "LAB_FIO_FILES=$n"
	# fsync_on_close's fsyncs are not in fio's sync statistics: an
	# fsync after each file's last write is the same call, counted.
	echo "LAB_FIO_FSYNC=$(($(to_bytes "${P[file_size]}") / $(to_bytes "${P[bs]}")))"
	echo "LAB_READ_SIZE=$(to_bytes "${P[read_size]}")"
}

# On the server, before the load: the reader's file, on the disk and
# out of every cache.
sc_server() {
	mkdir -p $EXPORT/neighbour
	dd if=/dev/urandom of=$EXPORT/neighbour/read.dat bs=1M \
		count=$((LAB_READ_SIZE >> 20)) conv=fsync status=none ||
		fail "neighbour: cannot lay out the reader's file"
	chmod 0666 $EXPORT/neighbour/read.dat
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

sc_client() {
	cat >/run/lab/neighbour.fio <<EOJ
[global]
ioengine=psync
fallocate=none
percentile_list=50:90:99:99.9
group_reporting=1

[writer]
exitall=1
directory=$CLIENT
rw=write
bs=$P_bs
nrfiles=$LAB_FIO_FILES
filesize=$P_file_size
file_service_type=sequential
openfiles=1
fsync=$LAB_FIO_FSYNC

[reader]
filename=$CLIENT/neighbour/read.dat
rw=randread
bs=4k
direct=1
rate_iops=$P_read_iops
time_based=1
runtime=600
EOJ
	# The reader runs as long as the writer: fio stops it once the
	# writer's files are done (the writer's exitall).
	run_fio /run/lab/neighbour.fio
}
