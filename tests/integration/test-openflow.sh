#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ovs-vswitchd on tapdp with OpenFlow rules (ovs-ofctl): access and trunk
# VLAN ports, rules across tables with resubmit and goto_table, matches on
# IPv4 and TCP fields, set_field rewrites, learn, check_pkt_larger, MPLS
# push and pop, clone, 802.1ad (dot1q-tunnel), and truncated packet-ins
# seen by ovs-ofctl monitor. Frames on the trunk are watched with tcpdump
# (this kernel has no 8021q module for tagged interfaces).
. "$(dirname "$0")/../lib.sh"

HOSTS="ofa$$ ofb$$ ofc$$"
ovs_env
OFCTL="ovs-ofctl -O OpenFlow13"
cleanup() {
	[ -n "${MON:-}" ] && kill "$MON" 2>/dev/null
	ovs_cleanup
}
trap cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" vswitchd_start
$VSCTL add-br br0
set -- $HOSTS
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "q$i"
done

# VLANs: q1 and q2 are access ports of VLAN 10, q3 a trunk. (This
# kernel has no 8021q module, so the trunk's far end only watches.)
$VSCTL add-port br0 q1 tag=10 -- add-port br0 q2 tag=10 -- add-port br0 q3
ip netns exec "$1" ip addr add 10.6.0.1/24 dev eth0
ip netns exec "$2" ip addr add 10.6.0.2/24 dev eth0
check "access to access port, same VLAN" \
	ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.6.0.2
capture 5 "$3" "$T/trunk" -e -c 1 -i eth0 vlan 10
ip netns exec "$1" arping -c 2 -w 2 -I eth0 10.6.0.3 >/dev/null 2>&1
wait
check_out "a flooded access frame leaves the trunk tagged VLAN 10" \
	"802.1Q.*vlan 10.*ARP" cat "$T/trunk"
check_out "a datapath flow pushes VLAN 10" "push_vlan\(vid=10" \
	appctl dpctl/dump-flows
check "a host outside the VLAN is not reached" \
	unanswered "$1" -c 1 -W 1 10.6.0.9

# Frames tagged on the trunk: the veth hands the tag beside the frame
# (the port puts it back in), NORMAL delivers VLAN 10 to its access ports
# untagged, and nothing of VLAN 20.
trunk=$3
tagged_arp() { # vid
	ip netns exec "$trunk" python3 - "$1" <<'PY'
import socket, struct, sys
vid = int(sys.argv[1])
src = bytes.fromhex("020000000a33")
arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, src,
                  socket.inet_aton("10.6.0.33"), bytes(6),
                  socket.inet_aton("10.6.0.1"))
frame = (b"\xff" * 6 + src + struct.pack("!HHH", 0x8100, vid, 0x0806) +
         arp)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
for _ in range(3):
    s.send(frame)
PY
}
# No count: the capture's 4 s are the window in which the VLAN 20 frames
# would show up (what must not happen has no condition to wait for).
capture 4 "$1" "$T/access" -e -i eth0 arp
tagged_arp 20
tagged_arp 10
wait
check_out "a VLAN 10 frame from the trunk reaches the access port untagged" \
	"02:00:00:00:0a:33 > ff:ff:ff:ff:ff:ff, ethertype ARP.*who-has 10.6.0.1 tell 10.6.0.33" \
	cat "$T/access"
check "a VLAN 20 frame from the trunk does not" \
	bash -c "[ \$(grep -c 'who-has 10.6.0.1 tell 10.6.0.33' $T/access) -eq 3 ]"

# OpenFlow tables: table 0 sends IPv4 to table 1 (goto_table) and ARP to
# NORMAL; table 1 rewrites the DSCP of TCP SYNs to port 5001 and resubmits
# to table 2, which learns the sender into table 3 and switches NORMAL.
$OFCTL del-flows br0
$OFCTL add-flows br0 - <<'OF'
table=0,priority=10,arp,actions=NORMAL
table=0,priority=10,ip,actions=goto_table:1
table=1,priority=20,tcp,tp_dst=5001,tcp_flags=+syn,actions=set_field:0x20->ip_dscp,resubmit(,2)
table=1,priority=10,ip,actions=resubmit(,2)
table=2,actions=learn(table=3,priority=5,NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],output:NXM_OF_IN_PORT[]),NORMAL
OF
check "pings across the OpenFlow pipeline" \
	ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.6.0.2
check_out "learn added rules to table 3" "table=3.*actions=output" \
	$OFCTL dump-flows br0
