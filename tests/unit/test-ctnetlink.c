/* SPDX-License-Identifier: Apache-2.0 */
/* ctnetlink, as `ovs-dpctl dump-conntrack` and `flush-conntrack` speak it,
 * answered from a datapath context's tracker: connections are committed by
 * running the ct action on packets (OVS_PACKET_CMD_EXECUTE), then dumped
 * (tuples, zone, mark, status; in parts when they are many), got, deleted
 * and flushed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_conntrack_tcp.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_cttimeout.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <urcu.h>

#include "common/clock.h"
#include "common/unaligned.h"
#include "families/families.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"

#define SRC_IP		0x0a000001	/* 10.0.0.1 */
#define DST_IP		0x0a000002
#define DST_PORT	53
#define CT_TYPE(msg)	(NFNL_SUBSYS_CTNETLINK << 8 | (msg))
#define MAX_CONNS	64

struct fixture {
	struct dp_net *net;
	struct datapath *dp;
	struct fx *genl;		/* executes packets */
	struct fx *nf;			/* speaks ctnetlink */
};

/* A connection as a dump shows it. */
struct conn {
	uint32_t src, dst;		/* host order */
	uint16_t sport, dport;
	uint8_t proto;
	int zone;			/* -1: no CTA_ZONE */
	uint32_t mark, status, timeout;
	uint32_t reply_src;
	uint16_t reply_sport;
};

static int
setup(void **state)
{
	const struct dp_net_config cfg = {
		.upcall = packet_family_upcalls,
		.port_ops = fake_port_ops,
	};
	struct fixture *fx = test_calloc(1, sizeof(*fx));
	uint32_t pid = 0;

	fx->net = dp_net_new(&cfg);
	assert_non_null(fx->net);
	assert_int_equal(dp_create(fx->net, "tdp0", &pid, 1, &fx->dp), 0);
	fx->genl = fx_new(fx->net, NETLINK_GENERIC, true);
	fx->nf = fx_new(fx->net, NETLINK_NETFILTER, true);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;

	fx_free(fx->genl);
	fx_free(fx->nf);
	dp_net_destroy(fx->net);
	rcu_barrier();
	test_free(fx);
	return 0;
}

/* Runs ct(commit, zone, mark, timeout=tp, eventmask, alg=helper) on a UDP
 * packet from sport (tp, helper NULL: none; eventmask < 0: none). */
static void
commit_helper(struct fixture *fx, uint16_t sport, uint16_t zone,
	      uint32_t mark, const char *tp, int64_t eventmask,
	      const char *helper)
{
	uint32_t mark_mask[2] = { mark, 0xffffffff };
	struct nlattr *key, *acts, *ct;
	struct ovs_key_ethernet eth;
	struct fx *f = fx->genl;
	struct ovs_header *hdr;
	uint8_t frame[64];
	struct fb b;

	fb_init(&b, frame, sizeof(frame));
	fb_eth(&b, ETH_P_IP);
	fb_ipv4(&b, SRC_IP, DST_IP, IPPROTO_UDP);
	fb_udp(&b, sport, DST_PORT);
	memset(&eth, 0, sizeof(eth));

	hdr = req_start(f, FAMILY_ID_PACKET, NLM_F_ACK, OVS_PACKET_CMD_EXECUTE,
			sizeof(*hdr));
	hdr->dp_ifindex = dp_ifindex(fx->dp);
	msgbuf_put(&f->req, OVS_PACKET_ATTR_PACKET, fb_end(&b), frame);
	key = msgbuf_nest_start(&f->req, OVS_PACKET_ATTR_KEY);
	msgbuf_put_u32(&f->req, OVS_KEY_ATTR_IN_PORT, OVSP_LOCAL);
	msgbuf_put(&f->req, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth);
	msgbuf_put_u16(&f->req, OVS_KEY_ATTR_ETHERTYPE, htons(ETH_P_IP));
	msgbuf_nest_end(&f->req, key);
	acts = msgbuf_nest_start(&f->req, OVS_PACKET_ATTR_ACTIONS);
	ct = msgbuf_nest_start(&f->req, OVS_ACTION_ATTR_CT);
	msgbuf_put(&f->req, OVS_CT_ATTR_COMMIT, 0, NULL);
	msgbuf_put_u16(&f->req, OVS_CT_ATTR_ZONE, zone);
	if (mark)
		msgbuf_put(&f->req, OVS_CT_ATTR_MARK, sizeof(mark_mask),
			   mark_mask);
	if (tp)
		msgbuf_put_string(&f->req, OVS_CT_ATTR_TIMEOUT, tp);
	if (eventmask >= 0)
		msgbuf_put_u32(&f->req, OVS_CT_ATTR_EVENTMASK, eventmask);
	if (helper)
		msgbuf_put_string(&f->req, OVS_CT_ATTR_HELPER, helper);
	msgbuf_nest_end(&f->req, ct);
	msgbuf_nest_end(&f->req, acts);
	assert_int_equal(ask(f), 0);
}

static void
commit_with(struct fixture *fx, uint16_t sport, uint16_t zone, uint32_t mark,
	    const char *tp, int64_t eventmask)
{
	commit_helper(fx, sport, zone, mark, tp, eventmask, NULL);
}

static void
commit(struct fixture *fx, uint16_t sport, uint16_t zone, uint32_t mark)
{
	commit_with(fx, sport, zone, mark, NULL, -1);
}

/* The UDP tuple from sport (a CTA_TUPLE_ORIG). */
static void
put_tuple(struct msgbuf *mb, uint16_t sport)
{
	put_tuple_of(mb, CTA_TUPLE_ORIG, IPPROTO_UDP, SRC_IP, sport, DST_IP,
		     DST_PORT);
}

static const struct nlattr *
nested(const struct nlattr *a, uint16_t type)
{
	const struct nlattr *in;

	assert_non_null(a);
	assert_true(a->nla_type & NLA_F_NESTED);
	in = attrs_find(attr_data(a), attr_len(a), type);
	assert_non_null(in);
	return in;
}

static void
parse_tuple(const struct nlattr *t, uint32_t *src, uint32_t *dst,
	    uint16_t *sport, uint16_t *dport, uint8_t *proto)
{
	const struct nlattr *ip = nested(t, CTA_TUPLE_IP);
	const struct nlattr *pr = nested(t, CTA_TUPLE_PROTO);

	*src = get_be32(attr_data(nested(ip, CTA_IP_V4_SRC)));
	*dst = get_be32(attr_data(nested(ip, CTA_IP_V4_DST)));
	*proto = attr_get_u8(nested(pr, CTA_PROTO_NUM));
	*sport = get_be16(attr_data(nested(pr, CTA_PROTO_SRC_PORT)));
	*dport = get_be16(attr_data(nested(pr, CTA_PROTO_DST_PORT)));
}

