/* SPDX-License-Identifier: Apache-2.0 */
/* The link requests of NETLINK_ROUTE the daemon answers (server_set_route):
 * those about the tunnel devices it serves (tap/tnl-dev.h), in whichever
 * namespace the client is, as the kernel's rtnetlink and tunnel drivers
 * answer them.
 *
 *  - RTM_NEWLINK of kind vxlan (VXLAN-GPE too), geneve (inner_proto_inherit
 *    too), gre, gretap, ip6gretap, erspan or ip6erspan in collect-metadata
 *    mode creates such a device; so does one with a remote, not in
 *    collect-metadata mode, of a kind the kernel has no driver for;
 *  - RTM_GETLINK of one asks the kernel about its TAP (in its namespace)
 *    and gives the answer with the tunnel's IFLA_LINKINFO in place of the
 *    TAP's;
 *  - RTM_DELLINK of one detaches the port on it, if any (and tells the
 *    ovs_vport group, as dp_notify does for a vanished device), and
 *    deletes it;
 *  - RTM_NEWLINK or RTM_SETLINK changing one (up and down, MTU, address,
 *    master...) is the kernel's do_setlink on its TAP; a new name or
 *    namespace is refused (EOPNOTSUPP), as is the driver's changelink,
 *    which a collect-metadata device of these kinds does not take.
 * The journal keeps the devices made here as the requests that make them
 * again (named as they were named), and their deletion; a restarted
 * daemon replays them before the ports on them, taking back their TAPs.
 * The same for userspace VLAN devices (tap/vlan-dev.h) where the kernel
 * has no vlan driver: created and deleted here, the rest their TAP's.
 * Everything else stays the kernel's: a plain vxlan device, dumps,
 * addresses, routes; but the link messages the kernel gives a client,
 * dumps and notifications too, are shown as they would read were the
 * daemon's devices the kernel's (link-view.c).
 *
 * Control thread only. */
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "common/log.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "families/link-view.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "genl-server/server.h"
#include "include/tapdp/proto.h"
#include "tap/netdev.h"
#include "tap/tnl-dev.h"
#include "tap/vlan-dev.h"

/* The attributes read here, with rtnetlink's policy for them. */
static const struct attr_policy ifla_policy[IFLA_MAX + 1] = {
	[IFLA_IFNAME] = { .kind = ATTR_STRING, .len = IFNAMSIZ - 1 },
	[IFLA_MTU] = { .kind = ATTR_U32 },
	[IFLA_LINKINFO] = { .kind = ATTR_NESTED },
	[IFLA_NET_NS_PID] = { .kind = ATTR_U32 },
	[IFLA_NET_NS_FD] = { .kind = ATTR_U32 },
	[IFLA_TARGET_NETNSID] = { .kind = ATTR_U32 },
	[IFLA_LINK] = { .kind = ATTR_U32 },
	[IFLA_ADDRESS] = { .kind = ATTR_BINARY, .len = 32 },
	[IFLA_MASTER] = { .kind = ATTR_U32 },
	[IFLA_EXT_MASK] = { .kind = ATTR_U32 },
};

static const struct attr_policy info_policy[IFLA_INFO_MAX + 1] = {
	[IFLA_INFO_KIND] = { .kind = ATTR_STRING },
	[IFLA_INFO_DATA] = { .kind = ATTR_NESTED },
};

/* A link request as far as the daemon reads it. */
struct link_req {
	const struct ifinfomsg *ifi;
	char name[IFNAMSIZ];		/* "" when not named */
	uint32_t mtu;
	struct tnl_dev *dev;		/* the daemon's device it names */
	const struct tnl_kind *kind;	/* RTM_NEWLINK: a kind served here */
	const struct nlattr *data;	/* ...and its IFLA_INFO_DATA */
	bool to_netns;			/* names another namespace */
	bool vlan;			/* RTM_NEWLINK of kind vlan */
	struct vlan_dev *vdev;		/* the daemon's VLAN device it names */
	uint32_t link;			/* IFLA_LINK */
	const struct nlattr *address;	/* IFLA_ADDRESS */
};

