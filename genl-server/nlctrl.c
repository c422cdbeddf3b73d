/* SPDX-License-Identifier: Apache-2.0 */
/* nlctrl (GENL_ID_CTRL): family lookups by name, by id and as a dump, filled
 * like the kernel's ctrl_fill_info; the policies of a family's ops
 * (GETPOLICY), dumped as the kernel's ctrl_dumppolicy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "genl-server/kernel-relay.h"
#include "genl-server/policy-dump.h"

static const struct genl_family nlctrl_family;

/* What the kernel puts in place of a missing policy for the commands from
 * resv_start_op on: every attribute rejected. */
static const struct attr_policy reject_all[2];

static void
op_policies(const struct genl_family *family, const struct genl_ops_entry *op,
	    const struct attr_policy **do_pol, unsigned *do_max,
	    const struct attr_policy **dump_pol, unsigned *dump_max)
{
	*do_pol = NULL;
	*do_max = 0;
	if (op->doit && family->policy && family->maxattr) {
		*do_pol = family->policy;
		*do_max = family->maxattr;
	} else if (op->doit && op->cmd >= family->resv_start_op) {
		*do_pol = reject_all;
		*do_max = 1;
	}
	*dump_pol = op->dumpit ? op->dump_policy : NULL;
	*dump_max = op->dumpit && op->dump_policy ? op->dump_maxattr : 0;
	if (!*do_max)
		*do_pol = NULL;
	if (!*dump_max)
		*dump_pol = NULL;
}

static uint32_t
op_flags(const struct genl_family *family, const struct genl_ops_entry *op)
{
	const struct attr_policy *dp, *up;
	uint32_t flags = op->flags;
	unsigned dm, um;

	op_policies(family, op, &dp, &dm, &up, &um);
	if (op->doit)
		flags |= GENL_CMD_CAP_DO;
	if (op->dumpit)
		flags |= GENL_CMD_CAP_DUMP;
	if (dp || up)
		flags |= GENL_CMD_CAP_HASPOL;
	return flags;
}

static int
ctrl_fill(const struct genl_family *family, struct msgbuf *mb,
	  uint32_t portid, uint32_t seq, uint16_t flags)
{
	struct nlattr *ops, *grps, *nest;

	if (!genl_msg_start(mb, &nlctrl_family, portid, seq, flags,
			    CTRL_CMD_NEWFAMILY))
		return -EMSGSIZE;
	msgbuf_put_string(mb, CTRL_ATTR_FAMILY_NAME, family->name);
	msgbuf_put_u16(mb, CTRL_ATTR_FAMILY_ID, family->id);
	msgbuf_put_u32(mb, CTRL_ATTR_VERSION, family->version);
	msgbuf_put_u32(mb, CTRL_ATTR_HDRSIZE, family->hdrsize);
	msgbuf_put_u32(mb, CTRL_ATTR_MAXATTR, family->maxattr);
	if (family->n_ops) {
		ops = msgbuf_nest_start(mb, CTRL_ATTR_OPS);
		for (unsigned i = 0; i < family->n_ops; i++) {
			nest = msgbuf_nest_start(mb, i + 1);
			msgbuf_put_u32(mb, CTRL_ATTR_OP_ID,
				       family->ops[i].cmd);
			msgbuf_put_u32(mb, CTRL_ATTR_OP_FLAGS,
				       op_flags(family, &family->ops[i]));
			msgbuf_nest_end(mb, nest);
		}
		msgbuf_nest_end(mb, ops);
	}
	if (family->n_mcgrps) {
		grps = msgbuf_nest_start(mb, CTRL_ATTR_MCAST_GROUPS);
		for (unsigned i = 0; i < family->n_mcgrps; i++) {
			nest = msgbuf_nest_start(mb, i + 1);
			msgbuf_put_u32(mb, CTRL_ATTR_MCAST_GRP_ID,
				       family->mcgrps[i].id);
			msgbuf_put_string(mb, CTRL_ATTR_MCAST_GRP_NAME,
					  family->mcgrps[i].name);
			msgbuf_nest_end(mb, nest);
		}
		msgbuf_nest_end(mb, grps);
	}
	return msgbuf_end(mb);
}

static int
ctrl_cmd_getfamily(struct genl_info *info)
{
	const struct genl_family *res = NULL;
	char mem[4096];
	struct msgbuf mb;
	int err = -EINVAL;

	if (info->attrs[CTRL_ATTR_FAMILY_ID]) {
		res = genl_family_by_id(
			attr_get_u16(info->attrs[CTRL_ATTR_FAMILY_ID]));
		err = -ENOENT;
	}
	if (info->attrs[CTRL_ATTR_FAMILY_NAME]) {
		res = genl_family_by_name(
			attr_data(info->attrs[CTRL_ATTR_FAMILY_NAME]));
		err = -ENOENT;
	}
	/* A family of the running kernel's: its own answer, ENOENT
	 * included. */
	if (!res && err == -ENOENT) {
		err = kernel_relay(info->sk, info->nlh, NULL);
		return err ? err : GENL_ANSWERED;
	}
	if (!res)
		return err;
	msgbuf_init(&mb, mem, sizeof(mem));
	err = ctrl_fill(res, &mb, nlsock_portid(info->sk),
			info->nlh->nlmsg_seq, 0);
	return err ? err : genl_reply(info, &mb);
}