/* A connection's message of type msg (IPCTNL_MSG_CT_*). */
static void
parse_msg(const struct nlmsghdr *m, uint8_t msg, struct conn *c)
{
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	const struct nfgenmsg *nf = NLMSG_DATA(m);
	const char *p = (const char *)m + off;
	int rem = m->nlmsg_len - off;
	const struct nlattr *a;
	uint32_t dst;
	uint16_t dport;
	uint8_t proto;

	assert_int_equal(m->nlmsg_type, CT_TYPE(msg));
	assert_int_equal(nf->nfgen_family, AF_INET);
	parse_tuple(attrs_find(p, rem, CTA_TUPLE_ORIG), &c->src, &c->dst,
		    &c->sport, &c->dport, &c->proto);
	parse_tuple(attrs_find(p, rem, CTA_TUPLE_REPLY), &c->reply_src, &dst,
		    &c->reply_sport, &dport, &proto);
	assert_int_equal(dst, c->src);
	assert_int_equal(dport, c->sport);
	assert_int_equal(proto, c->proto);
	a = attrs_find(p, rem, CTA_ZONE);
	c->zone = a ? get_be16(attr_data(a)) : -1;
	a = attrs_find(p, rem, CTA_MARK);
	assert_non_null(a);
	c->mark = get_be32(attr_data(a));
	a = attrs_find(p, rem, CTA_STATUS);
	assert_non_null(a);
	c->status = get_be32(attr_data(a));
	assert_non_null(attrs_find(p, rem, CTA_ID));
	a = attrs_find(p, rem, CTA_TIMEOUT);
	assert_non_null(a);
	c->timeout = get_be32(attr_data(a));
}

static void
parse_conn(const struct nlmsghdr *m, struct conn *c)
{
	parse_msg(m, IPCTNL_MSG_CT_NEW, c);
}

/* conns[0].sport: how many; then each connection. */
static void
collect(const struct nlmsghdr *m, void *arg)
{
	struct conn *conns = arg;

	assert_true(conns[0].sport < MAX_CONNS - 1);
	parse_conn(m, &conns[++conns[0].sport]);
}

/* The connection from sport, which must come at most once. */
static const struct conn *
find(const struct conn *conns, uint16_t sport)
{
	const struct conn *found = NULL;

	for (int i = 1; i <= conns[0].sport; i++) {
		if (conns[i].sport == sport) {
			assert_null(found);
			found = &conns[i];
		}
	}
	return found;
}

/* Dumps the connections of family (AF_UNSPEC: all) in zone (-1: all)
 * into conns (conns[0].sport: how many); returns how many parts carried
 * them. */
static int
dump(struct fixture *fx, uint8_t family, int zone, struct conn *conns)
{
	memset(conns, 0, MAX_CONNS * sizeof(*conns));
	ct_req(fx->nf, IPCTNL_MSG_CT_GET, NLM_F_DUMP, family, NFNETLINK_V0);
	if (zone >= 0)
		msgbuf_put_u16(&fx->nf->req, CTA_ZONE, htons(zone));
	req_end(fx->nf);
	return dump_all(fx->nf, collect, conns);
}

static void
test_dump(void **state)
{
	struct fixture *fx = *state;
	struct conn conns[MAX_CONNS];
	const struct conn *c;

	commit(fx, 1000, 0, 7);
	commit(fx, 1001, 5, 0);
	commit(fx, 1002, 5, 9);
	assert_int_equal(dump(fx, AF_INET, -1, conns), 1);
	assert_int_equal(conns[0].sport, 3);
	c = find(conns, 1000);
	assert_non_null(c);
	assert_int_equal(c->src, SRC_IP);
	assert_int_equal(c->dst, DST_IP);
	assert_int_equal(c->dport, DST_PORT);
	assert_int_equal(c->proto, IPPROTO_UDP);
	assert_int_equal(c->reply_src, DST_IP);
	assert_int_equal(c->reply_sport, DST_PORT);
	assert_int_equal(c->zone, -1);		/* zone 0: no attribute */
	assert_int_equal(c->mark, 7);
	assert_true(c->status & IPS_CONFIRMED);
	assert_false(c->status & IPS_SEEN_REPLY);
	c = find(conns, 1001);
	assert_non_null(c);
	assert_int_equal(c->zone, 5);
	assert_int_equal(c->mark, 0);
	c = find(conns, 1002);
	assert_non_null(c);
	assert_int_equal(c->zone, 5);
	assert_int_equal(c->mark, 9);
	/* One zone's; another family's: none. */
	dump(fx, AF_INET, 5, conns);
	assert_int_equal(conns[0].sport, 2);
	assert_null(find(conns, 1000));
	assert_int_equal(dump(fx, AF_INET6, -1, conns), 0);
	assert_int_equal(conns[0].sport, 0);
}

/* More connections than a part holds: each comes once, across parts. */
static void
test_dump_parts(void **state)
{
	struct fixture *fx = *state;
	struct conn conns[MAX_CONNS];
	int n = 40;

	for (int i = 0; i < n; i++)
		commit(fx, 2000 + i, 0, 0);
	assert_true(dump(fx, AF_UNSPEC, -1, conns) >= 2);
	assert_int_equal(conns[0].sport, n);
	for (int i = 0; i < n; i++)
		assert_non_null(find(conns, 2000 + i));
}

static void
test_get_and_delete(void **state)
{
	struct fixture *fx = *state;
	struct fx *f = fx->nf;
	struct conn c;

	commit(fx, 1000, 5, 3);
	ct_req(f, IPCTNL_MSG_CT_GET, 0, AF_INET, NFNETLINK_V0);
	put_tuple(&f->req, 1000);
	msgbuf_put_u16(&f->req, CTA_ZONE, htons(5));
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	parse_conn((const void *)f->rep, &c);
	assert_int_equal(c.sport, 1000);
	assert_int_equal(c.zone, 5);
	assert_int_equal(c.mark, 3);
	/* The tuple is looked up in its zone. */
	ct_req(f, IPCTNL_MSG_CT_GET, 0, AF_INET, NFNETLINK_V0);
	put_tuple(&f->req, 1000);
	assert_int_equal(ask(f), -ENOENT);
	/* No tuple. */
	ct_req(f, IPCTNL_MSG_CT_GET, 0, AF_INET, NFNETLINK_V0);
	assert_int_equal(ask(f), -EINVAL);
	ct_req(f, IPCTNL_MSG_CT_DELETE, NLM_F_ACK, AF_INET, NFNETLINK_V0);
	put_tuple(&f->req, 1000);
	msgbuf_put_u16(&f->req, CTA_ZONE, htons(5));
	assert_int_equal(ask(f), 0);
	ct_req(f, IPCTNL_MSG_CT_DELETE, 0, AF_INET, NFNETLINK_V0);
	put_tuple(&f->req, 1000);
	msgbuf_put_u16(&f->req, CTA_ZONE, htons(5));
	assert_int_equal(ask(f), -ENOENT);
}

/* IPCTNL_MSG_CT_DELETE without a tuple: a flush of zone (-1: all), of
 * family only when version says so (1). */
static void
flush(struct fixture *fx, uint8_t family, uint8_t version, int zone)
{
	ct_req(fx->nf, IPCTNL_MSG_CT_DELETE, NLM_F_ACK, family, version);
	if (zone >= 0)
		msgbuf_put_u16(&fx->nf->req, CTA_ZONE, htons(zone));
	assert_int_equal(ask(fx->nf), 0);
}

