#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel keeps datapaths per network namespace and judges CAP_NET_ADMIN
# over the namespace a request acts on. A client whose socket was opened in
# another namespace than the daemon's, be it root of another namespace (a
# rootful container) or a user in a user+network namespace of its own
# (unshare -rn, where it holds CAP_NET_ADMIN), must see none of the daemon's
# datapaths, change none, capture, trace or tap nothing of them, and count
# against its uid's connections. Root of another namespace has datapaths of
# its own there: internal ports whose devices are in that namespace,
# traffic through them, names the daemon's namespace uses too, none of the
# daemon's namespace's devices, all of it gone with the namespace, and
# made again there by a restart, never in the daemon's namespace. So has a
# user in namespaces of its own, as with the module: CAP_NET_ADMIN over
# its network namespace is judged in the user namespace that owns it. A
# route socket or a connection root opened, handed to an unprivileged
# process (or to one that left for a user namespace of its own), grants
# it nothing. And a kernel socket with a message whose length wraps
# when aligned must not hang the daemon.
. "$(dirname "$0")/../lib.sh"
OTHER=tapdpo$$ OA=tapdpa$$ OB=tapdpb$$
trap 'for n in $OTHER $OA $OB ${OTHER2:-} ${NESTED:-} ${OT:-} ${NX:-}; do
		ip netns del "$n" 2>/dev/null; done
	tapdp_cleanup' EXIT

user=nobody
as_user() { setpriv --reuid=$user --regid=nogroup --clear-groups \
	--inh-caps=-all "$@"; }
# Root of another network namespace, and a user's own namespaces.
root_elsewhere() { ip netns exec "$OTHER" "$@"; }
user_elsewhere() { as_user unshare -rn "$@"; }

# The user must reach the clients.
B=$T/bin
mkdir -p "$B"
cp "$BUILD/tapdp-run" "$BUILD/libtapdp.so" "$BUILD/tapdpctl" \
	"$BUILD/hostile-client" "$B/"
chmod -R a+rX "$B"

tapdp_ns_up
ip netns add "$OTHER"
# Its ports send nothing of their own (IPv6's router solicitations).
ip netns exec "$OTHER" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1
check "daemon starts" tapdpd_start --max-sockets-per-uid 64
check "root makes dp0" dpctl add-dp dp0
check "... with an internal port" dpctl add-if dp0 p0,type=internal
in_ns ip link add v0 type veth peer name v1
check "... and a netdev port" dpctl add-if dp0 v0
frame=ffffffffffff02020202020208060001080006040001020202020202$(printf '%056d' 0)

for who in root_elsewhere user_elsewhere; do
	ctl() { $who "$B/tapdp-run" -- ovs-dpctl "$@"; }
	check_absent "$who: dump-dps shows none of the daemon's" "dp0" \
		ctl dump-dps
	check_out "$who: show dp0: no such device" "No such device" \
		ctl show dp0
	check_out "$who: add-if to dp0: no such device" "No such device" \
		ctl add-if dp0 lo
	check_out "$who: del-dp dp0: no such device" "No such device" \
		ctl del-dp dp0
	check_out "$who: trace finds no v0 to trace" \
		"no port v0 in dp0|No such device|Operation not permitted" \
		$who "$B/tapdpctl" trace dp0 v0 "$frame"
	check_absent "$who: status names none of the daemon's" "dp0|v0|p0" \
		$who "$B/tapdpctl" status
	check_out "$who: status counts its own socket as the only client" \
		"clients: 1 sockets" $who "$B/tapdpctl" status
	# A datapath of its own namespace, if it may make one, is not the
	# daemon's namespace's.
	ctl add-dp "x$who" >/dev/null 2>&1
done
# The user's namespaces went with their processes, and with them their
# contexts; root's other namespace keeps its datapath.
check "the user's namespaces are freed with their datapaths" \
	wait_until 10 eval 'in_ns "$BUILD/tapdpctl" status |
		grep -q "namespaces: 2 served"'