/* Keeps the kernel's families that the daemon does not serve itself. */
static bool
kernel_family_kept(const struct nlmsghdr *nlh)
{
	const char *p = (const char *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	const struct nlattr *a;
	int rem;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return false;
	attr_for_each(a, p, nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), rem)
		if (attr_type(a) == CTRL_ATTR_FAMILY_NAME && attr_len(a) > 0 &&
		    memchr(attr_data(a), '\0', attr_len(a)))
			return !genl_family_by_name(attr_data(a));
	return false;
}

/* The daemon's families, then the kernel's others, whose dump ends the
 * whole dump. */
static int
ctrl_cmd_dumpfamily(struct genl_dump *d, struct msgbuf *mb)
{
	const struct genl_family *f;
	long n = d->args[0];

	while ((f = genl_family_at(n))) {
		if (ctrl_fill(f, mb, nlsock_portid(d->sk), d->nlh->nlmsg_seq,
			      NLM_F_MULTI))
			break;
		n++;
	}
	d->args[0] = n;
	if (mb->len || f)
		return mb->len;
	if (kernel_relay(d->sk, d->nlh, kernel_family_kept) == 0)
		d->done_sent = true;
	return 0;
}

/* GETPOLICY's progress: the op map (one message per op with a policy),
 * then one message per described attribute of each policy of the set. */
struct policy_dump {
	const struct genl_family *family;
	const struct genl_ops_entry *op;	/* the one asked for, or NULL */
	struct policy_set set;
};

enum { PD_OP, PD_POLICY, PD_ATTR };	/* indices into genl_dump.args */

static int
policy_dump_add_op(struct policy_dump *pd, const struct genl_ops_entry *op)
{
	const struct attr_policy *dp, *up;
	unsigned dm, um;
	int err;

	op_policies(pd->family, op, &dp, &dm, &up, &um);
	err = policy_set_add(&pd->set, dp, dm);
	return err ? err : policy_set_add(&pd->set, up, um);
}

static const struct attr_policy ctrl_policy_policy[CTRL_ATTR_OP + 1] = {
	[CTRL_ATTR_FAMILY_ID] = { .kind = ATTR_U16 },
	[CTRL_ATTR_FAMILY_NAME] = { .kind = ATTR_NUL_STRING,
				    .len = GENL_NAMSIZ - 1 },
	[CTRL_ATTR_OP] = { .kind = ATTR_U32 },
};

static void
policy_dump_free(struct genl_dump *d)
{
	free(d->data);
}

static int
ctrl_policy_start(struct genl_dump *d, struct extack *ack)
{
	const struct nlattr *tb[CTRL_ATTR_OP + 1];
	const struct genl_family *family = NULL;
	struct policy_dump *pd;
	int err;

	err = attr_parse((const char *)NLMSG_DATA(d->nlh) + GENL_HDRLEN,
			 d->nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
			 ctrl_policy_policy, CTRL_ATTR_OP, tb, ack);
	if (err)
		return err;
	if (tb[CTRL_ATTR_FAMILY_ID])
		family = genl_family_by_id(attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]));
	else if (tb[CTRL_ATTR_FAMILY_NAME])
		family = genl_family_by_name(attr_data(tb[CTRL_ATTR_FAMILY_NAME]));
	else
		return -EINVAL;
	/* A family of the running kernel's: its own answer, ENOENT
	 * included. */
	if (!family) {
		err = kernel_relay(d->sk, d->nlh, NULL);
		return err ? err : GENL_ANSWERED;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	pd->family = family;
	if (tb[CTRL_ATTR_OP]) {
		uint32_t cmd = attr_get_u32(tb[CTRL_ATTR_OP]);

		for (unsigned i = 0; i < family->n_ops && !pd->op; i++)
			if (family->ops[i].cmd == cmd)
				pd->op = &family->ops[i];
		err = -ENOENT;
		if (!pd->op) {
			ack->bad_attr = tb[CTRL_ATTR_OP];
			goto fail;
		}
		err = policy_dump_add_op(pd, pd->op);
	} else {
		for (unsigned i = 0; i < family->n_ops && !err; i++)
			err = policy_dump_add_op(pd, &family->ops[i]);
	}
	if (!err && !pd->set.n)
		err = -ENODATA;
	if (err)
		goto fail;
	d->data = pd;
	return 0;
fail:
	free(pd);
	return err;
}

