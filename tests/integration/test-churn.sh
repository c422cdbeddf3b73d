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
# ovs-vswitchd sheds flows when its dumps of them are slow, which they
# are on a loaded machine (its own revalidation of thousands of flows, and
# the sanitizer build's answers): past 250 ms (half of max-revalidator)
# a revalidation deletes the flows that see under 5 packets a second
# rather than translate them again, and a learned MAC asks for one; past
# 1.3 s its flow limit (10,000 at the start) falls by a quarter, and past
# the limit flows idle for 100 ms go. What is checked here is the
# datapath's, not that policy: max-revalidator 10 s, a limit of 200,000
# and a MAC table for all 10,000 sources keep the flows through slow
# dumps, which the output below shows when they happen.
$VSCTL --no-wait set Open_vSwitch . other_config:max-idle=30000 \
	other_config:flow-limit=200000 other_config:max-revalidator=10000
check "ovs-vswitchd starts" vswitchd_start
check_out "flow limit raised" "set flow_limit to 200000" \
	appctl upcall/set-flow-limit 200000
$VSCTL add-br br0 -- set bridge br0 other_config:mac-table-size=20000
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
# How long ovs-vswitchd's dumps took, and its flow limit since; when
# short, the counters of what takes flows away.
appctl upcall/show | grep -E 'flows|dump duration' | sed 's/^/    /'
if [ "$n" -lt 9900 ]; then
	appctl coverage/show |
		grep -E 'upcall_flow_limit|dpif_flow_del|mac_learning|rev_' |
		sed 's/^/    /'
fi
check_out "no upcall lost (ovs-dpctl show)" "lost:0$" \
	in_ns "$BUILD/tapdp-run" -- ovs-dpctl show
# Idle flows are revalidated away once max-idle drops to 1 s. The
# revalidators sleep out the 10 s max-revalidator first unless something
# asks for a revalidation: a change to the flow table (the bridge's own
# NORMAL rule added again) does, and after that dump they come every 1 s.
$VSCTL set Open_vSwitch . other_config:max-idle=1000
check "a flow table change asks for a revalidation" \
	ovs-ofctl add-flow br0 priority=0,actions=NORMAL
wait_until 10 eval '[ "$(n_flows)" -lt 10 ]'
check "idle flows expire through the revalidators" test "$(n_flows)" -lt 10
check_vswitchd_log
finish
