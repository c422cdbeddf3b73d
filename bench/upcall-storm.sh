#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# An upcall storm at 10 times what the handler reads: the upcalls it cannot
# take are lost and counted, none unaccounted for, and a fresh frame sent
# as the storm ends has its upcall read within 1 s (behind what the
# handler's socket holds then); the daemon's memory comes back.
#
# A datapath with one internal port and no flow; its one upcall handler
# (bench/tools/dpclient.c upcall-listen, every CPU's upcalls to its socket,
# as ovs-vswitchd's handlers take them) reads at most RATE upcalls a second:
# that is the handler's capacity. build/udpgen offers 10 x RATE frames a
# second into the port for SECONDS. Printed: the frames sent, those the
# datapath missed on (each an upcall), received, lost (the datapath's
# n_lost), the frames the port's device dropped before the datapath read
# them, the handler's read rate during the storm, the time from that fresh
# frame to its upcall read, and the daemon's resident
# memory (RssAnon + RssShmem: not the code it pages in).
# Every frame sent is accounted for: it made an upcall (the datapath's
# missed) or the port's device dropped it, its queue full (tx_dropped: the
# daemon's packet thread did not read it in time); every upcall was read
# or counted lost (n_lost: the handler's socket full). A lost upcall is no
# drop, as in the kernel (the frame was consumed): the drop counters have
# no part in it.
#
#   bash bench/upcall-storm.sh [SECONDS]   (default 3; as root)
#   UPCALL_STORM_RATE=R                    the handler's upcalls per second
#                                          (default 2000)
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all build/dpclient build/udpgen || exit 1
. tests/lib.sh
SECS=${1:-3}
RATE=${UPCALL_STORM_RATE:-2000}
OFFERED=$((10 * RATE))
MARK=10.99.0.9
trap tapdp_cleanup EXIT

field() { # missed | lost | hit: the datapath's counter
	dpctl show dp0 | awk -v f="$1" '
		/lookups:/ { for (i = 2; i <= NF; i++) {
			split($i, kv, ":"); v[kv[1]] = kv[2] } }
		END { print v[f] + 0 }'
}
dev_dropped() { in_ns cat /sys/class/net/p1/statistics/tx_dropped; }
counts() { grep -c '^received' "$T/listen"; }
counts_beyond() { [ "$(counts)" -gt "$1" ]; }
# The handler's count: asked for with SIGUSR1, the line it prints then.
received() {
	local n
	n=$(counts)
	kill -USR1 "$LPID"
	wait_until 5 counts_beyond "$n" &&
		grep '^received' "$T/listen" | tail -1 | awk '{ print $2 }'
}
accounted() { [ "$(received)" -eq $(($(field missed) - $(field lost))) ]; }
# Frames from SRC into p1: send SRC [udpgen's options].
send() {
	local src=$1
	shift
	in_ns "$BUILD/udpgen" "$@" p1 02:00:00:00:00:02 "$src" 10.99.0.2 0
}

tapdp_ns_up
# No frame of the stack's own (IPv6's solicitations) into the port.
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1
tapdpd_start || exit 1
DPID=$(cat "$PIDF")
dpctl add-dp dp0 2>/dev/null || exit 1
dpctl add-if dp0 p1,type=internal
in_ns ip link set p1 up
# No shell function between: $! is the handler.
ip netns exec "$NS" "$BUILD/tapdp-run" -- "$BUILD/dpclient" upcall-listen \
	dp0 "$RATE" "$MARK" >"$T/listen" 2>&1 &
LPID=$!
wait_until 10 grep -q '^ready' "$T/listen" || {
	cat "$T/listen"
	exit 1
}
RSS_START=$(mem_kib "$DPID")
# A warm-up storm as long, then a fresh frame: the port's, the packet
# threads' and the handler's buffers made, and malloc's arenas grown to
# what a storm takes, which the baseline's memory includes.
send 10.99.0.1 -c -r "$OFFERED" -n $((OFFERED * SECS)) >/dev/null
wait_until 30 accounted
send 10.99.0.8 >/dev/null
wait_until 30 accounted
RSS0=$(mem_kib "$DPID")
missed0=$(field missed)
lost0=$(field lost)
drop0=$(dev_dropped)
recv0=$(received)

echo "upcall-storm: $(nproc) CPUs, handler at $RATE upcalls/s, $OFFERED frames/s offered for $SECS s"
read -r sent secs < <(send 10.99.0.1 -c -r "$OFFERED" \
	-n $((OFFERED * SECS)))
# The storm stops: the handler's count then (asked for, read later), and a
# fresh frame at once, whose upcall waits behind what the handler's socket
# holds, read at the handler's rate.
n=$(counts)
kill -USR1 "$LPID"
t0=$(date +%s.%N)
send "$MARK" >/dev/null
check "a fresh frame's upcall arrives after the storm" \
	wait_until 5 grep -q '^mark' "$T/listen"
t1=$(awk '/^mark/ { print $2; exit }' "$T/listen")
latency=$(awk -v a="${t0}" -v b="${t1:-0}" 'BEGIN { printf "%.3f", b - a }')
check "within 1 s ($latency s)" \
	awk -v l="$latency" 'BEGIN { exit !(l >= 0 && l < 1) }'
wait_until 5 counts_beyond "$n"
recv_storm=$(($(grep '^received' "$T/listen" | sed -n "$((n + 1))p" |
	awk '{ print $2 }') - recv0))
check "every upcall the datapath made is received or lost" \
	wait_until 30 accounted
sent=$((sent + 1))
missed=$(($(field missed) - missed0))
lost=$(($(field lost) - lost0))
dropped=$(($(dev_dropped) - drop0))
recv=$(($(received) - recv0))
hit=$(field hit)
check "frames sent = upcalls made + dropped by the port's device ($sent = $missed + $dropped)" \
	test "$sent" -eq $((missed + dropped))
check "upcalls made = received + lost ($missed = $recv + $lost)" \
	test "$missed" -eq $((recv + lost))
check "the storm overran the handler: upcalls were lost ($lost)" \
	test "$lost" -gt 0
check "no flow was hit ($hit)" test "$hit" -eq 0
RSS1=$(mem_kib "$DPID")
growth=$(growth_pct "$RSS0" "$RSS1")
check_mem_growth "resident memory back within 1% of before the storm, after the warm-up ($RSS0 -> $RSS1 KiB: $growth%)" \
	"$RSS0" "$RSS1"
check "the daemon answers" dpctl show dp0
kill -TERM "$LPID"
wait "$LPID"
overruns=$(grep '^received' "$T/listen" | tail -1 | awk '{ print $4 }')
echo
echo "| figure | value |"
echo "|---|---:|"
echo "| frames sent (offered rate) | $((sent - 1)) in $secs s ($(awk -v n="$sent" -v s="$secs" 'BEGIN { printf "%.0f", (n - 1) / s }')/s), and the fresh frame |"
echo "| dropped by the port's device before the datapath | $dropped |"
echo "| upcalls made (datapath missed) | $missed |"
echo "| received by the handler | $recv (during the storm: $recv_storm, $(awk -v n="$recv_storm" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')/s) |"
echo "| lost (datapath n_lost) | $lost |"
echo "| handler reads that found its socket overrun | $overruns |"
echo "| fresh frame, sent as the storm stops, to its upcall read | $latency s |"
echo "| resident memory (RssAnon + RssShmem) at start, after a warm-up storm, after the storm (KiB) | $RSS_START, $RSS0, $RSS1 ($growth%) |"
# Its exit, where the sanitizers' leak check runs, before the count.
check "the daemon stops" tapdpd_stop
finish