# A namespace whose client lacks CAP_NET_ADMIN over it can hold nothing:
# it gets no id in the daemon's, whose link events stay its own.
ids=$(ip -n "$NS" netns list-id | wc -l)
mkdir -m 777 "$T/u"
user_elsewhere setpriv --inh-caps=-all --bounding-set=-net_admin -- \
	sh -c "'$B/tapdp-run' -- ovs-dpctl dump-dps; touch '$T/u/asked';
	sleep 3" >/dev/null 2>&1 &
check "the user's client without CAP_NET_ADMIN is served" \
	wait_until 10 test -e "$T/u/asked"
check_out "... and its namespace got no id in the daemon's" "^$ids\$" \
	eval 'ip -n "$NS" netns list-id | wc -l'
wait
# The user's capture and nlmon follow its own namespace: a frame into the
# daemon's dp0, which root's capture sees, and root's requests, are not
# the user's to see.
in_ns ip link set v0 up
in_ns ip link set v1 up
for who in user root; do
	if [ $who = user ]; then run=user_elsewhere; else run=in_ns; fi
	$run timeout 20 "$B/tapdpctl" capture all --count 1 --timeout 6 \
		>"$T/u/cap-$who" 2>&1 &
	$run timeout 20 "$B/tapdpctl" nlmon --timeout 6 \
		>"$T/u/nl-$who" 2>&1 &
done
check "the user's and root's captures and nlmons start" wait_until 10 eval \
	'[ "$(cat "$T"/u/cap-* "$T"/u/nl-* | grep -c following)" = 4 ]'
in_ns /usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("v1", 0))
s.send(b"\xff" * 6 + b"\x02" * 6 + b"\x88\xb5" + bytes(46))'
dpctl show dp0 >/dev/null
wait
check_out "root's capture saw the frame into dp0" "dp0 2 v0" cat "$T/u/cap-root"
check_out "root's nlmon saw its request" "ovs_datapath" cat "$T/u/nl-root"
check_absent "the user's capture: nothing of the daemon's" "dp0|v0" \
	cat "$T/u/cap-user"
check_absent "the user's nlmon: nothing of the daemon's" "ovs_" \
	cat "$T/u/nl-user"
check_absent "no datapath of theirs is in the daemon's namespace" "xroot|xuser" \
	dpctl dump-dps
check_out "dp0 keeps its ports" "port 2: v0" dpctl show dp0

# Root of another namespace: datapaths of its own, their ports' devices
# there, traffic through them.
octl() { root_elsewhere "$B/tapdp-run" -- ovs-dpctl "$@"; }
check "root elsewhere: its datapath is there" \
	wait_until 5 eval 'octl dump-dps | grep -q system@xroot_elsewhere'
check "root elsewhere: a datapath called dp0 too, as the daemon's" \
	octl add-dp dp0
check "... and one whose name is a %d pattern" octl add-dp 'pat%d'
check_out "... filled in there" "system@pat0" octl dump-dps
check "... whose device is there" ip -n "$OTHER" link show pat0
check "del-dp pat0 there" octl del-dp pat0
check "... its device gone" link_gone "$OTHER" pat0
for p in po1 po2 po3; do
	check "... internal port $p" octl add-if dp0 "$p,type=internal"
	check "... its device is in that namespace" ip -n "$OTHER" link show "$p"
	check "... and not in the daemon's" link_gone "$NS" "$p"
done
check_out "... a device of the daemon's namespace is never its port" \
	"Address family not supported|No such device" octl add-if dp0 v0
check "... a tunnel port of its own" \
	octl add-if dp0 vx0,type=vxlan,remote_ip=10.1.1.1
