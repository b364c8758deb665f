# SPDX-License-Identifier: GPL-2.0-or-later
# reread: write SIZE with fio, fsync (so COMMIT), drop the client's own
# cache, then read the same data back: the server's disk reads during the
# run (disk_read_bytes) say whether its page cache kept what it wrote,
# or whether the tuning (dontcache, direct, early writeback) threw it
# away.  (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="size=256M bs=1M fsync_every=2M"
SC_HELP="fio: write SIZE (fsync every FSYNC_EVERY), then read it back uncached on the client"

sc_env() {
	local bs every
	bs=$(to_bytes "${P[bs]}")
	every=$(to_bytes "${P[fsync_every]}")
	((every >= bs)) || die "reread: fsync_every is below bs"
	echo "LAB_FIO_FSYNC=$((every / bs))"
}

sc_client() {
	cat >/run/lab/reread.fio <<EOJ
[global]
directory=$CLIENT
filename=reread.dat
ioengine=psync
fallocate=none
percentile_list=50:90:99:99.9
bs=$P_bs
size=$P_size

[write]
rw=write
fsync=$LAB_FIO_FSYNC
end_fsync=1

[read]
stonewall
rw=read
direct=1
EOJ
	run_fio /run/lab/reread.fio
}
