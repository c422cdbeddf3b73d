#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Ports' devices deleted or moved to another namespace from outside, under
# traffic (issue 15): tapdpd notices each, detaches what the kernel
# detaches, keeps forwarding between the ports left alone, and gives back
# every descriptor and its memory.
#
# A datapath dp0 (plain ovs-dpctl, explicit flows) with six ports, each at
# a fixed number so that the flows find a port added again:
#   a0, b0   veths to hosts hA and hB, left alone: build/udpgen in hA sends
#            RATE frames a second into a0, which the flow outputs to b0
#            and to every other port;
#   v0       a veth to host hV, whose udpgen sends RATE / 10 frames a
#            second into it (a flow outputs them to i0);
#   n0       a veth to host hN;
#   i0, i1   internal ports (TAP devices), up.
# Then, for WARMUP + R rounds, with the traffic on:
#   - v0's device deleted (ip link del): the port is detached, as the
#     kernel detaches a netdev port whose device unregisters;
#   - i1's device deleted (ip link del of its TAP device; the kernel
#     refuses it for its internal devices, a TAP device cannot): detached;
#   - n0's device moved to namespace hM: detached (the kernel does the
#     same), then moved back;
#   - i0's device moved to hM, still attached there, and back;
#   - v0, n0 and i1 added again at their numbers, v0's traffic restarted.
# Each round checks that the daemon answers (ovs-dpctl show), each port
# deleted or moved away is gone from the datapath and the log says so,
# i0 stayed, and hB received frames during the round. At the end: the
# ports are the baseline's, the daemon's and its keeper's descriptors are
# the baseline's, its resident memory (RssAnon + RssShmem) less the
# journal's pages (a record for each port added or deleted, given back
# when it compacts) within 1% of after the warm-up, no sanitizer report or
# seccomp refusal (finish).
# Printed: the rounds, frames and bytes hB received during them (and what
# hA sent), the time from each deletion to the daemon's log line saying it
# detached the port (min, median, max), descriptors and memory.
#
#   bash bench/port-yank.sh [R]     (default 20; as root)
#   YANK_RATE=F                     hA's frames a second (default 50000)
#   BUILD=build-asan                the daemon under the sanitizers (make
#                                   -j2 asan first)
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all build/udpgen || exit 1
. tests/lib.sh
R=${1:-20}
RATE=${YANK_RATE:-50000}
WARMUP=2
# The load generator is no part of what is tested: the plain build's.
GEN=$TOP/build/udpgen
HA=ya$$ HB=yb$$ HV=yv$$ HN=yn$$ HM=ym$$
HOSTS="$HA $HB $HV $HN $HM"
cleanup() {
	gen_stop "$HA"
	gen_stop "$HV"
	for h in $HOSTS; do ip netns del "$h" 2>/dev/null; done
	tapdp_cleanup
}
trap cleanup EXIT

