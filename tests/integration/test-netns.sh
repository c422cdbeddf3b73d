#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Internal ports moved to other network namespaces, as OpenStack's L3 and
# DHCP agents move theirs: the port stays attached and forwarding there
# (and on, and back), its MTU followed, its stats read; deleting the port
# removes the device where it is; deleting the namespace it is in detaches
# it. A netdev (veth) port whose device leaves is detached, as the kernel
# does; so is an internal port whose TAP device is deleted. With
# ovs-vswitchd (NORMAL) and with plain ovs-dpctl.
. "$(dirname "$0")/../lib.sh"

NSA=nsa$$ NSB=nsb$$ NSC=nsc$$ NSD=nsd$$ NSE=nse$$
HOSTS="$NSA $NSB $NSC $NSD $NSE"
ovs_env
trap ovs_cleanup EXIT

# wait_for DESC CMD...: waits for CMD (up to 10 s) before checking it.
wait_for() {
	local desc=$1
	shift
	wait_until 10 "$@"
	check "$desc" "$@"
}

show() { in_ns "$BUILD/tapdp-run" -- ovs-dpctl show "$@"; }
lists() { show | grep -Eq "port [0-9]+: $1 \(internal\)"; }
absent() { output_lacks "port [0-9]+: $1( |$)" show; }
# The RX packets of port $1 in ovs-dpctl show -s.
rx_packets() {
	show -s | sed -n "/: $1 (internal)/,/RX packets/s/.*RX packets:\([0-9]*\).*/\1/p"
}
ping_ok() { ip netns exec "$1" ping -c 3 -i 0.2 -W 2 "${@:2}"; }
# "IFINDEX NETNSID" of port $1 as OVS_VPORT_CMD_GET answers (NETNSID -1:
# absent, the device is in the daemon's namespace).
vport_where() {
	in_ns env PYTHONPATH="$TOP/tests/ovs-dpctl-py" "$BUILD/tapdp-run" -- \
		/usr/bin/python3 "$TOP/tests/integration/vport-where.py" "$1"
}
# What the vport should say of device $1 in namespace $2.
where_is() {
	local idx nsid=-1
	idx=$(ip -n "$2" -o link show "$1" | cut -d: -f1)
	[ "$2" = "$NS" ] ||
		nsid=$(ip -n "$NS" netns list-id | sed -n "s/^nsid \([0-9]*\) .*(iproute2 netns name: $2)$/\1/p")
	echo "$idx $nsid"
}
check_where() { # port namespace
	check_out "vport get: $1's index and netnsid in $2" \
		"^$(where_is "$1" "$2")\$" vport_where "$1"
}

for h in $HOSTS; do
	ip netns add "$h"
	ip netns exec "$h" ip link set lo up
done

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts on tapdp" vswitchd_start
check "add-br br0" $VSCTL add-br br0
for p in p0 p1 p2; do
	check "add-port $p (internal)" \
		$VSCTL add-port br0 $p -- set interface $p type=internal
done

# p0 to one namespace, p1 to another, p2 stays.
check "move p0 to $NSA" in_ns ip link set p0 netns "$NSA"
check "move p1 to $NSB" in_ns ip link set p1 netns "$NSB"
check "p0 is configurable in $NSA" \
	ip -n "$NSA" addr add 10.6.0.1/24 dev p0
check "p1 is configurable in $NSB" \
	ip -n "$NSB" addr add 10.6.0.2/24 dev p1
ip -n "$NSA" addr add fd00:6::1/64 dev p0 nodad
ip -n "$NSB" addr add fd00:6::2/64 dev p1 nodad
ip -n "$NSA" link set p0 up
ip -n "$NSB" link set p1 up
in_ns ip addr add 10.6.0.3/24 dev p2
in_ns ip link set p2 up
check "ping between two moved ports" ping_ok "$NSA" 10.6.0.2
check "ping6 between two moved ports" ping_ok "$NSA" -6 fd00:6::2
check "ping from a moved port to one that stayed" ping_ok "$NSB" 10.6.0.3
check "ovs-dpctl show lists moved p0" lists p0
check "ovs-dpctl show lists moved p1" lists p1
check_where p0 "$NSA"
check_where p1 "$NSB"
check_where p2 "$NS"
check "ovs-dpctl show -s counts a moved port's packets" \
	test "$(rx_packets p0)" -gt 0
wait_for "vswitchd's statistics of a moved port" \
	bash -c "$VSCTL get interface p0 statistics | grep -Eq 'rx_packets=[1-9]'"

# The MTU set inside the namespace is the port's (the kernel drops larger
# frames at output): jumbo frames pass once both ends have it.
ip -n "$NSA" link set p0 mtu 9000
ip -n "$NSB" link set p1 mtu 9000
wait_for "jumbo frames between moved ports after an MTU change there" \
	ip netns exec "$NSA" ping -c 1 -W 1 -s 8000 -M do 10.6.0.2

# On to a third namespace (from inside the second), and p0 back home.
check "move p1 on from $NSB to $NSC" ip -n "$NSB" link set p1 netns "$NSC"
ip -n "$NSC" addr add 10.6.0.2/24 dev p1
ip -n "$NSC" link set p1 up
check "ping a port moved twice" ping_ok "$NSA" 10.6.0.2
check_where p1 "$NSC"
ip -n "$NSC" link set p1 mtu 1500
wait_for "an MTU change two moves away is followed (big frames dropped)" \
	unanswered "$NSA" -c 1 -W 1 -s 3000 -M do 10.6.0.2
