# SPDX-License-Identifier: Apache-2.0
# vport-where.py PORT: where port PORT's device is, as OVS_VPORT_CMD_GET
# answers: "IFINDEX NETNSID" (NETNSID -1: the attribute is absent, the
# device is in its datapath's namespace). Run under tapdp-run, with
# tests/ovs-dpctl-py on PYTHONPATH.
import sys

from pyroute2.netlink import NLM_F_REQUEST
from pyroute2.netlink.generic import GenericNetlinkSocket

from ovstest import vportmsg

s = GenericNetlinkSocket()
s.bind("ovs_vport", vportmsg)
m = vportmsg()
m["cmd"], m["version"] = 3, 2
m["attrs"] = [["OVS_VPORT_ATTR_NAME", sys.argv[1]]]
r = s.nlm_request(m, msg_type=s.prid, msg_flags=NLM_F_REQUEST)[0]
nsid = r.get_attr("OVS_VPORT_ATTR_NETNSID")
print(r.get_attr("OVS_VPORT_ATTR_IFINDEX"), -1 if nsid is None else nsid)
