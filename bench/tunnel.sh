#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# TCP through a tunnel between two "hosts" (namespaces joined by a veth,
# the underlay), a VM namespace behind each, side by side in one run:
#   (a) the kernel: a Linux bridge on each host joined by kernel vxlan
#       devices (this machine's kernel has vxlan, not geneve);
#   (b) OVS's userspace datapath (ovs-vswitchd, datapath_type=netdev) with
#       its native tunnelling, geneve with UDP checksums (csum=true, as OVN
#       makes its geneve ports): br-int holds the VM's port and the geneve
#       port, br-phy the underlay veth, the host's address on br-phy (OVS's
#       "userspace tunnelling" set-up). Its AF_PACKET ports take no offload,
#       so the VM's veth has its transmit offloads off (as OVS's own
#       userspace system tests set them);
#   (c) tapdp, vxlan and geneve (the latter also with UDP checksums, the
#       key's csum flag): a tapdpd per host, the ports and flows made by the
#       kernel selftests' ovs-dpctl.py (compat vport types).
# For each: iperf3 TCP, one stream, E2E_SECONDS (5) s; the ratio to (a).
#
#   bash bench/tunnel.sh        (as root; make and make selftest first)
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all selftest || exit 1
B=$PWD/build
PY="/usr/bin/python3 $B/selftest/ovs-dpctl.py"
T=$(mktemp -d /tmp/tapdp-tnl.XXXXXX)
HA=tbha$$ HB=tbhb$$ VA=tbva$$ VB=tbvb$$
SECS=${E2E_SECONDS:-5}

down() {
	for p in "$T"/*.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	sleep 0.5
	rm -f "$T"/*.pid
	rm -rf "$T"/ovs-*
	for n in $HA $HB $VA $VB; do ip netns del "$n" 2>/dev/null; done
}
trap 'down; rm -rf "$T"' EXIT

up() { # the hosts, the underlay and the VMs (MTU 1400: the tunnel's room)
	for n in $HA $HB $VA $VB; do ip netns add "$n"; done
	ip link add ua netns $HA type veth peer name ub netns $HB
	ip -n $HA addr add 172.31.240.1/24 dev ua
	ip -n $HB addr add 172.31.240.2/24 dev ub
	ip link add va netns $HA type veth peer name eth0 netns $VA
	ip link add vb netns $HB type veth peer name eth0 netns $VB
	for n in $HA $HB $VA $VB; do
		ip -n "$n" link set lo up
		for d in ua ub va vb; do ip -n "$n" link set "$d" up 2>/dev/null; done
	done
	ip -n $VA link set eth0 mtu 1400 up
	ip -n $VB link set eth0 mtu 1400 up
	ip -n $VA addr add 10.12.0.1/24 dev eth0
	ip -n $VB addr add 10.12.0.2/24 dev eth0
}

kernel_vxlan() {
	for h in a b; do
		n=$HA me=1 peer=2
		[ $h = b ] && n=$HB me=2 peer=1
		ip -n $n link add vx0 type vxlan id 5 dstport 4789 \
			local 172.31.240.$me remote 172.31.240.$peer
		ip -n $n link add br0 type bridge
		ip -n $n link set vx0 master br0
		ip -n $n link set v$h master br0
		ip -n $n link set vx0 up
		ip -n $n link set br0 up
	done
}

ovs_userspace() {
	for h in a b; do
		n=$HA me=1 peer=2
		[ $h = b ] && n=$HB me=2 peer=1
		d=$T/ovs-$h
		mkdir -p "$d"
		ovsdb-tool create "$d/conf.db" /usr/share/openvswitch/vswitch.ovsschema
		ovs() { ip netns exec $n env OVS_RUNDIR="$d" OVS_LOGDIR="$d" \
			OVS_DBDIR="$d" OVS_SYSCONFDIR="$d" "$@"; }
		ovs ovsdb-server --remote="punix:$d/db.sock" \
			--pidfile="$T/ovsdb-$h.pid" --detach \
			--log-file="$d/ovsdb.log" "$d/conf.db"
		vsctl() { ovs-vsctl --db=unix:"$d/db.sock" --timeout=10 "$@"; }
		vsctl --no-wait init
		ovs ovs-vswitchd -vconsole:off "unix:$d/db.sock" --pidfile="$T/vswitchd-$h.pid" \
			--detach --log-file="$d/vswitchd.log"
		ip -n $n addr flush dev u$h
		vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
			-- add-port br-phy u$h
		ip -n $n addr add 172.31.240.$me/24 dev br-phy
		ip -n $n link set br-phy up
		vsctl add-br br-int -- set bridge br-int datapath_type=netdev \
			-- add-port br-int v$h \
			-- add-port br-int t0 -- set interface t0 type=geneve \
			options:remote_ip=172.31.240.$peer options:key=5 \
			options:csum=true
	done
	ip netns exec $VA ethtool -K eth0 tx off >/dev/null
	ip netns exec $VB ethtool -K eth0 tx off >/dev/null
}

tapdp() { # vxlan|geneve [csum]
	for h in a b; do
		n=$HA me=1 peer=2
		[ $h = b ] && n=$HB me=2 peer=1
		export TAPDP_SOCKET=$T/$h.sock
		ip netns exec $n "$B/tapdpd" --socket "$TAPDP_SOCKET" \
			--log-file "$T/$h.log" --pidfile "$T/$h.pid" --detach
		py() { ip netns exec $n env PYTHONPATH="$PWD/tests/ovs-dpctl-py/pyshim" \
			"$B/tapdp-run" -- $PY "$@" >/dev/null; }
		py add-dp tdp
		py add-if tdp v$h
		py add-if -t "$1" --lwt '' tdp t0
		py add-flow tdp "in_port(1),eth()" \
			"set(tunnel(tun_id=5,dst=172.31.240.$peer,ttl=64${2:+,flags($2)})),2"
		py add-flow tdp "tunnel(tun_id=5,src=172.31.240.$peer,dst=172.31.240.$me),in_port(2),eth()" 1
	done
}

tcp() {
	ip netns exec $VB iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	sleep 0.5
	ip netns exec $VA ping -c 2 -W 2 10.12.0.2 >/dev/null 2>&1 || { echo 0; return; }
	ip netns exec $VA iperf3 -c 10.12.0.2 -p 5201 -t "$SECS" -J 2>/dev/null |
		/usr/bin/python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))'
}

declare -A R
CASES=(kernel_vxlan ovs_userspace "tapdp vxlan" "tapdp geneve" "tapdp geneve csum")
# BENCH_CASES="kernel_vxlan|tapdp geneve csum" runs only those.
[ -n "${BENCH_CASES:-}" ] && IFS='|' read -r -a CASES <<<"$BENCH_CASES"
for c in "${CASES[@]}"; do
	up
	$c
	R[$c]=$(tcp)
	down
done
printf '%s, iperf3 %ss, one TCP stream, VM MTU 1400\n\n' "$(nproc) CPUs" "$SECS"
echo "| setup | TCP Gbit/s | vs (a) |"
echo "|---|---:|---:|"
base=${R[kernel_vxlan]:-0}
for c in "${CASES[@]}"; do
	printf '| %s | %s | %s |\n' "$c" "${R[$c]}" \
		"$(awk -v a="${R[$c]}" -v b="$base" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
done
