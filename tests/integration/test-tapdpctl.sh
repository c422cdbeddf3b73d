#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdpctl against a live daemon with traffic: status (human and --json,
# the JSON checked against docs/tapdpctl-status.schema.json and against
# what ovs-dpctl says of the same datapath), its clients coming and going,
# flows, capture and nlmon (its files decoded by tshark with
# tools/wireshark-ovs.lua), and the errors of a missing daemon and a
# wrong command. drops is checked reason by reason in
# tests/ovs-dpctl-py/drop-reasons.sh.
. "$(dirname "$0")/../lib.sh"

A=ctla$$
B=ctlb$$
C=ctlc$$
HOSTS="$A $B $C"
trap ovs_cleanup EXIT
ctl() { in_ns "$BUILD/tapdpctl" "$@"; }
# json EXPR: EXPR of the status document s (Python), printed.
json() { ctl --json status >"$T/status.json" && json_read "$1"; }
# json_read EXPR: EXPR of the status document last read.
json_read() {
	/usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$T/status.json" "$1"
}

tapdp_ns_up
check "daemon starts" tapdpd_start
check "add-dp dp0" dpctl add-dp dp0
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "v$i" "10.9.0.$i/24"
	check "add-if v$i (port $i)" dpctl add-if dp0 "v$i"
done
# Every host reaches every other: ARP and IPv4 flooded between the three
# ports, IPv4 from port 1 through the tracker.
for p in 1 2 3; do
	out=$(printf '%s\n' 1 2 3 | grep -vx "$p" | paste -sd,)
	check "add-flow ARP from $p" dpctl add-flow dp0 \
		"in_port($p),eth(),eth_type(0x0806),arp()" "$out"
	if [ "$p" = 1 ]; then
		check "add-flow IPv4 from 1 through ct" dpctl add-flow dp0 \
			"in_port(1),eth(),eth_type(0x0800),ipv4()" "ct(commit),$out"
	else
		check "add-flow IPv4 from $p" dpctl add-flow dp0 \
			"in_port($p),eth(),eth_type(0x0800),ipv4()" "$out"
	fi
done
check "ping 1 -> 2" ip netns exec "$A" ping -c 3 -i 0.2 -W 2 10.9.0.2
check "ping 1 -> 3" ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.9.0.3

# The human form.
check_out "status: the daemon, its version and release" \
	"^tapdpd [0-9.]+, pid $(cat "$PIDF"), up 0:[0-9]{2}:[0-9]{2}, answering as Linux $(profile_of "$(uname -r)")$" \
	ctl status
check_out "status: the datapath and its 6 flows" \
	"^datapath dp0: hit [1-9][0-9]* missed 0 lost 0, 6 flows, [1-9] masks$" \
	ctl status
# (Whether the fast path serves it, when the fast path is on.)
served=
[ "${TAPDP_FAST_PATH:-}" = none ] || served=", fast path"
check_out "status: port 3 with the frames it sent" \
	"^  port 3: v3 \(netdev\) rx [1-9][0-9]* tx [1-9][0-9]* dropped 0/0$served$" \
	ctl status
check_out "status: the flow table's entries" "^  flows +dp0 +6$" ctl status
check_out "status: the tracker's connections" "^  connections +- +[1-9]" \
	ctl status
check_out "status: a receive thread per port" "^  [0-9]+ +rx0:v3 +[0-9]+$" \
	ctl status

# The JSON form: valid by the schema, and what ovs-dpctl reads the same.
ctl --json status >"$T/status.json"
check "status --json: one line" test "$(wc -l <"$T/status.json")" -eq 1
check "status --json: valid by docs/tapdpctl-status.schema.json" \
	/usr/bin/python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
	"$T/status.json" "$TOP/docs/tapdpctl-status.schema.json"
check "the schema refuses a document missing a field (it can fail)" \
	/usr/bin/python3 -c 'import json, sys, jsonschema
d = json.load(open(sys.argv[1])); del d["datapaths"][0]["ports"][0]["port_no"]
try:
    jsonschema.validate(d, json.load(open(sys.argv[2])))
except jsonschema.ValidationError:
    sys.exit(0)
