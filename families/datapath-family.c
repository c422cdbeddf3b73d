/* SPDX-License-Identifier: Apache-2.0 */
/* ovs_datapath: NEW, DEL, GET (and dump), SET, as net/openvswitch does. */
#include <errno.h>
#include <stdlib.h>

#include "common/kernel-profile.h"
#include "common/log.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"

static struct genl_family dp_family;

static int
dp_fill(struct datapath *dp, struct msgbuf *mb, uint32_t portid, uint32_t seq,
	uint16_t flags, uint8_t cmd)
{
	uint32_t features = dp_features(dp);
	struct ovs_dp_megaflow_stats mf = { 0 };
	const struct dp_pids *cpu_pids;
	struct ovs_dp_stats st = { 0 };
	struct ovs_header *hdr;
	struct dp_stats sum;

	hdr = genl_msg_start(mb, &dp_family, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	hdr->dp_ifindex = dp_ifindex(dp);
	dp_get_stats(dp, &sum);
	st.n_hit = sum.n_hit;
	st.n_missed = sum.n_missed;
	st.n_lost = sum.n_lost;
	st.n_flows = dp_flow_count(dp);
	mf.n_mask_hit = sum.n_mask_hit;
	mf.n_masks = dp_mask_count(dp);
	mf.n_cache_hit = sum.n_cache_hit;
	msgbuf_put_string(mb, OVS_DP_ATTR_NAME, dp_name(dp));
	msgbuf_put(mb, OVS_DP_ATTR_STATS, sizeof(st), &st);
	msgbuf_put(mb, OVS_DP_ATTR_MEGAFLOW_STATS, sizeof(mf), &mf);
	msgbuf_put_u32(mb, OVS_DP_ATTR_USER_FEATURES, features);
	if (kernel_profile()->dp_attr_max >= OVS_DP_ATTR_MASKS_CACHE_SIZE)
		msgbuf_put_u32(mb, OVS_DP_ATTR_MASKS_CACHE_SIZE,
			       dp_masks_cache_size(dp));
	cpu_pids = dp_cpu_pids(dp);
	/* Replies carry the pids from 6.1 on, with OVS_DP_ATTR_IFINDEX. */
	if ((features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU) && cpu_pids &&
	    kernel_profile()->dp_attr_max >= OVS_DP_ATTR_IFINDEX) {
		unsigned n = cpu_pids->n;

		if (n > dp_nr_cpu_ids())
			n = dp_nr_cpu_ids();
		msgbuf_put(mb, OVS_DP_ATTR_PER_CPU_PIDS, n * sizeof(uint32_t),
			   cpu_pids->pid);
	}
	return msgbuf_end(mb);
}

/* The journal's record of dp (journal.h): NEW or SET with its whole
 * state, DEL by name. */
static void
dp_journal(struct datapath *dp, uint8_t cmd)
{
	const struct dp_pids *pids = dp_port_get(dp, OVSP_LOCAL)->pids;
	const struct dp_pids *cpu_pids = dp_cpu_pids(dp);
	struct msgbuf *mb = journal_record_start(dp_get_net(dp), &dp_family,
						 cmd, dp_ifindex(dp));

	if (!mb)
		return;
	msgbuf_put_string(mb, OVS_DP_ATTR_NAME, dp_name(dp));
	if (cmd != OVS_DP_CMD_DEL) {
		if (cmd == OVS_DP_CMD_NEW)
			msgbuf_put(mb, OVS_DP_ATTR_UPCALL_PID,
				   pids->n * sizeof(uint32_t), pids->pid);
		msgbuf_put_u32(mb, OVS_DP_ATTR_USER_FEATURES,
			       dp_features(dp));
		if (kernel_profile()->dp_attr_max >=
		    OVS_DP_ATTR_MASKS_CACHE_SIZE)
			msgbuf_put_u32(mb, OVS_DP_ATTR_MASKS_CACHE_SIZE,
				       dp_masks_cache_size(dp));
		if (cpu_pids)
			msgbuf_put(mb, OVS_DP_ATTR_PER_CPU_PIDS,
				   cpu_pids->n * sizeof(uint32_t),
				   cpu_pids->pid);
	}
	journal_record_end(mb);
}

void
dp_family_journal(struct datapath *dp)
{
	dp_journal(dp, OVS_DP_CMD_NEW);
}

static struct datapath *
dp_lookup(const struct genl_info *info)
{
	const struct ovs_header *hdr = info->userhdr;
	const struct nlattr *name = info->attrs[OVS_DP_ATTR_NAME];

	struct dp_net *net = nlsock_net(info->sk);

	return name ? dp_by_name(net, attr_data(name))
		    : dp_by_ifindex(net, hdr->dp_ifindex);
}

/* The datapath's state as the reply to info, in mem. */
static int
dp_build(struct genl_info *info, struct datapath *dp, uint8_t cmd,
	 struct msgbuf *mb, char *mem, size_t len)
{
	msgbuf_init(mb, mem, len);
	return dp_fill(dp, mb, nlsock_portid(info->sk), info->nlh->nlmsg_seq,
		       0, cmd);
}

/* Sends the datapath's state as the outcome of cmd. */
static int
dp_notify(struct genl_info *info, struct datapath *dp, uint8_t cmd)
{
	char mem[1024];
	struct msgbuf mb;
	int err = dp_build(info, dp, cmd, &mb, mem, sizeof(mem));

	if (!err)
		genl_notify(info, GROUP_DATAPATH, &mb);
	return err;
}

static const uint32_t *
attr_u32_array(const struct nlattr *a, unsigned *n, int *err)
{
	int len = attr_len(a);

	if (!len || len % sizeof(uint32_t))
		*err = -EINVAL;
	*n = len / sizeof(uint32_t);
	return attr_data(a);
}

/* The checks of the kernel's ovs_dp_change(), before anything changes. */
static int
dp_change_check(const struct nlattr **a, uint32_t *features)
{
	*features = a[OVS_DP_ATTR_USER_FEATURES]
			    ? attr_get_u32(a[OVS_DP_ATTR_USER_FEATURES]) : 0;
	if (*features & ~kernel_profile()->user_features)
		return -EOPNOTSUPP;
	if (a[OVS_DP_ATTR_MASKS_CACHE_SIZE]) {
		uint32_t size = attr_get_u32(a[OVS_DP_ATTR_MASKS_CACHE_SIZE]);

		if (size && (size & (size - 1)))
			return -EINVAL;
	}
	return 0;
}

static int
dp_change(struct datapath *dp, const struct nlattr **a)
{
	uint32_t features;
	int err = dp_change_check(a, &features);

	if (err)
		return err;
	if (a[OVS_DP_ATTR_MASKS_CACHE_SIZE])
		dp_set_masks_cache_size(dp,
			attr_get_u32(a[OVS_DP_ATTR_MASKS_CACHE_SIZE]));
	dp_set_features(dp, features);
	if ((features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU) &&
	    a[OVS_DP_ATTR_PER_CPU_PIDS]) {
		const uint32_t *pids;
		unsigned n;

		pids = attr_u32_array(a[OVS_DP_ATTR_PER_CPU_PIDS], &n, &err);
		if (err)
			return err;
		return dp_set_cpu_pids(dp, pids, n);
	}
	return 0;
}

static int
dp_cmd_new(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	const uint32_t *pids;
	struct datapath *dp;
	uint32_t features;
	unsigned n_pids;
	int err = 0;

	if (!a[OVS_DP_ATTR_NAME] || !a[OVS_DP_ATTR_UPCALL_PID])
		return -EINVAL;
	err = dp_change_check(a, &features);
	if (err)
		return err;
	if ((features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU) &&
	    a[OVS_DP_ATTR_PER_CPU_PIDS]) {
		attr_u32_array(a[OVS_DP_ATTR_PER_CPU_PIDS], &n_pids, &err);
		if (err)
			return err;
	}
	pids = attr_data(a[OVS_DP_ATTR_UPCALL_PID]);
	n_pids = attr_len(a[OVS_DP_ATTR_UPCALL_PID]) / sizeof(uint32_t);
	if (attr_len(a[OVS_DP_ATTR_UPCALL_PID]) % sizeof(uint32_t))
		return -EINVAL;
	err = dp_create(nlsock_net(info->sk), attr_data(a[OVS_DP_ATTR_NAME]),
			pids, n_pids, &dp);
	if (err == -EEXIST && info->genlhdr->version < OVS_DP_VER_FEATURES) {
		/* An old client that will reuse the datapath: it does not know
		 * about features, so they are dropped. */
		struct datapath *old = dp_lookup(info);

		if (old) {
			log_warn("%s: Dropping previously announced user "
				 "features", dp_name(old));
			dp_set_features(old, 0);
			dp_journal(old, OVS_DP_CMD_SET);
		}
	}
	if (err)
		return err;
	dp_change(dp, a);
	dp_journal(dp, OVS_DP_CMD_NEW);
	log_info("%s: datapath created", dp_name(dp));
	return dp_notify(info, dp, OVS_DP_CMD_NEW);
}

static int
dp_cmd_del(struct genl_info *info)
{
	struct datapath *dp = dp_lookup(info);
	char mem[1024];
	struct msgbuf mb;
	int err;

	if (!dp)
		return -ENODEV;
	err = dp_build(info, dp, OVS_DP_CMD_DEL, &mb, mem, sizeof(mem));
	if (err)
		return err;
	log_info("%s: datapath deleted", dp_name(dp));
	dp_journal(dp, OVS_DP_CMD_DEL);
	dp_destroy(dp);
	genl_notify(info, GROUP_DATAPATH, &mb);
	return 0;
}

static int
dp_cmd_set(struct genl_info *info)
{
	struct datapath *dp = dp_lookup(info);
	int err;

	if (!dp)
		return -ENODEV;
	err = dp_change(dp, info->attrs);
	/* dp_change may fail after changing some of the state. */
	dp_journal(dp, OVS_DP_CMD_SET);
	return err ? err : dp_notify(info, dp, OVS_DP_CMD_SET);
}

static int
dp_cmd_get(struct genl_info *info)
{
	struct datapath *dp = dp_lookup(info);
	char mem[1024];
	struct msgbuf mb;
	int err;

	if (!dp)
		return -ENODEV;
	err = dp_build(info, dp, OVS_DP_CMD_GET, &mb, mem, sizeof(mem));
	return err ? err : genl_reply(info, &mb);
}

static int
dp_cmd_dump(struct genl_dump *d, struct msgbuf *mb)
{
	struct dp_net *net = nlsock_net(d->sk);
	struct datapath *dp;
	long i = d->args[0];

	while ((dp = dp_at(net, i))) {
		if (dp_fill(dp, mb, nlsock_portid(d->sk), d->nlh->nlmsg_seq,
			    NLM_F_MULTI, OVS_DP_CMD_GET))
			break;
		i++;
	}
	d->args[0] = i;
	return mb->len;
}

void
dp_family_notify_gone(struct datapath *dp)
{
	char mem[1024];
	struct msgbuf mb;

	dp_journal(dp, OVS_DP_CMD_DEL);
	msgbuf_init(&mb, mem, sizeof(mem));
	if (!dp_fill(dp, &mb, 0, 0, 0, OVS_DP_CMD_DEL))
		genl_multicast(dp_get_net(dp), GROUP_DATAPATH, &mb);
}

static const struct attr_policy dp_policy[OVS_DP_ATTR_MAX + 1] = {
	[OVS_DP_ATTR_NAME] = { .kind = ATTR_NUL_STRING, .len = IFNAMSIZ - 1 },
	[OVS_DP_ATTR_UPCALL_PID] = { .kind = ATTR_U32 },
	[OVS_DP_ATTR_USER_FEATURES] = { .kind = ATTR_U32 },
	/* The per-CPU mask cache fits a 32 KiB percpu unit of 8-byte
	 * entries. */
	[OVS_DP_ATTR_MASKS_CACHE_SIZE] = { .kind = ATTR_U32, .range = true,
					   .min = 0, .max = 4096 },
	[OVS_DP_ATTR_IFINDEX] = { .kind = ATTR_S32, .range = true, .min = 0,
				  .max = INT32_MAX },
};

static const struct genl_ops_entry dp_ops[] = {
	{ .cmd = OVS_DP_CMD_NEW, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = dp_cmd_new },
	{ .cmd = OVS_DP_CMD_DEL, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = dp_cmd_del },
	{ .cmd = OVS_DP_CMD_GET, .doit = dp_cmd_get, .dumpit = dp_cmd_dump },
	{ .cmd = OVS_DP_CMD_SET, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = dp_cmd_set },
};

static const struct genl_mcgrp dp_groups[] = {
	{ .name = OVS_DATAPATH_MCGROUP, .id = GROUP_DATAPATH },
};

/* Not const: its maxattr is the profile's (kernel-profile.h). */
static struct genl_family dp_family = {
	.name = OVS_DATAPATH_FAMILY,
	.id = FAMILY_ID_DATAPATH,
	.version = OVS_DATAPATH_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_DP_ATTR_MAX,
	.policy = dp_policy,
	.resv_start_op = OVS_DP_CMD_SET + 1,
	.ops = dp_ops,
	.n_ops = sizeof(dp_ops) / sizeof(dp_ops[0]),
	.mcgrps = dp_groups,
	.n_mcgrps = 1,
};

void
dp_family_register(void)
{
	dp_family.maxattr = kernel_profile()->dp_attr_max;
	genl_register(&dp_family);
}
