# SPDX-License-Identifier: GPL-2.0-or-later
# ganesha-lib.sh - start and stop NFS-Ganesha on 127.0.0.1 by PID for
# nfswb-load's test and benchmark.  Sourced, not run.
#
# The caller first calls g_isolate "$0" "$@" (see there), sets G_DIR (a
# scratch directory it removes) and calls g_start EXPORT_PATH...; each path
# becomes an NFSv3 export (TCP only).
# g_start sets G_NFS_PORT and G_MNT_PORT, picked free so that other tests
# running Ganesha at the same time do not collide.  g_stop ends the
# processes this file started, by PID, and waits for them.  Functions
# return 77 when Ganesha cannot run here, with the reason in G_WHY.

G_PID=
G_RPCBIND_PID=
G_WHY=

# check, pycheck, record_start
. "${BASH_SOURCE[0]%/*}/../check-lib.sh"

# g_isolate SCRIPT ARGS...: re-run SCRIPT in a network and mount namespace
# of its own, if the machine allows it; returns only when it does not.
#
# Ganesha must register NFSv3 with rpcbind or it exits, and rpcbind keeps
# one registration per program: a second Ganesha on the machine (another
# test, started at the same time) takes it over, and a restarted one then
# fails to register.  With its own loopback, its own /run (rpcbind's unix
# socket) and its own rpcbind, this test shares nothing with them.
g_isolate() {
	[ -n "${NFSWB_LOAD_NETNS:-}" ] && return 0
	command -v unshare >/dev/null && command -v ip >/dev/null || return 0
	unshare -n -m --propagation private true 2>/dev/null || return 0
	NFSWB_LOAD_NETNS=1 exec unshare -n -m --propagation private \
		"$BASH" "$@"
}

# In the namespace: bring up lo and give rpcbind and Ganesha a fresh /run.
g_netns_setup() {
	[ -n "${NFSWB_LOAD_NETNS:-}" ] || return 0
	ip link set lo up || { G_WHY="cannot bring up lo in a new namespace"; return 77; }
	# Ganesha resolves Bind_addr with AI_ADDRCONFIG, which ignores
	# 127.0.0.1 itself: without one more address "127.0.0.1" fails to
	# resolve.  Any other address will do; this one stays on lo.
	ip addr add 127.0.0.2/8 dev lo ||
		{ G_WHY="cannot add an address to lo in a new namespace"; return 77; }
	mount -t tmpfs -o mode=755 nfswb-load-run /run ||
		{ G_WHY="cannot mount a private /run"; return 77; }
}

# g_free_port - print a TCP port nobody listens on on 127.0.0.1
g_free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		if ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

g_rpcbind() {
	# Ganesha must register NFSv3 and MOUNT with rpcbind or it exits.
	if rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
		return 0
	fi
	command -v rpcbind >/dev/null || { G_WHY="rpcbind not installed"; return 77; }
	rpcbind -f -w &
	G_RPCBIND_PID=$!
	for _ in $(seq 50); do
		rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	G_WHY="rpcbind -f -w did not answer within 5 s"
	return 77
}

g_start() {
	local i=1 p conf="$G_DIR/ganesha.conf"

	command -v ganesha.nfsd >/dev/null ||
		{ G_WHY="ganesha.nfsd not installed (nfs-ganesha)"; return 77; }
	[ -e /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so ] ||
		ls /usr/lib/*/ganesha/libfsalvfs.so >/dev/null 2>&1 ||
		{ G_WHY="FSAL_VFS not installed (nfs-ganesha-vfs)"; return 77; }
	g_netns_setup || return $?
	g_rpcbind || return $?
	mkdir -p /var/run/ganesha /var/lib/nfs/ganesha "$G_DIR/recov" 2>/dev/null ||
		{ G_WHY="cannot create Ganesha's state directories"; return 77; }
	G_NFS_PORT=$(g_free_port) && G_MNT_PORT=$(g_free_port) ||
		{ G_WHY="no free TCP port"; return 77; }
	[ "$G_NFS_PORT" != "$G_MNT_PORT" ] || G_MNT_PORT=$((G_NFS_PORT + 1))

	cat >"$conf" <<-EOF
	NFS_CORE_PARAM {
		NFS_Port = $G_NFS_PORT;
		MNT_Port = $G_MNT_PORT;
		Bind_addr = 127.0.0.1;
		Enable_NLM = false;
		Enable_RQUOTA = false;
		Enable_UDP = false;
		Protocols = 3;
	}
	NFSV4 { Graceless = true; RecoveryRoot = "$G_DIR/recov"; }
	EOF
	for p in "$@"; do
		cat >>"$conf" <<-EOF
		EXPORT {
			Export_Id = $i;
			Path = "$p";
			Pseudo = "/load$i";
			Access_Type = RW;
			Squash = No_Root_Squash;
			Transports = TCP;
			Protocols = 3;
			FSAL { Name = VFS; }
		}
		EOF
		i=$((i + 1))
	done

	g_launch
}

# g_launch - start ganesha.nfsd on the config g_start wrote, wait for it
g_launch() {
	local log="$G_DIR/ganesha.log"

	[ -s "$log" ] && mv "$log" "$log.prev"
	ganesha.nfsd -F -L "$log" -f "$G_DIR/ganesha.conf" -p "$G_DIR/ganesha.pid" &
	G_PID=$!
	# About 6 s here; give it 40 before calling it broken.
	for _ in $(seq 400); do
		if grep -q "NFS SERVER INITIALIZED" "$log" 2>/dev/null; then
			return 0
		fi
		if ! kill -0 "$G_PID" 2>/dev/null; then
			G_WHY="ganesha.nfsd exited at start: $(grep -E 'CRIT|MAJ|FATAL' "$log" | grep -v DBUS | tail -n 2)"
			G_PID=
			return 77
		fi
		sleep 0.1
	done
	G_WHY="ganesha.nfsd did not print 'NFS SERVER INITIALIZED' within 40 s"
	return 77
}

# g_wait_gone PID SECONDS - wait for PID to exit; SIGKILL after SECONDS
g_wait_gone() {
	local pid=$1 n=$(($2 * 10))
	while [ "$n" -gt 0 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		n=$((n - 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}

# g_kill_server - crash ganesha.nfsd (g_launch starts it again)
g_kill_server() {
	if [ -n "$G_PID" ]; then
		# Not a job any more: bash would report "Killed" on stderr.
		disown "$G_PID" 2>/dev/null
		kill -KILL "$G_PID" 2>/dev/null
		g_wait_gone "$G_PID" 5
		G_PID=
	fi
}

g_stop() {
	if [ -n "$G_PID" ]; then
		# Ganesha takes about 10 s to exit after SIGTERM.
		kill -TERM "$G_PID" 2>/dev/null
		g_wait_gone "$G_PID" 20
		G_PID=
	fi
	if [ -n "$G_RPCBIND_PID" ]; then
		kill -TERM "$G_RPCBIND_PID" 2>/dev/null
		g_wait_gone "$G_RPCBIND_PID" 5
		G_RPCBIND_PID=
	fi
}