sys.exit(1)' "$T/status.json" "$TOP/docs/tapdpctl-status.schema.json"
check_out "--json: 4 ports (the local one and 3)" "^\[0, 1, 2, 3\]$" \
	json '[p["port_no"] for p in s["datapaths"][0]["ports"]]'
# ovs-dpctl's figures and tapdpctl's, read while they held still (an ARP
# probe may come between two reads): those of ovs-dpctl before and after
# the status, when they are the same.
stable_status() {
	local before after
	for _ in 1 2 3 4 5; do
		before=$(dpctl show -s dp0)
		ctl --json status >"$T/status.json" || return 1
		after=$(dpctl show -s dp0)
		[ "$before" = "$after" ] && break
	done
	show=$after
}
stable_status
hit=$(sed -nE 's/.*lookups: hit:([0-9]+) missed.*/\1/p' <<<"$show")
rx3=$(grep -A1 'port 3: v3' <<<"$show" | sed -nE 's/.*RX packets:([0-9]+).*/\1/p')
check_out "--json: hits as ovs-dpctl show counts them ($hit)" "^$hit$" \
	json_read 's["datapaths"][0]["hit"]'
check_out "--json: port 3's RX packets as ovs-dpctl show -s ($rx3)" "^$rx3$" \
	json_read 's["datapaths"][0]["ports"][3]["rx_packets"]'
check_out "--json: the flow table's entries as dump-flows ($(dpctl dump-flows dp0 | wc -l))" \
	"^$(dpctl dump-flows dp0 | wc -l)$" \
	json '[t["entries"] for t in s["memory"]["tables"] if t["name"] == "flows"][0]'
up1=$(json 's["uptime_ms"]')
check "--json: uptime counts" wait_until 5 \
	eval '[ "$(json "s[\"uptime_ms\"]")" -gt "$up1" ]'
check_out "--json: resident and heap memory" "^True$" \
	json 's["memory"]["resident"] > 1000000 and s["memory"]["heap"] > 0'
check_buffers_free "--json: the pooled buffers, each back in its pool"
fsize=$(json '[b["size"] for b in s["memory"]["buffers"] if b["name"] == "frame"][0]')
check_out "status: the frame buffers, their size ($fsize), how many made and free" \
	"^  frame +$fsize +[1-9][0-9]* +[0-9]+$" ctl status

# Clients: a follower of the drop events shows with its pid, command and
# group, and goes when it exits; tapdpctl sees itself too.
# (ip netns exec becomes tapdpctl: $! is its pid.)
ip netns exec "$NS" "$BUILD/tapdpctl" drops --follow --timeout 60 \
	>/dev/null 2>"$T/follow.err" &
FPID=$!
check "a follower joins the drop events" \
	wait_until 10 grep -q following "$T/follow.err"
check_out "clients: the follower, its command, its group" \
	"^\[\['tapdpctl', 'generic', \[16391\]\]\]$" \
	json "[[c['command'], c['protocol'], c['groups']] for c in s['clients'] if c['pid'] == $FPID]"
check_out "clients: tapdpctl status itself, bound, no group" "^\[\[True, \[\]\]\]$" \
	json "[[c['portid'] > 0, c['groups']] for c in s['clients'] if c['command'] == 'tapdpctl' and c['pid'] != $FPID]"
check_out "status: the follower in the human form" \
	"^  $FPID +0 +tapdpctl +generic +[0-9]+ +0/[0-9]+ +16391$" ctl status
kill "$FPID"
wait "$FPID" 2>/dev/null
check "clients: the follower gone once it exits" wait_until 5 \
	eval '[ "$(json "len([c for c in s[\"clients\"] if c[\"pid\"] == $FPID])")" = 0 ]'
check_out "clients: only the asker's socket left" "^1$" json 'len(s["clients"])'

# flows: every key as ovs-dpctl writes it (the traffic's flows, and on a
# datapath of their own, where no other flow matches them, one of each
# kind: ARP, IPv4 and IPv6 with partial masks, metadata, ct, VLAN
# with an encapsulated key, MPLS, TCP flags exact and masked, ND, ct
# labels and tuples, tunnels over IPv4 and IPv6 with geneve options and
# VXLAN's group policy).
check "add-dp keys" dpctl add-dp keys
while read -r k; do
	check "add-flow $k" dpctl add-flow keys "$k" 3
