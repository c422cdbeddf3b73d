#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdpctl trace: frames run through the datapath's tables as a dry run.
# 1. A recirculating conntrack pipeline of ovs-dpctl flows (zone 5): the
#    megaflows each trace prints are the lines ovs-dpctl dump-flows shows,
#    with the states the tracker gives (new, established, reply), the
#    port it leaves by, a drop and a miss; the flows' counters and the
#    connections are the same after as before; frames given in hex and
#    from a pcapng file of tapdpctl capture; --json; the errors.
# 2. ovs-vswitchd with an OpenFlow firewall (ct(table=1), commit from port
#    1 only), IPv4 and IPv6: frames of a ping read from tcpdump's pcap,
#    traced through the megaflows ovs-vswitchd installed, with their UFIDs.
. "$(dirname "$0")/../lib.sh"

A=tra$$
B=trb$$
HOSTS="$A $B"
ovs_env
trap ovs_cleanup EXIT
ctl() { in_ns "$BUILD/tapdpctl" "$@"; }
mac() { ip netns exec "$1" cat /sys/class/net/eth0/address; }
# echo SRC-NS DST-NS SRC-IP DST-IP TYPE ID: an ICMP echo frame in hex.
echo_frame() {
	/usr/bin/python3 - "$(mac "$1")" "$(mac "$2")" "${@:3}" <<'PY'
import struct, sys

def csum(b):
    b += b"\0" * (len(b) % 2)
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF

src, dst, sip, dip, typ, ident = sys.argv[1:7]
mac = lambda m: bytes(int(x, 16) for x in m.split(":"))
ip = lambda a: bytes(int(x) for x in a.split("."))
icmp = struct.pack("!BBHHH", int(typ), 0, 0, int(ident), 1) + b"trace" * 8
icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 1, 0x4000, 64,
                  1, 0, ip(sip), ip(dip))
hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
print((mac(dst) + mac(src) + b"\x08\x00" + hdr + icmp).hex())
PY
}
# ICMP ids of zone 5's connections from A, as ovs-dpctl lists them.
echo_id() { dpctl dump-conntrack | sed -nE 's/^icmp,orig=\(src=10\.8\.0\.1,.*,id=([0-9]+),type=8.*zone=5$/\1/p' | head -1; }
# same_megaflows FILE: each megaflow a trace printed into FILE is a line
# of ovs-dpctl dump-flows, statistics and UFID left out; at least one.
same_megaflows() {
	dpctl dump-flows | sed -E 's/ packets:[0-9]+, bytes:[0-9]+, used:[^,]+,( flags:[^,]+,)?//' \
		>"$T/dump"
	sed -nE 's/^ *megaflow: (ufid:[^ ]+ )?//p' "$1" >"$T/megaflows"
	[ -s "$T/megaflows" ] || { echo "no megaflow in the trace"; return 1; }
	while read -r l; do
		grep -qxF -- "$l" "$T/dump" || { echo "not dumped: $l"; cat "$T/dump"; return 1; }
	done <"$T/megaflows"
}
# The IPv4 flows' counters (ARP may refresh a neighbour meanwhile) and
# the connections, to compare after the traces.
state() {
	dpctl dump-flows | grep -F 'eth_type(0x0800)' | sed -E 's/ used:[^,]+,//' | sort
	dpctl dump-conntrack | sort
}

tapdp_ns_up
check "daemon starts" tapdpd_start
check "add-dp dp0" dpctl add-dp dp0
host_add "$A" v1 10.8.0.1/24
host_add "$B" v2 10.8.0.2/24
check "add-if v1 (port 1)" dpctl add-if dp0 v1
check "add-if v2 (port 2)" dpctl add-if dp0 v2
# From 1: through ct in zone 5, recirculated to 0x1: new ones committed
# and sent on, established ones sent on. From 2: through ct, recirculated
# to 0x2: established ones (replies) back to 1, new ones dropped.
while read -r key acts; do
	check "add-flow $key" dpctl add-flow dp0 "$key" "$acts"
