/* SPDX-License-Identifier: Apache-2.0 */
#include "families/ctnetlink.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_conntrack_tcp.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/unaligned.h"
#include "ct/action-netlink.h"
#include "ct/conntrack.h"
#include "families/cttimeout.h"
#include "datapath/datapath.h"
#include "datapath/journal.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"

/* Room for one connection's message, with margin. */
#define CT_DUMP_ENTRY_MAX	512

static const struct attr_policy ct_policy[CTA_MAX + 1] = {
	[CTA_TUPLE_ORIG] = { .kind = ATTR_NESTED },
	[CTA_TUPLE_REPLY] = { .kind = ATTR_NESTED },
	[CTA_STATUS] = { .kind = ATTR_U32 },
	[CTA_TIMEOUT] = { .kind = ATTR_U32 },
	[CTA_MARK] = { .kind = ATTR_U32 },
	[CTA_ID] = { .kind = ATTR_U32 },
	[CTA_ZONE] = { .kind = ATTR_U16 },
	[CTA_MARK_MASK] = { .kind = ATTR_U32 },
	[CTA_LABELS] = { .kind = ATTR_BINARY, .len = 16 },
	[CTA_LABELS_MASK] = { .kind = ATTR_BINARY, .len = 16 },
	[CTA_STATUS_MASK] = { .kind = ATTR_U32 },
	[CTA_PROTOINFO] = { .kind = ATTR_NESTED },
	[CTA_HELP] = { .kind = ATTR_NESTED },
	[CTA_NAT_SRC] = { .kind = ATTR_NESTED },
	[CTA_NAT_DST] = { .kind = ATTR_NESTED },
	[CTA_TUPLE_MASTER] = { .kind = ATTR_NESTED },
};

static const struct attr_policy help_policy[CTA_HELP_MAX + 1] = {
	[CTA_HELP_NAME] = { .kind = ATTR_NUL_STRING,
			    .len = CT_HELPER_NAME_LEN - 1 },
};

static const struct attr_policy nat_policy[CTA_NAT_MAX + 1] = {
	[CTA_NAT_V4_MINIP] = { .kind = ATTR_U32 },
	[CTA_NAT_V4_MAXIP] = { .kind = ATTR_U32 },
	[CTA_NAT_V6_MINIP] = { .kind = ATTR_UNSPEC, .len = 16 },
	[CTA_NAT_V6_MAXIP] = { .kind = ATTR_UNSPEC, .len = 16 },
	[CTA_NAT_PROTO] = { .kind = ATTR_NESTED },
};

static const struct attr_policy protonat_policy[CTA_PROTONAT_MAX + 1] = {
	[CTA_PROTONAT_PORT_MIN] = { .kind = ATTR_U16 },
	[CTA_PROTONAT_PORT_MAX] = { .kind = ATTR_U16 },
};

static const struct attr_policy protoinfo_policy[CTA_PROTOINFO_MAX + 1] = {
	[CTA_PROTOINFO_TCP] = { .kind = ATTR_NESTED },
};

static const struct attr_policy tcp_policy[CTA_PROTOINFO_TCP_MAX + 1] = {
	[CTA_PROTOINFO_TCP_STATE] = { .kind = ATTR_U8 },
	[CTA_PROTOINFO_TCP_WSCALE_ORIGINAL] = { .kind = ATTR_U8 },
	[CTA_PROTOINFO_TCP_WSCALE_REPLY] = { .kind = ATTR_U8 },
	[CTA_PROTOINFO_TCP_FLAGS_ORIGINAL] = { .kind = ATTR_UNSPEC, .len = 2 },
	[CTA_PROTOINFO_TCP_FLAGS_REPLY] = { .kind = ATTR_UNSPEC, .len = 2 },
};

static const struct attr_policy tuple_policy[CTA_TUPLE_MAX + 1] = {
	[CTA_TUPLE_IP] = { .kind = ATTR_NESTED },
	[CTA_TUPLE_PROTO] = { .kind = ATTR_NESTED },
	[CTA_TUPLE_ZONE] = { .kind = ATTR_U16 },
};

static const struct attr_policy ip_policy[CTA_IP_MAX + 1] = {
	[CTA_IP_V4_SRC] = { .kind = ATTR_U32 },
	[CTA_IP_V4_DST] = { .kind = ATTR_U32 },
	[CTA_IP_V6_SRC] = { .kind = ATTR_UNSPEC, .len = 16 },
	[CTA_IP_V6_DST] = { .kind = ATTR_UNSPEC, .len = 16 },
};

static const struct attr_policy proto_policy[CTA_PROTO_MAX + 1] = {
	[CTA_PROTO_NUM] = { .kind = ATTR_U8 },
	[CTA_PROTO_SRC_PORT] = { .kind = ATTR_U16 },
	[CTA_PROTO_DST_PORT] = { .kind = ATTR_U16 },
	[CTA_PROTO_ICMP_ID] = { .kind = ATTR_U16 },
	[CTA_PROTO_ICMP_TYPE] = { .kind = ATTR_U8 },
	[CTA_PROTO_ICMP_CODE] = { .kind = ATTR_U8 },
	[CTA_PROTO_ICMPV6_ID] = { .kind = ATTR_U16 },
	[CTA_PROTO_ICMPV6_TYPE] = { .kind = ATTR_U8 },
	[CTA_PROTO_ICMPV6_CODE] = { .kind = ATTR_U8 },
};

/* A tuple attribute (CTA_TUPLE_ORIG/REPLY) of family in zone. */
static int
parse_tuple(const struct nlattr *nest, int family, uint16_t zone,
	    struct ct_tuple *t, struct extack *ack)
{
	const struct nlattr *tb[CTA_TUPLE_MAX + 1], *ip[CTA_IP_MAX + 1];
	const struct nlattr *pr[CTA_PROTO_MAX + 1];
	int err;