done <<'KEYS'
in_port(1),eth(src=00:01:02:03:04:05,dst=ff:ff:ff:ff:ff:ff),eth_type(0x0806),arp(sip=10.0.0.1,tip=10.0.0.2,op=1,sha=00:01:02:03:04:05,tha=00:00:00:00:00:00)
recirc_id(0x5),dp_hash(0x12/0xff),skb_mark(0x1/0x3),in_port(2),eth(),eth_type(0x86dd),ipv6(src=2001:db8::1,dst=2001:db8::/ffff:ffff::,label=0x12345/0xfffff,proto=17,tclass=0x10,hlimit=255,frag=first),udp(src=53)
ct_state(+trk-new+est),ct_zone(5),ct_mark(0x10/0xf0),in_port(1),eth(),eth_type(0x0800),ipv4(proto=1,frag=no),icmp(type=8,code=0)
in_port(1),eth(),eth_type(0x8100),vlan(vid=10,pcp=3),encap(eth_type(0x0800),ipv4(src=1.2.3.4,frag=no))
in_port(2),eth(),eth_type(0x8847),mpls(label=100,tc=3,ttl=64,bos=1)
in_port(2),eth(),eth_type(0x0800),ipv4(proto=6,frag=no),tcp(),tcp_flags(syn|ack)
in_port(2),eth(),eth_type(0x0800),ipv4(proto=6,frag=no),tcp(),tcp_flags(+syn-ack)
skb_priority(0x7),in_port(2),eth(src=02:00:00:00:00:00/ff:00:00:00:00:00),eth_type(0x0800),ipv4(src=9.9.9.9,tos=0x20/0xfc,ttl=3,frag=later)
in_port(1),eth(),eth_type(0x86dd),ipv6(proto=58,frag=no),icmpv6(type=135,code=0),nd(target=fe80::1,sll=00:11:22:33:44:55)
in_port(3),eth(),eth_type(0x0800),ipv4(dst=10.9.0.0/255.255.0.0,proto=17,frag=no),udp(dst=4789/0xff00)
ct_label(0x1234/0xffff),ct_tuple4(src=1.1.1.1,dst=2.2.2.2,proto=6,tp_src=5,tp_dst=80),ct_state(+trk+new),in_port(3),eth(),eth_type(0x0800),ipv4(frag=no)
tunnel(tun_id=0x5,src=1.1.1.1,dst=2.2.2.2,ttl=64,tp_dst=4789,flags(-df+csum+key)),in_port(2),eth(),eth_type(0x0800),ipv4(frag=no)
tunnel(tun_id=0x0/0xff,dst=2.2.2.3,ttl=3,flags(+key)),in_port(1),eth(),eth_type(0x0806),arp()
tunnel(ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,tos=0x10/0xfc,ttl=64,geneve({class=0x102,type=0x80,len=4,0xa/0xf}),flags(-df-csum)),in_port(1),eth(),eth_type(0x86dd),ipv6(frag=no)
tunnel(tun_id=0x7,src=1.1.1.1,dst=2.2.2.2,ttl=64,vxlan(gbp(id=10,flags=0x1)),flags(+key)),in_port(3),eth(),eth_type(0x0800),ipv4(proto=17,frag=no),udp()
tunnel(src=1.1.1.1,dst=2.2.2.2,ttl=64,geneve({class=0xffff,type=0x1,len=8,0x1122334455667788}{class=0x1,type=0x2,len=0}),flags(df)),in_port(2),eth(),eth_type(0x0800),ipv4(frag=no)
KEYS
for dp in dp0 keys; do
	dpctl dump-flows $dp | sed 's/, packets:.*//' | sort
done >"$T/dpctl-keys"
for dp in dp0 keys; do
	ctl flows $dp | grep '^  [^m]' |
		sed -E 's/^  [^ ]+ //; s/ packets:.*//' | sort
done >"$T/ctl-keys"
check_out "flows: the 6 and 16 flows" "^22 " wc -l "$T/ctl-keys"
check "flows: every key as ovs-dpctl dump-flows writes it" \
	diff "$T/dpctl-keys" "$T/ctl-keys"
