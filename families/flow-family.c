/* SPDX-License-Identifier: Apache-2.0 */
/* ovs_flow: NEW, SET, DEL (and flush), GET and dump, as net/openvswitch
 * does: keys and masks parsed by flow/key-netlink, actions validated and
 * stored by actions/actions-netlink, flows kept in the datapath's megaflow
 * table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/nlerr.h"
#include "datapath/datapath.h"
#include "families/families.h"
#include "datapath/journal.h"
#include "actions/actions-netlink.h"
#include "flow/key-netlink.h"
#include "genl-server/genl.h"

static const struct genl_family flow_family;

struct flow_id {
	uint8_t ufid[FLOW_UFID_MAX];
	uint8_t len;			/* 0: none */
};

static bool
get_ufid(const struct nlattr *a, struct flow_id *id, bool log)
{
	id->len = 0;
	if (!a)
		return false;
	if (attr_len(a) < 1 || attr_len(a) > FLOW_UFID_MAX) {
		ovs_nlerr(log, "ufid size %u bytes exceeds the range (1, %d)",
			  attr_len(a), FLOW_UFID_MAX);
		return false;
	}
	id->len = attr_len(a);
	memcpy(id->ufid, attr_data(a), id->len);
	return true;
}

static uint32_t
ufid_flags(const struct genl_info *info)
{
	const struct nlattr *a = info->attrs[OVS_FLOW_ATTR_UFID_FLAGS];

	return a ? attr_get_u32(a) : 0;
}

/* The flow's identity (UFID, else its unmasked key), key and mask. */
static void
put_match(const struct flow *flow, struct msgbuf *mb, uint32_t uflags)
{
	if (flow->ufid_len)
		msgbuf_put(mb, OVS_FLOW_ATTR_UFID, flow->ufid_len, flow->ufid);
	else
		flow_key_put(mb, OVS_FLOW_ATTR_KEY, flow->unmasked_key,
			     flow->unmasked_key, false);
	if (flow->ufid_len && !(uflags & OVS_UFID_F_OMIT_KEY))
		flow_key_put(mb, OVS_FLOW_ATTR_KEY, &flow->key, &flow->key,
			     false);
	if (!(uflags & OVS_UFID_F_OMIT_MASK))
		flow_key_put(mb, OVS_FLOW_ATTR_MASK, &flow->key,
			     flow_table_mask_key(flow), true);
}

/* The journal's own attribute of a flow's record: the slot of its
 * counters (datapath/flow-stats.h), which the flow a replay makes takes
 * back. Past OVS_FLOW_ATTR_MAX, where the kernel's policy (and ours)
 * passes over what a client sends; read from a replayed record only. */
#define FLOW_ATTR_STATS_SLOT	0x3f00

/* The slot a replayed record names, in *slot: false when none. */
static bool
record_slot(const struct genl_info *info, uint32_t *slot)
{
	size_t hl = GENL_HDRLEN + NLMSG_ALIGN(sizeof(struct ovs_header));
	const struct nlattr *a;
	int rem;

	if (!journal_replaying(nlsock_net(info->sk)) ||
	    info->nlh->nlmsg_len < NLMSG_HDRLEN + hl)
		return false;
	attr_for_each(a, (const char *)NLMSG_DATA(info->nlh) + hl,
		      info->nlh->nlmsg_len - NLMSG_HDRLEN - hl, rem)
		if (attr_type(a) == FLOW_ATTR_STATS_SLOT &&
		    attr_len(a) == sizeof(uint32_t)) {
			*slot = attr_get_u32(a);
			return true;
		}
	return false;
}

/* Journal records (journal.h). NEW with the flow as it is: its match,
 * actions and counters' slot (a NEW of a flow that exists replaces its
 * actions). */
