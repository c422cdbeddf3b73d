#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A live demo: tapdpd serving the kernel datapath API, Debian's ovs-dpctl
# building a datapath that joins two network namespaces, and the frames they
# send showing up in the datapath's counters.
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
make -j2 all >/dev/null
# The tests' helpers: the daemon's files in $T, tapdpd_stop, wait_until.
. tests/lib.sh
B=$PWD/build

cleanup() {
	tapdpd_stop || true
	for ns in tapdp-demo demo-a demo-b; do ip netns del $ns 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

for ns in tapdp-demo demo-a demo-b; do ip netns add $ns; done
ip netns exec tapdp-demo ip link set lo up
for x in a b; do
	ip link add veth-$x netns tapdp-demo type veth peer name eth0 netns demo-$x
	ip netns exec tapdp-demo ip link set veth-$x up
	ip netns exec demo-$x ip link set eth0 up
done
ip netns exec demo-a ip addr add 10.0.0.1/24 dev eth0
ip netns exec demo-b ip addr add 10.0.0.2/24 dev eth0

step "start tapdpd (no kernel module: lsmod | grep openvswitch prints nothing)"
lsmod 2>/dev/null | grep openvswitch || echo "(openvswitch.ko not loaded)"
run ip netns exec tapdp-demo "$B/tapdpd" --socket "$TAPDP_SOCKET" \
	--pidfile "$PIDF" --log-file "$LOG" --detach

dpctl() { ip netns exec tapdp-demo "$B/tapdp-run" -- ovs-dpctl "$@" 2>/dev/null; }
step "Debian's ovs-dpctl, unmodified, through tapdp-run"
run dpctl add-dp demo0
run dpctl add-if demo0 veth-a
run dpctl add-if demo0 veth-b
run dpctl add-if demo0 int0,type=internal
run dpctl show
step "the datapath's local port and internal port are real devices"
run ip netns exec tapdp-demo ip -br link show type tun

step "no flows yet: frames from the namespaces miss (and, with no listener, are lost)"
run ip netns exec demo-a ping -c 2 -i 0.3 -W 1 10.0.0.2 || true
run dpctl show demo0

step "flows installed with ovs-dpctl add-flow: traffic forwarded between the namespaces"
run dpctl add-flow demo0 "in_port(1),eth(),eth_type(0x0806),arp()" 2
run dpctl add-flow demo0 "in_port(2),eth(),eth_type(0x0806),arp()" 1
run dpctl add-flow demo0 "in_port(1),eth(),eth_type(0x0800),ipv4()" 2
run dpctl add-flow demo0 "in_port(2),eth(),eth_type(0x0800),ipv4()" 1
# The flow-less pings left A's ARP entry for B unresolved (and their
# requests queued behind it): start afresh rather than wait for a retry.
for x in a b; do ip netns exec demo-$x ip neigh flush dev eth0; done
run ip netns exec demo-a ping -c 5 -i 0.2 -W 1 10.0.0.2
run dpctl dump-flows demo0
run dpctl show -s demo0

step "the daemon's log"
cat "$LOG"
step "shutdown: SIGTERM removes the datapath and its devices"
tapdpd_stop
run ip netns exec tapdp-demo ip -br link show type tun
echo "(no TAP left)"