	memset(t, 0, sizeof(*t));
	err = attr_parse_nested(nest, tuple_policy, CTA_TUPLE_MAX, tb, ack);
	if (err)
		return err;
	if (!tb[CTA_TUPLE_IP] || !tb[CTA_TUPLE_PROTO])
		return -EINVAL;
	err = attr_parse_nested(tb[CTA_TUPLE_IP], ip_policy, CTA_IP_MAX, ip,
				ack);
	if (!err)
		err = attr_parse_nested(tb[CTA_TUPLE_PROTO], proto_policy,
					CTA_PROTO_MAX, pr, ack);
	if (err)
		return err;
	t->family = family;
	/* A zone in the tuple is the one it is looked up in. */
	t->zone = tb[CTA_TUPLE_ZONE] ? get_be16(attr_data(tb[CTA_TUPLE_ZONE]))
				     : zone;
	if (family == AF_INET) {
		if (!ip[CTA_IP_V4_SRC] || !ip[CTA_IP_V4_DST])
			return -EINVAL;
		memcpy(&t->src.ip, attr_data(ip[CTA_IP_V4_SRC]), 4);
		memcpy(&t->dst.ip, attr_data(ip[CTA_IP_V4_DST]), 4);
	} else if (family == AF_INET6) {
		if (!ip[CTA_IP_V6_SRC] || !ip[CTA_IP_V6_DST])
			return -EINVAL;
		memcpy(&t->src.ip6, attr_data(ip[CTA_IP_V6_SRC]), 16);
		memcpy(&t->dst.ip6, attr_data(ip[CTA_IP_V6_DST]), 16);
	} else {
		return -EOPNOTSUPP;
	}
	if (!pr[CTA_PROTO_NUM])
		return -EINVAL;
	t->proto = attr_get_u8(pr[CTA_PROTO_NUM]);
	if (t->proto == ct_icmp_proto(family)) {
		int id = family == AF_INET ? CTA_PROTO_ICMP_ID
					   : CTA_PROTO_ICMPV6_ID;

		if (!pr[id] || !pr[id + 1] || !pr[id + 2])
			return -EINVAL;
		t->sport = get_unaligned16(attr_data(pr[id]));
		t->icmp_type = attr_get_u8(pr[id + 1]);
		t->icmp_code = attr_get_u8(pr[id + 2]);
	} else if (pr[CTA_PROTO_SRC_PORT] || pr[CTA_PROTO_DST_PORT]) {
		if (!pr[CTA_PROTO_SRC_PORT] || !pr[CTA_PROTO_DST_PORT])
			return -EINVAL;
		t->sport = get_unaligned16(attr_data(pr[CTA_PROTO_SRC_PORT]));
		t->dport = get_unaligned16(attr_data(pr[CTA_PROTO_DST_PORT]));
	}
	return 0;
}

static struct nlattr *
nest_start(struct msgbuf *mb, uint16_t type)
{
	struct nlattr *n = msgbuf_nest_start(mb, type);

	/* Netfilter marks its nests, unlike the OVS families. */
	if (n)
		n->nla_type |= NLA_F_NESTED;
	return n;
}

static void
put_tuple(struct msgbuf *mb, uint16_t type, const struct ct_tuple *t)
{
	struct nlattr *outer = nest_start(mb, type), *n;

	n = nest_start(mb, CTA_TUPLE_IP);
	if (t->family == AF_INET) {
		msgbuf_put(mb, CTA_IP_V4_SRC, 4, &t->src.ip);
		msgbuf_put(mb, CTA_IP_V4_DST, 4, &t->dst.ip);
	} else {
		msgbuf_put(mb, CTA_IP_V6_SRC, 16, &t->src.ip6);
		msgbuf_put(mb, CTA_IP_V6_DST, 16, &t->dst.ip6);
	}
	msgbuf_nest_end(mb, n);
	n = nest_start(mb, CTA_TUPLE_PROTO);
	msgbuf_put_u8(mb, CTA_PROTO_NUM, t->proto);
	if (t->proto == ct_icmp_proto(t->family)) {
		int id = t->family == AF_INET ? CTA_PROTO_ICMP_ID
					      : CTA_PROTO_ICMPV6_ID;

		msgbuf_put(mb, id, 2, &t->sport);
		msgbuf_put_u8(mb, id + 1, t->icmp_type);
		msgbuf_put_u8(mb, id + 2, t->icmp_code);
	} else if (t->proto == IPPROTO_TCP || t->proto == IPPROTO_UDP ||
		   t->proto == IPPROTO_UDPLITE || t->proto == IPPROTO_SCTP ||
		   t->proto == IPPROTO_DCCP) {
		msgbuf_put(mb, CTA_PROTO_SRC_PORT, 2, &t->sport);
		msgbuf_put(mb, CTA_PROTO_DST_PORT, 2, &t->dport);
	}
	msgbuf_nest_end(mb, n);
	msgbuf_nest_end(mb, outer);
}

static void
put_be32(struct msgbuf *mb, uint16_t type, uint32_t v)
{
	v = htonl(v);
	msgbuf_put(mb, type, 4, &v);
}

/* TCP's state, and unless the connection is destroyed its window scales
 * and flags (tcp_to_nlattr()); nothing for the other protocols. */
static void
put_protoinfo(struct msgbuf *mb, const struct conntrack_entry *e,
	      bool destroy)
{
	struct nlattr *pi, *tcp;

	if (e->orig.proto != IPPROTO_TCP)
		return;
	pi = nest_start(mb, CTA_PROTOINFO);
	tcp = nest_start(mb, CTA_PROTOINFO_TCP);
	msgbuf_put_u8(mb, CTA_PROTOINFO_TCP_STATE, e->tcp_state);
	if (!destroy) {
		msgbuf_put_u8(mb, CTA_PROTOINFO_TCP_WSCALE_ORIGINAL,
			      e->tcp_wscale[0]);
		msgbuf_put_u8(mb, CTA_PROTOINFO_TCP_WSCALE_REPLY,
			      e->tcp_wscale[1]);
		for (int d = 0; d < 2; d++) {
			struct nf_ct_tcp_flags f = { .flags = e->tcp_flags[d] };

			msgbuf_put(mb, d ? CTA_PROTOINFO_TCP_FLAGS_REPLY
					 : CTA_PROTOINFO_TCP_FLAGS_ORIGINAL,
				   sizeof(f), &f);
		}
	}
	msgbuf_nest_end(mb, tcp);
	msgbuf_nest_end(mb, pi);
}

static void
put_helper(struct msgbuf *mb, const struct conntrack_entry *e)
{
	struct nlattr *h;

	if (!e->helper)
		return;
	h = nest_start(mb, CTA_HELP);
	msgbuf_put_string(mb, CTA_HELP_NAME, ct_helper_name(e->helper));
	msgbuf_nest_end(mb, h);
}

static void
put_zone(struct msgbuf *mb, const struct conntrack_entry *e)
{
	uint16_t z = htons(e->orig.zone);

	if (e->orig.zone)
		msgbuf_put(mb, CTA_ZONE, 2, &z);
}

/* Opens a netfilter message of type (subsystem and message) for family;
 * NULL when mb is full. */
static struct nfgenmsg *
msg_start(struct msgbuf *mb, uint16_t type, uint16_t flags, uint32_t seq,
	  uint32_t portid, uint8_t family)
{
	struct nfgenmsg *nf;

	nf = msgbuf_start(mb, type, flags, seq, portid, sizeof(*nf));
	if (nf) {
		nf->nfgen_family = family;
		nf->version = NFNETLINK_V0;
		nf->res_id = 0;
	}
	return nf;
}

#define CT_MSG(msg)	(NFNL_SUBSYS_CTNETLINK << 8 | (msg))
#define EXP_MSG(msg)	(NFNL_SUBSYS_CTNETLINK_EXP << 8 | (msg))

