#!/bin/bash
# Bonds under ovs-vswitchd on tapdp: two bridges joined by two veth links,
# bonded on both sides, a host on each bridge; traffic crosses, and keeps
# crossing when the active link goes down. active-backup, then balance-slb.
. "$(dirname "$0")/../lib.sh"

HOSTS="bda$$ bdb$$"
export OVS_RUNDIR=$T OVS_LOGDIR=$T OVS_DBDIR=$T OVS_SYSCONFDIR=$T
VSCTL="ovs-vsctl --db=unix:$T/db.sock --timeout=10"
cleanup() {
	for p in vswitchd ovsdb; do
		[ -f "$T/$p.pid" ] && kill "$(cat "$T/$p.pid")" 2>/dev/null
	done
	sleep 0.5
	for h in $HOSTS; do ip netns del "$h" 2>/dev/null; done
	tapdp_cleanup
}
trap cleanup EXIT
appctl() { ovs-appctl -t "$T/ovs-vswitchd.$(cat "$T/vswitchd.pid").ctl" "$@"; }

tapdp_ns_up
check "daemon starts" tapdpd_start
ovsdb-tool create "$T/conf.db" /usr/share/openvswitch/vswitch.ovsschema
in_ns ovsdb-server --remote="punix:$T/db.sock" --pidfile="$T/ovsdb.pid" \
	--detach --log-file="$T/ovsdb.log" "$T/conf.db" 2>/dev/null
$VSCTL --no-wait init
check "ovs-vswitchd starts" in_ns "$BUILD/tapdp-run" -- ovs-vswitchd \
	"unix:$T/db.sock" --pidfile="$T/vswitchd.pid" --detach \
	--log-file="$T/vswitchd.log"
$VSCTL add-br br0 -- add-br br1
for l in 1 2; do
	in_ns ip link add "l${l}a" type veth peer name "l${l}b"
	in_ns ip link set "l${l}a" up
	in_ns ip link set "l${l}b" up
done
set -- $HOSTS
i=0
for h in $HOSTS; do
	ip netns add "$h"
	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip link add "h$i" netns "$NS" type veth peer name eth0 netns "$h"
	in_ns ip link set "h$i" up
	ip netns exec "$h" ip link set eth0 up
	ip netns exec "$h" ip addr add "10.9.0.$((i + 1))/24" dev eth0
	$VSCTL add-port "br$i" "h$i"
	i=$((i + 1))
done
# Both sides prefer link 1: active-backup drops what arrives on a backup
# member, so the two ends must agree on the active one.
$VSCTL add-bond br0 bond0 l1a l2a bond_mode=active-backup \
	other_config:bond-primary=l1a \
	-- add-bond br1 bond1 l1b l2b bond_mode=active-backup \
	other_config:bond-primary=l1b
# Members are enabled once OVS has seen their carrier.
for _ in $(seq 40); do
	appctl bond/show bond0 | grep -q "active-backup primary: l1a" &&
		appctl bond/show bond1 | grep -q "active member mac.*(l1b)" &&
		appctl bond/show bond0 | grep -q "active member mac.*(l1a)" && break
	sleep 0.25
done
check_out "bond0 reports an active member" "active member mac" \
	appctl bond/show bond0
check "active-backup: traffic crosses the bond" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.9.0.2
in_ns ip link set l1a down
in_ns ip link set l1b down
sleep 2
check "active-backup: traffic survives the first link going down" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.9.0.2
in_ns ip link set l1a up
in_ns ip link set l1b up
$VSCTL set port bond0 bond_mode=balance-slb -- set port bond1 bond_mode=balance-slb
sleep 2
check "balance-slb: traffic crosses the bond" \
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 10.9.0.2
check_out "bond0 is balance-slb" "bond_mode: balance-slb" appctl bond/show bond0
check "no WARN, ERR or EMER line in ovs-vswitchd's log" \
	bash -c "! grep -E '\|(WARN|ERR|EMER)\|' $T/vswitchd.log"
[ "$FAIL" -eq 0 ] || grep -E '\|(WARN|ERR|EMER)\|' "$T/vswitchd.log" | head
finish
