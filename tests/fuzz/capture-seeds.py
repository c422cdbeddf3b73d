#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fuzz seeds from real clients' traffic.

Reads an strace log (strace -f -xx -s 300000 -e trace=recvmsg) of a run in
which tapdpd served real clients, finds the daemon's side of each shim
connection (a conversation opens with a HELLO, include/tapdp/proto.h) and
writes, under OUT/<target>/, one file per distinct input (named by its
SHA-1, as libFuzzer names them):
  fuzz-server        the conversation's protocol byte and its requests
  fuzz-genl          each datagram a NETLINK_GENERIC socket sent
  fuzz-ctnetlink     each datagram a NETLINK_NETFILTER socket sent
  fuzz-flow-netlink  a flow request's key and its mask or actions
  fuzz-actions       a frame (a packet execute's, or a plain UDP one) and
                     a flow's or a packet execute's actions
  fuzz-journal       a journal (datapath/journal.h) of a conversation's
                     OVS requests, as a successor would replay it
The seeds are many and alike: minimize them with libFuzzer's -merge=1.

Usage: capture-seeds.py TRACE OUT"""

import hashlib
import os
import re
import struct
import sys

OP_HELLO, OP_SEND, OP_KERNEL = 1, 4, 9
PROTO_VERSION = 5
NETLINK_ROUTE, NETLINK_NETFILTER, NETLINK_GENERIC = 0, 12, 16
PROTOCOL_BYTE = {NETLINK_GENERIC: 0, NETLINK_NETFILTER: 1, NETLINK_ROUTE: 2}
# A conversation longer than this is cut (ovs-dpctl add-flows of 3000).
MAX_REQUESTS = 64
MAX_BYTES = 32768

CALL = re.compile(r'^(\d+)\s+recvmsg\((\d+), \{.*?iov_base="((?:\\x[0-9a-f]{2})*)"'
                  r'.*\) = (\d+)$')


def records(trace):
    """(pid, fd, bytes) of each recvmsg that returned data."""
    with open(trace, errors='replace') as f:
        for line in f:
            m = CALL.match(line.rstrip('\n'))
            if not m:
                continue
            data = bytes.fromhex(m.group(3).replace('\\x', ''))
            n = int(m.group(4))
            if n and len(data) == n:
                yield int(m.group(1)), int(m.group(2)), data


def conversations(trace):
    """[(protocol, [request bytes])] in the order they started."""
    open_ = {}
    done = []
    for pid, fd, data in records(trace):
        key = (pid, fd)
        if len(data) == 16:
            op, v, _, proto = struct.unpack('<Iiii', data)
            if op == OP_HELLO and v == PROTO_VERSION:
                conv = (proto, [])
                open_[key] = conv
                done.append(conv)
                continue
        if key in open_ and len(data) >= 16:
            open_[key][1].append(data)
    return done


def attrs(buf):
    """{type: payload} of a run of netlink attributes, None if it is not
    exactly one."""
    out, off = {}, 0
    while off < len(buf):
        if len(buf) - off < 4:
            return None
        ln, ty = struct.unpack_from('<HH', buf, off)
        if ln < 4 or off + ln > len(buf):
            return None
        out[ty & 0x3fff] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def split_seed(first, second):
    return struct.pack('<H', len(first)) + first + second


# Ethernet, IPv4, UDP 10.0.0.1:1 -> 10.0.0.2:2, 4 bytes of data.
UDP_FRAME = bytes.fromhex(
    '020000000002020000000001080045000020000100004011'
    '66c90a0000010a0000020001000200000c0000') + b'data'


def ovs_seeds(msg, out):
    """A message of the OVS families: flow key, mask and actions; a packet
    execute's frame and actions."""
    if len(msg) < 24:
        return
    a = attrs(msg[24:])
    if not a:
        return
    key = a.get(1)
    if key is not None and attrs(key) is not None and (2 in a or 7 in a):
        # OVS_FLOW_ATTR_KEY, _ACTIONS, _MASK
        if 7 in a:
            out['fuzz-flow-netlink'].add(split_seed(key, a[7]))
        if 2 in a:
            out['fuzz-flow-netlink'].add(split_seed(key, a[2]))
            out['fuzz-actions'].add(split_seed(UDP_FRAME, a[2]))
    if 1 in a and 3 in a and 2 in a and attrs(a[2]) is not None:
        # OVS_PACKET_ATTR_PACKET, _KEY, _ACTIONS
        out['fuzz-actions'].add(split_seed(a[1], a[3]))


def messages(buf):
    off = 0
    while len(buf) - off >= 16:
        ln = struct.unpack_from('<I', buf, off)[0]
        if ln < 16 or off + ln > len(buf):
            return
        yield buf[off:off + ln]
        off += (ln + 3) & ~3


def journal(requests):
    """A journal whose records are these requests: the header's first 48
    bytes (magic, version, live slot, two slots {start, used}), then the
    records, which fuzz-journal puts after the header page."""
    body = b''.join(m + b'\0' * (-len(m) % 4) for m in requests)
    hdr = b'TPDPJRNL' + struct.pack('<II', 1, 0) + \
        struct.pack('<QQQQ', 4096, 4096 + len(body), 0, 0)
    return hdr + body


def main():
    trace, top = sys.argv[1], sys.argv[2]
    targets = ('fuzz-server', 'fuzz-genl', 'fuzz-ctnetlink',
               'fuzz-flow-netlink', 'fuzz-actions', 'fuzz-journal')
    out = {t: set() for t in targets}
    for proto, reqs in conversations(trace):
        if proto not in PROTOCOL_BYTE:
            continue
        conv = bytes([PROTOCOL_BYTE[proto]])
        ovs = []
        for r in reqs[:MAX_REQUESTS]:
            op = struct.unpack_from('<I', r)[0]
            if len(conv) + 3 + len(r) <= MAX_BYTES:
                conv += struct.pack('<BH', 1 if op == OP_KERNEL else 0,
                                    len(r)) + r
            if op != OP_SEND:
                continue
            payload = r[16:]
            if proto == NETLINK_GENERIC:
                out['fuzz-genl'].add(payload)
                for m in messages(payload):
                    ovs_seeds(m, out)
                    # Requests of the OVS families (not nlctrl's, 0x10)
                    # that change something: NEW, DEL, SET.
                    ty, cmd = struct.unpack_from('<H', m, 4)[0], m[16:17]
                    if ty >= 0x400 and cmd in (b'\x01', b'\x02', b'\x04'):
                        ovs.append(m)
            elif proto == NETLINK_NETFILTER:
                out['fuzz-ctnetlink'].add(payload)
        out['fuzz-server'].add(conv)
        if ovs:
            out['fuzz-journal'].add(journal(ovs[:MAX_REQUESTS]))
    for t, seeds in out.items():
        os.makedirs(os.path.join(top, t), exist_ok=True)
        for s in seeds:
            name = hashlib.sha1(s).hexdigest()
            with open(os.path.join(top, t, name), 'wb') as f:
                f.write(s)
        print(f'{t}: {len(seeds)} inputs')


if __name__ == '__main__':
    main()
