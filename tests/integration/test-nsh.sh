#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# NSH two ways. First between two datapaths of one daemon, joined by a
# veth whose ends are netdev ports: flows push NSH (MD type 1 one way, MD
# type 2 the other) and an Ethernet header on one side; on the other, flows
# match the NSH fields and pop both, with ping and TCP between two "VMs".
# nl-client puts those flows: Debian's ovs-dpctl 3.1 cannot parse an nsh()
# key, and parses push_eth only after a userspace() action; ovs-dpctl
# dumps them and is refused what the kernel refuses.
# Flow dumps give the NSH key and the push_nsh back as the kernel does;
# what Linux 6.12 refuses (pop_nsh of a non-NSH packet) is refused. Then
# Debian's ovs-vswitchd with two bridges on the same veth, OpenFlow rules
# encap(nsh) and set_field the NSH fields on one side, match nsh_spi and
# nsh_si and decap() on the other: the flows it installs from upcalls,
# NSH keys and push_nsh/pop_nsh, carry ping and TCP.
. "$(dirname "$0")/../lib.sh"

VMA=nshva$$ VMB=nshvb$$
HOSTS="$VMA $VMB"
ovs_env
trap ovs_cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
# The VMs' MTU leaves room for NSH (24 bytes with MD type 1) and the outer
# Ethernet header on the 1500-byte link.
vm_add "$NS" "$VMA" va 10.7.0.1/24 1400
vm_add "$NS" "$VMB" vb 10.7.0.2/24 1400
in_ns ip link add la type veth peer name lb
in_ns ip link set la up
in_ns ip link set lb up
check "add-dp a (VM a: port 1, the link: port 2)" dpctl add-dp nsha va la
check "add-dp b (VM b: port 1, the link: port 2)" dpctl add-dp nshb vb lb

nlc() { in_ns "$BUILD/tapdp-run" -- "$BUILD/nl-client" "$@"; }
# a -> b: MD type 1, service path 0x64, index 255.
check "a: push_nsh (MD type 1) and push_eth" \
	nlc nsh-push-flow nsha 1 2 1 0x64 255
check "b: match the NSH fields, pop_eth and pop_nsh" \
	nlc nsh-pop-flow nshb 2 1 1 0x64 255
# b -> a: MD type 2 (one TLV), service path 0x65, index 254.
check "b: push_nsh (MD type 2) and push_eth" \
	nlc nsh-push-flow nshb 1 2 2 0x65 254
check "a: match the NSH fields, pop_eth and pop_nsh" \
	nlc nsh-pop-flow nsha 2 1 2 0x65 254

# Ping both ways and TCP from a to b; the link must have carried a's
# packets in NSH of service path 0x64, index 255.
traffic() { # what
	capture 10 "$NS" "$T/link-$1.txt" -i la -e ether proto 0x894f
	check "$1: ping a -> b over NSH" \
		ip netns exec "$VMA" ping -c 3 -i 0.2 -W 2 10.7.0.2
	check "$1: ping b -> a" \
		ip netns exec "$VMB" ping -c 2 -i 0.2 -W 2 10.7.0.1
	ip netns exec "$VMB" iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	wait_until 5 listens "$VMB" tcp 5201
	check_out "$1: TCP over NSH (4 MB)" "receiver" \
		ip netns exec "$VMA" timeout 30 iperf3 -c 10.7.0.2 -p 5201 -n 4M
	# This kernel has no NSH GSO (openvswitch.ko brings nsh): the
	# datapath cuts the VMs' GSO frames before the link.
	check "$1: the link dropped no NSH frame" \
		test "$(tx_dropped "$NS" la)" -eq 0
	check_out "$1: the link carried NSH with service path 0x64, index 255" \
		"NSH, flags \[none\], service-path-id 0x000064, service-index 0xff: .* 10.7.0.1 > 10.7.0.2" \
		cat "$T/link-$1.txt"
}
traffic "flows"

