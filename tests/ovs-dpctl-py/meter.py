#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Drives the ovs_meter family with pyroute2, as ovs-vswitchd's meter probe
does: FEATURES, SET, GET, DEL on the datapath named on the command line.
Prints one line per check and "N passed, N failed"."""
import errno
import socket
import sys

from pyroute2.netlink import NLM_F_ACK, NLM_F_REQUEST, genlmsg, nla
from pyroute2.netlink.exceptions import NetlinkError
from pyroute2.netlink.generic import GenericNetlinkSocket

from ovstest import check, summary

FEATURES, SET, DEL, GET = 1, 2, 3, 4


class band(nla):
    nla_map = (
        ("OVS_BAND_ATTR_UNSPEC", "none"),
        ("OVS_BAND_ATTR_TYPE", "uint32"),
        ("OVS_BAND_ATTR_RATE", "uint32"),
        ("OVS_BAND_ATTR_BURST", "uint32"),
        ("OVS_BAND_ATTR_STATS", "array(uint64)"),
    )


class bands(nla):
    nla_map = (("OVS_BAND_ATTR_UNSPEC", "band"),)

    class band(band):
        pass


class metermsg(genlmsg):
    fields = genlmsg.fields + (("dpifindex", "I"),)
    nla_map = (
        ("OVS_METER_ATTR_UNSPEC", "none"),
        ("OVS_METER_ATTR_ID", "uint32"),
        ("OVS_METER_ATTR_KBPS", "flag"),
        ("OVS_METER_ATTR_STATS", "array(uint64)"),
        ("OVS_METER_ATTR_BANDS", "bands"),
        ("OVS_METER_ATTR_USED", "uint64"),
        ("OVS_METER_ATTR_CLEAR", "flag"),
        ("OVS_METER_ATTR_MAX_METERS", "uint32"),
        ("OVS_METER_ATTR_MAX_BANDS", "uint32"),
    )

    class bands(bands):
        pass


def request(sock, cmd, ifindex, attrs):
    msg = metermsg()
    msg["cmd"] = cmd
    msg["version"] = 1
    msg["dpifindex"] = ifindex
    msg["attrs"] = attrs
    return sock.nlm_request(msg, msg_type=sock.prid,
                            msg_flags=NLM_F_REQUEST | NLM_F_ACK)


def error_of(sock, cmd, ifindex, attrs):
    try:
        request(sock, cmd, ifindex, attrs)
        return 0
    except NetlinkError as e:
        return e.code


def main():
    ifindex = socket.if_nametoindex(sys.argv[1])
    sock = GenericNetlinkSocket()
    sock.bind("ovs_meter", metermsg)
    rep = request(sock, FEATURES, ifindex, [])[0]
    check(rep.get_attr("OVS_METER_ATTR_MAX_METERS") == 200000,
          "FEATURES: 200000 meters")
    check(rep.get_attr("OVS_METER_ATTR_MAX_BANDS") == 1, "FEATURES: 1 band")
    drop = {"attrs": [["OVS_BAND_ATTR_TYPE", 1], ["OVS_BAND_ATTR_RATE", 1000],
                      ["OVS_BAND_ATTR_BURST", 100]]}
    bandlist = {"attrs": [["OVS_BAND_ATTR_UNSPEC", drop]]}
    rep = request(sock, SET, ifindex, [["OVS_METER_ATTR_ID", 54545401],
                                       ["OVS_METER_ATTR_KBPS", True],
                                       ["OVS_METER_ATTR_BANDS", bandlist]])[0]
    check(rep.get_attr("OVS_METER_ATTR_ID") == 54545401, "SET replies the id")
    rep = request(sock, GET, ifindex, [["OVS_METER_ATTR_ID", 54545401]])[0]
    check(rep.get_attr("OVS_METER_ATTR_STATS") == (0, 0), "GET: stats")
    check(rep.get_attr("OVS_METER_ATTR_USED") is not None, "GET: used")
    check(error_of(sock, GET, ifindex, [["OVS_METER_ATTR_ID", 42]])
          == errno.ENOENT, "GET of a missing meter: ENOENT")
    check(error_of(sock, SET, ifindex, [["OVS_METER_ATTR_ID", 42 + 1024],
                                        ["OVS_METER_ATTR_BANDS", bandlist]])
          == 0, "SET a second meter")
    check(error_of(sock, SET, ifindex, [["OVS_METER_ATTR_ID", 42 + 2048],
                                        ["OVS_METER_ATTR_BANDS", bandlist]])
          == errno.EBUSY, "SET on a taken slot: EBUSY, as the kernel")
    rep = request(sock, DEL, ifindex, [["OVS_METER_ATTR_ID", 54545401]])[0]
    check(rep.get_attr("OVS_METER_ATTR_ID") == 54545401, "DEL replies stats")
    check(error_of(sock, GET, ifindex, [["OVS_METER_ATTR_ID", 54545401]])
          == errno.ENOENT, "deleted meter is gone")
    check(error_of(sock, FEATURES, 999999, []) == errno.ENODEV,
          "FEATURES of a missing datapath: ENODEV")
    return summary()


sys.exit(main())
