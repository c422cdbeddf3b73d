#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Flows through Debian's ovs-dpctl: add, get, mod, del, del-flows and
# dump-flows, ping between two namespaces counted in the flow stats, and the
# many-masks scenario of the 2019 lookup series (256 flows with distinct
# Ethernet-destination masks: traffic still forwarded, ~1 mask per packet,
# also with 1024 connections over them, more than the mask cache holds),
# frames over a port's MTU dropped and counted, and receive queues.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

A=tapdpa$$
B=tapdpb$$
cleanup_hosts() { ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; tapdp_cleanup; }
trap cleanup_hosts EXIT

tapdp_ns_up
ip netns add $A
ip netns add $B
# Only the test's own traffic: no IPv6 autoconfiguration chatter.
for n in $A $B; do
	ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec $n sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
ip link add va netns "$NS" type veth peer name eth0 netns $A
ip link add vb netns "$NS" type veth peer name eth0 netns $B
for n in "$NS:va" "$NS:vb" "$A:eth0" "$B:eth0"; do
	ip netns exec "${n%%:*}" ip link set "${n#*:}" up
done
ip netns exec $A ip addr add 10.7.0.1/24 dev eth0
ip netns exec $B ip addr add 10.7.0.2/24 dev eth0
MAC_B=$(ip netns exec $B cat /sys/class/net/eth0/address)

check "daemon starts" tapdpd_start
check "add-dp" dpctl add-dp dp0
check "add-if va" dpctl add-if dp0 va
check "add-if vb" dpctl add-if dp0 vb

ARP1="in_port(1),eth(),eth_type(0x0806),arp()"
ARP2="in_port(2),eth(),eth_type(0x0806),arp()"
IP1="in_port(1),eth(),eth_type(0x0800),ipv4()"
IP2="in_port(2),eth(),eth_type(0x0800),ipv4()"
check "add-flow (ARP 1->2)" dpctl add-flow dp0 "$ARP1" 2
check "add-flow (ARP 2->1)" dpctl add-flow dp0 "$ARP2" 1
check "add-flow (IPv4 1->2)" dpctl add-flow dp0 "$IP1" 2
check "add-flow (IPv4 2->1), to be fixed by mod-flow" dpctl add-flow dp0 "$IP2" 2
check_out "add-flow of an existing flow: File exists" "File exists" \
	dpctl add-flow dp0 "$IP2" 1
check "no ping while the return flow points back" \
	unanswered $A -c 1 -W 1 10.7.0.2
check "mod-flow" dpctl mod-flow dp0 "$IP2" 1
UFID=ufid:5b4ae0a6-7a3b-4b2c-9d1e-0123456789ab
check "add-flow with a UFID" dpctl add-flow dp0 \
	"$UFID,in_port(2),eth(),eth_type(0x86dd),ipv6()" 1
check_out "get-flow by UFID" "eth_type\(0x86dd\).*actions:1$" \
	dpctl get-flow dp0 "$UFID"
check "mod-flow by UFID" dpctl mod-flow dp0 \
	"$UFID,in_port(2),eth(),eth_type(0x86dd),ipv6()" 2
check_out "get-flow shows the new actions" "actions:2$" \
	dpctl get-flow dp0 "$UFID"
# OVS 3.1 numbers its explicit drop action 25, which Linux 6.12 knows as
# psample: the kernel refuses it (EINVAL), and so does tapdp.
check_out "ovs-dpctl 3.1's drop action: Invalid argument, as on 6.12" \
	"Invalid argument" dpctl mod-flow dp0 \
	"$UFID,in_port(2),eth(),eth_type(0x86dd),ipv6()" drop
check "del-flow by UFID" dpctl del-flow dp0 "$UFID"
check_out "get-flow of a deleted UFID" "No such file or directory" \
	dpctl get-flow dp0 "$UFID"
check "ping through the datapath" \
	in_ns_of $A ping -c 3 -i 0.2 -W 1 10.7.0.2
# Three pings, plus the request and reply of the refused one.
check_out "dump-flows counts the pings" \
	"eth_type\(0x0800\), packets:4, bytes:392, used:[0-9.]+s, actions:2" \
	dpctl dump-flows dp0
check_out "dump-flows: 4 flows" "^4$" \
	bash -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl dump-flows dp0 2>/dev/null | wc -l"
check_out "show: hits counted, one mask per packet" \
	"masks: hit:[0-9]+ total:[0-9]+ hit/pkt:1.00" dpctl show dp0