ip netns exec "$2" sh -c "nc -l -p 5001 > $T/r.bin &"
wait_until 10 listens "$2" tcp 5001
head -c 300000 /dev/urandom >"$T/s.bin"
ip netns exec "$1" timeout 10 nc -w 2 -q 1 10.6.0.2 5001 <"$T/s.bin"
wait_until 10 cmp -s "$T/s.bin" "$T/r.bin"
check "TCP through the pipeline" cmp "$T/s.bin" "$T/r.bin"
check_out "the SYN rule matched" "n_packets=[1-9].*tcp_flags=\+syn" \
	$OFCTL dump-flows br0 table=1

# check_pkt_larger: frames over 200 bytes are dropped, smaller ones pass.
$OFCTL del-flows br0
$OFCTL add-flows br0 - <<'OF'
table=0,priority=10,arp,actions=NORMAL
table=0,priority=10,ip,actions=check_pkt_larger(200)->NXM_NX_REG0[0],resubmit(,1)
table=1,priority=20,reg0=1,actions=drop
table=1,priority=10,actions=NORMAL
OF
check "check_pkt_larger: a small ping passes" \
	ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.6.0.2
check "check_pkt_larger: a 500-byte ping is dropped" \
	unanswered "$1" -c 2 -i 0.2 -W 1 -s 500 10.6.0.2

# MPLS: IPv4 from q1 leaves the trunk with label 100 pushed; an MPLS frame
# coming in on the trunk is popped and delivered to q2.
$OFCTL del-flows br0
$OFCTL add-flows br0 - <<'OF'
table=0,priority=10,arp,actions=NORMAL
table=0,priority=20,icmp,in_port=q1,actions=push_mpls:0x8847,set_field:100->mpls_label,output:q3
table=0,priority=20,mpls,in_port=q3,actions=pop_mpls:0x0800,output:q2
OF
capture 5 "$3" "$T/mpls" -e -c 1 -i eth0 mpls
ip netns exec "$1" ping -c 1 -W 1 10.6.0.2 >/dev/null
wait
check_out "push_mpls: the frame leaves the trunk with label 100" \
	"MPLS \(label 100" cat "$T/mpls"
DST2=$(ip netns exec "$2" cat /sys/class/net/eth0/address)
capture 5 "$2" "$T/popped" -c 1 -i eth0 "icmp and host 10.6.0.77"
ip netns exec "$3" /usr/bin/python3 - "$DST2" <<'PY'
import socket, struct, sys
dst = bytes.fromhex(sys.argv[1].replace(":", ""))
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
icmp = bytearray(struct.pack("!BBHHH", 8, 0, 0, 7, 1) + b"tapdp-mpls!")
icmp += b"\0" * (len(icmp) % 2)
struct.pack_into("!H", icmp, 2, csum(bytes(icmp)))
ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 1, 0,
                           64, 1, 0, socket.inet_aton("10.6.0.77"),
                           socket.inet_aton("10.6.0.2")))
struct.pack_into("!H", ip, 10, csum(bytes(ip)))
label = struct.pack("!I", (100 << 12) | (1 << 8) | 64)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
s.send(dst + bytes([2, 0, 0, 0, 0, 0x33]) + b"\x88\x47" + label + ip + icmp)
PY
wait
check_out "pop_mpls: the IPv4 packet inside reaches q2" \
	"10.6.0.77 > 10.6.0.2: ICMP echo request" cat "$T/popped"

# MPLS to L3 and back, across two bridges joined by a veth pair (port 100
# on each): IP leaves with a label pushed; an MPLS frame is decapped to an
# L3 packet (pop_eth, pop_mpls, recirc), gets Ethernet again (push_eth)
# and is switched NORMAL. The checks above push and pop on Ethernet frames
# only; here the first packet is executed as an L3 packet from the upcall
# and the others hit the recirculated L3 megaflows, which match the IP
# protocol (the icmp rules in table 3). IPv4 and IPv6 (labels 2 and 3),
# then two labels (4 over 2). Hosts keep IPv6, with static neighbours.
HOSTS="$HOSTS ${1}m ${2}m"
MA=36:b1:ee:7c:01:03
MB=36:b1:ee:7c:01:02
host_add "${1}m" m1 10.6.2.1/24
host_add "${2}m" m2 10.6.2.2/24
mpls_host() { # namespace, its MAC, its address suffix, the peer's, its MAC
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
		net.ipv6.conf.eth0.disable_ipv6=0
	ip netns exec "$1" ip link set eth0 address "$2"
	ip netns exec "$1" ip addr add "fd00:6::$3/64" dev eth0 nodad
	ip netns exec "$1" ip neigh add "fd00:6::$4" lladdr "$5" dev eth0 \
		nud permanent
}
mpls_host "${1}m" "$MA" 1 2 "$MB"
mpls_host "${2}m" "$MB" 2 1 "$MA"
# The hosts' 1500-byte packets leave the bridges with up to two labels:
# the link between them takes 1508.
in_ns ip link add mpa mtu 1508 type veth peer name mpb mtu 1508
in_ns ip link set mpa up
in_ns ip link set mpb up
$VSCTL add-br bra -- add-br brb -- add-port bra m1 -- add-port brb m2 \
	-- add-port bra mpa -- set interface mpa ofport_request=100 \
	-- add-port brb mpb -- set interface mpb ofport_request=100