static int
link_parse(const void *net, const struct nlmsghdr *nlh, struct link_req *r,
	   struct extack *ack)
{
	const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
	size_t hl = NLMSG_ALIGN(sizeof(struct ifinfomsg));
	int err;

	memset(r, 0, sizeof(*r));
	if (nlh->nlmsg_len < NLMSG_HDRLEN + hl)
		return -EINVAL;
	r->ifi = NLMSG_DATA(nlh);
	err = attr_parse((const char *)r->ifi + hl,
			 nlh->nlmsg_len - NLMSG_HDRLEN - hl, ifla_policy,
			 IFLA_MAX, tb, ack);
	if (err)
		return err;
	if (tb[IFLA_IFNAME])
		snprintf(r->name, sizeof(r->name), "%.*s",
			 attr_len(tb[IFLA_IFNAME]),
			 (const char *)attr_data(tb[IFLA_IFNAME]));
	if (tb[IFLA_MTU])
		r->mtu = attr_get_u32(tb[IFLA_MTU]);
	r->to_netns = tb[IFLA_NET_NS_PID] || tb[IFLA_NET_NS_FD] ||
		      tb[IFLA_TARGET_NETNSID];
	if (tb[IFLA_LINK])
		r->link = attr_get_u32(tb[IFLA_LINK]);
	r->address = tb[IFLA_ADDRESS];
	r->dev = tnl_dev_find(dp_net_netnsid(net), r->ifi->ifi_index,
			      r->name[0] ? r->name : NULL);
	r->vdev = vlan_dev_find(net, r->ifi->ifi_index,
				r->name[0] ? r->name : NULL);
	if (nlh->nlmsg_type != RTM_NEWLINK || !tb[IFLA_LINKINFO])
		return 0;
	err = attr_parse_nested(tb[IFLA_LINKINFO], info_policy, IFLA_INFO_MAX,
				info, ack);
	if (err)
		return err;
	if (info[IFLA_INFO_KIND]) {
		char kind[32];

		snprintf(kind, sizeof(kind), "%.*s",
			 attr_len(info[IFLA_INFO_KIND]),
			 (const char *)attr_data(info[IFLA_INFO_KIND]));
		r->kind = tnl_kind_find(kind);
		r->vlan = !strcmp(kind, "vlan");
		r->data = info[IFLA_INFO_DATA];
	}
	return 0;
}

/* Whether the kernel has a driver for kind (vlan, or a tunnel kind the
 * daemon serves): asked once each. */
static bool
kernel_has(const char *kind)
{
	static struct { char name[16]; bool known; } asked[16];
	static size_t n_asked;
	bool known;

	for (size_t i = 0; i < n_asked; i++)
		if (!strcmp(asked[i].name, kind))
			return asked[i].known;
	known = netdev_kind_known(kind);
	if (n_asked < sizeof(asked) / sizeof(asked[0]) &&
	    strlen(kind) < sizeof(asked[0].name)) {
		snprintf(asked[n_asked].name, sizeof(asked[0].name), "%s",
			 kind);
		asked[n_asked++].known = known;
	}
	return known;
}

/* Whether a device called name is in the namespace of net. */
static bool
name_taken(const void *net, const char *name)
{
	uint32_t mtu;
	int ifindex;

	if (!dp_net_elsewhere(net))
		return netdev_ifindex(name);
	return !netdev_lookup(dp_net_netnsid(net), name, &ifindex, &mtu);
}

/* Whether the daemon answers nlh, from a client of net: it deletes one of
 * its VLAN devices, or creates one where the kernel has no vlan driver;
 * or it names one of its tunnel devices there, or creates one of the
 * kinds it serves, in collect-metadata mode, under a name no device of
 * the kernel's has there (in another namespace, one with a datapath, or
 * of a kind the kernel lacks). A VLAN device's other requests
 * are its TAP's, the kernel's. */
