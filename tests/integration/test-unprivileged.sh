#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Without root: an unprivileged user runs the daemon and the clients inside
# its own user and network namespace (unshare -rn), with /dev/net/tun at
# mode 0666 as distributions ship it. Then, in the same namespaces, a client
# without CAP_NET_ADMIN is refused changes (EPERM) but may read.
. "$(dirname "$0")/../lib.sh"

user=nobody
tun_mode=$(stat -c %a /dev/net/tun)
restore() {
	chmod "$tun_mode" /dev/net/tun
	tapdp_cleanup
}
trap restore EXIT
chmod 0666 /dev/net/tun

# The unprivileged user needs to reach the binaries.
mkdir -p "$T/bin" "$T/run"
cp "$BUILD/tapdpd" "$BUILD/tapdp-run" "$BUILD/libtapdp.so" "$BUILD/tapdpctl" \
	"$T/bin/"
cp -r "$TOP/tests/ovs-dpctl-py/pyshim" "$T/bin/"
cp "$SELFTEST/ovs-dpctl.py" "$T/bin/"
chmod -R a+rX "$T/bin"
chmod 777 "$T/run"

cat >"$T/scenario.sh" <<SCEN
set -u
B=$T/bin
export TAPDP_SOCKET=$T/run/tapdp.sock
ip link set lo up
\$B/tapdpd --socket \$TAPDP_SOCKET --log-file $T/run/log --pidfile $T/run/pid --detach || exit 10
echo "uid: \$(id -u) in namespace"
\$B/tapdp-run -- ovs-dpctl add-dp udp0 && echo "ADD-DP OK"
\$B/tapdp-run -- ovs-dpctl add-if udp0 uint0,type=internal && echo "ADD-IF OK"
ip link add uv0 type veth peer name uv1
\$B/tapdp-run -- ovs-dpctl add-if udp0 uv0 && echo "ADD-NETDEV OK"
\$B/tapdp-run -- ovs-dpctl show
# No CAP_NET_ADMIN: changes refused, reads allowed.
setpriv --inh-caps=-all --bounding-set=-net_admin -- \$B/tapdp-run -- ovs-dpctl add-dp udp1 2>&1
setpriv --inh-caps=-all --bounding-set=-net_admin -- \$B/tapdp-run -- ovs-dpctl del-dp udp0 2>&1 | sed 's/^/NOCAP-DEL: /'
# ovs-dpctl.py's show reads only (DP GET, VPORT dump).
setpriv --inh-caps=-all --bounding-set=-net_admin -- env PYTHONPATH=\$B/pyshim \$B/tapdp-run -- /usr/bin/python3 \$B/ovs-dpctl.py show 2>&1 | sed 's/^/NOCAP: /'
# ovs-dpctl show opens the datapath with a SET: refused, as on the kernel.
setpriv --inh-caps=-all --bounding-set=-net_admin -- \$B/tapdp-run -- ovs-dpctl show 2>&1 | sed 's/^/NOCAP-SHOW: /'
# What tapdpctl sees, as root of the user namespace only: a frame no flow
# matches, captured as its upcall is lost, counted by upcalls, traced.
sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip link set uv0 up
ip link set uv1 up
\$B/tapdpctl capture upcalls --count 1 --timeout 10 >$T/run/cap 2>&1 &
cap=\$!
wait_until 10 grep -q following $T/run/cap
/usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("uv1", 0))
s.send(b"\\xff" * 6 + b"\\x02" * 6 + b"\\x88\\xb5" + bytes(46))'
wait \$cap && sed 's/^/CAPTURE: /' $T/run/cap
\$B/tapdpctl upcalls udp0 | sed 's/^/UPCALLS: /'
\$B/tapdpctl trace uv0 ffffffffffff02020202020288b5\$(printf '%092d' 0) | sed 's/^/TRACE: /'
\$B/tapdp-run -- ovs-dpctl del-dp udp0 && echo "DEL-DP OK"
pid=\$(cat $T/run/pid)
kill -TERM \$pid
wait_until 5 dead \$pid
ip link show uint0 2>&1 | grep -Fq 'Device "uint0" does not exist.' && echo "CLEAN OK"
SCEN
chmod 644 "$T/scenario.sh"

check_out "the test user is unprivileged" '^[1-9][0-9]*$' \
	setpriv --reuid=$user --regid=nogroup --clear-groups id -u
export -f wait_until dead
setpriv --reuid=$user --regid=nogroup --clear-groups --inh-caps=-all \
	unshare -rn bash "$T/scenario.sh" >"$T/scen.out" 2>&1
check_out "daemon and clients run as root of a user namespace" \
	"uid: 0 in namespace" cat "$T/scen.out"
check_out "add-dp works without real root" "ADD-DP OK" cat "$T/scen.out"
check_out "add-if internal (a TAP) works" "ADD-IF OK" cat "$T/scen.out"
check_out "add-if netdev (AF_PACKET) works" "ADD-NETDEV OK" cat "$T/scen.out"
check_out "show lists the ports" "port 2: uv0" cat "$T/scen.out"
check_out "no CAP_NET_ADMIN: add-dp refused with EPERM" \
	"add_dp \(Operation not permitted\)" cat "$T/scen.out"