# Args: bridge, its host's MAC, the far host's, the push actions, the
# decaps before the IPv4 one, the outer label.
mpls_flows() {
	$OFCTL del-flows "$1"
	$OFCTL add-flows "$1" - <<OF
table=0,priority=100,ip,actions=$4,output:100
table=0,priority=100,ipv6,actions=push_mpls:0x8847,set_field:3->mpls_label,output:100
table=0,priority=100,mpls,mpls_label=${6:-2},actions=decap,$5decap(packet_type(ns=1,type=0x0800)),encap(ethernet),mod_dl_dst:$2,mod_dl_src:$3,resubmit(,3)
table=0,priority=100,mpls,mpls_label=3,actions=decap,decap(packet_type(ns=1,type=0x86dd)),encap(ethernet),mod_dl_dst:$2,mod_dl_src:$3,resubmit(,3)
table=0,priority=10,actions=resubmit(,3)
table=3,priority=20,icmp,actions=NORMAL
table=3,priority=20,icmp6,actions=NORMAL
table=3,priority=10,actions=NORMAL
OF
}
ONE="push_mpls:0x8847,set_field:2->mpls_label"
mpls_flows bra "$MA" "$MB" "$ONE"
mpls_flows brb "$MB" "$MA" "$ONE"
check_out "MPLS to L3 and back: every IPv4 ping answered" " 5 received" \
	ip netns exec "${1}m" ping -c 5 -i 0.2 -W 2 10.6.2.2
check_out "...and every IPv6 ping" " 5 received" \
	ip netns exec "${1}m" ping -6 -c 5 -i 0.2 -W 2 fd00:6::2
# The first packet of each way is executed; the rest (all but a race with
# the flow install) hit the L3 megaflows.
check_out "the recirculated IPv4 megaflow matched the later packets" \
	"eth_type\(0x0800\),ipv4\(proto=1,.*packets:[3-9].*actions:push_eth" \
	appctl dpctl/dump-flows
check_out "the recirculated IPv6 megaflow too" \
	"eth_type\(0x86dd\),ipv6\(proto=58,.*packets:[3-9].*actions:push_eth" \
	appctl dpctl/dump-flows
# TCP: the hosts' GSO frames leave bra labelled; this kernel has no MPLS
# GSO (openvswitch.ko brings mpls_gso), so the datapath cuts them.
ip netns exec "${2}m" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
wait_until 5 listens "${2}m" tcp 5201
check_out "MPLS to L3 and back: TCP (4 MB)" "receiver" \
	ip netns exec "${1}m" timeout 30 iperf3 -c 10.6.2.2 -p 5201 -n 4M
check "...and the veth between the bridges dropped no labelled frame" \
	test "$(tx_dropped "$NS" mpa) $(tx_dropped "$NS" mpb)" = "0 0"
TWO="$ONE,push_mpls:0x8847,set_field:4->mpls_label"
mpls_flows bra "$MA" "$MB" "$TWO" "decap(packet_type(ns=1,type=0x8847))," 4
mpls_flows brb "$MB" "$MA" "$TWO" "decap(packet_type(ns=1,type=0x8847))," 4
# Fresh megaflows, so the counts below are the two labels' only.
check "datapath flows flushed" vswitchd_flush_flows
check_out "two labels: every IPv4 ping answered" " 5 received" \
	ip netns exec "${1}m" ping -c 5 -i 0.2 -W 2 10.6.2.2
check_out "two labels: the recirculated megaflow matched the later packets" \
	"eth_type\(0x0800\),ipv4\(proto=1,.*packets:[3-9].*actions:push_eth" \
	appctl dpctl/dump-flows