masks=$(dpctl show keys | sed -nE 's/.*masks: hit:[0-9]+ total:([0-9]+).*/\1/p')
check_out "flows: the mask table's $masks masks, as ovs-dpctl show counts them" \
	"^datapath keys: 16 flows, $masks masks," ctl flows keys
check_out "flows: a mask names the fields it matches" \
	"^  mask [0-9]+: 1 flows in_port,eth_type,ipv4\(dst,proto,frag\),udp\(dst\)$" \
	ctl flows keys
check_out "flows: a flow never hit is idle:never" \
	"in_port\(2\),eth\(\),eth_type\(0x8847\).* packets:0 bytes:0 idle:never mask:[0-9]+$" \
	ctl flows keys
check "del-dp keys" dpctl del-dp keys
# Rates: pings every 100 ms over the two dumps, a second apart. The idle
# flow matches an ethertype no host sends (an ARP flow would not do: a
# host's neighbour table probes when it likes).
IDLE_KEY="in_port(3),eth(),eth_type(0x88b5)"
check "add-flow an idle flow" dpctl add-flow dp0 "$IDLE_KEY" ""
ip netns exec "$A" ping -c 30 -i 0.1 -W 1 10.9.0.2 >/dev/null &
PING=$!
ctl --json flows --rate 1 dp0 >"$T/flows.json"
wait "$PING"
check_out "flows --rate: the pings' flow at about 10 packets/s" "^ok$" \
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [f for f in d["flows"] if f["key"].startswith("in_port(1),eth(),eth_type(0x0800)")]
print("ok" if len(r) == 1 and 5 <= r[0]["packets_per_s"] <= 15 and r[0]["idle_ms"] < 1000 else r)' "$T/flows.json"
check_out "flows --rate: an idle flow at 0/s" "^ok$" \
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [f for f in d["flows"] if f["key"] == sys.argv[2]]
print("ok" if len(r) == 1 and r[0]["packets_per_s"] == 0 else r)' "$T/flows.json" \
	"$IDLE_KEY"
check "del-flow the idle flow" dpctl del-flow dp0 "$IDLE_KEY"
check_out "flows: no such datapath: exit status 1" "^1$" \
	eval 'ctl flows nosuch >/dev/null 2>&1; echo $?'

# capture: every step of the pings as pcapng, which tcpdump and tshark
# read (each packet's port, step and flow in its comment); one port's;
# the drops; not without CAP_NET_ADMIN.
follow_bg() { # FILE-PREFIX COMMAND ARGS...: tapdpctl following a group in
	       # the background, its pid in BGPID
	local out=$1
	shift
	ip netns exec "$NS" "$BUILD/tapdpctl" "$@" \
		>"$T/$out.out" 2>"$T/$out.err" &
	BGPID=$!
	wait_until 10 grep -q following "$T/$out.err"
}
# Only the pings: no ARP in between.
mac() { ip netns exec "$1" cat /sys/class/net/eth0/address; }
for pair in "$A 10.9.0.2 $B" "$B 10.9.0.1 $A" "$A 10.9.0.3 $C" "$C 10.9.0.1 $A"; do
	set -- $pair
	ip netns exec "$1" ip neigh replace "$2" lladdr "$(mac "$3")" \
		dev eth0 nud permanent
done
check "capture all -w: it starts" \
	follow_bg all capture all -w "$T/all.pcapng" --count 12 --timeout 20
check "... 2 pings from host 1 to 2" \
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.9.0.2
check "... and it stops after 12 packets" wait_until 10 dead "$BGPID"
# Each in by one port and out by the two others.
check_out "tcpdump reads the 12: each request and reply 3 times (in, out, out)" \
	"^6 6$" eval 'tcpdump -nr "$T/all.pcapng" 2>/dev/null |
		awk "/echo request/ { q++ } /echo reply/ { r++ } END { print q, r }"'
check_out "tshark reads each packet's comment and interface" \
	"^dp0 1 v1 rx len=98,dp0:v1$" eval 'tshark -r "$T/all.pcapng" -Y icmp -T fields \
		-E separator=, -e frame.comment -e frame.interface_name 2>/dev/null | head -1'