check_out "no CAP_NET_ADMIN: del-dp refused with EPERM" \
	"NOCAP-DEL: .*\(Operation not permitted\)" cat "$T/scen.out"
check_out "no CAP_NET_ADMIN: reads (ovs-dpctl.py show) still work" \
	"NOCAP: udp0:$" cat "$T/scen.out"
check_out "no CAP_NET_ADMIN: show's SET refused, as on the kernel" \
	"NOCAP-SHOW: .*opening datapath udp0 failed \(Operation not permitted\)" \
	cat "$T/scen.out"
check_out "tapdpctl capture: the frame's upcall lost (no pid)" \
	"CAPTURE: [0-9.]+ udp0 2 uv0 lost:miss portid=0 ENOTCONN len=60" cat "$T/scen.out"
check_out "tapdpctl upcalls: the miss, lost for want of a socket" \
	"UPCALLS: datapath udp0: upcalls [1-9][0-9]* \(miss [1-9][0-9]*, action 0\), lost [1-9][0-9]* \(socket full 0, no socket [1-9][0-9]*, other 0\)" \
	cat "$T/scen.out"
check_out "tapdpctl trace: no megaflow, and where its upcall would go" \
	"TRACE: no megaflow \(masks probed: 0\): upcall to portid 0" cat "$T/scen.out"
check_out "del-dp" "DEL-DP OK" cat "$T/scen.out"
check_out "SIGTERM cleans up" "CLEAN OK" cat "$T/scen.out"
[ "$FAIL" -eq 0 ] || sed 's/^/    | /' "$T/scen.out"

# Two hosts joined by vxlan, still without real root: host a is the user
# namespace's network namespace, host b a namespace made inside it
# (unshare -n), a veth between them; a daemon each, an internal port each
# as the VM, the vxlan ports by ovs-dpctl.py's compat path.
cat >"$T/tunnel.sh" <<SCEN
set -u
B=$T/bin
ip link set lo up
unshare -n sleep 600 &
HB=\$!
# The child has its own namespace once unshare(2) ran, not at fork.
other_ns() { [ "\$(readlink /proc/\$HB/ns/net)" != "\$(readlink /proc/self/ns/net)" ]; }
wait_until 5 other_ns
inb() { nsenter -t \$HB -n "\$@"; }
ip link add ua type veth peer name ub netns \$HB
ip addr add 172.31.220.1/24 dev ua
ip link set ua up
inb ip link set lo up
inb ip addr add 172.31.220.2/24 dev ub
inb ip link set ub up
\$B/tapdpd --socket $T/run/a.sock --log-file $T/run/a.log --pidfile $T/run/a.pid --detach || exit 10
inb \$B/tapdpd --socket $T/run/b.sock --log-file $T/run/b.log --pidfile $T/run/b.pid --detach || exit 10
for h in a b; do
	x=; [ \$h = b ] && x=inb
	export TAPDP_SOCKET=$T/run/\$h.sock
	py() { \$x env PYTHONPATH=\$B/pyshim \$B/tapdp-run -- /usr/bin/python3 \$B/ovs-dpctl.py "\$@"; }
	py add-dp tdp >/dev/null
	py add-if -t internal tdp vm\$h >/dev/null
	py add-if -t vxlan --lwt '' tdp vxlan_sys_4789 >/dev/null
	[ \$h = a ] && me=1 peer=2 || me=2 peer=1
	\$x ip addr add 10.9.0.\$me/24 dev vm\$h
	\$x ip link set vm\$h mtu 1400 up
	py add-flow tdp "in_port(1),eth()" \\
		"set(tunnel(tun_id=5,dst=172.31.220.\$peer,ttl=64)),2" || echo "FLOW FAILED"
	py add-flow tdp \\
		"tunnel(tun_id=5,src=172.31.220.\$peer,dst=172.31.220.\$me),in_port(2),eth()" 1 || echo "FLOW FAILED"
done
echo "uid: \$(id -u)"
ping -c 3 -i 0.2 -W 2 10.9.0.2 >/dev/null && echo "PING OK"
inb ping -c 2 -i 0.2 -W 2 10.9.0.1 >/dev/null && echo "PING BACK OK"
kill \$(cat $T/run/a.pid) \$(cat $T/run/b.pid) \$HB
SCEN
chmod 644 "$T/tunnel.sh"
setpriv --reuid=$user --regid=nogroup --clear-groups --inh-caps=-all \
	unshare -rn bash "$T/tunnel.sh" >"$T/tnl.out" 2>&1
check_out "vxlan hosts: as root of a user namespace" "uid: 0" cat "$T/tnl.out"
check_absent "vxlan hosts: every flow installed" "FLOW FAILED" cat "$T/tnl.out"
check_out "vxlan hosts: ping across the tunnel" "PING OK" cat "$T/tnl.out"
check_out "vxlan hosts: ping back" "PING BACK OK" cat "$T/tnl.out"
[ "$FAIL" -eq 0 ] || sed 's/^/    | /' "$T/tnl.out"
finish