static bool
link_is_ours(const void *net, const struct nlmsghdr *nlh)
{
	struct extack ack = { 0 };
	struct link_req r;
	struct tnl_dev probe;
	bool collect_md;

	if (link_parse(net, nlh, &r, &ack))
		return false;
	if (r.vdev)
		return nlh->nlmsg_type == RTM_DELLINK;
	if (nlh->nlmsg_type == RTM_NEWLINK && r.vlan && !r.ifi->ifi_index &&
	    !(r.name[0] && name_taken(net, r.name)))
		return !kernel_has("vlan");
	if (r.dev)
		return true;
	if (nlh->nlmsg_type != RTM_NEWLINK || !r.kind || r.ifi->ifi_index ||
	    (r.name[0] && name_taken(net, r.name)))
		return false;
	/* Data the driver refuses is refused here, as by the driver. A
	 * device of one remote is the kernel's where it has the driver. */
	if (tnl_kind_parse(r.kind, r.data, &probe, &collect_md, &ack))
		return true;
	if (!collect_md)
		return probe.remote.family &&
		       !kernel_has(tnl_kind_name(r.kind));
	/* So is a collect-metadata device in another namespace that has
	 * no datapath: no port will take it, and only the kernel's serves
	 * what else uses one (a lightweight tunnel's routes, as OVS's
	 * VXLAN-GPE far end in its test's namespace). */
	return !dp_net_elsewhere(net) || dp_at(net, 0) ||
	       !kernel_has(tnl_kind_name(r.kind));
}

/* Request nlh as the kernel takes it about the TAP: its IFLA_LINKINFO (a
 * kind alone) left out, as the TAP is no device of that kind. In buf, of
 * size bytes. */
static struct nlmsghdr *
link_for_tap(const struct nlmsghdr *nlh, void *buf, size_t size)
{
	size_t hl = NLMSG_ALIGN(sizeof(struct ifinfomsg));
	const struct nlattr *a;
	struct msgbuf mb;
	void *ifi;
	int rem;

	msgbuf_init(&mb, buf, size);
	ifi = msgbuf_start(&mb, nlh->nlmsg_type, nlh->nlmsg_flags,
			   nlh->nlmsg_seq, 0, sizeof(struct ifinfomsg));
	if (!ifi)
		return NULL;
	memcpy(ifi, NLMSG_DATA(nlh), sizeof(struct ifinfomsg));
	attr_for_each(a, (const char *)NLMSG_DATA(nlh) + hl,
		      nlh->nlmsg_len - NLMSG_HDRLEN - hl, rem)
		if (attr_type(a) != IFLA_LINKINFO)
			msgbuf_put_raw(&mb, a, NLA_ALIGN(a->nla_len));
	return msgbuf_end(&mb) ? NULL : (struct nlmsghdr *)mb.buf;
}

/* The kernel's answer about the TAP, asked there, as the kernel would
 * give it about its own device (link-view.c). */
static int
link_get(struct nlsock *sk, const struct nlmsghdr *nlh)
{
	static char req[32 << 10], got[32 << 10], out[34 << 10];
	struct nlmsghdr *k = (void *)got;
	const struct nlmsghdr *ask;
	struct msgbuf mb;
	int n;

	ask = link_for_tap(nlh, req, sizeof(req));
	if (!ask)
		return -EMSGSIZE;
	n = netdev_rtnl_query(dp_net_nsfd(nlsock_net(sk)), ask, got,
			      sizeof(got));
	if (n < 0)
		return n;
	if (k->nlmsg_type != RTM_NEWLINK || k->nlmsg_len > (size_t)n)
		return -EPROTO;
	k->nlmsg_flags = 0;
	k->nlmsg_seq = nlh->nlmsg_seq;
	k->nlmsg_pid = nlsock_portid(sk);
	msgbuf_init(&mb, out, sizeof(out));
	if (link_view(nlsock_net(sk), k, k->nlmsg_len, &mb) < 0)
		return -EMSGSIZE;
	nlsock_unicast(sk, mb.buf, mb.len);
	return 0;
}