/* One connection as ctnetlink_fill_info() lists it. */
static int
put_entry(struct msgbuf *mb, const struct nlsock *sk, uint32_t seq,
	  const struct conntrack_entry *e)
{
	if (!msg_start(mb, CT_MSG(IPCTNL_MSG_CT_NEW), NLM_F_MULTI, seq,
		       nlsock_portid(sk), e->orig.family))
		return -EMSGSIZE;
	put_tuple(mb, CTA_TUPLE_ORIG, &e->orig);
	put_tuple(mb, CTA_TUPLE_REPLY, &e->reply);
	put_zone(mb, e);
	put_be32(mb, CTA_STATUS, e->status);
	put_be32(mb, CTA_MARK, e->mark);
	put_be32(mb, CTA_ID, e->id);
	put_be32(mb, CTA_USE, 1);
	if (e->has_master)
		put_tuple(mb, CTA_TUPLE_MASTER, &e->master);
	put_be32(mb, CTA_TIMEOUT, e->timeout);
	put_protoinfo(mb, e, false);
	put_helper(mb, e);
	if (e->has_labels)
		msgbuf_put(mb, CTA_LABELS, 16, e->labels);
	return msgbuf_end(mb);
}

/* Events: the group a set of them goes to (ctnetlink_conntrack_event()). */
static uint32_t
event_group(uint32_t events)
{
	if (events & 1u << IPCT_DESTROY)
		return NFNLGRP_CONNTRACK_DESTROY;
	if (events & (1u << IPCT_NEW | 1u << IPCT_RELATED))
		return NFNLGRP_CONNTRACK_NEW;
	return NFNLGRP_CONNTRACK_UPDATE;
}

static bool
event_listening(uint32_t events, void *arg)
{
	return nlsock_has_listeners(NETLINK_NETFILTER, event_group(events));
}

/* One connection's events as ctnetlink_conntrack_event() reports them:
 * what changed, in its order. */
static void
event_deliver(const struct conntrack_entry *e, uint32_t events,
	      uint32_t portid, void *arg)
{
	bool destroy = events & 1u << IPCT_DESTROY;
	uint32_t group = event_group(events);
	char mem[CT_DUMP_ENTRY_MAX * 2];
	struct msgbuf mb;

	msgbuf_init(&mb, mem, sizeof(mem));
	if (!msg_start(&mb,
		       CT_MSG(destroy ? IPCTNL_MSG_CT_DELETE
				      : IPCTNL_MSG_CT_NEW),
		       group == NFNLGRP_CONNTRACK_NEW
			       ? NLM_F_CREATE | NLM_F_EXCL
			       : 0,
		       0, portid, e->orig.family))
		return;
	put_tuple(&mb, CTA_TUPLE_ORIG, &e->orig);
	put_tuple(&mb, CTA_TUPLE_REPLY, &e->reply);
	put_zone(&mb, e);
	put_be32(&mb, CTA_ID, e->id);
	put_be32(&mb, CTA_STATUS, e->status);
	put_be32(&mb, CTA_TIMEOUT, destroy ? 0 : e->timeout);
	if (destroy) {
		put_protoinfo(&mb, e, true);
	} else {
		if (events & 1u << IPCT_PROTOINFO)
			put_protoinfo(&mb, e, false);
		put_helper(&mb, e);
		if (events & 1u << IPCT_LABEL)
			msgbuf_put(&mb, CTA_LABELS, 16, e->labels);
		if (events & 1u << IPCT_RELATED && e->has_master)
			put_tuple(&mb, CTA_TUPLE_MASTER, &e->master);
	}
	if (e->mark || events & 1u << IPCT_MARK)
		put_be32(&mb, CTA_MARK, e->mark);
	if (msgbuf_end(&mb))
		return;
	/* Not back to the socket whose request made them. */
	nlsock_multicast(NETLINK_NETFILTER, arg, group, mb.buf, mb.len, portid);
}

/* Whether a and b differ in address or port. */
static bool
endpoint_moved(const struct ct_tuple *t, const union ct_addr *a,
	       uint16_t aport, const union ct_addr *b, uint16_t bport)
{
	size_t len = t->family == AF_INET ? 4 : 16;

	return memcmp(a, b, len) || aport != bport;
}

/* A CTA_NAT_SRC or CTA_NAT_DST mapping to exactly addr and port. */
static void
put_nat(struct msgbuf *mb, uint16_t type, const struct ct_tuple *t,
	const union ct_addr *addr, uint16_t port)
{
	struct nlattr *nat = nest_start(mb, type), *pr;

	if (t->family == AF_INET)
		msgbuf_put(mb, CTA_NAT_V4_MINIP, 4, addr);
	else
		msgbuf_put(mb, CTA_NAT_V6_MINIP, 16, addr);
	if (t->proto != ct_icmp_proto(t->family)) {
		pr = nest_start(mb, CTA_NAT_PROTO);
		msgbuf_put(mb, CTA_PROTONAT_PORT_MIN, 2, &port);
		msgbuf_nest_end(mb, pr);
	}
	msgbuf_nest_end(mb, nat);
}

/* The journal's record of a connection's events (datapath/journal.h): the
 * CT_NEW that makes it again as it is (when committed: its tuples, the NAT
 * that maps the original to the reply, its master and helper) or changes
 * it (status, timeout, mark, labels, TCP state), or the CT_DELETE that
 * removes it. Counters and TCP windows are not kept. Any thread. */
static void
journal_conn(const struct conntrack_entry *e, uint32_t events, void *arg)
{
	bool destroy = events & 1u << IPCT_DESTROY;
	bool create = events & (1u << IPCT_NEW | 1u << IPCT_RELATED);
	const struct ct_tuple *o = &e->orig, *r = &e->reply;
	char mem[CT_DUMP_ENTRY_MAX * 2];
	struct msgbuf mb;

	msgbuf_init(&mb, mem, sizeof(mem));
	if (!msg_start(&mb,
		       CT_MSG(destroy ? IPCTNL_MSG_CT_DELETE
				      : IPCTNL_MSG_CT_NEW),
		       NLM_F_REQUEST | NLM_F_ACK |
			       (destroy ? 0 : NLM_F_CREATE),
		       0, 0, o->family))
		return;
	put_tuple(&mb, CTA_TUPLE_ORIG, o);
	put_zone(&mb, e);
	if (!destroy) {
		if (create) {
			put_tuple(&mb, CTA_TUPLE_REPLY, r);
			if (endpoint_moved(o, &r->dst, r->dport, &o->src,
					   o->sport))
				put_nat(&mb, CTA_NAT_SRC, o, &r->dst, r->dport);
			if (endpoint_moved(o, &r->src, r->sport, &o->dst,
					   o->dport))
				put_nat(&mb, CTA_NAT_DST, o, &r->src, r->sport);
			if (e->has_master)
				put_tuple(&mb, CTA_TUPLE_MASTER, &e->master);
			put_helper(&mb, e);
		}
		put_be32(&mb, CTA_STATUS, e->status);
		put_be32(&mb, CTA_TIMEOUT, e->timeout);
		put_be32(&mb, CTA_MARK, e->mark);
		put_protoinfo(&mb, e, true);
		if (e->has_labels)
			msgbuf_put(&mb, CTA_LABELS, 16, e->labels);
	}
	if (!msgbuf_end(&mb))
		journal_append(arg, &mb);
}

static bool
journal_keeping(void *arg)
{
	return journal_keeps(arg);
}

static int
journal_visit(const struct conntrack_entry *e, void *arg)
{
	journal_conn(e, 1u << IPCT_NEW, arg);
	return 0;
}