check_out "... a request out by port 2 after in by port 1, with its flow" \
	"^dp0 2 v2 tx len=98,dp0:v2$" eval 'tshark -r "$T/all.pcapng" -Y icmp -T fields \
		-E separator=, -e frame.comment -e frame.interface_name 2>/dev/null | sed -n 2p'
check "capture v3 (text): it starts" follow_bg v3 capture v3 --count 2 --timeout 20
check "... a ping from host 1 to 3" ip netns exec "$A" ping -c 1 -W 2 10.9.0.3
check "... and it stops after 2 packets" wait_until 10 dead "$BGPID"
check_out "... the request out by v3, then the reply in" \
	"^[0-9]+\.[0-9]{6} dp0 3 v3 tx len=98 [0-9]+\.[0-9]{6} dp0 3 v3 rx len=98 $" \
	eval 'tr "\n" " " <"$T/v3.out"'
# A frame no flow matches, whose upcall has nobody to go to: dropped.
check "capture drops: it starts" follow_bg drops capture drops --count 1 --timeout 20
ip netns exec "$A" /usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
s.send(b"\xff" * 6 + b"\x02" * 6 + b"\x88\xb5" + bytes(46))'
check "... and it stops after the drop" wait_until 10 dead "$BGPID"
check_out "... the drop, its port and reason" "^[0-9.]+ dp0 1 v1 drop:NOT_SPECIFIED len=60$" \
	cat "$T/drops.out"
check_out "capture without CAP_NET_ADMIN: refused" \
	"joining tapdp_ctl capture: Operation not permitted" \
	in_ns setpriv --inh-caps=-all --bounding-set=-net_admin -- \
	"$BUILD/tapdpctl" capture all --count 1 --timeout 1
check_out "capture of a port that is not there: exit status 1" "^1$" \
	eval 'ctl capture nosuch >/dev/null 2>&1; echo $?'

# nlmon: the netlink datagrams between clients and the daemon, as pcapng
# that tshark decodes with tools/wireshark-ovs.lua (an ovs_flow NEW with
# its key, mask, actions and UFID; the daemon's answer), and as lines;
# nlmon's own traffic left out; not without CAP_NET_ADMIN.
ovs_tshark() { tshark -X lua_script:"$TOP/tools/wireshark-ovs.lua" "$@" 2>/dev/null; }
NEWREQ='ovs.cmd_name == "NEW" && netlink.hdr_flags.request == 1 && ovs.key.in_port == 2'
check "nlmon -w: it starts" follow_bg nl nlmon -w "$T/nl.pcapng"
check "... ovs-dpctl add-flow with a UFID, ct and output" dpctl add-flow dp0 \
	"ufid:5b4ae0a6-7a3b-4b2c-9d1e-0123456789ab,in_port(2),eth(),eth_type(0x86dd),ipv6()" \
	"ct(commit,zone=7),1"
check "... ovs-dpctl dump-flows" dpctl dump-flows dp0
check "... tshark finds the flow's NEW in the file" wait_until 10 eval \
	'ovs_tshark -r "$T/nl.pcapng" -Y "$NEWREQ" | grep -q .'
kill "$BGPID"
wait "$BGPID" 2>/dev/null
UFID=$(ovs_tshark -r "$T/nl.pcapng" -Y "$NEWREQ" -T fields -e ovs.ufid)
check_out "tshark: the NEW request, from ovs-dpctl, its family named" \
	"^ovs_flow,NEW,ovs-dpctl\[[0-9]+\] portid [0-9]+ -> ovs_flow cmd 1 flags REQUEST\|0x400 seq [0-9]+ len=[0-9]+$" \
	eval 'ovs_tshark -r "$T/nl.pcapng" -Y "$NEWREQ" \
		-T fields -E separator=, -e ovs.family -e ovs.cmd_name -e frame.comment'
