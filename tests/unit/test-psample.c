/* SPDX-License-Identifier: Apache-2.0 */
/* psample as net/psample/psample.c serves the datapath: the sample message
 * (the kernel's attributes in the kernel's order, sequence 0, the cookie,
 * the data cut by trunc() and to fit in 64 KiB, the tunnel), the family
 * as nlctrl names it, its empty group list, who may join "packets", and a
 * psample action's sample reaching a member of it (only a member). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <urcu.h>

#include "families/families.h"
#include "include/tapdp/psample-uapi.h"
#include "genl-server/attr.h"
#include "genl-server/genl.h"
#include "genl-server/nlsock.h"
#include "tests/unit/builders.h"
#include "tests/unit/fake-port.h"
#include "tests/unit/nl-test.h"

static struct dp_net *net;
static uint8_t frame[70000];

/* The attributes of the sample message in buf, after checking its
 * headers; *rem their length. */
static const struct nlattr *
sample_attrs(const void *buf, size_t len, int *rem)
{
	const struct nlmsghdr *nlh = buf;
	const struct genlmsghdr *gh = NLMSG_DATA(nlh);

	assert_true(len >= NLMSG_HDRLEN + GENL_HDRLEN);
	assert_int_equal(nlh->nlmsg_len, len);
	assert_int_equal(nlh->nlmsg_type, FAMILY_ID_PSAMPLE);
	assert_int_equal(nlh->nlmsg_seq, 0);
	assert_int_equal(nlh->nlmsg_pid, 0);
	assert_int_equal(gh->cmd, PSAMPLE_CMD_SAMPLE);
	assert_int_equal(gh->version, PSAMPLE_GENL_VERSION);
	*rem = len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (const void *)((const char *)gh + GENL_HDRLEN);
}

/* Builds s's message with timestamp 1234: its length, in buf. */
static size_t
build(const struct dp_psample *s, void *buf, size_t size)
{
	struct msgbuf mb;

	assert_true(psample_sample_size(s) <= size);
	msgbuf_init(&mb, buf, size);
	assert_int_equal(psample_sample_msg(&mb, s, 1234), 0);
	return mb.len;
}

/* The attributes come in the kernel's order, with the kernel's widths:
 * the input ifindex as a u16, the sequence 0 (the datapath's groups are
 * never registered), the data trunc() left, the cookie, the flag that the
 * rate is a probability. */
static void
test_msg_order(void **state)
{
	static const uint16_t want[] = {
		PSAMPLE_ATTR_IIFINDEX, PSAMPLE_ATTR_SAMPLE_RATE,
		PSAMPLE_ATTR_ORIGSIZE, PSAMPLE_ATTR_SAMPLE_GROUP,
		PSAMPLE_ATTR_GROUP_SEQ, PSAMPLE_ATTR_TIMESTAMP,
		PSAMPLE_ATTR_PROTO, PSAMPLE_ATTR_DATA,
		TAPDP_PSAMPLE_ATTR_USER_COOKIE,
		TAPDP_PSAMPLE_ATTR_SAMPLE_PROBABILITY,
	};
	const struct dp_psample s = {
		.group = 7, .rate = UINT32_MAX, .in_ifindex = 0x10203,
		.proto = 0x0800, .cookie = "\xc0\xff\xee", .cookie_len = 3,
		.data = frame, .len = 98, .trunc_size = 14,
	};
	static char buf[4096];
	const struct nlattr *a;
	unsigned i = 0;
	int rem;

	for (int j = 0; j < 98; j++)
		frame[j] = j;
	a = sample_attrs(buf, build(&s, buf, sizeof(buf)), &rem);
	attr_for_each(a, a, rem, rem) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		assert_int_equal(attr_type(a), want[i++]);
		switch (attr_type(a)) {
		case PSAMPLE_ATTR_IIFINDEX:
			/* The kernel's u16: the index cut to 16 bits. */
			assert_int_equal(attr_len(a), 2);
			assert_int_equal(attr_get_u16(a), 0x0203);
			break;
		case PSAMPLE_ATTR_SAMPLE_RATE:
			assert_int_equal(attr_get_u32(a), UINT32_MAX);
			break;
		case PSAMPLE_ATTR_ORIGSIZE:
			assert_int_equal(attr_get_u32(a), 98);
			break;
		case PSAMPLE_ATTR_SAMPLE_GROUP:
			assert_int_equal(attr_get_u32(a), 7);
			break;
		case PSAMPLE_ATTR_GROUP_SEQ:
			assert_int_equal(attr_get_u32(a), 0);
			break;
		case PSAMPLE_ATTR_TIMESTAMP:
			assert_int_equal(attr_len(a), 8);
			assert_int_equal(attr_get_u64(a), 1234);
			break;
		case PSAMPLE_ATTR_PROTO:
			assert_int_equal(attr_get_u16(a), 0x0800);
			break;
		case PSAMPLE_ATTR_DATA:
			assert_int_equal(attr_len(a), 14);
			assert_memory_equal(attr_data(a), frame, 14);
			break;
		case TAPDP_PSAMPLE_ATTR_USER_COOKIE:
			assert_int_equal(attr_len(a), 3);
			assert_memory_equal(attr_data(a), "\xc0\xff\xee", 3);
			break;
		case TAPDP_PSAMPLE_ATTR_SAMPLE_PROBABILITY:
			assert_int_equal(attr_len(a), 0);
			break;
		}
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
}

