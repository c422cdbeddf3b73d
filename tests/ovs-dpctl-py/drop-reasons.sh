#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Drop reasons through tapdp_drop (include/tapdp/drop-uapi.h): the traffic
# and flows of the 6.12 selftest's test_drop_reason (which needs perf on the
# kernel's skb:kfree_skb tracepoint), then further reasons, each checked in
# the counters (per datapath and per port) and in the event stream, as
# tapdpctl drops reads them.
. "$(dirname "$0")/../lib.sh"
CLIENT=dc$$
SERVER=ds$$
HOSTS="$CLIENT $SERVER"
trap ovs_cleanup EXIT

drops() {
	in_ns "$BUILD/tapdpctl" drops "$@"
}
# count DP PORT|- REASON: the packets the counters give (0: none listed).
count() {
	drops | awk -v dp="$1" -v port="$2" -v r="$3" \
		'$1 == dp && $2 == port && $4 == r { n = $6 } END { print n + 0 }'
}
# events REASON PORT: the events of the follower with that reason and port.
events() {
	grep -c "\"port\":$2,\"reason\":$(($1))," "$T/events"
}
# flow_packets RE: the packets of the flow whose dump line matches RE.
flow_packets() {
	pyctl dump-flows dropreason | grep -E -- "$1" |
		sed -nE 's/.*packets:([0-9]+).*/\1/p'
}
# udp SPORT DPORT SIZE [TTL]: one datagram from the client to the server.
udp() {
	ip netns exec "$CLIENT" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("", int(sys.argv[1])))
if len(sys.argv) > 4:
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, int(sys.argv[4]))
s.sendto(b"x" * int(sys.argv[3]), ("172.31.110.20", int(sys.argv[2])))' "$@"
}
IP_CLIENT="eth(),eth_type(0x0800),ipv4(src=172.31.110.10,proto=17)"

check "ovs-dpctl.py extracted from linux-source-6.12" test -f "$SELFTEST/ovs-dpctl.py"
tapdp_ns_up
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1
in_ns sysctl -qw net.ipv6.conf.default.disable_ipv6=1
check "daemon starts" tapdpd_start
check_out "add-dp dropreason" "added" pyctl add-dp dropreason
host_add "$CLIENT" c0 172.31.110.10/24
host_add "$SERVER" s0 172.31.110.20/24
check "add-if c0 (port 1)" pyctl add-if dropreason c0
check "add-if s0 (port 2)" pyctl add-if dropreason s0
check_absent "no drops yet" "." drops

# The follower joins the events group before any traffic.
in_ns "$BUILD/tapdpctl" --json drops --follow --timeout 60 \
	>"$T/events" 2>"$T/follow.err" &
FOLLOWER=$!
check "the follower joins the events group" \
	wait_until 10 grep -q "following" "$T/follow.err"

# test_drop_reason, flow for flow.
check "a drop(10) flow is accepted (drop reasons supported)" \
	pyctl add-flow dropreason 'in_port(1),eth(),eth_type(0x0806),arp()' 'drop(10)'
check "del-flows" pyctl del-flows dropreason
pyctl add-flow dropreason 'in_port(1),eth(),eth_type(0x0806),arp()' '2'
pyctl add-flow dropreason 'in_port(2),eth(),eth_type(0x0806),arp()' '1'
pyctl add-flow dropreason \
	"in_port(1),eth(),eth_type(0x0800),ipv4(src=172.31.110.10,proto=1),icmp()" '2'
pyctl add-flow dropreason \
	"in_port(2),eth(),eth_type(0x0800),ipv4(src=172.31.110.20,proto=1),icmp()" 'drop'
check_out "the return path's flow has no actions" \
	"src=172.31.110.20.*actions:drop" pyctl dump-flows dropreason
check "ping -c 2 (replies dropped)" unanswered "$CLIENT" -c 2 -W 1 172.31.110.20
check_out "2 x 0x30001 (OVS_DROP_LAST_ACTION) on the datapath" "^2$" \
	count dropreason - 0x30001