static void
journal_flow(const struct datapath *dp, const struct flow *flow)
{
	const struct actions_stored *acts = flow->actions;
	struct msgbuf *mb = journal_record_start(dp_get_net(dp), &flow_family,
						 OVS_FLOW_CMD_NEW,
						 dp_ifindex(dp));
	struct nlattr *nest;

	if (!mb)
		return;
	put_match(flow, mb, 0);
	nest = msgbuf_nest_start(mb, OVS_FLOW_ATTR_ACTIONS);
	msgbuf_put_raw(mb, acts->data, acts->len);
	msgbuf_nest_end(mb, nest);
	msgbuf_put_u32(mb, FLOW_ATTR_STATS_SLOT, dp_flow_stats_slot(flow));
	journal_record_end(mb);
}

/* A NEW that worked, as it came (its attributes are serialized already),
 * and the flow's counters' slot. */
static void
journal_new(const struct genl_info *info, const struct flow *flow)
{
	static const uint16_t kept[] = { OVS_FLOW_ATTR_UFID, OVS_FLOW_ATTR_KEY,
					 OVS_FLOW_ATTR_MASK,
					 OVS_FLOW_ATTR_ACTIONS };
	const struct ovs_header *hdr = info->userhdr;
	struct msgbuf *mb = journal_record_start(nlsock_net(info->sk),
						 &flow_family,
						 OVS_FLOW_CMD_NEW,
						 hdr->dp_ifindex);

	if (!mb)
		return;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		const struct nlattr *a = info->attrs[kept[i]];

		if (a)
			msgbuf_put(mb, a->nla_type, attr_len(a), attr_data(a));
	}
	msgbuf_put_u32(mb, FLOW_ATTR_STATS_SLOT, dp_flow_stats_slot(flow));
	journal_record_end(mb);
}

/* DEL of one flow (by UFID, else by key), or of all (flow NULL). */
static void
journal_del(const struct datapath *dp, const struct flow *flow)
{
	struct msgbuf *mb = journal_record_start(dp_get_net(dp), &flow_family,
						 OVS_FLOW_CMD_DEL,
						 dp_ifindex(dp));

	if (!mb)
		return;
	if (flow)
		put_match(flow, mb, OVS_UFID_F_OMIT_KEY | OVS_UFID_F_OMIT_MASK);
	journal_record_end(mb);
}

void
flow_family_journal(struct datapath *dp)
{
	uint64_t cursor = 0;
	struct flow *flow;

	while ((flow = dp_flow_dump_next(dp, &cursor)))
		journal_flow(dp, flow);
}