done <<'FLOWS'
in_port(1),eth(),eth_type(0x0806),arp() 2
in_port(2),eth(),eth_type(0x0806),arp() 1
recirc_id(0),in_port(1),eth(),eth_type(0x0800),ipv4() ct(zone=5),recirc(1)
recirc_id(1),in_port(1),ct_state(+new+trk),eth(),eth_type(0x0800),ipv4() ct(commit,zone=5),2
recirc_id(1),in_port(1),ct_state(+est+trk),eth(),eth_type(0x0800),ipv4() 2
recirc_id(0),in_port(2),eth(),eth_type(0x0800),ipv4() ct(zone=5),recirc(2)
recirc_id(2),in_port(2),ct_state(+est+trk),eth(),eth_type(0x0800),ipv4() 1
FLOWS
check "add-flow: new from 2 dropped (no actions)" dpctl add-flow dp0 \
	"recirc_id(2),in_port(2),ct_state(+new+trk),eth(),eth_type(0x0800),ipv4()" ""
check "ping 1 -> 2 through the pipeline" \
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.8.0.2
ID=$(echo_id)
check "the ping's connection is tracked in zone 5" test -n "$ID"

# An echo request of that connection: established at both ct actions.
state >"$T/before"
EST=$(echo_frame "$A" "$B" 10.8.0.1 10.8.0.2 8 "$ID")
ctl trace v1 "$EST" >"$T/est" 2>&1
check "trace (established): the megaflows are those ovs-dpctl dump-flows shows" \
	same_megaflows "$T/est"
check_out "... first the one of recirc_id(0), its ct and recirculation" \
	"^megaflow: recirc_id\(0\),in_port\(1\),eth\(\),eth_type\(0x0800\), actions:ct\(zone=5\),recirc\(0x1\)$" \
	cat "$T/est"
check_out "... ct gives +est+trk in zone 5" \
	"^  conntrack: ct_state\(\+est\+trk\) zone 5 mark 0$" cat "$T/est"
check_out "... after the recirculation, the +est+trk megaflow" \
	"^  megaflow: recirc_id\(0x1\),in_port\(1\),ct_state\(\+est\+trk\),eth\(\),eth_type\(0x0800\), actions:2$" \
	cat "$T/est"
check_out "... and out by port 2" "^    out by port 2 \(v2\), 82 bytes$" cat "$T/est"
check_out "... two megaflows, in that order" "^2$" \
	eval 'grep -c "megaflow:" "$T/est"'
check_out "... the key extracted first, exact" \
	"^key: recirc_id\(0\),.*in_port\(1\),.*ct_zone\(0\).*ipv4\(src=10\.8\.0\.1,dst=10\.8\.0\.2,proto=1,tos=0,ttl=64,frag=no\),icmp\(type=8,code=0\)$" \
	cat "$T/est"
check_out "... the masks probed" "^\(masks probed: [1-9]\)$" cat "$T/est"

# Another id: a connection ct would start, committed by the +new+trk flow.
NEWF=$(echo_frame "$A" "$B" 10.8.0.1 10.8.0.2 8 $((ID ^ 0x5a5a)))
ctl trace dp0 1 "$NEWF" >"$T/new" 2>&1
check "trace (new, by datapath and port number): megaflows as dumped" \
	same_megaflows "$T/new"
check_out "... +new+trk, and the commit" \
	"^  megaflow: recirc_id\(0x1\),in_port\(1\),ct_state\(\+new\+trk\),eth\(\),eth_type\(0x0800\), actions:ct\(commit,zone=5\),2$" \
	cat "$T/new"
check_out "... its ct(commit) says +new+trk too" \
	"^    conntrack: ct_state\(\+new\+trk\) zone 5 mark 0$" cat "$T/new"