/* An attribute of len bytes, with its header and padding. */
#define ATTR_SPACE(len)	(NLA_HDRLEN + NLA_ALIGN(len))

/* The journal's record of a device's deletion: RTM_DELLINK by name. */
static void
journal_del(const struct dp_net *net, const char *name)
{
	char buf[NLMSG_SPACE(sizeof(struct ifinfomsg)) + ATTR_SPACE(IFNAMSIZ)];
	struct msgbuf mb;

	if (!journal_keeps(net))
		return;
	msgbuf_init(&mb, buf, sizeof(buf));
	msgbuf_start(&mb, RTM_DELLINK, 0, 0, 0, sizeof(struct ifinfomsg));
	msgbuf_put_string(&mb, IFLA_IFNAME, name);
	if (!msgbuf_end(&mb))
		journal_append(net, &mb);
}

void
rtnl_link_journal_del(const struct dp_net *net, const struct tnl_dev *dev)
{
	if (dev->made_by)
		journal_del(net, dev->name);
}

static void
journal_record(const struct dp_net *net, const void *rec, size_t len)
{
	struct msgbuf mb;

	msgbuf_init(&mb, (void *)rec, len);
	mb.len = len;
	journal_append(net, &mb);
}

void
rtnl_link_journal(const struct dp_net *net)
{
	const struct tnl_dev *dev;
	const void *rec;
	size_t i = 0, len;

	for (size_t t = 0; (dev = tnl_dev_at(t)); t++)
		if (dev->made_by && dev->netnsid == dp_net_netnsid(net))
			journal_record(net, dev->made_by, dev->made_by_len);
	while ((rec = vlan_dev_record(net, &i, &len)))
		journal_record(net, rec, len);
}

/* The request that makes a device again as r made it, of kind, under the
 * name it got: a malloc()ed record, in *len bytes; NULL without memory
 * (it is then not kept across a restart). */
static void *
link_record(const struct link_req *r, const char *kind, const char *name,
	    uint32_t *len)
{
	size_t size = NLMSG_SPACE(sizeof(struct ifinfomsg)) +
		      ATTR_SPACE(IFNAMSIZ) + 2 * ATTR_SPACE(4) +
		      ATTR_SPACE(32) +
		      ATTR_SPACE(ATTR_SPACE(32) +
				 (r->data ? NLA_ALIGN(r->data->nla_len) : 0));
	struct ifinfomsg *ifi;
	struct nlattr *info;
	struct msgbuf mb;
	void *buf = malloc(size);

	if (!buf)
		return NULL;
	msgbuf_init(&mb, buf, size);
	ifi = msgbuf_start(&mb, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0, 0,
			   sizeof(*ifi));
	ifi->ifi_flags = r->ifi->ifi_flags & r->ifi->ifi_change & IFF_UP;
	ifi->ifi_change = ifi->ifi_flags;
	msgbuf_put_string(&mb, IFLA_IFNAME, name);
	if (r->link)
		msgbuf_put_u32(&mb, IFLA_LINK, r->link);
	if (r->mtu)
		msgbuf_put_u32(&mb, IFLA_MTU, r->mtu);
	if (r->address)
		msgbuf_put(&mb, IFLA_ADDRESS, attr_len(r->address),
			   attr_data(r->address));
	info = msgbuf_nest_start(&mb, IFLA_LINKINFO);
	msgbuf_put_string(&mb, IFLA_INFO_KIND, kind);
	if (r->data)
		msgbuf_put(&mb, r->data->nla_type, attr_len(r->data),
			   attr_data(r->data));
	msgbuf_nest_end(&mb, info);
	if (msgbuf_end(&mb)) {
		free(buf);
		return NULL;
	}
	*len = mb.len;
	return buf;
}

