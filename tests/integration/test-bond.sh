#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Bonds under ovs-vswitchd on tapdp: two bridges joined by two veth links,
# bonded on both sides, a host on each bridge; traffic crosses, and keeps
# crossing when the active link goes down. active-backup, then balance-slb.
. "$(dirname "$0")/../lib.sh"

HOSTS="bda$$ bdb$$"
ovs_env
trap ovs_cleanup EXIT

tapdp_ns_up
check "daemon starts" tapdpd_start
check "ovsdb-server starts" ovsdb_start
check "ovs-vswitchd starts" vswitchd_start
$VSCTL add-br br0 -- add-br br1
for l in 1 2; do
	in_ns ip link add "l${l}a" type veth peer name "l${l}b"
	in_ns ip link set "l${l}a" up
	in_ns ip link set "l${l}b" up
done
set -- $HOSTS
i=0
for h in $HOSTS; do
	host_add "$h" "h$i" "10.9.0.$((i + 1))/24"
	$VSCTL add-port "br$i" "h$i"
	i=$((i + 1))
done
# Both sides prefer link 1: active-backup drops what arrives on a backup
# member, so the two ends must agree on the active one.
$VSCTL add-bond br0 bond0 l1a l2a bond_mode=active-backup \
	other_config:bond-primary=l1a \
	-- add-bond br1 bond1 l1b l2b bond_mode=active-backup \
	other_config:bond-primary=l1b
active() { appctl bond/show "$1" | grep -q "active member mac.*($2)"; }
# Members are enabled once OVS has seen their carrier.
primaries_active() {
	appctl bond/show bond0 | grep -q "active-backup primary: l1a" &&
		active bond0 l1a && active bond1 l1b
}
wait_until 10 primaries_active
check_out "bond0 reports an active member" "active member mac" \
	appctl bond/show bond0
check "active-backup: traffic crosses the bond" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.9.0.2
in_ns ip link set l1a down
in_ns ip link set l1b down
wait_until 10 eval "active bond0 l2a && active bond1 l2b"
check "active-backup: traffic survives the first link going down" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.9.0.2
in_ns ip link set l1a up
in_ns ip link set l1b up
$VSCTL set port bond0 bond_mode=balance-slb -- set port bond1 bond_mode=balance-slb
# Both bonds in the new mode, with both members enabled again.
slb_ready() {
	local b
	for b in bond0 bond1; do
		appctl bond/show $b >"$T/bond" &&
			grep -q "bond_mode: balance-slb" "$T/bond" &&
			[ "$(grep -c '^member .*: enabled$' "$T/bond")" -eq 2 ] ||
			return 1
	done
}
wait_until 10 slb_ready
check "balance-slb: traffic crosses the bond" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.9.0.2
check_out "bond0 is balance-slb" "bond_mode: balance-slb" appctl bond/show bond0
check_vswitchd_log
finish
