#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# ovs-vswitchd's zone timeout policies and ctnetlink's events on tapdp:
# add-zone-tp makes ovs-vswitchd create cttimeout policies in the daemon and
# name them in zone 5's ct actions, so that UDP connections of the zone
# live as long as the policy says (unreplied and replied), as
# dump-conntrack shows, and expire then; del-zone-tp returns new
# connections to nf_conntrack's defaults. `conntrack -E` (through
# tapdp-run, joining by bind()) sees the connections' NEW, UPDATE and DESTROY
# events, and a socket that joined by setsockopt their NEW.
. "$(dirname "$0")/../lib.sh"

HOSTS="tpa$$ tpb$$"
ovs_env
OFCTL="ovs-ofctl -O OpenFlow13"
PEER="/usr/bin/python3 $TOP/tests/integration/peer.py"
trap ovs_cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" vswitchd_start
$VSCTL add-br br0
set -- $HOSTS
A=$1 B=$2
host_add "$A" k1 10.9.0.1/24
host_add "$B" k2 10.9.0.2/24
$VSCTL add-port br0 k1 -- set interface k1 ofport_request=1
$VSCTL add-port br0 k2 -- set interface k2 ofport_request=2
check "ovs-ofctl add-flows: zone 5" $OFCTL add-flows br0 - <<'OF'
priority=1,actions=drop
priority=10,arp,actions=NORMAL
priority=100,in_port=1,ip,actions=ct(zone=5,table=1)
priority=100,in_port=2,ip,actions=ct(zone=5,table=1)
table=1,in_port=2,ip,ct_state=+trk+est,actions=1
table=1,in_port=1,ip,ct_state=+trk+new,actions=ct(commit,zone=5),2
table=1,in_port=1,ip,ct_state=+trk+est,actions=2
OF
check_out "the datapath's timeout policy probe passes" \
	"^Conntrack timeout policy: Yes$" appctl dpif/show-dp-features br0

# oneway PORT: a datagram from A to B that nobody answers (B's port
# unreachable is related, which zone 5 drops).
oneway() {
	ip netns exec "$A" /usr/bin/python3 -c \
		'import socket,sys; socket.socket(2, 2).sendto(b"x", ("10.9.0.2", int(sys.argv[1])))' "$1"
}
# conn PORT: the zone 5 connection to PORT as dump-conntrack -s lists it.
conn() { dpctl dump-conntrack -s zone=5 | grep "dport=$1)"; }
# timeout_in PORT LO HI: its timeout is within [LO, HI] seconds.
timeout_in() {
	local t
	t=$(conn "$1" | sed -n 's/.*,timeout=\([0-9]*\).*/\1/p')
	[ -n "$t" ] && [ "$t" -ge "$2" ] && [ "$t" -le "$3" ]
}
gone() { ! conn "$1" >/dev/null; }
serve() {
	ip netns exec "$B" $PEER serve udp "$1" >"$T/served" 2>&1 &
	SERVER=$!
	wait_until 10 listens "$B" udp "$1"
}

oneway 7001
wait_until 5 conn 7001
check "without a policy: an unreplied UDP connection has 30 s" \
	timeout_in 7001 25 30

check "a Datapath record for system" $VSCTL -- --id=@m create Datapath \
	datapath_version=0 -- set Open_vSwitch . datapaths:system=@m
# OVS 4.0's bridge.c hands a zone's policy to the datapath only when it
# changes after the zone is first seen (ct_zones_reconfigure: the new
# zone starts with its policy, so nothing differs), as on the kernel; its
# own test sets each zone's policy twice, as this one does. 3.1 sends
# both.
check "add-zone-tp system zone=5 udp_single=3 udp_multiple=7" \
	$VSCTL add-zone-tp system zone=5 udp_first=3 udp_single=3 \
	udp_multiple=7
check "... then udp_single=4 udp_multiple=8" \
	$VSCTL --may-exist add-zone-tp system zone=5 udp_first=4 \
	udp_single=4 udp_multiple=8
# tp_names: the cttimeout policies a dump lists, through tapdp-run.
tp_names() {
	in_ns "$BUILD/tapdp-run" -- /usr/bin/python3 -c '
import socket, struct
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
s.send(struct.pack("=IHHIIBBH", 20, 8 << 8 | 1, 0x301, 1, 0, 0, 0, 0))
while True:
    d = s.recv(65536)
    while d:
        l, t = struct.unpack("=IH", d[:6])
        if t in (2, 3):
            raise SystemExit(t == 2)
        a = d[20:l]
        while a:
            al, at = struct.unpack("=HH", a[:4])
            if at == 1:
                print(a[4:al].rstrip(b"\0").decode())
            a = a[(al + 3) & ~3:]
        d = d[(l + 3) & ~3:]
'
}
six_tps() { [ "$(tp_names | grep -c '^ovs_tp_[0-9]*_\(tcp\|udp\|icmp\)')" -eq 6 ]; }
check "the daemon holds the zone's 6 policies (TCP, UDP, ICMP; v4 and v6)" \
	wait_until 10 six_tps
