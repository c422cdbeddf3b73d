#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdpctl upcalls: what went up to userspace, beyond ovs-dpctl show.
# 1. A datapath whose port 1 sends its upcalls to a socket that never
#    reads (lost: socket full, once its queue is) and port 2 to no pid
#    (lost: no socket), misses and a userspace action: the counts by
#    command and reason are exact, agree with ovs-dpctl show, the handler
#    is named by its process, and --follow streams the lost ones.
# 2. ovs-vswitchd: its misses sent to its handlers, each named, their sum
#    the upcalls sent, and the wait of misses for their flows timed.
. "$(dirname "$0")/../lib.sh"

A=upa$$
B=upb$$
HOSTS="$A $B"
ovs_env
trap 'exec 8>&-; ovs_cleanup' EXIT
ctl() { in_ns "$BUILD/tapdpctl" "$@"; }
mac() { ip netns exec "$1" cat /sys/class/net/eth0/address; }
# up JSON-EXPR: EXPR of the first datapath's upcalls document u.
up() {
	ctl --json upcalls >"$T/up.json" && /usr/bin/python3 -c 'import json, sys
u = json.loads(open(sys.argv[1]).readline())
print(eval(sys.argv[2]))' "$T/up.json" "$1"
}
# shown FIELD: the kernel's lookups figure (hit, missed, lost), as the
# selftest's ovs-dpctl.py shows it (ovs-dpctl opening the datapath would
# turn per-CPU dispatch on).
shown() { pyctl show | sed -nE "s/.*lookups: .*$1:([0-9]+).*/\1/p"; }
# send NS N ETHERTYPE|udp: N frames out of NS's eth0 to B's address.
send() {
	ip netns exec "$1" /usr/bin/python3 - "$2" "$3" "$(mac "$B")" <<'PY'
import socket, struct, sys
n, what, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if what == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(n):
        s.sendto(b"u" * 1000, ("10.6.0.2", 9))
else:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind(("eth0", 0))
    mac = bytes(int(x, 16) for x in dst.split(":"))
    for i in range(n):
        s.send(mac + b"\x02" * 6 + struct.pack("!H", int(what, 16)) + bytes(46))
PY
}

# 1. misses and userspace actions (in-line Python on ovs-dpctl.py's
#    pyroute2 classes: ovs-dpctl cannot name an upcall pid).
# mkdp NAME PID PORT:PID...: a datapath with per-port dispatch and these
# upcall pids.
mkdp() {
	in_ns env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim:$TOP/tests/ovs-dpctl-py" \
		"$BUILD/tapdp-run" -- /usr/bin/python3 - "$@" <<'PY'
import sys
from pyroute2.netlink import NLM_F_ACK, NLM_F_ECHO, NLM_F_REQUEST
from pyroute2.netlink.generic import GenericNetlinkSocket
from ovstest import dpmsg, vportmsg

def request(sock, cls, attrs, version, flags=0):
    msg = cls()
    msg["cmd"] = 1          # NEW
    msg["version"] = version
    msg["dpifindex"] = ifindex
    msg["attrs"] = attrs
    return sock.nlm_request(msg, msg_type=sock.prid,
                            msg_flags=NLM_F_REQUEST | NLM_F_ACK | flags)

ifindex = 0
dps, vps = GenericNetlinkSocket(), GenericNetlinkSocket()
dps.bind("ovs_datapath", dpmsg)
vps.bind("ovs_vport", vportmsg)
ifindex = request(dps, dpmsg, [["OVS_DP_ATTR_NAME", sys.argv[1]],
                               ["OVS_DP_ATTR_UPCALL_PID", int(sys.argv[2])],
                               ["OVS_DP_ATTR_USER_FEATURES", 0]], 2,
                  NLM_F_ECHO)[0]["dpifindex"]
for port in sys.argv[3:]:
    name, pid = port.split(":")
    request(vps, vportmsg, [["OVS_VPORT_ATTR_NAME", name],
                            ["OVS_VPORT_ATTR_TYPE", 1],
                            ["OVS_VPORT_ATTR_UPCALL_PID", int(pid)]], 1)
print("made", sys.argv[1])
PY
}

tapdp_ns_up
check "daemon starts" tapdpd_start
host_add "$A" v1 10.6.0.1/24
host_add "$B" v2 10.6.0.2/24
ip netns exec "$A" ip neigh replace 10.6.0.2 lladdr "$(mac "$B")" dev eth0 nud permanent
# A socket at portid 4242 that never reads.
mkfifo "$T/hold"
in_ns "$BUILD/hostile-client" "$SOCK" hold 4242 <"$T/hold" >"$T/hold.out" 2>&1 &
exec 8>"$T/hold"
check "a socket holds portid 4242 and reads nothing" \
	wait_until 10 grep -q "hold: bound 4242" "$T/hold.out"
check_out "a datapath whose port 1's upcalls go to 4242, port 2's to none" \
	"^made dp0$" mkdp dp0 4242 v1:4242 v2:0

