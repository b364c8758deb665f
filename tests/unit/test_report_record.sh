#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nfswb-report record: its own tracefs instance, the events it finds,
# samples from a status.json, and the instance gone after -d, SIGINT,
# SIGTERM, and after a run killed with SIGKILL (removed by the next run).
. "${srcdir:-.}/unit/report-lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: record needs root to create a tracefs instance" >&2
	exit 77
fi
# A probe run says whether tracefs is usable here, and why not.
if ! "$report" record -d 100ms -e sched:sched_process_exec -o "$work/probe" \
	2>"$work/probe.err"; then
	if grep -q -e tracefs -e instance "$work/probe.err"; then
		echo "SKIP: $(tail -n1 "$work/probe.err")" >&2
		exit 77
	fi
	cat "$work/probe.err" >&2
	exit 1
fi
tracing=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
instances=$tracing/instances

# A status.json as nfswbd writes it: one device.
cat > "$work/status.json" <<'JSON'
{"program": "nfswbd", "devices": [{"bdi": "254:16", "exports": ["/srv"],
 "bandwidth": {"bytes_per_s": 33554432, "state": "learned"},
 "dirty_bytes": 1048576, "counters": {"kicks": 3}}]}
JSON
cp /bin/true "$work/nfswb-probe-true"

# 1. -d: events land in the file, samples too, and the instance goes.
record_start "$report" "$work/rec" -d 3s -e sched:sched_process_exec \
	-s "$work/status.json"
pid=$REC_PID
for _ in 1 2 3; do "$work/nfswb-probe-true"; done
wait $pid
rc=$?
check "record -d exits 0 (got $rc): $(cat "$work/rec.err")" test $rc = 0
check "header names the instance" grep -q "^# instance nfswb-report-$pid" "$work/rec"
check "probe execs recorded" \
	test "$(grep -c "sched_process_exec: filename=$work/nfswb-probe-true" "$work/rec")" = 3
check "status sampled" \
	grep -q "^# nfswb-sample t=[0-9.]* bdi=254:16 dirty=1048576 bandwidth=33554432$" "$work/rec"
check "instance removed after -d" test ! -e "$instances/nfswb-report-$pid"
check "summary reads the recording" "$report" summary -H "$work/rec" >/dev/null

# 2. Signals: the instance is removed and the exit is clean.
for sig in INT TERM; do
	"$report" record -e sched:sched_process_exec -o "$work/rec.$sig" 2>/dev/null &
	pid=$!
	for _ in $(seq 50); do
		[ -d "$instances/nfswb-report-$pid" ] && break
		sleep 0.1
	done
	check "instance exists while recording ($sig)" test -d "$instances/nfswb-report-$pid"
	kill -$sig $pid
	wait $pid
	check "SIG$sig exits 0" test $? = 0
	check "instance removed after SIG$sig" test ! -e "$instances/nfswb-report-$pid"
done

# 3. SIGKILL leaves the instance; the next run removes it.
"$report" record -e sched:sched_process_exec -o /dev/null 2>/dev/null &
pid=$!
for _ in $(seq 50); do
	[ -d "$instances/nfswb-report-$pid" ] && break
	sleep 0.1
done
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL leaves the instance" test -d "$instances/nfswb-report-$pid"
"$report" record -d 100ms -e sched:sched_process_exec -o /dev/null 2>/dev/null
check "a stale instance is removed" test ! -e "$instances/nfswb-report-$pid"

# 4. -p: the fsync syscalls of that process, when the kernel has them.
if [ -d "$tracing/events/syscalls/sys_enter_fsync" ]; then
	"$report" record -d 100ms -p $$ -o "$work/rec.p" 2>/dev/null
	check "-p enables the fsync events" \
		grep -q "^# events:.* syscalls:sys_enter_fsync syscalls:sys_exit_fsync" "$work/rec.p"
fi

# 4b. The header says what times COMMIT; a kernel with neither the
# nfsd_commit tracepoints nor kprobe events says which feature is missing.
check "header names the COMMIT source" grep -q "^# commit source: " "$work/rec"
if [ ! -e "$tracing/kprobe_events" ] && [ ! -d "$tracing/events/nfsd" ]; then
	check "no kprobe events: the header says CONFIG_KPROBE_EVENTS" \
		grep -q "^# commit source: none: .*CONFIG_KPROBE_EVENTS" "$work/rec"
	"$report" record -d 100ms -o "$work/nokprobe" 2>"$work/err"
	check "no event at all: record fails" test $? = 1
	check "... naming the missing kprobe events" \
		grep -q "CONFIG_KPROBE_EVENTS" "$work/err"
fi
if [ -e "$tracing/kprobe_events" ]; then
	check "no nfswb kprobe left behind" \
		sh -c "! grep -q nfswb_ '$tracing/kprobe_events'"
fi

# 5. Errors name the problem.
"$report" record -d 100ms -e nosuch:event -o "$work/failed" 2>"$work/err"
check "unknown event is an error" grep -q "nosuch:event: no such event" "$work/err"
check "a failed record leaves no file" test ! -e "$work/failed"
"$report" record -d 100ms -p 2147483000 -o "$work/none.txt" 2>"$work/err"
check "missing pid is an error" grep -q "no such process" "$work/err"
# A failed record removes only a regular file it wrote, never a device
# named as output (it once deleted /dev/null this way).
if mknod "$work/null" c 1 3 2>/dev/null; then
	"$report" record -d 100ms -e nosuch:event -o "$work/null" 2>/dev/null
	check "a device named as output survives a failed record" \
		test -c "$work/null"
fi
exit $fail
