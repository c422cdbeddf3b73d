/* SPDX-License-Identifier: Apache-2.0 */
/* ovs_meter: FEATURES, SET, GET, DEL, as net/openvswitch/meter.c answers.
 * Every command replies, with the request's dp_ifindex in the header. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"

static const struct genl_family meter_family;

static const struct attr_policy band_policy[OVS_BAND_ATTR_MAX + 1] = {
	[OVS_BAND_ATTR_TYPE] = { .kind = ATTR_U32 },
	[OVS_BAND_ATTR_RATE] = { .kind = ATTR_U32 },
	[OVS_BAND_ATTR_BURST] = { .kind = ATTR_U32 },
	[OVS_BAND_ATTR_STATS] = { .kind = ATTR_UNSPEC,
				  .len = sizeof(struct ovs_flow_stats) },
};

static bool
reply_start(struct genl_info *info, struct msgbuf *mb, char *mem, size_t len,
	    uint8_t cmd)
{
	const struct ovs_header *req = info->userhdr;
	struct ovs_header *hdr;

	msgbuf_init(mb, mem, len);
	hdr = genl_msg_start(mb, &meter_family, nlsock_portid(info->sk),
			     info->nlh->nlmsg_seq, 0, cmd);
	if (hdr)
		hdr->dp_ifindex = req->dp_ifindex;
	return hdr != NULL;
}

static void
put_stats(struct msgbuf *mb, uint32_t id, struct meter *m)
{
	struct ovs_flow_stats stats, band_stats[METER_MAX_BANDS];
	struct nlattr *bands, *band;
	uint64_t used;

	meter_read(m, &stats, band_stats, &used);
	msgbuf_put_u32(mb, OVS_METER_ATTR_ID, id);
	msgbuf_put(mb, OVS_METER_ATTR_STATS, sizeof(stats), &stats);
	msgbuf_put_u64(mb, OVS_METER_ATTR_USED, used);
	bands = msgbuf_nest_start(mb, OVS_METER_ATTR_BANDS);
	for (unsigned i = 0; i < m->n_bands; i++) {
		band = msgbuf_nest_start(mb, OVS_BAND_ATTR_UNSPEC);
		msgbuf_put(mb, OVS_BAND_ATTR_STATS, sizeof(band_stats[i]),
			   &band_stats[i]);
		msgbuf_nest_end(mb, band);
	}
	msgbuf_nest_end(mb, bands);
}

/* The journal's record (journal.h): SET with m's id, unit and bands, or
 * DEL of id (m NULL). */
static void
meter_journal(const struct datapath *dp, uint32_t id, const struct meter *m)
{
	struct msgbuf *mb = journal_record_start(dp_get_net(dp), &meter_family,
		m ? OVS_METER_CMD_SET : OVS_METER_CMD_DEL, dp_ifindex(dp));
	struct nlattr *bands, *band;

	if (!mb)
		return;
	msgbuf_put_u32(mb, OVS_METER_ATTR_ID, id);
	if (m) {
		if (m->kbps)
			msgbuf_put(mb, OVS_METER_ATTR_KBPS, 0, NULL);
		bands = msgbuf_nest_start(mb, OVS_METER_ATTR_BANDS);
		for (unsigned i = 0; i < m->n_bands; i++) {
			band = msgbuf_nest_start(mb, OVS_BAND_ATTR_UNSPEC);
			msgbuf_put_u32(mb, OVS_BAND_ATTR_TYPE,
				       m->bands[i].type);
			msgbuf_put_u32(mb, OVS_BAND_ATTR_RATE,
				       m->bands[i].rate);
			msgbuf_put_u32(mb, OVS_BAND_ATTR_BURST,
				       m->bands[i].burst_size);
			msgbuf_nest_end(mb, band);
		}
		msgbuf_nest_end(mb, bands);
	}
	journal_record_end(mb);
}

void
meter_family_journal(struct datapath *dp)
{
	const struct meter_slots *slots = dp_meters(dp)->slots;

	for (uint32_t i = 0; i < slots->n; i++)
		if (slots->m[i])
			meter_journal(dp, slots->m[i]->id,
				      slots->m[i]);
}

