/* ovs_flow. Until the flow table lands, a datapath holds no flow: a flush
 * succeeds, a dump is empty, and installing or querying a flow answers
 * EOPNOTSUPP. */
#include <errno.h>

#include "datapath/datapath.h"
#include "families.h"
#include "genl.h"

static int
flow_cmd_unsupported(struct genl_info *info)
{
	(void)info;
	return -EOPNOTSUPP;
}

static int
flow_cmd_del(struct genl_info *info)
{
	const struct ovs_header *hdr = info->userhdr;

	if (!dp_by_ifindex(hdr->dp_ifindex))
		return -ENODEV;
	if (info->attrs[OVS_FLOW_ATTR_KEY] || info->attrs[OVS_FLOW_ATTR_UFID])
		return -EOPNOTSUPP;
	return 0;
}

static int
flow_cmd_dump(struct genl_dump *d, struct msgbuf *mb)
{
	const struct ovs_header *hdr = (const void *)((const char *)
		NLMSG_DATA(d->nlh) + GENL_HDRLEN);

	if (!dp_by_ifindex(hdr->dp_ifindex))
		return -ENODEV;
	return mb->len;
}

static const struct attr_policy flow_policy[OVS_FLOW_ATTR_MAX + 1] = {
	[OVS_FLOW_ATTR_KEY] = { .kind = ATTR_NESTED },
	[OVS_FLOW_ATTR_MASK] = { .kind = ATTR_NESTED },
	[OVS_FLOW_ATTR_ACTIONS] = { .kind = ATTR_NESTED },
	[OVS_FLOW_ATTR_CLEAR] = { .kind = ATTR_FLAG },
	[OVS_FLOW_ATTR_PROBE] = { .kind = ATTR_FLAG },
	[OVS_FLOW_ATTR_UFID] = { .kind = ATTR_UNSPEC, .len = 1 },
	[OVS_FLOW_ATTR_UFID_FLAGS] = { .kind = ATTR_U32 },
};

static const struct genl_ops_entry flow_ops[] = {
	{ .cmd = OVS_FLOW_CMD_NEW, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_unsupported },
	{ .cmd = OVS_FLOW_CMD_DEL, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_del },
	{ .cmd = OVS_FLOW_CMD_GET, .doit = flow_cmd_unsupported,
	  .dumpit = flow_cmd_dump },
	{ .cmd = OVS_FLOW_CMD_SET, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_unsupported },
};

static const struct genl_mcgrp flow_groups[] = {
	{ .name = OVS_FLOW_MCGROUP, .id = GROUP_FLOW },
};

static const struct genl_family flow_family = {
	.name = OVS_FLOW_FAMILY,
	.id = FAMILY_ID_FLOW,
	.version = OVS_FLOW_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_FLOW_ATTR_MAX,
	.policy = flow_policy,
	.resv_start_op = OVS_FLOW_CMD_SET + 1,
	.ops = flow_ops,
	.n_ops = sizeof(flow_ops) / sizeof(flow_ops[0]),
	.mcgrps = flow_groups,
	.n_mcgrps = 1,
};

void
flow_family_register(void)
{
	genl_register(&flow_family);
}
