/* SPDX-License-Identifier: Apache-2.0 */
#include "families/link-view.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/openvswitch.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "datapath/datapath.h"
#include "genl-server/attr.h"
#include "tap/tnl-dev.h"
#include "tap/vlan-dev.h"

/* What the kernel would say of nlh's device, of net's namespace: false
 * when it is no device of the daemon's. */
static bool
link_as_find(const struct dp_net *net, const struct nlmsghdr *nlh,
	     struct link_as *as)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nlh);
	struct dp_port *port;

	memset(as, 0, sizeof(*as));
	if (ifi->ifi_index <= 0)
		return false;
	as->tdev = tnl_dev_find(dp_net_netnsid(net), ifi->ifi_index, NULL);
	as->vdev = vlan_dev_find(net, ifi->ifi_index, NULL);
	port = dp_port_by_ifindex(net, NETNSA_NSID_NOT_ASSIGNED,
				  ifi->ifi_index);
	if (port && port->type == OVS_VPORT_TYPE_INTERNAL)
		as->internal = true;
	else if (port && dp_port_has_master(port) &&
		 nlh->nlmsg_type == RTM_NEWLINK)
		as->master = dp_ifindex(port->dp);
	return as->tdev || as->vdev || as->internal || as->master;
}

/* An attribute copied with its padding restored. */
static void
put_attr(struct msgbuf *mb, const struct nlattr *a)
{
	msgbuf_put(mb, a->nla_type, attr_len(a), attr_data(a));
}

/* IFLA_LINKINFO: the device's kind and data, the daemon's for its own
 * devices, else the kernel's from orig; a datapath as its master, else
 * the master the kernel gave (a TAP may be a bridge's port). */
static void
put_linkinfo(struct msgbuf *mb, const struct link_as *as,
	     const struct nlattr *orig)
{
	struct nlattr *info = msgbuf_nest_start(mb, IFLA_LINKINFO);
	bool own = as->tdev || as->vdev || as->internal;
	const struct nlattr *a;
	int rem;

	if (as->tdev)
		tnl_dev_fill_info(as->tdev, mb);
	else if (as->vdev)
		vlan_dev_fill_info(as->vdev, mb);
	else if (as->internal)
		msgbuf_put_string(mb, IFLA_INFO_KIND, "openvswitch");
	if (orig)
		attr_for_each(a, attr_data(orig), attr_len(orig), rem)
			switch (attr_type(a)) {
			case IFLA_INFO_KIND:
			case IFLA_INFO_DATA:
			case IFLA_INFO_XSTATS:
				if (!own)
					put_attr(mb, a);
				break;
			case IFLA_INFO_SLAVE_KIND:
			case IFLA_INFO_SLAVE_DATA:
				if (!as->master)
					put_attr(mb, a);
				break;
			}
	if (as->master)
		msgbuf_put_string(mb, IFLA_INFO_SLAVE_KIND, "openvswitch");
	msgbuf_nest_end(mb, info);
}

void
link_view_msg(struct msgbuf *mb, const struct nlmsghdr *nlh,
	      const struct link_as *as)
{
	size_t hl = NLMSG_ALIGN(sizeof(struct ifinfomsg));
	const struct nlattr *a, *linkinfo = NULL;
	void *ifi;
	int rem;

	ifi = msgbuf_start(mb, nlh->nlmsg_type, nlh->nlmsg_flags,
			   nlh->nlmsg_seq, nlh->nlmsg_pid,
			   sizeof(struct ifinfomsg));
	if (!ifi)
		return;
	memcpy(ifi, NLMSG_DATA(nlh), sizeof(struct ifinfomsg));
	attr_for_each(a, (const char *)NLMSG_DATA(nlh) + hl,
		      nlh->nlmsg_len - NLMSG_HDRLEN - hl, rem) {
		switch (attr_type(a)) {
		case IFLA_LINKINFO:
			linkinfo = a;
			break;
		case IFLA_MASTER:
			if (!as->master)
				put_attr(mb, a);
			break;
		case IFLA_LINK:
			if (!as->vdev)
				put_attr(mb, a);
			break;
		default:
			put_attr(mb, a);
		}
	}
	if (as->vdev)
		msgbuf_put_u32(mb, IFLA_LINK, vlan_dev_lower(as->vdev));
	if (as->master)
		msgbuf_put_u32(mb, IFLA_MASTER, as->master);
	put_linkinfo(mb, as, linkinfo);
}

int
link_view(const struct dp_net *net, const void *buf, size_t len,
	  struct msgbuf *mb)
{
	size_t hl = NLMSG_ALIGN(sizeof(struct ifinfomsg)), off, span;
	bool changed = false;

	for (off = 0; (span = nlmsg_span(buf, len, off)); off += span) {
		const struct nlmsghdr *nlh = (const void *)((const char *)buf +
							    off);
		struct link_as as;
		void *body;

		if ((nlh->nlmsg_type == RTM_NEWLINK ||
		     nlh->nlmsg_type == RTM_DELLINK) &&
		    nlh->nlmsg_len >= NLMSG_HDRLEN + hl &&
		    link_as_find(net, nlh, &as)) {
			link_view_msg(mb, nlh, &as);
			changed = true;
		} else {
			body = msgbuf_start(mb, nlh->nlmsg_type,
					    nlh->nlmsg_flags, nlh->nlmsg_seq,
					    nlh->nlmsg_pid,
					    nlh->nlmsg_len - NLMSG_HDRLEN);
			if (body)
				memcpy(body, NLMSG_DATA(nlh),
				       nlh->nlmsg_len - NLMSG_HDRLEN);
		}
		if (msgbuf_end(mb))
			return -EMSGSIZE;
	}
	return changed;
}