# clone: a copy with a rewritten destination to the trunk, the original
# switched as usual.
$OFCTL del-flows br0
$OFCTL add-flows br0 - <<'OF'
table=0,priority=10,arp,actions=NORMAL
table=0,priority=10,icmp,in_port=q1,actions=clone(set_field:02:00:00:00:00:99->eth_dst,output:q3),NORMAL
table=0,priority=5,ip,actions=NORMAL
OF
capture 5 "$3" "$T/clone" -e -c 1 -i eth0 ether dst 02:00:00:00:00:99
check "clone: the original still arrives" \
	ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.6.0.2
wait
check_out "clone: the rewritten copy leaves on the trunk" \
	"> 02:00:00:00:00:99, ethertype IPv4.*ICMP echo request" cat "$T/clone"

# 802.1ad: q4 is a dot1q-tunnel port of S-VLAN 100; its frames leave the
# trunk with an 802.1ad tag.
HOSTS="$HOSTS ${1}x"
host_add "${1}x" q4 10.6.1.4/24
$VSCTL add-port br0 q4 vlan_mode=dot1q-tunnel tag=100
$VSCTL set Open_vSwitch . other_config:vlan-limit=0
capture 5 "$3" "$T/qinq" -e -c 1 -i eth0 vlan 100
ip netns exec "${1}x" arping -c 2 -w 2 -I eth0 10.6.1.9 >/dev/null 2>&1
wait
check_out "802.1ad: dot1q-tunnel frames leave the trunk with an S-tag" \
	"ethertype 802.1Q-QinQ.*vlan 100" cat "$T/qinq"

# ...and S-tagged frames from the trunk reach it untagged (QinQ pop).
capture 5 "${1}x" "$T/qinq-pop" -e -c 1 -i eth0 "arp and host 10.6.1.9"
ip netns exec "$3" /usr/bin/python3 - <<'PY'
import socket, struct
arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1,
                  bytes([2, 0, 0, 0, 0, 9]), socket.inet_aton("10.6.1.9"),
                  bytes(6), socket.inet_aton("10.6.1.4"))
frame = (b"\xff" * 6 + bytes([2, 0, 0, 0, 0, 9]) +
         struct.pack("!HH", 0x88a8, 100) + b"\x08\x06" + arp)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
s.send(frame)
PY
wait
check_out "802.1ad: S-tagged frames from the trunk arrive untagged" \
	"ethertype ARP.*who-has 10.6.1.4 tell 10.6.1.9" cat "$T/qinq-pop"

# Matches on MAC addresses and UDP ports.
MAC1=$(ip netns exec "$1" cat /sys/class/net/eth0/address)
$OFCTL add-flows br0 - <<OF
table=0,priority=40,udp,dl_src=$MAC1,tp_dst=9999,actions=drop
table=0,priority=40,udp,dl_src=$MAC1,tp_dst=8888,actions=output:q2
OF
capture 5 "$2" "$T/udp" -c 2 -i eth0 udp
for port in 9999 8888; do
	ip netns exec "$1" /usr/bin/python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('10.6.0.2', $port))"
done
# The 9999 datagram met its drop rule and the 8888 one arrived: the last
# datagram cannot be overtaken.
wait_until 10 eval '$OFCTL dump-flows br0 udp,tp_dst=9999 | grep -q n_packets=1, &&
	grep -q "10.6.0.2.8888" "$T/udp"'
ip netns exec "$1" /usr/bin/python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'y', ('10.6.0.2', 8888))"
wait
check_out "dl_src + udp tp_dst=8888: output to q2" "10.6.0.1.[0-9]+ > 10.6.0.2.8888" cat "$T/udp"
check_absent "dl_src + udp tp_dst=9999: dropped" "10.6.0.2.9999" cat "$T/udp"

# Truncated packet-ins to a controller.
$OFCTL add-flow br0 "table=0,priority=50,icmp,actions=controller(max_len=64),NORMAL"
ip netns exec "$NS" ovs-ofctl monitor "unix:$T/br0.mgmt" 65534 -P nxt_packet_in \
	>"$T/monitor" 2>&1 &
MON=$!
# Its control socket is made once the packet-in format is set.
wait_until 10 test -S "$T/ovs-ofctl.$MON.ctl"
ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.6.0.2 >/dev/null
wait_until 10 grep -q "NXT_PACKET_IN" "$T/monitor"
check_out "ovs-ofctl monitor sees the packet-in" "NXT_PACKET_IN" cat "$T/monitor"
check_out "the packet-in is truncated to 64 bytes" "total_len=98.*|data_len=64|total_len=98" \
	cat "$T/monitor"
check_vswitchd_log
finish