static int
flow_fill(const struct flow *flow, int dp_ifindex, struct msgbuf *mb,
	  uint32_t portid, uint32_t seq, uint16_t flags, uint8_t cmd,
	  uint32_t uflags)
{
	const struct actions_stored *acts = flow->actions;
	bool first = mb->len == 0;
	struct ovs_flow_stats st;
	struct ovs_header *hdr;
	struct nlattr *nest;
	struct flow_stats fs;
	uint64_t used;
	uint16_t tcp;

	hdr = genl_msg_start(mb, &flow_family, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	hdr->dp_ifindex = dp_ifindex;
	put_match(flow, mb, uflags);
	dp_flow_get_stats(flow, &fs);
	st.n_packets = fs.packets;
	st.n_bytes = fs.bytes;
	used = fs.used_ms;
	tcp = fs.tcp_flags;
	if (used)
		msgbuf_put_u64(mb, OVS_FLOW_ATTR_USED, used);
	if (st.n_packets)
		msgbuf_put(mb, OVS_FLOW_ATTR_STATS, sizeof(st), &st);
	if ((uint8_t)ntohs(tcp))
		msgbuf_put_u8(mb, OVS_FLOW_ATTR_TCP_FLAGS, (uint8_t)ntohs(tcp));
	if (!(uflags & OVS_UFID_F_OMIT_ACTIONS)) {
		/* Actions too long for a dump part are left out of the
		 * part's first flow, as the kernel does; the client can GET
		 * them. */
		size_t before = mb->cur ? mb->cur->nlmsg_len : 0;

		nest = msgbuf_nest_start(mb, OVS_FLOW_ATTR_ACTIONS);
		msgbuf_put_raw(mb, acts->data, acts->len);
		msgbuf_nest_end(mb, nest);
		if (mb->overflow && first && mb->cur) {
			mb->overflow = false;
			mb->cur->nlmsg_len = before;
		}
	}
	return msgbuf_end(mb);
}

static int
flow_reply(struct genl_info *info, const struct flow *flow, uint8_t cmd,
	   bool always)
{
	const struct ovs_header *hdr = info->userhdr;
	static char mem[GENL_MSG_MAX];
	struct msgbuf mb;
	int err;

	msgbuf_init(&mb, mem, sizeof(mem));
	err = flow_fill(flow, hdr->dp_ifindex, &mb, nlsock_portid(info->sk),
			info->nlh->nlmsg_seq, 0, cmd, ufid_flags(info));
	if (err)
		return err;
	if (always)
		return genl_reply(info, &mb);
	genl_notify(info, GROUP_FLOW, &mb);
	return 0;
}

static struct datapath *
flow_dp(const struct genl_info *info)
{
	const struct ovs_header *hdr = info->userhdr;

	return dp_by_ifindex(nlsock_net(info->sk), hdr->dp_ifindex);
}

/* Whether an existing flow is the one a NEW describes (the kernel's
 * ovs_flow_cmp). */
static bool
same_flow(const struct flow *flow, const struct flow_key *key)
{
	if (flow->ufid_len) {
		const uint8_t *k = (const void *)key;
		const uint8_t *m = (const void *)flow_table_mask_key(flow);
		const uint8_t *f = (const void *)&flow->key;

		for (size_t i = 0; i < sizeof(*key); i++)
			if ((k[i] & m[i]) != f[i])
				return false;
		return true;
	}
	return !memcmp(flow->unmasked_key, key, sizeof(*key));
}

static int
flow_cmd_new(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	bool log = !a[OVS_FLOW_ATTR_PROBE];
	struct flow_key key, mask, masked;
	struct actions_stored *acts;
	struct flow *flow = NULL, *nf;
	struct flow_id id;
	struct datapath *dp;
	uint32_t slot;
	int err;

	if (!a[OVS_FLOW_ATTR_KEY]) {
		ovs_nlerr(log, "Flow key attr not present in new flow.");
		return -EINVAL;
	}
	if (!a[OVS_FLOW_ATTR_ACTIONS]) {
		ovs_nlerr(log, "Flow actions attr not present in new flow.");
		return -EINVAL;
	}
	err = flow_match_from_nlattrs(&key, &mask, a[OVS_FLOW_ATTR_KEY],
				      a[OVS_FLOW_ATTR_MASK], log);
	if (err)
		return err;
	get_ufid(a[OVS_FLOW_ATTR_UFID], &id, log);
	for (size_t i = 0; i < sizeof(key); i++)
		((uint8_t *)&masked)[i] = ((uint8_t *)&key)[i] &
					  ((uint8_t *)&mask)[i];
	err = actions_validate(a[OVS_FLOW_ATTR_ACTIONS], &masked, log);
	if (err) {
		ovs_nlerr(log, "Flow actions may not be safe on all matching "
			  "packets.");
		return err;
	}
	dp = flow_dp(info);
	if (!dp)
		return -ENODEV;
	acts = actions_store(a[OVS_FLOW_ATTR_ACTIONS], &masked);
	if (!acts)
		return -ENOMEM;
	if (id.len)
		flow = dp_flow_lookup_ufid(dp, id.ufid, id.len);
	if (!flow)
		flow = dp_flow_lookup(dp, &key, NULL);
	if (!flow) {
		/* A flow without UFID keeps its key behind it. */
		nf = calloc(1, sizeof(*nf) + (id.len ? 0 : sizeof(key)));
		if (!nf) {
			free(acts);
			return -ENOMEM;
		}
		if (!id.len) {
			memcpy(nf + 1, &key, sizeof(key));
			nf->unmasked_key = (const struct flow_key *)(nf + 1);
		}
		memcpy(nf->ufid, id.ufid, id.len);
		nf->ufid_len = id.len;
		nf->actions = acts;
		/* Made again by a replay: its counters go on. */
		if (record_slot(info, &slot) &&
		    !dp_flow_claim_stats(dp, nf, slot))
			log_warn("flow counters: slot %u is not the previous "
				 "daemon's: the flow's count starts again",
				 slot);
		err = dp_flow_insert(dp, nf, &key, &mask);
		if (err) {
			free(acts);
			free(nf);
			return err;
		}
		journal_new(info, nf);
		dp_upcall_answered(dp, &key);
		return flow_reply(info, nf, OVS_FLOW_CMD_NEW, false);
	}
	/* An existing flow: NLM_F_CREATE (or EXCL) asks for a new one. */
	if (info->nlh->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL)) {
		free(acts);
		return -EEXIST;
	}
	if (!same_flow(flow, &key)) {
		flow = flow->ufid_len ? NULL : dp_flow_lookup_exact(dp, &key);
		if (!flow) {
			free(acts);
			return -ENOENT;
		}
	}
	dp_flow_set_actions(dp, flow, acts);
	journal_new(info, flow);
	return flow_reply(info, flow, OVS_FLOW_CMD_NEW, false);
}