void
ctnetlink_journal(struct dp_net *net, struct conntrack *ct)
{
	conntrack_dump(ct, -1, journal_visit, net);
}

/* A dump: a snapshot of the matching connections or expectations, sent
 * in parts. */
struct snapshot {
	char *items;			/* n of size bytes each */
	size_t size, n, cap, next;
	/* Puts one in a message of the dump. */
	int (*put)(struct msgbuf *, const struct nlsock *, uint32_t seq,
		   const void *item, uint64_t now);
	int family;			/* 0: all */
	uint32_t master_id;		/* expectations: one connection's */
	uint64_t now;
};

static int
snap_add(struct snapshot *s, const void *item)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		char *p = realloc(s->items, cap * s->size);

		if (!p)
			return -ENOMEM;
		s->items = p;
		s->cap = cap;
	}
	memcpy(s->items + s->n++ * s->size, item, s->size);
	return 0;
}

static int
snap_dumpit(struct genl_dump *d, struct msgbuf *mb)
{
	struct snapshot *s = d->data;

	while (s->next < s->n) {
		if (s->put(mb, d->sk, d->nlh->nlmsg_seq,
			   s->items + s->next * s->size, s->now))
			break;
		s->next++;
	}
	return mb->len;
}

static void
snap_free(struct snapshot *s)
{
	if (s) {
		free(s->items);
		free(s);
	}
}

static void
snap_dump_done(struct genl_dump *d)
{
	snap_free(d->data);
}

static struct snapshot *
snap_new(size_t size, int family,
	 int (*put)(struct msgbuf *, const struct nlsock *, uint32_t,
		    const void *, uint64_t))
{
	struct snapshot *s = calloc(1, sizeof(*s));

	if (s) {
		s->size = size;
		s->family = family;
		s->put = put;
		s->now = clock_now_ms();
	}
	return s;
}

/* Starts the dump of s, filled (fill_err 0), or answers fill_err. */
static int
snap_dump_start(struct nlsock *sk, const struct nlmsghdr *nlh,
		const struct genl_ops_entry *op, struct snapshot *s,
		int fill_err)
{
	int err = fill_err ? fill_err : genl_dump_start(sk, NULL, op, nlh, s);

	if (err != GENL_ANSWERED)
		snap_free(s);
	return err;
}

static int
snap_conn(const struct conntrack_entry *e, void *arg)
{
	struct snapshot *s = arg;

	if (s->family && e->orig.family != s->family)
		return 0;
	return snap_add(s, e);
}

static int
put_conn(struct msgbuf *mb, const struct nlsock *sk, uint32_t seq,
	 const void *item, uint64_t now)
{
	return put_entry(mb, sk, seq, item);
}

static const struct genl_ops_entry ct_dump_op = {
	.cmd = IPCTNL_MSG_CT_GET,
	.dumpit = snap_dumpit,
	.done = snap_dump_done,
};

static int
ct_dump_start(struct nlsock *sk, const struct nlmsghdr *nlh,
	      const struct nlattr **a, int family, struct conntrack *ct)
{
	struct snapshot *s = snap_new(sizeof(struct conntrack_entry), family,
				      put_conn);

	if (!s)
		return -ENOMEM;
	return snap_dump_start(sk, nlh, &ct_dump_op, s,
			       conntrack_dump(ct,
					      a[CTA_ZONE]
						      ? get_be16(attr_data(
								a[CTA_ZONE]))
						      : -1,
					      snap_conn, s));
}

/* The dying and unconfirmed lists: a connection goes from the table at
 * once and is confirmed as it is put in, so both are empty; a dump only,
 * as the kernel's. */
static int
ct_dump_empty(struct nlsock *sk, const struct nlmsghdr *nlh, int family)
{
	struct snapshot *s;

	if (!(nlh->nlmsg_flags & NLM_F_DUMP))
		return -EOPNOTSUPP;
	s = snap_new(sizeof(struct conntrack_entry), family, put_conn);
	if (!s)
		return -ENOMEM;
	return snap_dump_start(sk, nlh, &ct_dump_op, s, 0);
}

static int
ct_get(struct nlsock *sk, const struct nlmsghdr *nlh, const struct nlattr **a,
       int family, struct conntrack *ct, struct extack *ack)
{
	const struct nlattr *tuple = a[CTA_TUPLE_ORIG] ? a[CTA_TUPLE_ORIG]
						       : a[CTA_TUPLE_REPLY];
	uint16_t zone = a[CTA_ZONE] ? get_be16(attr_data(a[CTA_ZONE])) : 0;
	struct conntrack_entry e;
	struct ct_tuple t;
	struct msgbuf mb;
	char mem[CT_DUMP_ENTRY_MAX * 2];
	int err;

	if (!tuple)
		return -EINVAL;
	err = parse_tuple(tuple, family, zone, &t, ack);
	if (!err)
		err = conntrack_get(ct, &t, &e);
	if (err)
		return err;
	msgbuf_init(&mb, mem, sizeof(mem));
	if (put_entry(&mb, sk, nlh->nlmsg_seq, &e))
		return -ENOMEM;
	nlsock_unicast(sk, mb.buf, mb.len);
	return 0;
}

/* ctnetlink_del_conntrack(): DESTROY events name the requester. */
static int
ct_delete(struct nlsock *sk, const struct nlattr **a, int family,
	  int version, struct conntrack *ct, struct extack *ack)
{
	const struct nlattr *tuple = a[CTA_TUPLE_ORIG] ? a[CTA_TUPLE_ORIG]
						       : a[CTA_TUPLE_REPLY];
	int zone = a[CTA_ZONE] ? get_be16(attr_data(a[CTA_ZONE])) : -1;
	struct ct_tuple t;
	int err;

	if (!tuple) {
		/* A flush: of one family only when the version says so. */
		conntrack_flush(ct, zone, version ? family : 0,
				nlsock_portid(sk));
		return 0;
	}
	err = parse_tuple(tuple, family, zone < 0 ? 0 : zone, &t, ack);
	if (err)
		return err;
	return conntrack_delete(ct, &t,
				a[CTA_ID] ? ntohl(attr_get_u32(a[CTA_ID])) : 0,
				nlsock_portid(sk));
}

/* CTA_PROTOINFO: TCP's state (nlattr_to_tcp(); the window scales and
 * flags are not kept); the other protocols have none to take. */
static int
parse_protoinfo(const struct nlattr *nest, const struct ct_tuple *t,
		struct conntrack_change *ch, struct extack *ack)
{
	const struct nlattr *pi[CTA_PROTOINFO_MAX + 1];
	const struct nlattr *tcp[CTA_PROTOINFO_TCP_MAX + 1];
	int err;

	err = attr_parse_nested(nest, protoinfo_policy, CTA_PROTOINFO_MAX, pi,
				ack);
	if (err || t->proto != IPPROTO_TCP || !pi[CTA_PROTOINFO_TCP])
		return err;
	err = attr_parse_nested(pi[CTA_PROTOINFO_TCP], tcp_policy,
				CTA_PROTOINFO_TCP_MAX, tcp, ack);
	if (!err && tcp[CTA_PROTOINFO_TCP_STATE]) {
		ch->given |= CT_SET_TCP_STATE;
		ch->tcp_state = attr_get_u8(tcp[CTA_PROTOINFO_TCP_STATE]);
	}
	return err;
}

