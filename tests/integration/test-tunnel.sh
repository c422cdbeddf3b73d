#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Tunnel ports between two tapdp "hosts": two namespaces, each with its own
# tapdpd, joined by a veth (the underlay, IPv4 and IPv6), each with a "VM"
# namespace on a netdev port of its datapath. Both ways a tunnel port is
# made: the kernel selftests' ovs-dpctl.py creates a collect-metadata
# device over rtnetlink and adds it as a netdev port (its default, for vxlan
# and geneve) or uses the compat vport types (--lwt ''); Debian's ovs-dpctl
# takes the rtnetlink path for gre. Flows with tunnel(...) keys and
# set(tunnel(...)) carry ping and TCP between the VMs; a kernel vxlan device
# (this machine's kernel has vxlan) is a far end too. ip(8) through
# tapdp-run makes the L3 devices (VXLAN-GPE, geneve inner_proto_inherit)
# and is refused what the kernel refuses them.
. "$(dirname "$0")/../lib.sh"

HB=tnlb$$ VMA=tnlva$$ VMB=tnlvb$$ KV=tnlk$$
SOCKB=$T/b.sock LOGB=$T/b.log PIDB=$T/b.pid
cleanup() {
	[ -f "$PIDB" ] && kill "$(cat "$PIDB")" 2>/dev/null
	for n in $HB $VMA $VMB $KV; do ip netns del "$n" 2>/dev/null; done
	tapdp_cleanup
}
trap cleanup EXIT

check "ovs-dpctl.py extracted from linux-source-6.12" test -f "$SELFTEST/ovs-dpctl.py"

in_a() { in_ns "$@"; }
in_b() { ip netns exec "$HB" "$@"; }
# ovs-dpctl.py on host a or b.
pya() {
	in_a env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
		"$BUILD/tapdp-run" -- /usr/bin/python3 "$SELFTEST/ovs-dpctl.py" "$@"
}
pyb() {
	in_b env TAPDP_SOCKET="$SOCKB" \
		PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
		"$BUILD/tapdp-run" -- /usr/bin/python3 "$SELFTEST/ovs-dpctl.py" "$@"
}
dpctl_b() { in_b env TAPDP_SOCKET="$SOCKB" "$BUILD/tapdp-run" -- ovs-dpctl "$@"; }
# What ip(8) shows of a device, through the shim (as the kernel's would be).
link_a() { in_a "$BUILD/tapdp-run" -- ip -d link show "$@"; }
link_set() { in_a "$BUILD/tapdp-run" -- ip link set "$@"; }

# Link changes under the shim on the daemon's device $1 ($2 names it), as
# the kernel takes them on its own: down and up, MTU (put back after),
# address, master and nomaster (not on an L3 device, $3 = l3, which has
# no address and no bridge takes). A new name
# or namespace is refused (EOPNOTSUPP): the daemon knows the device by
# them.
link_changes() {
	local d=$1 what=$2 mtu
	mtu=$(in_a cat "/sys/class/net/$d/mtu")
	check "$what: set down under the shim" link_set "$d" down
	check_absent "$what: ...it is down" "[<,]UP[,>]" in_a ip link show "$d"
	check "$what: set up under the shim" link_set "$d" up
	check_out "$what: ...it is up" "[<,]UP[,>]" in_a ip link show "$d"
	check "$what: mtu 1450 under the shim" link_set "$d" mtu 1450
	check_out "$what: ...mtu 1450" "mtu 1450 " in_a ip link show "$d"
	check "$what: mtu back to $mtu" link_set "$d" mtu "$mtu"
	if [ "$3" != l3 ]; then
		check "$what: address under the shim" \
			link_set "$d" address 02:00:00:aa:bb:01
		check_out "$what: ...the address" "link/ether 02:00:00:aa:bb:01" \
			in_a ip link show "$d"
		in_a ip link add lkbr type bridge
		check "$what: master lkbr under the shim" \
			link_set "$d" master lkbr
		check_out "$what: ...its master" "master lkbr" \
			in_a ip link show "$d"
		check "$what: nomaster under the shim" link_set "$d" nomaster
		check_absent "$what: ...no master" "master lkbr" \
			in_a ip link show "$d"
		in_a ip link del lkbr
	fi
	check_out "$what: a new name is refused" "Operation not supported" \
		link_set "$d" name lkx
	check "$what: ...it kept its name" in_a ip link show "$d"
	check_out "$what: GETLINK still shows the tunnel" "$2 external" \
		link_a "$d"
}