vx=$(octl show dp0 | sed -n 's/^  port [0-9]*: \([^ ]*\) (vxlan.*/\1/p')
check "... whose device ($vx) is in that namespace" ip -n "$OTHER" link show "$vx"
check "... not in the daemon's" link_gone "$NS" "$vx"
oshim() { root_elsewhere "$B/tapdp-run" -- "$@"; }
check_out "... made over rtnetlink, shown there as the driver shows its own" \
	"vxlan external" oshim ip -d link show "$vx"
check_out "... a netdev port on it, as the kernel's on a kernel device" \
	"vxlan_sys_4789 \(vxlan: packet_type=ptap" octl show dp0
check "... its MTU changed there" oshim ip link set "$vx" mtu 1400
check_out "... as the kernel shows it" "mtu 1400" ip -n "$OTHER" link show "$vx"
check "... down and up there" eval 'oshim ip link set "$vx" down &&
	oshim ip link set "$vx" up'
check_out "... so it is" "state UNKNOWN|,UP" ip -n "$OTHER" link show "$vx"
check_out "... its name is its own" "Operation not supported" \
	oshim ip link set "$vx" name vxother
check_out "... a second vxlan device on its UDP port there is refused" \
	"File exists" oshim ip link add vxb type vxlan external dstport 4789
check "... one on another port is made" \
	oshim ip link add vxb type vxlan external dstport 4790
check_out "... in that namespace" "vxb" ip -n "$OTHER" link show vxb
check "... and deleted" eval 'oshim ip link del vxb &&
	wait_until 5 link_gone "$OTHER" vxb'
# A namespace with no datapath keeps the kernel's vxlan devices (a
# lightweight tunnel's, a far end's), collect-metadata ones too.
NX=tapdpx$$
ip netns add "$NX"
check "in a namespace without a datapath, vxlan external is made" \
	ip netns exec "$NX" "$B/tapdp-run" -- ip link add vxk type vxlan \
	external dstport 4800
check_out "... by the kernel's driver" "vxlan external" \
	ip -n "$NX" -d link show vxk
ip netns del "$NX"
check "... deleted, its device with it" eval \
	'octl del-if dp0 "$vx" && wait_until 5 link_gone "$OTHER" "$vx"'
check_absent "... so dp0 there has its three ports only" "v0|vx0" octl show dp0
check_out "... the daemon's dp0 keeps its own" "port 2: v0" dpctl show dp0
check_absent "... and the daemon's namespace has no port of theirs" "po[123]" \
	dpctl show dp0
# Its ports moved on, into two namespaces of their own, and flows between
# them.
for n in "$OA" "$OB"; do
	ip netns add "$n"
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ip -n "$OTHER" link set po1 netns "$OA"
ip -n "$OTHER" link set po2 netns "$OB"
ip -n "$OA" addr add 10.9.0.1/24 dev po1
ip -n "$OA" link set po1 up
ip -n "$OB" addr add 10.9.0.2/24 dev po2
ip -n "$OB" link set po2 up
for t in "0x0800),ipv4()" "0x0806),arp()"; do
	check "flow $t 1->2" octl add-flow dp0 "in_port(1),eth(),eth_type($t" 2
	check "flow $t 2->1" octl add-flow dp0 "in_port(2),eth(),eth_type($t" 1
done
# Only the pings in the capture: no ARP in between.
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }
ip -n "$OA" neigh replace 10.9.0.2 lladdr "$(mac "$OB" po2)" dev po1 nud permanent
ip -n "$OB" neigh replace 10.9.0.1 lladdr "$(mac "$OA" po1)" dev po2 nud permanent
check_out "its ports still its own after the moves" "port 2: po2" \
	octl show dp0
