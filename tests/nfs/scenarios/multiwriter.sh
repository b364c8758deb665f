# SPDX-License-Identifier: GPL-2.0-or-later
# multiwriter: JOBS fio jobs on the client, each writing its own file
# sequentially, fsync every FSYNC_EVERY bytes: many streams behind one
# server.  (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="jobs=16 size=512M bs=1M fsync_every=16M"
SC_HELP="fio: JOBS writers, SIZE in all, fsync every FSYNC_EVERY bytes each"

sc_env() {
	local bs every jobs=${P[jobs]}
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "multiwriter: jobs=$jobs: a positive number"
	bs=$(to_bytes "${P[bs]}")
	every=$(to_bytes "${P[fsync_every]}")
	((every >= bs)) || die "multiwriter: fsync_every is below bs"
	echo "LAB_FIO_FSYNC=$((every / bs))"
	echo "LAB_FIO_EACH=$(($(to_bytes "${P[size]}") / jobs))"
}

sc_client() {
	cat >/run/lab/multiwriter.fio <<EOJ
[global]
directory=$CLIENT
ioengine=psync
fallocate=none
percentile_list=50:90:99:99.9
group_reporting=1

[multiwriter]
rw=write
bs=$P_bs
size=$LAB_FIO_EACH
numjobs=$P_jobs
fsync=$LAB_FIO_FSYNC
end_fsync=1
EOJ
	run_fio /run/lab/multiwriter.fio
}
