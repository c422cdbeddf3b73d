#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Clients killed (SIGKILL) in the middle of what they do leave nothing
# behind in tapdpd. A datapath with ports and FLOWS flows is the known
# state; then N clients (bench/tools/dpclient.c), each a long flow dump,
# a batch of 100 flow puts in one sendmsg, a single flow put, an ovs_flow
# group join and listen, or a port's upcall pid set, at random, each killed
# after a random 0 to 20 ms. Once the daemon has seen every client go:
#   - its descriptors, and its keeper's, are those of the baseline (each
#     emulated socket holds its connection, data socket, shared page and
#     kernel socket in both; a dump or a group membership lives in its
#     socket and goes with it);
#   - no dead client's portid is still bound (a new socket binds to each);
#   - the flows are the baseline's plus pool flows alone (the only keys the
#     put clients use), counted, then deleted: then the flows and ports are
#     exactly the baseline's;
#   - its resident memory (RssAnon + RssShmem: not the code it pages
#     in), less the journal's pages, grew by less than 1% over the loop, measured from after a warm-up of 50 clients, each time with
#     the pool flows deleted. The journal (datapath/journal.h, a memfd the
#     daemon maps) takes a record for every change, each put and upcall
#     pid set included, and gives its pages back only when it compacts:
#     its resident pages are printed on their own.
#
#   bash bench/client-kill.sh [N]   (default 1000; as root)
#   CLIENT_KILL_FLOWS=N             the baseline's flows (default 3000)
#   CLIENT_KILL_SEED=S              the clients' random sequence (default
#                                   the time)
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all build/dpclient || exit 1
. tests/lib.sh
N=${1:-1000}
FLOWS=${CLIENT_KILL_FLOWS:-3000}
SEED=${CLIENT_KILL_SEED:-$(date +%s)}
WARMUP=50
trap tapdp_cleanup EXIT

ck() { in_ns "$BUILD/tapdp-run" -- "$BUILD/dpclient" "$@"; }
fds() { ls "/proc/$1/fd" | wc -l; }
fds_are() { [ "$(fds "$1")" -eq "$2" ]; }
# The flows as ovs-dpctl prints them, sorted; the ports, without counters.
flows() { dpctl dump-flows dp0 | sort; }
ports() { dpctl show dp0 | grep -E '^\s+port '; }
# Back to the known state: the pool flows deleted, p1's upcall pid reset;
# prints how many pool flows there were.
restore() {
	ck del-pool dp0 | awk '{ print $2 }'
	ck port-pid dp0 p1 "$PID0"
}

tapdp_ns_up
tapdpd_start || exit 1
DPID=$(cat "$PIDF")
KPID=$(awk '{ print $1 }' "/proc/$DPID/task/$DPID/children")
dpctl add-dp dp0 2>/dev/null || exit 1
for p in p1 p2 p3; do dpctl add-if dp0 "$p,type=internal"; done
ck setup dp0 "$FLOWS" || exit 1
check "the baseline's $FLOWS flows are in place" \
	test "$(ck dump dp0 | grep -c '^02:')" -eq "$FLOWS"
PID0=$(ck port-pid dp0 p1)
flows >"$T/flows0"
ports >"$T/ports0"
FD0=$(fds "$DPID")
KFD0=$(fds "$KPID")

echo "client-kill: $(nproc) CPUs, $FLOWS flows, 3 ports, $N clients after $WARMUP of warm-up, seed $SEED"
ck loop dp0 p1 "$WARMUP" "$((SEED + 1))" "$T/pids.warmup" >/dev/null
wait_until 20 fds_are "$DPID" "$FD0"
restore >/dev/null
RSS0=$(mem_kib "$DPID")
J0=$(journal_rss "$DPID")

t0=$(date +%s.%N)
ck loop dp0 p1 "$N" "$SEED" "$T/pids"
t1=$(date +%s.%N)
check "every close seen: the daemon's descriptors are the baseline's ($FD0)" \
	wait_until 30 fds_are "$DPID" "$FD0"
check "the keeper's descriptors are the baseline's ($KFD0)" \
	wait_until 30 fds_are "$KPID" "$KFD0"
check_out "no dead client's portid is still bound" ', still bound 0$' \
	ck probe "$T/pids"
ck dump dp0 >"$T/macs"
base=$(grep -c '^02:' "$T/macs")
pool=$(grep -c '^0a:00:00:00:' "$T/macs")
other=$(($(wc -l <"$T/macs") - base - pool))
check "the baseline's flows are all there ($base of $FLOWS)" \
	test "$base" -eq "$FLOWS"
check "no flow but the baseline's and the pool's ($other others)" \
	test "$other" -eq 0
upid=$(ck port-pid dp0 p1)
deleted=$(restore)
check "the pool flows counted are those deleted ($pool, $deleted)" \
	test "$pool" -eq "$deleted"
check "the flows are the baseline's, exactly" \
	diff "$T/flows0" <(flows)
check "the ports are the baseline's" diff "$T/ports0" <(ports)
# The clients of the checks gone too (the daemon sees a close a moment
# after the client exits).
check "the daemon's descriptors are still the baseline's" \
	wait_until 10 fds_are "$DPID" "$FD0"
RSS1=$(mem_kib "$DPID")
J1=$(journal_rss "$DPID")
HEAP0=$((RSS0 - J0))
HEAP1=$((RSS1 - J1))
growth=$(growth_pct "$HEAP0" "$HEAP1")
check_mem_growth "resident memory less the journal grew by less than 1% ($HEAP0 -> $HEAP1 KiB: $growth%)" \
	"$HEAP0" "$HEAP1"
check "the daemon is alive and answers" dpctl show dp0
echo
echo "| figure | value |"
echo "|---|---:|"
echo "| clients killed | $N in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s |"
echo "| daemon's descriptors (baseline, after) | $FD0, $(fds "$DPID") |"
echo "| keeper's descriptors (baseline, after) | $KFD0, $(fds "$KPID") |"
echo "| pool flows the killed put clients left | $pool |"
echo "| p1's upcall pid after the loop (baseline $PID0) | $upid |"
echo "| resident memory (RssAnon + RssShmem) after warm-up, after the loop (KiB) | $RSS0, $RSS1 |"
echo "| the journal's resident pages in it (KiB) | $J0, $J1 |"
echo "| resident memory less the journal (KiB) | $HEAP0, $HEAP1 ($growth%) |"
# Its exit, where the sanitizers' leak check runs, before the count.
check "the daemon stops" tapdpd_stop
finish
