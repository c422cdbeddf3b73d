# SPDX-License-Identifier: Apache-2.0
"""Tiny TCP/UDP endpoints for the conntrack tests: a server that answers one
client and prints the address it came from, a client that prints the answer
and the address it came from.

  peer.py serve tcp|udp PORT     prints "from IP:PORT"
  peer.py send tcp|udp IP PORT [SPORT]   prints "reply from IP:PORT"
"""
import socket
import sys

kind = socket.SOCK_STREAM if sys.argv[2] == "tcp" else socket.SOCK_DGRAM
s = socket.socket(socket.AF_INET, kind)
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