check "del-flow" dpctl del-flow dp0 "$IP1"
check_out "del-flow of a missing flow" "No such file or directory" \
	dpctl del-flow dp0 "$IP1"
check "no ping without the flow" unanswered $A -c 1 -W 1 10.7.0.2
check "del-flows" dpctl del-flows dp0
check_absent "dump-flows: empty" "." \
	bash -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl dump-flows dp0 2>/dev/null"
check_out "show: flows 0" "flows: 0" dpctl show dp0

# 256 flows, each with its own Ethernet destination mask, as in the 2019
# lookup series. Their keys differ in a byte every mask covers, so no flow
# hides another (a NEW whose key an existing flow matches is EEXIST).
for i in $(seq 0 255); do
	printf "in_port(1),eth(dst=00:01:00:00:00:%02x/ff:ff:ff:ff:%02x:ff),eth_type(0x0800),ipv4(frag=no) 2\n" $i $i
done >"$T/flows"
ok_added=0
while read -r match act; do
	dpctl add-flow dp0 "$match" "$act" >/dev/null 2>&1 && ok_added=$((ok_added + 1))
done <"$T/flows"
check "256 flows with distinct masks added" test "$ok_added" -eq 256
dpctl add-flow dp0 "$ARP1" 2 >/dev/null 2>&1
dpctl add-flow dp0 "$ARP2" 1 >/dev/null 2>&1
dpctl add-flow dp0 "in_port(1),eth(dst=$MAC_B),eth_type(0x0800),ipv4(frag=no)" 2 >/dev/null 2>&1
dpctl add-flow dp0 "$IP2" 1 >/dev/null 2>&1
check_out "show: 256+ masks" "masks: hit:[0-9]+ total:(25[7-9]|26[0-9])" \
	dpctl show dp0
check "traffic still forwarded with 256+ masks" \
	in_ns_of $A ping -c 50 -i 0.01 -W 1 10.7.0.2
# Masks probed per packet once the datapath has rebalanced its masks (every
# 4 s) and cached them: measured over a second burst.
stats() {
	ip netns exec "$NS" "$BUILD/tapdp-run" -- ovs-dpctl show dp0 2>/dev/null |
		sed -n 's/.*lookups: hit:\([0-9]*\) missed:\([0-9]*\).*/\1 \2/p;s/.*masks: hit:\([0-9]*\).*/\1/p' |
		tr '\n' ' '
}
# per_pkt: masks probed per packet, in hundredths, between the stats read
# into h1 m1 mh1 and those read into h2 m2 mh2; said for what ($1).
masks_per_packet() {
	per_pkt=$(( (mh2 - mh1) * 100 / (h2 + m2 - h1 - m1) ))
	echo "    masks probed per packet over $1: $((per_pkt / 100)).$(printf %02d $((per_pkt % 100)))"
}
# The rebalance is the datapath's own 4 s timer, with nothing to see from
# outside: time must pass.
sleep 4.5
read -r h1 m1 mh1 <<<"$(stats)"
in_ns_of $A ping -c 200 -i 0.005 -W 1 10.7.0.2 >/dev/null
read -r h2 m2 mh2 <<<"$(stats)"
masks_per_packet "400 packets"
check "masks hit per packet near 1 with 256+ masks" test "$per_pkt" -le 150

# Past the kernel's mask cache: traffic over all 256 of those flows, four
# UDP connections each, 1024 packet hashes where the kernel's cache holds
# 256 (its lookups then scan ~100 masks). The exact-match stage in front of
# the table keeps it at about one mask a packet once it has grown to the
# traffic (a few rounds of the 1024 frames), measured over two more.
spread() {
	ip netns exec $A /usr/bin/python3 - "$1" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
src = bytes.fromhex(open("/sys/class/net/eth0/address").read().strip().replace(":", ""))
for r in range(int(sys.argv[1])):
    for i in range(1024):
        udp = struct.pack("!HHHH", 10000 + i, 9, 8 + 4, 0) + b"tapd"
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64,
                         17, 0, bytes([10, 7, 0, 1]), bytes([10, 7, 0, 2]))
        dst = bytes([0, 1, 0, 0, 0, i % 256])
        s.send(dst + src + b"\x08\x00" + ip + udp)
PY
}
hits_reach() { local h; read -r h _ <<<"$(stats)"; [ "${h:-0}" -ge "$1" ]; }
spread 6
wait_until 5 hits_reach "$((h2 + 6 * 1024))"
read -r h1 m1 mh1 <<<"$(stats)"
spread 2
check "2048 frames over 256 masks all hit their flows" \
	wait_until 5 hits_reach "$((h1 + 2048))"
