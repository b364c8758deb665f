# SPDX-License-Identifier: GPL-2.0-or-later
# randwrite: fio on the client, 64 KiB random writes over a 256 MiB file,
# fsync every 2 MiB (so a COMMIT every 32 WRITEs), as a database or VM
# image does.  One pass over the file: size / fsync_every COMMITs.
#
# A scenario file holds, for tests/nfs/lab (host) and lab-init (guest):
#   SC_DEFAULTS  its parameters and their defaults (key=value words)
#   SC_HELP      one line for `lab scenarios`
#   sc_env       host: extra guest.env lines (sizes in bytes, counts)
#   sc_client    guest: the load, run on the client over the mount
#   sc_server    guest, optional: started on the server before the load
#   sc_server_end  guest, optional: on the server after the load
# Analysis: fio.json is read by lab-analyze for every fio scenario.

SC_DEFAULTS="size=256M bs=64K fsync_every=2M"
SC_HELP="fio: BS random writes over a SIZE file, fsync every FSYNC_EVERY bytes"

sc_env() {
	local bs every
	bs=$(to_bytes "${P[bs]}")
	every=$(to_bytes "${P[fsync_every]}")
	((every >= bs)) || die "randwrite: fsync_every is below bs"
	echo "LAB_FIO_FSYNC=$((every / bs))"
}

sc_client() {
	cat >/run/lab/randwrite.fio <<EOJ
[global]
directory=$CLIENT
ioengine=psync
fallocate=none
percentile_list=50:90:99:99.9
group_reporting=1

[randwrite]
rw=randwrite
bs=$P_bs
size=$P_size
fsync=$LAB_FIO_FSYNC
end_fsync=1
EOJ
	run_fio /run/lab/randwrite.fio
}
