#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# VLAN devices where the kernel has no 8021q driver: `ip link add ... type
# vlan` under the shim makes one in userspace (tap/vlan-dev.h), in the
# namespace it was asked in, as the kernel's would be: 802.1Q and 802.1ad,
# stacked (QinQ, as OVS's cvlan tests make them), three on one lower
# device kept apart, IPv4 and IPv6 through them, the driver's answers to
# what it refuses, deletion, a lower device deleted or moved away taking
# its VLAN devices along, and a namespace deleted taking its own. And a
# datapath between them: POP_VLAN and PUSH_VLAN through netdev ports; the
# same devices after a kill -9 and an upgrade.
. "$(dirname "$0")/../lib.sh"
A=tapdpva$$ B=tapdpvb$$ C=tapdpvc$$
trap 'for n in $A $B $C; do ip netns del "$n" 2>/dev/null; done
	tapdp_cleanup' EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
if ip link add link lo name lo.5 type vlan id 5 2>/dev/null; then
	ip link del lo.5
	echo "this kernel has the 8021q driver: its VLAN devices stay its own"
	finish
	exit
fi
# Under the shim, in namespace $1.
shim_in() { local n=$1; shift; ip netns exec "$n" "$BUILD/tapdp-run" -- "$@"; }
for n in $A $B $C; do
	ip netns add "$n"
	ip -n "$n" link set lo up
done
ip link add va netns "$A" type veth peer name vb netns "$B"
ip -n "$A" link set va up
ip -n "$B" link set vb up

# 802.1Q VLANs 10, 20 and 30 on va, 10 and 20 on vb; an 802.1ad one with
# an 802.1Q one on top on each (MTUs lowered for the tags, as OVS's
# ADD_SVLAN and ADD_CVLAN do).
for side in "$A va 1" "$B vb 2"; do
	set -- $side
	ids="10 20"
	[ "$2" = va ] && ids="10 20 30"
	for id in $ids; do
		check "$2.$id (802.1Q) made in its namespace" \
			shim_in "$1" ip link add link "$2" name "$2.$id" type vlan id "$id"
		ip -n "$1" link set "$2.$id" up
		ip -n "$1" addr add "10.7.$id.$3/24" dev "$2.$id"
		ip -n "$1" addr add "fd07:$id::$3/64" dev "$2.$id" nodad
	done
	check "$2.4094 (802.1ad) made" shim_in "$1" ip link add link "$2" \
		name "$2.4094" type vlan proto 802.1ad id 4094
	ip -n "$1" link set "$2.4094" up
	ip -n "$1" link set "$2.4094" mtu 1496
	check "$2.4094.100 (802.1Q over it) made" shim_in "$1" ip link add \
		link "$2.4094" name "$2.4094.100" type vlan id 100
	ip -n "$1" link set "$2.4094.100" up
	ip -n "$1" link set "$2.4094.100" mtu 1492
	ip -n "$1" addr add "10.8.0.$3/24" dev "$2.4094.100"
done
check_out "va.10 has va's address" \
	"$(ip netns exec "$A" cat /sys/class/net/va/address)" \
	ip netns exec "$A" cat /sys/class/net/va.10/address
check_out "... and an MTU of its own: va.4094.100 1492" "^1492$" \
	ip netns exec "$A" cat /sys/class/net/va.4094.100/mtu
check_absent "... none of them in the daemon's namespace" "va\\.|vb\\." \
	in_ns ip -o link show
for id in 10 20; do
	check "IPv4 over VLAN $id" \
		ip netns exec "$A" ping -c 2 -i 0.2 -W 2 "10.7.$id.2"
	check "IPv6 over VLAN $id" \
		ip netns exec "$A" ping -6 -c 2 -i 0.2 -W 2 "fd07:$id::2"
done
check "over 802.1Q in 802.1ad (QinQ)" \
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.8.0.2
# VLAN 30 has no peer: nothing answers, and nothing crosses into 10's.
ip -n "$A" neigh replace 10.7.30.2 lladdr "$(ip netns exec "$B" \
	cat /sys/class/net/vb/address)" dev va.30 nud permanent
ip -n "$B" addr add 10.7.30.2/24 dev vb.10
check "VLAN 30 is not VLAN 10: no answer" \
	unanswered "$A" -c 2 -i 0.2 -W 1 10.7.30.2
ip -n "$B" addr del 10.7.30.2/24 dev vb.10
# Tagged on the wire: vb itself sees VLAN 10's frames with their tag.
capture 10 "$B" "$T/vb.pcap.txt" -i vb -e -c 2 vlan 10 and icmp
ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.7.10.2 >/dev/null
check_out "on the wire: an 802.1Q tag, VLAN 10" "802.1Q.*vlan 10" \
	eval 'wait_until 10 eval "grep -q vlan $T/vb.pcap.txt"; cat $T/vb.pcap.txt'

# What the driver refuses, it refuses.
check_out "the same id on the same device: EEXIST" \
	"VLAN device already exists" \
	shim_in "$A" ip link add link va name va.dup type vlan id 10