# The reply of the established connection, from 2: +est+rpl, back to 1.
RPL=$(echo_frame "$B" "$A" 10.8.0.2 10.8.0.1 0 "$ID")
ctl trace v2 "$RPL" >"$T/rpl" 2>&1
check "trace (reply): megaflows as dumped" same_megaflows "$T/rpl"
check_out "... +est+rpl+trk" "conntrack: ct_state\(\+est\+rpl\+trk\) zone 5" cat "$T/rpl"
check_out "... and out by port 1" "^    out by port 1 \(v1\), 82 bytes$" cat "$T/rpl"

# A new one from 2: the flow without actions drops it.
ctl trace v2 "$(echo_frame "$B" "$A" 10.8.0.2 10.8.0.1 8 4242)" >"$T/drop" 2>&1
check "trace (new from 2): megaflows as dumped" same_megaflows "$T/drop"
check_out "... the megaflow without actions" \
	"^  megaflow: recirc_id\(0x2\),in_port\(2\),ct_state\(\+new\+trk\),eth\(\),eth_type\(0x0800\), actions:drop$" \
	cat "$T/drop"
check_out "... dropped as the kernel would count it" \
	"^    dropped: OVS_DROP_LAST_ACTION$" cat "$T/drop"

# A frame no flow matches (an unknown EtherType): a miss, and with no
# upcall pid (ovs-dpctl's datapath has none) a drop.
ctl trace v1 "$(mac "$B" | tr -d :)$(mac "$A" | tr -d :)88b5$(printf '%092d' 0)" >"$T/miss" 2>&1
check_out "trace (no flow): the miss and where its upcall goes" \
	"^no megaflow \(masks probed: [1-9]\): upcall to portid 0$" cat "$T/miss"
check_out "... dropped: no pid" "^  dropped: NOT_SPECIFIED$" \
	eval 'grep -v "^key" "$T/miss"'

check "the traces changed no flow counter and no connection" \
	eval 'state >"$T/after"; diff "$T/before" "$T/after"'

# --json: a packet a line, its steps with the same states.
ctl --json trace v1 "$EST" >"$T/est.json"
check_out "--json: the steps and the ct state" "^ok$" /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
kinds = [s["step"] for s in d["steps"]]
ct = [s["ct_state"] for s in d["steps"] if s["step"] == "ct"]
out = [s["port"] for s in d["steps"] if s["step"] == "output"]
print("ok" if kinds[:3] == ["key", "megaflow", "action"] and
      ct == ["ct_state(+est+trk)"] and out == ["v2"] and
      d["in_port"] == "v1" and not d["truncated"] else d)' "$T/est.json"

# From a pcapng file of tapdpctl capture: each packet in turn.
ctl capture v1 -w "$T/v1.pcapng" --count 2 --timeout 20 >/dev/null 2>"$T/cap.err" &
CAP=$!
wait_until 10 grep -q following "$T/cap.err"
ip netns exec "$A" ping -c 1 -W 2 10.8.0.2 >/dev/null
check "capture -w of one ping on v1 (request in, reply out)" \
	wait_until 10 dead "$CAP"
ctl trace v1 --pcap "$T/v1.pcapng" >"$T/pcapng" 2>&1
check_out "trace --pcap (pcapng): both packets" "^packet 1: .*packet 2: " \
	eval 'tr "\n" " " <"$T/pcapng"'
check_out "... the request: established" \
	"^  conntrack: ct_state\(\+est\+trk\) zone 5" cat "$T/pcapng"

check_out "trace of a port that is not there: exit status 1" "^1$" \
	eval 'ctl trace nosuch "$EST" >/dev/null 2>&1; echo $?'
check_out "trace of bad hex: exit status 1" "^1$" \
	eval 'ctl trace v1 abc >/dev/null 2>&1; echo $?'
check_out "trace of a runt: the kernel's ERANGE for a short attribute" \
	"Numerical result out of range" \
	ctl trace v1 0102030405