read -r h2 m2 mh2 <<<"$(stats)"
masks_per_packet "1024 connections"
check "1024 connections over 256 masks: about one mask per packet" \
	test "$per_pkt" -le 150
check "no miss among them" test "$m2" -eq "$m1"

# Over the MTU: A's side takes 9000-byte frames, B's device 1500. A frame
# the datapath would send B beyond its MTU, not GSO, is dropped and counted
# (the kernel's ovs_vport_send()); the MTU follows the device's changes.
for d in "$A:eth0" "$NS:va"; do
	ip netns exec "${d%%:*}" ip link set "${d#*:}" mtu 9000
done
txerr() {
	ip netns exec "$NS" "$BUILD/tapdp-run" -- ovs-dpctl show -s dp0 2>/dev/null |
		sed -n '/port 2: vb/,/port 3/p' | sed -n 's/.*TX .*errors:\([0-9]*\).*/\1/p'
}
e1=$(txerr)
check "a 3000-byte datagram with DF does not cross to the 1500-byte port" \
	unanswered $A -c 2 -W 1 -M do -s 3000 10.7.0.2
e2=$(txerr)
check "the drops are counted as the port's TX errors ($e1 -> $e2)" \
	test "${e2:-0}" -ge $(( ${e1:-0} + 2 ))
ip netns exec "$NS" ip link set vb mtu 9000
ip netns exec "$B" ip link set eth0 mtu 9000
# The daemon takes the new MTU from the link event.
wait_until 10 in_ns_of $A ping -c 1 -W 1 -M do -s 3000 10.7.0.2
check "after B's MTU is raised, the same datagram crosses" \
	in_ns_of $A ping -c 2 -W 1 -M do -s 3000 10.7.0.2

# Receive queues: as many per port as usable CPUs (at most 8), each with
# its own thread; the local port's TAP device has that many queues; frames
# of many flows spread over a port's queues and each is taken once.
nq=$(nproc)
[ "$nq" -gt 8 ] && nq=8
threads() { cat /proc/"$(cat "$PIDF")"/task/*/comm | grep -c "^rx[0-9]:$1\$"; }
check "a receive thread per queue on each netdev port ($nq)" \
	test "$(threads va)" -eq "$nq" -a "$(threads vb)" -eq "$nq"
check "the local port's TAP device has $nq queues" \
	test "$(ip netns exec "$NS" ls /sys/class/net/dp0/queues | grep -c '^rx-')" -eq "$nq"
rx() { ip netns exec $B cat /sys/class/net/eth0/statistics/rx_packets; }
# 400 frames of 400 flows from A: how many B takes.
burst400() {
	local r1
	r1=$(rx)
	ip netns exec $A "$BUILD/udpgen" -c -r 2000 -n 400 eth0 "$MAC_B" \
		10.7.0.1 10.7.0.2 0 >/dev/null
	wait_until 10 eval '[ $(($(rx) - r1)) -ge 400 ]'
	# A second copy would come with the burst: nothing to wait for, but
	# time for it to show.
	sleep 0.3
	echo $(($(rx) - r1))
}
n=$(burst400)
check "400 frames of 400 flows arrive once each ($n)" test $n -ge 400 -a $n -le 405
# A port's sockets are one fanout group, also when the kernel gives it id 0
# (the first group after boot; ids wrap): a socket in a group of its own
# would take every frame a second time. Other namespaces' groups may take
# id 0 first: a few tries.
groups() {
	in_ns ss -0e | awk -v dev="*:$1" '
		/^p_/ { mine = $4 == dev; next }
		mine && /fanout\(/ { print $1 }' | sort -u
}
if [ "$nq" -gt 1 ]; then
	for _ in 1 2 3 4 5; do
		dpctl del-if dp0 va >/dev/null 2>&1
		in_ns python3 "$TOP/tests/integration/fanout-wrap.py" >/dev/null
		dpctl add-if dp0 va >/dev/null 2>&1
		groups va | grep -q "id:0," && break
	done
	check "va re-added with fanout group id 0 ($(groups va | tr '\n' ' '))" \
		eval "groups va | grep -q 'id:0,'"
	for p in va vb; do
		check "the $nq sockets of $p are one fanout group" \
			test "$(groups $p | wc -l)" -eq 1
	done
	n=$(burst400)
	check "through group id 0, 400 frames arrive once each ($n)" \
		test $n -ge 400 -a $n -le 405
fi
# A link that goes down and up again: its sockets report the fall once, as
# an error, and take frames again once it is back.
in_ns ip link set va down
in_ns ip link set va up
wait_until 5 eval 'in_ns ip -br link show va | grep -q " UP "'
n=$(burst400)
check "after va went down and up, 400 frames arrive once each ($n)" \
	test $n -ge 400 -a $n -le 405
# A burst the daemon cannot take (it is stopped): the rings fill, and what
# the kernel drops shows as the port's RX dropped.
rxdrop() {
	ip netns exec "$NS" "$BUILD/tapdp-run" -- ovs-dpctl show -s dp0 2>/dev/null |
		sed -n '/port 1: va/,/port 2/p' | sed -n 's/.*RX .*dropped:\([0-9]*\).*/\1/p'
}
d1=$(rxdrop)
kill -STOP "$(cat "$PIDF")"
ip netns exec $A "$BUILD/udpgen" -r 100000 -n 6000 eth0 "$MAC_B" \
	10.7.0.1 10.7.0.2 0 >/dev/null
