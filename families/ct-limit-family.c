/* SPDX-License-Identifier: Apache-2.0 */
/* ovs_ct_limit: SET, DEL, GET of per-zone connection limits, as
 * net/openvswitch/conntrack.c answers. The limits are the tracker's (one
 * for all datapaths, as the kernel's are per namespace); every command
 * replies, with the request's dp_ifindex in the header. */
#include <errno.h>
#include <string.h>

#include "common/nlerr.h"
#include "ct/conntrack.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"

static const struct genl_family ct_limit_family;

static void
reply_start(struct genl_info *info, struct msgbuf *mb, char *mem, size_t len,
	    uint8_t cmd)
{
	const struct ovs_header *req = info->userhdr;
	struct ovs_header *hdr;

	msgbuf_init(mb, mem, len);
	hdr = genl_msg_start(mb, &ct_limit_family, nlsock_portid(info->sk),
			     info->nlh->nlmsg_seq, 0, cmd);
	hdr->dp_ifindex = req->dp_ifindex;
}

/* Calls fn for each struct ovs_zone_limit packed in the nest (each
 * padded to 4 bytes, as the kernel walks them); a short tail is logged.
 * The kernel walks the nest's length rounded up to 4, so a last entry may
 * end in the attribute's padding: it is taken with the bytes the
 * attribute has and zeros for the rest, never read past the attribute
 * (which can be the end of the message). */
static void
for_each_zone_limit(const struct nlattr *nest, const char *what,
		    void (*fn)(struct conntrack *, const struct ovs_zone_limit *,
			       void *),
		    struct conntrack *ct, void *arg)
{
	const uint8_t *p = attr_data(nest);
	int have = attr_len(nest);
	int rem = NLA_ALIGN(have);
	struct ovs_zone_limit zl;

	while (rem >= (int)sizeof(zl)) {
		memset(&zl, 0, sizeof(zl));
		memcpy(&zl, p, have < (int)sizeof(zl) ? (size_t)have : sizeof(zl));
		if (zl.zone_id != OVS_ZONE_LIMIT_DEFAULT_ZONE &&
		    (zl.zone_id < 0 || zl.zone_id > 65535))
			ovs_nlerr(true, "zone id is out of range");
		else
			fn(ct, &zl, arg);
		p += NLA_ALIGN(sizeof(zl));
		have -= NLA_ALIGN(sizeof(zl));
		rem -= NLA_ALIGN(sizeof(zl));
	}
	if (rem)
		ovs_nlerr(true, "%s zone limit has %d unknown bytes", what,
			  rem);
}

static void
set_one(struct conntrack *ct, const struct ovs_zone_limit *zl, void *arg)
{
	if (zl->zone_id == OVS_ZONE_LIMIT_DEFAULT_ZONE)
		conntrack_limit_set_default(ct, zl->limit);
	else
		conntrack_limit_set(ct, zl->zone_id, zl->limit);
}

static void
del_one(struct conntrack *ct, const struct ovs_zone_limit *zl, void *arg)
{
	if (zl->zone_id == OVS_ZONE_LIMIT_DEFAULT_ZONE)
		conntrack_limit_set_default(ct, 0);
	else
		conntrack_limit_del(ct, zl->zone_id);
}

/* ct NULL: no tracker yet, so no limit and no connection. */
static void
put_zone(struct msgbuf *mb, struct conntrack *ct, int zone)
{
	struct ovs_zone_limit zl = { .zone_id = zone };

	if (ct && zone == OVS_ZONE_LIMIT_DEFAULT_ZONE) {
		zl.limit = conntrack_limit_default(ct);
	} else if (ct) {
		zl.limit = conntrack_limit_get(ct, zone);
		zl.count = conntrack_zone_count(ct, zone);
	}
	msgbuf_put_raw(mb, &zl, sizeof(zl));
}

static void
get_one(struct conntrack *ct, const struct ovs_zone_limit *zl, void *arg)
{
	put_zone(arg, ct, zl->zone_id);
}

/* The journal's records (journal.h): the limits as SET or DEL changed
 * them (applied in order, they give the same limits), or all of them. */
