# SPDX-License-Identifier: Apache-2.0
"""A one-shot TFTP server for the conntrack helper tests (RFC 1350, read
requests only, options ignored): answers from a port of its own, as TFTP
does, with DATA (1300 bytes: three blocks of 512).

  tftp.py serve     on port 69; prints "request from IP:PORT"
"""
import socket
import struct
import sys

DATA = bytes(range(256)) * 5 + bytes(20)   # 1300 bytes


def serve():
    lsock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("0.0.0.0", 69))
    lsock.settimeout(20)
    while True:
        req, peer = lsock.recvfrom(1500)
        if req[:2] == b"\0\1":
            break
    print("request from %s:%d" % peer, flush=True)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((lsock.getsockname()[0], 0))
    s.settimeout(2)
    block = 1
    while True:
        chunk = DATA[(block - 1) * 512:block * 512]
        for _ in range(5):
            s.sendto(struct.pack("!HH", 3, block) + chunk, peer)
            try:
                ack, _ = s.recvfrom(100)
            except socket.timeout:
                continue
            if ack[:4] == struct.pack("!HH", 4, block):
                break
        else:
            print("no ACK for block %d" % block)
            return
        if len(chunk) < 512:
            break
        block += 1
    print("sent %d bytes" % len(DATA), flush=True)


if sys.argv[1] == "serve":
    serve()
