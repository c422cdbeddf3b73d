#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Per-CPU upcall dispatch, as ovs-vswitchd sets it up: a datapath with
OVS_DP_F_DISPATCH_UPCALL_PER_CPU and two handler sockets in
OVS_DP_ATTR_PER_CPU_PIDS. Misses of many flows entering one port reach
both handlers (receive-side scaling by the packet's hash), every packet of
one flow reaches the same handler, and every miss reaches one of them.
Takes a veth name (its peer is named on the command line too) in the
current namespace. Prints "N passed, N failed"."""
import socket
import struct
import sys

from pyroute2.netlink import NLM_F_ACK, NLM_F_ECHO, NLM_F_REQUEST, genlmsg
from pyroute2.netlink.generic import GenericNetlinkSocket

from ovstest import check, dpmsg, summary, vportmsg, wait_until

DP_NEW, DP_DEL = 1, 2
VPORT_NEW = 1
PACKET_MISS = 1
PER_CPU = 1 << 3
FLOWS = 32

class packetmsg(genlmsg):
    fields = genlmsg.fields + (("dpifindex", "I"),)
    nla_map = (
        ("OVS_PACKET_ATTR_UNSPEC", "none"),
        ("OVS_PACKET_ATTR_PACKET", "cdata"),
        ("OVS_PACKET_ATTR_KEY", "none"),
    )


def request(sock, msgclass, cmd, attrs, version, flags=0):
    msg = msgclass()
    msg["cmd"] = cmd
    msg["version"] = version
    msg["dpifindex"] = dp_ifindex
    msg["attrs"] = attrs
    return sock.nlm_request(msg, msg_type=sock.prid,
                            msg_flags=NLM_F_REQUEST | NLM_F_ACK | flags)


def frame(sport):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 0, 0x4000, 64, 17, 0,
                     socket.inet_aton("10.12.0.1"),
                     socket.inet_aton("10.12.0.2"))
    udp = struct.pack("!HHHH", sport, 7777, 8, 0)
    return (b"\x02\x00\x00\x00\x0c\x02" + b"\x02\x00\x00\x00\x0c\x01" +
            b"\x08\x00" + ip + udp + bytes(18))


def main():
    global dp_ifindex
    dev, peer = sys.argv[1], sys.argv[2]
    dp_ifindex = 0
    dps = GenericNetlinkSocket()
    dps.bind("ovs_datapath", dpmsg)
    vps = GenericNetlinkSocket()
    vps.bind("ovs_vport", vportmsg)
    handlers = []
    for _ in range(2):
        s = GenericNetlinkSocket()
        s.bind("ovs_packet", packetmsg)
        handlers.append(s)
    rep = request(dps, dpmsg, DP_NEW,
                  [["OVS_DP_ATTR_NAME", "updp"],
                   ["OVS_DP_ATTR_UPCALL_PID", handlers[0].epid],
                   ["OVS_DP_ATTR_USER_FEATURES", PER_CPU],
                   ["OVS_DP_ATTR_PER_CPU_PIDS",
                    [h.epid for h in handlers]]], 2, NLM_F_ECHO)
    dp_ifindex = rep[0]["dpifindex"]
    check(dp_ifindex != 0, "a datapath with per-CPU dispatch and two "
          "handler sockets")
    request(vps, vportmsg, VPORT_NEW,
            [["OVS_VPORT_ATTR_NAME", dev], ["OVS_VPORT_ATTR_TYPE", 1],
             ["OVS_VPORT_ATTR_UPCALL_PID", 0]], 1)
    # The port takes frames once its NEW is acknowledged.
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((peer, 0))
    # Each flow twice, the second round once the first one's misses are
    # in, so that a flow's packets are seen to stay on one handler.
    got = [{}, {}]

    def received(timeout):
        for h, g in zip(handlers, got):
            read_misses(h, g, timeout)
        return sum(sum(g.values()) for g in got)

    for n in range(1, 3):
        for i in range(FLOWS):
            tx.send(frame(5000 + i))
        wait_until(10, lambda: received(0.05) >= n * FLOWS)
    # A miss too many would come with the others: half a second to show.
    total = received(0.5)
    check(total == 2 * FLOWS,
          "every miss reaches a handler (%d of %d)" % (total, 2 * FLOWS))
    check(all(got), "the flows' misses spread over both handlers "
          "(%d and %d flows)" % (len(got[0]), len(got[1])))
    check(not set(got[0]) & set(got[1]),
          "each flow's misses reach one handler only")
    request(dps, dpmsg, DP_DEL, [["OVS_DP_ATTR_NAME", "updp"]], 2)
    return summary()


def read_misses(sock, counts, timeout):
    """Counts the misses arriving on sock by UDP source port into counts,
    until none has come for timeout seconds."""
    sock.settimeout(timeout)
    while True:
        try:
            msgs = sock.get()
        except TimeoutError:
            return
        for m in msgs:
            if m["cmd"] != PACKET_MISS:
                continue
            pkt = m.get_attr("OVS_PACKET_ATTR_PACKET")
            # Only this test's frames (the host may send its own).
            if pkt[:6] != frame(0)[:6]:
                continue
            sport = struct.unpack("!H", pkt[34:36])[0]
            counts[sport] = counts.get(sport, 0) + 1


if __name__ == "__main__":
    sys.exit(main())