static struct datapath *
meter_dp(const struct genl_info *info)
{
	const struct ovs_header *hdr = info->userhdr;

	return dp_by_ifindex(nlsock_net(info->sk), hdr->dp_ifindex);
}

static int
meter_cmd_features(struct genl_info *info)
{
	struct nlattr *bands, *band;
	struct datapath *dp;
	struct msgbuf mb;
	char mem[512];

	if (!reply_start(info, &mb, mem, sizeof(mem), OVS_METER_CMD_FEATURES))
		return -EMSGSIZE;
	dp = meter_dp(info);
	if (!dp)
		return -ENODEV;
	msgbuf_put_u32(&mb, OVS_METER_ATTR_MAX_METERS,
		       dp_meters(dp)->max_meters);
	msgbuf_put_u32(&mb, OVS_METER_ATTR_MAX_BANDS, METER_MAX_BANDS);
	bands = msgbuf_nest_start(&mb, OVS_METER_ATTR_BANDS);
	band = msgbuf_nest_start(&mb, OVS_BAND_ATTR_UNSPEC);
	msgbuf_put_u32(&mb, OVS_BAND_ATTR_TYPE, OVS_METER_BAND_TYPE_DROP);
	msgbuf_nest_end(&mb, band);
	msgbuf_nest_end(&mb, bands);
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

/* The meter a SET describes, validated before any lookup. */
static int
meter_create(const struct nlattr **a, struct meter **out)
{
	const struct nlattr *nla, *tb[OVS_BAND_ATTR_MAX + 1];
	struct meter *m;
	unsigned n = 0;
	int rem, err;

	if (!a[OVS_METER_ATTR_BANDS])
		return -EINVAL;
	attr_for_each(nla, attr_data(a[OVS_METER_ATTR_BANDS]),
		      attr_len(a[OVS_METER_ATTR_BANDS]), rem)
		if (++n > METER_MAX_BANDS)
			return -EINVAL;
	m = meter_new(attr_get_u32(a[OVS_METER_ATTR_ID]),
		      a[OVS_METER_ATTR_KBPS] != NULL, n);
	if (!m)
		return -ENOMEM;
	m->keep_stats = !a[OVS_METER_ATTR_CLEAR];
	if (m->keep_stats && a[OVS_METER_ATTR_STATS])
		memcpy(&m->stats, attr_data(a[OVS_METER_ATTR_STATS]),
		       sizeof(m->stats));
	n = 0;
	attr_for_each(nla, attr_data(a[OVS_METER_ATTR_BANDS]),
		      attr_len(a[OVS_METER_ATTR_BANDS]), rem) {
		err = attr_parse_nested(nla, band_policy, OVS_BAND_ATTR_MAX,
					tb, NULL);
		if (!err && (!tb[OVS_BAND_ATTR_TYPE] ||
			     !tb[OVS_BAND_ATTR_RATE] ||
			     !tb[OVS_BAND_ATTR_BURST]))
			err = -EINVAL;
		if (!err)
			err = meter_band_init(m, n++,
				attr_get_u32(tb[OVS_BAND_ATTR_TYPE]),
				attr_get_u32(tb[OVS_BAND_ATTR_RATE]),
				attr_get_u32(tb[OVS_BAND_ATTR_BURST]));
		if (err) {
			meter_destroy(m);
			return err;
		}
	}
	*out = m;
	return 0;
}

static int
meter_cmd_set(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	struct meter_table *meters;
	struct meter *m = NULL, *old;
	struct datapath *dp;
	struct msgbuf mb;
	char mem[512];
	uint32_t id;
	int err;

	if (!a[OVS_METER_ATTR_ID])
		return -EINVAL;
	err = meter_create(a, &m);
	if (err)
		return err;
	reply_start(info, &mb, mem, sizeof(mem), OVS_METER_CMD_SET);
	dp = meter_dp(info);
	if (!dp) {
		meter_destroy(m);
		return -ENODEV;
	}
	id = attr_get_u32(a[OVS_METER_ATTR_ID]);
	meters = dp_meters(dp);
	old = meter_lookup(meters, id);
	err = meter_detach(meters, old);
	if (!err) {
		err = meter_attach(meters, m);
		/* As the kernel: a replaced meter is gone even when its
		 * replacement could not be attached. */
		if (err) {
			meter_free(old);
			if (old)
				meter_journal(dp, id, NULL);
		}
	}
	if (err) {
		meter_destroy(m);
		return err;
	}
	meter_journal(dp, id, m);
	msgbuf_put_u32(&mb, OVS_METER_ATTR_ID, id);
	if (old && old->keep_stats)
		put_stats(&mb, id, old);
	meter_free(old);
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

static int
meter_cmd_get(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	struct datapath *dp;
	struct meter *m;
	struct msgbuf mb;
	char mem[512];
	uint32_t id;

	if (!a[OVS_METER_ATTR_ID])
		return -EINVAL;
	id = attr_get_u32(a[OVS_METER_ATTR_ID]);
	reply_start(info, &mb, mem, sizeof(mem), OVS_METER_CMD_GET);
	dp = meter_dp(info);
	if (!dp)
		return -ENODEV;
	m = meter_lookup(dp_meters(dp), id);
	if (!m)
		return -ENOENT;
	put_stats(&mb, id, m);
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

static int
meter_cmd_del(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	struct datapath *dp;
	struct meter *old;
	struct msgbuf mb;
	char mem[512];
	uint32_t id;
	int err;

	if (!a[OVS_METER_ATTR_ID])
		return -EINVAL;
	reply_start(info, &mb, mem, sizeof(mem), OVS_METER_CMD_DEL);
	dp = meter_dp(info);
	if (!dp)
		return -ENODEV;
	id = attr_get_u32(a[OVS_METER_ATTR_ID]);
	old = meter_lookup(dp_meters(dp), id);
	if (old) {
		put_stats(&mb, id, old);
		err = meter_detach(dp_meters(dp), old);
		if (err)
			return err;
		meter_journal(dp, id, NULL);
		meter_free(old);
	}
	if (msgbuf_end(&mb))
		return -EMSGSIZE;
	return genl_reply(info, &mb);
}

static const struct attr_policy meter_policy[OVS_METER_ATTR_MAX + 1] = {
	[OVS_METER_ATTR_ID] = { .kind = ATTR_U32 },
	[OVS_METER_ATTR_KBPS] = { .kind = ATTR_FLAG },
	[OVS_METER_ATTR_STATS] = { .kind = ATTR_UNSPEC,
				   .len = sizeof(struct ovs_flow_stats) },
	[OVS_METER_ATTR_BANDS] = { .kind = ATTR_NESTED },
	[OVS_METER_ATTR_USED] = { .kind = ATTR_U64 },
	[OVS_METER_ATTR_CLEAR] = { .kind = ATTR_FLAG },
	[OVS_METER_ATTR_MAX_METERS] = { .kind = ATTR_U32 },
	[OVS_METER_ATTR_MAX_BANDS] = { .kind = ATTR_U32 },
};

static const struct genl_ops_entry meter_ops[] = {
	{ .cmd = OVS_METER_CMD_FEATURES, .doit = meter_cmd_features },
	{ .cmd = OVS_METER_CMD_SET, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = meter_cmd_set },
	{ .cmd = OVS_METER_CMD_GET, .doit = meter_cmd_get },
	{ .cmd = OVS_METER_CMD_DEL, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = meter_cmd_del },
};

static const struct genl_mcgrp meter_groups[] = {
	{ .name = OVS_METER_MCGROUP, .id = GROUP_METER },
};

static const struct genl_family meter_family = {
	.name = OVS_METER_FAMILY,
	.id = FAMILY_ID_METER,
	.version = OVS_METER_VERSION,
	.hdrsize = sizeof(struct ovs_header),
	.maxattr = OVS_METER_ATTR_MAX,
	.policy = meter_policy,
	.resv_start_op = OVS_METER_CMD_GET + 1,
	.ops = meter_ops,
	.n_ops = sizeof(meter_ops) / sizeof(meter_ops[0]),
	.mcgrps = meter_groups,
	.n_mcgrps = 1,
};

void
meter_family_register(void)
{
	genl_register(&meter_family);
}
