#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Least privilege (daemon/sandbox.h): once set up, tapdpd keeps only the
# capabilities it uses and runs under NO_NEW_PRIVS and a seccomp filter,
# its port threads too, and its keeper with no capability at all; a system call outside the filter's list fails with
# EPERM and is logged; --no-sandbox does none of it; and a daemon started
# as an execve() from a sandboxed one would be (no new privileges, only the
# capabilities kept) starts and serves.
. "$(dirname "$0")/../lib.sh"

A=tapdpa$$
B=tapdpb$$
cleanup_hosts() { ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; tapdp_cleanup; }
trap cleanup_hosts EXIT

# The masks: CAP_NET_BIND_SERVICE (10), CAP_NET_ADMIN (12), CAP_NET_RAW
# (13) effective, and CAP_BPF (39) with the fast path on (its maps);
# CAP_NET_BROADCAST (11) besides, permitted and bounding, for a new
# tapdpd's startup; of what this script itself has.
own=$(awk '/^CapPrm:/ { print $2 }' /proc/self/status)
mask() { printf '%016x' $((0x$own & $1)); }
set_masks() { # bpf: the fast path is on
	local bpf=$(($1 ? 1 << 39 : 0))
	EFF=$(mask $((0x3400 | bpf)))
	KEPT=$(mask $((0x3c00 | bpf)))
}
fast_path_on() {
	in_ns "$BUILD/tapdpctl" --socket "$SOCK" status | grep -q "^fast path: bpf$"
}

status_is() { # pid field value
	grep -qx "$2:[[:space:]]*$3" "/proc/$1/status" || {
		grep "^$2:" "/proc/$1/status"
		return 1
	}
}
# Every thread of pid: the filter, no new privileges, the kept masks.
threads_sandboxed() {
	local t n=0
	for t in /proc/"$1"/task/*; do
		status_is "$1/task/${t##*/}" Seccomp 2 &&
			status_is "$1/task/${t##*/}" NoNewPrivs 1 &&
			status_is "$1/task/${t##*/}" CapEff "$EFF" &&
			status_is "$1/task/${t##*/}" CapPrm "$KEPT" || return 1
		n=$((n + 1))
	done
	echo "$n threads"
	[ "$n" -gt 1 ]
}
# The daemon's own threads, the control thread and the ports', can take
# the trap: SIGSYS is not blocked (where it is, the kernel kills the
# daemon instead: in liburcu's hash table resize worker, which blocks
# every signal).
threads_take_sigsys() {
	local t blk n=0
	for t in /proc/"$1"/task/*; do
		[ "${t##*/}" = "$1" ] || grep -q '^rx' "$t/comm" || continue
		blk=$(awk '/^SigBlk:/ { print $2 }' "$t/status")
		[ $((0x$blk & 0x40000000)) -eq 0 ] || {
			echo "thread ${t##*/} ($(cat "$t/comm")): SigBlk $blk"
			return 1
		}
		n=$((n + 1))
	done
	echo "$n threads"
	[ "$n" -gt 1 ]
}

tapdp_ns_up
host_add $A va 10.9.7.1/24
host_add $B vb 10.9.7.2/24

check "daemon starts" tapdpd_start
PID=$(cat "$PIDF")
fast_path_on && fast=1 || fast=0
set_masks $fast
check "Seccomp: 2 (a filter)" status_is "$PID" Seccomp 2
check "NoNewPrivs: 1" status_is "$PID" NoNewPrivs 1
check "CapEff: $EFF" status_is "$PID" CapEff "$EFF"
check "CapPrm: $KEPT" status_is "$PID" CapPrm "$KEPT"
check "CapBnd: $KEPT" status_is "$PID" CapBnd "$KEPT"
check "CapInh: none" status_is "$PID" CapInh 0000000000000000
check "CapAmb: none" status_is "$PID" CapAmb 0000000000000000
# The keeper, the daemon's child: it holds descriptors, nothing more.
KPID=$(pgrep -P "$PID" -x tapdpd)
NONE=0000000000000000
check "the keeper: Seccomp: 2" status_is "$KPID" Seccomp 2
check "the keeper: NoNewPrivs: 1" status_is "$KPID" NoNewPrivs 1
for c in CapEff CapPrm CapBnd CapInh CapAmb; do
	check "the keeper: $c: none" status_is "$KPID" $c $NONE
done
# The namespace agent, the daemon's other child: setns(), packet
# sockets and /proc (CAP_SYS_ADMIN, NET_RAW, SYS_PTRACE, DAC_READ_SEARCH),
# nothing more.
APID=$(pgrep -P "$PID" -x tapdpd-nsagent)
AGENT=0000000000282004
check "the agent: Seccomp: 2" status_is "$APID" Seccomp 2
check "the agent: NoNewPrivs: 1" status_is "$APID" NoNewPrivs 1
for c in CapEff CapPrm CapBnd; do
	check "the agent: $c: $AGENT" status_is "$APID" $c $AGENT
done
for c in CapInh CapAmb; do
	check "the agent: $c: none" status_is "$APID" $c $NONE