in_ns ip addr flush dev p2
check "move p0 back" ip -n "$NSA" link set p0 netns "$NS"
in_ns ip addr add 10.6.0.1/24 dev p0
in_ns ip link set p0 up
check "ping from a port moved back" ping_ok "$NS" 10.6.0.2
check_where p0 "$NS"
check "ovs-dpctl show -s after the return" test "$(rx_packets p0)" -gt 0

# Deleting a moved port removes its device where it is.
check "del-port p1 (in $NSC)" $VSCTL del-port br0 p1
wait_for "p1's device is gone from $NSC" link_gone "$NSC" p1
check "ovs-dpctl show no longer lists p1" absent p1
check "p0 still listed" lists p0
check "p2 still listed" lists p2
check_vswitchd_log

# Deleting the namespace a moved port is in: the kernel destroys the
# device and detaches the port (with no notification).
check "move p2 to $NSD" in_ns ip link set p2 netns "$NSD"
ip netns del "$NSD"
ip netns add "$NSD"
# (ovs-vswitchd may then create p2 again, at home: its database has it.)
p2_detached() { output_lacks ": p2 " show || in_ns ip link show p2; }
wait_for "a port whose namespace is deleted is detached" p2_detached
check "the others stay" lists p0
check "del-port p0" $VSCTL del-port br0 p0
check "p0's device is gone" link_gone "$NS" p0
appctl exit
rm -f "$T/vswitchd.pid"

# Plain ovs-dpctl: two internal ports moved, forwarding by explicit flows.
check "add-dp dp1" dpctl add-dp dp1
check "add-if q0 (internal)" dpctl add-if dp1 q0,type=internal
check "add-if q1 (internal)" dpctl add-if dp1 q1,type=internal
check "move q0 to $NSA" in_ns ip link set q0 netns "$NSA"
check "move q1 to $NSE" in_ns ip link set q1 netns "$NSE"
ip -n "$NSA" addr add 10.8.0.1/24 dev q0
ip -n "$NSE" addr add 10.8.0.2/24 dev q1
ip -n "$NSA" link set q0 up
ip -n "$NSE" link set q1 up
q0=$(show | sed -n 's/.*port \([0-9]*\): q0 .*/\1/p')
q1=$(show | sed -n 's/.*port \([0-9]*\): q1 .*/\1/p')
dpctl add-flow dp1 "in_port($q0),eth(),eth_type(0x0800),ipv4()" "$q1"
dpctl add-flow dp1 "in_port($q1),eth(),eth_type(0x0800),ipv4()" "$q0"
dpctl add-flow dp1 "in_port($q0),eth(),eth_type(0x0806),arp()" "$q1"
dpctl add-flow dp1 "in_port($q1),eth(),eth_type(0x0806),arp()" "$q0"
check "ping through flows between moved ports" ping_ok "$NSA" 10.8.0.2
check_out "the flows carried it" "packets:[1-9]" dpctl dump-flows dp1
check "ovs-dpctl show -s counts q1's packets" test "$(rx_packets q1)" -gt 0

# A netdev port whose device leaves the namespace is detached.
in_ns ip link add ve0 type veth peer name ve1
check "add-if ve0 (netdev)" dpctl add-if dp1 ve0
check "move ve0 to $NSE" in_ns ip link set ve0 netns "$NSE"
wait_for "a netdev port whose device moved away is detached" absent ve0
check "the moved internal port stays" lists q1
check_out "the log says where q1 went" "q1: device moved \(netns id [0-9]+" \
	cat "$LOG"
# An internal port's TAP device deleted from outside (the kernel refuses
# it for its internal devices; a TAP device cannot): detached as a netdev
# port whose device is deleted.
check "add-if q3 (internal)" dpctl add-if dp1 q3,type=internal
check "delete q3's device" in_ns ip link del q3
wait_for "an internal port whose device is deleted is detached" absent q3
check_out "the log says q3's device was deleted" \
	"q3: device deleted or moved away, detaching" cat "$LOG"
check "add-if q2 (internal)" dpctl add-if dp1 q2,type=internal
check "move q2 to $NSD" in_ns ip link set q2 netns "$NSD"
ip netns del "$NSD"
wait_for "deleting q2's namespace detaches it" absent q2
check "q1 stays" lists q1
check "q0 and q1 still forward" ping_ok "$NSE" 10.8.0.1
check "del-if of a moved port" dpctl del-if dp1 q0
check "its device is gone from $NSA" link_gone "$NSA" q0
# The kernel refuses to move a local port's device; a TAP device cannot
# refuse: its datapath is deleted, as when the device is deleted.
check "add-dp dp2" dpctl add-dp dp2
in_ns ip link set dp2 netns "$NSE"
wait_for "a datapath whose local port moved away is deleted" \
	output_lacks "system@dp2" dpctl dump-dps
wait_for "and its device with it" link_gone "$NSE" dp2
check "del-dp dp1" dpctl del-dp dp1
check "q1's device is gone from $NSE" link_gone "$NSE" q1
finish
