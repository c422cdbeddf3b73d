/* SPDX-License-Identifier: Apache-2.0 */
/* ovs_vport: NEW, DEL, GET (and dump), SET, as net/openvswitch does. */
#include <errno.h>
#include <string.h>

#include "common/kernel-profile.h"
#include "common/log.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"

static struct genl_family vport_family;

static bool
is_udp_tunnel(uint32_t type)
{
	return type == OVS_VPORT_TYPE_VXLAN || type == OVS_VPORT_TYPE_GENEVE;
}

/* What the kernel's vxlan and geneve vports report of their options; gre
 * and the others have none. */
static void
options_fill(const struct dp_port *port, struct msgbuf *mb)
{
	const struct vport_tunnel_config *c = &port->vport->tnl;
	struct nlattr *opts, *ext;

	if (!is_udp_tunnel(port->type))
		return;
	opts = msgbuf_nest_start(mb, OVS_VPORT_ATTR_OPTIONS);
	msgbuf_put_u16(mb, OVS_TUNNEL_ATTR_DST_PORT, c->dst_port);
	if (port->type == OVS_VPORT_TYPE_VXLAN && c->gbp) {
		ext = msgbuf_nest_start(mb, OVS_TUNNEL_ATTR_EXTENSION);
		msgbuf_put(mb, OVS_VXLAN_EXT_GBP, 0, NULL);
		msgbuf_nest_end(mb, ext);
	}
	msgbuf_nest_end(mb, opts);
}

static const struct attr_policy vxlan_ext_policy[OVS_VXLAN_EXT_MAX + 1] = {
	[OVS_VXLAN_EXT_GBP] = { .kind = ATTR_FLAG },
};

/* A tunnel port's options, as the kernel's vxlan and geneve vports read
 * them: the first of each attribute (nla_find), a destination port of
 * exactly two bytes in host order, required; vxlan's extensions. gre and
 * the others ignore options. */
static int
options_parse(uint32_t type, const struct nlattr *opts,
	      struct vport_tunnel_config *c)
{
	const struct nlattr *tb[OVS_VXLAN_EXT_MAX + 1];
	const struct nlattr *a, *port = NULL, *ext = NULL;
	int rem, err;

	if (!is_udp_tunnel(type))
		return 0;
	if (!opts)
		return -EINVAL;
	attr_for_each(a, attr_data(opts), attr_len(opts), rem) {
		if (attr_type(a) == OVS_TUNNEL_ATTR_DST_PORT && !port)
			port = a;
		else if (attr_type(a) == OVS_TUNNEL_ATTR_EXTENSION && !ext)
			ext = a;
	}
	if (!port || attr_len(port) != sizeof(uint16_t))
		return -EINVAL;
	c->dst_port = attr_get_u16(port);
	/* The kernel's compat vxlan device takes IPv6 datagrams without a
	 * checksum; its geneve device refuses them. */
	c->csum6_zero_rx = type == OVS_VPORT_TYPE_VXLAN;
	if (type != OVS_VPORT_TYPE_VXLAN || !ext)
		return 0;
	if (attr_len(ext) < NLA_HDRLEN)
		return -EINVAL;
	err = attr_parse_nested(ext, vxlan_ext_policy, OVS_VXLAN_EXT_MAX, tb,
				NULL);
	if (err)
		return err;
	c->gbp = tb[OVS_VXLAN_EXT_GBP] != NULL;
	return 0;
}

