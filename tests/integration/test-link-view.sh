#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Link dumps, answers and notifications under the shim read as on
# openvswitch.ko (families/link-view.c): a port's device has its
# datapath's local port as master (and "openvswitch" as its master's
# kind), an internal port is of kind openvswitch, a tunnel or VLAN device
# the daemon made has its driver's link info; a dump filtered by master
# lists a datapath's ports. Two datapaths, three netdev ports on one; a
# port deleted, a device renamed (the port follows it, as the kernel's
# vport takes its device's name, also after a kill -9); another
# namespace whose devices have the same indexes sees nothing of it; the
# kernel's view, without the shim, stays the kernel's; pyroute2 reads it
# too.
. "$(dirname "$0")/../lib.sh"
O=tapdplo$$
trap 'ip netns del "$O" 2>/dev/null; kill "$mon" 2>/dev/null; tapdp_cleanup' EXIT

shim() { in_ns "$BUILD/tapdp-run" -- "$@"; }
shim_o() { ip netns exec "$O" "$BUILD/tapdp-run" -- "$@"; }
# One device's line, as `ip -o` gives it.
line() { shim ip -o -d link show "$@"; }

tapdp_ns_up
check "daemon starts" tapdpd_start
for p in v w x y; do
	in_ns ip link add ${p}0 type veth peer name ${p}1
	in_ns ip link set ${p}0 up
done
check "a datapath" dpctl add-dp ovs-system
check "... with an internal port" dpctl add-if ovs-system br0,type=internal
for p in v0 w0 x0; do
	check "... and netdev port $p" dpctl add-if ovs-system $p
done
check "... and a vxlan port" dpctl add-if ovs-system vxp,type=vxlan,remote_ip=flow
check "a second datapath, y0 its port" eval \
	'dpctl add-dp dp2 && dpctl add-if dp2 y0'
check "a VLAN device (userspace: no 8021q here) on v1, a port" eval \
	'shim ip link add link v1 name vl10 type vlan id 10 &&
	 dpctl add-if dp2 vl10'
check "a geneve device of one remote" \
	shim ip link add gn0 type geneve id 5 remote 10.1.1.2

for p in v0 w0 x0; do
	check_out "$p: master ovs-system, its master's kind openvswitch" \
		"master ovs-system .*veth.*openvswitch_slave" line $p
done
check_out "y0: master dp2" "master dp2 " line y0
check_out "vl10: vlan, on v1, master dp2" \
	"vl10@v1: .*master dp2 .*vlan protocol 802.1Q id 10 .*openvswitch_slave" \
	line vl10
check_out "the vxlan port's device: vxlan, collect-metadata, a port" \
	"master ovs-system .*vxlan external .*openvswitch_slave" \
	line vxlan_sys_4789
check_out "br0: kind openvswitch" " openvswitch " line br0
check_absent "... with no master (an internal port has none)" "master" \
	line br0
check_out "ovs-system: kind openvswitch" " openvswitch " line ovs-system
check_absent "... no master" "master" line ovs-system
check_absent "v1, no port: the kernel's veth, no master" \
	"master|openvswitch" line v1
check_out "gn0: geneve, its id and remote" "geneve id 5 remote 10.1.1.2" \
	line gn0
check_absent "... no master: it is no port" "master" line gn0
check_out "a whole dump says the same" "v0@v1: .*master ovs-system" \
	shim ip -o link show
check_absent "without the shim, the kernel's view: no master" "master" \
	in_ns ip -o link show
check_out "without it, br0 is the kernel's TAP" " tun " \
	in_ns ip -o -d link show br0

# A dump filtered by master: the kernel knows no device with one.
masters() { shim ip -o link show master "$1" | awk '{ print $2 }' | tr '\n' ' '; }
check_out "ip link show master ovs-system: v0, w0, x0, the vxlan port" \
	"^v0@v1: w0@w1: x0@x1: vxlan_sys_4789: $" masters ovs-system
check_out "ip link show master dp2: y0 and vl10" "^y0@y1: vl10@v1: $" \
	masters dp2

# A notification: the kernel's, of an MTU change, seen under the shim.
shim ip -o monitor link >"$T/monitor" 2>&1 &
mon=$!
wait_until 5 test -s "$T/monitor" || sleep 0.5
in_ns ip link set w0 mtu 1400
check "a notification of w0's new MTU names its master" \
	wait_until 5 grep -q "w0@w1: .*mtu 1400 .*master ovs-system" "$T/monitor"
# A port added and deleted: the kernel tells of the master gained and
# lost (netdev_master_upper_dev_link), and so does the daemon.
in_ns ip link add z0 type veth peer name z1
check "z0 added to the datapath" dpctl add-if ovs-system z0
check "... a notification names its master" \
	wait_until 5 grep -q "z0@z1: .*master ovs-system" "$T/monitor"
last_z0() { grep "z0@z1: " "$T/monitor" | tail -1; }
n=$(grep -c "z0@z1: " "$T/monitor")
more_z0() { [ "$(grep -c "z0@z1: " "$T/monitor")" -gt "$n" ]; }
check "z0 deleted from it" dpctl del-if ovs-system z0
check "... a notification follows" wait_until 5 more_z0
check_absent "... naming no master" "master" last_z0
kill "$mon" 2>/dev/null

# Another namespace, without a datapath: devices of the same indexes
# there are the kernel's alone.
ip netns add "$O"
for i in 1 2 3 4 5 6 7; do
	ip -n "$O" link add o$i type veth peer name p$i
done
check_absent "another namespace's devices of the same indexes: no master" \
	"master|openvswitch" shim_o ip -o -d link show

# A port deleted: no master any more.
check "w0 deleted from the datapath" dpctl del-if ovs-system w0
check_absent "... has no master" "master" line w0
check_out "... and is not listed under ovs-system" \
	"^v0@v1: x0@x1: vxlan_sys_4789: $" masters ovs-system

# A device renamed: the port takes the device's name, as the kernel's.
check "x0 renamed x0new (the kernel's rename)" in_ns ip link set x0 name x0new
check "the port goes by x0new" \
	wait_until 5 eval 'dpctl show ovs-system | grep -q "port [0-9]*: x0new$"'
check_out "... still master ovs-system" "x0new@x1: .*master ovs-system" \
	line x0new
pid=$(cat "$PIDF")
kill -KILL "$pid"
wait_until 5 dead "$pid"
check "a daemon killed with SIGKILL, and a new one" tapdpd_start
check_out "the port is still x0new" "port [0-9]+: x0new$" dpctl show ovs-system
check "x0new deleted by its new name" dpctl del-if ovs-system x0new
check_absent "... gone from the datapath" "x0" dpctl show ovs-system

# Another client of its own: pyroute2's IFLA_MASTER and slave kind.
check_out "pyroute2: v0's IFLA_MASTER is ovs-system's index" "^same openvswitch$" \
	shim /usr/bin/python3 -c '
from pyroute2 import IPRoute
ipr = IPRoute()
dp = ipr.link_lookup(ifname="ovs-system")[0]
v0 = ipr.get_links(ipr.link_lookup(ifname="v0")[0])[0]
info = v0.get_attr("IFLA_LINKINFO")
print("same" if v0.get_attr("IFLA_MASTER") == dp else "other",
      info.get_attr("IFLA_INFO_SLAVE_KIND") if info else None)'

finish