show() { dpctl show dp0; }
ports() { show | grep -E '^\s+port ' | sort; }
absent() { output_lacks "port [0-9]+: $1( |$)" show; }
present() { show | grep -Eq "port [0-9]+: $1( |$)"; }
fds() { ls "/proc/$1/fd" | wc -l; }
fds_are() { [ "$(fds "$1")" -eq "$2" ]; }
stat_of() { # host counter: eth0's counter in host's namespace
	ip netns exec "$1" cat "/sys/class/net/eth0/statistics/$2"
}
rx_beyond() { [ "$(stat_of "$HB" rx_packets)" -gt "$1" ]; }
mac_of() { ip netns exec "$1" cat /sys/class/net/eth0/address; }
# udpgen from host's eth0 at RATE frames a second until killed; its pid
# in GEN_<host> (no shell function between: $! is udpgen).
gen_start() { # host rate
	ip netns exec "$1" "$GEN" -r "$2" -n $(($2 * 86400)) eth0 \
		"$(mac_of "$HB")" 10.9.0.1 10.9.0.2 0 >/dev/null 2>&1 &
	eval "GEN_$1=$!"
}
gen_stop() { # host
	local p
	eval "p=\${GEN_$1:-}"
	[ -n "$p" ] || return 0
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	eval "GEN_$1="
}
# The log's detach lines of port $1.
detached() { grep -c " $1: device deleted or moved away, detaching" "$LOG"; }
detach_count_beyond() { [ "$(detached "$1")" -gt "$2" ]; }
# Milliseconds from epoch time $2 to the log's detach line number $3 of $1.
notice_ms() {
	local ts
	ts=$(grep " $1: device deleted or moved away, detaching" "$LOG" |
		sed -n "$3{s/|.*//;p}")
	awk -v a="$2" -v b="$(date -d "$ts" +%s.%N)" \
		'BEGIN { printf "%.0f", (b - a) * 1000 }'
}
# Deletes or moves port $1's device with CMD, then waits for the port to
# leave the datapath and the log line; appends the time to $T/notice.$1.
# Fails (saying why) if it does not within 10 s.
yank() {
	local port=$1 n t0
	shift
	n=$(detached "$port")
	t0=$(date +%s.%N)
	"$@" || { echo "round $round: $* failed"; return 1; }
	if ! wait_until 10 absent "$port"; then
		echo "round $round: $port still in the datapath after 10 s"
		return 1
	fi
	if ! wait_until 10 detach_count_beyond "$port" "$n"; then
		echo "round $round: no log line of $port's detach"
		return 1
	fi
	notice_ms "$port" "$t0" $((n + 1)) >>"$T/notice.$port"
	echo >>"$T/notice.$port"
}
veth_add() { # port host
	ip link add "$1" netns "$NS" type veth peer name eth0 netns "$2" &&
		in_ns ip link set "$1" up && ip netns exec "$2" ip link set eth0 up
}
# One round; prints what went wrong, fails if anything did.
yank_round() {
	local bad=0 rx0 by0 tx0 rx1 by1 tx1
	rx0=$(stat_of "$HB" rx_packets)
	by0=$(stat_of "$HB" rx_bytes)
	tx0=$(stat_of "$HA" tx_packets)
	yank v0 in_ns ip link del v0 || bad=1
	gen_stop "$HV"
	yank i1 in_ns ip link del i1 || bad=1
	yank n0 in_ns ip link set n0 netns "$HM" || bad=1
	ip -n "$HM" link set n0 netns "$NS" || bad=1
	in_ns ip link set i0 netns "$HM" || bad=1
	present i0 || { echo "round $round: i0 left the datapath in $HM"; bad=1; }
	ip -n "$HM" link set i0 netns "$NS" || bad=1
	in_ns ip link set i0 up || bad=1
	present i0 || { echo "round $round: i0 left the datapath at home"; bad=1; }
	veth_add v0 "$HV" || bad=1
	dpctl add-if dp0 "v0,port_no=$P_v0" || bad=1
	in_ns ip link set n0 up || bad=1
	dpctl add-if dp0 "n0,port_no=$P_n0" || bad=1
	dpctl add-if dp0 "i1,type=internal,port_no=$P_i1" || bad=1
	in_ns ip link set i1 up || bad=1
	gen_start "$HV" $((RATE / 10))
	show >/dev/null || { echo "round $round: ovs-dpctl show failed"; bad=1; }
	rx1=$(stat_of "$HB" rx_packets)
	by1=$(stat_of "$HB" rx_bytes)
	tx1=$(stat_of "$HA" tx_packets)
	if [ "$rx1" -le "$rx0" ]; then
		echo "round $round: hB received nothing"
		bad=1
	fi
	if [ "$round" -gt 0 ]; then
		RX=$((RX + rx1 - rx0))
		BYTES=$((BYTES + by1 - by0))
		TX=$((TX + tx1 - tx0))
	fi
	return $bad
}

