# SPDX-License-Identifier: GPL-2.0-or-later
# randwrite: fio on the client, 64 KiB random writes over a 256 MiB file,
# fsync every 2 MiB (so a COMMIT every 32 WRITEs), as a database or VM
# image does.  One pass over the file: size / fsync_every COMMITs.
#
# A scenario file holds, for tests/nfs/lab (host) and lab-init (guest):
#   SC_DEFAULTS  its parameters and their defaults (key=value words)
#   SC_HELP      one line for `lab scenarios`
#   sc_env       host: extra guest.env lines (sizes in bytes, counts;
#                lab's to_bytes and sc_ratio help); every parameter also
#                reaches the guest as P_NAME, as given
#   sc_client    guest: the load, run on the client over the mount
#                (lab-init's fio_job NAME runs fio job sections)
#   sc_prepare   guest, optional: on the server before the tuning is
#                applied (and nfswbd started): data the load finds there,
#                as on a server that has held it a while
#   sc_server    guest, optional: on the server before the load
#   sc_server_end  guest, optional: on the server after the load
# Analysis: lab-analyze reads fio.json (and nfswb-load's load.json) for
# every scenario.

SC_DEFAULTS="size=256M bs=64K fsync_every=2M"
SC_HELP="fio: BS random writes over a SIZE file, fsync every FSYNC_EVERY bytes"

sc_env() {
	echo "LAB_FIO_FSYNC=$(sc_ratio randwrite fsync_every bs)"
}

sc_client() {
	fio_job randwrite <<EOJ
[randwrite]
rw=randwrite
bs=$P_bs
size=$P_size
fsync=$LAB_FIO_FSYNC
end_fsync=1
EOJ
}
