# SPDX-License-Identifier: GPL-2.0-or-later
# seqwrite: fio on the client, 1 MiB sequential writes of a series of
# FILE_SIZE files, fsync at each file's end, as a backup or copy job does.
# (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="size=512M file_size=4M bs=1M"
SC_HELP="fio: SIZE in FILE_SIZE files written in BS blocks, fsync at each file's end"

sc_env() {
	local n
	n=$(($(to_bytes "${P[size]}") / $(to_bytes "${P[file_size]}")))
	((n >= 1)) || die "seqwrite: size is below file_size"
	echo "LAB_FIO_FILES=$n"
	# fsync_on_close's fsyncs are not in fio's sync statistics: an
	# fsync after each file's last write is the same call, counted.
	echo "LAB_FIO_FSYNC=$(($(to_bytes "${P[file_size]}") / $(to_bytes "${P[bs]}")))"
}

sc_client() {
	# One job writing its files one after the other (file_service_type
	# sequential), each fsync'd as it is closed.
	cat >/run/lab/seqwrite.fio <<EOJ
[global]
directory=$CLIENT
ioengine=psync
fallocate=none
percentile_list=50:90:99:99.9
group_reporting=1

[seqwrite]
rw=write
bs=$P_bs
nrfiles=$LAB_FIO_FILES
filesize=$P_file_size
file_service_type=sequential
openfiles=1
fsync=$LAB_FIO_FSYNC
EOJ
	run_fio /run/lab/seqwrite.fio
}
