/* SPDX-License-Identifier: Apache-2.0 */
#include "families/families.h"

#include <linux/netlink.h>

#include "ct/conntrack.h"
#include "families/ctnetlink.h"
#include "families/cttimeout.h"
#include "datapath/fastpath.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"
#include "genl-server/server.h"

static bool
packets_listening(enum dp_packet_kind kind)
{
	return (kind == DP_PACKET_DROP && drop_family_listening()) ||
	       ctl_family_capturing();
}

static void
packets_send(const struct dp_packet_event *ev)
{
	if (ev->kind == DP_PACKET_DROP && drop_family_listening())
		drop_family_send(ev);
	if (ctl_family_capturing())
		ctl_family_capture(ev);
}

/* A capture sees every frame, so none crosses in the kernel meanwhile;
 * a drop listener every drop, so no entry drops one. */
static void
groups_changed(void)
{
	fastpath_set_bypass(ctl_family_capturing());
	fastpath_set_drops_told(drop_family_listening());
}

const struct dp_packet_sink families_packet_sink = {
	.listening = packets_listening,
	.send = packets_send,
};

/* The journal's records (datapath/journal.h) of the state now: all of
 * it (cttimeout's policies included), each family its part. */
static void
families_journal_state(struct dp_net *net)
{
	struct conntrack *ct = dp_net_conntrack_made(net);
	struct datapath *dp;

	/* The devices made over rtnetlink before the ports on them. */
	rtnl_link_journal(net);
	for (unsigned i = 0; (dp = dp_at(net, i)); i++) {
		dp_family_journal(dp);
		vport_family_journal(dp);
		meter_family_journal(dp);
		flow_family_journal(dp);
	}
	ct_limit_family_journal(net);
	/* The policies before the connections that name them. */
	if (ct) {
		cttimeout_journal(net, conntrack_timeouts(ct));
		ctnetlink_journal(net, ct);
	}
}

static const struct journal_ops journal_ops = {
	.state = families_journal_state,
	.route = rtnl_link_rcv,
	.netfilter = ctnetlink_rcv,
	.generic = genl_rcv,
};

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
	journal_set_ops(&journal_ops);
	dp_set_conntrack_attach(ctnetlink_attach);
	nlsock_on_groups(groups_changed);
}
