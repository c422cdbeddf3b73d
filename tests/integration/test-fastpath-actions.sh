#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The fast path's actions beyond outputs (datapath/fastpath-actions.h),
# with real traffic whose receivers check every checksum (transmit
# checksum offload off at both ends): VLAN tags pushed onto frames and
# popped across a trunk of two of the datapath's own ports, both ways;
# addresses and ports rewritten as a NAT does (Ethernet, IPv4 with TCP and
# ICMP, IPv6 with ICMPv6), a TCP transfer through it; drops of a flow
# with no output, counted by the datapath and the port, and left to the
# daemon while someone listens for drops. Each is checked to have crossed
# in the kernel (the fast path's hits) and counted by its megaflow.
. "$(dirname "$0")/../lib.sh"

A=tapdpaa$$
B=tapdpab$$
cleanup_hosts() { ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; tapdp_cleanup; }
trap cleanup_hosts EXIT

tapdp_ns_up
host_add $A va 10.9.0.1/24
host_add $B vb 10.9.0.2/24
in_ns sysctl -qw net.ipv6.conf.default.disable_ipv6=1
in_ns ip link add t1 type veth peer name t2
in_ns ip link set t1 up
in_ns ip link set t2 up
MAC_A=$(ip netns exec $A cat /sys/class/net/eth0/address)
MAC_B=$(ip netns exec $B cat /sys/class/net/eth0/address)
for n in $A $B; do
	# Checksums made in software, so that the receivers check them.
	ip netns exec $n ethtool -K eth0 tx off >/dev/null 2>&1
done
ip netns exec $A ip neigh replace 10.9.0.2 lladdr "$MAC_B" dev eth0 nud permanent
ip netns exec $B ip neigh replace 10.9.0.1 lladdr "$MAC_A" dev eth0 nud permanent

ctl() { in_ns "$BUILD/tapdpctl" --socket "$SOCK" "$@"; }
# The packets of the one flow whose match has the text given.
flow_packets() {
	dpctl dump-flows dp0 | grep -F "$1" | sed -n 's/.*packets:\([0-9]*\).*/\1/p'
}
# A drop count of tapdpctl drops: datapath or port ("-" for the
# datapath's own), reason.
drops_of() {
	ctl drops | awk -v p="$1" -v r="$2" \
		'$1 == "dp0" && $3 == p && $5 == r { n = $6 } END { print n + 0 }'
}

check "daemon starts" tapdpd_start --fast-path bpf
check "add-dp" dpctl add-dp dp0
for p in va vb t1 t2; do
	check "add-if $p" dpctl add-if dp0 $p
done
# Which ports the fast path serves: a tunnel port (ovs-dpctl makes
# vxlan_sys_4789, a device of tapdp's) stays on the daemon's path.
check "add a vxlan port" dpctl add-if dp0 vxp,type=vxlan,remote_ip=flow
check_out "status: va is served by the fast path" \
	"^  port 1: va \(netdev\) .*, fast path$" ctl status
check_out "status: so is the local port" \
	"^  port 0: dp0 \(internal\) .*, fast path$" ctl status
check_out "status: the vxlan port is not" \
	"^  port 5: vxlan_sys_4789 \(netdev\) .*, rings only$" ctl status
check_out "status --json says the same" "^true false$" eval \
	'ctl --json status | /usr/bin/python3 -c "import json, sys