static void
test_flush(void **state)
{
	struct fixture *fx = *state;
	struct conn conns[MAX_CONNS];

	commit(fx, 1000, 0, 0);
	commit(fx, 1001, 5, 0);
	commit(fx, 1002, 6, 0);
	flush(fx, AF_INET, NFNETLINK_V0, 5);
	dump(fx, AF_INET, -1, conns);
	assert_int_equal(conns[0].sport, 2);
	assert_null(find(conns, 1001));
	flush(fx, AF_INET6, 1, -1);
	dump(fx, AF_INET, -1, conns);
	assert_int_equal(conns[0].sport, 2);
	/* Version 0 flushes every family. */
	flush(fx, AF_INET6, NFNETLINK_V0, -1);
	assert_int_equal(dump(fx, AF_INET, -1, conns), 0);
	assert_int_equal(conns[0].sport, 0);
}

static void
test_refused(void **state)
{
	struct conn conns[MAX_CONNS] = { 0 };
	struct fixture *fx = *state;
	struct fx *user = fx_new(fx->net, NETLINK_NETFILTER, false);
	struct fx *f = fx->nf;

	/* Netfilter is CAP_NET_ADMIN's, reads included. */
	ct_req(user, IPCTNL_MSG_CT_GET, NLM_F_DUMP, AF_INET, NFNETLINK_V0);
	assert_int_equal(ask(user), -EPERM);
	fx_free(user);
	/* Other subsystems are not this one's. */
	req_msg(f, NFNL_SUBSYS_QUEUE << 8 | IPCTNL_MSG_CT_GET, 0,
		sizeof(struct nfgenmsg));
	assert_int_equal(ask(f), -EINVAL);
	/* Messages the subsystems have not; the dying and unconfirmed
	 * lists are dumps only, and empty. */
	ct_req(f, IPCTNL_MSG_MAX, 0, AF_INET, NFNETLINK_V0);
	assert_int_equal(ask(f), -EINVAL);
	req_msg(f, NFNL_SUBSYS_CTNETLINK_EXP << 8 | IPCTNL_MSG_EXP_MAX, 0,
		sizeof(struct nfgenmsg));
	assert_int_equal(ask(f), -EINVAL);
	ct_req(f, IPCTNL_MSG_CT_GET_DYING, 0, AF_INET, NFNETLINK_V0);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	commit(fx, 1000, 0, 0);
	ct_req(f, IPCTNL_MSG_CT_GET_UNCONFIRMED, NLM_F_DUMP, AF_INET,
	       NFNETLINK_V0);
	req_end(f);
	assert_int_equal(dump_all(f, collect, conns), 0);
	assert_int_equal(conns[0].sport, 0);
}

/* A policy as the kernel lists it: its name, UDP values and use. */
struct tp {
	char name[CTNL_TIMEOUT_NAME_MAX];
	uint32_t unreplied, replied, use;
};

static void
parse_tp(const struct nlmsghdr *m, struct tp *tp)
{
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	const char *p = (const char *)m + off;
	int rem = m->nlmsg_len - off;
	const struct nlattr *a, *data;

	assert_int_equal(m->nlmsg_type, NFNL_SUBSYS_CTNETLINK_TIMEOUT << 8 |
						IPCTNL_MSG_TIMEOUT_NEW);
	assert_true(m->nlmsg_flags & NLM_F_MULTI);
	a = attrs_find(p, rem, CTA_TIMEOUT_NAME);
	assert_non_null(a);
	snprintf(tp->name, sizeof(tp->name), "%s",
		 (const char *)attr_data(a));
	a = attrs_find(p, rem, CTA_TIMEOUT_L3PROTO);
	assert_non_null(a);
	assert_int_equal(get_be16(attr_data(a)), AF_INET);
	a = attrs_find(p, rem, CTA_TIMEOUT_L4PROTO);
	assert_non_null(a);
	assert_int_equal(attr_get_u8(a), IPPROTO_UDP);
	a = attrs_find(p, rem, CTA_TIMEOUT_USE);
	assert_non_null(a);
	tp->use = get_be32(attr_data(a));
	data = attrs_find(p, rem, CTA_TIMEOUT_DATA);
	tp->unreplied = get_be32(attr_data(nested(data,
					CTA_TIMEOUT_UDP_UNREPLIED)));
	tp->replied = get_be32(attr_data(nested(data,
					CTA_TIMEOUT_UDP_REPLIED)));
}

static void
tp_get(struct fx *f, const char *name, struct tp *tp)
{
	tp_req(f, IPCTNL_MSG_TIMEOUT_GET, 0, name, 0, 0);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	parse_tp((const void *)f->rep, tp);
}

/* tps[0].use: how many; then each policy. */
static void
collect_tp(const struct nlmsghdr *m, void *arg)
{
	struct tp *tps = arg;

	assert_true(tps[0].use < 3);
	parse_tp(m, &tps[++tps[0].use]);
}

/* tps[0]: how many, and the sum of their UNREPLIED values. */
static void
count_tp(const struct nlmsghdr *m, void *arg)
{
	struct tp *tps = arg, tp;

	parse_tp(m, &tp);
	tps[0].use++;
	tps[0].unreplied += tp.unreplied;
}

/* Dumps the policies into tps (tps[0].use: how many); returns how many
 * parts carried them. */
static int
tp_dump(struct fx *f, struct tp *tps)
{
	memset(tps, 0, 4 * sizeof(*tps));
	tp_req(f, IPCTNL_MSG_TIMEOUT_GET, NLM_F_DUMP, NULL, 0, 0);
	req_end(f);
	return dump_all(f, collect_tp, tps);
}

/* Timeout policies over cttimeout as OVS sets them, with the kernel's
 * errnos; a connection committed by a ct action naming one lives by
 * it. */
