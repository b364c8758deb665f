# SPDX-License-Identifier: GPL-2.0-or-later
# seqwrite: fio on the client, 1 MiB sequential writes of a series of
# FILE_SIZE files, fsync at each file's end, as a backup or copy job does.
# (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="size=512M file_size=4M bs=1M"
SC_HELP="fio: SIZE in FILE_SIZE files written in BS blocks, fsync at each file's end"

sc_env() {
	seqwrite_env seqwrite
}

sc_client() {
	seqwrite_writer seqwrite | fio_job seqwrite
}

# The writer, which neighbour.sh runs too.
# seqwrite_env SCENARIO: its guest.env lines, from SCENARIO's parameters.
seqwrite_env() {
	echo "LAB_FIO_FILES=$(sc_ratio "$1" size file_size)"
	# fsync_on_close's fsyncs are not in fio's sync statistics: an
	# fsync after each file's last write is the same call, counted.
	echo "LAB_FIO_FSYNC=$(sc_ratio "$1" file_size bs)"
}

# seqwrite_writer SECTION: its fio job section, one job writing its
# files one after the other (file_service_type sequential, one open at
# a time).
seqwrite_writer() {
	cat <<EOJ
[$1]
rw=write
bs=$P_bs
nrfiles=$LAB_FIO_FILES
filesize=$P_file_size
file_service_type=sequential
openfiles=1
fsync=$LAB_FIO_FSYNC
EOJ
}