# Where a port's device is, as that namespace numbers the other ones (the
# kernel's peernet2id), never as the daemon's does: po1 and po2 in theirs,
# po3 for a while in the daemon's.
vport_nsid() {
	root_elsewhere env PYTHONPATH="$TOP/tests/ovs-dpctl-py" \
		"$B/tapdp-run" -- /usr/bin/python3 \
		"$TOP/tests/integration/vport-where.py" "$1"
}
id_of() { # namespace, as the namespace $1 numbers it
	ip -n "$1" netns list-id |
		sed -n "s/^nsid \([0-9]*\) .*(iproute2 netns name: $2)\$/\1/p"
}
ip -n "$OTHER" link set po3 netns "$NS"
check "po3 moved into the daemon's namespace: the daemon follows it" \
	wait_until 10 eval 'vport_nsid po3 | grep -q " [0-9]"'
for p in "po1 $OA" "po2 $OB" "po3 $NS"; do
	set -- $p
	check_out "$1 in $2: its namespace's id for it" \
		"^[0-9]+ $(id_of "$OTHER" "$2")\$" vport_nsid "$1"
done
ip -n "$NS" link set po3 netns "$OTHER"
check "po3 back in its namespace: no id" \
	wait_until 10 eval 'vport_nsid po3 | grep -q " -1\$"'
check "capture of its own datapath: it starts" eval \
	'root_elsewhere "$B/tapdpctl" capture all --count 4 --timeout 20 \
		>"$T/ocap.out" 2>"$T/ocap.err" & OCAP=$!
	wait_until 10 grep -q following "$T/ocap.err"'
check "traffic through its datapath" \
	ip netns exec "$OA" ping -c 2 -i 0.2 -W 2 10.9.0.2
check "... its capture saw it" wait_until 10 dead "$OCAP"
check_out "... in by po1, out by po2" "dp0 1 po1 rx len=98 [0-9.]+ dp0 2 po2 tx len=98" \
	eval 'tr "\n" " " <"$T/ocap.out"'
check_out "... its flows counted it" "packets:[1-9]" octl dump-flows dp0
check_out "... not the daemon's" "flows: 0" dpctl show dp0
# A restart makes another namespace's datapaths again in that namespace,
# from a journal of its own, never in the daemon's.
pid=$(cat "$PIDF")
kill -KILL "$pid"
wait_until 5 dead "$pid"
check "a daemon killed with SIGKILL, and a new one" tapdpd_start --max-sockets-per-uid 64
check_out "... the daemon's dp0 came back" "port 2: v0" dpctl show dp0
check_absent "... and nothing of the other namespace's" "xroot|po[123]" \
	dpctl show
check_out "... the other namespace's dp0 came back there" "port 3: po3" \
	octl show dp0
check "... its ports' devices where they were" ip -n "$OA" link show po1
check "... traffic through its flows" \
	ip netns exec "$OA" ping -c 2 -i 0.2 -W 2 10.9.0.2
check_out "... which counted it" "packets:[1-9]" octl dump-flows dp0
# One more datapath, then the namespace deleted: they go with it.
check "root elsewhere makes dp1" octl add-dp dp1
check "... with an internal port" octl add-if dp1 po4,type=internal
ip -n "$OTHER" link set po4 netns "$OA"
# Another namespace's RTM_DELNSID of the same number (every namespace
# numbers its own; the daemon hears theirs too) frees nothing of it.
id=$(ip -n "$NS" netns list-id | sed -n "s/^nsid \([0-9]*\) .*$OTHER)\$/\1/p")
check "the daemon's namespace has an id for it" test -n "$id"
OTHER2=tapdpq$$ NESTED=tapdpr$$
gone=$(grep -c "is gone" "$LOG")
ip netns add "$OTHER2"
ip netns add "$NESTED"
check "a client in a second namespace" eval \
	'ip netns exec "$OTHER2" "$B/tapdp-run" -- ovs-dpctl dump-dps'
ip -n "$OTHER2" netns set "$NESTED" "$id"
ip netns del "$NESTED"
ip netns del "$OTHER2"
check "... whose own id $id for a namespace of its own went" \
	wait_until 10 eval '! ip -n "$NS" netns list-id | grep -q "$OTHER2"'
