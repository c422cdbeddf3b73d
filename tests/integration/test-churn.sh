#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Flow-table churn under ovs-vswitchd: 10,000 distinct megaflows set up by
# traffic (frames from 10,000 source MACs, each a flow of its own for the
# NORMAL learning switch), no upcall lost at that rate, then revalidated and
# expired when idle (max-idle lowered to 1 s).
. "$(dirname "$0")/../lib.sh"

HOSTS="cha$$ chb$$"
ovs_env
trap ovs_cleanup EXIT
# The count, nothing when the dump fails.
n_flows() {
	local dump
	dump=$(appctl dpctl/dump-flows) || return 1
	grep -c "eth_type(0x0800)" <<<"$dump"
}

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
$VSCTL --no-wait set Open_vSwitch . other_config:max-idle=30000
check "ovs-vswitchd starts" vswitchd_start
$VSCTL add-br br0
set -- $HOSTS
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "c$i" "10.8.0.$i/24"
	$VSCTL add-port br0 "c$i"
done
check "ARP and a first ping" ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.8.0.2

# 10,000 new sources at a rate the handlers keep up with: UDP frames to
# host 2, each from its own source MAC.
DST=$(ip netns exec "$2" cat /sys/class/net/eth0/address)
ip netns exec "$1" /usr/bin/python3 - "$DST" <<'PY'
import socket, struct, sys, time
dst = bytes.fromhex(sys.argv[1].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
ip = bytes.fromhex("4500001c00004000401100000a0800010a080002")
udp = struct.pack("!HHHH", 5000, 7777, 8, 0)
for i in range(10000):
    src = bytes([2, 0xaa, 0, 0, i >> 8, i & 0xff])
    s.send(dst + src + b"\x08\x00" + ip + udp)
    if i % 250 == 249:
        time.sleep(0.05)  # pacing, not waiting: the rate is the input
PY
# The handlers install a flow for each frame's upcall.
wait_until 10 eval '[ "$(n_flows)" -ge 9900 ]'
n=$(n_flows)
echo "    datapath flows after 10,000 connections: $n"
check "10,000 megaflows set up by traffic" test "$n" -ge 9900
# When short, what took the flows away: its limit, or revalidations
# (those a learned MAC asks for) deleting the flows under 5 packets/s
# once a dump takes over 250 ms.
if [ "$n" -lt 9900 ]; then
	appctl upcall/show | sed 's/^/    /'
	appctl coverage/show |
		grep -E 'upcall_flow_limit|dpif_flow_del|mac_learning|rev_' |
		sed 's/^/    /'
fi
check_out "no upcall lost (ovs-dpctl show)" "lost:0$" \
	in_ns "$BUILD/tapdp-run" -- ovs-dpctl show
# Idle flows are revalidated away once max-idle drops to 1 s.
$VSCTL set Open_vSwitch . other_config:max-idle=1000
wait_until 10 eval '[ "$(n_flows)" -lt 10 ]'
check "idle flows expire through the revalidators" test "$(n_flows)" -lt 10
check_vswitchd_log
finish