/* The flow a SET, GET or DEL names: by UFID, else by exact key. */
static int
find_flow(struct genl_info *info, struct datapath **dpp, struct flow **out,
	  struct flow_key *key, bool have_key)
{
	bool log = !info->attrs[OVS_FLOW_ATTR_PROBE];
	struct flow_id id;

	*dpp = flow_dp(info);
	if (!*dpp)
		return -ENODEV;
	if (get_ufid(info->attrs[OVS_FLOW_ATTR_UFID], &id, log))
		*out = dp_flow_lookup_ufid(*dpp, id.ufid, id.len);
	else
		*out = have_key ? dp_flow_lookup_exact(*dpp, key) : NULL;
	return *out ? 0 : -ENOENT;
}

static int
flow_cmd_set(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	bool log = !a[OVS_FLOW_ATTR_PROBE];
	struct flow_key key, mask, masked;
	struct actions_stored *acts = NULL;
	struct datapath *dp;
	struct flow *flow;
	struct flow_id id;
	int err;

	if (!a[OVS_FLOW_ATTR_KEY] && !get_ufid(a[OVS_FLOW_ATTR_UFID], &id,
					       log)) {
		ovs_nlerr(log, "Flow set message rejected, Key attribute "
			  "missing.");
		return -EINVAL;
	}
	if (a[OVS_FLOW_ATTR_KEY]) {
		err = flow_match_from_nlattrs(&key, &mask, a[OVS_FLOW_ATTR_KEY],
					      a[OVS_FLOW_ATTR_MASK], log);
		if (err)
			return err;
	}
	if (a[OVS_FLOW_ATTR_ACTIONS]) {
		if (!a[OVS_FLOW_ATTR_KEY]) {
			ovs_nlerr(log, "Flow key attribute not present in set "
				  "flow.");
			return -EINVAL;
		}
		for (size_t i = 0; i < sizeof(key); i++)
			((uint8_t *)&masked)[i] = ((uint8_t *)&key)[i] &
						  ((uint8_t *)&mask)[i];
		err = actions_validate(a[OVS_FLOW_ATTR_ACTIONS], &masked, log);
		if (err) {
			ovs_nlerr(log, "Actions may not be safe on all "
				  "matching packets");
			return err;
		}
		acts = actions_store(a[OVS_FLOW_ATTR_ACTIONS], &masked);
		if (!acts)
			return -ENOMEM;
	}
	err = find_flow(info, &dp, &flow, &key, a[OVS_FLOW_ATTR_KEY]);
	if (err) {
		free(acts);
		return err;
	}
	if (acts) {
		dp_flow_set_actions(dp, flow, acts);
		journal_flow(dp, flow);
	}
	err = flow_reply(info, flow, OVS_FLOW_CMD_SET, false);
	if (a[OVS_FLOW_ATTR_CLEAR])
		dp_flow_clear_stats(flow);
	return err;
}