check_out "... its key: in_port, Ethernet, Ethernet type, IPv6" \
	"^ +OVS_KEY_ATTR_IN_PORT: 2 +OVS_KEY_ATTR_ETHERNET: src=00:00:00:00:00:00,dst=00:00:00:00:00:00 +OVS_KEY_ATTR_ETHERTYPE: 0x86dd +OVS_KEY_ATTR_IPV6: src=::,dst=::,label=0,proto=0,tclass=0,hlimit=0,frag=0 $" \
	eval 'ovs_tshark -r "$T/nl.pcapng" -Y "$NEWREQ" -V | sed -n "/OVS_FLOW_ATTR_KEY/,/OVS_FLOW_ATTR_MASK/p" | grep OVS_KEY | tr "\n" " "'
check_out "... its actions: ct(commit, zone 7), then output to 1" \
	"^OVS_ACTION_ATTR_CT OVS_CT_ATTR_COMMIT OVS_CT_ATTR_ZONE: 7 OVS_ACTION_ATTR_OUTPUT: 1 $" \
	eval 'ovs_tshark -r "$T/nl.pcapng" -Y "$NEWREQ" -V |
		sed -n "/OVS_FLOW_ATTR_ACTIONS/,/OVS_FLOW_ATTR_UFID/p" | grep -E "OVS_(CT|ACTION)_ATTR" | sed "s/^ *//" | tr "\n" " "'
check_out "... the dump-flows request, DUMP with ACK and ECHO" "^1$" \
	eval 'ovs_tshark -r "$T/nl.pcapng" -Y "ovs.family == \"ovs_flow\" && ovs.cmd_name == \"GET\" && netlink.hdr_flags.request == 1 && netlink.hdr_flags.root == 1 && netlink.hdr_flags.match == 1" | wc -l'
check_out "... the daemon's answer holds the flow by its UFID, as GET, MULTI" \
	"^ovs_flow,GET,1$" eval 'ovs_tshark -r "$T/nl.pcapng" -Y "ovs.ufid == $UFID && netlink.hdr_flags.multi == 1" \
		-T fields -E separator=, -E occurrence=f -e ovs.family -e ovs.cmd_name -e netlink.hdr_flags.multi'
check_out "... and its end, NLMSG_DONE to the same seq" "^1$" \
	eval 'set -- $(ovs_tshark -r "$T/nl.pcapng" -Y "ovs.ufid == $UFID && netlink.hdr_flags.multi == 1" \
			-T fields -E occurrence=f -e netlink.hdr_seq -e netlink.hdr_pid)
		ovs_tshark -r "$T/nl.pcapng" -Y "netlink.hdr_type == 3 && netlink.hdr_seq == $1 && netlink.hdr_pid == $2" | wc -l'
check_out "... nlmon's own datagrams left out" "^0$" eval \
	'ovs_tshark -r "$T/nl.pcapng" -T fields -e frame.comment | grep -c "^tapdpctl\[$BGPID\]"'
check "nlmon (text): it starts" follow_bg nltext nlmon --count 4 --timeout 20
check "... ovs-dpctl show" dpctl show dp0
check "... and it stops after 4 datagrams" wait_until 10 dead "$BGPID"
check_out "... the first: ovs-dpctl asks nlctrl for a family" \
	"^[0-9]+\.[0-9]{6} ovs-dpctl\[[0-9]+\] portid [0-9]+ -> nlctrl cmd 3 flags REQUEST seq [0-9]+ len=[0-9]+$" \
	head -1 "$T/nltext.out"
check_out "... the second: the daemon's answer" \
	"^[0-9]+\.[0-9]{6} ovs-dpctl\[[0-9]+\] portid [0-9]+ <- nlctrl cmd 1 flags 0x0 seq [0-9]+ len=[0-9]+$" \
	sed -n 2p "$T/nltext.out"
check_out "nlmon without CAP_NET_ADMIN: refused" \
	"joining tapdp_ctl nlmon: Operation not permitted" \
	in_ns setpriv --inh-caps=-all --bounding-set=-net_admin -- \
	"$BUILD/tapdpctl" nlmon --count 1 --timeout 1

# Many ports: 300 more, each with its receive threads, so the threads
# and ports take several dump parts.
check "add-dp dp1" dpctl add-dp dp1
heap0=$(json 's["memory"]["heap"]')
for i in $(seq 1 300); do
	echo "add-if dp1 m$i,type=internal"
