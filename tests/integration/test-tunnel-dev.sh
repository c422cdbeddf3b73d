#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Tunnel devices of one remote where the kernel has no driver for the
# kind: `ip link add NAME type geneve|gretap|ip6gretap|erspan|ip6erspan|gre
# ... remote R` under the shim makes one in userspace (tap/tnl-dev.h), in
# the namespace it was asked in, as OVS's tests make their far ends.
# Between two namespaces, a pair of each kind: IPv4 and IPv6 underlays,
# ERSPAN v1 and v2 side by side told apart by their keys, an L3 gre
# device, frames fragmented to the device's MTU; the driver's attributes
# in GETLINK; a key the far end does not have takes nothing; a second
# device on a UDP port refused; deletion; the same devices after a kill
# -9; a namespace deleted taking its own.
. "$(dirname "$0")/../lib.sh"
A=tapdpta$$ B=tapdptb$$
trap 'for n in $A $B; do ip netns del "$n" 2>/dev/null; done
	tapdp_cleanup' EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
shim_in() { local n=$1; shift; ip netns exec "$n" "$BUILD/tapdp-run" -- "$@"; }
for n in $A $B; do
	ip netns add "$n"
	ip -n "$n" link set lo up
done
ip link add va netns "$A" type veth peer name vb netns "$B"
ip -n "$A" addr add 172.31.9.1/24 dev va
ip -n "$B" addr add 172.31.9.2/24 dev vb
ip -n "$A" addr add fd09::1/64 dev va nodad
ip -n "$B" addr add fd09::2/64 dev vb nodad
ip -n "$A" link set va up
ip -n "$B" link set vb up

# name, kind, overlay subnet, each side's arguments (the remote's
# address filled in for @).
devices=(
	"gn4 geneve 10.9.1 id 5 remote @4"
	"gn6 geneve 10.9.2 id 6 remote @6 dstport 6082 udp6zerocsumtx udp6zerocsumrx"
	"gt4 gretap 10.9.3 key 7 remote @4"
	"gt6 ip6gretap 10.9.4 remote @6"
	"er1 erspan 10.9.5 seq key 1 erspan_ver 1 erspan 7 remote @4"
	"er2 erspan 10.9.6 seq key 2 erspan_ver 2 erspan_dir egress erspan_hwid 7 remote @4"
	"e62 ip6erspan 10.9.7 seq key 3 erspan_ver 2 erspan_dir ingress erspan_hwid 5 remote @6"
	"gl3 gre 10.9.8 remote @4"
)
made=0
for d in "${devices[@]}"; do
	set -- $d
	name=$1 kind=$2 net=$3
	shift 3
	if ip link add tapdpprobe type "$kind" remote 127.0.0.2 2>/dev/null; then
		ip link del tapdpprobe
		echo "# this kernel has the $kind driver: its devices stay its own"
		continue
	fi
	for side in "$A 1 2" "$B 2 1"; do
		set -- $side
		ns=$1 me=$2 peer=$3
		args=$(echo "${d#* * * }" | sed "s/@4/172.31.9.$peer/;s/@6/fd09::$peer/")
		check "$name ($kind) made in $ns" shim_in "$ns" ip link add "$name" \
			type "$kind" $args
		ip -n "$ns" addr add "$net.$me/24" dev "$name"
		ip -n "$ns" link set "$name" mtu 1400 up
	done
	made=$((made + 1))
	check "IPv4 over $name ($kind)" \
		ip netns exec "$A" ping -c 2 -i 0.2 -W 2 "$net.2"
	check "... 3200 bytes, fragmented to its MTU" \
		ip netns exec "$A" ping -s 3200 -c 2 -i 0.2 -W 2 "$net.2"
done
if [ $made = 0 ]; then
	finish
	exit
fi
check_absent "... none of them in the daemon's namespace" "gn4|gt4|er1" \
	in_ns ip -o link show
check_out "gn4 shown as the geneve driver shows its own" \
	"geneve id 5 remote 172.31.9.2" shim_in "$A" ip -d link show gn4
check_absent "... not as a collect-metadata one" "external" \
	shim_in "$A" ip -d link show gn4
check_out "gt4 as gretap's: its key and remote" \
	"gretap remote 172.31.9.2 .*key 0.0.0.7" shim_in "$A" ip -d link show gt4
check_out "er2 as erspan's: version 2, egress, hardware id 7" \
	"erspan_ver 2 erspan_dir egress erspan_hwid 0x7" \
	shim_in "$A" ip -d link show er2
check_out "a second device on gn4's UDP port there is refused" \
	"Device or resource busy" \
	shim_in "$A" ip link add gnx type geneve id 9 remote 172.31.9.3
check "... on another port it is made" \
	shim_in "$A" ip link add gnx type geneve id 9 remote 172.31.9.3 dstport 6090
check "... and deleted" eval 'shim_in "$A" ip link del gnx &&
	wait_until 5 link_gone "$A" gnx'

# gt4's key changed on one side: the other end's packets are no longer
# its, as the kernel finds no device for them.
check "gt4 in $B deleted" shim_in "$B" ip link del gt4
check "... gone there" wait_until 5 link_gone "$B" gt4
check "... made again with key 8" shim_in "$B" ip link add gt4 type gretap \
	key 8 remote 172.31.9.1
ip -n "$B" addr add 10.9.3.2/24 dev gt4
ip -n "$B" link set gt4 up
check "a key the far end does not have: no answer" \
	unanswered "$A" -c 2 -i 0.2 -W 1 10.9.3.2
check "... and the other devices still carry theirs" \
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 10.9.5.2

# A restart keeps them, as they are.
pid=$(cat "$PIDF")
kill -KILL "$pid"
wait_until 5 dead "$pid"
check "a daemon killed with SIGKILL, and a new one" tapdpd_start
for net in 10.9.1 10.9.2 10.9.6 10.9.8; do
	check "... $net.2 answers through it again" \
		ip netns exec "$A" ping -c 2 -i 0.2 -W 2 "$net.2"
done
check_out "... gt4 in $B has key 8 still" "key 0.0.0.8" \
	shim_in "$B" ip -d link show gt4

# A namespace deleted takes its devices; the other's stay, the daemon
# serves on.
ip netns del "$A"
check "$A deleted: the daemon lets its context go" wait_until 10 eval \
	'grep -q "namespace [0-9]*: nothing but the daemon" "$LOG"'
check "... $B keeps its devices" ip -n "$B" link show gn4
check "... and the daemon serves" in_ns "$BUILD/tapdpctl" \
	--socket "$SOCK" status
finish