# The hosts and their underlay.
tapdp_ns_up
ip netns add "$HB"
in_b ip link set lo up
ip link add ua netns "$NS" type veth peer name ub netns "$HB"
in_a ip addr add 172.31.210.1/24 dev ua
in_b ip addr add 172.31.210.2/24 dev ub
in_a ip addr add fd10::1/64 dev ua nodad
in_b ip addr add fd10::2/64 dev ub nodad
in_a ip link set ua up
in_b ip link set ub up
check "daemon a starts" tapdpd_start
check "daemon b starts" in_b $DAEMON_ENV "$BUILD/tapdpd" --socket "$SOCKB" \
	--log-file "$LOGB" --pidfile "$PIDB" --detach
check "the underlay works" in_a ping -c 1 -W 2 172.31.210.2

# A VM on each host: a veth whose host end is the datapath's port 1, its
# MTU leaving room for the tunnel's headers.
vm_add "$NS" "$VMA" va 10.9.0.1/24 1400
vm_add "$HB" "$VMB" vb 10.9.0.2/24 1400
check_out "add-dp a" "DP 'tdp' added" pya add-dp tdp
# b with per-port upcall pids (-V 2:0), so that a listener can take a
# port's upcalls.
check_out "add-dp b" "DP 'tdp' added" pyb add-dp -V 2:0 tdp
check "add-if a: the VM's port" pya add-if tdp va
check "add-if b: the VM's port" pyb add-if tdp vb

# vxlan the way ovs-dpctl.py does by default, as OVS does on a kernel with
# the vxlan module: a collect-metadata vxlan device over rtnetlink, then a
# netdev port on it.
check "add-if -t vxlan (a): a device over rtnetlink" \
	pya add-if -t vxlan tdp vxlan_sys_4789
check "add-if -t vxlan (b)" pyb add-if -t vxlan tdp vxlan_sys_4789
check "the device exists" in_a ip link show vxlan_sys_4789
check_out "RTM_GETLINK shows it as the kernel's collect-metadata vxlan" \
	"vxlan external id 0 .*dstport 4789 nolearning.* udp6zerocsumrx" \
	link_a vxlan_sys_4789
check_out "...without the shim, it is a TAP" "tun type tap" \
	in_a ip -d link show vxlan_sys_4789
check_out "show: a netdev port, as on the kernel" \
	"port 2: vxlan_sys_4789 \(netdev\)" pya show
# The kernel needs the device up to receive; so does the test.
link_changes vxlan_sys_4789 vxlan
in_b ip link set vxlan_sys_4789 up
check "it listens on 4789" listens "$NS" udp 4789
# ovs-dpctl.py prints nothing useful either way: the ports must not be
# there.
pya add-if -t vxlan tdp vxlan_two >/dev/null 2>&1
check_absent "a second vxlan device on that UDP port is refused (EEXIST)" \
	vxlan_two pya show
check "...and no device was left behind" link_gone "$NS" vxlan_two
check_out "an unprivileged user may not create one (EPERM)" \
	"Operation not permitted" in_a setpriv --reuid=65534 --regid=65534 \
	--clear-groups --inh-caps=-all "$BUILD/tapdp-run" -- \
	ip link add vxq type vxlan external dstport 4800
check "...and none was made" link_gone "$NS" vxq
# The compat type sends its port byte-swapped: 46354 is 4789 on the wire.
pya add-if -t vxlan --lwt '' -p 46354 tdp vxlan_three >/dev/null 2>&1
check_absent "a compat vxlan port on the same UDP port is refused too" \
	vxlan_three pya show
check "...and no device was left behind" link_gone "$NS" vxlan_three

