#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdp under load from its clients (issue 15), as ovs-vswitchd would put it
# on a large switch: build/bench-flow-load (a libmnl client, through the
# shim) against a daemon of its own in a namespace. Three phases, each
# printing its figures and its checks ("ok - "/"FAIL - "):
#  a) flows: N megaflows put (OVS_FLOW_CMD_NEW, NLM_F_CREATE | NLM_F_ACK,
#     BATCH per sendmsg, every ACK read): puts/s; one full dump (time, flows
#     counted, bytes); the flush; the datapath's n_flows and the daemon's
#     VmRSS and VmHWM at each step.
#  b) ports: P internal ports added one request at a time (rate), dumped,
#     each one's device in the namespace, deleted (rate), the devices gone,
#     the daemon's descriptors back to where they were.
#  c) churn: C processes dump the flows in a loop for S seconds while one
#     more adds and deletes flows over a working set of W: every dump ends
#     with NLMSG_DONE and no error, the table afterwards is what the churner
#     holds installed, the daemon's descriptors come back and its VmRSS
#     ends within 32 MiB of where the phase began.
#
#   bash bench/flow-load.sh        (as root; BUILD=build-asan for the
#                                   sanitizers, whose reports fail it)
#   FLOWS=N (1000000) BATCH=N (50, as ovs-vswitchd's dpif_netlink_operate)
#   PORTS=N (1000) CLIENTS=N (100) SECS=N (30) WORKSET=N (10000)
set -u
cd "$(dirname "$0")/.." || exit 1
# Another BUILD (build-asan: the daemon under the sanitizers) is built
# beforehand: make BUILD=build-asan SAN=1 all build-asan/bench-flow-load
if [ "${BUILD:-build}" = build ]; then
	make -s all build/bench-flow-load || exit 1
fi
. tests/lib.sh
FLOWS=${FLOWS:-1000000}
BATCH=${BATCH:-50}
PORTS=${PORTS:-1000}
CLIENTS=${CLIENTS:-100}
SECS=${SECS:-30}
WORKSET=${WORKSET:-10000}
# The sanitizers' daemon keeps what it frees in a quarantine (256 MB by
# default), which the memory checks would take for growth.
export ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=8
# The daemon as it is deployed: without the tests' fill of what malloc
# returns, which touches every page of a large buffer and so would be
# counted as resident.
DAEMON_ENV=env
trap tapdp_cleanup EXIT

# Runs the client in the namespace; its checks count as this script's.
load() {
	local st
	in_ns "$BUILD/tapdp-run" -- "$BUILD/bench-flow-load" "$@" \
		>"$T/load" 2>&1
	st=$?
	grep -Ev '^[0-9]+ passed, [0-9]+ failed$' "$T/load"
	PASS=$((PASS + $(grep -c '^ok - ' "$T/load")))
	FAIL=$((FAIL + $(grep -c '^FAIL - ' "$T/load")))
	if [ "$st" -ne 0 ] && ! grep -q '^FAIL - ' "$T/load"; then
		nok "bench-flow-load $1 failed (status $st) without saying why"
	fi
}

fds() { ls "/proc/$PID/fd" | wc -l; }
mem() {
	awk '/^VmRSS|^VmHWM/ { printf " %s %s KiB", $1, $2 }' "/proc/$PID/status"
}
devices() { in_ns ip -o link show | grep -cE '^[0-9]+: fl[0-9]+[:@]'; }

echo "flow-load: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(date -u '+%F %H:%M UTC')"
tapdp_ns_up
tapdpd_start || exit 1
PID=$(cat "$PIDF")

echo
echo "== a) $FLOWS megaflows, $BATCH puts per sendmsg"
load flows dp0 "$FLOWS" "$BATCH" "$PID"
# The journal (datapath/journal.h) is rewritten whole on the control thread
# as it grows: its log lines, to set beside the slowest answer's time.
grep "journal: compacted" "$LOG" | sed 's/^/  daemon: /'

echo
echo "== b) $PORTS internal ports"
fd0=$(fds)
echo "  daemon descriptors before: $fd0, memory:$(mem)"
load ports-add dp0 "$PORTS"
echo "  daemon descriptors with the ports: $(fds), memory:$(mem)"
n=$(devices)
check "$n of $PORTS ports' devices present in the namespace" \
	test "$n" -eq "$PORTS"
load ports-del dp0 "$PORTS"
n=$(devices)
check "every port's device gone ($n left)" test "$n" -eq 0
fd1=$(fds)
echo "  daemon descriptors after: $fd1, memory:$(mem)"
check "the daemon's descriptors back to $fd0 ($fd1)" test "$fd1" -eq "$fd0"

echo
echo "== c) $CLIENTS clients dumping for $SECS s while one churns over $WORKSET flows"
load churn dp0 "$CLIENTS" "$SECS" "$WORKSET" "$PID"
load dp-del dp0
check "the daemon still runs" test -e "/proc/$PID"
# Stopped before the count, so that the sanitizers' leak check at its exit
# is part of it.
tapdpd_stop
check "the daemon stops on SIGTERM" test ! -e "/proc/$PID"
finish