/* The key a GET or DEL may name its flow by. */
static int
named_key(const struct genl_info *info, struct flow_key *key)
{
	const struct nlattr *k = info->attrs[OVS_FLOW_ATTR_KEY];

	return k ? flow_match_from_nlattrs(key, NULL, k, NULL,
					   !info->attrs[OVS_FLOW_ATTR_PROBE])
		 : 0;
}

static int
flow_cmd_get(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	bool log = !a[OVS_FLOW_ATTR_PROBE];
	struct datapath *dp;
	struct flow_key key;
	struct flow *flow;
	struct flow_id id;
	int err;

	err = named_key(info, &key);
	if (err)
		return err;
	if (!a[OVS_FLOW_ATTR_KEY] && !get_ufid(a[OVS_FLOW_ATTR_UFID], &id,
					       log)) {
		ovs_nlerr(log, "Flow get message rejected, Key attribute "
			  "missing.");
		return -EINVAL;
	}
	err = find_flow(info, &dp, &flow, &key, a[OVS_FLOW_ATTR_KEY]);
	return err ? err : flow_reply(info, flow, OVS_FLOW_CMD_GET, true);
}

static int
flow_cmd_del(struct genl_info *info)
{
	const struct nlattr **a = info->attrs;
	bool log = !a[OVS_FLOW_ATTR_PROBE];
	struct datapath *dp;
	struct flow_key key;
	struct flow *flow;
	struct flow_id id;
	int err;

	err = named_key(info, &key);
	if (err)
		return err;
	dp = flow_dp(info);
	if (!dp)
		return -ENODEV;
	if (!a[OVS_FLOW_ATTR_KEY] && !get_ufid(a[OVS_FLOW_ATTR_UFID], &id,
					       log)) {
		dp_flow_flush(dp);
		journal_del(dp, NULL);
		return 0;
	}
	err = find_flow(info, &dp, &flow, &key, a[OVS_FLOW_ATTR_KEY]);
	if (err)
		return err;
	err = flow_reply(info, flow, OVS_FLOW_CMD_DEL, false);
	journal_del(dp, flow);
	dp_flow_remove(dp, flow);
	return err;
}

static int
flow_cmd_dump(struct genl_dump *d, struct msgbuf *mb)
{
	const struct ovs_header *hdr = (const void *)((const char *)
		NLMSG_DATA(d->nlh) + GENL_HDRLEN);
	const struct nlattr *flags = NULL, *a;
	struct datapath *dp = dp_by_ifindex(nlsock_net(d->sk),
					    hdr->dp_ifindex);
	size_t off = NLMSG_LENGTH(GENL_HDRLEN + sizeof(*hdr));
	uint64_t cursor = d->args[0];
	struct flow *flow;
	int rem;

	if (!dp)
		return -ENODEV;
	attr_for_each(a, (const char *)d->nlh + off,
		      d->nlh->nlmsg_len > off ? d->nlh->nlmsg_len - off : 0,
		      rem)
		if (attr_type(a) == OVS_FLOW_ATTR_UFID_FLAGS &&
		    attr_len(a) >= 4)
			flags = a;
	for (;;) {
		uint64_t next = cursor;

		flow = dp_flow_dump_next(dp, &next);
		if (!flow)
			break;
		if (flow_fill(flow, hdr->dp_ifindex, mb, nlsock_portid(d->sk),
			      d->nlh->nlmsg_seq, NLM_F_MULTI, OVS_FLOW_CMD_GET,
			      flags ? attr_get_u32(flags) : 0))
			break;
		cursor = next;
	}
	d->args[0] = cursor;
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
	  .doit = flow_cmd_new },
	{ .cmd = OVS_FLOW_CMD_DEL, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_del },
	{ .cmd = OVS_FLOW_CMD_GET, .doit = flow_cmd_get,
	  .dumpit = flow_cmd_dump },
	{ .cmd = OVS_FLOW_CMD_SET, .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_set },
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