static void
test_timeout_policies(void **state)
{
	const uint16_t create = NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK;
	struct fixture *fx = *state;
	struct fx *f = fx->nf, *user;
	struct conn conns[MAX_CONNS];
	struct tp tp, tps[4];
	struct nlattr *data;

	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, "ovs_tp_1_udp4", IPPROTO_UDP,
	       4);
	assert_int_equal(ask(f), 0);
	tp_get(f, "ovs_tp_1_udp4", &tp);
	assert_string_equal(tp.name, "ovs_tp_1_udp4");
	assert_int_equal(tp.unreplied, 4);
	assert_int_equal(tp.replied, 120);	/* not given: the default */
	assert_int_equal(tp.use, 1);
	/* Replaced in place; without REPLACE, EBUSY; EXCL, EEXIST; another
	 * protocol, EINVAL. */
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, "ovs_tp_1_udp4", IPPROTO_UDP,
	       5);
	assert_int_equal(ask(f), 0);
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, NLM_F_CREATE, "ovs_tp_1_udp4",
	       IPPROTO_UDP, 5);
	assert_int_equal(ask(f), -EBUSY);
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create | NLM_F_EXCL, "ovs_tp_1_udp4",
	       IPPROTO_UDP, 5);
	assert_int_equal(ask(f), -EEXIST);
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, "ovs_tp_1_udp4", IPPROTO_TCP,
	       5);
	assert_int_equal(ask(f), -EINVAL);
	/* Incomplete, a name too long, a protocol without policies, a
	 * value too short. */
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, "x", IPPROTO_UDP, 0);
	assert_int_equal(ask(f), -EINVAL);
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create,
	       "0123456789012345678901234567890123", IPPROTO_UDP, 5);
	assert_int_equal(ask(f), -EINVAL);
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, "x", IPPROTO_SCTP, 5);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, "x", IPPROTO_UDP, 0);
	msgbuf_put_u16(&f->req, CTA_TIMEOUT_L3PROTO, htons(AF_INET));
	msgbuf_put_u8(&f->req, CTA_TIMEOUT_L4PROTO, IPPROTO_UDP);
	data = msgbuf_nest_start(&f->req, CTA_TIMEOUT_DATA | NLA_F_NESTED);
	msgbuf_put_u16(&f->req, CTA_TIMEOUT_UDP_REPLIED, 7);
	msgbuf_nest_end(&f->req, data);
	assert_true(ask(f) < 0);
	tp_req(f, IPCTNL_MSG_TIMEOUT_GET, 0, "x", 0, 0);
	assert_int_equal(ask(f), -ENOENT);
	tp_req(f, IPCTNL_MSG_TIMEOUT_GET, 0, NULL, 0, 0);
	assert_int_equal(ask(f), -EINVAL);
	user = fx_new(fx->net, NETLINK_NETFILTER, false);
	tp_req(user, IPCTNL_MSG_TIMEOUT_GET, NLM_F_DUMP, NULL, 0, 0);
	assert_int_equal(ask(user), -EPERM);
	fx_free(user);

	/* A connection committed with the policy: its timeout, the
	 * policy's use. */
	commit_with(fx, 1000, 5, 0, "ovs_tp_1_udp4", -1);
	commit_with(fx, 1001, 5, 0, "ovs_tp_2_udp4", -1);
	dump(fx, AF_INET, -1, conns);
	assert_int_equal(conns[0].sport, 2);
	assert_true(find(conns, 1000)->timeout <= 5);
	assert_true(find(conns, 1001)->timeout > 5);
	tp_get(f, "ovs_tp_1_udp4", &tp);
	assert_int_equal(tp.use, 2);

	tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, "ovs_tp_2_udp4", IPPROTO_UDP,
	       9);
	assert_int_equal(ask(f), 0);
	assert_int_equal(tp_dump(f, tps), 1);
	assert_int_equal(tps[0].use, 2);
	assert_string_equal(tps[1].name, "ovs_tp_1_udp4");
	assert_string_equal(tps[2].name, "ovs_tp_2_udp4");
	assert_int_equal(tps[2].unreplied, 9);

	/* Many: each comes once, across parts. */
	for (int i = 3; i < 60; i++) {
		char name[32];

		snprintf(name, sizeof(name), "ovs_tp_%d_udp4", i);
		tp_req(f, IPCTNL_MSG_TIMEOUT_NEW, create, name, IPPROTO_UDP,
		       i);
		assert_int_equal(ask(f), 0);
	}
	tp_req(f, IPCTNL_MSG_TIMEOUT_GET, NLM_F_DUMP, NULL, 0, 0);
	req_end(f);
	memset(tps, 0, sizeof(tps));
	assert_true(dump_all(f, count_tp, tps) >= 2);
	assert_int_equal(tps[0].use, 59);
	assert_int_equal(tps[0].unreplied, 5 + 9 + 59 * 60 / 2 - 3);

	/* Deleted by name (in use or not), then all. */
	tp_req(f, IPCTNL_MSG_TIMEOUT_DELETE, NLM_F_ACK, "x", 0, 0);
	assert_int_equal(ask(f), -ENOENT);
	tp_req(f, IPCTNL_MSG_TIMEOUT_DELETE, NLM_F_ACK, "ovs_tp_1_udp4", 0, 0);
	assert_int_equal(ask(f), 0);
	tp_req(f, IPCTNL_MSG_TIMEOUT_GET, 0, "ovs_tp_1_udp4", 0, 0);
	assert_int_equal(ask(f), -ENOENT);
	tp_req(f, IPCTNL_MSG_TIMEOUT_DELETE, NLM_F_ACK, NULL, 0, 0);
	assert_int_equal(ask(f), 0);
	assert_int_equal(tp_dump(f, tps), 0);
	assert_int_equal(tps[0].use, 0);
}

/* A listener in the conntrack groups given. */
static struct fx *
listener(struct fixture *fx, bool new, bool update, bool destroy)
{
	struct fx *l = fx_new(fx->net, NETLINK_NETFILTER, true);

	if (new)
		assert_int_equal(nlsock_setsockopt(l->sk, SOL_NETLINK,
						   NETLINK_ADD_MEMBERSHIP,
						   NFNLGRP_CONNTRACK_NEW), 0);
	if (update)
		assert_int_equal(nlsock_setsockopt(l->sk, SOL_NETLINK,
						   NETLINK_ADD_MEMBERSHIP,
						   NFNLGRP_CONNTRACK_UPDATE), 0);
	if (destroy)
		assert_int_equal(nlsock_setsockopt(l->sk, SOL_NETLINK,
						   NETLINK_ADD_MEMBERSHIP,
						   NFNLGRP_CONNTRACK_DESTROY), 0);
	return l;
}

/* The next event l got: of type msg with flags, caused by a request from
 * portid (0: a packet), sequence 0. */
static void
event_by(struct fx *l, uint8_t msg, uint16_t flags, uint32_t portid,
	 struct conn *c)
{
	const struct nlmsghdr *m = (const void *)l->rep;
	ssize_t n = recv_rep(l);

	assert_true(n > 0);
	assert_int_equal(m->nlmsg_len, n);
	assert_int_equal(m->nlmsg_flags, flags);
	assert_int_equal(m->nlmsg_pid, portid);
	assert_int_equal(m->nlmsg_seq, 0);
	parse_msg(m, msg, c);
}

static void
event(struct fx *l, uint8_t msg, uint16_t flags, struct conn *c)
{
	event_by(l, msg, flags, 0, c);
}

/* Events: NEW when committed, UPDATE for a new mark, DESTROY when deleted,
 * each to its group; an eventmask lets through only what it names. */
