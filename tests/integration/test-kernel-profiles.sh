#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# tapdpd --kernel VERSION for every profile: Debian's ovs-vswitchd (OVS
# 3.1; a newer one through TAPDP_OVS_BIN) starts cleanly on it, picks the upcall dispatch mode that release
# offered, and `dpif/show-dp-features` prints that release's line values
# (docs/COMPATIBILITY.md, "Kernel profiles", gives each line's source);
# the kernel selftest's ovs-dpctl.py gets EINVAL for a flow with an action
# newer than the release, and has it accepted on a release that knew it.
# An unknown version is refused with the list of profiles; without
# --kernel the daemon answers as the running kernel's release.
. "$(dirname "$0")/../lib.sh"

ovs_env
trap ovs_cleanup EXIT

check_out "an unknown version is refused, the profiles listed" \
	"unknown version; the profiles are ${PROFILES// /, }$" \
	bash -c "'$BUILD/tapdpd' --kernel 4.19 --socket '$T/none.sock' 2>&1; test \$? -eq 2"

# Whether release $1 is $2 or later (both in $PROFILES).
since() {
	local p seen=
	for p in $PROFILES; do
		[ "$p" = "$2" ] && seen=1
		[ "$p" = "$1" ] && { [ -n "$seen" ]; return; }
	done
	return 1
}

yes_since() { if since "$1" "$2"; then echo Yes; else echo No; fi; }

# The running ovs-vswitchd's version, as major*100+minor (Debian's 3.1:
# 301; make check-upstream's 3.5 and 4.0 through TAPDP_OVS_BIN).
ovs_version() {
	ovs-vswitchd --version | sed -n '1s/.* \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' |
		{ read -r a b; echo $((a * 100 + b)); }
}
OVS_VERSION=$(ovs_version)

# show-dp-features as that OVS prints it on release $1: from 3.5 on, it
# probes the datapath for the explicit drop action (Linux 6.4's, so this
# list's 6.6) and prints whether it has psample (6.11's: 6.12); 3.1
# never takes the drop action on a kernel datapath.
expected_features() {
	local k=$1 drop=No
	if [ "$OVS_VERSION" -ge 305 ]; then drop=$(yes_since "$k" 6.6); fi
	sed '/^$/d' <<EOF
Masked set action: Yes
Tunnel push pop: No
Ufid: Yes
Truncate action: Yes
Clone action: Yes
Sample nesting: 10
Conntrack eventmask: Yes
Conntrack clear: Yes
Max dp_hash algorithm: $(since "$k" 6.6 && echo 1 || echo 0)
Check pkt length action: Yes
Conntrack timeout policy: Yes
Explicit Drop action: $drop
Optimized Balance TCP mode: No
Conntrack all-zero IP SNAT: Yes
MPLS Label add: $(yes_since "$k" 5.10)
$([ "$OVS_VERSION" -lt 305 ] || echo "psample action: $(yes_since "$k" 6.12)")
Max VLAN headers: 2
Max MPLS depth: $(since "$k" 5.10 && echo 3 || echo 1)
Recirc: Yes
CT state: Yes
CT zone: Yes
CT mark: Yes
CT label: Yes
CT state NAT: Yes
CT orig tuple: Yes
CT orig tuple for IPv6: Yes
IPv6 ND Extension: No
EOF
}

tapdp_ns_up
k=$(profile_of "$(uname -r)")
check "daemon starts without --kernel" tapdpd_start
check_out "it answers as the running kernel's release, $k" \
	"as Linux $k's openvswitch" cat "$LOG"
