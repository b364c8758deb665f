# SPDX-License-Identifier: GPL-2.0-or-later
# multiwriter: JOBS fio jobs on the client, each writing its own file
# sequentially, fsync every FSYNC_EVERY bytes: many streams behind one
# server.  (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="jobs=16 size=512M bs=1M fsync_every=16M"
SC_HELP="fio: JOBS writers, SIZE in all, fsync every FSYNC_EVERY bytes each"

sc_env() {
	[[ ${P[jobs]} =~ ^[1-9][0-9]*$ ]] || die "multiwriter: jobs=${P[jobs]}: a positive number"
	echo "LAB_FIO_FSYNC=$(sc_ratio multiwriter fsync_every bs)"
	echo "LAB_FIO_EACH=$(($(to_bytes "${P[size]}") / P[jobs]))"
}

sc_client() {
	fio_job multiwriter <<EOJ
[multiwriter]
rw=write
bs=$P_bs
size=$LAB_FIO_EACH
numjobs=$P_jobs
fsync=$LAB_FIO_FSYNC
end_fsync=1
EOJ
}