check_out "... the first keeps its datapath" "system@dp1" octl dump-dps
check_out "... and the daemon said none of its went" "^$gone\$" \
	grep -c "is gone" "$LOG"
ip netns del "$OTHER"
check "the namespace deleted: its datapaths go with it" \
	wait_until 10 grep -q "is gone, and its datapaths with it" "$LOG"
check "... and their ports' devices, wherever they were" \
	wait_until 10 eval 'link_gone "$OA" po4 && link_gone "$OA" po1'
check "... the restored ones' too" wait_until 10 link_gone "$OB" po2
check_out "... the daemon's are there" "port 2: v0" dpctl show dp0
ip netns add "$OTHER"

# Netdev ports of its own: devices of that namespace, whose packet
# sockets the namespace agent opens there. Two carry IPv4 and IPv6
# between $OA and $OB, across a restart; a third's device is deleted,
# the second's moved away: each port goes, as the kernel's. The
# namespace deleted while a process holds it: traffic goes on; that
# process gone, nothing but the ports' sockets holds it, and its
# datapath goes, with its veth pairs, as the kernel's pernet exit.
ip -n "$OTHER" link add na type veth peer name na0 netns "$OA"
ip -n "$OTHER" link add nb type veth peer name nb0 netns "$OB"
ip -n "$OTHER" link add nc type veth peer name nc0 netns "$OA"
for d in "$OA na0 1" "$OB nb0 2"; do
	set -- $d
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=0"
	ip -n "$1" addr add "10.9.1.$3/24" dev "$2"
	ip -n "$1" addr add "fd00:9:1::$3/64" dev "$2" nodad
	ip -n "$1" link set "$2" up
done
for d in na nb nc; do ip -n "$OTHER" link set "$d" up; done
check "root elsewhere makes dpn" octl add-dp dpn
for d in na nb nc; do
	check "... with its own device $d as a netdev port" octl add-if dpn "$d"
done
check_out "... the daemon's namespace's v0 is none of its" "No such device" \
	octl add-if dpn v0
check_out "... nor is its loopback device" "Invalid argument" \
	octl add-if dpn lo
for t in "0x0800),ipv4()" "0x0806),arp()" "0x86dd),ipv6()"; do
	octl add-flow dpn "in_port(1),eth(),eth_type($t" 2
	octl add-flow dpn "in_port(2),eth(),eth_type($t" 1
done
check "IPv4 through its netdev ports" \
	ip netns exec "$OA" ping -c 2 -i 0.2 -W 2 10.9.1.2
check "IPv6 too" ip netns exec "$OA" ping -6 -c 2 -i 0.2 -W 2 fd00:9:1::2
check_out "... its flows counted both" "eth_type\(0x86dd\).*packets:[1-9]" \
	octl dump-flows dpn
pid=$(cat "$PIDF")
kill -KILL "$pid"
wait_until 5 dead "$pid"
check "a daemon killed with SIGKILL, and a new one" \
	tapdpd_start --max-sockets-per-uid 64
check_out "... dpn came back with its netdev ports" "port 3: nc" \
	octl show dpn
check "... traffic through them" \
	ip netns exec "$OA" ping -6 -c 2 -i 0.2 -W 2 fd00:9:1::2
# An upgrade's execve() leaves no CAP_SYS_ADMIN to start an agent: the
# successor takes its predecessor's from the keeper.
n=$(grep -c "took over" "$LOG")
kill -USR2 "$(cat "$PIDF")"
check "upgraded in place (SIGUSR2)" \
	wait_until 10 eval '[ "$(grep -c "took over" "$LOG")" -gt "$n" ]'
check "... traffic through its netdev ports" \
	ip netns exec "$OA" ping -c 2 -i 0.2 -W 2 10.9.1.2
check_out "... one namespace agent, across the restart and the upgrade" \
	"^1\$" eval 'pgrep -a tapdpd-nsagent | grep -c -- "--socket $SOCK "'