echo "port-yank: $(nproc) CPUs, $(date -u '+%F %H:%M UTC'), $BUILD, $R rounds after $WARMUP of warm-up, hA at $RATE frames/s"
tapdp_ns_up
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1
check "the daemon starts" tapdpd_start
DPID=$(cat "$PIDF")
KPID=$(awk '{ print $1 }' "/proc/$DPID/task/$DPID/children")
dpctl add-dp dp0 2>/dev/null
host_add "$HA" a0
host_add "$HB" b0
host_add "$HV" v0
host_add "$HN" n0
ip netns add "$HM"
P_a0=1 P_b0=2 P_v0=3 P_n0=4 P_i0=5 P_i1=6
for p in a0 b0 v0 n0; do dpctl add-if dp0 "$p,port_no=$(eval echo \$P_$p)"; done
for p in i0 i1; do
	dpctl add-if dp0 "$p,type=internal,port_no=$(eval echo \$P_$p)"
	in_ns ip link set "$p" up
done
IP="eth(),eth_type(0x0800),ipv4()"
add_flows() {
	dpctl add-flow dp0 "in_port($P_a0),$IP" "$P_b0,$P_v0,$P_n0,$P_i0,$P_i1" &&
		dpctl add-flow dp0 "in_port($P_v0),$IP" "$P_i0"
}
check "flows: a0 to every other port, v0 to i0" add_flows
ports >"$T/ports0"
check "six ports" test "$(wc -l <"$T/ports0")" -eq 7
gen_start "$HA" "$RATE"
gen_start "$HV" $((RATE / 10))
check "hB receives hA's frames" wait_until 5 rx_beyond 100
FD0=$(fds "$DPID")
KFD0=$(fds "$KPID")

RX=0 BYTES=0 TX=0 FAILED=0
round=0
for ((w = 1; w <= WARMUP; w++)); do yank_round >"$T/round" 2>&1 || cat "$T/round"; done
rm -f "$T"/notice.*
HEAP0=$(heap_kib "$DPID")
J0=$(journal_rss "$DPID")
t0=$(date +%s.%N)
for ((round = 1; round <= R; round++)); do
	if ! yank_round >"$T/round" 2>&1; then
		FAILED=$((FAILED + 1))
		sed 's/^/    /' "$T/round"
	fi
done
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
check "every round: ports detached, i0 kept, hB received, the daemon answered ($((R - FAILED)) of $R)" \
	test "$FAILED" -eq 0
check "the daemon is alive and answers" show
check "the ports are the baseline's" diff "$T/ports0" <(ports)
check "hB still receives" wait_until 5 rx_beyond "$(stat_of "$HB" rx_packets)"
gen_stop "$HA"
gen_stop "$HV"
check "the daemon's descriptors are the baseline's ($FD0)" \
	wait_until 10 fds_are "$DPID" "$FD0"
check "the keeper's descriptors are the baseline's ($KFD0)" \
	wait_until 10 fds_are "$KPID" "$KFD0"
HEAP1=$(heap_kib "$DPID")
J1=$(journal_rss "$DPID")
growth=$(growth_pct "$HEAP0" "$HEAP1")
check_mem_growth "resident memory less the journal within 1% of after the warm-up ($HEAP0 -> $HEAP1 KiB: $growth%)" \
	"$HEAP0" "$HEAP1"
stats() { # file: min, median, max
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (NR) printf "%d, %d, %d", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
echo
echo "| figure | value |"
echo "|---|---:|"
echo "| rounds (each: v0 and i1 deleted, n0 and i0 moved and back, v0, n0, i1 added again) | $R in $secs s, after $WARMUP of warm-up |"
echo "| hA's frames sent during the rounds | $TX |"
echo "| delivered to hB during the rounds | $RX frames, $BYTES bytes ($(awk -v a="$RX" -v b="$TX" 'BEGIN { if (b) printf "%.1f", a * 100 / b }')%) |"
for p in v0 i1 n0; do
	echo "| deletion or move of $p to the daemon's detach, ms (min, median, max) | $(stats "$T/notice.$p") |"
done
echo "| daemon's descriptors (baseline, after) | $FD0, $(fds "$DPID") |"
echo "| keeper's descriptors (baseline, after) | $KFD0, $(fds "$KPID") |"
echo "| resident memory (RssAnon + RssShmem) less the journal, after warm-up, after (KiB) | $HEAP0, $HEAP1 ($growth%) |"
echo "| the journal's resident pages (KiB) | $J0, $J1 |"
# Its exit, where the sanitizers' leak check runs, before the count.
check "the daemon stops" tapdpd_stop
finish