static int
vport_fill(struct dp_port *port, struct msgbuf *mb, uint32_t portid,
	   uint32_t seq, uint16_t flags, uint8_t cmd)
{
	struct ovs_vport_stats st;
	struct ovs_header *hdr;
	struct nlattr *nest;
	int netnsid;

	hdr = genl_msg_start(mb, &vport_family, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	hdr->dp_ifindex = dp_ifindex(port->dp);
	msgbuf_put_u32(mb, OVS_VPORT_ATTR_PORT_NO, port->port_no);
	msgbuf_put_u32(mb, OVS_VPORT_ATTR_TYPE, port->type);
	msgbuf_put_string(mb, OVS_VPORT_ATTR_NAME, dp_port_name(port));
	msgbuf_put_u32(mb, OVS_VPORT_ATTR_IFINDEX, port->vport->ifindex);
	/* A device moved to another namespace than the datapath's: that
	 * namespace's id, as the datapath's namespace gives it. */
	netnsid = dp_port_netnsid(port);
	if (netnsid >= 0)
		msgbuf_put_u32(mb, OVS_VPORT_ATTR_NETNSID, (uint32_t)netnsid);
	dp_port_get_stats(port, &st);
	msgbuf_put(mb, OVS_VPORT_ATTR_STATS, sizeof(st), &st);
	if (kernel_profile()->vport_attr_max >= TAPDP_VPORT_ATTR_UPCALL_STATS) {
		nest = msgbuf_nest_start(mb, TAPDP_VPORT_ATTR_UPCALL_STATS);
		msgbuf_put_u64(mb, TAPDP_VPORT_UPCALL_ATTR_SUCCESS,
			       __atomic_load_n(&port->upcall_success,
					       __ATOMIC_RELAXED));
		msgbuf_put_u64(mb, TAPDP_VPORT_UPCALL_ATTR_FAIL,
			       __atomic_load_n(&port->upcall_fail,
					       __ATOMIC_RELAXED));
		msgbuf_nest_end(mb, nest);
	}
	if (dp_features(port->dp) & OVS_DP_F_VPORT_PIDS)
		msgbuf_put(mb, OVS_VPORT_ATTR_UPCALL_PID,
			   port->pids->n * sizeof(uint32_t), port->pids->pid);
	else
		msgbuf_put_u32(mb, OVS_VPORT_ATTR_UPCALL_PID,
			       port->pids->pid[0]);
	options_fill(port, mb);
	return msgbuf_end(mb);
}

/* The journal's record of port (journal.h): NEW with what makes it, SET
 * with its pids, DEL by number. */
static void
vport_journal(const struct dp_port *port, uint8_t cmd)
{
	struct msgbuf *mb = journal_record_start(dp_get_net(port->dp),
						 &vport_family, cmd,
						 dp_ifindex(port->dp));

	if (!mb)
		return;
	msgbuf_put_u32(mb, OVS_VPORT_ATTR_PORT_NO, port->port_no);
	if (cmd == OVS_VPORT_CMD_NEW) {
		msgbuf_put_u32(mb, OVS_VPORT_ATTR_TYPE, port->type);
		msgbuf_put_string(mb, OVS_VPORT_ATTR_NAME,
				  dp_port_name(port));
		options_fill(port, mb);
	}
	if (cmd != OVS_VPORT_CMD_DEL)
		msgbuf_put(mb, OVS_VPORT_ATTR_UPCALL_PID,
			   port->pids->n * sizeof(uint32_t), port->pids->pid);
	journal_record_end(mb);
}

void
vport_family_journal(struct datapath *dp)
{
	struct dp_port *port;
	uint32_t i = OVSP_LOCAL + 1;

	/* The local port comes with its datapath's record. */
	for (; (port = dp_port_next(dp, &i)); i++)
		vport_journal(port, OVS_VPORT_CMD_NEW);
}

static int
vport_lookup(const struct genl_info *info, struct dp_port **out)
{
	const struct ovs_header *hdr = info->userhdr;
	const struct nlattr **a = info->attrs;
	struct dp_net *net = nlsock_net(info->sk);
	struct datapath *dp;
	uint32_t port_no;

	if (a[OVS_VPORT_ATTR_IFINDEX])
		return -EOPNOTSUPP;
	if (a[OVS_VPORT_ATTR_NAME]) {
		*out = dp_port_locate(net, attr_data(a[OVS_VPORT_ATTR_NAME]));
		if (!*out)
			return -ENODEV;
		if (hdr->dp_ifindex &&
		    hdr->dp_ifindex != dp_ifindex((*out)->dp))
			return -ENODEV;
		return 0;
	}
	if (!a[OVS_VPORT_ATTR_PORT_NO])
		return -EINVAL;
	port_no = attr_get_u32(a[OVS_VPORT_ATTR_PORT_NO]);
	if (port_no >= TAPDP_DP_MAX_PORTS)
		return -EFBIG;
	dp = dp_by_ifindex(net, hdr->dp_ifindex);
	if (!dp)
		return -ENODEV;
	*out = dp_port_get(dp, port_no);
	return *out ? 0 : -ENODEV;
}

static int
vport_build(struct genl_info *info, struct dp_port *port, uint8_t cmd,
	    struct msgbuf *mb, char *mem, size_t len)
{
	msgbuf_init(mb, mem, len);
	return vport_fill(port, mb, nlsock_portid(info->sk),
			  info->nlh->nlmsg_seq, 0, cmd);
}

static int
vport_cmd_new(struct genl_info *info)
{
	const struct ovs_header *hdr = info->userhdr;
	const struct nlattr **a = info->attrs;
	const struct nlattr *pids = a[OVS_VPORT_ATTR_UPCALL_PID];
	struct vport_tunnel_config tnl = { 0 };
	struct dp_port *port;
	struct datapath *dp;
	uint32_t port_no, type;
	struct msgbuf mb;
	char mem[1024];
	int err;

	if (!a[OVS_VPORT_ATTR_NAME] || !a[OVS_VPORT_ATTR_TYPE] || !pids)
		return -EINVAL;
	type = attr_get_u32(a[OVS_VPORT_ATTR_TYPE]);
	/* A chosen ifindex for internal ports came with
	 * OVS_DP_ATTR_IFINDEX (6.1); before, any ifindex was refused. */
	if (a[OVS_VPORT_ATTR_IFINDEX] &&
	    (type != OVS_VPORT_TYPE_INTERNAL ||
	     kernel_profile()->dp_attr_max < OVS_DP_ATTR_IFINDEX))
		return -EOPNOTSUPP;
	port_no = a[OVS_VPORT_ATTR_PORT_NO]
			  ? attr_get_u32(a[OVS_VPORT_ATTR_PORT_NO]) : 0;
	if (port_no >= TAPDP_DP_MAX_PORTS)
		return -EFBIG;
	dp = dp_by_ifindex(nlsock_net(info->sk), hdr->dp_ifindex);
	if (!dp)
		return -ENODEV;
	if (attr_len(pids) % sizeof(uint32_t))
		return -EINVAL;
	err = options_parse(type, a[OVS_VPORT_ATTR_OPTIONS], &tnl);
	if (err)
		return err;
	err = dp_port_add(dp, port_no, type, attr_data(a[OVS_VPORT_ATTR_NAME]),
			  is_udp_tunnel(type) || type == OVS_VPORT_TYPE_GRE
				  ? &tnl : NULL,
			  attr_data(pids), attr_len(pids) / sizeof(uint32_t),
			  &port);
	if (err)
		return err;
	vport_journal(port, OVS_VPORT_CMD_NEW);
	err = vport_build(info, port, OVS_VPORT_CMD_NEW, &mb, mem, sizeof(mem));
	if (!err)
		genl_notify(info, GROUP_VPORT, &mb);
	return err;
}

static int
vport_cmd_set(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	struct dp_port *port;
	struct msgbuf mb;
	char mem[1024];
	int err = vport_lookup(info, &port);

	if (err)
		return err;
	if (a[OVS_VPORT_ATTR_TYPE] &&
	    attr_get_u32(a[OVS_VPORT_ATTR_TYPE]) != port->type)
		return -EINVAL;
	/* Internal and netdev ports have no options to set. */
	if (a[OVS_VPORT_ATTR_OPTIONS])
		return -EOPNOTSUPP;
	if (a[OVS_VPORT_ATTR_UPCALL_PID]) {
		const struct nlattr *ids = a[OVS_VPORT_ATTR_UPCALL_PID];

		if (attr_len(ids) % sizeof(uint32_t))
			return -EINVAL;
		err = dp_port_set_pids(port, attr_data(ids),
				       attr_len(ids) / sizeof(uint32_t));
		if (err)
			return err;
		vport_journal(port, OVS_VPORT_CMD_SET);
	}
	err = vport_build(info, port, OVS_VPORT_CMD_SET, &mb, mem, sizeof(mem));
	if (!err)
		genl_notify(info, GROUP_VPORT, &mb);
	return err;
}

static int
vport_cmd_del(struct genl_info *info)
{
	struct dp_port *port;
	struct msgbuf mb;
	char mem[1024];
	int err = vport_lookup(info, &port);

	if (err)
		return err;
	if (port->port_no == OVSP_LOCAL)
		return -EINVAL;
	err = vport_build(info, port, OVS_VPORT_CMD_DEL, &mb, mem, sizeof(mem));
	if (err)
		return err;
	log_info("%s: deleted port %u %s", dp_name(port->dp), port->port_no,
		 dp_port_name(port));
	vport_journal(port, OVS_VPORT_CMD_DEL);
	dp_port_del(port);
	genl_notify(info, GROUP_VPORT, &mb);
	return 0;
}

static int
vport_cmd_get(struct genl_info *info)
{
	struct dp_port *port;
	struct msgbuf mb;
	char mem[1024];
	int err = vport_lookup(info, &port);

	if (err)
		return err;
	err = vport_build(info, port, OVS_VPORT_CMD_GET, &mb, mem, sizeof(mem));
	return err ? err : genl_reply(info, &mb);
}

static int
vport_cmd_dump(struct genl_dump *d, struct msgbuf *mb)
{
	const struct ovs_header *hdr = (const void *)((const char *)
		NLMSG_DATA(d->nlh) + GENL_HDRLEN);
	struct datapath *dp = dp_by_ifindex(nlsock_net(d->sk),
					    hdr->dp_ifindex);
	uint32_t i = d->args[0];
	struct dp_port *port;

	if (!dp)
		return -ENODEV;
	for (; (port = dp_port_next(dp, &i)); i++)
		if (vport_fill(port, mb, nlsock_portid(d->sk),
			       d->nlh->nlmsg_seq, NLM_F_MULTI,
			       OVS_VPORT_CMD_GET))
			break;
	d->args[0] = i;
	return mb->len;
}

/* A port's device vanished from the system: the datapath lets the port go
 * and, if notify, says so to the group, unasked. */
void
vport_family_gone(struct dp_port *port, bool notify)
{
	struct msgbuf mb;
	char mem[1024];

	vport_journal(port, OVS_VPORT_CMD_DEL);
	if (!notify)
		return;
	msgbuf_init(&mb, mem, sizeof(mem));
	if (!vport_fill(port, &mb, 0, 0, 0, OVS_VPORT_CMD_DEL))
		genl_multicast(dp_get_net(port->dp), GROUP_VPORT, &mb);
}

static const struct attr_policy vport_policy[TAPDP_VPORT_ATTR_MAX + 1] = {
	[OVS_VPORT_ATTR_NAME] = { .kind = ATTR_NUL_STRING,
				  .len = IFNAMSIZ - 1 },
	[OVS_VPORT_ATTR_STATS] = { .kind = ATTR_UNSPEC,
				   .len = sizeof(struct ovs_vport_stats) },
	[OVS_VPORT_ATTR_PORT_NO] = { .kind = ATTR_U32 },
	[OVS_VPORT_ATTR_TYPE] = { .kind = ATTR_U32 },
	[OVS_VPORT_ATTR_UPCALL_PID] = { .kind = ATTR_UNSPEC },
	[OVS_VPORT_ATTR_OPTIONS] = { .kind = ATTR_NESTED },
	[OVS_VPORT_ATTR_IFINDEX] = { .kind = ATTR_S32, .range = true,
				     .min = 0, .max = INT32_MAX },
	[OVS_VPORT_ATTR_NETNSID] = { .kind = ATTR_S32 },
	[TAPDP_VPORT_ATTR_UPCALL_STATS] = { .kind = ATTR_NESTED },
};

static const struct genl_ops_entry vport_ops[] = {
	{ .cmd = OVS_VPORT_CMD_NEW, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = vport_cmd_new },
	{ .cmd = OVS_VPORT_CMD_DEL, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = vport_cmd_del },
	{ .cmd = OVS_VPORT_CMD_GET, .doit = vport_cmd_get,
	  .dumpit = vport_cmd_dump },
	{ .cmd = OVS_VPORT_CMD_SET, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = vport_cmd_set },
};

static const struct genl_mcgrp vport_groups[] = {
	{ .name = OVS_VPORT_MCGROUP, .id = GROUP_VPORT },
};

/* Not const: its maxattr is the profile's (kernel-profile.h). */
static struct genl_family vport_family = {
	.name = OVS_VPORT_FAMILY,
	.id = FAMILY_ID_VPORT,
	.version = OVS_VPORT_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = TAPDP_VPORT_ATTR_MAX,
	.policy = vport_policy,
	.resv_start_op = OVS_VPORT_CMD_SET + 1,
	.ops = vport_ops,
	.n_ops = sizeof(vport_ops) / sizeof(vport_ops[0]),
	.mcgrps = vport_groups,
	.n_mcgrps = 1,
};

void
vport_family_register(void)
{
	vport_family.maxattr = kernel_profile()->vport_attr_max;
	genl_register(&vport_family);
}