check_out "trace without a frame: usage, exit status 2" "^2$" \
	eval 'ctl trace v1 >/dev/null 2>&1; echo $?'
check_out "trace without CAP_NET_ADMIN: refused" "Operation not permitted" \
	in_ns setpriv --inh-caps=-all --bounding-set=-net_admin -- \
	"$BUILD/tapdpctl" trace v1 "$EST"
check "the daemon is still there" alive "$(cat "$PIDF")"

# 2. ovs-vswitchd's megaflows, IPv4 and IPv6.
for h in $HOSTS; do ip netns del "$h"; done
check "del-dp dp0" dpctl del-dp dp0
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" vswitchd_start
$VSCTL add-br br0
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "k$i" "10.8.1.$i/24"
	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=0
	ip netns exec "$h" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0
	ip netns exec "$h" ip addr add "fd00:8::$i/64" dev eth0 nodad
	$VSCTL add-port br0 "k$i" -- set interface "k$i" ofport_request=$i
done
check "ovs-ofctl add-flows: a firewall, new connections from port 1 only" \
	ovs-ofctl add-flows br0 - <<'OF'
table=0,priority=100,arp,actions=NORMAL
table=0,priority=100,icmp6,icmp_type=135,actions=NORMAL
table=0,priority=100,icmp6,icmp_type=136,actions=NORMAL
table=0,priority=10,ip,actions=ct(table=1,zone=7)
table=0,priority=10,ipv6,actions=ct(table=1,zone=7)
table=1,priority=10,ip,ct_state=+trk+new,in_port=1,actions=ct(commit,zone=7),NORMAL
table=1,priority=10,ipv6,ct_state=+trk+new,in_port=1,actions=ct(commit,zone=7),NORMAL
table=1,priority=10,ct_state=+trk+est,actions=NORMAL
table=1,priority=0,actions=drop
OF
ip netns exec "$A" timeout 30 tcpdump -n -i eth0 -c 4 -w "$T/a.pcap" \
	'(icmp and icmp[icmptype] == 8) or (icmp6 and ip6[40] == 128)' \
	2>"$T/tcpdump.err" &
TCPDUMP=$!
wait_until 10 grep -q "listening on" "$T/tcpdump.err"
# Two each: the second installs the megaflow of established requests.
check "ping 1 -> 2 through the firewall" \
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.8.1.2
check "ping6 1 -> 2 through the firewall" \
	ip netns exec "$A" ping -6 -c 2 -i 0.2 -W 2 fd00:8::2
check "tcpdump wrote the 4 echo requests" wait_until 10 dead "$TCPDUMP"
ctl trace k1 --pcap "$T/a.pcap" >"$T/vs" 2>&1
check "trace --pcap (pcap): the megaflows are those ovs-dpctl dump-flows shows" \
	same_megaflows "$T/vs"
check_out "... with ovs-vswitchd's UFIDs" \
	"^megaflow: ufid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} recirc_id\(0\),.*eth_type\(0x0800\)" \
	cat "$T/vs"
check_out "... IPv4 established in zone 7" \
	"^packet 1: .*conntrack: ct_state\(\+est\+trk\) zone 7 .*packet 2: " \
	eval 'tr "\n" " " <"$T/vs"'
check_out "... IPv6 established in zone 7" \
	"packet 4: .*eth_type\(0x86dd\).*conntrack: ct_state\(\+est\+trk\) zone 7 " \
	eval 'tr "\n" " " <"$T/vs"'
check_out "... each through the +est+trk megaflow" "^4$" \
	eval 'grep -cE "^  megaflow: ufid:[^ ]+ recirc_id\(0x[0-9a-f]+\),.*ct_state\([^)]*\+est[^)]*\)" "$T/vs"'
check_out "... and out by k2's port" "^4$" \
	eval 'grep -cE "^    out by port [0-9]+ \(k2\)" "$T/vs"'
check_buffers_free "every pooled buffer back in its pool after the traffic"
check_vswitchd_log

finish
