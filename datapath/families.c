/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/families.h"

#include <linux/netlink.h>

#include "datapath/ctnetlink.h"
#include "netlink/server.h"

void
families_register(void)
{
	dp_family_register();
	vport_family_register();
	flow_family_register();
	packet_family_register();
	meter_family_register();
	ct_limit_family_register();
	psample_family_register();
	drop_family_register();
	server_set_protocol(NETLINK_NETFILTER, ctnetlink_rcv);
	rtnl_link_register();
}