/* No input port, no cookie and trunc() to nothing: none of their
 * attributes. */
static void
test_msg_optional(void **state)
{
	const struct dp_psample s = {
		.group = 1, .rate = 5, .proto = 0x86dd, .data = frame,
		.len = 60, .trunc_size = 0,
	};
	static char buf[4096];
	const struct nlattr *a;
	int rem;

	a = sample_attrs(buf, build(&s, buf, sizeof(buf)), &rem);
	assert_null(attrs_find(a, rem, PSAMPLE_ATTR_IIFINDEX));
	assert_null(attrs_find(a, rem, PSAMPLE_ATTR_DATA));
	assert_null(attrs_find(a, rem, TAPDP_PSAMPLE_ATTR_USER_COOKIE));
	assert_null(attrs_find(a, rem, PSAMPLE_ATTR_TUNNEL));
	assert_int_equal(attr_get_u32(attrs_find(a, rem,
						 PSAMPLE_ATTR_SAMPLE_RATE)),
			 5);
}

/* A packet too large for one message is cut so that the attributes take
 * at most 0xffff bytes; its original size is still told. */
static void
test_msg_cut(void **state)
{
	const struct dp_psample s = {
		.group = 1, .rate = UINT32_MAX, .in_ifindex = 3,
		.proto = 0x0800, .data = frame, .len = sizeof(frame),
		.trunc_size = sizeof(frame),
	};
	size_t size = psample_sample_size(&s);
	char *buf = test_malloc(size);
	const struct nlattr *a, *data;
	size_t len;
	int rem;

	len = build(&s, buf, size);
	a = sample_attrs(buf, len, &rem);
	assert_true(rem <= 0xffff);
	assert_true(rem > 0xffff - 8);
	data = attrs_find(a, rem, PSAMPLE_ATTR_DATA);
	assert_non_null(data);
	assert_memory_equal(attr_data(data), frame, attr_len(data));
	assert_int_equal(attr_get_u32(attrs_find(a, rem,
						 PSAMPLE_ATTR_ORIGSIZE)),
			 sizeof(frame));
	test_free(buf);
}

/* The packet's tunnel follows the data, its set fields only, geneve
 * options included. */
static void
test_msg_tunnel(void **state)
{
	static const uint8_t opts[8] = { 0x01, 0x02, 0x80, 0x01,
					 0xde, 0xad, 0xbe, 0xef };
	static const uint16_t want[] = {
		PSAMPLE_TUNNEL_KEY_ATTR_ID, PSAMPLE_TUNNEL_KEY_ATTR_IPV4_SRC,
		PSAMPLE_TUNNEL_KEY_ATTR_IPV4_DST, PSAMPLE_TUNNEL_KEY_ATTR_TTL,
		PSAMPLE_TUNNEL_KEY_ATTR_CSUM, PSAMPLE_TUNNEL_KEY_ATTR_TP_DST,
		PSAMPLE_TUNNEL_KEY_ATTR_GENEVE_OPTS,
	};
	static struct tun_key t;
	struct dp_psample s = {
		.group = 1, .rate = UINT32_MAX, .proto = 0x0800,
		.cookie = "ab", .cookie_len = 2, .data = frame, .len = 60,
		.trunc_size = 60, .tun = &t,
	};
	static char buf[4096];
	const struct nlattr *a, *nest, *data, *cookie, *ta;
	unsigned i = 0;
	int rem, trem;

	t.family = AF_INET;
	t.flags = TUN_F_KEY | TUN_F_CSUM | TUN_F_GENEVE_OPT;
	t.id = htobe64(42);
	t.ipv4_src = htonl(0x0a000001);
	t.ipv4_dst = htonl(0x0a000002);
	t.ttl = 64;
	t.tp_dst = htons(6081);
	t.opts_len = sizeof(opts);
	memcpy(tun_key_opts(&t), opts, sizeof(opts));
	a = sample_attrs(buf, build(&s, buf, sizeof(buf)), &rem);
	data = attrs_find(a, rem, PSAMPLE_ATTR_DATA);
	nest = attrs_find(a, rem, PSAMPLE_ATTR_TUNNEL);
	cookie = attrs_find(a, rem, TAPDP_PSAMPLE_ATTR_USER_COOKIE);
	assert_non_null(nest);
	assert_true(data < nest && nest < cookie);
	attr_for_each(ta, attr_data(nest), attr_len(nest), trem) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		assert_int_equal(attr_type(ta), want[i++]);
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	ta = attrs_find(attr_data(nest), attr_len(nest),
			PSAMPLE_TUNNEL_KEY_ATTR_GENEVE_OPTS);
	assert_int_equal(attr_len(ta), sizeof(opts));
	assert_memory_equal(attr_data(ta), opts, sizeof(opts));
	assert_int_equal(attr_get_u64(attrs_find(attr_data(nest),
						 attr_len(nest),
						 PSAMPLE_TUNNEL_KEY_ATTR_ID)),
			 htobe64(42));
}

