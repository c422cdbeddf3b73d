#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Why tapdpd dropped packets, from its tapdp_drop family
(include/tapdp/drop-uapi.h), through pyroute2; run it under tapdp-run:

  tapdp-run -- scripts/tapdp-drops.py [--json]
      the counts: per datapath, then per port, one line per reason:
      DATAPATH PORT_NO|- PORT_NAME|- 0xREASON NAME PACKETS

  tapdp-run -- scripts/tapdp-drops.py --follow [--count N] [--timeout S]
      each drop as it happens (CAP_NET_ADMIN): DP_IFINDEX PORT_NO
      0xREASON NAME ufid=HEX|- len=N HEX-OF-THE-FIRST-BYTES; stops after
      N drops or S seconds without one (exit status 1 then)

The reasons are the kernel's numbers, those perf shows for skb:kfree_skb
(0x30001 is OVS_DROP_LAST_ACTION)."""
import argparse
import json
import sys

from pyroute2.netlink import NLM_F_DUMP, NLM_F_REQUEST, genlmsg, nla
from pyroute2.netlink.generic import GenericNetlinkSocket

FAMILY = "tapdp_drop"
GROUP = "events"
CMD_GET, CMD_EVENT = 1, 2
VERSION = 1


class dropmsg(genlmsg):
    # Attribute numbers of enum tapdp_drop_attr.
    nla_map = (
        ("TAPDP_DROP_ATTR_UNSPEC", "none"),
        ("TAPDP_DROP_ATTR_DP_IFINDEX", "uint32"),
        ("TAPDP_DROP_ATTR_DP_NAME", "asciiz"),
        ("TAPDP_DROP_ATTR_PORT_NO", "uint32"),
        ("TAPDP_DROP_ATTR_PORT_NAME", "asciiz"),
        ("TAPDP_DROP_ATTR_COUNTS", "counts"),
        ("TAPDP_DROP_ATTR_COUNT", "none"),
        ("TAPDP_DROP_ATTR_REASON", "uint32"),
        ("TAPDP_DROP_ATTR_REASON_NAME", "asciiz"),
        ("TAPDP_DROP_ATTR_PACKETS", "uint64"),
        ("TAPDP_DROP_ATTR_UFID", "hex"),
        ("TAPDP_DROP_ATTR_PACKET_LEN", "uint32"),
        ("TAPDP_DROP_ATTR_PACKET", "hex"),
    )

    class counts(nla):
        nla_map = ((6, "TAPDP_DROP_ATTR_COUNT", "count"),)

        class count(nla):
            nla_map = (
                (7, "TAPDP_DROP_ATTR_REASON", "uint32"),
                (8, "TAPDP_DROP_ATTR_REASON_NAME", "asciiz"),
                (9, "TAPDP_DROP_ATTR_PACKETS", "uint64"),
            )


def counts(sock):
    """Every count: dicts of datapath, port (None: the datapath's own),
    port name, reason, name, packets."""
    msg = dropmsg()
    msg["cmd"] = CMD_GET
    msg["version"] = VERSION
    out = []
    for m in sock.nlm_request(msg, msg_type=sock.prid,
                              msg_flags=NLM_F_REQUEST | NLM_F_DUMP):
        nest = m.get_attr("TAPDP_DROP_ATTR_COUNTS")
        for c in nest.get_attrs("TAPDP_DROP_ATTR_COUNT") if nest else []:
            out.append({
                "datapath": m.get_attr("TAPDP_DROP_ATTR_DP_NAME"),
                "port": m.get_attr("TAPDP_DROP_ATTR_PORT_NO"),
                "port_name": m.get_attr("TAPDP_DROP_ATTR_PORT_NAME"),
                "reason": c.get_attr("TAPDP_DROP_ATTR_REASON"),
                "name": c.get_attr("TAPDP_DROP_ATTR_REASON_NAME"),
                "packets": c.get_attr("TAPDP_DROP_ATTR_PACKETS"),
            })
    return out


def event(m):
    hexstr = m.get_attr("TAPDP_DROP_ATTR_PACKET") or ""
    return {
        "dp_ifindex": m.get_attr("TAPDP_DROP_ATTR_DP_IFINDEX"),
        "port": m.get_attr("TAPDP_DROP_ATTR_PORT_NO"),
        "reason": m.get_attr("TAPDP_DROP_ATTR_REASON"),
        "name": m.get_attr("TAPDP_DROP_ATTR_REASON_NAME"),
        "ufid": (m.get_attr("TAPDP_DROP_ATTR_UFID") or "").replace(":", ""),
        "len": m.get_attr("TAPDP_DROP_ATTR_PACKET_LEN"),
        "packet": hexstr.replace(":", ""),
    }


def follow(sock, count, timeout, as_json):
    try:
        sock.add_membership(GROUP)
    except OSError as e:
        # The events carry packets: the group is CAP_NET_ADMIN's.
        sys.exit("tapdp-drops.py: joining %s %s: %s" % (FAMILY, GROUP,
                                                         e.strerror))
    print("following %s %s" % (FAMILY, GROUP), file=sys.stderr, flush=True)
    seen = 0
    while count is None or seen < count:
        sock.settimeout(timeout)
        try:
            msgs = sock.get()
        except TimeoutError:
            return 1
        for m in msgs:
            if m["cmd"] != CMD_EVENT:
                continue
            e = event(m)
            if as_json:
                print(json.dumps(e), flush=True)
            else:
                print("%d %d 0x%x %s ufid=%s len=%d %s" % (
                    e["dp_ifindex"], e["port"], e["reason"], e["name"],
                    e["ufid"] or "-", e["len"], e["packet"]), flush=True)
            seen += 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--follow", action="store_true",
                    help="print each drop as it happens")
    ap.add_argument("--count", type=int, help="with --follow: stop after N")
    ap.add_argument("--timeout", type=float,
                    help="with --follow: give up after S quiet seconds")
    ap.add_argument("--json", action="store_true", help="one JSON object a line")
    args = ap.parse_args()
    sock = GenericNetlinkSocket()
    sock.bind(FAMILY, dropmsg)
    if args.follow:
        return follow(sock, args.count, args.timeout, args.json)
    for c in counts(sock):
        if args.json:
            print(json.dumps(c))
        else:
            print("%s %s %s 0x%x %s %d" % (
                c["datapath"], "-" if c["port"] is None else c["port"],
                c["port_name"] or "-", c["reason"], c["name"],
                c["packets"]))
    return 0


sys.exit(main())