flow_a() { pya add-flow tdp "$1" "$2"; }
flow_b() { pyb add-flow tdp "$1" "$2"; }
tunnel_flows() { # tunnel-port tun_id extra-tunnel-fields
	local p=$1 id=$2
	check "flows a ($3)" flow_a "in_port(1),eth()" \
		"set(tunnel(tun_id=$id,dst=172.31.210.2,ttl=64$4)),$p"
	check "flows a ($3): back" flow_a \
		"tunnel(tun_id=$id,src=172.31.210.2,dst=172.31.210.1),in_port($p),eth()" 1
	check "flows b ($3)" flow_b "in_port(1),eth()" \
		"set(tunnel(tun_id=$id,dst=172.31.210.1,ttl=64$4)),$p"
	check "flows b ($3): back" flow_b \
		"tunnel(tun_id=$id,src=172.31.210.1,dst=172.31.210.2),in_port($p),eth()" 1
}
traffic() { # what
	check "ping across the $1 tunnel" \
		ip netns exec "$VMA" ping -c 3 -i 0.2 -W 2 10.9.0.2
	check "ping back" ip netns exec "$VMB" ping -c 2 -i 0.2 -W 2 10.9.0.1
	ip netns exec "$VMB" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	wait_until 5 listens "$VMB" tcp 5201
	check_out "TCP across the $1 tunnel (4 MB)" "receiver" \
		ip netns exec "$VMA" timeout 30 iperf3 -c 10.9.0.2 -p 5201 -n 4M
}

tunnel_flows 2 5 vxlan
capture 10 "$NS" "$T/vx.txt" -i ua udp port 4789
traffic vxlan
check_out "the underlay carried VXLAN with VNI 5" "VXLAN.*vni 5" \
	cat "$T/vx.txt"
check_out "flows dump the tunnel key" "tunnel\(tun_id=5" pya dump-flows tdp
check_out "flows dump set(tunnel)" "set\(tunnel\(tun_id=5" pya dump-flows tdp
check_out "the flow matching the tunnel took the decapsulated packets" \
	"tunnel\(tun_id=5,.*packets:[1-9]" pya dump-flows tdp

# Hostile input to b's vxlan port: truncated headers, the I flag missing,
# reserved bits, an inner frame too short, from a peer nobody configured.
# Each is dropped and counted (RX dropped); traffic goes on.
nlc_b() { in_b env TAPDP_SOCKET="$SOCKB" "$BUILD/tapdp-run" -- "$BUILD/nl-client" "$@"; }
dropped_b() {
	nlc_b vport-stats tdp | sed -n 's/^vport vxlan_sys_4789 .*rx_dropped \([0-9]*\) .*/\1/p'
}
d0=$(dropped_b)
hostile() { # hex payload of one datagram to b's vxlan port
	in_a /usr/bin/python3 -c "import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(bytes.fromhex(sys.argv[1]), ('172.31.210.2', 4789))" "$1"
}
hostile ""
hostile "08"
hostile "0800000000000500"
hostile "0000000000000500$(printf '%028d' 0)$(printf '%040d' 0)"
hostile "08ff000000000500$(printf '%028d' 0)0800$(printf '%040d' 0)"
hostile "0800000000000500aabbcc"
dropped_since() { [ "$(( $(dropped_b) - d0 ))" -ge "$1" ]; }
check "b counted the six hostile datagrams as dropped" wait_until 5 dropped_since 6
check "b's daemon is alive" alive "$(cat "$PIDB")"
check "...and traffic still crosses" \
	ip netns exec "$VMA" ping -c 2 -i 0.2 -W 2 10.9.0.2

# MISS upcalls carry the tunnel: b without its flow from the tunnel, and
# ovs-dpctl.py listening on the vxlan port's upcalls (add-if -u of a port
# that exists points its upcalls at the listener).
pyb del-flows tdp >/dev/null 2>&1
pyb add-if -u -t vxlan --lwt '' tdp vxlan_sys_4789 >"$T/up.txt" 2>&1 &
UP=$!
check "a listener on b's vxlan upcalls" wait_until 10 grep -q "listening" "$T/up.txt"
ip netns exec "$VMA" ping -c 2 -i 0.2 -W 1 10.9.0.2 >/dev/null 2>&1
check "b's MISS upcall carries the tunnel key" wait_until 10 grep -Eq \
	"MISS upcall.*tunnel\(tun_id=5,src=172.31.210.1,dst=172.31.210.2" "$T/up.txt"
# The listener is the background subshell's child: it goes first, or it
# outlives the test.
pkill -P $UP 2>/dev/null
kill $UP 2>/dev/null
wait $UP 2>/dev/null

