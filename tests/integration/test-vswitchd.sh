#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Debian's ovs-vswitchd on tapdp (datapath_type=system, the default), with
# ovsdb-server in a private run directory: a NORMAL L2 learning switch
# between three namespaces (ping, ping6, a TCP transfer), the host on the
# bridge's internal port, the kernel's feature probes, other processes
# seeing the same datapath, a restart, and a log without WARN or ERR.
. "$(dirname "$0")/../lib.sh"

HOSTS="vsa$$ vsb$$ vsc$$"
ovs_env
trap ovs_cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts on tapdp" vswitchd_start
check "add-br br0" $VSCTL add-br br0
check "the bridge's internal port is a device" in_ns ip link show br0
check_out "ovs-system created" "system@ovs-system" appctl dpif/show

i=0
for h in $HOSTS; do
	i=$((i + 1))
	ip netns add "$h"
	ip link add "p$i" netns "$NS" type veth peer name eth0 netns "$h"
	in_ns ip link set "p$i" up
	ip netns exec "$h" ip link set eth0 up
	ip netns exec "$h" ip addr add "10.5.0.$i/24" dev eth0
	ip netns exec "$h" ip addr add "fd00:5::$i/64" dev eth0 nodad
	$VSCTL add-port br0 "p$i"
done
set -- $HOSTS
check "NORMAL: ping between namespaces" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.5.0.2
check "NORMAL: ping the third namespace" \
	ip netns exec "$3" ping -c 3 -i 0.2 -W 2 10.5.0.1
check "NORMAL: ping6" \
	ip netns exec "$1" ping -6 -c 3 -i 0.2 -W 2 fd00:5::3
head -c 4000000 /dev/urandom >"$T/send.bin"
ip netns exec "$2" sh -c "nc -l -p 5001 > $T/recv.bin &"
wait_until 10 listens "$2" tcp 5001
ip netns exec "$1" timeout 20 nc -w 2 -q 1 10.5.0.2 5001 <"$T/send.bin"
wait_until 10 cmp -s "$T/send.bin" "$T/recv.bin"
check "NORMAL: a 4 MB TCP transfer arrives intact" cmp "$T/send.bin" "$T/recv.bin"
check_out "flows were installed from upcalls" "eth_type\(0x0800\)" \
	appctl dpctl/dump-flows
check_out "another process (ovs-dpctl) sees the same datapath and flows" \
	"flows: [1-9]" in_ns "$BUILD/tapdp-run" -- ovs-dpctl show

# An OpenFlow rule on IPv6 fields: echo requests to one address dropped,
# the others still switched by NORMAL.
ovs-ofctl add-flow br0 \
	"priority=100,icmp6,ipv6_dst=fd00:5::3,icmp_type=128,actions=drop"
check "ipv6_dst + icmp_type match: ping6 to ::3 dropped" \
	unanswered "$1" -6 -c 2 -i 0.2 -W 1 fd00:5::3
check "the rule leaves ::2 reachable" \
	ip netns exec "$1" ping -6 -c 2 -i 0.2 -W 2 fd00:5::2
ovs-ofctl del-flows br0 "icmp6,ipv6_dst=fd00:5::3"

# The host on the bridge: an address on br0, a ping into a namespace.
in_ns ip addr add 10.5.0.100/24 dev br0
in_ns ip link set br0 up
check "the host pings a namespace through br0" \
	in_ns ping -c 3 -i 0.2 -W 2 10.5.0.1

# Feature probes as Linux 6.12 answers them.
appctl dpif/show-dp-features br0 >"$T/features" 2>&1
for f in "Masked set action: Yes" "Ufid: Yes" "Truncate action: Yes" \
	 "Clone action: Yes" "Sample nesting: 10" "Conntrack clear: Yes" \
	 "Max dp_hash algorithm: 1" "Check pkt length action: Yes" \
	 "MPLS Label add: Yes" "Max VLAN headers: 2" "Max MPLS depth: 3" \
	 "Recirc: Yes" "CT state: Yes" "CT zone: Yes" "CT mark: Yes" \
	 "CT label: Yes" "CT state NAT: Yes" "CT orig tuple: Yes" \
	 "CT orig tuple for IPv6: Yes" "IPv6 ND Extension: No" \
	 "Conntrack eventmask: Yes" "Conntrack timeout policy: Yes"; do
	check_out "feature: $f" "^$f\$" cat "$T/features"
done

# A restart: the datapath stays usable for the next ovs-vswitchd. (A
# clean exit, as OVS's own tests stop it; a SIGTERM logs a WARN line.)
pid=$(cat "$T/vswitchd.pid")
appctl exit
wait_until 10 dead "$pid"
# --detach returns once the configuration from the database is applied.
check "ovs-vswitchd restarts" vswitchd_start
check "traffic after the restart" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.5.0.2
check_vswitchd_log
finish
