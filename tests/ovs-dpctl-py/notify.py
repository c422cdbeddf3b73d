#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Notifications: a pyroute2 socket joined to the ovs_datapath and ovs_vport
groups sees what Debian's ovs-dpctl does, and a port whose device is
deleted from the system is announced as deleted. Echo: a NEW with
NLM_F_ECHO is answered to its sender. Prints "N passed, N failed"."""
import subprocess
import sys
import time

from pyroute2.netlink import NLM_F_ECHO, NLM_F_REQUEST
from pyroute2.netlink.generic import GenericNetlinkSocket

from ovstest import check, dpmsg, summary, vportmsg, wait_until

DP_NEW, DP_DEL = 1, 2
VPORT_NEW, VPORT_DEL = 1, 2

def listener(family, msgclass, group):
    s = GenericNetlinkSocket()
    s.bind(family, msgclass)
    s.add_membership(group)
    return s


def drain(sock, seconds=1.0):
    """What arrives on sock within seconds: a time window, as a message
    that must not come has no condition to wait for."""
    out = []
    end = time.time() + seconds
    while time.time() < end:
        sock.settimeout(max(0.05, end - time.time()))
        try:
            out += sock.get()
        except TimeoutError:
            break
    return out


def dpctl(*args):
    subprocess.run(["ovs-dpctl"] + list(args), check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def port_gone(dp, port):
    """ovs-dpctl show ran and does not list port."""
    show = subprocess.run(["ovs-dpctl", "show", dp], capture_output=True,
                          text=True, check=False)
    return show.returncode == 0 and (": %s\n" % port) not in show.stdout


def main():
    dps = listener("ovs_datapath", dpmsg, "ovs_datapath")
    vps = listener("ovs_vport", vportmsg, "ovs_vport")
    dpctl("add-dp", "ndp0")
    dpctl("add-if", "ndp0", "nint0,type=internal")
    subprocess.run(["ip", "link", "add", "nve0", "type", "veth", "peer",
                    "name", "nve1"], check=True)
    dpctl("add-if", "ndp0", "nve0")
    subprocess.run(["ip", "link", "del", "nve0"], check=True)
    wait_until(10, lambda: port_gone("ndp0", "nve0"))
    dpctl("del-if", "ndp0", "nint0")
    dpctl("del-dp", "ndp0")
    dmsgs = [(m["cmd"], m.get_attr("OVS_DP_ATTR_NAME")) for m in drain(dps)]
    vmsgs = [(m["cmd"], m.get_attr("OVS_VPORT_ATTR_NAME"), m["header"]["pid"])
             for m in drain(vps)]
    check((DP_NEW, "ndp0") in dmsgs, "datapath NEW announced")
    check((DP_DEL, "ndp0") in dmsgs, "datapath DEL announced")
    names = [(c, n) for c, n, _ in vmsgs]
    check((VPORT_NEW, "nint0") in names, "vport NEW (internal) announced")
    check((VPORT_NEW, "nve0") in names, "vport NEW (netdev) announced")
    check((VPORT_DEL, "nint0") in names, "vport DEL announced")
    gone = [p for c, n, p in vmsgs if c == VPORT_DEL and n == "nve0"]
    check(gone == [0], "a deleted device's port: DEL with portid 0")
    # Echo: the sender gets its NEW back, and not a second copy.
    dpctl("add-dp", "ndp1")
    echo = GenericNetlinkSocket()
    echo.bind("ovs_datapath", dpmsg)
    echo.add_membership("ovs_datapath")
    msg = dpmsg()
    msg["cmd"] = 3  # OVS_DP_CMD_GET, then SET with echo
    msg["version"] = 2
    msg["attrs"] = [["OVS_DP_ATTR_NAME", "ndp1"]]
    rep = echo.nlm_request(msg, msg_type=echo.prid, msg_flags=NLM_F_REQUEST)
    ifindex = rep[0]["dpifindex"]
    msg = dpmsg()
    msg["cmd"] = 4  # OVS_DP_CMD_SET
    msg["version"] = 2
    msg["dpifindex"] = ifindex
    rep = echo.nlm_request(msg, msg_type=echo.prid,
                           msg_flags=NLM_F_REQUEST | NLM_F_ECHO)
    check(len(rep) == 1 and rep[0]["cmd"] == 4, "NLM_F_ECHO: SET echoed")
    check(drain(echo, 0.3) == [], "the echoing sender gets no group copy")
    check(any(m["cmd"] == 4 for m in drain(dps, 0.3)),
          "other members get the SET")
    dpctl("del-dp", "ndp1")
    return summary()


sys.exit(main())
