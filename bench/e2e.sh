#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end: two namespaces joined, side by side in one run, by
#   (a) a Linux bridge,
#   (b) OVS's userspace datapath (ovs-vswitchd, datapath_type=netdev,
#       AF_PACKET ports, tx checksum offload off on the hosts as it needs),
#   (c) tapdp with port-to-port flows from ovs-dpctl,
#   (d) tapdp driven by ovs-vswitchd with the NORMAL action,
#   (e) build/afpfwd (bench/tools/afpfwd.c), the floor of any switch built
#       as tapdp is: the same AF_PACKET rings and sends, no parse, no lookup,
#       every frame from one port out of the other,
#   (f) (c) and (d) with tapdpd --fast-path bpf: BPF programs on the
#       ports forward the frames of megaflows in the kernel,
# and (c) and (f) again with set actions before the outputs (a router's
# source MAC, TOS and TTL, the IPv4 checksum made again), and (c) again
# with 256 extra masks installed, and (b) and (d) again with a
# conntrack firewall in OpenFlow (ct() rules: new connections from A's side
# committed, established and related ones forwarded, the rest dropped).
# For each: iperf3 TCP
# throughput (one stream, 5 s), 64-byte UDP frames forwarded per second
# (build/udpgen floods from one side as fast as it can, to a MAC address
# the other side announced but does not own; that side's rx counter says
# what arrived), new TCP connections per second (build/tcpcrr, netperf's
# TCP_CRR: connect, a byte each way, close; 4 clients), and ping
# round-trip time; and what each costs: the CPU
# time of the whole machine (every CPU's busy time in /proc/stat: the
# generator, the receiver and the switch) during the TCP run per gigabit
# delivered, and during the flood per frame delivered, so that a machine
# whose generator saturates still shows which switch costs less. Prints a
# table and the ratios to (a) and (b).
#
#   bash bench/e2e.sh          (as root; run make first)
#   E2E_PERF=DIR bash bench/e2e.sh
#                              also records the whole machine with perf
#                              (call graphs) during each TCP run and UDP
#                              flood: DIR/<setup>-tcp.data, -udp.data, and
#                              the top symbols per command in .txt
#   E2E_CASES="bridge tapdp_dpctl" bash bench/e2e.sh
#                              runs only those setups (ratios to a missing
#                              baseline print as 0)
#   E2E_CAPTURE=all bash bench/e2e.sh
#                              (c) with `tapdpctl capture all -w /dev/null`
#                              following every packet throughout (any
#                              capture target works)
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all build/udpgen build/tcpcrr build/afpfwd || exit 1
B=$PWD/build
T=$(mktemp -d /tmp/tapdp-e2e.XXXXXX)
SW=e2esw$$ HA=e2ea$$ HB=e2eb$$
SECS=${E2E_SECONDS:-5}
export OVS_RUNDIR=$T OVS_LOGDIR=$T OVS_DBDIR=$T OVS_SYSCONFDIR=$T
export TAPDP_SOCKET=$T/tapdp.sock