# A kernel vxlan device as the far end: namespace KV, reached from a by a
# second underlay link, the same VNI and port.
ip netns add "$KV"
ip link add uk netns "$NS" type veth peer name ka netns "$KV"
in_a ip addr add 172.31.211.1/24 dev uk
in_a ip link set uk up
ip netns exec "$KV" ip addr add 172.31.211.2/24 dev ka
ip netns exec "$KV" ip link set ka up
ip netns exec "$KV" ip link add vxk type vxlan id 5 dstport 4789 \
	remote 172.31.211.1 local 172.31.211.2
ip netns exec "$KV" ip addr add 10.9.0.3/24 dev vxk
ip netns exec "$KV" ip link set vxk up
pya del-flows tdp >/dev/null 2>&1
check "flows a (to the kernel's vxlan)" flow_a "in_port(1),eth()" \
	"set(tunnel(tun_id=5,dst=172.31.211.2,ttl=64)),2"
check "flows a (from the kernel's vxlan)" flow_a \
	"tunnel(tun_id=5,src=172.31.211.2,dst=172.31.211.1),in_port(2),eth()" 1
check "ping the kernel's vxlan device across" \
	ip netns exec "$VMA" ping -c 3 -i 0.2 -W 2 10.9.0.3
ip netns exec "$KV" iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
wait_until 5 listens "$KV" tcp 5202
check_out "TCP to the kernel's vxlan device (4 MB)" "receiver" \
	ip netns exec "$VMA" timeout 30 iperf3 -c 10.9.0.3 -p 5202 -n 4M

check "del-if removes the port" pya del-if tdp vxlan_sys_4789
check_absent "...it is gone" vxlan_sys_4789 pya show
check "...the UDP port is free" wait_until 5 sh -c "! ip netns exec $NS ss -Hlnu 'sport = :4789' | grep -q ."
check "...the device stays, as the kernel's" in_a ip link show vxlan_sys_4789
check "del-if --dellink: the port and, over rtnetlink, the device" \
	pyb del-if --dellink 1 tdp vxlan_sys_4789
check "...b's device is gone" wait_until 5 sh -c "! ip netns exec $HB ip link show vxlan_sys_4789 2>/dev/null"
check "RTM_DELLINK of a's device, by name, through ip(8)" \
	in_a "$BUILD/tapdp-run" -- ip link del vxlan_sys_4789
check "...a's device is gone" link_gone "$NS" vxlan_sys_4789
pya del-flows tdp >/dev/null 2>&1
pyb del-flows tdp >/dev/null 2>&1

# geneve, on its default port 6081 (sent byte-swapped: 49431).
check "add-if -t geneve --lwt '' (a)" pya add-if -t geneve --lwt '' tdp genev_sys_6081
check "add-if -t geneve --lwt '' (b)" pyb add-if -t geneve --lwt '' tdp genev_sys_6081
check "geneve listens on 49431" listens "$NS" udp 49431
check_out "...with the kernel's compat geneve MTU, 65465" "mtu 65465" \
	in_a ip link show genev_sys_6081
check_out "the compat port's device shows as the kernel's geneve" \
	"geneve external id 0 .*dstport 49431" link_a genev_sys_6081
link_changes genev_sys_6081 geneve
# OVS aborts beside a genev_sys_6081 whose kind is not geneve's (its
# in-tree probe); it reads geneve here.
check "ovs-dpctl runs beside the compat geneve port" dpctl show
tunnel_flows 2 77 geneve
traffic geneve

# geneve with UDP checksums (the key's csum flag, as OVN asks for): a
# frame's segments leave by one UDP_SEGMENT send, which the underlay veth
# carries whole (a datagram longer than its MTU), and the receiving port
# merges the inner segments back (VM b's port gets frames longer than its
# MTU). Every frame b's geneve port delivers goes to VM b's port.
pya del-flows tdp >/dev/null 2>&1
pyb del-flows tdp >/dev/null 2>&1
tunnel_flows 2 78 "geneve, csum" ",flags(csum)"
stat_b() { # port counter
	nlc_b vport-stats tdp | sed -n "s/^vport $1 .*$2 \([0-9]*\).*/\1/p"
}
# What b's geneve port took and VM b's port was handed (one frame may
# leave as several segments, so handed may exceed taken), and what b's
# datapath dropped (every reason, tapdpctl drops) or VM b's port failed to
# send: during the traffic, nothing taken goes missing.
b_drops() {
	in_b env TAPDP_SOCKET="$SOCKB" "$BUILD/tapdpctl" drops |
		awk '$1 == "tdp" && $2 == "-" { n += $6 } END { print n + 0 }'
}
taken0=$(stat_b genev_sys_6081 rx_packets)
handed0=$(stat_b vb tx_packets)
lost0=$(( $(stat_b vb tx_dropped) + $(b_drops) ))
capture 10 "$NS" "$T/gc.txt" -i ua udp port 49431 and greater 3000
capture 10 "$VMB" "$T/gm.txt" -i eth0 tcp and greater 3000
traffic "geneve, csum"
check_out "the underlay carried UDP GSO trains" "49431: UDP, length" \
	cat "$T/gc.txt"
