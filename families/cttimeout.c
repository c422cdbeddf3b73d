/* SPDX-License-Identifier: Apache-2.0 */
#include "families/cttimeout.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_cttimeout.h>
#include <stdlib.h>
#include <string.h>

#include "common/unaligned.h"
#include "ct/timeout.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"

/* Room for one policy's message, with margin. */
#define TP_MSG_MAX	256

static const struct attr_policy tp_policy[CTA_TIMEOUT_MAX + 1] = {
	[CTA_TIMEOUT_NAME] = { .kind = ATTR_NUL_STRING,
			       .len = CT_TIMEOUT_NAME_LEN - 1 },
	[CTA_TIMEOUT_L3PROTO] = { .kind = ATTR_U16 },
	[CTA_TIMEOUT_L4PROTO] = { .kind = ATTR_U8 },
	[CTA_TIMEOUT_DATA] = { .kind = ATTR_NESTED },
};

/* Every protocol's values are 32-bit. */
static const struct attr_policy values_policy[CT_TIMEOUT_N] = {
	[1 ... CT_TIMEOUT_N - 1] = { .kind = ATTR_U32 },
};

/* The values CTA_TIMEOUT_DATA gives for l4num, and which it gives. */
static int
parse_values(const struct nlattr *data, uint8_t l4num, uint32_t *values,
	     uint32_t *present, struct extack *ack)
{
	const struct nlattr *tb[CT_TIMEOUT_N];
	int max = ct_timeout_max_attr(l4num), err;

	*present = 0;
	if (!max)
		return -EOPNOTSUPP;
	err = attr_parse_nested(data, values_policy, max, tb, ack);
	if (err)
		return err;
	for (int i = 1; i <= max; i++) {
		if (!tb[i])
			continue;
		values[i] = get_be32(attr_data(tb[i]));
		*present |= 1u << i;
	}
	return 0;
}

/* One policy as ctnl_timeout_fill_info() puts it. */
static int
put_policy(struct msgbuf *mb, uint32_t portid, uint32_t seq,
	   const struct ct_timeout_info *tp)
{
	int max = ct_timeout_max_attr(tp->l4num);
	struct nfgenmsg *nf;
	struct nlattr *data;
	uint32_t be;
	uint16_t l3;

	nf = msgbuf_start(mb,
			  NFNL_SUBSYS_CTNETLINK_TIMEOUT << 8 |
				  IPCTNL_MSG_TIMEOUT_NEW,
			  portid ? NLM_F_MULTI : 0, seq, portid, sizeof(*nf));
	if (!nf)
		return -EMSGSIZE;
	nf->nfgen_family = AF_UNSPEC;
	nf->version = NFNETLINK_V0;
	msgbuf_put_string(mb, CTA_TIMEOUT_NAME, tp->name);
	l3 = htons(tp->l3num);
	msgbuf_put(mb, CTA_TIMEOUT_L3PROTO, 2, &l3);
	msgbuf_put_u8(mb, CTA_TIMEOUT_L4PROTO, tp->l4num);
	be = htonl(tp->use);
	msgbuf_put(mb, CTA_TIMEOUT_USE, 4, &be);
	data = msgbuf_nest_start(mb, CTA_TIMEOUT_DATA);
	if (data)
		data->nla_type |= NLA_F_NESTED;
	for (int i = 1; i <= max; i++) {
		be = htonl(tp->values[i]);
		msgbuf_put(mb, i, 4, &be);
	}
	msgbuf_nest_end(mb, data);
	return msgbuf_end(mb);
}

/* The journal's record (journal.h) of a policy: NEW with its values (with
 * NLM_F_REPLACE, so that it makes the policy or sets it), or DELETE (of
 * all when tp is NULL). */
static void
journal_policy(const struct dp_net *net, const struct ct_timeout_info *tp,
	       uint8_t msg)
{
	char mem[TP_MSG_MAX];
	struct nfgenmsg *nf;
	struct msgbuf mb;

	if (!journal_keeps(net))
		return;
	msgbuf_init(&mb, mem, sizeof(mem));
	if (msg == IPCTNL_MSG_TIMEOUT_NEW) {
		if (put_policy(&mb, 0, 0, tp))
			return;
	} else {
		nf = msgbuf_start(&mb, NFNL_SUBSYS_CTNETLINK_TIMEOUT << 8 | msg,
				  0, 0, 0, sizeof(*nf));
		nf->nfgen_family = AF_UNSPEC;
		nf->version = NFNETLINK_V0;
		if (tp)
			msgbuf_put_string(&mb, CTA_TIMEOUT_NAME, tp->name);
		if (msgbuf_end(&mb))
			return;
	}
	((struct nlmsghdr *)mem)->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
						NLM_F_CREATE | NLM_F_REPLACE;
	journal_append(net, &mb);
}

void
cttimeout_journal(const struct dp_net *net, struct ct_timeout_table *t)
{
	struct ct_timeout_info info;

	for (size_t i = 0; !ct_timeout_at(t, i, &info); i++)
		journal_policy(net, &info, IPCTNL_MSG_TIMEOUT_NEW);
}

