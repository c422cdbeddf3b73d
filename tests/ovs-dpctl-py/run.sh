#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel selftests' own ovs-dpctl.py (pyroute2), extracted from Debian's
# linux-source-6.12 at test time, managing datapaths and ports on tapdpd.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

check "ovs-dpctl.py extracted from linux-source-6.12" test -f "$SELFTEST/ovs-dpctl.py"

tapdp_ns_up
check "daemon starts" tapdpd_start
check_out "add-dp" "DP 'pydp' added" pyctl add-dp pydp
check "the local port is a real device" in_ns ip link show pydp
check_out "show" "^pydp:$" pyctl show
check_out "show: dp statistics" "lookups: hit:0 missed:0 lost:0" pyctl show
check_out "show: masks cache" "masks-cache: size:256" pyctl show
check_out "show: the default features (per-CPU dispatch)" "features: 0x8" \
	pyctl show pydp
check_out "add-dp again: already exists" "already exists" pyctl add-dp pydp

in_ns ip link add pv0 type veth peer name pv1
check "add-if (netdev)" pyctl add-if pydp pv0
check "add-if -t internal" pyctl add-if -t internal pydp pyint
check_out "show lists the netdev port" "port 1: pv0 \(netdev\)" pyctl show
check_out "show lists the internal port" "port 2: pyint \(internal\)" \
	pyctl show
check "del-if" pyctl del-if pydp pv0
check_absent "show no longer lists it" pv0 pyctl show
check "del-dp" pyctl del-dp pydp
check "the datapath's device is gone" link_gone "$NS" pydp

# -V versioning: 2:1 asks for OVS_DP_F_UNALIGNED; -V 0 on an existing
# datapath gets EEXIST and drops its features.
check_out "add-dp -V 2:1" "DP 'vdp' added" pyctl add-dp -V 2:1 vdp
check_out "features 0x1" "features: 0x1" pyctl show vdp
check_out "add-dp -V 0 on it: exists" "already exists" pyctl add-dp -V 0 vdp
check_out "features reset to 0" "features: 0x0" pyctl show vdp
check "del-dp vdp" pyctl del-dp vdp

# ovs_meter, driven by pyroute2 as ovs-vswitchd's meter probe drives it.
pyctl add-dp mdp >/dev/null 2>&1
adopt "meter: " in_ns "$BUILD/tapdp-run" -- /usr/bin/python3 \
	"$TOP/tests/ovs-dpctl-py/meter.py" mdp
adopt "notify: " in_ns "$BUILD/tapdp-run" -- /usr/bin/python3 \
	"$TOP/tests/ovs-dpctl-py/notify.py"
# Per-CPU upcall dispatch spreads a port's new flows over the handlers.
in_ns ip link add uv0 type veth peer name uv1
in_ns ip link set uv0 up
in_ns ip link set uv1 up
adopt "upcall: " in_ns env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
	"$BUILD/tapdp-run" -- /usr/bin/python3 \
	"$TOP/tests/ovs-dpctl-py/upcall.py" uv0 uv1
# psample: a flow's psample actions reach a pyroute2 member of "packets".
in_ns ip link add sv0 type veth peer name sv1
in_ns ip link set sv0 up
in_ns ip link set sv1 up
pyctl add-dp sdp >/dev/null 2>&1
pyctl add-if sdp sv0 >/dev/null 2>&1
PSAMPLE_ACTS="psample(group=10,cookie=0a0b),sample(sample=50%,actions(psample(group=11))),trunc(20),psample(group=12)"
check "add-flow with psample actions" pyctl add-flow sdp \
	"in_port(1),eth(),eth_type(0x0800),ipv4()" "$PSAMPLE_ACTS"
# (ovs-dpctl.py prints an action's first occurrence for each of its kind:
# the second psample shows as the first; group 12's samples show it.)
check_out "dump-flows gives them back" \
	"actions:psample\(group=10,cookie\(0a0b\)\),sample\(sample=50.00%,actions\(psample\(group=11\)\)\),trunc\(20\),psample\(" \
	pyctl dump-flows sdp
adopt "psample: " in_ns env PYTHONPATH="$TOP/tests/ovs-dpctl-py/pyshim" \
	"$BUILD/tapdp-run" -- /usr/bin/python3 \
	"$TOP/tests/ovs-dpctl-py/psample.py" sv0 sv1
check_out "ovs-dpctl no longer misses meters" "^system@mdp:$" \
	bash -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl show 2>&1"
check_absent "ovs-dpctl prints nothing on stderr" "." \
	bash -c "ip netns exec $NS $BUILD/tapdp-run -- ovs-dpctl show 2>&1 >/dev/null"
finish