static void
test_events(void **state)
{
	struct fixture *fx = *state;
	struct fx *all = listener(fx, true, true, true);
	struct fx *update = listener(fx, false, true, false);
	struct fx *f = fx->nf;
	struct conn c;

	/* The clock stands still: the timeout an event gives is the whole
	 * 30 s, however long the machine takes between commit and read. */
	clock_fake_set(clock_now_ms());
	commit(fx, 1000, 5, 7);
	event(all, IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_EXCL, &c);
	assert_int_equal(c.sport, 1000);
	assert_int_equal(c.zone, 5);
	assert_int_equal(c.mark, 7);
	assert_true(c.status & IPS_CONFIRMED);
	assert_int_equal(c.timeout, 30);
	assert_true(recv_rep(all) < 0);
	assert_true(recv_rep(update) < 0);
	/* The same packet again: nothing new. A new mark: an update. */
	commit(fx, 1000, 5, 7);
	assert_true(recv_rep(all) < 0);
	commit(fx, 1000, 5, 8);
	event(all, IPCTNL_MSG_CT_NEW, 0, &c);
	assert_int_equal(c.mark, 8);
	event(update, IPCTNL_MSG_CT_NEW, 0, &c);
	assert_int_equal(c.sport, 1000);
	ct_req(f, IPCTNL_MSG_CT_DELETE, NLM_F_ACK, AF_INET, NFNETLINK_V0);
	put_tuple(&f->req, 1000);
	msgbuf_put_u16(&f->req, CTA_ZONE, htons(5));
	assert_int_equal(ask(f), 0);
	/* On behalf of the deleting socket (ctnetlink_del_conntrack). */
	event_by(all, IPCTNL_MSG_CT_DELETE, 0, nlsock_portid(f->sk), &c);
	assert_int_equal(c.sport, 1000);
	assert_int_equal(c.timeout, 0);
	assert_true(recv_rep(update) < 0);

	/* Only NEW and DESTROY through: no update for the mark. */
	commit_with(fx, 1001, 0, 3, NULL,
		    1 << IPCT_NEW | 1 << IPCT_DESTROY);
	event(all, IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_EXCL, &c);
	assert_int_equal(c.zone, -1);
	commit_with(fx, 1001, 0, 4, NULL,
		    1 << IPCT_NEW | 1 << IPCT_DESTROY);
	assert_true(recv_rep(all) < 0);
	/* A mask without NEW: the commit is silent; a mask is kept until a
	 * commit gives another. */
	commit_with(fx, 1002, 0, 3, NULL, 1 << IPCT_MARK);
	assert_true(recv_rep(all) < 0);
	commit(fx, 1002, 0, 5);
	event(all, IPCTNL_MSG_CT_NEW, 0, &c);
	assert_int_equal(c.sport, 1002);
	assert_int_equal(c.mark, 5);
	flush(fx, AF_INET, NFNETLINK_V0, -1);
	event_by(all, IPCTNL_MSG_CT_DELETE, 0, nlsock_portid(fx->nf->sk), &c);
	assert_int_equal(c.sport, 1001);
	assert_true(recv_rep(all) < 0);
	fx_free(all);
	fx_free(update);
	clock_fake_set(0);
}

/* IPCTNL_MSG_CT_NEW with flags for the UDP connection from sport in
 * zone; with its reply tuple (reply), a timeout (> 0) and a status
 * (> 0) when given. */
static void
new_req(struct fx *f, uint16_t flags, uint16_t sport, uint16_t zone,
	bool reply, uint32_t timeout, int64_t status)
{
	ct_req(f, IPCTNL_MSG_CT_NEW, flags, AF_INET, NFNETLINK_V0);
	put_tuple(&f->req, sport);
	if (reply)
		put_tuple_of(&f->req, CTA_TUPLE_REPLY, IPPROTO_UDP, DST_IP,
			     DST_PORT, SRC_IP, sport);
	if (zone)
		msgbuf_put_u16(&f->req, CTA_ZONE, htons(zone));
	if (timeout)
		msgbuf_put_u32(&f->req, CTA_TIMEOUT, htonl(timeout));
	if (status >= 0)
		msgbuf_put_u32(&f->req, CTA_STATUS, htonl(status));
}

static void
put_help(struct msgbuf *mb, const char *name)
{
	struct nlattr *help = msgbuf_nest_start(mb, CTA_HELP | NLA_F_NESTED);

	msgbuf_put_string(mb, CTA_HELP_NAME, name);
	msgbuf_nest_end(mb, help);
}

/* CT_NEW creates a connection (NLM_F_CREATE) or changes the one there
 * is, with the kernel's errnos and events; the ct action then finds what
 * was created. */
static void
test_create_and_change(void **state)
{
	const uint16_t create = NLM_F_CREATE | NLM_F_ACK;
	const uint32_t est = IPS_CONFIRMED | IPS_SEEN_REPLY | IPS_ASSURED;
	struct fixture *fx = *state;
	struct fx *all = listener(fx, true, true, true);
	struct fx *f = fx->nf;
	struct conn conns[MAX_CONNS];
	struct conn c;

	/* Missing: ENOENT without CREATE; CREATE needs both tuples and a
	 * timeout; the status must say CONFIRMED and nothing unchangeable;
	 * a helper there is. */
	new_req(f, NLM_F_ACK, 1000, 5, true, 100, est);
	assert_int_equal(ask(f), -ENOENT);
	new_req(f, create, 1000, 5, false, 100, est);
	assert_int_equal(ask(f), -EINVAL);
	new_req(f, create, 1000, 5, true, 0, est);
	assert_int_equal(ask(f), -EINVAL);
	new_req(f, create, 1000, 5, true, 100, IPS_SEEN_REPLY);
	assert_int_equal(ask(f), -EBUSY);
	new_req(f, create, 1000, 5, true, 100, est | IPS_EXPECTED);
	assert_int_equal(ask(f), -EBUSY);
	new_req(f, create, 1000, 5, true, 100, est);
	msgbuf_put_u32(&f->req, CTA_MARK, htonl(7));
	put_help(&f->req, "sip");
	assert_int_equal(ask(f), -EOPNOTSUPP);
	assert_true(recv_rep(all) < 0);

	new_req(f, create, 1000, 5, true, 100, est);
	msgbuf_put_u32(&f->req, CTA_MARK, htonl(7));
	assert_int_equal(ask(f), 0);
	event_by(all, IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_EXCL,
		 nlsock_portid(f->sk), &c);
	assert_int_equal(c.sport, 1000);
	assert_int_equal(c.zone, 5);
	assert_int_equal(c.mark, 7);
	assert_int_equal(c.status, est);
	/* The socket whose request made it does not get it. */
	assert_true(recv_rep(f) < 0);
	dump(fx, AF_INET, -1, conns);
	assert_int_equal(conns[0].sport, 1);
	assert_int_equal(conns[1].mark, 7);
	assert_int_equal(conns[1].status, est);
	assert_in_range(conns[1].timeout, 98, 100);
	new_req(f, create | NLM_F_EXCL, 1000, 5, true, 100, est);
	assert_int_equal(ask(f), -EEXIST);

	/* A packet of it in its zone belongs to it: committing it again
	 * neither creates another nor says NEW. */
	commit(fx, 1000, 5, 0);
	assert_true(recv_rep(all) < 0);
	dump(fx, AF_INET, -1, conns);
	assert_int_equal(conns[0].sport, 1);
	assert_int_equal(conns[1].mark, 7);

	/* Changed: mark under a mask and timeout; an UPDATE. Bits that can
	 * only be set stay; a master and NAT only for new ones. */
	new_req(f, NLM_F_ACK, 1000, 5, false, 50, -1);
	msgbuf_put_u32(&f->req, CTA_MARK, htonl(0x30));
	msgbuf_put_u32(&f->req, CTA_MARK_MASK, htonl(0xf0));
	assert_int_equal(ask(f), 0);
	event_by(all, IPCTNL_MSG_CT_NEW, 0, nlsock_portid(f->sk), &c);
	assert_int_equal(c.mark, 0x37);
	assert_in_range(c.timeout, 48, 50);
	new_req(f, NLM_F_ACK, 1000, 5, false, 0, IPS_CONFIRMED);
	assert_int_equal(ask(f), -EBUSY);
	new_req(f, NLM_F_ACK, 1000, 5, false, 0, -1);
	put_tuple_of(&f->req, CTA_TUPLE_MASTER, IPPROTO_UDP, SRC_IP, 1, DST_IP,
		     2);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	assert_true(recv_rep(all) < 0);

	/* A related one: its master must exist. */
	new_req(f, create, 1001, 5, true, 100, IPS_CONFIRMED);
	put_tuple_of(&f->req, CTA_TUPLE_MASTER, IPPROTO_UDP, SRC_IP, 999,
		     DST_IP, DST_PORT);
	assert_int_equal(ask(f), -ENOENT);
	new_req(f, create, 1001, 5, true, 100, IPS_CONFIRMED);
	put_tuple_of(&f->req, CTA_TUPLE_MASTER, IPPROTO_UDP, SRC_IP, 1000,
		     DST_IP, DST_PORT);
	assert_int_equal(ask(f), 0);
	event_by(all, IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_EXCL,
		 nlsock_portid(f->sk), &c);
	assert_int_equal(c.sport, 1001);
	assert_int_equal(c.status, IPS_CONFIRMED | IPS_EXPECTED);
	fx_free(all);
}