ip -n "$OTHER" link del nc
check "nc deleted: its port goes" \
	wait_until 10 eval '! octl show dpn | grep -q "port 3"'
ip -n "$OTHER" link set nb netns "$OB"
check "nb moved away: its port goes" \
	wait_until 10 eval '! octl show dpn | grep -q "port 2"'
ip -n "$OB" link set nb netns "$OTHER"
ip -n "$OTHER" link set nb up
check "nb back: a port again" octl add-if dpn nb
ip netns exec "$OTHER" sleep 600 &
holder=$!
check "a process in that namespace" \
	wait_until 5 eval '[ "$(cat /proc/$holder/comm)" = sleep ]'
ip netns del "$OTHER"
check "deleted while a process holds it: traffic goes on" \
	ip netns exec "$OA" ping -c 5 -i 0.5 -W 2 10.9.1.2
check "... its veth pairs are there" ip -n "$OB" link show nb0
kill "$holder"
check "that process gone: the datapath goes, with its veth pairs" \
	wait_until 10 eval 'link_gone "$OA" na0 && link_gone "$OB" nb0'
check_out "... the daemon said why" "nothing but the daemon's own sockets hold it" \
	cat "$LOG"
check_out "... the daemon's are there" "port 2: v0" dpctl show dp0
ip netns add "$OTHER"

# A tunnel port of its own: its sockets and device in that namespace.
# VXLAN to the kernel's vxlan device in a peer namespace, across a
# restart; the datapath deleted, its device goes.
OT=tapdpt$$
ip netns add "$OT"
ip -n "$OTHER" link add u0 type veth peer name u1 netns "$OT"
ip -n "$OTHER" addr add 172.31.77.1/24 dev u0
ip -n "$OTHER" link set u0 up
ip -n "$OT" addr add 172.31.77.2/24 dev u1
ip -n "$OT" link set u1 up
ip -n "$OT" link add vx0 type vxlan id 7 remote 172.31.77.1 dstport 4789
ip -n "$OT" addr add 10.56.0.2/24 dev vx0
ip -n "$OT" link set vx0 up
ip -n "$OTHER" link add tv type veth peer name tv0 netns "$OA"
ip -n "$OTHER" link set tv up
ip -n "$OA" addr add 10.56.0.1/24 dev tv0
ip -n "$OA" link set tv0 up
check "root elsewhere makes dpx" octl add-dp dpx
check "... with a netdev port" octl add-if dpx tv
check "... and a vxlan port" octl add-if dpx vxp,type=vxlan,remote_ip=flow,key=flow
vx=$(octl show dpx | sed -n 's/^  port 2: \([^ ]*\) (vxlan.*/\1/p')
check "... whose device ($vx) is there" ip -n "$OTHER" link show "$vx"
check_absent "... none in the daemon's namespace" "vxlan|$vx" in_ns ip -o link show
tun="set(tunnel(tun_id=7,dst=172.31.77.2,ttl=64,tp_dst=4789,flags(key)))"
for t in "0x0800),ipv4()" "0x0806),arp()"; do
	octl add-flow dpx "in_port(1),eth(),eth_type($t" "$tun,2"
	octl add-flow dpx "in_port(2),eth(),eth_type($t" 1
done
check "through the vxlan port to the kernel's vxlan device" \
	ip netns exec "$OA" ping -c 2 -i 0.2 -W 2 10.56.0.2
pid=$(cat "$PIDF")
kill -KILL "$pid"
wait_until 5 dead "$pid"
check "a daemon killed with SIGKILL, and a new one" \
	tapdpd_start --max-sockets-per-uid 64
check "... through it again" ip netns exec "$OA" ping -c 2 -i 0.2 -W 2 10.56.0.2
check "del-dp dpx" octl del-dp dpx
# The device OVS made over rtnetlink outlives the datapath, as on the
# kernel (its netdev port went; the device is OVS's to delete), and
# keeps the namespace's context, which holds its entry.
check "... the tunnel device OVS made stays, as the kernel's would" \
	ip -n "$OTHER" link show "$vx"