/* A compat port's device goes with its port. */
static void
link_del(struct dp_net *net, struct tnl_dev *dev)
{
	struct dp_port *port = dp_port_locate(net, dev->name);
	bool with_port = port && !port->vport->tnl.dev;

	if (port) {
		log_info("%s: port %u %s: device deleted, detaching",
			 dp_name(port->dp), port->port_no, dev->name);
		vport_family_gone(port, true);
		dp_port_del(port);
	}
	if (!with_port) {
		rtnl_link_journal_del(net, dev);
		tnl_dev_destroy(dev);
	}
}

/* A change of an existing device. The daemon and its keeper know the
 * device by its name there: it does not change. The rest is the TAP's,
 * done by the kernel. */
static int
link_change(const void *net, const struct nlmsghdr *nlh,
	    const struct link_req *r)
{
	static char copy[32 << 10];
	struct nlmsghdr *ask;

	if (r->data || r->to_netns ||
	    (r->name[0] && strcmp(r->name, r->dev->name)))
		return -EOPNOTSUPP;
	ask = link_for_tap(nlh, copy, sizeof(copy));
	return ask ? netdev_rtnl_do(dp_net_nsfd(net), ask) : -EMSGSIZE;
}

static int
link_new(const struct dp_net *net, const struct nlmsghdr *nlh,
	 const struct link_req *r, struct extack *ack)
{
	struct tnl_dev want = { 0 }, *dev;
	bool collect_md, up;
	int err;

	if (r->dev)
		return nlh->nlmsg_flags & NLM_F_EXCL ? -EEXIST
						     : link_change(net, nlh, r);
	if (!(nlh->nlmsg_flags & NLM_F_CREATE))
		return -ENODEV;
	err = tnl_kind_parse(r->kind, r->data, &want, &collect_md, ack);
	if (err)
		return err;
	/* Unnamed: the kernel names it after the kind. */
	if (r->name[0])
		memcpy(want.name, r->name, sizeof(want.name));
	else
		snprintf(want.name, sizeof(want.name), "%s%%d",
			 tnl_kind_name(r->kind));
	up = r->ifi->ifi_change & r->ifi->ifi_flags & IFF_UP;
	want.netnsid = dp_net_netnsid(net);
	dev = tnl_dev_create(&want, dp_net_nsfd(net), r->mtu, up, &err);
	if (!dev)
		return err;
	dev->made_by = link_record(r, tnl_kind_name(dev->kind), dev->name,
				   &dev->made_by_len);
	if (!dev->made_by) {
		tnl_dev_destroy(dev);
		return -ENOMEM;
	}
	journal_record(net, dev->made_by, dev->made_by_len);
	log_info("created %s device %s over rtnetlink", tnl_kind_name(r->kind),
		 dev->name);
	return 0;
}

/* A VLAN device, made in userspace, with the 8021q driver's checks
 * (vlan_validate, vlan_newlink) and answers. */
static int
link_new_vlan(const void *net, const struct nlmsghdr *nlh,
	      const struct link_req *r, struct extack *ack)
{
	struct vlan_dev_config cfg = { 0 };
	struct vlan_dev *dev;
	uint32_t len;
	void *rec;
	int err;

	if (!(nlh->nlmsg_flags & NLM_F_CREATE))
		return -ENODEV;
	if (r->to_netns)
		return -EOPNOTSUPP;
	if (r->address) {
		if (attr_len(r->address) != ETH_ALEN) {
			ack->msg = "8021q: Invalid link address";
			return -EINVAL;
		}
		cfg.has_mac = true;
		memcpy(cfg.mac, attr_data(r->address), ETH_ALEN);
	}
	err = vlan_dev_parse(r->data, &cfg, ack);
	if (err)
		return err;
	if (!r->link) {
		ack->msg = "8021q: link not specified";
		return -EINVAL;
	}
	cfg.lower = r->link;
	cfg.mtu = r->mtu;
	memcpy(cfg.name, r->name, sizeof(cfg.name));
	err = vlan_dev_create(net, dp_net_nsfd(net), dp_net_netnsid(net), &cfg,
			      &dev);
	if (err == -EEXIST && !name_taken(net, cfg.name))
		ack->msg = "8021q: VLAN device already exists";
	else if (err == -ENODEV)
		ack->msg = "8021q: link does not exist";
	if (err)
		return err;
	log_info("created vlan device %s (%s %u) over rtnetlink", cfg.name,
		 cfg.proto == ETH_P_8021AD ? "802.1ad" : "802.1Q", cfg.id);
	/* Kept with it, for compaction, and in the journal. */
	rec = link_record(r, "vlan", cfg.name, &len);
	if (rec) {
		vlan_dev_set_record(dev, rec, len);
		journal_record(net, rec, len);
	}
	return 0;
}