done

# Ports, their receive threads, upcalls, conntrack and teardown, all in
# the sandbox.
check "add-dp, add-if va vb p0 (internal)" eval \
	'dpctl add-dp dp0 && dpctl add-if dp0 va && dpctl add-if dp0 vb &&
	 dpctl add-if dp0 p0,type=internal'
for f in "in_port(1),eth(),eth_type(0x0806),arp() 2" \
	 "in_port(2),eth(),eth_type(0x0806),arp() 1" \
	 "in_port(1),eth(),eth_type(0x0800),ipv4() ct(commit),2" \
	 "in_port(2),eth(),eth_type(0x0800),ipv4() 1"; do
	dpctl add-flow dp0 "${f% *}" "${f##* }"
done
check "ping across the datapath" \
	ip netns exec $A ping -c 3 -i 0.2 -W 2 10.9.7.2
check_out "conntrack tracked it" "icmp" dpctl dump-conntrack
# Flows freed after a grace period: liburcu's call_rcu thread.
check "del-flows" dpctl del-flows dp0
check_out "every thread is sandboxed (ports', liburcu's)" "threads" \
	threads_sandboxed "$PID"
check_out "the control thread and the ports' take SIGSYS" "threads" \
	threads_take_sigsys "$PID"
check "del-dp dp0" dpctl del-dp dp0
tapdpd_stop
check_out "the daemon shut down" "shutting down" cat "$LOG"
check_absent "and refused none of its own system calls" \
	"seccomp: refused" cat "$LOG"

check "daemon starts with --no-sandbox" tapdpd_start --no-sandbox
PID=$(cat "$PIDF")
check_out "it says so" "not sandboxed" cat "$LOG"
check "Seccomp: 0" status_is "$PID" Seccomp 0
check "NoNewPrivs: 0" status_is "$PID" NoNewPrivs 0
check "CapEff: all of ours" status_is "$PID" CapEff \
	"$(awk '/^CapEff:/ { print $2 }' /proc/self/status)"
check "CapBnd: all" status_is "$PID" CapBnd \
	"$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)"
KPID=$(pgrep -P "$PID" -x tapdpd)
check "the keeper: Seccomp: 0" status_is "$KPID" Seccomp 0
check "the keeper: CapEff: all of ours" status_is "$KPID" CapEff \
	"$(awk '/^CapEff:/ { print $2 }' /proc/self/status)"
APID=$(pgrep -P "$PID" -x tapdpd-nsagent)
check "the agent: Seccomp: 0" status_is "$APID" Seccomp 0
tapdpd_stop

# A system call outside the list: EPERM on the thread that made it, and
# on a new one, and one log line. The check's log is not a suite's
# daemon's (finish looks for refusals in those), so it goes once read.
"$BUILD/tapdpd" --sandbox-check --log-file "$T/check.log" >"$T/check.out" 2>&1
st=$?
check "--sandbox-check exits 0 (status $st)" test "$st" -eq 0
check_out "... refused with EPERM on the main thread" \
	"^keyctl on the main thread: EPERM$" cat "$T/check.out"
check_out "... and on a new thread" "^keyctl on a new thread: EPERM$" \
	cat "$T/check.out"
check_out "... logged once" "^refused calls logged: 1$" cat "$T/check.out"
check_out "the log names the call" \
	"\|ERR\|seccomp: refused system call keyctl/[0-9]+$" \
	cat "$T/check.log"
rm -f "$T/check.log"
check_fails "--sandbox-check --no-sandbox: nothing refused, it fails" \
	"$BUILD/tapdpd" --sandbox-check --no-sandbox --log-file "$T/check.log"
check_absent "... and logs nothing" "seccomp" cat "$T/check.log"

# What an in-place upgrade's execve() gives the new daemon: no new
# privileges, the bounding set kept, nothing else (and no CAP_SETPCAP to
# drop more with).
caps=$(capsh --decode="$KEPT" | sed 's/.*=//; s/cap_/+/g')
check "as if re-executed (bounding set $caps): the daemon starts" \
	in_ns setpriv --no-new-privs --inh-caps=-all --bounding-set=-all,"$caps" \
	-- $DAEMON_ENV "$BUILD/tapdpd" --socket "$SOCK" --log-file "$T/reexec.log" \
	--pidfile "$PIDF" --detach
PID=$(cat "$PIDF")
check "CapEff: $EFF" status_is "$PID" CapEff "$EFF"
check "CapPrm: $KEPT" status_is "$PID" CapPrm "$KEPT"
fast_path_on && again=1 || again=0
check "its fast path as the first daemon's ($fast, $again)" test "$again" = "$fast"
check "... and serves" dpctl add-dp dp1
check "del-dp dp1" dpctl del-dp dp1
check_absent "... without a warning" "\|(WARN|ERR)\|" cat "$T/reexec.log"
check_out "... and no namespace agent, which setns() would need" \
	"no namespace agent \(Operation not permitted\)" cat "$T/reexec.log"
finish
