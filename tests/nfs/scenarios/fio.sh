# SPDX-License-Identifier: GPL-2.0-or-later
# fio: any fio job file a user brings (fio_job=FILE on the host), run on
# the client against the mount: its directory= is replaced by the
# mount.  (The layout of a scenario file: see randwrite.sh.)

SC_DEFAULTS="fio_job="
SC_HELP="fio: the job file FIO_JOB, its directory= pointed at the NFS mount"

sc_env() {
	[[ -n ${P[fio_job]} ]] || die "fio: which job file? (fio_job=FILE)"
	[[ -r ${P[fio_job]} ]] || die "fio: cannot read fio_job=${P[fio_job]}"
	# The guest reads it from the results share.
	grep -v '^[[:space:]]*directory[[:space:]]*=' "${P[fio_job]}" \
		>"$RUNDIR/fio-job.fio"
	: # no extra lines
}

sc_client() {
	timeout "$LAB_TIMEOUT" fio --eta=never --output-format=json --output="$OUT/fio.json" \
		--directory="$CLIENT" "$OUT/fio-job.fio" 2>>"$OUT/client.err" ||
		fail "fio failed: $(tail -3 "$OUT/client.err" | tr '\n' ' ')"
}