check_out "b's NSH flow took the packets" \
	"nsh\(.*spi=0x64,si=255.*packets:[1-9]" dpctl dump-flows nshb
check_out "a's NSH flow (MD type 2) took the packets" \
	"nsh\(.*mdtype=2.*spi=0x65,si=254.*packets:[1-9]" dpctl dump-flows nsha
check_out "push_nsh dumps as given" \
	"push_nsh\(flags=0,ttl=63,mdtype=1,np=3,spi=0x64,si=255,c1=0x11223344,c2=0x0,c3=0x0,c4=0x55667788\)" \
	dpctl dump-flows nsha
check_out "...MD type 2 too" "push_nsh\(.*mdtype=2,np=3,spi=0x65,si=254,md2=0x101040a0b0c0d\)" \
	dpctl dump-flows nshb

# A service path index nobody matches: the packets stop at b.
check "a's flows deleted" dpctl del-flows nsha
check "a: push with index 254 instead" nlc nsh-push-flow nsha 1 2 1 0x64 254
check "a: its pop flow again" nlc nsh-pop-flow nsha 2 1 2 0x65 254
check_fails "...does not match b's flow" \
	ip netns exec "$VMA" ping -c 1 -W 1 10.7.0.2

# What Linux 6.12 refuses, refused with its errno.
check_out "pop_nsh of a packet that is not NSH is refused (EINVAL)" \
	"updating flow table \(Invalid argument" dpctl add-flow nshb \
	"in_port(2),eth(),eth_type(0x0800),ipv4()" "pop_nsh()"

# ovs-vswitchd: bridge a (VM a, the link's end la) and bridge b (VM b,
# lb), both on its one datapath, ovs-system.
check "the ovs-dpctl datapaths deleted" sh -c \
	"ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl del-dp nsha &&
	 ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl del-dp nshb"
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts on tapdp" vswitchd_start
check "bridges a and b" sh -c "$VSCTL add-br bra -- add-br brb &&
	$VSCTL add-port bra va -- add-port bra la &&
	$VSCTL add-port brb vb -- add-port brb lb"
# Only these rules: no NORMAL switching between the bridges' ports.
check "the bridges' NORMAL rules deleted" sh -c \
	"ovs-ofctl del-flows bra && ovs-ofctl del-flows brb"
MACA=02:00:00:00:0a:01 MACB=02:00:00:00:0b:01
of() { ovs-ofctl -O OpenFlow13 add-flow "$@"; }
check "a: encap(nsh(md_type=1)), its fields set, encap(ethernet)" of bra \
	"in_port=va,actions=encap(nsh(md_type=1)),set_field:0x64->nsh_spi,set_field:255->nsh_si,set_field:0x11223344->nsh_c1,encap(ethernet),set_field:$MACB->eth_dst,output:la"
check "b: nsh_spi and nsh_si matched, decap() twice" of brb \
	"in_port=lb,dl_type=0x894f,nsh_spi=0x64,nsh_si=255,nsh_c1=0x11223344,actions=decap(),decap(),output:vb"
check "b: the way back, MD type 1 too" of brb \
	"in_port=vb,actions=encap(nsh(md_type=1)),set_field:0x65->nsh_spi,set_field:254->nsh_si,encap(ethernet),set_field:$MACA->eth_dst,output:lb"
check "a: the way back matched and decapsulated" of bra \
	"in_port=la,dl_type=0x894f,nsh_spi=0x65,nsh_si=254,actions=decap(),decap(),output:va"
traffic "OpenFlow"
check_out "the datapath flows push NSH" \
	"push_nsh\(flags=0,ttl=63,mdtype=1,np=3,spi=0x64,si=255,c1=0x11223344" \
	appctl dpctl/dump-flows
check_out "...and match its fields from upcall keys" \
	"eth_type\(0x894f\),nsh\(.*spi=0x64,si=255.*pop_eth" \
	appctl dpctl/dump-flows
check_out "...and pop it" "pop_nsh" appctl dpctl/dump-flows
check_vswitchd_log

finish