check_out "VM b received merged TCP frames" "length [0-9]{4}" cat "$T/gm.txt"
# (A frame counted in by the geneve port may not be counted out yet when
# the counters are read: the last of the connection's segments.) On
# failure, b's port counters and drops say where the frame went.
all_handed() {
	local taken handed lost
	taken=$(( $(stat_b genev_sys_6081 rx_packets) - taken0 ))
	handed=$(( $(stat_b vb tx_packets) - handed0 ))
	lost=$(( $(stat_b vb tx_dropped) + $(b_drops) - lost0 ))
	[ "$taken" -gt 0 ] && [ "$handed" -ge "$taken" ] && [ "$lost" -eq 0 ] &&
		return 0
	echo "taken $taken, handed $handed, dropped $lost"
	nlc_b vport-stats tdp
	in_b env TAPDP_SOCKET="$SOCKB" "$BUILD/tapdpctl" drops
	return 1
}
if wait_until 5 all_handed; then
	ok "b's geneve port handed VM b's port all it took"
else
	nok "b's geneve port handed VM b's port all it took"
	all_handed | sed 's/^/    /'
fi
# With the underlay's transmit offloads off, the kernel cuts and
# checksums each datagram before the capture sees it: the checksums over
# the payloads tapdp wrote are right.
in_a ethtool -K ua tx off >/dev/null
capture 10 "$NS" "$T/gs.txt" -i ua -vv udp port 49431
traffic "geneve, csum, checksummed on the underlay"
check_out "the underlay's datagrams have right UDP checksums" "udp sum ok" \
	cat "$T/gs.txt"
check_absent "...and no wrong one" "bad udp cksum" cat "$T/gs.txt"
in_a ethtool -K ua tx on >/dev/null
pya del-flows tdp >/dev/null 2>&1
pyb del-flows tdp >/dev/null 2>&1
check "del-if geneve (a)" pya del-if tdp genev_sys_6081
check "del-if geneve (b)" pyb del-if tdp genev_sys_6081

# gre: ovs-dpctl.py 6.12 offers no gre type; Debian's ovs-dpctl creates a
# collect-metadata gretap device over rtnetlink, as on a kernel with the
# gre module, and adds it as a netdev port.
check "ovs-dpctl add-if gre (a)" dpctl add-if tdp gre_sys,type=gre,remote_ip=flow
check "ovs-dpctl add-if gre (b)" dpctl_b add-if tdp gre_sys,type=gre,remote_ip=flow
check_out "ovs-dpctl.py show: the gre port, a netdev" "gre_sys \(netdev\)" \
	pya show tdp
check_out "its device is a collect-metadata gretap" "gretap external" \
	link_a gre_sys
link_changes gre_sys gretap
tunnel_flows 2 9 gre
traffic gre
pya del-flows tdp >/dev/null 2>&1
pyb del-flows tdp >/dev/null 2>&1

# IPv6 underlay, vxlan on a port of our choosing (-p 4790: 36370).
check "add-if -t vxlan -p 4790 (a)" pya add-if -t vxlan -p 4790 --lwt '' tdp vx6
check "add-if -t vxlan -p 4790 (b)" pyb add-if -t vxlan -p 4790 --lwt '' tdp vx6
check "flows a (IPv6)" flow_a "in_port(1),eth()" \
	"set(tunnel(tun_id=6,ipv6_dst=fd10::2,ttl=64)),3"
check "flows a (IPv6): back" flow_a \
	"tunnel(tun_id=6,ipv6_src=fd10::2,ipv6_dst=fd10::1),in_port(3),eth()" 1
