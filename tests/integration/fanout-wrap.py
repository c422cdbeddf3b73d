# SPDX-License-Identifier: Apache-2.0
"""Brings the kernel's count of AF_PACKET fanout group ids round to 0, so
that the next group made with PACKET_FANOUT_FLAG_UNIQUEID (in a network
namespace where 0 is free) gets id 0, as the first one after boot does.

The count is global and moves on each attempt, even one that fails (an
unbound socket cannot join): one group made to read where it stands, then
failing attempts up to 65536. Run it in a namespace with lo up; prints the
id it read.
"""
import socket
import struct

SOL_PACKET = 263
PACKET_FANOUT = 18
UNIQUE = struct.pack("i", 0x2000 << 16)  # hash, PACKET_FANOUT_FLAG_UNIQUEID

probe = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
probe.bind(("lo", 0x0003))  # ETH_P_ALL
probe.setsockopt(SOL_PACKET, PACKET_FANOUT, UNIQUE)
last = struct.unpack("i", probe.getsockopt(SOL_PACKET, PACKET_FANOUT, 4))[0]
last &= 0xFFFF
unbound = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
for _ in range(0xFFFF - last):
    try:
        unbound.setsockopt(SOL_PACKET, PACKET_FANOUT, UNIQUE)
    except OSError:
        pass
print(last)