check_out "... on port 2, where the replies came in" "^2$" \
	count dropreason 2 0x30001
check_out "... none on port 1" "^0$" count dropreason 1 0x30001
check_out "the name is the kernel's" "0x30001 OVS_DROP_LAST_ACTION 2$" drops

pyctl add-flow dropreason "in_port(1),$IP_CLIENT,udp(dst=6000)" 'drop(42)'
pyctl add-flow dropreason "in_port(1),$IP_CLIENT,udp(dst=7000)" 'drop(0)'
# The selftest counts one drop per nc; Debian's nc -z writes its probe
# several times, and each datagram is a drop (the kernel's too): as many as
# the flow's packets, at least one.
ip netns exec "$CLIENT" nc -i 1 -zuv 172.31.110.20 6000 >/dev/null 2>&1
N6000=$(flow_packets 'dst=6000')
check "nc sent to UDP 6000 ($N6000 datagrams)" test "$N6000" -ge 1
check_out "as many 0x30004 (OVS_DROP_EXPLICIT_WITH_ERROR)" "^$N6000$" \
	count dropreason 1 0x30004
ip netns exec "$CLIENT" nc -i 1 -zuv 172.31.110.20 7000 >/dev/null 2>&1
N7000=$(flow_packets 'dst=7000')
check "nc sent to UDP 7000 ($N7000 datagrams)" test "$N7000" -ge 1
check_out "as many 0x30003 (OVS_DROP_EXPLICIT)" "^$N7000$" \
	count dropreason 1 0x30003
check_out "the datapath's own counts agree" "^$N7000$" \
	count dropreason - 0x30003
udp 40100 7000 10
check_out "one datagram more, one drop more" "^$((N7000 + 1))$" \
	count dropreason 1 0x30003

check "the events: 2 x 0x30001 from port 2" \
	wait_until 10 test "$(events 0x30001 2)" -eq 2
check "$N6000 x 0x30004 from port 1" \
	wait_until 10 test "$(events 0x30004 1)" -eq "$N6000"
check "$((N7000 + 1)) x 0x30003 from port 1" \
	wait_until 10 test "$(events 0x30003 1)" -eq "$((N7000 + 1))"
DPIDX=$(in_ns cat /sys/class/net/dropreason/ifindex)
check_out "an event names the datapath by its ifindex" \
	"\"dp_ifindex\":$DPIDX,\"port\":2,\"reason\":196609" cat "$T/events"
check_out "... the flow by its UFID" \
	"\"reason\":196609,\"name\":\"OVS_DROP_LAST_ACTION\",\"ufid\":\"[0-9a-f]{32}\"" \
	cat "$T/events"
# An echo reply from 172.31.110.20 (ac1f6e14) to .10, 98 bytes long.
check_out "... and carries the packet" \
	"\"len\":98,\"packet\":\"[0-9a-f]{52}ac1f6e14ac1f6e0a00" cat "$T/events"

# No flow, no upcall pid (ovs-dpctl.py's sockets are gone): the kernel's
# failed upcall, NOT_SPECIFIED, counted on the port it came in by.
udp 40000 8000 10
udp 40001 8000 10
check_out "a miss whose upcall fails: 2 x NOT_SPECIFIED (2) on port 1" \
	"^2$" count dropreason 1 0x2
check "... with no UFID in the events" wait_until 10 \
	grep -q '"port":1,"reason":2,"name":"NOT_SPECIFIED","ufid":""' \
	"$T/events"

# Over the output port's MTU: ovs_vport_send's drop, NOT_SPECIFIED.
pyctl add-flow dropreason "in_port(1),$IP_CLIENT,udp(dst=9000)" '2'
in_ns ip link set s0 mtu 1000
udp 40002 9000 1400
check_out "over the MTU: one more NOT_SPECIFIED on port 1" "^3$" \
	count dropreason 1 0x2
in_ns ip link set s0 mtu 1500

