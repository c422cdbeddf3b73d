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
cp "$BUILD/tapdpd" "$BUILD/tapdp-run" "$BUILD/libtapdp.so" "$T/bin/"
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
\$B/tapdp-run -- ovs-dpctl del-dp udp0 && echo "DEL-DP OK"
pid=\$(cat $T/run/pid)
kill -TERM \$pid
wait_until 5 test ! -e /proc/\$pid
ip link show uint0 2>&1 | grep -Fq 'Device "uint0" does not exist.' && echo "CLEAN OK"
SCEN
chmod 644 "$T/scenario.sh"

check_out "the test user is unprivileged" '^[1-9][0-9]*$' \
	setpriv --reuid=$user --regid=nogroup --clear-groups id -u
export -f wait_until
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
check_out "del-dp" "DEL-DP OK" cat "$T/scen.out"
check_out "SIGTERM cleans up" "CLEAN OK" cat "$T/scen.out"
[ "$FAIL" -eq 0 ] || sed 's/^/    | /' "$T/scen.out"
finish
