# SPDX-License-Identifier: GPL-2.0-or-later
# reread: write SIZE with fio, fsync (so COMMIT) every FSYNC_EVERY, then
# read the same data back with O_DIRECT, so the client's cache cannot
# answer: the server's disk reads during the run (disk_read_bytes) say
# whether its page cache kept what it wrote, or whether the tuning
# (dontcache, direct, early writeback) threw it away.  (The layout of a
# scenario file: see randwrite.sh.)

SC_DEFAULTS="size=256M bs=1M fsync_every=2M"
SC_HELP="fio: write SIZE (fsync every FSYNC_EVERY), then read it back uncached on the client"

sc_env() {
	echo "LAB_FIO_FSYNC=$(sc_ratio reread fsync_every bs)"
}

# Two jobs on one file, the reader after the writer (stonewall); their
# figures stay apart (fio.json reports a group's reads and writes apart).
# create_on_open: fio lays out every job's file before the first job
# runs, and with fallocate=none a read job's layout writes the whole
# file, so without it the server wrote SIZE twice (write amplification
# 2.0 in every cell) and the writer's COMMITs met a laid-out file.
sc_client() {
	fio_job reread <<EOJ
[write]
filename=reread.dat
bs=$P_bs
size=$P_size
rw=write
fsync=$LAB_FIO_FSYNC
end_fsync=1

[read]
stonewall
filename=reread.dat
bs=$P_bs
size=$P_size
rw=read
direct=1
create_on_open=1
EOJ
}
