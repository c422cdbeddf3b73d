# SPDX-License-Identifier: Apache-2.0
"""Counts the UDP datagrams that reach this namespace, told apart by their
ports (udpgen -c gives each frame its own pair), until none came for two
seconds; prints how many distinct ones came and how many came again.

  dupcount.py READY-FILE    touches READY-FILE once it listens
"""
import socket
import struct
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.settimeout(2)
open(sys.argv[1], "w").close()
seen = set()
again = 0
try:
    while True:
        d = s.recv(128)
        ihl = (d[0] & 0x0F) * 4
        ports = struct.unpack_from("!HH", d, ihl)
        if ports in seen:
            again += 1
        seen.add(ports)
except socket.timeout:
    pass
print(len(seen), again)