static int
tp_new(const struct dp_net *net, const struct nlmsghdr *nlh,
       const struct nlattr **a, struct ct_timeout_table *t,
       struct extack *ack)
{
	uint32_t values[CT_TIMEOUT_N] = { 0 }, present;
	struct ct_timeout_info info;
	uint8_t l4num;
	int err;

	if (!a[CTA_TIMEOUT_NAME] || !a[CTA_TIMEOUT_L3PROTO] ||
	    !a[CTA_TIMEOUT_L4PROTO] || !a[CTA_TIMEOUT_DATA])
		return -EINVAL;
	l4num = attr_get_u8(a[CTA_TIMEOUT_L4PROTO]);
	err = parse_values(a[CTA_TIMEOUT_DATA], l4num, values, &present, ack);
	/* An unknown protocol is refused only for a new policy. */
	if (err && err != -EOPNOTSUPP)
		return err;
	err = ct_timeout_set(t, attr_data(a[CTA_TIMEOUT_NAME]),
			     get_be16(attr_data(a[CTA_TIMEOUT_L3PROTO])),
			     l4num, values, present,
			     nlh->nlmsg_flags & NLM_F_EXCL,
			     nlh->nlmsg_flags & NLM_F_REPLACE);
	if (!err && journal_keeps(net) &&
	    !ct_timeout_get(t, attr_data(a[CTA_TIMEOUT_NAME]), &info))
		journal_policy(net, &info, IPCTNL_MSG_TIMEOUT_NEW);
	return err;
}

static int
tp_get(struct nlsock *sk, const struct nlmsghdr *nlh, const struct nlattr **a,
       struct ct_timeout_table *t)
{
	struct ct_timeout_info info;
	char mem[TP_MSG_MAX];
	struct msgbuf mb;
	int err;

	if (!a[CTA_TIMEOUT_NAME])
		return -EINVAL;
	err = ct_timeout_get(t, attr_data(a[CTA_TIMEOUT_NAME]), &info);
	if (err)
		return err;
	msgbuf_init(&mb, mem, sizeof(mem));
	if (put_policy(&mb, nlsock_portid(sk), nlh->nlmsg_seq, &info))
		return -ENOMEM;
	nlsock_unicast(sk, mb.buf, mb.len);
	return 0;
}

/* A dump: the policies from the next one on, part after part. */
struct tp_dump {
	struct ct_timeout_table *t;
	size_t next;
};

static int
tp_dumpit(struct genl_dump *d, struct msgbuf *mb)
{
	struct tp_dump *s = d->data;
	struct ct_timeout_info info;

	while (!ct_timeout_at(s->t, s->next, &info)) {
		if (put_policy(mb, nlsock_portid(d->sk), d->nlh->nlmsg_seq,
			       &info))
			break;
		s->next++;
	}
	return mb->len;
}

static void
tp_dump_done(struct genl_dump *d)
{
	free(d->data);
}

static const struct genl_ops_entry tp_dump_op = {
	.cmd = IPCTNL_MSG_TIMEOUT_GET,
	.dumpit = tp_dumpit,
	.done = tp_dump_done,
};

static int
tp_dump_start(struct nlsock *sk, const struct nlmsghdr *nlh,
	      struct ct_timeout_table *t)
{
	struct tp_dump *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->t = t;
	err = genl_dump_start(sk, NULL, &tp_dump_op, nlh, s);
	if (err != GENL_ANSWERED)
		free(s);
	return err;
}

int
cttimeout_msg(struct nlsock *sk, const struct nlmsghdr *nlh,
	      struct ct_timeout_table *t, struct extack *ack)
{
	const struct nlattr *a[CTA_TIMEOUT_MAX + 1];
	struct ct_timeout_info info;
	int err;

	err = attr_parse_msg(nlh, sizeof(struct nfgenmsg), tp_policy,
			     CTA_TIMEOUT_MAX, a, ack);
	if (err)
		return err;
	switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
	case IPCTNL_MSG_TIMEOUT_NEW:
		return tp_new(nlsock_net(sk), nlh, a, t, ack);
	case IPCTNL_MSG_TIMEOUT_GET:
		if (nlh->nlmsg_flags & NLM_F_DUMP)
			return tp_dump_start(sk, nlh, t);
		return tp_get(sk, nlh, a, t);
	case IPCTNL_MSG_TIMEOUT_DELETE:
		if (!a[CTA_TIMEOUT_NAME]) {
			ct_timeout_del(t, NULL);
			journal_policy(nlsock_net(sk), NULL,
				       IPCTNL_MSG_TIMEOUT_DELETE);
			return 0;
		}
		err = ct_timeout_get(t, attr_data(a[CTA_TIMEOUT_NAME]), &info);
		if (!err)
			err = ct_timeout_del(t, attr_data(a[CTA_TIMEOUT_NAME]));
		if (!err)
			journal_policy(nlsock_net(sk), &info,
				       IPCTNL_MSG_TIMEOUT_DELETE);
		return err;
	default:
		return -EOPNOTSUPP;
	}
}
