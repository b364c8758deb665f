#!/bin/bash
# Install every Debian 12 package nfswb needs to build, test and run its lab.
# Idempotent; run as root.  .ci/run and the README call this, so it is the
# one list of what the project needs.
set -euo pipefail

packages=(
	# build
	autoconf automake libtool pkg-config make gcc clang libclang-rt-14-dev
	libtirpc-dev liburing-dev libnfsidmap-dev libtracefs-dev libtraceevent-dev
	libsystemd-dev systemd
	rpcsvc-proto
	# tests on this machine
	nfs-common e2fsprogs xfsprogs btrfs-progs fdisk util-linux procps python3 jq
	nfs-ganesha nfs-ganesha-vfs rpcbind
	# nfswbd's metrics: tests/daemon/test_metrics_prometheus.sh
	prometheus prometheus-node-exporter curl
	# release checks: the Debian package, lintian, a fresh root to install it in
	dpkg-dev debhelper fakeroot lintian mmdebstrap
	# nfswb-report plot -o FILE.png
	librsvg2-bin
	# the lab: 6.12 and 7.3 kernels with knfsd under qemu; fio on its client
	linux-source-6.12 flex bison bc libelf-dev libssl-dev cpio xz-utils
	qemu-system-x86 nfs-kernel-server iproute2 kmod fio
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