/* nlctrl names the family with the kernel's version, attribute count and
 * groups. */
static void
test_family(void **state)
{
	struct fx *f = fx_new(net, NETLINK_GENERIC, false);
	const struct nlattr *grps, *g;
	unsigned n = 0;
	int rem;

	req_start(f, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 0);
	msgbuf_put_string(&f->req, CTRL_ATTR_FAMILY_NAME, "psample");
	req_end(f);
	send_req(f);
	assert_true(recv_rep(f) > 0);
	assert_int_equal(attr_get_u16(rep_attr(f, 0, CTRL_ATTR_FAMILY_ID)),
			 FAMILY_ID_PSAMPLE);
	assert_int_equal(attr_get_u32(rep_attr(f, 0, CTRL_ATTR_VERSION)), 1);
	assert_int_equal(attr_get_u32(rep_attr(f, 0, CTRL_ATTR_MAXATTR)),
			 TAPDP_PSAMPLE_ATTR_MAX);
	grps = rep_attr(f, 0, CTRL_ATTR_MCAST_GROUPS);
	assert_non_null(grps);
	attr_for_each(g, attr_data(grps), attr_len(grps), rem) {
		const struct nlattr *name = attrs_find(
			attr_data(g), attr_len(g), CTRL_ATTR_MCAST_GRP_NAME);
		const struct nlattr *id = attrs_find(
			attr_data(g), attr_len(g), CTRL_ATTR_MCAST_GRP_ID);

		assert_string_equal(attr_data(name),
				    n ? "packets" : "config");
		assert_int_equal(attr_get_u32(id), n ? GROUP_PSAMPLE_PACKETS
						     : GROUP_PSAMPLE_CONFIG);
		n++;
	}
	assert_int_equal(n, 2);
	fx_free(f);
}

static void
count_msg(const struct nlmsghdr *nlh, void *arg)
{
	(*(int *)arg)++;
}

/* GET_GROUP is a dump anyone may ask for; the datapath registers no group,
 * so it is empty. Without NLM_F_DUMP there is nothing to do. */
static void
test_get_group(void **state)
{
	struct fx *f = fx_new(net, NETLINK_GENERIC, false);
	int n = 0;

	req_start(f, FAMILY_ID_PSAMPLE, NLM_F_DUMP, PSAMPLE_CMD_GET_GROUP, 0);
	req_end(f);
	dump_all(f, count_msg, &n);
	assert_int_equal(n, 0);
	req_start(f, FAMILY_ID_PSAMPLE, 0, PSAMPLE_CMD_GET_GROUP, 0);
	assert_int_equal(ask(f), -EOPNOTSUPP);
	fx_free(f);
}

/* "packets" is CAP_NET_ADMIN's to join; "config" anyone's (the check the
 * server makes before a socket joins a generic netlink group). */
static void
test_join(void **state)
{
	struct fx *user = fx_new(net, NETLINK_GENERIC, false);
	struct fx *admin = fx_new(net, NETLINK_GENERIC, true);

	assert_int_equal(genl_join_check(user->sk, GROUP_PSAMPLE_PACKETS),
			 -EPERM);
	assert_int_equal(genl_join_check(user->sk, GROUP_PSAMPLE_CONFIG), 0);
	assert_int_equal(genl_join_check(admin->sk, GROUP_PSAMPLE_PACKETS), 0);
	fx_free(user);
	fx_free(admin);
}

/* An executed packet's psample action reaches the members of "packets"
 * only, from the input port, once per action; the first (before any
 * set(tunnel): an executed packet has no tunnel) without PSAMPLE_ATTR_TUNNEL,
 * the second with the tunnel set(tunnel) gave. */
