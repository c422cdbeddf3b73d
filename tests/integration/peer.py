# SPDX-License-Identifier: Apache-2.0
"""Tiny endpoints for the conntrack tests: a server that answers one client
and prints the address it came from, a client that prints the answer and
the address it came from.

  peer.py serve tcp|udp|udplite|sctp PORT    prints "from IP:PORT"
  peer.py send tcp|udp|udplite|sctp IP PORT [SPORT]
                                   prints "reply from IP:PORT DATA"

sctp is one DATA chunk each way over raw IP sockets (the kernel here has
no SCTP): each end checks the CRC32c of what it gets and prints "badcrc"
in place of the data when it is wrong.
"""
import socket
import struct
import sys

IPPROTO_UDPLITE = 136
IPPROTO_SCTP = 132


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def sctp_packet(sport, dport, text):
    data = text.encode()
    chunk = struct.pack("!BBHIHHI", 0, 3, 16 + len(data), 1, 0, 0, 0) + data
    chunk += b"\0" * (-len(chunk) % 4)
    head = struct.pack("!HHII", sport, dport, 1, 0)
    crc = crc32c(head + chunk)
    return head[:8] + struct.pack("<I", crc) + chunk


def sctp_recv(s, port):
    """The first SCTP packet to port: (source address, its port, text)."""
    while True:
        pkt, peer = s.recvfrom(2048)
        l4 = pkt[(pkt[0] & 15) * 4:]
        sport, dport = struct.unpack("!HH", l4[:4])
        if dport != port:
            continue
        want = crc32c(l4[:8] + b"\0\0\0\0" + l4[12:])
        ok = struct.unpack("<I", l4[8:12])[0] == want
        text = l4[28:28 + struct.unpack("!H", l4[14:16])[0] - 16]
        return peer[0], sport, text.decode() if ok else "badcrc"


proto = sys.argv[2]
if proto == "sctp":
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, IPPROTO_SCTP)
    s.settimeout(5)
    if sys.argv[1] == "serve":
        port = int(sys.argv[3])
        ip, sport, text = sctp_recv(s, port)
        s.sendto(sctp_packet(port, sport, "ok"), (ip, 0))
        print("from %s:%d %s" % (ip, sport, text), flush=True)
    else:
        dst, dport = sys.argv[3], int(sys.argv[4])
        sport = int(sys.argv[5]) if len(sys.argv) > 5 else 5000
        s.sendto(sctp_packet(sport, dport, "hi"), (dst, 0))
        ip, port, text = sctp_recv(s, sport)
        print("reply from %s:%d %s" % (ip, port, text))
    sys.exit(0)

kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
s = socket.socket(socket.AF_INET, kind,
                  IPPROTO_UDPLITE if proto == "udplite" else 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.settimeout(5)
if sys.argv[1] == "serve":
    s.bind(("0.0.0.0", int(sys.argv[3])))
    if kind == socket.SOCK_STREAM:
        s.listen(1)
        c, peer = s.accept()
        c.recv(100)
        c.sendall(b"ok")
        c.close()
    else:
        _, peer = s.recvfrom(100)
        s.sendto(b"ok", peer)
    print("from %s:%d" % peer, flush=True)
else:
    if len(sys.argv) > 5:
        s.bind(("0.0.0.0", int(sys.argv[5])))
    dst = (sys.argv[3], int(sys.argv[4]))
    # Connected, so that ICMP errors come back as socket errors.
    s.connect(dst)
    s.send(b"hi")
    data, peer = s.recv(100), s.getpeername()
    print("reply from %s:%d %s" % (peer[0], peer[1], data.decode()))
