/* ovs_packet. Executing packets comes with the action engine; until then
 * OVS_PACKET_CMD_EXECUTE answers EOPNOTSUPP. */
#include <errno.h>
#include <linux/if_ether.h>

#include "families.h"
#include "genl.h"
#include "include/tapdp/ovs-uapi.h"

static int
packet_cmd_execute(struct genl_info *info)
{
	(void)info;
	return -EOPNOTSUPP;
}

static const struct attr_policy packet_policy[OVS_PACKET_ATTR_MAX + 1] = {
	[OVS_PACKET_ATTR_PACKET] = { .kind = ATTR_UNSPEC, .len = ETH_HLEN },
	[OVS_PACKET_ATTR_KEY] = { .kind = ATTR_NESTED },
	[OVS_PACKET_ATTR_ACTIONS] = { .kind = ATTR_NESTED },
	[OVS_PACKET_ATTR_PROBE] = { .kind = ATTR_FLAG },
	[OVS_PACKET_ATTR_MRU] = { .kind = ATTR_U16 },
	[OVS_PACKET_ATTR_HASH] = { .kind = ATTR_U64 },
};

static const struct genl_ops_entry packet_ops[] = {
	{ .cmd = OVS_PACKET_CMD_EXECUTE, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = packet_cmd_execute },
};

static const struct genl_family packet_family = {
	.name = OVS_PACKET_FAMILY,
	.id = FAMILY_ID_PACKET,
	.version = OVS_PACKET_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_PACKET_ATTR_MAX,
	.policy = packet_policy,
	.resv_start_op = OVS_PACKET_CMD_EXECUTE + 1,
	.ops = packet_ops,
	.n_ops = 1,
};

void
packet_family_register(void)
{
	genl_register(&packet_family);
}