/* CTA_HELP's name (ctnetlink_parse_help()). */
static int
parse_help(const struct nlattr *nest, const char **name, struct extack *ack)
{
	const struct nlattr *tb[CTA_HELP_MAX + 1];
	int err;

	err = attr_parse_nested(nest, help_policy, CTA_HELP_MAX, tb, ack);
	if (err)
		return err;
	if (!tb[CTA_HELP_NAME])
		return -EINVAL;
	*name = attr_data(tb[CTA_HELP_NAME]);
	return 0;
}

/* CTA_HELP for an existing connection e, as ctnetlink_change_helper()
 * takes it: its own helper again is no change; "" removes it; another
 * cannot be given. */
static int
change_help(const struct nlattr *nest, const struct conntrack_entry *e,
	    struct conntrack_change *ch, struct extack *ack)
{
	const char *name, *cur = ct_helper_name(e->helper);
	uint8_t helper;
	int err;

	err = parse_help(nest, &name, ack);
	if (err)
		return err;
	/* Not for the sibling of a master. */
	if (e->has_master)
		return cur && !strcmp(cur, name) ? 0 : -EBUSY;
	if (!*name) {
		ch->given |= CT_SET_HELPER;
		return 0;
	}
	helper = ct_helper_find(name, e->orig.proto);
	if (!helper || !e->helper)
		return -EOPNOTSUPP;
	return helper == e->helper ? 0 : -EBUSY;
}

/* CTA_NAT_SRC or CTA_NAT_DST as nfnetlink_parse_nat() reads it: the
 * addresses (the maximum defaults to the minimum) and ports given. */
static int
parse_nat(const struct nlattr *nest, int family, struct ct_nat_range *r,
	  struct extack *ack)
{
	const struct nlattr *tb[CTA_NAT_MAX + 1];
	const struct nlattr *pr[CTA_PROTONAT_MAX + 1];
	int min = family == AF_INET ? CTA_NAT_V4_MINIP : CTA_NAT_V6_MINIP;
	int max = family == AF_INET ? CTA_NAT_V4_MAXIP : CTA_NAT_V6_MAXIP;
	size_t len = family == AF_INET ? 4 : 16;
	int err;

	memset(r, 0, sizeof(*r));
	err = attr_parse_nested(nest, nat_policy, CTA_NAT_MAX, tb, ack);
	if (err)
		return err;
	if (tb[min]) {
		memcpy(&r->min_addr, attr_data(tb[min]), len);
		r->flags |= CT_RANGE_MAP_IPS;
	}
	r->max_addr = r->min_addr;
	if (tb[max])
		memcpy(&r->max_addr, attr_data(tb[max]), len);
	if (!tb[CTA_NAT_PROTO])
		return 0;
	err = attr_parse_nested(tb[CTA_NAT_PROTO], protonat_policy,
				CTA_PROTONAT_MAX, pr, ack);
	if (err)
		return err;
	if (pr[CTA_PROTONAT_PORT_MIN]) {
		r->min_port = get_be16(attr_data(pr[CTA_PROTONAT_PORT_MIN]));
		r->max_port = r->min_port;
		r->flags |= CT_RANGE_PROTO;
	}
	if (pr[CTA_PROTONAT_PORT_MAX]) {
		r->max_port = get_be16(attr_data(pr[CTA_PROTONAT_PORT_MAX]));
		r->flags |= CT_RANGE_PROTO;
	}
	return 0;
}

/* CTA_LABELS with its optional mask (ctnetlink_attach_labels()): whole
 * 32-bit words; the words not given are cleared. */
static int
parse_labels(const struct nlattr **a, struct conntrack_change *ch)
{
	size_t len = attr_len(a[CTA_LABELS]);
	const uint8_t *mask = NULL;

	if (len % 4)
		return -EINVAL;
	if (a[CTA_LABELS_MASK]) {
		if ((size_t)attr_len(a[CTA_LABELS_MASK]) != len || !len)
			return -EINVAL;
		mask = attr_data(a[CTA_LABELS_MASK]);
	}
	memset(ch->labels_keep, 0, 16);
	memset(ch->labels, 0, 16);
	memcpy(ch->labels, attr_data(a[CTA_LABELS]), len);
	for (size_t i = 0; mask && i < len; i++)
		ch->labels_keep[i] = ~mask[i];
	ch->given |= CT_SET_LABELS;
	return 0;
}

/* What a CT_NEW request gives besides its tuples. */
static int
parse_change(const struct nlattr **a, const struct ct_tuple *t,
	     struct conntrack_change *ch, struct extack *ack)
{
	memset(ch, 0, sizeof(*ch));
	if (a[CTA_TIMEOUT]) {
		ch->given |= CT_SET_TIMEOUT;
		ch->timeout = ntohl(attr_get_u32(a[CTA_TIMEOUT]));
	}
	if (a[CTA_STATUS]) {
		ch->given |= CT_SET_STATUS;
		ch->status = ntohl(attr_get_u32(a[CTA_STATUS]));
	}
	if (a[CTA_MARK]) {
		ch->given |= CT_SET_MARK;
		ch->mark = ntohl(attr_get_u32(a[CTA_MARK]));
		if (a[CTA_MARK_MASK])
			ch->mark_keep = ~ntohl(attr_get_u32(a[CTA_MARK_MASK]));
	}
	return a[CTA_PROTOINFO] ? parse_protoinfo(a[CTA_PROTOINFO], t, ch, ack)
				: 0;
}

/* ctnetlink_new_conntrack(): creates a connection (NLM_F_CREATE) or
 * changes the one there is (unless NLM_F_EXCL). */
