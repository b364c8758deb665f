#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the nfswb Debian package from the tracked files of this tree
# (dpkg-buildpackage -us -uc -b in a scratch copy), run lintian on it,
# install it into a fresh Debian 12 root made with mmdebstrap, and run
# `nfswbd --check-config` and `nfswb-report --help` there.  As root.
#
#   scripts/deb-test.sh [--keep]      # --keep: leave the scratch directory
#
# The mirror is the one this machine's apt uses for bookworm main
# (apt-get indextargets), so the root comes from Debian's own packages.
# Prints each step's time; exits 0 pass, 1 fail, 77 skip (with why).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
me=deb-test
keep=${1:-}

skip() { echo "$me: SKIP: $*" >&2; exit 77; }
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
t0=$(date +%s)
step() { echo "$me: [$(( $(date +%s) - t0 ))s] $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap, chroot)"
for c in dpkg-buildpackage lintian mmdebstrap git; do
	command -v $c >/dev/null || skip "$c not installed (scripts/install-deps.sh)"
done
git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	skip "$top is not a git tree (the package is built from its tracked files)"

mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
	awk '$2 == "bookworm" && $3 == "main" { print $1; exit }')
[ -n "$mirror" ] || skip "this machine's apt has no bookworm main source (apt-get update?)"

work=$(mktemp -d /var/tmp/nfswb-deb.XXXXXX) || fail "mktemp"
if [ "$keep" != --keep ]; then
	trap 'rm -rf "$work"' EXIT
fi

# --- build -------------------------------------------------------------
step "copying the tracked files to $work/nfswb"
mkdir "$work/nfswb"
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) |
	tar -x -C "$work/nfswb" || fail "cannot copy the tree"
step "dpkg-buildpackage -us -uc -b"
(cd "$work/nfswb" && DEB_BUILD_OPTIONS="nocheck${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}" \
	dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1 ||
	fail "dpkg-buildpackage failed: $(tail -n 20 "$work/build.log")"
deb=$(ls "$work"/nfswb_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no nfswb_*.deb built"
changes=$(ls "$work"/nfswb_*.changes | head -n 1)

dpkg-deb -c "$deb" > "$work/contents" || fail "dpkg-deb -c $deb"
for f in usr/sbin/nfswbd usr/bin/nfswb-report usr/bin/nfswb-load \
	 lib/systemd/system/nfswbd.service etc/nfswb.exports \
	 usr/share/man/man8/nfswbd.8.gz usr/share/man/man5/nfswb.exports.5.gz \
	 usr/share/man/man1/nfswb-report.1.gz usr/share/man/man1/nfswb-load.1.gz \
	 usr/share/doc/nfswb/copyright usr/share/doc/nfswb/examples/example.exports; do
	grep -q " \./$f\$" "$work/contents" || fail "$f is not in $(basename "$deb")"
done
dpkg-deb -f "$deb" Package | grep -qx nfswb || fail "the package is not called nfswb"

step "lintian"
lintian --fail-on error "$changes" > "$work/lintian.log" 2>&1
rc=$?
sed 's/^/  /' "$work/lintian.log"
[ $rc -eq 0 ] || fail "lintian reports errors"

# --- install into a fresh root -------------------------------------------
step "mmdebstrap bookworm from $mirror, then apt-get install the .deb"
cp "$deb" "$work/nfswb.deb"
mmdebstrap --variant=apt --quiet \
	--customize-hook="copy-in $work/nfswb.deb /tmp" \
	--customize-hook='chroot "$1" apt-get install -y -q --no-install-recommends /tmp/nfswb.deb' \
	bookworm "$work/root" "deb $mirror bookworm main" > "$work/mmdebstrap.log" 2>&1 ||
	fail "mmdebstrap or the install failed: $(tail -n 20 "$work/mmdebstrap.log")"
root=$work/root

step "checks in the fresh root"
in_root() { chroot "$root" "$@"; }
in_root dpkg-query -W -f='${Status}\n' nfswb | grep -qx 'install ok installed' ||
	fail "nfswb is not installed in the fresh root"
in_root dpkg-query -W -f='${Conffiles}\n' nfswb | grep -q '^ /etc/nfswb.exports ' ||
	fail "/etc/nfswb.exports is not a conffile"
out=$(in_root nfswbd --check-config 2>&1) || fail "nfswbd --check-config in the fresh root: $out"
echo "  nfswbd --check-config: $(echo "$out" | tr '\n' ' ')"
out=$(in_root nfswb-report --help 2>&1) || fail "nfswb-report --help in the fresh root: $out"
echo "$out" | grep -q -i usage || fail "nfswb-report --help prints no usage: $out"
echo "  nfswb-report --help: $(echo "$out" | head -n 1)"
# The postinst starts nothing and enables nothing with the shipped file.
ls "$root"/etc/systemd/system/*.wants/nfswbd.service >/dev/null 2>&1 &&
	fail "the package enabled nfswbd.service with an empty configuration"
grep -q '^/' "$root/etc/nfswb.exports" &&
	fail "the shipped /etc/nfswb.exports lists an export"
step "pass ($(basename "$deb"))"
exit 0