check "... until deleted" eval 'oshim ip link del "$vx" &&
	wait_until 5 link_gone "$OTHER" "$vx"'
ip netns del "$OT"

# A user in namespaces of its own: datapaths there, internal ports whose
# devices are there, traffic between two of them (one moved on into a
# namespace nested in the user's) through its flows; without
# CAP_NET_ADMIN (dropped), changes refused. Left behind, all of it goes
# with the namespace.
mkdir -m 777 "$T/user"
cat >"$T/user/scen.sh" <<SCEN
B=$B
ctl() { \$B/tapdp-run -- ovs-dpctl "\$@"; }
ip link set lo up
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ctl add-dp dp0 && echo "ADD-DP OK"
for p in up1 up2 up3; do
	ctl add-if dp0 \$p,type=internal && echo "ADD-IF \$p OK"
done
ip link add ue0 type veth peer name ue1
ip link set ue0 up
ctl add-if dp0 ue0 && echo "ADD-NETDEV OK"
ctl dump-dps | sed 's/^/DPS: /'
ip -o link | sed 's/^/LINK: /'
unshare -n sleep 600 &
nested=\$!
until [ "\$(readlink /proc/\$nested/ns/net)" != "\$(readlink /proc/self/ns/net)" ]; do
	sleep 0.1
done
in_nested() { nsenter -t \$nested -n "\$@"; }
ip link set up2 netns \$nested
in_nested sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip addr add 10.8.0.1/24 dev up1
ip link set up1 up
in_nested ip addr add 10.8.0.2/24 dev up2
in_nested ip link set up2 up
for t in "0x0800),ipv4()" "0x0806),arp()"; do
	ctl add-flow dp0 "in_port(1),eth(),eth_type(\$t" 2
	ctl add-flow dp0 "in_port(2),eth(),eth_type(\$t" 1
done
ping -c 2 -i 0.2 -W 2 10.8.0.2 >/dev/null && echo "PING OK"
ctl dump-flows dp0 | sed 's/^/FLOWS: /'
ctl show dp0 | sed 's/^/SHOW: /'
setpriv --inh-caps=-all --bounding-set=-net_admin -- \$B/tapdp-run -- \\
	ovs-dpctl add-dp dp9 2>&1 | sed 's/^/NOCAP: /'
ctl dump-dps | sed 's/^/AFTER: /'
\$B/tapdpctl status | sed 's/^/STATUS: /'
touch $T/user/ready
while [ ! -e $T/user/go ]; do sleep 0.1; done
kill \$nested
SCEN
user_elsewhere bash "$T/user/scen.sh" >"$T/user/out" 2>&1 &
check "a user's client in its own namespaces is served" \
	wait_until 30 test -e "$T/user/ready"
check_out "the user makes a datapath of its own" "ADD-DP OK" cat "$T/user/out"
for p in up1 up2 up3; do
	check_out "... an internal port $p" "ADD-IF $p OK" cat "$T/user/out"
	check_out "... whose device is in its namespace" "LINK: [0-9]+: $p:" \
		cat "$T/user/out"
	check "... and not in the daemon's" link_gone "$NS" "$p"
done
check_out "... it sees its dp0 only" "^DPS: system@dp0\$" cat "$T/user/out"
check_out "... and a veth of its own as a netdev port" "ADD-NETDEV OK" \
	cat "$T/user/out"
check_out "... traffic through its flows, into a nested namespace" \
	"PING OK" cat "$T/user/out"
check_out "... its flows counted it" "FLOWS: .*packets:[1-9]" cat "$T/user/out"
check_out "... without CAP_NET_ADMIN, add-dp is refused" \
	"NOCAP: .*Operation not permitted" cat "$T/user/out"