# The policy reaches the flows once ovs-vswitchd has revalidated them.
p=7100
applied() { p=$((p + 1)); oneway $p; wait_until 2 conn $p && timeout_in $p 1 4; }
check "zone 5's new unreplied UDP connection has udp_single's 4 s" \
	wait_until 15 applied
check "and is gone within 6 s" wait_until 6 gone $p
serve 7201
check_out "a replied UDP connection through zone 5" \
	"reply from 10.9.0.2:7201 ok" ip netns exec "$A" $PEER send udp 10.9.0.2 7201
wait "$SERVER"
check "it has udp_multiple's 8 s" timeout_in 7201 5 8
check "and is gone within 10 s" wait_until 10 gone 7201
check "the other connection kept the default" timeout_in 7001 1 30

check "del-zone-tp system zone=5" $VSCTL del-zone-tp system zone=5
reverted() { p=$((p + 1)); oneway $p; wait_until 2 conn $p && timeout_in $p 25 30; }
check "new connections have the defaults again" wait_until 15 reverted
check "and the daemon's policies are gone" \
	wait_until 10 output_lacks "^ovs_tp_" tp_names

# Events: conntrack -E on a preloaded netfilter socket. ovs-vswitchd's
# commits carry its eventmask (NEW, RELATED, DESTROY, MARK, LABEL): a
# reply makes no UPDATE, a mark set on the second datagram does.
$OFCTL del-flows br0
check "ovs-ofctl add-flows: zone 6 sets a mark once established" \
	$OFCTL add-flows br0 - <<'OF'
priority=10,arp,actions=NORMAL
priority=100,in_port=1,ip,actions=ct(zone=6,table=1)
priority=100,in_port=2,ip,actions=ct(zone=6,table=1)
table=1,in_port=2,ip,ct_state=+trk+est,actions=1
table=1,in_port=1,ip,ct_state=+trk+new,actions=ct(commit,zone=6),2
table=1,in_port=1,ip,ct_state=+trk+est,actions=ct(commit,zone=6,exec(set_field:42->ct_mark)),2
OF
in_ns "$BUILD/tapdp-run" -- conntrack -E >"$T/events" 2>&1 &
LISTENER=$!
# Until the listener has joined: connections nobody answers.
p=7500
heard() { p=$((p + 1)); oneway $p; wait_until 1 grep -q "dport=$p " "$T/events"; }
check "conntrack -E hears a NEW event" wait_until 15 heard
check_out "NEW: the kernel's form (tuples, UNREPLIED, zone)" \
	"^ *\[NEW\] udp +17 30 src=10.9.0.1 dst=10.9.0.2 sport=[0-9]+ dport=$p \[UNREPLIED\] src=10.9.0.2 dst=10.9.0.1 sport=$p dport=[0-9]+ zone=6\$" \
	grep "dport=$p " "$T/events"
for i in 1 2; do
	serve 7601
	check_out "datagram $i of a replied connection" \
		"reply from 10.9.0.2:7601 ok" \
		ip netns exec "$A" $PEER send udp 10.9.0.2 7601 40001
	wait "$SERVER"
done
marked() { grep -q "UPDATE.*dport=7601 .*mark=42" "$T/events"; }
check "UPDATE: the mark set on the second datagram" wait_until 5 marked
check_out "only that UPDATE: the reply and assurance are masked out" \
	"^1\$" sh -c "grep 'UPDATE.*sport=40001 dport=7601 ' $T/events | wc -l"
# The same group joined with setsockopt (as pyroute2 and libmnl users do):
# the first datagram is a conntrack NEW message from the kernel (portid 0).
in_ns "$BUILD/tapdp-run" -- /usr/bin/python3 -c '
import socket, struct
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
s.bind((0, 0))
s.setsockopt(270, 1, 1)
print("joined", flush=True)
s.settimeout(10)
m = s.recv(65536)
l, t, f, seq, pid = struct.unpack("=IHHII", m[:16])
print("type=%#x flags=%#x pid=%d" % (t, f, pid), flush=True)
' >"$T/joined" 2>&1 &
JOINER=$!
wait_until 10 grep -q joined "$T/joined"
oneway 7700
check "setsockopt(NETLINK_ADD_MEMBERSHIP, NFNLGRP_CONNTRACK_NEW) hears it" \
	wait_until 5 grep -q "type=0x100 flags=0x600 pid=0" "$T/joined"
wait "$JOINER"
check "flush-conntrack zone=6" dpctl flush-conntrack zone=6
destroyed() { grep -q "DESTROY.*sport=40001 dport=7601 .*mark=42" "$T/events"; }
check "DESTROY when flushed" wait_until 5 destroyed
kill "$LISTENER"
sed 's/^/    /' "$T/events" | tail -8
check_vswitchd_log
finish
