# SPDX-License-Identifier: Apache-2.0
"""What the pyroute2 tests here share: "ok -"/"FAIL -" lines and the
"N passed, N failed" summary, waiting for a condition, and the
ovs_datapath and ovs_vport messages (attributes in the order of
include/uapi/linux/openvswitch.h)."""
import time

from pyroute2.netlink import genlmsg

passed = failed = 0


def check(ok, what):
    global passed, failed
    passed += bool(ok)
    failed += not ok
    print(("ok - " if ok else "FAIL - ") + what, flush=True)


def wait_until(seconds, cond):
    """Calls cond every 0.1 s until it is true (True) or seconds have
    passed (False), as tests/lib.sh's wait_until."""
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() >= end:
            return False
        time.sleep(0.1)
    return True


def summary():
    """Prints the counts; the exit status for them."""
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


class dpmsg(genlmsg):
    fields = genlmsg.fields + (("dpifindex", "I"),)
    nla_map = (
        ("OVS_DP_ATTR_UNSPEC", "none"),
        ("OVS_DP_ATTR_NAME", "asciiz"),
        ("OVS_DP_ATTR_UPCALL_PID", "uint32"),
        ("OVS_DP_ATTR_STATS", "none"),
        ("OVS_DP_ATTR_MEGAFLOW_STATS", "none"),
        ("OVS_DP_ATTR_USER_FEATURES", "uint32"),
        ("OVS_DP_ATTR_PAD", "none"),
        ("OVS_DP_ATTR_MASKS_CACHE_SIZE", "uint32"),
        ("OVS_DP_ATTR_PER_CPU_PIDS", "array(uint32)"),
        ("OVS_DP_ATTR_IFINDEX", "uint32"),
    )


class vportmsg(genlmsg):
    fields = genlmsg.fields + (("dpifindex", "I"),)
    nla_map = (
        ("OVS_VPORT_ATTR_UNSPEC", "none"),
        ("OVS_VPORT_ATTR_PORT_NO", "uint32"),
        ("OVS_VPORT_ATTR_TYPE", "uint32"),
        ("OVS_VPORT_ATTR_NAME", "asciiz"),
        ("OVS_VPORT_ATTR_OPTIONS", "none"),
        ("OVS_VPORT_ATTR_UPCALL_PID", "uint32"),
        ("OVS_VPORT_ATTR_STATS", "none"),
        ("OVS_VPORT_ATTR_PAD", "none"),
        ("OVS_VPORT_ATTR_IFINDEX", "uint32"),
        ("OVS_VPORT_ATTR_NETNSID", "int32"),
    )
