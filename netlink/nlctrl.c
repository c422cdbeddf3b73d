/* SPDX-License-Identifier: Apache-2.0 */
/* nlctrl (GENL_ID_CTRL): family lookups by name, by id and as a dump, filled
 * like the kernel's ctrl_fill_info. */
#include <errno.h>
#include <string.h>

#include "netlink/genl.h"
#include "netlink/nlsock.h"
#include "netlink/kernel-relay.h"

static const struct genl_family nlctrl_family;

static uint32_t
op_flags(const struct genl_family *family, const struct genl_ops_entry *op)
{
	uint32_t flags = op->flags;

	if (op->doit)
		flags |= GENL_CMD_CAP_DO;
	if (op->dumpit)
		flags |= GENL_CMD_CAP_DUMP;
	if (family->policy)
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

static const struct attr_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID] = { .kind = ATTR_U16 },
	[CTRL_ATTR_FAMILY_NAME] = { .kind = ATTR_NUL_STRING,
				    .len = GENL_NAMSIZ - 1 },
};

static const struct genl_ops_entry ctrl_ops[] = {
	{ .cmd = CTRL_CMD_GETFAMILY, .doit = ctrl_cmd_getfamily,
	  .dumpit = ctrl_cmd_dumpfamily },
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
	.n_ops = 1,
	.mcgrps = ctrl_groups,
	.n_mcgrps = 1,
};

void
nlctrl_register(void)
{
	genl_register(&nlctrl_family);
}
