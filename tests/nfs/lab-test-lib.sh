# SPDX-License-Identifier: GPL-2.0-or-later
#
# lab-test-lib.sh: what the lab's tests (lab-smoke, test-patched.sh)
# share.  Sourced after the test sets $me, its name in messages.

skip() { echo "$me: SKIP: $*" >&2; exit 77; }
fail() { echo "$me: FAIL: $*" >&2; exit 1; }

# need_lab: skip when the lab tests are switched off or qemu is missing.
need_lab() {
	[[ ${NFSWB_LAB_TESTS:-yes} == no ]] &&
		skip "lab tests disabled (configure --disable-lab-tests, as make distcheck does): they boot qemu and build kernels"
	command -v qemu-system-x86_64 >/dev/null ||
		skip "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	return 0
}

# need_source_73: skip when linux-source-7.3 is neither in the lab cache
# nor fetchable (the machine's apt sources name no Debian mirror).
need_source_73() {
	local cache=${NFSWB_LAB_CACHE:-/var/cache/nfswb-lab}

	ls "$cache"/src-7.3/linux-source-7.3_*.deb >/dev/null 2>&1 && return 0
	grep -qs '^deb \|^URIs:' /etc/apt/sources.list /etc/apt/sources.list.d/* &&
		return 0
	skip "no cached linux-source-7.3 and no Debian mirror in the apt sources to fetch it from"
}
