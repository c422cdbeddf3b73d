#!/bin/bash
# New megaflows per second that ovs-vswitchd sets up through tapdp: a host
# sends frames from N new source MACs (each a new flow for the NORMAL
# learning switch) as fast as one Python sender can, and the datapath's
# counters say how many flows exist, how many upcalls were lost, and how
# long it took. The baseline is the send rate itself (offered new flows per
# second) in the same run.
#
#   bash bench/upcall.sh [N]     (default 20000; as root)
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all || exit 1
. tests/lib.sh
N=${1:-20000}
HOSTS="upa$$ upb$$"
ovs_env
trap ovs_cleanup EXIT

tapdp_ns_up
tapdpd_start >/dev/null 2>&1
ovsdb_start >/dev/null 2>&1
$VSCTL --no-wait set Open_vSwitch . other_config:max-idle=60000 \
	other_config:flow-limit=200000
vswitchd_start 2>/dev/null
$VSCTL add-br br0
set -- $HOSTS
i=0
for h in $HOSTS; do
	i=$((i + 1))
	host_add "$h" "u$i" "10.11.0.$i/24"
	$VSCTL add-port br0 "u$i"
done
ip netns exec "$1" ping -c 2 -i 0.2 -W 2 10.11.0.2 >/dev/null
DST=$(ip netns exec "$2" cat /sys/class/net/eth0/address)
flows() { appctl dpctl/dump-flows | grep -c "eth_type(0x0800)"; }

start=$(date +%s.%N)
sent=$(ip netns exec "$1" /usr/bin/python3 - "$DST" "$N" <<'PY'
import socket, struct, sys, time
dst = bytes.fromhex(sys.argv[1].replace(":", ""))
n = int(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
ip = bytes.fromhex("4500001c00004000401100000a0b00010a0b0002")
udp = struct.pack("!HHHH", 5000, 7777, 8, 0)
t0 = time.time()
for i in range(n):
    s.send(dst + bytes([2, 0xbb, 0, i >> 16, (i >> 8) & 0xff, i & 0xff]) +
           b"\x08\x00" + ip + udp)
print("%d %.3f" % (n, time.time() - t0))
PY
)
# Wait until the flow count stops growing.
prev=-1
for _ in $(seq 60); do
	cur=$(flows)
	[ "$cur" -eq "$prev" ] && break
	prev=$cur
	sleep 0.5
done
end=$(date +%s.%N)
lost=$(in_ns "$BUILD/tapdp-run" -- ovs-dpctl show 2>/dev/null |
	sed -n 's/.*lost:\([0-9]*\).*/\1/p')
set -- $sent
awk -v n="$1" -v st="$2" -v f="$cur" -v s="$start" -v e="$end" -v l="$lost" \
	'BEGIN {
		printf "upcall: %d new sources offered in %.2f s (%.0f/s offered)\n", n, st, n / st;
		printf "        %d megaflows set up in %.2f s: %.0f new flows/s, %d upcalls lost\n",
		       f, e - s - 0.5, f / (e - s - 0.5), l;
	}'