static int
link_handle(struct nlsock *sk, const struct nlmsghdr *nlh,
	    struct extack *ack)
{
	struct link_req r;
	int err;

	/* rtnetlink asks for the capability before anything else. */
	if (nlh->nlmsg_type != RTM_GETLINK && !nlsock_net_admin(sk))
		return -EPERM;
	err = link_parse(nlsock_net(sk), nlh, &r, ack);
	if (err)
		return err;
	if (r.vdev && nlh->nlmsg_type == RTM_DELLINK) {
		log_info("deleting vlan device %s over rtnetlink",
			 vlan_dev_name(r.vdev));
		journal_del(nlsock_net(sk), vlan_dev_name(r.vdev));
		vlan_dev_destroy(r.vdev);
		return 0;
	}
	if (r.vlan && nlh->nlmsg_type == RTM_NEWLINK)
		return link_new_vlan(nlsock_net(sk), nlh, &r, ack);
	switch (nlh->nlmsg_type) {
	case RTM_GETLINK:
		return r.dev ? link_get(sk, nlh) : -ENODEV;
	case RTM_DELLINK:
		if (!r.dev)
			return -ENODEV;
		log_info("deleting %s device %s over rtnetlink",
			 tnl_kind_name(r.dev->kind), r.dev->name);
		link_del(nlsock_net(sk), r.dev);
		return 0;
	case RTM_NEWLINK:
		return link_new(nlsock_net(sk), nlh, &r, ack);
	case RTM_SETLINK:
		return r.dev ? link_change(nlsock_net(sk), nlh, &r) : -ENODEV;
	default:
		return -EOPNOTSUPP;
	}
}

/* The datapath a link dump filtered by master names (its IFLA_MASTER
 * the index of a datapath's local port: `ip link show master
 * ovs-system`), NULL when it names none; its IFLA_EXT_MASK in *ext. */
static struct datapath *
dump_master(const void *net, const struct nlmsghdr *nlh,
	    const struct nlattr **ext)
{
	const struct nlattr *tb[IFLA_MAX + 1];
	size_t hl = NLMSG_ALIGN(sizeof(struct ifinfomsg));

	if (nlh->nlmsg_type != RTM_GETLINK ||
	    !(nlh->nlmsg_flags & NLM_F_DUMP) ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + hl ||
	    attr_parse((const char *)NLMSG_DATA(nlh) + hl,
		       nlh->nlmsg_len - NLMSG_HDRLEN - hl, ifla_policy,
		       IFLA_MAX, tb, NULL) ||
	    !tb[IFLA_MASTER])
		return NULL;
	*ext = tb[IFLA_EXT_MASK];
	return dp_by_ifindex(net, (int)attr_get_u32(tb[IFLA_MASTER]));
}

/* Sends what mb holds, and empties it. */
static void
flush(struct nlsock *sk, struct msgbuf *mb)
{
	if (mb->len)
		nlsock_unicast(sk, mb->buf, mb->len);
	msgbuf_init(mb, mb->buf, mb->cap);
}