static int
ct_new(struct nlsock *sk, const struct nlmsghdr *nlh, const struct nlattr **a,
       int family, struct conntrack *ct, struct extack *ack)
{
	uint16_t zone = a[CTA_ZONE] ? get_be16(attr_data(a[CTA_ZONE])) : 0;
	struct conntrack_entry e;
	struct ct_tuple orig, reply;
	struct conntrack_change ch;
	int err;

	if (a[CTA_TUPLE_ORIG]) {
		err = parse_tuple(a[CTA_TUPLE_ORIG], family, zone, &orig, ack);
		if (err)
			return err;
	}
	if (a[CTA_TUPLE_REPLY]) {
		err = parse_tuple(a[CTA_TUPLE_REPLY], family, zone, &reply,
				  ack);
		if (err)
			return err;
	}
	err = -ENOENT;
	if (a[CTA_TUPLE_ORIG] || a[CTA_TUPLE_REPLY])
		err = conntrack_get(ct, a[CTA_TUPLE_ORIG] ? &orig : &reply, &e);
	if (err == -ENOENT) {
		if (!(nlh->nlmsg_flags & NLM_F_CREATE))
			return -ENOENT;
		if (!a[CTA_TUPLE_ORIG] || !a[CTA_TUPLE_REPLY] ||
		    orig.proto != reply.proto || !a[CTA_TIMEOUT])
			return -EINVAL;
		err = parse_change(a, &orig, &ch, ack);
		if (!err && a[CTA_HELP]) {
			const char *name;

			err = parse_help(a[CTA_HELP], &name, ack);
			ch.helper = err ? 0 : ct_helper_find(name, orig.proto);
			ch.given |= CT_SET_HELPER;
			if (!err && !ch.helper)
				err = -EOPNOTSUPP;
		}
		if (!err && a[CTA_NAT_DST]) {
			err = parse_nat(a[CTA_NAT_DST], family, &ch.dnat, ack);
			ch.given |= CT_SET_DNAT;
		}
		if (!err && a[CTA_NAT_SRC]) {
			err = parse_nat(a[CTA_NAT_SRC], family, &ch.snat, ack);
			ch.given |= CT_SET_SNAT;
		}
		if (err)
			return err;
		/* Labels it cannot take are left out, as the kernel does. */
		if (a[CTA_LABELS])
			parse_labels(a, &ch);
		if (a[CTA_TUPLE_MASTER]) {
			err = parse_tuple(a[CTA_TUPLE_MASTER], family, zone,
					  &ch.master, ack);
			if (err)
				return err;
			ch.given |= CT_SET_MASTER;
		}
		return conntrack_insert(ct, &orig, &reply, &ch,
					nlsock_portid(sk));
	}
	if (err)
		return err;
	if (nlh->nlmsg_flags & NLM_F_EXCL)
		return -EEXIST;
	/* NAT and a master only for new connections. */
	if (a[CTA_NAT_SRC] || a[CTA_NAT_DST] || a[CTA_TUPLE_MASTER])
		return -EOPNOTSUPP;
	err = parse_change(a, &e.orig, &ch, ack);
	if (!err && a[CTA_HELP])
		err = change_help(a[CTA_HELP], &e, &ch, ack);
	if (!err && a[CTA_LABELS])
		err = parse_labels(a, &ch);
	if (err)
		return err;
	return conntrack_update(ct, &e.orig, &ch, nlsock_portid(sk));
}

/* Statistics: the tracker's counters as one CPU's (conntrack -S); those
 * it does not keep are 0. */
static int
stats_cpu_dumpit(struct genl_dump *d, struct msgbuf *mb)
{
	struct conntrack *ct = d->data;
	bool exp = NFNL_SUBSYS_ID(d->nlh->nlmsg_type) ==
		   NFNL_SUBSYS_CTNETLINK_EXP;
	struct conntrack_stats s;
	struct nfgenmsg *nf;

	if (d->args[0])
		return 0;
	conntrack_get_stats(ct, &s);
	nf = msg_start(mb, d->nlh->nlmsg_type, NLM_F_MULTI, d->nlh->nlmsg_seq,
		       nlsock_portid(d->sk), AF_UNSPEC);
	if (!nf)
		return -EMSGSIZE;
	nf->res_id = htons(0);		/* the CPU */
	if (exp) {
		put_be32(mb, CTA_STATS_EXP_NEW, s.n_expect_new);
		put_be32(mb, CTA_STATS_EXP_CREATE, s.n_expect_create);
		put_be32(mb, CTA_STATS_EXP_DELETE, s.n_expect_delete);
	} else {
		put_be32(mb, CTA_STATS_FOUND, 0);
		put_be32(mb, CTA_STATS_INVALID, s.n_invalid);
		put_be32(mb, CTA_STATS_INSERT, 0);
		put_be32(mb, CTA_STATS_INSERT_FAILED, s.n_refused);
		put_be32(mb, CTA_STATS_DROP, 0);
		put_be32(mb, CTA_STATS_EARLY_DROP, 0);
		put_be32(mb, CTA_STATS_ERROR, 0);
		put_be32(mb, CTA_STATS_SEARCH_RESTART, 0);
		put_be32(mb, CTA_STATS_CLASH_RESOLVE, 0);
		put_be32(mb, CTA_STATS_CHAIN_TOOLONG, 0);
	}
	if (msgbuf_end(mb))
		return -EMSGSIZE;
	d->args[0] = 1;
	return mb->len;
}

static const struct genl_ops_entry stats_cpu_op = {
	.cmd = IPCTNL_MSG_CT_GET_STATS_CPU,
	.dumpit = stats_cpu_dumpit,
};

/* Per CPU: a dump only; a plain request gets nothing, as the kernel's. */
static int
stats_cpu(struct nlsock *sk, const struct nlmsghdr *nlh, struct conntrack *ct)
{
	if (!(nlh->nlmsg_flags & NLM_F_DUMP))
		return 0;
	return genl_dump_start(sk, NULL, &stats_cpu_op, nlh, ct);
}

/* CT_GET_STATS: the table's size and limit. */
static int
stats_global(struct nlsock *sk, const struct nlmsghdr *nlh,
	     struct conntrack *ct)
{
	struct conntrack_stats s;
	struct msgbuf mb;
	char mem[128];

	conntrack_get_stats(ct, &s);
	msgbuf_init(&mb, mem, sizeof(mem));
	if (!msg_start(&mb, nlh->nlmsg_type, NLM_F_MULTI, nlh->nlmsg_seq,
		       nlsock_portid(sk), AF_UNSPEC))
		return -ENOMEM;
	put_be32(&mb, CTA_STATS_GLOBAL_ENTRIES, s.n_conns);
	put_be32(&mb, CTA_STATS_GLOBAL_MAX_ENTRIES, s.max_conns);
	if (msgbuf_end(&mb))
		return -ENOMEM;
	nlsock_unicast(sk, mb.buf, mb.len);
	return 0;
}

/* The expectation subsystem (NFNL_SUBSYS_CTNETLINK_EXP). */

static const struct attr_policy exp_policy[CTA_EXPECT_MAX + 1] = {
	[CTA_EXPECT_MASTER] = { .kind = ATTR_NESTED },
	[CTA_EXPECT_TUPLE] = { .kind = ATTR_NESTED },
	[CTA_EXPECT_MASK] = { .kind = ATTR_NESTED },
	[CTA_EXPECT_TIMEOUT] = { .kind = ATTR_U32 },
	[CTA_EXPECT_ID] = { .kind = ATTR_U32 },
	[CTA_EXPECT_HELP_NAME] = { .kind = ATTR_NUL_STRING,
				   .len = CT_HELPER_NAME_LEN - 1 },
	[CTA_EXPECT_ZONE] = { .kind = ATTR_U16 },
	[CTA_EXPECT_FLAGS] = { .kind = ATTR_U32 },
	[CTA_EXPECT_CLASS] = { .kind = ATTR_U32 },
	[CTA_EXPECT_NAT] = { .kind = ATTR_NESTED },
	[CTA_EXPECT_FN] = { .kind = ATTR_NUL_STRING },
};

/* An expectation as ctnetlink_exp_dump_expect() puts it: its tuple, its
 * mask (an exact source address, any source port), its master's tuple,
 * seconds left, id, flags, class and helper. */
