# SPDX-License-Identifier: GPL-2.0-or-later
# manyclients: nfswb-load on the client guest as CLIENTS NFSv3 clients,
# a connection and a file each, SIZE in all, IODEPTH WRITEs in flight per
# client (as a kernel client keeps several), COMMIT at each file's close.
# Userspace: no client page cache decides when WRITEs go out; the NFS
# version of the kernel mount beside it does not matter.  Its JSON is
# load.json; its slowest final COMMIT the fsync_s of writer.txt.
# (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="clients=64 size=256M iodepth=4"
SC_HELP="nfswb-load: CLIENTS NFSv3 clients, SIZE in all, IODEPTH WRITEs in flight, COMMIT at close"

sc_env() {
	[[ ${P[clients]} =~ ^[1-9][0-9]*$ ]] || die "manyclients: clients: a positive number"
	[[ ${P[iodepth]} =~ ^[1-9][0-9]*$ ]] || die "manyclients: iodepth: a positive number"
	mkdir -p "$RUNDIR/bin"
	cp "$(find_nfswb_load)" "$RUNDIR/bin/nfswb-load"
	echo "LAB_LOAD_EACH=$(($(to_bytes "${P[size]}") / P[clients]))"
}

sc_client() {
	run_load "$P_clients" "$LAB_LOAD_EACH" "$SERVER_ADDR%eth0" \
		--iodepth "$P_iodepth"
}