void
ct_limit_family_journal(struct dp_net *net)
{
	struct conntrack *ct = dp_net_conntrack_made(net);
	struct ovs_zone_limit zl = { .zone_id = OVS_ZONE_LIMIT_DEFAULT_ZONE };
	struct nlattr *nest;
	struct msgbuf *mb;
	int zone = -1;

	if (!ct)
		return;
	mb = journal_record_start(net, &ct_limit_family, OVS_CT_LIMIT_CMD_SET,
				  0);
	if (!mb)
		return;
	nest = msgbuf_nest_start(mb, OVS_CT_LIMIT_ATTR_ZONE_LIMIT);
	zl.limit = conntrack_limit_default(ct);
	msgbuf_put_raw(mb, &zl, sizeof(zl));
	while (conntrack_limit_next(ct, &zone)) {
		zl.zone_id = zone;
		zl.limit = conntrack_limit_get(ct, zone);
		msgbuf_put_raw(mb, &zl, sizeof(zl));
	}
	msgbuf_nest_end(mb, nest);
	journal_record_end(mb);
}

static int
ct_limit_cmd_change(struct genl_info *info, uint8_t cmd)
{
	const struct nlattr *zl = info->attrs[OVS_CT_LIMIT_ATTR_ZONE_LIMIT];
	struct conntrack *ct = dp_net_conntrack(nlsock_net(info->sk));
	const struct ovs_header *req = info->userhdr;
	struct msgbuf mb, *rec;
	char mem[64];

	reply_start(info, &mb, mem, sizeof(mem), cmd);
	if (!zl)
		return -EINVAL;
	if (!ct)
		return -ENOMEM;
	if (cmd == OVS_CT_LIMIT_CMD_SET)
		for_each_zone_limit(zl, "set", set_one, ct, NULL);
	else
		for_each_zone_limit(zl, "del", del_one, ct, NULL);
	rec = journal_record_start(nlsock_net(info->sk), &ct_limit_family, cmd,
				   req->dp_ifindex);
	if (rec) {
		msgbuf_put(rec, zl->nla_type, attr_len(zl), attr_data(zl));
		journal_record_end(rec);
	}
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

static int
ct_limit_cmd_set(struct genl_info *info)
{
	return ct_limit_cmd_change(info, OVS_CT_LIMIT_CMD_SET);
}

static int
ct_limit_cmd_del(struct genl_info *info)
{
	return ct_limit_cmd_change(info, OVS_CT_LIMIT_CMD_DEL);
}

static int
ct_limit_cmd_get(struct genl_info *info)
{
	const struct nlattr *zl = info->attrs[OVS_CT_LIMIT_ATTR_ZONE_LIMIT];
	/* A read makes no tracker: anyone may read, in any namespace, and
	 * a tracker has a thread of its own. */
	struct conntrack *ct = dp_net_conntrack_made(nlsock_net(info->sk));
	static char mem[GENL_MSG_MAX];
	struct nlattr *nest;
	struct msgbuf mb;
	int zone = -1;

	reply_start(info, &mb, mem, sizeof(mem), OVS_CT_LIMIT_CMD_GET);
	nest = msgbuf_nest_start(&mb, OVS_CT_LIMIT_ATTR_ZONE_LIMIT);
	if (zl) {
		for_each_zone_limit(zl, "get", get_one, ct, &mb);
	} else {
		put_zone(&mb, ct, OVS_ZONE_LIMIT_DEFAULT_ZONE);
		while (ct && conntrack_limit_next(ct, &zone))
			put_zone(&mb, ct, zone);
	}
	msgbuf_nest_end(&mb, nest);
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

static const struct attr_policy ct_limit_policy[OVS_CT_LIMIT_ATTR_MAX + 1] = {
	[OVS_CT_LIMIT_ATTR_ZONE_LIMIT] = { .kind = ATTR_NESTED },
};

static const struct genl_ops_entry ct_limit_ops[] = {
	{ .cmd = OVS_CT_LIMIT_CMD_SET, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = ct_limit_cmd_set },
	{ .cmd = OVS_CT_LIMIT_CMD_DEL, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = ct_limit_cmd_del },
	{ .cmd = OVS_CT_LIMIT_CMD_GET, .doit = ct_limit_cmd_get },
};

static const struct genl_mcgrp ct_limit_groups[] = {
	{ .name = OVS_CT_LIMIT_MCGROUP, .id = GROUP_CT_LIMIT },
};

static const struct genl_family ct_limit_family = {
	.name = OVS_CT_LIMIT_FAMILY,
	.id = FAMILY_ID_CT_LIMIT,
	.version = OVS_CT_LIMIT_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_CT_LIMIT_ATTR_MAX,
	.policy = ct_limit_policy,
	.resv_start_op = OVS_CT_LIMIT_CMD_GET + 1,
	.ops = ct_limit_ops,
	.n_ops = sizeof(ct_limit_ops) / sizeof(ct_limit_ops[0]),
	.mcgrps = ct_limit_groups,
	.n_mcgrps = 1,
};

void
ct_limit_family_register(void)
{
	genl_register(&ct_limit_family);
}
