#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The BPF fast path (tapdpd --fast-path bpf, datapath/fastpath.h): frames of
# megaflows that only output cross in the kernel, counted to the frame in
# the flows', the datapath's and the internal port's counters; no frame
# arrives twice; a flow deleted under a flood is not hit after its
# answer; a port deleted, an MTU lowered and a flow's new actions empty
# the table; IPv4, IPv6 and ARP, netdev ports and an internal port; and
# --fast-path none leaves the devices as they were.
. "$(dirname "$0")/../lib.sh"

A=tapdpfa$$
B=tapdpfb$$
cleanup_hosts() { ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; tapdp_cleanup; }
trap cleanup_hosts EXIT

tapdp_ns_up
host_add $A va 10.8.0.1/24
host_add $B vb 10.8.0.2/24
in_ns sysctl -qw net.ipv6.conf.default.disable_ipv6=1
MAC_B=$(ip netns exec $B cat /sys/class/net/eth0/address)

ctl() { in_ns "$BUILD/tapdpctl" --socket "$SOCK" "$@"; }
# UDP datagrams B took (none listens: each counts as NoPorts).
rx_b() {
	ip netns exec $B awk '/^Udp: [0-9]/ { print $2 + $3 + $4 }' /proc/net/snmp
}
flow_packets() { # in_port eth_type
	dpctl dump-flows dp0 | grep -F "in_port($1),eth(),eth_type($2)," |
		sed -n 's/.*packets:\([0-9]*\).*/\1/p'
}
all_packets() {
	dpctl dump-flows dp0 | sed -n 's/.*packets:\([0-9]*\).*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}
dp_hits() { dpctl show dp0 | sed -n 's/.*lookups: hit:\([0-9]*\).*/\1/p'; }

check "daemon starts with --fast-path bpf" tapdpd_start --fast-path bpf
check_out "status: fast path bpf" "^fast path: bpf$" ctl status
check "add-dp" dpctl add-dp dp0
check "add-if va" dpctl add-if dp0 va
check "add-if vb" dpctl add-if dp0 vb
check_out "the log says the ports are served" "added port 2 vb \(netdev, fast path\)" \
	cat "$LOG"
check_out "tc ingress of va runs the fast path" "fp_netdev_in" \
	in_ns tc filter show dev va ingress

ARP1="in_port(1),eth(),eth_type(0x0806),arp()"
ARP2="in_port(2),eth(),eth_type(0x0806),arp()"
IP1="in_port(1),eth(),eth_type(0x0800),ipv4()"
IP2="in_port(2),eth(),eth_type(0x0800),ipv4()"
add_flows() {
	dpctl add-flow dp0 "$ARP1" 2 && dpctl add-flow dp0 "$ARP2" 1 &&
	dpctl add-flow dp0 "$IP1" 2 && dpctl add-flow dp0 "$IP2" 1
}
check "flows both ways" add_flows
check_out "each flow has its entry" "^4$" fp_entries
check "ping through the datapath" in_ns_of $A ping -c 5 -i 0.1 -W 1 10.8.0.2
check_out "dump-flows counts the pings" \
	"eth_type\(0x0800\), packets:5, bytes:490, used:[0-9.]+s, actions:2" \
	dpctl dump-flows dp0

# 20,000 frames, each of a connection of its own (new ports), of one
# megaflow: all cross in the kernel, each counted once by the flow and
# arriving once (B counts each pair of ports it sees, and those it sees
# again).
p1=$(flow_packets 1 0x0800)
a1=$(all_packets)
d1=$(dp_hits)
h1=$(fp_hits)
ready=$T/dupcount.ready
ip netns exec $B /usr/bin/python3 "$TOP/tests/integration/dupcount.py" \
	"$ready" >"$T/dupcount" &
DUP=$!
wait_until 5 test -e "$ready"
ip netns exec $A "$BUILD/udpgen" -c -r 40000 -n 20000 eth0 "$MAC_B" \
	10.8.0.1 10.8.0.2 0 >/dev/null
wait $DUP
check_out "20000 datagrams arrive, none twice" "^20000 0$" cat "$T/dupcount"
r1=$(rx_b)
check_out "the flow counts each frame once" "^$((p1 + 20000))$" flow_packets 1 0x0800
h2=$(fp_hits)
check "the fast path forwarded them ($((h2 - h1)) hits)" test $((h2 - h1)) -ge 20000
# (B answers some with ICMP, which the other flow counts.)
check_out "the datapath's hits are the flows' packets" "^$(($(all_packets) - a1))$" \
	echo $(($(dp_hits) - d1))

# A flow deleted under a flood: after del-flow answers, its frames miss.
ip netns exec $A "$BUILD/udpgen" -r 50000 -n 150000 eth0 "$MAC_B" \
	10.8.0.1 10.8.0.2 0 >/dev/null &
GEN=$!
wait_until 5 eval '[ "$(($(rx_b) - r1))" -ge 30000 ]'
check "del-flow under a flood" dpctl del-flow dp0 "$IP1"
r2=$(rx_b)
h3=$(fp_hits)
sleep 0.5
check_out "no datagram forwarded after the answer ($(($(rx_b) - r2)) arrived)" "^0$" \
	echo $(($(rx_b) - r2))
check_out "no fast path hit after the answer" "^0$" echo $(($(fp_hits) - h3))
wait $GEN
check_out "its entry is gone" "^3$" fp_entries

# A flow given new actions: its entries go with the old ones.
check "add-flow again" dpctl add-flow dp0 "$IP1" 2
check "ping again" in_ns_of $A ping -c 3 -i 0.1 -W 1 10.8.0.2
check "mod-flow back to the input port" dpctl mod-flow dp0 "$IP1" 1
check_out "the flow's new entry replaced the old" "^4$" fp_entries
check "no ping while the flow points back" unanswered $A -c 1 -W 1 10.8.0.2
check "mod-flow back" dpctl mod-flow dp0 "$IP1" 2

# An MTU lowered: the entries are made again with it; big frames are
# dropped as before, counted as the port's transmit errors.
check "ping before the MTU change" in_ns_of $A ping -c 2 -i 0.1 -s 1200 -W 1 10.8.0.2
check "MTU 1000 on vb" in_ns ip link set vb mtu 1000
tx_errors() { dpctl show -s dp0 | grep -A3 "port 2: vb" | sed -n 's/.*TX.*errors:\([0-9]*\).*/\1/p'; }
e1=$(tx_errors)
check "the daemon saw the MTU change" wait_until 5 eval \
	'! in_ns_of $A ping -c 1 -W 1 -s 1200 10.8.0.2'
check "a 1200-byte ping is dropped" unanswered $A -c 1 -W 1 -s 1200 10.8.0.2
check "... and counted as vb's transmit errors ($e1, $(tx_errors))" \
	test "$(tx_errors)" -gt "${e1:-0}"
check_out "the entries were made again" "^4$" fp_entries
check "a 500-byte ping passes" in_ns_of $A ping -c 2 -i 0.1 -s 500 -W 1 10.8.0.2
in_ns ip link set vb mtu 1500

# IPv6 both ways, and ARP, over the same ports.
for n in $A $B; do
	ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=0
	ip netns exec $n sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0
done
ip netns exec $A ip addr add fd08::1/64 dev eth0 nodad
ip netns exec $B ip addr add fd08::2/64 dev eth0 nodad
check "IPv6 flows" eval 'dpctl add-flow dp0 "in_port(1),eth(),eth_type(0x86dd),ipv6()" 2 &&
	dpctl add-flow dp0 "in_port(2),eth(),eth_type(0x86dd),ipv6()" 1'
h1=$(fp_hits)
check "ping6 through the datapath" in_ns_of $A ping -6 -c 20 -i 0.02 -W 1 fd08::2
check "IPv6 echoes crossed by the fast path ($(($(fp_hits) - h1)))" \
	test $(($(fp_hits) - h1)) -ge 30
check "arping (ARP through the fast path)" \
	in_ns_of $A arping -c 3 -w 3 -I eth0 10.8.0.2

# The local port (the TAP of an internal port) and a netdev port.
in_ns ip addr add 10.8.0.254/24 dev dp0
in_ns ip link set dp0 up
check "flows between the local port and va" eval '
	dpctl add-flow dp0 "in_port(0),eth(),eth_type(0x0800),ipv4()" 1 &&
	dpctl add-flow dp0 "in_port(0),eth(),eth_type(0x0806),arp()" 1 &&
	dpctl mod-flow dp0 "$IP1" 0,2 && dpctl mod-flow dp0 "$ARP1" 0,2'
check "ping from the host over the internal port" \
	in_ns ping -c 2 -i 0.1 -W 1 10.8.0.1
local_stats() { dpctl show -s dp0 | grep -A2 "port 0:" | tr '\n' ' '; }
rxtx() { local_stats | sed -n 's/.*RX packets:\([0-9]*\).*TX packets:\([0-9]*\).*/\1 \2/p'; }
read -r lr1 lt1 <<<"$(rxtx)"
h1=$(fp_hits)
check "100 pings from the host" in_ns ping -c 100 -i 0.005 -W 1 10.8.0.1
read -r lr2 lt2 <<<"$(rxtx)"
check "the fast path took the host's echoes and their replies ($(($(fp_hits) - h1)))" \
	test $(($(fp_hits) - h1)) -ge 190
check_out "the internal port counts 100 frames each way" "^100 100$" \
	echo $((lr2 - lr1)) $((lt2 - lt1))
check "a ping from A reaches the host and B (two outputs)" \
	in_ns_of $A ping -c 3 -i 0.1 -W 1 10.8.0.254

# A capture sees every frame: while it runs, none crosses in the kernel.
# Only the pings: no IPv6, no ARP in between.
MAC_A=$(ip netns exec $A cat /sys/class/net/eth0/address)
for n in $A $B; do
	ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done
ip netns exec $A ip neigh replace 10.8.0.2 lladdr "$MAC_B" dev eth0 nud permanent
ip netns exec $B ip neigh replace 10.8.0.1 lladdr "$MAC_A" dev eth0 nud permanent
ctl capture all -w "$T/cap.pcapng" --count 25 --timeout 10 \
	>"$T/cap.out" 2>"$T/cap.err" &
CAP=$!
check "a capture starts" wait_until 10 grep -q following "$T/cap.err"
check_out "status says a capture holds the fast path off" \
	"^fast path: bpf \(off while a capture runs\)$" ctl status
h1=$(fp_hits)
check "5 pings from A to B while it runs" \
	in_ns_of $A ping -c 5 -i 0.1 -W 1 10.8.0.2
check_out "none crossed in the kernel" "^0$" echo $(($(fp_hits) - h1))
check "the capture ends" wait_until 10 dead "$CAP"
# Each request in by port 1, out by ports 0 and 2; each reply in by 2,
# out by 1.
check_out "it saw each echo at each step" "^15 10$" eval 'tcpdump -nr "$T/cap.pcapng" 2>/dev/null |
	awk "/echo request/ { q++ } /echo reply/ { r++ } END { print q, r }"'
# (The daemon sees the capture's socket close a moment after it exits.)
check "status says bpf again" wait_until 5 eval \
	'ctl status | grep -q "^fast path: bpf$"'
h1=$(fp_hits)
check "pings once it ended" in_ns_of $A ping -c 5 -i 0.1 -W 1 10.8.0.2
check "the fast path took them again ($(($(fp_hits) - h1)))" \
	test $(($(fp_hits) - h1)) -ge 10

# A port deleted: the table empties, its device is left as found.
check "del-if vb" dpctl del-if dp0 vb
check_out "only the flows of the remaining ports keep entries" "^2$" fp_entries
check_absent "vb has no clsact qdisc left" "clsact" in_ns tc qdisc show dev vb
check "del-dp" dpctl del-dp dp0
check_absent "va has no clsact qdisc left" "clsact" in_ns tc qdisc show dev va

# Off: nothing is attached.
tapdpd_stop
check "daemon starts with --fast-path none" tapdpd_start --fast-path none
check_out "status: fast path none" "^fast path: none" ctl status
check "add-dp, add-if va" eval 'dpctl add-dp dp0 && dpctl add-if dp0 va'
check_absent "no filter on va" "fp_" in_ns tc filter show dev va ingress
finish