static void
put_expect(struct msgbuf *mb, const struct ct_expect *e, uint64_t now)
{
	struct ct_tuple mask = {
		.family = e->t.family, .proto = e->t.proto, .dport = 0xffff,
	};

	memset(&mask.src, 0xff, sizeof(mask.src));
	memset(&mask.dst, 0xff, sizeof(mask.dst));
	put_tuple(mb, CTA_EXPECT_TUPLE, &e->t);
	put_tuple(mb, CTA_EXPECT_MASK, &mask);
	put_tuple(mb, CTA_EXPECT_MASTER, &e->master);
	put_be32(mb, CTA_EXPECT_TIMEOUT,
		 e->expires > now ? (e->expires - now) / 1000 : 0);
	put_be32(mb, CTA_EXPECT_ID, e->id);
	put_be32(mb, CTA_EXPECT_FLAGS, 0);
	put_be32(mb, CTA_EXPECT_CLASS, 0);
	if (ct_helper_name(e->helper))
		msgbuf_put_string(mb, CTA_EXPECT_HELP_NAME,
				  ct_helper_name(e->helper));
}

static int
put_exp_entry(struct msgbuf *mb, const struct nlsock *sk, uint32_t seq,
	      const struct ct_expect *e, uint64_t now)
{
	if (!msg_start(mb, EXP_MSG(IPCTNL_MSG_EXP_NEW), NLM_F_MULTI, seq,
		       nlsock_portid(sk), e->t.family))
		return -EMSGSIZE;
	put_expect(mb, e, now);
	return msgbuf_end(mb);
}

/* ctnetlink_expect_event(): NEW to NFNLGRP_CONNTRACK_EXP_NEW, a removal
 * to NFNLGRP_CONNTRACK_EXP_DESTROY. */
static void
exp_event_deliver(const struct ct_expect *e, bool destroy, uint32_t portid,
		  void *arg)
{
	uint32_t group = destroy ? NFNLGRP_CONNTRACK_EXP_DESTROY
				 : NFNLGRP_CONNTRACK_EXP_NEW;
	char mem[CT_DUMP_ENTRY_MAX];
	struct msgbuf mb;

	if (!nlsock_has_listeners(NETLINK_NETFILTER, group))
		return;
	msgbuf_init(&mb, mem, sizeof(mem));
	if (!msg_start(&mb,
		       EXP_MSG(destroy ? IPCTNL_MSG_EXP_DELETE
				       : IPCTNL_MSG_EXP_NEW),
		       destroy ? 0 : NLM_F_CREATE | NLM_F_EXCL, 0, portid,
		       e->t.family))
		return;
	put_expect(&mb, e, clock_now_ms());
	if (msgbuf_end(&mb))
		return;
	nlsock_multicast(NETLINK_NETFILTER, arg, group, mb.buf, mb.len, portid);
}

static int
snap_exp(const struct ct_expect *e, void *arg)
{
	struct snapshot *s = arg;

	if ((s->family && e->t.family != s->family) ||
	    (s->master_id && e->master_id != s->master_id))
		return 0;
	return snap_add(s, e);
}

static int
put_exp(struct msgbuf *mb, const struct nlsock *sk, uint32_t seq,
	const void *item, uint64_t now)
{
	return put_exp_entry(mb, sk, seq, item, now);
}

static const struct genl_ops_entry exp_dump_op = {
	.cmd = IPCTNL_MSG_EXP_GET,
	.dumpit = snap_dumpit,
	.done = snap_dump_done,
};

/* Of all, or with CTA_EXPECT_MASTER, of that connection
 * (ctnetlink_dump_exp_ct()). */
static int
exp_dump_start(struct nlsock *sk, const struct nlmsghdr *nlh,
	       const struct nlattr **a, int family, struct conntrack *ct,
	       struct extack *ack)
{
	uint16_t zone = a[CTA_EXPECT_ZONE]
				? get_be16(attr_data(a[CTA_EXPECT_ZONE]))
				: 0;
	struct conntrack_entry master;
	struct snapshot *s;
	struct ct_tuple t;
	int err;

	if (a[CTA_EXPECT_MASTER]) {
		err = parse_tuple(a[CTA_EXPECT_MASTER], family, zone, &t, ack);
		if (!err)
			err = conntrack_get(ct, &t, &master);
		if (err)
			return err;
	}
	s = snap_new(sizeof(struct ct_expect), family, put_exp);
	if (!s)
		return -ENOMEM;
	s->master_id = a[CTA_EXPECT_MASTER] ? master.id : 0;
	return snap_dump_start(sk, nlh, &exp_dump_op, s,
			       conntrack_expect_dump(ct, snap_exp, s));
}

/* The expectation a request names by its tuple (type), in its zone, and
 * when it says so, its id. */
static int
exp_find(const struct nlattr **a, uint16_t type, int family,
	 struct conntrack *ct, struct ct_expect *e, struct extack *ack)
{
	uint16_t zone = a[CTA_EXPECT_ZONE]
				? get_be16(attr_data(a[CTA_EXPECT_ZONE]))
				: 0;
	struct ct_tuple t;
	int err;

	err = parse_tuple(a[type], family, zone, &t, ack);
	if (!err)
		err = conntrack_expect_get(ct, &t, e);
	if (!err && a[CTA_EXPECT_ID] &&
	    ntohl(attr_get_u32(a[CTA_EXPECT_ID])) != e->id)
		err = -ENOENT;
	return err;
}

static int
exp_get(struct nlsock *sk, const struct nlmsghdr *nlh,
	const struct nlattr **a, int family, struct conntrack *ct,
	struct extack *ack)
{
	char mem[CT_DUMP_ENTRY_MAX];
	struct ct_expect e;
	struct msgbuf mb;
	int err;

	if (nlh->nlmsg_flags & NLM_F_DUMP)
		return exp_dump_start(sk, nlh, a, family, ct, ack);
	if (!a[CTA_EXPECT_TUPLE] && !a[CTA_EXPECT_MASTER])
		return -EINVAL;
	err = exp_find(a, a[CTA_EXPECT_TUPLE] ? CTA_EXPECT_TUPLE
					      : CTA_EXPECT_MASTER,
		       family, ct, &e, ack);
	if (err)
		return err;
	msgbuf_init(&mb, mem, sizeof(mem));
	if (put_exp_entry(&mb, sk, nlh->nlmsg_seq, &e, clock_now_ms()))
		return -ENOMEM;
	nlsock_unicast(sk, mb.buf, mb.len);
	return 0;
}

/* What an EXP_DELETE removes: one by id, those of a helper, or all. */
struct exp_match {
	uint32_t id;
	const char *helper;
};

static bool
exp_matches(const struct ct_expect *e, void *arg)
{
	const struct exp_match *m = arg;
	const char *name = ct_helper_name(e->helper);

	if (m->id)
		return e->id == m->id;
	if (m->helper)
		return name && !strcmp(name, m->helper);
	return true;
}

static int
exp_delete(struct nlsock *sk, const struct nlattr **a, int family,
	   struct conntrack *ct, struct extack *ack)
{
	struct exp_match m = { 0 };
	struct ct_expect e;
	int err;