/* CTA_NAT_SRC on creation maps the reply tuple as nf_nat does, the
 * destination to itself; NAT for an existing one: EOPNOTSUPP. */
static void
test_create_nat(void **state)
{
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	struct fixture *fx = *state;
	struct fx *f = fx->nf;
	const struct nlmsghdr *m = (const void *)f->rep;
	uint32_t src, dst;
	uint16_t sport, dport;
	struct nlattr *nat;
	uint8_t proto;

	new_req(f, NLM_F_CREATE | NLM_F_ACK, 1000, 0, true, 100,
		IPS_CONFIRMED);
	nat = msgbuf_nest_start(&f->req, CTA_NAT_SRC | NLA_F_NESTED);
	msgbuf_put_u32(&f->req, CTA_NAT_V4_MINIP, htonl(0x0a000063));
	msgbuf_nest_end(&f->req, nat);
	assert_int_equal(ask(f), 0);
	ct_req(f, IPCTNL_MSG_CT_GET, 0, AF_INET, NFNETLINK_V0);
	put_tuple(&f->req, 1000);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	parse_tuple(attrs_find((const char *)m + off, m->nlmsg_len - off,
			       CTA_TUPLE_REPLY),
		    &src, &dst, &sport, &dport, &proto);
	assert_int_equal(src, DST_IP);
	assert_int_equal(dst, 0x0a000063);
	assert_int_equal(sport, DST_PORT);
	assert_int_equal(get_be32(attr_data(attrs_find((const char *)m + off,
						       m->nlmsg_len - off,
						       CTA_STATUS))),
			 IPS_CONFIRMED | IPS_SRC_NAT | IPS_SRC_NAT_DONE |
				 IPS_DST_NAT_DONE);
	new_req(f, NLM_F_ACK, 1000, 0, false, 0, -1);
	nat = msgbuf_nest_start(&f->req, CTA_NAT_SRC | NLA_F_NESTED);
	msgbuf_nest_end(&f->req, nat);
	assert_int_equal(ask(f), -EOPNOTSUPP);
}

/* CT_NEW for the TCP connection from 1000 to 80 in tcp_state. */
static void
tcp_new_req(struct fx *f, uint8_t tcp_state)
{
	struct nlattr *pi, *tcp;

	ct_req(f, IPCTNL_MSG_CT_NEW, NLM_F_CREATE | NLM_F_ACK, AF_INET,
	       NFNETLINK_V0);
	put_tuple_of(&f->req, CTA_TUPLE_ORIG, IPPROTO_TCP, SRC_IP, 1000, DST_IP,
		     80);
	put_tuple_of(&f->req, CTA_TUPLE_REPLY, IPPROTO_TCP, DST_IP, 80, SRC_IP,
		     1000);
	msgbuf_put_u32(&f->req, CTA_TIMEOUT, htonl(100));
	msgbuf_put_u32(&f->req, CTA_STATUS,
		       htonl(IPS_CONFIRMED | IPS_SEEN_REPLY | IPS_ASSURED));
	pi = msgbuf_nest_start(&f->req, CTA_PROTOINFO | NLA_F_NESTED);
	tcp = msgbuf_nest_start(&f->req, CTA_PROTOINFO_TCP | NLA_F_NESTED);
	msgbuf_put_u8(&f->req, CTA_PROTOINFO_TCP_STATE, tcp_state);
	msgbuf_nest_end(&f->req, tcp);
	msgbuf_nest_end(&f->req, pi);
}

/* A TCP connection created in the state CTA_PROTOINFO gives, with the
 * ftp helper, listed so; a state the kernel does not have: EINVAL; the
 * helper changed as ctnetlink_change_helper() lets it. */
static void
test_create_tcp(void **state)
{
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	struct fixture *fx = *state;
	struct fx *f = fx->nf;
	const struct nlmsghdr *m = (const void *)f->rep;
	const struct nlattr *pi;

	tcp_new_req(f, TCP_CONNTRACK_MAX);
	assert_int_equal(ask(f), -EINVAL);
	/* With a helper for TCP: ftp, not tftp. */
	tcp_new_req(f, TCP_CONNTRACK_ESTABLISHED);
	put_help(&f->req, "tftp");
	assert_int_equal(ask(f), -EOPNOTSUPP);
	tcp_new_req(f, TCP_CONNTRACK_ESTABLISHED);
	put_help(&f->req, "ftp");
	assert_int_equal(ask(f), 0);
	ct_req(f, IPCTNL_MSG_CT_GET, 0, AF_INET, NFNETLINK_V0);
	put_tuple_of(&f->req, CTA_TUPLE_ORIG, IPPROTO_TCP, SRC_IP, 1000, DST_IP,
		     80);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	pi = attrs_find((const char *)m + off, m->nlmsg_len - off,
			CTA_PROTOINFO);
	assert_int_equal(attr_get_u8(nested(nested(pi, CTA_PROTOINFO_TCP),
					    CTA_PROTOINFO_TCP_STATE)),
			 TCP_CONNTRACK_ESTABLISHED);
	assert_string_equal(attr_data(nested(attrs_find((const char *)m + off,
							m->nlmsg_len - off,
							CTA_HELP),
					     CTA_HELP_NAME)),
			    "ftp");
	/* Its helper again: no change; another: EOPNOTSUPP; "": it goes. */
	for (int i = 0; i < 3; i++) {
		static const char *const names[] = { "ftp", "sip", "" };
		static const int errs[] = { 0, -EOPNOTSUPP, 0 };

		ct_req(f, IPCTNL_MSG_CT_NEW, NLM_F_ACK, AF_INET, NFNETLINK_V0);
		put_tuple_of(&f->req, CTA_TUPLE_ORIG, IPPROTO_TCP, SRC_IP,
			     1000, DST_IP, 80);
		put_help(&f->req, names[i]);
		assert_int_equal(ask(f), errs[i]);
	}
	ct_req(f, IPCTNL_MSG_CT_GET, 0, AF_INET, NFNETLINK_V0);
	put_tuple_of(&f->req, CTA_TUPLE_ORIG, IPPROTO_TCP, SRC_IP, 1000, DST_IP,
		     80);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	assert_null(attrs_find((const char *)m + off, m->nlmsg_len - off,
			       CTA_HELP));
}