ports = {p[\"name\"]: p for p in json.load(sys.stdin)[\"datapaths\"][0][\"ports\"]}
print(str(ports[\"va\"][\"fast_path\"]).lower(), str(ports[\"vxlan_sys_4789\"][\"fast_path\"]).lower())"'

# VLAN: A's frames get tag 10 and go out of t1, come back in by t2 tagged,
# lose the tag there and go to B; B's answers the other way. Each step a
# megaflow of the fast path, the tagged ones matched on their tag as the
# kernel's always are.
IP="eth_type(0x0800),ipv4()"
TAG="eth_type(0x8100),vlan(vid=10,pcp=0),encap(eth_type(0x0800),ipv4())"
check "VLAN flows" eval '
	dpctl add-flow dp0 "in_port(1),eth(),$IP" "push_vlan(vid=10,pcp=0),3" &&
	dpctl add-flow dp0 "in_port(4),eth(),$TAG" "pop_vlan,2" &&
	dpctl add-flow dp0 "in_port(2),eth(),$IP" "push_vlan(vid=10,pcp=0),4" &&
	dpctl add-flow dp0 "in_port(3),eth(),$TAG" "pop_vlan,1"'
check_out "each has its entry" "^4$" fp_entries
capture 10 "$NS" "$T/t2.txt" -e -i t2 -c 4
h1=$(fp_hits)
check "ping A to B over the tagged trunk" \
	in_ns_of $A ping -c 20 -i 0.02 -W 1 10.9.0.2
check "each echo crossed four megaflows in the kernel ($(($(fp_hits) - h1)) hits)" \
	test $(($(fp_hits) - h1)) -ge 80
check "the trunk carried tag 10" \
	wait_until 5 grep -q "vlan 10, p 0, ethertype IPv4" "$T/t2.txt"
check_out "the pop flow counted the echoes" "^20$" \
	flow_packets "in_port(4),eth(),eth_type(0x8100),vlan(vid=10"
check "del-flows" dpctl del-flows dp0

# NAT: A reaches B as 10.9.0.99 (at a MAC no one has), B answers from
# its own address; addresses, MACs and TCP ports rewritten each way.
ip netns exec $A ip neigh replace 10.9.0.99 lladdr 02:00:00:00:00:99 dev eth0 nud permanent
ONES=ff:ff:ff:ff:ff:ff
TO99="eth_type(0x0800),ipv4(dst=10.9.0.99,proto=1,frag=no),icmp()"
FROM2="eth_type(0x0800),ipv4(src=10.9.0.2,proto=1,frag=no),icmp()"
TCP99="eth_type(0x0800),ipv4(dst=10.9.0.99,proto=6,frag=no),tcp(dst=8080),tcp_flags(0/0)"
TCP2="eth_type(0x0800),ipv4(src=10.9.0.2,proto=6,frag=no),tcp(src=80),tcp_flags(0/0)"
check "NAT flows" eval '
	dpctl add-flow dp0 "in_port(1),eth(),$TO99" \
		"set(eth(dst=$MAC_B/$ONES)),set(ipv4(dst=10.9.0.2/255.255.255.255)),2" &&
	dpctl add-flow dp0 "in_port(2),eth(),$FROM2" \
		"set(ipv4(src=10.9.0.99/255.255.255.255)),1" &&
	dpctl add-flow dp0 "in_port(1),eth(),$TCP99" \
		"set(eth(dst=$MAC_B/$ONES)),set(ipv4(dst=10.9.0.2/255.255.255.255)),set(tcp(dst=80/0xffff)),2" &&
	dpctl add-flow dp0 "in_port(2),eth(),$TCP2" \
		"set(ipv4(src=10.9.0.99/255.255.255.255)),set(tcp(src=8080/0xffff)),1"'
check_out "each has its entry" "^4$" fp_entries
h1=$(fp_hits)
check "ping 10.9.0.99 (B, rewritten)" in_ns_of $A ping -c 10 -i 0.02 -W 1 10.9.0.99
check "the echoes crossed in the kernel ($(($(fp_hits) - h1)) hits)" \
	test $(($(fp_hits) - h1)) -ge 20
head -c 2000000 /dev/urandom >"$T/blob"
ip netns exec $B /usr/bin/python3 -c 'import socket, sys
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("0.0.0.0", 80))
l.listen(1)
l.settimeout(20)
c, _ = l.accept()
c.settimeout(20)
with open(sys.argv[1], "wb") as f:
    while True:
        d = c.recv(65536)
        if not d:
            break
        f.write(d)' "$T/got" &
RCV=$!
wait_until 5 listens $B tcp 80
h1=$(fp_hits)
check "2 MB by TCP to 10.9.0.99:8080 (B's port 80)" \
	in_ns_of $A /usr/bin/python3 -c 'import socket, sys
s = socket.create_connection(("10.9.0.99", 8080), timeout=20)
s.sendall(open(sys.argv[1], "rb").read())
s.shutdown(socket.SHUT_WR)
s.recv(1)' "$T/blob"
wait $RCV
check "they arrived whole" cmp "$T/blob" "$T/got"
check "the connection crossed in the kernel ($(($(fp_hits) - h1)) hits)" \
	test $(($(fp_hits) - h1)) -ge 1000
check_out "B counted no checksum error (TCP, IPv4 header)" "^0 0$" ip netns exec $B awk \
	'/^Tcp: [0-9]/ { t = $16 } /^Ip: [0-9]/ { i = $5 } END { print t, i }' \
	/proc/net/snmp
check "del-flows" dpctl del-flows dp0

# IPv6: fd09::99 is B, its ICMPv6 checksums (over the addresses) made again.
for n in $A $B; do
	ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=0
	ip netns exec $n sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0
done
ip netns exec $A ip addr add fd09::1/64 dev eth0 nodad
ip netns exec $B ip addr add fd09::2/64 dev eth0 nodad
ip netns exec $A ip -6 neigh replace fd09::99 lladdr "$MAC_B" dev eth0 nud permanent
ip netns exec $B ip -6 neigh replace fd09::1 lladdr "$MAC_A" dev eth0 nud permanent
check "IPv6 NAT flows" eval '
	dpctl add-flow dp0 "in_port(1),eth(),eth_type(0x86dd),ipv6(dst=fd09::99,proto=58,frag=no),icmpv6()" \
		"set(ipv6(dst=fd09::2/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff)),2" &&
	dpctl add-flow dp0 "in_port(2),eth(),eth_type(0x86dd),ipv6(src=fd09::2,proto=58,frag=no),icmpv6()" \
		"set(ipv6(src=fd09::99/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,hlimit=7/0xff)),1"'
h1=$(fp_hits)
check_out "ping6 fd09::99 (B, rewritten; hop limit 7 on the way back)" "ttl=7" \
	in_ns_of $A ping -6 -c 10 -i 0.02 -W 1 fd09::99
check "the echoes crossed in the kernel ($(($(fp_hits) - h1)) hits)" \
	test $(($(fp_hits) - h1)) -ge 20
check_out "B counted no ICMPv6 checksum error" "^0$" ip netns exec $B awk \
	'$1 == "Icmp6InCsumErrors" { print $2 }' /proc/net/snmp6
check "del-flows" dpctl del-flows dp0

# Drops: a flow without outputs drops in the kernel, each drop counted
# for the datapath and the port it came in by, as the daemon counts them.
DROP="in_port(1),eth(),eth_type(0x0800),ipv4(proto=17,frag=no),udp(dst=9)"
# (An empty list: ovs-dpctl's "drop" is an action of OVS's own.)
check "a drop flow" dpctl add-flow dp0 "$DROP" ""
check_out "it has its entry" "^1$" fp_entries
send_udp() { # count
	in_ns_of $A /usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    s.sendto(b"x" * 32, ("10.9.0.2", 9))' "$1"
}
d1=$(drops_of - OVS_DROP_LAST_ACTION)
p1=$(drops_of va OVS_DROP_LAST_ACTION)
h1=$(fp_hits)
send_udp 1000
check "the flow counts 1000 datagrams" \
	wait_until 5 eval '[ "$(flow_packets "udp(dst=9)")" = 1000 ]'
check_out "all dropped in the kernel" "^1000$" echo $(($(fp_hits) - h1))
check_out "the datapath counts 1000 OVS_DROP_LAST_ACTION" "^1000$" \
	echo $(($(drops_of - OVS_DROP_LAST_ACTION) - d1))
check_out "and port va as many" "^1000$" \
	echo $(($(drops_of va OVS_DROP_LAST_ACTION) - p1))
# A listener for drops is told of each, by the daemon. (No IPv6 now: no
# other frame to drop.)
for n in $A $B; do
	ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done
drops_told() {
	in_ns bpftool -j map dump name fp_conf 2>/dev/null |
		/usr/bin/python3 -c 'import json,sys
print(json.load(sys.stdin)[0]["formatted"]["value"]["drops_told"])'
}
ctl drops --follow --timeout 3 >"$T/follow" 2>&1 &
FOL=$!
check "the programs leave drops to the daemon while a listener is there" \
	wait_until 5 eval '[ "$(drops_told)" = 1 ]'
h1=$(fp_hits)
send_udp 5
check "the listener ends, 3 s after the last drop" wait_until 10 dead "$FOL"
check_out "it was told of the 5 drops" "^5$" \
	eval 'grep -c OVS_DROP_LAST_ACTION "$T/follow"'
check_out "none dropped in the kernel meanwhile" "^0$" echo $(($(fp_hits) - h1))
check_out "the flow counts them too" "^1005$" flow_packets "udp(dst=9)"
check "the programs drop again once it left" \
	wait_until 5 eval '[ "$(drops_told)" = 0 ]'
h1=$(fp_hits)
send_udp 5
check_out "5 more dropped in the kernel" "^5$" echo $(($(fp_hits) - h1))
finish