check_out "a name taken: EEXIST" "File exists" \
	shim_in "$A" ip link add link va name va.10 type vlan id 11
check_out "id 4095: ERANGE" "Invalid VLAN id" \
	shim_in "$A" ip link add link va name va.x type vlan id 4095
check_out "another namespace's lower device: ENODEV" "Cannot find device" \
	shim_in "$A" ip link add link vb name va.x type vlan id 5
check_absent "... nothing made of them" "va\\.(dup|x)" ip -n "$A" -o link show

# In the daemon's own namespace too.
in_ns ip link add vd type veth peer name vd0 netns "$C"
in_ns ip link set vd up
ip -n "$C" link set vd0 up
check "a VLAN device in the daemon's namespace" \
	in_ns "$BUILD/tapdp-run" -- ip link add link vd name vd.5 type vlan id 5
check "... there" in_ns ip link show vd.5

# Deleted: it goes, and a VLAN device on it goes with it.
check "ip link del va.4094" shim_in "$A" ip link del va.4094
check "... gone, and va.4094.100 over it" \
	wait_until 5 link_gone "$A" va.4094 va.4094.100
# A lower device moved away: its VLAN devices go with it.
ip -n "$A" link set va netns "$C"
check "va moved away: va.10, va.20 and va.30 go" \
	wait_until 5 link_gone "$A" va.10 va.20 va.30
ip -n "$C" link set va netns "$A"
ip -n "$A" link set va up

# A datapath between tagged and untagged: POP_VLAN on the way in,
# PUSH_VLAN on the way out, through netdev ports.
in_ns ip link add pa type veth peer name pa0 netns "$A"
in_ns ip link add pb type veth peer name pb0 netns "$B"
for l in pa pb; do in_ns ip link set "$l" up; done
ip -n "$A" link set pa0 up
ip -n "$B" link set pb0 up
check "pa0.7 on the tagged side" \
	shim_in "$A" ip link add link pa0 name pa0.7 type vlan id 7
ip -n "$A" link set pa0.7 up
ip -n "$A" addr add 10.9.7.1/24 dev pa0.7
ip -n "$B" addr add 10.9.7.2/24 dev pb0
dpctl add-dp dpv
dpctl add-if dpv pa
dpctl add-if dpv pb
macb=$(ip netns exec "$B" cat /sys/class/net/pb0/address)
maca=$(ip netns exec "$A" cat /sys/class/net/pa0.7/address)
ip -n "$A" neigh replace 10.9.7.2 lladdr "$macb" dev pa0.7 nud permanent
ip -n "$B" neigh replace 10.9.7.1 lladdr "$maca" dev pb0 nud permanent
check "a flow popping VLAN 7" dpctl add-flow dpv \
	"in_port(1),eth(),eth_type(0x8100),vlan(vid=7),encap(eth_type(0x0800),ipv4())" \
	"pop_vlan,2"
check "a flow pushing it" dpctl add-flow dpv \
	"in_port(2),eth(),eth_type(0x0800),ipv4()" "push_vlan(vid=7,pcp=0),1"
check "through the datapath, popped and pushed" \
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.9.7.2
check_out "... by its flows" "vid=7.*packets:[1-9]" dpctl dump-flows dpv

# A restart keeps them, the same devices (the keeper held their TAPs, the
# journal the requests that made them): after a kill -9, and after an
# upgrade in place (SIGUSR2).
idx() { ip netns exec "$1" cat "/sys/class/net/$2/ifindex"; }
pa=$(idx "$A" pa0.7) vd=$(idx "$NS" vd.5) vb=$(idx "$B" vb.4094.100)
pid=$(cat "$PIDF")
kill -KILL "$pid"
wait_until 5 dead "$pid"
check "a daemon killed with SIGKILL, and a new one" tapdpd_start
n=$(grep -c "took over" "$LOG")
kill -USR2 "$(cat "$PIDF")"
check "... upgraded in place after" \
	wait_until 10 eval '[ "$(grep -c "took over" "$LOG")" -gt "$n" ]'
check_out "... pa0.7 is the device it was" "^$pa\$" idx "$A" pa0.7
check_out "... vd.5 too, in the daemon's namespace" "^$vd\$" idx "$NS" vd.5
check_out "... and vb.4094.100, stacked" "^$vb\$" idx "$B" vb.4094.100
check "... traffic through pa0.7 and the datapath" \
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.9.7.2
check "... deleted after it" shim_in "$A" ip link del pa0.7
check "... gone" wait_until 5 link_gone "$A" pa0.7
dpctl del-dp dpv

# A namespace deleted takes its VLAN devices along, once nothing but
# their sockets holds it; the veth pair goes with it, its end in the
# other namespace too.
ip netns del "$B"
check "$B deleted: its VLAN devices' sockets no longer hold it" \
	wait_until 10 grep -q "nothing but the daemon's own sockets hold it" "$LOG"
check "... va, its veth's other end, goes" wait_until 10 link_gone "$A" va
finish
