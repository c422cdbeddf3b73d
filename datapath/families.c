/* SPDX-License-Identifier: Apache-2.0 */
#include "datapath/families.h"

#include <linux/netlink.h>

#include "ct/conntrack.h"
#include "datapath/ctnetlink.h"
#include "datapath/cttimeout.h"
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
	ctl_family_register();
	server_set_protocol(NETLINK_NETFILTER, ctnetlink_rcv);
	rtnl_link_register();
}

void
families_journal_state(struct dp_net *net)
{
	struct conntrack *ct = dp_net_conntrack_made(net);
	struct datapath *dp;

	/* The tunnel devices before the ports on them. */
	rtnl_link_journal();
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_family_journal(dp);
		vport_family_journal(dp);
		meter_family_journal(dp);
		flow_family_journal(dp);
	}
	ct_limit_family_journal(net);
	/* The policies before the connections that name them. */
	if (ct) {
		cttimeout_journal(conntrack_timeouts(ct));
		ctnetlink_journal(ct);
	}
}