static int
put_done(struct nlsock *sk, struct msgbuf *mb, const struct nlmsghdr *nlh)
{
	int *done = msgbuf_start(mb, NLMSG_DONE, NLM_F_MULTI, nlh->nlmsg_seq,
				 nlsock_portid(sk), sizeof(int));

	if (done)
		*done = 0;
	return msgbuf_end(mb);
}

/* That dump, which the kernel would answer with nothing (no device of
 * its own has that master): each port's device here, as GETLINK gives
 * it (link-view.c), then NLMSG_DONE. */
static void
link_dump_master(struct nlsock *sk, const struct nlmsghdr *nlh,
		 struct datapath *dp, const struct nlattr *ext)
{
	static char got[32 << 10], out[32 << 10];
	struct { struct nlmsghdr h; struct ifinfomsg ifi;
		 struct nlattr a; uint32_t mask; } req = {
		.h = { .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST },
		.a = { .nla_len = NLA_HDRLEN + sizeof(uint32_t),
		       .nla_type = IFLA_EXT_MASK },
		.mask = ext ? attr_get_u32(ext) : 0,
	};
	struct nlmsghdr *k = (void *)got;
	struct dp_port *port;
	struct msgbuf mb;

	req.h.nlmsg_len = ext ? sizeof(req) : NLMSG_LENGTH(sizeof(req.ifi));
	msgbuf_init(&mb, out, sizeof(out));
	for (uint32_t i = 0; (port = dp_port_next(dp, &i)); i++) {
		if (!dp_port_has_master(port))
			continue;
		req.ifi.ifi_index = port->vport->ifindex;
		if (netdev_rtnl_query(dp_net_nsfd(nlsock_net(sk)), &req.h, got,
				      sizeof(got)) < 0 ||
		    k->nlmsg_type != RTM_NEWLINK)
			continue;
		k->nlmsg_flags = NLM_F_MULTI;
		k->nlmsg_seq = nlh->nlmsg_seq;
		k->nlmsg_pid = nlsock_portid(sk);
		/* Full: what it holds goes as one datagram, as the
		 * kernel's dumps go. */
		if (link_view(nlsock_net(sk), k, k->nlmsg_len, &mb) < 0) {
			flush(sk, &mb);
			link_view(nlsock_net(sk), k, k->nlmsg_len, &mb);
		}
	}
	if (put_done(sk, &mb, nlh)) {
		flush(sk, &mb);
		put_done(sk, &mb, nlh);
	}
	flush(sk, &mb);
}

static bool
rtnl_link_offer(struct nlsock *sk, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	const struct nlattr *ext = NULL;
	struct datapath *dp;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
	    nlh->nlmsg_len > len)
		return false;
	if ((dp = dump_master(nlsock_net(sk), nlh, &ext))) {
		link_dump_master(sk, nlh, dp, ext);
		return true;
	}
	if ((nlh->nlmsg_type == RTM_GETLINK &&
	     (nlh->nlmsg_flags & NLM_F_DUMP)) ||
	    !link_is_ours(nlsock_net(sk), nlh))
		return false;
	netlink_rcv(sk, nlh, nlh->nlmsg_len, link_handle);
	return true;
}

void
rtnl_link_rcv(struct nlsock *sk, const void *buf, size_t len)
{
	netlink_rcv(sk, buf, len, link_handle);
}

/* A datagram of the kernel's, as it would read were the daemon's devices
 * the kernel's (link-view.c). */
static bool
rtnl_link_view(struct nlsock *sk, const void *buf, size_t len)
{
	static char out[TAPDP_VIEW_MAX];
	struct msgbuf mb;

	msgbuf_init(&mb, out, sizeof(out));
	return link_view(nlsock_net(sk), buf, len, &mb) > 0 &&
	       !nlsock_unicast(sk, mb.buf, mb.len);
}

void
rtnl_link_register(void)
{
	server_set_route(rtnl_link_offer, rtnl_link_view);
}