static bool
policy_msg_start(struct genl_dump *d, struct msgbuf *mb)
{
	const struct policy_dump *pd = d->data;

	if (!genl_msg_start(mb, &nlctrl_family, nlsock_portid(d->sk),
			    d->nlh->nlmsg_seq, NLM_F_MULTI, CTRL_CMD_GETPOLICY))
		return false;
	msgbuf_put_u16(mb, CTRL_ATTR_FAMILY_ID, pd->family->id);
	return true;
}

/* The op's policy indices, if it has any policy; -EMSGSIZE when full. */
static int
put_op_map(struct genl_dump *d, struct msgbuf *mb,
	   const struct genl_ops_entry *op)
{
	const struct policy_dump *pd = d->data;
	const struct attr_policy *dp, *up;
	struct nlattr *map, *nest;
	unsigned dm, um;

	op_policies(pd->family, op, &dp, &dm, &up, &um);
	if (!dp && !up)
		return 0;
	if (!policy_msg_start(d, mb))
		return -EMSGSIZE;
	map = msgbuf_nest_start(mb, CTRL_ATTR_OP_POLICY);
	nest = msgbuf_nest_start(mb, op->cmd);
	if (dp)
		msgbuf_put_u32(mb, CTRL_ATTR_POLICY_DO,
			       policy_set_index(&pd->set, dp, dm));
	if (up)
		msgbuf_put_u32(mb, CTRL_ATTR_POLICY_DUMP,
			       policy_set_index(&pd->set, up, um));
	msgbuf_nest_end(mb, nest);
	msgbuf_nest_end(mb, map);
	return msgbuf_end(mb);
}

static int
ctrl_cmd_dumppolicy(struct genl_dump *d, struct msgbuf *mb)
{
	const struct policy_dump *pd = d->data;
	unsigned n_map = pd->op ? 1 : pd->family->n_ops;

	for (; d->args[PD_OP] < (long)n_map; d->args[PD_OP]++)
		if (put_op_map(d, mb, pd->op ? pd->op
					     : &pd->family->ops[d->args[PD_OP]]))
			return mb->len;
	for (; d->args[PD_POLICY] < (long)pd->set.n; d->args[PD_POLICY]++,
	     d->args[PD_ATTR] = 0) {
		long i = d->args[PD_POLICY];

		for (; d->args[PD_ATTR] <= (long)pd->set.p[i].maxtype;
		     d->args[PD_ATTR]++) {
			const struct attr_policy *pt =
				&pd->set.p[i].policy[d->args[PD_ATTR]];
			struct nlattr *all, *pol;

			if (!policy_msg_start(d, mb))
				return mb->len;
			all = msgbuf_nest_start(mb, CTRL_ATTR_POLICY);
			pol = msgbuf_nest_start(mb, i);
			if (!policy_attr_put(mb, pt, d->args[PD_ATTR])) {
				msgbuf_cancel(mb);
				continue;
			}
			msgbuf_nest_end(mb, pol);
			msgbuf_nest_end(mb, all);
			if (msgbuf_end(mb))
				return mb->len;
		}
	}
	return mb->len;
}

static const struct attr_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID] = { .kind = ATTR_U16 },
	[CTRL_ATTR_FAMILY_NAME] = { .kind = ATTR_NUL_STRING,
				    .len = GENL_NAMSIZ - 1 },
};

static const struct genl_ops_entry ctrl_ops[] = {
	{ .cmd = CTRL_CMD_GETFAMILY, .doit = ctrl_cmd_getfamily,
	  .dumpit = ctrl_cmd_dumpfamily, .dump_policy = ctrl_policy,
	  .dump_maxattr = CTRL_ATTR_MAX },
	{ .cmd = CTRL_CMD_GETPOLICY, .dumpit = ctrl_cmd_dumppolicy,
	  .start = ctrl_policy_start, .done = policy_dump_free,
	  .dump_policy = ctrl_policy_policy, .dump_maxattr = CTRL_ATTR_OP },
};

static const struct genl_mcgrp ctrl_groups[] = {
	{ .name = "notify", .id = GENL_ID_CTRL },
};

static const struct genl_family nlctrl_family = {
	.name = "nlctrl",
	.id = GENL_ID_CTRL,
	.version = 2,
	.hdrsize = 0,
	.maxattr = CTRL_ATTR_MAX,
	.policy = ctrl_policy,
	.resv_start_op = CTRL_CMD_GETPOLICY + 1,
	.ops = ctrl_ops,
	.n_ops = sizeof(ctrl_ops) / sizeof(ctrl_ops[0]),
	.mcgrps = ctrl_groups,
	.n_mcgrps = 1,
};

void
nlctrl_register(void)
{
	genl_register(&nlctrl_family);
}