/* A statistics request of msg; returns the attribute type of the first
 * message's reply. */
static const struct nlattr *
stats_attr(struct fx *f, uint16_t type)
{
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	const struct nlmsghdr *m = (const void *)f->rep;

	return attrs_find((const char *)m + off, m->nlmsg_len - off, type);
}

static void
count_msgs(const struct nlmsghdr *m, void *arg)
{
	const struct nfgenmsg *nf = NLMSG_DATA(m);

	assert_int_equal(m->nlmsg_type, CT_TYPE(IPCTNL_MSG_CT_GET_STATS_CPU));
	assert_int_equal(nf->res_id, 0);	/* CPU 0 */
	(*(int *)arg)++;
}

/* conntrack -C and -S: the table's count and limit; the counters as one
 * CPU's. */
static void
test_stats(void **state)
{
	struct fixture *fx = *state;
	struct fx *f = fx->nf;
	int n = 0;

	commit(fx, 1000, 0, 0);
	commit(fx, 1001, 0, 0);
	ct_req(f, IPCTNL_MSG_CT_GET_STATS, 0, AF_UNSPEC, NFNETLINK_V0);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	assert_int_equal(((const struct nlmsghdr *)f->rep)->nlmsg_type,
			 CT_TYPE(IPCTNL_MSG_CT_GET_STATS));
	assert_int_equal(get_be32(attr_data(stats_attr(
				 f, CTA_STATS_GLOBAL_ENTRIES))),
			 2);
	assert_non_null(stats_attr(f, CTA_STATS_GLOBAL_MAX_ENTRIES));
	ct_req(f, IPCTNL_MSG_CT_GET_STATS_CPU, NLM_F_DUMP, AF_UNSPEC,
	       NFNETLINK_V0);
	req_end(f);
	assert_int_equal(dump_all(f, count_msgs, &n), 1);
	assert_int_equal(n, 1);
}

#define EXP_TYPE(msg)	(NFNL_SUBSYS_CTNETLINK_EXP << 8 | (msg))
#define EXP_PORT	4000

/* An expectation request of msg; with the expected tuple (to EXP_PORT
 * from any port), its mask (src_mask: the source port's) and the master
 * (from master_sport; 0: none) when tuple says so. */
static void
exp_req(struct fx *f, uint8_t msg, uint16_t flags, bool tuple,
	uint16_t src_mask, uint16_t master_sport)
{
	struct nfgenmsg *nf = req_msg(f, EXP_TYPE(msg), flags, sizeof(*nf));

	nf->nfgen_family = AF_INET;
	if (tuple) {
		put_tuple_of(&f->req, CTA_EXPECT_TUPLE, IPPROTO_UDP, DST_IP, 0,
			     SRC_IP, EXP_PORT);
		put_tuple_of(&f->req, CTA_EXPECT_MASK, IPPROTO_UDP, 0xffffffff,
			     src_mask, 0xffffffff, 0xffff);
	}
	if (master_sport)
		put_tuple_of(&f->req, CTA_EXPECT_MASTER, IPPROTO_UDP, SRC_IP,
			     master_sport, DST_IP, DST_PORT);
}

/* An expectation as a dump or an event shows it. */
struct exp {
	uint32_t src, dst, id, timeout;
	uint16_t sport, dport, master_sport;
	char helper[16];
};

static void
parse_exp(const struct nlmsghdr *m, uint8_t msg, struct exp *e)
{
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	const char *p = (const char *)m + off;
	int rem = m->nlmsg_len - off;
	uint32_t x;
	uint16_t mask_sport, mask_dport, y;
	uint8_t proto;
	const struct nlattr *a;

	assert_int_equal(m->nlmsg_type, EXP_TYPE(msg));
	parse_tuple(attrs_find(p, rem, CTA_EXPECT_TUPLE), &e->src, &e->dst,
		    &e->sport, &e->dport, &proto);
	parse_tuple(attrs_find(p, rem, CTA_EXPECT_MASK), &x, &x, &mask_sport,
		    &mask_dport, &proto);
	assert_int_equal(x, 0xffffffff);
	assert_int_equal(mask_sport, 0);
	assert_int_equal(mask_dport, 0xffff);
	parse_tuple(attrs_find(p, rem, CTA_EXPECT_MASTER), &x, &x,
		    &e->master_sport, &y, &proto);
	e->timeout = get_be32(attr_data(attrs_find(p, rem,
						   CTA_EXPECT_TIMEOUT)));
	e->id = get_be32(attr_data(attrs_find(p, rem, CTA_EXPECT_ID)));
	assert_non_null(attrs_find(p, rem, CTA_EXPECT_FLAGS));
	assert_non_null(attrs_find(p, rem, CTA_EXPECT_CLASS));
	a = attrs_find(p, rem, CTA_EXPECT_HELP_NAME);
	snprintf(e->helper, sizeof(e->helper), "%s",
		 a ? (const char *)attr_data(a) : "");
}

/* exps[0].id: how many; then each. */
static void
collect_exp(const struct nlmsghdr *m, void *arg)
{
	struct exp *exps = arg;

	assert_true(exps[0].id < 3);
	parse_exp(m, IPCTNL_MSG_EXP_NEW, &exps[++exps[0].id]);
}

static void
exp_dump(struct fx *f, struct exp *exps)
{
	memset(exps, 0, 4 * sizeof(*exps));
	exp_req(f, IPCTNL_MSG_EXP_GET, NLM_F_DUMP, false, 0, 0);
	req_end(f);
	dump_all(f, collect_exp, exps);
}

/* counts: CTA_STATS_EXP_CREATE, NEW and DELETE of CPU 0's message. */
static void
exp_counts(const struct nlmsghdr *m, void *arg)
{
	static const uint16_t types[] = {
		CTA_STATS_EXP_CREATE, CTA_STATS_EXP_NEW, CTA_STATS_EXP_DELETE,
	};
	size_t off = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	const struct nfgenmsg *nf = NLMSG_DATA(m);
	uint32_t *counts = arg;

	assert_int_equal(m->nlmsg_type, EXP_TYPE(IPCTNL_MSG_EXP_GET_STATS_CPU));
	assert_int_equal(nf->res_id, 0);
	for (int i = 0; i < 3; i++)
		counts[i] = get_be32(attr_data(attrs_find((const char *)m + off,
							  m->nlmsg_len - off,
							  types[i])));
}

static struct fx *
exp_listener(struct fixture *fx)
{
	struct fx *l = fx_new(fx->net, NETLINK_NETFILTER, true);

	assert_int_equal(nlsock_setsockopt(l->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP,
					   NFNLGRP_CONNTRACK_EXP_NEW), 0);
	assert_int_equal(nlsock_setsockopt(l->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP,
					   NFNLGRP_CONNTRACK_EXP_DESTROY), 0);
	return l;
}