	if (a[CTA_EXPECT_TUPLE]) {
		err = exp_find(a, CTA_EXPECT_TUPLE, family, ct, &e, ack);
		if (err)
			return err;
		m.id = e.id;
	} else if (a[CTA_EXPECT_HELP_NAME]) {
		m.helper = attr_data(a[CTA_EXPECT_HELP_NAME]);
	}
	conntrack_expect_remove(ct, exp_matches, &m, nlsock_portid(sk));
	return 0;
}

/* ctnetlink_new_expect(): creates an expectation (NLM_F_CREATE) of a
 * connection whose helper could have made it, or gives the one there is
 * a new timeout (unless NLM_F_EXCL). The tracker keeps only exact
 * source addresses and any source port: other masks, classes, flags,
 * functions and NAT are refused. */
static int
exp_new(struct nlsock *sk, const struct nlmsghdr *nlh,
	const struct nlattr **a, int family, struct conntrack *ct,
	struct extack *ack)
{
	uint16_t zone = a[CTA_EXPECT_ZONE]
				? get_be16(attr_data(a[CTA_EXPECT_ZONE]))
				: 0;
	struct ct_tuple t, mask, master;
	struct ct_expect e;
	int err;

	if (!a[CTA_EXPECT_TUPLE] || !a[CTA_EXPECT_MASK] ||
	    !a[CTA_EXPECT_MASTER])
		return -EINVAL;
	err = exp_find(a, CTA_EXPECT_TUPLE, family, ct, &e, ack);
	if (!err) {
		if (nlh->nlmsg_flags & NLM_F_EXCL)
			return -EEXIST;
		return a[CTA_EXPECT_TIMEOUT]
			       ? conntrack_expect_set_timeout(
					 ct, &e.t,
					 ntohl(attr_get_u32(
						 a[CTA_EXPECT_TIMEOUT])))
			       : 0;
	}
	if (err != -ENOENT)
		return err;
	if (!(nlh->nlmsg_flags & NLM_F_CREATE))
		return -ENOENT;
	err = parse_tuple(a[CTA_EXPECT_TUPLE], family, zone, &t, ack);
	if (!err)
		err = parse_tuple(a[CTA_EXPECT_MASK], family, zone, &mask,
				  ack);
	if (!err)
		err = parse_tuple(a[CTA_EXPECT_MASTER], family, zone, &master,
				  ack);
	if (err)
		return err;
	if (mask.sport || (family == AF_INET && mask.src.ip != 0xffffffff) ||
	    (family == AF_INET6 &&
	     memcmp(&mask.src.ip6, "\xff\xff\xff\xff\xff\xff\xff\xff"
				   "\xff\xff\xff\xff\xff\xff\xff\xff", 16)) ||
	    (a[CTA_EXPECT_CLASS] && attr_get_u32(a[CTA_EXPECT_CLASS])) ||
	    (a[CTA_EXPECT_FLAGS] && attr_get_u32(a[CTA_EXPECT_FLAGS])) ||
	    a[CTA_EXPECT_FN] || a[CTA_EXPECT_NAT])
		return -EOPNOTSUPP;
	return conntrack_expect_new(ct, &t, &master, nlsock_portid(sk));
}

static int
exp_msg(struct nlsock *sk, const struct nlmsghdr *nlh, struct conntrack *ct,
	struct extack *ack)
{
	const struct nfgenmsg *nf = NLMSG_DATA(nlh);
	const struct nlattr *a[CTA_EXPECT_MAX + 1];
	int err;

	err = attr_parse_msg(nlh, sizeof(struct nfgenmsg), exp_policy,
			     CTA_EXPECT_MAX, a, ack);
	if (err)
		return err;
	switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
	case IPCTNL_MSG_EXP_GET:
		return exp_get(sk, nlh, a, nf->nfgen_family, ct, ack);
	case IPCTNL_MSG_EXP_DELETE:
		return exp_delete(sk, a, nf->nfgen_family, ct, ack);
	case IPCTNL_MSG_EXP_NEW:
		return exp_new(sk, nlh, a, nf->nfgen_family, ct, ack);
	case IPCTNL_MSG_EXP_GET_STATS_CPU:
		return stats_cpu(sk, nlh, ct);
	default:
		return -EINVAL;
	}
}

static int
ctnetlink_msg(struct nlsock *sk, const struct nlmsghdr *nlh,
	      struct extack *ack)
{
	const struct nlattr *a[CTA_MAX + 1];
	const struct nfgenmsg *nf;
	struct conntrack *ct;
	int err;

	/* Netfilter is CAP_NET_ADMIN's, reads included. */
	if (!nlsock_net_admin(sk))
		return -EPERM;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*nf)))
		return -EINVAL;
	ct = dp_net_conntrack(nlsock_net(sk));
	if (!ct)
		return -ENOMEM;
	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) == NFNL_SUBSYS_CTNETLINK_TIMEOUT)
		return cttimeout_msg(sk, nlh, conntrack_timeouts(ct), ack);
	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) == NFNL_SUBSYS_CTNETLINK_EXP)
		return exp_msg(sk, nlh, ct, ack);
	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_CTNETLINK)
		return -EINVAL;
	nf = NLMSG_DATA(nlh);
	err = attr_parse_msg(nlh, sizeof(struct nfgenmsg), ct_policy, CTA_MAX,
			     a, ack);
	if (err)
		return err;
	switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
	case IPCTNL_MSG_CT_GET:
	case IPCTNL_MSG_CT_GET_CTRZERO:
		if (nlh->nlmsg_flags & NLM_F_DUMP)
			return ct_dump_start(sk, nlh, a, nf->nfgen_family, ct);
		return ct_get(sk, nlh, a, nf->nfgen_family, ct, ack);
	case IPCTNL_MSG_CT_DELETE:
		return ct_delete(sk, a, nf->nfgen_family, nf->version, ct,
				 ack);
	case IPCTNL_MSG_CT_NEW:
		return ct_new(sk, nlh, a, nf->nfgen_family, ct, ack);
	case IPCTNL_MSG_CT_GET_STATS_CPU:
		return stats_cpu(sk, nlh, ct);
	case IPCTNL_MSG_CT_GET_STATS:
		return stats_global(sk, nlh, ct);
	case IPCTNL_MSG_CT_GET_DYING:
	case IPCTNL_MSG_CT_GET_UNCONFIRMED:
		return ct_dump_empty(sk, nlh, nf->nfgen_family);
	default:
		/* No such message in the subsystem (nfnetlink_rcv_msg). */
		return -EINVAL;
	}
}

void
ctnetlink_rcv(struct nlsock *sk, const void *buf, size_t len)
{
	netlink_rcv(sk, buf, len, ctnetlink_msg);
}

void
ctnetlink_attach(struct conntrack *ct, void *net)
{
	const struct conntrack_events ev = {
		.listening = event_listening,
		.deliver = event_deliver,
		.expect_deliver = exp_event_deliver,
		.keeping = journal_keeping,
		.keep = journal_conn,
		.arg = net,
	};

	conntrack_set_events(ct, &ev);
}