teardown() {
	for p in "$T"/*.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	sleep 0.5
	rm -f "$T"/*.pid "$T/conf.db"
	for n in $SW $HA $HB; do ip netns del "$n" 2>/dev/null; done
}
trap 'teardown; rm -rf "$T"' EXIT

hosts_up() { # offload: on|off
	for n in $SW $HA $HB; do ip netns add "$n"; done
	ip netns exec $SW ip link set lo up
	ip link add va netns $SW type veth peer name eth0 netns $HA
	ip link add vb netns $SW type veth peer name eth0 netns $HB
	ip netns exec $SW ip link set va up
	ip netns exec $SW ip link set vb up
	for h in $HA $HB; do
		ip netns exec "$h" ip link set eth0 up
		ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		[ "$1" = off ] && ip netns exec "$h" ethtool -K eth0 tx off \
			>/dev/null 2>&1
	done
	ip netns exec $HA ip addr add 10.4.0.1/24 dev eth0
	ip netns exec $HB ip addr add 10.4.0.2/24 dev eth0
}

ovsdb_up() {
	ovsdb-tool create "$T/conf.db" /usr/share/openvswitch/vswitch.ovsschema
	ip netns exec $SW ovsdb-server --remote="punix:$T/db.sock" \
		--pidfile="$T/ovsdb.pid" --detach --log-file="$T/ovsdb.log" \
		"$T/conf.db" 2>/dev/null
	ovs-vsctl --db="unix:$T/db.sock" --no-wait init 2>/dev/null
}

vswitchd_up() { # [wrapper...]
	ip netns exec $SW "$@" ovs-vswitchd "unix:$T/db.sock" \
		--pidfile="$T/vswitchd.pid" --detach --log-file="$T/vswitchd.log" \
		2>/dev/null
}

profile_start() { # name: the whole machine for SECS seconds, if asked
	[ -n "${E2E_PERF:-}" ] || return 0
	mkdir -p "$E2E_PERF"
	perf record -a -g -q -o "$E2E_PERF/$1.data" -- sleep "$SECS" \
		>/dev/null 2>&1 &
}

profile_end() { # name: top symbols per command into DIR/name.txt
	[ -n "${E2E_PERF:-}" ] || return 0
	wait
	perf report -i "$E2E_PERF/$1.data" --no-children -g none --sort comm,sym \
		--percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' |
		grep -v '^ *[|-]' >"$E2E_PERF/$1.txt"
}

# Busy time of all CPUs so far, in clock ticks: user, system, irq, softirq
# and steal; not idle or iowait, and not niced work, so that a background
# job run with nice does not count (every setup runs at normal priority).
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $4 + $7 + $8 + $9 }' /proc/stat
}
HZ=$(getconf CLK_TCK)

# New TCP connections per second, A to B, for SECS seconds.
crr() {
	local out
	ip netns exec $HA sysctl -qw net.ipv4.tcp_tw_reuse=1
	ip netns exec $HA sysctl -qw net.ipv4.ip_local_port_range="1024 65000"
	ip netns exec $HB "$B/tcpcrr" -s 5001 4 &
	sleep 0.3
	out=$(ip netns exec $HA "$B/tcpcrr" 10.4.0.2 5001 "$SECS" 4)
	pkill -f "tcpcrr -s 5001"
	echo $(( ${out%% *} / SECS ))
}

measure() { # name
	local gbps rtt mac rx0 rx1 sent c0 c1 c2 c3 cps
	ip netns exec $HA ping -c 3 -i 0.2 -W 2 10.4.0.2 >/dev/null 2>&1
	ip netns exec $HB iperf3 -s -D -1 --pidfile "$T/iperf.pid" >/dev/null
	sleep 0.3
	profile_start "$1-tcp"
	c0=$(busy_ticks)
	gbps=$(ip netns exec $HA iperf3 -c 10.4.0.2 -t "$SECS" -f g 2>/dev/null |
		awk '/receiver/ { print $(NF-2) }')
	c1=$(busy_ticks)
	profile_end "$1-tcp"
	rtt=$(ip netns exec $HA ping -c 20 -i 0.05 -W 2 10.4.0.2 2>/dev/null |
		awk -F/ '/^rtt/ { print $5 }')
	rm -f "$T/iperf.pid"
	cps=$(crr)
	# The flood goes to a MAC address B's side announces (one frame) but
	# B's own device does not have: every switch learns it and forwards
	# the flood to B alone, B's device counts it, and B's stack drops it
	# at its first check instead of routing an ICMP error for each frame,
	# work that would run on the forwarding CPU and measure B rather than
	# the switch.
	mac=02:00:00:e2:e0:01
	ip netns exec $HB "$B/udpgen" -s $mac eth0 ff:ff:ff:ff:ff:ff \
		10.4.0.2 10.4.0.1 0 >/dev/null
	sleep 0.2
	rx0=$(ip netns exec $HB cat /sys/class/net/eth0/statistics/rx_packets)
	profile_start "$1-udp"
	c2=$(busy_ticks)
	sent=$(ip netns exec $HA "$B/udpgen" eth0 "$mac" 10.4.0.1 10.4.0.2 \
		"$SECS")
	# What is still queued gets forwarded after the generator stops.
	sleep 0.5
	c3=$(busy_ticks)
	profile_end "$1-udp"
	rx1=$(ip netns exec $HB cat /sys/class/net/eth0/statistics/rx_packets)
	# CPU ms per Gbit of TCP, CPU us per forwarded frame.
	printf '%s %s %s %s %s %s %s %s\n' "$1" "${gbps:-0}" "${rtt:-0}" \
		"$(( (rx1 - rx0) / SECS ))" "$(( sent / SECS ))" \
		"$(awk -v t=$((c1 - c0)) -v g="${gbps:-0}" -v s="$SECS" -v hz="$HZ" \
			'BEGIN { print (g > 0 ? 1e3 * t / hz / (g * s) : 0) }')" \
		"$(awk -v t=$((c3 - c2)) -v n=$((rx1 - rx0)) -v hz="$HZ" \
			'BEGIN { print (n > 0 ? 1e6 * t / hz / n : 0) }')" \
		"${cps:-0}" >>"$T/results"
}

case_bridge() {
	hosts_up on
	ip netns exec $SW ip link add br0 type bridge
	ip netns exec $SW ip link set va master br0
	ip netns exec $SW ip link set vb master br0
	ip netns exec $SW ip link set br0 up
	measure "a-linux-bridge"
	teardown
}

case_ovs_netdev() {
	hosts_up off
	ovsdb_up
	vswitchd_up
	ovs-vsctl --db="unix:$T/db.sock" --timeout=10 add-br br0 \
		-- set bridge br0 datapath_type=netdev \
		-- add-port br0 va -- add-port br0 vb
	sleep 1
	measure "b-ovs-userspace"
	ct_rules
	measure "b-ovs-userspace-ct"
	teardown
}

# The conntrack firewall, the same OpenFlow rules for (b) and (d): va is
# the side whose connections are let in.
ct_rules() {
	ovs-ofctl del-flows br0
	ovs-ofctl add-flows br0 - <<-EOF
	table=0,priority=100,ip,actions=ct(table=1)
	table=0,priority=1,actions=NORMAL
	table=1,priority=100,ip,ct_state=+trk+new,in_port=va,actions=ct(commit),NORMAL
	table=1,priority=100,ip,ct_state=+trk+est,actions=NORMAL
	table=1,priority=100,ip,ct_state=+trk+rel,actions=NORMAL
	table=1,priority=1,actions=drop
	EOF
	sleep 1
}

dpctl() { ip netns exec $SW "$B/tapdp-run" -- ovs-dpctl "$@" 2>/dev/null; }

# E2E_CAPTURE's capture, until the teardown kills it (its pid file).
capture_up() {
	[ -n "${E2E_CAPTURE:-}" ] || return 0
	ip netns exec $SW "$B/tapdpctl" capture $E2E_CAPTURE -w /dev/null \
		2>"$T/capture.err" &
	echo $! >"$T/capture.pid"
	for _ in $(seq 50); do
		grep -q following "$T/capture.err" && return 0
		sleep 0.1
	done
	echo "e2e: the capture did not start: $(cat "$T/capture.err")"
	exit 1
}

# The IPv4 flows of (c) and (f), with set actions before their outputs.
rewrite_flows() {
	local ma mb
	ma=$(ip netns exec $HA cat /sys/class/net/eth0/address)
	mb=$(ip netns exec $HB cat /sys/class/net/eth0/address)
	dpctl mod-flow dp0 "in_port(1),eth(),eth_type(0x0800),ipv4()" \
		"set(eth(src=$ma/ff:ff:ff:ff:ff:ff)),set(ipv4(tos=0/0xff,ttl=64/0xff)),2"
	dpctl mod-flow dp0 "in_port(2),eth(),eth_type(0x0800),ipv4()" \
		"set(eth(src=$mb/ff:ff:ff:ff:ff:ff)),set(ipv4(tos=0/0xff,ttl=64/0xff)),1"
}

# (c), or (f) with the fast path: tapdpd --fast-path $1.
tapdp_dpctl() { # fast-path name
	hosts_up on
	ip netns exec $SW "$B/tapdpd" --socket "$TAPDP_SOCKET" \
		--pidfile "$T/tapdpd.pid" --log-file "$T/tapdpd.log" --detach \
		--fast-path "$1"
	dpctl add-dp dp0
	dpctl add-if dp0 va
	dpctl add-if dp0 vb
	dpctl add-flow dp0 "in_port(1),eth(),eth_type(0x0806),arp()" 2
	dpctl add-flow dp0 "in_port(2),eth(),eth_type(0x0806),arp()" 1
	dpctl add-flow dp0 "in_port(1),eth(),eth_type(0x0800),ipv4()" 2
	dpctl add-flow dp0 "in_port(2),eth(),eth_type(0x0800),ipv4()" 1
	capture_up
	measure "$2${E2E_CAPTURE:+-capture-$E2E_CAPTURE}"
	# As a router would: each frame's source MAC, TTL and TOS written
	# (the values they had, so that every host still takes them), the
	# IPv4 checksum made again.
	[ -n "${E2E_CAPTURE:-}" ] || {
		rewrite_flows
		measure "$2-rewrite"
		dpctl mod-flow dp0 "in_port(1),eth(),eth_type(0x0800),ipv4()" 2
		dpctl mod-flow dp0 "in_port(2),eth(),eth_type(0x0800),ipv4()" 1
	}
	for i in $(seq 0 255); do
		printf "in_port(1),eth(dst=00:01:00:00:00:%02x/ff:ff:ff:ff:%02x:ff),eth_type(0x0800),ipv4(frag=no) 2\n" $i $i
	done | while read -r m a; do dpctl add-flow dp0 "$m" "$a"; done
	measure "$2-256-masks"
	teardown
}
case_tapdp_dpctl() { tapdp_dpctl none c-tapdp-dpctl; }
case_tapdp_fast() { tapdp_dpctl bpf f-tapdp-fast-dpctl; }

case_afpfwd() {
	hosts_up on
	ip netns exec $SW "$B/afpfwd" va vb &
	echo $! >"$T/afpfwd.pid"
	measure "e-afpacket-floor"
	teardown
}

# (d), or (f) with the fast path: tapdpd --fast-path $1.
tapdp_vswitchd() { # fast-path name
	hosts_up on
	ip netns exec $SW "$B/tapdpd" --socket "$TAPDP_SOCKET" \
		--pidfile "$T/tapdpd.pid" --log-file "$T/tapdpd.log" --detach \
		--fast-path "$1"
	ovsdb_up
	vswitchd_up "$B/tapdp-run" --
	ovs-vsctl --db="unix:$T/db.sock" --timeout=10 add-br br0 \
		-- add-port br0 va -- add-port br0 vb
	sleep 1
	measure "$2-normal"
	ct_rules
	measure "$2-ct"
	teardown
}
case_tapdp_vswitchd() { tapdp_vswitchd none d-tapdp-vswitchd; }
case_tapdp_vswitchd_fast() { tapdp_vswitchd bpf f-tapdp-fast-vswitchd; }

: >"$T/results"
for c in ${E2E_CASES:-bridge ovs_netdev tapdp_dpctl tapdp_fast tapdp_vswitchd tapdp_vswitchd_fast afpfwd}; do
	"case_$c"
done

echo "e2e: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), iperf3 ${SECS}s, one TCP stream"
echo
echo "| setup | TCP Gbit/s | TCP vs (a) | TCP vs (b) | CPU ms per Gbit TCP (vs a, vs b) | UDP 64 B Mpps forwarded (offered) | UDP vs (b) | CPU us per forwarded frame (vs a, vs b) | TCP_CRR conn/s (vs b) | ping RTT ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
col() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$T/results"; }
while read -r name gbps rtt pps offered cg cp cps; do
	# "vs (b)": the ct setups against OVS userspace under the same rules.
	case $name in *-ct) b=b-ovs-userspace-ct ;; *) b=b-ovs-userspace ;; esac
	awk -v n="$name" -v g="$gbps" -v p="$pps" -v o="$offered" \
		-v cg="$cg" -v cp="$cp" -v c="$cps" -v r="$rtt" \
		-v ag="$(col a-linux-bridge 2)" -v bg="$(col $b 2)" \
		-v bp="$(col $b 4)" \
		-v acg="$(col a-linux-bridge 6)" -v bcg="$(col $b 6)" \
		-v acp="$(col a-linux-bridge 7)" -v bcp="$(col $b 7)" \
		-v bc="$(col $b 8)" '
		function ratio(x, y) { return y > 0 ? x / y : 0 }
		BEGIN { printf "| %s | %.2f | %.2f | %.1f | %.0f (%.2f, %.2f) | %.3f (%.3f) | %.1f | %.2f (%.2f, %.2f) | %d (%.1f) | %.3f |\n",
			 n, g, ratio(g, ag), ratio(g, bg),
			 cg, ratio(cg, acg), ratio(cg, bcg),
			 p / 1e6, o / 1e6, ratio(p, bp),
			 cp, ratio(cp, acp), ratio(cp, bcp), c, ratio(c, bc), r }'
done <"$T/results"
ct=$(col d-tapdp-vswitchd-ct 2) plain=$(col d-tapdp-vswitchd-normal 2)
[ -n "$ct" ] && [ -n "$plain" ] &&
	awk -v c="$ct" -v p="$plain" 'BEGIN { printf "\ntapdp TCP with the ct firewall / without: %.2f\n", (p > 0 ? c / p : 0) }'
# How far tapdp's own work is from the floor of its design.
[ -n "$(col e-afpacket-floor 2)" ] && [ -n "$(col c-tapdp-dpctl 2)" ] &&
	awk -v tg="$(col c-tapdp-dpctl 2)" -v fg="$(col e-afpacket-floor 2)" \
	    -v tp="$(col c-tapdp-dpctl 7)" -v fp="$(col e-afpacket-floor 7)" \
	    -v tc="$(col c-tapdp-dpctl 8)" -v fc="$(col e-afpacket-floor 8)" '
	function ratio(x, y) { return y > 0 ? x / y : 0 }
	BEGIN { printf "c-tapdp-dpctl / e-afpacket-floor: TCP %.2f, CPU per frame %.2f, TCP_CRR %.2f\n",
		ratio(tg, fg), ratio(tp, fp), ratio(tc, fc) }'
exit 0
