#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Captures what the kernel's vxlan driver sends, for test-encap.c's known
# answers, and prints the packets (less the link header) as C arrays.
# Run as root, by hand: not part of any test run. Two namespaces joined by
# a veth pair; each vxlan device has a source port range of one port, so
# the source port does not depend on the kernel's flow hash.
#   a: IPv4, UDP checksum, VNI 4660;  b: IPv4, GBP (a marked ping), no
#   checksum;  c: IPv6, checksum, the inner packet ECT(0);  d: IPv6, zero
#   checksum.
set -e
A=encap-kat-a B=encap-kat-b
pcap=$(mktemp)
cleanup() {
	ip netns del $A 2>/dev/null || true
	ip netns del $B 2>/dev/null || true
	rm -f "$pcap"
}
trap cleanup EXIT
cleanup
ip netns add $A
ip netns add $B
ip link add kat-a netns $A type veth peer name kat-b netns $B
ip -n $A addr add 192.0.2.1/24 dev kat-a
ip -n $B addr add 192.0.2.2/24 dev kat-b
ip -n $A addr add 2001:db8::1/64 dev kat-a nodad
ip -n $B addr add 2001:db8::2/64 dev kat-b nodad
ip -n $A link set kat-a up
ip -n $B link set kat-b up
# Checksums computed before the capture, not left to offload.
ip netns exec $A ethtool -K kat-a tx off >/dev/null
ip -n $A link add vxa type vxlan id 4660 remote 192.0.2.2 local 192.0.2.1 \
	dstport 4789 srcport 5000 5001 ttl 64 udpcsum
ip -n $A link add vxb type vxlan id 1193046 remote 192.0.2.2 \
	local 192.0.2.1 dstport 4792 srcport 6000 6001 ttl 33 noudpcsum gbp
ip -n $A link add vxc type vxlan id 7 remote 2001:db8::2 local 2001:db8::1 \
	dstport 4790 srcport 7000 7001 ttl 64 noudp6zerocsumtx
ip -n $A link add vxd type vxlan id 8 remote 2001:db8::2 local 2001:db8::1 \
	dstport 4791 srcport 8000 8001 ttl 64 udp6zerocsumtx
i=1
for d in vxa vxb vxc vxd; do
	ip -n $A link set $d address 02:00:00:00:00:0$i addrgenmode none
	ip -n $A addr add 198.51.100.$i/32 dev $d
	ip -n $A link set $d up
	ip -n $A neigh add 198.51.$i.2 lladdr 02:00:00:00:01:0$i dev $d
	ip -n $A route add 198.51.$i.0/24 dev $d
	i=$((i + 1))
done
ip netns exec $B tcpdump -i kat-b -w "$pcap" -U \
	'udp and dst portrange 4789-4792' 2>/dev/null &
tcpdump=$!
sleep 1
ip netns exec $A ping -c1 -W1 -s 16 198.51.1.2 >/dev/null || true
# The mark 0x481234: GBP's D and A bits and policy 0x1234.
ip netns exec $A ping -c1 -W1 -m 4723252 -s 16 198.51.2.2 >/dev/null || true
ip netns exec $A ping -c1 -W1 -Q 0x02 -s 16 198.51.3.2 >/dev/null || true
ip netns exec $A ping -c1 -W1 -s 16 198.51.4.2 >/dev/null || true
sleep 1
kill $tcpdump
wait $tcpdump 2>/dev/null || true
python3 - "$pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, names = 24, ['kat_vxlan4', 'kat_vxlan4_gbp', 'kat_vxlan6',
                  'kat_vxlan6_nocsum']
for name in names:
    incl = struct.unpack('<I', d[off + 8:off + 12])[0]
    pkt = d[off + 16 + 14:off + 16 + incl]
    off += 16 + incl
    print('static const uint8_t %s[] = {' % name)
    for i in range(0, len(pkt), 12):
        print('\t' + ' '.join('0x%02x,' % b for b in pkt[i:i + 12]))
    print('};')
PY
