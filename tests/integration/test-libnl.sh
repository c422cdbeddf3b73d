#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A third client, independent of OVS and pyroute2: tests/integration/
# nl-client, written with libnl-3 and libnl-genl-3 as many C tools are,
# through tapdp-run. Family and group resolution, datapaths, ports (and the
# ovs_vport group's notification), flows, and the kernel module's errnos.
. "$(dirname "$0")/../lib.sh"
trap tapdp_cleanup EXIT

nlc() { in_ns "$BUILD/tapdp-run" -- "$BUILD/nl-client" "$@"; }

tapdp_ns_up
check "daemon starts" tapdpd_start

nlc resolve >"$T/resolve" 2>&1
check "genl_ctrl_resolve and genl_ctrl_resolve_grp answer for every family" \
	test $? -eq 0
sed 's/^/    /' "$T/resolve"
for f in ovs_datapath ovs_vport ovs_flow ovs_packet ovs_meter ovs_ct_limit; do
	check_out "genl_ctrl_resolve $f" "^family $f id [0-9]+$" cat "$T/resolve"
done
for f in ovs_datapath ovs_vport ovs_flow ovs_meter ovs_ct_limit; do
	check_out "genl_ctrl_resolve_grp $f/$f" "^group $f/$f id [0-9]+$" \
		cat "$T/resolve"
done
check_out "ovs_packet has no multicast group" \
	"^family ovs_packet: no multicast group$" cat "$T/resolve"
check "six distinct family ids" \
	test "$(grep '^family .* id ' "$T/resolve" | awk '{print $4}' | sort -u | wc -l)" -eq 6

check_out "dp-new nl0 (echoed)" "^datapath nl0 ifindex [1-9][0-9]*$" \
	nlc dp-new nl0
check "the local port is a real device" in_ns ip link show nl0
check_out "dp-get nl0: the local port's ifindex" \
	"^datapath nl0 ifindex $(in_ns cat /sys/class/net/nl0/ifindex)$" \
	nlc dp-get nl0
check "dp-new nl1" nlc dp-new nl1
check_out "dp-dump lists nl0" "^datapath nl0 ifindex" nlc dp-dump
check_out "dp-dump lists nl1" "^datapath nl1 ifindex" nlc dp-dump
check "dp-del nl1" nlc dp-del nl1
check_absent "dp-dump no longer lists nl1" "nl1" nlc dp-dump

check_out "vport-new nl0 np1: the reply" "^vport np1 port 1 type 2$" \
	nlc vport-new nl0 np1
check_out "vport-new nl0 np2: the ovs_vport group is notified" \
	"^notified: new vport np2 port 2 type 2$" nlc vport-new nl0 np2
check "the internal port is a real device" in_ns ip link show np2
check_out "vport-dump lists the local port" "^vport nl0 port 0 type 2$" \
	nlc vport-dump nl0
check_out "vport-dump lists np2" "^vport np2 port 2 type 2$" \
	nlc vport-dump nl0

flow="flow in_port\(1\) eth_type\(0x88cc\) actions:output\(1\),"
check_out "flow-put (echoed)" "^$flow$" nlc flow-put nl0 1
check_out "flow-dump lists the flow" "^$flow$" nlc flow-dump nl0
check_out "flow-del (echoed)" "^$flow$" nlc flow-del nl0 1
check_absent "flow-dump is empty" "^flow" nlc flow-dump nl0

# The errnos of net/openvswitch/datapath.c.
check_out "dp-get of a missing datapath: ENODEV" \
	"^dp-get: ENODEV " nlc dp-get nosuch
check_out "dp-new of an existing datapath: EEXIST" \
	"^dp-new: EEXIST " nlc dp-new nl0
check_out "flow-del of a missing flow: ENOENT" \
	"^flow-del: ENOENT " nlc flow-del nl0 1
check_out "dp-new without an upcall pid: EINVAL" \
	"^malformed: EINVAL " nlc malformed dp-no-pid nlbad
check_out "vport-new without a type: EINVAL" \
	"^malformed: EINVAL " nlc malformed vport-no-type nl0
check_out "flow-new without a key: EINVAL" \
	"^malformed: EINVAL " nlc malformed flow-no-key nl0
check "the malformed requests made no device" \
	bash -c "! ip netns exec $NS ip link show nlbad && ! ip netns exec $NS ip link show nl-bad0"

check "dp-del nl0" nlc dp-del nl0
check "the local device is gone" bash -c "! ip netns exec $NS ip link show nl0"
check_out "dp-get after dp-del: ENODEV" "^dp-get: ENODEV " nlc dp-get nl0
finish