static void
test_sample_to_member(void **state)
{
	struct fx *member = fx_new(net, NETLINK_GENERIC, true);
	struct fx *other = fx_new(net, NETLINK_GENERIC, true);
	struct actions_stored *stored;
	static struct attrs acts;
	struct nlattr *ps, *set, *tun;
	const struct nlattr *nest;
	struct dp_port *in;
	struct datapath *dp;
	struct flow_key md;
	uint32_t pid = 1;
	uint8_t f[128];
	size_t len = fake_frame(f);
	const struct nlattr *a;
	ssize_t n;
	int rem;

	assert_int_equal(nlsock_setsockopt(member->sk, SOL_NETLINK,
					   NETLINK_ADD_MEMBERSHIP,
					   GROUP_PSAMPLE_PACKETS),
			 0);
	assert_int_equal(dp_create(net, "tps0", &pid, 1, &dp), 0);
	assert_int_equal(fake_device_add("tps-a"), 0);
	assert_int_equal(dp_port_add(dp, 1, OVS_VPORT_TYPE_NETDEV, "tps-a",
				     NULL, &pid, 1, &in), 0);
	attrs_init(&acts);
	for (uint32_t group = 5; group <= 6; group++) {
		if (group == 6) {
			set = msgbuf_nest_start(&acts.mb, OVS_ACTION_ATTR_SET);
			tun = msgbuf_nest_start(&acts.mb, OVS_KEY_ATTR_TUNNEL);
			msgbuf_put_u64(&acts.mb, OVS_TUNNEL_KEY_ATTR_ID,
				       htobe64(9));
			msgbuf_put_u32(&acts.mb, OVS_TUNNEL_KEY_ATTR_IPV4_DST,
				       htonl(0x0a000002));
			msgbuf_put_u8(&acts.mb, OVS_TUNNEL_KEY_ATTR_TTL, 7);
			msgbuf_nest_end(&acts.mb, tun);
			msgbuf_nest_end(&acts.mb, set);
		}
		ps = msgbuf_nest_start(&acts.mb, TAPDP_ACTION_ATTR_PSAMPLE);
		msgbuf_put_u32(&acts.mb, TAPDP_PSAMPLE_ATTR_GROUP, group);
		msgbuf_nest_end(&acts.mb, ps);
	}
	memset(&md, 0, sizeof(md));
	md.in_port = 1;
	/* A tunnel in the metadata is the key's, not the packet's. */
	md.tun.family = AF_INET;
	md.tun.ipv4_dst = htonl(0x0a000009);
	md.tun.ttl = 3;
	stored = attrs_store_actions(&acts, &md);
	assert_int_equal(dp_execute(dp, f, len, &md, 0, 0, 0, stored), 0);
	free(stored);
	for (uint32_t group = 5; group <= 6; group++) {
		n = recv_rep(member);
		a = sample_attrs(member->rep, n, &rem);
		assert_int_equal(attr_get_u32(attrs_find(
					 a, rem, PSAMPLE_ATTR_SAMPLE_GROUP)),
				 group);
		assert_int_equal(attr_get_u16(attrs_find(
					 a, rem, PSAMPLE_ATTR_IIFINDEX)),
				 (uint16_t)in->vport->ifindex);
		assert_int_equal(attr_get_u32(attrs_find(
					 a, rem, PSAMPLE_ATTR_GROUP_SEQ)),
				 0);
		assert_int_equal(attr_len(attrs_find(a, rem,
						     PSAMPLE_ATTR_DATA)),
				 len);
		nest = attrs_find(a, rem, PSAMPLE_ATTR_TUNNEL);
		if (group == 5) {
			assert_null(nest);
			continue;
		}
		assert_non_null(nest);
		assert_int_equal(attr_get_u64(attrs_find(
					 attr_data(nest), attr_len(nest),
					 PSAMPLE_TUNNEL_KEY_ATTR_ID)),
				 htobe64(9));
		assert_int_equal(attr_get_u32(attrs_find(
					 attr_data(nest), attr_len(nest),
					 PSAMPLE_TUNNEL_KEY_ATTR_IPV4_DST)),
				 htonl(0x0a000002));
		assert_int_equal(attr_get_u8(attrs_find(
					 attr_data(nest), attr_len(nest),
					 PSAMPLE_TUNNEL_KEY_ATTR_TTL)),
				 7);
	}
	assert_true(recv_rep(member) < 0);
	assert_true(recv_rep(other) < 0);
	dp_destroy(dp);
	rcu_barrier();
	fake_device_del("tps-a");
	fx_free(member);
	fx_free(other);
}

static int
group_setup(void **state)
{
	net = nl_serve_net();
	return net ? 0 : -1;
}

static int
group_teardown(void **state)
{
	nl_serve_net_end(net);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msg_order),
		cmocka_unit_test(test_msg_optional),
		cmocka_unit_test(test_msg_cut),
		cmocka_unit_test(test_msg_tunnel),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_get_group),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_sample_to_member),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