# A datagram conntrack reassembled, out of a port whose MTU is below the
# largest fragment that came in: the kernel's PKT_TOO_BIG (do_output). Its
# fragments are told from the other tests' packets by their TTL.
pyctl add-flow dropreason \
	"recirc_id(0),in_port(1),eth(),eth_type(0x0800),ipv4(src=172.31.110.10,proto=17,ttl=33),udp()" \
	'ct(zone=9),recirc(3)'
pyctl add-flow dropreason "recirc_id(3),in_port(1),$IP_CLIENT,udp(dst=5005)" '2'
in_ns ip link set s0 mtu 1000
udp 40003 5005 2500 33
check_out "reassembled, MRU 1500 over s0's MTU 1000: 1 x PKT_TOO_BIG (80)" \
	"^1$" count dropreason 1 0x50
check_out "... the fragments held for it were no drops" "^3$" \
	count dropreason 1 0x2
in_ns ip link set s0 mtu 1500

# A commit past the zone's connection limit: OVS_DROP_CONNTRACK.
check "ct-set-limits zone=5,limit=1" \
	in_ns "$BUILD/tapdp-run" -- ovs-dpctl ct-set-limits zone=5,limit=1
pyctl add-flow dropreason "in_port(1),$IP_CLIENT,udp(dst=5000)" \
	'ct(commit,zone=5),2'
udp 41000 5000 10
udp 41001 5000 10
check_out "the second connection past the limit: 1 x 0x3000a (OVS_DROP_CONNTRACK)" \
	"^1$" count dropreason 1 0x3000a

# A recirculation loop, as the kernel runs it: three recirculations at
# once, the fourth deferred, each deferred one three more and one more
# deferred, until the queue of 9 is full: the packet and 30
# recirculations through the loop, then OVS_DROP_DEFERRED_LIMIT (not the
# recursion limit). (ovs-dpctl.py's first flow leaves recirc_id
# wildcarded, so it matches the recirculated packet too and the second,
# overlapping it, is refused, as the kernel refuses it: the loop is the
# first flow alone.)
pyctl add-flow dropreason "in_port(1),$IP_CLIENT,udp(dst=5002)" 'recirc(7)'
pyctl add-flow dropreason "recirc_id(7),in_port(1),$IP_CLIENT,udp(dst=5002)" \
	'recirc(7)'
udp 41002 5002 10
check_out "a recirculation loop: 1 x 0x30007 (OVS_DROP_DEFERRED_LIMIT)" \
	"^1$" count dropreason 1 0x30007
check_out "... none for the recursion limit" "^0$" count dropreason 1 0x30006
check_out "... 31 passes through the loop's flow" "^31$" \
	flow_packets 'udp\(dst=5002/'

# An execute the kernel refuses once it has built the packet (an action
# it does not know): NOT_SPECIFIED, on the key's input port.
N=$(count dropreason 1 0x2)
check_out "an execute with a bad action: EINVAL" "EINVAL" \
	in_ns "$BUILD/tapdp-run" -- "$BUILD/nl-client" malformed \
	execute-bad-actions dropreason
check_out "... its packet dropped: NOT_SPECIFIED (2) on port 1" \
	"^$((N + 1))$" count dropreason 1 0x2

# (dec_ttl: neither ovs-dpctl.py nor ovs-dpctl writes it; OVS_DROP_IP_TTL
# is checked in tests/unit/test-drop.c.)

check_out "port 2 saw none of the client's drops" "^0$" \
	count dropreason 2 0x30003

# Without CAP_NET_ADMIN the counts are readable, the events (packets) not.
nocap() {
	in_ns setpriv --inh-caps=-all --bounding-set=-net_admin -- \
		"$BUILD/tapdpctl" drops "$@"
}
check_out "without CAP_NET_ADMIN: the counts" "0x30001 OVS_DROP_LAST_ACTION [0-9]+$" \
	nocap
check_out "... but not the events" "joining tapdp_drop events: Operation not permitted" \
	nocap --follow --timeout 1
kill "$FOLLOWER" 2>/dev/null
finish