kill -CONT "$(cat "$PIDF")"
wait_until 10 eval '[ "$(($(rxdrop) - ${d1:-0}))" -ge 1000 ]'
d2=$(rxdrop)
check "frames beyond the full receive ring count as RX dropped ($d1 -> $d2)" \
	test "$((${d2:-0} - ${d1:-0}))" -ge 1000
# Idle, the daemon sleeps: no polling loop burns CPU on a shared machine.
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$(cat "$PIDF")"/stat; }
# Done with the burst: every thread asleep.
idle() {
	local states
	states=$(awk '{ print $3 }' /proc/"$(cat "$PIDF")"/task/*/stat) &&
		[ -n "$states" ] && [ -z "$(grep -v '^S$' <<<"$states")" ]
}
wait_until 10 idle
c1=$(cpu_ticks)
# What is measured is the CPU used while time passes.
sleep 5
c2=$(cpu_ticks)
check "idle for 5 s, the daemon used $((c2 - c1)) clock ticks (at most 2)" \
	test -n "$c1" -a -n "$c2" -a "$((c2 - c1))" -le 2
check_out "tapdpd refuses --rx-queues 9" "^tapdpd: --rx-queues: 9$" \
	timeout 5 "$BUILD/tapdpd" --rx-queues 9 --socket "$T/none.sock"

# A port's sockets join its group one after the other; one bound but not yet
# in the group would take a copy of what the group takes. The daemon's
# bind() calls return 20 ms late (strace injects the delay), so that a
# port re-added under a stream of datagrams (each with its own ports) would
# take many twice; it takes none.
tapdpd_stop
ip netns exec "$NS" strace -f -qq -I1 -o /dev/null --seccomp-bpf -e trace=bind \
	-e inject=bind:delay_exit=20000 "$BUILD/tapdpd" --socket "$SOCK" \
	--log-file "$LOG" --pidfile "$PIDF" --rx-queues 8 &
tracer=$!
wait_until 10 test -s "$PIDF"
check "daemon restarts with 8 receive queues, under strace" test -s "$PIDF"
va_to_vb() {
	dpctl add-dp dp0 && dpctl add-if dp0 va && dpctl add-if dp0 vb &&
		dpctl add-flow dp0 "$IP1" 2
}
check "dp0 again, IPv4 from va to vb" va_to_vb
ready=$T/dupcount.ready
ip netns exec $B python3 "$TOP/tests/integration/dupcount.py" "$ready" \
	>"$T/dupcount" &
counter=$!
wait_until 5 test -e "$ready"
ip netns exec $A "$BUILD/udpgen" -c -r 20000 -n 1000000 eth0 "$MAC_B" \
	10.7.0.1 10.7.0.2 0 >/dev/null &
gen=$!
readded=0
for _ in 1 2 3; do
	dpctl del-if dp0 va >/dev/null 2>&1 &&
		dpctl add-if dp0 va >/dev/null 2>&1 && readded=$((readded + 1))
done
kill $gen
wait $counter
read -r got again <"$T/dupcount"
check "re-added $readded times, va took $got datagrams, $again of them twice" \
	test $readded -eq 3 -a "${got:-0}" -gt 1000 -a "${again:-1}" -eq 0
# The daemon's leak check at exit (ptrace) needs strace gone.
kill $tracer
wait $tracer
check_buffers_free "every pooled buffer back in its pool after the traffic"
finish