static void
exp_event(struct fx *l, uint8_t msg, uint16_t flags, struct exp *e)
{
	const struct nlmsghdr *m = (const void *)l->rep;

	assert_true(recv_rep(l) > 0);
	assert_int_equal(m->nlmsg_flags, flags);
	parse_exp(m, msg, e);
}

/* Expectations: added to a connection with a helper (EXP_NEW), listed,
 * got, given a new timeout, deleted by helper name and tuple, with the
 * kernel's errnos and events; their counters. */
static void
test_expectations(void **state)
{
	const uint16_t create = NLM_F_CREATE | NLM_F_ACK;
	struct fixture *fx = *state;
	struct fx *l = exp_listener(fx);
	struct fx *f = fx->nf;
	struct exp exps[4], e;
	uint32_t counts[3];

	commit_helper(fx, 1000, 0, 0, NULL, -1, "tftp");
	commit(fx, 1001, 0, 0);
	/* Incomplete; no such master; a master without a helper; a mask
	 * the tracker cannot keep. */
	exp_req(f, IPCTNL_MSG_EXP_NEW, create, true, 0, 0);
	assert_int_equal(ask(f), -EINVAL);
	exp_req(f, IPCTNL_MSG_EXP_NEW, create, true, 0, 999);
	assert_int_equal(ask(f), -ENOENT);
	exp_req(f, IPCTNL_MSG_EXP_NEW, create, true, 0, 1001);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	exp_req(f, IPCTNL_MSG_EXP_NEW, create, true, 0xffff, 1000);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	exp_req(f, IPCTNL_MSG_EXP_NEW, NLM_F_ACK, true, 0, 1000);
	assert_int_equal(ask(f), -ENOENT);
	assert_true(recv_rep(l) < 0);

	exp_req(f, IPCTNL_MSG_EXP_NEW, create, true, 0, 1000);
	assert_int_equal(ask(f), 0);
	exp_event(l, IPCTNL_MSG_EXP_NEW, NLM_F_CREATE | NLM_F_EXCL, &e);
	assert_int_equal(e.dport, EXP_PORT);
	assert_int_equal(((const struct nlmsghdr *)l->rep)->nlmsg_pid,
			 nlsock_portid(f->sk));
	assert_int_equal(e.master_sport, 1000);
	exp_dump(f, exps);
	assert_int_equal(exps[0].id, 1);
	assert_int_equal(exps[1].src, DST_IP);
	assert_int_equal(exps[1].dst, SRC_IP);
	assert_int_equal(exps[1].sport, 0);
	assert_int_equal(exps[1].dport, EXP_PORT);
	assert_int_equal(exps[1].master_sport, 1000);
	assert_int_equal(exps[1].id, e.id);
	assert_in_range(exps[1].timeout, 298, 300);
	assert_string_equal(exps[1].helper, "tftp");
	exp_req(f, IPCTNL_MSG_EXP_NEW, create | NLM_F_EXCL, true, 0, 1000);
	assert_int_equal(ask(f), -EEXIST);
	/* One connection's: the master's, none of another's. */
	exp_req(f, IPCTNL_MSG_EXP_GET, NLM_F_DUMP, false, 0, 1001);
	req_end(f);
	memset(exps, 0, sizeof(exps));
	dump_all(f, collect_exp, exps);
	assert_int_equal(exps[0].id, 0);
	exp_req(f, IPCTNL_MSG_EXP_GET, NLM_F_DUMP, false, 0, 1000);
	req_end(f);
	memset(exps, 0, sizeof(exps));
	dump_all(f, collect_exp, exps);
	assert_int_equal(exps[0].id, 1);
	exp_req(f, IPCTNL_MSG_EXP_GET, NLM_F_DUMP, false, 0, 999);
	assert_int_equal(ask(f), -ENOENT);
	/* A new timeout for the one there is. */
	exp_req(f, IPCTNL_MSG_EXP_NEW, NLM_F_ACK, true, 0, 1000);
	msgbuf_put_u32(&f->req, CTA_EXPECT_TIMEOUT, htonl(60));
	assert_int_equal(ask(f), 0);

	/* Got by its tuple, and by its id. */
	exp_req(f, IPCTNL_MSG_EXP_GET, 0, true, 0, 0);
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	parse_exp((const void *)f->rep, IPCTNL_MSG_EXP_NEW, &e);
	assert_in_range(e.timeout, 58, 60);
	exp_req(f, IPCTNL_MSG_EXP_GET, 0, true, 0, 0);
	msgbuf_put_u32(&f->req, CTA_EXPECT_ID, htonl(e.id + 1));
	assert_int_equal(ask(f), -ENOENT);
	exp_req(f, IPCTNL_MSG_EXP_GET, 0, false, 0, 0);
	assert_int_equal(ask(f), -EINVAL);

	/* Deleted by another helper's name: nothing; by its own. */
	exp_req(f, IPCTNL_MSG_EXP_DELETE, NLM_F_ACK, false, 0, 0);
	msgbuf_put_string(&f->req, CTA_EXPECT_HELP_NAME, "ftp");
	assert_int_equal(ask(f), 0);
	assert_true(recv_rep(l) < 0);
	exp_req(f, IPCTNL_MSG_EXP_DELETE, NLM_F_ACK, false, 0, 0);
	msgbuf_put_string(&f->req, CTA_EXPECT_HELP_NAME, "tftp");
	assert_int_equal(ask(f), 0);
	exp_event(l, IPCTNL_MSG_EXP_DELETE, 0, &e);
	assert_int_equal(e.dport, EXP_PORT);
	assert_int_equal(((const struct nlmsghdr *)l->rep)->nlmsg_pid,
			 nlsock_portid(f->sk));
	exp_dump(f, exps);
	assert_int_equal(exps[0].id, 0);
	exp_req(f, IPCTNL_MSG_EXP_DELETE, NLM_F_ACK, true, 0, 0);
	assert_int_equal(ask(f), -ENOENT);

	/* Again, deleted by its tuple. */
	exp_req(f, IPCTNL_MSG_EXP_NEW, create, true, 0, 1000);
	assert_int_equal(ask(f), 0);
	exp_event(l, IPCTNL_MSG_EXP_NEW, NLM_F_CREATE | NLM_F_EXCL, &e);
	exp_req(f, IPCTNL_MSG_EXP_DELETE, NLM_F_ACK, true, 0, 0);
	assert_int_equal(ask(f), 0);
	exp_event(l, IPCTNL_MSG_EXP_DELETE, 0, &e);
	fx_free(l);

	/* Two created, none met, two deleted. */
	exp_req(f, IPCTNL_MSG_EXP_GET_STATS_CPU, NLM_F_DUMP, false, 0, 0);
	req_end(f);
	assert_int_equal(dump_all(f, exp_counts, counts), 1);
	assert_int_equal(counts[0], 2);
	assert_int_equal(counts[1], 0);
	assert_int_equal(counts[2], 2);
}

static int
group_setup(void **state)
{
	rcu_register_thread();
	vport_set_rx_queues(1);
	nl_serve();
	return 0;
}

static int
group_teardown(void **state)
{
	nl_serve_end();
	rcu_unregister_thread();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_parts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_get_and_delete, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_policies, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_and_change, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_create_tcp, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_create_nat, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expectations, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("ctnetlink", tests, group_setup,
					   group_teardown);
}