check "flows b (IPv6)" flow_b "in_port(1),eth()" \
	"set(tunnel(tun_id=6,ipv6_dst=fd10::1,ttl=64)),3"
check "flows b (IPv6): back" flow_b \
	"tunnel(tun_id=6,ipv6_src=fd10::1,ipv6_dst=fd10::2),in_port(3),eth()" 1
traffic "vxlan over IPv6"

pya del-flows tdp >/dev/null 2>&1
pyb del-flows tdp >/dev/null 2>&1

# geneve over IPv6, made over rtnetlink (ovs-dpctl.py's default) on port
# 6082: the device takes zero IPv6 UDP checksums (udp6zerocsumrx, as
# ovs-dpctl.py and OVS ask), and the flows send none.
check "add-if -t geneve -p 6082 (a)" pya add-if -t geneve -p 6082 tdp gnv6
check "add-if -t geneve -p 6082 (b)" pyb add-if -t geneve -p 6082 tdp gnv6
check_out "...a netdev port on a geneve device" "geneve external .*dstport 6082" \
	link_a gnv6
link_changes gnv6 geneve
in_b ip link set gnv6 up
check "flows a (geneve, IPv6)" flow_a "in_port(1),eth()" \
	"set(tunnel(tun_id=8,ipv6_dst=fd10::2,ttl=64)),4"
check "flows a (geneve, IPv6): back" flow_a \
	"tunnel(tun_id=8,ipv6_src=fd10::2,ipv6_dst=fd10::1),in_port(4),eth()" 1
check "flows b (geneve, IPv6)" flow_b "in_port(1),eth()" \
	"set(tunnel(tun_id=8,ipv6_dst=fd10::1,ttl=64)),4"
check "flows b (geneve, IPv6): back" flow_b \
	"tunnel(tun_id=8,ipv6_src=fd10::1,ipv6_dst=fd10::2),in_port(4),eth()" 1
traffic "geneve over IPv6"


# Deleted without the shim (plain ip(8)): the port is detached, as for any
# device, and the name and UDP port are free for a new device.
check "a device deleted without the shim" in_a ip link del gnv6
check "...leaves the datapath" wait_until 5 output_lacks gnv6 pya show
check "...its name and port may be taken again" in_a "$BUILD/tapdp-run" -- \
	ip link add gnv6 type geneve external dstport 6082
check_out "...by the daemon's geneve device" "geneve external" link_a gnv6

# The L3 devices through ip(8). VXLAN-GPE: what the kernel refuses it
# (learning, no metadata, GBP, TTL inherit: EINVAL with the kernel's
# message) is refused, and `gpe external` is a collect-metadata device
# without Ethernet on 4790. geneve with inner_proto_inherit likewise.
for args in "gpe external learning" "gpe id 5 dstport 4791 remote 10.0.0.1" \
	    "gpe external gbp" "gpe external ttl inherit"; do
	check_out "ip link add ... vxlan $args: EINVAL, as the kernel" \
		"Error: VXLAN GPE does not support this combination of attributes" \
		in_a "$BUILD/tapdp-run" -- ip link add gpex type vxlan $args
	check "...and no device" link_gone "$NS" gpex
done
check "ip link add ... vxlan gpe external" \
	in_a "$BUILD/tapdp-run" -- ip link add gpe0 type vxlan gpe external
check_out "...a collect-metadata VXLAN-GPE device on 4790" \
	"vxlan external .*dstport 4790 .*gpe" link_a gpe0
check_out "...without Ethernet (ARPHRD_NONE)" "link/none" \
	in_a ip link show gpe0
link_changes gpe0 vxlan l3
check "ip link add ... geneve external innerprotoinherit" \
	in_a "$BUILD/tapdp-run" -- ip link add gnl3 type geneve external \
	innerprotoinherit dstport 6090
check_out "...a collect-metadata geneve device inheriting the protocol" \
	"geneve external .*dstport 6090 .*innerprotoinherit" link_a gnl3
check_out "...without Ethernet (ARPHRD_NONE)" "link/none" \
	in_a ip link show gnl3
check "both deleted over rtnetlink" in_a "$BUILD/tapdp-run" -- sh -c \
	"ip link del gpe0 && ip link del gnl3"
check "...and gone" link_gone "$NS" gpe0 gnl3

finish