check_out "upcalls before any: none, and no handler" \
	"^datapath dp0: upcalls 0 \(miss 0, action 0\), lost 0 \(socket full 0, no socket 0, other 0\)$" \
	ctl upcalls dp0
send "$B" 5 88b5
check "5 frames no flow matches from port 2: 5 misses" \
	wait_until 10 eval '[ "$(up "u[\"miss\"]")" = 5 ]'
check_out "... lost for want of a pid, 5" "^5$" up 'u["lost"]["no_socket"]'
send "$A" 2000 udp
check "2000 datagrams from port 1: 2005 misses in all" \
	wait_until 10 eval '[ "$(up "u[\"miss\"]")" = 2005 ]'
check_out "... the socket's queue filled: some lost to it" "^True$" \
	up 'u["lost"]["socket_full"] > 0 and u["lost"]["socket_full"] < 2000'
check_out "... its handler row: portid 4242, held by hostile-client, sent and lost adding up" \
	"^4242 hostile-client 2000 True$" \
	up '" ".join(str(x) for x in (u["handlers"][0]["portid"], u["handlers"][0]["command"], u["handlers"][0]["sent"] + u["handlers"][0]["lost"], u["handlers"][0]["lost"] == u["lost"]["socket_full"]))'
check_out "... no other handler" "^1$" up 'len(u["handlers"])'
check "add-flow: UDP from 1 to userspace(pid=4242)" pyctl add-flow dp0 \
	"in_port(1),eth(),eth_type(0x0800),ipv4(proto=17),udp()" "userspace(pid=4242)"
send "$A" 100 udp
check "100 datagrams through the userspace action: 100 action upcalls" \
	wait_until 10 eval '[ "$(up "u[\"action\"]")" = 100 ]'
check_out "... lost in all: what the kernel's counter says" "^$(shown lost)$" \
	up 'sum(u["lost"].values())'
check_out "... missed: what the kernel's counter says" "^$(shown missed)$" up 'u["miss"]'
check_out "the human form: the totals" \
	"^datapath dp0: upcalls 2105 \(miss 2005, action 100\), lost [0-9]+ \(socket full [1-9][0-9]*, no socket 5, other 0\)$" \
	ctl upcalls
check_out "... and the handler" \
	"^  handler portid 4242 \(hostile-client\[[0-9]+\]\): sent [1-9][0-9]* lost [1-9][0-9]*$" \
	ctl upcalls
check_out "upcalls of a datapath that is not there: exit status 1" "^1$" \
	eval 'ctl upcalls nosuch >/dev/null 2>&1; echo $?'

ip netns exec "$NS" "$BUILD/tapdpctl" upcalls --follow --count 2 --timeout 20 \
	>"$T/follow.out" 2>"$T/follow.err" &
FOLLOW=$!
wait_until 10 grep -q following "$T/follow.err"
send "$A" 1 udp
send "$B" 1 88b5
check "upcalls --follow: it stops after 2" \
	wait_until 10 dead "$FOLLOW"
check_out "... the datagram lost to the full socket, with its errno" \
	"^[0-9.]+ dp0 1 v1 lost:action portid=4242 ENOBUFS len=1042$" cat "$T/follow.out"
check_out "... the miss lost for want of a pid" \
	"^[0-9.]+ dp0 2 v2 lost:miss portid=0 ENOTCONN len=60$" cat "$T/follow.out"
exec 8>&-
check "the holder ends" wait_until 10 grep -q "hold: received" "$T/hold.out"

# 2. ovs-vswitchd's handlers.
check "del-dp dp0" pyctl del-dp dp0
for h in $HOSTS; do ip netns del "$h"; done
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" vswitchd_start
$VSCTL add-br br0
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "w$i" "10.6.1.$i/24"
	$VSCTL add-port br0 "w$i"
done
check "ping through NORMAL" ip netns exec "$A" ping -c 3 -i 0.2 -W 2 10.6.1.2
check_out "misses went up, none lost" "^True 0$" \
	up 'str(u["miss"] > 0) + " " + str(sum(u["lost"].values()))'
check_out "... each handler ovs-vswitchd's" "^True$" \
	up 'all(h["command"] == "ovs-vswitchd" for h in u["handlers"]) and len(u["handlers"]) > 0'
check_out "... the handlers' sent add up to the upcalls" "^True$" \
	up 'sum(h["sent"] for h in u["handlers"]) == u["miss"] + u["action"]'
check_out "... misses waited for their flows, timed" "^True$" \
	up 'u["miss_to_flow"]["n"] > 0 and sum(u["miss_to_flow"]["buckets"].values()) == u["miss_to_flow"]["n"] and u["miss_to_flow"]["max_us"] * u["miss_to_flow"]["n"] >= u["miss_to_flow"]["sum_us"]'
check_out "... no more timed than there were misses" "^True$" \
	up 'u["miss_to_flow"]["n"] <= u["miss"]'
check_out "the human form: the waits" \
	"^  miss to flow: [1-9][0-9]* timed, mean [0-9]+ us, max [0-9]+ us; <10us [0-9]+, <100us" \
	ctl upcalls
check_buffers_free "every pooled buffer back in its pool after the traffic"
check_vswitchd_log

finish
