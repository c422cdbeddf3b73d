#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""psample, as a pyroute2 client sees it: frames sent into a port (a veth,
its peer named on the command line) whose flow samples them to three
groups: every packet to group 10 with a cookie, half of them through
sample(50%) to group 11, and the first 20 bytes of every packet to group
12 after trunc(20). Each sample carries the kernel's attributes in the
kernel's order with sequence 0 (the datapath registers no group), so the
GET_GROUP dump is empty and "config" hears nothing. Prints
"N passed, N failed"."""
import socket
import struct
import sys
import time

from pyroute2.netlink import NLM_F_DUMP, NLM_F_REQUEST, genlmsg
from pyroute2.netlink.generic import GenericNetlinkSocket

from ovstest import check, summary

CMD_SAMPLE, CMD_GET_GROUP = 0, 1
UINT32_MAX = 0xffffffff
FRAMES = 400


class psamplemsg(genlmsg):
    nla_map = (
        ("PSAMPLE_ATTR_IIFINDEX", "uint16"),
        ("PSAMPLE_ATTR_OIFINDEX", "uint16"),
        ("PSAMPLE_ATTR_ORIGSIZE", "uint32"),
        ("PSAMPLE_ATTR_SAMPLE_GROUP", "uint32"),
        ("PSAMPLE_ATTR_GROUP_SEQ", "uint32"),
        ("PSAMPLE_ATTR_SAMPLE_RATE", "uint32"),
        ("PSAMPLE_ATTR_DATA", "cdata"),
        ("PSAMPLE_ATTR_GROUP_REFCOUNT", "uint32"),
        ("PSAMPLE_ATTR_TUNNEL", "cdata"),
        ("PSAMPLE_ATTR_PAD", "none"),
        ("PSAMPLE_ATTR_OUT_TC", "uint16"),
        ("PSAMPLE_ATTR_OUT_TC_OCC", "uint64"),
        ("PSAMPLE_ATTR_LATENCY", "uint64"),
        ("PSAMPLE_ATTR_TIMESTAMP", "uint64"),
        ("PSAMPLE_ATTR_PROTO", "uint16"),
        ("PSAMPLE_ATTR_USER_COOKIE", "cdata"),
        ("PSAMPLE_ATTR_SAMPLE_PROBABILITY", "flag"),
    )


ORDER = ["IIFINDEX", "SAMPLE_RATE", "ORIGSIZE", "SAMPLE_GROUP", "GROUP_SEQ",
         "TIMESTAMP", "PROTO", "DATA"]


def frame(n):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, n & 0xffff, 0x4000, 64,
                     17, 0, socket.inet_aton("10.13.0.1"),
                     socket.inet_aton("10.13.0.2"))
    udp = struct.pack("!HHHH", 1000 + n % 1000, 7777, 8, 0)
    return (b"\x02\x00\x00\x00\x0d\x02" + b"\x02\x00\x00\x00\x0d\x01" +
            b"\x08\x00" + ip + udp + bytes(18))


def attrs(msg):
    return [(name[len("PSAMPLE_ATTR_"):], value)
            for name, value in msg["attrs"]]


def main():
    dev, peer = sys.argv[1], sys.argv[2]
    ifindex = socket.if_nametoindex(dev)
    pkts = GenericNetlinkSocket()
    pkts.bind("psample", psamplemsg)
    pkts.add_membership("packets")
    cfg = GenericNetlinkSocket()
    cfg.bind("psample", psamplemsg)
    cfg.add_membership("config")

    req = psamplemsg()
    req["cmd"] = CMD_GET_GROUP
    req["version"] = 1
    groups = list(pkts.nlm_request(req, msg_type=pkts.prid,
                                   msg_flags=NLM_F_REQUEST | NLM_F_DUMP))
    check(groups == [], "GET_GROUP: an empty dump")

    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((peer, 0))
    got = {10: [], 11: [], 12: []}
    others = 0
    pkts.settimeout(2)
    for n in range(FRAMES):
        f = frame(n)
        tx.send(f)
        # The samples of one packet come in the order of its actions:
        # group 12's is the last.
        before = len(got[12])
        try:
            while len(got[12]) == before:
                for msg in pkts.get():
                    if msg["cmd"] != CMD_SAMPLE:
                        others += 1
                        continue
                    a = attrs(msg)
                    got.setdefault(dict(a)["SAMPLE_GROUP"], []).append(
                        (a, n))
        except TimeoutError:
            break
    check(len(got[10]) == FRAMES and len(got[12]) == FRAMES and
          others == 0, "every packet sampled to groups 10 and 12 (%d, %d)" %
          (len(got[10]), len(got[12])))
    check(FRAMES * 0.35 < len(got[11]) < FRAMES * 0.65,
          "sample(50%%) lets about half through to group 11: %d of %d" %
          (len(got[11]), FRAMES))

    orders = set()
    bad = []
    for group, samples in got.items():
        for a, n in samples:
            d = dict(a)
            orders.add(tuple(k for k, _ in a))
            want = {
                "IIFINDEX": ifindex & 0xffff, "ORIGSIZE": len(frame(n)),
                "GROUP_SEQ": 0, "PROTO": 0x0800,
                "SAMPLE_RATE": UINT32_MAX if group != 11 else 0x80000000,
            }
            wrong = [k for k, v in want.items() if d.get(k) != v]
            if d.get("DATA") != frame(n)[:20 if group == 12 else None]:
                wrong.append("DATA")
            if wrong:
                bad.append((group, wrong))
    check(not bad, "each sample's ifindex, size, sequence 0, protocol, "
          "rate and data (%s)" % bad[:3])
    check(orders == {tuple(ORDER + ["USER_COOKIE", "SAMPLE_PROBABILITY"]),
                     tuple(ORDER + ["SAMPLE_PROBABILITY"])},
          "the kernel's attribute order: %s" % sorted(orders))
    check(all(dict(a).get("USER_COOKIE") == b"\x0a\x0b"
              for a, _ in got[10]) and
          not any("USER_COOKIE" in dict(a) for a, _ in got[11] + got[12]),
          "group 10's cookie, and no cookie elsewhere")
    cfg.settimeout(0.5)
    try:
        heard = cfg.get()
    except TimeoutError:
        heard = []
    check(heard == [], "config hears no group come or go")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
