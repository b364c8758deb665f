#!/bin/bash
# matrix.sh: issue 16's whole matrix in one bench.md, from the runs that
# earlier passes committed, one directory per cell: for each tuning the
# latest pass that ran it on the kernel image and daemon behaviour the
# RESULTS text names, with three runs or more where there are.  Each
# line below says which pass a cell comes from.  Run from the top of the
# source tree: writes tests/nfs/results/2026-12-07-s27/matrix/.
# An index for RESULTS' twentieth pass, not one of the lab's tools.
set -eu
R=tests/nfs/results
out=$R/2026-12-07-s27/matrix
cells=()
add() { # PASS-DIR CELL...: the cells of one pass
	local dir=$1
	shift
	for c in "$@"; do
		[[ -d $R/$dir/$c ]] || { echo "matrix.sh: no $R/$dir/$c" >&2; exit 1; }
		cells+=("$R/$dir/$c")
	done
}
W="seqwrite randwrite neighbour reread tempfile multiwriter manyclients"
v=-7.3-patched-v4.2
# nineteenth pass (s26): stock and the series' v3 knobs, all workloads;
# nfswbd in the workloads where a knob acts.
for w in $W; do
	add 2026-12-07-s26/runs $w-stock$v $w-bdi-bytes_16777216$v $w-bdi-time_1000$v
done
add 2026-12-07-s26/runs tempfile-nfswbd_auto$v multiwriter-nfswbd_auto$v manyclients-nfswbd_auto$v
# eighteenth pass (s25): nfswbd at 0fce92e where s26 did not run it, and
# manyclients' nfsd modes (five rounds).
add 2026-12-07-s25/runs/knob seqwrite-nfswbd_auto$v randwrite-nfswbd_auto$v
add 2026-12-07-s25/runs/mc manyclients-nfsd-io_dontcache$v manyclients-nfsd-io_direct$v
# sixteenth and fifteenth passes (s23, s22): nfswbd where the eighteenth
# had fewer than three runs, and the nfsd modes.
add 2026-12-06-s23/runs reread-nfswbd_auto$v
add 2026-12-06-s22/runs neighbour-nfswbd_auto$v
for w in reread tempfile; do
	add 2026-12-06-s23/runs $w-nfsd-io_dontcache$v $w-nfsd-io_direct$v
done
for w in randwrite neighbour; do
	add 2026-12-06-s22/runs $w-nfsd-io_dontcache$v $w-nfsd-io_direct$v
done
# seventeenth pass (s24): the nfsd modes in seqwrite and multiwriter,
# five rounds.
for w in seqwrite multiwriter; do
	add 2026-12-06-s24/runs/five-rounds $w-nfsd-io_dontcache$v $w-nfsd-io_direct$v
done
# thirteenth and twelfth passes (s19, s18; the series' v2 image, whose
# knobs these tunings leave unset): global-bg, bdi-cap and nfswbd with a
# shorter background_time.
for w in seqwrite randwrite neighbour reread manyclients; do
	add 2026-12-06-s19/runs/bench-s19-73 $w-global-bg_16777216$v \
		$w-bdi-cap_33554432$v $w-nfswbd_auto_background_time_500ms$v
done
for w in tempfile multiwriter; do
	add 2026-12-06-s18/runs/bench-s18-73 $w-global-bg_16777216$v \
		$w-bdi-cap_33554432$v $w-nfswbd_auto_background_time_500ms$v
done
mkdir -p "$out"
python3 tests/nfs/lab-analyze bench --series "$out" "${cells[@]}" >/dev/null
echo "matrix.sh: ${#cells[@]} cells, $out/bench.md"