check_absent "... and made nothing" "AFTER: .*dp9" cat "$T/user/out"
check_absent "... the user sees none of the daemon's datapaths" \
	"STATUS: .*v0" cat "$T/user/out"
check_out "the daemon's namespace serves it as another namespace" \
	"namespaces: [0-9]+ served \(this one and [1-9]" in_ns "$BUILD/tapdpctl" status
check_out "... and its dp0 is not the user's" "port 2: v0" dpctl show dp0
check_absent "... with none of the user's ports" "up[123]" dpctl show
touch "$T/user/go"
wait
# Its netdev port's socket holds it: gone when nothing else does.
check "the user's namespace gone: its datapath goes with it" \
	wait_until 10 eval 'in_ns "$BUILD/tapdpctl" status |
		grep -q "namespaces: 1 served"'
check_out "... the daemon's dp0 stays" "port 2: v0" dpctl show dp0

# The root of a user's namespace hands its connection, and the route
# socket it proved itself on, to a process that went into a user
# namespace of its own: that one is granted nothing; the root still is.
user_elsewhere timeout 20 "$B/hostile-client" "$SOCK" handed-userns \
	>"$T/userns.out" 2>&1
check_out "the root of a user's namespace makes a datapath there" \
	"userns: root's own connection: created" cat "$T/userns.out"
check_out "... a process of a nested user namespace cannot prove itself" \
	"nested: its proof: Operation not permitted" cat "$T/userns.out"
check_out "... and is granted nothing on root's connection" \
	"nested: root's connection: Operation not permitted" cat "$T/userns.out"
check_out "... nor with root's route socket" \
	"nested: root's route socket: Operation not permitted" cat "$T/userns.out"
check_out "... while root sending on it again still may" \
	"root sending again: created" cat "$T/userns.out"

# A socket someone else opened: the kernel checks the sender of each
# request as well as the opener. Root hands its route socket and its
# granted connection to a child that became nobody.
in_ns timeout 20 "$BUILD/hostile-client" "$SOCK" handed "$(id -u $user)" \
	>"$T/handed.out" 2>&1
check_out "root's route socket handed to nobody grants nothing" \
	"root's route socket: Operation not permitted" cat "$T/handed.out"
check_out "root's connection handed to nobody grants nothing" \
	"root's connection: Operation not permitted" cat "$T/handed.out"
check_out "... while root sending on it still may" \
	"root sending: created" cat "$T/handed.out"
check_absent "no datapath was made by nobody" "handed-route|handed-conn" \
	dpctl dump-dps
check "root's own is there" dpctl del-dp handed-root
# Every HELLO is judged with its sender, however soon after connect() it
# comes: 200 add-dp, 20 at a time, are all root's.
for r in $(seq 10); do
	for i in $(seq 20); do dpctl add-dp "c$r-$i" >/dev/null 2>&1 & done
	wait
done
check_out "200 datapaths made by root's concurrent clients" "^200$" \
	sh -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl dump-dps | grep -c 'system@c'"

# Limits: CAP_NET_ADMIN in a namespace of its own is no privilege here.
user_elsewhere "$B/hostile-client" "$SOCK" sockets 200 </dev/null \
	>"$T/socks.out" 2>&1
check_out "a user in its own namespaces gets its uid's 64 sockets" \
	"sockets: 64 open, the next: Too many open files$" cat "$T/socks.out"

# A kernel socket with a message whose length wraps, root's and a user's
# in its own namespaces: drained, and root is served within a second.
for who in in_ns user_elsewhere; do
	$who timeout 10 "$B/hostile-client" "$SOCK" kernel-wrap \
		>"$T/wrap-$who.out" 2>&1
	check_out "$who: a kernel socket with a wrapping length is drained" \
		"KERNEL 0, KERNEL_DRAIN 0" cat "$T/wrap-$who.out"
	check "... and root is served within a second" \
		in_ns timeout 1 "$BUILD/tapdp-run" -- ovs-dpctl show dp0
done
finish