tapdpd_stop
check "ovsdb-server starts" ovsdb_start
ETH="eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02)"
FLOW="in_port(1),$ETH,eth_type(0x0800),ipv4()"
for k in $PROFILES; do
	check "$k: daemon starts" tapdpd_start --kernel "$k"
	check_out "$k: the log names the profile" "as Linux $k's openvswitch" \
		cat "$LOG"

	rm -f "$T/vswitchd.log"
	check "$k: ovs-vswitchd starts" vswitchd_start
	$VSCTL --may-exist add-br br0
	check "$k: br0's internal port is a device" in_ns ip link show br0
	if since "$k" 5.15; then mode=per-cpu; else mode=per-vport; fi
	check_out "$k: upcall dispatch $mode" "ovs-system: $mode dispatch" \
		appctl dpif-netlink/dispatch-mode
	appctl dpif/show-dp-features br0 >"$T/features" 2>&1
	expected_features "$k" >"$T/expected"
	check "$k: show-dp-features as on Linux $k" \
		diff -u "$T/expected" "$T/features"
	check_vswitchd_log
	pid=$(cat "$T/vswitchd.pid")
	appctl exit
	wait_until 10 dead "$pid"

	# ovs-dpctl.py asks for per-CPU dispatch unless told otherwise:
	# refused before 5.15, as there. -V 2:1 asks for unaligned only.
	if since "$k" 5.15; then
		check_out "$k: add-dp (per-CPU dispatch)" "DP 'kp' added" \
			pyctl add-dp kp
	else
		check_out "$k: add-dp (per-CPU dispatch): not supported" \
			"Operation not supported|errno 95|\(95," pyctl add-dp kp
		check_out "$k: add-dp -V 2:1" "DP 'kp' added" \
			pyctl add-dp -V 2:1 kp
	fi
	# drop(reason) came in 6.6 (explicit drop), psample in 6.11.
	for act in "drop(2):6.6" "psample(group=3):6.12"; do
		a=${act%:*}
		pyctl del-flows kp >/dev/null 2>&1
		if since "$k" "${act#*:}"; then
			check "$k: a flow with $a is accepted" \
				pyctl add-flow kp "$FLOW" "$a"
		else
			check_out "$k: a flow with $a: EINVAL" \
				"Invalid argument|errno 22|\(22," \
				pyctl add-flow kp "$FLOW" "$a"
		fi
	done
	pyctl del-dp kp >/dev/null 2>&1
	tapdpd_stop
done

# A tunnel packet's outer DF bit is in its key from 6.18 on (the tunnels'
# ip_tun_rx_dst), never before: a kernel vxlan device of a peer namespace
# sends with DF set, and without, to a vxlan port whose misses ovs-dpctl.py
# prints.
PEER=$NS-df
ip netns add "$PEER"
trap 'ip netns del "$PEER" 2>/dev/null; ovs_cleanup' EXIT
ip link add kpu netns "$NS" type veth peer name kpu netns "$PEER"
in_ns ip addr add 172.31.230.1/24 dev kpu
in_ns ip link set kpu up
ip -n "$PEER" addr add 172.31.230.2/24 dev kpu
ip -n "$PEER" link set kpu up
for df in set unset; do
	i=$([ $df = set ] && echo 1 || echo 2)
	ip -n "$PEER" link add "vx$i" type vxlan id "$i" remote 172.31.230.1 \
		dstport 4789 df "$df"
	ip -n "$PEER" addr add "172.31.23$i.1/24" dev "vx$i"
	ip -n "$PEER" link set "vx$i" up
done
for k in 6.12 6.18 7.2; do
	check "$k: daemon starts" tapdpd_start --kernel "$k"
	pyctl add-dp -V 2:1 kdf >/dev/null
	pyctl add-if -u -t vxlan kdf kvx0 >"$T/upcalls" 2>&1 &
	listener=$!
	check "$k: a vxlan port listening for its misses" wait_until 10 \
		grep -q "listening on upcall packet handler" "$T/upcalls"
	in_ns ip link set kvx0 up
	seen() { grep -q "tun_id=$1,.*arp(sip=172.31.23$1.1" "$T/upcalls"; }
	# The link goes up without the shim: the daemon learns of it from
	# the kernel's link event, a moment later, where the kernel's own
	# device is up when the request returns; a datagram sent at once may
	# not be taken (one run in five lost the first ARP, with the fast
	# path or without; none with half a second between). So an ARP
	# request each way until both arrived.
	arp_each() {
		local i
		for i in 1 2; do
			seen $i || ip netns exec "$PEER" arping -c 1 -w 1 \
				-I "vx$i" "172.31.23$i.2" >/dev/null 2>&1
		done
		seen 1 && seen 2
	}
	check "$k: both arrived" wait_until 10 arp_each
	if since "$k" 6.18; then
		check_out "$k: DF sent, DF in the key" "flags\([a-z|]*df.*arp" \
			grep "tun_id=1," "$T/upcalls"
	else
		check_absent "$k: DF sent, no DF in the key" "flags\([a-z|]*df" \
			grep "tun_id=1," "$T/upcalls"
	fi
	check_absent "$k: no DF sent, none in the key" "flags\([a-z|]*df" \
		grep "tun_id=2," "$T/upcalls"
	# The listener is python under tapdp-run under ip netns exec.
	pkill -f "$SELFTEST/ovs-dpctl.py add-if -u -t vxlan kdf"
	wait "$listener" 2>/dev/null
	pyctl del-dp kdf >/dev/null 2>&1
	tapdpd_stop
done
finish