done | sed 's/^/ovs-dpctl /' | in_ns "$BUILD/tapdp-run" -- sh -e >/dev/null
check_out "--json: dp1's 301 ports" "^301$" \
	json '[len(d["ports"]) for d in s["datapaths"] if d["name"] == "dp1"][0]'
check_out "--json: over 301 threads, m1's, m150's and m300's among them" \
	"^True$" json 'len(s["threads"]) > 301 and all(any(t["name"] == "rx0:m%d" % i for t in s["threads"]) for i in (1, 150, 300))'
# A receive thread takes its frame buffer (64 KiB) from the shared pool
# for each burst only: asleep, it holds none. Each allocates its
# exact-match stage (256 KiB, resident as far as traffic fills it) and
# mask cache (32 KiB); with the frame buffer a thread's share was 359 KiB.
heap1=$(json_read 's["memory"]["heap"]')
nrx=$(json_read 'len([t for t in s["threads"] if t["name"].startswith("rx") and ":m" in t["name"]])')
check "300 ports' $nrx threads hold no frame buffer: heap +$(((heap1 - heap0) / 1024)) KiB, under 320 KiB a thread" \
	test "$nrx" -ge 300 -a $((heap1 - heap0)) -lt $((nrx * 320 * 1024))
check_out "--json: still valid by the schema" "^ok$" \
	eval '/usr/bin/python3 -c "import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
print(\"ok\")" "$T/status.json" "$TOP/docs/tapdpctl-status.schema.json"'
# Each of those threads allocated its buffer: the allocator's arenas stay
# at 2 per CPU, not one per thread (glibc's default, to 8 per CPU).
if ldd "$BUILD/tapdpd" | grep -q libasan; then
	echo "(sanitizer build: its allocator has no arenas to count)"
else
	heaps=$(malloc_heaps "$(cat "$PIDF")")
	cpus=$(getconf _NPROCESSORS_ONLN)
	check "300 ports' threads share at most $((2 * cpus)) arenas ($heaps)" \
		test "$heaps" -ge 1 -a "$heaps" -le $((2 * cpus))
fi
check "del-dp dp1" dpctl del-dp dp1
check_out "--json: dp1 and its threads gone" "^\[\] 0$" \
	json '"%s %d" % ([d for d in s["datapaths"] if d["name"] == "dp1"], len([t for t in s["threads"] if t["name"].startswith("rx0:m")]))'

# Completion (tools/tapdpctl.bash): COMPREPLY for a command line.
complete_of() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_tapdpctl; echo "${COMPREPLY[*]}"' _ "$TOP/tools/tapdpctl.bash" "$@"
}
check_out "completion: the commands" "^status$" complete_of tapdpctl st
check_out "completion: after the options" "^drops$" \
	complete_of tapdpctl --json --socket /x dr
check_out "completion: a command's options" "^--follow$" \
	complete_of tapdpctl drops --fo
check_out "completion: flows' option" "^--rate$" \
	complete_of tapdpctl flows --r
check_out "completion: capture's targets" "^all$" \
	complete_of tapdpctl capture al
check_out "completion: none where a number goes" "^$" \
	complete_of tapdpctl drops --count ""

# Through tapdp-run as well as by itself; errors as a tool gives them.
check_out "under tapdp-run too" "^datapath dp0:" \
	in_ns "$BUILD/tapdp-run" -- "$BUILD/tapdpctl" status
check_out "an unknown command: exit status 2" "^2$" \
	eval 'ctl frobnicate >/dev/null 2>&1; echo $?'
check_out "... with the usage" "unknown command frobnicate" \
	eval 'ctl frobnicate 2>&1'
check_out "status takes no argument: exit status 2" "^2$" \
	eval 'ctl status extra >/dev/null 2>&1; echo $?'
check_out "no daemon at the socket: exit status 1" "^1$" \
	eval 'TAPDP_SOCKET=$T/none.sock ctl status >/dev/null 2>&1; echo $?'
check_out "... and why" "^tapdpctl: no tapdpd serves $T/none.sock \(no family tapdp_ctl\)$" \
	eval 'TAPDP_SOCKET=$T/none.sock ctl status 2>&1'
finish
