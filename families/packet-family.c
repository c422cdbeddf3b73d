/* SPDX-License-Identifier: Apache-2.0 */
/* ovs_packet: OVS_PACKET_CMD_EXECUTE runs actions on a packet from
 * userspace, as the kernel's ovs_packet_cmd_execute; and the upcall sink
 * through which the datapath's MISS and ACTION messages reach their
 * portids. */
#include <errno.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <urcu.h>

#include "common/kernel-profile.h"
#include "common/nlerr.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "actions/actions-netlink.h"
#include "flow/extract.h"
#include "flow/key-netlink.h"
#include "genl-server/genl.h"
#include "include/tapdp/ovs-uapi.h"

/* Unlocked: the datapath and all it reaches are read under RCU, as the
 * kernel's ovs_packet_cmd_execute(). */
static int
packet_cmd_execute_rcu(struct genl_info *info)
{
	const struct ovs_header *hdr = info->userhdr;
	const struct nlattr **a = info->attrs;
	bool log = !a[OVS_PACKET_ATTR_PROBE];
	const struct nlattr *pkt = a[OVS_PACKET_ATTR_PACKET];
	uint32_t in_port = OVSP_LOCAL;
	struct flow_key md, key;
	struct flow_layers layers;
	struct actions_stored *acts;
	struct datapath *dp;
	uint64_t hash = 0;
	int err;

	if (!pkt || !a[OVS_PACKET_ATTR_KEY] || !a[OVS_PACKET_ATTR_ACTIONS])
		return -EINVAL;
	/* The kernel has built the packet from here: what refuses it now
	 * drops it (with no datapath, nowhere to count). */
	dp = dp_by_ifindex(nlsock_net(info->sk), hdr->dp_ifindex);
	if (a[OVS_PACKET_ATTR_HASH])
		hash = attr_get_u64(a[OVS_PACKET_ATTR_HASH]);
	err = flow_metadata_from_nlattrs(&md, a[OVS_PACKET_ATTR_KEY], log);
	if (err)
		goto refused;
	in_port = md.in_port;
	/* Actions are validated against the packet's own key; an L3
	 * packet's is the one its EtherType says. */
	key = md;
	err = flow_extract_packet(attr_data(pkt), attr_len(pkt),
				  md.mac_proto == FLOW_MAC_NONE, &key, &layers);
	if (err < 0) {
		err = -EINVAL;
		goto refused;
	}
	err = actions_validate(a[OVS_PACKET_ATTR_ACTIONS], &key, log);
	if (err)
		goto refused;
	if (!dp)
		return -ENODEV;
	acts = actions_store(a[OVS_PACKET_ATTR_ACTIONS], &key);
	if (!acts) {
		err = -ENOMEM;
		goto refused;
	}
	/* It counts its own refusals. */
	err = dp_execute(dp, attr_data(pkt), attr_len(pkt), &md, hash,
			 a[OVS_PACKET_ATTR_MRU]
				 ? attr_get_u16(a[OVS_PACKET_ATTR_MRU])
				 : 0,
			 a[TAPDP_PACKET_ATTR_UPCALL_PID]
				 ? attr_get_u32(a[TAPDP_PACKET_ATTR_UPCALL_PID])
				 : 0,
			 acts);
	free(acts);
	return err;

refused:
	if (dp)
		dp_execute_refused(dp, attr_data(pkt), attr_len(pkt), in_port);
	return err;
}

static int
packet_cmd_execute(struct genl_info *info)
{
	int err;

	rcu_read_lock();
	err = packet_cmd_execute_rcu(info);
	rcu_read_unlock();
	return err;
}

static const struct attr_policy packet_policy[TAPDP_PACKET_ATTR_MAX + 1] = {
	[OVS_PACKET_ATTR_PACKET] = { .kind = ATTR_UNSPEC, .len = ETH_HLEN },
	[OVS_PACKET_ATTR_KEY] = { .kind = ATTR_NESTED },
	[OVS_PACKET_ATTR_ACTIONS] = { .kind = ATTR_NESTED },
	[OVS_PACKET_ATTR_PROBE] = { .kind = ATTR_FLAG },
	[OVS_PACKET_ATTR_MRU] = { .kind = ATTR_U16 },
	[OVS_PACKET_ATTR_HASH] = { .kind = ATTR_U64 },
	[TAPDP_PACKET_ATTR_UPCALL_PID] = { .kind = ATTR_U32 },
};

static const struct genl_ops_entry packet_ops[] = {
	{ .cmd = OVS_PACKET_CMD_EXECUTE, .flags = GENL_UNS_ADMIN_PERM,
	  .unlocked = true, .doit = packet_cmd_execute },
};

static struct genl_family packet_family = {
	.name = OVS_PACKET_FAMILY,
	.id = FAMILY_ID_PACKET,
	.version = OVS_PACKET_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = TAPDP_PACKET_ATTR_MAX,
	.policy = packet_policy,
	.resv_start_op = OVS_PACKET_CMD_EXECUTE + 1,
	.ops = packet_ops,
	.n_ops = 1,
};

/* Upcalls go to generic netlink sockets. */
static int
upcall_send(struct dp_net *net, uint32_t portid, const void *msg, size_t len)
{
	return nlsock_unicast_portid(NETLINK_GENERIC, net, portid, msg, len);
}

const struct dp_upcall_sink packet_family_upcalls = {
	.family_id = FAMILY_ID_PACKET,
	.version = OVS_PACKET_VERSION,
	.send = upcall_send,
};

void
packet_family_register(void)
{
	packet_family.maxattr = kernel_profile()->packet_attr_max;
	genl_register(&packet_family);
}
