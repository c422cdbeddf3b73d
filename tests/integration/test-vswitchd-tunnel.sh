#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Debian's ovs-vswitchd on two tapdp hosts (namespaces, each with its own
# tapdpd, ovsdb-server and ovs-vswitchd), a VM on each host's bridge, the
# bridges joined by a tunnel port: vxlan, VXLAN-GPE, geneve, gre, ip6gre,
# erspan, ip6erspan and bareudp, with a fixed remote_ip (gre and VXLAN-GPE as L3
# ports too, VXLAN-GPE and geneve with inner_proto_inherit
# packet-type-aware, the kernel's VXLAN-GPE device a far end), and with
# remote_ip=flow and key=flow
# set by OpenFlow; a geneve option set by one side's OpenFlow
# (tun_metadata0) matched by the other's. ping and a TCP transfer across
# each; no WARN or ERR in either ovs-vswitchd's log.
#
# ovs-vswitchd 3.1 asks rtnetlink for a collect-metadata tunnel device
# first, as on a kernel with the tunnel modules; the daemon serves that
# request for its own devices, and ovs-vswitchd adds the device as a
# netdev port.
. "$(dirname "$0")/../lib.sh"

HB=vtb$$ VMA=vtva$$ VMB=vtvb$$ KV=vtk$$
TB=$T/b
mkdir -p "$TB"
# Host a is $NS with lib.sh's daemon ($T); host b is $HB, run from $TB.
on() { # a|b CMD...
	local h=$1
	shift
	if [ "$h" = a ]; then
		ip netns exec "$NS" env OVS_RUNDIR="$T" OVS_LOGDIR="$T" \
			OVS_DBDIR="$T" OVS_SYSCONFDIR="$T" TAPDP_SOCKET="$SOCK" "$@"
	else
		ip netns exec "$HB" env OVS_RUNDIR="$TB" OVS_LOGDIR="$TB" \
			OVS_DBDIR="$TB" OVS_SYSCONFDIR="$TB" \
			TAPDP_SOCKET="$TB/tapdp.sock" "$@"
	fi
}
dir() { [ "$1" = a ] && echo "$T" || echo "$TB"; }
vsctl() { local h=$1; shift; ovs-vsctl --db=unix:"$(dir "$h")/db.sock" --timeout=10 "$@"; }
ofctl() { local h=$1; shift; on "$h" ovs-ofctl -O OpenFlow13 "$@"; }
host_up() { # a|b
	local d
	d=$(dir "$1")
	on "$1" $DAEMON_ENV "$BUILD/tapdpd" --socket "$d/tapdp.sock" --log-file "$d/tapdpd.log" \
		--pidfile "$d/tapdpd.pid" --detach || return 1
	ovsdb-tool create "$d/conf.db" "$OVS_SCHEMA"
	on "$1" ovsdb-server --remote="punix:$d/db.sock" --pidfile="$d/ovsdb.pid" \
		--detach --log-file="$d/ovsdb.log" "$d/conf.db" 2>/dev/null || return 1
	vsctl "$1" --no-wait init || return 1
	on "$1" "$BUILD/tapdp-run" -- ovs-vswitchd "unix:$d/db.sock" \
		--pidfile="$d/vswitchd.pid" --detach --log-file="$d/vswitchd.log"
}
cleanup_hosts() {
	local d p pid
	for d in "$T" "$TB"; do
		for p in vswitchd ovsdb tapdpd; do
			[ -f "$d/$p.pid" ] || continue
			pid=$(cat "$d/$p.pid")
			kill "$pid" 2>/dev/null &&
				wait_until 5 dead "$pid"
			rm -f "$d/$p.pid"
		done
		rm -f "$d"/*.log "$d/conf.db"
	done
	for n in $NS $HB $VMA $VMB $KV; do ip netns del "$n" 2>/dev/null; done
}
trap 'cleanup_hosts; tapdp_cleanup' EXIT

hosts_up() {
	tapdp_ns_up
	ip netns add "$HB"
	ip netns exec "$HB" ip link set lo up
	ip link add ua netns "$NS" type veth peer name ub netns "$HB"
	in_ns ip addr add 172.31.230.1/24 dev ua
	ip netns exec "$HB" ip addr add 172.31.230.2/24 dev ub
	in_ns ip addr add fd30::1/64 dev ua nodad
	ip netns exec "$HB" ip addr add fd30::2/64 dev ub nodad
	in_ns ip link set ua up
	ip netns exec "$HB" ip link set ub up
	check "host a: tapdpd, ovsdb-server, ovs-vswitchd" host_up a
	check "host b: tapdpd, ovsdb-server, ovs-vswitchd" host_up b
	for h in a b; do
		vm=$VMA n=1 hn=$NS
		[ "$h" = b ] && vm=$VMB n=2 hn=$HB
		vm_add "$hn" "$vm" "vm$h" "10.11.0.$n/24" 1400
		check "host $h: add-br, the VM's port" \
			vsctl "$h" add-br br0 -- add-port br0 "vm$h"
	done
}

# Each scenario on fresh hosts: deleting a tunnel port on the compat path
# makes ovs-vswitchd warn (its RTM_DELLINK after the port's deletion finds
# no device; docs/COMPATIBILITY.md), and the logs must stay clean.
hosts_down() {
	for h in a b; do
		check_absent "no WARN, ERR or EMER line in host $h's ovs-vswitchd log" \
			'\|(WARN|ERR|EMER)\|' cat "$(dir "$h")/vswitchd.log"
	done
	cleanup_hosts
}

across() { # what
	check "$1: ping across" ip netns exec "$VMA" ping -c 3 -i 0.2 -W 2 10.11.0.2
	check "$1: ping back" ip netns exec "$VMB" ping -c 2 -i 0.2 -W 2 10.11.0.1
	ip netns exec "$VMB" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	wait_until 5 listens "$VMB" tcp 5201
	check_out "$1: TCP across (4 MB)" "receiver" \
		ip netns exec "$VMA" timeout 30 iperf3 -c 10.11.0.2 -p 5201 -n 4M
}

# Fixed remote_ip, the NORMAL switch over the tunnel, each kind over the
# underlay it takes; erspan v1 and v2 with their options; geneve over IPv6
# with UDP checksums (csum=true) and vxlan without.
for case in "vxlan 172.31.230" "vxlan fd30:" \
	    "vxlan 172.31.230 options:exts=gpe" "vxlan fd30: options:exts=gpe" \
	    "geneve 172.31.230" \
	    "geneve fd30: options:csum=true" "gre 172.31.230" "ip6gre fd30:" \
	    "erspan 172.31.230 options:key=1 options:erspan_ver=1 options:erspan_idx=7" \
	    "ip6erspan fd30: options:key=2 options:erspan_ver=2 options:erspan_dir=1 options:erspan_hwid=4"; do
	set -- $case
	kind=$1 ra=$2.1 rb=$2.2
	[ "$2" = fd30: ] && ra=fd30::1 rb=fd30::2
	shift 2
	opt="$*"
	hosts_up
	check "$kind port, remote $rb (a)" vsctl a add-port br0 t0 -- set \
		interface t0 type=$kind options:remote_ip=$rb $opt
	check "$kind port, remote $ra (b)" vsctl b add-port br0 t0 -- set \
		interface t0 type=$kind options:remote_ip=$ra $opt
	check_out "$kind: the datapath has a $kind port" "t0 .*\($kind" \
		on a ovs-appctl -t "$T/ovs-vswitchd.$(cat "$T/vswitchd.pid").ctl" dpif/show
	check_out "$kind: its device made over rtnetlink" \
		"created [a-z0-9]+ device [a-z0-9_]+ over rtnetlink" \
		cat "$T/tapdpd.log"
	across "$kind to $rb"
	hosts_down
done

# For an L3 port: host $1's peer (underlay address), its VM and the VM's
# MAC; the VM gets a static neighbour for the other VM, as ARP cannot
# cross.
l3_vm() { # a|b
	peer=172.31.230.2 vm=$VMA other=10.11.0.2
	[ "$1" = b ] && peer=172.31.230.1 vm=$VMB other=10.11.0.1
	mac=$(ip netns exec "$vm" cat /sys/class/net/eth0/address)
	ip netns exec "$vm" ip neigh replace "$other" lladdr 02:00:00:00:00:fe \
		dev eth0 nud permanent
}

# L3 ports (packet_type=legacy_l3): gre (kind gre), VXLAN-GPE
# (exts=gpe, next protocol IPv4) and bareudp (the IP packet alone in UDP,
# a kind this kernel lacks), devices without Ethernet: IP packets
# cross without their Ethernet header. OVS gives what comes in a dummy
# Ethernet header, which OpenFlow fills in, and pops it at output to the
# port. ARP cannot cross: each VM has a static neighbour.
for case in "gre gre_sys" "vxlan vxlan_sys_4789 options:exts=gpe" \
	    "bareudp udp_sys_6635 options:payload_type=ip options:dst_port=6635"; do
	set -- $case
	kind=$1 dev=$2 what="L3 $1"
	shift 2
	opt="$*"
	[ -n "$opt" ] && what="L3 $kind ($opt)"
	hosts_up
	for h in a b; do
		l3_vm "$h"
		check "$what port, remote $peer ($h)" vsctl "$h" add-port br0 t3 -- \
			set interface t3 type=$kind options:remote_ip=$peer \
			options:packet_type=legacy_l3 $opt
		ofctl "$h" del-flows br0
		check "flows ($h)" ofctl "$h" add-flows br0 - <<OF
table=0,in_port=vm$h,ip,actions=output:t3
table=0,in_port=t3,ip,actions=mod_dl_src:02:00:00:00:00:fe,mod_dl_dst:$mac,output:vm$h
OF
	done
	check_out "$what: its device made over rtnetlink (kind $kind)" \
		"created $kind device $dev over rtnetlink" cat "$T/tapdpd.log"
	check_out "$what: the device has no Ethernet header (ARPHRD_NONE)" \
		"link/none" on a ip link show $dev
	if [ $kind = vxlan ]; then
		check_out "$what: GETLINK shows a collect-metadata VXLAN-GPE device" \
			"vxlan external .*dstport 4789 .* gpe" \
			on a "$BUILD/tapdp-run" -- ip -d link show $dev
	fi
	if [ $kind = bareudp ]; then
		check_out "$what: GETLINK shows the bareudp driver's attributes" \
			"bareudp dstport 6635 ethertype ip srcportmin 49153" \
			on a "$BUILD/tapdp-run" -- ip -d link show $dev
	fi
	across "$what"
	check_out "$what: the datapath pops Ethernet on the way out" "pop_eth" \
		on a "$BUILD/tapdp-run" -- ovs-dpctl dump-flows
	check_out "$what: and receives packets without it (no eth() in the key)" \
		"tunnel\(.*in_port\([0-9]+\),eth_type\(0x0800\)" \
		on b "$BUILD/tapdp-run" -- ovs-dpctl dump-flows
	hosts_down
done

# VXLAN-GPE in packet-type-aware mode (packet_type=ptap), remote_ip=flow:
# OpenFlow takes the Ethernet header off (decap()) before the port and puts
# one on (encap(ethernet)) what comes from it as packet_type=(1,0x800).
hosts_up
for h in a b; do
	l3_vm "$h"
	check "VXLAN-GPE ptap port, remote_ip=flow ($h)" vsctl "$h" add-port \
		br0 tp -- set interface tp type=vxlan options:exts=gpe \
		options:remote_ip=flow options:key=flow options:packet_type=ptap
	ofctl "$h" del-flows br0
	check "flows ($h)" ofctl "$h" add-flows br0 - <<OF
table=0,in_port=vm$h,ip,actions=decap(),set_field:$peer->tun_dst,set_field:77->tun_id,output:tp
table=0,in_port=tp,packet_type=(1,0x800),tun_id=77,actions=encap(ethernet),set_field:02:00:00:00:00:fe->eth_src,set_field:$mac->eth_dst,output:vm$h
OF
done
across "VXLAN-GPE (ptap)"
check_out "VXLAN-GPE (ptap): b's flow took the L3 packets" \
	"n_packets=[1-9].*packet_type=\(1,0x800\)" ofctl b dump-flows br0
hosts_down

# geneve with inner_proto_inherit: ovs-vswitchd 3.1 asks for none, but
# takes a collect-metadata device of its name that ip(8) made through
# tapdp-run; packet-type-aware (ptap), OpenFlow sends it IP packets
# (decap()), which go with the Geneve protocol type IPv4, and they come
# back as packet_type=(1,0x800).
hosts_up
for h in a b; do
	l3_vm "$h"
	check "ip link add genev_sys_6081 ... innerprotoinherit ($h)" \
		on $h "$BUILD/tapdp-run" -- ip link add genev_sys_6081 type \
		geneve external innerprotoinherit udp6zerocsumrx
	check "geneve ptap port on it ($h)" vsctl "$h" add-port \
		br0 tg -- set interface tg type=geneve options:remote_ip=$peer \
		options:packet_type=ptap
	ofctl "$h" del-flows br0
	check "flows ($h)" ofctl "$h" add-flows br0 - <<OF
table=0,in_port=vm$h,ip,actions=decap(),output:tg
table=0,in_port=tg,packet_type=(1,0x800),actions=encap(ethernet),set_field:02:00:00:00:00:fe->eth_src,set_field:$mac->eth_dst,output:vm$h
OF
done
check_out "geneve L3: GETLINK shows inner_proto_inherit" \
	"geneve external .*innerprotoinherit" \
	on a "$BUILD/tapdp-run" -- ip -d link show genev_sys_6081
check_out "geneve L3: the device has no Ethernet header (ARPHRD_NONE)" \
	"link/none" on a ip link show genev_sys_6081
# Only Geneve whose protocol type (2 bytes into its header) is IPv4.
capture 10 "$NS" "$T/gn.txt" -i ua udp port 6081 and "udp[10:2] = 0x0800"
across "geneve L3 (ptap)"
check_out "geneve L3: the underlay carried Geneve of protocol IPv4" \
	"Geneve.*: IP 10.11.0.1 > 10.11.0.2" cat "$T/gn.txt"
check_out "geneve L3: b's flow took the L3 packets" \
	"n_packets=[1-9].*packet_type=\(1,0x800\)" ofctl b dump-flows br0
hosts_down

# The kernel's own VXLAN-GPE device as the far end: namespace KV, reached
# from host a by a second underlay link; a collect-metadata device (the
# only kind the kernel allows GPE on), its packets given their tunnel by a
# route's lightweight tunnel encap. Host a's L3 VXLAN-GPE port sends it IP
# with next protocol IPv4; what it sends back comes in without Ethernet
# (its TCP checksums left partial over the veth: finished on the way).
hosts_up
ip netns add "$KV"
ip link add uk netns "$NS" type veth peer name ka netns "$KV"
in_ns ip addr add 172.31.231.1/24 dev uk
in_ns ip link set uk up
ip netns exec "$KV" ip addr add 172.31.231.2/24 dev ka
ip netns exec "$KV" ip link set ka up
check "the kernel's vxlan gpe external device (KV)" ip netns exec "$KV" \
	ip link add vxk type vxlan gpe external dstport 4789
ip netns exec "$KV" ip addr add 10.11.0.3/32 dev vxk
ip netns exec "$KV" ip link set vxk up
check "a route into it with a tunnel (KV)" ip netns exec "$KV" ip route add \
	10.11.0.1/32 encap ip id 9 dst 172.31.231.1 dev vxk
mac=$(ip netns exec "$VMA" cat /sys/class/net/eth0/address)
ip netns exec "$VMA" ip neigh replace 10.11.0.3 lladdr 02:00:00:00:00:fe \
	dev eth0 nud permanent
check "L3 VXLAN-GPE port to the kernel's (a)" vsctl a add-port br0 tk -- \
	set interface tk type=vxlan options:exts=gpe \
	options:remote_ip=172.31.231.2 options:key=9 \
	options:packet_type=legacy_l3
ofctl a del-flows br0
check "flows (a)" ofctl a add-flows br0 - <<OF
table=0,in_port=vma,ip,nw_dst=10.11.0.3,actions=output:tk
table=0,in_port=tk,ip,actions=mod_dl_src:02:00:00:00:00:fe,mod_dl_dst:$mac,output:vma
OF
capture 10 "$NS" "$T/gpe.txt" -i uk udp port 4789
check "ping the kernel's VXLAN-GPE device" \
	ip netns exec "$VMA" ping -c 3 -i 0.2 -W 2 10.11.0.3
ip netns exec "$KV" iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
wait_until 5 listens "$KV" tcp 5202
check_out "TCP to the kernel's VXLAN-GPE device (4 MB)" "receiver" \
	ip netns exec "$VMA" timeout 30 iperf3 -c 10.11.0.3 -p 5202 -n 4M
check_out "the underlay carried GPE (I and P flags), VNI 9" \
	"VXLAN.*flags \[.*\] \(0x0c\).*vni 9" cat "$T/gpe.txt"
hosts_down

# remote_ip=flow, key=flow for each kind: OpenFlow sets them (over IPv6,
# tun_ipv6_dst), and (geneve) an option (tun_metadata0) that the other
# side matches.
for case in "geneve 4" "vxlan 6" "gre 4" "ip6gre 6" \
	    "erspan 4 options:erspan_ver=1 options:erspan_idx=7" \
	    "ip6erspan 6 options:erspan_ver=2 options:erspan_dir=1 options:erspan_hwid=4"; do
	set -- $case
	kind=$1 v=$2
	shift 2
	opt="$*"
	hosts_up
	for h in a b; do
		peer=172.31.230.2 tlv=0xabcd dst=tun_dst md= mdm=
		[ "$h" = b ] && peer=172.31.230.1
		if [ "$v" = 6 ]; then
			peer=fd30::2 dst=tun_ipv6_dst
			[ "$h" = b ] && peer=fd30::1
		fi
		if [ $kind = geneve ]; then
			md=",set_field:$tlv->tun_metadata0"
			mdm=",tun_metadata0=$tlv"
			check "tlv-map ($h)" ofctl "$h" add-tlv-map br0 \
				"{class=0xffff,type=0,len=4}->tun_metadata0"
		fi
		check "$kind port, remote_ip=flow key=flow ($h)" vsctl "$h" \
			add-port br0 tf -- set interface tf type=$kind \
			options:remote_ip=flow options:key=flow $opt
		ofctl "$h" del-flows br0
		check "flows ($h)" ofctl "$h" add-flows br0 - <<OF
table=0,in_port=vm$h,actions=set_field:$peer->$dst,set_field:42->tun_id$md,output:tf
table=0,in_port=tf,tun_id=42$mdm,actions=output:vm$h
OF
	done
	across "$kind over IPv$v, remote_ip=flow"
	if [ $kind = geneve ]; then
		check_out "b's flow matched the option a set" \
			"n_packets=[1-9].*tun_metadata0=0xabcd" ofctl b dump-flows br0
	else
		check_out "$kind: b's flow matched the key a set" \
			"n_packets=[1-9].*tun_id=0x2a" ofctl b dump-flows br0
	fi
	hosts_down
done
finish
